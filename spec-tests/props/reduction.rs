//! Property tests for reductions, windows, map, sort and topk.
//!
//! Random s64 arrays (rank 1 to 3, sizes 0 to 4, small values so sums stay exact) go through
//! modules built here, and the results are compared with naive oracles written in this file:
//! nested loops for reduce, a materialised dilated-and-padded base for reduce-window, a first-
//! maximum scan for select-and-scatter (the gradient of max-pool), a count check and pairwise
//! order check for sort, a sorted copy for topk. Modules whose sub-computations use an
//! element-wise op the reference cannot verify yet (`compare`, from another issue) are skipped
//! until it lands, so those properties switch themselves on.

use libtest_mimic::{Failed, Trial};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use xla_spec::eval::reduction::fast::recognise_reducer;
use xla_spec::eval::{RunOptions, run};
use xla_spec::literal::{Literal, Scalar};
use xla_spec::verify::parse_and_verify;

pub fn trials() -> Vec<Trial> {
    vec![
        trial("reduce_matches_nested_loops", reduce_matches_loops),
        trial(
            "reduce_long_folds_follow_the_block_order",
            reduce_long_folds_block_order,
        ),
        trial(
            "reduce_window_matches_materialised_base",
            reduce_window_naive,
        ),
        trial(
            "reduce_window_fast_path_matches_interpreter",
            reduce_window_fast_vs_general,
        ),
        trial("full_window_equals_reduce", full_window_equals_reduce),
        trial("select_and_scatter_is_max_pool_gradient", max_pool_gradient),
        trial("sort_is_an_ordered_permutation", sort_permutation),
        trial("stable_sort_keeps_equal_keys_in_order", stable_sort),
        trial("topk_is_a_sorted_prefix", topk_prefix),
        trial("map_add_is_elementwise_sum", map_add),
    ]
}

fn trial(name: &str, f: fn() -> Result<(), Failed>) -> Trial {
    Trial::test(format!("prop::reduction::{name}"), f)
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: 48,
        failure_persistence: None,
        ..Config::default()
    })
}

fn check<S: Strategy>(
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) -> Result<(), Failed>
where
    S::Value: std::fmt::Debug,
{
    runner()
        .run(&strategy, test)
        .map_err(|e| Failed::from(e.to_string()))
}

/// An array: dimensions and row-major s64 data.
#[derive(Clone, Debug)]
struct Arr {
    dims: Vec<usize>,
    data: Vec<i64>,
}

fn arr(max_rank: usize, max_dim: usize) -> impl Strategy<Value = Arr> {
    prop::collection::vec(0..=max_dim, 1..=max_rank).prop_flat_map(|dims| {
        let n: usize = dims.iter().product();
        prop::collection::vec(-20i64..20, n).prop_map(move |data| Arr {
            dims: dims.clone(),
            data,
        })
    })
}

fn shape(ty: &str, dims: &[usize]) -> String {
    let d: Vec<String> = dims.iter().map(|x| x.to_string()).collect();
    format!("{ty}[{}]", d.join(","))
}

