//! The HLO text front end: the module representation (`ast`), typed attributes and ops (`attrs`,
//! `opcode`), the parser and the printer. Shape inference and constraint checking live one layer
//! up, in `crate::verify`.

pub mod ast;
pub mod attrs;
pub mod opcode;
pub mod parser;
pub mod printer;

pub use ast::{CompId, Computation, InstId, Instruction, Module};
pub use opcode::{Family, Op, Opcode};
pub use parser::{parse_literal, parse_module, parse_shape};
pub use printer::print_module;
