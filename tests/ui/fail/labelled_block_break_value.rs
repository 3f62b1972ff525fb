use ptx_dsl::prelude::*;

// One error for the labeled block, none for the `break`s that leave it.
#[ptx_kernel]
fn k(y: &mut [u32]) {
    let v = 'a: {
        if y[0] > 0 {
            break 'a 1u32;
        }
        2
    };
    'b: {
        loop {
            if y[1] > 2 {
                break 'b;
            }
            y[1] += 1;
        }
    }
    y[0] = v;
}

fn main() {}
