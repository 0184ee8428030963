//! Unary element-wise ops. Integers: two's complement (`abs` and `negate` of the most negative
//! value give it back), `count-leading-zeros`/`popcnt` on the type's bit pattern. Floats: F16/BF16
//! go through F32 and round once; F32 transcendentals are evaluated in F64 and rounded once
//! (exponentials, sine, cosine and logarithms by `fastexp` and `fasttrig`); F64
//! uses the platform libm, and `math::erf`. Complex: C128 with `math`'s complex helpers; C64 is
//! evaluated in C128 and rounded per component.

// `count-leading-zeros`/`popcnt` cast a u32 count to each integer type, u32 included.
#![allow(clippy::unnecessary_cast)]

use super::fastexp;
use super::fasttrig;
use super::math::{self, c_narrow, c_widen};
use super::{Fresh, Map, Typed, type_error};
use crate::error::Result;
use crate::hlo::opcode::UnaryOp;
use crate::literal::{ArrayData as D, C64, C128, DataView as V};
use half::{bf16, f16};

/// A closure on F32 that evaluates an F64 function and rounds once.
macro_rules! via64 {
    ($f:expr) => {
        |x: f32| ($f)(x as f64) as f32
    };
}

/// Runs `$f32` on F16/BF16 (through F32) and F32, `$f64` on F64.
macro_rules! floats {
    ($op:expr, $d:expr, $f32:expr, $f64:expr $(, $extra:pat => $e:expr)*) => {
        match $d {
            V::F16(v) => Typed::F16(M::map1_via_f32(v, $f32)),
            V::BF16(v) => Typed::BF16(M::map1_via_f32(v, $f32)),
            V::F32(v) => Typed::F32(M::map1(v, $f32)),
            V::F64(v) => Typed::F64(M::map1(v, $f64)),
            $($extra => $e,)*
            other => return Err(type_error($op, other)),
        }
    };
}

/// `floats!` plus complex: `$c` runs on C128; C64 goes through it and rounds per component.
macro_rules! floats_complex {
    ($op:expr, $d:expr, $f32:expr, $f64:expr, $c:expr) => {
        floats!($op, $d, $f32, $f64,
            V::C64(v) => {
                let f = $c;
                Typed::C64(M::map1(v, move |z: C64| c_narrow(f(c_widen(z)))))
            },
            V::C128(v) => Typed::C128(M::map1(v, $c))
        )
    };
}

/// `floats_complex!` for an F32 function computed in F64 by the branch-free `$fast` on the
/// arguments `$dom` accepts and by libm's `$libm` on the rest, in two passes (`map1_fix`) so
/// that the loop over the elements vectorises. F16/BF16 go through the same F32 function; F64
/// uses `$libm`.
macro_rules! floats_complex_split {
    ($op:expr, $d:expr, $fast:expr, $dom:expr, $libm:expr, $c:expr) => {{
        let fast = |x: f32| ($fast)(x as f64) as f32;
        let ok = |x: f32| ($dom)(x as f64);
        let slow = |x: f32| ($libm)(x as f64) as f32;
        match $d {
            V::F16(v) => Typed::F16(M::map1_fix_via_f32(v, fast, ok, slow)),
            V::BF16(v) => Typed::BF16(M::map1_fix_via_f32(v, fast, ok, slow)),
            V::F32(v) => Typed::F32(M::map1_fix(v, fast, ok, slow)),
            V::F64(v) => Typed::F64(M::map1(v, $libm)),
            V::C64(v) => {
                let f = $c;
                Typed::C64(M::map1(v, move |z: C64| c_narrow(f(c_widen(z)))))
            }
            V::C128(v) => Typed::C128(M::map1(v, $c)),
            other => return Err(type_error($op, other)),
        }
    }};
}

