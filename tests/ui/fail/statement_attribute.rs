use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    #[cfg(test)]
    let x = 1u32;
    y[0] = x;
}

fn main() {}
