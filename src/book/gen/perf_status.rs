//! Where the speed targets stand on one machine kind, drawn from its records.
//!
//! A fence ```` ```perf-status ```` holds one line per target, `TARGET | SCOPE | FILE...`:
//! TARGET is `gemm` (the F32 and F64 products of `pairs` or `linalg` records against OpenBLAS,
//! goal at least 1.00), `conv` (the convolutions of `linalg` records against XLA:CPU, at least
//! 1.00), `programs` (evaluation over XLA:CPU's execution, at most 2.00, with results that
//! agree) or `throughput` (times a memory copy's time, at most 2.00; the copies themselves and
//! the naive twins, `memcpy*` and `*_element_by_element`, are yardsticks and left out). SCOPE is
//! free text (the path, the threads). The fence becomes the machine's line and one table row per
//! target: the range measured, the worst row, the records' dates and commits, and whether the
//! goal is met. Every record of one fence must come from one machine kind (the same CPU model,
//! family and model number): a table that mixed machines could call a target met that no single
//! machine met. The verdict is mechanical, so that it cannot be kinder than the figures: `yes`
//! when every row meets the goal; for paired records, `within the spread` when every row short
//! of it has its upper quartile at or past the goal; else `no`, naming the worst row.

use serde_json::Value;
use std::fmt::Write;
use std::path::Path;

type Res<T> = std::result::Result<T, String>;

/// Replaces every `perf-status` fence of a page by the rendered table.
pub fn expand_perf_status(root: &Path, page_path: &str, markdown: &str) -> crate::Result<String> {
    super::perf::expand_fences(page_path, markdown, "perf-status", |body| {
        let mut targets = Vec::new();
        for l in body {
            let parts: Vec<&str> = l.split('|').map(str::trim).collect();
            let [target, scope, files] = parts[..] else {
                return Err(format!("expected `TARGET | SCOPE | FILE...`, found {l:?}"));
            };
            let recs = files
                .split_whitespace()
                .map(|file| Ok((file.to_string(), super::perf::read_record(root, file)?)))
                .collect::<Res<Records>>()?;
            if recs.is_empty() {
                return Err(format!("{target}: no record named"));
            }
            targets.push((target.to_string(), scope.to_string(), recs));
        }
        render(&targets)
    })
}

/// A target's records: (file, record).
type Records = Vec<(String, Value)>;

fn machine_key(rec: &Value) -> String {
    let m = &rec["machine"];
    format!(
        "{} (family {}, model {})",
        m["model"].as_str().unwrap_or("?"),
        m["family"].as_str().unwrap_or("?"),
        m["model_number"].as_str().unwrap_or("?")
    )
}

