//! Kernels of real work written against the README in a seventh round (attention, int8 and
//! int4 quantization, top-k, argmax, segmented atomics, a radix-sort pass, a bitonic sort,
//! a 2D convolution with a halo, an embedding bag, device-function helpers, 2D/3D grids),
//! each compared with plain Rust on the host, and the mistakes a user makes with them.
#![allow(clippy::needless_range_loop, clippy::too_many_arguments)]

mod common;

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, Error, LaunchConfig};
use ptx_tools::rng::Rng;

// ---------------------------------------------------------------------------------------
// Device-function helpers

#[ptx_device]
fn clampf(x: f32, lo: f32, hi: f32) -> f32 {
    x.max(lo).min(hi)
}

#[ptx_device]
fn lerp(a: f32, b: f32, t: f32) -> f32 {
    t.mul_add(b - a, a)
}

#[ptx_device]
fn gelu_tanh(x: f32) -> f32 {
    let c = 0.797_884_6_f32; // sqrt(2/pi)
    let inner = c * (x + 0.044715 * x * x * x);
    0.5 * x * (1.0 + inner.tanh())
}

#[ptx_device]
fn silu(x: f32) -> f32 {
    x / (1.0 + (-x).exp())
}

/// 1 + 2x + 3x² + 4x³ by Horner's rule.
#[ptx_device]
fn poly3(x: f32) -> f32 {
    4.0f32.mul_add(x, 3.0).mul_add(x, 2.0).mul_add(x, 1.0)
}

/// Calls two other device functions and returns a tuple.
#[ptx_device]
fn gated(x: f32, g: f32) -> (f32, f32) {
    let a = gelu_tanh(x);
    let b = silu(g);
    (a * b, clampf(a - b, -1.0, 1.0))
}

/// Writes through a `&mut [T]` parameter and returns what it replaced.
#[ptx_device]
fn swap_in(buf: &mut [f32], i: usize, v: f32) -> f32 {
    let old = buf[i];
    buf[i] = v;
    old
}

#[ptx_kernel]
fn activations(x: &[f32], g: &[f32], out: &mut [f32], scratch: &mut [f32]) {
    for i in grid_stride(x.len()) {
        let v = x[i];
        let w = g[i];
        let (p, q) = gated(v, w);
        let o = 6 * i;
        out[o] = p;
        out[o + 1] = q;
        out[o + 2] = lerp(v, w, 0.25);
        out[o + 3] = poly3(clampf(v, -2.0, 2.0));
        out[o + 4] = swap_in(scratch, i, p + q);
        out[o + 5] = silu(gelu_tanh(v));
    }
}

#[test]
fn device_function_helpers() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("device_function_helpers");
    let n = 700;
    let mut x: Vec<f32> = (0..n).map(|_| rng.signed_f32() * 8.0).collect();
    let g: Vec<f32> = (0..n).map(|_| rng.signed_f32() * 8.0).collect();
    x[..6].copy_from_slice(&[0.0, -0.0, 100.0, -100.0, f32::INFINITY, f32::NEG_INFINITY]);
    let s0: Vec<f32> = (0..n).map(|k| k as f32).collect();
    let dev = Device::sim();
    let (dx, dg) = (dev.upload(&x)?, dev.upload(&g)?);
    let mut out = dev.zeroed::<f32>(6 * n)?;
    let mut scratch = dev.upload(&s0)?;
    // A grid smaller than the data: the grid-stride loop covers the rest.
    Activations::new().launch(&dev, LaunchConfig::linear(2, 64), &dx, &dg, &mut out, &mut scratch)?;
    let (got, got_s) = (out.to_vec()?, scratch.to_vec()?);
    let mut want_s = s0.clone();
    for i in 0..n {
        let (p, q) = gated(x[i], g[i]);
        let want = [
            p,
            q,
            lerp(x[i], g[i], 0.25),
            poly3(clampf(x[i], -2.0, 2.0)),
            swap_in(&mut want_s, i, 0.0),
            silu(gelu_tanh(x[i])),
        ];
        for (k, w) in want.iter().enumerate() {
            let k_got = got[6 * i + k];
            // Exact operations (clamp, lerp's fma, Horner's fmas) must agree bit for bit; tanh
            // and exp are ptx-core's routines against Rust's std, each within a few ulp, so a
            // gelu or silu of them may differ by a few ulp of its inputs' magnitudes (plus
            // 1e-30 for results near zero, where gelu's product underflows).
            let exact = matches!(k, 2..=3);
            if k == 4 {
                continue; // checked below
            }
            let ok = if exact {
                // NaNs compare as NaN: the GPU's is the canonical one (README).
                k_got.to_bits() == w.to_bits() || (k_got.is_nan() && w.is_nan())
            } else {
                // Relative to the magnitudes of gelu and silu themselves, as `a - b`
                // cancels; and gelu_tanh(x) = 0.5·x·(1 + tanh(u)) cancels too where tanh
                // is near -1 (x below about -2): tanh's error of a few ulp of 1 comes out
                // multiplied by 0.5·|x|, and a product with silu(g) carries it along.
                let (a, b) = (gelu_tanh(x[i]), silu(g[i]));
                let scale = w.abs() + a.abs() + b.abs();
                let cancelled =
                    if x[i].is_finite() { 8.0 * f32::EPSILON * x[i].abs() * (1.0 + b.abs()) } else { 0.0 };
                k_got == *w
                    || (k_got - w).abs() <= 16.0 * f32::EPSILON * scale + cancelled + 1e-30
                    || (k_got.is_nan() && w.is_nan())
            };
            assert!(ok, "x = {}, g = {}, slot {k}: kernel {k_got:e}, host {w:e}", x[i], g[i]);
        }
    }
    // The swap stored the kernel's own p + q and returned the old contents.
    for i in 0..n {
        let (p, q) = (got[6 * i], got[6 * i + 1]);
        assert!(
            got_s[i].to_bits() == (p + q).to_bits() || (p + q).is_nan() && got_s[i].is_nan(),
            "scratch {i}"
        );
        assert_eq!(got[6 * i + 4].to_bits(), s0[i].to_bits(), "swap_in's old value {i}");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// int8 per-row absmax quantization: one block per row

#[ptx_kernel]
fn quantize_rows(x: &[f32], q: &mut [i8], scales: &mut [f32], cols: u32) {
    let row = block_idx().x as usize;
    let base = row * cols as usize;
    let mut amax = 0.0f32;
    let mut c = thread_idx().x;
    while c < cols {
        amax = amax.max(x[base + c as usize].abs());
        c += block_dim().x;
    }
    let amax = block_max(amax);
    let scale = amax / 127.0;
    if thread_idx().x == 0 {
        scales[row] = scale;
    }
    let mut c = thread_idx().x;
    while c < cols {
        let v = (x[base + c as usize] / scale).round().clamp(-127.0, 127.0);
        q[base + c as usize] = v as i8;
        c += block_dim().x;
    }
}

#[ptx_kernel]
fn dequantize(q: &[i8], scales: &[f32], out: &mut [f32], cols: u32) {
    let i = global_idx().x as usize;
    if i < q.len() {
        out[i] = q[i] as f32 * scales[i / cols as usize];
    }
}

#[test]
fn int8_absmax_quantization() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("int8_absmax_quantization");
    let (rows, cols) = (9usize, 300usize);
    let mut x: Vec<f32> = (0..rows * cols).map(|_| rng.signed_f32() * 10.0).collect();
    // Row 1: all zeros (scale 0, so 0/0 = NaN, which rounds, clamps and casts to 0);
    // row 2: one huge value; row 3: an infinity (scale inf, every finite value 0, inf NaN).
    x[cols..2 * cols].fill(0.0);
    x[2 * cols + 7] = 3e38;
    x[3 * cols + 5] = f32::INFINITY;
    // Row 4's largest magnitude is negative, so that some element quantizes to -127 whatever
    // the seed (the random rows lacked one about once in 2 000 runs).
    x[4 * cols + 3] = -10.5;
    let dev = Device::sim();
    let dx = dev.upload(&x)?;
    let mut q = dev.zeroed::<i8>(rows * cols)?;
    let mut scales = dev.zeroed::<f32>(rows)?;
    QuantizeRows::new().launch(
        &dev,
        LaunchConfig::linear(rows as u32, 96),
        &dx,
        &mut q,
        &mut scales,
        cols as u32,
    )?;
    let mut out = dev.zeroed::<f32>(rows * cols)?;
    Dequantize::new().launch(
        &dev,
        LaunchConfig::for_elements(rows * cols, 128),
        &q,
        &scales,
        &mut out,
        cols as u32,
    )?;
    let (gq, gs, go) = (q.to_vec()?, scales.to_vec()?, out.to_vec()?);
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let amax = row.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let scale = amax / 127.0;
        assert_eq!(gs[r].to_bits(), scale.to_bits(), "row {r} scale");
        for c in 0..cols {
            let want = (row[c] / scale).round().clamp(-127.0, 127.0) as i8;
            assert_eq!(gq[r * cols + c], want, "row {r} col {c}: x = {}", row[c]);
            let back = want as f32 * scale;
            assert!(
                go[r * cols + c].to_bits() == back.to_bits() || (back.is_nan() && go[r * cols + c].is_nan())
            );
        }
    }
    assert!(gq.contains(&127) && gq.contains(&-127));
    Ok(())
}

