//! Instruction forms on random operands, compared bit for bit with an independent Rust
//! evaluation (wrapping integer ops, host floats, and for directed rounding a reference
//! computed from exact f64 arithmetic or error terms).

#![allow(clippy::needless_range_loop, clippy::manual_checked_ops)]

mod common;

use common::{exact_zero_sum, map3, two_sum_err, Step};
use ptx_core::ir::{BinaryOp, UnaryOp};
use ptx_core::{Bf16, Cmp, CvtRound, FloatMode, B16, F16, F32, F64, S16, S32, S64, U16, U32, U64};
use ptx_tools::rng::Rng;

const N: usize = 1024;

fn ints(r: &mut Rng, bits: u32) -> Vec<u64> {
    let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    (0..N)
        .map(|i| match i % 8 {
            0 => 0,
            1 => mask,
            2 => 1 << (bits - 1),
            3 => r.next() % 40,
            _ => r.next() & mask,
        })
        .collect()
}

fn sx(v: u64, bits: u32) -> i64 {
    ((v << (64 - bits)) as i64) >> (64 - bits)
}

fn check(name: &str, got: &[u64], a: &[u64], b: &[u64], f: impl Fn(u64, u64) -> u64) {
    for i in 0..got.len() {
        let want = f(a[i], b[i]);
        assert_eq!(got[i], want, "{name}: a={:#x} b={:#x}: got {:#x}, want {:#x}", a[i], b[i], got[i], want);
    }
}

#[test]
fn u32_and_s32_binary_ops() {
    let mut r = Rng::fresh("ops_u32_s32");
    let a = ints(&mut r, 32);
    let mut b = ints(&mut r, 32);
    b.rotate_left(3);
    let z = vec![0; N];
    macro_rules! case {
        ($name:literal, $T:ty, $method:ident, $f:expr) => {{
            let got = map3::<$T, $T, U32, $T>($name, &a, &b, &z, |k, x, y, _| k.$method(x, y));
            check($name, &got, &a, &b, $f);
        }};
    }
    let u = |v: u64| v as u32;
    let s = |v: u64| v as u32 as i32;
    case!("add_u32", U32, add, |x, y| u(x).wrapping_add(u(y)) as u64);
    case!("sub_u32", U32, sub, |x, y| u(x).wrapping_sub(u(y)) as u64);
    case!("mul_u32", U32, mul, |x, y| u(x).wrapping_mul(u(y)) as u64);
    case!("mulhi_u32", U32, mul_hi, |x, y| (x * y) >> 32);
    case!("mulhi_s32", S32, mul_hi, |x, y| ((s(x) as i64 * s(y) as i64) >> 32) as u32 as u64);
    case!("div_u32", U32, div, |x, y| if y == 0 { 0xffff_ffff } else { x / y });
    case!("rem_u32", U32, rem, |x, y| if y == 0 { x } else { x % y });
    case!("div_s32", S32, div, |x, y| match s(y) {
        0 =>
            if s(x) < 0 {
                1
            } else {
                0xffff_ffff
            },
        _ => s(x).wrapping_div(s(y)) as u32 as u64,
    });
    case!("rem_s32", S32, rem, |x, y| match s(y) {
        0 => x,
        _ => s(x).wrapping_rem(s(y)) as u32 as u64,
    });
    case!("min_u32", U32, min, |x, y| x.min(y));
    case!("max_s32", S32, max, |x, y| s(x).max(s(y)) as u32 as u64);
    case!("min_s32", S32, min, |x, y| s(x).min(s(y)) as u32 as u64);
    case!("and_u32", U32, and, |x, y| x & y);
    case!("or_u32", U32, or, |x, y| x | y);
    case!("xor_s32", S32, xor, |x, y| x ^ y);
    let sh: Vec<u64> = b.iter().map(|v| v % 40).collect();
    let got = map3::<U32, U32, U32, U32>("shl_u32", &a, &sh, &z, |k, x, y, _| k.shl(x, y));
    check("shl_u32", &got, &a, &sh, |x, y| if y >= 32 { 0 } else { (u(x) << y) as u64 });
    let got = map3::<U32, U32, U32, U32>("shr_u32", &a, &sh, &z, |k, x, y, _| k.shr(x, y));
    check("shr_u32", &got, &a, &sh, |x, y| if y >= 32 { 0 } else { (u(x) >> y) as u64 });
    let got = map3::<S32, U32, U32, S32>("shr_s32", &a, &sh, &z, |k, x, y, _| k.shr(x, y));
    check("shr_s32", &got, &a, &sh, |x, y| (s(x) >> y.min(31)) as u32 as u64);
    let got = map3::<S32, U32, U32, S32>("neg_s32", &a, &z, &z, |k, x, _, _| k.neg(x));
    check("neg_s32", &got, &a, &z, |x, _| s(x).wrapping_neg() as u32 as u64);
    let got = map3::<S32, U32, U32, S32>("abs_s32", &a, &z, &z, |k, x, _, _| k.abs(x));
    check("abs_s32", &got, &a, &z, |x, _| s(x).wrapping_abs() as u32 as u64);
    let got = map3::<U32, U32, U32, U32>("not_u32", &a, &z, &z, |k, x, _, _| k.not(x));
    check("not_u32", &got, &a, &z, |x, _| !u(x) as u64);
    let c: Vec<u64> = a.iter().map(|v| v.rotate_left(7) & 0xffff_ffff).collect();
    let got = map3::<U32, U32, U32, U32>("mad_u32", &a, &b, &c, |k, x, y, w| k.mad_lo(x, y, w));
    for i in 0..N {
        assert_eq!(got[i], u(a[i]).wrapping_mul(u(b[i])).wrapping_add(u(c[i])) as u64);
    }
    let got = map3::<U32, U32, U32, U64>("wide_u32", &a, &b, &z, |k, x, y, _| k.mul_wide(x, y));
    check("wide_u32", &got, &a, &b, |x, y| x * y);
    let got = map3::<S32, S32, U32, S64>("wide_s32", &a, &b, &z, |k, x, y, _| k.mul_wide(x, y));
    check("wide_s32", &got, &a, &b, |x, y| (s(x) as i64 * s(y) as i64) as u64);
}

