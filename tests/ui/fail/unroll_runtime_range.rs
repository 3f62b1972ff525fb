use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32], n: u32) {
    #[unroll]
    for i in 0..n {
        x[i] = 0.0;
    }
}

fn main() {}
