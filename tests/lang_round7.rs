//! A seventh round of kernels written against the README, each body run both as a
//! `#[ptx_kernel]` on the simulator and as plain Rust on the host: the integer methods on
//! every width (narrow types in 32-bit registers included), every `as` cast between the
//! scalar types at their edge values, the exact float methods on `f32` and `f64`, the
//! transcendental methods at their special values, division by literals and zero divisors,
//! ranges ending at their type's limits, literals typed by later uses, and loop conditions
//! with side effects, `continue` and `return`.
#![allow(
    clippy::precedence,
    clippy::needless_range_loop,
    clippy::unnecessary_cast,
    unused_braces,
    unused_labels
)]

use ptx_dsl::prelude::*;

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

twin!(narrow_bits, narrow_bits_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let y = a[(i * 7 + 3) % a.len()];
    let o = 24 * i;
    let (b, sb, h, sh) = (x as u8, x as i8, x as u16, x as i16);
    out[o] = b.leading_zeros() + 100 * b.trailing_zeros() + 10000 * b.count_ones();
    out[o + 1] = sb.leading_zeros() + 100 * sb.trailing_zeros() + 10000 * sb.count_ones();
    out[o + 2] = h.leading_zeros() + 100 * h.trailing_zeros() + 10000 * h.count_ones();
    out[o + 3] = sh.leading_zeros() + 100 * sh.trailing_zeros() + 10000 * sh.count_ones();
    out[o + 4] = b.wrapping_shl(y) as u32;
    out[o + 5] = sb.wrapping_shr(y) as u32;
    out[o + 6] = h.wrapping_shl(y) as u32;
    out[o + 7] = sh.wrapping_shr(y) as u32;
    out[o + 8] = b.wrapping_neg() as u32;
    out[o + 9] = sb.wrapping_neg() as u32;
    out[o + 10] = b.wrapping_mul(y as u8) as u32;
    out[o + 11] = sb.wrapping_mul(y as i8) as u32;
    out[o + 12] = sh.wrapping_add(y as i16) as u32;
    out[o + 13] = h.wrapping_sub(y as u16) as u32;
    out[o + 14] = b.wrapping_add(y as u8) as u32;
    out[o + 15] = sb.wrapping_sub(y as i8) as u32;
    out[o + 16] = sh.min(y as i16) as u32;
    out[o + 17] = sb.max(y as i8) as u32;
    out[o + 18] =
        (x as u64).leading_zeros() + 100 * (x as i64).trailing_zeros() + 10000 * (x as i64).count_ones();
    out[o + 19] =
        ((x as i32 as i64) << 17).leading_zeros() + 100 * ((x as i32 as i64).wrapping_shl(y)).count_ones();
    out[o + 20] = (x as i32).leading_zeros() + 100 * (x as i32).trailing_zeros();
    out[o + 21] = (x as usize).leading_zeros() + 100 * (x as isize).count_ones();
    out[o + 22] = (sb >> (y % 8)) as u32 ^ ((b >> (y % 8)) as u32) << 8;
    out[o + 23] = (sh.wrapping_shl(y) >> 3) as i32 as u32;
});

#[test]
fn narrow() {
    let xs = u32_inputs("narrow_bits", 300);
    check_twin("narrow_bits", &xs, 24, &|d, c, a, o| NarrowBits::new().launch(d, c, a, o), narrow_bits_host);
}

#[ptx_kernel]
fn narrow_release(a: &[u32], out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < a.len() {
        let x = a[i];
        let y = a[(i * 7 + 3) % a.len()];
        let o = 12 * i;
        let (b, sb, h, sh) = (x as u8, x as i8, x as u16, x as i16);
        out[o] = b.pow(y % 20) as u32;
        out[o + 1] = sb.pow(y % 20) as u32;
        out[o + 2] = h.pow(y % 40) as u32;
        out[o + 3] = sh.pow(y % 40) as u32;
        out[o + 4] = sb.abs() as u32;
        out[o + 5] = sh.abs() as u32;
        out[o + 6] = (x as i64).abs() as u32 ^ ((x as i32 as i64).abs() >> 32) as u32;
        out[o + 7] = (x as isize).abs() as u32;
        out[o + 8] = (x as i64).pow(y % 70) as u32 ^ ((x as i64).pow(y % 70) >> 32) as u32;
        out[o + 9] = (b + (y as u8)) as u32 ^ ((sb - (y as i8)) as u32) << 8;
        out[o + 10] = (sh * (y as i16)) as u32 ^ ((h * (y as u16)) as u32) << 16;
        out[o + 11] = (-sb) as u32 ^ ((-sh) as u32) << 8;
    }
}

fn narrow_release_host(i: usize, a: &[u32], out: &mut [u32]) {
    let x = a[i];
    let y = a[(i * 7 + 3) % a.len()];
    let o = 12 * i;
    let (b, sb, h, sh) = (x as u8, x as i8, x as u16, x as i16);
    out[o] = b.wrapping_pow(y % 20) as u32;
    out[o + 1] = sb.wrapping_pow(y % 20) as u32;
    out[o + 2] = h.wrapping_pow(y % 40) as u32;
    out[o + 3] = sh.wrapping_pow(y % 40) as u32;
    out[o + 4] = sb.wrapping_abs() as u32;
    out[o + 5] = sh.wrapping_abs() as u32;
    out[o + 6] = (x as i64).wrapping_abs() as u32 ^ ((x as i32 as i64).wrapping_abs() >> 32) as u32;
    out[o + 7] = (x as isize).wrapping_abs() as u32;
    out[o + 8] = (x as i64).wrapping_pow(y % 70) as u32 ^ ((x as i64).wrapping_pow(y % 70) >> 32) as u32;
    out[o + 9] = (b.wrapping_add(y as u8)) as u32 ^ ((sb.wrapping_sub(y as i8)) as u32) << 8;
    out[o + 10] = (sh.wrapping_mul(y as i16)) as u32 ^ ((h.wrapping_mul(y as u16)) as u32) << 16;
    out[o + 11] = (sb.wrapping_neg()) as u32 ^ ((sh.wrapping_neg()) as u32) << 8;
}

#[test]
fn narrow_release_ops() {
    let mut xs = u32_inputs("narrow_release", 300);
    xs.extend([0x80, 0x8000, 0xff80, 0xffff_8000, 0x7f, 0x81]);
    check_twin(
        "narrow_release",
        &xs,
        12,
        &|d, c, a, o| NarrowRelease::new().launch(d, c, a, o),
        narrow_release_host,
    );
}

