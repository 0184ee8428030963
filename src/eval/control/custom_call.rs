//! `custom-call`: the seed's `void f(void* out, void** in)` ABI in Rust, the registry of
//! targets, and the targets xla-spec ships.

use super::super::Evaluator;
use crate::error::{Error, Result};
use crate::hlo::ast::Instruction;
use crate::hlo::attrs::CustomCallAttrs;
use crate::literal::{Array, ArrayData, Literal};
use crate::shape::{ArrayShape, Shape};
use std::collections::HashMap;
use std::sync::Arc;

/// One array as a custom-call target sees it: its shape (with the layout it is laid out in) and
/// its elements as a linear buffer in that layout, padding included.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomCallBuffer {
    pub shape: ArrayShape,
    pub data: ArrayData,
}

impl CustomCallBuffer {
    /// Position in `data` of the element at a multi-dimensional index, per the buffer's layout.
    pub fn offset(&self, index: &[i64]) -> usize {
        self.shape
            .layout_or_default()
            .linear_index(&self.shape.dims, index) as usize
    }
}

/// A custom-call target: the seed's `void f(void* out, void** in)` ABI in Rust. It receives one
/// output buffer per array of the declared result shape (one for an array result, one per leaf
/// of a tuple) and one input buffer per array operand (tuple operands are flattened, tokens
/// skipped), each laid out in its declared layout, and fills the output buffers in place.
pub type CustomCallFn =
    Arc<dyn Fn(&mut [CustomCallBuffer], &[CustomCallBuffer]) -> Result<()> + Send + Sync>;

/// A target that also reads the call's `backend_config` (the text between the braces, or the
/// string, as written; empty when the call has none): XLA's own targets carry their parameters
/// there.
pub type ConfiguredCallFn =
    Arc<dyn Fn(&mut [CustomCallBuffer], &[CustomCallBuffer], &str) -> Result<()> + Send + Sync>;

#[derive(Clone)]
enum Entry {
    Plain(CustomCallFn),
    Configured(ConfiguredCallFn),
}

/// Named Rust functions `custom-call` can invoke.
#[derive(Default, Clone)]
pub struct CustomCallRegistry {
    targets: HashMap<String, Entry>,
}

impl CustomCallRegistry {
    /// The registry with the targets xla-spec ships (the book's examples use them): `myfunc`,
    /// the seed's example, and `xla_spec.raw_buffer`, which returns its operand's linear buffer.
    pub fn with_builtins() -> CustomCallRegistry {
        let mut r = CustomCallRegistry::default();
        r.register("myfunc", Arc::new(myfunc));
        r.register("xla_spec.raw_buffer", Arc::new(raw_buffer));
        // Targets XLA's own passes write into optimised modules.
        r.register("TopK", Arc::new(top_k));
        for marker in ["Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"] {
            r.register(
                marker,
                Arc::new(move |o: &mut [CustomCallBuffer], i: &[CustomCallBuffer]| {
                    same_values(marker, o, i)
                }),
            );
        }
        // XLA:CPU's oneDNN rewrites, parameterised by their backend_config.
        r.register_configured("__onednn$matmul", Arc::new(super::onednn::matmul));
        r.register_configured("__onednn$layernorm", Arc::new(super::onednn::layernorm));
        r.register_configured("__onednn$softmax", Arc::new(super::onednn::softmax));
        r.register_configured("__onednn$convolution", Arc::new(super::onednn::convolution));
        r
    }
    pub fn register(&mut self, name: &str, f: CustomCallFn) {
        self.targets.insert(name.to_string(), Entry::Plain(f));
    }
    pub fn register_configured(&mut self, name: &str, f: ConfiguredCallFn) {
        self.targets.insert(name.to_string(), Entry::Configured(f));
    }
    pub fn contains(&self, name: &str) -> bool {
        self.targets.contains_key(name)
    }
    /// Runs target `name`; `None` when no such target is registered.
    pub fn call(
        &self,
        name: &str,
        out: &mut [CustomCallBuffer],
        ins: &[CustomCallBuffer],
        backend_config: &str,
    ) -> Option<Result<()>> {
        Some(match self.targets.get(name)? {
            Entry::Plain(f) => f(out, ins),
            Entry::Configured(f) => f(out, ins, backend_config),
        })
    }
}

pub(super) fn contract(target: &str, msg: impl std::fmt::Display) -> Error {
    Error::runtime(format!("custom-call target `{target}`: {msg}"))
        .with_rule("custom-call.target_contract")
}

