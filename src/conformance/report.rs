//! The summary of a run: counts, one line per failure, the JSON report written by
//! `xla-spec conform --report`, and the Markdown page written by `--report-md`.
//!
//! With an expected-failures list (see `expected`) each case gets one of five verdicts: passed,
//! failed (unexpected), skipped, XFAIL (a listed case that failed) and XPASS (a listed case that
//! passed). Only unexpected failures fail the run.

use super::case::Case;
use super::expected::{Category, ExpectedFailures, Selector};
use super::runner::{Outcome, Status};
use serde_json::{Value, json};
use std::fmt::Write as _;

/// The results of one run, in case order.
pub struct Report {
    pub backend: String,
    pub entries: Vec<(String, String, Outcome)>,
    /// The expected-failures list the run was judged with (empty when none was given).
    pub expected: ExpectedFailures,
    /// Whether an expected-failures list was given (it changes the summary line).
    pub has_expected: bool,
    /// Per entry: the index of the expected-failure entry that names the case.
    pub listed: Vec<Option<usize>>,
    /// Expected-failure entries that match no case.
    pub stale: Vec<usize>,
}

/// The verdict on one case once expected failures are taken into account.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    Failed,
    Skipped,
    /// A listed case that failed, as expected.
    ExpectedFailure,
    /// A listed case that passed.
    UnexpectedPass,
}

impl Verdict {
    /// The `status` string of the JSON report. An unexpected pass is `passed` (it did pass) and is
    /// flagged separately.
    pub fn status(self) -> &'static str {
        match self {
            Verdict::Passed | Verdict::UnexpectedPass => "passed",
            Verdict::Failed => "failed",
            Verdict::Skipped => "skipped",
            Verdict::ExpectedFailure => "xfail",
        }
    }
}

impl Report {
    pub fn new(backend: String, cases: &[Case], outcomes: Vec<Outcome>) -> Report {
        let entries: Vec<_> = cases
            .iter()
            .zip(outcomes)
            .map(|(c, o)| (c.name.clone(), c.origin.to_string(), o))
            .collect();
        Report {
            backend,
            listed: vec![None; entries.len()],
            entries,
            expected: ExpectedFailures::default(),
            has_expected: false,
            stale: vec![],
        }
    }

    /// Judges the run with `expected`. `known` are the names of every case that was loaded
    /// (before `--filter`): an entry is stale only if it names none of them.
    pub fn with_expected(mut self, expected: ExpectedFailures, known: &[String]) -> Report {
        self.listed = self
            .entries
            .iter()
            .map(|(n, _, _)| expected.find(n))
            .collect();
        self.stale = expected.stale(known.iter().map(String::as_str));
        self.expected = expected;
        self.has_expected = true;
        self
    }

    pub fn verdict(&self, i: usize) -> Verdict {
        let listed = self.listed.get(i).copied().flatten().is_some();
        match (self.entries[i].2.status, listed) {
            (Status::Skipped, _) => Verdict::Skipped,
            (Status::Passed, false) => Verdict::Passed,
            (Status::Passed, true) => Verdict::UnexpectedPass,
            (Status::Failed, false) => Verdict::Failed,
            (Status::Failed, true) => Verdict::ExpectedFailure,
        }
    }

    pub fn count_verdict(&self, v: Verdict) -> usize {
        (0..self.entries.len())
            .filter(|&i| self.verdict(i) == v)
            .count()
    }

    /// Cases with the raw status `s` (ignoring expected failures).
    pub fn count(&self, s: Status) -> usize {
        self.entries.iter().filter(|e| e.2.status == s).count()
    }

    /// Failures no expected-failure entry names: these fail the run.
    pub fn unexpected_failures(&self) -> usize {
        self.count_verdict(Verdict::Failed)
    }

