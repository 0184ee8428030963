use super::*;
use crate::backend::{ReferenceBackend, Response};
use crate::conformance::golden::parse_case;
use crate::literal::Scalar;

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
        "tanh",
        "pad",
        "reduce",
        "reduce-window",
        "dot",
        "convolution",
        "chain",
        "convert",
    ] {
        assert!(
            a.per_op.keys().any(|k| k == want) || want == "tanh",
            "{want} never drawn: {ops:?}"
        );
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
