//! Recognised sub-computations. Calling a sub-computation through the interpreter costs a few
//! allocations per element, so the common shapes of reducer and comparator are recognised by
//! inspecting the computation and run as typed code instead:
//!
//! - a reducer whose only instructions are its two scalar parameters and a root
//!   `add`/`multiply`/`maximum`/`minimum`/`and`/`or` of them (in either order);
//! - a comparator whose root is `compare(p_i, p_j)` of two of its parameters.
//!
//! The typed code computes exactly what the interpreter would: integers wrap, F16/BF16 add and
//! multiply in F32 and round after every step, `maximum`/`minimum` return the lhs NaN first, then
//! the rhs NaN, then `std::max`/`std::min` (lhs on ties), as XLA's evaluator does. The fold order
//! is the same as the general path's, so the two paths agree bit for bit. A computation with any
//! other instruction (even an unused one) takes the general path.

use crate::hlo::ast::{CompId, Module};
use crate::hlo::attrs::ComparisonType;
use crate::hlo::opcode::{BinaryOp, ElementwiseOp, Op};
use crate::literal::{ArrayData, Buf, C64, C128, Scalar};
use half::{bf16, f16};
use std::cmp::Ordering;

/// A recognised reducer. `MaxRev`/`MinRev` are `maximum(p1, p0)` / `minimum(p1, p0)`: the swap
/// matters for floats, where ties between -0 and +0 and NaN payloads depend on operand order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Mul,
    Max,
    MaxRev,
    Min,
    MinRev,
    And,
    Or,
}

/// The parameter number an instruction of computation `c` is, if it is a parameter.
fn param_no(m: &Module, c: CompId, inst: Option<&usize>) -> Option<i64> {
    let comp = m.computations.get(c)?;
    let i = comp.instructions.get(*inst?)?;
    i.parameter_number()
}

/// Recognises `ROOT r = op(p0, p1)` with nothing else in the computation.
pub fn recognise_reducer(m: &Module, c: CompId) -> Option<BinOp> {
    let comp = m.computations.get(c)?;
    if comp.instructions.len() != 3 {
        return None;
    }
    let root = comp.root();
    let a = param_no(m, c, root.operands.first())?;
    let b = param_no(m, c, root.operands.get(1))?;
    let swapped = match (a, b) {
        (0, 1) => false,
        (1, 0) => true,
        _ => return None,
    };
    let Op::Binary(op) = root.op else {
        return None;
    };
    // Only these reducers have a typed loop; any other computation takes the general path.
    Some(match (op, swapped) {
        (BinaryOp::Add, _) => BinOp::Add,
        (BinaryOp::Multiply, _) => BinOp::Mul,
        (BinaryOp::Maximum, false) => BinOp::Max,
        (BinaryOp::Maximum, true) => BinOp::MaxRev,
        (BinaryOp::Minimum, false) => BinOp::Min,
        (BinaryOp::Minimum, true) => BinOp::MinRev,
        (BinaryOp::And, _) => BinOp::And,
        (BinaryOp::Or, _) => BinOp::Or,
        _ => return None,
    })
}

/// A kernel that folds a typed array with a binary function (reduce or reduce-window). `assoc`
/// says the function is exactly associative (so the kernel may split one fold into chunks and
/// combine the partial results in order without changing a bit of the result).
pub trait FoldPlan: Sync {
    fn fold<T, F>(&self, data: &[T], init: T, f: F, assoc: bool) -> Vec<T>
    where
        T: Copy + Send + Sync + 'static,
        F: Fn(T, T) -> T + Sync + Send;
}

/// The sign bit of the float types the typed loops fold (IEEE 754-2019 puts −0 below +0 in
/// `maximum` and `minimum`, like the element-wise ops).
trait SignBit: PartialOrd + Copy {
    fn negative(self) -> bool;
}

macro_rules! sign_bit {
    ($($t:ty),*) => {$(
        impl SignBit for $t {
            #[inline(always)]
            fn negative(self) -> bool {
                self.is_sign_negative()
            }
        }
    )*};
}
sign_bit!(f32, f64, f16, bf16);

/// Float maximum: the lhs NaN, else the rhs NaN, else the larger with −0 below +0.
#[inline(always)]
fn fmax<T: SignBit>(a: T, b: T) -> T {
    #[allow(clippy::eq_op)]
    let (an, bn) = (a != a, b != b);
    if an {
        a
    } else if bn || a < b || (a == b && a.negative()) {
        b
    } else {
        a
    }
}

