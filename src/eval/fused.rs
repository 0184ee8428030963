//! Loop fusion of element-wise chains: an evaluation strategy whose naive twin is evaluating one
//! instruction at a time.
//!
//! Why: op by op, every instruction writes a fresh array of its full size and the next one reads
//! it back. On arrays far larger than the caches a chain of cheap element-wise ops (the threefry
//! random-bit generator is a hundred shifts, xors and adds on the same four million `u32`s) then
//! costs a trip to memory per op and runs at memory speed many times over. XLA compiles such a
//! chain into one loop; this module does the interpreter's equivalent. A plan per computation
//! (`Plan::new`, made once and cached by the evaluator, since a loop body is called many times)
//! groups element-wise instructions of the same large shape; when the evaluation reaches a
//! group's last member it computes the whole group tile by tile, each tile small enough that its
//! intermediate values stay in the core's caches, and only the group's outputs are written to
//! memory. The members' own values are never materialised.
//!
//! Exactness: each member is computed on a tile by the very functions the op-by-op path calls on
//! the whole array (`elementwise::unary_data`, `binary_data`, `compare_data`, `select_data`,
//! `clamp_data`, `convert_data`, ...). Those compute each element from the same-index elements of
//! their operands alone, so a tile of the result is bit for bit the same slice of the unfused
//! result. Array literals hold their elements in logical order whatever their layout
//! (`literal`), so element `i` of every operand tile is the same logical element even when the
//! shapes' layouts differ.
//!
//! What fuses (`Plan::new`): the element-wise ops (`Op::Unary`, `Op::Binary`, `Op::Elementwise`)
//! whose result has at least `MIN_ELEMENTS` elements and no dynamic dimension, and whose operands
//! all have the result's dimensions (or are the rank-0 predicate of `select` or bounds of
//! `clamp`). Some operands a group makes itself instead of reading: a `broadcast` of a rank-0
//! value (that value repeated), a `broadcast` of a small array (its elements gathered), an
//! integer `iota`. Those are cheap to remake, so several groups may share one; it is materialised
//! only when something outside the groups reads it.
//!
//! How groups form: from the last fusable instruction backwards, a group gathers what is
//! connected to it through fusable instructions of the same dimensions (producers, consumers,
//! and other readers of an array read from memory, which the group then reads once), then drops
//! every candidate that something outside the group reads before the group's last member, and
//! that candidate's producers in turn. A member read outside the group is one of its outputs (a
//! group may have several); the others are read only inside it. Outside readers all come after
//! the last member, where the whole group runs, so the group never needs a value computed from
//! one of its own outputs. A lone op with no generated operand gains nothing and is left alone.
//! (XLA's producer-consumer and sibling fusion make the same kind of groups.)
//!
//! How a group runs: a group made only of binary ops runs chunk by chunk through kernels kept
//! from the op-by-op element functions (`chunks`); any other group runs tile by tile through the
//! op-by-op functions themselves (`run_tile`).
//!
//! A scatter's updates made by one element-wise op that only the scatter reads are not a group's:
//! the scatter computes them run by run as it applies them (`mapped`).
//!
//! Where outputs go (`lend_inputs`): an input read in full whose last reader is the group, and
//! that no other value shares, holds an output of its type in place, each tile written once the
//! whole tile has been computed; other outputs get fresh buffers. The values are the same either
//! way; only where they are stored changes.

use super::Evaluator;
use super::elementwise;
use crate::error::{Error, Result};
use crate::hlo::ast::{Computation, Instruction};
use crate::hlo::opcode::{ElementwiseOp, IndexingOp, MovementOp, Op};
use crate::kernels::pool;
use crate::literal::pages;
use crate::literal::{Array, ArrayData, DataView, Literal, NativeType};
use crate::types::ElementType;
use std::mem::MaybeUninit;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

// The plan (which instructions form groups) is in its own file; the running below, the other
// parts and the tests see it as part of this module.
use plan::*;
pub use plan::{Bcast, Group, Iota, Plan, Role, Source, Step};