/// Runs a body on every integer type; `$x` is the element.
macro_rules! ints {
    ($op:expr, $d:expr, $x:ident => $body:expr $(, $extra:pat => $e:expr)*) => {
        match $d {
            V::S8(v) => Typed::S8(M::map1(v, |$x: i8| $body)),
            V::S16(v) => Typed::S16(M::map1(v, |$x: i16| $body)),
            V::S32(v) => Typed::S32(M::map1(v, |$x: i32| $body)),
            V::S64(v) => Typed::S64(M::map1(v, |$x: i64| $body)),
            V::U8(v) => Typed::U8(M::map1(v, |$x: u8| $body)),
            V::U16(v) => Typed::U16(M::map1(v, |$x: u16| $body)),
            V::U32(v) => Typed::U32(M::map1(v, |$x: u32| $body)),
            V::U64(v) => Typed::U64(M::map1(v, |$x: u64| $body)),
            $($extra => $e,)*
            other => return Err(type_error($op, other)),
        }
    };
}

/// Runs a body on every signed integer type, then `$rest` arms.
macro_rules! signed {
    ($op:expr, $d:expr, $x:ident => $body:expr $(, $extra:pat => $e:expr)*) => {
        match $d {
            V::S8(v) => Typed::S8(M::map1(v, |$x: i8| $body)),
            V::S16(v) => Typed::S16(M::map1(v, |$x: i16| $body)),
            V::S32(v) => Typed::S32(M::map1(v, |$x: i32| $body)),
            V::S64(v) => Typed::S64(M::map1(v, |$x: i64| $body)),
            $($extra => $e,)*
            other => return Err(type_error($op, other)),
        }
    };
}

pub fn eval(op: UnaryOp, d: V<'_>) -> Result<D> {
    eval_with::<Fresh>(op, d).map(Typed::into_data)
}

