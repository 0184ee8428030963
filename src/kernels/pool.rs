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

use rayon::prelude::*;
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

/// The number of threads kernels split their work over. Asked of the pool itself, not from
/// inside it: `install` from outside hands a job to the pool and wakes its workers, which cost a
/// scanned RNN's small products (asked once per product) a third of its time.
pub fn threads() -> usize {
    match pool() {
        Some(p) => p.current_num_threads(),
        None => rayon::current_num_threads(),
    }
    .max(1)
}

/// Runs `body(t)` for every `t` in `0..tasks`: on the kernel pool when there are several, on the
/// calling thread when there is one.
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
        _ => install(|| (0..tasks).into_par_iter().for_each(body)),
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
    install(|| {
        out.par_chunks_mut(chunk)
            .enumerate()
            .for_each(|(c, s)| body(c * chunk, s))
    });
}

/// A fresh vector of `n` elements whose chunks `body(offset, chunk)` fills, in parallel when
/// there are several: `body` must write every element of its chunk.
pub fn fill_fresh<U: Send + 'static>(
    n: usize,
    chunk: usize,
    body: &(dyn Fn(usize, &mut [std::mem::MaybeUninit<U>]) + Sync),
) -> Vec<U> {
    let mut v: Vec<U> = super::pages::fresh_vec(n);
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
