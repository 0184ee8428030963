//! Which micro-kernel runs and with which block sizes: the kernel kinds, the instances of each
//! instruction set per element type (`GemmElem`), the instances for short tiles and few rows,
//! and the block sizes derived from the caches of the machine (`Blocks::for_caches`, after Low et
//! al., "Analytical Modeling Is Enough for High-Performance BLIS", ACM TOMS 2016). The plans that
//! use them are in the module above.

use std::sync::OnceLock;

use super::FEW_ROWS_TILES;
use super::simd::{self, FewMatFn, KernelFn, KernelRowsFn, RowDotFn, ScalarOps, VecMatFn};
use crate::kernels::cache::{self, Caches, Vendor};

/// Which micro-kernel ran: tests and benchmarks report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelKind {
    Avx512,
    Avx2Fma,
    Portable,
    /// AVX512-BF16's pair instruction, for BF16 operands only (`gemm::bf16`); other products
    /// asked to run on it run on `Avx512`.
    Avx512Bf16,
}

impl KernelKind {
    pub fn name(self) -> &'static str {
        match self {
            KernelKind::Avx512 => "avx512",
            KernelKind::Avx2Fma => "avx2+fma",
            KernelKind::Portable => "portable",
            KernelKind::Avx512Bf16 => "avx512bf16",
        }
    }

    /// Whether this machine can run the kernel.
    pub fn available(self) -> bool {
        match self {
            KernelKind::Portable => true,
            KernelKind::Avx512Bf16 => super::bf16::available(),
            #[cfg(target_arch = "x86_64")]
            KernelKind::Avx2Fma => {
                is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
            }
            #[cfg(target_arch = "x86_64")]
            KernelKind::Avx512 => is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The kernel forced by `XLA_SPEC_GEMM_KERNEL` (`avx512`, `avx2`, `portable`), if any.
    /// Read once: every product asks (a scanned RNN's small per-step products paid for two
    /// environment lookups each).
    fn forced() -> Option<KernelKind> {
        static FORCED: OnceLock<Option<KernelKind>> = OnceLock::new();
        *FORCED.get_or_init(
            || match std::env::var("XLA_SPEC_GEMM_KERNEL").ok()?.as_str() {
                "avx512" => Some(KernelKind::Avx512),
                "avx2" | "avx2+fma" => Some(KernelKind::Avx2Fma),
                "portable" => Some(KernelKind::Portable),
                _ => None,
            },
        )
    }
}

/// `KC,MC,NC` as three positive sizes (each at most 2^16), or `None` for anything else, which
/// leaves the built-in sizes in place.
pub fn parse_blocks(text: &str) -> Option<(usize, usize, usize)> {
    let v: Vec<usize> = text
        .split(',')
        .map(|x| x.trim().parse().ok())
        .collect::<Option<_>>()?;
    match v[..] {
        [kc, mc, nc] if [kc, mc, nc].iter().all(|&x| (1..=1 << 16).contains(&x)) => {
            Some((kc, mc, nc))
        }
        _ => None,
    }
}

/// One micro-kernel instance with its tile and block sizes.
#[derive(Clone, Copy)]
pub struct MicroKernel<T: 'static> {
    pub kind: KernelKind,
    pub mr: usize,
    pub nr: usize,
    pub kc: usize,
    pub mc: usize,
    pub nc: usize,
    pub f: KernelFn<T>,
    /// `f` reading A in place (rows `lda` apart) instead of from a packed panel; `None` on the
    /// fewer-row instances `for_rows` picks.
    pub rows: Option<KernelRowsFn<T>>,
    /// Instances with fewer rows (ascending `mr`, same `nr`), for products with few rows.
    pub small: &'static [(usize, KernelFn<T>)],
    /// The same instruction set's vector-matrix product, for one-row products.
    pub vecmat: VecMatFn<T>,
    /// The same instruction set's few-row product of a B streamed from memory
    /// (`simd::fewmat_body`), where one is used (`few_rows::fewmat`).
    pub fewmat: Option<FewMatFn<T>>,
    /// Row-dot instances `(columns, rows, f)` for products with at most 8 columns, ascending in
    /// columns, each with a one-row twin for the last rows (empty: none).
    pub rowdot: &'static [RowDot<T>],
}

