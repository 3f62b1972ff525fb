//! The production RoPE on random configurations, fresh each run (the seed is printed): both
//! layouts, every storage type, head dims odd and even up to 256 with partial rotary, GQA
//! head counts, every scaling variant with random parameters, q and k as views of a fused
//! qkv buffer (either order, gaps between them and at the ends, or two separate regions
//! with their own strides; one-token views with any stride), out-of-place outputs with their
//! own offsets and strides, positions with zeros and repeats. Each case checks against the
//! float64 reference (`common/rope_reference.rs`), that nothing outside the views changes,
//! and that the four forms agree bit for bit; then random bad arguments must be errors
//! naming an argument, never panics.

#[path = "common/rope_config.rs"]
mod rope_config;
#[path = "common/rope_reference.rs"]
mod rope_reference;

use std::panic::{catch_unwind, AssertUnwindSafe};

use ptx_dsl::rope::{
    DeviceRope, Direction, Dtype, Layout, Rope, RopeConfig, RopeStorage, Scaling, TensorView,
};
use ptx_dsl::runtime::{Device, DeviceBuffer, Error};
use ptx_tools::rng::Rng;
use rope_config::{half_bits, half_value, ref_layout, ref_scaling, storage_roundoff};
use rope_reference::reference_rope;

/// A storage element type: f32, or the bits of f16/bf16.
trait Element: RopeStorage + Copy {
    fn encode(dtype: Dtype, v: f32) -> Self;
    fn value(dtype: Dtype, e: Self) -> f64;
    fn bits(self) -> u32;
}

impl Element for f32 {
    fn encode(_: Dtype, v: f32) -> f32 {
        v
    }
    fn value(_: Dtype, e: f32) -> f64 {
        e as f64
    }
    fn bits(self) -> u32 {
        self.to_bits()
    }
}

impl Element for u16 {
    fn encode(dtype: Dtype, v: f32) -> u16 {
        half_bits(dtype, v)
    }
    fn value(dtype: Dtype, e: u16) -> f64 {
        half_value(dtype, e) as f64
    }
    fn bits(self) -> u32 {
        self as u32
    }
}

fn pick<T: Copy>(rng: &mut Rng, from: &[T]) -> T {
    from[(rng.next() % from.len() as u64) as usize]
}

/// Uniform in `lo..=hi`.
fn between(rng: &mut Rng, lo: u64, hi: u64) -> u64 {
    lo + rng.next() % (hi - lo + 1)
}

/// Log-uniform in `[lo, hi)`.
fn log_between(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    (lo.ln() + rng.unit() * (hi / lo).ln()).exp()
}

fn random_scaling(rng: &mut Rng) -> Scaling {
    match rng.next() % 5 {
        0 => Scaling::None,
        1 => Scaling::Linear { factor: log_between(rng, 1.0, 64.0) },
        2 => Scaling::DynamicNtk {
            factor: log_between(rng, 1.0, 16.0),
            original_max_position: between(rng, 1, 8192) as u32,
            seq_len: between(rng, 1, 1 << 21) as u32,
        },
        3 => {
            let beta_slow = log_between(rng, 0.25, 8.0);
            Scaling::Yarn {
                factor: log_between(rng, 1.0, 64.0),
                original_max_position: between(rng, 1, 65536) as u32,
                beta_fast: beta_slow * log_between(rng, 1.01, 64.0),
                beta_slow,
                attention_factor: rng.next().is_multiple_of(2).then(|| log_between(rng, 0.5, 2.0)),
            }
        }
        _ => {
            let low_freq_factor = log_between(rng, 0.25, 4.0);
            Scaling::Llama3 {
                factor: log_between(rng, 1.0, 32.0),
                low_freq_factor,
                high_freq_factor: low_freq_factor * log_between(rng, 1.01, 16.0),
                original_max_position: between(rng, 1, 65536) as u32,
            }
        }
    }
}

