//! Vectors of `W` f64 lanes for the FFT's block kernel: the operations it needs, one
//! implementation per instruction set (portable arrays, AVX2, AVX-512F), each giving the same
//! bits (IEEE additions, subtractions and multiplications lane by lane, no fused multiply-add).

use super::W;

/// W f64 lanes and the arithmetic the kernel needs, one implementation per instruction set.
/// Every operation is an IEEE addition, subtraction or multiplication lane by lane (no fused
/// multiply-add, negation as a product with −1), so every implementation gives the same bits.
///
/// # Safety
/// Every method requires the implementation's instruction set; the pointer ones also W (for the
/// complex ones 2W) valid f64s at `p`.
pub(super) trait Lanes: Copy {
    unsafe fn load(p: *const f64) -> Self;
    unsafe fn store(self, p: *mut f64);
    unsafe fn splat(x: f64) -> Self;
    unsafe fn add(self, b: Self) -> Self;
    unsafe fn sub(self, b: Self) -> Self;
    unsafe fn mul(self, b: Self) -> Self;
    /// W consecutive complex values (re, im, re, im, …) as (real parts, imaginary parts).
    unsafe fn load_complex(p: *const f64) -> (Self, Self);
    /// The inverse of `load_complex`.
    unsafe fn store_complex(re: Self, im: Self, p: *mut f64);
    /// `load_complex` of W complex f32 values (4W bytes), widened exactly.
    unsafe fn load_complex32(p: *const f32) -> (Self, Self);
    /// `store_complex` rounding to complex f32 (to nearest, as `as f32` does).
    unsafe fn store_complex32(re: Self, im: Self, p: *mut f32);
    /// The lanes in reverse order.
    unsafe fn reverse(self) -> Self;
}

/// (ar + i·ai)·(br + i·bi), lane by lane, with the operations and order of `C128`'s product.
#[inline(always)]
pub(super) unsafe fn cmul<L: Lanes>(ar: L, ai: L, br: L, bi: L) -> (L, L) {
    // SAFETY: the caller's instruction set.
    unsafe { (ar.mul(br).sub(ai.mul(bi)), ar.mul(bi).add(ai.mul(br))) }
}

#[derive(Clone, Copy)]
pub(super) struct Portable([f64; W]);

