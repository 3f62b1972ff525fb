use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let mut n = 3u32;
    while let 0 = n {
        n -= 1;
    }
}

fn main() {}
