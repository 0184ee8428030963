//! Computations, control flow and side effects: call, while, conditional, tokens
//! (after-all, add-dependency), opt-barrier, custom-call, infeed/outfeed and send/recv.
//!
//! Reference: the Operation Semantics sections Call, While, Conditional, AfterAll,
//! OptimizationBarrier, CustomCall, Infeed, Send and Recv; XLA's `HloEvaluator::HandleWhile`
//! (with its optional loop budget) and `HandleConditional`.
//!
//! Side effects happen in evaluation order, which is definition order: a computation's
//! instructions run one after another and a sub-computation runs where it is called. Token
//! operands therefore never reorder anything; they document the order the text already has.
//!
//! Channels (send/recv) follow the model the book's Send page states: within one replica the
//! `send` and the `recv` with the same `channel_id` talk to each other, FIFO; with the frontend
//! attribute `_xla_send_recv_source_target_pairs` a send goes to another replica's recv
//! instead. A recv posts a receive buffer; a send delivers into the oldest buffer its target
//! posted on the channel (Recv happens before Send); recv-done takes the delivered data (Send
//! happens before RecvDone). A wait that only this replica could end can never end (its
//! schedule is sequential), so it is reported at once as a deadlock; a wait on a peer replica
//! ends with the same error after `RunOptions::rendezvous_timeout`. Nothing hangs.

mod channels;
mod custom_call;
mod onednn;

pub use channels::Channels;
pub use custom_call::{ConfiguredCallFn, CustomCallBuffer, CustomCallFn, CustomCallRegistry};

use super::Evaluator;
use super::movement::relayout;
use crate::error::{Error, Result};
use crate::hlo::ast::Instruction;
use crate::hlo::attrs::Branches;
use crate::hlo::opcode::ControlOp;
use crate::literal::{Literal, Scalar};
use crate::shape::Shape;

/// The four channel ops, which share one implementation.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Channel {
    Send,
    Recv,
    SendDone,
    RecvDone,
}

fn first<'a>(ops: &[&'a Literal]) -> Result<&'a Literal> {
    ops.first()
        .copied()
        .ok_or_else(|| Error::internal("an asynchronous op without its operand"))
}

/// Element `k` of a `-start`'s tuple (the verifier proved it exists).
pub(crate) fn element(t: &Literal, k: usize) -> Result<Literal> {
    t.as_tuple()
        .and_then(|t| t.get(k))
        .cloned()
        .ok_or_else(|| Error::internal(format!("the start value has no element {k}")))
}

/// The control ops that pass their operands on to a computation, given the operands themselves
/// (`args`, in operand order): an argument nothing else holds reaches the callee unshared.
pub fn eval_owned(ev: &Evaluator, op: &ControlOp, mut args: Vec<Literal>) -> Result<Literal> {
    match op {
        ControlOp::Call(c) => ev.call(c.to_apply.0, args),
        // A fusion computes exactly what its fused computation computes.
        ControlOp::Fusion(f) => ev.call(f.calls.0, args),
        ControlOp::While(w) => {
            let (cond, body) = (w.condition.0, w.body.0);
            let mut state = args
                .pop()
                .ok_or_else(|| Error::internal("while without an operand"))?;
            let budget = ev.ctx.options.max_while_iterations;
            let mut n: u64 = 0;
            loop {
                // The condition gets a shared view of the state (its copy dies with the call),
                // so the body gets the state unshared again.
                let go = ev.call(cond, vec![state.clone()])?;
                if go.scalar_value() != Some(Scalar::Pred(true)) {
                    return Ok(state);
                }
                if n >= budget {
                    return Err(Error::runtime(format!(
                        "the loop's condition still holds after {n} iterations, the run's budget (RunOptions::max_while_iterations); the loop may not terminate"
                    ))
                    .with_rule("while.iteration_budget"));
                }
                state = ev.call(body, vec![state])?;
                n += 1;
            }
        }
        ControlOp::Conditional(branches) => {
            let sel = args
                .first()
                .and_then(|l| l.scalar_value())
                .ok_or_else(|| Error::internal("conditional without a scalar selector"))?;
            let (branch, arg) = match (&**branches, sel) {
                (Branches::TrueFalse(t, f), Scalar::Pred(p)) => {
                    if p {
                        (t.0, 1)
                    } else {
                        (f.0, 2)
                    }
                }
                (Branches::Indexed(bs), Scalar::S32(i)) => {
                    // An index outside 0..N picks the last branch, as the seed specifies; the
                    // verifier proved N >= 1.
                    let last = bs.len() - 1;
                    let k = usize::try_from(i)
                        .ok()
                        .filter(|&k| k <= last)
                        .unwrap_or(last);
                    (bs[k].0, k + 1)
                }
                _ => return Err(Error::internal("conditional selector type")),
            };
            if arg >= args.len() {
                return Err(Error::internal("conditional operand missing"));
            }
            let a = args.swap_remove(arg);
            ev.call(branch, vec![a])
        }
        _ => Err(Error::internal(format!(
            "{op:?} does not take its operands whole"
        ))),
    }
}