/// The buffer indices of a view's elements, token by token, head by head.
fn elements(v: TensorView, head_dim: u32) -> Vec<usize> {
    let row = v.heads as usize * head_dim as usize;
    (0..v.tokens as usize).flat_map(|t| (0..row).map(move |e| v.offset + t * v.stride + e)).collect()
}

/// The exact result of rotating view `src` of `x` into view `dst` of `out` (elsewhere `out`
/// is left as it is).
fn expected(
    config: &RopeConfig,
    backward: bool,
    positions: &[u32],
    (x, src): (&[f64], TensorView),
    (out, dst): (&mut [f64], TensorView),
) {
    let (hd, tokens, heads) = (config.head_dim as usize, src.tokens as usize, src.heads as usize);
    // The view's rows, gathered contiguously, through the reference.
    let gathered: Vec<f64> = elements(src, config.head_dim).iter().map(|&i| x[i]).collect();
    let rotated = reference_rope(
        &gathered,
        positions,
        tokens,
        heads,
        hd,
        heads * hd,
        config.rotary_dim as usize,
        ref_layout(config.layout),
        config.theta,
        ref_scaling(config.scaling),
        backward,
    );
    for (&i, v) in elements(dst, config.head_dim).iter().zip(rotated) {
        out[i] = v;
    }
}

/// One random case's shapes.
struct Case {
    config: RopeConfig,
    q: TensorView,
    k: TensorView,
    len: usize,
    q_out: TensorView,
    k_out: TensorView,
    positions: Vec<u32>,
    direction: Direction,
}

fn random_case(rng: &mut Rng) -> Case {
    let dtype = pick(rng, &[Dtype::F32, Dtype::F16, Dtype::Bf16]);
    let layout = pick(rng, &[Layout::Interleaved, Layout::HalfSplit]);
    let head_dim = if rng.next().is_multiple_of(3) {
        between(rng, 2, 160) as u32
    } else {
        pick(rng, &[2u32, 6, 8, 10, 16, 32, 40, 64, 80, 96, 128, 256])
    };
    let rotary_dim = match rng.next() % 3 {
        0 => head_dim / 2 * 2,
        _ => 2 * between(rng, 1, (head_dim / 2) as u64) as u32,
    };
    let any_theta = log_between(rng, 1.5, 1e7);
    let theta = pick(rng, &[10_000.0, 500_000.0, any_theta]);
    let config = RopeConfig { head_dim, rotary_dim, layout, dtype, theta, scaling: random_scaling(rng) };
    // Small enough for about 0.1 s a case in a debug build.
    let big = head_dim > 96;
    let tokens =
        if rng.next().is_multiple_of(4) { 1 } else { between(rng, 2, if big { 8 } else { 32 }) as u32 };
    let (qh, kh) = (between(rng, 1, if big { 3 } else { 9 }) as u32, between(rng, 1, 4) as u32);
    let (hd, gaps) = (head_dim as usize, [0usize, 1, 2, 3, 4, 8]);
    let (base, gap, end) = (pick(rng, &gaps), pick(rng, &gaps), pick(rng, &gaps));
    let (q_row, k_row) = (qh as usize * hd, kh as usize * hd);
    let (mut q, mut k, len);
    if rng.next().is_multiple_of(4) {
        // Two regions, each with its own stride.
        let (qs, ks) = (q_row + gap, k_row + end);
        q = TensorView { tokens, heads: qh, offset: base, stride: qs };
        k = TensorView { tokens, heads: kh, offset: base + tokens as usize * qs + gap, stride: ks };
        len = k.offset + tokens as usize * ks + end;
    } else {
        // One fused qkv row: q, a gap, k (or k, a gap, q), v, a gap.
        let row = q_row + gap + 2 * k_row + end;
        let (q_at, k_at) = if rng.next().is_multiple_of(2) { (0, q_row + gap) } else { (k_row + gap, 0) };
        q = TensorView { tokens, heads: qh, offset: base + q_at, stride: row };
        k = TensorView { tokens, heads: kh, offset: base + k_at, stride: row };
        len = base + tokens as usize * row + end;
    }
    if tokens == 1 {
        // A one-token view's stride is never used: any value is valid.
        let strides = [0, 1, 3, 1 << 20, usize::MAX];
        q.stride = pick(rng, &strides);
        k.stride = pick(rng, &strides);
    }
    let out = |rng: &mut Rng, heads: u32| {
        let stride = heads as usize * hd + pick(rng, &gaps);
        TensorView { tokens, heads, offset: pick(rng, &gaps), stride }
    };
    let (q_out, k_out) = (out(rng, qh), out(rng, kh));
    let limit = if rng.next().is_multiple_of(8) { u32::MAX } else { 1 << 20 };
    let mut positions: Vec<u32> = (0..tokens).map(|_| (rng.next() % limit as u64) as u32).collect();
    positions[0] = 0;
    if tokens > 2 {
        positions[2] = positions[1];
    }
    // A position table longer than the tokens is fine.
    positions.extend((0..pick(rng, &[0, 1, 3])).map(|_| rng.next() as u32));
    let direction = pick(rng, &[Direction::Forward, Direction::Backward]);
    Case { config, q, k, len, q_out, k_out, positions, direction }
}

