//! Integer semantics of `#[ptx_kernel]` on the simulator against the same operations run as
//! plain Rust (release-mode wrapping), bit for bit, on random inputs plus edge values
//! (0, ±1, MIN, MAX, shift amounts past the width).

// The host references mirror the kernel bodies statement for statement.
#![allow(
    clippy::precedence,
    clippy::manual_checked_ops,
    clippy::needless_range_loop,
    clippy::useless_conversion,
    clippy::unnecessary_cast
)]

mod common;

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, DeviceBuffer, Error, LaunchConfig};
use ptx_tools::rng::Rng;

/// Each operator on i32, one output slot per operator: `out[i * 16 + k]`.
#[ptx_kernel]
fn i32_ops(a: &[i32], b: &[i32], out: &mut [i32], n: u32) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i >= n {
        return;
    }
    let (x, y) = (a[i], b[i]);
    let o = i * 16;
    out[o] = x + y;
    out[o + 1] = x - y;
    out[o + 2] = x * y;
    out[o + 3] = if y != 0 && !(x == i32::MIN && y == -1) { x / y } else { 0 };
    out[o + 4] = if y != 0 && !(x == i32::MIN && y == -1) { x % y } else { 0 };
    out[o + 5] = x & y;
    out[o + 6] = x | y;
    out[o + 7] = x ^ y;
    out[o + 8] = x << y;
    out[o + 9] = x >> y;
    out[o + 10] = -x;
    out[o + 11] = !x;
    out[o + 12] = (x < y) as i32
        + 2 * (x <= y) as i32
        + 4 * (x > y) as i32
        + 8 * (x >= y) as i32
        + 16 * (x == y) as i32;
    out[o + 13] = x.min(y) ^ x.max(y).wrapping_mul(3);
    out[o + 14] = x.abs().wrapping_add(x.pow(3));
    out[o + 15] = x.clamp(-1000, 1000);
}

fn i32_ops_host(x: i32, y: i32) -> [i32; 16] {
    let div_ok = y != 0 && !(x == i32::MIN && y == -1);
    [
        x.wrapping_add(y),
        x.wrapping_sub(y),
        x.wrapping_mul(y),
        if div_ok { x / y } else { 0 },
        if div_ok { x % y } else { 0 },
        x & y,
        x | y,
        x ^ y,
        x.wrapping_shl(y as u32),
        x.wrapping_shr(y as u32),
        x.wrapping_neg(),
        !x,
        (x < y) as i32
            + 2 * (x <= y) as i32
            + 4 * (x > y) as i32
            + 8 * (x >= y) as i32
            + 16 * (x == y) as i32,
        x.min(y) ^ x.max(y).wrapping_mul(3),
        x.wrapping_abs().wrapping_add(x.wrapping_pow(3)),
        x.clamp(-1000, 1000),
    ]
}

/// The same for u64, with a runtime exponent for `pow`.
#[ptx_kernel]
fn u64_ops(a: &[u64], b: &[u64], out: &mut [u64], n: u32) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i < n {
        let (x, y) = (a[i], b[i]);
        let o = (i * 10) as u64;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = if y != 0 { x / y } else { 7 };
        out[o + 4] = if y != 0 { x % y } else { 7 };
        out[o + 5] = x << y;
        out[o + 6] = x >> (y as u32);
        out[o + 7] = (x < y) as u64 | (x == y) as u64 * 2;
        out[o + 8] = x.pow((y % 7) as u32);
        out[o + 9] = !x ^ (x as u32 as u64);
    }
}

fn u64_ops_host(x: u64, y: u64) -> [u64; 10] {
    [
        x.wrapping_add(y),
        x.wrapping_sub(y),
        x.wrapping_mul(y),
        if y != 0 { x / y } else { 7 },
        if y != 0 { x % y } else { 7 },
        x.wrapping_shl(y as u32),
        x.wrapping_shr(y as u32),
        (x < y) as u64 | (x == y) as u64 * 2,
        x.wrapping_pow((y % 7) as u32),
        !x ^ (x as u32 as u64),
    ]
}

