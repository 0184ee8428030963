//! The conformance model: what a test case is (`case`), where cases come from (golden JSON files in
//! `golden`, runnable examples fenced in the book's Markdown in `book`), how a backend's answer is
//! judged (`compare`), how one case runs (`runner`), which failures a backend is known to have
//! (`expected`), how a run is summarised (`report`) and how failures are written out (`keep`).
//!
//! Loading never aborts: a malformed file or fence becomes a case whose body is
//! `CaseBody::Malformed`, which fails as a trial with a message naming the file and line, so one
//! broken example cannot hide the others.

pub mod book;
pub mod case;
pub mod compare;
pub mod expected;
pub mod fuzz;
pub mod golden;
pub mod keep;
pub mod report;
pub mod runner;

pub use case::{Case, CaseBody, Expect, LayoutCase, Origin, RunCase, Tolerance};
pub use compare::compare;
pub use report::Report;
pub use runner::{Outcome, Status, run_case};

use std::path::Path;

/// Loads every case under `path`: a `.md` file yields its book examples, a `.json` file its golden
/// cases, and a directory is read recursively (other files are ignored). Cases come back sorted by
/// name so runs are reproducible.
pub fn load_path(path: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    load_into(path, path, &mut out);
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn load_into(root: &Path, path: &Path, out: &mut Vec<Case>) {
    if path.is_dir() {
        let mut entries: Vec<_> = match std::fs::read_dir(path) {
            Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) => {
                out.push(Case::malformed(
                    unreadable_name(path),
                    Origin::file(path),
                    format!("cannot read directory: {e}"),
                ));
                return;
            }
        };
        entries.sort();
        for p in entries {
            load_into(root, &p, out);
        }
        return;
    }
    match path.extension().and_then(|e| e.to_str()) {
        Some("md") => out.extend(book::load_file(root, path)),
        Some("json") => out.extend(golden::load_file(root, path)),
        _ if path == root => out.push(Case::malformed(
            unreadable_name(path),
            Origin::file(path),
            if path.exists() {
                "not a .md or .json file".to_string()
            } else {
                "no such file or directory".to_string()
            },
        )),
        _ => {}
    }
}

fn unreadable_name(path: &Path) -> String {
    format!("path::{}", path.display())
}

/// The name of `file` relative to the tree it belongs to: the part after the last `marker`
/// directory sequence (`["book", "src"]` or `["golden"]`) if there is one, else the part under
/// `root`, else the file stem; without the extension and with `/` turned into `::`.
pub(crate) fn relative_name(file: &Path, root: &Path, marker: &[&str]) -> String {
    let comps: Vec<String> = file
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let m = marker.len();
    let mut start = None;
    if comps.len() > m {
        for i in (0..comps.len() - m).rev() {
            if comps[i..i + m]
                .iter()
                .map(String::as_str)
                .eq(marker.iter().copied())
            {
                start = Some(i + m);
                break;
            }
        }
    }
    let parts: Vec<String> = match start {
        Some(s) => comps[s..].to_vec(),
        None => match file.with_extension("").strip_prefix(root) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect(),
            _ => vec![
                file.file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            ],
        },
    };
    parts.join("::")
}
