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

use super::Evaluator;
use crate::error::{Error, Result};
use crate::hlo::ast::{AttrValue, Instruction};
use crate::hlo::opcode::Opcode;
use crate::literal::{Array, ArrayData, Literal, Scalar};
use crate::shape::{ArrayShape, Shape};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// One array as a custom-call target sees it: its shape (with the layout it is laid out in) and
/// its elements as a linear buffer in that layout, padding included.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomCallBuffer {
    pub shape: ArrayShape,
    pub data: ArrayData,
}

impl CustomCallBuffer {
    /// Position in `data` of the element at a multi-dimensional index, per the buffer's layout.
    pub fn offset(&self, index: &[i64]) -> usize {
        self.shape
            .layout_or_default()
            .linear_index(&self.shape.dims, index) as usize
    }
}

/// A custom-call target: the seed's `void f(void* out, void** in)` ABI in Rust. It receives one
/// output buffer per array of the declared result shape (one for an array result, one per leaf
/// of a tuple) and one input buffer per array operand (tuple operands are flattened, tokens
/// skipped), each laid out in its declared layout, and fills the output buffers in place.
pub type CustomCallFn =
    Arc<dyn Fn(&mut [CustomCallBuffer], &[CustomCallBuffer]) -> Result<()> + Send + Sync>;

/// Named Rust functions `custom-call` can invoke.
#[derive(Default, Clone)]
pub struct CustomCallRegistry {
    targets: HashMap<String, CustomCallFn>,
}

impl CustomCallRegistry {
    /// The registry with the targets xla-spec ships (the book's examples use them): `myfunc`,
    /// the seed's example, and `xla_spec.raw_buffer`, which returns its operand's linear buffer.
    pub fn with_builtins() -> CustomCallRegistry {
        let mut r = CustomCallRegistry::default();
        r.register("myfunc", Arc::new(myfunc));
        r.register("xla_spec.raw_buffer", Arc::new(raw_buffer));
        r
    }
    pub fn register(&mut self, name: &str, f: CustomCallFn) {
        self.targets.insert(name.to_string(), f);
    }
    pub fn get(&self, name: &str) -> Option<&CustomCallFn> {
        self.targets.get(name)
    }
}

fn contract(target: &str, msg: impl std::fmt::Display) -> Error {
    Error::runtime(format!("custom-call target `{target}`: {msg}"))
        .with_rule("custom-call.target_contract")
}

/// The seed's example: `myfunc(x: f32[2], y: f32[2,3]) -> f32[3,3]` with
/// `z[i][j] = x[(i+1) % 2] + y[(i+1) % 2][j]` (so `z[0][0] = x[1] + y[1][0]`, as in the seed).
/// It reads `y` through its layout, so a column-major `y` gives the same answer.
fn myfunc(out: &mut [CustomCallBuffer], ins: &[CustomCallBuffer]) -> Result<()> {
    let (
        [z],
        [
            x @ CustomCallBuffer {
                data: ArrayData::F32(xd),
                ..
            },
            y @ CustomCallBuffer {
                data: ArrayData::F32(yd),
                ..
            },
        ],
    ) = (out, ins)
    else {
        return Err(contract(
            "myfunc",
            "takes f32[2] and f32[2,3] and returns one f32[3,3]",
        ));
    };
    if x.shape.dims != [2] || y.shape.dims != [2, 3] || z.shape.dims != [3, 3] {
        return Err(contract(
            "myfunc",
            "takes f32[2] and f32[2,3] and returns f32[3,3]",
        ));
    }
    let mut vals = vec![];
    for i in 0..3i64 {
        for j in 0..3i64 {
            let r = (i + 1) % 2;
            let (a, b) = (xd.get(x.offset(&[r])), yd.get(y.offset(&[r, j])));
            let (Some(a), Some(b)) = (a, b) else {
                return Err(contract(
                    "myfunc",
                    "an input buffer is shorter than its layout",
                ));
            };
            vals.push(([i, j], a + b));
        }
    }
    let offsets: Vec<usize> = vals.iter().map(|(ix, _)| z.offset(ix)).collect();
    let ArrayData::F32(zd) = &mut z.data else {
        return Err(contract("myfunc", "returns f32[3,3]"));
    };
    for (k, (_, v)) in offsets.into_iter().zip(vals) {
        if let Some(slot) = zd.get_mut(k) {
            *slot = v;
        }
    }
    Ok(())
}

/// `xla_spec.raw_buffer(x) -> T[n]`: the operand's linear buffer, element by element, as a
/// rank-1 array (n is the buffer length, padding included). It shows what the ABI hands over.
fn raw_buffer(out: &mut [CustomCallBuffer], ins: &[CustomCallBuffer]) -> Result<()> {
    match (out, ins) {
        ([o], [i]) if o.data.ty() == i.data.ty() && o.data.len() == i.data.len() => {
            o.data = i.data.clone();
            Ok(())
        }
        _ => Err(contract(
            "xla_spec.raw_buffer",
            "takes one array and returns a rank-1 array of the same type with one element per buffer slot",
        )),
    }
}

