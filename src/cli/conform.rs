//! `xla-spec conform [PATH...]`.

use super::{flag_value, one_line, timeout_value, usage};
use crate::backend::Backend;
use crate::backend::process::{DEFAULT_TIMEOUT, ProcessBackend};
use crate::conformance::expected::ExpectedFailures;
use crate::conformance::keep::{Run, keep};
use crate::conformance::report::{Verdict, short_reason};
use crate::conformance::runner::{run_jobs, run_reference_parallel, shard};
use crate::conformance::{Case, Outcome, Report, Status, load_path};
use crate::eval::RunOptions;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

pub const HELP: &str = "\
xla-spec conform [PATH...] [OPTIONS]

Runs the book's runnable examples (```hlo-test / ```layout-test fences in .md files) and the
golden cases (.json files) against the reference runtime or an external backend. Each PATH is a
file or a directory read recursively; the default is book/ and golden/ in the current directory.

OPTIONS:
    --backend CMD        run the cases on an external backend: CMD is a shell command line (run
                         with `sh -c`) speaking the JSON-lines protocol of the book's
                         \"Backend protocol\" chapter; default: the reference runtime
    --filter TEXT        run only the cases whose name contains TEXT (repeatable: any of them)
    --report FILE.json   write a JSON report (backend, counts, each case's status and message)
    --report-md FILE.md  write the report as a Markdown page: counts, every failing case with its
                         message, expected failures grouped by category with their reasons
    --report-title TEXT  the Markdown page's title (default \"Conformance report\")
    --expected-failures FILE.json
                         cases this backend is known to fail, each with a category and a reason
                         (format in the book's \"Backend protocol\" chapter): a listed case that
                         fails is XFAIL, one that passes is XPASS, an entry naming no case is
                         reported as stale; only unlisted failures fail the run
    --timeout SECS       per-case timeout for an external backend (default 60)
    --jobs N             run N copies of the external backend at once (each its own process),
                         for slow backends; results and reports keep the case order (default 1;
                         the reference runtime always runs its cases in parallel)
    --shard K/N          run only shard K of N (K from 0): every N-th case starting at the K-th,
                         in the order the cases are loaded, so N runs with K = 0..N-1 (on N
                         machines, or in a CI matrix) together run each case once; expected
                         failures are judged against every loaded case, so none looks stale
    --per-file N         run only the first N cases (in name order) of each book page and
                         golden file: a quick pass that still reaches every op, for slow
                         backends (CI runs IREE this way)
    --keep-failures DIR  write each failing case to DIR as a standalone module (.hlo), its
                         arguments (.npz, for `xla-spec run --args`), the backend's answer
                         (.answer.npz), the case as a golden file (.json, which `conform` runs
                         again) and a .txt with the message and the commands that reproduce both
                         answers; files already in DIR are never replaced
    -h, --help           show this help

Prints each failing case with its whole message (the first differing elements with their
indices, values and ULPs; XFAIL/XPASS/STALE lines, one each, with --expected-failures) and closes
with `N passed, N failed, N skipped` (plus the expected-failure counts).
Exit status: 0 when no case failed unexpectedly, 1 when some did, 2 on a usage error.
";

struct Opts {
    paths: Vec<PathBuf>,
    backend: Option<String>,
    filters: Vec<String>,
    report: Option<PathBuf>,
    report_md: Option<PathBuf>,
    report_title: String,
    expected: Option<PathBuf>,
    timeout: Duration,
    jobs: usize,
    shard: Option<(usize, usize)>,
    per_file: Option<usize>,
    keep: Option<PathBuf>,
}

fn parse(args: &[String]) -> Result<Option<Opts>, String> {
    let mut o = Opts {
        paths: vec![],
        backend: None,
        filters: vec![],
        report: None,
        report_md: None,
        report_title: "Conformance report".into(),
        expected: None,
        timeout: DEFAULT_TIMEOUT,
        jobs: 1,
        shard: None,
        per_file: None,
        keep: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => return Ok(None),
            "--backend" => o.backend = Some(flag_value(&mut it, a)?.to_string()),
            "--filter" => o.filters.push(flag_value(&mut it, a)?.to_string()),
            "--report" => o.report = Some(PathBuf::from(flag_value(&mut it, a)?)),
            "--report-md" => o.report_md = Some(PathBuf::from(flag_value(&mut it, a)?)),
            "--report-title" => o.report_title = flag_value(&mut it, a)?.to_string(),
            "--expected-failures" => o.expected = Some(PathBuf::from(flag_value(&mut it, a)?)),
            "--timeout" => o.timeout = timeout_value(&mut it, a)?,
            "--jobs" => {
                let v = flag_value(&mut it, a)?;
                o.jobs = v
                    .parse()
                    .ok()
                    .filter(|n| (1..=256).contains(n))
                    .ok_or_else(|| format!("--jobs takes 1 to 256, got {v:?}"))?;
            }
            "--shard" => {
                let v = flag_value(&mut it, a)?;
                let parsed = v
                    .split_once('/')
                    .and_then(|(k, n)| Some((k.parse::<usize>().ok()?, n.parse::<usize>().ok()?)))
                    .filter(|&(k, n)| n >= 1 && k < n);
                o.shard = Some(parsed.ok_or_else(|| {
                    format!("--shard takes K/N with 0 <= K < N (e.g. 0/4), got {v:?}")
                })?);
            }
            "--per-file" => {
                let v = flag_value(&mut it, a)?;
                o.per_file =
                    Some(v.parse().ok().filter(|n: &usize| *n >= 1).ok_or_else(|| {
                        format!("--per-file takes a count of 1 or more, got {v:?}")
                    })?);
            }
            "--keep-failures" => o.keep = Some(PathBuf::from(flag_value(&mut it, a)?)),
            s if s.starts_with("--") => {
                return Err(format!("unknown option {s} (see `xla-spec help conform`)"));
            }
            p => o.paths.push(PathBuf::from(p)),
        }
    }
    if o.paths.is_empty() {
        o.paths = ["book", "golden"]
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.exists())
            .collect();
        if o.paths.is_empty() {
            return Err("no book/ or golden/ directory here; give the PATHs to run".into());
        }
    }
    Ok(Some(o))
}

