//! `xla-spec fuzz`: differential fuzzing of a backend against the reference runtime.

use super::{flag_value, timeout_value, usage};
use crate::backend::process::{DEFAULT_TIMEOUT, ProcessBackend};
use crate::backend::{Backend, ReferenceBackend};
use crate::conformance::fuzz::{Config, Summary, known_ops, run};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

pub const HELP: &str = "\
xla-spec fuzz --backend CMD [OPTIONS]

Generates random valid modules (every element type, complex included, NaN, infinities, signed
zeros, subnormals and integer extremes in the arguments; negative and interior padding, strides,
dilations, group counts, out-of-range dynamic and gather indices, general gather/scatter
dimension numbers with batching dimensions, non-default layouts, replica groups on 1 to 4
replicas in the attributes; chains of element-wise and movement ops), runs each on the backend
and on the reference runtime, and compares them with the suite's rules (exact, or within a few
ULPs for transcendental functions; every replica's result). A disagreement (another value, an
error, a crash or a hang) is shrunk (to one element when the op is element-wise, else to the
smallest size that still disagrees) and written to the --out directory as a candidate golden
case holding both answers.

OPTIONS:
    --backend CMD     the backend under test (a JSON-lines protocol program, as for conform);
                      `reference` fuzzes the reference runtime against itself
    --cases N         stop after N cases (default 1000 when --seconds is not given)
    --seconds S       stop after S seconds
    --seed S          the campaign's seed (default 1); a run is the same for the same seed
    --ops LIST        comma-separated families or op names to draw (default: all); families:
                      unary, binary, compare, convert, select-clamp, movement, reduce,
                      reduce-window, dot, convolution, chain, gather, scatter, sort,
                      select-and-scatter, rng-bit-generator, collective (all-reduce,
                      all-gather, reduce-scatter, all-to-all, collective-permute)
    --size N          the largest dimension size drawn (1 to 64, default 4)
    --no-subnormals   draw no subnormal floats (for a backend known to flush them to zero, as
                      XLA:CPU does, so that its other disagreements show)
    --out DIR         write candidate cases to DIR (existing files are never replaced)
    --timeout SECS    per-case timeout for the backend (default 60)
    -h, --help        show this help

Prints a progress line on a terminal, then each finding and a table of cases and disagreements
per op. Exit status: 0 when the backend agreed on every case, 1 when it disagreed on some,
2 on a usage error.
";

struct Opts {
    backend: Option<String>,
    config: Config,
    timeout: Duration,
}

fn parse(args: &[String]) -> Result<Option<Opts>, String> {
    let mut o = Opts {
        backend: None,
        config: Config {
            seed: 1,
            cases: None,
            time: None,
            ops: vec![],
            out: None,
            size: 4,
            no_subnormals: false,
        },
        timeout: DEFAULT_TIMEOUT,
    };
    let number = |v: &str, flag: &str, max: u64| -> Result<u64, String> {
        v.parse::<u64>()
            .ok()
            .filter(|n| *n >= 1 && *n <= max)
            .ok_or_else(|| format!("{flag} takes an integer from 1 to {max}, got {v:?}"))
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => return Ok(None),
            "--backend" => o.backend = Some(flag_value(&mut it, a)?.to_string()),
            "--cases" => o.config.cases = Some(number(flag_value(&mut it, a)?, a, 1 << 40)?),
            "--seconds" => o.config.time = Some(timeout_value(&mut it, a)?),
            "--seed" => {
                let v = flag_value(&mut it, a)?;
                o.config.seed = v
                    .parse()
                    .map_err(|_| format!("--seed takes an unsigned integer, got {v:?}"))?;
            }
            "--size" => o.config.size = number(flag_value(&mut it, a)?, a, 64)? as i64,
            "--ops" => {
                let known = known_ops();
                for op in flag_value(&mut it, a)?.split(',').map(str::trim) {
                    if !known.contains(&op) {
                        return Err(format!(
                            "--ops: unknown family or op {op:?} (known: {})",
                            known.join(", ")
                        ));
                    }
                    o.config.ops.push(op.to_string());
                }
            }
            "--no-subnormals" => o.config.no_subnormals = true,
            "--out" => o.config.out = Some(PathBuf::from(flag_value(&mut it, a)?)),
            "--timeout" => o.timeout = timeout_value(&mut it, a)?,
            s => return Err(format!("unknown argument {s} (see `xla-spec help fuzz`)")),
        }
    }
    if o.backend.is_none() {
        return Err("fuzz needs --backend CMD (or --backend reference)".into());
    }
    if let Some(dir) = &o.config.out
        && dir.exists()
        && !dir.is_dir()
    {
        return Err(format!(
            "--out {} exists and is not a directory",
            dir.display()
        ));
    }
    if o.config.cases.is_none() && o.config.time.is_none() {
        o.config.cases = Some(1000);
    }
    Ok(Some(o))
}

fn table(s: &Summary) -> String {
    let mut out = String::from("op                       cases  disagreements\n");
    for (op, (n, bad)) in &s.per_op {
        out.push_str(&format!("{op:<24} {n:>6}  {bad:>13}\n"));
    }
    out
}

pub fn main(args: &[String]) -> i32 {
    let o = match parse(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            out!("{HELP}");
            return 0;
        }
        Err(e) => return usage(&e),
    };
    let command = o.backend.unwrap_or_default();
    let mut backend: Box<dyn Backend> = if command == "reference" {
        Box::new(ReferenceBackend::default())
    } else {
        Box::new(ProcessBackend::new(&command, o.timeout))
    };
    let terminal = std::io::stderr().is_terminal();
    let mut last = std::time::Instant::now();
    let mut progress = |s: &Summary| {
        if terminal && last.elapsed() >= Duration::from_millis(250) {
            last = std::time::Instant::now();
            let rate = s.cases as f64 / s.elapsed.as_secs_f64().max(1e-9);
            err!(
                "\r{} cases, {rate:.1}/s, {} disagreements   ",
                s.cases,
                s.findings.len()
            );
            let _ = std::io::stderr().flush();
        }
    };
    let s = run(&o.config, backend.as_mut(), &mut progress);
    if terminal {
        errln!();
    }
    for f in &s.findings {
        let first = f.message.lines().next().unwrap_or("");
        let file = f
            .file
            .as_ref()
            .map(|p| format!(" -> {}", p.display()))
            .unwrap_or_default();
        outln!(
            "DISAGREE {} [{}] case seed {:#018x}: {first}{file}",
            f.op,
            f.kind,
            f.case_seed
        );
    }
    out!("{}", table(&s));
    outln!(
        "{} cases in {:.1} s against {}, {} disagreements ({} drafts discarded by the reference's verifier), seed {}",
        s.cases,
        s.elapsed.as_secs_f64(),
        backend.name(),
        s.findings.len(),
        s.discarded,
        o.config.seed
    );
    if s.findings.is_empty() { 0 } else { 1 }
}
