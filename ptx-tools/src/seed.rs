//! Seeds for randomised tests, by the project's rule: every run draws fresh inputs, prints
//! the seed it used, and replays a failure when that seed is given back.
//!
//! `PTX_DSL_TEST_SEED` ([`SEED_ENV`]) replays every randomised test at once; a few tests
//! also take their own variable ([`fresh_seeds`]). Seeds are read as printed: `0x` hex, or
//! decimal.
//!
//! ```
//! // Prints `my_test: seed 0x… (replay with PTX_DSL_TEST_SEED=0x…)` to stderr.
//! let seed = ptx_tools::seed::test_seed("my_test");
//! assert_eq!(ptx_tools::seed::parse(&format!("{seed:#x}")), Ok(seed));
//! ```

use std::num::ParseIntError;
use std::time::{SystemTime, UNIX_EPOCH};

/// The environment variable that replays every randomised test at once.
pub const SEED_ENV: &str = "PTX_DSL_TEST_SEED";

/// Parses a seed as printed: `0x`-prefixed hex, or decimal; surrounding whitespace is
/// ignored.
pub fn parse(text: &str) -> Result<u64, ParseIntError> {
    let text = text.trim();
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    }
}

/// The seed in the environment variable `var`, or `None` when it is not set.
///
/// # Panics
/// When `var` is set but is not a seed ([`parse`]), naming the variable and its value.
pub fn from_env(var: &str) -> Option<u64> {
    let text = std::env::var(var).ok()?;
    Some(parse(&text).unwrap_or_else(|e| panic!("{var}={text}: {e}")))
}

/// A fresh value from the clock: nanoseconds since the Unix epoch (truncated to 64 bits).
pub fn clock() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0x9e37_79b9_7f4a_7c15, |d| d.as_nanos() as u64)
}

/// The seed of the randomised test `test`: `PTX_DSL_TEST_SEED` when set, else a fresh one
/// from the [`clock`]. Printed to stderr as
/// `<test>: seed 0x… (replay with PTX_DSL_TEST_SEED=0x…)` so a failure can be replayed.
///
/// The seed may be any value, 0 and even ones included; [`Rng::fresh`](crate::rng::Rng::fresh)
/// makes it a valid generator state.
///
/// # Panics
/// When `PTX_DSL_TEST_SEED` is set but is not a seed.
pub fn test_seed(test: &str) -> u64 {
    let seed = from_env(SEED_ENV).unwrap_or_else(clock);
    eprintln!("{test}: seed {seed:#x} (replay with {SEED_ENV}={seed:#x})");
    seed
}

/// `count` fresh seeds for a test that runs several rounds, or the one seed given in the
/// environment variable `var` or else in `PTX_DSL_TEST_SEED`, to replay a failure.
///
/// Fresh seeds come from the [`clock`] through splitmix64, so that nearby times give
/// unrelated seeds, and are odd (a valid xorshift state as they are). A replayed seed is
/// returned as given. Each seed is printed to stderr with the variable that replays it.
///
/// # Panics
/// When `var` or `PTX_DSL_TEST_SEED` is set but is not a seed.
pub fn fresh_seeds(var: &str, count: usize) -> Vec<u64> {
    if let Some(seed) = from_env(var).or_else(|| from_env(SEED_ENV)) {
        eprintln!("{var}: replaying seed {seed:#x}");
        return vec![seed];
    }
    let t = clock();
    (0..count as u64)
        .map(|i| {
            let mut z = t.wrapping_add(i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            let seed = (z ^ (z >> 31)) | 1;
            eprintln!("{var}: seed {seed:#x} (replay with {var}={seed:#x})");
            seed
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_parse_as_printed() {
        assert_eq!(parse("0x1f"), Ok(31));
        assert_eq!(parse("31"), Ok(31));
        assert_eq!(parse(" 0x18edbbd2e419289f\n"), Ok(0x18ed_bbd2_e419_289f));
        assert!(parse("1f").is_err());
        assert!(parse("").is_err());
    }
}
