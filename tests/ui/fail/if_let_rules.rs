use ptx_dsl::prelude::*;

// `if let` and `while let` take the patterns `match` takes.
#[ptx_kernel]
fn k(y: &mut [u32], a: u32) {
    if let Some(v) = a {
        y[0] = v;
    }
    while let [b] = [a] {
        y[2] = b;
    }
    let b: u32 = if let 1..=3 = a { 1 };
    y[3] = b;
}

fn main() {}