impl Lanes for Portable {
    #[inline(always)]
    unsafe fn load(p: *const f64) -> Self {
        // SAFETY: the caller's contract.
        Portable(unsafe { p.cast::<[f64; W]>().read_unaligned() })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f64) {
        // SAFETY: the caller's contract.
        unsafe { p.cast::<[f64; W]>().write_unaligned(self.0) }
    }
    #[inline(always)]
    unsafe fn splat(x: f64) -> Self {
        Portable([x; W])
    }
    #[inline(always)]
    unsafe fn add(self, b: Self) -> Self {
        Portable(std::array::from_fn(|j| self.0[j] + b.0[j]))
    }
    #[inline(always)]
    unsafe fn sub(self, b: Self) -> Self {
        Portable(std::array::from_fn(|j| self.0[j] - b.0[j]))
    }
    #[inline(always)]
    unsafe fn mul(self, b: Self) -> Self {
        Portable(std::array::from_fn(|j| self.0[j] * b.0[j]))
    }
    #[inline(always)]
    unsafe fn load_complex(p: *const f64) -> (Self, Self) {
        // SAFETY: the caller's contract.
        let v = unsafe { p.cast::<[f64; 2 * W]>().read_unaligned() };
        (
            Portable(std::array::from_fn(|j| v[2 * j])),
            Portable(std::array::from_fn(|j| v[2 * j + 1])),
        )
    }
    #[inline(always)]
    unsafe fn store_complex(re: Self, im: Self, p: *mut f64) {
        let v: [f64; 2 * W] =
            std::array::from_fn(|i| if i % 2 == 0 { re.0[i / 2] } else { im.0[i / 2] });
        // SAFETY: the caller's contract.
        unsafe { p.cast::<[f64; 2 * W]>().write_unaligned(v) }
    }
    #[inline(always)]
    unsafe fn reverse(self) -> Self {
        Portable(std::array::from_fn(|j| self.0[W - 1 - j]))
    }
    #[inline(always)]
    unsafe fn load_complex32(p: *const f32) -> (Self, Self) {
        // SAFETY: the caller's contract.
        let v = unsafe { p.cast::<[f32; 2 * W]>().read_unaligned() };
        (
            Portable(std::array::from_fn(|j| v[2 * j] as f64)),
            Portable(std::array::from_fn(|j| v[2 * j + 1] as f64)),
        )
    }
    #[inline(always)]
    unsafe fn store_complex32(re: Self, im: Self, p: *mut f32) {
        let v: [f32; 2 * W] = std::array::from_fn(|i| {
            if i % 2 == 0 {
                re.0[i / 2] as f32
            } else {
                im.0[i / 2] as f32
            }
        });
        // SAFETY: the caller's contract.
        unsafe { p.cast::<[f32; 2 * W]>().write_unaligned(v) }
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) mod x86 {
    //! The AVX2 (two 256-bit vectors) and AVX-512F (one 512-bit vector) lanes.
    use super::Lanes;
    use std::arch::x86_64::*;

    #[derive(Clone, Copy)]
    pub struct Avx2([__m256d; 2]);

    #[derive(Clone, Copy)]
    pub struct Avx512(__m512d);

    impl Lanes for Avx2 {
        #[inline(always)]
        unsafe fn reverse(self) -> Self {
            // SAFETY: the caller's contract.
            unsafe {
                Avx2([
                    _mm256_permute4x64_pd::<0x1B>(self.0[1]),
                    _mm256_permute4x64_pd::<0x1B>(self.0[0]),
                ])
            }
        }
        #[inline(always)]
        unsafe fn load(p: *const f64) -> Self {
            // SAFETY: the caller's contract.
            unsafe { Avx2([_mm256_loadu_pd(p), _mm256_loadu_pd(p.add(4))]) }
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut f64) {
            // SAFETY: the caller's contract.
            unsafe {
                _mm256_storeu_pd(p, self.0[0]);
                _mm256_storeu_pd(p.add(4), self.0[1]);
            }
        }
        #[inline(always)]
        unsafe fn splat(x: f64) -> Self {
            // SAFETY: the caller's contract.
            unsafe { Avx2([_mm256_set1_pd(x); 2]) }
        }
        #[inline(always)]
        unsafe fn add(self, b: Self) -> Self {
            // SAFETY: the caller's contract.
            unsafe {
                Avx2([
                    _mm256_add_pd(self.0[0], b.0[0]),
                    _mm256_add_pd(self.0[1], b.0[1]),
                ])
            }
        }
        #[inline(always)]
        unsafe fn sub(self, b: Self) -> Self {
            // SAFETY: the caller's contract.
            unsafe {
                Avx2([
                    _mm256_sub_pd(self.0[0], b.0[0]),
                    _mm256_sub_pd(self.0[1], b.0[1]),
                ])
            }
        }
        #[inline(always)]
        unsafe fn mul(self, b: Self) -> Self {
            // SAFETY: the caller's contract.
            unsafe {
                Avx2([
                    _mm256_mul_pd(self.0[0], b.0[0]),
                    _mm256_mul_pd(self.0[1], b.0[1]),
                ])
            }
        }
        #[inline(always)]
        unsafe fn load_complex(p: *const f64) -> (Self, Self) {
            // SAFETY: the caller's contract.
            unsafe {
                let half = |q: *const f64| {
                    let (a, b) = (_mm256_loadu_pd(q), _mm256_loadu_pd(q.add(4)));
                    // unpacklo/hi give (r0 r2 r1 r3) and (i0 i2 i1 i3); 0xD8 restores the order.
                    (
                        _mm256_permute4x64_pd::<0xD8>(_mm256_unpacklo_pd(a, b)),
                        _mm256_permute4x64_pd::<0xD8>(_mm256_unpackhi_pd(a, b)),
                    )
                };
                let (r0, i0) = half(p);
                let (r1, i1) = half(p.add(8));
                (Avx2([r0, r1]), Avx2([i0, i1]))
            }
        }
        #[inline(always)]
        unsafe fn store_complex(re: Self, im: Self, p: *mut f64) {
            // SAFETY: the caller's contract.
            unsafe {
                for h in 0..2 {
                    let r = _mm256_permute4x64_pd::<0xD8>(re.0[h]);
                    let i = _mm256_permute4x64_pd::<0xD8>(im.0[h]);
                    _mm256_storeu_pd(p.add(8 * h), _mm256_unpacklo_pd(r, i));
                    _mm256_storeu_pd(p.add(8 * h + 4), _mm256_unpackhi_pd(r, i));
                }
            }
        }
        #[inline(always)]
        unsafe fn load_complex32(p: *const f32) -> (Self, Self) {
            // SAFETY: the caller's contract.
            unsafe {
                let half = |q: *const f32| {
                    let v = _mm256_loadu_ps(q);
                    let a = _mm256_cvtps_pd(_mm256_castps256_ps128(v));
                    let b = _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(v));
                    (
                        _mm256_permute4x64_pd::<0xD8>(_mm256_unpacklo_pd(a, b)),
                        _mm256_permute4x64_pd::<0xD8>(_mm256_unpackhi_pd(a, b)),
                    )
                };
                let (r0, i0) = half(p);
                let (r1, i1) = half(p.add(8));
                (Avx2([r0, r1]), Avx2([i0, i1]))
            }
        }
        #[inline(always)]
        unsafe fn store_complex32(re: Self, im: Self, p: *mut f32) {
            // SAFETY: the caller's contract.
            unsafe {
                for h in 0..2 {
                    let r = _mm256_permute4x64_pd::<0xD8>(re.0[h]);
                    let i = _mm256_permute4x64_pd::<0xD8>(im.0[h]);
                    _mm_storeu_ps(p.add(8 * h), _mm256_cvtpd_ps(_mm256_unpacklo_pd(r, i)));
                    _mm_storeu_ps(p.add(8 * h + 4), _mm256_cvtpd_ps(_mm256_unpackhi_pd(r, i)));
                }
            }
        }
    }

