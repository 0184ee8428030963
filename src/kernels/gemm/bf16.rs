//! BF16 products on AVX512-BF16 (`vdpbf16ps`), F32 results.
//!
//! Algorithm: the BLIS loops of `gemm` (B in `KC x NR` panels, A in `MR x KC` panels, a register
//! tile of C), with the shared dimension taken in pairs: a panel element is a 32-bit pair of
//! BF16 values `(x[2q], x[2q+1])`, and one `vdpbf16ps` adds `a[2q+1] b[2q+1]` and then
//! `a[2q] b[2q]` to each of 16 F32 accumulators (Intel SDM, VDPBF16PS; checked on the machine:
//! odd before even, each step rounded to nearest). One instruction does the work of two F32
//! FMAs on 16 lanes.
//!
//! Exactness: a product of two BF16 values (8 significant bits each) is exact in F32, so each
//! step is exactly an F32 fused multiply-add, which is what the F32 path computes; the
//! instruction differs only in treating subnormal inputs and results as zero. `exact_for` proves
//! no subnormal can occur: when every nonzero `|a| >= 2^ea` and `|b| >= 2^eb` with
//! `ea + eb >= -111`, every product is a multiple of `2^-125`, hence every rounded partial sum is
//! too (a multiple of `2^-125` smaller than `2^-101` is exact in F32, a larger one rounds to a
//! multiple of its ULP, at least `2^-125`): zero, or at least `2^-125` in magnitude, never
//! subnormal. Operands that fail the test take the F32 path. The order of the additions (pairs,
//! odd first, and KC-sized slices) is another valid order of the dot's sum, which the semantics
//! leave to the implementation.

use super::MatRef;
use half::bf16;
use std::mem::MaybeUninit;

/// Rows of the register tile; columns are two vectors of 16.
const MR: usize = 12;
const NR: usize = 32;

