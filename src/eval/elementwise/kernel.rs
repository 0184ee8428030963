//! How an element function is applied: at once over whole operands (`Fresh`), or kept as a kernel
//! that a fused group calls on chunks of its elements (`Kernels`, `eval::fused`).
//!
//! Why one trait for both: every op is written once against `Map` (`unary::eval_with`,
//! `binary::eval_with`, `compare::compare_with`, `select_with`, `clamp_with`), so a fused chunk
//! computes each element with the very function, and the very loop (`lanes`), that the op-by-op
//! path maps over the whole array: the two paths cannot disagree on a value.

use super::{
    Narrow, binary, clamp_with, compare, fix_outside, lanes, map1, map1_fix, map1_fix_via_f32,
    map1_via_f32, map2, map3, select_with, unary, via_f32_into,
};
use crate::hlo::attrs::{ComparisonDirection, ComparisonType};
use crate::hlo::opcode::{BinaryOp, UnaryOp};
use crate::literal::{ArrayData, Buf, DataView, NativeType};
use crate::types::ElementType;
use std::mem::MaybeUninit;
use std::sync::Arc;

/// Applies element functions of one, two or three operands. An operand of one element stands for
/// a scalar broadcast to every position of a longer result.
pub trait Map {
    type Out<V: NativeType>;
    fn map1<T, V, F>(x: &[T], f: F) -> Self::Out<V>
    where
        T: NativeType,
        V: NativeType,
        F: Fn(T) -> V + Sync + Send + 'static;
    /// `f` where `ok` holds of the argument, `slow` elsewhere (`elementwise::map1_fix`).
    fn map1_fix<T, V, F, K, G>(x: &[T], f: F, ok: K, slow: G) -> Self::Out<V>
    where
        T: NativeType,
        V: NativeType,
        F: Fn(T) -> V + Sync + Send + 'static,
        K: Fn(T) -> bool + Sync + Send + 'static,
        G: Fn(T) -> V + Sync + Send + 'static;
    /// An F32 function on F16/BF16, through F32 (`elementwise::map1_via_f32`).
    fn map1_via_f32<H, F>(x: &[H], f: F) -> Self::Out<H>
    where
        H: Narrow + NativeType,
        F: Fn(f32) -> f32 + Sync + Send + 'static;
    /// `map1_fix` through F32 (`elementwise::map1_fix_via_f32`).
    fn map1_fix_via_f32<H, F, K, G>(x: &[H], f: F, ok: K, slow: G) -> Self::Out<H>
    where
        H: Narrow + NativeType,
        F: Fn(f32) -> f32 + Sync + Send + 'static,
        K: Fn(f32) -> bool + Sync + Send + 'static,
        G: Fn(f32) -> f32 + Sync + Send + 'static;
    fn map2<T, U, V, F>(x: &[T], y: &[U], f: F) -> Self::Out<V>
    where
        T: NativeType,
        U: NativeType,
        V: NativeType,
        F: Fn(T, U) -> V + Sync + Send + 'static;
    /// `n` is the result's length (`broadcast_len` of the operands').
    fn map3<A, B, C, V, F>(a: &[A], b: &[B], c: &[C], n: usize, f: F) -> Self::Out<V>
    where
        A: NativeType,
        B: NativeType,
        C: NativeType,
        V: NativeType,
        F: Fn(A, B, C) -> V + Sync + Send + 'static;
}

/// A `Map` result for each element type of the result.
pub enum Typed<M: Map> {
    Pred(M::Out<bool>),
    S8(M::Out<i8>),
    S16(M::Out<i16>),
    S32(M::Out<i32>),
    S64(M::Out<i64>),
    U8(M::Out<u8>),
    U16(M::Out<u16>),
    U32(M::Out<u32>),
    U64(M::Out<u64>),
    F16(M::Out<half::f16>),
    BF16(M::Out<half::bf16>),
    F32(M::Out<f32>),
    F64(M::Out<f64>),
    C64(M::Out<crate::literal::C64>),
    C128(M::Out<crate::literal::C128>),
}

/// Applies the function at once, over whole operands, into a fresh buffer.
pub struct Fresh;

