//! A mutation fuzzer for the front end and the evaluator that runs on the stable toolchain.
//!
//! Algorithm: start from every module the book runs (`hlo-test` fences), every golden case's
//! module and `fuzz/seeds/*.hlo`; repeatedly pick one, apply one to four random text mutations
//! (splice a line from another module, delete, duplicate or swap lines, replace a number with an
//! extreme one, replace an element type, flip a character, truncate), and run parse + verify on
//! the result; when it verifies, evaluate it on all-zero arguments with small budgets. Inputs
//! that verify are kept as new starting points (a coarse form of coverage feedback: they reached
//! deeper than the parser).
//!
//! A finding is a panic anywhere, an internal error on a verified module, or one execution that
//! takes longer than `--hang-seconds`. Each is written to `--out` with the message. A stack
//! overflow aborts the process and cannot be caught: each worker keeps its current input in
//! `--out/current-<worker>.hlo`, so the input that killed the run is on disk.
//!
//! Run (CONTRIBUTING.md records the campaigns):
//!   cargo run --release --example fuzz-front-end -- --execs 1000000 --seed 1 --out target/fuzz

use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use xla_spec::ErrorKind;
use xla_spec::eval::{RunOptions, run_replicated};
use xla_spec::hlo::parse_module;
use xla_spec::literal::Literal;
use xla_spec::verify::{Options, verify_module};

/// xorshift64*: small, fast, and deterministic for a given seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "255",
    "65536",
    "2147483647",
    "-2147483648",
    "4294967296",
    "4611686018427387904",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
    "nan",
    "inf",
    "-inf",
    "1e308",
    "-0",
];

const TYPES: &[&str] = &[
    "pred", "s4", "s8", "s16", "s32", "s64", "u4", "u8", "u16", "u32", "u64", "f16", "bf16", "f32",
    "f64", "c64", "c128", "f8e4m3fn", "f8e5m2", "token",
];

const PUNCT: &[&str] = &[
    "{", "}", "(", ")", "[", "]", ",", "=", ":", "_", "x", "->", "%", "\"",
];

