//! Scatter: see the family's module documentation for the algorithm.

use super::{
    Evaluator, IndexSpace, PAR_MIN_ELEMENTS, array, index_values, remaining_dims, same_batch_sizes,
    to_usize,
};
use crate::error::{Error, Result};
use crate::eval::elementwise::{Kernel, Kernels, Typed};
use crate::hlo::ast::{CompId, Instruction};
use crate::hlo::attrs::ScatterAttrs;
use crate::hlo::opcode::{BinaryOp, MovementOp, Op};
use crate::literal::{Array, ArrayData, DataView, Literal};
use crate::shape::{ArrayShape, Shape, row_major_strides};
use half::{bf16, f16};
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};

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
    /// The dimension numbers of a verified scatter.
    pub fn of(a: &ScatterAttrs) -> ScatterDims {
        ScatterDims {
            update_window_dims: a.update_window_dims.clone(),
            inserted_window_dims: a.inserted_window_dims.clone(),
            scatter_dims_to_operand_dims: a.scatter_dims_to_operand_dims.clone(),
            input_batching_dims: a.input_batching_dims.clone(),
            scatter_indices_batching_dims: a.scatter_indices_batching_dims.clone(),
            index_vector_dim: a.index_vector_dim,
        }
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
    let param_of = |i: usize| c.instructions.get(i).and_then(|p| p.parameter_number());
    // Only these two combiners have typed loops; anything else is interpreted.
    match &root.op {
        Op::Movement(MovementOp::Parameter(p)) if p.number == 1 => Some(Combiner::Replace),
        Op::Binary(BinaryOp::Add) if root.operands.len() == 2 => {
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
    // Where each operand dimension's start comes from: an index component, a batch position, or
    // nothing (0). Read per dimension rather than through a zeroed start vector: its reset (a
    // `memset` call) and the reads of what it had just written stalled a plan of 16384 indices.
    #[derive(Clone, Copy)]
    enum StartFrom {
        Zero,
        Component(usize),
        Batch(usize),
    }
    let mut from = vec![StartFrom::Zero; rank];
    for (k, &od) in d
        .scatter_dims_to_operand_dims
        .iter()
        .enumerate()
        .take(n_comp)
    {
        from[od as usize] = StartFrom::Component(k);
    }
    for &(od, gp) in &batch_pairs {
        from[od] = StartFrom::Batch(gp);
    }
    let starts: Vec<(Option<usize>, usize)> = crate::kernels::pool::fill_fresh(
        count,
        crate::kernels::pool::chunk_for(count, 4096),
        &|first, dst| {
            let mut multi = vec![0i64; space.gdims.len()];
            for (j, slot) in dst.iter_mut().enumerate() {
                slot.write({
                    let g = first + j;
                    let at = space.locate(g, &mut multi);
                    let (mut fits, mut offset) = (true, 0usize);
                    for i in 0..rank {
                        let s = match from[i] {
                            StartFrom::Zero => 0,
                            StartFrom::Component(k) => idx[at + k * space.component_stride],
                            StartFrom::Batch(gp) => multi[gp],
                        };
                        fits &= s >= 0 && s <= odims[i] - wsize[i];
                        offset = offset.wrapping_add((s as usize).wrapping_mul(ostrides[i]));
                    }
                    let ostart = fits.then_some(offset);
                    let ustart: usize = scatter_dims
                        .iter()
                        .zip(multi.iter())
                        .map(|(&u, &m)| m as usize * ustrides[u])
                        .sum();
                    (ostart, ustart)
                });
            }
        },
    );
    let (operand_start, update_start): (Vec<Option<usize>>, Vec<usize>) =
        starts.into_iter().unzip();

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
/// XLA's `add` of PRED values is their logical or (as the element-wise add here).
impl ScatterAdd for bool {
    fn scatter_add(self, u: Self) -> Self {
        self | u
    }
}
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

/// Where a scatter's update elements come from: stored, or computed a run at a time
/// (`fused::mapped`).
pub trait Updates<T>: Sync {
    /// Whether `run` needs a buffer to compute into.
    const COMPUTED: bool;
    /// Elements `u0..u0 + len` (`len` at most `RUN_PIECE`), computed into `buf` if need be;
    /// `None` when they cannot be had (a bug: the plan and the updates disagree).
    fn run<'a>(&'a self, u0: usize, len: usize, buf: &'a mut [MaybeUninit<T>]) -> Option<&'a [T]>;
}

impl<T: Copy + Sync> Updates<T> for [T] {
    const COMPUTED: bool = false;
    fn run<'a>(&'a self, u0: usize, len: usize, _: &'a mut [MaybeUninit<T>]) -> Option<&'a [T]> {
        self.get(u0..u0.checked_add(len)?)
    }
}

/// Updates computed at most this many at a time: a buffer that stays in L1.
pub const RUN_PIECE: usize = 1024;

/// Applies every update in `plan` order to `out` with `f(current, update)`; `false` when an update
/// run could not be had (then `out` is partly updated). The operand's linear range is split
/// among threads; each replays all updates and keeps those in its range, so every element sees
/// its updates in the sequential order.
pub fn scatter_typed<T: Copy + Send + Sync, U: Updates<T> + ?Sized>(
    out: &mut [T],
    updates: &U,
    plan: &ScatterPlan,
    f: impl Fn(T, T) -> T + Sync,
) -> bool {
    let work = plan.operand_start.len() * plan.window_rows.len() * plan.run;
    let threads = crate::kernels::pool::threads();
    let pieces = if work >= PAR_MIN_ELEMENTS { threads } else { 1 };
    let chunk = out.len().div_ceil(pieces).max(1);
    let failed = AtomicBool::new(false);
    crate::kernels::pool::for_each_chunk(out, chunk, &|lo, dst| {
        let hi = lo + dst.len();
        let os = plan.run_operand_stride;
        let mut buf = vec![MaybeUninit::<T>::uninit(); if U::COMPUTED { RUN_PIECE } else { 0 }];
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
                    let (a, b) = (lo.max(o0), hi.min(o0 + plan.run));
                    let mut p = a;
                    while p < b {
                        let e = b.min(p + RUN_PIECE);
                        let Some(src) = updates.run(u0 + (p - o0), e - p, &mut buf) else {
                            failed.store(true, Ordering::Relaxed);
                            return;
                        };
                        let acc = &mut dst[p - lo..e - lo];
                        if let ([x], [y]) = (&mut *acc, src) {
                            // One element (scalar updates): not worth a vector loop's call.
                            *x = f(*x, *y);
                        } else {
                            // The widest vector loop the CPU has (a row of an embedding table
                            // is one call).
                            crate::eval::elementwise::lanes::update(acc, src, &f);
                        }
                        p = e;
                    }
                } else {
                    let mut t0 = 0;
                    while t0 < plan.run {
                        let len = RUN_PIECE.min(plan.run - t0);
                        let Some(src) = updates.run(u0 + t0, len, &mut buf) else {
                            failed.store(true, Ordering::Relaxed);
                            return;
                        };
                        for (t, &x) in src.iter().enumerate() {
                            let o = o0 + (t0 + t) * os;
                            if (lo..hi).contains(&o) {
                                dst[o - lo] = f(dst[o - lo], x);
                            }
                        }
                        t0 += len;
                    }
                }
            }
        }
    });
    !failed.load(Ordering::Relaxed)
}