twin!(all_casts, all_casts_host, |i, a: &[u64], out: &mut [u64]| {
    let b = a[i];
    let o = 154 * i;
    out[o + 0] = (b as u8) as u8 as u64;
    out[o + 1] = (b as u8) as i8 as u64;
    out[o + 2] = (b as u8) as u16 as u64;
    out[o + 3] = (b as u8) as i16 as u64;
    out[o + 4] = (b as u8) as u32 as u64;
    out[o + 5] = (b as u8) as i32 as u64;
    out[o + 6] = (b as u8) as u64 as u64;
    out[o + 7] = (b as u8) as i64 as u64;
    out[o + 8] = (b as u8) as usize as u64;
    out[o + 9] = (b as u8) as isize as u64;
    out[o + 10] = {
        let r = (b as u8) as f32;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 11] = {
        let r = (b as u8) as f64;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 12] = (b as i8) as u8 as u64;
    out[o + 13] = (b as i8) as i8 as u64;
    out[o + 14] = (b as i8) as u16 as u64;
    out[o + 15] = (b as i8) as i16 as u64;
    out[o + 16] = (b as i8) as u32 as u64;
    out[o + 17] = (b as i8) as i32 as u64;
    out[o + 18] = (b as i8) as u64 as u64;
    out[o + 19] = (b as i8) as i64 as u64;
    out[o + 20] = (b as i8) as usize as u64;
    out[o + 21] = (b as i8) as isize as u64;
    out[o + 22] = {
        let r = (b as i8) as f32;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 23] = {
        let r = (b as i8) as f64;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 24] = (b as u16) as u8 as u64;
    out[o + 25] = (b as u16) as i8 as u64;
    out[o + 26] = (b as u16) as u16 as u64;
    out[o + 27] = (b as u16) as i16 as u64;
    out[o + 28] = (b as u16) as u32 as u64;
    out[o + 29] = (b as u16) as i32 as u64;
    out[o + 30] = (b as u16) as u64 as u64;
    out[o + 31] = (b as u16) as i64 as u64;
    out[o + 32] = (b as u16) as usize as u64;
    out[o + 33] = (b as u16) as isize as u64;
    out[o + 34] = {
        let r = (b as u16) as f32;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 35] = {
        let r = (b as u16) as f64;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 36] = (b as i16) as u8 as u64;
    out[o + 37] = (b as i16) as i8 as u64;
    out[o + 38] = (b as i16) as u16 as u64;
    out[o + 39] = (b as i16) as i16 as u64;
    out[o + 40] = (b as i16) as u32 as u64;
    out[o + 41] = (b as i16) as i32 as u64;
    out[o + 42] = (b as i16) as u64 as u64;
    out[o + 43] = (b as i16) as i64 as u64;
    out[o + 44] = (b as i16) as usize as u64;
    out[o + 45] = (b as i16) as isize as u64;
    out[o + 46] = {
        let r = (b as i16) as f32;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 47] = {
        let r = (b as i16) as f64;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 48] = (b as u32) as u8 as u64;
    out[o + 49] = (b as u32) as i8 as u64;
    out[o + 50] = (b as u32) as u16 as u64;
    out[o + 51] = (b as u32) as i16 as u64;
    out[o + 52] = (b as u32) as u32 as u64;
    out[o + 53] = (b as u32) as i32 as u64;
    out[o + 54] = (b as u32) as u64 as u64;
    out[o + 55] = (b as u32) as i64 as u64;
    out[o + 56] = (b as u32) as usize as u64;
    out[o + 57] = (b as u32) as isize as u64;
    out[o + 58] = {
        let r = (b as u32) as f32;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 59] = {
        let r = (b as u32) as f64;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 60] = (b as i32) as u8 as u64;
    out[o + 61] = (b as i32) as i8 as u64;
    out[o + 62] = (b as i32) as u16 as u64;
    out[o + 63] = (b as i32) as i16 as u64;
    out[o + 64] = (b as i32) as u32 as u64;
    out[o + 65] = (b as i32) as i32 as u64;
    out[o + 66] = (b as i32) as u64 as u64;
    out[o + 67] = (b as i32) as i64 as u64;
    out[o + 68] = (b as i32) as usize as u64;
    out[o + 69] = (b as i32) as isize as u64;
    out[o + 70] = {
        let r = (b as i32) as f32;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 71] = {
        let r = (b as i32) as f64;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 72] = (b as u64) as u8 as u64;
    out[o + 73] = (b as u64) as i8 as u64;
    out[o + 74] = (b as u64) as u16 as u64;
    out[o + 75] = (b as u64) as i16 as u64;
    out[o + 76] = (b as u64) as u32 as u64;
    out[o + 77] = (b as u64) as i32 as u64;
    out[o + 78] = (b as u64) as u64 as u64;
    out[o + 79] = (b as u64) as i64 as u64;
    out[o + 80] = (b as u64) as usize as u64;
    out[o + 81] = (b as u64) as isize as u64;
    out[o + 82] = {
        let r = (b as u64) as f32;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 83] = {
        let r = (b as u64) as f64;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 84] = (b as i64) as u8 as u64;
    out[o + 85] = (b as i64) as i8 as u64;
    out[o + 86] = (b as i64) as u16 as u64;
    out[o + 87] = (b as i64) as i16 as u64;
    out[o + 88] = (b as i64) as u32 as u64;
    out[o + 89] = (b as i64) as i32 as u64;
    out[o + 90] = (b as i64) as u64 as u64;
    out[o + 91] = (b as i64) as i64 as u64;
    out[o + 92] = (b as i64) as usize as u64;
    out[o + 93] = (b as i64) as isize as u64;
    out[o + 94] = {
        let r = (b as i64) as f32;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 95] = {
        let r = (b as i64) as f64;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 96] = (b as usize) as u8 as u64;
    out[o + 97] = (b as usize) as i8 as u64;
    out[o + 98] = (b as usize) as u16 as u64;
    out[o + 99] = (b as usize) as i16 as u64;
    out[o + 100] = (b as usize) as u32 as u64;
    out[o + 101] = (b as usize) as i32 as u64;
    out[o + 102] = (b as usize) as u64 as u64;
    out[o + 103] = (b as usize) as i64 as u64;
    out[o + 104] = (b as usize) as usize as u64;
    out[o + 105] = (b as usize) as isize as u64;
    out[o + 106] = {
        let r = (b as usize) as f32;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 107] = {
        let r = (b as usize) as f64;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 108] = (b as isize) as u8 as u64;
    out[o + 109] = (b as isize) as i8 as u64;
    out[o + 110] = (b as isize) as u16 as u64;
    out[o + 111] = (b as isize) as i16 as u64;
    out[o + 112] = (b as isize) as u32 as u64;
    out[o + 113] = (b as isize) as i32 as u64;
    out[o + 114] = (b as isize) as u64 as u64;
    out[o + 115] = (b as isize) as i64 as u64;
    out[o + 116] = (b as isize) as usize as u64;
    out[o + 117] = (b as isize) as isize as u64;
    out[o + 118] = {
        let r = (b as isize) as f32;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 119] = {
        let r = (b as isize) as f64;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 120] = (f32::from_bits(b as u32)) as u8 as u64;
    out[o + 121] = (f32::from_bits(b as u32)) as i8 as u64;
    out[o + 122] = (f32::from_bits(b as u32)) as u16 as u64;
    out[o + 123] = (f32::from_bits(b as u32)) as i16 as u64;
    out[o + 124] = (f32::from_bits(b as u32)) as u32 as u64;
    out[o + 125] = (f32::from_bits(b as u32)) as i32 as u64;
    out[o + 126] = (f32::from_bits(b as u32)) as u64 as u64;
    out[o + 127] = (f32::from_bits(b as u32)) as i64 as u64;
    out[o + 128] = (f32::from_bits(b as u32)) as usize as u64;
    out[o + 129] = (f32::from_bits(b as u32)) as isize as u64;
    out[o + 130] = {
        let r = (f32::from_bits(b as u32)) as f32;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 131] = {
        let r = (f32::from_bits(b as u32)) as f64;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 132] = (f64::from_bits(b)) as u8 as u64;
    out[o + 133] = (f64::from_bits(b)) as i8 as u64;
    out[o + 134] = (f64::from_bits(b)) as u16 as u64;
    out[o + 135] = (f64::from_bits(b)) as i16 as u64;
    out[o + 136] = (f64::from_bits(b)) as u32 as u64;
    out[o + 137] = (f64::from_bits(b)) as i32 as u64;
    out[o + 138] = (f64::from_bits(b)) as u64 as u64;
    out[o + 139] = (f64::from_bits(b)) as i64 as u64;
    out[o + 140] = (f64::from_bits(b)) as usize as u64;
    out[o + 141] = (f64::from_bits(b)) as isize as u64;
    out[o + 142] = {
        let r = (f64::from_bits(b)) as f32;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 143] = {
        let r = (f64::from_bits(b)) as f64;
        if r.is_nan() {
            u64::MAX
        } else {
            r.to_bits() as u64
        }
    };
    out[o + 144] = (b & 1 == 1) as u8 as u64;
    out[o + 145] = (b & 1 == 1) as i8 as u64;
    out[o + 146] = (b & 1 == 1) as u16 as u64;
    out[o + 147] = (b & 1 == 1) as i16 as u64;
    out[o + 148] = (b & 1 == 1) as u32 as u64;
    out[o + 149] = (b & 1 == 1) as i32 as u64;
    out[o + 150] = (b & 1 == 1) as u64 as u64;
    out[o + 151] = (b & 1 == 1) as i64 as u64;
    out[o + 152] = (b & 1 == 1) as usize as u64;
    out[o + 153] = (b & 1 == 1) as isize as u64;
});

