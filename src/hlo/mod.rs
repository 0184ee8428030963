//! The HLO text front end: the module representation (`ast`), typed attributes and ops (`attrs`,
//! `opcode`), the parser and the printer. Nothing here checks shapes or constraints: that is the
//! next layer's work, built on these types.

pub mod ast;
pub mod attrs;
pub mod opcode;
pub mod parser;
pub mod printer;

pub use ast::{CompId, Computation, InstId, Instruction, Module};
pub use opcode::{Family, Op, Opcode};
pub use parser::{parse_literal, parse_module, parse_shape};
pub use printer::print_module;
