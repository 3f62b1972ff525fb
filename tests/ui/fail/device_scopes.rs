#![allow(dead_code)]
use ptx_dsl::prelude::*;

mod m {
    use ptx_dsl::prelude::*;

    /// Private to `m`: kernels elsewhere cannot call it, as plain Rust cannot.
    #[ptx_device]
    fn private(x: f32) -> f32 {
        x * 2.0
    }
}

#[ptx_kernel]
fn calls_private(x: &mut [f32]) {
    x[0] = m::private(x[0]);
}

fn main() {
    // Device functions that call device functions must be module items: the hidden
    // module beside `outer` cannot see this block's `inner`.
    #[ptx_device]
    fn inner(x: f32) -> f32 {
        x + 1.0
    }

    #[ptx_device]
    fn outer(x: f32) -> f32 {
        inner(x) * 2.0
    }

    #[ptx_kernel]
    fn in_block(x: &mut [f32]) {
        x[0] = outer(x[0]);
    }
}