const ALL_CASTS_SLOTS: usize = 154;

fn cast_inputs() -> Vec<u64> {
    let mut xs = u64_inputs("all_casts", 200);
    let f64s = [
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        f64::MAX,
        f64::MIN,
        9223372036854775808.0,
        -9223372036854775808.0,
        -9223372036854777856.0,
        18446744073709551616.0,
        18446744073709549568.0,
        4294967296.0,
        4294967295.5,
        -2147483648.5,
        -2147483649.0,
        2147483647.5,
        0.49999999999999994,
        0.5,
        -0.5,
        1e300,
        16777217.0,
        9007199254740993.0,
        1.0 + f64::EPSILON / 2.0 * 0.5,
        1.0000000596046448,
        f64::from_bits(1.0000000596046448f64.to_bits() + 1),
        3.4028235677973366e38,
        3.4028235677973362e38,
        7.006492321624085e-46,
        7.006492321624087e-46,
        1.1754942807573643e-38,
        -1.401298464324817e-45,
        65535.99999,
        -32768.5,
        255.999,
        -128.999,
        -129.0,
        256.0,
        2.5,
        -1.5,
    ];
    xs.extend(f64s.iter().map(|f| f.to_bits()));
    let f32s = [
        f32::NAN.to_bits(),
        0xffc0_0001,
        0x7f80_0001,
        0xff80_0000,
        0x7f80_0000,
        0x8000_0000,
        1,
        0x8000_0001,
        f32::MAX.to_bits(),
        f32::MIN.to_bits(),
        0x3eff_ffff,
        0x4f00_0000,
        0xcf00_0000,
        0xcf00_0001,
        0x4f80_0000,
        0x4f7f_ffff,
        0x5f00_0000,
        0xdf00_0000,
        0xdf00_0001,
        0x5f80_0000,
        0x5f7f_ffff,
        255.5f32.to_bits(),
        (-128.5f32).to_bits(),
        65535.9f32.to_bits(),
        (-32768.9f32).to_bits(),
        (-0.99f32).to_bits(),
        0.99f32.to_bits(),
        16777216.0f32.to_bits(),
        0x007f_ffff,
    ];
    for (k, f) in f32s.iter().enumerate() {
        xs.push(*f as u64);
        xs.push(*f as u64 | (0x9e37_79b9_u64 << 32).wrapping_mul(k as u64 + 1));
    }
    xs
}

#[test]
fn every_cast_pair() {
    let xs = cast_inputs();
    check_twin(
        "all_casts",
        &xs,
        ALL_CASTS_SLOTS,
        &|d, c, a, o| AllCasts::new().launch(d, c, a, o),
        all_casts_host,
    );
}

