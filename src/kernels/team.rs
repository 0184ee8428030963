//! A team of helper threads that spin for a while between parallel steps, for the kernels'
//! short steps (`pool::run_tasks`, `pool::for_each_chunk`).
//!
//! Why: handing a step to rayon's pool from a thread outside it wakes a sleeping worker, which
//! the next worker then wakes in turn: on a 2-core VM a step of two empty tasks took 14 to 17 µs
//! on average, a tenth of a 256^3 F32 product on two threads. OpenBLAS keeps its threads
//! spinning between calls for the same reason. Here the calling thread runs tasks itself, and
//! helpers spin on the step counter for `SPIN` after each step before they sleep, so that steps
//! in quick succession find them awake.
//!
//! There is one helper bound to each CPU of the pool, and a step is taken only by the helpers on
//! CPUs other than the one its caller runs on (asked at every step: the caller is not bound and
//! may move). A first version had one helper for each CPU but the first, bound there; when the
//! caller ran on the helper's CPU, the scheduler left it there for the whole process and every
//! step ran at one thread's speed (3 of 5 processes, Zen 5). The helper on the caller's CPU
//! neither works, spins nor is woken: it would only take the CPU from the caller.
//!
//! One caller at a time: a caller that finds the team busy, or that is itself a helper, gets
//! `false` and uses the pool instead; so does every caller where helpers cannot be bound
//! (`XLA_SPEC_PIN_THREADS=0`, or not Linux) or where the pool has fewer threads than there are
//! CPUs. A task's panic is caught where it ran and resumed
//! on the caller once every task of the step has finished, so the step's borrowed closure is
//! never used after `run` returns.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, TryLockError};
use std::time::{Duration, Instant};

/// How long a helper spins for the next step before it sleeps. A step that finds a helper asleep
/// pays for waking it on the caller's thread: on a 2-vCPU Zen 4 VM the `unpark` took 5 µs after
/// 1 ms of idleness and 24 µs after 300 ms (8% of a 256^3 F32 product on two threads).
/// OpenBLAS keeps its workers spinning far longer between calls; spinning through idle spells
/// that long would hold a core in every process that ever ran a parallel step.
const SPIN: Duration = Duration::from_micros(30);

/// How long a helper woken by `prewake` waits, spinning, for the step it was woken for. A cold
/// 256^3 product's preparations before its first step took 40-50 µs on a 2-vCPU Zen 4 VM
/// (planning, allocating the result and the packing buffers, with every cache and TLB cold after
/// a pause); the margin covers a slower machine without holding a core for long when no step
/// comes.
const PREWAKE_SPIN: Duration = Duration::from_micros(200);

/// The bits of `Team::claim` that count tasks; steps with more tasks use the pool.
const TASK_BITS: u32 = 24;
const TASK_MASK: u64 = (1 << TASK_BITS) - 1;

/// A step's tag in `Team::claim`.
fn tag(step: u64) -> u64 {
    step << TASK_BITS
}

