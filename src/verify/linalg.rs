//! Shape inference and constraints for this op family (to be written; see the family's issue).

use super::Ctx;
use crate::error::Result;
use crate::shape::Shape;

pub fn infer(ctx: &Ctx) -> Result<Shape> {
    super::unverified(ctx)
}
