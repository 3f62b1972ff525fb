use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    let v: u8 = 256;
    x[0] = v as u32;
}

fn main() {}
