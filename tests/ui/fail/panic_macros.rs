use ptx_dsl::prelude::*;

// A panic's message is one plain string literal (the GPU does not format), and the
// assertions take their condition or their two values.
#[ptx_kernel]
fn messages(y: &mut [u32], n: u32) {
    assert!(n > 2, "n is {}", n);
    assert_eq!(n, 3, "{n}");
    panic!("at {}", n);
    unreachable!(n);
}

#[ptx_kernel]
fn arguments(y: &mut [u32], n: u32) {
    assert!();
    assert_eq!(n);
}

// The condition is a `bool` and the compared values have one type, as in Rust.
#[ptx_kernel]
fn types(y: &mut [u32], n: u32) {
    assert!(n);
    assert_ne!(n, 1.5);
    y[0] = n;
}

fn main() {}
