//! Golden cases: JSON files under `golden/`, each holding one case object or
//! `{"cases": [{"name": "...", ...}, ...]}`. The format is in the book's "Golden case format"
//! chapter and in `golden/schema.json`; fields this reader does not know are ignored.

use super::case::{Case, CaseBody, Expect, Latitude, Origin, RunCase, Tolerance};
use crate::literal::{Literal, literal_from_json};
use serde_json::{Map, Value};
use std::path::Path;

/// Loads the cases of one golden file. Problems become malformed cases, never panics.
pub fn load_file(root: &Path, path: &Path) -> Vec<Case> {
    let base = format!("golden::{}", super::relative_name(path, root, &["golden"]));
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            return vec![Case::malformed(
                base,
                Origin::file(path),
                format!("cannot read file: {e}"),
            )];
        }
    };
    load_text(&base, path, &text)
}

/// Loads the cases in `text`, naming them under `base` (`golden::<area>::<file>`).
pub fn load_text(base: &str, path: &Path, text: &str) -> Vec<Case> {
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return vec![Case::malformed(
                base.to_string(),
                Origin::at(path, e.line()),
                format!("malformed JSON (column {}): {e}", e.column()),
            )];
        }
    };
    let Some(obj) = value.as_object() else {
        return vec![Case::malformed(
            base.to_string(),
            Origin::at(path, 1),
            "a golden file holds a case object or {\"cases\": [...]}".into(),
        )];
    };
    // A JSON Schema (`golden/schema.json`) describes cases; it is not one.
    if obj.contains_key("$schema") {
        return vec![];
    }
    let Some(cases) = obj.get("cases") else {
        return vec![one_case(base.to_string(), Origin::at(path, 1), obj)];
    };
    let Some(list) = cases.as_array() else {
        return vec![Case::malformed(
            base.to_string(),
            Origin::at(path, line_of(text, "\"cases\"")),
            "\"cases\" must be a list of case objects".into(),
        )];
    };
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, c) in list.iter().enumerate() {
        let name = c.get("name").and_then(Value::as_str);
        let origin = Origin::at(
            path,
            name.map(|n| line_of(text, &format!("\"{n}\"")))
                .unwrap_or(0),
        );
        let (case_name, problem) = match name {
            Some(n) if valid_name(n) && seen.insert(n.to_string()) => (n.to_string(), None),
            Some(n) if valid_name(n) => (
                format!("{n}_duplicate_{i}"),
                Some(format!("case name `{n}` is used twice in this file")),
            ),
            Some(n) => (
                format!("case_{i}"),
                Some(format!(
                    "case name {n:?} must be made of a-z, 0-9, `_` and `-`"
                )),
            ),
            None => (
                format!("case_{i}"),
                Some(format!("case {i} of \"cases\" has no \"name\"")),
            ),
        };
        let full = format!("{base}::{case_name}");
        out.push(match (problem, c.as_object()) {
            (Some(p), _) => Case::malformed(full, origin, p),
            (None, Some(o)) => one_case(full, origin, o),
            (None, None) => Case::malformed(full, origin, "a case must be a JSON object".into()),
        });
    }
    out
}

