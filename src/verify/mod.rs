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
use crate::hlo::attrs::Comp;
use crate::hlo::opcode::{Op, Opcode};
use crate::shape::{ArrayShape, Shape};
use crate::types::ElementType;
use crate::{ensure, invalid};

#[derive(Clone, Debug)]
pub struct Options {
    /// The largest value, in bytes, that any single instruction may produce. The default (4 GiB)
    /// leaves room on a 24 GiB machine for operands, results and temporaries together.
    pub memory_budget: u64,
    /// The number of replicas the run will have, when the caller knows it. A module whose header
    /// names no `replica_count` is verified for this many replicas (XLA takes the count from
    /// its compile options the same way); a header that names a different count is an error.
    pub replicas: Option<usize>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            memory_budget: 4 << 30,
            replicas: None,
        }
    }
}

/// What an op's shape inference can see: the instruction, its operand shapes, the computations
/// defined before the current one (all already verified) and the module's replica count.
pub struct Ctx<'a> {
    pub comps: &'a [Computation],
    pub inst: &'a Instruction,
    pub operands: Vec<&'a Shape>,
    /// The opcodes of the operands (an async `-done` checks that its operand is the `-start`).
    pub operand_ops: Vec<Opcode>,
    pub replica_count: i64,
}

impl<'a> Ctx<'a> {
    pub fn op(&self) -> Opcode {
        self.inst.opcode()
    }

