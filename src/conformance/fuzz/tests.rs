use super::*;
use crate::backend::{ReferenceBackend, Response};
use crate::conformance::golden::parse_case;
use crate::literal::Scalar;
use crate::shape::ArrayShape;

fn config(seed: u64, cases: u64, ops: &[&str]) -> Config {
    Config {
        seed,
        cases: Some(cases),
        time: None,
        ops: ops.iter().map(|s| s.to_string()).collect(),
        out: None,
        size: 4,
        no_subnormals: false,
    }
}

#[test]
fn the_reference_agrees_with_itself_and_draws_are_reproducible() {
    let c = config(7, 400, &[]);
    let a = run(&c, &mut ReferenceBackend::default(), &mut |_| {});
    let b = run(&c, &mut ReferenceBackend::default(), &mut |_| {});
    assert!(a.findings.is_empty(), "{:#?}", a.findings.first());
    assert_eq!(a.cases, 400);
    assert_eq!(a.per_op, b.per_op);
    assert_eq!(a.discarded, b.discarded);
    // The generators aim at valid programs: most drafts must pass the verifier.
    assert!(a.discarded < a.cases / 4, "{} discarded", a.discarded);
    // Every family is drawn in 400 cases.
    let ops: Vec<&String> = a.per_op.keys().collect();
    for want in [
        "pad",
        "reduce",
        "reduce-window",
        "dot",
        "convolution",
        "chain",
        "convert",
        "gather",
        "scatter",
        "sort",
        "select-and-scatter",
        "rng-bit-generator",
    ] {
        assert!(
            a.per_op.keys().any(|k| k == want),
            "{want} never drawn: {ops:?}"
        );
    }
}

/// Every family's drafts pass the reference's verifier and run, for 200 seeds each: a generator
/// that starts drawing invalid programs fails here, not as a silently growing discard count.
#[test]
fn every_family_draws_programs_the_reference_runs() {
    let mut misses = vec![];
    for &family in FAMILIES {
        for seed in 0..200 {
            for no_subnormals in [false, true] {
                let mut rng = Rng::new(seed);
                rng.no_subnormals = no_subnormals;
                let d = draw::draft(family, &mut rng, 4);
                assert_eq!(d.family, family);
                if let Err(e) = reference(&d) {
                    misses.push(format!("{family} seed {seed}: {e}\n{}", d.hlo));
                }
            }
        }
    }
    assert!(
        misses.is_empty(),
        "{} drafts refused, first: {}",
        misses.len(),
        misses[0]
    );
}

fn drafts(family: &str, n: u64) -> Vec<Draft> {
    (0..n)
        .map(|s| draw::draft(family, &mut Rng::new(s), 4))
        .collect()
}

#[test]
fn collectives_run_on_one_to_four_replicas_with_their_own_arguments() {
    let ds = drafts("collective", 300);
    let mut counts = [0usize; 5];
    for d in &ds {
        let n = d.replicas();
        assert!((1..=4).contains(&n), "{n} replicas");
        counts[n] += 1;
        assert!(d.hlo.contains(&format!("replica_count={n}")), "{}", d.hlo);
        assert!(d.args.iter().all(|a| a.len() == 1));
        let (_, _, want) = reference(d).unwrap();
        assert_eq!(want.len(), n);
    }
    assert!(counts[1..].iter().all(|&c| c > 20), "{counts:?}");
    // Replicas hold arguments of their own, and both `{}` and explicit groups turn up.
    assert!(
        ds.iter()
            .any(|d| d.replicas() > 1 && d.args[0] != d.args[1])
    );
    assert!(ds.iter().any(|d| d.hlo.contains("replica_groups={}")));
    assert!(ds.iter().any(|d| d.hlo.contains("replica_groups={{")));
    for op in draw::OP_NAMES
        .iter()
        .filter(|o| draw::family_of(o) == Some("collective"))
    {
        assert!(ds.iter().any(|d| d.op.starts_with(op)), "{op} never drawn");
    }
}

