//! Runnable examples in the book's Markdown: fenced code blocks whose info string is
//! `hlo-test <name>` or `layout-test <name>`. The syntax is defined in the book's "Runnable
//! examples" chapter; in short, an `hlo-test` holds the module, a line `---`, then `key: value`
//! lines (`arg:`, `expected:`, `expected_error:`, `tolerance:`, `latitude:`, `also:`, `infeed:`,
//! `outfeed:`, `replicas:`, `replica:`, `rules:`), and a `layout-test` holds `shape:`, optional `padded:` and
//! `padding_value:`, `values:` and `buffer:`. A value may continue on following lines that do not
//! start with a key.
//!
//! Fences are tracked the CommonMark way (a block opened by N backticks or tildes is closed only
//! by at least N of the same), so an example quoted inside a longer fence is not run.

use super::case::{Case, CaseBody, Expect, Latitude, LayoutCase, Origin, RunCase, Tolerance};
use crate::hlo::{parse_literal, parse_shape};
use crate::literal::Literal;
use crate::shape::{PaddingValue, Shape};
use std::path::Path;

/// A fenced example found in a page, before its body is interpreted.
#[derive(Clone, Debug, PartialEq)]
pub struct Fence {
    /// `hlo-test` or `layout-test`.
    pub kind: String,
    /// The name as written (may be invalid; checked later).
    pub name: String,
    /// 1-based line of the opening fence.
    pub line: usize,
    /// The body lines with their 1-based line numbers.
    pub body: Vec<(usize, String)>,
    /// False when the page ended before the fence was closed.
    pub closed: bool,
}

/// Finds every `hlo-test` / `layout-test` fence in a Markdown text.
pub fn fences(text: &str) -> Vec<Fence> {
    let mut out = Vec::new();
    // The open fence: (char, length, the example being collected if it is one).
    let mut open: Option<(char, usize, Option<Fence>)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let t = raw.trim_start();
        let fence_char = t.chars().next().filter(|c| *c == '`' || *c == '~');
        let run = fence_char.map(|c| t.chars().take_while(|x| *x == c).count());
        match &mut open {
            Some((c, n, ex)) => {
                let closes = fence_char == Some(*c)
                    && run.is_some_and(|r| r >= *n)
                    && t.trim_start_matches(*c).trim().is_empty();
                if closes {
                    if let Some(f) = ex.take() {
                        out.push(f);
                    }
                    open = None;
                } else if let Some(f) = ex {
                    f.body.push((line_no, raw.to_string()));
                }
            }
            None => {
                if let (Some(c), Some(r)) = (fence_char, run)
                    && r >= 3
                {
                    let info = t[r * c.len_utf8()..].trim();
                    let mut words = info.split_whitespace();
                    let ex = match words.next() {
                        Some(k @ ("hlo-test" | "layout-test")) => Some(Fence {
                            kind: k.to_string(),
                            name: words.next().unwrap_or("").to_string(),
                            line: line_no,
                            body: vec![],
                            closed: true,
                        }),
                        _ => None,
                    };
                    open = Some((c, r, ex));
                }
            }
        }
    }
    if let Some((_, _, Some(mut f))) = open {
        f.closed = false;
        out.push(f);
    }
    out
}

/// Loads the examples of one page.
pub fn load_file(root: &Path, path: &Path) -> Vec<Case> {
    let page = format!(
        "book::{}",
        super::relative_name(path, root, &["book", "src"])
    );
    match std::fs::read_to_string(path) {
        Ok(text) => load_text(&page, path, &text),
        Err(e) => vec![Case::malformed(
            page,
            Origin::file(path),
            format!("cannot read file: {e}"),
        )],
    }
}

