//! Real OpenAI Triton output (Triton 3.9, `tests/data/triton/*.ptx`, written by
//! `kernels.py` beside them for sm_80 and sm_90 without a GPU) run on the simulator as
//! Triton launches it: one block per program, `num_warps`·32 threads, the metadata's
//! shared bytes as dynamic shared memory, and the two trailing scratch pointers null.
//! References are computed here in Rust; the tests need neither Python nor Triton.
//!
//! Launches run with [`Approx::WorstCase`] (each `.approx` instruction off by the most the
//! PTX ISA allows) so tolerances that pass hold on any GPU; buffers are exactly as large as
//! the data, so a lane a mask should stop faults.

mod common;

use common::triton::{assert_close, get_f32, philox, put_f32, put_i32, uniform, uniform_float, Triton, EPS};
use common::{download, upload};
use ptx_sim::{Memory, Module};
use ptx_tools::rng::Rng;

/// Where the fixtures are, relative to the crate.
const DIR: &str = "tests/data/triton";

fn load(file: &str) -> Triton {
    common::triton::load(DIR, file)
}

fn text(file: &str) -> String {
    common::triton::text(DIR, file)
}

fn get_i32(mem: &Memory, addr: u64, n: usize) -> Vec<i32> {
    download(mem, addr, n, 4).into_iter().map(|b| b as u32 as i32).collect()
}

fn put_f16(mem: &Memory, v: &[u16]) -> u64 {
    upload(mem, &v.iter().map(|&x| x as u64).collect::<Vec<_>>(), 2)
}

fn get_f16(mem: &Memory, addr: u64, n: usize) -> Vec<f64> {
    download(mem, addr, n, 2).into_iter().map(|b| f16_value(b as u16)).collect()
}

/// The f16 nearest `x` (ties to even), as bits; `x` finite and below 65520 in magnitude.
fn f16_bits(x: f64) -> u16 {
    let (sign, a) = (if x.is_sign_negative() { 0x8000 } else { 0 }, x.abs());
    let e = if a < 2f64.powi(-14) { -14 } else { ((a.to_bits() >> 52) as i32) - 1023 };
    let m = (a / 2f64.powi(e - 10)).round_ties_even() as u16;
    sign | if a < 2f64.powi(-14) { m } else { (((e + 15) as u16) << 10) + m - 1024 }
}

fn f16_value(h: u16) -> f64 {
    let (e, m) = ((h >> 10) & 0x1f, (h & 0x3ff) as f64);
    let v = if e == 0 { m * 2f64.powi(-24) } else { (1024.0 + m) * 2f64.powi(e as i32 - 25) };
    if h & 0x8000 != 0 {
        -v
    } else {
        v
    }
}

/// The bound on an f32 result rounded to f16: half an f16 ulp (2^-11 relative, 2^-25
/// among subnormals) plus `rel` of f32 error before the rounding.
fn f16_tol(rel: f64) -> impl Fn(f64) -> f64 {
    move |w| w.abs() * (2f64.powi(-11) + rel) + 2f64.powi(-25)
}

#[test]
fn softmax_f16_rows_in_two_dimensional_blocks() {
    let mut rng = Rng::fresh("triton_real softmax_f16");
    for sm in ["sm80", "sm90"] {
        let t = load(&format!("softmax_f16_{sm}"));
        let (rows, cols) = (1 + rng.next() as usize % 23, 1 + rng.next() as usize % 128);
        let x: Vec<u16> = (0..rows * cols).map(|_| f16_bits(8.0 * rng.unit() - 4.0)).collect();
        let mem = Memory::new();
        let (px, po) = (put_f16(&mem, &x), mem.alloc(2 * rows * cols));
        t.run([rows.div_ceil(4) as u32, 1, 1], &[px, po, rows as u64, cols as u64], &mem);
        let mut want = vec![];
        for r in 0..rows {
            let row: Vec<f64> = x[r * cols..(r + 1) * cols].iter().map(|&h| f16_value(h)).collect();
            let m = row.iter().cloned().fold(f64::MIN, f64::max);
            let s: f64 = row.iter().map(|v| (v - m).exp()).sum();
            want.extend(row.iter().map(|v| (v - m).exp() / s));
        }
        // f32: exp by ex2.approx (2 ulp after the scaling product), a sum of at most 128
        // terms, div.full (2 ulp): well within 300 EPS.
        assert_close(sm, &get_f16(&mem, po, rows * cols), &want, f16_tol(300.0 * EPS));
    }
}

