//! Differential fuzzing (`xla-spec fuzz`): random valid modules run on a backend and on the
//! reference runtime, compared with the suite's own rules; each disagreement is shrunk and kept
//! as a candidate golden case holding both answers.
//!
//! The loop is deterministic for a seed: case `k` draws from its own stream (`seed` mixed with
//! `k`), so a finding is reproduced by its case seed alone, whatever ran before it.

pub mod draw;

use crate::backend::{Backend, Request};
use crate::conformance::Tolerance;
use crate::conformance::compare::compare_with;
use crate::error::Error;
use crate::hlo::printer::print_module;
use crate::literal::{Array, ArrayData, Literal, literal_to_json};
use crate::shape::ArrayShape;
use crate::verify::{Options as VerifyOptions, parse_and_verify_with};
use draw::{Draft, FAMILIES, Rng};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct Config {
    pub seed: u64,
    /// Stop after this many cases run on the backend (discarded drafts do not count).
    pub cases: Option<u64>,
    /// Stop after this long.
    pub time: Option<Duration>,
    /// Families or op names to draw (empty: all).
    pub ops: Vec<String>,
    /// Where candidate cases are written (`None`: nowhere).
    pub out: Option<PathBuf>,
    /// The largest dimension size drawn.
    pub size: i64,
    /// Draw no subnormal values (see `draw::Rng::no_subnormals`).
    pub no_subnormals: bool,
}

/// One disagreement, shrunk.
#[derive(Clone, Debug)]
pub struct Finding {
    pub family: &'static str,
    pub op: String,
    /// `mismatch` (a different value), or the rule of the backend's error (`backend.crashed`,
    /// `backend.timeout`, `backend.refused`, ...).
    pub kind: String,
    pub case_seed: u64,
    pub message: String,
    /// The candidate golden case (JSON object).
    pub case: Value,
    /// Where the case was written, if it was.
    pub file: Option<PathBuf>,
}

#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Cases run on both sides.
    pub cases: u64,
    /// Drafts the reference refused or failed on (a generator's miss, not a finding).
    pub discarded: u64,
    /// Per op: cases run, disagreements.
    pub per_op: BTreeMap<String, (u64, u64)>,
    pub findings: Vec<Finding>,
    pub elapsed: Duration,
}

/// Every name `--ops` accepts: the families, and the ops the generators draw.
pub fn known_ops() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = FAMILIES.to_vec();
    v.extend(draw::OP_NAMES);
    v
}

fn mix(seed: u64, k: u64) -> u64 {
    let mut r = Rng::new(seed ^ k.wrapping_mul(0xD1B5_4A32_D192_ED03));
    r.next_u64()
}

/// The draft of case seed `s` at `size`; `None` when `ops` excludes what it drew.
pub fn draft_for(s: u64, size: i64, config: &Config) -> Option<Draft> {
    let ops = &config.ops;
    let mut rng = Rng::new(s);
    rng.no_subnormals = config.no_subnormals;
    let families: Vec<&str> = if ops.is_empty() {
        FAMILIES.to_vec()
    } else {
        FAMILIES
            .iter()
            .copied()
            .filter(|f| ops.iter().any(|o| o == f || draw::family_of(o) == Some(*f)))
            .collect()
    };
    if families.is_empty() {
        return None;
    }
    let family = families[rng.below(families.len())];
    let d = draw::draft(family, &mut rng, size);
    let head = d.op.split(' ').next().unwrap_or("");
    let wanted = ops.is_empty()
        || ops
            .iter()
            .any(|o| o == family || o == head || d.op.starts_with(o.as_str()));
    wanted.then_some(d)
}

/// A draft made ready: verified by the reference, printed in full, with the reference's answer
/// (one value per replica).
struct Ready {
    draft: Draft,
    text: String,
    module: crate::hlo::Module,
    want: Vec<Literal>,
}

/// The verifier's options for a draft: a multi-replica draft is verified for its count.
fn verify_options(d: &Draft) -> VerifyOptions {
    VerifyOptions {
        replicas: (d.replicas() > 1).then_some(d.replicas()),
        ..VerifyOptions::default()
    }
}

