//! Failing cases written out whole (`xla-spec conform --keep-failures DIR`), so a person can take
//! one failure away from the suite and work on it: for a case named `a::b::c`, in `DIR`,
//! - `a__b__c.hlo`, the module;
//! - `a__b__c.npz`, its arguments (`arg0`, `arg1`, ...; `replicaK_argI` with replicas), as
//!   `xla-spec run --args` reads them (left out when an argument is a tuple or a token, which
//!   NumPy cannot hold);
//! - `a__b__c.answer.npz`, the values the backend answered, when it answered wrong ones;
//! - `a__b__c.json`, the case as a standalone golden file (with its latitude and tolerance), which
//!   `xla-spec conform FILE --backend CMD` runs again on the backend;
//! - `a__b__c.txt`, the failure message and the commands that reproduce both answers.
//!
//! Nothing already in `DIR` is replaced: a case whose files exist is reported and skipped.

use super::case::{Case, CaseBody, Expect, RunCase};
use super::runner::Outcome;
use crate::literal::npy::{result_arrays, write_npz};
use crate::literal::{Array, Literal, literal_to_json};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The file stem for a case name: `::` becomes `__`, anything but ASCII letters, digits, `-`, `_`
/// and `.` becomes `_`.
pub fn stem(name: &str) -> String {
    name.replace("::", "__")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// What `--keep-failures` needs to know about the run.
pub struct Run<'a> {
    /// The backend's command line, when the run was not on the reference runtime.
    pub backend_cmd: Option<&'a str>,
    /// The backend's name as the report gives it.
    pub backend_name: &'a str,
    /// The program to name in the commands (normally `xla-spec`).
    pub program: &'a str,
}

/// Writes one failing case into `dir` (created when missing); returns the files written.
pub fn keep(
    dir: &Path,
    case: &Case,
    outcome: &Outcome,
    listed: bool,
    run: &Run,
) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let stem = stem(&case.name);
    let path = |ext: &str| dir.join(format!("{stem}.{ext}"));
    let mut files: Vec<(PathBuf, Contents)> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut commands: Vec<String> = Vec::new();
    if let CaseBody::Run(rc) = &case.body {
        let hlo = path("hlo");
        let json = path("json");
        files.push((hlo.clone(), Contents::Text(rc.hlo.clone())));
        files.push((
            json.clone(),
            Contents::Text(pretty(&case_json(&case.name, rc))),
        ));
        let replicas = rc.args.len();
        let mut run_cmd = format!(
            "{} run {}",
            run.program,
            shell_quote(&hlo.to_string_lossy())
        );
        match argument_arrays(rc) {
            Some(arrays) if !arrays.is_empty() => {
                let npz = path("npz");
                run_cmd.push_str(&format!(" --args {}", shell_quote(&npz.to_string_lossy())));
                files.push((npz, Contents::Npz(arrays)));
            }
            Some(_) => {}
            None => notes.push(
                "An argument is a tuple or a token, which a NumPy archive cannot hold: the \
                 arguments are in the .json case only."
                    .into(),
            ),
        }
        if !rc.infeed.is_empty() {
            let infeed = path("infeed.json");
            let list: Vec<Value> = rc.infeed.iter().map(literal_to_json).collect();
            run_cmd.push_str(&format!(
                " --infeed {}",
                shell_quote(&infeed.to_string_lossy())
            ));
            files.push((infeed, Contents::Text(pretty(&Value::Array(list)))));
        }
        if replicas > 1 {
            run_cmd.push_str(&format!(" --replicas {replicas}"));
        }
        commands.push(format!("# the reference runtime's answer\n{run_cmd}"));
        let conform = format!(
            "{} conform {}",
            run.program,
            shell_quote(&json.to_string_lossy())
        );
        commands.push(match run.backend_cmd {
            Some(cmd) => format!(
                "# the case again on the backend\n{conform} --backend {}",
                shell_quote(cmd)
            ),
            None => format!("# the case again\n{conform}"),
        });
        if let Some(answer) = &outcome.answer {
            let mut arrays: Vec<(String, Array)> = Vec::new();
            for (k, v) in answer.iter().enumerate() {
                let prefix = if answer.len() > 1 {
                    format!("replica{k}_out")
                } else {
                    "out".to_string()
                };
                for (n, a) in result_arrays(v, &prefix) {
                    arrays.push((n, a.clone()));
                }
            }
            if !arrays.is_empty() {
                files.push((path("answer.npz"), Contents::Npz(arrays)));
            }
        }
    }
    if let Some((p, _)) = files.iter().find(|(p, _)| p.exists()) {
        return Err(format!(
            "{} exists; --keep-failures does not replace files (choose an empty directory)",
            p.display()
        ));
    }
    let txt = path("txt");
    if txt.exists() {
        return Err(format!(
            "{} exists; --keep-failures does not replace files (choose an empty directory)",
            txt.display()
        ));
    }
    let mut text = format!(
        "{}\nfrom {}\nfailed on {}{}\n\n{}\n",
        case.name,
        case.origin,
        run.backend_name,
        if listed {
            " (listed as an expected failure)"
        } else {
            ""
        },
        outcome.message
    );
    for n in &notes {
        text.push_str(&format!("\n{n}\n"));
    }
    if !commands.is_empty() {
        text.push('\n');
        text.push_str(&commands.join("\n"));
        text.push('\n');
    }
    files.push((txt, Contents::Text(text)));
    let mut written = Vec::new();
    for (p, c) in files {
        match c {
            Contents::Text(t) => write_new(&p, t.as_bytes())?,
            Contents::Npz(arrays) => {
                let named: Vec<(String, &Array)> =
                    arrays.iter().map(|(n, a)| (n.clone(), a)).collect();
                write_npz(&p, &named).map_err(|e| e.to_string())?;
            }
        }
        written.push(p);
    }
    Ok(written)
}

