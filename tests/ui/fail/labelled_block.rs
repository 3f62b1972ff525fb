use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(y: &mut [u32]) {
    'done: {
        if y[0] > 3 {
            break 'done;
        }
        y[0] = 1;
    }
}

fn main() {}
