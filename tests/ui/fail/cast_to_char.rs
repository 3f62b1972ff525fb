use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let c = y[0] as char;
    let s = 'a';
}

fn main() {}
