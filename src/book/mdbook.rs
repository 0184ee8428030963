//! mdbook's preprocessor protocol, so that a stock `mdbook build book` gets what `xla-spec book`
//! does (generated pages, figures, checked examples with their results, labels, MathML).
//!
//! mdbook runs `<command> supports <renderer>` first (exit 0: yes), then `<command>` with
//! `[context, book]` as JSON on stdin, and reads the book back as JSON on stdout. Each chapter's
//! `content` is replaced by its prepared Markdown; mdbook's own renderer does the rest.

use super::prepare;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The renderers the prepared Markdown suits (it carries inline HTML and MathML).
pub fn supports(renderer: &str) -> bool {
    renderer == "html"
}

/// Turns mdbook's `[context, book]` into the processed book (both as JSON text). Errors are one
/// line each.
pub fn process(input: &str) -> Result<String, Vec<String>> {
    let v: Value = serde_json::from_str(input)
        .map_err(|e| vec![format!("mdbook sent input that is not JSON: {e}")])?;
    let (ctx, mut book) = match v {
        Value::Array(mut a) if a.len() == 2 => {
            let b = a.pop().unwrap_or(Value::Null);
            let c = a.pop().unwrap_or(Value::Null);
            (c, b)
        }
        _ => return Err(vec!["expected the JSON array [context, book]".into()]),
    };
    let root = ctx
        .get("root")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .ok_or_else(|| vec!["the context has no `root`".to_string()])?;
    let src_name = ctx
        .pointer("/config/book/src")
        .and_then(Value::as_str)
        .unwrap_or("src");
    let src = root.join(src_name);
    let mut sources = prepare::read_sources(&src).map_err(|e| vec![e])?;
    // The chapters as mdbook has them win over the files (an earlier preprocessor may have
    // changed them).
    let mut chapters = Vec::new();
    let items =
        items_mut(&mut book).ok_or_else(|| vec!["the book has no `sections`".to_string()])?;
    collect(items, &mut chapters);
    for (path, content) in chapters {
        sources.insert(path, content);
    }
    let repo = repo_root(&root);
    let prepared = prepare::prepare(&repo, &src, sources)?;
    if let Some(items) = items_mut(&mut book) {
        replace(items, &prepared.pages);
    }
    serde_json::to_string(&book).map_err(|e| vec![format!("cannot write the book: {e}")])
}

/// The repository holding the book (its parent directory).
fn repo_root(book_root: &Path) -> PathBuf {
    let abs = book_root
        .canonicalize()
        .unwrap_or_else(|_| book_root.to_path_buf());
    abs.parent().map(Path::to_path_buf).unwrap_or(abs)
}

/// The book's item list (`sections` in mdbook 0.4, `items` later).
fn items_mut(book: &mut Value) -> Option<&mut Vec<Value>> {
    let key = if book.get("sections").is_some() {
        "sections"
    } else {
        "items"
    };
    book.get_mut(key).and_then(Value::as_array_mut)
}

fn collect(items: &[Value], out: &mut Vec<(String, String)>) {
    for it in items {
        if let Some(ch) = it.get("Chapter") {
            if let (Some(p), Some(c)) = (
                ch.get("path").and_then(Value::as_str),
                ch.get("content").and_then(Value::as_str),
            ) {
                out.push((p.replace('\\', "/"), c.to_string()));
            }
            if let Some(sub) = ch.get("sub_items").and_then(Value::as_array) {
                collect(sub, out);
            }
        }
    }
}

fn replace(items: &mut [Value], pages: &BTreeMap<String, String>) {
    for it in items {
        if let Some(ch) = it.get_mut("Chapter") {
            let path = ch
                .get("path")
                .and_then(Value::as_str)
                .map(|p| p.replace('\\', "/"));
            if let Some(text) = path.and_then(|p| pages.get(&p)) {
                ch["content"] = Value::String(text.clone());
            }
            if let Some(sub) = ch.get_mut("sub_items").and_then(Value::as_array_mut) {
                replace(sub, pages);
            }
        }
    }
}