impl Map for Fresh {
    type Out<V: NativeType> = Buf<V>;
    #[inline]
    fn map1<T, V, F>(x: &[T], f: F) -> Buf<V>
    where
        T: NativeType,
        V: NativeType,
        F: Fn(T) -> V + Sync + Send + 'static,
    {
        map1(x, f)
    }
    #[inline]
    fn map1_fix<T, V, F, K, G>(x: &[T], f: F, ok: K, slow: G) -> Buf<V>
    where
        T: NativeType,
        V: NativeType,
        F: Fn(T) -> V + Sync + Send + 'static,
        K: Fn(T) -> bool + Sync + Send + 'static,
        G: Fn(T) -> V + Sync + Send + 'static,
    {
        map1_fix(x, f, ok, slow)
    }
    #[inline]
    fn map1_via_f32<H, F>(x: &[H], f: F) -> Buf<H>
    where
        H: Narrow + NativeType,
        F: Fn(f32) -> f32 + Sync + Send + 'static,
    {
        map1_via_f32(x, f)
    }
    #[inline]
    fn map1_fix_via_f32<H, F, K, G>(x: &[H], f: F, ok: K, slow: G) -> Buf<H>
    where
        H: Narrow + NativeType,
        F: Fn(f32) -> f32 + Sync + Send + 'static,
        K: Fn(f32) -> bool + Sync + Send + 'static,
        G: Fn(f32) -> f32 + Sync + Send + 'static,
    {
        map1_fix_via_f32(x, f, ok, slow)
    }
    #[inline]
    fn map2<T, U, V, F>(x: &[T], y: &[U], f: F) -> Buf<V>
    where
        T: NativeType,
        U: NativeType,
        V: NativeType,
        F: Fn(T, U) -> V + Sync + Send + 'static,
    {
        map2(x, y, f)
    }
    #[inline]
    fn map3<A, B, C, V, F>(a: &[A], b: &[B], c: &[C], n: usize, f: F) -> Buf<V>
    where
        A: NativeType,
        B: NativeType,
        C: NativeType,
        V: NativeType,
        F: Fn(A, B, C) -> V + Sync + Send + 'static,
    {
        map3(a, b, c, n, f)
    }
}

impl Typed<Fresh> {
    pub fn into_data(self) -> ArrayData {
        match self {
            Typed::Pred(v) => ArrayData::Pred(v),
            Typed::S8(v) => ArrayData::S8(v),
            Typed::S16(v) => ArrayData::S16(v),
            Typed::S32(v) => ArrayData::S32(v),
            Typed::S64(v) => ArrayData::S64(v),
            Typed::U8(v) => ArrayData::U8(v),
            Typed::U16(v) => ArrayData::U16(v),
            Typed::U32(v) => ArrayData::U32(v),
            Typed::U64(v) => ArrayData::U64(v),
            Typed::F16(v) => ArrayData::F16(v),
            Typed::BF16(v) => ArrayData::BF16(v),
            Typed::F32(v) => ArrayData::F32(v),
            Typed::F64(v) => ArrayData::F64(v),
            Typed::C64(v) => ArrayData::C64(v),
            Typed::C128(v) => ArrayData::C128(v),
        }
    }
}

/// An element function over chunks: writes every element of `dst` from the operands, each of
/// `dst`'s length or of one element (a scalar, as in `map2`); `false` (nothing promised of
/// `dst`) when an operand has another type, count or length.
pub type Kernel<V> = Arc<dyn Fn(&mut [MaybeUninit<V>], &[DataView<'_>]) -> bool + Send + Sync>;

/// Keeps the function as a `Kernel`, run through the same loops as `Fresh`'s maps.
pub struct Kernels;

/// `dst` filled with one value: an element function of operands that are all scalars, for a
/// longer result.
fn fill<V: Copy>(dst: &mut [MaybeUninit<V>], v: V) {
    for d in dst.iter_mut() {
        d.write(v);
    }
}

/// The one operand of a one-operand kernel, as `T`, when its length suits `n`.
fn one<'a, T: NativeType>(ops: &[DataView<'a>], n: usize) -> Option<&'a [T]> {
    match ops {
        [a] => T::of_view(*a).filter(|x| x.len() == n || x.len() == 1),
        _ => None,
    }
}

