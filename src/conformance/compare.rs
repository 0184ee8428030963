//! Judging a value against the expected one.
//!
//! - Shapes must match: the same element type and dimensions (layouts are not compared: a literal's
//!   elements are in logical order whatever its layout); tuples recurse element by element.
//! - PRED and integers are always compared exactly.
//! - Floats without a tolerance are compared bit for bit, except that any NaN matches any NaN
//!   (payloads and signs of NaNs are not specified). So `-0.0` and `+0.0` differ.
//! - With a tolerance an element passes when `|got - want| <= atol + rtol * |want|` or, if `ulp`
//!   is given, when the two are at most `ulp` representable values apart. Infinities must match
//!   exactly; a NaN must meet a NaN.
//! - Complex values are judged component by component.
//! - With `zero_sign` (a case's latitude), `+0` and `-0` are equal wherever they meet.
//!
//! A failure message shows the shape, the first few differing indices with got and want (and
//! their distance in ULPs for floats), how many elements differ, the largest absolute error and
//! the largest distance in ULPs.

use super::case::Tolerance;
use crate::literal::{Array, Literal, Scalar, text::scalar_text};
use crate::types::ElementType;

/// How many mismatching elements a report lists.
const SHOWN: usize = 5;

/// `Ok(())` if `got` matches `want`, else a multi-line description of the difference.
pub fn compare(got: &Literal, want: &Literal, tol: Option<&Tolerance>) -> Result<(), String> {
    compare_with(got, want, tol, false)
}

/// `compare`, and with `zero_sign` a zero of either sign matches a zero.
pub fn compare_with(
    got: &Literal,
    want: &Literal,
    tol: Option<&Tolerance>,
    zero_sign: bool,
) -> Result<(), String> {
    compare_at(got, want, &Rules { tol, zero_sign }, "")
}

/// `Ok(())` if `got` has `want`'s shape (element types and dimensions, tuples element by
/// element; layouts aside), whatever its values.
pub fn same_shape(got: &Literal, want: &Literal) -> Result<(), String> {
    let ok = match (got, want) {
        (Literal::Token, Literal::Token) => true,
        (Literal::Tuple(g), Literal::Tuple(w)) if g.len() == w.len() => {
            for (x, y) in g.iter().zip(w) {
                same_shape(x, y)?;
            }
            true
        }
        (Literal::Array(g), Literal::Array(w)) => g.ty() == w.ty() && g.dims() == w.dims(),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "shape mismatch: got {}, want {}",
            shape_text(got),
            shape_text(want)
        ))
    }
}

fn shape_text(l: &Literal) -> String {
    match l {
        Literal::Array(a) => without_layout(a),
        other => other.shape().to_string(),
    }
}

struct Rules<'a> {
    tol: Option<&'a Tolerance>,
    zero_sign: bool,
}

fn compare_at(got: &Literal, want: &Literal, rules: &Rules, path: &str) -> Result<(), String> {
    let at = if path.is_empty() {
        String::new()
    } else {
        format!(" at tuple index {path}")
    };
    match (got, want) {
        (Literal::Token, Literal::Token) => Ok(()),
        (Literal::Tuple(g), Literal::Tuple(w)) => {
            if g.len() != w.len() {
                return Err(format!(
                    "shape mismatch{at}: got {}, want {}",
                    got.shape(),
                    want.shape()
                ));
            }
            for (i, (x, y)) in g.iter().zip(w).enumerate() {
                let p = if path.is_empty() {
                    format!("{{{i}}}")
                } else {
                    format!("{path}{{{i}}}")
                };
                compare_at(x, y, rules, &p)?;
            }
            Ok(())
        }
        (Literal::Array(g), Literal::Array(w)) => compare_arrays(g, w, rules).map_err(|m| {
            if path.is_empty() {
                m
            } else {
                format!("at tuple index {path}: {m}")
            }
        }),
        _ => Err(format!(
            "shape mismatch{at}: got {}, want {}",
            got.shape(),
            want.shape()
        )),
    }
}

struct Mismatch {
    index: usize,
    got: Scalar,
    want: Scalar,
}