/// Casts between every integer width, narrow types included, and to and from floats.
#[ptx_kernel]
fn int_casts(a: &[i32], f: &[f32], out: &mut [i64], n: u32) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i < n {
        let x = a[i];
        let o = i * 14;
        out[o] = x as u8 as i64;
        out[o + 1] = x as i8 as i64;
        out[o + 2] = x as u16 as i64;
        out[o + 3] = x as i16 as i64;
        out[o + 4] = x as u32 as i64;
        out[o + 5] = x as u64 as i64;
        out[o + 6] = (x as u8).wrapping_add(200) as i64;
        out[o + 7] = ((x as i8) >> 2) as i64 + (x as i8).wrapping_mul(3) as i64;
        out[o + 8] = f[i] as u8 as i64;
        out[o + 9] = f[i] as i8 as i64;
        out[o + 10] = f[i] as i32 as i64;
        out[o + 11] = f[i] as u64 as i64;
        out[o + 12] = (x as f32) as i64;
        out[o + 13] = (x < 0) as i64 - (x as u16 > 1000) as i64;
    }
}

fn int_casts_host(x: i32, f: f32) -> [i64; 14] {
    [
        x as u8 as i64,
        x as i8 as i64,
        x as u16 as i64,
        x as i16 as i64,
        x as u32 as i64,
        x as u64 as i64,
        (x as u8).wrapping_add(200) as i64,
        ((x as i8) >> 2) as i64 + (x as i8).wrapping_mul(3) as i64,
        f as u8 as i64,
        f as i8 as i64,
        f as i32 as i64,
        f as u64 as i64,
        (x as f32) as i64,
        (x < 0) as i64 - (x as u16 > 1000) as i64,
    ]
}

const I32_EDGES: [i32; 9] = [0, 1, -1, 2, 31, 32, 33, i32::MIN, i32::MAX];

/// Edge values paired with each other, then random pairs up to `len`.
fn i32_pairs(rng: &mut Rng, len: usize) -> (Vec<i32>, Vec<i32>) {
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in &I32_EDGES {
        for &y in &I32_EDGES {
            a.push(x);
            b.push(y);
        }
    }
    while a.len() < len {
        let r = rng.next();
        // Mix full-range values with small ones, so shifts and divisions see both.
        let x = if r & 1 == 0 { r as i32 } else { (r >> 8) as i32 % 100 };
        let y = if r & 2 == 0 { (r >> 32) as i32 } else { (r >> 40) as i32 % 40 };
        a.push(x);
        b.push(y);
    }
    (a, b)
}

fn launch_config(n: usize) -> LaunchConfig {
    LaunchConfig::for_elements(n, 64)
}

#[test]
fn i32_operators_match_plain_rust_bit_for_bit() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("i32_operators");
    let (a, b) = i32_pairs(&mut rng, 400);
    let n = a.len();
    let (ad, bd) = (dev.upload(&a)?, dev.upload(&b)?);
    let mut out: DeviceBuffer<i32> = dev.zeroed(n * 16)?;
    I32Ops::new().launch(&dev, launch_config(n), &ad, &bd, &mut out, n as u32)?;
    common::assert_assembles("i32_ops", &I32Ops::new());
    let got = out.to_vec()?;
    for i in 0..n {
        let want = i32_ops_host(a[i], b[i]);
        assert_eq!(&got[i * 16..i * 16 + 16], &want[..], "x = {}, y = {}", a[i], b[i]);
    }
    Ok(())
}

