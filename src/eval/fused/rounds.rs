//! The kernels of threefry's rounds on chunks (`chunks` folds the members into them): a rotation
//! (`shift_or`), one round (`round`) and a chain of up to `MAX_CHAIN` rounds whose intermediate
//! words never leave the registers (`chain`).
//!
//! The round is Salmon et al.'s Threefry-2x32 mix ("Parallel random numbers: as easy as 1, 2,
//! 3", SC 2011), as JAX lowers it: `y' = y + x`, `x' = rotl(x, r) ^ y'`, with the rotation
//! written `or(shift-left(x, a), shift-right-logical(x, b))`. Each kernel computes exactly the ops
//! it stands for, with XLA's rule for shift amounts at or past the width (the result is zero), so
//! none needs `b` to be `BITS - a`.

use crate::eval::elementwise;
use crate::literal::{DataView, NativeType};
use std::mem::MaybeUninit;

/// Unsigned integers `shift_or` and `round` run on.
pub trait Bits:
    NativeType + std::ops::Shl<u32, Output = Self> + std::ops::Shr<u32, Output = Self>
{
    const ZERO: Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn wrapping_add(self, o: Self) -> Self;
    /// The shift amount, or `None` at or past the width (where XLA's shifts give zero).
    fn amount(self) -> Option<u32>;
    /// XLA's `shift-left` by `s`: zero at or past the width.
    #[inline(always)]
    fn shl_xla(self, s: Self) -> Self {
        s.amount().map_or(Self::ZERO, |s| self << s)
    }
    /// XLA's `shift-right-logical` by `s`: zero at or past the width.
    #[inline(always)]
    fn shr_xla(self, s: Self) -> Self {
        s.amount().map_or(Self::ZERO, |s| self >> s)
    }
}

macro_rules! bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            const ZERO: $t = 0;
            #[inline(always)]
            fn or(self, o: $t) -> $t {
                self | o
            }
            #[inline(always)]
            fn xor(self, o: $t) -> $t {
                self ^ o
            }
            #[inline(always)]
            fn wrapping_add(self, o: $t) -> $t {
                <$t>::wrapping_add(self, o)
            }
            #[inline(always)]
            fn amount(self) -> Option<u32> {
                (self < <$t>::BITS as $t).then_some(self as u32)
            }
        }
    )*};
}
bits!(u32, u64);

/// `dst[i] = shift-left(x[i], a[i]) | shift-right-logical(x[i], b[i])`, each operand either
/// `dst.len()` elements or one (a splat); `false` when an operand has another type or length.
pub fn shift_or<T: Bits>(
    dst: &mut [MaybeUninit<T>],
    x: DataView<'_>,
    a: DataView<'_>,
    b: DataView<'_>,
) -> bool {
    let (Some(x), Some(a), Some(b)) = (T::of_view(x), T::of_view(a), T::of_view(b)) else {
        return false;
    };
    let n = dst.len();
    if [x.len(), a.len(), b.len()]
        .iter()
        .any(|&l| l != n && l != 1)
    {
        return false;
    }
    // Through the op-by-op path's loops, which are compiled for AVX2 where the CPU has it.
    use elementwise::lanes::{run1, run3};
    match (x.len() == n, a, b) {
        // The rotation's shape: amounts that are splats inside the width, one plain loop.
        (true, &[sa], &[sb]) if sa.amount().is_some() && sb.amount().is_some() => {
            let (sa, sb) = (sa.amount().unwrap_or(0), sb.amount().unwrap_or(0));
            run1(dst, x, &|v: T| (v << sa).or(v >> sb));
        }
        _ => run3(dst, 0, x, a, b, &|v: T, a: T, b: T| {
            v.shl_xla(a).or(v.shr_xla(b))
        }),
    }
    true
}

/// `dst[i] = (y[i] + x[i]) ^ (shift-left(x[i], a[i]) | shift-right-logical(x[i], b[i]))` with
/// the add wrapping, as XLA's unsigned add does; each operand either `dst.len()` elements or one
/// (a splat); `false` when an operand has another type or length.
pub fn round<T: Bits>(
    dst: &mut [MaybeUninit<T>],
    y: DataView<'_>,
    x: DataView<'_>,
    a: DataView<'_>,
    b: DataView<'_>,
) -> bool {
    let (Some(y), Some(x), Some(a), Some(b)) =
        (T::of_view(y), T::of_view(x), T::of_view(a), T::of_view(b))
    else {
        return false;
    };
    let n = dst.len();
    if [y.len(), x.len(), a.len(), b.len()]
        .iter()
        .any(|&l| l != n && l != 1)
    {
        return false;
    }
    use elementwise::lanes::run2;
    match (y.len() == n, x.len() == n, a, b) {
        // The threefry shape: both words whole, amounts that are splats inside the width.
        (true, true, &[sa], &[sb]) if sa.amount().is_some() && sb.amount().is_some() => {
            let (sa, sb) = (sa.amount().unwrap_or(0), sb.amount().unwrap_or(0));
            run2(dst, y, x, &|y: T, x: T| {
                y.wrapping_add(x).xor((x << sa).or(x >> sb))
            });
        }
        _ => {
            let at = |v: &[T], i: usize| if v.len() == 1 { v[0] } else { v[i] };
            for (i, d) in dst.iter_mut().enumerate() {
                let v = at(x, i);
                d.write(
                    at(y, i)
                        .wrapping_add(v)
                        .xor(v.shl_xla(at(a, i)).or(v.shr_xla(at(b, i)))),
                );
            }
        }
    }
    true
}

