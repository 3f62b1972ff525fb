use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    let w = thread_idx().x;
    let (p, (q, p)) = (w, (w + 1, w + 2));
    x[0] = p + q;
}

fn main() {}
