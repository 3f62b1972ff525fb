//! Accuracy of the f64 routines (`exp exp2 ln log2 sin cos tan atan asin acos atan2 tanh
//! cbrt exp_m1 ln_1p sinh cosh hypot powf`) against correctly rounded references computed
//! with arbitrary precision (astro-float), measured by folding the emitted sequences on
//! immediates (the builder folds each step with PTX's exact semantics, so the folded bits
//! are the GPU's; `tests/sim_math.rs` holds the simulator to them). Inputs: fresh random
//! ones every run over each routine's whole domain (subnormals included), the hard cases
//! (arguments next to multiples of π/2, bases next to 1 with huge exponents), the edges of
//! over- and underflow, and the special values, which must be Rust's bit for bit (NaN: the
//! canonical NaN).

use astro_float_num::{BigFloat, Consts, RoundingMode};
use ptx_core::builder::{KernelBuilder, Val};
use ptx_core::{math, F64};
use ptx_tools::rng::Rng;

/// Where the special-value table compares with Rust's own functions (the host's libm, within
/// 2 ulp for these on x86-64 by glibc's documentation) rather than exactly: ours are within
/// 1 ulp, so 3 representable steps at most.
const MAX_STEPS_FROM_LIBM: u64 = 3;

type Routine = fn(&mut KernelBuilder, Val<F64>) -> Val<F64>;

/// A routine's name, the routine, and the host's function it is compared with.
type Case = (&'static str, Routine, fn(f64) -> f64);

fn fold(f: Routine, x: f64) -> f64 {
    let mut b = KernelBuilder::new("model");
    let r = f(&mut b, Val::Imm(x));
    assert!(b.body().is_empty(), "the routine did not fold on {x:e}");
    r.as_imm().expect("folded")
}

/// Representable steps between two f64s of the same sign class (∞ counts as the step past
/// MAX; different signs or NaN against a number are far apart).
fn steps(a: f64, b: f64) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() { 0 } else { u64::MAX };
    }
    let key = |v: f64| {
        let bits = v.to_bits() as i64;
        if bits < 0 {
            i64::MIN - bits
        } else {
            bits
        }
    };
    key(a).abs_diff(key(b))
}

/// The bound for routines rounded once from a double-double good to 2^-60 or better
/// (`ln`, `log2`, `atan`, `asin`, `acos`, `cbrt`, `hypot`): correctly rounded but for
/// about 2^-7 ulp, so 0.55 ulp (measured: 0.500 on every run). Tighter than their
/// documented 1 ulp on purpose: a wrong low part of a constant (e.g. the sign of an
/// `atan(j/8)` tail, 0.2–0.45 ulp) stays under 1 ulp but not under this.
const ROUNDED_ONCE: f64 = 0.55;

/// Working precision of the arbitrary-precision references (far beyond f64's 53 bits, so
/// the reference's own rounding is negligible next to the ulp bounds checked).
const PREC: usize = 192;
/// The references' rounding.
const RM: RoundingMode = RoundingMode::ToEven;

/// An arbitrary-precision reference: the exact function of an f64 input (astro-float
/// rounds its results correctly at the precision asked for), written independently of the
/// routines under test.
type Exact = fn(&BigFloat, &mut Consts) -> BigFloat;

/// `x` exactly (astro-float's `from_f64` misreads subnormals: they go through a scaling by
/// 2^64, exact both ways).
fn big(x: f64) -> BigFloat {
    if x != 0.0 && x.abs() < f64::MIN_POSITIVE {
        let scale = 2f64.powi(64);
        BigFloat::from_f64(x * scale, PREC).div(&BigFloat::from_f64(scale, PREC), PREC, RM)
    } else {
        BigFloat::from_f64(x, PREC)
    }
}