twin!(f64_zoo, f64_zoo_host, |i, a: &[f64], out: &mut [f64]| {
    let x = a[i];
    let y = a[(i * 7 + 3) % a.len()];
    let o = 32 * i;
    out[o] = x.floor();
    out[o + 1] = x.ceil();
    out[o + 2] = x.round();
    out[o + 3] = x.round_ties_even();
    out[o + 4] = x.trunc();
    out[o + 5] = x.fract();
    out[o + 6] = x.abs();
    out[o + 7] = x.signum();
    out[o + 8] = x.copysign(y);
    out[o + 9] = x.mul_add(y, x);
    out[o + 10] = x.sqrt();
    out[o + 11] = x.recip();
    out[o + 12] = x.to_degrees();
    out[o + 13] = x.to_radians();
    out[o + 14] = x.powi(3);
    out[o + 15] = x.powi(-7);
    out[o + 16] = x.powi((y as i32).wrapping_mul(65599));
    out[o + 17] = x.clamp(-2.5, 1e10);
    out[o + 18] = x % y;
    out[o + 19] = x / y;
    out[o + 20] = if x.max(y) == 0.0 { 0.0 } else { x.max(y) };
    out[o + 21] = if x.min(y) == 0.0 { 0.0 } else { x.min(y) };
    out[o + 22] = ((x.is_nan() as u32)
        | (x.is_finite() as u32) << 1
        | (x.is_infinite() as u32) << 2
        | (x.is_sign_negative() as u32) << 3
        | (x.is_sign_positive() as u32) << 4
        | ((x == y) as u32) << 5
        | ((x != y) as u32) << 6
        | ((x < y) as u32) << 7
        | ((x >= y) as u32) << 8) as f64;
    out[o + 23] = f64::from_bits(x.to_bits() ^ 1);
    out[o + 24] = -x;
    out[o + 25] = x.powi(i32::MIN);
    out[o + 26] = x.powi(i32::MAX);
    out[o + 27] = x.powi(0);
    out[o + 28] = (x as f32).powi(-3) as f64;
    out[o + 29] = (x as f32).copysign(if y.is_sign_negative() { -0.0f32 } else { 0.0 }) as f64;
    out[o + 30] = (x as f32).signum() as f64 + (y as f32).fract() as f64;
    out[o + 31] = (x - x.trunc()) + (x.mul_add(-1.0, x));
});

#[test]
fn f64_exact_zoo() {
    let mut xs = f64_inputs("f64_zoo", 400);
    xs.extend([-f64::NAN, f64::from_bits(0x7ff0_0000_0000_0001), 4503599627370495.5, -4503599627370496.5]);
    xs.extend([0.49999999999999994, -0.49999999999999994, 1.5, -1.5, 2.5, -2.5, 1e-320, -1e-320]);
    check_twin("f64_zoo", &xs, 32, &|d, c, a, o| F64Zoo::new().launch(d, c, a, o), f64_zoo_host);
}

fn ulps32(a: f32, b: f32) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() { 0 } else { u64::MAX };
    }
    if a == b {
        return if a.to_bits() == b.to_bits() { 0 } else { u64::MAX }; // ±0
    }
    let k = |x: f32| {
        if x.to_bits() >> 31 == 1 {
            -((x.to_bits() & 0x7fff_ffff) as i64)
        } else {
            x.to_bits() as i64
        }
    };
    (k(a) - k(b)).unsigned_abs()
}
fn ulps64(a: f64, b: f64) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() { 0 } else { u64::MAX };
    }
    if a == b {
        return if a.to_bits() == b.to_bits() { 0 } else { u64::MAX };
    }
    let k = |x: f64| {
        if x.to_bits() >> 63 == 1 {
            -((x.to_bits() & !(1u64 << 63)) as i128)
        } else {
            x.to_bits() as i128
        }
    };
    (k(a) - k(b)).unsigned_abs() as u64
}

macro_rules! trans_body {
    ($x:ident, $y:ident, $out:ident, $o:ident) => {{
        $out[$o] = $x.exp();
        $out[$o + 1] = $x.exp2();
        $out[$o + 2] = $x.ln();
        $out[$o + 3] = $x.log2();
        $out[$o + 4] = $x.hypot($y);
        $out[$o + 5] = $x.atan2($y);
        $out[$o + 6] = $x.sin();
        $out[$o + 7] = $x.cos();
        $out[$o + 8] = $x.tan();
        $out[$o + 9] = $x.powf($y);
        $out[$o + 10] = $x.tanh();
        $out[$o + 11] = $x.cbrt();
        $out[$o + 12] = $x.exp_m1();
        $out[$o + 13] = $x.ln_1p();
        $out[$o + 14] = $x.sinh();
        $out[$o + 15] = $x.cosh();
        $out[$o + 16] = $x.asin();
        $out[$o + 17] = $x.acos();
        $out[$o + 18] = $x.atan();
        $out[$o + 19] = $x.sin_cos().1;
    }};
}

#[ptx_kernel]
fn trans32(a: &[f32], b: &[f32], out: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < a.len() {
        let (x, y) = (a[i], b[i]);
        let o = 20 * i;
        out[o] = x.exp();
        out[o + 1] = x.exp2();
        out[o + 2] = x.ln();
        out[o + 3] = x.log2();
        out[o + 4] = x.hypot(y);
        out[o + 5] = x.atan2(y);
        out[o + 6] = x.sin();
        out[o + 7] = x.cos();
        out[o + 8] = x.tan();
        out[o + 9] = x.powf(y);
        out[o + 10] = x.tanh();
        out[o + 11] = x.cbrt();
        out[o + 12] = x.exp_m1();
        out[o + 13] = x.ln_1p();
        out[o + 14] = x.sinh();
        out[o + 15] = x.cosh();
        out[o + 16] = x.asin();
        out[o + 17] = x.acos();
        out[o + 18] = x.atan();
        out[o + 19] = x.sin_cos().1;
    }
}

#[ptx_kernel]
fn trans64(a: &[f64], b: &[f64], out: &mut [f64]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < a.len() {
        let (x, y) = (a[i], b[i]);
        let o = 20 * i;
        out[o] = x.exp();
        out[o + 1] = x.exp2();
        out[o + 2] = x.ln();
        out[o + 3] = x.log2();
        out[o + 4] = x.hypot(y);
        out[o + 5] = x.atan2(y);
        out[o + 6] = x.sin();
        out[o + 7] = x.cos();
        out[o + 8] = x.tan();
        out[o + 9] = x.powf(y);
        out[o + 10] = x.tanh();
        out[o + 11] = x.cbrt();
        out[o + 12] = x.exp_m1();
        out[o + 13] = x.ln_1p();
        out[o + 14] = x.sinh();
        out[o + 15] = x.cosh();
        out[o + 16] = x.asin();
        out[o + 17] = x.acos();
        out[o + 18] = x.atan();
        out[o + 19] = x.sin_cos().1;
    }
}

