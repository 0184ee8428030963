//! Shape inference and constraints for the data-movement family: parameter, constant, iota, tuple,
//! get-tuple-element, broadcast, reshape, dynamic-reshape, transpose, reverse, slice,
//! dynamic-slice, dynamic-update-slice, concatenate, pad, copy, bitcast, get-dimension-size and
//! set-dimension-size.
//!
//! Reference: the Operation Semantics chapter (one section per op) and XLA's
//! `ShapeInference::Infer*Shape` / `ShapeVerifier::Handle*` for the edges the chapter leaves open.
//! Every rule label used here is defined on the op's page under `book/src/ops/movement/`.
//!
//! Dynamic dimensions: inference carries the operand's dynamic flags to the result. A result
//! dimension inferred dynamic must also be declared dynamic (`movement.dynamic_result`), because a
//! value's dynamic size travels with it and cannot silently become a static size.

use super::{Ctx, check_dims};
use crate::error::{Error, Result};
use crate::hlo::attrs::{PadDim, SliceDim};
use crate::hlo::opcode::MovementOp;
use crate::shape::window::padded_size;
use crate::shape::{ArrayShape, Shape};
use crate::types::ElementType;
use crate::{ensure, invalid};

pub fn infer(ctx: &Ctx, op: &MovementOp) -> Result<Shape> {
    let inferred = match op {
        MovementOp::Parameter(_) => {
            ctx.arity(0)?;
            return Ok(ctx.declared_required()?.clone());
        }
        MovementOp::Constant(k) => {
            ctx.arity(0)?;
            let d = ctx.declared_required()?;
            ensure!(
                k.literal.fits(d),
                "constant.literal_matches_shape",
                "the literal does not have the declared shape {d}"
            );
            return Ok(d.clone());
        }
        MovementOp::Iota(i) => return iota(ctx, i.dimension),
        MovementOp::Tuple => Shape::Tuple(ctx.operands.iter().map(|s| (*s).clone()).collect()),
        MovementOp::GetTupleElement(g) => get_tuple_element(ctx, g.index)?,
        MovementOp::Broadcast(b) => return broadcast(ctx, &b.dimensions),
        MovementOp::Reshape(_) => return reshape(ctx),
        MovementOp::DynamicReshape => return dynamic_reshape(ctx),
        MovementOp::Transpose(d) => transpose(ctx, &d.dimensions)?,
        MovementOp::Reverse(d) => reverse(ctx, &d.dimensions)?,
        MovementOp::Slice(sl) => slice(ctx, &sl.slice)?,
        MovementOp::DynamicSlice(d) => dynamic_slice(ctx, &d.sizes)?,
        MovementOp::DynamicUpdateSlice => dynamic_update_slice(ctx)?,
        MovementOp::Concatenate(d) => concatenate(ctx, &d.dimensions)?,
        MovementOp::Pad(p) => pad(ctx, &p.padding)?,
        MovementOp::Copy => {
            ctx.arity(1)?;
            ctx.operands[0].clone()
        }
        MovementOp::Bitcast => return bitcast(ctx),
        MovementOp::GetDimensionSize(d) => {
            ctx.arity(1)?;
            let a = ctx.array(0)?;
            one_dimension(ctx, a, &d.dimensions)?;
            Shape::scalar(ElementType::S32)
        }
        MovementOp::SetDimensionSize(d) => set_dimension_size(ctx, &d.dimensions)?,
    };
    if let Some(d) = ctx.declared() {
        check_dynamic_kept(&inferred, d)?;
    }
    Ok(inferred)
}

