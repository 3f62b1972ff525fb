use ptx_dsl::prelude::*;
#[ptx_kernel]
fn k(y: &mut [u32], a: u32) {
    if let 3 = a {
        y[0] = 1;
    }
}
fn main() {}
