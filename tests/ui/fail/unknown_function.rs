use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [f32]) {
    x[0] = helper(x[0]);
}

#[ptx_kernel]
fn prelude_macro_names(x: &mut [u32]) {
    x[0] = line(x[0]);
    x[1] = vec(3);
    gpu_print("no");
}

#[ptx_kernel]
fn library_paths(x: &mut [u32]) {
    x[1] = LIMIT;
    x[0] = std::hint::black_box(x[2]);
    ptx_dsl::gpu::sync_threads();
}

fn main() {}
