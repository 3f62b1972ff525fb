//! What the twenty-fourth round of probing found in the language: `#[unroll]` loops over
//! runaway counts of empty copies (a build that did not end) and their error's location,
//! and doc comments on statements (refused as attributes).

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, Error, LaunchConfig};

/// The 1-based line of this file holding `marker`.
fn line_of(marker: &str) -> usize {
    include_str!("lang_round24.rs")
        .lines()
        .position(|l| l.contains(marker))
        .expect("the marker is in the file")
        + 1
}

/// Asserts `err` is the verifier's refusal of an unrolled loop at line `line`.
fn assert_refused_at(err: &Error, kernel: &str, line: usize) {
    let Error::InvalidKernel(e) = err else { panic!("expected InvalidKernel, got {err:?}") };
    assert_eq!(e.rule, ptx_dsl::core::Rule::NothingRefused, "{e}");
    assert_eq!(e.kernel, kernel, "{e}");
    let at = format!("{}:{line}:", file!());
    assert!(e.source.as_deref().is_some_and(|s| s.starts_with(&at)), "{e} (want {at})");
    assert!(e.to_string().contains("#[unroll]"), "{e}");
}

#[ptx_kernel]
fn empty_unroll(out: &mut [u32], #[comptime] n: u64) {
    #[unroll]
    for _k in 0..n {} // empty copies
    out[0] = 1;
}

#[ptx_kernel]
fn nested_empty_unroll(out: &mut [u32], #[comptime] n: u32, #[comptime] m: u32) {
    #[unroll]
    for _k in 0..n {
        // the outer loop, above
        #[unroll]
        for _j in 0..m {}
    }
    out[0] = 2;
}

#[ptx_kernel]
fn unroll_with_break(out: &mut [u32], #[comptime] n: u32) {
    #[unroll]
    for k in 0..n {
        // the breaking loop, above
        if k == 3 {
            break;
        }
        out[0] += 1;
    }
}

/// An `#[unroll]` loop of empty copies over a runaway count ended the build only after
/// `u64::MAX` iterations; now it stops at the copy limit, an error at the loop's line. A
/// count within the limit still builds and runs.
#[test]
fn unrolled_empty_copies_past_the_limit_are_an_error_at_the_loop() {
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(1).unwrap();
    EmptyUnroll::new(1000).launch(&dev, LaunchConfig::linear(1, 1), &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [1]);
    let err = EmptyUnroll::new(u64::MAX).launch(&dev, LaunchConfig::linear(1, 1), &mut out).unwrap_err();
    assert_refused_at(&err, "empty_unroll", line_of("// empty copies"));
    // An outer loop over inner loops of no copies: the outer one is named.
    let err =
        NestedEmptyUnroll::new(u32::MAX, 0).launch(&dev, LaunchConfig::linear(1, 1), &mut out).unwrap_err();
    assert_refused_at(&err, "nested_empty_unroll", line_of("// the outer loop, above") - 1);
    NestedEmptyUnroll::new(300, 300).launch(&dev, LaunchConfig::linear(1, 1), &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [2]);
}

/// A loop that unrolls past the instruction limit (each copy laid out, the `break` taken
/// at run time) is reported at the loop, not at a statement of its body.
#[test]
fn unrolling_past_the_instruction_limit_names_the_loop() {
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(1).unwrap();
    UnrollWithBreak::new(10).launch(&dev, LaunchConfig::linear(1, 1), &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [3]);
    let err = UnrollWithBreak::new(1_000_000).launch(&dev, LaunchConfig::linear(1, 1), &mut out).unwrap_err();
    assert_refused_at(&err, "unroll_with_break", line_of("// the breaking loop, above") - 1);
}

/// Doc comments on statements are comments, as rustc takes them (it warns that they
/// document nothing); they were refused as attributes.
#[ptx_kernel]
#[allow(unused_doc_comments)]
fn documented_statements(out: &mut [u32]) {
    /// The first value.
    let a = 3u32;
    /// Sums four copies.
    #[unroll]
    for k in 0..4u32 {
        out[0] += a + k;
    }
    /// Then one more.
    out[1] = a;
}

#[test]
fn doc_comments_on_statements_are_comments() {
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(2).unwrap();
    DocumentedStatements::new().launch(&dev, LaunchConfig::linear(1, 1), &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [18, 3]);
}