fn render(targets: &[(String, String, Records)]) -> Res<String> {
    let first = targets
        .first()
        .and_then(|t| t.2.first())
        .ok_or("a status needs at least one target")?;
    let machine = machine_key(&first.1);
    for (_, _, recs) in targets {
        for (file, rec) in recs {
            if machine_key(rec) != machine {
                return Err(format!(
                    "{file} was measured on {}, not on {machine}: one status table per machine",
                    machine_key(rec)
                ));
            }
        }
    }
    let flags = first.1["machine"]["flags"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    let mut out = format!(
        "**{machine}**, {} logical CPUs, flags {}: each row from the records named, \
         xla-spec and its peers measured in the same run.\n\n\
         | target | scope | goal | measured | worst | met | records |\n\
         |---|---|---|---|---|---|---|\n",
        first.1["machine"]["cpus"],
        if flags.is_empty() { "none" } else { &flags }
    );
    for (target, scope, recs) in targets {
        let row = match target.as_str() {
            "gemm" => gemm(recs)?,
            "conv" => conv(recs)?,
            "programs" => programs(recs)?,
            "throughput" => throughput(recs)?,
            t => {
                return Err(format!(
                    "unknown target {t:?} (gemm, conv, programs, throughput)"
                ));
            }
        };
        let sources: Vec<String> = recs
            .iter()
            .map(|(file, rec)| {
                let name = file.rsplit('/').next().unwrap_or(file);
                format!(
                    "`{name}` ({}, `{}`)",
                    rec["started"]
                        .as_str()
                        .and_then(|s| s.get(..10))
                        .unwrap_or("?"),
                    rec["commit"].as_str().unwrap_or("?")
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            row.what,
            scope,
            row.goal,
            row.range,
            row.worst,
            row.met,
            sources.join("; ")
        );
    }
    Ok(out)
}

struct Row {
    what: &'static str,
    goal: &'static str,
    range: String,
    worst: String,
    met: String,
}

/// One measured ratio: the row's name, the ratio, and its quartiles when the record pairs calls.
struct Ratio {
    name: String,
    value: f64,
    upper_quartile: Option<f64>,
}

fn rows(rec: &Value) -> Res<&Vec<Value>> {
    rec["rows"]
        .as_array()
        .ok_or_else(|| "a record without `rows`".to_string())
}

/// The ratio of a `linalg` row against `peer`: the median of its rounds' ratios when it kept
/// them, else the ratio of the bests.
fn linalg_ratio(r: &Value, peer: &str) -> Option<f64> {
    super::perf::round_median(r, peer).or_else(|| {
        let (x, p) = (r["xla_spec"].as_f64()?, r[peer].as_f64()?);
        (p > 0.0).then(|| x / p)
    })
}

/// The verdict and the worst row for ratios whose goal is `at_least` (or at most, when false).
fn judge(
    mut ratios: Vec<Ratio>,
    goal: f64,
    at_least: bool,
    what: &'static str,
    goal_text: &'static str,
) -> Res<Row> {
    if ratios.is_empty() {
        return Err(format!("{what}: the records have no row for this target"));
    }
    let ok = |v: f64| if at_least { v >= goal } else { v <= goal };
    // Worst first.
    ratios.sort_by(|a, b| {
        if at_least {
            a.value.total_cmp(&b.value)
        } else {
            b.value.total_cmp(&a.value)
        }
    });
    let (lo, hi) = ratios.iter().fold((f64::MAX, f64::MIN), |(l, h), r| {
        (l.min(r.value), h.max(r.value))
    });
    let w = &ratios[0];
    let worst = match w.upper_quartile {
        Some(q) => format!("`{}` {:.2} (upper quartile {q:.2})", w.name, w.value),
        None => format!("`{}` {:.2}", w.name, w.value),
    };
    let short: Vec<&Ratio> = ratios.iter().filter(|r| !ok(r.value)).collect();
    let met = if short.is_empty() {
        "yes".to_string()
    } else if short.iter().all(|r| r.upper_quartile.is_some_and(ok)) {
        format!(
            "within the spread ({} of {} rows short)",
            short.len(),
            ratios.len()
        )
    } else {
        format!("**no** ({} of {} rows short)", short.len(), ratios.len())
    };
    Ok(Row {
        what,
        goal: goal_text,
        range: format!("{lo:.2}-{hi:.2} ({} rows)", ratios.len()),
        worst,
        met,
    })
}

/// The target's products: `dot_f32_<n>` and `dot_f64_<n>` (squares), and `..._m<k>_4096` or
/// `..._n<k>_4096` (skinny); not the batched, BF16 or integer rows of the same records.
fn is_gemm_row(name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix("dot_f32_")
        .or_else(|| name.strip_prefix("dot_f64_"))
    else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(rest)
        || rest
            .strip_suffix("_4096")
            .and_then(|s| s.strip_prefix('m').or_else(|| s.strip_prefix('n')))
            .is_some_and(digits)
}

fn gemm(recs: &Records) -> Res<Row> {
    let mut ratios = Vec::new();
    for (file, rec) in recs {
        for r in rows(rec)? {
            let Some(name) = r["name"].as_str().filter(|n| is_gemm_row(n)) else {
                continue;
            };
            match rec["kind"].as_str() {
                Some("pairs") => ratios.push(Ratio {
                    name: name.to_string(),
                    value: r["ratio_median"]
                        .as_f64()
                        .ok_or(format!("{file}: {name}: no ratio_median"))?,
                    upper_quartile: r["ratio_q3"].as_f64(),
                }),
                Some("linalg") => {
                    if let Some(v) = linalg_ratio(r, "openblas") {
                        ratios.push(Ratio {
                            name: name.to_string(),
                            value: v,
                            upper_quartile: None,
                        });
                    }
                }
                k => {
                    return Err(format!(
                        "{file}: a {k:?} record has no GEMM rows (pairs, linalg)"
                    ));
                }
            }
        }
    }
    judge(
        ratios,
        1.0,
        true,
        "GEMM, F32 and F64",
        "xla-spec / OpenBLAS at least 1.00",
    )
}

fn conv(recs: &Records) -> Res<Row> {
    let mut ratios = Vec::new();
    for (file, rec) in recs {
        if rec["kind"].as_str() != Some("linalg") {
            return Err(format!("{file}: convolutions come from `linalg` records"));
        }
        for r in rows(rec)? {
            let Some(name) = r["name"].as_str().filter(|n| n.starts_with("conv_")) else {
                continue;
            };
            if let Some(v) = linalg_ratio(r, "xla_cpu") {
                ratios.push(Ratio {
                    name: name.to_string(),
                    value: v,
                    upper_quartile: None,
                });
            }
        }
    }
    judge(
        ratios,
        1.0,
        true,
        "Convolution",
        "xla-spec / XLA:CPU at least 1.00",
    )
}

fn programs(recs: &Records) -> Res<Row> {
    let mut ratios = Vec::new();
    let mut disagree = Vec::new();
    for (file, rec) in recs {
        if rec["kind"].as_str() != Some("programs") {
            return Err(format!("{file}: programs come from `programs` records"));
        }
        for r in rows(rec)? {
            let name = r["program"]
                .as_str()
                .ok_or(format!("{file}: a row without `program`"))?;
            if r["agree"].as_bool() != Some(true) {
                disagree.push(name.to_string());
            }
            if let (Some(e), Some(x)) =
                (r["xla_spec_eval_ms"].as_f64(), r["xla_execute_ms"].as_f64())
                && x > 0.0
            {
                ratios.push(Ratio {
                    name: name.to_string(),
                    value: e / x,
                    upper_quartile: None,
                });
            }
        }
    }
    let mut row = judge(
        ratios,
        2.0,
        false,
        "Whole programs",
        "evaluation / XLA:CPU execution at most 2.00",
    )?;
    if !disagree.is_empty() {
        row.met = format!(
            "**no**: results differ from XLA's ({})",
            disagree.join(", ")
        );
    }
    Ok(row)
}

fn throughput(recs: &Records) -> Res<Row> {
    let mut ratios = Vec::new();
    for (file, rec) in recs {
        if rec["kind"].as_str() != Some("throughput") {
            return Err(format!(
                "{file}: throughput comes from `throughput` records"
            ));
        }
        for r in rows(rec)? {
            let name = r["name"]
                .as_str()
                .ok_or(format!("{file}: a row without `name`"))?;
            if name.starts_with("memcpy") || name.ends_with("_element_by_element") {
                continue;
            }
            if let Some(v) = r["times_copy"].as_f64() {
                let group = r["group"].as_str().unwrap_or("?");
                ratios.push(Ratio {
                    name: format!("{group}/{name}"),
                    value: v,
                    upper_quartile: None,
                });
            }
        }
    }
    judge(
        ratios,
        2.0,
        false,
        "Throughput",
        "time / a memory copy's at most 2.00",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(kind: &str, model: &str, rows: Value) -> Value {
        serde_json::json!({
            "kind": kind,
            "machine": {"model": "Intel(R) Xeon(R) Processor", "family": "6", "model_number": model,
                        "flags": ["avx2", "fma", "avx512f"], "cpus": 2, "caches": []},
            "started": "2026-11-29T08:00:00Z", "finished": "2026-11-29T08:20:00Z",
            "load": [0.5, 1.9], "commit": "abc1234", "method": "m",
            "rows": rows,
        })
    }

    fn page(dir: &Path, files: &[(&str, Value)], fence: &str) -> crate::Result<String> {
        for (name, rec) in files {
            std::fs::write(dir.join(name), rec.to_string()).unwrap();
        }
        expand_perf_status(dir, "p.md", fence)
    }

    fn pair(name: &str, med: f64, q3: f64) -> Value {
        serde_json::json!({"name": name, "kernel": "avx512", "xla_spec_best_gflops": 1.0,
                           "openblas_best_gflops": 1.0, "ratio_median": med, "ratio_q1": med - 0.05,
                           "ratio_q3": q3})
    }

    #[test]
    fn each_target_gets_its_range_worst_row_and_verdict() {
        let dir = std::env::temp_dir().join(format!("xla-spec-status-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let gemm = record(
            "pairs",
            "207",
            serde_json::json!([
                pair("dot_f64_256", 1.2, 1.3),
                pair("dot_f64_4096", 0.98, 1.01),
                pair("dot_bf16_1024", 0.5, 0.6),
                pair("dot_f32_batch64_128", 0.5, 0.6),
                pair("dot_f64_m64_4096", 1.1, 1.2)
            ]),
        );
        let short = record(
            "pairs",
            "207",
            serde_json::json!([pair("dot_f32_4096", 0.9, 0.97)]),
        );
        let conv = record(
            "linalg",
            "207",
            serde_json::json!([
                {"name": "conv_resnet28", "xla_spec": 90.0, "openblas": null, "xla_cpu": 60.0},
                {"name": "dot_f32_256", "xla_spec": 10.0, "openblas": 100.0, "xla_cpu": 80.0}]),
        );
        let progs = record(
            "programs",
            "207",
            serde_json::json!([
                {"program": "a", "xla_spec_eval_ms": 19.0, "xla_execute_ms": 10.0, "agree": true},
                {"program": "b", "xla_spec_eval_ms": 5.0, "xla_execute_ms": 10.0, "agree": true}]),
        );
        let tp = record(
            "throughput",
            "207",
            serde_json::json!([
                {"group": "g", "name": "memcpy_fresh_buffer", "times_copy": 9.0},
                {"group": "g", "name": "add", "times_copy": 0.8},
                {"group": "g", "name": "add_element_by_element", "times_copy": 30.0}]),
        );
        let md = page(
            &dir,
            &[("g.json", gemm), ("s.json", short), ("c.json", conv), ("p.json", progs), ("t.json", tp)],
            "```perf-status\ngemm | AVX-512 | g.json\ngemm | one thread | g.json s.json\n\
             conv | two threads | c.json\nprograms | | p.json\nthroughput | element-wise | t.json\n```\n",
        )
        .unwrap();
        assert!(
            md.starts_with("**Intel(R) Xeon(R) Processor (family 6, model 207)**, 2 logical CPUs"),
            "{md}"
        );
        // The bf16 and batched rows are not F32/F64 targets; 0.98 short but its upper quartile reaches 1.
        assert!(
            md.contains("| GEMM, F32 and F64 | AVX-512 | xla-spec / OpenBLAS at least 1.00 | 0.98-1.20 (3 rows) | `dot_f64_4096` 0.98 (upper quartile 1.01) | within the spread (1 of 3 rows short) | `g.json` (2026-11-29, `abc1234`) |"),
            "{md}"
        );
        assert!(
            md.contains(
                "| `dot_f32_4096` 0.90 (upper quartile 0.97) | **no** (2 of 4 rows short) |"
            ),
            "{md}"
        );
        assert!(md.contains("| Convolution | two threads | xla-spec / XLA:CPU at least 1.00 | 1.50-1.50 (1 rows) | `conv_resnet28` 1.50 | yes |"), "{md}");
        assert!(
            md.contains("| 0.50-1.90 (2 rows) | `a` 1.90 | yes |"),
            "{md}"
        );
        assert!(
            md.contains("| 0.80-0.80 (1 rows) | `g/add` 0.80 | yes |"),
            "{md}"
        );

        // Results that differ fail the programs target whatever the times.
        let wrong = record(
            "programs",
            "207",
            serde_json::json!([{"program": "a", "xla_spec_eval_ms": 1.0, "xla_execute_ms": 10.0, "agree": false}]),
        );
        let md = page(
            &dir,
            &[("w.json", wrong)],
            "```perf-status\nprograms | | w.json\n```\n",
        )
        .unwrap();
        assert!(md.contains("**no**: results differ from XLA's (a)"), "{md}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn mixed_machines_and_bad_fences_are_errors() {
        let dir = std::env::temp_dir().join(format!("xla-spec-status-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = record(
            "pairs",
            "207",
            serde_json::json!([pair("dot_f64_256", 1.2, 1.3)]),
        );
        let b = record(
            "pairs",
            "143",
            serde_json::json!([pair("dot_f64_256", 1.2, 1.3)]),
        );
        let e = page(
            &dir,
            &[("a.json", a), ("b.json", b)],
            "x\n```perf-status\ngemm | | a.json\ngemm | | b.json\n```\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("p.md:2: perf-status: b.json was measured on") && e.contains("model 143"),
            "{e}"
        );
        for (fence, want) in [
            (
                "```perf-status\ngemm | a.json\n```\n",
                "expected `TARGET | SCOPE | FILE...`",
            ),
            ("```perf-status\ngemm | | \n```\n", "no record named"),
            (
                "```perf-status\nspeed | | a.json\n```\n",
                "unknown target \"speed\"",
            ),
            (
                "```perf-status\nconv | | a.json\n```\n",
                "convolutions come from `linalg` records",
            ),
            (
                "```perf-status\ngemm | | missing.json\n```\n",
                "cannot read missing.json",
            ),
            ("```perf-status\ngemm | | a.json\n", "never closed"),
        ] {
            let e = page(&dir, &[], fence).unwrap_err().to_string();
            assert!(e.contains(want), "{fence:?}: {e}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
