//! Typed half-precision buffers: a kernel's `&[f16]`/`&[bf16]` slice takes a
//! `DeviceBuffer<half::f16>`/`DeviceBuffer<half::bf16>` as well as `u16` bits, with the same
//! result; the production RoPE takes them too and refuses a typed buffer of the other
//! 16-bit type than its configuration's (what `u16` bits cannot tell apart).

use ptx_dsl::half;
use ptx_dsl::prelude::*;
use ptx_dsl::rope::{Direction, Dtype, Rope, RopeConfig, TensorView};
use ptx_dsl::runtime::{Device, Error, LaunchConfig, Result};
use ptx_tools::rng::Rng;

/// `y = bf16(f32(x) · k)`: f32 math between the two storage types.
#[ptx_kernel]
fn rescale(x: &[f16], y: &mut [bf16], k: f32) {
    let i = (thread_idx().x + block_idx().x * block_dim().x) as usize;
    if i < x.len() {
        y[i] = bf16::from_f32(x[i].to_f32() * k);
    }
}

#[test]
fn typed_half_buffers_give_the_bits_of_u16_ones_and_of_the_host() -> Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("half_buffers");
    // Finite values over f16's range (no NaN: the GPU's canonical NaN differs from the
    // `half` crate's, as the README says), and a random factor.
    let xs: Vec<half::f16> = (0..300).map(|_| half::f16::from_f32(rng.signed_f32() * 6.0e4)).collect();
    let k = rng.signed_f32() * 8.0;
    let config = LaunchConfig::for_elements(xs.len(), 64);

    let x = dev.upload(&xs)?;
    let mut y = dev.zeroed::<half::bf16>(xs.len())?;
    Rescale::new().launch(&dev, config, &x, &mut y, k)?;
    let typed = y.to_vec()?;

    let bits: Vec<u16> = xs.iter().map(|v| v.to_bits()).collect();
    let x_bits = dev.upload(&bits)?;
    let mut y_bits = dev.zeroed::<u16>(xs.len())?;
    Rescale::new().launch(&dev, config, &x_bits, &mut y_bits, k)?;
    let y_bits = y_bits.to_vec()?;

    for (i, v) in xs.iter().enumerate() {
        // The f32 product rounds once to bf16, on the GPU as on the host.
        let host = half::bf16::from_f32(v.to_f32() * k);
        assert_eq!(typed[i].to_bits(), host.to_bits(), "bf16({v} · {k})");
        assert_eq!(y_bits[i], host.to_bits(), "bf16({v} · {k}) through u16 bits");
    }
    Ok(())
}

#[test]
fn rope_takes_typed_half_buffers_and_refuses_the_other_type() -> Result<()> {
    let device = Device::sim();
    let mut rng = Rng::fresh("rope_half_buffers");
    let (tokens, heads, head_dim) = (5u32, 3u32, 32u32);
    let view = TensorView::contiguous(tokens, heads, head_dim);
    let n = view.extent(head_dim);
    let values: Vec<f32> = (0..n).map(|_| rng.signed_f32()).collect();
    let positions = device.upload(&(0..tokens).map(|_| (rng.next() % 100_000) as u32).collect::<Vec<_>>())?;

    for dtype in [Dtype::F16, Dtype::Bf16] {
        let rope = Rope::new(RopeConfig { dtype, ..RopeConfig::new(head_dim) })?.on(&device)?;
        let bits: Vec<u16> = values
            .iter()
            .map(|&v| match dtype {
                Dtype::F16 => half::f16::from_f32(v).to_bits(),
                _ => half::bf16::from_f32(v).to_bits(),
            })
            .collect();
        let x_bits = device.upload(&bits)?;
        let mut out_bits = device.zeroed::<u16>(n)?;
        rope.apply(Direction::Forward, &positions, &x_bits, view, &mut out_bits, view)?;
        let want = out_bits.to_vec()?;

        // The typed buffer of the configured type: the same bits. The other type: an
        // error naming `dtype`, before any launch.
        let (got, refused) = match dtype {
            Dtype::F16 => {
                let x = device.upload(&bits.iter().map(|&b| half::f16::from_bits(b)).collect::<Vec<_>>())?;
                let mut out = device.zeroed::<half::f16>(n)?;
                rope.apply(Direction::Forward, &positions, &x, view, &mut out, view)?;
                let other = device.upload(&vec![half::bf16::ONE; n])?;
                let mut other_out = device.zeroed::<half::bf16>(n)?;
                let refused = rope.apply(Direction::Forward, &positions, &other, view, &mut other_out, view);
                (out.to_vec()?.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), refused.map(|_| ()))
            }
            _ => {
                let x = device.upload(&bits.iter().map(|&b| half::bf16::from_bits(b)).collect::<Vec<_>>())?;
                let mut out = device.zeroed::<half::bf16>(n)?;
                rope.apply(Direction::Forward, &positions, &x, view, &mut out, view)?;
                // (In place, the other path into the kernels.)
                let mut other = device.upload(&vec![half::f16::ONE; n])?;
                let refused = rope.apply_in_place(Direction::Forward, &positions, &mut other, view);
                (out.to_vec()?.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), refused.map(|_| ()))
            }
        };
        assert_eq!(got, want, "{dtype:?}: typed buffers against u16 bits");
        match refused {
            Err(Error::InvalidArgument { argument, reason }) => {
                assert_eq!(argument, "dtype", "{reason}");
                assert!(reason.contains(dtype.name()), "{reason}");
            }
            other => panic!("{dtype:?}: a buffer of the other 16-bit type gave {other:?}"),
        }
    }
    Ok(())
}