#[test]
fn sixteen_and_sixty_four_bit_ops() {
    let mut r = Rng::fresh("ops_16_64");
    let a16 = ints(&mut r, 16);
    let mut b16 = ints(&mut r, 16);
    b16.rotate_left(5);
    let a64 = ints(&mut r, 64);
    let mut b64 = ints(&mut r, 64);
    b64.rotate_left(5);
    let z = vec![0; N];
    let h = |v: u64| v as u16;
    let hs = |v: u64| v as u16 as i16;
    let got = map3::<U16, U16, U32, U16>("add_u16", &a16, &b16, &z, |k, x, y, _| k.add(x, y));
    check("add_u16", &got, &a16, &b16, |x, y| h(x).wrapping_add(h(y)) as u64);
    let got = map3::<S16, S16, U32, S16>("mul_s16", &a16, &b16, &z, |k, x, y, _| k.mul(x, y));
    check("mul_s16", &got, &a16, &b16, |x, y| hs(x).wrapping_mul(hs(y)) as u16 as u64);
    let got = map3::<S16, S16, U32, S16>("div_s16", &a16, &b16, &z, |k, x, y, _| k.div(x, y));
    check("div_s16", &got, &a16, &b16, |x, y| match hs(y) {
        0 => {
            if hs(x) < 0 {
                1
            } else {
                0xffff
            }
        }
        _ => hs(x).wrapping_div(hs(y)) as u16 as u64,
    });
    let got = map3::<S16, S16, U32, S32>("wide_s16", &a16, &b16, &z, |k, x, y, _| k.mul_wide(x, y));
    check("wide_s16", &got, &a16, &b16, |x, y| (hs(x) as i32 * hs(y) as i32) as u32 as u64);
    let got = map3::<U16, U16, U32, U32>("wide_u16", &a16, &b16, &z, |k, x, y, _| k.mul_wide(x, y));
    check("wide_u16", &got, &a16, &b16, |x, y| x * y);
    let sh: Vec<u64> = b16.iter().map(|v| v % 20).collect();
    let got = map3::<S16, U32, U32, S16>("shr_s16", &a16, &sh, &z, |k, x, y, _| k.shr(x, y));
    check("shr_s16", &got, &a16, &sh, |x, y| (hs(x) >> y.min(15)) as u16 as u64);
    let got = map3::<U64, U64, U32, U64>("mul_u64", &a64, &b64, &z, |k, x, y, _| k.mul(x, y));
    check("mul_u64", &got, &a64, &b64, |x, y| x.wrapping_mul(y));
    let got = map3::<S64, S64, U32, S64>("mulhi_s64", &a64, &b64, &z, |k, x, y, _| k.mul_hi(x, y));
    check("mulhi_s64", &got, &a64, &b64, |x, y| ((x as i64 as i128 * y as i64 as i128) >> 64) as u64);
    let got = map3::<S64, S64, U32, S64>("rem_s64", &a64, &b64, &z, |k, x, y, _| k.rem(x, y));
    check(
        "rem_s64",
        &got,
        &a64,
        &b64,
        |x, y| if y == 0 { x } else { (x as i64).wrapping_rem(y as i64) as u64 },
    );
    let got = map3::<U64, U64, U32, U64>("sub_u64", &a64, &b64, &z, |k, x, y, _| k.sub(x, y));
    check("sub_u64", &got, &a64, &b64, |x, y| x.wrapping_sub(y));
    let got = map3::<S64, S64, U32, S64>("min_s64", &a64, &b64, &z, |k, x, y, _| k.min(x, y));
    check("min_s64", &got, &a64, &b64, |x, y| (x as i64).min(y as i64) as u64);
    let _ = sx(0, 16);
}