/// A dimension inferred dynamic must be declared dynamic (recursively through tuples).
fn check_dynamic_kept(inferred: &Shape, declared: &Shape) -> Result<()> {
    match (inferred, declared) {
        (Shape::Array(i), Shape::Array(d)) => {
            for (k, (&di, &dd)) in i.dynamic.iter().zip(&d.dynamic).enumerate() {
                ensure!(
                    !di || dd,
                    "movement.dynamic_result",
                    "dimension {k} of the result is dynamic (its size comes from a dynamic operand dimension), so it must be declared `<={}`, not `{}`",
                    i.dims[k],
                    d.dims[k]
                );
            }
            Ok(())
        }
        (Shape::Tuple(i), Shape::Tuple(d)) => {
            for (a, b) in i.iter().zip(d) {
                check_dynamic_kept(a, b)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn array_result<'a>(ctx: &'a Ctx, rule: &str) -> Result<&'a ArrayShape> {
    let d = ctx.declared_required()?;
    d.as_array().ok_or_else(|| {
        Error::invalid(
            rule,
            format!("`{}` produces an array, but {d} is declared", ctx.op()),
        )
    })
}

fn iota(ctx: &Ctx, dim: i64) -> Result<Shape> {
    ctx.arity(0)?;
    let a = array_result(ctx, "iota.array_result")?;
    ensure!(
        a.rank() >= 1,
        "iota.rank",
        "iota needs a result of rank 1 or more, got {a}"
    );
    ensure!(
        a.ty.is_numeric(),
        "iota.element_type",
        "iota produces integers, floats or complex numbers, not {}",
        a.ty
    );
    ensure!(
        dim >= 0 && (dim as usize) < a.rank(),
        "iota.dimension_in_range",
        "iota_dimension={dim} is out of range for {a}"
    );
    Ok(Shape::Array(a.clone()))
}

fn get_tuple_element(ctx: &Ctx, idx: i64) -> Result<Shape> {
    ctx.arity(1)?;
    match ctx.operands[0] {
        Shape::Tuple(elems) => {
            ensure!(
                idx >= 0 && (idx as usize) < elems.len(),
                "get-tuple-element.index_in_range",
                "index={idx} is out of range for a tuple of {} element(s)",
                elems.len()
            );
            Ok(elems[idx as usize].clone())
        }
        other => invalid!(
            "get-tuple-element.operand_is_tuple",
            "the operand must be a tuple, got {other}"
        ),
    }
}

/// `broadcast` (BroadcastInDim): operand dimension i becomes output dimension `dimensions[i]`,
/// whose size must equal it unless the operand's size is 1.
fn broadcast(ctx: &Ctx, dims: &[i64]) -> Result<Shape> {
    ctx.arity(1)?;
    let a = ctx.array(0)?;
    let out = array_result(ctx, "broadcast.array_result")?;
    ensure!(
        out.ty == a.ty,
        "broadcast.same_type",
        "broadcast cannot change the element type ({} to {})",
        a.ty,
        out.ty
    );
    ensure!(
        dims.len() == a.rank(),
        "broadcast.dimensions_per_operand_dim",
        "dimensions={{...}} needs one entry per operand dimension ({}), got {}",
        a.rank(),
        dims.len()
    );
    check_dims(
        dims,
        out.rank(),
        "broadcast.dimensions_in_range",
        "broadcast dimension",
    )?;
    for w in dims.windows(2) {
        ensure!(
            w[0] < w[1],
            "broadcast.dimensions_increasing",
            "broadcast dimensions must be strictly increasing, got {{{}}}",
            join(dims)
        );
    }
    for (i, &od) in dims.iter().enumerate() {
        let od = od as usize;
        let (src, dst) = (a.dims[i], out.dims[od]);
        ensure!(
            src == dst || src == 1,
            "broadcast.compatible_sizes",
            "operand dimension {i} has size {src}, which cannot broadcast to output dimension {od} of size {dst}"
        );
        ensure!(
            !a.dynamic[i] || src == 1 || out.dynamic[od],
            "movement.dynamic_result",
            "operand dimension {i} is dynamic, so output dimension {od} must be declared `<={dst}`"
        );
    }
    Ok(Shape::Array(out.clone()))
}

fn reshape(ctx: &Ctx) -> Result<Shape> {
    ctx.arity(1)?;
    let a = ctx.array(0)?;
    let out = array_result(ctx, "reshape.array_result")?;
    ensure!(
        out.ty == a.ty,
        "reshape.same_type",
        "reshape cannot change the element type ({} to {})",
        a.ty,
        out.ty
    );
    ensure!(
        out.checked_element_count() == a.checked_element_count(),
        "reshape.same_element_count",
        "cannot reshape {a} ({} elements) to {out} ({} elements)",
        a.element_count(),
        out.element_count()
    );
    ensure!(
        !a.is_dynamic() || out.is_dynamic(),
        "movement.dynamic_result",
        "the operand {a} has a dynamic dimension, so the result must declare one too (got {out})"
    );
    Ok(Shape::Array(out.clone()))
}

fn dynamic_reshape(ctx: &Ctx) -> Result<Shape> {
    let a = ctx.array(0)?;
    let out = array_result(ctx, "dynamic-reshape.array_result")?;
    ensure!(
        ctx.operands.len() == 1 + out.rank(),
        "dynamic-reshape.one_size_per_dimension",
        "dynamic-reshape takes the operand and one size per result dimension ({}), got {} size operand(s)",
        out.rank(),
        ctx.operands.len().saturating_sub(1)
    );
    ensure!(
        out.ty == a.ty,
        "dynamic-reshape.same_type",
        "dynamic-reshape cannot change the element type ({} to {})",
        a.ty,
        out.ty
    );
    for i in 1..ctx.operands.len() {
        let s = ctx.array(i)?;
        ensure!(
            s.is_scalar() && s.ty == ElementType::S32,
            "dynamic-reshape.size_is_s32_scalar",
            "size operand {i} must be an s32 scalar, got {s}"
        );
    }
    Ok(Shape::Array(out.clone()))
}

fn transpose(ctx: &Ctx, perm: &[i64]) -> Result<Shape> {
    ctx.arity(1)?;
    let a = ctx.array(0)?;
    ensure!(
        perm.len() == a.rank(),
        "transpose.permutation",
        "dimensions={{...}} must list each of the {} dimensions once, got {} entries",
        a.rank(),
        perm.len()
    );
    check_dims(perm, a.rank(), "transpose.permutation", "dimension")?;
    let pick = |p: &i64| p.unsigned_abs() as usize;
    Ok(Shape::Array(ArrayShape {
        ty: a.ty,
        dims: perm.iter().map(|p| a.dims[pick(p)]).collect(),
        dynamic: perm.iter().map(|p| a.dynamic[pick(p)]).collect(),
        layout: None,
    }))
}

fn reverse(ctx: &Ctx, dims: &[i64]) -> Result<Shape> {
    ctx.arity(1)?;
    let a = ctx.array(0)?;
    check_dims(dims, a.rank(), "reverse.dimensions_in_range", "dimension")?;
    Ok(plain(a))
}

/// The operand's shape without its layout (the result's layout is the declared one).
fn plain(a: &ArrayShape) -> Shape {
    Shape::Array(ArrayShape {
        layout: None,
        ..a.clone()
    })
}

fn slice(ctx: &Ctx, ranges: &[SliceDim]) -> Result<Shape> {
    ctx.arity(1)?;
    let a = ctx.array(0)?;
    ensure!(
        ranges.len() == a.rank(),
        "slice.one_range_per_dimension",
        "slice={{...}} needs one range per operand dimension ({}), got {}",
        a.rank(),
        ranges.len()
    );
    let mut dims = Vec::with_capacity(ranges.len());
    for (d, r) in ranges.iter().enumerate() {
        ensure!(
            r.start >= 0,
            "slice.start_nonnegative",
            "dimension {d}: start {} is negative",
            r.start
        );
        ensure!(
            r.start <= r.limit,
            "slice.start_le_limit",
            "dimension {d}: start {} is greater than limit {}",
            r.start,
            r.limit
        );
        ensure!(
            r.limit <= a.dims[d],
            "slice.limit_in_range",
            "dimension {d}: limit {} is past the dimension's size {}",
            r.limit,
            a.dims[d]
        );
        ensure!(
            r.stride >= 1,
            "slice.stride_positive",
            "dimension {d}: stride {} must be at least 1",
            r.stride
        );
        // Ceiling division without overflow: limit - start fits (both in [0, size]).
        let span = r.limit - r.start;
        dims.push(span / r.stride + i64::from(span % r.stride != 0));
    }
    Ok(Shape::Array(ArrayShape {
        ty: a.ty,
        dims,
        dynamic: a.dynamic.clone(),
        layout: None,
    }))
}

/// Start-index operands from `first` on: either one integer scalar per dimension (all of one
/// type), or the legacy single rank-1 integer array of `rank` elements.
fn start_indices(ctx: &Ctx, first: usize, rank: usize) -> Result<()> {
    let op = ctx.op();
    let rule = format!("{op}.index_is_integer_scalar");
    let n = ctx.operands.len().saturating_sub(first);
    if n == 1 && matches!(ctx.operands.get(first), Some(Shape::Array(s)) if s.rank() == 1) {
        let s = ctx.array(first)?;
        ensure!(
            s.rank() == 1 && s.dims[0] == rank as i64 && s.ty.is_integer() && !s.is_dynamic(),
            &rule,
            "a single start-index operand must be an integer array of {rank} element(s), got {s}"
        );
        return Ok(());
    }
    ensure!(
        n == rank,
        &format!("{op}.one_index_per_dimension"),
        "`{op}` needs one start index per operand dimension ({rank}), got {n}"
    );
    let mut ty = None;
    for i in first..ctx.operands.len() {
        let s = ctx.array(i)?;
        ensure!(
            s.is_scalar() && s.ty.is_integer(),
            &rule,
            "start index {} must be an integer scalar, got {s}",
            i - first
        );
        ensure!(
            ty.is_none_or(|t| t == s.ty),
            &format!("{op}.indices_same_type"),
            "all start indices must have one type; got {} and {}",
            ty.map(|t: ElementType| t.name()).unwrap_or(""),
            s.ty
        );
        ty = Some(s.ty);
    }
    Ok(())
}

fn dynamic_slice(ctx: &Ctx, sizes: &[i64]) -> Result<Shape> {
    ctx.arity_at_least(1)?;
    let a = ctx.array(0)?;
    start_indices(ctx, 1, a.rank())?;
    ensure!(
        sizes.len() == a.rank(),
        "dynamic-slice.one_size_per_dimension",
        "dynamic_slice_sizes={{...}} needs one size per operand dimension ({}), got {}",
        a.rank(),
        sizes.len()
    );
    for (d, (&s, &n)) in sizes.iter().zip(&a.dims).enumerate() {
        ensure!(
            (0..=n).contains(&s),
            "dynamic-slice.size_in_range",
            "dimension {d}: slice size {s} must be between 0 and the dimension's size {n}"
        );
    }
    Ok(Shape::array(a.ty, sizes.to_vec()))
}

fn dynamic_update_slice(ctx: &Ctx) -> Result<Shape> {
    ctx.arity_at_least(2)?;
    let a = ctx.array(0)?;
    let u = ctx.array(1)?;
    ensure!(
        u.ty == a.ty,
        "dynamic-update-slice.same_type",
        "the update's type {} differs from the operand's {}",
        u.ty,
        a.ty
    );
    ensure!(
        u.rank() == a.rank(),
        "dynamic-update-slice.same_rank",
        "the update {u} must have the operand's rank {}",
        a.rank()
    );
    for (d, (&s, &n)) in u.dims.iter().zip(&a.dims).enumerate() {
        ensure!(
            s <= n,
            "dynamic-update-slice.update_fits",
            "dimension {d}: the update's size {s} exceeds the operand's size {n}"
        );
    }
    start_indices(ctx, 2, a.rank())?;
    Ok(plain(a))
}

fn concatenate(ctx: &Ctx, dims: &[i64]) -> Result<Shape> {
    ctx.arity_at_least(1)?;
    ensure!(
        dims.len() == 1,
        "concatenate.one_dimension",
        "dimensions={{...}} must name exactly one dimension, got {}",
        dims.len()
    );
    let first = ctx.array(0)?;
    let d = dims[0];
    ensure!(
        d >= 0 && (d as usize) < first.rank(),
        "concatenate.dimension_in_range",
        "dimension {d} is out of range for rank {}",
        first.rank()
    );
    let d = d as usize;
    let mut out = ArrayShape {
        layout: None,
        ..first.clone()
    };
    for i in 1..ctx.operands.len() {
        let a = ctx.array(i)?;
        ensure!(
            a.ty == first.ty,
            "concatenate.same_type",
            "operand {i} has type {} but operand 0 has {}",
            a.ty,
            first.ty
        );
        ensure!(
            a.rank() == first.rank(),
            "concatenate.same_rank",
            "operand {i} ({a}) has a different rank from operand 0 ({first})"
        );
        for k in 0..a.rank() {
            if k == d {
                out.dims[k] = out.dims[k].checked_add(a.dims[k]).ok_or_else(|| {
                    Error::invalid("shape.too_large", "concatenated size overflows")
                })?;
                out.dynamic[k] |= a.dynamic[k];
            } else {
                ensure!(
                    a.dims[k] == first.dims[k],
                    "concatenate.same_dims",
                    "operand {i} ({a}) differs from operand 0 ({first}) in dimension {k}, which is not the concatenation dimension"
                );
                out.dynamic[k] |= a.dynamic[k];
            }
        }
    }
    Ok(Shape::Array(out))
}

fn pad(ctx: &Ctx, cfg: &[PadDim]) -> Result<Shape> {
    ctx.arity(2)?;
    let a = ctx.array(0)?;
    let v = ctx.scalar(1)?;
    ensure!(
        v.ty == a.ty,
        "pad.same_type",
        "the padding value has type {} but the operand has {}",
        v.ty,
        a.ty
    );
    ensure!(
        cfg.len() == a.rank(),
        "pad.config_per_dimension",
        "padding= needs one lo_hi_interior entry per operand dimension ({}), got {}",
        a.rank(),
        cfg.len()
    );
    let mut dims = Vec::with_capacity(cfg.len());
    for (d, p) in cfg.iter().enumerate() {
        ensure!(
            p.interior >= 0,
            "pad.interior_nonnegative",
            "dimension {d}: interior padding {} is negative",
            p.interior
        );
        let size = padded_size(a.dims[d], p.lo, p.hi, p.interior);
        ensure!(
            size.is_some_and(|s| s >= 0),
            "pad.result_nonnegative",
            "dimension {d}: padding {}_{}_{} of size {} leaves a negative size",
            p.lo,
            p.hi,
            p.interior,
            a.dims[d]
        );
        dims.push(size.unwrap_or(0));
    }
    Ok(Shape::Array(ArrayShape {
        ty: a.ty,
        dims,
        dynamic: a.dynamic.clone(),
        layout: None,
    }))
}

fn bitcast(ctx: &Ctx) -> Result<Shape> {
    ctx.arity(1)?;
    let a = ctx.array(0)?;
    let out = array_result(ctx, "bitcast.array_result")?;
    ensure!(
        out.ty == a.ty
            || (out.ty.byte_size() == a.ty.byte_size()
                && out.ty != ElementType::Pred
                && a.ty != ElementType::Pred),
        "bitcast.same_element_width",
        "bitcast may change the element type only to another of the same width (not pred): {} is {} byte(s), {} is {}",
        a.ty,
        a.ty.byte_size(),
        out.ty,
        out.ty.byte_size()
    );
    ensure!(
        !a.is_dynamic() && !out.is_dynamic(),
        "bitcast.static_shapes",
        "bitcast needs static shapes, got {a} to {out}"
    );
    let (la, lo) = (a.layout_or_default(), out.layout_or_default());
    la.validate(&a.dims)
        .map_err(|m| Error::invalid("layout.valid", m))?;
    lo.validate(&out.dims)
        .map_err(|m| Error::invalid("layout.valid", m))?;
    let (ba, bo) = (la.buffer_len(&a.dims), lo.buffer_len(&out.dims));
    ensure!(
        ba == bo,
        "bitcast.same_buffer_size",
        "the operand {a} occupies {ba} element(s) in memory but the result {out} needs {bo}"
    );
    Ok(Shape::Array(out.clone()))
}

fn one_dimension(ctx: &Ctx, a: &ArrayShape, dims: &[i64]) -> Result<usize> {
    let op = ctx.op();
    ensure!(
        dims.len() == 1,
        &format!("{op}.one_dimension"),
        "dimensions={{...}} must name exactly one dimension, got {}",
        dims.len()
    );
    let d = dims[0];
    ensure!(
        d >= 0 && (d as usize) < a.rank(),
        &format!("{op}.dimension_in_range"),
        "dimension {d} is out of range for {a}"
    );
    Ok(d as usize)
}

fn set_dimension_size(ctx: &Ctx, dims: &[i64]) -> Result<Shape> {
    ctx.arity(2)?;
    let a = ctx.array(0)?;
    let s = ctx.array(1)?;
    ensure!(
        s.is_scalar() && s.ty == ElementType::S32,
        "set-dimension-size.size_is_s32_scalar",
        "the size operand must be an s32 scalar, got {s}"
    );
    let d = one_dimension(ctx, a, dims)?;
    let mut out = ArrayShape {
        layout: None,
        ..a.clone()
    };
    out.dynamic[d] = true;
    Ok(Shape::Array(out))
}

fn join(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}
