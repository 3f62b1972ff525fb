//! The production RoPE (`ptx_dsl::rope::Rope`) on the simulator: accuracy against an
//! independently written float64 reference (`common/rope_reference.rs`, which derives the
//! frequencies itself) for both layouts, every storage type, partial rotary and every
//! scaling variant at positions spread up to 2^24; in-place equals out-of-place; fused q+k
//! equals separate launches; the gradient identity; the argument checks; and the f32
//! kernels against their own body run as plain Rust, bit for bit.

#[path = "common/rope_config.rs"]
mod rope_config;
#[path = "common/rope_reference.rs"]
mod rope_reference;

use ptx_dsl::rope::{Direction, Dtype, Layout, Rope, RopeConfig, Scaling, TensorView, ACCURACY};
use ptx_dsl::runtime::{Device, DeviceBuffer, Error};
use ptx_tools::rng::Rng;
use rope_config::{half_bits, half_value, ref_layout, ref_scaling, storage_roundoff};
use rope_reference::{reference_rope, RefLayout, RefScaling};

/// Host storage for one dtype: values (as f64, exactly what the buffer holds) and a buffer.
enum Stored {
    F32(DeviceBuffer<f32>),
    Half(DeviceBuffer<u16>),
}

/// Rounds `x` to `dtype` (the values the kernel sees) and uploads it.
fn store(device: &Device, dtype: Dtype, x: &[f32]) -> (Vec<f64>, Stored) {
    match dtype {
        Dtype::F32 => (x.iter().map(|&v| v as f64).collect(), Stored::F32(device.upload(x).unwrap())),
        Dtype::F16 | Dtype::Bf16 => {
            let bits: Vec<u16> = x.iter().map(|&v| half_bits(dtype, v)).collect();
            let values = bits.iter().map(|&b| half_value(dtype, b) as f64).collect();
            (values, Stored::Half(device.upload(&bits).unwrap()))
        }
    }
}

fn read(dtype: Dtype, s: &Stored) -> Vec<f64> {
    match s {
        Stored::F32(b) => b.to_vec().unwrap().iter().map(|&v| v as f64).collect(),
        Stored::Half(b) => b.to_vec().unwrap().iter().map(|&v| half_value(dtype, v) as f64).collect(),
    }
}