/// The most rounds one `chain` kernel runs (threefry injects its key every four rounds, so a
/// longer chain would not occur there).
pub const MAX_CHAIN: usize = 4;

/// `rounds` threefry rounds on `(y, x)`: each `y = y + x` (wrapping, as XLA's unsigned add) then
/// `x = (shift-left(x, a_k) | shift-right-logical(x, b_k)) ^ y`, with `amounts` holding `a_1, b_1,
/// ..., a_r, b_r`; `dy` gets the last `y` and `dx` the last `x`. Each operand is `dx.len()`
/// elements or one (a splat); `false` when an operand has another type or length, or there are
/// no rounds or more than `MAX_CHAIN`.
///
/// Why: between two key injections a threefry iteration is four rounds, and run as four `round`
/// kernels each intermediate word goes to an L1 slot and back, eight stores and loads a word per
/// iteration and eight calls a chunk; here the words stay in registers.
pub fn chain<T: Bits>(
    dy: &mut [MaybeUninit<T>],
    dx: &mut [MaybeUninit<T>],
    y: DataView<'_>,
    x: DataView<'_>,
    amounts: &[DataView<'_>],
) -> bool {
    let n = dx.len();
    let (Some(y), Some(x)) = (T::of_view(y), T::of_view(x)) else {
        return false;
    };
    let rounds = amounts.len() / 2;
    if dy.len() != n
        || !amounts.len().is_multiple_of(2)
        || !(1..=MAX_CHAIN).contains(&rounds)
        || [y.len(), x.len()].iter().any(|&l| l != n && l != 1)
    {
        return false;
    }
    let mut am: [&[T]; 2 * MAX_CHAIN] = [&[]; 2 * MAX_CHAIN];
    for (slot, a) in am.iter_mut().zip(amounts) {
        match T::of_view(*a) {
            Some(v) if v.len() == n || v.len() == 1 => *slot = v,
            _ => return false,
        }
    }
    let am = &am[..2 * rounds];
    // The threefry shape: both words whole, every amount a splat inside the width.
    let splat = |v: &[T]| match v {
        [a] => a.amount(),
        _ => None,
    };
    if y.len() == n && x.len() == n && am.iter().all(|v| splat(v).is_some()) {
        let sh = |k: usize| {
            (
                splat(am[2 * k]).unwrap_or(0),
                splat(am[2 * k + 1]).unwrap_or(0),
            )
        };
        match rounds {
            1 => fast(dy, dx, y, x, [sh(0)]),
            2 => fast(dy, dx, y, x, [sh(0), sh(1)]),
            3 => fast(dy, dx, y, x, [sh(0), sh(1), sh(2)]),
            _ => fast(dy, dx, y, x, [sh(0), sh(1), sh(2), sh(3)]),
        }
        return true;
    }
    let at = |v: &[T], i: usize| if v.len() == 1 { v[0] } else { v[i] };
    for (i, (p, q)) in dy.iter_mut().zip(dx.iter_mut()).enumerate() {
        let (mut a, mut b) = (at(y, i), at(x, i));
        for k in 0..rounds {
            a = a.wrapping_add(b);
            b = b
                .shl_xla(at(am[2 * k], i))
                .or(b.shr_xla(at(am[2 * k + 1], i)))
                .xor(a);
        }
        p.write(a);
        q.write(b);
    }
    true
}

/// `chain` with `R` rounds of amounts inside the width, unrolled, through the element-wise loops
/// compiled for the CPU's vector width.
#[inline(always)]
fn fast<T: Bits, const R: usize>(
    dy: &mut [MaybeUninit<T>],
    dx: &mut [MaybeUninit<T>],
    y: &[T],
    x: &[T],
    sh: [(u32, u32); R],
) {
    elementwise::lanes::run2x2(dy, dx, y, x, &|mut a: T, mut b: T| {
        for &(l, r) in &sh {
            a = a.wrapping_add(b);
            b = (b << l).or(b >> r).xor(a);
        }
        (a, b)
    });
}
