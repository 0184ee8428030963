//! Shape inference and constraints for computations, control flow and side effects: call, while,
//! conditional, after-all, add-dependency, opt-barrier, custom-call, infeed, outfeed and the
//! send/recv family.
//!
//! The rules follow XLA's `ShapeInference::InferCallShape`, `InferWhileShape`,
//! `InferConditionalShape`, `InferAfterAllShape` and the HLO text shapes of send/recv
//! (`(data, u32[] request id, token[])` contexts); the book's pages (`book/src/ops/control/`)
//! state each labelled rule.

use super::Ctx;
use crate::error::Result;
use crate::hlo::attrs::{Branches, ChannelAttrs, Comp, WhileAttrs};
use crate::hlo::opcode::{ControlOp, Opcode};
use crate::shape::Shape;
use crate::types::ElementType;
use crate::{ensure, invalid};

pub fn infer(ctx: &Ctx, op: &ControlOp) -> Result<Shape> {
    match op {
        ControlOp::Call(c) => {
            let comp = c.to_apply;
            let (_, result) = ctx.signature(comp)?;
            let args: Vec<Shape> = ctx.operands.iter().map(|s| (*s).clone()).collect();
            ctx.check_signature(comp, &args, &result, "call.signature")?;
            Ok(result)
        }
        ControlOp::Fusion(f) => {
            let comp = f.calls;
            let (_, result) = ctx.signature(comp)?;
            let args: Vec<Shape> = ctx.operands.iter().map(|s| (*s).clone()).collect();
            ctx.check_signature(comp, &args, &result, "fusion.signature")?;
            Ok(result)
        }
        // async-start's shape is ((operands...), result, contexts...): XLA lets the contexts be
        // any shapes, so the text states it and the first two elements are checked.
        ControlOp::AsyncStart(a) => {
            let d = ctx.declared_required()?;
            let (_, result) = ctx.signature(a.calls)?;
            let args: Vec<Shape> = ctx.operands.iter().map(|s| (*s).clone()).collect();
            ctx.check_signature(a.calls, &args, &result, "async.signature")?;
            let want = Shape::Tuple(args);
            match d {
                Shape::Tuple(t)
                    if t.len() >= 2 && t[0].compatible(&want) && t[1].compatible(&result) =>
                {
                    Ok(d.clone())
                }
                _ => invalid!(
                    "async.signature",
                    "async-start's shape is ({want}, {result}, contexts...), got {d}"
                ),
            }
        }
        ControlOp::AsyncUpdate => {
            ctx.arity(1)?;
            ensure!(
                matches!(
                    ctx.operand_opcode(0),
                    Some(Opcode::AsyncStart | Opcode::AsyncUpdate)
                ),
                "async.pair",
                "the operand of async-update must be an async-start or async-update"
            );
            Ok(ctx.operands[0].clone())
        }
        ControlOp::AsyncDone => {
            ctx.arity(1)?;
            ensure!(
                matches!(
                    ctx.operand_opcode(0),
                    Some(Opcode::AsyncStart | Opcode::AsyncUpdate)
                ),
                "async.pair",
                "the operand of async-done must be an async-start or async-update"
            );
            match ctx.operands[0] {
                Shape::Tuple(t) if t.len() >= 2 => Ok(t[1].clone()),
                other => invalid!(
                    "async.pair",
                    "async-done's operand must be a tuple, got {other}"
                ),
            }
        }
        // copy-start's shape is (destination, source, u32[] context); copy-done gives the copy.
        ControlOp::CopyStart => {
            ctx.arity(1)?;
            let x = ctx.operands[0].clone();
            Ok(Shape::Tuple(vec![
                x.clone(),
                x,
                Shape::scalar(ElementType::U32),
            ]))
        }
        ControlOp::CopyDone => super::collective::done_element(ctx, Opcode::CopyStart, 0),
        ControlOp::While(w) => while_shape(ctx, w),
        ControlOp::Conditional(b) => conditional(ctx, b),
        ControlOp::AfterAll => {
            for (i, s) in ctx.operands.iter().enumerate() {
                ensure!(
                    s.is_token(),
                    "after-all.token_operands",
                    "after-all joins tokens; operand {i} is {s}"
                );
            }
            Ok(Shape::Token)
        }
        ControlOp::AddDependency => {
            ctx.arity(2)?;
            ensure!(
                ctx.operands[1].is_token(),
                "add-dependency.token_operand",
                "the second operand of add-dependency must be a token, got {}",
                ctx.operands[1]
            );
            Ok(ctx.operands[0].clone())
        }
        ControlOp::OptimizationBarrier => {
            ctx.arity(1)?;
            Ok(ctx.operands[0].clone())
        }
        ControlOp::CustomCall(c) => {
            let d = ctx.declared_required()?;
            if let Some(shapes) = &c.operand_layouts {
                ensure!(
                    shapes.len() == ctx.operands.len(),
                    "custom-call.operand_layouts",
                    "operand_layout_constraints lists {} shape(s) for {} operand(s)",
                    shapes.len(),
                    ctx.operands.len()
                );
                for (i, (s, o)) in shapes.iter().zip(&ctx.operands).enumerate() {
                    ensure!(
                        s.compatible(o),
                        "custom-call.operand_layouts",
                        "operand_layout_constraints gives {s} for operand {i}, which is {o}"
                    );
                }
            }
            Ok(d.clone())
        }
        ControlOp::Infeed(_) => infeed(ctx),
        ControlOp::Outfeed(o) => {
            ctx.arity(2)?;
            token_operand(ctx, 1)?;
            if let Some(s) = &o.shape {
                ensure!(
                    s.compatible(ctx.operands[0]),
                    "outfeed.shape_matches",
                    "outfeed_shape {s} does not match the operand {}",
                    ctx.operands[0]
                );
            }
            Ok(Shape::Token)
        }
        ControlOp::Send(c) => {
            ctx.arity(2)?;
            channel_id(ctx, c)?;
            check_pairs(ctx, c)?;
            token_operand(ctx, 1)?;
            Ok(context_shape(ctx.operands[0].clone()))
        }
        ControlOp::Recv(c) => {
            ctx.arity(1)?;
            channel_id(ctx, c)?;
            check_pairs(ctx, c)?;
            token_operand(ctx, 0)?;
            let d = ctx.declared_required()?;
            match d.as_tuple() {
                Some([_, id, Shape::Token]) if *id == Shape::scalar(ElementType::U32) => {
                    Ok(d.clone())
                }
                _ => invalid!(
                    "recv.result_shape",
                    "recv produces a (data, u32[], token[]) context, not {d}"
                ),
            }
        }
        ControlOp::SendDone(c) => {
            ctx.arity(1)?;
            channel_id(ctx, c)?;
            context_operand(ctx)?;
            Ok(Shape::Token)
        }
        ControlOp::RecvDone(c) => {
            ctx.arity(1)?;
            channel_id(ctx, c)?;
            let data = context_operand(ctx)?;
            Ok(Shape::Tuple(vec![data, Shape::Token]))
        }
    }
}

