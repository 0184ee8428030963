//! The conformance harness, run by `cargo test`: one libtest-mimic trial per book example, per
//! golden case, and per property test. Trial names are `book::<page path>::<example>`,
//! `golden::<dir>::<case>` and `prop::<family>::<name>`, so the usual filters work
//! (`cargo test --test spec-tests -- golden::dot`).

mod props;

use libtest_mimic::{Arguments, Trial};

fn main() {
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> = Vec::new();
    trials.extend(props::trials());
    libtest_mimic::run(&args, trials).exit();
}
