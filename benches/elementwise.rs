//! Criterion benchmarks of the element-wise kernels on 2^24 F32 elements: `add`, `exponential`,
//! `convert` F32→BF16 and `compare`, next to a plain memory copy of the same bytes measured in the
//! same run. Throughput counts every byte read and written, so "GB/s" is comparable across rows
//! (the copy reads 64 MiB and writes 64 MiB; `add` reads 128 MiB and writes 64 MiB).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use xla_spec::eval::elementwise::{binary_data, compare::compare_data, convert_data, unary_data};
use xla_spec::hlo::attrs::ComparisonDirection;
use xla_spec::hlo::opcode::{BinaryOp, UnaryOp};
use xla_spec::literal::ArrayData;
use xla_spec::types::ElementType;

const N: usize = 1 << 24;

fn inputs() -> (Vec<f32>, Vec<f32>) {
    let a = (0..N).map(|i| (i % 1000) as f32 * 0.01 - 5.0).collect();
    let b = (0..N).map(|i| (i % 777) as f32 * 0.02 - 7.0).collect();
    (a, b)
}

fn elementwise(c: &mut Criterion) {
    let (a, b) = inputs();
    let mut g = c.benchmark_group("elementwise_f32_2^24");
    g.sample_size(10);

    let mut dst = vec![0.0f32; N];
    g.throughput(Throughput::Bytes((2 * N * 4) as u64));
    g.bench_function("memcpy", |bench| {
        bench.iter(|| {
            dst.copy_from_slice(black_box(&a));
            black_box(&dst);
        })
    });
    // The ops below return a fresh result on every call, so they also pay the first-touch page
    // faults of a new 64 MiB buffer; a copy into a fresh vector shows that cost on its own.
    g.bench_function("memcpy_fresh_buffer", |bench| {
        bench.iter(|| black_box(black_box(&a).clone()))
    });

    let (da, db) = (ArrayData::F32(a.into()), ArrayData::F32(b.into()));
    g.throughput(Throughput::Bytes((3 * N * 4) as u64));
    g.bench_function("add", |bench| {
        bench.iter(|| black_box(binary_data(BinaryOp::Add, black_box(&da), &db)))
    });
    g.throughput(Throughput::Bytes((2 * N * 4) as u64));
    g.bench_function("exponential", |bench| {
        bench.iter(|| black_box(unary_data(UnaryOp::Exp, black_box(&da))))
    });
    g.throughput(Throughput::Bytes((N * 4 + N * 2) as u64));
    g.bench_function("convert_f32_to_bf16", |bench| {
        bench.iter(|| black_box(convert_data(black_box(&da), ElementType::BF16)))
    });
    g.throughput(Throughput::Bytes((2 * N * 4 + N) as u64));
    g.bench_function("compare_lt", |bench| {
        bench.iter(|| {
            black_box(compare_data(
                ComparisonDirection::Lt,
                None,
                black_box(&da),
                &db,
            ))
        })
    });
    g.finish();
}

criterion_group!(benches, elementwise);
criterion_main!(benches);