#[test]
fn layer_norm_f16_two_rows_per_program() {
    let mut rng = Rng::fresh("triton_real layer_norm_f16");
    for sm in ["sm80", "sm90"] {
        let t = load(&format!("layer_norm_f16_{sm}"));
        let (rows, cols) = (1 + rng.next() as usize % 9, 2 + rng.next() as usize % 255);
        let f16s =
            |rng: &mut Rng, n: usize| (0..n).map(|_| f16_bits(4.0 * rng.unit() - 2.0)).collect::<Vec<_>>();
        let (x, w, b) = (f16s(&mut rng, rows * cols), f16s(&mut rng, cols), f16s(&mut rng, cols));
        let eps = 1e-5f32;
        let mem = Memory::new();
        let (px, pw, pb, po) =
            (put_f16(&mem, &x), put_f16(&mem, &w), put_f16(&mem, &b), mem.alloc(2 * rows * cols));
        let args = [px, pw, pb, po, rows as u64, cols as u64, eps.to_bits() as u64];
        t.run([rows.div_ceil(2) as u32, 1, 1], &args, &mem);
        let got = get_f16(&mem, po, rows * cols);
        for r in 0..rows {
            let row: Vec<f64> = x[r * cols..(r + 1) * cols].iter().map(|&h| f16_value(h)).collect();
            let mean = row.iter().sum::<f64>() / cols as f64;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / cols as f64;
            let rstd = 1.0 / (var + eps as f64).sqrt();
            let mean_abs = row.iter().map(|v| v.abs()).sum::<f64>() / cols as f64;
            for c in 0..cols {
                let (wc, bc) = (f16_value(w[c]), f16_value(b[c]));
                let term = (row[c] - mean) * rstd * wc;
                // The mean's sum (up to 256 terms, 256 EPS of Σ|x|), rsqrt.approx (2^-22.9),
                // div.full and the products: 600 EPS of the terms, then the f16 rounding.
                let tol = f16_tol(0.0)(term + bc)
                    + 600.0 * EPS * (term.abs() + bc.abs() + rstd * wc.abs() * mean_abs);
                let g = got[r * cols + c];
                assert!((g - (term + bc)).abs() <= tol, "{sm}[{r},{c}]: got {g}, want {}", term + bc);
            }
        }
    }
}

#[test]
fn vec_add_for_sm90() {
    let mut rng = Rng::fresh("triton_real vec_add_sm90");
    let t = load("vec_add_sm90");
    let n = 1 + rng.next() as usize % 5000;
    let mem = Memory::new();
    let (x, y) = (uniform(&mut rng, n, -100.0, 100.0), uniform(&mut rng, n, -100.0, 100.0));
    let (px, py, po) = (put_f32(&mem, &x), put_f32(&mem, &y), mem.alloc(4 * n));
    t.run([n.div_ceil(1024) as u32, 1, 1], &[px, py, po, n as u64], &mem);
    let got = get_f32(&mem, po, n);
    for i in 0..n {
        assert_eq!(got[i].to_bits(), (x[i] + y[i]).to_bits(), "[{i}]");
    }
}

#[test]
fn float_cumsum_and_a_max_scan() {
    let mut rng = Rng::fresh("triton_real scans");
    let t = load("scans_sm80");
    let n = 1 + rng.next() as usize % 256;
    let x = uniform(&mut rng, n, -10.0, 10.0);
    let mem = Memory::new();
    let (px, ps, pm) = (put_f32(&mem, &x), mem.alloc(4 * n), mem.alloc(4 * n));
    t.run([1, 1, 1], &[px, ps, pm, n as u64], &mem);
    let (sums, maxes) = (get_f32(&mem, ps, n), get_f32(&mem, pm, n));
    let (mut s, mut abs, mut m) = (0f64, 0f64, f32::MIN);
    for i in 0..n {
        s += x[i] as f64;
        abs += x[i].abs() as f64;
        m = m.max(x[i]);
        // Any order of i + 1 f32 additions: (i + 1) EPS of Σ|x|.
        assert!((sums[i] as f64 - s).abs() <= (i + 1) as f64 * EPS * abs, "cumsum[{i}]: {} vs {s}", sums[i]);
        assert_eq!(maxes[i], m, "cummax[{i}]");
    }
}

