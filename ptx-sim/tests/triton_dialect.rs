//! PTX that OpenAI Triton wrote (`tests/corpus/triton/*.ptx`, Triton 3.9 for sm_80 from
//! `kernels.py` beside them, whose first line records the launch metadata) on the
//! simulator, launched as Triton launches: one block per program, `num_warps`·32 threads,
//! the metadata's shared bytes as dynamic shared memory (`global_smem`), and the two
//! trailing scratch pointers (global and profile scratch) null, as Triton passes them to
//! kernels that need no scratch. Inputs are fresh random draws each run (seed printed);
//! results are compared with f64 references.
//!
//! Every launch runs with [`Approx::WorstCase`] (each `.approx` instruction off by the most
//! the PTX ISA allows) and global race checks, so a tolerance that passes holds on any GPU,
//! and buffers are exactly as large as the data, so a mask that lets one lane through
//! faults. Tolerances are written out per kernel; f32 rounding costs at most
//! `EPS = 2^-24` relative per operation.

mod common;

use common::triton::{assert_close, get_f32, philox, put_f32, put_i32, uniform, uniform_float, Triton, EPS};
use common::{download, upload};
use ptx_sim::{launch_with, Geometry, Memory, Module, SimOptions};
use ptx_tools::rng::Rng;
use ptx_tools::ulp::error_f32;

fn load(file: &str) -> Triton {
    common::triton::load("tests/corpus/triton", file)
}

/// Asserts each result is the f64 reference correctly rounded (within half an ulp, and
/// the reference is far closer than that to the exact value).
fn assert_rounded(what: &str, got: &[f32], want: &[f64]) {
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(error_f32(g, w) <= 0.5, "{what}[{i}]: got {g:e}, want {w:e}");
    }
}

#[test]
fn vec_add_with_vector_and_scalar_accesses() {
    let mut rng = Rng::fresh("triton vec_add");
    // The aligned build assumes n divisible by 16 (as Triton's JIT specialises it); the
    // unaligned one takes any n.
    for (file, n) in
        [("vec_add", 16 * (130 + rng.next() % 200)), ("vec_add_unaligned", 1000 + rng.next() % 2000)]
    {
        let n = n as usize;
        let t = load(file);
        let mem = Memory::new();
        let (x, y) = (uniform(&mut rng, n, -100.0, 100.0), uniform(&mut rng, n, -100.0, 100.0));
        let (px, py, po) = (put_f32(&mem, &x), put_f32(&mem, &y), mem.alloc(4 * n));
        t.run([n.div_ceil(1024) as u32, 1, 1], &[px, py, po, n as u64], &mem);
        let want: Vec<f64> = x.iter().zip(&y).map(|(&a, &b)| a as f64 + b as f64).collect();
        // One f32 addition: the exact sum rounded.
        assert_rounded(file, &get_f32(&mem, po, n), &want);
    }
}

#[test]
fn scale_bias_relu_with_an_evict_last_cache_policy() {
    let mut rng = Rng::fresh("triton scale_bias_relu");
    let (rows, cols) = (9 + rng.next() as usize % 20, 30 + rng.next() as usize % 35);
    let t = load("scale_bias_relu");
    let mem = Memory::new();
    let x = uniform(&mut rng, rows * cols, -4.0, 4.0);
    let bias = uniform(&mut rng, cols, -1.0, 1.0);
    let scale = (0.5 + rng.unit()) as f32;
    let (px, pb, po) = (put_f32(&mem, &x), put_f32(&mem, &bias), mem.alloc(4 * rows * cols));
    t.run(
        [rows.div_ceil(4) as u32, 1, 1],
        &[px, pb, po, rows as u64, cols as u64, scale.to_bits() as u64],
        &mem,
    );
    let want: Vec<f64> =
        (0..rows * cols).map(|i| (x[i] as f64 * scale as f64 + bias[i % cols] as f64).max(0.0)).collect();
    // One fused multiply-add (the product is exact in f64), then max with 0: rounded once.
    assert_rounded("scale_bias_relu", &get_f32(&mem, po, rows * cols), &want);
}

#[test]
fn row_softmax_reduces_across_warps() {
    let mut rng = Rng::fresh("triton softmax");
    let (rows, cols) = (3 + rng.next() as usize % 4, 260 + rng.next() as usize % 250);
    let t = load("softmax");
    let mem = Memory::new();
    let x = uniform(&mut rng, rows * cols, -4.0, 4.0);
    let (px, po) = (put_f32(&mem, &x), mem.alloc(4 * rows * cols));
    t.run([rows as u32, 1, 1], &[px, po, cols as u64, cols as u64], &mem);
    let got = get_f32(&mem, po, rows * cols);
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let max = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let e: Vec<f64> = row.iter().map(|&v| (v as f64 - max).exp()).collect();
        let sum: f64 = e.iter().sum();
        let want: Vec<f64> = e.iter().map(|v| v / sum).collect();
        // Relative, per element: x - max (exact, Sterbenz) times log2(e) rounded twice (the
        // constant and the product, |x·log2 e| <= 12: 2·12·ln2·EPS), ex2 (2 ulp = 4 EPS),
        // the sum of at most 512 terms (9 tree levels plus one per warp partial: 12 EPS),
        // the division (2 ulp = 4 EPS): about 37 EPS; 64 EPS leaves room.
        assert_close("softmax", &got[r * cols..(r + 1) * cols], &want, |w| 64.0 * EPS * w);
    }
}