#[test]
fn predicates_setp_and_selp() {
    let mut r = Rng::fresh("ops_predicates");
    let mut fa: Vec<u64> = (0..N).map(|_| r.moderate_f32().to_bits() as u64).collect();
    let mut fb: Vec<u64> =
        (0..N).map(|i| if i % 5 == 0 { fa[i] } else { r.moderate_f32().to_bits() as u64 }).collect();
    for i in (0..N).step_by(17) {
        fa[i] = f32::NAN.to_bits() as u64;
        fb[(i + 3) % N] = f32::NAN.to_bits() as u64;
        fb[(i + 7) % N] = 0x8000_0000; // -0.0 vs +0.0 cases
        fa[(i + 7) % N] = 0;
    }
    let ia: Vec<u64> = (0..N).map(|_| r.next() % 8 + 0xffff_fffa).map(|v| v & 0xffff_ffff).collect();
    let ib: Vec<u64> = (0..N).map(|_| (r.next() % 8 + 0xffff_fffa) & 0xffff_ffff).collect();
    let z = vec![0; N];
    for cmp in Cmp::ALL {
        let want = |x: f32, y: f32| {
            let un = x.is_nan() || y.is_nan();
            match cmp {
                Cmp::Eq => x == y,
                Cmp::Ne => !un && x != y,
                Cmp::Lt => x < y,
                Cmp::Le => x <= y,
                Cmp::Gt => x > y,
                Cmp::Ge => x >= y,
                Cmp::Equ => un || x == y,
                Cmp::Neu => un || x != y,
                Cmp::Ltu => un || x < y,
                Cmp::Leu => un || x <= y,
                Cmp::Gtu => un || x > y,
                Cmp::Geu => un || x >= y,
                Cmp::Num => !un,
                Cmp::Nan => un,
            }
        };
        let got = map3::<F32, F32, U32, U32>("setp_f32", &fa, &fb, &z, |k, x, y, _| {
            let p = k.setp(cmp, x, y);
            k.selp(p, 1u32, 0u32)
        });
        check(cmp.name(), &got, &fa, &fb, |x, y| {
            want(f32::from_bits(x as u32), f32::from_bits(y as u32)) as u64
        });
        if !cmp.is_float_only() {
            let ord = |o: std::cmp::Ordering| match cmp {
                Cmp::Eq => o.is_eq(),
                Cmp::Ne => o.is_ne(),
                Cmp::Lt => o.is_lt(),
                Cmp::Le => o.is_le(),
                Cmp::Gt => o.is_gt(),
                _ => o.is_ge(),
            };
            let got = map3::<S32, S32, U32, U32>("setp_s32", &ia, &ib, &z, |k, x, y, _| {
                let p = k.setp(cmp, x, y);
                k.selp(p, 7u32, 9u32)
            });
            check("setp_s32", &got, &ia, &ib, |x, y| {
                if ord((x as u32 as i32).cmp(&(y as u32 as i32))) {
                    7
                } else {
                    9
                }
            });
            let got = map3::<U32, U32, U32, U32>("setp_u32", &ia, &ib, &z, |k, x, y, _| {
                let p = k.setp(cmp, x, y);
                k.selp(p, 7u32, 9u32)
            });
            check("setp_u32", &got, &ia, &ib, |x, y| if ord(x.cmp(&y)) { 7 } else { 9 });
        }
    }
    // Predicate logic: and/or/xor/not of two comparisons.
    let got = map3::<U32, U32, U32, U32>("pred_logic", &ia, &ib, &z, |k, x, y, _| {
        let p = k.setp(Cmp::Lt, x, y);
        let q = k.setp(Cmp::Gt, x, 0xffff_fffcu32);
        let a = k.and(p, q);
        let o = k.or(p, q);
        let x2 = k.xor(a, o);
        let n = k.not(x2);
        let s1 = k.selp(a, 1u32, 0u32);
        let s2 = k.selp(o, 2u32, 0u32);
        let s3 = k.selp(n, 4u32, 0u32);
        let t = k.or(s1, s2);
        k.or(t, s3)
    });
    check("pred_logic", &got, &ia, &ib, |x, y| {
        let (p, q) = (x < y, x > 0xffff_fffc);
        (p && q) as u64 | ((p || q) as u64) << 1 | (!((p && q) ^ (p || q)) as u64) << 2
    });
}

fn nan_canon32(x: f32) -> u64 {
    if x.is_nan() {
        0x7fff_ffff
    } else {
        x.to_bits() as u64
    }
}

fn nan_canon64(x: f64) -> u64 {
    if x.is_nan() {
        0x7fff_ffff_ffff_ffff
    } else {
        x.to_bits()
    }
}