/// `x` as an f64, truncated (for printing an error, not for comparing).
fn approx(x: &BigFloat) -> f64 {
    match x.as_raw_parts() {
        Some((words, _, sign, exponent, _)) => {
            // 0.top · 2^exponent, the power in two factors so that neither underflows.
            let top = words.last().copied().unwrap_or(0) as f64 * 2f64.powi(-64);
            let v = top * 2f64.powi(exponent / 2) * 2f64.powi(exponent - exponent / 2);
            if sign.is_negative() {
                -v
            } else {
                v
            }
        }
        None if x.is_nan() => f64::NAN,
        None if x.is_inf_pos() => f64::INFINITY,
        None => f64::NEG_INFINITY,
    }
}

/// The error of `got` against the exact `want`, in ulps of `want` (subnormal spacing
/// below 2^-1022); an infinite `got` counts as exact where `want` rounds to infinity.
fn ulps(got: f64, want: &BigFloat) -> f64 {
    let Some(exponent) = want.exponent() else {
        // `want` is zero.
        return if got == 0.0 { 0.0 } else { f64::INFINITY };
    };
    if got.is_infinite() {
        // Rounds to ∞: |want| >= MAX + ulp(MAX)/2.
        let limit =
            BigFloat::from_f64(f64::MAX, PREC).add(&BigFloat::from_f64(2f64.powi(970), PREC), PREC, RM);
        let magnitude = if want.is_negative() { want.neg() } else { want.clone() };
        let rounds_to_inf = magnitude.cmp(&limit).is_some_and(|c| c >= 0);
        let same_sign = (got > 0.0) == want.is_positive();
        return if rounds_to_inf && same_sign { 0.0 } else { f64::INFINITY };
    }
    let diff = big(got).sub(want, PREC, RM);
    let ulp_exponent = (exponent - 53).max(-1074);
    let ulp = if ulp_exponent >= -1022 {
        2f64.powi(ulp_exponent)
    } else {
        f64::from_bits(1u64 << (ulp_exponent + 1074))
    };
    approx(&diff.div(&big(ulp), PREC, RM)).abs()
}

/// Checks `f` against the exact function on `inputs`: at most `bound` ulps (the routine's
/// documented bound), printing the largest error and its input.
fn check_exact(name: &str, f: Routine, exact: Exact, inputs: &[f64], bound: f64) {
    let mut cc = Consts::new().expect("astro-float constants");
    let mut worst = (0.0, 0.0);
    for &x in inputs {
        let want = exact(&big(x), &mut cc);
        let e = ulps(fold(f, x), &want);
        if e > worst.0 || e.is_nan() {
            worst = (e, x);
        }
    }
    let (e, x) = worst;
    eprintln!("{name}: at most {e:.3} ulp from the exact value (worst input {x:e})");
    assert!(e <= bound, "{name}({x:e}) = {:e}: {e:.3} ulp from the exact value", fold(f, x));
}

fn inputs(test: &str, lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let mut rng = Rng::fresh(test);
    let mut v: Vec<f64> = (0..n).map(|_| lo + (hi - lo) * rng.unit()).collect();
    // Small arguments, where the result is near 1 and the polynomial alone decides.
    v.extend((0..n / 8).map(|_| (rng.unit() - 0.5) * 2f64.powi(-((rng.next() % 60) as i32))));
    v
}

/// Every positive f64 class: random exponents and significands, subnormals, and numbers
/// within a few ulp of 1, where ln and log2 are smallest.
fn positive_inputs(test: &str, n: usize) -> Vec<f64> {
    let mut rng = Rng::fresh(test);
    let mut v: Vec<f64> = (0..n).map(|_| f64::from_bits(rng.next() >> 1)).filter(|x| x.is_finite()).collect();
    v.extend((0..n / 8).map(|_| f64::from_bits(rng.next() % (1 << 52))));
    v.extend((0..n / 8).map(|_| 1.0 + (rng.unit() - 0.5) * 2f64.powi(-((rng.next() % 50) as i32))));
    v
}

