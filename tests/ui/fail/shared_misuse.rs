use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32], n: usize) {
    let runtime_sized = shared::<f32, n>();
    let (a, b) = (shared::<f32, 4>(), 1);
    let flags = shared::<bool, 32>();
    let untyped = shared::<f32>();
    let sized = shared_dyn::<f32, 4>();
    let empty = shared::<f32, 0>();
    let huge = shared::<f32, 12_289>();
    let most = shared::<u8, 49_152>();
    x[0] = runtime_sized[0] + a[0];
}

fn main() {}
