//! A team of helper threads that spin for a while between parallel steps, for the kernels'
//! short steps (`pool::run_tasks`, `pool::for_each_chunk`).
//!
//! Why: handing a step to rayon's pool from a thread outside it wakes a sleeping worker, which
//! the next worker then wakes in turn: on a 2-core VM a step of two empty tasks took 14 to 17 µs
//! on average, a tenth of a 256^3 F32 product on two threads. OpenBLAS keeps its threads
//! spinning between calls for the same reason. Here the calling thread runs tasks itself, and
//! the helpers (one per other CPU of the pool) spin on the step counter for `SPIN` after each
//! step before they sleep, so that steps in quick succession find them awake.
//!
//! One caller at a time: a caller that finds the team busy, or that is itself a helper, gets
//! `false` and uses the pool instead. A task's panic is caught where it ran and resumed on the
//! caller once every task of the step has finished, so the step's borrowed closure is never
//! used after `run` returns.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, TryLockError};
use std::time::{Duration, Instant};

/// How long a helper spins for the next step before it sleeps.
const SPIN: Duration = Duration::from_micros(30);

/// A step's closure, its lifetime erased: only dereferenced for a task claimed under the slot's
/// lock while the step's caller waits for it (see `run`).
#[derive(Clone, Copy)]
struct Job(*const (dyn Fn(usize) + Sync + 'static));
// SAFETY: the closure is `Sync`, and the pointer is used only as described on `Job`.
unsafe impl Send for Job {}

#[derive(Default)]
struct Slot {
    step: u64,
    job: Option<Job>,
    tasks: usize,
    next: usize,
    done: usize,
    panic: Option<Box<dyn Any + Send>>,
    /// Helpers waiting on `Team::wake`.
    sleepers: usize,
}

struct Team {
    slot: Mutex<Slot>,
    /// Helpers that gave up spinning wait here for the next step.
    wake: Condvar,
    /// The step number, read by spinning helpers without the lock.
    step: AtomicU64,
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

/// The team, with `helpers` threads, made on first use (`None` when no thread could be started
/// or there is nothing to help with).
fn team(helpers: usize) -> Option<&'static Team> {
    static TEAM: OnceLock<Option<&'static Team>> = OnceLock::new();
    *TEAM.get_or_init(|| {
        if helpers == 0 {
            return None;
        }
        let t: &'static Team = Box::leak(Box::new(Team {
            slot: Mutex::new(Slot::default()),
            wake: Condvar::new(),
            step: AtomicU64::new(0),
            caller: Mutex::new(()),
        }));
        for i in 0..helpers {
            let spawned = std::thread::Builder::new()
                .name(format!("xla-spec-team-{i}"))
                .stack_size(super::pool::KERNEL_STACK_BYTES)
                .spawn(move || helper(t, i));
            if spawned.is_err() {
                return None;
            }
        }
        Some(t)
    })
}

/// Claims and runs the current step's tasks until none is left.
fn work<'t>(t: &'t Team, mut slot: MutexGuard<'t, Slot>) {
    while let Some(job) = slot.job.filter(|_| slot.next < slot.tasks) {
        let task = slot.next;
        slot.next += 1;
        drop(slot);
        // SAFETY: the task was claimed for this step under the lock, and the step's caller
        // does not return (ending the closure's borrow) before `done` counts it.
        let r = catch_unwind(AssertUnwindSafe(|| unsafe { (*job.0)(task) }));
        slot = lock(&t.slot);
        slot.done += 1;
        if let Err(p) = r {
            slot.panic.get_or_insert(p);
        }
    }
}

fn helper(t: &'static Team, i: usize) {
    IN_TEAM.with(|f| f.set(true));
    // On a CPU of its own (the pool's workers' reason: a helper woken on the caller's CPU
    // stayed there); a caller that lands on that CPU gets it back at each yield below, and the
    // scheduler moves the caller, which is not bound, to an idle one.
    super::pool::pin_worker(i + 1);
    let mut seen = 0u64;
    loop {
        let start = Instant::now();
        let mut spins = 0u32;
        while t.step.load(Ordering::Acquire) == seen {
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(64) {
                // A caller on this CPU must not wait for the spinning to end.
                std::thread::yield_now();
                if start.elapsed() > SPIN {
                    let mut slot = lock(&t.slot);
                    while slot.step == seen {
                        slot.sleepers += 1;
                        slot = t.wake.wait(slot).unwrap_or_else(|e| e.into_inner());
                        slot.sleepers -= 1;
                    }
                    break;
                }
            }
            std::hint::spin_loop();
        }
        let slot = lock(&t.slot);
        seen = slot.step;
        work(t, slot);
    }
}

/// Runs `body(t)` for every `t` in `0..tasks` on the calling thread and the team's helpers;
/// `false` (nothing run) when the team is not available to this caller.
pub fn run(threads: usize, tasks: usize, body: &(dyn Fn(usize) + Sync)) -> bool {
    if IN_TEAM.with(|f| f.get()) {
        return false;
    }
    let Some(t) = team(threads.saturating_sub(1)) else {
        return false;
    };
    let _caller = match t.caller.try_lock() {
        Ok(g) => g,
        Err(TryLockError::Poisoned(e)) => e.into_inner(),
        Err(TryLockError::WouldBlock) => return false,
    };
    // SAFETY (of the lifetime's erasure): `job` is cleared below before this function returns,
    // after every claimed task has finished (`done == tasks`); helpers dereference it only for
    // tasks they claimed under the lock while it was set.
    let job = Job(unsafe {
        std::mem::transmute::<
            *const (dyn Fn(usize) + Sync + '_),
            *const (dyn Fn(usize) + Sync + 'static),
        >(body as *const _)
    });
    IN_TEAM.with(|f| f.set(true));
    {
        let mut slot = lock(&t.slot);
        slot.step += 1;
        slot.job = Some(job);
        slot.tasks = tasks;
        slot.next = 0;
        slot.done = 0;
        slot.panic = None;
        t.step.store(slot.step, Ordering::Release);
        if slot.sleepers > 0 {
            t.wake.notify_all();
        }
        work(t, slot);
    }
    // Wait for the helpers' tasks.
    let mut spins = 0u32;
    let panic = loop {
        let mut slot = lock(&t.slot);
        if slot.done == slot.tasks {
            slot.job = None;
            break slot.panic.take();
        }
        drop(slot);
        spins = spins.wrapping_add(1);
        if spins < 1 << 12 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    };
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