#[test]
fn exp_f64_is_within_one_ulp_over_its_range() {
    let exp2: Exact = |x, cc| {
        let p = PREC + 64;
        BigFloat::from_f64(2.0, p).ln(p, RM, cc).mul(x, p, RM).exp(PREC, RM, cc)
    };
    check_exact(
        "exp",
        math::exp_f64,
        |x, cc| x.exp(PREC, RM, cc),
        &inputs("exp_f64", -746.0, 710.0, 30_000),
        1.0,
    );
    check_exact("exp2", math::exp2_f64, exp2, &inputs("exp2_f64", -1076.0, 1025.0, 30_000), 1.0);
}

#[test]
fn ln_and_log2_f64_are_within_one_ulp_over_every_positive_f64() {
    check_exact(
        "ln",
        math::ln_f64,
        |x, cc| x.ln(PREC, RM, cc),
        &positive_inputs("ln_f64", 30_000),
        ROUNDED_ONCE,
    );
    check_exact(
        "log2",
        math::log2_f64,
        |x, cc| x.log2(PREC, RM, cc),
        &positive_inputs("log2_f64", 30_000),
        ROUNDED_ONCE,
    );
    check_exact(
        "log10",
        math::log10_f64,
        |x, cc| x.log10(PREC, RM, cc),
        &positive_inputs("log10_f64", 30_000),
        ROUNDED_ONCE,
    );
}

#[test]
fn log10_f64_is_exact_at_powers_of_ten() {
    for k in 0..=22 {
        let x = 10f64.powi(k);
        assert_eq!(fold(math::log10_f64, x), k as f64, "log10(1e{k})");
    }
}

/// Arguments for the trigonometric functions: ordinary ones, every exponent up to the
/// largest f64, and the f64s nearest to multiples of π/2 (where the reduced argument is
/// tiny and a reduction that loses bits shows most), the closest of all included.
fn trig_inputs(test: &str, n: usize) -> Vec<f64> {
    let mut rng = Rng::fresh(test);
    let mut v: Vec<f64> = (0..n).map(|_| (rng.unit() - 0.5) * 20.0).collect();
    v.extend((0..n).map(|_| (rng.unit() - 0.5) * 2f64.powi(27)));
    v.extend(
        (0..n)
            .map(|_| {
                f64::from_bits(rng.next() & !(1 << 63))
                    * if rng.next().is_multiple_of(2) { 1.0 } else { -1.0 }
            })
            .filter(|x| x.is_finite()),
    );
    v.extend((0..n / 4).map(|_| (rng.unit() - 0.5) * 2f64.powi(-((rng.next() % 1000) as i32))));
    for _ in 0..n / 4 {
        let k = (rng.next() % (1 << 40)) as f64;
        let near = k * std::f64::consts::FRAC_PI_2;
        let ulps = (rng.next() % 5) as i64 - 2;
        v.push(f64::from_bits((near.to_bits() as i64 + ulps) as u64));
    }
    v
}

/// The f64 closest to a multiple of π/2 (Kahan and McDonald): x = 6381956970095103·2^797
/// lies 4.687165924254628e-19 above q·π/2 with q ≡ 1 (mod 4), so cos x = −sin r and
/// sin x = cos r = 1 to f64 precision. The value of r (correctly rounded) was computed
/// exactly with rational arithmetic and a 2000-bit π (Machin's formula) outside this
/// project's code; the host's libm gets cos x wrong here by 8 ulp, so it cannot be the
/// reference.
#[test]
fn the_f64_nearest_a_multiple_of_half_pi_reduces_exactly() {
    let r = 4.687_165_924_254_628e-19;
    for (x, sign) in
        [(6_381_956_970_095_103.0 * 2f64.powi(797), 1.0), (-6_381_956_970_095_103.0 * 2f64.powi(797), -1.0)]
    {
        assert_eq!(fold(math::sin_f64, x), sign, "sin({x:e})");
        assert_eq!(fold(math::cos_f64, x), -r, "cos({x:e})");
        // tan x = −cos r / sin r = −1/r · (1 − r²/3 + ...), correctly rounded: 1/r rounded.
        assert!(steps(fold(math::tan_f64, x), -sign / r) <= 1, "tan({x:e})");
    }
}

