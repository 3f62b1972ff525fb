//! A third round of unusual but legal kernels, each body written once and run both as a
//! `#[ptx_kernel]` on the simulator and as plain Rust on the host, compared bit for bit on
//! random inputs plus edge values: block and `if` expressions inside arithmetic, loops
//! leaving through `break`/`continue` in value positions, literals typed by their
//! context, 64-bit arithmetic at the limits, shift amounts past the width, float methods at
//! their special values, loads guarded by short-circuit operators, many parameters, long
//! unrolled loops and comptime parameters of every type.
//!
//! The host runs these bodies in a debug build, where integer overflow panics, so the
//! bodies use the `wrapping_*` methods where a value can overflow; the kernels whose
//! meaning is release-mode wrapping of plain operators have their own host references.

#![allow(
    clippy::precedence,
    clippy::needless_range_loop,
    clippy::unnecessary_cast,
    clippy::nonminimal_bool,
    clippy::bool_comparison,
    unused_braces,
    unused_labels
)]

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, DeviceBuffer, Error, LaunchConfig};
use std::fmt::Debug;

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

// ---------------------------------------------------------------------------------------
// Expressions: blocks and `if`s inside arithmetic, deep nesting, literals typed by context

twin!(block_exprs, block_exprs_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let y = {
        let z = x.wrapping_mul(3);
        z ^ (z >> 5)
    };
    let w = y.wrapping_add(if x & 1 == 1 {
        7
    } else {
        let q = x >> 3;
        q | 1
    });
    let v = (if x > 100 { x / 3 } else { 100 }) / {
        if y < 50 {
            1
        } else {
            2
        }
    } + {
        {
            {
                x & 0xff
            }
        }
    };
    let deep =
        ((((x >> 1) ^ (x << 3)) & (((x >> 7) | 1).wrapping_mul((x >> 11) & 0xf))) >> 2) % ((x & 0xffff) | 1);
    let level = if x > 1000 {
        if x > 1_000_000 {
            if x > 1_000_000_000 {
                4
            } else {
                3
            }
        } else {
            2
        }
    } else if x == 0 {
        0
    } else {
        1
    };
    // A block that shadows, assigns an outer variable and is itself an operand.
    let mut m = x;
    let s = m.wrapping_add({
        let m2 = m;
        m = m2 >> 1;
        let x = m2 & 0xf;
        x * 2
    });
    out[6 * i] = y;
    out[6 * i + 1] = w;
    out[6 * i + 2] = v;
    out[6 * i + 3] = deep;
    out[6 * i + 4] = level + 10 * (if { x % 3 == 0 } { 1 } else { 0 });
    out[6 * i + 5] = s ^ m;
});

#[test]
fn blocks_and_ifs_as_operands_of_arithmetic() {
    let xs = u32_inputs("block_exprs", 300);
    check_twin("block_exprs", &xs, 6, &|d, c, a, o| BlockExprs::new().launch(d, c, a, o), block_exprs_host);
}

twin!(typed_literals, typed_literals_host, |i, a: &[f64], out: &mut [f64]| {
    let x = a[i];
    // An unsuffixed float literal takes the type of what it meets later.
    let h = 0.1;
    let y = h * x;
    // A literal cast to `f32` is an `f32` literal: one rounding, not two via `f64`.
    let c = 1.0000000596046448 as f32;
    let d = -1.0000000596046448 as f32;
    // An integer literal cast to an integer type has that type.
    let big = 4_000_000_000 as i64;
    let neg = -5_000_000_000 as i64;
    let small = 255 as u8;
    // An integer literal cast to a float is an `i32`.
    let f = 16777217 as f32;
    let mut s = 0;
    s += (x as u64) >> 60;
    let t = 3_000_000_000;
    let u = (x.abs() as u64 >> 2) < t;
    out[8 * i] = y;
    out[8 * i + 1] = c as f64;
    out[8 * i + 2] = d as f64 * x;
    out[8 * i + 3] = (big + neg) as f64 + x;
    out[8 * i + 4] = small as f64 - x;
    out[8 * i + 5] = f as f64;
    out[8 * i + 6] = s as f64;
    out[8 * i + 7] = u as u8 as f64;
});

