//! The `xla-spec` command line. `main.rs` only forwards `std::env::args` here, so everything is
//! testable as a library. Argument parsing is hand-written (no dependency): each subcommand walks
//! its arguments once, and every problem is a one-line message with exit status 2.
//!
//! Standard output and error are written only through `out!`, `outln!`, `err!` and `errln!`
//! (clippy's `print_stdout` and `print_stderr` lints hold the module to it): `print!` and
//! `eprint!` panic when the reader has gone, as `xla-spec bench | head` leaves it, and a panic is
//! not how this command ends.

#![deny(clippy::print_stdout, clippy::print_stderr)]

// The macros precede the submodules so that these can use them.

/// `print!` that discards what a closed reader cannot take.
macro_rules! out {
    ($($t:tt)*) => { $crate::cli::write_stdout(format_args!($($t)*)) };
}

/// `println!` that discards what a closed reader cannot take.
macro_rules! outln {
    () => { $crate::cli::write_stdout(format_args!("\n")) };
    ($($t:tt)*) => { $crate::cli::write_stdout(format_args!("{}\n", format_args!($($t)*))) };
}

/// `eprint!` that discards what a closed reader cannot take.
macro_rules! err {
    ($($t:tt)*) => { $crate::cli::write_stderr(format_args!($($t)*)) };
}

/// `eprintln!` that discards what a closed reader cannot take.
macro_rules! errln {
    () => { $crate::cli::write_stderr(format_args!("\n")) };
    ($($t:tt)*) => { $crate::cli::write_stderr(format_args!("{}\n", format_args!($($t)*))) };
}

pub mod bench;
mod bench_programs;
mod book;
mod conform;
mod fuzz;
mod golden;
mod run;

use std::io::Write;

/// Writes to standard output and flushes. A reader that has gone away (`| head`) gets nothing
/// more, and the command carries on: it may still have files to write that the user asked for,
/// and its exit status must say how the work went, not whether someone read all of it.
/// Rust ignores SIGPIPE, so the write fails with `BrokenPipe` instead of killing the process; the
/// default disposition is not restored because the process backend writes to backends' pipes,
/// where a crashed backend must be a reported error, not the end of this process.
pub(crate) fn write_stdout(args: std::fmt::Arguments) {
    let mut so = std::io::stdout().lock();
    let _ = so.write_fmt(args).and_then(|_| so.flush());
}

/// Writes to standard error; as [`write_stdout`], a reader that has gone gets nothing more.
pub(crate) fn write_stderr(args: std::fmt::Arguments) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

pub const HELP: &str = "\
xla-spec: the executable specification of XLA's operation semantics

USAGE:
    xla-spec <COMMAND> [ARGS...]

COMMANDS:
    run FILE.hlo [ARG...]     evaluate a module on the reference runtime and print its result
    conform [PATH...]         run the book's examples and the golden cases against a backend
    fuzz --backend CMD        random modules on a backend and on the reference; keep disagreements
    book [--book DIR] [--out DIR]   check and render the book to target/book (offline HTML)
    mdbook-preprocess         the same checks and rewriting, as an mdbook preprocessor
    golden record FILE.hlo    write a golden case whose expected value comes from another backend
    bench [ARGS...]           measure the fast kernels against their naive oracles
    help [COMMAND]            show this help, or a command's help

Exit status: 0 success, 1 a runtime error or a failing case, 2 an invalid or malformed module,
argument or file, or a usage error.
Run `xla-spec help run`, `xla-spec help conform` or `xla-spec help book` for the options.
";

/// Runs the command line `args` (without the program name); returns the exit status.
pub fn main(args: &[String]) -> i32 {
    let Some(cmd) = args.first() else {
        err!("{HELP}");
        return 2;
    };
    let rest = &args[1..];
    match cmd.as_str() {
        "run" => run::main(rest),
        "conform" => conform::main(rest),
        "book" => book::main(rest),
        "mdbook-preprocess" => book::preprocess(rest),
        "golden" => golden::main(rest),
        "fuzz" => fuzz::main(rest),
        "bench" => bench::main(rest),
        "help" | "--help" | "-h" => {
            let text = match rest.first().map(String::as_str) {
                Some("run") => run::HELP,
                Some("conform") => conform::HELP,
                Some("book" | "mdbook-preprocess") => book::HELP,
                Some("golden") => golden::HELP,
                Some("fuzz") => fuzz::HELP,
                _ => HELP,
            };
            out!("{text}");
            0
        }
        "--version" | "-V" => {
            outln!("xla-spec {}", env!("CARGO_PKG_VERSION"));
            0
        }
        other => usage(&format!("unknown command `{other}` (try `xla-spec help`)")),
    }
}

/// Prints a usage error and returns exit status 2.
pub(crate) fn usage(msg: &str) -> i32 {
    errln!("xla-spec: {}", one_line(msg));
    2
}

/// A message on one line (error messages may embed newlines).
pub(crate) fn one_line(s: &str) -> String {
    s.split('\n')
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The value after a flag, or a usage error.
pub(crate) fn flag_value<'a>(
    it: &mut std::slice::Iter<'a, String>,
    flag: &str,
) -> Result<&'a str, String> {
    it.next()
        .map(String::as_str)
        .ok_or_else(|| format!("{flag} needs a value"))
}

/// The value after `--timeout`: a positive number of seconds (at most 10^6), or a usage error.
pub(crate) fn timeout_value(
    it: &mut std::slice::Iter<'_, String>,
    flag: &str,
) -> Result<std::time::Duration, String> {
    let v = flag_value(it, flag)?;
    v.parse()
        .ok()
        .filter(|s: &f64| *s > 0.0 && *s <= 1e6)
        .map(std::time::Duration::from_secs_f64)
        .ok_or_else(|| format!("{flag} takes a positive number of seconds, got {v:?}"))
}
