//! xla-spec: an executable specification of XLA's operation semantics.
//!
//! The crate holds the reference runtime the book and the conformance suite check against:
//! - `types`, `shape`, `literal`: element types, shapes and layouts, values;
//! - `hlo`: the HLO text front end (lexer, parser, printer);
//! - `verify`: shape inference and op constraints, run before anything is evaluated;
//! - `eval`: the interpreter, one module per op family;
//! - `kernels`: fast Dot/Conv kernels, each with a naive oracle;
//! - `backend`: the `Backend` trait, the reference backend and the external-process backend;
//! - `conformance`: golden cases, book examples, tolerances, comparison and reports;
//! - `cli`: the `xla-spec` command line (`run`, `conform`, `bench`).

pub mod backend;
pub mod book;
pub mod cli;
pub mod conformance;
pub mod error;
pub mod eval;
pub mod hlo;
pub mod kernels;
pub mod literal;
pub mod shape;
pub mod syntax;
pub mod types;
pub mod verify;

pub use error::{Error, ErrorKind, Result};
pub use literal::Literal;
pub use shape::Shape;
pub use types::ElementType;