#[test]
fn layer_norm_with_mean_and_rstd() {
    let mut rng = Rng::fresh("triton layer_norm");
    let (rows, cols) = (3 + rng.next() as usize % 5, 100 + rng.next() as usize % 157);
    let t = load("layer_norm");
    let mem = Memory::new();
    let x = uniform(&mut rng, rows * cols, 1.0, 5.0);
    let (w, b) = (uniform(&mut rng, cols, 0.5, 1.5), uniform(&mut rng, cols, -1.0, 1.0));
    let eps = 1e-5f32;
    let (px, pw, pb) = (put_f32(&mem, &x), put_f32(&mem, &w), put_f32(&mem, &b));
    let (po, pm, pr) = (mem.alloc(4 * rows * cols), mem.alloc(4 * rows), mem.alloc(4 * rows));
    t.run([rows as u32, 1, 1], &[px, pw, pb, po, pm, pr, cols as u64, eps.to_bits() as u64], &mem);
    let (got, got_mean, got_rstd) =
        (get_f32(&mem, po, rows * cols), get_f32(&mem, pm, rows), get_f32(&mem, pr, rows));
    for r in 0..rows {
        let row: Vec<f64> = x[r * cols..(r + 1) * cols].iter().map(|&v| v as f64).collect();
        let mean = row.iter().sum::<f64>() / cols as f64;
        let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / cols as f64;
        let rstd = 1.0 / (var + eps as f64).sqrt();
        let want: Vec<f64> = (0..cols).map(|c| (row[c] - mean) * rstd * w[c] as f64 + b[c] as f64).collect();
        // The sums of at most 256 terms cost about 12 EPS relative to the sum of |terms|
        // (9 tree levels, warp partials, the division by cols): the mean, in [1, 5), to
        // 12·5 EPS absolute; the variance (about 4/3) to 12 EPS relative plus the mean's
        // error squared (negligible); sqrt (2^-23) and the reciprocal (2 ulp) add 6 EPS
        // to rstd: 20 EPS relative, so 32. An output d·rstd·w + b, |d·rstd·w| <= 3, takes
        // the mean's error times rstd (<= 2: 600 EPS), rstd's (3·20 EPS) and three
        // roundings: under 700 EPS absolute, so 1024 EPS.
        assert_close("mean", &got_mean[r..r + 1], &[mean], |_| 64.0 * EPS * 5.0);
        assert_close("rstd", &got_rstd[r..r + 1], &[rstd], |w| 32.0 * EPS * w);
        assert_close("layer_norm", &got[r * cols..(r + 1) * cols], &want, |_| 1024.0 * EPS);
    }
}

#[test]
fn rope_with_libdevice_sin_and_cos() {
    let mut rng = Rng::fresh("triton rope");
    let (tokens, heads, half) = (2 + rng.next() as usize % 6, 1 + rng.next() as usize % 4, 32);
    let t = load("rope");
    let mem = Memory::new();
    let x = uniform(&mut rng, tokens * heads * 2 * half, -2.0, 2.0);
    let pos: Vec<i32> = (0..tokens).map(|_| (rng.next() % 16) as i32).collect();
    let (px, pp, po) = (put_f32(&mem, &x), put_i32(&mem, &pos), mem.alloc(4 * x.len()));
    t.run([(tokens * heads) as u32, 1, 1], &[px, pp, po, heads as u64], &mem);
    let got = get_f32(&mem, po, x.len());
    for p in 0..tokens * heads {
        let base = p * 2 * half;
        for i in 0..half {
            let inv_freq = 10000f64.powf(-(2.0 * i as f64) / (2 * half) as f64);
            let theta = pos[p / heads] as f64 * inv_freq;
            let (x1, x2) = (x[base + i] as f64, x[base + half + i] as f64);
            let want = [x1 * theta.cos() - x2 * theta.sin(), x2 * theta.cos() + x1 * theta.sin()];
            let g = [got[base + i], got[base + half + i]];
            // theta: the exponent argument (<= log2(10000) = 13.3) rounded (13.3·ln2 EPS
            // relative in inv_freq), ex2 (4 EPS), the product with pos < 16: about 20 EPS
            // relative, so at most 16·20 EPS absolute; libdevice sin/cos (2 ulp) and the
            // products and sum add 8 EPS of |x1| + |x2|: (330 + 8)·EPS·(|x1|+|x2|); 512.
            assert_close(&format!("rope[{p}][{i}]"), &g, &want, |_| 512.0 * EPS * (x1.abs() + x2.abs()));
        }
    }
}

#[test]
fn sum_and_max_through_float_atomics() {
    let mut rng = Rng::fresh("triton sum_atomic");
    let n = 2000 + rng.next() as usize % 3000;
    let t = load("sum_atomic");
    let mem = Memory::new();
    let x = uniform(&mut rng, n, -1.0, 1.0);
    let px = put_f32(&mem, &x);
    let po = put_f32(&mem, &[0.0, f32::NEG_INFINITY]);
    let programs = n.div_ceil(512);
    t.run([programs as u32, 1, 1], &[px, po, n as u64], &mem);
    let got = get_f32(&mem, po, 2);
    let sum: f64 = x.iter().map(|&v| v as f64).sum();
    let abs: f64 = x.iter().map(|&v| v.abs() as f64).sum();
    // Each program sums 512 terms in a tree (9 levels, plus the warp partials: 12 EPS of
    // the sum of |terms|), the atomics add the partials in any order (one EPS per program).
    assert_close("sum", &got[..1], &[sum], |_| (12 + programs) as f64 * EPS * abs);
    // The maximum (Triton's atom.max.s32 / atom.min.u32 pair on the bits) is exact.
    let max = x.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v));
    assert_eq!(got[1], max);
}