#[test]
fn integer_atomics_on_global_words() {
    let mut rng = Rng::fresh("triton_real int_atomics");
    let t = load("int_atomics_sm80");
    let n = 1 + rng.next() as usize % 2000;
    let x: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
    let mem = Memory::new();
    let init = [0, 0, 0, 0, 0, 0, 0, 0, i32::MIN, i32::MAX, 0, 0, -1];
    let (px, po) = (put_i32(&mem, &x), put_i32(&mem, &init));
    t.run([n.div_ceil(256) as u32, 1, 1], &[px, po, n as u64], &mem);
    let mut want = init;
    for &v in &x {
        want[(v & 7) as usize] += 1;
        want[8] = want[8].max(v);
        want[9] = want[9].min(v);
        want[10] ^= v;
        want[11] |= v;
        want[12] &= v;
    }
    assert_eq!(get_i32(&mem, po, 13), want);
}

#[test]
fn float_min_max_and_half_atomic_adds() {
    let mut rng = Rng::fresh("triton_real float_atomics");
    for sm in ["sm80", "sm90"] {
        let t = load(&format!("float_atomics_{sm}"));
        let n = 1 + rng.next() as usize % 1000;
        // Small integers, so that the f16 sums are exact in any order.
        let x: Vec<f32> = (0..n).map(|_| (rng.next() % 9) as f32 - 4.0).collect();
        let x: Vec<f32> = x.iter().enumerate().map(|(i, &v)| if i % 5 == 1 { v + 0.5 } else { v }).collect();
        let mem = Memory::new();
        let (px, po, ph) =
            (put_f32(&mem, &x), put_f32(&mem, &[f32::INFINITY, f32::NEG_INFINITY]), put_f16(&mem, &[0; 4]));
        t.run([n.div_ceil(128) as u32, 1, 1], &[px, po, ph, n as u64], &mem);
        let mm = get_f32(&mem, po, 2);
        assert_eq!(mm[0], x.iter().cloned().fold(f32::INFINITY, f32::min), "{sm} min");
        assert_eq!(mm[1], x.iter().cloned().fold(f32::NEG_INFINITY, f32::max), "{sm} max");
        let mut want = [0f64; 4];
        for (i, &v) in x.iter().enumerate() {
            want[i & 3] += v as f64;
        }
        assert_eq!(get_f16(&mem, ph, 4), want, "{sm} f16 sums");
    }
}

#[test]
fn spin_lock_through_atomic_cas_and_exchange() {
    let t = load("cas_counter_sm80");
    let programs = 37;
    let mem = Memory::new();
    let (lock, count, order) = (put_i32(&mem, &[0]), put_i32(&mem, &[0]), put_i32(&mem, &vec![-1; programs]));
    // The lanes of a program read the counter that its lane 0 then writes: a race the
    // check would report, though the warp's load precedes its store.
    t.try_run([programs as u32, 1, 1], &[lock, count, order], &mem, false).unwrap();
    assert_eq!(get_i32(&mem, count, 1), [programs as i32]);
    let mut seen = get_i32(&mem, order, programs);
    seen.sort();
    assert_eq!(seen, (0..programs as i32).collect::<Vec<_>>());
}

#[test]
fn randn_randint_and_rand() {
    let mut rng = Rng::fresh("triton_real rand_fns");
    let t = load("rand_fns_sm80");
    let n = 1 + rng.next() as usize % 1500;
    let seed = (rng.next() >> 33) as u32;
    let mem = Memory::new();
    let po = mem.alloc(12 * n);
    t.run([n.div_ceil(128) as u32, 1, 1], &[po, n as u64, seed as u64], &mem);
    let got = get_f32(&mem, po, 3 * n);
    for i in 0..n {
        let c = philox(seed, i as u32);
        assert_eq!(got[3 * i + 1].to_bits(), c[0], "randint[{i}]");
        assert_eq!(got[3 * i + 2], uniform_float(c[0]), "rand[{i}]");
        // Box-Muller in f32: u1 floored at 1e-7, r = sqrt(-2 ln u1) (sqrt.approx, libdevice
        // log), cos(2π u2) with 2π u2 rounded (|θ| EPS absolute).
        let (u1, u2) = (uniform_float(c[0]).max(1.0e-7) as f64, uniform_float(c[1]) as f64);
        let (r, th) = ((-2.0 * u1.ln()).sqrt(), (std::f32::consts::TAU * u2 as f32) as f64);
        let want = r * th.cos();
        let tol = r * (16.0 * EPS + 2.0 * th * EPS) + 16.0 * EPS * want.abs();
        assert!((got[3 * i] as f64 - want).abs() <= tol, "randn[{i}]: got {}, want {want}", got[3 * i]);
    }
}

