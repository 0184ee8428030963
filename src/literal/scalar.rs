//! Single elements of any type (`Scalar`) and the special values of each type: the lowest and
//! highest finite ones and the values padding is filled with.

use super::{C64, C128};
use crate::shape::PaddingValue;
use crate::types::ElementType;
use half::{bf16, f16};

/// One element of any type, for code that is not performance-critical (parsing, printing, JSON,
/// single-element access).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Pred(bool),
    S8(i8),
    S16(i16),
    S32(i32),
    S64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F16(f16),
    BF16(bf16),
    F32(f32),
    F64(f64),
    C64(C64),
    C128(C128),
}

impl Scalar {
    pub fn ty(&self) -> ElementType {
        match self {
            Scalar::Pred(_) => ElementType::Pred,
            Scalar::S8(_) => ElementType::S8,
            Scalar::S16(_) => ElementType::S16,
            Scalar::S32(_) => ElementType::S32,
            Scalar::S64(_) => ElementType::S64,
            Scalar::U8(_) => ElementType::U8,
            Scalar::U16(_) => ElementType::U16,
            Scalar::U32(_) => ElementType::U32,
            Scalar::U64(_) => ElementType::U64,
            Scalar::F16(_) => ElementType::F16,
            Scalar::BF16(_) => ElementType::BF16,
            Scalar::F32(_) => ElementType::F32,
            Scalar::F64(_) => ElementType::F64,
            Scalar::C64(_) => ElementType::C64,
            Scalar::C128(_) => ElementType::C128,
        }
    }

    /// The value of an integer or PRED scalar, widened; `None` for floats and complex.
    pub fn as_i128(&self) -> Option<i128> {
        Some(match *self {
            Scalar::Pred(b) => b as i128,
            Scalar::S8(x) => x as i128,
            Scalar::S16(x) => x as i128,
            Scalar::S32(x) => x as i128,
            Scalar::S64(x) => x as i128,
            Scalar::U8(x) => x as i128,
            Scalar::U16(x) => x as i128,
            Scalar::U32(x) => x as i128,
            Scalar::U64(x) => x as i128,
            _ => return None,
        })
    }

    /// The value as f64 (integers converted, complex gives the real part).
    pub fn as_f64(&self) -> f64 {
        match *self {
            Scalar::F16(x) => x.to_f64(),
            Scalar::BF16(x) => x.to_f64(),
            Scalar::F32(x) => x as f64,
            Scalar::F64(x) => x,
            Scalar::C64(c) => c.re as f64,
            Scalar::C128(c) => c.re,
            _ => self.as_i128().unwrap_or(0) as f64,
        }
    }

    /// The value as a complex f64 pair.
    pub fn as_c128(&self) -> C128 {
        match *self {
            Scalar::C64(c) => C128::new(c.re as f64, c.im as f64),
            Scalar::C128(c) => c,
            _ => C128::new(self.as_f64(), 0.0),
        }
    }

    /// The zero of a type.
    pub fn zero(ty: ElementType) -> Scalar {
        Scalar::from_f64(ty, 0.0)
    }

    /// Converts an f64 into a type (rounding to nearest for floats; for integers it truncates and
    /// saturates, NaN giving 0). Used for constants and test data, not for `convert` semantics.
    pub fn from_f64(ty: ElementType, x: f64) -> Scalar {
        match ty {
            ElementType::Pred => Scalar::Pred(x != 0.0),
            ElementType::S8 => Scalar::S8(x as i8),
            ElementType::S16 => Scalar::S16(x as i16),
            ElementType::S32 => Scalar::S32(x as i32),
            ElementType::S64 => Scalar::S64(x as i64),
            ElementType::U8 => Scalar::U8(x as u8),
            ElementType::U16 => Scalar::U16(x as u16),
            ElementType::U32 => Scalar::U32(x as u32),
            ElementType::U64 => Scalar::U64(x as u64),
            ElementType::F16 => Scalar::F16(f16::from_f64(x)),
            ElementType::BF16 => Scalar::BF16(bf16::from_f64(x)),
            ElementType::F32 => Scalar::F32(x as f32),
            ElementType::F64 => Scalar::F64(x),
            ElementType::C64 => Scalar::C64(C64::new(x as f32, 0.0)),
            ElementType::C128 => Scalar::C128(C128::new(x, 0.0)),
            ElementType::Token => Scalar::Pred(false),
        }
    }

    /// An integer into an integer or PRED type, if it fits.
    pub fn from_i128(ty: ElementType, x: i128) -> Option<Scalar> {
        Some(match ty {
            ElementType::Pred => Scalar::Pred(x != 0),
            ElementType::S8 => Scalar::S8(i8::try_from(x).ok()?),
            ElementType::S16 => Scalar::S16(i16::try_from(x).ok()?),
            ElementType::S32 => Scalar::S32(i32::try_from(x).ok()?),
            ElementType::S64 => Scalar::S64(i64::try_from(x).ok()?),
            ElementType::U8 => Scalar::U8(u8::try_from(x).ok()?),
            ElementType::U16 => Scalar::U16(u16::try_from(x).ok()?),
            ElementType::U32 => Scalar::U32(u32::try_from(x).ok()?),
            ElementType::U64 => Scalar::U64(u64::try_from(x).ok()?),
            _ => return None,
        })
    }

