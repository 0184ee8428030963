//! Our own HTML renderer: `xla-spec book` turns the prepared Markdown into a static site under
//! `target/book/` that needs no network: one HTML page per chapter of `SUMMARY.md`, a plain CSS
//! file, MathML rendered at build time, and a search page that reads a generated JavaScript index
//! (a script, not a `fetch`, so it works from `file://` as well as from a server).

use super::prepare::{self, Prepared};
use super::source::{self, escape_html};
use super::summary::{self, Entry};
use pulldown_cmark::{CodeBlockKind, CowStr, Event, HeadingLevel, Parser, Tag, TagEnd};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

const CSS: &str = include_str!("assets/book.css");
const SEARCH_JS: &str = include_str!("assets/search.js");
const COPY_JS: &str = include_str!("assets/copy.js");

/// Why a build failed.
#[derive(Debug)]
pub enum BuildError {
    /// The book could not be read (missing directory, bad `SUMMARY.md`, unwritable output).
    Input(String),
    /// The book is wrong: failing examples, duplicate or dangling labels, bad LaTeX. One line each.
    Check(Vec<String>),
}

/// What a successful build produced.
#[derive(Debug)]
pub struct Built {
    pub pages: usize,
    pub examples: usize,
    pub labels: usize,
    pub out: PathBuf,
}

/// A chapter rendered to HTML, with what the search index needs.
struct Rendered {
    html: String,
    title: Option<String>,
    headings: Vec<String>,
    text: String,
}

/// The book's title from `book.toml` (`title = "..."` in `[book]`), if any.
fn book_title(book: &Path) -> String {
    let toml = std::fs::read_to_string(book.join("book.toml")).unwrap_or_default();
    let mut section = String::new();
    for l in toml.lines() {
        let t = l.trim();
        if t.starts_with('[') {
            section = t.to_string();
        } else if section == "[book]"
            && let Some(v) = t.strip_prefix("title")
            && let Some(v) = v.trim_start().strip_prefix('=')
        {
            return v.trim().trim_matches('"').to_string();
        }
    }
    "Book".to_string()
}

/// Builds the book in `book` (with `book/src/SUMMARY.md`) into `out`.
pub fn build(book: &Path, out: &Path) -> Result<Built, BuildError> {
    let book = book
        .canonicalize()
        .map_err(|e| BuildError::Input(format!("cannot open the book {}: {e}", book.display())))?;
    let src = book.join("src");
    let summary_text = std::fs::read_to_string(src.join("SUMMARY.md"))
        .map_err(|e| BuildError::Input(format!("cannot read {}/SUMMARY.md: {e}", src.display())))?;
    let entries = summary::parse(&summary_text).map_err(BuildError::Input)?;
    let sources = prepare::read_sources(&src).map_err(BuildError::Input)?;
    for e in &entries {
        if let Entry::Chapter { path, .. } = e
            && !sources.contains_key(path)
        {
            return Err(BuildError::Input(format!(
                "SUMMARY.md names {path}, which is not in {}",
                src.display()
            )));
        }
    }
    let root = book.parent().unwrap_or(&book).to_path_buf();
    let prepared = prepare::prepare(&root, &src, sources).map_err(BuildError::Check)?;
    write_site(&book, &src, out, &entries, &prepared).map_err(BuildError::Input)?;
    Ok(Built {
        pages: entries
            .iter()
            .filter(|e| matches!(e, Entry::Chapter { .. }))
            .count(),
        examples: prepared.examples,
        labels: prepared.labels,
        out: out.to_path_buf(),
    })
}

fn html_path(md: &str) -> String {
    match md.strip_suffix(".md") {
        Some(s) => format!("{s}.html"),
        None => md.to_string(),
    }
}

/// `../` once per directory level of `page`.
fn up(page: &str) -> String {
    "../".repeat(page.matches('/').count())
}

