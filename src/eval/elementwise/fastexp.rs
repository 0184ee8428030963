//! F32 exponentials (`exponential`, `exponential-minus-one`, `tanh`) evaluated in F64 without
//! calling libm, so that the element-wise loops run them without a call per element.
//!
//! Algorithm (Tang, "Table-driven implementation of the exponential function in IEEE
//! floating-point arithmetic", ACM TOMS 1989, without the table): `e^x = 2^k e^r` with
//! `k = round(x / ln 2)` and `r = x - k ln 2` in `[-ln2/2, ln2/2]`, the product `k ln 2` taken in
//! two parts (`LN2_HI` has trailing zero bits, so `k * LN2_HI` is exact); `e^r` is its Taylor
//! polynomial to degree 13 (the remainder is below 2^-58 relative), `2^k` is built from the
//! exponent bits. `e^x - 1` is `2^k (e^r - 1) + (2^k - 1)`, with `e^r - 1` its own Taylor
//! polynomial (degree 14, no constant term), so nothing cancels near 0; `tanh x = s / (s + 2)`
//! with `s = e^(2|x|) - 1`, and the sign of `x`.
//!
//! Why this keeps the book's accuracy: the reference's F32 transcendentals are "evaluated in F64
//! and rounded once", within 1 ULP (`book/src/ops/elementwise/unary.md`). These F64 values are
//! within a few F64 ULPs of the exact ones, as libm's are, so rounding them to F32 gives the
//! correctly rounded result except within about 2^-26 ULP of a halfway point: the same claim.
//! The tests hold every result to libm's own F64 value, rounded, over millions of arguments.
//! F64 arguments keep using libm.

/// `ln 2` in two parts: the high part's last 11 bits are zero.
/// (fdlibm's `ln2_hi` and `ln2_lo`, given by their bits.)
pub(super) const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
pub(super) const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const LOG2_E: f64 = std::f64::consts::LOG2_E;

/// 1.5 * 2^52: adding it to |x| < 2^51 rounds x to the nearest integer (ties to even) and leaves
/// that integer in the low bits of the sum. No libm call, no SSE4.1 needed.
pub(super) const SHIFT: f64 = 6_755_399_441_055_744.0;

/// `c[0] + c[1] r + ... + c[13] r^13` by Estrin's scheme: pairs, then pairs of pairs, with the
/// powers `r^2`, `r^4`, `r^8` alongside.
///
/// Why not Horner's rule: its thirteen dependent multiply-adds made the vectorised loop wait on
/// their latency; this chain is four steps deep. The rounding differs from Horner's by an F64
/// ulp or two, far inside what the F32 results allow (the tests hold them to libm).
///
/// Each step is a fused multiply-add (`mul_add`, one rounding): the AVX2 and AVX-512 copies of
/// the element loops, whose CPUs all have FMA, run it as one instruction (on a Xeon, AVX-512,
/// from L1: 0.91 -> 0.64 ns an element for `exp`); the baseline copy calls libm's `fma`, slower
/// but correctly rounded too, so every copy still gives the same bits.
#[inline(always)]
fn estrin14(r: f64, c: &[f64; 14]) -> f64 {
    let r2 = r * r;
    let r4 = r2 * r2;
    let r8 = r4 * r4;
    let q = |i: usize| c[i + 1].mul_add(r, c[i]);
    let s0 = q(2).mul_add(r2, q(0));
    let s1 = q(6).mul_add(r2, q(4));
    let s2 = q(10).mul_add(r2, q(8));
    let s3 = q(12);
    s3.mul_add(r4, s2).mul_add(r8, s1.mul_add(r4, s0))
}

/// `x = k ln 2 + r` for an argument from F32's range, clamped to [-150, 150]: `(r, 2^k)`, with
/// `|r| <= ln2/2 + a little`. `k` is `x log2 e` rounded to an integer (ties to even), read from
/// the low bits of the shifted sum (two's complement, |k| < 2^51) rather than by a float-to-integer
/// conversion: SSE2 and AVX2 have no vector conversion of F64 to i64, so `k as i64` kept the loop
/// scalar. `2^k` is built from the exponent bits (a normal F64 for |k| <= 217).
#[inline(always)]
fn reduce(x: f64) -> (f64, f64) {
    let c = x.clamp(-150.0, 150.0);
    let shifted = c.mul_add(LOG2_E, SHIFT);
    let k = shifted - SHIFT;
    let r = (-k).mul_add(LN2_LO, (-k).mul_add(LN2_HI, c));
    let ki = shifted.to_bits().wrapping_sub(SHIFT.to_bits());
    (r, f64::from_bits(ki.wrapping_add(1023) << 52))
}

/// `e^r` for |r| <= ln2/2 + a little: the Taylor polynomial of degree 13.
#[inline(always)]
fn exp_poly(r: f64) -> f64 {
    const C: [f64; 14] = [
        1.0,
        1.0,
        1.0 / 2.0,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5040.0,
        1.0 / 40320.0,
        1.0 / 362880.0,
        1.0 / 3628800.0,
        1.0 / 39916800.0,
        1.0 / 479001600.0,
        1.0 / 6227020800.0,
    ];
    estrin14(r, &C)
}

