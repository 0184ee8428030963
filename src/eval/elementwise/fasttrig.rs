//! F32 `sine`, `cosine`, `log` and `log-plus-one` evaluated in F64 without calling libm for the
//! usual arguments, so that the element-wise loops run them without a call per element (as
//! `fastexp` does for the exponentials). Each function comes in two parts: a branch-free `*_fast`
//! that is right on a domain (`*_in_fast_domain`), and libm for the other arguments (large,
//! infinite, NaN, and for the logarithms zero and negative ones). The element-wise loops run the
//! fast part over every element, which vectorises, then a scalar pass recomputes with libm only
//! the elements outside the domain (`map1_fix`); `*_f64_for_f32` is the same choice per element.
//!
//! Sine and cosine: Cody and Waite's range reduction ("Software Manual for the Elementary
//! Functions", 1980) in fdlibm's form (`__ieee754_rem_pio2`, medium case): `k = round(x 2/pi)`
//! and `x - k pi/2` as the unevaluated sum `y0 + y1`, with pi/2 split in three parts (fdlibm's
//! `pio2_1`, `pio2_2` and `pio2_2t`, 31, 32 and 53 significant bits). For |x| < 2^20,
//! `k < 2^20`, so `k pio2_1` and `k pio2_2` are exact; `x - k pio2_1` is exact (Sterbenz: the
//! two are within a factor 2 of each other, or k = 0); the next subtraction's rounding error is
//! recovered exactly (Fast2Sum), and the three parts miss pi/2 by less than 2^-122, so
//! `y0 + y1` is within 2^-100 of `x - k pi/2`. The nearest an F32 below 2^20 comes to a nonzero
//! multiple of pi/2 is 2^-27.8 (x = 252.89821, k = 161; found by trying the F32 values nearest
//! each multiple), so the reduced argument is good to 2^-72 relative. Then fdlibm's kernels
//! (`__kernel_sin` and `__kernel_cos` as revised by Bruce Evans, with their minimax polynomials
//! of degree 13 and 14, errors below 2^-58 on [-pi/4, pi/4]) and the sign and sin/cos swap from
//! `k mod 4`, by bit operations.
//!
//! Logarithm: `x = 2^k m` with m in [sqrt(2)/2, sqrt(2)) from the exponent bits, then fdlibm's
//! `__ieee754_log`: `log m = f - (f^2/2 - s (f^2/2 + R(s^2)))` with `f = m - 1` (exact),
//! `s = f / (2 + f)` and `R` fdlibm's minimax polynomial for `2 atanh(s)/s - 2` (degree 14 in s,
//! error below 2^-58.45 on |s| <= 0.1716); the leading `f` is exact and the rest is at most a
//! fifth of it, so the rounding of s costs little; `k ln 2` in two parts as in `fastexp`. For
//! `log(1 + x)`, `u = 1 + x` is rounded but its rounding error `x - (u - 1)` is exact (Fast2Sum
//! for |x| <= 1; for larger x, `1 + x` is exact below 2^52 and negligible above), and
//! `log1p x = log u + (x - (u - 1)) / u` to within 2^-106.
//!
//! Why this keeps the book's accuracy: as in `fastexp`, these F64 values are within a few F64
//! ULPs of the exact ones, as libm's are, so rounding them to F32 gives the correctly rounded
//! result except within about 2^-26 ULP of a halfway point. The tests hold every result to
//! libm's own F64 value, rounded, over about 28 million arguments, and the F64 values to within
//! 4 F64 ULPs of libm's (all came within 1). F64 arguments keep using libm.

/// Arguments with |x| below this take the fast sine and cosine (`k < 2^20`, see above).
const TRIG_BOUND: f64 = 1_048_576.0;

// `SHIFT` rounds to an integer left in the low bits; `k ln 2` is taken in two parts.
use super::fastexp::{LN2_HI, LN2_LO, SHIFT};

const FRAC_2_PI: f64 = std::f64::consts::FRAC_2_PI;
/// pi/2 in three parts (fdlibm's `pio2_1`, `pio2_2`, `pio2_2t`): the first two with at least 21
/// trailing zero bits, so their products with `k < 2^20` are exact.
const PIO2_1: f64 = f64::from_bits(0x3ff9_21fb_5440_0000);
const PIO2_2: f64 = f64::from_bits(0x3dd0_b461_1a60_0000);
const PIO2_2T: f64 = f64::from_bits(0x3ba3_198a_2e03_7073);

