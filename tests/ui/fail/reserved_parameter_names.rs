use ptx_dsl::prelude::*;

type Real = f32;

#[ptx_kernel]
fn k(x: &mut [u32], x__len: u64, fault__record: u32) {
    x[0] = x__len as u32 + fault__record;
}

#[ptx_kernel]
fn alias(x: &mut [Real]) {
    x[0] = 1.0;
}

fn main() {}
