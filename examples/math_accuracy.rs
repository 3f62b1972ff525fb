//! Scans ptx-core's accurate f32 math routines over their whole domains and prints, per
//! routine, the largest error in ulp against a float64 reference, the input where it
//! occurs, and the routine's instruction count.
//!
//! ```text
//! cargo run --release --example math_accuracy                  # every 4099th bit pattern
//! cargo run --release --example math_accuracy -- --stride 97    # finer (minutes)
//! ```
//!
//! The values are those of the routines' constant folding, which gives the bits the
//! emitted PTX computes (`tests/sim_math.rs` checks the simulator against it bit for bit),
//! so a scan here is a scan of the kernel code. Every finite f32 whose bit pattern is a
//! multiple of the stride is an input (both signs, every exponent, subnormals); `powf` is
//! scanned as `x^y` for `y` in a fixed set of exponents.

use ptx_dsl::core::builder::Val;
use ptx_dsl::core::{math, KernelBuilder, F32};

/// A routine: emits its instructions for a register, folds for an immediate.
type Routine = fn(&mut KernelBuilder, Val<F32>) -> Val<F32>;

/// The float64 function a routine is measured against.
type Reference = fn(f64) -> f64;

/// The error of `got` against `want` in units of the f32 spacing at `want` (the smallest
/// subnormal below the normal range).
fn ulp_error(got: f32, want: f64) -> f64 {
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() == want.is_nan() { 0.0 } else { f64::INFINITY };
    }
    // Beyond f32's range the right answer is the infinity `want` rounds to.
    let rounded = want as f32;
    if rounded.is_infinite() || got.is_infinite() {
        return if got == rounded { 0.0 } else { f64::INFINITY };
    }
    let w = want.abs().max(f32::MIN_POSITIVE as f64);
    let ulp = 2f64.powi(w.log2().floor() as i32 - 23);
    (got as f64 - want).abs() / ulp
}

/// The largest error of `f` over the finite f32 bit patterns that are multiples of
/// `stride`, with the input where it occurs and the number of inputs.
fn scan(f: &dyn Fn(&mut KernelBuilder, f32) -> f32, reference: Reference, stride: u32) -> (f64, f32, u64) {
    let mut b = KernelBuilder::new("model");
    let (mut worst, mut at, mut count) = (0f64, 0f32, 0u64);
    let mut bits = 0u32;
    loop {
        let x = f32::from_bits(bits);
        if x.is_finite() {
            let e = ulp_error(f(&mut b, x), reference(x as f64));
            if e > worst {
                (worst, at) = (e, x);
            }
            count += 1;
        }
        match bits.checked_add(stride) {
            Some(n) => bits = n,
            None => break,
        }
    }
    (worst, at, count)
}

/// The instruction count of `f` emitted on a register.
fn instructions(f: &dyn Fn(&mut KernelBuilder, Val<F32>) -> Val<F32>) -> usize {
    let mut b = KernelBuilder::new("count");
    let p = b.global_pointer("x");
    let x = b.ld_global::<F32>(p, 0);
    let before = b.body().len();
    let _ = f(&mut b, Val::Reg(x));
    b.body().len() - before
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stride = match args.as_slice() {
        [] => 4099,
        [flag, n] if flag == "--stride" => match n.parse::<u32>() {
            Ok(n) if n > 0 => n,
            _ => {
                eprintln!(
                    "math_accuracy: --stride takes a positive number\nusage: math_accuracy [--stride N]"
                );
                std::process::exit(2);
            }
        },
        _ => {
            eprintln!("usage: math_accuracy [--stride N]");
            std::process::exit(2);
        }
    };
    let routines: [(&str, Routine, Reference); 16] = [
        ("sin", |b, x| math::sin(b, x), f64::sin),
        ("cos", |b, x| math::cos(b, x), f64::cos),
        ("tan", |b, x| math::tan(b, x), f64::tan),
        ("atan", |b, x| math::atan(b, x), f64::atan),
        ("asin", |b, x| math::asin(b, x), f64::asin),
        ("acos", |b, x| math::acos(b, x), f64::acos),
        ("exp", |b, x| math::exp(b, x), f64::exp),
        ("exp2", |b, x| math::exp2(b, x), f64::exp2),
        ("ln", |b, x| math::ln(b, x), f64::ln),
        ("log2", |b, x| math::log2(b, x), f64::log2),
        ("tanh", |b, x| math::tanh(b, x), f64::tanh),
        ("cbrt", |b, x| math::cbrt(b, x), f64::cbrt),
        ("exp_m1", |b, x| math::exp_m1(b, x), f64::exp_m1),
        ("ln_1p", |b, x| math::ln_1p(b, x), f64::ln_1p),
        ("sinh", |b, x| math::sinh(b, x), f64::sinh),
        ("cosh", |b, x| math::cosh(b, x), f64::cosh),
    ];
    println!("every {stride}th f32 bit pattern (finite inputs), error in ulp against f64");
    println!("{:<12} {:>10} {:>16} {:>10} {:>13}", "routine", "max ulp", "at x", "inputs", "instructions");
    for (name, f, reference) in routines {
        let fold = move |b: &mut KernelBuilder, x: f32| f(b, Val::Imm(x)).as_imm().unwrap_or(f32::NAN);
        let (worst, at, count) = scan(&fold, reference, stride);
        println!("{name:<12} {worst:>10.3} {at:>16e} {count:>10} {:>13}", instructions(&f));
    }
    for y in [0.5f32, 2.0, 3.0, -1.5, 10.0, 100.0] {
        let fold = move |b: &mut KernelBuilder, x: f32| math::powf(b, x, y).as_imm().unwrap_or(f32::NAN);
        let reference = match y {
            0.5 => |x: f64| x.powf(0.5),
            2.0 => |x: f64| x.powf(2.0),
            3.0 => |x: f64| x.powf(3.0),
            -1.5 => |x: f64| x.powf(-1.5),
            10.0 => |x: f64| x.powf(10.0),
            _ => |x: f64| x.powf(100.0),
        };
        let (worst, at, count) = scan(&fold, reference, stride);
        let name = format!("powf(x, {y})");
        let emit = move |b: &mut KernelBuilder, x: Val<F32>| math::powf(b, x, y);
        println!("{name:<12} {worst:>10.3} {at:>16e} {count:>10} {:>13}", instructions(&emit));
    }
}
