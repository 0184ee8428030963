//! Property tests for this area (none yet).

use libtest_mimic::Trial;

pub fn trials() -> Vec<Trial> {
    Vec::new()
}
