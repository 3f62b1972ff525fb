use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    let a = y[0].ilog(3);
    let b = y[1].checked_add(4);
    let c = y[2].sqrt();
    let d = (y[3] as f32).count_ones();
    // As in Rust: `signum` is for signed integers, `is_power_of_two` for unsigned ones.
    let e = y[4].signum();
    let f = (y[5] as i32).is_power_of_two();
}

fn main() {}
