use ptx_dsl::prelude::*;

// A constant array of the surrounding code read as another element type: rustc's error at
// the name, the item's type against the use's.
const TABLE: [u32; 3] = [1, 2, 3];

#[ptx_kernel]
fn table_of_another_type(y: &mut [f32], i: usize) {
    y[0] = TABLE[i] + 1.0;
}

// `break` with a value out of a `while let` (rustc's E0571), `.enumerate()` on an array,
// which is no iterator (E0599), `swap` with one index, and `vec!`.
#[ptx_kernel]
fn loops_and_methods(y: &mut [u32], a: u32) {
    let mut k = a;
    while let 1..=9 = k {
        k += 1;
        if k == 5 {
            break k;
        }
    }
    let acc = [1u32, 2, 3];
    for (i, v) in acc.enumerate() {
        y[i] = v;
    }
    let mut w = [1u32, 2];
    w.swap(0);
    let v = vec![0u32; 4];
    y[0] = k + w[0];
}

// Elements of tuples: of one that is not `mut`, past its end, by name.
#[ptx_kernel]
fn tuple_elements(y: &mut [u32], a: u32) {
    let t = (a, a + 1);
    t.0 = 3;
    let mut u = (a, (a, a));
    u.2 = 1;
    u.1.x = 2;
    y[0] = t.0 + u.0;
}

// More elements than a local array holds; a written-out index past a constant table's end
// (rustc's `unconditional_panic`, as for any array).
#[ptx_kernel]
fn too_big(y: &mut [u32]) {
    let big = [0u32; 2000];
    y[0] = big[0];
}

// Mutable references, and `.rev()` on an array, which is no iterator.
#[ptx_kernel]
fn iterators(y: &mut [u32]) {
    let mut w = [1u32, 2];
    for v in w.iter_mut() {
        y[0] = *v;
    }
    for v in &mut w {
        y[1] = *v;
    }
    for v in w.rev() {
        y[2] = v;
    }
}

// A name bound at two types by the cases of a `|` pattern (rustc's E0308 at the name).
#[ptx_kernel]
fn or_pattern_types(y: &mut [u32], a: u32, b: i32) {
    y[0] = match (a, b) {
        (n, 0) | (0, n) => 1,
        _ => 2,
    };
}

// CUDA C's names, called and read; `min` without its `use` (rustc's error, with the import).
#[ptx_kernel]
fn cuda_names(y: &mut [u32], a: u32) {
    __syncthreads();
    y[0] = threadIdx.x + min(a, 2);
}

#[ptx_kernel]
fn past_the_table(y: &mut [u32]) {
    y[0] = TABLE[5];
}

fn main() {}
