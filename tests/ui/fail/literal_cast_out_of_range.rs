use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32], f: &mut [f32]) {
    // As in Rust, a literal cast to a type of its kind has that type.
    x[0] = -1 as u32;
    x[1] = 300 as u8 as u32;
    f[0] = 1e40 as f32;
    x[2] = 4_000_000_000 as i64 as u32;
}

fn main() {}
