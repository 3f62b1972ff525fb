use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let a = y[0].rotate_left(3);
    let b = y[1].checked_add(4);
    let c = y[2].sqrt();
    let d = (y[3] as f32).count_ones();
}

fn main() {}
