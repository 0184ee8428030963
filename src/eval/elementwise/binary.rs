//! Binary element-wise ops, with XLA's reference-evaluator results at the edges:
//! - integer `divide`: x/0 is −1 (signed) or the type's maximum (unsigned); MIN/−1 is MIN;
//! - integer `remainder`: x%0 is x; MIN%−1 is 0; the result has the dividend's sign;
//! - shifts: an amount at or past the bit width (read as unsigned) gives 0, or for
//!   `shift-right-arithmetic` −1 when the operand is negative (its bits read as signed);
//! - `maximum`/`minimum` of floats: a NaN operand is returned (lhs first); otherwise IEEE
//!   754-2019 `maximum`/`minimum`, which order −0 below +0 (StableHLO's specification and XLA:CPU
//!   do so; XLA's evaluator returns the lhs of equal operands, so the sign of a zero from zeros of
//!   both signs is the implementation's choice, and the book's cases say so);
//! - `power`: x⁰ = 1 and 1ʸ = 1 always; a signed integer to a negative power is 0 (1 for base 1);
//!   integer powers wrap; floats use IEEE `pow`;
//! - PRED: `add`/`maximum` are OR, `multiply`/`minimum` are AND.

// The integer arms are written once for every width; some of their casts are to the same type
// in one expansion and needed in the others.
#![allow(clippy::unnecessary_cast)]

use super::math::{self, c_narrow, c_widen};
use super::{Fresh, Map, Typed, type_error};
use crate::error::Result;
use crate::hlo::opcode::BinaryOp;
use crate::literal::{ArrayData as D, C64, C128, DataView as V};
use half::{bf16, f16};