/// Whether this machine has the instructions (and `XLA_SPEC_GEMM_KERNEL` does not ask for a
/// kernel without them). Decided once: every BF16 product asks.
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *AVAILABLE.get_or_init(|| {
            let forced = std::env::var("XLA_SPEC_GEMM_KERNEL").ok();
            let allowed = forced
                .as_deref()
                .is_none_or(|k| k == "avx512" || k == "avx512bf16");
            allowed && is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bf16")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether BF16 products take this kernel: the instructions are here and, on this core, the
/// pair instruction does clearly more multiply-adds a second than the F32 kernel (timed once,
/// about a millisecond, by `faster_than_f32`), or `XLA_SPEC_GEMM_KERNEL=avx512bf16` asks for it.
/// Having the instruction is not enough: on Zen 5 this kernel ran a 1024^3 product at 858
/// GFLOP/s, twice the F32 kernel, while on a Xeon (family 6 model 207) it ran at 121, under
/// half of the F32 kernel's 267 (the pair instruction issues there at a third of the FMAs'
/// rate or less).
pub fn preferred() -> bool {
    static PREFERRED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PREFERRED.get_or_init(|| {
        available()
            && (std::env::var("XLA_SPEC_GEMM_KERNEL").is_ok_and(|k| k == "avx512bf16")
                || faster_than_f32())
    })
}

/// Whether this kernel's tile is faster than the F32 kernel's by `PREFERRED_MARGIN` (timed by
/// `tile_ns_per_madd`). Requires `available()`.
fn faster_than_f32() -> bool {
    let (bf16_ns, f32_ns) = tile_ns_per_madd();
    bf16_ns * PREFERRED_MARGIN < f32_ns
}

/// How much faster the pair instruction's tile must run to be chosen. The choice is a timing, so
/// on a core where the two are close, processes could choose differently and sum in different
/// orders (different last bits); the measured cores are far from it either way (Zen 5 about
/// twice as fast, the Xeon about half as fast), and a close call keeps the F32 kernel.
const PREFERRED_MARGIN: f64 = 1.25;

/// Nanoseconds per multiply-add of this kernel's tile and of the F32 kernel's, timed once per
/// process on panels that stay in L1, in alternating rounds (best of each): the figures
/// `preferred` decided by, which `xla-spec bench` reports. Requires `available()`.
pub fn tile_ns_per_madd() -> (f64, f64) {
    static RATES: std::sync::OnceLock<(f64, f64)> = std::sync::OnceLock::new();
    *RATES.get_or_init(time_tiles)
}

fn time_tiles() -> (f64, f64) {
    use std::time::Instant;
    const KP: usize = 128;
    const CALLS: usize = 40;
    let f32k = super::MicroKernel::<f32>::best();
    // Pairs of 1.0 (0x3f80 twice) and 1.0: sums stay exact and far from overflow.
    let a = vec![0x3f80_3f80u32; MR * KP];
    let b = vec![0x3f80_3f80u32; NR * KP];
    let af = vec![1.0f32; f32k.mr * 2 * KP];
    let bf = vec![1.0f32; f32k.nr * 2 * KP];
    let mut c = vec![0f32; MR * NR];
    let mut cf = vec![0f32; f32k.mr * f32k.nr];
    let mut best = (f64::MAX, f64::MAX);
    for _ in 0..6 {
        let t = Instant::now();
        for _ in 0..CALLS {
            // SAFETY: `available()` (the caller's contract); the panels hold KP pairs of MR
            // and NR words, `c` MR rows of NR floats.
            unsafe { tile(KP, &a, &b, c.as_mut_ptr(), NR, true) };
        }
        let ns = t.elapsed().as_nanos() as f64 / (CALLS * MR * NR * 2 * KP) as f64;
        best.0 = best.0.min(ns);
        let t = Instant::now();
        for _ in 0..CALLS {
            // SAFETY: the F32 kernel reads an `mr x 2KP` packed A panel and a `2KP x nr` B
            // panel (rows `nr` apart) and writes an `mr x nr` tile (rows `nr` apart).
            unsafe {
                (f32k.f)(
                    2 * KP,
                    af.as_ptr(),
                    bf.as_ptr(),
                    f32k.nr,
                    cf.as_mut_ptr(),
                    f32k.nr,
                    true,
                    std::ptr::null(),
                )
            };
        }
        let ns = t.elapsed().as_nanos() as f64 / (CALLS * f32k.mr * f32k.nr * 2 * KP) as f64;
        best.1 = best.1.min(ns);
    }
    std::hint::black_box((&c, &cf));
    best
}

/// The smallest binary exponent of a nonzero finite element, or `None` when some nonzero
/// element is subnormal (which the instruction would read as zero); `Some(i32::MAX)` for none.
/// Large operands are scanned in parallel, in 16-bit lanes of the widest vectors the CPU has:
/// scanned on one thread with SSE2, the check took a tenth of a 1024^3 BF16 product on one
/// thread, a fifth of it on two.
fn min_exponent(v: &[bf16]) -> Option<i32> {
    // Elements per task: 512 KiB.
    const CHUNK: usize = 1 << 18;
    let tasks = crate::kernels::pool::threads().min(v.len() / CHUNK);
    if tasks < 2 {
        return min_exponent_here(v);
    }
    let parts = crate::kernels::pool::collect_indexed(tasks, 1, &|t| {
        min_exponent_here(&v[t * v.len() / tasks..(t + 1) * v.len() / tasks])
    });
    parts
        .into_iter()
        .try_fold(i32::MAX, |m, e| e.map(|e| m.min(e)))
}

/// `min_exponent` on the calling thread.
fn min_exponent_here(v: &[bf16]) -> Option<i32> {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx512bw") {
        // SAFETY: the CPU has AVX-512BW (and so AVX-512F), checked just above.
        return unsafe { min_exponent_avx512(v) };
    }
    min_exponent_lanes::<16>(v)
}

/// # Safety
/// The CPU must have AVX-512F and AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn min_exponent_avx512(v: &[bf16]) -> Option<i32> {
    min_exponent_lanes::<32>(v)
}

