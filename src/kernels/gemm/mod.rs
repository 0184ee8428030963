//! Blocked matrix multiplication, `C = A * B`, in the BLIS style.
//!
//! Algorithm (Goto & van de Geijn, "Anatomy of High-Performance Matrix Multiplication", ACM TOMS
//! 2008; Van Zee & van de Geijn, "BLIS", ACM TOMS 2015; the Rust layout follows
//! bluss/matrixmultiply):
//!
//! ```text
//! for jc in 0..n step NC                      -- a column block of B and C
//!   for pc in 0..k step KC                    -- a slice of the shared dimension
//!     pack B[pc.., jc..] into NR-wide panels  -- KC x NC, stays in L3 (packed in parallel)
//!     for ic in 0..m step MC  (in parallel)   -- row blocks of A and C, one per task
//!       pack A[ic.., pc..] into MR-tall panels  -- MC x KC, stays in L2
//!       for jr in 0..NC step NR               -- B micro-panel (KC x NR) stays in L1
//!         for ir in 0..MC step MR
//!           micro-kernel: C[ir.., jr..] (+)= A panel * B panel   (registers)
//! ```
//!
//! Packing copies each operand into the exact order the micro-kernel reads, zero-padding partial
//! panels, so the kernel never branches on edges; edge tiles of C go through a small buffer.
//! Packing is also where operands are read through arbitrary index tables (any DotGeneral
//! dimension order, no transposed copy) and converted to the accumulation type (F16/BF16 to F32,
//! integers to wrapping i64); tables that are arithmetic progressions (every plain row- or
//! column-major operand) are packed by contiguous runs instead of element by element.
//!
//! Skinny products change the plan (Goto & van de Geijn's GEPP/GEMP shapes): with fewer rows
//! than two tiles per thread, the threads split the columns instead of the rows, each packing
//! the B panels it uses just before using them, and the tile shrinks to the rows there are
//! (`MicroKernel::for_rows`); with fewer columns than half a tile, `gemm` computes `C^T = B^T
//! A^T`, which puts the long dimension where the vector lanes are. With few column panels (at
//! most `DIRECT_A_PANELS`), each A block serves few tiles and packing it costs about as much as
//! using it: a plain A of the accumulator's type is then read in place by the micro-kernel
//! (`MicroKernel::rows`, the same body reading `MR` rows `lda` apart), where the L1 has the ways
//! to hold a tile's rows at that stride.
//!
//! The micro-kernel is chosen at run time from the CPU's features (`MicroKernel::best`): AVX-512F,
//! AVX2+FMA, or portable scalar code; all three are one generic body (`simd::body`). Block sizes
//! come from the caches of the machine it runs on (`Blocks::for_caches`, after the analytical
//! model of Low et al., "Analytical Modeling Is Enough for High-Performance BLIS", ACM TOMS 2016):
//! the B micro-panel `KC x NR` takes twice L1 (the L1 prefetcher streams it from L2), the A block
//! `MC x KC` what L2 leaves beside it, and the B block `KC x NC` a quarter of L3.

pub mod bf16;
mod pack;
pub mod simd;

pub(crate) use pack::{GATHER_ROWS, gather};
use pack::{Strided, pack_b_panels, pack_block, progression};
use std::sync::OnceLock;

use super::cache::{self, Caches};
use super::scratch::Scratch;
use simd::{KernelFn, KernelRowsFn, RowDotFn, ScalarOps, VecMatFn};

/// Which micro-kernel ran: tests and benchmarks report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelKind {
    Avx512,
    Avx2Fma,
    Portable,
}

