use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [i32]) {
    let a: i8 = -129;
    let b = 0x1_0000_0000;
    let c = 1e40f32;
    y[0] = a as i32 + b + c as i32;
}

fn main() {}