fn literal<T: ToString>(ty: &str, dims: &[usize], data: &[T]) -> String {
    fn nest<T: ToString>(dims: &[usize], data: &[T]) -> String {
        match dims.split_first() {
            None => data.first().map(|x| x.to_string()).unwrap_or_default(),
            Some((&n, rest)) => {
                let step: usize = rest.iter().product();
                let parts: Vec<String> = (0..n)
                    .map(|i| nest(rest, &data[i * step..(i + 1) * step]))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
        }
    }
    format!("{} {}", shape(ty, dims), nest(dims, data))
}

/// Runs a module; any refusal or failure fails the property (a generator makes valid modules).
fn run_hlo(hlo: &str, args: &[String]) -> Result<Literal, TestCaseError> {
    let m = parse_and_verify(hlo).map_err(|e| TestCaseError::fail(format!("{e}\n{hlo}")))?;
    let args = args
        .iter()
        .map(|a| xla_spec::hlo::parse_literal(a))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    run(&m, args, &RunOptions::default())
        .map(|o| o.result)
        .map_err(|e| TestCaseError::fail(format!("{e}\n{hlo}")))
}

fn ints(l: &Literal) -> Result<Vec<i64>, TestCaseError> {
    let a = l
        .as_array()
        .ok_or_else(|| TestCaseError::fail("expected an array"))?;
    Ok((0..a.len())
        .map(|k| match a.data.get(k) {
            Scalar::S64(x) => x,
            Scalar::S32(x) => x as i64,
            s => s.as_i128().unwrap_or(i128::MAX) as i64,
        })
        .collect())
}

const ADD: &str =
    "add {\n a = s64[] parameter(0)\n b = s64[] parameter(1)\n ROOT s = s64[] add(a, b)\n}\n";

fn unflat(dims: &[usize], mut k: usize) -> Vec<usize> {
    let mut idx = vec![0; dims.len()];
    for d in (0..dims.len()).rev() {
        idx[d] = k % dims[d].max(1);
        k /= dims[d].max(1);
    }
    idx
}

fn flat(dims: &[usize], idx: &[usize]) -> usize {
    idx.iter().zip(dims).fold(0, |k, (&i, &d)| k * d + i)
}

fn reduce_matches_loops() -> Result<(), Failed> {
    let s = arr(3, 4).prop_flat_map(|a| {
        let r = a.dims.len();
        (
            Just(a),
            prop::sample::subsequence((0..r).collect::<Vec<_>>(), 0..=r),
            -5i64..5,
        )
    });
    check(s, |(a, red, init)| {
        let kept: Vec<usize> = (0..a.dims.len()).filter(|d| !red.contains(d)).collect();
        let odims: Vec<usize> = kept.iter().map(|&d| a.dims[d]).collect();
        let mut want = vec![init; odims.iter().product()];
        for (k, &x) in a.data.iter().enumerate() {
            let idx = unflat(&a.dims, k);
            let o: Vec<usize> = kept.iter().map(|&d| idx[d]).collect();
            want[flat(&odims, &o)] += x;
        }
        let rd: Vec<String> = red.iter().map(|d| d.to_string()).collect();
        let hlo = format!(
            "HloModule m\n{ADD}ENTRY e {{\n p = {} parameter(0)\n i = s64[] constant({init})\n ROOT r = {} reduce(p, i), dimensions={{{}}}, to_apply=add\n}}\n",
            shape("s64", &a.dims),
            shape("s64", &odims),
            rd.join(",")
        );
        {
            let got = run_hlo(&hlo, &[literal("s64", &a.dims, &a.data)])?;
            prop_assert_eq!(ints(&got)?, want);
        }
        Ok(())
    })
}

/// F32 values of mixed magnitude without NaN or infinities: their sums round differently in
/// different orders, and every order gives a finite sum.
const MIXED: [f32; 10] = [1e8, -1e8, 1.0, 0.5, -3.0, 0.1, 1e-3, 2.5e7, -0.0, 7.0];

/// The length of the blocks the book's reduce page cuts a long fold into ("Order").
const BLOCK: usize = 4096;

/// The book's fold order, written from its text: the elements in row-major order of the reduced
/// dimensions, in blocks of 4096; block 0 folds from the init value, every later block from its
/// own first element; the block results combine left to right.
fn blocked_fold(xs: &[f32], init: f32, f: impl Fn(f32, f32) -> f32) -> f32 {
    let mut blocks = xs.chunks(BLOCK);
    let first = blocks
        .next()
        .unwrap_or(&[])
        .iter()
        .fold(init, |a, &x| f(a, x));
    blocks.fold(first, |done, b| {
        let part = b[1..].iter().fold(b[0], |a, &x| f(a, x));
        f(done, part)
    })
}

/// Long folds (two or three blocks per result element, the long dimension anywhere among short
/// ones): the typed fast path, the interpreter (the same reducer with an unused instruction, one
/// element at a time or in lanes) and `blocked_fold` agree bit for bit. With these values a
/// sequential fold's sums differ from the blocked ones in practically every case (checked when
/// the property was written: 24 of 24), so a path that ignored the blocks would fail here.
fn reduce_long_folds_block_order() -> Result<(), Failed> {
    // One long dimension (two or three blocks) among up to two short ones, reduced together
    // with any of the short ones.
    let s = (
        4097usize..=9000,
        prop::collection::vec(1usize..=3, 0..=2),
        0usize..=2,
    )
        .prop_flat_map(|(long, short, at)| {
            let at = at.min(short.len());
            let mut dims = short;
            dims.insert(at, long);
            let others: Vec<usize> = (0..dims.len()).filter(|&d| d != at).collect();
            let n: usize = dims.iter().product();
            (
                Just(dims),
                prop::sample::subsequence(others.clone(), 0..=others.len()).prop_map(
                    move |mut red| {
                        red.push(at);
                        red.sort_unstable();
                        red
                    },
                ),
                prop::collection::vec(0usize..MIXED.len(), n),
            )
        });
    let mut runner = TestRunner::new(Config {
        cases: 24,
        failure_persistence: None,
        ..Config::default()
    });
    let test = |(dims, red, picks): (Vec<usize>, Vec<usize>, Vec<usize>)| {
        let data: Vec<f32> = picks.iter().map(|&i| MIXED[i]).collect();
        let kept: Vec<usize> = (0..dims.len()).filter(|d| !red.contains(d)).collect();
        let odims: Vec<usize> = kept.iter().map(|&d| dims[d]).collect();
        let red_dims: Vec<usize> = red.iter().map(|&d| dims[d]).collect();
        // Each result element's sources in row-major order of the reduced dimensions.
        let mut sources = vec![vec![]; odims.iter().product()];
        for r in 0..red_dims.iter().product::<usize>() {
            let ri = unflat(&red_dims, r);
            for (o, src) in sources.iter_mut().enumerate() {
                let oi = unflat(&odims, o);
                let mut idx = vec![0; dims.len()];
                kept.iter().zip(&oi).for_each(|(&d, &i)| idx[d] = i);
                red.iter().zip(&ri).for_each(|(&d, &i)| idx[d] = i);
                src.push(data[flat(&dims, &idx)]);
            }
        }
        let rd: Vec<String> = red.iter().map(|d| d.to_string()).collect();
        let text = literal("f32", &dims, &data);
        for (op, f) in [
            ("add", (|a, b| a + b) as fn(f32, f32) -> f32),
            ("maximum", |a: f32, b: f32| a.max(b)),
        ] {
            let want: Vec<u32> = sources
                .iter()
                .map(|xs| blocked_fold(xs, 0.0, f).to_bits())
                .collect();
            for extra in ["", " unused = f32[] constant(7)\n"] {
                let hlo = format!(
                    "HloModule m\nred {{\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n{extra} ROOT s = f32[] {op}(a, b)\n}}\nENTRY e {{\n p = {} parameter(0)\n z = f32[] constant(0)\n ROOT r = {} reduce(p, z), dimensions={{{}}}, to_apply=red\n}}\n",
                    shape("f32", &dims),
                    shape("f32", &odims),
                    rd.join(",")
                );
                let got = run_hlo(&hlo, std::slice::from_ref(&text))?;
                let bits: Vec<u32> = got
                    .as_array()
                    .and_then(|a| a.typed::<f32>())
                    .map(|v| v.iter().map(|x| x.to_bits()).collect())
                    .ok_or_else(|| TestCaseError::fail(format!("not an f32 array: {got}")))?;
                prop_assert_eq!(&bits, &want, "{} {:?} over {:?}{}", op, dims, red, extra);
            }
        }
        Ok(())
    };
    runner
        .run(&s, test)
        .map_err(|e| Failed::from(e.to_string()))
}

/// One window dimension: size, stride, pad_lo, pad_hi, lhs_dilate, rhs_dilate.
type Wd = (usize, usize, i64, i64, usize, usize);

/// The operand index (or none) at each position of the dilated, padded base of one dimension.
fn base_positions(n: usize, w: &Wd) -> Vec<Option<usize>> {
    let mut v: Vec<Option<usize>> = if n == 0 {
        vec![]
    } else {
        vec![None; (n - 1) * w.4 + 1]
    };
    for i in 0..n {
        v[i * w.4] = Some(i);
    }
    // Pad both ends first, then crop: a negative pad on one side may eat into the other
    // side's padding when the base is shorter than the crop (an empty base, say).
    let mut out = vec![None; w.2.max(0) as usize];
    out.extend(v);
    out.extend(std::iter::repeat_n(None, w.3.max(0) as usize));
    let cut = (-w.3).max(0) as usize;
    out.truncate(out.len().saturating_sub(cut));
    out.drain(..((-w.2).max(0) as usize).min(out.len()));
    out
}

/// Per dimension, per output position: the operand indices its taps read.
fn window_taps(dims: &[usize], win: &[Wd]) -> Vec<Vec<Vec<Option<usize>>>> {
    dims.iter()
        .zip(win)
        .map(|(&n, w)| {
            let pos = base_positions(n, w);
            let span = (w.0 - 1) * w.5 + 1;
            let mut outs = vec![];
            let mut o = 0;
            while o * w.1 + span <= pos.len() {
                outs.push((0..w.0).map(|k| pos[o * w.1 + k * w.5]).collect());
                o += 1;
            }
            outs
        })
        .collect()
}

fn win_text(win: &[Wd]) -> String {
    let j = |f: &dyn Fn(&Wd) -> String| win.iter().map(f).collect::<Vec<_>>().join("x");
    format!(
        "{{size={} stride={} pad={} lhs_dilate={} rhs_dilate={}}}",
        j(&|w| w.0.to_string()),
        j(&|w| w.1.to_string()),
        j(&|w| format!("{}_{}", w.2, w.3)),
        j(&|w| w.4.to_string()),
        j(&|w| w.5.to_string())
    )
}

/// Visits, for every output position (row-major), the operand offsets its window reads in tap
/// order (taps on padding or holes left out).
fn for_windows(dims: &[usize], win: &[Wd], mut f: impl FnMut(usize, Vec<usize>)) -> Vec<usize> {
    let taps = window_taps(dims, win);
    let odims: Vec<usize> = taps.iter().map(|t| t.len()).collect();
    for o in 0..odims.iter().product() {
        let oi = unflat(&odims, o);
        let tdims: Vec<usize> = win.iter().map(|w| w.0).collect();
        let mut offs = vec![];
        for t in 0..tdims.iter().product() {
            let ti = unflat(&tdims, t);
            let idx: Option<Vec<usize>> = (0..dims.len()).map(|d| taps[d][oi[d]][ti[d]]).collect();
            if let Some(idx) = idx {
                offs.push(flat(dims, &idx));
            }
        }
        f(o, offs);
    }
    odims
}

fn window_strategy() -> impl Strategy<Value = (Arr, Vec<Wd>)> {
    arr(3, 4).prop_flat_map(|a| {
        let r = a.dims.len();
        let wd = (
            1usize..4,
            1usize..3,
            -1i64..3,
            -1i64..3,
            1usize..3,
            1usize..3,
        );
        (Just(a), prop::collection::vec(wd, r))
    })
}

fn reduce_window_naive() -> Result<(), Failed> {
    check(window_strategy(), |(a, win)| {
        // Negative padding must leave a non-negative padded size.
        for (&n, w) in a.dims.iter().zip(&win) {
            let dil = if n == 0 {
                0
            } else {
                (n as i64 - 1) * w.4 as i64 + 1
            };
            if dil + w.2 + w.3 < 0 {
                return Ok(());
            }
        }
        let mut want = vec![];
        let odims = for_windows(&a.dims, &win, |_, offs| {
            want.push(offs.iter().map(|&k| a.data[k]).sum::<i64>());
        });
        let hlo = format!(
            "HloModule m\n{ADD}ENTRY e {{\n p = {} parameter(0)\n z = s64[] constant(0)\n ROOT r = {} reduce-window(p, z), window={}, to_apply=add\n}}\n",
            shape("s64", &a.dims),
            shape("s64", &odims),
            win_text(&win)
        );
        {
            let got = run_hlo(&hlo, &[literal("s64", &a.dims, &a.data)])?;
            prop_assert_eq!(ints(&got)?, want);
        }
        Ok(())
    })
}

/// F32 values whose sums depend on the order of the additions (1e30 absorbs small terms) and
/// whose maximum/minimum depend on operand order (NaN, signed zeros).
const F32_PALETTE: [&str; 10] = [
    "-2.5", "-1", "-0.0", "0.0", "0.5", "3", "nan", "inf", "-inf", "1e30",
];

/// A window that leaves the innermost `untouched` dimensions alone (size 1, stride 1, no padding
/// or dilation), so that reduce-window's fast path folds contiguous runs of them.
fn run_window_strategy() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, Vec<Wd>, usize)> {
    (
        prop::collection::vec(0usize..=4, 1..=4),
        0usize..3,
        1usize..=3,
    )
        .prop_flat_map(|(dims, init, untouched)| {
            let r = dims.len();
            let untouched = untouched.min(r);
            let n: usize = dims.iter().product();
            let wd = (1usize..4, 1usize..3, 0i64..2, 0i64..2, 1usize..3, 1usize..3);
            (
                Just(dims),
                prop::collection::vec(0usize..F32_PALETTE.len(), n),
                prop::collection::vec(wd, r - untouched).prop_map(move |mut w| {
                    w.extend(std::iter::repeat_n((1, 1, 0, 0, 1, 1), untouched));
                    w
                }),
                Just(init),
            )
        })
}

