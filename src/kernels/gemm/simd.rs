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
    /// A hint to bring the cache line holding `p` into L1; never faults.
    /// # Safety
    /// As `zero`.
    #[inline(always)]
    unsafe fn prefetch(_p: *const Self::E) {}
    /// Asks for the cache line holding `p` into L2 (a hint; nothing where there is no such
    /// instruction).
    ///
    /// # Safety
    /// As `zero`.
    #[inline(always)]
    unsafe fn prefetch_l2(_p: *const Self::E) {}
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

/// How far ahead (in elements) `body` asks for the packed A: 96 is 16 steps of the 6-row AVX2
/// tile and 8 of the 12-row AVX-512 one, a few hundred cycles.
const A_AHEAD: usize = 96;

/// How many cache lines ahead the in-place F32 kernel asks for each row of a wide A. On a Xeon
/// (family 6, model 167, a VM) the hardware prefetcher left the tile's six rows, each on its
/// own page, waiting on memory: 4096 x 4096 x 64, one thread, AVX2, medians against OpenBLAS
/// 1.00 -> 1.07 asked 4 lines ahead, 1.03-1.05 at 8, 1.04 at 2. F64 lost 9-12% with the same
/// asking (its loop changed even where nothing was asked, 1.05 -> 0.80), so it keeps its loop.
const A_ROWS_AHEAD: usize = 4;

/// How many steps of k ahead `trip` asks for the rows of a B micro-panel wider than a cache line
/// (1 KiB of the 512-bit tiles, about 100 cycles). OpenBLAS's Skylake-X DGEMM kernel likewise
/// asks for its streamed panel a little ahead every step. On a Xeon (family 6 model 207), AVX-512
/// F64, medians of the ratios of 15-40 calls alternating with OpenBLAS's in one process on a
/// busy host, against none: one thread 2048^3 0.955-0.965 to 0.98-0.985 (two runs), 4096^3
/// 0.93 to 0.94, 1024^3 1.00 to 1.01; two threads 512^3 0.97 to 0.99, 1024^3 1.00 to 1.02,
/// 2048^3 0.945 to 0.965. F32 (2048^3 one thread) level, 0.98 either way; 16 steps ahead as
/// good as 8 or a little worse, 1 step (OpenBLAS's distance) and 4 no better than none. Not
/// measured on AMD.
const B_AHEAD: usize = 8;

/// How many steps of k before the end of the packed loop `body` asks for the C tile's rows.
/// Their rows lie `ldc` apart, often a multiple of 4 KiB, so they are cold and compete for few
/// L1 sets. Tiles whose rows of B are one cache line (the 256-bit kernels') have their blocks
/// sized so that both panels stay in L1, and ask at the start as well, which gives the lines
/// the whole loop to arrive; the wider tiles' panels stream more than L1 holds through it
/// during the loop (AVX-512 F64 at KC 512: 112 KiB against 48 KiB), which evicted lines asked
/// for at the start, and they ask only here. BLIS's Skylake-X kernel likewise prefetches C
/// during its last iterations. 64 steps are about 400 cycles of the AVX2 tile and 800 of the
/// AVX-512 one. On a Xeon (family 6 model 207), medians of the ratios of 10-30 calls
/// alternating with OpenBLAS's in one process on a busy host, against asking only at the start:
/// AVX-512 F64 on two threads 2048^3 0.88-0.99 to 0.94-1.00 of OpenBLAS over five runs, 4096^3
/// 0.83-1.15 to 0.93-1.05 over three, 1024^3 level (1.02); one thread 2048^3 0.85-0.92 to
/// 0.91-0.95; asking at both times 0.87-0.92. F32 1024^3 1.02 to 1.07, 2048^3 level. AVX2 F64
/// asking only here: 256^3 on two threads 1.07 to 0.85 (200 calls), one thread level; at both
/// times 1.03 and level, 1024^3 one thread 0.97 to 0.98.
const C_AHEAD: usize = 64;

