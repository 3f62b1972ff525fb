use ptx_dsl::prelude::*;

// A runtime length for a shared array: one error, that it must be known when built (not
// first a type error whose `as usize` would still fail).
#[ptx_kernel]
fn shared_of_runtime_length(y: &mut [u32], n: u32) {
    let s = shared::<u32, n>();
    s[0] = 1;
    y[0] = s[0];
}

// A comptime `u32` as a shared array's length: the type error says how to convert.
#[ptx_kernel]
fn shared_of_comptime_u32(y: &mut [u32], #[comptime] n: u32) {
    let s = shared::<u32, n>();
    s[0] = 1;
    y[0] = s[0];
}

// A `mut` comptime parameter, then assigned: the `mut` is reported, not the assignment.
#[ptx_kernel]
fn comptime_mut_assigned(y: &mut [u32], #[comptime] mut n: u32) {
    n += 1;
    y[0] = n;
}

// An argument to `thread_idx`: one error, not a type error after it.
#[ptx_kernel]
fn thread_idx_with_argument(y: &mut [u32]) {
    y[0] = thread_idx(0);
}

// `.x()` of a `Dim3`: a field, not a method.
#[ptx_kernel]
fn dim3_field_as_method(y: &mut [u32]) {
    y[0] = thread_idx().x();
}

// An array of arrays, indexed twice.
#[ptx_kernel]
fn array_of_arrays(y: &mut [u32]) {
    let m = [[0u32; 2]; 2];
    y[0] = m[0][1];
}

// `std::mem::swap`: one error saying what to write, none for its `&mut` arguments.
#[ptx_kernel]
fn mem_swap(y: &mut [u32]) {
    let mut a = y[0];
    let mut b = y[1];
    std::mem::swap(&mut a, &mut b);
    y[0] = a + b;
}

// A scalar by `&mut`: one error, none for dereferencing it.
#[ptx_kernel]
fn scalar_by_mut_reference(s: &mut f32, y: &mut [f32]) {
    *s = y[0];
    y[1] = *s;
}

// `pow` on a float, `sqrt` on an integer, `count_ones` on a float: what the other kind has.
#[ptx_kernel]
fn methods_of_the_other_kind(y: &mut [f32], z: &mut [u32]) {
    let x = y[0];
    y[0] = x.pow(2);
    let n = z[0];
    z[0] = n.sqrt();
    z[1] = x.count_ones();
}

// A device function whose last expression ends in `;`.
#[ptx_device]
fn add_discarded(a: u32, b: u32) -> u32 {
    a + b;
}

// `#[cfg]` on statements and `cfg!`: the way to choose by configuration.
#[ptx_kernel]
fn cfg_in_body(y: &mut [u32]) {
    #[cfg(debug_assertions)]
    let a = 1;
    #[cfg(not(debug_assertions))]
    let a = 2;
    y[0] = a;
    if cfg!(debug_assertions) {
        y[1] = 1;
    }
}

// `&Vec<T>`, `&[T; N]` and a type alias as parameters.
type Real = f32;

#[ptx_kernel]
fn collection_parameters(x: &Vec<f32>, w: &mut [f32; 4], y: &mut [Real]) {
    y[0] = x[0] + w[0];
}

// A device function taking `&mut u32`: what to write instead.
#[ptx_device]
fn increment(a: &mut u32) {
    *a += 1;
}

fn main() {}
