//! Running one case on a backend and judging the answer.
//!
//! An `hlo-test` or golden case is parsed and verified by the reference front end first. For the
//! reference backend a refusal there is the answer; an external backend always receives the text
//! (its front end is under test too) together with the verified module when there is one.
//!
//! `expected_error` passes, for the reference runtime, when the error's text (its `Display`, which
//! includes the rule label) contains the expected text; an external backend passes by refusing in
//! any way it likes (an `error` response), and its message is reported. A crash, a hang or a
//! malformed answer never counts as a refusal.

use super::case::{Case, CaseBody, Expect, Latitude, LayoutCase, RunCase};
use super::compare::{compare, compare_with, same_shape};
use crate::backend::{Backend, Request};
use crate::literal::{Array, ArrayData, Literal, Scalar, padding_scalar, text::scalar_text};
use crate::shape::PaddingValue;
use crate::verify::{Options as VerifyOptions, parse_and_verify_with};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Passed,
    Failed,
    Skipped,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Skipped => "skipped",
        }
    }
}

/// The verdict on one case, with a message (why it failed or was skipped; notes for a pass).
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub status: Status,
    pub message: String,
    /// The values the backend answered, one per replica, when it answered wrong ones (kept so a
    /// failure can be written out whole: `conform --keep-failures`).
    pub answer: Option<Vec<Literal>>,
}

impl Outcome {
    pub fn pass(message: impl Into<String>) -> Outcome {
        Outcome {
            status: Status::Passed,
            message: message.into(),
            answer: None,
        }
    }
    pub fn fail(message: impl Into<String>) -> Outcome {
        Outcome {
            status: Status::Failed,
            message: message.into(),
            answer: None,
        }
    }
    pub fn skip(message: impl Into<String>) -> Outcome {
        Outcome {
            status: Status::Skipped,
            message: message.into(),
            answer: None,
        }
    }
}

/// Runs one case. Never panics on a bad case: a malformed case fails with its message.
pub fn run_case(case: &Case, backend: &mut dyn Backend) -> Outcome {
    match &case.body {
        CaseBody::Malformed(m) => Outcome::fail(m.clone()),
        CaseBody::Layout(lc) => {
            if !backend.is_reference() {
                return Outcome::skip("layout examples do not involve a backend");
            }
            match run_layout(lc) {
                Ok(()) => Outcome::pass(""),
                Err(m) => Outcome::fail(m),
            }
        }
        CaseBody::Run(rc) => run_module_case(rc, backend),
    }
}