/// A `#[ptx_kernel]` kernel launched through the raw `Device::launch` with its visible
/// arguments only: the error lists the hidden parameters, and now says to use the typed
/// `launch`, which passes them.
#[test]
fn a_raw_launch_of_a_macro_kernel_points_to_its_typed_launch() {
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(2).unwrap();
    let kernel = DocumentedStatements::new();
    let args = &mut [ptx_dsl::runtime::KernelArg::buffer_mut(&mut out)];
    // SAFETY: refused before anything runs (the argument count is wrong).
    let err = unsafe { dev.launch(&kernel, LaunchConfig::linear(1, 1), args) }.unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::ArgumentMismatch { .. }), "{text}");
    assert!(text.contains("fault__record") && text.contains("is a `#[ptx_kernel]` kernel"), "{text}");
}

/// A builder kernel with an `.f16` parameter takes a `half::f16` at launch (it was refused:
/// the value arrives as `u16` bits, which only a `.b16` parameter took).
#[test]
fn a_half_parameter_takes_a_half_value() {
    use ptx_dsl::core::{Kernel, KernelBuilder, KernelIr, F16, F32};
    struct HalfParam;
    impl Kernel for HalfParam {
        fn name(&self) -> &str {
            "half_param"
        }
        fn build(&self) -> KernelIr {
            let mut b = KernelBuilder::new("half_param");
            let p = b.param::<F16>("h");
            let out = b.global_pointer("out");
            let h = b.load_param(p);
            let f = b.cast::<F32, F16>(h);
            b.st_global::<F32>(out, 0, f);
            b.finish()
        }
    }
    let dev = Device::sim();
    let mut out = dev.zeroed::<f32>(1).unwrap();
    let half = ptx_dsl::half::f16::from_f32(-2.75);
    let args = &mut [half.into(), ptx_dsl::runtime::KernelArg::buffer_mut(&mut out)];
    // SAFETY: the kernel writes one f32 through `out`, which holds one.
    unsafe { dev.launch(&HalfParam, LaunchConfig::linear(1, 1), args) }.unwrap();
    assert_eq!(out.to_vec().unwrap(), [-2.75]);
}

/// A module `mem` of the user's with a device function `swap`: called as `mem::swap(..)`
/// with values, it is that function, not `std::mem::swap` (whose message is for calls with
/// references or through `std::`/`core::`).
mod mem {
    use ptx_dsl::prelude::*;

    /// The pair, swapped.
    #[ptx_device]
    pub fn swap(a: u32, b: u32) -> (u32, u32) {
        (b, a)
    }
}

#[ptx_kernel]
fn calls_own_mem_swap(out: &mut [u32]) {
    let (a, b) = mem::swap(out[0], out[1]);
    out[0] = a;
    out[1] = b;
}

#[test]
fn a_device_function_named_mem_swap_is_called() {
    let dev = Device::sim();
    let mut out = dev.upload(&[1u32, 2]).unwrap();
    CallsOwnMemSwap::new().launch(&dev, LaunchConfig::linear(1, 1), &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [2, 1]);
}

/// `is_multiple_of` (std since Rust 1.87, which clippy suggests for `a % b == 0`) on every
/// unsigned width, zero divisors included (`a.is_multiple_of(0)` is `a == 0`, no panic),
/// against the host on edge values and fresh random ones.
#[ptx_kernel]
fn multiples(a: &[u64], b: &[u64], out: &mut [u8]) {
    let i = global_idx().x as usize;
    if i < a.len() {
        let (x, y) = (a[i], b[i]);
        out[5 * i] = x.is_multiple_of(y) as u8;
        out[5 * i + 1] = (x as u32).is_multiple_of(y as u32) as u8;
        out[5 * i + 2] = (x as u16).is_multiple_of(y as u16) as u8;
        out[5 * i + 3] = (x as u8).is_multiple_of(y as u8) as u8;
        out[5 * i + 4] = (x as usize).is_multiple_of(3) as u8 + 2 * (x as u32).is_multiple_of(0) as u8;
    }
}

