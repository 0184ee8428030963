//! The verifier: shape inference and op constraints, run on a parsed module before anything is
//! evaluated. For every instruction it checks the attributes the opcode takes, infers the result
//! shape from the operand shapes and attributes (one module per op family, one function per op),
//! compares it with the shape the text declares, and enforces the memory budget. A module that
//! passes can be evaluated without the evaluator having to re-check anything.
//!
//! Every error names the instruction, its line and column, and a rule label the book defines
//! (`slice.limit_in_range`, `hlo.arity`, ...).

mod collective;
mod control;
mod elementwise;
mod indexing;
mod linalg;
mod movement;
mod numerics;
mod reduction;

use crate::error::{Error, Result};
use crate::hlo::ast::*;
use crate::hlo::opcode::{Family, Opcode};
use crate::shape::{ArrayShape, Shape};
use crate::types::ElementType;

#[derive(Clone, Debug)]
pub struct Options {
    /// The largest value, in bytes, that any single instruction may produce. The default (4 GiB)
    /// leaves room on a 24 GiB machine for operands, results and temporaries together.
    pub memory_budget: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            memory_budget: 4 << 30,
        }
    }
}

/// What an op's shape inference can see: the instruction, its operand shapes, the computations
/// defined before the current one (all already verified) and the module's replica count.
pub struct Ctx<'a> {
    pub comps: &'a [Computation],
    pub inst: &'a Instruction,
    pub operands: Vec<&'a Shape>,
    pub replica_count: i64,
}

impl<'a> Ctx<'a> {
    pub fn op(&self) -> Opcode {
        self.inst.opcode
    }

    /// The declared result shape, if the text wrote one.
    pub fn declared(&self) -> Option<&Shape> {
        self.inst.shape_declared.then_some(&self.inst.shape)
    }

    /// The declared result shape, for ops whose shape the text must state.
    pub fn declared_required(&self) -> Result<&Shape> {
        self.declared().ok_or_else(|| {
            Error::invalid(
                "hlo.shape_required",
                format!("`{}` needs its result shape written", self.op()),
            )
        })
    }

    /// Requires exactly `n` operands.
    pub fn arity(&self, n: usize) -> Result<()> {
        if self.operands.len() != n {
            return Err(Error::invalid(
                "hlo.arity",
                format!(
                    "`{}` takes {n} operand(s), got {}",
                    self.op(),
                    self.operands.len()
                ),
            ));
        }
        Ok(())
    }

    /// Requires at least `n` operands.
    pub fn arity_at_least(&self, n: usize) -> Result<()> {
        if self.operands.len() < n {
            return Err(Error::invalid(
                "hlo.arity",
                format!(
                    "`{}` takes at least {n} operand(s), got {}",
                    self.op(),
                    self.operands.len()
                ),
            ));
        }
        Ok(())
    }

    /// Operand `i` as an array shape, or an error naming the op's rule.
    pub fn array(&self, i: usize) -> Result<&'a ArrayShape> {
        match self.operands.get(i) {
            Some(Shape::Array(a)) => Ok(a),
            Some(other) => Err(Error::invalid(
                &format!("{}.operand_is_array", self.op()),
                format!(
                    "operand {i} of `{}` must be an array, got {other}",
                    self.op()
                ),
            )),
            None => Err(Error::invalid(
                "hlo.arity",
                format!("`{}` is missing operand {i}", self.op()),
            )),
        }
    }

    /// Operand `i` as a scalar array shape.
    pub fn scalar(&self, i: usize) -> Result<&'a ArrayShape> {
        let a = self.array(i)?;
        if !a.is_scalar() {
            return Err(Error::invalid(
                &format!("{}.scalar_operand", self.op()),
                format!("operand {i} of `{}` must be a scalar, got {a}", self.op()),
            ));
        }
        Ok(a)
    }

    pub fn attrs(&self) -> &'a Attrs {
        &self.inst.attrs
    }

    pub fn int_attr(&self, key: &str) -> Result<i64> {
        self.inst.attrs.int(key).ok_or_else(|| self.missing(key))
    }

    pub fn ints_attr(&self, key: &str) -> Result<&'a [i64]> {
        self.inst.attrs.ints(key).ok_or_else(|| self.missing(key))
    }

    pub fn comp_attr(&self, key: &str) -> Result<CompId> {
        self.inst.attrs.comp(key).ok_or_else(|| self.missing(key))
    }

    fn missing(&self, key: &str) -> Error {
        Error::invalid(
            "hlo.attribute",
            format!("`{}` needs the attribute `{key}`", self.op()),
        )
    }

    /// The parameter shapes and result shape of a sub-computation.
    pub fn signature(&self, id: CompId) -> Result<(Vec<Shape>, Shape)> {
        let c = self
            .comps
            .get(id)
            .ok_or_else(|| Error::internal("sub-computation index out of range"))?;
        Ok((c.parameter_shapes(), c.root().shape.clone()))
    }

    pub fn comp_name(&self, id: CompId) -> &str {
        self.comps.get(id).map(|c| c.name.as_str()).unwrap_or("?")
    }

    /// Checks that a sub-computation takes `params` (compatible shapes, in order) and returns
    /// `result`; `rule` labels the error.
    pub fn check_signature(
        &self,
        id: CompId,
        params: &[Shape],
        result: &Shape,
        rule: &str,
    ) -> Result<()> {
        let (ps, r) = self.signature(id)?;
        let fmt = |v: &[Shape]| {
            v.iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if ps.len() != params.len()
            || ps.iter().zip(params).any(|(a, b)| !a.compatible(b))
            || !r.compatible(result)
        {
            return Err(Error::invalid(
                rule,
                format!(
                    "computation `{}` has signature ({}) -> {}, but `{}` needs ({}) -> {}",
                    self.comp_name(id),
                    fmt(&ps),
                    r,
                    self.op(),
                    fmt(params),
                    result
                ),
            ));
        }
        Ok(())
    }
}

