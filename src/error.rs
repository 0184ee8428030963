//! Typed errors. Every error says which of three things went wrong:
//! - `InvalidProgram`: the module (or an argument) is malformed or breaks an op's constraint. The
//!   verifier reports these before anything runs; they carry the instruction, its position and the
//!   rule label (e.g. `slice.limit_in_range`) that the book defines.
//! - `Runtime`: a verified module failed while running (empty infeed, loop budget exhausted,
//!   collective deadlock, unknown custom-call target).
//! - `Internal`: a bug in xla-spec itself; a verified module should never produce one.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    InvalidProgram,
    Runtime,
    Internal,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Location {
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    pub kind: ErrorKind,
    /// The rule broken, as labelled in the book (`slice.limit_in_range`, `hlo.syntax`).
    pub rule: Option<String>,
    /// The instruction (or computation) the error is about.
    pub instruction: Option<String>,
    pub location: Option<Location>,
    pub message: String,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            rule: None,
            instruction: None,
            location: None,
            message: message.into(),
        }
    }
    pub fn invalid(rule: &str, message: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidProgram, message).with_rule(rule)
    }
    pub fn runtime(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Runtime, message)
    }
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Internal, message)
    }
    pub fn with_rule(mut self, rule: &str) -> Error {
        self.rule = Some(rule.to_string());
        self
    }
    /// Attaches the instruction name and position, keeping any already attached (the innermost
    /// context is the most precise).
    pub fn at(mut self, instruction: &str, location: Location) -> Error {
        if self.instruction.is_none() {
            self.instruction = Some(instruction.to_string());
        }
        if self.location.is_none() {
            self.location = Some(location);
        }
        self
    }
    pub fn at_location(mut self, location: Location) -> Error {
        if self.location.is_none() {
            self.location = Some(location);
        }
        self
    }
    pub fn is_invalid_program(&self) -> bool {
        self.kind == ErrorKind::InvalidProgram
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            ErrorKind::InvalidProgram => "invalid program",
            ErrorKind::Runtime => "runtime error",
            ErrorKind::Internal => "internal error (a bug in xla-spec)",
        };
        write!(f, "{kind}")?;
        if let Some(l) = &self.location {
            write!(f, " at {l}")?;
        }
        if let Some(i) = &self.instruction {
            write!(f, " in `{i}`")?;
        }
        if let Some(r) = &self.rule {
            write!(f, " [{r}]")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for Error {}

/// Shorthand for returning an invalid-program error with a rule label.
#[macro_export]
macro_rules! invalid {
    ($rule:expr, $($arg:tt)*) => {
        return Err($crate::error::Error::invalid($rule, format!($($arg)*)))
    };
}

/// Checks a condition and returns an invalid-program error with a rule label when it fails.
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $rule:expr, $($arg:tt)*) => {
        if !$cond {
            return Err($crate::error::Error::invalid($rule, format!($($arg)*)));
        }
    };
}

/// `text` cut to at most `max_chars` characters, with `...` appended when something was cut. It
/// counts characters, not bytes, so text from a backend or a golden file is never split inside a
/// multi-byte character.
pub fn shorten(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::shorten;

    #[test]
    fn shorten_counts_characters_and_never_splits_one() {
        assert_eq!(shorten("abc", 3), "abc");
        assert_eq!(shorten("abcd", 3), "abc...");
        // Each of these is three bytes; a byte cut at 4 would split the second.
        assert_eq!(shorten("αβγδ", 2), "αβ...");
        assert_eq!(shorten("日本語テキスト", 3), "日本語...");
        assert_eq!(shorten("", 0), "");
        assert_eq!(shorten("x", 0), "...");
    }
}