#[test]
fn literals_take_the_type_their_context_gives_them() {
    let xs = f64_inputs("typed_literals", 200);
    check_twin(
        "typed_literals",
        &xs,
        8,
        &|d, c, a, o| TypedLiterals::new().launch(d, c, a, o),
        typed_literals_host,
    );
}

// ---------------------------------------------------------------------------------------
// Loops

twin!(loop_values, loop_values_host, |i, a: &[i32], out: &mut [i32]| {
    let x = a[i];
    let mut s = 0i32;
    // A mutable loop variable, changed in the body, does not change the iteration.
    for mut j in 0..(x & 7) {
        j *= 3;
        s = s.wrapping_add(j);
    }
    // `break` and `continue` as the value of an `if` arm.
    let mut k = 0;
    let mut acc = 0i32;
    while k < 40 {
        k += 1;
        let v = if k % 5 == 0 {
            continue;
        } else if k > (x & 31) {
            break;
        } else {
            k * 2
        };
        acc += v;
    }
    // A do-while: the body is the condition block.
    let mut n = x & 0xff;
    let mut steps = 0;
    while {
        n = n / 2;
        steps += 1;
        n > 0
    } {}
    // A stepped range with a run-time step and start above the end.
    let mut t = 0;
    for j in ((x & 15)..10).step_by(1 + (x as u32 >> 28) as usize) {
        t = t * 7 + j;
    }
    // A loop variable shadowed in its body.
    let mut u = 0;
    'a: for j in 0..4 {
        let j = j * 10;
        for q in 0..4 {
            if q == (x & 3) {
                continue 'a;
            }
            u += j + q;
        }
        u += 1000;
    }
    out[5 * i] = s;
    out[5 * i + 1] = acc + k * 1000;
    out[5 * i + 2] = steps;
    out[5 * i + 3] = t;
    out[5 * i + 4] = u;
});

#[test]
fn loop_variables_and_jumps_in_value_positions() {
    let xs = i32_inputs("loop_values", 200);
    check_twin("loop_values", &xs, 5, &|d, c, a, o| LoopValues::new().launch(d, c, a, o), loop_values_host);
}

twin!(guarded_loads, guarded_loads_host, |i, a: &[u32], out: &mut [u32]| {
    // Loads that would be out of range, guarded by short circuits.
    let n = a.len();
    let up = i + 1 < n && a[i + 1] > a[i];
    let down = i == 0 || a[i - 1] > a[i];
    let far = i >= 3 && i + 3 < n && (a[i - 3] ^ a[i + 3]) & 1 == 1;
    let pick = if i + 10 < n {
        a[i + 10]
    } else if i >= 10 {
        a[i - 10]
    } else {
        7
    };
    let mut run = 0u32;
    let mut j = i;
    while j < n && a[j] & 3 != 0 && run < 5 {
        run += 1;
        j += 1;
    }
    out[5 * i] = up as u32 | (down as u32) << 1 | (far as u32) << 2;
    out[5 * i + 1] = pick;
    out[5 * i + 2] = run;
    out[5 * i + 3] = if !(i + 2 >= n || a[i + 2] == 0) { a[i + 2] / (a[i] | 1) } else { 9 };
    out[5 * i + 4] = (n - i) as u32;
});

#[test]
fn short_circuits_guard_loads_past_either_end() {
    let xs = u32_inputs("guarded_loads", 150);
    check_twin(
        "guarded_loads",
        &xs,
        5,
        &|d, c, a, o| GuardedLoads::new().launch(d, c, a, o),
        guarded_loads_host,
    );
}

// ---------------------------------------------------------------------------------------
// Integers at their limits

twin!(wide_limits, wide_limits_host, |i, a: &[u64], out: &mut [u64]| {
    let x = a[i];
    let s = x as i64;
    let o = 10 * i;
    out[o] = s.wrapping_neg() as u64 ^ (s.wrapping_sub(i64::MAX) as u64);
    out[o + 1] = s.wrapping_mul(i64::MAX).wrapping_add(i64::MIN) as u64;
    out[o + 2] = (s / if s == i64::MIN { 1 } else { -1 }) as u64;
    out[o + 3] = (s % 1_000_000_007 - s % -3) as u64;
    out[o + 4] = s.min(-5).max(i64::MIN + 1).clamp(-1 << 62, 1 << 40) as u64;
    out[o + 5] = x.min(u64::MAX - 1).max(3).clamp(10, u64::MAX / 2);
    out[o + 6] = x.wrapping_mul(x).wrapping_sub(u64::MAX) ^ (s.wrapping_mul(s).wrapping_mul(s) as u64);
    out[o + 7] = (s.count_ones() + s.leading_zeros() * 100 + s.trailing_zeros() * 10_000) as u64;
    out[o + 8] = (x / (x >> 32 | 1)) ^ (x % (x >> 40 | 7));
    out[o + 9] = ((s >> 63) as u64) ^ (x >> 63) ^ ((s as i32 as i64) as u64);
});

