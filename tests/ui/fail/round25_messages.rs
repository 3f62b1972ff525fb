use ptx_dsl::prelude::*;

const HEAD_DIM_F: f32 = 128.0;

// One error for a mistyped first argument of `T::method(..)` (the call's type was taken
// from the argument, a second error where it was stored).
#[ptx_kernel]
fn typed_calls(x: &[u32], out: &mut [i64]) {
    out[0] = i64::unbounded_shl(x[0], 3);
    out[1] = i64::midpoint(x[1], 5);
}

// A constant of the surrounding code whose type nothing says: bind it with its type.
#[ptx_kernel]
fn untyped_constant(x: &[f32], out: &mut [f32]) {
    out[0] = HEAD_DIM_F.sqrt() * x[0];
}

// Half values have no literals and no bit operators.
#[ptx_kernel]
fn half_mistakes(h: &mut [f16]) {
    h[0] = h[1] + 1.0;
    h[2] = h[3] ^ h[4];
    let mut acc = f16::ZERO;
    acc += 0.5;
    h[5] = acc;
}


// Half values are not structural (no patterns) and not `Ord`.
#[ptx_kernel]
fn half_patterns(x: &[f16], out: &mut [u32]) {
    out[0] = match x[0] {
        f16::ZERO => 1,
        _ => 0,
    };
    out[1] = std::cmp::max(x[0], x[1]).to_bits() as u32;
}

// Vector accesses take slice parameters, whose index carries the alignment.
#[ptx_kernel]
fn vector_of_range(x: &[f32], out: &mut [f32]) {
    let r = &x[1..];
    let (a, b, c, d) = load4(r, 0);
    out[0] = a + b + c + d;
}

fn main() {}
