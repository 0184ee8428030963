//! `reduce`. Each result element folds the operand elements that share its kept coordinates,
//! taken in row-major order of the reduced dimensions (the lowest-numbered reduced dimension
//! varies slowest), in blocks of `BLOCK`: block 0 starts from the init value, every later block
//! from its own first element, each folds its elements one by one as `acc = f(acc, x)`, and the
//! block results combine left to right. A fold of at most `BLOCK` elements is therefore the
//! sequential fold of the seed's recursive definition of variadic reduce (`f_0 = f(I, V_0)`,
//! `f_1 = f(f_0, V_1)`, ...) and of XLA's evaluator; a longer one is a reassociation XLA allows
//! (the book's reduce page, "Order"). The blocks are why a long sum is not one chain of
//! dependent additions: they fold side by side, several per thread.
//!
//! Fast path (recognised reducer, one operand): every (result element, block) pair is an
//! independent chain; chains run in parallel, and eight of equal length on unit-stride data
//! run interleaved in one loop so that their additions overlap.

use super::fast::FoldPlan;
use super::{Evaluator, fold_all, inputs_and_inits};
use crate::error::Result;
use crate::hlo::ast::Instruction;
use crate::hlo::attrs::ReduceAttrs;
use crate::literal::Literal;

/// Sizes and strides of a set of dimensions, adjacent mergeable dimensions merged, so that the
/// innermost loop runs as long as possible.
#[derive(Clone, Debug, Default)]
pub struct Strided {
    /// `(size, stride)` from outermost to innermost.
    dims: Vec<(usize, usize)>,
}

impl Strided {
    pub fn new(pairs: impl IntoIterator<Item = (usize, usize)>) -> Strided {
        let mut dims: Vec<(usize, usize)> = Vec::new();
        for (n, s) in pairs {
            if n == 1 {
                continue;
            }
            match dims.last_mut() {
                // The previous dimension steps exactly over this one: one longer dimension.
                Some(last) if last.1 == n * s => *last = (last.0 * n, s),
                _ => dims.push((n, s)),
            }
        }
        Strided { dims }
    }

    pub fn count(&self) -> usize {
        self.dims.iter().map(|d| d.0).product()
    }

    /// The offset of the `k`-th position in row-major order.
    pub fn offset(&self, mut k: usize) -> usize {
        let mut off = 0;
        for &(n, s) in self.dims.iter().rev() {
            off += (k % n) * s;
            k /= n;
        }
        off
    }

    /// Calls `f` with `base + offset` for positions `from..to` in row-major order.
    pub fn for_range(&self, base: usize, from: usize, to: usize, mut f: impl FnMut(usize)) {
        if from >= to {
            return;
        }
        let Some(&(inner_n, inner_s)) = self.dims.last() else {
            f(base);
            return;
        };
        let mut k = from;
        while k < to {
            let start = base + self.offset(k);
            let j0 = k % inner_n;
            let len = (inner_n - j0).min(to - k);
            for j in 0..len {
                f(start + j * inner_s);
            }
            k += len;
        }
    }
}

impl Strided {
    /// Folds `data` at positions `from..to` (from `base`, row-major) into `acc` with `f`, in
    /// order: the same sequence of `f` calls as `for_range`, but a unit-stride innermost
    /// dimension is walked as a slice, so the loop carries no index arithmetic or bounds checks.
    #[inline]
    pub fn fold_range<T: Copy>(
        &self,
        data: &[T],
        base: usize,
        from: usize,
        to: usize,
        mut acc: T,
        f: &impl Fn(T, T) -> T,
    ) -> T {
        match self.dims.last() {
            Some(&(inner_n, 1)) if from < to => {
                let mut k = from;
                while k < to {
                    let start = base + self.offset(k);
                    let len = (inner_n - k % inner_n).min(to - k);
                    acc = data[start..start + len].iter().fold(acc, |a, &x| f(a, x));
                    k += len;
                }
                acc
            }
            _ => {
                self.for_range(base, from, to, |k| acc = f(acc, data[k]));
                acc
            }
        }
    }
}

/// Where the kept and the reduced coordinates of a reduce sit in the operand.
pub struct ReducePlan {
    pub kept: Strided,
    pub reduced: Strided,
}

impl ReducePlan {
    pub fn new(dims: &[i64], reduce: &[i64]) -> ReducePlan {
        let strides = crate::shape::row_major_strides(dims);
        let pick = |want: bool| {
            Strided::new(
                (0..dims.len())
                    .filter(|d| reduce.contains(&(*d as i64)) == want)
                    .map(|d| (dims[d] as usize, strides[d])),
            )
        };
        ReducePlan {
            kept: pick(false),
            reduced: pick(true),
        }
    }
}

/// Below this much work a kernel stays on the calling thread.
const PAR_MIN: usize = 1 << 15;

/// The length of the blocks a long fold is cut into (see the module comment). Part of the
/// semantics: a different length changes the rounding of long float sums.
pub const BLOCK: usize = 4096;

/// Chains folded side by side in one loop: enough independent additions to cover a float add's
/// latency at two adds a cycle on the x86 cores we run on (2 to 4 cycles).
const CHAINS: usize = 8;

/// One reduce's chains: every (result element, block) pair, folded independently (chain `c` is
/// result element `c / blocks`, block `c % blocks`).
struct Chains<'a, T, F> {
    plan: &'a ReducePlan,
    data: &'a [T],
    init: T,
    f: &'a F,
    blocks: usize,
    red_n: usize,
}

