//! The op status page: one row per op of the Operation Semantics seed (every `##` heading of
//! `operation_semantics.en.md` keeps its row, mapped or not) plus the Shapes and Layout chapter,
//! then the opcodes the runtime knows that no seed heading names.
//!
//! Each column is derived, not typed in:
//! - examples: the runnable examples of the op's page whose module uses one of the row's opcodes;
//! - golden cases: golden cases whose ENTRY computation uses one of them;
//! - property tests: `prop::` trials, found in `spec-tests/props/*.rs`, whose name mentions the
//!   op (its opcode words, or a short alias such as `dus`), the longest matching name winning;
//! - element types: for each of those examples, the operand element type of the op is replaced by
//!   each type in turn and the module re-verified; the union of the accepted types is shown (a
//!   lower bound of what the verifier accepts);
//! - reference: the examples and golden cases run on the reference runtime now;
//! - one column per other backend (XLA:CPU, StableHLO's interpreter, IREE): the same cases in
//!   `backends/<backend>/report.json` (the `xla-spec conform --report` output of the backend's
//!   `run.sh`), counted as passes, expected failures where the backend answers otherwise, and
//!   unsupported; a backend without a report has no column. This makes the page the backend
//!   matrix too.

use super::{Corpus, case_hlo, cell, link_from_reference};
use crate::conformance::{Case, Status};
use crate::hlo::opcode::Opcode;
use crate::shape::Shape;
use crate::types::ElementType;
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// A seed heading mapped to the opcodes that implement it, its page and extra words that name it
/// in property-test names.
struct RowSpec {
    heading: &'static str,
    ops: &'static [&'static str],
    page: &'static str,
    aliases: &'static [&'static str],
}

const fn row(
    heading: &'static str,
    ops: &'static [&'static str],
    page: &'static str,
    aliases: &'static [&'static str],
) -> RowSpec {
    RowSpec {
        heading,
        ops,
        page,
        aliases,
    }
}

const UNARY: &[&str] = &[
    "abs",
    "cbrt",
    "ceil",
    "count-leading-zeros",
    "cosine",
    "erf",
    "exponential",
    "exponential-minus-one",
    "floor",
    "imag",
    "is-finite",
    "log",
    "log-plus-one",
    "logistic",
    "negate",
    "not",
    "popcnt",
    "real",
    "round-nearest-afz",
    "round-nearest-even",
    "rsqrt",
    "sign",
    "sine",
    "sqrt",
    "tan",
    "tanh",
];

const BINARY: &[&str] = &[
    "add",
    "subtract",
    "multiply",
    "divide",
    "power",
    "remainder",
    "maximum",
    "minimum",
    "and",
    "or",
    "xor",
    "shift-left",
    "shift-right-arithmetic",
    "shift-right-logical",
    "atan2",
    "complex",
];