#[test]
fn sixty_four_bit_arithmetic_near_min_and_max() {
    let mut xs = u64_inputs("wide_limits", 300);
    xs.extend([i64::MIN as u64 + 1, (i64::MIN + 5) as u64, (-5i64) as u64, (-6i64) as u64, 1 << 40, 1 << 62]);
    check_twin("wide_limits", &xs, 10, &|d, c, a, o| WideLimits::new().launch(d, c, a, o), wide_limits_host);
}

/// Plain operators whose results overflow (release-mode wrapping) and shift amounts at or
/// past the width, of every sign and type, against `wrapping_*` host references.
#[ptx_kernel]
fn plain_limits(a: &[u64], out: &mut [u64]) {
    let i = global_idx().x as usize;
    if i < a.len() {
        let x = a[i];
        let s = x as i64;
        let w = x as i32;
        let n = (x >> 56) as i32 - 64; // -64..=191
        let o = 12 * i;
        out[o] = s.abs() as u64 ^ (w.abs() as u64) << 1;
        out[o + 1] = (x as i8).abs() as u64 ^ ((x as i16).abs() as u64) << 8;
        out[o + 2] = s.pow((x >> 58) as u32) as u64 ^ w.pow(n as u32) as u64;
        out[o + 3] = (s + i64::MAX) as u64 ^ (x * 0x9e37_79b9_7f4a_7c15);
        out[o + 4] = (s - i64::MIN) as u64 ^ ((w - i32::MAX) as u64) << 32;
        out[o + 5] = x << n ^ x >> (n as i64);
        out[o + 6] = (s >> n) as u64 ^ (s << (n as u8)) as u64;
        out[o + 7] = (w << n) as u64 ^ ((w >> (n as i16)) as u64) << 32;
        out[o + 8] = ((x as u16) << n) as u64 ^ ((x as i8 >> n) as u64) << 16;
        let mut c = x;
        c <<= n;
        c >>= (x & 0xff) as u8;
        let mut d = w;
        d <<= x;
        d >>= -n;
        out[o + 9] = c ^ (d as u64) << 32;
        out[o + 10] = (-s) as u64 ^ (-w) as u64;
        out[o + 11] = (x + x) ^ (s * s) as u64;
    }
}

fn plain_limits_host(x: u64) -> [u64; 12] {
    let s = x as i64;
    let w = x as i32;
    let n = (x >> 56) as i32 - 64;
    let mut c = x.wrapping_shl(n as u32);
    c = c.wrapping_shr((x & 0xff) as u32);
    let mut d = w.wrapping_shl(x as u32);
    d = d.wrapping_shr(n.wrapping_neg() as u32);
    [
        s.wrapping_abs() as u64 ^ (w.wrapping_abs() as u64) << 1,
        (x as i8).wrapping_abs() as u64 ^ ((x as i16).wrapping_abs() as u64) << 8,
        s.wrapping_pow((x >> 58) as u32) as u64 ^ w.wrapping_pow(n as u32) as u64,
        s.wrapping_add(i64::MAX) as u64 ^ x.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        s.wrapping_sub(i64::MIN) as u64 ^ (w.wrapping_sub(i32::MAX) as u64) << 32,
        x.wrapping_shl(n as u32) ^ x.wrapping_shr(n as u32),
        s.wrapping_shr(n as u32) as u64 ^ s.wrapping_shl(n as u8 as u32) as u64,
        w.wrapping_shl(n as u32) as u64 ^ (w.wrapping_shr(n as i16 as u32) as u64) << 32,
        (x as u16).wrapping_shl(n as u32) as u64 ^ ((x as i8).wrapping_shr(n as u32) as u64) << 16,
        c ^ (d as u64) << 32,
        s.wrapping_neg() as u64 ^ w.wrapping_neg() as u64,
        x.wrapping_add(x) ^ s.wrapping_mul(s) as u64,
    ]
}