fn compare_arrays(g: &Array, w: &Array, rules: &Rules) -> Result<(), String> {
    let tol = rules.tol;
    if g.ty() != w.ty() || g.dims() != w.dims() || g.len() != w.len() {
        return Err(format!(
            "shape mismatch: got {}, want {}",
            without_layout(g),
            without_layout(w)
        ));
    }
    let ty = g.ty();
    let mut shown: Vec<Mismatch> = Vec::new();
    let mut count = 0usize;
    // The largest finite absolute error over all elements, where it occurs, and the largest ULP
    // distance.
    let mut max_err: Option<(f64, usize)> = None;
    let mut max_ulp: u128 = 0;
    for i in 0..g.len() {
        let (x, y) = (g.data.get(i), w.data.get(i));
        let parts = components(x).into_iter().zip(components(y));
        let mut ok = true;
        for ((gx, gbits), (wy, wbits)) in parts {
            if let Some(fmt) = float_width(ty) {
                if gx.is_finite() && wy.is_finite() {
                    let e = (gx - wy).abs();
                    if max_err.is_none_or(|(m, _)| e > m) {
                        max_err = Some((e, i));
                    }
                    max_ulp = max_ulp.max(ulp_distance(gbits, wbits, fmt));
                }
                ok &= float_ok(gx, wy, gbits, wbits, fmt, tol)
                    || (rules.zero_sign && gx == 0.0 && wy == 0.0);
            } else {
                ok &= gbits == wbits;
            }
        }
        if !ok {
            count += 1;
            if shown.len() < SHOWN {
                shown.push(Mismatch {
                    index: i,
                    got: x,
                    want: y,
                });
            }
        }
    }
    if count == 0 {
        return Ok(());
    }
    let line = |m: &Mismatch| {
        format!(
            "at {}: got {}, want {}{}",
            index_text(g.dims(), m.index),
            scalar_text(m.got),
            scalar_text(m.want),
            element_ulps(ty, m.got, m.want)
        )
    };
    // The first line says the most, since one-line summaries (XFAIL lines, report tables) keep
    // only it: how many differ, and the first difference.
    let mut msg = format!(
        "value mismatch in {}: {count} of {} element(s) differ{}; first {}",
        without_layout(g),
        g.len(),
        match tol {
            Some(t) => format!(" (tolerance {t})"),
            None => " (exact comparison)".to_string(),
        },
        line(&shown[0])
    );
    for m in &shown[1..] {
        msg.push_str(&format!("\n  {}", line(m)));
    }
    if count > shown.len() {
        msg.push_str(&format!("\n  ... and {} more", count - shown.len()));
    }
    if let Some((e, i)) = max_err
        && ty.is_floating()
    {
        msg.push_str(&format!(
            "\n  largest absolute error {e:e} at {}; largest distance {max_ulp} ULP",
            index_text(g.dims(), i)
        ));
    }
    Err(msg)
}

/// ` (N ULP apart)` for a pair of finite float elements (the larger of the components' distances
/// for complex), else nothing: for integers the values say it all, and NaN or infinity has no
/// distance.
fn element_ulps(ty: ElementType, got: Scalar, want: Scalar) -> String {
    let Some(width) = float_width(ty) else {
        return String::new();
    };
    let mut most: Option<u128> = None;
    for ((gx, gb), (wy, wb)) in components(got).into_iter().zip(components(want)) {
        if !(gx.is_finite() && wy.is_finite()) {
            if gb != wb {
                return String::new();
            }
            continue;
        }
        let d = ulp_distance(gb, wb, width);
        most = Some(most.map_or(d, |m| m.max(d)));
    }
    match most {
        Some(d) => format!(" ({d} ULP apart)"),
        None => String::new(),
    }
}

fn without_layout(a: &Array) -> String {
    let mut s = a.shape.clone();
    s.layout = None;
    s.to_string()
}

