//! The book: rendering lives beside `gen`, which writes the generated pages and figures.

pub mod r#gen;