    impl Lanes for Avx512 {
        #[inline(always)]
        unsafe fn reverse(self) -> Self {
            // SAFETY: the caller's contract.
            unsafe {
                Avx512(_mm512_permutexvar_pd(
                    _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7),
                    self.0,
                ))
            }
        }
        #[inline(always)]
        unsafe fn load(p: *const f64) -> Self {
            // SAFETY: the caller's contract.
            unsafe { Avx512(_mm512_loadu_pd(p)) }
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut f64) {
            // SAFETY: the caller's contract.
            unsafe { _mm512_storeu_pd(p, self.0) }
        }
        #[inline(always)]
        unsafe fn splat(x: f64) -> Self {
            // SAFETY: the caller's contract.
            unsafe { Avx512(_mm512_set1_pd(x)) }
        }
        #[inline(always)]
        unsafe fn add(self, b: Self) -> Self {
            // SAFETY: the caller's contract.
            unsafe { Avx512(_mm512_add_pd(self.0, b.0)) }
        }
        #[inline(always)]
        unsafe fn sub(self, b: Self) -> Self {
            // SAFETY: the caller's contract.
            unsafe { Avx512(_mm512_sub_pd(self.0, b.0)) }
        }
        #[inline(always)]
        unsafe fn mul(self, b: Self) -> Self {
            // SAFETY: the caller's contract.
            unsafe { Avx512(_mm512_mul_pd(self.0, b.0)) }
        }
        #[inline(always)]
        unsafe fn load_complex(p: *const f64) -> (Self, Self) {
            // SAFETY: the caller's contract.
            unsafe {
                let (a, b) = (_mm512_loadu_pd(p), _mm512_loadu_pd(p.add(8)));
                let even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
                let odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
                (
                    Avx512(_mm512_permutex2var_pd(a, even, b)),
                    Avx512(_mm512_permutex2var_pd(a, odd, b)),
                )
            }
        }
        #[inline(always)]
        unsafe fn store_complex(re: Self, im: Self, p: *mut f64) {
            // SAFETY: the caller's contract.
            unsafe {
                let lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
                let hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
                _mm512_storeu_pd(p, _mm512_permutex2var_pd(re.0, lo, im.0));
                _mm512_storeu_pd(p.add(8), _mm512_permutex2var_pd(re.0, hi, im.0));
            }
        }
        #[inline(always)]
        unsafe fn load_complex32(p: *const f32) -> (Self, Self) {
            // SAFETY: the caller's contract.
            unsafe {
                let a = _mm512_cvtps_pd(_mm256_loadu_ps(p));
                let b = _mm512_cvtps_pd(_mm256_loadu_ps(p.add(8)));
                let even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
                let odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
                (
                    Avx512(_mm512_permutex2var_pd(a, even, b)),
                    Avx512(_mm512_permutex2var_pd(a, odd, b)),
                )
            }
        }
        #[inline(always)]
        unsafe fn store_complex32(re: Self, im: Self, p: *mut f32) {
            // SAFETY: the caller's contract.
            unsafe {
                let lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
                let hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
                _mm256_storeu_ps(p, _mm512_cvtpd_ps(_mm512_permutex2var_pd(re.0, lo, im.0)));
                _mm256_storeu_ps(
                    p.add(8),
                    _mm512_cvtpd_ps(_mm512_permutex2var_pd(re.0, hi, im.0)),
                );
            }
        }
    }
}
