//! Accuracy of the math routines against float64, measured by running the emitted
//! instruction sequences on immediates: the builder folds each step with PTX's exact
//! semantics, so the folded result is the bit pattern a GPU computes (the simulator tests
//! check the same sequences as emitted PTX).

use ptx_core::builder::{KernelBuilder, Val};
use ptx_core::{math, F32};
use ptx_tools::rng::Rng;
use ptx_tools::ulp;

/// Evaluates a routine on an immediate; asserts that nothing was emitted (fully folded).
fn run1(f: impl Fn(&mut KernelBuilder, Val<F32>) -> Val<F32>, b: &mut KernelBuilder, x: f32) -> f32 {
    let r = f(b, Val::Imm(x));
    assert!(b.body().is_empty(), "routine did not fold on an immediate");
    r.as_imm().expect("folded")
}

#[test]
fn sin_cos_within_2_pow_minus_22_for_a_million_points_up_to_2_pow_20() {
    let mut rng = Rng::fresh("sin_cos");
    let mut b = KernelBuilder::new("model");
    let (mut max_sin, mut max_cos) = (0f64, 0f64);
    for i in 0..1_000_000 {
        // Half the points uniform over [-2^20, 2^20], half log-uniform in magnitude
        // (2^-10 .. 2^20) so small and medium angles are well represented.
        let x = if i % 2 == 0 {
            ((rng.unit() * 2.0 - 1.0) * (1u32 << 20) as f64) as f32
        } else {
            let mag = 2f64.powf(rng.unit() * 30.0 - 10.0);
            (if rng.next() & 1 == 0 { mag } else { -mag }) as f32
        };
        let (s, c) = math::sin_cos(&mut b, x);
        assert!(b.body().is_empty());
        let (s, c) = (s.as_imm().unwrap(), c.as_imm().unwrap());
        let (rs, rc) = ((x as f64).sin(), (x as f64).cos());
        max_sin = max_sin.max((s as f64 - rs).abs());
        max_cos = max_cos.max((c as f64 - rc).abs());
    }
    eprintln!("sin max abs error {:.3e} = 2^{:.2}", max_sin, max_sin.log2());
    eprintln!("cos max abs error {:.3e} = 2^{:.2}", max_cos, max_cos.log2());
    // The documented bound of math::sin_cos for |x| <= 2^20.
    let bound = 2f64.powi(-22);
    assert!(max_sin <= bound, "sin error {max_sin:e} exceeds 2^-22");
    assert!(max_cos <= bound, "cos error {max_cos:e} exceeds 2^-22");
}

#[test]
fn sin_cos_special_values() {
    let mut b = KernelBuilder::new("model");
    assert!(run1(math::sin, &mut b, f32::INFINITY).is_nan());
    assert!(run1(math::cos, &mut b, f32::NAN).is_nan());
    assert_eq!(run1(math::sin, &mut b, 0.0), 0.0);
    assert_eq!(run1(math::cos, &mut b, 0.0), 1.0);
}

/// Checks a one-argument routine in ulps against a float64 reference on random inputs.
fn check_ulps(
    name: &str,
    f: impl Fn(&mut KernelBuilder, Val<F32>) -> Val<F32>,
    reference: impl Fn(f64) -> f64,
    input: impl Fn(&mut Rng) -> f32,
    max_ulps: f64,
) {
    let mut rng = Rng::fresh(name);
    let mut b = KernelBuilder::new("model");
    let mut worst = (0f64, 0f32);
    for _ in 0..200_000 {
        let x = input(&mut rng);
        let got = run1(&f, &mut b, x);
        let want = reference(x as f64);
        if !want.is_finite() || want.abs() > f32::MAX as f64 {
            assert!(
                got.is_infinite() || got.is_nan() || got.abs() >= f32::MAX,
                "{name}({x}) = {got}, want {want}"
            );
            continue;
        }
        let e = ulp::error_f32(got, want);
        if e > worst.0 {
            worst = (e, x);
        }
    }
    eprintln!("{name}: max error {:.3} ulp at x = {:e}", worst.0, worst.1);
    assert!(worst.0 <= max_ulps, "{name}: {:.3} ulp at x = {:e} exceeds {max_ulps}", worst.0, worst.1);
}