#[test]
fn sin_cos_tan_f64_are_within_one_ulp_for_every_f64() {
    let inputs = trig_inputs("trig_f64", 4_000);
    check_exact("sin", math::sin_f64, |x, cc| x.sin(PREC, RM, cc), &inputs, 1.0);
    check_exact("cos", math::cos_f64, |x, cc| x.cos(PREC, RM, cc), &inputs, 1.0);
    check_exact("tan", math::tan_f64, |x, cc| x.tan(PREC, RM, cc), &inputs, 1.0);
}

/// Arguments for the hyperbolic and `e^x − 1`/`ln(1 + x)` families: tiny ones (where the
/// naive formulas cancel), ordinary ones, and the edges of overflow.
fn hyperbolic_inputs(test: &str, lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let mut rng = Rng::fresh(test);
    let mut v: Vec<f64> = (0..n).map(|_| lo + (hi - lo) * rng.unit()).collect();
    v.extend((0..n).map(|_| (rng.unit() - 0.5) * 4.0));
    v.extend((0..n / 2).map(|_| (rng.unit() - 0.5) * 2f64.powi(-((rng.next() % 1070) as i32))));
    v
}

/// The precision that keeps `1 + x` exact for tiny `x` (for `e^x − 1` and `ln(1 + x)`).
fn precision_past(x: &BigFloat) -> usize {
    PREC + x.exponent().map_or(0, |e| (-e).max(0) as usize)
}

#[test]
fn exp_m1_ln_1p_and_hyperbolic_f64_are_within_one_ulp() {
    let exp_m1: Exact = |x, cc| {
        let p = precision_past(x);
        x.exp(p, RM, cc).sub(&BigFloat::from_f64(1.0, p), p, RM)
    };
    let ln_1p: Exact = |x, cc| {
        let p = precision_past(x);
        x.add(&BigFloat::from_f64(1.0, p), p, RM).ln(p, RM, cc)
    };
    let inputs = hyperbolic_inputs("exp_m1_f64", -760.0, 710.0, 20_000);
    check_exact("exp_m1", math::exp_m1_f64, exp_m1, &inputs, 1.0);
    let mut inputs = hyperbolic_inputs("ln_1p_f64", -1.0, 1e6, 20_000);
    inputs.retain(|&x| x > -1.0);
    inputs.extend(positive_inputs("ln_1p_f64_wide", 5_000));
    check_exact("ln_1p", math::ln_1p_f64, ln_1p, &inputs, 1.0);
    let inputs = hyperbolic_inputs("sinh_f64", -711.0, 711.0, 20_000);
    check_exact("sinh", math::sinh_f64, |x, cc| x.sinh(PREC, RM, cc), &inputs, 1.0);
    let inputs = hyperbolic_inputs("cosh_f64", -711.0, 711.0, 20_000);
    check_exact("cosh", math::cosh_f64, |x, cc| x.cosh(PREC, RM, cc), &inputs, 1.0);
    let inputs = hyperbolic_inputs("tanh_f64", -25.0, 25.0, 20_000);
    check_exact("tanh", math::tanh_f64, |x, cc| x.tanh(PREC, RM, cc), &inputs, 1.0);
}

#[test]
fn inverse_trigonometric_f64_are_within_one_ulp() {
    let mut rng = Rng::fresh("inverse_trig_f64");
    let mut wide: Vec<f64> =
        (0..8000).map(|_| f64::from_bits(rng.next())).filter(|x| x.is_finite()).collect();
    wide.extend((0..8000).map(|_| (rng.unit() - 0.5) * 40.0));
    wide.extend((0..2000).map(|_| (rng.unit() - 0.5) * 2f64.powi(-((rng.next() % 1070) as i32))));
    check_exact("atan", math::atan_f64, |x, cc| x.atan(PREC, RM, cc), &wide, ROUNDED_ONCE);
    let mut unit: Vec<f64> = (0..8000).map(|_| rng.unit() * 2.0 - 1.0).collect();
    // Next to ±1, where 1 − x² cancels, and tiny arguments.
    unit.extend((0..4000).map(|_| {
        (1.0 - rng.unit() * 2f64.powi(-((rng.next() % 52) as i32)))
            * if rng.next().is_multiple_of(2) { 1.0 } else { -1.0 }
    }));
    unit.extend((0..2000).map(|_| (rng.unit() - 0.5) * 2f64.powi(-((rng.next() % 1070) as i32))));
    check_exact("asin", math::asin_f64, |x, cc| x.asin(PREC, RM, cc), &unit, ROUNDED_ONCE);
    check_exact("acos", math::acos_f64, |x, cc| x.acos(PREC, RM, cc), &unit, ROUNDED_ONCE);
}

