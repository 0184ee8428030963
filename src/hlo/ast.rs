//! The in-memory form of an HLO module: computations of instructions in definition order, operands
//! as indices into the same computation, sub-computations as indices into the module, and
//! attributes already decoded into typed values.

use super::opcode::Opcode;
use crate::error::Location;
use crate::literal::Literal;
use crate::shape::Shape;
pub use crate::shape::window::{ConvDims, Window, WindowDim};

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
    pub opcode: Opcode,
    /// The result shape: as written, or inferred by the verifier when the text omits it.
    pub shape: Shape,
    /// Whether the text stated the shape.
    pub shape_declared: bool,
    pub operands: Vec<InstId>,
    pub attrs: Attrs,
    /// The value of a `constant`.
    pub literal: Option<Literal>,
    /// The number of a `parameter`.
    pub parameter_number: Option<i64>,
    pub loc: Location,
}

/// `[start:limit:stride]` of one dimension of a `slice`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceDim {
    pub start: i64,
    pub limit: i64,
    pub stride: i64,
}

/// `lo_hi_interior` of one dimension of a `pad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PadDim {
    pub lo: i64,
    pub hi: i64,
    pub interior: i64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    Int(i64),
    Bool(bool),
    Float(f64),
    Ints(Vec<i64>),
    IntLists(Vec<Vec<i64>>),
    Comp(CompId),
    Comps(Vec<CompId>),
    Slice(Vec<SliceDim>),
    Padding(Vec<PadDim>),
    Window(Window),
    ConvDims(ConvDims),
    Str(String),
    /// A bare identifier value: `direction=LT`, `fft_type=RFFT`, `algorithm=rng_philox`.
    Enum(String),
    Shape(Shape),
    Literal(Literal),
    /// Anything xla-spec accepts but does not interpret (`metadata={...}`, `sharding={...}`): kept
    /// as its source text so the printer can write it back.
    Opaque(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Attr {
    pub key: String,
    pub value: AttrValue,
    pub loc: Location,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Attrs(pub Vec<Attr>);

impl Attrs {
    pub fn get(&self, key: &str) -> Option<&AttrValue> {
        self.0.iter().find(|a| a.key == key).map(|a| &a.value)
    }
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
    pub fn loc(&self, key: &str) -> Option<Location> {
        self.0.iter().find(|a| a.key == key).map(|a| a.loc)
    }
    pub fn int(&self, key: &str) -> Option<i64> {
        match self.get(key) {
            Some(AttrValue::Int(v)) => Some(*v),
            _ => None,
        }
    }
    pub fn bool(&self, key: &str) -> Option<bool> {
        match self.get(key) {
            Some(AttrValue::Bool(v)) => Some(*v),
            _ => None,
        }
    }
    pub fn float(&self, key: &str) -> Option<f64> {
        match self.get(key) {
            Some(AttrValue::Float(v)) => Some(*v),
            Some(AttrValue::Int(v)) => Some(*v as f64),
            _ => None,
        }
    }
    pub fn ints(&self, key: &str) -> Option<&[i64]> {
        match self.get(key) {
            Some(AttrValue::Ints(v)) => Some(v),
            _ => None,
        }
    }
    pub fn int_lists(&self, key: &str) -> Option<&[Vec<i64>]> {
        match self.get(key) {
            Some(AttrValue::IntLists(v)) => Some(v),
            _ => None,
        }
    }
    pub fn comp(&self, key: &str) -> Option<CompId> {
        match self.get(key) {
            Some(AttrValue::Comp(c)) => Some(*c),
            _ => None,
        }
    }
    pub fn comps(&self, key: &str) -> Option<&[CompId]> {
        match self.get(key) {
            Some(AttrValue::Comps(c)) => Some(c),
            _ => None,
        }
    }
    pub fn slice(&self) -> Option<&[SliceDim]> {
        match self.get("slice") {
            Some(AttrValue::Slice(s)) => Some(s),
            _ => None,
        }
    }
    pub fn padding(&self) -> Option<&[PadDim]> {
        match self.get("padding") {
            Some(AttrValue::Padding(p)) => Some(p),
            _ => None,
        }
    }
    pub fn window(&self) -> Option<&Window> {
        match self.get("window") {
            Some(AttrValue::Window(w)) => Some(w),
            _ => None,
        }
    }
    pub fn conv_dims(&self) -> Option<&ConvDims> {
        match self.get("dim_labels") {
            Some(AttrValue::ConvDims(d)) => Some(d),
            _ => None,
        }
    }
    pub fn str(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(AttrValue::Str(s)) | Some(AttrValue::Enum(s)) => Some(s),
            _ => None,
        }
    }
    pub fn enum_value(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(AttrValue::Enum(s)) => Some(s),
            _ => None,
        }
    }
    pub fn shape(&self, key: &str) -> Option<&Shape> {
        match self.get(key) {
            Some(AttrValue::Shape(s)) => Some(s),
            _ => None,
        }
    }
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|a| a.key.as_str())
    }
}

impl Module {
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
            .filter(|i| i.opcode == Opcode::Parameter)
            .collect();
        ps.sort_by_key(|i| i.parameter_number.unwrap_or(i64::MAX));
        ps
    }
    pub fn parameter_shapes(&self) -> Vec<Shape> {
        self.parameters().iter().map(|i| i.shape.clone()).collect()
    }
}