fn run_module_case(rc: &RunCase, backend: &mut dyn Backend) -> Outcome {
    let reference = backend.is_reference();
    // A case that lists several replicas' arguments runs that many replicas, which is also the
    // module's count when its header names none; a one-list case runs as many as the header says.
    let opts = VerifyOptions {
        replicas: (rc.args.len() > 1).then_some(rc.args.len()),
        ..VerifyOptions::default()
    };
    let parsed = parse_and_verify_with(&rc.hlo, &opts);
    let module = match (&parsed, reference) {
        (Ok(m), _) => Some(m),
        (Err(e), true) => {
            return match &rc.expect {
                Expect::Error(t) => error_matches(e, t),
                Expect::Values(_) => Outcome::fail(format!("the module was refused: {e}")),
            };
        }
        (Err(_), false) => None,
    };
    let shared;
    let args = match module {
        Some(m) if rc.args.len() == 1 && m.replicas() > 1 => {
            shared = vec![rc.args[0].clone(); m.replicas()];
            &shared
        }
        _ => &rc.args,
    };
    let req = Request {
        hlo: &rc.hlo,
        module,
        args,
        infeed: &rc.infeed,
    };
    let result = backend.execute(&req);
    // The case's latitude widens what another backend may answer; the reference runtime is held to
    // the stated answer, which is the book's own choice.
    let lat = (!reference).then_some(&rc.latitude);
    if lat.is_some_and(|l| l.any_outcome) {
        let got = match &result {
            Ok(r) => short_values(&r.results),
            Err(e) => e.to_string(),
        };
        return Outcome::pass(format!(
            "any outcome is allowed here; the backend gave: {got}"
        ));
    }
    match (result, &rc.expect) {
        (Err(e), Expect::Error(t)) => {
            if reference {
                error_matches(&e, t)
            } else if e.rule.as_deref() == Some(crate::backend::process::REFUSED) {
                Outcome::pass(format!("refused: {}", e.message))
            } else {
                Outcome::fail(format!("expected a refusal, but: {e}"))
            }
        }
        (Err(e), Expect::Values(_)) => Outcome::fail(e.to_string()),
        (Ok(r), Expect::Error(t)) => Outcome::fail(format!(
            "expected an error citing rule `{t}`, but the module ran and gave {}",
            short_values(&r.results)
        )),
        (Ok(r), Expect::Values(want)) => {
            if r.results.len() != want.len() {
                return Outcome::fail(format!(
                    "expected {} replica result(s), got {}",
                    want.len(),
                    r.results.len()
                ));
            }
            if let Err(m) = judge_values(&r.results, want, rc, lat) {
                return Outcome {
                    answer: Some(r.results),
                    ..Outcome::fail(m)
                };
            }
            let multi = want.len() > 1;
            if let Some(expected) = &rc.expected_outfeed {
                for (k, w) in expected.iter().enumerate() {
                    let empty = Vec::new();
                    let g = r.outfeed.get(k).unwrap_or(&empty);
                    if g.len() != w.len() {
                        return Outcome::fail(replica_prefix(
                            multi,
                            k,
                            format!("outfeed wrote {} value(s), expected {}", g.len(), w.len()),
                        ));
                    }
                    for (i, (x, y)) in g.iter().zip(w).enumerate() {
                        if let Err(m) = compare(x, y, rc.tolerance.as_ref()) {
                            return Outcome::fail(replica_prefix(
                                multi,
                                k,
                                format!("outfeed value {i}: {m}"),
                            ));
                        }
                    }
                }
            }
            Outcome::pass("")
        }
    }
}

/// Judges every replica's result against the expected values, and failing that (for a backend
/// given latitude) against what the latitude allows. The message is the comparison with the
/// expected answer, which is the one a reader wants to see.
fn judge_values(
    got: &[Literal],
    want: &[Literal],
    rc: &RunCase,
    lat: Option<&Latitude>,
) -> Result<(), String> {
    let zero_sign = lat.is_some_and(|l| l.zero_sign);
    let multi = want.len() > 1;
    let against = |want: &[Literal]| -> Result<(), String> {
        for (k, (g, w)) in got.iter().zip(want).enumerate() {
            let judged = if lat.is_some_and(|l| l.any_value) {
                same_shape(g, w)
            } else {
                compare_with(g, w, rc.tolerance.as_ref(), zero_sign)
            };
            judged.map_err(|m| replica_prefix(multi, k, m))?;
        }
        Ok(())
    };
    let first = against(want);
    let Some(l) = lat else { return first };
    let Err(m) = first else { return Ok(()) };
    if l.also.iter().any(|alt| against(alt).is_ok()) {
        return Ok(());
    }
    Err(if l.is_none() {
        m
    } else {
        format!(
            "{m}\n  (the case's latitude, {}, does not allow it either)",
            l.describe()
        )
    })
}

fn replica_prefix(multi: bool, k: usize, m: String) -> String {
    if multi {
        format!("replica {k}: {m}")
    } else {
        m
    }
}

/// An expected error is a rule label, matched exactly: `dot.shape` must not pass on an error
/// citing `dot.shape_mismatch`, nor on a message that merely mentions it.
fn error_matches(e: &crate::Error, want: &str) -> Outcome {
    if e.rule.as_deref() == Some(want) {
        Outcome::pass(format!("refused: {e}"))
    } else {
        Outcome::fail(format!(
            "expected an error citing rule `{want}`; it was: {e}"
        ))
    }
}

fn short_values(v: &[Literal]) -> String {
    let s = v
        .iter()
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join("; ");
    crate::error::shorten(&s, 200)
}

