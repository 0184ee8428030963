//! Property tests for the data-movement ops: each runs the ops through the reference evaluator on
//! random shapes and compares with the index formulas of the Operation Semantics chapter, written
//! out naively here (one index computation per element), or with an algebraic identity (slice then
//! pad back, transpose twice, reshape round trips, dynamic-update-slice then dynamic-slice).

use super::seeded::runner_trial;
use libtest_mimic::Trial;
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use xla_spec::Literal;
use xla_spec::eval::{RunOptions, run};
use xla_spec::verify::parse_and_verify;

const CASES: u32 = 64;

pub fn trials() -> Vec<Trial> {
    vec![
        trial("transpose_formula_and_inverse", |r| {
            transpose_formula_and_inverse(r, dims_strategy(4, 4))
        }),
        // Sizes past the 32-element tile edge, so the blocked path and its edges are covered.
        trial("transpose_large_tiled", |r| {
            transpose_formula_and_inverse(r, prop::collection::vec(0i64..=80, 2..=3))
        }),
        trial("reverse_formula_and_twice", reverse_formula_and_twice),
        trial("slice_then_pad_back", slice_then_pad_back),
        trial("pad_formula", pad_formula),
        trial("reshape_round_trip", reshape_round_trip),
        trial("dus_then_ds_returns_update", dus_then_ds_returns_update),
        trial("concatenate_then_slice", concatenate_then_slice),
        trial("broadcast_formula", broadcast_formula),
    ]
}

fn trial(name: &str, f: fn(&mut TestRunner) -> Result<(), String>) -> Trial {
    runner_trial("movement", name, CASES, f)
}

fn fail(e: impl std::fmt::Display) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// Runs HLO text on s32 arguments and returns the result's dimensions and elements.
fn run_s32(src: &str, args: Vec<Literal>) -> Result<(Vec<i64>, Vec<i32>), TestCaseError> {
    let m = parse_and_verify(src).map_err(|e| fail(format!("{e}\n{src}")))?;
    let out = run(&m, args, &RunOptions::default()).map_err(|e| fail(format!("{e}\n{src}")))?;
    let a = out
        .result
        .as_array()
        .ok_or_else(|| fail("result is not an array"))?;
    let v = a.typed::<i32>().ok_or_else(|| fail("result is not s32"))?;
    Ok((a.dims().to_vec(), v.to_vec()))
}

fn count(dims: &[i64]) -> usize {
    dims.iter().product::<i64>() as usize
}

/// Distinct values `base, base + 1, ...`, so every misplaced element is noticed.
fn values(dims: &[i64], base: i32) -> Vec<i32> {
    (0..count(dims) as i32).map(|k| base + k).collect()
}

fn lit(dims: &[i64], v: Vec<i32>) -> Literal {
    Literal::vec(dims.to_vec(), v).expect("literal")
}

