//! The verifier's inferred shapes held against evaluation: modules it accepts run, and to the
//! shape it declared. These tests live outside `src/verify` because they need the evaluator,
//! a layer above the verifier.

use xla_spec::Literal;
use xla_spec::eval::{RunOptions, run, run_replicated};
use xla_spec::verify::{MAX_CALL_DEPTH, Options, parse_and_verify, parse_and_verify_with};

/// A chain of `n` computations, each calling the one before it `how`: by `call`, as a `while`
/// body (one trip), or as a `conditional` branch.
fn chain(n: usize, how: &str) -> String {
    let mut s = String::from("HloModule chain\n\nc0 {\n  ROOT p = s32[] parameter(0)\n}\n\n");
    for i in 1..n {
        let prev = i - 1;
        let body = match how {
            "call" => format!("  ROOT r = s32[] call(p), to_apply=c{prev}\n"),
            "while" => format!(
                "  t = (s32[]) tuple(p)\n  w = (s32[]) while(t), condition=never, body=b{i}\n  ROOT r = s32[] get-tuple-element(w), index=0\n"
            ),
            _ => format!(
                "  k = s32[] constant(0)\n  ROOT r = s32[] conditional(k, p), branch_computations={{c{prev}}}\n"
            ),
        };
        if how == "while" {
            // One body per link, calling the previous link's computation.
            s.push_str(&format!(
                "b{i} {{\n  q = (s32[]) parameter(0)\n  x = s32[] get-tuple-element(q), index=0\n  y = s32[] call(x), to_apply=c{prev}\n  ROOT t = (s32[]) tuple(y)\n}}\n\n"
            ));
        }
        s.push_str(&format!("c{i} {{\n  p = s32[] parameter(0)\n{body}}}\n\n"));
    }
    if how == "while" {
        // `never` must come before its first use.
        s = s.replacen(
            "c0 {",
            "never {\n  q = (s32[]) parameter(0)\n  ROOT f = pred[] constant(false)\n}\n\nc0 {",
            1,
        );
    }
    let last = n - 1;
    s.push_str(&format!(
        "ENTRY e {{\n  a = s32[] parameter(0)\n  ROOT r = s32[] call(a), to_apply=c{last}\n}}\n"
    ));
    s
}

#[test]
fn twenty_thousand_nested_calls_are_refused_not_a_stack_overflow() {
    for how in ["call", "while", "conditional"] {
        let e = parse_and_verify(&chain(20_000, how)).expect_err(how);
        assert_eq!(e.rule.as_deref(), Some("module.call_depth"), "{how}: {e}");
        assert!(e.location.is_some(), "{e}");
    }
}

#[test]
fn the_deepest_allowed_chain_runs() {
    // The ENTRY adds one level to the chain's own depth.
    let m = parse_and_verify(&chain(MAX_CALL_DEPTH - 1, "call")).unwrap();
    let out = run(&m, vec![Literal::scalar(7i32)], &RunOptions::default()).unwrap();
    assert_eq!(out.result, Literal::scalar(7i32));
    let e = parse_and_verify(&chain(MAX_CALL_DEPTH, "call")).unwrap_err();
    assert_eq!(e.rule.as_deref(), Some("module.call_depth"), "{e}");
}

