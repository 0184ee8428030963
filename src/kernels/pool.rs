//! The runtime's own thread pool for data-parallel kernels.
//!
//! Callers run modules from anywhere: the conformance runner and the book run cases in parallel
//! on rayon's global pool, and a library user may do the same. Each run waits for its replica
//! threads, so a worker of whatever pool the caller is on can be blocked for a whole run. If the
//! kernels shared that pool, every worker could end up waiting on a run whose kernels need a
//! worker (a deadlock once seen on a two-core machine), and helping the pool while waiting nests
//! one case inside another until the stack overflows. Kernels therefore run on a pool of their
//! own whose workers only ever wait for other kernel work. Its threads get the replica threads'
//! stack size, because a parallel reduction or sort evaluates its `to_apply` computation, which
//! may call others, on them.
//!
//! The short steps (`run_tasks`, `for_each_chunk`) go first to the kernels' team (`team`):
//! helpers bound one per CPU that stay awake between steps, with the caller taking tasks too.
//! Waking this pool's sleeping workers for every step cost 14 to 17 µs a step on a 2-core VM.

use rayon::prelude::*;
use std::sync::OnceLock;

/// Matches the replica threads' stack: room for the deepest call chain the verifier allows.
/// Only the pages a thread touches are ever committed.
pub(super) const KERNEL_STACK_BYTES: usize = 64 << 20;

fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        // Probed before the workers exist (see `cores_far`).
        cores_far();
        // The builder's default thread count honours RAYON_NUM_THREADS, as the global pool does.
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("xla-spec-kernel-{i}"))
            .stack_size(KERNEL_STACK_BYTES)
            .start_handler(|i| {
                pin_worker(i);
            })
            .build()
            .ok()
    })
    .as_ref()
}

/// Binds kernel worker `i` to the `i`-th CPU the process may run on, when there are at least as
/// many such CPUs as workers (the default: one worker per CPU) and `XLA_SPEC_PIN_THREADS` is not
/// `0`.
///
/// Why: left to the scheduler, the workers of a fresh pool were often woken on the same CPU as
/// each other and stayed there for tens of milliseconds, so a parallel kernel ran at one
/// thread's speed or worse (a 4096 x 4096 matrix-vector product's first fifteen runs took
/// 2.7-3.3 ms against 2.2 ms on one thread and 1.1-1.3 ms once spread, on the 2-core Zen 4 VM);
/// pinned, every run was spread from the first. OpenBLAS avoids the same trap by keeping its
/// threads spinning between calls. The binding is a hint: if it fails, the worker runs unbound
/// (the result says whether it held).
pub(super) fn pin_worker(i: usize) -> bool {
    #[cfg(target_os = "linux")]
    {
        if std::env::var("XLA_SPEC_PIN_THREADS").is_ok_and(|v| v.trim() == "0") {
            return false;
        }
        let Some(p) = pool_threads_hint() else {
            return false;
        };
        let Some(cpus) = allowed_cpus() else {
            return false;
        };
        if cpus.len() < p || i >= cpus.len() {
            return false;
        }
        bind_current_thread(cpus[i])
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = i;
        false
    }
}

/// Binds the calling thread to `cpu`; whether the binding held.
#[cfg(target_os = "linux")]
pub(super) fn bind_current_thread(cpu: usize) -> bool {
    // SAFETY: cpu_set_t is plain data (all-zero is the empty set); the call only reads the set
    // passed to it, sized by size_of.
    unsafe {
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut one);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one) == 0
    }
}

/// The time for a cache line to go from the first CPU this process may use to the second and
/// back (two threads bound to them passing a counter), the best of a few trials: `None` with
/// fewer than two CPUs or where threads cannot be bound.
///
/// Why: the two virtual CPUs of the machines these benchmarks run on move between host cores
/// that share an L3 and cores that do not (a round trip of 114-125 ns and of 404 ns in one
/// session), which the guest's cache topology does not show; a product whose threads share
/// packed panels is a few percent slower on the far placement. Comparison records note it.
pub fn core_round_trip_ns() -> Option<f64> {
    round_trip_ns(2000, 5)
}

