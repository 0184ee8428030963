//! Expected failures: a backend's list of cases it is known to fail, each with a reason, so that a
//! run against that backend fails only on something new (`xla-spec conform --expected-failures`).
//!
//! The file is JSON, usable by any backend:
//!
//! ```json
//! {"expected_failures": [
//!   {"name": "golden::numerics::fft::rfft_len1", "category": "deviates",
//!    "reason": "One sentence saying why."},
//!   {"pattern": "golden::collective::*::token_*", "category": "unsupported", "reason": "..."}
//! ]}
//! ```
//!
//! `name` matches one case exactly, `names` each of a list exactly; `pattern` is a glob (`*` any run of characters, `?` one) over
//! the whole name when it holds `*` or `?`, and otherwise a substring. The first matching entry
//! wins. A listed case that fails is an expected failure (XFAIL); one that passes is reported
//! (XPASS: the entry is out of date, or the backend was fixed); an entry that matches no loaded case
//! is reported as stale. Only failures no entry names make the run fail.

use serde_json::Value;
use std::fmt;

/// Why a backend is allowed to fail a case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// The backend deviates from its own documented semantics (its bug, not ours).
    Deviates,
    /// The backend follows a different specification on purpose (StableHLO defines `maximum` on
    /// complex numbers, which XLA refuses). A point the semantics leave open is not a category:
    /// the case states its latitude instead, so no backend needs an expected failure for it.
    SpecDiffers,
    /// The backend does not support the op or feature at all (it refuses or cannot run it).
    Unsupported,
}

impl Category {
    pub const ALL: [Category; 3] = [
        Category::Deviates,
        Category::SpecDiffers,
        Category::Unsupported,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Deviates => "deviates",
            Category::SpecDiffers => "spec-differs",
            Category::Unsupported => "unsupported",
        }
    }

    /// A heading for reports.
    pub fn title(self) -> &'static str {
        match self {
            Category::Deviates => "The backend deviates from its documented semantics",
            Category::SpecDiffers => "The backend follows a different specification",
            Category::Unsupported => "Unsupported by the backend",
        }
    }

    fn parse(s: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How an entry selects cases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    Name(String),
    /// Several cases by exact name, sharing one reason.
    Names(Vec<String>),
    Pattern(String),
}

impl Selector {
    pub fn matches(&self, case: &str) -> bool {
        match self {
            Selector::Name(n) => n == case,
            Selector::Names(ns) => ns.iter().any(|n| n == case),
            Selector::Pattern(p) if p.contains(['*', '?']) => glob(p.as_bytes(), case.as_bytes()),
            Selector::Pattern(p) => case.contains(p.as_str()),
        }
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Selector::Name(n) => write!(f, "name `{n}`"),
            Selector::Names(ns) if ns.len() == 1 => write!(f, "name `{}`", ns[0]),
            Selector::Names(ns) => write!(f, "{} names", ns.len()),
            Selector::Pattern(p) => write!(f, "pattern `{p}`"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub selector: Selector,
    pub category: Category,
    pub reason: String,
}

/// A parsed expected-failures file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExpectedFailures {
    pub entries: Vec<Entry>,
}

impl ExpectedFailures {
    /// Reads the file's text: `{"expected_failures": [...]}` or a bare list of entries. Every
    /// problem is an error naming the entry.
    pub fn parse(text: &str) -> Result<ExpectedFailures, String> {
        let v: Value = serde_json::from_str(text)
            .map_err(|e| format!("malformed JSON at line {}: {e}", e.line()))?;
        let list = match &v {
            Value::Array(a) => a,
            Value::Object(o) => o
                .get("expected_failures")
                .and_then(Value::as_array)
                .ok_or("expected {\"expected_failures\": [...]} or a list of entries")?,
            _ => return Err("expected {\"expected_failures\": [...]} or a list of entries".into()),
        };
        let mut entries = Vec::with_capacity(list.len());
        for (i, e) in list.iter().enumerate() {
            entries.push(parse_entry(e).map_err(|m| format!("entry {i}: {m}"))?);
        }
        Ok(ExpectedFailures { entries })
    }

    /// The index of the first entry naming `case`.
    pub fn find(&self, case: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.selector.matches(case))
    }

    /// The entries that match none of `names`.
    pub fn stale<'a>(&self, names: impl IntoIterator<Item = &'a str> + Clone) -> Vec<usize> {
        (0..self.entries.len())
            .filter(|&i| {
                !names
                    .clone()
                    .into_iter()
                    .any(|n| self.entries[i].selector.matches(n))
            })
            .collect()
    }
}