#[test]
fn where_selects_and_clamps() {
    let mut rng = Rng::fresh("triton where_clamp");
    let n = 500 + rng.next() as usize % 1000;
    let t = load("where_clamp");
    let mem = Memory::new();
    let x = uniform(&mut rng, n, -8.0, 8.0);
    let (alpha, lo, hi) = (rng.unit() as f32 * 0.5, -1.5f32, 3.0f32);
    let (px, po) = (put_f32(&mem, &x), mem.alloc(4 * n));
    let bits = |v: f32| v.to_bits() as u64;
    t.run([n.div_ceil(128) as u32, 1, 1], &[px, po, n as u64, bits(alpha), bits(lo), bits(hi)], &mem);
    let want: Vec<f64> = x
        .iter()
        .map(|&v| {
            let y = if v > 0.0 { v as f64 } else { alpha as f64 * v as f64 };
            y.clamp(lo as f64, hi as f64)
        })
        .collect();
    // One rounded product, or none.
    assert_rounded("where_clamp", &get_f32(&mem, po, n), &want);
}

#[test]
fn integer_ops_wrap_and_truncate() {
    let mut rng = Rng::fresh("triton int_ops");
    let n = 300 + rng.next() as usize % 700;
    let t = load("int_ops");
    let mem = Memory::new();
    let a: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
    // Divisors: small ones of both signs and full-range ones, never 0.
    let b: Vec<i32> = (0..n)
        .map(|i| {
            let r = rng.next();
            let v = if i % 2 == 0 { (r % 200) as i32 - 100 } else { (r >> 32) as i32 };
            if v == 0 {
                7
            } else {
                v
            }
        })
        .collect();
    let (pa, pb, po) = (put_i32(&mem, &a), put_i32(&mem, &b), mem.alloc(16 * n));
    t.run([n.div_ceil(128) as u32, 1, 1], &[pa, pb, po, n as u64], &mem);
    let got = download(&mem, po, 4 * n, 4);
    for i in 0..n {
        let (a, b) = (a[i], b[i]);
        // Triton's integer `//` and `%` truncate toward zero, as C does.
        let h = a.wrapping_mul(-1_640_531_535) ^ (a >> 7);
        let q = a.wrapping_div(b);
        let u = ((a as u32) >> 3) as i32;
        let m = a.min(b).wrapping_add(h.max(q));
        let want = [h, q, a.wrapping_rem(b).wrapping_add(u), m].map(|v| v as u32 as u64);
        assert_eq!(got[4 * i..4 * i + 4], want, "a = {a}, b = {b}");
    }
}

/// The f16 nearest `x` (ties to even), as bits; `x` finite and below 65520 in magnitude.
fn f16_bits(x: f32) -> u16 {
    let (sign, a) = (if x.is_sign_negative() { 0x8000 } else { 0 }, x.abs() as f64);
    let e = if a < 2f64.powi(-14) { -14 } else { ((a.to_bits() >> 52) as i32) - 1023 };
    let m = (a / 2f64.powi(e - 10)).round_ties_even() as u16;
    // A normal's mantissa counts from 1024; rounding up to 2048 carries into the exponent.
    sign | if a < 2f64.powi(-14) { m } else { (((e + 15) as u16) << 10) + m - 1024 }
}

fn f16_value(h: u16) -> f32 {
    let (e, m) = ((h >> 10) & 0x1f, (h & 0x3ff) as f64);
    let v = if e == 0 { m * 2f64.powi(-24) } else { (1024.0 + m) * 2f64.powi(e as i32 - 25) };
    (if h & 0x8000 != 0 { -v } else { v }) as f32
}

#[test]
fn half_loads_convert_and_store() {
    let mut rng = Rng::fresh("triton half_scale");
    let n = 16 * (40 + rng.next() as usize % 100);
    let t = load("half_scale");
    let mem = Memory::new();
    // f16 with exponents 2^-20 (subnormal) .. 2^4, random sign and mantissa.
    let mut draw = || (rng.next() as u16 & 0x83ff) | ((rng.next() % 20) as u16) << 10;
    let (x, y): (Vec<u16>, Vec<u16>) = (0..n).map(|_| (draw(), draw())).unzip();
    let scale = (0.25 + rng.unit() * 4.0) as f32;
    let (px, py) = (upload(&mem, &x.iter().map(|&h| h as u64).collect::<Vec<_>>(), 2), {
        upload(&mem, &y.iter().map(|&h| h as u64).collect::<Vec<_>>(), 2)
    });
    let po = mem.alloc(2 * n);
    t.run([n.div_ceil(512) as u32, 1, 1], &[px, py, po, n as u64, scale.to_bits() as u64], &mem);
    let got = download(&mem, po, n, 2);
    for i in 0..n {
        // fma.rn.f32 (f32's fused multiply-add is that one rounding) then cvt.rn.f16.f32:
        // exact bits.
        let want = f16_bits(f16_value(x[i]).mul_add(scale, f16_value(y[i])));
        assert_eq!(got[i], want as u64, "x {:#06x} y {:#06x} scale {scale}", x[i], y[i]);
    }
}

