//! Shape inference and constraints for `dot` (DotGeneral) and `convolution`
//! (ConvGeneralDilated). The rules are those of the book's pages `ops/linalg/dot.md` and
//! `ops/linalg/convolution.md`; each error carries the label the book defines.

use super::{Ctx, check_dims};
use crate::error::{Error, Result};
use crate::hlo::attrs::{ConvolutionAttrs, DotAttrs, Precision, Window};
use crate::hlo::opcode::LinalgOp;
use crate::shape::window::{WindowError, window_output_size};
use crate::shape::{ArrayShape, Shape};
use crate::types::ElementType;
use crate::{ensure, invalid};

pub fn infer(ctx: &Ctx, op: &LinalgOp) -> Result<Shape> {
    match op {
        LinalgOp::Dot(d) => infer_dot(ctx, d),
        LinalgOp::Convolution(c) => infer_conv(ctx, c),
    }
}

fn dims(v: &[i64], rank: usize, what: &str) -> Result<Vec<usize>> {
    check_dims(v, rank, "dot.dimension_in_range", what)?;
    Ok(v.iter().map(|&d| d as usize).collect())
}

/// The dimensions of an operand that are neither batch nor contracting, in order.
fn free(rank: usize, batch: &[usize], contracting: &[usize]) -> Vec<usize> {
    (0..rank)
        .filter(|d| !batch.contains(d) && !contracting.contains(d))
        .collect()
}

/// A dot's dimension numbers, checked against the operands.
struct Checked {
    lhs_batch: Vec<usize>,
    lhs_contracting: Vec<usize>,
    rhs_batch: Vec<usize>,
    rhs_contracting: Vec<usize>,
}

/// The element types `dot` and `convolution` compute on: integers, floats and complex.
fn check_operand_types(op: &str, lhs: &ArrayShape, rhs: &ArrayShape) -> Result<()> {
    ensure!(
        lhs.ty.is_numeric(),
        &format!("{op}.element_type"),
        "`{op}` is defined on integer, floating-point and complex types, not {}",
        lhs.ty
    );
    ensure!(
        lhs.ty == rhs.ty,
        &format!("{op}.same_element_type"),
        "the operands of `{op}` must have the same element type, got {} and {}",
        lhs.ty,
        rhs.ty
    );
    Ok(())
}

/// The result element type: the operands' type, or a declared "preferred element type". An
/// integer result may not be narrower than integer operands, and the result keeps the operands'
/// kind (integer operands may give a float result, as XLA allows; a float or complex result must
/// not drop to an integer, and only complex operands give a complex result).
fn result_type(ctx: &Ctx, op: &str, operand: ElementType) -> Result<ElementType> {
    let Some(declared) = ctx.declared().and_then(|s| s.as_array()).map(|a| a.ty) else {
        return Ok(operand);
    };
    if declared == operand {
        return Ok(operand);
    }
    let ok = if operand.is_integer() {
        (declared.is_integer() && declared.bit_width() >= operand.bit_width())
            || declared.is_float()
    } else if operand.is_float() {
        declared.is_float()
    } else {
        declared.is_complex() && declared.bit_width() >= operand.bit_width()
    };
    ensure!(
        ok,
        &format!("{op}.result_type"),
        "`{op}` of {operand} operands cannot produce {declared}"
    );
    Ok(declared)
}

/// `operand_precision={default,high}`: none, or one per operand. The reference always computes
/// at the highest precision, so the values only get checked.
fn check_precision(op: &str, p: &[Precision]) -> Result<()> {
    ensure!(
        p.is_empty() || p.len() == 2,
        &format!("{op}.operand_precision"),
        "operand_precision must list two of default, high, highest (one per operand), got {}",
        p.len()
    );
    Ok(())
}