#[test]
fn is_multiple_of_matches_the_host_in_every_unsigned_width() {
    let mut rng = ptx_tools::rng::Rng::fresh("is_multiple_of");
    let mut a: Vec<u64> = vec![0, 0, 7, 12, 1 << 40, u64::MAX, 256, 65536 * 3];
    let mut b: Vec<u64> = vec![0, 5, 0, 4, 1 << 20, 3, 256, 3];
    for _ in 0..500 {
        let d = rng.next() >> (rng.next() % 64);
        let m = rng.next() % 1000;
        // Half the pairs are multiples by construction.
        a.push(if rng.next().is_multiple_of(2) { d.wrapping_mul(m) } else { rng.next() });
        b.push(d);
    }
    let host = |x: u64, y: u64| {
        [
            x.is_multiple_of(y) as u8,
            (x as u32).is_multiple_of(y as u32) as u8,
            (x as u16).is_multiple_of(y as u16) as u8,
            (x as u8).is_multiple_of(y as u8) as u8,
            (x as usize).is_multiple_of(3) as u8 + 2 * (x as u32).is_multiple_of(0) as u8,
        ]
    };
    let dev = Device::sim();
    let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
    let mut out = dev.zeroed::<u8>(5 * a.len()).unwrap();
    Multiples::new().launch(&dev, LaunchConfig::for_elements(a.len(), 128), &da, &db, &mut out).unwrap();
    let got = out.to_vec().unwrap();
    for i in 0..a.len() {
        assert_eq!(got[5 * i..5 * i + 5], host(a[i], b[i]), "a = {:#x}, b = {:#x}", a[i], b[i]);
    }
}

/// Newer std integer methods (`isqrt`, `ilog10`, `midpoint`, `unbounded_shl`/`shr`,
/// `cast_signed`/`cast_unsigned`) on every width, against the host on edge values and fresh
/// random ones (the inputs that panic on the host are left out here; `isqrt`'s and
/// `ilog10`'s panics are checked below).
#[ptx_kernel]
fn newer_methods(a: &[u64], b: &[u64], out: &mut [u64]) {
    let i = global_idx().x as usize;
    if i < a.len() {
        let (x, y) = (a[i], b[i]);
        let o = 12 * i;
        out[o] = x.isqrt() + (x as u32).isqrt() as u64 * 3 + (x as u8).isqrt() as u64 * 7;
        out[o + 1] = (x as i64 & i64::MAX).isqrt() as u64 + (x as u16).isqrt() as u64;
        out[o + 2] =
            (x | 1).ilog10() as u64 + (x as u32 | 1).ilog10() as u64 * 100 + (x as u8 | 1).ilog10() as u64;
        out[o + 3] = x.midpoint(y);
        out[o + 4] = (x as i64).midpoint(y as i64) as u64;
        out[o + 5] = (x as i8).midpoint(y as i8) as u64 ^ ((x as u16).midpoint(y as u16) as u64) << 8;
        out[o + 6] = (x as i32).midpoint(y as i32) as u64;
        out[o + 7] = x.unbounded_shl(y as u32 % 80) ^ (x as u8).unbounded_shl(y as u32 % 12) as u64;
        out[o + 8] = (x as i64).unbounded_shr(y as u32 % 80) as u64;
        out[o + 9] =
            (x as i16).unbounded_shr(y as u32 % 20) as u64 ^ (x as u32).unbounded_shr(y as u32 % 40) as u64;
        out[o + 10] = (x as u32).cast_signed() as i64 as u64 ^ ((x as i8).cast_unsigned() as u64) << 40;
        out[o + 11] = ((x as i16).cast_unsigned() as u64).wrapping_add(x.cast_signed() as u64);
    }
}

