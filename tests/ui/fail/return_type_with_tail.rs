use ptx_dsl::prelude::*;

// One error for the return type: the value the body ends in is not reported again.
#[ptx_kernel]
fn k(y: &mut [u32]) -> u32 {
    y[0]
}

#[ptx_kernel]
fn choose(y: &mut [f32], c: bool) -> f32 {
    if c {
        y[0]
    } else {
        y[1]
    }
}

// The tail's own mistakes still are.
#[ptx_kernel]
fn wrong_tail(y: &mut [u32]) -> u32 {
    y[0] + 1.0
}

fn main() {}