#[test]
fn layouts_really_appear_and_leave_answers_alone() {
    let mut odd = 0;
    for family in ["unary", "binary", "movement", "chain", "convert"] {
        for d in drafts(family, 200) {
            if !draw::layout::has_odd_layout(&d.hlo) {
                continue;
            }
            odd += 1;
            let (_, _, with) = reference(&d).unwrap();
            // The same program with every layout dropped.
            let mut m = crate::hlo::parse_module(&d.hlo).unwrap();
            m.entry_layout = None;
            for c in &mut m.computations {
                for i in &mut c.instructions {
                    if let crate::shape::Shape::Array(a) = &mut i.shape {
                        a.layout = None;
                    }
                }
            }
            let mut plain = d.clone();
            plain.hlo = print_module(&m);
            let (_, _, without) = reference(&plain).unwrap();
            compare_with(&with[0], &without[0], None, false)
                .unwrap_or_else(|e| panic!("{family}: {e}\n{}", d.hlo));
        }
    }
    assert!(odd > 100, "{odd} drafts with layouts");
}

#[test]
fn complex_types_turn_up_where_the_ops_take_them() {
    for family in ["unary", "binary", "compare", "convert", "reduce", "dot"] {
        let ds = drafts(family, 300);
        assert!(
            ds.iter()
                .any(|d| d.hlo.contains("c64[") || d.hlo.contains("c128[")),
            "{family}: no complex draft"
        );
    }
}

#[test]
fn unstable_sorts_have_one_answer() {
    // With no two equal keys in a row, sorting the rows reversed gives the same answer.
    let mut unstable = 0;
    for d in drafts("sort", 300) {
        if !d.hlo.contains("is_stable=false") {
            continue;
        }
        unstable += 1;
        let dim: usize = d.hlo.split("dimensions={").nth(1).unwrap()[..1]
            .parse()
            .unwrap();
        let (_, _, want) = reference(&d).unwrap();
        let mut rev = d.clone();
        rev.args[0] = d.args[0]
            .iter()
            .map(|a| reversed(a.as_array().unwrap(), dim))
            .collect();
        let (_, _, got) = reference(&rev).unwrap();
        compare_with(&got[0], &want[0], None, false).unwrap_or_else(|e| panic!("{e}\n{}", d.hlo));
    }
    assert!(unstable > 50, "{unstable} unstable sorts");
}

/// `a` with dimension `dim` reversed.
fn reversed(a: &Array, dim: usize) -> Literal {
    let dims = a.dims().to_vec();
    let mut out = a.clone();
    let n = a.len();
    for k in 0..n {
        let mut idx = vec![0i64; dims.len()];
        let mut r = k;
        for j in (0..dims.len()).rev() {
            idx[j] = (r % dims[j] as usize) as i64;
            r /= dims[j] as usize;
        }
        let src = idx.clone();
        idx[dim] = dims[dim] - 1 - idx[dim];
        let _ = out.data.set(a.linear(&idx), a.get(&src));
    }
    Literal::Array(out)
}

