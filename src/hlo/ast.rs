//! The in-memory form of an HLO module: computations of instructions in definition order, operands
//! as indices into the same computation, sub-computations as indices into the module, and
//! attributes already decoded into typed values.

pub use super::attrs::{ConvDims, ExtraAttr, PadDim, SliceDim, Window, WindowDim};
use super::opcode::{MovementOp, Op, Opcode};
use crate::error::Location;
use crate::shape::Shape;

pub type CompId = usize;
pub type InstId = usize;

#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub name: String,
    /// In definition order: a computation only refers to computations before it.
    pub computations: Vec<Computation>,
    pub entry: CompId,
    pub replica_count: Option<i64>,
    pub num_partitions: Option<i64>,
    /// `entry_computation_layout={(params...)->result}` from the header, when given: the ENTRY's
    /// parameter and result shapes with the layouts the caller uses.
    pub entry_layout: Option<(Vec<Shape>, Shape)>,
    /// The replica count the verifier checked the module for: the header's `replica_count`, else
    /// the run's count (as XLA's compile options supply it), else 1. `None` until verified.
    pub verified_replicas: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Computation {
    pub name: String,
    pub instructions: Vec<Instruction>,
    pub root: InstId,
    pub loc: Location,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    pub name: String,
    /// The operation with its attributes, decoded.
    pub op: Op,
    /// The result shape: as written, or inferred by the verifier when the text omits it.
    pub shape: Shape,
    /// Whether the text stated the shape.
    pub shape_declared: bool,
    pub operands: Vec<InstId>,
    /// Attributes that do not change values (`metadata`, `sharding`, ...), kept as written so the
    /// printer can write them back.
    pub extra: Vec<ExtraAttr>,
    pub loc: Location,
}

impl Instruction {
    pub fn opcode(&self) -> Opcode {
        self.op.opcode()
    }

    /// The number of a `parameter` instruction.
    pub fn parameter_number(&self) -> Option<i64> {
        match &self.op {
            Op::Movement(MovementOp::Parameter(p)) => Some(p.number),
            _ => None,
        }
    }

    /// A generic attribute's text, if the instruction carries it.
    pub fn extra(&self, key: &str) -> Option<&str> {
        self.extra
            .iter()
            .find(|a| a.key == key)
            .map(|a| a.text.as_str())
    }
}

impl Module {
    /// How many replicas the module runs as: what it was verified for, else its header, else 1.
    pub fn replicas(&self) -> usize {
        self.verified_replicas
            .or(self.replica_count.map(|r| r as usize))
            .unwrap_or(1)
    }

    pub fn entry(&self) -> &Computation {
        &self.computations[self.entry]
    }
    pub fn computation_by_name(&self, name: &str) -> Option<CompId> {
        self.computations.iter().position(|c| c.name == name)
    }
}

impl Computation {
    pub fn root(&self) -> &Instruction {
        &self.instructions[self.root]
    }
    /// Parameter instructions ordered by parameter number (the verifier checks they are 0..n-1).
    pub fn parameters(&self) -> Vec<&Instruction> {
        let mut ps: Vec<&Instruction> = self
            .instructions
            .iter()
            .filter(|i| i.opcode() == Opcode::Parameter)
            .collect();
        ps.sort_by_key(|i| i.parameter_number().unwrap_or(i64::MAX));
        ps
    }
    pub fn parameter_shapes(&self) -> Vec<Shape> {
        self.parameters().iter().map(|i| i.shape.clone()).collect()
    }
}
