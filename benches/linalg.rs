//! Criterion benchmarks for dot and convolution: the `xla-spec bench` table (fast paths through
//! the blocked GEMM), ndarray's `dot` (matrixmultiply) as the in-Rust peer on the same matrices,
//! and a plain memory copy as the yardstick. Throughput is reported in elements of work
//! (multiply-adds), so criterion's "elem/s" is half the GFLOP/s figure.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use xla_spec::cli::bench::{Case, table};

fn copy_baseline(c: &mut Criterion) {
    let n = 1usize << 24;
    let src = vec![1.0f32; n];
    let mut dst = vec![0.0f32; n];
    let mut g = c.benchmark_group("baseline");
    g.throughput(Throughput::Bytes((n * 4) as u64));
    g.sample_size(10);
    g.bench_function("memcpy_f32_2^24", |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&src));
            black_box(&dst);
        })
    });
    g.finish();
}

fn kernels(c: &mut Criterion) {
    let mut g = c.benchmark_group("linalg");
    g.sample_size(10);
    for (name, case, _) in table() {
        let p = case.prepare();
        g.throughput(Throughput::Elements((case.flops() / 2.0) as u64));
        g.bench_function(name, |b| b.iter(|| black_box(p.run_fast())));
    }
    g.finish();
}

/// ndarray's `dot` (matrixmultiply) on `[m x k] * [k x n]` of small integer values.
fn bench_ndarray<T>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    (m, k, n): (usize, usize, usize),
) where
    T: ndarray::LinalgScalar + From<i8>,
{
    let val = |x: usize| T::from((x % 11) as i8 - 5);
    let a = ndarray::Array2::<T>::from_shape_fn((m, k), |(i, j)| val(i * 7 + j * 3));
    let b = ndarray::Array2::<T>::from_shape_fn((k, n), |(i, j)| val(i * 5 + j));
    g.bench_function(name, |bch| bch.iter(|| black_box(a.dot(&b))));
}

fn ndarray_peer(c: &mut Criterion) {
    let mut g = c.benchmark_group("ndarray_dot");
    g.sample_size(10);
    for (name, case, _) in table() {
        let Case::Dot { ty, b: 0, m, k, n } = case else {
            continue;
        };
        g.throughput(Throughput::Elements((m * k * n) as u64));
        let dims = (m as usize, k as usize, n as usize);
        match ty {
            xla_spec::ElementType::F32 => bench_ndarray::<f32>(&mut g, name, dims),
            xla_spec::ElementType::F64 => bench_ndarray::<f64>(&mut g, name, dims),
            _ => {}
        }
    }
    g.finish();
}

criterion_group!(benches, copy_baseline, kernels, ndarray_peer);
criterion_main!(benches);
