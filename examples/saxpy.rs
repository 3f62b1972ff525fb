//! Hello world: y = a·x + y on `Device::auto()` (a CUDA GPU, or the CPU simulator).
//!
//! The kernel is written with the typed builder; `cargo run --example saxpy`.

use ptx_dsl::core::Cmp;
use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, LaunchConfig};

/// `y[i] = a * x[i] + y[i]` for `i < n`, with one fused multiply-add.
pub struct Saxpy;

impl Kernel for Saxpy {
    fn name(&self) -> &str {
        "saxpy"
    }

    fn build(&self) -> KernelIr {
        let mut b = KernelBuilder::new("saxpy");
        let x = b.global_pointer("x");
        let y = b.global_pointer("y");
        let a = b.param::<F32>("a");
        let a = b.load_param(a);
        let n = b.param::<U32>("n");
        let n = b.load_param(n);
        let i = b.global_index_x();
        let done = b.label();
        let outside = b.setp(Cmp::Ge, i, n);
        b.bra_if(outside, done);
        let offset = b.byte_offset::<F32>(i);
        let xa = b.offset_address(x, offset);
        let ya = b.offset_address(y, offset);
        let xv = b.ld_global::<F32>(xa, 0);
        let yv = b.ld_global::<F32>(ya, 0);
        let r = b.fma(a, xv, yv);
        b.st_global::<F32>(ya, 0, r);
        b.place(done);
        b.finish()
    }
}

fn main() -> Result<(), ptx_dsl::runtime::Error> {
    let device = Device::auto();
    let n = 1_000_000usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 1.0 - i as f32).collect();
    let xd = device.upload(&x)?;
    let mut yd = device.upload(&y)?;
    let a = 2.0f32;
    device.launch(
        &Saxpy,
        LaunchConfig::for_elements(n, 256),
        &mut [(&xd).into(), (&mut yd).into(), a.into(), (n as u32).into()],
    )?;
    let out = yd.to_vec()?;
    let wrong = (0..n).filter(|&i| out[i] != a.mul_add(x[i], y[i])).count();
    println!("saxpy on {}: {n} elements, {wrong} differ from f32::mul_add", device.name());
    if wrong > 0 {
        std::process::exit(1);
    }
    Ok(())
}
