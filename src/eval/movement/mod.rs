//! Data movement: iota, tuple, get-tuple-element, broadcast, reshape, dynamic-reshape, transpose,
//! reverse, slice, dynamic-slice, dynamic-update-slice, concatenate, pad, copy, bitcast,
//! get-dimension-size and set-dimension-size, and constants (parameters are bound by the
//! evaluator core). Reference: the Operation Semantics chapter; XLA's `HloEvaluator` handlers where it is
//! silent (iota wraps integers, dynamic-slice start indices clamp).
//!
//! Every op except iota and bitcast moves elements with `kernels::copy_box`, typed once per element
//! type by `map_data!`/`with_data!`, so no op dispatches per element.
//!
//! Dynamic shapes: a literal's dimensions are its actual sizes. Each op computes its result's
//! actual sizes from its operands' actual sizes, then `fit` checks them against the declared
//! result shape (a static dimension must match exactly, a dynamic one must stay within its
//! bound). Elements past a dynamic size do not exist in this model, so the ops downstream
//! (reductions included) see only the valid ones.

pub mod kernels;

use super::{Evaluator, array};
use crate::error::{Error, Result};
use crate::hlo::ast::Instruction;
use crate::hlo::attrs::{PadDim, SliceDim};
use crate::hlo::opcode::MovementOp;
use crate::literal::{Array, ArrayData, C64, C128, Literal, NativeType};
use crate::shape::window::padded_size;
use crate::shape::{ArrayShape, Shape};
use crate::{map_data, with_data};
use half::{bf16, f16};
use kernels::{copy_box, gather, strides};

pub fn eval(
    ev: &Evaluator,
    inst: &Instruction,
    op: &MovementOp,
    ops: &[&Literal],
) -> Result<Literal> {
    let a = match op {
        MovementOp::Tuple => return Ok(Literal::Tuple(ops.iter().map(|l| (*l).clone()).collect())),
        MovementOp::GetTupleElement(g) => {
            // The verifier proved the operand is a tuple with element `g.index`.
            return ops
                .first()
                .and_then(|t| t.as_tuple())
                .and_then(|t| t.get(g.index as usize))
                .cloned()
                .ok_or_else(|| Error::internal("get-tuple-element index out of range"));
        }
        MovementOp::Copy => {
            let l = ops
                .first()
                .ok_or_else(|| Error::internal("copy without an operand"))?;
            return Ok(relayout((*l).clone(), &inst.shape));
        }
        MovementOp::Parameter(_) => {
            return Err(Error::internal(
                "parameters are bound by the evaluator core",
            ));
        }
        MovementOp::Constant(k) => return Ok(relayout(k.literal.clone(), &inst.shape)),
        MovementOp::Iota(i) => iota(inst, i.dimension as usize)?,
        MovementOp::Broadcast(b) => broadcast(ev, inst, &b.dimensions, array(ops, 0)?)?,
        MovementOp::Reshape(_) => reshape(ev, inst, array(ops, 0)?)?,
        MovementOp::DynamicReshape => dynamic_reshape(inst, ops)?,
        MovementOp::Transpose(d) => transpose(inst, &d.dimensions, array(ops, 0)?)?,
        MovementOp::Reverse(d) => reverse(inst, &d.dimensions, array(ops, 0)?)?,
        MovementOp::Slice(sl) => slice(inst, &sl.slice, array(ops, 0)?)?,
        MovementOp::DynamicSlice(d) => dynamic_slice(inst, &d.sizes, ops)?,
        MovementOp::DynamicUpdateSlice => dynamic_update_slice(inst, ops)?,
        MovementOp::Concatenate(d) => concatenate(inst, d.dimensions[0] as usize, ops)?,
        MovementOp::Pad(p) => pad(inst, &p.padding, ops)?,
        MovementOp::Bitcast => bitcast(ev, inst, array(ops, 0)?)?,
        MovementOp::GetDimensionSize(d) => {
            let a = array(ops, 0)?;
            let n = a.dims()[d.dimensions[0] as usize];
            return Ok(Literal::scalar(n as i32));
        }
        MovementOp::SetDimensionSize(d) => set_dimension_size(inst, d.dimensions[0] as usize, ops)?,
    };
    Ok(Literal::Array(a))
}