fn write(path: &Path, contents: &str) -> Result<(), String> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
    }
    std::fs::write(path, contents).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn write_site(
    book: &Path,
    src: &Path,
    out: &Path,
    entries: &[Entry],
    prepared: &Prepared,
) -> Result<(), String> {
    let title = book_title(book);
    let chapters: Vec<(&str, &str)> = entries
        .iter()
        .filter_map(|e| match e {
            Entry::Chapter { title, path, .. } => Some((title.as_str(), path.as_str())),
            Entry::Part(_) => None,
        })
        .collect();
    copy_assets(src, out)?;
    let mut index = Vec::new();
    for (i, (chapter_title, path)) in chapters.iter().enumerate() {
        let md = prepared
            .pages
            .get(*path)
            .ok_or_else(|| format!("no prepared page for {path}"))?;
        let r = to_html(md);
        let page_title = r.title.clone().unwrap_or_else(|| chapter_title.to_string());
        let prev = i.checked_sub(1).and_then(|k| chapters.get(k));
        let next = chapters.get(i + 1);
        let html = page(
            &title,
            &page_title,
            path,
            &r.html,
            &sidebar(entries, path),
            prev.copied(),
            next.copied(),
        );
        write(&out.join(html_path(path)), &html)?;
        index.push(serde_json::json!({
            "t": page_title,
            "p": html_path(path),
            "h": r.headings,
            "b": r.text,
        }));
    }
    let js = format!(
        "// Generated by `xla-spec book`: the search index.\nwindow.XLA_SPEC_SEARCH = {};\n",
        serde_json::Value::Array(index)
    );
    write(&out.join("search-index.js"), &js)?;
    write(&out.join("assets").join("book.css"), CSS)?;
    write(&out.join("assets").join("search.js"), SEARCH_JS)?;
    write(&out.join("assets").join("copy.js"), COPY_JS)?;
    let search_body = "<h1>Search</h1>\n<form class=\"search-page-form\" action=\"search.html\" method=\"get\"><input id=\"search-input\" type=\"search\" name=\"search\" aria-label=\"Search the book\"> <button type=\"submit\">Search</button></form>\n<p id=\"search-summary\"></p>\n<ol id=\"search-results\"></ol>\n<script src=\"search-index.js\"></script>\n<script src=\"assets/search.js\"></script>\n";
    write(
        &out.join("search.html"),
        &page(
            &title,
            "Search",
            "search.md",
            search_body,
            &sidebar(entries, ""),
            None,
            None,
        ),
    )?;
    if let Some((_, first)) = chapters.first() {
        let target = html_path(first);
        write(
            &out.join("index.html"),
            &format!(
                "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0; url={t}\"><title>{b}</title></head><body><a href=\"{t}\">{b}</a></body></html>\n",
                t = escape_html(&target),
                b = escape_html(&title)
            ),
        )?;
    }
    Ok(())
}

/// Copies every file of `src` that is not Markdown (pictures, style sheets) to `out`.
fn copy_assets(src: &Path, out: &Path) -> Result<(), String> {
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let rd =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().and_then(|x| x.to_str()) != Some("md") {
                let to = out.join(prepare::rel_path(&p, src));
                if let Some(d) = to.parent() {
                    std::fs::create_dir_all(d)
                        .map_err(|e| format!("cannot create {}: {e}", d.display()))?;
                }
                std::fs::copy(&p, &to)
                    .map_err(|e| format!("cannot copy {} to {}: {e}", p.display(), to.display()))?;
            }
        }
    }
    Ok(())
}

fn sidebar(entries: &[Entry], current: &str) -> String {
    let rel = up(current);
    let mut s = String::from("<ol class=\"toc\">\n");
    for e in entries {
        match e {
            Entry::Part(t) => s.push_str(&format!("<li class=\"part\">{}</li>\n", escape_html(t))),
            Entry::Chapter { title, path, depth } => {
                let active = if path == current { " active" } else { "" };
                s.push_str(&format!(
                    "<li class=\"chapter depth-{d}{active}\"><a href=\"{rel}{h}\">{t}</a></li>\n",
                    d = (*depth).min(4),
                    h = escape_html(&html_path(path)),
                    t = escape_html(title)
                ));
            }
        }
    }
    s.push_str("</ol>\n");
    s
}

fn page(
    book_title: &str,
    title: &str,
    path: &str,
    body: &str,
    sidebar: &str,
    prev: Option<(&str, &str)>,
    next: Option<(&str, &str)>,
) -> String {
    let rel = up(path);
    let link = |c: Option<(&str, &str)>, class: &str, arrow: &str| match c {
        Some((t, p)) => format!(
            "<a class=\"{class}\" href=\"{rel}{}\">{arrow} {}</a>",
            escape_html(&html_path(p)),
            escape_html(t)
        ),
        None => String::new(),
    };
    format!(
        "<!DOCTYPE html>
<html lang=\"en\">
<head>
<meta charset=\"utf-8\">
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">
<title>{t} · {b}</title>
<link rel=\"stylesheet\" href=\"{rel}assets/book.css\">
</head>
<body>
<nav class=\"sidebar\">
<div class=\"book-title\"><a href=\"{rel}index.html\">{b}</a></div>
<form class=\"search-form\" action=\"{rel}search.html\" method=\"get\"><input type=\"search\" name=\"search\" placeholder=\"Search the book\" aria-label=\"Search the book\"></form>
{sidebar}</nav>
<main>
<article class=\"content\">
{body}</article>
<nav class=\"pager\">{p}{n}</nav>
</main>
<script src=\"{rel}assets/copy.js\"></script>
</body>
</html>
",
        t = escape_html(title),
        b = escape_html(book_title),
        p = link(prev, "prev", "←"),
        n = link(next, "next", "→"),
    )
}

/// An anchor for a heading, as mdbook makes them (lower case, words joined by `-`).
fn slug(text: &str) -> String {
    let mut s = String::new();
    for c in text.trim().chars() {
        if c.is_alphanumeric() || c == '_' || c == '-' {
            s.extend(c.to_lowercase());
        } else if c.is_whitespace() {
            s.push('-');
        }
    }
    s
}