impl KernelKind {
    pub fn name(self) -> &'static str {
        match self {
            KernelKind::Avx512 => "avx512",
            KernelKind::Avx2Fma => "avx2+fma",
            KernelKind::Portable => "portable",
        }
    }

    /// Whether this machine can run the kernel.
    pub fn available(self) -> bool {
        match self {
            KernelKind::Portable => true,
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
    /// Sizes for these caches, after the analytical model: the B micro-panel (`KC x NR`) in
    /// twice L1, the A block (`MC x KC`) in what L2 leaves beside one B micro-panel, the B block
    /// (`KC x NC`) in a quarter of L3, which other cores share. Each is rounded down to whole
    /// tiles and kept within sane bounds.
    ///
    /// The model proper puts the B micro-panel in L1 and the A block in half of L2. Our tiles
    /// are wide (NR of 16 or 32 lanes), so that makes KC short (256 on a 32 KiB L1), and each
    /// tile's C update (its load, add and store, a cold read) is paid every 256 steps. The
    /// AVX-512 micro-kernel reads 176 (F32) or 224 (F64) bytes per 24 vector multiply-adds,
    /// few enough for L2 to feed it behind the L1 prefetcher, so the panels may overflow L1.
    /// Measured side by side on a Zen 4 (32 KiB L1, 1 MiB L2; AVX-512, 2048 x 2048 x 2048, one
    /// thread): F64 at 50 GFLOP/s with KC 256 and MC 252, 52.5 with KC 512 and MC 240, 53.3
    /// with MC 360, 49.5 with KC 1024; F32 105.5 with KC 256, 108 to 109.5 with KC 512. AMD's
    /// BLIS for Genoa uses KC 480 (F32) and 512 (F64) too.
    pub fn for_caches(c: &Caches, mr: usize, nr: usize, elem: usize) -> Blocks {
        let kc = (2 * c.l1d / (nr * elem)).clamp(64, 512) / 8 * 8;
        let a_room = c.l2.saturating_sub(kc * nr * elem).max(c.l2 / 2);
        let mc = ((a_room / (kc * elem)) / mr * mr).clamp(mr, 4096 / mr * mr);
        let nc = ((c.l3 / 4 / (kc * elem)) / nr * nr).clamp(nr, 8192 / nr * nr);
        Blocks { kc, mc, nc }
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
        let Blocks { kc, mc, nc } =
            Blocks::for_caches(&cache::detect(), mr, nr, std::mem::size_of::<T>());
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
            rowdot,
        }
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

unsafe fn portable_kernel<T: ScalarOps, const MR: usize>(
    k: usize,
    a: *const T,
    b: *const T,
    ldb: usize,
    c: *mut T,
    ldc: usize,
    acc: bool,
) {
    unsafe { simd::body::<simd::Portable<T>, MR, 4, false>(k, a, 0, b, ldb, c, ldc, acc) }
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
    unsafe { simd::body::<simd::Portable<T>, MR, 4, true>(k, a, lda, b, ldb, c, ldc, acc) }
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
    ($t:ty, $avx2:ident, $avx2_rows:ident, $avx512:ident, $avx512_rows:ident, $v2:ty, $v5:ty) => {
        impl GemmElem for $t {
            fn kernel(kind: KernelKind) -> Option<MicroKernel<$t>> {
                match kind {
                    KernelKind::Portable => Some(MicroKernel::portable()),
                    #[cfg(target_arch = "x86_64")]
                    KernelKind::Avx2Fma => {
                        use simd::x86::*;
                        const SMALL: [(usize, KernelFn<$t>); 3] =
                            [(1, $avx2::<1>), (2, $avx2::<2>), (4, $avx2::<4>)];
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
                        Some(MicroKernel::with_blocks(
                            kind,
                            (AVX2_MR, AVX2_NV * lanes),
                            ($avx2::<AVX2_MR>, $avx2_rows::<AVX2_MR>),
                            &SMALL,
                            avx2_vecmat::<$v2>,
                            &ROWDOT,
                        ))
                    }
                    #[cfg(target_arch = "x86_64")]
                    KernelKind::Avx512 => {
                        use simd::x86::*;
                        const SMALL: [(usize, KernelFn<$t>); 4] = [
                            (1, $avx512::<1>),
                            (2, $avx512::<2>),
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
                        Some(MicroKernel::with_blocks(
                            kind,
                            (AVX512_MR, AVX512_NV * lanes),
                            ($avx512::<AVX512_MR>, $avx512_rows::<AVX512_MR>),
                            &SMALL,
                            avx512_vecmat::<$v5>,
                            &ROWDOT,
                        ))
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
    avx512_f32,
    avx512_f32_rows,
    Avx2F32,
    Avx512F32
);
float_kernels!(
    f64,
    avx2_f64,
    avx2_f64_rows,
    avx512_f64,
    avx512_f64_rows,
    Avx2F64,
    Avx512F64
);

impl GemmElem for i64 {
    fn kernel(kind: KernelKind) -> Option<MicroKernel<i64>> {
        (kind == KernelKind::Portable).then(MicroKernel::portable)
    }
}

/// A matrix read through index tables: element `(i, j)` is `data[base + rows[i] + cols[j]]`.
/// This describes any strided or permuted view (every DotGeneral dimension order) without a copy.
#[derive(Clone, Copy)]
pub struct MatRef<'a, S> {
    pub data: &'a [S],
    pub base: usize,
    pub rows: &'a [usize],
    pub cols: &'a [usize],
}

impl<'a, S: Copy> MatRef<'a, S> {
    /// Checks every element the tables can address is inside `data`, so packing cannot read out
    /// of bounds.
    fn in_bounds(&self) -> bool {
        let mr = self.rows.iter().max();
        let mc = self.cols.iter().max();
        match (mr, mc) {
            (Some(r), Some(c)) => self
                .base
                .checked_add(*r)
                .and_then(|x| x.checked_add(*c))
                .is_some_and(|x| x < self.data.len()),
            _ => true,
        }
    }
    #[inline(always)]
    fn at(&self, i: usize, j: usize) -> S {
        self.data[self.base + self.rows[i] + self.cols[j]]
    }
    /// The transposed view: the same elements, rows and columns swapped.
    pub fn t(self) -> MatRef<'a, S> {
        MatRef {
            rows: self.cols,
            cols: self.rows,
            ..self
        }
    }
    /// The view as an origin and two strides, when both tables are arithmetic progressions.
    fn strided(&self) -> Option<Strided> {
        let (r0, rs) = progression(self.rows)?;
        let (c0, cs) = progression(self.cols)?;
        Some(Strided {
            origin: self.base + r0 + c0,
            rs,
            cs,
        })
    }
}

/// Row offsets `0, ld, 2*ld, ...` and column offsets `0, 1, 2, ...`: a row-major matrix.
pub fn row_major_tables(rows: usize, cols: usize) -> (Vec<usize>, Vec<usize>) {
    ((0..rows).map(|i| i * cols).collect(), (0..cols).collect())
}

/// The A operand as a source of packed panels. `gemm_packed` asks it for MR-tall panels, so a
/// source can compute its elements while packing (the convolution gathers input patches this
/// way, without materialising the im2col matrix).
pub trait PackA<T>: Sync {
    fn rows(&self) -> usize;
    fn cols(&self) -> usize;
    /// Writes rows `r0..r0+h` and columns `pc..pc+kcb` as `panel[p * mr + ii]`
    /// (`ii < h <= mr`), every one of them (zeros where the source has none: the panel may hold
    /// an earlier block's values there); rows `h..mr` arrive zeroed and must stay zero.
    fn pack(&self, r0: usize, h: usize, pc: usize, kcb: usize, mr: usize, panel: &mut [T]);
    /// The source as a plain matrix the micro-kernel can read in place, `(data, origin, rs)`
    /// with element `(i, p)` at `data[origin + i * rs + p]`, when it is one of the accumulator's
    /// type.
    fn in_place(&self) -> Option<(&[T], usize, usize)> {
        None
    }
}

/// A `MatRef` converted element by element: the A source of `gemm`.
struct Converted<'a, S, F> {
    m: MatRef<'a, S>,
    st: Option<Strided>,
    conv: F,
}

impl<'a, S: Copy, F> Converted<'a, S, F> {
    fn new(m: MatRef<'a, S>, conv: F) -> Self {
        Converted {
            st: m.strided(),
            m,
            conv,
        }
    }
}

impl<S, T: 'static, F> PackA<T> for Converted<'_, S, F>
where
    S: Copy + Sync + 'static,
    F: Fn(S) -> T + Sync,
{
    fn rows(&self) -> usize {
        self.m.rows.len()
    }
    fn cols(&self) -> usize {
        self.m.cols.len()
    }
    #[inline]
    fn pack(&self, r0: usize, h: usize, pc: usize, kcb: usize, mr: usize, panel: &mut [T]) {
        pack_block(
            &self.m,
            self.st,
            (r0, h),
            (pc, kcb),
            panel,
            1,
            mr,
            &self.conv,
        );
    }
    fn in_place(&self) -> Option<(&[T], usize, usize)> {
        in_place::<S, T>(&self.m, self.st).map(|(data, st)| (data, st.origin, st.rs))
    }
}

/// `c[m x n] = conv_a(a)[m x k] * conv_b(b)[k x n]`, `c` row-major and contiguous. Returns
/// which kernel ran. Panics only on inconsistent arguments (a bug in the caller).
pub fn gemm<SA, SB, T, FA, FB>(
    kernel: &MicroKernel<T>,
    a: MatRef<SA>,
    b: MatRef<SB>,
    conv_a: FA,
    conv_b: FB,
    c: &mut [T],
) -> KernelKind
where
    SA: Copy + Send + Sync + 'static,
    SB: Copy + Send + Sync + 'static,
    T: GemmElem,
    FA: Fn(SA) -> T + Sync,
    FB: Fn(SB) -> T + Sync,
{
    assert!(a.in_bounds(), "gemm: inconsistent operands");
    let (m, n) = (a.rows.len(), b.cols.len());
    if !kernel.rowdot.is_empty()
        && n > 0
        && n <= ROWDOT_MAX_COLS
        && (n <= ROWDOT_ALWAYS_COLS || 5 * n.div_ceil(kernel.nr) * kernel.nr > 6 * n)
        && m > n
        && c.len() == m * n
        && b.in_bounds()
        && let Some((adata, ast)) = in_place::<SA, T>(&a, a.strided())
    {
        rowdot(kernel.rowdot, (adata, ast, m), b, &conv_b, c);
        return kernel.kind;
    }
    if n > 0 && 2 * n <= kernel.nr && m > n && c.len() == m * n {
        // Few columns (a matrix-vector product, a handful of outputs): C^T = B^T A^T puts the
        // long dimension in the vector lanes; the transposed result is small.
        let mut ct = vec![T::zero(); n * m];
        let kind = gemm_packed(
            kernel,
            &Converted::new(b.t(), conv_b),
            a.t(),
            conv_a,
            &mut ct,
        );
        for (i, row) in c.chunks_exact_mut(n).enumerate() {
            for (j, x) in row.iter_mut().enumerate() {
                *x = ct[j * m + i];
            }
        }
        return kind;
    }
    gemm_packed(kernel, &Converted::new(a, conv_a), b, conv_b, c)
}

/// Products with at most this many columns can run as row dot products (`rowdot`) when A's
/// rows can be read in place: each element of A then serves so few multiply-adds that packing A
/// into panels (a transposition) may cost more than the product. Up to `ROWDOT_ALWAYS_COLS`
/// they always do; above it only when the columns would leave a fifth of the tiles' lanes empty.
/// (Measured on a Zen 4, side by side: once A's packing transposed four by four with SSE
/// (`transpose_f32_quads`), 4096 x 64 x 4096 F32 ran at 154 GFLOP/s tiled against 128 as row
/// dots, F64 at 76 against 68, and 4096 x 32 x 4096 F32 at 121 against 118; with the scalar
/// packing, the row dots had been a fifth faster at 32 columns. 128 x 64 x 128 runs at half the
/// tiled speed as row dots: each row-dot block ends in horizontal sums.)
const ROWDOT_MAX_COLS: usize = 64;
const ROWDOT_ALWAYS_COLS: usize = 16;

/// Products of at most this many multiply-adds (`m n k`) run on the calling thread: handing them
/// out costs more than it saves. Waking the pool's sleeping workers took 14 to 17 µs a step on
/// a 2-core VM, and the scanned RNN's two products per step (16 x 256 x 256 and 16 x 64 x 256)
/// ran 70% slower threaded, so the limit was 2^21; the kernels' team keeps a helper awake
/// between steps (`team`), and with it both products threaded took the program from 6.2 to 5.3
/// ms (Zen 5, alternating runs; 2^19, threading only the larger, 5.4).
pub(crate) const SMALL_PRODUCT: usize = 1 << 17;

/// Rows of A a row-dot task takes at a time: they stay in L2 while every column block passes.
const ROWDOT_ROWS: usize = 16;

/// `c[m x n] = A * B` by dot products of A's rows (read in place, `ast`) with B's columns
/// (packed once, transposed, in blocks of an instance's width, zero-padded), the threads
/// splitting the rows. The blocks are as wide as the widest instance; the last takes the
/// narrowest that covers what is left.
fn rowdot<SB, T, FB>(
    instances: &[RowDot<T>],
    (adata, ast, m): (&[T], Strided, usize),
    b: MatRef<SB>,
    conv_b: &FB,
    c: &mut [T],
) where
    SB: Copy + Send + Sync + 'static,
    T: GemmElem,
    FB: Fn(SB) -> T + Sync,
{
    let (k, n) = (b.rows.len(), b.cols.len());
    let Some(widest) = instances.last() else {
        return;
    };
    // Packed columns lie `ldb` apart: a whole number of cache lines plus one, so that the
    // columns an instance reads side by side fall in different L1 sets (`k` a multiple of 512
    // F64 values would put all of them, 4 KiB apart, in one set: a 4096 x 64 x 4096 F64 product
    // ran a quarter slower or faster by where its buffer happened to start).
    let line = (64 / std::mem::size_of::<T>().max(1)).max(1);
    let ldb = k.next_multiple_of(line) + line;
    // (first column, width, instance, offset of its packed columns in `bt`)
    let mut blocks: Vec<(usize, usize, &RowDot<T>, usize)> = vec![];
    let mut packed = 0;
    let mut j0 = 0;
    while j0 < n {
        let w = widest.cols.min(n - j0);
        let rd = instances.iter().find(|rd| rd.cols >= w).unwrap_or(widest);
        blocks.push((j0, w, rd, packed));
        packed += rd.cols * ldb;
        j0 += w;
    }
    let mut bt = Scratch::filled(packed, T::zero());
    let bview = b.t();
    let bst = bview.strided();
    for &(j0, w, _, off) in &blocks {
        pack_block(&bview, bst, (j0, w), (0, k), &mut bt[off..], ldb, 1, conv_b);
    }
    let bt = &bt;
    let small = m.saturating_mul(n).saturating_mul(k) <= SMALL_PRODUCT;
    let threads = if small { 1 } else { super::pool::threads() };
    let rows_per = m.div_ceil(threads).div_ceil(ROWDOT_ROWS) * ROWDOT_ROWS;
    let run = |(t, out): (usize, &mut [T])| {
        let rows = out.len() / n;
        let mut tmp = vec![T::zero(); widest.rows * widest.cols];
        for g0 in (0..rows).step_by(ROWDOT_ROWS) {
            let g1 = (g0 + ROWDOT_ROWS).min(rows);
            for &(j0, w, rd, off) in &blocks {
                let mut i = g0;
                while i < g1 {
                    let r = if g1 - i >= rd.rows { rd.rows } else { 1 };
                    let f = if r == rd.rows { rd.f } else { rd.one };
                    let row = t * rows_per + i;
                    // SAFETY: rows row..row+r of A are rows of A (in `adata`, which
                    // `in_bounds` covers) of k elements; bt holds rd.cols rows of k, ldb apart,
                    // from `off`;
                    // tmp holds r rows of rd.cols.
                    unsafe {
                        f(
                            k,
                            adata[ast.origin + row * ast.rs..].as_ptr(),
                            ast.rs,
                            bt[off..].as_ptr(),
                            ldb,
                            tmp.as_mut_ptr(),
                            rd.cols,
                        )
                    };
                    for (ii, src) in tmp.chunks(rd.cols).take(r).enumerate() {
                        let d = (i + ii) * n + j0;
                        out[d..d + w].copy_from_slice(&src[..w]);
                    }
                    i += r;
                }
            }
        }
    };
    if threads == 1 {
        run((0, c));
    } else {
        super::pool::for_each_chunk(c, rows_per * n, &|off, out| {
            run((off / (rows_per * n), out))
        });
    }
}

/// Products with at most this many tiles of rows take the smallest instance that covers them
/// (`MicroKernel::for_rows`).
const FEW_ROWS_TILES: usize = 8;

/// Up to this many column panels, `by_rows` reads A in place instead of packing it (when A is a
/// plain matrix of the accumulator type). Measured on Zen 5 with 4096 rows and k: 8 panels still
/// gain (4096 x 64 F64 on AVX2 107 -> 119 GFLOP/s; 128 and 256 columns a few percent), and no
/// shape tried lost; products with many panels (squares) gain nothing, and at 256 x 256 lost.
const DIRECT_A_PANELS: usize = 8;

/// Products with at most this many rows split their columns across threads and pack B a group
/// of panels at a time (`by_columns`): split by rows, every thread would read every packed panel
/// of B, and for so few rows B's traffic is most of the product's. A count of rows, not of
/// tiles: with AVX2's 6-row tiles a count of eight tiles (48 rows) sent 4096 x 64 x 4096 down the
/// row split, F64 55 against 67 GFLOP/s split by columns (F32 117 against 120), side by side.
const FEW_ROWS: usize = 96;

/// Rows of B per slice when a few-row product streams B from memory in place.
const STREAMED_ROWS: usize = 16;

/// Products of at least this many rows pack a B they stream from memory rather than read it in
/// place (`by_columns`). Medians of alternating runs on Zen 5, B 4096 x 4096: 8 rows on AVX-512
/// F32 94 -> 113 GFLOP/s, F64 45 -> 59, on AVX2 F32 +4%, F64 +12%; 16 rows on AVX-512 143 ->
/// 185, on AVX2 level; 4 rows on AVX-512 +8% but on AVX2 -7%, so fewer rows stay in place.
const PACKED_FROM_MEMORY: usize = 8;

/// C as a raw pointer that column tasks share: each writes only its own columns.
#[derive(Clone, Copy)]
struct SharedC<T>(*mut T);
// SAFETY: the pointer is only dereferenced inside `gemm_packed`'s column tasks, which write
// disjoint column ranges of C while `gemm_packed` holds the `&mut [T]` it came from.
unsafe impl<T: Send> Send for SharedC<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for SharedC<T> {}

impl<T> SharedC<T> {
    /// The element `off` places in. (A method, so that closures capture the whole `SharedC`,
    /// which is `Sync`, and not its raw pointer field, which is not.)
    fn at(&self, off: usize) -> *mut T {
        self.0.wrapping_add(off)
    }
}

/// Every tile of one A block (`mcb` rows, packed as MR-tall panels) times one B micro-panel
/// (`w <= nr` columns, its `kcb` rows `ldb` apart): full tiles straight into C, edge tiles
/// through `tmp`. With `direct` (the in-place kernel, the block's first row and column of A, and
/// A's row stride), the tiles of `mr` rows read A in place and only a last, shorter tile reads
/// its packed panel.
///
/// # Safety
/// `c` must point to an `mcb x w` region with row stride `ldc` that nothing else accesses
/// meanwhile; `apack` must hold `kcb` steps of its panels (with `direct`, at least of a last
/// partial one), and `bp` `kcb` rows of `nr` readable elements, `ldb` apart; with `direct`, A
/// must hold `mcb` readable rows of `kcb` elements from the pointer, `lda` apart.
#[allow(clippy::too_many_arguments)]
unsafe fn panel_tiles<T: GemmElem>(
    kern: &MicroKernel<T>,
    kcb: usize,
    apack: &[T],
    direct: Option<(KernelRowsFn<T>, *const T, usize)>,
    mcb: usize,
    (bp, ldb): (*const T, usize),
    (c, ldc, w): (*mut T, usize, usize),
    accumulate: bool,
    tmp: &mut [T],
) {
    let (mr, nr, f) = (kern.mr, kern.nr, kern.f);
    debug_assert!(tmp.len() >= mr * nr);
    for ip in 0..mcb.div_ceil(mr) {
        let r = ip * mr;
        let h = mr.min(mcb - r);
        let ap = apack[ip * mr * kcb..(ip + 1) * mr * kcb].as_ptr();
        // SAFETY: the caller's region holds the tile's rows r..r+h and columns 0..w; full tiles
        // (h = mr, w = nr) are written in place, the others through `tmp` (mr x nr, stride nr).
        // A tile read in place has all `mr` rows (h = mr), inside A by the caller's contract.
        unsafe {
            let full = h == mr && w == nr;
            let (dst, ld, acc) = if full {
                (c.add(r * ldc), ldc, accumulate)
            } else {
                (tmp.as_mut_ptr(), nr, false)
            };
            match direct.filter(|_| h == mr) {
                Some((g, a0, lda)) => g(kcb, a0.add(r * lda), lda, bp, ldb, dst, ld, acc),
                None => f(kcb, ap, bp, ldb, dst, ld, acc),
            }
            if !full {
                for ii in 0..h {
                    let row = c.add((r + ii) * ldc);
                    for (jj, &s) in tmp[ii * nr..ii * nr + w].iter().enumerate() {
                        let d = row.add(jj);
                        *d = if accumulate { T::plus(*d, s) } else { s };
                    }
                }
            }
        }
    }
}

/// B read in place, when that is possible: the same element type as the accumulator (whose
/// conversion is then the identity, as every `ToAcc` conversion is) and unit column stride.
fn in_place<'a, S: 'static, T: 'static>(
    b: &MatRef<'a, S>,
    st: Option<Strided>,
) -> Option<(&'a [T], Strided)> {
    let s = st.filter(|s| s.cs == 1)?;
    if std::any::TypeId::of::<S>() != std::any::TypeId::of::<T>() {
        return None;
    }
    // SAFETY: S and T are the same type (equal TypeIds of 'static types), so this is the same
    // slice under its own type.
    let data = unsafe { std::slice::from_raw_parts(b.data.as_ptr() as *const T, b.data.len()) };
    Some((data, s))
}

/// `gemm` with A given as a panel source (`PackA`) instead of a matrix view.
pub fn gemm_packed<SB, T, PA, FB>(
    kernel: &MicroKernel<T>,
    a: &PA,
    b: MatRef<SB>,
    conv_b: FB,
    c: &mut [T],
) -> KernelKind
where
    SB: Copy + Send + Sync + 'static,
    T: GemmElem,
    PA: PackA<T>,
    FB: Fn(SB) -> T + Sync,
{
    let (m, k, n) = (a.rows(), a.cols(), b.cols.len());
    assert!(
        b.rows.len() == k && c.len() == m * n && b.in_bounds(),
        "gemm: inconsistent operands"
    );
    if m == 0 || n == 0 {
        return kernel.kind;
    }
    if k == 0 {
        c.iter_mut().for_each(|x| *x = T::zero());
        return kernel.kind;
    }
    let mut kern = kernel.for_rows(m);
    // Equal slices of k: a last slice much thinner than the others would pay a whole pass over
    // C for little work.
    kern.kc = k.div_ceil(k.div_ceil(kern.kc.max(1)));
    let bst = b.strided();
    // Small products run on the calling thread (batched dots parallelise over the batch
    // instead).
    let small = m.saturating_mul(n).saturating_mul(k) <= SMALL_PRODUCT;
    let threads = if small { 1 } else { super::pool::threads() };
    if m.div_ceil(kern.mr) < 2 * threads || m <= FEW_ROWS {
        by_columns(&kern, a, &b, bst, &conv_b, c, threads);
    } else {
        by_rows(&kern, a, &b, bst, &conv_b, c, threads);
    }
    kernel.kind
}

/// The height of `by_rows`' row blocks for `m` rows: a whole number of tiles, the same number of
/// blocks for every thread, and as near the cache-derived `mc` as that allows. Rounding the
/// number of blocks up to a multiple of the threads can halve the blocks (1024 rows of 480 are
/// 3 blocks, so 4 of 256); each block then streams every B panel again, for half the work per
/// pass. So when rounding up leaves blocks under three fifths of `mc` and rounding down keeps
/// them within an eighth over it, the blocks round down. Measured side by side on Zen 5 (AVX2):
/// 512 x 512 F64 103-106 GFLOP/s in blocks of 132, 115-118 in blocks of 256 (MC 240); 1024 x
/// 1024 F32 235-241 in blocks of 256, 243-245 in blocks of 512 (MC 480); 2048 F32 was faster
/// in blocks of 342 (three fifths up) than of 512 (260 against 254).
fn row_block(m: usize, mc: usize, mr: usize, threads: usize) -> usize {
    let (mc, threads) = (mc.max(1), threads.max(1));
    let tiles = |blocks: usize| m.div_ceil(blocks.max(1)).div_ceil(mr) * mr;
    let up = m.div_ceil(mc).div_ceil(threads) * threads;
    let down = (m / mc / threads * threads).max(threads);
    if down < up && 5 * tiles(up) < 3 * mc && 8 * tiles(down) <= 9 * mc {
        tiles(down)
    } else {
        tiles(up)
    }
}

/// The plan for enough rows: B packed once per `KC x NC` block, then row blocks of A and C,
/// balanced so that every thread gets as many.
///
/// The packing of B and the products share one parallel step per block: B's panels fall into
/// groups, one per thread, and every row-block task walks the groups starting at its own, packing
/// a group itself when no task has claimed it yet and otherwise waiting for the task that did
/// (which is running, so the wait ends). Packing B as a parallel step of its own and then
/// starting the products cost a second hand-off to the pool per block: about a fifth of a
/// 256 x 256 x 256 product's time on two threads.
fn by_rows<SB, T, PA, FB>(
    kern: &MicroKernel<T>,
    a: &PA,
    b: &MatRef<SB>,
    bst: Option<Strided>,
    conv_b: &FB,
    c: &mut [T],
    threads: usize,
) where
    SB: Copy + Send + Sync + 'static,
    T: GemmElem,
    PA: PackA<T>,
    FB: Fn(SB) -> T + Sync,
{
    use std::sync::atomic::{AtomicU8, Ordering};
    const FREE: u8 = 0;
    const PACKING: u8 = 1;
    const PACKED: u8 = 2;
    // A packing that panicked (a bug): its waiters panic too instead of waiting for ever, and
    // the pool hands the first panic on.
    const FAILED: u8 = 3;
    struct Claim<'s>(&'s AtomicU8);
    impl Drop for Claim<'_> {
        fn drop(&mut self) {
            let done = if std::thread::panicking() {
                FAILED
            } else {
                PACKED
            };
            self.0.store(done, Ordering::Release);
        }
    }
    let (m, k, n) = (a.rows(), a.cols(), b.cols.len());
    let MicroKernel { mr, nr, kc, nc, .. } = *kern;
    // With few column panels, each A block serves few tiles, and packing it (a read of A from
    // memory, then the products) cost as much as a third of the time; read in place, A streams
    // in while the products run (4096 x 4096 x 64 F32 on Zen 5, side by side: AVX2 190 -> 240
    // GFLOP/s, AVX-512 316 -> 415). A tile's rows are then `lda` apart, and on a
    // power-of-two stride they all fall into one L1 set: only where the set holds them all.
    let l1 = cache::detect();
    let direct = kern.rows.zip(a.in_place()).filter(|&(_, (_, _, rs))| {
        n <= DIRECT_A_PANELS * nr
            && l1.l1_rows_per_set(mr, rs.saturating_mul(std::mem::size_of::<T>())) <= l1.l1d_ways
    });
    let mc = row_block(m, kern.mc, mr, threads);
    let max_panels = nc.min(n).div_ceil(nr);
    // (Partial panels are zeroed where they are packed.)
    let mut bpack: Scratch<T> = Scratch::stale(max_panels * nr * kc.min(k), T::zero());
    for jc in (0..n).step_by(nc) {
        let ncb = nc.min(n - jc);
        let npanels = ncb.div_ceil(nr);
        let groups = threads.min(npanels);
        let group_range = |g: usize| (g * npanels / groups, (g + 1) * npanels / groups);
        for pc in (0..k).step_by(kc) {
            let kcb = kc.min(k - pc);
            let state: Vec<AtomicU8> = (0..groups).map(|_| AtomicU8::new(FREE)).collect();
            let shared = SharedC(bpack.as_mut_ptr());
            // Group `g`'s packed panels, packed first by whichever task gets there first.
            let ready = |g: usize| -> &[T] {
                let (p0, p1) = group_range(g);
                let (off, len) = (p0 * nr * kcb, (p1 - p0) * nr * kcb);
                if state[g]
                    .compare_exchange(FREE, PACKING, Ordering::Acquire, Ordering::Acquire)
                    .is_ok()
                {
                    let _claim = Claim(&state[g]);
                    // SAFETY: the claim makes this task the only one touching the group's
                    // region of `bpack` (disjoint from every other group's) until PACKED.
                    let out = unsafe { std::slice::from_raw_parts_mut(shared.at(off), len) };
                    if p1 * nr > ncb {
                        out.iter_mut().for_each(|x| *x = T::zero());
                    }
                    pack_b_panels(b, bst, (pc, kcb), (jc, ncb), (p0, p1), nr, out, conv_b);
                } else {
                    let mut spins = 0u32;
                    loop {
                        match state[g].load(Ordering::Acquire) {
                            PACKED => break,
                            FAILED => panic!("gemm: another task's packing of B failed"),
                            _ => {}
                        }
                        spins += 1;
                        if spins < 1 << 12 {
                            std::hint::spin_loop();
                        } else {
                            std::thread::yield_now();
                        }
                    }
                }
                // SAFETY: PACKED (acquired above, or stored by this task) means the region is
                // written and no task writes it again during this block.
                unsafe { std::slice::from_raw_parts(shared.at(off), len) }
            };
            let block = |(ib, cblock): (usize, &mut [T])| {
                let i0 = ib * mc;
                let mcb = cblock.len() / n;
                let mpanels = mcb.div_ceil(mr);
                // Only a last, partial panel needs zeros first (its rows past the edge): the
                // sources write every element of their rows (zeroing the whole block each time
                // was 3% of a convolution).
                let mut apack = Scratch::stale(mpanels * mr * kcb, T::zero());
                let mut tmp = vec![T::zero(); mr * nr];
                for (ip, panel) in apack.chunks_mut(mr * kcb).enumerate() {
                    let r0 = i0 + ip * mr;
                    let h = mr.min(i0 + mcb - r0);
                    if h < mr {
                        panel.fill(T::zero());
                    } else if direct.is_some() {
                        continue;
                    }
                    a.pack(r0, h, pc, kcb, mr, panel);
                }
                let direct = direct
                    .map(|(g, (data, origin, rs))| (g, data[origin + i0 * rs + pc..].as_ptr(), rs));
                for g in (0..groups).map(|q| (q + ib) % groups) {
                    let (p0, p1) = group_range(g);
                    let packed = ready(g);
                    for jp in p0..p1 {
                        let j0 = jc + jp * nr;
                        let w = nr.min(jc + ncb - j0);
                        let bp = &packed[(jp - p0) * nr * kcb..(jp - p0 + 1) * nr * kcb];
                        // SAFETY: `cblock` is this task's rows of C (row stride n); columns
                        // j0..j0+w lie inside every row; the packed panel holds kcb rows of nr.
                        unsafe {
                            panel_tiles(
                                kern,
                                kcb,
                                &apack,
                                direct,
                                mcb,
                                (bp.as_ptr(), nr),
                                (cblock.as_mut_ptr().add(j0), n, w),
                                pc > 0,
                                &mut tmp,
                            )
                        };
                    }
                }
            };
            if threads == 1 {
                c.chunks_mut(mc * n).enumerate().for_each(block);
            } else {
                let len = mc * n;
                super::pool::for_each_chunk(c, len, &|off, cblock| block((off / len, cblock)));
            }
        }
    }
}

/// The plan for few rows (fewer than two tiles a thread): each thread takes a range of B's
/// micro-panels and packs each one just before using it on every row of A (which it packs
/// whole, being small). Nothing is shared but the read-only operands.
fn by_columns<SB, T, PA, FB>(
    kern: &MicroKernel<T>,
    a: &PA,
    b: &MatRef<SB>,
    bst: Option<Strided>,
    conv_b: &FB,
    c: &mut [T],
    threads: usize,
) where
    SB: Copy + Send + Sync + 'static,
    T: GemmElem,
    PA: PackA<T>,
    FB: Fn(SB) -> T + Sync,
{
    let (m, k, n) = (a.rows(), a.cols(), b.cols.len());
    let MicroKernel { mr, nr, kc, .. } = *kern;
    let panels = n.div_ceil(nr);
    let tasks = threads.min(panels);
    let shared = SharedC(c.as_mut_ptr());
    // Read in place from memory (B larger than half of L3), B streams best a few rows at a time:
    // the panels of one slice of rows are visited left to right, so each of its rows is read as
    // one sequential run. From cache, the usual slices pay less per call.
    let from_memory =
        k.saturating_mul(n).saturating_mul(std::mem::size_of::<T>()) > cache::detect().l3 / 2;
    // In place for up to two tiles of rows: packing a panel costs about as much as using it
    // twice (the RNN program's 16 x 256 x 256 step ran 21.4 ms packed, 18.0 ms in place, side by
    // side). With more tiles, each panel serves several, and a packed copy in L1 serves them
    // better than rows `ldb` apart. A B streamed from memory is packed from `PACKED_FROM_MEMORY`
    // rows on: packing reads each row's part of a group of panels as one run of a kilobyte or
    // more, asked for while the previous group computes, where the tiles read a slice of rows
    // side by side, a cache line or two of each at a time (8 x 4096 x 4096 read B at 20 GB/s so,
    // a third of what a matrix-vector product reaches).
    let direct = in_place::<SB, T>(b, bst)
        .filter(|_| m <= 2 * mr && !(from_memory && m >= PACKED_FROM_MEMORY));
    let kc = match direct {
        Some(_) if from_memory => k.div_ceil(k.div_ceil(STREAMED_ROWS.min(kc))),
        _ => kc,
    };
    if let (1, Some((data, s))) = (m, direct) {
        // One row: a vector-matrix product over each task's columns, B streamed row by row.
        let mut x = vec![T::zero(); k];
        a.pack(0, 1, 0, k, 1, &mut x);
        let x = &x;
        if from_memory && tasks > 1 && k >= 2 * tasks {
            // B streamed from memory: each task takes a contiguous range of B's rows, one
            // sequential stream per thread (splitting the columns gave each thread `R` streams
            // of half rows, which kept less of the memory bandwidth busy), into a row of sums
            // of its own; the rows are added at the end (a dot's order of summation is free).
            let mut part = vec![T::zero(); (tasks - 1) * n];
            let parts = SharedC(part.as_mut_ptr());
            let task = |t: usize| {
                let (p0, p1) = (t * k / tasks, (t + 1) * k / tasks);
                let y = if t == 0 {
                    shared.at(0)
                } else {
                    parts.at((t - 1) * n)
                };
                // SAFETY: B's rows p0..p1 and columns 0..n are elements of B, inside `data`
                // (`in_bounds`); C's one row (task 0) and the task's row of `part` are written
                // by this task alone.
                unsafe {
                    (kern.vecmat)(
                        p1 - p0,
                        x[p0..].as_ptr(),
                        data[s.origin + p0 * s.rs..].as_ptr(),
                        s.rs,
                        y,
                        n,
                        false,
                    )
                };
            };
            super::pool::run_tasks(tasks, &task);
            for row in part.chunks_exact(n) {
                for (d, &v) in c.iter_mut().zip(row) {
                    *d = T::plus(*d, v);
                }
            }
            return;
        }
        let task = |t: usize| {
            let (j0, j1) = (
                t * panels / tasks * nr,
                ((t + 1) * panels / tasks * nr).min(n),
            );
            // SAFETY: B's rows 0..k and columns j0..j1 are elements of B, inside `data`
            // (`in_bounds`); columns j0..j1 of C's one row belong to this task alone.
            unsafe {
                (kern.vecmat)(
                    k,
                    x.as_ptr(),
                    data[s.origin + j0..].as_ptr(),
                    s.rs,
                    shared.at(j0),
                    j1 - j0,
                    false,
                )
            };
        };
        super::pool::run_tasks(tasks, &task);
        return;
    }
    // Packed B panels are made a group at a time: a row-major B is then read in runs of the
    // group's width, where one panel at a time would read `nr` elements from each of `kc` rows
    // a whole row apart (a page apart for wide B), which the hardware prefetcher does not follow.
    // The group takes half of L2, beside the A panels.
    let group = (cache::detect().l2 / 2 / (nr * kc * std::mem::size_of::<T>()).max(1)).max(1);
    let task = |t: usize| {
        let (p0, p1) = (t * panels / tasks, (t + 1) * panels / tasks);
        let mpanels = m.div_ceil(mr);
        // (Both zeroed below where padding needs it.)
        let mut apack = Scratch::stale(mpanels * mr * kc, T::zero());
        let panels_kept = if direct.is_some() {
            1
        } else {
            group.min(p1 - p0)
        };
        let mut bp = Scratch::stale(nr * kc * panels_kept, T::zero());
        let mut tmp = vec![T::zero(); mr * nr];
        for pc in (0..k).step_by(kc) {
            let kcb = kc.min(k - pc);
            apack.iter_mut().for_each(|x| *x = T::zero());
            for (ip, panel) in apack.chunks_mut(mr * kcb).take(mpanels).enumerate() {
                let r0 = ip * mr;
                a.pack(r0, mr.min(m - r0), pc, kcb, mr, panel);
            }
            let mut packed = (0, 0);
            for jp in p0..p1 {
                let j0 = jp * nr;
                let w = nr.min(n - j0);
                // A full panel of a row-major B of the accumulator's type is read where it is:
                // each of its elements is used by these few rows only, so a packed copy would
                // cost as much as the product. Others are packed, a group just before its use.
                let panel = match direct {
                    Some((data, s)) if w == nr => {
                        // In bounds: rows pc..pc+kcb and columns j0..j0+nr are elements of B,
                        // whose every element `in_bounds` proved inside `data`.
                        (data[s.origin + pc * s.rs + j0..].as_ptr(), s.rs)
                    }
                    Some(_) => {
                        bp.iter_mut().for_each(|x| *x = T::zero());
                        pack_block(b, bst, (pc, kcb), (j0, w), &mut bp, nr, 1, conv_b);
                        (bp.as_ptr(), nr)
                    }
                    None => {
                        if !(packed.0..packed.1).contains(&jp) {
                            packed = (jp, (jp + group).min(p1));
                            let len = (packed.1 - packed.0) * nr * kcb;
                            if packed.1 * nr > n {
                                bp[..len].iter_mut().for_each(|x| *x = T::zero());
                            }
                            pack_b_panels(b, bst, (pc, kcb), (0, n), packed, nr, &mut bp, conv_b);
                        }
                        // While this group's products run, the next group's rows of B are
                        // asked for, a slice per panel, so that its packing finds them in L2
                        // (4096 x 64 x 4096 with AVX2, side by side: F32 121 -> 134 GFLOP/s
                        // mean, F64 62 -> 65; AVX-512 F32 level).
                        let (q, len) = (jp - packed.0, packed.1 - packed.0);
                        let next = (packed.1 * nr, ((packed.1 + group).min(p1) * nr).min(n));
                        if next.1 > next.0 {
                            let rows = (pc + q * kcb / len, pc + (q + 1) * kcb / len);
                            pack::prefetch_b_rows(b, bst, rows, next);
                        }
                        (bp[(jp - packed.0) * nr * kcb..].as_ptr(), nr)
                    }
                };
                // SAFETY: columns j0..j0+w of every row of C belong to this task alone (its
                // panel range); C has m rows of stride n; the panel has kcb rows of nr.
                unsafe {
                    panel_tiles(
                        kern,
                        kcb,
                        &apack,
                        None,
                        m,
                        panel,
                        (shared.at(j0), n, w),
                        pc > 0,
                        &mut tmp,
                    )
                };
            }
        }
    };
    super::pool::run_tasks(tasks, &task);
}

#[cfg(test)]
mod tests {
    use super::cache::DEFAULT;
    use super::*;

    fn naive(m: usize, n: usize, k: usize, a: &[f64], b: &[f64]) -> Vec<f64> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            }
        }
        c
    }

    /// Row-major `a[m x k] * b[k x n]` through `gemm`.
    fn row_major<T: GemmElem>(
        kern: &MicroKernel<T>,
        dims: (usize, usize, usize),
        a: &[T],
        b: &[T],
    ) -> Vec<T> {
        let (m, n, k) = dims;
        let (ar, ac) = row_major_tables(m, k);
        let (br, bc) = row_major_tables(k, n);
        let mut c = vec![T::zero(); m * n];
        gemm(
            kern,
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
            |x| x,
            |x| x,
            &mut c,
        );
        c
    }

    fn check_f32(kernel: &MicroKernel<f32>, m: usize, n: usize, k: usize) {
        let a: Vec<f32> = (0..m * k).map(|i| ((i * 7919) % 13) as f32 - 6.0).collect();
        let b: Vec<f32> = (0..k * n)
            .map(|i| ((i * 104729) % 11) as f32 - 5.0)
            .collect();
        let c = row_major(kernel, (m, n, k), &a, &b);
        let ran = kernel.kind;
        let a64: Vec<f64> = a.iter().map(|&x| x as f64).collect();
        let b64: Vec<f64> = b.iter().map(|&x| x as f64).collect();
        let want = naive(m, n, k, &a64, &b64);
        // Small integers: every partial sum is exact, so any order gives the same answer.
        for (i, (&g, &w)) in c.iter().zip(&want).enumerate() {
            assert_eq!(
                g as f64,
                w,
                "kernel {} m={m} n={n} k={k} at {i}",
                ran.name()
            );
        }
    }

    /// How an operand is stored and read in `every_plan_matches_naive`.
    #[derive(Clone, Copy, Debug)]
    enum Store {
        /// Row-major, read in place where a plan can.
        RowMajor,
        /// Column-major: the tables of a transposed view.
        ColMajor,
        /// Row-major with its rows listed in reverse: tables that are no progression.
        Reversed,
        /// Held as f64 and converted: never read in place by an f32 kernel.
        Converted,
    }

    /// Offsets of a `rows x cols` matrix stored as `st` (element (i, j) at `base + r[i] + c[j]`).
    fn tables(rows: usize, cols: usize, st: Store) -> (Vec<usize>, Vec<usize>) {
        match st {
            Store::RowMajor | Store::Converted => row_major_tables(rows, cols),
            Store::ColMajor => ((0..rows).collect(), (0..cols).map(|j| j * rows).collect()),
            Store::Reversed => (
                (0..rows).rev().map(|i| i * cols).collect(),
                (0..cols).collect(),
            ),
        }
    }

    /// `a[m x k] * b[k x n]` with the operands stored as given, against the naive sum (small
    /// integers, so every order of summation gives the same f32).
    fn check_plan(kern: &MicroKernel<f32>, (m, n, k): (usize, usize, usize), sa: Store, sb: Store) {
        let av: Vec<f64> = (0..m * k).map(|i| ((i * 7919) % 13) as f64 - 6.0).collect();
        let bv: Vec<f64> = (0..k * n)
            .map(|i| ((i * 104729) % 11) as f64 - 5.0)
            .collect();
        let (ar, ac) = tables(m, k, sa);
        let (br, bc) = tables(k, n, sb);
        let a32: Vec<f32> = av.iter().map(|&x| x as f32).collect();
        let b32: Vec<f32> = bv.iter().map(|&x| x as f32).collect();
        let mut c = vec![0f32; m * n];
        let a64 = MatRef {
            data: &av,
            base: 0,
            rows: &ar,
            cols: &ac,
        };
        let b64 = MatRef {
            data: &bv,
            base: 0,
            rows: &br,
            cols: &bc,
        };
        let a = MatRef {
            data: &a32,
            base: 0,
            rows: &ar,
            cols: &ac,
        };
        let b = MatRef {
            data: &b32,
            base: 0,
            rows: &br,
            cols: &bc,
        };
        match (sa, sb) {
            (Store::Converted, Store::Converted) => {
                gemm(kern, a64, b64, |x| x as f32, |x| x as f32, &mut c)
            }
            (Store::Converted, _) => gemm(kern, a64, b, |x| x as f32, |x| x, &mut c),
            (_, Store::Converted) => gemm(kern, a, b64, |x| x, |x| x as f32, &mut c),
            _ => gemm(kern, a, b, |x| x, |x| x, &mut c),
        };
        for i in 0..m {
            for j in 0..n {
                let want: f64 = (0..k).map(|p| a64.at(i, p) * b64.at(p, j)).sum();
                assert_eq!(
                    c[i * n + j] as f64,
                    want,
                    "kernel {} {m}x{n}x{k} A {sa:?} B {sb:?} at ({i}, {j})",
                    kern.kind.name()
                );
            }
        }
    }

    /// Every plan `gemm` chooses (one row: vector-matrix, split by columns, or by rows of B
    /// when B streams from memory; a few rows: columns split, B in place
    /// or packed per panel, in slices when B streams from memory (packed from
    /// `PACKED_FROM_MEMORY` rows on); at most 8 columns: row dots,
    /// or the transposed product when A cannot be read in place; the rest: rows split, B packed
    /// by rows), on every kernel this machine runs, with operands in place, transposed, read
    /// through tables that are no progression, and converted.
    #[test]
    fn every_plan_matches_naive() {
        use Store::*;
        let stores = [RowMajor, ColMajor, Reversed, Converted];
        // B larger than half of L3 makes a few-row product stream it in slices.
        let big = ((cache::detect().l3 / 2 / 4) as f64).sqrt() as usize + 8;
        let shapes = [
            (1, 300, 77),
            (1, 5, 3),
            (3, 100, 50),
            (9, 700, 600),
            (2, big, big),
            (PACKED_FROM_MEMORY, big, big),
            (1, big, big),
            (100, 1, 300),
            (50, 3, 70),
            (33, 8, 129),
            (700, 5, 900),
            (301, 9, 50),
            (64, 200, 513),
            (129, 130, 131),
            (130, 64, 77),
            (70, 17, 40),
            (96, 300, 65),
            // Two tiles of 8 rows; B packed a group of panels at a time, several
            // groups and a partial panel; row dots for many empty lanes (33 and 24 columns of
            // 32-wide tiles), and not for 32 columns.
            (16, 256, 256),
            (20, 1100, 300),
            (40, 33, 2100),
            (200, 24, 30),
            (200, 32, 30),
        ];
        for kern in MicroKernel::<f32>::available() {
            for &shape in &shapes {
                for sa in stores {
                    for sb in stores {
                        // The big shape only in place (it is there for the streamed plan).
                        if shape.1 == big && !matches!((sa, sb), (RowMajor, RowMajor)) {
                            continue;
                        }
                        check_plan(&kern, shape, sa, sb);
                    }
                }
            }
        }
    }

    /// The packing's gather (the SSE transposition for F32, four rows by four columns, and
    /// the scalar loop for other types and the last columns) puts `rows[i][j]` at
    /// `dst[j * dj + i]` and writes nothing else.
    #[test]
    fn gathered_panels_are_the_rows_side_by_side() {
        fn check<T: Copy + PartialEq + std::fmt::Debug + 'static>(of: fn(usize) -> T, fill: T) {
            for h in [4usize, 6, 8, 12, 16, 32, 5] {
                for w in [0usize, 1, 3, 4, 5, 15, 16, 17, 33, 64] {
                    let data: Vec<T> = (0..h * 70).map(of).collect();
                    let runs: Vec<&[T]> =
                        (0..h).map(|i| &data[i * 70 + 2..i * 70 + 2 + w]).collect();
                    let dj = h + 3;
                    let mut dst = vec![fill; w * dj + h];
                    gather(&runs, w, &mut dst, dj, &|x| x);
                    for (o, &x) in dst.iter().enumerate() {
                        let (j, i) = (o / dj, o % dj);
                        let want = if j < w && i < h {
                            data[i * 70 + 2 + j]
                        } else {
                            fill
                        };
                        assert_eq!(x, want, "h {h} w {w} at {o}");
                    }
                }
            }
        }
        check(|i| i as f32 + 0.5, -1.0f32);
        check(|i| i as f64 + 0.5, -1.0f64);
        check(|i| i as i64, -1i64);
    }

    /// Row blocks: whole tiles, a multiple of the threads in number, and rounded down rather
    /// than halved (the cases measured in `row_block`'s comment).
    #[test]
    fn row_blocks_stay_near_the_cache_block() {
        // 1024 rows, MC 480, 2 threads: 4 blocks of 256 would be half of MC; 2 of 512 are
        // 7% over it.
        assert_eq!(row_block(1024, 480, 6, 2), 516);
        // 512 rows of F64, MC 240: 2 blocks of 258 instead of 4 of 132.
        assert_eq!(row_block(512, 240, 6, 2), 258);
        // 2048 rows, MC 480: 6 blocks of 342 are three fifths of MC or more: kept.
        assert_eq!(row_block(2048, 480, 6, 2), 342);
        // Rounding down would overflow MC by more than an eighth (2 of 552): kept at 4 of 276.
        assert_eq!(row_block(1100, 480, 6, 2), 276);
        // Fewer rows than one block per thread, one thread, degenerate sizes.
        assert_eq!(row_block(100, 480, 6, 2), 54);
        assert_eq!(row_block(1000, 480, 6, 1), 336);
        assert_eq!(row_block(10, 0, 4, 0), 4);
        for (m, mc, mr, t) in [
            (1usize, 1usize, 1usize, 1usize),
            (4096, 480, 6, 2),
            (999, 240, 12, 3),
        ] {
            let h = row_block(m, mc, mr, t);
            assert!(h.is_multiple_of(mr) && h > 0, "{m} {mc} {mr} {t}: {h}");
        }
    }

    #[test]
    fn caches_give_block_sizes_in_whole_tiles() {
        for c in [
            DEFAULT,
            Caches {
                l1d: 48 << 10,
                l2: 2 << 20,
                l3: 105 << 20,
                l1d_ways: 12,
                source: "test",
            },
            Caches {
                l1d: 4 << 10,
                l2: 64 << 10,
                l3: 64 << 10,
                l1d_ways: 4,
                source: "test",
            },
        ] {
            for (mr, nr, elem) in [(12, 32, 4), (6, 16, 4), (12, 16, 8), (4, 4, 8)] {
                let b = Blocks::for_caches(&c, mr, nr, elem);
                assert!(b.kc >= 64 && b.kc.is_multiple_of(8), "{c:?} {b:?}");
                assert!(b.mc >= mr && b.mc.is_multiple_of(mr), "{c:?} {b:?}");
                assert!(b.nc >= nr && b.nc.is_multiple_of(nr), "{c:?} {b:?}");
            }
        }
        // The B micro-panel fills twice L1 (up to the cap); the A block and one B micro-panel
        // fit in L2.
        let b = Blocks::for_caches(&DEFAULT, 12, 32, 4);
        assert_eq!(b.kc, 2 * DEFAULT.l1d / (32 * 4));
        assert!(b.mc * b.kc * 4 + b.kc * 32 * 4 <= DEFAULT.l2);
        assert!(b.mc * b.kc * 4 > DEFAULT.l2 / 2);
    }

    #[test]
    fn tables_that_are_progressions_are_recognised() {
        assert_eq!(progression(&[]), None);
        assert_eq!(progression(&[7]), Some((7, 0)));
        assert_eq!(progression(&[3, 5, 7, 9]), Some((3, 2)));
        assert_eq!(progression(&[4, 4, 4]), Some((4, 0)));
        assert_eq!(progression(&[3, 5, 8]), None);
        assert_eq!(progression(&[9, 5, 1]), None);
        // Long tables (the vectorised check), with one element off anywhere.
        let long: Vec<usize> = (0..1000).map(|i| 17 + 3 * i).collect();
        assert_eq!(progression(&long), Some((17, 3)));
        for bad in [2, 500, 998, 999] {
            let mut t = long.clone();
            t[bad] += 1;
            assert_eq!(progression(&t), None, "element {bad} off");
        }
        // Terms at the top of usize, and a step whose later terms would overflow.
        assert_eq!(
            progression(&[usize::MAX - 1, usize::MAX]),
            Some((usize::MAX - 1, 1))
        );
        let half = usize::MAX / 2 + 1;
        assert_eq!(progression(&[0, half, 0]), None);
    }

    #[test]
    fn block_override_parses_three_positive_sizes_only() {
        assert_eq!(parse_blocks("192,288,4096"), Some((192, 288, 4096)));
        assert_eq!(parse_blocks(" 64 , 32 ,1 "), Some((64, 32, 1)));
        for bad in [
            "",
            "1,2",
            "1,2,3,4",
            "0,1,1",
            "a,b,c",
            "-1,2,3",
            "1,2,99999999",
        ] {
            assert_eq!(parse_blocks(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn odd_block_sizes_still_compute_the_product() {
        // Blocks smaller than a tile, and not multiples of it, only change the loop bounds.
        let kernel = MicroKernel::<f64>::best();
        for (kc, mc, nc) in [(1, 1, 1), (5, 7, 3), (33, 100, 17)] {
            let k = MicroKernel {
                kc,
                mc,
                nc,
                ..kernel
            };
            let (m, n, kk) = (19, 23, 37);
            let a: Vec<f64> = (0..m * kk).map(|i| (i % 7) as f64 - 3.0).collect();
            let b: Vec<f64> = (0..kk * n).map(|i| (i % 5) as f64 - 2.0).collect();
            assert_eq!(row_major(&k, (m, n, kk), &a, &b), naive(m, n, kk, &a, &b));
        }
        // Large enough for the threads (more than SMALL_PRODUCT): several column blocks with a
        // partial last panel, several slices of k and row blocks, so that the tasks pack B's
        // panel groups for each other.
        let nr = kernel.nr;
        for (kc, mc, nc) in [(40, 3 * kernel.mr, 3 * nr + 5), (64, 2 * kernel.mr, 8 * nr)] {
            let k = MicroKernel {
                kc,
                mc,
                nc,
                ..kernel
            };
            let (m, n, kk) = (150, 9 * nr + 7, 130);
            assert!(m * n * kk > SMALL_PRODUCT);
            let a: Vec<f64> = (0..m * kk).map(|i| (i % 7) as f64 - 3.0).collect();
            let b: Vec<f64> = (0..kk * n).map(|i| (i % 5) as f64 - 2.0).collect();
            assert_eq!(row_major(&k, (m, n, kk), &a, &b), naive(m, n, kk, &a, &b));
        }
    }

    #[test]
    fn every_available_f32_kernel_matches_naive() {
        for kern in MicroKernel::<f32>::available() {
            eprintln!("gemm f32 kernel that ran: {}", kern.kind.name());
            for &(m, n, k) in &[
                (1, 1, 1),
                (13, 33, 7),
                (67, 65, 300),
                (300, 70, 3),
                (5, 1, 9),
            ] {
                check_f32(&kern, m, n, k);
            }
        }
    }

    /// Products with a few column panels and enough rows for row blocks read A in place
    /// (`by_rows`, `MicroKernel::rows`): every kernel, A contiguous and as a block of a wider
    /// matrix (rows `lda` apart, an offset origin), several slices of k, a last row tile shorter
    /// than the kernel's (packed) and a last panel narrower than `nr` (through `tmp`).
    #[test]
    fn products_reading_a_in_place_match_naive() {
        for kern in MicroKernel::<f64>::available() {
            assert!(kern.rows.is_some(), "{}", kern.kind.name());
            let kern = MicroKernel { kc: 96, ..kern };
            let nr = kern.nr;
            for (m, n, k, lda, origin) in [
                (211, 3 * nr + nr / 2 + 1, 700, 700, 0),
                (150, nr, 301, 301, 0),
                (203, 2 * nr + 1, 257, 263, 5),
                (130, 7 * nr + 3, 200, 205, 3),
            ] {
                assert!(n > nr / 2 && n <= DIRECT_A_PANELS * nr);
                let data: Vec<f64> = (0..origin + m * lda)
                    .map(|i| ((i * 31) % 9) as f64 - 4.0)
                    .collect();
                let a: Vec<f64> = (0..m * k)
                    .map(|x| data[origin + (x / k) * lda + x % k])
                    .collect();
                let b: Vec<f64> = (0..k * n).map(|i| ((i * 17) % 7) as f64 - 3.0).collect();
                let rows: Vec<usize> = (0..m).map(|i| i * lda).collect();
                let cols: Vec<usize> = (0..k).collect();
                let (br, bc) = row_major_tables(k, n);
                let mut c = vec![0.0; m * n];
                gemm(
                    &kern,
                    MatRef {
                        data: &data,
                        base: origin,
                        rows: &rows,
                        cols: &cols,
                    },
                    MatRef {
                        data: &b,
                        base: 0,
                        rows: &br,
                        cols: &bc,
                    },
                    |x| x,
                    |x| x,
                    &mut c,
                );
                assert_eq!(
                    c,
                    naive(m, n, k, &a, &b),
                    "kernel {} {m}x{n}x{k} lda {lda}",
                    kern.kind.name()
                );
            }
        }
    }

    #[test]
    fn every_available_f64_kernel_matches_naive() {
        for kern in MicroKernel::<f64>::available() {
            eprintln!("gemm f64 kernel that ran: {}", kern.kind.name());
            for &(m, n, k) in &[(1, 1, 1), (25, 17, 9), (50, 41, 260)] {
                let a: Vec<f64> = (0..m * k).map(|i| ((i * 31) % 9) as f64 - 4.0).collect();
                let b: Vec<f64> = (0..k * n).map(|i| ((i * 17) % 7) as f64 - 3.0).collect();
                let c = row_major(&kern, (m, n, k), &a, &b);
                assert_eq!(c, naive(m, n, k, &a, &b), "kernel {}", kern.kind.name());
            }
        }
    }

    #[test]
    fn this_machine_has_a_vector_kernel_when_the_cpu_says_so() {
        let best = MicroKernel::<f32>::best();
        eprintln!("best f32 kernel here: {}", best.kind.name());
        if KernelKind::Avx512.available() && std::env::var("XLA_SPEC_GEMM_KERNEL").is_err() {
            assert_eq!(best.kind, KernelKind::Avx512);
        }
    }
}
