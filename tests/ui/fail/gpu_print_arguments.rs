use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    gpu_print!("{} {}", y[0]);
    gpu_print!("{:x}", y[0]);
    gpu_print!("nul\0after {}", y[0]);
}

fn main() {}
