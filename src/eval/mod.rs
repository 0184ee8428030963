//! The reference interpreter. It evaluates a verified module's ENTRY computation on argument
//! literals, instruction by instruction in definition order (operands always come first), and
//! calls sub-computations where ops name them. One exhaustive match over the opcode dispatches to
//! one module per op family; those modules read attributes the verifier has already checked.
//!
//! Values are dropped after their last use, so a long computation holds only what is still
//! needed. Chains of element-wise ops on large arrays are evaluated together, tile by tile, by
//! the same per-element code (`fused`; `RunOptions::fusion` turns it off), following a plan made
//! once per computation. Ops parallelise internally with rayon. A panic inside an op (a bug) is
//! caught and reported as an internal error instead of aborting the caller.

pub mod collective;
pub mod control;
pub mod elementwise;
pub mod fused;
pub mod indexing;
pub mod lanes;
pub mod linalg;
pub mod movement;
pub mod numerics;
pub mod reduction;

use crate::error::{Error, Result};
use crate::hlo::ast::*;
use crate::hlo::opcode::{ControlOp, IndexingOp, MovementOp, Op};
use crate::literal::Literal;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

pub use control::CustomCallRegistry;

/// How a module is run.
#[derive(Clone)]
pub struct RunOptions {
    /// The most iterations any one `while` may run before the run fails (a guard against endless
    /// loops, not a semantic limit).
    pub max_while_iterations: u64,
    /// Values `infeed` reads, in order (for every replica alike).
    pub infeed: Vec<Literal>,
    /// Targets `custom-call` may name.
    pub custom_calls: Arc<CustomCallRegistry>,
    /// How long a replica waits at a collective or a channel for its peers before the run fails
    /// as deadlocked.
    pub rendezvous_timeout: Duration,
    /// Seed of the `rng` generator.
    pub seed: u64,
    /// Whether chains of element-wise ops on large arrays are evaluated together, tile by tile
    /// (`fused`), instead of one op at a time. The results are the same bit for bit; turning it
    /// off gives the naive evaluation to compare with.
    pub fusion: bool,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            max_while_iterations: 10_000_000,
            infeed: vec![],
            custom_calls: Arc::new(CustomCallRegistry::with_builtins()),
            rendezvous_timeout: Duration::from_secs(10),
            seed: 42,
            fusion: true,
        }
    }
}

/// The result of one replica's run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    pub result: Literal,
    /// Values written by `outfeed`, in order.
    pub outfeed: Vec<Literal>,
}

/// State shared by all replicas of one run: the collective rendezvous and the channels.
pub struct Shared {
    pub num_replicas: usize,
    pub collectives: collective::Hub,
    pub channels: control::Channels,
}

/// What one replica's evaluation sees.
pub struct ReplicaCtx<'a> {
    pub replica_id: usize,
    pub shared: &'a Shared,
    pub options: &'a RunOptions,
    pub infeed: Mutex<VecDeque<Literal>>,
    pub outfeed: Mutex<Vec<Literal>>,
    pub rng_state: Mutex<u64>,
}

/// Evaluates sub-computations of one module for one replica.
pub struct Evaluator<'a> {
    pub module: &'a Module,
    pub ctx: &'a ReplicaCtx<'a>,
    /// Each computation's evaluation plan, made on its first call (a loop body is called many
    /// times).
    plans: Vec<OnceLock<fused::Plan>>,
}

/// The stack of each replica's thread: room for `verify::MAX_CALL_DEPTH` nested calls (a few
/// kilobytes each) with a wide margin; only what is touched is ever committed.
const REPLICA_STACK_BYTES: usize = 64 << 20;

/// Runs a verified module once (one replica).
pub fn run(module: &Module, args: Vec<Literal>, options: &RunOptions) -> Result<RunOutput> {
    let mut outs = run_replicated(module, vec![args], options)?;
    outs.pop()
        .ok_or_else(|| Error::internal("no replica output"))
}

