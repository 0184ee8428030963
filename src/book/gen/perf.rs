//! Measurement records rendered into the book: the machine, the run, a table and a plot.
//!
//! A fence ```` ```perf-record ```` holds one line `file: <path>`, a record written by a comparison
//! script (`benches/record.py`: `linalg_compare.sh --save`, `programs_peers.sh --save`), relative
//! to the repository. It becomes a paragraph naming the machine (CPU model, family and model
//! numbers, SIMD flags, caches), the date, the load average and the commit; the table of the
//! record's rows with xla-spec's figure, its peers' figures from the same run and the ratios; and,
//! for a `linalg` record, an SVG plot of GFLOP/s against size for the square F32 and F64 products
//! (a `pairs` record, `gemm_pairs.sh --save`, holds calls paired within one process: no plot).
//! So a figure in the book cannot lose the machine it was measured on, and a missing or malformed
//! record fails the book's build.

use super::svg::{self, Svg};
use serde_json::Value;
use std::fmt::Write;
use std::path::Path;

type Res<T> = std::result::Result<T, String>;

/// Replaces every `perf-record` fence of a page by the rendered record, and every `perf-status`
/// fence by its table (`perf_status`).
pub fn expand_perf_records(root: &Path, page_path: &str, markdown: &str) -> crate::Result<String> {
    let status = super::perf_status::expand_perf_status(root, page_path, markdown)?;
    expand_fences(page_path, &status, "perf-record", |body| {
        let mut file = None;
        for l in body {
            match l.split_once(':') {
                Some(("file", v)) => file = Some(v.trim()),
                _ => return Err(format!("expected `file: <path>`, found {l:?}")),
            }
        }
        let file = file.ok_or("a record needs `file: <path>`")?;
        let rec = read_record(root, file)?;
        render(&rec, file).map_err(|m| format!("{file}: {m}"))
    })
}

/// Replaces every fence ```` ```NAME ```` of a page by `expand` of its lines (trimmed, blank ones
/// left out); an error names the page, the fence's line and the fence.
pub(super) fn expand_fences(
    page_path: &str,
    markdown: &str,
    name: &str,
    mut expand: impl FnMut(&[&str]) -> Res<String>,
) -> crate::Result<String> {
    let open = format!("```{name}");
    if !markdown.contains(&open) {
        return Ok(markdown.to_string());
    }
    let mut out = String::with_capacity(markdown.len());
    let mut lines = markdown.split_inclusive('\n').enumerate();
    while let Some((i, raw)) = lines.next() {
        if raw.trim() != open {
            out.push_str(raw);
            continue;
        }
        let err = |m: String| crate::Error::runtime(format!("{page_path}:{}: {name}: {m}", i + 1));
        let mut body = Vec::new();
        let mut closed = false;
        for (_, l) in lines.by_ref() {
            let l = l.trim();
            if l == "```" {
                closed = true;
                break;
            }
            if !l.is_empty() {
                body.push(l);
            }
        }
        if !closed {
            return Err(err("the fence is never closed".into()));
        }
        out.push_str(&expand(&body).map_err(err)?);
    }
    Ok(out)
}

/// A record file (relative to the repository) as JSON.
pub(super) fn read_record(root: &Path, file: &str) -> Res<Value> {
    let text =
        std::fs::read_to_string(root.join(file)).map_err(|e| format!("cannot read {file}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{file} is not JSON: {e}"))
}

/// The Markdown (and inline SVG) for one record.
pub(crate) fn render(rec: &Value, file: &str) -> Res<String> {
    let mut out = String::new();
    out.push_str(&run_paragraph(rec, file)?);
    out.push('\n');
    let rows = rec["rows"].as_array().ok_or("no `rows` array")?;
    match rec["kind"].as_str() {
        Some("linalg") => {
            out.push_str(&linalg_table(rows)?);
            out.push('\n');
            let plot = linalg_plot(rows)?;
            if !plot.is_empty() {
                out.push_str(&plot);
                out.push('\n');
            }
        }
        Some("programs") => {
            out.push_str(&programs_table(rows)?);
        }
        Some("throughput") => {
            out.push_str(&throughput_table(rows)?);
        }
        Some("pairs") => {
            out.push_str(&pairs_table(rows)?);
        }
        k => {
            return Err(format!(
                "unknown record kind {k:?} (linalg, programs, throughput, pairs)"
            ));
        }
    }
    Ok(out)
}

