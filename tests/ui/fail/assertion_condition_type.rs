use ptx_dsl::prelude::*;

// An assertion's condition that is no `bool` is reported as that, once, at the condition
// (not at the `!` the assertion puts around it).
#[ptx_kernel]
fn conditions(y: &mut [u32], f: f32) {
    assert!(y[0] = 1);
    assert!(f, "a float");
    debug_assert!(());
}

fn main() {}