fn valid_name(n: &str) -> bool {
    !n.is_empty()
        && n.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// The 1-based line of the first occurrence of `needle` (1 if absent).
fn line_of(text: &str, needle: &str) -> usize {
    text.find(needle)
        .map(|i| text[..i].matches('\n').count() + 1)
        .unwrap_or(1)
}

fn one_case(name: String, origin: Origin, obj: &Map<String, Value>) -> Case {
    match parse_case(obj) {
        Ok(rc) => Case {
            name,
            origin,
            body: CaseBody::Run(rc),
        },
        Err(m) => Case::malformed(name, origin, m),
    }
}

/// Reads one case object.
pub fn parse_case(obj: &Map<String, Value>) -> Result<RunCase, String> {
    let hlo = obj
        .get("hlo")
        .and_then(Value::as_str)
        .ok_or("a case needs \"hlo\" (the module as a string)")?
        .to_string();
    let replicas = match obj.get("replicas") {
        None => 1,
        Some(v) => match v.as_u64() {
            Some(n) if (1..=1024).contains(&n) => n as usize,
            _ => {
                return Err(format!(
                    "\"replicas\" must be an integer from 1 to 1024, got {v}"
                ));
            }
        },
    };
    let per_replica = replicas > 1;
    let args = match obj.get("args") {
        None => vec![vec![]; replicas],
        Some(v) if per_replica => {
            let lists = per_replica_lists(v, replicas, "args")?;
            lists
                .iter()
                .enumerate()
                .map(|(r, l)| literals(l, &format!("args[{r}]")))
                .collect::<Result<_, _>>()?
        }
        Some(v) => vec![literals(v, "args")?],
    };
    let expect = match (obj.get("expected"), obj.get("expected_error")) {
        (Some(_), Some(_)) => {
            return Err("a case has either \"expected\" or \"expected_error\", not both".into());
        }
        (None, None) => return Err("a case needs \"expected\" or \"expected_error\"".into()),
        (None, Some(e)) => Expect::Error(
            e.as_str()
                .ok_or("\"expected_error\" must be a string")?
                .to_string(),
        ),
        (Some(v), None) if per_replica => {
            let vals = literals(v, "expected")?;
            if vals.len() != replicas {
                return Err(format!(
                    "with \"replicas\": {replicas}, \"expected\" lists one value per replica, got {}",
                    vals.len()
                ));
            }
            Expect::Values(vals)
        }
        (Some(v), None) => Expect::Values(vec![literal(v, "expected")?]),
    };
    let tolerance = obj.get("tolerance").map(parse_tolerance).transpose()?;
    let infeed = match obj.get("infeed") {
        Some(v) => literals(v, "infeed")?,
        None => vec![],
    };
    let expected_outfeed = match obj.get("expected_outfeed") {
        None => None,
        Some(v) if per_replica => Some(
            per_replica_lists(v, replicas, "expected_outfeed")?
                .iter()
                .enumerate()
                .map(|(r, l)| literals(l, &format!("expected_outfeed[{r}]")))
                .collect::<Result<_, _>>()?,
        ),
        Some(v) => Some(vec![literals(v, "expected_outfeed")?]),
    };
    // Where the expected value came from (`xla-spec golden record` writes it): informational, but
    // it must say which backend, so a recorded case cannot lose its origin silently.
    if let Some(p) = obj.get("provenance") {
        let backend = p.get("backend").and_then(Value::as_str);
        if !p.is_object() || backend.is_none_or(|b| b.trim().is_empty()) {
            return Err(
                "\"provenance\" must be an object naming the \"backend\" the expected value came from"
                    .into(),
            );
        }
    }
    let rules = match obj.get("rules") {
        None => vec![],
        Some(Value::Array(a)) => a
            .iter()
            .map(|r| {
                r.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| "\"rules\" must list strings".to_string())
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("\"rules\" must be a list of rule labels".into()),
    };
    let latitude = match obj.get("latitude") {
        None => Latitude::default(),
        Some(v) => parse_latitude(v, replicas, &expect)?,
    };
    Ok(RunCase {
        description: obj
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string),
        hlo,
        args,
        expect,
        tolerance,
        infeed,
        expected_outfeed,
        rules,
        latitude,
    })
}

/// `{"zero_sign": true, "any_value": true, "any_outcome": true, "also": [VALUE, ...]}`, each key
/// optional; with replicas every `also` entry lists one value per replica like `expected`.
fn parse_latitude(v: &Value, replicas: usize, expect: &Expect) -> Result<Latitude, String> {
    let obj = v.as_object().ok_or(
        "\"latitude\" must be an object such as {\"zero_sign\": true} or {\"also\": [VALUE]}",
    )?;
    let mut lat = Latitude::default();
    for (k, x) in obj {
        if k == "also" {
            let list = x
                .as_array()
                .ok_or("latitude \"also\" must be a list of values")?;
            for (i, a) in list.iter().enumerate() {
                let what = format!("latitude.also[{i}]");
                let vals = if replicas > 1 {
                    let vals = literals(a, &what)?;
                    if vals.len() != replicas {
                        return Err(format!(
                            "with \"replicas\": {replicas}, {what} lists one value per replica, got {}",
                            vals.len()
                        ));
                    }
                    vals
                } else {
                    vec![literal(a, &what)?]
                };
                lat.also.push(vals);
            }
        } else if Latitude::WORDS.contains(&k.as_str()) {
            match x {
                Value::Bool(true) => {
                    lat.set(k);
                }
                Value::Bool(false) => {}
                _ => return Err(format!("latitude \"{k}\" must be true or false")),
            }
        } else {
            return Err(format!(
                "unknown latitude key \"{k}\" (allowed: {}, also)",
                Latitude::WORDS.join(", ")
            ));
        }
    }
    check_latitude(&lat, expect)?;
    Ok(lat)
}

/// Latitude about values needs values to be about; an `also` answer must have the expected
/// answer's shape (so a typo cannot turn into a second, unrelated allowed answer).
pub fn check_latitude(lat: &Latitude, expect: &Expect) -> Result<(), String> {
    match expect {
        Expect::Error(_) if lat.zero_sign || lat.any_value || !lat.also.is_empty() => Err(
            "latitude about values (zero_sign, any_value, also) needs an expected value, not an expected error"
                .into(),
        ),
        Expect::Values(want) => {
            for alt in &lat.also {
                if alt.len() != want.len() {
                    return Err(format!(
                        "an allowed answer (latitude also) lists {} value(s) for {} replica(s)",
                        alt.len(),
                        want.len()
                    ));
                }
                for (a, w) in alt.iter().zip(want) {
                    super::compare::same_shape(a, w)
                        .map_err(|m| format!("an allowed answer (latitude also) has a {m}"))?;
                }
            }
            Ok(())
        }
        Expect::Error(_) => Ok(()),
    }
}

fn per_replica_lists<'v>(v: &'v Value, replicas: usize, what: &str) -> Result<&'v [Value], String> {
    match v.as_array() {
        Some(a) if a.len() == replicas => Ok(a),
        _ => Err(format!(
            "with \"replicas\": {replicas}, \"{what}\" must be a list of {replicas} lists (one per replica)"
        )),
    }
}

