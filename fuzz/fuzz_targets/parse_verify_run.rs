//! Feeds arbitrary text to the HLO front end and, when it verifies, runs it on all-zero arguments
//! under tight budgets. Any panic, abort or hang is a bug: the front end must answer every input
//! with a module or a typed error, and evaluation of a verified module must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xla_spec::eval::{RunOptions, run};
use xla_spec::hlo::parse_module;
use xla_spec::literal::Literal;
use xla_spec::verify::{Options, verify_module};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(mut module) = parse_module(text) else { return };
    // Keep values tiny so that the fuzzer explores programs, not memory bandwidth.
    let opts = Options { memory_budget: 1 << 16 };
    if verify_module(&mut module, &opts).is_err() {
        return;
    }
    let args: Vec<Literal> = module.entry().parameter_shapes().iter().map(Literal::zeros).collect();
    let run_opts = RunOptions { max_while_iterations: 1000, ..RunOptions::default() };
    if let Err(e) = run(&module, args, &run_opts) {
        assert!(e.kind != xla_spec::ErrorKind::Internal, "internal error on a verified module: {e}");
    }
});
