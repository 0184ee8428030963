//! Shape inference and constraints for replicas and collectives: replica-id, partition-id,
//! all-reduce, all-gather, all-to-all, reduce-scatter, collective-permute and
//! collective-broadcast.
//!
//! Replica groups are checked against the module's `replica_count` (1 when the header does not
//! say): explicit groups must partition `0..replica_count` and, where the result shape depends on
//! it, all have the same size. The rules follow XLA's `ShapeInference::InferAllGatherShape`,
//! `InferAllToAllShape`, `InferReduceScatterShape` and the HLO verifier's replica-group checks.

use super::Ctx;
use crate::error::{Error, Result};
use crate::hlo::attrs::{AllToAllAttrs, Comp};
use crate::hlo::opcode::{CollectiveOp, Opcode};
use crate::shape::{ArrayShape, Shape};
use crate::types::ElementType;
use crate::{ensure, invalid};

pub fn infer(ctx: &Ctx, op: &CollectiveOp) -> Result<Shape> {
    match op {
        CollectiveOp::ReplicaId | CollectiveOp::PartitionId => {
            ctx.arity(0)?;
            Ok(Shape::scalar(ElementType::U32))
        }
        CollectiveOp::AllReduce(r) => {
            check_channel_id(r.channel_id)?;
            let arrays = operand_arrays(ctx)?;
            group_size(ctx, r.replica_groups.as_deref(), false)?;
            check_reducer(ctx, r.to_apply, &arrays)?;
            Ok(results(ctx, arrays.iter().map(|a| plain(a)).collect()))
        }
        CollectiveOp::AllGather(g) => {
            check_channel_id(g.channel_id)?;
            let arrays = operand_arrays(ctx)?;
            let n = group_size(ctx, g.replica_groups.as_deref(), true)?;
            let mut out = vec![];
            for a in &arrays {
                let d = one_dimension(ctx, a, &g.dimensions)?;
                let mut s = plain(a);
                s.dims[d] = a.dims[d].checked_mul(n).ok_or_else(|| {
                    Error::invalid("shape.too_large", "all-gather result too large")
                })?;
                out.push(s);
            }
            Ok(results(ctx, out))
        }
        CollectiveOp::ReduceScatter(r) => {
            check_channel_id(r.channel_id)?;
            let arrays = operand_arrays(ctx)?;
            let n = group_size(ctx, r.replica_groups.as_deref(), true)?;
            check_reducer(ctx, r.to_apply, &arrays)?;
            let mut out = vec![];
            for a in &arrays {
                let d = one_dimension(ctx, a, &r.dimensions)?;
                ensure!(
                    a.dims[d] % n == 0,
                    "reduce-scatter.divisible",
                    "dimension {d} of {a} (size {}) must divide evenly among the {n} members of a replica group",
                    a.dims[d]
                );
                let mut s = plain(a);
                s.dims[d] = a.dims[d] / n;
                out.push(s);
            }
            Ok(results(ctx, out))
        }
        CollectiveOp::AllToAll(a) => {
            check_channel_id(a.channel_id)?;
            all_to_all(ctx, a)
        }
        CollectiveOp::CollectivePermute(p) => {
            check_channel_id(p.channel_id)?;
            ctx.arity(1)?;
            let a = ctx.array(0)?;
            check_source_target_pairs(
                &p.source_target_pairs,
                ctx.replica_count,
                [
                    "collective-permute.pairs",
                    "collective-permute.unique_source",
                    "collective-permute.unique_target",
                ],
            )?;
            Ok(Shape::Array(plain(a)))
        }
        // The asynchronous pairs of an optimised module. A `-start` computes what its synchronous
        // op computes; XLA's shapes carry the operands (and, for collective-permute, two u32
        // contexts) beside the result, and the `-done` takes the result out.
        CollectiveOp::AllReduceStart(r) => infer(ctx, &CollectiveOp::AllReduce(r.clone())),
        CollectiveOp::AllGatherStart(g) => {
            let result = infer(ctx, &CollectiveOp::AllGather(g.clone()))?;
            let operands: Vec<Shape> = ctx.operands.iter().map(|s| (*s).clone()).collect();
            Ok(Shape::Tuple(match operands.len() {
                1 => vec![operands[0].clone(), result],
                _ => vec![Shape::Tuple(operands), result],
            }))
        }
        CollectiveOp::CollectivePermuteStart(p) => {
            let result = infer(ctx, &CollectiveOp::CollectivePermute(p.clone()))?;
            let u32 = Shape::scalar(ElementType::U32);
            Ok(Shape::Tuple(vec![
                ctx.operands[0].clone(),
                result,
                u32.clone(),
                u32,
            ]))
        }
        CollectiveOp::AllReduceDone => {
            ctx.arity(1)?;
            ensure!(
                ctx.operand_opcode(0) == Some(Opcode::AllReduceStart),
                "async.pair",
                "the operand of all-reduce-done must be an all-reduce-start"
            );
            Ok(ctx.operands[0].clone())
        }
        CollectiveOp::AllGatherDone => done_element(ctx, Opcode::AllGatherStart, 1),
        CollectiveOp::CollectivePermuteDone => done_element(ctx, Opcode::CollectivePermuteStart, 1),
        CollectiveOp::CollectiveBroadcast(b) => {
            check_channel_id(b.channel_id)?;
            let arrays = operand_arrays(ctx)?;
            group_size(ctx, b.replica_groups.as_deref(), false)?;
            Ok(results(ctx, arrays.iter().map(|a| plain(a)).collect()))
        }
    }
}