fn text<'v>(v: &'v Value, key: &str) -> Res<&'v str> {
    v[key].as_str().ok_or_else(|| format!("no `{key}`"))
}

fn run_paragraph(rec: &Value, file: &str) -> Res<String> {
    let m = &rec["machine"];
    let list = |v: &Value| -> String {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    };
    let (started, finished) = (text(rec, "started")?, text(rec, "finished")?);
    let load = rec["load"]
        .as_array()
        .map(|a| a.iter().map(|x| x.to_string()).collect::<Vec<_>>())
        .unwrap_or_default();
    let flags = list(&m["flags"]);
    // The cache line's round trip between the first two CPUs at the start and the end, when
    // the record has it: which the guest's topology does not show (`pool::core_round_trip_ns`).
    let trips = m["core_round_trip_ns"]
        .as_array()
        .map(|a| {
            let t: Vec<String> = a
                .iter()
                .map(|x| x.as_f64().map_or("?".into(), |v| format!("{v:.0}")))
                .collect();
            format!("; core round trip {} ns (start, end)", t.join(" and "))
        })
        .unwrap_or_default();
    Ok(format!(
        "**Machine:** {} (family {}, model {}), {} logical CPUs; {}; caches {}{}. \
         **Run:** {} to {} UTC, load average {} at the start and {} at the end, commit `{}`. \
         **Method:** {}. (Record: `{}`.)\n",
        text(m, "model")?,
        m["family"].as_str().unwrap_or("?"),
        m["model_number"].as_str().unwrap_or("?"),
        m["cpus"],
        if flags.is_empty() {
            "none of AVX2, FMA, AVX-512".to_string()
        } else {
            format!("flags {flags}")
        },
        list(&m["caches"]),
        trips,
        started.replace('T', " ").trim_end_matches('Z'),
        finished
            .split_once('T')
            .map_or(finished, |(_, t)| t)
            .trim_end_matches('Z'),
        load.first().map_or("?", String::as_str),
        load.get(1).map_or("?", String::as_str),
        text(rec, "commit")?,
        text(rec, "method")?,
        file
    ))
}

/// Three significant figures or so: 1234, 123, 12.3, 1.23.
fn num(v: Option<f64>) -> String {
    match v {
        None => "–".to_string(),
        Some(x) if x.abs() >= 100.0 => format!("{x:.0}"),
        Some(x) if x.abs() >= 10.0 => format!("{x:.1}"),
        Some(x) => format!("{x:.2}"),
    }
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
        _ => "–".to_string(),
    }
}

/// The median over a row's rounds of xla-spec's figure over `peer`'s, from the rounds that have
/// both; `None` without rounds.
pub(super) fn round_median(row: &Value, peer: &str) -> Option<f64> {
    let mut q: Vec<f64> = row["rounds"]
        .as_array()?
        .iter()
        .filter_map(|r| Some((r["xla_spec"].as_f64()?, r[peer].as_f64()?)))
        .filter(|&(_, p)| p > 0.0)
        .map(|(x, p)| x / p)
        .collect();
    if q.is_empty() {
        return None;
    }
    q.sort_by(f64::total_cmp);
    let mid = q.len() / 2;
    Some(if q.len() % 2 == 1 {
        q[mid]
    } else {
        (q[mid - 1] + q[mid]) / 2.0
    })
}

