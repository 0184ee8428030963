//! The checks and transformations every build goes through, whichever renderer follows: generated
//! pages are put in, rule labels are checked (defined once, every reference resolves), every
//! runnable example is run on the reference runtime (a wrong one fails the build), and each page
//! is rewritten by `source` (anchors, links, MathML, computed results) and `gen` (figures).

use super::source::{self, Computed};
use crate::backend::{Backend, ReferenceBackend, Request, Response};
use crate::conformance::{Case, CaseBody, Expect, Status, run_case};
use std::collections::BTreeMap;
use std::path::Path;

/// The book after preparation: each page's Markdown, ready for a Markdown renderer.
pub struct Prepared {
    /// Book-relative path (`ops/movement/pad.md`) → prepared Markdown.
    pub pages: BTreeMap<String, String>,
    /// Examples run (all passed).
    pub examples: usize,
    /// Rule labels defined.
    pub labels: usize,
    /// Paths of the generated pages.
    pub generated: Vec<String>,
}

/// A reference backend that keeps the last answer, so that one evaluation both judges an example
/// and shows its result.
struct Recording {
    inner: ReferenceBackend,
    last: Option<Response>,
}

impl Backend for Recording {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn execute(&mut self, req: &Request) -> crate::Result<Response> {
        let r = self.inner.execute(req);
        self.last = r.as_ref().ok().cloned();
        r
    }
    fn is_reference(&self) -> bool {
        true
    }
}

/// The trial-name prefix of a page's examples: `book::ops::movement::pad`.
fn page_prefix(path: &str) -> String {
    format!("book::{}", path.trim_end_matches(".md").replace('/', "::"))
}

/// Runs one example; `Ok` holds what to show under it, `Err` why it fails the build.
fn run_example(case: &Case) -> Result<Computed, String> {
    let mut b = Recording {
        inner: ReferenceBackend::default(),
        last: None,
    };
    let outcome = run_case(case, &mut b);
    if outcome.status != Status::Passed {
        return Err(outcome.message);
    }
    Ok(match &case.body {
        CaseBody::Layout(lc) => Computed {
            heading: "Written by the reference runtime (the buffer above, checked):".into(),
            body: lc.buffer.join(" "),
            marks: vec![],
        },
        CaseBody::Run(rc) => match (&rc.expect, b.last) {
            (Expect::Error(_), _) => Computed {
                heading: "Refused by the reference runtime, as stated:".into(),
                body: outcome
                    .message
                    .strip_prefix("refused: ")
                    .unwrap_or(&outcome.message)
                    .to_string(),
                marks: vec![],
            },
            (Expect::Values(_), Some(resp)) => {
                let multi = resp.results.len() > 1;
                let mut lines = Vec::new();
                for (k, r) in resp.results.iter().enumerate() {
                    let v = if multi {
                        format!("replica {k}: {r}")
                    } else {
                        r.to_string()
                    };
                    lines.push(v);
                    if let Some(o) = resp.outfeed.get(k).filter(|o| !o.is_empty()) {
                        let o: Vec<String> = o.iter().map(|l| l.to_string()).collect();
                        lines.push(format!("outfeed: {}", o.join("; ")));
                    }
                }
                Computed {
                    heading: "Computed by the reference runtime (matches the expected value):"
                        .into(),
                    body: lines.join("\n"),
                    marks: vec![],
                }
            }
            (Expect::Values(_), None) => {
                return Err("the example passed without producing a value".into());
            }
        },
        CaseBody::Malformed(m) => return Err(m.clone()),
    })
}

/// The marks of one example on every backend with a committed report.
fn backend_marks(
    reports: &super::r#gen::BackendReports,
    name: &str,
) -> Vec<(String, String, Option<String>)> {
    reports
        .found
        .iter()
        .map(|(b, _, marks)| match marks.get(name) {
            Some(m) => (
                b.label.to_string(),
                super::r#gen::mark_word(m),
                (m.status != "passed").then(|| m.reason.clone()).flatten(),
            ),
            None => (
                b.label.to_string(),
                "not in its report yet".to_string(),
                None,
            ),
        })
        .collect()
}

