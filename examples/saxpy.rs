//! Hello world: y = a·x + y, written with `#[ptx_kernel]`, on `Device::auto()` (a CUDA
//! GPU, or the CPU simulator). `cargo run --example saxpy`.

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, LaunchConfig};

/// `y[i] = a * x[i] + y[i]` for `i < n`, with one fused multiply-add.
#[ptx_kernel]
pub fn saxpy(a: f32, x: &[f32], y: &mut [f32], n: u32) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i < n {
        y[i] = a.mul_add(x[i], y[i]);
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
    Saxpy::new().launch(&device, LaunchConfig::for_elements(n, 256), a, &xd, &mut yd, n as u32)?;
    let out = yd.to_vec()?;
    let wrong = (0..n).filter(|&i| out[i] != a.mul_add(x[i], y[i])).count();
    println!("saxpy on {}: {n} elements, {wrong} differ from f32::mul_add", device.name());
    if wrong > 0 {
        std::process::exit(1);
    }
    Ok(())
}
