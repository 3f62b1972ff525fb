use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32]) {
    sync_threads(1);
    let b = shfl_xor(x[0] > 3, 1);
    let m = ballot(x[0]);
    let v = shfl_down(x[0], 1u64);
    let s = block_sum(x[0] == 1);
    for i in grid_stride() {
        x[i] = 0;
    }
    gpu_print!("{} and {}", m);
    gpu_print!("{:?}", m);
    gpu_print!(m);
    x[0] = m + v;
}

fn main() {}