#[test]
fn float_round_to_nearest_ops() {
    let mut r = Rng::fresh("ops_float_rn");
    let mut a: Vec<u64> = (0..N).map(|_| r.moderate_f32().to_bits() as u64).collect();
    let b: Vec<u64> = (0..N).map(|_| r.moderate_f32().to_bits() as u64).collect();
    let c: Vec<u64> = (0..N).map(|_| r.moderate_f32().to_bits() as u64).collect();
    a[0] = f32::INFINITY.to_bits() as u64;
    a[1] = 0;
    a[2] = f32::NAN.to_bits() as u64;
    let f = |v: u64| f32::from_bits(v as u32);
    macro_rules! bin {
        ($name:literal, $build:expr, $want:expr) => {{
            let got = map3::<F32, F32, F32, F32>($name, &a, &b, &c, $build);
            for i in 0..N {
                let want: f32 = $want(f(a[i]), f(b[i]), f(c[i]));
                assert_eq!(got[i], nan_canon32(want), "{}: {:e} {:e} {:e}", $name, f(a[i]), f(b[i]), f(c[i]));
            }
        }};
    }
    bin!("add", |k, x, y, _| k.add(x, y), |x: f32, y, _| x + y);
    bin!("sub", |k, x, y, _| k.sub(x, y), |x: f32, y, _| x - y);
    bin!("mul", |k, x, y, _| k.mul(x, y), |x: f32, y, _| x * y);
    bin!("div", |k, x, y, _| k.div(x, y), |x: f32, y, _| x / y);
    bin!("fma", |k, x, y, z| k.fma(x, y, z), |x: f32, y, z| x.mul_add(y, z));
    bin!("sqrt", |k, x, _, _| k.sqrt(x), |x: f32, _, _| x.sqrt());
    bin!("rcp", |k, x, _, _| k.rcp(x), |x: f32, _, _| 1.0 / x);
    bin!("neg", |k, x, _, _| k.neg(x), |x: f32, _, _| -x);
    bin!("abs", |k, x, _, _| k.abs(x), |x: f32, _, _| x.abs());
    bin!("min", |k, x, y, _| k.min(x, y), |x: f32, y: f32, _| x.min(y));
    bin!("max", |k, x, y, _| k.max(x, y), |x: f32, y: f32, _| x.max(y));
    bin!("sin", |k, x, _, _| k.float_unary(UnaryOp::Sin, FloatMode::Approx, x), |x: f32, _, _| (x as f64)
        .sin()
        as f32);
    bin!("ex2", |k, x, _, _| k.float_unary(UnaryOp::Ex2, FloatMode::Approx, x), |x: f32, _, _| (x as f64)
        .exp2()
        as f32);
    bin!("divapprox", |k, x, y, _| k.div_approx(x, y), |x: f32, y: f32, _| (x as f64 / y as f64) as f32);

    let a: Vec<u64> = (0..N).map(|_| r.moderate_f64().to_bits()).collect();
    let b: Vec<u64> = (0..N).map(|_| r.moderate_f64().to_bits()).collect();
    let c: Vec<u64> = (0..N).map(|_| r.moderate_f64().to_bits()).collect();
    let d = |v: u64| f64::from_bits(v);
    macro_rules! bin64 {
        ($name:literal, $build:expr, $want:expr) => {{
            let got = map3::<F64, F64, F64, F64>($name, &a, &b, &c, $build);
            for i in 0..N {
                let want: f64 = $want(d(a[i]), d(b[i]), d(c[i]));
                assert_eq!(got[i], nan_canon64(want), "{}", $name);
            }
        }};
    }
    bin64!("add64", |k, x, y, _| k.add(x, y), |x: f64, y, _| x + y);
    bin64!("mul64", |k, x, y, _| k.mul(x, y), |x: f64, y, _| x * y);
    bin64!("div64", |k, x, y, _| k.div(x, y), |x: f64, y, _| x / y);
    bin64!("fma64", |k, x, y, z| k.fma(x, y, z), |x: f64, y, z| x.mul_add(y, z));
    bin64!("sqrt64", |k, x, _, _| k.sqrt(x), |x: f64, _, _| x.sqrt());
}

/// The f32 nearest `exact` rounded in `mode`, given which side of `rn` the exact value
/// lies on (`side`: sign of exact - rn).
fn directed32(rn: f32, side: std::cmp::Ordering, mode: FloatMode) -> f32 {
    use std::cmp::Ordering::*;
    match (mode, side) {
        (_, Equal) | (FloatMode::Rn, _) => rn,
        (FloatMode::Rm, Less) | (FloatMode::Rz, Less) if mode == FloatMode::Rm || rn > 0.0 => rn.step_down(),
        (FloatMode::Rp, Greater) | (FloatMode::Rz, Greater) if mode == FloatMode::Rp || rn < 0.0 => {
            rn.step_up()
        }
        _ => rn,
    }
}

/// `s`, the sum of `a` and `b`, with IEEE 754's sign when it is an exact zero
/// (round-to-nearest on the host gets only the sign of zeros of one sign right).
fn exact_zero_sign(s: f64, a: f64, b: f64, mode: FloatMode) -> f64 {
    if s != 0.0 {
        s
    } else {
        exact_zero_sum(a, b, mode == FloatMode::Rm)
    }
}

