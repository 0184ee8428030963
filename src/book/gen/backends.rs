//! What the other backends did with each case, from the reports committed under `backends/`
//! (`backends/<dir>/report.json`, written by `xla-spec conform --report` in each adapter's
//! `run.sh`). The op status page turns them into the backend matrix, and every runnable example
//! shows its marks under its result. A backend whose report is missing is simply not shown: the
//! book never runs a backend itself.

use std::collections::HashMap;
use std::path::Path;

/// A backend the book reports on.
pub(crate) struct KnownBackend {
    /// Its directory under `backends/`.
    pub dir: &'static str,
    /// Its name in tables and marks.
    pub label: &'static str,
    /// Its report page, book-relative.
    pub report_page: &'static str,
}

pub(crate) const KNOWN: [KnownBackend; 3] = [
    KnownBackend {
        dir: "xla",
        label: "XLA:CPU",
        report_page: "conformance/xla-report.md",
    },
    KnownBackend {
        dir: "stablehlo",
        label: "StableHLO interpreter",
        report_page: "conformance/stablehlo-report.md",
    },
    KnownBackend {
        dir: "iree",
        label: "IREE",
        report_page: "conformance/iree-report.md",
    },
];

/// One case's verdict on one backend.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Mark {
    /// `passed`, `failed`, `xfail` or `skipped`.
    pub status: String,
    /// The expected failure's category (`deviates`, `unsupported`, `spec-differs`), for `xfail`.
    pub category: Option<String>,
    /// The expected failure's reason, or the failure's message.
    pub reason: Option<String>,
}

/// The reports found, in `KNOWN` order.
pub(crate) struct Reports {
    pub found: Vec<(&'static KnownBackend, String, HashMap<String, Mark>)>,
}

impl Reports {
    pub fn load(root: &Path) -> Reports {
        let found = KNOWN
            .iter()
            .filter_map(|b| {
                let path = root.join("backends").join(b.dir).join("report.json");
                let text = std::fs::read_to_string(path).ok()?;
                let (name, marks) = parse(&text)?;
                Some((b, name, marks))
            })
            .collect();
        Reports { found }
    }
}

/// A report's backend name and its cases.
pub(crate) fn parse(text: &str) -> Option<(String, HashMap<String, Mark>)> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let name = v
        .get("backend")
        .and_then(|b| b.as_str())
        .unwrap_or("")
        .to_string();
    let cases = v.get("cases")?.as_array()?;
    let marks = cases
        .iter()
        .filter_map(|c| {
            let xf = c.get("expected_failure");
            let text =
                |v: Option<&serde_json::Value>| v.and_then(|x| x.as_str()).map(str::to_string);
            Some((
                c.get("name")?.as_str()?.to_string(),
                Mark {
                    status: c.get("status")?.as_str()?.to_string(),
                    category: text(xf.and_then(|x| x.get("category"))),
                    reason: text(xf.and_then(|x| x.get("reason")))
                        .or_else(|| text(c.get("message")).filter(|m| !m.is_empty())),
                },
            ))
        })
        .collect();
    Some((name, marks))
}

/// Counts of one backend's verdicts on a set of cases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub passed: usize,
    pub failed: usize,
    /// Expected failures other than `unsupported`: the backend runs the case and answers wrong
    /// (or follows another specification).
    pub differs: usize,
    pub unsupported: usize,
    pub skipped: usize,
}

impl Tally {
    pub fn of<'a>(names: impl Iterator<Item = &'a str>, marks: &HashMap<String, Mark>) -> Tally {
        let mut t = Tally::default();
        for n in names {
            if let Some(m) = marks.get(n) {
                match (m.status.as_str(), m.category.as_deref()) {
                    ("passed", _) => t.passed += 1,
                    ("failed", _) => t.failed += 1,
                    ("xfail", Some("unsupported")) => t.unsupported += 1,
                    ("xfail", _) => t.differs += 1,
                    _ => t.skipped += 1,
                }
            }
        }
        t
    }

    pub fn run(&self) -> usize {
        self.passed + self.failed + self.differs + self.unsupported
    }

    /// `✅ 12 / ✗ 2 / – 3` style text for a table cell: passed, expected failures where the
    /// backend answers otherwise, unsupported; unexpected failures first when there are any.
    pub fn cell(&self) -> String {
        if self.run() == 0 {
            return "—".into();
        }
        let mut parts = Vec::new();
        if self.failed > 0 {
            parts.push(format!("❌ {} failing", self.failed));
        }
        parts.push(format!("{} pass", self.passed));
        if self.differs > 0 {
            parts.push(format!("{} differ", self.differs));
        }
        if self.unsupported > 0 {
            parts.push(format!("{} unsupported", self.unsupported));
        }
        parts.join(" · ")
    }
}

/// The short word for a mark under an example.
pub(crate) fn mark_word(m: &Mark) -> String {
    match (m.status.as_str(), m.category.as_deref()) {
        ("passed", _) => "✓ passes".into(),
        ("failed", _) => "✗ fails".into(),
        ("xfail", Some("unsupported")) => "– unsupported".into(),
        ("xfail", Some("spec-differs")) => "≠ another specification".into(),
        ("xfail", Some(c)) => format!("✗ {c}"),
        ("xfail", None) => "✗ expected failure".into(),
        _ => "skipped".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = r#"{"backend": "b 1.0", "cases": [
      {"name": "a", "status": "passed", "message": ""},
      {"name": "b", "status": "xfail", "message": "m",
       "expected_failure": {"category": "unsupported", "reason": "No tokens."}},
      {"name": "c", "status": "xfail", "message": "m",
       "expected_failure": {"category": "deviates", "reason": "Wrong sign."}},
      {"name": "d", "status": "failed", "message": "value mismatch"},
      {"name": "e", "status": "skipped", "message": "layout"}]}"#;

    #[test]
    fn reports_become_marks_and_tallies() {
        let (name, marks) = parse(REPORT).unwrap();
        assert_eq!(name, "b 1.0");
        assert_eq!(marks["b"].reason.as_deref(), Some("No tokens."));
        assert_eq!(marks["d"].reason.as_deref(), Some("value mismatch"));
        assert_eq!(mark_word(&marks["a"]), "✓ passes");
        assert_eq!(mark_word(&marks["b"]), "– unsupported");
        assert_eq!(mark_word(&marks["c"]), "✗ deviates");
        let t = Tally::of(["a", "b", "c", "d", "e", "missing"].into_iter(), &marks);
        assert_eq!(
            t,
            Tally {
                passed: 1,
                failed: 1,
                differs: 1,
                unsupported: 1,
                skipped: 1
            }
        );
        assert_eq!(t.cell(), "❌ 1 failing · 1 pass · 1 differ · 1 unsupported");
        assert_eq!(Tally::default().cell(), "—");
        assert!(parse("not json").is_none());
    }
}
