//! The few-row and few-column plans of the GEMM (`gemm` in the parent module picks them).
//!
//! Algorithm: Goto & van de Geijn's GEPP/GEMP shapes ("Anatomy of High-Performance Matrix
//! Multiplication", ACM TOMS 2008, section 4): when A has few rows, packing B dominates and the
//! threads split B's columns instead of A's rows, each packing the B panels it uses just before
//! using them (`by_columns`); when B has few columns and A can be read in place, each element of
//! A serves too few multiply-adds to pay for packing it, and C is computed as dot products of A's
//! rows with B's columns, B packed once and transposed (`rowdot`, after the GEMV-T kernels of
//! BLAS libraries).

use super::pack::{BOrder, Strided, pack_b_panels, pack_block};
use super::*;
use crate::kernels::scratch::Scratch;

/// Products with at most this many columns can run as row dot products (`rowdot`) when A's
/// rows can be read in place: each element of A then serves so few multiply-adds that packing A
/// into panels (a transposition) may cost more than the product. Up to `ROWDOT_ALWAYS_COLS`
/// they always do; above it only when the columns would leave a fifth of the tiles' lanes empty.
/// (Measured on a Zen 4, side by side: once A's packing transposed four by four with SSE
/// (`transpose_f32_quads`), 4096 x 64 x 4096 F32 ran at 154 GFLOP/s tiled against 128 as row
/// dots, F64 at 76 against 68, and 4096 x 32 x 4096 F32 at 121 against 118; with the scalar
/// packing, the row dots had been a fifth faster at 32 columns. 128 x 64 x 128 runs at half the
/// tiled speed as row dots: each row-dot block ends in horizontal sums.)
pub(super) const ROWDOT_MAX_COLS: usize = 64;
pub(super) const ROWDOT_ALWAYS_COLS: usize = 16;

/// Rows of A a row-dot task takes at a time: they stay in L2 while every column block passes.
const ROWDOT_ROWS: usize = 16;

/// `c[m x n] = A * B` by dot products of A's rows (read in place, `ast`) with B's columns
/// (packed once, transposed, in blocks of an instance's width, zero-padded), the threads
/// splitting the rows. The blocks are as wide as the widest instance; the last takes the
/// narrowest that covers what is left.
pub(super) fn rowdot<SB, T, FB>(
    instances: &[RowDot<T>],
    (adata, ast, m): (&[T], Strided, usize),
    b: MatRef<SB>,
    conv_b: &FB,
    c: &mut [MaybeUninit<T>],
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
    let threads = if small {
        1
    } else {
        crate::kernels::pool::threads()
    };
    let rows_per = m.div_ceil(threads).div_ceil(ROWDOT_ROWS) * ROWDOT_ROWS;
    let run = |(t, out): (usize, &mut [MaybeUninit<T>])| {
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
                        for (d, &s) in out[d..d + w].iter_mut().zip(&src[..w]) {
                            d.write(s);
                        }
                    }
                    i += r;
                }
            }
        }
    };
    if threads == 1 {
        run((0, c));
    } else {
        crate::kernels::pool::for_each_chunk(c, rows_per * n, &|off, out| {
            run((off / (rows_per * n), out))
        });
    }
}

/// Products of at most this many rows read a B that fits in half of L2 in place (`by_columns`).
/// The scanned RNN's 16 x 256 x 256 products (B 256 KiB, AVX2's 4-row tiles) were packed
/// before: on a Zen 3 (512 KiB L2, two threads) the program's evaluation took 20.7-30.9 ms
/// packed and 14.9-18.7 ms in place, runs alternating. Larger B read in place ran slower (16 x
/// 1024 x 1024 F32 0.63 of the packed speed, F64 0.67; 13 x 512 x 512 F64 0.75): their rows
/// then come from L3, a line of each at a time.
const IN_PLACE_ROWS: usize = 16;

/// The run of each row of B that `GroupPlan::page_runs` packs at a time, in bytes.
const PAGE: usize = 4096;

/// Rows of B per slice when a few-row product streams B from memory in place.
const STREAMED_ROWS: usize = 16;