/// The seed's example: `myfunc(x: f32[2], y: f32[2,3]) -> f32[3,3]` with
/// `z[i][j] = x[(i+1) % 2] + y[(i+1) % 2][j]` (so `z[0][0] = x[1] + y[1][0]`, as in the seed).
/// It reads `y` through its layout, so a column-major `y` gives the same answer.
fn myfunc(out: &mut [CustomCallBuffer], ins: &[CustomCallBuffer]) -> Result<()> {
    let (
        [z],
        [
            x @ CustomCallBuffer {
                data: ArrayData::F32(xd),
                ..
            },
            y @ CustomCallBuffer {
                data: ArrayData::F32(yd),
                ..
            },
        ],
    ) = (out, ins)
    else {
        return Err(contract(
            "myfunc",
            "takes f32[2] and f32[2,3] and returns one f32[3,3]",
        ));
    };
    if x.shape.dims != [2] || y.shape.dims != [2, 3] || z.shape.dims != [3, 3] {
        return Err(contract(
            "myfunc",
            "takes f32[2] and f32[2,3] and returns f32[3,3]",
        ));
    }
    let mut vals = vec![];
    for i in 0..3i64 {
        for j in 0..3i64 {
            let r = (i + 1) % 2;
            let (a, b) = (xd.get(x.offset(&[r])), yd.get(y.offset(&[r, j])));
            let (Some(a), Some(b)) = (a, b) else {
                return Err(contract(
                    "myfunc",
                    "an input buffer is shorter than its layout",
                ));
            };
            vals.push(([i, j], a + b));
        }
    }
    let offsets: Vec<usize> = vals.iter().map(|(ix, _)| z.offset(ix)).collect();
    let ArrayData::F32(zd) = &mut z.data else {
        return Err(contract("myfunc", "returns f32[3,3]"));
    };
    for (k, (_, v)) in offsets.into_iter().zip(vals) {
        if let Some(slot) = zd.get_mut(k) {
            *slot = v;
        }
    }
    Ok(())
}

/// `xla_spec.raw_buffer(x) -> T[n]`: the operand's linear buffer, element by element, as a
/// rank-1 array (n is the buffer length, padding included). It shows what the ABI hands over.
fn raw_buffer(out: &mut [CustomCallBuffer], ins: &[CustomCallBuffer]) -> Result<()> {
    match (out, ins) {
        ([o], [i]) if o.data.ty() == i.data.ty() && o.data.len() == i.data.len() => {
            o.data = i.data.clone();
            Ok(())
        }
        _ => Err(contract(
            "xla_spec.raw_buffer",
            "takes one array and returns a rank-1 array of the same type with one element per buffer slot",
        )),
    }
}

/// Every index of `dims`, in row-major order.
pub(super) fn row_major(dims: &[i64]) -> impl Iterator<Item = Vec<i64>> + '_ {
    let n: i64 = dims.iter().product();
    (0..n.max(0)).map(move |mut k| {
        let mut idx = vec![0; dims.len()];
        for d in (0..dims.len()).rev() {
            idx[d] = k % dims[d];
            k /= dims[d];
        }
        idx
    })
}

/// The sharding markers of SPMD partitioning (`Sharding`, `SPMDFullToShardShape`,
/// `SPMDShardToFullShape`): with one partition, a shard is the whole array, so each returns its
/// operand (in the result's layout).
fn same_values(target: &str, out: &mut [CustomCallBuffer], ins: &[CustomCallBuffer]) -> Result<()> {
    match (out, ins) {
        ([o], [i]) if o.shape.dims == i.shape.dims && o.data.ty() == i.data.ty() => {
            for idx in row_major(&i.shape.dims) {
                let v = i.data.get(i.offset(&idx));
                o.data.set(o.offset(&idx), v)?;
            }
            Ok(())
        }
        _ => Err(contract(
            target,
            "takes one array and returns an array of the same type and dimensions (one partition)",
        )),
    }
}