/// Checks a result's actual sizes against the declared shape and builds the result shape.
fn fit(inst: &Instruction, dims: &[i64]) -> Result<ArrayShape> {
    let s = Evaluator::result_array_shape(inst)?;
    if s.dims.len() != dims.len() {
        return Err(Error::internal(format!(
            "`{}` computed rank {} for {}",
            inst.name,
            dims.len(),
            s
        )));
    }
    for (k, (&got, &want)) in dims.iter().zip(&s.dims).enumerate() {
        let dynamic = s.dynamic.get(k).copied().unwrap_or(false);
        let ok = if dynamic {
            (0..=want).contains(&got)
        } else {
            got == want
        };
        if !ok {
            return Err(Error::runtime(format!(
                "dimension {k} of the result has actual size {got}, which does not fit the declared {s}"
            ))
            .with_rule("movement.dynamic_size_fits"));
        }
    }
    Evaluator::result_shape_with_dims(inst, dims)
}

fn udims(dims: &[i64]) -> Vec<usize> {
    dims.iter().map(|&d| d.max(0) as usize).collect()
}

fn istrides(dims: &[i64]) -> Vec<isize> {
    strides(&udims(dims)).iter().map(|&s| s as isize).collect()
}

/// A gather of `a` into a fresh array of `out` sizes (see `kernels::gather`).
fn gather_array(a: &Array, off: isize, ss: &[isize], out: ArrayShape) -> Array {
    let dims = udims(&out.dims);
    // The initial fill is overwritten; zero lets the allocator hand out pre-zeroed pages.
    let data = map_data!(&a.data, v => gather(v, off, ss, &dims, NativeType::zero()));
    Array { shape: out, data }
}

/// The shape an operand instruction declares (the evaluator keeps only values, but bitcast and
/// broadcast need the operand's layout and dynamic flags).
fn operand_shape<'m>(ev: &Evaluator<'m>, inst: &Instruction, i: usize) -> Option<&'m Shape> {
    let p = inst as *const Instruction;
    let comp = ev
        .module
        .computations
        .iter()
        .find(|c| c.instructions.as_ptr_range().contains(&p))?;
    comp.instructions
        .get(*inst.operands.get(i)?)
        .map(|o| &o.shape)
}

/// Gives array values the layouts of a shape (values are row-major whatever the layout; this
/// only records it).
pub(crate) fn relayout(l: Literal, shape: &Shape) -> Literal {
    match (l, shape) {
        (Literal::Array(mut a), Shape::Array(s)) => {
            a.shape.layout = s.layout.clone();
            Literal::Array(a)
        }
        (Literal::Tuple(t), Shape::Tuple(s)) => {
            Literal::Tuple(t.into_iter().zip(s).map(|(l, s)| relayout(l, s)).collect())
        }
        (l, _) => l,
    }
}