impl Map for Kernels {
    type Out<V: NativeType> = Kernel<V>;
    fn map1<T, V, F>(_: &[T], f: F) -> Kernel<V>
    where
        T: NativeType,
        V: NativeType,
        F: Fn(T) -> V + Sync + Send + 'static,
    {
        Arc::new(move |dst, ops| {
            let n = dst.len();
            match one::<T>(ops, n) {
                Some(x) if x.len() == n => lanes::run1(dst, x, &f),
                Some(&[a]) => fill(dst, f(a)),
                _ => return false,
            }
            true
        })
    }
    fn map1_fix<T, V, F, K, G>(_: &[T], f: F, ok: K, slow: G) -> Kernel<V>
    where
        T: NativeType,
        V: NativeType,
        F: Fn(T) -> V + Sync + Send + 'static,
        K: Fn(T) -> bool + Sync + Send + 'static,
        G: Fn(T) -> V + Sync + Send + 'static,
    {
        Arc::new(move |dst, ops| {
            let n = dst.len();
            match one::<T>(ops, n) {
                Some(x) if x.len() == n => {
                    lanes::run1(dst, x, &f);
                    fix_outside(dst, x, &ok, &slow);
                }
                Some(&[a]) => fill(dst, if ok(a) { f(a) } else { slow(a) }),
                _ => return false,
            }
            true
        })
    }
    fn map1_via_f32<H, F>(x: &[H], f: F) -> Kernel<H>
    where
        H: Narrow + NativeType,
        F: Fn(f32) -> f32 + Sync + Send + 'static,
    {
        Self::map1_fix_via_f32(x, f, |_| true, |_| 0.0)
    }
    fn map1_fix_via_f32<H, F, K, G>(_: &[H], f: F, ok: K, slow: G) -> Kernel<H>
    where
        H: Narrow + NativeType,
        F: Fn(f32) -> f32 + Sync + Send + 'static,
        K: Fn(f32) -> bool + Sync + Send + 'static,
        G: Fn(f32) -> f32 + Sync + Send + 'static,
    {
        Arc::new(move |dst, ops| {
            let n = dst.len();
            match one::<H>(ops, n) {
                Some(x) if x.len() == n => via_f32_into(dst, x, &f, &ok, &slow),
                Some(x @ &[_]) => {
                    let mut v = [MaybeUninit::uninit()];
                    via_f32_into(&mut v, x, &f, &ok, &slow);
                    // SAFETY: `via_f32_into` wrote the one element.
                    fill(dst, unsafe { v[0].assume_init() });
                }
                _ => return false,
            }
            true
        })
    }
    fn map2<T, U, V, F>(_: &[T], _: &[U], f: F) -> Kernel<V>
    where
        T: NativeType,
        U: NativeType,
        V: NativeType,
        F: Fn(T, U) -> V + Sync + Send + 'static,
    {
        Arc::new(move |dst, ops| {
            let [a, b] = ops else {
                return false;
            };
            let (Some(x), Some(y)) = (T::of_view(*a), U::of_view(*b)) else {
                return false;
            };
            let n = dst.len();
            match (x, y) {
                (_, &[b]) if x.len() == n && n != 1 => lanes::run1(dst, x, &|a| f(a, b)),
                (&[a], _) if y.len() == n && n != 1 => lanes::run1(dst, y, &|b| f(a, b)),
                _ if x.len() == n && y.len() == n => lanes::run2(dst, x, y, &f),
                // Both scalars, for a longer result.
                (&[a], &[b]) => fill(dst, f(a, b)),
                _ => return false,
            }
            true
        })
    }
    fn map3<A, B, C, V, F>(_: &[A], _: &[B], _: &[C], _: usize, f: F) -> Kernel<V>
    where
        A: NativeType,
        B: NativeType,
        C: NativeType,
        V: NativeType,
        F: Fn(A, B, C) -> V + Sync + Send + 'static,
    {
        Arc::new(move |dst, ops| {
            let [a, b, c] = ops else {
                return false;
            };
            let (Some(a), Some(b), Some(c)) = (A::of_view(*a), B::of_view(*b), C::of_view(*c))
            else {
                return false;
            };
            let n = dst.len();
            match (a, b, c) {
                _ if [a.len(), b.len(), c.len()]
                    .iter()
                    .any(|&l| l != n && l != 1) =>
                {
                    false
                }
                // Every operand a scalar, for a longer result.
                (&[x], &[y], &[z]) if n != 1 => {
                    fill(dst, f(x, y, z));
                    true
                }
                _ => {
                    lanes::run3(dst, 0, a, b, c, &f);
                    true
                }
            }
        })
    }
}

/// The element function of `op` on `ty`, as a chunk kernel (`None` where the verifier refuses
/// the type).
pub fn unary_kernel(op: UnaryOp, ty: ElementType) -> Option<Typed<Kernels>> {
    unary::eval_with::<Kernels>(op, DataView::empty(ty)?).ok()
}

/// The binary element function of `op` for operands of types `a` and `b`, as a chunk kernel
/// (`None` when the verifier would refuse the types).
pub fn binary_kernel(op: BinaryOp, a: ElementType, b: ElementType) -> Option<Typed<Kernels>> {
    binary::eval_with::<Kernels>(op, DataView::empty(a)?, DataView::empty(b)?).ok()
}

/// `compare` in direction `dir` (of comparison type `cty`, `None` for the element type's own)
/// on operands of type `ty`, as a chunk kernel.
pub fn compare_kernel(
    dir: ComparisonDirection,
    cty: Option<ComparisonType>,
    ty: ElementType,
) -> Option<Typed<Kernels>> {
    let v = DataView::empty(ty)?;
    compare::compare_with::<Kernels>(dir, cty, v, v).ok()
}

/// `select` between branches of type `ty`, as a chunk kernel (predicate first).
pub fn select_kernel(ty: ElementType) -> Option<Typed<Kernels>> {
    let p = DataView::empty(ElementType::Pred)?;
    let v = DataView::empty(ty)?;
    select_with::<Kernels>(p, v, v).ok()
}

/// `clamp` on type `ty` (bound, operand, bound), as a chunk kernel.
pub fn clamp_kernel(ty: ElementType) -> Option<Typed<Kernels>> {
    let v = DataView::empty(ty)?;
    clamp_with::<Kernels>(v, v, v).ok()
}