/// XLA's `TopK` target (what `TopkRewriter` writes for `lax.top_k`): operand `[..., n]`, results
/// `([..., k] values, s32[..., k] indices)` with `k` from the result shape: the `k` largest of
/// each row in descending order, by total order (so NaN above +inf), ties to the lower index.
fn top_k(out: &mut [CustomCallBuffer], ins: &[CustomCallBuffer]) -> Result<()> {
    let bad = || {
        contract(
            "TopK",
            "takes one array [..., n] and returns ([..., k] of its type, s32[..., k]) with k <= n",
        )
    };
    let ([values, indices], [x]) = (out, ins) else {
        return Err(bad());
    };
    let (xd, vd) = (&x.shape.dims, values.shape.dims.clone());
    let rank = xd.len();
    if rank == 0
        || vd.len() != rank
        || indices.shape.dims != vd
        || xd[..rank - 1] != vd[..rank - 1]
        || vd[rank - 1] > xd[rank - 1]
        || values.data.ty() != x.data.ty()
        || indices.data.ty() != crate::types::ElementType::S32
    {
        return Err(bad());
    }
    let (n, k) = (xd[rank - 1], vd[rank - 1]);
    for row in row_major(&xd[..rank - 1]) {
        let at = |j: i64| {
            let mut idx = row.clone();
            idx.push(j);
            idx
        };
        let mut order: Vec<i64> = (0..n).collect();
        let keys: Vec<crate::literal::Scalar> =
            (0..n).map(|j| x.data.get(x.offset(&at(j)))).collect();
        order.sort_by(|&a, &b| {
            crate::eval::reduction::fast::order(&keys[b as usize], &keys[a as usize], true)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        for (j, &src) in order.iter().take(k as usize).enumerate() {
            let dst = at(j as i64);
            values.data.set(values.offset(&dst), keys[src as usize])?;
            indices.data.set(
                indices.offset(&dst),
                crate::literal::Scalar::S32(src as i32),
            )?;
        }
    }
    Ok(())
}

/// Array leaves of a shape, in order (tokens have no buffer).
fn array_leaves(s: &Shape, out: &mut Vec<ArrayShape>) {
    match s {
        Shape::Array(a) => out.push(a.clone()),
        Shape::Tuple(t) => t.iter().for_each(|e| array_leaves(e, out)),
        Shape::Token => {}
    }
}

fn literal_leaves<'l>(l: &'l Literal, out: &mut Vec<&'l Array>) {
    match l {
        Literal::Array(a) => out.push(a),
        Literal::Tuple(t) => t.iter().for_each(|e| literal_leaves(e, out)),
        Literal::Token => {}
    }
}

/// Rebuilds a value of `shape` from its array leaves, in order.
fn rebuild(shape: &Shape, leaves: &mut impl Iterator<Item = Array>) -> Result<Literal> {
    Ok(match shape {
        Shape::Array(_) => Literal::Array(
            leaves
                .next()
                .ok_or_else(|| Error::internal("custom-call result leaves"))?,
        ),
        Shape::Tuple(t) => Literal::Tuple(
            t.iter()
                .map(|e| rebuild(e, leaves))
                .collect::<Result<_>>()?,
        ),
        Shape::Token => Literal::Token,
    })
}

pub(super) fn custom_call(
    ev: &Evaluator,
    inst: &Instruction,
    attrs: &CustomCallAttrs,
    ops: &[&Literal],
) -> Result<Literal> {
    let target = attrs.target.as_str();
    let registry = &ev.ctx.options.custom_calls;
    let unknown = || {
        Error::runtime(format!(
            "custom-call target `{target}` is not registered: the book's page `reference/custom-call-targets.md` lists the targets xla-spec knows (a library user registers more in RunOptions::custom_calls)"
        ))
        .with_rule("custom-call.unknown_target")
    };
    // Checked before the operands are laid out into buffers.
    if !registry.contains(target) {
        return Err(unknown());
    }
    // Operand layouts: operand_layout_constraints when given, else each value's own layout.
    let constraints = &attrs.operand_layouts;
    let mut ins = vec![];
    for (i, op) in ops.iter().enumerate() {
        let mut arrays = vec![];
        literal_leaves(op, &mut arrays);
        let mut wanted = vec![];
        if let Some(c) = constraints.as_ref().and_then(|c| c.get(i)) {
            array_leaves(c, &mut wanted);
        }
        for (k, a) in arrays.into_iter().enumerate() {
            let layout = wanted
                .get(k)
                .and_then(|s| s.layout.clone())
                .unwrap_or_else(|| a.shape.layout_or_default());
            let data = a.to_buffer(Some(&layout))?;
            ins.push(CustomCallBuffer {
                shape: a.shape.clone().with_layout(layout),
                data,
            });
        }
    }
    let mut leaves = vec![];
    array_leaves(&inst.shape, &mut leaves);
    let mut outs: Vec<CustomCallBuffer> = leaves
        .iter()
        .cloned()
        .map(|s| {
            let layout = s.layout_or_default();
            let n = layout.buffer_len(&s.dims) as usize;
            CustomCallBuffer {
                data: ArrayData::zeros(s.ty, n),
                shape: s.with_layout(layout),
            }
        })
        .collect();
    let config = attrs
        .backend_config
        .as_ref()
        .map(|c| c.0.as_str())
        .unwrap_or("");
    registry
        .call(target, &mut outs, &ins, config)
        .ok_or_else(unknown)??;
    let arrays = outs
        .into_iter()
        .zip(&leaves)
        .map(|(b, declared)| {
            let mut a = Array::from_buffer(b.shape, &b.data).map_err(|e| {
                contract(
                    target,
                    format!("it left an output buffer malformed: {}", e.message),
                )
            })?;
            // The value keeps the declared shape: with no declared layout it has none either.
            a.shape.layout = declared.layout.clone();
            Ok(a)
        })
        .collect::<Result<Vec<_>>>()?;
    rebuild(&inst.shape, &mut arrays.into_iter())
}
