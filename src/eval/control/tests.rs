use crate::eval::{RunOptions, run};
use crate::hlo::parse_literal;
use crate::literal::Literal;
use crate::verify::parse_and_verify;

fn lit(s: &str) -> Literal {
    parse_literal(s).unwrap()
}

fn run_text(text: &str, args: &[&str], opts: &RunOptions) -> crate::error::Result<Literal> {
    let m = parse_and_verify(text)?;
    run(&m, args.iter().map(|a| lit(a)).collect(), opts).map(|o| o.result)
}

fn ok(text: &str, args: &[&str]) -> String {
    run_text(text, args, &RunOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .to_string()
}

fn err_rule(text: &str, args: &[&str], opts: &RunOptions) -> String {
    let e = run_text(text, args, opts).unwrap_err();
    e.rule.clone().unwrap_or_else(|| format!("no rule: {e}"))
}

#[test]
fn call_and_tuple_state_while() {
    let t = "HloModule m\ndbl {\n x = f32[2] parameter(0)\n ROOT y = f32[2] add(x, x)\n}\nENTRY e {\n p = f32[2] parameter(0)\n ROOT c = f32[2] call(p), to_apply=dbl\n}\n";
    assert_eq!(ok(t, &["f32[2] {1, 2}"]), "f32[2] {2, 4}");
    // A loop whose condition reads a pred carried in the state: the body clears it, so the
    // body runs exactly once.
    let t = "HloModule m\ncond {\n s = (pred[], s32[]) parameter(0)\n ROOT g = pred[] get-tuple-element(s), index=0\n}\nbody {\n s = (pred[], s32[]) parameter(0)\n i = s32[] get-tuple-element(s), index=1\n one = s32[] constant(1)\n j = s32[] add(i, one)\n f = pred[] constant(false)\n ROOT t = (pred[], s32[]) tuple(f, j)\n}\nENTRY e {\n p = (pred[], s32[]) parameter(0)\n ROOT w = (pred[], s32[]) while(p), condition=cond, body=body\n}\n";
    assert_eq!(
        ok(t, &["(pred[] true, s32[] 5)"]),
        "(pred[] false, s32[] 6)"
    );
    assert_eq!(
        ok(t, &["(pred[] false, s32[] 5)"]),
        "(pred[] false, s32[] 5)"
    );
}

#[test]
fn endless_loop_hits_the_budget() {
    let t = "HloModule m\ncond {\n s = s32[] parameter(0)\n ROOT t = pred[] constant(true)\n}\nbody {\n s = s32[] parameter(0)\n one = s32[] constant(1)\n ROOT n = s32[] add(s, one)\n}\nENTRY e {\n p = s32[] parameter(0)\n ROOT w = s32[] while(p), condition=cond, body=body\n}\n";
    let opts = RunOptions {
        max_while_iterations: 1000,
        ..RunOptions::default()
    };
    assert_eq!(err_rule(t, &["s32[] 0"], &opts), "while.iteration_budget");
}

#[test]
fn the_budget_counts_each_loop_execution() {
    // An outer loop of 3 iterations runs an inner loop of 4 each time: 12 increments. The
    // budget applies to each execution of a while, so 4 suffices and 3 does not.
    let counter = |n: usize, st: &str, name: &str| {
        let ops = vec!["u"; n + 1].join(", ");
        let mut br = vec!["yes"; n];
        br.push("no");
        format!(
            "{name} {{\n s = {st} parameter(0)\n i = s32[] get-tuple-element(s), index=0\n u = () tuple()\n ROOT c = pred[] conditional(i, {ops}), branch_computations={{{}}}\n}}\n",
            br.join(", ")
        )
    };
    let t = format!(
        "HloModule m\nyes {{\n u = () parameter(0)\n ROOT t = pred[] constant(true)\n}}\nno {{\n u = () parameter(0)\n ROOT f = pred[] constant(false)\n}}\n{}{}\
             ibody {{\n s = (s32[], s32[]) parameter(0)\n i = s32[] get-tuple-element(s), index=0\n a = s32[] get-tuple-element(s), index=1\n one = s32[] constant(1)\n i1 = s32[] add(i, one)\n a1 = s32[] add(a, one)\n ROOT t = (s32[], s32[]) tuple(i1, a1)\n}}\n\
             obody {{\n s = (s32[], s32[]) parameter(0)\n i = s32[] get-tuple-element(s), index=0\n a = s32[] get-tuple-element(s), index=1\n z = s32[] constant(0)\n init = (s32[], s32[]) tuple(z, a)\n w = (s32[], s32[]) while(init), condition=icond, body=ibody\n a1 = s32[] get-tuple-element(w), index=1\n one = s32[] constant(1)\n i1 = s32[] add(i, one)\n ROOT t = (s32[], s32[]) tuple(i1, a1)\n}}\n\
             ENTRY e {{\n p = (s32[], s32[]) parameter(0)\n ROOT w = (s32[], s32[]) while(p), condition=ocond, body=obody\n}}\n",
        counter(4, "(s32[], s32[])", "icond"),
        counter(3, "(s32[], s32[])", "ocond"),
    );
    let arg = ["(s32[] 0, s32[] 0)"];
    let budget = |b| RunOptions {
        max_while_iterations: b,
        ..RunOptions::default()
    };
    assert_eq!(
        run_text(&t, &arg, &budget(4)).unwrap().to_string(),
        "(s32[] 3, s32[] 12)"
    );
    assert_eq!(err_rule(&t, &arg, &budget(3)), "while.iteration_budget");
}

#[test]
fn conditional_forms() {
    let t = "HloModule m\nneg {\n x = f32[2] parameter(0)\n m = f32[2] constant({-1, -1})\n ROOT y = f32[2] multiply(x, m)\n}\nident {\n ROOT x = f32[2] parameter(0)\n}\ndbl {\n x = f32[2] parameter(0)\n ROOT y = f32[2] add(x, x)\n}\nENTRY e {\n i = s32[] parameter(0)\n x = f32[2] parameter(1)\n ROOT c = f32[2] conditional(i, x, x, x), branch_computations={neg, ident, dbl}\n}\n";
    for (i, want) in [
        (0, "{-1, -2}"),
        (1, "{1, 2}"),
        (2, "{2, 4}"),
        (3, "{2, 4}"),
        (-1, "{2, 4}"),
    ] {
        let got = ok(t, &[&format!("s32[] {i}"), "f32[2] {1, 2}"]);
        assert_eq!(got, format!("f32[2] {want}"), "index {i}");
    }
    let t = "HloModule m\nneg {\n x = f32[2] parameter(0)\n m = f32[2] constant({-1, -1})\n ROOT y = f32[2] multiply(x, m)\n}\nident {\n ROOT x = f32[2] parameter(0)\n}\nENTRY e {\n p = pred[] parameter(0)\n x = f32[2] parameter(1)\n ROOT c = f32[2] conditional(p, x, x), true_computation=neg, false_computation=ident\n}\n";
    assert_eq!(ok(t, &["pred[] true", "f32[2] {1, 2}"]), "f32[2] {-1, -2}");
    assert_eq!(ok(t, &["pred[] false", "f32[2] {1, 2}"]), "f32[2] {1, 2}");
}

#[test]
fn tokens_and_barriers() {
    let t = "HloModule m\nENTRY e {\n x = (f32[2], s32[]) parameter(0)\n a = token[] after-all()\n b = token[] after-all(a, a)\n d = (f32[2], s32[]) add-dependency(x, b)\n ROOT o = (f32[2], s32[]) opt-barrier(d)\n}\n";
    assert_eq!(
        ok(t, &["(f32[2] {1, 2}, s32[] 3)"]),
        "(f32[2] {1, 2}, s32[] 3)"
    );
}

#[test]
fn custom_call_buffers_follow_declared_layouts() {
    // y arrives column-major; myfunc reads it through its layout, so the answer is the same.
    let t = "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n y = f32[2,3] parameter(1)\n ROOT z = f32[3,3] custom-call(x, y), custom_call_target=\"myfunc\", operand_layout_constraints={f32[2]{0}, f32[2,3]{0,1}}\n}\n";
    let want = "f32[3,3] {{42, 52, 62}, {11, 21, 31}, {42, 52, 62}}";
    let args = ["f32[2] {1, 2}", "f32[2,3] {{10, 20, 30}, {40, 50, 60}}"];
    assert_eq!(ok(t, &args), want);
    let t2 = t.replace(
        ", operand_layout_constraints={f32[2]{0}, f32[2,3]{0,1}}",
        "",
    );
    assert_eq!(ok(&t2, &args), want);
    // The raw buffer shows the column-major order the target sees.
    let t = "HloModule m\nENTRY e {\n y = f32[2,3] parameter(0)\n ROOT z = f32[6] custom-call(y), custom_call_target=\"xla_spec.raw_buffer\", operand_layout_constraints={f32[2,3]{0,1}}\n}\n";
    assert_eq!(
        ok(t, &["f32[2,3] {{1, 2, 3}, {4, 5, 6}}"]),
        "f32[6] {1, 4, 2, 5, 3, 6}"
    );
    let t = "HloModule m\nENTRY e {\n y = f32[2] parameter(0)\n ROOT z = f32[2] custom-call(y), custom_call_target=\"nope\"\n}\n";
    assert_eq!(
        err_rule(t, &["f32[2] {1, 2}"], &RunOptions::default()),
        "custom-call.unknown_target"
    );
}

#[test]
fn a_registered_target_runs() {
    let mut reg = super::CustomCallRegistry::with_builtins();
    reg.register(
        "negate_all",
        std::sync::Arc::new(
            |out: &mut [super::CustomCallBuffer], ins: &[super::CustomCallBuffer]| match (
                &mut out[0].data,
                &ins[0].data,
            ) {
                (crate::literal::ArrayData::F32(o), crate::literal::ArrayData::F32(i)) => {
                    o.iter_mut().zip(i).for_each(|(o, i)| *o = -i);
                    Ok(())
                }
                _ => Err(crate::error::Error::runtime("negate_all takes f32")),
            },
        ),
    );
    let opts = RunOptions {
        custom_calls: std::sync::Arc::new(reg),
        ..RunOptions::default()
    };
    let t = "HloModule m\nENTRY e {\n y = f32[2] parameter(0)\n ROOT z = f32[2] custom-call(y), custom_call_target=\"negate_all\"\n}\n";
    assert_eq!(
        run_text(t, &["f32[2] {1, 2}"], &opts).unwrap().to_string(),
        "f32[2] {-1, -2}"
    );
}

#[test]
fn custom_call_tuple_results_and_output_layouts() {
    // Two outputs: the buffer of a column-major operand, and myfunc's result laid out
    // column-major; tuple operands are flattened into their arrays.
    let mut reg = super::CustomCallRegistry::with_builtins();
    reg.register(
        "split",
        std::sync::Arc::new(
            |out: &mut [super::CustomCallBuffer], ins: &[super::CustomCallBuffer]| {
                if out.len() != 2 || ins.len() != 2 {
                    return Err(crate::error::Error::runtime("split takes 2 and gives 2"));
                }
                out[0].data = ins[1].data.clone();
                out[1].data = ins[0].data.clone();
                Ok(())
            },
        ),
    );
    let opts = RunOptions {
        custom_calls: std::sync::Arc::new(reg),
        ..RunOptions::default()
    };
    let t = "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n y = s32[] parameter(1)\n p = (f32[2], s32[]) tuple(x, y)\n t = token[] after-all()\n ROOT z = (s32[], f32[2]) custom-call(p, t), custom_call_target=\"split\"\n}\n";
    assert_eq!(
        run_text(t, &["f32[2] {1, 2}", "s32[] 9"], &opts)
            .unwrap()
            .to_string(),
        "(s32[] 9, f32[2] {1, 2})"
    );
    // A column-major declared result: myfunc writes through the layout, so the values are
    // the same and the value carries the declared layout.
    let t = "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n y = f32[2,3] parameter(1)\n ROOT z = f32[3,3]{0,1} custom-call(x, y), custom_call_target=\"myfunc\"\n}\n";
    assert_eq!(
        ok(
            t,
            &["f32[2] {1, 2}", "f32[2,3] {{10, 20, 30}, {40, 50, 60}}"]
        ),
        "f32[3,3]{0,1} {{42, 52, 62}, {11, 21, 31}, {42, 52, 62}}"
    );
    // A target that breaks the buffer contract is reported, not trusted.
    let mut reg = super::CustomCallRegistry::with_builtins();
    reg.register(
        "shrink",
        std::sync::Arc::new(
            |out: &mut [super::CustomCallBuffer], _: &[super::CustomCallBuffer]| {
                out[0].data = crate::literal::ArrayData::F32(vec![1.0].into());
                Ok(())
            },
        ),
    );
    let opts = RunOptions {
        custom_calls: std::sync::Arc::new(reg),
        ..RunOptions::default()
    };
    let t = "HloModule m\nENTRY e {\n ROOT z = f32[2] custom-call(), custom_call_target=\"shrink\"\n}\n";
    assert_eq!(err_rule(t, &[], &opts), "custom-call.target_contract");
}

#[test]
fn infeed_and_outfeed_in_token_order() {
    let t = "HloModule m\nENTRY e {\n t0 = token[] after-all()\n a = (f32[2], token[]) infeed(t0)\n t1 = token[] get-tuple-element(a), index=1\n e0 = ((), token[]) infeed(t1)\n t2 = token[] get-tuple-element(e0), index=1\n b = (s32[], token[]) infeed(t2)\n t3 = token[] get-tuple-element(b), index=1\n bv = s32[] get-tuple-element(b), index=0\n o1 = token[] outfeed(bv, t3), outfeed_shape=s32[]\n av = f32[2] get-tuple-element(a), index=0\n o2 = token[] outfeed(av, o1)\n ROOT r = f32[2] add(av, av)\n}\n";
    let m = parse_and_verify(t).unwrap();
    let opts = RunOptions {
        infeed: vec![lit("f32[2] {1, 2}"), lit("s32[] 7")],
        ..RunOptions::default()
    };
    let out = run(&m, vec![], &opts).unwrap();
    assert_eq!(out.result.to_string(), "f32[2] {2, 4}");
    let feeds: Vec<String> = out.outfeed.iter().map(|l| l.to_string()).collect();
    assert_eq!(feeds, ["s32[] 7", "f32[2] {1, 2}"]);
    let short = RunOptions {
        infeed: vec![lit("f32[2] {1, 2}")],
        ..RunOptions::default()
    };
    assert_eq!(err_rule(t, &[], &short), "infeed.empty");
    let wrong = RunOptions {
        infeed: vec![lit("f32[3] {1, 2, 3}")],
        ..RunOptions::default()
    };
    assert_eq!(err_rule(t, &[], &wrong), "infeed.value_shape");
}

const SEND_RECV: &str = "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n t = token[] after-all()\n r = (f32[2], u32[], token[]) recv(t), channel_id=1\n s = (f32[2], u32[], token[]) send(x, t), channel_id=1\n rd = (f32[2], token[]) recv-done(r), channel_id=1\n sd = token[] send-done(s), channel_id=1\n ROOT v = f32[2] get-tuple-element(rd), index=0\n}\n";

#[test]
fn send_and_recv_rendezvous() {
    assert_eq!(ok(SEND_RECV, &["f32[2] {3, 4}"]), "f32[2] {3, 4}");
    // Send before its recv: the send waits for a recv that comes later.
    let early_send = SEND_RECV
        .replace(" r = (f32[2], u32[], token[]) recv(t), channel_id=1\n", "")
        .replace(
            " rd = ",
            " r = (f32[2], u32[], token[]) recv(t), channel_id=1\n rd = ",
        );
    assert_eq!(
        err_rule(&early_send, &["f32[2] {3, 4}"], &RunOptions::default()),
        "channel.deadlock"
    );
}

#[test]
fn the_seeds_cyclic_schedule_deadlocks() {
    // Computation a waits on channel 1 before sending on 2; b waits on 2 before sending on 1.
    let t = "HloModule m\na {\n x = f32[] parameter(0)\n t = token[] after-all()\n r = (f32[], u32[], token[]) recv(t), channel_id=1\n rd = (f32[], token[]) recv-done(r), channel_id=1\n s = (f32[], u32[], token[]) send(x, t), channel_id=2\n sd = token[] send-done(s), channel_id=2\n ROOT v = f32[] get-tuple-element(rd), index=0\n}\nb {\n x = f32[] parameter(0)\n t = token[] after-all()\n r = (f32[], u32[], token[]) recv(t), channel_id=2\n rd = (f32[], token[]) recv-done(r), channel_id=2\n s = (f32[], u32[], token[]) send(x, t), channel_id=1\n sd = token[] send-done(s), channel_id=1\n ROOT v = f32[] get-tuple-element(rd), index=0\n}\nENTRY e {\n x = f32[] parameter(0)\n ca = f32[] call(x), to_apply=a\n cb = f32[] call(x), to_apply=b\n ROOT s = f32[] add(ca, cb)\n}\n";
    assert_eq!(
        err_rule(t, &["f32[] 1"], &RunOptions::default()),
        "channel.deadlock"
    );
}

fn replicated(
    text: &str,
    args: Vec<Vec<Literal>>,
    opts: &RunOptions,
) -> crate::error::Result<Vec<String>> {
    let m = parse_and_verify(text)?;
    crate::eval::run_replicated(&m, args, opts)
        .map(|outs| outs.iter().map(|o| o.result.to_string()).collect())
}

const PAIRS: &str = "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}";

#[test]
fn replicas_exchange_through_a_channel() {
    // Each replica posts its recv first, then sends to the other: a valid schedule.
    let t = format!(
        "HloModule m, replica_count=2\nENTRY e {{\n x = f32[] parameter(0)\n t = token[] after-all()\n r = (f32[], u32[], token[]) recv(t), channel_id=1, {PAIRS}\n s = (f32[], u32[], token[]) send(x, t), channel_id=1, {PAIRS}\n rd = (f32[], token[]) recv-done(r), channel_id=1\n sd = token[] send-done(s), channel_id=1\n ROOT v = f32[] get-tuple-element(rd), index=0\n}}\n"
    );
    let args = vec![vec![lit("f32[] 10")], vec![lit("f32[] 20")]];
    assert_eq!(
        replicated(&t, args, &RunOptions::default()).unwrap(),
        ["f32[] 20", "f32[] 10"]
    );
}

#[test]
fn a_run_without_the_peer_is_refused_before_it_starts() {
    // One replica of a two-replica module would wait for a peer that does not exist: the run's
    // replica count must be the header's, so it is refused before anything runs.
    let t = format!(
        "HloModule m, replica_count=2\nENTRY e {{\n x = f32[] parameter(0)\n t = token[] after-all()\n r = (f32[], u32[], token[]) recv(t), channel_id=1, {PAIRS}\n s = (f32[], u32[], token[]) send(x, t), channel_id=1, {PAIRS}\n rd = (f32[], token[]) recv-done(r), channel_id=1\n ROOT v = f32[] get-tuple-element(rd), index=0\n}}\n"
    );
    let start = std::time::Instant::now();
    let e = replicated(&t, vec![vec![lit("f32[] 1")]], &RunOptions::default()).unwrap_err();
    assert_eq!(e.rule.as_deref(), Some("run.replicas"), "{e}");
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn a_cross_replica_cycle_times_out() {
    // Each replica waits in recv-done for the other's send, which comes after it.
    let t = format!(
        "HloModule m, replica_count=2\nENTRY e {{\n x = f32[] parameter(0)\n t = token[] after-all()\n r = (f32[], u32[], token[]) recv(t), channel_id=1, {PAIRS}\n rd = (f32[], token[]) recv-done(r), channel_id=1\n s = (f32[], u32[], token[]) send(x, t), channel_id=1, {PAIRS}\n sd = token[] send-done(s), channel_id=1\n ROOT v = f32[] get-tuple-element(rd), index=0\n}}\n"
    );
    let args = vec![vec![lit("f32[] 10")], vec![lit("f32[] 20")]];
    let opts = RunOptions {
        rendezvous_timeout: std::time::Duration::from_millis(200),
        ..RunOptions::default()
    };
    let e = replicated(&t, args, &opts).unwrap_err();
    assert_eq!(e.rule.as_deref(), Some("channel.deadlock"), "{e}");
}

#[test]
fn invalid_control_programs_are_refused() {
    let cases = [
        (
            "HloModule m\ncond {\n s = s32[] parameter(0)\n ROOT t = pred[] constant(true)\n}\nbody {\n s = s32[] parameter(0)\n ROOT f = f32[] constant(1)\n}\nENTRY e {\n p = s32[] parameter(0)\n ROOT w = s32[] while(p), condition=cond, body=body\n}\n",
            "while.body_result",
        ),
        (
            "HloModule m\ncond {\n s = s32[] parameter(0)\n ROOT t = s32[] constant(1)\n}\nbody {\n ROOT s = s32[] parameter(0)\n}\nENTRY e {\n p = s32[] parameter(0)\n ROOT w = s32[] while(p), condition=cond, body=body\n}\n",
            "while.condition_returns_pred",
        ),
        (
            "HloModule m\nb0 {\n ROOT x = f32[2] parameter(0)\n}\nb1 {\n x = s32[2] parameter(0)\n ROOT y = f32[2] constant({0, 0})\n}\nENTRY e {\n i = s32[] parameter(0)\n x = f32[2] parameter(1)\n ROOT c = f32[2] conditional(i, x, x), branch_computations={b0, b1}\n}\n",
            "conditional.branch_parameter",
        ),
        (
            "HloModule m\nb0 {\n ROOT x = f32[2] parameter(0)\n}\nENTRY e {\n i = s64[] parameter(0)\n x = f32[2] parameter(1)\n ROOT c = f32[2] conditional(i, x), branch_computations={b0}\n}\n",
            "conditional.selector_type",
        ),
        (
            "HloModule m\nf {\n ROOT x = f32[2] parameter(0)\n}\nENTRY e {\n x = f32[3] parameter(0)\n ROOT c = f32[2] call(x), to_apply=f\n}\n",
            "call.signature",
        ),
        (
            "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n t = token[] after-all()\n ROOT o = token[] outfeed(x, t), outfeed_shape=f32[3]\n}\n",
            "outfeed.shape_matches",
        ),
        (
            "HloModule m\nENTRY e {\n t = token[] after-all()\n ROOT i = ((f32[2], (s32[])), token[]) infeed(t)\n}\n",
            "infeed.no_nested_tuple",
        ),
        (
            "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n ROOT a = token[] after-all(x)\n}\n",
            "after-all.token_operands",
        ),
        (
            "HloModule m\nENTRY e {\n x = f32[2] parameter(0)\n t = token[] after-all()\n ROOT s = (f32[2], u32[], token[]) send(x, t)\n}\n",
            "send.channel_id",
        ),
    ];
    for (t, want) in cases {
        let e = parse_and_verify(t).unwrap_err();
        assert_eq!(e.rule.as_deref(), Some(want), "{t}\n{e}");
    }
}

#[test]
fn composite_call_runs_its_decomposition_and_checks_its_attributes() {
    let t = |fe: &str| {
        format!(
            "HloModule m\nadd_n {{\n x = f32[2] parameter(0)\n c = f32[] constant(2)\n b = f32[2] broadcast(c), dimensions={{}}\n ROOT r = f32[2] add(x, b)\n}}\nENTRY e {{\n p = f32[2] parameter(0)\n ROOT c = f32[2] call(p), to_apply=add_n, is_composite=true{fe}\n}}\n"
        )
    };
    let good = t(
        ", frontend_attributes={composite.attributes={n = 2 : i32},composite.name=\"my.add_n\",composite.version=\"1\"}",
    );
    assert_eq!(ok(&good, &["f32[2] {1, 5}"]), "f32[2] {3, 7}");
    let opts = RunOptions::default();
    assert_eq!(
        err_rule(&t(""), &["f32[2] {1, 5}"], &opts),
        "call.composite_name"
    );
    let no_name = t(", frontend_attributes={composite.name=\"\"}");
    assert_eq!(
        err_rule(&no_name, &["f32[2] {1, 5}"], &opts),
        "call.composite_name"
    );
    let bad_version = t(", frontend_attributes={composite.name=\"a\",composite.version=\"-1\"}");
    assert_eq!(
        err_rule(&bad_version, &["f32[2] {1, 5}"], &opts),
        "call.composite_version"
    );
    let empty_attrs = t(", frontend_attributes={composite.name=\"a\",composite.attributes=\"\"}");
    assert_eq!(
        err_rule(&empty_attrs, &["f32[2] {1, 5}"], &opts),
        "call.composite_attributes"
    );
}

fn onednn(target: &str, params: &[&str], result: &str, config: &str) -> String {
    let mut t = String::from("HloModule m\nENTRY e {\n");
    for (i, p) in params.iter().enumerate() {
        t += &format!("  p{i} = {p} parameter({i})\n");
    }
    let ops: Vec<String> = (0..params.len()).map(|i| format!("p{i}")).collect();
    t += &format!(
        "  ROOT r = {result} custom-call({}), custom_call_target=\"{target}\", backend_config={config}\n}}\n",
        ops.join(", ")
    );
    t
}

#[test]
fn onednn_matmul_post_ops_and_broadcasts() {
    let a = "f32[2,3] {{1, -2, 3}, {4, 5, -6}}";
    let b = "f32[3,2] {{1, 0}, {0, 1}, {1, 1}}";
    // The product is {{4, 1}, {-2, -1}}.
    let t = onednn(
        "__onednn$matmul",
        &["f32[2,3]", "f32[3,2]"],
        "f32[2,2]",
        "{}",
    );
    assert_eq!(ok(&t, &[a, b]), "f32[2,2] {{4, 1}, {-2, -1}}");
    // A config written as a quoted string, as older dumps do.
    let t = onednn(
        "__onednn$matmul",
        &["f32[2,3]", "f32[3,2]", "f32[2,1]"],
        "f32[2,2]",
        r#""{\"onednn_matmul_config\":{\"fusions\":{\"ops\":[\"BINARY_ADD\",\"RELU\",\"LINEAR\"],\"alpha\":0.5}}}""#,
    );
    assert_eq!(
        ok(&t, &[a, b, "f32[2,1] {{0}, {3}}"]),
        "f32[2,2] {{2, 0.5}, {0.5, 1}}"
    );
    // alpha_typecast (0.5f's bits), as other XLA versions write it.
    let t = onednn(
        "__onednn$matmul",
        &["f32[2,3]", "f32[3,2]"],
        "f32[2,2]",
        r#"{"onednn_matmul_config":{"fusions":{"ops":["LINEAR"],"alpha_typecast":1056964608}}}"#,
    );
    assert_eq!(ok(&t, &[a, b]), "f32[2,2] {{2, 0.5}, {-1, -0.5}}");
    // Batch dimension 1 on one side broadcasts.
    let t = onednn(
        "__onednn$matmul",
        &["f32[2,1,2]", "f32[1,2,1]"],
        "f32[2,1,1]",
        "{}",
    );
    assert_eq!(
        ok(
            &t,
            &[
                "f32[2,1,2] {{{1, 2}}, {{3, 4}}}",
                "f32[1,2,1] {{{10}, {1}}}"
            ]
        ),
        "f32[2,1,1] {{{12}}, {{34}}}"
    );
}

#[test]
fn onednn_convolution_with_post_ops_and_groups() {
    // 1-D NWC, two groups of one input feature each, two outputs per group; then BIAS and RELU,
    // which XLA:CPU (jaxlib 0.10.2) aborts on.
    let cfg = r#"{"onednn_conv_config":{"input":{"data":{"batch_dim":"0","feature_dim":"2","spatial_dims":["1"]}},"kernel":{"filter":{"input_feature_dim":"1","output_feature_dim":"2","spatial_dims":["0"]}},"output":{"data":{"batch_dim":"0","feature_dim":"2","spatial_dims":["1"]}},"window":{"pad_left":["0"],"pad_right":["0"],"strides":["1"],"window_dilations":["1"]},"feature_groups":"2","fusions":{"ops":["BIAS","RELU"]}}}"#;
    let t = onednn(
        "__onednn$convolution",
        &["f32[1,2,2]", "f32[1,1,4]", "f32[1,1,4]"],
        "f32[1,2,4]",
        cfg,
    );
    // Output features 0,1 see input feature 0; 2,3 see input feature 1.
    assert_eq!(
        ok(
            &t,
            &[
                "f32[1,2,2] {{{1, 10}, {2, 20}}}",
                "f32[1,1,4] {{{1, -1, 1, -1}}}",
                "f32[1,1,4] {{{0, 0, -15, 100}}}"
            ]
        ),
        "f32[1,2,4] {{{1, 0, 0, 90}, {2, 0, 5, 80}}}"
    );
}

#[test]
fn onednn_layernorm_and_softmax() {
    let t = onednn(
        "__onednn$layernorm",
        &["f32[1,4]"],
        "f32[1,4]",
        r#"{"onednn_layer_norm_config":{"epsilon_typecast":0}}"#,
    );
    // Mean 2.5, variance 1.25 (divided by n).
    let got = ok(&t, &["f32[1,4] {{1, 2, 3, 4}}"]);
    assert_eq!(
        got,
        "f32[1,4] {{-1.3416408, -0.4472136, 0.4472136, 1.3416408}}"
    );
    let t = onednn(
        "__onednn$softmax",
        &["f32[3,1]"],
        "f32[3,1]",
        r#"{"onednn_softmax_config":{"softmax_axis":0}}"#,
    );
    assert_eq!(
        ok(&t, &["f32[3,1] {{1000}, {1000}, {-inf}}"]),
        "f32[3,1] {{0.5}, {0.5}, {0}}"
    );
}

#[test]
fn onednn_configs_that_do_not_fit_are_contract_errors() {
    let o = RunOptions::default();
    let a = [
        "f32[2,3] {{1, 2, 3}, {4, 5, 6}}",
        "f32[3,2] {{1, 0}, {0, 1}, {1, 1}}",
    ];
    let mm =
        |cfg: &str, result: &str| onednn("__onednn$matmul", &["f32[2,3]", "f32[3,2]"], result, cfg);
    let cases = [
        mm(
            r#"{"onednn_matmul_config":{"fusions":{"ops":["BIAS"]}}}"#,
            "f32[2,2]",
        ),
        mm(
            r#"{"onednn_matmul_config":{"fusions":{"ops":["NO_SUCH_OP"]}}}"#,
            "f32[2,2]",
        ),
        mm(
            r#"{"onednn_matmul_config":{"transpose_a":true}}"#,
            "f32[2,2]",
        ),
        mm("{}", "f32[2,3]"),
        mm("{not json}", "f32[2,2]"),
        onednn(
            "__onednn$softmax",
            &["f32[2]"],
            "f32[2]",
            r#"{"onednn_softmax_config":{"softmax_axis":"1"}}"#,
        ),
        onednn(
            "__onednn$layernorm",
            &["f32[2,3]"],
            "f32[2,3]",
            r#"{"onednn_layer_norm_config":{"rescale":"SCALE_AND_SHIFT"}}"#,
        ),
        onednn(
            "__onednn$convolution",
            &["f32[2,3]", "f32[3,2]"],
            "f32[2,2]",
            r#"{"onednn_conv_config":{"input":{"data":{"batch_dim":"0","feature_dim":"0"}}}}"#,
        ),
    ];
    for t in cases {
        let args: Vec<&str> = if t.contains("softmax") {
            vec!["f32[2] {1, 2}"]
        } else if t.contains("layernorm") {
            vec![a[0]]
        } else {
            a.to_vec()
        };
        assert_eq!(
            err_rule(&t, &args, &o),
            "custom-call.target_contract",
            "{t}"
        );
    }
}
