//! Shape inference and constraints for gather and scatter.
//!
//! The rules follow XLA's `ShapeInference::InferGatherShape` / `InferScatterShape` (with the
//! batching-dimension rules of `ValidateGatherDimensionNumbers` /
//! `ValidateScatterDimensionNumbers`), checked in the same order, so that a module breaking several
//! rules reports the one XLA would report first. Every rule has its own label; the book pages
//! `ops/indexing/gather.md` and `ops/indexing/scatter.md` state each one.

use super::Ctx;
use crate::error::{Error, Result};
use crate::hlo::attrs::{GatherAttrs, ScatterAttrs};
use crate::hlo::opcode::IndexingOp;
use crate::shape::{ArrayShape, Shape};
use crate::{ensure, invalid};

pub fn infer(ctx: &Ctx, op: &IndexingOp) -> Result<Shape> {
    match op {
        IndexingOp::Gather(g) => gather(ctx, g),
        IndexingOp::Scatter(s) => scatter(ctx, s),
    }
}

fn strictly_increasing(dims: &[i64]) -> bool {
    dims.windows(2).all(|w| w[0] < w[1])
}

fn all_in_range(dims: &[i64], rank: usize) -> Option<i64> {
    dims.iter().copied().find(|&d| d < 0 || d as usize >= rank)
}

fn has_repeat(dims: &[i64]) -> bool {
    dims.iter().enumerate().any(|(i, d)| dims[..i].contains(d))
}

fn common(a: &[i64], b: &[i64]) -> Option<i64> {
    a.iter().copied().find(|d| b.contains(d))
}

/// `{a, b, c}` as the HLO text writes a list.
fn fmt(dims: &[i64]) -> String {
    let v: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("{{{}}}", v.join(","))
}

/// Checks a list of dimension numbers that must be strictly increasing and in `[0, rank)`.
fn sorted_in_range(dims: &[i64], rank: usize, op: &str, name: &str, of: &str) -> Result<()> {
    ensure!(
        strictly_increasing(dims),
        &format!("{op}.{name}_sorted"),
        "{name}={} must be strictly increasing (sorted, no repeats)",
        fmt(dims)
    );
    if let Some(d) = all_in_range(dims, rank) {
        invalid!(
            &format!("{op}.{name}_in_range"),
            "{name} holds {d}, outside [0, {rank}) (the rank of {of})"
        );
    }
    Ok(())
}

/// The index array's dimensions with the implicit trailing `1` added when `index_vector_dim`
/// equals its rank, and the dynamic flags to match.
fn expanded(indices: &ArrayShape, ivd: usize) -> (Vec<i64>, Vec<bool>) {
    let mut dims = indices.dims.clone();
    let mut dynamic = indices.dynamic.clone();
    if ivd == dims.len() {
        dims.push(1);
        dynamic.push(false);
    }
    (dims, dynamic)
}

/// Checks the index array's type and `index_vector_dim`; returns `index_vector_dim`.
fn index_vector_dim(op: &str, ivd: i64, indices: &ArrayShape, what: &str) -> Result<usize> {
    ensure!(
        indices.ty.is_integer(),
        &format!("{op}.indices_integer"),
        "{what} must have an integer element type, got {indices}"
    );
    ensure!(
        ivd >= 0 && ivd as usize <= indices.rank(),
        &format!("{op}.index_vector_dim_in_range"),
        "index_vector_dim={ivd} must lie in [0, {}] for {what} {indices}",
        indices.rank()
    );
    Ok(ivd as usize)
}

