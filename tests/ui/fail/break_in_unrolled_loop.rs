use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    #[unroll]
    for i in 0..4u32 {
        if x[i] == 0 {
            break;
        }
    }
}

fn main() {}
