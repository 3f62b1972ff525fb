use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(h: &mut [f16], out: &mut [f32]) {
    let v = h[0] * 2.0;
    out[0] = if h[1] > 0.5 { 1.0 } else { 0.0 };
    h[2] = warp_sum(h[3]);
    h[4] = f16::from_bits(15360);
    h[5] = f16::from_f32(1.0, 2.0);
    h[6] = h[7] & h[8];
    h[9] = h[10] + bf16::ONE;
    out[1] = h[11].sqrt();
}

fn main() {}
