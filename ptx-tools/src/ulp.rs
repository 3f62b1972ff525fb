//! Distances in units in the last place, the measure the accuracy tests bound their f32
//! results with, and exact agreement.

/// How far `got` lies from the reference `want` (in f64, far closer than an f32 ulp to the
/// exact value), in units in the last place of `want` rounded to f32. A `want` of zero
/// counts in the smallest subnormal; beyond f32's range the right answer is the infinity
/// `want` rounds to, which is 0 ulp away and everything else infinitely far.
pub fn error_f32(got: f32, want: f64) -> f64 {
    if (want as f32).is_infinite() || got.is_infinite() {
        return if got == want as f32 { 0.0 } else { f64::INFINITY };
    }
    let want32 = (want as f32).abs();
    let ulp = f32::from_bits(want32.to_bits() + 1) - want32;
    ((got as f64) - want).abs() / ulp as f64
}

/// Whether two floats (f32 or f64) have the same bits, every NaN matching every NaN (Rust
/// leaves NaN payloads and signs unspecified); `0.0` and `-0.0` differ.
pub fn same_bits(a: impl Into<f64>, b: impl Into<f64>) -> bool {
    let (a, b) = (a.into(), b.into());
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[cfg(test)]
mod tests {
    use super::{error_f32, same_bits};

    #[test]
    fn same_bits_tells_zeros_apart_and_nans_alike() {
        assert!(same_bits(1.5f32, 1.5f32) && same_bits(-0.0f64, -0.0f64));
        assert!(!same_bits(0.0f32, -0.0f32) && !same_bits(1.0f64, 1.0 + f64::EPSILON));
        assert!(same_bits(f32::NAN, -f32::NAN) && same_bits(f64::NAN, f64::from_bits(0x7ff0_0000_0000_0001)));
        assert!(!same_bits(f32::NAN, f32::INFINITY));
    }

    #[test]
    fn distances_in_ulps() {
        assert_eq!(error_f32(1.0, 1.0), 0.0);
        // One ulp of 1.0 is 2^-23; half of one is half an ulp.
        assert_eq!(error_f32(1.0 + f32::EPSILON, 1.0), 1.0);
        assert_eq!(error_f32(1.0, 1.0 + f64::from(f32::EPSILON) / 2.0), 0.5);
        // Zero counts in the smallest subnormal.
        assert_eq!(error_f32(f32::from_bits(3), 0.0), 3.0);
        assert_eq!(error_f32(-f32::from_bits(2), 0.0), 2.0);
        // Past f32's range only the right infinity is exact.
        assert_eq!(error_f32(f32::INFINITY, 1e39), 0.0);
        assert_eq!(error_f32(f32::MAX, 1e39), f64::INFINITY);
        assert_eq!(error_f32(f32::INFINITY, 1.0), f64::INFINITY);
    }
}