/// The table of a `linalg` record. Records that keep each round's figures (`rounds`: the peers'
/// runs, then xla-spec's, seconds apart) get two more columns, the medians over rounds of the
/// ratios: on a shared machine the best of each side may come from different spells, and
/// figures of one round saw the machine in one state.
fn linalg_table(rows: &[Value]) -> Res<String> {
    let paired = rows.iter().any(|r| r["rounds"].is_array());
    let mut t = String::from(
        "| case | xla-spec GFLOP/s (kernel) | OpenBLAS | XLA:CPU | xla-spec / OpenBLAS | xla-spec / XLA:CPU |",
    );
    t.push_str(if paired {
        " xla-spec / OpenBLAS, median of rounds | xla-spec / XLA:CPU, median of rounds |\n|---|---:|---:|---:|---:|---:|---:|---:|\n"
    } else {
        "\n|---|---:|---:|---:|---:|---:|\n"
    });
    let two = |v: Option<f64>| v.map_or("–".to_string(), |x| format!("{x:.2}"));
    for r in rows {
        let (x, o, c) = (
            r["xla_spec"].as_f64(),
            r["openblas"].as_f64(),
            r["xla_cpu"].as_f64(),
        );
        let _ = write!(
            t,
            "| `{}` | {} ({}) | {} | {} | {} | {} |",
            text(r, "name")?,
            num(x),
            r["kernel"].as_str().unwrap_or("–"),
            num(o),
            num(c),
            ratio(x, o),
            ratio(x, c)
        );
        if paired {
            let _ = write!(
                t,
                " {} | {} |",
                two(round_median(r, "openblas")),
                two(round_median(r, "xla_cpu"))
            );
        }
        t.push('\n');
    }
    Ok(t)
}

/// The table of a `pairs` record (`benches/gemm_pairs.sh`): each side's best, and the median
/// and quartiles over the rounds of the ratio of two calls made back to back.
fn pairs_table(rows: &[Value]) -> Res<String> {
    let mut t = String::from(
        "| case | xla-spec best GFLOP/s (kernel) | OpenBLAS best | xla-spec / OpenBLAS, median of paired calls | quartiles |\n|---|---:|---:|---:|---:|\n",
    );
    let two = |r: &Value, k: &str| -> Res<String> {
        r[k].as_f64()
            .map(|x| format!("{x:.2}"))
            .ok_or_else(|| format!("a row without `{k}`"))
    };
    for r in rows {
        let _ = writeln!(
            t,
            "| `{}` | {} ({}) | {} | {} | {}-{} |",
            text(r, "name")?,
            num(r["xla_spec_best_gflops"].as_f64()),
            r["kernel"].as_str().unwrap_or("–"),
            num(r["openblas_best_gflops"].as_f64()),
            two(r, "ratio_median")?,
            two(r, "ratio_q1")?,
            two(r, "ratio_q3")?
        );
    }
    Ok(t)
}

fn programs_table(rows: &[Value]) -> Res<String> {
    let mut t = String::from(
        "| program | xla-spec eval (ms) | xla-spec run (ms) | XLA:CPU execute (ms) | XLA:CPU compile + execute (ms) | eval / execute | run / execute | results agree |\n|---|---:|---:|---:|---:|---:|---:|---|\n",
    );
    for r in rows {
        let (ev, run, ex, ce) = (
            r["xla_spec_eval_ms"].as_f64(),
            r["xla_spec_run_ms"].as_f64(),
            r["xla_execute_ms"].as_f64(),
            r["xla_compile_execute_ms"].as_f64(),
        );
        let agree = match r["agree"].as_bool() {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "–",
        };
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            text(r, "program")?,
            num(ev),
            num(run),
            num(ex),
            num(ce),
            ratio(ev, ex),
            ratio(run, ex),
            agree
        );
    }
    Ok(t)
}

fn throughput_table(rows: &[Value]) -> Res<String> {
    let mut t = String::from(
        "| benchmark | bytes read and written | median (ms) | GiB/s | times the copy's time |\n|---|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let bytes = r["bytes"].as_f64().map_or("–".to_string(), |b| {
            format!("{} MiB", num(Some(b / (1u64 << 20) as f64)))
        });
        let _ = writeln!(
            t,
            "| `{}/{}` | {} | {} | {} | {} |",
            text(r, "group")?,
            text(r, "name")?,
            bytes,
            num(r["median_ms"].as_f64()),
            num(r["gib_s"].as_f64()),
            num(r["times_copy"].as_f64())
        );
    }
    Ok(t)
}

/// The square products `dot_<ty>_<n>` of a linalg record, as (n, xla-spec, OpenBLAS, XLA:CPU).
type Series = Vec<(u64, [Option<f64>; 3])>;

fn square(rows: &[Value], ty: &str) -> Series {
    let prefix = format!("dot_{ty}_");
    let mut s: Series = rows
        .iter()
        .filter_map(|r| {
            let n: u64 = r["name"].as_str()?.strip_prefix(&prefix)?.parse().ok()?;
            Some((
                n,
                [
                    r["xla_spec"].as_f64(),
                    r["openblas"].as_f64(),
                    r["xla_cpu"].as_f64(),
                ],
            ))
        })
        .collect();
    s.sort_by_key(|p| p.0);
    s
}

