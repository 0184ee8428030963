//! `xla-spec golden record FILE.hlo [ARG...] --backend CMD --out FILE.json`: writes a golden case
//! whose expected value comes from another backend (XLA, typically), so the suite holds cases whose
//! answers did not come from our own runtime.

use super::{flag_value, one_line, timeout_value};
use crate::backend::process::{DEFAULT_TIMEOUT, ProcessBackend};
use crate::backend::{Backend, Request};
use crate::conformance::golden::{parse_case, parse_tolerance};
use crate::hlo::{Module, Opcode, parse_literal};
use crate::literal::{Literal, literal_from_json, literal_to_json};
use crate::shape::{ArrayShape, Shape};
use crate::types::ElementType;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const HELP: &str = "\
xla-spec golden record FILE.hlo [ARG...] --backend CMD --out FILE.json [OPTIONS]

Runs the module in FILE.hlo on an external backend and writes a golden case whose expected value
is the backend's answer, with the backend's name and version (its answer to the protocol's `info`
request) and the command line in the case's \"provenance\".

ARG is one argument per ENTRY parameter, as for `xla-spec run`: HLO literal text such as
'f32[2] {1, 2}', or @FILE.json holding a JSON literal.

OPTIONS:
    --backend CMD         the backend (a shell command speaking the JSON-lines protocol)
    --out FILE.json       where to write the case (normally golden/<op>/<name>.json)
    --name NAME           add the case under NAME to the file's {\"cases\": [...]} list (the file is
                          created when missing); without --name the file holds this one case
    --random-args         draw the arguments instead of giving them: small exact values per
                          element type (floats are multiples of 1/8 in [-4, 4)), and integer
                          parameters used as indices (dynamic-slice/dynamic-update-slice starts,
                          gather/scatter indices) drawn inside the indexed operand
    --seed N              the seed for --random-args (default 1); recorded in the provenance
    --replicas N          run N replicas (every replica gets the same given arguments, or its own
                          draw with --random-args)
    --description TEXT    the case's description
    --tolerance JSON      the case's tolerance, e.g. '{\"ulp\": 2}' or '{\"atol\": 1e-6, \"rtol\": 1e-5}'
    --timeout SECS        how long to wait for the backend (default 60)
    --force               replace an existing file (or, with --name, an existing case of that name)
    -h, --help            show this help

Exit status: 0 the case was written; 1 the backend refused the module or failed; 2 a usage error,
an invalid module or argument, or an output that exists (without --force).
";

pub fn main(args: &[String]) -> i32 {
    match args.first().map(String::as_str) {
        Some("record") => match record(&args[1..]) {
            Ok(()) => 0,
            Err((code, msg)) => {
                errln!("xla-spec golden record: {}", one_line(&msg));
                code
            }
        },
        Some("-h" | "--help") | None => {
            out!("{HELP}");
            if args.is_empty() { 2 } else { 0 }
        }
        Some(other) => super::usage(&format!(
            "unknown golden subcommand `{other}` (the one there is: `golden record`)"
        )),
    }
}

fn bad(msg: String) -> (i32, String) {
    (2, msg)
}

struct Opts {
    file: Option<String>,
    lits: Vec<String>,
    backend: Option<String>,
    out: Option<PathBuf>,
    name: Option<String>,
    random: bool,
    seed: u64,
    replicas: usize,
    description: Option<String>,
    tolerance: Option<Value>,
    timeout: Duration,
    force: bool,
}

fn parse(args: &[String]) -> Result<Option<Opts>, String> {
    let mut o = Opts {
        file: None,
        lits: vec![],
        backend: None,
        out: None,
        name: None,
        random: false,
        seed: 1,
        replicas: 1,
        description: None,
        tolerance: None,
        timeout: DEFAULT_TIMEOUT,
        force: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => return Ok(None),
            "--backend" => o.backend = Some(flag_value(&mut it, a)?.to_string()),
            "--out" => o.out = Some(PathBuf::from(flag_value(&mut it, a)?)),
            "--name" => {
                let n = flag_value(&mut it, a)?;
                if n.is_empty()
                    || !n.bytes().all(|b| {
                        b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-'
                    })
                {
                    return Err(format!(
                        "--name must be made of a-z, 0-9, `_` and `-`, got {n:?}"
                    ));
                }
                o.name = Some(n.to_string());
            }
            "--random-args" => o.random = true,
            "--seed" => {
                let v = flag_value(&mut it, a)?;
                o.seed = v
                    .parse()
                    .map_err(|_| format!("--seed takes a non-negative integer, got {v:?}"))?;
            }
            "--replicas" => {
                let v = flag_value(&mut it, a)?;
                o.replicas = v
                    .parse()
                    .ok()
                    .filter(|n| (1..=1024).contains(n))
                    .ok_or_else(|| format!("--replicas takes 1 to 1024, got {v:?}"))?;
            }
            "--description" => o.description = Some(flag_value(&mut it, a)?.to_string()),
            "--tolerance" => {
                let v = flag_value(&mut it, a)?;
                let j: Value = serde_json::from_str(v)
                    .map_err(|e| format!("--tolerance takes a JSON object: {e}"))?;
                parse_tolerance(&j).map_err(|m| format!("--tolerance: {m}"))?;
                o.tolerance = Some(j);
            }
            "--timeout" => o.timeout = timeout_value(&mut it, a)?,
            "--force" => o.force = true,
            s if s.starts_with("--") => {
                return Err(format!("unknown option {s} (see `xla-spec help golden`)"));
            }
            _ if o.file.is_none() => o.file = Some(a.clone()),
            _ => o.lits.push(a.clone()),
        }
    }
    Ok(Some(o))
}

