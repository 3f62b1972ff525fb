use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let mut n = 3u32;
    if n = 5 {
        y[0] = n;
    }
}

fn main() {}