/// Groups smaller than this are not worth tiling: their arrays already sit in the caches.
pub const MIN_ELEMENTS: usize = 1 << 16;

/// Elements per tile: a few thousand, so that a tile of every live intermediate (8 to 64 KiB
/// each) stays in the core's L2 cache while the per-op overhead (one call and one small
/// allocation per member per tile) stays small next to the work on the tile. (2048 and 4096
/// measured no faster on the benchmark programs; 16384 slower.)
pub const TILE: usize = 8192;

/// One output's buffer, written tile by tile from several threads: a fresh one, or the buffer of
/// an input the group is the last to read (`lend_inputs`).
trait OutBuf: Send {
    /// The buffer's elements in consecutive pieces of `span` (the last may be shorter).
    fn parts(&mut self, span: usize) -> Vec<Box<dyn Sink + '_>>;
    /// The written buffer.
    ///
    /// # Safety
    /// Every element must have been written through `parts`.
    unsafe fn into_data(self: Box<Self>) -> ArrayData;
}

/// A piece of an output buffer.
trait Sink: Send {
    /// Writes a tile value of `len` elements at offset `at` of the piece.
    fn write(&mut self, at: usize, len: usize, data: DataView<'_>) -> Result<()>;
    /// Elements `at..at + len` of the piece when the buffer is a lent input's (its values until
    /// the tile is written), else `None`.
    fn read(&self, at: usize, len: usize) -> Option<DataView<'_>>;
    /// Where a member of type `ty` may write elements `at..at + len` of the piece itself, in
    /// place of a scratch chunk copied here afterwards; `None` for another type or a range
    /// outside the piece. (A lent input's values there are lost: the caller checks that no
    /// member still reads them.)
    fn direct(&mut self, at: usize, len: usize, ty: ElementType) -> Option<*mut u8>;
}

struct Out<T> {
    v: Vec<T>,
    n: usize,
    /// Whether `v` is a lent input's buffer: `n` initialised elements, read before overwritten.
    lent: bool,
}

struct Part<'a, T> {
    s: &'a mut [MaybeUninit<T>],
    lent: bool,
}

impl<T: NativeType> Sink for Part<'_, T> {
    fn write(&mut self, at: usize, len: usize, data: DataView<'_>) -> Result<()> {
        let src = T::of_view(data)
            .filter(|s| s.len() == len)
            .ok_or_else(|| Error::internal("a fused value has the wrong type or length"))?;
        let dst = self
            .s
            .get_mut(at..at + len)
            .ok_or_else(|| Error::internal("a fused tile lies outside its output"))?;
        // One `memcpy` (the C library's widest moves for this CPU): the element loop compiled
        // for the baseline target moved 16 bytes a step, and this copy of each chunk to memory
        // was a seventh of the threefry program's time (Zen 4).
        // SAFETY: `MaybeUninit<T>` has `T`'s layout, and `src` is `len` initialised `T`s.
        let src = unsafe { std::slice::from_raw_parts(src.as_ptr().cast::<MaybeUninit<T>>(), len) };
        dst.copy_from_slice(src);
        Ok(())
    }

    fn read(&self, at: usize, len: usize) -> Option<DataView<'_>> {
        if !self.lent {
            return None;
        }
        let s = self.s.get(at..at.checked_add(len)?)?;
        // SAFETY: a lent buffer's elements are all initialised (the input's values, or values
        // this group wrote over them, which are initialised too), and `MaybeUninit<T>` has
        // `T`'s layout.
        Some(T::view(unsafe { &*(std::ptr::from_ref(s) as *const [T]) }))
    }

    fn direct(&mut self, at: usize, len: usize, ty: ElementType) -> Option<*mut u8> {
        if ty != T::TY {
            return None;
        }
        Some(
            self.s
                .get_mut(at..at.checked_add(len)?)?
                .as_mut_ptr()
                .cast(),
        )
    }
}

