// What CUDA C ports write that kernels do not have, with the form they take instead: a
// `char` literal (a byte literal), `size_of` (the number, or a constant around the kernel).
use ptx_dsl::prelude::*;

#[ptx_kernel]
fn ported(out: &mut [u32]) {
    out[0] = 'a' as u32;
    out[1] = std::mem::size_of::<f32>() as u32;
    out[2] = '\u{41}' as u32;
    // Lint levels go on statements, as in Rust, not on an expression inside one.
    out[3] = #[allow(unused_parens)] if out[0] > 1 { 1 } else { 2 };
}

fn main() {}
