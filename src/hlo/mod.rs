//! The HLO text front end: lexer, parser, printer, and the module representation they share.
//! Shape inference and constraint checking live in `crate::verify`.

pub mod ast;
pub mod lexer;
pub mod opcode;
pub mod parser;
pub mod printer;

pub use ast::{Attr, AttrValue, Attrs, CompId, Computation, InstId, Instruction, Module};
pub use opcode::{Family, Opcode};
pub use parser::{parse_literal, parse_module, parse_shape};
pub use printer::print_module;

/// Parses and verifies a module: the one call every consumer makes before running HLO text.
pub fn parse_and_verify(src: &str) -> crate::error::Result<Module> {
    let mut m = parse_module(src)?;
    crate::verify::verify_module(&mut m, &crate::verify::Options::default())?;
    Ok(m)
}
