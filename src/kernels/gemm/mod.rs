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
//! integers to wrapping i64).
//!
//! The micro-kernel is chosen at run time from the CPU's features (`MicroKernel::best`): AVX-512F,
//! AVX2+FMA, or portable scalar code; all three are one generic body (`simd::body`). Block sizes
//! are per kernel and sized for this machine's caches (48 KiB L1d, 1 MiB L2 per core, 32 MiB L3):
//! the B micro-panel `KC x NR` fills about half of L1 and the A block `MC x KC` about a quarter of
//! L2, leaving room for the C tile and the next panels.

pub mod simd;

use rayon::prelude::*;
use simd::{KernelFn, ScalarOps};

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
    fn forced() -> Option<KernelKind> {
        match std::env::var("XLA_SPEC_GEMM_KERNEL").ok()?.as_str() {
            "avx512" => Some(KernelKind::Avx512),
            "avx2" | "avx2+fma" => Some(KernelKind::Avx2Fma),
            "portable" => Some(KernelKind::Portable),
            _ => None,
        }
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
pub struct MicroKernel<T> {
    pub kind: KernelKind,
    pub mr: usize,
    pub nr: usize,
    pub kc: usize,
    pub mc: usize,
    pub nc: usize,
    pub f: KernelFn<T>,
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
        // Block sizes are cache sizes in disguise; the override lets them be re-tuned on a new
        // machine with one build (`xla-spec bench` or `cargo bench --bench linalg` per setting).
        if let Some((kc, mc, nc)) = std::env::var("XLA_SPEC_GEMM_BLOCKS")
            .ok()
            .and_then(|v| parse_blocks(&v))
        {
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
        MicroKernel {
            kind: KernelKind::Portable,
            mr: 4,
            nr: 4,
            kc: 256,
            mc: 128,
            nc: 4096,
            f: portable_kernel::<T>,
        }
    }
}

unsafe fn portable_kernel<T: ScalarOps>(
    k: usize,
    a: *const T,
    b: *const T,
    c: *mut T,
    ldc: usize,
    acc: bool,
) {
    unsafe { simd::body::<simd::Portable<T>, 4, 4>(k, a, b, c, ldc, acc) }
}

macro_rules! float_kernels {
    ($t:ty, $avx2:ident, $avx512:ident, $kc2:expr, $mc2:expr, $kc5:expr, $mc5:expr) => {
        impl GemmElem for $t {
            fn kernel(kind: KernelKind) -> Option<MicroKernel<$t>> {
                match kind {
                    KernelKind::Portable => Some(MicroKernel::portable()),
                    #[cfg(target_arch = "x86_64")]
                    KernelKind::Avx2Fma => {
                        use simd::x86::*;
                        let lanes = 32 / std::mem::size_of::<$t>();
                        Some(MicroKernel {
                            kind,
                            mr: AVX2_MR,
                            nr: AVX2_NV * lanes,
                            kc: $kc2,
                            mc: $mc2,
                            nc: 4096,
                            f: $avx2,
                        })
                    }
                    #[cfg(target_arch = "x86_64")]
                    KernelKind::Avx512 => {
                        use simd::x86::*;
                        let lanes = 64 / std::mem::size_of::<$t>();
                        Some(MicroKernel {
                            kind,
                            mr: AVX512_MR,
                            nr: AVX512_NV * lanes,
                            kc: $kc5,
                            mc: $mc5,
                            nc: 4096,
                            f: $avx512,
                        })
                    }
                    #[cfg(not(target_arch = "x86_64"))]
                    _ => None,
                }
            }
        }
    };
}

// B micro-panel KC x NR: f32 avx2 256x16x4 = 16 KiB, avx512 192x32x4 = 24 KiB; f64 avx2
// 256x8x8 = 16 KiB, avx512 192x16x8 = 24 KiB. A block MC x KC: 240..288 rows, 180..270 KiB.
float_kernels!(f32, avx2_f32, avx512_f32, 256, 240, 192, 288);
float_kernels!(f64, avx2_f64, avx512_f64, 256, 120, 192, 144);

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

impl<S: Copy> MatRef<'_, S> {
    /// Checks every element the tables can address is inside `data`, so packing cannot read out
    /// of bounds.
    fn in_bounds(&self) -> bool {
        let mr = self.rows.iter().max();
        let mc = self.cols.iter().max();
        match (mr, mc) {
            (Some(r), Some(c)) => self.base + r + c < self.data.len(),
            _ => true,
        }
    }
    #[inline(always)]
    fn at(&self, i: usize, j: usize) -> S {
        self.data[self.base + self.rows[i] + self.cols[j]]
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
    /// (`ii < h <= mr`); the panel arrives zeroed and rows `h..mr` must stay zero.
    fn pack(&self, r0: usize, h: usize, pc: usize, kcb: usize, mr: usize, panel: &mut [T]);
}

/// A `MatRef` converted element by element: the A source of `gemm`.
struct Converted<'a, S, F> {
    m: MatRef<'a, S>,
    conv: F,
}