fn list(v: &[i64]) -> String {
    v.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn shape(dims: &[i64]) -> String {
    format!("s32[{}]", list(dims))
}

/// Multi-index of row-major position `k` in `dims`.
fn unravel(mut k: usize, dims: &[i64]) -> Vec<i64> {
    let mut idx = vec![0i64; dims.len()];
    for d in (0..dims.len()).rev() {
        let n = dims[d].max(1) as usize;
        idx[d] = (k % n) as i64;
        k /= n;
    }
    idx
}

/// Row-major position of a multi-index.
fn ravel(idx: &[i64], dims: &[i64]) -> usize {
    idx.iter()
        .zip(dims)
        .fold(0usize, |acc, (&i, &d)| acc * d as usize + i as usize)
}

fn dims_strategy(max_rank: usize, max_size: i64) -> impl Strategy<Value = Vec<i64>> {
    prop::collection::vec(0..=max_size, 0..=max_rank)
}

fn transpose_formula_and_inverse(
    r: &mut TestRunner,
    dims: impl Strategy<Value = Vec<i64>>,
) -> Result<(), String> {
    let strat = dims.prop_flat_map(|d| {
        let n = d.len();
        (
            Just(d),
            Just((0..n as i64).collect::<Vec<_>>()).prop_shuffle(),
        )
    });
    r.run(&strat, |(dims, perm)| {
        let out: Vec<i64> = perm.iter().map(|&p| dims[p as usize]).collect();
        let mut inv = vec![0i64; perm.len()];
        for (k, &p) in perm.iter().enumerate() {
            inv[p as usize] = k as i64;
        }
        let data = values(&dims, 0);
        // Transposing by the permutation and then by its inverse gives the operand back.
        let src = format!(
            "HloModule m\nENTRY e {{\n  p = {} parameter(0)\n  t = {} transpose(p), dimensions={{{}}}\n  ROOT b = {} transpose(t), dimensions={{{}}}\n}}\n",
            shape(&dims),
            shape(&out),
            list(&perm),
            shape(&dims),
            list(&inv)
        );
        let (got_dims, got) = run_s32(&src, vec![lit(&dims, data.clone())])?;
        prop_assert_eq!(&got_dims, &dims);
        prop_assert_eq!(&got, &data);
        // One transpose against result[i] = operand[j] with j[perm[k]] = i[k].
        let src1 = format!(
            "HloModule m\nENTRY e {{\n  p = {} parameter(0)\n  ROOT t = {} transpose(p), dimensions={{{}}}\n}}\n",
            shape(&dims),
            shape(&out),
            list(&perm)
        );
        let (_, got) = run_s32(&src1, vec![lit(&dims, data.clone())])?;
        for (k, &g) in got.iter().enumerate() {
            let i = unravel(k, &out);
            let mut j = vec![0i64; dims.len()];
            for (q, &p) in perm.iter().enumerate() {
                j[p as usize] = i[q];
            }
            prop_assert_eq!(g, data[ravel(&j, &dims)]);
        }
        Ok(())
    })
    .map_err(|e| e.to_string())
}

fn reverse_formula_and_twice(r: &mut TestRunner) -> Result<(), String> {
    let strat = dims_strategy(4, 4).prop_flat_map(|d| {
        let n = d.len();
        (Just(d), prop::collection::vec(any::<bool>(), n))
    });
    r.run(&strat, |(dims, which)| {
        let rev: Vec<i64> = (0..dims.len() as i64)
            .filter(|&k| which[k as usize])
            .collect();
        let s = shape(&dims);
        let src = format!(
            "HloModule m\nENTRY e {{\n  p = {s} parameter(0)\n  ROOT r = {s} reverse(p), dimensions={{{}}}\n}}\n",
            list(&rev)
        );
        let data = values(&dims, 7);
        let (_, got) = run_s32(&src, vec![lit(&dims, data.clone())])?;
        for (k, &g) in got.iter().enumerate() {
            let mut i = unravel(k, &dims);
            for &d in &rev {
                i[d as usize] = dims[d as usize] - 1 - i[d as usize];
            }
            prop_assert_eq!(g, data[ravel(&i, &dims)]);
        }
        let (_, twice) = run_s32(&src, vec![lit(&dims, got)])?;
        prop_assert_eq!(twice, data);
        Ok(())
    })
    .map_err(|e| e.to_string())
}

/// A shape of rank 1 to 3 and a random (start, limit) per dimension inside it.
fn ranges_strategy() -> impl Strategy<Value = (Vec<i64>, Vec<(i64, i64)>)> {
    prop::collection::vec(0i64..=5, 1..=3).prop_flat_map(|d| {
        let r: Vec<_> = d
            .iter()
            .map(|&n| (0..=n).prop_flat_map(move |s| (Just(s), s..=n)))
            .collect();
        (Just(d), r)
    })
}

fn slice_then_pad_back(r: &mut TestRunner) -> Result<(), String> {
    r.run(&ranges_strategy(), |(dims, ranges)| {
        let out: Vec<i64> = ranges.iter().map(|(s, l)| l - s).collect();
        let slices = ranges
            .iter()
            .map(|(s, l)| format!("[{s}:{l}]"))
            .collect::<Vec<_>>()
            .join(", ");
        let pads = ranges
            .iter()
            .zip(&dims)
            .map(|((s, l), n)| format!("{s}_{}", n - l))
            .collect::<Vec<_>>()
            .join("x");
        let src = format!(
            "HloModule m\nENTRY e {{\n  p = {} parameter(0)\n  s = {} slice(p), slice={{{slices}}}\n  z = s32[] constant(-1)\n  ROOT r = {} pad(s, z), padding={pads}\n}}\n",
            shape(&dims),
            shape(&out),
            shape(&dims)
        );
        let data = values(&dims, 0);
        let (_, got) = run_s32(&src, vec![lit(&dims, data.clone())])?;
        for (k, &g) in got.iter().enumerate() {
            let i = unravel(k, &dims);
            let inside = i.iter().zip(&ranges).all(|(&x, &(s, l))| s <= x && x < l);
            prop_assert_eq!(g, if inside { data[k] } else { -1 });
        }
        Ok(())
    })
    .map_err(|e| e.to_string())
}

fn pad_formula(r: &mut TestRunner) -> Result<(), String> {
    let strat = prop::collection::vec(0i64..=4, 1..=3).prop_flat_map(|d| {
        let n = d.len();
        (
            Just(d),
            prop::collection::vec((-4i64..4, -4i64..4, 0i64..3), n),
        )
    });
    r.run(&strat, |(dims, cfg)| {
        let out: Vec<i64> = dims
            .iter()
            .zip(&cfg)
            .map(|(&n, &(lo, hi, int))| lo + hi + n + (n - 1).max(0) * int)
            .collect();
        if out.iter().any(|&s| s < 0) {
            return Ok(());
        }
        let pads = cfg
            .iter()
            .map(|(lo, hi, int)| format!("{lo}_{hi}_{int}"))
            .collect::<Vec<_>>()
            .join("x");
        let src = format!(
            "HloModule m\nENTRY e {{\n  p = {} parameter(0)\n  z = s32[] constant(-9)\n  ROOT r = {} pad(p, z), padding={pads}\n}}\n",
            shape(&dims),
            shape(&out)
        );
        let data = values(&dims, 100);
        let (got_dims, got) = run_s32(&src, vec![lit(&dims, data.clone())])?;
        prop_assert_eq!(&got_dims, &out);
        for (k, &g) in got.iter().enumerate() {
            let p = unravel(k, &out);
            // Position p holds operand index i where p = lo + i·(interior + 1), if there is one.
            let mut src_idx = Some(Vec::with_capacity(dims.len()));
            for (d, &(lo, _, int)) in cfg.iter().enumerate() {
                let (off, step) = (p[d] - lo, int + 1);
                if off < 0 || off % step != 0 || off / step >= dims[d] {
                    src_idx = None;
                    break;
                }
                if let Some(v) = src_idx.as_mut() {
                    v.push(off / step);
                }
            }
            let want = src_idx.map(|i| data[ravel(&i, &dims)]).unwrap_or(-9);
            prop_assert_eq!(g, want);
        }
        Ok(())
    })
    .map_err(|e| e.to_string())
}

fn reshape_round_trip(r: &mut TestRunner) -> Result<(), String> {
    let strat = (dims_strategy(4, 4), prop::collection::vec(1i64..=4, 0..4));
    r.run(&strat, |(dims, factors)| {
        // A random refactoring of the element count: factors that divide what is left, then
        // the remainder.
        let mut target = Vec::new();
        let mut left = count(&dims) as i64;
        for f in factors {
            if left > 0 && left % f == 0 {
                target.push(f);
                left /= f;
            }
        }
        target.push(left);
        let data = values(&dims, 3);
        let there_and_back = format!(
            "HloModule m\nENTRY e {{\n  p = {} parameter(0)\n  r = {} reshape(p)\n  ROOT b = {} reshape(r)\n}}\n",
            shape(&dims),
            shape(&target),
            shape(&dims)
        );
        let (got_dims, got) = run_s32(&there_and_back, vec![lit(&dims, data.clone())])?;
        prop_assert_eq!(got_dims, dims.clone());
        prop_assert_eq!(&got, &data);
        // One reshape keeps the row-major sequence.
        let once = format!(
            "HloModule m\nENTRY e {{\n  p = {} parameter(0)\n  ROOT r = {} reshape(p)\n}}\n",
            shape(&dims),
            shape(&target)
        );
        let (got_dims, flat) = run_s32(&once, vec![lit(&dims, data.clone())])?;
        prop_assert_eq!(got_dims, target);
        prop_assert_eq!(flat, data);
        Ok(())
    })
    .map_err(|e| e.to_string())
}

fn dus_then_ds_returns_update(r: &mut TestRunner) -> Result<(), String> {
    let strat = dims_strategy(3, 5).prop_flat_map(|d| {
        let sizes: Vec<_> = d.iter().map(|&n| 0..=n).collect();
        let starts = prop::collection::vec(-8i64..12, d.len());
        (Just(d), sizes, starts)
    });
    r.run(&strat, |(dims, upd, starts)| {
        let idx_decl: String = starts
            .iter()
            .enumerate()
            .map(|(k, s)| format!("  i{k} = s64[] constant({s})\n"))
            .collect();
        let idx_names: String = (0..starts.len()).map(|k| format!(", i{k}")).collect();
        let data = values(&dims, 0);
        let u = values(&upd, 1000);
        let src = format!(
            "HloModule m\nENTRY e {{\n  p = {} parameter(0)\n  u = {} parameter(1)\n{idx_decl}  d = {} dynamic-update-slice(p, u{idx_names})\n  ROOT s = {} dynamic-slice(d{idx_names}), dynamic_slice_sizes={{{}}}\n}}\n",
            shape(&dims),
            shape(&upd),
            shape(&dims),
            shape(&upd),
            list(&upd)
        );
        let (_, got) = run_s32(&src, vec![lit(&dims, data.clone()), lit(&upd, u.clone())])?;
        prop_assert_eq!(&got, &u);
        // The update alone, against the clamp formula.
        let src1 = format!(
            "HloModule m\nENTRY e {{\n  p = {} parameter(0)\n  u = {} parameter(1)\n{idx_decl}  ROOT d = {} dynamic-update-slice(p, u{idx_names})\n}}\n",
            shape(&dims),
            shape(&upd),
            shape(&dims)
        );
        let (_, out) = run_s32(&src1, vec![lit(&dims, data.clone()), lit(&upd, u.clone())])?;
        let st: Vec<i64> = starts
            .iter()
            .zip(dims.iter().zip(&upd))
            .map(|(&s, (&n, &m))| s.clamp(0, n - m))
            .collect();
        for (k, &g) in out.iter().enumerate() {
            let i = unravel(k, &dims);
            let inside = (0..dims.len()).all(|d| st[d] <= i[d] && i[d] < st[d] + upd[d]);
            let want = if inside {
                let j: Vec<i64> = (0..dims.len()).map(|d| i[d] - st[d]).collect();
                u[ravel(&j, &upd)]
            } else {
                data[k]
            };
            prop_assert_eq!(g, want);
        }
        Ok(())
    })
    .map_err(|e| e.to_string())
}

fn concatenate_then_slice(r: &mut TestRunner) -> Result<(), String> {
    let strat = prop::collection::vec(0i64..=4, 1..=3).prop_flat_map(|d| {
        let n = d.len();
        (Just(d), 0..n, prop::collection::vec(0i64..=4, 1..=4))
    });
    r.run(&strat, |(dims, axis, sizes)| {
        let shapes: Vec<Vec<i64>> = sizes
            .iter()
            .map(|&s| {
                let mut d = dims.clone();
                d[axis] = s;
                d
            })
            .collect();
        let mut out = dims.clone();
        out[axis] = sizes.iter().sum();
        let params: String = shapes
            .iter()
            .enumerate()
            .map(|(k, s)| format!("  p{k} = {} parameter({k})\n", shape(s)))
            .collect();
        let names = (0..shapes.len())
            .map(|k| format!("p{k}"))
            .collect::<Vec<_>>()
            .join(", ");
        let src = format!(
            "HloModule m\nENTRY e {{\n{params}  ROOT c = {} concatenate({names}), dimensions={{{axis}}}\n}}\n",
            shape(&out)
        );
        let datas: Vec<Vec<i32>> = shapes
            .iter()
            .enumerate()
            .map(|(k, s)| values(s, 1000 * k as i32))
            .collect();
        let args = shapes
            .iter()
            .zip(&datas)
            .map(|(s, d)| lit(s, d.clone()))
            .collect();
        let (got_dims, got) = run_s32(&src, args)?;
        prop_assert_eq!(&got_dims, &out);
        // Each result element comes from the operand whose range along `axis` contains it.
        for (k, &g) in got.iter().enumerate() {
            let mut i = unravel(k, &out);
            let mut which = 0;
            while i[axis] >= sizes[which] {
                i[axis] -= sizes[which];
                which += 1;
            }
            prop_assert_eq!(g, datas[which][ravel(&i, &shapes[which])]);
        }
        Ok(())
    })
    .map_err(|e| e.to_string())
}

fn broadcast_formula(r: &mut TestRunner) -> Result<(), String> {
    // Output dims, which of them the operand keeps, and which kept ones it has as size 1.
    let strat = prop::collection::vec(0i64..=3, 0..=4).prop_flat_map(|out| {
        let n = out.len();
        (
            Just(out),
            prop::collection::vec(any::<bool>(), n),
            prop::collection::vec(any::<bool>(), n),
        )
    });
    r.run(&strat, |(out, keep, degenerate)| {
        let map: Vec<i64> = (0..out.len() as i64)
            .filter(|&k| keep[k as usize])
            .collect();
        let op_dims: Vec<i64> = map
            .iter()
            .map(|&k| {
                if degenerate[k as usize] {
                    1
                } else {
                    out[k as usize]
                }
            })
            .collect();
        let src = format!(
            "HloModule m\nENTRY e {{\n  p = {} parameter(0)\n  ROOT b = {} broadcast(p), dimensions={{{}}}\n}}\n",
            shape(&op_dims),
            shape(&out),
            list(&map)
        );
        let data = values(&op_dims, 5);
        let (_, got) = run_s32(&src, vec![lit(&op_dims, data.clone())])?;
        prop_assert_eq!(got.len(), count(&out));
        for (k, &g) in got.iter().enumerate() {
            let i = unravel(k, &out);
            let j: Vec<i64> = map
                .iter()
                .zip(&op_dims)
                .map(|(&m, &n)| if n == 1 { 0 } else { i[m as usize] })
                .collect();
            prop_assert_eq!(g, data[ravel(&j, &op_dims)]);
        }
        Ok(())
    })
    .map_err(|e| e.to_string())
}
