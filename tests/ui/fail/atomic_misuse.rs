use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(counts: &[u32], x: &mut [f32], y: &mut [u32]) {
    let mut c = 0u32;
    atomic_add(&mut c, 1);
    atomic_add(&mut counts[0], 1);
    atomic_min(&mut x[0], 1.0);
    atomic_add(y[0], 1);
    atomic_cas(&mut y[1], 1);
    atomic_add(&mut y[2], 1.5);
}

fn main() {}
