//! The project's kernels on a CUDA GPU, compared bit for bit with the simulator: the
//! every-form catalog (each IEEE-exact form), the RoPE kernels, and the accurate math
//! routines. Run with `cargo test --test gpu -- --ignored` on a machine with an NVIDIA
//! driver (CUDA 13.0 / 580 series or newer), or through `scripts/gpu-bundle.sh`.

use ptx_dsl::prelude::*;
use ptx_dsl::rope::seed::{BatchedRope, BatchedRopeBackward};
use ptx_dsl::rope::{Direction, Dtype, Layout, Rope, RopeConfig, TensorView};
use ptx_dsl::runtime::{Device, KernelArg, LaunchConfig, Scalar};
use ptx_tools::coverage::{every_form, FormCatalog, SCALAR_PARAMS, SCRATCH_PER_THREAD, THREADS};
use ptx_tools::rng::Rng;
use ptx_tools::ulp::same_bits;

fn gpu() -> Device {
    Device::cuda(0).unwrap_or_else(|e| panic!("this test needs a CUDA GPU: {e}"))
}

/// The catalog as a kernel.
struct Catalog(FormCatalog);

impl Kernel for Catalog {
    fn name(&self) -> &str {
        &self.0.ir.name
    }
    fn build(&self) -> KernelIr {
        self.0.ir.clone()
    }
}