// The ulp bounds below are the ones documented on each routine; the 0.5 ulp of the final
// rounding plus polynomial and reduction errors stays under them with margin.

#[test]
fn exp2_within_2_ulp() {
    check_ulps("exp2", math::exp2, f64::exp2, |r| (r.unit() * 300.0 - 150.0) as f32, 2.0);
}

#[test]
fn exp_within_2_ulp() {
    check_ulps("exp", math::exp, f64::exp, |r| (r.unit() * 190.0 - 100.0) as f32, 2.0);
}

/// Positive floats over the whole range, subnormals included: uniform over bit patterns.
fn positive_float(r: &mut Rng) -> f32 {
    loop {
        let x = f32::from_bits((r.next() as u32) & 0x7fff_ffff);
        if x.is_finite() && x > 0.0 {
            return x;
        }
    }
}

#[test]
fn ln_within_2_5_ulp() {
    check_ulps("ln", math::ln, f64::ln, positive_float, 2.5);
    check_ulps("ln near 1", math::ln, f64::ln, |r| (0.5 + r.unit() * 1.5) as f32, 2.5);
}

#[test]
fn log2_within_3_ulp() {
    check_ulps("log2", math::log2, f64::log2, positive_float, 3.0);
    check_ulps("log2 near 1", math::log2, f64::log2, |r| (0.5 + r.unit() * 1.5) as f32, 3.0);
}

#[test]
fn log10_within_1_ulp() {
    check_ulps("log10", math::log10, f64::log10, positive_float, 1.0);
    check_ulps("log10 near 1", math::log10, f64::log10, |r| (0.5 + r.unit() * 1.5) as f32, 1.0);
}

/// `x.log(base)` is Rust's `x.ln() / base.ln()`: within 1 ulp of the exact quotient, for
/// bases above and below 1.
#[test]
fn log_of_a_base_within_1_ulp() {
    for base in [3.0f32, 0.5, 10.0, 1.0001] {
        let name = format!("log base {base}");
        let reference = move |x: f64| x.ln() / (base as f64).ln();
        check_ulps(&name, move |b, x| math::log(b, x, base), reference, positive_float, 1.0);
    }
}

#[test]
fn log10_is_exact_at_powers_of_ten_and_keeps_lns_special_values() {
    let mut b = KernelBuilder::new("model");
    for k in 0..=10 {
        assert_eq!(run1(math::log10, &mut b, 10f32.powi(k)), k as f32, "log10(1e{k})");
    }
    assert_eq!(run1(math::log10, &mut b, 0.0), f32::NEG_INFINITY);
    assert_eq!(run1(math::log10, &mut b, -0.0), f32::NEG_INFINITY);
    assert_eq!(run1(math::log10, &mut b, f32::INFINITY), f32::INFINITY);
    assert!(run1(math::log10, &mut b, -1.0).is_nan());
    assert!(run1(math::log10, &mut b, f32::NAN).is_nan());
    let log = |b: &mut KernelBuilder, x: f32, base: f32| {
        math::log(b, Val::Imm(x), Val::Imm(base)).as_imm().expect("folded")
    };
    assert_eq!(log(&mut b, 8.0, 2.0), 3.0);
    assert_eq!(log(&mut b, 1.0, 7.0), 0.0);
    assert_eq!(log(&mut b, 5.0, 1.0), f32::INFINITY);
    assert!(log(&mut b, 1.0, 1.0).is_nan());
    assert!(log(&mut b, -2.0, 3.0).is_nan());
    assert!(log(&mut b, 2.0, f32::NAN).is_nan());
}

#[test]
fn tanh_within_4_ulp() {
    check_ulps("tanh", math::tanh, f64::tanh, |r| (r.unit() * 20.0 - 10.0) as f32, 4.0);
    check_ulps("tanh small", math::tanh, f64::tanh, |r| (r.unit() * 1.2 - 0.6) as f32, 4.0);
}

