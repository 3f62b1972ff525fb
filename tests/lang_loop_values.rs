//! `loop` as an expression: `break value` leaves it with a value (a scalar or a tuple), from
//! the loop itself or, with a label, from loops nested in it; each body runs as a
//! `#[ptx_kernel]` on the simulator and as plain Rust on the host, compared bit for bit on
//! edge values and fresh random inputs.
use ptx_dsl::prelude::*;

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

// A linear search: the index of the first element below the thread's own, or `u32::MAX`.
twin!(search, search_host, |i, a: &[u32], out: &mut [u32]| {
    let mine = a[i];
    let mut j = 0usize;
    let found = loop {
        if j >= a.len() {
            break u32::MAX;
        }
        if a[j] < mine {
            break j as u32;
        }
        j += 1;
    };
    out[2 * i] = found;
    // A `loop` whose only `break` is plain gives `()`; one in an `if` arm gives its value.
    let mut steps = 0u32;
    loop {
        steps += 1;
        if steps > mine % 5 {
            break;
        }
    }
    out[2 * i + 1] = if mine % 2 == 0 {
        loop {
            break steps * 3;
        }
    } else {
        steps
    };
});

#[test]
fn a_loop_gives_the_value_it_breaks_with() {
    let xs = u32_inputs("search", 100);
    let launch = |d: &_, c, a: &_, o: &mut _| Search::new().launch(d, c, a, o);
    check_twin("search", &xs, 2, &launch, search_host);
}

// Tuples, labelled breaks out of nested `while` and `for` loops, and a value computed
// where the `break` is (read before anything after it runs).
twin!(nested_values, nested_values_host, |i, a: &[f32], out: &mut [f32]| {
    let x = a[i];
    let mut k = 0u32;
    let (steps, last) = 'outer: loop {
        let mut y = x;
        while y.abs() > 1.0 {
            y *= 0.5;
            k += 1;
            if k > 40 {
                break 'outer (k, y);
            }
        }
        for t in 0..3u32 {
            if y.is_nan() {
                break 'outer (100 + t, y);
            }
        }
        break (k, y + 1.0);
    };
    out[2 * i] = steps as f32;
    out[2 * i + 1] = last;
});

#[test]
fn labelled_breaks_give_tuples_from_nested_loops() {
    let mut xs = f32_inputs("nested_values", 100);
    xs.extend([1e30, -1e30, f32::INFINITY, f32::NAN, 0.5, -0.0]);
    let launch = |d: &_, c, a: &_, o: &mut _| NestedValues::new().launch(d, c, a, o);
    check_twin("nested_values", &xs, 2, &launch, nested_values_host);
}

// Labelled blocks: `break 'a value` leaves with a value, the block's tail is its value
// otherwise, and a `break` or `continue` with a label leaves loops around it.
twin!(labelled_blocks, labelled_blocks_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let class = 'classify: {
        if x % 3 == 0 {
            break 'classify 3u32;
        }
        if x % 5 == 0 {
            break 'classify 5;
        }
        x % 7
    };
    let mut total = 0u32;
    'rows: for r in 0..4u32 {
        'row: {
            if (x >> r) & 1 == 0 {
                break 'row;
            }
            if r == 3 && x % 2 == 0 {
                continue 'rows;
            }
            total += r;
        }
        total += 10;
    }
    out[2 * i] = class;
    out[2 * i + 1] = total;
});

#[test]
fn labelled_blocks_are_rusts() {
    let xs = u32_inputs("labelled_blocks", 100);
    let launch = |d: &_, c, a: &_, o: &mut _| LabelledBlocks::new().launch(d, c, a, o);
    check_twin("labelled_blocks", &xs, 2, &launch, labelled_blocks_host);
}

// Labelled blocks that end by leaving: a `break` to themselves, a `loop` that only leaves
// them, `return` after a labelled `break` in a statement, nested and shadowed labels.
twin!(leaving_blocks, leaving_blocks_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let first = 'z: {
        break 'z (x % 9) as usize;
    };
    let second = 'a: {
        let mut k = x % 5;
        loop {
            if k > 3 {
                break 'a k * 10;
            }
            k += 1;
        }
    };
    let third = 'outer: loop {
        'inner: {
            if x % 3 == 1 {
                break 'inner;
            }
            break 'outer 7u32;
        }
        break 40;
    };
    let shadowed = 'a: {
        'c: {
            if x > 10 {
                break 'a 3u32;
            }
            break 'c;
        }
        4
    };
    out[2 * i] = first as u32 + second + third + shadowed;
    'b: {
        if x % 2 == 1 {
            break 'b;
        }
        out[2 * i + 1] = 1;
        return;
    }
    out[2 * i + 1] = 2;
});

#[test]
fn labelled_blocks_that_end_by_leaving_are_rusts() {
    let xs = u32_inputs("leaving_blocks", 100);
    let launch = |d: &_, c, a: &_, o: &mut _| LeavingBlocks::new().launch(d, c, a, o);
    check_twin("leaving_blocks", &xs, 2, &launch, leaving_blocks_host);
}