#[test]
fn u64_operators_match_plain_rust_bit_for_bit() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("u64_operators");
    let edges = [0u64, 1, 2, 63, 64, 65, u64::MAX, u64::MAX - 1, 1 << 63];
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in &edges {
        for &y in &edges {
            a.push(x);
            b.push(y);
        }
    }
    while a.len() < 300 {
        let (x, y) = (rng.next(), rng.next());
        a.push(if x & 1 == 0 { x } else { x >> 40 });
        b.push(if y & 1 == 0 { y } else { y >> 58 });
    }
    let n = a.len();
    let (ad, bd) = (dev.upload(&a)?, dev.upload(&b)?);
    let mut out: DeviceBuffer<u64> = dev.zeroed(n * 10)?;
    U64Ops::new().launch(&dev, launch_config(n), &ad, &bd, &mut out, n as u32)?;
    common::assert_assembles("u64_ops", &U64Ops::new());
    let got = out.to_vec()?;
    for i in 0..n {
        assert_eq!(&got[i * 10..i * 10 + 10], &u64_ops_host(a[i], b[i])[..], "x = {}, y = {}", a[i], b[i]);
    }
    Ok(())
}

/// Literals at the edges: the most negative value of each signed width written as a
/// negated literal, and `!` on literals (a complement, never a negation).
#[ptx_kernel]
fn literal_edges(a: &[i64], out: &mut [i64]) {
    let i = thread_idx().x as usize;
    let x = a[i];
    let (b, h, w): (i8, i16, i32) = (-128, -32768, -2147483648);
    let q: i64 = -9223372036854775808;
    out[6 * i] = x + b as i64;
    out[6 * i + 1] = x ^ h as i64;
    out[6 * i + 2] = x * w as i64;
    out[6 * i + 3] = x.wrapping_sub(q);
    out[6 * i + 4] = x ^ !0u32 as i64 ^ (!0 as u8 as i64) << 40;
    out[6 * i + 5] = x & !5u8 as i64 | !7i16 as i64;
}

fn literal_edges_host(x: i64) -> [i64; 6] {
    let (b, h, w): (i8, i16, i32) = (-128, -32768, -2147483648);
    let q: i64 = -9223372036854775808;
    [
        x.wrapping_add(b as i64),
        x ^ h as i64,
        x.wrapping_mul(w as i64),
        x.wrapping_sub(q),
        x ^ !0u32 as i64 ^ (!0 as u8 as i64) << 40,
        x & !5u8 as i64 | !7i16 as i64,
    ]
}

#[test]
fn negated_and_complemented_literals_match_plain_rust() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("literal_edges");
    let mut x = vec![0, 1, -1, i64::MIN, i64::MAX];
    x.extend((x.len()..64).map(|_| rng.next() as i64));
    let xd = dev.upload(&x)?;
    let mut out = dev.zeroed::<i64>(6 * x.len())?;
    LiteralEdges::new().launch(&dev, LaunchConfig::linear(1, x.len() as u32), &xd, &mut out)?;
    let got = out.to_vec()?;
    for (i, &v) in x.iter().enumerate() {
        assert_eq!(got[6 * i..6 * i + 6], literal_edges_host(v), "x = {v}");
    }
    Ok(())
}

/// `&`, `|` and `^` on `bool`s: both sides evaluated, no short circuit.
#[ptx_kernel]
fn bool_bitwise(a: &[i64], out: &mut [u32]) {
    let i = thread_idx().x as usize;
    let x = a[i];
    let (neg, odd, small) = (x < 0, x & 1 == 1, x > -100 && x < 100);
    out[i] = (neg & odd) as u32 | ((neg | small) as u32) << 1 | ((odd ^ small) as u32) << 2;
}