/// Reduce-window with a recognised reducer (the typed fast path, which folds contiguous runs
/// here) against the same reducer with one unused instruction added, which the fast path does
/// not recognise, so the interpreter evaluates it: the results must agree bit for bit, NaN
/// payloads and signed zeros included, since both promise the same fold order.
fn reduce_window_fast_vs_general() -> Result<(), Failed> {
    check(run_window_strategy(), |(dims, picks, win, init)| {
        let values: Vec<&str> = picks.iter().map(|&i| F32_PALETTE[i]).collect();
        let taps = window_taps(&dims, &win);
        let odims: Vec<usize> = taps.iter().map(|t| t.len()).collect();
        let text = literal("f32", &dims, &values);
        let init_value = ["0.0", "-inf", "-0.0"][init];
        for (op, swapped) in [
            ("add", false),
            ("maximum", false),
            ("maximum", true),
            ("minimum", false),
        ] {
            let (x, y) = if swapped { ("b", "a") } else { ("a", "b") };
            let reducer = |extra: &str| {
                format!(
                    "red {{\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n{extra} ROOT s = f32[] {op}({x}, {y})\n}}\n"
                )
            };
            let module = |extra: &str| {
                format!(
                    "HloModule m\n{}ENTRY e {{\n p = {} parameter(0)\n z = f32[] constant({init_value})\n ROOT r = {} reduce-window(p, z), window={}, to_apply=red\n}}\n",
                    reducer(extra),
                    shape("f32", &dims),
                    shape("f32", &odims),
                    win_text(&win)
                )
            };
            // Which path each module takes is the fast path's own recognition, asserted so that
            // a fast path that silently stops being taken fails here.
            for (extra, fast_path) in [("", true), (" unused = f32[] constant(7)\n", false)] {
                let m = parse_and_verify(&module(extra))
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                let red = m
                    .computation_by_name("red")
                    .ok_or_else(|| TestCaseError::fail("no reducer"))?;
                prop_assert_eq!(
                    recognise_reducer(&m, red).is_some(),
                    fast_path,
                    "{} swapped={}: fast path recognition",
                    op,
                    swapped
                );
            }
            let fast = run_hlo(&module(""), std::slice::from_ref(&text))?;
            let general = run_hlo(
                &module(" unused = f32[] constant(7)\n"),
                std::slice::from_ref(&text),
            )?;
            let bits = |l: &Literal| -> Result<Vec<u32>, TestCaseError> {
                l.as_array()
                    .and_then(|a| a.typed::<f32>())
                    // Which NaN (sign, payload) comes out depends on which operand the
                    // hardware meets first, and the semantics leave it open: all NaNs are one.
                    .map(|v| {
                        v.iter()
                            .map(|x| {
                                if x.is_nan() {
                                    f32::NAN.to_bits()
                                } else {
                                    x.to_bits()
                                }
                            })
                            .collect()
                    })
                    .ok_or_else(|| TestCaseError::fail(format!("not an f32 array: {l}")))
            };
            prop_assert_eq!(
                bits(&fast)?,
                bits(&general)?,
                "{} swapped={} window {}",
                op,
                swapped,
                win_text(&win)
            );
        }
        Ok(())
    })
}

