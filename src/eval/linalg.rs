//! Evaluation for this op family (to be written; see the family's issue).

use super::{Evaluator, not_implemented};
use crate::error::Result;
use crate::hlo::ast::Instruction;
use crate::literal::Literal;

pub fn eval(_ev: &Evaluator, inst: &Instruction, _ops: &[&Literal]) -> Result<Literal> {
    Err(not_implemented(inst.opcode))
}