const SERIES: [(&str, &str); 3] = [
    ("xla-spec", "#dc2626"),
    ("OpenBLAS", "#2563eb"),
    ("XLA:CPU", "#16a34a"),
];

/// GFLOP/s against n for the square F32 and F64 products, one panel each, log2 n across.
fn linalg_plot(rows: &[Value]) -> Res<String> {
    let panels: Vec<(&str, Series)> = [("f32", square(rows, "f32")), ("f64", square(rows, "f64"))]
        .into_iter()
        .filter(|(_, s)| s.len() >= 2)
        .collect();
    if panels.is_empty() {
        // A record of a few products (a filtered run) has no curve to draw: its table says all.
        return Ok(String::new());
    }
    let (w, h, left, top) = (320.0, 220.0, 48.0, 28.0);
    let mut svg = Svg::default();
    for (p, (ty, s)) in panels.iter().enumerate() {
        let x0 = left + p as f64 * (w + left + 16.0);
        let ymax = s
            .iter()
            .flat_map(|(_, v)| v.iter().flatten().copied())
            .fold(0.0f64, f64::max);
        let step = nice_step(ymax / 5.0);
        let top_val = (ymax / step).ceil().max(1.0) * step;
        let (lo, hi) = ((s[0].0 as f64).log2(), (s[s.len() - 1].0 as f64).log2());
        let px = |n: u64| x0 + ((n as f64).log2() - lo) / (hi - lo).max(1e-9) * w;
        let py = |v: f64| top + h - v / top_val * h;
        svg.text(
            x0 + w / 2.0,
            top - 10.0,
            &format!("dot {ty}, n x n x n"),
            12.0,
            "middle",
        );
        let mut v = 0.0;
        while v <= top_val + step / 2.0 {
            svg.line(x0, py(v), x0 + w, py(v), "#e5e7eb", 1.0, "");
            svg.text(x0 - 6.0, py(v) + 4.0, &format!("{v:.0}"), 10.0, "end");
            v += step;
        }
        for &(n, _) in s {
            svg.line(px(n), top + h, px(n), top + h + 4.0, "#6b7280", 1.0, "");
            svg.text(px(n), top + h + 16.0, &n.to_string(), 10.0, "middle");
        }
        svg.line(x0, top + h, x0 + w, top + h, "#6b7280", 1.0, "");
        svg.line(x0, top, x0, top + h, "#6b7280", 1.0, "");
        svg.text(x0 + w / 2.0, top + h + 32.0, "n", 11.0, "middle");
        if p == 0 {
            svg.text(x0 - 40.0, top - 10.0, "GFLOP/s", 10.0, "start");
        }
        for (k, (_, colour)) in SERIES.iter().enumerate() {
            let pts: Vec<(f64, f64)> = s
                .iter()
                .filter_map(|(n, v)| v[k].map(|g| (px(*n), py(g))))
                .collect();
            if !pts.is_empty() {
                svg.polyline(&pts, colour);
            }
        }
    }
    let items: Vec<(&str, &str)> = SERIES.iter().map(|(l, c)| (*c, *l)).collect();
    svg.legend(left, top + h + 44.0, &items);
    let title = "GFLOP/s against size: xla-spec, OpenBLAS and XLA:CPU in one run";
    Ok(format!(
        "<figure class=\"xla-figure\">{}<figcaption>{}</figcaption></figure>\n",
        svg.finish(title),
        svg::esc(&format!(
            "{title} (square products; higher is better; drawn from the record above)"
        ))
    ))
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    if raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(kind: &str, rows: Value) -> Value {
        serde_json::json!({
            "kind": kind,
            "machine": {"model": "AMD EPYC 9R14", "family": "25", "model_number": "17",
                        "flags": ["avx2", "fma", "avx512f"], "cpus": 2, "caches": ["L1 32K", "L2 1024K"]},
            "started": "2026-11-26T08:00:00Z", "finished": "2026-11-26T08:20:00Z",
            "load": [0.5, 1.9], "commit": "abc1234", "method": "best of 2",
            "rows": rows,
        })
    }

    /// A record's core round trips (start, end; either may be missing) go into the machine line.
    #[test]
    fn a_record_shows_the_core_round_trip_when_it_has_one() {
        let mut rec = record(
            "programs",
            serde_json::json!([{"program": "mlp_train", "xla_spec_eval_ms": 50.0, "xla_spec_run_ms": 120.0,
                                "xla_execute_ms": 25.0, "xla_compile_execute_ms": 150.0, "agree": true}]),
        );
        rec["machine"]["core_round_trip_ns"] = serde_json::json!([404.4, null]);
        let md = render(&rec, "benches/results/x.json").unwrap();
        assert!(
            md.contains("caches L1 32K, L2 1024K; core round trip 404 and ? ns (start, end)."),
            "{md}"
        );
    }

    #[test]
    fn a_linalg_record_gives_machine_table_ratios_and_plot() {
        let rec = record(
            "linalg",
            serde_json::json!([
                {"name": "dot_f32_256", "xla_spec": 50.0, "kernel": "avx512", "openblas": 100.0, "xla_cpu": 80.0},
                {"name": "dot_f32_1024", "xla_spec": 150.0, "kernel": "avx512", "openblas": 150.0, "xla_cpu": null},
                {"name": "conv_resnet28", "xla_spec": 90.0, "kernel": "avx512", "openblas": null, "xla_cpu": 60.0}
            ]),
        );
        let md = render(&rec, "benches/results/x.json").unwrap();
        assert!(md.contains("AMD EPYC 9R14 (family 25, model 17), 2 logical CPUs"));
        assert!(md.contains("flags avx2, fma, avx512f"));
        assert!(
            !md.contains("round trip"),
            "no round trip in the record, none shown"
        );
        assert!(md.contains("2026-11-26 08:00:00 to 08:20:00 UTC"));
        assert!(md.contains("load average 0.5 at the start and 1.9 at the end, commit `abc1234`"));
        assert!(md.contains("| `dot_f32_256` | 50.0 (avx512) | 100 | 80.0 | 0.50 | 0.62 |"));
        assert!(md.contains("| `dot_f32_1024` | 150 (avx512) | 150 | – | 1.00 | – |"));
        assert!(md.contains("| `conv_resnet28` | 90.0 (avx512) | – | 60.0 | – | 1.50 |"));
        // One panel (F32 only): xla-spec's and OpenBLAS's lines of two points, XLA:CPU's of one.
        assert_eq!(md.matches("<polyline").count(), 3);
        assert!(md.contains("dot f32, n x n x n") && !md.contains("dot f64"));
        assert!(!md.contains("\n\n<svg"), "the figure stays one HTML block");
    }

    #[test]
    fn a_record_with_rounds_adds_the_medians_of_their_ratios() {
        let rec = record(
            "linalg",
            serde_json::json!([
                {"name": "dot_f64_2048", "xla_spec": 150.0, "kernel": "avx512", "openblas": 160.0,
                 "xla_cpu": 100.0, "rounds": [
                    {"xla_spec": 150.0, "openblas": 100.0, "xla_cpu": 100.0},
                    {"xla_spec": 90.0, "openblas": 100.0, "xla_cpu": null},
                    {"xla_spec": 120.0, "openblas": 160.0, "xla_cpu": 80.0},
                    {"xla_spec": 110.0, "openblas": 100.0, "xla_cpu": 50.0}]},
                {"name": "conv_resnet28", "xla_spec": 90.0, "kernel": "avx512", "openblas": null,
                 "xla_cpu": 60.0, "rounds": [{"xla_spec": 90.0, "openblas": null, "xla_cpu": 60.0}]},
                {"name": "dot_f64_1024", "xla_spec": 50.0, "kernel": "avx512", "openblas": 100.0, "xla_cpu": 80.0}
            ]),
        );
        let md = render(&rec, "r.json").unwrap();
        assert!(md.contains(
            "| xla-spec / OpenBLAS, median of rounds | xla-spec / XLA:CPU, median of rounds |"
        ));
        // Best of each side 150 / 160 = 0.94; the rounds' ratios 1.5, 0.9, 0.75, 1.1 have the
        // median 1.0, and those against XLA:CPU (a round without its figure left out) 1.5, 1.5,
        // 2.2: 1.5.
        assert!(
            md.contains(
                "| `dot_f64_2048` | 150 (avx512) | 160 | 100 | 0.94 | 1.50 | 1.00 | 1.50 |"
            ),
            "{md}"
        );
        assert!(
            md.contains("| `conv_resnet28` | 90.0 (avx512) | – | 60.0 | – | 1.50 | – | 1.50 |")
        );
        assert!(
            md.contains("| `dot_f64_1024` | 50.0 (avx512) | 100 | 80.0 | 0.50 | 0.62 | – | – |")
        );
        // A record of one square product has its table and no plot.
        let one = record(
            "linalg",
            serde_json::json!([{"name": "dot_f64_4096", "xla_spec": 150.0, "kernel": "avx512",
                                "openblas": 160.0, "xla_cpu": 100.0}]),
        );
        let md = render(&one, "r.json").unwrap();
        assert!(md.contains("| `dot_f64_4096` | 150 (avx512) | 160 | 100 | 0.94 | 1.50 |"));
        assert!(!md.contains("<svg"), "{md}");
    }

    #[test]
    fn a_programs_record_gives_both_ratios() {
        let rec = record(
            "programs",
            serde_json::json!([{"program": "mlp_train", "xla_spec_eval_ms": 50.0, "xla_spec_run_ms": 120.0,
                                "xla_execute_ms": 25.0, "xla_compile_execute_ms": 150.0, "agree": true}]),
        );
        let md = render(&rec, "r.json").unwrap();
        assert!(md.contains("| mlp_train | 50.0 | 120 | 25.0 | 150 | 2.00 | 4.80 | yes |"));
    }

    #[test]
    fn a_pairs_record_gives_bests_and_the_paired_ratio_with_quartiles() {
        let rec = record(
            "pairs",
            serde_json::json!([{"name": "dot_f64_2048", "kernel": "avx512",
                                "xla_spec_best_gflops": 148.1, "openblas_best_gflops": 156.7,
                                "ratio_median": 0.948, "ratio_q1": 0.907, "ratio_q3": 0.998}]),
        );
        let md = render(&rec, "r.json").unwrap();
        assert!(
            md.contains("| `dot_f64_2048` | 148 (avx512) | 157 | 0.95 | 0.91-1.00 |"),
            "{md}"
        );
        let bad = record("pairs", serde_json::json!([{"name": "dot_f64_2048"}]));
        assert!(render(&bad, "r.json").unwrap_err().contains("ratio_median"));
    }

    #[test]
    fn a_throughput_record_gives_times_the_copy() {
        let rec = record(
            "throughput",
            serde_json::json!([{"group": "g", "name": "add", "median_ms": 5.9, "bytes": 201326592,
                                "gib_s": 31.8, "times_copy": 0.8}]),
        );
        let md = render(&rec, "r.json").unwrap();
        assert!(
            md.contains("| `g/add` | 192 MiB | 5.90 | 31.8 | 0.80 |"),
            "{md}"
        );
    }

    #[test]
    fn bad_records_and_fences_are_errors_naming_the_page_line() {
        let dir = std::env::temp_dir().join(format!("xla-spec-perf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let page = "intro\n```perf-record\nfile: missing.json\n```\n";
        let e = expand_perf_records(&dir, "performance.md", page).unwrap_err();
        assert!(
            e.to_string()
                .contains("performance.md:2: perf-record: cannot read missing.json")
        );
        std::fs::write(dir.join("bad.json"), "{\"kind\": \"linalg\"").unwrap();
        let e =
            expand_perf_records(&dir, "p.md", "```perf-record\nfile: bad.json\n```\n").unwrap_err();
        assert!(e.to_string().contains("bad.json is not JSON"), "{e}");
        let e = expand_perf_records(&dir, "p.md", "```perf-record\nfile: bad.json\n").unwrap_err();
        assert!(e.to_string().contains("never closed"), "{e}");
        std::fs::write(
            dir.join("ok.json"),
            record("programs", serde_json::json!([])).to_string(),
        )
        .unwrap();
        let md = expand_perf_records(&dir, "p.md", "a\n```perf-record\nfile: ok.json\n```\nb\n")
            .unwrap();
        assert!(
            md.starts_with("a\n**Machine:**") && md.ends_with("|---|\nb\n"),
            "{md}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
