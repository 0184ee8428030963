//! `sort` and `topk`.
//!
//! Sort orders every row along the sort dimension with a top-down merge sort that takes the left
//! element unless `comparator(right, left)` holds: a stable sort, whatever `is_stable` says (an
//! unstable order is one permitted result, so the stable one always conforms). With a comparator
//! that is a strict weak order the result is the unique stable ordering; with any other
//! comparator the result is implementation-defined, and this is the reference's. Reference: the
//! seed's `Sort` section; XLA's evaluator also merge-sorts.
//!
//! TopK sorts each row of the last dimension by the IEEE total order of floats (numeric order
//! for integers, false < true for PRED), descending for `largest=true`, stably, and keeps the
//! first `k`: equal values keep their index order, as the seed requires.

use super::fast;
use super::reduce::ReducePlan;
use super::{Evaluator, collate_result};
use crate::error::{Error, Result};
use crate::hlo::ast::Instruction;
use crate::hlo::attrs::{SortAttrs, TopKAttrs};
use crate::literal::{Array, ArrayData, Literal, Scalar};
use std::cmp::Ordering;

/// Stable merge sort of `v` with a fallible strict "goes before" predicate.
pub fn merge_sort<E>(
    v: &mut [usize],
    less: &mut impl FnMut(usize, usize) -> std::result::Result<bool, E>,
) -> std::result::Result<(), E> {
    if v.len() <= 16 {
        // Insertion sort: an element moves left only past elements it goes strictly before.
        for i in 1..v.len() {
            let mut j = i;
            while j > 0 && less(v[j], v[j - 1])? {
                v.swap(j, j - 1);
                j -= 1;
            }
        }
        return Ok(());
    }
    let mid = v.len() / 2;
    merge_sort(&mut v[..mid], less)?;
    merge_sort(&mut v[mid..], less)?;
    let (left, right) = (v[..mid].to_vec(), v[mid..].to_vec());
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < left.len() && j < right.len() {
        if less(right[j], left[i])? {
            v[k] = right[j];
            j += 1;
        } else {
            v[k] = left[i];
            i += 1;
        }
        k += 1;
    }
    for &x in left[i..].iter().chain(&right[j..]) {
        v[k] = x;
        k += 1;
    }
    Ok(())
}

pub fn sort(
    ev: &Evaluator,
    inst: &Instruction,
    attrs: &SortAttrs,
    ops: &[&Literal],
) -> Result<Literal> {
    let inputs: Vec<&Array> = (0..ops.len())
        .map(|i| super::super::array(ops, i))
        .collect::<Result<_>>()?;
    let dims = inputs[0].shape.dims.clone();
    let d = attrs.dimensions[0];
    let plan = ReducePlan::new(&dims, &[d]);
    let rows = plan.kept.count();
    let m = plan.reduced.count();
    let row_offsets = |r: usize| {
        let mut offs = Vec::with_capacity(m);
        plan.reduced
            .for_range(plan.kept.offset(r), 0, m, |k| offs.push(k));
        offs
    };
    let comp = attrs.to_apply.0;
    let types: Vec<_> = inputs.iter().map(|a| a.ty()).collect();
    let recognised = fast::recognise_comparator(ev.module, comp, &types)
        .map(|c| (c, inputs[c.operand].data.clone()))
        .or_else(|| key_comparator(ev, comp, &inputs));
    let perms: Vec<Vec<usize>> = match recognised {
        Some((c, keys)) => {
            let keys = &keys;
            let sort_row = |r: usize| {
                let offs = row_offsets(r);
                let k: Vec<Scalar> = offs.iter().map(|&o| keys.get(o)).collect();
                let mut perm: Vec<usize> = (0..m).collect();
                let mut less = |i: usize, j: usize| -> std::result::Result<bool, ()> {
                    let (x, y) = if c.swapped {
                        (&k[j], &k[i])
                    } else {
                        (&k[i], &k[j])
                    };
                    Ok(c.direction.holds(fast::order(x, y, c.total)))
                };
                let _ = merge_sort(&mut perm, &mut less);
                perm
            };
            if rows * m < 1 << 14 {
                (0..rows).map(sort_row).collect()
            } else {
                crate::kernels::pool::collect_indexed(rows, 1, &sort_row)
            }
        }
        None => (0..rows)
            .map(|r| {
                let offs = row_offsets(r);
                let mut perm: Vec<usize> = (0..m).collect();
                let mut less = |i: usize, j: usize| -> Result<bool> {
                    let args = inputs
                        .iter()
                        .flat_map(|a| {
                            [
                                Literal::from_scalar(a.data.get(offs[i])),
                                Literal::from_scalar(a.data.get(offs[j])),
                            ]
                        })
                        .collect();
                    match ev.call(comp, args)?.scalar_value() {
                        Some(Scalar::Pred(b)) => Ok(b),
                        _ => Err(Error::internal("the comparator did not return a pred")),
                    }
                };
                merge_sort(&mut perm, &mut less)?;
                Ok(perm)
            })
            .collect::<Result<_>>()?,
    };
    // Element at row position t comes from row position perm[t].
    let total: usize = dims.iter().product::<i64>().max(0) as usize;
    let mut src: Vec<usize> = (0..total).collect();
    for (r, perm) in perms.iter().enumerate() {
        let offs = row_offsets(r);
        for (t, &p) in perm.iter().enumerate() {
            src[offs[t]] = offs[p];
        }
    }
    let datas: Vec<ArrayData> = inputs
        .iter()
        .map(|a| a.data.gather(src.iter().copied()))
        .collect();
    collate_result(inst, &dims, datas)
}