    pub fn operand_opcode(&self, i: usize) -> Option<Opcode> {
        self.operand_ops.get(i).copied()
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

    /// The parameter shapes and result shape of a sub-computation.
    pub fn signature(&self, Comp(id): Comp) -> Result<(Vec<Shape>, Shape)> {
        let c = self
            .comps
            .get(id)
            .ok_or_else(|| Error::internal("sub-computation index out of range"))?;
        Ok((c.parameter_shapes(), c.root().shape.clone()))
    }

    pub fn comp_name(&self, Comp(id): Comp) -> &str {
        self.comps.get(id).map(|c| c.name.as_str()).unwrap_or("?")
    }

    /// Checks that a sub-computation takes `params` (compatible shapes, in order) and returns
    /// `result`; `rule` labels the error.
    pub fn check_signature(
        &self,
        id: Comp,
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

/// Infers an instruction's result shape; dispatches to the op family's rules.
fn infer(ctx: &Ctx) -> Result<Shape> {
    match &ctx.inst.op {
        Op::Movement(op) => movement::infer(ctx, op),
        Op::Unary(op) => elementwise::infer_unary(ctx, *op),
        Op::Binary(op) => elementwise::infer_binary(ctx, *op),
        Op::Elementwise(op) => elementwise::infer(ctx, op),
        Op::Reduction(op) => reduction::infer(ctx, op),
        Op::Indexing(op) => indexing::infer(ctx, op),
        Op::Linalg(op) => linalg::infer(ctx, op),
        Op::Control(op) => control::infer(ctx, op),
        Op::Numerics(op) => numerics::infer(ctx, op),
        Op::Collective(op) => collective::infer(ctx, op),
    }
}

/// Parses and verifies a module: the one call every consumer makes before running HLO text.
pub fn parse_and_verify(src: &str) -> Result<Module> {
    parse_and_verify_with(src, &Options::default())
}

/// `parse_and_verify` for a run of a known shape (its replica count, a memory budget).
pub fn parse_and_verify_with(src: &str, opts: &Options) -> Result<Module> {
    let mut m = crate::hlo::parse_module(src)?;
    verify_module(&mut m, opts)?;
    Ok(m)
}

/// The header's `entry_computation_layout` must describe the ENTRY: as many parameters, each of
/// the parameter's type and dimensions, and the root's shape (layouts may differ: they are the
/// caller's view of the buffers).
fn check_entry_layout(m: &Module) -> Result<()> {
    let Some((params, result)) = &m.entry_layout else {
        return Ok(());
    };
    let entry = m.entry();
    let have = entry.parameter_shapes();
    let rule = "module.entry_computation_layout";
    if have.len() != params.len() {
        invalid!(
            rule,
            "entry_computation_layout lists {} parameter(s), the ENTRY `{}` has {}",
            params.len(),
            entry.name,
            have.len()
        );
    }
    for (i, (p, h)) in params.iter().zip(&have).enumerate() {
        ensure!(
            p.compatible(h),
            rule,
            "entry_computation_layout gives parameter {i} the shape {p}, the ENTRY's is {h}"
        );
    }
    let root = &entry.instructions[entry.root].shape;
    ensure!(
        result.compatible(root),
        rule,
        "entry_computation_layout gives the result the shape {result}, the ENTRY's root is {root}"
    );
    Ok(())
}

/// The replica count a module is verified for: its header's, else the run's, else 1.
fn replica_count_for(m: &Module, opts: &Options) -> Result<i64> {
    match (m.replica_count, opts.replicas) {
        (Some(h), Some(r)) if h != r as i64 => Err(Error::invalid(
            "run.replicas",
            format!("the module declares replica_count={h} but the run has {r} replicas"),
        )),
        (Some(h), _) => Ok(h),
        (None, Some(r)) if (1..=1024).contains(&r) => Ok(r as i64),
        (None, Some(r)) => Err(Error::invalid(
            "run.replicas",
            format!("a run has 1 to 1024 replicas, not {r}"),
        )),
        (None, None) => Ok(1),
    }
}

/// Verifies a parsed module in place: fills in omitted result shapes and rejects anything that
/// breaks a rule.
pub fn verify_module(m: &mut Module, opts: &Options) -> Result<()> {
    check_call_depth(m)?;
    let replica_count = replica_count_for(m, opts)?;
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
    check_entry_layout(m)?;
    m.verified_replicas = Some(replica_count as usize);
    Ok(())
}

/// The longest chain of nested calls the evaluator may follow (the book's `module.call_depth`).
pub const MAX_CALL_DEPTH: usize = 512;

/// Refuses modules whose calls nest deeper than `MAX_CALL_DEPTH`. A computation only calls
/// computations defined before it, so one pass in definition order finds every depth.
fn check_call_depth(m: &Module) -> Result<()> {
    let mut depth = vec![1usize; m.computations.len()];
    for (ci, c) in m.computations.iter().enumerate() {
        for inst in &c.instructions {
            for callee in inst.op.called_computations() {
                let d = depth.get(callee).copied().unwrap_or(0).saturating_add(1);
                if d > MAX_CALL_DEPTH {
                    return Err(Error::invalid(
                        "module.call_depth",
                        format!("calls nest more than {MAX_CALL_DEPTH} computations deep here"),
                    )
                    .at(&inst.name, inst.loc));
                }
                depth[ci] = depth[ci].max(d);
            }
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
        .filter_map(|(i, inst)| inst.parameter_number().map(|n| (n, i)))
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
        if d.tuple_depth() > crate::syntax::MAX_NESTING {
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
        operand_ops: inst
            .operands
            .iter()
            .filter_map(|&o| done.get(o).map(|d| d.opcode()))
            .collect(),
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
                    inst.opcode(),
                    inferred,
                    inst.shape
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

#[cfg(test)]
mod tests {
    use super::parse_and_verify;

    /// Attribute values at the edge of `i64`: each module must be refused with a rule, never
    /// accepted with a wrapped size and never a panic (debug builds check overflow, release
    /// builds wrap, so the test holds in both only if the arithmetic is checked).
    #[test]
    fn extreme_attribute_values_are_refused_not_wrapped() {
        const MAX: &str = "9223372036854775807";
        const HALF: &str = "4611686018427387904";
        let red = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}\n";
        let cases = [
            format!(
                "ENTRY e {{\n  p = f32[2] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[2] pad(p, z), padding=0_{MAX}\n}}\n"
            ),
            format!(
                "ENTRY e {{\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[2] pad(p, z), padding=0_0_{HALF}\n}}\n"
            ),
            format!(
                "ENTRY e {{\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[2] pad(p, z), padding={MAX}_{MAX}\n}}\n"
            ),
            format!(
                "{red}ENTRY e {{\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[2] reduce-window(p, z), window={{size=1 pad={MAX}_{MAX}}}, to_apply=add\n}}\n"
            ),
            format!(
                "{red}ENTRY e {{\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[2] reduce-window(p, z), window={{size=1 lhs_dilate={HALF}}}, to_apply=add\n}}\n"
            ),
            format!(
                "{red}ENTRY e {{\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[2] reduce-window(p, z), window={{size={MAX} rhs_dilate={HALF}}}, to_apply=add\n}}\n"
            ),
            format!(
                "{red}ENTRY e {{\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[2] reduce-window(p, z), window={{size=1 stride={MAX} pad=0_{MAX}}}, to_apply=add\n}}\n"
            ),
            format!(
                "ENTRY e {{\n  p = f32[1,4,1] parameter(0)\n  k = f32[2,1,1] parameter(1)\n  ROOT r = f32[1,2,1] convolution(p, k), window={{size=2 rhs_dilate={HALF}}}, dim_labels=b0f_0io->b0f\n}}\n"
            ),
            format!(
                "ENTRY e {{\n  p = f32[1,4,1] parameter(0)\n  k = f32[2,1,1] parameter(1)\n  ROOT r = f32[1,2,1] convolution(p, k), window={{size=2 pad={MAX}_1}}, dim_labels=b0f_0io->b0f\n}}\n"
            ),
            format!(
                "ENTRY e {{\n  p = f32[4] parameter(0)\n  ROOT r = f32[1] slice(p), slice={{[0:{MAX}:{MAX}]}}\n}}\n"
            ),
            format!(
                "ENTRY e {{\n  p = f32[{HALF},4] parameter(0)\n  ROOT r = f32[{HALF},4] negate(p)\n}}\n"
            ),
            format!("ENTRY e {{\n  ROOT r = f32[{HALF},{HALF}] iota(), iota_dimension=0\n}}\n"),
            format!(
                "ENTRY e {{\n  p = f32[2] parameter(0)\n  ROOT r = f32[2,{MAX},{MAX}] broadcast(p), dimensions={{0}}\n}}\n"
            ),
        ];
        for body in cases {
            let text = format!("HloModule m\n{body}");
            let got = std::panic::catch_unwind(|| parse_and_verify(&text));
            match got {
                Err(_) => panic!("panicked on\n{text}"),
                Ok(Ok(_)) => panic!("accepted\n{text}"),
                Ok(Err(e)) => {
                    assert!(e.is_invalid_program(), "{e}\n{text}");
                    assert!(e.rule.is_some(), "{e}\n{text}");
                }
            }
        }
    }

    #[test]
    fn the_entry_layout_must_describe_the_entry() {
        let text = "HloModule m, entry_computation_layout={(f32[8,128]{1,0:T(8,128)S(1)})->f32[8,128]{0,1}}\nENTRY e {\n p = f32[8,128]{1,0:T(8,128)S(1)} parameter(0)\n ROOT c = f32[8,128]{0,1} copy(p)\n}\n";
        assert!(parse_and_verify(text).is_ok());
        for wrong in [
            text.replace("->f32[8,128]{0,1}}", "->f32[128,8]{0,1}}"),
            text.replace("{(f32[8,128]", "{(s32[8,128]"),
            text.replace("{1,0:T(8,128)S(1)})", "{1,0}, f32[2]{0})"),
        ] {
            let e = parse_and_verify(&wrong).unwrap_err();
            assert_eq!(
                e.rule.as_deref(),
                Some("module.entry_computation_layout"),
                "{e}"
            );
        }
    }
}