fn full_window_equals_reduce() -> Result<(), Failed> {
    check(arr(3, 4), |a| {
        if a.dims.contains(&0) {
            return Ok(());
        }
        let ones = vec![1usize; a.dims.len()];
        let all: Vec<String> = (0..a.dims.len()).map(|d| d.to_string()).collect();
        let sizes: Vec<String> = a.dims.iter().map(|d| d.to_string()).collect();
        let hlo = format!(
            "HloModule m\n{ADD}ENTRY e {{\n p = {s} parameter(0)\n z = s64[] constant(0)\n w = {o} reduce-window(p, z), window={{size={}}}, to_apply=add\n r = s64[] reduce(p, z), dimensions={{{}}}, to_apply=add\n wr = s64[] reshape(w)\n ROOT t = (s64[], s64[]) tuple(wr, r)\n}}\n",
            sizes.join("x"),
            all.join(","),
            s = shape("s64", &a.dims),
            o = shape("s64", &ones),
        );
        {
            let got = run_hlo(&hlo, &[literal("s64", &a.dims, &a.data)])?;
            let t = got.as_tuple().unwrap_or(&[]);
            prop_assert_eq!(t.len(), 2);
            let sum: i64 = a.data.iter().sum();
            prop_assert_eq!(ints(&t[0])?, vec![sum]);
            prop_assert_eq!(ints(&t[1])?, vec![sum]);
        }
        Ok(())
    })
}