const NAMES: [&str; 20] = [
    "exp",
    "exp2",
    "ln",
    "log2",
    "hypot",
    "atan2",
    "sin",
    "cos",
    "tan",
    "powf",
    "tanh",
    "cbrt",
    "exp_m1",
    "ln_1p",
    "sinh",
    "cosh",
    "asin",
    "acos",
    "atan",
    "sin_cos.1",
];

#[test]
fn transcendental_specials_f32() -> ptx_dsl::runtime::Result<()> {
    use ptx_dsl::runtime::{Device, LaunchConfig};
    let edges = [
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
        0.25,
        8.0,
        1024.0,
        1e-45,
        -1e-45,
        1e-40,
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        88.72283,
        88.72284,
        -87.33655,
        -103.97208,
        -103.9721,
        -149.0,
        -150.0,
        127.99999,
        128.0,
        -126.0,
        1e10,
        -1e10,
        1e30,
        3.0e38,
        std::f32::consts::PI,
        std::f32::consts::FRAC_PI_2,
        0.99999994,
        1.0000001,
        -0.99999994,
        1e-8,
        20.0,
        9.0,
        0.33333334,
        1.5,
        -1.5,
        126.0,
        -1.0e-30,
        100.0,
        89.0,
        -89.0,
        9.5,
        16777216.0,
        16777217.0,
        1e-20,
    ];
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for &x in &edges {
        for &y in &edges {
            xs.push(x);
            ys.push(y);
        }
    }
    let dev = Device::sim();
    let (a, b) = (dev.upload(&xs)?, dev.upload(&ys)?);
    let mut out = dev.zeroed::<f32>(xs.len() * 20)?;
    Trans32::new().launch(&dev, LaunchConfig::for_elements(xs.len(), 64), &a, &b, &mut out)?;
    let got = out.to_vec()?;
    let mut bad = Vec::new();
    for i in 0..xs.len() {
        let (x, y) = (xs[i], ys[i]);
        let mut want = [0.0f32; 20];
        let o = 0;
        trans_body!(x, y, want, o);
        for k in 0..20 {
            let (g, w) = (got[20 * i + k], want[k]);
            let exactish = w.is_nan() || w.is_infinite() || w == 0.0 || w == w.trunc() && w.abs() <= 1024.0;
            let d = ulps32(g, w);
            let tol = if exactish {
                0
            } else if k == 3 {
                3
            } else {
                2
            };
            if d > tol {
                bad.push(format!(
                    "{}({x:e}, {y:e}): kernel {g:e} ({:#x}), host {w:e} ({:#x}), {d} ulp",
                    NAMES[k],
                    g.to_bits(),
                    w.to_bits()
                ));
            }
        }
    }
    bad.sort();
    bad.dedup();
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
    Ok(())
}

#[test]
fn transcendental_specials_f64() -> ptx_dsl::runtime::Result<()> {
    use ptx_dsl::runtime::{Device, LaunchConfig};
    let edges = [
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
        0.25,
        8.0,
        1024.0,
        5e-324,
        -5e-324,
        1e-310,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        709.782712893384,
        709.7827128933841,
        -708.3964185322641,
        -745.1332191019411,
        -745.1332191019412,
        -1074.0,
        -1075.0,
        1023.9999999999999,
        1024.0,
        -1022.0,
        1e10,
        -1e10,
        1e300,
        1e22,
        std::f64::consts::PI,
        std::f64::consts::FRAC_PI_2,
        0.9999999999999999,
        1.0000000000000002,
        -0.9999999999999999,
        1e-17,
        40.0,
        9.0,
        1.0 / 3.0,
        1.5,
        -1.5,
        1022.0,
        -1e-300,
        100.0,
        711.0,
        -711.0,
        9.5,
        9007199254740992.0,
        1e-20,
    ];
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for &x in &edges {
        for &y in &edges {
            xs.push(x);
            ys.push(y);
        }
    }
    let dev = Device::sim();
    let (a, b) = (dev.upload(&xs)?, dev.upload(&ys)?);
    let mut out = dev.zeroed::<f64>(xs.len() * 20)?;
    Trans64::new().launch(&dev, LaunchConfig::for_elements(xs.len(), 64), &a, &b, &mut out)?;
    let got = out.to_vec()?;
    let mut bad = Vec::new();
    for i in 0..xs.len() {
        let (x, y) = (xs[i], ys[i]);
        let mut want = [0.0f64; 20];
        let o = 0;
        trans_body!(x, y, want, o);
        for k in 0..20 {
            let (g, w) = (got[20 * i + k], want[k]);
            let exactish = w.is_nan() || w.is_infinite() || w == 0.0 || w == w.trunc() && w.abs() <= 1024.0;
            let d = ulps64(g, w);
            let tol = if exactish { 0 } else { 2 };
            if d > tol {
                bad.push(format!(
                    "{}({x:e}, {y:e}): kernel {g:e} ({:#x}), host {w:e} ({:#x}), {d} ulp",
                    NAMES[k],
                    g.to_bits(),
                    w.to_bits()
                ));
            }
        }
    }
    bad.sort();
    bad.dedup();
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
    Ok(())
}

twin!(flow7, flow7_host, |i, a: &[i32], out: &mut [i32]| {
    let o = 8 * i;
    let n = a.len();
    // A `while` whose condition counts and loads, short-circuited.
    let mut count = 0;
    let mut j = i;
    while j < n && {
        count += 1;
        a[j] > 0
    } || count < 3 && {
        count += 10;
        j + 1 < n
    } {
        j += 1;
        if count > 200 {
            break;
        }
    }
    out[o] = count;
    out[o + 1] = j as i32;
    // Labeled break/continue out of nested loops.
    let mut acc = 0i32;
    'outer: for p in 0..8usize {
        let mut q = 0usize;
        'inner: loop {
            q += 1;
            if q > 6 {
                break 'inner;
            }
            let v = a[(i + p * 3 + q) % n];
            if v % 5 == 0 {
                continue 'outer;
            }
            if v % 7 == 0 {
                break 'outer;
            }
            while q < 4 {
                if v & 1 == 1 {
                    continue 'inner;
                }
                acc = acc.wrapping_add(v >> 3);
                q += 1;
            }
            acc ^= q as i32;
        }
        acc = acc.wrapping_mul(3);
    }
    out[o + 2] = acc;
    // Shadowing inside loops.
    let x = a[i];
    let mut s = 0i32;
    for k in 0..4 {
        let x = x.wrapping_add(k);
        let x = x >> 1;
        s = s.wrapping_add(x);
        let s = s ^ 1;
        out[o + 3] = s;
    }
    out[o + 4] = s.wrapping_add(x);
    // A loop whose bound changes inside the body: the range is evaluated once, the `while`
    // condition every time.
    let mut m = (x & 15) as usize;
    let mut it = 0;
    for _ in 0..m {
        m += 1;
        it += 1;
    }
    let mut w = 0usize;
    while w < m {
        m -= 1;
        w += 1;
    }
    out[o + 5] = (it * 1000 + w * 10) as i32 + m as i32;
    // A `for` loop over a range whose end is a mutable variable shadowed inside.
    let mut e = 5i32;
    for k in (0..e).rev() {
        let e = k * 2;
        out[o + 6] = out[o + 6].wrapping_add(e);
    }
    e += out[o + 6];
    // An early return inside nested loops.
    for p in 0..5 {
        for q in p..5 {
            if (x.wrapping_add(p * 5 + q)) % 11 == 0 {
                out[o + 7] = p * 10 + q + e;
                return;
            }
        }
    }
    out[o + 7] = -1;
});