/// One arm per integer type; `$x`, `$y` are the elements, `$t` the type, `$u` its unsigned twin
/// and `$s` its signed twin.
macro_rules! ints {
    ($op:expr, $a:expr, $b:expr, |$x:ident, $y:ident, $t:ident, $u:ident, $s:ident| $body:expr $(, $extra:pat => $e:expr)*) => {
        match ($a, $b) {
            (V::S8(p), V::S8(q)) => { #[allow(dead_code)] type $t = i8; #[allow(dead_code)] type $u = u8; #[allow(dead_code)] type $s = i8; Typed::S8(M::map2(p, q, move |$x: $t, $y: $t| $body)) }
            (V::S16(p), V::S16(q)) => { #[allow(dead_code)] type $t = i16; #[allow(dead_code)] type $u = u16; #[allow(dead_code)] type $s = i16; Typed::S16(M::map2(p, q, move |$x: $t, $y: $t| $body)) }
            (V::S32(p), V::S32(q)) => { #[allow(dead_code)] type $t = i32; #[allow(dead_code)] type $u = u32; #[allow(dead_code)] type $s = i32; Typed::S32(M::map2(p, q, move |$x: $t, $y: $t| $body)) }
            (V::S64(p), V::S64(q)) => { #[allow(dead_code)] type $t = i64; #[allow(dead_code)] type $u = u64; #[allow(dead_code)] type $s = i64; Typed::S64(M::map2(p, q, move |$x: $t, $y: $t| $body)) }
            (V::U8(p), V::U8(q)) => { #[allow(dead_code)] type $t = u8; #[allow(dead_code)] type $u = u8; #[allow(dead_code)] type $s = i8; Typed::U8(M::map2(p, q, move |$x: $t, $y: $t| $body)) }
            (V::U16(p), V::U16(q)) => { #[allow(dead_code)] type $t = u16; #[allow(dead_code)] type $u = u16; #[allow(dead_code)] type $s = i16; Typed::U16(M::map2(p, q, move |$x: $t, $y: $t| $body)) }
            (V::U32(p), V::U32(q)) => { #[allow(dead_code)] type $t = u32; #[allow(dead_code)] type $u = u32; #[allow(dead_code)] type $s = i32; Typed::U32(M::map2(p, q, move |$x: $t, $y: $t| $body)) }
            (V::U64(p), V::U64(q)) => { #[allow(dead_code)] type $t = u64; #[allow(dead_code)] type $u = u64; #[allow(dead_code)] type $s = i64; Typed::U64(M::map2(p, q, move |$x: $t, $y: $t| $body)) }
            $($extra => $e,)*
            (other, _) => return Err(type_error($op, other)),
        }
    };
}

/// Floats: `$f32` on F16/BF16 (through F32, rounding once) and F32, `$f64` on F64, then extra arms.
macro_rules! floats {
    ($op:expr, $a:expr, $b:expr, $f32:expr, $f64:expr $(, $extra:pat => $e:expr)*) => {
        match ($a, $b) {
            (V::F16(p), V::F16(q)) => {
                let f = $f32;
                Typed::F16(M::map2(p, q, move |x: f16, y: f16| f16::from_f32(f(x.to_f32(), y.to_f32()))))
            }
            (V::BF16(p), V::BF16(q)) => {
                let f = $f32;
                Typed::BF16(M::map2(p, q, move |x: bf16, y: bf16| bf16::from_f32(f(x.to_f32(), y.to_f32()))))
            }
            (V::F32(p), V::F32(q)) => Typed::F32(M::map2(p, q, $f32)),
            (V::F64(p), V::F64(q)) => Typed::F64(M::map2(p, q, $f64)),
            $($extra => $e,)*
            (other, _) => return Err(type_error($op, other)),
        }
    };
}

/// `ints!` for the ops whose float and complex arms follow a common pattern.
macro_rules! arith {
    ($op:expr, $a:expr, $b:expr, |$x:ident, $y:ident, $t:ident, $u:ident, $s:ident| $ibody:expr, $f32:expr, $f64:expr, $c:expr $(, $extra:pat => $e:expr)*) => {{
        #[allow(unreachable_patterns)]
        let r = match ($a, $b) {
            $($extra => $e,)*
            (V::F16(_), V::F16(_)) | (V::BF16(_), V::BF16(_)) | (V::F32(_), V::F32(_)) | (V::F64(_), V::F64(_)) => {
                floats!($op, $a, $b, $f32, $f64)
            }
            (V::C64(p), V::C64(q)) => {
                let f = $c;
                Typed::C64(M::map2(p, q, move |x: C64, y: C64| c_narrow(f(c_widen(x), c_widen(y)))))
            }
            (V::C128(p), V::C128(q)) => Typed::C128(M::map2(p, q, $c)),
            _ => ints!($op, $a, $b, |$x, $y, $t, $u, $s| $ibody),
        };
        r
    }};
}

/// Integer power by squaring, wrapping (XLA's `IPow` on the unsigned twin).
fn ipow(mut base: u64, mut exp: u64) -> u64 {
    let mut r: u64 = 1;
    while exp > 0 {
        if exp & 1 == 1 {
            r = r.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exp >>= 1;
    }
    r
}

/// Float maximum/minimum on the native type (so NaN payloads pass through untouched). Equal
/// operands are equal values, so only a pair of zeros can tell which one comes out: the one with
/// the sign IEEE 754-2019 orders higher (maximum) or lower (minimum).
macro_rules! fmaxmin {
    ($p:expr, $q:expr, $max:expr) => {
        M::map2($p, $q, move |x, y| {
            if x.is_nan() {
                x
            } else if y.is_nan() {
                y
            } else if x < y {
                if $max { y } else { x }
            } else if y < x {
                if $max { x } else { y }
            } else if x.is_sign_negative() == $max {
                y
            } else {
                x
            }
        })
    };
}

/// `op` on elements of equal length (or one of them a single element standing for a scalar).
pub fn eval(op: BinaryOp, a: V<'_>, b: V<'_>) -> Result<D> {
    eval_with::<Fresh>(op, a, b).map(Typed::into_data)
}

/// `op`'s element function for `a`'s and `b`'s element types, applied as `M` applies it: at
/// once (`Fresh`), or kept as a kernel that fused groups run chunk by chunk (`Kernels`, whose
/// operands here only select the types). Both paths share every element function below.
pub fn eval_with<M: Map>(op: BinaryOp, a: V<'_>, b: V<'_>) -> Result<Typed<M>> {
    use BinaryOp::*;
    Ok(match op {
        Add => arith!(op, a, b, |x, y, T, U, S| x.wrapping_add(y),
            |x: f32, y: f32| x + y, |x: f64, y: f64| x + y, |x: C128, y: C128| x + y,
            (V::C64(p), V::C64(q)) => Typed::C64(M::map2(p, q, |x: C64, y: C64| x + y)),
            (V::Pred(p), V::Pred(q)) => Typed::Pred(M::map2(p, q, |x: bool, y: bool| x | y))),
        Subtract => arith!(op, a, b, |x, y, T, U, S| x.wrapping_sub(y),
            |x: f32, y: f32| x - y, |x: f64, y: f64| x - y, |x: C128, y: C128| x - y,
            (V::C64(p), V::C64(q)) => Typed::C64(M::map2(p, q, |x: C64, y: C64| x - y))),
        Multiply => arith!(op, a, b, |x, y, T, U, S| x.wrapping_mul(y),
            |x: f32, y: f32| x * y, |x: f64, y: f64| x * y, math::c_mul,
            (V::Pred(p), V::Pred(q)) => Typed::Pred(M::map2(p, q, |x: bool, y: bool| x & y))),
        Divide => arith!(
            op,
            a,
            b,
            |x, y, T, U, S| {
                if y == 0 {
                    // −1 for signed types, all ones (the maximum) for unsigned: the same bits.
                    !T::default()
                } else {
                    x.wrapping_div(y)
                }
            },
            |x: f32, y: f32| x / y,
            |x: f64, y: f64| x / y,
            math::c_div
        ),
        Remainder => match (a, b) {
            (V::F16(_), _) | (V::BF16(_), _) | (V::F32(_), _) | (V::F64(_), _) => {
                floats!(op, a, b, |x: f32, y: f32| x % y, |x: f64, y: f64| x % y)
            }
            _ => ints!(op, a, b, |x, y, T, U, S| if y == 0 {
                x
            } else {
                x.wrapping_rem(y)
            }),
        },
        Power => arith!(
            op,
            a,
            b,
            |x, y, T, U, S| {
                let negative = (T::MIN as i128) < 0 && (y as S) < 0;
                if x == 1 || y == 0 {
                    1
                } else if negative {
                    0
                } else {
                    ipow(x as U as u64, y as U as u64) as T
                }
            },
            |x: f32, y: f32| (x as f64).powf(y as f64) as f32,
            |x: f64, y: f64| x.powf(y),
            math::c_pow
        ),
        Atan2 => floats!(op, a, b,
            |x: f32, y: f32| (x as f64).atan2(y as f64) as f32,
            |x: f64, y: f64| x.atan2(y),
            (V::C64(p), V::C64(q)) => Typed::C64(M::map2(p, q, |x: C64, y: C64| c_narrow(math::c_atan2(c_widen(x), c_widen(y))))),
            (V::C128(p), V::C128(q)) => Typed::C128(M::map2(p, q, math::c_atan2))),
        Maximum | Minimum => {
            let max = op == Maximum;
            match (a, b) {
                (V::F16(p), V::F16(q)) => Typed::F16(fmaxmin!(p, q, max)),
                (V::BF16(p), V::BF16(q)) => Typed::BF16(fmaxmin!(p, q, max)),
                (V::F32(p), V::F32(q)) => Typed::F32(fmaxmin!(p, q, max)),
                (V::F64(p), V::F64(q)) => Typed::F64(fmaxmin!(p, q, max)),
                (V::Pred(p), V::Pred(q)) => {
                    Typed::Pred(M::map2(
                        p,
                        q,
                        move |x: bool, y: bool| if max { x | y } else { x & y },
                    ))
                }
                _ => ints!(op, a, b, |x, y, T, U, S| if max {
                    x.max(y)
                } else {
                    x.min(y)
                }),
            }
        }
        And => ints!(op, a, b, |x, y, T, U, S| x & y,
            (V::Pred(p), V::Pred(q)) => Typed::Pred(M::map2(p, q, |x: bool, y: bool| x & y))),
        Or => ints!(op, a, b, |x, y, T, U, S| x | y,
            (V::Pred(p), V::Pred(q)) => Typed::Pred(M::map2(p, q, |x: bool, y: bool| x | y))),
        Xor => ints!(op, a, b, |x, y, T, U, S| x ^ y,
            (V::Pred(p), V::Pred(q)) => Typed::Pred(M::map2(p, q, |x: bool, y: bool| x ^ y))),
        ShiftLeft => ints!(op, a, b, |x, y, T, U, S| {
            let n = y as U;
            if n >= T::BITS as U { 0 } else { x << n }
        }),
        ShiftRightArithmetic => ints!(op, a, b, |x, y, T, U, S| {
            let n = y as U;
            let v = x as S;
            (if n >= T::BITS as U {
                if v < 0 { -1 } else { 0 }
            } else {
                v >> n
            }) as T
        }),
        ShiftRightLogical => ints!(op, a, b, |x, y, T, U, S| {
            let n = y as U;
            (if n >= T::BITS as U { 0 } else { (x as U) >> n }) as T
        }),
        Complex => match (a, b) {
            (V::F32(p), V::F32(q)) => Typed::C64(M::map2(p, q, C64::new)),
            (V::F64(p), V::F64(q)) => Typed::C128(M::map2(p, q, C128::new)),
            (other, _) => return Err(type_error(op, other)),
        },
    })
}
