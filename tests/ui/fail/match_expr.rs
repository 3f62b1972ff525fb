use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    x[0] = match x[0] {
        0 => 1,
        _ => 2,
    };
}

fn main() {}