/// Round trips longer than this are between cores that share no L3: the placements seen were
/// 43-52 ns (one L3), 114-125 ns and 348-404 ns.
const FAR_CORES_NS: f64 = 250.0;

/// Whether this process's first two CPUs share no L3 (`FAR_CORES_NS`), measured once, before
/// the kernel pool's workers start (a spinning worker would share a CPU with the probe):
/// `XLA_SPEC_CORES=far` or `near` decides instead (for measurements). A few hundred
/// microseconds of 3 x 200 trips at the first parallel kernel.
pub fn cores_far() -> bool {
    static FAR: OnceLock<bool> = OnceLock::new();
    *FAR.get_or_init(|| match std::env::var("XLA_SPEC_CORES").as_deref() {
        Ok("far") => true,
        Ok("near") => false,
        _ => round_trip_ns(200, 3).is_some_and(|ns| ns > FAR_CORES_NS),
    })
}

fn round_trip_ns(trips: u64, trials: usize) -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
        #[repr(align(128))]
        struct Line(AtomicU64);
        let cpus = allowed_cpus()?;
        let (a, b) = (*cpus.first()?, *cpus.get(1)?);
        let line = Line(AtomicU64::new(0));
        let failed = AtomicBool::new(false);
        let best = std::thread::scope(|s| {
            s.spawn(|| {
                if !bind_current_thread(b) {
                    failed.store(true, Ordering::SeqCst);
                }
                // Answers every odd value with the next even one, until the last trip.
                for i in 0..trips * trials as u64 {
                    while line.0.load(Ordering::Acquire) != 2 * i + 1 {
                        if failed.load(Ordering::Relaxed) {
                            return;
                        }
                        std::hint::spin_loop();
                    }
                    line.0.store(2 * i + 2, Ordering::Release);
                }
            });
            s.spawn(|| {
                if !bind_current_thread(a) {
                    failed.store(true, Ordering::SeqCst);
                    return None;
                }
                let mut best = f64::INFINITY;
                for t in 0..trials as u64 {
                    let start = std::time::Instant::now();
                    for i in t * trips..(t + 1) * trips {
                        line.0.store(2 * i + 1, Ordering::Release);
                        while line.0.load(Ordering::Acquire) != 2 * i + 2 {
                            if failed.load(Ordering::Relaxed) {
                                return None;
                            }
                            std::hint::spin_loop();
                        }
                    }
                    best = best.min(start.elapsed().as_secs_f64() * 1e9 / trips as f64);
                }
                Some(best)
            })
            .join()
            .ok()
            .flatten()
        });
        best.filter(|_| !failed.load(Ordering::SeqCst))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (trips, trials);
        None
    }
}

/// The CPUs the calling thread may run on, in order (`None` when they cannot be told).
#[cfg(target_os = "linux")]
fn allowed_cpus() -> Option<Vec<usize>> {
    // SAFETY: cpu_set_t is plain data (all-zero is the empty set); the call only writes the set
    // passed to it, sized by size_of.
    unsafe {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, size, &mut allowed) != 0 {
            return None;
        }
        Some(
            (0..libc::CPU_SETSIZE as usize)
                .filter(|&c| libc::CPU_ISSET(c, &allowed))
                .collect(),
        )
    }
}

/// Whether the pool has exactly one worker per CPU this thread may use (the default), so that
/// one helper bound to each CPU adds no thread the user did not ask for (`team`).
pub(super) fn one_thread_per_cpu(threads: usize) -> bool {
    #[cfg(target_os = "linux")]
    {
        allowed_cpus().is_some_and(|c| c.len() == threads)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = threads;
        false
    }
}

/// The number of workers the kernel pool is built with (as rayon's builder decides it:
/// `RAYON_NUM_THREADS`, else the CPUs available), or `None` when it cannot be told.
#[cfg(target_os = "linux")]
fn pool_threads_hint() -> Option<usize> {
    match std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        Some(n) if n > 0 => Some(n),
        _ => std::thread::available_parallelism().ok().map(|n| n.get()),
    }
}

/// Runs `f` (which uses rayon's parallel iterators) on the kernel pool. From a kernel-pool worker
/// it runs in place. If the pool could not be created, `f` runs on the caller's pool.
pub fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Some(p) => p.install(f),
        None => f(),
    }
}