/// The shapes of `operand_layout_constraints={...}`, if the attribute is present.
pub fn operand_layouts(inst: &Instruction) -> Result<Option<Vec<Shape>>> {
    let Some(v) = inst.attrs.get("operand_layout_constraints") else {
        return Ok(None);
    };
    let AttrValue::Opaque(text) = v else {
        return Err(Error::invalid(
            "custom-call.operand_layouts",
            "operand_layout_constraints must be a list of shapes {s0, s1, ...}",
        ));
    };
    let bad = || {
        Error::invalid(
            "custom-call.operand_layouts",
            format!(
                "operand_layout_constraints must be a list of shapes {{s0, s1, ...}}, got {text}"
            ),
        )
    };
    let inner = text
        .trim()
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .ok_or_else(bad)?;
    let mut parts = vec![];
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in inner.char_indices() {
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !inner[start..].trim().is_empty() {
        parts.push(&inner[start..]);
    }
    parts
        .into_iter()
        .map(|p| crate::hlo::parse_shape(p.trim()).map_err(|_| bad()))
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// The `{source, target}` replica pairs of a send or recv, from the frontend attribute
/// `_xla_send_recv_source_target_pairs="{{0,1},{1,0}}"` XLA uses for send/recv between
/// replicas; `None` when the attribute is absent (the channel stays within each replica).
pub fn source_target_pairs(inst: &Instruction) -> Result<Option<Vec<(i64, i64)>>> {
    const KEY: &str = "_xla_send_recv_source_target_pairs";
    let Some(AttrValue::Opaque(text)) = inst.attrs.get("frontend_attributes") else {
        return Ok(None);
    };
    let Some(at) = text.find(KEY) else {
        return Ok(None);
    };
    let rest = &text[at + KEY.len()..];
    let bad = || {
        Error::invalid(
            "channel.source_target_pairs",
            format!("{KEY} must be a string of pairs such as \"{{{{0,1}},{{1,0}}}}\""),
        )
    };
    let body = rest
        .trim_start()
        .strip_prefix('=')
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix('"'))
        .and_then(|r| r.split('"').next())
        .ok_or_else(bad)?;
    let mut pairs = vec![];
    for group in body.split('}') {
        let nums: Vec<&str> = group
            .split(|c: char| c == '{' || c == ',' || c.is_whitespace())
            .filter(|p| !p.is_empty())
            .collect();
        match nums.as_slice() {
            [] => {}
            [a, b] => pairs.push((
                a.parse::<i64>().map_err(|_| bad())?,
                b.parse::<i64>().map_err(|_| bad())?,
            )),
            _ => return Err(bad()),
        }
    }
    Ok(Some(pairs))
}

/// How long one wait sleeps before it looks at the run's abort flag again.
const POLL: Duration = Duration::from_millis(20);

/// Channels for send/recv, shared by the replicas of a run. Each transfer belongs to one
/// replica; a send delivers into a receive posted by its target replica (itself unless the op
/// names source-target pairs).
#[derive(Default)]
pub struct Channels {
    state: Mutex<ChannelState>,
    changed: Condvar,
}

#[derive(Default)]
struct ChannelState {
    next_id: u32,
    transfers: HashMap<u32, Transfer>,
    /// Receives posted and not yet matched by a send, per (replica, channel), oldest first.
    posted: HashMap<(usize, i64), VecDeque<u32>>,
}

struct Transfer {
    is_send: bool,
    /// For a recv: the declared shape of the data it receives.
    shape: Shape,
    channel: i64,
    replica: usize,
    /// For a recv: the replica whose send delivers into it.
    peer: usize,
    /// For a recv: the delivered data, once a send has matched it.
    data: Option<Literal>,
    done: bool,
}

/// What a blocked channel op may wait for: peers, until the run's rendezvous timeout.
struct Wait<'a> {
    timeout: Duration,
    aborted: &'a dyn Fn() -> bool,
}

fn deadlock(msg: String) -> Error {
    Error::runtime(msg).with_rule("channel.deadlock")
}