impl<T: NativeType> OutBuf for Out<T> {
    fn parts(&mut self, span: usize) -> Vec<Box<dyn Sink + '_>> {
        let (n, lent) = (self.n, self.lent);
        let all: &mut [MaybeUninit<T>] = if lent {
            // SAFETY: a lent vector holds `n` initialised elements; `MaybeUninit<T>` has `T`'s
            // layout, and only initialised values are ever written through the pieces.
            unsafe {
                std::slice::from_raw_parts_mut(self.v.as_mut_ptr().cast::<MaybeUninit<T>>(), n)
            }
        } else {
            &mut self.v.spare_capacity_mut()[..n]
        };
        all.chunks_mut(span.max(1))
            .map(|s| Box::new(Part { s, lent }) as Box<dyn Sink + '_>)
            .collect()
    }

    unsafe fn into_data(mut self: Box<Self>) -> ArrayData {
        if !self.lent {
            // SAFETY: the capacity is at least `n` (`fresh_vec`), and the caller guarantees
            // that all `n` elements were written.
            unsafe { self.v.set_len(self.n) };
        }
        T::into_data(std::mem::take(&mut self.v))
    }
}

/// A buffer for an output of `ty` and `n` elements: `lent`'s when it is one of that type and
/// size that no other value shares, else a fresh one.
fn out_buf(ty: ElementType, n: usize, lent: Option<ArrayData>) -> Result<Box<dyn OutBuf>> {
    fn mk<T: NativeType>(n: usize, lent: Option<ArrayData>) -> Box<dyn OutBuf> {
        let reuse = lent
            .filter(|d| !d.is_shared())
            .and_then(|mut d| T::vec_mut(&mut d).map(std::mem::take))
            .filter(|v| v.len() == n);
        Box::new(match reuse {
            Some(v) => Out::<T> { v, n, lent: true },
            None => Out::<T> {
                v: pages::fresh_vec(n),
                n,
                lent: false,
            },
        })
    }
    use crate::literal::{C64, C128};
    use half::{bf16, f16};
    Ok(match ty {
        ElementType::Pred => mk::<bool>(n, lent),
        ElementType::S8 => mk::<i8>(n, lent),
        ElementType::S16 => mk::<i16>(n, lent),
        ElementType::S32 => mk::<i32>(n, lent),
        ElementType::S64 => mk::<i64>(n, lent),
        ElementType::U8 => mk::<u8>(n, lent),
        ElementType::U16 => mk::<u16>(n, lent),
        ElementType::U32 => mk::<u32>(n, lent),
        ElementType::U64 => mk::<u64>(n, lent),
        ElementType::F16 => mk::<f16>(n, lent),
        ElementType::BF16 => mk::<bf16>(n, lent),
        ElementType::F32 => mk::<f32>(n, lent),
        ElementType::F64 => mk::<f64>(n, lent),
        ElementType::C64 => mk::<C64>(n, lent),
        ElementType::C128 => mk::<C128>(n, lent),
        ElementType::Token => return Err(Error::internal("a fused output of token type")),
    })
}