    /// `N passed, N failed, N skipped`, and with an expected-failures list the expected failures
    /// (with their share of the cases), unexpected passes and stale entries.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{} passed, {} failed, {} skipped",
            self.count_verdict(Verdict::Passed) + self.count_verdict(Verdict::UnexpectedPass),
            self.unexpected_failures(),
            self.count_verdict(Verdict::Skipped)
        );
        if self.has_expected {
            let x = self.count_verdict(Verdict::ExpectedFailure);
            let _ = write!(
                s,
                ", {x} expected failures ({}), {} unexpected passes, {} stale entries",
                percent(x, self.entries.len()),
                self.count_verdict(Verdict::UnexpectedPass),
                self.stale.len()
            );
        }
        s
    }

    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "backend": self.backend,
            "passed": self.count_verdict(Verdict::Passed) + self.count_verdict(Verdict::UnexpectedPass),
            "failed": self.unexpected_failures(),
            "skipped": self.count_verdict(Verdict::Skipped),
            "cases": (0..self.entries.len()).map(|i| {
                let (name, origin, o) = &self.entries[i];
                let mut c = json!({
                    "name": name,
                    "source": origin,
                    "status": self.verdict(i).status(),
                    "message": o.message,
                });
                if let Some(k) = self.listed[i] {
                    let e = &self.expected.entries[k];
                    c["expected_failure"] = json!({
                        "category": e.category.as_str(),
                        "reason": e.reason,
                    });
                    if self.verdict(i) == Verdict::UnexpectedPass {
                        c["unexpected_pass"] = json!(true);
                    }
                }
                c
            }).collect::<Vec<_>>(),
        });
        if self.has_expected {
            v["expected_failures"] = json!(self.count_verdict(Verdict::ExpectedFailure));
            v["unexpected_passes"] = json!(self.count_verdict(Verdict::UnexpectedPass));
            v["stale_entries"] = self
                .stale
                .iter()
                .map(|&k| json!(self.expected.entries[k].selector.to_string()))
                .collect();
        }
        v
    }

    /// The conformance report as a Markdown page: counts, every unexpected failure with its
    /// message, the expected failures grouped by category and reason, unexpected passes, stale
    /// entries and skipped cases.
    pub fn to_markdown(&self, title: &str) -> String {
        let n = self.entries.len();
        let by = |v: Verdict| -> Vec<usize> { (0..n).filter(|&i| self.verdict(i) == v).collect() };
        let (passed, failed, skipped, xfail, xpass) = (
            by(Verdict::Passed),
            by(Verdict::Failed),
            by(Verdict::Skipped),
            by(Verdict::ExpectedFailure),
            by(Verdict::UnexpectedPass),
        );
        let mut s = String::new();
        let _ = writeln!(s, "# {title}\n");
        let _ = writeln!(
            s,
            "<!-- Generated by `xla-spec conform --report-md`; do not edit. -->\n"
        );
        let _ = writeln!(s, "Backend: `{}`.\n", md_code(&self.backend));
        let _ = writeln!(
            s,
            "| Cases | Passed | Expected failures | Unexpected failures | Unexpected passes | Skipped |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|");
        let _ = writeln!(
            s,
            "| {n} | {} | {} ({}) | {} | {} | {} |\n",
            passed.len(),
            xfail.len(),
            percent(xfail.len(), n),
            failed.len(),
            xpass.len(),
            skipped.len()
        );
        if self.has_expected && !self.stale.is_empty() {
            let _ = writeln!(
                s,
                "{} expected-failure entr{} matched no case (listed below).\n",
                self.stale.len(),
                if self.stale.len() == 1 { "y" } else { "ies" }
            );
        }
        let _ = writeln!(s, "## Unexpected failures\n");
        if failed.is_empty() {
            let _ = writeln!(s, "None.\n");
        } else {
            for &i in &failed {
                self.case_line(&mut s, i);
            }
            s.push('\n');
        }
        let _ = writeln!(s, "## Expected failures\n");
        if xfail.is_empty() {
            let _ = writeln!(s, "None.\n");
        }
        for cat in Category::ALL {
            let in_cat: Vec<usize> = xfail
                .iter()
                .copied()
                .filter(|&i| self.entry_of(i).map(|e| e.category) == Some(cat))
                .collect();
            if in_cat.is_empty() {
                continue;
            }
            let _ = writeln!(s, "### {} ({})\n", cat.title(), in_cat.len());
            // One paragraph per entry (its reason), then the cases it covers.
            let mut keys: Vec<usize> = in_cat.iter().filter_map(|&i| self.listed[i]).collect();
            keys.dedup();
            keys.sort_unstable();
            keys.dedup();
            for k in keys {
                let e = &self.expected.entries[k];
                match &e.selector {
                    Selector::Pattern(_) => {
                        let _ = writeln!(s, "{} ({}):\n", md_text(&e.reason), e.selector);
                    }
                    _ => {
                        let _ = writeln!(s, "{}\n", md_text(&e.reason));
                    }
                }
                for &i in in_cat.iter().filter(|&&i| self.listed[i] == Some(k)) {
                    self.case_line(&mut s, i);
                }
                s.push('\n');
            }
        }
        if !xpass.is_empty() {
            let _ = writeln!(s, "## Unexpected passes\n");
            let _ = writeln!(
                s,
                "Listed as expected failures, but they passed: the entry is out of date.\n"
            );
            for &i in &xpass {
                let _ = writeln!(s, "- `{}`", md_code(&self.entries[i].0));
            }
            s.push('\n');
        }
        if !self.stale.is_empty() {
            let _ = writeln!(s, "## Stale entries\n");
            for &k in &self.stale {
                let _ = writeln!(s, "- {}", self.expected.entries[k].selector);
            }
            s.push('\n');
        }
        if !skipped.is_empty() {
            let _ = writeln!(s, "## Skipped\n");
            for &i in &skipped {
                self.case_line(&mut s, i);
            }
            s.push('\n');
        }
        while s.ends_with("\n\n") {
            s.pop();
        }
        s
    }

    fn entry_of(&self, i: usize) -> Option<&super::expected::Entry> {
        self.listed[i].map(|k| &self.expected.entries[k])
    }

    fn case_line(&self, s: &mut String, i: usize) {
        let (name, origin, o) = &self.entries[i];
        let _ = writeln!(
            s,
            "- `{}` ({}): {}",
            md_code(name),
            md_text(origin),
            md_text(&page_reason(&o.message))
        );
    }
}

