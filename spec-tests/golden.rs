//! One trial per golden case in `golden/**/*.json`.

use libtest_mimic::Trial;
use std::path::Path;

pub fn trials() -> Vec<Trial> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("golden");
    xla_spec::conformance::load_path(&root)
        .into_iter()
        .map(crate::case_trial)
        .collect()
}
