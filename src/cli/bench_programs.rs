//! `xla-spec bench --programs`: whole programs (the HLO text JAX lowers, at realistic sizes) timed
//! on the reference runtime, for comparison with XLA:CPU executing the same text
//! (`benches/programs_peers.sh` runs both in one go).
//!
//! The programs and their parameters come from a manifest (`benches/programs/programs.json`,
//! written by `benches/programs/make.py`). Arguments are read from `target/bench-programs/
//! <name>.in.npz` when the peer script has written them (the very values XLA gets); otherwise
//! they are drawn here from the manifest's description (the same kind of values, not the same
//! numbers). What is timed is what XLA's execute measures: evaluation of a verified module on
//! arguments already in memory; parsing and verification are reported on their own.

use crate::eval::{RunOptions, run};
use crate::literal::npy::{self, Target};
use crate::literal::{Array, ArrayData, Literal};
use crate::shape::{ArrayShape, Shape};
use crate::types::ElementType;
use crate::verify::parse_and_verify;
use serde_json::Value;
use std::path::Path;
use std::time::Instant;

/// The default manifest, relative to the directory `xla-spec` runs in.
pub const MANIFEST: &str = "benches/programs/programs.json";

/// Where the peer script writes each program's arguments.
pub const ARGS_DIR: &str = "target/bench-programs";

/// One program's figures.
#[derive(Clone, Debug)]
pub struct Timing {
    pub name: String,
    pub parse_verify_ms: f64,
    pub eval_ms: f64,
    pub runs: Vec<f64>,
    /// `npz` when the arguments came from the peer script's archive, `drawn` otherwise.
    pub args: &'static str,
}

/// A SplitMix64 stream: enough for benchmark arguments, and the same on every machine.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Standard normal (Box-Muller).
    fn normal(&mut self) -> f64 {
        let u = self.unit().max(f64::MIN_POSITIVE);
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
    /// Uniform integer in [lo, hi).
    fn int(&mut self, lo: i128, hi: i128) -> i128 {
        let span = (hi - lo).max(1) as u128;
        lo + (self.next() as u128 % span) as i128
    }
}

/// Values for one parameter as the manifest's `init` describes them.
fn draw_values(init: &Value, n: usize, d: &mut Draw) -> Result<Vec<f64>, String> {
    let kind = init["kind"].as_str().unwrap_or("");
    let num = |k: &str, default: f64| init[k].as_f64().unwrap_or(default);
    let int = |k: &str| init[k].as_f64().map(|x| x as i128);
    match kind {
        "normal" => {
            let (scale, mean) = (num("scale", 1.0), num("mean", 0.0));
            Ok((0..n).map(|_| d.normal() * scale + mean).collect())
        }
        "integers" | "sorted_integers" => {
            let (lo, hi) = (int("low").unwrap_or(0), int("high").unwrap_or(2));
            let nonzero = init["nonzero"].as_bool().unwrap_or(false);
            let mut v: Vec<f64> = (0..n)
                .map(|_| {
                    loop {
                        let x = d.int(lo, hi);
                        if !(nonzero && x == 0) {
                            break x as f64;
                        }
                    }
                })
                .collect();
            if kind == "sorted_integers" {
                v.sort_by(f64::total_cmp);
            }
            Ok(v)
        }
        "distinct" => {
            let scale = num("scale", 1.0);
            let mut perm: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                perm.swap(i, d.int(0, i as i128 + 1) as usize);
            }
            Ok(perm
                .into_iter()
                .map(|p| (p as f64 - n as f64 / 2.0) * scale)
                .collect())
        }
        other => Err(format!("unknown argument kind {other:?}")),
    }
}