fn record(args: &[String]) -> Result<(), (i32, String)> {
    let Some(o) = parse(args).map_err(bad)? else {
        out!("{HELP}");
        return Ok(());
    };
    let usage = "usage: xla-spec golden record FILE.hlo [ARG...] --backend CMD --out FILE.json";
    let Some(file) = &o.file else {
        return Err(bad(usage.into()));
    };
    let (Some(cmd), Some(out)) = (&o.backend, &o.out) else {
        return Err(bad(format!("{usage} (--backend and --out are required)")));
    };
    if o.random && !o.lits.is_empty() {
        return Err(bad("give either ARGs or --random-args, not both".into()));
    }
    let text =
        std::fs::read_to_string(file).map_err(|e| bad(format!("cannot read {file}: {e}")))?;
    let verify = crate::verify::Options {
        replicas: (o.replicas > 1).then_some(o.replicas),
        ..Default::default()
    };
    let module = crate::verify::parse_and_verify_with(&text, &verify)
        .map_err(|e| bad(format!("{file}: {e}")))?;
    // Without --replicas, the header's replica_count (else 1).
    let replicas = module.replicas();
    if same_file(Path::new(file), out) {
        return Err(bad(format!(
            "--out {} is the module file itself",
            out.display()
        )));
    }
    // Check the output before running anything, so a refusal costs nothing.
    let existing = read_existing(out, o.name.as_deref(), o.force)?;

    let params = module.entry().parameter_shapes();
    let per_replica: Vec<Vec<Literal>> = if o.random {
        let mut rng = SplitMix(o.seed);
        let bounds = index_bounds(&module);
        (0..replicas)
            .map(|_| {
                params
                    .iter()
                    .enumerate()
                    .map(|(i, s)| random_literal(s, bounds.get(&i).copied(), &mut rng))
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<_, _>>()
            .map_err(bad)?
    } else {
        let values: Vec<Literal> = o
            .lits
            .iter()
            .map(|a| argument(a))
            .collect::<Result<_, _>>()
            .map_err(bad)?;
        if values.len() != params.len() {
            return Err(bad(format!(
                "the entry computation takes {} argument(s), got {}",
                params.len(),
                values.len()
            )));
        }
        vec![values; replicas]
    };

    let mut backend = ProcessBackend::new(cmd, o.timeout);
    let info = backend.info();
    let req = Request {
        hlo: &text,
        module: Some(&module),
        args: &per_replica,
        infeed: &[],
    };
    let resp = backend
        .execute(&req)
        .map_err(|e| (1, format!("the backend gave no value: {e}")))?;

    let mut case = Map::new();
    if let Some(n) = &o.name {
        case.insert("name".into(), json!(n));
    }
    let description = o.description.clone().unwrap_or_else(|| {
        format!(
            "Expected value recorded from {} by `xla-spec golden record`.",
            backend.name()
        )
    });
    case.insert("description".into(), json!(description));
    case.insert("hlo".into(), json!(text));
    let lits = |l: &[Literal]| Value::Array(l.iter().map(literal_to_json).collect());
    if replicas > 1 {
        case.insert("replicas".into(), json!(replicas));
        case.insert(
            "args".into(),
            Value::Array(per_replica.iter().map(|a| lits(a)).collect()),
        );
        case.insert("expected".into(), lits(&resp.results));
    } else {
        case.insert("args".into(), lits(&per_replica[0]));
        let Some(r) = resp.results.first() else {
            return Err((1, "the backend returned no result".into()));
        };
        case.insert("expected".into(), literal_to_json(r));
    }
    if let Some(t) = &o.tolerance {
        case.insert("tolerance".into(), t.clone());
    }
    let mut prov = Map::new();
    match &info {
        Some(i) => {
            prov.insert("backend".into(), json!(i.name));
            prov.insert("version".into(), json!(i.version));
        }
        None => {
            prov.insert("backend".into(), json!(cmd));
            prov.insert("version".into(), json!("unknown (no answer to `info`)"));
        }
    }
    prov.insert("command".into(), json!(cmd));
    prov.insert("tool".into(), json!("xla-spec golden record"));
    if o.random {
        prov.insert("random_args_seed".into(), json!(o.seed));
    }
    case.insert("provenance".into(), Value::Object(prov));
    // What we write must load back as a case.
    parse_case(&case).map_err(|m| (1, format!("the recorded case does not load: {m}")))?;

    let doc = match (existing, &o.name) {
        (Some(mut doc), Some(n)) => {
            let list = doc
                .get_mut("cases")
                .and_then(Value::as_array_mut)
                .ok_or_else(|| (1, "internal: case list vanished".to_string()))?;
            match list.iter().position(|c| c["name"] == json!(n)) {
                Some(i) => list[i] = Value::Object(case),
                None => list.push(Value::Object(case)),
            }
            doc
        }
        (_, Some(_)) => json!({"cases": [Value::Object(case)]}),
        (_, None) => Value::Object(case),
    };
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| bad(format!("cannot create {}: {e}", dir.display())))?;
    }
    let mut text = String::new();
    write_json(&doc, 0, &mut text);
    text.push('\n');
    std::fs::write(out, text).map_err(|e| bad(format!("cannot write {}: {e}", out.display())))?;
    outln!(
        "{}{}: recorded from {}",
        out.display(),
        o.name
            .as_ref()
            .map(|n| format!("::{n}"))
            .unwrap_or_default(),
        backend.name()
    );
    Ok(())
}