/// fdlibm's `__kernel_sin` coefficients (`S1`..`S6`).
const S: [f64; 6] = [
    f64::from_bits(0xbfc5_5555_5555_5549),
    f64::from_bits(0x3f81_1111_1110_f8a6),
    f64::from_bits(0xbf2a_01a0_19c1_61d5),
    f64::from_bits(0x3ec7_1de3_57b1_fe7d),
    f64::from_bits(0xbe5a_e5e6_8a2b_9ceb),
    f64::from_bits(0x3de5_d93a_5acf_d57c),
];
/// fdlibm's `__kernel_cos` coefficients (`C1`..`C6`).
const C: [f64; 6] = [
    f64::from_bits(0x3fa5_5555_5555_554c),
    f64::from_bits(0xbf56_c16c_16c1_5177),
    f64::from_bits(0x3efa_01a0_19cb_1590),
    f64::from_bits(0xbe92_7e4f_809c_52ad),
    f64::from_bits(0x3e21_ee9e_bdb4_b1c4),
    f64::from_bits(0xbda8_fae9_be88_38d4),
];

/// `x - k pi/2` as `(y0, y1)` with `k = round(x 2/pi)`, and `k mod 4`; for |x| < 2^20.
#[inline(always)]
fn reduce(x: f64) -> (f64, f64, u64) {
    // k read from the low bits of the shifted sum, not by a float-to-integer conversion, which
    // AVX2 cannot vectorise (see `fastexp`).
    let shifted = x * FRAC_2_PI + SHIFT;
    let k = shifted - SHIFT;
    let t = x - k * PIO2_1;
    let w = k * PIO2_2;
    let r = t - w;
    let w = k * PIO2_2T - ((t - r) - w);
    let y0 = r - w;
    let y1 = (r - y0) - w;
    (y0, y1, shifted.to_bits() & 3)
}

/// `sin(y0 + y1)` for |y0| <= pi/4 (a little more when `k` rounded a tie): `__kernel_sin`.
#[inline(always)]
fn kernel_sin(x: f64, y: f64) -> f64 {
    let z = x * x;
    let w = z * z;
    let r = S[1] + z * (S[2] + z * S[3]) + z * w * (S[4] + z * S[5]);
    let v = z * x;
    x - ((z * (0.5 * y - v * r) - y) - v * S[0])
}

/// `cos(y0 + y1)` for |y0| <= pi/4: `__kernel_cos`. `1 - z/2` is split so that its rounding
/// error is added back.
#[inline(always)]
fn kernel_cos(x: f64, y: f64) -> f64 {
    let z = x * x;
    let w = z * z;
    let r = z * (C[0] + z * (C[1] + z * C[2])) + w * w * (C[3] + z * (C[4] + z * C[5]));
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    w + (((1.0 - w) - hz) + (z * r - x * y))
}

/// `a` when the low bit of `pick` is 0, else `b`, and negated when `neg`'s low bit is 1: bit
/// operations, so the loop stays branch-free.
#[inline(always)]
fn choose(pick: u64, a: f64, b: f64, neg: u64) -> f64 {
    let m = 0u64.wrapping_sub(pick & 1);
    let bits = (a.to_bits() & !m) | (b.to_bits() & m);
    f64::from_bits(bits ^ ((neg & 1) << 63))
}

/// Whether `sin_fast` and `cos_fast` are right for `x` (false for NaN).
#[inline(always)]
pub fn trig_in_fast_domain(x: f64) -> bool {
    x.abs() < TRIG_BOUND
}

/// `sin x` for |x| < 2^20; branch-free, any value elsewhere.
#[inline(always)]
pub fn sin_fast(x: f64) -> f64 {
    let (y0, y1, q) = reduce(x);
    // sin, cos, -sin, -cos of the reduced argument for k mod 4 = 0, 1, 2, 3.
    choose(q, kernel_sin(y0, y1), kernel_cos(y0, y1), q >> 1)
}

/// `cos x` for |x| < 2^20; branch-free, any value elsewhere.
#[inline(always)]
pub fn cos_fast(x: f64) -> f64 {
    let (y0, y1, q) = reduce(x);
    // cos, -sin, -cos, sin for k mod 4 = 0, 1, 2, 3.
    choose(q, kernel_cos(y0, y1), kernel_sin(y0, y1), (q + 1) >> 1)
}

/// `sin x` in F64 for an argument from F32's range: what the element-wise loops give.
pub fn sin_f64_for_f32(x: f64) -> f64 {
    if trig_in_fast_domain(x) {
        sin_fast(x)
    } else {
        x.sin()
    }
}

/// `cos x` in F64 for an argument from F32's range: what the element-wise loops give.
pub fn cos_f64_for_f32(x: f64) -> f64 {
    if trig_in_fast_domain(x) {
        cos_fast(x)
    } else {
        x.cos()
    }
}

