//! Fused groups whose members all have element kernels (unary and binary ops, comparisons,
//! selects and clamps), run chunk by chunk through kept kernels.
//!
//! Why: a threefry round is a chain of cheap integer ops (add, xor, two shifts, or) on arrays of
//! millions of elements. Tile by tile (`run_tile`), each member reads and writes 8192-element tiles
//! that live in the L2 cache, and each call returns a freshly allocated tile; the loops then wait
//! on L2 more than they compute (their profile: loads and stores), and smaller tiles only trade
//! that for allocation and dispatch per call. Here each member's element function is taken once per
//! evaluation as a kernel (`elementwise::unary_kernel`, `binary_kernel`, `compare_kernel`,
//! `select_kernel`, `clamp_kernel`: the very function the op-by-op path maps), and a chunk of
//! `CHUNK` elements runs through every member into slots that are reused once their values are
//! dead: the live slots stay in the L1 cache, nothing is allocated per chunk, and each member finds
//! its operands by place in a table made once per chunk (branching on where each operand came from
//! mispredicted too often at small chunks).
//!
//! One pattern is folded: `or(shift-left(x, a), shift-right-logical(x, b))` on u32 or u64, where
//! both shifts are read by the `or` alone, is the rotation every threefry round makes (`a` and
//! `32 - a`); it runs as one kernel (`shift_or`) instead of three passes over the chunk, the
//! shifts' values never stored. (LLVM recognises the same shape as a funnel shift.) The folded
//! kernel computes exactly the two shifts and the `or` with XLA's rule for shift amounts at or
//! past the width (the result is zero), so it needs no proof that `b` is `BITS - a`. A second
//! fold takes the rest of the round: `xor(add(y, x), rotation of x)`, where the rotation is read
//! by the `xor` alone, runs as one kernel (`round`) that adds, rotates and xors per element; the
//! `add` still runs for its other readers (the next round reads it) and is dropped when the `xor`
//! was its only one. Three passes over the chunk per round become two, with one less store. A
//! third fold takes rounds in a row: where a round's words are the previous round's `add` and
//! `xor`, read by nothing else, up to four rounds run as one kernel (`rounds::chain`) that keeps
//! the words in registers and writes only the last round's `add` and `xor`: one pass per
//! threefry iteration's four rounds instead of eight. (The round kernels are in `rounds`.)
//!
//! Exactness: each kernel is the op's `eval_with` (`elementwise::Map`) on the member's operand
//! types, whose element function is the one the op-by-op evaluation maps over whole arrays, run
//! by the same loops (`elementwise::Kernels`); element `i` of a chunk is element `start + i` of
//! every operand, as in `run_tile`. Groups with a member that has no kernel (conversions,
//! bitcasts, reduce-precision) or that read an iota or a gathered broadcast run tile by tile.

use super::rounds::{self, MAX_CHAIN};
use super::{Group, Inputs, Sink, Source};
use crate::error::{Error, Result};
use crate::eval::elementwise::{self, Kernel as ElementKernel, Kernels, Typed};
use crate::hlo::ast::Computation;
use crate::hlo::opcode::{BinaryOp, ElementwiseOp, Op};
use crate::literal::{DataView, NativeType};
use crate::types::ElementType;
use std::mem::MaybeUninit;

/// Elements per chunk: 4 KiB of `u32` per slot. On the threefry programs (Zen 4) 256 and 512 were
/// slower from the per-member cost of each call, 2048 no faster, 4096 slower from the cache.
pub const CHUNK: usize = 1024;

/// Slot storage, aligned for every element type (and to a cache line).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

/// What a member does in a chunk.
enum Kernel {
    /// Its own element function on its operands (one, two or three).
    Map(Typed<Kernels>),
    /// `or(shift-left(x, a), shift-right-logical(x, b))` in one pass, on `x`, `a` and `b`.
    ShiftOr(ElementType),
    /// `xor(add(y, x), or(shift-left(x, a), shift-right-logical(x, b)))` in one pass, on `y`,
    /// `x`, `a` and `b`: a whole threefry round's second word (the `add` still runs on its own
    /// for its other readers).
    Round(ElementType),
    /// Up to `MAX_CHAIN` rounds in one pass (`rounds::chain`), on `y`, `x` and each round's two
    /// amounts: writes the last round's `add` (this member) and its `xor` (`Compiled::second`),
    /// the earlier rounds' words never stored.
    Chain(ElementType, usize),
    /// A member whose only reader runs it inside its own kernel (`ShiftOr`, `Round`, `Chain`):
    /// never run, never stored.
    Folded,
    /// A member whose value another member's kernel writes into its slot (a chain's last `xor`).
    Produced,
}