/// Seed headings (their text up to the first ` (`) to opcodes and pages. A heading missing here
/// still gets a row, saying it has no page.
#[rustfmt::skip]
const ROWS: &[RowSpec] = &[
    row("AfterAll", &["after-all"], "ops/control/after-all.md", &[]),
    row("AllGather", &["all-gather"], "ops/collective/all-gather.md", &[]),
    row("AllReduce", &["all-reduce"], "ops/collective/all-reduce.md", &[]),
    row("AllToAll", &["all-to-all"], "ops/collective/all-to-all.md", &[]),
    row("BatchNormGrad", &["batch-norm-grad"], "ops/numerics/batch-norm.md", &[]),
    row("BatchNormInference", &["batch-norm-inference"], "ops/numerics/batch-norm.md", &[]),
    row("BatchNormTraining", &["batch-norm-training"], "ops/numerics/batch-norm.md", &[]),
    row("BitcastConvertType", &["bitcast-convert"], "ops/elementwise/conversion.md", &[]),
    row("Broadcast", &["broadcast"], "ops/movement/broadcast.md", &[]),
    row("BroadcastInDim", &["broadcast"], "ops/movement/broadcast-in-dim.md", &[]),
    row("Call", &["call"], "ops/control/call.md", &[]),
    row("CompositeCall", &["call"], "ops/control/call.md", &["composite"]),
    row("Cholesky", &["cholesky"], "ops/numerics/cholesky.md", &[]),
    row("Clamp", &["clamp"], "ops/elementwise/clamp-select.md", &[]),
    row("Collapse", &["reshape"], "ops/movement/collapse.md", &["collapse"]),
    row("CollectivePermute", &["collective-permute"], "ops/collective/collective-permute.md", &[]),
    row("Concatenate", &["concatenate"], "ops/movement/concatenate.md", &[]),
    row("Conditional", &["conditional"], "ops/control/conditional.md", &[]),
    row("Conv", &["convolution"], "ops/linalg/convolution.md", &["conv"]),
    row("ConvWithGeneralPadding", &["convolution"], "ops/linalg/convolution.md", &["conv"]),
    row("ConvertElementType", &["convert"], "ops/elementwise/conversion.md", &["conversions"]),
    row("CrossReplicaSum", &["all-reduce"], "ops/collective/all-reduce.md", &[]),
    row("CustomCall", &["custom-call"], "ops/control/custom-call.md", &[]),
    row("Dot", &["dot"], "ops/linalg/dot.md", &[]),
    row("DotGeneral", &["dot"], "ops/linalg/dot.md", &[]),
    row("DynamicSlice", &["dynamic-slice"], "ops/movement/dynamic-slice.md", &["ds"]),
    row("DynamicUpdateSlice", &["dynamic-update-slice"], "ops/movement/dynamic-update-slice.md", &["dus"]),
    row("Element-wise binary arithmetic operations", BINARY, "ops/elementwise/binary.md", &["arithmetic", "commutativity", "morgan"]),
    row("Element-wise comparison operations", &["compare"], "ops/elementwise/comparison.md", &[]),
    row("Element-wise unary functions", UNARY, "ops/elementwise/unary.md", &["accuracy", "mpmath"]),
    row("Fft", &["fft"], "ops/numerics/fft.md", &["rfft", "parseval", "dft"]),
    row("Gather", &["gather"], "ops/indexing/gather.md", &[]),
    row("GetDimensionSize", &["get-dimension-size"], "ops/movement/get-dimension-size.md", &[]),
    row("SetDimensionSize", &["set-dimension-size"], "ops/movement/set-dimension-size.md", &[]),
    row("GetTupleElement", &["get-tuple-element"], "ops/movement/get-tuple-element.md", &[]),
    row("Infeed", &["infeed"], "ops/control/infeed.md", &[]),
    row("Iota", &["iota"], "ops/movement/iota.md", &[]),
    row("Map", &["map"], "ops/reduction/map.md", &[]),
    row("OptimizationBarrier", &["opt-barrier"], "ops/control/opt-barrier.md", &[]),
    row("Pad", &["pad"], "ops/movement/pad.md", &[]),
    row("Recv", &["recv", "recv-done"], "ops/control/recv.md", &["channel"]),
    row("Reduce", &["reduce"], "ops/reduction/reduce.md", &[]),
    row("ReducePrecision", &["reduce-precision"], "ops/elementwise/reduce-precision.md", &[]),
    row("ReduceScatter", &["reduce-scatter"], "ops/collective/reduce-scatter.md", &[]),
    row("ReduceWindow", &["reduce-window"], "ops/reduction/reduce-window.md", &["window"]),
    row("ReplicaId", &["replica-id"], "ops/collective/replica-id.md", &[]),
    row("Reshape", &["reshape"], "ops/movement/reshape.md", &[]),
    row("Rev", &["reverse"], "ops/movement/reverse.md", &[]),
    row("RngNormal", &["rng"], "ops/numerics/rng.md", &[]),
    row("RngUniform", &["rng"], "ops/numerics/rng.md", &[]),
    row("RngBitGenerator", &["rng-bit-generator"], "ops/numerics/rng-bit-generator.md", &["philox"]),
    row("Scatter", &["scatter"], "ops/indexing/scatter.md", &[]),
    row("Select", &["select"], "ops/elementwise/clamp-select.md", &[]),
    row("SelectAndScatter", &["select-and-scatter"], "ops/reduction/select-and-scatter.md", &[]),
    row("Send", &["send", "send-done"], "ops/control/send.md", &["channel"]),
    row("Slice", &["slice"], "ops/movement/slice.md", &[]),
    row("Sort", &["sort"], "ops/reduction/sort.md", &[]),
    row("TopK", &["topk"], "ops/reduction/topk.md", &[]),
    row("Transpose", &["transpose"], "ops/movement/transpose.md", &[]),
    row("TriangularSolve", &["triangular-solve"], "ops/numerics/triangular-solve.md", &[]),
    row("Tuple", &["tuple"], "ops/movement/tuple.md", &[]),
    row("While", &["while"], "ops/control/while.md", &["iteration"]),
];