/// fdlibm's `__ieee754_log` coefficients (`Lg1`..`Lg7`).
const LG: [f64; 7] = [
    f64::from_bits(0x3fe5_5555_5555_5593),
    f64::from_bits(0x3fd9_9999_9997_fa04),
    f64::from_bits(0x3fd2_4924_9422_9359),
    f64::from_bits(0x3fcc_71c5_1d8e_78af),
    f64::from_bits(0x3fc7_4664_96cb_03de),
    f64::from_bits(0x3fc3_9a09_d078_c69f),
    f64::from_bits(0x3fc2_f112_df3e_5244),
];
/// The bits of sqrt(2)/2 (rounded down): mantissas from here up to sqrt(2) keep their exponent.
const SQRT1_2_BITS: u64 = 0x3fe6_a09e_667f_3bcd;

/// `log x` for positive finite (normal) x; branch-free, any value elsewhere.
#[inline(always)]
pub fn log_fast(x: f64) -> f64 {
    // Adding this offset carries into the exponent field exactly when the mantissa is at least
    // sqrt(2), so the field holds k + 1023 and the rest, rebased, is m in [sqrt(2)/2, sqrt(2)).
    let u = x
        .to_bits()
        .wrapping_add(0x3ff0_0000_0000_0000 - SQRT1_2_BITS);
    let m = f64::from_bits((u & 0x000f_ffff_ffff_ffff) + SQRT1_2_BITS);
    // k as F64 through the SHIFT trick (no integer-to-float conversion of 64-bit lanes).
    let k = (f64::from_bits(SHIFT.to_bits() + (u >> 52)) - SHIFT) - 1023.0;
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (LG[1] + w * (LG[3] + w * LG[5]));
    let t2 = z * (LG[0] + w * (LG[2] + w * (LG[4] + w * LG[6])));
    let r = t2 + t1;
    let hfsq = 0.5 * f * f;
    k * LN2_HI - ((hfsq - (s * (hfsq + r) + k * LN2_LO)) - f)
}

/// Whether `log_fast` is right for `x`: positive and finite (every positive F32 is a normal F64).
#[inline(always)]
pub fn log_in_fast_domain(x: f64) -> bool {
    x > 0.0 && x < f64::INFINITY
}

/// `log x` in F64 for an argument from F32's range: what the element-wise loops give.
pub fn log_f64_for_f32(x: f64) -> f64 {
    if log_in_fast_domain(x) {
        log_fast(x)
    } else {
        x.ln()
    }
}

/// `log(1 + x)` for finite x > -1 from F32's range; branch-free, any value elsewhere.
#[inline(always)]
pub fn log1p_fast(x: f64) -> f64 {
    let u = 1.0 + x;
    let c = (x - (u - 1.0)) / u;
    let y = log_fast(u) + c;
    // ±0 gives itself (the sum above would turn -0 into +0).
    if x == 0.0 { x } else { y }
}

/// Whether `log1p_fast` is right for `x`: finite and above -1.
#[inline(always)]
pub fn log1p_in_fast_domain(x: f64) -> bool {
    x > -1.0 && x < f64::INFINITY
}

/// `log(1 + x)` in F64 for an argument from F32's range: what the element-wise loops give.
pub fn log1p_f64_for_f32(x: f64) -> f64 {
    if log1p_in_fast_domain(x) {
        log1p_fast(x)
    } else {
        x.ln_1p()
    }
}

#[cfg(test)]
mod tests {
    use super::super::fastexp::tests::check;
    use super::*;
    use crate::eval::elementwise::unary_data;
    use crate::hlo::opcode::UnaryOp;
    use crate::literal::ArrayData;
    use half::{bf16, f16};

