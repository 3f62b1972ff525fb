use ptx_dsl::prelude::*;

// Arms after one that takes every value are never taken, but rustc still checks them: their
// patterns, guards and values.
#[ptx_kernel]
fn unreachable_arms(y: &mut [u32], a: u32) {
    y[0] = match a {
        0 => 1,
        _ => 2,
        1.5 => 3,
        4 if undefined => 4,
        5 => 2.0,
    };
}

// A tuple pattern has as many elements as the value it matches (rustc's E0308).
#[ptx_kernel]
fn tuple_shapes(y: &mut [u32], a: u32) {
    y[0] = match a {
        (0, 1) => 1,
        _ => 2,
    };
    y[1] = match (a, a, a) {
        (0, _) => 1,
        _ => 2,
    };
    y[2] = match (a, a) {
        (0, 1, 2) => 1,
        _ => 2,
    };
    y[3] = match a {
        (_, _) => 1,
    };
}

fn main() {}
