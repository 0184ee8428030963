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