/// One row-dot instance: `NN` columns, `R` rows at a time, and its one-row twin.
pub struct RowDot<T: 'static> {
    pub cols: usize,
    pub rows: usize,
    pub f: RowDotFn<T>,
    pub one: RowDotFn<T>,
}

/// Block sizes for a tile of `mr x nr` elements of `elem` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocks {
    pub kc: usize,
    pub mc: usize,
    pub nc: usize,
}

impl Blocks {
    /// Sizes for these caches and a team of `threads`, after the analytical model: the B
    /// micro-panel (`KC x NR`) in L1, the A block (`MC x KC`) in part of L2, the B block
    /// (`KC x NC`) in a quarter of L3, which other cores share. Each is rounded down to whole
    /// tiles and kept within sane bounds.
    ///
    /// How much of L1 and L2 depends on the core, measured on each:
    ///
    /// - **AMD (Zen 4, Zen 5):** the B micro-panel in twice L1 and the A block in what L2 leaves
    ///   beside one such panel. Our tiles are wide (NR of 16 or 32 lanes), so the model proper
    ///   makes KC short (256 on a 32 KiB L1), and each tile's C update (a cold read) is paid
    ///   every 256 steps; Zen's L1 prefetcher streams the overflowing panel from L2 behind the
    ///   micro-kernel. Side by side on a Zen 4 (32 KiB L1, 1 MiB L2; AVX-512, 2048^3, one
    ///   thread): F64 at 50 GFLOP/s with KC 256 and MC 252, 52.5 with KC 512 and MC 240, 53.3
    ///   with MC 360, 49.5 with KC 1024; F32 105.5 with KC 256, 108 to 109.5 with KC 512. AMD's
    ///   BLIS for Genoa uses KC 480 (F32) and 512 (F64) too.
    ///
    ///   8-byte elements on the 512-bit kernels then go twice as deep (KC 1024), with MC and NC
    ///   as the 512-deep rule gives them. At one vector width an F64 tile has half the columns
    ///   of an F32 one, so at the same depth it reads and writes C twice as often per
    ///   multiply-add, and C's trips to memory were the largest loss left outside a kernel that
    ///   runs at 98-99% of the core's FMA loop (`gemm::peak`). Products with k up to 512 see the
    ///   blocks they had; in deeper ones the A block (1.9 MiB at MC 240) streams from L3 behind
    ///   the kernel, and the B block takes twice the bytes. Side by side in one process on the
    ///   same Zen 4 (2026-12-07, medians of paired ratios against KC 512), AVX-512 F64: two
    ///   threads 4096^3 +1.2 and +3.2%, 2048^3 -0.6 and +2.3%, 1024^3 +2.1 and +3.0%, 512^3
    ///   level; one thread 1024^3 to 4096^3 +1.0 to +1.6%. Counting the A block at 1024 deep
    ///   (MC 108, in L2) was as fast at 4096^3 and 2-7% slower at 256^3 (best of 60 calls);
    ///   keeping the B block's bytes (NC halved) level on two threads, 1-2% slower on one. The
    ///   256-bit kernel's tile reads twice the bytes of A per multiply-add, from L3 at that
    ///   depth, and gained nothing: AVX2 F64 1024^3 -1.3, -2.9 and -1.9% (MC 120, A in L2:
    ///   level), 4096^3 +1.8, +0.6 and -1.2%. The 49.5 above was measured with that day's code
    ///   (2026-11-27).
    /// - **Intel and others:** the A block in a quarter of L2; the B micro-panel in half of L1
    ///   for tiles whose rows of B are one cache line (256-bit kernels), in twice L1 (up to the
    ///   cap) for wider ones (512-bit kernels). On a Xeon (family 6 model 207: 48 KiB L1, 2
    ///   MiB L2), best of 5-14 calls alternating with OpenBLAS in one process, two threads
    ///   unless said, against the earlier rule (the B micro-panel in L1, the A block in 3/8 of L2): AVX2 F64 4096^3 KC
    ///   512 MC 192 0.93-0.95 of OpenBLAS, KC 384 MC 168 to 336 1.00-1.02 (2048^3 0.95 ->
    ///   0.99-1.00); AVX2 F32 level (KC 384 MC 336, 1.03); AVX-512 F32 4096^3 KC 384 MC 504
    ///   0.91-0.92, KC 512 MC 252 0.98-1.01; AVX-512 F64 2048^3 KC 384 MC 252 0.95, KC 512 MC
    ///   120 0.95, MC 192 or 252 0.97 (one thread 0.95 against 0.99); F64 4096^3 0.95 whatever
    ///   MC. AVX-512 with KC 256 had been 0.86-0.89, and KC 512 with MC 492 (F64, the A block
    ///   all of L2) 0.82-0.85. The B block takes twice L2 at most: with a quarter of L3 (16 MiB
    ///   there, L3 being counted as 16 L2s) AVX-512 F64 ran at 0.89 of OpenBLAS on one thread
    ///   (2048^3 and 4096^3) and 0.92 on two (4096^3); with 4 MiB (NC 1024), 0.94-0.96 and
    ///   0.98. F64 reads twice the bytes of B per multiply-add that F32 does, which was level
    ///   either way (NC 2048 against 8192), as were both AVX2 types. Between those two, the B
    ///   block of 8-byte elements takes four times L2, as many columns as F32's twice L2: A is
    ///   packed again for every block of NC columns. AVX-512 F64 4096^3 on two threads, medians
    ///   of 12-16 calls alternating with OpenBLAS's on a busy host, three runs: NC 1024 at
    ///   0.94, 1.05 and 0.94 of OpenBLAS, NC 2048 at 1.00, 1.09 and 1.03 (NC 4096 0.89); AVX2
    ///   F64 NC 1360 1.03, 2728 1.06; 2048^3 level. Those were two threads; the block is each
    ///   thread's share (one L2, two for 8-byte elements) times the `threads` that share it: on
    ///   one thread AVX-512 F64 ran at 0.945-0.97 of OpenBLAS with NC 1024 against 0.91-0.965
    ///   with NC 2048 at 2048^3 (three runs), 0.95-0.96 against 0.91-0.93 at 4096^3 (two);
    ///   AVX2 F64 4096^3 NC 1360 0.96 twice against 2728 0.97 and 0.87; F32 4096^3 level
    ///   (0.98-0.99 either way). With that B block, 8-byte elements no longer keep the A block
    ///   in half of L2 (as many rows as F32's quarter): the same binary switching MC between
    ///   calls in one process, medians of paired ratios, AVX-512 F64 MC 120 against 252 on two
    ///   threads 1024^3 +1.5 to +2.2%, 2048^3 +1.9 to +3.1% (12 pairs, three runs), 4096^3 +2
    ///   to +5%; one thread 1024^3 +2.2 to +2.6%, 2048^3 and 4096^3 level; AVX2 F64 MC 168
    ///   against 336 on two threads 512^3 +1.9 to +3.6%, 1024^3 level to +2%.
    pub fn for_caches(c: &Caches, mr: usize, nr: usize, elem: usize, threads: usize) -> Blocks {
        // `deep`: the slice of k the product runs with; `kc`: the depth the A and B blocks are
        // counted at. They differ only for AMD's 512-bit kernels on 8-byte elements (see
        // above).
        let (kc, deep, a_room, b_room) = match c.vendor {
            Vendor::Amd => {
                let kc = (2 * c.l1d / (nr * elem)).clamp(64, 512) / 8 * 8;
                let a_room = c.l2.saturating_sub(kc * nr * elem).max(c.l2 / 2);
                let deep = if elem >= 8 && !simd::row_in_one_line(nr * elem) {
                    2 * kc
                } else {
                    kc
                };
                (kc, deep, a_room, c.l3 / 4)
            }
            Vendor::Intel | Vendor::Other => {
                let row = nr * elem;
                let panel = if simd::row_in_one_line(row) {
                    c.l1d / 2
                } else {
                    2 * c.l1d
                };
                let kc = (panel / row).clamp(64, 512) / 8 * 8;
                let a_room = c.l2 / 4;
                // As many columns of B for 8-byte elements as for 4-byte ones: A is packed
                // again for every block of NC columns.
                let b_room = threads.max(1) * c.l2 * (elem / 4).max(1);
                (kc, kc, a_room, (c.l3 / 4).min(b_room))
            }
        };
        let mc = ((a_room / (kc * elem)) / mr * mr).clamp(mr, 4096 / mr * mr);
        let nc = ((b_room / (kc * elem)) / nr * nr).clamp(nr, 8192 / nr * nr);
        Blocks { kc: deep, mc, nc }
    }
}

