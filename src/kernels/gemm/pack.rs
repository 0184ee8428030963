//! Packing: copying blocks of the operands, converted to the accumulation type, into the order
//! the micro-kernel reads (A as `MR`-tall panels, B as `NR`-wide panels). A view with a unit
//! stride is read by contiguous runs; rows side by side are transposed a cache line at a time
//! (register transposes for F32 and F64 on x86-64); any other view goes through its index
//! tables. See the GEMM's module documentation for where each packing happens.

use super::MatRef;
use crate::kernels::isa::{TO_L1, TO_L2, per_isa, prefetch_lines};

/// A view whose element `(i, j)` is at `origin + i * rs + j * cs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Strided {
    pub(super) origin: usize,
    pub(super) rs: usize,
    pub(super) cs: usize,
}

/// `(start, step)` when `t` is `start, start + step, start + 2 * step, ...` (a table of one
/// entry has step 0).
pub(super) fn progression(t: &[usize]) -> Option<(usize, usize)> {
    match t {
        [] => None,
        [x] => Some((*x, 0)),
        [x, y, ..] => {
            let step = y.checked_sub(*x)?;
            // The last term must not overflow; then no term before it does, and comparing every
            // element with its term is a fold without an early exit, which vectorises (a small
            // product's tables were checked element by element on every call).
            step.checked_mul(t.len() - 1)?.checked_add(*x)?;
            let exact = t
                .iter()
                .enumerate()
                .fold(true, |ok, (i, &v)| ok & (v == x + i * step));
            exact.then_some((*x, step))
        }
    }
}

/// `dst[j * dj + i] = conv(rows[i][j])` for `H` rows of `w` elements: with the row count known
/// at compile time the inner loop unrolls and its bounds checks go. The rows are taken a cache
/// line at a time: rows a power of two apart share an L1 set, and reading one element from each
/// of `H` such rows in turn would evict every line before its next element is read.
#[inline(always)]
fn gather_rows<S: Copy + 'static, T: 'static, const H: usize>(
    rows: &[&[S]],
    w: usize,
    dst: &mut [T],
    dj: usize,
    conv: &impl Fn(S) -> T,
) {
    let rows: [&[S]; H] = std::array::from_fn(|i| &rows[i][..w]);
    let line = (64 / std::mem::size_of::<S>().max(1)).max(1);
    let dst = &mut dst[..(w.max(1) - 1) * dj + H];
    // Columns before `start` are done by a register transpose (same type in and out, so the
    // conversion is the identity, as every `ToAcc` one is); the rest element by element.
    #[allow(unused_mut)]
    let mut start = 0;
    #[cfg(target_arch = "x86_64")]
    if dj >= H {
        if let Some((r, d)) = as_typed::<S, T, f32, H>(&rows, dst).filter(|_| H.is_multiple_of(2)) {
            start = transpose_f32_quads(&r, w, d, dj);
        } else if let Some((r, d)) =
            as_typed::<S, T, f64, H>(&rows, dst).filter(|_| H.is_multiple_of(2))
        {
            start = transpose_f64_pairs(&r, w, d, dj);
        }
    }
    for j0 in (start..w).step_by(line) {
        let j1 = (j0 + line).min(w);
        // One column of the panel at a time: `H` contiguous stores (from `H` lines that stay in
        // L1 for the whole chunk), where a row at a time stored `dj` apart, element by element.
        for j in j0..j1 {
            let d: &mut [T; H] = (&mut dst[j * dj..j * dj + H]).try_into().unwrap();
            for (x, r) in d.iter_mut().zip(&rows) {
                *x = conv(r[j]);
            }
        }
    }
}

