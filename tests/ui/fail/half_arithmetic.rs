use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(h: &mut [f16], out: &mut [f32]) {
    let v = h[0] * 2.0;
    out[0] = if h[1] > h[0] { 1.0 } else { 0.0 };
    h[2] = warp_sum(h[3]);
    h[4] = f16::from_bits(15360);
    h[5] = f16::from_f32(1.0, 2.0);
}

fn main() {}