#[test]
fn float_directed_rounding_f32() {
    let mut r = Rng::fresh("ops_directed_f32");
    let a: Vec<u64> = (0..N).map(|_| r.moderate_f32().to_bits() as u64).collect();
    let b: Vec<u64> = (0..N).map(|_| r.moderate_f32().to_bits() as u64).collect();
    let c: Vec<u64> = (0..N).map(|_| r.moderate_f32().to_bits() as u64).collect();
    let f = |v: u64| f32::from_bits(v as u32);
    // Every 8th pair divides exactly (a = q·b with b's low mantissa bits cleared), so the
    // directed quotients are checked where no rounding happens (an inexact flag set
    // wrongly would step them away from q).
    let (mut a, mut b) = (a, b);
    for i in (0..N).step_by(8) {
        let y = f32::from_bits(b[i] as u32 & !0xf);
        let q = EXACT_QUOTIENTS[(r.next() % EXACT_QUOTIENTS.len() as u64) as usize];
        (a[i], b[i]) = (((q as f32) * y).to_bits() as u64, y.to_bits() as u64);
    }
    for mode in [FloatMode::Rz, FloatMode::Rm, FloatMode::Rp] {
        // Exact value as f64 (when exact), compared with the rounded f32.
        let side = |exact: f64, rn: f32| exact.partial_cmp(&(rn as f64)).unwrap();
        let got = map3::<F32, F32, F32, F32>("dadd", &a, &b, &c, |k, x, y, _| {
            k.float_op(BinaryOp::Add, mode, x, y)
        });
        let mut tested = 0;
        for i in 0..N {
            let (x, y) = (f(a[i]) as f64, f(b[i]) as f64);
            let s = exact_zero_sign(x + y, x, y, mode);
            if two_sum_err(x, y, s) != 0.0 {
                continue; // not exact in f64
            }
            tested += 1;
            let rn = s as f32;
            assert_eq!(
                f(got[i]).to_bits(),
                directed32(rn, side(s, rn), mode).to_bits(),
                "add {x:e} {y:e} {mode:?}"
            );
        }
        assert!(tested > N / 2);
        let got = map3::<F32, F32, F32, F32>("dmul", &a, &b, &c, |k, x, y, _| {
            k.float_op(BinaryOp::Mul, mode, x, y)
        });
        for i in 0..N {
            let p = f(a[i]) as f64 * f(b[i]) as f64; // exact: 48-bit product
            let rn = p as f32;
            assert_eq!(
                f(got[i]).to_bits(),
                directed32(rn, side(p, rn), mode).to_bits(),
                "mul {p:e} {mode:?}"
            );
        }
        let got = map3::<F32, F32, F32, F32>("dsub", &a, &b, &c, |k, x, y, _| {
            k.float_op(BinaryOp::Sub, mode, x, y)
        });
        for i in 0..N {
            let (x, y) = (f(a[i]) as f64, f(b[i]) as f64);
            let s = exact_zero_sign(x - y, x, -y, mode);
            if two_sum_err(x, -y, s) != 0.0 {
                continue;
            }
            let rn = s as f32;
            assert_eq!(f(got[i]).to_bits(), directed32(rn, side(s, rn), mode).to_bits(), "sub {x:e} {y:e}");
        }
        let got = map3::<F32, F32, F32, F32>("ddiv", &a, &b, &c, |k, x, y, _| {
            k.float_op(BinaryOp::Div, mode, x, y)
        });
        for i in 0..N {
            let (x, y) = (f(a[i]), f(b[i]));
            let rn = (x as f64 / y as f64) as f32;
            // sign(x/y - rn) = sign(x - rn*y) * sign(y); rn*y is exact in f64.
            let diff = (x as f64 - rn as f64 * y as f64) * (y as f64).signum();
            assert_eq!(
                f(got[i]).to_bits(),
                directed32(rn, diff.partial_cmp(&0.0).unwrap(), mode).to_bits(),
                "div {x:e} {y:e} {mode:?}"
            );
        }
        let got = map3::<F32, F32, F32, F32>("dsqrt", &a, &b, &c, |k, x, _, _| {
            k.float_unary(UnaryOp::Sqrt, mode, x)
        });
        for i in 0..N {
            let x = f(a[i]).abs();
            if f(a[i]) < 0.0 {
                assert_eq!(got[i], 0x7fff_ffff);
                continue;
            }
            let rn = (x as f64).sqrt() as f32;
            let diff = x as f64 - rn as f64 * rn as f64;
            assert_eq!(
                f(got[i]).to_bits(),
                directed32(rn, diff.partial_cmp(&0.0).unwrap(), mode).to_bits(),
                "sqrt {x:e}"
            );
        }
        let got =
            map3::<F32, F32, F32, F32>("drcp", &a, &b, &c, |k, x, _, _| k.float_unary(UnaryOp::Rcp, mode, x));
        for i in 0..N {
            let y = f(a[i]);
            let rn = (1.0 / y as f64) as f32;
            let diff = (1.0 - rn as f64 * y as f64) * (y as f64).signum();
            assert_eq!(
                f(got[i]).to_bits(),
                directed32(rn, diff.partial_cmp(&0.0).unwrap(), mode).to_bits(),
                "rcp {y:e}"
            );
        }
        let got = map3::<F32, F32, F32, F32>("dfma", &a, &b, &c, |k, x, y, z| k.fma_with(mode, x, y, z));
        for i in 0..N {
            let p = f(a[i]) as f64 * f(b[i]) as f64;
            let z = f(c[i]) as f64;
            let s = exact_zero_sign(p + z, p, z, mode);
            if two_sum_err(p, z, s) != 0.0 {
                continue;
            }
            let rn = s as f32;
            assert_eq!(f(got[i]).to_bits(), directed32(rn, side(s, rn), mode).to_bits(), "fma {mode:?}");
        }
    }
}

/// Quotients with few significant bits: `q·b` is exact when `b` has its low mantissa bits
/// clear.
const EXACT_QUOTIENTS: [f64; 8] = [1.0, -1.0, 3.0, -5.0, 0.75, -1.25, 7.0, 0.5];

