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
//! A packed B block is larger than L2, so the first tile against each B micro-panel would meet
//! it cold; the tiles before it ask for its lines into L2 a few at a time while they run
//! (`next_piece`, `simd::next_panel_lines`).
//!
//! Packing copies each operand into the exact order the micro-kernel reads, zero-padding partial
//! panels, so the kernel never branches on edges; edge tiles of C go through a small buffer, and
//! a short last row tile is packed for, and run by, the smallest instance that covers it
//! (`MicroKernel::edge`).
//! Packing is also where operands are read through arbitrary index tables (any DotGeneral
//! dimension order, no transposed copy) and converted to the accumulation type (F16/BF16 to F32,
//! integers to wrapping i64); tables that are arithmetic progressions (every plain row- or
//! column-major operand) are packed by contiguous runs instead of element by element.
//!
//! Skinny products change the plan (Goto & van de Geijn's GEPP/GEMP shapes; module `few_rows`):
//! with fewer rows than two tiles per thread, the threads split the columns instead of the rows,
//! each packing the B panels it uses just before using them, and the tile shrinks to the rows
//! there are (`MicroKernel::for_rows`); on AMD, a plain B streamed from memory against at most
//! `few_rows::FEWMAT_ROWS` rows is not packed at all: each thread streams a range of B's rows
//! past all of A's rows at once (`few_rows::fewmat`); with few columns and A readable in place, C is dot
//! products of A's rows (`rowdot`); otherwise, with fewer columns than half a tile, `gemm`
//! computes `C^T = B^T A^T`, which puts the long dimension where the vector lanes are. With few
//! column panels (at most `DIRECT_A_PANELS`), each A block serves few tiles and packing it costs
//! about as much as using it: a plain A of the accumulator's type is then read in place by the
//! micro-kernel (`MicroKernel::rows`, the same body reading `MR` rows `lda` apart), where the L1
//! has the ways to hold a tile's rows at that stride.
//!
//! The micro-kernel is chosen at run time from the CPU's features (`MicroKernel::best`): AVX-512F,
//! AVX2+FMA, or portable scalar code; all three are one generic body (`simd::body`). Block sizes
//! come from the caches of the machine it runs on (`Blocks::for_caches`, after the analytical
//! model of Low et al., "Analytical Modeling Is Enough for High-Performance BLIS", ACM TOMS 2016):
//! the B micro-panel `KC x NR` takes twice L1 (the L1 prefetcher streams it from L2), the A block
//! `MC x KC` what L2 leaves beside it, and the B block `KC x NC` a quarter of L3.
//!
//! The parallel row blocks of the `ic` loop, their heights and the shrinking ones that keep the
//! threads finishing a step together, are module `row_blocks`.

pub mod bf16;
mod few_rows;
mod kernel;
mod pack;
pub mod peak;
mod row_blocks;
pub mod simd;

use row_blocks::{GUIDED_MAX_PRODUCT, block_starts, rounds_down, row_block};

pub use kernel::{Blocks, GemmElem, KernelKind, MicroKernel, RowDot, parse_blocks};

use super::cache;
use super::scratch::Scratch;
use crate::kernels::pool::SharedMut;
use few_rows::{ROWDOT_ALWAYS_COLS, ROWDOT_MAX_COLS, by_columns, rowdot};
use pack::{BOrder, Strided, pack_b_panels, pack_block, progression};
pub(crate) use pack::{GATHER_ROWS, gather};
use simd::KernelRowsFn;
use std::mem::MaybeUninit;

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