/// `atan2` against atan of the exact ratio, moved to the operands' quadrant, on pairs of
/// every magnitude and sign (and the C99 special cases bit for bit against Rust).
#[test]
fn atan2_f64_is_within_one_ulp_in_every_quadrant() {
    let mut rng = Rng::fresh("atan2_f64");
    let mut cc = Consts::new().expect("astro-float constants");
    let pi = cc.pi(PREC, RM);
    let mut worst = (0.0, 0.0, 0.0);
    for _ in 0..20_000 {
        let pick = |rng: &mut Rng| match rng.next() % 3 {
            0 => (rng.unit() - 0.5) * 10.0,
            1 => f64::from_bits(rng.next()),
            _ => (rng.unit() - 0.5) * 2f64.powi((rng.next() % 200) as i32 - 100),
        };
        let (y, x) = (pick(&mut rng), pick(&mut rng));
        if !x.is_finite() || !y.is_finite() || x == 0.0 {
            continue;
        }
        let ratio = big(y).div(&big(x), PREC, RM);
        let mut want = ratio.atan(PREC, RM, &mut cc);
        if x < 0.0 {
            want = if y < 0.0 { want.sub(&pi, PREC, RM) } else { want.add(&pi, PREC, RM) };
        }
        let mut b = KernelBuilder::new("model");
        let got = math::atan2_f64(&mut b, y, x).as_imm().expect("folded");
        let e = ulps(got, &want);
        if e > worst.0 || e.is_nan() {
            worst = (e, y, x);
        }
    }
    let (e, y, x) = worst;
    eprintln!("atan2: at most {e:.3} ulp from the exact value (worst atan2({y:e}, {x:e}))");
    assert!(e <= 1.0, "atan2({y:e}, {x:e}): {e:.3} ulp");
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.5,
        -2.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        1e300,
    ];
    let mut b = KernelBuilder::new("model");
    for y in specials {
        for x in specials {
            let got = math::atan2_f64(&mut b, y, x).as_imm().expect("folded");
            let want = y.atan2(x);
            if want.is_nan() {
                assert_eq!(got.to_bits(), ptx_core::eval::F64_CANONICAL_NAN, "atan2({y:e}, {x:e})");
            } else {
                assert!(
                    got.to_bits() == want.to_bits() || steps(got, want) <= 1,
                    "atan2({y:e}, {x:e}) = {got:e}, Rust {want:e}"
                );
            }
        }
    }
}

