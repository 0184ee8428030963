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

use std::sync::OnceLock;

/// Matches the replica threads' stack: room for the deepest call chain the verifier allows.
/// Only the pages a thread touches are ever committed.
const KERNEL_STACK_BYTES: usize = 64 << 20;

fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        // The builder's default thread count honours RAYON_NUM_THREADS, as the global pool does.
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("xla-spec-kernel-{i}"))
            .stack_size(KERNEL_STACK_BYTES)
            .build()
            .ok()
    })
    .as_ref()
}

/// Runs `f` (which uses rayon's parallel iterators) on the kernel pool. From a kernel-pool worker
/// it runs in place. If the pool could not be created, `f` runs on the caller's pool.
pub fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Some(p) => p.install(f),
        None => f(),
    }
}

/// The number of threads kernels split their work over.
pub fn threads() -> usize {
    install(rayon::current_num_threads).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

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
