//! `convert`, `bitcast-convert` and `reduce-precision`.
//!
//! `convert` is one generic loop per (source, destination) pair: each destination type says how
//! it is made from a bool, an i64, a u64, an f32, an f64 or a complex value, and each source
//! widens exactly to one of those. Integer to integer wraps (two's complement truncation or
//! extension); float to integer truncates toward zero and saturates, NaN giving 0 (XLA's
//! `Literal::Convert`); anything to PRED is `x != 0` (NaN is true); to a float rounds once to
//! nearest even, going through F32 with round-to-odd where the source is wider (F64, 64-bit
//! integers) so that no double rounding happens; real to complex sets the imaginary part to +0.
//!
//! `bitcast-convert` reinterprets the little-endian bytes of the operand: when the result type is
//! narrower, each element's bytes split in memory order over a new minor dimension (its low-order
//! part first); when wider, the minor dimension's elements join in the same order.

// Each `Dest` impl is written once for several types; some casts are to the same type in one
// expansion and needed in the others.
#![allow(clippy::unnecessary_cast)]

use super::math::{f64_to_f32_odd, reduce_precision_bits, u64_to_f32_odd};
use super::{map1, type_error};
use crate::error::{Error, Result};
use crate::literal::{ArrayData as D, C64, C128, DataView as V, NativeType};
use crate::types::ElementType;
use half::{bf16, f16};

/// How a destination type is made from each widened source value.
trait Dest: NativeType {
    fn from_bool(x: bool) -> Self;
    fn from_i64(x: i64) -> Self;
    fn from_u64(x: u64) -> Self;
    fn from_f32(x: f32) -> Self;
    fn from_f64(x: f64) -> Self;
    /// Complex sources reach only complex destinations (the verifier refuses the rest); real
    /// destinations take the real part so that the function is total.
    fn from_c128(z: C128) -> Self;
    fn from_c64(z: C64) -> Self;
}

macro_rules! int_dest {
    ($($t:ty),*) => {$(
        impl Dest for $t {
            fn from_bool(x: bool) -> Self { x as $t }
            fn from_i64(x: i64) -> Self { x as $t }
            fn from_u64(x: u64) -> Self { x as $t }
            // Rust's float-to-int `as` truncates toward zero, saturates and maps NaN to 0.
            fn from_f32(x: f32) -> Self { x as $t }
            fn from_f64(x: f64) -> Self { x as $t }
            fn from_c128(z: C128) -> Self { z.re as $t }
            fn from_c64(z: C64) -> Self { z.re as $t }
        }
    )*};
}
int_dest!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Dest for bool {
    fn from_bool(x: bool) -> Self {
        x
    }
    fn from_i64(x: i64) -> Self {
        x != 0
    }
    fn from_u64(x: u64) -> Self {
        x != 0
    }
    fn from_f32(x: f32) -> Self {
        x != 0.0
    }
    fn from_f64(x: f64) -> Self {
        x != 0.0
    }
    fn from_c128(z: C128) -> Self {
        z.re != 0.0 || z.im != 0.0
    }
    fn from_c64(z: C64) -> Self {
        z.re != 0.0 || z.im != 0.0
    }
}

/// An i64 to F32 rounded to odd (exact below 2^24).
fn i64_to_f32_odd(x: i64) -> f32 {
    let m = u64_to_f32_odd(x.unsigned_abs());
    if x < 0 { -m } else { m }
}

macro_rules! half_dest {
    ($($t:ty),*) => {$(
        impl Dest for $t {
            fn from_bool(x: bool) -> Self { <$t>::from_f32(x as u8 as f32) }
            fn from_i64(x: i64) -> Self { <$t>::from_f32(i64_to_f32_odd(x)) }
            fn from_u64(x: u64) -> Self { <$t>::from_f32(u64_to_f32_odd(x)) }
            fn from_f32(x: f32) -> Self { <$t>::from_f32(x) }
            fn from_f64(x: f64) -> Self { <$t>::from_f32(f64_to_f32_odd(x)) }
            fn from_c128(z: C128) -> Self { Self::from_f64(z.re) }
            fn from_c64(z: C64) -> Self { Self::from_f32(z.re) }
        }
    )*};
}
half_dest!(f16, bf16);

