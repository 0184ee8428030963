//! The conformance harness, run by `cargo test`: one libtest-mimic trial per book example, per
//! golden case, and per property test. Trial names are `book::<page path>::<example>`,
//! `golden::<dir>::<case>` and `prop::<family>::<name>`, so the usual filters work
//! (`cargo test --test spec-tests -- golden::dot`).

mod book;
mod golden;
mod props;

use libtest_mimic::{Arguments, Failed, Trial};
use xla_spec::backend::ReferenceBackend;
use xla_spec::conformance::{Case, Status, run_case};

fn main() {
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> = Vec::new();
    trials.extend(book::trials());
    trials.extend(golden::trials());
    trials.extend(props::trials());
    libtest_mimic::run(&args, trials).exit();
}

/// A trial that runs one case on the reference runtime; the failure message names the case's
/// source file and line.
pub fn case_trial(case: Case) -> Trial {
    let name = case.name.clone();
    Trial::test(name, move || {
        let o = run_case(&case, &mut ReferenceBackend::default());
        match o.status {
            Status::Passed | Status::Skipped => Ok(()),
            Status::Failed => Err(Failed::from(format!("{}: {}", case.origin, o.message))),
        }
    })
}
