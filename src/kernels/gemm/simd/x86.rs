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
            #[inline(always)]
            unsafe fn prefetch(p: *const $e) {
                unsafe { _mm_prefetch::<_MM_HINT_T0>(p as *const i8) }
            }
            #[inline(always)]
            unsafe fn prefetch_l2(p: *const $e) {
                unsafe { _mm_prefetch::<_MM_HINT_T1>(p as *const i8) }
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

// Instances with fewer rows (`MR` of 1, 2, 4 and, for AVX-512, 8) serve products with fewer
// rows than a full tile (a matrix-vector product, a batch of 8): a 12-row tile on one row
// would do twelve times the work.

/// One instruction set's main kernel instances for one element type: `$packed` reads A from
/// a packed panel, `$rows` reads it in place (`MR` rows `lda` apart); both are `body`.
macro_rules! kernel_pair {
    ($packed:ident, $rows:ident, $split:ident, $s:ty, $e:ty, $nv:expr, $features:literal) => {
        #[doc = concat!("`", stringify!($packed), "` for few rows, k split over `SETS` sets of sums (`body_split`).")]
        /// # Safety
        #[doc = concat!("As `", stringify!($packed), "`.")]
        #[target_feature(enable = $features)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $split<const MR: usize, const SETS: usize>(
            k: usize,
            a: *const $e,
            b: *const $e,
            ldb: usize,
            c: *mut $e,
            ldc: usize,
            acc: bool,
            _next: *const $e,
        ) {
            // Few-row products and a block's last, short tile: no tile after them to ask
            // ahead for.
            unsafe { super::body_split::<$s, MR, $nv, SETS>(k, a, b, ldb, c, ldc, acc) }
        }
        /// # Safety
        #[doc = concat!("The CPU must have ", $features, "; pointers as for `body`.")]
        #[target_feature(enable = $features)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $packed<const MR: usize>(
            k: usize,
            a: *const $e,
            b: *const $e,
            ldb: usize,
            c: *mut $e,
            ldc: usize,
            acc: bool,
            next: *const $e,
        ) {
            unsafe { body::<$s, MR, $nv, false>(k, a, 0, b, ldb, c, ldc, acc, next) }
        }
        #[doc = concat!("`", stringify!($packed), "` with A read in place (`MR` rows `lda` apart).")]
        /// # Safety
        #[doc = concat!("As `", stringify!($packed), "`.")]
        #[target_feature(enable = $features)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $rows<const MR: usize>(
            k: usize,
            a: *const $e,
            lda: usize,
            b: *const $e,
            ldb: usize,
            c: *mut $e,
            ldc: usize,
            acc: bool,
        ) {
            unsafe {
                body::<$s, MR, $nv, true>(k, a, lda, b, ldb, c, ldc, acc, std::ptr::null())
            }
        }
    };
}
kernel_pair!(
    avx2_f32,
    avx2_f32_rows,
    avx2_f32_split,
    Avx2F32,
    f32,
    AVX2_NV,
    "avx2,fma"
);
kernel_pair!(
    avx2_f64,
    avx2_f64_rows,
    avx2_f64_split,
    Avx2F64,
    f64,
    AVX2_NV,
    "avx2,fma"
);
kernel_pair!(
    avx512_f32,
    avx512_f32_rows,
    avx512_f32_split,
    Avx512F32,
    f32,
    AVX512_NV,
    "avx512f"
);
kernel_pair!(
    avx512_f64,
    avx512_f64_rows,
    avx512_f64_split,
    Avx512F64,
    f64,
    AVX512_NV,
    "avx512f"
);

/// One body compiled for each instruction set (`$name` with target features `$features`): the
/// features are the only difference between the copies.
macro_rules! both_levels {
    ($($name:ident = $features:literal),+; $gen:tt $args:tt = $body:ident $body_args:tt) => {
        $(both_levels!(@one $name $features $gen $args $body $body_args);)+
    };
    (@one $name:ident $features:literal [$($gen:tt)*] ($($a:ident: $t:ty),* $(,)?)
        $body:ident [$($ba:tt)*]) => {
        /// # Safety
        #[doc = concat!(
            "The CPU must have ", $features, "; pointers as for `", stringify!($body), "`."
        )]
        #[target_feature(enable = $features)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $name<$($gen)*>($($a: $t),*)
        where
            S::E: super::ScalarOps,
        {
            unsafe { super::$body::<$($ba)*>($($a),*) }
        }
    };
}

both_levels!(
    avx2_vecmat = "avx2,fma", avx512_vecmat = "avx512f"; [S: Simd]
    (k: usize, x: *const S::E, b: *const S::E, ldb: usize, y: *mut S::E, n: usize, acc: bool)
        = vecmat_body [S, 8]
);

both_levels!(
    avx2_fewmat = "avx2,fma", avx512_fewmat = "avx512f"; [S: Simd]
    (
        groups: usize,
        k: usize,
        x: *const S::E,
        ldx: usize,
        b: *const S::E,
        ldb: usize,
        y: *mut S::E,
        ldy: usize,
        n: usize,
        acc: bool,
    ) = fewmat_body [S, FEWMAT_R]
);

both_levels!(
    avx2_fma_loop = "avx2,fma", avx512_fma_loop = "avx512f"; [S: Simd, const N: usize]
    (iters: usize, xy: *const S::E, out: *mut S::E) = fma_loop_body [S, N]
);

/// Rows of B per pass of `avx2_fewmat`: eight sequential streams. (On a Zen 3, 8 x 4096 x
/// 4096 against OpenBLAS, paired: 4 rows 1.03-1.15, 8 rows 1.38-1.50, 16 rows 0.90.)
pub const FEWMAT_R: usize = 8;

both_levels!(
    avx2_rowdot = "avx2,fma", avx512_rowdot = "avx512f"; [S: Simd, const R: usize, const NN: usize]
    (
        k: usize,
        a: *const S::E,
        lda: usize,
        bt: *const S::E,
        ldb: usize,
        c: *mut S::E,
        ldc: usize,
    ) = rowdot_body [S, R, NN]
);