fn max_pool_gradient() -> Result<(), Failed> {
    let s = window_strategy().prop_map(|(a, win)| {
        // select-and-scatter takes no dilation and non-negative padding here.
        let win: Vec<Wd> = win
            .into_iter()
            .map(|w| (w.0, w.1, w.2.max(0), w.3.max(0), 1, 1))
            .collect();
        (a, win)
    });
    check(s, |(a, win)| {
        let mut srcs = vec![];
        let mut picks = vec![];
        let odims = for_windows(&a.dims, &win, |o, offs| {
            srcs.push(o as i64 * 10 + 1);
            // The first maximum of the window, in tap order.
            let mut best: Option<usize> = None;
            for k in offs {
                if best.is_none_or(|b| a.data[k] > a.data[b]) {
                    best = Some(k);
                }
            }
            picks.push(best);
        });
        let mut want = vec![0i64; a.data.len()];
        for (s, p) in srcs.iter().zip(&picks) {
            if let Some(k) = p {
                want[*k] += s;
            }
        }
        let hlo = format!(
            "HloModule m\n{ADD}ge {{\n a = s64[] parameter(0)\n b = s64[] parameter(1)\n ROOT c = pred[] compare(a, b), direction=GE\n}}\nENTRY e {{\n p = {s} parameter(0)\n src = {o} parameter(1)\n z = s64[] constant(0)\n ROOT r = {s} select-and-scatter(p, src, z), window={}, select=ge, scatter=add\n}}\n",
            win_text(&win),
            s = shape("s64", &a.dims),
            o = shape("s64", &odims),
        );
        let args = [
            literal("s64", &a.dims, &a.data),
            literal("s64", &odims, &srcs),
        ];
        {
            let got = run_hlo(&hlo, &args)?;
            prop_assert_eq!(ints(&got)?, want);
        }
        Ok(())
    })
}

