use ptx_dsl::prelude::*;

// A destructuring assignment assigns places: `mut` variables and slice or array elements,
// each checked as its own assignment.
#[ptx_kernel]
fn k(y: &mut [u32], x: &[u32]) {
    let (mut a, b) = (1u32, 2u32);
    (a, b) = (b, a);
    (a, 3) = (b, a);
    (x[0], y[0]) = (a, b);
    (a, y[1]) = (1.5, 2u32);
    [a, y[1]] = [a, a];
}

fn main() {}
