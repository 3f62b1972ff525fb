use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32], n: u32) {
    let t = shared::<u32, n>();
    #[unroll]
    for j in 0..n {
        y[j] = 1;
    }
}

fn main() {}