/// Cache lines of the next B micro-panel that one tile asks for into L2 (`body`'s `next`): two
/// per trip of four steps, in the trips before `C_AHEAD`. The first tile against a B panel
/// meets its rows cold, from L3 or memory (a packed B block is larger than L2); spread over the
/// tiles before it, the panel's lines arrive while the multiply-adds run, one or two per trip
/// where a burst of a whole panel's lines (1024 for AVX-512 F64 at KC 512) would fill every
/// miss buffer and stall the tile that asked. On a Xeon (family 6 model 207), one thread,
/// medians of the ratios of 8-30 calls alternating with OpenBLAS's in one process, against
/// none: AVX-512 F64 4096^3 0.986 -> 1.003 and 0.947 -> 0.970, 2048^3 0.975 -> 0.996; F32
/// 2048^3 0.994 -> 1.022; AVX2 F64 4096^3 0.978 -> 0.991. The same lines asked for in bursts
/// before each tile (49 a tile) ran 3% slower than none.
pub const fn next_panel_lines(k: usize) -> usize {
    2 * (k / 4).saturating_sub(C_AHEAD / 4)
}

/// Whether a tile's row of B, `row_bytes` long, fits in one 64-byte cache line (the 256-bit
/// tiles'). One rule for decisions that only work together: `Blocks::for_caches` gives such
/// tiles' B micro-panel half of L1 on Intel so that both packed panels stay there, and `body`
/// asks for their C tile at the start of the loop as well as near its end, which only pays
/// while nothing streams through L1 to evict the lines again; the wider tiles' B panels do not
/// stay in L1, and `trip` asks for their rows ahead.
pub const fn row_in_one_line(row_bytes: usize) -> bool {
    row_bytes <= 64
}

/// Asks for the lines of the `MR x NV * LANES` tile of C (row stride `ldc`) into L1.
///
/// # Safety
/// The instruction set of `S` must be available (the addresses need not be valid).
#[inline(always)]
unsafe fn prefetch_tile<S: Simd, const MR: usize, const NV: usize>(c: *const S::E, ldc: usize) {
    let line = 64 / std::mem::size_of::<S::E>().max(1);
    for i in 0..MR {
        let row = c.wrapping_add(i * ldc);
        let mut j = 0;
        while j < NV * S::LANES {
            // SAFETY: a prefetch never faults; the instruction set is the caller's promise.
            unsafe { S::prefetch(row.wrapping_add(j)) };
            j += line;
        }
        // SAFETY: as above (the row's last element, whose line a misaligned row adds).
        unsafe { S::prefetch(row.wrapping_add(NV * S::LANES - 1)) };
    }
}