/// Runs a verified module as `args.len()` replicas, one thread each.
pub fn run_replicated(
    module: &Module,
    args: Vec<Vec<Literal>>,
    options: &RunOptions,
) -> Result<Vec<RunOutput>> {
    let n = args.len();
    if n == 0 {
        return Err(Error::invalid(
            "run.replicas",
            "at least one replica is needed",
        ));
    }
    if let Some(rc) = module.replica_count
        && rc as usize != n
    {
        return Err(Error::invalid(
            "run.replicas",
            format!("the module declares replica_count={rc} but the run has {n} replicas"),
        ));
    }
    // Collectives were checked against the count the module was verified for: another count
    // could name replicas that do not exist.
    if let Some(v) = module.verified_replicas
        && v != n
    {
        return Err(Error::invalid(
            "run.replicas",
            format!("the module was verified for {v} replicas but the run has {n}"),
        ));
    }
    let entry = module.entry();
    let params = entry.parameters();
    for (r, a) in args.iter().enumerate() {
        if a.len() != params.len() {
            return Err(Error::invalid(
                "run.argument_count",
                format!(
                    "the entry computation takes {} argument(s), {} given{}",
                    params.len(),
                    a.len(),
                    replica_note(n, r)
                ),
            ));
        }
        for (i, (lit, p)) in a.iter().zip(&params).enumerate() {
            if !lit.fits(&p.shape) {
                return Err(Error::invalid(
                    "run.argument_shape",
                    format!(
                        "argument {i} has shape {} but parameter `{}` is {}{}",
                        lit.shape(),
                        p.name,
                        p.shape,
                        replica_note(n, r)
                    ),
                ));
            }
        }
    }
    let shared = Shared {
        num_replicas: n,
        collectives: collective::Hub::new(n),
        channels: control::Channels::default(),
    };
    let run_one = |replica_id: usize, a: Vec<Literal>| -> Result<RunOutput> {
        let ctx = ReplicaCtx {
            replica_id,
            shared: &shared,
            options,
            infeed: Mutex::new(options.infeed.iter().cloned().collect()),
            outfeed: Mutex::new(vec![]),
            rng_state: Mutex::new(options.seed),
        };
        let ev = Evaluator::new(module, &ctx);
        let result = catch_panics(|| ev.call(module.entry, a))?;
        let outfeed = std::mem::take(
            &mut *ctx
                .outfeed
                .lock()
                .map_err(|_| Error::internal("outfeed lock poisoned"))?,
        );
        Ok(RunOutput { result, outfeed })
    };
    // Every replica runs on a thread of its own with a stack sized for the deepest call chain the
    // verifier allows (`module.call_depth`), whatever thread the caller is on.
    let results: Vec<Result<RunOutput>> = std::thread::scope(|s| {
        let handles: Vec<_> = args
            .into_iter()
            .enumerate()
            .map(|(r, a)| {
                let run_one = &run_one;
                let shared = &shared;
                std::thread::Builder::new()
                    .name(format!("replica-{r}"))
                    .stack_size(REPLICA_STACK_BYTES)
                    .spawn_scoped(s, move || {
                        let out = run_one(r, a);
                        if out.is_err() {
                            // Wake peers waiting for this replica so they fail fast instead of
                            // timing out.
                            shared.collectives.abort();
                        }
                        // Peers still waiting for this replica at a collective can never be
                        // joined.
                        shared.collectives.finish(r);
                        out
                    })
            })
            .collect();
        // Blocking here is safe on any thread, a rayon worker included: the replica threads' kernels
        // run on the kernel pool (`kernels::pool`), never on the caller's.
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h
                    .join()
                    .unwrap_or_else(|_| Err(Error::internal("a replica thread panicked"))),
                Err(e) => Err(Error::runtime(format!(
                    "cannot start a replica thread: {e}"
                ))),
            })
            .collect()
    });
    // Report the first replica's own error rather than a peer's "aborted" echo of it.
    let mut outs = Vec::with_capacity(n);
    let mut first_err: Option<Error> = None;
    for (r, res) in results.into_iter().enumerate() {
        match res {
            Ok(o) => outs.push(o),
            Err(mut e) => {
                e.message = format!("replica {r}: {}", e.message);
                let echo = e.rule.as_deref() == Some("collective.aborted");
                if first_err.is_none()
                    || (!echo
                        && first_err.as_ref().and_then(|f| f.rule.as_deref())
                            == Some("collective.aborted"))
                {
                    first_err = Some(e);
                }
            }
        }
    }
    match first_err {
        Some(e) => Err(e),
        None => Ok(outs),
    }
}