/// Takes from `values` the inputs read in full that the group is the last to read (`dying`) and
/// that no other value shares, one per output of the same element type; returns each output's
/// lent buffer and, per `Group::fulls` entry, the output it was lent to.
///
/// Why: the group's outputs are written tile by tile right after the tile's inputs were read, so
/// writing them over a dying input's elements stores into cache lines just loaded, where a fresh
/// buffer's stores miss and fetch each line from memory first (a threefry round's two 4 MiB
/// outputs spent a fifth of the program's time so). XLA's buffer assignment reuses a dying
/// operand's buffer for a fusion's output the same way.
fn lend_inputs(
    g: &Group,
    out_tys: &[ElementType],
    values: &mut [Option<Literal>],
    dying: &dyn Fn(usize) -> bool,
) -> (Vec<Option<ArrayData>>, Vec<Option<usize>>) {
    let mut lent: Vec<Option<ArrayData>> = vec![None; out_tys.len()];
    let mut to: Vec<Option<usize>> = vec![None; g.fulls.len()];
    for (j, &o) in g.fulls.iter().enumerate() {
        // An input the group reads in two ways (or lists twice) keeps its buffer.
        if !dying(o) || g.inputs().filter(|&x| x == o).count() != 1 {
            continue;
        }
        let data = match values.get(o) {
            Some(Some(Literal::Array(a))) if !a.data.is_shared() && a.data.len() == g.elements => {
                &a.data
            }
            _ => continue,
        };
        let Some(k) = (0..out_tys.len()).find(|&k| lent[k].is_none() && out_tys[k] == data.ty())
        else {
            continue;
        };
        if let Some(Some(Literal::Array(a))) = values.get_mut(o).map(Option::take) {
            lent[k] = Some(a.data);
            to[j] = Some(k);
        }
    }
    (lent, to)
}

/// What a group reads from outside, resolved once per evaluation.
struct Inputs<'v> {
    /// `None` for an input lent to an output (`lent_to`), read from that output's buffer.
    fulls: Vec<Option<&'v ArrayData>>,
    /// Per `fulls` entry, the output whose buffer holds it.
    lent_to: Vec<Option<usize>>,
    /// Per output, whether its buffer is a lent input's, so its tiles are written only once the
    /// whole tile is computed (a later member may still read the input). Writing at once where
    /// no later member reads it measured no faster on the tile path, where it is a copy either
    /// way; the chunk path's members write such an output in place (`chunks::run_tile`).
    lent: Vec<bool>,
    bcasts: Vec<&'v ArrayData>,
    /// The rank-0 values, as one-element arrays: read as they are by the members that broadcast
    /// them themselves (`narrow_splats`), repeated into tiles for the others.
    splats: Vec<&'v ArrayData>,
    scalars: Vec<&'v ArrayData>,
}

/// One task's tile values, reused from tile to tile.
struct TileState {
    steps: Vec<Option<ArrayData>>,
    iotas: Vec<Option<ArrayData>>,
    bcasts: Vec<Option<ArrayData>>,
    /// Tiles of the rank-0 inputs, made for the members that read them as tiles (`narrow_splats`
    /// says which do not), each as long as the tile it was made for.
    splats: Vec<Option<ArrayData>>,
    /// Tiles of outputs whose writes wait for the end of the tile (`Inputs::lent`).
    pending: Vec<(usize, ArrayData)>,
}

/// How a task runs its tiles: through chunk kernels, or member by member on whole tiles.
enum Runner<'c> {
    Chunks(&'c chunks::Compiled, chunks::Slots),
    Tiles(TileState),
}

