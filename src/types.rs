//! Element types: the primitive types an XLA array can hold.
//!
//! The set is the one the Operation Semantics and Shapes-and-Layout seeds use: PRED, the signed and
//! unsigned integers of 8 to 64 bits, the IEEE floats F16/F32/F64, Google's BF16, and the complex
//! types C64 (two F32) and C128 (two F64). TOKEN is a type of its own with no elements.

use std::fmt;

/// A primitive element type. `Token` is listed here because HLO spells it like one (`token[]`),
/// but a token shape has no dimensions and no data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementType {
    Pred,
    S8,
    S16,
    S32,
    S64,
    U8,
    U16,
    U32,
    U64,
    F16,
    BF16,
    F32,
    F64,
    C64,
    C128,
    Token,
}

/// The broad classes of element types that op constraints are stated in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    Pred,
    Signed,
    Unsigned,
    Float,
    Complex,
    Token,
}

impl ElementType {
    /// Every array element type (not `Token`), in a stable order used by tests and tables.
    pub const ALL: [ElementType; 15] = [
        ElementType::Pred,
        ElementType::S8,
        ElementType::S16,
        ElementType::S32,
        ElementType::S64,
        ElementType::U8,
        ElementType::U16,
        ElementType::U32,
        ElementType::U64,
        ElementType::F16,
        ElementType::BF16,
        ElementType::F32,
        ElementType::F64,
        ElementType::C64,
        ElementType::C128,
    ];

    /// The HLO spelling (`f32`, `pred`, `token`).
    pub fn name(self) -> &'static str {
        use ElementType::*;
        match self {
            Pred => "pred",
            S8 => "s8",
            S16 => "s16",
            S32 => "s32",
            S64 => "s64",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            F16 => "f16",
            BF16 => "bf16",
            F32 => "f32",
            F64 => "f64",
            C64 => "c64",
            C128 => "c128",
            Token => "token",
        }
    }

    pub fn from_name(s: &str) -> Option<ElementType> {
        use ElementType::*;
        Some(match s {
            "pred" => Pred,
            "s8" => S8,
            "s16" => S16,
            "s32" => S32,
            "s64" => S64,
            "u8" => U8,
            "u16" => U16,
            "u32" => U32,
            "u64" => U64,
            "f16" => F16,
            "bf16" => BF16,
            "f32" => F32,
            "f64" => F64,
            "c64" => C64,
            "c128" => C128,
            "token" => Token,
            _ => return None,
        })
    }

    pub fn category(self) -> Category {
        use ElementType::*;
        match self {
            Pred => Category::Pred,
            S8 | S16 | S32 | S64 => Category::Signed,
            U8 | U16 | U32 | U64 => Category::Unsigned,
            F16 | BF16 | F32 | F64 => Category::Float,
            C64 | C128 => Category::Complex,
            Token => Category::Token,
        }
    }

    /// Storage width in bits (PRED counts as 8, as XLA stores it in a byte).
    pub fn bit_width(self) -> u32 {
        use ElementType::*;
        match self {
            Pred | S8 | U8 => 8,
            S16 | U16 | F16 | BF16 => 16,
            S32 | U32 | F32 => 32,
            S64 | U64 | F64 | C64 => 64,
            C128 => 128,
            Token => 0,
        }
    }

    pub fn byte_size(self) -> usize {
        (self.bit_width() / 8) as usize
    }

    pub fn is_integer(self) -> bool {
        matches!(self.category(), Category::Signed | Category::Unsigned)
    }
    pub fn is_signed_int(self) -> bool {
        self.category() == Category::Signed
    }
    pub fn is_unsigned_int(self) -> bool {
        self.category() == Category::Unsigned
    }
    pub fn is_float(self) -> bool {
        self.category() == Category::Float
    }
    pub fn is_complex(self) -> bool {
        self.category() == Category::Complex
    }
    pub fn is_pred(self) -> bool {
        self == ElementType::Pred
    }
    /// Floats and complex: the types whose values may be NaN.
    pub fn is_floating(self) -> bool {
        self.is_float() || self.is_complex()
    }
    /// Every type arithmetic is defined on: integers, floats and complex (not PRED, not TOKEN).
    pub fn is_numeric(self) -> bool {
        self.is_integer() || self.is_floating()
    }
    pub fn is_array_type(self) -> bool {
        self != ElementType::Token
    }

    /// The real component type of a complex type (C64 -> F32, C128 -> F64).
    pub fn complex_component(self) -> Option<ElementType> {
        match self {
            ElementType::C64 => Some(ElementType::F32),
            ElementType::C128 => Some(ElementType::F64),
            _ => None,
        }
    }

    /// The complex type whose components are this float type (F32 -> C64, F64 -> C128).
    pub fn complex_of(self) -> Option<ElementType> {
        match self {
            ElementType::F32 => Some(ElementType::C64),
            ElementType::F64 => Some(ElementType::C128),
            _ => None,
        }
    }

    /// For floats: (exponent bits, mantissa bits) of the IEEE-style encoding.
    pub fn float_format(self) -> Option<(u32, u32)> {
        match self {
            ElementType::F16 => Some((5, 10)),
            ElementType::BF16 => Some((8, 7)),
            ElementType::F32 => Some((8, 23)),
            ElementType::F64 => Some((11, 52)),
            _ => None,
        }
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