/// The sign (as ±1.0 or 0.0) of the exact sum of `terms`, none of which may overflow: TwoSum
/// passes move each rounding error down until no pass changes anything; then every term
/// is at most half an ulp of the next, so the sum has the sign of the largest.
fn sign_of_sum<const K: usize>(mut terms: [f64; K]) -> f64 {
    for _ in 0..64 * K {
        let mut changed = false;
        for i in 1..K {
            let (lo, hi) = (terms[i - 1], terms[i]);
            let s = lo + hi;
            let e = two_sum_err(lo, hi, s);
            changed |= s != hi || e != lo;
            (terms[i - 1], terms[i]) = (e, s);
        }
        if !changed {
            let top = terms[K - 1];
            return if top == 0.0 { 0.0 } else { top.signum() };
        }
    }
    panic!("TwoSum passes did not settle on {terms:?}");
}

#[test]
fn float_directed_rounding_f64() {
    let mut r = Rng::fresh("ops_directed_f64");
    let a: Vec<u64> = (0..N).map(|_| r.moderate_f64().to_bits()).collect();
    let mut b: Vec<u64> = (0..N).map(|_| r.moderate_f64().to_bits()).collect();
    let c: Vec<u64> = (0..N).map(|_| r.moderate_f64().to_bits()).collect();
    // Exact quotients, as in the f32 test.
    let mut a = a;
    for i in (0..N).step_by(8) {
        let y = f64::from_bits(b[i] & !0xf);
        let q = EXACT_QUOTIENTS[(r.next() % EXACT_QUOTIENTS.len() as u64) as usize];
        (a[i], b[i]) = ((q * y).to_bits(), y.to_bits());
    }
    // Every 8th pair from the 4th: b 2^k below a, with k around f64's precision and the
    // adder's 126-bit window, where b only moves the last bits or only makes the sum
    // inexact.
    for (j, i) in (4..N).step_by(8).enumerate() {
        let x = f64::from_bits(a[i]);
        let k = [1, 52, 53, 54, 100, 125, 126, 127, 128, 300][j % 10];
        let mantissa = f64::from_bits((r.next() & 0x800f_ffff_ffff_ffff) | 0x3ff << 52);
        b[i] = (mantissa * 2f64.powi(x.abs().log2().floor() as i32 - k)).to_bits();
    }
    let d = |v: u64| f64::from_bits(v);
    let pick = |rn: f64, e: f64, mode: FloatMode| -> u64 {
        use std::cmp::Ordering::*;
        let side = e.partial_cmp(&0.0).unwrap();
        match (mode, side) {
            (_, Equal) => rn,
            (FloatMode::Rm, Less) => rn.step_down(),
            (FloatMode::Rp, Greater) => rn.step_up(),
            (FloatMode::Rz, Less) if rn > 0.0 => rn.step_down(),
            (FloatMode::Rz, Greater) if rn < 0.0 => rn.step_up(),
            _ => rn,
        }
        .to_bits()
    };
    for mode in [FloatMode::Rz, FloatMode::Rm, FloatMode::Rp] {
        let got = map3::<F64, F64, F64, F64>("d64add", &a, &b, &b, |k, x, y, _| {
            k.float_op(BinaryOp::Add, mode, x, y)
        });
        for i in 0..N {
            let (x, y) = (d(a[i]), d(b[i]));
            let s = exact_zero_sign(x + y, x, y, mode);
            let e = two_sum_err(x, y, s);
            assert_eq!(got[i], pick(s, e, mode), "add {x:e} {y:e} {mode:?}");
        }
        let got = map3::<F64, F64, F64, F64>("d64mul", &a, &b, &b, |k, x, y, _| {
            k.float_op(BinaryOp::Mul, mode, x, y)
        });
        for i in 0..N {
            let (x, y) = (d(a[i]), d(b[i]));
            let p = x * y;
            assert_eq!(got[i], pick(p, x.mul_add(y, -p), mode));
        }
        let got = map3::<F64, F64, F64, F64>("d64div", &a, &b, &b, |k, x, y, _| {
            k.float_op(BinaryOp::Div, mode, x, y)
        });
        for i in 0..N {
            let (x, y) = (d(a[i]), d(b[i]));
            let q = x / y;
            assert_eq!(got[i], pick(q, -q.mul_add(y, -x) * y.signum(), mode), "div {x:e} {y:e} {mode:?}");
        }
        let got = map3::<F64, F64, F64, F64>("d64fma", &a, &b, &c, |k, x, y, z| k.fma_with(mode, x, y, z));
        for i in 0..N {
            let (x, y, z) = (d(a[i]), d(b[i]), d(c[i]));
            let rn = exact_zero_sign(x.mul_add(y, z), x * y, z, mode);
            // x·y = p + pe exactly, so x·y + z − rn = p + pe + z − rn, a sum of four f64s.
            let p = x * y;
            let side = sign_of_sum([x.mul_add(y, -p), p, z, -rn]);
            assert_eq!(got[i], pick(rn, side, mode), "fma {x:e} {y:e} {z:e} {mode:?}");
        }
        let got = map3::<F64, F64, F64, F64>("d64sqrt", &a, &b, &b, |k, x, _, _| {
            let ax = k.abs(x);
            k.float_unary(UnaryOp::Sqrt, mode, ax)
        });
        for i in 0..N {
            let x = d(a[i]).abs();
            let s = x.sqrt();
            assert_eq!(got[i], pick(s, -s.mul_add(s, -x), mode));
        }
    }
}

