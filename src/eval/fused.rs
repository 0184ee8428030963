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

/// Groups smaller than this are not worth tiling: their arrays already sit in the caches.
pub const MIN_ELEMENTS: usize = 1 << 16;

/// Elements per tile: a few thousand, so that a tile of every live intermediate (8 to 64 KiB
/// each) stays in the core's L2 cache while the per-op overhead (one call and one small
/// allocation per member per tile) stays small next to the work on the tile. (2048 and 4096
/// measured no faster on the benchmark programs; 16384 slower.)
pub const TILE: usize = 8192;

/// Readers of one array beyond which they are not gathered as siblings.
const MAX_SIBLINGS: usize = 64;

/// What a computation's evaluation does at each instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Evaluated on its own, op by op.
    Alone,
    /// Never evaluated on its own: a member of a group other than its last, a value groups
    /// generate (a broadcast, an iota) that nothing else reads, or a value of an op without
    /// effects that nothing reads at all.
    Skipped,
    /// The last member of group `g`: the whole group is evaluated here.
    Runs(usize),
}

/// Where a member's operand comes from, tile by tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// The value of an earlier step of the group.
    Step(usize),
    /// An array of the group's dimensions computed outside it (`Group::fulls[j]`): its tile is
    /// read where it lies.
    Full(usize),
    /// A rank-0 value from outside (`Group::splats[j]`), broadcast to every element.
    Splat(usize),
    /// An integer `iota` of the group's dimensions (`Group::iotas[j]`), generated tile by tile.
    Iota(usize),
    /// A small array from outside broadcast to the group's dimensions (`Group::bcasts[j]`), its
    /// elements gathered tile by tile.
    Bcast(usize),
    /// A rank-0 value from outside (`Group::scalars[j]`) that the op itself takes as a scalar.
    Scalar(usize),
}

/// One member of a group.
#[derive(Clone, Debug)]
pub struct Step {
    /// The instruction (its index in the computation).
    pub inst: usize,
    pub operands: Vec<Source>,
    /// Its position in `Group::outputs` when the value is used outside the group.
    pub output: Option<usize>,
    /// Tile values no later step needs, dropped once this step is done (all but `Splat` and
    /// `Scalar`, which last the whole evaluation).
    pub frees: Vec<Source>,
}

/// A group of element-wise instructions evaluated together, tile by tile.
#[derive(Clone, Debug)]
pub struct Group {
    /// The dimensions every member has.
    pub dims: Vec<i64>,
    pub elements: usize,
    /// Members in definition order (so operands come first).
    pub steps: Vec<Step>,
    /// Instructions outside the group whose values it reads, by `Source` kind.
    pub fulls: Vec<usize>,
    pub splats: Vec<usize>,
    pub scalars: Vec<usize>,
    /// The `iota` instructions the group generates instead of reading.
    pub iotas: Vec<Iota>,
    /// The broadcasts of arrays the group gathers instead of reading.
    pub bcasts: Vec<Bcast>,
    /// Members whose values are used outside the group (or are the computation's root).
    pub outputs: Vec<usize>,
}

impl Group {
    /// The instructions outside the group whose values it reads.
    pub fn inputs(&self) -> impl Iterator<Item = usize> + '_ {
        self.fulls
            .iter()
            .chain(&self.splats)
            .chain(&self.scalars)
            .copied()
            .chain(self.bcasts.iter().map(|b| b.src))
    }

    /// The group's instructions (its members), in definition order.
    pub fn members(&self) -> impl Iterator<Item = usize> + '_ {
        self.steps.iter().map(|s| s.inst)
    }
}

/// How one computation is evaluated: each instruction's role, the groups, and the point after
/// which each value is no longer needed.
#[derive(Clone, Debug)]
pub struct Plan {
    pub role: Vec<Role>,
    pub groups: Vec<Group>,
    /// The last instruction that reads each value (`usize::MAX` for the root), counting a group's
    /// inputs as read where the group runs and a mapped producer's where its scatter runs; 0 for
    /// a value nothing reads.
    pub last_use: Vec<usize>,
    /// Per instruction (empty without fusion): a scatter's updates computed as it reads them.
    pub mapped: Vec<Option<mapped::MappedUpdates>>,
}