/// Iota: element at index i holds i[d] converted to the element type. Integers wrap as a C++
/// `static_cast` from int64 does (XLA's evaluator); F16 and BF16 convert through F32 as XLA does.
fn iota(inst: &Instruction, dim: usize) -> Result<Array> {
    let decl = Evaluator::result_array_shape(inst)?;
    let shape = fit(inst, &decl.dims)?;
    let dims = udims(&shape.dims);
    let size = dims.get(dim).copied().unwrap_or(1);
    let inner: usize = dims.iter().skip(dim + 1).product();
    let outer: usize = dims.iter().take(dim).product();
    fn fill<T: Copy>(outer: usize, size: usize, inner: usize, f: impl Fn(i64) -> T) -> Vec<T> {
        // One line holds size * inner elements; with another dimension of size zero it would be
        // built and never used, and a size near i64::MAX would never finish.
        if outer == 0 || inner == 0 || size == 0 {
            return vec![];
        }
        let line: Vec<T> = (0..size)
            .flat_map(|v| std::iter::repeat_n(f(v as i64), inner))
            .collect();
        let mut out = Vec::with_capacity(outer * line.len());
        for _ in 0..outer {
            out.extend_from_slice(&line);
        }
        out
    }
    let (o, s, i) = (outer, size, inner);
    let data = match shape.ty {
        crate::types::ElementType::S8 => ArrayData::S8(fill(o, s, i, |v| v as i8).into()),
        crate::types::ElementType::S16 => ArrayData::S16(fill(o, s, i, |v| v as i16).into()),
        crate::types::ElementType::S32 => ArrayData::S32(fill(o, s, i, |v| v as i32).into()),
        crate::types::ElementType::S64 => ArrayData::S64(fill(o, s, i, |v| v).into()),
        crate::types::ElementType::U8 => ArrayData::U8(fill(o, s, i, |v| v as u8).into()),
        crate::types::ElementType::U16 => ArrayData::U16(fill(o, s, i, |v| v as u16).into()),
        crate::types::ElementType::U32 => ArrayData::U32(fill(o, s, i, |v| v as u32).into()),
        crate::types::ElementType::U64 => ArrayData::U64(fill(o, s, i, |v| v as u64).into()),
        crate::types::ElementType::F16 => {
            ArrayData::F16(fill(o, s, i, |v| f16::from_f32(v as f32)).into())
        }
        crate::types::ElementType::BF16 => {
            ArrayData::BF16(fill(o, s, i, |v| bf16::from_f32(v as f32)).into())
        }
        crate::types::ElementType::F32 => ArrayData::F32(fill(o, s, i, |v| v as f32).into()),
        crate::types::ElementType::F64 => ArrayData::F64(fill(o, s, i, |v| v as f64).into()),
        crate::types::ElementType::C64 => {
            ArrayData::C64(fill(o, s, i, |v| C64::new(v as f32, 0.0)).into())
        }
        crate::types::ElementType::C128 => {
            ArrayData::C128(fill(o, s, i, |v| C128::new(v as f64, 0.0)).into())
        }
        t => return Err(Error::internal(format!("iota of {t} passed the verifier"))),
    };
    Array::from_data(shape, data)
}

/// Broadcast (BroadcastInDim): output index i reads operand index (i[dims[0]], i[dims[1]], ...),
/// with 0 in place of the index for an operand dimension of size 1.
fn broadcast(ev: &Evaluator, inst: &Instruction, map: &[i64], a: &Array) -> Result<Array> {
    let decl = Evaluator::result_array_shape(inst)?;
    let op_dynamic = operand_shape(ev, inst, 0)
        .and_then(|s| s.as_array())
        .map(|s| s.dynamic.clone())
        .unwrap_or_default();
    let in_st = istrides(a.dims());
    let mut dims = decl.dims.clone();
    let mut ss = vec![0isize; dims.len()];
    for (i, &od) in map.iter().enumerate() {
        let od = od as usize;
        let n = a.dims()[i];
        // A dynamic operand dimension carries its actual size to the output (unless it is a
        // size-1 operand broadcast into a static dimension, which repeats as usual).
        if op_dynamic.get(i).copied().unwrap_or(false)
            && (n != 1 || decl.dynamic.get(od).copied().unwrap_or(false))
        {
            dims[od] = n;
        }
        if n != 1 {
            ss[od] = in_st[i];
        }
    }
    let shape = fit(inst, &dims)?;
    Ok(gather_array(a, 0, &ss, shape))
}

/// Reshape keeps the row-major element sequence. With dynamic dimensions, the result's dynamic
/// sizes are solved from the operand's actual element count (see `reshape_dims`).
fn reshape(ev: &Evaluator, inst: &Instruction, a: &Array) -> Result<Array> {
    let decl = Evaluator::result_array_shape(inst)?;
    let dims = if decl.is_dynamic() {
        let op = operand_shape(ev, inst, 0).and_then(|s| s.as_array());
        reshape_dims(a, op, decl)?
    } else {
        decl.dims.clone()
    };
    if dims.iter().product::<i64>() != a.len() as i64 {
        return Err(Error::runtime(format!(
            "the operand holds {} element(s) (its actual shape is {}), which cannot fill {}",
            a.len(),
            a.shape,
            decl
        ))
        .with_rule("reshape.dynamic_sizes"));
    }
    let shape = fit(inst, &dims)?;
    Ok(Array {
        shape,
        data: a.data.clone(),
    })
}