/// The rows and the panel as slices of `U`, when `S` and `T` are both `U`.
#[cfg(target_arch = "x86_64")]
fn as_typed<'a, S: 'static, T: 'static, U: 'static, const H: usize>(
    rows: &[&'a [S]; H],
    dst: &'a mut [T],
) -> Option<([&'a [U]; H], &'a mut [U])> {
    use std::any::TypeId;
    if TypeId::of::<S>() != TypeId::of::<U>() || TypeId::of::<T>() != TypeId::of::<U>() {
        return None;
    }
    // SAFETY: S, T and U are one type (equal TypeIds of 'static types), so these are the same
    // slices under their own type.
    Some(unsafe {
        (
            rows.map(|r| std::slice::from_raw_parts(r.as_ptr() as *const U, r.len())),
            std::slice::from_raw_parts_mut(dst.as_mut_ptr() as *mut U, dst.len()),
        )
    })
}

/// `dst[j * dj + i] = rows[i][j]` for the columns `j` of whole groups of four (the count
/// returned), four rows by four columns at a time with SSE shuffles (x86-64's baseline), and a
/// last two rows (`H` even) two by four: a
/// third of the scalar copy's instructions, on the packing that a product with few columns
/// spends a third of its time in. Four rows at a time, a cache line of each: the rows may share
/// L1 sets (see `gather_rows`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn transpose_f32_quads<const H: usize>(
    rows: &[&[f32]; H],
    w: usize,
    dst: &mut [f32],
    dj: usize,
) -> usize {
    use std::arch::x86_64::*;
    let full = w / 4 * 4;
    assert!(H.is_multiple_of(2) && dj >= H && rows.iter().all(|r| r.len() >= full));
    assert!(full == 0 || dst.len() >= (full - 1) * dj + H);
    let quads = H / 4 * 4;
    if H == 6 && dj == 6 {
        // AVX2's six-row panel: four columns of it are 24 contiguous floats, so each group of
        // four columns goes out as six whole 16-byte stores, where the two-row remainder below
        // stored 8 bytes at a time between the four-row stores. AVX2, one thread, 256^3 F32,
        // against the loop below in one process: 1.5-3% faster on Zen 5; on a Xeon (family 6,
        // model 167) best of 21 calls 79.5-80.8 -> 81.4-82.6 GFLOP/s, three runs alternating.
        for j in (0..full).step_by(4) {
            // SAFETY: rows 0..6 hold columns j..j+4 (j + 4 <= full <= their length); dst holds
            // j * 6 + 24 = (j + 3) * dj + H <= (full - 1) * dj + H elements (asserted).
            unsafe {
                let r0 = _mm_loadu_ps(rows[0].as_ptr().add(j));
                let r1 = _mm_loadu_ps(rows[1].as_ptr().add(j));
                let r2 = _mm_loadu_ps(rows[2].as_ptr().add(j));
                let r3 = _mm_loadu_ps(rows[3].as_ptr().add(j));
                let r4 = _mm_loadu_ps(rows[4].as_ptr().add(j));
                let r5 = _mm_loadu_ps(rows[5].as_ptr().add(j));
                let t0 = _mm_unpacklo_ps(r0, r1);
                let t1 = _mm_unpacklo_ps(r2, r3);
                let t2 = _mm_unpackhi_ps(r0, r1);
                let t3 = _mm_unpackhi_ps(r2, r3);
                // Rows 4 and 5 of columns j, j+1 (`lo`) and j+2, j+3 (`hi`).
                let lo = _mm_unpacklo_ps(r4, r5);
                let hi = _mm_unpackhi_ps(r4, r5);
                let (c0, c1) = (_mm_movelh_ps(t0, t1), _mm_movehl_ps(t1, t0));
                let (c2, c3) = (_mm_movelh_ps(t2, t3), _mm_movehl_ps(t3, t2));
                let d = dst.as_mut_ptr().add(j * 6);
                _mm_storeu_ps(d, c0);
                _mm_storeu_ps(d.add(4), _mm_movelh_ps(lo, c1));
                _mm_storeu_ps(d.add(8), _mm_movehl_ps(lo, c1));
                _mm_storeu_ps(d.add(12), c2);
                _mm_storeu_ps(d.add(16), _mm_movelh_ps(hi, c3));
                _mm_storeu_ps(d.add(20), _mm_movehl_ps(hi, c3));
            }
        }
        return full;
    }
    for j0 in (0..full).step_by(16) {
        let j1 = (j0 + 16).min(full);
        if quads < H {
            // Two rows left (AVX2's six-row tiles): interleaved in pairs, 8 bytes per column.
            let q = quads;
            for j in (j0..j1).step_by(4) {
                // SAFETY: rows q, q+1 hold columns j..j+4 (j + 4 <= full <= their length);
                // dst holds (j + 3) * dj + q + 2 <= (full - 1) * dj + H elements (asserted).
                unsafe {
                    let r0 = _mm_loadu_ps(rows[q].as_ptr().add(j));
                    let r1 = _mm_loadu_ps(rows[q + 1].as_ptr().add(j));
                    let lo = _mm_castps_pd(_mm_unpacklo_ps(r0, r1));
                    let hi = _mm_castps_pd(_mm_unpackhi_ps(r0, r1));
                    let d = dst.as_mut_ptr().add(j * dj + q);
                    _mm_storel_pd(d.cast(), lo);
                    _mm_storeh_pd(d.add(dj).cast(), lo);
                    _mm_storel_pd(d.add(2 * dj).cast(), hi);
                    _mm_storeh_pd(d.add(3 * dj).cast(), hi);
                }
            }
        }
        for q in (0..quads).step_by(4) {
            for j in (j0..j1).step_by(4) {
                // SAFETY: rows q..q+4 hold columns j..j+4 (j + 4 <= full <= their length);
                // dst holds (j + 3) * dj + q + 4 <= (full - 1) * dj + H elements (asserted).
                unsafe {
                    let r0 = _mm_loadu_ps(rows[q].as_ptr().add(j));
                    let r1 = _mm_loadu_ps(rows[q + 1].as_ptr().add(j));
                    let r2 = _mm_loadu_ps(rows[q + 2].as_ptr().add(j));
                    let r3 = _mm_loadu_ps(rows[q + 3].as_ptr().add(j));
                    let t0 = _mm_unpacklo_ps(r0, r1);
                    let t1 = _mm_unpacklo_ps(r2, r3);
                    let t2 = _mm_unpackhi_ps(r0, r1);
                    let t3 = _mm_unpackhi_ps(r2, r3);
                    let d = dst.as_mut_ptr().add(j * dj + q);
                    _mm_storeu_ps(d, _mm_movelh_ps(t0, t1));
                    _mm_storeu_ps(d.add(dj), _mm_movehl_ps(t1, t0));
                    _mm_storeu_ps(d.add(2 * dj), _mm_movelh_ps(t2, t3));
                    _mm_storeu_ps(d.add(3 * dj), _mm_movehl_ps(t3, t2));
                }
            }
        }
    }
    full
}

/// `transpose_f32_quads` for F64: two rows by two columns at a time (SSE2).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn transpose_f64_pairs<const H: usize>(
    rows: &[&[f64]; H],
    w: usize,
    dst: &mut [f64],
    dj: usize,
) -> usize {
    use std::arch::x86_64::*;
    let full = w / 2 * 2;
    assert!(H.is_multiple_of(2) && dj >= H && rows.iter().all(|r| r.len() >= full));
    assert!(full == 0 || dst.len() >= (full - 1) * dj + H);
    for j0 in (0..full).step_by(8) {
        let j1 = (j0 + 8).min(full);
        for q in (0..H).step_by(2) {
            for j in (j0..j1).step_by(2) {
                // SAFETY: rows q, q+1 hold columns j, j+1 (j + 2 <= full); dst holds
                // (j + 1) * dj + q + 2 <= (full - 1) * dj + H elements (asserted).
                unsafe {
                    let r0 = _mm_loadu_pd(rows[q].as_ptr().add(j));
                    let r1 = _mm_loadu_pd(rows[q + 1].as_ptr().add(j));
                    let d = dst.as_mut_ptr().add(j * dj + q);
                    _mm_storeu_pd(d, _mm_unpacklo_pd(r0, r1));
                    _mm_storeu_pd(d.add(dj), _mm_unpackhi_pd(r0, r1));
                }
            }
        }
    }
    full
}

