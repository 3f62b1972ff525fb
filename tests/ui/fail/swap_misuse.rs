use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &[f32], out: &mut [f32], j: u32) {
    let i = thread_idx().x as usize;
    // `swap` takes `usize` indices.
    out.swap(i, j);
    // An immutable slice's elements cannot be swapped.
    x.swap(0, i);
}

fn main() {}

// After a tuple that cannot be, its names raise no more errors.
#[ptx_kernel]
fn tuple_of_arrays(out: &mut [u64]) {
    let (first, second) = ([0usize, 2], [1usize, 3]);
    out[0] = (first[1] + second[0]) as u64;
}