// ---------------------------------------------------------------------------------------
// int4 packing: two signed nibbles per byte, eight per word

#[ptx_kernel]
fn pack_int4(v: &[i8], bytes: &mut [u8], words: &mut [u32]) {
    let i = global_idx().x as usize;
    if 2 * i + 1 < v.len() {
        let lo = (v[2 * i] as u8) & 0xf;
        let hi = (v[2 * i + 1] as u8) & 0xf;
        bytes[i] = lo | hi << 4;
    }
    if 8 * i + 7 < v.len() {
        let mut w = 0u32;
        for k in 0..8 {
            w |= ((v[8 * i + k] as u32) & 0xf) << (4 * k);
        }
        words[i] = w;
    }
}

#[ptx_kernel]
fn unpack_int4(bytes: &[u8], words: &[u32], from_bytes: &mut [i8], from_words: &mut [i32]) {
    let i = global_idx().x as usize;
    if i < bytes.len() {
        let b = bytes[i];
        // Sign-extend each nibble: move it to the top of an i8, then shift back.
        from_bytes[2 * i] = ((b << 4) as i8) >> 4;
        from_bytes[2 * i + 1] = (b as i8) >> 4;
    }
    if i < words.len() {
        let w = words[i];
        for k in 0..8u32 {
            from_words[8 * i + k as usize] = ((w << (28 - 4 * k)) as i32) >> 28;
        }
    }
}

#[test]
fn int4_pack_unpack_round_trip() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("int4_pack_unpack_round_trip");
    let n = 8 * 97;
    let mut v: Vec<i8> = (0..n).map(|_| (rng.next() % 16) as i8 - 8).collect();
    v[..4].copy_from_slice(&[-8, 7, 0, -1]);
    let dev = Device::sim();
    let dv = dev.upload(&v)?;
    let mut bytes = dev.zeroed::<u8>(n / 2)?;
    let mut words = dev.zeroed::<u32>(n / 8)?;
    PackInt4::new().launch(&dev, LaunchConfig::for_elements(n / 2, 64), &dv, &mut bytes, &mut words)?;
    let want_bytes: Vec<u8> = v.chunks(2).map(|p| (p[0] as u8 & 0xf) | (p[1] as u8 & 0xf) << 4).collect();
    let want_words: Vec<u32> = v
        .chunks(8)
        .map(|p| p.iter().enumerate().fold(0u32, |w, (k, &x)| w | ((x as u32) & 0xf) << (4 * k)))
        .collect();
    assert_eq!(bytes.to_vec()?, want_bytes);
    assert_eq!(words.to_vec()?, want_words);
    let mut fb = dev.zeroed::<i8>(n)?;
    let mut fw = dev.zeroed::<i32>(n)?;
    UnpackInt4::new().launch(
        &dev,
        LaunchConfig::for_elements(n / 2, 64),
        &bytes,
        &words,
        &mut fb,
        &mut fw,
    )?;
    assert_eq!(fb.to_vec()?, v);
    assert_eq!(fw.to_vec()?, v.iter().map(|&x| x as i32).collect::<Vec<_>>());
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Fused attention for one query row per block: q·Kᵀ, an online softmax over tiles of 64
// keys, ·V; a causal mask limits query `row` to keys `0..=row`.

#[ptx_kernel]
fn attention_row(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    out: &mut [f32],
    n_keys: u32,
    scale: f32,
    causal: bool,
    #[comptime] head_dim: u32,
) {
    let qs = shared::<f32, { head_dim as usize }>();
    let ps = shared::<f32, 64>();
    let t = thread_idx().x as usize;
    let row = block_idx().x as usize;
    let d = head_dim as usize;
    let mut c = t;
    while c < d {
        qs[c] = q[row * d + c];
        c += 64;
    }
    sync_threads();
    let limit = if causal { (row + 1).min(n_keys as usize) } else { n_keys as usize };
    let mut m = f32::NEG_INFINITY;
    let mut l = 0.0f32;
    let mut acc = 0.0f32;
    let mut start = 0usize;
    while start < limit {
        let j = start + t;
        let s = if j < limit {
            let mut dot = 0.0f32;
            for e in 0..d {
                dot = qs[e].mul_add(k[j * d + e], dot);
            }
            dot * scale
        } else {
            f32::NEG_INFINITY
        };
        let m_new = m.max(block_max(s));
        let p = (s - m_new).exp();
        let corr = (m - m_new).exp();
        l = l * corr + block_sum(p);
        ps[t] = p;
        sync_threads();
        if t < d {
            let mut a = acc * corr;
            let end = (limit - start).min(64);
            for jj in 0..end {
                a = ps[jj].mul_add(v[(start + jj) * d + t], a);
            }
            acc = a;
        }
        sync_threads();
        m = m_new;
        start += 64;
    }
    if t < d {
        out[row * d + t] = acc / l;
    }
}