/// Checks that `dims` are distinct dimension numbers of a rank-`rank` array.
pub fn check_dims(dims: &[i64], rank: usize, rule: &str, what: &str) -> Result<()> {
    let mut seen = vec![false; rank];
    for &d in dims {
        if d < 0 || d as usize >= rank {
            return Err(Error::invalid(
                rule,
                format!("{what} {d} is out of range for rank {rank}"),
            ));
        }
        if seen[d as usize] {
            return Err(Error::invalid(rule, format!("{what} {d} is listed twice")));
        }
        seen[d as usize] = true;
    }
    Ok(())
}

/// Attributes any instruction may carry; xla-spec accepts and ignores them.
const GENERIC_ATTRS: &[&str] = &[
    "sharding",
    "metadata",
    "frontend_attributes",
    "statistics",
    "control-predecessors",
    "origin",
    "backend_config",
    "result_accuracy",
];

/// The attributes each opcode requires and the ones it may take.
pub fn attr_spec(op: Opcode) -> (&'static [&'static str], &'static [&'static str]) {
    use Opcode::*;
    const NONE: &[&str] = &[];
    const COLLECTIVE: &[&str] = &[
        "replica_groups",
        "channel_id",
        "use_global_device_ids",
        "constrain_layout",
    ];
    match op {
        Parameter => (NONE, &["parameter_replication"]),
        Constant | Tuple | Copy | Bitcast | DynamicUpdateSlice | DynamicReshape => (NONE, NONE),
        Iota => (&["iota_dimension"], NONE),
        GetTupleElement => (&["index"], NONE),
        Broadcast => (NONE, &["dimensions"]),
        Reshape => (NONE, &["inferred_dimension"]),
        Transpose | Reverse | Concatenate | GetDimensionSize | SetDimensionSize => {
            (&["dimensions"], NONE)
        }
        Slice => (&["slice"], NONE),
        DynamicSlice => (&["dynamic_slice_sizes"], NONE),
        Pad => (&["padding"], NONE),
        Abs | Cbrt | Ceil | Clz | Cos | Erf | Exp | Expm1 | Floor | Imag | IsFinite | Log
        | Log1p | Logistic | Negate | Not | PopulationCount | Real | RoundNearestAfz
        | RoundNearestEven | Rsqrt | Sign | Sin | Sqrt | Tan | Tanh => (NONE, NONE),
        Add | Subtract | Multiply | Divide | Power | Remainder | Maximum | Minimum | And | Or
        | Xor | ShiftLeft | ShiftRightArithmetic | ShiftRightLogical | Atan2 | Complex | Select
        | Clamp | Convert | BitcastConvert => (NONE, NONE),
        Compare => (&["direction"], &["type"]),
        ReducePrecision => (&["exponent_bits", "mantissa_bits"], NONE),
        Reduce => (&["dimensions", "to_apply"], NONE),
        ReduceWindow => (&["to_apply"], &["window"]),
        SelectAndScatter => (&["select", "scatter"], &["window"]),
        Map => (&["to_apply"], &["dimensions"]),
        Sort => (&["dimensions", "to_apply"], &["is_stable"]),
        TopK => (&["k"], &["largest"]),
        Gather => (
            &[
                "offset_dims",
                "collapsed_slice_dims",
                "start_index_map",
                "index_vector_dim",
                "slice_sizes",
            ],
            &[
                "indices_are_sorted",
                "operand_batching_dims",
                "start_indices_batching_dims",
            ],
        ),
        Scatter => (
            &[
                "update_window_dims",
                "inserted_window_dims",
                "scatter_dims_to_operand_dims",
                "index_vector_dim",
                "to_apply",
            ],
            &[
                "indices_are_sorted",
                "unique_indices",
                "input_batching_dims",
                "scatter_indices_batching_dims",
            ],
        ),
        Dot => (
            NONE,
            &[
                "lhs_batch_dims",
                "lhs_contracting_dims",
                "rhs_batch_dims",
                "rhs_contracting_dims",
                "operand_precision",
                "algorithm",
            ],
        ),
        Convolution => (
            &["dim_labels"],
            &[
                "window",
                "feature_group_count",
                "batch_group_count",
                "operand_precision",
            ],
        ),
        Call => (&["to_apply"], &["is_composite"]),
        While => (&["condition", "body"], NONE),
        Conditional => (
            NONE,
            &[
                "true_computation",
                "false_computation",
                "branch_computations",
            ],
        ),
        AfterAll | AddDependency | OptimizationBarrier => (NONE, NONE),
        CustomCall => (
            &["custom_call_target"],
            &[
                "api_version",
                "custom_call_has_side_effect",
                "operand_layout_constraints",
                "called_computations",
                "to_apply",
                "output_to_operand_aliasing",
                "schedule",
                "literal",
                "window",
                "dim_labels",
                "feature_group_count",
                "batch_group_count",
                "operand_precision",
            ],
        ),
        Infeed => (NONE, &["infeed_config"]),
        Outfeed => (NONE, &["outfeed_shape", "outfeed_config"]),
        Send | Recv | SendDone | RecvDone => (NONE, &["channel_id", "is_host_transfer"]),
        BatchNormTraining | BatchNormInference | BatchNormGrad => {
            (&["epsilon", "feature_index"], NONE)
        }
        Cholesky => (NONE, &["lower"]),
        TriangularSolve => (
            NONE,
            &["left_side", "lower", "unit_diagonal", "transpose_a"],
        ),
        Fft => (&["fft_type", "fft_length"], NONE),
        Rng => (&["distribution"], NONE),
        RngBitGenerator => (NONE, &["algorithm"]),
        RngGetAndUpdateState => (&["delta"], NONE),
        ReplicaId | PartitionId => (NONE, NONE),
        AllReduce => (&["to_apply"], COLLECTIVE),
        AllGather => (&["dimensions"], COLLECTIVE),
        AllToAll => (
            NONE,
            &[
                "dimensions",
                "replica_groups",
                "channel_id",
                "constrain_layout",
            ],
        ),
        ReduceScatter => (&["dimensions", "to_apply"], COLLECTIVE),
        CollectivePermute => (&["source_target_pairs"], &["channel_id"]),
        CollectiveBroadcast => (NONE, &["replica_groups", "channel_id"]),
    }
}