/// `dst[j * stride + i] = conv(runs[i][j])` for every run `i` and `j < len`: rows laid side by
/// side as the columns of a panel (how a panel source that builds its rows contiguously, like
/// the convolution's, packs them).
#[inline]
pub(crate) fn gather<S: Copy + 'static, T: 'static>(
    runs: &[&[S]],
    len: usize,
    dst: &mut [T],
    stride: usize,
    conv: &impl Fn(S) -> T,
) {
    match runs.len() {
        32 => gather_rows::<S, T, 32>(runs, len, dst, stride, conv),
        16 => gather_rows::<S, T, 16>(runs, len, dst, stride, conv),
        12 => gather_rows::<S, T, 12>(runs, len, dst, stride, conv),
        8 => gather_rows::<S, T, 8>(runs, len, dst, stride, conv),
        6 => gather_rows::<S, T, 6>(runs, len, dst, stride, conv),
        4 => gather_rows::<S, T, 4>(runs, len, dst, stride, conv),
        _ => {
            for (j, d) in dst.chunks_mut(stride).take(len).enumerate() {
                for (x, r) in d.iter_mut().zip(runs) {
                    *x = conv(r[j]);
                }
            }
        }
    }
}

/// Runs gathered side by side at most (the tallest tile).
pub(crate) const GATHER_ROWS: usize = 32;

