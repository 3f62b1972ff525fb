use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let v = y[0].checked_add(1)?;
}

fn main() {}
