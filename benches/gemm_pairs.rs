//! xla-spec's GEMM against OpenBLAS's, timed in pairs in one process.
//!
//! Why: on a shared host the speed of a core drifts by more than the differences worth knowing
//! (best-of figures of the same product in two runs a minute apart differed by 10%), and separate
//! runs of two programs see different stretches of that drift. Here every round times both on
//! the same operands back to back, after a pause, in alternating order; the figure reported is
//! the median over the rounds of the ratio of the two times from the same round (OpenBLAS's time
//! over ours: above 1 means xla-spec is faster), with its quartiles, beside each side's best.
//!
//! OpenBLAS is the library NumPy's wheel ships (`scipy_openblas64`, 64-bit integers), opened
//! with `dlopen`; `benches/gemm_pairs.sh` installs the pinned NumPy and passes its path in
//! `OPENBLAS_LIB`. It writes into one output buffer allocated before the rounds, while
//! xla-spec's fast path allocates its result on every call, as an interpreter's op must (through
//! the `xla-spec` command's allocator, mimalloc): the comparison is slanted towards OpenBLAS,
//! never against it.
//!
//! Usage: `benches/gemm_pairs.sh [FILTER] [--rounds N] [--pause MS] [--save FILE]`; the cases
//! are the GEMM rows of `xla-spec bench`'s table (`dot_f32_*`, `dot_f64_*`) whose name contains
//! FILTER. Thread counts: `RAYON_NUM_THREADS` and `OPENBLAS_NUM_THREADS`; the micro-kernel:
//! `XLA_SPEC_GEMM_KERNEL` (and `OPENBLAS_CORETYPE` for OpenBLAS's). With `--rows FILE` the bench
//! writes its rows and method as JSON, which the script's `--save` wraps into a record of kind
//! `pairs` (`benches/record.py`) for the book's performance page.

/// The allocator the `xla-spec` command runs with (`src/main.rs`), so that xla-spec's result,
/// allocated afresh on every call, comes from where it comes from in the command. Under the
/// system allocator a 64 or 128 MiB result was a fresh `mmap` on every call, whose pages the
/// kernel zeroed inside the timed call: on a Zen 4 (2026-12-06), 3.7% of a one-thread F64 4096^3
/// run's samples were `clear_page_erms` under our micro-kernel's first stores to C (1.3% with
/// mimalloc, the warm-up call's), and the paired ratio read 0.981-0.987 against 0.991-1.002 in
/// alternating runs. mimalloc keeps the freed pages for the next call, as it does between an
/// interpreted program's instructions; OpenBLAS still writes into a buffer mapped once.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::{Duration, Instant};
use xla_spec::ElementType;
use xla_spec::cli::bench::{Case, Prepared, table};

/// `cblas_?gemm` with 64-bit integers: order, transa, transb, m, n, k, alpha, a, lda, b, ldb,
/// beta, c, ldc.
type Gemm<T> = unsafe extern "C" fn(
    i32,
    i32,
    i32,
    i64,
    i64,
    i64,
    T,
    *const T,
    i64,
    *const T,
    i64,
    T,
    *mut T,
    i64,
);

const ROW_MAJOR: i32 = 101;
const NO_TRANS: i32 = 111;

struct OpenBlas {
    dgemm: Gemm<f64>,
    sgemm: Gemm<f32>,
}

impl OpenBlas {
    #[cfg(not(target_os = "linux"))]
    fn open(_: &str) -> Result<OpenBlas, String> {
        Err("this bench opens OpenBLAS with Linux's dlopen".into())
    }

    #[cfg(target_os = "linux")]
    fn open(path: &str) -> Result<OpenBlas, String> {
        use std::ffi::{CString, c_void};
        let c = CString::new(path).map_err(|e| e.to_string())?;
        // SAFETY: dlopen/dlsym with NUL-terminated names; the symbols' C signatures are the
        // CBLAS ones `Gemm` spells (ILP64 build, hence the 64-bit integers).
        unsafe {
            let h = libc::dlopen(c.as_ptr(), libc::RTLD_NOW);
            if h.is_null() {
                return Err(format!("cannot open {path}"));
            }
            let sym = |name: &std::ffi::CStr| {
                let p = libc::dlsym(h, name.as_ptr());
                (!p.is_null())
                    .then_some(p)
                    .ok_or_else(|| format!("{path} has no {}", name.to_string_lossy()))
            };
            let d = sym(c"scipy_cblas_dgemm64_")?;
            let s = sym(c"scipy_cblas_sgemm64_")?;
            Ok(OpenBlas {
                dgemm: std::mem::transmute::<*mut c_void, Gemm<f64>>(d),
                sgemm: std::mem::transmute::<*mut c_void, Gemm<f32>>(s),
            })
        }
    }
}

