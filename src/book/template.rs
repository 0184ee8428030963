//! The op-page template, checked at build time so that every op reads the same way: a summary,
//! then the sections of [`SECTIONS`] in that order. A page about one op has them as `##`
//! headings; a family page that groups several ops gives each op a `##` heading with a summary
//! and the sections as `###` headings under it. Other headings may sit between the sections
//! (a page may need "The channel model"), never before the first or after the last.

use super::fence_run;

/// The sections every op has, in order, spelled exactly so.
pub const SECTIONS: [&str; 8] = [
    "Semantics",
    "Operands",
    "Results",
    "Constraints",
    "Shape inference",
    "Numerics",
    "Examples",
    "Related ops",
];

/// Pages under `ops/` that explain a concept rather than an op.
const CONCEPT_PAGES: &[&str] = &["ops/elementwise/broadcasting.md"];

/// Whether the page at this book-relative path must follow the template.
pub fn is_op_page(path: &str) -> bool {
    path.starts_with("ops/") && !path.ends_with("/index.md") && !CONCEPT_PAGES.contains(&path)
}

struct Heading {
    level: usize,
    title: String,
    line: usize,
}

/// The headings outside code fences, and for each line whether it is prose (not blank, not a
/// heading, not in a fence), indexed by line number from 1.
fn outline(text: &str) -> (Vec<Heading>, Vec<bool>) {
    let mut headings = vec![];
    let mut prose = vec![false];
    let mut fence: Option<(char, usize)> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        let mut is_prose = false;
        if let Some((c, n)) = fence {
            if fence_run(t)
                .is_some_and(|(c2, n2)| c2 == c && n2 >= n && t.trim_matches(c).is_empty())
            {
                fence = None;
            }
        } else if let Some(run) = fence_run(line.trim_start()) {
            fence = Some(run);
        } else if let Some(level) = heading_level(line) {
            headings.push(Heading {
                level,
                title: line[level..].trim().to_string(),
                line: i + 1,
            });
        } else {
            is_prose = !t.is_empty();
        }
        prose.push(is_prose);
    }
    (headings, prose)
}

fn heading_level(line: &str) -> Option<usize> {
    let n = line.chars().take_while(|c| *c == '#').count();
    (1..=6)
        .contains(&n)
        .then_some(n)
        .filter(|_| line[n..].starts_with(' '))
}

