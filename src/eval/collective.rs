//! Replicas and collectives (to be written; see the collectives issue). The `Hub` is the
//! rendezvous all replicas of one run share.

use super::{Evaluator, not_implemented};
use crate::error::Result;
use crate::hlo::ast::Instruction;
use crate::literal::Literal;
use std::sync::atomic::{AtomicBool, Ordering};

/// The meeting point of the replicas of one run.
pub struct Hub {
    pub num_replicas: usize,
    aborted: AtomicBool,
}

impl Hub {
    pub fn new(num_replicas: usize) -> Hub {
        Hub {
            num_replicas,
            aborted: AtomicBool::new(false),
        }
    }
    /// Marks the run as failed so that replicas waiting here give up at once.
    pub fn abort(&self) {
        self.aborted.store(true, Ordering::SeqCst);
    }
    pub fn is_aborted(&self) -> bool {
        self.aborted.load(Ordering::SeqCst)
    }
}

pub fn eval(_ev: &Evaluator, inst: &Instruction, _ops: &[&Literal]) -> Result<Literal> {
    Err(not_implemented(inst.opcode))
}