    /// The constants given by their bits are fdlibm's decimal ones.
    // The decimals as fdlibm prints them, more digits than F64 holds.
    #[allow(clippy::excessive_precision)]
    #[test]
    fn constants_match_fdlibm() {
        let s = [
            -1.666_666_666_666_663_243_48e-1,
            8.333_333_333_322_489_461_24e-3,
            -1.984_126_982_985_794_931_34e-4,
            2.755_731_370_707_006_767_89e-6,
            -2.505_076_025_340_686_341_95e-8,
            1.589_690_995_211_550_102_21e-10,
        ];
        let c = [
            4.166_666_666_666_660_190_37e-2,
            -1.388_888_888_887_410_957_49e-3,
            2.480_158_728_947_672_941_78e-5,
            -2.755_731_435_139_066_330_35e-7,
            2.087_572_321_298_174_827_90e-9,
            -1.135_964_755_778_819_482_65e-11,
        ];
        let lg = [
            6.666_666_666_666_735_130e-1,
            3.999_999_999_940_941_908e-1,
            2.857_142_874_366_239_149e-1,
            2.222_219_843_214_978_396e-1,
            1.818_357_216_161_805_012e-1,
            1.531_383_769_920_937_332e-1,
            1.479_819_860_511_658_591e-1,
        ];
        assert_eq!(S, s);
        assert_eq!(C, c);
        assert_eq!(LG, lg);
        assert_eq!(PIO2_1, 1.570_796_326_734_125_614_17);
        assert_eq!(PIO2_2, 6.077_100_506_303_965_976_60e-11);
        assert_eq!(PIO2_2T, 2.022_266_248_795_950_631_54e-21);
        // The three parts add up to pi/2 (as far as F64 shows).
        assert_eq!(PIO2_1 + PIO2_2, std::f64::consts::FRAC_PI_2);
        assert!(PIO2_1.to_bits().trailing_zeros() >= 21 && PIO2_2.to_bits().trailing_zeros() >= 21);
    }

