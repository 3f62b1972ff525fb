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
                // The type is checked first: a view too long for the buffer is not what is
                // reported.
                let long = TensorView { tokens: 100 * tokens, ..view };
                let refused = rope.apply(Direction::Forward, &positions, &other, long, &mut other_out, long);
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

/// A kernel written against the builder that moves halves as `.u16`, as NVRTC moves a
/// `__half` (PTX has no 16-bit float load): `dst[i]` gets `src[i]`'s bits plus one.
struct BumpBits;

impl ptx_dsl::core::Kernel for BumpBits {
    fn name(&self) -> &str {
        "bump_bits"
    }
    fn build(&self) -> ptx_dsl::core::KernelIr {
        use ptx_dsl::core::{KernelBuilder, SpecialReg, U16};
        let mut b = KernelBuilder::new("bump_bits");
        let (src, dst) = (b.global_pointer("src"), b.global_pointer("dst"));
        let i = b.special(SpecialReg::TidX);
        let (from, to) = (b.element_address::<U16>(src, i), b.element_address::<U16>(dst, i));
        let bits = b.ld_global::<U16>(from, 0);
        let bumped = b.add(bits, 1u16);
        b.st_global::<U16>(to, 0, bumped);
        b.ret();
        b.finish()
    }
}

#[test]
fn kernels_moving_halves_as_u16_take_typed_half_buffers() -> Result<()> {
    use ptx_dsl::runtime::KernelArg;
    let dev = Device::sim();
    let xs: Vec<bf16> = [1.5f32, -2.0, 3.0e38, 1.0e-39].map(bf16::from_f32).to_vec();
    let x = dev.upload(&xs)?;
    let mut y = dev.zeroed::<bf16>(xs.len())?;
    let config = LaunchConfig::linear(1, xs.len() as u32);
    // SAFETY: one thread per element of the two equally long buffers.
    unsafe { dev.launch(&BumpBits, config, &mut [KernelArg::from(&x), KernelArg::from(&mut y)]) }?;
    let want: Vec<bf16> = xs.iter().map(|v| bf16::from_bits(v.to_bits() + 1)).collect();
    assert_eq!(y.to_vec()?, want);
    // A `.u32` access of 16-bit floats stays refused, as for `u16` buffers.
    let wide = dev.upload(&[0u32; 4])?;
    // SAFETY: refused before it runs.
    let refused =
        unsafe { dev.launch(&BumpBits, config, &mut [KernelArg::from(&wide), KernelArg::from(&mut y)]) };
    assert!(refused.is_err(), "a buffer of u32 for a .u16 access");
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

/// The vector built-ins over half-precision slices, in a device function that runs on the
/// host too (where `load8` and `store2` are functions on the slice).
#[ptx_device]
fn pack_sums(h: &[f16], out: &mut [bf16], i: usize) {
    let (a, b, c, d, e, f, g, k) = load8(h, 8 * i);
    let low = a.to_f32() + b.to_f32() + c.to_f32() + d.to_f32();
    let high = e.to_f32() + f.to_f32() + g.to_f32() + k.to_f32();
    store2(out, 2 * i, (bf16::from_f32(low), bf16::from_f32(high)));
}

#[ptx_kernel]
fn pack_all(h: &[f16], out: &mut [bf16]) {
    let i = (thread_idx().x + block_idx().x * block_dim().x) as usize;
    if 8 * i + 7 < h.len() && 2 * i + 1 < out.len() {
        pack_sums(h, out, i);
    }
}

#[test]
fn vector_accesses_of_halves_mean_on_the_gpu_what_they_do_on_the_host() -> Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("half_vectors");
    let groups = 40;
    let h: Vec<f16> = (0..8 * groups).map(|_| f16::from_f32(rng.signed_f32() * 1000.0)).collect();
    let (hd, mut out) = (dev.upload(&h)?, dev.zeroed::<bf16>(2 * groups)?);
    PackAll::new().launch(&dev, LaunchConfig::for_elements(groups, 32), &hd, &mut out)?;
    let mut host = vec![bf16::ZERO; 2 * groups];
    for i in 0..groups {
        pack_sums(&h, &mut host, i);
    }
    assert_eq!(out.to_vec()?, host);
    Ok(())
}

/// A raw module with a 16-bit float parameter, passed as `half::f16`/`half::bf16` values.
const RAW_PUT: &str = "
.version 8.0
.target sm_80
.address_size 64
.visible .entry put(.param .u64 put_out, .param .f16 put_v)
{
    .reg .b16 %h;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd0, [put_out];
    cvta.to.global.u64 %rd1, %rd0;
    ld.param.b16 %h, [put_v];
    st.global.b16 [%rd1], %h;
    ret;
}
";

#[test]
fn half_values_pass_as_scalar_arguments() -> Result<()> {
    let dev = Device::sim();
    let module = dev.load_ptx(RAW_PUT)?;
    let mut out = dev.zeroed::<f16>(1)?;
    let value = f16::from_f32(-1.5);
    // SAFETY: one thread writes the one element.
    unsafe { module.launch("put", LaunchConfig::linear(1, 1), &mut [(&mut out).into(), value.into()]) }?;
    assert_eq!(out.to_vec()?, [value]);
    Ok(())
}

/// The half types named by their path through ptx-dsl's re-export.
#[ptx_kernel]
fn widen_by_path(h: &[ptx_dsl::half::f16], out: &mut [f32]) {
    let i = (thread_idx().x + block_idx().x * block_dim().x) as usize;
    if i < h.len() {
        out[i] = h[i].to_f32();
    }
}

#[test]
fn half_types_by_their_re_exported_path() -> Result<()> {
    let dev = Device::sim();
    let hs: Vec<f16> = [0.5f32, -3.25, 65504.0].map(f16::from_f32).to_vec();
    let (h, mut out) = (dev.upload(&hs)?, dev.zeroed::<f32>(hs.len())?);
    WidenByPath::new().launch(&dev, LaunchConfig::for_elements(hs.len(), 32), &h, &mut out)?;
    assert_eq!(out.to_vec()?, [0.5, -3.25, 65504.0]);
    Ok(())
}
