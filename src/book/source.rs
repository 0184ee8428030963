//! Transformations of a page's Markdown that both outputs share (our renderer and the mdbook
//! preprocessor): rule labels become anchors, `[r:label]` references become links, LaTeX becomes
//! MathML, and each runnable example is followed by what the reference runtime computed.
//!
//! Everything works on the Markdown text and yields Markdown (with inline HTML), so that a stock
//! mdbook renders exactly what our own renderer renders.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use std::collections::BTreeMap;
use std::ops::Range;

/// The Markdown extensions the book is written with.
pub fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
}

/// Escapes text for HTML element content or a quoted attribute.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// HTML that survives being placed inline in Markdown unchanged: outside tags, every character
/// Markdown could read as syntax becomes a character reference, and newlines become spaces (a
/// blank line would end the surrounding block).
pub fn markdown_safe_html(html: &str) -> String {
    let mut out = String::with_capacity(html.len() + html.len() / 8);
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => {
                in_tag = true;
                out.push(c)
            }
            '>' if in_tag => {
                in_tag = false;
                out.push(c)
            }
            '\n' | '\r' => out.push(' '),
            '\\' | '*' | '_' | '[' | ']' | '`' | '$' | '|' | '~' | '!' | '#' | '(' | ')'
                if !in_tag =>
            {
                out.push_str(&format!("&#{};", c as u32))
            }
            _ => out.push(c),
        }
    }
    out
}

/// Lines of `text` outside fenced code blocks, as (0-based line index, line), with fences tracked
/// the CommonMark way (closed only by a run of the same character at least as long).
fn lines_outside_fences(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for (i, raw) in text.lines().enumerate() {
        let t = raw.trim();
        let run = crate::book::fence_run(t);
        match (fence, run) {
            (None, Some(r)) => {
                fence = Some(r);
                continue;
            }
            (Some((c, n)), Some((rc, rn))) if rc == c && rn >= n && t[rn..].trim().is_empty() => {
                fence = None;
                continue;
            }
            _ => {}
        }
        if fence.is_none() {
            out.push((i, raw));
        }
    }
    out
}

/// Replaces each label line `r[label]` (outside code) by an anchor whose `id` is the label.
pub fn label_anchors(text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for (i, raw) in lines_outside_fences(text) {
        let t = raw.trim();
        if let Some(l) = t.strip_prefix("r[").and_then(|r| r.strip_suffix(']'))
            && super::r#gen::is_label(l)
        {
            let indent = &raw[..raw.len() - raw.trim_start().len()];
            let id = super::r#gen::label_anchor(l);
            lines[i] = format!(
                "{indent}<a class=\"rule-label\" id=\"{id}\" href=\"#{id}\">{}</a>",
                markdown_safe_html(&escape_html(&format!("r[{l}]")))
            );
        }
    }
    join_lines(text, lines)
}