fn mutate(rng: &mut Rng, text: &str, corpus: &[String]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(4) {
        if lines.is_empty() {
            lines.push(String::new());
        }
        let i = rng.below(lines.len());
        match rng.below(9) {
            0 => {
                let other = &corpus[rng.below(corpus.len())];
                let ol: Vec<&str> = other.lines().collect();
                if !ol.is_empty() {
                    lines.insert(i, ol[rng.below(ol.len())].to_string());
                }
            }
            1 => {
                lines.remove(i);
            }
            2 => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            3 => {
                let j = rng.below(lines.len());
                lines.swap(i, j);
            }
            4 | 5 => lines[i] = replace_token(rng, &lines[i], |c| c.is_ascii_digit(), NUMBERS),
            6 => lines[i] = replace_token(rng, &lines[i], |c| c.is_ascii_lowercase(), TYPES),
            7 => {
                let l = &mut lines[i];
                let cut = char_boundary(l, rng.below(l.len() + 1));
                l.insert_str(cut, PUNCT[rng.below(PUNCT.len())]);
            }
            _ => {
                let l = &mut lines[i];
                let cut = char_boundary(l, rng.below(l.len() + 1));
                l.truncate(cut);
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

fn char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Replaces one run of characters starting with `start` by a word of `words`.
fn replace_token(rng: &mut Rng, line: &str, start: fn(char) -> bool, words: &[&str]) -> String {
    let starts: Vec<usize> = line
        .char_indices()
        .filter(|&(k, c)| {
            start(c)
                && line[..k]
                    .chars()
                    .next_back()
                    .is_none_or(|p| !p.is_ascii_alphanumeric())
        })
        .map(|(k, _)| k)
        .collect();
    if starts.is_empty() {
        return line.to_string();
    }
    let a = starts[rng.below(starts.len())];
    let len = line[a..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
        .unwrap_or(line.len() - a);
    format!(
        "{}{}{}",
        &line[..a],
        words[rng.below(words.len())],
        &line[a + len..]
    )
}

#[derive(Default)]
struct Stats {
    execs: AtomicU64,
    parsed: AtomicU64,
    verified: AtomicU64,
    ran_ok: AtomicU64,
    findings: AtomicU64,
    /// Distinct findings (message without numbers) and how often each was hit.
    kinds: Mutex<std::collections::HashMap<String, u64>>,
}

enum Verdict {
    Refused,
    Verified,
    RanOk,
    Finding(String),
}

fn execute(text: &str) -> (bool, Verdict) {
    let Ok(mut module) = parse_module(text) else {
        return (false, Verdict::Refused);
    };
    // Keep values tiny so that the fuzzer explores programs, not memory bandwidth.
    let opts = Options {
        memory_budget: 1 << 16,
        ..Options::default()
    };
    if verify_module(&mut module, &opts).is_err() {
        return (true, Verdict::Refused);
    }
    let args: Vec<Literal> = module
        .entry()
        .parameter_shapes()
        .iter()
        .map(Literal::zeros)
        .collect();
    let run_opts = RunOptions {
        max_while_iterations: 1000,
        rendezvous_timeout: Duration::from_millis(200),
        ..RunOptions::default()
    };
    // A module whose header names several replicas runs as that many, sharing the arguments.
    match run_replicated(&module, vec![args; module.replicas()], &run_opts) {
        Ok(_) => (true, Verdict::RanOk),
        Err(e) if e.kind == ErrorKind::Internal => (
            true,
            Verdict::Finding(format!("internal error on a verified module: {e}")),
        ),
        Err(_) => (true, Verdict::Verified),
    }
}

fn load_corpus(root: &Path) -> Vec<String> {
    let mut out = vec![];
    let mut files = vec![];
    walk(&root.join("book/src"), &mut files);
    walk(&root.join("golden"), &mut files);
    walk(&root.join("fuzz/seeds"), &mut files);
    files.sort();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        match f.extension().and_then(|e| e.to_str()) {
            Some("md") => {
                let mut rest = text.as_str();
                while let Some(k) = rest.find("```hlo-test") {
                    rest = &rest[k..];
                    let body = rest.split_once('\n').map(|x| x.1).unwrap_or("");
                    if let Some(end) = body.find("\n---\n") {
                        out.push(format!("{}\n", &body[..end]));
                    }
                    rest = &rest[3..];
                }
            }
            Some("json") => {
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
                    collect_hlo(&v, &mut out);
                }
            }
            Some("hlo") => out.push(text),
            _ => {}
        }
    }
    out
}

fn collect_hlo(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(o) => {
            if let Some(serde_json::Value::String(h)) = o.get("hlo") {
                out.push(h.clone());
            }
            o.values().for_each(|x| collect_hlo(x, out));
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect_hlo(x, out)),
        _ => {}
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

struct Args {
    execs: u64,
    seed: u64,
    out: PathBuf,
    workers: usize,
    hang: Duration,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        execs: 100_000,
        seed: 1,
        out: PathBuf::from("target/fuzz"),
        workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
        hang: Duration::from_secs(20),
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut v = || it.next().ok_or(format!("{k} needs a value"));
        let num = |s: String| s.parse::<u64>().map_err(|e| format!("{k}: {e}"));
        match k.as_str() {
            "--execs" => a.execs = num(v()?)?,
            "--seed" => a.seed = num(v()?)?,
            "--workers" => a.workers = num(v()?)?.max(1) as usize,
            "--hang-seconds" => a.hang = Duration::from_secs(num(v()?)?),
            "--out" => a.out = PathBuf::from(v()?),
            _ => {
                return Err(format!(
                    "unknown argument {k}; use --execs N --seed S --workers N --hang-seconds N --out DIR"
                ));
            }
        }
    }
    Ok(a)
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("fuzz-front-end: {e}");
            std::process::exit(2);
        }
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let seeds = load_corpus(root);
    if seeds.is_empty() {
        eprintln!(
            "fuzz-front-end: no starting modules found under {}",
            root.display()
        );
        std::process::exit(2);
    }
    if let Err(e) = std::fs::create_dir_all(&a.out) {
        eprintln!("fuzz-front-end: cannot create {}: {e}", a.out.display());
        std::process::exit(2);
    }
    // Panics are findings, recorded with their message; the default hook would flood stderr.
    std::panic::set_hook(Box::new(|_| {}));
    let stats = Arc::new(Stats::default());
    let corpus = Arc::new(Mutex::new(seeds));
    let started = Instant::now();
    let done = Arc::new(AtomicBool::new(false));
    let per_worker = a.execs.div_ceil(a.workers as u64);
    // Milliseconds since `started` at which each worker began its current input (0 = idle).
    let busy: Arc<Vec<AtomicU64>> = Arc::new((0..a.workers).map(|_| AtomicU64::new(0)).collect());
    let mut handles = vec![];
    for w in 0..a.workers {
        let (stats, corpus, busy, out) =
            (stats.clone(), corpus.clone(), busy.clone(), a.out.clone());
        let seed = a.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (w as u64 + 1);
        let handle = std::thread::Builder::new()
            .name(format!("fuzz-{w}"))
            .stack_size(256 << 20)
            .spawn(move || worker(w, seed, per_worker, &stats, &corpus, &busy, started, &out))
            .expect("spawn a fuzz worker");
        handles.push(handle);
    }
    let watchdog = {
        let (stats, done, busy, hang, out) = (
            stats.clone(),
            done.clone(),
            busy.clone(),
            a.hang,
            a.out.clone(),
        );
        std::thread::spawn(move || {
            let mut last = Instant::now();
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let now = started.elapsed().as_millis() as u64;
                for (w, b) in busy.iter().enumerate() {
                    let since = b.load(Ordering::Relaxed);
                    if since != 0 && now.saturating_sub(since) > hang.as_millis() as u64 {
                        eprintln!(
                            "\nfuzz-front-end: worker {w} has run one input for over {}s: a hang; its input is {}",
                            hang.as_secs(),
                            out.join(format!("current-{w}.hlo")).display()
                        );
                        std::process::exit(3);
                    }
                }
                if last.elapsed() > Duration::from_secs(10) {
                    last = Instant::now();
                    report(&stats, started);
                }
            }
        })
    };
    for h in handles {
        let _ = h.join();
    }
    done.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    report(&stats, started);
    let findings = stats.findings.load(Ordering::Relaxed);
    for (kind, n) in stats.kinds.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        eprintln!("  {n} x {kind}");
    }
    if findings > 0 {
        eprintln!(
            "fuzz-front-end: {findings} finding(s) in {}",
            a.out.display()
        );
        std::process::exit(1);
    }
}