/// `op`'s element function for `d`'s element type, applied as `M` applies it: at once
/// (`Fresh`), or kept as a kernel that fused groups run chunk by chunk (`Kernels`, whose operand
/// here only selects the type). Both paths share every element function below.
pub fn eval_with<M: Map>(op: UnaryOp, d: V<'_>) -> Result<Typed<M>> {
    use UnaryOp::*;
    Ok(match op {
        Abs => signed!(op, d, x => x.wrapping_abs(),
            V::F16(v) => Typed::F16(M::map1(v, |x: f16| f16::from_bits(x.to_bits() & 0x7fff))),
            V::BF16(v) => Typed::BF16(M::map1(v, |x: bf16| bf16::from_bits(x.to_bits() & 0x7fff))),
            V::F32(v) => Typed::F32(M::map1(v, f32::abs)),
            V::F64(v) => Typed::F64(M::map1(v, f64::abs)),
            V::C64(v) => Typed::F32(M::map1(v, |z: C64| (z.re as f64).hypot(z.im as f64) as f32)),
            V::C128(v) => Typed::F64(M::map1(v, |z: C128| z.re.hypot(z.im)))),
        Negate => ints!(op, d, x => x.wrapping_neg(),
            V::F16(v) => Typed::F16(M::map1(v, |x: f16| f16::from_bits(x.to_bits() ^ 0x8000))),
            V::BF16(v) => Typed::BF16(M::map1(v, |x: bf16| bf16::from_bits(x.to_bits() ^ 0x8000))),
            V::F32(v) => Typed::F32(M::map1(v, |x: f32| -x)),
            V::F64(v) => Typed::F64(M::map1(v, |x: f64| -x)),
            V::C64(v) => Typed::C64(M::map1(v, |z: C64| -z)),
            V::C128(v) => Typed::C128(M::map1(v, |z: C128| -z))),
        Sign => signed!(op, d, x => x.signum(),
            V::F16(v) => Typed::F16(M::map1(v, |x: f16| f16::from_f32(math::sign_f32(x.to_f32())))),
            V::BF16(v) => Typed::BF16(M::map1(v, |x: bf16| bf16::from_f32(math::sign_f32(x.to_f32())))),
            V::F32(v) => Typed::F32(M::map1(v, math::sign_f32)),
            V::F64(v) => Typed::F64(M::map1(v, math::sign_f64)),
            V::C64(v) => Typed::C64(M::map1(v, |z: C64| c_narrow(math::c_sign(c_widen(z))))),
            V::C128(v) => Typed::C128(M::map1(v, math::c_sign))),
        Not => ints!(op, d, x => !x, V::Pred(v) => Typed::Pred(M::map1(v, |x: bool| !x))),
        Clz => ints!(op, d, x => x.leading_zeros() as _),
        PopulationCount => ints!(op, d, x => x.count_ones() as _),
        Ceil => floats!(op, d, f32::ceil, f64::ceil),
        Floor => floats!(op, d, f32::floor, f64::floor),
        RoundNearestAfz => floats!(op, d, f32::round, f64::round),
        RoundNearestEven => floats!(op, d, f32::round_ties_even, f64::round_ties_even),
        IsFinite => match d {
            V::F16(v) => Typed::Pred(M::map1(v, |x: f16| x.is_finite())),
            V::BF16(v) => Typed::Pred(M::map1(v, |x: bf16| x.is_finite())),
            V::F32(v) => Typed::Pred(M::map1(v, f32::is_finite)),
            V::F64(v) => Typed::Pred(M::map1(v, f64::is_finite)),
            other => return Err(type_error(op, other)),
        },
        Real => match d {
            V::C64(v) => Typed::F32(M::map1(v, |z: C64| z.re)),
            V::C128(v) => Typed::F64(M::map1(v, |z: C128| z.re)),
            V::F16(v) => Typed::F16(M::map1(v, |x: f16| x)),
            V::BF16(v) => Typed::BF16(M::map1(v, |x: bf16| x)),
            V::F32(v) => Typed::F32(M::map1(v, |x: f32| x)),
            V::F64(v) => Typed::F64(M::map1(v, |x: f64| x)),
            other => return Err(type_error(op, other)),
        },
        Imag => match d {
            V::C64(v) => Typed::F32(M::map1(v, |z: C64| z.im)),
            V::C128(v) => Typed::F64(M::map1(v, |z: C128| z.im)),
            V::F16(v) => Typed::F16(M::map1(v, |_: f16| f16::ZERO)),
            V::BF16(v) => Typed::BF16(M::map1(v, |_: bf16| bf16::ZERO)),
            V::F32(v) => Typed::F32(M::map1(v, |_: f32| 0.0)),
            V::F64(v) => Typed::F64(M::map1(v, |_: f64| 0.0)),
            other => return Err(type_error(op, other)),
        },
        Sqrt => floats_complex!(op, d, f32::sqrt, f64::sqrt, |z: C128| z.sqrt()),
        Rsqrt => floats_complex!(op, d, via64!(math::rsqrt), math::rsqrt, |z: C128| {
            math::c_div(C128::new(1.0, 0.0), z.sqrt())
        }),
        Cbrt => floats!(op, d, via64!(f64::cbrt), f64::cbrt),
        Exp => floats_complex!(
            op,
            d,
            via64!(fastexp::exp_f64_for_f32),
            f64::exp,
            |z: C128| z.exp()
        ),
        Expm1 => floats_complex!(
            op,
            d,
            via64!(fastexp::expm1_f64_for_f32),
            f64::exp_m1,
            math::c_expm1
        ),
        Log => floats_complex_split!(
            op,
            d,
            fasttrig::log_fast,
            fasttrig::log_in_fast_domain,
            f64::ln,
            |z: C128| z.ln()
        ),
        Log1p => floats_complex_split!(
            op,
            d,
            fasttrig::log1p_fast,
            fasttrig::log1p_in_fast_domain,
            f64::ln_1p,
            math::c_log1p
        ),
        Logistic => floats_complex!(
            op,
            d,
            via64!(math::logistic),
            math::logistic,
            math::c_logistic
        ),
        Sin => floats_complex_split!(
            op,
            d,
            fasttrig::sin_fast,
            fasttrig::trig_in_fast_domain,
            f64::sin,
            |z: C128| z.sin()
        ),
        Cos => floats_complex_split!(
            op,
            d,
            fasttrig::cos_fast,
            fasttrig::trig_in_fast_domain,
            f64::cos,
            |z: C128| z.cos()
        ),
        Tan => floats_complex!(op, d, via64!(f64::tan), f64::tan, |z: C128| z.tan()),
        Tanh => floats_complex!(
            op,
            d,
            via64!(fastexp::tanh_f64_for_f32),
            f64::tanh,
            |z: C128| z.tanh()
        ),
        Erf => floats!(op, d, via64!(math::erf), math::erf),
    })
}