#[test]
fn the_run_supplies_the_replica_count_the_header_omits() {
    let text = "HloModule pmap\nadd {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT c = s32[] add(a, b)\n}\nENTRY e {\n  x = s32[] parameter(0)\n  ROOT r = s32[] all-reduce(x), replica_groups={{0,1,2,3}}, to_apply=add\n}\n";
    let for_run = |n| Options {
        replicas: Some(n),
        ..Options::default()
    };
    // Without a count, one replica: replica 1 does not exist.
    let e = parse_and_verify(text).unwrap_err();
    assert_eq!(e.rule.as_deref(), Some("collective.replica_groups"), "{e}");
    let m = parse_and_verify_with(text, &for_run(4)).unwrap();
    assert_eq!(m.replicas(), 4);
    let args = (1i16..=4)
        .map(|i| vec![Literal::scalar(i32::from(i))])
        .collect();
    let outs = run_replicated(&m, args, &RunOptions::default()).unwrap();
    assert!(outs.iter().all(|o| o.result == Literal::scalar(10i32)));
    // A module verified for 4 replicas cannot run as 2.
    let e = run_replicated(
        &m,
        vec![vec![Literal::scalar(1i32)]; 2],
        &RunOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.rule.as_deref(), Some("run.replicas"), "{e}");
    // A header that names a count must agree with the run.
    let with_header = text.replace("HloModule pmap", "HloModule pmap, replica_count=4");
    assert!(parse_and_verify_with(&with_header, &for_run(4)).is_ok());
    let e = parse_and_verify_with(&with_header, &for_run(2)).unwrap_err();
    assert_eq!(e.rule.as_deref(), Some("run.replicas"), "{e}");
    // And a header's count is the run's when the run gives none.
    let m = parse_and_verify(&with_header).unwrap();
    assert_eq!(m.replicas(), 4);
    let e = run_replicated(
        &m,
        vec![vec![Literal::scalar(1i32)]],
        &RunOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.rule.as_deref(), Some("run.replicas"), "{e}");
}

fn numerics_module(body: &str) -> String {
    format!("HloModule m\nENTRY e {{\n{body}\n}}\n")
}

#[test]
fn every_numerics_op_verifies_and_runs_to_its_declared_shape() {
    let cases = [
        "x = f32[2,2,1,2] parameter(0)\n s = f32[2] parameter(1)\n o = f32[2] parameter(2)\n ROOT r = (f32[2,2,1,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=3",
        "x = f32[2,2,1,2] parameter(0)\n s = f32[2] parameter(1)\n o = f32[2] parameter(2)\n m = f32[2] parameter(3)\n v = f32[2] parameter(4)\n ROOT r = f32[2,2,1,2] batch-norm-inference(x, s, o, m, v), epsilon=0.001, feature_index=3",
        "x = f32[2,2,1,2] parameter(0)\n s = f32[2] parameter(1)\n m = f32[2] parameter(2)\n v = f32[2] parameter(3)\n g = f32[2,2,1,2] parameter(4)\n ROOT r = (f32[2,2,1,2], f32[2], f32[2]) batch-norm-grad(x, s, m, v, g), epsilon=0.001, feature_index=3",
        "a = f32[3,4,4] parameter(0)\n ROOT r = f32[3,4,4] cholesky(a), lower=true",
        "a = f32[4,4] parameter(0)\n b = f32[4,2] parameter(1)\n ROOT r = f32[4,2] triangular-solve(a, b), left_side=true, lower=true, unit_diagonal=false, transpose_a=NO_TRANSPOSE",
        "a = c64[4,4] parameter(0)\n b = c64[2,4] parameter(1)\n ROOT r = c64[2,4] triangular-solve(a, b), left_side=false, lower=false, unit_diagonal=true, transpose_a=ADJOINT",
        "c = c64[8,32] parameter(0)\n ROOT r = c64[8,32] fft(c), fft_type=FFT, fft_length={32}",
        "c = f32[8,32] parameter(0)\n ROOT r = c64[8,17] fft(c), fft_type=RFFT, fft_length={32}",
        "c = c128[8,17] parameter(0)\n ROOT r = f64[8,32] fft(c), fft_type=IRFFT, fft_length={32}",
        "c = f32[4,6,8] parameter(0)\n ROOT r = c64[4,6,5] fft(c), fft_type=RFFT, fft_length={4,6,8}",
        "a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT r = f32[3,4] rng(a, b), distribution=rng_uniform",
        "a = s32[] parameter(0)\n b = s32[] parameter(1)\n ROOT r = s32[3] rng(a, b), distribution=rng_uniform",
        "a = f64[] parameter(0)\n b = f64[] parameter(1)\n ROOT r = f64[3] rng(a, b), distribution=rng_normal",
        "s = u64[3] parameter(0)\n ROOT r = (u64[3], u32[2,5]) rng-bit-generator(s), algorithm=rng_philox",
        "s = u64[2] parameter(0)\n ROOT r = (u64[2], u32[2,5]) rng-bit-generator(s), algorithm=rng_philox",
        "s = u64[2] parameter(0)\n ROOT r = (u64[2], f32[7]) rng-bit-generator(s), algorithm=rng_three_fry",
        "s = u64[2] parameter(0)\n ROOT r = (u64[2], u8[3]) rng-bit-generator(s)",
        "ROOT r = u64[2] rng-get-and-update-state(), delta=8",
    ];
    for body in cases {
        let m = parse_and_verify(&numerics_module(body)).unwrap_or_else(|e| panic!("{body}: {e}"));
        let args = m
            .entry()
            .parameter_shapes()
            .iter()
            .map(Literal::zeros)
            .collect();
        let out = run(&m, args, &RunOptions::default()).unwrap_or_else(|e| panic!("{body}: {e}"));
        assert!(
            out.result.fits(&m.entry().root().shape),
            "{body}: got {}",
            out.result.shape()
        );
    }
}

