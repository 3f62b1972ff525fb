use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    for i in (0..10u32).rev() {
        y[0] += i;
    }
}

fn main() {}