/// The result of a `-done`: element `k` of its operand, which must be the matching `-start`.
pub(super) fn done_element(ctx: &Ctx, start: Opcode, k: usize) -> Result<Shape> {
    ctx.arity(1)?;
    let done = ctx.op();
    ensure!(
        ctx.operand_opcode(0) == Some(start),
        "async.pair",
        "the operand of {done} must be a {start}"
    );
    match ctx.operands[0] {
        Shape::Tuple(t) if t.len() > k => Ok(t[k].clone()),
        other => invalid!(
            "async.pair",
            "the operand of {done} must be a tuple with an element {k}, got {other}"
        ),
    }
}

/// Checks `{source, target}` replica pairs: ids in `0..n` (`rules[0]`), no replica the source of
/// two pairs (`rules[1]`) nor the target of two (`rules[2]`). Shared with send/recv's pairs.
pub(super) fn check_source_target_pairs(
    pairs: &[(i64, i64)],
    n: i64,
    rules: [&str; 3],
) -> Result<()> {
    let (mut sources, mut targets) = (vec![false; n as usize], vec![false; n as usize]);
    for &(s, t) in pairs {
        for id in [s, t] {
            ensure!(
                (0..n).contains(&id),
                rules[0],
                "replica {id} in the pair {{{s},{t}}} is out of range for replica_count={n}"
            );
        }
        ensure!(
            !sources[s as usize],
            rules[1],
            "replica {s} is the source of two pairs"
        );
        ensure!(
            !targets[t as usize],
            rules[2],
            "replica {t} is the target of two pairs"
        );
        sources[s as usize] = true;
        targets[t as usize] = true;
    }
    Ok(())
}

/// An array shape with its type and dimensions only (layouts are the declared shape's business).
fn plain(a: &ArrayShape) -> ArrayShape {
    ArrayShape {
        ty: a.ty,
        dims: a.dims.clone(),
        dynamic: a.dynamic.clone(),
        layout: None,
    }
}

/// One operand gives its own shape; several give a tuple.
fn results(ctx: &Ctx, shapes: Vec<ArrayShape>) -> Shape {
    if ctx.operands.len() == 1 && !ctx.operands[0].is_tuple() {
        shapes
            .into_iter()
            .next()
            .map(Shape::Array)
            .unwrap_or(Shape::Tuple(vec![]))
    } else {
        Shape::Tuple(shapes.into_iter().map(Shape::Array).collect())
    }
}

/// The arrays a collective works on: one or more array operands, or one tuple of arrays.
fn operand_arrays<'a>(ctx: &Ctx<'a>) -> Result<Vec<&'a ArrayShape>> {
    ctx.arity_at_least(1)?;
    let leaves: Vec<&Shape> = match ctx.operands.as_slice() {
        [Shape::Tuple(t)] => t.iter().collect(),
        ops => ops.to_vec(),
    };
    leaves
        .into_iter()
        .map(|s| match s {
            Shape::Array(a) => Ok(a),
            other => invalid!(
                "collective.array_operands",
                "`{}` works on arrays (or one tuple of arrays), got {other}",
                ctx.op()
            ),
        })
        .collect()
}

