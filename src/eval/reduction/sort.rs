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
            let native = NativeKeys::of(keys);
            let sort_row = |r: usize| {
                let offs = row_offsets(r);
                let mut perm: Vec<usize> = (0..m).collect();
                if let Some(nk) = &native
                    && nk.sort_stably(&offs, &mut perm, c)
                {
                    return perm;
                }
                let k: Vec<Scalar> = offs.iter().map(|&o| keys.get(o)).collect();
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

/// Sort keys in a type whose order is the comparison's: integers (and PRED) as i128; floats as
/// their IEEE total-order rank (from their own bits, so that NaN payloads keep their order) and
/// as f64 values for the partial order (widening is exact and keeps the order of numbers).
enum NativeKeys {
    /// Unsigned keys in the comparison's order (see `NativeKeys::of`).
    Int(Vec<u64>),
    Float {
        total: Vec<u64>,
        value: Vec<f64>,
    },
}

/// A signed rank as an unsigned key of the same order: the sign bit flipped.
fn unsigned_order(rank: i64) -> u64 {
    (rank as u64) ^ (1 << 63)
}

/// The rank of a float in the IEEE 754 total order: its bits as a signed integer, with the
/// magnitude bits of negative values flipped so that more negative ranks lower.
fn total_rank(s: &Scalar) -> Option<i128> {
    let (bits, width) = match *s {
        Scalar::F16(x) => (x.to_bits() as u64, 16),
        Scalar::BF16(x) => (x.to_bits() as u64, 16),
        Scalar::F32(x) => (x.to_bits() as u64, 32),
        Scalar::F64(x) => (x.to_bits(), 64),
        _ => return None,
    };
    let sign = 1u64 << (width - 1);
    let magnitude = (bits & (sign - 1)) as i128;
    Some(if bits & sign != 0 {
        -magnitude - 1
    } else {
        magnitude
    })
}

impl NativeKeys {
    fn of(keys: &ArrayData) -> Option<NativeKeys> {
        let n = keys.len();
        // Every rank of one type fits 64 bits: u64 values as they are, the rest (signed
        // integers, PRED, the total-order ranks of floats, at most 64 bits wide) as i64.
        let unsigned64 = keys.ty() == crate::types::ElementType::U64;
        let key = |r: i128| -> Option<u64> {
            if unsigned64 {
                u64::try_from(r).ok()
            } else {
                i64::try_from(r).ok().map(unsigned_order)
            }
        };
        if keys.ty().is_float() {
            Some(NativeKeys::Float {
                total: (0..n)
                    .map(|i| total_rank(&keys.get(i)).and_then(key))
                    .collect::<Option<Vec<_>>>()?,
                value: (0..n).map(|i| keys.get(i).as_f64()).collect(),
            })
        } else if keys.ty().is_complex() {
            None
        } else {
            (0..n)
                .map(|i| keys.get(i).as_i128().and_then(key))
                .collect::<Option<Vec<_>>>()
                .map(NativeKeys::Int)
        }
    }

    /// Sorts one row (`offs`: its elements' offsets) into `perm` with the standard library's
    /// stable sort, when the comparison is a strict weak order on this row (`LT` or `GT`, and
    /// for floats the total order or no NaN in the row): every stable sort then yields the same
    /// permutation, the one the merge sort would. Returns false, leaving `perm` alone, otherwise.
    fn sort_stably(&self, offs: &[usize], perm: &mut [usize], c: fast::Comparator) -> bool {
        use fast::Direction;
        // less(i, j) = key_i D key_j, or key_j D key_i when the comparator reads its pair swapped.
        let descending = match (c.direction, c.swapped) {
            (Direction::Lt, false) | (Direction::Gt, true) => false,
            (Direction::Gt, false) | (Direction::Lt, true) => true,
            _ => return false,
        };
        let ord = |o: Ordering| if descending { o.reverse() } else { o };
        // Ranks: an unstable sort of (rank, position) pairs is the stable sort by rank, and
        // sorting a flat vector of pairs is several times faster than sorting positions through
        // the keys.
        let by_rank = |k: &[u64], perm: &mut [usize]| {
            let mut pairs: Vec<u128> = offs
                .iter()
                .enumerate()
                .map(|(p, &o)| {
                    let key = if descending { !k[o] } else { k[o] };
                    ((key as u128) << 64) | p as u128
                })
                .collect();
            crate::kernels::pool::sort_u128(&mut pairs);
            for (d, pair) in perm.iter_mut().zip(pairs) {
                *d = pair as u64 as usize;
            }
        };
        match self {
            NativeKeys::Int(k) => by_rank(k, perm),
            NativeKeys::Float { total: k, .. } if c.total => by_rank(k, perm),
            NativeKeys::Float { value: k, .. } => {
                if offs.iter().any(|&o| k[o].is_nan()) {
                    return false;
                }
                perm.sort_by(|&i, &j| {
                    ord(k[offs[i]]
                        .partial_cmp(&k[offs[j]])
                        .unwrap_or(Ordering::Equal))
                })
            }
        }
        true
    }
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

#[cfg(test)]
mod native_tests {
    use super::*;

    /// The rank orders floats as the IEEE total order does, NaN payloads and signalling NaNs
    /// included (which widening to f64 would reorder).
    #[test]
    fn total_rank_is_the_total_order() {
        let mut x = 0x9E37_79B9u32;
        let mut v: Vec<u32> = vec![
            0,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7f80_0001,
            0x7fc0_0000,
            0xffc0_0000,
            0xff80_0001,
            1,
            0x8000_0001,
        ];
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            v.push(x);
        }
        for &a in &v {
            for &b in v.iter().step_by(7) {
                let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
                let (ra, rb) = (
                    total_rank(&Scalar::F32(fa)).unwrap(),
                    total_rank(&Scalar::F32(fb)).unwrap(),
                );
                assert_eq!(ra.cmp(&rb), fa.total_cmp(&fb), "{a:#x} {b:#x}");
            }
        }
    }

    /// Rows sorted by the standard library's stable sort and by the merge sort agree, for every
    /// direction the native path takes, and the native path declines what it cannot order.
    #[test]
    fn native_rows_match_the_merge_sort() {
        let vals = [
            3.0f32,
            -0.0,
            0.0,
            f32::NAN,
            1.0,
            -1.0,
            3.0,
            f32::INFINITY,
            0.0,
            -0.0,
        ];
        let keys = ArrayData::F32(vals.to_vec().into());
        let nk = NativeKeys::of(&keys).unwrap();
        let offs: Vec<usize> = (0..vals.len()).collect();
        for (direction, swapped, total) in [
            (fast::Direction::Lt, false, true),
            (fast::Direction::Gt, false, true),
            (fast::Direction::Lt, true, true),
            (fast::Direction::Gt, true, false),
        ] {
            let c = fast::Comparator {
                operand: 0,
                swapped,
                direction,
                total,
            };
            let mut native: Vec<usize> = (0..vals.len()).collect();
            let took = nk.sort_stably(&offs, &mut native, c);
            let k: Vec<Scalar> = offs.iter().map(|&o| keys.get(o)).collect();
            let mut merged: Vec<usize> = (0..vals.len()).collect();
            let mut less = |i: usize, j: usize| -> std::result::Result<bool, ()> {
                let (x, y) = if swapped {
                    (&k[j], &k[i])
                } else {
                    (&k[i], &k[j])
                };
                Ok(direction.holds(fast::order(x, y, total)))
            };
            let _ = merge_sort(&mut merged, &mut less);
            if total {
                assert!(took);
                assert_eq!(native, merged, "{direction:?} swapped={swapped}");
            } else {
                // A NaN in the row: the partial order is no strict weak order.
                assert!(!took);
            }
        }
    }
}
