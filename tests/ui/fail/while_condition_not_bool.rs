use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    while x[0] {
        x[0] = 0;
    }
}

fn main() {}