/// The Shapes and Layout chapter's row: its page, and every `prop::layout` trial.
const SHAPES_ROW: RowSpec = row(
    "Shapes and layout (chapter)",
    &[],
    "shapes-and-layout.md",
    &["layout"],
);

/// The op headings (`## ...`) of the Operation Semantics seed, outside code blocks (the tests
/// compare them with `ROWS` where the seed is at hand).
#[cfg(test)]
pub(crate) fn seed_headings(seed: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for l in seed.lines() {
        if l.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && let Some(h) = l.strip_prefix("## ") {
            out.push(h.trim().to_string());
        }
    }
    out
}

/// A row's mapping, owned (rows for unmapped opcodes are built at run time).
#[derive(Clone)]
struct Spec {
    ops: Vec<&'static str>,
    page: String,
    aliases: Vec<&'static str>,
}

impl From<&RowSpec> for Spec {
    fn from(r: &RowSpec) -> Spec {
        Spec {
            ops: r.ops.to_vec(),
            page: r.page.to_string(),
            aliases: r.aliases.to_vec(),
        }
    }
}

fn spec_for(heading: &str) -> Option<Spec> {
    let key = heading.split(" (").next().unwrap_or(heading).trim();
    ROWS.iter().find(|r| r.heading == key).map(Spec::from)
}

/// `prop::<area>::<name>` trial names found in the property-test sources: the string literal
/// after each `trial(` / `Trial::test(` / `runner_trial(`-style call.
pub(crate) fn prop_trials(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    super::walk(&root.join("spec-tests").join("props"), "rs", &mut files);
    let mut out = Vec::new();
    for f in files {
        let Some(area) = f.file_stem().and_then(|s| s.to_str()).map(str::to_string) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        out.extend(
            trial_names(&text)
                .into_iter()
                .map(|n| format!("prop::{area}::{n}")),
        );
    }
    out.sort();
    out.dedup();
    out
}

fn trial_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("rial") {
        let before = &rest[..i];
        let after = &rest[i + 4..];
        rest = after;
        // `trial(`, `Trial::test(`, but not `fn trial(` (the helper's definition).
        let call = if let Some(a) = after.strip_prefix("::test(") {
            a
        } else if let Some(a) = after.strip_prefix('(') {
            if before.ends_with("fn t")
                || before.ends_with("fn runner_t")
                || before.ends_with("fn seeded_t")
            {
                continue;
            }
            a
        } else {
            continue;
        };
        let mut a = call.trim_start();
        if let Some(x) = a.strip_prefix("format!(") {
            a = x.trim_start();
        }
        let Some(lit) = a.strip_prefix('"') else {
            continue;
        };
        let Some(end) = lit.find('"') else {
            continue;
        };
        let name = &lit[..end];
        // Strip a `prop::<area>::` prefix and a `{...}` placeholder suffix.
        let name = name.rsplit("::").next().unwrap_or(name);
        let name = name.split('{').next().unwrap_or(name).trim_end_matches('_');
        if !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        {
            out.push(name.to_string());
        }
    }
    out
}