/// A copy of `operand` with `updates` combined in by `combiner`; `None` when an update run could
/// not be had.
fn combined<T: ScatterAdd + 'static, U: Updates<T> + ?Sized>(
    operand: &[T],
    updates: &U,
    plan: &ScatterPlan,
    combiner: Combiner,
) -> Option<Vec<T>> {
    let mut out = crate::kernels::pool::copy_fresh(operand);
    let ok = match combiner {
        Combiner::Add => scatter_typed(&mut out, updates, plan, |a, b| a.scatter_add(b)),
        Combiner::Replace => scatter_typed(&mut out, updates, plan, |_, b| b),
    };
    ok.then_some(out)
}

/// Scatter with a typed combiner on one operand: returns the operand with the updates combined
/// in. The data must all be of one element type.
pub fn scatter_fast(
    operand: &ArrayData,
    updates: &ArrayData,
    plan: &ScatterPlan,
    combiner: Combiner,
) -> Option<ArrayData> {
    macro_rules! go {
        ($($v:ident),*) => {
            match (operand, updates) {
                $((ArrayData::$v(o), ArrayData::$v(u)) => {
                    combined(o, &u[..], plan, combiner).map(|out| ArrayData::$v(out.into()))
                })*
                _ => None,
            }
        };
    }
    go!(
        Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64, C64, C128
    )
}

/// An operand of a mapped producer, as the evaluator holds it.
pub enum UpdateArg<'a> {
    /// An array of the updates' dimensions.
    Array(&'a Literal),
    /// A rank-0 value standing for its broadcast.
    Splat(&'a Literal),
}

/// A mapped producer's operand, as its kernel reads it.
#[derive(Clone, Copy)]
pub(super) enum Piece<'a> {
    /// Sliced run by run.
    Whole(DataView<'a>),
    /// One element, for every run.
    One(DataView<'a>),
}

impl<'a> Piece<'a> {
    fn at(self, u0: usize, len: usize) -> Option<DataView<'a>> {
        match self {
            Piece::Whole(v) => v.slice(u0, len),
            Piece::One(v) => Some(v),
        }
    }

    fn ty(self) -> crate::types::ElementType {
        match self {
            Piece::Whole(v) | Piece::One(v) => v.ty(),
        }
    }
}

/// Updates computed run by run by the producer's element kernel.
struct Mapped<'a, T> {
    kernel: Kernel<T>,
    args: [Piece<'a>; 2],
}

impl<T: Copy + Send + Sync> Updates<T> for Mapped<'_, T> {
    const COMPUTED: bool = true;
    fn run<'b>(&'b self, u0: usize, len: usize, buf: &'b mut [MaybeUninit<T>]) -> Option<&'b [T]> {
        let dst = buf.get_mut(..len)?;
        let (a, b) = (self.args[0].at(u0, len)?, self.args[1].at(u0, len)?);
        if !(self.kernel)(dst, &[a, b]) {
            return None;
        }
        // SAFETY: a kernel that accepts its operands writes every element of `dst`
        // (`elementwise::Kernels`); `MaybeUninit<T>` has `T`'s layout.
        Some(unsafe { &*(std::ptr::from_mut(dst) as *const [T]) })
    }
}

