//! Criterion benchmarks for NumPy file I/O (`xla-spec run @x.npy`, `--args`, `--out`): reading
//! and writing 2^21 f32 (8 MiB) as `.npy` and `.npz`, next to reading and writing the same bytes
//! as a plain file in the same run. The target is "near the speed of the disk": within a small
//! factor of the plain file, not of text parsing, so the HLO literal text of the same array is
//! measured too, for scale.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use xla_spec::hlo::parse_literal;
use xla_spec::literal::npy::{self, Target};
use xla_spec::literal::{Array, Literal};
use xla_spec::shape::Shape;

const N: usize = 1 << 21;

fn io(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("xla-spec-bench-io-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let v: Vec<f32> = (0..N).map(|i| (i as f32).sin()).collect();
    let a = Array::from_vec(vec![1024, (N / 1024) as i64], v).unwrap();
    let lit = Literal::Array(a.clone());
    let shape: Shape = lit.shape();
    let target = Target {
        index: 0,
        name: "x",
        shape: &shape,
    };
    let (npy_path, npz_path, raw_path) = (dir.join("x.npy"), dir.join("x.npz"), dir.join("x.raw"));
    npy::write_npy(&npy_path, &a).unwrap();
    npy::write_npz(&npz_path, &[("arg0".to_string(), &a)]).unwrap();
    let raw = std::fs::read(&npy_path).unwrap();
    std::fs::write(&raw_path, &raw).unwrap();
    let text = lit.to_string();

    let mut g = c.benchmark_group("io_f32_2^21");
    g.throughput(Throughput::Bytes((N * 4) as u64));
    g.sample_size(10);
    g.bench_function("baseline/read_file", |b| {
        b.iter(|| black_box(std::fs::read(&raw_path).unwrap()))
    });
    g.bench_function("read/npy", |b| {
        b.iter(|| black_box(npy::read_npy(&npy_path, &target).unwrap()))
    });
    g.bench_function("read/npz", |b| {
        b.iter(|| black_box(npy::read_npz_args(&npz_path, std::slice::from_ref(&target)).unwrap()))
    });
    g.bench_function("read/hlo_text", |b| {
        b.iter(|| black_box(parse_literal(&text).unwrap()))
    });
    g.bench_function("baseline/write_file", |b| {
        b.iter(|| std::fs::write(dir.join("w.raw"), black_box(&raw)).unwrap())
    });
    g.bench_function("write/npy", |b| {
        b.iter(|| npy::write_npy(&dir.join("w.npy"), black_box(&a)).unwrap())
    });
    g.bench_function("write/npz", |b| {
        b.iter(|| {
            npy::write_npz(&dir.join("w.npz"), &[("out0".to_string(), black_box(&a))]).unwrap()
        })
    });
    g.finish();
    std::fs::remove_dir_all(&dir).unwrap();
}

criterion_group!(benches, io);
criterion_main!(benches);
