//! Integer methods of the standard library beyond arithmetic (`saturating_add`/`_sub`,
//! `rotate_left`/`_right`, `abs_diff`, `signum`, `is_power_of_two`, `leading_ones`,
//! `trailing_ones`, `rem_euclid`, `div_euclid`) and the float `rem_euclid`/`div_euclid`, on
//! every integer width, and `std::cmp::min`/`max` in their spellings: each body runs as a `#[ptx_kernel]` on the simulator and as plain
//! Rust on the host, compared bit for bit on edge values and fresh random inputs.
#![allow(clippy::unnecessary_cast)]

use ptx_dsl::prelude::*;
use std::cmp;

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

/// Slots each integer kernel writes per input.
const INT_SLOTS: usize = 12;

/// Edge values of every width (as the bits of a `u64`), with random ones: each thread pairs
/// its input with the next one, so every edge meets every other.
fn inputs(test: &str) -> Vec<u64> {
    let mut xs = u64_inputs(test, 300);
    for t in [0x7fu64, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff] {
        xs.extend([t, t - 1, t + 1, t.wrapping_neg()]);
    }
    xs.extend([2, 3, 4, 5, 6, 8, 64, 1 << 40, (1 << 40) + 1, u64::MAX - 1]);
    xs
}

/// Defines twin kernel `$kernel` (type `$camel`) and its test over integer type `$t`: the
/// methods on pairs `(x, y)` of inputs, `$per_sign` the method only one signedness has and
/// `$no_panic` a divisor for the Euclidean pair (Rust panics on 0, and on `MIN` by −1).
macro_rules! int_methods {
    ($t:ident, $kernel:ident, $host:ident, $camel:ident, $test:ident,
     |$x:ident, $y:ident| $per_sign:expr, $no_panic:expr) => {
        twin!($kernel, $host, |i, a: &[u64], out: &mut [u64]| {
            let ($x, $y) = (a[i] as $t, a[(i + 1) % a.len()] as $t);
            let n = (a[(i + 2) % a.len()] % 200) as u32;
            let o = INT_SLOTS * i;
            out[o] = $x.saturating_add($y) as u64;
            out[o + 1] = $x.saturating_sub($y) as u64;
            out[o + 2] = $x.rotate_left(n) as u64;
            out[o + 3] = $x.rotate_right(n) as u64;
            out[o + 4] = $x.abs_diff($y) as u64;
            out[o + 5] = $per_sign as u64;
            out[o + 6] = $x.leading_ones() as u64;
            out[o + 7] = $x.trailing_ones() as u64;
            let d = $no_panic;
            out[o + 8] = $x.rem_euclid(d) as u64;
            out[o + 9] = $x.div_euclid(d) as u64;
            out[o + 10] = $x.saturating_add($t::MAX).saturating_sub($y) as u64;
            out[o + 11] = ($x.rotate_left(3) ^ $x.rotate_right(61)) as u64;
        });

        #[test]
        fn $test() {
            let xs = inputs(stringify!($kernel));
            let launch = |d: &_, c, a: &_, o: &mut _| $camel::new().launch(d, c, a, o);
            check_twin(stringify!($kernel), &xs, INT_SLOTS, &launch, $host);
        }
    };
}

