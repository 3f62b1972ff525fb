use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32], n: u32, step: usize) {
    #[unroll]
    for i in 0..n {
        x[i] = 0.0;
    }
    #[unroll]
    for i in (0..n).step_by(2) {
        x[i] = 1.0;
    }
    #[unroll]
    for i in (0..4u32).step_by(step) {
        x[i] = 2.0;
    }
}

fn main() {}
