//! Fast kernels (blocked GEMM, convolution through it), each behind a naive oracle
//! (`eval::linalg`) that property tests hold it equal to.

pub mod cache;
pub mod conv;
pub mod factor;
pub mod gemm;
pub mod isa;
pub mod pool;
pub mod scratch;
mod team;

use crate::literal::{C64, C128};
use half::slice::HalfFloatSliceExt;
use half::{bf16, f16};
use std::borrow::Cow;

/// Conversion of any element type into the types the kernels accumulate in: F32 (for F32, F16,
/// BF16), F64, wrapping i64 (integers; `u64` keeps its bit pattern, which wrapping arithmetic
/// treats identically) and C128. PRED converts as 0/1 and complex to float as its real part; the
/// verifier never lets those combinations reach a kernel.
pub trait ToAcc: Copy + Send + Sync {
    fn to_f32(self) -> f32;
    fn to_f64(self) -> f64;
    fn to_i64(self) -> i64;
    fn to_c128(self) -> C128;
}

macro_rules! to_acc_prim {
    ($($t:ty),*) => {$(
        impl ToAcc for $t {
            #[inline(always)]
            fn to_f32(self) -> f32 { self as f32 }
            #[inline(always)]
            fn to_f64(self) -> f64 { self as f64 }
            #[inline(always)]
            fn to_i64(self) -> i64 { self as i64 }
            #[inline(always)]
            fn to_c128(self) -> C128 { C128::new(self as f64, 0.0) }
        }
    )*};
}
to_acc_prim!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

impl ToAcc for bool {
    fn to_f32(self) -> f32 {
        self as u8 as f32
    }
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    fn to_i64(self) -> i64 {
        self as i64
    }
    fn to_c128(self) -> C128 {
        C128::new(self as u8 as f64, 0.0)
    }
}

macro_rules! to_acc_half {
    ($($t:ty),*) => {$(
        impl ToAcc for $t {
            #[inline(always)]
            fn to_f32(self) -> f32 { self.to_f32() }
            #[inline(always)]
            fn to_f64(self) -> f64 { self.to_f64() }
            #[inline(always)]
            fn to_i64(self) -> i64 { self.to_f32() as i64 }
            #[inline(always)]
            fn to_c128(self) -> C128 { C128::new(self.to_f64(), 0.0) }
        }
    )*};
}
to_acc_half!(f16, bf16);

impl ToAcc for C64 {
    fn to_f32(self) -> f32 {
        self.re
    }
    fn to_f64(self) -> f64 {
        self.re as f64
    }
    fn to_i64(self) -> i64 {
        self.re as i64
    }
    fn to_c128(self) -> C128 {
        C128::new(self.re as f64, self.im as f64)
    }
}

impl ToAcc for C128 {
    fn to_f32(self) -> f32 {
        self.re as f32
    }
    fn to_f64(self) -> f64 {
        self.re
    }
    fn to_i64(self) -> i64 {
        self.re as i64
    }
    fn to_c128(self) -> C128 {
        self
    }
}

/// `data` in the accumulation type `T`: borrowed as it is when it already is of type `T`,
/// converted element by element (in parallel) otherwise.
///
/// Why: the kernels are then compiled once per accumulation type (f32, f64, i64) instead of once
/// per pair of element type and accumulation type, which multiplied the GEMM's code (and the
/// build's time) by fifteen. The conversion is one pass over the operands, small next to a
/// product that reads each of their elements many times.
pub fn as_acc<'a, X, T>(data: &'a [X], conv: impl Fn(X) -> T + Sync) -> Cow<'a, [T]>
where
    X: Copy + Sync + 'static,
    T: Copy + Send + 'static,
{
    if std::any::TypeId::of::<X>() == std::any::TypeId::of::<T>() {
        // SAFETY: X and T are the same type (equal TypeIds of 'static types).
        return Cow::Borrowed(unsafe {
            std::slice::from_raw_parts(data.as_ptr() as *const T, data.len())
        });
    }
    let n = data.len();
    if std::any::TypeId::of::<X>() == std::any::TypeId::of::<f16>()
        && std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>()
    {
        // SAFETY: X is f16 (equal TypeIds of 'static types).
        let src = unsafe { std::slice::from_raw_parts(data.as_ptr() as *const f16, n) };
        // F16 to F32 a block at a time through `half`'s slice conversion, which uses the F16C
        // vector instruction where the CPU has it (the per-element conversion calls it on one
        // value at a time). Both are exact, so the values are the same.
        let v: Vec<f32> = pool::fill_fresh(n, pool::chunk_for(n, 1 << 14), &|start, dst| {
            let mut block = [0f32; 256];
            for (d, s) in dst.chunks_mut(256).zip(src[start..].chunks(256)) {
                let b = &mut block[..d.len()];
                s[..d.len()].convert_to_f32_slice(b);
                for (x, &y) in d.iter_mut().zip(b.iter()) {
                    x.write(y);
                }
            }
        });
        let boxed: Box<dyn std::any::Any> = Box::new(v);
        if let Ok(v) = boxed.downcast::<Vec<T>>() {
            return Cow::Owned(*v);
        }
    }
    Cow::Owned(pool::fill_fresh(
        n,
        pool::chunk_for(n, 1 << 14),
        &|start, dst| {
            for (d, &x) in dst.iter_mut().zip(&data[start..]) {
                d.write(conv(x));
            }
        },
    ))
}
