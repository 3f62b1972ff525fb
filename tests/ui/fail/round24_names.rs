use ptx_dsl::prelude::*;

// Two kernels whose names give one type name: reported at the second function's name.
#[ptx_kernel]
fn layer_norm2(y: &mut [u32]) {
    y[0] = 1;
}

#[ptx_kernel]
fn layer_norm_2(y: &mut [u32]) {
    y[0] = 2;
}

// `crate = ` a path that is not ptx-dsl: reported at that path.
#[ptx_kernel(crate = ptx_dsl::core)]
fn wrong_crate_path(y: &mut [u32]) {
    y[0] = 1;
}

fn main() {}