/// Actual result sizes of a reshape whose result has dynamic dimensions. With one dynamic result
/// dimension its size is the element count divided by the static sizes. With several, the bounds
/// of operand and result are split into groups of equal products (common factors) and each
/// group is solved alone, so `f32[<=2,<=3]` reshaped to `f32[<=2,<=3,1]` keeps both sizes.
fn reshape_dims(a: &Array, op: Option<&ArrayShape>, decl: &ArrayShape) -> Result<Vec<i64>> {
    let fail = || {
        Error::runtime(format!(
            "cannot tell the dynamic sizes of {decl} from an operand of actual shape {}",
            a.shape
        ))
        .with_rule("reshape.dynamic_sizes")
    };
    let solve = |count: i64, bounds: &[i64], dynamic: &[bool]| -> Option<Vec<i64>> {
        let fixed: i64 = bounds
            .iter()
            .zip(dynamic)
            .filter(|(_, d)| !**d)
            .map(|(b, _)| *b)
            .product();
        let dyn_dims: Vec<usize> = (0..bounds.len()).filter(|&k| dynamic[k]).collect();
        let mut out = bounds.to_vec();
        match dyn_dims[..] {
            [] => (count == fixed).then_some(out),
            [k] if fixed > 0 && count % fixed == 0 && count / fixed <= bounds[k] => {
                out[k] = count / fixed;
                Some(out)
            }
            [k] if fixed == 0 && count == 0 => {
                out[k] = bounds[k];
                Some(out)
            }
            _ => (count == bounds.iter().product::<i64>()).then_some(out),
        }
    };
    if let Some(d) = solve(a.len() as i64, &decl.dims, &decl.dynamic) {
        return Ok(d);
    }
    let op = op.ok_or_else(fail)?;
    if op.dims.contains(&0) || decl.dims.contains(&0) {
        return Err(fail());
    }
    let mut out = Vec::with_capacity(decl.rank());
    let (mut i, mut j) = (0usize, 0usize);
    while i < op.rank() || j < decl.rank() {
        let (i0, j0) = (i, j);
        let (mut pi, mut pj) = (1i64, 1i64);
        loop {
            if pi <= pj && i < op.rank() {
                pi *= op.dims[i];
                i += 1;
            } else if j < decl.rank() {
                pj *= decl.dims[j];
                j += 1;
            } else {
                break;
            }
            if pi == pj && (i == op.rank() || op.dims[i] != 1 || j == decl.rank()) {
                break;
            }
        }
        let count: i64 = a.dims()[i0..i].iter().product();
        out.extend(solve(count, &decl.dims[j0..j], &decl.dynamic[j0..j]).ok_or_else(fail)?);
    }
    Ok(out)
}

fn dynamic_reshape(inst: &Instruction, ops: &[&Literal]) -> Result<Array> {
    let a = array(ops, 0)?;
    let mut dims = Vec::with_capacity(ops.len().saturating_sub(1));
    for k in 1..ops.len() {
        let v = array(ops, k)?
            .typed::<i32>()
            .and_then(|v| v.first().copied())
            .ok_or_else(|| Error::internal("dynamic-reshape size is not an s32 scalar"))?;
        dims.push(v as i64);
    }
    if dims.iter().any(|&d| d < 0) || dims.iter().product::<i64>() != a.len() as i64 {
        return Err(Error::runtime(format!(
            "sizes {:?} do not hold the operand's {} element(s)",
            dims,
            a.len()
        ))
        .with_rule("dynamic-reshape.sizes_match"));
    }
    let shape = fit(inst, &dims)?;
    Ok(Array {
        shape,
        data: a.data.clone(),
    })
}