#[test]
fn log_and_exp_special_values() {
    let mut b = KernelBuilder::new("model");
    assert_eq!(run1(math::ln, &mut b, 0.0), f32::NEG_INFINITY);
    assert!(run1(math::ln, &mut b, -1.0).is_nan());
    assert_eq!(run1(math::log2, &mut b, f32::INFINITY), f32::INFINITY);
    assert_eq!(run1(math::log2, &mut b, 8.0), 3.0);
    assert_eq!(run1(math::exp2, &mut b, 10.0), 1024.0);
    assert_eq!(run1(math::exp2, &mut b, 200.0), f32::INFINITY);
    assert_eq!(run1(math::exp2, &mut b, -200.0), 0.0);
    assert_eq!(run1(math::exp2, &mut b, -149.0), f32::from_bits(1));
    assert!(run1(math::exp, &mut b, f32::NAN).is_nan());
    assert_eq!(run1(math::tanh, &mut b, 30.0), 1.0);
    assert_eq!(run1(math::tanh, &mut b, -30.0), -1.0);
}

#[test]
fn powf_within_1_ulp_for_finite_pairs() {
    let mut rng = Rng::fresh("powf");
    let mut b = KernelBuilder::new("model");
    let mut worst = (0f64, 0f32, 0f32);
    for i in 0..200_000 {
        // Bases over the whole positive range (subnormals included), exponents small and
        // large, so that |y·log2 x| spans 0 to beyond the overflow threshold.
        let x = f32::from_bits((rng.next() as u32) & 0x7fff_ffff);
        let y =
            if i % 2 == 0 { (rng.unit() * 8.0 - 4.0) as f32 } else { (rng.unit() * 400.0 - 200.0) as f32 };
        if !x.is_finite() || x == 0.0 {
            continue;
        }
        let got = math::powf(&mut b, x, y).as_imm().expect("folded");
        let want = (x as f64).powf(y as f64);
        let e = ulp::error_f32(got, want);
        if e > worst.0 {
            worst = (e, x, y);
        }
    }
    assert!(b.body().is_empty());
    eprintln!("powf: max {:.3} ulp at ({:e}, {:e})", worst.0, worst.1, worst.2);
    // Documented: within 1 ulp (y·log2 x in f64, one final rounding).
    assert!(worst.0 <= 1.0, "powf({:e}, {:e}): {:.3} ulp", worst.1, worst.2, worst.0);
    assert_eq!(math::powf(&mut b, -2.0f32, 3.0f32).as_imm(), Some(-8.0));
    assert_eq!(math::powf(&mut b, -2.0f32, 2.0f32).as_imm(), Some(4.0));
    assert_eq!(math::powf(&mut b, f32::MAX, 1.0f32).as_imm(), Some(f32::MAX));
    assert!(math::powf(&mut b, -2.0f32, 0.5f32).as_imm().unwrap().is_nan());
    assert_eq!(math::powf(&mut b, 0.0f32, 0.0f32).as_imm(), Some(1.0));
}

#[test]
fn routines_emit_instructions_for_register_inputs() {
    let mut b = KernelBuilder::new("emit");
    let p = b.global_pointer("x");
    let x = b.ld_global::<F32>(p, 0);
    let (s, _) = math::sin_cos(&mut b, x);
    assert!(matches!(s, Val::Reg(_)));
    assert!(b.body().len() > 20);
}