/// Copies the `h x w` block at `(r0, c0)` of `m`, converted, to `dst[i * di + j * dj]`. A view
/// with a unit stride is read by contiguous runs; any other goes through its tables.
#[inline]
#[allow(clippy::too_many_arguments)]
pub(super) fn pack_block<S: Copy + 'static, T: 'static>(
    m: &MatRef<S>,
    st: Option<Strided>,
    (r0, h): (usize, usize),
    (c0, w): (usize, usize),
    dst: &mut [T],
    di: usize,
    dj: usize,
    conv: &impl Fn(S) -> T,
) {
    match st {
        Some(s) if (s.cs == 1 || w == 1) && di == 1 && dj >= h && h <= GATHER_ROWS => {
            // Rows that are contiguous runs, each to be spread `dj` apart (a row-major A packed
            // into row panels): read the h rows side by side, one column at a time, so that
            // each row is a sequential stream and the panel is written in order (row by row,
            // the panel's writes would land `dj` apart and the rows' reads would restart a
            // stream every `w` elements).
            let mut runs: [&[S]; GATHER_ROWS] = [&[]; GATHER_ROWS];
            for (i, r) in runs.iter_mut().enumerate().take(h) {
                let o = s.origin + (r0 + i) * s.rs + c0 * s.cs;
                *r = &m.data[o..o + w];
            }
            gather(&runs[..h], w, dst, dj, conv);
        }
        Some(s) if (s.rs == 1 || h == 1) && dj == 1 && di >= w && w <= GATHER_ROWS => {
            // The same with rows and columns swapped (a row-major matrix read as its transpose
            // and packed into column panels).
            let mut runs: [&[S]; GATHER_ROWS] = [&[]; GATHER_ROWS];
            for (j, r) in runs.iter_mut().enumerate().take(w) {
                let o = s.origin + r0 * s.rs + (c0 + j) * s.cs;
                *r = &m.data[o..o + h];
            }
            gather(&runs[..w], h, dst, di, conv);
        }
        Some(s) if s.cs == 1 || w == 1 => {
            for i in 0..h {
                let o = s.origin + (r0 + i) * s.rs + c0 * s.cs;
                let src = &m.data[o..o + w];
                if dj == 1 {
                    for (d, &x) in dst[i * di..i * di + w].iter_mut().zip(src) {
                        *d = conv(x);
                    }
                } else {
                    for (d, &x) in dst[i * di..].iter_mut().step_by(dj).zip(src) {
                        *d = conv(x);
                    }
                }
            }
        }
        Some(s) if s.rs == 1 || h == 1 => {
            for j in 0..w {
                let o = s.origin + r0 * s.rs + (c0 + j) * s.cs;
                let src = &m.data[o..o + h];
                if di == 1 {
                    for (d, &x) in dst[j * dj..j * dj + h].iter_mut().zip(src) {
                        *d = conv(x);
                    }
                } else {
                    for (d, &x) in dst[j * dj..].iter_mut().step_by(di).zip(src) {
                        *d = conv(x);
                    }
                }
            }
        }
        _ => {
            for i in 0..h {
                for j in 0..w {
                    dst[i * di + j * dj] = conv(m.at(r0 + i, c0 + j));
                }
            }
        }
    }
}