fn transpose(inst: &Instruction, perm: &[i64], a: &Array) -> Result<Array> {
    let in_st = istrides(a.dims());
    let pick = |p: &i64| p.unsigned_abs() as usize;
    let dims: Vec<i64> = perm.iter().map(|p| a.dims()[pick(p)]).collect();
    let ss: Vec<isize> = perm.iter().map(|p| in_st[pick(p)]).collect();
    let shape = fit(inst, &dims)?;
    Ok(gather_array(a, 0, &ss, shape))
}

fn reverse(inst: &Instruction, rev: &[i64], a: &Array) -> Result<Array> {
    let mut ss = istrides(a.dims());
    let mut off = 0isize;
    for &d in rev {
        let d = d as usize;
        let n = a.dims()[d];
        if n > 0 {
            off += (n as isize - 1) * ss[d];
        }
        ss[d] = -ss[d];
    }
    let shape = fit(inst, a.dims())?;
    Ok(gather_array(a, off, &ss, shape))
}

/// Slice: result index i reads operand index start + i·stride. On a dynamic dimension the limit
/// is cut to the actual size, so the slice holds the strided elements that exist.
fn slice(inst: &Instruction, ranges: &[SliceDim], a: &Array) -> Result<Array> {
    let in_st = istrides(a.dims());
    let mut off = 0isize;
    let mut ss = Vec::with_capacity(ranges.len());
    let mut dims = Vec::with_capacity(ranges.len());
    for (d, r) in ranges.iter().enumerate() {
        let n = a.dims()[d];
        let limit = r.limit.min(n);
        let len = if r.start >= limit {
            0
        } else {
            let span = limit - r.start;
            span / r.stride + i64::from(span % r.stride != 0)
        };
        dims.push(len);
        if len > 0 {
            off += r.start as isize * in_st[d];
        }
        ss.push(in_st[d] * r.stride as isize);
    }
    let shape = fit(inst, &dims)?;
    Ok(gather_array(a, off, &ss, shape))
}

/// The start indices of dynamic-slice / dynamic-update-slice, from operand `first` on (one
/// scalar per dimension, or one rank-1 array), as wide integers.
fn start_values(ops: &[&Literal], first: usize, rank: usize) -> Result<Vec<i128>> {
    let mut out = Vec::with_capacity(rank);
    for k in first..ops.len() {
        let a = array(ops, k)?;
        for j in 0..a.len() {
            out.push(
                a.data
                    .get(j)
                    .as_i128()
                    .ok_or_else(|| Error::internal("start index is not an integer"))?,
            );
        }
    }
    if out.len() != rank {
        return Err(Error::internal("wrong number of start indices"));
    }
    Ok(out)
}

/// The clamp both dynamic ops apply: start in [0, n - size].
fn clamp_start(start: i128, n: i64, size: i64) -> i64 {
    start.clamp(0, (n - size).max(0) as i128) as i64
}

fn dynamic_slice(inst: &Instruction, sizes: &[i64], ops: &[&Literal]) -> Result<Array> {
    let a = array(ops, 0)?;
    let starts = start_values(ops, 1, a.rank())?;
    let in_st = istrides(a.dims());
    let mut off = 0isize;
    for (d, (&st, &size)) in starts.iter().zip(sizes).enumerate() {
        let n = a.dims()[d];
        if size > n {
            return Err(Error::runtime(format!(
                "dimension {d}: slice size {size} exceeds the operand's actual (dynamic) size {n}"
            ))
            .with_rule("dynamic-slice.size_in_range"));
        }
        off += clamp_start(st, n, size) as isize * in_st[d];
    }
    let shape = fit(inst, sizes)?;
    Ok(gather_array(a, off, &in_st, shape))
}

fn dynamic_update_slice(inst: &Instruction, ops: &[&Literal]) -> Result<Array> {
    let (a, rest) = ops
        .split_first()
        .ok_or_else(|| Error::internal("dynamic-update-slice without operands"))?;
    dynamic_update_slice_into(inst, (*a).clone(), rest)
}