/// sin and cos within 2 ulp of the exact value of the f32 input over the whole f32 range:
/// a fixed stride through every bit pattern (both signs, every exponent, so the
/// large-argument reduction too) and fresh random finite inputs, against f64 `sin`/`cos`
/// (the host libm reduces huge arguments exactly; its error, < 1 ulp of f64, is far below
/// the f32 ulp). Special values exactly as Rust gives them.
#[test]
fn sin_cos_within_2_ulp_over_the_whole_f32_range() {
    let mut rng = Rng::fresh("sin_cos_full_range");
    let mut b = KernelBuilder::new("model");
    let mut worst = (0f64, 0f32, "");
    let mut check = |x: f32, b: &mut KernelBuilder| {
        let (s, c) = math::sin_cos(b, x);
        assert!(b.body().is_empty(), "sin_cos did not fold");
        let (s, c) = (s.as_imm().unwrap(), c.as_imm().unwrap());
        assert!((-1.0..=1.0).contains(&s) && (-1.0..=1.0).contains(&c), "sin/cos({x:e}) = {s}, {c}");
        for (got, want, name) in [(s, (x as f64).sin(), "sin"), (c, (x as f64).cos(), "cos")] {
            let e = ulp::error_f32(got, want);
            if e > worst.0 {
                worst = (e, x, name);
            }
        }
    };
    // Every 65 537th bit pattern: exponents all covered, about 65 000 finite inputs.
    let mut bits = 0u32;
    loop {
        let x = f32::from_bits(bits);
        if x.is_finite() {
            check(x, &mut b);
        }
        match bits.checked_add(65_537) {
            Some(n) => bits = n,
            None => break,
        }
    }
    for _ in 0..20_000 {
        let x = f32::from_bits(rng.next() as u32);
        if x.is_finite() {
            check(x, &mut b);
        }
    }
    eprintln!("sin/cos over the f32 range: max {:.3} ulp ({} at x = {:e})", worst.0, worst.2, worst.1);
    assert!(worst.0 <= 2.0, "{} at x = {:e}: {:.3} ulp exceeds 2", worst.2, worst.1, worst.0);
    // Signs of zero and non-finite inputs as Rust gives them.
    for x in [0.0f32, -0.0, f32::MIN_POSITIVE, -1e-40, f32::MAX, f32::MIN] {
        let (s, c) = (run1(math::sin, &mut b, x), run1(math::cos, &mut b, x));
        assert!(ulp::error_f32(s, (x as f64).sin()) <= 2.0, "sin({x:e}) = {s}");
        assert!(ulp::error_f32(c, (x as f64).cos()) <= 2.0, "cos({x:e}) = {c}");
    }
    assert_eq!(run1(math::sin, &mut b, -0.0).to_bits(), (-0.0f32).to_bits());
    for x in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
        assert!(run1(math::sin, &mut b, x).is_nan() && run1(math::cos, &mut b, x).is_nan(), "{x}");
    }
}

/// `powf` gives Rust's `f32::powf` bit for bit (NaN as NaN) on the C99 special-case table:
/// every pair of the values below where the base is special (±0, ±1, ±∞, NaN), the
/// exponent is (±0, ±∞, NaN) or the result is; the other pairs within 1 ulp.
#[test]
fn powf_special_cases_are_rusts() {
    let values = [
        0.0f32,
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
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        16_777_216.0,  // 2^24: an even integer
        -16_777_217.0, // rounds to -2^24 as f32: even too
        1e30,
        -1e30,
        f32::MIN_POSITIVE,
    ];
    let special = |v: f32| v == 0.0 || v.is_infinite() || v.is_nan();
    let mut b = KernelBuilder::new("model");
    for &x in &values {
        for &y in &values {
            let got = math::powf(&mut b, x, y).as_imm().expect("folded");
            let want = x.powf(y);
            if special(x) || x.abs() == 1.0 || special(y) || special(want) {
                let same = ulp::same_bits(got, want);
                assert!(same, "powf({x:e}, {y:e}) = {got:e}, Rust {want:e}");
            } else {
                let exact = (x as f64).powf(y as f64);
                assert!(ulp::error_f32(got, exact) <= 1.0, "powf({x:e}, {y:e}) = {got:e}, exact {exact:e}");
            }
        }
    }
    assert!(b.body().is_empty());
    // tanh keeps the sign of zero.
    assert_eq!(run1(math::tanh, &mut b, -0.0).to_bits(), (-0.0f32).to_bits());
}

