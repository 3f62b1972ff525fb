//! The `.approx` instructions' two models: accurate (the exact function rounded once), and
//! worst case (the exact function moved by the largest error the PTX ISA allows).

use ptx_core::softfloat::canon32;

/// How the simulator computes `sqrt rcp rsqrt ex2 lg2 sin cos tanh .approx.f32` and
/// `div.approx.f32`/`div.full.f32`, whose results the PTX ISA bounds but does not define.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Approx {
    /// The exact function rounded once (more accurate than any GPU): the default.
    #[default]
    Accurate,
    /// The exact function moved by the largest error the PTX ISA allows for the
    /// instruction, up or down as a hash of the input decides, then rounded: a test that
    /// passes in this mode does not rely on accuracy the hardware does not promise.
    /// [`Approx::BOUNDS`] lists the bounds.
    WorstCase,
}

/// An instruction's error bound as the PTX ISA states it for f32.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// At most this many units in the last place.
    Ulps(f64),
    /// At most this fraction of the exact result.
    Relative(f64),
    /// At most this much.
    Absolute(f64),
    /// `lg2`: absolute where the result is below 1 in magnitude, else relative.
    AbsoluteBelowOne(f64),
    /// `sin`, `cos`: absolute on [-π, π]; beyond, the ISA gives no bound and the model
    /// lets it grow as |x|/π (the hardware's argument reduction loses that much).
    AbsoluteGrowing(f64),
}

/// The `.approx` instructions (f32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ApproxOp {
    Sqrt,
    Rsqrt,
    Rcp,
    Div,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Tanh,
}

