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
//! `name` matches one case exactly, `names` each of a list exactly; `pattern` is a glob (`*` any
//! run of characters, `?` one) over the whole name when it holds `*` or `?`, and otherwise a
//! substring. An entry may hold `"cpu_lacks": ["avx512bw", ...]`: it then applies only on a host
//! CPU that lacks at least one of those features (a backend whose library dies on older CPUs, as
//! XLA:CPU's oneDNN bf16 matmul does without AVX-512, passes elsewhere; an unconditional entry
//! would report it as XPASS there). The first matching entry that applies wins. A listed case
//! that fails is an expected failure (XFAIL); one that passes is reported (XPASS: the entry is
//! out of date, or the backend was fixed); an entry that matches no loaded case is reported as
//! stale. Only failures no entry names make the run fail.

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
    /// CPU features (names of `is_x86_feature_detected!`) of which the host must lack at least
    /// one for the entry to apply; empty: it applies everywhere.
    pub cpu_lacks: Vec<String>,
}

/// The CPU features an entry's `cpu_lacks` may name.
pub const CPU_FEATURES: [&str; 9] = [
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx512f",
    "avx512bw",
    "avx512dq",
    "avx512vl",
    "avx512bf16",
];

/// Whether the CPU this process runs on has `feature` (one of `CPU_FEATURES`); on other
/// architectures none of them.
pub fn host_has(feature: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match feature {
            "avx" => std::arch::is_x86_feature_detected!("avx"),
            "avx2" => std::arch::is_x86_feature_detected!("avx2"),
            "fma" => std::arch::is_x86_feature_detected!("fma"),
            "f16c" => std::arch::is_x86_feature_detected!("f16c"),
            "avx512f" => std::arch::is_x86_feature_detected!("avx512f"),
            "avx512bw" => std::arch::is_x86_feature_detected!("avx512bw"),
            "avx512dq" => std::arch::is_x86_feature_detected!("avx512dq"),
            "avx512vl" => std::arch::is_x86_feature_detected!("avx512vl"),
            "avx512bf16" => std::arch::is_x86_feature_detected!("avx512bf16"),
            _ => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = feature;
        false
    }
}

impl Entry {
    /// Whether the entry applies on a host whose features `has` reports.
    pub fn applies(&self, has: &dyn Fn(&str) -> bool) -> bool {
        self.cpu_lacks.is_empty() || self.cpu_lacks.iter().any(|f| !has(f))
    }
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

    /// The index of the first entry naming `case` that applies on this host.
    pub fn find(&self, case: &str) -> Option<usize> {
        self.find_on(case, &host_has)
    }

    /// The index of the first entry naming `case` that applies on a host whose CPU features
    /// `has` reports.
    pub fn find_on(&self, case: &str, has: &dyn Fn(&str) -> bool) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| e.selector.matches(case) && e.applies(has))
    }

    /// The entries that match none of `names` (whether or not they apply on this host: an entry
    /// for another CPU is not out of date).
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
            "name" | "names" | "pattern" | "category" | "reason" | "cpu_lacks"
        ) {
            return Err(format!(
                "unknown key \"{k}\" (allowed: name, names, pattern, category, reason, cpu_lacks)"
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
    let cpu_lacks = match o.get("cpu_lacks") {
        None => vec![],
        Some(Value::Array(a)) if !a.is_empty() => a
            .iter()
            .map(|f| match f.as_str() {
                Some(f) if CPU_FEATURES.contains(&f) => Ok(f.to_string()),
                _ => Err(format!(
                    "\"cpu_lacks\" lists CPU features, one of: {} (got {f})",
                    CPU_FEATURES.join(", ")
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("\"cpu_lacks\" must be a non-empty list of CPU features".into()),
    };
    Ok(Entry {
        selector,
        category,
        reason,
        cpu_lacks,
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
    fn cpu_conditions_select_hosts_and_are_not_stale_elsewhere() {
        let x = ExpectedFailures::parse(
            r#"[{"name": "a", "category": "deviates", "reason": "r",
                 "cpu_lacks": ["avx512f", "avx512bw"]},
                {"name": "b", "category": "deviates", "reason": "r"}]"#,
        )
        .unwrap();
        let zen3 = |f: &str| matches!(f, "avx2" | "fma");
        let skylake_x = |f: &str| f.starts_with("avx512") || matches!(f, "avx2" | "fma");
        let half = |f: &str| f == "avx512f";
        assert_eq!(x.find_on("a", &zen3), Some(0));
        assert_eq!(
            x.find_on("a", &half),
            Some(0),
            "lacking one of them is enough"
        );
        assert_eq!(x.find_on("a", &skylake_x), None);
        assert_eq!(x.find_on("b", &skylake_x), Some(1));
        assert!(x.stale(["a", "b"]).is_empty());
        for bad in [r#"["avx1024"]"#, "[]", r#""avx2""#] {
            let text = format!(
                r#"[{{"name": "a", "category": "deviates", "reason": "r", "cpu_lacks": {bad}}}]"#
            );
            let e = ExpectedFailures::parse(&text).unwrap_err();
            assert!(e.contains("cpu_lacks"), "{bad}: {e}");
        }
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