/// How few-row products (`by_columns`) treat B on this kind of machine (`GroupPlan::for_caches`,
/// where the measurements behind each choice are).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct GroupPlan {
    /// A packed B is packed in groups of panels of `1 / l2_share` of L2.
    pub l2_share: usize,
    /// The next group's rows are asked into L2 while this group's products run.
    pub prefetch_next: bool,
    /// The order in which a row-major B is copied (`pack::BOrder`).
    pub order: BOrder,
    /// A B streamed from memory is packed in groups of all of L2, `l2 / 4096` rows deep (so
    /// that each row's part of a group is a 4 KiB run), in strips with nothing asked ahead,
    /// whatever `l2_share` and `order` say for a B read from cache.
    pub page_runs: bool,
    /// From this many rows on, a B streamed from memory is packed rather than read in place.
    pub packed_from: usize,
    /// Up to `FEWMAT_ROWS` rows of a B streamed from memory run as `fewmat` (B streamed by rows).
    pub fewmat: bool,
}

impl GroupPlan {
    /// The plan for a machine's caches and a kernel whose panels are `nr` accumulators of
    /// `elem` bytes wide: row runs with the next group asked for only for 4-byte accumulators
    /// in panels of one cache line a row (the AVX2 kernel's F32) on AMD cores with an L2 of at
    /// least 16 ways; groups of a quarter of L2 everywhere, but of all of it in runs of a page
    /// for a B from memory on AMD cores with an 8-way L2 of 1 MiB; B streamed by rows, and
    /// packed from fewer rows, on AMD.
    ///
    /// - **AMD, L2 of 16 ways or more (Zen 5), F32 in 64-byte panel rows:** the next group asked
    ///   for, rows copied as runs. On a Zen 5 (family 26 model 2, 1 MiB L2, 16 ways) on
    ///   2026-12-02, B 4096 x 4096 from memory, 9-21 calls of each variant alternating in one
    ///   process, medians, against eight-row strips with nothing asked ahead: AVX2 F32 one thread
    ///   64 rows 87.8-90.4 -> 91.4-93.5 GFLOP/s, 16 rows 49.7 -> 53.4, 32 rows 57.6 -> 61.1, two
    ///   threads 64 rows 137.5-178.3 -> 140.9-182.3 (without the asking, runs alone gave 51.3 and
    ///   55.8 at 16 and 32 rows). Everywhere else on that core the strips were ahead: AVX2 F64 one
    ///   thread 64 rows 34.8-42.2 -> 37.8-44.1, 32 rows 28.0 -> 29.3; AVX-512 F32 one thread 64
    ///   rows 127.9-150.6 -> 136.1-155.5, 32 rows 97.3 -> 105.0, F64 61.6-70.8 -> 64.3-76.5, two
    ///   threads F64 114.0-132.7 -> 125.5-143.7 (96 rows within 3% either way). That core's
    ///   earlier measurement (2026-11-28, before the packing asked for its own rows
    ///   `PREFETCH_ROWS` ahead and before the strips) had the runs ahead on every kernel: 8 rows
    ///   AVX-512 F32 113-141 -> 134-155 GFLOP/s, F64 47-48 -> 65-71, AVX2 F32 92-99 -> 104-112.
    ///   Groups of half of L2 had the group and the next one's rows evict each other; an eighth
    ///   was no better.
    /// - **Everything else,** Intel's cores, AMD's with an 8-way L2 (Zen 3 and Zen 4), and other
    ///   kernels and types on Zen 5: nothing asked ahead, eight rows at a time into each panel. The
    ///   next group's rows are `kc` rows of B, a row apart; at a power-of-two row stride (16 KiB
    ///   for 4096 F32 columns) rows eight apart share L2 sets, so of 512 rows asked for, an 8-way
    ///   L2 keeps about the last 64 and the rest was fetched for nothing. On a Zen 4 (1 MiB, 8
    ///   ways), 64 x 4096 x 4096, 15 calls of each alternating in one process, medians, this plan
    ///   against the Zen 5 one: AVX2 one thread F32 70.5 -> 75.9 GFLOP/s, F64 31.0 -> 32.9, two
    ///   threads 109.9 -> 116.2 and 63.0 -> 66.8; AVX-512 one thread 73.7 -> 79.1 and 35.2 -> 37.9,
    ///   two threads 143.7 -> 149.3 and 45.6 -> 48.8 (profiled, the packing took 28% of one
    ///   thread's time before and 26% after; the asking a further 2.5% before). On a Xeon (family 6
    ///   model 207, 2 MiB L2) the burst of prefetches for the next group, hundreds of lines at
    ///   once, held the fill buffers the micro-kernel's own loads needed (7% of the time of 64 x
    ///   4096 x 4096 F64 on the prefetch instructions themselves). Copied row by row, the packing
    ///   of 64 x 4096 x 4096 AVX2 F32 took 21% of the time where OpenBLAS's copy of the same B took
    ///   15% (which reads eight rows side by side, each as a sequential run); eight rows at a time
    ///   into each panel of groups of a quarter of L2, against row runs in groups of an eighth,
    ///   best of 12 calls alternating in one process, two threads: 64 x 4096 x 4096 AVX2 F32 124.8
    ///   -> 132.4 GFLOP/s (OpenBLAS 132.8), F64 61.7 -> 64.5 (62.5), AVX-512 F32 201.5 -> 207.6,
    ///   F64 102.5 -> 106.5; 24 x 4096 x 4096 F64 68.5 -> 71.3, 96 x 4096 x 4096 F32 227.3 ->
    ///   238.4, 64 x 1024 x 1024 F32 level. The same order in groups of an eighth was slower than
    ///   either; groups of half of L2 no better than a quarter.
    ///
    /// **`page_runs`:** on AMD cores with an 8-way L2 of 1 MiB or more (Zen 4). On a Zen 4 (family
    /// 25 model 17) on 2026-12-06, B 4096 x 4096 from memory, two threads, 12-20 calls of each
    /// plan alternating with OpenBLAS's in one process, medians of the paired ratios, groups of
    /// all of L2 256 deep (4 KiB of each row) in unasked strips against groups of a quarter of L2
    /// 456 deep (512 bytes of each row) in strips asked eight rows ahead: AVX2 F64 64 rows 0.98
    /// -> 1.01, 32 rows 0.88 -> 0.92, 16 rows 1.12 -> 1.27, 96 rows 0.97 -> 1.01; F32 64 rows 0.91
    /// -> 0.94, 32 rows 0.93 -> 0.99, 16 rows 0.83 -> 0.87, 96 rows level; AVX-512 F64 16 rows
    /// 0.92 -> 1.07, 32 rows 0.95 -> 1.03, 96 rows 0.96 -> 1.00, F32 16 rows 1.26 -> 1.49, 32 rows
    /// 1.23 -> 1.35; AVX-512's 64 rows within the spread either way. Timed inside the product,
    /// the copy of B for 64 x 4096 x 4096 AVX2 F64 took 14.4 ms a call (both threads' time) in
    /// the old groups and 10.4-10.9 in these, with the products' own time unchanged (44-46 ms):
    /// in 512-byte runs each row's stream ends before the hardware prefetcher is well under way,
    /// and asking for the lines in software held the load queue (21% of the copy's samples fell
    /// on the prefetch instruction itself). With the lines asked for into L2 32 rows ahead
    /// instead of nothing: level. Groups of all of L2 are larger than what the products can find
    /// there still, but each panel is read in order, from L3 at worst.
    ///
    /// **`packed_from`:** 8 rows on AMD, 17 elsewhere. Medians of alternating runs on Zen 5, B 4096
    /// x 4096: 8 rows on AVX-512 F32 94 -> 113 GFLOP/s, F64 45 -> 59, on AVX2 F32 +4%, F64 +12%; 16
    /// rows on AVX-512 143 -> 185, on AVX2 level; 4 rows on AVX-512 +8% but on AVX2 -7%, so fewer
    /// rows stay in place. On a Xeon (family 6 model 207, AVX-512, two threads) the opposite: 8 x
    /// 4096 x 4096 packed ran at 1.05 (F32) and 0.74 (F64) of OpenBLAS's speed, in place at
    /// 1.55-1.61 and 1.10-1.13 (medians of 20 calls alternating with OpenBLAS in one process); F64
    /// with 16 rows 0.69 packed, 0.80 in place; with 24 rows 0.82 packed, 0.74 in place. So there
    /// products of up to 16 rows read B in place.
    ///
    /// **`fewmat`:** on AMD. Measured on a Zen 3 (family 25 model 1, AVX2, 512 KiB L2), medians of
    /// paired calls alternating with OpenBLAS's in one process, two threads, B 4096 x 4096, against
    /// the packed groups (`by_columns`), 8 rows F32 0.80-0.91 -> 1.30-1.50 of OpenBLAS, F64
    /// 0.66-0.71 -> 1.33-1.39 (one thread 1.33 and 1.12); 2, 3 and 5 rows 0.57-1.33 -> 1.07-1.47;
    /// 12 rows F32 0.92 -> 1.54, F64 0.82 -> 0.93-0.97. 16 rows did not gain (F32 0.78-1.10 against
    /// 0.86, F64 0.77-0.91 against 0.71, noisy), so they stay packed. Passes of 8 rows of B were
    /// the fastest (4 rows: 1.03-1.15, 16: 0.90), and sweeps of 256 columns (128: 1.22-1.31, 512
    /// level). On a Zen 4 (family 25 model 17, 1 MiB L2) with the AVX-512 instance, 8 rows, two
    /// threads, F32 1.08-1.15 -> 2.00-2.12, F64 0.98-1.00 -> 1.47-1.56; one thread F32 1.16 ->
    /// 2.37, F64 0.76 -> 1.48. On Intel the few-row slices read in place are kept: there they ran
    /// faster than packing (`packed_from`), and this plan was not measured on one.
    pub fn for_caches(c: &cache::Caches, elem: usize, nr: usize) -> GroupPlan {
        let amd = c.vendor == cache::Vendor::Amd;
        let streamed = amd && c.l2_ways >= 16 && elem == 4 && nr * elem <= 64;
        GroupPlan {
            l2_share: 4,
            prefetch_next: streamed,
            order: if streamed {
                BOrder::RowRuns
            } else {
                BOrder::Strips
            },
            page_runs: amd && c.l2_ways < 16 && c.l2 >= 1 << 20,
            packed_from: if amd { 8 } else { 17 },
            fewmat: amd,
        }
    }
}