fn attention_host(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    n_keys: usize,
    scale: f32,
    causal: bool,
    d: usize,
) -> Vec<f64> {
    let rows = q.len() / d;
    let mut out = vec![0.0f64; rows * d];
    for r in 0..rows {
        let limit = if causal { (r + 1).min(n_keys) } else { n_keys };
        let s: Vec<f64> = (0..limit)
            .map(|j| (0..d).map(|e| q[r * d + e] as f64 * k[j * d + e] as f64).sum::<f64>() * scale as f64)
            .collect();
        let m = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let p: Vec<f64> = s.iter().map(|x| (x - m).exp()).collect();
        let l: f64 = p.iter().sum();
        for e in 0..d {
            out[r * d + e] = (0..limit).map(|j| p[j] * v[j * d + e] as f64).sum::<f64>() / l;
        }
    }
    out
}

#[test]
fn fused_attention_rows() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("fused_attention_rows");
    let dev = Device::sim();
    for (d, n_keys, rows, causal) in
        [(64usize, 150usize, 5usize, false), (32, 130, 130, true), (64, 1, 1, true)]
    {
        let mut gen = |n: usize| -> Vec<f32> { (0..n).map(|_| rng.signed_f32()).collect() };
        let (q, k, v) = (gen(rows * d), gen(n_keys * d), gen(n_keys * d));
        let scale = 1.0 / (d as f32).sqrt();
        let (dq, dk, dv) = (dev.upload(&q)?, dev.upload(&k)?, dev.upload(&v)?);
        let mut out = dev.zeroed::<f32>(rows * d)?;
        AttentionRow::new(d as u32).launch(
            &dev,
            LaunchConfig::linear(rows as u32, 64),
            &dq,
            &dk,
            &dv,
            &mut out,
            n_keys as u32,
            scale,
            causal,
        )?;
        let got = out.to_vec()?;
        let want = attention_host(&q, &k, &v, n_keys, scale, causal, d);
        // Bound: each score is an fma chain of d terms with |q|,|k| ≤ 1, so it errs by at
        // most d·2⁻²⁴·d·scale (< 3e-4 for d = 64); exp adds a few ulp, and a weight's relative
        // error is then at most twice the score error; the output, an average of |v| ≤ 1,
        // errs by at most 2·(that + (n_keys + 64)·2⁻²⁴). The measured error is far below.
        let score_err = (d * d) as f64 * scale as f64 * 2f64.powi(-24);
        let bound = 2.0 * (2.0 * score_err + (n_keys + 64) as f64 * 2f64.powi(-24));
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (*g as f64 - w).abs() <= bound,
                "d {d} causal {causal} elem {i}: kernel {g}, f64 {w}, bound {bound}"
            );
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Top-k per row, one warp per row, and a block-wide argmax; ties go to the lowest index.

#[ptx_kernel]
fn top_k(x: &[f32], vals: &mut [f32], idxs: &mut [u32], cols: u32, #[comptime] k: u32) {
    let row = block_idx().x as usize;
    let lane = lane_id();
    let taken = shared::<u32, 1024>();
    let mut c = lane;
    while c < cols {
        taken[c as usize] = 0;
        c += 32;
    }
    sync_warp();
    for r in 0..k {
        let mut best = f32::NEG_INFINITY;
        let mut bi = u32::MAX;
        let mut c = lane;
        while c < cols {
            let v = x[row * cols as usize + c as usize];
            if taken[c as usize] == 0 && (bi == u32::MAX || v > best) {
                best = v;
                bi = c;
            }
            c += 32;
        }
        #[unroll]
        for s in 0..5 {
            let ov = shfl_xor(best, 16 >> s);
            let oi = shfl_xor(bi, 16 >> s);
            if oi != u32::MAX && (bi == u32::MAX || ov > best || (ov == best && oi < bi)) {
                best = ov;
                bi = oi;
            }
        }
        // Every lane has read `taken` for this round before lane 0 marks the winner.
        sync_warp();
        if lane == 0 {
            vals[row * k as usize + r as usize] = best;
            idxs[row * k as usize + r as usize] = bi;
            taken[bi as usize] = 1;
        }
        sync_warp();
    }
}

fn top_k_host(row: &[f32], k: usize) -> Vec<(f32, u32)> {
    let mut order: Vec<u32> = (0..row.len() as u32).collect();
    order.sort_by(|&a, &b| row[b as usize].partial_cmp(&row[a as usize]).unwrap().then(a.cmp(&b)));
    order[..k].iter().map(|&i| (row[i as usize], i)).collect()
}

#[test]
fn top_k_rows_with_ties() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("top_k_rows_with_ties");
    let dev = Device::sim();
    for (rows, cols, k) in [(6usize, 1000usize, 32usize), (3, 37, 5), (2, 8, 8)] {
        // Few distinct values, so ties are common.
        let mut x: Vec<f32> = (0..rows * cols).map(|_| (rng.next() % 40) as f32 * 0.25 - 5.0).collect();
        x[0] = f32::NEG_INFINITY;
        let dx = dev.upload(&x)?;
        let mut vals = dev.zeroed::<f32>(rows * k)?;
        let mut idxs = dev.zeroed::<u32>(rows * k)?;
        let kernel = TopK::new(k as u32);
        kernel.launch(&dev, LaunchConfig::linear(rows as u32, 32), &dx, &mut vals, &mut idxs, cols as u32)?;
        let (gv, gi) = (vals.to_vec()?, idxs.to_vec()?);
        for r in 0..rows {
            let want = top_k_host(&x[r * cols..(r + 1) * cols], k);
            let got: Vec<(f32, u32)> = (0..k).map(|j| (gv[r * k + j], gi[r * k + j])).collect();
            assert_eq!(got, want, "rows {rows} cols {cols} k {k}: row {r}");
        }
    }
    Ok(())
}

