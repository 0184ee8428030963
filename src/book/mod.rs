//! The book: `gen` writes the generated pages and figures, `prepare` checks the book (op pages
//! against `template`) and rewrites its Markdown (with `source`), `render` turns it into a static
//! site and `mdbook` hands the same Markdown to a stock mdbook.

pub mod r#gen;
pub mod highlight;
pub mod mdbook;
pub mod prepare;
pub mod render;
pub mod source;
pub mod summary;
pub mod template;

/// The opening run of a Markdown code-fence line (already trimmed): its character and length,
/// when the line starts with three or more backticks or tildes.
pub(crate) fn fence_run(t: &str) -> Option<(char, usize)> {
    t.chars()
        .next()
        .filter(|c| *c == '`' || *c == '~')
        .map(|c| (c, t.chars().take_while(|x| *x == c).count()))
        .filter(|(_, n)| *n >= 3)
}