#[test]
fn bitwise_operators_on_bools_match_plain_rust() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("bool_bitwise");
    let mut x = vec![0, 1, -1, 99, -99, 100, -100, i64::MIN, i64::MAX];
    x.extend((x.len()..64).map(|_| rng.next() as i64 >> (rng.next() % 64)));
    let xd = dev.upload(&x)?;
    let mut out = dev.zeroed::<u32>(x.len())?;
    BoolBitwise::new().launch(&dev, LaunchConfig::linear(1, x.len() as u32), &xd, &mut out)?;
    let want: Vec<u32> = x
        .iter()
        .map(|&x| {
            let (neg, odd, small) = (x < 0, x & 1 == 1, x > -100 && x < 100);
            (neg & odd) as u32 | ((neg | small) as u32) << 1 | ((odd ^ small) as u32) << 2
        })
        .collect();
    assert_eq!(out.to_vec()?, want, "x = {x:?}");
    Ok(())
}

/// Arithmetic on comptime values, computed while the kernel is built, wraps like the
/// kernel's runtime arithmetic (Rust's release mode) where a debug build would panic.
#[ptx_kernel]
fn comptime_wrapping(out: &mut [u32], #[comptime] a: u32, #[comptime] b: u32, #[comptime] c: i32) {
    out[0] = a + b;
    out[1] = a - b;
    out[2] = a * b;
    out[3] = a << b;
    out[4] = a >> b;
    out[5] = -(a as i32) as u32;
    out[6] = c.abs() as u32;
    out[7] = a.pow(b % 8);
    out[8] = u32::max(a, b) - u32::min(a, b);
}

#[test]
fn comptime_arithmetic_wraps_like_the_runtime() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    for (a, b, c) in [(u32::MAX, 2, i32::MIN), (5, 7, -7), (0x8000_0000, 33, 5), (1, 0, 0), (0, u32::MAX, -1)]
    {
        let mut out = dev.zeroed::<u32>(9)?;
        ComptimeWrapping::new(a, b, c).launch(&dev, LaunchConfig::linear(1, 1), &mut out)?;
        let want = [
            a.wrapping_add(b),
            a.wrapping_sub(b),
            a.wrapping_mul(b),
            a.wrapping_shl(b),
            a.wrapping_shr(b),
            (a as i32).wrapping_neg() as u32,
            c.wrapping_abs() as u32,
            a.wrapping_pow(b % 8),
            u32::max(a, b) - u32::min(a, b),
        ];
        assert_eq!(out.to_vec()?, want, "a = {a}, b = {b}, c = {c}");
    }
    Ok(())
}

#[test]
fn casts_truncate_extend_and_saturate_like_rust() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("int_casts");
    let float_edges = [
        0.0f32,
        -0.0,
        0.5,
        -0.5,
        255.9,
        256.0,
        -128.5,
        -129.0,
        1e10,
        -1e10,
        3e19,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE / 4.0,
    ];
    let mut a: Vec<i32> =
        I32_EDGES.iter().copied().chain([127, 128, 255, 256, -128, -129, 65535, 65536]).collect();
    let mut f: Vec<f32> = float_edges.to_vec();
    while a.len() < 200 {
        a.push(rng.next() as i32);
    }
    while f.len() < a.len() {
        f.push(rng.signed_f32() * 1000.0);
    }
    f.truncate(a.len());
    let n = a.len();
    let (ad, fd) = (dev.upload(&a)?, dev.upload(&f)?);
    let mut out: DeviceBuffer<i64> = dev.zeroed(n * 14)?;
    IntCasts::new().launch(&dev, launch_config(n), &ad, &fd, &mut out, n as u32)?;
    common::assert_assembles("int_casts", &IntCasts::new());
    let got = out.to_vec()?;
    for i in 0..n {
        assert_eq!(&got[i * 14..i * 14 + 14], &int_casts_host(a[i], f[i])[..], "x = {}, f = {}", a[i], f[i]);
    }
    Ok(())
}