#[test]
fn control_flow_round7() {
    let xs = i32_inputs("flow7", 300);
    check_twin("flow7", &xs, 8, &|d, c, a, o| Flow7::new().launch(d, c, a, o), flow7_host);
}

twin!(literal_divisors, literal_divisors_host, |i, a: &[u64], out: &mut [i64]| {
    let x = a[i];
    let o = 24 * i;
    let (b, sb, h, sh, w, sw, l, sl) =
        (x as u8, x as i8, x as u16, x as i16, x as u32, x as i32, x, x as i64);
    out[o] = (sb / 4) as i64 * 1000 + (sb % 4) as i64;
    out[o + 1] = (sb / -8) as i64 * 1000 + (sb % -8) as i64;
    out[o + 2] = (b / 3) as i64 * 1000 + (b % 3) as i64;
    out[o + 3] = (sh / 16) as i64 * 1000 + (sh % 16) as i64;
    out[o + 4] = (sh / 7) as i64 * 1000 + (sh % -7) as i64;
    out[o + 5] = (h / 256) as i64 * 1000 + (h % 1000) as i64;
    out[o + 6] = (sw / 2) as i64 * 1000 + (sw % 2) as i64;
    out[o + 7] = (sw / 1024) as i64 * 1000 + (sw % 1024) as i64;
    out[o + 8] = (sw / -3) as i64 * 1000 + (sw % 10) as i64;
    out[o + 9] = (w / 7) as i64 * 1000 + (w % 0x8000_0000) as i64;
    out[o + 10] = (sl / 2) + (sl % 2);
    out[o + 11] = (sl / 1_000_000_007) ^ (sl % 1_000_000_007);
    out[o + 12] = (sl / (1 << 40)) ^ (sl % (1 << 40));
    out[o + 13] = (l / 3) as i64 ^ (l % 10) as i64;
    out[o + 14] = (l / 0x8000_0000_0000_0000) as i64 ^ (l % 0x8000_0000_0000_0000) as i64;
    out[o + 15] = (sl / i64::MAX) ^ (sl % i64::MAX);
    out[o + 16] = (sl / -1).wrapping_add(0);
    out[o + 17] = (sw / i32::MIN) as i64 ^ (sw % i32::MIN) as i64;
    out[o + 18] = (sl / 1) ^ (sl % 1);
    out[o + 19] = (sb / 1) as i64 ^ (sb / -1 + 0) as i64;
    out[o + 20] = (l / u64::MAX) as i64 ^ (l % u64::MAX) as i64;
    out[o + 21] = (sh / -32768) as i64 ^ (sh % i16::MIN) as i64;
    out[o + 22] = (sb / -128) as i64 ^ (sb % -128) as i64;
    out[o + 23] = (sl / -(1 << 62)) ^ (sl % -(1 << 62));
});

#[test]
fn division_by_literals_in_every_width() {
    let mut xs = u64_inputs("literal_divisors", 400);
    xs.retain(|&x| x as i64 != i64::MIN && x as i32 != i32::MIN && x as i8 != i8::MIN);
    xs.extend([
        -1i64 as u64,
        -7i64 as u64,
        -8i64 as u64,
        -1023i64 as u64,
        -1025i64 as u64,
        -(1i64 << 40) as u64,
        i64::MIN as u64 + 1,
    ]);
    check_twin(
        "literal_divisors",
        &xs,
        24,
        &|d, c, a, o| LiteralDivisors::new().launch(d, c, a, o),
        literal_divisors_host,
    );
}

twin!(range_ends, range_ends_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let o = 12 * i;
    let mut n = 0u32;
    for k in (x | 0xffff_fff0)..=u32::MAX {
        n = n.wrapping_add(k & 0xff);
    }
    out[o] = n;
    let mut c = 0u32;
    for k in (x as u8 | 0xf0)..=255u8 {
        c += k as u32;
    }
    out[o + 1] = c;
    c = 0;
    for k in ((x % 4) as u32..u32::MAX).step_by(1 << 31) {
        c = c.wrapping_add(k).wrapping_add(1);
    }
    out[o + 2] = c;
    c = 0;
    for k in ((x as i64 - 8).max(i64::MAX - 40)..=i64::MAX).step_by(3) {
        c = c.wrapping_add(k as u32);
    }
    out[o + 3] = c;
    c = 0;
    for k in (i8::MIN..=(x as i8).min(-120)).rev() {
        c = c.wrapping_mul(3).wrapping_add(k as u32);
    }
    out[o + 4] = c;
    c = 0;
    for k in (i32::MIN..(x as i32 | i32::MIN) & (i32::MIN + 50)).rev().step_by(7) {
        c = c.wrapping_mul(5).wrapping_add(k as u32);
    }
    out[o + 5] = c;
    c = 0;
    for k in (0..(x & 0xff) as u8).step_by(200) {
        c = c * 7 + k as u32 + 1;
    }
    out[o + 6] = c;
    c = 0;
    for k in ((x as u16 | 0xff00)..=u16::MAX).step_by(100) {
        c = c.wrapping_mul(3) + k as u32;
    }
    out[o + 7] = c;
    c = 0;
    for mut k in 0..(x % 10) {
        k += 100;
        c = c.wrapping_add(k);
    }
    out[o + 8] = c;
    c = 0;
    for k in ((x as u64)..=u64::MAX).rev().step_by(1 << 62) {
        c = c.wrapping_add((k >> 40) as u32);
    }
    out[o + 9] = c;
    c = 0;
    for k in (u32::MAX - 5..=u32::MAX).step_by(x as usize % 9 + 1) {
        c = c * 3 + (k & 0xf);
    }
    out[o + 10] = c;
    c = 0;
    for k in ((x % 300) as usize..=usize::MAX).step_by(usize::MAX / 3) {
        c = c * 3 + (k % 1000) as u32 + 1;
    }
    out[o + 11] = c;
});

