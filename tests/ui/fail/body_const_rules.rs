use ptx_dsl::prelude::*;

// A body's `const` reads literals and constants, as in Rust (E0435): no local or parameter,
// `#[comptime]` ones included; a block of its own locals is Rust but is not folded (yet).
#[ptx_kernel]
fn reads_variables(y: &mut [u32], #[comptime] scale: u32) {
    let n = 3u32;
    const FROM_LOCAL: u32 = n + 1;
    const FROM_PARAMETER: u32 = scale * 2;
    const FINE: u32 = 4 * 2;
    const OWN_LOCALS: u32 = {
        let a = 2;
        a * FINE
    };
    y[0] = FROM_LOCAL + FROM_PARAMETER + FINE + OWN_LOCALS;
}

// Two `const`s of one name in one block (rustc's E0428); a nested block may shadow one.
#[ptx_kernel]
fn defined_twice(y: &mut [u32]) {
    const N: u32 = 1;
    const N: u32 = 2;
    {
        const N: u32 = 3;
        y[1] = N;
    }
    y[0] = N;
}

// `const`s that read each other (rustc's E0391, a cycle), one reading itself among them.
#[ptx_kernel]
fn read_each_other(y: &mut [u32]) {
    const A: u32 = B * 2;
    const B: u32 = A + 1;
    const SELF: u32 = SELF + 1;
    y[0] = A + SELF;
}

fn main() {}