fn is_relative(url: &str) -> bool {
    !(url.contains("://") || url.starts_with('#') || url.starts_with("mailto:"))
}

/// `a/b.md#x` → `a/b.html#x` for a relative link.
fn rewrite_link(url: &str) -> String {
    if !is_relative(url) {
        return url.to_string();
    }
    let (path, frag) = match url.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (url, None),
    };
    let path = html_path(path);
    match frag {
        Some(f) => format!("{path}#{f}"),
        None => path,
    }
}

/// Markdown (already prepared) → HTML, with heading anchors and links to `.md` pages rewritten.
fn to_html(md: &str) -> Rendered {
    let events: Vec<Event> = Parser::new_ext(md, source::options()).collect();
    let mut out_events: Vec<Event> = Vec::with_capacity(events.len());
    let mut title = None;
    let mut headings = Vec::new();
    let mut text = String::new();
    let mut used: HashSet<String> = HashSet::new();
    let mut in_code = 0usize;
    let mut i = 0;
    while i < events.len() {
        match &events[i] {
            Event::Start(Tag::Heading {
                level,
                id,
                classes,
                attrs,
            }) => {
                let mut h = String::new();
                let mut j = i + 1;
                while j < events.len() && !matches!(events[j], Event::End(TagEnd::Heading(_))) {
                    if let Event::Text(t) | Event::Code(t) = &events[j] {
                        h.push_str(t);
                    }
                    j += 1;
                }
                let base = match id {
                    Some(id) => id.to_string(),
                    None => slug(&h),
                };
                let mut anchor = base.clone();
                let mut k = 1;
                while !used.insert(anchor.clone()) {
                    anchor = format!("{base}-{k}");
                    k += 1;
                }
                if *level == HeadingLevel::H1 && title.is_none() {
                    title = Some(h.clone());
                } else {
                    headings.push(h.clone());
                }
                out_events.push(Event::Start(Tag::Heading {
                    level: *level,
                    id: Some(CowStr::from(anchor)),
                    classes: classes.clone(),
                    attrs: attrs.clone(),
                }));
                i += 1;
                continue;
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => out_events.push(Event::Start(Tag::Link {
                link_type: *link_type,
                dest_url: CowStr::from(rewrite_link(dest_url)),
                title: title.clone(),
                id: id.clone(),
            })),
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info)))
                if super::highlight::is_hlo(info) =>
            {
                // Highlighted here, at build time: the block becomes one HTML event.
                let mut code = String::new();
                let mut j = i + 1;
                while j < events.len() && !matches!(events[j], Event::End(TagEnd::CodeBlock)) {
                    if let Event::Text(t) = &events[j] {
                        code.push_str(t);
                    }
                    j += 1;
                }
                out_events.push(Event::Html(CowStr::from(format!(
                    "<pre><code class=\"hlo\">{}</code></pre>\n",
                    super::highlight::hlo_html(&code)
                ))));
                i = j + 1;
                continue;
            }
            Event::Start(Tag::CodeBlock(_)) => {
                in_code += 1;
                out_events.push(events[i].clone());
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code = in_code.saturating_sub(1);
                out_events.push(events[i].clone());
            }
            Event::Text(t) | Event::Code(t) if in_code == 0 => {
                text.push_str(t);
                out_events.push(events[i].clone());
            }
            Event::SoftBreak
            | Event::HardBreak
            | Event::End(TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::TableCell) => {
                text.push(' ');
                out_events.push(events[i].clone());
            }
            _ => out_events.push(events[i].clone()),
        }
        i += 1;
    }
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, out_events.into_iter());
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    Rendered {
        html,
        title,
        headings,
        text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_to_pages_become_html_and_headings_get_anchors() {
        let r = to_html(
            "# Pad\n\n## Shape inference\n\nSee [slice](../movement/slice.md#slice.x) and [web](https://example.org/a.md).\n\n## Shape inference\n",
        );
        assert_eq!(r.title.as_deref(), Some("Pad"));
        assert!(
            r.html.contains("href=\"../movement/slice.html#slice.x\""),
            "{}",
            r.html
        );
        assert!(
            r.html.contains("href=\"https://example.org/a.md\""),
            "{}",
            r.html
        );
        assert!(r.html.contains("id=\"shape-inference\""), "{}", r.html);
        assert!(r.html.contains("id=\"shape-inference-1\""), "{}", r.html);
        assert!(
            r.text.starts_with("Pad Shape inference See slice and web."),
            "{}",
            r.text
        );
    }

    #[test]
    fn sidebar_links_are_relative_to_the_page() {
        let e = summary::parse("- [A](a.md)\n    - [B](ops/b.md)\n").unwrap();
        let s = sidebar(&e, "ops/b.md");
        assert!(s.contains("href=\"../a.html\""), "{s}");
        assert!(
            s.contains("depth-1 active\"><a href=\"../ops/b.html\""),
            "{s}"
        );
    }
}
