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
        n if n => 5,
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

// What rustc refuses in a pattern whatever the value: a name bound twice (E0416), a range
// that takes no value (E0030, E0579), NaN.
#[ptx_kernel]
fn rustc_pattern_rules(y: &mut [u32], a: u32, f: f32) {
    y[0] = match (a, a) {
        (n, n) => n,
    };
    y[1] = match a {
        5..=1 => 1,
        5..5 => 2,
        ..u32::MIN => 3,
        _ => 4,
    };
    y[2] = match f {
        2.0..1.0 => 1,
        f32::NAN => 2,
        _ => 3,
    };
}

// An exclusive bound at the type's least value, seen once the value's type is known.
#[ptx_kernel]
fn below_the_least(y: &mut [u32], a: u32, b: i8) {
    y[0] = match a {
        ..0 => 1,
        _ => 2,
    };
    y[1] = match b {
        ..-128 => 1,
        ..-127 => 2,
        _ => 3,
    };
}

fn main() {}
