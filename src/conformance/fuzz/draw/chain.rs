//! Chains of 2 to 8 operations: where a backend fuses, this is what it fuses. Half of the chains
//! stay on one shape and are element-wise throughout (a disagreement shrinks to one element);
//! the other half mix data movement (transpose, reshape, broadcast, slice, reverse) in between,
//! since a fusion that gets an index map wrong shows only when movement sits inside it.
//!
//! Only operations that round once (no transcendental ones) are chained, so the answer is exact
//! and a fused multiply-add that skips a rounding shows up.

use super::*;

/// A value of the chain: its name and dimensions.
struct Value {
    name: String,
    dims: Vec<i64>,
}

pub(super) fn chain(rng: &mut Rng, size: i64) -> Draft {
    let t = rng.pick(&[S32, U8, F32, F64, BF16, F16]);
    let mixed = rng.chance(50);
    let d = if mixed {
        // Equal sizes let a transposed value meet an untransposed one.
        let rank = rng.range(1, 3) as usize;
        let n = rng.range(1, size.max(1));
        if rng.chance(50) {
            vec![n; rank]
        } else {
            (0..rank).map(|_| rng.range(1, size.max(1))).collect()
        }
    } else {
        dims(rng, size, 2)
    };
    let s = shape(t, &d);
    let nparams = 3;
    let mut values: Vec<Value> = (0..nparams)
        .map(|i| Value {
            name: format!("p{i}"),
            dims: d.clone(),
        })
        .collect();
    let mut lines = vec![];
    let steps = rng.range(2, 8);
    let mut ops = vec![];
    for k in 0..steps {
        let name = format!("v{k}");
        // Later steps lean on recent values, so the chain is a chain and not a fan.
        let ai = if rng.chance(60) {
            values.len() - 1
        } else {
            rng.below(values.len())
        };
        let a = &values[ai];
        if mixed && rng.chance(35) {
            let (line, out, op) = movement_step(rng, t, &a.name, &a.dims, &name);
            ops.push(op);
            lines.push(line);
            values.push(Value { name, dims: out });
            continue;
        }
        let partners: Vec<usize> = (0..values.len())
            .filter(|&j| values[j].dims == a.dims)
            .collect();
        let b = &values[partners[rng.below(partners.len())]];
        let (a, b) = (a.name.clone(), b.name.clone());
        let op = rng.pick(&[
            "add", "subtract", "multiply", "maximum", "minimum", "negate", "abs", "select",
        ]);
        let line = match op {
            "negate" | "abs" if t.is_unsigned_int() => format!("{name} = add({a}, {b})"),
            "negate" | "abs" => format!("{name} = {op}({a})"),
            "select" => {
                let c = format!("c{k}");
                lines.push(format!("{c} = compare({a}, {b}), direction=LT"));
                format!("{name} = select({c}, {b}, {a})")
            }
            _ => format!("{name} = {op}({a}, {b})"),
        };
        ops.push(op);
        lines.push(line);
        let dims = values[ai].dims.clone();
        values.push(Value { name, dims });
    }
    let params: Vec<String> = (0..nparams).map(|_| s.clone()).collect();
    let args = (0..nparams).map(|_| array(rng, t, &d)).collect();
    let moved = ops.iter().any(|o| MOVEMENT.contains(o));
    Draft {
        family: "chain",
        op: format!("chain of {}", ops.join(",")),
        hlo: module(&lines, &params, ""),
        args: one(args),
        approximate: false,
        // With movement inside, result element i no longer comes from operand element i.
        elementwise: !moved && values.last().is_some_and(|v| v.dims == d),
        zero_sign_free: ops.iter().any(|o| matches!(*o, "maximum" | "minimum")),
    }
}

/// One movement op on `a`: its line, the result's dimensions and the op's name.
fn movement_step(
    rng: &mut Rng,
    t: ElementType,
    a: &str,
    d: &[i64],
    name: &str,
) -> (String, Vec<i64>, &'static str) {
    let rank = d.len();
    let op = rng.pick(&["transpose", "reshape", "broadcast", "slice", "reverse"]);
    match op {
        "transpose" => {
            let mut perm: Vec<i64> = (0..rank as i64).collect();
            for i in (1..rank).rev() {
                perm.swap(i, rng.below(i + 1));
            }
            let out: Vec<i64> = perm.iter().map(|&p| d[p as usize]).collect();
            (
                format!(
                    "{name} = {} transpose({a}), dimensions={{{}}}",
                    shape(t, &out),
                    list(&perm)
                ),
                out,
                op,
            )
        }
        "reshape" => {
            let n: i64 = d.iter().product();
            // Flatten, or split the elements into two or three factors.
            let mut out = vec![];
            let mut rest = n;
            if n > 0 && rng.chance(70) {
                for f in [2, 3, 2] {
                    if rest % f == 0 && rest > f && rng.chance(50) {
                        out.push(f);
                        rest /= f;
                    }
                }
            }
            out.push(rest);
            (format!("{name} = {} reshape({a})", shape(t, &out)), out, op)
        }
        "broadcast" => {
            // One new dimension, anywhere; the operand's keep their order.
            let at = rng.below(rank + 1);
            let mut out = d.to_vec();
            out.insert(at, rng.range(1, 2));
            let map: Vec<i64> = (0..rank as i64 + 1).filter(|&j| j != at as i64).collect();
            (
                format!(
                    "{name} = {} broadcast({a}), dimensions={{{}}}",
                    shape(t, &out),
                    list(&map)
                ),
                out,
                op,
            )
        }
        "slice" => {
            let mut out = vec![];
            let parts: Vec<String> = d
                .iter()
                .map(|&n| {
                    let start = rng.range(0, (n - 1).max(0));
                    let limit = rng.range((start + 1).min(n), n);
                    let stride = rng.range(1, 2);
                    out.push((limit - start + stride - 1) / stride);
                    format!("[{start}:{limit}:{stride}]")
                })
                .collect();
            (
                format!(
                    "{name} = {} slice({a}), slice={{{}}}",
                    shape(t, &out),
                    parts.join(", ")
                ),
                out,
                op,
            )
        }
        _ => {
            let dims_r: Vec<i64> = (0..rank as i64).filter(|_| rng.chance(60)).collect();
            (
                format!(
                    "{name} = {} reverse({a}), dimensions={{{}}}",
                    shape(t, d),
                    list(&dims_r)
                ),
                d.to_vec(),
                "reverse",
            )
        }
    }
}

fn list(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}