fn check_attrs(inst: &Instruction) -> Result<()> {
    let (required, optional) = attr_spec(inst.opcode);
    for a in &inst.attrs.0 {
        let k = a.key.as_str();
        if !required.contains(&k) && !optional.contains(&k) && !GENERIC_ATTRS.contains(&k) {
            let mut allowed: Vec<&str> = required.iter().chain(optional.iter()).copied().collect();
            allowed.sort();
            return Err(Error::invalid(
                "hlo.attribute",
                format!(
                    "`{}` does not take the attribute `{k}`{}",
                    inst.opcode,
                    if allowed.is_empty() {
                        String::new()
                    } else {
                        format!(" (it takes: {})", allowed.join(", "))
                    }
                ),
            )
            .at_location(a.loc));
        }
    }
    for k in required {
        if !inst.attrs.has(k) {
            return Err(Error::invalid(
                "hlo.attribute",
                format!("`{}` needs the attribute `{k}`", inst.opcode),
            ));
        }
    }
    Ok(())
}

/// Infers an instruction's result shape; dispatches to the op family's rules.
fn infer(ctx: &Ctx) -> Result<Shape> {
    match ctx.op().family() {
        Family::Movement => movement::infer(ctx),
        Family::Elementwise => elementwise::infer(ctx),
        Family::Reduction => reduction::infer(ctx),
        Family::Indexing => indexing::infer(ctx),
        Family::Linalg => linalg::infer(ctx),
        Family::Control => control::infer(ctx),
        Family::Numerics => numerics::infer(ctx),
        Family::Collective => collective::infer(ctx),
    }
}

