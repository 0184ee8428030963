//! Property tests for control flow: random loops, branch indices, infeed streams and iteration
//! budgets run through the reference evaluator and are compared with closed forms and with the
//! selection rule of the Operation Semantics chapter (an out-of-range index takes the last
//! branch).
//!
//! The loops terminate through a conditional rather than a comparison: the condition runs
//! `conditional(i, ...)` over `n` branches that return true followed by one that returns false,
//! so it is true exactly while `0 <= i < n` (any other index takes the last branch). That keeps
//! the properties independent of the element-wise family.

use super::seeded::runner_trial;
use libtest_mimic::Trial;
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use xla_spec::eval::{RunOptions, run};
use xla_spec::literal::{Literal, Scalar};
use xla_spec::verify::parse_and_verify;

const CASES: u32 = 128;

pub fn trials() -> Vec<Trial> {
    vec![
        trial("while_sum_is_closed_form", while_sum_is_closed_form),
        trial(
            "conditional_picks_branch_or_last",
            conditional_picks_branch_or_last,
        ),
        trial("infeed_outfeed_keep_order", infeed_outfeed_keep_order),
        trial("iteration_budget_is_exact", iteration_budget_is_exact),
        trial("channel_pairs_route_values", channel_pairs_route_values),
    ]
}

fn trial(name: &str, f: fn(&mut TestRunner) -> Result<(), String>) -> Trial {
    runner_trial("control", name, CASES, f)
}

fn fail(e: impl std::fmt::Display) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// Computations `yes`/`no` returning constant preds, and `cond` true while the state's s32
/// element 0 lies in `0..n`. `state` is the loop state's shape.
fn counting_condition(n: usize, state: &str) -> String {
    let mut branches = vec!["yes"; n];
    branches.push("no");
    let operands = vec!["u"; n + 1].join(", ");
    format!(
        "yes {{\n  p = () parameter(0)\n  ROOT c = pred[] constant(true)\n}}\n\n\
         no {{\n  p = () parameter(0)\n  ROOT c = pred[] constant(false)\n}}\n\n\
         cond {{\n  s = {state} parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  \
         u = () tuple()\n  \
         ROOT c = pred[] conditional(i, {operands}), branch_computations={{{}}}\n}}\n\n",
        branches.join(", ")
    )
}

fn scalar<T: Copy>(l: &Literal, f: impl Fn(Scalar) -> Option<T>) -> Option<T> {
    l.scalar_value().and_then(f)
}

/// `while` adding the counter to an s64 accumulator n times gives a + n(n-1)/2.
fn while_sum_is_closed_form(runner: &mut TestRunner) -> Result<(), String> {
    runner
        .run(&(0usize..40, any::<i32>()), |(n, a)| {
            // State: (counter, the counter again in s64, accumulator).
            let state = "(s32[], s64[], s64[])";
            let text = format!(
                "HloModule m\n\n{}body {{\n  s = {state} parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  \
                 k = s64[] get-tuple-element(s), index=1\n  acc = s64[] get-tuple-element(s), index=2\n  \
                 one = s32[] constant(1)\n  one64 = s64[] constant(1)\n  i1 = s32[] add(i, one)\n  \
                 k1 = s64[] add(k, one64)\n  acc1 = s64[] add(acc, k)\n  \
                 ROOT t = {state} tuple(i1, k1, acc1)\n}}\n\n\
                 ENTRY main {{\n  init = {state} parameter(0)\n  \
                 ROOT w = {state} while(init), condition=cond, body=body\n}}\n",
                counting_condition(n, state)
            );
            let m = parse_and_verify(&text).map_err(|e| fail(format!("{e}\n{text}")))?;
            let init = Literal::Tuple(vec![
                Literal::scalar(0i32),
                Literal::scalar(0i64),
                Literal::scalar(a as i64),
            ]);
            let out = run(&m, vec![init], &RunOptions::default()).map_err(fail)?;
            let t = out.result.as_tuple().ok_or_else(|| fail("not a tuple"))?;
            let n64 = n as i64;
            let want = (a as i64) + n64 * (n64 - 1) / 2;
            prop_assert_eq!(
                scalar(&t[0], |s| match s {
                    Scalar::S32(x) => Some(x),
                    _ => None,
                }),
                Some(n as i32)
            );
            prop_assert_eq!(
                scalar(&t[2], |s| match s {
                    Scalar::S64(x) => Some(x),
                    _ => None,
                }),
                Some(want)
            );
            Ok(())
        })
        .map_err(|e| e.to_string())
}

