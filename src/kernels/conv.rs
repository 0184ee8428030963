//! Convolution through the blocked GEMM (implicit im2col).
//!
//! Algorithm: the convolution of each feature (or batch) group is one matrix product
//! `C[M x O] = A[M x K] * B[K x O]`: `A` is the im2col matrix of the whole batch (one row per
//! output batch element and output position, `M = batch x positions`; `K = window elements x
//! input features of the group`, zero where the window covers padding or the holes of lhs
//! dilation), and `B` is the kernel read through index tables (no copy; window reversal and rhs
//! dilation only change which input element a row reads). This is the im2col lowering
//! (Chellapilla, Puri & Simard, "High Performance Convolutional Neural Networks for Document
//! Processing", 2006) done implicitly, as Eigen's `SpatialConvolution` (which XLA:CPU calls)
//! does through its input mapper: `A` is never stored; the GEMM's A-packing step (`PackA`)
//! gathers each MR-row panel straight from the input through a table of window offsets per
//! output position.
//! That saves writing and re-reading a matrix `K` times the size of the input per image, and
//! folding the batch into `M` gives the GEMM one large, well-balanced product instead of one per
//! image.
//!
//! Columns of `A` are ordered window position major, input feature minor, so for a
//! feature-minor (`b01f`) input each row of a block is a few contiguous runs of the input: the
//! GEMM takes such blocks row-major (`PackA::pack_rows`, plain copies, read by the micro-kernel
//! that reads A rows in place) instead of as column-major panels (a transpose per panel). When
//! the output is `b01f`-ordered and there is a single group, `C` is written straight into the
//! result; otherwise it is scattered.

use super::gemm::{
    GATHER_ROWS, GemmElem, KernelKind, MatRef, MicroKernel, PackA, gemm_packed_into,
};
use crate::shape::row_major_strides;
use crate::shape::window::{ConvDims, WindowDim};
use std::mem::MaybeUninit;

/// The geometry of one convolution on actual operand sizes, with row-major strides.
#[derive(Clone, Debug)]
pub struct ConvGeom {
    pub batch: usize,
    pub in_features: usize,
    pub in_spatial: Vec<usize>,
    pub lhs_batch_stride: usize,
    pub lhs_feature_stride: usize,
    pub lhs_spatial_strides: Vec<usize>,
    pub k_in: usize,
    pub k_out: usize,
    pub k_spatial: Vec<usize>,
    pub rhs_in_stride: usize,
    pub rhs_out_stride: usize,
    pub rhs_spatial_strides: Vec<usize>,
    pub out_batch: usize,
    pub out_spatial: Vec<usize>,
    pub out_dims: Vec<i64>,
    pub out_batch_stride: usize,
    pub out_feature_stride: usize,
    pub out_spatial_strides: Vec<usize>,
    pub window: Vec<WindowDim>,
    pub feature_groups: usize,
    pub batch_groups: usize,
}

impl ConvGeom {
    /// Builds the geometry; `out_dims` are the result's dimensions (from the verifier's rules).
    pub fn new(
        lhs_dims: &[i64],
        rhs_dims: &[i64],
        out_dims: &[i64],
        d: &ConvDims,
        window: &[WindowDim],
        feature_groups: i64,
        batch_groups: i64,
    ) -> ConvGeom {
        let (ls, rs, os) = (
            row_major_strides(lhs_dims),
            row_major_strides(rhs_dims),
            row_major_strides(out_dims),
        );
        let u = |x: i64| x.max(0) as usize;
        ConvGeom {
            batch: u(lhs_dims[d.input_batch]),
            in_features: u(lhs_dims[d.input_feature]),
            in_spatial: d.input_spatial.iter().map(|&i| u(lhs_dims[i])).collect(),
            lhs_batch_stride: ls[d.input_batch],
            lhs_feature_stride: ls[d.input_feature],
            lhs_spatial_strides: d.input_spatial.iter().map(|&i| ls[i]).collect(),
            k_in: u(rhs_dims[d.kernel_input_feature]),
            k_out: u(rhs_dims[d.kernel_output_feature]),
            k_spatial: d.kernel_spatial.iter().map(|&i| u(rhs_dims[i])).collect(),
            rhs_in_stride: rs[d.kernel_input_feature],
            rhs_out_stride: rs[d.kernel_output_feature],
            rhs_spatial_strides: d.kernel_spatial.iter().map(|&i| rs[i]).collect(),
            out_batch: u(out_dims[d.output_batch]),
            out_spatial: d.output_spatial.iter().map(|&i| u(out_dims[i])).collect(),
            out_dims: out_dims.to_vec(),
            out_batch_stride: os[d.output_batch],
            out_feature_stride: os[d.output_feature],
            out_spatial_strides: d.output_spatial.iter().map(|&i| os[i]).collect(),
            window: window.to_vec(),
            feature_groups: feature_groups.max(1) as usize,
            batch_groups: batch_groups.max(1) as usize,
        }
    }

