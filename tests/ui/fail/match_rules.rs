use ptx_dsl::prelude::*;

// A `match` whose arms do not cover every value (rustc's E0004): a guarded arm does not
// count, a constant's value is rustc's to know, a float needs a `_`.
const TOP: u8 = 255;

#[ptx_kernel]
fn not_exhaustive(y: &mut [u32], a: u32, f: f32) {
    y[0] = match a {
        0 => 1,
        1..=5 => 2,
        n if n > 5 => 3,
    };
    y[1] = match a > 3 {
        true => 1,
    };
    y[2] = match (a > 1, a > 2) {
        (true, _) => 1,
        (false, true) => 2,
    };
    y[3] = match a as i8 {
        i8::MIN..=-2 => 1,
        0.. => 2,
    };
    y[4] = match a as u8 {
        0..=254 => 1,
        TOP => 2,
    };
    y[5] = match f {
        0.0 => 1,
        1.0.. => 2,
        ..0.0 => 3,
    };
    y[6] = match a {
        n if n > 0 => 1,
        n if n == 0 => 2,
    };
}

// Patterns the language has no values for, and names bound in one case of a `|`.
#[ptx_kernel]
fn unsupported_patterns(y: &mut [u32], a: u32) {
    y[0] = match a {
        Some(v) => v,
        _ => 0,
    };
    y[1] = match (a, a) {
        (0, ..) => 1,
        _ => 2,
    };
    y[2] = match a {
        1 | n => n,
        _ => 0,
    };
    y[3] = match a {
        &b => b,
    };
}

// A pattern of another type than the value's, reported at the pattern (rustc's E0308).
#[ptx_kernel]
fn pattern_types(y: &mut [u32], a: u32, f: f32) {
    y[0] = match a {
        -1 => 1,
        _ => 2,
    };
    y[1] = match f {
        1 => 1,
        _ => 2,
    };
    y[2] = match a {
        0 => 1.0,
        _ => 2,
    };
}

fn main() {}