/// How many rows ahead `pack_b_panels` asks for B's runs. Each run is a few cache lines of a
/// different page (a row of a wide B lies pages apart), so the hardware prefetcher, which stays
/// inside a page, restarts at every row and the copy waits on memory row after row; asking for
/// the lines sixteen rows ahead keeps that many rows' misses in flight. (4096 x 64 x 4096 from
/// memory, side by side on Zen 4: AVX2 F64 53 -> 68 GFLOP/s mean, F32 128 -> 141; AVX-512 F32
/// 138 -> 150; the square products unchanged.)
const PREFETCH_ROWS: usize = 16;

/// How many rows of a row-major B `pack_b_panels` copies into one panel before it moves to the
/// next, in the `Strips` orders: eight lines of the panel written in a row, where one row at a
/// time wrote a line into every panel in turn, each a panel apart (a multiple of 4 KiB, so one
/// L1 set) and each store waiting for its line. On Zen 5 (AVX2, one thread, alternating runs)
/// 512^3 F32 went from 123.7 to 125.1-125.5 GFLOP/s and 1024^3 from 123.3-123.8 to 123.7-124.6;
/// B streamed from memory by the few-row plan, rows at a time fell from 106 to 60 (8 x 4096 x
/// 4096), so that plan keeps the row-by-row order there (on a Xeon it does not:
/// `few_rows::GroupPlan`).
const PANEL_ROWS: usize = 8;

/// The order in which `pack_b_panels` copies a row-major B (any other goes through `pack_block`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BOrder {
    /// `PANEL_ROWS` rows into one panel, then the same rows into the next, each row's columns
    /// asked for `PANEL_ROWS` rows before they are read.
    Strips,
    /// The same strips with nothing asked ahead: for groups whose rows are runs of a page, which
    /// the hardware prefetcher follows to their end (`few_rows::GroupPlan::page_runs`).
    StripsUnasked,
    /// Row by row, one contiguous run per row across all the panels, so that B streams from
    /// memory instead of hopping `nr` elements at a time from row to row, each run asked for
    /// `PREFETCH_ROWS` rows before it is read.
    RowRuns,
}

// Compiled per ISA level: the baseline (SSE2) copy moves 16 bytes at a time, the AVX2 one 32.
// Side by side on a Xeon (AVX-512) at 256^3, one thread, paired medians: the AVX2 micro-kernel's
// products F32 +1.7%, F64 +2.6%, the AVX-512 one's F32 +5%; 1024^3 and F64 4096^3 level or up to
// 1.5%. The AVX-512 copy (64-byte moves) is not used: on the same Xeon, one thread, against the
// AVX2 copy in one process, the AVX-512 micro-kernel's 256^3 F32 ran 1.8-1.9% slower (four
// runs), F64 level, 1024^3 level either way; the AVX2 micro-kernel's 256^3 F32 0.9% faster.
per_isa! {
    /// Packs B's rows `pc..pc+kcb` and the micro-panels `p0..p1` of the column block starting at
    /// `jc` (and `ncb` wide) into `out`, one `kcb x nr` panel after another, a row-major B in the
    /// `order` given.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn pack_b_panels / pack_b_panels_at
        <S: 'static + Copy, T: 'static + Sized, C: Fn(S) -> T>(
        b: &MatRef<S>,
        st: Option<Strided>,
        kr: (usize, usize),
        jr: (usize, usize),
        pr: (usize, usize),
        nr: usize,
        out: &mut [T],
        conv: &C,
        order: BOrder
    ) = pack_b_panels_any, at most Avx2;
}