    /// Number of groups (feature or batch groups; at most one kind exceeds 1).
    pub fn groups(&self) -> usize {
        self.feature_groups.max(self.batch_groups)
    }

    /// Output features per group.
    pub fn group_out(&self) -> usize {
        self.k_out / self.groups()
    }

    /// The lhs batch element and first input feature that output batch `ob` of group `g` reads.
    /// Batch groups split the lhs batch into `batch_groups` consecutive blocks, block `g` feeding
    /// output features of group `g`; feature groups split the input features the same way.
    pub fn group_source(&self, ob: usize, g: usize) -> (usize, usize) {
        if self.batch_groups > 1 {
            (g * (self.batch / self.batch_groups) + ob, 0)
        } else {
            (ob, g * self.k_in)
        }
    }

    /// The input coordinate a window element reads along spatial dimension `i`: `None` when it
    /// falls in padding or in a hole of lhs dilation.
    #[inline]
    pub fn input_coord(&self, i: usize, out: usize, kk: usize) -> Option<usize> {
        let w = &self.window[i];
        let pos = out as i64 * w.stride - w.pad_lo + kk as i64 * w.rhs_dilate;
        if pos < 0 || pos % w.lhs_dilate != 0 {
            return None;
        }
        let pos = pos / w.lhs_dilate;
        ((pos as usize) < self.in_spatial[i]).then_some(pos as usize)
    }

    /// The kernel spatial index a window element uses (mirrored under `rhs_reversal`).
    #[inline]
    pub fn kernel_coord(&self, i: usize, kk: usize) -> usize {
        if self.window[i].reversal {
            self.k_spatial[i] - 1 - kk
        } else {
            kk
        }
    }

    pub fn flops(&self) -> f64 {
        let p: usize = self.out_spatial.iter().product();
        let k: usize = self.k_spatial.iter().product();
        2.0 * (self.out_batch * p * self.k_out * k * self.k_in) as f64
    }
}