/// The generic micro-kernel body: `C[0..MR, 0..NV*LANES] (+)= sum_p A[p] (x) B[p]`, with `a`
/// holding `k` groups of `MR` values (a packed panel; `ROWS` false) or `MR` rows of `k` values,
/// `lda` apart (A read in place; `ROWS` true), and `b` holding `k` rows of `NV * LANES` values,
/// `ldb` apart (a packed panel's rows are adjacent; a row-major B read in place has its own row
/// stride); `c` is row-major with row stride `ldc`. With `accumulate` false, C is overwritten.
/// Unless null, `next` is where the next B micro-panel's lines for this tile start: the packed
/// loop asks for `next_panel_lines(k)` of them into L2, two per trip.
///
/// # Safety
/// The instruction set of `S` must be available; `a`, `b` and the C tile must be in bounds
/// (`next` need not be).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn body<S: Simd, const MR: usize, const NV: usize, const ROWS: bool>(
    k: usize,
    a: *const S::E,
    lda: usize,
    b: *const S::E,
    ldb: usize,
    c: *mut S::E,
    ldc: usize,
    accumulate: bool,
    next: *const S::E,
) {
    unsafe {
        let mut acc = [[S::zero(); NV]; MR];
        let (mut a, mut b) = (a, b);
        if ROWS {
            prefetch_tile::<S, MR, NV>(c, ldc);
            // One step per trip: unrolled like the packed loop below, this one ran 30% slower
            // (AVX-512 256^3, one thread), likely for want of address registers for its rows.
            // F32 rows read in place from a wide A (a page or more apart, so from memory: the
            // convolution's packed rows, `kcb` apart, sit in L2) are each asked for
            // `A_ROWS_AHEAD` lines ahead once per line of k.
            let line = 64 / std::mem::size_of::<S::E>().max(1);
            if std::mem::size_of::<S::E>() == 4 && lda * std::mem::size_of::<S::E>() >= 4096 {
                for _ in 0..k / line {
                    for i in 0..MR {
                        S::prefetch(a.wrapping_add(i * lda + A_ROWS_AHEAD * line));
                    }
                    for _ in 0..line {
                        step::<S, MR, NV>(&mut acc, a, lda, b);
                        a = a.add(1);
                        b = b.add(ldb);
                    }
                }
                for _ in 0..k % line {
                    step::<S, MR, NV>(&mut acc, a, lda, b);
                    a = a.add(1);
                    b = b.add(ldb);
                }
            } else {
                for _ in 0..k {
                    step::<S, MR, NV>(&mut acc, a, lda, b);
                    a = a.add(1);
                    b = b.add(ldb);
                }
            }
        } else {
            // Four steps per trip (`trip`).
            let trips = k / 4;
            let narrow = row_in_one_line(NV * S::LANES * std::mem::size_of::<S::E>());
            if narrow {
                prefetch_tile::<S, MR, NV>(c, ldc);
            }
            let early = trips.saturating_sub(C_AHEAD / 4);
            if next.is_null() {
                for _ in 0..early {
                    trip::<S, MR, NV>(&mut acc, &mut a, &mut b, ldb);
                }
            } else {
                // Two lines of the next panel per trip (`next_panel_lines`).
                let line = 64 / std::mem::size_of::<S::E>().max(1);
                let mut next = next;
                for _ in 0..early {
                    S::prefetch_l2(next);
                    S::prefetch_l2(next.wrapping_add(line));
                    next = next.wrapping_add(2 * line);
                    trip::<S, MR, NV>(&mut acc, &mut a, &mut b, ldb);
                }
            }
            if early > 0 || !narrow {
                prefetch_tile::<S, MR, NV>(c, ldc);
            }
            for _ in early..trips {
                trip::<S, MR, NV>(&mut acc, &mut a, &mut b, ldb);
            }
            for _ in 0..k % 4 {
                step::<S, MR, NV>(&mut acc, a, 1, b);
                a = a.add(MR);
                b = b.add(ldb);
            }
        }
        store_tile::<S, MR, NV>(&acc, c, ldc, accumulate);
    }
}

/// Four steps of k on a packed A, with a look ahead in it: its panel comes from L2 while B's
/// sits in L1 (AVX2 1024^3 one thread +2%). Tiles whose rows of B are wider than a cache line
/// (the 512-bit kernels') have B micro-panels larger than L1 (`Blocks::for_caches`), which the
/// A panel streaming beside them evicts, so they ask for B's rows `B_AHEAD` steps ahead too.
/// (A function, not a closure: a closure inside `body` would not take on the instruction set
/// of the wrapper `body` is inlined into, and its intrinsics became calls, 80 times slower.)
///
/// # Safety
/// As `step`, for four steps from `a` and `b`.
#[inline(always)]
unsafe fn trip<S: Simd, const MR: usize, const NV: usize>(
    acc: &mut [[S::V; NV]; MR],
    a: &mut *const S::E,
    b: &mut *const S::E,
    ldb: usize,
) {
    let line = 64 / std::mem::size_of::<S::E>().max(1);
    let wide = !row_in_one_line(NV * S::LANES * std::mem::size_of::<S::E>());
    unsafe {
        S::prefetch(a.wrapping_add(A_AHEAD));
        S::prefetch(a.wrapping_add(A_AHEAD + line));
        for _ in 0..4 {
            if wide {
                let mut j = 0;
                while j < NV * S::LANES {
                    S::prefetch(b.wrapping_add(B_AHEAD * ldb + j));
                    j += line;
                }
            }
            step::<S, MR, NV>(acc, *a, 1, *b);
            *a = a.add(MR);
            *b = b.add(ldb);
        }
    }
}

