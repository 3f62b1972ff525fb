use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, LaunchConfig};

/// Unchecked: its typed `launch` is `unsafe`.
#[ptx_kernel(unchecked)]
fn store(x: &mut [u64]) {
    x[thread_idx().x as usize] = 7;
}

fn main() {
    let dev = Device::sim();
    let mut small = dev.zeroed::<u64>(4).unwrap();
    // Neither the typed launch of an unchecked kernel nor the untyped launch of any kernel
    // (which cannot see what the kernel does with the buffer) is safe to call.
    let _ = Store::new().launch(&dev, LaunchConfig::linear(1, 256), &mut small);
    let _ = dev.launch(&Store::new(), LaunchConfig::linear(1, 256), &mut [(&mut small).into()]);
}