fn bits<T: Element>(b: &DeviceBuffer<T>) -> Vec<u32> {
    b.to_vec().unwrap().into_iter().map(Element::bits).collect()
}

/// Runs one case in every form; returns the largest error of the f32 result (before
/// rounding to storage) as a multiple of `m·max|x|`.
fn run_case<T: Element>(device: &Device, rng: &mut Rng, c: &Case) -> f64 {
    let (config, dtype, d) = (c.config, c.config.dtype, c.direction);
    let what = format!(
        "{config:?} q {:?} k {:?} in {} elements, q_out {:?} k_out {:?}, {d:?}, positions {:?}",
        c.q, c.k, c.len, c.q_out, c.k_out, c.positions
    );
    let rope = Rope::new(config).unwrap_or_else(|e| panic!("{what}: {e}"));
    let max_position = *c.positions[..c.q.tokens as usize].iter().max().unwrap();
    let bound = rope.error_bound(max_position);
    let rope: DeviceRope = rope.on(device).unwrap();
    let upload =
        |v: &[f32]| device.upload(&v.iter().map(|&x| T::encode(dtype, x)).collect::<Vec<T>>()).unwrap();
    let x = upload(&(0..c.len).map(|_| rng.signed_f32()).collect::<Vec<_>>());
    let stored: Vec<T> = x.to_vec().unwrap();
    let x64: Vec<f64> = stored.iter().map(|&e| T::value(dtype, e)).collect();
    let pd = device.upload(&c.positions).unwrap();
    let hd = config.head_dim;
    // Outputs start as distinct guard values; those outside the views must stay.
    let guards = |n: usize, sign: f32| (0..n).map(|i| sign * (100.0 + i as f32)).collect::<Vec<f32>>();
    let (gq, gk) = (guards(c.q_out.extent(hd) + 2, 1.0), guards(c.k_out.extent(hd) + 3, -1.0));

    // Out of place: q and k separately, then fused.
    let (mut q_sep, mut k_sep) = (upload(&gq), upload(&gk));
    rope.apply(d, &pd, &x, c.q, &mut q_sep, c.q_out).unwrap_or_else(|e| panic!("{what}: {e}"));
    rope.apply(d, &pd, &x, c.k, &mut k_sep, c.k_out).unwrap_or_else(|e| panic!("{what}: {e}"));
    let (mut q_fused, mut k_fused) = (upload(&gq), upload(&gk));
    rope.apply_qk(d, &pd, (&x, c.q), (&x, c.k), (&mut q_fused, c.q_out), (&mut k_fused, c.k_out))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(bits(&q_sep), bits(&q_fused), "{what}: fused q");
    assert_eq!(bits(&k_sep), bits(&k_fused), "{what}: fused k");

    // Against float64: within bound·m·max|x| (ACCURACY below 2^24, `Rope::error_bound`
    // above, both derived in `rope::kernels`), plus the storage rounding of the result (half
    // an ulp relative, and for f16 half its smallest subnormal, 2^-25, absolute).
    let m = config.scaling.attention_factor();
    let max_x = x64.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let (relative, absolute) = match dtype {
        Dtype::F16 => (storage_roundoff(dtype), 2f64.powi(-25)),
        _ => (storage_roundoff(dtype), 0.0),
    };
    let mut worst = 0.0f64;
    for (got, src, dst, guard) in [(&q_sep, c.q, c.q_out, &gq), (&k_sep, c.k, c.k_out, &gk)] {
        let mut want: Vec<f64> = guard.iter().map(|&g| T::value(dtype, T::encode(dtype, g))).collect();
        expected(&config, d == Direction::Backward, &c.positions, (&x64, src), (&mut want, dst));
        let inside: std::collections::HashSet<usize> = elements(dst, hd).into_iter().collect();
        for (i, (g, w)) in got.to_vec().unwrap().into_iter().zip(&want).enumerate() {
            let g = T::value(dtype, g);
            if !inside.contains(&i) {
                assert_eq!(g.to_bits(), w.to_bits(), "{what}: element {i} outside the output view changed");
                continue;
            }
            let err = (g - w).abs() - relative * w.abs() - absolute;
            if max_position < 1 << 24 {
                worst = worst.max(err / (m * max_x));
            }
            assert!(err <= bound * m * max_x, "{what}: element {i}: got {g}, want {w}");
        }
    }

    // In place: separately and fused, equal to each other and to out of place; the rest of
    // the buffer (v, gaps, the ends) untouched.
    let mut in_sep = device.upload(&stored).unwrap();
    rope.apply_in_place(d, &pd, &mut in_sep, c.q).unwrap_or_else(|e| panic!("{what}: {e}"));
    rope.apply_in_place(d, &pd, &mut in_sep, c.k).unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut in_fused = device.upload(&stored).unwrap();
    rope.apply_qk_in_place(d, &pd, &mut in_fused, c.q, c.k).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(bits(&in_sep), bits(&in_fused), "{what}: fused in place");
    let mut want = stored.clone();
    for (out, src, dst) in [(&q_sep, c.q, c.q_out), (&k_sep, c.k, c.k_out)] {
        let out = out.to_vec().unwrap();
        for (s, t) in elements(src, hd).into_iter().zip(elements(dst, hd)) {
            want[s] = out[t];
        }
    }
    let want: Vec<u32> = want.into_iter().map(Element::bits).collect();
    assert_eq!(bits(&in_sep), want, "{what}: in place against out of place");

    // <forward(x), g> = <x, backward(g)> on q (f32: no storage rounding in between). Each
    // side sums n products whose factors carry relative errors of a few 2^-24 (the
    // rotation's roundings) times m: n·8·2^-24·m·max|x|·max|g| bounds the difference.
    if dtype == Dtype::F32 {
        let g: Vec<f32> = (0..c.len).map(|_| rng.signed_f32()).collect();
        let contiguous = TensorView::contiguous(c.q.tokens, c.q.heads, hd);
        let n = contiguous.extent(hd);
        let (mut fx, mut bg) = (device.zeroed::<T>(n).unwrap(), device.zeroed::<T>(n).unwrap());
        rope.apply(Direction::Forward, &pd, &x, c.q, &mut fx, contiguous).unwrap();
        rope.apply(Direction::Backward, &pd, &upload(&g), c.q, &mut bg, contiguous).unwrap();
        let (fx, bg) = (fx.to_vec().unwrap(), bg.to_vec().unwrap());
        let index = elements(c.q, hd);
        let lhs: f64 = index.iter().zip(&fx).map(|(&i, &f)| T::value(dtype, f) * g[i] as f64).sum();
        let rhs: f64 = index.iter().zip(&bg).map(|(&i, &b)| x64[i] * T::value(dtype, b)).sum();
        let tolerance = n as f64 * 8.0 * 2f64.powi(-24) * m;
        assert!((lhs - rhs).abs() <= tolerance, "{what}: <f(x), g> = {lhs}, <x, b(g)> = {rhs}");
    }
    worst
}