/// Every routine's NaN result is the canonical NaN 0x7fffffff, for any NaN payload in and
/// for the domain errors (one documented rule).
#[test]
fn every_nan_result_is_the_canonical_nan() {
    let mut b = KernelBuilder::new("model");
    type Routine = fn(&mut KernelBuilder, Val<F32>) -> Val<F32>;
    let routines: [(&str, Routine); 8] = [
        ("sin", |b, x| math::sin(b, x)),
        ("cos", |b, x| math::cos(b, x)),
        ("exp", |b, x| math::exp(b, x)),
        ("exp2", |b, x| math::exp2(b, x)),
        ("ln", |b, x| math::ln(b, x)),
        ("log2", |b, x| math::log2(b, x)),
        ("tanh", |b, x| math::tanh(b, x)),
        ("powf(x, 0.5)", |b, x| math::powf(b, x, 0.5f32)),
    ];
    let nans = [f32::NAN, f32::from_bits(0x7fc0_1234), f32::from_bits(0xffa0_0001)];
    for (name, f) in routines {
        for x in nans {
            assert_eq!(run1(f, &mut b, x).to_bits(), 0x7fff_ffff, "{name}({:#x})", x.to_bits());
        }
    }
    for (name, got) in [
        ("ln(-1)", run1(math::ln, &mut b, -1.0)),
        ("log2(-inf)", run1(math::log2, &mut b, f32::NEG_INFINITY)),
        ("sin(inf)", run1(math::sin, &mut b, f32::INFINITY)),
        ("powf(-2, 0.5)", math::powf(&mut b, -2.0f32, 0.5f32).as_imm().unwrap()),
    ] {
        assert_eq!(got.to_bits(), 0x7fff_ffff, "{name}");
    }
}

/// The f64-evaluated routines (`cbrt`, `exp_m1`, `ln_1p`, `sinh`, `cosh`, `hypot`) within
/// 1 ulp of the f64 function over a stride through every f32 bit pattern, and equal to
/// Rust's `f32` methods bit for bit on special values (NaN as NaN).
#[test]
fn wide_routines_within_1_ulp_and_rusts_special_values() {
    type Routine = fn(&mut KernelBuilder, Val<F32>) -> Val<F32>;
    type Wide = fn(f64) -> f64;
    type Rust = fn(f32) -> f32;
    let routines: [(&str, Routine, Wide, Rust); 5] = [
        ("cbrt", |b, x| math::cbrt(b, x), f64::cbrt, f32::cbrt),
        ("exp_m1", |b, x| math::exp_m1(b, x), f64::exp_m1, f32::exp_m1),
        ("ln_1p", |b, x| math::ln_1p(b, x), f64::ln_1p, f32::ln_1p),
        ("sinh", |b, x| math::sinh(b, x), f64::sinh, f32::sinh),
        ("cosh", |b, x| math::cosh(b, x), f64::cosh, f32::cosh),
    ];
    let mut b = KernelBuilder::new("model");
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        -1e-40,
        1e-30,
    ];
    for (name, f, wide, rust) in routines {
        let mut worst = (0f64, 0f32);
        let mut bits = 0u32;
        loop {
            let x = f32::from_bits(bits);
            if x.is_finite() && !(name == "ln_1p" && x <= -1.0) {
                let e = ulp::error_f32(run1(f, &mut b, x), wide(x as f64));
                if e > worst.0 {
                    worst = (e, x);
                }
            }
            match bits.checked_add(131_071) {
                Some(n) => bits = n,
                None => break,
            }
        }
        eprintln!("{name}: max {:.3} ulp at x = {:e}", worst.0, worst.1);
        assert!(worst.0 <= 1.0, "{name}({:e}): {:.3} ulp exceeds 1", worst.1, worst.0);
        for x in specials {
            let (got, want) = (run1(f, &mut b, x), rust(x));
            let same = ulp::same_bits(got, want);
            assert!(
                same || ulp::error_f32(got, wide(x as f64)) <= 1.0,
                "{name}({x:e}) = {got:e}, Rust {want:e}"
            );
            if want == 0.0 || want.is_infinite() || want.is_nan() {
                assert!(same, "{name}({x:e}) = {got:e}, Rust {want:e}");
            }
        }
    }
    assert_eq!(run1(math::ln_1p, &mut b, -2.0).to_bits(), 0x7fff_ffff);
    let values = [0.0f32, -0.0, 3.0, -4.0, 1e-30, 3e38, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e-45];
    for &x in &values {
        for &y in &values {
            let got = math::hypot(&mut b, x, y).as_imm().expect("folded");
            let want = x.hypot(y);
            let same = ulp::same_bits(got, want);
            assert!(
                same || ulp::error_f32(got, (x as f64).hypot(y as f64)) <= 1.0,
                "hypot({x:e}, {y:e}) = {got:e}, Rust {want:e}"
            );
        }
    }
    assert!(b.body().is_empty());
}