/// `e^x` in F64 for an argument from F32's range, clamped to [-150, 150] (beyond which every F32
/// result is 0 or infinity either way, and `2^k` stays a normal F64). NaN passes through.
#[inline(always)]
pub fn exp_f64_for_f32(x: f64) -> f64 {
    let (r, scale) = reduce(x);
    let y = exp_poly(r) * scale;
    if x.is_nan() { x } else { y }
}

/// `e^x - 1` in F64 for an argument from F32's range (doubled, for `tanh`), NaN passing through:
/// `2^k (e^r - 1) + (2^k - 1)` (fdlibm's `expm1` reduction), with `e^r - 1` its Taylor
/// polynomial without the constant term, so no step subtracts nearly equal values (for
/// `-1.04 < x < -0.35`, where `k = -1`, the last sum loses under one bit).
///
/// Why not `e^x - 1` with a separate polynomial near 0: that evaluated both polynomials for
/// every element (the vectorised loop cannot branch), twice the work of `tanh`, an eighth of a
/// recurrent network's time.
#[inline(always)]
pub fn expm1_f64_for_f32(x: f64) -> f64 {
    // r + r^2/2! + ... + r^14/14! for |r| <= ln2/2 + a little: the remainder is below 2^-60
    // relative.
    const C: [f64; 14] = [
        1.0,
        1.0 / 2.0,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5040.0,
        1.0 / 40320.0,
        1.0 / 362880.0,
        1.0 / 3628800.0,
        1.0 / 39916800.0,
        1.0 / 479001600.0,
        1.0 / 6227020800.0,
        1.0 / 87178291200.0,
    ];
    let (r, scale) = reduce(x);
    let p = estrin14(r, &C);
    let y = scale * (p * r) + (scale - 1.0);
    // NaN passes through, and a zero keeps its sign (the sum above makes -0 into +0).
    if x.is_nan() || x == 0.0 { x } else { y }
}

/// `tanh x` in F64 for an argument from F32's range: `s / (s + 2)` with `s = e^(2|x|) - 1`.
/// Past |x| = 10 every F32 result is ±1.
#[inline(always)]
pub fn tanh_f64_for_f32(x: f64) -> f64 {
    let a = x.abs().min(10.0);
    let s = expm1_f64_for_f32(2.0 * a);
    let t = if x.abs() >= 10.0 { 1.0 } else { s / (s + 2.0) };
    if x.is_nan() { x } else { t.copysign(x) }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The F32 result of an F64 function value, and whether that value is so close to a
    /// halfway point between two F32 values that two F64 evaluations a few ULPs apart may round
    /// to different sides of it (the only place the two are allowed to differ).
    fn rounded(v: f64) -> (f32, bool) {
        let r = v as f32;
        if !r.is_finite() || r == 0.0 {
            return (r, false);
        }
        let up = f32::from_bits(r.to_bits() + 1) as f64;
        let down = f32::from_bits(r.to_bits() - 1) as f64;
        let rv = r as f64;
        let half = ((up - rv).abs().min((rv - down).abs())) / 2.0;
        let dist = (v - rv).abs();
        (r, (half - dist).abs() <= half * 1e-7)
    }

    /// `fast(x)` rounded to F32 is libm's F64 value rounded, unless that value is next to a
    /// halfway point.
    pub(in crate::eval::elementwise) fn check(
        name: &str,
        fast: fn(f64) -> f64,
        libm: fn(f64) -> f64,
        x: f32,
    ) {
        let (want, near_half) = rounded(libm(x as f64));
        let got = fast(x as f64) as f32;
        if got.to_bits() != want.to_bits() && !(got.is_nan() && want.is_nan()) {
            assert!(
                near_half,
                "{name}({x:e} = {:#x}): {got:e} ({:#x}), libm gives {want:e} ({:#x})",
                x.to_bits(),
                got.to_bits(),
                want.to_bits()
            );
        }
    }

    /// Every F32 argument whose bits are a multiple of 97 (about 44 million, spread over the
    /// whole range, signs, subnormals and NaNs included), and the special values.
    #[test]
    fn f32_results_round_as_libm_values_do() {
        let specials = [
            0.0f32,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            88.72283,
            88.72284,
            -87.33654,
            -103.97208,
            -103.97209,
            0.3,
            -0.3,
            0.29999998,
            9.010913,
            10.0,
            -10.0,
        ];
        let mut bits = 0u32;
        let mut all: Vec<f32> = specials.to_vec();
        loop {
            all.push(f32::from_bits(bits));
            bits = match bits.checked_add(97) {
                Some(b) => b,
                None => break,
            };
        }
        for &x in &all {
            check("exp", exp_f64_for_f32, f64::exp, x);
            check("expm1", expm1_f64_for_f32, f64::exp_m1, x);
            check("tanh", tanh_f64_for_f32, f64::tanh, x);
        }
    }
}
