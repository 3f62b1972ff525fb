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

/// `relu`, as a device function.
#[ptx_device]
fn act(x: f32) -> f32 {
    x.max(0.0)
}

fn shadowed() {
    // A plain function of the device function's name, in a block: plain Rust's `act` here.
    // The kernel would inline the device function; a signature that differs is an error.
    fn act(x: u32) -> u32 {
        x * 2
    }

    #[ptx_kernel]
    fn uses_act(x: &mut [f32]) {
        x[0] = act(x[0]);
    }
    let _ = act(1);
}

fn main() {
    shadowed();
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
