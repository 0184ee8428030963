//! Gather and scatter.
//!
//! Reference: XLA Operation Semantics (Gather, Scatter) for the index formulas, and XLA's
//! `HloEvaluator::HandleGather` / `HandleScatter` for what the seed leaves open: gather clamps
//! each start index so the whole slice lies inside the operand; scatter skips an update window
//! entirely when any part of it would fall outside the operand, and applies updates in row-major
//! order of their scatter position.
//!
//! Algorithm. Both ops split an index of the big array (gather's output, scatter's updates) into
//! a *batch* part `G` (the dimensions that select an index vector from the index array) and a
//! *window* part (the dimensions that move inside one slice). Every `G` is resolved once into a
//! linear start offset in the operand (`-1` for a scatter window that does not fit); every window
//! position is a fixed linear offset added to it. Work is then organised in *runs* along the last
//! dimension, which are plain slice copies when that dimension is contiguous in both arrays.
//!
//! Gather writes each output element once, so output chunks are filled in parallel. Scatter's
//! typed fast paths (a combiner that adds, or one that returns its update) split the operand's
//! linear range among threads; each thread replays every update in the sequential order but
//! applies only those landing in its range, so the result is bit-for-bit the sequential one even
//! for floating-point addition. Any other combiner is interpreted element by element with
//! `Evaluator::call`.

use super::{Evaluator, array};
use crate::error::{Error, Result};
use crate::hlo::ast::{Attrs, CompId, Instruction};
use crate::hlo::opcode::Opcode;
use crate::literal::{Array, ArrayData, Literal, NativeType};
use crate::shape::{ArrayShape, Shape, row_major_strides};
use crate::with_data;
use half::{bf16, f16};
use rayon::prelude::*;

pub fn eval(ev: &Evaluator, inst: &Instruction, ops: &[&Literal]) -> Result<Literal> {
    match inst.opcode {
        Opcode::Gather => {
            let dims = GatherDims::from_attrs(&inst.attrs)?;
            let mut out = gather(array(ops, 0)?, array(ops, 1)?, &dims)?;
            out.shape.layout = Evaluator::result_array_shape(inst)?.layout.clone();
            Ok(Literal::Array(out))
        }
        Opcode::Scatter => eval_scatter(ev, inst, ops),
        op => Err(Error::internal(format!("`{op}` is not an indexing op"))),
    }
}

// ------------------------------------------------------------------------------------ shared