#[test]
fn random_configurations_match_float64_and_each_other() {
    let device = Device::sim();
    let mut rng = Rng::fresh("rope_random_configurations");
    let mut worst = 0.0f64;
    for _ in 0..250 {
        let case = random_case(&mut rng);
        let w = match case.config.dtype {
            Dtype::F32 => run_case::<f32>(&device, &mut rng, &case),
            Dtype::F16 | Dtype::Bf16 => run_case::<u16>(&device, &mut rng, &case),
        };
        worst = worst.max(w);
    }
    eprintln!("worst error below 2^24: {worst:.3e} · m·max|x| (plus storage rounding)");
}

/// Err naming an argument (a one-line reason), or Ok; a panic fails the test with the case.
fn outcome<R>(what: &str, f: impl FnOnce() -> Result<R, Error>) -> Option<String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Err(_) => panic!("{what}: panicked"),
        Ok(Ok(_)) => None,
        Ok(Err(Error::InvalidArgument { argument, reason })) => {
            assert!(!reason.contains('\n'), "{what}: {reason}");
            Some(argument)
        }
        Ok(Err(other)) => panic!("{what}: {other} is not an InvalidArgument"),
    }
}

#[test]
fn random_bad_arguments_are_errors_not_panics() {
    let mut rng = Rng::fresh("rope_random_bad_arguments");
    let floats = [f64::NAN, f64::INFINITY, -1.0, 0.0, 0.5, 1.0, 1e-320, 1e300, f64::MAX, 2.0, 32.0, 4096.0];
    let ints = [0u32, 1, 2, 7, 8, 2048, 2049, 2050, 65536, 65537, u32::MAX];
    for _ in 0..3000 {
        let (f, n) = (|rng: &mut Rng| pick(rng, &floats), |rng: &mut Rng| pick(rng, &ints));
        let scaling = match rng.next() % 5 {
            0 => Scaling::None,
            1 => Scaling::Linear { factor: f(&mut rng) },
            2 => Scaling::DynamicNtk {
                factor: f(&mut rng),
                original_max_position: n(&mut rng),
                seq_len: n(&mut rng),
            },
            3 => Scaling::Yarn {
                factor: f(&mut rng),
                original_max_position: n(&mut rng),
                beta_fast: f(&mut rng),
                beta_slow: f(&mut rng),
                attention_factor: rng.next().is_multiple_of(2).then(|| f(&mut rng)),
            },
            _ => Scaling::Llama3 {
                factor: f(&mut rng),
                low_freq_factor: f(&mut rng),
                high_freq_factor: f(&mut rng),
                original_max_position: n(&mut rng),
            },
        };
        let head_dim = if rng.next().is_multiple_of(2) { n(&mut rng) } else { 64 };
        let rotary_dim = if rng.next().is_multiple_of(2) { n(&mut rng) } else { head_dim };
        let theta = if rng.next().is_multiple_of(2) { f(&mut rng) } else { 10_000.0 };
        let config =
            RopeConfig { head_dim, rotary_dim, layout: Layout::HalfSplit, dtype: Dtype::F32, theta, scaling };
        let what = format!("{config:?}");
        if let Some(argument) = outcome(&what, || Rope::new(config)) {
            let named = ["head_dim", "rotary_dim", "theta"].contains(&argument.as_str())
                || argument.starts_with("scaling.");
            assert!(named, "{what}: names `{argument}`");
        }
    }

    // Launches with random views, buffer and position lengths: zero counts, strides below
    // the row, extents one past the buffer or beyond usize.
    let device = Device::sim();
    let rope = Rope::new(RopeConfig::new(8)).unwrap().on(&device).unwrap();
    let sizes = [0usize, 1, 7, 8, 15, 16, 17, 24, 31, 32, 33, 64, 65, usize::MAX / 2, usize::MAX];
    for _ in 0..3000 {
        let view = |rng: &mut Rng| TensorView {
            tokens: pick(rng, &[0u32, 1, 2, 4, u32::MAX]),
            heads: pick(rng, &[0u32, 1, 2, u32::MAX]),
            offset: pick(rng, &sizes),
            stride: pick(rng, &sizes),
        };
        let views = [view(&mut rng), view(&mut rng), view(&mut rng), view(&mut rng)];
        let lens: Vec<usize> = (0..4).map(|_| pick(&mut rng, &sizes[..13])).collect();
        let buffer = |n: usize| device.zeroed::<f32>(n).unwrap();
        let (q, k, mut out, mut k_out, mut x) =
            (buffer(lens[0]), buffer(lens[2]), buffer(lens[1]), buffer(lens[3]), buffer(lens[0]));
        let pd = device.upload(&vec![5u32; pick(&mut rng, &[0usize, 1, 2, 4, 5])]).unwrap();
        let d = Direction::Forward;
        let what = format!("{views:?}, buffers {lens:?}, {} positions", pd.len());
        let [v, ov, kv, kov] = views;
        let named = match rng.next() % 4 {
            0 => outcome(&what, || rope.apply(d, &pd, &q, v, &mut out, ov)),
            1 => {
                outcome(&what, || rope.apply_qk(d, &pd, (&q, v), (&k, kv), (&mut out, ov), (&mut k_out, kov)))
            }
            2 => outcome(&what, || rope.apply_in_place(d, &pd, &mut x, v)),
            _ => outcome(&what, || rope.apply_qk_in_place(d, &pd, &mut x, v, kv)),
        };
        if let Some(argument) = named {
            let known = ["x", "out", "q", "k", "q_out", "k_out", "positions"];
            assert!(known.contains(&argument.as_str()), "{what}: names `{argument}`");
        }
    }
}