/// Which rows each trial counts for: its name's words are matched against every row's keywords
/// (opcode words and aliases), the longest keyword at each position winning.
fn props_per_row(trials: &[String], rows: &[Option<Spec>]) -> Vec<Vec<String>> {
    let mut keywords: Vec<(Vec<String>, usize)> = Vec::new();
    for (r, spec) in rows.iter().enumerate() {
        let Some(spec) = spec else { continue };
        for k in spec.ops.iter().chain(&spec.aliases) {
            keywords.push((k.split(['-', '_']).map(str::to_string).collect(), r));
        }
    }
    let mut out = vec![Vec::new(); rows.len()];
    for t in trials {
        let mut parts = t.split("::");
        let (_, area, name) = (
            parts.next(),
            parts.next().unwrap_or(""),
            parts.next().unwrap_or(""),
        );
        let words: Vec<&str> = name.split('_').collect();
        let mut hit: BTreeSet<usize> = BTreeSet::new();
        // The whole area (`prop::layout::*`) counts for a row naming the area.
        for (kw, r) in &keywords {
            if kw.len() == 1 && kw[0] == area && rows[*r].as_ref().is_some_and(|s| s.ops.is_empty())
            {
                hit.insert(*r);
            }
        }
        let mut i = 0;
        while i < words.len() {
            let best = keywords
                .iter()
                .filter(|(kw, _)| {
                    words[i..].starts_with(&kw.iter().map(String::as_str).collect::<Vec<_>>())
                })
                .map(|(kw, _)| kw.len())
                .max();
            match best {
                Some(n) => {
                    for (kw, r) in &keywords {
                        if kw.len() == n
                            && words[i..]
                                .starts_with(&kw.iter().map(String::as_str).collect::<Vec<_>>())
                        {
                            hit.insert(*r);
                        }
                    }
                    i += n;
                }
                None => i += 1,
            }
        }
        for r in hit {
            out[r].push(t.clone());
        }
    }
    out
}

/// Does the module text contain an instruction with one of these opcodes?
fn uses_op(hlo: &str, ops: &[&str]) -> bool {
    ops.iter().any(|op| {
        let pat = format!(" {op}(");
        hlo.contains(&pat)
    })
}

/// Does the ENTRY computation use one of these opcodes? (Falls back to the whole text when the
/// module does not parse.)
fn entry_uses_op(hlo: &str, ops: &[&str]) -> bool {
    match crate::hlo::parse_module(hlo) {
        Ok(m) => m
            .entry()
            .instructions
            .iter()
            .any(|i| ops.contains(&i.opcode().name())),
        Err(_) => uses_op(hlo, ops),
    }
}

/// The element types the verifier accepts for the op in this example when its operand type is
/// replaced by each type in turn.
fn accepted_types(hlo: &str, ops: &[&str]) -> BTreeSet<ElementType> {
    let mut out = BTreeSet::new();
    let Ok(m) = crate::verify::parse_and_verify(hlo) else {
        return out;
    };
    let inst = m
        .computations
        .iter()
        .flat_map(|c| c.instructions.iter().map(move |i| (c, i)))
        .find(|(_, i)| ops.contains(&i.opcode().name()));
    let Some((comp, inst)) = inst else {
        return out;
    };
    // The operand carrying the data: one of the result's element type if there is one (the
    // `on_true` of a select, not its predicate), else the first.
    let result_ty = match &inst.shape {
        Shape::Array(a) => Some(a.ty),
        _ => None,
    };
    let operands: Vec<&Shape> = inst
        .operands
        .iter()
        .filter_map(|o| comp.instructions.get(*o))
        .map(|o| &o.shape)
        .collect();
    let operand_shape = operands
        .iter()
        .find(|s| matches!(s, Shape::Array(a) if Some(a.ty) == result_ty))
        .or(operands.first())
        .copied()
        .unwrap_or(&inst.shape);
    let ty = match operand_shape {
        Shape::Array(a) => a.ty,
        Shape::Tuple(t) => match t.first() {
            Some(Shape::Array(a)) => a.ty,
            _ => return out,
        },
        _ => return out,
    };
    let from = format!("{}[", ty.name());
    for t in ElementType::ALL {
        let text = hlo.replace(&from, &format!("{}[", t.name()));
        if crate::verify::parse_and_verify(&text).is_ok() {
            out.insert(t);
        }
    }
    out
}