/// Loads the examples of a page's text, naming them `<page>::<example>`.
pub fn load_text(page: &str, path: &Path, text: &str) -> Vec<Case> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for f in fences(text) {
        let origin = Origin::at(path, f.line);
        let valid = !f.name.is_empty()
            && f.name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !valid {
            out.push(Case::malformed(
                format!("{page}::line_{}", f.line),
                origin,
                format!(
                    "the example name {:?} must be made of a-z, 0-9 and `_` (write ```{} <name>)",
                    f.name, f.kind
                ),
            ));
            continue;
        }
        let name = format!("{page}::{}", f.name);
        if !seen.insert(f.name.clone()) {
            out.push(Case::malformed(
                format!("{name}::duplicate_at_line_{}", f.line),
                origin,
                format!("the example name `{}` is used twice on this page", f.name),
            ));
            continue;
        }
        if !f.closed {
            out.push(Case::malformed(
                name,
                origin,
                "the code fence is never closed".into(),
            ));
            continue;
        }
        let body = if f.kind == "hlo-test" {
            parse_hlo_test(&f).map(CaseBody::Run)
        } else {
            parse_layout_test(&f).map(CaseBody::Layout)
        };
        out.push(match body {
            Ok(body) => Case { name, origin, body },
            Err((line, msg)) => Case::malformed(name, Origin::at(path, line), msg),
        });
    }
    out
}

type ParseResult<T> = Result<T, (usize, String)>;

