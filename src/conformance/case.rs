//! The case model shared by golden files and book examples.

use crate::literal::Literal;
use crate::shape::{ArrayShape, PaddingValue};
use std::fmt;
use std::path::{Path, PathBuf};

/// Where a case was written: a file and a 1-based line (0 when the whole file is meant).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub file: PathBuf,
    pub line: usize,
}

impl Origin {
    pub fn file(path: &Path) -> Origin {
        Origin {
            file: path.to_path_buf(),
            line: 0,
        }
    }
    pub fn at(path: &Path, line: usize) -> Origin {
        Origin {
            file: path.to_path_buf(),
            line,
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        Ok(())
    }
}

/// One conformance case: a trial of the suite.
#[derive(Clone, Debug)]
pub struct Case {
    /// The trial name: `book::<page>::<example>` or `golden::<area>::<file>[::<name>]`.
    pub name: String,
    pub origin: Origin,
    pub body: CaseBody,
}

#[derive(Clone, Debug)]
pub enum CaseBody {
    /// Run a module on a backend and judge its answer.
    Run(RunCase),
    /// Write an array to a linear buffer under a layout (no backend involved).
    Layout(LayoutCase),
    /// The case could not be read; running it fails with this message (which names file and line).
    Malformed(String),
}

impl Case {
    pub fn malformed(name: String, origin: Origin, message: String) -> Case {
        let message = format!("{origin}: {message}");
        Case {
            name,
            origin,
            body: CaseBody::Malformed(message),
        }
    }
}

/// What a module must produce.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// The ENTRY root's value, one per replica.
    Values(Vec<Literal>),
    /// The module must be refused (or fail); for the reference runtime the error message must
    /// contain this text (normally a rule label).
    Error(String),
}

/// How close a floating-point result must be. An element passes when
/// `|got - want| <= atol + rtol * |want|`, or, if `ulp` is set, when the two are at most that many
/// units in the last place apart. Infinities must match exactly and NaN must meet NaN.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Tolerance {
    pub atol: f64,
    pub rtol: f64,
    pub ulp: Option<u64>,
}

impl fmt::Display for Tolerance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "atol={} rtol={}", self.atol, self.rtol)?;
        if let Some(u) = self.ulp {
            write!(f, " ulp={u}")?;
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct RunCase {
    pub description: Option<String>,
    /// The module as HLO text.
    pub hlo: String,
    /// Arguments, one list per replica (`args.len()` is the replica count).
    pub args: Vec<Vec<Literal>>,
    pub expect: Expect,
    /// `None` means exact comparison.
    pub tolerance: Option<Tolerance>,
    pub infeed: Vec<Literal>,
    /// Values each replica's `outfeed` must write, if the case states them.
    pub expected_outfeed: Option<Vec<Vec<Literal>>>,
    /// Rule labels the case covers (informational).
    pub rules: Vec<String>,
    /// What else a conforming backend may answer where the semantics leave a choice.
    pub latitude: Latitude,
}

/// The freedom a case grants where the semantics leave a point to the implementation. `expect`
/// stays the reference runtime's own answer (the book's choice, which the reference is held to
/// exactly); every other backend may answer anything the latitude allows besides it. NaN payloads
/// and NaN signs need no latitude: they are never compared.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Latitude {
    /// A zero may come out with either sign (where the case expects `+0` or `-0`).
    pub zero_sign: bool,
    /// Only the result's shape is specified: any values of that shape pass.
    pub any_value: bool,
    /// Any outcome passes: values, a refusal, an error or a timeout (what a deadlocked program
    /// does, for example).
    pub any_outcome: bool,
    /// Other complete answers that are allowed as well, each one value per replica like
    /// `Expect::Values`.
    pub also: Vec<Vec<Literal>>,
}

impl Latitude {
    pub fn is_none(&self) -> bool {
        *self == Latitude::default()
    }

    /// The keywords of the boolean freedoms, as the book's `latitude:` line writes them.
    pub const WORDS: [&'static str; 3] = ["zero_sign", "any_value", "any_outcome"];

    /// Sets the freedom named `word`; false for an unknown word.
    pub fn set(&mut self, word: &str) -> bool {
        match word {
            "zero_sign" => self.zero_sign = true,
            "any_value" => self.any_value = true,
            "any_outcome" => self.any_outcome = true,
            _ => return false,
        }
        true
    }

    /// A short description for failure messages and reports.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = Self::WORDS
            .iter()
            .zip([self.zero_sign, self.any_value, self.any_outcome])
            .filter(|(_, on)| *on)
            .map(|(w, _)| w.to_string())
            .collect();
        if !self.also.is_empty() {
            parts.push(format!("{} other allowed answer(s)", self.also.len()));
        }
        parts.join(", ")
    }
}

/// A `layout-test` example: `values` (symbols in row-major order) written to a linear buffer with
/// `shape`'s layout, optionally padded, must read as `buffer`.
#[derive(Clone, Debug)]
pub struct LayoutCase {
    pub shape: ArrayShape,
    pub padded: Option<Vec<i64>>,
    pub padding_value: PaddingValue,
    pub values: Vec<String>,
    pub buffer: Vec<String>,
}