pub fn eval(
    ev: &Evaluator,
    inst: &Instruction,
    op: &ControlOp,
    ops: &[&Literal],
) -> Result<Literal> {
    let cloned = || ops.iter().map(|l| (*l).clone()).collect::<Vec<_>>();
    match op {
        ControlOp::Call(_)
        | ControlOp::Fusion(_)
        | ControlOp::While(_)
        | ControlOp::Conditional(_) => eval_owned(ev, op, cloned()),
        // An asynchronous pair computes what its wrapped work computes; the reference runs the
        // work at the start and carries the value (and zero contexts) to the done.
        ControlOp::AsyncStart(a) => {
            let result = ev.call(a.calls.0, cloned())?;
            let contexts = match &inst.shape {
                Shape::Tuple(t) => t.iter().skip(2).map(Literal::zeros).collect(),
                _ => vec![],
            };
            let mut parts = vec![Literal::Tuple(cloned()), result];
            parts.extend(contexts);
            Ok(Literal::Tuple(parts))
        }
        ControlOp::AsyncUpdate => Ok(first(ops)?.clone()),
        ControlOp::AsyncDone => element(first(ops)?, 1),
        ControlOp::CopyStart => {
            let x = first(ops)?.clone();
            let dest = match &inst.shape {
                Shape::Tuple(t) if !t.is_empty() => relayout(x.clone(), &t[0]),
                _ => x.clone(),
            };
            Ok(Literal::Tuple(vec![dest, x, Literal::scalar(0u32)]))
        }
        ControlOp::CopyDone => element(first(ops)?, 0),
        ControlOp::AfterAll => Ok(Literal::Token),
        ControlOp::AddDependency | ControlOp::OptimizationBarrier => ops
            .first()
            .map(|l| (*l).clone())
            .ok_or_else(|| Error::internal("missing operand")),
        ControlOp::CustomCall(c) => custom_call::custom_call(ev, inst, c, ops),
        ControlOp::Infeed(_) => {
            let data_shape = match inst.shape.as_tuple() {
                Some([d, _]) => d,
                _ => return Err(Error::internal("infeed shape")),
            };
            if *data_shape == Shape::Tuple(vec![]) {
                // An empty tuple reads nothing from the queue (the seed's no-op infeed).
                return Ok(Literal::Tuple(vec![Literal::Tuple(vec![]), Literal::Token]));
            }
            let v = ev
                .ctx
                .infeed
                .lock()
                .map_err(|_| Error::internal("infeed lock poisoned"))?
                .pop_front()
                .ok_or_else(|| {
                    Error::runtime(format!(
                        "infeed of {data_shape} found the infeed queue empty"
                    ))
                    .with_rule("infeed.empty")
                })?;
            if !v.fits(data_shape) {
                return Err(Error::runtime(format!(
                    "infeed expects {data_shape} but the next queued value is {}",
                    v.shape()
                ))
                .with_rule("infeed.value_shape"));
            }
            Ok(Literal::Tuple(vec![v, Literal::Token]))
        }
        ControlOp::Outfeed(_) => {
            let v = ops
                .first()
                .map(|l| (*l).clone())
                .ok_or_else(|| Error::internal("outfeed without data"))?;
            ev.ctx
                .outfeed
                .lock()
                .map_err(|_| Error::internal("outfeed lock poisoned"))?
                .push(v);
            Ok(Literal::Token)
        }
        ControlOp::Send(c) => channels::channel_op(ev, inst, Channel::Send, c, ops),
        ControlOp::Recv(c) => channels::channel_op(ev, inst, Channel::Recv, c, ops),
        ControlOp::SendDone(c) => channels::channel_op(ev, inst, Channel::SendDone, c, ops),
        ControlOp::RecvDone(c) => channels::channel_op(ev, inst, Channel::RecvDone, c, ops),
    }
}

#[cfg(test)]
mod tests;
