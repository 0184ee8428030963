//! Inputs that once crashed, hung or exhausted memory (most found by the fuzzer under `fuzz/`).
//! Each must now give a module or a typed error, and a verified module must run to a result or a
//! non-internal error.

use xla_spec::eval::{RunOptions, run};
use xla_spec::hlo::parse_module;
use xla_spec::literal::Literal;
use xla_spec::verify::{Options, verify_module};

#[test]
fn every_regression_input_is_handled() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/regressions exists") {
        let path = entry.expect("readable entry").path();
        let bytes = std::fs::read(&path).expect("readable file");
        count += 1;
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        let Ok(mut m) = parse_module(text) else {
            continue;
        };
        if verify_module(
            &mut m,
            &Options {
                memory_budget: 1 << 16,
                ..Options::default()
            },
        )
        .is_err()
        {
            continue;
        }
        let args: Vec<Literal> = m
            .entry()
            .parameter_shapes()
            .iter()
            .map(Literal::zeros)
            .collect();
        let opts = RunOptions {
            max_while_iterations: 1000,
            ..RunOptions::default()
        };
        if let Err(e) = run(&m, args, &opts) {
            assert_ne!(
                e.kind,
                xla_spec::ErrorKind::Internal,
                "{}: {e}",
                path.display()
            );
        }
    }
    assert!(count > 0, "no regression inputs found in {}", dir.display());
}