#[test]
fn cbrt_and_hypot_f64_are_within_one_ulp() {
    let mut rng = Rng::fresh("roots_f64");
    let mut inputs: Vec<f64> =
        (0..20_000).map(|_| f64::from_bits(rng.next())).filter(|x| x.is_finite()).collect();
    inputs.extend((0..5_000).map(|_| (rng.unit() - 0.5) * 100.0));
    inputs.extend((0..2_000).map(|_| f64::from_bits(rng.next() % (1 << 52))));
    check_exact("cbrt", math::cbrt_f64, |x, _| x.cbrt(PREC, RM), &inputs, ROUNDED_ONCE);
    let mut worst = (0.0, 0.0, 0.0);
    for _ in 0..20_000 {
        let pick = |rng: &mut Rng| match rng.next() % 3 {
            0 => (rng.unit() - 0.5) * 10.0,
            1 => f64::from_bits(rng.next()),
            _ => (rng.unit() - 0.5) * 2f64.powi((rng.next() % 200) as i32 - 100),
        };
        let (x, y) = (pick(&mut rng), pick(&mut rng));
        if !x.is_finite() || !y.is_finite() {
            continue;
        }
        let (bx, by) = (big(x), big(y));
        let sum = bx.mul(&bx, 4 * PREC, RM).add(&by.mul(&by, 4 * PREC, RM), 4 * PREC, RM);
        let want = sum.sqrt(PREC, RM);
        let mut b = KernelBuilder::new("model");
        let got = math::hypot_f64(&mut b, x, y).as_imm().expect("folded");
        let e = ulps(got, &want);
        if e > worst.0 || e.is_nan() {
            worst = (e, x, y);
        }
    }
    let (e, x, y) = worst;
    eprintln!("hypot: at most {e:.3} ulp from the exact value (worst hypot({x:e}, {y:e}))");
    assert!(e <= ROUNDED_ONCE, "hypot({x:e}, {y:e}): {e:.3} ulp");
}

/// `x^y` over pairs spanning the whole range: bases of every exponent (subnormals
/// included), exponents that bring `y·ln x` anywhere in [−800, 800] (overflow and
/// underflow, the subnormal results among them), bases near 1 with huge exponents (where
/// the logarithm's error is multiplied most), and negative bases with integer exponents.
#[test]
fn powf_f64_is_within_one_ulp_over_the_whole_range() {
    let mut rng = Rng::fresh("powf_f64");
    let mut pairs = Vec::new();
    for _ in 0..10_000 {
        let x = f64::from_bits(rng.next() >> 1);
        if !x.is_finite() || x == 0.0 {
            continue;
        }
        let target = (rng.unit() - 0.5) * 1600.0;
        pairs.push((x, target / x.ln()));
    }
    for _ in 0..3_000 {
        let x = 1.0 + (rng.unit() - 0.5) * 2f64.powi(-((rng.next() % 50) as i32));
        if x != 1.0 {
            pairs.push((x, (rng.unit() - 0.5) * 1400.0 / x.ln().abs()));
        }
    }
    for _ in 0..3_000 {
        let x = -(rng.unit() * 4.0);
        pairs.push((x, ((rng.next() % 2001) as f64 - 1000.0).trunc()));
        pairs.push((rng.unit() * 10.0, (rng.unit() - 0.5) * 20.0));
    }
    let mut cc = Consts::new().expect("astro-float constants");
    let mut worst = (0.0, 0.0, 0.0);
    for &(x, y) in &pairs {
        let mut b = KernelBuilder::new("model");
        let got = math::powf_f64(&mut b, x, y).as_imm().expect("folded");
        // |x|^y exactly, negated for a negative base (whose exponents here are integers).
        // e^(y·ln|x|) with 64 guard bits (astro-float's `pow` takes forever on huge
        // integral exponents, computing them by repeated squaring).
        let p = PREC + 64;
        let exponent = big(x.abs()).ln(p, RM, &mut cc).mul(&big(y), p, RM);
        let magnitude = exponent.exp(PREC, RM, &mut cc);
        let odd = y.rem_euclid(2.0) == 1.0;
        let want = if x < 0.0 && odd { magnitude.neg() } else { magnitude };
        let e = ulps(got, &want);
        if e > worst.0 || e.is_nan() {
            worst = (e, x, y);
        }
    }
    let (e, x, y) = worst;
    eprintln!("powf: at most {e:.3} ulp from the exact value (worst {x:e}^{y:e})");
    assert!(e <= 1.0, "powf({x:e}, {y:e}): {e:.3} ulp from the exact value");
}

