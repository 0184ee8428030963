#![allow(clippy::type_complexity)]
//! Property tests of the element-wise family, named `prop::elementwise::<name>`.
//!
//! - **Algebraic laws**: commutativity of the exact binary ops (max/min up to the sign of zero,
//!   which XLA resolves to the lhs), De Morgan and xor identities for the bit ops, lossless
//!   `convert` round trips, `reduce-precision` idempotence and its agreement with F16/BF16
//!   rounding on their normal range.
//! - **Exact rounding**: F32, F16 and BF16 `+ − × ÷ sqrt` and conversions from F64 are compared
//!   bit for bit with an independent oracle: the F64 result (which carries more than twice the
//!   precision, so rounding it once more is exact) rounded by `round_to`, a rounding written here
//!   from scratch.
//! - **Accuracy bounds**: every transcendental op over random bit patterns of the whole F32, F16
//!   and BF16 range (special values mixed in) against the F64 function rounded once, and at
//!   points of the whole F64 and F32 ranges against `table::F64_TABLE` / `table::F32_TABLE`,
//!   correctly rounded values computed with mpmath at 300 bits. The bounds are the ones the book's
//!   accuracy tables state.

use half::{bf16, f16};
use libtest_mimic::{Failed, Trial};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use xla_spec::eval::elementwise::{
    binary_data, compare::compare_data, convert_data, reduce_precision_data, unary_data,
};
use xla_spec::hlo::attrs::ComparisonDirection;
use xla_spec::hlo::opcode::{BinaryOp, UnaryOp};
use xla_spec::literal::ArrayData as D;
use xla_spec::types::ElementType;

const BATCH: usize = 256;

fn trial<S>(
    name: &str,
    cases: u32,
    strategy: S,
    test: fn(S::Value) -> Result<(), TestCaseError>,
) -> Trial
where
    S: Strategy + Send + 'static,
{
    Trial::test(format!("prop::elementwise::{name}"), move || {
        let config = Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        };
        // Like every other property test: fresh cases on each run, or the cases of
        // PROPTEST_RNG_SEED when it is set (CI sets it).
        let mut runner = TestRunner::new(config);
        runner
            .run(&strategy, test)
            .map_err(|e| Failed::from(e.to_string()))
    })
}

fn fail(msg: String) -> TestCaseError {
    TestCaseError::fail(msg)
}

/// Special F32 values every batch includes.
const SPECIAL_F32: [u32; 14] = [
    0x0000_0000,
    0x8000_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0001,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x0080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x3f80_0000,
    0xbf80_0000,
];
const SPECIAL_16: [u16; 10] = [
    0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x8001, 0x7bff, 0x3c00, 0x7f80,
];

fn f32s(bits: &[u32]) -> Vec<f32> {
    SPECIAL_F32
        .iter()
        .chain(bits)
        .map(|&b| f32::from_bits(b))
        .collect()
}

/// Distance in representable values between two floats of a `w`-bit format (0 for two NaNs;
/// u64::MAX when exactly one is NaN).
fn ulps(a: u64, b: u64, w: u32, a_nan: bool, b_nan: bool) -> u64 {
    if a_nan || b_nan {
        return if a_nan && b_nan { 0 } else { u64::MAX };
    }
    let key = |x: u64| {
        let mag = (x & ((1u64 << (w - 1)) - 1)) as i128;
        if x >> (w - 1) & 1 == 1 { -mag } else { mag }
    };
    (key(a) - key(b)).unsigned_abs() as u64
}

fn ulps32(a: f32, b: f32) -> u64 {
    ulps(
        a.to_bits() as u64,
        b.to_bits() as u64,
        32,
        a.is_nan(),
        b.is_nan(),
    )
}
fn ulps64(a: f64, b: f64) -> u64 {
    ulps(a.to_bits(), b.to_bits(), 64, a.is_nan(), b.is_nan())
}

/// Rounds an F64 to the nearest value (ties to even) of a binary format with `e` exponent bits
/// and `m` mantissa bits, with subnormals and overflow to infinity. Written independently of the
/// runtime: scale by the quantum of x's binade, round to an integer, scale back.
fn round_to(x: f64, e: u32, m: u32) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let bias = (1i32 << (e - 1)) - 1;
    let emin = 1 - bias;
    let biased = ((x.abs().to_bits() >> 52) & 0x7ff) as i32;
    let ex = (biased - 1023).max(emin);
    let q = 2f64.powi(ex - m as i32);
    let r = (x / q).round_ties_even() * q;
    let max = (2.0 - 2f64.powi(-(m as i32))) * 2f64.powi(bias);
    if r.abs() > max {
        f64::INFINITY.copysign(x)
    } else {
        r
    }
}

/// The unary transcendental ops, their F64 reference function, and their bounds in ULPs for
/// (F16/BF16, F32, F64), as the book states them.
fn unary_ops() -> Vec<(UnaryOp, fn(f64) -> f64, [u64; 3])> {
    vec![
        (UnaryOp::Exp, f64::exp, [1, 1, 1]),
        (UnaryOp::Expm1, f64::exp_m1, [1, 1, 1]),
        (UnaryOp::Log, f64::ln, [1, 1, 1]),
        (UnaryOp::Log1p, f64::ln_1p, [1, 1, 1]),
        (UnaryOp::Sin, f64::sin, [1, 1, 1]),
        (UnaryOp::Cos, f64::cos, [1, 1, 1]),
        (UnaryOp::Tan, f64::tan, [1, 1, 1]),
        (UnaryOp::Tanh, f64::tanh, [1, 1, 2]),
        (UnaryOp::Cbrt, f64::cbrt, [1, 1, 1]),
        (UnaryOp::Logistic, |x| 1.0 / (1.0 + (-x).exp()), [1, 1, 3]),
        (UnaryOp::Rsqrt, |x| 1.0 / x.sqrt(), [1, 1, 2]),
        (UnaryOp::Sqrt, f64::sqrt, [0, 0, 0]),
    ]
}

/// Bounds of the ops in the mpmath tables: (F32, F64) ULPs.
fn table_bound(name: &str) -> (u64, u64) {
    match name {
        "Tanh" | "Erf" | "Rsqrt" => (1, 2),
        "Logistic" => (1, 3),
        _ => (1, 1),
    }
}

/// The op a case name stands for: `Ok` a unary op, `Err` a binary one.
fn op_of(name: &str) -> Result<UnaryOp, BinaryOp> {
    Ok(match name {
        "Exp" => UnaryOp::Exp,
        "Expm1" => UnaryOp::Expm1,
        "Log" => UnaryOp::Log,
        "Log1p" => UnaryOp::Log1p,
        "Sin" => UnaryOp::Sin,
        "Cos" => UnaryOp::Cos,
        "Tan" => UnaryOp::Tan,
        "Tanh" => UnaryOp::Tanh,
        "Cbrt" => UnaryOp::Cbrt,
        "Erf" => UnaryOp::Erf,
        "Logistic" => UnaryOp::Logistic,
        "Rsqrt" => UnaryOp::Rsqrt,
        "Power" => return Err(BinaryOp::Power),
        _ => return Err(BinaryOp::Atan2),
    })
}

fn f32_out(d: Result<D, xla_spec::Error>) -> Result<Vec<f32>, TestCaseError> {
    match d {
        Ok(D::F32(v)) => Ok(v.into_vec()),
        other => Err(fail(format!("expected f32 data, got {other:?}"))),
    }
}

/// Every transcendental op on F32 bit patterns of the whole range: within its bound of the F64
/// function rounded once.
fn f32_accuracy(bits: Vec<u32>) -> Result<(), TestCaseError> {
    let xs = f32s(&bits);
    for (op, f, bound) in unary_ops() {
        let got = f32_out(unary_data(op, &D::F32(xs.clone().into())))?;
        for (&x, &g) in xs.iter().zip(&got) {
            let want = f(x as f64) as f32;
            let d = ulps32(g, want);
            if d > bound[1] {
                return Err(fail(format!(
                    "{}({x:e}) = {g:e}, reference {want:e}: {d} ULP",
                    op
                )));
            }
        }
    }
    Ok(())
}

/// The same on F16 and BF16: within the bound of the exact value rounded once to the narrow type.
fn half_accuracy(bits: Vec<u16>) -> Result<(), TestCaseError> {
    let raw: Vec<u16> = SPECIAL_16.iter().chain(&bits).copied().collect();
    let h: Vec<f16> = raw.iter().map(|&b| f16::from_bits(b)).collect();
    let bh: Vec<bf16> = raw.iter().map(|&b| bf16::from_bits(b)).collect();
    for (op, f, bound) in unary_ops() {
        if let Ok(D::F16(got)) = unary_data(op, &D::F16(h.clone().into())) {
            for (x, g) in h.iter().zip(&got) {
                let want = f16::from_f64(round_to(f(x.to_f64()), 5, 10));
                let d = ulps(
                    g.to_bits() as u64,
                    want.to_bits() as u64,
                    16,
                    g.is_nan(),
                    want.is_nan(),
                );
                if d > bound[0] {
                    return Err(fail(format!(
                        "f16 {}({x}) = {g}, reference {want}: {d} ULP",
                        op
                    )));
                }
            }
        } else {
            return Err(fail(format!("f16 {} failed", op)));
        }
        if let Ok(D::BF16(got)) = unary_data(op, &D::BF16(bh.clone().into())) {
            for (x, g) in bh.iter().zip(&got) {
                let want = bf16::from_f64(round_to(f(x.to_f64()), 8, 7));
                let d = ulps(
                    g.to_bits() as u64,
                    want.to_bits() as u64,
                    16,
                    g.is_nan(),
                    want.is_nan(),
                );
                if d > bound[0] {
                    return Err(fail(format!(
                        "bf16 {}({x}) = {g}, reference {want}: {d} ULP",
                        op
                    )));
                }
            }
        } else {
            return Err(fail(format!("bf16 {} failed", op)));
        }
    }
    Ok(())
}

/// F32, F16 and BF16 `+ − × ÷` and `sqrt` are correctly rounded: bit-exact against the F64
/// result rounded once by `round_to`.
fn exact_arithmetic(bits: Vec<(u32, u32)>) -> Result<(), TestCaseError> {
    let xs: Vec<f32> = f32s(&bits.iter().map(|p| p.0).collect::<Vec<_>>());
    let ys: Vec<f32> = f32s(&bits.iter().map(|p| p.1).collect::<Vec<_>>())
        .into_iter()
        .rev()
        .collect();
    let ops: [(BinaryOp, fn(f64, f64) -> f64); 5] = [
        (BinaryOp::Add, |a, b| a + b),
        (BinaryOp::Subtract, |a, b| a - b),
        (BinaryOp::Multiply, |a, b| a * b),
        (BinaryOp::Divide, |a, b| a / b),
        (BinaryOp::Remainder, |a, b| a % b),
    ];
    for (op, f) in ops {
        let got = f32_out(binary_data(
            op,
            &D::F32(xs.clone().into()),
            &D::F32(ys.clone().into()),
        ))?;
        for ((&x, &y), &g) in xs.iter().zip(&ys).zip(&got) {
            let want = round_to(f(x as f64, y as f64), 8, 23) as f32;
            if ulps32(g, want) != 0 {
                return Err(fail(format!("{}({x:e}, {y:e}) = {g:e}, want {want:e}", op)));
            }
        }
        // The same operands narrowed to F16 and BF16.
        let hx: Vec<f16> = xs
            .iter()
            .map(|&x| f16::from_f64(round_to(x as f64, 5, 10)))
            .collect();
        let hy: Vec<f16> = ys
            .iter()
            .map(|&y| f16::from_f64(round_to(y as f64, 5, 10)))
            .collect();
        let got = match binary_data(op, &D::F16(hx.clone().into()), &D::F16(hy.clone().into())) {
            Ok(D::F16(got)) => got,
            other => return Err(fail(format!("f16 {op}: {other:?}"))),
        };
        for ((x, y), g) in hx.iter().zip(&hy).zip(&got) {
            let want = round_to(f(x.to_f64(), y.to_f64()), 5, 10);
            if !(g.to_f64() == want || (g.is_nan() && want.is_nan()))
                || (want == 0.0 && g.is_sign_negative() != want.is_sign_negative())
            {
                return Err(fail(format!("f16 {}({x}, {y}) = {g}, want {want}", op)));
            }
        }
        let bx: Vec<bf16> = xs
            .iter()
            .map(|&x| bf16::from_f64(round_to(x as f64, 8, 7)))
            .collect();
        let by: Vec<bf16> = ys
            .iter()
            .map(|&y| bf16::from_f64(round_to(y as f64, 8, 7)))
            .collect();
        let got = match binary_data(op, &D::BF16(bx.clone().into()), &D::BF16(by.clone().into())) {
            Ok(D::BF16(got)) => got,
            other => return Err(fail(format!("bf16 {op}: {other:?}"))),
        };
        for ((x, y), g) in bx.iter().zip(&by).zip(&got) {
            let want = round_to(f(x.to_f64(), y.to_f64()), 8, 7);
            if !(g.to_f64() == want || (g.is_nan() && want.is_nan()))
                || (want == 0.0 && g.is_sign_negative() != want.is_sign_negative())
            {
                return Err(fail(format!("bf16 {}({x}, {y}) = {g}, want {want}", op)));
            }
        }
    }
    Ok(())
}

/// F64 → F32/F16/BF16 conversions round once: bit-exact against `round_to`.
fn exact_conversions(bits: Vec<u64>) -> Result<(), TestCaseError> {
    let xs: Vec<f64> = bits
        .iter()
        .map(|&b| f64::from_bits(b))
        .chain([
            0.0,
            -0.0,
            1.0 + 2f64.powi(-8) + 2f64.powi(-40),
            65520.0,
            6e-8,
            1e-300,
        ])
        .collect();
    let d = D::F64(xs.clone().into());
    for (ty, e, m) in [
        (ElementType::F32, 8, 23),
        (ElementType::F16, 5, 10),
        (ElementType::BF16, 8, 7),
    ] {
        let got: Vec<f64> = match convert_data(&d, ty) {
            Ok(D::F32(v)) => v.iter().map(|&x| x as f64).collect(),
            Ok(D::F16(v)) => v.iter().map(|x| x.to_f64()).collect(),
            Ok(D::BF16(v)) => v.iter().map(|x| x.to_f64()).collect(),
            other => return Err(fail(format!("convert to {ty}: {other:?}"))),
        };
        for (&x, &g) in xs.iter().zip(&got) {
            let want = round_to(x, e, m);
            let ok = (g.is_nan() && want.is_nan()) || g.to_bits() == want.to_bits();
            if !ok {
                return Err(fail(format!(
                    "convert {x:e} to {ty} = {g:e}, want {want:e}"
                )));
            }
        }
    }
    Ok(())
}