/// A linear row-major index as `[i, j, ...]` of the array's dimensions.
fn index_text(dims: &[i64], mut k: usize) -> String {
    let mut idx = vec![0usize; dims.len()];
    for d in (0..dims.len()).rev() {
        let n = dims[d].max(1) as usize;
        idx[d] = k % n;
        k /= n;
    }
    format!(
        "[{}]",
        idx.iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Bit width of a floating type's components (complex types give their part's width).
fn float_width(ty: ElementType) -> Option<u32> {
    match ty {
        ElementType::F16 | ElementType::BF16 => Some(16),
        ElementType::F32 | ElementType::C64 => Some(32),
        ElementType::F64 | ElementType::C128 => Some(64),
        _ => None,
    }
}

/// The value (as f64, exact for every float type) and raw bits of each component of an element:
/// one for reals and integers, two (re, im) for complex.
fn components(s: Scalar) -> Vec<(f64, u64)> {
    match s {
        Scalar::F16(x) => vec![(x.to_f64(), x.to_bits() as u64)],
        Scalar::BF16(x) => vec![(x.to_f64(), x.to_bits() as u64)],
        Scalar::F32(x) => vec![(x as f64, x.to_bits() as u64)],
        Scalar::F64(x) => vec![(x, x.to_bits())],
        Scalar::C64(c) => vec![
            (c.re as f64, c.re.to_bits() as u64),
            (c.im as f64, c.im.to_bits() as u64),
        ],
        Scalar::C128(c) => vec![(c.re, c.re.to_bits()), (c.im, c.im.to_bits())],
        // Integers and PRED: compare the exact value (carried as bits).
        other => {
            let v = other.as_i128().unwrap_or(0);
            vec![(v as f64, v as u64)]
        }
    }
}

/// Whether one float component passes.
fn float_ok(g: f64, w: f64, gbits: u64, wbits: u64, width: u32, tol: Option<&Tolerance>) -> bool {
    if g.is_nan() || w.is_nan() {
        return g.is_nan() && w.is_nan();
    }
    let Some(t) = tol else {
        return gbits == wbits;
    };
    if g.is_infinite() || w.is_infinite() {
        return g == w;
    }
    if (g - w).abs() <= t.atol + t.rtol * w.abs() {
        return true;
    }
    t.ulp
        .is_some_and(|u| ulp_distance(gbits, wbits, width) <= u as u128)
}

/// How many representable values lie between two floats of `width` bits (0 for equal values and
/// for +0 against -0).
pub fn ulp_distance(a: u64, b: u64, width: u32) -> u128 {
    let key = |bits: u64| -> i128 {
        let sign = (bits >> (width - 1)) & 1;
        let mag = (bits & ((1u64 << (width - 1)) - 1)) as i128;
        if sign == 1 { -mag } else { mag }
    };
    (key(a) - key(b)).unsigned_abs()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hlo::parse_literal;

    fn lit(s: &str) -> Literal {
        parse_literal(s).unwrap()
    }

    #[test]
    fn exact_is_bitwise_but_nan_matches_nan() {
        assert!(compare(&lit("f32[2] {nan, 1}"), &lit("f32[2] {-nan, 1}"), None).is_ok());
        assert!(compare(&lit("f32[1] {-0.0}"), &lit("f32[1] {0}"), None).is_err());
        assert!(compare(&lit("c64[1] {(nan, 1)}"), &lit("c64[1] {(nan, 1)}"), None).is_ok());
        assert!(compare(&lit("c64[1] {(1, 2)}"), &lit("c64[1] {(1, 3)}"), None).is_err());
    }

    #[test]
    fn tolerance_rules() {
        let t = Tolerance {
            atol: 1e-3,
            rtol: 0.0,
            ulp: None,
        };
        assert!(compare(&lit("f32[] 1.0005"), &lit("f32[] 1"), Some(&t)).is_ok());
        assert!(compare(&lit("f32[] 1.01"), &lit("f32[] 1"), Some(&t)).is_err());
        assert!(compare(&lit("f32[] inf"), &lit("f32[] inf"), Some(&t)).is_ok());
        assert!(compare(&lit("f32[] inf"), &lit("f32[] 1e38"), Some(&t)).is_err());
        assert!(compare(&lit("f32[] nan"), &lit("f32[] 1"), Some(&t)).is_err());
        let u = Tolerance {
            ulp: Some(1),
            ..Tolerance::default()
        };
        assert!(compare(&lit("f32[] 1.0000001"), &lit("f32[] 1"), Some(&u)).is_ok());
        assert!(compare(&lit("f32[] 1.0000003"), &lit("f32[] 1"), Some(&u)).is_err());
        // Integers ignore tolerances.
        assert!(compare(&lit("s32[] 2"), &lit("s32[] 1"), Some(&t)).is_err());
    }

    #[test]
    fn report_names_indices_and_errors() {
        let e = compare(
            &lit("f32[2,2] {{1, 2}, {3, 5}}"),
            &lit("f32[2,2] {{1, 2}, {3, 4}}"),
            None,
        )
        .unwrap_err();
        assert!(e.contains("f32[2,2]"), "{e}");
        assert!(
            e.contains("at [1, 1]: got 5, want 4 (2097152 ULP apart)"),
            "{e}"
        );
        assert!(e.contains("largest absolute error 1e0"), "{e}");
        let e = compare(
            &lit("(f32[] 1, s32[2] {1, 2})"),
            &lit("(f32[] 1, s32[2] {1, 3})"),
            None,
        )
        .unwrap_err();
        assert!(e.contains("tuple index {1}"), "{e}");
        let e = compare(&lit("f32[2] {1, 2}"), &lit("f32[1,2] {{1, 2}}"), None).unwrap_err();
        assert!(e.contains("shape mismatch"), "{e}");
    }

    #[test]
    fn zero_sign_latitude_frees_only_the_sign_of_zeros() {
        let (g, w) = (lit("f32[3] {-0.0, 0, 1}"), lit("f32[3] {0, -0.0, 1}"));
        assert!(compare(&g, &w, None).is_err());
        assert!(compare_with(&g, &w, None, true).is_ok());
        // A nonzero value is not a zero of some sign.
        let e = compare_with(&lit("f32[1] {1e-45}"), &lit("f32[1] {0}"), None, true).unwrap_err();
        assert!(e.contains("(1 ULP apart)"), "{e}");
        // Integers have no signed zeros to free.
        assert!(compare_with(&lit("s32[1] {1}"), &lit("s32[1] {0}"), None, true).is_err());
        let c = compare_with(
            &lit("c64[1] {(-0.0, 0)}"),
            &lit("c64[1] {(0, -0.0)}"),
            None,
            true,
        );
        assert!(c.is_ok());
    }

    #[test]
    fn ulp_distance_across_zero() {
        assert_eq!(ulp_distance(0x8000_0000, 0, 32), 0);
        assert_eq!(ulp_distance(0x8000_0001, 1, 32), 2);
    }
}
