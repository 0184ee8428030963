//! The generators of the ops with structure beyond element-wise: data movement, reductions and
//! windows, `dot` and `convolution`. Their arguments and attributes reach the corners as the
//! parent module's do; sums use small integers, so any order of summation is exact.

use super::*;
use crate::literal::{Literal, Scalar, highest, lowest};

fn list(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

pub(super) fn movement(rng: &mut Rng, size: i64) -> Draft {
    let t = rng.pick(ALL);
    let mut d = dims(rng, size, 3);
    if d.is_empty() {
        d.push(rng.range(1, size.max(1)));
    }
    let rank = d.len();
    let s = shape(t, &d);
    let x = array(rng, t, &d);
    let which = rng.pick(MOVEMENT);
    let (line, params, args): (String, Vec<String>, Vec<Literal>) = match which {
        "transpose" => {
            let mut perm: Vec<i64> = (0..rank as i64).collect();
            for i in (1..rank).rev() {
                perm.swap(i, rng.below(i + 1));
            }
            (
                format!("r = transpose(p0), dimensions={{{}}}", list(&perm)),
                vec![s],
                vec![x],
            )
        }
        "reverse" => {
            let dimsr: Vec<i64> = (0..rank as i64).filter(|_| rng.chance(50)).collect();
            (
                format!("r = reverse(p0), dimensions={{{}}}", list(&dimsr)),
                vec![s],
                vec![x],
            )
        }
        "slice" => {
            let mut out = vec![];
            let parts: Vec<String> = d
                .iter()
                .map(|&n| {
                    let start = rng.range(0, n);
                    let limit = rng.range(start, n);
                    let stride = rng.range(1, 3);
                    out.push((limit - start + stride - 1) / stride);
                    format!("[{start}:{limit}:{stride}]")
                })
                .collect();
            (
                format!(
                    "r = {} slice(p0), slice={{{}}}",
                    shape(t, &out),
                    parts.join(", ")
                ),
                vec![s],
                vec![x],
            )
        }
        "pad" => {
            let parts: Vec<String> = d
                .iter()
                .map(|&n| {
                    let interior = if rng.chance(40) { rng.range(0, 2) } else { 0 };
                    let full = n + (n - 1).max(0) * interior;
                    // Negative edges may cut into the operand, never below an empty result.
                    let lo = rng.range(-(full / 2), 2);
                    let hi = rng.range(-(full + lo).min(full / 2).max(0), 2);
                    format!("{lo}_{hi}_{interior}")
                })
                .collect();
            (
                format!("r = pad(p0, p1), padding={}", parts.join("x")),
                vec![s, shape(t, &[])],
                vec![x, array(rng, t, &[])],
            )
        }
        "concatenate" => {
            let k = rng.below(rank);
            let mut d2 = d.clone();
            d2[k] = rng.range(0, size.max(1));
            (
                format!("r = concatenate(p0, p1), dimensions={{{k}}}"),
                vec![s, shape(t, &d2)],
                vec![x, array(rng, t, &d2)],
            )
        }
        "broadcast" => {
            // Operand dimensions keep their order among new ones.
            let extra = rng.range(0, 2) as usize;
            let out_rank = rank + extra;
            let mut map: Vec<i64> = (0..out_rank as i64).collect();
            while map.len() > rank {
                let i = rng.below(map.len());
                map.remove(i);
            }
            (
                format!(
                    "r = {} broadcast(p0), dimensions={{{}}}",
                    {
                        let mut od = vec![0i64; out_rank];
                        for (i, &m) in map.iter().enumerate() {
                            od[m as usize] = d[i];
                        }
                        for (j, o) in od.iter_mut().enumerate() {
                            if !map.contains(&(j as i64)) {
                                *o = rng.range(1, 3);
                            }
                        }
                        shape(t, &od)
                    },
                    list(&map)
                ),
                vec![s],
                vec![x],
            )
        }
        "reshape" => {
            let n: i64 = d.iter().product();
            let mut out = vec![];
            let mut rest = n;
            if n > 0 {
                for f in [2, 3, 2, 5] {
                    if rest % f == 0 && rng.chance(50) {
                        out.push(f);
                        rest /= f;
                    }
                }
                out.push(rest);
            } else {
                out = vec![0, rng.range(1, 3)];
            }
            (
                format!("r = {} reshape(p0)", shape(t, &out)),
                vec![s],
                vec![x],
            )
        }
        "dynamic-slice" => {
            let sizes: Vec<i64> = d.iter().map(|&n| rng.range(0, n)).collect();
            // Start indices beyond either end are clamped: draw some.
            let starts: Vec<i64> = d.iter().map(|&n| rng.range(-2, n + 2)).collect();
            let idx: Vec<String> = (1..=rank).map(|i| format!("p{i}")).collect();
            let mut params = vec![s];
            let mut args = vec![x];
            for &st in &starts {
                params.push("s32[]".into());
                args.push(Literal::from_scalar(Scalar::S32(st as i32)));
            }
            (
                format!(
                    "r = {} dynamic-slice(p0, {}), dynamic_slice_sizes={{{}}}",
                    shape(t, &sizes),
                    idx.join(", "),
                    list(&sizes)
                ),
                params,
                args,
            )
        }
        _ => {
            let ud: Vec<i64> = d.iter().map(|&n| rng.range(0, n)).collect();
            let starts: Vec<i64> = d.iter().map(|&n| rng.range(-2, n + 2)).collect();
            let idx: Vec<String> = (2..rank + 2).map(|i| format!("p{i}")).collect();
            let mut params = vec![s, shape(t, &ud)];
            let mut args = vec![x, array(rng, t, &ud)];
            for &st in &starts {
                params.push("s64[]".into());
                args.push(Literal::from_scalar(Scalar::S64(st)));
            }
            (
                format!(
                    "r = {} dynamic-update-slice(p0, p1, {})",
                    shape(t, &d),
                    idx.join(", ")
                ),
                params,
                args,
            )
        }
    };
    Draft {
        family: "movement",
        op: which.into(),
        hlo: module(&[line], &params, ""),
        args: one(args),
        approximate: false,
        elementwise: false,
        zero_sign_free: false,
    }
}

/// A scalar reducer computation and the identity it is used with.
fn reducer(rng: &mut Rng, t: ElementType) -> (&'static str, String, String) {
    let op = if t == Pred {
        rng.pick(&["and", "or"])
    } else if t.is_complex() {
        // Complex numbers are not ordered: `add` is the complex reduction there is.
        "add"
    } else {
        rng.pick(&["add", "maximum", "minimum", "multiply"])
    };
    let s = shape(t, &[]);
    let comp = format!(
        "red {{\n  a = {s} parameter(0)\n  b = {s} parameter(1)\n  ROOT c = {s} {op}(a, b)\n}}\n\n"
    );
    let init = match (op, t) {
        _ if t.is_complex() => "(0, 0)".into(),
        ("and", _) => "true".into(),
        ("or", _) => "false".into(),
        ("add", _) => "0".into(),
        ("multiply", _) => "1".into(),
        ("maximum", _) if t.is_floating() => "-inf".into(),
        ("minimum", _) if t.is_floating() => "inf".into(),
        ("maximum", _) => lowest(t).as_i128().unwrap_or(0).to_string(),
        _ => highest(t).as_i128().unwrap_or(0).to_string(),
    };
    (op, comp, format!("i = {s} constant({init})"))
}

/// Sums and products of tame values are exact in any order; max/min see every special value.
fn reduce_input(rng: &mut Rng, op: &str, t: ElementType, d: &[i64]) -> Literal {
    if matches!(op, "add" | "multiply") {
        tame(rng, t, d)
    } else {
        array(rng, t, d)
    }
}

pub(super) fn reduce(rng: &mut Rng, size: i64) -> Draft {
    let t = if rng.chance(10) {
        rng.pick(COMPLEX)
    } else {
        rng.pick(ALL)
    };
    let d = dims(rng, size, 3);
    let (op, comp, init) = reducer(rng, t);
    let red: Vec<i64> = (0..d.len() as i64).filter(|_| rng.chance(50)).collect();
    let x = reduce_input(rng, op, t, &d);
    Draft {
        family: "reduce",
        op: format!("reduce {op}"),
        hlo: module(
            &[
                init,
                format!(
                    "r = reduce(p0, i), dimensions={{{}}}, to_apply=red",
                    list(&red)
                ),
            ],
            &[shape(t, &d)],
            &comp,
        ),
        args: one(vec![x]),
        approximate: false,
        elementwise: false,
        zero_sign_free: true,
    }
}

pub(super) fn reduce_window(rng: &mut Rng, size: i64) -> Draft {
    let t = rng.pick(ALL);
    let mut d = dims(rng, size, 3);
    if d.is_empty() {
        d.push(rng.range(1, size.max(1)));
    }
    let (op, comp, init) = reducer(rng, t);
    let rank = d.len();
    let pick = |rng: &mut Rng, lo: i64, hi: i64| -> Vec<String> {
        (0..rank).map(|_| rng.range(lo, hi).to_string()).collect()
    };
    let sizes = pick(rng, 1, 3);
    let strides = pick(rng, 1, 3);
    let pads: Vec<String> = (0..rank)
        .map(|_| format!("{}_{}", rng.range(0, 2), rng.range(0, 2)))
        .collect();
    let lhs = pick(rng, 1, 2);
    let rhs = pick(rng, 1, 2);
    let x = reduce_input(rng, op, t, &d);
    Draft {
        family: "reduce-window",
        op: format!("reduce-window {op}"),
        hlo: module(
            &[
                init,
                format!(
                    "r = reduce-window(p0, i), window={{size={} stride={} pad={} lhs_dilate={} rhs_dilate={}}}, to_apply=red",
                    sizes.join("x"),
                    strides.join("x"),
                    pads.join("x"),
                    lhs.join("x"),
                    rhs.join("x")
                ),
            ],
            &[shape(t, &d)],
            &comp,
        ),
        args: one(vec![x]),
        approximate: false,
        elementwise: false,
        zero_sign_free: true,
    }
}

pub(super) fn dot(rng: &mut Rng, size: i64) -> Draft {
    let t = rng.pick(&[S8, S32, S64, U8, U32, F16, BF16, F32, F64, C64, C128]);
    let b = rng.range(0, 1);
    let (m, k, n) = (rng.range(1, size), rng.range(0, size), rng.range(1, size));
    let batch: Vec<i64> = (0..b).map(|_| rng.range(1, 3)).collect();
    let mut ld = batch.clone();
    ld.extend([m, k]);
    let mut rd = batch.clone();
    // The right operand sometimes has its contracting dimension last.
    let rhs_k_last = rng.chance(40);
    if rhs_k_last {
        rd.extend([n, k]);
    } else {
        rd.extend([k, n]);
    }
    let bd = list(&(0..b).collect::<Vec<_>>());
    let rc = if rhs_k_last { b + 1 } else { b };
    let attrs = format!(
        "lhs_batch_dims={{{bd}}}, rhs_batch_dims={{{bd}}}, lhs_contracting_dims={{{}}}, rhs_contracting_dims={{{rc}}}",
        b + 1
    );
    Draft {
        family: "dot",
        op: "dot".into(),
        hlo: module(
            &[format!("r = dot(p0, p1), {attrs}")],
            &[shape(t, &ld), shape(t, &rd)],
            "",
        ),
        args: one(vec![tame(rng, t, &ld), tame(rng, t, &rd)]),
        approximate: false,
        elementwise: false,
        zero_sign_free: true,
    }
}

pub(super) fn convolution(rng: &mut Rng, size: i64) -> Draft {
    let t = rng.pick(&[S32, F16, BF16, F32, F64]);
    let groups = rng.range(1, 2);
    let batch_groups = if groups == 1 && rng.chance(20) { 2 } else { 1 };
    let n = rng.range(1, 2) * batch_groups;
    let cin = rng.range(1, 2) * groups;
    let cout = rng.range(1, 2) * groups * batch_groups;
    let (h, w) = (rng.range(1, size + 1), rng.range(1, size + 1));
    let (kh, kw) = (rng.range(1, 3), rng.range(1, 3));
    let lhs = [n, h, w, cin];
    let rhs = [kh, kw, cin / groups, cout];
    let strides = format!("{}x{}", rng.range(1, 2), rng.range(1, 2));
    // Negative padding crops the input; XLA's convolutions take it, as long as something
    // (possibly nothing) is left: the input is at least `h` wide whatever its dilation.
    let mut pad = |n: i64| {
        let lo = rng.range(-1, 2);
        let hi = rng.range((-n - lo).max(-1), 2);
        format!("{lo}_{hi}")
    };
    let pads = format!("{}x{}", pad(h), pad(w));
    let lhs_d = format!("{}x{}", rng.range(1, 2), rng.range(1, 2));
    let rhs_d = format!("{}x{}", rng.range(1, 2), rng.range(1, 2));
    let reversal = if rng.chance(20) {
        " rhs_reversal=1x0"
    } else {
        ""
    };
    let line = format!(
        "r = convolution(p0, p1), window={{size={kh}x{kw} stride={strides} pad={pads} lhs_dilate={lhs_d} rhs_dilate={rhs_d}{reversal}}}, dim_labels=b01f_01io->b01f, feature_group_count={groups}, batch_group_count={batch_groups}"
    );
    Draft {
        family: "convolution",
        op: "convolution".into(),
        hlo: module(&[line], &[shape(t, &lhs), shape(t, &rhs)], ""),
        args: one(vec![tame(rng, t, &lhs), tame(rng, t, &rhs)]),
        approximate: false,
        elementwise: false,
        zero_sign_free: true,
    }
}