/// The kernels of a group whose members are all binary ops, and where each member's chunk lives.
pub struct Compiled {
    kernels: Vec<Kernel>,
    /// Each member's element type.
    tys: Vec<ElementType>,
    /// Per member, the member whose slot its kernel also writes (a chain's last `xor`).
    second: Vec<Option<usize>>,
    /// Each member's slot: a slot is reused once no later member reads its value, except an
    /// output's, which may be written only at the end of the chunk (`Inputs::lent`).
    slot_of: Vec<usize>,
    slots: usize,
    /// Bytes per slot: `CHUNK` elements of the widest member type.
    slot_bytes: usize,
    /// Each member's operands (two; three for `ShiftOr`, four for `Round`; none for `Folded`) as
    /// places in a chunk's table of operand values: the full inputs, then the splats, then the
    /// scalars, then the members. Held in place, not behind a pointer per member: every chunk
    /// walks them all.
    args: Vec<Places>,
    /// Per full input, the last member that reads it (`None`: none does).
    last_read: Vec<Option<usize>>,
    /// The element types of the full inputs, then of the splats, then of the scalars.
    in_tys: Vec<ElementType>,
    /// The members that are outputs, with their outputs: the chunk's end writes these alone.
    outputs: Vec<(usize, usize)>,
}

/// A member's operands: `len` places, each with its element type and whether it is a
/// one-element value (a splat or a scalar) rather than a chunk. The types are here rather than
/// beside each address in the chunk's table: that table is rebuilt every chunk and had fallen out
/// of L1 by the time each member read it (a fifth of `run_chunk`'s samples, threefry on Zen 4).
#[derive(Clone, Copy)]
struct Places {
    len: usize,
    at: [usize; MAX_PLACES],
    tys: [ElementType; MAX_PLACES],
    one: [bool; MAX_PLACES],
}

/// The most operands a kernel reads: a chain's two words and two amounts a round.
const MAX_PLACES: usize = 2 + 2 * MAX_CHAIN;

impl Places {
    fn new(places: &[(usize, ElementType, bool)]) -> Option<Places> {
        let mut p = Places {
            len: places.len(),
            at: [0; MAX_PLACES],
            tys: [ElementType::Token; MAX_PLACES],
            one: [false; MAX_PLACES],
        };
        for (k, &(at, ty, one)) in places.iter().enumerate() {
            *p.at.get_mut(k)? = at;
            p.tys[k] = ty;
            p.one[k] = one;
        }
        Some(p)
    }

    fn get(&self) -> &[usize] {
        &self.at[..self.len.min(MAX_PLACES)]
    }
}

/// What `folds` makes of a group: for each member, the operands it reads once the folds are
/// made, whether it is folded into its reader, and the member whose slot its kernel also writes
/// (a chain's last `xor`).
type Folds = (Vec<Vec<Source>>, Vec<bool>, Vec<Option<usize>>);