enum Contents {
    Text(String),
    Npz(Vec<(String, Array)>),
}

/// Creates `path` with `bytes`, failing if it exists.
fn write_new(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    f.write_all(bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The arguments named as `xla-spec run --args` reads them, or `None` when one is not an array.
fn argument_arrays(rc: &RunCase) -> Option<Vec<(String, Array)>> {
    let multi = rc.args.len() > 1;
    let mut out = Vec::new();
    for (k, list) in rc.args.iter().enumerate() {
        for (i, l) in list.iter().enumerate() {
            let Literal::Array(a) = l else { return None };
            let name = if multi {
                format!("replica{k}_arg{i}")
            } else {
                format!("arg{i}")
            };
            out.push((name, a.clone()));
        }
    }
    Some(out)
}

/// The case in the golden file format (the book's "Case format" chapter).
pub fn case_json(name: &str, rc: &RunCase) -> Value {
    let replicas = rc.args.len();
    let multi = replicas > 1;
    let list = |v: &[Literal]| Value::Array(v.iter().map(literal_to_json).collect());
    let per_replica = |v: &[Literal]| {
        if multi {
            list(v)
        } else {
            v.first().map(literal_to_json).unwrap_or(Value::Null)
        }
    };
    let mut o = json!({ "name": name.rsplit("::").next().unwrap_or(name) });
    o["description"] = json!(format!(
        "{}Kept by `xla-spec conform --keep-failures` from the case {name}.",
        rc.description
            .as_deref()
            .map(|d| format!("{d} "))
            .unwrap_or_default()
    ));
    o["hlo"] = json!(rc.hlo);
    if multi {
        o["replicas"] = json!(replicas);
        o["args"] = Value::Array(rc.args.iter().map(|a| list(a)).collect());
    } else {
        o["args"] = list(rc.args.first().map(Vec::as_slice).unwrap_or(&[]));
    }
    match &rc.expect {
        Expect::Values(v) => o["expected"] = per_replica(v),
        Expect::Error(e) => o["expected_error"] = json!(e),
    }
    if let Some(t) = &rc.tolerance {
        let mut tj = json!({"atol": t.atol, "rtol": t.rtol});
        if let Some(u) = t.ulp {
            tj["ulp"] = json!(u);
        }
        o["tolerance"] = tj;
    }
    if !rc.latitude.is_none() {
        let l = &rc.latitude;
        let mut lj = json!({});
        for (w, on) in [
            ("zero_sign", l.zero_sign),
            ("any_value", l.any_value),
            ("any_outcome", l.any_outcome),
        ] {
            if on {
                lj[w] = json!(true);
            }
        }
        if !l.also.is_empty() {
            lj["also"] = Value::Array(l.also.iter().map(|a| per_replica(a)).collect());
        }
        o["latitude"] = lj;
    }
    if !rc.infeed.is_empty() {
        o["infeed"] = list(&rc.infeed);
    }
    if let Some(out) = &rc.expected_outfeed {
        o["expected_outfeed"] = if multi {
            Value::Array(out.iter().map(|v| list(v)).collect())
        } else {
            list(out.first().map(Vec::as_slice).unwrap_or(&[]))
        };
    }
    if !rc.rules.is_empty() {
        o["rules"] = json!(rc.rules);
    }
    o
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default() + "\n"
}

/// `s` quoted for a POSIX shell when it needs quoting.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::golden::parse_case;

    #[test]
    fn stems_and_quotes() {
        assert_eq!(stem("book::ops::a b::c"), "book__ops__a_b__c");
        assert_eq!(
            shell_quote("target/x-venv/bin/python"),
            "target/x-venv/bin/python"
        );
        assert_eq!(shell_quote("python b.py"), "'python b.py'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }

    #[test]
    fn the_case_json_reads_back_as_the_same_case() {
        let text = r#"{"hlo": "HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n ROOT r = f32[2] maximum(p, p)\n}\n",
          "replicas": 2,
          "args": [[{"shape": "f32[2]", "data": [1, -0.0]}], [{"shape": "f32[2]", "data": [2, 0]}]],
          "expected": [{"shape": "f32[2]", "data": [1, -0.0]}, {"shape": "f32[2]", "data": [2, 0]}],
          "tolerance": {"ulp": 1},
          "latitude": {"zero_sign": true, "also": [[{"shape": "f32[2]", "data": [1, 1]}, {"shape": "f32[2]", "data": [2, 2]}]]},
          "rules": ["binary.maximum"]}"#;
        let v: Value = serde_json::from_str(text).unwrap();
        let rc = parse_case(v.as_object().unwrap()).unwrap();
        let back = case_json("golden::x::y", &rc);
        let again = parse_case(back.as_object().unwrap()).unwrap();
        assert_eq!(again.args, rc.args);
        assert_eq!(again.expect, rc.expect);
        assert_eq!(again.tolerance, rc.tolerance);
        assert_eq!(again.latitude, rc.latitude);
        assert_eq!(again.rules, rc.rules);
        assert_eq!(back["name"], "y");
    }
}
