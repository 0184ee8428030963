//! One trial per runnable example (`hlo-test` / `layout-test` fence) in `book/src/**/*.md`.

use libtest_mimic::Trial;
use std::path::Path;

pub fn trials() -> Vec<Trial> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("book")
        .join("src");
    xla_spec::conformance::load_path(&root)
        .into_iter()
        .map(crate::case_trial)
        .collect()
}