fn join_lines(original: &str, lines: Vec<String>) -> String {
    let mut s = lines.join("\n");
    if original.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// The byte ranges of a page that hold code or raw HTML (nothing in them is rewritten), and the
/// math spans with their LaTeX and whether they are display math.
struct Regions {
    verbatim: Vec<Range<usize>>,
    math: Vec<(Range<usize>, String, bool)>,
    /// Inline code outside links, with its text (a label written as code becomes a link).
    code: Vec<(Range<usize>, String)>,
}

fn regions(text: &str) -> Regions {
    let mut verbatim = Vec::new();
    let mut math = Vec::new();
    let parser = Parser::new_ext(text, options() | Options::ENABLE_MATH).into_offset_iter();
    let mut depth_code = 0usize;
    let mut depth_link = 0usize;
    let mut code = Vec::new();
    for (ev, range) in parser {
        match ev {
            Event::Start(Tag::Link { .. }) => depth_link += 1,
            Event::End(TagEnd::Link) => depth_link = depth_link.saturating_sub(1),
            Event::Code(c) if depth_code == 0 && depth_link == 0 => {
                code.push((range.clone(), c.to_string()));
                verbatim.push(range)
            }
            Event::Start(Tag::CodeBlock(_) | Tag::HtmlBlock) => {
                if depth_code == 0 {
                    verbatim.push(range);
                }
                depth_code += 1;
            }
            Event::End(TagEnd::CodeBlock | TagEnd::HtmlBlock) => {
                depth_code = depth_code.saturating_sub(1);
            }
            Event::Code(_) | Event::InlineHtml(_) | Event::Html(_) if depth_code == 0 => {
                verbatim.push(range)
            }
            Event::InlineMath(m) if depth_code == 0 => math.push((range, m.to_string(), false)),
            Event::DisplayMath(m) if depth_code == 0 => math.push((range, m.to_string(), true)),
            _ => {}
        }
    }
    Regions {
        verbatim,
        math,
        code,
    }
}

/// 1-based line of a byte offset.
pub fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Renders LaTeX to MathML; an error in the LaTeX is an error, never red text in the page.
pub fn latex_to_mathml(latex: &str, display: bool) -> Result<String, String> {
    use pulldown_latex::config::DisplayMode;
    use pulldown_latex::{Parser, RenderConfig, Storage, push_mathml};
    let storage = Storage::new();
    let events: Vec<_> = Parser::new(latex, &storage).collect();
    if let Some(Err(e)) = events.iter().find(|e| e.is_err()) {
        return Err(format!("bad LaTeX {latex:?}: {e}"));
    }
    let config = RenderConfig {
        display_mode: if display {
            DisplayMode::Block
        } else {
            DisplayMode::Inline
        },
        annotation: Some(latex),
        ..RenderConfig::default()
    };
    let mut out = String::new();
    push_mathml(&mut out, events.into_iter(), config)
        .map_err(|e| format!("cannot render LaTeX {latex:?}: {e}"))?;
    Ok(out)
}

/// A reference `[r:label]` found in a page.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    pub label: String,
    pub line: usize,
}

/// The `[r:label]` references of a page outside code, with their byte ranges.
fn references(text: &str, verbatim: &[Range<usize>]) -> Vec<(Range<usize>, Reference)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = text[from..].find("[r:") {
        let start = from + k;
        from = start + 3;
        if verbatim.iter().any(|r| r.contains(&start)) {
            continue;
        }
        let Some(len) = text[start + 3..].find(']') else {
            break;
        };
        let label = &text[start + 3..start + 3 + len];
        if super::r#gen::is_label(label) {
            let end = start + 3 + len + 1;
            out.push((
                start..end,
                Reference {
                    label: label.to_string(),
                    line: line_of(text, start),
                },
            ));
            from = end;
        }
    }
    out
}

/// The references a page makes (for the dangling-label check).
pub fn page_references(text: &str) -> Vec<Reference> {
    let r = regions(text);
    references(text, &r.verbatim)
        .into_iter()
        .map(|(_, r)| r)
        .collect()
}

/// A relative link from page `from` (`ops/a/b.md`) to page `to` (`ops/c.md`).
pub fn relative_link(from: &str, to: &str) -> String {
    let depth = from.matches('/').count();
    format!("{}{}", "../".repeat(depth), to)
}

