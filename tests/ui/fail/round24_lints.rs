#![deny(non_snake_case)]
use ptx_dsl::prelude::*;

// Each parameter named against the style is reported once, at its name (not again for
// the generated launch method or field), and a device function's once, at its
// definition (not again in each kernel that inlines it).
#[ptx_kernel]
pub fn styled(Y: &mut [u32], #[comptime] N: u32, M: u32) {
    Y[0] = N + M + helper(1);
}

#[ptx_device]
fn helper(X: u32) -> u32 {
    let Twice = X * 2;
    Twice + 1
}

fn main() {}