impl<T: Copy, F: Fn(T, T) -> T> Chains<'_, T, F> {
    /// Chain `c`'s accumulator (over its first element: `f(init, x)` for block 0, `x` itself for
    /// later blocks) and the offset of the first reduced position after it.
    #[inline(always)]
    fn head(&self, c: usize) -> (T, usize, usize) {
        let (o, b) = (c / self.blocks, c % self.blocks);
        let base = self.plan.kept.offset(o);
        let first = self.data[base + self.plan.reduced.offset(b * BLOCK)];
        let acc = if b == 0 {
            (self.f)(self.init, first)
        } else {
            first
        };
        (acc, base, b * BLOCK + 1)
    }

    /// The end of chain `c`'s block among the reduced positions.
    fn end(&self, c: usize) -> usize {
        ((c % self.blocks + 1) * BLOCK).min(self.red_n)
    }

    /// Folds chains `start..start + dst.len()` into `dst` (`red_n >= 1`).
    fn fold(&self, start: usize, dst: &mut [std::mem::MaybeUninit<T>]) {
        let (data, f) = (self.data, self.f);
        if !matches!(self.plan.reduced.dims.as_slice(), [(_, 1)]) {
            for (i, d) in dst.iter_mut().enumerate() {
                let (acc, base, from) = self.head(start + i);
                let to = self.end(start + i);
                d.write(self.plan.reduced.fold_range(data, base, from, to, acc, f));
            }
            return;
        }
        // Unit stride: a chain's rest is the slice `data[base + from..base + to]`.
        let run = |c: usize| {
            let (acc, base, from) = self.head(c);
            (acc, &data[base + from..base + self.end(c)])
        };
        for (g, group) in dst.chunks_mut(CHAINS).enumerate() {
            let c0 = start + g * CHAINS;
            if group.len() == CHAINS {
                let heads: [(T, &[T]); CHAINS] = std::array::from_fn(|j| run(c0 + j));
                let len = heads[0].1.len();
                if heads.iter().all(|h| h.1.len() == len) {
                    // Eight independent folds, one element of each per step: the same calls of
                    // `f` in the same order per chain as folding them one after another.
                    let mut accs: [T; CHAINS] = std::array::from_fn(|j| heads[j].0);
                    // Sliced to `len` again, so that the compiler sees every index in bounds.
                    let runs: [&[T]; CHAINS] = std::array::from_fn(|j| &heads[j].1[..len]);
                    // `t` indexes every run: no one run to iterate.
                    #[allow(clippy::needless_range_loop)]
                    for t in 0..len {
                        for j in 0..CHAINS {
                            accs[j] = f(accs[j], runs[j][t]);
                        }
                    }
                    for (d, a) in group.iter_mut().zip(accs) {
                        d.write(a);
                    }
                    continue;
                }
            }
            for (j, d) in group.iter_mut().enumerate() {
                let (acc, rest) = run(c0 + j);
                d.write(rest.iter().fold(acc, |a, &x| f(a, x)));
            }
        }
    }
}

impl FoldPlan for ReducePlan {
    /// Every reducer folds in the block order of the module comment, so `assoc` is not needed:
    /// the order is the semantics for all of them (and gives an exactly associative reducer the
    /// bits of the sequential fold).
    fn fold<T, F>(&self, data: &[T], init: T, f: F, _assoc: bool) -> Vec<T>
    where
        T: Copy + Send + Sync + 'static,
        F: Fn(T, T) -> T + Sync + Send,
    {
        let out_n = self.kept.count();
        let red_n = self.reduced.count();
        let blocks = red_n.div_ceil(BLOCK).max(1);
        let chains = out_n * blocks;
        let partials: Vec<T> = if red_n == 0 {
            vec![init; out_n]
        } else {
            let min_chunk = (PAR_MIN / red_n.min(BLOCK)).max(1);
            let chunk = chains
                .div_ceil(crate::kernels::pool::threads() * 4)
                .max(min_chunk);
            let chains_of = Chains {
                plan: self,
                data,
                init,
                f: &f,
                blocks,
                red_n,
            };
            crate::kernels::pool::fill_fresh(chains, chunk, &|start, dst| {
                chains_of.fold(start, dst)
            })
        };
        if blocks == 1 {
            return partials;
        }
        partials
            .chunks(blocks)
            .map(|p| p.iter().copied().reduce(&f).unwrap_or(init))
            .collect()
    }
}

pub fn reduce(
    ev: &Evaluator,
    inst: &Instruction,
    attrs: &ReduceAttrs,
    ops: &[&Literal],
) -> Result<Literal> {
    let (inputs, inits) = inputs_and_inits(ops)?;
    let dims = &attrs.dimensions[..];
    let in_dims = &inputs[0].shape.dims;
    let out_dims: Vec<i64> = (0..in_dims.len())
        .filter(|d| !dims.contains(&(*d as i64)))
        .map(|d| in_dims[d])
        .collect();
    let plan = ReducePlan::new(in_dims, dims);
    let comp = attrs.to_apply.0;
    let red_n = plan.reduced.count();
    let datas = fold_all(
        ev,
        comp,
        &inputs,
        &inits,
        &plan,
        plan.kept.count(),
        BLOCK,
        |o, f| plan.reduced.for_range(plan.kept.offset(o), 0, red_n, f),
    )?;
    super::collate_result(inst, &out_dims, datas)
}