/// `dynamic-update-slice` writing into `target` (operand 0, owned; its elements are copied
/// first only if another value shares them), with `rest` the update and the start indices.
pub fn dynamic_update_slice_into(
    inst: &Instruction,
    target: Literal,
    rest: &[&Literal],
) -> Result<Array> {
    let Literal::Array(Array {
        mut data,
        shape: a_shape,
    }) = target
    else {
        return Err(Error::internal("dynamic-update-slice of a non-array"));
    };
    let u = array(rest, 0)?;
    let starts = start_values(rest, 1, a_shape.dims.len())?;
    let a_dims = &a_shape.dims;
    let out_st = strides(&udims(a_dims));
    let mut off = 0usize;
    for (d, &st) in starts.iter().enumerate() {
        let (n, size) = (a_dims[d], u.dims()[d]);
        if size > n {
            return Err(Error::runtime(format!(
                "dimension {d}: the update's size {size} exceeds the operand's actual (dynamic) size {n}"
            ))
            .with_rule("dynamic-update-slice.update_fits"));
        }
        off += clamp_start(st, n, size) as usize * out_st[d];
    }
    let shape = fit(inst, a_dims)?;
    let u_st = istrides(u.dims());
    let box_dims = udims(u.dims());
    with_data!(&mut data, o => {
        let src = NativeType::slice(&u.data)
            .ok_or_else(|| Error::internal("update type differs from the operand's"))?;
        copy_box(src, 0, &u_st, o, off, &out_st, &box_dims);
    });
    Ok(Array { shape, data })
}

fn concatenate(inst: &Instruction, d: usize, ops: &[&Literal]) -> Result<Array> {
    let first = array(ops, 0)?;
    let mut dims = first.dims().to_vec();
    dims[d] = 0;
    for k in 0..ops.len() {
        let a = array(ops, k)?;
        for (j, (&x, &y)) in a.dims().iter().zip(first.dims()).enumerate() {
            if j != d && x != y {
                return Err(Error::runtime(format!(
                    "operand {k} has actual shape {} but operand 0 has {}; they may differ only in dimension {d}",
                    a.shape, first.shape
                ))
                .with_rule("concatenate.same_dims"));
            }
        }
        dims[d] += a.dims()[d];
    }
    let shape = fit(inst, &dims)?;
    let out_st = strides(&udims(&dims));
    let mut data = ArrayData::zeros(shape.ty, shape.element_count());
    let mut at = 0usize;
    for k in 0..ops.len() {
        let a = array(ops, k)?;
        let (a_st, box_dims) = (istrides(a.dims()), udims(a.dims()));
        with_data!(&mut data, o => {
            let src = NativeType::slice(&a.data)
                .ok_or_else(|| Error::internal("concatenate operand types differ"))?;
            copy_box(src, 0, &a_st, o, at * out_st[d], &out_st, &box_dims);
        });
        at += box_dims[d];
    }
    Ok(Array { shape, data })
}

