//! The random generator of the randomised tests: a small xorshift, seeded by the project's
//! rule ([`crate::seed`]) so every run draws fresh inputs and a failure can be replayed.
//!
//! ```
//! use ptx_tools::rng::Rng;
//!
//! let mut rng = Rng::fresh("my_test"); // prints the seed
//! let x = rng.unit();
//! assert!((0.0..1.0).contains(&x));
//! let mut fixed = Rng(0x1234_5678_9abc_def1); // a fixed state: the same draws every run
//! assert_eq!(fixed.next(), Rng(0x1234_5678_9abc_def1).next());
//! ```

use crate::seed;

/// xorshift64 (shifts 13, 7, 17): fast, small, and good enough to pick test inputs; not for
/// anything else.
///
/// The state is public so a test can start from a fixed one (`Rng(1)`) or mix its own seed
/// in; it must be nonzero, or every draw is 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng(pub u64);

impl Rng {
    /// A generator for the randomised test `test`, seeded by [`seed::test_seed`]
    /// (`PTX_DSL_TEST_SEED` or the clock, printed under `test`'s name), forced odd so the
    /// state is never 0.
    pub fn fresh(test: &str) -> Rng {
        Rng(seed::test_seed(test) | 1)
    }

    /// 64 random bits.
    #[allow(clippy::should_implement_trait)] // an endless generator, not an iterator
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in [0, 1): the top 53 bits of [`Rng::next`].
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [-1, 1), as f32 ([`Rng::unit`] scaled, then rounded).
    pub fn signed_f32(&mut self) -> f32 {
        (self.unit() * 2.0 - 1.0) as f32
    }

    /// An f32 with a moderate exponent (2^-17 .. 2^18) nine times in ten, else a tiny one
    /// (normal, below 2^-106); random sign and mantissa. One draw.
    pub fn moderate_f32(&mut self) -> f32 {
        let r = self.next();
        let e = if r.is_multiple_of(10) { 1 + (r >> 8) % 20 } else { 110 + (r >> 8) % 36 };
        let bits = ((r >> 32) as u32 & 0x807f_ffff) | (e as u32) << 23;
        f32::from_bits(bits)
    }

    /// An f64 with a moderate exponent (2^-23 .. 2^25), random sign and mantissa. Two draws.
    pub fn moderate_f64(&mut self) -> f64 {
        let e = 1000 + self.next() % 48;
        f64::from_bits((self.next() & 0x800f_ffff_ffff_ffff) | e << 52)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_is_xorshift64_13_7_17() {
        // The first draws from state 1, as every copy of this generator drew them.
        let mut r = Rng(1);
        assert_eq!(
            [r.next(), r.next(), r.next()],
            [0x4082_2041, 0x1000_4106_0c01_1441, 0x9b1e_842f_6e86_2629]
        );
    }

    #[test]
    fn draws_stay_in_their_ranges() {
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..10_000 {
            assert!((0.0..1.0).contains(&r.unit()));
            assert!((-1.0..1.0).contains(&r.signed_f32()));
            let f = r.moderate_f32().abs();
            assert!(f.is_normal() && f < 2f32.powi(19), "{f:e}");
            let d = r.moderate_f64().abs();
            assert!((2f64.powi(-23)..2f64.powi(25)).contains(&d), "{d:e}");
        }
    }
}