fn literal(v: &Value, what: &str) -> Result<Literal, String> {
    literal_from_json(v).map_err(|e| format!("{what}: {}", e.message))
}

fn literals(v: &Value, what: &str) -> Result<Vec<Literal>, String> {
    let a = v
        .as_array()
        .ok_or_else(|| format!("\"{what}\" must be a list of literals"))?;
    a.iter()
        .enumerate()
        .map(|(i, l)| literal(l, &format!("{what}[{i}]")))
        .collect()
}

/// `{"atol": A, "rtol": R}` and/or `{"ulp": N}`.
pub fn parse_tolerance(v: &Value) -> Result<Tolerance, String> {
    let obj = v
        .as_object()
        .ok_or("\"tolerance\" must be an object such as {\"atol\": 1e-6, \"rtol\": 1e-5}")?;
    let num = |k: &str| -> Result<f64, String> {
        match obj.get(k) {
            None => Ok(0.0),
            Some(x) => match x.as_f64() {
                Some(f) if f >= 0.0 && f.is_finite() => Ok(f),
                _ => Err(format!(
                    "tolerance \"{k}\" must be a non-negative number, got {x}"
                )),
            },
        }
    };
    for k in obj.keys() {
        if !matches!(k.as_str(), "atol" | "rtol" | "ulp") {
            return Err(format!(
                "unknown tolerance key \"{k}\" (allowed: atol, rtol, ulp)"
            ));
        }
    }
    let ulp =
        match obj.get("ulp") {
            None => None,
            Some(x) => Some(x.as_u64().ok_or_else(|| {
                format!("tolerance \"ulp\" must be a non-negative integer, got {x}")
            })?),
        };
    if obj.is_empty() {
        return Err("an empty tolerance; omit it for exact comparison".into());
    }
    Ok(Tolerance {
        atol: num("atol")?,
        rtol: num("rtol")?,
        ulp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_json_names_the_line() {
        let cases = load_text("golden::x", Path::new("g/x.json"), "{\n\"hlo\": \n}");
        assert_eq!(cases.len(), 1);
        match &cases[0].body {
            CaseBody::Malformed(m) => assert!(m.starts_with("g/x.json:3:"), "{m}"),
            _ => panic!("expected a malformed case"),
        }
    }

    #[test]
    fn provenance_is_accepted_and_checked() {
        let case = |p: &str| {
            format!(
                r#"{{"hlo": "h", "expected": {{"shape": "f32[]", "data": [1]}}, "provenance": {p}}}"#
            )
        };
        let ok = load_text(
            "golden::x",
            Path::new("x.json"),
            &case(r#"{"backend": "xla-cpu", "version": "jaxlib 0.10.2", "random_args_seed": 3}"#),
        );
        assert!(matches!(ok[0].body, CaseBody::Run(_)));
        for bad in [r#""xla""#, r#"{"version": "1"}"#, r#"{"backend": ""}"#] {
            let c = load_text("golden::x", Path::new("x.json"), &case(bad));
            match &c[0].body {
                CaseBody::Malformed(m) => assert!(m.contains("\"provenance\""), "{m}"),
                _ => panic!("{bad} was accepted"),
            }
        }
    }

    #[test]
    fn case_lists_are_named() {
        let t = r#"{"cases": [
          {"name": "a", "hlo": "h", "expected": {"shape": "f32[]", "data": [1]}},
          {"name": "b", "hlo": "h", "expected_error": "x.y"},
          {"hlo": "h", "expected_error": "x.y"}]}"#;
        let cases = load_text("golden::m::f", Path::new("f.json"), t);
        let names: Vec<_> = cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["golden::m::f::a", "golden::m::f::b", "golden::m::f::case_2"]
        );
        assert!(matches!(cases[2].body, CaseBody::Malformed(_)));
        assert_eq!(cases[1].origin.line, 3);
        // A JSON Schema next to the cases is not a case.
        assert!(
            load_text(
                "golden::schema",
                Path::new("schema.json"),
                r#"{"$schema": "x"}"#
            )
            .is_empty()
        );
    }
}