/// `tan`, `atan`, `asin`, `acos` within 1 ulp over a stride through every
/// f32 bit pattern (their domains); special values and `atan2`'s C99 table against Rust.
#[test]
fn tan_and_inverse_trigonometry_within_their_bounds() {
    type Routine = fn(&mut KernelBuilder, Val<F32>) -> Val<F32>;
    type Wide = fn(f64) -> f64;
    type Rust = fn(f32) -> f32;
    let routines: [(&str, Routine, Wide, Rust, f64); 4] = [
        ("tan", math::tan, f64::tan, f32::tan, 1.0),
        ("atan", math::atan, f64::atan, f32::atan, 1.0),
        ("asin", math::asin, f64::asin, f32::asin, 1.0),
        ("acos", math::acos, f64::acos, f32::acos, 1.0),
    ];
    let mut b = KernelBuilder::new("model");
    for (name, f, wide, rust, bound) in routines {
        let mut worst = (0f64, 0f32);
        let mut bits = 0u32;
        loop {
            let x = f32::from_bits(bits);
            if x.is_finite() {
                let e = ulp::error_f32(run1(f, &mut b, x), wide(x as f64));
                if e > worst.0 {
                    worst = (e, x);
                }
            }
            match bits.checked_add(65_537) {
                Some(n) => bits = n,
                None => break,
            }
        }
        eprintln!("{name}: max {:.3} ulp at x = {:e}", worst.0, worst.1);
        assert!(worst.0 <= bound, "{name}({:e}): {:.3} ulp exceeds {bound}", worst.1, worst.0);
        for x in [0.0f32, -0.0, 1.0, -1.0, 1.5, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e-40] {
            let (got, want) = (run1(f, &mut b, x), rust(x));
            let same = ulp::same_bits(got, want);
            assert!(
                same || ulp::error_f32(got, wide(x as f64)) <= bound,
                "{name}({x:e}) = {got:e}, Rust {want:e}"
            );
            if want == 0.0 || want.is_nan() {
                assert!(same, "{name}({x:e}) = {got:e}, Rust {want:e}");
            }
        }
    }
    let values = [0.0f32, -0.0, 1.0, -1.0, 2.5, -3e-20, 1e30, f32::INFINITY, f32::NEG_INFINITY, f32::NAN];
    for &y in &values {
        for &x in &values {
            let got = math::atan2(&mut b, y, x).as_imm().expect("folded");
            let want = y.atan2(x);
            let same = ulp::same_bits(got, want);
            let close = ulp::error_f32(got, (y as f64).atan2(x as f64)) <= 1.0
                && got.is_sign_negative() == want.is_sign_negative();
            assert!(same || close, "atan2({y:e}, {x:e}) = {got:e}, Rust {want:e}");
        }
    }
    assert!(b.body().is_empty());
}