#[test]
fn masked_loads_take_their_other_values() {
    let mut rng = Rng::fresh("triton_real masked_other");
    let t = load("masked_other_sm80");
    let n = rng.next() as usize % 129;
    let x = uniform(&mut rng, n.max(1), -5.0, 5.0);
    let mem = Memory::new();
    let (px, po) = (put_f32(&mem, &x[..n.max(1)]), mem.alloc(4 * 128));
    t.run([1, 1, 1], &[px, po, n as u64], &mem);
    let got = get_f32(&mem, po, 128);
    for i in 0..128 {
        // Lanes past n read 2.5 and the integer -7 (sign -1).
        let (v, bits) = if i < n { (x[i], x[i].to_bits() as i32) } else { (2.5, -7) };
        assert_eq!(got[i], v.mul_add(2.0, (bits >> 31) as f32), "[{i}] n = {n}");
    }
}

#[test]
fn interleave_join_and_split() {
    let mut rng = Rng::fresh("triton_real join_split");
    let t = load("join_split_sm80");
    let (x, y) = (uniform(&mut rng, 64, -5.0, 5.0), uniform(&mut rng, 64, -5.0, 5.0));
    let mem = Memory::new();
    let (px, py, po, ps) = (put_f32(&mem, &x), put_f32(&mem, &y), mem.alloc(4 * 128), mem.alloc(4 * 64));
    t.run([1, 1, 1], &[px, py, po, ps], &mem);
    let want: Vec<f32> = x.iter().zip(&y).flat_map(|(&a, &b)| [a, b]).collect();
    assert_eq!(get_f32(&mem, po, 128), want);
    assert_eq!(get_f32(&mem, ps, 64), y.iter().zip(&x).map(|(&b, &a)| b - a).collect::<Vec<_>>());
}

#[test]
fn bitonic_sort_and_flip() {
    let mut rng = Rng::fresh("triton_real sort_flip");
    let t = load("sort_flip_sm80");
    // Some repeated values and both zeros.
    let mut x = uniform(&mut rng, 128, -50.0, 50.0);
    for i in 0..8 {
        x[(rng.next() % 128) as usize] = if i % 2 == 0 { 0.0 } else { 1.5 };
    }
    let mem = Memory::new();
    let (px, ps, pf) = (put_f32(&mem, &x), mem.alloc(4 * 128), mem.alloc(4 * 128));
    t.run([1, 1, 1], &[px, ps, pf], &mem);
    let mut sorted = x.clone();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(get_f32(&mem, ps, 128), sorted);
    assert_eq!(get_f32(&mem, pf, 128), x.iter().rev().cloned().collect::<Vec<_>>());
}

#[test]
fn gather_and_histogram() {
    let mut rng = Rng::fresh("triton_real gather_hist");
    let t = load("gather_hist_sm80");
    let x = uniform(&mut rng, 128, -5.0, 5.0);
    let idx: Vec<i32> = (0..128).map(|_| (rng.next() % 128) as i32).collect();
    let mem = Memory::new();
    let (px, pi, pg, ph) = (put_f32(&mem, &x), put_i32(&mem, &idx), mem.alloc(4 * 128), mem.alloc(4 * 16));
    t.run([1, 1, 1], &[px, pi, pg, ph], &mem);
    assert_eq!(get_f32(&mem, pg, 128), idx.iter().map(|&i| x[i as usize]).collect::<Vec<_>>());
    let mut hist = vec![0; 16];
    for &i in &idx {
        hist[(i % 16) as usize] += 1;
    }
    assert_eq!(get_i32(&mem, ph, 16), hist);
}

