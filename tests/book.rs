//! `xla-spec book` and `xla-spec mdbook-preprocess` end to end: the real book renders (MathML,
//! computed results, anchors, figures, generated pages, search index), and a small book in a
//! temporary directory shows that a broken example, a duplicate label or a dangling reference
//! fails the build with a message naming the page.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_xla-spec"))
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xla-spec-book-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const ADD: &str =
    "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT a = f32[2] add(p, p)\n}\n";

/// A book at `<dir>/book` with an introduction, one op page (`page`) and the generated pages.
fn small_book(dir: &Path, page: &str) -> PathBuf {
    let book = dir.join("book");
    let src = book.join("src");
    std::fs::create_dir_all(src.join("reference")).unwrap();
    std::fs::create_dir_all(src.join("ops")).unwrap();
    std::fs::write(book.join("book.toml"), "[book]\ntitle = \"Small\"\n").unwrap();
    std::fs::write(
        src.join("SUMMARY.md"),
        "# Summary\n\n[Intro](intro.md)\n\n# Ops\n\n- [Double](ops/double.md)\n\n# Reference\n\n- [Rule coverage](reference/coverage.md)\n- [Op status](reference/status.md)\n",
    )
    .unwrap();
    std::fs::write(
        src.join("intro.md"),
        "# Intro\n\nThe rule [r:double.same_shape] matters. $a^2$\n",
    )
    .unwrap();
    std::fs::write(src.join("ops").join("double.md"), page).unwrap();
    for p in ["coverage", "status"] {
        std::fs::write(
            src.join("reference").join(format!("{p}.md")),
            "# placeholder\n",
        )
        .unwrap();
    }
    book
}

/// The sections of the op-page template, each with a line of text.
fn template_sections(skip: &str) -> String {
    [
        "Semantics",
        "Operands",
        "Results",
        "Constraints",
        "Shape inference",
        "Numerics",
        "Examples",
        "Related ops",
    ]
    .iter()
    .filter(|s| **s != skip)
    .map(|s| format!("\n## {s}\n\nText.\n"))
    .collect()
}

fn good_page() -> String {
    format!(
        "# Double\n\nr[double.same_shape]\nThe result has the operand's shape.\n\n```hlo-test twice\n{ADD}---\narg: f32[2] {{1, 2.5}}\nexpected: f32[2] {{2, 5}}\n```\n{}",
        template_sections("")
    )
}

fn build(book: &Path, out: &Path) -> Output {
    bin()
        .arg("book")
        .arg("--book")
        .arg(book)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn the_real_book_renders_offline_with_its_checks() {
    let out = scratch("real").join("html");
    let o = build(&repo().join("book"), &out);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("examples checked"), "{said}");

    // Formulas are MathML, with no script or style from elsewhere.
    let bn = read(&out.join("ops/numerics/batch-norm.html"));
    assert!(bn.matches("<math").count() >= 5, "batch-norm has MathML");
    assert!(bn.contains("<mfrac>") && bn.contains("display=\"block\""));
    for f in ["ops/indexing/gather.html", "ops/elementwise/unary.html"] {
        assert!(read(&out.join(f)).contains("<math"), "{f} has MathML");
    }
    for p in ["ops/numerics/batch-norm.html", "search.html", "index.html"] {
        let h = read(&out.join(p));
        assert!(
            !h.contains("https://") && !h.contains("http://"),
            "{p} links out"
        );
    }
    assert!(!read(&out.join("assets/book.css")).contains("url("));

    // An example shows what the reference runtime computed (the seed's slice example).
    let slice = read(&out.join("ops/movement/slice.html"));
    assert!(
        slice.contains("Computed by the reference runtime"),
        "slice shows results"
    );
    assert!(slice.contains("<pre class=\"computed-value\">f32[2] {2, 3}</pre>"));
    // Refusals show the verifier's message, which cites the rule.
    assert!(slice.contains("Refused by the reference runtime, as stated:"));

    // Rule labels are anchors.
    assert!(slice.contains("id=\"slice.limit_in_range\" href=\"#slice.limit_in_range\""));

    // Figures are drawn into the page.
    assert!(read(&out.join("ops/movement/pad.html")).contains("<svg"));

    // Generated pages.
    let cov = read(&out.join("reference/coverage.html"));
    assert!(cov.contains("slice.limit_in_range"), "coverage lists rules");
    assert!(cov.contains("../ops/movement/slice.html#slice.limit_in_range"));
    let status = read(&out.join("reference/status.html"));
    for op in ["Gather", "Scatter", "ReduceWindow", "BatchNormTraining"] {
        assert!(status.contains(op), "status lists {op}");
    }

    // Search index: op names with their pages.
    let idx = read(&out.join("search-index.js"));
    assert!(idx.starts_with("// Generated"));
    for (title, page) in [
        ("Gather", "ops/indexing/gather.html"),
        ("Pad", "ops/movement/pad.html"),
    ] {
        assert!(idx.contains(&format!("\"p\":\"{page}\"")), "{page} indexed");
        assert!(idx.contains(title), "{title} indexed");
    }
    assert!(read(&out.join("search.html")).contains("assets/search.js"));
}

#[test]
fn a_small_book_renders_references_and_results() {
    let dir = scratch("good");
    let book = small_book(&dir, &good_page());
    let out = dir.join("out");
    let o = build(&book, &out);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let intro = read(&out.join("intro.html"));
    assert!(
        intro.contains("href=\"ops/double.html#double.same_shape\""),
        "{intro}"
    );
    assert!(intro.contains("<math"), "{intro}");
    let page = read(&out.join("ops/double.html"));
    assert!(page.contains("id=\"double.same_shape\""), "{page}");
    assert!(page.contains("f32[2] {2, 5}</pre>"), "{page}");
    assert!(read(&out.join("reference/coverage.html")).contains("double.same_shape"));
    assert!(out.join("reference/status.html").exists());
}

