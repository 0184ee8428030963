//! The generated parts of the book: the rule-coverage page, the op status page (with the backend
//! matrix), the backend marks under examples and the SVG figures drawn from examples.
//!
//! `generated_pages` scans the sources once (every page's rule labels and runnable examples, the
//! golden cases, the test sources) into a `Corpus` and writes `reference/coverage.md` and
//! `reference/status.md` from it. `expand_figures` replaces each ```` ```figure <kind> ```` fence
//! of a page by an inline `<svg>` drawn from the page's own example (see `figures`), and
//! `expand_perf_records` each ```` ```perf-record ```` fence by a measurement record's machine,
//! table and plot (see `perf`), and each ```` ```perf-status ```` fence by the table of where the
//! speed targets stand on one machine (see `perf_status`).

mod backends;
mod coverage;
mod figures;
mod perf;
mod perf_status;
mod status;
mod svg;

use crate::conformance::{Case, CaseBody, Expect};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(crate) use backends::{Reports as BackendReports, mark_word};
pub use figures::expand_figures;
pub use perf::expand_perf_records;

/// The generated pages, as (book-relative path, Markdown).
pub fn generated_pages(root: &Path) -> crate::Result<Vec<(String, String)>> {
    let corpus = Corpus::load(root)?;
    Ok(vec![
        (
            "reference/coverage.md".to_string(),
            coverage::page(&corpus)?,
        ),
        (
            "reference/status.md".to_string(),
            status::page(root, &corpus)?,
        ),
    ])
}

/// The anchor a rule label gets on its page (the renderer's anchor `id` is the label itself).
pub fn label_anchor(label: &str) -> String {
    label.to_string()
}

/// One Markdown page of `book/src`.
pub(crate) struct Page {
    /// Book-relative path with `/`: `ops/movement/pad.md`.
    pub path: String,
    pub text: String,
    /// The rule labels it defines, with their 1-based lines.
    pub labels: Vec<(String, usize)>,
    /// Its runnable examples (named `book::<page>::<example>`).
    pub cases: Vec<Case>,
}

/// Everything the generated pages are computed from.
pub(crate) struct Corpus {
    pub pages: Vec<Page>,
    pub golden: Vec<Case>,
    /// Test sources (repository-relative path, the text that counts as test code).
    pub tests: Vec<(String, String)>,
}

impl Corpus {
    pub fn load(root: &Path) -> crate::Result<Corpus> {
        let src = root.join("book").join("src");
        let mut files = Vec::new();
        walk(&src, "md", &mut files);
        let mut pages = Vec::new();
        for f in files {
            let rel = rel_path(&f, &src);
            // The generated pages themselves are placeholders in the sources.
            if rel.starts_with("reference/") {
                continue;
            }
            let text = read(&f)?;
            let page = format!(
                "book::{}",
                crate::conformance::relative_name(&f, &src, &["book", "src"])
            );
            let cases = crate::conformance::book::load_text(&page, &f, &text);
            pages.push(Page {
                labels: labels_of(&text),
                path: rel,
                text,
                cases,
            });
        }
        let golden = crate::conformance::load_path(&root.join("golden"));
        let mut tests = Vec::new();
        for dir in ["src", "tests", "spec-tests"] {
            let mut files = Vec::new();
            walk(&root.join(dir), "rs", &mut files);
            for f in files {
                let rel = rel_path(&f, root);
                // This module names labels in its own tests; that covers nothing.
                if rel.starts_with("src/book/gen/") {
                    continue;
                }
                let text = read(&f)?;
                let test_text = if dir == "src" && !rel.ends_with("/tests.rs") {
                    // In the library only unit tests count, not the verifier that raises the error.
                    match text.find("#[cfg(test)]") {
                        Some(i) => text[i..].to_string(),
                        None => continue,
                    }
                } else {
                    text
                };
                tests.push((rel, test_text));
            }
        }
        Ok(Corpus {
            pages,
            golden,
            tests,
        })
    }

    /// Every label with the page defining it (the first, if defined twice).
    pub fn label_pages(&self) -> BTreeMap<&str, &Page> {
        let mut out = BTreeMap::new();
        for p in &self.pages {
            for (l, _) in &p.labels {
                out.entry(l.as_str()).or_insert(p);
            }
        }
        out
    }

    pub fn page(&self, path: &str) -> Option<&Page> {
        self.pages.iter().find(|p| p.path == path)
    }
}

fn read(f: &Path) -> crate::Result<String> {
    std::fs::read_to_string(f)
        .map_err(|e| crate::Error::runtime(format!("cannot read {}: {e}", f.display())))
}

fn rel_path(f: &Path, base: &Path) -> String {
    f.strip_prefix(base)
        .unwrap_or(f)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Files under `dir` with extension `ext`, sorted (a missing directory yields none).
fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, ext, out);
        } else if p.extension().and_then(|e| e.to_str()) == Some(ext) {
            out.push(p);
        }
    }
}

/// The labels a page defines: lines `r[label]` outside code fences.
pub(crate) fn labels_of(text: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for (i, raw) in text.lines().enumerate() {
        let t = raw.trim();
        if let Some((c, n)) = crate::book::fence_run(t) {
            match fence {
                None => fence = Some((c, n)),
                Some((fc, fnn)) if fc == c && n >= fnn && t[n..].trim().is_empty() => fence = None,
                _ => {}
            }
            continue;
        }
        if fence.is_some() {
            continue;
        }
        if let Some(l) = t.strip_prefix("r[").and_then(|r| r.strip_suffix(']'))
            && is_label(l)
        {
            out.push((l.to_string(), i + 1));
        }
    }
    out
}

/// `<op>.<rule>`: lower-case letters, digits, `-` and `_`, one or more dots.
pub(crate) fn is_label(s: &str) -> bool {
    s.contains('.')
        && !s.starts_with('.')
        && !s.ends_with('.')
        && s.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_' | b'.')
        })
}

/// The label-like words of a text (maximal runs of label characters, trailing dots dropped).
pub(crate) fn label_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| {
        !(c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.'))
    })
    .map(|w| w.trim_end_matches(['.', '-']))
    .filter(|w| is_label(w))
}

/// The labels a case names: its `rules` and the labels in its `expected_error`.
pub(crate) fn case_labels(c: &Case) -> Vec<String> {
    let CaseBody::Run(rc) = &c.body else {
        return vec![];
    };
    let mut out = rc.rules.clone();
    if let Expect::Error(e) = &rc.expect {
        out.extend(label_words(e).map(str::to_string));
    }
    out.sort();
    out.dedup();
    out
}

/// The HLO text of a runnable case.
pub(crate) fn case_hlo(c: &Case) -> Option<&str> {
    match &c.body {
        CaseBody::Run(rc) => Some(&rc.hlo),
        _ => None,
    }
}

/// A relative link from a page under `reference/` to a book page.
pub(crate) fn link_from_reference(path: &str) -> String {
    format!("../{path}")
}

/// Escapes text for a Markdown table cell.
pub(crate) fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests;