fn newer_methods_host(x: u64, y: u64) -> [u64; 12] {
    [
        x.isqrt() + (x as u32).isqrt() as u64 * 3 + (x as u8).isqrt() as u64 * 7,
        (x as i64 & i64::MAX).isqrt() as u64 + (x as u16).isqrt() as u64,
        (x | 1).ilog10() as u64 + (x as u32 | 1).ilog10() as u64 * 100 + (x as u8 | 1).ilog10() as u64,
        x.midpoint(y),
        (x as i64).midpoint(y as i64) as u64,
        (x as i8).midpoint(y as i8) as u64 ^ ((x as u16).midpoint(y as u16) as u64) << 8,
        (x as i32).midpoint(y as i32) as u64,
        x.unbounded_shl(y as u32 % 80) ^ (x as u8).unbounded_shl(y as u32 % 12) as u64,
        (x as i64).unbounded_shr(y as u32 % 80) as u64,
        (x as i16).unbounded_shr(y as u32 % 20) as u64 ^ (x as u32).unbounded_shr(y as u32 % 40) as u64,
        (x as u32).cast_signed() as i64 as u64 ^ ((x as i8).cast_unsigned() as u64) << 40,
        ((x as i16).cast_unsigned() as u64).wrapping_add(x.cast_signed() as u64),
    ]
}

#[test]
fn newer_integer_methods_match_the_host() {
    let mut rng = ptx_tools::rng::Rng::fresh("newer_integer_methods");
    let mut a: Vec<u64> =
        vec![0, 1, 2, 3, 4, 15, 16, 255, 1 << 32, (1 << 32) - 1, u64::MAX, u64::MAX - 1, 1 << 63];
    // Squares and their neighbours, where a square root's rounding would show.
    for r in [3u64, 4_294_967_295, 3_037_000_499, 1 << 31, 65_535, 65_536, 999_999_999] {
        a.extend([r * r, r * r - 1, r.wrapping_mul(r).wrapping_add(1)]);
    }
    a.extend([9, 10, 99, 100, 999, 1000, 10_u64.pow(19), 10_u64.pow(19) - 1, 10_u64.pow(9) - 1]);
    let mut b: Vec<u64> = (0..a.len() as u64).map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
    for _ in 0..400 {
        a.push(rng.next() >> (rng.next() % 64));
        b.push(rng.next() >> (rng.next() % 64));
    }
    let dev = Device::sim();
    let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
    let mut out = dev.zeroed::<u64>(12 * a.len()).unwrap();
    NewerMethods::new().launch(&dev, LaunchConfig::for_elements(a.len(), 128), &da, &db, &mut out).unwrap();
    let got = out.to_vec().unwrap();
    for i in 0..a.len() {
        assert_eq!(
            got[12 * i..12 * i + 12],
            newer_methods_host(a[i], b[i]),
            "a = {:#x}, b = {:#x}",
            a[i],
            b[i]
        );
    }
}

#[ptx_kernel]
fn root_and_log(x: &[i32], out: &mut [u32]) {
    let i = global_idx().x as usize;
    if i < x.len() {
        out[2 * i] = x[i].isqrt() as u32;
        out[2 * i + 1] = x[i].ilog10();
    }
}

/// A negative `isqrt` and a non-positive `ilog10` are the host's panics, at the call.
#[test]
fn isqrt_and_ilog10_panic_as_the_host_does() {
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(2).unwrap();
    RootAndLog::new()
        .launch(&dev, LaunchConfig::linear(1, 1), &dev.upload(&[1_000_000i32]).unwrap(), &mut out)
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), [1000, 6]);
    for (x, message) in [
        (-4i32, "argument of integer square root cannot be negative"),
        (0, "argument of integer logarithm must be positive"),
    ] {
        let host = std::panic::catch_unwind(|| (x.isqrt(), x.ilog10())).unwrap_err();
        let host = host
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| host.downcast_ref::<String>().cloned());
        assert!(host.is_some_and(|h| h.contains(message)), "the host's message differs");
        let err = RootAndLog::new()
            .launch(&dev, LaunchConfig::linear(1, 1), &dev.upload(&[x]).unwrap(), &mut out)
            .unwrap_err();
        assert!(matches!(err, Error::KernelPanic { .. }) && err.to_string().contains(message), "{err}");
    }
}

/// The newer methods on constants and comptime values: folded or not, the values the host
/// computes.
#[ptx_kernel]
fn newer_methods_of_constants(out: &mut [u32], #[comptime] n: u32) {
    out[0] = 16u32.isqrt() + 1000u64.ilog10() + 7u8.midpoint(9) as u32 + n.isqrt();
    out[1] = (-7i32).midpoint(2) as u32 ^ n.ilog10() << 8 ^ 3u32.unbounded_shl(n) << 16;
    out[2] = (n.is_multiple_of(7) as u32 + (-1i8).cast_unsigned() as u32)
        .wrapping_add(n.cast_signed().unbounded_shr(40) as u32);
}