/// With N branches where branch k adds 1000*k, index i selects branch i when 0 <= i < N and
/// branch N-1 otherwise, for any s32 index.
fn conditional_picks_branch_or_last(runner: &mut TestRunner) -> Result<(), String> {
    let index = prop_oneof![-3i32..10, any::<i32>()];
    runner
        .run(&(1usize..7, index, -1000i32..1000), |(n, i, x)| {
            let mut text = String::from("HloModule m\n\n");
            for k in 0..n {
                text += &format!(
                    "b{k} {{\n  x = s32[] parameter(0)\n  c = s32[] constant({})\n  ROOT y = s32[] add(x, c)\n}}\n\n",
                    1000 * k
                );
            }
            let names: Vec<String> = (0..n).map(|k| format!("b{k}")).collect();
            let xs = vec!["x"; n].join(", ");
            text += &format!(
                "ENTRY main {{\n  i = s32[] parameter(0)\n  x = s32[] parameter(1)\n  \
                 ROOT c = s32[] conditional(i, {xs}), branch_computations={{{}}}\n}}\n",
                names.join(", ")
            );
            let m = parse_and_verify(&text).map_err(|e| fail(format!("{e}\n{text}")))?;
            let out = run(
                &m,
                vec![Literal::scalar(i), Literal::scalar(x)],
                &RunOptions::default(),
            )
            .map_err(fail)?;
            let chosen = if (0..n as i64).contains(&(i as i64)) {
                i as i64
            } else {
                n as i64 - 1
            };
            prop_assert_eq!(
                out.result.scalar_value(),
                Some(Scalar::S32(x + 1000 * chosen as i32))
            );
            Ok(())
        })
        .map_err(|e| e.to_string())
}

/// A loop that reads one value from the infeed per iteration and writes it back doubled
/// produces the doubled inputs in order; with fewer values than iterations it fails with
/// `infeed.empty`.
fn infeed_outfeed_keep_order(runner: &mut TestRunner) -> Result<(), String> {
    let values = proptest::collection::vec(-1000i32..1000, 0..12);
    runner
        .run(&(values, 0usize..14), |(vals, n)| {
            let state = "(s32[], token[])";
            let text = format!(
                "HloModule m\n\n{}body {{\n  s = {state} parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  \
                 t = token[] get-tuple-element(s), index=1\n  r = (s32[], token[]) infeed(t)\n  \
                 v = s32[] get-tuple-element(r), index=0\n  t1 = token[] get-tuple-element(r), index=1\n  \
                 d = s32[] add(v, v)\n  t2 = token[] outfeed(d, t1)\n  one = s32[] constant(1)\n  \
                 i1 = s32[] add(i, one)\n  ROOT o = {state} tuple(i1, t2)\n}}\n\n\
                 ENTRY main {{\n  z = s32[] constant(0)\n  t = token[] after-all()\n  init = {state} tuple(z, t)\n  \
                 w = {state} while(init), condition=cond, body=body\n  \
                 ROOT c = s32[] get-tuple-element(w), index=0\n}}\n",
                counting_condition(n, state)
            );
            let m = parse_and_verify(&text).map_err(|e| fail(format!("{e}\n{text}")))?;
            let opts = RunOptions {
                infeed: vals.iter().map(|&v| Literal::scalar(v)).collect(),
                ..RunOptions::default()
            };
            match run(&m, vec![], &opts) {
                Ok(out) => {
                    prop_assert!(n <= vals.len());
                    let got: Vec<Option<Scalar>> =
                        out.outfeed.iter().map(|l| l.scalar_value()).collect();
                    let want: Vec<Option<Scalar>> = vals[..n]
                        .iter()
                        .map(|&v| Some(Scalar::S32(2 * v)))
                        .collect();
                    prop_assert_eq!(got, want);
                }
                Err(e) => {
                    prop_assert!(n > vals.len(), "unexpected error {}", e);
                    prop_assert_eq!(e.rule.as_deref(), Some("infeed.empty"));
                }
            }
            Ok(())
        })
        .map_err(|e| e.to_string())
}

