//! Criterion benchmarks for this op family. Each group measures a plain memory copy of the same
//! bytes in the same run, as the yardstick the family's targets are stated against.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

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

criterion_group!(benches, copy_baseline);
criterion_main!(benches);
