use ptx_dsl::prelude::*;

const SMALL: u8 = 3;

// A constant of the code around the kernel, of another type than its use: rustc's errors
// point at the constant, in a pattern as in an expression, not at `#[ptx_kernel]`.
#[ptx_kernel]
fn constant_of_another_type(y: &mut [u32]) {
    let r = match 1.5 {
        SMALL => 1,
        _ => 2,
    };
    let v = 2.5;
    let s = v == SMALL;
    y[0] = r + s as u32;
}

fn main() {}
