//! `xla-spec book` (render the book) and `xla-spec mdbook-preprocess` (the same checks and
//! rewriting for a stock mdbook).

use super::{flag_value, one_line, usage};
use crate::book::render::{BuildError, build};
use std::io::{Read, Write};
use std::path::PathBuf;

pub const HELP: &str = "\
xla-spec book [--book DIR] [--out DIR]

Renders the book to static HTML that needs no network: MathML for the formulas, a plain style
sheet, and an offline search page. Before anything is written, every runnable example is run on
the reference runtime and must give its stated result (the page shows what it computed), every
rule label must be defined once and every [r:label] reference must name one; the coverage and op
status pages are generated.

OPTIONS:
    --book DIR     the book (with book.toml and src/SUMMARY.md); default: book
    --out DIR      where the HTML goes; default: target/book
    -h, --help     show this help

Exit status: 0 when the book was written, 1 when a check failed (each problem is printed with its
page and line), 2 on a usage error or an unreadable book.

xla-spec mdbook-preprocess [supports RENDERER]

The same checks and rewriting as an mdbook preprocessor (configured in book/book.toml), so that
`mdbook build book` renders the same pages.
";

pub fn main(args: &[String]) -> i32 {
    let mut book = PathBuf::from("book");
    let mut out = PathBuf::from("target/book");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let r = match a.as_str() {
            "-h" | "--help" => {
                out!("{HELP}");
                return 0;
            }
            "--book" => flag_value(&mut it, a).map(|v| book = PathBuf::from(v)),
            "--out" => flag_value(&mut it, a).map(|v| out = PathBuf::from(v)),
            other => Err(format!(
                "unexpected argument `{other}` (try `xla-spec help book`)"
            )),
        };
        if let Err(e) = r {
            return usage(&e);
        }
    }
    match build(&book, &out) {
        Ok(b) => {
            outln!(
                "book: {} pages, {} examples checked, {} rule labels -> {}",
                b.pages,
                b.examples,
                b.labels,
                b.out.display()
            );
            0
        }
        Err(BuildError::Input(m)) => usage(&m),
        Err(BuildError::Check(errors)) => {
            for e in &errors {
                errln!("book: {}", one_line(e));
            }
            errln!(
                "book: {} problem(s); the book was not written",
                errors.len()
            );
            1
        }
    }
}

pub fn preprocess(args: &[String]) -> i32 {
    match args {
        [] => {}
        [s, renderer] if s == "supports" => {
            return if crate::book::mdbook::supports(renderer) {
                0
            } else {
                1
            };
        }
        _ => return usage("usage: xla-spec mdbook-preprocess [supports RENDERER]"),
    }
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        return usage(&format!("cannot read mdbook's input: {e}"));
    }
    match crate::book::mdbook::process(&input) {
        Ok(out) => {
            let mut so = std::io::stdout();
            if so
                .write_all(out.as_bytes())
                .and_then(|_| so.flush())
                .is_err()
            {
                return 1;
            }
            0
        }
        Err(errors) => {
            for e in &errors {
                errln!("xla-spec mdbook-preprocess: {}", one_line(e));
            }
            1
        }
    }
}
