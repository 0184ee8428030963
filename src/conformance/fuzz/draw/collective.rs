//! Collectives on 1 to 4 replicas: `all-reduce`, `all-gather`, `reduce-scatter`, `all-to-all`
//! and `collective-permute`, over `replica_groups={}` or explicit groups (in any order, and of
//! unequal sizes where the op allows it). Every replica gets arguments of its own.
//!
//! Reductions combine members in an order the semantics leave open, so they take integers, or
//! small integers in floats for `add`, and the sign of a zero result is free.

use super::*;

fn list(v: &[usize]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn shuffled(rng: &mut Rng, n: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        v.swap(i, rng.below(i + 1));
    }
    v
}

/// `replica_groups` and the size of a group. `equal`: all groups the same size (the ops whose
/// result shape depends on it); `explicit`: never `{}`.
fn groups(rng: &mut Rng, n: usize, equal: bool, explicit: bool) -> (String, usize) {
    if !explicit && rng.chance(35) {
        return ("replica_groups={}".into(), n);
    }
    let order = shuffled(rng, n);
    let sizes: Vec<usize> = if equal {
        let divisors: Vec<usize> = (1..=n).filter(|g| n.is_multiple_of(*g)).collect();
        let g = rng.pick(&divisors);
        vec![g; n / g]
    } else {
        // Cut the shuffled replicas at random points.
        let mut sizes = vec![];
        let mut left = n;
        while left > 0 {
            let s = rng.range(1, left as i64) as usize;
            sizes.push(s);
            left -= s;
        }
        sizes
    };
    let mut at = 0;
    let parts: Vec<String> = sizes
        .iter()
        .map(|&s| {
            let g = format!("{{{}}}", list(&order[at..at + s]));
            at += s;
            g
        })
        .collect();
    (format!("replica_groups={{{}}}", parts.join(",")), sizes[0])
}

/// How many elements per member the split dimension has: 1 or 2, now and then none.
fn blocks(rng: &mut Rng) -> i64 {
    let lo = if rng.chance(5) { 0 } else { 1 };
    rng.range(lo, 2)
}

pub(super) fn collective(rng: &mut Rng, size: i64) -> Draft {
    let n = rng.range(1, 4) as usize;
    let op = rng.pick(COLLECTIVES);
    let rank = rng.range(1, 3) as usize;
    let mut d: Vec<i64> = (0..rank).map(|_| rng.range(1, size.max(1))).collect();
    let dim = rng.below(rank);
    let reducing = matches!(op, "all-reduce" | "reduce-scatter");
    let combiner = if reducing {
        rng.pick(&["add", "maximum", "minimum"])
    } else {
        ""
    };
    let t = match combiner {
        "add" => rng.pick(&[S8, S32, S64, U8, U32, F16, BF16, F32, F64]),
        "" => rng.pick(EVERY),
        _ => rng.pick(NUMERIC),
    };
    let s = shape(t, &[]);
    let comp = if reducing {
        format!(
            "comb {{\n  a = {s} parameter(0)\n  b = {s} parameter(1)\n  ROOT c = {s} {combiner}(a, b)\n}}\n\n"
        )
    } else {
        String::new()
    };
    // The parser wants a collective's result shape written out.
    let line = match op {
        "all-reduce" => {
            let (g, _) = groups(rng, n, false, false);
            format!("r = {} all-reduce(p0), {g}, to_apply=comb", shape(t, &d))
        }
        "all-gather" => {
            let (g, gs) = groups(rng, n, true, false);
            let mut out = d.clone();
            out[dim] *= gs as i64;
            format!(
                "r = {} all-gather(p0), {g}, dimensions={{{dim}}}",
                shape(t, &out)
            )
        }
        "reduce-scatter" => {
            let (g, gs) = groups(rng, n, true, false);
            // StableHLO refuses a reduce-scatter whose result is empty along the scatter
            // dimension (XLA:CPU, which imports StableHLO, with it), and the book does not say
            // whether that is a rule or a limitation: not drawn.
            let per = rng.range(1, 2);
            d[dim] = gs as i64 * per;
            let mut out = d.clone();
            out[dim] = per;
            format!(
                "r = {} reduce-scatter(p0), {g}, dimensions={{{dim}}}, to_apply=comb",
                shape(t, &out)
            )
        }
        "all-to-all" => {
            let (g, gs) = groups(rng, n, true, true);
            d[dim] = gs as i64 * blocks(rng);
            format!(
                "r = {} all-to-all(p0), {g}, dimensions={{{dim}}}",
                shape(t, &d)
            )
        }
        _ => {
            let (src, dst) = (shuffled(rng, n), shuffled(rng, n));
            let m = rng.range(1, n as i64) as usize;
            let pairs: Vec<String> = (0..m)
                .map(|i| format!("{{{},{}}}", src[i], dst[i]))
                .collect();
            format!(
                "r = {} collective-permute(p0), source_target_pairs={{{}}}",
                shape(t, &d),
                pairs.join(",")
            )
        }
    };
    let args = (0..n)
        .map(|_| {
            // Integer sums wrap the same in any order; float sums need small integers to be exact.
            vec![if combiner == "add" && t.is_floating() {
                tame(rng, t, &d)
            } else {
                array(rng, t, &d)
            }]
        })
        .collect();
    Draft {
        family: "collective",
        op: if combiner.is_empty() {
            op.to_string()
        } else {
            format!("{op} {combiner}")
        },
        hlo: module_with_header(
            &format!("HloModule fuzz, replica_count={n}"),
            &[line],
            &[shape(t, &d)],
            &comp,
        ),
        args,
        approximate: false,
        elementwise: false,
        zero_sign_free: reducing,
    }
}