#[ptx_kernel]
fn argmax_rows(x: &[f32], out: &mut [u32], cols: u32) {
    let wv = shared::<f32, 32>();
    let wi = shared::<u32, 32>();
    let t = thread_idx().x;
    let base = block_idx().x as usize * cols as usize;
    let mut best = f32::NEG_INFINITY;
    let mut bi = u32::MAX;
    let mut c = t;
    while c < cols {
        let v = x[base + c as usize];
        if bi == u32::MAX || v > best {
            best = v;
            bi = c;
        }
        c += block_dim().x;
    }
    let mut off = 16;
    while off > 0 {
        let ov = shfl_down(best, off);
        let oi = shfl_down(bi, off);
        if oi != u32::MAX && (bi == u32::MAX || ov > best || (ov == best && oi < bi)) {
            best = ov;
            bi = oi;
        }
        off /= 2;
    }
    if lane_id() == 0 {
        wv[(t / 32) as usize] = best;
        wi[(t / 32) as usize] = bi;
    }
    sync_threads();
    if t == 0 {
        for w in 1..block_dim().x / 32 {
            let (ov, oi) = (wv[w as usize], wi[w as usize]);
            if oi != u32::MAX && (bi == u32::MAX || ov > best || (ov == best && oi < bi)) {
                best = ov;
                bi = oi;
            }
        }
        out[block_idx().x as usize] = bi;
    }
}

#[test]
fn argmax_with_ties_lowest_index_wins() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("argmax_with_ties_lowest_index_wins");
    let dev = Device::sim();
    let (rows, cols) = (12usize, 777usize);
    let mut x: Vec<f32> = (0..rows * cols).map(|_| (rng.next() % 9) as f32).collect();
    // Row 1: every value equal; row 2: the maximum only at the last column; row 3: -inf only.
    x[cols..2 * cols].fill(3.5);
    x[2 * cols..3 * cols].fill(-1.0);
    x[3 * cols - 1] = 0.0;
    x[3 * cols..4 * cols].fill(f32::NEG_INFINITY);
    let dx = dev.upload(&x)?;
    let mut out = dev.zeroed::<u32>(rows)?;
    for block in [32u32, 256, 1024] {
        ArgmaxRows::new().launch(
            &dev,
            LaunchConfig::linear(rows as u32, block),
            &dx,
            &mut out,
            cols as u32,
        )?;
        let want: Vec<u32> = (0..rows)
            .map(|r| {
                let row = &x[r * cols..(r + 1) * cols];
                let m = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
                row.iter().position(|&v| v == m).unwrap() as u32
            })
            .collect();
        assert_eq!(out.to_vec()?, want, "block {block}");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Segmented reductions with atomics on f64, u64 and i64

#[ptx_kernel]
fn segment_atomics(
    seg: &[u32],
    vf: &[f64],
    vu: &[u64],
    sums: &mut [f64],
    usums: &mut [u64],
    maxs: &mut [u64],
    mins: &mut [i64],
) {
    for i in grid_stride(seg.len()) {
        let s = seg[i] as usize;
        atomic_add(&mut sums[s], vf[i]);
        atomic_add(&mut usums[s], vu[i]);
        atomic_max(&mut maxs[s], vu[i]);
        atomic_min(&mut mins[s], vu[i] as i64);
    }
}

#[test]
fn segmented_atomic_reductions() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("segmented_atomic_reductions");
    let (n, segs) = (3000usize, 17usize);
    let seg: Vec<u32> = (0..n).map(|_| (rng.next() % segs as u64) as u32).collect();
    // Multiples of 2⁻¹⁰ below 2²⁰ in magnitude: every partial sum is exact in f64, so the
    // order the atomics run in cannot change a bit.
    let vf: Vec<f64> =
        (0..n).map(|_| ((rng.next() % (1 << 30)) as f64 - (1 << 29) as f64) / 1024.0).collect();
    let mut vu: Vec<u64> = (0..n).map(|_| rng.next()).collect();
    vu[0] = u64::MAX;
    vu[1] = 0;
    let dev = Device::sim();
    let (ds, dvf, dvu) = (dev.upload(&seg)?, dev.upload(&vf)?, dev.upload(&vu)?);
    let mut sums = dev.zeroed::<f64>(segs)?;
    let mut usums = dev.zeroed::<u64>(segs)?;
    let mut maxs = dev.zeroed::<u64>(segs)?;
    let mut mins = dev.upload(&vec![i64::MAX; segs])?;
    SegmentAtomics::new().launch(
        &dev,
        LaunchConfig::linear(3, 128),
        &ds,
        &dvf,
        &dvu,
        &mut sums,
        &mut usums,
        &mut maxs,
        &mut mins,
    )?;
    let (mut ws, mut wu, mut wm, mut wn) =
        (vec![0.0f64; segs], vec![0u64; segs], vec![0u64; segs], vec![i64::MAX; segs]);
    for i in 0..n {
        let s = seg[i] as usize;
        ws[s] += vf[i];
        wu[s] = wu[s].wrapping_add(vu[i]);
        wm[s] = wm[s].max(vu[i]);
        wn[s] = wn[s].min(vu[i] as i64);
    }
    assert_eq!(sums.to_vec()?, ws);
    assert_eq!(usums.to_vec()?, wu);
    assert_eq!(maxs.to_vec()?, wm);
    assert_eq!(mins.to_vec()?, wn);
    Ok(())
}

// ---------------------------------------------------------------------------------------
// One pass of an LSD radix sort on u32 keys: a digit histogram through shared atomics, then
// a stable scatter by one block.

#[ptx_kernel]
fn digit_histogram(keys: &[u32], hist: &mut [u32], shift: u32) {
    let bins = shared::<u32, 256>();
    let t = thread_idx().x as usize;
    bins[t] = 0;
    sync_threads();
    for i in grid_stride(keys.len()) {
        atomic_add(&mut bins[((keys[i] >> shift) & 0xff) as usize], 1);
    }
    sync_threads();
    atomic_add(&mut hist[t], bins[t]);
}

#[ptx_kernel]
fn radix_scatter(keys: &[u32], offsets: &[u32], out: &mut [u32], shift: u32) {
    let base = shared::<u32, 256>();
    let digits = shared::<u32, 256>();
    let t = thread_idx().x as usize;
    base[t] = offsets[t];
    let mut start = 0usize;
    while start < keys.len() {
        let i = start + t;
        let d = if i < keys.len() { (keys[i] >> shift) & 0xff } else { 256 };
        digits[t] = d;
        sync_threads();
        if i < keys.len() {
            let mut rank = 0u32;
            for j in 0..t {
                if digits[j] == d {
                    rank += 1;
                }
            }
            out[base[d as usize] + rank] = keys[i];
        }
        sync_threads();
        if i < keys.len() {
            atomic_add(&mut base[d as usize], 1);
        }
        start += 256;
    }
}