/// Element types the GEMM accumulates in.
pub trait GemmElem: ScalarOps + Send + Sync + Default + 'static {
    /// The kernel of a given kind for this type, if the type has one.
    fn kernel(kind: KernelKind) -> Option<MicroKernel<Self>>;
}

impl<T: GemmElem> MicroKernel<T> {
    /// The fastest kernel this machine runs (or the one `XLA_SPEC_GEMM_KERNEL` names, if
    /// available).
    pub fn best() -> MicroKernel<T> {
        let mut k = KernelKind::forced()
            .filter(|k| k.available())
            .and_then(T::kernel)
            .or_else(|| Self::available().into_iter().next())
            .unwrap_or_else(Self::portable);
        // Environment overrides replace the cache-derived sizes.
        // Block sizes are cache sizes in disguise; the override lets them be re-tuned on a new
        // machine with one build (`xla-spec bench` or `cargo bench --bench linalg` per setting).
        static BLOCKS: OnceLock<Option<(usize, usize, usize)>> = OnceLock::new();
        if let Some((kc, mc, nc)) = *BLOCKS.get_or_init(|| {
            std::env::var("XLA_SPEC_GEMM_BLOCKS")
                .ok()
                .and_then(|v| parse_blocks(&v))
        }) {
            (k.kc, k.mc, k.nc) = (kc, mc, nc);
        }
        k
    }