#[test]
fn overflowing_operators_wrap_and_shift_amounts_are_masked_in_every_type() -> ptx_dsl::runtime::Result<()> {
    let mut xs = u64_inputs("plain_limits", 400);
    xs.extend([
        i64::MIN as u64,
        i32::MIN as u32 as u64,
        0x80,
        0x8000,
        0xff80_0000_0000_0000,
        0x3f00_0000_8000_0000,
    ]);
    let dev = Device::sim();
    let mut out: DeviceBuffer<u64> = dev.zeroed(12 * xs.len())?;
    PlainLimits::new().launch(&dev, LaunchConfig::for_elements(xs.len(), 64), &dev.upload(&xs)?, &mut out)?;
    for (x, got) in xs.iter().zip(out.to_vec()?.chunks(12)) {
        assert_eq!(got, plain_limits_host(*x), "x = {x:#x}");
    }
    Ok(())
}

/// `MIN / -1` and `MIN % -1` panic in Rust, release builds included: a checked kernel
/// reports both as a kernel panic naming the line, in every signed width.
#[ptx_kernel]
fn min_by_minus_one(a: &[i64], d: &[i64], out: &mut [i64], which: u32) {
    let (x, q) = (a[0], d[0]);
    if which == 0 {
        out[0] = x / q;
    } else if which == 1 {
        out[0] = x % q;
    } else if which == 2 {
        out[0] = ((x as i32) % (q as i32)) as i64;
    } else if which == 3 {
        out[0] = ((x as i16) / (q as i16)) as i64;
    } else {
        let mut r = x as i8;
        r %= q as i8;
        out[0] = r as i64;
    }
}

#[test]
fn min_divided_or_reduced_by_minus_one_is_a_kernel_panic_in_every_width() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let src = include_str!("lang_round3.rs");
    let start = src.find("fn min_by_minus_one(").unwrap();
    for (which, x, needle) in [
        (0u32, i64::MIN, "x / q"),
        (1, i64::MIN, "x % q"),
        (2, i32::MIN as i64, "(x as i32) % (q as i32)"),
        (3, i16::MIN as i64, "(x as i16) / (q as i16)"),
        (4, i8::MIN as i64, "r %= q as i8"),
    ] {
        let line =
            1 + src[..start].lines().count() + src[start..].lines().position(|l| l.contains(needle)).unwrap();
        let mut out: DeviceBuffer<i64> = dev.zeroed(1)?;
        let r = MinByMinusOne::new().launch(
            &dev,
            LaunchConfig::linear(1, 1),
            &dev.upload(&[x])?,
            &dev.upload(&[-1])?,
            &mut out,
            which,
        );
        match r {
            Err(Error::KernelPanic { kernel, message, location }) => {
                assert_eq!(kernel, "min_by_minus_one");
                assert!(message.contains("overflow"), "{which}: {message}");
                assert!(
                    location.contains(&format!("lang_round3.rs:{line}:")),
                    "{which}: {location} is not line {line}"
                );
            }
            other => panic!("{which}: expected a kernel panic, got {other:?}"),
        }
        // One more than MIN divides fine.
        MinByMinusOne::new().launch(
            &dev,
            LaunchConfig::linear(1, 1),
            &dev.upload(&[x + 1])?,
            &dev.upload(&[-1])?,
            &mut out,
            which,
        )?;
        assert_eq!(out.to_vec()?[0], if which == 1 || which == 2 || which == 4 { 0 } else { -(x + 1) });
    }
    Ok(())
}

/// A label that shadows an outer one of the same name: `break 'a` leaves the inner loop, as
/// in Rust (which warns about the shadowing, so the host reference names them apart).
#[ptx_kernel]
fn shadowed_label(out: &mut [u32], n: u32) {
    let mut u = 0;
    'a: for j in 0..4u32 {
        'a: for q in 0..4u32 {
            if q == n {
                break 'a;
            }
            u += 10 * j + q;
        }
        u += 1000;
    }
    out[0] = u;
}

