//! Channels: send, recv, send-done and recv-done (the model is the family module's
//! documentation: FIFO per channel within a replica, or between replicas by source-target pairs).

use super::super::Evaluator;
use super::Channel;
use crate::error::{Error, Result};
use crate::hlo::ast::Instruction;
use crate::hlo::attrs::ChannelAttrs;
use crate::literal::{Literal, Scalar};
use crate::shape::Shape;
use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

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

pub(super) fn channel_op(
    ev: &Evaluator,
    inst: &Instruction,
    kind: Channel,
    attrs: &ChannelAttrs,
    ops: &[&Literal],
) -> Result<Literal> {
    let channel = attrs
        .channel_id
        .ok_or_else(|| Error::internal("channel op without channel_id"))?;
    let replica = ev.ctx.replica_id;
    let chans = &ev.ctx.shared.channels;
    let hub = &ev.ctx.shared.collectives;
    let aborted = || hub.is_aborted();
    let wait = Wait {
        timeout: ev.ctx.options.rendezvous_timeout,
        aborted: &aborted,
    };
    let pairs = &attrs.source_target_pairs;
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
                inst.opcode(),
                ev.ctx.shared.num_replicas
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
    match kind {
        Channel::Recv => {
            let data_shape = match inst.shape.as_tuple() {
                Some([d, _, _]) => d,
                _ => return Err(Error::internal("recv shape")),
            };
            let id = chans.recv(replica, channel, present(peer(false))?, data_shape)?;
            // The buffer's contents are undefined until recv-done; xla-spec shows zeros.
            Ok(context(Literal::zeros(data_shape), id))
        }
        Channel::Send => {
            let data = ops
                .first()
                .ok_or_else(|| Error::internal("send without data"))?;
            let id = chans.send(replica, channel, present(peer(true))?, data, &wait)?;
            Ok(context((*data).clone(), id))
        }
        Channel::SendDone => {
            chans.done(replica, channel, request_id()?, true, &wait)?;
            Ok(Literal::Token)
        }
        Channel::RecvDone => {
            let data = chans
                .done(replica, channel, request_id()?, false, &wait)?
                .ok_or_else(|| Error::internal("recv-done without data"))?;
            Ok(Literal::Tuple(vec![data, Literal::Token]))
        }
    }
}