/// Bit counts of every width, narrow and signed types included.
#[ptx_kernel]
fn bit_counts(a: &[u64], out: &mut [u32]) {
    let i = thread_idx().x + block_idx().x * block_dim().x;
    if (i as usize) < a.len() {
        let x = a[i];
        let o = i * 12;
        out[o] = x.count_ones();
        out[o + 1] = x.leading_zeros();
        out[o + 2] = x.trailing_zeros();
        out[o + 3] = (x as u32).count_ones();
        out[o + 4] = (x as u32).leading_zeros();
        out[o + 5] = (x as u32).trailing_zeros();
        out[o + 6] = (x as i32).leading_zeros() + (x as i64).count_ones();
        out[o + 7] = (x as u8).count_ones();
        out[o + 8] = (x as u8).leading_zeros();
        out[o + 9] = (x as u8).trailing_zeros();
        out[o + 10] = (x as i8).leading_zeros() + (x as i16).trailing_zeros();
        out[o + 11] = (x as i16).count_ones() + (x as u16).leading_zeros();
    }
}

fn bit_counts_host(x: u64) -> [u32; 12] {
    [
        x.count_ones(),
        x.leading_zeros(),
        x.trailing_zeros(),
        (x as u32).count_ones(),
        (x as u32).leading_zeros(),
        (x as u32).trailing_zeros(),
        (x as i32).leading_zeros() + (x as i64).count_ones(),
        (x as u8).count_ones(),
        (x as u8).leading_zeros(),
        (x as u8).trailing_zeros(),
        (x as i8).leading_zeros() + (x as i16).trailing_zeros(),
        (x as i16).count_ones() + (x as u16).leading_zeros(),
    ]
}

#[test]
fn bit_counts_match_plain_rust() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("bit_counts");
    let mut a: Vec<u64> = vec![0, 1, 2, 0x80, 0xff, 0x100, 0x8000_0000, u32::MAX as u64, 1 << 63, u64::MAX];
    while a.len() < 400 {
        let r = rng.next();
        a.push(r >> (r % 64));
    }
    let n = a.len();
    let ad = dev.upload(&a)?;
    let mut out: DeviceBuffer<u32> = dev.zeroed(n * 12)?;
    common::assert_assembles("bit_counts", &BitCounts::new());
    BitCounts::new().launch(&dev, launch_config(n), &ad, &mut out)?;
    let got = out.to_vec()?;
    for (i, &x) in a.iter().enumerate() {
        assert_eq!(&got[i * 12..i * 12 + 12], &bit_counts_host(x)[..], "x = {x:#x}");
    }
    Ok(())
}

/// `T::from(x)`, Rust's lossless conversions (what clippy's `cast_lossless` suggests in
/// place of `as`): widening integers, small integers and `f32` to floats, `bool` to numbers.
#[ptx_kernel]
fn lossless_conversions(a: &[u16], b: &[i32], c: &[f32], out: &mut [f64], n: u32) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i >= n {
        return;
    }
    let (x, y, z) = (a[i], b[i], c[i]);
    let o = (i * 5) as usize;
    out[o] = f64::from(u32::from(x)) + f64::from(i64::from(y) as i32);
    out[o + 1] = f64::from(z) * 3.0;
    out[o + 2] = f64::from(f32::from(x) * 0.5);
    out[o + 3] = f64::from(y) + f64::from(u64::from(x) as u32);
    out[o + 4] = f64::from(u8::from(x > 7)) + f64::from(f32::from(z));
}

