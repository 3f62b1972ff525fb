use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let s = "text";
    y[0] = b'a' as u32;
}

fn main() {}
