//! The crate's layers point down. Each top-level module has a layer; a module may name
//! (`crate::x`) only modules of a lower layer. Comments and `#[cfg(test)]` blocks are not the
//! product and are skipped (a verifier test may well run the evaluator).
//!
//! Layers, bottom to top: error; element types and the token cursor; shapes (with shape text and
//! window arithmetic); literals; the HLO front end and the kernels (which need only types and
//! literals); the verifier; the evaluator; backends; conformance; the book; the CLI.

use std::path::{Path, PathBuf};

const LAYERS: &[(&str, u32)] = &[
    ("error", 0),
    ("types", 1),
    ("syntax", 1),
    ("shape", 2),
    ("literal", 3),
    ("hlo", 4),
    ("kernels", 4),
    ("verify", 5),
    ("eval", 6),
    ("backend", 7),
    ("conformance", 8),
    ("book", 9),
    ("cli", 10),
];

fn layer(module: &str) -> Option<u32> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, l)| *l)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source directory") {
        let p = entry.expect("directory entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The lines of `src` that are product code: comments and `#[cfg(test)]` items removed.
fn product_lines(src: &str) -> Vec<(usize, String)> {
    let mut out = vec![];
    let mut skip_depth: Option<i64> = None;
    let mut pending_test = false;
    let mut depth = 0i64;
    for (i, raw) in src.lines().enumerate() {
        let line = match raw.find("//") {
            Some(k) => &raw[..k],
            None => raw,
        };
        let trimmed = line.trim();
        if trimmed.starts_with("#[cfg(test)]") {
            pending_test = true;
            continue;
        }
        let opens = line.matches('{').count() as i64;
        let closes = line.matches('}').count() as i64;
        if pending_test && skip_depth.is_none() {
            // The item the attribute applies to: a block, or a single line ending in `;`.
            if opens > 0 {
                skip_depth = Some(depth);
            }
            pending_test = opens == 0 && !trimmed.ends_with(';');
            depth += opens - closes;
            if skip_depth == Some(depth) {
                skip_depth = None;
            }
            continue;
        }
        depth += opens - closes;
        if let Some(d) = skip_depth {
            if depth <= d {
                skip_depth = None;
            }
            continue;
        }
        out.push((i + 1, line.to_string()));
    }
    out
}

/// The first path segments after `crate::`: one name, or each item of a `{a::x, b}` group.
fn named_modules(rest: &str) -> Vec<String> {
    let word = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    match rest.strip_prefix('{') {
        Some(group) => {
            let body = group.split('}').next().unwrap_or("");
            body.split(',')
                .map(word)
                .filter(|w| !w.is_empty())
                .collect()
        }
        None => vec![word(rest)],
    }
}

#[test]
fn every_crate_path_points_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    rust_files(&src, &mut files);
    files.sort();
    let mut bad = vec![];
    let mut checked = 0;
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src");
        let top = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .map(|s| s.trim_end_matches(".rs").to_string())
            .unwrap_or_default();
        let Some(own) = layer(&top) else {
            continue; // lib.rs, main.rs: the crate root names everything
        };
        let text = std::fs::read_to_string(f).expect("readable source file");
        for (n, line) in product_lines(&text) {
            let mut rest = line.as_str();
            while let Some(k) = rest.find("crate::") {
                rest = &rest[k + "crate::".len()..];
                for name in named_modules(rest) {
                    checked += 1;
                    if let Some(l) = layer(&name)
                        && name != top
                        && l >= own
                    {
                        bad.push(format!(
                            "{}:{n}: `{top}` (layer {own}) uses `crate::{name}` (layer {l})",
                            rel.display()
                        ));
                    }
                }
            }
        }
    }
    assert!(checked > 100, "the scan found only {checked} crate paths");
    assert!(bad.is_empty(), "uses that point up:\n{}", bad.join("\n"));
}

#[test]
fn the_scanner_sees_through_comments_and_test_blocks() {
    let src = "use crate::a;\n// crate::b\n#[cfg(test)]\nmod tests {\n    use crate::c;\n}\nfn f() { crate::d(); }\n#[cfg(test)]\nuse crate::e;\n";
    let kept: Vec<String> = product_lines(src).into_iter().map(|(_, l)| l).collect();
    let joined = kept.join("\n");
    assert!(joined.contains("crate::a") && joined.contains("crate::d"));
    assert!(!joined.contains("crate::b") && !joined.contains("crate::c"));
    assert!(!joined.contains("crate::e"));
    assert_eq!(named_modules("{eval::run, hlo}; x"), ["eval", "hlo"]);
    assert_eq!(named_modules("shape::Shape;"), ["shape"]);
}
