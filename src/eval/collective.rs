//! Replicas and collectives. A run with N replicas runs the module on N threads; a collective is
//! a rendezvous of the replicas of one group.
//!
//! The model: each replica counts the collectives it executes. The k-th collective of every
//! replica in a group meets at one slot of the `Hub` (keyed by k and the group); each deposits its
//! operands, waits until every member has deposited, and takes all contributions in group order.
//! If members disagree about what the k-th collective is (different instructions), the run fails
//! with `collective.mismatch`; if a member finishes its program, fails, or does not arrive within
//! the rendezvous timeout, the others fail with `collective.deadlock` instead of waiting forever.

use super::{Evaluator, array};
use crate::error::{Error, Result};
use crate::hlo::ast::CompId;
use crate::hlo::ast::Instruction;
use crate::hlo::attrs::ReplicaGroups;
use crate::hlo::opcode::CollectiveOp;
use crate::literal::{Array, ArrayData, Literal};
use crate::shape::{ArrayShape, row_major_strides};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

struct Slot {
    inst: String,
    deposits: Vec<Option<Literal>>,
    taken: usize,
}

#[derive(Default)]
struct HubState {
    /// Collectives each replica has entered so far.
    seq: Vec<u64>,
    /// Replicas whose program has ended (normally or not).
    finished: Vec<bool>,
    slots: HashMap<(u64, Vec<usize>), Slot>,
}

/// The meeting point of the replicas of one run.
pub struct Hub {
    pub num_replicas: usize,
    aborted: AtomicBool,
    state: Mutex<HubState>,
    cv: Condvar,
}

impl Hub {
    pub fn new(num_replicas: usize) -> Hub {
        Hub {
            num_replicas,
            aborted: AtomicBool::new(false),
            state: Mutex::new(HubState {
                seq: vec![0; num_replicas],
                finished: vec![false; num_replicas],
                slots: HashMap::new(),
            }),
            cv: Condvar::new(),
        }
    }

    /// Marks the run as failed so that replicas waiting here give up at once.
    pub fn abort(&self) {
        self.aborted.store(true, Ordering::SeqCst);
        self.cv.notify_all();
    }

    pub fn is_aborted(&self) -> bool {
        self.aborted.load(Ordering::SeqCst)
    }

    /// Records that a replica's program has ended; peers still waiting for it fail at once.
    pub fn finish(&self, replica: usize) {
        if let Ok(mut st) = self.state.lock()
            && let Some(f) = st.finished.get_mut(replica)
        {
            *f = true;
        }
        self.cv.notify_all();
    }

    /// Deposits `value` for `replica` at its next collective, a rendezvous of `group`, and returns
    /// every member's value in group order.
    pub fn exchange(
        &self,
        replica: usize,
        group: &[usize],
        inst: &str,
        value: Literal,
        timeout: Duration,
    ) -> Result<Vec<Literal>> {
        let poisoned = || Error::internal("collective state lock poisoned");
        let pos = group
            .iter()
            .position(|&r| r == replica)
            .ok_or_else(|| Error::internal(format!("replica {replica} is not in its own group")))?;
        let mut st = self.state.lock().map_err(|_| poisoned())?;
        let k = st.seq[replica];
        st.seq[replica] += 1;
        let key = (k, group.to_vec());
        let slot = st.slots.entry(key.clone()).or_insert_with(|| Slot {
            inst: inst.to_string(),
            deposits: vec![None; group.len()],
            taken: 0,
        });
        if slot.inst != inst {
            let other = slot.inst.clone();
            drop(st);
            self.abort();
            return Err(Error::runtime(format!(
                "replica {replica} reached collective `{inst}` as its collective number {k}, but another replica of group {group:?} reached `{other}` there"
            ))
            .with_rule("collective.mismatch"));
        }
        slot.deposits[pos] = Some(value);
        self.cv.notify_all();
        let deadline = Instant::now() + timeout;
        loop {
            let slot = st
                .slots
                .get(&key)
                .ok_or_else(|| Error::internal("collective slot vanished"))?;
            if slot.deposits.iter().all(|d| d.is_some()) {
                break;
            }
            let missing: Vec<usize> = group
                .iter()
                .zip(&slot.deposits)
                .filter(|(_, d)| d.is_none())
                .map(|(&r, _)| r)
                .collect();
            if let Some(&gone) = missing
                .iter()
                .find(|&&r| st.finished.get(r).copied().unwrap_or(true))
            {
                return Err(Error::runtime(format!(
                    "collective `{inst}` (collective number {k} of replica {replica}) can never complete: replica {gone} ended its program without reaching it"
                ))
                .with_rule("collective.deadlock"));
            }
            if self.is_aborted() {
                return Err(Error::runtime(format!(
                    "collective `{inst}` abandoned: another replica failed"
                ))
                .with_rule("collective.aborted"));
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Error::runtime(format!(
                    "collective `{inst}` timed out after {:?} waiting for replica(s) {missing:?}: a deadlock",
                    timeout
                ))
                .with_rule("collective.deadlock"));
            }
            st = self
                .cv
                .wait_timeout(st, deadline - now)
                .map_err(|_| poisoned())?
                .0;
        }
        let slot = st
            .slots
            .get_mut(&key)
            .ok_or_else(|| Error::internal("collective slot vanished"))?;
        let out: Vec<Literal> = slot
            .deposits
            .iter()
            .map(|d| d.clone().unwrap_or(Literal::Token))
            .collect();
        slot.taken += 1;
        if slot.taken == group.len() {
            st.slots.remove(&key);
        }
        Ok(out)
    }
}