/// A literal of `shape` holding `values` (converted to its element type).
fn literal_of(shape: &ArrayShape, values: &[f64]) -> Result<Literal, String> {
    let data = match shape.ty {
        ElementType::F32 => ArrayData::F32(values.iter().map(|&x| x as f32).collect()),
        ElementType::F64 => ArrayData::F64(values.iter().copied().collect()),
        ElementType::BF16 => {
            ArrayData::BF16(values.iter().map(|&x| half::bf16::from_f64(x)).collect())
        }
        ElementType::F16 => {
            ArrayData::F16(values.iter().map(|&x| half::f16::from_f64(x)).collect())
        }
        ElementType::S8 => ArrayData::S8(values.iter().map(|&x| x as i8).collect()),
        ElementType::S16 => ArrayData::S16(values.iter().map(|&x| x as i16).collect()),
        ElementType::S32 => ArrayData::S32(values.iter().map(|&x| x as i32).collect()),
        ElementType::S64 => ArrayData::S64(values.iter().map(|&x| x as i64).collect()),
        ElementType::U8 => ArrayData::U8(values.iter().map(|&x| x as u8).collect()),
        ElementType::U16 => ArrayData::U16(values.iter().map(|&x| x as u16).collect()),
        ElementType::U32 => ArrayData::U32(values.iter().map(|&x| x as u32).collect()),
        ElementType::U64 => ArrayData::U64(values.iter().map(|&x| x as u64).collect()),
        ElementType::Pred => ArrayData::Pred(values.iter().map(|&x| x != 0.0).collect()),
        ElementType::C64 => ArrayData::C64(
            values
                .iter()
                .map(|&x| crate::literal::C64::new(x as f32, 0.0))
                .collect(),
        ),
        ElementType::C128 => ArrayData::C128(
            values
                .iter()
                .map(|&x| crate::literal::C128::new(x, 0.0))
                .collect(),
        ),
        ElementType::Token => return Err("a token parameter".into()),
    };
    Array::from_data(shape.clone(), data)
        .map(Literal::Array)
        .map_err(|e| e.to_string())
}

/// Times one program of the manifest, best of `reps` evaluations.
pub fn time_program(p: &Value, args_dir: &Path, reps: usize) -> Result<Timing, String> {
    let name = p["name"]
        .as_str()
        .ok_or("a program without a name")?
        .to_string();
    let file = p["file"].as_str().ok_or("a program without a file")?;
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let t = Instant::now();
    let module = parse_and_verify(&text).map_err(|e| format!("{file}: {e}"))?;
    let parse_verify_ms = t.elapsed().as_secs_f64() * 1e3;
    let params = module.entry().parameters();
    let shapes: Vec<(String, Shape)> = params
        .iter()
        .map(|q| (q.name.clone(), q.shape.clone()))
        .collect();
    let npz = args_dir.join(format!("{name}.in.npz"));
    let (args, source) = if npz.exists() {
        let targets: Vec<Target> = shapes
            .iter()
            .enumerate()
            .map(|(index, (name, shape))| Target { index, name, shape })
            .collect();
        let args = npy::read_npz_args(&npz, &targets).map_err(|e| e.to_string())?;
        (args, "npz")
    } else {
        let described = p["params"].as_array().ok_or("a program without params")?;
        let mut d = Draw(p["seed"].as_u64().unwrap_or(1));
        let mut args = Vec::with_capacity(shapes.len());
        for (i, (_, shape)) in shapes.iter().enumerate() {
            let shape = shape
                .as_array()
                .ok_or_else(|| format!("parameter {i} is not an array"))?;
            let init = described
                .get(i)
                .map(|q| &q["init"])
                .ok_or_else(|| format!("the manifest describes no parameter {i}"))?;
            let values = draw_values(init, shape.element_count(), &mut d)?;
            args.push(literal_of(shape, &values)?);
        }
        (args, "drawn")
    };
    let opts = RunOptions::default();
    let mut runs = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let a = args.clone();
        let t = Instant::now();
        run(&module, a, &opts).map_err(|e| format!("{name}: {e}"))?;
        runs.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let eval_ms = runs.iter().copied().fold(f64::INFINITY, f64::min);
    Ok(Timing {
        name,
        parse_verify_ms,
        eval_ms,
        runs,
        args: source,
    })
}

