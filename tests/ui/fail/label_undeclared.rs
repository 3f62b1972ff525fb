use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    for i in 0..4u32 {
        if i == 2 {
            continue 'outer;
        }
    }
}

fn main() {}
