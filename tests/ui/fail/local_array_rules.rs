use ptx_dsl::prelude::*;

#[ptx_device]
fn first(v: f32) -> f32 {
    v
}

#[ptx_device]
fn sum2(a: [u32; 2]) -> u32 {
    a[0] + a[1]
}

// A local array's elements are registers: `usize` indices, arrays of scalars, elements
// assigned only in a `let mut` array, no compound assignment of a whole array.
#[ptx_kernel]
fn rules(y: &mut [f32], n: usize, j: u32) {
    let mut acc = [0.0f32; 4];
    acc[n] = 1.0;
    acc[n as i32] = 2.0;
    let w = [1.0f32, 2.0];
    w[0] = 3.0;
    acc += [1.0; 4];
    y[0] = acc[j];
    let grown = [0.0f32; n];
    let nothing = [];
    let pairs = [(1u32, 2u32)];
    let held = (w, 1u32);
    let picked = if n > 2 { w } else { w };
    y[1] = acc + 1.0;
    y[2] = first(acc);
    atomic_add(&mut acc[0], 1.0);
    let total = acc.iter();
}

// An array's type writes its length as a literal and holds scalars.
#[ptx_kernel]
fn not_parsed(y: &mut [f32], #[comptime] n: usize) {
    let acc = [0.0f32; 4];
    let typed: [f32; n] = acc;
    let pairs: [(u32, u32); 2] = [(1, 2), (3, 4)];
}

// An array's type and its value agree on the length (rustc's E0308).
#[ptx_kernel]
fn lengths(y: &mut [f32]) {
    let three: [f32; 3] = [0.0; 4];
    let two: [u32; 2] = [1, 2, 3];
    y[0] = three[0] + two[0] as f32;
    const TABLE: [f32; 2] = [1.0, 2.0];
    y[1] = TABLE[0];
    y[2] = sum2([1, 2, 3]) as f32;
}

fn main() {}