impl Plan {
    /// The updates scatter `i` computes from its producer's operands, if it does.
    pub fn mapped_updates(&self, i: usize) -> Option<&mapped::MappedUpdates> {
        self.mapped.get(i)?.as_ref()
    }
}

/// The dimensions of instruction `i` when it can be a member of a group, else `None`.
fn member_dims(comp: &Computation, i: usize) -> Option<&[i64]> {
    let inst = comp.instructions.get(i)?;
    // Select's predicate and clamp's bounds may be scalars; no other operand of an element-wise
    // op may (the verifier's `elementwise.same_shape`).
    let scalar_ok = |k: usize| match &inst.op {
        Op::Elementwise(ElementwiseOp::Select) => k == 0,
        Op::Elementwise(ElementwiseOp::Clamp) => k == 0 || k == 2,
        _ => false,
    };
    if !matches!(inst.op, Op::Unary(_) | Op::Binary(_) | Op::Elementwise(_)) {
        return None;
    }
    let s = inst.shape.as_array()?;
    let count = usize::try_from(s.checked_element_count()?).ok()?;
    if count < MIN_ELEMENTS || s.dynamic.iter().any(|&d| d) {
        return None;
    }
    for (k, &o) in inst.operands.iter().enumerate() {
        let os = comp.instructions.get(o)?.shape.as_array()?;
        let same = os.dims == s.dims && !os.dynamic.iter().any(|&d| d);
        let scalar = os.dims.is_empty() && scalar_ok(k);
        if !(same || scalar) {
            return None;
        }
    }
    Some(&s.dims)
}

/// An `iota` whose values a group generates tile by tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Iota {
    pub inst: usize,
    pub ty: ElementType,
    /// The size of the iota dimension, and the number of elements each of its values repeats
    /// for (the product of the later dimensions).
    pub size: usize,
    pub inner: usize,
}

/// A `broadcast` of an array whose elements a group gathers tile by tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bcast {
    pub inst: usize,
    /// The broadcast's operand.
    pub src: usize,
    /// The group's dimensions, and for each the operand's stride along it (0 where the operand
    /// does not vary: a dimension it lacks, or one of its own of size 1).
    pub dims: Vec<usize>,
    pub strides: Vec<usize>,
}

/// A value a group makes itself instead of reading: a broadcast, or an integer `iota`.
enum Generator {
    /// A broadcast of a rank-0 operand (this one).
    Splat(usize),
    Iota(Iota),
    Bcast(Bcast),
}

/// What instruction `o` generates when it is a broadcast to `dims` (of a rank-0 value, or of an
/// array at most an eighth of the result's size), or an `iota` of `dims` with an integer element
/// type.
///
/// Integer iotas only: their elements are `v as T` for the index `v`, exactly what
/// `movement::iota` stores; a float iota is left to `movement` (its F16 and BF16 values go
/// through F32, a formula better kept in one place).
fn generator(comp: &Computation, o: usize, dims: &[i64]) -> Option<Generator> {
    let inst = comp.instructions.get(o)?;
    let s = inst.shape.as_array()?;
    if s.dims != dims || s.dynamic.iter().any(|&d| d) {
        return None;
    }
    match &inst.op {
        Op::Movement(MovementOp::Broadcast(b)) => {
            let &src = inst.operands.first()?;
            let a = comp.instructions.get(src)?.shape.as_array()?;
            if a.dims.is_empty() {
                return Some(Generator::Splat(src));
            }
            // Gathering is worth it for a small operand (a bias, a row of indices), which stays
            // in the caches; a large one is better read in order once, by `movement`.
            let count = usize::try_from(a.checked_element_count()?).ok()?;
            let out = usize::try_from(s.checked_element_count()?).ok()?;
            if a.dynamic.iter().any(|&d| d) || count.saturating_mul(8) > out {
                return None;
            }
            let udims: Vec<usize> = dims
                .iter()
                .map(|&d| usize::try_from(d).ok())
                .collect::<Option<_>>()?;
            let mut strides = vec![0usize; dims.len()];
            let mut stride = 1usize;
            for (i, &size) in a.dims.iter().enumerate().rev() {
                let od = usize::try_from(*b.dimensions.get(i)?).ok()?;
                if size != 1 {
                    *strides.get_mut(od)? = stride;
                }
                stride = stride.checked_mul(usize::try_from(size).ok()?)?;
            }
            Some(Generator::Bcast(Bcast {
                inst: o,
                src,
                dims: udims,
                strides,
            }))
        }
        Op::Movement(MovementOp::Iota(a)) => {
            let d = usize::try_from(a.dimension).ok()?;
            let integer = s.ty.is_integer();
            let size = usize::try_from(*dims.get(d)?).ok()?;
            let inner = dims[d + 1..]
                .iter()
                .try_fold(1usize, |acc, &x| acc.checked_mul(usize::try_from(x).ok()?))?;
            (integer && size > 0 && inner > 0).then_some(Generator::Iota(Iota {
                inst: o,
                ty: s.ty,
                size,
                inner,
            }))
        }
        _ => None,
    }
}

