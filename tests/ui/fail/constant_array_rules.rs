use ptx_dsl::prelude::*;

const TABLE: [u32; 3] = [1, 2, 3];

#[ptx_device]
fn lookup(i: usize) -> u32 {
    // A device function cannot read a constant of the code around it.
    TABLE[i]
}

#[ptx_kernel]
fn k(x: &[f32], out: &mut [u32]) {
    let i = thread_idx().x as usize;
    // A `const` array's elements are constants.
    const FROM_INPUT: [f32; 2] = [x[0], 1.0];
    // An element whose use does not say its type.
    let e = TABLE[i];
    out[i] = lookup(i);
}

// Read whole, a constant array of the surrounding code is copied, and rustc checks its
// type against the use's at its name.
#[ptx_kernel]
fn whole(out: &mut [u32]) {
    let w: [f32; 3] = TABLE;
    out[0] = w[1] as u32;
}

#[ptx_kernel]
fn const_element(out: &mut [u32]) {
    // A `const` array's elements cannot be assigned.
    const W: [u32; 2] = [1, 2];
    W[0] = 3;
    out[1] = W[0];
}

fn main() {}