#[test]
fn conversions() {
    let mut r = Rng::fresh("ops_conversions");
    let mut fa: Vec<u64> = (0..N)
        .map(|i| {
            let v = (r.next() % 2_000_000) as f32 / 64.0 - 15_000.0;
            if i % 9 == 0 {
                v.trunc() + 0.5
            } else if i % 13 == 0 {
                r.moderate_f32() * 1e30
            } else {
                v
            }
        })
        .map(|v| v.to_bits() as u64)
        .collect();
    fa[0] = f32::NAN.to_bits() as u64;
    fa[1] = f32::NEG_INFINITY.to_bits() as u64;
    let z = vec![0; N];
    let f = |v: u64| f32::from_bits(v as u32);
    for (round, g) in [
        (CvtRound::Rni, f32::round_ties_even as fn(f32) -> f32),
        (CvtRound::Rzi, f32::trunc),
        (CvtRound::Rmi, f32::floor),
        (CvtRound::Rpi, f32::ceil),
    ] {
        let got = map3::<F32, U32, U32, S32>("f2s", &fa, &z, &z, |k, x, _, _| k.cvt(x, Some(round), false));
        check("cvt.s32.f32", &got, &fa, &z, |x, _| g(f(x)) as i32 as u32 as u64);
        let got = map3::<F32, U32, U32, U16>("f2u16", &fa, &z, &z, |k, x, _, _| k.cvt(x, Some(round), false));
        check("cvt.u16.f32", &got, &fa, &z, |x, _| g(f(x)) as u16 as u64);
        let got = map3::<F32, U32, U32, S64>("f2s64", &fa, &z, &z, |k, x, _, _| k.cvt(x, Some(round), false));
        check("cvt.s64.f32", &got, &fa, &z, |x, _| g(f(x)) as i64 as u64);
        let got = map3::<F32, U32, U32, F32>("f2f", &fa, &z, &z, |k, x, _, _| k.cvt(x, Some(round), false));
        check("cvt.rXi.f32.f32", &got, &fa, &z, |x, _| nan_canon32(g(f(x))));
    }
    // Integer -> float with every rounding mode, against exact i128 comparisons.
    let mut ia: Vec<u64> =
        (0..N).map(|i| if i % 3 == 0 { r.next() } else { r.next() >> (r.next() % 64) }).collect();
    // Edges: zero (+0.0, never -0.0), ±1, the extremes, and ties at f32's precision.
    let edges =
        [0, 1, u64::MAX, 1 << 63, (1 << 63) - 1, (1 << 24) + 1, (1 << 24) + 3, 3 << 62, (1 << 32) - 1];
    ia[..edges.len()].copy_from_slice(&edges);
    for (round, mode) in [
        (CvtRound::Rn, FloatMode::Rn),
        (CvtRound::Rz, FloatMode::Rz),
        (CvtRound::Rm, FloatMode::Rm),
        (CvtRound::Rp, FloatMode::Rp),
    ] {
        let got = map3::<U64, U32, U32, F32>("u2f", &ia, &z, &z, |k, x, _, _| k.cvt(x, Some(round), false));
        for i in 0..N {
            let rn = ia[i] as f32;
            let side = (ia[i] as i128).cmp(&(rn as f64 as i128));
            assert_eq!(got[i], directed32(rn, side, mode).to_bits() as u64, "{:#x} {mode:?}", ia[i]);
        }
        let got = map3::<S64, U32, U32, F32>("s2f", &ia, &z, &z, |k, x, _, _| k.cvt(x, Some(round), false));
        for i in 0..N {
            let v = ia[i] as i64;
            let rn = v as f32;
            let side = (v as i128).cmp(&(rn as f64 as i128));
            assert_eq!(got[i], directed32(rn, side, mode).to_bits() as u64);
        }
        // f64 -> f32.
        let da: Vec<u64> = (0..N).map(|_| r.moderate_f64().to_bits()).collect();
        let got = map3::<F64, U32, U32, F32>("d2f", &da, &z, &z, |k, x, _, _| k.cvt(x, Some(round), false));
        for i in 0..N {
            let x = f64::from_bits(da[i]);
            let rn = x as f32;
            assert_eq!(got[i], directed32(rn, x.partial_cmp(&(rn as f64)).unwrap(), mode).to_bits() as u64);
        }
    }
    let got =
        map3::<S32, U32, U32, F32>("s2f_sat", &fa, &z, &z, |k, x, _, _| k.cvt(x, Some(CvtRound::Rn), true));
    check("cvt.rn.sat.f32.s32", &got, &fa, &z, |x, _| {
        ((x as u32 as i32 as f32).clamp(0.0, 1.0)).to_bits() as u64
    });
    let got = map3::<F32, U32, U32, F64>("f2d", &fa, &z, &z, |k, x, _, _| k.cast(x));
    check("cvt.f64.f32", &got, &fa, &z, |x, _| nan_canon64(f(x) as f64));
    // Integer <-> integer with and without saturation.
    let got = map3::<S32, U32, U32, S64>("s2s64", &ia, &z, &z, |k, x, _, _| k.cast(x));
    check("cvt.s64.s32", &got, &ia, &z, |x, _| x as u32 as i32 as i64 as u64);
    let got = map3::<U64, U32, U32, U16>("u64_u16", &ia, &z, &z, |k, x, _, _| k.cast(x));
    check("cvt.u16.u64", &got, &ia, &z, |x, _| x & 0xffff);
    let got = map3::<S64, U32, U32, S16>("sat_s16", &ia, &z, &z, |k, x, _, _| k.cvt(x, None, true));
    check("cvt.sat.s16.s64", &got, &ia, &z, |x, _| (x as i64).clamp(-32768, 32767) as i16 as u16 as u64);
    let got = map3::<S32, U32, U32, U32>("sat_u32", &ia, &z, &z, |k, x, _, _| k.cvt(x, None, true));
    check("cvt.sat.u32.s32", &got, &ia, &z, |x, _| (x as u32 as i32).max(0) as u64);
}