/// Evaluates group `g` of `comp` on the values computed so far; returns each output's value with
/// its instruction. Inputs for which `dying` holds (nothing reads them after the group) may be
/// taken from `values` to hold outputs. An error names the member that failed.
pub fn run_group(
    comp: &Computation,
    g: &Group,
    values: &mut [Option<Literal>],
    dying: &dyn Fn(usize) -> bool,
) -> Result<Vec<(usize, Literal)>> {
    let last_inst = comp
        .instructions
        .get(g.steps.last().map_or(0, |s| s.inst))
        .ok_or_else(|| Error::internal("a fused group without members"))?;
    let out_tys: Vec<ElementType> = g
        .outputs
        .iter()
        .map(|&o| Evaluator::result_array_shape(&comp.instructions[o]).map(|s| s.ty))
        .collect::<Result<_>>()?;
    let (lent, lent_to) = lend_inputs(g, &out_tys, values, dying);
    let values: &[Option<Literal>] = values;
    let value = |o: usize, len: Option<usize>| -> Result<&ArrayData> {
        values
            .get(o)
            .and_then(|v| v.as_ref())
            .and_then(Literal::as_array)
            .map(|a| &a.data)
            .filter(|d| len.is_none_or(|l| d.len() == l))
            .ok_or_else(|| {
                Error::internal(format!(
                    "input {o} of the fused group ending at `{}` is missing or of the wrong size",
                    last_inst.name
                ))
            })
    };
    let n = g.elements;
    let inputs = Inputs {
        fulls: g
            .fulls
            .iter()
            .zip(&lent_to)
            .map(|(&o, to)| match to {
                Some(_) => Ok(None),
                None => value(o, Some(n)).map(Some),
            })
            .collect::<Result<_>>()?,
        lent: lent.iter().map(Option::is_some).collect(),
        lent_to,
        splats: g
            .splats
            .iter()
            .map(|&o| value(o, Some(1)))
            .collect::<Result<_>>()?,
        scalars: g
            .scalars
            .iter()
            .map(|&o| value(o, Some(1)))
            .collect::<Result<_>>()?,
        bcasts: g
            .bcasts
            .iter()
            .map(|b| value(b.src, None))
            .collect::<Result<_>>()?,
    };
    // Every index a broadcast gathers must lie inside its operand.
    for (b, d) in g.bcasts.iter().zip(&inputs.bcasts) {
        let last: usize = b
            .dims
            .iter()
            .zip(&b.strides)
            .map(|(&size, &stride)| (size - 1) * stride)
            .sum();
        if last >= d.len() {
            return Err(Error::internal(format!(
                "the operand of a fused broadcast in the group ending at `{}` is too short",
                last_inst.name
            )));
        }
    }
    let compiled = chunks::compile(comp, g);
    let tile = TILE;
    let tiles = n.div_ceil(tile);
    // A few tasks per thread, each a run of consecutive tiles.
    let per_task = tiles.div_ceil((pool::threads() * 4).clamp(1, tiles.max(1)));
    let tasks = tiles.div_ceil(per_task.max(1));
    let span = per_task * tile;
    let mut outs: Vec<Box<dyn OutBuf>> = out_tys
        .iter()
        .zip(lent)
        .map(|(&ty, lent)| out_buf(ty, n, lent))
        .collect::<Result<_>>()?;
    let error: Mutex<Option<(usize, Error)>> = Mutex::new(None);
    {
        let mut sinks: Vec<Mutex<Vec<Box<dyn Sink + '_>>>> =
            (0..tasks).map(|_| Mutex::new(vec![])).collect();
        for out in outs.iter_mut() {
            for (t, part) in out.parts(span).into_iter().enumerate() {
                if let Some(s) = sinks.get_mut(t).and_then(|m| m.get_mut().ok()) {
                    s.push(part);
                }
            }
        }
        let failed = AtomicBool::new(false);
        let record = |tile: usize, e: Error| {
            failed.store(true, Ordering::Relaxed);
            if let Ok(mut slot) = error.lock()
                && slot.as_ref().is_none_or(|(t, _)| tile < *t)
            {
                *slot = Some((tile, e));
            }
        };
        pool::run_tasks(tasks, &|t| {
            let mut sinks = match sinks[t].lock() {
                Ok(s) => s,
                Err(_) => return record(t * per_task, Error::internal("a fused task's lock")),
            };
            if sinks.len() != g.outputs.len() {
                return record(
                    t * per_task,
                    Error::internal("a fused task lacks an output"),
                );
            }
            // The task's scratch for either way of running the group, made once for its tiles.
            let mut runner = match &compiled {
                Some(c) => Runner::Chunks(c, chunks::Slots::new(c)),
                None => Runner::Tiles(TileState {
                    steps: vec![None; g.steps.len()],
                    iotas: vec![None; g.iotas.len()],
                    bcasts: vec![None; g.bcasts.len()],
                    splats: vec![None; g.splats.len()],
                    pending: vec![],
                }),
            };
            for k in t * per_task..((t + 1) * per_task).min(tiles) {
                if failed.load(Ordering::Relaxed) {
                    return;
                }
                let start = k * tile;
                let len = tile.min(n - start);
                let at = start - t * span;
                let sinks = &mut sinks[..];
                let done = match &mut runner {
                    Runner::Chunks(c, slots) => {
                        chunks::run_tile(comp, c, g, &inputs, slots, start, len, at, sinks)
                    }
                    Runner::Tiles(state) => {
                        run_tile(comp, g, &inputs, state, start, len, at, sinks)
                    }
                };
                if let Err(e) = done {
                    return record(k, e);
                }
            }
        });
    }
    if let Some((_, e)) = error.into_inner().ok().flatten() {
        return Err(e);
    }
    outs.into_iter()
        .zip(&g.outputs)
        .map(|(out, &o)| {
            let inst = &comp.instructions[o];
            // SAFETY: every task ran all its tiles without an error (else we returned above, and
            // a panic would have left through `run_tasks`), the tiles cover `0..n`, and each
            // tile wrote each output's `len` elements at its own offset (`Sink::write` refuses
            // a value of any other length).
            let data = unsafe { out.into_data() };
            let shape = Evaluator::result_shape_with_dims(inst, &g.dims)?;
            Ok((o, Literal::Array(Array::from_data(shape, data)?)))
        })
        .collect()
}