/// A step's closure, its lifetime erased: only dereferenced for a task claimed with its step's
/// tag (`work`), while the step's caller waits for it (see `run`).
#[derive(Clone, Copy)]
struct Job(*const (dyn Fn(usize) + Sync + 'static));
// SAFETY: the closure is `Sync`, and the pointer is used only as described on `Job`.
unsafe impl Send for Job {}

/// The current step, as a helper reads it (under the lock) before it claims tasks.
#[derive(Default)]
struct Slot {
    step: u64,
    job: Option<Job>,
    tasks: usize,
}

struct Helper {
    /// The CPU the helper is bound to.
    cpu: i64,
    /// Set by the helper before it parks; the caller that clears it unparks the helper.
    sleeping: AtomicBool,
    thread: std::thread::Thread,
}

struct Team {
    slot: Mutex<Slot>,
    /// The next task to claim (low `TASK_BITS` bits) of the step whose number's low bits are the
    /// high ones. Tasks are claimed by compare-and-swap on the whole word, so that a helper
    /// still holding an older step's closure can never claim a task of a newer one (it would
    /// have to stall for 2^40 steps to see its tag come round).
    ///
    /// Why atomics and not the slot's lock: with the caller polling a locked counter while it
    /// waited, a helper that found the lock taken went to sleep on it, and every such step paid
    /// a wake-up (the scanned RNN, 500 steps a run, ran at 7.7 ms instead of 5.4 in some
    /// processes).
    claim: AtomicU64,
    /// Tasks of the current step that have finished.
    done: AtomicUsize,
    /// The first panic of the current step's tasks.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// The step number, read by spinning helpers without the lock.
    step: AtomicU64,
    /// The CPU the current (or last) step's caller ran on when it began the step, -1 unknown.
    caller_cpu: AtomicI64,
    helpers: Vec<Helper>,
    /// Held by the one caller whose step the team runs.
    caller: Mutex<()>,
}

thread_local! {
    /// Set on the helpers, and on a caller while its step runs.
    static IN_TEAM: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread is running a task of a team step: a parallel step inside it should run
/// its tasks in place, every thread being busy already (handing them to the pool would put
/// more threads than CPUs to work).
pub fn nested() -> bool {
    IN_TEAM.with(|f| f.get())
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic is never raised while the slot is held (tasks run outside the lock), so a poisoned
    // lock still holds a consistent slot.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The CPU the calling thread runs on, -1 when it cannot be told.
fn current_cpu() -> i64 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: no arguments; returns -1 on failure.
        i64::from(unsafe { libc::sched_getcpu() })
    }
    #[cfg(not(target_os = "linux"))]
    {
        -1
    }
}

/// The team, with a helper bound to each of `cpus` CPUs, made on first use (`None` when the
/// helpers cannot be bound or started, or there is nothing to help with).
fn team(cpus: usize) -> Option<&'static Team> {
    static TEAM: OnceLock<Option<&'static Team>> = OnceLock::new();
    *TEAM.get_or_init(|| {
        // With fewer pool threads than CPUs (`RAYON_NUM_THREADS`), a caller on a CPU without a
        // helper would have every helper join it: more threads than asked for.
        if cpus < 2 || !super::pool::one_thread_per_cpu(cpus) {
            return None;
        }
        // Each helper reports the CPU it is bound to (or -1) before the team exists.
        let (tx, rx) = std::sync::mpsc::channel::<(usize, i64, std::thread::Thread)>();
        let team: std::sync::Arc<OnceLock<&'static Team>> = Default::default();
        for i in 0..cpus {
            let tx = tx.clone();
            let team = team.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("xla-spec-team-{i}"))
                .stack_size(super::pool::KERNEL_STACK_BYTES)
                .spawn(move || {
                    let cpu = if super::pool::pin_worker(i) {
                        current_cpu()
                    } else {
                        -1
                    };
                    let _ = tx.send((i, cpu, std::thread::current()));
                    drop(tx);
                    let t = *team.wait();
                    helper(t, i)
                });
            if spawned.is_err() {
                return None;
            }
        }
        drop(tx);
        let mut found: Vec<Option<Helper>> = (0..cpus).map(|_| None).collect();
        for (i, cpu, thread) in rx.iter() {
            found[i] = Some(Helper {
                cpu,
                sleeping: AtomicBool::new(false),
                thread,
            });
        }
        let helpers: Vec<Helper> = found.into_iter().collect::<Option<_>>()?;
        let mut cpus_seen: Vec<i64> = helpers.iter().map(|h| h.cpu).collect();
        cpus_seen.sort_unstable();
        cpus_seen.dedup();
        let bound = helpers.iter().all(|h| h.cpu >= 0) && cpus_seen.len() == helpers.len();
        let t: &'static Team = Box::leak(Box::new(Team {
            slot: Mutex::new(Slot::default()),
            claim: AtomicU64::new(0),
            done: AtomicUsize::new(0),
            panic: Mutex::new(None),
            step: AtomicU64::new(0),
            caller_cpu: AtomicI64::new(-1),
            helpers,
            caller: Mutex::new(()),
        }));
        // The helpers wait for this before their first step; unbound ones sleep for good.
        let _ = team.set(t);
        bound.then_some(t)
    })
}