/// Keys of a case in the order a reader expects them; others follow alphabetically.
const KEY_ORDER: [&str; 14] = [
    "shape",
    "data",
    "cases",
    "name",
    "description",
    "hlo",
    "replicas",
    "args",
    "expected",
    "tolerance",
    "provenance",
    "backend",
    "version",
    "command",
];

/// Pretty JSON, but a list of numbers (a literal's data) stays on one line.
fn write_json(v: &Value, indent: usize, out: &mut String) {
    let pad = |n: usize| "  ".repeat(n);
    match v {
        Value::Array(a)
            if a.iter()
                .all(|x| !x.is_object() && !x.is_array() || is_pair(x)) =>
        {
            out.push_str(
                &serde_json::to_string(v)
                    .unwrap_or_default()
                    .replace(',', ", "),
            );
        }
        Value::Array(a) => {
            out.push_str("[\n");
            for (i, x) in a.iter().enumerate() {
                out.push_str(&pad(indent + 1));
                write_json(x, indent + 1, out);
                out.push_str(if i + 1 < a.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(indent));
            out.push(']');
        }
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort_by_key(|k| {
                (
                    KEY_ORDER.iter().position(|x| x == k).unwrap_or(usize::MAX),
                    k.to_string(),
                )
            });
            out.push_str("{\n");
            for (i, k) in keys.iter().enumerate() {
                out.push_str(&pad(indent + 1));
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push_str(": ");
                write_json(&o[k.as_str()], indent + 1, out);
                out.push_str(if i + 1 < keys.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(indent));
            out.push('}');
        }
        _ => out.push_str(&serde_json::to_string(v).unwrap_or_default()),
    }
}

/// A complex element `[re, im]`.
fn is_pair(v: &Value) -> bool {
    v.as_array()
        .is_some_and(|a| a.len() == 2 && a.iter().all(|x| !x.is_object() && !x.is_array()))
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// The output file's current document when a named case is to be added to it; refuses to replace
/// anything without `force`.
fn read_existing(
    out: &Path,
    name: Option<&str>,
    force: bool,
) -> Result<Option<Value>, (i32, String)> {
    if !out.exists() {
        return Ok(None);
    }
    let Some(name) = name else {
        return if force {
            Ok(None)
        } else {
            Err(bad(format!(
                "{} exists; pass --force to replace it",
                out.display()
            )))
        };
    };
    let text = std::fs::read_to_string(out)
        .map_err(|e| bad(format!("cannot read {}: {e}", out.display())))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| {
        bad(format!(
            "{} exists and is not JSON ({e}); not touching it",
            out.display()
        ))
    })?;
    let Some(list) = doc.get("cases").and_then(Value::as_array) else {
        return Err(bad(format!(
            "{} exists and holds no {{\"cases\": [...]}} list to add to; not touching it",
            out.display()
        )));
    };
    if !force && list.iter().any(|c| c["name"] == json!(name)) {
        return Err(bad(format!(
            "{} already has a case named `{name}`; pass --force to replace it",
            out.display()
        )));
    }
    Ok(Some(doc))
}

fn argument(a: &str) -> Result<Literal, String> {
    if let Some(path) = a.strip_prefix('@') {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let v: Value =
            serde_json::from_str(&text).map_err(|e| format!("{path}: malformed JSON: {e}"))?;
        literal_from_json(&v).map_err(|e| format!("{path}: {e}"))
    } else {
        parse_literal(a).map_err(|e| format!("argument {a:?}: {e}"))
    }
}

/// For each ENTRY parameter used as an index operand, the exclusive upper bound its values are
/// drawn below: the smallest dimension of the operand it indexes (so every index is in range for
/// every dimension), at least 1.
fn index_bounds(module: &Module) -> std::collections::HashMap<usize, i64> {
    let entry = module.entry();
    let mut bounds = std::collections::HashMap::new();
    let param_of = |id: usize| -> Option<usize> {
        let ins = entry.instructions.get(id)?;
        usize::try_from(ins.parameter_number()?).ok()
    };
    let min_dim = |id: usize| -> i64 {
        match entry.instructions.get(id).map(|i| &i.shape) {
            Some(Shape::Array(a)) => a.dims.iter().copied().min().unwrap_or(1).max(1),
            _ => 1,
        }
    };
    for ins in &entry.instructions {
        let ops = &ins.operands;
        // (index operands, the operand they index)
        let indexed: Vec<(usize, usize)> = match ins.opcode() {
            Opcode::DynamicSlice if !ops.is_empty() => {
                ops[1..].iter().map(|&i| (i, ops[0])).collect()
            }
            Opcode::DynamicUpdateSlice if ops.len() > 2 => {
                ops[2..].iter().map(|&i| (i, ops[0])).collect()
            }
            Opcode::Gather if ops.len() == 2 => vec![(ops[1], ops[0])],
            // scatter(operands..., indices, updates...): n operands, 1 indices, n updates.
            Opcode::Scatter if ops.len() >= 3 && ops.len() % 2 == 1 => {
                let n = ops.len() / 2;
                vec![(ops[n], ops[0])]
            }
            _ => vec![],
        };
        for (idx, target) in indexed {
            if let Some(p) = param_of(idx) {
                let b = min_dim(target);
                let e = bounds.entry(p).or_insert(b);
                *e = (*e).min(b);
            }
        }
    }
    bounds
}

/// SplitMix64: a tiny, well-known generator, so a seed means the same draw everywhere.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [lo, hi).
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo).max(1) as u64;
        lo + (self.next() % span) as i64
    }
}