/// The batching-dimension rules gather and scatter share: the index-side list has no repeats, is
/// in range, avoids `index_vector_dim`, pairs one-to-one with the operand-side list, and paired
/// dimensions have equal sizes.
#[allow(clippy::too_many_arguments)]
fn batching_pairs(
    op: &str,
    operand: &ArrayShape,
    indices: &ArrayShape,
    ivd: usize,
    operand_side: (&str, &[i64]),
    index_side: (&str, &[i64]),
) -> Result<()> {
    let (oname, odims) = operand_side;
    let (iname, idims) = index_side;
    ensure!(
        !has_repeat(idims),
        &format!("{op}.{iname}_unique"),
        "{iname}={} lists a dimension twice",
        fmt(idims)
    );
    if let Some(d) = all_in_range(idims, indices.rank()) {
        invalid!(
            &format!("{op}.{iname}_in_range"),
            "{iname} holds {d}, outside [0, {}) (the rank of the index array)",
            indices.rank()
        );
    }
    ensure!(
        !idims.contains(&(ivd as i64)),
        &format!("{op}.{iname}_not_index_vector_dim"),
        "{iname}={} may not contain index_vector_dim={ivd}",
        fmt(idims)
    );
    ensure!(
        odims.len() == idims.len(),
        &format!("{op}.batching_dims_same_count"),
        "{oname}={} and {iname}={} must have the same number of entries",
        fmt(odims),
        fmt(idims)
    );
    for (k, (&o, &i)) in odims.iter().zip(idims).enumerate() {
        let (so, si) = (operand.dims[o as usize], indices.dims[i as usize]);
        ensure!(
            so == si,
            &format!("{op}.batching_dims_same_size"),
            "{oname}[{k}] is operand dimension {o} of size {so}, but {iname}[{k}] is index dimension {i} of size {si}"
        );
    }
    Ok(())
}

fn gather(ctx: &Ctx, g: &GatherAttrs) -> Result<Shape> {
    const OP: &str = "gather";
    ctx.arity(2)?;
    let operand = ctx.array(0)?;
    let indices = ctx.array(1)?;
    let ivd = index_vector_dim(OP, g.index_vector_dim, indices, "start_indices")?;
    let offset_dims = &g.offset_dims[..];
    let collapsed = &g.collapsed_slice_dims[..];
    let start_index_map = &g.start_index_map[..];
    let slice_sizes = &g.slice_sizes[..];
    let operand_batching = &g.operand_batching_dims[..];
    let indices_batching = &g.start_indices_batching_dims[..];
    let rank = operand.rank();
    let (idims, idyn) = expanded(indices, ivd);
    let out_rank = offset_dims.len() + idims.len() - 1;

    ensure!(
        strictly_increasing(offset_dims),
        "gather.offset_dims_sorted",
        "offset_dims={} must be strictly increasing (sorted, no repeats)",
        fmt(offset_dims)
    );
    if let Some(d) = all_in_range(offset_dims, out_rank) {
        invalid!(
            "gather.offset_dims_in_range",
            "offset_dims holds {d}, outside [0, {out_rank}) (the rank of the result: {} offset dimensions plus {} batch dimensions)",
            offset_dims.len(),
            idims.len() - 1
        );
    }
    ensure!(
        start_index_map.len() as i64 == idims[ivd],
        "gather.start_index_map_size",
        "start_index_map={} has {} entries, but start_indices has {} along index_vector_dim={ivd}",
        fmt(start_index_map),
        start_index_map.len(),
        idims[ivd]
    );
    if let Some(d) = all_in_range(start_index_map, rank) {
        invalid!(
            "gather.start_index_map_in_range",
            "start_index_map holds {d}, outside [0, {rank}) (the rank of the operand)"
        );
    }
    ensure!(
        !has_repeat(start_index_map),
        "gather.start_index_map_unique",
        "start_index_map={} names an operand dimension twice",
        fmt(start_index_map)
    );
    sorted_in_range(collapsed, rank, OP, "collapsed_slice_dims", "the operand")?;
    sorted_in_range(
        operand_batching,
        rank,
        OP,
        "operand_batching_dims",
        "the operand",
    )?;
    if let Some(d) = common(collapsed, operand_batching) {
        invalid!(
            "gather.collapsed_and_batching_disjoint",
            "operand dimension {d} is both in collapsed_slice_dims and in operand_batching_dims"
        );
    }
    if let Some(d) = common(start_index_map, operand_batching) {
        invalid!(
            "gather.start_index_map_not_batching",
            "operand dimension {d} is both in start_index_map and in operand_batching_dims"
        );
    }
    batching_pairs(
        OP,
        operand,
        indices,
        ivd,
        ("operand_batching_dims", operand_batching),
        ("start_indices_batching_dims", indices_batching),
    )?;
    ensure!(
        slice_sizes.len() == rank,
        "gather.slice_sizes_per_operand_dim",
        "slice_sizes={} needs one entry per operand dimension ({rank})",
        fmt(slice_sizes)
    );
    ensure!(
        offset_dims.len() + collapsed.len() + operand_batching.len() == rank,
        "gather.operand_dims_accounted",
        "every operand dimension must be an offset, collapsed or batching dimension: {} offset_dims + {} collapsed_slice_dims + {} operand_batching_dims != operand rank {rank}",
        offset_dims.len(),
        collapsed.len(),
        operand_batching.len()
    );
    for (i, (&s, &d)) in slice_sizes.iter().zip(&operand.dims).enumerate() {
        ensure!(
            s >= 0 && s <= d,
            "gather.slice_size_in_range",
            "slice_sizes[{i}]={s} must lie in [0, {d}] (operand dimension {i} has size {d})"
        );
    }
    for &c in collapsed {
        let s = slice_sizes[c as usize];
        ensure!(
            s <= 1,
            "gather.collapsed_slice_size",
            "collapsed dimension {c} must have slice size 0 or 1, got {s}"
        );
    }
    for &b in operand_batching {
        let s = slice_sizes[b as usize];
        ensure!(
            s <= 1,
            "gather.batching_slice_size",
            "operand batching dimension {b} must have slice size 0 or 1, got {s}"
        );
    }

    // Result: offset dimensions take the slice sizes of the operand dimensions that are neither
    // collapsed nor batching, in order; the others take the index array's dimensions other than
    // index_vector_dim, in order.
    let mut window = (0..rank)
        .filter(|d| !collapsed.contains(&(*d as i64)) && !operand_batching.contains(&(*d as i64)))
        .map(|d| (slice_sizes[d], false));
    let mut batch = (0..idims.len())
        .filter(|&d| d != ivd)
        .map(|d| (idims[d], idyn[d]));
    let mut dims = Vec::with_capacity(out_rank);
    let mut dynamic = Vec::with_capacity(out_rank);
    for i in 0..out_rank {
        let next = if offset_dims.contains(&(i as i64)) {
            window.next()
        } else {
            batch.next()
        };
        let (d, dy) = next.ok_or_else(|| Error::internal("gather result rank miscounted"))?;
        dims.push(d);
        // Offset dimensions are static (slice sizes are fixed); batch dimensions are as dynamic
        // as the index array's.
        dynamic.push(dy);
    }
    Ok(Shape::Array(ArrayShape {
        ty: operand.ty,
        dims,
        dynamic,
        layout: None,
    }))
}