/// The context a send or recv produces: (data, request id, token).
fn context_shape(data: Shape) -> Shape {
    Shape::Tuple(vec![data, Shape::scalar(ElementType::U32), Shape::Token])
}

fn channel_id(ctx: &Ctx, c: &ChannelAttrs) -> Result<i64> {
    let label = format!("{}.channel_id", ctx.op());
    match c.channel_id {
        Some(c) if c >= 1 => Ok(c),
        Some(c) => Err(crate::error::Error::invalid(
            &label,
            format!("channel_id must be a positive integer, got {c}"),
        )),
        None => Err(crate::error::Error::invalid(
            &label,
            format!("`{}` needs a channel_id", ctx.op()),
        )),
    }
}

/// `_xla_send_recv_source_target_pairs`: replica ids in range, each a source at most once and a
/// target at most once.
fn check_pairs(ctx: &Ctx, c: &ChannelAttrs) -> Result<()> {
    let Some(pairs) = &c.source_target_pairs else {
        return Ok(());
    };
    const RULE: &str = "channel.source_target_pairs";
    super::collective::check_source_target_pairs(pairs, ctx.replica_count, [RULE; 3])
}

fn token_operand(ctx: &Ctx, i: usize) -> Result<()> {
    let s = ctx.operands[i];
    if !s.is_token() {
        return Err(crate::error::Error::invalid(
            &format!("{}.token_operand", ctx.op()),
            format!("operand {i} of `{}` must be a token, got {s}", ctx.op()),
        ));
    }
    Ok(())
}

/// The operand of send-done / recv-done: a (data, u32[], token[]) context; returns the data shape.
fn context_operand(ctx: &Ctx) -> Result<Shape> {
    match ctx.operands[0].as_tuple() {
        Some([data, id, Shape::Token]) if *id == Shape::scalar(ElementType::U32) => {
            Ok(data.clone())
        }
        _ => Err(crate::error::Error::invalid(
            &format!("{}.context_operand", ctx.op()),
            format!(
                "the operand of `{}` must be the (data, u32[], token[]) context of a {}, got {}",
                ctx.op(),
                if ctx.op() == crate::hlo::opcode::Opcode::SendDone {
                    "send"
                } else {
                    "recv"
                },
                ctx.operands[0]
            ),
        )),
    }
}

fn while_shape(ctx: &Ctx, w: &WhileAttrs) -> Result<Shape> {
    ctx.arity(1)?;
    let t = ctx.operands[0].clone();
    let (cond, body) = (w.condition, w.body);
    let (cp, cr) = ctx.signature(cond)?;
    ensure!(
        cp.len() == 1 && cp[0].compatible(&t),
        "while.condition_parameter",
        "the condition `{}` must take one parameter of the loop state's shape {t}, it takes ({})",
        ctx.comp_name(cond),
        list(&cp)
    );
    ensure!(
        cr.compatible(&Shape::scalar(ElementType::Pred)),
        "while.condition_returns_pred",
        "the condition `{}` must return pred[], it returns {cr}",
        ctx.comp_name(cond)
    );
    let (bp, br) = ctx.signature(body)?;
    ensure!(
        bp.len() == 1 && bp[0].compatible(&t),
        "while.body_parameter",
        "the body `{}` must take one parameter of the loop state's shape {t}, it takes ({})",
        ctx.comp_name(body),
        list(&bp)
    );
    ensure!(
        br.compatible(&t),
        "while.body_result",
        "the body `{}` must return the loop state's shape {t}, it returns {br}",
        ctx.comp_name(body)
    );
    Ok(t)
}