#[test]
fn scatter_windows_lie_wholly_inside_or_wholly_outside() {
    // Read back from the printed module: the operand, the window sizes (the updates' window
    // dimensions in operand order), and each index vector's start position.
    let mut outside = 0;
    let mut inside = 0;
    for d in drafts("scatter", 300) {
        let (m, _, _) = reference(&d).unwrap();
        let root = m.entry().root();
        let crate::hlo::opcode::Op::Indexing(crate::hlo::opcode::IndexingOp::Scatter(a)) = &root.op
        else {
            panic!("not a scatter: {}", d.hlo);
        };
        let (x, idx, upd) = (
            d.args[0][0].as_array().unwrap(),
            d.args[0][1].as_array().unwrap(),
            d.args[0][2].as_array().unwrap(),
        );
        let od = x.dims();
        let rank = od.len();
        let dropped: Vec<i64> = a
            .inserted_window_dims
            .iter()
            .chain(&a.input_batching_dims)
            .copied()
            .collect();
        let window_of: Vec<i64> = (0..rank as i64).filter(|i| !dropped.contains(i)).collect();
        let mut ws = vec![1i64; rank];
        for (k, &u) in a.update_window_dims.iter().enumerate() {
            ws[window_of[k] as usize] = upd.dims()[u as usize];
        }
        if ws.contains(&0) {
            continue;
        }
        let ivd = a.index_vector_dim as usize;
        let explicit = ivd < idx.rank();
        let mut bdims = idx.dims().to_vec();
        if explicit {
            bdims.remove(ivd);
        }
        let points: i64 = bdims.iter().product();
        for g in 0..points as usize {
            let mut gi = vec![0i64; bdims.len()];
            let mut r = g;
            for j in (0..bdims.len()).rev() {
                gi[j] = (r % bdims[j] as usize) as i64;
                r /= bdims[j] as usize;
            }
            let mut fits = true;
            let mut misses = false;
            for (k, &m) in a.scatter_dims_to_operand_dims.iter().enumerate() {
                let mut at = gi.clone();
                if explicit {
                    at.insert(ivd, k as i64);
                }
                let s = idx.get(&at).as_i128().unwrap();
                let (n, w) = (od[m as usize] as i128, ws[m as usize] as i128);
                fits &= s >= 0 && s + w <= n;
                misses |= s + w <= 0 || s >= n;
            }
            assert!(fits || misses, "a window sticks out: {}", d.hlo);
            if fits {
                inside += 1;
            } else {
                outside += 1;
            }
        }
    }
    assert!(
        inside > 200 && outside > 30,
        "{inside} inside, {outside} outside"
    );
}

#[test]
fn select_and_scatter_windows_have_one_answer() {
    // No NaN and no two equal operand values (+0 and -0 are equal): the selection of every
    // window is the same whatever order the window is scanned in.
    for d in drafts("select-and-scatter", 300) {
        let a = d.args[0][0].as_array().unwrap();
        let mut seen = std::collections::HashSet::new();
        for i in 0..a.len() {
            let x = a.data.get(i);
            assert!(!x.is_nan(), "{}", d.hlo);
            let key = match x.as_i128() {
                Some(v) => v.to_string(),
                None => (x.as_f64() + 0.0).to_string(),
            };
            assert!(seen.insert(key), "{x:?} twice: {}", d.hlo);
        }
    }
}

#[test]
fn rng_bit_generator_draws_only_pinned_algorithms() {
    let ds = drafts("rng-bit-generator", 200);
    assert!(ds.iter().all(|d| !d.hlo.contains("rng_default")));
    assert!(ds.iter().any(|d| d.hlo.contains("rng_three_fry")));
    assert!(
        ds.iter()
            .any(|d| d.hlo.contains("rng_philox") && d.hlo.contains("u64[3]"))
    );
}

/// Float-to-integer conversions only see values whose truncation the integer type holds (the
/// others are the implementation's choice), and still see conversions of every other kind.
#[test]
fn float_to_int_conversions_draw_only_defined_values() {
    let mut float_to_int = 0;
    for d in drafts("convert", 600) {
        // `op` reads "convert f32->s8".
        let Some(types) = d.op.split(' ').nth(1) else {
            continue;
        };
        let (src, dst) = types.split_once("->").unwrap_or(("", ""));
        let int = |t: &str| t.starts_with('s') || t.starts_with('u');
        if !d.op.starts_with("convert ") || !src.starts_with(['f', 'b']) || !int(dst) {
            continue;
        }
        float_to_int += 1;
        let bits: i32 = dst[1..].parse().unwrap_or(64);
        let (lo, hi) = if dst.starts_with('s') {
            (-(2f64.powi(bits - 1)), 2f64.powi(bits - 1))
        } else {
            (0.0, 2f64.powi(bits))
        };
        let a = d.args[0][0].as_array().expect("an array argument");
        for i in 0..a.len() {
            let t = a.data.get(i).as_f64().trunc();
            assert!(t >= lo && t < hi, "{}: element {i} is {t}", d.op);
        }
    }
    assert!(float_to_int > 20, "only {float_to_int} float-to-int drafts");
}