/// One step of k: `acc[i][j] += A[i] * B[j]` for A's `MR` values (`ai` apart) and B's `NV`
/// vectors (adjacent).
///
/// # Safety
/// The instruction set of `S` must be available; `a` and `b` must be readable there.
#[inline(always)]
unsafe fn step<S: Simd, const MR: usize, const NV: usize>(
    acc: &mut [[S::V; NV]; MR],
    a: *const S::E,
    ai: usize,
    b: *const S::E,
) {
    unsafe {
        let mut bv = [S::zero(); NV];
        for (j, v) in bv.iter_mut().enumerate() {
            *v = S::load(b.add(j * S::LANES));
        }
        for (i, row) in acc.iter_mut().enumerate() {
            let av = S::splat(*a.add(i * ai));
            for (x, &bj) in row.iter_mut().zip(&bv) {
                *x = S::fma(*x, av, bj);
            }
        }
    }
}

/// Writes (or, with `accumulate`, adds) the tile's sums into C (row stride `ldc`).
///
/// # Safety
/// The instruction set of `S` must be available; the `MR x NV * LANES` tile of C must be
/// writable.
#[inline(always)]
unsafe fn store_tile<S: Simd, const MR: usize, const NV: usize>(
    acc: &[[S::V; NV]; MR],
    c: *mut S::E,
    ldc: usize,
    accumulate: bool,
) {
    unsafe {
        for (i, row) in acc.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                let p = c.add(i * ldc + j * S::LANES);
                let v = if accumulate { S::add(S::load(p), v) } else { v };
                S::store(p, v);
            }
        }
    }
}

/// `N` chains of multiply-adds on registers alone, `iters` steps each: the core's multiply-add
/// peak for `S`, which `gemm::peak` sets the micro-kernel's speed against. `N` is the kernel's
/// own count of accumulators, enough independent chains to cover the latency of every FMA unit.
/// Writes the sum of the chains (`LANES` values) to `out`, so that nothing can be left out.
///
/// # Safety
/// The instruction set of `S` must be available; `xy` must hold two readable values and `out`
/// `LANES` writable ones.
#[inline(always)]
pub unsafe fn fma_loop_body<S: Simd, const N: usize>(
    iters: usize,
    xy: *const S::E,
    out: *mut S::E,
) {
    unsafe {
        let (x, y) = (S::splat(*xy), S::splat(*xy.add(1)));
        let mut acc = [S::zero(); N];
        for _ in 0..iters {
            for a in acc.iter_mut() {
                *a = S::fma(*a, x, y);
            }
        }
        let mut sum = acc[0];
        for &a in &acc[1..] {
            sum = S::add(sum, a);
        }
        S::store(out, sum);
    }
}

/// `body` for a packed A with few rows (`MR * NV` accumulators too few to cover the fused
/// multiply-add's latency: each step of k waits for the last step's sums), with `SETS`
/// independent sets of accumulators taking the steps of k in turn, added at the end. A 2-row
/// AVX2 tile had four accumulators and took as long per step as the 6-row tile's twelve. The
/// sum is then in another order than `body`'s (every `SETS`-th step, then the sets in order):
/// a dot's order of summation is free.
///
/// # Safety
/// As `body` (A packed: `k` groups of `MR` values).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn body_split<S: Simd, const MR: usize, const NV: usize, const SETS: usize>(
    k: usize,
    a: *const S::E,
    b: *const S::E,
    ldb: usize,
    c: *mut S::E,
    ldc: usize,
    accumulate: bool,
) {
    unsafe {
        let mut acc = [[[S::zero(); NV]; MR]; SETS];
        let (mut a, mut b) = (a, b);
        let full = k / SETS * SETS;
        let mut p = 0;
        while p < full {
            for set in acc.iter_mut() {
                step::<S, MR, NV>(set, a, 1, b);
                a = a.add(MR);
                b = b.add(ldb);
            }
            p += SETS;
        }
        for set in acc.iter_mut().take(k - full) {
            step::<S, MR, NV>(set, a, 1, b);
            a = a.add(MR);
            b = b.add(ldb);
        }
        let mut sum = acc[0];
        for set in &acc[1..] {
            for (srow, row) in sum.iter_mut().zip(set) {
                for (x, &v) in srow.iter_mut().zip(row) {
                    *x = S::add(*x, v);
                }
            }
        }
        store_tile::<S, MR, NV>(&sum, c, ldc, accumulate);
    }
}