/// One case's operands as OpenBLAS takes them (the same buffers xla-spec reads) and its output.
enum Peer<'a> {
    F32(&'a [f32], &'a [f32], Vec<f32>),
    F64(&'a [f64], &'a [f64], Vec<f64>),
}

impl Peer<'_> {
    fn run(&mut self, lib: &OpenBlas, mkn: (i64, i64, i64)) {
        match self {
            Peer::F32(a, b, c) => gemm(lib.sgemm, mkn, 1.0, 0.0, a, b, c),
            Peer::F64(a, b, c) => gemm(lib.dgemm, mkn, 1.0, 0.0, a, b, c),
        }
    }
}

/// `c = a * b` through one of the `cblas_?gemm`s, all three row-major (`one` and `zero` are
/// alpha and beta).
fn gemm<T>(f: Gemm<T>, (m, k, n): (i64, i64, i64), one: T, zero: T, a: &[T], b: &[T], c: &mut [T]) {
    // SAFETY: a is m x k, b is k x n and c is m x n, all row-major and of those lengths
    // (checked where the peer is built).
    unsafe {
        f(
            ROW_MAJOR,
            NO_TRANS,
            NO_TRANS,
            m,
            n,
            k,
            one,
            a.as_ptr(),
            k,
            b.as_ptr(),
            n,
            zero,
            c.as_mut_ptr(),
            n,
        )
    }
}

fn peer(p: &Prepared, (m, k, n): (i64, i64, i64)) -> Option<Peer<'_>> {
    let (len_a, len_b, len_c) = ((m * k) as usize, (k * n) as usize, (m * n) as usize);
    let ok = |a: usize, b: usize| a == len_a && b == len_b;
    if let (Some(a), Some(b)) = (p.lhs.typed::<f32>(), p.rhs.typed::<f32>()) {
        return ok(a.len(), b.len()).then(|| Peer::F32(a, b, vec![0.0; len_c]));
    }
    if let (Some(a), Some(b)) = (p.lhs.typed::<f64>(), p.rhs.typed::<f64>()) {
        return ok(a.len(), b.len()).then(|| Peer::F64(a, b, vec![0.0; len_c]));
    }
    None
}

