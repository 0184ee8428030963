use super::*;
use std::path::Path;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn labels_are_collected_outside_code_only() {
    let text = "# P\n\nr[pad.low]\nThe low edge.\n\n```text\nr[pad.in_code]\n```\n\
                r[not a label]\n  r[pad.interior_holes]\n`r[pad.quoted]`\n";
    let got: Vec<String> = labels_of(text).into_iter().map(|(l, _)| l).collect();
    assert_eq!(got, ["pad.low", "pad.interior_holes"]);
    assert_eq!(labels_of(text)[0].1, 3);
}

#[test]
fn label_words_respect_boundaries() {
    let w: Vec<&str> =
        label_words("see dynamic-slice.limit_in_range, then slice.stride.").collect();
    assert_eq!(w, ["dynamic-slice.limit_in_range", "slice.stride"]);
}

fn corpus_with(page: &str, golden_json: &str) -> Corpus {
    let pages = vec![Page {
        path: "ops/t.md".into(),
        labels: labels_of(page),
        cases: crate::conformance::book::load_text("book::ops::t", Path::new("t.md"), page),
        text: page.into(),
    }];
    let golden =
        crate::conformance::golden::load_text("golden::t", Path::new("t.json"), golden_json);
    Corpus {
        pages,
        golden,
        tests: vec![("tests/x.rs".into(), "assert!(e.contains(\"t.b\"));".into())],
    }
}

const PAGE: &str = "# T\n\nr[t.a]\nRule a.\n\nr[t.b]\nRule b.\n\nr[t.c]\nRule c.\n\n\
    ```hlo-test ex\nHloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT a = f32[2] add(p, p)\n}\n---\n\
    arg: f32[2] {1, 2}\nexpected: f32[2] {2, 4}\nrules: t.a\n```\n";

#[test]
fn coverage_counts_examples_golden_and_tests() {
    let g = r#"{"hlo": "HloModule m\nENTRY e {\n ROOT c = f32[] constant(1)\n}\n", "expected_error": "t.c"}"#;
    let c = corpus_with(PAGE, g);
    let cov = coverage::covers(&c).unwrap();
    assert_eq!(
        cov["t.a"].examples,
        [("ops/t.md".to_string(), "ex".to_string())]
    );
    assert_eq!(cov["t.b"].tests, ["tests/x.rs"]);
    assert_eq!(cov["t.c"].golden.len(), 1);
    let page = coverage::page(&c).unwrap();
    assert!(page.contains("3 covered, 0 uncovered"), "{page}");
}

#[test]
fn dangling_golden_label_is_an_error() {
    let g = r#"{"hlo": "HloModule m\nENTRY e {\n ROOT c = f32[] constant(1)\n}\n", "expected": {"shape": "f32[]", "data": [1]}, "rules": ["t.nowhere"]}"#;
    let e = coverage::covers(&corpus_with(PAGE, g))
        .err()
        .expect("must fail");
    assert!(e.to_string().contains("t.nowhere"), "{e}");
    let g2 = r#"{"hlo": "HloModule m\nENTRY e {\n ROOT c = f32[] constant(1)\n}\n", "expected_error": "t.missing_rule"}"#;
    assert!(coverage::covers(&corpus_with(PAGE, g2)).is_err());
}

#[test]
fn trial_names_are_found_across_lines() {
    let src = "fn trial(name: &str) {}\nvec![trial(\"a_b\", 1), trial(\n  \"pad_formula\",\n 2),\n\
               Trial::test(format!(\"prop::linalg::dot_fast_{}\", k), f), Trial::test(\"prop::x::y_z\", g)]";
    assert_eq!(
        status::trial_names_for_test(src),
        ["a_b", "pad_formula", "dot_fast", "y_z"]
    );
}

#[test]
fn status_page_lists_every_seed_op() {
    let headings = status::row_headings();
    assert_eq!(headings.len(), 62, "the seed has 62 op headings");
    let corpus = Corpus::load(repo()).unwrap();
    let page = status::page_for(repo(), &corpus, &headings).unwrap();
    let section = page.split("\n## Opcodes without").next().unwrap_or("");
    let rows: Vec<&str> = section
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Op "))
        .collect();
    // One row per heading, plus the Shapes and Layout chapter.
    assert_eq!(rows.len(), headings.len() + 1, "{page}");
    for (h, r) in headings.iter().zip(&rows) {
        assert!(r.starts_with(&format!("| {}", cell(h))), "{h} vs {r}");
    }
}

