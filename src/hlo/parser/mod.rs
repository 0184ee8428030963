//! Recursive-descent parser for HLO modules. It builds the `ast` form: names resolved to indices,
//! every attribute decoded into the typed op of its instruction. It checks syntax, name binding and
//! which attributes an op takes; shapes and op constraints are the verifier's job. Every failure is
//! an `InvalidProgram` error with rule `hlo.syntax` (or a more specific `hlo.*` rule) and a
//! position.
//!
//! The pieces: `crate::syntax` (tokens and the cursor), `crate::shape::text` and
//! `crate::literal::parse` (shapes and literals), `module` (module, computations, instructions)
//! and `raw` (attribute values).

mod module;
pub(crate) mod raw;
#[cfg(test)]
mod tests;

pub use crate::literal::parse::parse_literal;
pub use crate::shape::text::{MAX_RANK, parse_shape};
pub use crate::syntax::MAX_NESTING;
pub use raw::parse_dim_labels;

use super::ast::*;
use crate::error::Result;
use crate::syntax::{AsCursor, Cursor};
use std::collections::HashMap;

pub fn parse_module(src: &str) -> Result<Module> {
    let mut p = Parser::new(src)?;
    p.module()
}

/// The module parser: a cursor, and the computations defined so far (a computation can only
/// refer to computations defined before it).
struct Parser {
    c: Cursor,
    comps: Vec<Computation>,
    comp_names: HashMap<String, CompId>,
    anon: usize,
}

impl std::ops::Deref for Parser {
    type Target = Cursor;
    fn deref(&self) -> &Cursor {
        &self.c
    }
}

impl std::ops::DerefMut for Parser {
    fn deref_mut(&mut self) -> &mut Cursor {
        &mut self.c
    }
}

impl AsCursor for Parser {
    fn cursor(&mut self) -> &mut Cursor {
        &mut self.c
    }
}

/// Per-computation name table while its instructions are parsed.
struct Scope {
    insts: Vec<Instruction>,
    names: HashMap<String, InstId>,
    root: Option<InstId>,
}

impl Parser {
    fn new(src: &str) -> Result<Parser> {
        Ok(Parser {
            c: Cursor::new(src)?,
            comps: vec![],
            comp_names: HashMap::new(),
            anon: 0,
        })
    }
}
