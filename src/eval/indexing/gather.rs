//! Gather: see the family's module documentation for the algorithm.

use super::{IndexSpace, PAR_MIN_ELEMENTS, index_values, remaining_dims, same_batch_sizes};
use crate::error::{Error, Result};
use crate::hlo::attrs::GatherAttrs;
use crate::literal::{Array, ArrayData, NativeType};
use crate::shape::{ArrayShape, row_major_strides};
use crate::with_data;
use std::mem::MaybeUninit;

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

impl GatherDims {
    /// The dimension numbers of a verified gather.
    pub fn of(a: &GatherAttrs) -> GatherDims {
        GatherDims {
            offset_dims: a.offset_dims.clone(),
            collapsed_slice_dims: a.collapsed_slice_dims.clone(),
            start_index_map: a.start_index_map.clone(),
            operand_batching_dims: a.operand_batching_dims.clone(),
            start_indices_batching_dims: a.start_indices_batching_dims.clone(),
            index_vector_dim: a.index_vector_dim,
            slice_sizes: a.slice_sizes.clone(),
        }
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
    // A collapsed dimension of slice size 0 makes every slice empty while the result keeps its
    // elements (the collapsed dimension is not in the result): they have no source element, and
    // XLA:CPU (jaxlib 0.10.2) returns zeros for them. Reading would also overrun: the start clamp
    // allows the dimension's full size.
    let empty_slice = d
        .collapsed_slice_dims
        .iter()
        .any(|&c| d.slice_sizes[c as usize] == 0);
    if total == 0 || empty_slice {
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
    let count = space.count();
    let starts: Vec<usize> = crate::kernels::pool::fill_fresh(
        count,
        crate::kernels::pool::chunk_for(count, 4096),
        &|first, dst| {
            let mut multi = vec![0i64; space.gdims.len()];
            for (j, slot) in dst.iter_mut().enumerate() {
                let at = space.locate(first + j, &mut multi);
                let mut off = 0usize;
                for k in 0..n_comp {
                    let s = idx[at + k * space.component_stride];
                    let m = d.start_index_map[k] as usize;
                    off += s.clamp(0, clamp_hi[k].max(0)) as usize * ostrides[m];
                }
                for &(stride, gp) in &batch_pairs {
                    off += multi[gp] as usize * stride;
                }
                slot.write(off);
            }
        },
    );

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
    // A recycled buffer when the pool has one of the size (`literal::pages`): a result allocated
    // outside the pool grew the pool by one buffer per call without ever taking one back. Its
    // elements are written once, by the gather: zeroing them first was a single-threaded pass
    // as long as the gather itself.
    let mut out: Vec<T> = crate::literal::pages::fresh_vec(total);
    let run = dims.last().map_or(1, |&r| r as usize);
    if run == 0 || !total.is_multiple_of(run) {
        // No element (or, impossibly for a shape, a partial row): nothing to leave unwritten.
        out.resize(total, T::zero());
        return T::into_data(out);
    }
    gather_rows(
        src,
        &mut out.spare_capacity_mut()[..total],
        dims,
        g_step,
        o_step,
        starts,
    );
    // SAFETY: `gather_rows` splits the `total` elements into chunks of whole rows of `run`
    // (`total` is a multiple of `run`, checked above) and writes every element of every row; a
    // panic inside would have left through `for_each_chunk` before this point.
    unsafe { out.set_len(total) };
    T::into_data(out)
}

/// Fills `out` (row-major over `dims`) with `src[starts[g] + o]`, where `g` and `o` are the dot
/// products of the output index with `g_step` and `o_step`. Works in runs along the last
/// dimension; output chunks are filled in parallel.
fn gather_rows<T: Copy + Send + Sync>(
    src: &[T],
    out: &mut [MaybeUninit<T>],
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
    crate::kernels::pool::for_each_chunk(out, rows_per_chunk * run, &|start, chunk| {
        let first_row = start / run.max(1);
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
                crate::kernels::pool::write_slice(dst, &src[s..s + run]);
            } else if rg == 0 {
                let s = starts[g] + o;
                for (t, x) in dst.iter_mut().enumerate() {
                    x.write(src[s + t * ro]);
                }
            } else {
                for (t, x) in dst.iter_mut().enumerate() {
                    x.write(src[starts[g + t * rg] + o + t * ro]);
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