    /// Every kernel for `T` this machine can run, fastest first.
    pub fn available() -> Vec<MicroKernel<T>> {
        [
            KernelKind::Avx512,
            KernelKind::Avx2Fma,
            KernelKind::Portable,
        ]
        .into_iter()
        .filter(|k| k.available())
        .filter_map(T::kernel)
        .collect()
    }

    fn portable() -> MicroKernel<T> {
        Self::with_blocks(
            KernelKind::Portable,
            (4, 4),
            (portable_kernel::<T, 4>, portable_kernel_rows::<T, 4>),
            &[],
            portable_vecmat::<T>,
            &[],
        )
    }

    /// A kernel with block sizes for this machine's caches.
    fn with_blocks(
        kind: KernelKind,
        (mr, nr): (usize, usize),
        (f, rows): (KernelFn<T>, KernelRowsFn<T>),
        small: &'static [(usize, KernelFn<T>)],
        vecmat: VecMatFn<T>,
        rowdot: &'static [RowDot<T>],
    ) -> MicroKernel<T> {
        let Blocks { kc, mc, nc } = Blocks::for_caches(
            &cache::detect(),
            mr,
            nr,
            std::mem::size_of::<T>(),
            crate::kernels::pool::threads(),
        );
        MicroKernel {
            kind,
            mr,
            nr,
            kc,
            mc,
            nc,
            f,
            rows: Some(rows),
            small,
            vecmat,
            fewmat: None,
            rowdot,
        }
    }

    /// The instance for a last tile of `h` rows, fewer than `mr`: the smallest smaller instance
    /// that covers them, `(mr, f)`, whose panel is packed that tall; `None` when there is none
    /// (the tile then runs this kernel on zero rows). A 2-row tile of AVX2's 6-row kernel did
    /// three times the work it needed; the 2-row instance splits k over two sets of sums
    /// (`simd::body_split`), so that its eight accumulators cover the latency of the fused
    /// multiply-adds, as the full tile's twelve do.
    pub fn edge(&self, h: usize) -> Option<(usize, KernelFn<T>)> {
        if h >= self.mr {
            return None;
        }
        self.small
            .iter()
            .find(|&&(mr, _)| mr >= h && mr < self.mr)
            .copied()
    }