#[test]
fn a_shadowing_label_names_the_inner_loop() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    for n in 0..6 {
        let mut want = 0;
        for j in 0..4u32 {
            'inner: for q in 0..4u32 {
                if q == n {
                    break 'inner;
                }
                want += 10 * j + q;
            }
            want += 1000;
        }
        let mut out: DeviceBuffer<u32> = dev.zeroed(1)?;
        ShadowedLabel::new().launch(&dev, LaunchConfig::linear(1, 1), &mut out, n)?;
        assert_eq!(out.to_vec()?, [want], "n = {n}");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Floats, and integer `min`/`max`/`clamp` of every width

twin!(float_edges, float_edges_host, |i, a: &[f32], out: &mut [f32]| {
    let x = a[i];
    let y = a[(i * 7 + 3) % a.len()];
    let o = 10 * i;
    // A run-time `powi` exponent of any size, MIN and MAX included.
    let n = (y as i32).wrapping_mul(if i % 3 == 0 { 1 } else { 65599 });
    out[o] = x.powi(n);
    out[o + 1] = x.powi(i32::MIN) + x.powi(i32::MAX) * y.powi(-1);
    out[o + 2] = x.mul_add(f32::INFINITY, y).max(f32::MIN_POSITIVE * x);
    out[o + 3] = x.clamp(f32::MIN, 0.5) + f32::EPSILON * y;
    out[o + 4] = (x as u32) as f32 + (x as u32 as f32 - 4294967040.0);
    out[o + 5] = (x as i64 as f32) * (y as u8 as f32) + (x as u16 as f32);
    out[o + 6] = std::f32::consts::PI * x - core::f32::consts::LN_2 / y;
    let b = x.to_radians().to_degrees();
    out[o + 7] = if b == x { 1.0 } else { b - x };
    out[o + 8] = (x as f64).mul_add(y as f64, -(x as f64) * (y as f64)) as f32;
    let (s, c) = if x.is_finite() && x.abs() < 1e6 { (x.floor(), x.ceil()) } else { (-x, x) };
    out[o + 9] = s.min(c).max(-c) + (s - c).signum();
});

#[test]
fn float_methods_at_infinities_nans_and_huge_exponents() {
    let xs = f32_inputs("float_edges", 300);
    check_twin("float_edges", &xs, 10, &|d, c, a, o| FloatEdges::new().launch(d, c, a, o), float_edges_host);
}

twin!(int_minmax, int_minmax_host, |i, a: &[i32], out: &mut [i32]| {
    let x = a[i];
    let y = a[(i * 5 + 1) % a.len()];
    let o = 8 * i;
    let (lo, hi) = if x < y { (x, y) } else { (y, x) };
    out[o] = x.min(y) ^ x.max(y) << 1;
    out[o + 1] = (x as i8).clamp(-100, 100) as i32 + ((x as u8).max(y as u8) as i32) << 8;
    out[o + 2] = (x as u16).min(y as u16).clamp(1000, 60000) as i32;
    out[o + 3] = (x as i16).max(i16::MIN).min(i16::MAX) as i32 ^ (y as i16).clamp(-1, 1) as i32;
    out[o + 4] = (x as u64).clamp(lo as u64 & 0xffff, (lo as u64 & 0xffff) + 5) as i32;
    out[o + 5] = (y as i64).clamp(lo as i64, hi as i64) as i32;
    out[o + 6] = i32::min(x, 0).wrapping_sub(i32::max(y, 0));
    out[o + 7] = (x as u32).min(u32::MAX).max(u32::MIN) as i32;
});

#[test]
fn integer_min_max_and_clamp_in_every_width() {
    let xs = i32_inputs("int_minmax", 300);
    check_twin("int_minmax", &xs, 8, &|d, c, a, o| IntMinmax::new().launch(d, c, a, o), int_minmax_host);
}

// ---------------------------------------------------------------------------------------
// Compound assignment on slice elements with shift amounts past the width

#[ptx_kernel]
fn compound_shifts(a: &[u32], b: &mut [i8], h: &mut [u16], w: &mut [i64], f: &mut [f32]) {
    let i = global_idx().x as usize;
    if i < a.len() {
        let x = a[i];
        let k = x >> 25; // 0..=127: past every width
        b[i] <<= k;
        b[i] >>= x as i8;
        b[i] %= (x as i8) | 1;
        h[i] >>= k as u8;
        h[i] <<= -(k as i64);
        h[i] /= (x as u16) | 1;
        w[i] >>= k;
        w[i] <<= x;
        w[i] -= i64::MIN;
        f[i] /= x as f32 - 1000.0;
        f[i] %= -3.5;
    }
}

