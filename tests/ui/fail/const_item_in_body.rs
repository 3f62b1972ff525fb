use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    // A `const` of the body is fine; its value must be known when the kernel is built.
    const SCALE: u32 = 3;
    const NOW: u32 = thread_idx().x;
    y[0] = SCALE + NOW;
    // Other items are not.
    fn helper() -> u32 {
        1
    }
}

fn main() {}