/// `tan` within 1 ulp where it is hardest: at the f32 inputs nearest to multiples of π/2
/// (its poles and zeros), where the result's relative error is the reduced argument's.
/// The reduction keeps that argument in f64 (an f32 one gave 2.02 ulp at x = 2.1248947e5,
/// k = 135 275, on the GPU scan, and 2.28 ulp at x = 7.9543555e4 here).
/// Every k up to 4096, then fresh random k up to 2^21 (both reductions and the switch
/// between them at 2^19), each nearest f32 with its two neighbours.
#[test]
fn tan_within_one_ulp_next_to_multiples_of_half_pi() {
    let mut rng = Rng::fresh("tan_near_poles");
    let mut b = KernelBuilder::new("model");
    // 135 275: where the f32 reduced argument gave 2.02 ulp.
    let ks = (1..=4096u64).chain([135_275]).chain((0..20_000).map(|_| 1 + rng.next() % (1 << 21)));
    let mut worst = (0f64, 0f32);
    for k in ks {
        let nearest = (k as f64 * std::f64::consts::FRAC_PI_2) as f32;
        for x in [f32::from_bits(nearest.to_bits() - 1), nearest, f32::from_bits(nearest.to_bits() + 1)] {
            for x in [x, -x] {
                let e = ulp::error_f32(run1(math::tan, &mut b, x), (x as f64).tan());
                if e > worst.0 {
                    worst = (e, x);
                }
            }
        }
    }
    eprintln!("tan next to multiples of π/2: max {:.3} ulp at x = {:e}", worst.0, worst.1);
    assert!(worst.0 <= 1.0, "tan({:e}): {:.3} ulp exceeds 1", worst.1, worst.0);
}

/// The `count` f32 inputs that come closest to a multiple k·π/2, k in `ks`, relative to k,
/// `|x − k·π/2| / k`: where an error δ in the reduction's π/2 costs most, since
/// `r = x − k·π/2` loses `k·δ` and sin, cos or tan there is about `r`. Found by a scan of
/// every k (the nearest f32 and its two neighbours), with `r` from one `fma` against f64
/// π/2 plus its tail.
fn closest_to_multiples_of_half_pi(ks: std::ops::Range<u32>, count: usize) -> Vec<f32> {
    const PI_2_TAIL: f64 = 6.123_233_995_736_766e-17;
    let mut best: std::collections::BinaryHeap<(u64, u32)> = std::collections::BinaryHeap::new();
    for k in ks {
        let kf = k as f64;
        let nearest = (kf * std::f64::consts::FRAC_PI_2) as f32;
        for x in [f32::from_bits(nearest.to_bits() - 1), nearest, f32::from_bits(nearest.to_bits() + 1)] {
            let r = (-kf).mul_add(std::f64::consts::FRAC_PI_2, x as f64) - kf * PI_2_TAIL;
            // Positive f64s order like their bits: the heap keeps the `count` smallest.
            best.push(((r.abs() / kf).to_bits(), x.to_bits()));
            if best.len() > count {
                best.pop();
            }
        }
    }
    best.into_sorted_vec().into_iter().map(|(_, x)| f32::from_bits(x)).collect()
}

/// sin and cos within their 2 ulp, and tan within its 1 ulp, at the hardest inputs of the
/// reductions: the f32s closest to multiples of π/2, below 2^19 (Cody–Waite: k < 333 773) and
/// up to 2^21 (Payne–Hanek).
/// There the result is the reduced argument itself, so a π/2 wrong in its last bits (a
/// Cody–Waite part off by one ulp or of the wrong sign) costs many ulps, while random inputs
/// almost never come close enough to show it.
#[test]
fn sin_cos_and_tan_within_their_bounds_next_to_the_closest_multiples_of_half_pi() {
    let mut b = KernelBuilder::new("model");
    let mut worst = (0f64, 0f32, "");
    let hardest = [
        closest_to_multiples_of_half_pi(1..333_773, 128),
        closest_to_multiples_of_half_pi(333_773..1 << 21, 128),
    ];
    for x in hardest.concat() {
        for x in [x, -x] {
            let (s, c) = math::sin_cos(&mut b, x);
            let (s, c) = (s.as_imm().expect("folded"), c.as_imm().expect("folded"));
            let t = run1(math::tan, &mut b, x);
            let x64 = x as f64;
            for (name, got, want, bound) in
                [("sin", s, x64.sin(), 2.0), ("cos", c, x64.cos(), 2.0), ("tan", t, x64.tan(), 1.0)]
            {
                let e = ulp::error_f32(got, want);
                assert!(e <= bound, "{name}({x:e}) = {got:e}: {e:.3} ulp exceeds {bound} (exact {want:e})");
                if e > worst.0 {
                    worst = (e, x, name);
                }
            }
        }
    }
    eprintln!("next to multiples of π/2: max {:.3} ulp ({} at x = {:e})", worst.0, worst.2, worst.1);
}