/// The reference's view of a draft: the verified module, its full text, and every replica's
/// result; an error when the reference refuses or fails (a generator's miss).
pub fn reference(d: &Draft) -> crate::error::Result<(crate::hlo::Module, String, Vec<Literal>)> {
    let opts = verify_options(d);
    let module = parse_and_verify_with(&d.hlo, &opts)?;
    let text = print_module(&module);
    // The printed text must be what the reference verified.
    let module = parse_and_verify_with(&text, &opts)?;
    let outs = crate::eval::run_replicated(&module, d.args.clone(), &Default::default())?;
    Ok((module, text, outs.into_iter().map(|o| o.result).collect()))
}

fn prepare(draft: Draft) -> Option<Ready> {
    let (module, text, want) = reference(&draft).ok()?;
    Some(Ready {
        draft,
        text,
        module,
        want,
    })
}

fn tolerance(r: &Ready) -> Option<Tolerance> {
    if !r.draft.approximate {
        return None;
    }
    let ty = r.want.first().and_then(|w| w.as_array()).map(|a| a.ty())?;
    use crate::types::ElementType::*;
    // Complex results are judged part by part, as their component type.
    Some(match ty {
        F64 | C128 => Tolerance {
            atol: 1e-13,
            rtol: 1e-12,
            ulp: Some(64),
        },
        F32 | C64 => Tolerance {
            atol: 1e-6,
            rtol: 1e-5,
            ulp: Some(16),
        },
        _ => Tolerance {
            atol: 1e-3,
            rtol: 1e-2,
            ulp: Some(2),
        },
    })
}

/// Where the result is a sum in an order of the implementation's choosing, or the larger or
/// smaller of two zeros, the sign of a zero result is the implementation's (the case's latitude).
fn zero_sign(r: &Ready) -> bool {
    r.draft.zero_sign_free
}

/// What the backend did with a ready case.
enum Verdict {
    Agree,
    /// Another value (for some replica): every replica's answer.
    Mismatch {
        got: Vec<Literal>,
        message: String,
    },
    Error(Error),
}

fn judge(r: &Ready, backend: &mut dyn Backend) -> Verdict {
    let req = Request {
        hlo: &r.text,
        module: Some(&r.module),
        args: &r.draft.args,
        infeed: &[],
    };
    let resp = match backend.execute(&req) {
        Err(e) => return Verdict::Error(e),
        Ok(resp) => resp,
    };
    if resp.results.len() != r.want.len() {
        return Verdict::Mismatch {
            message: format!(
                "the backend returned {} result(s) for {} replica(s)",
                resp.results.len(),
                r.want.len()
            ),
            got: resp.results,
        };
    }
    let multi = r.want.len() > 1;
    for (k, (got, want)) in resp.results.iter().zip(&r.want).enumerate() {
        if let Err(m) = compare_with(got, want, tolerance(r).as_ref(), zero_sign(r)) {
            return Verdict::Mismatch {
                message: if multi {
                    format!("replica {k}: {m}")
                } else {
                    m
                },
                got: resp.results,
            };
        }
    }
    Verdict::Agree
}

fn kind_of(v: &Verdict) -> String {
    match v {
        Verdict::Agree => "agree".into(),
        Verdict::Mismatch { .. } => "mismatch".into(),
        Verdict::Error(e) => e.rule.clone().unwrap_or_else(|| "error".into()),
    }
}

/// The text with the layouts of rank-0 shapes dropped: `f32[]{0,1}` -> `f32[]`, for a program
/// whose dimensions were cut to none.
fn without_scalar_layouts(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("[]{") {
        out.push_str(&rest[..i + 2]);
        rest = &rest[i + 2..];
        match rest.find('}') {
            Some(j) if rest[1..j].chars().all(|c| c.is_ascii_digit() || c == ',') => {
                rest = &rest[j + 1..];
            }
            _ => {}
        }
    }
    out.push_str(rest);
    out
}