/// Checks one op page; each error names the page, the line and what is wrong.
pub fn check(path: &str, text: &str) -> Vec<String> {
    let (headings, prose) = outline(text);
    let mut errors = vec![];
    let Some(title) = headings.iter().position(|h| h.level == 1) else {
        return vec![format!("{path}:1: an op page starts with a `#` title")];
    };
    let level2: Vec<usize> = (title + 1..headings.len())
        .filter(|&i| headings[i].level == 2)
        .collect();
    let single = level2.iter().any(|&i| headings[i].title == SECTIONS[0]);
    // (heading index of the op, level of its sections)
    let ops: Vec<(usize, usize)> = if single {
        vec![(title, 2)]
    } else {
        level2.iter().map(|&i| (i, 3)).collect()
    };
    if ops.is_empty() {
        errors.push(format!(
            "{path}:{}: the page has neither a `## {}` section nor one `##` heading per op",
            headings[title].line, SECTIONS[0]
        ));
    }
    for (at, level) in ops {
        let op = &headings[at];
        let end = (at + 1..headings.len())
            .find(|&i| headings[i].level < level)
            .unwrap_or(headings.len());
        let children: Vec<&Heading> = headings[at + 1..end]
            .iter()
            .filter(|h| h.level == level)
            .collect();
        let who = if single {
            String::new()
        } else {
            format!(" (op section `{}`)", op.title)
        };
        let first_child = children
            .first()
            .map_or(text.lines().count() + 1, |h| h.line);
        if !(op.line + 1..first_child).any(|l| prose.get(l).copied().unwrap_or(false)) {
            errors.push(format!(
                "{path}:{}: the summary is missing{who}: a paragraph before `{}`",
                op.line,
                "#".repeat(level) + " " + SECTIONS[0]
            ));
        }
        let mut next = 0;
        for h in &children {
            if let Some(k) = SECTIONS.iter().position(|s| *s == h.title) {
                match k.cmp(&next) {
                    std::cmp::Ordering::Less => errors.push(format!(
                        "{path}:{}: the section `{}` is out of order{who}: the order is {}",
                        h.line,
                        h.title,
                        SECTIONS.join(", ")
                    )),
                    std::cmp::Ordering::Greater => {
                        // A skipped section that comes later is out of order, and is reported
                        // there; only one that never comes is missing.
                        if let Some(gone) = SECTIONS[next..k]
                            .iter()
                            .find(|s| !children.iter().any(|c| c.title == **s))
                        {
                            errors.push(format!(
                                "{path}:{}: the section `{gone}` is missing{who} (before `{}`)",
                                h.line, h.title
                            ));
                        }
                        next = k + 1;
                    }
                    std::cmp::Ordering::Equal => next = k + 1,
                }
            } else if h.title.starts_with("Related")
                && !children.iter().any(|c| c.title == SECTIONS[7])
            {
                errors.push(format!(
                    "{path}:{}: `{}` is not a template section{who} (write `{}`)",
                    h.line, h.title, SECTIONS[7]
                ));
            } else if next == 0 || next == SECTIONS.len() {
                errors.push(format!(
                    "{path}:{}: `{}` stands {} the template's sections{who}",
                    h.line,
                    h.title,
                    if next == 0 { "before" } else { "after" }
                ));
            }
        }
        if next < SECTIONS.len() {
            errors.push(format!(
                "{path}:{}: the section `{}` is missing{who}",
                op.line, SECTIONS[next]
            ));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(sections: &[&str]) -> String {
        let mut s = "# Op\n\nWhat it does.\n\n".to_string();
        for x in sections {
            s += &format!("## {x}\n\nText.\n\n```hlo-test t\n## not a heading\n```\n\n");
        }
        s
    }

    #[test]
    fn a_complete_page_passes() {
        assert!(check("ops/x/op.md", &page(&SECTIONS)).is_empty());
        let mut with_extra = SECTIONS.to_vec();
        with_extra.insert(1, "The channel model");
        assert!(check("ops/x/op.md", &page(&with_extra)).is_empty());
    }

    #[test]
    fn a_missing_section_is_named() {
        let mut s = SECTIONS.to_vec();
        s.remove(5);
        let e = check("ops/x/op.md", &page(&s));
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].contains("ops/x/op.md") && e[0].contains("`Numerics` is missing"),
            "{e:?}"
        );
        let e = check("ops/x/op.md", &page(&SECTIONS[..7]));
        assert!(e[0].contains("`Related ops` is missing"), "{e:?}");
    }

    #[test]
    fn order_spelling_and_summary() {
        let mut s = SECTIONS.to_vec();
        s.swap(1, 2);
        let e = check("ops/x/op.md", &page(&s));
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].contains("out of order"), "{e:?}");
        let mut s = SECTIONS.to_vec();
        s[7] = "Related operations";
        let e = check("ops/x/op.md", &page(&s));
        assert!(e.iter().any(|m| m.contains("write `Related ops`")), "{e:?}");
        let no_summary = page(&SECTIONS).replace("What it does.\n", "");
        assert!(check("ops/x/op.md", &no_summary)[0].contains("summary is missing"));
    }

    #[test]
    fn family_pages_repeat_the_sections_per_op() {
        let one = |name: &str, skip: Option<&str>| {
            let mut s = format!("## {name}\n\nWhat {name} does.\n\n");
            for x in SECTIONS.iter().filter(|x| Some(**x) != skip) {
                s += &format!("### {x}\n\nText.\n\n");
            }
            s
        };
        let good = format!("# Family\n\n{}{}", one("a", None), one("b", None));
        assert!(check("ops/x/f.md", &good).is_empty());
        let bad = format!(
            "# Family\n\n{}{}",
            one("a", None),
            one("b", Some("Results"))
        );
        let e = check("ops/x/f.md", &bad);
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].contains("`Results` is missing (op section `b`)"),
            "{e:?}"
        );
    }
}