/// A raw module as NVRTC writes `__half` code: the halves move as `.u16` (`ld.global.u16`),
/// which a `half::f16` buffer agrees with, as `u16` bits do.
const RAW_HALF_COPY: &str = "
.version 8.0
.target sm_80
.address_size 64
.visible .entry copy_halves(.param .u64 copy_halves_param_0, .param .u64 copy_halves_param_1)
{
    .reg .b16 %rs<2>;
    .reg .b32 %r<2>;
    .reg .b64 %rd<7>;
    ld.param.u64 %rd1, [copy_halves_param_0];
    ld.param.u64 %rd2, [copy_halves_param_1];
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd5, %r1, 2;
    add.s64 %rd6, %rd3, %rd5;
    ld.global.u16 %rs1, [%rd6];
    add.s64 %rd6, %rd4, %rd5;
    st.global.u16 [%rd6], %rs1;
    ret;
}
";

#[test]
fn raw_ptx_moving_halves_as_u16_takes_typed_half_buffers() -> Result<()> {
    let dev = Device::sim();
    let module = dev.load_ptx(RAW_HALF_COPY)?;
    let xs: Vec<half::bf16> = [1.5f32, -2.0, 3.0e38, 1.0e-39].map(half::bf16::from_f32).to_vec();
    let x = dev.upload(&xs)?;
    let mut y = dev.zeroed::<half::bf16>(xs.len())?;
    // SAFETY: one thread per element of the two equally long buffers.
    unsafe {
        module.launch(
            "copy_halves",
            LaunchConfig::linear(1, xs.len() as u32),
            &mut [(&x).into(), (&mut y).into()],
        )
    }?;
    assert_eq!(y.to_vec()?, xs);
    Ok(())
}

/// A device function over half-precision slices: inlined into the kernel, and compiled for
/// the host as well, where it runs on `half`'s types.
#[ptx_device]
fn blend(a: &[f16], b: &mut [bf16], i: usize, w: f32) -> f32 {
    let v = a[i].to_f32() * w;
    b[i] = bf16::from_f32(v + b[i].to_f32());
    v
}

#[ptx_kernel]
fn blend_all(a: &[f16], b: &mut [bf16], out: &mut [f32], w: f32) {
    let i = (thread_idx().x + block_idx().x * block_dim().x) as usize;
    if i < a.len() {
        out[i] = blend(a, b, i, w);
    }
}

#[test]
fn device_functions_take_half_slices_and_mean_what_they_do_on_the_host() -> Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("device_half_slices");
    let n = 100;
    let a: Vec<f16> = (0..n).map(|_| f16::from_f32(rng.signed_f32() * 100.0)).collect();
    let b: Vec<bf16> = (0..n).map(|_| bf16::from_f32(rng.signed_f32())).collect();
    let w = rng.signed_f32() * 4.0;
    let (ad, mut bd, mut out) = (dev.upload(&a)?, dev.upload(&b)?, dev.zeroed::<f32>(n)?);
    BlendAll::new().launch(&dev, LaunchConfig::for_elements(n, 64), &ad, &mut bd, &mut out, w)?;
    let (got_b, got_out) = (bd.to_vec()?, out.to_vec()?);
    let mut host_b = b.clone();
    for (i, got) in got_out.iter().enumerate() {
        let v = blend(&a, &mut host_b, i, w);
        assert_eq!(got.to_bits(), v.to_bits(), "blend's value at {i}");
    }
    assert_eq!(got_b, host_b);
    Ok(())
}