/// This machine's `GroupPlan` for a kernel with panels `nr` accumulators of `elem` bytes wide,
/// or the one a test asks for on its own thread.
fn group_plan(elem: usize, nr: usize) -> GroupPlan {
    #[cfg(test)]
    if let Some(p) = super::tests::FORCE_GROUP_PLAN.with(|f| f.get()) {
        return p;
    }
    GroupPlan::for_caches(&cache::detect(), elem, nr)
}

/// Whether a B of `bytes` streams from memory (more than half of L3), or what a test asks on its
/// own thread.
fn from_memory_here(bytes: usize) -> bool {
    #[cfg(test)]
    if let Some(f) = super::tests::FORCE_FROM_MEMORY.with(|f| f.get()) {
        return f;
    }
    bytes > cache::detect().l3 / 2
}

/// Products of at most this many rows of a B streamed from memory run as `fewmat` where the
/// machine's plan says so (`GroupPlan::fewmat`).
pub(super) const FEWMAT_ROWS: usize = 12;

/// The fewest columns `fewmat` sweeps at a time, however many rows.
const FEWMAT_MIN_COLS: usize = 256;

/// Whether few-row products of a B streamed from memory run as `fewmat` under `plan`, or as a
/// test asks on its own thread.
fn fewmat_here(plan: &GroupPlan) -> bool {
    #[cfg(test)]
    if let Some(f) = super::tests::FORCE_FEWMAT.with(|f| f.get()) {
        return f;
    }
    plan.fewmat
}