fn report(s: &Stats, started: Instant) {
    let execs = s.execs.load(Ordering::Relaxed);
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "{execs} execs in {secs:.0}s ({:.0}/s): {} parsed, {} verified, {} ran to a result, {} findings",
        execs as f64 / secs.max(1e-9),
        s.parsed.load(Ordering::Relaxed),
        s.verified.load(Ordering::Relaxed),
        s.ran_ok.load(Ordering::Relaxed),
        s.findings.load(Ordering::Relaxed),
    );
}

#[allow(clippy::too_many_arguments)]
fn worker(
    w: usize,
    seed: u64,
    execs: u64,
    stats: &Stats,
    corpus: &Mutex<Vec<String>>,
    busy: &[AtomicU64],
    started: Instant,
    out: &Path,
) {
    let mut rng = Rng(seed | 1);
    let current_path = out.join(format!("current-{w}.hlo"));
    let mut current = std::fs::File::create(&current_path).ok();
    for _ in 0..execs {
        let input = {
            let c = corpus.lock().unwrap_or_else(|e| e.into_inner());
            let base = &c[rng.below(c.len())];
            mutate(&mut rng, base, &c)
        };
        if let Some(f) = current.as_mut() {
            let _ = f.set_len(0);
            let _ = f.seek(SeekFrom::Start(0));
            let _ = f.write_all(input.as_bytes());
        }
        busy[w].store(started.elapsed().as_millis() as u64 + 1, Ordering::Relaxed);
        let verdict = std::panic::catch_unwind(|| execute(&input));
        busy[w].store(0, Ordering::Relaxed);
        stats.execs.fetch_add(1, Ordering::Relaxed);
        let finding = match verdict {
            Ok((parsed, v)) => {
                if parsed {
                    stats.parsed.fetch_add(1, Ordering::Relaxed);
                }
                match v {
                    Verdict::Refused => None,
                    Verdict::Verified | Verdict::RanOk => {
                        stats.verified.fetch_add(1, Ordering::Relaxed);
                        if matches!(v, Verdict::RanOk) {
                            stats.ran_ok.fetch_add(1, Ordering::Relaxed);
                        }
                        let mut c = corpus.lock().unwrap_or_else(|e| e.into_inner());
                        if c.len() < 20_000 && rng.below(8) == 0 {
                            c.push(input.clone());
                        }
                        None
                    }
                    Verdict::Finding(m) => Some(m),
                }
            }
            Err(p) => Some(format!(
                "panic: {}",
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            )),
        };
        if let Some(m) = finding {
            let n = stats.findings.fetch_add(1, Ordering::Relaxed);
            // The same bug found again (positions aside) is counted, and its first three inputs kept.
            let kind: String = m.chars().filter(|c| !c.is_ascii_digit()).collect();
            let seen = {
                let mut k = stats.kinds.lock().unwrap_or_else(|e| e.into_inner());
                let c = k.entry(kind).or_insert(0);
                *c += 1;
                *c
            };
            if seen <= 3 {
                let path = out.join(format!("finding-{w}-{n}.hlo"));
                let _ = std::fs::write(&path, format!("// {}\n{input}", m.replace('\n', " ")));
                eprintln!("\nfinding: {m}\n  input: {}", path.display());
            }
        }
    }
}