/// The rank-0 program of element `i` of an element-wise draft whose result has dimensions
/// `dims`: the same instructions on element `i` of every operand. Its answer must be element `i`
/// of the draft's, which makes it both the smallest form of an element-wise disagreement and the
/// scalar twin a vectorised loop is held to.
pub fn scalar_twin(d: &Draft, dims: &[i64], i: usize) -> Option<Draft> {
    if !d.elementwise || d.replicas() != 1 || dims.is_empty() {
        return None;
    }
    let at = |a: &Array| -> Option<Literal> {
        let data = ArrayData::splat(a.data.get(i), 1);
        Array::from_data(ArrayShape::new(a.ty(), vec![]), data)
            .ok()
            .map(Literal::Array)
    };
    let dims_text = format!(
        "[{}]",
        dims.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    let mut t = d.clone();
    t.hlo = without_scalar_layouts(&d.hlo.replace(&dims_text, "[]"));
    t.args = vec![
        d.args[0]
            .iter()
            .map(|a| {
                a.as_array()
                    .filter(|a| a.dims() == dims || a.rank() == 0)
                    .and_then(|a| {
                        if a.rank() == 0 {
                            Some(Literal::Array(a.clone()))
                        } else {
                            at(a)
                        }
                    })
            })
            .collect::<Option<Vec<_>>>()?,
    ];
    Some(t)
}

/// The first differing element of an element-wise disagreement, as a rank-0 program.
fn one_element(r: &Ready, got: &Literal) -> Option<Ready> {
    let (Some(g), Some(w)) = (got.as_array(), r.want.first().and_then(|w| w.as_array())) else {
        return None;
    };
    if g.dims() != w.dims() || g.ty() != w.ty() || w.rank() == 0 {
        return None;
    }
    let tol = tolerance(r);
    let at = |a: &Array, i: usize| -> Option<Literal> {
        let data = ArrayData::splat(a.data.get(i), 1);
        Array::from_data(ArrayShape::new(a.ty(), vec![]), data)
            .ok()
            .map(Literal::Array)
    };
    let i = (0..w.len()).find(|&i| match (at(g, i), at(w, i)) {
        (Some(x), Some(y)) => compare_with(&x, &y, tol.as_ref(), zero_sign(r)).is_err(),
        _ => false,
    })?;
    prepare(scalar_twin(&r.draft, w.dims(), i)?)
}

/// Shrinks a disagreement: one element for element-wise programs, else the smallest size at
/// which the same case seed still disagrees in the same way.
fn shrink(
    r: Ready,
    verdict: Verdict,
    case_seed: u64,
    config: &Config,
    backend: &mut dyn Backend,
) -> (Ready, Verdict) {
    let kind = kind_of(&verdict);
    if let (true, Verdict::Mismatch { got, .. }) = (r.draft.elementwise, &verdict)
        && let Some(small) = got.first().and_then(|g| one_element(&r, g))
    {
        let v = judge(&small, backend);
        if kind_of(&v) == kind {
            return (small, v);
        }
    }
    for size in 1..config.size {
        let Some(d) = draft_for(case_seed, size, config) else {
            continue;
        };
        let Some(small) = prepare(d) else { continue };
        let v = judge(&small, backend);
        if kind_of(&v) == kind {
            return (small, v);
        }
    }
    (r, verdict)
}

/// One value, or (for several replicas) the list of them, as a case file writes them.
fn per_replica_json(v: &[Literal]) -> Value {
    if v.len() == 1 {
        literal_to_json(&v[0])
    } else {
        Value::Array(v.iter().map(literal_to_json).collect())
    }
}

fn candidate(r: &Ready, v: &Verdict, case_seed: u64, config: &Config, backend: &str) -> Value {
    let (answer, message) = match v {
        Verdict::Mismatch { got, message } => (per_replica_json(got), message.clone()),
        Verdict::Error(e) => (json!({"error": e.to_string()}), e.to_string()),
        Verdict::Agree => (Value::Null, String::new()),
    };
    let n = r.draft.replicas();
    let args: Vec<Value> = r
        .draft
        .args
        .iter()
        .map(|a| Value::Array(a.iter().map(literal_to_json).collect()))
        .collect();
    let mut case = json!({
        "name": format!("{}_{case_seed:016x}", slug(&r.draft.op)),
        "description": format!(
            "Found by `xla-spec fuzz --seed {}` (case seed {case_seed:#018x}): {} disagrees with the reference on {}.",
            config.seed, backend, r.draft.op
        ),
        "hlo": r.text,
        "args": if n == 1 { args[0].clone() } else { Value::Array(args) },
        "expected": per_replica_json(&r.want),
        "provenance": {"backend": "xla-spec reference runtime (fuzz candidate: triage before committing)"},
        "fuzz": {
            "seed": config.seed,
            "case_seed": format!("{case_seed:#018x}"),
            "backend": backend,
            "backend_answer": answer,
            "difference": message,
        },
    });
    if n > 1 {
        case["replicas"] = json!(n);
    }
    if zero_sign(r) {
        case["latitude"] = json!({"zero_sign": true});
    }
    if let Some(t) = tolerance(r) {
        let mut o = json!({"atol": t.atol, "rtol": t.rtol});
        if let Some(u) = t.ulp {
            o["ulp"] = json!(u);
        }
        case["tolerance"] = o;
    }
    case
}

fn slug(op: &str) -> String {
    op.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect::<String>()
        .trim_matches('_')
        .chars()
        .take(40)
        .collect()
}

/// Writes a candidate without replacing anything: an existing file gets a numbered sibling.
fn write_candidate(dir: &Path, name: &str, case: &Value) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let body = serde_json::to_string_pretty(&json!({ "cases": [case] })).unwrap_or_default();
    for k in 0..1000 {
        let file = if k == 0 {
            dir.join(format!("{name}.json"))
        } else {
            dir.join(format!("{name}-{k}.json"))
        };
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&file)
        {
            Ok(mut f) => {
                use std::io::Write;
                f.write_all(body.as_bytes())?;
                f.write_all(b"\n")?;
                return Ok(file);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(
        "1000 files of that name already exist",
    ))
}

/// Runs a campaign. `progress` is called after every case (for a terminal status line).
pub fn run(
    config: &Config,
    backend: &mut dyn Backend,
    progress: &mut dyn FnMut(&Summary),
) -> Summary {
    let start = Instant::now();
    let name = backend.name();
    let mut s = Summary::default();
    let mut k: u64 = 0;
    // Drafts that the filter skips or the reference refuses cost no backend time; bound them
    // anyway, so a filter that matches nothing the generators draw cannot spin forever.
    let mut misses_in_a_row = 0u64;
    loop {
        if config.cases.is_some_and(|n| s.cases >= n)
            || config.time.is_some_and(|t| start.elapsed() >= t)
            || misses_in_a_row > 100_000
        {
            break;
        }
        let case_seed = mix(config.seed, k);
        k += 1;
        let Some(d) = draft_for(case_seed, config.size, config) else {
            misses_in_a_row += 1;
            continue;
        };
        let Some(r) = prepare(d) else {
            s.discarded += 1;
            misses_in_a_row += 1;
            continue;
        };
        misses_in_a_row = 0;
        let op = r.draft.op.clone();
        let entry = s
            .per_op
            .entry(op.split(' ').next().unwrap_or("").to_string());
        let counts = entry.or_default();
        counts.0 += 1;
        s.cases += 1;
        let v = judge(&r, backend);
        if !matches!(v, Verdict::Agree) {
            counts.1 += 1;
            let (r, v) = shrink(r, v, case_seed, config, backend);
            let case = candidate(&r, &v, case_seed, config, &name);
            let file = config.out.as_ref().and_then(|dir| {
                let n = case["name"].as_str().unwrap_or("case").to_string();
                write_candidate(dir, &n, &case).ok()
            });
            s.findings.push(Finding {
                family: r.draft.family,
                op: r.draft.op.clone(),
                kind: kind_of(&v),
                case_seed,
                message: match &v {
                    Verdict::Mismatch { message, .. } => message.clone(),
                    Verdict::Error(e) => e.to_string(),
                    Verdict::Agree => String::new(),
                },
                case,
                file,
            });
        }
        s.elapsed = start.elapsed();
        progress(&s);
    }
    s.elapsed = start.elapsed();
    s
}

#[cfg(test)]
mod tests;