impl Channels {
    fn lock(&self) -> Result<MutexGuard<'_, ChannelState>> {
        self.state
            .lock()
            .map_err(|_| Error::internal("channel table lock poisoned"))
    }

    fn new_transfer(st: &mut ChannelState, t: Transfer) -> Result<u32> {
        let id = st.next_id;
        st.next_id = id
            .checked_add(1)
            .ok_or_else(|| Error::runtime("more than 2^32 send/recv requests in one run"))?;
        st.transfers.insert(id, t);
        Ok(id)
    }

    /// Blocks until `ready` holds. A condition only this replica could make true fails at once
    /// (its schedule is sequential, so nothing else will); one a peer replica must make true
    /// fails after the rendezvous timeout.
    fn wait_until<'g>(
        &'g self,
        mut st: MutexGuard<'g, ChannelState>,
        self_only: bool,
        wait: &Wait,
        mut ready: impl FnMut(&mut ChannelState) -> bool,
        what: impl Fn() -> String,
    ) -> Result<MutexGuard<'g, ChannelState>> {
        let start = Instant::now();
        loop {
            if ready(&mut st) {
                return Ok(st);
            }
            if self_only {
                return Err(deadlock(format!(
                    "{}, and this replica's sequential schedule reaches it later or never, so the program deadlocks",
                    what()
                )));
            }
            if (wait.aborted)() {
                return Err(Error::runtime(
                    "another replica failed while this one waited on a channel",
                )
                .with_rule("collective.aborted"));
            }
            if start.elapsed() >= wait.timeout {
                return Err(deadlock(format!(
                    "{}, and no peer did so within the rendezvous timeout of {:?}: the replicas' schedules form a cycle (deadlock)",
                    what(),
                    wait.timeout
                )));
            }
            st = self
                .changed
                .wait_timeout(st, POLL)
                .map_err(|_| Error::internal("channel table lock poisoned"))?
                .0;
        }
    }

    /// `recv`: posts a receive buffer for a value of `shape` on `channel`, to be filled by
    /// replica `source`'s send, and returns its request id. With no source (no pair targets this
    /// replica) the receive completes at once with zeros, as a collective-permute does.
    fn recv(
        &self,
        replica: usize,
        channel: i64,
        source: Option<usize>,
        shape: &Shape,
    ) -> Result<u32> {
        let mut st = self.lock()?;
        let id = Self::new_transfer(
            &mut st,
            Transfer {
                is_send: false,
                shape: shape.clone(),
                channel,
                replica,
                peer: source.unwrap_or(replica),
                data: source.is_none().then(|| Literal::zeros(shape)),
                done: false,
            },
        )?;
        if source.is_some() {
            st.posted
                .entry((replica, channel))
                .or_default()
                .push_back(id);
        }
        self.changed.notify_all();
        Ok(id)
    }

    /// `send`: delivers `data` into the oldest receive that replica `target` posted on
    /// `channel`, waiting for one (Recv happens before Send). With no target (this replica is no
    /// source of a pair) nothing is sent.
    fn send(
        &self,
        replica: usize,
        channel: i64,
        target: Option<usize>,
        data: &Literal,
        wait: &Wait,
    ) -> Result<u32> {
        let mut st = self.lock()?;
        if let Some(t) = target {
            let mut recv_id = None;
            st = self.wait_until(
                st,
                t == replica,
                wait,
                |st| {
                    recv_id = st.posted.get_mut(&(t, channel)).and_then(|q| q.pop_front());
                    recv_id.is_some()
                },
                || {
                    format!(
                        "send on channel {channel} waits for replica {t} to post its recv (Recv happens before Send)"
                    )
                },
            )?;
            if let Some(r) = recv_id.and_then(|id| st.transfers.get_mut(&id)) {
                if !data.fits(&r.shape) {
                    return Err(Error::runtime(format!(
                        "send on channel {channel} delivers {} to a recv that expects {}",
                        data.shape(),
                        r.shape
                    ))
                    .with_rule("channel.same_shape"));
                }
                r.data = Some(data.clone());
            }
        }
        let id = Self::new_transfer(
            &mut st,
            Transfer {
                is_send: true,
                shape: data.shape(),
                channel,
                replica,
                peer: target.unwrap_or(replica),
                data: None,
                done: false,
            },
        )?;
        self.changed.notify_all();
        Ok(id)
    }

    /// `send-done` / `recv-done`: completes request `id`; for a recv, waits for the data (Send
    /// happens before RecvDone) and returns it.
    fn done(
        &self,
        replica: usize,
        channel: i64,
        id: u32,
        is_send: bool,
        wait: &Wait,
    ) -> Result<Option<Literal>> {
        let op = if is_send { "send-done" } else { "recv-done" };
        let mut st = self.lock()?;
        let (peer, t_channel, done) = st
            .transfers
            .get(&id)
            .filter(|t| t.replica == replica && t.is_send == is_send)
            .map(|t| (t.peer, t.channel, t.done))
            .ok_or_else(|| {
                Error::runtime(format!(
                    "{op}: its operand is not the context of a {} of this run",
                    if is_send { "send" } else { "recv" }
                ))
                .with_rule("channel.context")
            })?;
        if t_channel != channel {
            return Err(Error::runtime(format!(
                "{op} on channel {channel} completes a transfer of channel {t_channel}"
            ))
            .with_rule("channel.same_channel"));
        }
        if done {
            return Err(Error::runtime(format!(
                "{op}: this transfer on channel {channel} was already completed"
            ))
            .with_rule("channel.done_once"));
        }
        if !is_send {
            st = self.wait_until(
                st,
                peer == replica,
                wait,
                |st| st.transfers.get(&id).is_some_and(|t| t.data.is_some()),
                || {
                    format!(
                        "recv-done on channel {channel} waits for replica {peer}'s send (Send happens before RecvDone)"
                    )
                },
            )?;
        }
        let t = st
            .transfers
            .get_mut(&id)
            .ok_or_else(|| Error::internal("transfer vanished"))?;
        t.done = true;
        Ok(t.data.take())
    }
}