#[test]
fn newer_methods_of_constants_match_the_host() {
    let dev = Device::sim();
    for n in [1u32, 7, 35, 1000, 999_999, u32::MAX] {
        let mut out = dev.zeroed::<u32>(3).unwrap();
        NewerMethodsOfConstants::new(n).launch(&dev, LaunchConfig::linear(1, 1), &mut out).unwrap();
        let want = [
            16u32.isqrt() + 1000u64.ilog10() + 7u8.midpoint(9) as u32 + n.isqrt(),
            (-7i32).midpoint(2) as u32 ^ n.ilog10() << 8 ^ 3u32.unbounded_shl(n) << 16,
            (n.is_multiple_of(7) as u32 + (-1i8).cast_unsigned() as u32)
                .wrapping_add(n.cast_signed().unbounded_shr(40) as u32),
        ];
        assert_eq!(out.to_vec().unwrap(), want, "n = {n}");
        let ptx = NewerMethodsOfConstants::new(n).ptx_for(ptx_dsl::core::Target::SM_80);
        if let Some(ptxas) = ptx_tools::ptxas::ptxas_or_skip("newer_methods_of_constants") {
            ptx_tools::ptxas::assemble(&ptxas, &ptx, "sm_80").unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

/// `midpoint` of floats as std computes it (f32 through f64; f64 halving where the sum could
/// overflow), on extremes, subnormals, infinities, NaN and random bit patterns.
#[ptx_kernel]
fn float_midpoints(a: &[f64], b: &[f64], out: &mut [f64], out32: &mut [f32]) {
    let i = global_idx().x as usize;
    if i < a.len() {
        out[i] = a[i].midpoint(b[i]);
        out32[i] = (a[i] as f32).midpoint(b[i] as f32);
    }
}

#[test]
fn float_midpoint_matches_the_host() {
    let mut rng = ptx_tools::rng::Rng::fresh("float_midpoint");
    let edges = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::MAX,
        -f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        1e308,
        -1e308,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        3.4e38,
        -3.4e38,
        1e-45,
        2.2250738585072014e-308,
    ];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &edges {
        for &y in &edges {
            a.push(x);
            b.push(y);
        }
    }
    for _ in 0..500 {
        a.push(f64::from_bits(rng.next()));
        b.push(f64::from_bits(rng.next()));
    }
    let dev = Device::sim();
    let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
    let (mut out, mut out32) = (dev.zeroed::<f64>(a.len()).unwrap(), dev.zeroed::<f32>(a.len()).unwrap());
    FloatMidpoints::new()
        .launch(&dev, LaunchConfig::for_elements(a.len(), 128), &da, &db, &mut out, &mut out32)
        .unwrap();
    let (got, got32) = (out.to_vec().unwrap(), out32.to_vec().unwrap());
    // NaN results compare as NaN (their payload is unspecified in Rust).
    for i in 0..a.len() {
        let (w, w32) = (a[i].midpoint(b[i]), (a[i] as f32).midpoint(b[i] as f32));
        assert!(
            got[i].to_bits() == w.to_bits() || (got[i].is_nan() && w.is_nan()),
            "{} {}: {} vs {w}",
            a[i],
            b[i],
            got[i]
        );
        assert!(
            got32[i].to_bits() == w32.to_bits() || (got32[i].is_nan() && w32.is_nan()),
            "{} {}: {} vs {w32}",
            a[i] as f32,
            b[i] as f32,
            got32[i]
        );
    }
}

/// Half-precision constants of the surrounding code (a `const` of type `f16`, the `half`
/// crate's own by their full paths) were an error from inside the generated code (no
/// `Value` from an `f16`), and `f16::MAX` refused; they are constants of their bits, stored
/// and widened as the host does.
const THREE_HALVES: ptx_dsl::half::f16 = ptx_dsl::half::f16::from_f32_const(1.5);
const BF_THIRD: ptx_dsl::half::bf16 = ptx_dsl::half::bf16::from_f32_const(1.0 / 3.0);

#[ptx_kernel]
fn half_constants_of_the_code_around(h: &mut [f16], b: &mut [bf16], out: &mut [f32]) {
    h[0] = THREE_HALVES;
    h[1] = ptx_dsl::half::f16::MAX;
    h[2] = f16::MIN_POSITIVE_SUBNORMAL;
    b[2] = bf16::MAX;
    b[0] = BF_THIRD;
    b[1] = ptx_dsl::half::bf16::NEG_INFINITY;
    out[0] = h[0].to_f32() + b[0].to_f32();
    out[1] = h[1].to_f32();
}

#[test]
fn half_constants_of_the_code_around_are_their_values() {
    use ptx_dsl::half::{bf16, f16};
    let dev = Device::sim();
    let (mut h, mut b, mut out) =
        (dev.zeroed::<f16>(3).unwrap(), dev.zeroed::<bf16>(3).unwrap(), dev.zeroed::<f32>(2).unwrap());
    let kernel = HalfConstantsOfTheCodeAround::new();
    kernel.launch(&dev, LaunchConfig::linear(1, 1), &mut h, &mut b, &mut out).unwrap();
    assert_eq!(h.to_vec().unwrap(), [THREE_HALVES, f16::MAX, f16::MIN_POSITIVE_SUBNORMAL]);
    assert_eq!(b.to_vec().unwrap(), [BF_THIRD, bf16::NEG_INFINITY, bf16::MAX]);
    assert_eq!(out.to_vec().unwrap(), [THREE_HALVES.to_f32() + BF_THIRD.to_f32(), f16::MAX.to_f32()]);
    if let Some(ptxas) = ptx_tools::ptxas::ptxas_or_skip("half_constants_of_the_code_around") {
        let ptx = kernel.ptx_for(ptx_dsl::core::Target::SM_80);
        ptx_tools::ptxas::assemble(&ptxas, &ptx, "sm_80").unwrap_or_else(|e| panic!("{e}"));
    }
}

/// `to_bits()` of a half and `f16::from_bits(u)` / `bf16::from_bits(u)`, as the `half` crate
/// has them (they were refused), on every 16-bit pattern.
#[ptx_kernel]
fn half_bits(h: &[f16], b: &[bf16], bits: &mut [u16], back: &mut [f16], back_b: &mut [bf16]) {
    let i = global_idx().x as usize;
    if i < h.len() {
        bits[2 * i] = h[i].to_bits();
        bits[2 * i + 1] = b[i].to_bits();
        back[i] = f16::from_bits(i as u16);
        back_b[i] = bf16::from_bits((i as u16).rotate_left(3));
    }
}

#[test]
fn half_bits_round_trip_every_pattern() {
    use ptx_dsl::half::{bf16, f16};
    let n = 1usize << 16;
    let h: Vec<f16> = (0..n).map(|k| f16::from_bits(k as u16)).collect();
    let b: Vec<bf16> = (0..n).map(|k| bf16::from_bits((k as u16).wrapping_mul(40503))).collect();
    let dev = Device::sim();
    let (dh, db) = (dev.upload(&h).unwrap(), dev.upload(&b).unwrap());
    let mut bits = dev.zeroed::<u16>(2 * n).unwrap();
    let (mut back, mut back_b) = (dev.zeroed::<f16>(n).unwrap(), dev.zeroed::<bf16>(n).unwrap());
    let launch = LaunchConfig::for_elements(n, 256);
    HalfBits::new().launch(&dev, launch, &dh, &db, &mut bits, &mut back, &mut back_b).unwrap();
    let (bits, back, back_b) = (bits.to_vec().unwrap(), back.to_vec().unwrap(), back_b.to_vec().unwrap());
    for k in 0..n {
        assert_eq!([bits[2 * k], bits[2 * k + 1]], [h[k].to_bits(), b[k].to_bits()], "{k}");
        assert_eq!(back[k].to_bits(), k as u16);
        assert_eq!(back_b[k].to_bits(), (k as u16).rotate_left(3));
    }
    if let Some(ptxas) = ptx_tools::ptxas::ptxas_or_skip("half_bits") {
        let ptx = HalfBits::new().ptx_for(ptx_dsl::core::Target::SM_80);
        ptx_tools::ptxas::assemble(&ptxas, &ptx, "sm_80").unwrap_or_else(|e| panic!("{e}"));
    }
}
