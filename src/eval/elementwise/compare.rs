//! `compare`: EQ/NE/LT/LE/GT/GE producing PRED. FLOAT comparisons are IEEE 754's (NaN is
//! unordered: only NE holds; −0 equals +0). TOTALORDER compares floats by the total order
//! −NaN < −∞ < −finite < −0 < +0 < +finite < +∞ < +NaN, implemented by mapping each bit pattern
//! to a signed integer key (negative values have their magnitude bits flipped), so NaNs with
//! different payloads are distinct and ordered by payload. SIGNED/UNSIGNED are the integers' own
//! orders; PRED compares false < true. Complex values support only EQ and NE (both components).

use super::{Fresh, Map, Typed, type_error};
use crate::error::Result;
pub use crate::hlo::attrs::{ComparisonDirection as Dir, ComparisonType};
use crate::literal::{ArrayData as D, C64, C128, DataView as V};
use half::{bf16, f16};

/// One loop per direction, comparing `$key(x)` with `$key(y)`.
macro_rules! by_dir {
    ($dir:expr, $p:expr, $q:expr, $key:expr) => {{
        let k = $key;
        match $dir {
            Dir::Eq => M::map2($p, $q, move |x, y| k(x) == k(y)),
            Dir::Ne => M::map2($p, $q, move |x, y| k(x) != k(y)),
            Dir::Lt => M::map2($p, $q, move |x, y| k(x) < k(y)),
            Dir::Le => M::map2($p, $q, move |x, y| k(x) <= k(y)),
            Dir::Gt => M::map2($p, $q, move |x, y| k(x) > k(y)),
            Dir::Ge => M::map2($p, $q, move |x, y| k(x) >= k(y)),
        }
    }};
}

/// Total-order keys: the bits as a signed integer, magnitude flipped for negative values.
fn key16(b: u16) -> i16 {
    let s = b as i16;
    if s < 0 { s ^ 0x7fff } else { s }
}
fn key32(b: u32) -> i32 {
    let s = b as i32;
    if s < 0 { s ^ 0x7fff_ffff } else { s }
}
fn key64(b: u64) -> i64 {
    let s = b as i64;
    if s < 0 { s ^ 0x7fff_ffff_ffff_ffff } else { s }
}

/// `compare` on raw data of equal length: `ty` is the comparison type (`None`: the element
/// type's own order).
pub fn compare_data(dir: Dir, ty: Option<ComparisonType>, a: &D, b: &D) -> Result<D> {
    compare_view(dir, ty, a.view(), b.view())
}

/// `compare_data` on borrowed elements.
pub fn compare_view(dir: Dir, ty: Option<ComparisonType>, a: V<'_>, b: V<'_>) -> Result<D> {
    compare_with::<Fresh>(dir, ty, a, b).map(Typed::into_data)
}

/// `compare`'s element function for these operand types, applied as `M` applies it (`Map`).
pub fn compare_with<M: Map>(
    dir: Dir,
    ty: Option<ComparisonType>,
    a: V<'_>,
    b: V<'_>,
) -> Result<Typed<M>> {
    let ty = ty.unwrap_or_else(|| ComparisonType::default_for(a.ty()));
    let total = ty == ComparisonType::TotalOrder;
    Ok(Typed::Pred(match (a, b) {
        (V::F16(p), V::F16(q)) if total => by_dir!(dir, p, q, |x: f16| key16(x.to_bits())),
        (V::BF16(p), V::BF16(q)) if total => by_dir!(dir, p, q, |x: bf16| key16(x.to_bits())),
        (V::F32(p), V::F32(q)) if total => by_dir!(dir, p, q, |x: f32| key32(x.to_bits())),
        (V::F64(p), V::F64(q)) if total => by_dir!(dir, p, q, |x: f64| key64(x.to_bits())),
        (V::F16(p), V::F16(q)) => by_dir!(dir, p, q, |x: f16| x.to_f32()),
        (V::BF16(p), V::BF16(q)) => by_dir!(dir, p, q, |x: bf16| x.to_f32()),
        (V::F32(p), V::F32(q)) => by_dir!(dir, p, q, |x: f32| x),
        (V::F64(p), V::F64(q)) => by_dir!(dir, p, q, |x: f64| x),
        (V::Pred(p), V::Pred(q)) => by_dir!(dir, p, q, |x: bool| x),
        (V::S8(p), V::S8(q)) => by_dir!(dir, p, q, |x: i8| x),
        (V::S16(p), V::S16(q)) => by_dir!(dir, p, q, |x: i16| x),
        (V::S32(p), V::S32(q)) => by_dir!(dir, p, q, |x: i32| x),
        (V::S64(p), V::S64(q)) => by_dir!(dir, p, q, |x: i64| x),
        (V::U8(p), V::U8(q)) => by_dir!(dir, p, q, |x: u8| x),
        (V::U16(p), V::U16(q)) => by_dir!(dir, p, q, |x: u16| x),
        (V::U32(p), V::U32(q)) => by_dir!(dir, p, q, |x: u32| x),
        (V::U64(p), V::U64(q)) => by_dir!(dir, p, q, |x: u64| x),
        (V::C64(p), V::C64(q)) if dir == Dir::Eq => M::map2(p, q, |x: C64, y: C64| x == y),
        (V::C64(p), V::C64(q)) if dir == Dir::Ne => M::map2(p, q, |x: C64, y: C64| x != y),
        (V::C128(p), V::C128(q)) if dir == Dir::Eq => M::map2(p, q, |x: C128, y: C128| x == y),
        (V::C128(p), V::C128(q)) if dir == Dir::Ne => M::map2(p, q, |x: C128, y: C128| x != y),
        (other, _) => return Err(type_error("compare", other)),
    }))
}