#[test]
fn a_wrong_example_fails_the_build_naming_page_and_example() {
    let dir = scratch("wrong");
    let page = good_page().replace("expected: f32[2] {2, 5}", "expected: f32[2] {2, 6}");
    let out = dir.join("out");
    let o = build(&small_book(&dir, &page), &out);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("example `twice` of ops/double.md fails") && e.contains("want 6"),
        "{e}"
    );
    assert!(e.contains("double.md:6"), "the line of the fence: {e}");
    assert!(
        !out.join("ops/double.html").exists(),
        "nothing written on failure"
    );
}

#[test]
fn a_duplicate_label_fails_the_build() {
    let dir = scratch("dup");
    let page = format!("{}\nr[double.same_shape]\nAgain.\n", good_page());
    let o = build(&small_book(&dir, &page), &dir.join("out"));
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains(
            &format!(
                "ops/double.md:{}: the label r[double.same_shape] is already defined at ops/double.md:3",
                good_page().lines().count() + 2
            )
        ),
        "{e}"
    );
}

#[test]
fn an_op_page_that_breaks_the_template_fails_the_build() {
    let dir = scratch("template");
    let page = good_page().replace(&template_sections(""), &template_sections("Numerics"));
    let out = dir.join("out");
    let o = build(&small_book(&dir, &page), &out);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("ops/double.md:") && e.contains("the section `Numerics` is missing"),
        "{e}"
    );
    let page = good_page().replace("## Related ops", "## Related operations");
    let o = build(&small_book(&dir, &page), &out);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("write `Related ops`"), "{}", stderr(&o));
}

#[test]
fn a_dangling_reference_fails_the_build() {
    let dir = scratch("dangling");
    let page = format!("{}\nSee [r:double.no_such_rule].\n", good_page());
    let o = build(&small_book(&dir, &page), &dir.join("out"));
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains(&format!(
            "ops/double.md:{}: the reference [r:double.no_such_rule] names a label no page defines",
            good_page().lines().count() + 2
        )),
        "{e}"
    );
}

#[test]
fn bad_arguments_and_missing_books_are_usage_errors() {
    let o = bin().args(["book", "--frobnicate"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = bin()
        .args(["book", "--book", "/nonexistent/book"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot open the book"),
        "{}",
        stderr(&o)
    );
}

fn preprocess(input: &str) -> Output {
    let mut c = bin()
        .arg("mdbook-preprocess")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    c.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    c.wait_with_output().unwrap()
}

fn chapter(name: &str, path: &str, content: &str) -> serde_json::Value {
    serde_json::json!({"Chapter": {
        "name": name, "content": content, "number": null, "sub_items": [],
        "path": path, "source_path": path, "parent_names": []
    }})
}

#[test]
fn mdbook_preprocessor_speaks_the_protocol() {
    let ok = bin()
        .args(["mdbook-preprocess", "supports", "html"])
        .status()
        .unwrap();
    assert_eq!(ok.code(), Some(0));
    let no = bin()
        .args(["mdbook-preprocess", "supports", "pdf"])
        .status()
        .unwrap();
    assert_eq!(no.code(), Some(1));

    let dir = scratch("mdbook");
    let book = small_book(&dir, &good_page());
    let ctx = serde_json::json!({
        "root": book, "renderer": "html", "mdbook_version": "0.4.40",
        "config": {"book": {"src": "src", "title": "Small"}}
    });
    let mut intro = chapter("Intro", "intro.md", &read(&book.join("src/intro.md")));
    intro["Chapter"]["sub_items"] =
        serde_json::json!([chapter("Double", "ops/double.md", &good_page())]);
    let input = serde_json::json!([ctx, {"sections": [
        intro,
        "Separator",
        {"PartTitle": "Reference"},
        chapter("Rule coverage", "reference/coverage.md", "# placeholder\n"),
        chapter("Op status", "reference/status.md", "# placeholder\n"),
    ], "__non_exhaustive": null}]);
    let o = preprocess(&input.to_string());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let s = &v["sections"];
    let intro = s[0]["Chapter"]["content"].as_str().unwrap();
    assert!(intro.contains("<math"), "{intro}");
    assert!(
        intro.contains("[`double.same_shape`](ops/double.md#double.same_shape)"),
        "{intro}"
    );
    let double = s[0]["Chapter"]["sub_items"][0]["Chapter"]["content"]
        .as_str()
        .unwrap();
    assert!(
        double.contains("<div class=\"computed\" data-example=\"twice\">"),
        "{double}"
    );
    assert!(double.contains("id=\"double.same_shape\""), "{double}");
    assert_eq!(s[1], "Separator");
    let cov = s[3]["Chapter"]["content"].as_str().unwrap();
    assert!(
        cov.starts_with("# Rule coverage") && cov.contains("double.same_shape"),
        "{cov}"
    );
    assert!(
        s[4]["Chapter"]["content"]
            .as_str()
            .unwrap()
            .starts_with("# Op status")
    );

    // A failing example fails the mdbook build too.
    let bad = input
        .to_string()
        .replace("expected: f32[2] {2, 5}", "expected: f32[2] {9, 9}");
    let o = preprocess(&bad);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("example `twice`"), "{}", stderr(&o));

    let o = preprocess("not json");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not JSON"), "{}", stderr(&o));
}
