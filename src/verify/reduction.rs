//! Shape inference and constraints for the ops that apply a computation across elements: reduce,
//! reduce-window, select-and-scatter, map, sort and topk. Besides operand shapes, each checks the
//! signature of its sub-computation against the operands, so the evaluator can call it without
//! re-checking. References: the Operation Semantics chapter (`Reduce`, `ReduceWindow`,
//! `SelectAndScatter`, `Map`, `Sort`, `TopK`) and XLA's `shape_inference.cc` for the window
//! arithmetic.

use super::{Ctx, check_dims};
use crate::error::{Error, Result};
use crate::hlo::attrs::{
    Comp, MapAttrs, ReduceAttrs, ReduceWindowAttrs, SelectAndScatterAttrs, SortAttrs, Window,
    WindowDim,
};
use crate::hlo::opcode::ReductionOp;
use crate::shape::window::{WindowError, window_output_size};
use crate::shape::{ArrayShape, Shape};
use crate::types::ElementType;
use crate::{ensure, invalid};

pub fn infer(ctx: &Ctx, op: &ReductionOp) -> Result<Shape> {
    match op {
        ReductionOp::Reduce(r) => reduce(ctx, r),
        ReductionOp::ReduceWindow(r) => reduce_window(ctx, r),
        ReductionOp::SelectAndScatter(s) => select_and_scatter(ctx, s),
        ReductionOp::Map(m) => map(ctx, m),
        ReductionOp::Sort(s) => sort(ctx, s),
        ReductionOp::TopK(t) => topk(ctx, t.k),
    }
}

fn scalar_shape(ty: ElementType) -> Shape {
    Shape::scalar(ty)
}

/// `Collate(T_0..T_{N-1})`: the shape itself for N = 1, a tuple otherwise.
fn collate(mut shapes: Vec<Shape>) -> Shape {
    if shapes.len() == 1 {
        shapes.remove(0)
    } else {
        Shape::Tuple(shapes)
    }
}

/// Operands `0..n` as arrays that all have the same dimensions (`<op>.same_dims`).
fn arrays_with_same_dims<'a>(ctx: &Ctx<'a>, n: usize) -> Result<Vec<&'a ArrayShape>> {
    let op = ctx.op();
    let inputs: Vec<&ArrayShape> = (0..n).map(|i| ctx.array(i)).collect::<Result<_>>()?;
    for (i, a) in inputs.iter().enumerate().skip(1) {
        ensure!(
            a.dims == inputs[0].dims,
            &format!("{op}.same_dims"),
            "all array operands of `{op}` must have the same dimensions; operand 0 is {} but operand {i} is {a}",
            inputs[0]
        );
    }
    Ok(inputs)
}

/// The operands of reduce and reduce-window: N arrays of one set of dimensions, then N scalar
/// init values of the matching types. Returns the arrays; checks the reducer's signature
/// `(T_0..T_{N-1}, T_0..T_{N-1}) -> Collate(T_0..T_{N-1})`.
fn inputs_and_inits<'a>(ctx: &Ctx<'a>, to_apply: Comp) -> Result<Vec<&'a ArrayShape>> {
    let op = ctx.op();
    let n_ops = ctx.operands.len();
    ensure!(
        n_ops >= 2 && n_ops.is_multiple_of(2),
        &format!("{op}.operand_count"),
        "`{op}` takes N arrays followed by N init values (an even number, at least 2), got {n_ops} operand(s)"
    );
    let n = n_ops / 2;
    let inputs = arrays_with_same_dims(ctx, n)?;
    for (i, a) in inputs.iter().enumerate() {
        let init = ctx.array(n + i)?;
        ensure!(
            init.is_scalar(),
            &format!("{op}.init_is_scalar"),
            "init value {i} of `{op}` must be a scalar, got {init}"
        );
        ensure!(
            init.ty == a.ty,
            &format!("{op}.init_type"),
            "init value {i} of `{op}` is {} but input {i} has element type {}",
            init.ty,
            a.ty
        );
    }
    let scalars: Vec<Shape> = inputs.iter().map(|a| scalar_shape(a.ty)).collect();
    let params: Vec<Shape> = scalars.iter().chain(scalars.iter()).cloned().collect();
    ctx.check_signature(
        to_apply,
        &params,
        &collate(scalars),
        &format!("{op}.computation_signature"),
    )?;
    Ok(inputs)
}