/// Runs the catalog on `device`; returns the output records as bytes.
fn run_catalog(device: &Device, cat: &Catalog, input: &[u64], scalars: &[Scalar]) -> Vec<u8> {
    let input = device.upload(input).unwrap();
    let mut output = device.zeroed::<u64>((cat.0.record_bytes * THREADS / 8) as usize).unwrap();
    let mut scratch = device.zeroed::<u64>((SCRATCH_PER_THREAD * THREADS / 8) as usize).unwrap();
    let mut args = vec![KernelArg::from(&input), KernelArg::from(&mut output), KernelArg::from(&mut scratch)];
    args.extend(scalars.iter().map(|s| KernelArg::from(*s)));
    unsafe { device.launch(cat, LaunchConfig::new((1, 1, 1), (THREADS, 1, 1)), &mut args) }.unwrap();
    drop(args);
    output.to_vec().unwrap().iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_exact_instruction_form_matches_the_simulator_bit_for_bit() {
    let (gpu, sim) = (gpu(), Device::sim());
    let cat = Catalog(every_form());
    let mut rng = Rng::fresh("catalog_on_gpu");
    let mut mismatches = Vec::new();
    for round in 0..4 {
        let input: Vec<u64> = (0..cat.0.input_bytes / 8).map(|_| rng.next()).collect();
        let scalars: Vec<Scalar> = SCALAR_PARAMS
            .iter()
            .map(|ty| match ty {
                PtxType::U32 => Scalar::U32(rng.next() as u32),
                PtxType::S32 => Scalar::I32(rng.next() as i32),
                PtxType::F32 => Scalar::F32(rng.signed_f32() * 100.0),
                PtxType::U64 => Scalar::U64(rng.next()),
                PtxType::S64 => Scalar::I64(rng.next() as i64),
                _ => Scalar::F64(rng.unit() * 100.0),
            })
            .collect();
        let on_gpu = run_catalog(&gpu, &cat, &input, &scalars);
        let on_sim = run_catalog(&sim, &cat, &input, &scalars);
        for t in 0..THREADS as usize {
            for out in cat.0.outputs.iter().filter(|o| o.exact) {
                let at = t * cat.0.record_bytes as usize + out.offset as usize;
                let size = out.ty.bytes().max(1) as usize;
                let (g, s) = (&on_gpu[at..at + size], &on_sim[at..at + size]);
                let both_nan = match out.ty {
                    PtxType::F32 => f32_of(g).is_nan() && f32_of(s).is_nan(),
                    PtxType::F64 => f64_of(g).is_nan() && f64_of(s).is_nan(),
                    _ => false,
                };
                if g != s && !both_nan && mismatches.len() < 40 {
                    mismatches
                        .push(format!("round {round} thread {t}: `{}`: gpu {g:02x?} sim {s:02x?}", out.form));
                }
            }
        }
    }
    assert!(mismatches.is_empty(), "{} mismatches:\n{}", mismatches.len(), mismatches.join("\n"));
}

fn f32_of(b: &[u8]) -> f32 {
    f32::from_le_bytes(b.try_into().unwrap())
}

fn f64_of(b: &[u8]) -> f64 {
    f64::from_le_bytes(b.try_into().unwrap())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn rope_on_gpu_equals_the_simulator_bit_for_bit() {
    let (gpu, sim) = (gpu(), Device::sim());
    let mut rng = Rng::fresh("rope_on_gpu");
    let (heads, dim, batch) = (32u32, 128u32, 48u32);
    let n = (heads * dim * batch) as usize;
    let x: Vec<f32> = (0..n).map(|_| rng.signed_f32()).collect();
    let positions: Vec<u32> = (0..batch).map(|_| (rng.next() % 131_072) as u32).collect();
    for backward in [false, true] {
        let mut results = Vec::new();
        for device in [&gpu, &sim] {
            let xd = device.upload(&x).unwrap();
            let pd = device.upload(&positions).unwrap();
            let mut yd = device.zeroed::<f32>(n).unwrap();
            if backward {
                BatchedRopeBackward::new(heads, dim, 10_000.0).apply(device, &xd, &mut yd, &pd).unwrap();
            } else {
                BatchedRope::new(heads, dim, 10_000.0).apply(device, &xd, &mut yd, &pd).unwrap();
            }
            results.push(yd.to_vec().unwrap());
        }
        for (i, (g, s)) in results[0].iter().zip(&results[1]).enumerate() {
            assert_eq!(g.to_bits(), s.to_bits(), "backward {backward}, element {i}: gpu {g} sim {s}");
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn production_rope_on_gpu_equals_the_simulator_bit_for_bit() {
    let (gpu, sim) = (gpu(), Device::sim());
    let mut rng = Rng::fresh("production_rope_on_gpu");
    let (tokens, heads, dim) = (40u32, 8u32, 128u32);
    let n = (tokens * heads * dim) as usize;
    let x: Vec<f32> = (0..n).map(|_| rng.signed_f32()).collect();
    let positions: Vec<u32> = (0..tokens).map(|_| (rng.next() % (1 << 20)) as u32).collect();
    let view = TensorView::contiguous(tokens, heads, dim);
    for layout in [Layout::HalfSplit, Layout::Interleaved] {
        for direction in [Direction::Forward, Direction::Backward] {
            let config = RopeConfig { layout, rotary_dim: 96, dtype: Dtype::F32, ..RopeConfig::new(dim) };
            let mut results = Vec::new();
            for device in [&gpu, &sim] {
                let rope = Rope::new(config).unwrap().on(device).unwrap();
                let (xd, pd) = (device.upload(&x).unwrap(), device.upload(&positions).unwrap());
                let mut yd = device.zeroed::<f32>(n).unwrap();
                rope.apply(direction, &pd, &xd, view, &mut yd, view).unwrap();
                results.push(yd.to_vec().unwrap());
            }
            for (i, (g, s)) in results[0].iter().zip(&results[1]).enumerate() {
                assert_eq!(g.to_bits(), s.to_bits(), "{layout:?} {direction:?} element {i}: gpu {g} sim {s}");
            }
        }
    }
}

/// sin, exp2 and ln of x[i] (the accurate routines).
struct Math;

impl Kernel for Math {
    fn name(&self) -> &str {
        "math_on_gpu"
    }
    fn build(&self) -> KernelIr {
        let mut b = KernelBuilder::new("math_on_gpu");
        let x = b.global_pointer("x");
        let out = b.global_pointer("out");
        let i = b.global_index_x();
        let xa = b.element_address::<F32>(x, i);
        let v = b.ld_global::<F32>(xa, 0);
        let three = b.mul(i, 3u32);
        let oa = b.element_address::<F32>(out, three);
        let s = math::sin(&mut b, v);
        let e = math::exp2(&mut b, v);
        let l = math::ln(&mut b, v);
        b.st_global::<F32>(oa, 0, s);
        b.st_global::<F32>(oa, 4, e);
        b.st_global::<F32>(oa, 8, l);
        b.finish()
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn accurate_math_on_gpu_equals_the_simulator_bit_for_bit() {
    let (gpu, sim) = (gpu(), Device::sim());
    let mut rng = Rng::fresh("math_on_gpu");
    let n = 1 << 16;
    let x: Vec<f32> = (0..n).map(|_| (rng.unit() * 400.0 - 200.0) as f32).collect();
    let mut results = Vec::new();
    for device in [&gpu, &sim] {
        let xd = device.upload(&x).unwrap();
        let mut od = device.zeroed::<f32>(3 * n).unwrap();
        unsafe {
            device.launch(
                &Math,
                LaunchConfig::linear((n / 256) as u32, 256),
                &mut [(&xd).into(), (&mut od).into()],
            )
        }
        .unwrap();
        results.push(od.to_vec().unwrap());
    }
    for (i, (g, s)) in results[0].iter().zip(&results[1]).enumerate() {
        let same = same_bits(*g, *s);
        assert!(same, "x = {}: output {} gpu {g:e} sim {s:e}", x[i / 3], i % 3);
    }
}

/// Every accurate f64 method, written with the macro.
#[ptx_kernel]
fn f64_math(a: &[f64], out: &mut [f64]) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if (i as usize) < a.len() {
        let x = a[i];
        let o = i * 19;
        let (s, c) = x.sin_cos();
        out[o] = s;
        out[o + 1] = c;
        out[o + 2] = x.tan();
        out[o + 3] = x.exp();
        out[o + 4] = x.exp2();
        out[o + 5] = x.abs().ln();
        out[o + 6] = x.abs().log2();
        out[o + 7] = x.tanh();
        out[o + 8] = x.abs().powf(x * 0.01);
        out[o + 9] = x.cbrt();
        out[o + 10] = x.exp_m1();
        out[o + 11] = x.abs().ln_1p();
        out[o + 12] = x.sinh();
        out[o + 13] = x.cosh();
        out[o + 14] = x.hypot(x * 0.75 - 3.0);
        out[o + 15] = x.atan();
        out[o + 16] = (x * 0.001).asin();
        out[o + 17] = (x * 0.001).acos();
        out[o + 18] = x.atan2(x * 0.75 - 3.0);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn f64_math_on_gpu_equals_the_simulator_bit_for_bit() {
    let (gpu, sim) = (gpu(), Device::sim());
    let mut rng = Rng::fresh("f64_math_on_gpu");
    let mut x: Vec<f64> = (0..1 << 14).map(|_| (rng.unit() - 0.5) * 1000.0).collect();
    x.extend((0..1 << 12).map(|_| f64::from_bits(rng.next())));
    let mut results = Vec::new();
    for device in [&gpu, &sim] {
        let xd = device.upload(&x).unwrap();
        let mut od = device.zeroed::<f64>(19 * x.len()).unwrap();
        F64Math::new().launch(device, LaunchConfig::for_elements(x.len(), 128), &xd, &mut od).unwrap();
        results.push(od.to_vec().unwrap());
    }
    for (i, (g, s)) in results[0].iter().zip(&results[1]).enumerate() {
        let same = same_bits(*g, *s);
        assert!(same, "x = {:e}: routine {} gpu {g:e} sim {s:e}", x[i / 19], i % 19);
    }
}

/// A checked kernel written with `#[ptx_kernel]`.
#[ptx_kernel]
fn gather_on_gpu(src: &[f32], idx: &[i32], out: &mut [f32]) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if (i as usize) < idx.len() {
        out[i] = src[idx[i]] * 2.0;
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn macro_kernels_match_the_simulator_and_report_out_of_range_like_it() {
    let (gpu, sim) = (gpu(), Device::sim());
    let mut rng = Rng::fresh("macro_on_gpu");
    let n = 4096usize;
    let src: Vec<f32> = (0..n).map(|_| rng.signed_f32()).collect();
    let good: Vec<i32> = (0..n).map(|_| (rng.next() % n as u64) as i32).collect();
    let mut bad = good.clone();
    bad[1234] = n as i32 + 7;
    let run = |dev: &Device, idx: &[i32]| {
        let (s, i) = (dev.upload(&src).unwrap(), dev.upload(idx).unwrap());
        let mut out = dev.zeroed::<f32>(n).unwrap();
        // On CUDA the fault surfaces at the next synchronising call, on the simulator from
        // the launch itself: launch-then-synchronize sees it on both.
        let r = GatherOnGpu::new().launch(dev, LaunchConfig::for_elements(n, 256), &s, &i, &mut out);
        let r = r.and_then(|_| dev.synchronize());
        (r, out.to_vec().unwrap())
    };
    let (g, s) = (run(&gpu, &good), run(&sim, &good));
    assert!(g.0.is_ok() && s.0.is_ok(), "{:?} {:?}", g.0, s.0);
    assert_eq!(g.1, s.1, "the same values on the GPU and the simulator");
    let (g, s) = (run(&gpu, &bad), run(&sim, &bad));
    for (what, r) in [("gpu", &g.0), ("sim", &s.0)] {
        match r {
            Err(ptx_dsl::runtime::Error::OutOfBounds { param, index, len, location, .. }) => {
                assert_eq!((param.as_str(), *index, *len), ("src", n as i128 + 7, n as u64), "{what}");
                assert!(location.starts_with("tests/gpu.rs:"), "{what}: {location}");
            }
            other => panic!("{what}: expected OutOfBounds, got {other:?}"),
        }
    }
    assert_eq!(g.1, s.1, "the in-range threads ran the same on both");
}

/// Runs every library kernel on `device` over the same inputs; returns all outputs as bits.
fn library_outputs(device: &Device, x: &[f32], rows: usize, cols: usize) -> Vec<u32> {
    use ptx_dsl::kernels;
    let xd = device.upload(x).unwrap();
    let w: Vec<f32> = (0..cols).map(|j| 0.5 + (j % 5) as f32 * 0.25).collect();
    let wd = device.upload(&w).unwrap();
    let mut bits = Vec::new();
    let mut out = device.zeroed::<f32>(x.len()).unwrap();
    kernels::softmax_rows(device, &xd, rows, cols, &mut out).unwrap();
    bits.extend(out.to_vec().unwrap().iter().map(|v| v.to_bits()));
    kernels::rms_norm(device, &xd, &wd, 1e-5, rows, cols, &mut out).unwrap();
    bits.extend(out.to_vec().unwrap().iter().map(|v| v.to_bits()));
    kernels::layer_norm(device, &xd, &wd, &wd, 1e-5, rows, cols, &mut out).unwrap();
    bits.extend(out.to_vec().unwrap().iter().map(|v| v.to_bits()));
    kernels::transpose(device, &xd, rows, cols, &mut out).unwrap();
    bits.extend(out.to_vec().unwrap().iter().map(|v| v.to_bits()));
    kernels::prefix_sum(device, &xd, &mut out).unwrap();
    bits.extend(out.to_vec().unwrap().iter().map(|v| v.to_bits()));
    bits.push(kernels::sum(device, &xd).unwrap().to_bits());
    bits.push(kernels::max(device, &xd).unwrap().to_bits());
    bits
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_kernel_library_gives_the_simulators_bits_on_the_gpu() {
    // Every library kernel uses IEEE-exact operations only (the accurate exp, div.rn,
    // sqrt.rn, fma) in an order fixed by the shape: a GPU must give the very same bits.
    let (gpu, sim) = (gpu(), Device::sim());
    let mut rng = Rng::fresh("the_kernel_library_gives_the_simulators_bits_on_the_gpu");
    for (rows, cols) in [(1usize, 1usize), (3, 33), (7, 1000), (70, 257)] {
        let x: Vec<f32> = (0..rows * cols).map(|_| rng.signed_f32() * 8.0).collect();
        let (on_gpu, on_sim) = (library_outputs(&gpu, &x, rows, cols), library_outputs(&sim, &x, rows, cols));
        let first = on_gpu.iter().zip(&on_sim).position(|(a, b)| a != b);
        assert!(first.is_none(), "{rows}x{cols}: output {first:?} differs (gpu vs sim)");
    }
}

/// `.sat` arithmetic and conversions whose results are zeros of either sign, by hand in
/// PTX: `(a, b)` to `a+b, a−b, a·b, fma(a, b, a)` with `.sat`, `cvt.rni.sat.f32.f32 a` and,
/// through f64, `cvt.rn.sat.f32.f64 a·2^-1000`, `cvt.rni.sat.f64.f64 a`.
const SAT_FORMS: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry sat_forms(.param .u64 a_ptr, .param .u64 b_ptr, .param .u64 out_ptr)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<9>;
    .reg .f32 %f<10>;
    .reg .f64 %fd<4>;
    ld.param.u64 %rd1, [a_ptr];
    ld.param.u64 %rd2, [b_ptr];
    ld.param.u64 %rd3, [out_ptr];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r1, %r2, %r3, %r1;
    mul.wide.u32 %rd4, %r1, 4;
    add.u64 %rd5, %rd1, %rd4;
    add.u64 %rd6, %rd2, %rd4;
    ld.global.f32 %f1, [%rd5];
    ld.global.f32 %f2, [%rd6];
    add.sat.f32 %f3, %f1, %f2;
    sub.sat.f32 %f4, %f1, %f2;
    mul.sat.f32 %f5, %f1, %f2;
    fma.rn.sat.f32 %f6, %f1, %f2, %f1;
    cvt.rni.sat.f32.f32 %f7, %f1;
    cvt.f64.f32 %fd1, %f1;
    mul.f64 %fd2, %fd1, 0d0170000000000000;
    cvt.rn.sat.f32.f64 %f8, %fd2;
    cvt.rni.sat.f64.f64 %fd3, %fd1;
    cvt.rn.f32.f64 %f9, %fd3;
    mul.wide.u32 %rd7, %r1, 32;
    add.u64 %rd8, %rd3, %rd7;
    st.global.v4.f32 [%rd8], {%f3, %f4, %f5, %f6};
    st.global.v4.f32 [%rd8+16], {%f7, %f8, %f9, %f9};
    ret;
}
"#;

#[test]
#[ignore = "needs a CUDA GPU"]
fn saturated_zeros_have_the_simulators_sign_on_the_gpu() {
    // Edge pairs whose results are ±0 before saturation, then random ones.
    let edges = [0.0f32, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-30, -1e-30, -0.3, 2.0, f32::MIN_POSITIVE, f32::NAN];
    let mut rng = Rng::fresh("saturated_zeros_on_gpu");
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &edges {
        for &y in &edges {
            a.push(x);
            b.push(y);
        }
    }
    while a.len() % 256 != 0 || a.len() < 1024 {
        a.push(rng.signed_f32() * 2.0);
        b.push(rng.signed_f32() * 2.0);
    }
    let mut results = Vec::new();
    for device in [gpu(), Device::sim()] {
        let module = device.load_ptx(SAT_FORMS).unwrap();
        let (ad, bd) = (device.upload(&a).unwrap(), device.upload(&b).unwrap());
        let mut out = device.zeroed::<f32>(8 * a.len()).unwrap();
        let config = LaunchConfig::for_elements(a.len(), 256);
        unsafe { module.launch("sat_forms", config, &mut [(&ad).into(), (&bd).into(), (&mut out).into()]) }
            .unwrap();
        results.push(out.to_vec().unwrap());
    }
    let forms = [
        "add.sat",
        "sub.sat",
        "mul.sat",
        "fma.sat",
        "cvt.rni.sat.f32",
        "cvt.rn.sat.f32.f64",
        "cvt.rni.sat.f64",
    ];
    for (i, (g, s)) in results[0].iter().zip(&results[1]).enumerate() {
        let (t, k) = (i / 8, (i % 8).min(6));
        assert_eq!(g.to_bits(), s.to_bits(), "{} of ({:e}, {:e}): gpu {g:e} sim {s:e}", forms[k], a[t], b[t]);
    }
}