/// `pack_b_panels` for any CPU (inlined into each caller, so that each compiles it for its
/// own target features).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn pack_b_panels_any<S: Copy + 'static, T: 'static>(
    b: &MatRef<S>,
    st: Option<Strided>,
    (pc, kcb): (usize, usize),
    (jc, ncb): (usize, usize),
    (p0, p1): (usize, usize),
    nr: usize,
    out: &mut [T],
    conv: &impl Fn(S) -> T,
    order: BOrder,
) {
    let (j_first, j_end) = (jc + p0 * nr, (jc + p1 * nr).min(jc + ncb));
    match st {
        Some(s) if s.cs == 1 && j_end > j_first && order != BOrder::RowRuns => {
            for r0 in (0..kcb).step_by(PANEL_ROWS) {
                let r1 = (r0 + PANEL_ROWS).min(kcb);
                // With `Strips`, the same columns `PANEL_ROWS` rows down, read on the next pass
                // over the panels: each row is its own page at wide B, where the hardware
                // prefetcher, which stays inside a page, has to learn every row's stream anew
                // (this load waited on L3 for 59% of the packing's time at 1024^3; one thread
                // AVX2 F32 +1.5%, F64 +0.5%, AVX-512 level).
                let ahead = match order {
                    BOrder::Strips => kcb.saturating_sub(r0 + PANEL_ROWS).min(r1 - r0),
                    _ => 0,
                };
                for (q, j0) in (j_first..j_end).step_by(nr).enumerate() {
                    let w = nr.min(j_end - j0);
                    let src = &b.data[s.origin + (pc + r0) * s.rs + j0..];
                    let dst = &mut out[q * nr * kcb + r0 * nr..];
                    copy_rows(src, s.rs, (dst, nr), w, r1 - r0, ahead, conv);
                }
            }
        }
        Some(s) if s.cs == 1 && j_end > j_first => {
            let bytes = (j_end - j_first) * size_of::<S>();
            for p in 0..kcb {
                if p + PREFETCH_ROWS < kcb {
                    let o = s.origin + (pc + p + PREFETCH_ROWS) * s.rs + j_first;
                    prefetch_lines::<TO_L1>(b.data.as_ptr().wrapping_add(o).cast(), bytes);
                }
                let o = s.origin + (pc + p) * s.rs + j_first;
                let row = &b.data[o..o + (j_end - j_first)];
                for (q, src) in row.chunks(nr).enumerate() {
                    let d = &mut out[q * nr * kcb + p * nr..q * nr * kcb + p * nr + src.len()];
                    for (d, &x) in d.iter_mut().zip(src) {
                        *d = conv(x);
                    }
                }
            }
        }
        _ => {
            // Rows through a table whose columns are still adjacent (a convolution's kernel
            // with its output features innermost): each row's columns are one run, copied as
            // such. Element by element through both tables, B's packing had been as slow as
            // A's in a kernel gradient, whose B is 16384 rows deep (a sixth of the time on one
            // thread).
            let run = progression(&b.cols[j_first.min(j_end)..j_end])
                .filter(|&(_, step)| step == 1 || j_end - j_first == 1);
            match run {
                Some((c0, _)) if st.is_none() => {
                    let bytes = (j_end - j_first) * size_of::<S>();
                    for r0 in (0..kcb).step_by(PANEL_ROWS) {
                        let r1 = (r0 + PANEL_ROWS).min(kcb);
                        // The rows lie anywhere (a kernel gradient's are 16 interleaved
                        // streams): each strip asks for the next one's lines.
                        for i in (r0 + PANEL_ROWS)..(r1 + PANEL_ROWS).min(kcb) {
                            let o = b.base + b.rows[pc + i] + c0;
                            prefetch_lines::<TO_L1>(b.data.as_ptr().wrapping_add(o).cast(), bytes);
                        }
                        for (q, j0) in (j_first..j_end).step_by(nr).enumerate() {
                            let w = nr.min(j_end - j0);
                            for i in r0..r1 {
                                let o = b.base + b.rows[pc + i] + c0 + (j0 - j_first);
                                let dst = &mut out[q * nr * kcb + i * nr..];
                                copy_rows(&b.data[o..o + w], 0, (dst, nr), w, 1, 0, conv);
                            }
                        }
                    }
                }
                _ => {
                    for (q, panel) in out.chunks_mut(nr * kcb).take(p1 - p0).enumerate() {
                        let j0 = j_first + q * nr;
                        let w = nr.min(jc + ncb - j0);
                        pack_block(b, st, (pc, kcb), (j0, w), panel, nr, 1, conv);
                    }
                }
            }
        }
    }
}