fn conditional(ctx: &Ctx, b: &Branches) -> Result<Shape> {
    ctx.arity_at_least(1)?;
    let selector = ctx.operands[0];
    let branches: Vec<Comp> = if *selector == Shape::scalar(ElementType::Pred) {
        match b {
            Branches::TrueFalse(t, f) => vec![*t, *f],
            Branches::Indexed(_) => invalid!(
                "conditional.computations",
                "a conditional on a pred takes true_computation and false_computation (and no branch_computations)"
            ),
        }
    } else if *selector == Shape::scalar(ElementType::S32) {
        match b {
            Branches::Indexed(b) if !b.is_empty() => b.clone(),
            _ => invalid!(
                "conditional.computations",
                "a conditional on an s32 index takes a non-empty branch_computations={{...}} list"
            ),
        }
    } else {
        invalid!(
            "conditional.selector_type",
            "the first operand of conditional must be pred[] or s32[], got {selector}"
        )
    };
    ensure!(
        ctx.operands.len() == branches.len() + 1,
        "conditional.branch_count",
        "conditional with {} branch computation(s) needs {} operand(s) after the selector, got {}",
        branches.len(),
        branches.len(),
        ctx.operands.len() - 1
    );
    let mut result: Option<Shape> = None;
    for (b, &comp) in branches.iter().enumerate() {
        let arg = ctx.operands[b + 1];
        let (ps, r) = ctx.signature(comp)?;
        ensure!(
            ps.len() == 1 && ps[0].compatible(arg),
            "conditional.branch_parameter",
            "branch {b} (`{}`) must take one parameter of its operand's shape {arg}, it takes ({})",
            ctx.comp_name(comp),
            list(&ps)
        );
        match &result {
            None => result = Some(r),
            Some(first) => ensure!(
                first.compatible(&r),
                "conditional.same_result",
                "every branch must return the same shape: branch 0 returns {first}, branch {b} (`{}`) returns {r}",
                ctx.comp_name(comp)
            ),
        }
    }
    result.ok_or_else(|| crate::error::Error::internal("conditional without branches"))
}

fn infeed(ctx: &Ctx) -> Result<Shape> {
    ctx.arity(1)?;
    token_operand(ctx, 0)?;
    let d = ctx.declared_required()?;
    let Some([data, Shape::Token]) = d.as_tuple() else {
        invalid!(
            "infeed.result_tuple",
            "infeed produces a (data, token[]) tuple, not {d}"
        )
    };
    let flat = match data {
        Shape::Tuple(elems) => elems.iter().all(|e| e.is_array()),
        Shape::Array(_) => true,
        Shape::Token => false,
    };
    ensure!(
        flat,
        "infeed.no_nested_tuple",
        "infeed data must be an array or a tuple of arrays, not {data}"
    );
    Ok(d.clone())
}

fn list(v: &[Shape]) -> String {
    v.iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    /// Every rule label the control, numerics and collective verifiers and the control evaluator
    /// report is defined once in the book (`r[label]`), so an error always leads to its rule.
    #[test]
    fn every_label_is_defined_in_the_book() {
        let root = env!("CARGO_MANIFEST_DIR");
        let mut defined = vec![];
        let mut dirs = vec![std::path::PathBuf::from(format!("{root}/book/src"))];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "md") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    for line in text.lines() {
                        if let Some(l) = line.strip_prefix("r[").and_then(|l| l.strip_suffix(']')) {
                            defined.push(l.to_string());
                        }
                    }
                }
            }
        }
        let mut sorted = defined.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), defined.len(), "a label is defined twice");
        // Labels owned by the foundation (hlo.*, shape.*) and the collectives' abort echo.
        let foreign =
            |l: &str| l.starts_with("hlo.") || l.starts_with("shape.") || l == "collective.aborted";
        for f in [
            "src/verify/control.rs",
            "src/verify/numerics.rs",
            "src/verify/collective.rs",
            "src/eval/control/mod.rs",
            "src/eval/control/channels.rs",
            "src/eval/control/custom_call.rs",
        ] {
            let src = std::fs::read_to_string(format!("{root}/{f}")).unwrap();
            let code = src.split("#[cfg(test)]").next().unwrap_or("");
            for piece in code.split('"').skip(1).step_by(2) {
                let is_label = piece.split_once('.').is_some_and(|(a, b)| {
                    !a.is_empty()
                        && !b.is_empty()
                        && a.chars().all(|c| c.is_ascii_lowercase() || c == '-')
                        && b.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                });
                if is_label && !foreign(piece) {
                    assert!(
                        defined.iter().any(|d| d == piece),
                        "{f}: `{piece}` has no r[...] in the book"
                    );
                }
            }
        }
    }
}