/// Verifies a parsed module in place: fills in omitted result shapes and rejects anything that
/// breaks a rule.
pub fn verify_module(m: &mut Module, opts: &Options) -> Result<()> {
    let replica_count = m.replica_count.unwrap_or(1);
    for ci in 0..m.computations.len() {
        let (before, rest) = m.computations.split_at_mut(ci);
        let comp = &mut rest[0];
        verify_computation(before, comp, replica_count, opts).map_err(|e| {
            let loc = comp.loc;
            let name = comp.name.clone();
            e.at(&name, loc)
        })?;
    }
    let entry = &m.computations[m.entry];
    for p in entry.parameters() {
        if p.shape.checked_byte_size().is_none() {
            return Err(
                Error::invalid("shape.too_large", "entry parameter too large").at(&p.name, p.loc),
            );
        }
    }
    Ok(())
}

fn verify_computation(
    before: &[Computation],
    comp: &mut Computation,
    replica_count: i64,
    opts: &Options,
) -> Result<()> {
    // Parameters are numbered 0..n-1, each once.
    let mut nums: Vec<(i64, usize)> = comp
        .instructions
        .iter()
        .enumerate()
        .filter_map(|(i, inst)| inst.parameter_number.map(|n| (n, i)))
        .collect();
    nums.sort();
    for (k, &(n, i)) in nums.iter().enumerate() {
        if n != k as i64 {
            let inst = &comp.instructions[i];
            return Err(Error::invalid(
                "parameter.numbering",
                format!(
                    "parameters must be numbered 0..{} each once; found parameter({n})",
                    nums.len()
                ),
            )
            .at(&inst.name, inst.loc));
        }
    }
    for i in 0..comp.instructions.len() {
        let (done, rest) = comp.instructions.split_at_mut(i);
        let inst = &mut rest[0];
        let shape = verify_instruction(before, done, inst, replica_count, opts)
            .map_err(|e| e.at(&inst.name, inst.loc))?;
        inst.shape = shape;
        inst.shape_declared = true;
    }
    Ok(())
}

fn verify_instruction(
    before: &[Computation],
    done: &[Instruction],
    inst: &Instruction,
    replica_count: i64,
    opts: &Options,
) -> Result<Shape> {
    check_attrs(inst)?;
    let operands: Vec<&Shape> = inst
        .operands
        .iter()
        .map(|&o| {
            done.get(o)
                .map(|d| &d.shape)
                .ok_or_else(|| Error::internal("operand defined after its user"))
        })
        .collect::<Result<_>>()?;
    if let Some(d) = inst.shape_declared.then_some(&inst.shape) {
        check_budget(d, opts)?;
        if d.tuple_depth() > crate::hlo::parser::MAX_NESTING {
            return Err(Error::invalid(
                "shape.nesting",
                "tuple shape nests too deeply",
            ));
        }
    }
    let ctx = Ctx {
        comps: before,
        inst,
        operands,
        replica_count,
    };
    let inferred = infer(&ctx)?;
    check_budget(&inferred, opts)?;
    if inst.shape_declared {
        if !inferred.compatible(&inst.shape) {
            return Err(Error::invalid(
                "hlo.shape_mismatch",
                format!(
                    "`{}` produces {} but the instruction declares {}",
                    inst.opcode, inferred, inst.shape
                ),
            ));
        }
        Ok(inst.shape.clone())
    } else {
        Ok(inferred)
    }
}

fn check_budget(s: &Shape, opts: &Options) -> Result<()> {
    match s.checked_byte_size() {
        Some(b) if (b as u64) <= opts.memory_budget => Ok(()),
        Some(b) => Err(Error::invalid(
            "shape.memory_budget",
            format!(
                "{s} needs {b} bytes, over the memory budget of {} bytes",
                opts.memory_budget
            ),
        )),
        None => Err(Error::invalid(
            "shape.too_large",
            format!("the element count of {s} overflows 64 bits"),
        )),
    }
}

/// A result shape with the same dimensions as `like` (and its dynamic flags) and a new type.
pub fn same_dims(like: &ArrayShape, ty: ElementType) -> Shape {
    Shape::Array(ArrayShape {
        ty,
        dims: like.dims.clone(),
        dynamic: like.dynamic.clone(),
        layout: None,
    })
}

/// "not inferred yet" placeholder used by families whose rules have not been written: it fails
/// verification clearly instead of guessing a shape.
#[allow(dead_code)]
pub(crate) fn unverified(ctx: &Ctx) -> Result<Shape> {
    Err(Error::invalid(
        "hlo.unsupported",
        format!("xla-spec cannot verify `{}` yet", ctx.op()),
    ))
}