/// Whether evaluating `op` only computes its value: no effect on other state (a random
/// generator's, a channel's, a feed's, other replicas'), no computation of its own to call.
fn pure(op: &Op) -> bool {
    matches!(
        op,
        Op::Movement(_)
            | Op::Unary(_)
            | Op::Binary(_)
            | Op::Elementwise(_)
            | Op::Linalg(_)
            | Op::Indexing(IndexingOp::Gather(_))
    )
}

impl Plan {
    /// The plan of `comp`; with `fuse` false, every instruction is evaluated on its own.
    pub fn new(comp: &Computation, fuse: bool) -> Plan {
        let n = comp.instructions.len();
        let mut users: Vec<Vec<usize>> = vec![vec![]; n];
        for (i, inst) in comp.instructions.iter().enumerate() {
            for &o in &inst.operands {
                if let Some(u) = users.get_mut(o)
                    && u.last() != Some(&i)
                {
                    u.push(i);
                }
            }
        }
        let mapped = if fuse {
            mapped::find(comp, &users)
        } else {
            vec![]
        };
        // A mapped producer is evaluated inside its scatter, never in a group.
        let mut producer: Vec<Option<&mapped::MappedUpdates>> = vec![None; n];
        for m in mapped.iter().flatten() {
            producer[m.inst] = Some(m);
        }
        let groups = if fuse {
            form_groups(comp, &users, &|i| producer[i].is_none())
        } else {
            vec![]
        };
        let mut role = vec![Role::Alone; n];
        // Where each instruction's reads happen: at the group's last member for a member, at
        // the scatter for a mapped producer.
        let mut at: Vec<usize> = (0..n).collect();
        for (g, group) in groups.iter().enumerate() {
            let last = group.members().max().unwrap_or(0);
            for m in group.members() {
                role[m] = Role::Skipped;
                at[m] = last;
            }
            role[last] = Role::Runs(g);
        }
        for (s, m) in mapped.iter().enumerate() {
            if let Some(m) = m {
                role[m.inst] = Role::Skipped;
                at[m.inst] = s;
            }
        }
        // (A mapped producer's generated operands are all rank-0 broadcasts, which it reads as
        // their rank-0 value: for them it counts as a member.)
        let member: Vec<bool> = role.iter().map(|r| *r != Role::Alone).collect();
        for (b, bu) in users.iter().enumerate() {
            // Every member reading such a value generates it instead (`build_group`).
            let generated = comp.instructions[b]
                .shape
                .as_array()
                .is_some_and(|s| generator(comp, b, &s.dims).is_some());
            if generated && b != comp.root && !bu.is_empty() && bu.iter().all(|&u| member[u]) {
                role[b] = Role::Skipped;
            }
        }
        // Values nothing reads, from ops without effects, are never computed (as XLA's dead
        // code elimination removes them): a loop condition that unpacks its whole state tuple
        // to compare one counter paid for the other elements every iteration.
        let mut live = vec![false; n];
        if let Some(r) = live.get_mut(comp.root) {
            *r = true;
        }
        for (i, inst) in comp.instructions.iter().enumerate().rev() {
            if role[i] == Role::Alone && !live[i] && pure(&inst.op) {
                role[i] = Role::Skipped;
                continue;
            }
            for &o in &inst.operands {
                if let Some(l) = live.get_mut(o) {
                    *l = true;
                }
            }
        }
        let mut last_use = vec![0usize; n];
        for (i, inst) in comp.instructions.iter().enumerate() {
            match role[i] {
                Role::Alone => {
                    for &o in &inst.operands {
                        last_use[o] = last_use[o].max(at[i]);
                    }
                }
                Role::Runs(g) => {
                    for o in groups[g].inputs() {
                        last_use[o] = last_use[o].max(at[i]);
                    }
                }
                Role::Skipped => {
                    if let Some(m) = producer[i] {
                        for o in m.inputs() {
                            last_use[o] = last_use[o].max(at[i]);
                        }
                    }
                }
            }
        }
        if let Some(r) = last_use.get_mut(comp.root) {
            *r = usize::MAX;
        }
        Plan {
            role,
            groups,
            last_use,
            mapped,
        }
    }
}

