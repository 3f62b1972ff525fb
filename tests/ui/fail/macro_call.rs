use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &[f32]) {
    println!("{}", x[0]);
}

fn main() {}
