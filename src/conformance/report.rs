//! The summary of a run: counts, one line per failure, and the JSON report written by
//! `xla-spec conform --report`.

use super::case::Case;
use super::runner::{Outcome, Status};
use serde_json::{Value, json};

/// The results of one run, in case order.
pub struct Report {
    pub backend: String,
    pub entries: Vec<(String, String, Outcome)>,
}

impl Report {
    pub fn new(backend: String, cases: &[Case], outcomes: Vec<Outcome>) -> Report {
        Report {
            backend,
            entries: cases
                .iter()
                .zip(outcomes)
                .map(|(c, o)| (c.name.clone(), c.origin.to_string(), o))
                .collect(),
        }
    }

    pub fn count(&self, s: Status) -> usize {
        self.entries.iter().filter(|e| e.2.status == s).count()
    }

    /// `N passed, N failed, N skipped`.
    pub fn summary(&self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.count(Status::Passed),
            self.count(Status::Failed),
            self.count(Status::Skipped)
        )
    }

    pub fn to_json(&self) -> Value {
        json!({
            "backend": self.backend,
            "passed": self.count(Status::Passed),
            "failed": self.count(Status::Failed),
            "skipped": self.count(Status::Skipped),
            "cases": self.entries.iter().map(|(name, origin, o)| json!({
                "name": name,
                "source": origin,
                "status": o.status.as_str(),
                "message": o.message,
            })).collect::<Vec<_>>(),
        })
    }
}

/// The first line of a message, shortened, for the one-line-per-failure listing.
pub fn short_reason(message: &str) -> String {
    let first = message.lines().next().unwrap_or("");
    if first.chars().count() > 160 {
        format!("{}...", first.chars().take(160).collect::<String>())
    } else {
        first.to_string()
    }
}
