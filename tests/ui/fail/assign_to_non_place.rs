use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    y.len() = 5;
    thread_idx().x = 5;
    5 = y[0];
}

fn main() {}
