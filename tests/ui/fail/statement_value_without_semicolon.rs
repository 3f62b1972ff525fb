use ptx_dsl::prelude::*;

// A block-like statement without `;` that is not the block's last gives `()`, as in Rust:
// one with a value needs the `;` that discards it.
#[ptx_kernel]
fn k(out: &mut [u32], x: u32) {
    let i = thread_idx().x as usize;
    if x > 1 { 1u32 } else { 2u32 }
    loop {
        break x;
    }
    'a: {
        break 'a 5u32;
    }
    match x {
        0 => 1u32,
        _ => 2,
    }
    out[i] = 1;
}

fn main() {}