int_methods!(
    u8,
    u8_methods,
    u8_methods_host,
    U8Methods,
    u8_methods_are_rusts,
    |x, y| x.is_power_of_two(),
    if y == 0 { 7 } else { y }
);
int_methods!(
    u16,
    u16_methods,
    u16_methods_host,
    U16Methods,
    u16_methods_are_rusts,
    |x, y| x.is_power_of_two(),
    if y == 0 { 7 } else { y }
);
int_methods!(
    u32,
    u32_methods,
    u32_methods_host,
    U32Methods,
    u32_methods_are_rusts,
    |x, y| x.is_power_of_two(),
    if y == 0 { 7 } else { y }
);
int_methods!(
    u64,
    u64_methods,
    u64_methods_host,
    U64Methods,
    u64_methods_are_rusts,
    |x, y| x.is_power_of_two(),
    if y == 0 { 7 } else { y }
);
int_methods!(
    i8,
    i8_methods,
    i8_methods_host,
    I8Methods,
    i8_methods_are_rusts,
    |x, y| x.signum(),
    if y == 0 || (x == i8::MIN && y == -1) { 7 } else { y }
);
int_methods!(
    i16,
    i16_methods,
    i16_methods_host,
    I16Methods,
    i16_methods_are_rusts,
    |x, y| x.signum(),
    if y == 0 || (x == i16::MIN && y == -1) { 7 } else { y }
);
int_methods!(
    i32,
    i32_methods,
    i32_methods_host,
    I32Methods,
    i32_methods_are_rusts,
    |x, y| x.signum(),
    if y == 0 || (x == i32::MIN && y == -1) { 7 } else { y }
);
int_methods!(
    i64,
    i64_methods,
    i64_methods_host,
    I64Methods,
    i64_methods_are_rusts,
    |x, y| x.signum(),
    if y == 0 || (x == i64::MIN && y == -1) { 7 } else { y }
);

twin!(float_euclid, float_euclid_host, |i, a: &[f64], out: &mut [f64]| {
    let (x, y) = (a[i], a[(i + 1) % a.len()]);
    let (xf, yf) = (x as f32, y as f32);
    out[4 * i] = x.rem_euclid(y);
    out[4 * i + 1] = x.div_euclid(y);
    out[4 * i + 2] = xf.rem_euclid(yf) as f64;
    out[4 * i + 3] = xf.div_euclid(yf) as f64;
});

#[test]
fn float_rem_euclid_and_div_euclid_are_rusts() {
    let mut xs = f64_inputs("float_euclid", 300);
    xs.extend([7.5, -7.5, 2.0, -2.0, 0.0, -0.0, 1e300, -1e-300, f64::INFINITY, f64::NEG_INFINITY, f64::NAN]);
    let launch = |d: &_, c, a: &_, o: &mut _| FloatEuclid::new().launch(d, c, a, o);
    check_twin("float_euclid", &xs, 4, &launch, float_euclid_host);
}

/// Euclidean division by a comptime divisor: folded while building when it cannot panic,
/// and a zero divisor a fault at launch (Rust's panic), not a panic while building.
#[ptx_kernel]
fn euclid_by_comptime(out: &mut [i32], #[comptime] d: i32) {
    let i = thread_idx().x as usize;
    out[i] = (-7i32).rem_euclid(d) + 10 * (-7i32).div_euclid(d);
}

#[test]
fn a_comptime_euclidean_divisor_of_zero_is_a_launch_error_not_a_panic() -> ptx_dsl::runtime::Result<()> {
    use ptx_dsl::runtime::{Device, DeviceBuffer, Error, LaunchConfig};
    let dev = Device::sim();
    let mut out: DeviceBuffer<i32> = dev.zeroed(2)?;
    EuclidByComptime::new(3).launch(&dev, LaunchConfig::linear(1, 2), &mut out)?;
    let want = (-7i32).rem_euclid(3) + 10 * (-7i32).div_euclid(3);
    assert_eq!(out.to_vec()?, [want, want]);
    let err = EuclidByComptime::new(0).launch(&dev, LaunchConfig::linear(1, 2), &mut out).unwrap_err();
    assert!(
        matches!(&err, Error::KernelPanic { message, .. } if message.contains("divisor of zero")),
        "{err}"
    );
    Ok(())
}