impl Approx {
    /// The bounds [`Approx::WorstCase`] applies, per instruction.
    pub const BOUNDS: [(&'static str, Bound); 9] = [
        ("sqrt.approx.f32", Bound::Relative(1.0 / 8_388_608.0)), // 2^-23
        ("rsqrt.approx.f32", Bound::Relative(1.2562e-7)),        // 2^-22.9
        ("rcp.approx.f32", Bound::Ulps(1.0)),
        ("div.approx.f32, div.full.f32", Bound::Ulps(2.0)),
        ("ex2.approx.f32", Bound::Ulps(2.0)),
        ("lg2.approx.f32", Bound::AbsoluteBelowOne(1.5625e-7)), // 2^-22.6
        ("sin.approx.f32", Bound::AbsoluteGrowing(6.7435e-7)),  // 2^-20.5
        ("cos.approx.f32", Bound::AbsoluteGrowing(6.7435e-7)),
        ("tanh.approx.f32", Bound::Relative(4.9171e-4)), // 2^-10.987
    ];
}

impl ApproxOp {
    fn bound(self) -> Bound {
        let at = match self {
            ApproxOp::Sqrt => 0,
            ApproxOp::Rsqrt => 1,
            ApproxOp::Rcp => 2,
            ApproxOp::Div => 3,
            ApproxOp::Ex2 => 4,
            ApproxOp::Lg2 => 5,
            ApproxOp::Sin => 6,
            ApproxOp::Cos => 7,
            ApproxOp::Tanh => 8,
        };
        Approx::BOUNDS[at].1
    }
}

/// The size of an f32 unit in the last place at `v` (subnormals' below 2^-126).
fn ulp(v: f64) -> f64 {
    let e = if v == 0.0 { -126 } else { v.abs().log2().floor().max(-126.0) as i32 };
    2f64.powi(e - 23)
}

/// The result of `op` with `mode`, where `exact` is the exact value (in f64) and `input`
/// the first operand's bits (whose hash picks the direction of the worst-case error).
/// Exact special values (infinite or zero results, and those of infinite inputs such as
/// `tanh(±inf) = ±1`) are never moved, and a moved result stays on its side of zero and in
/// the function's range ([`in_range`]).
pub(crate) fn result(mode: Approx, op: ApproxOp, input: u64, x: f64, exact: f64) -> u64 {
    if mode == Approx::Accurate || !exact.is_finite() || exact == 0.0 || x.is_infinite() {
        return canon32(exact as f32);
    }
    let error = match op.bound() {
        Bound::Ulps(k) => k * ulp(exact),
        Bound::Relative(e) => e * exact.abs(),
        Bound::Absolute(e) => e,
        Bound::AbsoluteBelowOne(e) => e * exact.abs().max(1.0),
        Bound::AbsoluteGrowing(e) => e * (x.abs() / std::f64::consts::PI).max(1.0),
    };
    // Rounding the moved value adds up to half an ulp: move by that much less.
    let shift = (error - 0.5 * ulp(exact)).max(0.0);
    let mut h = input.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h ^= h >> 29;
    let up = h & 1 == 1;
    canon32(in_range(op, exact, if up { exact + shift } else { exact - shift }) as f32)
}

/// `1/sqrt(x)` correctly rounded to f64 (the host's `1.0 / x.sqrt()` rounds twice and errs
/// by up to about 1.5 ulp): the quotient, then moved an ulp at a time while the exact value
/// lies beyond the midpoint to its neighbour, which an exact integer comparison decides. No
/// input falls on a midpoint (the square of one is no power of two's reciprocal), so there
/// are no ties. Special values as `1.0 / x.sqrt()`: NaN for NaN and negative inputs, ±inf
/// for ±0, +0 for +inf.
pub(crate) fn rsqrt_f64(x: f64) -> f64 {
    let mut y = 1.0 / x.sqrt();
    if x.is_nan() || x <= 0.0 || x.is_infinite() || !y.is_finite() || y == 0.0 {
        return y;
    }
    // Each step moves one ulp; the quotient is within two of the result.
    for _ in 0..4 {
        let up = f64::from_bits(y.to_bits() + 1);
        let down = f64::from_bits(y.to_bits() - 1);
        if up.is_finite() && exceeds_midpoint(x, y) {
            y = up;
        } else if down > 0.0 && !exceeds_midpoint(x, down) {
            y = down;
        } else {
            break;
        }
    }
    y
}

/// Whether `1/sqrt(x)` exceeds the midpoint between positive finite `u` and the next f64
/// up: with `m` that midpoint, whether `x * m * m < 1`, computed exactly in integers.
fn exceeds_midpoint(x: f64, u: f64) -> bool {
    let (xm, xe) = integer_and_exponent(x);
    let (um, ue) = integer_and_exponent(u);
    // m = (2 um + 1) 2^(ue - 1), so x m^2 = xm (2 um + 1)^2 2^(xe + 2 ue - 2).
    let m = 2 * u128::from(um) + 1;
    let product = times_u128(xm, m * m);
    let shift = xe + 2 * ue - 2;
    // Below 1 exactly when product < 2^-shift (never equal: `m` is odd and above 1).
    shift < 0 && bit_length(&product) <= -shift as u32
}

/// `(n, e)` with `v = n * 2^e` exactly, for a finite positive `v`.
fn integer_and_exponent(v: f64) -> (u64, i32) {
    let bits = v.to_bits();
    let fraction = bits & ((1 << 52) - 1);
    match ((bits >> 52) & 0x7ff) as i32 {
        0 => (fraction, -1074),
        e => (fraction | 1 << 52, e - 1075),
    }
}

/// `a * b` as three 64-bit limbs, least significant first.
fn times_u128(a: u64, b: u128) -> [u64; 3] {
    let low = u128::from(a) * (b as u64 as u128);
    let high = u128::from(a) * (b >> 64);
    let middle = (low >> 64) + (high as u64 as u128);
    [low as u64, middle as u64, ((high >> 64) + (middle >> 64)) as u64]
}

/// The number of significant bits of a three-limb integer.
fn bit_length(n: &[u64; 3]) -> u32 {
    n.iter()
        .enumerate()
        .rev()
        .find(|(_, &l)| l != 0)
        .map_or(0, |(i, l)| 64 * i as u32 + 64 - l.leading_zeros())
}

/// `moved` (the exact result `exact` moved by an error) kept where `op`'s results lie: on
/// `exact`'s side of zero (at most a zero of its sign: an error never changes a result's
/// sign), and for `sin`, `cos` and `tanh` within [-1, 1].
fn in_range(op: ApproxOp, exact: f64, moved: f64) -> f64 {
    let same_side = if moved == 0.0 || (moved < 0.0) != (exact < 0.0) { 0f64.copysign(exact) } else { moved };
    match op {
        ApproxOp::Sin | ApproxOp::Cos | ApproxOp::Tanh => same_side.clamp(-1.0, 1.0),
        _ => same_side,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_case_results_stay_within_their_bounds_and_use_them() {
        let exact = std::f64::consts::E;
        let f32_ulp = ulp(exact);
        let (mut up, mut down) = (false, false);
        for input in 0..64u64 {
            let got = f32::from_bits(result(
                Approx::WorstCase,
                ApproxOp::Ex2,
                input,
                std::f64::consts::LOG2_E,
                exact,
            ) as u32);
            let err = (got as f64 - exact) / f32_ulp;
            assert!(err.abs() <= 2.0 && err.abs() >= 1.0, "{err} ulp");
            up |= err > 0.0;
            down |= err < 0.0;
        }
        assert!(up && down, "the error goes both ways");
        let accurate = result(Approx::Accurate, ApproxOp::Ex2, 1, std::f64::consts::LOG2_E, exact);
        assert_eq!(accurate, (exact as f32).to_bits() as u64);
        // Infinities and zeros pass through.
        assert_eq!(result(Approx::WorstCase, ApproxOp::Rcp, 0, 0.0, f64::INFINITY), 0x7f80_0000);
        assert_eq!(result(Approx::WorstCase, ApproxOp::Sqrt, 0, 0.0, 0.0), 0);
        // sin beyond π: the error grows with the argument.
        let far = result(Approx::WorstCase, ApproxOp::Sin, 3, 100.0, 100f64.sin());
        let err = (f32::from_bits(far as u32) as f64 - 100f64.sin()).abs();
        assert!(err > 6.7435e-7 * 20.0 && err <= 6.7435e-7 * 100.0 / std::f64::consts::PI, "{err}");
    }
}
