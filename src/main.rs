//! The `xla-spec` binary; all logic lives in `xla_spec::cli`.

/// The binary allocates through mimalloc.
///
/// Why: an interpreter allocates every intermediate value afresh, with its shape's small
/// vectors beside its buffer, and frees them as soon as nothing reads them. Under glibc's
/// allocator those small allocations and frees (and its periodic consolidation of free chunks)
/// were a sixth of a scanned RNN's time, whose steps run about forty small instructions each:
/// 7.7-8.1 ms against 6.7 ms with mimalloc, side by side on a Zen 5, and no program slower.
/// mimalloc also keeps freed pages for the next values of their size, which glibc had to be
/// told to do (a raised mmap threshold: results of a few MiB otherwise faulted in fresh pages
/// every time). Peak memory of the whole benchmark run: 569 MB against 537. The library does
/// not choose an allocator for its users; this is the command's own choice.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    std::process::exit(xla_spec::cli::main(&args));
}