pub fn eval(ev: &Evaluator, inst: &Instruction, ops: &[&Literal]) -> Result<Literal> {
    use Opcode::*;
    let attrs = &inst.attrs;
    let comp = |key: &str| {
        attrs
            .comp(key)
            .ok_or_else(|| Error::internal(format!("`{}` without {key}", inst.name)))
    };
    let cloned = || ops.iter().map(|l| (*l).clone()).collect::<Vec<_>>();
    match inst.opcode {
        Call => ev.call(comp("to_apply")?, cloned()),
        While => {
            let (cond, body) = (comp("condition")?, comp("body")?);
            let mut state = ops
                .first()
                .map(|l| (*l).clone())
                .ok_or_else(|| Error::internal("while without an operand"))?;
            let budget = ev.ctx.options.max_while_iterations;
            let mut n: u64 = 0;
            loop {
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
        Conditional => {
            let sel = ops
                .first()
                .and_then(|l| l.scalar_value())
                .ok_or_else(|| Error::internal("conditional without a scalar selector"))?;
            let (branch, arg) = match sel {
                Scalar::Pred(p) => (
                    comp(if p {
                        "true_computation"
                    } else {
                        "false_computation"
                    })?,
                    if p { 1 } else { 2 },
                ),
                Scalar::S32(i) => {
                    let bs = attrs
                        .comps("branch_computations")
                        .ok_or_else(|| Error::internal("conditional without branches"))?;
                    // An index outside 0..N picks the last branch, as the seed specifies.
                    let last = bs
                        .len()
                        .checked_sub(1)
                        .ok_or_else(|| Error::internal("conditional without branches"))?;
                    let k = usize::try_from(i)
                        .ok()
                        .filter(|&k| k <= last)
                        .unwrap_or(last);
                    (bs[k], k + 1)
                }
                _ => return Err(Error::internal("conditional selector type")),
            };
            let a = ops
                .get(arg)
                .map(|l| (*l).clone())
                .ok_or_else(|| Error::internal("conditional operand missing"))?;
            ev.call(branch, vec![a])
        }
        AfterAll => Ok(Literal::Token),
        AddDependency | OptimizationBarrier => ops
            .first()
            .map(|l| (*l).clone())
            .ok_or_else(|| Error::internal("missing operand")),
        CustomCall => custom_call(ev, inst, ops),
        Infeed => {
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
        Outfeed => {
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
        Send | Recv | SendDone | RecvDone => channel_op(ev, inst, ops),
        op => Err(super::not_implemented(op)),
    }
}

fn channel_op(ev: &Evaluator, inst: &Instruction, ops: &[&Literal]) -> Result<Literal> {
    let channel = inst
        .attrs
        .int("channel_id")
        .ok_or_else(|| Error::internal("channel op without channel_id"))?;
    let replica = ev.ctx.replica_id;
    let chans = &ev.ctx.shared.channels;
    let hub = &ev.ctx.shared.collectives;
    let aborted = || hub.is_aborted();
    let wait = Wait {
        timeout: ev.ctx.options.rendezvous_timeout,
        aborted: &aborted,
    };
    let pairs = source_target_pairs(inst)?;
    // The peer of this replica in the pairs; without pairs the channel stays in the replica.
    let peer = |from_source: bool| -> Option<usize> {
        match &pairs {
            None => Some(replica),
            Some(ps) => ps.iter().find_map(|&(s, t)| {
                let (me, other) = if from_source { (s, t) } else { (t, s) };
                (me as usize == replica).then_some(other as usize)
            }),
        }
    };
    // A peer outside this run (a module declaring more replicas than the run has) could never
    // answer: fail now rather than after the timeout.
    let present = |p: Option<usize>| -> Result<Option<usize>> {
        match p {
            Some(r) if r >= ev.ctx.shared.num_replicas => Err(deadlock(format!(
                "`{}` on channel {channel} pairs with replica {r}, but this run has {} replica(s)",
                inst.opcode, ev.ctx.shared.num_replicas
            ))),
            p => Ok(p),
        }
    };
    let context =
        |data: Literal, id: u32| Literal::Tuple(vec![data, Literal::scalar(id), Literal::Token]);
    let request_id = || -> Result<u32> {
        match ops.first().and_then(|l| l.as_tuple()) {
            Some([_, id, _]) => match id.scalar_value() {
                Some(Scalar::U32(k)) => Ok(k),
                _ => Err(Error::internal("context without a u32 request id")),
            },
            _ => Err(Error::internal("channel context is not a tuple")),
        }
    };
    match inst.opcode {
        Opcode::Recv => {
            let data_shape = match inst.shape.as_tuple() {
                Some([d, _, _]) => d,
                _ => return Err(Error::internal("recv shape")),
            };
            let id = chans.recv(replica, channel, present(peer(false))?, data_shape)?;
            // The buffer's contents are undefined until recv-done; xla-spec shows zeros.
            Ok(context(Literal::zeros(data_shape), id))
        }
        Opcode::Send => {
            let data = ops
                .first()
                .ok_or_else(|| Error::internal("send without data"))?;
            let id = chans.send(replica, channel, present(peer(true))?, data, &wait)?;
            Ok(context((*data).clone(), id))
        }
        Opcode::SendDone => {
            chans.done(replica, channel, request_id()?, true, &wait)?;
            Ok(Literal::Token)
        }
        _ => {
            let data = chans
                .done(replica, channel, request_id()?, false, &wait)?
                .ok_or_else(|| Error::internal("recv-done without data"))?;
            Ok(Literal::Tuple(vec![data, Literal::Token]))
        }
    }
}

/// Array leaves of a shape, in order (tokens have no buffer).
fn array_leaves(s: &Shape, out: &mut Vec<ArrayShape>) {
    match s {
        Shape::Array(a) => out.push(a.clone()),
        Shape::Tuple(t) => t.iter().for_each(|e| array_leaves(e, out)),
        Shape::Token => {}
    }
}

fn literal_leaves<'l>(l: &'l Literal, out: &mut Vec<&'l Array>) {
    match l {
        Literal::Array(a) => out.push(a),
        Literal::Tuple(t) => t.iter().for_each(|e| literal_leaves(e, out)),
        Literal::Token => {}
    }
}

/// Rebuilds a value of `shape` from its array leaves, in order.
fn rebuild(shape: &Shape, leaves: &mut impl Iterator<Item = Array>) -> Result<Literal> {
    Ok(match shape {
        Shape::Array(_) => Literal::Array(
            leaves
                .next()
                .ok_or_else(|| Error::internal("custom-call result leaves"))?,
        ),
        Shape::Tuple(t) => Literal::Tuple(
            t.iter()
                .map(|e| rebuild(e, leaves))
                .collect::<Result<_>>()?,
        ),
        Shape::Token => Literal::Token,
    })
}

fn custom_call(ev: &Evaluator, inst: &Instruction, ops: &[&Literal]) -> Result<Literal> {
    let target = inst.attrs.str("custom_call_target").unwrap_or("");
    let f = ev.ctx.options.custom_calls.get(target).ok_or_else(|| {
        Error::runtime(format!(
            "custom-call target `{target}` is not registered (register it in RunOptions::custom_calls)"
        ))
        .with_rule("custom-call.unknown_target")
    })?;
    // Operand layouts: operand_layout_constraints when given, else each value's own layout.
    let constraints = operand_layouts(inst)?;
    let mut ins = vec![];
    for (i, op) in ops.iter().enumerate() {
        let mut arrays = vec![];
        literal_leaves(op, &mut arrays);
        let mut wanted = vec![];
        if let Some(c) = constraints.as_ref().and_then(|c| c.get(i)) {
            array_leaves(c, &mut wanted);
        }
        for (k, a) in arrays.into_iter().enumerate() {
            let layout = wanted
                .get(k)
                .and_then(|s| s.layout.clone())
                .unwrap_or_else(|| a.shape.layout_or_default());
            let data = a.to_buffer(Some(&layout))?;
            ins.push(CustomCallBuffer {
                shape: a.shape.clone().with_layout(layout),
                data,
            });
        }
    }
    let mut leaves = vec![];
    array_leaves(&inst.shape, &mut leaves);
    let mut outs: Vec<CustomCallBuffer> = leaves
        .iter()
        .cloned()
        .map(|s| {
            let layout = s.layout_or_default();
            let n = layout.buffer_len(&s.dims) as usize;
            CustomCallBuffer {
                data: ArrayData::zeros(s.ty, n),
                shape: s.with_layout(layout),
            }
        })
        .collect();
    f(&mut outs, &ins)?;
    let arrays = outs
        .into_iter()
        .zip(&leaves)
        .map(|(b, declared)| {
            let mut a = Array::from_buffer(b.shape, &b.data).map_err(|e| {
                contract(
                    target,
                    format!("it left an output buffer malformed: {}", e.message),
                )
            })?;
            // The value keeps the declared shape: with no declared layout it has none either.
            a.shape.layout = declared.layout.clone();
            Ok(a)
        })
        .collect::<Result<Vec<_>>>()?;
    rebuild(&inst.shape, &mut arrays.into_iter())
}

#[cfg(test)]
mod tests {
    use crate::eval::{RunOptions, run};
    use crate::hlo::{parse_and_verify, parse_literal};
    use crate::literal::Literal;

    fn lit(s: &str) -> Literal {
        parse_literal(s).unwrap()
    }

    fn run_text(text: &str, args: &[&str], opts: &RunOptions) -> crate::error::Result<Literal> {
        let m = parse_and_verify(text)?;
        run(&m, args.iter().map(|a| lit(a)).collect(), opts).map(|o| o.result)
    }

    fn ok(text: &str, args: &[&str]) -> String {
        run_text(text, args, &RunOptions::default())
            .unwrap_or_else(|e| panic!("{e}"))
            .to_string()
    }

    fn err_rule(text: &str, args: &[&str], opts: &RunOptions) -> String {
        let e = run_text(text, args, opts).unwrap_err();
        e.rule.clone().unwrap_or_else(|| format!("no rule: {e}"))
    }

    #[test]
    fn call_and_tuple_state_while() {
        let t = "HloModule m\ndbl {\n x = f32[2] parameter(0)\n ROOT y = f32[2] add(x, x)\n}\nENTRY e {\n p = f32[2] parameter(0)\n ROOT c = f32[2] call(p), to_apply=dbl\n}\n";
        assert_eq!(ok(t, &["f32[2] {1, 2}"]), "f32[2] {2, 4}");
        // A loop whose condition reads a pred carried in the state: the body clears it, so the
        // body runs exactly once.
        let t = "HloModule m\ncond {\n s = (pred[], s32[]) parameter(0)\n ROOT g = pred[] get-tuple-element(s), index=0\n}\nbody {\n s = (pred[], s32[]) parameter(0)\n i = s32[] get-tuple-element(s), index=1\n one = s32[] constant(1)\n j = s32[] add(i, one)\n f = pred[] constant(false)\n ROOT t = (pred[], s32[]) tuple(f, j)\n}\nENTRY e {\n p = (pred[], s32[]) parameter(0)\n ROOT w = (pred[], s32[]) while(p), condition=cond, body=body\n}\n";
        assert_eq!(
            ok(t, &["(pred[] true, s32[] 5)"]),
            "(pred[] false, s32[] 6)"
        );
        assert_eq!(
            ok(t, &["(pred[] false, s32[] 5)"]),
            "(pred[] false, s32[] 5)"
        );
    }

    #[test]
    fn endless_loop_hits_the_budget() {
        let t = "HloModule m\ncond {\n s = s32[] parameter(0)\n ROOT t = pred[] constant(true)\n}\nbody {\n s = s32[] parameter(0)\n one = s32[] constant(1)\n ROOT n = s32[] add(s, one)\n}\nENTRY e {\n p = s32[] parameter(0)\n ROOT w = s32[] while(p), condition=cond, body=body\n}\n";
        let opts = RunOptions {
            max_while_iterations: 1000,
            ..RunOptions::default()
        };
        assert_eq!(err_rule(t, &["s32[] 0"], &opts), "while.iteration_budget");
    }

    #[test]
    fn the_budget_counts_each_loop_execution() {
        // An outer loop of 3 iterations runs an inner loop of 4 each time: 12 increments. The
        // budget applies to each execution of a while, so 4 suffices and 3 does not.
        let counter = |n: usize, st: &str, name: &str| {
            let ops = vec!["u"; n + 1].join(", ");
            let mut br = vec!["yes"; n];
            br.push("no");
            format!(
                "{name} {{\n s = {st} parameter(0)\n i = s32[] get-tuple-element(s), index=0\n u = () tuple()\n ROOT c = pred[] conditional(i, {ops}), branch_computations={{{}}}\n}}\n",
                br.join(", ")
            )
        };
        let t = format!(
            "HloModule m\nyes {{\n u = () parameter(0)\n ROOT t = pred[] constant(true)\n}}\nno {{\n u = () parameter(0)\n ROOT f = pred[] constant(false)\n}}\n{}{}\
             ibody {{\n s = (s32[], s32[]) parameter(0)\n i = s32[] get-tuple-element(s), index=0\n a = s32[] get-tuple-element(s), index=1\n one = s32[] constant(1)\n i1 = s32[] add(i, one)\n a1 = s32[] add(a, one)\n ROOT t = (s32[], s32[]) tuple(i1, a1)\n}}\n\
             obody {{\n s = (s32[], s32[]) parameter(0)\n i = s32[] get-tuple-element(s), index=0\n a = s32[] get-tuple-element(s), index=1\n z = s32[] constant(0)\n init = (s32[], s32[]) tuple(z, a)\n w = (s32[], s32[]) while(init), condition=icond, body=ibody\n a1 = s32[] get-tuple-element(w), index=1\n one = s32[] constant(1)\n i1 = s32[] add(i, one)\n ROOT t = (s32[], s32[]) tuple(i1, a1)\n}}\n\
             ENTRY e {{\n p = (s32[], s32[]) parameter(0)\n ROOT w = (s32[], s32[]) while(p), condition=ocond, body=obody\n}}\n",
            counter(4, "(s32[], s32[])", "icond"),
            counter(3, "(s32[], s32[])", "ocond"),
        );
        let arg = ["(s32[] 0, s32[] 0)"];
        let budget = |b| RunOptions {
            max_while_iterations: b,
            ..RunOptions::default()
        };
        assert_eq!(
            run_text(&t, &arg, &budget(4)).unwrap().to_string(),
            "(s32[] 3, s32[] 12)"
        );
        assert_eq!(err_rule(&t, &arg, &budget(3)), "while.iteration_budget");
    }

    #[test]
    fn conditional_forms() {
        let t = "HloModule m\nneg {\n x = f32[2] parameter(0)\n m = f32[2] constant({-1, -1})\n ROOT y = f32[2] multiply(x, m)\n}\nident {\n ROOT x = f32[2] parameter(0)\n}\ndbl {\n x = f32[2] parameter(0)\n ROOT y = f32[2] add(x, x)\n}\nENTRY e {\n i = s32[] parameter(0)\n x = f32[2] parameter(1)\n ROOT c = f32[2] conditional(i, x, x, x), branch_computations={neg, ident, dbl}\n}\n";
        for (i, want) in [
            (0, "{-1, -2}"),
            (1, "{1, 2}"),
            (2, "{2, 4}"),
            (3, "{2, 4}"),
            (-1, "{2, 4}"),
        ] {
            let got = ok(t, &[&format!("s32[] {i}"), "f32[2] {1, 2}"]);
            assert_eq!(got, format!("f32[2] {want}"), "index {i}");
        }
        let t = "HloModule m\nneg {\n x = f32[2] parameter(0)\n m = f32[2] constant({-1, -1})\n ROOT y = f32[2] multiply(x, m)\n}\nident {\n ROOT x = f32[2] parameter(0)\n}\nENTRY e {\n p = pred[] parameter(0)\n x = f32[2] parameter(1)\n ROOT c = f32[2] conditional(p, x, x), true_computation=neg, false_computation=ident\n}\n";
        assert_eq!(ok(t, &["pred[] true", "f32[2] {1, 2}"]), "f32[2] {-1, -2}");
        assert_eq!(ok(t, &["pred[] false", "f32[2] {1, 2}"]), "f32[2] {1, 2}");
    }

    #[test]
    fn tokens_and_barriers() {
        let t = "HloModule m\nENTRY e {\n x = (f32[2], s32[]) parameter(0)\n a = token[] after-all()\n b = token[] after-all(a, a)\n d = (f32[2], s32[]) add-dependency(x, b)\n ROOT o = (f32[2], s32[]) opt-barrier(d)\n}\n";
        assert_eq!(
            ok(t, &["(f32[2] {1, 2}, s32[] 3)"]),
            "(f32[2] {1, 2}, s32[] 3)"
        );
    }

    #[test]
    fn custom_call_buffers_follow_declared_layouts() {
        // y arrives column-major; myfunc reads it through its layout, so the answer is the same.
        let t = "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n y = f32[2,3] parameter(1)\n ROOT z = f32[3,3] custom-call(x, y), custom_call_target=\"myfunc\", operand_layout_constraints={f32[2]{0}, f32[2,3]{0,1}}\n}\n";
        let want = "f32[3,3] {{42, 52, 62}, {11, 21, 31}, {42, 52, 62}}";
        let args = ["f32[2] {1, 2}", "f32[2,3] {{10, 20, 30}, {40, 50, 60}}"];
        assert_eq!(ok(t, &args), want);
        let t2 = t.replace(
            ", operand_layout_constraints={f32[2]{0}, f32[2,3]{0,1}}",
            "",
        );
        assert_eq!(ok(&t2, &args), want);
        // The raw buffer shows the column-major order the target sees.
        let t = "HloModule m\nENTRY e {\n y = f32[2,3] parameter(0)\n ROOT z = f32[6] custom-call(y), custom_call_target=\"xla_spec.raw_buffer\", operand_layout_constraints={f32[2,3]{0,1}}\n}\n";
        assert_eq!(
            ok(t, &["f32[2,3] {{1, 2, 3}, {4, 5, 6}}"]),
            "f32[6] {1, 4, 2, 5, 3, 6}"
        );
        let t = "HloModule m\nENTRY e {\n y = f32[2] parameter(0)\n ROOT z = f32[2] custom-call(y), custom_call_target=\"nope\"\n}\n";
        assert_eq!(
            err_rule(t, &["f32[2] {1, 2}"], &RunOptions::default()),
            "custom-call.unknown_target"
        );
    }

    #[test]
    fn a_registered_target_runs() {
        let mut reg = super::CustomCallRegistry::with_builtins();
        reg.register(
            "negate_all",
            std::sync::Arc::new(
                |out: &mut [super::CustomCallBuffer], ins: &[super::CustomCallBuffer]| match (
                    &mut out[0].data,
                    &ins[0].data,
                ) {
                    (super::ArrayData::F32(o), super::ArrayData::F32(i)) => {
                        o.iter_mut().zip(i).for_each(|(o, i)| *o = -i);
                        Ok(())
                    }
                    _ => Err(crate::error::Error::runtime("negate_all takes f32")),
                },
            ),
        );
        let opts = RunOptions {
            custom_calls: std::sync::Arc::new(reg),
            ..RunOptions::default()
        };
        let t = "HloModule m\nENTRY e {\n y = f32[2] parameter(0)\n ROOT z = f32[2] custom-call(y), custom_call_target=\"negate_all\"\n}\n";
        assert_eq!(
            run_text(t, &["f32[2] {1, 2}"], &opts).unwrap().to_string(),
            "f32[2] {-1, -2}"
        );
    }

    #[test]
    fn custom_call_tuple_results_and_output_layouts() {
        // Two outputs: the buffer of a column-major operand, and myfunc's result laid out
        // column-major; tuple operands are flattened into their arrays.
        let mut reg = super::CustomCallRegistry::with_builtins();
        reg.register(
            "split",
            std::sync::Arc::new(
                |out: &mut [super::CustomCallBuffer], ins: &[super::CustomCallBuffer]| {
                    if out.len() != 2 || ins.len() != 2 {
                        return Err(crate::error::Error::runtime("split takes 2 and gives 2"));
                    }
                    out[0].data = ins[1].data.clone();
                    out[1].data = ins[0].data.clone();
                    Ok(())
                },
            ),
        );
        let opts = RunOptions {
            custom_calls: std::sync::Arc::new(reg),
            ..RunOptions::default()
        };
        let t = "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n y = s32[] parameter(1)\n p = (f32[2], s32[]) tuple(x, y)\n t = token[] after-all()\n ROOT z = (s32[], f32[2]) custom-call(p, t), custom_call_target=\"split\"\n}\n";
        assert_eq!(
            run_text(t, &["f32[2] {1, 2}", "s32[] 9"], &opts)
                .unwrap()
                .to_string(),
            "(s32[] 9, f32[2] {1, 2})"
        );
        // A column-major declared result: myfunc writes through the layout, so the values are
        // the same and the value carries the declared layout.
        let t = "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n y = f32[2,3] parameter(1)\n ROOT z = f32[3,3]{0,1} custom-call(x, y), custom_call_target=\"myfunc\"\n}\n";
        assert_eq!(
            ok(
                t,
                &["f32[2] {1, 2}", "f32[2,3] {{10, 20, 30}, {40, 50, 60}}"]
            ),
            "f32[3,3]{0,1} {{42, 52, 62}, {11, 21, 31}, {42, 52, 62}}"
        );
        // A target that breaks the buffer contract is reported, not trusted.
        let mut reg = super::CustomCallRegistry::with_builtins();
        reg.register(
            "shrink",
            std::sync::Arc::new(
                |out: &mut [super::CustomCallBuffer], _: &[super::CustomCallBuffer]| {
                    out[0].data = super::ArrayData::F32(vec![1.0]);
                    Ok(())
                },
            ),
        );
        let opts = RunOptions {
            custom_calls: std::sync::Arc::new(reg),
            ..RunOptions::default()
        };
        let t = "HloModule m\nENTRY e {\n ROOT z = f32[2] custom-call(), custom_call_target=\"shrink\"\n}\n";
        assert_eq!(err_rule(t, &[], &opts), "custom-call.target_contract");
    }

    #[test]
    fn infeed_and_outfeed_in_token_order() {
        let t = "HloModule m\nENTRY e {\n t0 = token[] after-all()\n a = (f32[2], token[]) infeed(t0)\n t1 = token[] get-tuple-element(a), index=1\n e0 = ((), token[]) infeed(t1)\n t2 = token[] get-tuple-element(e0), index=1\n b = (s32[], token[]) infeed(t2)\n t3 = token[] get-tuple-element(b), index=1\n bv = s32[] get-tuple-element(b), index=0\n o1 = token[] outfeed(bv, t3), outfeed_shape=s32[]\n av = f32[2] get-tuple-element(a), index=0\n o2 = token[] outfeed(av, o1)\n ROOT r = f32[2] add(av, av)\n}\n";
        let m = parse_and_verify(t).unwrap();
        let opts = RunOptions {
            infeed: vec![lit("f32[2] {1, 2}"), lit("s32[] 7")],
            ..RunOptions::default()
        };
        let out = run(&m, vec![], &opts).unwrap();
        assert_eq!(out.result.to_string(), "f32[2] {2, 4}");
        let feeds: Vec<String> = out.outfeed.iter().map(|l| l.to_string()).collect();
        assert_eq!(feeds, ["s32[] 7", "f32[2] {1, 2}"]);
        let short = RunOptions {
            infeed: vec![lit("f32[2] {1, 2}")],
            ..RunOptions::default()
        };
        assert_eq!(err_rule(t, &[], &short), "infeed.empty");
        let wrong = RunOptions {
            infeed: vec![lit("f32[3] {1, 2, 3}")],
            ..RunOptions::default()
        };
        assert_eq!(err_rule(t, &[], &wrong), "infeed.value_shape");
    }

    const SEND_RECV: &str = "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n t = token[] after-all()\n r = (f32[2], u32[], token[]) recv(t), channel_id=1\n s = (f32[2], u32[], token[]) send(x, t), channel_id=1\n rd = (f32[2], token[]) recv-done(r), channel_id=1\n sd = token[] send-done(s), channel_id=1\n ROOT v = f32[2] get-tuple-element(rd), index=0\n}\n";

    #[test]
    fn send_and_recv_rendezvous() {
        assert_eq!(ok(SEND_RECV, &["f32[2] {3, 4}"]), "f32[2] {3, 4}");
        // Send before its recv: the send waits for a recv that comes later.
        let early_send = SEND_RECV
            .replace(" r = (f32[2], u32[], token[]) recv(t), channel_id=1\n", "")
            .replace(
                " rd = ",
                " r = (f32[2], u32[], token[]) recv(t), channel_id=1\n rd = ",
            );
        assert_eq!(
            err_rule(&early_send, &["f32[2] {3, 4}"], &RunOptions::default()),
            "channel.deadlock"
        );
    }

    #[test]
    fn the_seeds_cyclic_schedule_deadlocks() {
        // Computation a waits on channel 1 before sending on 2; b waits on 2 before sending on 1.
        let t = "HloModule m\na {\n x = f32[] parameter(0)\n t = token[] after-all()\n r = (f32[], u32[], token[]) recv(t), channel_id=1\n rd = (f32[], token[]) recv-done(r), channel_id=1\n s = (f32[], u32[], token[]) send(x, t), channel_id=2\n sd = token[] send-done(s), channel_id=2\n ROOT v = f32[] get-tuple-element(rd), index=0\n}\nb {\n x = f32[] parameter(0)\n t = token[] after-all()\n r = (f32[], u32[], token[]) recv(t), channel_id=2\n rd = (f32[], token[]) recv-done(r), channel_id=2\n s = (f32[], u32[], token[]) send(x, t), channel_id=1\n sd = token[] send-done(s), channel_id=1\n ROOT v = f32[] get-tuple-element(rd), index=0\n}\nENTRY e {\n x = f32[] parameter(0)\n ca = f32[] call(x), to_apply=a\n cb = f32[] call(x), to_apply=b\n ROOT s = f32[] add(ca, cb)\n}\n";
        assert_eq!(
            err_rule(t, &["f32[] 1"], &RunOptions::default()),
            "channel.deadlock"
        );
    }

    fn replicated(
        text: &str,
        args: Vec<Vec<Literal>>,
        opts: &RunOptions,
    ) -> crate::error::Result<Vec<String>> {
        let m = parse_and_verify(text)?;
        crate::eval::run_replicated(&m, args, opts)
            .map(|outs| outs.iter().map(|o| o.result.to_string()).collect())
    }

    const PAIRS: &str =
        "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}";

    #[test]
    fn replicas_exchange_through_a_channel() {
        // Each replica posts its recv first, then sends to the other: a valid schedule.
        let t = format!(
            "HloModule m, replica_count=2\nENTRY e {{\n x = f32[] parameter(0)\n t = token[] after-all()\n r = (f32[], u32[], token[]) recv(t), channel_id=1, {PAIRS}\n s = (f32[], u32[], token[]) send(x, t), channel_id=1, {PAIRS}\n rd = (f32[], token[]) recv-done(r), channel_id=1\n sd = token[] send-done(s), channel_id=1\n ROOT v = f32[] get-tuple-element(rd), index=0\n}}\n"
        );
        let args = vec![vec![lit("f32[] 10")], vec![lit("f32[] 20")]];
        assert_eq!(
            replicated(&t, args, &RunOptions::default()).unwrap(),
            ["f32[] 20", "f32[] 10"]
        );
    }

    #[test]
    fn a_peer_outside_the_run_fails_at_once() {
        let t = format!(
            "HloModule m, replica_count=2\nENTRY e {{\n x = f32[] parameter(0)\n t = token[] after-all()\n r = (f32[], u32[], token[]) recv(t), channel_id=1, {PAIRS}\n s = (f32[], u32[], token[]) send(x, t), channel_id=1, {PAIRS}\n rd = (f32[], token[]) recv-done(r), channel_id=1\n ROOT v = f32[] get-tuple-element(rd), index=0\n}}\n"
        );
        let start = std::time::Instant::now();
        let e = replicated(&t, vec![vec![lit("f32[] 1")]], &RunOptions::default()).unwrap_err();
        assert_eq!(e.rule.as_deref(), Some("channel.deadlock"), "{e}");
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn a_cross_replica_cycle_times_out() {
        // Each replica waits in recv-done for the other's send, which comes after it.
        let t = format!(
            "HloModule m, replica_count=2\nENTRY e {{\n x = f32[] parameter(0)\n t = token[] after-all()\n r = (f32[], u32[], token[]) recv(t), channel_id=1, {PAIRS}\n rd = (f32[], token[]) recv-done(r), channel_id=1\n s = (f32[], u32[], token[]) send(x, t), channel_id=1, {PAIRS}\n sd = token[] send-done(s), channel_id=1\n ROOT v = f32[] get-tuple-element(rd), index=0\n}}\n"
        );
        let args = vec![vec![lit("f32[] 10")], vec![lit("f32[] 20")]];
        let opts = RunOptions {
            rendezvous_timeout: std::time::Duration::from_millis(200),
            ..RunOptions::default()
        };
        let e = replicated(&t, args, &opts).unwrap_err();
        assert_eq!(e.rule.as_deref(), Some("channel.deadlock"), "{e}");
    }

    #[test]
    fn invalid_control_programs_are_refused() {
        let cases = [
            (
                "HloModule m\ncond {\n s = s32[] parameter(0)\n ROOT t = pred[] constant(true)\n}\nbody {\n s = s32[] parameter(0)\n ROOT f = f32[] constant(1)\n}\nENTRY e {\n p = s32[] parameter(0)\n ROOT w = s32[] while(p), condition=cond, body=body\n}\n",
                "while.body_result",
            ),
            (
                "HloModule m\ncond {\n s = s32[] parameter(0)\n ROOT t = s32[] constant(1)\n}\nbody {\n ROOT s = s32[] parameter(0)\n}\nENTRY e {\n p = s32[] parameter(0)\n ROOT w = s32[] while(p), condition=cond, body=body\n}\n",
                "while.condition_returns_pred",
            ),
            (
                "HloModule m\nb0 {\n ROOT x = f32[2] parameter(0)\n}\nb1 {\n x = s32[2] parameter(0)\n ROOT y = f32[2] constant({0, 0})\n}\nENTRY e {\n i = s32[] parameter(0)\n x = f32[2] parameter(1)\n ROOT c = f32[2] conditional(i, x, x), branch_computations={b0, b1}\n}\n",
                "conditional.branch_parameter",
            ),
            (
                "HloModule m\nb0 {\n ROOT x = f32[2] parameter(0)\n}\nENTRY e {\n i = s64[] parameter(0)\n x = f32[2] parameter(1)\n ROOT c = f32[2] conditional(i, x), branch_computations={b0}\n}\n",
                "conditional.selector_type",
            ),
            (
                "HloModule m\nf {\n ROOT x = f32[2] parameter(0)\n}\nENTRY e {\n x = f32[3] parameter(0)\n ROOT c = f32[2] call(x), to_apply=f\n}\n",
                "call.signature",
            ),
            (
                "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n t = token[] after-all()\n ROOT o = token[] outfeed(x, t), outfeed_shape=f32[3]\n}\n",
                "outfeed.shape_matches",
            ),
            (
                "HloModule m\nENTRY e {\n t = token[] after-all()\n ROOT i = ((f32[2], (s32[])), token[]) infeed(t)\n}\n",
                "infeed.no_nested_tuple",
            ),
            (
                "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n ROOT a = token[] after-all(x)\n}\n",
                "after-all.token_operands",
            ),
            (
                "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n t = token[] after-all()\n ROOT s = (f32[2], u32[], token[]) send(x, t)\n}\n",
                "send.channel_id",
            ),
        ];
        for (t, want) in cases {
            let e = parse_and_verify(t).unwrap_err();
            assert_eq!(e.rule.as_deref(), Some(want), "{t}\n{e}");
        }
    }
}