/// The values of an integer index array, widened to i64 (u64 values above i64::MAX saturate;
/// they are out of range either way, and gather clamps / scatter skips them the same).
fn index_values(a: &Array) -> Result<Vec<i64>> {
    Ok(match &a.data {
        ArrayData::S8(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::S16(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::S32(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::S64(v) => v.clone(),
        ArrayData::U8(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::U16(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::U32(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::U64(v) => v
            .iter()
            .map(|&x| i64::try_from(x).unwrap_or(i64::MAX))
            .collect(),
        other => {
            return Err(Error::internal(format!(
                "index array of type {} should have been rejected",
                other.ty()
            )));
        }
    })
}

/// How the index array is read: the batch space `G` (its dimensions without `index_vector_dim`)
/// and where the index vector of each `G` lives.
struct IndexSpace {
    /// Sizes of the batch space, in order.
    gdims: Vec<i64>,
    /// For each batch-space dimension, the stride of the matching index-array dimension.
    gstride_in_indices: Vec<usize>,
    /// Stride between consecutive components of one index vector.
    component_stride: usize,
    /// Index-array dimension -> position in the batch space (`None` for index_vector_dim).
    gpos: Vec<Option<usize>>,
}

impl IndexSpace {
    fn new(index_dims: &[i64], ivd: usize) -> IndexSpace {
        let mut dims = index_dims.to_vec();
        if ivd == dims.len() {
            // The implicit trailing dimension of size 1.
            dims.push(1);
        }
        let strides = row_major_strides(&dims);
        let mut gdims = vec![];
        let mut gstride_in_indices = vec![];
        let mut gpos = vec![];
        for (d, (&size, &stride)) in dims.iter().zip(&strides).enumerate() {
            if d == ivd {
                gpos.push(None);
            } else {
                gpos.push(Some(gdims.len()));
                gdims.push(size);
                gstride_in_indices.push(stride);
            }
        }
        IndexSpace {
            gdims,
            gstride_in_indices,
            component_stride: strides[ivd],
            gpos,
        }
    }

    fn count(&self) -> usize {
        self.gdims.iter().product::<i64>().max(0) as usize
    }

    /// Batch position `g` (row-major linear) as a multi-index, and the linear index of the first
    /// component of its index vector.
    fn locate(&self, mut g: usize, multi: &mut [i64]) -> usize {
        let mut at = 0;
        for d in (0..self.gdims.len()).rev() {
            let size = self.gdims[d].max(1) as usize;
            multi[d] = (g % size) as i64;
            g /= size;
            at += multi[d] as usize * self.gstride_in_indices[d];
        }
        at
    }
}

/// The operand dimensions that are not in `a` or `b`, in ascending order (gather's
/// `remapped_offset_dims`, scatter's `window_dims_to_operand_dims`).
fn remaining_dims(rank: usize, a: &[i64], b: &[i64]) -> Vec<usize> {
    (0..rank)
        .filter(|&d| !a.contains(&(d as i64)) && !b.contains(&(d as i64)))
        .collect()
}

fn to_usize(dims: &[i64]) -> Vec<usize> {
    dims.iter().map(|&d| d.max(0) as usize).collect()
}

/// Paired batching dimensions must have equal actual sizes (the verifier checked the declared
/// ones; only dynamic shapes can differ at run time).
fn same_batch_sizes(
    op: &str,
    odims: &[i64],
    idims: &[i64],
    operand_side: &[i64],
    index_side: &[i64],
) -> Result<()> {
    for (&o, &i) in operand_side.iter().zip(index_side) {
        if odims.get(o as usize) != idims.get(i as usize) {
            return Err(Error::runtime(format!(
                "{op}: paired batching dimensions have different actual sizes"
            ))
            .with_rule(&format!("{op}.batching_dims_same_size")));
        }
    }
    Ok(())
}

/// Rows of this many elements or more are worth a parallel split.
const PAR_MIN_ELEMENTS: usize = 1 << 15;

// ------------------------------------------------------------------------------------ gather

/// Gather's dimension numbers, as the attributes spell them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GatherDims {
    pub offset_dims: Vec<i64>,
    pub collapsed_slice_dims: Vec<i64>,
    pub start_index_map: Vec<i64>,
    pub operand_batching_dims: Vec<i64>,
    pub start_indices_batching_dims: Vec<i64>,
    pub index_vector_dim: i64,
    pub slice_sizes: Vec<i64>,
}

fn attr_list(attrs: &Attrs, key: &str) -> Vec<i64> {
    attrs.ints(key).map(|v| v.to_vec()).unwrap_or_default()
}

fn attr_int(attrs: &Attrs, key: &str) -> Result<i64> {
    attrs
        .int(key)
        .ok_or_else(|| Error::internal(format!("attribute `{key}` should have been verified")))
}

impl GatherDims {
    pub fn from_attrs(attrs: &Attrs) -> Result<GatherDims> {
        Ok(GatherDims {
            offset_dims: attr_list(attrs, "offset_dims"),
            collapsed_slice_dims: attr_list(attrs, "collapsed_slice_dims"),
            start_index_map: attr_list(attrs, "start_index_map"),
            operand_batching_dims: attr_list(attrs, "operand_batching_dims"),
            start_indices_batching_dims: attr_list(attrs, "start_indices_batching_dims"),
            index_vector_dim: attr_int(attrs, "index_vector_dim")?,
            slice_sizes: attr_list(attrs, "slice_sizes"),
        })
    }
}

/// Gathers slices of `operand` at the start positions held in `indices`. The dimension numbers
/// must satisfy the verifier's rules for these shapes (a verified module guarantees it); actual
/// sizes that break them (possible only with dynamic shapes) are runtime errors.
pub fn gather(operand: &Array, indices: &Array, d: &GatherDims) -> Result<Array> {
    let rank = operand.rank();
    let odims = &operand.shape.dims;
    let ostrides = row_major_strides(odims);
    let ivd = d.index_vector_dim.max(0) as usize;
    let space = IndexSpace::new(indices.dims(), ivd);
    if d.slice_sizes.len() != rank {
        return Err(Error::internal(
            "gather slice_sizes do not match the operand",
        ));
    }
    for (i, (&s, &n)) in d.slice_sizes.iter().zip(odims).enumerate() {
        if s > n {
            return Err(Error::runtime(format!(
                "gather: slice size {s} exceeds the actual size {n} of operand dimension {i}"
            ))
            .with_rule("gather.slice_size_in_range"));
        }
    }
    same_batch_sizes(
        "gather",
        odims,
        indices.dims(),
        &d.operand_batching_dims,
        &d.start_indices_batching_dims,
    )?;

    // Output dimensions: offset dimensions take the remaining slice sizes, batch dimensions the
    // batch space, each in order.
    let window = remaining_dims(rank, &d.collapsed_slice_dims, &d.operand_batching_dims);
    let out_rank = d.offset_dims.len() + space.gdims.len();
    let gstrides = row_major_strides(&space.gdims);
    let mut out_dims = Vec::with_capacity(out_rank);
    // Per output dimension: stride in the batch space and stride in the operand.
    let mut g_step = Vec::with_capacity(out_rank);
    let mut o_step = Vec::with_capacity(out_rank);
    let (mut k_off, mut k_batch) = (0, 0);
    for i in 0..out_rank {
        if d.offset_dims.contains(&(i as i64)) {
            let od = *window
                .get(k_off)
                .ok_or_else(|| Error::internal("gather offset dims miscounted"))?;
            out_dims.push(d.slice_sizes[od]);
            g_step.push(0);
            o_step.push(ostrides[od]);
            k_off += 1;
        } else {
            out_dims.push(space.gdims[k_batch]);
            g_step.push(gstrides[k_batch]);
            o_step.push(0);
            k_batch += 1;
        }
    }
    let shape = ArrayShape::new(operand.ty(), out_dims.clone());
    let total = shape.element_count();
    if total == 0 {
        return Ok(Array::zeros(shape));
    }

    // The start offset of every batch position, clamped so the slice fits.
    let idx = index_values(indices)?;
    let n_comp = d.start_index_map.len();
    let clamp_hi: Vec<i64> = d
        .start_index_map
        .iter()
        .map(|&m| odims[m as usize] - d.slice_sizes[m as usize])
        .collect();
    let batch_pairs: Vec<(usize, usize)> = d
        .operand_batching_dims
        .iter()
        .zip(&d.start_indices_batching_dims)
        .filter_map(|(&o, &i)| Some((ostrides[o as usize], space.gpos.get(i as usize).copied()??)))
        .collect();
    let starts: Vec<usize> = (0..space.count())
        .into_par_iter()
        .with_min_len(4096)
        .map_init(
            || vec![0i64; space.gdims.len()],
            |multi, g| {
                let at = space.locate(g, multi);
                let mut off = 0usize;
                for k in 0..n_comp {
                    let s = idx[at + k * space.component_stride];
                    let m = d.start_index_map[k] as usize;
                    off += s.clamp(0, clamp_hi[k].max(0)) as usize * ostrides[m];
                }
                for &(stride, gp) in &batch_pairs {
                    off += multi[gp] as usize * stride;
                }
                off
            },
        )
        .collect();

    let data = with_data!(&operand.data, v => gather_typed(v, total, &out_dims, &g_step, &o_step, &starts));
    Array::from_data(shape, data)
}

fn gather_typed<T: NativeType>(
    src: &[T],
    total: usize,
    dims: &[i64],
    g_step: &[usize],
    o_step: &[usize],
    starts: &[usize],
) -> ArrayData {
    // Zeros, not a copy of some element: for the primitive types the allocator hands out zeroed
    // pages lazily, so the result is touched once, by the (parallel) copy.
    let mut out = vec![T::zero(); total];
    gather_rows(src, &mut out, dims, g_step, o_step, starts);
    T::into_data(out)
}

/// Fills `out` (row-major over `dims`) with `src[starts[g] + o]`, where `g` and `o` are the dot
/// products of the output index with `g_step` and `o_step`. Works in runs along the last
/// dimension; output chunks are filled in parallel.
fn gather_rows<T: Copy + Send + Sync>(
    src: &[T],
    out: &mut [T],
    dims: &[i64],
    g_step: &[usize],
    o_step: &[usize],
    starts: &[usize],
) {
    let rank = dims.len();
    let (run, rg, ro) = match rank {
        0 => (1, 0, 0),
        _ => (dims[rank - 1] as usize, g_step[rank - 1], o_step[rank - 1]),
    };
    let outer = &dims[..rank.saturating_sub(1)];
    let rows_per_chunk = (PAR_MIN_ELEMENTS / run.max(1)).max(1);
    out.par_chunks_mut(rows_per_chunk * run)
        .enumerate()
        .for_each(|(c, chunk)| {
            let first_row = c * rows_per_chunk;
            let mut multi = vec![0i64; outer.len()];
            let mut r = first_row;
            for dd in (0..outer.len()).rev() {
                multi[dd] = (r % outer[dd] as usize) as i64;
                r /= outer[dd] as usize;
            }
            for dst in chunk.chunks_exact_mut(run) {
                let (mut g, mut o) = (0usize, 0usize);
                for dd in 0..outer.len() {
                    g += multi[dd] as usize * g_step[dd];
                    o += multi[dd] as usize * o_step[dd];
                }
                if rg == 0 && ro == 1 {
                    let s = starts[g] + o;
                    dst.copy_from_slice(&src[s..s + run]);
                } else if rg == 0 {
                    let s = starts[g] + o;
                    for (t, x) in dst.iter_mut().enumerate() {
                        *x = src[s + t * ro];
                    }
                } else {
                    for (t, x) in dst.iter_mut().enumerate() {
                        *x = src[starts[g + t * rg] + o + t * ro];
                    }
                }
                // Next row (wrapping past the last one is harmless).
                for dd in (0..outer.len()).rev() {
                    multi[dd] += 1;
                    if multi[dd] < outer[dd] {
                        break;
                    }
                    multi[dd] = 0;
                }
            }
        });
}

// ------------------------------------------------------------------------------------ scatter

/// Scatter's dimension numbers, as the attributes spell them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScatterDims {
    pub update_window_dims: Vec<i64>,
    pub inserted_window_dims: Vec<i64>,
    pub scatter_dims_to_operand_dims: Vec<i64>,
    pub input_batching_dims: Vec<i64>,
    pub scatter_indices_batching_dims: Vec<i64>,
    pub index_vector_dim: i64,
}

impl ScatterDims {
    pub fn from_attrs(attrs: &Attrs) -> Result<ScatterDims> {
        Ok(ScatterDims {
            update_window_dims: attr_list(attrs, "update_window_dims"),
            inserted_window_dims: attr_list(attrs, "inserted_window_dims"),
            scatter_dims_to_operand_dims: attr_list(attrs, "scatter_dims_to_operand_dims"),
            input_batching_dims: attr_list(attrs, "input_batching_dims"),
            scatter_indices_batching_dims: attr_list(attrs, "scatter_indices_batching_dims"),
            index_vector_dim: attr_int(attrs, "index_vector_dim")?,
        })
    }
}

/// A combiner xla-spec runs as a typed loop instead of interpreting it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combiner {
    /// `add(current, update)`.
    Add,
    /// Returns its second parameter: the update replaces the current value.
    Replace,
}

/// Recognises a single-output update computation as one of the typed combiners.
pub fn recognise_combiner(ev: &Evaluator, comp: CompId) -> Option<Combiner> {
    let c = ev.module.computations.get(comp)?;
    let root = c.root();
    let param_of = |i: usize| c.instructions.get(i).and_then(|p| p.parameter_number);
    match root.opcode {
        Opcode::Parameter if root.parameter_number == Some(1) => Some(Combiner::Replace),
        Opcode::Add if root.operands.len() == 2 => {
            let (a, b) = (param_of(root.operands[0]), param_of(root.operands[1]));
            // Addition is commutative for every type add accepts (integers wrap, floats round
            // once), so either operand order is the same combiner.
            matches!((a, b), (Some(0), Some(1)) | (Some(1), Some(0))).then_some(Combiner::Add)
        }
        _ => None,
    }
}

/// Where every update element goes: per batch position, the linear start in the operand (or
/// `None` when the window does not fit) and the linear start in the updates; per window row,
/// the offsets inside the window; and the run along the updates' last dimension.
pub struct ScatterPlan {
    /// Per batch position (row-major): operand start, or None when the window is skipped.
    pub operand_start: Vec<Option<usize>>,
    /// Per batch position: linear offset of its scatter part in the updates.
    pub update_start: Vec<usize>,
    /// Per window row: (offset in the updates, offset in the operand).
    pub window_rows: Vec<(usize, usize)>,
    /// Length of a run and the operand stride along it (the updates stride is 1).
    pub run: usize,
    pub run_operand_stride: usize,
    /// Highest operand offset a window touches, relative to its start (for range pruning).
    pub window_extent: usize,
}

/// Resolves scatter's index formula for operands of `odims`, indices and updates of `udims`.
pub fn scatter_plan(
    odims: &[i64],
    indices: &Array,
    udims: &[i64],
    d: &ScatterDims,
) -> Result<ScatterPlan> {
    let rank = odims.len();
    let ostrides = row_major_strides(odims);
    let ustrides = row_major_strides(udims);
    let ivd = d.index_vector_dim.max(0) as usize;
    let space = IndexSpace::new(indices.dims(), ivd);
    let window_to_operand = remaining_dims(rank, &d.inserted_window_dims, &d.input_batching_dims);
    let uwd = to_usize(&d.update_window_dims);
    let scatter_dims: Vec<usize> = (0..udims.len()).filter(|u| !uwd.contains(u)).collect();
    // Runtime checks that only dynamic shapes could break.
    let sizes: Vec<i64> = scatter_dims.iter().map(|&u| udims[u]).collect();
    if sizes != space.gdims || window_to_operand.len() != uwd.len() {
        return Err(Error::runtime(
            "scatter: the updates' scatter dimensions do not match the index array",
        )
        .with_rule("scatter.scatter_dim_bound"));
    }
    same_batch_sizes(
        "scatter",
        odims,
        indices.dims(),
        &d.input_batching_dims,
        &d.scatter_indices_batching_dims,
    )?;
    // Window size along each operand dimension (1 for inserted and batching dimensions).
    let mut wsize = vec![1i64; rank];
    for (k, &od) in window_to_operand.iter().enumerate() {
        wsize[od] = udims[uwd[k]];
    }
    let idx = index_values(indices)?;
    let n_comp = d.scatter_dims_to_operand_dims.len();
    let batch_pairs: Vec<(usize, usize)> = d
        .input_batching_dims
        .iter()
        .zip(&d.scatter_indices_batching_dims)
        .filter_map(|(&o, &i)| Some((o as usize, space.gpos.get(i as usize).copied()??)))
        .collect();
    let count = space.count();
    let (operand_start, update_start): (Vec<Option<usize>>, Vec<usize>) = (0..count)
        .into_par_iter()
        .with_min_len(4096)
        .map_init(
            || (vec![0i64; space.gdims.len()], vec![0i64; rank]),
            |(multi, start), g| {
                let at = space.locate(g, multi);
                start.iter_mut().for_each(|s| *s = 0);
                for k in 0..n_comp {
                    start[d.scatter_dims_to_operand_dims[k] as usize] =
                        idx[at + k * space.component_stride];
                }
                for &(od, gp) in &batch_pairs {
                    start[od] = multi[gp];
                }
                let fits = (0..rank).all(|i| start[i] >= 0 && start[i] <= odims[i] - wsize[i]);
                let ostart = fits.then(|| {
                    (0..rank)
                        .map(|i| start[i] as usize * ostrides[i])
                        .sum::<usize>()
                });
                let ustart: usize = scatter_dims
                    .iter()
                    .zip(multi.iter())
                    .map(|(&u, &m)| m as usize * ustrides[u])
                    .sum();
                (ostart, ustart)
            },
        )
        .unzip();

    // Window rows: every window position except along the run dimension.
    let last = udims.len().checked_sub(1);
    let run_dim = last.filter(|l| uwd.last() == Some(l));
    let (run, run_operand_stride) = match run_dim {
        Some(l) => (
            udims[l].max(0) as usize,
            ostrides[window_to_operand[uwd.len() - 1]],
        ),
        None => (1, 0),
    };
    let row_dims: Vec<usize> = uwd
        .iter()
        .copied()
        .filter(|&u| Some(u) != run_dim)
        .collect();
    let row_count: usize = row_dims.iter().map(|&u| udims[u].max(0) as usize).product();
    let mut window_rows = Vec::with_capacity(row_count);
    let mut wmulti = vec![0i64; row_dims.len()];
    let mut window_extent = 0usize;
    for _ in 0..row_count {
        let mut uo = 0usize;
        let mut oo = 0usize;
        for (k, &u) in row_dims.iter().enumerate() {
            let od = window_to_operand[uwd.iter().position(|&x| x == u).unwrap_or(0)];
            uo += wmulti[k] as usize * ustrides[u];
            oo += wmulti[k] as usize * ostrides[od];
        }
        window_extent = window_extent.max(oo + run.saturating_sub(1) * run_operand_stride);
        window_rows.push((uo, oo));
        for k in (0..row_dims.len()).rev() {
            wmulti[k] += 1;
            if wmulti[k] < udims[row_dims[k]] {
                break;
            }
            wmulti[k] = 0;
        }
    }
    if run == 0 {
        window_rows.clear();
    }
    Ok(ScatterPlan {
        operand_start,
        update_start,
        window_rows,
        run,
        run_operand_stride,
        window_extent,
    })
}

/// Element types the add fast path handles, with the add semantics of XLA's `add`: integers
/// wrap, F16/BF16 add in F32 and round once.
pub trait ScatterAdd: Copy + Send + Sync {
    fn scatter_add(self, u: Self) -> Self;
}
macro_rules! wrapping_add {
    ($($t:ty),*) => {$(impl ScatterAdd for $t {
        fn scatter_add(self, u: Self) -> Self { self.wrapping_add(u) }
    })*};
}
wrapping_add!(i8, i16, i32, i64, u8, u16, u32, u64);
macro_rules! plain_add {
    ($($t:ty),*) => {$(impl ScatterAdd for $t {
        fn scatter_add(self, u: Self) -> Self { self + u }
    })*};
}
plain_add!(f32, f64, crate::literal::C64, crate::literal::C128);
impl ScatterAdd for f16 {
    fn scatter_add(self, u: Self) -> Self {
        f16::from_f32(self.to_f32() + u.to_f32())
    }
}
impl ScatterAdd for bf16 {
    fn scatter_add(self, u: Self) -> Self {
        bf16::from_f32(self.to_f32() + u.to_f32())
    }
}

/// Applies every update in `plan` order to `out` with `f(current, update)`. The operand's linear
/// range is split among threads; each replays all updates and keeps those in its range, so every
/// element sees its updates in the sequential order.
pub fn scatter_typed<T: Copy + Send + Sync>(
    out: &mut [T],
    updates: &[T],
    plan: &ScatterPlan,
    f: impl Fn(T, T) -> T + Sync,
) {
    let work = plan.operand_start.len() * plan.window_rows.len() * plan.run;
    let threads = rayon::current_num_threads().max(1);
    let pieces = if work >= PAR_MIN_ELEMENTS { threads } else { 1 };
    let chunk = out.len().div_ceil(pieces).max(1);
    out.par_chunks_mut(chunk).enumerate().for_each(|(c, dst)| {
        let lo = c * chunk;
        let hi = lo + dst.len();
        let os = plan.run_operand_stride;
        for (g, start) in plan.operand_start.iter().enumerate() {
            let Some(start) = *start else { continue };
            if start >= hi || start + plan.window_extent < lo {
                continue;
            }
            let ug = plan.update_start[g];
            for &(uo, oo) in &plan.window_rows {
                let o0 = start + oo;
                let u0 = ug + uo;
                if os == 1 {
                    // Clip the contiguous run to this thread's range.
                    let a = lo.max(o0);
                    let b = hi.min(o0 + plan.run);
                    if a >= b {
                        continue;
                    }
                    let src = &updates[u0 + (a - o0)..u0 + (b - o0)];
                    for (x, &u) in dst[a - lo..b - lo].iter_mut().zip(src) {
                        *x = f(*x, u);
                    }
                } else {
                    for t in 0..plan.run {
                        let o = o0 + t * os;
                        if (lo..hi).contains(&o) {
                            dst[o - lo] = f(dst[o - lo], updates[u0 + t]);
                        }
                    }
                }
            }
        }
    });
}

/// Scatter with a typed combiner on one operand: returns the operand with the updates combined
/// in. The data must all be of one element type.
pub fn scatter_fast(
    operand: &ArrayData,
    updates: &ArrayData,
    plan: &ScatterPlan,
    combiner: Combiner,
) -> Option<ArrayData> {
    macro_rules! add {
        ($($v:ident),*) => {
            match (operand, updates) {
                $((ArrayData::$v(o), ArrayData::$v(u)) => {
                    let mut out = o.clone();
                    scatter_typed(&mut out, u, plan, |a, b| a.scatter_add(b));
                    Some(ArrayData::$v(out))
                })*
                _ => None,
            }
        };
    }
    match combiner {
        Combiner::Add => add!(
            S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64, C64, C128
        ),
        Combiner::Replace => {
            if operand.ty() != updates.ty() {
                return None;
            }
            let mut out = operand.clone();
            with_data!(&mut out, o => {
                let u = NativeType::slice(updates)?;
                scatter_typed(o, u, plan, |_, b| b);
            });
            Some(out)
        }
    }
}

fn eval_scatter(ev: &Evaluator, inst: &Instruction, ops: &[&Literal]) -> Result<Literal> {
    let n = ops.len().saturating_sub(1) / 2;
    let operands: Vec<&Array> = (0..n).map(|i| array(ops, i)).collect::<Result<_>>()?;
    let indices = array(ops, n)?;
    let updates: Vec<&Array> = (n + 1..ops.len())
        .map(|i| array(ops, i))
        .collect::<Result<_>>()?;
    let dims = ScatterDims::from_attrs(&inst.attrs)?;
    let comp = inst
        .attrs
        .comp("to_apply")
        .ok_or_else(|| Error::internal("scatter without to_apply"))?;
    let first = operands
        .first()
        .ok_or_else(|| Error::internal("scatter without operands"))?;
    let udims = updates
        .first()
        .map(|u| u.dims().to_vec())
        .unwrap_or_default();
    if operands.iter().any(|o| o.dims() != first.dims())
        || updates.iter().any(|u| u.dims() != udims.as_slice())
    {
        return Err(Error::runtime(
            "scatter: operands (or updates) have different actual dimensions",
        )
        .with_rule("scatter.operands_same_dims"));
    }
    let plan = scatter_plan(first.dims(), indices, &udims, &dims)?;

    let fast = if n == 1 {
        recognise_combiner(ev, comp)
            .and_then(|c| scatter_fast(&first.data, &updates[0].data, &plan, c))
    } else {
        None
    };
    let results: Vec<ArrayData> = match fast {
        Some(d) => vec![d],
        None => scatter_interpreted(ev, comp, &operands, &updates, &plan)?,
    };

    // Result shapes: the operands' actual dimensions with the declared layouts.
    let layouts: Vec<Option<crate::shape::Layout>> = match &inst.shape {
        Shape::Tuple(elems) => elems
            .iter()
            .map(|s| s.as_array().and_then(|a| a.layout.clone()))
            .collect(),
        Shape::Array(a) => vec![a.layout.clone()],
        Shape::Token => vec![],
    };
    let mut outs = Vec::with_capacity(n);
    for (i, data) in results.into_iter().enumerate() {
        let mut shape = ArrayShape::new(data.ty(), operands[i].dims().to_vec());
        shape.layout = layouts.get(i).cloned().flatten();
        outs.push(Literal::Array(Array::from_data(shape, data)?));
    }
    if n == 1 {
        outs.pop()
            .ok_or_else(|| Error::internal("scatter produced no result"))
    } else {
        Ok(Literal::Tuple(outs))
    }
}

/// The general path: calls the update computation on each (current values..., updates...) in
/// the sequential order and stores its result(s).
fn scatter_interpreted(
    ev: &Evaluator,
    comp: CompId,
    operands: &[&Array],
    updates: &[&Array],
    plan: &ScatterPlan,
) -> Result<Vec<ArrayData>> {
    let mut out: Vec<ArrayData> = operands.iter().map(|o| o.data.clone()).collect();
    let os = plan.run_operand_stride;
    for (g, start) in plan.operand_start.iter().enumerate() {
        let Some(start) = *start else { continue };
        let ug = plan.update_start[g];
        for &(uo, oo) in &plan.window_rows {
            for t in 0..plan.run {
                let o = start + oo + t * os;
                let u = ug + uo + t;
                let mut args: Vec<Literal> =
                    out.iter().map(|d| Literal::from_scalar(d.get(o))).collect();
                args.extend(updates.iter().map(|a| Literal::from_scalar(a.data.get(u))));
                let r = ev.call(comp, args)?;
                match &r {
                    Literal::Tuple(elems) => {
                        for (d, e) in out.iter_mut().zip(elems) {
                            let s = e.scalar_value().ok_or_else(|| {
                                Error::internal("scatter combiner returned a non-scalar")
                            })?;
                            d.set(o, s)?;
                        }
                    }
                    _ => {
                        let s = r.scalar_value().ok_or_else(|| {
                            Error::internal("scatter combiner returned a non-scalar")
                        })?;
                        out[0].set(o, s)?;
                    }
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::eval::{RunOptions, run};
    use crate::hlo::{parse_and_verify, parse_literal};

    fn eval(hlo: &str, args: &[&str]) -> String {
        let m = parse_and_verify(hlo).unwrap_or_else(|e| panic!("{e}"));
        let args = args.iter().map(|a| parse_literal(a).unwrap()).collect();
        run(&m, args, &RunOptions::default())
            .unwrap_or_else(|e| panic!("{e}"))
            .result
            .to_string()
    }

    #[test]
    fn row_gather_clamps_start_indices() {
        let hlo = "HloModule m\nENTRY e {\n  p = s32[3,3] parameter(0)\n  i = s32[3] parameter(1)\n  ROOT g = s32[3,3] gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}\n}\n";
        let out = eval(
            hlo,
            &[
                "s32[3,3] {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}",
                "s32[3] {2, 9, -4}",
            ],
        );
        assert_eq!(out, "s32[3,3] {{7, 8, 9}, {7, 8, 9}, {1, 2, 3}}");
    }

    #[test]
    fn gather_with_batching_dims() {
        // Per batch b, pick operand[b, idx[b]].
        let hlo = "HloModule m\nENTRY e {\n  p = f32[2,3] parameter(0)\n  i = s64[2,1] parameter(1)\n  ROOT g = f32[2] gather(p, i), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=1, slice_sizes={1,1}\n}\n";
        let out = eval(
            hlo,
            &["f32[2,3] {{1, 2, 3}, {4, 5, 6}}", "s64[2,1] {{2}, {0}}"],
        );
        assert_eq!(out, "f32[2] {3, 4}");
    }

    #[test]
    fn scatter_add_repeats_and_skips_out_of_bounds() {
        let hlo = "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  p = f32[3,2] parameter(0)\n  i = s32[3] parameter(1)\n  u = f32[3,2] parameter(2)\n  ROOT s = f32[3,2] scatter(p, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n}\n";
        let out = eval(
            hlo,
            &[
                "f32[3,2] {{1, 1}, {1, 1}, {1, 1}}",
                "s32[3] {2, 2, 3}",
                "f32[3,2] {{10, 20}, {100, 200}, {5, 5}}",
            ],
        );
        assert_eq!(out, "f32[3,2] {{1, 1}, {1, 1}, {111, 221}}");
    }

    #[test]
    fn variadic_scatter_interprets_the_combiner() {
        let hlo = "HloModule m\ncomb {\n  a = s32[] parameter(0)\n  b = f32[] parameter(1)\n  c = s32[] parameter(2)\n  d = f32[] parameter(3)\n  x = s32[] add(a, c)\n  y = f32[] multiply(b, d)\n  ROOT t = (s32[], f32[]) tuple(x, y)\n}\nENTRY e {\n  p = s32[4] parameter(0)\n  q = f32[4] parameter(1)\n  i = s32[3,1] parameter(2)\n  u = s32[3] parameter(3)\n  v = f32[3] parameter(4)\n  ROOT s = (s32[4], f32[4]) scatter(p, q, i, u, v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=comb\n}\n";
        let out = eval(
            hlo,
            &[
                "s32[4] {0, 0, 0, 0}",
                "f32[4] {1, 1, 1, 1}",
                "s32[3,1] {{1}, {3}, {1}}",
                "s32[3] {5, 6, 7}",
                "f32[3] {2, 3, 4}",
            ],
        );
        assert_eq!(out, "(s32[4] {0, 12, 0, 6}, f32[4] {1, 8, 1, 3})");
    }
}