/// The word a padding element prints as in a layout example.
fn padding_token(p: PaddingValue) -> &'static str {
    match p {
        PaddingValue::Zero | PaddingValue::Unknown => "0",
        PaddingValue::One => "1",
        PaddingValue::Lowest => "lowest",
        PaddingValue::Highest => "highest",
    }
}

/// Gives each symbol a distinct value of the shape's type (2, 3, ..., avoiding the padding
/// value), writes the array with `Array::to_buffer` under the shape's layout plus padding, and
/// reads the buffer back as symbols.
pub fn run_layout(lc: &LayoutCase) -> Result<(), String> {
    let ty = lc.shape.ty;
    let mut layout = lc.shape.layout_or_default();
    if let Some(p) = &lc.padded {
        layout = layout.with_padding(p.clone(), lc.padding_value);
    }
    let pad = padding_scalar(ty, layout.padding_value);
    let n = lc.values.len();
    let mut scalars: Vec<Scalar> = Vec::with_capacity(n);
    let mut v = 2u64;
    while scalars.len() < n {
        if v > n as u64 + 16 {
            return Err(format!("{ty} cannot hold {n} distinct symbol values"));
        }
        let s = Scalar::from_f64(ty, v as f64);
        v += 1;
        if !s.bits_eq(&pad) && !scalars.iter().any(|x| x.bits_eq(&s)) {
            scalars.push(s);
        }
    }
    let mut data = ArrayData::zeros(ty, n);
    for (i, s) in scalars.iter().enumerate() {
        data.set(i, *s).map_err(|e| e.to_string())?;
    }
    let mut shape = lc.shape.clone();
    shape.layout = None;
    let array = Array::from_data(shape, data).map_err(|e| e.to_string())?;
    let buf = array.to_buffer(Some(&layout)).map_err(|e| e.to_string())?;
    let got: Vec<String> = (0..buf.len())
        .map(|i| {
            let x = buf.get(i);
            match scalars.iter().position(|s| s.bits_eq(&x)) {
                Some(k) => lc.values[k].clone(),
                None if x.bits_eq(&pad) => padding_token(layout.padding_value).to_string(),
                None => scalar_text(x),
            }
        })
        .collect();
    let pad_text = scalar_text(pad);
    let same = got.len() == lc.buffer.len()
        && got
            .iter()
            .zip(&lc.buffer)
            .all(|(g, w)| g == w || (g == padding_token(layout.padding_value) && *w == pad_text));
    if same {
        Ok(())
    } else {
        Err(format!(
            "buffer mismatch for {} (minor_to_major {:?}{}):\n  got:  {}\n  want: {}",
            lc.shape,
            layout.minor_to_major,
            match &lc.padded {
                Some(p) => format!(", padded to {p:?}"),
                None => String::new(),
            },
            got.join(" "),
            lc.buffer.join(" ")
        ))
    }
}

/// Runs `cases` on the reference runtime in parallel (rayon), calling `on_done` after each.
pub fn run_reference_parallel(
    cases: &[Case],
    options: &crate::eval::RunOptions,
    on_done: &(dyn Fn(&Case, &Outcome) + Sync),
) -> Vec<Outcome> {
    use rayon::prelude::*;
    cases
        .par_iter()
        .map(|c| {
            let mut b = crate::backend::ReferenceBackend {
                options: options.clone(),
            };
            let o = run_case(c, &mut b);
            on_done(c, &o);
            o
        })
        .collect()
}

/// Runs `cases` one after another on one backend.
pub fn run_sequential(
    cases: &[Case],
    backend: &mut dyn Backend,
    on_done: &dyn Fn(&Case, &Outcome),
) -> Vec<Outcome> {
    cases
        .iter()
        .map(|c| {
            let o = run_case(c, backend);
            on_done(c, &o);
            o
        })
        .collect()
}

