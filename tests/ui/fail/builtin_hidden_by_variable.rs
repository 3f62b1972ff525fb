use ptx_dsl::prelude::*;

// A variable named like a built-in function hides it, as in Rust, where calling the
// variable is an error.
#[ptx_kernel]
fn k(y: &mut [u32], sync_threads: u32) {
    sync_threads();
    let thread_idx = 3u32;
    y[0] = thread_idx().x + thread_idx + sync_threads;
}

/// The built-ins stay callable where no variable hides them.
#[ptx_kernel]
fn fine(y: &mut [u32]) {
    {
        let lane_id = 1u32;
        y[1] = lane_id;
    }
    y[0] = thread_idx().x + lane_id();
}

fn main() {}