/// A row vector times a matrix, `y[0..n] (+)= sum_p x[p] * B[p, 0..n]`, for `B` read in place
/// (`k` rows, `ldb` apart): the matrix-vector product that a one-row GEMM is. Each pass takes `R`
/// rows of B and updates every vector of `y` once, so B streams from memory row after row and
/// `y` (a few KiB) stays in L1. Sums run in order of `p`, as in the micro-kernel.
///
/// # Safety
/// The instruction set of `S` must be available; `x` must hold `k` values, B `k` rows of `n`
/// readable values `ldb` apart, `y` `n` writable values.
#[inline(always)]
pub unsafe fn vecmat_body<S: Simd, const R: usize>(
    k: usize,
    x: *const S::E,
    b: *const S::E,
    ldb: usize,
    y: *mut S::E,
    n: usize,
    accumulate: bool,
) where
    S::E: ScalarOps,
{
    unsafe {
        let full = n / S::LANES * S::LANES;
        let mut p = 0;
        let mut first = !accumulate;
        while p < k {
            let rows = R.min(k - p);
            if rows == R {
                let xs: [S::V; R] = std::array::from_fn(|r| S::splat(*x.add(p + r)));
                let mut j = 0;
                // Four vectors of y at a time: four independent chains of fused multiply-adds.
                while j + 4 * S::LANES <= full {
                    let mut acc: [S::V; 4] = std::array::from_fn(|u| {
                        if first {
                            S::zero()
                        } else {
                            S::load(y.add(j + u * S::LANES))
                        }
                    });
                    for (r, &xv) in xs.iter().enumerate() {
                        let row = b.add((p + r) * ldb + j);
                        for (u, a) in acc.iter_mut().enumerate() {
                            *a = S::fma(*a, xv, S::load(row.add(u * S::LANES)));
                        }
                    }
                    for (u, a) in acc.iter().enumerate() {
                        S::store(y.add(j + u * S::LANES), *a);
                    }
                    j += 4 * S::LANES;
                }
                while j < full {
                    let mut acc = if first { S::zero() } else { S::load(y.add(j)) };
                    for (r, &xv) in xs.iter().enumerate() {
                        acc = S::fma(acc, xv, S::load(b.add((p + r) * ldb + j)));
                    }
                    S::store(y.add(j), acc);
                    j += S::LANES;
                }
            } else {
                let mut j = 0;
                while j < full {
                    let mut acc = if first { S::zero() } else { S::load(y.add(j)) };
                    for r in 0..rows {
                        acc = S::fma(
                            acc,
                            S::splat(*x.add(p + r)),
                            S::load(b.add((p + r) * ldb + j)),
                        );
                    }
                    S::store(y.add(j), acc);
                    j += S::LANES;
                }
            }
            for j in full..n {
                let mut acc = if first {
                    <S::E as ScalarOps>::zero()
                } else {
                    *y.add(j)
                };
                for r in 0..rows {
                    acc =
                        <S::E as ScalarOps>::mul_add(acc, *x.add(p + r), *b.add((p + r) * ldb + j));
                }
                *y.add(j) = acc;
            }
            first = false;
            p += rows;
        }
    }
}

/// Rows of C per group of `fewmat_body`: four rows by two vectors are eight accumulators, which
/// with two vectors of B and a broadcast fit AVX2's sixteen registers.
pub const FEWMAT_GROUP: usize = 4;

/// Columns of B (elements) that `fewmat_body` takes through every group of rows before the next
/// ones: `R` rows of this many stay in L1 while the groups after the first read them again.
const FEWMAT_COLS: usize = 256;