/// The A operand as a source of packed panels. `gemm_packed` asks it for MR-tall panels (or
/// row-major blocks, where the source says they are cheaper), so a source can compute its
/// elements while packing (the convolution gathers input patches this
/// way, without materialising the im2col matrix).
pub trait PackA<T: GemmElem>: Sync {
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
    /// Whether `pack_rows` is cheaper than `pack` for this source: `by_rows` then asks for
    /// row-major blocks and reads them with the in-place kernel (`MicroKernel::rows`).
    fn packs_rows(&self) -> bool {
        false
    }
    /// Writes rows `r0..r0+h` and columns `pc..pc+kcb` row-major, `panel[ii * kcb + p]`, every
    /// one of them (zeros where the source has none); rows past `h` are the caller's.
    fn pack_rows(&self, r0: usize, h: usize, pc: usize, kcb: usize, panel: &mut [T]);
    /// `pack` for `h / mr` whole panels at once (`h` a multiple of `mr`), panel `i` at
    /// `block[i * mr * kcb..]`, for a source that reads its memory better across panels than
    /// panel by panel; false (nothing written) if it does not, and `pack` is asked per panel.
    fn pack_panels(
        &self,
        r0: usize,
        h: usize,
        pc: usize,
        kcb: usize,
        mr: usize,
        block: &mut [T],
    ) -> bool {
        let _ = (r0, h, pc, kcb, mr, block);
        false
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

impl<S, T: GemmElem, F> PackA<T> for Converted<'_, S, F>
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
    fn pack_rows(&self, r0: usize, h: usize, pc: usize, kcb: usize, panel: &mut [T]) {
        pack_block(
            &self.m,
            self.st,
            (r0, h),
            (pc, kcb),
            panel,
            kcb,
            1,
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
    gemm_into(kernel, a, b, conv_a, conv_b, as_uninit(c))
}

/// `c` as memory to write: every plan writes each element of C before it reads it (the first
/// slice of k stores its sums, the later ones add), so C's old contents are never needed.
fn as_uninit<T>(c: &mut [T]) -> &mut [MaybeUninit<T>] {
    // SAFETY: MaybeUninit<T> has T's layout; the GEMM writes only initialised values, so `c`
    // holds valid `T`s again when the borrow ends.
    unsafe { &mut *(c as *mut [T] as *mut [MaybeUninit<T>]) }
}

/// `gemm` into memory that need not be initialised: it writes every element of `c` (a zeroed
/// result was a serial pass over C before the product, 2-3% of a 256 x 256 x 256 one on two
/// threads, Zen 5).
pub fn gemm_into<SA, SB, T, FA, FB>(
    kernel: &MicroKernel<T>,
    a: MatRef<SA>,
    b: MatRef<SB>,
    conv_a: FA,
    conv_b: FB,
    c: &mut [MaybeUninit<T>],
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
                x.write(ct[j * m + i]);
            }
        }
        return kind;
    }
    gemm_packed_into(kernel, &Converted::new(a, conv_a), b, conv_b, c)
}

/// Products of at most this many multiply-adds (`m n k`) run on the calling thread: handing them
/// out costs more than it saves. Waking the pool's sleeping workers took 14 to 17 µs a step on
/// a 2-core VM, and the scanned RNN's two products per step (16 x 256 x 256 and 16 x 64 x 256)
/// ran 70% slower threaded, so the limit was 2^21; the kernels' team keeps a helper awake
/// between steps (`team`), and with it both products threaded took the program from 6.2 to 5.3
/// ms (Zen 5, alternating runs; 2^19, threading only the larger, 5.4).
pub(crate) const SMALL_PRODUCT: usize = 1 << 17;

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

