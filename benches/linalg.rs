//! Criterion benchmarks for dot and convolution: the `xla-spec bench` table (fast paths through
//! the blocked GEMM), ndarray's `dot` (matrixmultiply) as the in-Rust peer on the same matrices,
//! and a plain memory copy as the yardstick. Throughput is reported in elements of work
//! (multiply-adds), so criterion's "elem/s" is half the GFLOP/s figure.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use xla_spec::kernels::bench::{Case, table};

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

fn ndarray_peer(c: &mut Criterion) {
    let mut g = c.benchmark_group("ndarray_dot");
    g.sample_size(10);
    for (name, case, _) in table() {
        let Case::Dot { ty, b: 0, m, k, n } = case else {
            continue;
        };
        g.throughput(Throughput::Elements((m * k * n) as u64));
        match ty {
            xla_spec::ElementType::F32 => {
                let a =
                    ndarray::Array2::<f32>::from_shape_fn((m as usize, k as usize), |(i, j)| {
                        ((i * 7 + j * 3) % 11) as f32 - 5.0
                    });
                let bm =
                    ndarray::Array2::<f32>::from_shape_fn((k as usize, n as usize), |(i, j)| {
                        ((i * 5 + j) % 13) as f32 - 6.0
                    });
                g.bench_function(name, |bch| bch.iter(|| black_box(a.dot(&bm))));
            }
            xla_spec::ElementType::F64 => {
                let a =
                    ndarray::Array2::<f64>::from_shape_fn((m as usize, k as usize), |(i, j)| {
                        ((i * 7 + j * 3) % 11) as f64 - 5.0
                    });
                let bm =
                    ndarray::Array2::<f64>::from_shape_fn((k as usize, n as usize), |(i, j)| {
                        ((i * 5 + j) % 13) as f64 - 6.0
                    });
                g.bench_function(name, |bch| bch.iter(|| black_box(a.dot(&bm))));
            }
            _ => {}
        }
    }
    g.finish();
}

criterion_group!(benches, copy_baseline, kernels, ndarray_peer);
criterion_main!(benches);
