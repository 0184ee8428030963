//! Property tests over the programs `xla-spec fuzz` draws: one source of truth for random
//! programs. Each trial `prop::<area>::drafted_<family>` lets proptest pick seeds, draws the
//! family's program from the fuzzer's own generator (`conformance::fuzz::draw::draft`) and holds
//! the reference to what must be true of any program, whatever its answer:
//!
//! - the verifier accepts the draft, evaluation neither fails nor panics, and the printed module
//!   prints again to the same text;
//! - two runs give the same bits (replicas run on threads, reductions split work among them);
//! - a program with non-default layouts gives the answer of the same program without them;
//! - an element-wise program's element `i` is what the rank-0 program on the operands' element
//!   `i` gives (the vectorised loops against their scalar twin);
//! - a reduction, scatter or collective whose combiner the fast paths recognise gives the bits of
//!   the same program with the combiner disguised, which the general interpreter runs.
//!
//! The area modules keep their own generators for what these cannot check: results against
//! formulas and oracles written in the tests.

use super::seeded::runner;
use libtest_mimic::{Failed, Trial};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use xla_spec::conformance::compare::compare_with;
use xla_spec::conformance::fuzz::draw::{Draft, Rng, draft, layout};
use xla_spec::conformance::fuzz::{reference, scalar_twin};
use xla_spec::hlo::parse_module;
use xla_spec::hlo::printer::print_module;
use xla_spec::literal::{Array, ArrayData, Literal, literal_to_json};
use xla_spec::shape::{ArrayShape, Shape};

/// Each family, the area its trial is filed under, and how many seeds it runs.
const FAMILIES: &[(&str, &str, u32)] = &[
    ("unary", "elementwise", 288),
    ("binary", "elementwise", 288),
    ("compare", "elementwise", 192),
    ("convert", "elementwise", 192),
    ("select-clamp", "elementwise", 192),
    ("chain", "elementwise", 288),
    ("movement", "movement", 288),
    ("reduce", "reduction", 192),
    ("reduce-window", "reduction", 192),
    ("sort", "reduction", 192),
    ("select-and-scatter", "reduction", 192),
    ("gather", "indexing", 192),
    ("scatter", "indexing", 192),
    ("dot", "linalg", 144),
    ("convolution", "linalg", 144),
    ("rng-bit-generator", "numerics", 144),
    ("collective", "collective", 144),
];

pub fn trials() -> Vec<Trial> {
    FAMILIES
        .iter()
        .map(|&(family, area, cases)| {
            let name = format!("prop::{area}::drafted_{}", family.replace('-', "_"));
            Trial::test(name, move || {
                runner(cases)
                    .run(&any::<u64>(), |seed| {
                        check(family, seed)
                            .map_err(|m| TestCaseError::fail(format!("seed {seed}: {m}")))
                    })
                    .map_err(|e| Failed::from(e.to_string()))
            })
        })
        .collect()
}

fn check(family: &str, seed: u64) -> Result<(), String> {
    let size = 1 + (seed % 4) as i64;
    let d = draft(family, &mut Rng::new(seed), size);
    let answer = |d: &Draft| -> Result<Vec<Literal>, String> {
        reference(d)
            .map(|r| r.2)
            .map_err(|e| format!("{e}\n{}", d.hlo))
    };
    let (module, text, want) = reference(&d).map_err(|e| format!("{e}\n{}", d.hlo))?;
    if print_module(&module) != text {
        return Err(format!("the printed module prints differently\n{text}"));
    }
    same(&answer(&d)?, &want, "a second run", &d)?;
    if layout::has_odd_layout(&d.hlo) {
        let mut plain = d.clone();
        plain.hlo = without_layouts(&d.hlo)?;
        same(&answer(&plain)?, &want, "the program without layouts", &d)?;
    }
    if let (true, Some(w)) = (d.elementwise, want[0].as_array())
        && w.rank() > 0
    {
        // A few elements, spread over the array.
        let step = (w.len() / 5).max(1);
        for i in (0..w.len()).step_by(step) {
            let twin = scalar_twin(&d, w.dims(), i).ok_or("no scalar twin")?;
            let one = Literal::Array(
                Array::from_data(
                    ArrayShape::new(w.ty(), vec![]),
                    ArrayData::splat(w.data.get(i), 1),
                )
                .map_err(|e| e.to_string())?,
            );
            same(
                &answer(&twin)?,
                &[one],
                &format!("element {i}'s scalar twin"),
                &d,
            )?;
        }
    }
    if let Some(general) = disguised(&d.hlo) {
        let mut slow = d.clone();
        slow.hlo = general;
        same(&answer(&slow)?, &want, "the general interpreter", &d)?;
    }
    Ok(())
}

/// `got` equals `want` bit for bit (NaN payloads aside), replica by replica.
fn same(got: &[Literal], want: &[Literal], what: &str, d: &Draft) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} results, want {}",
            got.len(),
            want.len()
        ));
    }
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        compare_with(g, w, None, false).map_err(|m| {
            format!(
                "{what} differs (replica {k}): {m}\ngot {}\nwant {}\n{}",
                literal_to_json(g),
                literal_to_json(w),
                d.hlo
            )
        })?;
    }
    Ok(())
}

/// The module with every layout dropped.
fn without_layouts(hlo: &str) -> Result<String, String> {
    let mut m = parse_module(hlo).map_err(|e| e.to_string())?;
    m.entry_layout = None;
    for c in &mut m.computations {
        for i in &mut c.instructions {
            if let Shape::Array(a) = &mut i.shape {
                a.layout = None;
            }
        }
    }
    Ok(print_module(&m))
}

/// The module with its combiner (`red`, `comb`, `acc`) carrying an unused instruction, which
/// the fast paths' recognisers refuse: the general interpreter then runs it. `None` when the
/// draft has no combiner.
fn disguised(hlo: &str) -> Option<String> {
    for name in ["red", "comb", "acc"] {
        let head = format!("\n{name} {{\n");
        if hlo.contains(&head) {
            return Some(hlo.replacen(
                &head,
                &format!("{head}  fuzz_unused = pred[] constant(false)\n"),
                1,
            ));
        }
    }
    None
}