    /// The height of the packed panel for a tile of `h` rows (see `edge`).
    pub fn panel_mr(&self, h: usize) -> usize {
        self.edge(h).map_or(self.mr, |(mr, _)| mr)
    }

    /// The instance for a product of `m` rows: the smallest tile that covers them when `m` is
    /// less than a full tile and a smaller instance exists; with a few tiles of rows, the
    /// instance (at least half as tall as this one) that pads the rows least (16 rows are two
    /// tiles of 8, not a tile of 12 and a tile of 4 padded to 12, which would compute a third
    /// more than needed); otherwise this kernel.
    pub fn for_rows(&self, m: usize) -> MicroKernel<T> {
        if m > FEW_ROWS_TILES * self.mr {
            return *self;
        }
        if let Some(&(mr, f)) = self.small.iter().find(|&&(mr, _)| mr >= m && mr < self.mr) {
            return MicroKernel {
                mr,
                f,
                rows: None,
                ..*self
            };
        }
        let padded = |mr: usize| m.div_ceil(mr) * mr;
        let mut best = *self;
        for &(mr, f) in self.small.iter().rev() {
            if 2 * mr >= self.mr && padded(mr) < padded(best.mr) {
                best = MicroKernel {
                    mr,
                    f,
                    rows: None,
                    ..*self
                };
            }
        }
        best
    }
}

unsafe fn portable_vecmat<T: ScalarOps>(
    k: usize,
    x: *const T,
    b: *const T,
    ldb: usize,
    y: *mut T,
    n: usize,
    acc: bool,
) {
    unsafe { simd::vecmat_body::<simd::Portable<T>, 4>(k, x, b, ldb, y, n, acc) }
}

#[allow(clippy::too_many_arguments)]
unsafe fn portable_kernel<T: ScalarOps, const MR: usize>(
    k: usize,
    a: *const T,
    b: *const T,
    ldb: usize,
    c: *mut T,
    ldc: usize,
    acc: bool,
    next: *const T,
) {
    unsafe { simd::body::<simd::Portable<T>, MR, 4, false>(k, a, 0, b, ldb, c, ldc, acc, next) }
}

#[allow(clippy::too_many_arguments)]
unsafe fn portable_kernel_rows<T: ScalarOps, const MR: usize>(
    k: usize,
    a: *const T,
    lda: usize,
    b: *const T,
    ldb: usize,
    c: *mut T,
    ldc: usize,
    acc: bool,
) {
    unsafe {
        simd::body::<simd::Portable<T>, MR, 4, true>(
            k,
            a,
            lda,
            b,
            ldb,
            c,
            ldc,
            acc,
            std::ptr::null(),
        )
    }
}

macro_rules! rowdot {
    ($f:ident, $v:ty, $cols:literal, $rows:literal) => {
        RowDot {
            cols: $cols,
            rows: $rows,
            f: $f::<$v, $rows, $cols>,
            one: $f::<$v, 1, $cols>,
        }
    };
}

