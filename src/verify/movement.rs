//! Shape inference for data-movement ops: parameter, constant, iota, tuple, get-tuple-element,
//! broadcast, reshape, transpose (more of the family comes with its issue).

use super::{Ctx, check_dims};
use crate::error::{Error, Result};
use crate::hlo::opcode::Opcode;
use crate::shape::{ArrayShape, Shape};
use crate::{ensure, invalid};

pub fn infer(ctx: &Ctx) -> Result<Shape> {
    use Opcode::*;
    match ctx.op() {
        Parameter => {
            ctx.arity(0)?;
            Ok(ctx.declared_required()?.clone())
        }
        Constant => {
            ctx.arity(0)?;
            let d = ctx.declared_required()?;
            match &ctx.inst.literal {
                Some(l) if l.fits(d) => Ok(d.clone()),
                _ => invalid!(
                    "constant.literal_matches_shape",
                    "the literal does not have the declared shape {d}"
                ),
            }
        }
        Iota => {
            ctx.arity(0)?;
            let d = ctx.declared_required()?;
            let a = d
                .as_array()
                .ok_or_else(|| Error::invalid("iota.array_result", "iota produces an array"))?;
            let dim = ctx.int_attr("iota_dimension")?;
            ensure!(
                dim >= 0 && (dim as usize) < a.rank(),
                "iota.dimension_in_range",
                "iota_dimension {dim} is out of range for {a}"
            );
            ensure!(
                !a.ty.is_pred() || a.dims[dim as usize] <= 2,
                "iota.pred_range",
                "a pred iota may count only 0 and 1"
            );
            Ok(d.clone())
        }
        Tuple => Ok(Shape::Tuple(
            ctx.operands.iter().map(|s| (*s).clone()).collect(),
        )),
        GetTupleElement => {
            ctx.arity(1)?;
            let idx = ctx.int_attr("index")?;
            match ctx.operands[0] {
                Shape::Tuple(elems) => {
                    ensure!(
                        idx >= 0 && (idx as usize) < elems.len(),
                        "get-tuple-element.index_in_range",
                        "index {idx} is out of range for a tuple of {} elements",
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
        Broadcast => broadcast(ctx),
        Reshape => {
            ctx.arity(1)?;
            let a = ctx.array(0)?;
            let d = ctx.declared_required()?;
            let out = d.as_array().ok_or_else(|| {
                Error::invalid("reshape.array_result", "reshape produces an array")
            })?;
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
            Ok(d.clone())
        }
        Transpose => {
            ctx.arity(1)?;
            let a = ctx.array(0)?;
            let perm = ctx.ints_attr("dimensions")?;
            ensure!(
                perm.len() == a.rank(),
                "transpose.permutation",
                "dimensions={{...}} must list each of the {} dimensions once, got {} entries",
                a.rank(),
                perm.len()
            );
            check_dims(perm, a.rank(), "transpose.permutation", "dimension")?;
            let dims = perm.iter().map(|&p| a.dims[p as usize]).collect();
            let dynamic = perm.iter().map(|&p| a.dynamic[p as usize]).collect();
            Ok(Shape::Array(ArrayShape {
                ty: a.ty,
                dims,
                dynamic,
                layout: None,
            }))
        }
        op => Err(Error::invalid(
            "hlo.unsupported",
            format!("xla-spec cannot verify `{op}` yet"),
        )),
    }
}

/// `broadcast` with `dimensions` (BroadcastInDim): operand dimension i maps to output dimension
/// `dimensions[i]`, whose size must equal it or the operand's size must be 1.
fn broadcast(ctx: &Ctx) -> Result<Shape> {
    ctx.arity(1)?;
    let a = ctx.array(0)?;
    let d = ctx.declared_required()?;
    let out = d
        .as_array()
        .ok_or_else(|| Error::invalid("broadcast.array_result", "broadcast produces an array"))?;
    ensure!(
        out.ty == a.ty,
        "broadcast.same_type",
        "broadcast cannot change the element type ({} to {})",
        a.ty,
        out.ty
    );
    let empty: &[i64] = &[];
    let dims = ctx.attrs().ints("dimensions").unwrap_or(empty);
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
            "broadcast dimensions must be strictly increasing"
        );
    }
    for (i, &od) in dims.iter().enumerate() {
        let (src, dst) = (a.dims[i], out.dims[od as usize]);
        ensure!(
            src == dst || src == 1,
            "broadcast.compatible_sizes",
            "operand dimension {i} has size {src}, which cannot broadcast to output dimension {od} of size {dst}"
        );
    }
    Ok(d.clone())
}
