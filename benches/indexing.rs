//! Criterion benchmarks for gather and scatter. Each group measures a plain memory copy of the same
//! bytes in the same run, as the yardstick the family's targets are stated against.
//!
//! Workload (the issue's): 2^20 rows of 64 F32 gathered from, and scatter-added into, a table of
//! 2^16 rows, at uniformly random row indices (so scatter-add sees ~16 updates per row). Throughput
//! is reported in rows per second; the baseline copies 2^20 rows of 64 F32 (256 MiB).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use xla_spec::eval::indexing::{
    Combiner, GatherDims, ScatterDims, gather, scatter_fast, scatter_plan,
};
use xla_spec::literal::Array;

const ROWS: usize = 1 << 20;
const WIDTH: usize = 64;
const TABLE: usize = 1 << 16;

fn random_rows(n: usize, table: usize) -> Vec<i32> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % table as u64) as i32
        })
        .collect()
}

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

fn rows_baseline(c: &mut Criterion) {
    let src = vec![1.0f32; ROWS * WIDTH];
    let mut g = c.benchmark_group("indexing_rows");
    g.throughput(Throughput::Elements(ROWS as u64));
    g.sample_size(10);
    g.bench_function("memcpy_2^20_rows_of_64_f32", |b| {
        b.iter(|| {
            // A fresh destination, as gather allocates its result.
            let dst: Vec<f32> = black_box(&src).clone();
            black_box(dst);
        })
    });
    g.finish();
}

fn gather_rows(c: &mut Criterion) {
    let table: Vec<f32> = (0..TABLE * WIDTH).map(|i| i as f32).collect();
    let operand = Array::from_vec(vec![TABLE as i64, WIDTH as i64], table).expect("table");
    let indices = Array::from_vec(vec![ROWS as i64, 1], random_rows(ROWS, TABLE)).expect("indices");
    let dims = GatherDims {
        offset_dims: vec![1],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        slice_sizes: vec![1, WIDTH as i64],
        ..GatherDims::default()
    };
    let mut g = c.benchmark_group("indexing_rows");
    g.throughput(Throughput::Elements(ROWS as u64));
    g.sample_size(10);
    g.bench_function("gather_2^20_rows_of_64_f32", |b| {
        b.iter(|| {
            black_box(gather(black_box(&operand), black_box(&indices), &dims).expect("gather"))
        })
    });
    g.finish();
}

fn scatter_add_rows(c: &mut Criterion) {
    let operand = Array::from_vec(
        vec![TABLE as i64, WIDTH as i64],
        vec![0.0f32; TABLE * WIDTH],
    )
    .expect("table");
    let indices = Array::from_vec(vec![ROWS as i64, 1], random_rows(ROWS, TABLE)).expect("indices");
    let updates: Vec<f32> = (0..ROWS * WIDTH).map(|i| (i % 7) as f32).collect();
    let updates = Array::from_vec(vec![ROWS as i64, WIDTH as i64], updates).expect("updates");
    let dims = ScatterDims {
        update_window_dims: vec![1],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..ScatterDims::default()
    };
    let mut g = c.benchmark_group("indexing_rows");
    g.throughput(Throughput::Elements(ROWS as u64));
    g.sample_size(10);
    g.bench_function("scatter_add_2^20_rows_of_64_f32", |b| {
        b.iter(|| {
            let plan = scatter_plan(operand.dims(), &indices, updates.dims(), &dims).expect("plan");
            black_box(scatter_fast(
                &operand.data,
                &updates.data,
                &plan,
                Combiner::Add,
            ))
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    copy_baseline,
    rows_baseline,
    gather_rows,
    scatter_add_rows
);
criterion_main!(benches);