/// Every file a case was loaded from (the report must not overwrite one of them).
fn input_files(cases: &[Case]) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = cases
        .iter()
        .filter_map(|c| c.origin.file.canonicalize().ok())
        .collect();
    v.sort();
    v.dedup();
    v
}

pub fn main(args: &[String]) -> i32 {
    let o = match parse(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            out!("{HELP}");
            return 0;
        }
        Err(m) => return usage(&m),
    };
    let expected = match &o.expected {
        None => None,
        Some(p) => {
            let text = match std::fs::read_to_string(p) {
                Ok(t) => t,
                Err(e) => return usage(&format!("cannot read {}: {e}", p.display())),
            };
            match ExpectedFailures::parse(&text) {
                Ok(x) => Some(x),
                Err(m) => return usage(&format!("{}: {m}", p.display())),
            }
        }
    };
    let mut cases: Vec<Case> = Vec::new();
    for p in &o.paths {
        cases.extend(load_path(p));
    }
    // Staleness is judged against every loaded case, so --filter does not make entries stale.
    let known: Vec<String> = cases.iter().map(|c| c.name.clone()).collect();
    if !o.filters.is_empty() {
        cases.retain(|c| o.filters.iter().any(|f| c.name.contains(f.as_str())));
    }
    if let Some(n) = o.per_file {
        cases = first_per_file(cases, n);
    }
    if let Some((k, n)) = o.shard {
        cases = shard(&cases, k, n);
    }
    let inputs = input_files(&cases);
    for (flag, out) in [("--report", &o.report), ("--report-md", &o.report_md)] {
        let Some(r) = out else { continue };
        let target = r
            .canonicalize()
            .ok()
            .or_else(|| std::path::absolute(r).ok());
        let clobbers = target.is_some_and(|t| {
            inputs.contains(&t)
                || o.expected.as_ref().and_then(|x| x.canonicalize().ok()) == Some(t)
        });
        if clobbers {
            return usage(&format!(
                "{flag} {} would overwrite an input file",
                r.display()
            ));
        }
    }
    let total = cases.len();
    let progress = Progress::new(total);
    let on_done = |c: &Case, out: &Outcome| progress.done(c, out);
    let (name, outcomes) = match &o.backend {
        None => {
            let name = crate::backend::ReferenceBackend::default().name();
            (
                name,
                run_reference_parallel(&cases, &RunOptions::default(), &on_done),
            )
        }
        Some(cmd) => {
            let mut first = ProcessBackend::new(cmd, o.timeout);
            // Names the backend in the reports when it answers (the protocol makes it optional).
            let _ = first.info();
            let name = first.name();
            let mut backends: Vec<Box<dyn Backend>> = vec![Box::new(first)];
            for _ in 1..o.jobs.min(cases.len().max(1)) {
                backends.push(Box::new(ProcessBackend::new(cmd, o.timeout)));
            }
            (name, run_jobs(&cases, backends, &on_done))
        }
    };
    progress.finish();
    let mut report = Report::new(name, &cases, outcomes);
    if let Some(x) = expected {
        report = report.with_expected(x, &known);
    }
    let mut out = std::io::stdout().lock();
    for i in 0..report.entries.len() {
        let (n, _, oc) = &report.entries[i];
        let tag = match report.verdict(i) {
            Verdict::Failed => "FAIL",
            Verdict::ExpectedFailure => "XFAIL",
            Verdict::UnexpectedPass => "XPASS",
            _ => continue,
        };
        let why = match report.verdict(i) {
            Verdict::UnexpectedPass => "listed as an expected failure, but it passed".to_string(),
            // An unexpected failure is what the reader must act on: its whole message (the first
            // differing elements with their ULPs, how many differ), indented under the name.
            Verdict::Failed => full_reason(&oc.message),
            _ => short_reason(&oc.message),
        };
        let _ = writeln!(out, "{tag} {n}: {why}");
    }
    for &k in &report.stale {
        let _ = writeln!(
            out,
            "STALE expected failure {}: matches no case",
            report.expected.entries[k].selector
        );
    }
    let _ = writeln!(out, "{}", report.summary());
    let _ = out.flush();
    drop(out);
    if let Some(dir) = &o.keep {
        let run = Run {
            backend_cmd: o.backend.as_deref(),
            backend_name: &report.backend,
            program: "xla-spec",
        };
        let mut kept = 0;
        for (i, case) in cases.iter().enumerate() {
            let (_, _, oc) = &report.entries[i];
            if oc.status != Status::Failed {
                continue;
            }
            let listed = report.verdict(i) == Verdict::ExpectedFailure;
            match keep(dir, case, oc, listed, &run) {
                Ok(_) => kept += 1,
                Err(m) => errln!("xla-spec conform: --keep-failures: {}", one_line(&m)),
            }
        }
        if kept > 0 {
            outln!("{kept} failing case(s) written to {}", dir.display());
        }
    }
    let mut writes = vec![];
    if let Some(path) = &o.report {
        let text = serde_json::to_string_pretty(&report.to_json()).unwrap_or_default();
        writes.push((path, text + "\n"));
    }
    if let Some(path) = &o.report_md {
        writes.push((path, report.to_markdown(&o.report_title) + "\n"));
    }
    for (path, text) in writes {
        if let Err(e) = std::fs::write(path, text) {
            errln!(
                "xla-spec conform: {}",
                one_line(&format!("cannot write {}: {e}", path.display()))
            );
            return 2;
        }
    }
    if report.unexpected_failures() == 0 {
        0
    } else {
        1
    }
}