#[test]
fn radix_sort_by_passes() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("radix_sort_by_passes");
    let n = 1500;
    let mut keys: Vec<u32> = (0..n).map(|_| (rng.next() >> (rng.next() % 40)) as u32).collect();
    keys[..4].copy_from_slice(&[u32::MAX, 0, 0x8000_0000, u32::MAX]);
    let dev = Device::sim();
    let mut cur = dev.upload(&keys)?;
    for pass in 0..4u32 {
        let shift = 8 * pass;
        let mut hist = dev.zeroed::<u32>(256)?;
        DigitHistogram::new().launch(&dev, LaunchConfig::linear(3, 256), &cur, &mut hist, shift)?;
        let h = hist.to_vec()?;
        let host_keys = cur.to_vec()?;
        let mut want_h = vec![0u32; 256];
        for &k in &host_keys {
            want_h[((k >> shift) & 0xff) as usize] += 1;
        }
        assert_eq!(h, want_h, "pass {pass} histogram");
        let offsets: Vec<u32> = h.iter().scan(0, |s, &c| Some(std::mem::replace(s, *s + c))).collect();
        let doff = dev.upload(&offsets)?;
        let mut next = dev.zeroed::<u32>(n)?;
        RadixScatter::new().launch(&dev, LaunchConfig::linear(1, 256), &cur, &doff, &mut next, shift)?;
        let mut want = host_keys.clone();
        want.sort_by_key(|&k| (k >> shift) & 0xff); // stable, as the scatter is
        assert_eq!(next.to_vec()?, want, "pass {pass}");
        cur = next;
    }
    let mut sorted = keys;
    sorted.sort();
    assert_eq!(cur.to_vec()?, sorted);
    Ok(())
}

// ---------------------------------------------------------------------------------------
// A bitonic sort of 2^log_n keys per block in shared memory, every stage unrolled.

#[ptx_kernel]
fn bitonic(x: &mut [u32], #[comptime] log_n: u32) {
    let s = shared::<u32, { 1usize << log_n }>();
    let t = thread_idx().x as usize;
    let base = (block_idx().x as usize) << log_n;
    s[2 * t] = x[base + 2 * t];
    s[2 * t + 1] = x[base + 2 * t + 1];
    sync_threads();
    #[unroll]
    for p in 1..=log_n {
        #[unroll]
        for q in (0..p).rev() {
            let j = 1usize << q;
            let i = ((t >> q) << (q + 1)) | (t & (j - 1));
            let up = (i >> p) & 1 == 0;
            let (a, b) = (s[i], s[i + j]);
            if (a > b) == up {
                s[i] = b;
                s[i + j] = a;
            }
            sync_threads();
        }
    }
    x[base + 2 * t] = s[2 * t];
    x[base + 2 * t + 1] = s[2 * t + 1];
}

#[test]
fn bitonic_sort_in_shared_memory() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("bitonic_sort_in_shared_memory");
    let dev = Device::sim();
    for log_n in [1u32, 5, 8] {
        let n = 1usize << log_n;
        let blocks = 3;
        let mut x: Vec<u32> = (0..blocks * n).map(|_| (rng.next() % 50) as u32).collect();
        x[0] = u32::MAX;
        let mut dx = dev.upload(&x)?;
        let kernel = Bitonic::new(log_n);
        kernel.launch(&dev, LaunchConfig::linear(blocks as u32, n as u32 / 2), &mut dx)?;
        let mut want = x.clone();
        want.chunks_mut(n).for_each(|c| c.sort());
        assert_eq!(dx.to_vec()?, want, "log_n {log_n}");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// A 2D convolution over 16×16 tiles with a halo of `r` in shared memory, edges clamped.

#[ptx_kernel]
fn conv2d(img: &[f32], w: &[f32], out: &mut [f32], width: u32, height: u32, #[comptime] r: u32) {
    let tile = shared::<f32, { (16 + 2 * r as usize) * (16 + 2 * r as usize) }>();
    let side = 16 + 2 * r as usize;
    let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);
    let (bx, by) = (block_idx().x as usize * 16, block_idx().y as usize * 16);
    let mut k = ty * 16 + tx;
    while k < side * side {
        let (sy, sx) = (k / side, k % side);
        let gy = (by as i32 + sy as i32 - r as i32).max(0).min(height as i32 - 1) as usize;
        let gx = ((bx + sx) as i32 - r as i32).clamp(0, width as i32 - 1) as usize;
        tile[k] = img[gy * width as usize + gx];
        k += 256;
    }
    sync_threads();
    let (x, y) = (bx + tx, by + ty);
    if x < width as usize && y < height as usize {
        let d = 2 * r as usize + 1;
        let mut acc = 0.0f32;
        for dy in 0..d {
            for dx in 0..d {
                acc = tile[(ty + dy) * side + tx + dx].mul_add(w[dy * d + dx], acc);
            }
        }
        out[y * width as usize + x] = acc;
    }
}

fn conv2d_host(img: &[f32], w: &[f32], width: usize, height: usize, r: usize) -> Vec<f32> {
    let d = 2 * r + 1;
    let mut out = vec![0.0f32; width * height];
    for y in 0..height {
        for x in 0..width {
            let mut acc = 0.0f32;
            for dy in 0..d {
                for dx in 0..d {
                    let gy = (y + dy).saturating_sub(r).min(height - 1);
                    let gx = (x + dx).saturating_sub(r).min(width - 1);
                    acc = img[gy * width + gx].mul_add(w[dy * d + dx], acc);
                }
            }
            out[y * width + x] = acc;
        }
    }
    out
}