fn replica_note(n: usize, r: usize) -> String {
    if n > 1 {
        format!(" (replica {r})")
    } else {
        String::new()
    }
}

/// Turns a panic (a bug in xla-spec) into an internal error.
pub fn catch_panics<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(Error::internal(format!("the evaluator panicked: {msg}")))
        }
    }
}

impl<'a> Evaluator<'a> {
    pub fn new(module: &'a Module, ctx: &'a ReplicaCtx<'a>) -> Evaluator<'a> {
        Evaluator {
            module,
            ctx,
            plans: module
                .computations
                .iter()
                .map(|_| OnceLock::new())
                .collect(),
        }
    }

    /// The evaluation plan of computation `id` (made on first use).
    pub fn plan(&self, id: CompId) -> Result<&fused::Plan> {
        let comp = self
            .module
            .computations
            .get(id)
            .ok_or_else(|| Error::internal(format!("computation {id} does not exist")))?;
        let cell = self
            .plans
            .get(id)
            .ok_or_else(|| Error::internal(format!("computation {id} has no plan slot")))?;
        Ok(cell.get_or_init(|| fused::Plan::new(comp, self.ctx.options.fusion)))
    }

    /// Evaluates computation `id` on `args` (one per parameter, in parameter-number order).
    pub fn call(&self, id: CompId, args: Vec<Literal>) -> Result<Literal> {
        let comp = self
            .module
            .computations
            .get(id)
            .ok_or_else(|| Error::internal(format!("computation {id} does not exist")))?;
        let n = comp.instructions.len();
        let plan = self.plan(id)?;
        // Last use of each value, so it can be dropped as soon as nothing needs it.
        let last_use = &plan.last_use;
        let mut args: Vec<Option<Literal>> = args.into_iter().map(Some).collect();
        let mut values: Vec<Option<Literal>> = vec![None; n];
        for (i, inst) in comp.instructions.iter().enumerate() {
            match plan.role[i] {
                fused::Role::Alone => {}
                // Evaluated with its group, or remade by every group that reads it.
                fused::Role::Skipped => continue,
                fused::Role::Runs(g) => {
                    let group = &plan.groups[g];
                    let outs = fused::run_group(comp, group, &mut values, &|o| last_use[o] == i)
                        .map_err(|e| e.at(&inst.name, inst.loc))?;
                    for (o, v) in outs {
                        values[o] = Some(v);
                    }
                    for o in group.inputs() {
                        if last_use[o] == i {
                            values[o] = None;
                        }
                    }
                    continue;
                }
            }
            let value = match &inst.op {
                Op::Movement(MovementOp::Parameter(p)) => args
                    .get_mut(p.number as usize)
                    .and_then(|a| a.take())
                    .ok_or_else(|| {
                        Error::internal(format!(
                            "computation `{}` has no argument {}",
                            comp.name, p.number
                        ))
                    }),
                // The operand a dynamic-update-slice updates, when nothing reads it afterwards,
                // is handed over whole so that the update happens in place: a loop that fills
                // one row of a large buffer per iteration would otherwise copy the buffer each
                // time. (Shared elements are still copied first: see `literal::Buf`.)
                Op::Movement(MovementOp::DynamicUpdateSlice)
                    if last_use[inst.operands[0]] == i
                        && inst
                            .operands
                            .iter()
                            .filter(|&&o| o == inst.operands[0])
                            .count()
                            == 1 =>
                {
                    let target = values[inst.operands[0]].take().ok_or_else(|| {
                        Error::internal(format!("operand 0 of `{}` was dropped", inst.name))
                    })?;
                    let rest: Vec<&Literal> = inst.operands[1..]
                        .iter()
                        .map(|&o| {
                            values[o].as_ref().ok_or_else(|| {
                                Error::internal(format!(
                                    "operand {o} of `{}` was dropped",
                                    inst.name
                                ))
                            })
                        })
                        .collect::<Result<_>>()?;
                    movement::dynamic_update_slice_into(inst, target, &rest).map(Literal::Array)
                }
                // Ops that pass their operands on whole (into a tuple, or as the arguments of a
                // computation) take the ones that die here, so that the callee holds the only
                // reference and can update them in place (a loop body that calls a function
                // doing a dynamic-update-slice on its argument).
                Op::Movement(MovementOp::Tuple)
                | Op::Control(
                    ControlOp::Call(_)
                    | ControlOp::Fusion(_)
                    | ControlOp::While(_)
                    | ControlOp::Conditional(_),
                ) => {
                    let args = inst
                        .operands
                        .iter()
                        .map(|&o| {
                            let once = inst.operands.iter().filter(|&&x| x == o).count() == 1;
                            let v = if last_use[o] == i && once {
                                values[o].take()
                            } else {
                                values[o].clone()
                            };
                            v.ok_or_else(|| {
                                Error::internal(format!(
                                    "operand {o} of `{}` was dropped",
                                    inst.name
                                ))
                            })
                        })
                        .collect::<Result<Vec<Literal>>>()?;
                    match &inst.op {
                        Op::Control(op) => control::eval_owned(self, op, args),
                        _ => Ok(Literal::Tuple(args)),
                    }
                }
                // Updates computed from their producer's operands as the scatter reads them
                // (`fused::mapped`).
                Op::Indexing(IndexingOp::Scatter(attrs)) if plan.mapped_updates(i).is_some() => {
                    let m = plan
                        .mapped_updates(i)
                        .ok_or_else(|| Error::internal("mapped updates vanished"))?;
                    let get = |o: usize| {
                        values[o].as_ref().ok_or_else(|| {
                            Error::internal(format!("operand {o} of `{}` was dropped", inst.name))
                        })
                    };
                    let ops = [get(inst.operands[0])?, get(inst.operands[1])?];
                    let args = [m.args[0], m.args[1]].map(|a| match a {
                        fused::mapped::Arg::Array(o) => get(o).map(indexing::UpdateArg::Array),
                        fused::mapped::Arg::Splat(o) => get(o).map(indexing::UpdateArg::Splat),
                    });
                    let [a, b] = args;
                    let producer = comp.instructions.get(m.inst).ok_or_else(|| {
                        Error::internal(format!("the producer of `{}` is missing", inst.name))
                    })?;
                    indexing::eval_scatter_mapped(self, inst, attrs, ops, producer, m.op, [a?, b?])
                }
                _ => {
                    let ops: Vec<&Literal> = inst
                        .operands
                        .iter()
                        .map(|&o| {
                            values[o].as_ref().ok_or_else(|| {
                                Error::internal(format!(
                                    "operand {o} of `{}` was dropped",
                                    inst.name
                                ))
                            })
                        })
                        .collect::<Result<_>>()?;
                    self.eval(inst, &ops)
                }
            }
            .map_err(|e| e.at(&inst.name, inst.loc))?;
            values[i] = Some(value);
            for &o in &inst.operands {
                if last_use[o] == i {
                    values[o] = None;
                }
            }
        }
        values[comp.root]
            .take()
            .ok_or_else(|| Error::internal("root value missing"))
    }

    /// The one dispatch over every op: each family's evaluator gets its own typed op.
    fn eval(&self, inst: &Instruction, ops: &[&Literal]) -> Result<Literal> {
        match &inst.op {
            Op::Movement(op) => movement::eval(self, inst, op, ops),
            Op::Unary(op) => elementwise::eval_unary(inst, *op, ops),
            Op::Binary(op) => elementwise::eval_binary(inst, *op, ops),
            Op::Elementwise(op) => elementwise::eval(inst, op, ops),
            Op::Reduction(op) => reduction::eval(self, inst, op, ops),
            Op::Indexing(op) => indexing::eval(self, inst, op, ops),
            Op::Linalg(op) => linalg::eval(self, inst, op, ops),
            Op::Control(op) => control::eval(self, inst, op, ops),
            Op::Numerics(op) => numerics::eval(self, inst, op, ops),
            Op::Collective(op) => collective::eval(self, inst, op, ops),
        }
    }

    /// The result shape of an instruction whose actual dimensions are `dims` (which differ from
    /// the declared ones when a dimension is dynamic): type and layout come from the instruction.
    pub fn result_shape_with_dims(
        inst: &Instruction,
        dims: &[i64],
    ) -> Result<crate::shape::ArrayShape> {
        let s = Self::result_array_shape(inst)?;
        Ok(crate::shape::ArrayShape {
            ty: s.ty,
            dims: dims.to_vec(),
            dynamic: vec![false; dims.len()],
            layout: s.layout.clone(),
        })
    }

    /// The array of the result shape declared (or inferred) for an instruction.
    pub fn result_array_shape(inst: &Instruction) -> Result<&crate::shape::ArrayShape> {
        inst.shape
            .as_array()
            .ok_or_else(|| Error::internal(format!("`{}` should have an array shape", inst.name)))
    }
}

/// Operand `i` as an array (the verifier guarantees it; this only guards against bugs).
pub fn array<'l>(ops: &[&'l Literal], i: usize) -> Result<&'l crate::literal::Array> {
    ops.get(i)
        .and_then(|l| l.as_array())
        .ok_or_else(|| Error::internal(format!("operand {i} should be an array")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hlo::{parse_literal, parse_module, print_module};
    use crate::verify::parse_and_verify;

    #[test]
    fn runs_a_small_module_end_to_end() {
        let m = parse_and_verify(
            "HloModule m\nENTRY e {\n  p = f32[2,3] parameter(0)\n  c = f32[3] constant({10, 20, 30})\n  b = f32[2,3] broadcast(c), dimensions={1}\n  s = add(p, b)\n  t = f32[3,2] transpose(s), dimensions={1,0}\n  r = f32[6] reshape(t)\n  i = s32[6] iota(), iota_dimension=0\n  ROOT tu = (f32[6], s32[6]) tuple(r, i)\n}\n",
        )
        .unwrap();
        let arg = parse_literal("f32[2,3] {{1, 2, 3}, {4, 5, 6}}").unwrap();
        let out = run(&m, vec![arg], &RunOptions::default()).unwrap();
        assert_eq!(
            out.result.to_string(),
            "(f32[6] {11, 14, 22, 25, 33, 36}, s32[6] {0, 1, 2, 3, 4, 5})"
        );
        // The printer's output parses back to the same module.
        let again = parse_module(&print_module(&m)).unwrap();
        let mut again = again;
        crate::verify::verify_module(&mut again, &crate::verify::Options::default()).unwrap();
        assert_eq!(print_module(&again), print_module(&m));
    }

    /// Cases run in parallel on the global rayon pool, and each run waits for its replica thread,
    /// whose batched dot is parallel. With the kernels on the global pool, once every worker held
    /// a case nothing ran again (`xla-spec conform` hung on a two-core machine); helping the pool
    /// while waiting then nested cases until a worker's stack overflowed. Sixty-four cases occupy
    /// every worker on any machine this runs on.
    #[test]
    fn runs_on_every_rayon_worker_at_once_do_not_deadlock() {
        use rayon::prelude::*;
        let m = parse_and_verify(
            "HloModule m\nENTRY e {\n  a = f32[8,16,16] parameter(0)\n  ROOT d = f32[8,16,16] dot(a, a), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}\n}\n",
        )
        .unwrap();
        let ones = Literal::vec(vec![8, 16, 16], vec![1.0f32; 8 * 16 * 16]).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let sums: Vec<f32> = (0..64)
                .into_par_iter()
                .map(|_| {
                    let out = run(&m, vec![ones.clone()], &RunOptions::default()).unwrap();
                    let a = out.result.into_array().unwrap();
                    a.typed::<f32>().unwrap().iter().sum()
                })
                .collect();
            let _ = tx.send(sums);
        });
        let sums = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("runs on every rayon worker at once deadlocked");
        assert_eq!(sums, vec![16.0 * 8.0 * 16.0 * 16.0; 64]);
    }

    #[test]
    fn missing_arguments_are_invalid_programs_not_panics() {
        let m = parse_module(
            "HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n ROOT r = f32[2] add(p, p)\n}",
        )
        .unwrap();
        let e = run(&m, vec![], &RunOptions::default()).unwrap_err();
        assert_eq!(e.rule.as_deref(), Some("run.argument_count"));
    }
}
