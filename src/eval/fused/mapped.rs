//! Scatter updates computed as the scatter reads them: an evaluation strategy whose naive twin is
//! evaluating the updates' producer first (`Options::fusion` off).
//!
//! Why: `segment_sum(x * 2, ids)` and an embedding gradient scaled by a learning rate scatter the
//! result of one element-wise op that nothing else reads. Op by op, that op writes its whole
//! result (8 MiB in the embedding program) and the scatter reads it back: two trips to memory for
//! values used once. XLA fuses such a producer into the scatter. Here the scatter's typed loop
//! computes each run of updates it applies, a run at a time, through the very kernel the op-by-op
//! path maps over the whole array (`elementwise::binary_kernel`), into a buffer that stays in L1.
//!
//! What is mapped (`find`): the updates of a single-operand `scatter` made by a binary op whose
//! only reader is that scatter, with at least `MIN_ELEMENTS` elements and static dimensions, whose
//! operands each have its dimensions or are a broadcast of a rank-0 value (read as that value).
//! The producer is then never evaluated on its own; its operands are read where the scatter runs.
//! When the scatter cannot take a typed loop (an interpreted combiner, types the kernel refuses),
//! it evaluates the producer in full first, exactly as the op-by-op path does.
//!
//! Exactness: element `i` of a computed run is the kernel's element function on element `i` of
//! each operand (or the scalar), as it is in the op-by-op result, and the scatter applies the
//! updates in the same order either way.

use super::{Generator, MIN_ELEMENTS, generator};
use crate::hlo::ast::Computation;
use crate::hlo::opcode::{BinaryOp, IndexingOp, Op};

/// Where an operand of a mapped producer comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// An array of the producer's dimensions (this instruction's value).
    Array(usize),
    /// A broadcast of a rank-0 value: that value (this instruction's).
    Splat(usize),
}

/// A scatter's updates, computed from the producer's operands as the scatter reads them.
#[derive(Clone, Debug, PartialEq)]
pub struct MappedUpdates {
    /// The producer: the binary op whose value the scatter's updates are.
    pub inst: usize,
    pub op: BinaryOp,
    pub args: [Arg; 2],
}

impl MappedUpdates {
    /// The instructions whose values the scatter reads in the producer's place.
    pub fn inputs(&self) -> impl Iterator<Item = usize> + '_ {
        self.args.iter().map(|a| match *a {
            Arg::Array(o) | Arg::Splat(o) => o,
        })
    }
}

/// Per instruction: the mapped updates of each scatter that has them (`None` elsewhere).
pub fn find(comp: &Computation, users: &[Vec<usize>]) -> Vec<Option<MappedUpdates>> {
    (0..comp.instructions.len())
        .map(|s| mapped(comp, users, s))
        .collect()
}

fn mapped(comp: &Computation, users: &[Vec<usize>], s: usize) -> Option<MappedUpdates> {
    let inst = comp.instructions.get(s)?;
    if !matches!(inst.op, Op::Indexing(IndexingOp::Scatter(_))) || inst.operands.len() != 3 {
        return None;
    }
    let u = inst.operands[2];
    // The scatter alone reads the producer, and only as its updates.
    if u == comp.root || users.get(u)?.as_slice() != [s] || inst.operands[..2].contains(&u) {
        return None;
    }
    let prod = comp.instructions.get(u)?;
    let Op::Binary(op) = prod.op else {
        return None;
    };
    let shape = prod.shape.as_array()?;
    let count = usize::try_from(shape.checked_element_count()?).ok()?;
    if count < MIN_ELEMENTS || shape.dynamic.iter().any(|&d| d) || prod.operands.len() != 2 {
        return None;
    }
    let arg = |o: usize| -> Option<Arg> {
        match generator(comp, o, &shape.dims) {
            Some(Generator::Splat(src)) => Some(Arg::Splat(src)),
            // Other generated values (a broadcast of an array, an iota) may be skipped when
            // groups make them; the producer reads only what is stored.
            Some(_) => None,
            None => {
                let a = comp.instructions.get(o)?.shape.as_array()?;
                (a.dims == shape.dims && !a.dynamic.iter().any(|&d| d)).then_some(Arg::Array(o))
            }
        }
    };
    let args = [arg(prod.operands[0])?, arg(prod.operands[1])?];
    // At least one operand is an array: the runs are slices of it.
    if !args.iter().any(|a| matches!(a, Arg::Array(_))) {
        return None;
    }
    Some(MappedUpdates { inst: u, op, args })
}