    /// A complex value into a complex type.
    pub fn from_c128(ty: ElementType, c: C128) -> Scalar {
        match ty {
            ElementType::C64 => Scalar::C64(C64::new(c.re as f32, c.im as f32)),
            ElementType::C128 => Scalar::C128(c),
            _ => Scalar::from_f64(ty, c.re),
        }
    }

    pub fn is_nan(&self) -> bool {
        match *self {
            Scalar::F16(x) => x.is_nan(),
            Scalar::BF16(x) => x.is_nan(),
            Scalar::F32(x) => x.is_nan(),
            Scalar::F64(x) => x.is_nan(),
            Scalar::C64(c) => c.re.is_nan() || c.im.is_nan(),
            Scalar::C128(c) => c.re.is_nan() || c.im.is_nan(),
            _ => false,
        }
    }

    /// Bit-for-bit equality (so -0 != +0 and NaN payloads must match).
    pub fn bits_eq(&self, other: &Scalar) -> bool {
        match (*self, *other) {
            (Scalar::F16(a), Scalar::F16(b)) => a.to_bits() == b.to_bits(),
            (Scalar::BF16(a), Scalar::BF16(b)) => a.to_bits() == b.to_bits(),
            (Scalar::F32(a), Scalar::F32(b)) => a.to_bits() == b.to_bits(),
            (Scalar::F64(a), Scalar::F64(b)) => a.to_bits() == b.to_bits(),
            (Scalar::C64(a), Scalar::C64(b)) => {
                a.re.to_bits() == b.re.to_bits() && a.im.to_bits() == b.im.to_bits()
            }
            (Scalar::C128(a), Scalar::C128(b)) => {
                a.re.to_bits() == b.re.to_bits() && a.im.to_bits() == b.im.to_bits()
            }
            (a, b) => a == b,
        }
    }
}

/// The value that fills padding for a type. `Zero` and `Unknown` give 0 (`false`, `+0.0`,
/// `(0, 0)`); `One` gives 1 (`true`, `1.0`, `(1, 0)`); `Lowest` and `Highest` give the type's
/// lowest and highest finite values (`lowest`, `highest`).
pub fn padding_scalar(ty: ElementType, p: PaddingValue) -> Scalar {
    match p {
        PaddingValue::Zero | PaddingValue::Unknown => Scalar::zero(ty),
        PaddingValue::One => Scalar::from_f64(ty, 1.0),
        PaddingValue::Lowest => lowest(ty),
        PaddingValue::Highest => highest(ty),
    }
}

/// The lowest finite value of a type: `MIN` for signed integers, 0 for unsigned ones, `false` for
/// PRED, `-max` for floats (not -inf). Complex numbers have no order; the reference uses
/// `(-max, 0)` of the component type.
pub fn lowest(ty: ElementType) -> Scalar {
    match ty {
        ElementType::Pred => Scalar::Pred(false),
        ElementType::S8 => Scalar::S8(i8::MIN),
        ElementType::S16 => Scalar::S16(i16::MIN),
        ElementType::S32 => Scalar::S32(i32::MIN),
        ElementType::S64 => Scalar::S64(i64::MIN),
        ElementType::U8 => Scalar::U8(0),
        ElementType::U16 => Scalar::U16(0),
        ElementType::U32 => Scalar::U32(0),
        ElementType::U64 => Scalar::U64(0),
        ElementType::F16 => Scalar::F16(f16::MIN),
        ElementType::BF16 => Scalar::BF16(bf16::MIN),
        ElementType::F32 => Scalar::F32(f32::MIN),
        ElementType::F64 => Scalar::F64(f64::MIN),
        ElementType::C64 => Scalar::C64(C64::new(f32::MIN, 0.0)),
        ElementType::C128 => Scalar::C128(C128::new(f64::MIN, 0.0)),
        ElementType::Token => Scalar::Pred(false),
    }
}

/// The highest finite value of a type: `MAX` for integers, `true` for PRED, `max` for floats (not
/// +inf); `(max, 0)` for complex types.
pub fn highest(ty: ElementType) -> Scalar {
    match ty {
        ElementType::Pred => Scalar::Pred(true),
        ElementType::S8 => Scalar::S8(i8::MAX),
        ElementType::S16 => Scalar::S16(i16::MAX),
        ElementType::S32 => Scalar::S32(i32::MAX),
        ElementType::S64 => Scalar::S64(i64::MAX),
        ElementType::U8 => Scalar::U8(u8::MAX),
        ElementType::U16 => Scalar::U16(u16::MAX),
        ElementType::U32 => Scalar::U32(u32::MAX),
        ElementType::U64 => Scalar::U64(u64::MAX),
        ElementType::F16 => Scalar::F16(f16::MAX),
        ElementType::BF16 => Scalar::BF16(bf16::MAX),
        ElementType::F32 => Scalar::F32(f32::MAX),
        ElementType::F64 => Scalar::F64(f64::MAX),
        ElementType::C64 => Scalar::C64(C64::new(f32::MAX, 0.0)),
        ElementType::C128 => Scalar::C128(C128::new(f64::MAX, 0.0)),
        ElementType::Token => Scalar::Pred(false),
    }
}