#[test]
fn minimum_maximum_and_nan() {
    let mut rng = Rng::fresh("triton_real nan_minmax");
    let t = load("nan_minmax_sm80");
    let mut x = uniform(&mut rng, 64, -5.0, 5.0);
    let mut y = uniform(&mut rng, 64, -5.0, 5.0);
    for i in 0..6 {
        x[(rng.next() % 64) as usize] = f32::NAN;
        y[(rng.next() % 64) as usize] = if i == 0 { f32::NAN } else { 0.0 };
    }
    let mem = Memory::new();
    let (px, py, po, pr) = (put_f32(&mem, &x), put_f32(&mem, &y), mem.alloc(4 * 256), mem.alloc(12));
    t.run([1, 1, 1], &[px, py, po, pr], &mem);
    let got = get_f32(&mem, po, 256);
    let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    for i in 0..64 {
        let (a, b) = (x[i], y[i]);
        let nan = if a.is_nan() || b.is_nan() { f32::NAN } else { 0.0 };
        // max.f32 / min.f32 give the number of a NaN and a number; max.NaN / min.NaN the NaN.
        let want = [
            a.max(b),
            a.min(b),
            if nan.is_nan() { nan } else { a.max(b) },
            if nan.is_nan() { nan } else { a.min(b) },
        ];
        for j in 0..4 {
            assert!(
                same(got[4 * i + j], want[j]),
                "[{i}][{j}] of {a}, {b}: got {}, want {}",
                got[4 * i + j],
                want[j]
            );
        }
    }
    // tl.max and tl.min reduce with max.f32 and min.f32: the NaNs drop out, even where
    // the source turns them into the canonical NaN first.
    let (mx, mn) = (x.iter().cloned().fold(f32::NAN, f32::max), y.iter().cloned().fold(f32::NAN, f32::min));
    assert_eq!(get_f32(&mem, pr, 3), [mx, mn, mx]);
}

#[test]
fn int8_uint8_and_int64_conversions() {
    let mut rng = Rng::fresh("triton_real convert");
    let t = load("convert_sm80");
    let n = 1 + rng.next() as usize % 700;
    // Small values, values past i16/u16 and past i32, NaN, infinities and -0.5.
    let special = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.5, 1e5, -1e5, 3e9, -3e9, 70000.0, 255.9];
    let x: Vec<f32> = (0..n)
        .map(|i| match i % 4 {
            0 => special[rng.next() as usize % special.len()],
            1 => (600.0 * rng.unit() - 300.0) as f32,
            _ => (8e9 * rng.unit() - 4e9) as f32,
        })
        .collect();
    let mem = Memory::new();
    let px = put_f32(&mem, &x);
    let (pi8, pu8, pi64, pf) = (mem.alloc(n), mem.alloc(n), mem.alloc(8 * n), mem.alloc(4 * n));
    t.run([n.div_ceil(128) as u32, 1, 1], &[px, pi8, pu8, pi64, pf, n as u64], &mem);
    let (i8s, u8s, i64s, fs) = (
        download(&mem, pi8, n, 1),
        download(&mem, pu8, n, 1),
        download(&mem, pi64, n, 8),
        get_f32(&mem, pf, n),
    );
    for i in 0..n {
        // cvt.rzi to s16/u16/s32/s64 saturates (NaN to 0), as Rust's `as` does; `st.b8`
        // keeps the low byte, `ld.b8` zero-extends it.
        let (a, b) = ((x[i] as i16) as i8, (x[i] as u16) as u8);
        let c = (x[i] as i64).wrapping_mul(3_000_000_000).wrapping_add(i as i64);
        let f = (a as f32 + b as f32) + (x[i] as i32) as u32 as f32;
        let got = (i8s[i] as u8 as i8, u8s[i] as u8, i64s[i] as i64, fs[i].to_bits());
        assert_eq!(got, (a, b, c, f.to_bits()), "x[{i}] = {:e}", x[i]);
    }
}

/// `x` rounded to fp8 with `mant` mantissa bits and the f16 exponent range (e5m2:
/// `mant` 2) or bias 7 (e4m3: `mant` 3), to nearest even, saturated to the largest finite
/// value `max`; NaN stays NaN.
fn fp8_round(x: f32, mant: i32, min_exp: i32, max: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    let a = (x as f64).abs();
    let e = if a == 0.0 { min_exp } else { (a.log2().floor() as i32).max(min_exp) };
    let q = 2f64.powi(e - mant);
    (((a / q).round_ties_even() * q).min(max)).copysign(x as f64)
}

fn fp8_inputs(rng: &mut Rng, n: usize) -> Vec<f32> {
    let special = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        57344.0,
        61439.0,
        61440.0,
        1e6,
        448.0,
        464.0,
        480.0,
    ];
    (0..n)
        .map(|i| match i % 5 {
            0 => special[rng.next() as usize % special.len()],
            // Ties of e5m2 and e4m3 (a multiple of an odd number of half quanta).
            1 => ((2 * (rng.next() % 64) + 1) as f64 * 2f64.powi(-((rng.next() % 24) as i32))) as f32,
            _ => ((2.0 * rng.unit() - 1.0) * 2f64.powi((rng.next() % 44) as i32 - 24)) as f32,
        })
        .collect()
}