/// The first `n` cases of each file the cases came from (they arrive sorted by name).
fn first_per_file(cases: Vec<Case>, n: usize) -> Vec<Case> {
    let mut seen: std::collections::HashMap<PathBuf, usize> = Default::default();
    cases
        .into_iter()
        .filter(|c| {
            let k = seen.entry(c.origin.file.clone()).or_insert(0);
            *k += 1;
            *k <= n
        })
        .collect()
}

/// A failure message for a FAIL line: its first lines, the continuation lines indented.
fn full_reason(message: &str) -> String {
    const LINES: usize = 12;
    let mut lines: Vec<String> = message
        .lines()
        .take(LINES)
        .map(|l| crate::error::shorten(l, 300))
        .collect();
    let more = message.lines().count().saturating_sub(LINES);
    if more > 0 {
        lines.push(format!("... ({more} more line(s))"));
    }
    lines.join("\n    ")
}

/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
struct Progress {
    total: usize,
    done: AtomicUsize,
    failed: AtomicUsize,
    tty: bool,
    lock: Mutex<()>,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress {
            total,
            done: AtomicUsize::new(0),
            failed: AtomicUsize::new(0),
            tty: std::io::stderr().is_terminal(),
            lock: Mutex::new(()),
        }
    }
    fn done(&self, c: &Case, o: &Outcome) {
        let n = self.done.fetch_add(1, Ordering::SeqCst) + 1;
        if o.status == Status::Failed {
            self.failed.fetch_add(1, Ordering::SeqCst);
        }
        if !self.tty {
            return;
        }
        let _g = self.lock.lock();
        let width = 30;
        let filled = (n * width).checked_div(self.total).unwrap_or(width);
        let name: String = c.name.chars().take(50).collect();
        err!(
            "\r\x1b[K[{}{}] {n}/{} ({} failed) {name}",
            "#".repeat(filled),
            "-".repeat(width - filled),
            self.total,
            self.failed.load(Ordering::SeqCst)
        );
    }
    fn finish(&self) {
        if self.tty {
            err!("\r\x1b[K");
        }
    }
}