fn parse_entry(e: &Value) -> Result<Entry, String> {
    let o = e.as_object().ok_or("an entry must be a JSON object")?;
    for k in o.keys() {
        if !matches!(
            k.as_str(),
            "name" | "names" | "pattern" | "category" | "reason"
        ) {
            return Err(format!(
                "unknown key \"{k}\" (allowed: name, names, pattern, category, reason)"
            ));
        }
    }
    let text = |k: &str| -> Result<Option<String>, String> {
        match o.get(k) {
            None => Ok(None),
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
            Some(_) => Err(format!("\"{k}\" must be a non-empty string")),
        }
    };
    let names = match o.get("names") {
        None => None,
        Some(Value::Array(a)) if !a.is_empty() => Some(
            a.iter()
                .map(|n| {
                    n.as_str()
                        .filter(|s| !s.trim().is_empty())
                        .map(str::to_string)
                        .ok_or("\"names\" must list non-empty strings")
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(_) => return Err("\"names\" must be a non-empty list of case names".into()),
    };
    let selector = match (text("name")?, names, text("pattern")?) {
        (Some(n), None, None) => Selector::Name(n),
        (None, Some(ns), None) => Selector::Names(ns),
        (None, None, Some(p)) => Selector::Pattern(p),
        _ => {
            return Err("an entry has exactly one of \"name\", \"names\" and \"pattern\"".into());
        }
    };
    let cat = text("category")?.ok_or("an entry needs a \"category\"")?;
    let category = Category::parse(&cat).ok_or_else(|| {
        let hint = if cat == "implementation-defined" {
            "; where the semantics leave a choice, the case states its latitude (the book's \
             \"Comparison, tolerances and latitude\") and no expected failure is needed"
        } else {
            ""
        };
        format!(
            "unknown category {cat:?} (one of: {}){hint}",
            Category::ALL.map(Category::as_str).join(", ")
        )
    })?;
    let reason = text("reason")?.ok_or("an entry needs a \"reason\" (a sentence)")?;
    Ok(Entry {
        selector,
        category,
        reason,
    })
}

/// Glob match of a whole string: `*` is any run of bytes, `?` exactly one.
fn glob(p: &[u8], s: &[u8]) -> bool {
    // Iterative with one backtrack point: linear enough for case names.
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() && (p[pi] == b'?' || p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, si));
            pi += 1;
        } else if let Some((sp, ss)) = star {
            pi = sp + 1;
            si = ss + 1;
            star = Some((sp, ss + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"{"expected_failures": [
      {"name": "golden::a::exact", "category": "deviates", "reason": "A bug."},
      {"pattern": "golden::b::*::tok?n", "category": "unsupported", "reason": "No tokens."},
      {"pattern": "fft", "category": "spec-differs", "reason": "Another spec."},
      {"name": "golden::gone", "category": "deviates", "reason": "Was fixed."},
      {"names": ["book::x", "book::y"], "category": "deviates", "reason": "Two at once."}
    ]}"#;

    #[test]
    fn names_globs_and_substrings() {
        let x = ExpectedFailures::parse(FILE).unwrap();
        assert_eq!(x.entries.len(), 5);
        assert_eq!(x.find("book::y"), Some(4));
        assert_eq!(x.find("book::x::z"), None);
        assert_eq!(x.find("golden::a::exact"), Some(0));
        assert_eq!(x.find("golden::a::exact2"), None);
        assert_eq!(x.find("golden::b::f::token"), Some(1));
        assert_eq!(x.find("golden::b::f::g::token"), Some(1));
        assert_eq!(x.find("golden::b::f::tokens"), None);
        assert_eq!(x.find("golden::numerics::fft::x"), Some(2));
        assert_eq!(x.entries[2].category, Category::SpecDiffers);
        let names = [
            "golden::a::exact",
            "golden::b::x::tokan",
            "book::fft",
            "book::x",
        ];
        assert_eq!(x.stale(names), vec![3]);
    }

    #[test]
    fn glob_edge_cases() {
        assert!(glob(b"*", b""));
        assert!(glob(b"a*b*c", b"axxbyyc"));
        assert!(!glob(b"a*b*c", b"axxbyy"));
        assert!(glob(b"*::x", b"a::b::x"));
        assert!(!glob(b"?", b""));
    }

    #[test]
    fn bad_entries_are_named() {
        let bad = [
            (
                r#"[{"category": "deviates", "reason": "r"}]"#,
                "exactly one",
            ),
            (
                r#"[{"name": "a", "pattern": "b", "category": "deviates", "reason": "r"}]"#,
                "exactly one",
            ),
            (
                r#"[{"name": "a", "category": "oops", "reason": "r"}]"#,
                "unknown category",
            ),
            (
                r#"[{"name": "a", "category": "implementation-defined", "reason": "r"}]"#,
                "states its latitude",
            ),
            (r#"[{"name": "a", "category": "deviates"}]"#, "\"reason\""),
            (
                r#"[{"name": "a", "category": "deviates", "reason": "r", "x": 1}]"#,
                "unknown key",
            ),
            (r#"{"cases": []}"#, "expected_failures"),
            ("{", "malformed JSON"),
        ];
        for (text, want) in bad {
            let e = ExpectedFailures::parse(text).unwrap_err();
            assert!(e.contains(want), "{text}: {e}");
        }
        let e =
            ExpectedFailures::parse(r#"[{"name": "a", "category": "deviates", "reason": "r"}, 3]"#)
                .unwrap_err();
        assert!(e.starts_with("entry 1:"), "{e}");
    }
}