/// Points of the whole F64 and F32 ranges against mpmath's correctly rounded values.
fn mpmath_tables() -> Result<(), Failed> {
    let mut worst: Vec<String> = vec![];
    for &(name, x, y, want) in table::F64_TABLE {
        let (xs, ys) = (
            D::F64(vec![f64::from_bits(x)].into()),
            D::F64(vec![f64::from_bits(y)].into()),
        );
        let out = match op_of(name) {
            Ok(op) => unary_data(op, &xs),
            Err(op) => binary_data(op, &xs, &ys),
        };
        let g = match out {
            Ok(D::F64(v)) => v[0],
            other => return Err(format!("{name}: {other:?}").into()),
        };
        let d = ulps64(g, f64::from_bits(want));
        if d > table_bound(name).1 {
            worst.push(format!(
                "f64 {name}({:e}, {:e}) = {g:e}, mpmath {:e}: {d} ULP",
                f64::from_bits(x),
                f64::from_bits(y),
                f64::from_bits(want)
            ));
        }
    }
    for &(name, x, y, want) in table::F32_TABLE {
        // mpmath has no signed zero and no atan2 of two infinities: such points (the F32 atan2
        // inputs that overflowed or underflowed) are IEEE special cases, tested by the book.
        let (fx, fy) = (f32::from_bits(x), f32::from_bits(y));
        if op_of(name).is_err() && (fx == 0.0 || fy == 0.0 || fx.is_infinite() || fy.is_infinite())
        {
            continue;
        }
        let (xs, ys) = (
            D::F32(vec![f32::from_bits(x)].into()),
            D::F32(vec![f32::from_bits(y)].into()),
        );
        let out = match op_of(name) {
            Ok(op) => unary_data(op, &xs),
            Err(op) => binary_data(op, &xs, &ys),
        };
        let g = match out {
            Ok(D::F32(v)) => v[0],
            other => return Err(format!("{name}: {other:?}").into()),
        };
        let d = ulps32(g, f32::from_bits(want));
        if d > table_bound(name).0 {
            worst.push(format!(
                "f32 {name}({:e}, {:e}) = {g:e}, mpmath {:e}: {d} ULP",
                f32::from_bits(x),
                f32::from_bits(y),
                f32::from_bits(want)
            ));
        }
    }
    if worst.is_empty() {
        Ok(())
    } else {
        Err(worst.join("\n").into())
    }
}

/// erf over the whole F32 range: odd, within [−1, 1], monotone non-decreasing.
fn erf_shape(bits: Vec<u32>) -> Result<(), TestCaseError> {
    let mut xs: Vec<f32> = f32s(&bits).into_iter().filter(|x| !x.is_nan()).collect();
    xs.sort_by(|a, b| a.total_cmp(b));
    let neg: Vec<f32> = xs.iter().map(|x| -x).collect();
    let got = f32_out(unary_data(UnaryOp::Erf, &D::F32(xs.clone().into())))?;
    let gneg = f32_out(unary_data(UnaryOp::Erf, &D::F32(neg.into())))?;
    for i in 0..xs.len() {
        if gneg[i].to_bits() != (-got[i]).to_bits() || got[i].abs() > 1.0 {
            return Err(fail(format!(
                "erf({:e}) = {:e}, erf(-x) = {:e}",
                xs[i], got[i], gneg[i]
            )));
        }
        if i > 0 && got[i] < got[i - 1] {
            return Err(fail(format!("erf decreases at {:e}", xs[i])));
        }
    }
    Ok(())
}

fn same_value(a: f32, b: f32) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// Commutativity of the exact binary ops (bitwise; max/min up to the sign of zero).
fn commutative(pairs: Vec<(u32, u32)>) -> Result<(), TestCaseError> {
    let x: Vec<f32> = f32s(&pairs.iter().map(|p| p.0).collect::<Vec<_>>());
    let y: Vec<f32> = f32s(&pairs.iter().map(|p| p.1).collect::<Vec<_>>())
        .into_iter()
        .rev()
        .collect();
    for op in [
        BinaryOp::Add,
        BinaryOp::Multiply,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
    ] {
        let a = f32_out(binary_data(
            op,
            &D::F32(x.clone().into()),
            &D::F32(y.clone().into()),
        ))?;
        let b = f32_out(binary_data(
            op,
            &D::F32(y.clone().into()),
            &D::F32(x.clone().into()),
        ))?;
        for i in 0..a.len() {
            let bitwise = op == BinaryOp::Add || op == BinaryOp::Multiply;
            let ok = if bitwise {
                a[i].to_bits() == b[i].to_bits() || (a[i].is_nan() && b[i].is_nan())
            } else {
                same_value(a[i], b[i])
            };
            if !ok {
                return Err(fail(format!(
                    "{}({:e}, {:e}) not commutative",
                    op, x[i], y[i]
                )));
            }
        }
    }
    let xi: Vec<i32> = pairs.iter().map(|p| p.0 as i32).collect();
    let yi: Vec<i32> = pairs.iter().map(|p| p.1 as i32).collect();
    for op in [
        BinaryOp::Add,
        BinaryOp::Multiply,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Xor,
    ] {
        let a = binary_data(op, &D::S32(xi.clone().into()), &D::S32(yi.clone().into()));
        let b = binary_data(op, &D::S32(yi.clone().into()), &D::S32(xi.clone().into()));
        if a.map_err(|e| fail(e.to_string()))? != b.map_err(|e| fail(e.to_string()))? {
            return Err(fail(format!("s32 {} not commutative", op)));
        }
    }
    let eq1 = compare_data(
        ComparisonDirection::Eq,
        None,
        &D::F32(x.clone().into()),
        &D::F32(y.clone().into()),
    );
    let eq2 = compare_data(
        ComparisonDirection::Eq,
        None,
        &D::F32(y.clone().into()),
        &D::F32(x.clone().into()),
    );
    if eq1.map_err(|e| fail(e.to_string()))? != eq2.map_err(|e| fail(e.to_string()))? {
        return Err(fail("compare EQ not symmetric".into()));
    }
    Ok(())
}

/// De Morgan: not(a and b) = not a or not b, not(a or b) = not a and not b; and
/// a xor b = (a or b) and not(a and b), on U32 and PRED.
fn de_morgan(pairs: Vec<(u32, u32)>) -> Result<(), TestCaseError> {
    let a = D::U32(pairs.iter().map(|p| p.0).collect());
    let b = D::U32(pairs.iter().map(|p| p.1).collect());
    let pa = D::Pred(pairs.iter().map(|p| p.0 & 1 == 1).collect());
    let pb = D::Pred(pairs.iter().map(|p| p.1 & 1 == 1).collect());
    let r = |x: Result<D, xla_spec::Error>| x.map_err(|e| fail(e.to_string()));
    for (a, b) in [(&a, &b), (&pa, &pb)] {
        let not = |d: &D| r(unary_data(UnaryOp::Not, d));
        let and = |x: &D, y: &D| r(binary_data(BinaryOp::And, x, y));
        let or = |x: &D, y: &D| r(binary_data(BinaryOp::Or, x, y));
        if not(&and(a, b)?)? != or(&not(a)?, &not(b)?)? {
            return Err(fail("not(a and b) != not a or not b".into()));
        }
        if not(&or(a, b)?)? != and(&not(a)?, &not(b)?)? {
            return Err(fail("not(a or b) != not a and not b".into()));
        }
        let xor = r(binary_data(BinaryOp::Xor, a, b))?;
        if xor != and(&or(a, b)?, &not(&and(a, b)?)?)? {
            return Err(fail("xor identity".into()));
        }
    }
    Ok(())
}

/// Lossless conversions come back unchanged (bitwise, NaN payloads of F32 → F64 → F32 included).
fn round_trips(bits: Vec<u32>) -> Result<(), TestCaseError> {
    let f = D::F32(f32s(&bits).into());
    let s = D::S32(bits.iter().map(|&b| b as i32).collect());
    let h = D::F16(
        bits.iter()
            .map(|&b| f16::from_bits(b as u16))
            .filter(|x| !x.is_nan())
            .collect(),
    );
    let bh = D::BF16(bits.iter().map(|&b| bf16::from_bits(b as u16)).collect());
    let s8 = D::S8(bits.iter().map(|&b| b as i8).collect());
    let u16s = D::U16(bits.iter().map(|&b| b as u16).collect());
    let c = |d: &D, t: ElementType| convert_data(d, t).map_err(|e| fail(e.to_string()));
    let cases: [(&D, ElementType); 8] = [
        (&f, ElementType::F64),
        (&f, ElementType::C64),
        (&s, ElementType::S64),
        (&s, ElementType::F64),
        (&h, ElementType::F32),
        (&bh, ElementType::F64),
        (&s8, ElementType::F16),
        (&u16s, ElementType::F32),
    ];
    for (d, via) in cases {
        let back = c(&c(d, via)?, d.ty())?;
        let same = match (&back, d) {
            (D::F32(p), D::F32(q)) => p
                .iter()
                .zip(q)
                .all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())),
            (D::BF16(p), D::BF16(q)) => p
                .iter()
                .zip(q)
                .all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())),
            (p, q) => p == q,
        };
        if !same {
            return Err(fail(format!(
                "{} -> {via} -> {} is not lossless",
                d.ty(),
                d.ty()
            )));
        }
    }
    Ok(())
}

/// reduce-precision is idempotent, and on the normal range of F16/BF16 it equals rounding to them.
fn reduce_precision_laws(case: (Vec<u32>, i64, i64)) -> Result<(), TestCaseError> {
    let (bits, e, m) = case;
    let xs = D::F32(f32s(&bits).into());
    let r = |d: &D, e, m| reduce_precision_data(d, e, m).map_err(|er| fail(er.to_string()));
    let once = r(&xs, e, m)?;
    let twice = r(&once, e, m)?;
    let (D::F32(o), D::F32(t)) = (&once, &twice) else {
        return Err(fail("reduce-precision changed the type".into()));
    };
    if o.iter()
        .zip(t)
        .any(|(a, b)| a.to_bits() != b.to_bits() && !(a.is_nan() && b.is_nan()))
    {
        return Err(fail(format!(
            "reduce-precision({e}, {m}) is not idempotent"
        )));
    }
    let D::F32(x) = &xs else { unreachable!() };
    for (fmt_e, fmt_m, lo, hi) in [
        (5i64, 10i64, 2f32.powi(-14), 65504.0f32),
        (8, 7, f32::MIN_POSITIVE, 3.38e38),
    ] {
        let rp = r(&xs, fmt_e, fmt_m)?;
        let D::F32(rp) = rp else { unreachable!() };
        for (v, g) in x.iter().zip(&rp) {
            if v.abs() >= lo && v.abs() <= hi {
                let want = round_to(*v as f64, fmt_e as u32, fmt_m as u32) as f32;
                if g.to_bits() != want.to_bits() {
                    return Err(fail(format!(
                        "reduce-precision({v:e}, {fmt_e}, {fmt_m}) = {g:e}, want {want:e}"
                    )));
                }
            }
        }
    }
    Ok(())
}

pub fn trials() -> Vec<Trial> {
    vec![
        trial(
            "f32_accuracy_whole_range",
            24,
            vec(any::<u32>(), BATCH),
            f32_accuracy,
        ),
        trial(
            "f16_bf16_accuracy_whole_range",
            24,
            vec(any::<u16>(), BATCH),
            half_accuracy,
        ),
        trial(
            "exact_arithmetic_f32_f16_bf16",
            32,
            vec(any::<(u32, u32)>(), BATCH),
            exact_arithmetic,
        ),
        trial(
            "exact_conversions_from_f64",
            32,
            vec(any::<u64>(), BATCH),
            exact_conversions,
        ),
        trial("erf_shape_f32", 16, vec(any::<u32>(), BATCH), erf_shape),
        trial(
            "commutativity",
            32,
            vec(any::<(u32, u32)>(), BATCH),
            commutative,
        ),
        trial("de_morgan", 32, vec(any::<(u32, u32)>(), BATCH), de_morgan),
        trial(
            "convert_round_trips",
            32,
            vec(any::<u32>(), BATCH),
            round_trips,
        ),
        trial(
            "reduce_precision_idempotent",
            32,
            (vec(any::<u32>(), BATCH), 1i64..12, 0i64..26),
            reduce_precision_laws,
        ),
        Trial::test(
            "prop::elementwise::accuracy_vs_mpmath_tables",
            mpmath_tables,
        ),
    ]
}

