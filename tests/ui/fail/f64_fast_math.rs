use ptx_dsl::prelude::*;

// The `fast_*` methods are the hardware's `.approx.f32` instructions: there is no f64 form.
#[ptx_kernel]
fn k(x: &mut [f64]) {
    x[0] = x[0].fast_sin();
}

fn main() {}
