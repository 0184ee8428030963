//! `reduce`. Each result element folds the operand elements that share its kept coordinates:
//! starting from the init value, the reducer is applied as `acc = f(acc, x)` to the reduced
//! elements in row-major order of the reduced dimensions (the lowest-numbered reduced dimension
//! varies slowest). This is the order the seed's recursive definition of variadic reduce uses
//! (`f_0 = f(I, V_0)`, `f_1 = f(f_0, V_1)`, ...) and the order of XLA's evaluator.
//!
//! Fast path (recognised reducer, one operand): result elements are computed in parallel; an
//! exactly associative reducer (integers, max/min, and/or) with few result elements also splits
//! each fold into chunks combined in order, which gives the same bits as the sequential fold.

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

impl FoldPlan for ReducePlan {
    fn fold<T, F>(&self, data: &[T], init: T, f: F, assoc: bool) -> Vec<T>
    where
        T: Copy + Send + Sync + 'static,
        F: Fn(T, T) -> T + Sync + Send,
    {
        let out_n = self.kept.count();
        let red_n = self.reduced.count();
        let fold_range = |base: usize, from: usize, to: usize, acc: T| {
            self.reduced.fold_range(data, base, from, to, acc, &f)
        };
        if out_n * red_n < PAR_MIN {
            return (0..out_n)
                .map(|o| fold_range(self.kept.offset(o), 0, red_n, init))
                .collect();
        }
        let threads = crate::kernels::pool::threads();
        if assoc && out_n < threads * 4 && red_n >= PAR_MIN {
            // Few long folds: split each into chunks; chunk 0 starts from init, the others from
            // their own first element, and the partial results combine left to right.
            let chunk = red_n.div_ceil(threads * 4).max(4096);
            return (0..out_n)
                .map(|o| {
                    let base = self.kept.offset(o);
                    let parts: Vec<T> =
                        crate::kernels::pool::collect_indexed(red_n.div_ceil(chunk), 1, &|c| {
                            let (from, to) = (c * chunk, ((c + 1) * chunk).min(red_n));
                            if c == 0 {
                                fold_range(base, from, to, init)
                            } else {
                                let first = data[base + self.reduced.offset(from)];
                                fold_range(base, from + 1, to, first)
                            }
                        });
                    parts.into_iter().reduce(&f).unwrap_or(init)
                })
                .collect();
        }
        crate::kernels::pool::collect_indexed(out_n, (PAR_MIN / red_n.max(1)).max(1), &|o| {
            fold_range(self.kept.offset(o), 0, red_n, init)
        })
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
        |o, f| plan.reduced.for_range(plan.kept.offset(o), 0, red_n, f),
    )?;
    super::collate_result(inst, &out_dims, datas)
}