/// Claims and runs tasks of step `step` (its closure `job`, `tasks` tasks) until none is left.
fn work(t: &Team, step: u64, job: Job, tasks: usize) {
    let tag = tag(step);
    let mut word = t.claim.load(Ordering::Acquire);
    loop {
        let task = (word & TASK_MASK) as usize;
        if word & !TASK_MASK != tag || task >= tasks {
            return;
        }
        match t
            .claim
            .compare_exchange_weak(word, word + 1, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => {}
            Err(w) => {
                word = w;
                continue;
            }
        }
        // SAFETY: the task was claimed for this step (the tag matched), and the step's caller
        // does not return (ending the closure's borrow) before `done` counts it.
        let r = catch_unwind(AssertUnwindSafe(|| unsafe { (*job.0)(task) }));
        if let Err(p) = r {
            lock(&t.panic).get_or_insert(p);
        }
        t.done.fetch_add(1, Ordering::AcqRel);
        word = t.claim.load(Ordering::Acquire);
    }
}

/// Spins for up to `budget` while the team's step is still `seen`, giving way early to a caller
/// that moved to this helper's CPU (it must not wait for the spinning to end).
fn spin_for_step(t: &Team, me: &Helper, seen: u64, budget: Duration) {
    let start = Instant::now();
    let mut spins = 0u32;
    while t.step.load(Ordering::Acquire) == seen {
        spins = spins.wrapping_add(1);
        if spins.is_multiple_of(64) {
            if start.elapsed() > budget || t.caller_cpu.load(Ordering::Relaxed) == me.cpu {
                break;
            }
            std::thread::yield_now();
        }
        std::hint::spin_loop();
    }
}

fn helper(t: &'static Team, i: usize) {
    IN_TEAM.with(|f| f.set(true));
    let me = &t.helpers[i];
    let mut seen = 0u64;
    // Whether to spin for the next step: only after a step this helper took part in.
    let mut spin = false;
    loop {
        if spin {
            spin_for_step(t, me, seen, SPIN);
        }
        // Sleep until a step this helper should take. (SeqCst on both sides: the caller stores
        // the step, then clears `sleeping`; this sets `sleeping`, then reads the step; one of
        // the two sees the other.)
        loop {
            let step = t.step.load(Ordering::SeqCst);
            if step != seen && t.caller_cpu.load(Ordering::SeqCst) != me.cpu {
                break;
            }
            seen = step;
            me.sleeping.store(true, Ordering::SeqCst);
            if t.step.load(Ordering::SeqCst) == seen {
                std::thread::park();
                // Woken with no step yet: by `prewake` (or spuriously), for a step that is
                // being prepared. Spinning for it spares the caller a second wake-up.
                if t.step.load(Ordering::SeqCst) == seen {
                    me.sleeping.store(false, Ordering::SeqCst);
                    spin_for_step(t, me, seen, PREWAKE_SPIN);
                }
            }
            me.sleeping.store(false, Ordering::SeqCst);
        }
        let slot = lock(&t.slot);
        seen = slot.step;
        let (job, tasks) = (slot.job, slot.tasks);
        drop(slot);
        // The step may have moved on while this helper looked: only a step whose caller is on
        // another CPU is taken (its tasks, if any are left).
        if let Some(job) = job.filter(|_| t.caller_cpu.load(Ordering::Relaxed) != me.cpu) {
            work(t, seen, job, tasks);
            spin = true;
        } else {
            spin = false;
        }
    }
}

/// Unparks the helpers asleep on CPUs other than `cpu` (the caller's). Only the one who clears a
/// helper's `sleeping` unparks it, so one sleep gets one wake-up.
fn wake_others(t: &Team, cpu: i64) {
    for h in &t.helpers {
        if h.cpu != cpu && h.sleeping.swap(false, Ordering::SeqCst) {
            h.thread.unpark();
        }
    }
}

/// Wakes the sleeping helpers (but the one on the caller's CPU) for a step the caller is about to
/// start, so that their wake-up overlaps its preparations. Waking a helper that slept through a
/// pause takes long: on a 2-vCPU Zen 4 VM, after 300 ms of idleness, the `unpark` took 16-20 µs
/// on the caller and the helper began its first task another 45-90 µs later, 45-85 µs after the
/// caller's first row block, in a product of 500 µs (256^3 F64, two threads). Woken at the start
/// of the product's preparations instead, a helper spins for its step (`PREWAKE_SPIN`) and the
/// step's own wake-up is not needed. Does nothing where `run` would not use the team.
pub fn prewake(threads: usize) {
    if IN_TEAM.with(|f| f.get()) {
        return;
    }
    let Some(t) = team(threads) else {
        return;
    };
    let cpu = current_cpu();
    // Helpers still spinning after the last step need nothing, and the caller of a product in a
    // loop (a scanned network's two per step) nothing more than these loads.
    if !t
        .helpers
        .iter()
        .any(|h| h.cpu != cpu && h.sleeping.load(Ordering::Relaxed))
    {
        return;
    }
    // A team busy with another caller's step has its helpers awake.
    let _caller = match t.caller.try_lock() {
        Ok(g) => g,
        Err(TryLockError::Poisoned(e)) => e.into_inner(),
        Err(TryLockError::WouldBlock) => return,
    };
    // A helper spinning after a prewake gives way when it reads its own CPU here.
    t.caller_cpu.store(cpu, Ordering::SeqCst);
    wake_others(t, cpu);
}