/// A few rows times a matrix read in place, `Y (+)= X * B`, for a B streamed from memory: the
/// vector-matrix product (`vecmat_body`) for `FEWMAT_GROUP * groups` rows. X is packed as
/// `groups` panels of `FEWMAT_GROUP` rows (`X[i, p]` of a panel at `p * FEWMAT_GROUP + i`,
/// panels `FEWMAT_GROUP * ldx` apart: `pack`'s layout); B has `k` rows, `ldb` apart; Y has the
/// groups' rows, `ldy` apart. Each pass takes `R` rows of B, so B streams from memory as `R`
/// sequential runs, and every element of it read meets all the rows of X in registers; Y stays
/// in L2 between passes. Sums run in order of `p`.
///
/// # Safety
/// The instruction set of `S` must be available; X must hold the panels (`k` steps each), B `k`
/// rows of `n` readable values, Y `FEWMAT_GROUP * groups` rows of `n` writable values.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn fewmat_body<S: Simd, const R: usize>(
    groups: usize,
    k: usize,
    x: *const S::E,
    ldx: usize,
    b: *const S::E,
    ldb: usize,
    y: *mut S::E,
    ldy: usize,
    n: usize,
    accumulate: bool,
) where
    S::E: ScalarOps,
{
    const G: usize = FEWMAT_GROUP;
    unsafe {
        let mut p = 0;
        let mut first = !accumulate;
        while p < k {
            let rows = R.min(k - p);
            let mut j0 = 0;
            while j0 < n {
                let j1 = (j0 + FEWMAT_COLS).min(n);
                for g in 0..groups {
                    let xg = x.add(g * G * ldx + p * G);
                    let yg = y.add(g * G * ldy);
                    let bp = b.add(p * ldb);
                    if rows == R {
                        fewmat_strip::<S, R>(xg, bp, ldb, yg, ldy, (j0, j1), first);
                    } else {
                        // The last rows of B one at a time: a sweep each, for fewer than `R`.
                        for r in 0..rows {
                            let f = first && r == 0;
                            let (xr, br) = (xg.add(r * G), bp.add(r * ldb));
                            fewmat_strip::<S, 1>(xr, br, ldb, yg, ldy, (j0, j1), f);
                        }
                    }
                }
                j0 = j1;
            }
            first = false;
            p += rows;
        }
    }
}

/// One pass of `fewmat_body`: `Y[0..G, j0..j1] (+)= X[0..G, 0..R] * B[0..R, j0..j1]`, two vectors
/// of columns at a time, then one, then single elements.
///
/// # Safety
/// As `fewmat_body`, for this group and these columns.
#[inline(always)]
unsafe fn fewmat_strip<S: Simd, const R: usize>(
    x: *const S::E,
    b: *const S::E,
    ldb: usize,
    y: *mut S::E,
    ldy: usize,
    (j0, j1): (usize, usize),
    first: bool,
) where
    S::E: ScalarOps,
{
    const G: usize = FEWMAT_GROUP;
    unsafe {
        let mut j = j0;
        while j + 2 * S::LANES <= j1 {
            fewmat_tile::<S, R, 2>(x, b.add(j), ldb, y.add(j), ldy, first);
            j += 2 * S::LANES;
        }
        while j + S::LANES <= j1 {
            fewmat_tile::<S, R, 1>(x, b.add(j), ldb, y.add(j), ldy, first);
            j += S::LANES;
        }
        for j in j..j1 {
            for i in 0..G {
                let mut acc = if first {
                    <S::E as ScalarOps>::zero()
                } else {
                    *y.add(i * ldy + j)
                };
                for r in 0..R {
                    acc = <S::E as ScalarOps>::mul_add(acc, *x.add(r * G + i), *b.add(r * ldb + j));
                }
                *y.add(i * ldy + j) = acc;
            }
        }
    }
}