#[test]
fn math_functions_within_their_bounds() {
    let mut rng = Rng::fresh("triton math_fns");
    let n = 300 + rng.next() as usize % 700;
    let t = load("math_fns");
    let mem = Memory::new();
    let x = uniform(&mut rng, n, 0.05, 20.0);
    let (px, po) = (put_f32(&mem, &x), mem.alloc(24 * n));
    t.run([n.div_ceil(128) as u32, 1, 1], &[px, po, n as u64], &mem);
    let got = get_f32(&mem, po, 6 * n);
    let column = |j: usize| -> Vec<f32> { (0..n).map(|i| got[6 * i + j]).collect() };
    let xs: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let map = |f: fn(f64) -> f64| -> Vec<f64> { xs.iter().map(|&v| f(v)).collect() };
    // exp: ex2.approx (2 ulp) of x·log2(e), the constant and product rounded (|x·log2 e|
    // <= 29 costs 2·29·ln2·EPS relative): 44 EPS; 64.
    assert_close("exp", &column(0), &map(f64::exp), |w| 64.0 * EPS * w);
    // log: libdevice's logf, within 1 ulp; 2 allowed.
    for (i, (&g, w)) in column(1).iter().zip(map(f64::ln)).enumerate() {
        assert!(error_f32(g, w) <= 2.0, "log[{i}]: got {g:e}, want {w:e}");
    }
    // sqrt.approx (2^-23 relative), rsqrt.approx (2^-22.9): 3 EPS; 4.
    assert_close("sqrt", &column(2), &map(f64::sqrt), |w| 4.0 * EPS * w);
    assert_close("rsqrt", &column(3), &map(|v| 1.0 / v.sqrt()), |w| 4.0 * EPS * w);
    // exp2 (ex2.approx: 2 ulp, 4 EPS of 2^x <= |w| + 4.4) plus log2 (lg2.approx: 2^-22.6
    // = 2.6 EPS absolute below 1, else relative; |log2 x| < 4.4), and the sum rounded
    // (EPS of |w|): within 8 EPS of |w| + 4.4.
    let want = map(|v| v.exp2() + v.log2());
    assert_close("exp2 + log2", &column(4), &want, |w| 8.0 * EPS * (w.abs() + 4.4));
    // sqrt_rn and div_rn are correctly rounded, and so their f32 sum: exact bits.
    for (i, (&g, &v)) in column(5).iter().zip(&x).enumerate() {
        assert_eq!(g, v.sqrt() + v / 3.0, "sqrt_rn + div_rn [{i}]");
    }
}

#[test]
fn tiled_transpose_through_shared_memory() {
    let mut rng = Rng::fresh("triton transpose");
    let (rows, cols) = (20 + rng.next() as usize % 80, 20 + rng.next() as usize % 80);
    let t = load("transpose");
    let mem = Memory::new();
    let x = uniform(&mut rng, rows * cols, -1.0, 1.0);
    let (px, po) = (put_f32(&mem, &x), mem.alloc(4 * rows * cols));
    t.run([rows.div_ceil(32) as u32, cols.div_ceil(32) as u32, 1], &[px, po, rows as u64, cols as u64], &mem);
    let got = get_f32(&mem, po, rows * cols);
    for r in 0..rows {
        for c in 0..cols {
            assert_eq!(got[c * rows + r], x[r * cols + c], "({r}, {c})");
        }
    }
}

#[test]
fn row_sum_in_a_loop() {
    let mut rng = Rng::fresh("triton row_sum_loop");
    let (rows, cols) = (2 + rng.next() as usize % 5, 300 + rng.next() as usize % 1200);
    let t = load("row_sum_loop");
    let mem = Memory::new();
    let x = uniform(&mut rng, rows * cols, -1.0, 1.0);
    let (px, po) = (put_f32(&mem, &x), mem.alloc(4 * rows));
    t.run([rows as u32, 1, 1], &[px, po, cols as u64], &mem);
    let got = get_f32(&mem, po, rows);
    let iterations = cols.div_ceil(256);
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let sum: f64 = row.iter().map(|&v| v as f64).sum();
        let abs: f64 = row.iter().map(|&v| v.abs() as f64).sum();
        // Each lane adds one term per iteration in turn, then the 256 lane sums meet in a
        // tree (8 levels, plus the warp partials): (iterations + 12) EPS of the sum of |x|.
        assert_close("row_sum", &got[r..r + 1], &[sum], |_| (iterations + 12) as f64 * EPS * abs);
    }
}

#[test]
fn integer_prefix_sum_wraps() {
    let mut rng = Rng::fresh("triton cumsum");
    let n = 100 + rng.next() as usize % 157;
    let t = load("cumsum");
    let mem = Memory::new();
    let x: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
    let (px, po) = (put_i32(&mem, &x), mem.alloc(4 * n));
    t.run([1, 1, 1], &[px, po, n as u64], &mem);
    let want: Vec<u64> = x
        .iter()
        .scan(0i32, |acc, &v| {
            *acc = acc.wrapping_add(v);
            Some(*acc as u32 as u64)
        })
        .collect();
    assert_eq!(download(&mem, po, n, 4), want);
}

#[test]
fn argmax_takes_the_first_of_equal_maxima() {
    let mut rng = Rng::fresh("triton argmax");
    let (rows, cols) = (4 + rng.next() as usize % 5, 100 + rng.next() as usize % 157);
    let t = load("argmax");
    let mem = Memory::new();
    let mut x = uniform(&mut rng, rows * cols, -10.0, 10.0);
    // Every other row gets its maximum twice more, at random places.
    for r in (0..rows).step_by(2) {
        let row = &mut x[r * cols..(r + 1) * cols];
        let max = row.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v));
        for _ in 0..2 {
            row[rng.next() as usize % cols] = max;
        }
    }
    let (px, po) = (put_f32(&mem, &x), mem.alloc(4 * rows));
    t.run([rows as u32, 1, 1], &[px, po, cols as u64], &mem);
    let want: Vec<u64> = (0..rows)
        .map(|r| {
            let row = &x[r * cols..(r + 1) * cols];
            let max = row.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v));
            row.iter().position(|&v| v == max).unwrap() as u64
        })
        .collect();
    assert_eq!(download(&mem, po, rows, 4), want);
}