    type Case = (&'static str, fn(f64) -> f64, fn(f64) -> f64);
    const CASES: [Case; 4] = [
        ("sin", sin_f64_for_f32, f64::sin),
        ("cos", cos_f64_for_f32, f64::cos),
        ("log", log_f64_for_f32, f64::ln),
        ("log1p", log1p_f64_for_f32, f64::ln_1p),
    ];

    /// Every function on every argument: the F32 result is libm's F64 value rounded (unless that
    /// value is next to a halfway point), and the F64 value itself is within 4 F64 ULPs of
    /// libm's (it has been within 1 on every argument tried).
    fn check_all(xs: impl Iterator<Item = f32> + Clone) {
        for (name, fast, libm) in CASES {
            for x in xs.clone() {
                let (a, b) = (fast(x as f64), libm(x as f64));
                if a.is_finite() && b.is_finite() {
                    let ulps = (a.to_bits() as i64).wrapping_sub(b.to_bits() as i64);
                    assert!(
                        a == b || ulps.unsigned_abs() <= 4,
                        "{name}({x:e}): {a:e} is {ulps} F64 ULPs from libm's {b:e}"
                    );
                }
                check(name, fast, libm, x);
            }
        }
    }

    fn with_neighbours(x: f32, n: i32, out: &mut Vec<f32>) {
        for d in -n..=n {
            out.push(f32::from_bits(x.to_bits().wrapping_add_signed(d)));
        }
    }

    /// Every F32 argument whose bits are a multiple of 257 (about 17 million, spread over the
    /// whole range, signs, subnormals and NaNs included).
    #[test]
    fn f32_results_round_as_libm_values_do_over_the_range() {
        check_all((0..=u32::MAX / 257).map(|i| f32::from_bits(i * 257)));
    }

    /// Every F32 between 2^-12 and 8 in magnitude whose bits are a multiple of 61 (about four
    /// million: where most arguments lie), and the values nearest 1 and -1 (for the logs).
    #[test]
    fn f32_results_round_as_libm_values_do_for_small_arguments() {
        let (lo, hi) = (2.0f32.powi(-12).to_bits() / 61, 8.0f32.to_bits() / 61);
        let mut xs: Vec<f32> = (lo..=hi)
            .flat_map(|i| {
                let x = f32::from_bits(i * 61);
                [x, -x]
            })
            .collect();
        with_neighbours(1.0, 100_000, &mut xs);
        with_neighbours(-1.0, 100_000, &mut xs);
        check_all(xs.iter().copied());
    }

    /// The F32 values nearest every multiple of pi/2 below the bound (where reduction cancels
    /// most), those around the bound, and the special values.
    #[test]
    fn f32_results_round_as_libm_values_do_where_reduction_is_hardest() {
        let mut xs = vec![];
        let kmax = (TRIG_BOUND * FRAC_2_PI) as i64 + 2;
        for k in 1..=kmax {
            let t = (k as f64 * std::f64::consts::FRAC_PI_2) as f32;
            with_neighbours(t, 2, &mut xs);
            with_neighbours(-t, 2, &mut xs);
        }
        with_neighbours(TRIG_BOUND as f32, 1000, &mut xs);
        with_neighbours(-TRIG_BOUND as f32, 1000, &mut xs);
        // The worst case of the reduction (see the module comment).
        with_neighbours(252.898_21, 10, &mut xs);
        xs.extend([
            0.0f32,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            f32::MAX,
            f32::MIN,
            -1.0,
            1.0,
            -0.999_999_94,
            2.0f32.powi(-29),
            -(2.0f32.powi(-29)),
            2.0f32.powi(52),
            2.0f32.powi(53),
        ]);
        with_neighbours(std::f32::consts::FRAC_1_SQRT_2, 100, &mut xs);
        with_neighbours(std::f32::consts::SQRT_2, 100, &mut xs);
        check_all(xs.iter().copied());
    }

    /// Signed zeros, infinities and NaN come out as libm's, bit for bit.
    #[test]
    fn special_values_are_libm_s() {
        for (name, fast, libm) in CASES {
            for x in [
                0.0f64,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                -1.0,
                -2.0,
            ] {
                let (a, b) = (fast(x), libm(x));
                assert!(
                    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                    "{name}({x}): {a} against libm's {b}"
                );
            }
        }
        assert_eq!(sin_f64_for_f32(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(log1p_f64_for_f32(-0.0).to_bits(), (-0.0f64).to_bits());
    }

    /// The element-wise op on arrays (the vectorised pass and the libm pass after it) gives,
    /// element for element, the bits of the per-element function, for every float type.
    #[test]
    fn array_ops_equal_the_per_element_functions() {
        let mut xs: Vec<f32> = (0..=u32::MAX / 65_537)
            .map(|i| f32::from_bits(i * 65_537))
            .collect();
        xs.extend([
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            3e6,
            -3e6,
            -1.0,
        ]);
        // 65,544 elements: more than `PAR_THRESHOLD`, so the array is split across threads.
        let n = xs.len();
        let ops = [UnaryOp::Sin, UnaryOp::Cos, UnaryOp::Log, UnaryOp::Log1p];
        for (op, (_, f, _)) in ops.into_iter().zip(CASES) {
            let ArrayData::F32(got) = unary_data(op, &ArrayData::F32(xs.clone().into())).unwrap()
            else {
                panic!("F32 expected")
            };
            for i in 0..n {
                let want = f(xs[i] as f64) as f32;
                assert!(
                    got[i].to_bits() == want.to_bits() || (got[i].is_nan() && want.is_nan()),
                    "{op:?}({:e}): {:e} against {want:e}",
                    xs[i],
                    got[i]
                );
            }
            let h: Vec<f16> = xs.iter().map(|&x| f16::from_f32(x)).collect();
            let ArrayData::F16(got) = unary_data(op, &ArrayData::F16(h.clone().into())).unwrap()
            else {
                panic!("F16 expected")
            };
            for i in 0..n {
                let want = f16::from_f32(f(h[i].to_f32() as f64) as f32);
                assert!(got[i].to_bits() == want.to_bits() || (got[i].is_nan() && want.is_nan()));
            }
            let b: Vec<bf16> = xs.iter().map(|&x| bf16::from_f32(x)).collect();
            let ArrayData::BF16(got) = unary_data(op, &ArrayData::BF16(b.clone().into())).unwrap()
            else {
                panic!("BF16 expected")
            };
            for i in 0..n {
                let want = bf16::from_f32(f(b[i].to_f32() as f64) as f32);
                assert!(got[i].to_bits() == want.to_bits() || (got[i].is_nan() && want.is_nan()));
            }
        }
    }

    /// One argument outside the fast domain among thousands inside it, first, last or between,
    /// gets the per-element function's value: the branch-free check over the whole chunk must
    /// see it wherever it lies.
    #[test]
    fn a_lone_argument_outside_the_fast_domain_gets_the_slow_value() {
        let ops = [UnaryOp::Sin, UnaryOp::Cos, UnaryOp::Log, UnaryOp::Log1p];
        for (op, (name, f, _)) in ops.into_iter().zip(CASES) {
            let outside = [3e7f32, -1.5, 0.0, -1.0, f32::NAN, f32::INFINITY];
            for bad in outside {
                let in_domain = if name.starts_with("log") {
                    bad == 3e7
                } else {
                    bad.abs() <= 1.5
                };
                if in_domain {
                    continue;
                }
                for at in [0, 1, 2500, 4999] {
                    let mut xs: Vec<f32> = (0..5000).map(|i| 0.25 + i as f32 * 1e-3).collect();
                    xs[at] = bad;
                    let ArrayData::F32(got) =
                        unary_data(op, &ArrayData::F32(xs.clone().into())).unwrap()
                    else {
                        panic!("F32 expected")
                    };
                    let want = f(bad as f64) as f32;
                    assert!(
                        got[at].to_bits() == want.to_bits() || (got[at].is_nan() && want.is_nan()),
                        "{name}({bad:e}) at {at}: {:e} against {want:e}",
                        got[at]
                    );
                }
            }
        }
    }
}