const ADD: &str =
    "add {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = f32[] add(a, b)\n}\n";

fn collective_module(n: i64, body: &str) -> String {
    format!("HloModule m, replica_count={n}\n{ADD}ENTRY e {{\n{body}\n}}\n")
}

#[test]
fn every_collective_verifies_and_runs_to_its_declared_shape() {
    let cases = [
        (1, "ROOT r = u32[] replica-id()"),
        (1, "ROOT r = u32[] partition-id()"),
        (
            2,
            "x = f32[4,2] parameter(0)\n ROOT r = f32[4,2] all-reduce(x), replica_groups={{0,1}}, to_apply=add",
        ),
        (
            4,
            "x = f32[4] parameter(0)\n y = f32[2] parameter(1)\n ROOT r = (f32[4], f32[2]) all-reduce(x, y), replica_groups={{0,2},{1,3}}, channel_id=1, to_apply=add",
        ),
        (
            2,
            "x = f32[4,2] parameter(0)\n ROOT r = f32[8,2] all-gather(x), replica_groups={{0,1}}, dimensions={0}",
        ),
        (
            4,
            "x = f32[4,2] parameter(0)\n ROOT r = f32[4,4] all-gather(x), replica_groups=[2,2]<=[4], dimensions={1}",
        ),
        (
            2,
            "x = f32[4,2] parameter(0)\n ROOT r = f32[2,2] reduce-scatter(x), replica_groups={{0,1}}, dimensions={0}, to_apply=add",
        ),
        (
            2,
            "x = f32[4,2] parameter(0)\n ROOT r = f32[4,2] all-to-all(x), replica_groups={{0,1}}, dimensions={0}",
        ),
        (
            2,
            "x = f32[2] parameter(0)\n y = f32[2] parameter(1)\n ROOT r = (f32[2], f32[2]) all-to-all(x, y), replica_groups={}",
        ),
        (
            2,
            "x = f32[4,2] parameter(0)\n ROOT r = f32[4,2] collective-permute(x), source_target_pairs={{0,1},{1,0}}",
        ),
        (
            2,
            "x = f32[4,2] parameter(0)\n ROOT r = f32[4,2] collective-broadcast(x), replica_groups={{0,1}}",
        ),
    ];
    for (n, body) in cases {
        let m =
            parse_and_verify(&collective_module(n, body)).unwrap_or_else(|e| panic!("{body}: {e}"));
        let args: Vec<_> = m
            .entry()
            .parameter_shapes()
            .iter()
            .map(Literal::zeros)
            .collect();
        let outs = run_replicated(&m, vec![args; n as usize], &RunOptions::default())
            .unwrap_or_else(|e| panic!("{body}: {e}"));
        for o in outs {
            assert!(
                o.result.fits(&m.entry().root().shape),
                "{body}: got {}",
                o.result.shape()
            );
        }
    }
}