/// Every tile of one A block (`mcb` rows, packed as MR-tall panels) times one B micro-panel
/// (`w <= nr` columns, its `kcb` rows `ldb` apart): full tiles straight into C, edge tiles
/// through `tmp`; a last, shorter tile packed for a smaller instance (`MicroKernel::panel_mr`)
/// runs that instance. With `direct` (the in-place kernel, the block's first row and column of
/// A, and A's row stride), the tiles of `mr` rows read A in place and only a last, shorter tile
/// reads its packed panel; with `short_too` as well, that tile too (a row-major packed block,
/// whose last tile has zero rows past the edge, and no smaller instance). Unless null, `next` is
/// the next packed B micro-panel (`kcb` rows of `nr`), which the block's first tiles ask for
/// into L2 a piece each (`next_piece`).
///
/// # Safety
/// `c` must point to an `mcb x w` region with row stride `ldc` that nothing else accesses
/// meanwhile, initialised where `accumulate` (otherwise only written); `apack` must hold `kcb`
/// steps of its panels (with `direct`, at least of a last partial one), and `bp` `kcb` rows of
/// `nr` readable elements, `ldb` apart; with `direct`, A must hold `mcb` readable rows of `kcb`
/// elements from the pointer, `lda` apart (with `short_too`, `mcb` rounded up to whole tiles).
#[allow(clippy::too_many_arguments)]
unsafe fn panel_tiles<T: GemmElem>(
    kern: &MicroKernel<T>,
    kcb: usize,
    apack: &[T],
    direct: Option<(KernelRowsFn<T>, *const T, usize)>,
    short_too: bool,
    mcb: usize,
    (bp, ldb, next): (*const T, usize, *const T),
    (c, ldc, w): (*mut T, usize, usize),
    accumulate: bool,
    tmp: &mut [T],
) {
    let (mr, nr) = (kern.mr, kern.nr);
    debug_assert!(tmp.len() >= mr * nr);
    for ip in 0..mcb.div_ceil(mr) {
        let next = next_piece::<T>(next, kcb, nr, ip);
        let r = ip * mr;
        let h = mr.min(mcb - r);
        let ap = apack[ip * mr * kcb..(ip + 1) * mr * kcb].as_ptr();
        // A short last tile from a packed panel runs the smaller instance its panel was packed
        // for (`MicroKernel::edge`).
        let (tile_mr, f) = match kern.edge(h).filter(|_| !short_too) {
            Some(e) => e,
            None => (mr, kern.f),
        };
        // SAFETY: the caller's region holds the tile's rows r..r+h and columns 0..w; full tiles
        // (h = tile_mr, w = nr) are written in place, the others through `tmp` (tile_mr <= mr
        // rows of nr, stride nr).
        // A tile read in place has all `mr` rows (h = mr, or `short_too`: a packed block's
        // zero rows), inside A by the caller's contract.
        unsafe {
            let full = h == tile_mr && w == nr;
            let (dst, ld, acc) = if full {
                (c.add(r * ldc), ldc, accumulate)
            } else {
                (tmp.as_mut_ptr(), nr, false)
            };
            match direct.filter(|_| short_too || h == mr) {
                Some((g, a0, lda)) => g(kcb, a0.add(r * lda), lda, bp, ldb, dst, ld, acc),
                None => f(kcb, ap, bp, ldb, dst, ld, acc, next),
            }
            if !full {
                for ii in 0..h {
                    let row = c.add((r + ii) * ldc);
                    for (jj, &s) in tmp[ii * nr..ii * nr + w].iter().enumerate() {
                        let d = row.add(jj);
                        d.write(if accumulate { T::plus(d.read(), s) } else { s });
                    }
                }
            }
        }
    }
}

/// Where tile `ip` of a row block starts asking for the next B micro-panel (`kcb` rows of `nr`
/// elements from `next`), or null: each tile asks for `simd::next_panel_lines(kcb)` lines, the
/// first tiles one piece each, until the panel is covered.
fn next_piece<T>(next: *const T, kcb: usize, nr: usize, ip: usize) -> *const T {
    let elems = (64 / std::mem::size_of::<T>().max(1)).max(1);
    let lines = (kcb * nr).div_ceil(elems);
    let per = simd::next_panel_lines(kcb);
    match ip.checked_mul(per) {
        Some(first) if !next.is_null() && per > 0 && first < lines => {
            next.wrapping_add(first * elems)
        }
        _ => std::ptr::null(),
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
    gemm_packed_into(kernel, a, b, conv_b, as_uninit(c))
}

/// `gemm_packed` into memory that need not be initialised (see `gemm_into`).
pub fn gemm_packed_into<SB, T, PA, FB>(
    kernel: &MicroKernel<T>,
    a: &PA,
    b: MatRef<SB>,
    conv_b: FB,
    c: &mut [MaybeUninit<T>],
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
        c.iter_mut().for_each(|x| {
            x.write(T::zero());
        });
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
        let far = threads > 1 && !a.packs_rows() && n >= FAR_SPLIT_PANELS * kern.nr && cores_far();
        by_rows(&kern, a, &b, bst, &conv_b, c, threads, far);
    }
    kernel.kind
}

