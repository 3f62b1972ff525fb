use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let v = loop {
        break 5u32;
    };
    y[0] = v;
}

fn main() {}
