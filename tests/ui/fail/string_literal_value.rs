use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let s = "text";
    y[0] = b"ab"[0] as u32;
}

fn main() {}
