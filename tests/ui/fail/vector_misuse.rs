use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &[f32], y: &mut [f64], h: &[u16], n: u32, bytes: &[u8]) {
    let tile = shared::<f32, 64>();
    let (a, b, c, d) = load4(tile, 0);
    let (p, q, r, s) = load4(y, 0);
    let (e, f, g8, h8, i8, j8, k8, l8) = load8(x, 0);
    store2(x, 0, (1.0, 2.0));
    let (g, j) = load2(x, n);
    store4(y, 0, (1.0, 2.0));
    let z = load2(x[0], 0);
    load4(x);
    let (m, o) = load2(bytes, 0);
}

fn main() {}