/// The number of threads kernels split their work over. Asked of the pool itself, not from
/// inside it: `install` from outside hands a job to the pool and wakes its workers, which cost a
/// scanned RNN's small products (asked once per product) a third of its time.
pub fn threads() -> usize {
    // Inside a task of the team's step every CPU is busy and nested steps run in place: work
    // split for more threads would only pay for the split (a batch of 64 products of 128^3 ran
    // a fifth slower when each product was cut for two threads).
    if super::team::nested() {
        return 1;
    }
    match pool() {
        Some(p) => p.current_num_threads(),
        None => rayon::current_num_threads(),
    }
    .max(1)
}

/// Runs `body(t)` for every `t` in `0..tasks`: when there are several, on the calling thread and
/// the kernels' team (`team`), or on the kernel pool when the team is busy or unavailable; in
/// place inside a team task; on the calling thread when there is one.
///
/// The parallel helpers here take their work as `&dyn Fn`, so that rayon's machinery is compiled
/// once per element type instead of once per operation: with every element-wise operation and
/// element type instantiating its own parallel iterator, rayon's generic code was more than half
/// of the crate's machine code and of its build time. The dynamic call happens once per chunk,
/// and the loop inside a chunk is the caller's own, fully typed code.
pub fn run_tasks(tasks: usize, body: &(dyn Fn(usize) + Sync)) {
    match tasks {
        0 => {}
        1 => body(0),
        _ if super::team::nested() => (0..tasks).for_each(body),
        _ => {
            if !super::team::run(threads(), tasks, body) {
                install(|| (0..tasks).into_par_iter().for_each(body))
            }
        }
    }
}

/// Says that a parallel step of `work` multiply-adds (or elements of like cost) is about to be
/// prepared: when it is large enough to be split, the team's sleeping helpers are woken now, so
/// that their wake-up runs while the caller plans and allocates (`team::prewake`). Cheap when
/// they are awake; nothing happens for work the kernels would keep on the calling thread.
pub fn prewake(work: usize) {
    if work > crate::kernels::gemm::SMALL_PRODUCT && !super::team::nested() {
        let threads = threads();
        if threads > 1 {
            super::team::prewake(threads);
        }
    }
}

/// A slice's start shared by parallel tasks that each write only their own disjoint part of it
/// (`for_each_chunk`'s chunks, the GEMM's column ranges of C and panels of B), while the caller
/// holds the `&mut` it came from for the whole step.
#[derive(Clone, Copy)]
pub(crate) struct SharedMut<T>(pub(crate) *mut T);
// SAFETY: the pointer is only dereferenced by tasks writing disjoint parts, inside the borrow it
// came from (the type's contract above); `T: Send` lets those parts move between threads.
unsafe impl<T: Send> Send for SharedMut<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for SharedMut<T> {}

impl<T> SharedMut<T> {
    /// The element `off` places in. (A method, so that closures capture the whole `SharedMut`,
    /// which is `Sync`, and not its raw pointer field, which is not.)
    pub(crate) fn at(&self, off: usize) -> *mut T {
        self.0.wrapping_add(off)
    }
}

/// Splits `out` into chunks of `chunk` elements (the last may be shorter) and runs
/// `body(offset_of_chunk, chunk)` on each, in parallel when there are several.
pub fn for_each_chunk<T: Send>(
    out: &mut [T],
    chunk: usize,
    body: &(dyn Fn(usize, &mut [T]) + Sync),
) {
    let chunk = chunk.max(1);
    if out.len() <= chunk {
        if !out.is_empty() {
            body(0, out);
        }
        return;
    }
    let n = out.len();
    let base = SharedMut(out.as_mut_ptr());
    run_tasks(n.div_ceil(chunk), &|c| {
        let off = c * chunk;
        // SAFETY: chunk `c` is `out[off..off + len]`, inside `out` (c < n / chunk rounded up),
        // and no other task makes chunk `c` (each runs once); `out` is borrowed mutably for the
        // whole call.
        let s = unsafe { std::slice::from_raw_parts_mut(base.at(off), chunk.min(n - off)) };
        body(off, s)
    });
}