/// A loop of n iterations succeeds under a budget b exactly when n <= b.
fn iteration_budget_is_exact(runner: &mut TestRunner) -> Result<(), String> {
    runner
        .run(&(0usize..30, 0u64..30), |(n, b)| {
            let state = "(s32[])";
            let text = format!(
                "HloModule m\n\n{}body {{\n  s = {state} parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  \
                 one = s32[] constant(1)\n  i1 = s32[] add(i, one)\n  ROOT o = {state} tuple(i1)\n}}\n\n\
                 ENTRY main {{\n  init = {state} parameter(0)\n  \
                 ROOT w = {state} while(init), condition=cond, body=body\n}}\n",
                counting_condition(n, state)
            );
            let m = parse_and_verify(&text).map_err(|e| fail(format!("{e}\n{text}")))?;
            let opts = RunOptions {
                max_while_iterations: b,
                ..RunOptions::default()
            };
            let r = run(&m, vec![Literal::Tuple(vec![Literal::scalar(0i32)])], &opts);
            match r {
                Ok(_) => prop_assert!(n as u64 <= b),
                Err(e) => {
                    prop_assert!(n as u64 > b);
                    prop_assert_eq!(e.rule.as_deref(), Some("while.iteration_budget"));
                }
            }
            Ok(())
        })
        .map_err(|e| e.to_string())
}

/// Replicas exchanging through one channel with random source-target pairs: every target
/// receives its source's value, every other replica zeros.
fn channel_pairs_route_values(runner: &mut TestRunner) -> Result<(), String> {
    let case = (2usize..5).prop_flat_map(|n| {
        (
            Just(n),
            Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
            proptest::collection::vec(any::<bool>(), n),
            proptest::collection::vec(-1000i32..1000, n),
        )
    });
    runner
        .run(&case, |(n, perm, keep, vals)| {
            // Source r sends to perm[r] when keep[r]: sources and targets are each unique.
            let pairs: Vec<(usize, usize)> = (0..n).filter(|&r| keep[r]).map(|r| (r, perm[r])).collect();
            let list = pairs
                .iter()
                .map(|(s, t)| format!("{{{s},{t}}}"))
                .collect::<Vec<_>>()
                .join(",");
            let fa = format!("frontend_attributes={{_xla_send_recv_source_target_pairs=\"{{{list}}}\"}}");
            let text = format!(
                "HloModule m, replica_count={n}\n\nENTRY main {{\n  x = s32[] parameter(0)\n  t = token[] after-all()\n  \
                 r = (s32[], u32[], token[]) recv(t), channel_id=1, {fa}\n  \
                 s = (s32[], u32[], token[]) send(x, t), channel_id=1, {fa}\n  \
                 rd = (s32[], token[]) recv-done(r), channel_id=1\n  sd = token[] send-done(s), channel_id=1\n  \
                 ROOT v = s32[] get-tuple-element(rd), index=0\n}}\n"
            );
            let m = parse_and_verify(&text).map_err(|e| fail(format!("{e}\n{text}")))?;
            let args = vals.iter().map(|&v| vec![Literal::scalar(v)]).collect();
            let outs = xla_spec::eval::run_replicated(&m, args, &RunOptions::default())
                .map_err(|e| fail(format!("{e}\n{text}")))?;
            for (r, out) in outs.iter().enumerate() {
                let want = pairs
                    .iter()
                    .find(|&&(_, t)| t == r)
                    .map_or(0, |&(s, _)| vals[s]);
                prop_assert_eq!(out.result.scalar_value(), Some(Scalar::S32(want)), "replica {}", r);
            }
            Ok(())
        })
        .map_err(|e| e.to_string())
}