/// Computes one tile of every member and writes the outputs' tiles.
#[allow(clippy::too_many_arguments)]
fn run_tile(
    comp: &Computation,
    g: &Group,
    inputs: &Inputs,
    st: &mut TileState,
    start: usize,
    len: usize,
    at: usize,
    sinks: &mut [Box<dyn Sink + '_>],
) -> Result<()> {
    for (s, step) in g.steps.iter().enumerate() {
        let inst = &comp.instructions[step.inst];
        let narrow = narrow_splats(inst, &step.operands);
        for src in &step.operands {
            match *src {
                Source::Splat(j)
                    if !narrow && st.splats[j].as_ref().is_none_or(|t| t.len() != len) =>
                {
                    let v = inputs.splats.get(j).ok_or_else(|| {
                        Error::internal(format!("a fused operand of `{}` is missing", inst.name))
                    })?;
                    st.splats[j] = Some(ArrayData::splat(v.get(0), len));
                }
                Source::Iota(j) if st.iotas[j].is_none() => {
                    st.iotas[j] = Some(iota_tile(&g.iotas[j], start, len)?);
                }
                Source::Bcast(j) if st.bcasts[j].is_none() => {
                    st.bcasts[j] = Some(bcast_tile(&g.bcasts[j], inputs.bcasts[j], start, len));
                }
                _ => {}
            }
        }
        let arg = |k: usize| -> Result<DataView<'_>> {
            let missing =
                || Error::internal(format!("a fused operand of `{}` is missing", inst.name));
            match step.operands.get(k).ok_or_else(missing)? {
                Source::Step(i) => st.steps[*i]
                    .as_ref()
                    .map(ArrayData::view)
                    .ok_or_else(missing),
                // An input is read where it lies: the caller checked its length.
                Source::Full(j) => match inputs.lent_to.get(*j) {
                    Some(Some(k)) => sinks.get(*k).and_then(|s| s.read(at, len)),
                    _ => inputs
                        .fulls
                        .get(*j)
                        .copied()
                        .flatten()
                        .and_then(|d| d.view().slice(start, len)),
                }
                .ok_or_else(missing),
                Source::Splat(j) if narrow => {
                    inputs.splats.get(*j).map(|d| d.view()).ok_or_else(missing)
                }
                Source::Splat(j) => st
                    .splats
                    .get(*j)
                    .and_then(|t| t.as_ref())
                    .map(ArrayData::view)
                    .ok_or_else(missing),
                Source::Iota(j) => st.iotas[*j]
                    .as_ref()
                    .map(ArrayData::view)
                    .ok_or_else(missing),
                Source::Bcast(j) => st.bcasts[*j]
                    .as_ref()
                    .map(ArrayData::view)
                    .ok_or_else(missing),
                Source::Scalar(j) => inputs.scalars.get(*j).map(|d| d.view()).ok_or_else(missing),
            }
        };
        let v = match step.operands.len() {
            1 => eval_member(inst, &[arg(0)?]),
            2 => eval_member(inst, &[arg(0)?, arg(1)?]),
            3 => eval_member(inst, &[arg(0)?, arg(1)?, arg(2)?]),
            _ => Err(Error::internal("a fused member with an unexpected arity")),
        }
        .map_err(|e| e.at(&inst.name, inst.loc))?;
        if let Some(o) = step.output {
            if inputs.lent.get(o) == Some(&true) {
                // Later members of this tile may still read the input whose buffer it is.
                st.pending.push((o, v.clone()));
            } else {
                sinks
                    .get_mut(o)
                    .ok_or_else(|| Error::internal("a fused output without a buffer"))?
                    .write(at, len, v.view())
                    .map_err(|e| e.at(&inst.name, inst.loc))?;
            }
        }
        st.steps[s] = Some(v);
        for f in &step.frees {
            match *f {
                Source::Step(i) => st.steps[i] = None,
                Source::Iota(j) => st.iotas[j] = None,
                Source::Bcast(j) => st.bcasts[j] = None,
                Source::Full(_) | Source::Splat(_) | Source::Scalar(_) => {}
            }
        }
    }
    for (o, v) in st.pending.drain(..) {
        sinks
            .get_mut(o)
            .ok_or_else(|| Error::internal("a fused output without a buffer"))?
            .write(at, len, v.view())?;
    }
    Ok(())
}