/// The group of `replica` from `replica_groups` (none or `{}` means every replica).
fn group_of(groups: Option<&ReplicaGroups>, replica: usize, n: usize) -> Result<Vec<usize>> {
    let groups = groups.map(Vec::as_slice).unwrap_or(&[]);
    if groups.is_empty() {
        return Ok((0..n).collect());
    }
    groups
        .iter()
        .find(|g| g.contains(&(replica as i64)))
        .map(|g| g.iter().map(|&r| r as usize).collect())
        .ok_or_else(|| Error::internal(format!("replica {replica} is in no replica group")))
}

pub fn eval(
    ev: &Evaluator,
    inst: &Instruction,
    op: &CollectiveOp,
    ops: &[&Literal],
) -> Result<Literal> {
    let me = ev.ctx.replica_id;
    let n = ev.ctx.shared.num_replicas;
    let timeout = ev.ctx.options.rendezvous_timeout;
    let hub = &ev.ctx.shared.collectives;
    let contribution = || Literal::Tuple(ops.iter().map(|l| (*l).clone()).collect());
    match op {
        CollectiveOp::ReplicaId => Ok(Literal::scalar(me as u32)),
        CollectiveOp::PartitionId => Ok(Literal::scalar(0u32)),
        CollectiveOp::AllReduce(a) => {
            let group = group_of(a.replica_groups.as_ref(), me, n)?;
            let all = hub.exchange(me, &group, &inst.name, contribution(), timeout)?;
            let reduced = (0..ops.len())
                .map(|i| reduce_across(ev, a.to_apply.0, &all, i))
                .collect::<Result<Vec<_>>>()?;
            Ok(one_or_tuple(reduced))
        }
        CollectiveOp::AllGather(a) => {
            let group = group_of(a.replica_groups.as_ref(), me, n)?;
            let d = dimension(&a.dimensions)?;
            let all = hub.exchange(me, &group, &inst.name, contribution(), timeout)?;
            let out = (0..ops.len())
                .map(|i| {
                    let parts: Vec<&Array> =
                        all.iter().map(|t| part(t, i)).collect::<Result<_>>()?;
                    concat(&parts, d)
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(one_or_tuple(out.into_iter().map(Literal::Array).collect()))
        }
        CollectiveOp::ReduceScatter(a) => {
            let group = group_of(a.replica_groups.as_ref(), me, n)?;
            let d = dimension(&a.dimensions)?;
            let pos = group.iter().position(|&r| r == me).unwrap_or(0);
            let all = hub.exchange(me, &group, &inst.name, contribution(), timeout)?;
            let out = (0..ops.len())
                .map(|i| {
                    let r = reduce_across(ev, a.to_apply.0, &all, i)?.into_array()?;
                    Ok(Literal::Array(chunk(&r, d, group.len(), pos)?))
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(one_or_tuple(out))
        }
        CollectiveOp::AllToAll(a) => {
            let group = group_of(a.replica_groups.as_ref(), me, n)?;
            let pos = group.iter().position(|&r| r == me).unwrap_or(0);
            let all = hub.exchange(me, &group, &inst.name, contribution(), timeout)?;
            match a.dimensions.as_deref() {
                Some(dims) => {
                    // Member i's chunk `pos` along d, concatenated along d in group order.
                    let d = dimension(dims)?;
                    let chunks: Vec<Array> = all
                        .iter()
                        .map(|t| chunk(part(t, 0)?, d, group.len(), pos))
                        .collect::<Result<_>>()?;
                    Ok(Literal::Array(concat(
                        &chunks.iter().collect::<Vec<_>>(),
                        d,
                    )?))
                }
                None => {
                    // Tuple form: operand `pos` of each member, in group order.
                    let out = all
                        .iter()
                        .map(|t| part(t, pos).map(|a| Literal::Array(a.clone())))
                        .collect::<Result<Vec<_>>>()?;
                    Ok(Literal::Tuple(out))
                }
            }
        }
        CollectiveOp::CollectivePermute(a) => {
            let everyone: Vec<usize> = (0..n).collect();
            let x = array(ops, 0)?;
            let all = hub.exchange(
                me,
                &everyone,
                &inst.name,
                Literal::Array(x.clone()),
                timeout,
            )?;
            match a.source_target_pairs.iter().find(|p| p.1 == me as i64) {
                Some(&(source, _)) => all
                    .get(source as usize)
                    .cloned()
                    .ok_or_else(|| Error::internal("collective-permute source out of range")),
                // A replica that nobody sends to receives zeros.
                None => Ok(Literal::Array(Array::zeros(x.shape.clone()))),
            }
        }
        // The asynchronous pairs: the `-start` does the exchange, the `-done` takes its result.
        CollectiveOp::AllReduceStart(a) => eval(ev, inst, &CollectiveOp::AllReduce(a.clone()), ops),
        CollectiveOp::AllGatherStart(a) => {
            let result = eval(ev, inst, &CollectiveOp::AllGather(a.clone()), ops)?;
            let operands: Vec<Literal> = ops.iter().map(|l| (*l).clone()).collect();
            Ok(Literal::Tuple(match operands.len() {
                1 => vec![operands[0].clone(), result],
                _ => vec![Literal::Tuple(operands), result],
            }))
        }
        CollectiveOp::CollectivePermuteStart(a) => {
            let result = eval(ev, inst, &CollectiveOp::CollectivePermute(a.clone()), ops)?;
            Ok(Literal::Tuple(vec![
                array(ops, 0).map(|x| Literal::Array(x.clone()))?,
                result,
                Literal::scalar(0u32),
                Literal::scalar(0u32),
            ]))
        }
        CollectiveOp::AllReduceDone => ops
            .first()
            .map(|l| (*l).clone())
            .ok_or_else(|| Error::internal("all-reduce-done without its operand")),
        CollectiveOp::AllGatherDone | CollectiveOp::CollectivePermuteDone => {
            let start = ops
                .first()
                .ok_or_else(|| Error::internal("a -done without its operand"))?;
            super::control::element(start, 1)
        }
        CollectiveOp::CollectiveBroadcast(a) => {
            let group = group_of(a.replica_groups.as_ref(), me, n)?;
            let all = hub.exchange(
                me,
                &group,
                &inst.name,
                ops.first().map(|l| (*l).clone()).unwrap_or(Literal::Token),
                timeout,
            )?;
            all.into_iter()
                .next()
                .ok_or_else(|| Error::internal("empty group"))
        }
    }
}

fn one_or_tuple(mut v: Vec<Literal>) -> Literal {
    if v.len() == 1 {
        v.pop().unwrap_or(Literal::Token)
    } else {
        Literal::Tuple(v)
    }
}

fn part(t: &Literal, i: usize) -> Result<&Array> {
    t.as_tuple()
        .and_then(|t| t.get(i))
        .and_then(|l| l.as_array())
        .ok_or_else(|| Error::internal("collective contribution is not an array"))
}

fn dimension(dims: &[i64]) -> Result<usize> {
    match dims {
        &[d] => Ok(d as usize),
        _ => Err(Error::internal("collective needs one dimension")),
    }
}

/// Combines operand `i` of every contribution element by element with the op's computation, in
/// group order: ((v₀ ⊕ v₁) ⊕ v₂) ⊕ …
fn reduce_across(ev: &Evaluator, comp: CompId, all: &[Literal], i: usize) -> Result<Literal> {
    let parts: Vec<&Array> = all.iter().map(|t| part(t, i)).collect::<Result<_>>()?;
    let first = parts
        .first()
        .ok_or_else(|| Error::internal("empty group"))?;
    let mut data = first.data.clone();
    for k in 0..data.len() {
        let mut acc = data.get(k);
        for p in &parts[1..] {
            let r = ev.call(
                comp,
                vec![
                    Literal::from_scalar(acc),
                    Literal::from_scalar(p.data.get(k)),
                ],
            )?;
            acc = r
                .scalar_value()
                .ok_or_else(|| Error::internal("reducer returned a non-scalar"))?;
        }
        data.set(k, acc)?;
    }
    Ok(Literal::Array(Array {
        shape: first.shape.clone(),
        data,
    }))
}

/// Concatenates arrays along dimension `d`.
fn concat(parts: &[&Array], d: usize) -> Result<Array> {
    let first = parts
        .first()
        .ok_or_else(|| Error::internal("nothing to concatenate"))?;
    let mut dims = first.dims().to_vec();
    dims[d] = parts.iter().map(|p| p.dims()[d]).sum();
    let outer: usize = dims[..d].iter().map(|&x| x as usize).product();
    let inner: usize = dims[d + 1..].iter().map(|&x| x as usize).product();
    let mut order: Vec<(usize, usize)> =
        Vec::with_capacity(dims.iter().map(|&x| x as usize).product());
    for o in 0..outer {
        for (pi, p) in parts.iter().enumerate() {
            let len = p.dims()[d] as usize * inner;
            order.extend((0..len).map(|j| (pi, o * len + j)));
        }
    }
    let mut data = ArrayData::zeros(first.ty(), order.len());
    for (k, &(pi, j)) in order.iter().enumerate() {
        data.set(k, parts[pi].data.get(j))?;
    }
    Ok(Array {
        shape: ArrayShape::new(first.ty(), dims),
        data,
    })
}

/// Chunk `index` of `count` equal pieces of `a` along dimension `d`.
fn chunk(a: &Array, d: usize, count: usize, index: usize) -> Result<Array> {
    let mut dims = a.dims().to_vec();
    let size = dims[d] as usize / count.max(1);
    dims[d] = size as i64;
    let strides = row_major_strides(a.dims());
    let out_strides = row_major_strides(&dims);
    let n: usize = dims.iter().map(|&x| x as usize).product();
    let mut data = ArrayData::zeros(a.ty(), n);
    for k in 0..n {
        let mut rem = k;
        let mut src = 0usize;
        for (j, &s) in out_strides.iter().enumerate() {
            let i = rem / s;
            rem %= s;
            src += if j == d { i + index * size } else { i } * strides[j];
        }
        data.set(k, a.data.get(src))?;
    }
    Ok(Array {
        shape: ArrayShape::new(a.ty(), dims),
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(x: i32) -> Literal {
        Literal::scalar(x)
    }

    #[test]
    fn a_replica_that_runs_more_collectives_ends_in_deadlock_not_a_hang() {
        // The seed's scenario: replica 0 reaches the collective twice, replica 1 only once.
        let hub = Hub::new(2);
        let t = Duration::from_secs(30);
        let start = Instant::now();
        let (r0, r1) = std::thread::scope(|s| {
            let a = s.spawn(|| {
                hub.exchange(0, &[0, 1], "ar", lit(1), t)?;
                hub.exchange(0, &[0, 1], "ar", lit(2), t)
            });
            let b = s.spawn(|| {
                let v = hub.exchange(1, &[0, 1], "ar", lit(3), t);
                hub.finish(1);
                v
            });
            (a.join().unwrap(), b.join().unwrap())
        });
        assert_eq!(r1.unwrap(), vec![lit(1), lit(3)]);
        assert_eq!(r0.unwrap_err().rule.as_deref(), Some("collective.deadlock"));
        // Detected when the peer finished, long before the timeout.
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn different_instructions_at_the_same_point_are_a_mismatch() {
        let hub = Hub::new(2);
        let t = Duration::from_secs(30);
        let (r0, r1) = std::thread::scope(|s| {
            let a = s.spawn(|| hub.exchange(0, &[0, 1], "first", lit(1), t));
            let b = s.spawn(|| hub.exchange(1, &[0, 1], "second", lit(2), t));
            (a.join().unwrap(), b.join().unwrap())
        });
        let rules: Vec<_> = [r0, r1]
            .into_iter()
            .filter_map(|r| r.err())
            .filter_map(|e| e.rule)
            .collect();
        assert!(
            rules.contains(&"collective.mismatch".to_string()),
            "{rules:?}"
        );
    }

    #[test]
    fn a_missing_peer_times_out() {
        let hub = Hub::new(2);
        let e = hub
            .exchange(0, &[0, 1], "ar", lit(1), Duration::from_millis(50))
            .unwrap_err();
        assert_eq!(e.rule.as_deref(), Some("collective.deadlock"));
    }
}
