use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    let b = x[0] as bool;
    let c = u16::from(x[0]);
}

fn main() {}
