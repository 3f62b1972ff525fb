//! Accuracy of the f64 `exp`, `exp2`, `ln`, `log2` against the host's libm, measured by
//! folding the emitted sequences on immediates (the builder folds each step with PTX's exact
//! semantics, so the folded bits are the GPU's). Inputs: fresh random ones every run over
//! each routine's whole domain (subnormals included), the edges of over- and underflow, and
//! the special values, which must be Rust's bit for bit (NaN: the canonical NaN).

use ptx_core::builder::{KernelBuilder, Val};
use ptx_core::{math, F64};
use ptx_tools::rng::Rng;

/// The host's libm is correctly rounded or within 1 ulp for these functions (glibc documents
/// at most 1 ulp for exp, exp2, log, log2 on x86-64); ours is at most 1 ulp from the exact
/// value (the routines' docs), so the two may differ by 2 representable steps at most.
const MAX_STEPS_FROM_LIBM: u64 = 2;

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

/// The largest step count from libm over `inputs`, with the worst input.
fn worst(f: Routine, libm: fn(f64) -> f64, inputs: impl Iterator<Item = f64>) -> (u64, f64) {
    let mut worst = (0, 0.0);
    for x in inputs {
        let d = steps(fold(f, x), libm(x));
        if d > worst.0 {
            worst = (d, x);
        }
    }
    worst
}

fn check(name: &str, f: Routine, libm: fn(f64) -> f64, inputs: Vec<f64>) {
    let (d, x) = worst(f, libm, inputs.into_iter());
    eprintln!("{name}: at most {d} step(s) from libm (worst input {x:e})");
    assert!(d <= MAX_STEPS_FROM_LIBM, "{name}({x:e}) = {:e}, libm {:e}: {d} steps", fold(f, x), libm(x));
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
    check("exp", math::exp_f64, f64::exp, inputs("exp_f64", -746.0, 710.0, 200_000));
    check("exp2", math::exp2_f64, f64::exp2, inputs("exp2_f64", -1076.0, 1025.0, 200_000));
}

#[test]
fn ln_and_log2_f64_are_within_one_ulp_over_every_positive_f64() {
    check("ln", math::ln_f64, f64::ln, positive_inputs("ln_f64", 200_000));
    check("log2", math::log2_f64, f64::log2, positive_inputs("log2_f64", 200_000));
}

#[test]
fn f64_special_values_are_rusts() {
    let routines: [Case; 4] = [
        ("exp", math::exp_f64, f64::exp),
        ("exp2", math::exp2_f64, f64::exp2),
        ("ln", math::ln_f64, f64::ln),
        ("log2", math::log2_f64, f64::log2),
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
