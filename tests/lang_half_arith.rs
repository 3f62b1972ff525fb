//! Arithmetic, comparisons, `-`, variables, `if`/`match` values and the `half` crate's
//! methods on `f16` and `bf16`, each run as a kernel on the simulator and as plain Rust on
//! the host (the `half` crate), compared bit for bit over every pair of edge values and
//! random bit patterns. A NaN result of arithmetic is compared as "a NaN" (the GPU's
//! conversion gives the canonical NaN, the `half` crate keeps a payload, README); results
//! the crate computes on the bits (`-`, `copysign`, `signum`, `min`, `max`, `clamp`, a
//! selected value) are compared exactly, NaNs included.
#![allow(clippy::unnecessary_cast)]
use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, DeviceBuffer, LaunchConfig};

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

/// A twin kernel over one 16-bit float type `$t`: each input word holds two values of it
/// (low and high half); 16 result slots per input.
macro_rules! half_twin {
    ($kernel:ident, $host:ident, $t:ident) => {
        twin!($kernel, $host, |i, a: &[u32], out: &mut [u32]| {
            let o = 16 * i;
            let x = $t::from_bits(a[i] as u16);
            let y = $t::from_bits((a[i] >> 16) as u16);
            let r = x + y;
            out[o] = if r.is_nan() { 0xffff_ffff } else { r.to_bits() as u32 };
            let r = x - y;
            out[o + 1] = if r.is_nan() { 0xffff_ffff } else { r.to_bits() as u32 };
            let r = x * y;
            out[o + 2] = if r.is_nan() { 0xffff_ffff } else { r.to_bits() as u32 };
            let r = x / y;
            out[o + 3] = if r.is_nan() { 0xffff_ffff } else { r.to_bits() as u32 };
            let r = x % y;
            out[o + 4] = if r.is_nan() { 0xffff_ffff } else { r.to_bits() as u32 };
            out[o + 5] = (-x).to_bits() as u32;
            out[o + 6] = (x < y) as u32
                | ((x <= y) as u32) << 1
                | ((x > y) as u32) << 2
                | ((x >= y) as u32) << 3
                | ((x == y) as u32) << 4
                | ((x != y) as u32) << 5;
            out[o + 7] = x.is_nan() as u32
                | (x.is_infinite() as u32) << 1
                | (x.is_finite() as u32) << 2
                | (x.is_normal() as u32) << 3
                | (x.is_sign_negative() as u32) << 4
                | (x.is_sign_positive() as u32) << 5;
            out[o + 8] = x.max(y).to_bits() as u32;
            out[o + 9] = x.min(y).to_bits() as u32;
            out[o + 10] = x.copysign(y).to_bits() as u32;
            out[o + 11] = x.signum().to_bits() as u32;
            let mut acc = x;
            acc += y;
            acc *= y;
            acc -= x;
            acc /= y;
            out[o + 12] = if acc.is_nan() { 0xffff_ffff } else { acc.to_bits() as u32 };
            let picked = if x < y { x } else { y };
            let matched = match a[i] % 3 {
                0 => x,
                1 => -y,
                _ => picked,
            };
            out[o + 13] = picked.to_bits() as u32 | (matched.to_bits() as u32) << 16;
            out[o + 14] = ((x, y) < (y, x)) as u32 | (((x, 1u32) == (y, 1u32)) as u32) << 1;
            out[o + 15] = x.clamp($t::NEG_ONE, $t::ONE).to_bits() as u32;
        });
    };
}

half_twin!(f16_ops, f16_ops_host, f16);
half_twin!(bf16_ops, bf16_ops_host, bf16);

/// Every pair of `edges` (low and high half of a word), then random words.
fn pairs(test: &str, edges: &[u16]) -> Vec<u32> {
    let mut xs: Vec<u32> =
        edges.iter().flat_map(|&lo| edges.iter().map(move |&hi| lo as u32 | (hi as u32) << 16)).collect();
    xs.extend(u32_inputs(test, 2000));
    xs
}

#[test]
fn f16_arithmetic_comparisons_and_methods_are_the_half_crates() {
    // Zeros, ±1, ±2, infinities, NaNs of either sign and payload, the smallest and largest
    // subnormals, the smallest normal, the largest finite, a tie of rounding (2049).
    let edges = [
        0x0000, 0x8000, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01, 0x0001,
        0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x6800, 0x3555, 0x1400,
    ];
    let xs = pairs("f16_ops", &edges);
    let launch = |d: &_, c, a: &_, o: &mut _| F16Ops::new().launch(d, c, a, o);
    check_twin("f16_ops", &xs, 16, &launch, f16_ops_host);
}