/// The folds of `g`. A rotation needs an `or` of u32 or u64 whose operands are a `shift-left` and
/// a `shift-right-logical` of the same value, each read by nothing else (no other member, no
/// output); a round, an `xor` of such a rotation of `x`, read by nothing else, and an `add` of `x`
/// and another value. A round continues a chain when its `y` is the previous round's `add` and its
/// `x` that round's `xor`, neither read by anything but this round (and the previous round's
/// `xor`), and the chain has fewer than `MAX_CHAIN` rounds. A chain runs where its last `add`
/// stands (threefry reads that `add` for the key injection before the last `xor`), and writes
/// its last `xor` there too.
fn folds(comp: &Computation, g: &Group) -> Option<Folds> {
    let binary = |i: usize| match comp.instructions.get(g.steps.get(i)?.inst)?.op {
        Op::Binary(op) => Some(op),
        _ => None,
    };
    let mut readers = vec![0usize; g.steps.len()];
    for st in &g.steps {
        for src in &st.operands {
            if let Source::Step(i) = *src {
                *readers.get_mut(i)? += 1;
            }
        }
    }
    let mut reads: Vec<Vec<Source>> = g.steps.iter().map(|st| st.operands.clone()).collect();
    let mut folded = vec![false; g.steps.len()];
    // Per round (its `xor`), the `add` it computes.
    let mut round_add: Vec<Option<usize>> = vec![None; g.steps.len()];
    let mut second: Vec<Option<usize>> = vec![None; g.steps.len()];
    // Member `o`'s two member operands when it is `op` on u32 or u64.
    let words = |o: usize, op: BinaryOp| -> Option<(usize, usize)> {
        let st = g.steps.get(o)?;
        let ty = comp.instructions.get(st.inst)?.shape.as_array()?.ty;
        if binary(o) != Some(op) || !matches!(ty, ElementType::U32 | ElementType::U64) {
            return None;
        }
        match st.operands[..] {
            [Source::Step(p), Source::Step(q)] => Some((p, q)),
            _ => None,
        }
    };
    for o in 0..g.steps.len() {
        let Some((p, q)) = words(o, BinaryOp::Or) else {
            continue;
        };
        let (l, r) = match (binary(p), binary(q)) {
            (Some(BinaryOp::ShiftLeft), Some(BinaryOp::ShiftRightLogical)) => (p, q),
            (Some(BinaryOp::ShiftRightLogical), Some(BinaryOp::ShiftLeft)) => (q, p),
            _ => continue,
        };
        let (sl, sr) = (g.steps.get(l)?, g.steps.get(r)?);
        let alone = |i: usize, s: &super::Step| readers[i] == 1 && s.output.is_none();
        if p == q || !alone(l, sl) || !alone(r, sr) || sl.operands.len() != 2 {
            continue;
        }
        if sr.operands.len() != 2 || sl.operands[0] != sr.operands[0] {
            continue;
        }
        reads[o] = vec![sl.operands[0], sl.operands[1], sr.operands[1]];
        folded[l] = true;
        folded[r] = true;
        reads[l].clear();
        reads[r].clear();
    }
    // Rounds: `xor(add(y, x), rotation of x)` (either operand order, in the xor and in the add)
    // where the rotation is read by the xor alone. The add is folded only when the xor is its
    // sole reader: in threefry the next round reads it too, so it runs on its own as well.
    for o in 0..g.steps.len() {
        let Some((p, q)) = words(o, BinaryOp::Xor) else {
            continue;
        };
        let rotation = |i: usize| reads[i].len() == 3 && !folded[i];
        let (add, rot) = match (binary(p), binary(q)) {
            (Some(BinaryOp::Add), _) if rotation(q) => (p, q),
            (_, Some(BinaryOp::Add)) if rotation(p) => (q, p),
            _ => continue,
        };
        if readers[rot] != 1 || g.steps.get(rot)?.output.is_some() || folded[add] {
            continue;
        }
        let x = reads[rot][0];
        let y = match reads[add][..] {
            [u, v] if v == x => u,
            [u, v] if u == x => v,
            _ => continue,
        };
        reads[o] = vec![y, x, reads[rot][1], reads[rot][2]];
        folded[rot] = true;
        reads[rot].clear();
        // An add nothing else reads need not run at all.
        if readers[add] == 1 && g.steps.get(add)?.output.is_none() {
            folded[add] = true;
            reads[add].clear();
        }
        round_add[o] = Some(add);
        // The previous round's words, when this round continues its chain.
        let (Source::Step(py), Source::Step(px)) = (y, x) else {
            continue;
        };
        // Where the previous round runs: its `add` when it ends a chain, else its `xor`.
        let prev = if second[py] == Some(px) { py } else { px };
        let alone = |i: usize, n: usize| readers[i] == n && g.steps[i].output.is_none();
        // The chain runs where this round's `add` stood, so this round's amounts must be ready
        // there (splats are; a member only if it comes before).
        let ready = reads[o][2..]
            .iter()
            .all(|src| !matches!(*src, Source::Step(i) if i >= add));
        if round_add[px] != Some(py)
            || folded[px]
            || !(4..2 + 2 * MAX_CHAIN).contains(&reads[prev].len())
            // `py`: the previous `xor` and this `add`; `px`: this rotation's shifts and `add`.
            || !alone(py, 2)
            || !alone(px, 3)
            || !ready
        {
            continue;
        }
        let mut chained = std::mem::take(&mut reads[prev]);
        chained.extend_from_slice(&reads[o][2..]);
        reads[add] = chained;
        reads[o].clear();
        for i in [px, py] {
            folded[i] = true;
            reads[i].clear();
            second[i] = None;
        }
        // The `add` holds the chain (it may have been folded as read by the `xor` alone); the
        // `xor` is written by it.
        folded[add] = false;
        second[add] = Some(o);
    }
    Some((reads, folded, second))
}

