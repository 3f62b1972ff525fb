use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &[f32], y: &mut [f32], n: u32) {
    let mut s = 0.0;
    // A `for` loop iterates over a range, a local array or a slice, not a scalar.
    for v in n {
        s += v;
    }
    // Iterator adapters other than `iter`, `copied`, `cloned`, `into_iter`, `enumerate`
    // and `rev` are not supported.
    for v in x.iter().skip(1) {
        s += v;
    }
    y[0] = s;
}

fn main() {}
