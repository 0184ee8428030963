//! The `xla-spec` binary; all logic lives in `xla_spec::cli`.

fn main() {
    tune_allocator();
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    std::process::exit(xla_spec::cli::main(&args));
}

/// Keeps freed memory of up to a few hundred MiB in the process for the next values.
///
/// Why: an interpreter allocates every intermediate value afresh, and glibc's defaults serve an
/// allocation of a few MiB by mapping new pages (then return them at the free), so each result
/// paid for faulting in and zeroing its pages: a tenth of a program of two 512x1024x512 dots and
/// its converts ran in the kernel, and it ran 9.8 ms against 7.0 ms with both settings below
/// (either alone gained nothing; the heap trims its top past the trim threshold). The pool of
/// `literal::recycle` does this for buffers of 4 MiB and more; this covers the rest, including
/// the kernels' scratch. The peak memory of the benchmark programs did not grow.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn tune_allocator() {
    // SAFETY: `mallopt` only changes glibc's allocation policy, and it runs before any other
    // thread exists. A refusal (a zero result) leaves the defaults, which are correct too.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 64 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn tune_allocator() {}
