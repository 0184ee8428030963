//! Shape inference for element-wise ops (only add and multiply so far; the family's issue adds
//! the rest).

use super::{Ctx, same_dims};
use crate::ensure;
use crate::error::{Error, Result};
use crate::hlo::opcode::Opcode;
use crate::shape::Shape;

pub fn infer(ctx: &Ctx) -> Result<Shape> {
    match ctx.op() {
        Opcode::Add | Opcode::Multiply => {
            ctx.arity(2)?;
            let (a, b) = (ctx.array(0)?, ctx.array(1)?);
            ensure!(
                a.same_dims_and_type(b),
                "elementwise.same_shape",
                "operands of `{}` must have the same shape, got {a} and {b}",
                ctx.op()
            );
            ensure!(
                !a.ty.is_pred(),
                "elementwise.numeric",
                "`{}` is not defined on pred",
                ctx.op()
            );
            Ok(same_dims(a, a.ty))
        }
        op => Err(Error::invalid(
            "hlo.unsupported",
            format!("xla-spec cannot verify `{op}` yet"),
        )),
    }
}