#[test]
fn bf16_arithmetic_comparisons_and_methods_are_the_half_crates() {
    let edges = [
        0x0000, 0x8000, 0x3f80, 0xbf80, 0x4000, 0xc000, 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x7f81, 0x0001,
        0x8001, 0x007f, 0x0080, 0x7f7f, 0xff7f, 0x4b80, 0x3eab, 0x0d80,
    ];
    let xs = pairs("bf16_ops", &edges);
    let launch = |d: &_, c, a: &_, o: &mut _| Bf16Ops::new().launch(d, c, a, o);
    check_twin("bf16_ops", &xs, 16, &launch, bf16_ops_host);
}

/// Half variables in loops, compound assignment to slice elements, annotations, tuples,
/// `loop` values and constants computed while building, against the same body on the host:
/// `half_forms` (a kernel) and `half_forms_host` (plain Rust, one index) from one body.
macro_rules! half_forms {
    (|$i:ident, $x:ident, $y:ident, $b:ident, $n:ident| $body:block) => {
        #[ptx_kernel]
        fn half_forms($x: &[f16], $y: &mut [f16], $b: &mut [bf16], #[comptime] $n: u32) {
            let $i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
            if $i < $y.len() $body
        }

        #[allow(clippy::all)]
        fn half_forms_host($i: usize, $x: &[half::f16], $y: &mut [half::f16], $b: &mut [half::bf16], $n: u32) $body
    };
}

half_forms!(|i, x, y, b, n| {
    let mut acc = f16::ZERO;
    for j in 0..n as usize {
        acc += x[(i + j) % x.len()];
    }
    let h: f16 = acc;
    let mut t = (h, x[i]);
    if t.0 > t.1 {
        t = (t.1, t.0);
    }
    let first_big = loop {
        let mut k = 0;
        while k < x.len() {
            if x[k].to_f32().abs() > 4.0 {
                break;
            }
            k += 1;
        }
        break if k < x.len() { x[k] } else { f16::NAN };
    };
    y[i] += t.0 * t.1 - first_big;
    let two = f16::ONE + f16::ONE;
    let third = bf16::ONE / bf16::from_f32(3.0);
    b[i] = -(bf16::from_f32(x[i].to_f32()) * third) + bf16::from_f32(two.to_f32());
    b[i] -= bf16::EPSILON;
});