fn random_literal(
    s: &Shape,
    index_bound: Option<i64>,
    rng: &mut SplitMix,
) -> Result<Literal, String> {
    match s {
        Shape::Token => Ok(Literal::Token),
        Shape::Tuple(elems) => Ok(Literal::Tuple(
            elems
                .iter()
                .map(|e| random_literal(e, None, rng))
                .collect::<Result<_, _>>()?,
        )),
        Shape::Array(a) => random_array(a, index_bound, rng),
    }
}

fn random_array(
    a: &ArrayShape,
    index_bound: Option<i64>,
    rng: &mut SplitMix,
) -> Result<Literal, String> {
    let n: i64 = a.dims.iter().product();
    if n > 1 << 20 {
        return Err(format!(
            "parameter {a} is too large to draw random arguments for"
        ));
    }
    let ty = a.ty;
    let mut scalar = || -> Value {
        if let Some(b) = index_bound.filter(|_| ty.is_integer()) {
            return json!(rng.range(0, b));
        }
        match ty {
            ElementType::Pred => json!(rng.next() & 1 == 1),
            t if t.is_signed_int() => json!(rng.range(-8, 8)),
            t if t.is_unsigned_int() => json!(rng.range(0, 16)),
            t if t.is_complex() => {
                json!([
                    rng.range(-32, 32) as f64 / 8.0,
                    rng.range(-32, 32) as f64 / 8.0
                ])
            }
            _ => json!(rng.range(-32, 32) as f64 / 8.0),
        }
    };
    let data: Vec<Value> = (0..n).map(|_| scalar()).collect();
    // Dynamic dimensions are drawn at their bound; the layout is the default.
    let shape = ArrayShape::new(ty, a.dims.clone());
    literal_from_json(&json!({"shape": shape.to_string(), "data": data}))
        .map_err(|e| format!("internal: a drawn argument for {a} does not load: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_parameters_are_drawn_in_range() {
        let m = crate::verify::parse_and_verify(
            "HloModule m\nENTRY e {\n  x = f32[5,3] parameter(0)\n  i = s32[] parameter(1)\n  j = s32[] parameter(2)\n  ROOT d = f32[2,2] dynamic-slice(x, i, j), dynamic_slice_sizes={2,2}\n}\n",
        )
        .unwrap();
        let b = index_bounds(&m);
        assert_eq!(b.get(&1), Some(&3));
        assert_eq!(b.get(&2), Some(&3));
        assert_eq!(b.get(&0), None);
        let mut rng = SplitMix(7);
        for _ in 0..200 {
            let Literal::Array(a) =
                random_literal(&Shape::scalar(ElementType::S32), Some(3), &mut rng).unwrap()
            else {
                panic!()
            };
            let v = a.data.get(0).as_f64();
            assert!((0.0..3.0).contains(&v), "{v}");
        }
    }

    #[test]
    fn draws_are_exact_and_reproducible() {
        let s = Shape::Tuple(vec![
            Shape::array(ElementType::BF16, vec![4]),
            Shape::array(ElementType::U8, vec![2]),
            Shape::Token,
        ]);
        let a = random_literal(&s, None, &mut SplitMix(3)).unwrap();
        let b = random_literal(&s, None, &mut SplitMix(3)).unwrap();
        let c = random_literal(&s, None, &mut SplitMix(4)).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let Literal::Tuple(parts) = &a else { panic!() };
        let Literal::Array(f) = &parts[0] else {
            panic!()
        };
        for i in 0..4 {
            let x = f.data.get(i).as_f64();
            assert_eq!((x * 8.0).fract(), 0.0, "{x}");
            assert!((-4.0..4.0).contains(&x));
        }
        assert_eq!(parts[2], Literal::Token);
    }
}
