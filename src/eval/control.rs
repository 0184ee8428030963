//! Computations, control flow and side effects (to be written; see the control-flow issue).
//! The custom-call registry and the channel table are defined here.

use super::{Evaluator, not_implemented};
use crate::error::Result;
use crate::hlo::ast::Instruction;
use crate::literal::Literal;
use std::collections::HashMap;
use std::sync::Arc;

/// A custom-call target: receives the operands and the declared result shape, returns the result.
pub type CustomCallFn =
    Arc<dyn Fn(&[&Literal], &crate::shape::Shape) -> Result<Literal> + Send + Sync>;

/// Named Rust functions `custom-call` can invoke.
#[derive(Default, Clone)]
pub struct CustomCallRegistry {
    targets: HashMap<String, CustomCallFn>,
}

impl CustomCallRegistry {
    /// The registry with the targets xla-spec ships (the book's examples use them).
    pub fn with_builtins() -> CustomCallRegistry {
        CustomCallRegistry::default()
    }
    pub fn register(&mut self, name: &str, f: CustomCallFn) {
        self.targets.insert(name.to_string(), f);
    }
    pub fn get(&self, name: &str) -> Option<&CustomCallFn> {
        self.targets.get(name)
    }
}

/// Channels for send/recv between concurrently running computations.
#[derive(Default)]
pub struct Channels {}

pub fn eval(_ev: &Evaluator, inst: &Instruction, _ops: &[&Literal]) -> Result<Literal> {
    Err(not_implemented(inst.opcode))
}