/// Float minimum: the lhs NaN, else the rhs NaN, else the smaller with −0 below +0.
#[inline(always)]
fn fmin<T: SignBit>(a: T, b: T) -> T {
    #[allow(clippy::eq_op)]
    let (an, bn) = (a != a, b != b);
    if an {
        a
    } else if bn || b < a || (a == b && b.negative()) {
        b
    } else {
        a
    }
}

/// Runs `plan` with the typed function of `op` on `data`, or `None` when the fast path does not
/// cover this combination of type and op (the caller then interprets the computation).
pub fn fold<P: FoldPlan>(plan: &P, data: &ArrayData, init: Scalar, op: BinOp) -> Option<ArrayData> {
    use BinOp::*;
    macro_rules! ints {
        ($($V:ident $t:ty),*) => {$(
            if let (ArrayData::$V(v), Scalar::$V(i)) = (data, init) {
                return Some(ArrayData::$V(Buf::from(match op {
                    Add => plan.fold(v, i, <$t>::wrapping_add, true),
                    Mul => plan.fold(v, i, <$t>::wrapping_mul, true),
                    Max | MaxRev => plan.fold(v, i, |a: $t, b: $t| a.max(b), true),
                    Min | MinRev => plan.fold(v, i, |a: $t, b: $t| a.min(b), true),
                    And => plan.fold(v, i, |a: $t, b: $t| a & b, true),
                    Or => plan.fold(v, i, |a: $t, b: $t| a | b, true),
                })));
            }
        )*};
    }
    ints!(S8 i8, S16 i16, S32 i32, S64 i64, U8 u8, U16 u16, U32 u32, U64 u64);
    macro_rules! floats {
        ($($V:ident $t:ty, $add:expr, $mul:expr);*) => {$(
            if let (ArrayData::$V(v), Scalar::$V(i)) = (data, init) {
                return Some(ArrayData::$V(Buf::from(match op {
                    Add => plan.fold(v, i, $add, false),
                    Mul => plan.fold(v, i, $mul, false),
                    Max => plan.fold(v, i, fmax::<$t>, true),
                    MaxRev => plan.fold(v, i, |a: $t, b: $t| fmax(b, a), true),
                    Min => plan.fold(v, i, fmin::<$t>, true),
                    MinRev => plan.fold(v, i, |a: $t, b: $t| fmin(b, a), true),
                    And | Or => return None,
                })));
            }
        )*};
    }
    floats!(
        F32 f32, |a: f32, b: f32| a + b, |a: f32, b: f32| a * b;
        F64 f64, |a: f64, b: f64| a + b, |a: f64, b: f64| a * b;
        F16 f16, |a: f16, b: f16| f16::from_f32(a.to_f32() + b.to_f32()),
            |a: f16, b: f16| f16::from_f32(a.to_f32() * b.to_f32());
        BF16 bf16, |a: bf16, b: bf16| bf16::from_f32(a.to_f32() + b.to_f32()),
            |a: bf16, b: bf16| bf16::from_f32(a.to_f32() * b.to_f32())
    );
    match (data, init, op) {
        (ArrayData::C64(v), Scalar::C64(i), Add) => Some(ArrayData::C64(
            plan.fold(v, i, |a: C64, b| a + b, false).into(),
        )),
        (ArrayData::C64(v), Scalar::C64(i), Mul) => Some(ArrayData::C64(
            plan.fold(v, i, |a: C64, b| a * b, false).into(),
        )),
        (ArrayData::C128(v), Scalar::C128(i), Add) => Some(ArrayData::C128(
            plan.fold(v, i, |a: C128, b| a + b, false).into(),
        )),
        (ArrayData::C128(v), Scalar::C128(i), Mul) => Some(ArrayData::C128(
            plan.fold(v, i, |a: C128, b| a * b, false).into(),
        )),
        (ArrayData::Pred(v), Scalar::Pred(i), And | Min | MinRev) => Some(ArrayData::Pred(
            plan.fold(v, i, |a: bool, b| a & b, true).into(),
        )),
        (ArrayData::Pred(v), Scalar::Pred(i), Or | Max | MaxRev) => Some(ArrayData::Pred(
            plan.fold(v, i, |a: bool, b| a | b, true).into(),
        )),
        _ => None,
    }
}