#[test]
fn in_place_q_and_k_are_refused_exactly_when_they_share_an_element() {
    // Random q and k views of one buffer against the element sets themselves: an overlap is
    // always refused; disjoint views are accepted when they have one stride (or one token),
    // and with two strides when their ranges are separate (the documented rule).
    let device = Device::sim();
    let mut rng = Rng::fresh("rope_random_in_place_overlap");
    let rope = Rope::new(RopeConfig::new(2)).unwrap().on(&device).unwrap();
    let pd = device.upload(&[3u32, 5, 7, 11]).unwrap();
    let mut x = device.zeroed::<f32>(64).unwrap();
    for _ in 0..2000 {
        let tokens = between(&mut rng, 1, 4) as u32;
        let view = |rng: &mut Rng| {
            let heads = between(rng, 1, 3) as u32;
            let spare = between(rng, 0, if tokens == 1 { 20 } else { 8 }) as usize;
            TensorView {
                tokens,
                heads,
                offset: between(rng, 0, 30) as usize,
                stride: 2 * heads as usize + spare,
            }
        };
        let (q, mut k) = (view(&mut rng), view(&mut rng));
        if rng.next().is_multiple_of(2) {
            k.stride = q.stride.max(2 * k.heads as usize);
        }
        if q.extent(2) > 64 || k.extent(2) > 64 {
            continue;
        }
        let (qe, ke) = (elements(q, 2), elements(k, 2));
        let overlap = qe.iter().any(|i| ke.contains(i));
        let separate = q.extent(2) <= k.offset || k.extent(2) <= q.offset;
        let accepted = rope.apply_qk_in_place(Direction::Forward, &pd, &mut x, q, k).is_ok();
        let one_stride = q.stride == k.stride || tokens == 1;
        let should = !overlap && (one_stride || separate);
        assert_eq!(accepted, should, "q {q:?} k {k:?}: overlap {overlap}");
    }
}
