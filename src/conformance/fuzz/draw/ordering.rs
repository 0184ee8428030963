//! Ops whose answers hang on an order or a bit-exact recipe: `sort`, `select-and-scatter`, and
//! `rng-bit-generator`.

use super::*;
use std::collections::HashSet;

/// The positions (row-major linear indices) of each row of `dims` along `dim`.
fn rows(dims: &[i64], dim: usize) -> Vec<Vec<usize>> {
    let n: i64 = dims.iter().product();
    let stride: i64 = dims[dim + 1..].iter().product();
    let len = dims[dim];
    (0..n)
        .filter(|&k| (k / stride.max(1)) % len.max(1) == 0)
        .map(|k| (0..len).map(|j| (k + j * stride) as usize).collect())
        .collect()
}

/// Sorts of 1 to 3 operands along any dimension, keyed on the first with `LT` or `GT` (floats
/// under `TOTALORDER`, so NaN and ±0 have their places). A stable sort gets keys with many
/// repeats, which fix the order of the carried operands; an unstable one gets keys without
/// repeats in a row, since otherwise the order of equal keys would be the implementation's.
pub(super) fn sort(rng: &mut Rng, size: i64) -> Draft {
    let mut d = dims(rng, size, 3);
    if d.is_empty() {
        d.push(rng.range(1, size.max(1)));
    }
    let dim = rng.below(d.len());
    let n = rng.range(1, 3) as usize;
    let kt = rng.pick(ALL);
    let mut stable = kt == Pred || rng.chance(50);
    let dir = rng.pick(&["LT", "GT"]);
    let mut key = if stable && rng.chance(50) {
        // Few distinct keys: long runs of equal ones.
        let pool: Vec<Scalar> = (0..3).map(|_| scalar(rng, kt)).collect();
        array_with(kt, &d, || pool[rng.below(pool.len())])
    } else {
        array(rng, kt, &d)
    };
    if !stable && !distinct_rows(rng, &mut key, &d, dim) {
        stable = true;
    }
    let mut types = vec![kt];
    types.extend((1..n).map(|_| rng.pick(EVERY)));
    let mut params = vec![];
    let mut cmp = String::from("cmp {\n");
    for (k, t) in types.iter().enumerate() {
        let s = shape(*t, &[]);
        cmp.push_str(&format!(
            "  a{k} = {s} parameter({})\n  b{k} = {s} parameter({})\n",
            2 * k,
            2 * k + 1
        ));
        params.push(shape(*t, &d));
    }
    let total = if kt.is_float() {
        ", type=TOTALORDER"
    } else {
        ""
    };
    cmp.push_str(&format!(
        "  ROOT c = pred[] compare(a0, b0), direction={dir}{total}\n}}\n\n"
    ));
    let mut args = vec![key];
    args.extend(types[1..].iter().map(|&t| array(rng, t, &d)));
    let operands: Vec<String> = (0..n).map(|k| format!("p{k}")).collect();
    Draft {
        family: "sort",
        op: format!("sort {}", if stable { "stable" } else { "unstable" }),
        hlo: module(
            &[format!(
                "r = sort({}), dimensions={{{dim}}}, is_stable={stable}, to_apply=cmp",
                operands.join(", ")
            )],
            &params,
            &cmp,
        ),
        args: one(args),
        approximate: false,
        elementwise: false,
        zero_sign_free: false,
    }
}

/// Redraws repeated keys until no row along `dim` holds a key twice (by bits: `TOTALORDER` tells
/// -0 from +0). False when a row cannot be made distinct (a short type and a long row).
fn distinct_rows(rng: &mut Rng, key: &mut Literal, d: &[i64], dim: usize) -> bool {
    let Literal::Array(a) = key else {
        return false;
    };
    let t = a.ty();
    for row in rows(d, dim) {
        let mut seen = HashSet::new();
        for i in row {
            let mut s = a.data.get(i);
            let mut tries = 0;
            while !seen.insert(format!("{s:?}")) {
                tries += 1;
                if tries > 200 {
                    return false;
                }
                s = scalar(rng, t);
            }
            if a.data.set(i, s).is_err() {
                return false;
            }
        }
    }
    true
}