#[test]
fn bf16_gelu_with_erf_and_sigmoid() {
    let mut rng = Rng::fresh("triton gelu_bf16");
    let n = 1000 + rng.next() as usize % 3000;
    let t = load("gelu_bf16");
    let mem = Memory::new();
    // bf16 inputs: f32 draws in [-4, 4) cut to their top 16 bits.
    let x: Vec<u16> = uniform(&mut rng, n, -4.0, 4.0).iter().map(|v| (v.to_bits() >> 16) as u16).collect();
    let px = upload(&mem, &x.iter().map(|&h| h as u64).collect::<Vec<_>>(), 2);
    let po = mem.alloc(2 * n);
    t.run([n.div_ceil(1024) as u32, 1, 1], &[px, po, n as u64], &mem);
    let got: Vec<f32> =
        download(&mem, po, n, 2).into_iter().map(|h| f32::from_bits((h as u32) << 16)).collect();
    let want: Vec<f64> = x
        .iter()
        .map(|&h| {
            let v = f32::from_bits((h as u32) << 16) as f64;
            0.5 * v * (1.0 + erf(v / std::f64::consts::SQRT_2)) + 1.0 / (1.0 + (-v).exp())
        })
        .collect();
    // The f32 result (libdevice erff, ex2.approx, div.full: a few EPS) rounded to bf16:
    // half a bf16 ulp, at most 2^-8 of the value (the result is positive for x > -4.3).
    assert_close("gelu_bf16", &got, &want, |w| w / 256.0 + 16.0 * EPS * w);
}