/// A module sorting keys along `dim`, with their positions (an iota) as values.
fn sort_module(a: &Arr, dim: usize, stable: bool) -> String {
    let s = shape("s64", &a.dims);
    format!(
        "HloModule m\nlt {{\n a = s64[] parameter(0)\n b = s64[] parameter(1)\n c = s32[] parameter(2)\n d = s32[] parameter(3)\n ROOT r = pred[] compare(a, b), direction=LT\n}}\nENTRY e {{\n p = {s} parameter(0)\n i = {si} iota(), iota_dimension={dim}\n ROOT r = ({s}, {si}) sort(p, i), dimensions={{{dim}}}{st}, to_apply=lt\n}}\n",
        si = shape("s32", &a.dims),
        st = if stable { ", is_stable=true" } else { "" },
    )
}

/// A sort's results: the sorted keys and the original positions carried with them.
type KeysAndValues = (Vec<i64>, Vec<i64>);

fn sorted_rows(a: &Arr, dim: usize, stable: bool) -> Result<KeysAndValues, TestCaseError> {
    let got = run_hlo(
        &sort_module(a, dim, stable),
        &[literal("s64", &a.dims, &a.data)],
    )?;
    let t = got.as_tuple().unwrap_or(&[]);
    prop_assert_eq!(t.len(), 2);
    Ok((ints(&t[0])?, ints(&t[1])?))
}

fn sort_dim_strategy() -> impl Strategy<Value = (Arr, usize)> {
    arr(3, 5).prop_flat_map(|a| {
        let r = a.dims.len();
        (Just(a), 0..r)
    })
}

/// The positions of each row along `dim`, row by row.
fn rows(dims: &[usize], dim: usize) -> Vec<Vec<usize>> {
    let n: usize = dims.iter().product();
    let mut out: Vec<Vec<usize>> = vec![];
    for k in 0..n {
        let idx = unflat(dims, k);
        if idx[dim] == 0 {
            out.push(
                (0..dims[dim])
                    .map(|j| {
                        let mut i = idx.clone();
                        i[dim] = j;
                        flat(dims, &i)
                    })
                    .collect(),
            );
        }
    }
    out
}