/// Rewrites math to MathML and references to links (`label_pages` maps a label to the page that
/// defines it). Errors name the line.
pub fn math_and_references(
    page: &str,
    text: &str,
    label_pages: &BTreeMap<String, String>,
) -> Result<String, Vec<String>> {
    let r = regions(text);
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    let mut errors = Vec::new();
    for (range, latex, display) in &r.math {
        match latex_to_mathml(latex, *display) {
            Ok(m) => edits.push((range.clone(), markdown_safe_html(&m))),
            Err(e) => errors.push(format!("{page}:{}: {e}", line_of(text, range.start))),
        }
    }
    for (range, rf) in references(text, &r.verbatim) {
        if r.math.iter().any(|(m, _, _)| m.contains(&range.start)) {
            continue;
        }
        match label_pages.get(&rf.label) {
            Some(target) => {
                let href = if target == page {
                    String::new()
                } else {
                    relative_link(page, target)
                };
                edits.push((
                    range,
                    format!(
                        "[`{l}`]({href}#{a})",
                        l = rf.label,
                        a = super::r#gen::label_anchor(&rf.label)
                    ),
                ))
            }
            None => errors.push(format!(
                "{page}:{}: the reference [r:{}] names a label no page defines",
                rf.line, rf.label
            )),
        }
    }
    // A label written as inline code (`pad.scalar_operand` in an operands table) links to its rule.
    for (range, c) in &r.code {
        if let Some(target) = label_pages.get(c.as_str())
            && text[range.clone()] == format!("`{c}`")
        {
            let href = if target == page {
                String::new()
            } else {
                relative_link(page, target)
            };
            edits.push((
                range.clone(),
                format!("[`{c}`]({href}#{})", super::r#gen::label_anchor(c)),
            ));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    edits.sort_by_key(|(r, _)| r.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (range, rep) in edits {
        if range.start < at {
            continue;
        }
        out.push_str(&text[at..range.start]);
        out.push_str(&rep);
        at = range.end;
    }
    out.push_str(&text[at..]);
    Ok(out)
}

/// What an example computed, shown under it.
#[derive(Debug, Clone)]
pub struct Computed {
    /// One line of explanation (`Result`, `Refused by the verifier`, ...).
    pub heading: String,
    /// The computed value(s) or message, as plain text.
    pub body: String,
    /// What the other backends did with the example, from their committed reports: (backend,
    /// verdict word, the reason or message when it did not pass).
    pub marks: Vec<(String, String, Option<String>)>,
}

/// Inserts, after each runnable example's closing fence, an HTML block with what it computed
/// (`computed` is keyed by the example's name).
pub fn insert_computed(text: &str, computed: &BTreeMap<String, Computed>) -> String {
    let fences = crate::conformance::book::fences(text);
    let lines: Vec<&str> = text.lines().collect();
    // 0-based index of the closing line → the HTML to put after it.
    let mut after: BTreeMap<usize, String> = BTreeMap::new();
    for f in fences {
        if !f.closed {
            continue;
        }
        let Some(c) = computed.get(&f.name) else {
            continue;
        };
        let open = f.line - 1;
        let close = match f.body.last() {
            Some((l, _)) => *l,
            None => open + 1,
        };
        // Same indentation as the fence, so that an example inside a list item keeps its result.
        let pad = lines
            .get(open)
            .map_or("", |l| &l[..l.len() - l.trim_start().len()]);
        let body: Vec<&str> = f.body.iter().map(|(_, l)| l.as_str()).collect();
        let run = match f.kind.as_str() {
            "hlo-test" => super::highlight::run_command(&f.name, &body.join("\n")),
            _ => None,
        }
        .map(|(cmd, snippet)| {
            format!(
                "<div class=\"run-command\"><code>{}</code><button class=\"copy\" type=\"button\" data-copy=\"{}\" title=\"Copy a shell snippet that writes the module and runs it\">Copy</button></div>",
                escape_html(&cmd),
                escape_html(&snippet).replace('\n', "&#10;")
            )
        })
        .unwrap_or_default();
        let marks = if c.marks.is_empty() {
            String::new()
        } else {
            let items: Vec<String> = c
                .marks
                .iter()
                .map(|(backend, word, reason)| {
                    let class = if word.starts_with('✓') {
                        "pass"
                    } else {
                        "other"
                    };
                    let title = reason
                        .as_deref()
                        .map(|r| format!(" title=\"{}\"", escape_html(r)))
                        .unwrap_or_default();
                    format!(
                        "<span class=\"mark {class}\"{title}>{}: {}</span>",
                        escape_html(backend),
                        escape_html(word)
                    )
                })
                .collect();
            format!(
                "<div class=\"backend-marks\">On other backends (committed reports): {}</div>",
                items.join(" · ")
            )
        };
        let html = format!(
            "{pad}<div class=\"computed\" data-example=\"{name}\">{run}<div class=\"computed-heading\">{h}</div><pre class=\"computed-value\">{b}</pre>{marks}</div>",
            name = escape_html(&f.name),
            h = escape_html(&c.heading),
            b = escape_html(&c.body).replace('\n', "&#10;"),
        );
        after.insert(close, html);
    }
    let mut out: Vec<String> = Vec::with_capacity(lines.len() + after.len() * 3);
    for (i, l) in lines.iter().enumerate() {
        out.push(l.to_string());
        if let Some(h) = after.get(&i) {
            out.push(String::new());
            out.push(h.clone());
            out.push(String::new());
        }
    }
    join_lines(text, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_become_anchors_outside_code_only() {
        let t = "r[slice.limit_in_range]\nText.\n\n```\nr[not.a_label]\n```\n";
        let out = label_anchors(t);
        assert!(
            out.contains("id=\"slice.limit_in_range\" href=\"#slice.limit_in_range\""),
            "{out}"
        );
        assert!(out.contains("\nr[not.a_label]\n"), "{out}");
    }

    #[test]
    fn math_becomes_mathml_and_code_is_untouched() {
        let labels = BTreeMap::new();
        let t = "Inline $x_{i} + 1$ and `$y$`.\n\n$$\\frac{a}{b}$$\n\n```\n$z$\n```\n";
        let out = math_and_references("p.md", t, &labels).unwrap();
        assert_eq!(out.matches("<math").count(), 2, "{out}");
        assert!(out.contains("display=\"block\""), "{out}");
        assert!(out.contains("`$y$`") && out.contains("\n$z$\n"), "{out}");
        // The MathML survives Markdown: rendered, it still has its <mfrac>.
        let mut html = String::new();
        pulldown_cmark::html::push_html(&mut html, Parser::new_ext(&out, options()));
        assert!(html.contains("<mfrac>"), "{html}");
        assert!(!html.contains("<em>"), "{html}");
    }

    #[test]
    fn bad_latex_is_an_error_with_its_line() {
        let e = math_and_references("p.md", "a\n\n$\\nosuchcommand{x}$\n", &BTreeMap::new())
            .unwrap_err();
        assert!(e[0].starts_with("p.md:3:"), "{e:?}");
    }

    #[test]
    fn references_link_to_the_defining_page_or_fail() {
        let mut labels = BTreeMap::new();
        labels.insert(
            "slice.limit_in_range".to_string(),
            "ops/slice.md".to_string(),
        );
        let out = math_and_references(
            "ops/x/pad.md",
            "See [r:slice.limit_in_range], not `[r:slice.limit_in_range]`.\n",
            &labels,
        )
        .unwrap();
        assert!(
            out.starts_with(
                "See [`slice.limit_in_range`](../../ops/slice.md#slice.limit_in_range), not `"
            ),
            "{out}"
        );
        let out = math_and_references(
            "ops/x/pad.md",
            "`slice.limit_in_range` and [`slice.limit_in_range`](x.md)\n",
            &labels,
        )
        .unwrap();
        assert_eq!(
            out,
            "[`slice.limit_in_range`](../../ops/slice.md#slice.limit_in_range) and [`slice.limit_in_range`](x.md)\n"
        );
        let e = math_and_references("a.md", "x\n[r:no.such_rule]\n", &labels).unwrap_err();
        assert!(
            e[0].contains("a.md:2") && e[0].contains("no.such_rule"),
            "{e:?}"
        );
    }

    #[test]
    fn computed_result_follows_its_fence() {
        let t = "Intro\n\n```hlo-test a\nX\n---\nexpected: 1\n```\nAfter\n";
        let mut c = BTreeMap::new();
        c.insert(
            "a".to_string(),
            Computed {
                heading: "Result".into(),
                body: "f32[] 1\n<x>".into(),
                marks: vec![
                    ("XLA:CPU".into(), "✓ passes".into(), None),
                    (
                        "IREE".into(),
                        "✗ deviates".into(),
                        Some("pow(NaN, 0) <is> NaN".into()),
                    ),
                ],
            },
        );
        let out = insert_computed(t, &c);
        assert!(
            out.contains("<div class=\"backend-marks\">On other backends (committed reports): <span class=\"mark pass\">XLA:CPU: ✓ passes</span> · <span class=\"mark other\" title=\"pow(NaN, 0) &lt;is&gt; NaN\">IREE: ✗ deviates</span></div>"),
            "{out}"
        );
        assert!(
            out.contains("```\n\n<div class=\"computed\" data-example=\"a\">"),
            "{out}"
        );
        assert!(out.contains("f32[] 1&#10;&lt;x&gt;"), "{out}");
        assert!(out.ends_with("</div>\n\nAfter\n"), "{out}");
    }
}
