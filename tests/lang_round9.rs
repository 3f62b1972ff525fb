//! A ninth round: random kernels generated with their bodies also run as plain Rust, and
//! mutants of the workspace's own kernels. What they found refused or miscompiled,
//! minimized, each body run both as a `#[ptx_kernel]` on the simulator and as plain Rust on
//! the host, compared bit for bit.
#![allow(clippy::precedence, unused_braces, unused_parens, redundant_semicolons)]

use ptx_dsl::prelude::*;

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

/// f32 and f64 bit patterns: NaNs of both signs with payloads, infinities, zeros,
/// subnormals, and random bits.
fn float_bits(test: &str) -> Vec<u64> {
    let mut xs =
        vec![0x7fc0_0000, 0xffc0_0000, 0x7f80_0001, 0xff80_0001, 0x7fff_ffff, 0xffff_ffff, 0xffa0_0065];
    xs.extend([0x8000_0000, 0, 1, 0x8000_0001, 0x7f80_0000, 0xff80_0000, 0x3f80_0000, 0xbf80_0000]);
    xs.extend([0x7ff8_0000_0000_0000, 0xfff8_0000_0000_0000, 0x7ff0_0000_0000_0001, 0xffff_ffff_ffff_ff65]);
    xs.extend([0x8000_0000_0000_0000, 0x8000_0000_0000_0001, 0xfff0_0000_0000_0000, 0xbff0_0000_0000_0000]);
    xs.extend(u64_inputs(test, 200));
    xs
}

// `abs` of a NaN kept the sign and payload of nothing: the kernel used PTX's `abs`, whose
// NaN result is unspecified (canonical on the simulator), where Rust's `abs` only clears
// the sign bit (found as `f64::from_bits(x).abs().to_bits()` of `0xffff_ffff_ffff_ff65`
// giving `0x7fff_ffff_ffff_ffff`).
twin!(abs_keeps_nan_payload, abs_keeps_nan_payload_host, |i, a: &[u64], out: &mut [u64]| {
    let (x, y) = (f64::from_bits(a[i]), f32::from_bits(a[i] as u32));
    let h = f32::from_bits((a[i] >> 32) as u32);
    out[4 * i] = x.abs().to_bits();
    out[4 * i + 1] = y.abs().to_bits() as u64;
    out[4 * i + 2] = (-h).abs().to_bits() as u64 | ((h.abs().copysign(y).to_bits() as u64) << 32);
    out[4 * i + 3] = (if x.is_nan() { x.abs() } else { -x }).abs().to_bits();
});

#[test]
fn abs_keeps_nan_payloads() {
    let xs = float_bits("abs_keeps_nan_payload");
    check_twin(
        "abs_keeps_nan_payload",
        &xs,
        4,
        &|d, c, a, o| AbsKeepsNanPayload::new().launch(d, c, a, o),
        abs_keeps_nan_payload_host,
    );
}

// A tuple of constants bound with one `mut` name left its other names comptime in the
// checker but runtime values in the generated code: `let (v3, mut v4) = (2u64, 3u64);`
// then `v3 as i8` failed to compile inside the macro's output ("non-primitive cast:
// `Value` as `i8`").
twin!(mixed_mut_constant_tuple, mixed_mut_constant_tuple_host, |i, a: &[u64], out: &mut [u64]| {
    let (k, mut m) = (2u64, 3u64);
    m = m.wrapping_add(a[i]);
    let (p, (mut q, r), _) = (-1i8, (k as i16, -3i32), 7u8);
    q = q.wrapping_sub(a[i] as i16);
    let (mut w, (x, mut y)) = (1.5f32, (0.25f64, true));
    w *= a[i] as f32;
    y &= a[i] % 2 == 0;
    out[4 * i] = (k as i8) as u64 ^ m;
    out[4 * i + 1] = (p as u64).wrapping_add(q as u64) ^ (r as u64);
    out[4 * i + 2] = w.to_bits() as u64 | ((x * 2.0).to_bits() << 32);
    out[4 * i + 3] = y as u64 + k.pow(3) + (p.abs() as u64);
});

#[test]
fn mixed_mut_constant_tuples() {
    let xs = u64_inputs("mixed_mut_constant_tuple", 100);
    check_twin(
        "mixed_mut_constant_tuple",
        &xs,
        4,
        &|d, c, a, o| MixedMutConstantTuple::new().launch(d, c, a, o),
        mixed_mut_constant_tuple_host,
    );
}

/// A constant of the surrounding code that the kernel's own `const`s shadow: read nowhere,
/// as rustc resolves the body.
#[allow(dead_code)]
const SCALE: u32 = 3;

// A body's `const` shadows `SCALE` in its whole block, before its declaration too, and a
// nested block's `const` shadows it again (the generated code once bound it with a `let`,
// which rustc took for a pattern matching the outer constant).
twin!(body_consts_shadow, body_consts_shadow_host, |i, a: &[u32], out: &mut [u32]| {
    out[4 * i] = a[i].wrapping_mul(SCALE);
    const SCALE: u32 = 5;
    {
        out[4 * i + 1] = a[i].wrapping_add(SCALE);
        const SCALE: u32 = 7;
    }
    out[4 * i + 2] = SCALE;
    const TWICE: u32 = SCALE * 2;
    out[4 * i + 3] = TWICE;
});

#[test]
fn body_consts_shadow_the_surrounding_code_in_their_whole_block() {
    let xs = u32_inputs("body_consts_shadow", 100);
    let launch = |d: &_, c, a: &_, o: &mut _| BodyConstsShadow::new().launch(d, c, a, o);
    check_twin("body_consts_shadow", &xs, 4, &launch, body_consts_shadow_host);
}

// Empty statements (`;` on its own), which Rust accepts with a lint's warning, were
// refused as "not supported", with no span.
twin!(empty_statements, empty_statements_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    out[i] = x ^ 1;
});

#[test]
fn empty_statements_are_nothing() {
    let xs = u32_inputs("empty_statements", 100);
    let launch = |d: &_, c, a: &_, o: &mut _| EmptyStatements::new().launch(d, c, a, o);
    check_twin("empty_statements", &xs, 1, &launch, empty_statements_host);
}

// A body's `const` may read a `const` declared after it in its block, as Rust evaluates a
// block's items whatever their order (it failed with "cannot find value `B`").
twin!(consts_read_later_consts, consts_read_later_consts_host, |i, a: &[u32], out: &mut [u32]| {
    const A: u32 = B * 2 + C;
    out[3 * i] = a[i].wrapping_mul(D);
    const B: u32 = C + 4;
    const C: u32 = 1;
    const D: u32 = A - B;
    {
        const E: u32 = F << 1;
        const F: u32 = A + 1;
        out[3 * i + 1] = a[i] ^ E;
    }
    out[3 * i + 2] = A;
});

#[test]
fn consts_read_consts_declared_after_them() {
    let xs = u32_inputs("consts_read_later_consts", 100);
    let launch = |d: &_, c, a: &_, o: &mut _| ConstsReadLaterConsts::new().launch(d, c, a, o);
    check_twin("consts_read_later_consts", &xs, 3, &launch, consts_read_later_consts_host);
}