/// erf by its Taylor series (|x| < 3: 60 terms reach f64's precision) and its continued
/// fraction beyond.
fn erf(x: f64) -> f64 {
    if x.abs() >= 3.0 {
        // erfc(x) = exp(-x^2)/sqrt(pi) / (x + 1/2/(x + 1/(x + 3/2/(x + ...)))).
        let a = x.abs();
        let mut f = a;
        for k in (1..60).rev() {
            f = a + k as f64 / 2.0 / f;
        }
        let erfc = (-a * a).exp() / std::f64::consts::PI.sqrt() / f;
        return (1.0 - erfc).copysign(x);
    }
    let (mut term, mut sum) = (x, x);
    for k in 1..60 {
        term *= -x * x / k as f64;
        sum += term / (2 * k + 1) as f64;
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

/// Triton's `tl.rand(seed, offset)`: Philox 4x32 with 10 rounds on counter (offset, 0,
/// 0, 0) and key (seed, 0) (`seed` below 2^31), its first word as an i32 folded onto
/// [0, 2^31) and scaled into [0, 1) in f32.
fn triton_rand(seed: u32, offset: u32) -> f32 {
    uniform_float(philox(seed, offset)[0])
}

#[test]
fn dropout_with_philox_random_numbers() {
    let mut rng = Rng::fresh("triton dropout");
    let n = 1000 + rng.next() as usize % 3000;
    let t = load("dropout");
    let mem = Memory::new();
    let x = uniform(&mut rng, n, -3.0, 3.0);
    let (p, seed) = ((0.2 + 0.6 * rng.unit()) as f32, (rng.next() >> 33) as u32);
    let (px, po) = (put_f32(&mem, &x), mem.alloc(4 * n));
    t.run([n.div_ceil(256) as u32, 1, 1], &[px, po, n as u64, p.to_bits() as u64, seed as u64], &mem);
    let got = get_f32(&mem, po, n);
    let mut kept = 0;
    for i in 0..n {
        // The mask is exact (Philox is integer arithmetic, the scaling one f32 product);
        // the kept values are x / (1 - p): 1 - p rounded, then div.full (2 ulp): 8 EPS.
        if triton_rand(seed, i as u32) > p {
            kept += 1;
            let want = x[i] as f64 / (1.0 - p) as f64;
            assert_close(&format!("dropout[{i}]"), &got[i..i + 1], &[want], |w| 8.0 * EPS * w.abs());
        } else {
            assert_eq!(got[i].to_bits(), 0, "dropout[{i}] dropped");
        }
    }
    // The reference itself draws uniformly: about 1 - p of the values are kept.
    let share = kept as f64 / n as f64;
    assert!((share - (1.0 - p as f64)).abs() < 0.06, "kept {share} with p = {p}");
}

/// What the simulator does not run yet: the bulk copies of Hopper's TMA, `wgmma`,
/// `mbarrier` and async-proxy fences. Each module is an error naming the first such
/// instruction and its line, never a panic or a wrong result. (`tl.dot` on sm_80,
/// `ldmatrix` and `mma.sync`, runs: `matmul.ptx` in `tests/tensor_core.rs`.)
#[test]
fn unsupported_instructions_are_refused_by_name() {
    for (stmt, opcode) in [
        ("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r2, %r3, %r4, %r5}, {%r6, %r7}, {%r10, %r11}, {%r2, %r3, %r4, %r5}, %r8, 0x0;", "mma.sp"),
        ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], 16, [%r3];", "cp.async.bulk"),
        ("cp.async.mbarrier.arrive.b64 [%r2];", "cp.async.mbarrier.arrive"),
        ("mbarrier.init.shared::cta.b64 [%r2], 1;", "mbarrier.init"),
        ("fence.proxy.async.shared::cta;", "fence.proxy.async"),
        ("wgmma.fence.sync.aligned;", "wgmma.fence"),
        ("wgmma.commit_group.sync.aligned;", "wgmma.commit_group"),
    ] {
        let text = triton_style(&format!("\tmov.b32 \t%r2, global_smem;\n\t{stmt}"));
        let line = text.lines().position(|l| l.contains(stmt)).unwrap() + 1;
        let err = std::panic::catch_unwind(|| Module::parse(&text).map(drop))
            .unwrap_or_else(|_| panic!("{stmt}: panicked"))
            .unwrap_err()
            .to_string();
        assert!(err.contains(&format!("line {line}:")) && err.contains(&format!("`{opcode}")), "{stmt}: {err}");
    }
}

/// A module in Triton's style around `body`: one `.u64` pointer parameter in `%rd1`, the
/// thread index in `%r1`, dynamic shared memory `global_smem`.
fn triton_style(body: &str) -> String {
    format!(
        "//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.8\n.target sm_80\n.address_size 64\n\n\
         .extern .shared .align 16 .b8 global_smem[];\n\n\
         .visible .entry k(\n\t.param .u64 .ptr .global .align 16 k_param_0\n)\n.reqntid 64\n{{\n\
         \t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<16>;\n\t.reg .b64 \t%rd<16>;\n\
         \tld.param.b64 \t%rd1, [k_param_0];\n\tmov.u32 \t%r1, %tid.x;\n{body}\n\tret;\n}}\n"
    )
}

/// Runs `text`'s kernel `k` on one block of 64 threads over `data` (u32 words) with 1024
/// bytes of dynamic shared memory and global race checks; the words after, or the error.
fn run_style(text: &str, data: &[u32]) -> Result<Vec<u32>, String> {
    let m = Module::parse(text).map_err(|e| e.to_string())?;
    let mem = Memory::new();
    let buf = upload(&mem, &data.iter().map(|&v| v as u64).collect::<Vec<_>>(), 4);
    let geometry = Geometry { grid: [1, 1, 1], block: [64, 1, 1], dynamic_shared_bytes: 1024 };
    let options = SimOptions { global_race_check: true, ..SimOptions::default() };
    launch_with(m.kernel("k").unwrap(), &geometry, &[buf], &mem, 1, &options).map_err(|e| e.to_string())?;
    Ok(download(&mem, buf, data.len(), 4).into_iter().map(|v| v as u32).collect())
}

/// `createpolicy` in its three forms and the cache qualifiers of `ld`/`st` (eviction
/// priorities, `.L2::cache_hint` with its policy operand, prefetch sizes) change nothing a
/// thread reads or writes; forms the PTX ISA does not define are errors naming the line.
#[test]
fn cache_policies_and_hints_are_accepted_and_checked() {
    let body =
        "\tmul.wide.u32 \t%rd2, %r1, 16;\n\tadd.s64 \t%rd3, %rd1, %rd2;\n\tsetp.lt.u32 \t%p1, %r1, 20;\n\
        \t// begin inline asm\n\tmov.u64 %rd4, 0x0;\n\
        \tcreatepolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %rd4, 0.5;\n\t// end inline asm\n\
        \tcreatepolicy.range.global.L2::evict_last.L2::evict_first.b64 \t%rd5, [%rd1], 64, 128;\n\
        \tcreatepolicy.cvt.L2.b64 \t%rd6, %rd5;\n\tcreatepolicy.fractional.L2::evict_normal.b64 \t%rd7;\n\
        \tmov.u32 %r2, 0x0;\n\tmov.u32 %r3, 0x0;\n\tmov.u32 %r4, 0x0;\n\tmov.u32 %r5, 0x0;\n\
        \t@%p1 ld.global.L1::evict_last.L2::cache_hint.v4.b32 { %r2, %r3, %r4, %r5 }, [ %rd3 + 0 ], %rd4;\n\
        \t@%p1 ld.global.nc.L1::no_allocate.L2::256B.b32 { %r6 }, [ %rd3 + 4 ];\n\
        \tadd.s32 \t%r7, %r2, %r6;\n\tadd.s32 \t%r8, %r5, 1;\n\
        \t@%p1 st.global.L1::evict_first.L2::cache_hint.v2.b32 [ %rd3 + 0 ], { %r7, %r8 }, %rd6;\n\
        \t@%p1 st.global.L1::no_allocate.b32 [ %rd3 + 12 ], %r3;";
    let text = triton_style(body);
    let data: Vec<u32> = (0..4 * 64).map(|i| 1000 + 7 * i).collect();
    let got = run_style(&text, &data).unwrap();
    for t in 0..64 {
        let w = &data[4 * t..4 * t + 4];
        // Threads below 20: word 0 += word 1, word 1 = word 3 + 1, word 3 = word 1.
        let want = if t < 20 { [w[0] + w[1], w[3] + 1, w[2], w[1]] } else { [w[0], w[1], w[2], w[3]] };
        assert_eq!(got[4 * t..4 * t + 4], want, "thread {t}");
    }
    for (from, to, what) in [
        (
            "ld.global.L1::evict_last.L2::cache_hint.v4",
            "ld.shared.L1::evict_last.L2::cache_hint.v4",
            "ld.shared",
        ),
        (
            "ld.global.nc.L1::no_allocate.L2::256B.b32",
            "ld.global.nc.L1::evict_everything.b32",
            "evict_everything",
        ),
        ("st.global.L1::no_allocate.b32", "st.global.L2::128B.b32", "st.global.L2::128B"),
        (
            "{ %r2, %r3, %r4, %r5 }, [ %rd3 + 0 ], %rd4;",
            "{ %r2, %r3, %r4, %r5 }, [ %rd3 + 0 ];",
            "takes 3 operand",
        ),
        ("{ %r7, %r8 }, %rd6;", "{ %r7, %r8 }, %r6;", "`%r6` is a .b32 register"),
        ("%rd4, 0.5;", "%rd4, 1.5;", "fraction in (0, 1]"),
        (
            "L2::evict_first.L2::evict_unchanged.b64",
            "L2::evict_first.L2::evict_last.b64",
            "createpolicy.fractional",
        ),
        ("createpolicy.cvt.L2.b64", "createpolicy.cvt.L1.b64", "createpolicy.cvt.L1"),
    ] {
        let bad = text.replace(from, to);
        assert_ne!(bad, text, "{from}");
        let line = bad.lines().position(|l| l.contains(to)).unwrap() + 1;
        let err = run_style(&bad, &data).unwrap_err();
        assert!(err.contains(&format!("line {line}")) && err.contains(what), "{to}: {err}");
    }
}

/// Triton's reductions end with every lane of a warp storing the warp's result to one
/// shared word before a barrier. Stores of the value memory already holds leave the same
/// memory in any order, so they are no race; nor are one instruction's stores of different
/// values by the lanes of one warp (one lane's value lands, as on the GPU); stores by
/// different warps still are, in shared and in global memory.
#[test]
fn lanes_storing_one_value_to_one_word_are_no_race() {
    // Word `warp` of shared memory gets `v`; thread 0 copies both words out after the
    // barrier, and every thread stores `v` to global word 2 + warp.
    let body = |v: &str| {
        format!(
            "\tshr.u32 \t%r2, %r1, 5;\n\t{v}\n\tmov.b32 \t%r4, global_smem;\n\tshl.b32 \t%r5, %r2, 2;\n\
             \tadd.s32 \t%r6, %r4, %r5;\n\tst.shared.b32 \t[%r6], %r3;\n\
             \tmul.wide.u32 \t%rd2, %r2, 4;\n\tadd.s64 \t%rd3, %rd1, %rd2;\n\tst.global.b32 \t[%rd3+8], %r3;\n\
             \tbar.sync \t0;\n\tsetp.eq.s32 \t%p1, %r1, 0;\n\
             \tld.shared.v2.b32 \t{{%r7, %r8}}, [global_smem];\n\t@%p1 st.global.v2.b32 \t[%rd1], {{%r7, %r8}};"
        )
    };
    // One value per warp: 5 and 15.
    let same = triton_style(&body("mad.lo.s32 \t%r3, %r2, 10, 5;"));
    assert_eq!(run_style(&same, &[0; 4]).unwrap(), [5, 15, 5, 15]);
    // One value per lane, one word per warp: each word holds a value of a lane of its warp
    // (the simulator's is the last lane's).
    let per_warp = triton_style(&body("mov.u32 \t%r3, %r1;"));
    let got = run_style(&per_warp, &[0; 4]).unwrap();
    assert!(got[0] < 32 && (32..64).contains(&got[1]) && got[2..] == got[..2], "{got:?}");
    // Both warps to word 0: the shared store is a race, and so is the global one (the
    // shared word moved to a register's copy so that only the global store differs).
    let differ = per_warp.replace("shr.u32 \t%r2, %r1, 5;", "shr.u32 \t%r2, %r1, 31;");
    let err = run_style(&differ, &[0; 4]).unwrap_err();
    assert!(err.contains("race") && err.contains("st.shared.b32"), "{err}");
    let global_only = differ.replace("st.shared.b32 \t[%r6], %r3;", "st.shared.b32 \t[%r6], %r2;");
    let err = run_style(&global_only, &[0; 4]).unwrap_err();
    assert!(err.contains("race") && err.contains("st.global.b32"), "{err}");
}

/// `.shared::cta` is `.shared` spelled out (Triton's scans write it); `.shared::cluster`
/// (another block's shared memory) is refused by name.
#[test]
fn shared_cta_is_shared_memory() {
    // Thread t stores t + 100 to shared word t, then after the barrier reads word 63 - t,
    // once through `.shared::cta` and once through a generic address, and stores the sum.
    let body = "\tmov.b32 \t%r2, global_smem;\n\tshl.b32 \t%r3, %r1, 2;\n\tadd.s32 \t%r4, %r2, %r3;\n\
        \tadd.s32 \t%r5, %r1, 100;\n\tst.shared::cta.b32 \t[%r4], %r5;\n\tbar.sync \t0;\n\
        \tsub.s32 \t%r6, 252, %r3;\n\tadd.s32 \t%r7, %r2, %r6;\n\tld.shared::cta.b32 \t%r8, [%r7];\n\
        \tcvt.u64.u32 \t%rd2, %r7;\n\tcvta.shared::cta.u64 \t%rd3, %rd2;\n\tld.b32 \t%r9, [%rd3];\n\
        \tadd.s32 \t%r10, %r8, %r9;\n\tmul.wide.u32 \t%rd4, %r1, 4;\n\tadd.s64 \t%rd5, %rd1, %rd4;\n\
        \tst.global.b32 \t[%rd5], %r10;";
    let text = triton_style(body);
    let got = run_style(&text, &[0; 64]).unwrap();
    let want: Vec<u32> = (0..64).map(|t| 2 * (63 - t + 100)).collect();
    assert_eq!(got, want);
    let cluster = text.replace("ld.shared::cta.b32", "ld.shared::cluster.b32");
    let line = cluster.lines().position(|l| l.contains("shared::cluster")).unwrap() + 1;
    let err = run_style(&cluster, &[0; 64]).unwrap_err();
    assert!(err.contains(&format!("line {line}:")) && err.contains("`ld.shared::cluster.b32`"), "{err}");
}

/// A loop Triton pipelines (`tl.range(.., num_stages=3)`): each load is a `cp.async` into
/// shared memory issued iterations ahead, the ones past the end reading 0 bytes.
#[test]
fn pipelined_loop_through_async_copies() {
    let mut rng = Rng::fresh("triton copy_pipelined");
    let n = 256 * (1 + rng.next() as usize % 12);
    let t = load("copy_pipelined");
    let mem = Memory::new();
    let x = uniform(&mut rng, n, -1.0, 1.0);
    let (px, po) = (put_f32(&mem, &x), mem.alloc(4 * 256));
    t.run([1, 1, 1], &[px, po, n as u64], &mem);
    // Each lane adds its column in order: the f32 sums, exactly.
    let want: Vec<f32> = (0..256).map(|j| (0..n / 256).fold(0.0f32, |acc, i| acc + x[256 * i + j])).collect();
    assert_eq!(get_f32(&mem, po, 256), want);
}

/// `cp.async` lands a copy at the wait that covers its group (`wait_group 1` leaves the
/// newest group in flight, `wait_all` takes every copy), zero-fills past its src-size or
/// where ignore-src holds (reading nothing: any source address will do), and faults on a
/// misaligned source or a src-size beyond the copy.
#[test]
fn async_copies_land_at_their_wait() {
    // Thread t: shared S = 16 bytes at global_smem + 16t, preset to 7s; its source is
    // global words 4t..4t+4; results to words 256 + 12t...
    let body = "\tmov.b32 \t%r2, global_smem;\n\tshl.b32 \t%r3, %r1, 4;\n\tadd.s32 \t%r4, %r2, %r3;\n\
        \tmul.wide.u32 \t%rd2, %r1, 16;\n\tadd.s64 \t%rd3, %rd1, %rd2;\n\tmov.b32 \t%r5, 7;\n\
        \tst.shared.v4.b32 \t[%r4], {%r5, %r5, %r5, %r5};\n\tmov.b32 \t%r6, 4;\n\
        \tcp.async.ca.shared.global [ %r4 + 0 ], [ %rd3 + 0 ], 8, %r6;\n\tcp.async.commit_group;\n\
        \tadd.s64 \t%rd4, %rd1, -4096;\n\tcp.async.ca.shared.global [ %r4 + 8 ], [ %rd4 + 0 ], 4, 0;\n\
        \tcp.async.commit_group;\n\tld.shared.b32 \t%r7, [%r4];\n\tcp.async.wait_group \t1;\n\
        \tld.shared.v4.b32 \t{%r8, %r9, %r10, %r11}, [%r4];\n\tsetp.eq.s32 \t%p2, %r1, 1000;\n\
        \tcp.async.ca.shared.global.L2::128B [ %r4 + 12 ], [ %rd3 + 12 ], 4, %p2;\n\tcp.async.wait_all;\n\
        \tld.shared.v4.b32 \t{%r12, %r13, %r14, %r15}, [%r4];\n\tmul.wide.u32 \t%rd5, %r1, 48;\n\
        \tadd.s64 \t%rd6, %rd1, %rd5;\n\tst.global.b32 \t[%rd6+1024], %r7;\n\
        \tst.global.v4.b32 \t[%rd6+1040], {%r8, %r9, %r10, %r11};\n\
        \tst.global.v4.b32 \t[%rd6+1056], {%r12, %r13, %r14, %r15};";
    let text = triton_style(body);
    let data: Vec<u32> = (0..1024).map(|i| 0x1000 + i).collect();
    let got = run_style(&text, &data).unwrap();
    assert_eq!(got[..256], data[..256]);
    for t in 0..64 {
        let (src, out) = (&data[4 * t..4 * t + 4], &got[256 + 12 * t..268 + 12 * t]);
        // Before any wait: the preset. After `wait_group 1`: the first copy (4 bytes read,
        // 4 zero-filled), the second still in flight. After `wait_all`: its zeros, and the
        // third copy (ignore-src false: read).
        assert_eq!(out[0], 7, "thread {t}");
        assert_eq!(out[4..8], [src[0], 0, 7, 7], "thread {t}");
        assert_eq!(out[8..12], [src[0], 0, 0, src[3]], "thread {t}");
    }
    let ignored = text.replace("setp.eq.s32 \t%p2, %r1, 1000;", "setp.ne.s32 \t%p2, %r1, 1000;");
    let got = run_style(&ignored, &data).unwrap();
    assert_eq!(got[256 + 8..256 + 12], [data[0], 0, 0, 0], "ignore-src true: zeros");
    for (from, to, what) in [
        (
            "[ %rd3 + 0 ], 8, %r6;",
            "[ %rd3 + 4 ], 8, %r6;",
            "cp.async.ca.shared.global [ %r4 + 0 ], [ %rd3 + 4 ]",
        ),
        ("mov.b32 \t%r6, 4;", "mov.b32 \t%r6, 12;", "cp.async.ca.shared.global [ %r4 + 0 ]"),
        (
            "cp.async.ca.shared.global [ %r4 + 0 ]",
            "cp.async.cg.shared.global [ %r4 + 0 ]",
            "cannot copy 8 bytes",
        ),
        ("4, %p2;", "4, %p2, %rd1, %rd1;", "takes 3 or 4 operand(s)"),
    ] {
        let bad = text.replace(from, to);
        assert_ne!(bad, text, "{from}");
        let err = run_style(&bad, &data).unwrap_err();
        assert!(err.contains(what), "{to}: {err}");
    }
}