/// Prepares every page of `sources` (book-relative path → Markdown, generated placeholders
/// included). `root` is the repository (the book is `root/book`), `src_dir` the directory the
/// page paths are relative to (used in messages). Errors: one line each, naming page and line.
pub fn prepare(
    root: &Path,
    src_dir: &Path,
    mut sources: BTreeMap<String, String>,
) -> Result<Prepared, Vec<String>> {
    let mut errors = Vec::new();
    let generated = super::r#gen::generated_pages(root).map_err(|e| vec![e.to_string()])?;
    let generated_paths: Vec<String> = generated.iter().map(|(p, _)| p.clone()).collect();
    for (p, text) in generated {
        sources.insert(p, text);
    }

    // Labels: each defined once.
    let mut label_pages: BTreeMap<String, String> = BTreeMap::new();
    let mut label_lines: BTreeMap<String, usize> = BTreeMap::new();
    for (path, text) in &sources {
        for (l, line) in super::r#gen::labels_of(text) {
            if let Some(first) = label_pages.get(&l) {
                errors.push(format!(
                    "{path}:{line}: the label r[{l}] is already defined at {first}:{}",
                    label_lines[&l]
                ));
            } else {
                label_pages.insert(l.clone(), path.clone());
                label_lines.insert(l, line);
            }
        }
    }

    // Op pages: one template, so every op reads the same way.
    for (path, text) in &sources {
        if !generated_paths.contains(path) && super::template::is_op_page(path) {
            errors.extend(super::template::check(path, text));
        }
    }

    // Examples: run them all (in parallel), keep what each computed.
    let mut cases: Vec<(String, Case)> = Vec::new();
    for (path, text) in &sources {
        if generated_paths.contains(path) {
            continue;
        }
        for c in crate::conformance::book::load_text(&page_prefix(path), &src_dir.join(path), text)
        {
            cases.push((path.clone(), c));
        }
    }
    let results: Vec<Result<Computed, String>> = {
        use rayon::prelude::*;
        cases.par_iter().map(|(_, c)| run_example(c)).collect()
    };
    let reports = super::r#gen::BackendReports::load(root);
    let mut computed: BTreeMap<&str, BTreeMap<String, Computed>> = BTreeMap::new();
    for ((path, case), r) in cases.iter().zip(results) {
        let r = r.map(|mut c| {
            if matches!(case.body, CaseBody::Run(_)) {
                c.marks = backend_marks(&reports, &case.name);
            }
            c
        });
        let short = case
            .name
            .strip_prefix(&format!("{}::", page_prefix(path)))
            .unwrap_or(&case.name)
            .to_string();
        match r {
            Ok(c) => {
                computed.entry(path).or_default().insert(short, c);
            }
            Err(m) => errors.push(format!(
                "{}: example `{short}` of {path} fails: {}",
                case.origin,
                m.replace('\n', " | ")
            )),
        }
    }

    // LaTeX and references are checked on the page as written, so that lines are the author's.
    for (path, text) in &sources {
        if let Err(es) = source::math_and_references(path, text, &label_pages) {
            errors.extend(es);
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }

    let mut pages = BTreeMap::new();
    for (path, text) in &sources {
        let text = match super::r#gen::expand_perf_records(root, path, text)
            .and_then(|t| super::r#gen::expand_figures(path, &t))
        {
            Ok(t) => t,
            Err(e) => {
                errors.push(format!("{path}: {e}"));
                continue;
            }
        };
        let text = match computed.get(path.as_str()) {
            Some(c) => source::insert_computed(&text, c),
            None => text,
        };
        let text = source::label_anchors(&text);
        match source::math_and_references(path, &text, &label_pages) {
            Ok(t) => {
                pages.insert(path.clone(), t);
            }
            Err(es) => errors.extend(es),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Prepared {
        pages,
        examples: cases.len(),
        labels: label_pages.len(),
        generated: generated_paths,
    })
}

/// Every `.md` file under `src_dir` except `SUMMARY.md`, as book-relative path → text.
pub fn read_sources(src_dir: &Path) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src_dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let rd = std::fs::read_dir(&dir)
            .map_err(|e| format!("cannot read directory {}: {e}", dir.display()))?;
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().and_then(|x| x.to_str()) == Some("md") {
                let rel = rel_path(&p, src_dir);
                if rel == "SUMMARY.md" {
                    continue;
                }
                let text = std::fs::read_to_string(&p)
                    .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
                out.insert(rel, text);
            }
        }
    }
    Ok(out)
}

/// `base`-relative path with `/` separators.
pub fn rel_path(p: &Path, base: &Path) -> String {
    p.strip_prefix(base)
        .unwrap_or(p)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}