impl<S, T, F> PackA<T> for Converted<'_, S, F>
where
    S: Copy + Sync,
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
        for p in 0..kcb {
            for ii in 0..h {
                panel[p * mr + ii] = (self.conv)(self.m.at(r0 + ii, pc + p));
            }
        }
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
    SA: Copy + Send + Sync,
    SB: Copy + Send + Sync,
    T: GemmElem,
    FA: Fn(SA) -> T + Sync,
    FB: Fn(SB) -> T + Sync,
{
    assert!(a.in_bounds(), "gemm: inconsistent operands");
    gemm_packed(kernel, &Converted { m: a, conv: conv_a }, b, conv_b, c)
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
    SB: Copy + Send + Sync,
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
    let MicroKernel {
        mr, nr, kc, nc, f, ..
    } = *kernel;
    // Small products run on the calling thread (batched dots parallelise over the batch
    // instead); larger ones balance row blocks over the threads: a multiple of the thread count,
    // each at most MC.
    let small = m * n * k <= (1 << 21);
    let threads = if small { 1 } else { super::pool::threads() };
    let blocks = m.div_ceil(kernel.mc).div_ceil(threads) * threads;
    let mc = m.div_ceil(blocks).div_ceil(mr) * mr;
    let mut bpack: Vec<T> = vec![];
    for jc in (0..n).step_by(nc) {
        let ncb = nc.min(n - jc);
        let npanels = ncb.div_ceil(nr);
        for pc in (0..k).step_by(kc) {
            let kcb = kc.min(k - pc);
            bpack.clear();
            bpack.resize(npanels * nr * kcb, T::zero());
            let pack_b = |(jp, panel): (usize, &mut [T])| {
                let j0 = jc + jp * nr;
                let w = nr.min(jc + ncb - j0);
                for p in 0..kcb {
                    let dst = &mut panel[p * nr..p * nr + w];
                    for (jj, d) in dst.iter_mut().enumerate() {
                        *d = conv_b(b.at(pc + p, j0 + jj));
                    }
                }
            };
            if small {
                bpack.chunks_mut(nr * kcb).enumerate().for_each(pack_b);
            } else {
                super::pool::install(|| {
                    bpack.par_chunks_mut(nr * kcb).enumerate().for_each(pack_b)
                });
            }
            let bpack = &bpack;
            let block = |(ib, cblock): (usize, &mut [T])| {
                let i0 = ib * mc;
                let mcb = cblock.len() / n;
                let mpanels = mcb.div_ceil(mr);
                let mut apack = vec![T::zero(); mpanels * mr * kcb];
                for (ip, panel) in apack.chunks_mut(mr * kcb).enumerate() {
                    let r0 = i0 + ip * mr;
                    let h = mr.min(i0 + mcb - r0);
                    a.pack(r0, h, pc, kcb, mr, panel);
                }
                let mut tmp = vec![T::zero(); mr * nr];
                let accumulate = pc > 0;
                for jp in 0..npanels {
                    let j0 = jc + jp * nr;
                    let w = nr.min(jc + ncb - j0);
                    let bp = bpack[jp * nr * kcb..].as_ptr();
                    for ip in 0..mpanels {
                        let r = ip * mr;
                        let h = mr.min(mcb - r);
                        let ap = apack[ip * mr * kcb..].as_ptr();
                        if h == mr && w == nr {
                            // SAFETY: the tile rows r..r+mr and columns j0..j0+nr lie inside
                            // this block of C (row stride n); the panels hold kcb steps.
                            unsafe {
                                f(
                                    kcb,
                                    ap,
                                    bp,
                                    cblock[r * n + j0..].as_mut_ptr(),
                                    n,
                                    accumulate,
                                )
                            };
                        } else {
                            // SAFETY: tmp is a full mr x nr tile with row stride nr.
                            unsafe { f(kcb, ap, bp, tmp.as_mut_ptr(), nr, false) };
                            for ii in 0..h {
                                let row = &mut cblock[(r + ii) * n + j0..(r + ii) * n + j0 + w];
                                let src = &tmp[ii * nr..ii * nr + w];
                                for (d, &s) in row.iter_mut().zip(src) {
                                    *d = if accumulate { T::plus(*d, s) } else { s };
                                }
                            }
                        }
                    }
                }
            };
            if small {
                c.chunks_mut(mc * n).enumerate().for_each(block);
            } else {
                super::pool::install(|| c.par_chunks_mut(mc * n).enumerate().for_each(block));
            }
        }
    }
    kernel.kind
}

#[cfg(test)]
mod tests {
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