#[test]
fn seed_headings_skip_code_blocks() {
    let seed = "# Operation semantics\n\n## Pad\n\n```\n## NotAHeading\n```\n\n## Unknown op\n";
    assert_eq!(status::seed_headings(seed), ["Pad", "Unknown op"]);
}

/// A contributor's cross-check, where the seeds are checked out beside the repository (they are
/// not part of it, and CI does not have them): the recorded rows are the seed's headings.
#[test]
fn recorded_rows_match_the_seed_when_it_is_present() {
    let path = repo().join("../shared/reference/operation_semantics.en.md");
    let Ok(seed) = std::fs::read_to_string(&path) else {
        return;
    };
    let keys: Vec<String> = status::seed_headings(&seed)
        .into_iter()
        .map(|h| h.split(" (").next().unwrap_or(&h).trim().to_string())
        .collect();
    assert_eq!(keys, status::row_headings());
}

/// The pages that carry a figure.
const FIGURE_PAGES: [&str; 6] = [
    "ops/movement/pad.md",
    "ops/indexing/gather.md",
    "ops/reduction/reduce-window.md",
    "ops/reduction/select-and-scatter.md",
    "ops/linalg/convolution.md",
    "shapes-and-layout.md",
];

#[test]
fn figure_fences_become_svg() {
    for page in FIGURE_PAGES {
        let text = std::fs::read_to_string(repo().join("book/src").join(page)).unwrap();
        assert!(text.contains("```figure"), "{page} has no figure");
        let out = expand_figures(page, &text).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(out.contains("<svg"), "{page}");
        assert!(!out.contains("```figure"), "{page}");
        // Everything but the figure is untouched.
        assert_eq!(
            out.matches("```hlo-test").count(),
            text.matches("```hlo-test").count()
        );
        // An HTML block ends at a blank line: the figure must be one line.
        let fig = out.lines().find(|l| l.contains("<svg")).unwrap_or("");
        assert!(
            fig.starts_with("<figure") && fig.ends_with("</figure>"),
            "{page}"
        );
    }
}

#[test]
fn figure_pad_from_inline_example_and_errors() {
    let page = "```hlo-test p\nHloModule m\nENTRY e {\n  p = f32[3] parameter(0)\n  v = f32[] constant(0)\n  ROOT r = f32[8] pad(p, v), padding=1_2_1\n}\n---\narg: f32[3] {1, 2, 3}\nexpected: f32[8] {0, 1, 0, 2, 0, 3, 0, 0}\n```\n\n```figure pad\nexample: p\n```\n";
    let out = expand_figures("t.md", page).unwrap();
    assert!(out.contains("<svg") && out.contains(">3</text>"), "{out}");
    let bad = page.replace("example: p", "example: nope");
    let e = expand_figures("t.md", &bad).expect_err("unknown example");
    assert!(e.to_string().contains("t.md:13"), "{e}");
    let kind = page.replace("figure pad", "figure reduce-window");
    assert!(expand_figures("t.md", &kind).is_err());
}

/// Writes the generated pages to /tmp for inspection: `cargo test --lib dump_generated -- --ignored`.
#[test]
#[ignore]
fn dump_generated() {
    for (p, text) in generated_pages(repo()).unwrap() {
        let out = Path::new("/tmp/bookgen").join(p);
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        std::fs::write(out, text).unwrap();
    }
    for page in FIGURE_PAGES {
        let text = std::fs::read_to_string(repo().join("book/src").join(page)).unwrap();
        let out = expand_figures(page, &text).unwrap();
        for (k, l) in out.lines().filter(|l| l.contains("<svg")).enumerate() {
            let a = l.find("<svg").unwrap();
            let b = l.find("</svg>").unwrap() + 6;
            let name = page.replace('/', "_").replace(".md", "");
            std::fs::write(format!("/tmp/bookgen/{name}_{k}.svg"), &l[a..b]).unwrap();
        }
    }
}