/// `g`'s kernels, or `None` when a member has no element kernel (not a unary or binary op, a
/// comparison, a select or a clamp), reads an operand the group generates per tile (an iota or
/// a gathered broadcast), or has types the verifier refuses.
pub fn compile(comp: &Computation, g: &Group) -> Option<Compiled> {
    let ty = |i: usize| Some(comp.instructions.get(i)?.shape.as_array()?.ty);
    let mut kernels = Vec::with_capacity(g.steps.len());
    let mut tys = Vec::with_capacity(g.steps.len());
    for step in &g.steps {
        let inst = comp.instructions.get(step.inst)?;
        let arg = |k: usize| ty(*inst.operands.get(k)?);
        let (arity, kernel) = match &inst.op {
            Op::Unary(op) => (1, elementwise::unary_kernel(*op, arg(0)?)),
            Op::Binary(op) => (2, elementwise::binary_kernel(*op, arg(0)?, arg(1)?)),
            Op::Elementwise(ElementwiseOp::Compare(c)) => (
                2,
                elementwise::compare_kernel(c.direction, c.compare_type, arg(0)?),
            ),
            Op::Elementwise(ElementwiseOp::Select) => (3, elementwise::select_kernel(arg(1)?)),
            Op::Elementwise(ElementwiseOp::Clamp) => (3, elementwise::clamp_kernel(arg(1)?)),
            _ => return None,
        };
        if inst.operands.len() != arity
            || step.operands.len() != arity
            || step
                .operands
                .iter()
                .any(|s| matches!(s, Source::Iota(_) | Source::Bcast(_)))
        {
            return None;
        }
        kernels.push(Kernel::Map(kernel?));
        tys.push(ty(step.inst)?);
    }
    let (reads, folded, second) = folds(comp, g)?;
    // (Once over `second`: `compile` runs at every evaluation of the group.)
    let mut produced = vec![false; g.steps.len()];
    for &o in second.iter().flatten() {
        *produced.get_mut(o)? = true;
    }
    for (s, k) in kernels.iter_mut().enumerate() {
        // A fold gives its kernel more operands than the binary op it replaces (`folds`); a
        // member the folds left alone keeps its own (a select's three among them).
        let rewritten = reads[s].len() != g.steps.get(s)?.operands.len();
        *k = match reads[s].len() {
            _ if folded[s] => Kernel::Folded,
            _ if produced[s] => Kernel::Produced,
            _ if !rewritten => continue,
            3 => Kernel::ShiftOr(tys[s]),
            4 => Kernel::Round(tys[s]),
            n if n > 4 && n.is_multiple_of(2) && second[s].is_some() => {
                Kernel::Chain(tys[s], n / 2 - 1)
            }
            _ => continue,
        };
    }
    // The last member that reads each member's value, once the folds are made.
    let mut last = vec![None; g.steps.len()];
    for (s, r) in reads.iter().enumerate() {
        for src in r {
            if let Source::Step(i) = *src {
                *last.get_mut(i)? = Some(s);
            }
        }
    }
    let mut slot_of = vec![usize::MAX; g.steps.len()];
    let (mut free, mut slots) = (Vec::<usize>::new(), 0);
    let mut take = |free: &mut Vec<usize>| {
        free.pop().unwrap_or_else(|| {
            slots += 1;
            slots - 1
        })
    };
    for s in 0..g.steps.len() {
        if folded[s] || produced[s] {
            continue;
        }
        // The member's slots (its own, and the one its kernel also writes) are taken before its
        // operands' slots are released, so a kernel never writes a slot it reads.
        slot_of[s] = take(&mut free);
        if let Some(a) = second[s] {
            *slot_of.get_mut(a)? = take(&mut free);
        }
        let mut done: Vec<usize> = reads[s]
            .iter()
            .filter_map(|src| match *src {
                Source::Step(i) if last[i] == Some(s) && g.steps[i].output.is_none() => Some(i),
                _ => None,
            })
            .collect();
        done.sort_unstable();
        done.dedup();
        for i in done {
            free.push(*slot_of.get(i)?);
        }
    }
    let widest = tys.iter().map(|t| t.byte_size()).max()?.max(1);
    let (nf, ns, nc) = (g.fulls.len(), g.splats.len(), g.scalars.len());
    let in_tys: Vec<ElementType> = (g.fulls.iter().chain(&g.splats).chain(&g.scalars))
        .map(|&o| ty(o))
        .collect::<Option<_>>()?;
    let place = |src: &Source| -> Option<(usize, ElementType, bool)> {
        Some(match *src {
            Source::Full(j) if j < nf => (j, in_tys[j], false),
            Source::Splat(j) if j < ns => (nf + j, in_tys[nf + j], true),
            Source::Scalar(j) if j < nc => (nf + ns + j, in_tys[nf + ns + j], true),
            Source::Step(i) if i < g.steps.len() => (nf + ns + nc + i, *tys.get(i)?, false),
            _ => return None,
        })
    };
    let args = reads
        .iter()
        .map(|r| Places::new(&r.iter().map(place).collect::<Option<Vec<_>>>()?))
        .collect::<Option<Vec<_>>>()?;
    let mut last_read = vec![None; nf];
    for (s, places) in args.iter().enumerate() {
        for &p in places.get() {
            if let Some(l) = last_read.get_mut(p) {
                *l = Some(s);
            }
        }
    }
    Some(Compiled {
        kernels,
        tys,
        second,
        slot_of,
        slots,
        args,
        last_read,
        in_tys,
        outputs: g
            .steps
            .iter()
            .enumerate()
            .filter_map(|(s, st)| Some((s, st.output?)))
            .collect(),
        slot_bytes: (CHUNK * widest).div_ceil(size_of::<Line>()) * size_of::<Line>(),
    })
}