/// `powf_f64` gives Rust's `f64::powf` bit for bit (NaN as the canonical NaN) wherever the
/// base is ±0, ±1, ±∞ or NaN, the exponent ±0, ±∞ or NaN, or the result 0, ∞ or NaN; the
/// other pairs of the table within the libm bound.
#[test]
fn powf_f64_special_cases_are_rusts() {
    let values = [
        0.0f64,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        3.0,
        -3.0,
        1.5,
        -1.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        9_007_199_254_740_992.0,  // 2^53: an even integer
        -9_007_199_254_740_993.0, // rounds to -2^53: even too
        1e300,
        -1e300,
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        // Exponents where y·ln|x| itself overflows f64: the result is ∞ or 0.
        255.5,
        0.001,
        1e308,
        -1e308,
        f64::MAX,
        f64::MIN,
    ];
    let special = |v: f64| v == 0.0 || v.is_infinite() || v.is_nan();
    let mut b = KernelBuilder::new("model");
    for &x in &values {
        for &y in &values {
            let got = math::powf_f64(&mut b, x, y).as_imm().expect("folded");
            let want = x.powf(y);
            if want.is_nan() {
                assert_eq!(got.to_bits(), ptx_core::eval::F64_CANONICAL_NAN, "powf({x:e}, {y:e})");
            } else if special(x) || x.abs() == 1.0 || special(y) || special(want) {
                assert_eq!(got.to_bits(), want.to_bits(), "powf({x:e}, {y:e}) = {got:e}, Rust {want:e}");
            } else {
                assert!(
                    steps(got, want) <= MAX_STEPS_FROM_LIBM,
                    "powf({x:e}, {y:e}) = {got:e}, Rust {want:e}"
                );
            }
        }
    }
    assert!(b.body().is_empty());
}

#[test]
fn f64_special_values_are_rusts() {
    let routines: [Case; 19] = [
        ("cbrt", math::cbrt_f64, f64::cbrt),
        ("hypot_with_3", |b, x| math::hypot_f64(b, x, 3.0), |x| x.hypot(3.0)),
        ("atan", math::atan_f64, f64::atan),
        ("asin", math::asin_f64, f64::asin),
        ("acos", math::acos_f64, f64::acos),
        ("atan2_by_-1.5", |b, x| math::atan2_f64(b, x, -1.5), |x| x.atan2(-1.5)),
        ("exp_m1", math::exp_m1_f64, f64::exp_m1),
        ("ln_1p", math::ln_1p_f64, f64::ln_1p),
        ("sinh", math::sinh_f64, f64::sinh),
        ("cosh", math::cosh_f64, f64::cosh),
        ("tanh", math::tanh_f64, f64::tanh),
        ("sin", math::sin_f64, f64::sin),
        ("cos", math::cos_f64, f64::cos),
        ("tan", math::tan_f64, f64::tan),
        ("exp", math::exp_f64, f64::exp),
        ("exp2", math::exp2_f64, f64::exp2),
        ("ln", math::ln_f64, f64::ln),
        ("log2", math::log2_f64, f64::log2),
        ("log10", math::log10_f64, f64::log10),
    ];
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.0,
        0.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        f64::MAX,
        709.782712893384,
        709.7827128933841,
        -745.1332191019411,
        -745.1332191019412,
        1024.0,
        1023.9999999999999,
        -1074.0,
        -1075.0,
        -1075.5,
        8.0,
        1024.0f64.exp2(),
    ];
    for (name, f, libm) in routines {
        for x in specials {
            let (got, want) = (fold(f, x), libm(x));
            if want.is_nan() {
                assert_eq!(got.to_bits(), ptx_core::eval::F64_CANONICAL_NAN, "{name}({x:e})");
            } else if want.is_infinite() || want == 0.0 || want.fract() == 0.0 && want.abs() < 1e15 {
                // Infinities, zeros (with their sign) and exact integers are exact.
                assert_eq!(got.to_bits(), want.to_bits(), "{name}({x:e}) = {got:e}, Rust {want:e}");
            } else {
                assert!(steps(got, want) <= MAX_STEPS_FROM_LIBM, "{name}({x:e}) = {got:e}, Rust {want:e}");
            }
        }
        assert_eq!(fold(f, f64::NAN).to_bits(), ptx_core::eval::F64_CANONICAL_NAN, "{name}(NaN)");
    }
}