/// A fresh vector of `n` elements whose chunks `body(offset, chunk)` fills, in parallel when
/// there are several: `body` must write every element of its chunk.
///
/// Why fresh (`pages::fresh_vec`, a recycled buffer when one of about its size is free): a
/// kernel's output from `vec![zero; n]` is new memory for every call while the pool holds the
/// buffers of the results that just died; 64 products of 128 x 128 (a 4 MiB result) spent their
/// first sixteen calls (until the recycling pool was full) a third slower in page faults, alone
/// and threaded. Each chunk is written by the task that fills it, which leaves it in that
/// thread's cache.
pub fn fill_fresh<U: Send + 'static>(
    n: usize,
    chunk: usize,
    body: &(dyn Fn(usize, &mut [std::mem::MaybeUninit<U>]) + Sync),
) -> Vec<U> {
    let mut v: Vec<U> = crate::literal::pages::fresh_vec(n);
    for_each_chunk(&mut v.spare_capacity_mut()[..n], chunk, body);
    // SAFETY: the chunks cover 0..n and `body` wrote every element of each (its contract); had
    // it panicked, the panic would have left through `for_each_chunk` before this point.
    unsafe { v.set_len(n) };
    v
}

/// A fresh copy of `src`, copied in parallel chunks when it is long: for a result that starts as
/// a copy of an operand it then updates in place (a scatter into a 5 MiB table spent as long on
/// a single-threaded copy as on its updates).
pub fn copy_fresh<U: Copy + Send + Sync + 'static>(src: &[U]) -> Vec<U> {
    let n = src.len();
    fill_fresh(n, chunk_for(n, 1 << 16), &|start, dst| {
        write_slice(dst, &src[start..start + dst.len()]);
    })
}

/// Writes `src` into `dst` with one `memcpy` (the C library's widest stores). The standard
/// library's `write_copy_of_slice` does this from Rust 1.93; the crate supports 1.89.
///
/// # Panics
/// When the lengths differ.
pub fn write_slice<U: Copy>(dst: &mut [std::mem::MaybeUninit<U>], src: &[U]) {
    assert_eq!(dst.len(), src.len(), "write_slice: lengths differ");
    // SAFETY: both slices hold `src.len()` elements (checked above), `dst` is borrowed mutably
    // so the two cannot overlap, and `MaybeUninit<U>` has `U`'s layout; `U: Copy` has no drop.
    unsafe {
        std::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast::<U>(), src.len());
    }
}

/// `f(i)` for every `i` in `0..n`, collected in order, computed in parallel chunks of at least
/// `min_chunk` indices. For work that is coarse per index (a whole reduction, a sorted row).
pub fn collect_indexed<U: Send + 'static>(
    n: usize,
    min_chunk: usize,
    f: &(dyn Fn(usize) -> U + Sync),
) -> Vec<U> {
    let chunk = n.div_ceil(threads() * 4).max(min_chunk).max(1);
    fill_fresh(n, chunk, &|start, dst| {
        for (k, d) in dst.iter_mut().enumerate() {
            d.write(f(start + k));
        }
    })
}

/// Sorts `v`, on the kernel pool when it is long (rayon's parallel quicksort, compiled once here
/// for the one element type that needs it).
pub fn sort_u128(v: &mut [u128]) {
    if v.len() < 1 << 16 {
        v.sort_unstable();
    } else {
        install(|| v.par_sort_unstable());
    }
}