/// Runs `body(t)` for every `t` in `0..tasks` on the calling thread and the team's helpers;
/// `false` (nothing run) when the team is not available to this caller.
pub fn run(threads: usize, tasks: usize, body: &(dyn Fn(usize) + Sync)) -> bool {
    if IN_TEAM.with(|f| f.get()) || tasks as u64 > TASK_MASK {
        return false;
    }
    let Some(t) = team(threads) else {
        return false;
    };
    let _caller = match t.caller.try_lock() {
        Ok(g) => g,
        Err(TryLockError::Poisoned(e)) => e.into_inner(),
        Err(TryLockError::WouldBlock) => return false,
    };
    // SAFETY (of the lifetime's erasure): this function returns only after every task has
    // finished (`done == tasks`); helpers dereference `job` only for a task they claimed with
    // this step's tag, and no task is left to claim once `done == tasks`.
    let job = Job(unsafe {
        std::mem::transmute::<
            *const (dyn Fn(usize) + Sync + '_),
            *const (dyn Fn(usize) + Sync + 'static),
        >(body as *const _)
    });
    IN_TEAM.with(|f| f.set(true));
    let cpu = current_cpu();
    let step = {
        let mut slot = lock(&t.slot);
        slot.step += 1;
        slot.job = Some(job);
        slot.tasks = tasks;
        t.done.store(0, Ordering::Relaxed);
        t.claim.store(tag(slot.step), Ordering::Release);
        t.caller_cpu.store(cpu, Ordering::SeqCst);
        t.step.store(slot.step, Ordering::SeqCst);
        slot.step
    };
    wake_others(t, cpu);
    work(t, step, job, tasks);
    // Wait for the helpers' tasks.
    let mut spins = 0u32;
    while t.done.load(Ordering::Acquire) < tasks {
        spins = spins.wrapping_add(1);
        if spins < 1 << 12 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
    lock(&t.slot).job = None;
    let panic = lock(&t.panic).take();
    IN_TEAM.with(|f| f.set(false));
    if let Some(p) = panic {
        resume_unwind(p);
    }
    true
}

#[cfg(test)]
mod tests {
    use crate::kernels::pool::{for_each_chunk, run_tasks};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A caller held on one CPU never has its tasks run by the helper bound to that CPU (it
    /// would only take the caller's CPU), and gets help from another CPU's helper.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_helper_on_the_callers_cpu_stays_out() {
        let threads = crate::kernels::pool::threads();
        let Some(t) = super::team(threads) else {
            // No team here (one CPU, or threads that cannot be bound): nothing to check.
            return;
        };
        for h in &t.helpers {
            let cpu = h.cpu;
            let names = std::thread::spawn(move || {
                assert!(crate::kernels::pool::bind_current_thread(cpu as usize));
                let names = std::sync::Mutex::new(Vec::<String>::new());
                for _ in 0..20 {
                    run_tasks(8, &|_| {
                        std::thread::sleep(std::time::Duration::from_micros(100));
                        let name = std::thread::current().name().unwrap_or("").to_string();
                        names.lock().unwrap().push(name);
                    });
                }
                names.into_inner().unwrap()
            })
            .join()
            .unwrap();
            let index = |n: &str| n.strip_prefix("xla-spec-team-")?.parse::<usize>().ok();
            let helped: Vec<usize> = names.iter().filter_map(|n| index(n)).collect();
            assert!(
                helped.iter().all(|&i| t.helpers[i].cpu != cpu),
                "the helper on CPU {cpu} took a task of a caller held there: {names:?}"
            );
            // Other tests may hold the team for a whole step; then the pool runs it, and the
            // check below has nothing to go on.
            let on_team = names
                .iter()
                .any(|n| index(n).is_none() && !n.starts_with("xla-spec-kernel"));
            if on_team {
                assert!(!helped.is_empty(), "no helper took a task: {names:?}");
            }
        }
    }

    /// Every task of every step runs once, from several threads at a time (one has the team,
    /// the others the pool), steps in quick succession and with pauses that let the helpers
    /// sleep, and parallel steps inside a task run too.
    #[test]
    fn every_task_runs_once_whoever_runs_it() {
        let threads: Vec<_> = (0..3)
            .map(|c| {
                std::thread::spawn(move || {
                    for step in 0..200usize {
                        let tasks = 2 + (step + c) % 9;
                        let hits: Vec<AtomicUsize> =
                            (0..tasks).map(|_| AtomicUsize::new(0)).collect();
                        let inner = AtomicUsize::new(0);
                        run_tasks(tasks, &|t| {
                            hits[t].fetch_add(1, Ordering::Relaxed);
                            if t == 0 {
                                run_tasks(3, &|_| {
                                    inner.fetch_add(1, Ordering::Relaxed);
                                });
                            }
                        });
                        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
                        assert_eq!(inner.load(Ordering::Relaxed), 3);
                        let mut v = vec![0u32; 1000 + step];
                        for_each_chunk(&mut v, 97, &|off, s| {
                            for (i, x) in s.iter_mut().enumerate() {
                                *x += (off + i) as u32 + 1;
                            }
                        });
                        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32 + 1));
                        if step % 50 == 0 {
                            std::thread::sleep(std::time::Duration::from_millis(2));
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    }

    /// Steps after a prewake run every task once, and so do steps after a prewake that no step
    /// followed (its helpers spun, then slept again); a prewake from inside a task, or while
    /// another caller holds the team, returns at once. (Whether the helpers woke early is a
    /// matter of time, which benchmarks measure: other tests share the team.)
    #[test]
    fn steps_after_a_prewake_run_every_task_once() {
        let threads = crate::kernels::pool::threads();
        let pause = || std::thread::sleep(std::time::Duration::from_millis(3));
        let step = |tasks: usize| {
            let hits: Vec<AtomicUsize> = (0..tasks).map(|_| AtomicUsize::new(0)).collect();
            run_tasks(tasks, &|t| {
                hits[t].fetch_add(1, Ordering::Relaxed);
                // From inside a task: nothing to wake, and no lock to wait for.
                super::prewake(threads);
            });
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        };
        if super::team(threads).is_some() {
            for round in 0..20 {
                pause();
                super::prewake(threads);
                if round % 2 == 0 {
                    step(2 + round % 7);
                } else {
                    // No step comes: the helpers go back to sleep after their spin.
                    pause();
                    step(3);
                }
            }
        }
        // Holding the team: a prewake from another thread leaves at once.
        let held = std::sync::Barrier::new(2);
        let release = std::sync::Barrier::new(2);
        std::thread::scope(|s| {
            s.spawn(|| {
                run_tasks(2, &|t| {
                    if t == 0 {
                        held.wait();
                        release.wait();
                    }
                })
            });
            held.wait();
            super::prewake(threads);
            release.wait();
        });
    }

    /// A task's panic reaches the caller after the step's other tasks finished, and the next
    /// step runs normally.
    #[test]
    fn a_tasks_panic_reaches_the_caller() {
        for _ in 0..20 {
            let done = AtomicUsize::new(0);
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_tasks(4, &|t| {
                    if t == 1 {
                        panic!("task 1 failed");
                    }
                    std::thread::sleep(std::time::Duration::from_micros(200));
                    done.fetch_add(1, Ordering::Relaxed);
                })
            }));
            let msg = r.expect_err("the panic").downcast::<&str>().map(|s| *s);
            assert_eq!(msg.ok(), Some("task 1 failed"));
            assert_eq!(done.load(Ordering::Relaxed), 3);
            let ok = AtomicUsize::new(0);
            run_tasks(4, &|_| {
                ok.fetch_add(1, Ordering::Relaxed);
            });
            assert_eq!(ok.load(Ordering::Relaxed), 4);
        }
    }
}