impl Compiled {
    /// How many `or`s run with their two shifts folded in.
    #[cfg(test)]
    pub fn folded_rotations(&self) -> usize {
        self.kernels
            .iter()
            .filter(|k| matches!(k, Kernel::ShiftOr(_)))
            .count()
    }

    /// How many `xor`s run with their round's add and rotation folded in.
    #[cfg(test)]
    pub fn folded_rounds(&self) -> usize {
        self.kernels
            .iter()
            .filter(|k| matches!(k, Kernel::Round(_)))
            .count()
    }

    /// The number of rounds of each chain, in order.
    #[cfg(test)]
    pub fn chains(&self) -> Vec<usize> {
        self.kernels
            .iter()
            .filter_map(|k| match k {
                Kernel::Chain(_, r) => Some(*r),
                _ => None,
            })
            .collect()
    }
}

/// One task's slots, reused from chunk to chunk, with the per-chunk tables of their addresses
/// and of every operand's (kept here so that a chunk allocates nothing: two vectors a chunk
/// were 3% of the threefry program's time on a Zen 4).
pub struct Slots {
    lines: Vec<Box<[MaybeUninit<Line>]>>,
    base: Vec<*mut MaybeUninit<Line>>,
    table: Vec<*const u8>,
    /// Per `Compiled::outputs` entry, whether its member may write the output in place: set once
    /// per tile (it depends on which inputs lent their buffers, not on the chunk).
    in_place: Vec<bool>,
    /// Per `Compiled::outputs` entry, whether its member wrote this chunk straight into the
    /// output (`Sink::direct`).
    direct: Vec<bool>,
}

impl Slots {
    pub fn new(c: &Compiled) -> Slots {
        let lines = c.slot_bytes / size_of::<Line>();
        Slots {
            lines: (0..c.slots).map(|_| Box::new_uninit_slice(lines)).collect(),
            base: vec![],
            table: vec![],
            in_place: vec![],
            direct: vec![],
        }
    }
}

/// The first `len` elements of a slot as `ty`.
///
/// # Safety
/// `slot` must point to `bytes` bytes that live as long as `'a` and that nothing writes while the
/// view lives, whose first `len` elements of `ty` were written (by a member's kernel, this chunk).
unsafe fn view<'a>(
    ty: ElementType,
    slot: *const MaybeUninit<Line>,
    bytes: usize,
    len: usize,
) -> Option<DataView<'a>> {
    unsafe fn typed<'a, T: NativeType>(
        slot: *const MaybeUninit<Line>,
        bytes: usize,
        len: usize,
    ) -> Option<DataView<'a>> {
        if len * size_of::<T>() > bytes {
            return None;
        }
        // SAFETY: the slot spans at least `len` elements of `T` (checked), is aligned for any
        // element type (`Line`), and its first `len` were written as `T` (the caller's promise).
        Some(T::view(unsafe {
            std::slice::from_raw_parts(slot.cast::<T>(), len)
        }))
    }
    use crate::literal::{C64, C128};
    use half::{bf16, f16};
    // SAFETY: the caller's promise, passed on.
    unsafe {
        match ty {
            ElementType::Pred => typed::<bool>(slot, bytes, len),
            ElementType::S8 => typed::<i8>(slot, bytes, len),
            ElementType::S16 => typed::<i16>(slot, bytes, len),
            ElementType::S32 => typed::<i32>(slot, bytes, len),
            ElementType::S64 => typed::<i64>(slot, bytes, len),
            ElementType::U8 => typed::<u8>(slot, bytes, len),
            ElementType::U16 => typed::<u16>(slot, bytes, len),
            ElementType::U32 => typed::<u32>(slot, bytes, len),
            ElementType::U64 => typed::<u64>(slot, bytes, len),
            ElementType::F16 => typed::<f16>(slot, bytes, len),
            ElementType::BF16 => typed::<bf16>(slot, bytes, len),
            ElementType::F32 => typed::<f32>(slot, bytes, len),
            ElementType::F64 => typed::<f64>(slot, bytes, len),
            ElementType::C64 => typed::<C64>(slot, bytes, len),
            ElementType::C128 => typed::<C128>(slot, bytes, len),
            ElementType::Token => None,
        }
    }
}