// `std::cmp::min`/`max` as Rust code spells them: one type for both values, which either
// value gives (`cmp::min(200, x)` makes the literal a `u64`).
twin!(cmp_functions, cmp_functions_host, |i, a: &[u64], out: &mut [u64]| {
    let (x, y) = (a[i], a[(i + 1) % a.len()]);
    let (s, t) = (x as i32, y as i32);
    out[5 * i] = std::cmp::min(x, y);
    out[5 * i + 1] = core::cmp::max(s, t) as u64;
    out[5 * i + 2] = cmp::min(200, x) + cmp::max(y as u8, 7) as u64;
    out[5 * i + 3] = Ord::max(s as i64, -3) as u64;
    out[5 * i + 4] = ::std::cmp::Ord::min(x as i16, t as i16) as u64;
});

#[test]
fn std_cmp_min_and_max_are_rusts() {
    let xs = inputs("cmp_functions");
    let launch = |d: &_, c, a: &_, o: &mut _| CmpFunctions::new().launch(d, c, a, o);
    check_twin("cmp_functions", &xs, 5, &launch, cmp_functions_host);
}

/// Slots each kernel of `more_int_methods!` writes per input.
const MORE_SLOTS: usize = 12;

/// Defines twin kernel `$kernel` (type `$camel`) and its test over integer type `$t`: the
/// wrapping, saturating and bit-order methods on pairs `(x, y)` of inputs, and `$a`, `$b`
/// the methods only one signedness has. `x & MIN` divided by `!(y & 0)` is `MIN / −1` at
/// run time for the signed types (`0 / MAX` for the unsigned ones).
macro_rules! more_int_methods {
    ($t:ident, $kernel:ident, $host:ident, $camel:ident, $test:ident, |$x:ident| $a:expr, $b:expr) => {
        twin!($kernel, $host, |i, a: &[u64], out: &mut [u64]| {
            let ($x, y) = (a[i] as $t, a[(i + 1) % a.len()] as $t);
            let n = (a[(i + 2) % a.len()] % 70) as u32;
            let o = MORE_SLOTS * i;
            let d = if y == 0 { 3 } else { y };
            out[o] = $x.saturating_mul(y) as u64;
            out[o + 1] = $x.wrapping_div(d) as u64;
            out[o + 2] = $x.wrapping_rem(d) as u64;
            out[o + 3] =
                ($x & $t::MIN).wrapping_div(!(y & 0)) as u64 ^ ($x & $t::MIN).wrapping_rem(!(y & 0)) as u64;
            out[o + 4] = $x.swap_bytes() as u64;
            out[o + 5] = $x.reverse_bits() as u64;
            out[o + 6] = ($x.count_zeros() + 100 * ($x & $t::MAX | 1).ilog2()) as u64;
            out[o + 7] = $x.wrapping_pow(n) as u64;
            out[o + 8] = $a as u64;
            out[o + 9] = $b as u64;
            out[o + 10] = $x.saturating_mul($t::MAX).saturating_mul(-(1 as i8) as $t) as u64;
            out[o + 11] = $x.reverse_bits().swap_bytes().reverse_bits() as u64;
        });

        #[test]
        fn $test() {
            let xs = inputs(stringify!($kernel));
            let launch = |d: &_, c, a: &_, o: &mut _| $camel::new().launch(d, c, a, o);
            check_twin(stringify!($kernel), &xs, MORE_SLOTS, &launch, $host);
        }
    };
}

