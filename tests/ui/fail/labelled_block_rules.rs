use ptx_dsl::prelude::*;

// Rust's rules for labelled blocks: an unlabelled `break` or `continue` cannot leave one,
// and `continue` names a loop, not a block.
#[ptx_kernel]
fn k(y: &mut [u32], n: u32) {
    for i in 0..n {
        'block: {
            if i == 2 {
                break;
            }
            if i == 3 {
                continue;
            }
            if i == 4 {
                continue 'block;
            }
            y[i as usize] = 1;
        }
    }
}

fn main() {}