fn percent(x: usize, n: usize) -> String {
    if n == 0 {
        "0%".into()
    } else {
        format!("{:.1}%", 100.0 * x as f64 / n as f64)
    }
}

/// Text safe inside a Markdown code span (no backticks) on one line.
fn md_code(s: &str) -> String {
    s.replace('`', "'").replace('\n', " ")
}

/// Text safe in a Markdown list item or table: no HTML, no stray emphasis or table bars.
fn md_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' => out.push(' '),
            '*' | '_' | '`' | '|' | '[' | ']' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A message's first two lines (a value mismatch names the first differing element on its second),
/// on one line and shortened, for the Markdown page.
fn page_reason(message: &str) -> String {
    let two: Vec<&str> = message.lines().take(2).map(str::trim).collect();
    crate::error::shorten(&two.join("; "), 240)
}

/// The first line of a message, shortened, for the one-line-per-failure listing.
pub fn short_reason(message: &str) -> String {
    crate::error::shorten(message.lines().next().unwrap_or(""), 160)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::case::Origin;
    use std::path::Path;

    fn report() -> Report {
        let names = [
            "a::ok", "a::bad", "b::xfail", "b::xpass", "c::skip", "a::bad2",
        ];
        let cases: Vec<Case> = names
            .iter()
            .map(|n| Case::malformed(n.to_string(), Origin::file(Path::new("f.json")), "x".into()))
            .collect();
        let outcomes = vec![
            Outcome::pass(""),
            Outcome::fail("value mismatch at [0]: got 1, want 2"),
            Outcome::fail("refused: no <such> op"),
            Outcome::pass(""),
            Outcome::skip("layout"),
            Outcome::fail("second"),
        ];
        let x = ExpectedFailures::parse(
            r#"[{"pattern": "b::x*", "category": "unsupported", "reason": "Not on this backend."},
                {"name": "zzz", "category": "deviates", "reason": "Gone."}]"#,
        )
        .unwrap();
        let mut known: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        known.push("d::filtered_out".into());
        Report::new("be 1.0".into(), &cases, outcomes).with_expected(x, &known)
    }

    #[test]
    fn verdicts_and_counts() {
        let r = report();
        let v: Vec<Verdict> = (0..6).map(|i| r.verdict(i)).collect();
        assert_eq!(
            v,
            [
                Verdict::Passed,
                Verdict::Failed,
                Verdict::ExpectedFailure,
                Verdict::UnexpectedPass,
                Verdict::Skipped,
                Verdict::Failed
            ]
        );
        assert_eq!(r.unexpected_failures(), 2);
        assert_eq!(r.stale, vec![1]);
        assert_eq!(
            r.summary(),
            "2 passed, 2 failed, 1 skipped, 1 expected failures (16.7%), 1 unexpected passes, 1 stale entries"
        );
        let j = r.to_json();
        assert_eq!(j["failed"], 2);
        assert_eq!(j["expected_failures"], 1);
        assert_eq!(j["cases"][2]["status"], "xfail");
        assert_eq!(j["cases"][2]["expected_failure"]["category"], "unsupported");
        assert_eq!(j["cases"][3]["status"], "passed");
        assert_eq!(j["cases"][3]["unexpected_pass"], true);
        assert_eq!(j["stale_entries"][0], "name `zzz`");
    }

    #[test]
    fn markdown_lists_failures_with_reasons() {
        let md = report().to_markdown("Report on be");
        assert!(md.starts_with("# Report on be\n"), "{md}");
        assert!(md.contains("| 6 | 1 | 1 (16.7%) | 2 | 1 | 1 |"), "{md}");
        assert!(
            md.contains("- `a::bad` (f.json): value mismatch at \\[0\\]: got 1, want 2"),
            "{md}"
        );
        assert!(md.contains("### Unsupported by the backend (1)"), "{md}");
        assert!(
            md.contains("Not on this backend. (pattern `b::x*`):"),
            "{md}"
        );
        assert!(
            md.contains("- `b::xfail` (f.json): refused: no &lt;such&gt; op"),
            "{md}"
        );
        assert!(md.contains("## Unexpected passes\n\nListed"), "{md}");
        assert!(md.contains("## Stale entries\n\n- name `zzz`"), "{md}");
        assert!(md.contains("## Skipped\n\n- `c::skip`"), "{md}");
    }

    #[test]
    fn without_a_list_the_summary_is_unchanged() {
        let cases = vec![Case::malformed(
            "x".into(),
            Origin::file(Path::new("f")),
            "m".into(),
        )];
        let r = Report::new("b".into(), &cases, vec![Outcome::fail("m")]);
        assert_eq!(r.summary(), "0 passed, 1 failed, 0 skipped");
        assert!(r.to_json().get("expected_failures").is_none());
    }
}