/// The first `len` elements of the slot at `slot` as `V`, or `None` when the slot is too small.
///
/// # Safety
/// `slot` must point to `bytes` writable bytes that nothing else reads or writes while the slice
/// lives (in particular not the operands of the kernel writing it).
unsafe fn slot_as<'a, V>(
    slot: *mut MaybeUninit<Line>,
    bytes: usize,
    len: usize,
) -> Option<&'a mut [MaybeUninit<V>]> {
    if len * size_of::<V>() > bytes {
        return None;
    }
    // SAFETY: the slot spans at least `len` elements of `V` (checked) and is aligned for any
    // element type; `MaybeUninit` asks nothing of the bytes; nothing else touches them (the
    // caller's promise).
    Some(unsafe { std::slice::from_raw_parts_mut(slot.cast::<MaybeUninit<V>>(), len) })
}

/// Runs kernel `k` into the first `len` elements of the slot at `slot`; `false` when it refuses
/// its operands.
///
/// # Safety
/// As `slot_as`.
unsafe fn call<V: NativeType>(
    k: &ElementKernel<V>,
    slot: *mut MaybeUninit<Line>,
    bytes: usize,
    len: usize,
    ops: &[DataView<'_>],
) -> bool {
    // SAFETY: the caller's promise, passed on.
    unsafe { slot_as(slot, bytes, len) }.is_some_and(|dst| k(dst, ops))
}

/// Elements `start..start + len` of every member, chunk by chunk; writes the outputs' elements
/// at offset `at` of the task's output pieces.
#[allow(clippy::too_many_arguments)]
pub fn run_tile(
    comp: &Computation,
    c: &Compiled,
    g: &Group,
    inputs: &Inputs,
    slots: &mut Slots,
    start: usize,
    len: usize,
    at: usize,
    sinks: &mut [Box<dyn Sink + '_>],
) -> Result<()> {
    if slots.lines.len() != c.slots
        || slots
            .lines
            .iter()
            .any(|s| size_of_val::<[_]>(s) != c.slot_bytes)
    {
        return Err(Error::internal(
            "fused chunk slots of the wrong number or size",
        ));
    }
    // An output's member writes the output's piece itself, in place of its slot: copying each
    // chunk from the slot was a tenth of the threefry program's time (Zen 4). Its readers in the
    // chunk then read it there. Not where the piece holds a lent input that this member, or a
    // later one, still reads.
    slots.in_place.clear();
    slots.in_place.extend(c.outputs.iter().map(|&(s, o)| {
        let input = inputs.lent_to.iter().position(|&t| t == Some(o));
        let read_later = input.is_some_and(|j| c.last_read.get(j).copied().flatten() >= Some(s));
        !read_later
            && c.kernels
                .get(s)
                .is_some_and(|k| !matches!(k, Kernel::Folded | Kernel::Produced))
    }));
    let mut off = 0;
    while off < len {
        let m = CHUNK.min(len - off);
        run_chunk(comp, c, g, inputs, slots, start + off, m, at + off, sinks)?;
        off += m;
    }
    Ok(())
}

/// Runs `rounds::chain` into the slots at `dy` (the last `add`) and `dx` (the last `xor`).
///
/// # Safety
/// As `slot_as`, for both slots, which must not overlap.
unsafe fn chain<T: rounds::Bits>(
    dy: *mut MaybeUninit<Line>,
    dx: *mut MaybeUninit<Line>,
    bytes: usize,
    len: usize,
    y: DataView<'_>,
    x: DataView<'_>,
    amounts: &[DataView<'_>],
) -> bool {
    // SAFETY: the caller's promise, passed on.
    match unsafe { (slot_as::<T>(dy, bytes, len), slot_as::<T>(dx, bytes, len)) } {
        (Some(dy), Some(dx)) => rounds::chain(dy, dx, y, x, amounts),
        _ => false,
    }
}

/// An operand value by address: a chunk of an input or of a member, or a one-element splat.
#[derive(Clone, Copy)]
struct Raw {
    ty: ElementType,
    ptr: *const u8,
    len: usize,
}

/// The view `r` stands for.
///
/// # Safety
/// `r.ptr` must point to `r.len` initialised elements of `r.ty` that nothing writes while the
/// view lives.
unsafe fn raw_view<'a>(r: Raw) -> Option<DataView<'a>> {
    if r.ptr.is_null() {
        return None;
    }
    // SAFETY: the caller's promise; the bytes a slot spans were checked when it was made.
    unsafe { view(r.ty, r.ptr.cast(), usize::MAX, r.len) }
}

#[allow(clippy::too_many_arguments)]
fn run_chunk(
    comp: &Computation,
    c: &Compiled,
    g: &Group,
    inputs: &Inputs,
    slots: &mut Slots,
    start: usize,
    len: usize,
    at: usize,
    sinks: &mut [Box<dyn Sink + '_>],
) -> Result<()> {
    let bytes = c.slot_bytes;
    // Raw slot pointers: a member writes its slot while reading others (`compile` gives it one
    // that none of its operands holds), which borrows cannot express.
    let Slots {
        lines,
        base,
        table,
        in_place,
        direct,
    } = slots;
    base.clear();
    base.extend(lines.iter_mut().map(|s| s.as_mut_ptr()));
    let at_member =
        |s: usize, e: Error| match g.steps.get(s).and_then(|st| comp.instructions.get(st.inst)) {
            Some(inst) => e.at(&inst.name, inst.loc),
            None => e,
        };
    let missing = |s: usize| at_member(s, Error::internal("a fused operand is missing"));
    // Every operand of the chunk by address, in `Compiled::args` order: the members look their
    // operands up by place instead of branching on where each comes from. An input of another
    // type or length than compiled for is missing (null).
    table.clear();
    table.reserve(inputs.fulls.len() + inputs.splats.len() + inputs.scalars.len() + g.steps.len());
    let fits = |v: DataView<'_>, p: usize, n: usize| {
        if c.in_tys.get(p) == Some(&v.ty()) && v.len() == n {
            v.as_ptr()
        } else {
            std::ptr::null()
        }
    };
    for j in 0..inputs.fulls.len() {
        let v = match inputs.lent_to.get(j) {
            Some(Some(o)) => sinks.get(*o).and_then(|s| s.read(at, len)),
            _ => inputs
                .fulls
                .get(j)
                .copied()
                .flatten()
                .and_then(|d| d.view().slice(start, len)),
        };
        table.push(v.map_or(std::ptr::null(), |v| fits(v, j, len)));
    }
    for (k, d) in inputs.splats.iter().chain(&inputs.scalars).enumerate() {
        table.push(fits(d.view(), inputs.fulls.len() + k, 1));
    }
    let members = table.len();
    for &k in &c.slot_of {
        table.push(base.get(k).map_or(std::ptr::null(), |&p| p as *const u8));
    }
    // The outputs written in place this chunk (`run_tile` says which may be).
    direct.clear();
    for (i, &(s, o)) in c.outputs.iter().enumerate() {
        let out = (in_place.get(i) == Some(&true))
            .then(|| sinks.get_mut(o)?.direct(at, len, *c.tys.get(s)?))
            .flatten();
        if let (Some(p), Some(r)) = (out, table.get_mut(members + s)) {
            *r = p;
        }
        direct.push(out.is_some());
    }
    for (s, member) in c.args.iter().enumerate() {
        let places = member.get();
        let kernel = c.kernels.get(s).ok_or_else(|| missing(s))?;
        if matches!(kernel, Kernel::Folded | Kernel::Produced) {
            continue;
        }
        // (A fixed array: a vector per member per chunk cost an eighth of the threefry time.)
        let mut ops = [DataView::U8(&[]); MAX_PLACES];
        if places.len() > ops.len() {
            return Err(missing(s));
        }
        for (k, (o, &p)) in ops.iter_mut().zip(places).enumerate() {
            let r = Raw {
                ty: member.tys[k],
                ptr: table.get(p).copied().unwrap_or(std::ptr::null()),
                len: if member.one[k] { 1 } else { len },
            };
            // SAFETY: inputs and splats are borrowed for the whole group (their types and
            // lengths checked above) and lent inputs are written only after the chunk's last
            // reader of them; member operands came earlier and wrote `len` elements of their
            // type this chunk, in slots not reused before this member (`compile`).
            *o = unsafe { raw_view(r) }.ok_or_else(|| missing(s))?;
        }
        let ops = &ops[..places.len()];
        let dst = table
            .get(members + s)
            .map_or(std::ptr::null_mut(), |r| r.cast_mut())
            .cast::<MaybeUninit<Line>>();
        if dst.is_null() {
            return Err(missing(s));
        }
        // SAFETY: `dst` is this member's slot, which none of its operands occupies (`compile`)
        // and no input shares, or its output's piece at this chunk (`len` elements of its type
        // that no operand of this member or of a later one lies in: a fresh buffer, or a lent
        // input's that no member from this one on reads).
        let ok = unsafe {
            match (kernel, ops) {
                (Kernel::Map(k), ops) => match k {
                    Typed::Pred(k) => call(k, dst, bytes, len, ops),
                    Typed::S8(k) => call(k, dst, bytes, len, ops),
                    Typed::S16(k) => call(k, dst, bytes, len, ops),
                    Typed::S32(k) => call(k, dst, bytes, len, ops),
                    Typed::S64(k) => call(k, dst, bytes, len, ops),
                    Typed::U8(k) => call(k, dst, bytes, len, ops),
                    Typed::U16(k) => call(k, dst, bytes, len, ops),
                    Typed::U32(k) => call(k, dst, bytes, len, ops),
                    Typed::U64(k) => call(k, dst, bytes, len, ops),
                    Typed::F16(k) => call(k, dst, bytes, len, ops),
                    Typed::BF16(k) => call(k, dst, bytes, len, ops),
                    Typed::F32(k) => call(k, dst, bytes, len, ops),
                    Typed::F64(k) => call(k, dst, bytes, len, ops),
                    Typed::C64(k) => call(k, dst, bytes, len, ops),
                    Typed::C128(k) => call(k, dst, bytes, len, ops),
                },
                (Kernel::ShiftOr(ElementType::U32), &[x, a, b]) => {
                    slot_as::<u32>(dst, bytes, len).is_some_and(|d| rounds::shift_or(d, x, a, b))
                }
                (Kernel::ShiftOr(ElementType::U64), &[x, a, b]) => {
                    slot_as::<u64>(dst, bytes, len).is_some_and(|d| rounds::shift_or(d, x, a, b))
                }
                (Kernel::Round(ElementType::U32), &[y, x, a, b]) => {
                    slot_as::<u32>(dst, bytes, len).is_some_and(|d| rounds::round(d, y, x, a, b))
                }
                (Kernel::Round(ElementType::U64), &[y, x, a, b]) => {
                    slot_as::<u64>(dst, bytes, len).is_some_and(|d| rounds::round(d, y, x, a, b))
                }
                (Kernel::Chain(ty, r), &[y, x, ref amounts @ ..]) if amounts.len() == 2 * r => {
                    // The chain's last `xor`: its slot, which `compile` gave it beside this
                    // member's and which none of the operands holds.
                    let dx = c
                        .second
                        .get(s)
                        .copied()
                        .flatten()
                        .and_then(|o| table.get(members + o))
                        .map_or(std::ptr::null_mut(), |r| r.cast_mut())
                        .cast::<MaybeUninit<Line>>();
                    !dx.is_null()
                        && match ty {
                            ElementType::U32 => chain::<u32>(dst, dx, bytes, len, y, x, amounts),
                            ElementType::U64 => chain::<u64>(dst, dx, bytes, len, y, x, amounts),
                            _ => false,
                        }
                }
                _ => false,
            }
        };
        if !ok {
            return Err(at_member(
                s,
                Error::internal("a fused member's kernel refused its operands"),
            ));
        }
    }
    // The outputs, once no member of the chunk reads a lent input any more. (Output slots are
    // never reused within a chunk.)
    for (&(s, o), &direct) in c.outputs.iter().zip(direct.iter()) {
        if direct {
            continue;
        }
        let r = Raw {
            ty: *c.tys.get(s).ok_or_else(|| missing(s))?,
            ptr: table.get(members + s).copied().ok_or_else(|| missing(s))?,
            len,
        };
        // SAFETY: member `s` wrote `len` elements of its type this chunk, and its slot, an
        // output's, was not reused.
        let v = unsafe { raw_view(r) }.ok_or_else(|| missing(s))?;
        sinks
            .get_mut(o)
            .ok_or_else(|| missing(s))?
            .write(at, len, v)
            .map_err(|e| at_member(s, e))?;
    }
    Ok(())
}