/// Correctly rounded reference values, generated once with mpmath (300-bit arithmetic) at
/// points spread log-uniformly over each function's domain.
#[rustfmt::skip]
mod table {
// Generated with mpmath at 300 bits (see the module comment); do not edit by hand.
// (opcode, x bits, y bits, correctly rounded result bits)
pub const F64_TABLE: &[(&str, u64, u64, u64)] = &[
    ("Exp", 0xc0610a2b74b95b30, 0, 0x33a42e8702658660),
    ("Exp", 0xc086aa1e75f9911d, 0, 0xcace987),
    ("Exp", 0x407c7b967432a794, 0, 0x69062db1ab86a427),
    ("Exp", 0xc0733455669dcf22, 0, 0x243a0698a5de643a),
    ("Exp", 0xc069c57c9dbb603c, 0, 0x2d578bf5f1516585),
    ("Exp", 0xc07cb627c0acd499, 0, 0x1683001f679bc4c1),
    ("Exp", 0x405409556290c280, 0, 0x4728b14781684e52),
    ("Exp", 0xc07f9b6df30edc6c, 0, 0x12553c5bf3d5e581),
    ("Exp", 0xc0817f7f8f1b5247, 0, 0xd722455a7121549),
    ("Exp", 0xc05c2b38e55d71e0, 0, 0x35c5c370ce917aa4),
    ("Exp", 0x40529ce921aeac50, 0, 0x46a54699eb5130c1),
    ("Exp", 0xc07e7604d5db17af, 0, 0x13fd232e15780e2c),
    ("Exp", 0x404ecf056c3afb10, 0, 0x457dc13952da1c2b),
    ("Exp", 0xc06c37eeb985b0f0, 0, 0x2b93e6307ae5fe41),
    ("Exp", 0x408441e311b3ed9c, 0, 0x7a6276e7b4023f78),
    ("Exp", 0xc082fdb803a884e2, 0, 0x92310734d93def3),
    ("Exp", 0x40853065137d94b2, 0, 0x7d129d97b09ab4d7),
    ("Exp", 0xc061dad915c1098c, 0, 0x330e6b2bc4f3f64f),
    ("Exp", 0xc0239865caa8b280, 0, 0x3f0d24161a3bf5eb),
    ("Exp", 0xc0806ab08a43eb8f, 0, 0x10912630ab3b0754),
    ("Exp", 0x4072dc88c0119610, 0, 0x5b24d773c2ab50ea),
    ("Exp", 0xc07d0bb41c3a2b9c, 0, 0x16072b9de1ee2f4f),
    ("Exp", 0xc06ea286b395768a, 0, 0x29d57e51d267ef2b),
    ("Exp", 0xc0860f578fe32499, 0, 0x47d9c326c9bdd6),
    ("Exp", 0xc06f013d6c0442e6, 0, 0x2991d2e0f6d7e72b),
    ("Exp", 0x4084af0e817d04b8, 0, 0x7b9dbbad614e6c8e),
    ("Exp", 0x4085323b4f70d714, 0, 0x7d176b9d82e15ca5),
    ("Exp", 0x40752d2f38280e7c, 0, 0x5e7c3dd36636ebfd),
    ("Exp", 0xc086f7f443505495, 0, 0x316f),
    ("Exp", 0x4083733ea67cfdb8, 0, 0x780eba3ee8b5716f),
    ("Exp", 0x40804dee42795b3c, 0, 0x6efa3d2ec8dad297),
    ("Exp", 0x40778f05f7432814, 0, 0x61ec0305f2807688),
    ("Exp", 0xc07e0cfd9aa58177, 0, 0x14942eb9bef27b07),
    ("Exp", 0xc0829e99aa687818, 0, 0xa3533e8e3b73cce),
    ("Exp", 0xc0616af560423e60, 0, 0x335f5ed532d5d67a),
    ("Exp", 0x4080f923839f5e08, 0, 0x70e8103373356861),
    ("Exp", 0x40586962c601bae0, 0, 0x48bd54ad450c3218),
    ("Exp", 0x407474ec0cdcc1c0, 0, 0x5d7271b5e00c6724),
    ("Exp", 0xc0792ee98f4b6d25, 0, 0x1b99d90aefe8134f),
    ("Exp", 0x4032b1617a934000, 0, 0x419f4d19e8052cc4),
    ("Expm1", 0xae40f9a44f2efd47, 0, 0xae40f9a44f2efd47),
    ("Expm1", 0x34654cc61ece33dd, 0, 0x34654cc61ece33dd),
    ("Expm1", 0x388d6038b3a90eb7, 0, 0x388d6038b3a90eb7),
    ("Expm1", 0xb411d3a6775d8445, 0, 0xb411d3a6775d8445),
    ("Expm1", 0x8d54aefac9e15ce4, 0, 0x8d54aefac9e15ce4),
    ("Expm1", 0xa23b9579c9905af9, 0, 0xa23b9579c9905af9),
    ("Expm1", 0x44285ef262c35c9, 0, 0x44285ef262c35c9),
    ("Expm1", 0xbf78fcc1cf4ca44c, 0, 0xbf78e949046469b8),
    ("Expm1", 0xb1840eb2f5f50c3, 0, 0xb1840eb2f5f50c3),
    ("Expm1", 0x238c106b81e25c31, 0, 0x238c106b81e25c31),
    ("Expm1", 0x160190190352be35, 0, 0x160190190352be35),
    ("Expm1", 0x2e64f774e8f741c4, 0, 0x2e64f774e8f741c4),
    ("Expm1", 0xc030419d346f9eb3, 0, 0xbfefffffd13e3789),
    ("Expm1", 0xb34013583d0b5717, 0, 0xb34013583d0b5717),
    ("Expm1", 0x98c4fc281e7913cf, 0, 0x98c4fc281e7913cf),
    ("Expm1", 0x31834c8b85d42daf, 0, 0x31834c8b85d42daf),
    ("Expm1", 0x8583f0a2c4614610, 0, 0x8583f0a2c4614610),
    ("Expm1", 0x9621b62ca40f0f36, 0, 0x9621b62ca40f0f36),
    ("Expm1", 0x9c1b9de97ad295a6, 0, 0x9c1b9de97ad295a6),
    ("Expm1", 0x8e52c9b2b4f325c1, 0, 0x8e52c9b2b4f325c1),
    ("Expm1", 0xad92526d196af5b4, 0, 0xad92526d196af5b4),
    ("Expm1", 0x6aeebb059854abe, 0, 0x6aeebb059854abe),
    ("Expm1", 0x3e77329d37c7de56, 0, 0x3e77329d4898f06d),
    ("Expm1", 0xbeeecd6eef460d8, 0, 0xbeeecd6eef460d8),
    ("Expm1", 0xa36b7cfeea4c2079, 0, 0xa36b7cfeea4c2079),
    ("Expm1", 0x1db599e045479cc, 0, 0x1db599e045479cc),
    ("Expm1", 0x20d64d8c9ae15001, 0, 0x20d64d8c9ae15001),
    ("Expm1", 0xa7d801f1162a8634, 0, 0xa7d801f1162a8634),
    ("Expm1", 0x87ad4d47dc63bb2a, 0, 0x87ad4d47dc63bb2a),
    ("Expm1", 0x9b3018607eaebfa4, 0, 0x9b3018607eaebfa4),
    ("Expm1", 0x3daf5fb230a32706, 0, 0x3daf5fb230a41d1a),
    ("Expm1", 0x90f1d4466710b3d9, 0, 0x90f1d4466710b3d9),
    ("Expm1", 0x35d13696a9c229a, 0, 0x35d13696a9c229a),
    ("Expm1", 0x1a77de722b605dda, 0, 0x1a77de722b605dda),
    ("Expm1", 0xac65f37416d8bca1, 0, 0xac65f37416d8bca1),
    ("Expm1", 0x114d1ac3c7b17d59, 0, 0x114d1ac3c7b17d59),
    ("Expm1", 0x2d2643c1eea9e0dc, 0, 0x2d2643c1eea9e0dc),
    ("Expm1", 0x5e73221479c35cc, 0, 0x5e73221479c35cc),
    ("Expm1", 0x8de951fee96240a7, 0, 0x8de951fee96240a7),
    ("Expm1", 0xe5713574528db6a, 0, 0xe5713574528db6a),
    ("Log", 0x7102b7b1135c7269, 0, 0x408102382267f951),
    ("Log", 0x2acaad15e5388fcc, 0, 0xc06d4ee721b97a6c),
    ("Log", 0x26105b2e98be9b20, 0, 0xc071ef0dfd99f37c),
    ("Log", 0x44b31b99d5f1f778, 0, 0x404a6da82a18a540),
    ("Log", 0x5805b723b6d67dba, 0, 0x4070b2ac6ddc8486),
    ("Log", 0x553c5396de27823d, 0, 0x406d87b8545cffc4),
    ("Log", 0x651ad53b9b8d8274, 0, 0x4079c3f1872b103a),
    ("Log", 0x2206dd9bcbee39e8, 0, 0xc074ba91362c26ea),
    ("Log", 0x36d30ef443193ced, 0, 0xc059419287328080),
    ("Log", 0x2efcdeca9f14e671, 0, 0xc0677e44119698c8),
    ("Log", 0x4203287d5a3b3af3, 0, 0x40370dd2c13ad7a0),
    ("Log", 0x49280392344c5868, 0, 0x4059931d99eb9c10),
    ("Log", 0x5009d81fef653574, 0, 0x406653c9501a6d14),
    ("Log", 0xa1d21cab2ad9f07, 0, 0xc082a72622dab575),
    ("Log", 0x2fe3eae7a4286d17, 0, 0xc0663d6f1673a934),
    ("Log", 0x59ea00b6f8a33f3d, 0, 0x40720244621b338c),
    ("Log", 0x60c87a008b44279, 0, 0xc0840fc0ab2728d9),
    ("Log", 0x5e9bb07e0f54e6d6, 0, 0x4075430c9de5b3e2),
    ("Log", 0x57171d1c74110b58, 0, 0x40700d5113cb20c6),
    ("Log", 0x33b31715caaa04e9, 0, 0xc060f5c4b551b470),
    ("Log", 0x3999d1a581e24ce8, 0, 0xc0518e3d53d33e58),
    ("Log", 0x22939e1fe04ecae5, 0, 0xc0745934900eae7f),
    ("Log", 0x5d7c390f90c8c433, 0, 0x40747bba6cdfa0ee),
    ("Log", 0x3d7ecd44d7bf51c5, 0, 0xc03b12269e919420),
    ("Log", 0x22ad2a8ede981223, 0, 0xc07447c50929fb09),
    ("Log", 0x54e66b33b958217, 0, 0xc08451c956cda4f0),
    ("Log", 0x2ca26b4955fca1b1, 0, 0xc06ac1557150d4e4),
    ("Log", 0x74612f8c7f1bdee5, 0, 0x40822cf9ce574f15),
    ("Log", 0x55e0f6e45f56ec3c, 0, 0x406e6b4d55198cbc),
    ("Log", 0x4f94540cd21ae227, 0, 0x4065b0d6ce56799c),
    ("Log", 0x75fbb778d62cae91, 0, 0x4082bb6dcb0e0d63),
    ("Log", 0x575703172a915aa, 0, 0xc08443f2049588ab),
    ("Log", 0x4cb2876e87b798ae, 0, 0x4061b18f90360a38),
    ("Log", 0x19106a345aa09cdf, 0, 0xc07af1ca89e875ba),
    ("Log", 0x331825a1258f442f, 0, 0xc061cc0e52312668),
    ("Log", 0x184ccce64b8e1e9a, 0, 0xc07b78f87613f707),
    ("Log", 0x2d2396da7fab1cbd, 0, 0xc06a0deac43c501e),
    ("Log", 0x71f01ce7fa730f14, 0, 0x40815432be32171f),
    ("Log", 0x5c02ec99ed6aa0ce, 0, 0x4073764148574404),
    ("Log", 0x6b128db26d393c50, 0, 0x407de6b6c83394b6),
    ("Log1p", 0xb0d4ada16d97124, 0, 0xb0d4ada16d97124),
    ("Log1p", 0x35e0c6aeb8d734d2, 0, 0x35e0c6aeb8d734d2),
    ("Log1p", 0x901d4c5372d7c13c, 0, 0x901d4c5372d7c13c),
    ("Log1p", 0x1aacfc8574483a7e, 0, 0x1aacfc8574483a7e),
    ("Log1p", 0x96e370da0369bf94, 0, 0x96e370da0369bf94),
    ("Log1p", 0x90aefaaacc163ec2, 0, 0x90aefaaacc163ec2),
    ("Log1p", 0x8e7f6a17910c704f, 0, 0x8e7f6a17910c704f),
    ("Log1p", 0x1561439769e5588f, 0, 0x1561439769e5588f),
    ("Log1p", 0x6c5166431376edb2, 0, 0x407ec37e5b35ec92),
    ("Log1p", 0xaa96203f9667ab12, 0, 0xaa96203f9667ab12),
    ("Log1p", 0x7bd1b735a04771fb, 0, 0x4084c11849b8ab9d),
    ("Log1p", 0x4af35e779a66f9f4, 0, 0x405e8bd6de6a6d30),
    ("Log1p", 0x9d071df4a49c81a0, 0, 0x9d071df4a49c81a0),
    ("Log1p", 0xb7b650157b9a51ec, 0, 0xb7b650157b9a51ec),
    ("Log1p", 0x55a150e6e00439b8, 0, 0x406e133c55e84e00),
    ("Log1p", 0x9ce7b324f2c18913, 0, 0x9ce7b324f2c18913),
    ("Log1p", 0x28aa657b91dd58c1, 0, 0x28aa657b91dd58c1),
    ("Log1p", 0x30f3243d50738267, 0, 0x30f3243d50738267),
    ("Log1p", 0x3e35bb4dbcc6a2d3, 0, 0x3e35bb4dbbda80ed),
    ("Log1p", 0x5ca4064366e6da2, 0, 0x5ca4064366e6da2),
    ("Log1p", 0x9e539565fe689c7b, 0, 0x9e539565fe689c7b),
    ("Log1p", 0x8fbe03ab92e419f, 0, 0x8fbe03ab92e419f),
    ("Log1p", 0xb283d616f9b4ef2b, 0, 0xb283d616f9b4ef2b),
    ("Log1p", 0x90b380aa5797dd6e, 0, 0x90b380aa5797dd6e),
    ("Log1p", 0x74bbfdad1b37b9a5, 0, 0x40824c9aa6009299),
    ("Log1p", 0x15814c05cb45b754, 0, 0x15814c05cb45b754),
    ("Log1p", 0x52b231e83a22055e, 0, 0x406a0253a2e7c76c),
    ("Log1p", 0x8943dff5715ec991, 0, 0x8943dff5715ec991),
    ("Log1p", 0x8ef370b90fb9b27c, 0, 0x8ef370b90fb9b27c),
    ("Log1p", 0x98b36245fa91db93, 0, 0x98b36245fa91db93),
    ("Log1p", 0xa4a9ce6804e8bd17, 0, 0xa4a9ce6804e8bd17),
    ("Log1p", 0x6d66dc2e04154d9f, 0, 0x407f8465986fc4ae),
    ("Log1p", 0xa197505eb6cc6e3c, 0, 0xa197505eb6cc6e3c),
    ("Log1p", 0x1f65e92ae38c7ef8, 0, 0x1f65e92ae38c7ef8),
    ("Log1p", 0x3627836c6400f1f8, 0, 0x3627836c6400f1f8),
    ("Log1p", 0x38fc10e806f78682, 0, 0x38fc10e806f78682),
    ("Log1p", 0xaf07998a90deece3, 0, 0xaf07998a90deece3),
    ("Log1p", 0x2250d31e992109b4, 0, 0x2250d31e992109b4),
    ("Log1p", 0xa1d20c561938396b, 0, 0xa1d20c561938396b),
    ("Log1p", 0xbc2ff29cb08c6fae, 0, 0xbc2ff29cb08c6fae),
    ("Sin", 0x4175209136fcf413, 0, 0xbfebef59a42e7341),
    ("Sin", 0x411aa6363d94765b, 0, 0x3fc0658bfb67f9dd),
    ("Sin", 0x3fec07e6385589b2, 0, 0x3fe894c6e10391bf),
    ("Sin", 0x40c4f9314391a81d, 0, 0x3fda2a76bcd32cbd),
    ("Sin", 0xbe55c5ec01cfdda1, 0, 0xbe55c5ec01cfdda1),
    ("Sin", 0xbf291410c0ad8ad3, 0, 0xbf291410be1c5ba0),
    ("Sin", 0xbdf1d0b6e70f5759, 0, 0xbdf1d0b6e70f5759),
    ("Sin", 0xc1f4102c62779860, 0, 0x3fe4e7ea6c2d92df),
    ("Sin", 0x3f9098de3eecab94, 0, 0x3f9098ae9f4356f6),
    ("Sin", 0x41051027e32a18f8, 0, 0x3fc341a6e482a6dc),
    ("Sin", 0x3f56e6573bb7360e, 0, 0x3f56e656bea036e9),
    ("Sin", 0xbfe5c9707c8a5e89, 0, 0xbfe4246b7c972478),
    ("Sin", 0xbff17c92b8ad7708, 0, 0xbfec6a4130159984),
    ("Sin", 0xc1a2b408feacedce, 0, 0xbfb37a25f105c92f),
    ("Sin", 0xc0d22cd2cab07622, 0, 0xbfde9ccdce5b2f14),
    ("Sin", 0xc076451a8b6bed5b, 0, 0x3feefdb2f4bbf72a),
    ("Sin", 0xc145e87b471fff74, 0, 0xbfede69f2608af42),
    ("Sin", 0xc180de03c4d848d1, 0, 0x3fe134e87b4b8f49),
    ("Sin", 0x3eaf117c558d4e37, 0, 0x3eaf117c558d4955),
    ("Sin", 0xc1827591d6281ef8, 0, 0x3fd2be593fbb8ee9),
    ("Sin", 0x422a36edc4f783ae, 0, 0x3fd871da73c01b9a),
    ("Sin", 0x3f7e37de80b33b8d, 0, 0x3f7e37cc89c9fb90),
    ("Sin", 0x3fe49f334beaea06, 0, 0x3fe3394f2e181f73),
    ("Sin", 0xbfe1bfa6580b2e5c, 0, 0xbfe0da3eefcb3c6a),
    ("Sin", 0x41b24856e72a310f, 0, 0x3fdc88c3fa3fc440),
    ("Sin", 0xc1141195d31a8b2b, 0, 0xbfb5f31756207402),
    ("Sin", 0x3ea9ee3c9847c5f6, 0, 0x3ea9ee3c9847c320),
    ("Sin", 0xbeb0e5f71a206d11, 0, 0xbeb0e5f71a2069ed),
    ("Sin", 0x4298c43a98e4735a, 0, 0x3fd8b18b9795aa43),
    ("Sin", 0xbf79d743cc013b14, 0, 0xbf79d7389021c1df),
    ("Sin", 0x3f8071bb28e13d1e, 0, 0x3f8071af9462e3a9),
    ("Sin", 0xbf21c436b19a41aa, 0, 0xbf21c436b0b097bb),
    ("Sin", 0x403bdcb3384770a4, 0, 0x3fd9a4385e0bf11f),
    ("Sin", 0x3fe461b41e66d6e9, 0, 0x3fe30802124173c3),
    ("Sin", 0x41d6d1def936de87, 0, 0xbfedbf7670810744),
    ("Sin", 0xc170ef12b1c3e446, 0, 0xbfefed34e876a5df),
    ("Sin", 0xc2872833b6e7cc23, 0, 0xbfeffd179ae58ef0),
    ("Sin", 0x3e8b3a9dea6681e4, 0, 0x3e8b3a9dea6681af),
    ("Sin", 0xbdea1ba674796506, 0, 0xbdea1ba674796506),
    ("Sin", 0xbf0ecc2a8e09fc88, 0, 0xbf0ecc2a8dbdea7d),
    ("Cos", 0xbf06a8f746ce126f, 0, 0x3fefffffff7fa17f),
    ("Cos", 0xc0685b3f4384aba9, 0, 0x3fefea582171bff8),
    ("Cos", 0xc0f27d65f9fbfb2c, 0, 0xbfefffffa929a487),
    ("Cos", 0x3f840f60290811f4, 0, 0x3fefff9b663801a1),
    ("Cos", 0x3ed26dd403eb2d5a, 0, 0x3feffffffffeac5f),
    ("Cos", 0xc1870b82edbf7547, 0, 0x3fee65b17a1366c7),
    ("Cos", 0xc1c5ead934b09946, 0, 0xbfe808a71ee51940),
    ("Cos", 0x3e8210003b2bf503, 0, 0x3fefffffffffffae),
    ("Cos", 0x4146e18a7adc3c87, 0, 0xbfe6d31c87abb1fd),
    ("Cos", 0xbf9b5790707e506a, 0, 0x3feffd1474f39499),
    ("Cos", 0xc13f350ec13ee126, 0, 0xbfeff429183c7ebd),
    ("Cos", 0xc2c8b1656c761ef9, 0, 0xbfea6dd14fa751ea),
    ("Cos", 0x3f77c1ded0d55fff, 0, 0x3fefffdcb978c735),
    ("Cos", 0x3df7965c5df48c32, 0, 0x3ff0000000000000),
    ("Cos", 0xc022013a9f91d1bc, 0, 0xbfed300fbccf7dff),
    ("Cos", 0x3f147183f1a42856, 0, 0x3feffffffe5e110d),
    ("Cos", 0xc1695a417d6f5568, 0, 0xbfeff97449c964e6),
    ("Cos", 0x407434d8196b1813, 0, 0xbfeebe0d1bd8a3db),
    ("Cos", 0x3ee18e240b259842, 0, 0x3feffffffffb2f41),
    ("Cos", 0xc24850efe16c3f29, 0, 0x3fe48b99582dd045),
    ("Cos", 0xbe19f23580138b94, 0, 0x3ff0000000000000),
    ("Cos", 0xc297e14314c1dc98, 0, 0xbfe9fd14e18fd9ef),
    ("Cos", 0xbf11cdaaee4f5596, 0, 0x3feffffffec30a11),
    ("Cos", 0x420eaba166902779, 0, 0xbfeef56c6912b81c),
    ("Cos", 0x3e0af4be9da32a5b, 0, 0x3ff0000000000000),
    ("Cos", 0x40de1a8678f8d1a9, 0, 0x3fe66e7b3cdd7e97),
    ("Cos", 0xc2d0aebfe6dc394a, 0, 0xbfc093f1e02fa6ff),
    ("Cos", 0x4089d0dcfbaabdc0, 0, 0xbfefb9d86b21ac0d),
    ("Cos", 0xbe6650949f4fe072, 0, 0x3feffffffffffff8),
    ("Cos", 0x41b49654450174fe, 0, 0xbfe400e147989b3b),
    ("Cos", 0x420bd5f1ef86e236, 0, 0x3feec1e027c458ac),
    ("Cos", 0x42b35de0e6fcb207, 0, 0xbfaced7393d0adc5),
    ("Cos", 0x3ef4c15ef55eb226, 0, 0x3fefffffffe51372),
    ("Cos", 0x3f93e6704a0d5d37, 0, 0x3feffe73ff17d9f8),
    ("Cos", 0x3eb3602e78aa69a0, 0, 0x3fefffffffffe889),
    ("Cos", 0xc0b8ecf90a3daccb, 0, 0xbfed7f4633633cff),
    ("Cos", 0x3e8ac90b11300110, 0, 0x3fefffffffffff4d),
    ("Cos", 0xbe9f4003c70600b0, 0, 0x3feffffffffffc2f),
    ("Cos", 0xbe91311dbc110674, 0, 0x3feffffffffffed8),
    ("Cos", 0xc0be24fc0858ccdf, 0, 0x3fd536a628aa09df),
    ("Tan", 0x42b810bf144cb6f2, 0, 0xbff7683f49a793b6),
    ("Tan", 0xc181764068993f94, 0, 0x3fdc61293f2044a9),
    ("Tan", 0x3fc4ece04d5688cd, 0, 0x3fc51d1d0585f6af),
    ("Tan", 0x3ee8066be81bf49b, 0, 0x3ee8066be8207839),
    ("Tan", 0xc2a3a9eb64471303, 0, 0xc00a2db6f2eda8f0),
    ("Tan", 0xbebd93f8d2f5ddcf, 0, 0xbebd93f8d2f5ff81),
    ("Tan", 0xbed168f5aca16ff8, 0, 0xbed168f5aca1dde9),
    ("Tan", 0xc0e6a2dd17944466, 0, 0xc075d1d54f091816),
    ("Tan", 0xc0003290b48a2f0a, 0, 0x400065debfd72d12),
    ("Tan", 0x41969f240d83b548, 0, 0xbfb3f99179645ac9),
    ("Tan", 0x3e7c8bb0ae431c16, 0, 0x3e7c8bb0ae431c34),
    ("Tan", 0xbe8b528ac27145a0, 0, 0xbe8b528ac271460a),
    ("Tan", 0xc20a174533fdc935, 0, 0x3fe9ab77a42f74d1),
    ("Tan", 0x4129c9c514b40a93, 0, 0x3ff64d55e2811a63),
    ("Tan", 0xbf4dfeda869e9aea, 0, 0xbf4dfedb132e7fa3),
    ("Tan", 0xc1570066a45c6cdb, 0, 0xbff6ac249f0d9b2a),
    ("Tan", 0xc0c19ff469d2ceb5, 0, 0xc008843473486c7c),
    ("Tan", 0x40e9bd6a5d040ae9, 0, 0xbfe5eef37cc3a373),
    ("Tan", 0x3fcbe8480bbf52a7, 0, 0x3fcc5bad9f75eaf6),
    ("Tan", 0xbf6009b3aa7dde81, 0, 0xbf6009b50241b9cc),
    ("Tan", 0xc18d54897ad93397, 0, 0x402c6d395a82bc2b),
    ("Tan", 0x4032bc060ce98f74, 0, 0xbfbd97ecb879e345),
    ("Tan", 0x3e66d2f44506a263, 0, 0x3e66d2f44506a267),
    ("Tan", 0x40e83765da5df01a, 0, 0xc0016be83af89b64),
    ("Tan", 0xc07df87c7035aad9, 0, 0x40011a95dc27ffc6),
    ("Tan", 0x42984d154eaa544a, 0, 0x3fe318c8e9676624),
    ("Tan", 0xc2c456ea66b0a785, 0, 0x3f9b7ebe8b9246cb),
    ("Tan", 0xc212e80232871995, 0, 0xc009d138478b604a),
    ("Tan", 0x3ef1414b8e9816db, 0, 0x3ef1414b8e9ec758),
    ("Tan", 0xc1310d15b7399765, 0, 0xbfd764ac4d110f71),
    ("Tan", 0x3e6306d0c9b2e6c9, 0, 0x3e6306d0c9b2e6cb),
    ("Tan", 0xc2c57d8ed0b6fe5d, 0, 0xbfd39b7a1b50adc9),
    ("Tan", 0xbf3683b8c29a0750, 0, 0xbf3683b8d17644b2),
    ("Tan", 0xbf67e0b46cb7c80f, 0, 0xbf67e0b8db352c3f),
    ("Tan", 0xbded0063319844bb, 0, 0xbded0063319844bb),
    ("Tan", 0xbf05ccca2f92c057, 0, 0xbf05ccca2fc8b5e8),
    ("Tan", 0xbdfd1610d28f7e5c, 0, 0xbdfd1610d28f7e5c),
    ("Tan", 0x3e60c5cccf0b5d1a, 0, 0x3e60c5cccf0b5d1c),
    ("Tan", 0x3e381d17399a63bc, 0, 0x3e381d17399a63bc),
    ("Tan", 0x3eaaa4000b0ca52e, 0, 0x3eaaa4000b0cab56),
    ("Tanh", 0x9f09a0ffc241110a, 0, 0x9f09a0ffc241110a),
    ("Tanh", 0xa94f7ca2cf265ba9, 0, 0xa94f7ca2cf265ba9),
    ("Tanh", 0x3705aaba92957856, 0, 0x3705aaba92957856),
    ("Tanh", 0x8aab9474967a435f, 0, 0x8aab9474967a435f),
    ("Tanh", 0x980172fe57e5a5e9, 0, 0x980172fe57e5a5e9),
    ("Tanh", 0x1a1240ed5ebb6700, 0, 0x1a1240ed5ebb6700),
    ("Tanh", 0x972b9d31eb6e6686, 0, 0x972b9d31eb6e6686),
    ("Tanh", 0x9f915db4f5db1d19, 0, 0x9f915db4f5db1d19),
    ("Tanh", 0x98ae625310c22a28, 0, 0x98ae625310c22a28),
    ("Tanh", 0x665e9257fda722b, 0, 0x665e9257fda722b),
    ("Tanh", 0x8286992eaf6c8fb, 0, 0x8286992eaf6c8fb),
    ("Tanh", 0x95e42daa110c9b23, 0, 0x95e42daa110c9b23),
    ("Tanh", 0x2a41cccc959cefe9, 0, 0x2a41cccc959cefe9),
    ("Tanh", 0x126f824325a0268f, 0, 0x126f824325a0268f),
    ("Tanh", 0x94343e57888efaf, 0, 0x94343e57888efaf),
    ("Tanh", 0x39efc721eca26d03, 0, 0x39efc721eca26d03),
    ("Tanh", 0x1b2c700dc749d135, 0, 0x1b2c700dc749d135),
    ("Tanh", 0x2680df4aefef46c0, 0, 0x2680df4aefef46c0),
    ("Tanh", 0x16614d3f0a4b930d, 0, 0x16614d3f0a4b930d),
    ("Tanh", 0x12b784728b9e28d2, 0, 0x12b784728b9e28d2),
    ("Tanh", 0x8d3629e71990138d, 0, 0x8d3629e71990138d),
    ("Tanh", 0xbc0ec51151ce1f04, 0, 0xbc0ec51151ce1f04),
    ("Tanh", 0x1894f8470b0e6a4d, 0, 0x1894f8470b0e6a4d),
    ("Tanh", 0x31c63b9f632d955c, 0, 0x31c63b9f632d955c),
    ("Tanh", 0xa3c639ec95483cc1, 0, 0xa3c639ec95483cc1),
    ("Tanh", 0xb472c8af846ae9de, 0, 0xb472c8af846ae9de),
    ("Tanh", 0x1cd67611f71f43e9, 0, 0x1cd67611f71f43e9),
    ("Tanh", 0x44448dcc7f61c14, 0, 0x44448dcc7f61c14),
    ("Tanh", 0x8b53eee5a3adfb2a, 0, 0x8b53eee5a3adfb2a),
    ("Tanh", 0x2521555918550cb6, 0, 0x2521555918550cb6),
    ("Tanh", 0x15915c99039246b3, 0, 0x15915c99039246b3),
    ("Tanh", 0x35e191c53416d712, 0, 0x35e191c53416d712),
    ("Tanh", 0x23e0971f49a07d09, 0, 0x23e0971f49a07d09),
    ("Tanh", 0x15e07ff49ad58e77, 0, 0x15e07ff49ad58e77),
    ("Tanh", 0x32a6eb37492af3eb, 0, 0x32a6eb37492af3eb),
    ("Tanh", 0xaf6de2d56d082266, 0, 0xaf6de2d56d082266),
    ("Tanh", 0x73767b0b1e79c17, 0, 0x73767b0b1e79c17),
    ("Tanh", 0x95b0bb8a4c38c43d, 0, 0x95b0bb8a4c38c43d),
    ("Tanh", 0x97556c25f9d8066f, 0, 0x97556c25f9d8066f),
    ("Tanh", 0xb3839145eab9657e, 0, 0xb3839145eab9657e),
    ("Cbrt", 0xc3df5006212c84e5, 0, 0xc13fc4ea8c5f5c0d),
    ("Cbrt", 0x2bd76b80f186b259, 0, 0x393cd679078cfa73),
    ("Cbrt", 0x6c90ca59128c6006, 0, 0x4ed0425e3de0aa49),
    ("Cbrt", 0xf904a693e40baba0, 0, 0xd2f5f2c5f1a50d38),
    ("Cbrt", 0x4932f8fe79023aae, 0, 0x43055642f1431a2f),
    ("Cbrt", 0x571fa4bafbbbd538, 0, 0x47a94dc1efc2e7f7),
    ("Cbrt", 0x2da4ffd8e12a749a, 0, 0x39d61239220d5847),
    ("Cbrt", 0xe79ebc8245877258, 0, 0xcd290f41fc135cd3),
    ("Cbrt", 0xdc154c3c3cc49ae, 0, 0x2f34b3f436410e81),
    ("Cbrt", 0xad9501ecc8f2e72b, 0, 0xb9d18529acd74a5e),
    ("Cbrt", 0xb82e59500691a9dd, 0, 0xbd58f42f66d9d537),
    ("Cbrt", 0xfa41470aed033e00, 0, 0xd3606a3c2cfbb8ab),
    ("Cbrt", 0x54a05657db275b03, 0, 0x46d44ca5899c748d),
    ("Cbrt", 0xca868d8b4d1d14ea, 0, 0xc3769a40e92784a1),
    ("Cbrt", 0x19f6c797155a0453, 0, 0x3346ad9488010cc6),
    ("Cbrt", 0xd6226b5471ebea3e, 0, 0xc75520a17143edee),
    ("Cbrt", 0x523449c6e6ccddde, 0, 0x4605d1b39a54acba),
    ("Cbrt", 0x6e137a5c71021a4e, 0, 0x4f51158df2468388),
    ("Cbrt", 0xac2a3c5ab8dd2079, 0, 0xb957c579a7feb0dd),
    ("Cbrt", 0xe492b138869a11ab, 0, 0xcc253b38d825796b),
    ("Cbrt", 0x6fdca2009c2d3534, 0, 0x4fe8796fc153faca),
    ("Cbrt", 0x9e2440339feec589, 0, 0xb4ab79372b228455),
    ("Cbrt", 0x9e84f76d2e1f564c, 0, 0xb4cbcb1dbf8a1b2a),
    ("Cbrt", 0xdd60a37955f1cb6a, 0, 0xc9c035c8349be568),
    ("Cbrt", 0xf73be1d8985d812d, 0, 0xd25e905d125884c0),
    ("Cbrt", 0x79a98ad34dab3889, 0, 0x532daf0f5f1cb4b4),
    ("Cbrt", 0x9292212d3b264c79, 0, 0xb0d0ae360290b5d6),
    ("Cbrt", 0xf7d4f44ee9d7541c, 0, 0xd291815fca22ff5f),
    ("Cbrt", 0x29c71e4c9c014662, 0, 0x388cb6a5c963ea4f),
    ("Cbrt", 0x125c0b1a875baf0f, 0, 0x30be9f68eb6d6565),
    ("Cbrt", 0x5a2e6bac77a69ab3, 0, 0x48af76f1c144acb1),
    ("Cbrt", 0xb7c94e5a7ca12c8f, 0, 0xbd377cba331e44b9),
    ("Cbrt", 0xab054308ecc38a05, 0, 0xb8f629aa2c2082ec),
    ("Cbrt", 0x2d21b875b694e433, 0, 0x39aa472b2fa8c763),
    ("Cbrt", 0x36c6759136f09c92, 0, 0x3ce1ea2fabbc551f),
    ("Cbrt", 0x90351277e2a8ba52, 0, 0xb00618bd4f93fed6),
    ("Cbrt", 0x46f0f4a7e77ef021, 0, 0x42448d67bafa18b1),
    ("Cbrt", 0xfb08f556f9f1c3db, 0, 0xd3a28e58b6d08cb3),
    ("Cbrt", 0x23e4ead9dd42177a, 0, 0x36960adb8f5091c6),
    ("Cbrt", 0xe2e4aa92c0714786, 0, 0xcb95f4303b22a9f7),
    ("Erf", 0xa508c0b27c5cd14c, 0, 0xa50bee32767665c0),
    ("Erf", 0x30989dbab46dd387, 0, 0x309bc6bd75a61f00),
    ("Erf", 0xa01311edd24e595e, 0, 0xa01584aabe67c67f),
    ("Erf", 0xb8ca5f5ece76a5d5, 0, 0xb8cdc21b0b21d4f0),
    ("Erf", 0xb39879fd9322f721, 0, 0xb39b9e69c596246e),
    ("Erf", 0x346e05a191d3440, 0, 0x349d02f7ef0f225),
    ("Erf", 0x2df08ca7b95dfffd, 0, 0x2df2ac8dade252d2),
    ("Erf", 0x85946d799261d819, 0, 0x85970cd49cff0b80),
    ("Erf", 0xb1a389f334a1b9cf, 0, 0xb1a60c18a087de8d),
    ("Erf", 0x2f2233599aee6424, 0, 0x2f248983746aa8e3),
    ("Erf", 0x83a5c17d477a5b1e, 0, 0x83a88c7eeb592e49),
    ("Erf", 0xb9636e99dee67900, 0, 0xb965ed3c7775ecf4),
    ("Erf", 0x24caa8686d9d4f82, 0, 0x24ce14850cde4dfd),
    ("Erf", 0x95b02fca704e3f00, 0, 0x95b243c46635e221),
    ("Erf", 0x33cc9c9dbc102948, 0, 0x33d02478dde45da9),
    ("Erf", 0xb5995fca27aacc3c, 0, 0xb59ca1b6b75569f6),
    ("Erf", 0x2450535525fb65e3, 0, 0x24526bdf31967d58),
    ("Erf", 0x2d1119aed3d91e26, 0, 0x2d134bafab453b3b),
    ("Erf", 0x9be86fb2bd6755e8, 0, 0x9beb92ccadd42d8c),
    ("Erf", 0xb7dbfe400a0f6731, 0, 0xb7df963f5441d0b2),
    ("Erf", 0x8dbedb7940c5dacc, 0, 0x8dc168ccfdad3051),
    ("Erf", 0x1eed51be1ca1bdfe, 0, 0x1ef08aa96c154f3a),
    ("Erf", 0xb9a31e7eeb97e8c3, 0, 0xb9a592d8d9dbe131),
    ("Erf", 0x3e70694acd66a076, 0, 0x3e7284a68d0a47b7),
    ("Erf", 0x8fb25d9cccf5c407, 0, 0x8fb4b9339c068aed),
    ("Erf", 0xae2b4ebceeec897c, 0, 0xae2ed03401526421),
    ("Erf", 0xaf34f6a9e2394d3c, 0, 0xaf37a7a1a43babe1),
    ("Erf", 0xaf3fd12b155d6302, 0, 0xaf41f36b4aabd2d5),
    ("Erf", 0x3b4a36f0aae942db, 0, 0x3b4d947c299315f9),
    ("Erf", 0x3b1a04b88e3d1dcf, 0, 0x3b1d5bd197ec3586),
    ("Erf", 0xbdaca14ca5ff582a, 0, 0xbdb0271d480ce3fb),
    ("Erf", 0x29adb01bc1179db3, 0, 0x29b0bfe6e9944472),
    ("Erf", 0x16d8af858c0361fa, 0, 0x16dbdad10c6c79f6),
    ("Erf", 0x26548fd71f5ea93, 0, 0x2680486ddb47a20),
    ("Erf", 0x11b601af9299ea17, 0, 0x11b8d4ef089f90f4),
    ("Erf", 0x919d39e42de9b68c, 0, 0x91a07d3484c8c1e9),
    ("Erf", 0x8f1c1d9558f24c98, 0, 0x8f1fb99a67f8ac24),
    ("Erf", 0x3f9a4c9b72e84d90, 0, 0x3f9dab43836f9b25),
    ("Erf", 0x2e10cf41a4843f3e, 0, 0x2e12f7b473bec7ba),
    ("Erf", 0xd316ddbfcc73457, 0, 0xd33aaab4ac76bdc),
    ("Logistic", 0xc034bc2057fc3a40, 0, 0x3e10fb4feedf783d),
    ("Logistic", 0xc049c9a0bac6f760, 0, 0x3b4820fea1cf7440),
    ("Logistic", 0xc083c0ca905cbdc4, 0, 0x6f0d7b23fdb4cb0),
    ("Logistic", 0xc05cd3ccc508bcf8, 0, 0x3588ff7b22959638),
    ("Logistic", 0xc083eb4b215beda3, 0, 0x6753fbedae161e8),
    ("Logistic", 0xc07b2906d784dbc3, 0, 0x18c0a3604f590e30),
    ("Logistic", 0x4043eccf2f9d8f40, 0, 0x3ff0000000000000),
    ("Logistic", 0xc04889cdf100e2d0, 0, 0x3b8258b71862391d),
    ("Logistic", 0xc083564e06d97d23, 0, 0x82364a8153f1baa),
    ("Logistic", 0xc07185dacdc47e2c, 0, 0x26a6e73a18395d7f),
    ("Logistic", 0xc0784c6d9bb81e1b, 0, 0x1ce14fdc256d0f49),
    ("Logistic", 0xc0690d837d0ee33c, 0, 0x2ddcdff4c87688b2),
    ("Logistic", 0xc05025b2a52e9af8, 0, 0x3a1c33ba424dba5f),
    ("Logistic", 0xc071f54cc9f7b1c9, 0, 0x2606240a7253c938),
    ("Logistic", 0xc0247186065d2380, 0, 0x3f03118506bb8334),
    ("Logistic", 0xc04255662456eb80, 0, 0x3ca1275421a70fd6),
    ("Logistic", 0xc082183ace47b23e, 0, 0xbb8e6b82b00624d),
    ("Logistic", 0xc0848ece6ae58e5d, 0, 0x49e5077b60dbf89),
    ("Logistic", 0xc0814beb8b4ffed7, 0, 0xe065b9734a1b895),
    ("Logistic", 0xc074425529ba6129, 0, 0x22b47c143d26b32d),
    ("Logistic", 0xc0673702988434a0, 0, 0x2f30b9dd2a4c5016),
    ("Logistic", 0xc050f2ed7adb1908, 0, 0x39d245279bcd0c94),
    ("Logistic", 0xc063e00e341e9b74, 0, 0x3198672b8ca798f6),
    ("Logistic", 0xc06af945a956cb86, 0, 0x2c79a7ca9e699e82),
    ("Logistic", 0xc06fe8de0b398606, 0, 0x28ea3a2380107059),
    ("Logistic", 0xc06afecbe585b078, 0, 0x2c75966d5360b26a),
    ("Logistic", 0xc0793eb1a31a282c, 0, 0x1b83477958292b7a),
    ("Logistic", 0xc06a30e9851a3414, 0, 0x2d0a4015a98887e4),
    ("Logistic", 0xc0544ab2c7690650, 0, 0x389dde4213d475cb),
    ("Logistic", 0xc0508e06555b7770, 0, 0x39f6199f3a5ac7f0),
    ("Logistic", 0xc065076c4c587748, 0, 0x30c398de1e92f832),
    ("Logistic", 0xc069016e099265f0, 0, 0x2de50fb7644937cf),
    ("Logistic", 0xc08433c1c5a5a5fc, 0, 0x5a445e7462a38ca),
    ("Logistic", 0xc07c94e76ca9eace, 0, 0x16b2fa1cbe82c1ba),
    ("Logistic", 0xc076ad91ec2393d9, 0, 0x1f36f4c60d5a0590),
    ("Logistic", 0xc07d8c74f3bd7e34, 0, 0x154e5f8952f87346),
    ("Logistic", 0xc0814a4f167b247b, 0, 0xe0b5890fe49ea0d),
    ("Logistic", 0xc07a6bdeb8e305e4, 0, 0x19d14bdb214bad77),
    ("Logistic", 0xc054ce78e26f86e8, 0, 0x386e7c6e19201b30),
    ("Logistic", 0xc07f642eec601252, 0, 0x12a4f6f4be2ce10b),
    ("Rsqrt", 0x76310356581626cf, 0, 0x24cf085ca7001ee9),
    ("Rsqrt", 0x27062b36641f83c, 0, 0x5eaf9f0c44d58c96),
    ("Rsqrt", 0x3635d2faab1b2e83, 0, 0x44cb66409f5ef688),
    ("Rsqrt", 0x5b80ff6783bea4ec, 0, 0x3225f40cdd4587c4),
    ("Rsqrt", 0x5fae624492992147, 0, 0x30106b85ff6699c1),
    ("Rsqrt", 0x32274a694abd580, 0, 0x5e55117e0a2ba08d),
    ("Rsqrt", 0xffeb9212ee8bb38, 0, 0x57e717c330945546),
    ("Rsqrt", 0xa770b5f99d1336e, 0, 0x5aaaaa02c6119ab2),
    ("Rsqrt", 0x480d2b8a47d52c4f, 0, 0x3be0c2165d8748e7),
    ("Rsqrt", 0xd726b8e49dfa1b8, 0, 0x592dd2e6f03c6cde),
    ("Rsqrt", 0x3305ed203aca779f, 0, 0x466354429c358370),
    ("Rsqrt", 0x24ced312d29a582f, 0, 0x4d804d5eaed99a5c),
    ("Rsqrt", 0xe698eae10b64362, 0, 0x58b1e7498cbaf625),
    ("Rsqrt", 0x3052fce5bb9405f3, 0, 0x47bd5fe4bd3db737),
    ("Rsqrt", 0x37e615ca510a12bd, 0, 0x43f3426ee09a6495),
    ("Rsqrt", 0x49b2532fe199861e, 0, 0x3b0de6b4dd19c76f),
    ("Rsqrt", 0x2ca8473cc838b84b, 0, 0x49925e78631e123b),
    ("Rsqrt", 0xa3ad7e52904808e, 0, 0x5ac8b4945943f615),
    ("Rsqrt", 0x2aa12b715b85de57, 0, 0x4a95d7d34e17125a),
    ("Rsqrt", 0x581d3c349ffd5d17, 0, 0x33d7ac574de25c15),
    ("Rsqrt", 0x2177552bf42a48d, 0, 0x5eda6d874782f0b9),
    ("Rsqrt", 0x42a6d97c5d64b34e, 0, 0x3e92ef41df121b0f),
    ("Rsqrt", 0x414293d1f11395f, 0, 0x5ddc81d10a3e990a),
    ("Rsqrt", 0x6d4e989e174b48f5, 0, 0x29405cea056d1c2a),
    ("Rsqrt", 0x1a251b8b20e14bf9, 0, 0x52d3b34f279e7053),
    ("Rsqrt", 0x44200b979f021383, 0, 0x3dd698706b445f87),
    ("Rsqrt", 0xd0728260fa70330, 0, 0x5962cefd67011f97),
    ("Rsqrt", 0x45d35c0317b87394, 0, 0x3cfd176244e496cf),
    ("Rsqrt", 0x646967a4c1ea95c6, 0, 0x2db1f5058dd3b9fb),
    ("Rsqrt", 0x7394172007bb696a, 0, 0x261c8ea80a0ed573),
    ("Rsqrt", 0x6405bdab4ab9a69d, 0, 0x2de3694fc3bdb644),
    ("Rsqrt", 0x70f9b6fc9248f4c0, 0, 0x27693ddf8a2f53e5),
    ("Rsqrt", 0x29e78d10a98a538, 0, 0x5e973014f7cb8626),
    ("Rsqrt", 0x66065e93dc995887, 0, 0x2ce322ffba612ee2),
    ("Rsqrt", 0x7c1411a82d934e2, 0, 0x5c05ca190d564546),
    ("Rsqrt", 0x6e17e5df559fc44e, 0, 0x28da2f01f0822098),
    ("Rsqrt", 0x7dc30f9eb343e69c, 0, 0x2104bb28264ecff1),
    ("Rsqrt", 0x5b0bf36ed02184b4, 0, 0x32611ea6da27f0bd),
    ("Rsqrt", 0x4d2e8841a863e69a, 0, 0x3950614bc6259e4f),
    ("Rsqrt", 0x5cfccba7c7c5c7f6, 0, 0x3167da6e28f82da3),
    ("Power", 0x3f6b29b222d7db05, 0x40422be9de2e3568, 0x2d3953b2bea857f3),
    ("Power", 0x3f6b681dab7b71e5, 0xc03a203c5a7abf53, 0x4d5ccaf6da6a6dc4),
    ("Power", 0x3fa55d75591681f8, 0x4032c2246372aa78, 0x3a90612709eb3500),
    ("Power", 0x3fcd6e53d610a64f, 0xc026d248b9b627b0, 0x41725e307901639d),
    ("Power", 0x3ff071e44281230c, 0x4039548e93199bb8, 0x40000667557063f0),
    ("Power", 0x405b58ca0d060ed1, 0x4041415cb94e41a6, 0x4e8aed62ee815aba),
    ("Power", 0x3fa9a264589753e4, 0xc0466126163c77b4, 0x4c0483734f380137),
    ("Power", 0x3f6e271d75d4695a, 0xc043409b59430b97, 0x536443ad8ab9a134),
    ("Power", 0x403dcaa0166efbed, 0xc044c9931d4ab28d, 0x3335565292fa6053),
    ("Power", 0x40414b43a6741406, 0xc048e90f9d0e0932, 0x3003c864c4a0aa8d),
    ("Power", 0x402a73bad005a1d8, 0xc03944bb34855b14, 0x3a0d2f1b90e16bce),
    ("Power", 0x401da15629f99212, 0x403a07647be85dcc, 0x44a258778d341a14),
    ("Power", 0x4020eb375505c19a, 0xc0454cda5d84329e, 0x37bb3a5f091147eb),
    ("Power", 0x3f55d1bf1b4b4d25, 0xc02776cf851128b4, 0x46f0cbb57dd3bba8),
    ("Power", 0x40714b96b44487ce, 0xc00c69d388560e10, 0x3e2239441be00eb7),
    ("Power", 0x3fa351d00fa9e5c0, 0xc0077a2246eb9290, 0x40cd57fff4004f8f),
    ("Power", 0x4054ecf319c4c490, 0xc03d4a8a6538227c, 0x343e18bae986aa58),
    ("Power", 0x3f768807422901ec, 0x4044ec5d0620a7d0, 0x2c4dba5ff1196be9),
    ("Power", 0x3fd66c3769265f28, 0xc0167b425eb60828, 0x4076b1ace973cede),
    ("Power", 0x3fb2c7d09ca1caaa, 0xc0398dbee4ef24a0, 0x45f3cd8b53cbe2c3),
    ("Power", 0x40628f88ca90a298, 0x403e3fd7a873b81c, 0x4d92b1709d1be4aa),
    ("Power", 0x3fa11fc61de03d0d, 0x40367f6f5c7e8eb4, 0x390a42e4a8a4fbe0),
    ("Power", 0x40746c6133ee7fda, 0xc02073e8301c57e8, 0x3ba3970c9c505b5d),
    ("Power", 0x408806a7e8e9e645, 0xc04475aae52f4ffc, 0x276a7890f0109123),
    ("Power", 0x405a90ddb7b26f97, 0x40418a4cb9f812ba, 0x4eb1aebdfb6f03c8),
    ("Power", 0x3fa0b3d0fb660085, 0xc0365117259319e2, 0x46d262bc93c15009),
    ("Power", 0x3fa5ee891d907a8f, 0xc0422b8d9e97a7c4, 0x4a41faaf83a32a6f),
    ("Power", 0x405263a8ab67b897, 0x4033d670c85e2a40, 0x47a01a4d6f71dc36),
    ("Power", 0x404abc0627b6452c, 0x402c6c2c2f999c30, 0x4507f1f020ce0d61),
    ("Power", 0x3fa2f3fb3d88a510, 0xc044a48c7f541e10, 0x4c343dc0642cdb92),
    ("Power", 0x3fa2332fb5af2946, 0x403cd4d4be97be6c, 0x374266f93dbbf37c),
    ("Power", 0x3f557dcc32ab53fe, 0x400ac06f6d04fc60, 0x3defa4d9386c8566),
    ("Power", 0x3fb5b736821ee17c, 0xc0352620b102948a, 0x44a3601751593f32),
    ("Power", 0x3fba1be3b66bb311, 0x402253bee9326498, 0x3e0c3ccd0572e7e5),
    ("Power", 0x3f8521cadea9bdd2, 0xc0410c32096960aa, 0x4dff9d78748e6679),
    ("Power", 0x405f492ff17dc07d, 0x403972c3d6f75d5c, 0x4b03d4206257ba3b),
    ("Power", 0x3fc2708993e6fdf4, 0xc0391f2664dd14d6, 0x4452a88304a7bcd0),
    ("Power", 0x4009bb2c4ec960a1, 0x40459fc8e5b5a33a, 0x447db45768190f3d),
    ("Power", 0x404ac5ac69400768, 0xc016c2b138670f80, 0x3de405a09fc920ed),
    ("Power", 0x4019ac4e4a337c46, 0xc02c2696d4befa5c, 0x3d92fdc921ab44d9),
    ("Atan2", 0xc8a0a9be0d28c369, 0xac4d3907be0a5140, 0xbff921fb54442d18),
    ("Atan2", 0x4f5d481545a394ae, 0x31d19cc09534e441, 0x3ff921fb54442d18),
    ("Atan2", 0xb328b90f1c5cdb19, 0x49b53f61a13d3f9b, 0xa9629df37d483187),
    ("Atan2", 0x37bc2cf19d2ac138, 0xbd73ddc5b06142f9, 0x400921fb54442d18),
    ("Atan2", 0xca99bdd9ee87176a, 0xae42c20171664b49, 0xbff921fb54442d18),
    ("Atan2", 0xd1138feab5bdffc4, 0xb07e8b8a3f59f87a, 0xbff921fb54442d18),
    ("Atan2", 0xd3c8d8e5614b4865, 0x40897d3362613e3c, 0xbff921fb54442d18),
    ("Atan2", 0xcfa588cfcb4e16ba, 0x3895702f718c1a7e, 0xbff921fb54442d18),
    ("Atan2", 0xabe4904f2f3fc056, 0x37729b8beb73cff5, 0xb461ae966f193294),
    ("Atan2", 0x37eb93d4aec78377, 0x4e5818862a3ef214, 0x29824fd794415a4e),
    ("Atan2", 0xb0848515abc4a117, 0xc72e2975d5393402, 0xc00921fb54442d18),
    ("Atan2", 0x507981c7f0634a2f, 0x3b402d5f2b1167cb, 0x3ff921fb54442d18),
    ("Atan2", 0xc810a3e2571cfae7, 0x5283d38fc8dd1fde, 0xb57adb7d4fd969a1),
    ("Atan2", 0x3c5151658f33bc0a, 0x3c6ae268eeb45ca9, 0x3fd3f117ccc7c156),
    ("Atan2", 0x4d003bb0befb4885, 0x45c18a9ed84b29e7, 0x3ff921fb54442d18),
    ("Atan2", 0xbcce545afbaf1c9b, 0xb3a6157b240a4bbc, 0xbff921fb54442d18),
    ("Atan2", 0xb64028a7df7ee36d, 0xc1c4a0277cbbb458, 0xc00921fb54442d18),
    ("Atan2", 0xaf22cd334ab24c7d, 0x46aaceed801ea262, 0xa8667152b7739bca),
    ("Atan2", 0xd36a7c671392fc2e, 0xcc1acab1e27844c0, 0xbff921fb54442d18),
    ("Atan2", 0xbff0f48b1f0abe92, 0xb19bbee899a06ead, 0xbff921fb54442d18),
    ("Atan2", 0x53b989d59e1b1eae, 0xc61cd4cdd82b6078, 0x3ff921fb54442d18),
    ("Atan2", 0xb11002f384e5dc2b, 0x50742c6036b1feac, 0xa08965f7eab6743e),
    ("Atan2", 0xb3e42a26db9f91a9, 0xcc2738f67813a44c, 0xc00921fb54442d18),
    ("Atan2", 0x4644784d69090d54, 0x4d44dbbc10f98251, 0x38ef67748508baf4),
    ("Atan2", 0xc29261626be1a39e, 0xd3c99416c37689d0, 0xc00921fb54442d18),
    ("Atan2", 0xb12fe9648fdc537c, 0xc2367e451ab342fa, 0xc00921fb54442d18),
    ("Atan2", 0xb31acb5c824b7440, 0xad3bb618918b0a4f, 0xbff921fb54442d18),
    ("Atan2", 0xac1c94ef2e5ad1cd, 0x326ba6c087aa4f34, 0xb9a089d1f2ffa822),
    ("Atan2", 0x3be09a1c3088ebac, 0x360381af97e0dc8d, 0x3ff921fb54442d18),
    ("Atan2", 0xbfe6175e8ba1cc6d, 0x33dbb87479f01e7f, 0xbff921fb54442d18),
    ("Atan2", 0xacf3bec3a4c5b077, 0xcbb0a2d6ad845f7c, 0xc00921fb54442d18),
    ("Atan2", 0x3161ffac16c0f802, 0xc70e82d2890a40e8, 0x400921fb54442d18),
    ("Atan2", 0x4994759bfc992f8d, 0xd0a618ad747a650a, 0x400921fb54442d18),
    ("Atan2", 0xc4942a137ae14cba, 0x3d90a33b7aa4a68c, 0xbff921fb54442d18),
    ("Atan2", 0x31f80d0886b24eb6, 0xae92b7f5c14ceec2, 0x3ff921fb54442d18),
    ("Atan2", 0xb310a4e02ad3578f, 0xbbfda1be786b8f21, 0xc00921fb54442d18),
    ("Atan2", 0x360cf93f1b80bb3c, 0xc6c20756edfed3c3, 0x400921fb54442d18),
    ("Atan2", 0x33efaf4acd5a6179, 0xcf3dff1f8d780783, 0x400921fb54442d18),
    ("Atan2", 0xcb03dbef30057b69, 0xbc8044ff05396c9c, 0xbff921fb54442d18),
    ("Atan2", 0xccb45bbe43907d5c, 0xd23aeafcf32e4c0e, 0xc00921fb54442d18),
];
pub const F32_TABLE: &[(&str, u32, u32, u32)] = &[
    ("Exp", 0x429d6155, 0, 0x783849c3),
    ("Exp", 0xc4248b8d, 0, 0x0),
    ("Exp", 0x42e5d326, 0, 0x7f800000),
    ("Exp", 0xc1adadb1, 0, 0x2fccfbcb),
    ("Exp", 0xc432df40, 0, 0x0),
    ("Exp", 0xc38e51fc, 0, 0x0),
    ("Exp", 0x43e04209, 0, 0x7f800000),
    ("Exp", 0x432553ca, 0, 0x7f800000),
    ("Exp", 0x4417fd92, 0, 0x7f800000),
    ("Exp", 0x43b1a7e0, 0, 0x7f800000),
    ("Exp", 0xc3eb74b5, 0, 0x0),
    ("Exp", 0x4392c57a, 0, 0x7f800000),
    ("Exp", 0xc4280191, 0, 0x0),
    ("Exp", 0x4401ed3f, 0, 0x7f800000),
    ("Exp", 0xc39ccc56, 0, 0x0),
    ("Exp", 0x4426c18b, 0, 0x7f800000),
    ("Exp", 0xc427b8f5, 0, 0x0),
    ("Exp", 0x43a7e690, 0, 0x7f800000),
    ("Exp", 0xc41448ec, 0, 0x0),
    ("Exp", 0x43ff4967, 0, 0x7f800000),
    ("Exp", 0x43de31ca, 0, 0x7f800000),
    ("Exp", 0x401132a0, 0, 0x411aabe9),
    ("Exp", 0x429813b0, 0, 0x764ffac3),
    ("Exp", 0xc3d2a8f6, 0, 0x0),
    ("Exp", 0xc353e995, 0, 0x0),
    ("Exp", 0xc40343ff, 0, 0x0),
    ("Exp", 0xc329d27b, 0, 0x0),
    ("Exp", 0xc4070799, 0, 0x0),
    ("Exp", 0x4332dfb4, 0, 0x7f800000),
    ("Exp", 0xc1cdef91, 0, 0x2ce8ad15),
    ("Exp", 0xc361142e, 0, 0x0),
    ("Exp", 0xc36e45f3, 0, 0x0),
    ("Exp", 0x441fd7bf, 0, 0x7f800000),
    ("Exp", 0x441e5919, 0, 0x7f800000),
    ("Exp", 0x4429ba52, 0, 0x7f800000),
    ("Exp", 0xc3569eab, 0, 0x0),
    ("Exp", 0xc41b4b41, 0, 0x0),
    ("Exp", 0xc3fc12e9, 0, 0x0),
    ("Exp", 0x43fd61a3, 0, 0x7f800000),
    ("Exp", 0xc3677e91, 0, 0x0),
    ("Expm1", 0x2bb7c544, 0, 0x2bb7c544),
    ("Expm1", 0x8b9753c0, 0, 0x8b9753c0),
    ("Expm1", 0x373e6b63, 0, 0x373e6baa),
    ("Expm1", 0x42928543, 0, 0x744ed225),
    ("Expm1", 0x8000001e, 0, 0x8000001e),
    ("Expm1", 0x1a17d96c, 0, 0x1a17d96c),
    ("Expm1", 0xa58dc704, 0, 0xa58dc704),
    ("Expm1", 0xb9c62843, 0, 0xb9c61ead),
    ("Expm1", 0xd618899, 0, 0xd618899),
    ("Expm1", 0x146ea614, 0, 0x146ea614),
    ("Expm1", 0xb08cff11, 0, 0xb08cff11),
    ("Expm1", 0x3ca35cea, 0, 0x3ca500b1),
    ("Expm1", 0x1229cae8, 0, 0x1229cae8),
    ("Expm1", 0x965a2f7f, 0, 0x965a2f7f),
    ("Expm1", 0x13773051, 0, 0x13773051),
    ("Expm1", 0x169d, 0, 0x169d),
    ("Expm1", 0x9bd528a0, 0, 0x9bd528a0),
    ("Expm1", 0xb4158f02, 0, 0xb4158f01),
    ("Expm1", 0x80288512, 0, 0x80288512),
    ("Expm1", 0x2, 0, 0x2),
    ("Expm1", 0xb7999a1c, 0, 0xb79999c0),
    ("Expm1", 0x2a2c6937, 0, 0x2a2c6937),
    ("Expm1", 0x8000008f, 0, 0x8000008f),
    ("Expm1", 0x1875e2e, 0, 0x1875e2e),
    ("Expm1", 0x8ebc3ae2, 0, 0x8ebc3ae2),
    ("Expm1", 0xb490b5df, 0, 0xb490b5de),
    ("Expm1", 0x9a43df0, 0, 0x9a43df0),
    ("Expm1", 0x8000156e, 0, 0x8000156e),
    ("Expm1", 0x2f8be6e8, 0, 0x2f8be6e8),
    ("Expm1", 0x223691e8, 0, 0x223691e8),
    ("Expm1", 0x8790696, 0, 0x8790696),
    ("Expm1", 0x80000074, 0, 0x80000074),
    ("Expm1", 0x89195cc, 0, 0x89195cc),
    ("Expm1", 0x9f785539, 0, 0x9f785539),
    ("Expm1", 0xa48a2fd1, 0, 0xa48a2fd1),
    ("Expm1", 0x2b98d659, 0, 0x2b98d659),
    ("Expm1", 0x3cdde3fa, 0, 0x3ce0ec46),
    ("Expm1", 0x423d58e8, 0, 0x619cc7b8),
    ("Expm1", 0xb647bd41, 0, 0xb647bd2e),
    ("Expm1", 0x24285a53, 0, 0x24285a53),
    ("Log", 0x42946a14, 0, 0x4089d1ce),
    ("Log", 0x7e8abfa4, 0, 0x42aed598),
    ("Log", 0x44dbb6e6, 0, 0x40ef18be),
    ("Log", 0x21, 0, 0xc2c7909a),
    ("Log", 0x38ea032d, 0, 0xc1119c89),
    ("Log", 0x24503eb9, 0, 0xc2168baf),
    ("Log", 0x72ff002, 0, 0xc29c03db),
    ("Log", 0x29c7442b, 0, 0xc1f07269),
    ("Log", 0x6080cc58, 0, 0x42370406),
    ("Log", 0x130b7c6f, 0, 0xc2766aaa),
    ("Log", 0xedc9a87, 0, 0xc286c4a7),
    ("Log", 0x201b2001, 0, 0xc22de77f),
    ("Log", 0x329b8d01, 0, 0xc18e9d76),
    ("Log", 0x4f60973f, 0, 0x41b06604),
    ("Log", 0x46cae49e, 0, 0x4122a2a6),
    ("Log", 0x65688696, 0, 0x42525500),
    ("Log", 0x5dc77e97, 0, 0x4228215f),
    ("Log", 0xc99e4ad, 0, 0xc28d0898),
    ("Log", 0x9943303, 0, 0xc2956d3f),
    ("Log", 0xc1a, 0, 0xc2be7b18),
    ("Log", 0x5915dec9, 0, 0x420e0872),
    ("Log", 0x42d6774, 0, 0xc2a45ca2),
    ("Log", 0x1cab1813, 0, 0xc240eba4),
    ("Log", 0x6aae7c2e, 0, 0x426fae8f),
    ("Log", 0xcfae0e1, 0, 0xc28c0e60),
    ("Log", 0x232c5cc1, 0, 0xc21cd8e8),
    ("Log", 0x6563c324, 0, 0x42523fce),
    ("Log", 0x21e859be, 0, 0xc223f870),
    ("Log", 0x788b0911, 0, 0x429e33f5),
    ("Log", 0x19cd4101, 0, 0xc250d3ef),
    ("Log", 0x204047c5, 0, 0xc22d0b9f),
    ("Log", 0x1ee832dd, 0, 0xc2349bcd),
    ("Log", 0x4e25de2, 0, 0xc2a27147),
    ("Log", 0x6a1f1ccc, 0, 0x426c8a55),
    ("Log", 0x5a3133e1, 0, 0x42143f8e),
    ("Log", 0x488cd778, 0, 0x414927f5),
    ("Log", 0x48b424df, 0, 0x414d1811),
    ("Log", 0x128740ed, 0, 0xc2795000),
    ("Log", 0x3b140088, 0, 0xc0c2fae9),
    ("Log", 0x76267c27, 0, 0x4297a1c0),
    ("Log1p", 0x640ae845, 0, 0x424ab9e1),
    ("Log1p", 0xbc03eea6, 0, 0xbc04775e),
    ("Log1p", 0xaa353493, 0, 0xaa353493),
    ("Log1p", 0x9af9a7d9, 0, 0x9af9a7d9),
    ("Log1p", 0x5b0029cd, 0, 0x42187f5b),
    ("Log1p", 0xab5b9ac9, 0, 0xab5b9ac9),
    ("Log1p", 0x4c3f7ad9, 0, 0x418dd9f9),
    ("Log1p", 0x96ef8503, 0, 0x96ef8503),
    ("Log1p", 0xb2122f70, 0, 0xb2122f70),
    ("Log1p", 0x80002792, 0, 0x80002792),
    ("Log1p", 0x8f6b77d2, 0, 0x8f6b77d2),
    ("Log1p", 0x8000000a, 0, 0x8000000a),
    ("Log1p", 0x98f16f50, 0, 0x98f16f50),
    ("Log1p", 0xb788e446, 0, 0xb788e48f),
    ("Log1p", 0x19a1ee8a, 0, 0x19a1ee8a),
    ("Log1p", 0x71b9ba07, 0, 0x428b5fba),
    ("Log1p", 0x8000010f, 0, 0x8000010f),
    ("Log1p", 0x80000006, 0, 0x80000006),
    ("Log1p", 0xbb45716c, 0, 0xbb45bdb7),
    ("Log1p", 0x4d852419, 0, 0x419b947b),
    ("Log1p", 0x8e2a7253, 0, 0x8e2a7253),
    ("Log1p", 0x72b5959e, 0, 0x428e19f6),
    ("Log1p", 0x2d8e3d14, 0, 0x2d8e3d14),
    ("Log1p", 0xaff574d5, 0, 0xaff574d5),
    ("Log1p", 0x2bc0c21f, 0, 0x2bc0c21f),
    ("Log1p", 0xbe8269ee, 0, 0xbe968592),
    ("Log1p", 0x8e06cac0, 0, 0x8e06cac0),
    ("Log1p", 0x8c902ed9, 0, 0x8c902ed9),
    ("Log1p", 0x95bddee5, 0, 0x95bddee5),
    ("Log1p", 0x93017d37, 0, 0x93017d37),
    ("Log1p", 0xa300ea00, 0, 0xa300ea00),
    ("Log1p", 0x51c71567, 0, 0x41cb28f2),
    ("Log1p", 0xb3bd0689, 0, 0xb3bd068a),
    ("Log1p", 0x2fb1, 0, 0x2fb1),
    ("Log1p", 0xe44cd63, 0, 0xe44cd63),
    ("Log1p", 0x80a909df, 0, 0x80a909df),
    ("Log1p", 0x734cf, 0, 0x734cf),
    ("Log1p", 0x3aba5b19, 0, 0x3aba3937),
    ("Log1p", 0x30d4a789, 0, 0x30d4a789),
    ("Log1p", 0x6433aa4f, 0, 0x424bc157),
    ("Sin", 0xb94e3829, 0, 0xb94e3829),
    ("Sin", 0x4f846516, 0, 0xbf041148),
    ("Sin", 0xd1727be6, 0, 0xbf33d4a9),
    ("Sin", 0xbba6c0d1, 0, 0xbba6c0a2),
    ("Sin", 0xafb749ce, 0, 0xafb749ce),
    ("Sin", 0xd633e1c6, 0, 0xbf7e50b8),
    ("Sin", 0xc9ea5d7b, 0, 0x3f572af8),
    ("Sin", 0x445ba3f9, 0, 0xbf623f1a),
    ("Sin", 0xb8f54957, 0, 0xb8f54957),
    ("Sin", 0x4a93daf8, 0, 0xbf1aff25),
    ("Sin", 0xb09d1668, 0, 0xb09d1668),
    ("Sin", 0xb9b1c6dd, 0, 0xb9b1c6dd),
    ("Sin", 0xc97db50e, 0, 0xbf09a81f),
    ("Sin", 0xd1e3e6cd, 0, 0x3f039d03),
    ("Sin", 0x4ea20515, 0, 0x3f7dec9a),
    ("Sin", 0xc515fb20, 0, 0x3eed19b8),
    ("Sin", 0xc715fb56, 0, 0x3f6f785e),
    ("Sin", 0x570ae318, 0, 0xbf23c1a1),
    ("Sin", 0x4d3f6d6b, 0, 0xbf5c3253),
    ("Sin", 0x5320b452, 0, 0xbf48c36e),
    ("Sin", 0xca06953d, 0, 0x3f71bad7),
    ("Sin", 0xb599eb8c, 0, 0xb599eb8c),
    ("Sin", 0xd331b7e8, 0, 0x3f7e43d4),
    ("Sin", 0x308d1b07, 0, 0x308d1b07),
    ("Sin", 0xc0977faa, 0, 0x3f7ff038),
    ("Sin", 0x519ab2f1, 0, 0x3ef21f74),
    ("Sin", 0xbbb7d759, 0, 0xbbb7d71a),
    ("Sin", 0xc7992295, 0, 0x3ed85284),
    ("Sin", 0xd432845f, 0, 0xbed6ad76),
    ("Sin", 0x404b93f4, 0, 0xbd20fbb9),
    ("Sin", 0x372f32d1, 0, 0x372f32d1),
    ("Sin", 0x49af854b, 0, 0x3f2cf747),
    ("Sin", 0xb0bd2a54, 0, 0xb0bd2a54),
    ("Sin", 0xc9219a78, 0, 0xbe5689d2),
    ("Sin", 0xbc022e40, 0, 0xbc022de6),
    ("Sin", 0xc30932f0, 0, 0x3f5b9d19),
    ("Sin", 0x45b84763, 0, 0xbe1d006b),
    ("Sin", 0xcb86cb30, 0, 0x3f1cdc5b),
    ("Sin", 0xc851dc8f, 0, 0xbf2ad053),
    ("Sin", 0xb56dbb4d, 0, 0xb56dbb4d),
    ("Cos", 0xcda4d12d, 0, 0xbf4fdb05),
    ("Cos", 0xba53d236, 0, 0x3f7ffffb),
    ("Cos", 0x369d90c1, 0, 0x3f800000),
    ("Cos", 0x37e6a2df, 0, 0x3f800000),
    ("Cos", 0xc27253bb, 0, 0xbf20d453),
    ("Cos", 0x441a3aeb, 0, 0x3ec87efe),
    ("Cos", 0xd4216138, 0, 0x3de6da51),
    ("Cos", 0x3999e157, 0, 0x3f7fffff),
    ("Cos", 0xc84de49a, 0, 0xbf0658cc),
    ("Cos", 0x35260e5d, 0, 0x3f800000),
    ("Cos", 0xd18a1eb2, 0, 0x3ef18d67),
    ("Cos", 0xd3f0369f, 0, 0xbf27937b),
    ("Cos", 0x4609f807, 0, 0xbf0821bc),
    ("Cos", 0x52c2ed91, 0, 0x3f7ebb13),
    ("Cos", 0x322f55cf, 0, 0x3f800000),
    ("Cos", 0xb6a015fa, 0, 0x3f800000),
    ("Cos", 0xc40e2a82, 0, 0xbf7fd5bd),
    ("Cos", 0xcdca8eef, 0, 0x3f580115),
    ("Cos", 0x4808c10b, 0, 0xbf72f380),
    ("Cos", 0xafb96b6d, 0, 0x3f800000),
    ("Cos", 0x502a9efb, 0, 0x3f7fb780),
    ("Cos", 0xce8595da, 0, 0xbe5fb309),
    ("Cos", 0xd01f647c, 0, 0xbe842f82),
    ("Cos", 0x3ba53387, 0, 0x3f7fff2b),
    ("Cos", 0x48ad1797, 0, 0xbded414d),
    ("Cos", 0x4344c65e, 0, 0xbed3433b),
    ("Cos", 0xbc9150c8, 0, 0x3f7ff5b0),
    ("Cos", 0xb136c4f5, 0, 0x3f800000),
    ("Cos", 0xb21b283a, 0, 0x3f800000),
    ("Cos", 0x58395ff1, 0, 0x3f5acd29),
    ("Cos", 0xb24d6ee2, 0, 0x3f800000),
    ("Cos", 0x3c19fdae, 0, 0x3f7ffd1b),
    ("Cos", 0xd5db7396, 0, 0x3f33d421),
    ("Cos", 0x4e0ab173, 0, 0x3e674141),
    ("Cos", 0xbf2ed4e5, 0, 0x3f4695cc),
    ("Cos", 0x4c575c96, 0, 0xbf769b20),
    ("Cos", 0xbf13252c, 0, 0x3f56dcef),
    ("Cos", 0xcc43d7bf, 0, 0xbd80c846),
    ("Cos", 0xb91d599f, 0, 0x3f800000),
    ("Cos", 0x42b2f29b, 0, 0x3d7bf504),
    ("Tan", 0xd50550db, 0, 0x410810e8),
    ("Tan", 0x426f2487, 0, 0x3dc3ff17),
    ("Tan", 0xb53634f6, 0, 0xb53634f6),
    ("Tan", 0xcf8b1d43, 0, 0xbe89916b),
    ("Tan", 0xc0a80b89, 0, 0x3fd60318),
    ("Tan", 0x5113b1bf, 0, 0xbd9382f1),
    ("Tan", 0x464e9447, 0, 0x403efbbc),
    ("Tan", 0xb6a64a2d, 0, 0xb6a64a2d),
    ("Tan", 0xb48f17fa, 0, 0xb48f17fa),
    ("Tan", 0x4d05631e, 0, 0xbd7c1552),
    ("Tan", 0x56156c35, 0, 0xc0a73e14),
    ("Tan", 0x3604b935, 0, 0x3604b935),
    ("Tan", 0x38b5a6b7, 0, 0x38b5a6b7),
    ("Tan", 0x333ff945, 0, 0x333ff945),
    ("Tan", 0xd2060f19, 0, 0x3f4f7b3f),
    ("Tan", 0x550d36a1, 0, 0x3f89ebcb),
    ("Tan", 0x315e2777, 0, 0x315e2777),
    ("Tan", 0xb95ae179, 0, 0xb95ae179),
    ("Tan", 0xc095dce1, 0, 0xc2090f1d),
    ("Tan", 0x54c65485, 0, 0x3e05c11c),
    ("Tan", 0x37d6fb5e, 0, 0x37d6fb5e),
    ("Tan", 0xcd076317, 0, 0x40e530c7),
    ("Tan", 0x4f5fc155, 0, 0x3cfa36f1),
    ("Tan", 0x4ad47e30, 0, 0xc0c3bdc0),
    ("Tan", 0x5315d431, 0, 0xc132b282),
    ("Tan", 0xbcbf57dd, 0, 0xbcbf60c6),
    ("Tan", 0x4785c984, 0, 0xbe8572ce),
    ("Tan", 0x46b7244b, 0, 0xbee35ace),
    ("Tan", 0x3c31f6bf, 0, 0x3c31f88a),
    ("Tan", 0x44bd29cf, 0, 0xbfafaeae),
    ("Tan", 0x302aaacf, 0, 0x302aaacf),
    ("Tan", 0x3500774c, 0, 0x3500774c),
    ("Tan", 0x3f857e79, 0, 0x3fdb8792),
    ("Tan", 0x3cdd50d9, 0, 0x3cdd5ea3),
    ("Tan", 0xcba7853c, 0, 0x4099c476),
    ("Tan", 0x4962f639, 0, 0x3f2e15d9),
    ("Tan", 0x4928e354, 0, 0xbf9cba04),
    ("Tan", 0xc349c7e8, 0, 0xbf600e58),
    ("Tan", 0xd0436cb4, 0, 0x3f25f902),
    ("Tan", 0xd36ee61f, 0, 0xc032c3a8),
    ("Tanh", 0x19cfe04c, 0, 0x19cfe04c),
    ("Tanh", 0x3, 0, 0x3),
    ("Tanh", 0x86e975ae, 0, 0x86e975ae),
    ("Tanh", 0x341238e6, 0, 0x341238e6),
    ("Tanh", 0xb5f64, 0, 0xb5f64),
    ("Tanh", 0x80001e8b, 0, 0x80001e8b),
    ("Tanh", 0x1c8e7b26, 0, 0x1c8e7b26),
    ("Tanh", 0x3401529b, 0, 0x3401529b),
    ("Tanh", 0x80353b55, 0, 0x80353b55),
    ("Tanh", 0x973f6749, 0, 0x973f6749),
    ("Tanh", 0x118db238, 0, 0x118db238),
    ("Tanh", 0xbc453d7b, 0, 0xbc453b0b),
    ("Tanh", 0x27a51c62, 0, 0x27a51c62),
    ("Tanh", 0x841269d3, 0, 0x841269d3),
    ("Tanh", 0x9832e3e6, 0, 0x9832e3e6),
    ("Tanh", 0x846987fd, 0, 0x846987fd),
    ("Tanh", 0xc00166de, 0, 0xbf772dd1),
    ("Tanh", 0x1aa6eaaf, 0, 0x1aa6eaaf),
    ("Tanh", 0x2f6652d7, 0, 0x2f6652d7),
    ("Tanh", 0x9214a847, 0, 0x9214a847),
    ("Tanh", 0xafad0520, 0, 0xafad0520),
    ("Tanh", 0x61b1e4f, 0, 0x61b1e4f),
    ("Tanh", 0xba947502, 0, 0xba9474fe),
    ("Tanh", 0x1a9b7e30, 0, 0x1a9b7e30),
    ("Tanh", 0x91d131a8, 0, 0x91d131a8),
    ("Tanh", 0x8000b91c, 0, 0x8000b91c),
    ("Tanh", 0x890ddce2, 0, 0x890ddce2),
    ("Tanh", 0x98ada167, 0, 0x98ada167),
    ("Tanh", 0x912d1fa1, 0, 0x912d1fa1),
    ("Tanh", 0x8a00099f, 0, 0x8a00099f),
    ("Tanh", 0x36, 0, 0x36),
    ("Tanh", 0x8a95a2d1, 0, 0x8a95a2d1),
    ("Tanh", 0x8d4fecf9, 0, 0x8d4fecf9),
    ("Tanh", 0x8c5af567, 0, 0x8c5af567),
    ("Tanh", 0x108be7c0, 0, 0x108be7c0),
    ("Tanh", 0xa787c26e, 0, 0xa787c26e),
    ("Tanh", 0x174efd05, 0, 0x174efd05),
    ("Tanh", 0xbf8765be, 0, 0xbf48e9cc),
    ("Tanh", 0xbd, 0, 0xbd),
    ("Tanh", 0x17016658, 0, 0x17016658),
    ("Cbrt", 0x2ce97c57, 0, 0x39450c10),
    ("Cbrt", 0x55ad3d21, 0, 0x46e0c125),
    ("Cbrt", 0x99e30a20, 0, 0xb2f5f52e),
    ("Cbrt", 0x25a9c965, 0, 0x36df4067),
    ("Cbrt", 0x8a1507f5, 0, 0xada9a893),
    ("Cbrt", 0x598ea252, 0, 0x48273208),
    ("Cbrt", 0x3a9de11d, 0, 0x3dd9e7d6),
    ("Cbrt", 0x29beddca, 0, 0x38383e70),
    ("Cbrt", 0x266f22, 0, 0x2a2b6cf2),
    ("Cbrt", 0x1192b296, 0, 0x3028c4b2),
    ("Cbrt", 0x6401b45, 0, 0x2c68a26b),
    ("Cbrt", 0x9f1aaf4e, 0, 0xb4abc6ff),
    ("Cbrt", 0xa6d9364f, 0, 0xb7405bc6),
    ("Cbrt", 0xc4350cb5, 0, 0xc10faee3),
    ("Cbrt", 0x30a3c79, 0, 0x2b507723),
    ("Cbrt", 0x74dc6e5f, 0, 0x51414dd6),
    ("Cbrt", 0x9283dca0, 0, 0xb0814648),
    ("Cbrt", 0x4b944f1b, 0, 0x438670b1),
    ("Cbrt", 0x9b48848, 0, 0x2d8f8bd3),
    ("Cbrt", 0x85b525f7, 0, 0xac350ff4),
    ("Cbrt", 0x6a6771a, 0, 0x2c8bb76f),
    ("Cbrt", 0x292456df, 0, 0x380b1e86),
    ("Cbrt", 0x154aa7e4, 0, 0x316cd12c),
    ("Cbrt", 0x79557fe2, 0, 0x52bf4199),
    ("Cbrt", 0xb898b1d, 0, 0x2e252ea5),
    ("Cbrt", 0xb9ce, 0, 0x293699c1),
    ("Cbrt", 0x1a491542, 0, 0x3314cc68),
    ("Cbrt", 0x7d6f06ba, 0, 0x541d9fb3),
    ("Cbrt", 0x681a4260, 0, 0x4d0836f2),
    ("Cbrt", 0x69158b17, 0, 0x4d56003d),
    ("Cbrt", 0x80000007, 0, 0xa71a3fc5),
    ("Cbrt", 0xc1e48ef, 0, 0x2e5a1790),
    ("Cbrt", 0xbbf12106, 0, 0xbe472c9a),
    ("Cbrt", 0xa1d16f7d, 0, 0xb596d4b0),
    ("Cbrt", 0x72aa87be, 0, 0x508cd83d),
    ("Cbrt", 0xf6dd5d07, 0, 0xd1f3e405),
    ("Cbrt", 0x3401c2ab, 0, 0x3ba20180),
    ("Cbrt", 0x948b33d8, 0, 0xb125d7fd),
    ("Cbrt", 0x35a032a3, 0, 0x3c2dcb56),
    ("Cbrt", 0xf350e8e3, 0, 0xd0bde032),
    ("Erf", 0x2ab1f855, 0, 0x2ac8d154),
    ("Erf", 0x104aef3f, 0, 0x1064fcb4),
    ("Erf", 0x1514d6ef, 0, 0x1527f28e),
    ("Erf", 0x33102936, 0, 0x3322ab12),
    ("Erf", 0x4, 0, 0x5),
    ("Erf", 0x80000010, 0, 0x80000012),
    ("Erf", 0x9a4e378e, 0, 0x9a68b0e4),
    ("Erf", 0xac211224, 0, 0xac35bfbf),
    ("Erf", 0xa91e427d, 0, 0xa93293b4),
    ("Erf", 0x90943129, 0, 0x90a73780),
    ("Erf", 0x9a33452e, 0, 0x9a4a48e8),
    ("Erf", 0xe20038f, 0, 0xe348e6d),
    ("Erf", 0x3a80e2ae, 0, 0x3a916e7f),
    ("Erf", 0x24a1bd40, 0, 0x24b680d2),
    ("Erf", 0x97435cba, 0, 0x975c7152),
    ("Erf", 0x96deeba9, 0, 0x96fb89f5),
    ("Erf", 0xab4e5bbb, 0, 0xab68d9b6),
    ("Erf", 0x24c7, 0, 0x2980),
    ("Erf", 0xb8c50c49, 0, 0xb8de5848),
    ("Erf", 0x9cee8c99, 0, 0x9d069644),
    ("Erf", 0x38e9305e, 0, 0x39039012),
    ("Erf", 0x3bdc2a2b, 0, 0x3bf86cf0),
    ("Erf", 0x21700091, 0, 0x21876821),
    ("Erf", 0x80000001, 0, 0x80000001),
    ("Erf", 0xb1cb, 0, 0xc89e),
    ("Erf", 0x83ce64ea, 0, 0x83e8e413),
    ("Erf", 0x3691d301, 0, 0x36a48b87),
    ("Erf", 0x9ad6c253, 0, 0x9af25465),
    ("Erf", 0x12d79779, 0, 0x12f344e8),
    ("Erf", 0x8fef724f, 0, 0x900717de),
    ("Erf", 0x409cba62, 0, 0x3f800000),
    ("Erf", 0x94078d07, 0, 0x9418f3eb),
    ("Erf", 0x80000815, 0, 0x8000091f),
    ("Erf", 0xe96eb77, 0, 0xeaa4b74),
    ("Erf", 0x942b9518, 0, 0x94419c29),
    ("Erf", 0xb78851de, 0, 0xb799d207),
    ("Erf", 0x1b5634e, 0, 0x1ccaca1),
    ("Erf", 0x80000003, 0, 0x80000003),
    ("Erf", 0x80000007, 0, 0x80000008),
    ("Erf", 0x263bcf1b, 0, 0x2653eb76),
    ("Logistic", 0xc40db9d0, 0, 0x0),
    ("Logistic", 0xc3fb36f2, 0, 0x0),
    ("Logistic", 0xc418621e, 0, 0x0),
    ("Logistic", 0xc4233753, 0, 0x0),
    ("Logistic", 0xc2e77cd3, 0, 0x0),
    ("Logistic", 0x41aef970, 0, 0x3f800000),
    ("Logistic", 0xc31e1e3c, 0, 0x0),
    ("Logistic", 0xc3f7287a, 0, 0x0),
    ("Logistic", 0xc1e8d6e2, 0, 0x2a80eeb5),
    ("Logistic", 0xc406835f, 0, 0x0),
    ("Logistic", 0xc3a753fc, 0, 0x0),
    ("Logistic", 0xc416140e, 0, 0x0),
    ("Logistic", 0xc38bdffc, 0, 0x0),
    ("Logistic", 0xbf867f80, 0, 0x3e84a5e0),
    ("Logistic", 0xc41e1e82, 0, 0x0),
    ("Logistic", 0xc3e75fc0, 0, 0x0),
    ("Logistic", 0xc330d20c, 0, 0x0),
    ("Logistic", 0xc3949057, 0, 0x0),
    ("Logistic", 0xc33303bd, 0, 0x0),
    ("Logistic", 0xc33bb185, 0, 0x0),
    ("Logistic", 0xc24e11f9, 0, 0x1a4c7d5a),
    ("Logistic", 0xc3816f81, 0, 0x0),
    ("Logistic", 0xc37f618a, 0, 0x0),
    ("Logistic", 0xc3aa3c0f, 0, 0x0),
    ("Logistic", 0xc3f00880, 0, 0x0),
    ("Logistic", 0xc313ae42, 0, 0x0),
    ("Logistic", 0xc40d2b0b, 0, 0x0),
    ("Logistic", 0xc3bde79a, 0, 0x0),
    ("Logistic", 0xc23f93a6, 0, 0x1cef66f6),
    ("Logistic", 0xc2dd62c0, 0, 0x0),
    ("Logistic", 0xc41a80b9, 0, 0x0),
    ("Logistic", 0xc389efba, 0, 0x0),
    ("Logistic", 0xc4296c20, 0, 0x0),
    ("Logistic", 0xc38d1431, 0, 0x0),
    ("Logistic", 0x41db7083, 0, 0x3f800000),
    ("Logistic", 0xc40abb18, 0, 0x0),
    ("Logistic", 0xc3f41089, 0, 0x0),
    ("Logistic", 0xc41cfbf3, 0, 0x0),
    ("Logistic", 0xc21d3ac6, 0, 0x231ca6c9),
    ("Logistic", 0xc0a35591, 0, 0x3bc5bdc7),
    ("Rsqrt", 0x2e408059, 0, 0x48139bec),
    ("Rsqrt", 0x608bb6b4, 0, 0x2ef50894),
    ("Rsqrt", 0x2041ebb3, 0, 0x4f131161),
    ("Rsqrt", 0x58bcc870, 0, 0x32d2cbed),
    ("Rsqrt", 0x6f41ee6e, 0, 0x27931058),
    ("Rsqrt", 0xc5b68d0, 0, 0x590a4308),
    ("Rsqrt", 0x5b02ca8c, 0, 0x31b313ce),
    ("Rsqrt", 0x64892dcf, 0, 0x2cf74977),
    ("Rsqrt", 0x40c14fed, 0, 0x3ed04fff),
    ("Rsqrt", 0xb6b011b, 0, 0x59859877),
    ("Rsqrt", 0x736b1, 0, 0x6006cbd6),
    ("Rsqrt", 0x5556d08, 0, 0x5c8c2fc3),
    ("Rsqrt", 0x7954e5a, 0, 0x5b6d0816),
    ("Rsqrt", 0x50358bd4, 0, 0x3717ff5a),
    ("Rsqrt", 0x3f7437b9, 0, 0x3f830d24),
    ("Rsqrt", 0x1c51f08b, 0, 0x510d5883),
    ("Rsqrt", 0x4c9c567a, 0, 0x38e7a3c2),
    ("Rsqrt", 0x647c3e6c, 0, 0x2d00f313),
    ("Rsqrt", 0x7f0a0c42, 0, 0x1fae4e9e),
    ("Rsqrt", 0x778b3968, 0, 0x237576be),
    ("Rsqrt", 0x6accf728, 0, 0x29ca4dd7),
    ("Rsqrt", 0x138, 0, 0x62a3f8a2),
    ("Rsqrt", 0x7249defa, 0, 0x2610248f),
    ("Rsqrt", 0x646c006b, 0, 0x2d055020),
    ("Rsqrt", 0x23cfeacb, 0, 0x4d48dce9),
    ("Rsqrt", 0x1, 0, 0x64b504f3),
    ("Rsqrt", 0x6e909276, 0, 0x27f0e18e),
    ("Rsqrt", 0x7d262e58, 0, 0x209ede78),
    ("Rsqrt", 0xece842, 0, 0x5ebc2c1e),
    ("Rsqrt", 0x1fd7a191, 0, 0x4f453cc5),
    ("Rsqrt", 0x29806829, 0, 0x4a7f9816),
    ("Rsqrt", 0x29a87c6f, 0, 0x4a5f21f0),
    ("Rsqrt", 0x59cce7d6, 0, 0x324a5567),
    ("Rsqrt", 0x71156b01, 0, 0x26a78b3a),
    ("Rsqrt", 0x228eb4f6, 0, 0x4df2733e),
    ("Rsqrt", 0x425ed64b, 0, 0x3e0931c1),
    ("Rsqrt", 0x32aba82, 0, 0x5d9cbd2b),
    ("Rsqrt", 0x21d26ac3, 0, 0x4e47aa8a),
    ("Rsqrt", 0x413a87b6, 0, 0x3e95f3ff),
    ("Rsqrt", 0x762d257e, 0, 0x241ba404),
    ("Power", 0x3eaa9953, 0x3f83c9e7, 0x3ea52381),
    ("Power", 0x3c072a99, 0x418e35c4, 0x1f9928d),
    ("Power", 0x3b6c93c8, 0x41ac838f, 0x0),
    ("Power", 0x3fc9a7e4, 0x4109d784, 0x4248c42b),
    ("Power", 0x42159d0f, 0x41acfc07, 0x77fced6a),
    ("Power", 0x3bfb4e76, 0xc0b96ee0, 0x53d29324),
    ("Power", 0x3e85ec26, 0xc1988742, 0x51ecdeaf),
    ("Power", 0x4391189f, 0x411902b3, 0x6696a2b9),
    ("Power", 0x3d25f6f2, 0x41596810, 0x200e403a),
    ("Power", 0x4378d74f, 0x42086805, 0x7f800000),
    ("Power", 0x3b4f62fe, 0x420d76c9, 0x0),
    ("Power", 0x4328194d, 0x41f914e5, 0x7f800000),
    ("Power", 0x445950e9, 0xc1009c06, 0x18376757),
    ("Power", 0x3c15e1e1, 0xc1960c55, 0x7f01ef95),
    ("Power", 0x3eb88d72, 0x42248bc9, 0x212df059),
    ("Power", 0x4099d78a, 0x41908d02, 0x53f41f63),
    ("Power", 0x434d022a, 0xc22cf99c, 0x0),
    ("Power", 0x40dbc67f, 0xc1aa68a8, 0x21dc9ca7),
    ("Power", 0x3fb94ff8, 0xc15f57d0, 0x3bbb3568),
    ("Power", 0x3ce9a569, 0x413a90ea, 0x218f1ddb),
    ("Power", 0x42eb3eb4, 0x41b934fd, 0x7f800000),
    ("Power", 0x40a94cac, 0x4240080e, 0x792700d4),
    ("Power", 0x4028e643, 0x41f52b1d, 0x54efb454),
    ("Power", 0x43ccdd67, 0x40924b14, 0x534c690a),
    ("Power", 0x421184ba, 0xc1c93b25, 0x5f623),
    ("Power", 0x4328c823, 0x41d7b5e9, 0x7f800000),
    ("Power", 0x3f855dfa, 0xc23cc06b, 0x3e13690a),
    ("Power", 0x3e194417, 0x41911344, 0x269ea901),
    ("Power", 0x3c2519f5, 0x42016f4f, 0x0),
    ("Power", 0x3d2e3f03, 0xc20f8f43, 0x7f800000),
    ("Power", 0x3d311604, 0xc1b9faee, 0x742337de),
    ("Power", 0x3d89412c, 0x416c2184, 0x22af4969),
    ("Power", 0x3dc3b9cb, 0xc19335e1, 0x5ea1009f),
    ("Power", 0x41d4324a, 0xc218c0f9, 0x0),
    ("Power", 0x3b063ccb, 0x419b01df, 0x0),
    ("Power", 0x3bc718c5, 0x41edebcd, 0x0),
    ("Power", 0x3ec4f09d, 0xc114b067, 0x45e05391),
    ("Power", 0x3c94da18, 0xc14da263, 0x649f2e3d),
    ("Power", 0x404c8fd1, 0x41a4751e, 0x50b04dc3),
    ("Power", 0x42411a9f, 0x419be44a, 0x75fea703),
    ("Atan2", 0x76bf4e48, 0x34ccc993, 0x3fc90fdb),
    ("Atan2", 0xff800000, 0x80000000, 0xbfc90fdb),
    ("Atan2", 0x7f61b1e6, 0x2d59, 0x3fc90fdb),
    ("Atan2", 0xff800000, 0x278e0a2a, 0xbfc90fdb),
    ("Atan2", 0xee5c4e63, 0xff800000, 0xc0490fdb),
    ("Atan2", 0x52a6af1d, 0x9d0c6782, 0x3fc90fdb),
    ("Atan2", 0xc3f47791, 0xf089dee0, 0xc0490fdb),
    ("Atan2", 0x49bd, 0x80000000, 0x3fc90fdb),
    ("Atan2", 0x0, 0xc2850f36, 0x40490fdb),
    ("Atan2", 0x57d29e19, 0xff800000, 0x40490fdb),
    ("Atan2", 0x80000000, 0xde2ab8b4, 0x40490fdb),
    ("Atan2", 0x3d7ae327, 0xff800000, 0x40490fdb),
    ("Atan2", 0xff800000, 0xff800000, 0xffc00000),
    ("Atan2", 0x0, 0x4529678, 0x0),
    ("Atan2", 0x5d1c67e4, 0x80000000, 0x3fc90fdb),
    ("Atan2", 0xff800000, 0x0, 0xbfc90fdb),
    ("Atan2", 0x0, 0x80000133, 0x40490fdb),
    ("Atan2", 0x7f61b1e6, 0x93d7d324, 0x3fc90fdb),
    ("Atan2", 0x7f61b1e6, 0x1f3bc746, 0x3fc90fdb),
    ("Atan2", 0x0, 0x80000000, 0x0),
    ("Atan2", 0x80000000, 0xf9ec85e, 0x0),
    ("Atan2", 0x80000000, 0x0, 0x0),
    ("Atan2", 0x80000000, 0x2672915d, 0x0),
    ("Atan2", 0x4, 0x29565698, 0xc18e13e),
    ("Atan2", 0x7f61b1e6, 0xf4769674, 0x3fc90fdd),
    ("Atan2", 0x7f61b1e6, 0x0, 0x3fc90fdb),
    ("Atan2", 0x80000000, 0x8c8647b8, 0x40490fdb),
    ("Atan2", 0x7f61b1e6, 0xff800000, 0x40490fdb),
    ("Atan2", 0x7f61b1e6, 0x16702683, 0x3fc90fdb),
    ("Atan2", 0x0, 0xcbc6e8bd, 0x40490fdb),
    ("Atan2", 0x6f84ca6c, 0xff800000, 0x40490fdb),
    ("Atan2", 0x8595915c, 0xff800000, 0xc0490fdb),
    ("Atan2", 0x38c86299, 0x7f800000, 0x0),
    ("Atan2", 0xc760f90b, 0xec1ddd66, 0xc0490fdb),
    ("Atan2", 0x80000000, 0xff800000, 0x40490fdb),
    ("Atan2", 0x80000000, 0xff800000, 0x40490fdb),
    ("Atan2", 0x7f61b1e6, 0x6e9f728b, 0x3fc90fdb),
    ("Atan2", 0xff800000, 0x2cc026f9, 0xbfc90fdb),
    ("Atan2", 0xc453b647, 0x0, 0xbfc90fdb),
    ("Atan2", 0x5261afe9, 0x7f800000, 0x0),
];
}
