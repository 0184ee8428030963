//! `xla-spec run FILE.hlo [ARG...]`.

use super::{flag_value, one_line};
use crate::error::Error;
use crate::eval::{RunOptions, run_replicated};
use crate::hlo::parse_literal;
use crate::literal::npy::{self, Target};
use crate::literal::{Literal, literal_from_json};
use crate::shape::Shape;
use crate::verify::{Options, parse_and_verify_with};
use std::path::Path;

pub const HELP: &str = "\
xla-spec run FILE.hlo [OPTIONS] [ARG...]

Evaluates the ENTRY computation of the module in FILE.hlo on the reference runtime and prints its
result in HLO literal text on stdout (values written by outfeed follow, one per line, prefixed
`outfeed: `).

ARG is one argument per ENTRY parameter, in order: a literal in HLO literal text such as
'f32[2] {1, 2}' or '(f32[] 1, s32[] 2)', @FILE.json holding a JSON literal
({\"shape\": \"f32[2]\", \"data\": [1, 2]}), or @FILE.npy holding a NumPy array (its dtype and
shape must be the parameter's: float32 for f32, ml_dtypes.bfloat16 (saved as '<V2') for bf16).

OPTIONS:
    --args FILE.npz         every argument from one NumPy archive (numpy.savez): parameter i is
                            the array named argI, else the one named like the parameter, else
                            arr_I (numpy.savez's positional names); an archive with none of those
                            names is read in its own order; with replicas, arrays named
                            replicaK_argI give replica K its own arguments
    --out FILE.npz          write the result to FILE.npz instead of printing it: a lone array as
                            out0, the elements of a tuple as out0, out1, ... (out1_0 inside a
                            nested tuple); with replicas, replicaK_out0, ...; an existing FILE is
                            kept unless --force is given
    --force                 let --out replace an existing file
    --infeed FILE.json      a JSON list of literals that infeed reads, in order
    --replicas N            run N replicas; give either one argument list (every replica gets the
                            same arguments) or N lists one after another (replica 0's arguments
                            first); each replica's result is printed as `replica K: VALUE`
    --max-iterations N      fail when any while loop runs more than N iterations
    -h, --help              show this help

Exit status: 0 success; 1 a runtime error; 2 a malformed or invalid module, a bad argument, an
unreadable file or a usage error. Errors are one line on stderr.
";

fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

fn json_file(path: &str) -> Result<serde_json::Value, String> {
    let text = read(path)?;
    serde_json::from_str(&text).map_err(|e| format!("{path}: malformed JSON: {e}"))
}

fn argument(a: &str, target: &Target) -> Result<Literal, String> {
    if let Some(path) = a.strip_prefix('@') {
        if path.ends_with(".npy") {
            return npy::read_npy(Path::new(path), target).map_err(|e| e.to_string());
        }
        let v = json_file(path)?;
        literal_from_json(&v).map_err(|e| format!("{path}: {e}"))
    } else {
        parse_literal(a).map_err(|e| format!("argument {a:?}: {e}"))
    }
}

pub fn main(args: &[String]) -> i32 {
    match run(args) {
        Ok(()) => 0,
        Err((code, msg)) => {
            errln!("xla-spec run: {}", one_line(&msg));
            code
        }
    }
}

fn bad(msg: String) -> (i32, String) {
    (2, msg)
}

/// 2 for an invalid program or argument (what a verifier or a caller got wrong), 1 for a failure
/// while running (a runtime error, or an internal one).
pub fn exit_code(e: &Error) -> i32 {
    if e.is_invalid_program() { 2 } else { 1 }
}

fn run(args: &[String]) -> Result<(), (i32, String)> {
    let mut file = None;
    let mut lits: Vec<String> = Vec::new();
    let mut opts = RunOptions::default();
    let mut replicas: Option<usize> = None;
    let mut npz_args: Option<String> = None;
    let mut out: Option<String> = None;
    let mut force = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => {
                out!("{HELP}");
                return Ok(());
            }
            "--infeed" => {
                let path = flag_value(&mut it, a).map_err(bad)?;
                let v = json_file(path).map_err(bad)?;
                let list = v.as_array().ok_or_else(|| {
                    bad(format!("{path}: --infeed takes a JSON list of literals"))
                })?;
                opts.infeed = list
                    .iter()
                    .map(|l| literal_from_json(l).map_err(|e| bad(format!("{path}: {e}"))))
                    .collect::<Result<_, _>>()?;
            }
            "--replicas" => {
                let v = flag_value(&mut it, a).map_err(bad)?;
                replicas = Some(
                    v.parse()
                        .ok()
                        .filter(|n| (1..=1024).contains(n))
                        .ok_or_else(|| bad(format!("--replicas takes 1 to 1024, got {v:?}")))?,
                );
            }
            "--args" => npz_args = Some(flag_value(&mut it, a).map_err(bad)?.to_string()),
            "--out" => out = Some(flag_value(&mut it, a).map_err(bad)?.to_string()),
            "--force" => force = true,
            "--max-iterations" => {
                let v = flag_value(&mut it, a).map_err(bad)?;
                opts.max_while_iterations = v
                    .parse()
                    .map_err(|_| bad(format!("--max-iterations takes a count, got {v:?}")))?;
            }
            s if s.starts_with("--") => {
                return Err(bad(format!("unknown option {s} (see `xla-spec help run`)")));
            }
            _ if file.is_none() => file = Some(a.clone()),
            _ => lits.push(a.clone()),
        }
    }
    let Some(file) = file else {
        return Err(bad(
            "usage: xla-spec run FILE.hlo [ARG...] (see `xla-spec help run`)".into(),
        ));
    };
    if let Some(out) = &out {
        if !out.ends_with(".npz") {
            return Err(bad(format!(
                "--out writes a NumPy archive: give a FILE.npz, got {out:?}"
            )));
        }
        // Checked before running, so a long run does not end in a refusal to write.
        if !force && Path::new(out).exists() {
            return Err(bad(format!(
                "{out} exists; --out does not replace a file unless --force is given"
            )));
        }
    }
    if npz_args.is_some() && !lits.is_empty() {
        return Err(bad(
            "give the arguments either with --args FILE.npz or one by one, not both".into(),
        ));
    }
    let text = read(&file).map_err(bad)?;
    let verify = Options {
        replicas,
        ..Options::default()
    };
    let module = parse_and_verify_with(&text, &verify).map_err(|e| bad(format!("{file}: {e}")))?;
    // Without --replicas, the header's replica_count (else 1).
    let replicas = module.replicas();
    let entry_params = module.entry().parameters();
    let params = entry_params.len();
    let targets: Vec<(String, Shape)> = entry_params
        .iter()
        .map(|p| (p.name.clone(), p.shape.clone()))
        .collect();
    let target = |i: usize| Target {
        index: i,
        name: &targets[i].0,
        shape: &targets[i].1,
    };
    let all: Vec<Target> = (0..params).map(target).collect();
    let per_replica_npz = match &npz_args {
        Some(path) if replicas > 1 => npy::read_npz_replica_args(Path::new(path), &all, replicas)
            .map_err(|e| bad(e.to_string()))?,
        _ => None,
    };
    let values: Vec<Literal> = if let Some(lists) = &per_replica_npz {
        lists.concat()
    } else if let Some(path) = &npz_args {
        npy::read_npz_args(Path::new(path), &all).map_err(|e| bad(e.to_string()))?
    } else {
        lits.iter()
            .enumerate()
            .map(|(k, a)| {
                if params == 0 {
                    // Too many arguments: the count check below says so.
                    parse_literal(a).map_err(|e| format!("argument {a:?}: {e}"))
                } else {
                    argument(a, &target(k % params))
                }
            })
            .collect::<Result<_, _>>()
            .map_err(bad)?
    };
    let per_replica: Vec<Vec<Literal>> = if replicas == 1 || values.len() == params {
        vec![values; replicas]
    } else if values.len() == params * replicas {
        values.chunks(params.max(1)).map(|c| c.to_vec()).collect()
    } else {
        return Err(bad(format!(
            "the entry computation takes {params} argument(s): give {params} (shared by all replicas) or {} ({replicas} replicas x {params}), got {}",
            params * replicas,
            values.len()
        )));
    };
    let outs = run_replicated(&module, per_replica, &opts)
        .map_err(|e: Error| (exit_code(&e), e.to_string()))?;
    let multi = outs.len() > 1;
    if let Some(path) = &out {
        let mut arrays = Vec::new();
        for (k, o) in outs.iter().enumerate() {
            let prefix = if multi {
                format!("replica{k}_out")
            } else {
                "out".to_string()
            };
            arrays.extend(npy::result_arrays(&o.result, &prefix));
        }
        npy::write_npz(Path::new(path), &arrays).map_err(|e| (1, e.to_string()))?;
        for (name, a) in &arrays {
            outln!("{name}: {} -> {path}", a.shape);
        }
        for (k, o) in outs.iter().enumerate() {
            let prefix = if multi {
                format!("replica {k}: ")
            } else {
                String::new()
            };
            for v in &o.outfeed {
                outln!("{prefix}outfeed: {v}");
            }
        }
        return Ok(());
    }
    for (k, o) in outs.iter().enumerate() {
        let prefix = if multi {
            format!("replica {k}: ")
        } else {
            String::new()
        };
        outln!("{prefix}{}", o.result);
        for v in &o.outfeed {
            outln!("{prefix}outfeed: {v}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_by_error_kind() {
        assert_eq!(exit_code(&Error::runtime("empty infeed")), 1);
        assert_eq!(exit_code(&Error::internal("bug")), 1);
        assert_eq!(exit_code(&Error::invalid("hlo.arity", "x")), 2);
    }
}