/// `c[m x n] = A * B` for a few rows of A and a B read in place (`simd::fewmat_body`): the
/// threads split B's rows, so that each streams one contiguous range of it (as the
/// vector-matrix product does), into sums of their own, added at the end (a dot's order of
/// summation is free). A's rows are packed whole, padded with zeros to whole groups; each
/// sweep takes as many columns as keep a task's sums for them in half of L2 while B streams
/// past.
pub(super) fn fewmat<T, PA>(
    f: simd::FewMatFn<T>,
    a: &PA,
    (data, s): (&[T], Strided),
    (k, n): (usize, usize),
    c: &mut [MaybeUninit<T>],
    threads: usize,
) where
    T: GemmElem,
    PA: PackA<T>,
{
    const G: usize = simd::FEWMAT_GROUP;
    let m = a.rows();
    let groups = m.div_ceil(G);
    let rows = groups * G;
    // (Zeroed: `pack` leaves the padding rows as it finds them.)
    let mut x = vec![T::zero(); rows * k];
    for (g, panel) in x.chunks_mut(G * k).enumerate() {
        a.pack(g * G, G.min(m - g * G), 0, k, G, panel);
    }
    // Each thread's range of B at least 64 rows long: shorter, the sums' extra pass costs more
    // than the second thread gives.
    let tasks = if k >= 64 * threads { threads.max(1) } else { 1 };
    // Each task's sums, `rows x n`; its first pass stores them, so nothing needs zeroing.
    let mut parts = Scratch::stale(tasks * rows * n, T::zero());
    let shared = SharedMut(parts.as_mut_ptr());
    let x = &x;
    let size = std::mem::size_of::<T>().max(1);
    let width = (cache::detect().l2 / 2 / (rows * size))
        .max(FEWMAT_MIN_COLS)
        .min(n);
    let task = |t: usize| {
        let (p0, p1) = (t * k / tasks, (t + 1) * k / tasks);
        for j0 in (0..n).step_by(width) {
            let w = width.min(n - j0);
            // SAFETY: B's rows p0..p1 and columns j0..j0+w are elements of B, inside `data`
            // (`in_bounds`); X holds `groups` panels of k steps, from step p0 on here; the
            // task's `rows x n` part of `parts` is written by it alone.
            unsafe {
                f(
                    groups,
                    p1 - p0,
                    x[p0 * G..].as_ptr(),
                    k,
                    data[s.origin + p0 * s.rs + j0..].as_ptr(),
                    s.rs,
                    shared.at(t * rows * n + j0),
                    n,
                    w,
                    false,
                )
            };
        }
    };
    crate::kernels::pool::run_tasks(tasks, &task);
    for (i, out) in c.chunks_exact_mut(n).take(m).enumerate() {
        for (j, d) in out.iter_mut().enumerate() {
            let mut v = parts[i * n + j];
            for t in 1..tasks {
                v = T::plus(v, parts[(t * rows + i) * n + j]);
            }
            d.write(v);
        }
    }
}