/// f16/bf16 <-> f32, against an independent decoder and nearest-value search.
#[test]
fn half_precision_conversions() {
    fn f16_value(h: u16) -> f64 {
        let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
        let e = ((h >> 10) & 0x1f) as i32;
        let m = (h & 0x3ff) as f64;
        match e {
            0 => s * m * 2f64.powi(-24),
            31 => {
                if m == 0.0 {
                    s * f64::INFINITY
                } else {
                    f64::NAN
                }
            }
            _ => s * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
        }
    }
    let all: Vec<u64> = (0..65536u64).collect();
    let z64k = vec![0; 65536];
    let got = map3::<B16, U32, U32, F32>("h2f", &all, &z64k, &z64k, |k, x, _, _| {
        let h = k.bitcast::<F16, B16>(x);
        k.cvt(h, None, false)
    });
    for h in 0..65536usize {
        let want = f16_value(h as u16);
        if want.is_nan() {
            assert_eq!(got[h], 0x7fff_ffff);
        } else {
            assert_eq!(f32::from_bits(got[h] as u32) as f64, want, "{h:#x}");
            assert_eq!(got[h] >> 31, (h as u64) >> 15, "sign of {h:#x}");
        }
    }
    // f32 -> f16 round to nearest even: nearest finite f16 by search, ties to even mantissa.
    let finite: Vec<(f64, u16)> = (0..0x7c00u16).map(|h| (f16_value(h), h)).collect();
    let mut r = Rng::fresh("ops_half");
    let xs: Vec<u64> = (0..4096)
        .map(|i| {
            let v = if i % 4 == 0 { (r.next() % 70000) as f32 + 0.5 } else { r.moderate_f32() * 1e-2 };
            v.to_bits() as u64
        })
        .collect();
    let z = vec![0; 4096];
    let got = map3::<F32, U32, U32, B16>("f2h", &xs, &z, &z, |k, x, _, _| {
        let h = k.cvt::<F16, F32>(x, Some(CvtRound::Rn), false);
        k.bitcast::<B16, F16>(h)
    });
    for i in 0..xs.len() {
        let x = f32::from_bits(xs[i] as u32) as f64;
        let ax = x.abs();
        let pos = finite.partition_point(|(v, _)| *v < ax);
        let want = if pos == finite.len() {
            // Beyond the largest finite value 65504: overflows at 65520.
            if ax >= 65520.0 {
                0x7c00
            } else {
                0x7bff
            }
        } else if pos == 0 {
            0
        } else {
            let (hi, hb) = finite[pos];
            let (lo, lb) = finite[pos - 1];
            if ax - lo < hi - ax || (ax - lo == hi - ax && lb % 2 == 0) {
                lb
            } else {
                hb
            }
        };
        let want = want | if x < 0.0 { 0x8000 } else { 0 };
        assert_eq!(got[i], want as u64, "{x:e}");
    }
    // bf16: round to nearest even on the bits.
    let got = map3::<F32, U32, U32, B16>("f2bf", &xs, &z, &z, |k, x, _, _| {
        let h = k.cvt::<Bf16, F32>(x, Some(CvtRound::Rn), false);
        k.bitcast::<B16, Bf16>(h)
    });
    for i in 0..xs.len() {
        let b = xs[i] as u32;
        let want = (b + 0x7fff + ((b >> 16) & 1)) >> 16;
        assert_eq!(got[i], want as u64);
    }
    let got = map3::<B16, U32, U32, F32>("bf2f", &all, &z64k, &z64k, |k, x, _, _| {
        let h = k.bitcast::<Bf16, B16>(x);
        k.cvt(h, None, false)
    });
    for h in 0..65536usize {
        let want = (h as u32) << 16;
        if f32::from_bits(want).is_nan() {
            assert_eq!(got[h], 0x7fff_ffff);
        } else {
            assert_eq!(got[h], want as u64);
        }
    }
}