#[test]
fn conv2d_with_halo() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("conv2d_with_halo");
    let dev = Device::sim();
    for (width, height, r) in [(37usize, 21usize, 1usize), (16, 16, 3), (5, 40, 2), (1, 1, 1)] {
        let img: Vec<f32> = (0..width * height).map(|_| rng.signed_f32() * 4.0).collect();
        let d = 2 * r + 1;
        let w: Vec<f32> = (0..d * d).map(|_| rng.signed_f32()).collect();
        let (di, dw) = (dev.upload(&img)?, dev.upload(&w)?);
        let mut out = dev.zeroed::<f32>(width * height)?;
        let grid = (width.div_ceil(16) as u32, height.div_ceil(16) as u32, 1);
        Conv2d::new(r as u32).launch(
            &dev,
            LaunchConfig::new(grid, (16, 16, 1)),
            &di,
            &dw,
            &mut out,
            width as u32,
            height as u32,
        )?;
        // The same fma chain in the same order: bit for bit.
        let want = conv2d_host(&img, &w, width, height, r);
        let got = out.to_vec()?;
        assert_eq!(
            got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "{width}x{height} r {r}"
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// An embedding bag: sums of rows of `table` picked by u32 indices, bags delimited by offsets.

#[ptx_kernel]
fn embedding_bag(table: &[f32], indices: &[u32], offsets: &[u32], out: &mut [f32], #[comptime] dim: u32) {
    let bag = block_idx().x as usize;
    let d = thread_idx().x as usize;
    let (s, e) = (offsets[bag], offsets[bag + 1]);
    let mut acc = 0.0f32;
    for j in s..e {
        let row = indices[j] as usize;
        acc += table[row * dim as usize + d];
    }
    out[bag * dim as usize + d] = acc;
}

#[test]
fn embedding_bag_sums() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("embedding_bag_sums");
    let (rows, dim, bags) = (50usize, 48usize, 9usize);
    let table: Vec<f32> = (0..rows * dim).map(|_| rng.signed_f32()).collect();
    let mut offsets = vec![0u32];
    for b in 0..bags {
        // Bag 3 is empty.
        let len = if b == 3 { 0 } else { 1 + rng.next() % 7 };
        offsets.push(offsets[b] + len as u32);
    }
    let indices: Vec<u32> = (0..offsets[bags]).map(|_| (rng.next() % rows as u64) as u32).collect();
    let dev = Device::sim();
    let (dt, di, doff) = (dev.upload(&table)?, dev.upload(&indices)?, dev.upload(&offsets)?);
    let mut out = dev.zeroed::<f32>(bags * dim)?;
    let kernel = EmbeddingBag::new(dim as u32);
    kernel.launch(&dev, LaunchConfig::linear(bags as u32, dim as u32), &dt, &di, &doff, &mut out)?;
    let mut want = vec![0.0f32; bags * dim];
    for b in 0..bags {
        for d in 0..dim {
            let mut acc = 0.0f32;
            for j in offsets[b]..offsets[b + 1] {
                acc += table[indices[j as usize] as usize * dim + d];
            }
            want[b * dim + d] = acc;
        }
    }
    assert_eq!(out.to_vec()?, want);

    // An index past the table's rows: the launch names the kernel, `table` and the line.
    let mut bad = indices.clone();
    bad[2] = rows as u32;
    let dbad = dev.upload(&bad)?;
    let err = kernel
        .launch(&dev, LaunchConfig::linear(bags as u32, dim as u32), &dt, &dbad, &doff, &mut out)
        .unwrap_err();
    println!("{err}");
    match &err {
        Error::OutOfBounds { kernel, param, index, len, location } => {
            assert_eq!(
                (kernel.as_str(), param.as_str(), *len),
                ("embedding_bag", "table", (rows * dim) as u64)
            );
            assert!(*index >= (rows * dim) as i128);
            assert!(location.contains("lang_round7_kernels.rs"), "{location}");
        }
        other => panic!("expected OutOfBounds, got {other:?}"),
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// 3D grids: every thread of a (x, y, z) grid writes its own coordinates.

#[ptx_kernel]
fn coords3d(out: &mut [u32], nx: u32, ny: u32, nz: u32) {
    let g = global_idx();
    if g.x < nx && g.y < ny && g.z < nz {
        let i = ((g.z * ny + g.y) * nx + g.x) as usize;
        out[i] = g.x | g.y << 10 | g.z << 20;
    }
}

#[test]
fn three_dimensional_grid() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let (nx, ny, nz) = (19u32, 7u32, 5u32);
    let mut out = dev.zeroed::<u32>((nx * ny * nz) as usize)?;
    Coords3d::new().launch(&dev, LaunchConfig::new((3, 2, 2), (8, 4, 3)), &mut out, nx, ny, nz)?;
    let want: Vec<u32> = (0..nz)
        .flat_map(|z| (0..ny).flat_map(move |y| (0..nx).map(move |x| x | y << 10 | z << 20)))
        .collect();
    assert_eq!(out.to_vec()?, want);
    Ok(())
}

// ---------------------------------------------------------------------------------------
// f16 → bf16 and f32 conversions in a loop, with a per-row scale.

#[ptx_kernel]
fn half_rows(h: &[f16], scale: &[f32], b: &mut [bf16], back: &mut [f16], cols: u32) {
    let row = global_idx().x as usize;
    if row < scale.len() {
        let s = scale[row];
        for c in 0..cols as usize {
            let i = row * cols as usize + c;
            let v = h[i].to_f32() * s;
            b[i] = bf16::from_f32(v);
            back[i] = f16::from_f32(b[i] as f32);
        }
    }
}

#[test]
fn f16_bf16_conversions_in_loops() -> ptx_dsl::runtime::Result<()> {
    use half::{bf16 as Bf16, f16 as F16};
    let mut rng = Rng::fresh("f16_bf16_conversions_in_loops");
    let (rows, cols) = (40usize, 33usize);
    let mut h: Vec<u16> = (0..rows * cols).map(|_| rng.next() as u16).collect();
    h[..6].copy_from_slice(&[0x7c00, 0xfc00, 0x0001, 0x8000, 0x7bff, 0x3c00]);
    let mut scale: Vec<f32> = (0..rows).map(|_| rng.signed_f32() * 100.0).collect();
    scale[0] = 1.0;
    scale[1] = 1e30;
    let dev = Device::sim();
    let (dh, ds) = (dev.upload(&h)?, dev.upload(&scale)?);
    let mut b = dev.zeroed::<u16>(rows * cols)?;
    let mut back = dev.zeroed::<u16>(rows * cols)?;
    HalfRows::new().launch(
        &dev,
        LaunchConfig::for_elements(rows, 32),
        &dh,
        &ds,
        &mut b,
        &mut back,
        cols as u32,
    )?;
    let (gb, gback) = (b.to_vec()?, back.to_vec()?);
    for i in 0..rows * cols {
        let v = F16::from_bits(h[i]).to_f32() * scale[i / cols];
        let wb = Bf16::from_f32(v);
        let wback = F16::from_f32(wb.to_f32());
        // NaNs: the GPU's canonical NaN (README), so compare them as NaN.
        if wb.is_nan() {
            assert!(Bf16::from_bits(gb[i]).is_nan() && F16::from_bits(gback[i]).is_nan(), "elem {i}");
        } else {
            assert_eq!(
                (gb[i], gback[i]),
                (wb.to_bits(), wback.to_bits()),
                "elem {i}: h {:#06x} scale {}",
                h[i],
                scale[i / cols]
            );
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The mistakes a user makes with these kernels, and what they are told.

#[test]
fn warp_kernel_with_a_block_not_a_multiple_of_32() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x = dev.upload(&[1.0f32; 100])?;
    let (mut vals, mut idxs) = (dev.zeroed::<f32>(4)?, dev.zeroed::<u32>(4)?);
    let err =
        TopK::new(4).launch(&dev, LaunchConfig::linear(1, 48), &x, &mut vals, &mut idxs, 100).unwrap_err();
    println!("{err}");
    assert!(matches!(&err, Error::InvalidArgument { argument, .. } if argument == "config"), "{err:?}");
    let err = ArgmaxRows::new().launch(&dev, LaunchConfig::linear(1, 100), &x, &mut idxs, 100).unwrap_err();
    println!("{err}");
    assert!(matches!(&err, Error::InvalidArgument { argument, .. } if argument == "config"), "{err:?}");
    Ok(())
}

#[test]
fn top_k_past_the_row_names_the_shared_array() -> ptx_dsl::runtime::Result<()> {
    // k = 6 of a row of 4: the fifth round finds no candidate (index u32::MAX).
    let dev = Device::sim();
    let x = dev.upload(&[1.0f32, 2.0, 3.0, 4.0])?;
    let (mut vals, mut idxs) = (dev.zeroed::<f32>(6)?, dev.zeroed::<u32>(6)?);
    let err =
        TopK::new(6).launch(&dev, LaunchConfig::linear(1, 32), &x, &mut vals, &mut idxs, 4).unwrap_err();
    println!("{err}");
    assert!(matches!(&err, Error::OutOfBounds { param, .. } if param == "taken"), "{err:?}");
    Ok(())
}

#[test]
fn quantize_with_a_short_output_names_it() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x = dev.upload(&[1.0f32; 64])?;
    let mut q = dev.zeroed::<i8>(63)?;
    let mut scales = dev.zeroed::<f32>(2)?;
    let err = QuantizeRows::new()
        .launch(&dev, LaunchConfig::linear(2, 32), &x, &mut q, &mut scales, 32)
        .unwrap_err();
    println!("{err}");
    assert!(matches!(&err, Error::OutOfBounds { param, index: 63, len: 63, .. } if param == "q"), "{err:?}");
    Ok(())
}

/// The attention kernel without its second barrier: the next tile's `ps[t] = p` overwrites
/// weights other threads are still reading.
#[ptx_kernel]
fn attention_missing_sync(v: &[f32], out: &mut [f32], n_keys: u32) {
    let ps = shared::<f32, 64>();
    let t = thread_idx().x as usize;
    let mut acc = 0.0f32;
    let mut start = 0usize;
    while start < n_keys as usize {
        ps[t] = (start + t) as f32;
        sync_threads();
        for jj in 0..64 {
            acc = ps[jj].mul_add(v[t], acc);
        }
        start += 64;
    }
    out[t] = acc;
}

#[test]
fn forgotten_barrier_is_a_race_naming_the_line() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let v = dev.upload(&[0.5f32; 64])?;
    let mut out = dev.zeroed::<f32>(64)?;
    let err =
        AttentionMissingSync::new().launch(&dev, LaunchConfig::linear(1, 64), &v, &mut out, 128).unwrap_err();
    println!("{err}");
    let text = err.to_string();
    assert!(text.contains("attention_missing_sync") && text.contains("lang_round7_kernels.rs"), "{text}");
    Ok(())
}

#[test]
fn shared_memory_too_large_for_a_comptime_size() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut x = dev.zeroed::<u32>(1 << 14)?;
    let err = Bitonic::new(14).launch(&dev, LaunchConfig::linear(1, 1 << 13), &mut x).unwrap_err();
    println!("{err}");
    let err = Bitonic::new(12).launch(&dev, LaunchConfig::linear(1, 1 << 11), &mut x).unwrap_err();
    println!("{err}");
    Ok(())
}

#[test]
fn radix_scatter_with_too_small_a_block() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let keys = dev.upload(&(0..300u32).rev().collect::<Vec<_>>())?;
    let offsets = dev.upload(&(0..256u32).collect::<Vec<_>>())?;
    let mut out = dev.zeroed::<u32>(300)?;
    let err = RadixScatter::new()
        .launch(&dev, LaunchConfig::linear(1, 128), &keys, &offsets, &mut out, 0)
        .unwrap_err();
    println!("{err}");
    Ok(())
}