#[test]
fn lossless_conversions_match_plain_rust() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("lossless_conversions");
    let n = 300usize;
    let mut a: Vec<u16> = (0..n).map(|_| rng.next() as u16).collect();
    let mut b: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
    let c: Vec<f32> = (0..n).map(|_| rng.signed_f32() * 1e6).collect();
    a[..3].copy_from_slice(&[0, u16::MAX, 7]);
    b[..3].copy_from_slice(&[i32::MIN, i32::MAX, -1]);
    let (ad, bd, cd) = (dev.upload(&a)?, dev.upload(&b)?, dev.upload(&c)?);
    let mut od = dev.zeroed::<f64>(5 * n)?;
    LosslessConversions::new().launch(
        &dev,
        LaunchConfig::for_elements(n, 64),
        &ad,
        &bd,
        &cd,
        &mut od,
        n as u32,
    )?;
    let got = od.to_vec()?;
    for i in 0..n {
        let (x, y, z) = (a[i], b[i], c[i]);
        let want = [
            f64::from(u32::from(x)) + f64::from(i64::from(y) as i32),
            f64::from(z) * 3.0,
            f64::from(f32::from(x) * 0.5),
            f64::from(y) + f64::from(u64::from(x) as u32),
            f64::from(u8::from(x > 7)) + f64::from(f32::from(z)),
        ];
        for (k, w) in want.iter().enumerate() {
            assert_eq!(got[5 * i + k].to_bits(), w.to_bits(), "output {k} of x={x} y={y} z={z}");
        }
    }
    Ok(())
}

#[ptx_kernel]
fn clamps(x: &[i32], lo: i32, hi: i32, f: &[f32], flo: f32, fhi: f32, out: &mut [i32], fout: &mut [f32]) {
    let i = thread_idx().x as usize;
    out[i] = x[i].clamp(lo, hi);
    fout[i] = f[i].clamp(flo, fhi);
}

#[test]
fn clamp_with_unordered_bounds_panics_as_in_rust() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x = [-5i32, 0, 5, 10, 15];
    let f = [-5.0f32, 0.0, 5.5, f32::NAN, 15.0];
    let (xd, fd) = (dev.upload(&x)?, dev.upload(&f)?);
    let (mut out, mut fout) = (dev.zeroed(5)?, dev.zeroed(5)?);
    let launch = LaunchConfig::linear(1, 5);
    Clamps::new().launch(&dev, launch, &xd, 0, 10, &fd, 0.0, 10.0, &mut out, &mut fout)?;
    assert_eq!(out.to_vec()?, x.map(|v| v.clamp(0, 10)));
    let want = f.map(|v| v.clamp(0.0, 10.0));
    assert!(fout.to_vec()?.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()));
    // Where std panics: `lo > hi` for integers, and `lo > hi` or a NaN bound for floats.
    for (lo, hi, flo, fhi, message) in [
        (10, 0, 0.0, 10.0, "min > max"),
        (0, 10, 10.0, 0.0, "min > max, or either was NaN"),
        (0, 10, f32::NAN, 10.0, "min > max, or either was NaN"),
        (0, 10, 0.0, f32::NAN, "min > max, or either was NaN"),
    ] {
        match Clamps::new().launch(&dev, launch, &xd, lo, hi, &fd, flo, fhi, &mut out, &mut fout) {
            Err(Error::KernelPanic { message: m, .. }) => assert!(m.contains(message), "{m}"),
            other => {
                panic!("clamp({lo}, {hi}) / clamp({flo}, {fhi}): expected a kernel panic, got {other:?}")
            }
        }
    }
    Ok(())
}

#[ptx_kernel]
fn comptime_clamp(x: &[i32], out: &mut [i32], #[comptime] lo: i32, #[comptime] hi: i32) {
    let i = thread_idx().x as usize;
    out[i] = x[i].clamp(lo, hi);
}

#[test]
fn clamp_with_unordered_comptime_bounds_panics_at_launch() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let xd = dev.upload(&[-3i32, 4, 40])?;
    let mut out = dev.zeroed(3)?;
    ComptimeClamp::new(0, 10).launch(&dev, LaunchConfig::linear(1, 3), &xd, &mut out)?;
    assert_eq!(out.to_vec()?, [0, 4, 10]);
    match ComptimeClamp::new(10, 0).launch(&dev, LaunchConfig::linear(1, 3), &xd, &mut out) {
        Err(Error::KernelPanic { message, .. }) => assert!(message.contains("min > max"), "{message}"),
        other => panic!("expected a kernel panic, got {other:?}"),
    }
    Ok(())
}
