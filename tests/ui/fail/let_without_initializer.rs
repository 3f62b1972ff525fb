use ptx_dsl::prelude::*;
#[ptx_kernel]
fn k(y: &mut [u32], a: u32) {
    let v: u32;
    if a > 3 {
        v = 1;
    } else {
        v = 2;
    }
    y[0] = v;
}
fn main() {}
