//! Register-tiled micro-kernels: one generic body, instantiated per instruction set.
//!
//! The body computes an `MR x NR` tile of `C (+)= A_panel * B_panel` from packed panels (A: `MR`
//! values per step of k, B: `NR` values per step), holding the whole tile in vector registers:
//! each step of k loads `NR / LANES` vectors of B, broadcasts each of the `MR` values of A and
//! does `MR * NR / LANES` fused multiply-adds. The same body serves every instruction set through
//! the `Simd` trait; each instruction set gets one `#[target_feature]` wrapper that inlines the
//! body, so the intrinsics are compiled with the features the runtime check found.
//! (The scheme is BLIS's micro-kernel, Van Zee & van de Geijn, "BLIS: A Framework for Rapidly
//! Instantiating BLAS Functionality", ACM TOMS 2015; the generic-body-per-feature structure
//! follows bluss/matrixmultiply.)

/// One vector type of one instruction set and element type.
pub trait Simd {
    type E: Copy;
    type V: Copy;
    const LANES: usize;
    /// # Safety
    /// The instruction set must be available.
    unsafe fn zero() -> Self::V;
    /// # Safety
    /// As `zero`.
    unsafe fn splat(x: Self::E) -> Self::V;
    /// # Safety
    /// `p` must point to `LANES` readable elements.
    unsafe fn load(p: *const Self::E) -> Self::V;
    /// # Safety
    /// `p` must point to `LANES` writable elements.
    unsafe fn store(p: *mut Self::E, v: Self::V);
    /// `acc + a * b`.
    /// # Safety
    /// As `zero`.
    unsafe fn fma(acc: Self::V, a: Self::V, b: Self::V) -> Self::V;
    /// # Safety
    /// As `zero`.
    unsafe fn add(a: Self::V, b: Self::V) -> Self::V;
}

/// Scalar arithmetic of the portable kernel (wrapping for integers, as XLA's integer dot wraps).
pub trait ScalarOps: Copy {
    fn zero() -> Self;
    fn mul_add(acc: Self, a: Self, b: Self) -> Self;
    fn plus(a: Self, b: Self) -> Self;
}

macro_rules! float_ops {
    ($($t:ty),*) => {$(
        impl ScalarOps for $t {
            fn zero() -> $t {
                0.0
            }
            #[inline(always)]
            fn mul_add(acc: $t, a: $t, b: $t) -> $t {
                acc + a * b
            }
            #[inline(always)]
            fn plus(a: $t, b: $t) -> $t {
                a + b
            }
        }
    )*};
}
float_ops!(f32, f64);

impl ScalarOps for i64 {
    fn zero() -> i64 {
        0
    }
    #[inline(always)]
    fn mul_add(acc: i64, a: i64, b: i64) -> i64 {
        acc.wrapping_add(a.wrapping_mul(b))
    }
    #[inline(always)]
    fn plus(a: i64, b: i64) -> i64 {
        a.wrapping_add(b)
    }
}

/// The portable "vector" of one lane: plain scalar code any target runs.
pub struct Portable<T>(std::marker::PhantomData<T>);

impl<T: ScalarOps> Simd for Portable<T> {
    type E = T;
    type V = T;
    const LANES: usize = 1;
    #[inline(always)]
    unsafe fn zero() -> T {
        T::zero()
    }
    #[inline(always)]
    unsafe fn splat(x: T) -> T {
        x
    }
    #[inline(always)]
    unsafe fn load(p: *const T) -> T {
        unsafe { *p }
    }
    #[inline(always)]
    unsafe fn store(p: *mut T, v: T) {
        unsafe { *p = v }
    }
    #[inline(always)]
    unsafe fn fma(acc: T, a: T, b: T) -> T {
        T::mul_add(acc, a, b)
    }
    #[inline(always)]
    unsafe fn add(a: T, b: T) -> T {
        T::plus(a, b)
    }
}

/// The generic micro-kernel body: `C[0..MR, 0..NV*LANES] (+)= sum_p A[p] (x) B[p]`, with `a`
/// holding `k` groups of `MR` values and `b` holding `k` groups of `NV * LANES` values; `c` is
/// row-major with row stride `ldc`. With `accumulate` false, C is overwritten.
///
/// # Safety
/// The instruction set of `S` must be available; `a`, `b` and the C tile must be in bounds.
#[inline(always)]
pub unsafe fn body<S: Simd, const MR: usize, const NV: usize>(
    k: usize,
    a: *const S::E,
    b: *const S::E,
    c: *mut S::E,
    ldc: usize,
    accumulate: bool,
) {
    unsafe {
        let mut acc = [[S::zero(); NV]; MR];
        let (mut a, mut b) = (a, b);
        for _ in 0..k {
            let mut bv = [S::zero(); NV];
            for (j, v) in bv.iter_mut().enumerate() {
                *v = S::load(b.add(j * S::LANES));
            }
            for (i, row) in acc.iter_mut().enumerate() {
                let av = S::splat(*a.add(i));
                for (x, &bj) in row.iter_mut().zip(&bv) {
                    *x = S::fma(*x, av, bj);
                }
            }
            a = a.add(MR);
            b = b.add(NV * S::LANES);
        }
        for (i, row) in acc.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                let p = c.add(i * ldc + j * S::LANES);
                let v = if accumulate { S::add(S::load(p), v) } else { v };
                S::store(p, v);
            }
        }
    }
}