/// The groups of a computation, formed last member first (see the module's doc).
fn form_groups(
    comp: &Computation,
    users: &[Vec<usize>],
    may_join: &dyn Fn(usize) -> bool,
) -> Vec<Group> {
    let n = comp.instructions.len();
    let dims: Vec<Option<&[i64]>> = (0..n)
        .map(|i| member_dims(comp, i).filter(|_| may_join(i)))
        .collect();
    // Arrays groups read from memory (not generated): what siblings share.
    let full_input = |o: usize| {
        comp.instructions[o].shape.as_array().is_some_and(|s| {
            s.element_count() >= MIN_ELEMENTS && generator(comp, o, &s.dims).is_none()
        })
    };
    let mut group_of: Vec<Option<usize>> = vec![None; n];
    // `in_region[x] == c` while `x` is a candidate for the group ending at `c`.
    let mut in_region: Vec<usize> = vec![usize::MAX; n];
    let mut groups: Vec<Group> = vec![];
    for c in (0..n).rev() {
        let Some(d) = dims[c] else { continue };
        // A value nothing reads is left to the op-by-op path, which evaluates it as it always has.
        if group_of[c].is_some() || (users[c].is_empty() && c != comp.root) {
            continue;
        }
        let eligible = |x: usize, group_of: &[Option<usize>]| {
            x <= c
                && group_of[x].is_none()
                && dims[x] == Some(d)
                && (!users[x].is_empty() || x == comp.root)
        };
        // Producers, consumers, and the other readers of an array read from outside: a group
        // that holds several readers of one array reads it from memory once.
        let neighbours = |x: usize| {
            let ops = &comp.instructions[x].operands;
            // (An array with very many readers is skipped, which keeps forming groups from
            // going quadratic; those readers still meet through their other links.)
            let siblings = ops
                .iter()
                .filter(|&&o| dims[o].is_none() && users[o].len() <= MAX_SIBLINGS && full_input(o))
                .flat_map(|&o| users[o].iter());
            ops.iter().chain(&users[x]).chain(siblings).copied()
        };
        // The candidates: what is connected to `c` through eligible instructions up to `c`.
        in_region[c] = c;
        let mut region = vec![c];
        let mut k = 0;
        while let Some(&x) = region.get(k) {
            k += 1;
            for y in neighbours(x) {
                if in_region[y] != c && eligible(y, &group_of) {
                    in_region[y] = c;
                    region.push(y);
                }
            }
        }
        // Out goes every candidate read before `c` by something outside the candidates (the group
        // runs at `c`, too late for that reader), and then, in turn, its producers.
        let mut todo = region.clone();
        while let Some(x) = todo.pop() {
            if in_region[x] == c && x != c && users[x].iter().any(|&u| in_region[u] != c && u < c) {
                in_region[x] = usize::MAX;
                let ops = &comp.instructions[x].operands;
                todo.extend(ops.iter().copied().filter(|&p| in_region[p] == c));
            }
        }
        // The group: what remains connected to `c`.
        let g = groups.len();
        group_of[c] = Some(g);
        let mut members = vec![c];
        let mut k = 0;
        while let Some(&x) = members.get(k) {
            k += 1;
            for y in neighbours(x) {
                if in_region[y] == c && group_of[y].is_none() {
                    group_of[y] = Some(g);
                    members.push(y);
                }
            }
        }
        members.sort_unstable();
        let group = build_group(comp, users, &group_of, g, d, &members);
        let worth = members.len() > 1
            || group.steps[0]
                .operands
                .iter()
                .any(|s| matches!(s, Source::Splat(_) | Source::Iota(_) | Source::Bcast(_)));
        if worth {
            groups.push(group);
        } else {
            for &m in &members {
                group_of[m] = None;
            }
        }
    }
    // Formed last member first; report them in definition order.
    groups.reverse();
    groups
}

