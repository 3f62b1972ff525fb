use ptx_dsl::prelude::*;

// A kernel declares no lifetimes, so a slice parameter's can only be `'static` or `'_`
// (rustc's E0261 for the others).
#[ptx_kernel]
fn lifetimes(x: &'a [f32], y: &'_ mut [f32], z: &'static [f32]) {
    y[0] = x[0] + z[0];
}

// `f32::consts` names the type's (missing) item, not the module `std::f32::consts`:
// rustc's error at the path, as for the same body on the host.
#[ptx_kernel]
fn float_consts(y: &mut [f32]) {
    y[0] = f32::consts::PI;
    y[1] = std::f32::consts::PI + ::core::f32::consts::TAU + core::f32::MAX;
}

mod imported {
    use ptx_dsl::prelude::*;
    use std::f32;

    // With `use std::f32;`, `f32::consts::PI` is the module's constant, as in Rust.
    #[ptx_kernel]
    pub fn fine(y: &mut [f32]) {
        y[0] = f32::consts::PI;
    }
}

fn main() {}