fn check_channel_id(channel_id: Option<i64>) -> Result<()> {
    if let Some(c) = channel_id {
        ensure!(
            c >= 1,
            "collective.channel_id",
            "channel_id must be a positive integer, got {c}"
        );
    }
    Ok(())
}

/// Checks `replica_groups` and returns the size of a group. Absent or `{}` means one group of
/// all replicas. Explicit groups must be non-empty and together name every replica exactly once;
/// `equal_sizes` additionally requires all groups to be the same size (the result shape depends
/// on it).
fn group_size(ctx: &Ctx, groups: Option<&[Vec<i64>]>, equal_sizes: bool) -> Result<i64> {
    let n = ctx.replica_count;
    let groups = groups.unwrap_or(&[]);
    if groups.is_empty() {
        return Ok(n);
    }
    let mut seen = vec![false; n as usize];
    for g in groups {
        ensure!(
            !g.is_empty(),
            "collective.replica_groups",
            "a replica group may not be empty"
        );
        for &id in g {
            ensure!(
                (0..n).contains(&id),
                "collective.replica_groups",
                "replica {id} in replica_groups is out of range for replica_count={n}"
            );
            ensure!(
                !seen[id as usize],
                "collective.replica_groups",
                "replica {id} appears twice in replica_groups"
            );
            seen[id as usize] = true;
        }
    }
    if let Some(missing) = seen.iter().position(|&s| !s) {
        invalid!(
            "collective.replica_groups",
            "replica_groups must name every replica 0..{} once; replica {missing} is missing",
            n - 1
        );
    }
    let size = groups[0].len() as i64;
    if equal_sizes {
        ensure!(
            groups.iter().all(|g| g.len() as i64 == size),
            "collective.equal_group_sizes",
            "all replica groups of `{}` must have the same size",
            ctx.op()
        );
    }
    Ok(size)
}

/// `dimensions={d}`: exactly one dimension of `a`.
fn one_dimension(ctx: &Ctx, a: &ArrayShape, dims: &[i64]) -> Result<usize> {
    let label = format!("{}.dimensions", ctx.op());
    let &[d] = dims else {
        return Err(Error::invalid(
            &label,
            format!(
                "dimensions={{...}} must hold exactly one dimension, got {}",
                dims.len()
            ),
        ));
    };
    if d < 0 || d as usize >= a.rank() {
        return Err(Error::invalid(
            &label,
            format!("dimension {d} is out of range for {a}"),
        ));
    }
    Ok(d as usize)
}

/// `to_apply` of all-reduce and reduce-scatter: `(T[], T[]) -> T[]` for each operand type.
fn check_reducer(ctx: &Ctx, comp: Comp, arrays: &[&ArrayShape]) -> Result<()> {
    let rule = format!("{}.to_apply_signature", ctx.op());
    for a in arrays {
        let s = Shape::scalar(a.ty);
        ctx.check_signature(comp, &[s.clone(), s.clone()], &s, &rule)?;
    }
    Ok(())
}

fn all_to_all(ctx: &Ctx, attrs: &AllToAllAttrs) -> Result<Shape> {
    let groups = attrs.replica_groups.as_deref();
    let n = group_size(ctx, groups, true)?;
    if let Some(dims) = &attrs.dimensions {
        ctx.arity(1)?;
        // XLA's verifier refuses the array form without explicit groups ("Array all-to-all should
        // have a split dimension, one operand and non-empty replica groups").
        ensure!(
            !groups.unwrap_or(&[]).is_empty(),
            "all-to-all.explicit_groups",
            "the array form of all-to-all needs explicit, non-empty replica_groups"
        );
        let a = ctx.array(0)?;
        let d = one_dimension(ctx, a, dims)?;
        ensure!(
            a.dims[d] % n == 0,
            "all-to-all.divisible",
            "split dimension {d} of {a} (size {}) must divide evenly among the {n} members of a replica group",
            a.dims[d]
        );
        return Ok(Shape::Array(plain(a)));
    }
    // Tuple form: operand i goes to the i-th member of the group, and the i-th result element
    // comes from it, so there is one operand per group member and all share one shape.
    let arrays = operand_arrays(ctx)?;
    ensure!(
        arrays.len() as i64 == n,
        "all-to-all.tuple_operand_count",
        "the tuple form of all-to-all needs one operand per replica-group member ({n}), got {}",
        arrays.len()
    );
    ensure!(
        arrays.windows(2).all(|w| w[0].same_dims_and_type(w[1])),
        "all-to-all.tuple_same_shapes",
        "the operands of a tuple all-to-all must all have the same shape"
    );
    Ok(Shape::Tuple(
        arrays.iter().map(|a| Shape::Array(plain(a))).collect(),
    ))
}