struct Args {
    filter: String,
    rounds: usize,
    pause: Duration,
    rows: Option<String>,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        filter: String::new(),
        rounds: 15,
        pause: Duration::from_millis(300),
        rows: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(s) = it.next() {
        let mut value = |what: &str| it.next().ok_or(format!("{s} needs {what}"));
        match s.as_str() {
            // `cargo bench` adds this flag to every bench target it runs.
            "--bench" => {}
            "--rounds" => {
                a.rounds = value("a count")?
                    .parse()
                    .map_err(|e| format!("--rounds: {e}"))?;
            }
            "--pause" => {
                let ms = value("milliseconds")?
                    .parse()
                    .map_err(|e| format!("--pause: {e}"))?;
                a.pause = Duration::from_millis(ms);
            }
            "--rows" => a.rows = Some(value("a file")?),
            f if !f.starts_with('-') => a.filter = f.to_string(),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if a.rounds == 0 {
        return Err("--rounds must be at least 1".into());
    }
    Ok(a)
}

/// The `q`-quantile of sorted values (nearest rank).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// A line of /proc/cpuinfo's first processor (`field: value`), or "" off Linux.
fn cpuinfo(field: &str) -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find(|l| l.split(':').next().is_some_and(|k| k.trim() == field))
        .and_then(|l| l.split_once(':'))
        .map_or(String::new(), |(_, v)| v.trim().to_string())
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_string()
}

fn main() {
    if let Err(e) = run() {
        eprintln!("gemm_pairs: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let args = args()?;
    let path = std::env::var("OPENBLAS_LIB")
        .map_err(|_| "OPENBLAS_LIB is not set (benches/gemm_pairs.sh sets it)".to_string())?;
    let lib = OpenBlas::open(&path)?;
    if let Some(file) = &args.rows
        && std::path::Path::new(file).exists()
    {
        return Err(format!("{file} exists; not overwritten"));
    }
    let flags = cpuinfo("flags");
    let has = |f: &str| flags.split_whitespace().any(|x| x == f);
    let machine = format!(
        "{} (family {}, model {}; avx2 {}, avx512f {})",
        cpuinfo("model name"),
        cpuinfo("cpu family"),
        cpuinfo("model"),
        has("avx2"),
        has("avx512f")
    );
    let load_before = load();
    println!("{machine}; load {load_before}; {} rounds", args.rounds);
    let mut rows = Vec::new();
    for (name, case, _) in table() {
        let Case::Dot { ty, b: 0, m, k, n } = case else {
            continue;
        };
        if !matches!(ty, ElementType::F32 | ElementType::F64) || !name.contains(&args.filter) {
            continue;
        }
        let prepared = case.prepare();
        let mut blas = peer(&prepared, (m, k, n)).ok_or(format!("{name}: unexpected operands"))?;
        // One call each first: pages mapped, pools started, buffers recycled.
        let kernel = prepared.run_fast();
        // A fast path that failed, or fell back to the oracle, would be timed as if it ran.
        if kernel.starts_with("error") || kernel == "none" {
            return Err(format!(
                "{name}: xla-spec's fast path did not run a kernel: {kernel}"
            ));
        }
        blas.run(&lib, (m, k, n));
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for round in 0..args.rounds {
            let time_ours = || {
                std::thread::sleep(args.pause);
                let t = Instant::now();
                std::hint::black_box(prepared.run_fast());
                t.elapsed().as_secs_f64()
            };
            let mut time_theirs = || {
                std::thread::sleep(args.pause);
                let t = Instant::now();
                blas.run(&lib, (m, k, n));
                t.elapsed().as_secs_f64()
            };
            let (a, b) = if round % 2 == 0 {
                let a = time_ours();
                (a, time_theirs())
            } else {
                let b = time_theirs();
                (time_ours(), b)
            };
            ours.push(a);
            theirs.push(b);
        }
        let flops = case.flops();
        let best = |v: &[f64]| flops / v.iter().cloned().fold(f64::INFINITY, f64::min) / 1e9;
        let mut ratios: Vec<f64> = theirs.iter().zip(&ours).map(|(t, o)| t / o).collect();
        ratios.sort_by(f64::total_cmp);
        let (q1, med, q3) = (
            quantile(&ratios, 0.25),
            quantile(&ratios, 0.5),
            quantile(&ratios, 0.75),
        );
        println!(
            "{name:<20} {kernel:<8} xla-spec best {:7.1} GFLOP/s  OpenBLAS best {:7.1}  \
             paired ratio median {med:.3} (quartiles {q1:.3}-{q3:.3})",
            best(&ours),
            best(&theirs)
        );
        rows.push(serde_json::json!({
            "name": name,
            "kernel": kernel,
            "xla_spec_best_gflops": best(&ours),
            "openblas_best_gflops": best(&theirs),
            "ratio_median": med,
            "ratio_q1": q1,
            "ratio_q3": q3,
        }));
    }
    if rows.is_empty() {
        return Err(format!("no GEMM case matches {:?}", args.filter));
    }
    if let Some(file) = &args.rows {
        let env = |v: &str| match std::env::var(v) {
            Ok(x) if !x.is_empty() => x,
            _ => "all CPUs".to_string(),
        };
        let kernel = std::env::var("XLA_SPEC_GEMM_KERNEL").unwrap_or_else(|_| "best".into());
        let coretype = std::env::var("OPENBLAS_CORETYPE").unwrap_or_else(|_| "detected".into());
        let method = format!(
            "paired calls in one process: each round runs xla-spec's GEMM and OpenBLAS's \
             cblas_?gemm (NumPy's scipy_openblas64) on the same operands back to back, each after \
             a {} ms pause, alternating which goes first; {} rounds; each side's best, and the \
             median and quartiles of the per-round ratio (OpenBLAS's time over xla-spec's); \
             threads: xla-spec {}, OpenBLAS {}; micro-kernel {kernel}, OpenBLAS core {coretype}; \
             xla-spec's result allocated on every call through mimalloc, as in the xla-spec command; \
             load average {load_before} before, {} after",
            args.pause.as_millis(),
            args.rounds,
            env("RAYON_NUM_THREADS"),
            env("OPENBLAS_NUM_THREADS"),
            load(),
        );
        let json = serde_json::json!({ "method": method, "rows": rows });
        let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())? + "\n";
        // `create_new`: a file a user already has is never overwritten.
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(file)
            .map_err(|e| format!("{file}: {e}"))?;
        std::io::Write::write_all(&mut f, text.as_bytes()).map_err(|e| format!("{file}: {e}"))?;
    }
    Ok(())
}