/// The depth of a slice of k when all `rows` of A are packed at once beside packed groups of
/// B: at most `kc`, and shallow enough that the packed A takes at most a quarter of L2 (`l2`
/// bytes; but never under 64 deep), leaving room for the group of B in use (a quarter) and the
/// next one being fetched. 64 F64 rows 512 deep took half of a Zen 3's 512 KiB L2: 64 x 4096 x
/// 4096 in F64 ran 0.92 of OpenBLAS so and 1.02 with slices 256 deep, alternating runs. The
/// slices of `k` are then made equal, as `gemm` makes them.
pub(super) fn packed_a_depth(kc: usize, k: usize, rows: usize, elem: usize, l2: usize) -> usize {
    let cap = (l2 / 4 / (rows * elem).max(1)).max(64) / 8 * 8;
    if kc <= cap {
        kc
    } else {
        k.div_ceil(k.div_ceil(cap))
    }
}

/// The plan for few rows (fewer than two tiles a thread): each thread takes a range of B's
/// micro-panels and packs each one just before using it on every row of A (which it packs
/// whole, being small). Nothing is shared but the read-only operands.
pub(super) fn by_columns<SB, T, PA, FB>(
    kern: &MicroKernel<T>,
    a: &PA,
    b: &MatRef<SB>,
    bst: Option<Strided>,
    conv_b: &FB,
    c: &mut [MaybeUninit<T>],
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
    let shared = SharedMut(c.as_mut_ptr().cast::<T>());
    let plan = group_plan(std::mem::size_of::<T>(), nr);
    // Read in place from memory (B larger than half of L3), B streams best a few rows at a time:
    // the panels of one slice of rows are visited left to right, so each of its rows is read as
    // one sequential run. From cache, the usual slices pay less per call.
    let from_memory =
        from_memory_here(k.saturating_mul(n).saturating_mul(std::mem::size_of::<T>()));
    // A few rows of a B from memory, on machines where it was measured faster: B streamed by
    // rows, each thread a range of them (`fewmat`).
    if let (Some(f), Some(own)) = (kern.fewmat, in_place::<SB, T>(b, bst))
        && from_memory
        && (2..=FEWMAT_ROWS).contains(&m)
        && fewmat_here(&plan)
    {
        fewmat(f, a, own, (k, n), c, threads);
        return;
    }
    // In place for up to two tiles of rows: packing a panel costs about as much as using it twice
    // (the RNN program's 16 x 256 x 256 step ran 21.4 ms packed, 18.0 ms in place, side by side).
    // With more tiles, each panel serves several, and a packed copy in L1 serves them better than
    // rows `ldb` apart. A B streamed from memory is packed from `GroupPlan::packed_from` rows on,
    // which depends on the core: on Zen 5, packing read each row's part of a group of panels as one
    // run of a kilobyte or more, asked for while the previous group computed, where the tiles read
    // a slice of rows side by side, a cache line or two of each at a time (8 x 4096 x 4096 read B
    // at 20 GB/s so, a third of what a matrix-vector product reaches); on a Xeon the slices in
    // place were faster than packing, by 10-50%. A B that fits in half of L2 is read in place for
    // up to `IN_PLACE_ROWS` rows, however many tiles they are (four of AVX2's 4-row instance for 16
    // rows): its rows, `ldb` apart, then come from L2 at worst.
    let in_l2 =
        k.saturating_mul(n).saturating_mul(std::mem::size_of::<T>()) <= cache::detect().l2 / 2;
    let direct = in_place::<SB, T>(b, bst).filter(|_| {
        (m <= 2 * mr || (m <= IN_PLACE_ROWS && in_l2)) && !(from_memory && m >= plan.packed_from)
    });
    let page_runs = plan.page_runs && from_memory && direct.is_none();
    let kc = match direct {
        Some(_) if from_memory => k.div_ceil(k.div_ceil(STREAMED_ROWS.min(kc))),
        Some(_) => kc,
        None => packed_a_depth(
            if page_runs {
                kc.min(cache::detect().l2 / PAGE)
            } else {
                kc
            },
            k,
            m.div_ceil(mr) * mr,
            std::mem::size_of::<T>(),
            cache::detect().l2,
        ),
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
            let parts = SharedMut(part.as_mut_ptr());
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
            crate::kernels::pool::run_tasks(tasks, &task);
            // SAFETY: task 0 wrote C's one row (its rows p0..p1 are at least two, as k >= 2 *
            // tasks, and it stores rather than adds), so `c` now holds initialised values.
            let c = unsafe { &mut *(c as *mut [MaybeUninit<T>] as *mut [T]) };
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
        crate::kernels::pool::run_tasks(tasks, &task);
        return;
    }
    // Packed B panels are made a group at a time: a row-major B is then read in runs of the
    // group's width, where one panel at a time would read `nr` elements from each of `kc` rows
    // a whole row apart (a page apart for wide B), which the hardware prefetcher does not follow.
    // How large a group, and whether the next group's rows are asked for while this one's
    // products run, depends on the core and on whether B streams from memory
    // (`GroupPlan::for_caches`).
    let (share, order) = if page_runs {
        (1, BOrder::StripsUnasked)
    } else {
        (plan.l2_share, plan.order)
    };
    let group = (cache::detect().l2 / share / (nr * kc * std::mem::size_of::<T>()).max(1)).max(1);
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
                let h = mr.min(m - r0);
                a.pack(r0, h, pc, kcb, kern.panel_mr(h), panel);
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
                            pack_b_panels(
                                b,
                                bst,
                                (pc, kcb),
                                (0, n),
                                packed,
                                nr,
                                &mut bp,
                                conv_b,
                                order,
                            );
                        }
                        // While this group's products run, the next group's rows of B are
                        // asked for, a slice per panel, so that its packing finds them in L2
                        // (4096 x 64 x 4096 with AVX2, side by side: F32 121 -> 134 GFLOP/s
                        // mean, F64 62 -> 65; AVX-512 F32 level).
                        let (q, len) = (jp - packed.0, packed.1 - packed.0);
                        let next = (packed.1 * nr, ((packed.1 + group).min(p1) * nr).min(n));
                        if plan.prefetch_next && !page_runs && next.1 > next.0 {
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
                        false,
                        m,
                        // Few rows: the first tile is the panel's only one, with nothing before
                        // it to ask ahead.
                        (panel.0, panel.1, std::ptr::null()),
                        (shared.at(j0), n, w),
                        pc > 0,
                        &mut tmp,
                    )
                };
            }
        }
    };
    crate::kernels::pool::run_tasks(tasks, &task);
}
