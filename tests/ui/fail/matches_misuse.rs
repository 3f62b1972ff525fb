use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    // A pattern is needed.
    let a = matches!(y[0]);
    // The pattern's type is the value's.
    let b = matches!(y[1], 1.5);
    y[2] = a as u32 + b as u32;
}

fn main() {}