macro_rules! float_dest {
    ($($t:ty),*) => {$(
        impl Dest for $t {
            fn from_bool(x: bool) -> Self { x as u8 as $t }
            // Rust's int-to-float `as` rounds to nearest, ties to even.
            fn from_i64(x: i64) -> Self { x as $t }
            fn from_u64(x: u64) -> Self { x as $t }
            fn from_f32(x: f32) -> Self { x as $t }
            fn from_f64(x: f64) -> Self { x as $t }
            fn from_c128(z: C128) -> Self { z.re as $t }
            fn from_c64(z: C64) -> Self { z.re as $t }
        }
    )*};
}
float_dest!(f32, f64);

macro_rules! complex_dest {
    ($t:ty, $c:ty) => {
        impl Dest for $c {
            fn from_bool(x: bool) -> Self {
                <$c>::new(x as u8 as $t, 0.0)
            }
            fn from_i64(x: i64) -> Self {
                <$c>::new(x as $t, 0.0)
            }
            fn from_u64(x: u64) -> Self {
                <$c>::new(x as $t, 0.0)
            }
            fn from_f32(x: f32) -> Self {
                <$c>::new(x as $t, 0.0)
            }
            fn from_f64(x: f64) -> Self {
                <$c>::new(x as $t, 0.0)
            }
            fn from_c128(z: C128) -> Self {
                <$c>::new(z.re as $t, z.im as $t)
            }
            fn from_c64(z: C64) -> Self {
                <$c>::new(z.re as $t, z.im as $t)
            }
        }
    };
}
complex_dest!(f32, C64);
complex_dest!(f64, C128);

/// The typed loop from any source to destination `T`.
fn conv<T: Dest>(src: V<'_>) -> D {
    T::into_data(match src {
        V::Pred(v) => map1(v, T::from_bool),
        V::S8(v) => map1(v, |x: i8| T::from_i64(x as i64)),
        V::S16(v) => map1(v, |x: i16| T::from_i64(x as i64)),
        V::S32(v) => map1(v, |x: i32| T::from_i64(x as i64)),
        V::S64(v) => map1(v, T::from_i64),
        V::U8(v) => map1(v, |x: u8| T::from_u64(x as u64)),
        V::U16(v) => map1(v, |x: u16| T::from_u64(x as u64)),
        V::U32(v) => map1(v, |x: u32| T::from_u64(x as u64)),
        V::U64(v) => map1(v, T::from_u64),
        V::F16(v) => map1(v, |x: f16| T::from_f32(x.to_f32())),
        V::BF16(v) => map1(v, |x: bf16| T::from_f32(x.to_f32())),
        V::F32(v) => map1(v, T::from_f32),
        V::F64(v) => map1(v, T::from_f64),
        V::C64(v) => map1(v, T::from_c64),
        V::C128(v) => map1(v, T::from_c128),
    })
}

pub fn convert(src: V<'_>, to: ElementType) -> Result<D> {
    if src.ty() == to {
        return Ok(src.to_data());
    }
    Ok(match to {
        ElementType::Pred => conv::<bool>(src),
        ElementType::S8 => conv::<i8>(src),
        ElementType::S16 => conv::<i16>(src),
        ElementType::S32 => conv::<i32>(src),
        ElementType::S64 => conv::<i64>(src),
        ElementType::U8 => conv::<u8>(src),
        ElementType::U16 => conv::<u16>(src),
        ElementType::U32 => conv::<u32>(src),
        ElementType::U64 => conv::<u64>(src),
        ElementType::F16 => conv::<f16>(src),
        ElementType::BF16 => conv::<bf16>(src),
        ElementType::F32 => conv::<f32>(src),
        ElementType::F64 => conv::<f64>(src),
        ElementType::C64 => conv::<C64>(src),
        ElementType::C128 => conv::<C128>(src),
        ElementType::Token => return Err(Error::internal("convert to token")),
    })
}