macro_rules! float_kernels {
    ($t:ty, $avx2:ident, $avx2_rows:ident, $avx2_split:ident, $avx512:ident, $avx512_rows:ident,
     $avx512_split:ident, $v2:ty, $v5:ty) => {
        impl GemmElem for $t {
            fn kernel(kind: KernelKind) -> Option<MicroKernel<$t>> {
                match kind {
                    KernelKind::Portable => Some(MicroKernel::portable()),
                    // BF16 products only (`gemm::bf16`); no F32 or F64 kernel.
                    KernelKind::Avx512Bf16 => None,
                    #[cfg(target_arch = "x86_64")]
                    KernelKind::Avx2Fma => {
                        use simd::x86::*;
                        // One and two rows split k over four and two sets of sums, for eight
                        // accumulators (`body_split`).
                        const SMALL: [(usize, KernelFn<$t>); 3] = [
                            (1, $avx2_split::<1, 4>),
                            (2, $avx2_split::<2, 2>),
                            (4, $avx2::<4>),
                        ];
                        // 16 registers: rows x columns accumulators at most 8. No 8-column
                        // instance: an 8 x 1 block loads eight columns of B (from L2, k being
                        // long) per row vector of A, and two 4 x 2 blocks ran 4096 x 8 x 4096
                        // F32 at 70 GFLOP/s against its 48 (F64 30 against 24), side by side.
                        // One column (a matrix-vector product, memory-bound) four rows at a
                        // time: four streams of A per core kept more of the memory bandwidth
                        // than eight (4096 x 1 x 4096 F32 32 against 30 GFLOP/s, medians of
                        // alternating runs on Zen 5; F64 level).
                        const ROWDOT: [RowDot<$t>; 3] = [
                            rowdot!(avx2_rowdot, $v2, 1, 4),
                            rowdot!(avx2_rowdot, $v2, 2, 4),
                            rowdot!(avx2_rowdot, $v2, 4, 2),
                        ];
                        let lanes = 32 / std::mem::size_of::<$t>();
                        Some(MicroKernel {
                            fewmat: Some(avx2_fewmat::<$v2>),
                            ..MicroKernel::with_blocks(
                                kind,
                                (AVX2_MR, AVX2_NV * lanes),
                                ($avx2::<AVX2_MR>, $avx2_rows::<AVX2_MR>),
                                &SMALL,
                                avx2_vecmat::<$v2>,
                                &ROWDOT,
                            )
                        })
                    }
                    #[cfg(target_arch = "x86_64")]
                    KernelKind::Avx512 => {
                        use simd::x86::*;
                        const SMALL: [(usize, KernelFn<$t>); 4] = [
                            (1, $avx512_split::<1, 4>),
                            (2, $avx512_split::<2, 2>),
                            (4, $avx512::<4>),
                            (8, $avx512::<8>),
                        ];
                        // 32 registers: rows x columns accumulators at most 16. No 8-column
                        // instance, as for AVX2: 4 x 4 blocks ran 4096 x N x 4096 F32 at 97 to
                        // 151 GFLOP/s against 70 to 114 with 8 x 2 ones (N = 8 to 24; F64 +30%).
                        // One column four rows at a time, as for AVX2 (4096 x 1 x 4096 F32 56
                        // against 50 GFLOP/s, F64 22 against 19, medians on Zen 5).
                        const ROWDOT: [RowDot<$t>; 3] = [
                            rowdot!(avx512_rowdot, $v5, 1, 4),
                            rowdot!(avx512_rowdot, $v5, 2, 4),
                            rowdot!(avx512_rowdot, $v5, 4, 4),
                        ];
                        let lanes = 64 / std::mem::size_of::<$t>();
                        // Few rows of a B from memory streamed by rows, as on AVX2: on a Zen 4
                        // (family 25 model 17), 8 x 4096 x 4096 against OpenBLAS, paired calls,
                        // two threads, F32 1.08-1.15 -> 2.00-2.12 and F64 0.98-1.00 -> 1.47-1.56
                        // (best 43 -> 84 and 25 -> 51 GFLOP/s) against the packed groups.
                        Some(MicroKernel {
                            fewmat: Some(avx512_fewmat::<$v5>),
                            ..MicroKernel::with_blocks(
                                kind,
                                (AVX512_MR, AVX512_NV * lanes),
                                ($avx512::<AVX512_MR>, $avx512_rows::<AVX512_MR>),
                                &SMALL,
                                avx512_vecmat::<$v5>,
                                &ROWDOT,
                            )
                        })
                    }
                    #[cfg(not(target_arch = "x86_64"))]
                    _ => None,
                }
            }
        }
    };
}

float_kernels!(
    f32,
    avx2_f32,
    avx2_f32_rows,
    avx2_f32_split,
    avx512_f32,
    avx512_f32_rows,
    avx512_f32_split,
    Avx2F32,
    Avx512F32
);
float_kernels!(
    f64,
    avx2_f64,
    avx2_f64_rows,
    avx2_f64_split,
    avx512_f64,
    avx512_f64_rows,
    avx512_f64_split,
    Avx2F64,
    Avx512F64
);

impl GemmElem for i64 {
    fn kernel(kind: KernelKind) -> Option<MicroKernel<i64>> {
        (kind == KernelKind::Portable).then(MicroKernel::portable)
    }
}
