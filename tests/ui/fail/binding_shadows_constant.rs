// A binding named like a constant or unit struct of the surrounding code: rustc refuses it
// in the plain function (E0005, E0530), and the kernel is refused at the name with rustc's
// own E0530, without errors about the generated code.
use ptx_dsl::prelude::*;

const M: u32 = 7;
const N: u32 = 3;
struct Marker;

#[ptx_kernel]
fn let_binding(y: &mut [u32], v: u32) {
    let M = v;
    y[0] = M;
}

#[ptx_kernel]
fn mut_and_tuple(y: &mut [u32], v: u32) {
    y[1] = M;
    let (mut M, a) = (v, 1u32);
    M += a;
    y[0] = M;
}

#[ptx_kernel]
fn loop_variable(y: &mut [u32]) {
    let mut s = 0;
    for N in 0..4u32 {
        s += N;
    }
    y[0] = s;
}

#[ptx_kernel]
fn unit_struct(y: &mut [u32], v: u32) {
    let Marker = v;
    y[0] = 1;
}

#[ptx_kernel]
fn parameter(y: &mut [u32], N: u32) {
    y[0] = N;
}

fn main() {
    let _ = Marker;
}