/// A comparator `compare(f(p_2k), f(p_2k+1))` that compares one function `f` of an operand's
/// two elements (JAX's comparators map -0 to +0 and every NaN to one NaN before a total-order
/// comparison): the keys `f(x)` of every element of that operand, computed once on all elements
/// together (`lanes`), with the comparison on them. `f` is found as the two sides of the root,
/// each reading one parameter of the pair; it is the same function on this data when both sides
/// give the same bits on every element, which is checked, so the keys decide exactly as the
/// comparator would.
fn key_comparator(
    ev: &Evaluator,
    comp: crate::hlo::ast::CompId,
    inputs: &[&Array],
) -> Option<(fast::Comparator, ArrayData)> {
    use crate::eval::lanes::{compile_value, param_deps};
    use crate::hlo::opcode::{ElementwiseOp, Op};
    let c = ev.module.computations.get(comp)?;
    let root = c.root();
    let Op::Elementwise(ElementwiseOp::Compare(cmp)) = &root.op else {
        return None;
    };
    let (a, b) = (*root.operands.first()?, *root.operands.get(1)?);
    let (da, db) = (param_deps(ev, comp, a)?, param_deps(ev, comp, b)?);
    if da.count_ones() != 1 || db.count_ones() != 1 {
        return None;
    }
    let (pa, pb) = (da.trailing_zeros() as usize, db.trailing_zeros() as usize);
    let (operand, swapped) = match (pa, pb) {
        (pa, pb) if pa % 2 == 0 && pb == pa + 1 => (pa / 2, false),
        (pa, pb) if pb % 2 == 0 && pa == pb + 1 => (pb / 2, true),
        _ => return None,
    };
    let n = inputs.first()?.len();
    // Every parameter takes its operand's elements; only the pair's operand matters to f.
    let args: Vec<ArrayData> = (0..2 * inputs.len())
        .map(|p| inputs[p / 2].data.clone())
        .collect();
    let run = |v: usize| -> Option<ArrayData> {
        compile_value(ev, comp, v, n)?.run(ev, &args).ok()?.pop()
    };
    let (ka, kb) = (run(a)?, run(b)?);
    if ka.len() != n || kb.len() != n || (0..n).any(|i| !ka.get(i).bits_eq(&kb.get(i))) {
        return None;
    }
    let (direction, total) = fast::comparison_of(cmp, ka.ty())?;
    Some((
        fast::Comparator {
            operand,
            swapped,
            direction,
            total,
        },
        ka,
    ))
}

pub fn topk(inst: &Instruction, attrs: &TopKAttrs, ops: &[&Literal]) -> Result<Literal> {
    let a = super::super::array(ops, 0)?;
    let k = attrs.k as usize;
    let largest = attrs.largest;
    let m = a.shape.dims.last().copied().unwrap_or(1).max(0) as usize;
    let rows = a.len().checked_div(m).unwrap_or(0);
    let mut src = Vec::with_capacity(rows * k);
    let mut idx = Vec::with_capacity(rows * k);
    for r in 0..rows {
        let keys: Vec<Scalar> = (0..m).map(|j| a.data.get(r * m + j)).collect();
        let mut perm: Vec<usize> = (0..m).collect();
        // Stable: equal values keep their index order.
        perm.sort_by(|&i, &j| {
            let o = fast::order(&keys[i], &keys[j], true).unwrap_or(Ordering::Equal);
            if largest { o.reverse() } else { o }
        });
        for &p in perm.iter().take(k) {
            src.push(r * m + p);
            idx.push(p as i32);
        }
    }
    let mut dims = a.shape.dims.clone();
    if let Some(last) = dims.last_mut() {
        *last = k as i64;
    }
    collate_result(
        inst,
        &dims,
        vec![a.data.gather(src.into_iter()), ArrayData::S32(idx.into())],
    )
}