/// Runs the cases on several backends at once (one per job, each its own process for an
/// external backend): each job takes the next case not yet taken, so a slow case holds up only
/// its own job; the outcomes come back in case order.
pub fn run_jobs(
    cases: &[Case],
    backends: Vec<Box<dyn Backend>>,
    on_done: &(dyn Fn(&Case, &Outcome) + Sync),
) -> Vec<Outcome> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; cases.len()]);
    std::thread::scope(|s| {
        for mut b in backends {
            let (next, slots) = (&next, &slots);
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(c) = cases.get(i) else { break };
                    let o = run_case(c, b.as_mut());
                    on_done(c, &o);
                    if let Ok(mut v) = slots.lock() {
                        v[i] = Some(o);
                    }
                }
            });
        }
    });
    let slots = slots.into_inner().unwrap_or_else(|e| e.into_inner());
    slots
        .into_iter()
        .zip(cases)
        .map(|(o, c)| {
            o.unwrap_or_else(|| {
                Outcome::fail(format!("internal error: no job ran case {}", c.name))
            })
        })
        .collect()
}

/// The cases of shard `k` of `n` (0-based): every `n`-th case starting at the `k`-th, in the
/// order they were loaded, so `n` runs with `k = 0..n` together run every case exactly once.
pub fn shard<T: Clone>(cases: &[T], k: usize, n: usize) -> Vec<T> {
    cases.iter().skip(k).step_by(n.max(1)).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::ReferenceBackend;
    use crate::conformance::book::load_text;
    use std::path::Path;

    fn run(page: &str) -> Vec<Outcome> {
        load_text("book::t", Path::new("t.md"), page)
            .iter()
            .map(|c| run_case(c, &mut ReferenceBackend::default()))
            .collect()
    }

    #[test]
    fn seed_layout_examples() {
        let o = run(
            "```layout-test a\nshape: f32[2,3]{0,1}\npadded: 3,5\nvalues: {{a, b, c}, {d, e, f}}\nbuffer: a d 0 b e 0 c f 0 0 0 0 0 0 0\n```\n```layout-test b\nshape: s8[2,2]{1,0}\npadded: 2,3\npadding_value: one\nvalues: {{a, b}, {c, d}}\nbuffer: a b 1 c d 1\n```\n```layout-test c\nshape: u8[2]\nvalues: {a, b}\nbuffer: b a\n```\n",
        );
        assert_eq!(o[0].status, Status::Passed, "{}", o[0].message);
        assert_eq!(o[1].status, Status::Passed, "{}", o[1].message);
        assert_eq!(o[2].status, Status::Failed);
        assert!(o[2].message.contains("got:  a b"), "{}", o[2].message);
    }

    #[test]
    fn run_cases_pass_and_fail() {
        let m = "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT a = f32[2] add(p, p)\n}\n---\narg: f32[2] {1, 2}\n";
        let o = run(&format!(
            "```hlo-test ok\n{m}expected: f32[2] {{2, 4}}\n```\n```hlo-test wrong\n{m}expected: f32[2] {{2, 5}}\n```\n```hlo-test err\nHloModule m\nENTRY e {{\n  p = f32[2] parameter(0)\n  q = f32[3] parameter(1)\n  ROOT a = f32[2] add(p, q)\n}}\n---\nexpected_error: elementwise.same_shape\n```\n"
        ));
        assert_eq!(o[0].status, Status::Passed, "{}", o[0].message);
        assert_eq!(o[1].status, Status::Failed);
        assert!(
            o[1].message.contains("at [1]: got 4, want 5"),
            "{}",
            o[1].message
        );
        assert_eq!(o[2].status, Status::Passed, "{}", o[2].message);
    }

    #[test]
    fn expected_error_is_the_exact_rule_label() {
        let m = "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  q = f32[3] parameter(1)\n  ROOT a = f32[2] add(p, q)\n}\n---\n";
        let o = run(&format!(
            "```hlo-test exact\n{m}expected_error: elementwise.same_shape\n```\n```hlo-test prefix\n{m}expected_error: elementwise.same\n```\n```hlo-test family\n{m}expected_error: elementwise\n```\n"
        ));
        assert_eq!(o[0].status, Status::Passed, "{}", o[0].message);
        assert_eq!(o[1].status, Status::Failed, "{}", o[1].message);
        assert_eq!(o[2].status, Status::Failed, "{}", o[2].message);
        assert!(
            o[1].message.contains("citing rule `elementwise.same`"),
            "{}",
            o[1].message
        );
    }
}