fn infer_dot(ctx: &Ctx, attrs: &DotAttrs) -> Result<Shape> {
    ctx.arity(2)?;
    let lhs = ctx.array(0)?;
    let rhs = ctx.array(1)?;
    check_operand_types("dot", lhs, rhs)?;
    check_precision("dot", &attrs.operand_precision)?;
    let d = dot_dims(attrs, lhs, rhs)?;
    let ty = result_type(ctx, "dot", lhs.ty)?;
    let lf = free(lhs.rank(), &d.lhs_batch, &d.lhs_contracting);
    let rf = free(rhs.rank(), &d.rhs_batch, &d.rhs_contracting);
    let mut dims = vec![];
    let mut dynamic = vec![];
    for (&l, &r) in d.lhs_batch.iter().zip(&d.rhs_batch) {
        dims.push(lhs.dims[l]);
        dynamic.push(lhs.dynamic[l] || rhs.dynamic[r]);
    }
    for &l in &lf {
        dims.push(lhs.dims[l]);
        dynamic.push(lhs.dynamic[l]);
    }
    for &r in &rf {
        dims.push(rhs.dims[r]);
        dynamic.push(rhs.dynamic[r]);
    }
    Ok(Shape::Array(ArrayShape {
        ty,
        dims,
        dynamic,
        layout: None,
    }))
}

/// Checks a dot's dimension numbers against its operand shapes.
fn dot_dims(a: &DotAttrs, lhs: &ArrayShape, rhs: &ArrayShape) -> Result<Checked> {
    let d = Checked {
        lhs_batch: dims(&a.lhs_batch_dims, lhs.rank(), "lhs batch dimension")?,
        lhs_contracting: dims(
            &a.lhs_contracting_dims,
            lhs.rank(),
            "lhs contracting dimension",
        )?,
        rhs_batch: dims(&a.rhs_batch_dims, rhs.rank(), "rhs batch dimension")?,
        rhs_contracting: dims(
            &a.rhs_contracting_dims,
            rhs.rank(),
            "rhs contracting dimension",
        )?,
    };
    ensure!(
        d.lhs_batch.len() == d.rhs_batch.len(),
        "dot.batch_dims_count",
        "lhs has {} batch dimension(s) but rhs has {}",
        d.lhs_batch.len(),
        d.rhs_batch.len()
    );
    ensure!(
        d.lhs_contracting.len() == d.rhs_contracting.len(),
        "dot.contracting_dims_count",
        "lhs has {} contracting dimension(s) but rhs has {}",
        d.lhs_contracting.len(),
        d.rhs_contracting.len()
    );
    for (side, b, c) in [
        ("lhs", &d.lhs_batch, &d.lhs_contracting),
        ("rhs", &d.rhs_batch, &d.rhs_contracting),
    ] {
        if let Some(x) = b.iter().find(|x| c.contains(x)) {
            invalid!(
                "dot.dimension_in_range",
                "{side} dimension {x} is both a batch and a contracting dimension"
            );
        }
    }
    for (&l, &r) in d.lhs_batch.iter().zip(&d.rhs_batch) {
        ensure!(
            lhs.dims[l] == rhs.dims[r],
            "dot.batch_dim_sizes",
            "lhs batch dimension {l} has size {} but rhs batch dimension {r} has size {}",
            lhs.dims[l],
            rhs.dims[r]
        );
    }
    for (&l, &r) in d.lhs_contracting.iter().zip(&d.rhs_contracting) {
        ensure!(
            lhs.dims[l] == rhs.dims[r],
            "dot.contracting_dim_sizes",
            "lhs contracting dimension {l} has size {} but rhs contracting dimension {r} has size {}",
            lhs.dims[l],
            rhs.dims[r]
        );
    }
    Ok(d)
}

