use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(_: u32, y: &mut [u32]) {
    y[0] = 1;
}

fn main() {}
