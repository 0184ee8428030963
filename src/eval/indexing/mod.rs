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

mod gather;
mod scatter;

pub use gather::{GatherDims, gather};
pub(crate) use scatter::eval_scatter_mapped;
pub use scatter::{
    Combiner, RUN_PIECE, ScatterDims, ScatterPlan, UpdateArg, Updates, recognise_combiner,
    scatter_fast, scatter_plan, scatter_typed,
};

use super::{Evaluator, array};
use crate::error::{Error, Result};
use crate::hlo::ast::Instruction;
use crate::hlo::opcode::IndexingOp;
use crate::literal::{Array, ArrayData, Literal};
use crate::shape::row_major_strides;

pub fn eval(
    ev: &Evaluator,
    inst: &Instruction,
    op: &IndexingOp,
    ops: &[&Literal],
) -> Result<Literal> {
    match op {
        IndexingOp::Gather(g) => {
            let dims = GatherDims::of(g);
            let mut out = gather(array(ops, 0)?, array(ops, 1)?, &dims)?;
            out.shape.layout = Evaluator::result_array_shape(inst)?.layout.clone();
            Ok(Literal::Array(out))
        }
        IndexingOp::Scatter(s) => scatter::eval_scatter(ev, inst, s, ops),
    }
}

// ------------------------------------------------------------------------------------ shared

/// The values of an integer index array, widened to i64 (u64 values above i64::MAX saturate;
/// they are out of range either way, and gather clamps / scatter skips them the same).
pub(super) fn index_values(a: &Array) -> Result<Vec<i64>> {
    Ok(match &a.data {
        ArrayData::S8(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::S16(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::S32(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::S64(v) => v.to_vec(),
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
pub(super) struct IndexSpace {
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
            if d == 0 {
                // What is left is the outermost index itself (`g < count()`): no division, which
                // was most of a plan's cost for a list of indices (one batch dimension).
                multi[0] = g as i64;
                at += g * self.gstride_in_indices[0];
                break;
            }
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
pub(super) fn remaining_dims(rank: usize, a: &[i64], b: &[i64]) -> Vec<usize> {
    (0..rank)
        .filter(|&d| !a.contains(&(d as i64)) && !b.contains(&(d as i64)))
        .collect()
}

pub(super) fn to_usize(dims: &[i64]) -> Vec<usize> {
    dims.iter().map(|&d| d.max(0) as usize).collect()
}

/// Paired batching dimensions must have equal actual sizes (the verifier checked the declared
/// ones; only dynamic shapes can differ at run time).
pub(super) fn same_batch_sizes(
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
pub(super) const PAR_MIN_ELEMENTS: usize = 1 << 15;

#[cfg(test)]
mod tests;
