//! Criterion benchmarks for this op family. Each group measures a plain memory copy of the same
//! bytes in the same run, as the yardstick the family's targets are stated against.
//!
//! The reductions call the evaluator's kernels directly (the recognised-reducer fast path of
//! `reduce` and `reduce-window`), so that copying the 64-400 MB arguments into `eval::run` does
//! not hide the kernel's own cost. Throughput counts the bytes of input read.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use xla_spec::eval::reduction::fast::{self, BinOp};
use xla_spec::eval::reduction::reduce::ReducePlan;
use xla_spec::eval::reduction::window::WindowPlan;
use xla_spec::hlo::ast::{Window, WindowDim};
use xla_spec::literal::{ArrayData, Scalar};

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

fn data(n: usize) -> ArrayData {
    ArrayData::F32((0..n).map(|i| ((i * 7919) % 1000) as f32 * 0.001).collect())
}

fn sum_reduce(c: &mut Criterion) {
    let n = 1usize << 24;
    let d = data(n);
    let mut g = c.benchmark_group("reduce");
    g.throughput(Throughput::Bytes((n * 4) as u64));
    g.sample_size(10);
    let all = ReducePlan::new(&[n as i64], &[0]);
    g.bench_function("sum_f32_2^24_to_scalar", |b| {
        b.iter(|| {
            black_box(fast::fold(
                &all,
                black_box(&d),
                Scalar::F32(0.0),
                BinOp::Add,
            ))
        })
    });
    let rows = ReducePlan::new(&[4096, 4096], &[1]);
    g.bench_function("sum_f32_4096x4096_rows", |b| {
        b.iter(|| {
            black_box(fast::fold(
                &rows,
                black_box(&d),
                Scalar::F32(0.0),
                BinOp::Add,
            ))
        })
    });
    g.finish();
}

fn max_pool(c: &mut Criterion) {
    let dims = [32i64, 112, 112, 64];
    let n: usize = dims.iter().product::<i64>() as usize;
    let d = data(n);
    // 3x3 window, stride 2, SAME padding (0_1) over the spatial dimensions of NHWC.
    let spatial = WindowDim {
        stride: 2,
        pad_hi: 1,
        ..WindowDim::of_size(3)
    };
    let w = Window {
        dims: vec![
            WindowDim::of_size(1),
            spatial.clone(),
            spatial,
            WindowDim::of_size(1),
        ],
    };
    let plan = WindowPlan::new(&dims, &w);
    let per_element = WindowPlan::new(&dims, &w).element_by_element();
    let mut g = c.benchmark_group("reduce_window");
    g.throughput(Throughput::Bytes((n * 4) as u64));
    g.sample_size(10);
    // The same 64 MiB copy as `baseline`, repeated inside this group so that the ratio to it is
    // read off one run on a shared machine.
    let copy_n = 1usize << 24;
    let mut dst = vec![0.0f32; copy_n];
    let src = vec![1.0f32; copy_n];
    g.throughput(Throughput::Bytes((copy_n * 4) as u64));
    g.bench_function("memcpy_f32_2^24", |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&src));
            black_box(&dst);
        })
    });
    g.throughput(Throughput::Bytes((n * 4) as u64));
    for (name, p) in [
        ("max_pool_3x3_s2_f32_32x112x112x64", &plan),
        (
            "max_pool_3x3_s2_f32_32x112x112x64_element_by_element",
            &per_element,
        ),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                black_box(fast::fold(
                    p,
                    black_box(&d),
                    Scalar::F32(f32::NEG_INFINITY),
                    BinOp::Max,
                ))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, copy_baseline, sum_reduce, max_pool);
criterion_main!(benches);
