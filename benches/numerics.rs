//! Criterion benchmarks for the numerics ops through the whole evaluator (parse once, then
//! `eval::run` per iteration, argument conversion included): a 1024×1024 Cholesky in F32 and F64
//! (blocked over the GEMM), a 1024×1024 left triangular solve with 256 right-hand sides, and a
//! 2^20-point C64 FFT (radix 4, four-step) next to a prime-length one (Bluestein), which shows the
//! O(n log n) cost holds for every length.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use xla_spec::eval::{RunOptions, run};
use xla_spec::hlo::ast::Module;
use xla_spec::literal::{Array, C64, Literal};
use xla_spec::verify::parse_and_verify;

/// A deterministic pseudo-random value in [-1, 1).
fn val(i: usize) -> f64 {
    let x = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

/// A symmetric positive definite n×n matrix: a random symmetric one plus n·I (diagonally
/// dominant).
fn spd(n: usize) -> Vec<f64> {
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let v = val(i * n + j);
            a[i * n + j] = v;
            a[j * n + i] = v;
        }
        a[i * n + i] += n as f64;
    }
    a
}

fn module(text: &str) -> Module {
    parse_and_verify(text).expect("benchmark module verifies")
}

fn lit(dims: Vec<i64>, v: Vec<f64>, f32_: bool) -> Literal {
    Literal::Array(
        if f32_ {
            Array::from_vec(dims, v.into_iter().map(|x| x as f32).collect::<Vec<_>>())
        } else {
            Array::from_vec(dims, v)
        }
        .expect("sizes agree"),
    )
}

fn run_once(m: &Module, args: &[Literal]) -> Literal {
    run(m, args.to_vec(), &RunOptions::default())
        .expect("benchmark runs")
        .result
}

fn factorisations(c: &mut Criterion) {
    let n = 1024usize;
    let mut g = c.benchmark_group("numerics");
    g.sample_size(10);
    g.throughput(Throughput::Elements((n * n * n / 3) as u64));
    for (ty, is_f32) in [("f32", true), ("f64", false)] {
        let m = module(&format!(
            "HloModule m\nENTRY e {{\n  a = {ty}[{n},{n}] parameter(0)\n  ROOT c = {ty}[{n},{n}] cholesky(a), lower=true\n}}\n"
        ));
        let args = [lit(vec![n as i64, n as i64], spd(n), is_f32)];
        g.bench_function(format!("cholesky_{ty}_1024"), |b| {
            b.iter(|| black_box(run_once(&m, &args)))
        });
    }
    let k = 256usize;
    g.throughput(Throughput::Elements((n * n * k) as u64));
    let m = module(&format!(
        "HloModule m\nENTRY e {{\n  a = f32[{n},{n}] parameter(0)\n  b = f32[{n},{k}] parameter(1)\n  ROOT x = f32[{n},{k}] triangular-solve(a, b), left_side=true, lower=true, unit_diagonal=false, transpose_a=NO_TRANSPOSE\n}}\n"
    ));
    let args = [
        lit(vec![n as i64, n as i64], spd(n), true),
        lit(
            vec![n as i64, k as i64],
            (0..n * k).map(val).collect(),
            true,
        ),
    ];
    g.bench_function("triangular_solve_f32_1024x256", |b| {
        b.iter(|| black_box(run_once(&m, &args)))
    });
    g.finish();
}

fn ffts(c: &mut Criterion) {
    let mut g = c.benchmark_group("numerics");
    g.sample_size(10);
    // 2^20 (radix 4, four-step) and the prime 1048573 (Bluestein).
    for n in [1usize << 20, 1_048_573] {
        let m = module(&format!(
            "HloModule m\nENTRY e {{\n  x = c64[{n}] parameter(0)\n  ROOT f = c64[{n}] fft(x), fft_type=FFT, fft_length={{{n}}}\n}}\n"
        ));
        let data: Vec<C64> = (0..n)
            .map(|i| C64::new(val(2 * i) as f32, val(2 * i + 1) as f32))
            .collect();
        let args = [Literal::Array(
            Array::from_vec(vec![n as i64], data).expect("sizes agree"),
        )];
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(format!("fft_c64_{n}"), |b| {
            b.iter(|| black_box(run_once(&m, &args)))
        });
    }
    g.finish();
}

criterion_group!(benches, factorisations, ffts);
criterion_main!(benches);