/// The little-endian bytes of every element, in order.
fn to_bytes(d: V<'_>) -> Result<Vec<u8>> {
    Ok(match d {
        V::Pred(_) => return Err(type_error("bitcast-convert", d)),
        V::S8(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        V::S16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        V::S32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        V::S64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        V::U8(v) => v.to_vec(),
        V::U16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        V::U32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        V::U64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        V::F16(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
        V::BF16(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
        V::F32(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
        V::F64(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
        V::C64(v) => v
            .iter()
            .flat_map(|z| {
                let mut b = [0u8; 8];
                b[..4].copy_from_slice(&z.re.to_bits().to_le_bytes());
                b[4..].copy_from_slice(&z.im.to_bits().to_le_bytes());
                b
            })
            .collect(),
        V::C128(v) => v
            .iter()
            .flat_map(|z| {
                let mut b = [0u8; 16];
                b[..8].copy_from_slice(&z.re.to_bits().to_le_bytes());
                b[8..].copy_from_slice(&z.im.to_bits().to_le_bytes());
                b
            })
            .collect(),
    })
}

fn arr<const N: usize>(c: &[u8]) -> [u8; N] {
    let mut b = [0u8; N];
    b.copy_from_slice(c);
    b
}

fn from_bytes(ty: ElementType, b: &[u8]) -> Result<D> {
    macro_rules! read {
        ($n:literal, $f:expr) => {
            b.chunks_exact($n).map(|c| $f(arr::<$n>(c))).collect()
        };
    }
    Ok(match ty {
        ElementType::S8 => D::S8(read!(1, i8::from_le_bytes)),
        ElementType::S16 => D::S16(read!(2, i16::from_le_bytes)),
        ElementType::S32 => D::S32(read!(4, i32::from_le_bytes)),
        ElementType::S64 => D::S64(read!(8, i64::from_le_bytes)),
        ElementType::U8 => D::U8(b.to_vec().into()),
        ElementType::U16 => D::U16(read!(2, u16::from_le_bytes)),
        ElementType::U32 => D::U32(read!(4, u32::from_le_bytes)),
        ElementType::U64 => D::U64(read!(8, u64::from_le_bytes)),
        ElementType::F16 => D::F16(read!(2, |a| f16::from_bits(u16::from_le_bytes(a)))),
        ElementType::BF16 => D::BF16(read!(2, |a| bf16::from_bits(u16::from_le_bytes(a)))),
        ElementType::F32 => D::F32(read!(4, |a| f32::from_bits(u32::from_le_bytes(a)))),
        ElementType::F64 => D::F64(read!(8, |a| f64::from_bits(u64::from_le_bytes(a)))),
        ElementType::C64 => D::C64(read!(8, |a: [u8; 8]| C64::new(
            f32::from_bits(u32::from_le_bytes(arr::<4>(&a[..4]))),
            f32::from_bits(u32::from_le_bytes(arr::<4>(&a[4..])))
        ))),
        ElementType::C128 => D::C128(read!(16, |a: [u8; 16]| C128::new(
            f64::from_bits(u64::from_le_bytes(arr::<8>(&a[..8]))),
            f64::from_bits(u64::from_le_bytes(arr::<8>(&a[8..])))
        ))),
        ElementType::Pred | ElementType::Token => {
            return Err(Error::internal(format!("bitcast-convert to {ty}")));
        }
    })
}

pub fn bitcast(src: V<'_>, to: ElementType) -> Result<D> {
    from_bytes(to, &to_bytes(src)?)
}

/// reduce-precision on every element's bits (see `math::reduce_precision_bits`).
pub fn reduce_precision(src: V<'_>, e: i64, m: i64) -> Result<D> {
    Ok(match src {
        V::F16(v) => D::F16(map1(v, |x: f16| {
            f16::from_bits(reduce_precision_bits(x.to_bits() as u64, 16, 5, 10, e, m) as u16)
        })),
        V::BF16(v) => D::BF16(map1(v, |x: bf16| {
            bf16::from_bits(reduce_precision_bits(x.to_bits() as u64, 16, 8, 7, e, m) as u16)
        })),
        V::F32(v) => D::F32(map1(v, |x: f32| {
            f32::from_bits(reduce_precision_bits(x.to_bits() as u64, 32, 8, 23, e, m) as u32)
        })),
        V::F64(v) => D::F64(map1(v, |x: f64| {
            f64::from_bits(reduce_precision_bits(x.to_bits(), 64, 11, 52, e, m))
        })),
        other => return Err(type_error("reduce-precision", other)),
    })
}