/// Products with at least this many column panels split their columns across threads when the
/// cores share no L3 (`pool::cores_far`): each task then packs and reads only its own B panels
/// (it packs every A block, a small cost next to the panels' traffic), where split by rows every
/// task reads every packed panel, half of them from the other core's cache. BLIS's advice:
/// columns (`jc`) across L3 domains, rows (`ic`) within one. On the far placement (round trip
/// 350-400 ns, Zen 5), forcing the few-row plan's column split (`by_columns`, all of A packed
/// per slice of k) on squares was 3-6% faster on AVX2 (F32 and F64, 256^3 to 1024^3) and 5-8%
/// on AVX-512 at 512^3 and 1024^3, but 14% slower at AVX-512 256^3 (8 panels), and 2-3% slower
/// on one L3. This split keeps `by_rows`' cache-sized A blocks. Side by side on the far
/// placement (392-420 ns), against the row split: AVX2 F32 256^3 +4%, 1024^3 +2%, F64 512^3
/// +4%, 1024^3 +7%; AVX-512 F32 512^3 +5%, 1024^3 +4%, F64 512^3 +11%, 1024^3 +10%. On one L3
/// (43 ns) it ran level to 2% behind the row split, so a wrong reading of the placement costs
/// little. Convolution patches (`packs_rows`), whose A blocks
/// cost more to make, ran far slower under the few-row split on both placements and are left
/// out.
const FAR_SPLIT_PANELS: usize = 16;