#[inline(always)]
fn min_exponent_lanes<const N: usize>(v: &[bf16]) -> Option<i32> {
    // Branch-free over the bits in 16-bit lanes, so the scan vectorises even for the baseline
    // target (SSE2 has a signed 16-bit minimum only, and the exponents fit): the smallest biased
    // exponent of the normal elements (zeros, infinities and NaNs count as 255), and whether any
    // is subnormal. (A scan of bools and unsigned minima compiled to a scalar loop that took 6%
    // of a program with two 512x1024x512 dots.)
    let (mut min, mut subnormal) = ([255i16; N], [0i16; N]);
    let lanes = v.chunks_exact(N);
    let rest = lanes.remainder();
    let fold = |x: &[bf16], min: &mut [i16], sub: &mut [i16]| {
        for ((x, m), s) in x.iter().zip(min.iter_mut()).zip(sub.iter_mut()) {
            let b = x.to_bits() as i16;
            let e = (b >> 7) & 0xff;
            let zero_exp = -((e == 0) as i16);
            *s |= zero_exp & (b & 0x7f);
            *m = (*m).min(e | (zero_exp & 255));
        }
    };
    for x in lanes {
        fold(x, &mut min, &mut subnormal);
    }
    fold(rest, &mut min, &mut subnormal);
    let min = min.iter().copied().min().unwrap_or(255);
    match (subnormal.iter().any(|&s| s != 0), min) {
        (true, _) => None,
        (false, 255) => Some(i32::MAX),
        (false, e) => Some(e as i32 - 127),
    }
}

/// Whether `vdpbf16ps` computes exactly the F32 fused multiply-adds on these operands (see the
/// module comment): no subnormal element, and the smallest exponents sum to at least -111.
pub fn exact_for(a: &[bf16], b: &[bf16]) -> bool {
    match (min_exponent(a), min_exponent(b)) {
        (Some(ea), Some(eb)) => ea == i32::MAX || eb == i32::MAX || ea + eb >= -111,
        _ => false,
    }
}

/// Block sizes by the F32 kernels' rule (`Blocks::for_caches`), counting a pair of BF16 values
/// as one 4-byte element: the B micro-panel (`KC/2` pairs x NR) in twice L1, the A block in what
/// L2 leaves beside it. Returns KC in BF16 values and MC.
fn blocks() -> (usize, usize) {
    let b = super::Blocks::for_caches(&crate::kernels::cache::detect(), MR, NR, 4, 1);
    (2 * b.kc, b.mc)
}

/// The pair `(m[i][2q], m[i][2q+1])` (zero past the end of the row) as a 32-bit word.
#[inline(always)]
fn pair(m: &MatRef<bf16>, i: usize, p: usize, k: usize) -> u32 {
    let lo = m.at(i, p).to_bits() as u32;
    let hi = if p + 1 < k {
        m.at(i, p + 1).to_bits() as u32
    } else {
        0
    };
    lo | (hi << 16)
}

/// `c[m x n] = a[m x k] * b[k x n]` in F32, on a machine where `available()`; `c` row-major.
pub fn gemm_bf16(a: MatRef<bf16>, b: MatRef<bf16>, c: &mut [f32]) {
    gemm_bf16_into(a, b, super::as_uninit(c))
}