fn reduce(ctx: &Ctx, r: &ReduceAttrs) -> Result<Shape> {
    let inputs = inputs_and_inits(ctx, r.to_apply)?;
    let a = inputs[0];
    let dims = &r.dimensions;
    check_dims(dims, a.rank(), "reduce.dimensions_in_range", "dimension")?;
    let kept: Vec<usize> = (0..a.rank())
        .filter(|d| !dims.contains(&(*d as i64)))
        .collect();
    Ok(collate(
        inputs
            .iter()
            .map(|x| {
                Shape::Array(ArrayShape {
                    ty: x.ty,
                    dims: kept.iter().map(|&d| x.dims[d]).collect(),
                    dynamic: kept.iter().map(|&d| x.dynamic[d]).collect(),
                    layout: None,
                })
            })
            .collect(),
    ))
}

/// Checks a window against an operand of `rank` dimensions (an omitted window is the empty
/// window, valid only for rank 0).
fn window<'w>(ctx: &Ctx, w: &'w Window, rank: usize) -> Result<&'w Window> {
    let op = ctx.op();
    ensure!(
        w.dims.len() == rank,
        &format!("{op}.window_rank"),
        "the window has {} dimension(s) but the operand has rank {rank}",
        w.dims.len()
    );
    for (i, d) in w.dims.iter().enumerate() {
        let WindowDim {
            size,
            stride,
            lhs_dilate,
            rhs_dilate,
            ..
        } = *d;
        ensure!(
            size >= 1 && stride >= 1 && lhs_dilate >= 1 && rhs_dilate >= 1,
            &format!("{op}.window_positive"),
            "window dimension {i} needs size, stride and dilations of at least 1 (size={size} stride={stride} lhs_dilate={lhs_dilate} rhs_dilate={rhs_dilate})"
        );
        ensure!(
            !d.reversal,
            &format!("{op}.no_reversal"),
            "`{op}` does not take rhs_reversal (window dimension {i})"
        );
    }
    Ok(w)
}

/// The result dimensions of sliding `w` over `a`, checking that the padded base is not negative
/// and that no size overflows.
fn window_dims(ctx: &Ctx, a: &ArrayShape, w: &Window) -> Result<Vec<i64>> {
    let op = ctx.op();
    a.dims
        .iter()
        .zip(&w.dims)
        .enumerate()
        .map(|(i, (&n, d))| match window_output_size(n, d) {
            Ok(size) => Ok(size),
            Err(WindowError::NegativePaddedBase) => Err(Error::invalid(
                &format!("{op}.padded_size_non_negative"),
                format!(
                    "window dimension {i}: padding {}_{} leaves a negative size for an operand dimension of {n}",
                    d.pad_lo, d.pad_hi
                ),
            )),
            Err(WindowError::Overflow) => Err(Error::invalid(
                "shape.too_large",
                format!("window dimension {i}: the padded or dilated size overflows 64 bits"),
            )),
            Err(WindowError::NonPositive) => Err(Error::invalid(
                &format!("{op}.window_positive"),
                format!("window dimension {i} needs a stride and dilations of at least 1"),
            )),
        })
        .collect()
}

fn reduce_window(ctx: &Ctx, r: &ReduceWindowAttrs) -> Result<Shape> {
    let inputs = inputs_and_inits(ctx, r.to_apply)?;
    let a = inputs[0];
    let w = window(ctx, &r.window, a.rank())?;
    let dims = window_dims(ctx, a, w)?;
    Ok(collate(
        inputs
            .iter()
            .map(|x| {
                Shape::Array(ArrayShape {
                    ty: x.ty,
                    dims: dims.clone(),
                    dynamic: x.dynamic.clone(),
                    layout: None,
                })
            })
            .collect(),
    ))
}

