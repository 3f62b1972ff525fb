use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32], n: u32) {
    // Only a `loop` gives a value, as in Rust.
    let mut i = 0u32;
    while i < n {
        break 5u32;
    }
    // Every `break` of one `loop` gives one type; a plain one gives `()`.
    let v = loop {
        if i > 3 {
            break 1u32;
        }
        if i > 5 {
            break;
        }
        break 2.0f32;
    };
    // A `loop` gives scalars or tuples, not a local array.
    let w = loop {
        break [1u32, 2];
    };
    y[0] = v + w[0];
}

// An undeclared label is one error, not more at the loop's uses.
#[ptx_kernel]
fn undeclared(y: &mut [u32]) {
    let v = loop {
        break 'missing 5u32;
    };
    y[0] = v;
}

fn main() {}