/// Row-major enumeration of a multi-index over `sizes`, as a vector of index vectors' flat
/// positions: calls `f(index)` for each.
pub fn for_each_index(sizes: &[usize], mut f: impl FnMut(&[usize])) {
    if sizes.contains(&0) {
        return;
    }
    let mut idx = vec![0usize; sizes.len()];
    loop {
        f(&idx);
        let mut d = sizes.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < sizes[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Batch sizes from which a batch-innermost input is read in position x batch row order: with
/// fewer, a panel's rows would span several positions and its copies be too short to pay.
const BATCH_MINOR_MIN: usize = 8;

/// Marks a window position over padding or a dilation hole in `Patches::spatial`.
const NONE: usize = usize::MAX;

/// The implicit im2col matrix of one group: row `r = batch x positions + position`, column
/// `window position x k_in + input feature`. Its panels are gathered from the input while the
/// GEMM packs them, so the matrix itself never exists.
struct Patches<'a, S, F> {
    lhs: &'a [S],
    conv: &'a F,
    /// `p_count x kpos_count` spatial offsets (or `NONE`).
    spatial: &'a [usize],
    p_count: usize,
    kpos_count: usize,
    k_in: usize,
    /// Offset of the group's first batch element and first input feature.
    base: usize,
    batch_stride: usize,
    feature_stride: usize,
    rows: usize,
    /// Rows ordered position major, batch minor (`r = position x batch + batch element`), for
    /// an input whose batch dimension is its innermost (`batch_stride == 1`): a panel's rows
    /// are then neighbours in memory at every column. `None`: batch major.
    batch_minor: Option<usize>,
}

impl<S, T, F> PackA<T> for Patches<'_, S, F>
where
    S: Copy + Sync + 'static,
    T: GemmElem,
    F: Fn(S) -> T + Sync,
{
    fn rows(&self) -> usize {
        self.rows
    }
    fn cols(&self) -> usize {
        self.kpos_count * self.k_in
    }
    fn packs_rows(&self) -> bool {
        self.batch_minor.is_none() && self.feature_stride == 1
    }
    fn pack_panels(
        &self,
        r0: usize,
        h: usize,
        pc: usize,
        kcb: usize,
        mr: usize,
        block: &mut [T],
    ) -> bool {
        // A position's batch elements span several panels: each run of the input is read
        // once for all of them (panel by panel, a 12-row panel read two cache lines for
        // twelve of a 32-element batch's values, and the next panel the same lines again).
        match self.batch_minor {
            Some(batch) => {
                self.batch_minor_into(batch, r0, h, pc, kcb, mr, block);
                true
            }
            None => false,
        }
    }
    fn pack_rows(&self, r0: usize, h: usize, pc: usize, kcb: usize, panel: &mut [T]) {
        // Each row's window positions are contiguous runs of input features: copies, with no
        // transposing (the kernel reads the rows `kcb` apart).
        for (ii, row) in panel.chunks_exact_mut(kcb).take(h).enumerate() {
            self.row_into(r0 + ii, pc, row);
        }
    }
    fn pack(&self, r0: usize, h: usize, pc: usize, kcb: usize, mr: usize, panel: &mut [T]) {
        if let Some(batch) = self.batch_minor {
            return self.batch_minor_into(batch, r0, h, pc, kcb, mr, panel);
        }
        if self.feature_stride != 1 {
            return self.pack_strided(r0, h, pc, kcb, mr, panel);
        }
        // Every window position's columns are, for each row of the panel, one contiguous run
        // of input features: the rows' runs are laid side by side into the panel's
        // column-major order a cache line at a time (`gemm::gather`), straight from the input.
        // (Building each row contiguously first and gathering that copy cost a second pass
        // and a zeroed block per panel: a sixth of a 3x3 128-feature convolution's time.)
        let mut rows: [(usize, &[usize]); GATHER_ROWS] = [(0, &[]); GATHER_ROWS];
        for (ii, row) in rows.iter_mut().enumerate().take(h) {
            *row = self.row_source(r0 + ii);
        }
        let mut q = pc;
        while q < pc + kcb {
            let (kp, c0) = (q / self.k_in, q % self.k_in);
            let len = (self.k_in - c0).min(pc + kcb - q);
            let cols = &mut panel[(q - pc) * mr..];
            let mut runs: [&[S]; GATHER_ROWS] = [&[]; GATHER_ROWS];
            let mut over_padding = 0u32;
            let mut any: &[S] = &[];
            for (ii, (run, &(row_base, sp))) in runs.iter_mut().zip(&rows).enumerate().take(h) {
                let off = sp[kp];
                if off == NONE {
                    over_padding |= 1 << ii;
                } else {
                    let src = row_base + off + c0;
                    *run = &self.lhs[src..src + len];
                    any = run;
                }
            }
            if any.is_empty() {
                // Every row over padding (or nothing to copy).
                for col in cols.chunks_mut(mr).take(len) {
                    col[..h].fill(T::zero());
                }
            } else {
                // Rows over padding read another row's run, then get their zeros.
                for (ii, run) in runs.iter_mut().enumerate().take(h) {
                    if over_padding & (1 << ii) != 0 {
                        *run = any;
                    }
                }
                super::gemm::gather(&runs[..h], len, cols, mr, self.conv);
                let mut pads = over_padding;
                while pads != 0 {
                    let ii = pads.trailing_zeros() as usize;
                    pads &= pads - 1;
                    for x in cols[ii..].iter_mut().step_by(mr).take(len) {
                        *x = T::zero();
                    }
                }
            }
            q += len;
        }
    }
}

impl<S, F> Patches<'_, S, F> {
    /// Rows `r0..r0 + h` and columns `pc..pc + kcb` of a batch-minor patch matrix into
    /// column-major panels of `mr` rows, row `i` in panel `i / mr` (at `block[i / mr * mr *
    /// kcb..]`). The rows come in runs of one position (consecutive batch elements, adjacent in
    /// the input): each column of a run is one contiguous read, laid into the panels it
    /// covers, so nothing needs transposing.
    #[allow(clippy::too_many_arguments)]
    fn batch_minor_into<T>(
        &self,
        batch: usize,
        r0: usize,
        h: usize,
        pc: usize,
        kcb: usize,
        mr: usize,
        block: &mut [T],
    ) where
        S: Copy,
        T: GemmElem,
        F: Fn(S) -> T,
    {
        let k_in = self.k_in;
        // A run's pieces, one per panel it falls in: (its place in column 0 of the block, its
        // first element in the run, its length).
        let mut pieces: Vec<(usize, usize, usize)> = Vec::with_capacity(h / mr.max(1) + 2);
        let mut i0 = 0;
        while i0 < h {
            let r = r0 + i0;
            let (p, b0) = (r / batch, r % batch);
            let len = (batch - b0).min(h - i0);
            pieces.clear();
            let mut ii = i0;
            while ii < i0 + len {
                let (panel, within) = (ii / mr, ii % mr);
                let l = (mr - within).min(i0 + len - ii);
                pieces.push((panel * mr * kcb + within, ii - i0, l));
                ii += l;
            }
            let sp = &self.spatial[p * self.kpos_count..(p + 1) * self.kpos_count];
            // The columns are visited input feature major: one feature's window positions
            // read neighbouring stretches of the input, one stream, where the columns' own
            // order (feature minor) jumps a feature's stride at every column, as many streams
            // as features, each stride a multiple of 4 KiB (one L1 set) in a kernel gradient.
            for c in 0..k_in {
                // The block's first column of feature `c`.
                let first = (c + k_in - pc % k_in) % k_in;
                let src_c = self.base + c * self.feature_stride + b0;
                let (mut j, mut kp) = (first, (pc + first) / k_in);
                while j < kcb {
                    let off = sp[kp];
                    if off != NONE {
                        let run = &self.lhs[src_c + off..src_c + off + len];
                        for &(d, s, l) in &pieces {
                            let dst = &mut block[d + j * mr..d + j * mr + l];
                            copy_short(dst, &run[s..s + l], &self.conv);
                        }
                    } else {
                        for &(d, _, l) in &pieces {
                            block[d + j * mr..d + j * mr + l].fill(T::zero());
                        }
                    }
                    j += k_in;
                    kp += 1;
                }
            }
            i0 += len;
        }
    }

    /// Where batch-major row `r` reads: the offset of its batch element, and the spatial offset
    /// (or `NONE`) of each of its window positions.
    fn row_source(&self, r: usize) -> (usize, &[usize]) {
        let (b, p) = (r / self.p_count, r % self.p_count);
        (
            self.base + b * self.batch_stride,
            &self.spatial[p * self.kpos_count..(p + 1) * self.kpos_count],
        )
    }

    /// Columns `pc..pc + row.len()` of batch-major row `r`, every one written (zeros over
    /// padding): a run of input features per window position.
    fn row_into<T>(&self, r: usize, pc: usize, row: &mut [T])
    where
        S: Copy,
        T: GemmElem,
        F: Fn(S) -> T,
    {
        let (row_base, sp) = self.row_source(r);
        let end = pc + row.len();
        let mut q = pc;
        while q < end {
            let (kp, c0) = (q / self.k_in, q % self.k_in);
            let len = (self.k_in - c0).min(end - q);
            let dst = &mut row[q - pc..q - pc + len];
            let off = sp[kp];
            if off == NONE {
                dst.fill(T::zero());
            } else if self.feature_stride == 1 {
                let src = row_base + off + c0;
                for (d, &x) in dst.iter_mut().zip(&self.lhs[src..src + len]) {
                    *d = (self.conv)(x);
                }
            } else {
                let src = row_base + off + c0 * self.feature_stride;
                for (j, d) in dst.iter_mut().enumerate() {
                    *d = (self.conv)(self.lhs[src + j * self.feature_stride]);
                }
            }
            q += len;
        }
    }

    /// `pack` for an input whose features are not adjacent: each row of the patch block is
    /// built contiguously first, then laid into the panel (`gemm::gather`).
    fn pack_strided<T>(
        &self,
        r0: usize,
        h: usize,
        pc: usize,
        kcb: usize,
        mr: usize,
        panel: &mut [T],
    ) where
        S: Copy + Sync + 'static,
        T: GemmElem,
        F: Fn(S) -> T + Sync,
    {
        // (Every element is written by `row_into`.)
        let mut block = super::scratch::Scratch::stale(h * kcb, T::zero());
        for (ii, row) in block.chunks_exact_mut(kcb).enumerate() {
            self.row_into(r0 + ii, pc, row);
        }
        let mut rows: [&[T]; GATHER_ROWS] = [&[]; GATHER_ROWS];
        for (r, run) in rows.iter_mut().zip(block.chunks_exact(kcb)) {
            *r = run;
        }
        super::gemm::gather(&rows[..h], kcb, panel, mr, &|x| x);
    }
}

/// `dst[i] = conv(src[i])` for the piece of a run that falls in one panel: a panel's height
/// copied with the length a constant, the rest element by element. (A loop of run-time length
/// became a call to `memmove` per piece for F32, a seventh of a kernel gradient's time.)
#[inline(always)]
fn copy_short<S: Copy, T>(dst: &mut [T], src: &[S], conv: &impl Fn(S) -> T) {
    fn fixed<S: Copy, T, const N: usize>(dst: &mut [T], src: &[S], conv: &impl Fn(S) -> T) {
        for (x, &y) in dst[..N].iter_mut().zip(&src[..N]) {
            *x = conv(y);
        }
    }
    match dst.len().min(src.len()) {
        4 => fixed::<S, T, 4>(dst, src, conv),
        6 => fixed::<S, T, 6>(dst, src, conv),
        8 => fixed::<S, T, 8>(dst, src, conv),
        12 => fixed::<S, T, 12>(dst, src, conv),
        16 => fixed::<S, T, 16>(dst, src, conv),
        _ => {
            for (x, &y) in dst.iter_mut().zip(src) {
                *x = conv(y);
            }
        }
    }
}

/// The input in batch, spatial..., feature order (row-major), and the geometry of that copy.
fn feature_minor<S: Copy>(g: &ConvGeom, lhs: &[S]) -> (Vec<S>, ConvGeom) {
    let spatial: usize = g.in_spatial.iter().product();
    let mut copy = Vec::with_capacity(g.batch * spatial * g.in_features);
    for b in 0..g.batch {
        for_each_index(&g.in_spatial, |ix| {
            let base = b * g.lhs_batch_stride
                + ix.iter()
                    .zip(&g.lhs_spatial_strides)
                    .map(|(&i, &s)| i * s)
                    .sum::<usize>();
            copy.extend((0..g.in_features).map(|f| lhs[base + f * g.lhs_feature_stride]));
        });
    }
    let mut h = g.clone();
    h.lhs_feature_stride = 1;
    let mut s = g.in_features;
    for i in (0..g.in_spatial.len()).rev() {
        h.lhs_spatial_strides[i] = s;
        s *= g.in_spatial[i];
    }
    h.lhs_batch_stride = s;
    (copy, h)
}

/// The fast convolution: `out` (row-major, `geom.out_dims`) receives the result in the
/// accumulation type `T`; every element is written, so it need not be initialised. Returns which
/// GEMM kernel ran.
pub fn conv_fast<S, T, F>(
    kernel: &MicroKernel<T>,
    geom: &ConvGeom,
    lhs: &[S],
    rhs: &[S],
    conv: F,
    out: &mut [MaybeUninit<T>],
) -> KernelKind
where
    S: Copy + Send + Sync + 'static,
    T: GemmElem,
    F: Fn(S) -> T + Sync,
{
    // A kernel gradient's convolution reads the batch as its features and the features as its
    // batch, so its input's batch dimension is innermost: then the patch rows go position
    // major, batch minor, and a panel's rows are adjacent input elements (`batch_minor`).
    // Other inputs with features far apart in memory would make every element of the patch
    // gather a cache miss: they are copied once into batch, spatial..., feature order first,
    // where each window position's features are one contiguous run.
    let batch_minor = geom.lhs_batch_stride == 1
        && geom.lhs_feature_stride != 1
        && geom.out_batch >= BATCH_MINOR_MIN
        && geom.groups() == 1;
    let relaid;
    let (lhs, geom) = if !batch_minor && geom.lhs_feature_stride != 1 && geom.in_features > 1 {
        let (copy, g) = feature_minor(geom, lhs);
        relaid = (copy, g);
        (&relaid.0[..], &relaid.1)
    } else {
        (lhs, geom)
    };
    let g = geom;
    let groups = g.groups();
    let og = g.group_out();
    let p_count: usize = g.out_spatial.iter().product();
    let kpos_count: usize = g.k_spatial.iter().product();
    // Window positions as kernel offsets (reversal applied) and as spatial indices.
    let mut kpos: Vec<Vec<usize>> = Vec::with_capacity(kpos_count);
    for_each_index(&g.k_spatial, |ix| kpos.push(ix.to_vec()));
    let mut opos: Vec<Vec<usize>> = Vec::with_capacity(p_count);
    for_each_index(&g.out_spatial, |ix| opos.push(ix.to_vec()));
    let krow_base: Vec<usize> = kpos
        .iter()
        .map(|ix| {
            ix.iter()
                .enumerate()
                .map(|(i, &kk)| g.kernel_coord(i, kk) * g.rhs_spatial_strides[i])
                .sum()
        })
        .collect();
    let brows: Vec<usize> = krow_base
        .iter()
        .flat_map(|&b| (0..g.k_in).map(move |c| b + c * g.rhs_in_stride))
        .collect();
    // Output writes straight into the result when C's [position x feature] rows are the
    // result's own memory order.
    let spatial_row_major = {
        let mut s = g.k_out;
        let mut ok = g.out_feature_stride == 1;
        for i in (0..g.out_spatial.len()).rev() {
            ok &= g.out_spatial[i] <= 1 || g.out_spatial_strides[i] == s;
            s *= g.out_spatial[i];
        }
        ok && (g.out_batch <= 1 || g.out_batch_stride == s)
    };
    // The same for rows in position x batch order: C is [position, batch, feature].
    let position_major = {
        let mut s = g.k_out * g.out_batch;
        let mut ok =
            g.out_feature_stride == 1 && (g.out_batch <= 1 || g.out_batch_stride == g.k_out);
        for i in (0..g.out_spatial.len()).rev() {
            ok &= g.out_spatial[i] <= 1 || g.out_spatial_strides[i] == s;
            s *= g.out_spatial[i];
        }
        ok
    };
    let direct = groups == 1
        && if batch_minor {
            position_major
        } else {
            spatial_row_major
        };
    // Per output position and window position, the spatial offset of the input element the
    // window reads there, or `NONE` over padding and dilation holes.
    let mut spatial = vec![NONE; p_count * kpos_count];
    for (o, row) in opos.iter().zip(spatial.chunks_mut(kpos_count.max(1))) {
        for (kix, dst) in kpos.iter().zip(row.iter_mut()) {
            let mut off = 0;
            let mut inside = true;
            for i in 0..kix.len() {
                match g.input_coord(i, o[i], kix[i]) {
                    Some(x) => off += x * g.lhs_spatial_strides[i],
                    None => {
                        inside = false;
                        break;
                    }
                }
            }
            if inside {
                *dst = off;
            }
        }
    }
    let rows = g.out_batch * p_count;
    // The groups' C, when C is not the result's own memory: a recycled buffer when one is free
    // (see `pool::fill_fresh`), left uninitialised, as every group's product writes all of it.
    let mut c_buf: Vec<T> = if direct {
        vec![]
    } else {
        crate::literal::pages::fresh_vec(rows * og)
    };
    let c = &mut c_buf.spare_capacity_mut()[..if direct { 0 } else { rows * og }];
    let mut kind = kernel.kind;
    for grp in 0..groups {
        let (lb, f0) = g.group_source(0, grp);
        let patches = Patches {
            lhs,
            conv: &conv,
            spatial: &spatial,
            p_count,
            kpos_count,
            k_in: g.k_in,
            base: lb * g.lhs_batch_stride + f0 * g.lhs_feature_stride,
            batch_stride: g.lhs_batch_stride,
            feature_stride: g.lhs_feature_stride,
            rows,
            batch_minor: batch_minor.then_some(g.out_batch),
        };
        let bcols: Vec<usize> = (0..og).map(|o| (grp * og + o) * g.rhs_out_stride).collect();
        let bm = MatRef {
            data: rhs,
            base: 0,
            rows: &brows,
            cols: &bcols,
        };
        if direct {
            kind = gemm_packed_into(kernel, &patches, bm, &conv, out);
        } else {
            kind = gemm_packed_into(kernel, &patches, bm, &conv, c);
            for ob in 0..g.out_batch {
                let ob_off = ob * g.out_batch_stride;
                for (p, o) in opos.iter().enumerate() {
                    let sp: usize = o
                        .iter()
                        .zip(&g.out_spatial_strides)
                        .map(|(&x, &s)| x * s)
                        .sum();
                    let row = if batch_minor {
                        p * g.out_batch + ob
                    } else {
                        ob * p_count + p
                    };
                    let crow = &c[row * og..(row + 1) * og];
                    for (f, v) in crow.iter().enumerate() {
                        // SAFETY: this group's product wrote every element of `c`.
                        let v = unsafe { v.assume_init() };
                        out[ob_off + sp + (grp * og + f) * g.out_feature_stride].write(v);
                    }
                }
            }
        }
    }
    kind
}