/// Out-of-place apply on either storage.
fn apply(
    rope: &ptx_dsl::rope::DeviceRope,
    d: Direction,
    p: &DeviceBuffer<u32>,
    x: &Stored,
    v: TensorView,
    out: &mut Stored,
) {
    match (x, out) {
        (Stored::F32(x), Stored::F32(o)) => rope.apply(d, p, x, v, o, v).map(|_| ()),
        (Stored::Half(x), Stored::Half(o)) => rope.apply(d, p, x, v, o, v).map(|_| ()),
        _ => unreachable!("one storage per test"),
    }
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Positions spread over [0, limit): the ends, and random values.
fn positions(rng: &mut Rng, tokens: usize, limit: u32) -> Vec<u32> {
    let mut p: Vec<u32> = (0..tokens).map(|_| (rng.next() % limit as u64) as u32).collect();
    p[0] = 0;
    p[1] = limit - 1;
    p[2] = 1;
    p
}

#[test]
fn every_variant_matches_float64_at_positions_up_to_2_pow_24() {
    let device = Device::sim();
    let mut rng = Rng::fresh("production_rope_accuracy");
    // Six heads: the scalar kernels rotate four heads at a time, then one at a time.
    // Rotary dims 64 and 40 run the vectorised kernels for f32 (pairs in fours) and 64 for
    // f16/bf16 (in eights); 20 (and 40 for f16/bf16) the scalar ones.
    let (tokens, heads, head_dim) = (24u32, 6u32, 64u32);
    let scalings = [
        Scaling::None,
        Scaling::Linear { factor: 4.0 },
        Scaling::DynamicNtk { factor: 2.0, original_max_position: 4096, seq_len: 1 << 20 },
        Scaling::yarn(4.0, 4096),
        Scaling::Llama3 {
            factor: 8.0,
            low_freq_factor: 1.0,
            high_freq_factor: 4.0,
            original_max_position: 8192,
        },
    ];
    let mut worst = 0.0f64;
    for limit in [1u32 << 20, 1 << 24] {
        for dtype in [Dtype::F32, Dtype::F16, Dtype::Bf16] {
            for layout in [Layout::HalfSplit, Layout::Interleaved] {
                for rotary_dim in [head_dim, 40, 20] {
                    for scaling in scalings {
                        let config = RopeConfig {
                            rotary_dim,
                            layout,
                            dtype,
                            scaling,
                            theta: 500_000.0,
                            ..RopeConfig::new(head_dim)
                        };
                        let rope = Rope::new(config).unwrap().on(&device).unwrap();
                        let n = (tokens * heads * head_dim) as usize;
                        let x: Vec<f32> = (0..n).map(|_| rng.signed_f32()).collect();
                        let (xv, xd) = store(&device, dtype, &x);
                        let max_x = xv.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                        let pos = positions(&mut rng, tokens as usize, limit);
                        let pd = device.upload(&pos).unwrap();
                        let view = TensorView::contiguous(tokens, heads, head_dim);
                        for direction in [Direction::Forward, Direction::Backward] {
                            let mut out = store(&device, dtype, &vec![0.0; n]).1;
                            apply(&rope, direction, &pd, &xd, view, &mut out);
                            let got = read(dtype, &out);
                            let want = reference_rope(
                                &xv,
                                &pos,
                                tokens as usize,
                                heads as usize,
                                head_dim as usize,
                                (heads * head_dim) as usize,
                                rotary_dim as usize,
                                ref_layout(layout),
                                500_000.0,
                                ref_scaling(scaling),
                                direction == Direction::Backward,
                            );
                            let m = scaling.attention_factor();
                            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                                // The f32 result is within ACCURACY·m·max|x| of the exact
                                // rotation (the bound the docs state; see the derivation in
                                // `rope::kernels`), and storing it in f16/bf16 rounds once more.
                                let err = (g - w).abs() - storage_roundoff(dtype) * w.abs();
                                worst = worst.max(if dtype == Dtype::F32 { err / (m * max_x) } else { 0.0 });
                                assert!(
                                    err <= ACCURACY * m * max_x,
                                    "{dtype:?} {layout:?} rotary {rotary_dim} {scaling:?} {direction:?} \
                                     pos < {limit}: element {i} (token {}, position {}) got {g}, want {w}",
                                    i / (heads * head_dim) as usize,
                                    pos[i / (heads * head_dim) as usize]
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    eprintln!("worst f32 error: {worst:.3e} · m·max|x| (bound {ACCURACY:e})");
}

#[test]
fn in_place_equals_out_of_place_and_fused_equals_separate() {
    let device = Device::sim();
    let mut rng = Rng::fresh("production_rope_forms");
    // GQA: 4 q heads and 2 kv heads in one fused qkv row, partial rotary.
    let (tokens, qh, kh, hd) = (9u32, 4u32, 2u32, 32u32);
    let row = ((qh + 2 * kh) * hd) as usize;
    let qkv: Vec<f32> = (0..tokens as usize * row).map(|_| rng.signed_f32()).collect();
    let pos = positions(&mut rng, tokens as usize, 1 << 16);
    let pd = device.upload(&pos).unwrap();
    for layout in [Layout::HalfSplit, Layout::Interleaved] {
        let config = RopeConfig { layout, rotary_dim: 24, ..RopeConfig::new(hd) };
        let rope = Rope::new(config).unwrap().on(&device).unwrap();
        let q_view = TensorView { tokens, heads: qh, offset: 0, stride: row };
        let k_view = TensorView { tokens, heads: kh, offset: (qh * hd) as usize, stride: row };
        for direction in [Direction::Forward, Direction::Backward] {
            let src = device.upload(&qkv).unwrap();
            // Separate out-of-place launches into fresh contiguous q and k.
            let (qc, kc) = (TensorView::contiguous(tokens, qh, hd), TensorView::contiguous(tokens, kh, hd));
            let mut q_sep = device.zeroed::<f32>(qc.extent(hd)).unwrap();
            let mut k_sep = device.zeroed::<f32>(kc.extent(hd)).unwrap();
            rope.apply(direction, &pd, &src, q_view, &mut q_sep, qc).unwrap();
            rope.apply(direction, &pd, &src, k_view, &mut k_sep, kc).unwrap();
            // One fused launch.
            let mut q_fused = device.zeroed::<f32>(qc.extent(hd)).unwrap();
            let mut k_fused = device.zeroed::<f32>(kc.extent(hd)).unwrap();
            rope.apply_qk(
                direction,
                &pd,
                (&src, q_view),
                (&src, k_view),
                (&mut q_fused, qc),
                (&mut k_fused, kc),
            )
            .unwrap();
            assert_eq!(bits(&q_sep), bits(&q_fused), "{layout:?} {direction:?}: fused q");
            assert_eq!(bits(&k_sep), bits(&k_fused), "{layout:?} {direction:?}: fused k");
            // In place, fused over the qkv buffer: q and k rotated, v untouched.
            let mut in_place = device.upload(&qkv).unwrap();
            rope.apply_qk_in_place(direction, &pd, &mut in_place, q_view, k_view).unwrap();
            let in_place = in_place.to_vec().unwrap();
            let (q_sep, k_sep) = (q_sep.to_vec().unwrap(), k_sep.to_vec().unwrap());
            for t in 0..tokens as usize {
                let r = &in_place[t * row..(t + 1) * row];
                let (qn, kn) = ((qh * hd) as usize, (kh * hd) as usize);
                assert_eq!(
                    f32_bits(&r[..qn]),
                    f32_bits(&q_sep[t * qn..(t + 1) * qn]),
                    "in-place q, token {t}"
                );
                assert_eq!(
                    f32_bits(&r[qn..qn + kn]),
                    f32_bits(&k_sep[t * kn..(t + 1) * kn]),
                    "in-place k, token {t}"
                );
                assert_eq!(
                    f32_bits(&r[qn + kn..]),
                    f32_bits(&qkv[t * row + qn + kn..(t + 1) * row]),
                    "v, token {t}"
                );
            }
            // In place on one tensor equals out of place on it.
            let mut one = device.upload(&q_sep).unwrap();
            rope.apply_in_place(direction, &pd, &mut one, qc).unwrap();
            let mut two = device.zeroed::<f32>(q_sep.len()).unwrap();
            rope.apply(direction, &pd, &device.upload(&q_sep).unwrap(), qc, &mut two, qc).unwrap();
            assert_eq!(bits(&one), bits(&two), "{layout:?} {direction:?}: in place");
        }
    }
}

#[test]
fn vectorised_and_scalar_kernels_give_the_same_bits() {
    // The same tensor at element offset 0 (16-byte aligned: the vectorised kernel) and at
    // offset 1 of a longer buffer (the scalar kernel): the same angles and the same
    // rotations, so the same bits, for every storage type, layout, partial rotary and
    // direction, in place and out of place.
    let device = Device::sim();
    let mut rng = Rng::fresh("vectorised_and_scalar_kernels");
    let (tokens, heads, hd) = (7u32, 5u32, 64u32);
    let aligned = TensorView::contiguous(tokens, heads, hd);
    let shifted = TensorView { offset: 1, ..aligned };
    let n = aligned.extent(hd);
    let pos = positions(&mut rng, tokens as usize, 1 << 20);
    let pd = device.upload(&pos).unwrap();
    for dtype in [Dtype::F32, Dtype::F16, Dtype::Bf16] {
        for layout in [Layout::HalfSplit, Layout::Interleaved] {
            for rotary_dim in [64, 32] {
                let rope =
                    Rope::new(RopeConfig { dtype, layout, rotary_dim, ..RopeConfig::new(hd) }).unwrap();
                assert!(rope.vector_width().is_some(), "{dtype:?} rotary {rotary_dim} vectorises");
                let rope = rope.on(&device).unwrap();
                let x: Vec<f32> = (0..n + 1).map(|_| rng.signed_f32()).collect();
                let (_, xs) = store(&device, dtype, &x);
                let (_, xa) = store(&device, dtype, &x[1..]);
                for direction in [Direction::Forward, Direction::Backward] {
                    let what = format!("{dtype:?} {layout:?} rotary {rotary_dim} {direction:?}");
                    let mut out_a = store(&device, dtype, &vec![0.0; n]).1;
                    let mut out_s = store(&device, dtype, &vec![0.0; n + 1]).1;
                    apply_views(&rope, direction, &pd, (&xa, aligned), (&mut out_a, aligned));
                    apply_views(&rope, direction, &pd, (&xs, shifted), (&mut out_s, shifted));
                    let (a, s) = (read(dtype, &out_a), read(dtype, &out_s));
                    let same = a.iter().zip(&s[1..]).all(|(p, q)| p.to_bits() == q.to_bits());
                    assert!(same, "{what}: out of place");
                    let (mut ia, mut is) = (store(&device, dtype, &x[1..]).1, store(&device, dtype, &x).1);
                    in_place(&rope, direction, &pd, &mut ia, aligned);
                    in_place(&rope, direction, &pd, &mut is, shifted);
                    let (a2, s2) = (read(dtype, &ia), read(dtype, &is));
                    assert!(
                        a2.iter().zip(&s2[1..]).all(|(p, q)| p.to_bits() == q.to_bits()),
                        "{what}: in place"
                    );
                    assert!(
                        a2.iter().zip(&a).all(|(p, q)| p.to_bits() == q.to_bits()),
                        "{what}: in place = out"
                    );
                }
            }
        }
    }
}

/// Out-of-place apply from one view into another, on either storage.
fn apply_views(
    rope: &ptx_dsl::rope::DeviceRope,
    d: Direction,
    p: &DeviceBuffer<u32>,
    (x, xv): (&Stored, TensorView),
    (out, ov): (&mut Stored, TensorView),
) {
    match (x, out) {
        (Stored::F32(x), Stored::F32(o)) => rope.apply(d, p, x, xv, o, ov).map(|_| ()),
        (Stored::Half(x), Stored::Half(o)) => rope.apply(d, p, x, xv, o, ov).map(|_| ()),
        _ => unreachable!("one storage per test"),
    }
    .unwrap();
}

/// In-place apply on either storage.
fn in_place(
    rope: &ptx_dsl::rope::DeviceRope,
    d: Direction,
    p: &DeviceBuffer<u32>,
    x: &mut Stored,
    v: TensorView,
) {
    match x {
        Stored::F32(x) => rope.apply_in_place(d, p, x, v).map(|_| ()),
        Stored::Half(x) => rope.apply_in_place(d, p, x, v).map(|_| ()),
    }
    .unwrap();
}

fn bits(b: &DeviceBuffer<f32>) -> Vec<u32> {
    f32_bits(&b.to_vec().unwrap())
}

fn f32_bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn backward_is_the_transpose_of_forward() {
    // <forward(x), g> = <x, backward(g)>: the two rotations use the very same angles.
    let device = Device::sim();
    let mut rng = Rng::fresh("production_rope_gradient");
    let (tokens, heads, hd) = (16u32, 2u32, 64u32);
    let n = (tokens * heads * hd) as usize;
    let x: Vec<f32> = (0..n).map(|_| rng.signed_f32()).collect();
    let g: Vec<f32> = (0..n).map(|_| rng.signed_f32()).collect();
    let pos = positions(&mut rng, tokens as usize, 1 << 20);
    let pd = device.upload(&pos).unwrap();
    let view = TensorView::contiguous(tokens, heads, hd);
    for layout in [Layout::HalfSplit, Layout::Interleaved] {
        let rope = Rope::new(RopeConfig { layout, rotary_dim: 48, ..RopeConfig::new(hd) })
            .unwrap()
            .on(&device)
            .unwrap();
        let (xd, gd) = (device.upload(&x).unwrap(), device.upload(&g).unwrap());
        let (mut fx, mut bg) = (device.zeroed::<f32>(n).unwrap(), device.zeroed::<f32>(n).unwrap());
        rope.apply(Direction::Forward, &pd, &xd, view, &mut fx, view).unwrap();
        rope.apply(Direction::Backward, &pd, &gd, view, &mut bg, view).unwrap();
        let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(u, v)| *u as f64 * *v as f64).sum::<f64>();
        let (lhs, rhs) = (dot(&fx.to_vec().unwrap(), &g), dot(&x, &bg.to_vec().unwrap()));
        // Each side sums n products whose f32 factors carry relative errors of a few 2^-24
        // (the rotation's roundings): |lhs - rhs| <= n · 4 · 2^-24 · 2 (|x|, |g| < 1).
        let tol = n as f64 * 8.0 * 2f64.powi(-24);
        assert!((lhs - rhs).abs() <= tol, "{layout:?}: <f(x), g> = {lhs}, <x, b(g)> = {rhs}");
    }
}

#[test]
fn huge_positions_stay_within_the_stated_bound() {
    // Above 2^24 the position is no longer exact in f32 and the angle loses some accuracy
    // (`Rope::error_bound`), but never without bound: check the whole u32 range.
    let device = Device::sim();
    let mut rng = Rng::fresh("production_rope_huge_positions");
    let rope = Rope::new(RopeConfig::new(64)).unwrap();
    let bound = rope.error_bound(u32::MAX);
    assert!(bound > ACCURACY && bound < 2e-4, "{bound}");
    let rope = rope.on(&device).unwrap();
    let mut pos = positions(&mut rng, 32, u32::MAX);
    pos[3] = 1 << 24;
    pos[4] = (1 << 24) + 1;
    pos[5] = 3_000_000_000;
    let view = TensorView::contiguous(32, 2, 64);
    let x: Vec<f32> = (0..32 * 128).map(|_| rng.signed_f32()).collect();
    let mut out = device.zeroed::<f32>(x.len()).unwrap();
    rope.apply(
        Direction::Forward,
        &device.upload(&pos).unwrap(),
        &device.upload(&x).unwrap(),
        view,
        &mut out,
        view,
    )
    .unwrap();
    let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let want = reference_rope(
        &x64,
        &pos,
        32,
        2,
        64,
        128,
        64,
        RefLayout::HalfSplit,
        10_000.0,
        RefScaling::None,
        false,
    );
    let max_x = x64.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (i, (g, w)) in out.to_vec().unwrap().iter().zip(&want).enumerate() {
        let err = (*g as f64 - w).abs();
        assert!(err <= bound * max_x, "element {i} (position {}): got {g}, want {w}", pos[i / 128]);
    }
}

#[test]
fn bad_arguments_are_errors_naming_them() {
    let device = Device::sim();
    let argument_of = |e: Error| match e {
        Error::InvalidArgument { argument, .. } => argument,
        other => panic!("expected InvalidArgument, got {other}"),
    };
    let config = |f: fn(&mut RopeConfig)| {
        let mut c = RopeConfig::new(64);
        f(&mut c);
        Rope::new(c).map(|_| ()).map_err(argument_of)
    };
    assert_eq!(config(|c| c.rotary_dim = 63), Err("rotary_dim".to_string()));
    assert_eq!(config(|c| c.rotary_dim = 66), Err("rotary_dim".to_string()));
    assert_eq!(config(|c| c.rotary_dim = 0), Err("rotary_dim".to_string()));
    assert_eq!(config(|c| c.head_dim = 0), Err("head_dim".to_string()));
    for theta in [f64::NAN, 0.0, -1.0, 1.0, f64::INFINITY] {
        let named = Rope::new(RopeConfig { theta, ..RopeConfig::new(64) }).map(|_| ()).map_err(argument_of);
        assert_eq!(named, Err("theta".to_string()), "{theta}");
    }
    assert_eq!(config(|c| c.scaling = Scaling::Linear { factor: 0.0 }), Err("scaling.factor".to_string()));
    let yarn = |c: &mut RopeConfig| {
        c.scaling = Scaling::Yarn {
            factor: 4.0,
            original_max_position: 4096,
            beta_fast: 1.0,
            beta_slow: 32.0,
            attention_factor: None,
        }
    };
    assert_eq!(config(yarn), Err("scaling.beta_fast".to_string()));
    // Parameters that are valid by themselves but give rates or a factor f32 cannot hold.
    assert_eq!(config(|c| c.scaling = Scaling::Linear { factor: 1e-300 }), Err("scaling.factor".to_string()));
    // A YaRN attention factor that is ∞, 0 or subnormal in f32.
    for attention_factor in [1e300, 1e-300, 1e-40] {
        let mut c = RopeConfig::new(64);
        c.scaling = Scaling::Yarn {
            factor: 4.0,
            original_max_position: 4096,
            beta_fast: 32.0,
            beta_slow: 1.0,
            attention_factor: Some(attention_factor),
        };
        assert_eq!(
            Rope::new(c).map(|_| ()).map_err(argument_of),
            Err("scaling.attention_factor".to_string()),
            "{attention_factor}"
        );
    }

    let rope = Rope::new(RopeConfig::new(8)).unwrap().on(&device).unwrap();
    let x = device.upload(&[0.25f32; 64]).unwrap();
    let mut out = device.zeroed::<f32>(64).unwrap();
    let pd = device.upload(&[1u32, 2, 3, 4]).unwrap();
    let v = TensorView::contiguous(4, 2, 8);
    let mut run = |xv: TensorView, ov: TensorView, p: &DeviceBuffer<u32>| {
        rope.apply(Direction::Forward, p, &x, xv, &mut out, ov).map(|_| ()).map_err(argument_of)
    };
    assert_eq!(run(v, v, &pd), Ok(()));
    assert_eq!(run(TensorView { tokens: 5, ..v }, TensorView { tokens: 5, ..v }, &pd), Err("x".into()));
    assert_eq!(run(v, TensorView { offset: 1, ..v }, &pd), Err("out".into()));
    assert_eq!(run(TensorView { stride: 15, ..v }, v, &pd), Err("x".into()));
    // Extents beyond usize are an error too, not an overflow.
    assert_eq!(run(TensorView { stride: usize::MAX / 2, ..v }, v, &pd), Err("x".into()));
    assert_eq!(run(v, TensorView { offset: usize::MAX, ..v }, &pd), Err("out".into()));
    assert_eq!(run(TensorView { tokens: 0, ..v }, TensorView { tokens: 0, ..v }, &pd), Err("x".into()));
    assert_eq!(run(v, TensorView { heads: 1, ..v }, &pd), Err("out".into()));
    assert_eq!(run(v, TensorView { tokens: 3, ..v }, &pd), Err("out".into()));
    let short = device.upload(&[1u32, 2, 3]).unwrap();
    assert_eq!(run(v, v, &short), Err("positions".into()));

    // The storage type must match the configuration.
    let half =
        Rope::new(RopeConfig { dtype: Dtype::F16, ..RopeConfig::new(8) }).unwrap().on(&device).unwrap();
    let err =
        half.apply(Direction::Forward, &pd, &x, v, &mut device.zeroed::<f32>(64).unwrap(), v).unwrap_err();
    assert_eq!(argument_of(err), "dtype");
    // In-place q and k views of one buffer must not overlap.
    let mut qkv = device.zeroed::<f32>(4 * 24).unwrap();
    let q = TensorView { tokens: 4, heads: 2, offset: 0, stride: 24 };
    let k = TensorView { tokens: 4, heads: 1, offset: 8, stride: 24 };
    let err = rope.apply_qk_in_place(Direction::Forward, &pd, &mut qkv, q, k).unwrap_err();
    assert_eq!(argument_of(err), "k");
    let k = TensorView { offset: 16, ..k };
    rope.apply_qk_in_place(Direction::Forward, &pd, &mut qkv, q, k).unwrap();
}

/// The largest error of a forward pass of `config` (f32, 16 tokens of 2 heads) against the
/// float64 reference at positions below 2^24, as a multiple of `m·max|x|`.
fn worst_error(config: RopeConfig, rng: &mut Rng) -> f64 {
    let device = Device::sim();
    let (tokens, heads, hd) = (16u32, 2u32, config.head_dim);
    let rope = Rope::new(config).unwrap().on(&device).unwrap();
    let x: Vec<f32> = (0..(tokens * heads * hd) as usize).map(|_| rng.signed_f32()).collect();
    let pos = positions(rng, tokens as usize, 1 << 24);
    let view = TensorView::contiguous(tokens, heads, hd);
    let mut out = device.zeroed::<f32>(x.len()).unwrap();
    let (pd, xd) = (device.upload(&pos).unwrap(), device.upload(&x).unwrap());
    rope.apply(Direction::Forward, &pd, &xd, view, &mut out, view).unwrap();
    let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let want = reference_rope(
        &x64,
        &pos,
        tokens as usize,
        heads as usize,
        hd as usize,
        (heads * hd) as usize,
        config.rotary_dim as usize,
        ref_layout(config.layout),
        config.theta,
        ref_scaling(config.scaling),
        false,
    );
    let scale = config.scaling.attention_factor() * x64.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let got = out.to_vec().unwrap();
    got.iter().zip(&want).map(|(g, w)| (*g as f64 - w).abs() / scale).fold(0.0, f64::max)
}

#[test]
fn rates_above_one_radian_per_position_are_refused() {
    // ACCURACY is derived for rates up to 1/2π turns (1 radian) per position, pair 0's
    // without scaling; a factor below 1 raises the rates above that, and the error with
    // them (a linear factor of 0.001 errs by 4.2e-6 at positions below 2^20): refused.
    let mut rng = Rng::fresh("production_rope_rate_limit");
    let linear = |factor| RopeConfig { scaling: Scaling::Linear { factor }, ..RopeConfig::new(64) };
    let llama3 = |factor| RopeConfig {
        theta: 500_000.0,
        scaling: Scaling::Llama3 {
            factor,
            low_freq_factor: 1.0,
            high_freq_factor: 4.0,
            original_max_position: 8192,
        },
        ..RopeConfig::new(64)
    };
    for config in [linear(0.999), linear(0.5), linear(0.001), llama3(1e-4)] {
        match Rope::new(config).unwrap_err() {
            Error::InvalidArgument { argument, reason } => {
                assert_eq!(argument, "scaling.factor", "{reason}");
                assert!(reason.contains("turns") && reason.contains("0.159155"), "{reason}");
            }
            other => panic!("{:?}: {other}", config.scaling),
        }
    }
    // At the limit (pair 0 of a linear factor 1), below it with a factor below 1 (Llama 3's
    // 0.5 on its low-frequency pairs), and with every rate 0 in f32 (a linear factor of
    // 1e50: the true angles stay below 1e-35 radians, so not rotating is right): within
    // ACCURACY against float64.
    for config in [linear(1.0), llama3(0.5), linear(1e50)] {
        let worst = worst_error(config, &mut rng);
        assert!(worst <= ACCURACY, "{:?}: {worst:e}", config.scaling);
    }
    assert!(Rope::new(linear(1e50)).unwrap().turn_table().iter().all(|&r| r == 0.0));
}

#[test]
fn in_place_q_and_k_overlap_only_where_they_share_an_element() {
    let device = Device::sim();
    let mut rng = Rng::fresh("production_rope_in_place_views");
    let rope = Rope::new(RopeConfig::new(8)).unwrap().on(&device).unwrap();
    let pd = device.upload(&[3u32, 70_000, 1, 12]).unwrap();
    let data: Vec<f32> = (0..128).map(|_| rng.signed_f32()).collect();
    let q = TensorView::contiguous(4, 2, 8);
    let reason = |k: TensorView| {
        let mut x = device.upload(&data).unwrap();
        match rope.apply_qk_in_place(Direction::Forward, &pd, &mut x, q, k).unwrap_err() {
            Error::InvalidArgument { argument, reason } if argument == "k" => reason,
            other => panic!("{k:?}: {other}"),
        }
    };
    // q is elements 0..64 of the buffer; k stacked after it (elements 64..128, with q's
    // stride or its own) is disjoint, and one launch equals two.
    for k in [TensorView { offset: 64, ..q }, TensorView { offset: 64, ..TensorView::contiguous(4, 1, 8) }] {
        let mut fused = device.upload(&data).unwrap();
        rope.apply_qk_in_place(Direction::Forward, &pd, &mut fused, q, k).unwrap();
        let mut separate = device.upload(&data).unwrap();
        rope.apply_in_place(Direction::Forward, &pd, &mut separate, q).unwrap();
        rope.apply_in_place(Direction::Forward, &pd, &mut separate, k).unwrap();
        assert_eq!(bits(&fused), bits(&separate), "{k:?}");
        assert_ne!(f32_bits(&fused.to_vec().unwrap()), f32_bits(&data), "rotated");
    }
    // One element too early: k's first row overlaps q's last.
    let r = reason(TensorView { offset: 56, ..q });
    assert!(r.contains("elements 56..72 (token 0) overlap q's 48..64 (token 3)"), "{r}");
    // Rows of one head interleaved with q's: disjoint at offset 8, overlapping at 9.
    let (q1, k1) = (TensorView { heads: 1, ..q }, TensorView { heads: 1, offset: 8, ..q });
    let mut x = device.upload(&data).unwrap();
    rope.apply_qk_in_place(Direction::Forward, &pd, &mut x, q1, k1).unwrap();
    let mut x = device.upload(&data).unwrap();
    let err = rope.apply_qk_in_place(Direction::Forward, &pd, &mut x, q1, TensorView { offset: 9, ..k1 });
    let r = err.unwrap_err().to_string();
    assert!(r.contains("elements 9..17 (token 0) overlap q's 16..24 (token 1)"), "{r}");
    // Different strides whose ranges interleave are refused.
    let k = TensorView { tokens: 4, heads: 1, offset: 16, stride: 32 };
    assert!(reason(k).contains("different strides must lie in separate ranges"), "{}", reason(k));
}

#[test]
fn buffers_of_another_device_are_named_by_their_argument() {
    let (device, other) = (Device::sim(), Device::sim());
    let rope = Rope::new(RopeConfig::new(8)).unwrap().on(&device).unwrap();
    let v = TensorView::contiguous(2, 1, 8);
    let (here, there) = (device.upload(&[0.5f32; 16]).unwrap(), other.upload(&[0.5f32; 16]).unwrap());
    let (pos_here, pos_there) = (device.upload(&[1u32, 2]).unwrap(), other.upload(&[1u32, 2]).unwrap());
    let (mut out_here, mut out_there) = (device.zeroed::<f32>(16).unwrap(), other.zeroed::<f32>(16).unwrap());
    let named = |r: Result<ptx_dsl::runtime::LaunchReport, Error>, argument: &str| match r {
        Err(e @ Error::WrongDevice { .. }) => {
            let text = e.to_string();
            assert!(text.contains(&format!("`{argument}` lives on")), "{text}");
        }
        other => panic!("{argument}: {other:?}"),
    };
    let fwd = Direction::Forward;
    named(rope.apply(fwd, &pos_there, &here, v, &mut out_here, v), "positions");
    named(rope.apply(fwd, &pos_here, &there, v, &mut out_here, v), "x");
    named(rope.apply(fwd, &pos_here, &here, v, &mut out_there, v), "out");
    let (mut k_out_here, mut k_out_there) =
        (device.zeroed::<f32>(16).unwrap(), other.zeroed::<f32>(16).unwrap());
    let qk = |k, q_out: &mut DeviceBuffer<f32>, k_out: &mut DeviceBuffer<f32>| {
        rope.apply_qk(fwd, &pos_here, (&here, v), (k, v), (q_out, v), (k_out, v))
    };
    named(qk(&there, &mut out_here, &mut k_out_here), "k");
    named(qk(&here, &mut out_there, &mut k_out_here), "q_out");
    named(qk(&here, &mut out_here, &mut k_out_there), "k_out");
    let mut x_there = other.upload(&[0.5f32; 16]).unwrap();
    named(rope.apply_in_place(fwd, &pos_here, &mut x_there, v), "x");
    assert!(rope.apply(fwd, &pos_here, &here, v, &mut out_here, v).is_ok());
}

/// The sine and cosine a production kernel computes for one pair: its device function
/// `scaled_sin_cos` run as plain Rust. Every step is an exact f32 operation, so the kernel
/// must give these bits.
fn kernel_sin_cos(pos: u32, hi: f32, lo: f32, scale: f32, backward: bool) -> (f32, f32) {
    let p = pos as f32;
    let p_rem = (pos as i64 - p as i64) as f32;
    ptx_dsl::rope::kernels::scaled_sin_cos(p, p_rem, hi, lo, scale, backward)
}

#[test]
fn f32_kernels_give_the_bits_of_their_body_run_as_plain_rust() {
    // Positions over the whole u32 range (the remainder term `p_rem` at work), a YaRN
    // attention factor (scale != 1), partial rotary, both layouts and directions, the
    // vectorised kernel (offset 0) and the scalar one (offset 1).
    let device = Device::sim();
    let mut rng = Rng::fresh("f32_kernels_as_plain_rust");
    let (tokens, heads, hd, rotary) = (9u32, 3u32, 32u32, 24u32);
    let mut pos: Vec<u32> = (0..tokens).map(|_| rng.next() as u32).collect();
    pos[..4].copy_from_slice(&[0, 1, u32::MAX, (1 << 24) + 1]);
    let pd = device.upload(&pos).unwrap();
    let scaling = Scaling::Yarn {
        factor: 8.0,
        original_max_position: 4096,
        beta_fast: 32.0,
        beta_slow: 1.0,
        attention_factor: None,
    };
    for layout in [Layout::HalfSplit, Layout::Interleaved] {
        let rope =
            Rope::new(RopeConfig { layout, rotary_dim: rotary, scaling, ..RopeConfig::new(hd) }).unwrap();
        assert_eq!(rope.vector_width(), Some(4), "offset 0 runs the vectorised kernel");
        let (table, scale) = (rope.turn_table().to_vec(), rope.attention_factor());
        assert_ne!(scale, 1.0, "YaRN's attention factor");
        let rope = rope.on(&device).unwrap();
        for offset in [0, 1] {
            let view = TensorView { offset, ..TensorView::contiguous(tokens, heads, hd) };
            let n = view.extent(hd);
            let x: Vec<f32> = (0..n).map(|_| rng.signed_f32() * 4.0).collect();
            let xd = device.upload(&x).unwrap();
            for direction in [Direction::Forward, Direction::Backward] {
                let mut out = device.upload(&vec![f32::NAN; n]).unwrap();
                rope.apply(direction, &pd, &xd, view, &mut out, view).unwrap();
                let got = out.to_vec().unwrap();
                let mut want = x.clone();
                for (t, &position) in pos.iter().enumerate() {
                    for h in 0..heads as usize {
                        let row = offset + (t * heads as usize + h) * hd as usize;
                        for i in 0..rotary as usize / 2 {
                            let (i0, i1) = match layout {
                                Layout::HalfSplit => (i, i + rotary as usize / 2),
                                Layout::Interleaved => (2 * i, 2 * i + 1),
                            };
                            let backward = direction == Direction::Backward;
                            let (sin, cos) =
                                kernel_sin_cos(position, table[2 * i], table[2 * i + 1], scale, backward);
                            let (x0, x1) = (x[row + i0], x[row + i1]);
                            want[row + i0] = x0.mul_add(cos, -(x1 * sin));
                            want[row + i1] = x0.mul_add(sin, x1 * cos);
                        }
                    }
                }
                // Outside the view the output keeps its NaNs; inside, every bit agrees.
                assert!(got[..offset].iter().all(|v| v.is_nan()), "{layout:?}: wrote before the view");
                let same = (offset..n).all(|j| got[j].to_bits() == want[j].to_bits());
                assert!(same, "{layout:?} offset {offset} {direction:?}: the kernel is not its body as Rust");
            }
        }
    }
}

/// A launch keeps its grid within the x limit of 2^31 − 1 blocks: where a block holds one
/// token (a scalar kernel of 129 or more pairs) that is 2^31 − 1 tokens, below
/// `MAX_TOKENS` (which the launch checked alone, so such a launch asked for a grid the
/// driver refuses); where blocks hold several, `MAX_TOKENS` is the limit.
#[test]
fn max_tokens_keeps_the_grid_within_its_x_limit() {
    use ptx_dsl::rope::MAX_TOKENS;
    let grid_x = i32::MAX as u32;
    let wide = Rope::new(RopeConfig { rotary_dim: 258, ..RopeConfig::new(512) }).expect("valid");
    assert_eq!(wide.max_tokens(false), grid_x);
    assert_eq!(wide.launch_config(wide.max_tokens(false), false).grid.0, grid_x);
    let usual = Rope::new(RopeConfig::new(128)).expect("valid");
    for vectorised in [false, true] {
        let most = usual.max_tokens(vectorised);
        assert_eq!(most, MAX_TOKENS);
        assert!(usual.launch_config(most, vectorised).grid.0 <= grid_x);
    }
}
