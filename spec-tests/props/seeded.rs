//! What the property modules share: trials driven by one proptest-chosen seed, a SplitMix64
//! stream drawn from it, and the plain proptest runner the strategy-based trials use.
//!
//! Seeded trials keep generators as ordinary code (shapes that depend on earlier draws are
//! awkward as strategies) while proptest still chooses, reports and (with `PROPTEST_RNG_SEED`)
//! pins the seeds.

use libtest_mimic::{Failed, Trial};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// A trial `prop::<area>::<name>` running `f` on `cases` seeds; a failure names its seed.
pub fn seeded_trial(area: &str, name: &str, cases: u32, f: fn(u64) -> Result<(), String>) -> Trial {
    Trial::test(format!("prop::{area}::{name}"), move || {
        runner(cases)
            .run(&any::<u64>(), |seed| {
                f(seed).map_err(|m| TestCaseError::fail(format!("seed {seed}: {m}")))
            })
            .map_err(|e| Failed::from(e.to_string()))
    })
}

/// A trial `prop::<area>::<name>` handing `f` a runner of `cases` cases to drive strategies.
pub fn runner_trial(
    area: &str,
    name: &str,
    cases: u32,
    f: fn(&mut TestRunner) -> Result<(), String>,
) -> Trial {
    Trial::test(format!("prop::{area}::{name}"), move || {
        f(&mut runner(cases)).map_err(Failed::from)
    })
}

/// A runner without failure persistence: minimal failing inputs are printed, not written into
/// the source tree.
pub fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// SplitMix64 (Steele, Lea and Flood 2014): tiny, fast and good enough for test inputs.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`; 0 when `n` is 0.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// Uniform in `lo..hi` (hi exclusive, hi > lo).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo) as u64) as i64
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[-1, 1)`.
    pub fn sym(&mut self) -> f64 {
        2.0 * self.unit() - 1.0
    }

    /// True with probability `percent`/100.
    pub fn percent(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }

    /// Fisher–Yates.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}
