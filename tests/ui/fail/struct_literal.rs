use ptx_dsl::prelude::*;

struct P {
    a: u32,
}

#[ptx_kernel]
fn k(x: &mut [u32]) {
    let p = P { a: 1 };
}

fn main() {}
