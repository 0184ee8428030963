//! `SUMMARY.md`, mdbook's table of contents: it gives the page order and the sidebar.

/// One line of the table of contents.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// `# Part title`.
    Part(String),
    /// `- [Title](path.md)` (nested by indentation) or a prefix chapter `[Title](path.md)`.
    Chapter {
        title: String,
        path: String,
        depth: usize,
    },
}

/// Parses `SUMMARY.md`. Errors name the line.
pub fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    // Indentation widths of the open list levels.
    let mut indents: Vec<usize> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let t = raw.trim();
        if t.is_empty() || t == "---" {
            continue;
        }
        if let Some(h) = t.strip_prefix('#') {
            // The first heading is the title of the summary itself.
            if out.is_empty() && h.trim() == "Summary" {
                continue;
            }
            out.push(Entry::Part(h.trim_start_matches('#').trim().to_string()));
            indents.clear();
            continue;
        }
        let indent = raw.len() - raw.trim_start().len();
        let (item, depth) = match t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) {
            Some(rest) => {
                while indents.last().is_some_and(|w| *w > indent) {
                    indents.pop();
                }
                if indents.last() != Some(&indent) {
                    indents.push(indent);
                }
                (rest.trim(), indents.len() - 1)
            }
            None => (t, 0),
        };
        let parsed = item
            .strip_prefix('[')
            .and_then(|r| r.split_once("]("))
            .and_then(|(title, r)| r.strip_suffix(')').map(|p| (title, p)));
        match parsed {
            Some((title, path)) if !path.trim().is_empty() => out.push(Entry::Chapter {
                title: title.to_string(),
                path: path.trim().to_string(),
                depth,
            }),
            _ => {
                return Err(format!(
                    "SUMMARY.md:{line}: expected `- [Title](page.md)`, found {t:?}"
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_chapters_and_nesting() {
        let s = "# Summary\n\n[Intro](intro.md)\n\n# Ops\n\n- [A](a.md)\n    - [B](a/b.md)\n- [C](c.md)\n";
        let e = parse(s).unwrap();
        assert_eq!(
            e,
            vec![
                Entry::Chapter {
                    title: "Intro".into(),
                    path: "intro.md".into(),
                    depth: 0
                },
                Entry::Part("Ops".into()),
                Entry::Chapter {
                    title: "A".into(),
                    path: "a.md".into(),
                    depth: 0
                },
                Entry::Chapter {
                    title: "B".into(),
                    path: "a/b.md".into(),
                    depth: 1
                },
                Entry::Chapter {
                    title: "C".into(),
                    path: "c.md".into(),
                    depth: 0
                },
            ]
        );
        assert!(parse("- nonsense\n").unwrap_err().contains("SUMMARY.md:1"));
    }
}
