use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    fn helper(v: u32) -> u32 {
        v * 2
    }
    y[0] = helper(y[1]);
}

fn main() {}
