//! Helpers shared by ptx-core's integration tests.

#![allow(dead_code)] // each test binary uses a different subset

/// The seed of a randomised test, by the project's rule: `PTX_DSL_TEST_SEED` (decimal or
/// `0x` hex, as printed) when set, else a fresh one from the clock; printed under `test`'s
/// name so a failure can be replayed.
pub fn test_seed(test: &str) -> u64 {
    let seed = match std::env::var("PTX_DSL_TEST_SEED") {
        Ok(text) => match text.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => text.parse(),
        }
        .unwrap_or_else(|e| panic!("PTX_DSL_TEST_SEED={text}: {e}")),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0x9e37_79b9_7f4a_7c15, |d| d.as_nanos() as u64),
    };
    eprintln!("{test}: seed {seed:#x} (replay with PTX_DSL_TEST_SEED={seed:#x})");
    seed
}

/// A small xorshift generator, seeded by [`test_seed`]'s rule so every run sees fresh inputs
/// and a failure can be replayed.
pub struct Rng(pub u64);

impl Rng {
    /// A generator for `test`, its seed printed.
    pub fn fresh(test: &str) -> Rng {
        Rng(test_seed(test) | 1)
    }

    /// 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}