fn select_and_scatter(ctx: &Ctx, s: &SelectAndScatterAttrs) -> Result<Shape> {
    ctx.arity(3)?;
    let (a, source, init) = (ctx.array(0)?, ctx.array(1)?, ctx.array(2)?);
    ensure!(
        source.ty == a.ty,
        "select-and-scatter.source_type",
        "the source has element type {} but the operand has {}",
        source.ty,
        a.ty
    );
    ensure!(
        init.is_scalar(),
        "select-and-scatter.init_is_scalar",
        "the init value must be a scalar, got {init}"
    );
    ensure!(
        init.ty == a.ty,
        "select-and-scatter.init_type",
        "the init value is {} but the operand has element type {}",
        init.ty,
        a.ty
    );
    let w = window(ctx, &s.window, a.rank())?;
    for (i, d) in w.dims.iter().enumerate() {
        ensure!(
            d.lhs_dilate == 1 && d.rhs_dilate == 1,
            "select-and-scatter.no_dilation",
            "select-and-scatter takes no window or base dilation (window dimension {i})"
        );
    }
    let dims = window_dims(ctx, a, w)?;
    ensure!(
        source.dims == dims,
        "select-and-scatter.source_shape",
        "the source must have the window positions' dimensions [{}], got {source}",
        dims.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    let t = scalar_shape(a.ty);
    ctx.check_signature(
        s.select,
        &[t.clone(), t.clone()],
        &scalar_shape(ElementType::Pred),
        "select-and-scatter.select_signature",
    )?;
    ctx.check_signature(
        s.scatter,
        &[t.clone(), t.clone()],
        &t,
        "select-and-scatter.scatter_signature",
    )?;
    Ok(Shape::Array(a.with_type(a.ty)))
}

fn map(ctx: &Ctx, m: &MapAttrs) -> Result<Shape> {
    ctx.arity_at_least(1)?;
    let inputs = arrays_with_same_dims(ctx, ctx.operands.len())?;
    let a = inputs[0];
    if let Some(dims) = &m.dimensions {
        ensure!(
            dims.iter().copied().eq(0..a.rank() as i64),
            "map.dimensions_all",
            "map's dimensions must list every dimension in order ({{0..{}}}), got {dims:?}",
            a.rank()
        );
    }
    let comp = m.to_apply;
    let (_, result) = ctx.signature(comp)?;
    let out_ty = match result.as_array() {
        Some(r) if r.is_scalar() => r.ty,
        _ => invalid!(
            "map.computation_signature",
            "the mapped computation `{}` must return a scalar, got {result}",
            ctx.comp_name(comp)
        ),
    };
    let params: Vec<Shape> = inputs.iter().map(|x| scalar_shape(x.ty)).collect();
    ctx.check_signature(
        comp,
        &params,
        &scalar_shape(out_ty),
        "map.computation_signature",
    )?;
    Ok(Shape::Array(a.with_type(out_ty)))
}

fn sort(ctx: &Ctx, s: &SortAttrs) -> Result<Shape> {
    ctx.arity_at_least(1)?;
    let inputs = arrays_with_same_dims(ctx, ctx.operands.len())?;
    let a = inputs[0];
    let dims = &s.dimensions;
    ensure!(
        dims.len() == 1 && dims[0] >= 0 && (dims[0] as usize) < a.rank(),
        "sort.dimension_in_range",
        "sort needs exactly one dimension in 0..{} (the operands' rank), got {dims:?}",
        a.rank()
    );
    let params: Vec<Shape> = inputs
        .iter()
        .flat_map(|x| [scalar_shape(x.ty), scalar_shape(x.ty)])
        .collect();
    ctx.check_signature(
        s.to_apply,
        &params,
        &scalar_shape(ElementType::Pred),
        "sort.comparator_signature",
    )?;
    Ok(collate(
        inputs
            .iter()
            .map(|x| Shape::Array(x.with_type(x.ty)))
            .collect(),
    ))
}

fn topk(ctx: &Ctx, k: i64) -> Result<Shape> {
    ctx.arity(1)?;
    let a = ctx.array(0)?;
    ensure!(
        a.rank() >= 1,
        "topk.rank",
        "topk needs an operand of rank 1 or more, got {a}"
    );
    ensure!(
        !a.ty.is_complex(),
        "topk.element_type",
        "topk needs an ordered element type; {} has no order",
        a.ty
    );
    let last = a.dims[a.rank() - 1];
    ensure!(
        k >= 0 && k <= last,
        "topk.k_in_range",
        "k={k} must lie in 0..={last}, the size of the last dimension of {a}"
    );
    let mut dims = a.dims.clone();
    let r = dims.len() - 1;
    dims[r] = k;
    let mut dynamic = a.dynamic.clone();
    dynamic[r] = false;
    let mk = |ty| {
        Shape::Array(ArrayShape {
            ty,
            dims: dims.clone(),
            dynamic: dynamic.clone(),
            layout: None,
        })
    };
    Ok(Shape::Tuple(vec![mk(a.ty), mk(ElementType::S32)]))
}