/// The signature every micro-kernel instance has.
pub type KernelFn<T> = unsafe fn(usize, *const T, *const T, *mut T, usize, bool);

#[cfg(target_arch = "x86_64")]
pub mod x86 {
    //! AVX2+FMA (256-bit) and AVX-512F (512-bit) vector types and their kernel instances.
    use super::{Simd, body};
    use std::arch::x86_64::*;

    pub struct Avx2F32;
    pub struct Avx2F64;
    pub struct Avx512F32;
    pub struct Avx512F64;

    macro_rules! simd_impl {
        ($name:ident, $e:ty, $v:ty, $lanes:expr, $zero:ident, $set1:ident, $load:ident,
         $store:ident, $fma:ident, $add:ident) => {
            impl Simd for $name {
                type E = $e;
                type V = $v;
                const LANES: usize = $lanes;
                #[inline(always)]
                unsafe fn zero() -> $v {
                    unsafe { $zero() }
                }
                #[inline(always)]
                unsafe fn splat(x: $e) -> $v {
                    unsafe { $set1(x) }
                }
                #[inline(always)]
                unsafe fn load(p: *const $e) -> $v {
                    unsafe { $load(p) }
                }
                #[inline(always)]
                unsafe fn store(p: *mut $e, v: $v) {
                    unsafe { $store(p, v) }
                }
                #[inline(always)]
                unsafe fn fma(acc: $v, a: $v, b: $v) -> $v {
                    unsafe { $fma(a, b, acc) }
                }
                #[inline(always)]
                unsafe fn add(a: $v, b: $v) -> $v {
                    unsafe { $add(a, b) }
                }
            }
        };
    }

    simd_impl!(
        Avx2F32,
        f32,
        __m256,
        8,
        _mm256_setzero_ps,
        _mm256_set1_ps,
        _mm256_loadu_ps,
        _mm256_storeu_ps,
        _mm256_fmadd_ps,
        _mm256_add_ps
    );
    simd_impl!(
        Avx2F64,
        f64,
        __m256d,
        4,
        _mm256_setzero_pd,
        _mm256_set1_pd,
        _mm256_loadu_pd,
        _mm256_storeu_pd,
        _mm256_fmadd_pd,
        _mm256_add_pd
    );
    simd_impl!(
        Avx512F32,
        f32,
        __m512,
        16,
        _mm512_setzero_ps,
        _mm512_set1_ps,
        _mm512_loadu_ps,
        _mm512_storeu_ps,
        _mm512_fmadd_ps,
        _mm512_add_ps
    );
    simd_impl!(
        Avx512F64,
        f64,
        __m512d,
        8,
        _mm512_setzero_pd,
        _mm512_set1_pd,
        _mm512_loadu_pd,
        _mm512_storeu_pd,
        _mm512_fmadd_pd,
        _mm512_add_pd
    );

    // Tile shapes: AVX2 has 16 vector registers (6x2 accumulators + 2 of B + 1 broadcast);
    // AVX-512 has 32 (12x2 accumulators + 2 of B + 1 broadcast, or the broadcast folded into the
    // FMA's memory operand).
    pub const AVX2_MR: usize = 6;
    pub const AVX2_NV: usize = 2;
    pub const AVX512_MR: usize = 12;
    pub const AVX512_NV: usize = 2;

    /// # Safety
    /// AVX2 and FMA must be available; pointers as for `body`.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn avx2_f32(
        k: usize,
        a: *const f32,
        b: *const f32,
        c: *mut f32,
        ldc: usize,
        acc: bool,
    ) {
        unsafe { body::<Avx2F32, AVX2_MR, AVX2_NV>(k, a, b, c, ldc, acc) }
    }
    /// # Safety
    /// As `avx2_f32`.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn avx2_f64(
        k: usize,
        a: *const f64,
        b: *const f64,
        c: *mut f64,
        ldc: usize,
        acc: bool,
    ) {
        unsafe { body::<Avx2F64, AVX2_MR, AVX2_NV>(k, a, b, c, ldc, acc) }
    }
    /// # Safety
    /// AVX-512F must be available; pointers as for `body`.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn avx512_f32(
        k: usize,
        a: *const f32,
        b: *const f32,
        c: *mut f32,
        ldc: usize,
        acc: bool,
    ) {
        unsafe { body::<Avx512F32, AVX512_MR, AVX512_NV>(k, a, b, c, ldc, acc) }
    }
    /// # Safety
    /// As `avx512_f32`.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn avx512_f64(
        k: usize,
        a: *const f64,
        b: *const f64,
        c: *mut f64,
        ldc: usize,
        acc: bool,
    ) {
        unsafe { body::<Avx512F64, AVX512_MR, AVX512_NV>(k, a, b, c, ldc, acc) }
    }
}
