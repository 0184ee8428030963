//! Unit tests of the element-wise evaluator through HLO text (the conformance suite has the
//! book examples, golden cases and property tests).

use crate::eval::{RunOptions, run};
use crate::hlo::{parse_and_verify, parse_literal};

/// Runs `ROOT r = <root>` over parameters of the given shapes and returns the result as text.
pub(crate) fn run_op(params: &[&str], root: &str, args: &[&str]) -> String {
    let mut text = String::from("HloModule m\nENTRY e {\n");
    for (i, p) in params.iter().enumerate() {
        text.push_str(&format!("  p{i} = {p} parameter({i})\n"));
    }
    text.push_str(&format!("  ROOT r = {root}\n}}\n"));
    let m = match parse_and_verify(&text) {
        Ok(m) => m,
        Err(e) => return format!("error: {e}"),
    };
    let args = args.iter().map(|a| parse_literal(a).unwrap()).collect();
    match run(&m, args, &RunOptions::default()) {
        Ok(o) => o.result.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn integer_division_edges() {
    assert_eq!(
        run_op(
            &["s32[3]", "s32[3]"],
            "s32[3] divide(p0, p1)",
            &["s32[3] {7, -2147483648, 5}", "s32[3] {0, -1, -2}"]
        ),
        "s32[3] {-1, -2147483648, -2}"
    );
    assert_eq!(
        run_op(
            &["u8[2]", "u8[2]"],
            "u8[2] divide(p0, p1)",
            &["u8[2] {7, 9}", "u8[2] {0, 2}"]
        ),
        "u8[2] {255, 4}"
    );
    assert_eq!(
        run_op(
            &["s8[3]", "s8[3]"],
            "s8[3] remainder(p0, p1)",
            &["s8[3] {7, -128, -7}", "s8[3] {0, -1, 3}"]
        ),
        "s8[3] {7, 0, -1}"
    );
}

#[test]
fn shifts_past_width() {
    assert_eq!(
        run_op(
            &["s8[4]", "s8[4]"],
            "s8[4] shift-right-arithmetic(p0, p1)",
            &["s8[4] {-128, -128, 64, -1}", "s8[4] {1, 8, 9, -1}"]
        ),
        "s8[4] {-64, -1, 0, -1}"
    );
    assert_eq!(
        run_op(
            &["u8[3]", "u8[3]"],
            "u8[3] shift-left(p0, p1)",
            &["u8[3] {1, 1, 255}", "u8[3] {7, 8, 1}"]
        ),
        "u8[3] {128, 0, 254}"
    );
    assert_eq!(
        run_op(
            &["s32[2]", "s32[2]"],
            "s32[2] shift-right-logical(p0, p1)",
            &["s32[2] {-1, -1}", "s32[2] {28, 32}"]
        ),
        "s32[2] {15, 0}"
    );
}

#[test]
fn float_max_min_nan_and_zeros() {
    assert_eq!(
        run_op(
            &["f32[3]", "f32[3]"],
            "f32[3] maximum(p0, p1)",
            &["f32[3] {nan, 1, -0.0}", "f32[3] {2, nan, 0}"]
        ),
        "f32[3] {nan, nan, -0.0}"
    );
}

#[test]
fn power_edges() {
    assert_eq!(
        run_op(
            &["s32[5]", "s32[5]"],
            "s32[5] power(p0, p1)",
            &["s32[5] {2, 1, -1, 0, 3}", "s32[5] {10, -5, -1, 0, 40}"]
        ),
        "s32[5] {1024, 1, 0, 1, 689956897}"
    );
}

#[test]
fn compare_total_order() {
    assert_eq!(
        run_op(
            &["f32[4]", "f32[4]"],
            "pred[4] compare(p0, p1), direction=LT, type=TOTALORDER",
            &["f32[4] {-0.0, -nan, inf, nan}", "f32[4] {0, -inf, nan, nan}"]
        ),
        "pred[4] {true, true, true, false}"
    );
    assert_eq!(
        run_op(
            &["f32[3]", "f32[3]"],
            "pred[3] compare(p0, p1), direction=EQ",
            &["f32[3] {-0.0, nan, 1}", "f32[3] {0, nan, 1}"]
        ),
        "pred[3] {true, false, true}"
    );
}

#[test]
fn convert_edges() {
    assert_eq!(
        run_op(
            &["f32[5]"],
            "s8[5] convert(p0)",
            &["f32[5] {nan, 300, -300, -2.9, 2.9}"]
        ),
        "s8[5] {0, 127, -128, -2, 2}"
    );
    assert_eq!(
        run_op(&["s32[2]"], "u8[2] convert(p0)", &["s32[2] {257, -1}"]),
        "u8[2] {1, 255}"
    );
    assert!(
        run_op(&["c64[1]"], "f32[1] convert(p0)", &["c64[1] {(1, 2)}"])
            .contains("convert.complex_to_real")
    );
}

#[test]
fn bitcast_convert_widths() {
    assert_eq!(
        run_op(&["f32[1]"], "u16[1,2] bitcast-convert(p0)", &["f32[1] {1}"]),
        "u16[1,2] {{0, 16256}}"
    );
    assert_eq!(
        run_op(&["u16[2]"], "f32[] bitcast-convert(p0)", &["u16[2] {0, 16256}"]),
        "f32[] 1"
    );
}

#[test]
fn clamp_and_select() {
    assert_eq!(
        run_op(
            &["s32[]", "s32[3]", "s32[]"],
            "s32[3] clamp(p0, p1, p2)",
            &["s32[] 0", "s32[3] {-1, 5, 9}", "s32[] 6"]
        ),
        "s32[3] {0, 5, 6}"
    );
    assert_eq!(
        run_op(
            &["pred[4]", "s32[4]", "s32[4]"],
            "s32[4] select(p0, p1, p2)",
            &[
                "pred[4] {true, false, false, true}",
                "s32[4] {1, 2, 3, 4}",
                "s32[4] {100, 200, 300, 400}"
            ]
        ),
        "s32[4] {1, 200, 300, 4}"
    );
}

#[test]
fn verifier_refuses_wrong_types() {
    let e = run_op(&["s32[2]"], "s32[2] exponential(p0)", &["s32[2] {1, 2}"]);
    assert!(e.contains("exponential.element_type"), "{e}");
    let e = run_op(
        &["f32[2]", "f32[]"],
        "f32[2] add(p0, p1)",
        &["f32[2] {1, 2}", "f32[] 1"],
    );
    assert!(e.contains("elementwise.same_shape"), "{e}");
}

/// A stand-in for the conformance harness while it is being written elsewhere: runs this
/// family's book examples and golden cases through the reference and compares (exact: bitwise,
/// any NaN matching any NaN; `ulp=N`; `atol`/`rtol`).
mod conformance_smoke {
    use crate::eval::{RunOptions, run};
    use crate::hlo::{parse_and_verify, parse_literal};
    use crate::literal::{Literal, Scalar, literal_from_json};

    #[derive(Default, Clone, Copy)]
    struct Tol {
        ulp: Option<u64>,
        atol: f64,
        rtol: f64,
    }

    fn key(s: &Scalar) -> Option<(i128, bool)> {
        Some(match *s {
            Scalar::F16(x) => (order(x.to_bits() as u64, 16), x.is_nan()),
            Scalar::BF16(x) => (order(x.to_bits() as u64, 16), x.is_nan()),
            Scalar::F32(x) => (order(x.to_bits() as u64, 32), x.is_nan()),
            Scalar::F64(x) => (order(x.to_bits(), 64), x.is_nan()),
            _ => return None,
        })
    }

    fn order(bits: u64, w: u32) -> i128 {
        let sign = bits >> (w - 1) & 1 == 1;
        let mag = (bits & ((1u64 << (w - 1)) - 1)) as i128;
        if sign { -mag } else { mag }
    }

    fn parts(s: Scalar) -> Vec<Scalar> {
        match s {
            Scalar::C64(c) => vec![Scalar::F32(c.re), Scalar::F32(c.im)],
            Scalar::C128(c) => vec![Scalar::F64(c.re), Scalar::F64(c.im)],
            other => vec![other],
        }
    }

    fn close(g: Scalar, w: Scalar, t: Tol) -> bool {
        if g.bits_eq(&w) || (g.is_nan() && w.is_nan()) {
            return true;
        }
        match (key(&g), key(&w)) {
            (Some((kg, gn)), Some((kw, wn))) => {
                if gn || wn {
                    return false;
                }
                if let Some(u) = t.ulp {
                    return (kg - kw).unsigned_abs() <= u as u128;
                }
                let (a, b) = (g.as_f64(), w.as_f64());
                let d = (a - b).abs();
                (t.atol > 0.0 || t.rtol > 0.0) && (d <= t.atol || d <= t.rtol * b.abs())
            }
            _ => false,
        }
    }

    fn same(g: &Literal, w: &Literal, t: Tol) -> Result<(), String> {
        match (g, w) {
            (Literal::Tuple(a), Literal::Tuple(b)) if a.len() == b.len() => {
                a.iter().zip(b).try_for_each(|(x, y)| same(x, y, t))
            }
            (Literal::Array(a), Literal::Array(b)) => {
                if a.shape.ty != b.shape.ty || a.shape.dims != b.shape.dims {
                    return Err(format!("shape {} vs {}", a.shape, b.shape));
                }
                for i in 0..a.len() {
                    let (pg, pw) = (parts(a.data.get(i)), parts(b.data.get(i)));
                    if !pg.iter().zip(&pw).all(|(x, y)| close(*x, *y, t)) {
                        return Err(format!("element {i}: got {g}, want {w}"));
                    }
                }
                Ok(())
            }
            _ => Err(format!("got {g}, want {w}")),
        }
    }

    fn check(
        name: &str,
        hlo: &str,
        args: Vec<Literal>,
        want: Result<Literal, String>,
        t: Tol,
    ) -> Option<String> {
        let out = parse_and_verify(hlo).and_then(|m| run(&m, args, &RunOptions::default()));
        match (out, want) {
            (Ok(o), Ok(w)) => same(&o.result, &w, t).err().map(|e| format!("{name}: {e}")),
            (Err(e), Err(label)) if e.to_string().contains(&label) => None,
            (Err(e), _) => Some(format!("{name}: error {e}")),
            (Ok(o), Err(l)) => Some(format!("{name}: expected error {l}, got {}", o.result)),
        }
    }

    fn tol_of(s: &str) -> Tol {
        let mut t = Tol::default();
        for kv in s.split_whitespace() {
            if let Some((k, v)) = kv.split_once('=') {
                match k {
                    "ulp" => t.ulp = v.parse().ok(),
                    "atol" => t.atol = v.parse().unwrap_or(0.0),
                    "rtol" => t.rtol = v.parse().unwrap_or(0.0),
                    _ => {}
                }
            }
        }
        t
    }

    #[test]
    fn book_examples() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/book/src/ops/elementwise");
        let mut failures = vec![];
        let mut count = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let mut rest = text.as_str();
            while let Some(i) = rest.find("```hlo-test ") {
                rest = &rest[i + 12..];
                let end = rest.find("\n```").unwrap();
                let block = &rest[..end];
                rest = &rest[end + 4..];
                let (head, body) = block.split_once('\n').unwrap();
                let (hlo, keys) = body.split_once("\n---\n").unwrap();
                let (mut args, mut want, mut t) = (vec![], Err(String::new()), Tol::default());
                for line in keys.lines() {
                    let (k, v) = line.split_once(": ").unwrap();
                    match k {
                        "arg" => args.push(parse_literal(v).unwrap()),
                        "expected" => want = Ok(parse_literal(v).unwrap()),
                        "expected_error" => want = Err(v.to_string()),
                        "tolerance" => t = tol_of(v),
                        _ => {}
                    }
                }
                count += 1;
                let name = format!("{}::{head}", path.display());
                failures.extend(check(&name, hlo, args, want, t));
            }
        }
        assert!(failures.is_empty(), "{} of {count} failed:\n{}", failures.len(), failures.join("\n"));
    }

    #[test]
    fn golden_cases() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/golden/elementwise");
        let mut failures = vec![];
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            for c in v["cases"].as_array().unwrap() {
                let name = format!("{}::{}", path.display(), c["name"]);
                let args = c["args"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| literal_from_json(a).unwrap())
                    .collect();
                let want = match c.get("expected_error") {
                    Some(e) => Err(e.as_str().unwrap().to_string()),
                    None => Ok(literal_from_json(&c["expected"]).unwrap()),
                };
                let mut t = Tol::default();
                if let Some(tv) = c.get("tolerance") {
                    t.ulp = tv.get("ulp").and_then(|u| u.as_u64());
                    t.atol = tv.get("atol").and_then(|u| u.as_f64()).unwrap_or(0.0);
                    t.rtol = tv.get("rtol").and_then(|u| u.as_f64()).unwrap_or(0.0);
                }
                failures.extend(check(&name, c["hlo"].as_str().unwrap(), args, want, t));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
