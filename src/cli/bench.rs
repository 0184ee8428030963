//! `xla-spec bench`: GFLOP/s of the fast Dot/Convolution kernels and of their naive oracles over a
//! fixed table of named shapes. The naive oracle is O(n^3) slow, so it runs on a scaled-down shape
//! and the output says which. `--json` prints one JSON object per line; `--filter TEXT` keeps the
//! cases whose name contains TEXT; `--reps N` sets the timed repetitions (default 3, best kept).

use crate::eval::linalg::{ConvAttrs, DotDims, fast_conv, fast_dot, naive_conv, naive_dot};
use crate::hlo::ast::{Window, WindowDim};
use crate::hlo::parser::parse_dim_labels;
use crate::literal::{Array, ArrayData};
use crate::shape::ArrayShape;
use crate::types::ElementType;
use half::bf16;
use std::time::Instant;

/// One benchmark case: a dot or a convolution on given shapes.
#[derive(Clone, Debug)]
pub enum Case {
    /// `[b, m, k] x [b, k, n]` (b = 0 means plain `[m, k] x [k, n]`).
    Dot {
        ty: ElementType,
        b: i64,
        m: i64,
        k: i64,
        n: i64,
    },
    /// NHWC x HWIO -> NHWC, 3x3 (or `r`) window, SAME padding, stride 1.
    Conv {
        ty: ElementType,
        n: i64,
        hw: i64,
        cin: i64,
        cout: i64,
        r: i64,
    },
    /// Any 2-D convolution as HLO states it: operand dimensions, `dim_labels`, a square window
    /// of `size` with `pad` on every side, stride 1 (the CNN program's forward and gradient
    /// convolutions).
    ConvGeneral {
        lhs: [i64; 4],
        rhs: [i64; 4],
        labels: &'static str,
        size: i64,
        pad: i64,
    },
}

/// The fixed table: (name, case at full size, scaled-down case for the naive oracle).
pub fn table() -> Vec<(&'static str, Case, Case)> {
    use ElementType::*;
    let dot = |ty, m| Case::Dot {
        ty,
        b: 0,
        m,
        k: m,
        n: m,
    };
    let conv = |n, hw, c| Case::Conv {
        ty: F32,
        n,
        hw,
        cin: c,
        cout: c,
        r: 3,
    };
    let skinny = |ty, m, n| Case::Dot {
        ty,
        b: 0,
        m,
        k: 4096,
        n,
    };
    let mut v = vec![];
    // The GEMM targets: square 256 to 4096, and skinny shapes (one side 1, 8 or 64 against
    // 4096 x 4096), f32 and f64. Leaked names: the table is built once per run.
    for ty in [F32, F64] {
        let t = if ty == F32 { "f32" } else { "f64" };
        for s in [256, 512, 1024, 2048, 4096] {
            let name: &'static str = Box::leak(format!("dot_{t}_{s}").into_boxed_str());
            v.push((name, dot(ty, s), dot(ty, 128)));
        }
        for (side, m, n) in [
            ("m1", 1, 4096),
            ("m8", 8, 4096),
            ("m64", 64, 4096),
            ("n1", 4096, 1),
            ("n8", 4096, 8),
            ("n64", 4096, 64),
        ] {
            let name: &'static str = Box::leak(format!("dot_{t}_{side}_4096").into_boxed_str());
            let small = skinny(ty, m.min(64), n.min(64));
            v.push((name, skinny(ty, m, n), small));
        }
    }
    v.extend([
        ("dot_bf16_1024", dot(BF16, 1024), dot(BF16, 128)),
        ("dot_s32_512", dot(S32, 512), dot(S32, 128)),
        (
            "dot_f32_batch64_128",
            Case::Dot {
                ty: F32,
                b: 64,
                m: 128,
                k: 128,
                n: 128,
            },
            Case::Dot {
                ty: F32,
                b: 2,
                m: 128,
                k: 128,
                n: 128,
            },
        ),
        ("conv_resnet56", conv(8, 56, 64), conv(1, 14, 64)),
        ("conv_resnet28", conv(8, 28, 128), conv(1, 7, 128)),
    ]);
    // The five convolutions of benches/programs/cnn_train.hlo (16x32x32x32 NHWC, 3x3, 32->64->64):
    // two forward, the input gradient of the second (its kernel reversed, `01oi`), and the two
    // kernel gradients, which JAX writes as convolutions of the activations with the output
    // gradients over a 32x32 (16x16) window with batch and features swapped.
    let general = |lhs, rhs, labels, size| Case::ConvGeneral {
        lhs,
        rhs,
        labels,
        size,
        pad: 1,
    };
    v.extend([
        (
            "conv_cnn_fwd1",
            general([16, 32, 32, 32], [3, 3, 32, 64], "b01f_01io->b01f", 3),
            general([2, 8, 8, 32], [3, 3, 32, 64], "b01f_01io->b01f", 3),
        ),
        (
            "conv_cnn_fwd2",
            general([16, 16, 16, 64], [3, 3, 64, 64], "b01f_01io->b01f", 3),
            general([2, 8, 8, 64], [3, 3, 64, 64], "b01f_01io->b01f", 3),
        ),
        (
            "conv_cnn_grad_input2",
            general([16, 16, 16, 64], [3, 3, 64, 64], "b01f_01oi->b01f", 3),
            general([2, 8, 8, 64], [3, 3, 64, 64], "b01f_01oi->b01f", 3),
        ),
        (
            "conv_cnn_grad_kernel1",
            general([16, 32, 32, 32], [16, 32, 32, 64], "f01b_i01o->01bf", 32),
            general([2, 8, 8, 32], [2, 8, 8, 64], "f01b_i01o->01bf", 8),
        ),
        (
            "conv_cnn_grad_kernel2",
            general([16, 16, 16, 64], [16, 16, 16, 64], "f01b_i01o->01bf", 16),
            general([2, 8, 8, 64], [2, 8, 8, 64], "f01b_i01o->01bf", 8),
        ),
    ]);
    v
}