#[cfg(test)]
mod tests {
    use crate::verify::parse_and_verify;

    const ADD: &str =
        "add {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = f32[] add(a, b)\n}\n";

    fn module(n: i64, body: &str) -> String {
        format!("HloModule m, replica_count={n}\n{ADD}ENTRY e {{\n{body}\n}}\n")
    }

    #[test]
    fn collective_constraints_have_labels() {
        let cases = [
            (
                4,
                "x = f32[4] parameter(0)\n ROOT r = f32[4] all-reduce(x), replica_groups={{0,1},{2}}, to_apply=add",
                "collective.replica_groups",
            ),
            (
                2,
                "x = f32[4] parameter(0)\n ROOT r = f32[4] all-reduce(x), replica_groups={{0,2}}, to_apply=add",
                "collective.replica_groups",
            ),
            (
                2,
                "x = f32[4] parameter(0)\n ROOT r = f32[4] all-reduce(x), replica_groups={{0,0},{1}}, to_apply=add",
                "collective.replica_groups",
            ),
            (
                2,
                "x = s32[4] parameter(0)\n ROOT r = s32[4] all-reduce(x), to_apply=add",
                "all-reduce.to_apply_signature",
            ),
            (
                2,
                "x = f32[4] parameter(0)\n ROOT r = f32[4] all-reduce(x), channel_id=0, to_apply=add",
                "collective.channel_id",
            ),
            (
                2,
                "x = f32[4,2] parameter(0)\n ROOT r = f32[8,2] all-gather(x), dimensions={0,1}",
                "all-gather.dimensions",
            ),
            (
                2,
                "x = f32[4,2] parameter(0)\n ROOT r = f32[4,2] all-gather(x), dimensions={0}",
                "hlo.shape_mismatch",
            ),
            (
                3,
                "x = f32[4,2] parameter(0)\n ROOT r = f32[4,2] all-gather(x), replica_groups={{0,1},{2}}, dimensions={0}",
                "collective.equal_group_sizes",
            ),
            (
                3,
                "x = f32[4,2] parameter(0)\n ROOT r = f32[4,2] reduce-scatter(x), dimensions={0}, to_apply=add",
                "reduce-scatter.divisible",
            ),
            (
                3,
                "x = f32[4,2] parameter(0)\n ROOT r = f32[4,2] all-to-all(x), replica_groups={{0,1,2}}, dimensions={0}",
                "all-to-all.divisible",
            ),
            (
                2,
                "x = f32[2] parameter(0)\n ROOT r = (f32[2]) all-to-all(x)",
                "all-to-all.tuple_operand_count",
            ),
            (
                2,
                "x = f32[4] parameter(0)\n ROOT r = f32[4] collective-permute(x), source_target_pairs={{0,1},{0,0}}",
                "collective-permute.unique_source",
            ),
            (
                2,
                "x = f32[4] parameter(0)\n ROOT r = f32[4] collective-permute(x), source_target_pairs={{0,1},{1,1}}",
                "collective-permute.unique_target",
            ),
            (
                2,
                "x = f32[4] parameter(0)\n ROOT r = f32[4] collective-permute(x), source_target_pairs={{0,2}}",
                "collective-permute.pairs",
            ),
        ];
        for (n, body, want) in cases {
            let e = parse_and_verify(&module(n, body)).unwrap_err();
            assert_eq!(e.rule.as_deref(), Some(want), "{body}: {e}");
        }
    }
}

#[cfg(test)]
mod golden_tests {
    /// Until the conformance harness runs them, check the invalid golden cases of the numerics
    /// and collective families here.
    #[test]
    fn invalid_golden_cases_are_refused_with_their_rule() {
        for f in [
            "golden/numerics/invalid_constraints.json",
            "golden/collective/invalid_constraints.json",
        ] {
            let path = format!("{}/{f}", env!("CARGO_MANIFEST_DIR"));
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            for c in v["cases"].as_array().unwrap() {
                let e = crate::verify::parse_and_verify(c["hlo"].as_str().unwrap()).unwrap_err();
                assert_eq!(
                    e.rule.as_deref(),
                    c["expected_error"].as_str(),
                    "{}: {e}",
                    c["name"]
                );
            }
        }
    }
}