#[ptx_kernel]
fn clamp_rows(x: &[i32], out: &mut [i32], lo: i32, hi: i32) {
    for i in grid_stride(x.len()) {
        out[i] = x[i].clamp(lo, hi);
    }
}

#[test]
fn clamp_with_crossed_bounds() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x = dev.upload(&[1i32, 2, 3])?;
    let mut out = dev.zeroed::<i32>(3)?;
    let err = ClampRows::new().launch(&dev, LaunchConfig::linear(1, 32), &x, &mut out, 5, 1).unwrap_err();
    println!("{err}");
    assert!(matches!(&err, Error::KernelPanic { .. }), "{err:?}");
    Ok(())
}

#[test]
fn device_function_index_out_of_range() -> ptx_dsl::runtime::Result<()> {
    // `scratch` shorter than `x`: swap_in's `buf[i]` is out of range.
    let dev = Device::sim();
    let x = dev.upload(&[1.0f32; 40])?;
    let mut out = dev.zeroed::<f32>(240)?;
    let mut scratch = dev.zeroed::<f32>(39)?;
    let err = Activations::new()
        .launch(&dev, LaunchConfig::linear(1, 64), &x, &x, &mut out, &mut scratch)
        .unwrap_err();
    println!("{err}");
    assert!(matches!(&err, Error::OutOfBounds { param, index: 39, .. } if param == "scratch"), "{err:?}");
    Ok(())
}

// ---------------------------------------------------------------------------------------
// More constructs: device functions on shared arrays and passing slices on, a float max by
// compare-and-swap, 64-bit shared atomics, warp reductions of f64 and u32, comptime bools,
// `mut` in tuple patterns, `f32::max` by path, segment heads by ballot.

#[ptx_device]
fn bump(buf: &mut [u64], i: usize, by: u64) -> u64 {
    atomic_add(&mut buf[i], by)
}

#[ptx_device]
fn bump_both(a: &mut [u64], b: &mut [u64], i: usize) -> (u64, u64) {
    let x = bump(a, i, 1);
    let y = bump(b, i, x);
    (x, y)
}

#[ptx_device]
fn is_head(seg: &[u32], i: usize) -> bool {
    i == 0 || seg[i] != seg[i - 1]
}

#[ptx_kernel]
fn mixed(
    x: &[f32],
    seg: &[u32],
    fmax: &mut [u32],
    counts: &mut [u64],
    wsum: &mut [f64],
    wmax: &mut [u32],
    heads: &mut [u32],
    #[comptime] square: bool,
) {
    let hist = shared::<u64, 8>();
    let other = shared::<u64, 8>();
    let t = thread_idx().x as usize;
    if t < 8 {
        hist[t] = 0;
        other[t] = 0;
    }
    sync_threads();
    let i = global_idx().x as usize;
    let (mut v, mut s) = (0.0f32, 0u32);
    if i < x.len() {
        v = if square { x[i] * x[i] } else { x[i] };
        s = seg[i];
        // A float maximum by compare-and-swap on the bits (non-negative floats order as
        // their bits do).
        let mut cur = fmax[s as usize];
        loop {
            let want = f32::max(f32::from_bits(cur), v.abs()).to_bits();
            let old = atomic_cas(&mut fmax[s as usize], cur, want);
            if old == cur {
                break;
            }
            cur = old;
        }
        let (_, _) = bump_both(hist, other, s as usize % 8);
    }
    let total = warp_sum(v as f64);
    let biggest = warp_max(s);
    let head_bits = ballot(i < x.len() && is_head(seg, i));
    if lane_id() == 0 {
        let w = i / 32;
        wsum[w] = total;
        wmax[w] = biggest;
        heads[w] = head_bits;
    }
    sync_threads();
    if t < 8 {
        atomic_add(&mut counts[t], hist[t]);
        atomic_add(&mut counts[8 + t], other[t]);
    }
}