#[test]
fn ranges_at_the_ends_of_their_types() {
    let xs = u32_inputs("range_ends", 200);
    check_twin("range_ends", &xs, 12, &|d, c, a, o| RangeEnds::new().launch(d, c, a, o), range_ends_host);
}

twin!(guarded_faults, guarded_faults_host, |i, a: &[i32], out: &mut [i32]| {
    let x = a[i];
    let y = a[(i * 3 + 1) % a.len()] % 4;
    let o = 6 * i;
    // `i32::MIN / -1` and `i32::MIN % -1` panic in Rust too: every division is guarded
    // against a zero divisor and against -1.
    out[o] = (y != 0 && y != -1 && x / y > 2) as i32;
    out[o + 1] = (y == 0 || y == -1 || x % y == 1) as i32
        + 2 * (!(y == 0 || y == -1) && (x as i8 / y as i8) < 0) as i32;
    out[o + 2] = if y == 0 || y == -1 { 7 } else { x / y };
    let mut k = 0;
    while k < 3 && (y == 0 || y == -1 || (x >> k) % y != 0) {
        k += 1;
    }
    out[o + 3] = k;
    let d = (y as u8).wrapping_sub(1);
    out[o + 4] = if d != 0 && d != 255 { (x as u8 % d) as i32 } else { -1 };
    out[o + 5] = if y != 0 && !(x == i32::MIN && y == -1) { x.wrapping_add(x / y) } else { x };
});

#[test]
fn divisions_behind_guards_never_fault() {
    let xs = i32_inputs("guarded_faults", 400);
    check_twin(
        "guarded_faults",
        &xs,
        6,
        &|d, c, a, o| GuardedFaults::new().launch(d, c, a, o),
        guarded_faults_host,
    );
}

#[ptx_kernel]
fn zero_divisors(a: &[u32], out: &mut [u32], which: u32) {
    let x = a[0];
    let z = a[1];
    if which == 0 {
        let mut b = x as u8;
        b /= z as u8;
        out[0] = b as u32;
    } else if which == 1 {
        out[0] = ((x as u16) % (z as u16)) as u32;
    } else if which == 2 {
        let mut k = 0u32;
        while k < 10 && x % (z + k) == 0 {
            k += 1;
        }
        out[0] = k;
    } else if which == 3 {
        out[0] = ((x as u64) / (z as u64 >> 1)) as u32;
    } else {
        out[0] = ((x as i8) % (z as i8)) as u32;
    }
}

#[test]
fn zero_divisors_are_kernel_panics_naming_the_line() -> ptx_dsl::runtime::Result<()> {
    use ptx_dsl::runtime::{Device, Error, LaunchConfig};
    let dev = Device::sim();
    let src = include_str!("lang_round7.rs");
    let start = src.find("fn zero_divisors(").unwrap();
    for (which, needle) in [
        (0u32, "b /= z as u8"),
        (1, "(x as u16) % (z as u16)"),
        (2, "x % (z + k)"),
        (3, "(z as u64 >> 1)"),
        (4, "(x as i8) % (z as i8)"),
    ] {
        let line =
            1 + src[..start].lines().count() + src[start..].lines().position(|l| l.contains(needle)).unwrap();
        let mut out = dev.zeroed::<u32>(1)?;
        let z = [0x100u32, 0x1_0000, 0, 1, 0x300][which as usize];
        let r = ZeroDivisors::new().launch(
            &dev,
            LaunchConfig::linear(1, 1),
            &dev.upload(&[5u32, z])?,
            &mut out,
            which,
        );
        match r {
            Err(Error::KernelPanic { kernel, message, location }) => {
                assert_eq!(kernel, "zero_divisors");
                assert!(message.contains("zero"), "{which}: {message}");
                assert!(
                    location.contains(&format!("lang_round7.rs:{line}:")),
                    "{which}: {location} is not line {line}"
                );
            }
            other => panic!("{which}: expected a kernel panic, got {other:?}"),
        }
    }
    Ok(())
}

twin!(inferred_later, inferred_later_host, |i, a: &[f32], out: &mut [f32]| {
    let o = 8 * i;
    // Literals typed by a later use, as rustc infers them.
    let mut s = 0.0;
    let mut k = i;
    while k < a.len() && k < i + 9 {
        s += a[k] * 1.0000001;
        k += 1;
    }
    out[o] = s;
    let mut acc = 0;
    for j in 0..a.len().min(5) {
        acc += (a[(i + j) % a.len()].to_bits() as u64) << 20;
    }
    out[o + 1] = acc as f32;
    let m = 1 << 40;
    let y: i64 = m + i as i64;
    out[o + 2] = y as f32;
    let t = 0.1;
    let u: f64 = t;
    out[o + 3] = (u * 3.0) as f32 + (t as f32 - 0.1f32);
    let c = if a[i] > 0.0 { 1.5 } else { -2.5 };
    out[o + 4] = c * a[i];
    let mut p = 1;
    for _ in 0..3 {
        p = p * 3;
    }
    let q: u8 = p;
    out[o + 5] = q as f32;
    let a = a[i];
    let a = a as f64 * 0.1;
    out[o + 6] = a as f32;
    let z = 16777217;
    out[o + 7] = z as f32 + (i as f32);
});

#[test]
fn literals_typed_by_later_uses() {
    let xs = f32_inputs("inferred_later", 300);
    check_twin(
        "inferred_later",
        &xs,
        8,
        &|d, c, a, o| InferredLater::new().launch(d, c, a, o),
        inferred_later_host,
    );
}