/// `gemm_bf16` into memory that need not be initialised: every element of `c` is written (see
/// `gemm_into`).
pub fn gemm_bf16_into(a: MatRef<bf16>, b: MatRef<bf16>, c: &mut [MaybeUninit<f32>]) {
    let (m, k, n) = (a.rows.len(), a.cols.len(), b.cols.len());
    assert!(
        b.rows.len() == k && c.len() == m * n && a.in_bounds() && b.in_bounds(),
        "gemm_bf16: inconsistent operands"
    );
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        c.iter_mut().for_each(|x| {
            x.write(0.0);
        });
        return;
    }
    let (kc, mc_max) = blocks();
    let kc = k.div_ceil(k.div_ceil(kc)).div_ceil(2) * 2;
    let small = m.saturating_mul(n).saturating_mul(k) <= super::SMALL_PRODUCT;
    let threads = if small {
        1
    } else {
        crate::kernels::pool::threads()
    };
    let row_blocks = m.div_ceil(mc_max).div_ceil(threads) * threads;
    let mc = m.div_ceil(row_blocks).div_ceil(MR) * MR;
    let bt = b.t();
    let npanels = n.div_ceil(NR);
    // Views whose rows are contiguous are packed by runs.
    let a_rows = a.strided().filter(|s| s.cs == 1);
    let b_rows = b.strided().filter(|s| s.cs == 1);
    for pc in (0..k).step_by(kc) {
        let kcb = kc.min(k - pc);
        let kp = kcb.div_ceil(2);
        // B panels: pair q, column jj at [q * NR + jj].
        let mut bpack = crate::kernels::scratch::Scratch::filled(npanels * NR * kp, 0u32);
        crate::kernels::pool::for_each_chunk(&mut bpack, NR * kp, &|off, panel| {
            let j0 = off / kp;
            let w = NR.min(n - j0);
            match b_rows {
                // Row-major B: pair q interleaves rows 2q and 2q+1 of the panel's columns.
                Some(s) => {
                    for q in 0..kp {
                        let p = pc + 2 * q;
                        let lo = &b.data[s.origin + p * s.rs + j0..][..w];
                        let dst = &mut panel[q * NR..q * NR + w];
                        if p + 1 < k {
                            let hi = &b.data[s.origin + (p + 1) * s.rs + j0..][..w];
                            for ((d, l), h) in dst.iter_mut().zip(lo).zip(hi) {
                                *d = l.to_bits() as u32 | (h.to_bits() as u32) << 16;
                            }
                        } else {
                            for (d, l) in dst.iter_mut().zip(lo) {
                                *d = l.to_bits() as u32;
                            }
                        }
                    }
                }
                None => {
                    for jj in 0..w {
                        for q in 0..kp {
                            panel[q * NR + jj] = pair(&bt, j0 + jj, pc + 2 * q, k);
                        }
                    }
                }
            }
        });
        let bpack = &bpack;
        let block = |off: usize, cblock: &mut [MaybeUninit<f32>]| {
            let i0 = off / n;
            let mcb = cblock.len() / n;
            let mpanels = mcb.div_ceil(MR);
            let mut apack = crate::kernels::scratch::Scratch::filled(mpanels * MR * kp, 0u32);
            for (ip, panel) in apack.chunks_mut(MR * kp).enumerate() {
                for ii in 0..MR.min(mcb - ip * MR) {
                    let i = i0 + ip * MR + ii;
                    match a_rows {
                        // Row-major A: a pair is two neighbours of the row.
                        Some(s) => {
                            let row = &a.data[s.origin + i * s.rs + pc..][..kcb];
                            for (q, two) in row.chunks(2).enumerate() {
                                let hi = two.get(1).map_or(0, |h| h.to_bits() as u32);
                                panel[q * MR + ii] = two[0].to_bits() as u32 | hi << 16;
                            }
                        }
                        None => {
                            for q in 0..kp {
                                panel[q * MR + ii] = pair(&a, i, pc + 2 * q, k);
                            }
                        }
                    }
                }
            }
            let mut tmp = [0f32; MR * NR];
            for jp in 0..npanels {
                let j0 = jp * NR;
                let w = NR.min(n - j0);
                let bp = &bpack[jp * NR * kp..(jp + 1) * NR * kp];
                for ip in 0..mpanels {
                    let r = ip * MR;
                    let h = MR.min(mcb - r);
                    let ap = &apack[ip * MR * kp..(ip + 1) * MR * kp];
                    let full = h == MR && w == NR;
                    // SAFETY: `available()` was checked by the caller (the only way here); the
                    // panels hold kp pairs of MR and NR words; the C tile (rows r..r+MR, columns
                    // j0..j0+NR of this block, row stride n) lies inside `cblock` when the tile
                    // is full, and `tmp` (stride NR) is used otherwise. The first slice of k
                    // (pc = 0) writes the tile, the later ones add to it.
                    unsafe {
                        if full {
                            let c = cblock[r * n + j0..].as_mut_ptr().cast::<f32>();
                            tile(kp, ap, bp, c, n, pc > 0);
                        } else {
                            tile(kp, ap, bp, tmp.as_mut_ptr(), NR, false);
                        }
                    }
                    if !full {
                        for ii in 0..h {
                            let row = &mut cblock[(r + ii) * n + j0..(r + ii) * n + j0 + w];
                            for (d, &s) in row.iter_mut().zip(&tmp[ii * NR..ii * NR + w]) {
                                // SAFETY: with pc > 0, the first slice of k wrote the element.
                                let v = if pc > 0 {
                                    (unsafe { d.assume_init_read() }) + s
                                } else {
                                    s
                                };
                                d.write(v);
                            }
                        }
                    }
                }
            }
        };
        crate::kernels::pool::for_each_chunk(c, mc * n, &block);
    }
}