/// Whether member `inst` takes its rank-0 inputs as one-element views and broadcasts them itself
/// (`elementwise::map2`, `map3`): binary ops, comparisons, selects and clamps with at least one
/// operand that is not such an input (else the result would have one element).
///
/// Why: a splat's tile is as large as any other (32 KiB of U32 at 8192 elements), and the
/// threefry round reads eleven of them, each once per tile and op, competing for the L2 cache
/// with the values that matter.
fn narrow_splats(inst: &Instruction, operands: &[Source]) -> bool {
    let broadcasts = matches!(
        inst.op,
        Op::Binary(_)
            | Op::Elementwise(
                ElementwiseOp::Compare(_) | ElementwiseOp::Select | ElementwiseOp::Clamp
            )
    );
    broadcasts
        && operands
            .iter()
            .any(|s| !matches!(s, Source::Splat(_) | Source::Scalar(_)))
}

/// Elements `start..start + len` of an integer iota: the index along its dimension, cast to
/// the element type as `movement::iota` casts it.
fn iota_tile(io: &Iota, start: usize, len: usize) -> Result<ArrayData> {
    fn fill<T>(io: &Iota, start: usize, len: usize, f: impl Fn(i64) -> T) -> Vec<T> {
        // An iota along the only (or last) dimension, within one run of it: consecutive values,
        // in a loop the compiler vectorises.
        if io.inner == 1 && start % io.size + len <= io.size {
            let v0 = (start % io.size) as i64;
            return (v0..v0 + len as i64).map(f).collect();
        }
        let mut v = (start / io.inner) % io.size;
        let mut r = start % io.inner;
        let mut out = Vec::with_capacity(len);
        for _ in 0..len {
            out.push(f(v as i64));
            r += 1;
            if r == io.inner {
                r = 0;
                v += 1;
                if v == io.size {
                    v = 0;
                }
            }
        }
        out
    }
    Ok(match io.ty {
        ElementType::S8 => ArrayData::S8(fill(io, start, len, |v| v as i8).into()),
        ElementType::S16 => ArrayData::S16(fill(io, start, len, |v| v as i16).into()),
        ElementType::S32 => ArrayData::S32(fill(io, start, len, |v| v as i32).into()),
        ElementType::S64 => ArrayData::S64(fill(io, start, len, |v| v).into()),
        ElementType::U8 => ArrayData::U8(fill(io, start, len, |v| v as u8).into()),
        ElementType::U16 => ArrayData::U16(fill(io, start, len, |v| v as u16).into()),
        ElementType::U32 => ArrayData::U32(fill(io, start, len, |v| v as u32).into()),
        ElementType::U64 => ArrayData::U64(fill(io, start, len, |v| v as u64).into()),
        t => return Err(Error::internal(format!("a fused iota of {t}"))),
    })
}

