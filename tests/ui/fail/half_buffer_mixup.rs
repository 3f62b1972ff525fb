use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, LaunchConfig};

// A `bf16` buffer given to an `&[f16]` slice: the types say the data is the other 16-bit
// float, which rustc refuses at the argument (`u16` bits would be taken as either).
#[ptx_kernel]
fn widen(x: &[f16], y: &mut [f32]) {
    let i = thread_idx().x as usize;
    if i < x.len() {
        y[i] = x[i].to_f32();
    }
}

fn main() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x = dev.upload(&[ptx_dsl::half::bf16::ONE])?;
    let mut y = dev.zeroed::<f32>(1)?;
    Widen::new().launch(&dev, LaunchConfig::for_elements(1, 32), &x, &mut y)?;
    Ok(())
}