/// Pad: operand element i lands at lo + i·(interior + 1) in each dimension; positions outside
/// the result (negative padding) are dropped, everything else holds the padding value.
fn pad(inst: &Instruction, cfg: &[PadDim], ops: &[&Literal]) -> Result<Array> {
    let a = array(ops, 0)?;
    let value = array(ops, 1)?;
    let mut dims = Vec::with_capacity(cfg.len());
    for (d, p) in cfg.iter().enumerate() {
        let n = a.dims()[d];
        match padded_size(n, p.lo, p.hi, p.interior) {
            Some(s) if s >= 0 => dims.push(s),
            _ => {
                return Err(Error::runtime(format!(
                    "dimension {d}: padding {}_{}_{} of actual size {n} leaves a negative size",
                    p.lo, p.hi, p.interior
                ))
                .with_rule("pad.result_nonnegative"));
            }
        }
    }
    let shape = fit(inst, &dims)?;
    let out_st = strides(&udims(&dims));
    let a_st = istrides(a.dims());
    // The operand elements that survive: in dimension d, i in [first, last) with
    // 0 <= lo + i·step < size.
    let mut src_off = 0isize;
    let mut dst_off = 0usize;
    let mut box_dims = Vec::with_capacity(cfg.len());
    let mut ds = Vec::with_capacity(cfg.len());
    for (d, p) in cfg.iter().enumerate() {
        let step = p.interior + 1;
        let n = a.dims()[d];
        let first = if p.lo < 0 {
            (-p.lo + step - 1) / step
        } else {
            0
        };
        let last = if dims[d] - p.lo <= 0 {
            0
        } else {
            ((dims[d] - p.lo + step - 1) / step).min(n)
        };
        let count = (last - first).max(0);
        box_dims.push(count as usize);
        ds.push(out_st[d] * step as usize);
        if count > 0 {
            src_off += first as isize * a_st[d];
            dst_off += (p.lo + first * step) as usize * out_st[d];
        }
    }
    let total = shape.element_count();
    let data = map_data!(&value.data, v => {
        let pv = v.first().copied().unwrap_or_else(NativeType::zero);
        let mut out = vec![pv; total];
        if let Some(src) = NativeType::slice(&a.data) {
            copy_box(src, src_off, &a_st, &mut out, dst_off, &ds, &box_dims);
        }
        out
    });
    Ok(Array { shape, data })
}

/// Bitcast: write the operand into memory with its declared layout, read the result from the
/// same memory with the result's layout.
fn bitcast(ev: &Evaluator, inst: &Instruction, a: &Array) -> Result<Array> {
    let layout = operand_shape(ev, inst, 0)
        .and_then(|s| s.as_array())
        .map(|s| s.layout_or_default())
        .ok_or_else(|| Error::internal("bitcast operand shape not found"))?;
    let decl = Evaluator::result_array_shape(inst)?;
    // Both buffers in the default (row-major) order and one element type: the buffer is the
    // logical order on both sides, so the elements stay as they are (a reshape in disguise,
    // which optimised modules are full of).
    if decl.ty == a.ty() && layout.is_default() && decl.layout_or_default().is_default() {
        return Ok(Array {
            shape: decl.clone(),
            data: a.data.clone(),
        });
    }
    let buf = a.to_buffer(Some(&layout))?;
    // Another element type of the same width (the verifier allows no other): each buffer slot's
    // bits are read as the new type, as XLA's optimised modules do in sort comparators.
    let buf = if decl.ty == a.ty() {
        buf
    } else {
        crate::eval::elementwise::convert::bitcast(buf.view(), decl.ty)?
    };
    Array::from_buffer(decl.clone(), &buf)
}

/// Set-dimension-size: keeps the first `size` elements along the dimension. Growing a dimension
/// past its current size would expose elements this model does not hold (XLA leaves them
/// unspecified), so the reference refuses.
fn set_dimension_size(inst: &Instruction, d: usize, ops: &[&Literal]) -> Result<Array> {
    let a = array(ops, 0)?;
    let size = array(ops, 1)?
        .typed::<i32>()
        .and_then(|v| v.first().copied())
        .ok_or_else(|| Error::internal("set-dimension-size size is not an s32 scalar"))?
        as i64;
    let decl = Evaluator::result_array_shape(inst)?;
    let (n, bound) = (a.dims()[d], decl.dims[d]);
    if size < 0 || size > bound {
        return Err(Error::runtime(format!(
            "size {size} is outside [0, {bound}], the bound of dimension {d}"
        ))
        .with_rule("set-dimension-size.size_in_range"));
    }
    if size > n {
        return Err(Error::runtime(format!(
            "size {size} is larger than dimension {d}'s current size {n}; the elements past {n} are padding whose values are unspecified"
        ))
        .with_rule("set-dimension-size.size_in_range"));
    }
    let mut dims = a.dims().to_vec();
    dims[d] = size;
    let shape = fit(inst, &dims)?;
    Ok(gather_array(a, 0, &istrides(a.dims()), shape))
}

#[cfg(test)]
mod tests;
