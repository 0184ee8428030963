//! Criterion benchmarks for the data-movement family. Each group measures a plain memory copy of
//! the same bytes in the same run, as the yardstick the family's targets are stated against:
//! transpose and pad of 2^24 f32 elements within 3× of that copy.
//!
//! Three levels are measured: the box-copy kernel into an existing buffer (`kernel_into/*`,
//! directly comparable with `baseline/memcpy`), the kernel into a fresh buffer (`kernel/*`), and
//! the whole op through the evaluator (`op/*`). The last two pay for allocating and first
//! touching 64 MiB, as `baseline/clone` (a copy into a fresh buffer) does.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use xla_spec::Literal;
use xla_spec::eval::movement::kernels::{copy_box, gather};
use xla_spec::eval::{RunOptions, run};
use xla_spec::verify::parse_and_verify;

const N: usize = 1 << 12;

fn movement(c: &mut Criterion) {
    let n = N * N;
    let src: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut dst = vec![0.0f32; n];
    let mut g = c.benchmark_group("movement_f32_2^24");
    g.throughput(Throughput::Bytes((n * 4) as u64));
    g.sample_size(10);
    g.bench_function("baseline/memcpy", |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&src));
            black_box(&dst);
        })
    });
    // The same copy into a freshly allocated buffer: what any op producing a new value pays.
    g.bench_function("baseline/clone", |b| {
        b.iter(|| black_box(black_box(&src).clone()))
    });
    g.bench_function("kernel/transpose", |b| {
        b.iter(|| black_box(gather(black_box(&src), 0, &[1, N as isize], &[N, N], 0.0)))
    });

    // The kernels into an existing buffer, exactly comparable with the memcpy baseline.
    let mut out = vec![0.0f32; n];
    g.bench_function("kernel_into/transpose", |b| {
        b.iter(|| {
            copy_box(
                black_box(&src),
                0,
                &[1, N as isize],
                &mut out,
                0,
                &[N, 1],
                &[N, N],
            );
            black_box(&out);
        })
    });
    let m = N - 1;
    let small_src = vec![1.0f32; m * m];
    g.bench_function("kernel_into/pad", |b| {
        b.iter(|| {
            out.fill(0.0);
            copy_box(
                black_box(&small_src),
                0,
                &[m as isize, 1],
                &mut out,
                0,
                &[N, 1],
                &[m, m],
            );
            black_box(&out);
        })
    });

    // Pad's kernel in a fresh buffer: fill, then copy an [N-1, N-1] array into [N, N].
    g.bench_function("kernel/pad", |b| {
        b.iter(|| {
            let mut out = vec![0.0f32; n];
            copy_box(
                black_box(&small_src),
                0,
                &[m as isize, 1],
                &mut out,
                0,
                &[N, 1],
                &[m, m],
            );
            black_box(out)
        })
    });

    // The whole ops through the evaluator (argument cloning is setup, not measured).
    let arg = Literal::vec(vec![N as i64, N as i64], src.clone()).expect("argument");
    bench_op(
        &mut g,
        "op/transpose",
        &format!(
            "p = f32[{N},{N}] parameter(0)\n  ROOT t = f32[{N},{N}] transpose(p), dimensions={{1,0}}"
        ),
        &arg,
    );
    // Pad a [N-1, N-1] array by one row and one column to [N, N] (2^24 result elements).
    let small = Literal::vec(vec![m as i64, m as i64], vec![1.0f32; m * m]).expect("argument");
    bench_op(
        &mut g,
        "op/pad",
        &format!(
            "p = f32[{m},{m}] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[{N},{N}] pad(p, z), padding=0_1x1_0"
        ),
        &small,
    );
    g.finish();
}

criterion_group!(benches, movement);
criterion_main!(benches);

/// Measures one ENTRY body (HLO instructions) run by the evaluator on one argument.
fn bench_op(
    g: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    name: &str,
    body: &str,
    arg: &Literal,
) {
    let module = parse_and_verify(&format!("HloModule m\nENTRY e {{\n  {body}\n}}\n"))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let opts = RunOptions::default();
    g.bench_function(name, |b| {
        b.iter_batched(
            || vec![arg.clone()],
            |args| black_box(run(&module, args, &opts).expect("the op runs")),
            BatchSize::PerIteration,
        )
    });
}
