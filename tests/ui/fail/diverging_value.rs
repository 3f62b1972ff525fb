use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32], n: u32) {
    // Arms and statements may leave; a value that is used may not.
    let v = if n > 0 { n } else { return };
    x[0] = { return; };
    x[1] = v + return;
    for j in 0..n {
        x[(continue) as usize] = j;
    }
    // A `loop` that no `break` leaves never ends: its type is `!`, as in Rust.
    x[2] = loop {};
}

fn main() {}