#[test]
fn compound_shifts_on_slice_elements_mask_their_amount() -> ptx_dsl::runtime::Result<()> {
    let xs = u32_inputs("compound_shifts", 300);
    let n = xs.len();
    let b0: Vec<i8> = (0..n).map(|k| (k * 37 + 1) as i8).collect();
    let h0: Vec<u16> = (0..n).map(|k| (k as u16).wrapping_mul(40503) | 1).collect();
    let w0: Vec<i64> = (0..n).map(|k| (k as i64).wrapping_mul(-0x1e37_79b9_7f4a_7c15)).collect();
    let f0: Vec<f32> = (0..n).map(|k| k as f32 * 1.25 - 60.0).collect();
    let dev = Device::sim();
    let (mut b, mut h) = (dev.upload(&b0)?, dev.upload(&h0)?);
    let (mut w, mut f) = (dev.upload(&w0)?, dev.upload(&f0)?);
    let launch = LaunchConfig::for_elements(n, 64);
    CompoundShifts::new().launch(&dev, launch, &dev.upload(&xs)?, &mut b, &mut h, &mut w, &mut f)?;
    let (b, h, w, f) = (b.to_vec()?, h.to_vec()?, w.to_vec()?, f.to_vec()?);
    for i in 0..n {
        let x = xs[i];
        let k = x >> 25;
        let wb = b0[i].wrapping_shl(k).wrapping_shr(x as i8 as u32).wrapping_rem((x as i8) | 1);
        let wh = h0[i].wrapping_shr(k as u8 as u32).wrapping_shl((k as i64).wrapping_neg() as u32)
            / ((x as u16) | 1);
        let ww = w0[i].wrapping_shr(k).wrapping_shl(x).wrapping_sub(i64::MIN);
        let wf = f0[i] / (x as f32 - 1000.0) % -3.5;
        assert_eq!((b[i], h[i], w[i]), (wb, wh, ww), "x = {x:#x}");
        // Rust leaves a NaN's sign and payload unspecified (the host gives 0xffc00000 for
        // `-inf % -3.5`, PTX's canonical NaN is 0x7fffffff): any NaN matches any NaN.
        let same = f[i].to_bits() == wf.to_bits() || (f[i].is_nan() && wf.is_nan());
        assert!(same, "x = {x:#x}: {} vs {wf}", f[i]);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Signatures: many parameters, comptime parameters of every type, long unrolled loops

#[ptx_kernel]
#[allow(clippy::too_many_arguments)]
fn many_params(
    p0: u8,
    p1: i8,
    p2: u16,
    p3: i16,
    p4: u32,
    p5: i32,
    p6: u64,
    p7: i64,
    p8: usize,
    p9: isize,
    p10: f32,
    p11: f64,
    p12: bool,
    s0: &[u8],
    s1: &[i16],
    s2: &[f64],
    s3: &[u64],
    #[comptime] c0: u32,
    #[comptime] c1: bool,
    mut m: i32,
    out: &mut [f64],
    out2: &mut [i64],
) {
    m += p5;
    out[0] = p0 as f64 + p1 as f64 + p2 as f64 + p3 as f64 + p4 as f64 + p5 as f64;
    out[1] = p6 as f64 + p7 as f64 + p8 as f64 + p9 as f64 + p10 as f64 + p11;
    out[2] = if p12 { s2[s2.len() - 1] } else { -1.0 };
    out2[0] = s0[0] as i64 + s1[1] as i64 + s3[2] as i64 + c0 as i64 + c1 as i64 + m as i64;
    out2[1] = (s0.len() + s1.len() + s2.len() + s3.len() + out.len()) as i64;
}

#[test]
fn twenty_two_parameters_of_every_kind_arrive_in_order() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let (s0, s1, s2, s3) = (
        dev.upload(&[200u8])?,
        dev.upload(&[-1i16, -300])?,
        dev.upload(&[1.5f64, 2.5, -0.25])?,
        dev.upload(&[1u64, 2, 1 << 40, 3])?,
    );
    let mut out: DeviceBuffer<f64> = dev.zeroed(3)?;
    let mut out2: DeviceBuffer<i64> = dev.zeroed(2)?;
    ManyParams::new(7, true).launch(
        &dev,
        LaunchConfig::linear(1, 1),
        255,
        -128,
        65535,
        -32768,
        u32::MAX,
        i32::MIN,
        u64::MAX,
        i64::MIN,
        usize::MAX,
        isize::MIN,
        0.1,
        1e300,
        true,
        &s0,
        &s1,
        &s2,
        &s3,
        i32::MAX,
        &mut out,
        &mut out2,
    )?;
    let want0 = 255.0 - 128.0 + 65535.0 - 32768.0 + u32::MAX as f64 + i32::MIN as f64;
    let want1 =
        u64::MAX as f64 + i64::MIN as f64 + usize::MAX as f64 + isize::MIN as f64 + 0.1f32 as f64 + 1e300;
    assert_eq!(out.to_vec()?, [want0, want1, -0.25]);
    let m = i32::MAX.wrapping_add(i32::MIN) as i64;
    assert_eq!(out2.to_vec()?, [200 - 300 + (1 << 40) + 7 + 1 + m, 1 + 2 + 3 + 4 + 3]);
    Ok(())
}

#[ptx_kernel]
fn comptime_kinds(
    a: &[f64],
    out: &mut [f64],
    #[comptime] b: bool,
    #[comptime] u: u8,
    #[comptime] s: i8,
    #[comptime] w: i64,
    #[comptime] z: usize,
    #[comptime] f: f32,
    #[comptime] d: f64,
) {
    let i = global_idx().x as usize;
    if i < a.len() {
        let mut acc = a[i];
        // A long unrolled loop: 100 steps, each with a comptime-folded constant.
        #[unroll]
        for k in 0..100u32 {
            acc = acc * 0.5 + (k as f64 * d + f as f64) / (1.0 + w as f64);
        }
        #[unroll]
        for k in (z..z + 40).step_by(3) {
            if b {
                acc += (k as i64 + s as i64) as f64;
            } else {
                acc -= (u as u32 * k as u32) as f64;
            }
        }
        out[i] = acc + (u.wrapping_add(s as u8) as f64) + (s / 3) as f64 + (w % 7) as f64;
    }
}

#[allow(clippy::too_many_arguments)]
fn comptime_kinds_host(x: f64, b: bool, u: u8, s: i8, w: i64, z: usize, f: f32, d: f64) -> f64 {
    let mut acc = x;
    for k in 0..100u32 {
        acc = acc * 0.5 + (k as f64 * d + f as f64) / (1.0 + w as f64);
    }
    for k in (z..z + 40).step_by(3) {
        if b {
            acc += (k as i64 + s as i64) as f64;
        } else {
            acc -= (u as u32).wrapping_mul(k as u32) as f64;
        }
    }
    acc + (u.wrapping_add(s as u8) as f64) + (s / 3) as f64 + (w % 7) as f64
}

#[test]
fn comptime_parameters_of_every_type_fold_into_long_unrolled_loops() -> ptx_dsl::runtime::Result<()> {
    let xs = f64_inputs("comptime_kinds", 100);
    let dev = Device::sim();
    let a = dev.upload(&xs)?;
    type Args = (bool, u8, i8, i64, usize, f32, f64);
    let cases: [Args; 4] = [
        (true, 3, -7, 5, 0, 0.1, -2.5),
        (false, 255, i8::MIN, -1 << 40, 1 << 33, f32::MAX, 1e-300),
        (true, 0, i8::MAX, i64::MAX, usize::MAX - 100, -0.0, f64::NAN),
        (false, 128, -1, -9, 17, f32::MIN_POSITIVE, f64::INFINITY),
    ];
    let mut keys = std::collections::HashSet::new();
    for (b, u, s, w, z, f, d) in cases {
        let k = ComptimeKinds::new(b, u, s, w, z, f, d);
        assert!(keys.insert(ptx_dsl::core::Kernel::cache_key(&k)), "cache keys differ per comptime value");
        let mut out: DeviceBuffer<f64> = dev.zeroed(xs.len())?;
        k.launch(&dev, LaunchConfig::for_elements(xs.len(), 64), &a, &mut out)?;
        for (x, g) in xs.iter().zip(out.to_vec()?) {
            let want = comptime_kinds_host(*x, b, u, s, w, z, f, d);
            assert!(g.bits() == want.bits(), "{b} {u} {s} {w} {z} {f} {d}, x = {x}: {g} vs {want}");
        }
    }
    Ok(())
}

// Bits of floats, wrapping shifts by method, and `is_empty` (a fifth review round: idioms a
// user reached for and found missing).
twin!(bits_and_shifts, bits_and_shifts_host, |i, a: &[u32], out: &mut [u32]| {
    let f = f32::from_bits(a[i]);
    let key = if f.to_bits() & 0x8000_0000 != 0 { !a[i] } else { a[i] | 0x8000_0000 };
    out[4 * i] = key;
    out[4 * i + 1] = a[i].wrapping_shl(a[i] & 63) ^ a[i].wrapping_shr(a[i] >> 26);
    // (A NaN result's payload is the GPU's canonical one, documented: not compared.)
    let d = if f.is_nan() { 0 } else { (f as f64 * 3.0).to_bits() };
    out[4 * i + 2] = (d >> 32) as u32 ^ f64::from_bits(d ^ 1).to_bits() as u32;
    out[4 * i + 3] = u32::from(a.is_empty()) + (a.len() as u32).wrapping_shl(1);
});

#[test]
fn float_bits_method_shifts_and_is_empty_match_plain_rust() {
    let xs = u32_inputs("bits_and_shifts", 200);
    check_twin(
        "bits_and_shifts",
        &xs,
        4,
        &|d, c, a, o| BitsAndShifts::new().launch(d, c, a, o),
        bits_and_shifts_host,
    );
}

// Reversed ranges, runtime and unrolled, with steps, inclusive ends and edges near the
// type's limits (a fifth review round: `(0..n).rev()` was refused).
twin!(reversed_ranges, reversed_ranges_host, |i, a: &[u32], out: &mut [u32]| {
    let n = a[i] % 37;
    let mut acc = 0u32;
    let mut order = 0u32;
    for k in (0..n).rev() {
        acc = acc.wrapping_mul(31).wrapping_add(k);
        order += 1;
    }
    for k in (n / 3..=n).rev().step_by((a[i] % 5 + 1) as usize) {
        acc = acc.wrapping_mul(7) ^ k;
    }
    let top = (a[i] >> 28) as u8;
    for k in (250u8..=255).rev().step_by(top as usize + 1) {
        acc ^= (k as u32) << (top % 8);
    }
    for k in (n..n).rev() {
        acc += k + 1000;
    }
    let mut lo = n / 2;
    for k in (lo..n).rev() {
        lo += k; // the range's start was read before the loop
    }
    acc ^= lo;
    let mut early = 0u32;
    for k in (0..n).rev() {
        if k % 11 == 10 {
            continue;
        }
        early += k;
        if early > 200 {
            break;
        }
    }
    out[3 * i] = acc;
    out[3 * i + 1] = order;
    out[3 * i + 2] = early;
});

#[test]
fn reversed_ranges_match_plain_rust() {
    let xs = u32_inputs("reversed_ranges", 300);
    check_twin(
        "reversed_ranges",
        &xs,
        3,
        &|d, c, a, o| ReversedRanges::new().launch(d, c, a, o),
        reversed_ranges_host,
    );
}

/// The unrolled form: host iteration of `(0..4).rev().step_by(3)` (3, then 0).
#[ptx_kernel]
fn unrolled_reversed(out: &mut [u32]) {
    let mut acc = 0u32;
    let mut order = 0u32;
    #[unroll]
    for k in (0..4u32).rev().step_by(3) {
        acc = acc * 10 + k;
        order += 1;
    }
    if !out.is_empty() {
        out[0] = acc * 10 + order;
    }
}

#[test]
fn unrolled_reversed_ranges_iterate_as_rust_does() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut out = dev.upload(&[0u32])?;
    UnrolledReversed::new().launch(&dev, LaunchConfig::linear(1, 1), &mut out)?;
    // 3 then 0: acc = 30, two iterations.
    assert_eq!(out.to_vec()?, vec![302]);
    Ok(())
}
