use ptx_dsl::prelude::*;

#[ptx_kernel(unchecked, unchecked)]
fn twice(y: &mut [u32]) {
    y[0] = 1;
}

#[ptx_kernel(unchecked = true)]
fn with_value(y: &mut [u32]) {
    y[0] = 1;
}

#[ptx_kernel(unchecked(yes))]
fn with_arguments(y: &mut [u32]) {
    y[0] = 1;
}

#[ptx_kernel(crate)]
fn crate_without_path(y: &mut [u32]) {
    y[0] = 1;
}

#[ptx_kernel(crate = "ptx_dsl")]
fn crate_as_string(y: &mut [u32]) {
    y[0] = 1;
}

#[ptx_kernel(crate = ptx_dsl, crate = ptx_dsl)]
fn crate_twice(y: &mut [u32]) {
    y[0] = 1;
}

#[ptx_kernel(crate = ptx_dsl unchecked)]
fn missing_comma(y: &mut [u32]) {
    y[0] = 1;
}

fn main() {}