#[test]
fn fp8_e5m2_round_trip_in_software() {
    let mut rng = Rng::fresh("triton_real fp8_round sm80");
    let t = load("fp8_round_sm80");
    let n = 1 + rng.next() as usize % 1000;
    let x = fp8_inputs(&mut rng, n);
    let mem = Memory::new();
    let (px, po) = (put_f32(&mem, &x), mem.alloc(8 * n));
    t.run([n.div_ceil(128) as u32, 1, 1], &[px, po, n as u64], &mem);
    let got = get_f32(&mem, po, 2 * n);
    let mut bad = vec![];
    for i in 0..n {
        let want = fp8_round(x[i], 2, -14, 57344.0);
        let g = got[2 * i] as f64;
        if !(g == want && g.is_sign_negative() == want.is_sign_negative() || g.is_nan() && want.is_nan()) {
            bad.push(format!("x = {:e} ({:#x}): got {g:e}, want {want:e}", x[i], x[i].to_bits()));
        }
    }
    assert!(bad.is_empty(), "{} of {n} wrong:\n{}", bad.len(), bad[..bad.len().min(20)].join("\n"));
}

#[test]
fn libdevice_functions_within_cuda_bounds() {
    use ptx_tools::ulp::error_f32;
    let mut rng = Rng::fresh("triton_real libdev");
    let t = load("libdev_sm80");
    let n = 1 + rng.next() as usize % 1000;
    let (x, y) = (uniform(&mut rng, n, -6.0, 6.0), uniform(&mut rng, n, -6.0, 6.0));
    let mem = Memory::new();
    let (px, py, po) = (put_f32(&mem, &x), put_f32(&mem, &y), mem.alloc(32 * n));
    t.run([n.div_ceil(128) as u32, 1, 1], &[px, py, po, n as u64], &mem);
    let got = get_f32(&mem, po, 8 * n);
    let names = ["tanh", "pow", "atan2", "floor+ceil", "fma", "exp", "log1p", "rint"];
    let mut worst = [0f64; 8];
    for i in 0..n {
        let (a, b) = (x[i] as f64, y[i] as f64);
        let want = [
            a.tanh(),
            a.abs().powf(b),
            a.atan2(b),
            a.floor() + b.ceil(),
            a.mul_add(b, 1.0),
            a.exp(),
            a.abs().ln_1p(),
            ((x[i] * 3.0) as f64).round_ties_even(),
        ];
        for j in 0..8 {
            worst[j] = worst[j].max(error_f32(got[8 * i + j], want[j]));
        }
    }
    // CUDA's documented bounds (powf 4 ulp, atan2f 3, fmaf correctly rounded, log1pf 1,
    // floor/ceil/rint exact); tanhf's and expf's 2 ulp grow to 3 here (2.07 and 2.31 seen):
    // their ex2.approx.ftz and rcp.approx.ftz are off by all the PTX ISA allows, more than
    // the GPU's.
    let bounds = [3.0, 4.0, 3.0, 0.0, 0.5, 3.0, 1.0, 0.0];
    for j in 0..8 {
        assert!(worst[j] <= bounds[j], "{}: {} ulp", names[j], worst[j]);
    }
}

/// What the simulator does not run: `tl.dot` on sm_90 (`fence.proxy.async`, `wgmma`), and
/// sm_90's fp8 conversions (`cvt` to and from `.e5m2x2`/`.e4m3x2`). Each is an error naming
/// the kernel, the construct and its line, never a panic or a wrong result. (`tl.dot` on
/// sm_80, `ldmatrix` and `mma.sync`, runs: `tests/tensor_core.rs`.)
#[test]
fn tensor_core_and_fp8_instructions_are_refused_by_name() {
    for (file, kernel, construct) in [
        ("dot_f16_sm90", "dot_f16", "fence.proxy.async.shared::cta"),
        ("fp8_round_sm90", "fp8_round", ".e5m2x2"),
    ] {
        let text = text(file);
        let line = text.lines().position(|l| l.contains(construct)).unwrap() + 1;
        let err = Module::parse(&text).map(drop).unwrap_err().to_string();
        assert!(
            err.contains(&format!("PTX line {line}:"))
                && err.contains(construct)
                && err.contains(&format!("in kernel `{kernel}`")),
            "{file}: {err}"
        );
    }
}