#[test]
fn mixed_constructs() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("mixed_constructs");
    let n: usize = 500;
    let x: Vec<f32> = (0..n).map(|_| rng.signed_f32() * 50.0).collect();
    let mut seg: Vec<u32> = (0..n).map(|_| (rng.next() % 4) as u32).collect();
    seg.sort();
    seg.iter_mut().for_each(|s| *s *= 3);
    let dev = Device::sim();
    let (dx, ds) = (dev.upload(&x)?, dev.upload(&seg)?);
    let warps = n.div_ceil(32);
    for square in [false, true] {
        let mut fmax = dev.zeroed::<u32>(12)?;
        let mut counts = dev.zeroed::<u64>(16)?;
        let mut wsum = dev.zeroed::<f64>(warps)?;
        let mut wmax = dev.zeroed::<u32>(warps)?;
        let mut heads = dev.zeroed::<u32>(warps)?;
        Mixed::new(square).launch(
            &dev,
            LaunchConfig::for_elements(n, 128),
            &dx,
            &ds,
            &mut fmax,
            &mut counts,
            &mut wsum,
            &mut wmax,
            &mut heads,
        )?;
        let val = |i: usize| if square { x[i] * x[i] } else { x[i] };
        let mut want_max = vec![0u32; 12];
        let mut want_counts = vec![0u64; 16];
        for i in 0..n {
            let s = seg[i] as usize;
            want_max[s] = f32::from_bits(want_max[s]).max(val(i).abs()).to_bits();
            want_counts[s % 8] += 1;
        }
        // The second array gets, per element, the first's count in its block before it:
        // per block and bin 0 + 1 + .. + (count - 1), whatever the order.
        for block in seg.chunks(128) {
            let mut c = [0u64; 8];
            block.iter().for_each(|&s| c[s as usize % 8] += 1);
            for b in 0..8 {
                want_counts[8 + b] += c[b] * c[b].saturating_sub(1) / 2;
            }
        }
        assert_eq!(fmax.to_vec()?, want_max, "square {square}");
        assert_eq!(counts.to_vec()?, want_counts, "square {square}");
        let (gs, gm, gh) = (wsum.to_vec()?, wmax.to_vec()?, heads.to_vec()?);
        for w in 0..warps {
            let lanes = (32 * w..(32 * w + 32).min(n)).collect::<Vec<_>>();
            // f64 sums of 32 f32 values (24-bit significands within 2^12 of each other
            // for |x| ≤ 2500 and above 2^-30...): not always exact, so 1 ulp of the sum of
            // magnitudes per addition level (5 levels).
            let exact: f64 = lanes.iter().map(|&i| val(i) as f64).sum();
            let mag: f64 = lanes.iter().map(|&i| (val(i) as f64).abs()).sum();
            assert!((gs[w] - exact).abs() <= 5.0 * f64::EPSILON * mag, "warp {w}: {} vs {exact}", gs[w]);
            assert_eq!(gm[w], lanes.iter().map(|&i| seg[i]).max().unwrap());
            let hb = lanes
                .iter()
                .enumerate()
                .fold(0u32, |b, (k, &i)| b | ((i == 0 || seg[i] != seg[i - 1]) as u32) << k);
            assert_eq!(gh[w], hb, "warp {w} heads");
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// A device function unrolled over its parameter: each call passes a comptime length.
// (Refused at the definition before: its own check took its parameters as runtime values.)

#[ptx_device]
fn dot_n(a: &[f32], b: &[f32], base: usize, n: usize) -> f32 {
    let mut s = 0.0f32;
    #[unroll]
    for e in 0..n {
        s = a[base + e].mul_add(b[e], s);
    }
    s
}

#[ptx_kernel]
fn small_matvec(m: &[f32], v: &[f32], out: &mut [f32], #[comptime] cols: u32) {
    let r = global_idx().x as usize;
    if r < out.len() {
        // The same function unrolled twice, for 4 and for `cols`.
        out[r] = dot_n(m, v, r * cols as usize, cols as usize) - dot_n(m, v, r * cols as usize, 4);
    }
}

#[test]
fn device_function_unrolled_over_a_comptime_argument() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("device_function_unrolled_over_a_comptime_argument");
    let dev = Device::sim();
    for cols in [4usize, 7, 16] {
        let rows = 45;
        let m: Vec<f32> = (0..rows * cols).map(|_| rng.signed_f32()).collect();
        let v: Vec<f32> = (0..cols).map(|_| rng.signed_f32()).collect();
        let (dm, dv) = (dev.upload(&m)?, dev.upload(&v)?);
        let mut out = dev.zeroed::<f32>(rows)?;
        let kernel = SmallMatvec::new(cols as u32);
        let fmas = kernel.ptx().lines().filter(|l| l.trim_start().starts_with("fma.rn.f32")).count();
        assert_eq!(fmas, cols + 4, "cols {cols}: both loops unrolled");
        kernel.launch(&dev, LaunchConfig::for_elements(rows, 32), &dm, &dv, &mut out)?;
        // The host runs the same function: the same fma chains, bit for bit.
        let want: Vec<f32> =
            (0..rows).map(|r| dot_n(&m, &v, r * cols, cols) - dot_n(&m, &v, r * cols, 4)).collect();
        assert_eq!(
            out.to_vec()?.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            want.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }
    Ok(())
}

/// A barrier in a loop whose trip count differs between threads, and one after it: the
/// threads that left the loop wait at the second while the others wait in the loop, an
/// error whose text names the Rust line of the barrier (it named only the PTX before).
#[ptx_kernel]
fn barrier_in_ragged_loop(x: &[f32], out: &mut [f32]) {
    let tile = shared::<f32, 64>();
    let t = thread_idx().x as usize;
    let mut acc = 0.0f32;
    for k in 0..(t % 3) {
        tile[t] = x[t] + k as f32;
        sync_threads();
        acc += tile[63 - t];
        sync_threads();
    }
    sync_threads();
    out[t] = acc;
}

#[test]
fn deadlock_names_the_barrier_line() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x = dev.upload(&[1.0f32; 64])?;
    let mut out = dev.zeroed::<f32>(64)?;
    let err = BarrierInRaggedLoop::new().launch(&dev, LaunchConfig::linear(1, 64), &x, &mut out).unwrap_err();
    let text = err.to_string();
    println!("{text}");
    let line = include_str!("lang_round7_kernels.rs")
        .lines()
        .position(|l| l.contains("tile[t] = x[t] + k as f32;"))
        .expect("the kernel's line")
        + 2;
    assert!(text.contains("barrier_in_ragged_loop"), "{text}");
    assert!(text.contains(&format!("lang_round7_kernels.rs:{line}:")), "line {line}: {text}");
    Ok(())
}