/// Asks for B's rows `r0..r1`, columns `j0..j1`, to be brought into L2 (not L1, where the
/// panels being used live): called a slice at a time while the products of one group of packed
/// panels run, for the next group's rows, so that its packing reads them from L2 and the
/// memory traffic overlaps the arithmetic. Nothing for a B that is not row-major.
pub(super) fn prefetch_b_rows<S>(
    b: &MatRef<S>,
    st: Option<Strided>,
    (r0, r1): (usize, usize),
    (j0, j1): (usize, usize),
) {
    let Some(s) = st.filter(|s| s.cs == 1) else {
        return;
    };
    let bytes = j1.saturating_sub(j0) * size_of::<S>();
    for r in r0..r1 {
        let base = b.data.as_ptr().wrapping_add(s.origin + r * s.rs + j0);
        prefetch_lines::<TO_L2>(base.cast(), bytes);
    }
}

/// `dst[i * dw + j] = conv(src[i * rs + j])` for `rows` rows of `w` elements, the first `ahead`
/// rows' columns asked for into L1 `PANEL_ROWS` rows further down. The panel widths the kernels
/// use have copies of their own: with the width a constant, a row is a vector move or two, where
/// a loop over a width known only at run time spent several times the instructions on a row,
/// and the out-of-order window held fewer rows' loads in flight. Timed inside 64 x 4096 x 4096
/// AVX2 F64 on a Zen 4, two threads, medians of 16 calls, the copy of B took 16.1 ms a call
/// (both threads' time) before and 14.4 after; alone, into groups of 4 KiB runs, 13.2 and 10.2.
#[inline(always)]
fn copy_rows<S: Copy, T>(
    src: &[S],
    rs: usize,
    (dst, dw): (&mut [T], usize),
    w: usize,
    rows: usize,
    ahead: usize,
    conv: &impl Fn(S) -> T,
) {
    if rows == 0 || w == 0 {
        return;
    }
    // Every element read and written is inside the slices: checked here, once for all rows.
    assert!(w <= dw && (rows - 1) * rs + w <= src.len() && (rows - 1) * dw + w <= dst.len());
    match (w, dw) {
        (4, 4) => copy_rows_of::<S, T, 4>(src, rs, dst, rows, ahead, conv),
        (8, 8) => copy_rows_of::<S, T, 8>(src, rs, dst, rows, ahead, conv),
        (16, 16) => copy_rows_of::<S, T, 16>(src, rs, dst, rows, ahead, conv),
        (32, 32) => copy_rows_of::<S, T, 32>(src, rs, dst, rows, ahead, conv),
        _ => {
            for i in 0..rows {
                if i < ahead {
                    let down = src.as_ptr().wrapping_add((i + PANEL_ROWS) * rs);
                    prefetch_lines::<TO_L1>(down.cast(), w * size_of::<S>());
                }
                let row = &src[i * rs..i * rs + w];
                for (d, &x) in dst[i * dw..i * dw + w].iter_mut().zip(row) {
                    *d = conv(x);
                }
            }
        }
    }
}

/// `copy_rows` for rows of `W` elements, `W` apart in `dst`.
#[inline(always)]
fn copy_rows_of<S: Copy, T, const W: usize>(
    src: &[S],
    rs: usize,
    dst: &mut [T],
    rows: usize,
    ahead: usize,
    conv: &impl Fn(S) -> T,
) {
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
    for i in 0..rows {
        if i < ahead {
            let down = s.wrapping_add((i + PANEL_ROWS) * rs);
            prefetch_lines::<TO_L1>(down.cast(), W * size_of::<S>());
        }
        // SAFETY: rows 0..rows of W elements, `rs` apart in `src` and `W` apart in `dst`, lie
        // inside both slices (`copy_rows`'s assertion, with `dw == W`); `write` leaves the old
        // element undropped, which for the accumulator types (plain numbers) is nothing.
        unsafe {
            let (s, d) = (s.add(i * rs), d.add(i * W));
            for j in 0..W {
                d.add(j).write(conv(*s.add(j)));
            }
        }
    }
}
