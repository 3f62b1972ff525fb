use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32])
where
    u32: Copy,
{
    y[0] = 1;
}

#[ptx_device]
fn d(x: f32) -> f32
where
    f32: Copy,
{
    x
}

fn main() {}