/// A recognised comparator: `compare(p_lhs, p_rhs), direction=D` deciding on one operand.
#[derive(Clone, Copy, Debug)]
pub struct Comparator {
    /// Which operand's pair of parameters the comparison reads (params `2k`, `2k+1`).
    pub operand: usize,
    /// True when the root reads `(p_{2k+1}, p_{2k})`, i.e. the arguments reversed.
    pub swapped: bool,
    pub direction: Direction,
    /// `type=TOTALORDER`: floats compare by IEEE total order instead of the partial order.
    pub total: bool,
}

pub use crate::hlo::attrs::ComparisonDirection as Direction;

impl Direction {
    /// The comparison's result for an ordering (`None`: unordered, a NaN under the partial order).
    pub fn holds(self, o: Option<Ordering>) -> bool {
        match (self, o) {
            (Direction::Ne, None) => true,
            (_, None) => false,
            (Direction::Eq, Some(o)) => o == Ordering::Equal,
            (Direction::Ne, Some(o)) => o != Ordering::Equal,
            (Direction::Lt, Some(o)) => o == Ordering::Less,
            (Direction::Le, Some(o)) => o != Ordering::Greater,
            (Direction::Gt, Some(o)) => o == Ordering::Greater,
            (Direction::Ge, Some(o)) => o != Ordering::Less,
        }
    }
}

/// Recognises a comparator of `2 * n` parameters whose root compares one operand's pair. Complex
/// operands and comparison types other than the element type's own (or TOTALORDER on floats) are
/// left to the general path.
pub fn recognise_comparator(
    m: &Module,
    c: CompId,
    types: &[crate::types::ElementType],
) -> Option<Comparator> {
    let comp = m.computations.get(c)?;
    if comp.instructions.len() != 2 * types.len() + 1 {
        return None;
    }
    let root = comp.root();
    let Op::Elementwise(ElementwiseOp::Compare(cmp)) = &root.op else {
        return None;
    };
    let a = param_no(m, c, root.operands.first())?;
    let b = param_no(m, c, root.operands.get(1))?;
    let (operand, swapped) = match (a, b) {
        (a, b) if a % 2 == 0 && b == a + 1 => ((a / 2) as usize, false),
        (a, b) if b % 2 == 0 && a == b + 1 => ((b / 2) as usize, true),
        _ => return None,
    };
    let (direction, total) = comparison_of(cmp, *types.get(operand)?)?;
    Some(Comparator {
        operand,
        swapped,
        direction,
        total,
    })
}

/// The direction of a comparison, and whether it orders floats totally, when it compares
/// scalars of type `ty` by the order `order` implements (`None` for complex types and
/// comparison types that do not fit `ty`).
pub fn comparison_of(
    cmp: &crate::hlo::attrs::CompareAttrs,
    ty: crate::types::ElementType,
) -> Option<(Direction, bool)> {
    let direction = cmp.direction;
    let total = match cmp.compare_type {
        None => false,
        Some(ComparisonType::TotalOrder) if ty.is_float() => true,
        Some(ComparisonType::Float) if ty.is_float() => false,
        Some(ComparisonType::Signed) if ty.is_signed_int() => false,
        Some(ComparisonType::Unsigned) if ty.is_unsigned_int() || ty.is_pred() => false,
        _ => return None,
    };
    if ty.is_complex() {
        return None;
    }
    Some((direction, total))
}

/// Orders two scalars of one real type: integers and PRED by value, floats by the IEEE partial
/// order (`None` when a NaN is involved) or, with `total`, by the IEEE total order
/// (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN).
pub fn order(a: &Scalar, b: &Scalar, total: bool) -> Option<Ordering> {
    match (*a, *b) {
        (Scalar::F16(x), Scalar::F16(y)) => ford(x.to_f32(), y.to_f32(), total),
        (Scalar::BF16(x), Scalar::BF16(y)) => ford(x.to_f32(), y.to_f32(), total),
        (Scalar::F32(x), Scalar::F32(y)) => ford(x, y, total),
        (Scalar::F64(x), Scalar::F64(y)) => {
            if total {
                Some(x.total_cmp(&y))
            } else {
                x.partial_cmp(&y)
            }
        }
        _ => Some(a.as_i128()?.cmp(&b.as_i128()?)),
    }
}

fn ford(x: f32, y: f32, total: bool) -> Option<Ordering> {
    if total {
        Some(x.total_cmp(&y))
    } else {
        x.partial_cmp(&y)
    }
}
