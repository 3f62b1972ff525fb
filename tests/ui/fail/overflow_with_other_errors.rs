use ptx_dsl::prelude::*;

// A constant overflow is reported with the kernel's other errors, not after they are fixed.
#[ptx_kernel]
fn k(x: &[f32], out: &mut [u32]) {
    let i = thread_idx().x as usize;
    let z = 255u8 + 1;
    let w: u32 = x[i];
    out[i] = z as u32 + w;
}

fn main() {}