/// `key: value` entries after the module, with continuation lines joined.
fn entries(lines: &[(usize, String)], keys: &[&str]) -> ParseResult<Vec<(usize, String, String)>> {
    let mut out: Vec<(usize, String, String)> = Vec::new();
    for (line, raw) in lines {
        let t = raw.trim();
        if t.is_empty() {
            continue;
        }
        let key = t
            .split_once(':')
            .map(|(k, _)| k)
            .filter(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'));
        match key {
            Some(k) => {
                if !keys.contains(&k) {
                    return Err((
                        *line,
                        format!("unknown key `{k}:` (known keys: {})", keys.join(", ")),
                    ));
                }
                let v = t[k.len() + 1..].trim().to_string();
                out.push((*line, k.to_string(), v));
            }
            None => match out.last_mut() {
                Some(last) => {
                    last.2.push('\n');
                    last.2.push_str(t);
                }
                None => return Err((*line, format!("expected `key: value`, found {t:?}"))),
            },
        }
    }
    Ok(out)
}

fn literal_at(line: usize, v: &str) -> ParseResult<Literal> {
    parse_literal(v).map_err(|e| (line, format!("bad literal {v:?}: {e}")))
}

/// `atol=1e-6 rtol=1e-5` and/or `ulp=2`.
pub fn parse_tolerance_text(v: &str) -> Result<Tolerance, String> {
    let mut t = Tolerance::default();
    let mut any = false;
    for part in v.split_whitespace() {
        let (k, x) = part
            .split_once('=')
            .ok_or_else(|| format!("tolerance entries are key=value, found {part:?}"))?;
        any = true;
        match k {
            "atol" | "rtol" => {
                let f: f64 = x
                    .parse()
                    .ok()
                    .filter(|f: &f64| *f >= 0.0 && f.is_finite())
                    .ok_or_else(|| format!("{k} must be a non-negative number, found {x:?}"))?;
                if k == "atol" { t.atol = f } else { t.rtol = f }
            }
            "ulp" => {
                t.ulp = Some(
                    x.parse()
                        .map_err(|_| format!("ulp must be a non-negative integer, found {x:?}"))?,
                )
            }
            _ => {
                return Err(format!(
                    "unknown tolerance key {k:?} (allowed: atol, rtol, ulp)"
                ));
            }
        }
    }
    if !any {
        return Err("empty tolerance; omit the line for exact comparison".into());
    }
    Ok(t)
}

#[derive(Default)]
struct Section {
    args: Vec<Literal>,
    expected: Option<Literal>,
    outfeed: Option<Vec<Literal>>,
}

fn parse_hlo_test(f: &Fence) -> ParseResult<RunCase> {
    let split = f.body.iter().position(|(_, l)| l.trim() == "---").ok_or((
        f.line,
        "an hlo-test example needs a line `---` between the module and its expectations"
            .to_string(),
    ))?;
    let hlo: String = f.body[..split]
        .iter()
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    let keys = [
        "arg",
        "expected",
        "expected_error",
        "tolerance",
        "infeed",
        "outfeed",
        "replicas",
        "replica",
        "rules",
        "latitude",
        "also",
    ];
    let mut top = Section::default();
    let mut sections: Vec<Section> = Vec::new();
    let mut current: Option<usize> = None;
    let mut replicas: Option<usize> = None;
    let (mut expected_error, mut tolerance, mut infeed) = (None, None, Vec::new());
    let mut rules: Vec<String> = Vec::new();
    let mut latitude = Latitude::default();
    let mut latitude_line = f.line;
    for (line, k, v) in entries(&f.body[split + 1..], &keys)? {
        let sec = match current {
            Some(i) => &mut sections[i],
            None => &mut top,
        };
        match k.as_str() {
            "arg" => sec.args.push(literal_at(line, &v)?),
            "expected" => {
                if sec.expected.is_some() {
                    return Err((line, "`expected:` is given twice".into()));
                }
                sec.expected = Some(literal_at(line, &v)?)
            }
            "outfeed" => sec
                .outfeed
                .get_or_insert_with(Vec::new)
                .push(literal_at(line, &v)?),
            "expected_error" if current.is_none() && !v.is_empty() => expected_error = Some(v),
            "tolerance" if current.is_none() => {
                tolerance = Some(parse_tolerance_text(&v).map_err(|m| (line, m))?)
            }
            "infeed" if current.is_none() => infeed.push(literal_at(line, &v)?),
            // The freedoms the semantics leave (case.rs, `Latitude`), as words.
            "latitude" if current.is_none() && !v.is_empty() => {
                latitude_line = line;
                for w in v.split(|c: char| c == ',' || c.is_whitespace()) {
                    if !w.is_empty() && !latitude.set(w) {
                        return Err((
                            line,
                            format!(
                                "unknown latitude {w:?} (known: {})",
                                Latitude::WORDS.join(", ")
                            ),
                        ));
                    }
                }
            }
            // Another answer a backend may give instead of `expected:`.
            "also" if current.is_none() && replicas.is_none() => {
                latitude_line = line;
                latitude.also.push(vec![literal_at(line, &v)?]);
            }
            // Rule labels the example demonstrates (informational; the coverage page lists them).
            "rules" if current.is_none() && rules.is_empty() && !v.is_empty() => {
                rules = v
                    .split(|c: char| c == ',' || c.is_whitespace())
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect()
            }
            "replicas" if current.is_none() && replicas.is_none() => {
                let n: usize = v.parse().ok().filter(|n| (1..=1024).contains(n)).ok_or((
                    line,
                    format!("replicas must be from 1 to 1024, found {v:?}"),
                ))?;
                replicas = Some(n);
                sections = (0..n).map(|_| Section::default()).collect();
            }
            "replica" => {
                let n = replicas.ok_or((line, "`replica:` needs `replicas: N` first".into()))?;
                let k: usize = v.parse().ok().filter(|k| *k < n).ok_or((
                    line,
                    format!("replica must be from 0 to {}, found {v:?}", n - 1),
                ))?;
                current = Some(k);
            }
            _ => {
                return Err((
                    line,
                    format!("`{k}:` is not allowed here (or is given twice or empty)"),
                ));
            }
        }
    }
    let n = replicas.unwrap_or(1);
    if sections.is_empty() {
        sections.push(Section::default());
    }
    let mut args = Vec::with_capacity(n);
    let mut values = Vec::with_capacity(n);
    let mut outfeeds = Vec::with_capacity(n);
    let any_outfeed = top.outfeed.is_some() || sections.iter().any(|s| s.outfeed.is_some());
    for (r, s) in sections.into_iter().enumerate() {
        args.push(if s.args.is_empty() {
            top.args.clone()
        } else {
            s.args
        });
        if let Some(v) = s.expected.or_else(|| top.expected.clone()) {
            values.push(v);
        } else if expected_error.is_none() {
            return Err((
                f.line,
                if n > 1 {
                    format!("replica {r} has no `expected:` (and there is no `expected_error:`)")
                } else {
                    "an hlo-test example needs `expected:` or `expected_error:`".into()
                },
            ));
        }
        outfeeds.push(
            s.outfeed
                .or_else(|| top.outfeed.clone())
                .unwrap_or_default(),
        );
    }
    let expect = match expected_error {
        Some(e) if values.is_empty() => Expect::Error(e),
        Some(_) => {
            return Err((
                f.line,
                "an example has `expected:` or `expected_error:`, not both".into(),
            ));
        }
        None => Expect::Values(values),
    };
    super::golden::check_latitude(&latitude, &expect).map_err(|m| (latitude_line, m))?;
    Ok(RunCase {
        description: None,
        hlo,
        args,
        expect,
        tolerance,
        infeed,
        expected_outfeed: any_outfeed.then_some(outfeeds),
        rules,
        latitude,
    })
}

/// A nested `{...}` list of symbols.
enum Node {
    Sym(String),
    List(Vec<Node>),
}

fn symbol_tokens(v: &str) -> Vec<String> {
    let mut toks = Vec::new();
    let mut cur = String::new();
    for c in v.chars() {
        if c == '{' || c == '}' || c == ',' || c.is_whitespace() {
            if !cur.is_empty() {
                toks.push(std::mem::take(&mut cur));
            }
            if c == '{' || c == '}' {
                toks.push(c.to_string());
            }
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        toks.push(cur);
    }
    toks
}

fn parse_node(toks: &[String], pos: &mut usize, depth: usize) -> Result<Node, String> {
    if depth > 64 {
        return Err("values nest too deeply".into());
    }
    match toks.get(*pos).map(String::as_str) {
        Some("{") => {
            *pos += 1;
            let mut items = Vec::new();
            while toks.get(*pos).map(String::as_str) != Some("}") {
                if *pos >= toks.len() {
                    return Err("unbalanced `{` in values".into());
                }
                items.push(parse_node(toks, pos, depth + 1)?);
            }
            *pos += 1;
            Ok(Node::List(items))
        }
        Some("}") => Err("unexpected `}` in values".into()),
        Some(s) => {
            *pos += 1;
            Ok(Node::Sym(s.to_string()))
        }
        None => Err("values are empty".into()),
    }
}

/// Flattens a node that must have exactly `dims` as its nesting structure.
fn flatten(node: &Node, dims: &[i64], out: &mut Vec<String>) -> Result<(), String> {
    match (node, dims.split_first()) {
        (Node::Sym(s), None) => {
            out.push(s.clone());
            Ok(())
        }
        (Node::List(items), Some((&d, rest))) => {
            if items.len() as i64 != d {
                return Err(format!(
                    "values has {} entries where the shape has a dimension of size {d}",
                    items.len()
                ));
            }
            items.iter().try_for_each(|n| flatten(n, rest, out))
        }
        (Node::Sym(s), Some(_)) => Err(format!("symbol `{s}` where a nested list is expected")),
        (Node::List(_), None) => Err("values nest deeper than the shape's rank".into()),
    }
}

fn parse_layout_test(f: &Fence) -> ParseResult<LayoutCase> {
    let keys = ["shape", "padded", "padding_value", "values", "buffer"];
    let (mut shape, mut padded, mut padding_value) = (None, None, PaddingValue::Zero);
    let (mut values, mut buffer) = (None, None);
    for (line, k, v) in entries(&f.body, &keys)? {
        match k.as_str() {
            "shape" => match parse_shape(&v) {
                Ok(Shape::Array(a)) => shape = Some((line, a)),
                Ok(s) => {
                    return Err((
                        line,
                        format!("a layout example needs an array shape, got {s}"),
                    ));
                }
                Err(e) => return Err((line, format!("bad shape {v:?}: {e}"))),
            },
            "padded" => {
                let dims: Result<Vec<i64>, _> =
                    v.split(',').map(|x| x.trim().parse::<i64>()).collect();
                padded = Some(dims.map_err(|_| {
                    (
                        line,
                        format!("padded is a comma-separated list of sizes, found {v:?}"),
                    )
                })?);
            }
            "padding_value" => {
                padding_value = match v.as_str() {
                    "zero" => PaddingValue::Zero,
                    "one" => PaddingValue::One,
                    "lowest" => PaddingValue::Lowest,
                    "highest" => PaddingValue::Highest,
                    _ => {
                        return Err((
                            line,
                            format!("padding_value is zero, one, lowest or highest, found {v:?}"),
                        ));
                    }
                }
            }
            "values" => values = Some((line, v)),
            _ => buffer = Some(symbol_tokens(&v)),
        }
    }
    let (_, shape) = shape.ok_or((f.line, "a layout example needs `shape:`".to_string()))?;
    let (vline, vtext) = values.ok_or((f.line, "a layout example needs `values:`".to_string()))?;
    let buffer = buffer.ok_or((f.line, "a layout example needs `buffer:`".to_string()))?;
    let toks = symbol_tokens(&vtext);
    let mut pos = 0;
    let node = parse_node(&toks, &mut pos, 0).map_err(|m| (vline, m))?;
    if pos != toks.len() {
        return Err((vline, "values continue after the outermost `}`".into()));
    }
    let mut flat = Vec::new();
    flatten(&node, &shape.dims, &mut flat).map_err(|m| (vline, m))?;
    let mut unique = flat.clone();
    unique.sort();
    unique.dedup();
    if unique.len() != flat.len() {
        return Err((vline, "every symbol in values must be distinct".into()));
    }
    Ok(LayoutCase {
        shape,
        padded,
        padding_value,
        values: flat,
        buffer,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "intro\n\n````\n```hlo-test quoted\nnot run\n```\n````\n\n```hlo-test strided\nHloModule m\nENTRY main {\n  p = f32[2,3] parameter(0)\n  ROOT s = f32[1,2] slice(p), slice={[0:1], [0:3:2]}\n}\n---\narg: f32[2,3] {{1, 2, 3},\n  {4, 5, 6}}\nexpected: f32[1,2] {{1, 3}}\n```\n\n```layout-test seed_padded\nshape: f32[2,3]{0,1}\npadded: 3,5\nvalues: {{a, b, c}, {d, e, f}}\nbuffer: a d 0 b e 0 c f 0 0 0 0 0 0 0\n```\n";

    #[test]
    fn finds_examples_but_not_quoted_ones() {
        let cases = load_text("book::p", Path::new("p.md"), PAGE);
        let names: Vec<_> = cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["book::p::strided", "book::p::seed_padded"]);
        let CaseBody::Run(rc) = &cases[0].body else {
            panic!("{:?}", cases[0].body)
        };
        assert_eq!(rc.args[0][0].to_string(), "f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
        assert_eq!(cases[0].origin.line, 9);
        let CaseBody::Layout(lc) = &cases[1].body else {
            panic!()
        };
        assert_eq!(lc.values, ["a", "b", "c", "d", "e", "f"]);
        assert_eq!(lc.buffer.len(), 15);
    }

    #[test]
    fn malformed_examples_name_their_line() {
        let page = "x\n```hlo-test bad\nHloModule m\n---\nfoo: 1\n```\n```hlo-test Bad-Name\n```\n";
        let cases = load_text("book::p", Path::new("p.md"), page);
        match &cases[0].body {
            CaseBody::Malformed(m) => assert!(m.starts_with("p.md:5: unknown key"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(cases[1].name, "book::p::line_7");
    }

    #[test]
    fn replicas_sections() {
        let page = "```hlo-test r\nHloModule m\n---\nreplicas: 2\nreplica: 0\nexpected: u32[] 0\nreplica: 1\nexpected: u32[] 1\n```\n";
        let cases = load_text("book::p", Path::new("p.md"), page);
        let CaseBody::Run(rc) = &cases[0].body else {
            panic!("{:?}", cases[0].body)
        };
        assert_eq!(rc.args.len(), 2);
        assert_eq!(
            rc.expect,
            Expect::Values(vec![
                parse_literal("u32[] 0").unwrap(),
                parse_literal("u32[] 1").unwrap()
            ])
        );
    }
}