fn scatter(ctx: &Ctx, sc: &ScatterAttrs) -> Result<Shape> {
    const OP: &str = "scatter";
    let n_all = ctx.operands.len();
    ensure!(
        n_all >= 3 && n_all % 2 == 1,
        "scatter.operand_count",
        "scatter takes N operands, the index array and N updates (2N+1 operands, N >= 1), got {n_all}"
    );
    let n = (n_all - 1) / 2;
    let operands: Vec<&ArrayShape> = (0..n).map(|i| ctx.array(i)).collect::<Result<_>>()?;
    let indices = ctx.array(n)?;
    let updates: Vec<&ArrayShape> = (n + 1..n_all)
        .map(|i| ctx.array(i))
        .collect::<Result<_>>()?;
    let operand = operands[0];
    let update = updates[0];
    for (i, o) in operands.iter().enumerate() {
        ensure!(
            o.dims == operand.dims,
            "scatter.operands_same_dims",
            "all operands must have the same dimensions: operand 0 is {operand}, operand {i} is {o}"
        );
    }
    for (i, u) in updates.iter().enumerate() {
        ensure!(
            u.dims == update.dims,
            "scatter.updates_same_dims",
            "all updates must have the same dimensions: updates 0 is {update}, updates {i} is {u}"
        );
    }
    for (i, (o, u)) in operands.iter().zip(&updates).enumerate() {
        ensure!(
            o.ty == u.ty,
            "scatter.update_type_matches",
            "updates {i} ({u}) must have the element type of operand {i} ({o})"
        );
    }
    let ivd = index_vector_dim(OP, sc.index_vector_dim, indices, "scatter_indices")?;

    // The update computation: N current values then N updates, all scalars, giving N scalars.
    let scalars: Vec<Shape> = operands.iter().map(|o| Shape::scalar(o.ty)).collect();
    let params: Vec<Shape> = scalars.iter().chain(&scalars).cloned().collect();
    let result = if n == 1 {
        scalars[0].clone()
    } else {
        Shape::Tuple(scalars.clone())
    };
    let comp = sc.to_apply;
    ctx.check_signature(comp, &params, &result, "scatter.computation_signature")?;

    let window_dims = &sc.update_window_dims[..];
    let inserted = &sc.inserted_window_dims[..];
    let to_operand = &sc.scatter_dims_to_operand_dims[..];
    let input_batching = &sc.input_batching_dims[..];
    let indices_batching = &sc.scatter_indices_batching_dims[..];
    let rank = operand.rank();
    let (idims, _) = expanded(indices, ivd);

    let want_rank = window_dims.len() + idims.len() - 1;
    ensure!(
        update.rank() == want_rank,
        "scatter.updates_rank",
        "updates must have rank {want_rank} ({} update_window_dims + {} scatter dimensions of the index array), got {update}",
        window_dims.len(),
        idims.len() - 1
    );
    sorted_in_range(
        window_dims,
        update.rank(),
        OP,
        "update_window_dims",
        "the updates",
    )?;
    sorted_in_range(inserted, rank, OP, "inserted_window_dims", "the operand")?;
    sorted_in_range(
        input_batching,
        rank,
        OP,
        "input_batching_dims",
        "the operand",
    )?;
    if let Some(d) = common(inserted, input_batching) {
        invalid!(
            "scatter.inserted_and_batching_disjoint",
            "operand dimension {d} is both in inserted_window_dims and in input_batching_dims"
        );
    }
    ensure!(
        window_dims.len() + inserted.len() + input_batching.len() == rank,
        "scatter.operand_dims_accounted",
        "every operand dimension must be a window, inserted or batching dimension: {} update_window_dims + {} inserted_window_dims + {} input_batching_dims != operand rank {rank}",
        window_dims.len(),
        inserted.len(),
        input_batching.len()
    );
    ensure!(
        to_operand.len() as i64 == idims[ivd],
        "scatter.scatter_dims_to_operand_dims_size",
        "scatter_dims_to_operand_dims={} has {} entries, but scatter_indices has {} along index_vector_dim={ivd}",
        fmt(to_operand),
        to_operand.len(),
        idims[ivd]
    );
    if let Some(d) = all_in_range(to_operand, rank) {
        invalid!(
            "scatter.scatter_dims_to_operand_dims_in_range",
            "scatter_dims_to_operand_dims holds {d}, outside [0, {rank}) (the rank of the operand)"
        );
    }
    ensure!(
        !has_repeat(to_operand),
        "scatter.scatter_dims_to_operand_dims_unique",
        "scatter_dims_to_operand_dims={} names an operand dimension twice",
        fmt(to_operand)
    );
    if let Some(d) = common(to_operand, input_batching) {
        invalid!(
            "scatter.scatter_dims_to_operand_dims_not_batching",
            "operand dimension {d} is both in scatter_dims_to_operand_dims and in input_batching_dims"
        );
    }
    batching_pairs(
        OP,
        operand,
        indices,
        ivd,
        ("input_batching_dims", input_batching),
        ("scatter_indices_batching_dims", indices_batching),
    )?;

    // Window dimensions of the updates may not exceed the operand dimensions they map to.
    let operand_window: Vec<usize> = (0..rank)
        .filter(|d| !inserted.contains(&(*d as i64)) && !input_batching.contains(&(*d as i64)))
        .collect();
    for (k, (&w, &od)) in window_dims.iter().zip(&operand_window).enumerate() {
        let (su, so) = (update.dims[w as usize], operand.dims[od]);
        ensure!(
            su <= so,
            "scatter.window_bound",
            "update window dimension {w} (update_window_dims[{k}]) has size {su}, larger than operand dimension {od} of size {so}"
        );
    }
    // Scatter dimensions of the updates match the index array's dimensions other than
    // index_vector_dim, in order.
    let scatter_dims = (0..update.rank()).filter(|d| !window_dims.contains(&(*d as i64)));
    let index_dims = (0..idims.len()).filter(|&d| d != ivd);
    for (ud, id) in scatter_dims.zip(index_dims) {
        let (su, si) = (update.dims[ud], idims[id]);
        ensure!(
            su == si,
            "scatter.scatter_dim_bound",
            "update scatter dimension {ud} has size {su}, but the matching scatter_indices dimension {id} has size {si}"
        );
    }

    let shapes: Vec<Shape> = operands
        .iter()
        .map(|o| Shape::Array(o.with_type(o.ty)))
        .collect();
    Ok(if n == 1 {
        shapes.into_iter().next().unwrap_or(Shape::Tuple(vec![]))
    } else {
        Shape::Tuple(shapes)
    })
}