fn sort_permutation() -> Result<(), Failed> {
    check(sort_dim_strategy(), |(a, dim)| {
        let (keys, vals) = sorted_rows(&a, dim, false)?;
        for row in rows(&a.dims, dim) {
            // The values are a permutation of the row's positions, and carry their keys along.
            let mut seen: Vec<i64> = row.iter().map(|&p| vals[p]).collect();
            seen.sort();
            prop_assert_eq!(seen, (0..row.len() as i64).collect::<Vec<_>>());
            for (t, &p) in row.iter().enumerate() {
                let src = row[vals[p] as usize];
                prop_assert_eq!(keys[p], a.data[src]);
                if t > 0 {
                    // Ordered: no later key is less than an earlier one.
                    prop_assert!(keys[row[t - 1]] <= keys[p]);
                }
            }
        }
        Ok(())
    })
}

fn stable_sort() -> Result<(), Failed> {
    // Few distinct keys, so that ties are common.
    let s = sort_dim_strategy().prop_map(|(mut a, d)| {
        for x in &mut a.data {
            *x = x.rem_euclid(3);
        }
        (a, d)
    });
    check(s, |(a, dim)| {
        let (keys, vals) = sorted_rows(&a, dim, true)?;
        for row in rows(&a.dims, dim) {
            for t in 1..row.len() {
                let (p, q) = (row[t - 1], row[t]);
                if keys[p] == keys[q] {
                    prop_assert!(vals[p] < vals[q], "equal keys out of their original order");
                }
            }
        }
        Ok(())
    })
}

fn topk_prefix() -> Result<(), Failed> {
    let s = arr(3, 5).prop_flat_map(|a| {
        let m = *a.dims.last().unwrap_or(&0);
        (Just(a), 0..=m, any::<bool>())
    });
    check(s, |(a, k, largest)| {
        let m = *a.dims.last().unwrap_or(&0);
        let mut od = a.dims.clone();
        if let Some(l) = od.last_mut() {
            *l = k;
        }
        let (mut wv, mut wi) = (vec![], vec![]);
        for r in 0..a.data.len().checked_div(m).unwrap_or(0) {
            let mut idx: Vec<usize> = (0..m).collect();
            idx.sort_by_key(|&j| {
                let v = a.data[r * m + j];
                (if largest { -v } else { v }, j)
            });
            for &j in idx.iter().take(k) {
                wv.push(a.data[r * m + j]);
                wi.push(j as i64);
            }
        }
        let hlo = format!(
            "HloModule m\nENTRY e {{\n p = {} parameter(0)\n ROOT t = ({}, {}) topk(p), k={k}, largest={largest}\n}}\n",
            shape("s64", &a.dims),
            shape("s64", &od),
            shape("s32", &od)
        );
        {
            let got = run_hlo(&hlo, &[literal("s64", &a.dims, &a.data)])?;
            let t = got.as_tuple().unwrap_or(&[]);
            prop_assert_eq!(t.len(), 2);
            prop_assert_eq!(ints(&t[0])?, wv);
            prop_assert_eq!(ints(&t[1])?, wi);
        }
        Ok(())
    })
}

fn map_add() -> Result<(), Failed> {
    let s = arr(3, 4).prop_flat_map(|a| {
        let n = a.data.len();
        (Just(a), prop::collection::vec(-20i64..20, n))
    });
    check(s, |(a, b)| {
        let dims: Vec<String> = (0..a.dims.len()).map(|d| d.to_string()).collect();
        let s = shape("s64", &a.dims);
        let hlo = format!(
            "HloModule m\n{ADD}ENTRY e {{\n x = {s} parameter(0)\n y = {s} parameter(1)\n ROOT r = {s} map(x, y), dimensions={{{}}}, to_apply=add\n}}\n",
            dims.join(",")
        );
        let args = [
            literal("s64", &a.dims, &a.data),
            literal("s64", &a.dims, &b),
        ];
        {
            let got = run_hlo(&hlo, &args)?;
            let want: Vec<i64> = a.data.iter().zip(&b).map(|(x, y)| x + y).collect();
            prop_assert_eq!(ints(&got)?, want);
        }
        Ok(())
    })
}