/// `pool::cores_far`, which a test may override on its own thread.
fn cores_far() -> bool {
    #[cfg(test)]
    if let Some(far) = tests::FORCE_FAR.with(|f| f.get()) {
        return far;
    }
    super::pool::cores_far()
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
#[allow(clippy::too_many_arguments)]
fn by_rows<SB, T, PA, FB>(
    kern: &MicroKernel<T>,
    a: &PA,
    b: &MatRef<SB>,
    bst: Option<Strided>,
    conv_b: &FB,
    c: &mut [MaybeUninit<T>],
    threads: usize,
    far: bool,
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
    // Split by columns, each task keeps only its share of a B block in its own L3: the block may
    // be `threads` times wider, and every task then packs all of A as often as the row split
    // packs it in all (once per block). On the far placement, side by side (two rounds), AVX2
    // F64 1024^3 to 4096^3 gained 0-2%, F32 level.
    let nc = if far { nc.saturating_mul(threads) } else { nc };
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
    // Split by columns, every task walks all row blocks: they need not come out even.
    let mc = row_block(
        m,
        kern.mc,
        mr,
        if far { 1 } else { threads },
        rounds_down(),
        &|h| kern.edge(h).is_some(),
    );
    // Split by columns, every task walks all the blocks: no shrinking ones (`block_starts`).
    let small = m.saturating_mul(n).saturating_mul(k) <= GUIDED_MAX_PRODUCT;
    let starts = block_starts(m, mc, mr, if far { 1 } else { threads }, small);
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
            // A source that copies rows more cheaply than it lays them side by side (the
            // convolution's patches: runs of input features) packs its block row-major, read by
            // the in-place kernel `kcb` apart (unless that stride puts too many of a tile's rows
            // in one L1 set). The 3x3 ResNet layers on Zen 5 (AVX-512, side by side): 28x28
            // 448 -> 474 GFLOP/s, 56x56 374 -> 412, the CNN program's layers 6-15% faster; AVX2
            // 2-7%. Plain matrices gain nothing from it (the 4-row transposes of `pack` are
            // cheap next to the many panels each block serves): 1024^3 F32 AVX-512 483 against
            // 459 GFLOP/s, AVX2 level.
            let rows_packed = kern.rows.filter(|_| {
                direct.is_none()
                    && a.packs_rows()
                    && l1.l1_rows_per_set(mr, kcb * std::mem::size_of::<T>()) <= l1.l1d_ways
            });
            let state: Vec<AtomicU8> = (0..groups).map(|_| AtomicU8::new(FREE)).collect();
            let shared = SharedMut(bpack.as_mut_ptr());
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
                    pack_b_panels(
                        b,
                        bst,
                        (pc, kcb),
                        (jc, ncb),
                        (p0, p1),
                        nr,
                        out,
                        conv_b,
                        BOrder::Strips,
                    );
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
            // Row block `ib` (`mcb` rows of C from `cblock`, row stride n) times the B groups
            // `only` names, or all of them starting from the block's own.
            let block = |ib: usize, cblock: *mut T, mcb: usize, only: Option<usize>| {
                let i0 = starts[ib];
                let mpanels = mcb.div_ceil(mr);
                // Only a last, partial panel needs zeros first (its rows past the edge): the
                // sources write every element of their rows (zeroing the whole block each time
                // was 3% of a convolution).
                let mut apack = Scratch::stale(mpanels * mr * kcb, T::zero());
                let mut tmp = vec![T::zero(); mr * nr];
                // The whole panels in one call where the source can (see `pack_panels`).
                let whole = mcb / mr * mr;
                let done = if rows_packed.is_none()
                    && direct.is_none()
                    && whole > 0
                    && a.pack_panels(i0, whole, pc, kcb, mr, &mut apack[..whole * kcb])
                {
                    whole / mr
                } else {
                    0
                };
                for (ip, panel) in apack.chunks_mut(mr * kcb).enumerate().skip(done) {
                    let r0 = i0 + ip * mr;
                    let h = mr.min(i0 + mcb - r0);
                    if rows_packed.is_some() {
                        if h < mr {
                            panel.fill(T::zero());
                        }
                        a.pack_rows(r0, h, pc, kcb, panel);
                        continue;
                    }
                    if h == mr && direct.is_some() {
                        continue;
                    }
                    let tile_mr = kern.panel_mr(h);
                    if h < tile_mr {
                        panel[..tile_mr * kcb].fill(T::zero());
                    }
                    a.pack(r0, h, pc, kcb, tile_mr, panel);
                }
                let direct = match rows_packed {
                    Some(g) => Some((g, apack.as_ptr(), kcb)),
                    None => direct.map(|(g, (data, origin, rs))| {
                        (g, data[origin + i0 * rs + pc..].as_ptr(), rs)
                    }),
                };
                let (first, count) = only.map_or((ib, groups), |g| (g, 1));
                for g in (0..count).map(|q| (first + q) % groups) {
                    let (p0, p1) = group_range(g);
                    let packed = ready(g);
                    for jp in p0..p1 {
                        let j0 = jc + jp * nr;
                        let w = nr.min(jc + ncb - j0);
                        let bp = &packed[(jp - p0) * nr * kcb..(jp - p0 + 1) * nr * kcb];
                        // The next panel of the group, which the first tiles ask for ahead
                        // (the next group's may not be packed yet).
                        let next = packed
                            .get((jp - p0 + 1) * nr * kcb..)
                            .filter(|rest| !rest.is_empty())
                            .map_or(std::ptr::null(), <[T]>::as_ptr);
                        // SAFETY: `cblock` is `mcb` rows of C (row stride n) whose columns
                        // j0..j0+w (inside every row) only this task touches in this step: the
                        // task's own row block, or (split by columns) its own group's panels.
                        // The packed panel holds kcb rows of nr. The first slice of k (pc = 0)
                        // writes them, the later ones add.
                        unsafe {
                            panel_tiles(
                                kern,
                                kcb,
                                &apack,
                                direct,
                                rows_packed.is_some(),
                                mcb,
                                (bp.as_ptr(), nr, next),
                                (cblock.add(j0), n, w),
                                pc > 0,
                                &mut tmp,
                            )
                        };
                    }
                }
            };
            let shared_c = SharedMut(c.as_mut_ptr().cast::<T>());
            // Row block `ib`'s first row of C and its height.
            let rows = |ib: usize| (shared_c.at(starts[ib] * n), starts[ib + 1] - starts[ib]);
            let blocks = starts.len() - 1;
            if far && groups > 1 {
                super::pool::run_tasks(groups, &|g| {
                    for ib in 0..blocks {
                        let (cblock, mcb) = rows(ib);
                        block(ib, cblock, mcb, Some(g));
                    }
                });
            } else if threads == 1 {
                for ib in 0..blocks {
                    let (cblock, mcb) = rows(ib);
                    block(ib, cblock, mcb, None);
                }
            } else {
                // Tasks are claimed in order, so the later, smaller blocks (`block_starts`)
                // are the ones left to whichever thread comes last.
                super::pool::run_tasks(blocks, &|ib| {
                    let (cblock, mcb) = rows(ib);
                    block(ib, cblock, mcb, None)
                });
            }
        }
    }
}

#[cfg(test)]
mod tests;