more_int_methods!(
    u8,
    more_u8,
    more_u8_host,
    MoreU8,
    more_u8_methods_are_rusts,
    |x| (x >> 1).next_power_of_two(),
    (x & 1).next_power_of_two()
);
more_int_methods!(
    u16,
    more_u16,
    more_u16_host,
    MoreU16,
    more_u16_methods_are_rusts,
    |x| (x >> 1).next_power_of_two(),
    (x & 1).next_power_of_two()
);
more_int_methods!(
    u32,
    more_u32,
    more_u32_host,
    MoreU32,
    more_u32_methods_are_rusts,
    |x| (x >> 1).next_power_of_two(),
    (x & 1).next_power_of_two()
);
more_int_methods!(
    u64,
    more_u64,
    more_u64_host,
    MoreU64,
    more_u64_methods_are_rusts,
    |x| (x >> 1).next_power_of_two(),
    (x & 1).next_power_of_two()
);
more_int_methods!(
    i8,
    more_i8,
    more_i8_host,
    MoreI8,
    more_i8_methods_are_rusts,
    |x| x.wrapping_abs() as u64 ^ (x.unsigned_abs() as u64) << 8,
    x.is_positive() as u8 + 2 * x.is_negative() as u8
);
more_int_methods!(
    i16,
    more_i16,
    more_i16_host,
    MoreI16,
    more_i16_methods_are_rusts,
    |x| x.wrapping_abs() as u64 ^ (x.unsigned_abs() as u64) << 16,
    x.is_positive() as u8 + 2 * x.is_negative() as u8
);
more_int_methods!(
    i32,
    more_i32,
    more_i32_host,
    MoreI32,
    more_i32_methods_are_rusts,
    |x| x.wrapping_abs() as u64 ^ (x.unsigned_abs() as u64) << 32,
    x.is_positive() as u8 + 2 * x.is_negative() as u8
);
more_int_methods!(
    i64,
    more_i64,
    more_i64_host,
    MoreI64,
    more_i64_methods_are_rusts,
    |x| x.wrapping_abs() as u64 ^ x.unsigned_abs(),
    x.is_positive() as u8 + 2 * x.is_negative() as u8
);

/// What Rust panics on (`ilog2` of 0) is the launch's `KernelPanic` with Rust's message,
/// and `next_power_of_two` past the type wraps to 0 as in a release build.
#[ptx_kernel]
fn logs_and_powers(a: &[u32], out: &mut [u32]) {
    let i = thread_idx().x as usize;
    out[2 * i] = (a[i] as u8).next_power_of_two() as u32 + a[i].next_power_of_two();
    out[2 * i + 1] = a[i].ilog2();
}

#[test]
fn ilog2_of_zero_panics_and_next_power_of_two_wraps() -> ptx_dsl::runtime::Result<()> {
    use ptx_dsl::runtime::{Device, DeviceBuffer, Error, LaunchConfig};
    let dev = Device::sim();
    let a = dev.upload(&[200u32, 0x8000_0001])?;
    let mut out: DeviceBuffer<u32> = dev.zeroed(4)?;
    LogsAndPowers::new().launch(&dev, LaunchConfig::linear(1, 2), &a, &mut out)?;
    // 200u8 has no next power of two in `u8` (0) while 200u32 has 256; 0x01u8 gives 1 and
    // 0x8000_0001u32 has none in `u32` (0).
    assert_eq!(out.to_vec()?, [256, 7, 1, 31]);
    let zero = dev.upload(&[0u32])?;
    let err = LogsAndPowers::new().launch(&dev, LaunchConfig::linear(1, 1), &zero, &mut out).unwrap_err();
    assert!(
        matches!(&err, Error::KernelPanic { message, .. } if message == "argument of integer logarithm must be positive"),
        "{err}"
    );
    Ok(())
}

/// The same methods on a `#[comptime]` value, computed while the kernel is built (or by the
/// builder's folding, for those that can panic), give what the host's do.
#[ptx_kernel]
fn comptime_int_methods(out: &mut [u32], #[comptime] c: u32, #[comptime] s: i16) {
    out[0] = c.swap_bytes();
    out[1] = c.reverse_bits();
    out[2] = c.saturating_mul(c);
    out[3] = c.wrapping_div(7) ^ c.wrapping_rem(7);
    out[4] = c.ilog2() + c.count_zeros();
    out[5] = (c >> 1).next_power_of_two();
    out[6] = s.unsigned_abs() as u32 + s.wrapping_abs() as u32 + s.is_negative() as u32;
    out[7] = s.wrapping_div(-1) as u32 ^ s.saturating_mul(s) as u32;
}

