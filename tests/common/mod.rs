//! Helpers shared by the facade's integration tests.

#![allow(dead_code)] // each test binary uses a different subset

/// A small xorshift generator, seeded from the clock so every run sees fresh inputs; the
/// seed is printed so a failure can be replayed with `PTX_DSL_TEST_SEED=<seed>` (decimal or
/// `0x` hex, as printed).
pub struct Rng(pub u64);

impl Rng {
    /// A generator with a fresh seed (or `PTX_DSL_TEST_SEED`'s), printed under `test`'s name.
    pub fn fresh(test: &str) -> Rng {
        let seed = match std::env::var("PTX_DSL_TEST_SEED") {
            Ok(text) => {
                let parsed = match text.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16),
                    None => text.parse(),
                };
                parsed.unwrap_or_else(|e| panic!("PTX_DSL_TEST_SEED={text}: {e}")) | 1
            }
            Err(_) => {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(0x9e37_79b9_7f4a_7c15)
                    | 1
            }
        };
        eprintln!("{test}: seed {seed:#x} (replay with PTX_DSL_TEST_SEED={seed:#x})");
        Rng(seed)
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

    /// Uniform in [-1, 1), as f32.
    pub fn signed_f32(&mut self) -> f32 {
        (self.unit() * 2.0 - 1.0) as f32
    }
}

/// Assembles `kernel` with NVIDIA's ptxas for sm_80 and sm_90 and fails on any error; skips
/// with a printed reason when ptxas is missing, unless `PTX_DSL_REQUIRE_PTXAS=1` (then a
/// missing ptxas fails too).
pub fn assert_assembles(test: &str, kernel: &impl ptx_dsl::core::Kernel) {
    use ptx_dsl::core::Target;
    use ptx_tools::ptxas;
    let Some(path) = ptxas::ptxas_or_skip(test) else { return };
    for target in [Target::SM_80, Target::SM_90] {
        let ptx = kernel.try_ptx_for(target).unwrap_or_else(|e| panic!("{test}: {e}"));
        if let Err(e) = ptxas::assemble(&path, &ptx, &target.to_string()) {
            panic!("{test}: ptxas rejects `{}` for {target}: {e}\n{ptx}", kernel.name());
        }
    }
}