/// A chunk length for `n` elements of cheap work: a few chunks per thread, none shorter than
/// `min` (below which splitting costs more than it gains); `n` itself when `n < 2 * min`.
pub fn chunk_for(n: usize, min: usize) -> usize {
    if n < 2 * min {
        n.max(1)
    } else {
        n.div_ceil(threads() * 4).max(min)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A copy is the source, element for element, whether it is split across threads (long) or
    /// not; a slice written with `write_slice` reads back as its source.
    #[test]
    fn fresh_copies_are_equal_to_their_source() {
        for n in [0usize, 1, 1000, 1 << 18] {
            let src: Vec<u32> = (0..n as u32)
                .map(|x| x.wrapping_mul(2_654_435_761))
                .collect();
            assert_eq!(copy_fresh(&src), src);
        }
        let mut dst = [std::mem::MaybeUninit::<f64>::uninit(); 3];
        write_slice(&mut dst, &[1.5, -0.0, f64::INFINITY]);
        // SAFETY: all three were written just above.
        let back: Vec<f64> = dst.iter().map(|x| unsafe { x.assume_init() }).collect();
        assert_eq!(
            back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            [1.5f64, -0.0, f64::INFINITY]
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>()
        );
    }

    /// The round trip is measured wherever two CPUs can be bound, and is a plausible time.
    #[cfg(target_os = "linux")]
    #[test]
    fn core_round_trip_is_measured_with_two_cpus() {
        let cpus = allowed_cpus().unwrap_or_default();
        // Whether this machine lets a thread bind to the second CPU (a container's policy can
        // refuse it): then the probe must give a figure, otherwise none.
        let can_bind = cpus.len() >= 2
            && std::thread::spawn(move || bind_current_thread(cpus[1]))
                .join()
                .unwrap();
        match core_round_trip_ns() {
            Some(ns) => assert!(can_bind && ns > 1.0 && ns < 1e7, "{ns} ns"),
            None => assert!(!can_bind, "two bindable CPUs and no round trip"),
        }
    }

    /// With as many CPUs as workers and no opt-out, each kernel worker runs bound to one CPU,
    /// and no two workers to the same one.
    #[cfg(target_os = "linux")]
    #[test]
    fn kernel_workers_are_bound_to_distinct_cpus() {
        let opted_out = std::env::var("XLA_SPEC_PIN_THREADS").is_ok_and(|v| v.trim() == "0");
        let allowed = std::thread::available_parallelism().map_or(1, |n| n.get());
        let n = threads();
        if opted_out || n < 2 || allowed < n {
            return;
        }
        let seen = std::sync::Mutex::new(std::collections::BTreeMap::new());
        let gate = std::sync::Barrier::new(n);
        // One task per worker, held at a barrier so that every worker takes one.
        install(|| {
            (0..n).into_par_iter().with_max_len(1).for_each(|_| {
                gate.wait();
                // SAFETY: as in `pin_worker`.
                let cpus: Vec<usize> = unsafe {
                    let mut set: libc::cpu_set_t = std::mem::zeroed();
                    assert_eq!(
                        libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set),
                        0
                    );
                    (0..libc::CPU_SETSIZE as usize)
                        .filter(|&c| libc::CPU_ISSET(c, &set))
                        .collect()
                };
                let me = rayon::current_thread_index().unwrap_or(usize::MAX);
                seen.lock().unwrap().insert(me, cpus);
            })
        });
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen.len(), n, "{seen:?}");
        let mut firsts: Vec<usize> = seen.values().map(|c| c[0]).collect();
        assert!(seen.values().all(|c| c.len() == 1), "{seen:?}");
        firsts.sort_unstable();
        firsts.dedup();
        assert_eq!(firsts.len(), n, "{seen:?}");
    }

    /// Every global worker blocks in `join` on a thread of its own (as a run waits for its
    /// replica threads), and each such thread runs a kernel. With kernels on the global pool,
    /// nothing would run them.
    #[test]
    fn kernels_run_while_every_global_worker_waits_for_them() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let n = rayon::current_num_threads();
            let gate = std::sync::Barrier::new(n);
            let sums: Vec<u64> = (0..n)
                .into_par_iter()
                .with_max_len(1)
                .map(|_| {
                    gate.wait();
                    std::thread::spawn(|| install(|| (0..100_000u64).into_par_iter().sum()))
                        .join()
                        .unwrap_or(0)
                })
                .collect();
            let _ = tx.send(sums);
        });
        let sums = rx
            .recv_timeout(std::time::Duration::from_secs(120))
            .expect("kernels waited for blocked global workers");
        assert!(sums.iter().all(|&s| s == 4_999_950_000));
    }

    #[test]
    fn kernel_threads_are_the_kernel_pools() {
        let name = install(|| std::thread::current().name().map(str::to_owned));
        assert!(name.unwrap_or_default().starts_with("xla-spec-kernel-"));
    }
}