/// `pred, s8–s64, u8–u64, f16, bf16, f32, f64, c64, c128`, with full integer families folded.
fn types_text(ts: &BTreeSet<ElementType>) -> String {
    use ElementType::*;
    if ts.is_empty() {
        return "—".into();
    }
    if ts.len() == ElementType::ALL.len() {
        return "all".into();
    }
    let mut parts = Vec::new();
    let fam = |f: &[ElementType], name: &str, parts: &mut Vec<String>| {
        if f.iter().all(|t| ts.contains(t)) {
            parts.push(name.to_string());
        } else {
            parts.extend(
                f.iter()
                    .filter(|t| ts.contains(t))
                    .map(|t| t.name().to_string()),
            );
        }
    };
    fam(&[Pred], "pred", &mut parts);
    fam(&[S8, S16, S32, S64], "s8–s64", &mut parts);
    fam(&[U8, U16, U32, U64], "u8–u64", &mut parts);
    fam(&[F16, BF16, F32, F64], "f16, bf16, f32, f64", &mut parts);
    fam(&[C64, C128], "c64, c128", &mut parts);
    parts.join(", ")
}

/// One computed row.
struct Computed<'a> {
    heading: String,
    spec: Option<Spec>,
    examples: Vec<&'a Case>,
    golden: Vec<&'a Case>,
    props: Vec<String>,
    types: BTreeSet<ElementType>,
}

fn compute(heading: String, spec: Option<Spec>, corpus: &Corpus) -> Computed<'_> {
    let mut c = Computed {
        heading,
        spec: spec.clone(),
        examples: vec![],
        golden: vec![],
        props: vec![],
        types: BTreeSet::new(),
    };
    let Some(spec) = spec else {
        return c;
    };
    if let Some(p) = corpus.page(&spec.page) {
        for case in &p.cases {
            let uses = spec.ops.is_empty() || case_hlo(case).is_some_and(|h| uses_op(h, &spec.ops));
            if uses {
                c.examples.push(case);
                if let Some(h) = case_hlo(case) {
                    c.types.extend(accepted_types(h, &spec.ops));
                }
            }
        }
    }
    if !spec.ops.is_empty() {
        c.golden = corpus
            .golden
            .iter()
            .filter(|g| case_hlo(g).is_some_and(|h| entry_uses_op(h, &spec.ops)))
            .collect();
    }
    c
}

fn pass_text(cases: &[&Case], status: &dyn Fn(&str) -> Option<String>) -> String {
    let (mut passed, mut failed, mut xfail, mut skipped) = (0, 0, 0, 0);
    for c in cases {
        match status(&c.name).as_deref() {
            Some("passed") => passed += 1,
            Some("failed") => failed += 1,
            // A failure the backend's expected-failures list names, with its reason: it does not
            // fail the run, but it is not a pass either, so it is counted on its own.
            Some("xfail") => xfail += 1,
            Some(_) => skipped += 1,
            None => {}
        }
    }
    let run = passed + failed + xfail + skipped;
    if run == 0 {
        return "—".into();
    }
    let mut s = if failed == 0 {
        format!("✅ {passed}/{run}")
    } else {
        format!("❌ {passed}/{run}")
    };
    let mut notes = Vec::new();
    if xfail > 0 {
        notes.push(format!("{xfail} expected to fail"));
    }
    if skipped > 0 {
        notes.push(format!("{skipped} skipped"));
    }
    if !notes.is_empty() {
        s.push_str(&format!(" ({})", notes.join(", ")));
    }
    s
}

/// The page for the seed's op headings as `ROWS` records them: the build reads nothing outside
/// the repository, so the list of seed operations lives here, not in the seed.
pub(crate) fn page(root: &Path, corpus: &Corpus) -> crate::Result<String> {
    page_for(root, corpus, &row_headings())
}

/// The seed's op headings, in the seed's order.
pub(crate) fn row_headings() -> Vec<String> {
    ROWS.iter().map(|r| r.heading.to_string()).collect()
}