twin!(consts_and_literal_receivers, consts_and_literal_receivers_host, |i, a: &[f64], out: &mut [f64]| {
    let x = a[i];
    let o = 16 * i;
    out[o] = 2.0f64.sqrt() * x + 10f64.ln();
    out[o + 1] = (1u32.leading_zeros() + u32::BITS + i16::BITS + (-5i32).abs() as u32) as f64;
    out[o + 2] = f64::MAX.sqrt() + f64::NAN.max(x) + f64::EPSILON * f64::MIN_POSITIVE;
    out[o + 3] = (i8::MIN as i32) as f64 + isize::MIN as f64 + usize::MAX as f64 + u8::MAX as f64;
    out[o + 4] = std::f64::consts::LN_10 * core::f64::consts::E
        + std::f64::consts::SQRT_2
        + std::f64::consts::FRAC_1_SQRT_2;
    out[o + 5] = f64::INFINITY.min(x) + f64::NEG_INFINITY.max(x);
    out[o + 6] = (f32::MAX as f64) + (f32::MIN_POSITIVE as f64) + (f32::EPSILON as f64) + f32::MIN as f64;
    out[o + 7] = f64::from(u32::MAX) + f64::from(i32::MIN) + f64::from(-1.5f32) + f64::from(true as u8);
    // (An integral exponent: `powf` is within 1 ulp, not always the host's bits, so a
    // random one made this bit-for-bit comparison fail now and then.)
    out[o + 8] = 3.0f64.powi(40) + 0.5f64.powf(x.trunc()) + 2.0f64.powf(-1074.0);
    out[o + 9] = f64::MIN.abs() + (-0.0f64).signum() + 0.0f64.signum() + (-0.0f64).sqrt() + (-0.0f64).recip();
    out[o + 10] = i64::MAX as f64 + (i64::MAX as f32) as f64 + (u64::MAX as f32) as f64;
    out[o + 11] = (x as f32).mul_add(f32::MAX, f32::MIN) as f64;
    out[o + 12] = f64::from_bits(0x7ff0_0000_0000_0001).is_nan() as u32 as f64 + f64::from_bits(1);
    out[o + 13] = (-1.0f64).atan2(-0.0) + (0.0f64).atan2(-0.0) + (-0.0f64).atan2(-0.0);
    out[o + 14] = (-8.0f64).cbrt() + (-0.0f64).cbrt() + (1e-320f64).cbrt();
    out[o + 15] =
        (-1.0f64).powf(f64::INFINITY) + (-1.0f64).powf(1e300) + f64::NAN.powf(0.0) + 1.0f64.powf(f64::NAN);
});

#[test]
fn constants_and_methods_on_literals() {
    let xs = f64_inputs("consts_lit", 100);
    check_twin(
        "consts_lit",
        &xs,
        16,
        &|d, c, a, o| ConstsAndLiteralReceivers::new().launch(d, c, a, o),
        consts_and_literal_receivers_host,
    );
}

twin!(f32_zoo, f32_zoo_host, |i, a: &[f32], out: &mut [f32]| {
    let x = a[i];
    let y = a[(i * 7 + 3) % a.len()];
    let o = 32 * i;
    out[o] = x.floor();
    out[o + 1] = x.ceil();
    out[o + 2] = x.round();
    out[o + 3] = x.round_ties_even();
    out[o + 4] = x.trunc();
    out[o + 5] = x.fract();
    out[o + 6] = x.abs();
    out[o + 7] = x.signum();
    out[o + 8] = x.copysign(y);
    out[o + 9] = x.mul_add(y, x);
    out[o + 10] = x.sqrt();
    out[o + 11] = x.recip();
    out[o + 12] = x.to_degrees();
    out[o + 13] = x.to_radians();
    out[o + 14] = x.powi(3);
    out[o + 15] = x.powi(-7);
    out[o + 16] = x.powi((y as i32).wrapping_mul(65599));
    out[o + 17] = x.clamp(-2.5, 1e10);
    out[o + 18] = x % y;
    out[o + 19] = x / y;
    out[o + 20] = if x.max(y) == 0.0 { 0.0 } else { x.max(y) };
    out[o + 21] = if x.min(y) == 0.0 { 0.0 } else { x.min(y) };
    out[o + 22] = ((x.is_nan() as u32)
        | (x.is_finite() as u32) << 1
        | (x.is_infinite() as u32) << 2
        | (x.is_sign_negative() as u32) << 3
        | (x.is_sign_positive() as u32) << 4
        | ((x == y) as u32) << 5
        | ((x != y) as u32) << 6
        | ((x < y) as u32) << 7
        | ((x >= y) as u32) << 8) as f32;
    out[o + 23] = f32::from_bits(x.to_bits() ^ 1);
    out[o + 24] = -x;
    out[o + 25] = x.powi(i32::MIN);
    out[o + 26] = x.powi(i32::MAX);
    out[o + 27] = x.powi(0);
    out[o + 28] = (x as f32).powi(-3) as f32;
    out[o + 29] = (x as f32).copysign(if y.is_sign_negative() { -0.0f32 } else { 0.0 }) as f32;
    out[o + 30] = (x as f64).signum() as f32 + (y as f64).fract() as f32;
    out[o + 31] = (x - x.trunc()) + (x.mul_add(-1.0, x));
});

#[test]
fn f32_exact_zoo() {
    let mut xs = f32_inputs("f32_zoo", 400);
    xs.extend([
        -f32::NAN,
        f32::from_bits(0x7f80_0001),
        4194303.5,
        -4194304.5,
        8388607.5,
        -8388607.5,
        0.5000001,
    ]);
    check_twin("f32_zoo", &xs, 32, &|d, c, a, o| F32Zoo::new().launch(d, c, a, o), f32_zoo_host);
}

twin!(conditions_with_effects, conditions_with_effects_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let o = 4 * i;
    let mut c = 0u32;
    let mut s = 0u32;
    while {
        c += 1;
        c < 10 + (x & 7)
    } {
        if c % 3 == 0 {
            continue;
        }
        s = s.wrapping_mul(31).wrapping_add(c ^ x);
    }
    out[o] = s;
    out[o + 1] = c;
    let mut n = 0u32;
    let mut k = 0usize;
    while k < a.len() && {
        n += 1;
        if n > 40 {
            out[o + 2] = n + 1000;
            return;
        }
        a[k] != x || k == i
    } {
        k += 1 + (x as usize & 3);
    }
    out[o + 2] = n;
    out[o + 3] = k as u32;
});

#[test]
fn loop_conditions_with_side_effects_and_returns() {
    let xs = u32_inputs("conditions_with_effects", 300);
    check_twin(
        "conditions_with_effects",
        &xs,
        4,
        &|d, c, a, o| ConditionsWithEffects::new().launch(d, c, a, o),
        conditions_with_effects_host,
    );
}