/// `G x NV` vectors of Y over `R` rows of B, in registers.
///
/// # Safety
/// As `fewmat_strip`, for these `NV` vectors of columns.
#[inline(always)]
unsafe fn fewmat_tile<S: Simd, const R: usize, const NV: usize>(
    x: *const S::E,
    b: *const S::E,
    ldb: usize,
    y: *mut S::E,
    ldy: usize,
    first: bool,
) {
    const G: usize = FEWMAT_GROUP;
    unsafe {
        let mut acc = [[S::zero(); NV]; G];
        if !first {
            for (i, row) in acc.iter_mut().enumerate() {
                for (v, a) in row.iter_mut().enumerate() {
                    *a = S::load(y.add(i * ldy + v * S::LANES));
                }
            }
        }
        for r in 0..R {
            step::<S, G, NV>(&mut acc, x.add(r * G), 1, b.add(r * ldb));
        }
        store_tile::<S, G, NV>(&acc, y, ldy, false);
    }
}

/// Rows of a matrix times a few columns, by dot products: `c[i * ldc + j] = sum_p A[i, p] *
/// Bt[j, p]` for `R` rows of `A` (contiguous, `lda` apart) and `NN` rows of `Bt` (B transposed,
/// `k` long each, `ldb` apart). Each row of A streams from memory once and meets every column in
/// registers; the lanes hold partial sums over every `LANES`-th `p`, added at the end (the order
/// of a dot's sum is free).
///
/// # Safety
/// The instruction set of `S` must be available; `a` must hold `R` rows of `k` readable values
/// `lda` apart, `bt` `NN` rows of `k` readable values `ldb` apart, `c` `R` rows of `NN` writable values `ldc` apart.
#[inline(always)]
pub unsafe fn rowdot_body<S: Simd, const R: usize, const NN: usize>(
    k: usize,
    a: *const S::E,
    lda: usize,
    bt: *const S::E,
    ldb: usize,
    c: *mut S::E,
    ldc: usize,
) where
    S::E: ScalarOps,
{
    unsafe {
        let full = k / S::LANES * S::LANES;
        let mut acc = [[S::zero(); NN]; R];
        let mut p = 0;
        while p < full {
            let bv: [S::V; NN] = std::array::from_fn(|j| S::load(bt.add(j * ldb + p)));
            for (r, row) in acc.iter_mut().enumerate() {
                let av = S::load(a.add(r * lda + p));
                for (x, &b) in row.iter_mut().zip(&bv) {
                    *x = S::fma(*x, av, b);
                }
            }
            p += S::LANES;
        }
        let mut lanes = [<S::E as ScalarOps>::zero(); 64];
        for (r, row) in acc.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                S::store(lanes.as_mut_ptr(), v);
                let mut sum = <S::E as ScalarOps>::zero();
                for &l in &lanes[..S::LANES] {
                    sum = <S::E as ScalarOps>::plus(sum, l);
                }
                for q in full..k {
                    sum = <S::E as ScalarOps>::mul_add(
                        sum,
                        *a.add(r * lda + q),
                        *bt.add(j * ldb + q),
                    );
                }
                *c.add(r * ldc + j) = sum;
            }
        }
    }
}

/// The signature of every row-dot instance.
pub type RowDotFn<T> = unsafe fn(usize, *const T, usize, *const T, usize, *mut T, usize);

/// The signature of every few-row instance (`fewmat_body`): `(groups, k, x, ldx, b, ldb, y, ldy,
/// n, accumulate)`.
pub type FewMatFn<T> =
    unsafe fn(usize, usize, *const T, usize, *const T, usize, *mut T, usize, usize, bool);

/// The signature of every vector-matrix instance.
pub type VecMatFn<T> = unsafe fn(usize, *const T, *const T, usize, *mut T, usize, bool);

/// The signature every micro-kernel instance has: `(k, a, b, ldb, c, ldc, accumulate, next)`, as
/// `body`'s with A packed.
pub type KernelFn<T> = unsafe fn(usize, *const T, *const T, usize, *mut T, usize, bool, *const T);

/// The signature of a micro-kernel instance that reads A in place: `(k, a, lda, b, ldb, c, ldc,
/// accumulate)`, A's `MR` rows `lda` apart.
pub type KernelRowsFn<T> = unsafe fn(usize, *const T, usize, *const T, usize, *mut T, usize, bool);

#[cfg(target_arch = "x86_64")]
pub mod x86;