/// `scatter_fast` with the updates computed by `kernel` from `args` (`fused::mapped`); `None`
/// when the kernel's element type is not the operand's or a run could not be computed.
pub(super) fn scatter_fast_mapped(
    operand: &ArrayData,
    kernel: Typed<Kernels>,
    args: [Piece<'_>; 2],
    plan: &ScatterPlan,
    combiner: Combiner,
) -> Option<ArrayData> {
    macro_rules! go {
        ($($v:ident),*) => {
            match (operand, kernel) {
                $((ArrayData::$v(o), Typed::$v(kernel)) => {
                    combined(o, &Mapped { kernel, args }, plan, combiner)
                        .map(|out| ArrayData::$v(out.into()))
                })*
                _ => None,
            }
        };
    }
    go!(
        Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64, C64, C128
    )
}

/// A scatter whose updates are `op(args)` (`fused::mapped`): computed run by run in the typed
/// loops, or, where those do not apply, by evaluating `producer` in full and scattering its value
/// as the op-by-op path does.
pub(crate) fn eval_scatter_mapped(
    ev: &Evaluator,
    inst: &Instruction,
    attrs: &ScatterAttrs,
    [operand, indices]: [&Literal; 2],
    producer: &Instruction,
    op: BinaryOp,
    args: [UpdateArg<'_>; 2],
) -> Result<Literal> {
    fn view<'a>(a: &UpdateArg<'a>) -> Result<(Piece<'a>, Option<&'a [i64]>)> {
        Ok(match *a {
            UpdateArg::Array(l) => {
                let a = l
                    .as_array()
                    .ok_or_else(|| Error::internal("a tuple as updates"))?;
                (Piece::Whole(a.data.view()), Some(a.dims()))
            }
            UpdateArg::Splat(l) => {
                let a = l.as_array().filter(|a| a.data.len() == 1).ok_or_else(|| {
                    Error::internal("a mapped producer's scalar is not one element")
                })?;
                (Piece::One(a.data.view()), None)
            }
        })
    }
    let (pa, da) = view(&args[0])?;
    let (pb, db) = view(&args[1])?;
    let udims = da.or(db).map(<[i64]>::to_vec);
    let fast = (|| {
        let udims = udims.as_deref()?;
        if da.is_some() && db.is_some() && da != db {
            return None;
        }
        let o = operand.as_array()?;
        let plan = scatter_plan(
            o.dims(),
            array(&[indices], 0).ok()?,
            udims,
            &ScatterDims::of(attrs),
        )
        .ok()?;
        let combiner = recognise_combiner(ev, attrs.to_apply.0)?;
        let kernel = crate::eval::elementwise::binary_kernel(op, pa.ty(), pb.ty())?;
        let data = scatter_fast_mapped(&o.data, kernel, [pa, pb], &plan, combiner)?;
        let mut shape = ArrayShape::new(data.ty(), o.dims().to_vec());
        shape.layout = inst.shape.as_array().and_then(|a| a.layout.clone());
        Some(Array::from_data(shape, data).map(Literal::Array))
    })();
    if let Some(r) = fast {
        return r;
    }
    // The op-by-op way: the producer's whole value, then the scatter.
    let whole = |a: &UpdateArg<'_>| -> Result<Literal> {
        Ok(match *a {
            UpdateArg::Array(l) => l.clone(),
            UpdateArg::Splat(l) => {
                let a = l
                    .as_array()
                    .ok_or_else(|| Error::internal("a tuple as a scalar"))?;
                let n = udims
                    .as_deref()
                    .map_or(0, |d| d.iter().product::<i64>().max(0) as usize);
                let dims = udims.clone().unwrap_or_default();
                Literal::Array(Array::from_data(
                    ArrayShape::new(a.ty(), dims),
                    ArrayData::splat(a.data.get(0), n),
                )?)
            }
        })
    };
    let (a, b) = (whole(&args[0])?, whole(&args[1])?);
    let updates = crate::eval::elementwise::eval_binary(producer, op, &[&a, &b])
        .map_err(|e| e.at(&producer.name, producer.loc))?;
    eval_scatter(ev, inst, attrs, &[operand, indices, &updates])
}

pub(super) fn eval_scatter(
    ev: &Evaluator,
    inst: &Instruction,
    attrs: &ScatterAttrs,
    ops: &[&Literal],
) -> Result<Literal> {
    let n = ops.len().saturating_sub(1) / 2;
    let operands: Vec<&Array> = (0..n).map(|i| array(ops, i)).collect::<Result<_>>()?;
    let indices = array(ops, n)?;
    let updates: Vec<&Array> = (n + 1..ops.len())
        .map(|i| array(ops, i))
        .collect::<Result<_>>()?;
    let dims = ScatterDims::of(attrs);
    let comp = attrs.to_apply.0;
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