#[test]
fn half_variables_loops_and_constants_run_as_on_the_host() {
    use half::{bf16, f16};
    let mut rng = ptx_tools::rng::Rng::fresh("half_forms");
    let len = 300;
    // Finite values of every magnitude f16 holds (no NaN: arithmetic NaNs differ in payload).
    let x: Vec<f16> = (0..len)
        .map(|_| f16::from_f32(rng.signed_f32() * 2f32.powi((rng.next() % 24) as i32 - 14)))
        .collect();
    let y0: Vec<f16> = (0..len).map(|_| f16::from_f32(rng.signed_f32() * 8.0)).collect();
    let b0: Vec<bf16> = (0..len).map(|_| bf16::from_f32(rng.signed_f32())).collect();
    let dev = Device::sim();
    let xd = dev.upload(&x).unwrap();
    let mut yd = dev.upload(&y0).unwrap();
    let mut bd: DeviceBuffer<bf16> = dev.upload(&b0).unwrap();
    let n = 7;
    HalfForms::new(n).launch(&dev, LaunchConfig::for_elements(len, 64), &xd, &mut yd, &mut bd).unwrap();
    let (mut y, mut b) = (y0.clone(), b0.clone());
    for i in 0..len {
        half_forms_host(i, &x, &mut y, &mut b, n);
    }
    let bits = |v: &[f16]| v.iter().map(|h| h.to_bits()).collect::<Vec<_>>();
    let bbits = |v: &[bf16]| v.iter().map(|h| h.to_bits()).collect::<Vec<_>>();
    assert_ne!(bits(&y), bits(&y0), "the host changed nothing");
    assert_eq!(bits(&yd.to_vec().unwrap()), bits(&y));
    assert_eq!(bbits(&bd.to_vec().unwrap()), bbits(&b));
    if let Some(ptxas) = ptx_tools::ptxas::ptxas_or_skip("half_variables_loops_and_constants") {
        use ptx_dsl::core::{Kernel, Target};
        let kernels: [&dyn Kernel; 5] = [
            &HalfForms::new(n),
            &F16Ops::new(),
            &Bf16Ops::new(),
            &HalfArraySilu::new(),
            &HalfConstantsAsValues::new(),
        ];
        for kernel in kernels {
            // bf16 arithmetic conversions need sm_90's PTX (`cvt.rn.bf16.f32` is sm_80, the
            // `.f32.bf16` widening sm_90); the target raises the ISA version as needed.
            let ptx = kernel.ptx_for(Target::SM_90);
            ptx_tools::ptxas::assemble(&ptxas, &ptx, "sm_90").unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

/// A surrounding half constant, for [`half_constants_as_values`].
const TENTH: ptx_dsl::half::f16 = ptx_dsl::half::f16::from_f32_const(0.1);

/// Half constants as `if`/`match` values and variables' starting values (they built
/// `mov.f16`, which PTX lacks, so the launch failed), body constants made with
/// `from_f32_const` (refused), methods on `f16::EPSILON` (refused: "type not known").
#[ptx_kernel]
fn half_constants_as_values(x: &[u32], h: &mut [f16], out: &mut [f32]) {
    const H: f16 = f16::from_f32_const(2.5);
    const G: f16 = f16::from_f32(-0.3);
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i >= x.len() {
        return;
    }
    let o = 4 * i;
    h[o] = if x[i] > 5 { TENTH } else { f16::MAX };
    let mut t = f16::ONE;
    if x[i] % 3 == 1 {
        t = TENTH;
    }
    h[o + 1] = t + H * G;
    h[o + 2] = match x[i] {
        0 => f16::EPSILON,
        1..=3 => f16::NEG_INFINITY,
        _ => f16::from_bits(x[i] as u16),
    };
    h[o + 3] = f16::max(h[o], h[o + 1]).min(f16::from_f32_const(7.0));
    out[i] = f16::EPSILON.to_f32() + f16::MIN_POSITIVE_SUBNORMAL.to_f32() * x[i] as f32;
}

#[test]
fn half_constants_as_values_run_as_on_the_host() {
    use half::f16;
    let x: Vec<u32> = vec![0, 1, 2, 3, 4, 5, 6, 7, 100, 0x7c01, 0xfc00, 0x3555];
    let dev = Device::sim();
    let xd = dev.upload(&x).unwrap();
    let mut hd = dev.zeroed::<f16>(4 * x.len()).unwrap();
    let mut od = dev.zeroed::<f32>(x.len()).unwrap();
    HalfConstantsAsValues::new()
        .launch(&dev, LaunchConfig::for_elements(x.len(), 32), &xd, &mut hd, &mut od)
        .unwrap();
    let (h, out) = (hd.to_vec().unwrap(), od.to_vec().unwrap());
    const H: f16 = f16::from_f32_const(2.5);
    let g = f16::from_f32(-0.3);
    for (i, &xi) in x.iter().enumerate() {
        let first = if xi > 5 { TENTH } else { f16::MAX };
        let t = if xi % 3 == 1 { TENTH } else { f16::ONE };
        let second = t + H * g;
        let third = match xi {
            0 => f16::EPSILON,
            1..=3 => f16::NEG_INFINITY,
            _ => f16::from_bits(xi as u16),
        };
        let fourth = f16::max(first, second).min(f16::from_f32_const(7.0));
        let want = [first, second, third, fourth].map(f16::to_bits);
        let got = [h[4 * i], h[4 * i + 1], h[4 * i + 2], h[4 * i + 3]].map(f16::to_bits);
        assert_eq!(got, want, "x = {xi:#x}");
        assert_eq!(
            out[i],
            f16::EPSILON.to_f32() + f16::MIN_POSITIVE_SUBNORMAL.to_f32() * xi as f32,
            "x = {xi}"
        );
    }
}

/// One kernel per storage type from a `macro_rules!` over a `$t:ty`, as templates over
/// `scalar_t` are ported: `<$t>::from_f32(..)` (refused as an unknown function), a half
/// constant of the surrounding code widened with `.to_f32()` (its type was "not known"), and
/// half arithmetic; the body also runs as plain Rust.
macro_rules! scaled_silu {
    ($kernel:ident, $host:ident, $t:ty) => {
        #[ptx_kernel]
        fn $kernel(x: &[$t], out: &mut [$t]) {
            let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
            if i < x.len() {
                let v = x[i].to_f32();
                let silu = <$t>::from_f32(v / (1.0 + (-v).exp()));
                out[i] = silu * <$t>::from_f32(TENTH.to_f32()) + <$t>::max(x[i], <$t>::ZERO);
            }
        }

        fn $host(x: &[$t], out: &mut [$t]) {
            for i in 0..x.len() {
                let v = x[i].to_f32();
                let silu = <$t>::from_f32(v / (1.0 + (-v).exp()));
                out[i] = silu * <$t>::from_f32(TENTH.to_f32()) + <$t>::max(x[i], <$t>::ZERO);
            }
        }
    };
}

scaled_silu!(scaled_silu_f16, scaled_silu_f16_host, ptx_dsl::half::f16);
scaled_silu!(scaled_silu_bf16, scaled_silu_bf16_host, ptx_dsl::half::bf16);

#[test]
fn kernels_stamped_by_macro_rules_over_half_types_run_as_on_the_host() {
    use half::{bf16, f16};
    let mut rng = ptx_tools::rng::Rng::fresh("scaled_silu");
    let xs: Vec<f32> = (0..500).map(|_| rng.signed_f32() * 12.0).collect();
    let dev = Device::sim();
    let config = LaunchConfig::for_elements(xs.len(), 128);
    // `exp` is within an ulp or two of the host's in f32; after rounding to 16 bits the
    // results agree except where the f32 value lies within those ulps of a rounding
    // boundary of the half type: at most one unit of the 16-bit type apart, and rarely.
    let near = |a: u16, b: u16| (a as i32 - b as i32).abs() <= 1;
    let h: Vec<f16> = xs.iter().map(|&v| f16::from_f32(v)).collect();
    let mut out = dev.zeroed::<f16>(h.len()).unwrap();
    ScaledSiluF16::new().launch(&dev, config, &dev.upload(&h).unwrap(), &mut out).unwrap();
    let mut want = vec![f16::ZERO; h.len()];
    scaled_silu_f16_host(&h, &mut want);
    for (k, (g, w)) in out.to_vec().unwrap().iter().zip(&want).enumerate() {
        assert!(near(g.to_bits(), w.to_bits()), "f16 x = {}: kernel {g}, host {w}", h[k]);
    }
    let b: Vec<bf16> = xs.iter().map(|&v| bf16::from_f32(v)).collect();
    let mut out = dev.zeroed::<bf16>(b.len()).unwrap();
    ScaledSiluBf16::new().launch(&dev, config, &dev.upload(&b).unwrap(), &mut out).unwrap();
    let mut want = vec![bf16::ZERO; b.len()];
    scaled_silu_bf16_host(&b, &mut want);
    assert!(want.iter().any(|w| w.to_f32() > 1.0), "the host computed nothing of size");
    for (k, (g, w)) in out.to_vec().unwrap().iter().zip(&want).enumerate() {
        assert!(near(g.to_bits(), w.to_bits()), "bf16 x = {}: kernel {g}, host {w}", b[k]);
    }
}

/// Local arrays of halves (refused: "cannot hold half-precision values yet"), filled from
/// an eight-wide load, updated in a loop and stored back, against the same body on the host.
#[ptx_kernel]
fn half_array_silu(x: &[f16], out: &mut [f16]) {
    let i = 8 * (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i + 8 > x.len() {
        return;
    }
    let (a, b, c, d, e, f, g, h) = load8(x, i);
    let mut v = [a, b, c, d, e, f, g, h];
    let mut biggest = [f16::NEG_INFINITY; 2];
    for k in 0..8 {
        let t = v[k].to_f32();
        v[k] = f16::from_f32(t / (1.0 + (-t).exp()));
        biggest[k % 2] = biggest[k % 2].max(v[k]);
    }
    v[0] = biggest[0] - biggest[1];
    store8(out, i, (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]));
}

#[test]
fn local_arrays_of_halves_run_as_on_the_host() {
    use half::f16;
    let mut rng = ptx_tools::rng::Rng::fresh("half_array_silu");
    let x: Vec<f16> = (0..512).map(|_| f16::from_f32(rng.signed_f32() * 10.0)).collect();
    let dev = Device::sim();
    let mut out = dev.zeroed::<f16>(x.len()).unwrap();
    HalfArraySilu::new()
        .launch(&dev, LaunchConfig::for_elements(x.len() / 8, 32), &dev.upload(&x).unwrap(), &mut out)
        .unwrap();
    let got = out.to_vec().unwrap();
    for (chunk, (xs, gs)) in x.chunks(8).zip(got.chunks(8)).enumerate() {
        let mut v: Vec<f16> = xs.to_vec();
        let mut biggest = [f16::NEG_INFINITY; 2];
        for k in 0..8 {
            let t = v[k].to_f32();
            v[k] = f16::from_f32(t / (1.0 + (-t).exp()));
            biggest[k % 2] = biggest[k % 2].max(v[k]);
        }
        v[0] = biggest[0] - biggest[1];
        for k in 0..8 {
            // `exp` within an ulp or two of the host's in f32: one unit of f16 apart at
            // most, where the f32 value lies that close to a rounding boundary.
            let (g, w) = (gs[k].to_bits() as i32, v[k].to_bits() as i32);
            assert!((g - w).abs() <= 1, "chunk {chunk}, element {k}: kernel {}, host {}", gs[k], v[k]);
        }
    }
}

/// Half scalar parameters (refused: "pass an `f32`"), and a half comptime parameter.
#[ptx_kernel]
fn half_params(x: &[f16], out: &mut [f16], b: &mut [bf16], scale: f16, shift: bf16, #[comptime] bias: f16) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() {
        out[i] = x[i] * scale + bias;
        b[i] = bf16::from_f32(x[i].to_f32()) - shift;
    }
}

#[test]
fn half_parameters_take_half_values() {
    use half::{bf16, f16};
    let x: Vec<f16> = (0..100).map(|k| f16::from_f32(k as f32 * 0.37 - 11.0)).collect();
    let (scale, shift, bias) = (f16::from_f32(-1.75), bf16::from_f32(0.3), f16::from_f32(0.125));
    let dev = Device::sim();
    let mut out = dev.zeroed::<f16>(x.len()).unwrap();
    let mut b = dev.zeroed::<bf16>(x.len()).unwrap();
    let kernel = HalfParams::new(bias);
    let xd = dev.upload(&x).unwrap();
    kernel
        .launch(&dev, LaunchConfig::for_elements(x.len(), 64), &xd, &mut out, &mut b, scale, shift)
        .unwrap();
    let want: Vec<f16> = x.iter().map(|&v| v * scale + bias).collect();
    let want_b: Vec<bf16> = x.iter().map(|&v| bf16::from_f32(v.to_f32()) - shift).collect();
    assert_eq!(out.to_vec().unwrap(), want);
    assert_eq!(b.to_vec().unwrap(), want_b);
    if let Some(ptxas) = ptx_tools::ptxas::ptxas_or_skip("half_parameters_take_half_values") {
        for target in [ptx_dsl::core::Target::SM_80, ptx_dsl::core::Target::SM_90] {
            let ptx = ptx_dsl::core::Kernel::ptx_for(&kernel, target);
            let arch = format!("sm_{}{}", target.major, target.minor);
            ptx_tools::ptxas::assemble(&ptxas, &ptx, &arch).unwrap_or_else(|e| panic!("{e}\n{ptx}"));
        }
    }
}

/// Device functions over halves: parameters, a tuple and an array of them returned (each
/// was refused as "not a scalar").
#[ptx_device]
fn fused_scale(v: f16, s: f16) -> (f16, f16, f16) {
    let y = v * s;
    let pair = both(y.min(v), -y);
    (y, pair[0], pair[1])
}

#[ptx_device]
fn both(a: f16, b: f16) -> [f16; 2] {
    [a, b]
}

#[ptx_kernel]
fn half_device_calls(x: &[f16], out: &mut [f16]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if 3 * i + 2 < out.len() {
        let (y, low, negated) = fused_scale(x[i], f16::from_f32(0.75));
        out[3 * i] = y;
        out[3 * i + 1] = low;
        out[3 * i + 2] = negated;
    }
}

#[test]
fn device_functions_take_and_give_halves() {
    use half::f16;
    let x: Vec<f16> = (0..64).map(|k| f16::from_f32((k as f32 - 30.0) * 1.3)).collect();
    let dev = Device::sim();
    let mut out = dev.zeroed::<f16>(3 * x.len()).unwrap();
    HalfDeviceCalls::new()
        .launch(&dev, LaunchConfig::for_elements(x.len(), 32), &dev.upload(&x).unwrap(), &mut out)
        .unwrap();
    let want: Vec<f16> = x
        .iter()
        .flat_map(|&v| {
            let y = v * f16::from_f32(0.75);
            [y, y.min(v), -y]
        })
        .collect();
    assert_eq!(out.to_vec().unwrap(), want);
}