fn build_group(
    comp: &Computation,
    users: &[Vec<usize>],
    group_of: &[Option<usize>],
    g: usize,
    dims: &[i64],
    members: &[usize],
) -> Group {
    let mut group = Group {
        dims: dims.to_vec(),
        elements: dims.iter().product::<i64>() as usize,
        steps: vec![],
        fulls: vec![],
        splats: vec![],
        scalars: vec![],
        iotas: vec![],
        bcasts: vec![],
        outputs: vec![],
    };
    let index = |v: &mut Vec<usize>, o: usize| {
        v.iter().position(|&x| x == o).unwrap_or_else(|| {
            v.push(o);
            v.len() - 1
        })
    };
    for &m in members {
        let inst = &comp.instructions[m];
        let mut operands = Vec::with_capacity(inst.operands.len());
        for &o in &inst.operands {
            let src = if group_of[o] == Some(g) {
                Source::Step(members.binary_search(&o).unwrap_or(0))
            } else if let Some(made) = generator(comp, o, dims) {
                match made {
                    Generator::Splat(s) => Source::Splat(index(&mut group.splats, s)),
                    Generator::Iota(io) => {
                        let j = match group.iotas.iter().position(|x| x.inst == o) {
                            Some(j) => j,
                            None => {
                                group.iotas.push(io);
                                group.iotas.len() - 1
                            }
                        };
                        Source::Iota(j)
                    }
                    Generator::Bcast(bc) => {
                        let j = match group.bcasts.iter().position(|x| x.inst == o) {
                            Some(j) => j,
                            None => {
                                group.bcasts.push(bc);
                                group.bcasts.len() - 1
                            }
                        };
                        Source::Bcast(j)
                    }
                }
            } else if comp.instructions[o]
                .shape
                .as_array()
                .is_some_and(|a| a.dims.is_empty())
            {
                Source::Scalar(index(&mut group.scalars, o))
            } else {
                Source::Full(index(&mut group.fulls, o))
            };
            operands.push(src);
        }
        let outside = m == comp.root || users[m].iter().any(|&u| group_of[u] != Some(g));
        let output = outside.then(|| {
            group.outputs.push(m);
            group.outputs.len() - 1
        });
        group.steps.push(Step {
            inst: m,
            operands,
            output,
            frees: vec![],
        });
    }
    // Each tile value is dropped after the last step that reads it (a value no step reads, after
    // its own step).
    let mut last: Vec<(Source, usize)> = vec![];
    for (s, step) in group.steps.iter().enumerate() {
        last.push((Source::Step(s), s));
        for &src in &step.operands {
            if matches!(
                src,
                Source::Step(_) | Source::Full(_) | Source::Iota(_) | Source::Bcast(_)
            ) {
                match last.iter_mut().find(|(x, _)| *x == src) {
                    Some(e) => e.1 = s,
                    None => last.push((src, s)),
                }
            }
        }
    }
    for (src, s) in last {
        group.steps[s].frees.push(src);
    }
    group
}

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
        for (d, &x) in dst.iter_mut().zip(src) {
            d.write(x);
        }
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
    /// no later member reads it measured no faster.
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
#[cfg(test)]
mod tests;