#[test]
fn chains_run_up_to_eight_steps_and_mix_in_movement() {
    let ds = drafts("chain", 400);
    let steps = |d: &Draft| d.op.trim_start_matches("chain of ").split(',').count();
    assert!(ds.iter().all(|d| (2..=8).contains(&steps(d))));
    assert!(ds.iter().any(|d| steps(d) == 8));
    for op in ["transpose", "reshape", "broadcast", "slice"] {
        assert!(
            ds.iter().any(|d| d.op.contains(op) && steps(d) > 2),
            "{op} never chained"
        );
    }
    // Pure element-wise chains still shrink to one element.
    assert!(ds.iter().any(|d| d.elementwise));
}

#[test]
fn scalar_twins_give_each_element() {
    for family in [
        "unary",
        "binary",
        "compare",
        "convert",
        "select-clamp",
        "chain",
    ] {
        for d in drafts(family, 60) {
            let (_, _, want) = reference(&d).unwrap();
            let Some(w) = want[0].as_array() else {
                continue;
            };
            if !d.elementwise || w.rank() == 0 {
                continue;
            }
            for i in 0..w.len() {
                let twin = scalar_twin(&d, w.dims(), i).expect("a twin");
                let (_, _, got) = reference(&twin).unwrap_or_else(|e| panic!("{e}\n{}", twin.hlo));
                let one = Literal::Array(
                    Array::from_data(
                        ArrayShape::new(w.ty(), vec![]),
                        ArrayData::splat(w.data.get(i), 1),
                    )
                    .unwrap(),
                );
                compare_with(&got[0], &one, None, false)
                    .unwrap_or_else(|e| panic!("{family} element {i}: {e}\n{}", d.hlo));
            }
        }
    }
}

#[test]
fn every_op_name_is_drawn_when_asked_for() {
    for op in known_ops() {
        let c = config(3, 3, &[op]);
        let s = run(&c, &mut ReferenceBackend::default(), &mut |_| {});
        assert_eq!(s.cases, 3, "--ops {op} drew {} cases", s.cases);
        assert!(s.findings.is_empty(), "{op}: {:#?}", s.findings.first());
    }
}

/// The reference, except that `negate` of a float leaves the value alone and `pad` fails.
struct Broken(ReferenceBackend);

impl Backend for Broken {
    fn name(&self) -> String {
        "broken".into()
    }
    fn execute(&mut self, req: &Request) -> crate::error::Result<Response> {
        if req.hlo.contains(" pad(") {
            return Err(Error::runtime("it fell over").with_rule("backend.crashed"));
        }
        let mut r = self.0.execute(req)?;
        if req.hlo.contains(" negate(") {
            r.results[0] = req.args[0][0].clone();
        }
        // One replica of a multi-replica run answers wrongly.
        if req.hlo.contains(" all-gather(")
            && r.results.len() > 1
            && let Literal::Array(a) = &mut r.results[1]
            && !a.is_empty()
        {
            let (x, h) = (a.data.get(0), crate::literal::highest(a.ty()));
            let wrong = if format!("{x:?}") == format!("{h:?}") {
                crate::literal::lowest(a.ty())
            } else {
                h
            };
            let _ = a.data.set(0, wrong);
        }
        Ok(r)
    }
}

