use ptx_dsl::prelude::*;

// `if let` takes the patterns `match` takes; `while let` is not supported.
#[ptx_kernel]
fn k(y: &mut [u32], a: u32) {
    if let Some(v) = a {
        y[0] = v;
    }
    while let 4 = a {
        y[2] = 2;
    }
    let b: u32 = if let 1..=3 = a { 1 };
    y[3] = b;
}

fn main() {}