/// Elements `start..start + len` of a broadcast: the operand's elements at the offsets the
/// output indices map to (`movement::broadcast`'s formula), copied run by run along the last
/// dimension (a slice, one repeated element, or a strided walk) and carried into the earlier
/// ones. The caller checked that every offset lies in the operand.
fn bcast_tile(b: &Bcast, src: &ArrayData, start: usize, len: usize) -> ArrayData {
    let r = b.dims.len();
    let mut idx = vec![0usize; r];
    let mut rest = start;
    for d in (0..r).rev() {
        idx[d] = rest % b.dims[d];
        rest /= b.dims[d];
    }
    let offset0: usize = idx.iter().zip(&b.strides).map(|(&i, &s)| i * s).sum();
    crate::map_data!(src, v => {
        let (mut idx, mut offset) = (idx.clone(), offset0);
        let mut out = Vec::with_capacity(len);
        while out.len() < len {
            let (n, s) = (b.dims[r - 1], b.strides[r - 1]);
            let run = (n - idx[r - 1]).min(len - out.len());
            match s {
                0 => out.extend(std::iter::repeat_n(v[offset], run)),
                1 => out.extend_from_slice(&v[offset..offset + run]),
                _ => out.extend((0..run).map(|k| v[offset + k * s])),
            }
            idx[r - 1] += run;
            offset += run * s;
            let mut d = r - 1;
            while idx[d] == b.dims[d] && d > 0 {
                offset -= idx[d] * b.strides[d];
                idx[d] = 0;
                d -= 1;
                idx[d] += 1;
                offset += b.strides[d];
            }
        }
        out
    })
}

/// One member on tile data: the same functions the op-by-op path applies to whole arrays.
fn eval_member(inst: &Instruction, ops: &[DataView]) -> Result<ArrayData> {
    let a = |k: usize| {
        ops.get(k)
            .copied()
            .ok_or_else(|| Error::internal(format!("operand {k} of a fused member is missing")))
    };
    let ty = || Evaluator::result_array_shape(inst).map(|s| s.ty);
    match &inst.op {
        Op::Unary(op) => elementwise::unary_view(*op, a(0)?),
        Op::Binary(op) => elementwise::binary_view(*op, a(0)?, a(1)?),
        Op::Elementwise(op) => match op {
            ElementwiseOp::Compare(c) => {
                elementwise::compare::compare_view(c.direction, c.compare_type, a(0)?, a(1)?)
            }
            ElementwiseOp::Select => elementwise::select_view(a(0)?, a(1)?, a(2)?),
            ElementwiseOp::Clamp => elementwise::clamp_view(a(0)?, a(1)?, a(2)?),
            ElementwiseOp::Convert => elementwise::convert::convert(a(0)?, ty()?),
            ElementwiseOp::BitcastConvert => elementwise::convert::bitcast(a(0)?, ty()?),
            ElementwiseOp::ReducePrecision(r) => {
                elementwise::convert::reduce_precision(a(0)?, r.exponent_bits, r.mantissa_bits)
            }
        },
        _ => Err(Error::internal(format!(
            "`{}` is not element-wise and cannot be fused",
            inst.name
        ))),
    }
}

mod chunks;
pub mod mapped;
mod plan;
mod rounds;
#[cfg(test)]
mod tests;