fn infer_conv(ctx: &Ctx, attrs: &ConvolutionAttrs) -> Result<Shape> {
    ctx.arity(2)?;
    let lhs = ctx.array(0)?;
    let rhs = ctx.array(1)?;
    check_operand_types("convolution", lhs, rhs)?;
    check_precision("convolution", &attrs.operand_precision)?;
    let cd = &attrs.dim_labels;
    let n = cd.input_spatial.len();
    ensure!(
        lhs.rank() == n + 2 && rhs.rank() == n + 2,
        "convolution.dim_labels",
        "dim_labels describe rank-{} operands but lhs is {lhs} and rhs is {rhs}",
        n + 2
    );
    let (fgc, bgc) = (attrs.feature_group_count, attrs.batch_group_count);
    ensure!(
        fgc >= 1 && bgc >= 1,
        "convolution.group_count_positive",
        "feature_group_count ({fgc}) and batch_group_count ({bgc}) must be at least 1"
    );
    ensure!(
        fgc == 1 || bgc == 1,
        "convolution.groups_exclusive",
        "feature_group_count ({fgc}) and batch_group_count ({bgc}) cannot both exceed 1"
    );
    let batch = lhs.dims[cd.input_batch];
    let in_f = lhs.dims[cd.input_feature];
    let k_in = rhs.dims[cd.kernel_input_feature];
    let k_out = rhs.dims[cd.kernel_output_feature];
    ensure!(
        in_f % fgc == 0 && in_f / fgc == k_in,
        "convolution.input_feature_size",
        "the input feature size {in_f} must equal feature_group_count ({fgc}) times the kernel's input feature size {k_in}"
    );
    ensure!(
        k_out % fgc == 0,
        "convolution.feature_group_divides_output",
        "feature_group_count ({fgc}) must divide the kernel's output feature size {k_out}"
    );
    ensure!(
        batch % bgc == 0,
        "convolution.batch_group_divides_batch",
        "batch_group_count ({bgc}) must divide the input batch size {batch}"
    );
    ensure!(
        k_out % bgc == 0,
        "convolution.batch_group_divides_output",
        "batch_group_count ({bgc}) must divide the kernel's output feature size {k_out}"
    );
    let ksizes: Vec<i64> = cd.kernel_spatial.iter().map(|&d| rhs.dims[d]).collect();
    if let Some(w) = &attrs.window {
        ensure!(
            w.dims.len() == n,
            "convolution.window_rank",
            "the window has {} dimension(s) but the convolution has {n} spatial dimension(s)",
            w.dims.len()
        );
    }
    let window = match &attrs.window {
        Some(w) => w.clone(),
        None => Window::of_sizes(&ksizes),
    };
    let mut out_spatial = vec![];
    for (i, w) in window.dims.iter().enumerate() {
        ensure!(
            w.size == ksizes[i],
            "convolution.window_size",
            "window size {} in spatial dimension {i} differs from the kernel's size {}",
            w.size,
            ksizes[i]
        );
        ensure!(
            w.stride >= 1 && w.lhs_dilate >= 1 && w.rhs_dilate >= 1,
            "convolution.window_positive",
            "window strides and dilations must be at least 1 (spatial dimension {i})"
        );
        let base = lhs.dims[cd.input_spatial[i]];
        let o = window_output_size(base, w).map_err(|e| match e {
            WindowError::Overflow => Error::invalid(
                "shape.too_large",
                format!("spatial dimension {i}: the padded or dilated size overflows 64 bits"),
            ),
            WindowError::NegativePaddedBase | WindowError::NonPositive => Error::invalid(
                "convolution.padded_size",
                format!(
                    "spatial dimension {i}: padding {}_{} crops more than the (dilated) size of {base}",
                    w.pad_lo, w.pad_hi
                ),
            ),
        })?;
        out_spatial.push(o);
    }
    let ty = result_type(ctx, "convolution", lhs.ty)?;
    let mut dims = vec![0i64; n + 2];
    let mut dynamic = vec![false; n + 2];
    dims[cd.output_batch] = batch / bgc;
    dynamic[cd.output_batch] = lhs.dynamic[cd.input_batch];
    dims[cd.output_feature] = k_out;
    for (i, &od) in cd.output_spatial.iter().enumerate() {
        dims[od] = out_spatial[i];
        dynamic[od] = lhs.dynamic[cd.input_spatial[i]];
    }
    Ok(Shape::Array(ArrayShape {
        ty,
        dims,
        dynamic,
        layout: None,
    }))
}
