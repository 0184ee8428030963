//! The plan of a computation's fusion: which element-wise instructions form groups, each
//! group's steps and outputs, and the operands a group makes itself instead of reading
//! (`Generator`). How groups form is told in the module above.

use super::*;

/// Readers of one array beyond which they are not gathered as siblings.
pub(super) const MAX_SIBLINGS: usize = 64;

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
pub(super) fn member_dims(comp: &Computation, i: usize) -> Option<&[i64]> {
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
pub(super) enum Generator {
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
pub(super) fn generator(comp: &Computation, o: usize, dims: &[i64]) -> Option<Generator> {
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
pub(super) fn pure(op: &Op) -> bool {
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
pub(super) fn form_groups(
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

pub(super) fn build_group(
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
