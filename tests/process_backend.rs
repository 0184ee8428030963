//! The out-of-process backend against the example backend (`backends/example/backend.py`):
//! answers, refusals, and the harness surviving a crash, a hang and garbage, restarting the child
//! each time. Skipped (with a note) when python3 is not installed.

use std::time::{Duration, Instant};
use xla_spec::backend::process::{CRASHED, PROTOCOL, ProcessBackend, REFUSED, TIMEOUT};
use xla_spec::backend::{Backend, Request, Response};
use xla_spec::hlo::parse_literal;
use xla_spec::literal::Literal;

fn python() -> bool {
    let ok = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("note: python3 is not installed; skipping the example-backend tests");
    }
    ok
}

fn backend(flags: &str, timeout: Duration) -> ProcessBackend {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/backends/example/backend.py");
    ProcessBackend::new(&format!("python3 '{script}' {flags}"), timeout)
}

fn module(name: &str, op: &str) -> String {
    format!(
        "HloModule {name}\n\nENTRY main {{\n  x = f32[3] parameter(0)\n  y = f32[3] parameter(1)\n  ROOT r = f32[3] {op}(x, y)\n}}\n"
    )
}

fn exec(b: &mut ProcessBackend, hlo: &str, args: Vec<Literal>) -> xla_spec::Result<Response> {
    b.execute(&Request {
        hlo,
        module: None,
        args: &[args],
        infeed: &[],
    })
}

fn args() -> Vec<Literal> {
    vec![
        parse_literal("f32[3] {1, 2.5, inf}").unwrap(),
        parse_literal("f32[3] {2, 0.25, -inf}").unwrap(),
    ]
}

#[test]
fn answers_and_refusals() {
    if !python() {
        return;
    }
    let mut b = backend("", Duration::from_secs(30));
    let r = exec(&mut b, &module("m", "add"), args()).unwrap();
    assert_eq!(r.results[0].to_string(), "f32[3] {3, 2.75, nan}");
    let r = exec(&mut b, &module("m", "multiply"), args()).unwrap();
    assert_eq!(r.results[0].to_string(), "f32[3] {2, 0.625, -inf}");
    let e = exec(&mut b, &module("m", "subtract"), args()).unwrap_err();
    assert_eq!(e.rule.as_deref(), Some(REFUSED), "{e}");
    assert!(e.message.contains("subtract"), "{e}");
    // Multi-replica requests take per-replica arguments and answer per-replica results.
    let hlo = module("m", "add");
    let per = vec![args(), args()];
    let r = b
        .execute(&Request {
            hlo: &hlo,
            module: None,
            args: &per,
            infeed: &[],
        })
        .unwrap();
    assert_eq!(r.results.len(), 2);
    assert_eq!(b.starts, 1, "one child served every request");
}

#[test]
fn crash_hang_and_garbage_fail_the_case_and_restart() {
    if !python() {
        return;
    }
    let mut b = backend(
        "--crash-on CRASHME --hang-on HANGME --garbage-on GARBAGE",
        Duration::from_secs(2),
    );
    let ok = module("m", "add");
    exec(&mut b, &ok, args()).unwrap();

    let e = exec(&mut b, &module("CRASHME", "add"), args()).unwrap_err();
    assert_eq!(e.rule.as_deref(), Some(CRASHED), "{e}");
    assert!(
        e.message.contains("crashing on purpose"),
        "stderr is captured: {e}"
    );
    exec(&mut b, &ok, args()).unwrap();
    assert_eq!(b.starts, 2);

    let t0 = Instant::now();
    let e = exec(&mut b, &module("HANGME", "add"), args()).unwrap_err();
    assert_eq!(e.rule.as_deref(), Some(TIMEOUT), "{e}");
    assert!(t0.elapsed() < Duration::from_secs(10));
    exec(&mut b, &ok, args()).unwrap();
    assert_eq!(b.starts, 3);

    let e = exec(&mut b, &module("GARBAGE", "add"), args()).unwrap_err();
    assert_eq!(e.rule.as_deref(), Some(PROTOCOL), "{e}");
    exec(&mut b, &ok, args()).unwrap();
    assert_eq!(b.starts, 4);
}

#[test]
fn a_program_that_is_not_a_backend_fails_cleanly() {
    // `true` exits at once; `cat` echoes the request back (an answer with no "result").
    let mut b = ProcessBackend::new("true", Duration::from_secs(5));
    let e = exec(&mut b, &module("m", "add"), args()).unwrap_err();
    assert_eq!(e.rule.as_deref(), Some(CRASHED), "{e}");
    let mut b = ProcessBackend::new("cat", Duration::from_secs(5));
    let e = exec(&mut b, &module("m", "add"), args()).unwrap_err();
    assert_eq!(e.rule.as_deref(), Some(PROTOCOL), "{e}");
    let mut b = ProcessBackend::new("exec 0<&-; sleep 30", Duration::from_secs(1));
    let e = exec(&mut b, &module("m", "add"), args()).unwrap_err();
    assert!(
        matches!(e.rule.as_deref(), Some(CRASHED) | Some(TIMEOUT)),
        "{e}"
    );
}

/// A backend in a few lines of Python that answers `info`, and a fixed literal for every module.
fn info_backend() -> ProcessBackend {
    let dir = std::env::temp_dir().join(format!("xla-spec-info-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("info_backend.py");
    std::fs::write(
        &script,
        "import json, sys\nfor line in sys.stdin:\n    r = json.loads(line)\n    if r.get('info'):\n        print(json.dumps({'id': r['id'], 'info': {'name': 'fake', 'version': '9.9'}}), flush=True)\n    else:\n        print(json.dumps({'id': r['id'], 'result': {'shape': 's32[]', 'data': [7]}}), flush=True)\n",
    )
    .unwrap();
    ProcessBackend::new(
        &format!("python3 '{}'", script.display()),
        Duration::from_secs(30),
    )
}

#[test]
fn info_names_the_backend_when_it_answers() {
    if !python() {
        return;
    }
    let mut b = info_backend();
    let i = b.info().expect("the backend answers info");
    assert_eq!((i.name.as_str(), i.version.as_str()), ("fake", "9.9"));
    assert_eq!(b.name(), "fake 9.9");
    let r = exec(&mut b, &module("m", "add"), args()).unwrap();
    assert_eq!(r.results[0].to_string(), "s32[] 7");
    assert_eq!(b.starts, 1);
    // The example backend does not know the request: it refuses, keeps its command line as its
    // name, and goes on serving.
    let mut b = backend("", Duration::from_secs(30));
    assert_eq!(b.info(), None);
    assert!(b.name().contains("backend.py"), "{}", b.name());
    let r = exec(&mut b, &module("m", "add"), args()).unwrap();
    assert_eq!(r.results[0].to_string(), "f32[3] {3, 2.75, nan}");
    assert_eq!(b.starts, 1);
}