/// Deterministic pseudo-random values in [-1, 1) (a 64-bit LCG), as the element type.
pub fn random_array(ty: ElementType, dims: Vec<i64>, seed: u64) -> Array {
    let n: i64 = dims.iter().product();
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let vals: Vec<f64> = (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect();
    // Operands on huge pages, as NumPy's (the peers') are: see `pages::collect_fresh`.
    use crate::literal::pages::collect_fresh as fresh;
    let data = match ty {
        ElementType::F32 => ArrayData::F32(fresh(vals.iter().map(|&x| x as f32)).into()),
        ElementType::F64 => ArrayData::F64(fresh(vals.into_iter()).into()),
        ElementType::BF16 => ArrayData::BF16(fresh(vals.iter().map(|&x| bf16::from_f64(x))).into()),
        ElementType::F16 => {
            ArrayData::F16(fresh(vals.iter().map(|&x| half::f16::from_f64(x))).into())
        }
        _ => ArrayData::S32(fresh(vals.iter().map(|&x| (x * 100.0) as i32)).into()),
    };
    let ty = data.ty();
    Array {
        shape: ArrayShape::new(ty, dims),
        data,
    }
}

impl Case {
    pub fn describe(&self) -> String {
        match *self {
            Case::Dot { ty, b: 0, m, k, n } => format!("{ty}[{m},{k}] x [{k},{n}]"),
            Case::Dot { ty, b, m, k, n } => format!("{ty}[{b},{m},{k}] x [{b},{k},{n}]"),
            Case::Conv {
                ty,
                n,
                hw,
                cin,
                cout,
                r,
            } => format!("{ty}[{n},{hw},{hw},{cin}] conv [{r},{r},{cin},{cout}] SAME"),
            Case::ConvGeneral {
                lhs,
                rhs,
                labels,
                size,
                pad,
            } => format!("f32{lhs:?} conv {rhs:?} {labels} window {size}x{size} pad {pad}"),
        }
    }

    pub fn flops(&self) -> f64 {
        match *self {
            Case::Dot { b, m, k, n, .. } => 2.0 * (b.max(1) * m * k * n) as f64,
            Case::Conv {
                n,
                hw,
                cin,
                cout,
                r,
                ..
            } => 2.0 * (n * hw * hw * cout * cin * r * r) as f64,
            Case::ConvGeneral { .. } => {
                // Multiply-adds: every output element takes (window x input features) of them.
                let p = self.prepare();
                let Op::Conv(a) = &p.op else { return 0.0 };
                let out = crate::shape::window::window_output_size;
                let (ld, rd) = (p.lhs.dims(), p.rhs.dims());
                let mut macs = (ld[a.dims.input_batch] * rd[a.dims.kernel_output_feature]) as f64
                    * rd[a.dims.kernel_input_feature] as f64;
                for (s, w) in a.window.dims.iter().enumerate() {
                    let o = out(ld[a.dims.input_spatial[s]], w).unwrap_or(0);
                    macs *= (o * w.size) as f64;
                }
                2.0 * macs
            }
        }
    }

    /// The operands and how to run the op on them.
    pub fn prepare(&self) -> Prepared {
        match *self {
            Case::Dot { ty, b, m, k, n } => {
                let (ld, rd, d) = if b == 0 {
                    (
                        vec![m, k],
                        vec![k, n],
                        DotDims {
                            lhs_contracting: vec![1],
                            rhs_contracting: vec![0],
                            ..DotDims::default()
                        },
                    )
                } else {
                    (
                        vec![b, m, k],
                        vec![b, k, n],
                        DotDims {
                            lhs_batch: vec![0],
                            rhs_batch: vec![0],
                            lhs_contracting: vec![2],
                            rhs_contracting: vec![1],
                        },
                    )
                };
                let rty = if ty == ElementType::BF16 {
                    ElementType::F32
                } else {
                    ty
                };
                Prepared {
                    lhs: random_array(ty, ld, 1),
                    rhs: random_array(ty, rd, 2),
                    op: Op::Dot(d),
                    rty,
                }
            }
            Case::Conv {
                ty,
                n,
                hw,
                cin,
                cout,
                r,
            } => {
                let dims = parse_dim_labels("b01f_01io->b01f").unwrap_or_else(|_| unreachable!());
                let pad = (r - 1) / 2;
                let w = WindowDim {
                    pad_lo: pad,
                    pad_hi: r - 1 - pad,
                    ..WindowDim::of_size(r)
                };
                let window = Window {
                    dims: vec![w.clone(), w],
                };
                let attrs = ConvAttrs {
                    dims,
                    window,
                    feature_group_count: 1,
                    batch_group_count: 1,
                };
                Prepared {
                    lhs: random_array(ty, vec![n, hw, hw, cin], 3),
                    rhs: random_array(ty, vec![r, r, cin, cout], 4),
                    op: Op::Conv(attrs),
                    rty: ty,
                }
            }
            Case::ConvGeneral {
                lhs,
                rhs,
                labels,
                size,
                pad,
            } => {
                let dims = parse_dim_labels(labels).unwrap_or_else(|_| unreachable!());
                let w = WindowDim {
                    pad_lo: pad,
                    pad_hi: pad,
                    ..WindowDim::of_size(size)
                };
                let attrs = ConvAttrs {
                    dims,
                    window: Window {
                        dims: vec![w.clone(), w],
                    },
                    feature_group_count: 1,
                    batch_group_count: 1,
                };
                Prepared {
                    lhs: random_array(ElementType::F32, lhs.to_vec(), 3),
                    rhs: random_array(ElementType::F32, rhs.to_vec(), 4),
                    op: Op::Conv(attrs),
                    rty: ElementType::F32,
                }
            }
        }
    }
}

pub enum Op {
    Dot(DotDims),
    Conv(ConvAttrs),
}

pub struct Prepared {
    pub lhs: Array,
    pub rhs: Array,
    pub op: Op,
    pub rty: ElementType,
}

impl Prepared {
    /// Runs the fast path; returns the kernel that ran.
    pub fn run_fast(&self) -> String {
        let r = match &self.op {
            Op::Dot(d) => fast_dot(&self.lhs, &self.rhs, d, self.rty).map(|x| x.1),
            Op::Conv(a) => fast_conv(&self.lhs, &self.rhs, a, self.rty).map(|x| x.1),
        };
        match r {
            Ok(Some(k)) => k.name().to_string(),
            Ok(None) => "none".into(),
            Err(e) => format!("error: {e}"),
        }
    }

    pub fn run_naive(&self) {
        let _ = match &self.op {
            Op::Dot(d) => naive_dot(&self.lhs, &self.rhs, d, self.rty),
            Op::Conv(a) => naive_conv(&self.lhs, &self.rhs, a, self.rty),
        };
    }
}

/// Best wall time of `reps` runs (after one warm-up run), in seconds.
fn best_time(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    (0..reps.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// `bench --peak`: each SIMD micro-kernel against this core's multiply-add peak, one thread
/// (`kernels::gemm::peak`): the FMA loop, the kernel on panels in L1, and the kernel on an A
/// block of this machine's block sizes.
fn peak_report(json: bool) -> i32 {
    use crate::kernels::gemm::peak;
    let peaks = match peak::probe_all(std::time::Duration::from_millis(150)) {
        Ok(p) => p,
        Err(e) => {
            errln!("xla-spec bench --peak: internal error: {e}");
            return 1;
        }
    };
    let caches = crate::kernels::cache::detect();
    if json {
        let rows: Vec<_> = peaks
            .iter()
            .map(|p| {
                serde_json::json!({
                    "kernel": p.kind.name(), "type": p.ty, "mr": p.mr, "nr": p.nr,
                    "kc_l1": p.kc_l1, "kc": p.kc, "mc": p.mc,
                    "fma_loop_gflops": p.fma_loop, "in_l1_gflops": p.in_l1,
                    "a_block_gflops": p.a_block,
                })
            })
            .collect();
        outln!(
            "{}",
            serde_json::json!({ "l1d": caches.l1d, "l2": caches.l2, "rows": rows })
        );
        return 0;
    }
    if cfg!(debug_assertions) {
        errln!("note: this is a debug build; build with --release for meaningful numbers");
    }
    outln!(
        "one thread, GFLOP/s (best of 5 runs); L1d {} KiB, L2 {} KiB ({})",
        caches.l1d / 1024,
        caches.l2 / 1024,
        caches.source
    );
    if peaks.is_empty() {
        outln!("no SIMD micro-kernel on this CPU (the portable kernel has no FMA loop to compare)");
    }
    outln!(
        "{:<9} {:<4} {:>6}  {:>8}  {:>22}  {:>29}",
        "kernel",
        "type",
        "tile",
        "FMA loop",
        "panels in L1",
        "the GEMM's A block"
    );
    for p in &peaks {
        let pct = |x: f64| 100.0 * x / p.fma_loop;
        outln!(
            "{:<9} {:<4} {:>6}  {:>8.1}  {:>7.1} ({:>3.0}%, KC {:>3})  {:>7.1} ({:>3.0}%, KC {:>4}, MC {:>4})",
            p.kind.name(),
            p.ty,
            format!("{}x{}", p.mr, p.nr),
            p.fma_loop,
            p.in_l1,
            pct(p.in_l1),
            p.kc_l1,
            p.a_block,
            pct(p.a_block),
            p.kc,
            p.mc
        );
    }
    0
}

/// Entry point of the `bench` subcommand; returns the process exit code.
pub fn main(args: &[String]) -> i32 {
    if args.iter().any(|a| a == "--programs") {
        return super::bench_programs::main(args);
    }
    if args.iter().any(|a| a == "--round-trip") {
        // The placement of this process's first two CPUs (`pool::core_round_trip_ns`), for
        // comparison records; `null` / "unknown" where it cannot be measured.
        let ns = crate::kernels::pool::core_round_trip_ns();
        if args.iter().any(|a| a == "--json") {
            let v = ns.map_or(serde_json::Value::Null, |x| {
                serde_json::json!((x * 10.0).round() / 10.0)
            });
            outln!("{}", serde_json::json!({ "core_round_trip_ns": v }));
        } else {
            match ns {
                Some(x) => outln!("core round trip: {x:.1} ns"),
                None => outln!("core round trip: unknown (fewer than two CPUs, or unbound)"),
            }
        }
        return 0;
    }
    if args.iter().any(|a| a == "--peak") {
        return peak_report(args.iter().any(|a| a == "--json"));
    }
    let mut json = false;
    let mut filter = String::new();
    let mut reps = 3usize;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--json" => json = true,
            "--filter" => filter = it.next().cloned().unwrap_or_default(),
            "--reps" => reps = it.next().and_then(|s| s.parse().ok()).unwrap_or(3),
            "-h" | "--help" => {
                outln!(
                    "usage: xla-spec bench [--json] [--filter TEXT] [--reps N]\n\
                     \x20      xla-spec bench --programs [--manifest FILE] [--args-dir DIR] [--filter TEXT] [--reps N] [--json]\n\
                     \x20      xla-spec bench --round-trip [--json]   (a cache line between the first two CPUs)\n\
                     \x20      xla-spec bench --peak [--json]   (the micro-kernels against the core's multiply-add peak)\n\
                     cases: {}",
                    table().iter().map(|c| c.0).collect::<Vec<_>>().join(", ")
                );
                return 0;
            }
            other => {
                errln!("xla-spec bench: unknown argument `{other}` (try --help)");
                return 2;
            }
        }
    }
    if cfg!(debug_assertions) && !json {
        errln!("note: this is a debug build; build with --release for meaningful numbers");
    }
    if !json {
        let bf16_case = table()
            .iter()
            .any(|c| c.0.contains("bf16") && c.0.contains(filter.as_str()));
        if crate::kernels::gemm::bf16::available() && bf16_case {
            // Why BF16 products take the kernel they take (`gemm::bf16::preferred`).
            let (pair, fma) = crate::kernels::gemm::bf16::tile_ns_per_madd();
            outln!(
                "AVX512-BF16 tile {:.1} multiply-adds/ns, F32 tile {:.1}: BF16 products use {}",
                1.0 / pair,
                1.0 / fma,
                if crate::kernels::gemm::bf16::preferred() {
                    "AVX512-BF16"
                } else {
                    "the F32 kernel"
                }
            );
        }
        outln!(
            "{:<22} {:>10} {:>10} {:>9}  {:<10} naive shape",
            "case",
            "fast GF/s",
            "naive GF/s",
            "fast ms",
            "kernel"
        );
    }
    let threads = crate::kernels::pool::threads();
    for (name, full, small) in table() {
        if !name.contains(&filter) {
            continue;
        }
        let p = full.prepare();
        let mut kernel = String::new();
        let t = best_time(reps, || kernel = p.run_fast());
        let fast = full.flops() / t / 1e9;
        let q = small.prepare();
        let tn = best_time(1, || q.run_naive());
        let naive = small.flops() / tn / 1e9;
        if json {
            outln!(
                "{{\"name\":\"{name}\",\"shape\":\"{}\",\"kernel\":\"{kernel}\",\"threads\":{threads},\"fast_gflops\":{fast:.2},\"fast_seconds\":{t:.6},\"naive_gflops\":{naive:.3},\"naive_shape\":\"{}\"}}",
                full.describe(),
                small.describe()
            );
        } else {
            outln!(
                "{name:<22} {fast:>10.2} {naive:>10.3} {:>9.2}  {kernel:<10} {}",
                t * 1e3,
                small.describe()
            );
        }
    }
    0
}

#[cfg(test)]
mod tests {
    /// `bench --peak` runs every kernel kind this CPU has through its checks (a wrong sum is
    /// exit status 1), in both output forms.
    #[test]
    fn peak_runs_and_checks_every_kernel() {
        for json in [false, true] {
            let args = ["--peak".to_string()]
                .into_iter()
                .chain(json.then(|| "--json".to_string()))
                .collect::<Vec<_>>();
            assert_eq!(super::main(&args), 0);
        }
    }
}
