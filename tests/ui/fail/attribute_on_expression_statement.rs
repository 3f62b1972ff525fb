use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32], #[comptime(x)] n: u32) {
    // An expression statement's attributes are on its first operand (`y[1]`, `y`).
    #[unroll]
    y[1] = 2;
    #[allow(unused)]
    y.len();
    #[unroll(4)]
    for i in 0..4 {
        y[i] = n;
    }
}

#[ptx_kernel]
fn print(y: &mut [u32]) {
    #[allow(unused)]
    gpu_print!("{}", y[0]);
    #[cfg(debug_assertions)]
    y[0] = 1;
}

fn main() {}
