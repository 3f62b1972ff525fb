use ptx_dsl::prelude::*;

// As rustc: an array's length is a constant (a `let`, even of a constant, is a variable),
// and arrays are not compared whole.
#[ptx_kernel]
fn lengths(y: &mut [u32], x: u32) {
    let n = 3;
    let grown = [x; n];
    let w = [x; 3];
    y[0] = grown[0] + (w == w) as u32 + (w < w) as u32;
}

// A constant index past a constant length always panics: rustc's `unconditional_panic`.
#[ptx_kernel]
fn past_the_end(y: &mut [u32], x: u32) {
    let w = [x; 3];
    let j = 3;
    y[0] = w[j] + w[2 + 1];
    let mut z = [x; 0];
    z[0] = 1;
    const K: usize = 4;
    let k = [1u32, 2, 3, 4];
    y[1] = k[K];
}

fn main() {}