#[test]
fn comptime_integer_methods_are_the_hosts() -> ptx_dsl::runtime::Result<()> {
    use ptx_dsl::runtime::{Device, DeviceBuffer, LaunchConfig};
    let dev = Device::sim();
    let mut out: DeviceBuffer<u32> = dev.zeroed(8)?;
    for (c, s) in [(0x1234_5678u32, i16::MIN), (0x8000_0001, -300), (1, 7)] {
        ComptimeIntMethods::new(c, s).launch(&dev, LaunchConfig::linear(1, 1), &mut out)?;
        let want = [
            c.swap_bytes(),
            c.reverse_bits(),
            c.saturating_mul(c),
            c.wrapping_div(7) ^ c.wrapping_rem(7),
            c.ilog2() + c.count_zeros(),
            (c >> 1).next_power_of_two(),
            // A kernel's `+` wraps, as in a release build.
            (s.unsigned_abs() as u32)
                .wrapping_add(s.wrapping_abs() as u32)
                .wrapping_add(s.is_negative() as u32),
            s.wrapping_div(-1) as u32 ^ s.saturating_mul(s) as u32,
        ];
        assert_eq!(out.to_vec()?, want, "c = {c:#x}, s = {s}");
    }
    Ok(())
}

// Rounded-up division and the next multiple (unsigned), by divisors that are not zero and
// do not let `next_multiple_of` pass the type (which panics in a debug build).
macro_rules! rounding_up {
    ($t:ident, $kernel:ident, $host:ident, $camel:ident, $test:ident) => {
        twin!($kernel, $host, |i, a: &[u64], out: &mut [u64]| {
            let (x, y) = (a[i] as $t, a[(i + 1) % a.len()] as $t);
            let d = (y >> 1) | 1;
            out[3 * i] = x.div_ceil(d) as u64;
            out[3 * i + 1] = (x >> 1).next_multiple_of(d) as u64;
            out[3 * i + 2] = x.div_ceil(y | 1) as u64 ^ (x & 7).next_multiple_of(8) as u64;
        });

        #[test]
        fn $test() {
            let xs = inputs(stringify!($kernel));
            let launch = |d: &_, c, a: &_, o: &mut _| $camel::new().launch(d, c, a, o);
            check_twin(stringify!($kernel), &xs, 3, &launch, $host);
        }
    };
}

rounding_up!(u8, round_up_u8, round_up_u8_host, RoundUpU8, u8_rounding_up_is_rusts);
rounding_up!(u16, round_up_u16, round_up_u16_host, RoundUpU16, u16_rounding_up_is_rusts);
rounding_up!(u32, round_up_u32, round_up_u32_host, RoundUpU32, u32_rounding_up_is_rusts);
rounding_up!(u64, round_up_u64, round_up_u64_host, RoundUpU64, u64_rounding_up_is_rusts);

// `is_normal` and `is_subnormal` on both float types, subnormals, zeros, infinities and
// NaN among the inputs (an f64 input narrowed to f32 too).
twin!(float_classes, float_classes_host, |i, a: &[f64], out: &mut [f64]| {
    let x = a[i];
    let y = x as f32;
    let classes = x.is_normal() as u32
        + 2 * x.is_subnormal() as u32
        + 4 * y.is_normal() as u32
        + 8 * y.is_subnormal() as u32;
    out[i] = classes as f64;
});

#[test]
fn float_classes_are_rusts() {
    let mut xs = f64_inputs("float_classes", 200);
    xs.extend([
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE / 2.0,
        f64::MIN_POSITIVE * (1.0 - f64::EPSILON),
        5e-324,
        f64::from(f32::MIN_POSITIVE),
        -f64::from(f32::MIN_POSITIVE) / 3.0,
        1e-45,
        1e-46,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
        1.0,
    ]);
    let launch = |d: &_, c, a: &_, o: &mut _| FloatClasses::new().launch(d, c, a, o);
    check_twin("float_classes", &xs, 1, &launch, float_classes_host);
}