/// The gradient of max- or min-pooling: `GE` or `LE` selection, `add` scattering, init 0 (the
/// identity: another init value enters an implementation-defined number of times). Windows,
/// strides and padding vary. The operand's values are all different and never NaN: which of two
/// equal elements a window selects, and where a NaN leaves the selection, depend on the order
/// the window is scanned in, which the semantics leave to the implementation (XLA:CPU scans
/// padded windows in another order than the reference). The source holds small integers, so
/// overlapping sums are exact.
pub(super) fn select_and_scatter(rng: &mut Rng, size: i64) -> Draft {
    let t = rng.pick(NUMERIC);
    let rank = rng.range(1, 3) as usize;
    let d: Vec<i64> = (0..rank).map(|_| rng.range(1, size.max(1))).collect();
    let mut sizes = vec![];
    let mut strides = vec![];
    let mut pads = vec![];
    let mut out = vec![];
    for &n in &d {
        let (w, s) = (rng.range(1, 3), rng.range(1, 3));
        let (lo, hi) = (rng.range(0, 1), rng.range(0, 1));
        let padded = n + lo + hi;
        out.push(if padded >= w { (padded - w) / s + 1 } else { 0 });
        sizes.push(w.to_string());
        strides.push(s.to_string());
        pads.push(format!("{lo}_{hi}"));
    }
    let dir = rng.pick(&["GE", "LE"]);
    let s = shape(t, &[]);
    let comps = format!(
        "sel {{\n  a = {s} parameter(0)\n  b = {s} parameter(1)\n  ROOT c = pred[] compare(a, b), direction={dir}\n}}\n\n\
         acc {{\n  a = {s} parameter(0)\n  b = {s} parameter(1)\n  ROOT c = {s} add(a, b)\n}}\n\n"
    );
    let line = format!(
        "r = select-and-scatter(p0, p1, i), window={{size={} stride={} pad={}}}, select=sel, scatter=acc",
        sizes.join("x"),
        strides.join("x"),
        pads.join("x")
    );
    Draft {
        family: "select-and-scatter",
        op: format!("select-and-scatter {dir}"),
        hlo: module(
            &[format!("i = {s} constant(0)"), line],
            &[shape(t, &d), shape(t, &out)],
            &comps,
        ),
        args: one(vec![distinct(rng, t, &d), tame(rng, t, &out)]),
        approximate: false,
        elementwise: false,
        zero_sign_free: true,
    }
}

/// An array of values that compare unequal in pairs (+0 and -0 count as equal) and are not NaN,
/// from the usual draws (infinities and extremes included).
fn distinct(rng: &mut Rng, t: ElementType, d: &[i64]) -> Literal {
    let mut seen = HashSet::new();
    let mut fallback = 0i64;
    array_with(t, d, || {
        for _ in 0..200 {
            let s = scalar(rng, t);
            let key = if t.is_integer() {
                s.as_i128().map(|v| v.to_string())
            } else if s.is_nan() {
                None
            } else {
                // `+ 0.0` turns -0 into +0.
                Some((s.as_f64() + 0.0).to_string())
            };
            if let Some(k) = key
                && seen.insert(k)
            {
                return s;
            }
        }
        // A short type whose draws keep repeating: count upwards past the values seen.
        loop {
            fallback += 1;
            let s = Scalar::from_f64(t, fallback as f64);
            if seen.insert(if t.is_integer() {
                fallback.to_string()
            } else {
                s.as_f64().to_string()
            }) {
                return s;
            }
        }
    })
}

/// `rng-bit-generator` with the two algorithms the book pins bit for bit (ThreeFry and Philox;
/// `rng_default` is whichever the implementation prefers, so it is not drawn), every output type
/// and shapes from scalars to odd and empty ones, on states near the counter's wrap-around.
pub(super) fn rng_bit_generator(rng: &mut Rng, size: i64) -> Draft {
    let philox = rng.chance(50);
    let words = if philox && rng.chance(60) { 3 } else { 2 };
    let t = rng.pick(&[U8, U16, U32, U64, S8, S16, S32, S64, F16, BF16, F32, F64]);
    let rank = rng.below(4);
    let d: Vec<i64> = (0..rank)
        .map(|_| {
            if rng.chance(5) {
                0
            } else {
                rng.range(1, 2 * size.max(1))
            }
        })
        .collect();
    let state: Vec<u64> = (0..words)
        .map(|_| match rng.below(6) {
            0 => 0,
            1 => u64::MAX,
            2 => u64::MAX - rng.range(0, 3) as u64,
            3 => u32::MAX as u64 - rng.range(0, 2) as u64,
            4 => rng.range(0, 100) as u64,
            _ => rng.next_u64(),
        })
        .collect();
    let state_shape = format!("u64[{words}]");
    let alg = if philox {
        "rng_philox"
    } else {
        "rng_three_fry"
    };
    let state_lit = Literal::Array(
        Array::from_vec(vec![words as i64], state)
            .unwrap_or_else(|_| Array::zeros(ArrayShape::new(U64, vec![words as i64]))),
    );
    Draft {
        family: "rng-bit-generator",
        op: format!("rng-bit-generator {alg}"),
        hlo: module(
            &[format!(
                "r = ({state_shape}, {}) rng-bit-generator(p0), algorithm={alg}",
                shape(t, &d)
            )],
            std::slice::from_ref(&state_shape),
            "",
        ),
        args: one(vec![state_lit]),
        approximate: false,
        elementwise: false,
        zero_sign_free: false,
    }
}

#[cfg(test)]
mod tests {
    use super::rows;

    #[test]
    fn rows_cover_every_position_once() {
        let d = [2, 3, 4];
        for dim in 0..3 {
            let mut all: Vec<usize> = rows(&d, dim).into_iter().flatten().collect();
            all.sort();
            assert_eq!(all, (0..24).collect::<Vec<_>>(), "dim {dim}");
        }
        assert_eq!(rows(&[2, 3], 1), vec![vec![0, 1, 2], vec![3, 4, 5]]);
        assert_eq!(rows(&[2, 3], 0), vec![vec![0, 3], vec![1, 4], vec![2, 5]]);
    }
}