/// `xla-spec bench --programs [--manifest FILE] [--args-dir DIR] [--filter TEXT] [--reps N]
/// [--json]`.
pub fn main(args: &[String]) -> i32 {
    let mut manifest = MANIFEST.to_string();
    let mut args_dir = ARGS_DIR.to_string();
    let mut filter = String::new();
    let mut reps = 3usize;
    let mut json = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |what: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{a} takes {what}"))
        };
        let r = match a.as_str() {
            "--programs" => Ok(()),
            "--json" => {
                json = true;
                Ok(())
            }
            "--manifest" => value("a file").map(|v| manifest = v),
            "--args-dir" => value("a directory").map(|v| args_dir = v),
            "--filter" => value("a text").map(|v| filter = v),
            "--reps" => value("a count").and_then(|v| {
                v.parse()
                    .ok()
                    .filter(|&n| n >= 1)
                    .map(|n| reps = n)
                    .ok_or_else(|| format!("--reps takes a positive count, got {v:?}"))
            }),
            other => Err(format!("unknown argument `{other}` (try --help)")),
        };
        if let Err(e) = r {
            errln!("xla-spec bench --programs: {e}");
            return 2;
        }
    }
    let text = match std::fs::read_to_string(&manifest) {
        Ok(t) => t,
        Err(e) => {
            errln!("xla-spec bench --programs: {manifest}: {e} (run from the repository's root)");
            return 2;
        }
    };
    let programs: Vec<Value> = match serde_json::from_str::<Value>(&text) {
        Ok(v) => v["programs"].as_array().cloned().unwrap_or_default(),
        Err(e) => {
            errln!("xla-spec bench --programs: {manifest}: {e}");
            return 2;
        }
    };
    if !json {
        outln!(
            "{:<20} {:>12} {:>10}  args  (best of {reps}; parse and verify apart)",
            "program",
            "eval ms",
            "parse ms"
        );
    }
    let mut status = 0;
    for p in programs
        .iter()
        .filter(|p| p["name"].as_str().is_some_and(|n| n.contains(&filter)))
    {
        match time_program(p, Path::new(&args_dir), reps) {
            Ok(t) if json => outln!(
                "{}",
                serde_json::json!({
                    "program": t.name, "eval_ms": t.eval_ms, "runs_ms": t.runs,
                    "parse_verify_ms": t.parse_verify_ms, "args": t.args,
                    "threads": crate::kernels::pool::threads(),
                })
            ),
            Ok(t) => outln!(
                "{:<20} {:>12.2} {:>10.2}  {}",
                t.name,
                t.eval_ms,
                t.parse_verify_ms,
                t.args
            ),
            Err(e) => {
                errln!("xla-spec bench --programs: {e}");
                status = 1;
            }
        }
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawn_arguments_follow_their_description() {
        let mut d = Draw(7);
        let ints = draw_values(
            &serde_json::json!({"kind": "integers", "low": -3, "high": 4, "nonzero": true}),
            1000,
            &mut d,
        )
        .unwrap();
        assert!(ints.iter().all(|&x| (-3.0..4.0).contains(&x) && x != 0.0));
        let sorted = draw_values(
            &serde_json::json!({"kind": "sorted_integers", "low": 0, "high": 50}),
            100,
            &mut d,
        )
        .unwrap();
        assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
        let distinct = draw_values(
            &serde_json::json!({"kind": "distinct", "scale": 0.5}),
            64,
            &mut d,
        )
        .unwrap();
        let mut s = distinct.clone();
        s.sort_by(f64::total_cmp);
        s.dedup();
        assert_eq!(s.len(), 64);
        let normal = draw_values(
            &serde_json::json!({"kind": "normal", "scale": 2.0, "mean": 1.0}),
            20000,
            &mut d,
        )
        .unwrap();
        let mean = normal.iter().sum::<f64>() / normal.len() as f64;
        assert!((mean - 1.0).abs() < 0.1, "mean {mean}");
        assert!(draw_values(&serde_json::json!({"kind": "cauchy"}), 1, &mut d).is_err());
    }

    #[test]
    fn a_small_manifest_program_is_timed_on_drawn_arguments() {
        let dir = std::env::temp_dir().join(format!("xla-spec-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let hlo = dir.join("p.hlo");
        std::fs::write(
            &hlo,
            "HloModule p\nENTRY e {\n  a = f32[8,8] parameter(0)\n  i = s32[8] parameter(1)\n  ROOT d = f32[8,8] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
        )
        .unwrap();
        let p = serde_json::json!({
            "name": "p", "file": hlo.to_str().unwrap(), "seed": 3,
            "params": [
                {"init": {"kind": "normal", "scale": 1.0, "mean": 0.0}},
                {"init": {"kind": "integers", "low": 0, "high": 8}}
            ]
        });
        let t = time_program(&p, &dir, 2).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!((t.name.as_str(), t.args, t.runs.len()), ("p", "drawn", 2));
        assert!(t.eval_ms >= 0.0 && t.eval_ms <= t.runs[0].max(t.runs[1]));
    }
}
