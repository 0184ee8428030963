//! The book: `gen` writes the generated pages and figures, `prepare` checks the book and rewrites
//! its Markdown (with `source`), `render` turns it into a static site and `mdbook` hands the same
//! Markdown to a stock mdbook.

pub mod r#gen;
pub mod mdbook;
pub mod prepare;
pub mod render;
pub mod source;
pub mod summary;
