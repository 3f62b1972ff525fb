use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    for i in (0..8u32).step_by(0) {
        x[i] = 1;
    }
}

fn main() {}