pub(crate) fn page_for(root: &Path, corpus: &Corpus, headings: &[String]) -> crate::Result<String> {
    let mut rows: Vec<Computed> = headings
        .iter()
        .map(|h| compute(h.clone(), spec_for(h), corpus))
        .collect();
    rows.push(compute(
        SHAPES_ROW.heading.into(),
        Some(Spec::from(&SHAPES_ROW)),
        corpus,
    ));
    // Opcodes no seed heading maps to: rows of their own, on the page whose examples use them.
    let mapped: BTreeSet<&str> = ROWS.iter().flat_map(|r| r.ops.iter().copied()).collect();
    let extra: Vec<&'static str> = Opcode::ALL
        .iter()
        .map(|o| o.name())
        .filter(|n| !mapped.contains(n))
        .collect();
    let n_seed = rows.len();
    for n in extra {
        let ops = vec![n];
        // The page that defines the opcode's labels, else the one with most examples using it.
        let page = corpus
            .pages
            .iter()
            .filter(|p| p.path.starts_with("ops/"))
            .map(|p| {
                let labels = p
                    .labels
                    .iter()
                    .filter(|(l, _)| l.split('.').next() == Some(n))
                    .count();
                let uses = p
                    .cases
                    .iter()
                    .filter(|c| case_hlo(c).is_some_and(|h| uses_op(h, &ops)))
                    .count();
                ((labels, uses), p)
            })
            .map(|((labels, uses), p)| {
                // Last resort: the page that names the opcode most often.
                let named = p.text.matches(&format!("`{n}`")).count();
                ((labels, uses, named), p)
            })
            .filter(|(k, _)| *k != (0, 0, 0))
            .max_by_key(|(k, _)| *k)
            .map(|(_, p)| p.path.clone())
            .unwrap_or_default();
        let spec = Spec {
            ops,
            page,
            aliases: vec![],
        };
        rows.push(compute(n.to_string(), Some(spec), corpus));
    }
    let specs: Vec<Option<Spec>> = rows.iter().map(|r| r.spec.clone()).collect();
    let trials = prop_trials(root);
    let props = props_per_row(&trials, &specs);
    for (r, p) in rows.iter_mut().zip(props) {
        if r.spec.is_some() {
            r.props = p;
        }
    }

    // Run every attributed case once on the reference runtime.
    let mut to_run: Vec<Case> = Vec::new();
    let mut seen = BTreeSet::new();
    for r in &rows {
        for c in r.examples.iter().chain(&r.golden) {
            if seen.insert(c.name.clone()) {
                to_run.push((*c).clone());
            }
        }
    }
    let outcomes = crate::conformance::runner::run_reference_parallel(
        &to_run,
        &crate::eval::RunOptions::default(),
        &|_, _| {},
    );
    let reference: HashMap<String, Status> = to_run
        .iter()
        .zip(outcomes)
        .map(|(c, o)| (c.name.clone(), o.status))
        .collect();
    let reports = super::backends::Reports::load(root);

    let mut s = String::from("# Op status and backend matrix\n\n");
    s.push_str(
        "This page is generated by `xla-spec book`; do not edit it. One row per op of XLA's \
         Operation Semantics (every op keeps its row, with or without a page here), then the \
         Shapes and Layout chapter, then the opcodes this runtime knows that the Operation \
         Semantics has no section for.\n\n\
         - **Examples**: runnable examples on the op's page whose module uses the op.\n\
         - **Golden**: golden cases whose ENTRY computation uses the op.\n\
         - **Props**: property-test trials (`prop::…`) whose name names the op.\n\
         - **Element types**: the types the verifier accepts when the op's operand type in the \
         page's examples is replaced by each type in turn (a lower bound: an example that also \
         fixes other types, such as indices, limits what it shows).\n\
         - **Reference**: examples and golden cases passing on the reference runtime (run while \
         the book was built).\n\
         - **The backend columns** (the backend matrix): the same cases in each backend's \
         committed report (`backends/<backend>/report.json`, written by its `run.sh`): how many \
         pass, how many it is known to answer otherwise (expected failures: it deviates from \
         the semantics, or follows another specification), and how many it cannot run \
         (unsupported). The column heading links to the report page, which gives every \
         expected failure's reason; an op page shows the same marks under each example.\n\n",
    );
    let found: Vec<&(
        &super::backends::KnownBackend,
        String,
        HashMap<String, super::backends::Mark>,
    )> = reports.found.iter().collect();
    if found.is_empty() {
        s.push_str("No backend report was found when this page was built: only the reference runtime is shown.\n\n");
    } else {
        s.push_str("Backends shown:");
        for (b, name, _) in &found {
            s.push_str(&format!(" {} (`{}`);", b.label, cell(name)));
        }
        s.pop();
        s.push_str(".\n\n");
    }
    let mut header =
        String::from("| Op | Page | Examples | Golden | Props | Element types | Reference |");
    let mut rule = String::from("|---|---|---|---|---|---|---|");
    for (b, _, _) in &found {
        header.push_str(&format!(
            " [{}]({}) |",
            b.label,
            link_from_reference(b.report_page)
        ));
        rule.push_str("---|");
    }
    let header = format!("{header}\n{rule}\n");
    let mut missing = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        if i == 0 {
            s.push_str("## Operation Semantics\n\n");
            s.push_str(&header);
        } else if i == n_seed {
            s.push_str("\n## Opcodes without a section in the Operation Semantics\n\n");
            s.push_str(&header);
        }
        let page = r.spec.as_ref().and_then(|sp| corpus.page(&sp.page));
        let page_cell = match page {
            Some(p) => {
                let title = p
                    .text
                    .lines()
                    .find_map(|l| l.strip_prefix("# "))
                    .unwrap_or(&p.path);
                format!("[{}]({})", cell(title.trim()), link_from_reference(&p.path))
            }
            _ => {
                missing.push(r.heading.clone());
                "**no page**".to_string()
            }
        };
        let ops = r
            .spec
            .as_ref()
            .filter(|sp| !sp.ops.is_empty() && sp.ops.len() <= 3 && i < n_seed)
            .map(|sp| {
                format!(
                    " ({})",
                    sp.ops
                        .iter()
                        .map(|o| format!("`{o}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .unwrap_or_default();
        let cases: Vec<&Case> = r.examples.iter().chain(&r.golden).copied().collect();
        let ref_text = pass_text(&cases, &|n| {
            reference.get(n).map(|s| s.as_str().to_string())
        });
        let mut backend_cells = String::new();
        for (_, _, marks) in &found {
            let t = super::backends::Tally::of(cases.iter().map(|c| c.name.as_str()), marks);
            backend_cells.push_str(&format!(" {} |", t.cell()));
        }
        s.push_str(&format!(
            "| {}{ops} | {page_cell} | {} | {} | {} | {} | {ref_text} |{backend_cells}\n",
            cell(&r.heading),
            r.examples.len(),
            r.golden.len(),
            r.props.len(),
            types_text(&r.types),
        ));
    }
    s.push_str(&format!(
        "\n{} rows; {} without a page{}.\n",
        rows.len(),
        missing.len(),
        if missing.is_empty() {
            String::new()
        } else {
            format!(": {}", missing.join(", "))
        }
    ));
    Ok(s)
}

#[cfg(test)]
pub(crate) fn trial_names_for_test(text: &str) -> Vec<String> {
    trial_names(text)
}

#[cfg(test)]
mod pass_text_tests {
    use super::pass_text;
    use crate::conformance::{Case, Origin};
    use std::path::Path;

    #[test]
    fn expected_failures_are_counted_apart_from_passes_and_skips() {
        let cases: Vec<Case> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|n| Case::malformed(n.to_string(), Origin::file(Path::new("x")), String::new()))
            .collect();
        let refs: Vec<&Case> = cases.iter().collect();
        let status = |n: &str| {
            match n {
                "a" | "b" => Some("passed"),
                "c" => Some("xfail"),
                "d" => Some("skipped"),
                _ => None,
            }
            .map(String::from)
        };
        assert_eq!(
            pass_text(&refs, &status),
            "✅ 2/4 (1 expected to fail, 1 skipped)"
        );
        let failing = |n: &str| (n == "a").then(|| "failed".to_string());
        assert_eq!(pass_text(&refs, &failing), "❌ 0/1");
        assert_eq!(pass_text(&refs, &|_: &str| None), "—");
    }
}