#[test]
fn disagreements_are_found_shrunk_and_written_as_cases() {
    let dir = std::env::temp_dir().join(format!("xla-spec-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut c = config(11, 60, &["negate", "pad"]);
    c.out = Some(dir.clone());
    let s = run(&c, &mut Broken(ReferenceBackend::default()), &mut |_| {});
    let negate: Vec<&Finding> = s.findings.iter().filter(|f| f.op == "negate").collect();
    let pad: Vec<&Finding> = s.findings.iter().filter(|f| f.op == "pad").collect();
    assert!(!negate.is_empty() && !pad.is_empty(), "{:?}", s.per_op);
    assert!(pad.iter().all(|f| f.kind == "backend.crashed"));
    assert!(negate.iter().all(|f| f.kind == "mismatch"));
    // Where negate(x) != x, the shrunk case is one element: a rank-0 parameter.
    let shrunk = negate
        .iter()
        .filter(|f| f.case["hlo"].as_str().unwrap().contains("[] parameter(0)"))
        .count();
    assert!(shrunk > 0, "{:#?}", negate[0].case);
    for f in &s.findings {
        let file = f.file.as_ref().expect("written");
        let text = std::fs::read_to_string(file).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        let case = parse_case(v["cases"][0].as_object().unwrap()).unwrap();
        // The case holds the reference's answer: the reference passes it.
        let out = crate::conformance::runner::run_case(
            &crate::conformance::Case {
                name: "c".into(),
                origin: crate::conformance::Origin::file(file),
                body: crate::conformance::CaseBody::Run(case),
            },
            &mut ReferenceBackend::default(),
        );
        assert_eq!(
            out.status,
            crate::conformance::Status::Passed,
            "{}",
            out.message
        );
        assert!(v["cases"][0]["fuzz"]["backend_answer"].is_object() || f.kind == "mismatch");
    }
    // A second campaign writes beside the first one's files, never over them.
    let before = std::fs::read_dir(&dir).unwrap().count();
    let s2 = run(&c, &mut Broken(ReferenceBackend::default()), &mut |_| {});
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        before + s2.findings.len()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_replica_that_disagrees_is_found_and_kept_with_every_replica() {
    let dir = std::env::temp_dir().join(format!("xla-spec-fuzz-replicas-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut c = config(5, 40, &["all-gather"]);
    c.out = Some(dir.clone());
    let s = run(&c, &mut Broken(ReferenceBackend::default()), &mut |_| {});
    let multi: Vec<&Finding> = s
        .findings
        .iter()
        .filter(|f| f.case.get("replicas").is_some())
        .collect();
    assert!(!multi.is_empty(), "{:?}", s.per_op);
    for f in multi {
        assert!(f.message.starts_with("replica 1:"), "{}", f.message);
        let n = f.case["replicas"].as_u64().unwrap() as usize;
        assert_eq!(f.case["args"].as_array().unwrap().len(), n);
        assert_eq!(f.case["expected"].as_array().unwrap().len(), n);
        assert_eq!(
            f.case["fuzz"]["backend_answer"].as_array().unwrap().len(),
            n
        );
        let file = f.file.as_ref().expect("written");
        let v: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let case = parse_case(v["cases"][0].as_object().unwrap()).unwrap();
        let out = crate::conformance::runner::run_case(
            &crate::conformance::Case {
                name: "c".into(),
                origin: crate::conformance::Origin::file(file),
                body: crate::conformance::CaseBody::Run(case),
            },
            &mut ReferenceBackend::default(),
        );
        assert_eq!(
            out.status,
            crate::conformance::Status::Passed,
            "{}",
            out.message
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_subnormals_draws_none() {
    let mut rng = Rng::new(2);
    rng.no_subnormals = true;
    use crate::types::ElementType::*;
    for (t, min_normal) in [
        (F16, 2f64.powi(-14)),
        (BF16, 2f64.powi(-126)),
        (F32, 2f64.powi(-126)),
        (F64, f64::MIN_POSITIVE),
    ] {
        for _ in 0..3000 {
            let x = draw::scalar(&mut rng, t).as_f64();
            assert!(
                x == 0.0 || !x.is_finite() || x.abs() > min_normal,
                "{t}: {x}"
            );
        }
    }
}

#[test]
fn special_values_turn_up() {
    let mut rng = Rng::new(1);
    let xs: Vec<Scalar> = (0..2000)
        .map(|_| draw::scalar(&mut rng, crate::types::ElementType::F32))
        .collect();
    assert!(xs.iter().any(|x| x.is_nan()));
    assert!(xs.iter().any(|x| x.as_f64() == f64::INFINITY));
    assert!(
        xs.iter()
            .any(|x| x.as_f64() == 0.0 && x.as_f64().is_sign_negative())
    );
    assert!(
        xs.iter()
            .any(|x| x.as_f64() != 0.0 && x.as_f64().abs() < 1e-38)
    );
}