/// The register tile: `C[0..MR, 0..NR] (+)= A panel * B panel` over `kp` pairs.
///
/// # Safety
/// AVX-512F and AVX512-BF16 must be available; `a` and `b` hold `kp` pairs of MR and NR words;
/// `c` points to MR rows of NR writable floats, `ldc` apart.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
unsafe fn tile(kp: usize, a: &[u32], b: &[u32], c: *mut f32, ldc: usize, accumulate: bool) {
    use std::arch::x86_64::*;
    unsafe {
        let mut acc = [[_mm512_setzero_ps(); 2]; MR];
        let (mut ap, mut bp) = (a.as_ptr(), b.as_ptr());
        for _ in 0..kp {
            let b0: __m512bh = std::mem::transmute(_mm512_loadu_si512(bp as *const _));
            let b1: __m512bh = std::mem::transmute(_mm512_loadu_si512(bp.add(16) as *const _));
            for (i, row) in acc.iter_mut().enumerate() {
                let av: __m512bh = std::mem::transmute(_mm512_set1_epi32(*ap.add(i) as i32));
                row[0] = _mm512_dpbf16_ps(row[0], av, b0);
                row[1] = _mm512_dpbf16_ps(row[1], av, b1);
            }
            ap = ap.add(MR);
            bp = bp.add(NR);
        }
        for (i, row) in acc.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                let p = c.add(i * ldc + j * 16);
                let v = if accumulate {
                    _mm512_add_ps(_mm512_loadu_ps(p), v)
                } else {
                    v
                };
                _mm512_storeu_ps(p, v);
            }
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn tile(_: usize, _: &[u32], _: &[u32], _: *mut f32, _: usize, _: bool) {
    unreachable!("gemm_bf16 runs only where available() holds")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::gemm::row_major_tables;

    fn product(m: usize, n: usize, k: usize, a: &[bf16], b: &[bf16]) -> Vec<f32> {
        let (ar, ac) = row_major_tables(m, k);
        let (br, bc) = row_major_tables(k, n);
        let mut c = vec![f32::NAN; m * n];
        gemm_bf16(
            MatRef {
                data: a,
                base: 0,
                rows: &ar,
                cols: &ac,
            },
            MatRef {
                data: b,
                base: 0,
                rows: &br,
                cols: &bc,
            },
            &mut c,
        );
        c
    }

    /// Small integers: every partial sum is exact, so any order gives the naive sum exactly;
    /// shapes cover edge tiles, odd k (a padded pair), several k slices and threads.
    #[test]
    fn products_of_small_integers_are_exact() {
        if !available() {
            eprintln!("no AVX512-BF16 here: nothing to test");
            return;
        }
        for &(m, n, k) in &[
            (1, 1, 1),
            (13, 33, 7),
            (12, 32, 2),
            (40, 70, 1301),
            (300, 200, 150),
        ] {
            let a: Vec<bf16> = (0..m * k)
                .map(|i| bf16::from_f32(((i * 7) % 9) as f32 - 4.0))
                .collect();
            let b: Vec<bf16> = (0..k * n)
                .map(|i| bf16::from_f32(((i * 5) % 7) as f32 - 3.0))
                .collect();
            assert!(exact_for(&a, &b));
            let c = product(m, n, k, &a, &b);
            for i in 0..m {
                for j in 0..n {
                    let want: f64 = (0..k)
                        .map(|p| a[i * k + p].to_f64() * b[p * n + j].to_f64())
                        .sum();
                    assert_eq!(c[i * n + j] as f64, want, "{m}x{n}x{k} at ({i}, {j})");
                }
            }
        }
    }

    /// Each pair is added odd element first, each step rounded: (2^24 + 1) - 2^24 in that order
    /// is 0, the other order gives 1. The kernel must add in the order the module states.
    #[test]
    fn pairs_add_their_odd_element_first() {
        if !available() {
            return;
        }
        let big = bf16::from_f32(16_777_216.0);
        let one = bf16::ONE;
        // Row of A: (2^24, 1, -2^24) over k = 3 against a column of ones: pairs (2^24, 1), (-2^24, 0).
        let a = vec![big, one, -big];
        let b = vec![one, one, one];
        let c = product(1, 1, 3, &a, &b);
        // acc = 0 + 1 (odd) + 2^24 (even) = 2^24 + 1 -> 2^24; + 0 + (-2^24) = 0.
        assert_eq!(c, vec![0.0]);
    }

    #[test]
    fn subnormals_and_tiny_exponents_are_refused() {
        let tiny = bf16::from_bits(0x0001); // subnormal
        assert!(!exact_for(&[tiny], &[bf16::ONE]));
        let small = bf16::from_f32(2f32.powi(-60));
        assert!(exact_for(&[small], &[bf16::from_f32(2f32.powi(-51))]));
        assert!(!exact_for(&[small], &[bf16::from_f32(2f32.powi(-52))]));
        // An infinity times a subnormal is infinite, times the zero the instruction reads, NaN.
        assert!(!exact_for(
            &[bf16::ZERO, bf16::NAN, bf16::INFINITY],
            &[tiny]
        ));
        assert!(exact_for(&[], &[small]));
    }

    /// The vectorised exponent scan against its scalar definition: every bit pattern alone, and
    /// mixtures of lengths that end in every remainder of the 16-lane blocks.
    #[test]
    fn the_exponent_scan_matches_its_definition() {
        fn naive(v: &[bf16]) -> Option<i32> {
            let mut min = 255;
            for x in v {
                let e = (x.to_bits() >> 7) & 0xff;
                if e == 0 && x.to_bits() & 0x7f != 0 {
                    return None;
                }
                if e != 0 && e < min {
                    min = e;
                }
            }
            Some(if min == 255 {
                i32::MAX
            } else {
                min as i32 - 127
            })
        }
        for bits in 0..=u16::MAX {
            let x = [bf16::from_bits(bits)];
            assert_eq!(min_exponent(&x), naive(&x), "{bits:#06x}");
        }
        let mut state = 0x9e37_79b9_u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        for len in 0..70 {
            for _ in 0..50 {
                let v: Vec<bf16> = (0..len)
                    .map(|_| {
                        let r = next();
                        // Mostly ordinary values, sometimes a zero, subnormal or special one.
                        match r % 16 {
                            0 => bf16::from_bits((r >> 16) as u16 & 0x807f),
                            1 => bf16::from_bits(0x7f80 | (r >> 16) as u16 & 0x807f),
                            _ => bf16::from_bits((r >> 8) as u16),
                        }
                    })
                    .collect();
                assert_eq!(min_exponent(&v), naive(&v), "{v:?}");
            }
        }
        // Operands large enough to be scanned in parallel: the smallest exponent, or a
        // subnormal, in the first part, a middle one or the last element.
        let len = 5 * (1 << 18) + 3;
        let mut v = vec![bf16::from_f32(1.5); len];
        assert_eq!(min_exponent(&v), Some(0));
        for at in [0, len / 2, 3 * (1 << 18) + 7, len - 1] {
            v[at] = bf16::from_f32(2f32.powi(-100));
            assert_eq!(min_exponent(&v), Some(-100), "at {at}");
            v[at] = bf16::from_bits(0x0001);
            assert_eq!(min_exponent(&v), None, "at {at}");
            v[at] = bf16::from_f32(1.5);
        }
    }
}
