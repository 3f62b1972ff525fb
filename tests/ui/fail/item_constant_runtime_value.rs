use ptx_dsl::prelude::*;

const LIMIT: u32 = 10;

// A constant whose type nothing in the kernel says may only be used in values computed
// while the kernel is built (rustc then infers its type); a value computed at run time
// needs its type.
#[ptx_kernel]
fn printed(x: &mut [u32]) {
    gpu_print!("{}", LIMIT);
    x[0] = 1;
}

#[ptx_kernel]
fn reduced(x: &mut [u32]) {
    let v = warp_sum(LIMIT);
    if v > 3 {
        x[0] = 1;
    }
}

#[ptx_kernel]
fn counted(x: &mut [u32]) {
    let mut k = LIMIT;
    k += 1;
    if k > 3 {
        x[0] = 1;
    }
}

/// Fine: only comparisons and arithmetic while building, or a cast.
#[ptx_kernel]
fn fine(x: &mut [u32]) {
    let twice = LIMIT * 2;
    if twice > 4 {
        x[0] = LIMIT as u32 + 1;
    }
}

fn main() {}
