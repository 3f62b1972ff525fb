//! Unusual but legal combinations of the kernel language, each body written once and run
//! both as a `#[ptx_kernel]` on the simulator and as plain Rust on the host, compared bit for
//! bit on random inputs plus edge values: nested labelled loops, shadowing across types,
//! narrow integer types, casts at their limits, NaN and signed zeros, short-circuit side
//! effects, ranges ending at a type's maximum, early returns from nested loops.
//!
//! The host runs these bodies in a debug build, where integer overflow panics, so the
//! bodies use the `wrapping_*` methods where a value can overflow; the kernels whose
//! meaning is release-mode wrapping of plain operators have their own host references.

#![allow(
    clippy::precedence,
    clippy::needless_range_loop,
    clippy::unnecessary_cast,
    clippy::nonminimal_bool,
    clippy::bool_comparison
)]

mod common;

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, DeviceBuffer, Error, LaunchConfig};
use std::fmt::Debug;

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

// ---------------------------------------------------------------------------------------
// Control flow

twin!(labelled_nest, labelled_nest_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let mut hits = 0u32;
    let mut trail = 0u32;
    'rows: for r in 0..(x % 7) {
        let mut c = 0u32;
        'cols: while c < 9 {
            c += 1;
            if (c + r) % 3 == 0 {
                continue 'cols;
            }
            let mut k = 0u32;
            loop {
                k += 1;
                if k > c {
                    break;
                }
                if (x >> (k % 32)) & 1 == 1 {
                    continue;
                }
                if k * r > 20 {
                    continue 'rows;
                }
                if hits > x % 40 {
                    break 'rows;
                }
                hits += 1;
            }
            trail = trail.wrapping_mul(31).wrapping_add(c + 100 * r);
        }
    }
    out[2 * i] = hits;
    out[2 * i + 1] = trail;
});

#[test]
fn labelled_breaks_and_continues_across_three_loop_kinds() {
    let xs = u32_inputs("labelled_nest", 300);
    check_twin(
        "labelled_nest",
        &xs,
        2,
        &|d, c, a, o| LabelledNest::new().launch(d, c, a, o),
        labelled_nest_host,
    );
}

twin!(early_return_nest, early_return_nest_host, |i, a: &[i32], out: &mut [i32]| {
    let x = a[i];
    out[2 * i] = -1;
    out[2 * i + 1] = -1;
    for p in 0..8i32 {
        let mut q = p;
        while q < 8 {
            if p * q == x & 31 {
                out[2 * i] = p;
                out[2 * i + 1] = q;
                return;
            }
            q += 1;
        }
    }
    out[2 * i] = x;
});

#[test]
fn an_early_return_from_inside_nested_loops_skips_the_rest() {
    let xs = i32_inputs("early_return_nest", 200);
    check_twin(
        "early_return_nest",
        &xs,
        2,
        &|d, c, a, o| EarlyReturnNest::new().launch(d, c, a, o),
        early_return_nest_host,
    );
}

twin!(returning_arms, returning_arms_host, |i, a: &[i32], out: &mut [i64]| {
    let x = a[i];
    out[3 * i] = 7;
    // A `return` as a value-less arm of an `if` expression and inside a block expression.
    let v = if x % 5 != 0 { x as i64 } else { return };
    out[3 * i] = v;
    let w = {
        if x % 7 == 0 {
            out[3 * i + 1] = -7;
            return;
        }
        v * 3
    };
    out[3 * i + 1] = w;
    out[3 * i + 2] = if w > 0 { w } else { -w };
});

#[test]
fn return_as_an_if_arm_and_inside_a_block_expression() {
    let xs = i32_inputs("returning_arms", 200);
    check_twin(
        "returning_arms",
        &xs,
        3,
        &|d, c, a, o| ReturningArms::new().launch(d, c, a, o),
        returning_arms_host,
    );
}

twin!(shadow_types, shadow_types_host, |i, a: &[i32], out: &mut [f64]| {
    let x = a[i];
    let y = if x > 0 {
        let x = x as f32;
        x * 0.5
    } else {
        let x = -(x as f64);
        x as f32 + 0.25
    };
    let x = x as i64 * 3;
    let x = {
        let x = x - 1;
        x * 2
    };
    let y = y as f64;
    {
        let y = x;
        out[3 * i] = y as f64;
    }
    out[3 * i + 1] = y;
    let x = x > 0;
    let y = if x { y } else { -y };
    out[3 * i + 2] = y;
});

#[test]
fn shadowing_changes_type_inside_branches_and_blocks() {
    let xs = i32_inputs("shadow_types", 200);
    check_twin(
        "shadow_types",
        &xs,
        3,
        &|d, c, a, o| ShadowTypes::new().launch(d, c, a, o),
        shadow_types_host,
    );
}

twin!(side_effects, side_effects_host, |i, a: &[i32], out: &mut [i32]| {
    let x = a[i];
    let mut c = 0;
    let t = {
        c += 1;
        x > 5
    } && {
        c += 10;
        x < 100
    } || {
        c += 100;
        x == -7
    };
    let u = !({
        c += 1000;
        x % 2 == 0
    } || {
        c += 10000;
        false
    });
    let mut n = 0;
    while {
        n += 1;
        n < 5
    } && x > 0
    {
        c += 100000;
    }
    out[4 * i] = c;
    out[4 * i + 1] = t as i32;
    out[4 * i + 2] = u as i32;
    out[4 * i + 3] = n;
});

#[test]
fn short_circuit_operands_with_side_effects_run_only_when_needed() {
    let mut xs = i32_inputs("side_effects", 100);
    xs.extend([-7, 5, 6, 99, 100, 101, 0]);
    check_twin(
        "side_effects",
        &xs,
        4,
        &|d, c, a, o| SideEffects::new().launch(d, c, a, o),
        side_effects_host,
    );
}

twin!(range_edges, range_edges_host, |i, a: &[i32], out: &mut [i32]| {
    let x = a[i];
    let o = 8 * i;
    // Inclusive ranges that end at the type's maximum stop there.
    let mut n = 0;
    let mut last = 0;
    for j in (i32::MAX - (x & 3))..=i32::MAX {
        n += 1;
        last = j;
    }
    out[o] = n;
    out[o + 1] = last;
    let mut s = 0i32;
    for b in (250 + (x & 3) as u8)..=255u8 {
        s += b as i32;
    }
    out[o + 2] = s;
    // A stepped range past the maximum stops at the last value in range.
    let mut m = 0;
    for j in (u32::MAX - (x & 7) as u32..=u32::MAX).step_by(3) {
        m += 1;
        last = (j & 0xff) as i32;
    }
    out[o + 3] = m;
    out[o + 4] = last;
    // The range is evaluated once: changing its end inside the loop does not extend it.
    let mut end = x & 7;
    let mut k = 0;
    for _ in 0..end {
        end += 1;
        k += 1;
    }
    out[o + 5] = k * 100 + end;
    // Empty ranges, a start above the end, signed ranges through zero.
    let mut e = 0;
    for j in (x & 15)..10 {
        e += j;
    }
    for j in -3..=(x % 4) {
        e = e * 3 + j;
    }
    out[o + 6] = e;
    let mut w = 0;
    for j in (i8::MIN..=(x as i8 / 2)).step_by(7) {
        w += j as i32;
    }
    out[o + 7] = w;
});

#[test]
fn ranges_ending_at_the_maximum_and_ranges_evaluated_once() {
    let xs = i32_inputs("range_edges", 120);
    check_twin("range_edges", &xs, 8, &|d, c, a, o| RangeEdges::new().launch(d, c, a, o), range_edges_host);
}

twin!(tuple_ifs, tuple_ifs_host, |i, a: &[i32], out: &mut [f32]| {
    let x = a[i];
    let (p, q, r) = if x > 0 {
        (x as u8, 1.5f32, true)
    } else if x < -5 {
        (0, -(x as f32), false)
    } else {
        (255, f32::NAN, x == 0)
    };
    let (q, p) = (p as f32, q);
    out[3 * i] = q;
    out[3 * i + 1] = p;
    out[3 * i + 2] = if r { p } else { q };
});

#[test]
fn tuple_valued_if_chains_and_swapping_tuple_shadowing() {
    let xs = i32_inputs("tuple_ifs", 100);
    check_twin("tuple_ifs", &xs, 3, &|d, c, a, o| TupleIfs::new().launch(d, c, a, o), tuple_ifs_host);
}

twin!(hash_loop, hash_loop_host, |i, a: &[u32], out: &mut [u16]| {
    // A narrow accumulator over a neighbourhood, with continues on the edges.
    let mut acc: u16 = 0;
    let mut lo = i as isize - 3;
    while lo <= i as isize + 3 {
        lo += 1;
        if lo <= 0 || lo as usize > a.len() {
            continue;
        }
        let v = a[(lo - 1) as usize];
        acc = acc.wrapping_mul(31).wrapping_add(v as u16) ^ (v >> 16) as u16;
    }
    out[i] = acc;
});

#[test]
fn narrow_accumulators_and_isize_neighbour_indices() {
    let xs = u32_inputs("hash_loop", 150);
    check_twin("hash_loop", &xs, 1, &|d, c, a, o| HashLoop::new().launch(d, c, a, o), hash_loop_host);
}

// ---------------------------------------------------------------------------------------
// Narrow integers, bit counts, casts

twin!(narrow_bits, narrow_bits_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let o = 12 * i;
    let (b, s, h, g) = (x as u8, x as i8, x as u16, x as i16);
    out[o] = !b as u32;
    out[o + 1] = !s as u32;
    out[o + 2] = b.leading_zeros() + 100 * b.trailing_zeros() + 10000 * b.count_ones();
    out[o + 3] = s.leading_zeros() + 100 * s.trailing_zeros() + 10000 * s.count_ones();
    out[o + 4] = h.leading_zeros() + 100 * h.trailing_zeros() + 10000 * h.count_ones();
    out[o + 5] = g.leading_zeros() + 100 * g.trailing_zeros() + 10000 * g.count_ones();
    out[o + 6] = s.wrapping_neg() as u32 ^ (g.wrapping_neg() as u32) << 8;
    out[o + 7] = b.wrapping_mul(b) as u32 | (h.wrapping_mul(h) as u32) << 8;
    out[o + 8] = (s.min(-3).max(i8::MIN + 1) as i32 ^ g.clamp(-300, 300) as i32) as u32;
    out[o + 9] = b as i8 as i16 as u16 as i32 as u32 >> 3;
    out[o + 10] = (s.wrapping_sub(100) >> 2) as u32 ^ (b.wrapping_add(200) >> 3) as u32;
    out[o + 11] = (h as i16 > g.wrapping_add(1)) as u32 + 2 * (b as i8 <= s.wrapping_sub(1)) as u32;
});

#[test]
fn narrow_integers_keep_their_width_through_bit_counts_and_complements() {
    let xs = u32_inputs("narrow_bits", 300);
    check_twin("narrow_bits", &xs, 12, &|d, c, a, o| NarrowBits::new().launch(d, c, a, o), narrow_bits_host);
}

twin!(wide_bits, wide_bits_host, |i, a: &[u64], out: &mut [u64]| {
    let x = a[i];
    let y = a[a.len() - 1 - i];
    let o = 10 * i;
    let (s, t) = (x as i64, y as i64);
    out[o] = (x.leading_zeros() + 100 * x.trailing_zeros() + 10000 * x.count_ones()) as u64;
    out[o + 1] = (s.leading_zeros() + 100 * t.trailing_zeros() + 10000 * s.count_ones()) as u64;
    out[o + 2] = (x >> 32) * (y >> 32);
    out[o + 3] = (s >> 63) as u64 ^ (s >> (y % 64)) as u64;
    out[o + 4] = (x << 32 | x >> 32) ^ (x as u32 as u64);
    out[o + 5] = x.min(y).max(7) ^ s.clamp(-5, i64::MAX - 1) as u64;
    out[o + 6] = x.wrapping_sub(y) % (y | 1);
    out[o + 7] = if t != 0 && !(s == i64::MIN && t == -1) { (s / t) as u64 ^ (s % t) as u64 } else { 0 };
    out[o + 8] = (x as i32 as i64 as u64) ^ (x as u16 as i8 as u64);
    out[o + 9] = (u64::from(x as u8) + u64::from(x as u16) * 3).wrapping_add(i64::from(x as i8) as u64)
        + u64::from(x > y);
});

#[test]
fn sixty_four_bit_bit_counts_shifts_and_conversions() {
    let xs = u64_inputs("wide_bits", 200);
    check_twin("wide_bits", &xs, 10, &|d, c, a, o| WideBits::new().launch(d, c, a, o), wide_bits_host);
}

twin!(narrow_division, narrow_division_host, |i, a: &[i32], out: &mut [i32]| {
    let x = a[i];
    let y = a[(i * 7 + 3) % a.len()];
    let o = 10 * i;
    let (p, q) = (x as i8, y as i8);
    if q != 0 && !(p == i8::MIN && q == -1) {
        out[o] = (p / q) as i32;
        out[o + 1] = (p % q) as i32;
    }
    let (p, q) = (x as i16, (y >> 8) as i16);
    if q != 0 && !(p == i16::MIN && q == -1) {
        out[o + 2] = (p / q) as i32;
        out[o + 3] = (p % q) as i32;
    }
    let (p, q) = (x as u8, y as u8 | 1);
    out[o + 4] = (p / q) as i32;
    out[o + 5] = (p % q) as i32;
    let (p, q) = (x as u16, (y >> 4) as u16);
    if q != 0 {
        out[o + 6] = (p / q) as i32 + 7 * (p % q) as i32;
    }
    let (p, q) = (x as u32, y as u32);
    if q != 0 {
        out[o + 7] = (p / q) as i32;
        out[o + 8] = (p % q) as i32;
    }
    let (p, q) = (x as i64 * 65536, y as i64);
    if q != 0 {
        out[o + 9] = ((p / q) ^ (p % q)) as i32;
    }
});

#[test]
fn division_and_remainder_of_every_integer_width() {
    let xs = i32_inputs("narrow_division", 300);
    check_twin(
        "narrow_division",
        &xs,
        10,
        &|d, c, a, o| NarrowDivision::new().launch(d, c, a, o),
        narrow_division_host,
    );
}

twin!(float_to_int, float_to_int_host, |i, a: &[f32], out: &mut [i64]| {
    let x = a[i];
    let o = 10 * i;
    out[o] = x as u8 as i64;
    out[o + 1] = x as i8 as i64;
    out[o + 2] = x as u16 as i64;
    out[o + 3] = x as i16 as i64;
    out[o + 4] = x as u32 as i64;
    out[o + 5] = x as i32 as i64;
    out[o + 6] = x as u64 as i64;
    out[o + 7] = x as i64;
    out[o + 8] = x as usize as i64;
    out[o + 9] = x as isize as i64;
});

#[test]
fn f32_to_every_integer_type_saturates() {
    let xs = f32_inputs("float_to_int", 300);
    check_twin(
        "float_to_int",
        &xs,
        10,
        &|d, c, a, o| FloatToInt::new().launch(d, c, a, o),
        float_to_int_host,
    );
}

twin!(double_to_int, double_to_int_host, |i, a: &[f64], out: &mut [u64]| {
    let x = a[i];
    let o = 8 * i;
    out[o] = x as u8 as u64;
    out[o + 1] = x as i8 as u64;
    out[o + 2] = x as u16 as u64;
    out[o + 3] = x as i16 as u64;
    out[o + 4] = x as u32 as u64;
    out[o + 5] = x as i32 as u64;
    out[o + 6] = x as u64;
    out[o + 7] = x as i64 as u64;
});

#[test]
fn f64_to_every_integer_type_saturates() {
    let xs = f64_inputs("double_to_int", 300);
    check_twin(
        "double_to_int",
        &xs,
        8,
        &|d, c, a, o| DoubleToInt::new().launch(d, c, a, o),
        double_to_int_host,
    );
}

twin!(int_to_float, int_to_float_host, |i, a: &[u64], out: &mut [f64]| {
    let x = a[i];
    let o = 10 * i;
    out[o] = (x as f32) as f64;
    out[o + 1] = ((x as i64) as f32) as f64;
    out[o + 2] = x as f64;
    out[o + 3] = (x as i64) as f64;
    out[o + 4] = ((x as f64) as f32) as f64;
    out[o + 5] = ((x as u32) as f32) as f64;
    out[o + 6] = ((x as i32) as f32) as f64;
    out[o + 7] = (x as i16) as f64 + (x as u8) as f64 * 0.5;
    out[o + 8] = f64::from(x as u32) - f64::from(x as i32);
    out[o + 9] = f64::from(f32::from(x as u16) * f32::from(x as i8));
});

#[test]
fn integers_to_floats_round_once_to_nearest_even() {
    let xs = u64_inputs("int_to_float", 300);
    check_twin(
        "int_to_float",
        &xs,
        10,
        &|d, c, a, o| IntToFloat::new().launch(d, c, a, o),
        int_to_float_host,
    );
}

// ---------------------------------------------------------------------------------------
// Floats and booleans

twin!(nan_logic, nan_logic_host, |i, a: &[f32], out: &mut [u32]| {
    let x = a[i];
    let y = a[(i * 5 + 1) % a.len()];
    let o = 4 * i;
    let mut bits = 0u32;
    bits |= !(x < y) as u32;
    bits |= (!(x <= y) as u32) << 1;
    bits |= (!(x > y) as u32) << 2;
    bits |= (!(x >= y) as u32) << 3;
    bits |= (!(x == y) as u32) << 4;
    bits |= (!(x != y) as u32) << 5;
    bits |= ((x < y || x >= y) as u32) << 6;
    bits |= ((x == 0.0) as u32) << 7;
    bits |= ((x.is_sign_negative() && x == 0.0) as u32) << 8;
    bits |= (if !(x < y) { 1 } else { 0 }) << 9;
    bits |= (if x < y { 0 } else { 1 }) << 10;
    bits |= ((x as i32 == y as i32) as u32) << 11;
    out[o] = bits;
    // Loops whose condition is a negated comparison stop on NaN as Rust does.
    let mut v = x;
    let mut n = 0u32;
    while !(v >= 1000.0) && n < 20 {
        v = v * 2.0 + 1.0;
        n += 1;
    }
    out[o + 1] = n;
    let mut m = 0u32;
    if !(x > 0.0) {
        m += 1;
    } else if !(y > 0.0) {
        m += 2;
    }
    out[o + 2] = m;
    out[o + 3] = (x.max(y) == x) as u32 + 2 * (x.min(y) == y) as u32 + 4 * x.clamp(-1.0, 1.0).is_nan() as u32;
});

#[test]
fn negated_float_comparisons_are_true_for_nan() {
    let xs = f32_inputs("nan_logic", 200);
    check_twin("nan_logic", &xs, 4, &|d, c, a, o| NanLogic::new().launch(d, c, a, o), nan_logic_host);
}

twin!(float_mix, float_mix_host, |i, a: &[f32], out: &mut [f32]| {
    let x = a[i];
    let y = a[(i * 3 + 2) % a.len()];
    let o = 12 * i;
    out[o] = x.max(y).min(x);
    out[o + 1] = x.clamp(-1.0, y.abs().max(0.0));
    out[o + 2] = x.signum() * y.copysign(x);
    out[o + 3] = (x * y).mul_add(x, -y);
    out[o + 4] = x.floor() - x.ceil();
    out[o + 5] = (-x).round() + x.round_ties_even();
    out[o + 6] = x.trunc().copysign(-0.0);
    out[o + 7] = x.powi(0) + y.powi(7) - x.powi(-3);
    out[o + 8] = x * y + x;
    out[o + 9] = (x as f64 * 1e40) as f32 + (y as f64 / 3.0) as f32;
    out[o + 10] = x.fract().abs().sqrt() - y.recip();
    out[o + 11] = -(-x) * 1.0 - 0.0;
});

#[test]
fn float_method_chains_match_bit_for_bit() {
    let xs = f32_inputs("float_mix", 300);
    check_twin("float_mix", &xs, 12, &|d, c, a, o| FloatMix::new().launch(d, c, a, o), float_mix_host);
}

twin!(double_mix, double_mix_host, |i, a: &[f64], out: &mut [f64]| {
    let x = a[i];
    let y = a[(i * 3 + 2) % a.len()];
    let o = 10 * i;
    out[o] = x.max(y).min(x);
    out[o + 1] = x.clamp(-1.0, y.abs().max(0.0));
    out[o + 2] = x.signum() * y.copysign(x);
    out[o + 3] = x.mul_add(y, -x) + x % y;
    out[o + 4] = x.floor() - x.ceil() + x.fract();
    out[o + 5] = (-x).round() + x.round_ties_even() + x.trunc();
    out[o + 6] = x.powi(2) + y.powi(-1) + x.powi(i as i32 % 9 - 4);
    out[o + 7] = (x as f32) as f64 - x;
    out[o + 8] = x.sqrt() + y.recip() + x.to_degrees();
    out[o + 9] = -x;
});

#[test]
fn f64_method_chains_match_bit_for_bit() {
    let xs = f64_inputs("double_mix", 300);
    check_twin("double_mix", &xs, 10, &|d, c, a, o| DoubleMix::new().launch(d, c, a, o), double_mix_host);
}

twin!(bool_algebra, bool_algebra_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let p = x & 1 == 1;
    let q = x & 2 != 0;
    let r = x > 1000;
    let mut bits = (p & q) as u32;
    bits |= ((p | r) as u32) << 1;
    bits |= ((p ^ q ^ r) as u32) << 2;
    bits |= ((!p == q) as u32) << 3;
    bits |= ((p < q) as u32) << 4;
    bits |= ((p >= r) as u32) << 5;
    bits |= ((p != r) as u32) << 6;
    bits |= ((p as u8 + q as u8 + r as u8) as u32) << 7;
    bits |= (u32::from(p) * 3) << 10;
    let mut m = p;
    m &= q;
    m |= r;
    m ^= true;
    bits |= (m as u32) << 12;
    let sel = if p == q { r } else { !r };
    bits |= (sel as u32) << 13;
    out[i] = bits;
});

#[test]
fn booleans_combine_compare_and_assign_like_rust() {
    let xs = u32_inputs("bool_algebra", 100);
    check_twin(
        "bool_algebra",
        &xs,
        1,
        &|d, c, a, o| BoolAlgebra::new().launch(d, c, a, o),
        bool_algebra_host,
    );
}

// ---------------------------------------------------------------------------------------
// Plain operators that wrap (release-mode meaning), against `wrapping_*` host references

/// Operators on narrow types whose results leave the type: the kernel must wrap to the
/// type's width, and shifts mask the amount to it (`u8 << 9` is `u8 << 1`).
#[ptx_kernel]
fn narrow_wrap(a: &[u32], out: &mut [u32]) {
    let i = global_idx().x as usize;
    if i < a.len() {
        let x = a[i];
        let k = x >> 24;
        let o = 12 * i;
        let (b, s, h, g) = (x as u8, x as i8, x as u16, x as i16);
        out[o] = (b << k) as u32 ^ ((s >> k) as u32) << 8;
        out[o + 1] = (h << k) as u32 ^ ((g >> k) as u32) << 16;
        out[o + 2] = (b + 200) as u32 | ((s * 3) as u8 as u32) << 8 | ((h * h) as u32) << 16;
        out[o + 3] = g.abs() as u32 ^ (s.abs() as u32) << 16;
        out[o + 4] = (-s) as u32 ^ ((-g) as u32) << 3;
        out[o + 5] = b.pow(3) as u32 | (s.pow(k % 9) as u8 as u32) << 8 | (g.pow(5) as u16 as u32) << 16;
        out[o + 6] = x + 0xffff_0000;
        out[o + 7] = (x as i32 * 3) as u32 ^ (g - 30000) as u32;
        out[o + 8] = 1u32 << (k as i32 - 100) ^ (x >> -(k as i64));
        out[o + 9] = (b as i8 - 100) as u32 ^ (h as i16 + 20000) as u32;
        let mut c = b;
        c += 250;
        c <<= k;
        c *= 7;
        let mut d = s;
        d -= 100;
        d >>= k;
        d *= d;
        out[o + 10] = c as u32 | (d as u8 as u32) << 8;
        out[o + 11] = (h << 4 >> 4) as u32 | ((g << 4 >> 4) as u32) << 16;
    }
}

fn narrow_wrap_host(x: u32) -> [u32; 12] {
    let k = x >> 24;
    let (b, s, h, g) = (x as u8, x as i8, x as u16, x as i16);
    let mut c = b.wrapping_add(250);
    c = c.wrapping_shl(k);
    c = c.wrapping_mul(7);
    let mut d = s.wrapping_sub(100);
    d = d.wrapping_shr(k);
    d = d.wrapping_mul(d);
    [
        b.wrapping_shl(k) as u32 ^ (s.wrapping_shr(k) as u32) << 8,
        h.wrapping_shl(k) as u32 ^ (g.wrapping_shr(k) as u32) << 16,
        b.wrapping_add(200) as u32 | (s.wrapping_mul(3) as u8 as u32) << 8 | (h.wrapping_mul(h) as u32) << 16,
        g.wrapping_abs() as u32 ^ (s.wrapping_abs() as u32) << 16,
        s.wrapping_neg() as u32 ^ (g.wrapping_neg() as u32).wrapping_shl(3),
        b.wrapping_pow(3) as u32
            | (s.wrapping_pow(k % 9) as u8 as u32) << 8
            | (g.wrapping_pow(5) as u16 as u32) << 16,
        x.wrapping_add(0xffff_0000),
        (x as i32).wrapping_mul(3) as u32 ^ g.wrapping_sub(30000) as u32,
        1u32.wrapping_shl((k as i32).wrapping_sub(100) as u32)
            ^ x.wrapping_shr((k as i64).wrapping_neg() as u32),
        (b as i8).wrapping_sub(100) as u32 ^ (h as i16).wrapping_add(20000) as u32,
        c as u32 | (d as u8 as u32) << 8,
        (h.wrapping_shl(4) >> 4) as u32 | ((g.wrapping_shl(4) >> 4) as u32) << 16,
    ]
}

#[test]
fn narrow_operators_wrap_to_their_width_and_mask_their_shifts() -> ptx_dsl::runtime::Result<()> {
    let xs = u32_inputs("narrow_wrap", 400);
    let dev = Device::sim();
    let mut out: DeviceBuffer<u32> = dev.zeroed(12 * xs.len())?;
    NarrowWrap::new().launch(&dev, LaunchConfig::for_elements(xs.len(), 64), &dev.upload(&xs)?, &mut out)?;
    for (x, got) in xs.iter().zip(out.to_vec()?.chunks(12)) {
        assert_eq!(got, narrow_wrap_host(*x), "x = {x:#x}");
    }
    Ok(())
}

/// Compound assignment on elements of narrow, 64-bit and float slices.
#[ptx_kernel]
fn compound_slices(a: &[u32], b: &mut [u8], c: &mut [i16], w: &mut [u64], f: &mut [f64]) {
    let i = global_idx().x as usize;
    if i < a.len() {
        let x = a[i];
        b[i] += x as u8;
        b[i] *= 3;
        b[i] <<= x % 11;
        c[i] -= x as i16;
        c[i] >>= x % 5;
        c[i] ^= -1;
        w[i] += x as u64;
        w[i] <<= x % 70;
        w[i] %= 1_000_000_007;
        f[i] += x as f64;
        f[i] *= -0.5;
        f[i] %= 7.25;
        f[i] -= f[i];
    }
}

#[test]
fn compound_assignment_on_slice_elements_of_every_width() -> ptx_dsl::runtime::Result<()> {
    let xs = u32_inputs("compound_slices", 200);
    let n = xs.len();
    let b0: Vec<u8> = (0..n).map(|k| (k * 37) as u8).collect();
    let c0: Vec<i16> = (0..n).map(|k| (k as i16).wrapping_mul(-1234)).collect();
    let w0: Vec<u64> = (0..n).map(|k| (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
    let f0: Vec<f64> = (0..n).map(|k| k as f64 * 1.5 - 40.0).collect();
    let dev = Device::sim();
    let (mut b, mut c) = (dev.upload(&b0)?, dev.upload(&c0)?);
    let (mut w, mut f) = (dev.upload(&w0)?, dev.upload(&f0)?);
    let launch = LaunchConfig::for_elements(n, 64);
    CompoundSlices::new().launch(&dev, launch, &dev.upload(&xs)?, &mut b, &mut c, &mut w, &mut f)?;
    let (b, c, w, f) = (b.to_vec()?, c.to_vec()?, w.to_vec()?, f.to_vec()?);
    for i in 0..n {
        let x = xs[i];
        let wb = b0[i].wrapping_add(x as u8).wrapping_mul(3).wrapping_shl(x % 11);
        let wc = !(c0[i].wrapping_sub(x as i16).wrapping_shr(x % 5));
        let ww = w0[i].wrapping_add(x as u64).wrapping_shl(x % 70) % 1_000_000_007;
        let mut wf = (f0[i] + x as f64) * -0.5 % 7.25;
        wf -= wf;
        assert_eq!((b[i], c[i], w[i]), (wb, wc, ww), "x = {x}");
        assert!(ptx_tools::ulp::same_bits(f[i], wf), "x = {x}: {} vs {wf}", f[i]);
    }
    Ok(())
}

/// Comptime values folded while the kernel is built: overflowing operators and shifts past
/// the width wrap as at run time, without panicking in the (debug) host build.
#[ptx_kernel]
fn comptime_wrap(out: &mut [u32], #[comptime] s: u32, #[comptime] m: i32, #[comptime] b: u8) {
    out[0] = 1u32 << s;
    out[1] = (m * m) as u32;
    out[2] = (m + i32::MAX) as u32;
    out[3] = (b + 250) as u32;
    out[4] = -m as u32;
    out[5] = (b << s) as u32 ^ (m >> s) as u32;
    out[6] = m.abs() as u32 ^ (b as i8).pow(s) as u32;
    out[7] = (m as i16 * 3) as u32;
}

fn comptime_wrap_host(s: u32, m: i32, b: u8) -> [u32; 8] {
    [
        1u32.wrapping_shl(s),
        m.wrapping_mul(m) as u32,
        m.wrapping_add(i32::MAX) as u32,
        b.wrapping_add(250) as u32,
        m.wrapping_neg() as u32,
        b.wrapping_shl(s) as u32 ^ m.wrapping_shr(s) as u32,
        m.wrapping_abs() as u32 ^ (b as i8).wrapping_pow(s) as u32,
        (m as i16).wrapping_mul(3) as u32,
    ]
}

#[test]
fn comptime_folds_wrap_like_run_time_operators() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    for (s, m, b) in [(0, 5, 1), (31, -7, 200), (32, 100_000, 255), (40, i32::MIN, 128), (100, i32::MAX, 6)] {
        let mut out: DeviceBuffer<u32> = dev.zeroed(8)?;
        ComptimeWrap::new(s, m, b).launch(&dev, LaunchConfig::linear(1, 1), &mut out)?;
        assert_eq!(out.to_vec()?, comptime_wrap_host(s, m, b), "s = {s}, m = {m}, b = {b}");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Run-time errors

#[ptx_kernel]
fn faults(a: &[i64], d: &[i8], out: &mut [i64], k: usize) {
    let i = global_idx().x as usize;
    if i < a.len() {
        let q = d[i];
        let r = (a[i] as i8 / q) as i64 + a[i] % (q as i64);
        out[i + k] = r;
    }
}

/// The launch of `faults` on one thread with `a[0] = x`, `d[0] = q` and index offset `k`.
fn run_faults(x: i64, q: i8, k: usize) -> ptx_dsl::runtime::Result<Vec<i64>> {
    let dev = Device::sim();
    let mut out: DeviceBuffer<i64> = dev.zeroed(2)?;
    Faults::new().launch(
        &dev,
        LaunchConfig::linear(1, 32),
        &dev.upload(&[x])?,
        &dev.upload(&[q])?,
        &mut out,
        k,
    )?;
    out.to_vec()
}

#[test]
fn narrow_division_faults_and_out_of_range_stores_name_kernel_and_line() {
    assert_eq!(run_faults(-100, 7, 1).unwrap(), [0, -14 + -2]);
    let line = |needle: &str| {
        let src = include_str!("lang_round2.rs");
        let start = src.find("fn faults(").unwrap();
        1 + src[..start].lines().count() + src[start..].lines().position(|l| l.contains(needle)).unwrap()
    };
    let div_line = format!("lang_round2.rs:{}:", line("as i8 / q"));
    for (x, q, message) in [(5, 0, "divide by zero"), (-128, -1, "overflow"), (1 << 40, 0, "divide by zero")]
    {
        match run_faults(x, q, 0) {
            Err(Error::KernelPanic { kernel, message: m, location }) => {
                assert_eq!(kernel, "faults");
                assert!(m.contains(message), "{m}");
                assert!(location.contains(&div_line), "{location} is not {div_line}");
            }
            other => panic!("x = {x}, q = {q}: expected a kernel panic, got {other:?}"),
        }
    }
    match run_faults(1, 1, 5) {
        Err(Error::OutOfBounds { kernel, param, index, len, location }) => {
            assert_eq!((kernel.as_str(), param.as_str(), index, len), ("faults", "out", 5, 2));
            assert!(location.contains(&format!("lang_round2.rs:{}:", line("out[i + k]"))), "{location}");
        }
        other => panic!("expected out of bounds, got {other:?}"),
    }
}

/// A spin loop that never ends.
#[ptx_kernel]
fn spin(flag: &[u32], out: &mut [u32]) {
    let mut n = 0u32;
    while flag[0] == 0 {
        n = n.wrapping_add(1);
    }
    out[0] = n;
}

#[test]
fn an_endless_loop_stops_at_the_step_budget_with_an_error() {
    let dev = Device::sim_with_step_budget(100_000);
    let flag = dev.upload(&[0u32]).unwrap();
    let mut out: DeviceBuffer<u32> = dev.zeroed(1).unwrap();
    let err = Spin::new().launch(&dev, LaunchConfig::linear(1, 1), &flag, &mut out).unwrap_err();
    assert!(err.to_string().contains("spin"), "{err}");
}

#[ptx_kernel]
fn bad_clamp(x: &[i32], out: &mut [i32]) {
    let i = global_idx().x as usize;
    if i < x.len() {
        out[i] = x[i].clamp(x[0], x[1]);
    }
}

#[test]
fn clamp_with_crossed_bounds_from_buffers_is_a_kernel_panic() {
    let dev = Device::sim();
    let x = dev.upload(&[5, 1, 3]).unwrap();
    let mut out: DeviceBuffer<i32> = dev.zeroed(3).unwrap();
    let err = BadClamp::new().launch(&dev, LaunchConfig::linear(1, 3), &x, &mut out).unwrap_err();
    let Error::KernelPanic { kernel, location, .. } = &err else { panic!("expected a kernel panic: {err}") };
    assert_eq!(kernel, "bad_clamp");
    assert!(location.contains("lang_round2.rs"), "{location}");
}

// ---------------------------------------------------------------------------------------
// Signatures Rust allows

/// `mut` scalar parameters, a unit return type, raw identifiers, a `'static` slice, nested
/// tuple patterns and literals typed by where they go.
#[ptx_kernel]
fn signatures(mut n: u32, r#type: i32, x: &'static [u64], out: &mut [u64]) -> () {
    n += 1;
    n *= 3;
    let r#loop = r#type - 1;
    let (a, (b, c)) = (1u64, (n as u64, r#loop as u64));
    let t: (u64, f32) = (4, 5.5);
    let ((d, _), e) = ((a, b), t.1);
    out[0] = a + b + c + d + e as u64;
    out[1] = 1 << 63;
    let big = 3_000_000_000;
    out[2] = big;
    out[3] = x[0] | x.len() as u64;
    let mut m = 0;
    while n > 10 {
        n -= 10;
        m += 1;
    }
    out[4] = m * 100 + n as u64;
}

#[test]
fn mut_parameters_unit_returns_and_raw_identifiers_mean_what_rust_says() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x = dev.upload(&[0x100u64, 7])?;
    for (n, ty) in [(0u32, 0i32), (41, -5), (u32::MAX, i32::MIN)] {
        let mut out: DeviceBuffer<u64> = dev.zeroed(5)?;
        Signatures::new().launch(&dev, LaunchConfig::linear(1, 1), n, ty, &x, &mut out)?;
        let n1 = n.wrapping_add(1).wrapping_mul(3);
        let want0 = 1u64.wrapping_add(n1 as u64).wrapping_add(ty.wrapping_sub(1) as u64).wrapping_add(1 + 5);
        let (mut left, mut loops) = (n1, 0u64);
        while left > 10 {
            left -= 10;
            loops += 1;
        }
        assert_eq!(
            out.to_vec()?,
            [want0, 1 << 63, 3_000_000_000, 0x102, loops * 100 + left as u64],
            "n = {n}"
        );
    }
    Ok(())
}

#[ptx_kernel]
fn no_parameters() {
    let i = thread_idx().x;
    let _ = i + 1;
}

#[test]
fn a_kernel_without_parameters_launches() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    NoParameters::new().launch(&dev, LaunchConfig::linear(2, 32))?;
    assert!(NoParameters::new().ptx().contains(".entry no_parameters"));
    Ok(())
}

/// Parameters named like the generated code's own bindings (`x_len` beside `x`, `__k`,
/// `device`, `config`) stay the user's.
#[ptx_kernel]
fn colliding_names(x: &[u32], x_len: u32, __k: u32, device: u32, config: u32, out: &mut [u32]) {
    let i = global_idx().x as usize;
    if i < x.len() {
        out[i] = x[i] + x_len * 1000 + __k * 100 + device * 10 + config + x.len() as u32 * 10000;
    }
}

#[test]
fn parameters_named_like_generated_bindings_keep_their_values() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x = dev.upload(&[1u32, 2, 3])?;
    let mut out: DeviceBuffer<u32> = dev.zeroed(3)?;
    CollidingNames::new().launch(&dev, LaunchConfig::linear(1, 32), &x, 7, 5, 3, 2, &mut out)?;
    assert_eq!(out.to_vec()?, [37533, 37534, 37535]);
    Ok(())
}

/// `gpu_print!` of narrow and 64-bit integers at their limits and of booleans.
#[ptx_kernel]
fn print_narrow(a: &[i64]) {
    let t = thread_idx().x as usize;
    let v = a[t];
    gpu_print!(
        "{} {} {} {} {} {} {} {}",
        v as i8,
        v as u8,
        v as i16,
        v as u16,
        v as i32,
        v as u32,
        v,
        v as u64
    );
    gpu_print!("{} {} {}", v < 0, v as usize, v as isize);
}

#[test]
fn gpu_print_shows_narrow_and_wide_integers_as_rust_does() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let xs = [-1i64, i64::MIN, i64::MAX, -128, 255, 0x1_8000_8080, -32769];
    let report =
        PrintNarrow::new().launch(&dev, LaunchConfig::linear(1, xs.len() as u32), &dev.upload(&xs)?)?;
    let mut want = String::new();
    for v in xs {
        want += &format!(
            "{} {} {} {} {} {} {} {}\n",
            v as i8, v as u8, v as i16, v as u16, v as i32, v as u32, v, v as u64
        );
    }
    for v in xs {
        want += &format!("{} {} {}\n", v < 0, v as usize, v as isize);
    }
    let mut got: Vec<&str> = report.printed.lines().collect();
    let mut lines: Vec<&str> = want.lines().collect();
    got.sort_unstable();
    lines.sort_unstable();
    assert_eq!(got, lines);
    Ok(())
}

/// A `return` inside an unrolled loop, and constants through `std::f32::consts` paths.
#[ptx_kernel]
fn unrolled_return(x: &[f32], out: &mut [f32]) {
    let i = global_idx().x as usize;
    if i >= x.len() {
        return;
    }
    out[i] = std::f32::consts::PI;
    #[unroll]
    for j in 0..4u32 {
        if x[i] < j as f32 {
            out[i] = core::f32::consts::E * j as f32;
            return;
        }
    }
    out[i] = -x[i];
}

#[test]
fn a_return_inside_an_unrolled_loop_leaves_the_kernel() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let xs = [-1.0f32, 0.5, 1.5, 2.0, 3.5, 9.0, f32::NAN];
    let mut out: DeviceBuffer<f32> = dev.zeroed(xs.len())?;
    UnrolledReturn::new().launch(&dev, LaunchConfig::linear(1, 32), &dev.upload(&xs)?, &mut out)?;
    let want: Vec<f32> = xs
        .iter()
        .map(|&x| match (0..4u32).find(|&j| x < j as f32) {
            Some(j) => std::f32::consts::E * j as f32,
            None => -x,
        })
        .collect();
    let got = out.to_vec()?;
    assert!(got.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits()), "{got:?} vs {want:?}");
    Ok(())
}

/// `if` values picked without a branch (arms of variables, negations and complements) on
/// narrow types: the picked negation or complement still wraps to the type's width.
#[ptx_kernel]
fn narrow_picks(a: &[u32], out: &mut [i32]) {
    let i = global_idx().x as usize;
    if i < a.len() {
        let x = a[i];
        let c = x & 0x100 != 0;
        let (b, s, h, g) = (x as u8, x as i8, x as u16, x as i16);
        let o = 8 * i;
        let pb = if c { !b } else { b };
        let ps = if c { -s } else { !s };
        let ph = if c { !h } else { h };
        let pg = if c { -g } else { !g };
        out[o] = pb as i32;
        out[o + 1] = ps as i32;
        out[o + 2] = ph as i32;
        out[o + 3] = pg as i32;
        out[o + 4] =
            (pb > 200) as i32 + 2 * (ps < -100) as i32 + 4 * (ph > 60000) as i32 + 8 * (pg < 0) as i32;
        let (q, r) = if c { (-s, !b) } else { (!s, -(b as i8) as u8) };
        out[o + 5] = q as i32 * 1000 + r as i32;
        out[o + 6] = (ps as f32 + pg as f32) as i32;
        out[o + 7] = (pb as u64 + ph as u64 * 256) as i32;
    }
}

fn narrow_picks_host(x: u32) -> [i32; 8] {
    let c = x & 0x100 != 0;
    let (b, s, h, g) = (x as u8, x as i8, x as u16, x as i16);
    let pb = if c { !b } else { b };
    let ps = if c { s.wrapping_neg() } else { !s };
    let ph = if c { !h } else { h };
    let pg = if c { g.wrapping_neg() } else { !g };
    let (q, r) = if c { (s.wrapping_neg(), !b) } else { (!s, (b as i8).wrapping_neg() as u8) };
    [
        pb as i32,
        ps as i32,
        ph as i32,
        pg as i32,
        (pb > 200) as i32 + 2 * (ps < -100) as i32 + 4 * (ph > 60000) as i32 + 8 * (pg < 0) as i32,
        q as i32 * 1000 + r as i32,
        (ps as f32 + pg as f32) as i32,
        (pb as u64 + ph as u64 * 256) as i32,
    ]
}

#[test]
fn picked_negations_and_complements_of_narrow_values_wrap() -> ptx_dsl::runtime::Result<()> {
    let mut xs = u32_inputs("narrow_picks", 300);
    xs.extend([0x80, 0x180, 0x8000, 0x18000, 0x1ff, 0xff, 0x100, 0x17f]);
    let dev = Device::sim();
    let mut out: DeviceBuffer<i32> = dev.zeroed(8 * xs.len())?;
    NarrowPicks::new().launch(&dev, LaunchConfig::for_elements(xs.len(), 64), &dev.upload(&xs)?, &mut out)?;
    for (x, got) in xs.iter().zip(out.to_vec()?.chunks(8)) {
        assert_eq!(got, narrow_picks_host(*x), "x = {x:#x}");
    }
    Ok(())
}

/// A negative narrow index is out of range, reported with its negative value.
#[ptx_kernel]
fn signed_narrow_index(x: &[f32], k: &[i8], out: &mut [f32]) {
    let i = global_idx().x as usize;
    if i < k.len() {
        out[i] = x[k[i]];
    }
}

#[test]
fn a_negative_i8_index_is_reported_as_negative() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x = dev.upload(&[1.0f32, 2.0, 3.0])?;
    let mut out: DeviceBuffer<f32> = dev.zeroed(3)?;
    let launch = LaunchConfig::linear(1, 32);
    SignedNarrowIndex::new().launch(&dev, launch, &x, &dev.upload(&[2i8, 0, 1])?, &mut out)?;
    assert_eq!(out.to_vec()?, [3.0, 1.0, 2.0]);
    let err = SignedNarrowIndex::new()
        .launch(&dev, launch, &x, &dev.upload(&[0i8, -128, 1])?, &mut out)
        .unwrap_err();
    let Error::OutOfBounds { kernel, param, index, len, .. } = &err else {
        panic!("expected OutOfBounds: {err}")
    };
    assert_eq!(
        (kernel.as_str(), param.as_str(), *index, *len),
        ("signed_narrow_index", "x", -128, 3),
        "{err}"
    );
    Ok(())
}

#[ptx_kernel]
fn copy_first(x: &[f32], out: &mut [f32]) {
    out[0] = x[0];
}

#[test]
fn bad_launch_shapes_and_empty_buffers_are_errors_not_panics() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let empty = dev.upload::<f32>(&[])?;
    let mut out: DeviceBuffer<f32> = dev.zeroed(1)?;
    let err = CopyFirst::new().launch(&dev, LaunchConfig::linear(1, 1), &empty, &mut out).unwrap_err();
    let Error::OutOfBounds { param, index, len, .. } = &err else { panic!("expected OutOfBounds: {err}") };
    assert_eq!((param.as_str(), *index, *len), ("x", 0, 0), "{err}");
    let x = dev.upload(&[4.0f32])?;
    for config in [LaunchConfig::linear(1, 0), LaunchConfig::linear(0, 32), LaunchConfig::linear(1, 2048)] {
        let err = CopyFirst::new().launch(&dev, config, &x, &mut out).unwrap_err();
        assert!(err.to_string().contains("config") || err.to_string().contains("block"), "{config:?}: {err}");
    }
    CopyFirst::new().launch(&dev, LaunchConfig::linear(1, 1), &x, &mut out)?;
    assert_eq!(out.to_vec()?, [4.0]);
    Ok(())
}

/// Guards that look like bounds proofs but are one short: each access must stay checked.
#[ptx_kernel]
fn almost_proven(x: &[u32], out: &mut [u32], which: u32) {
    let n = x.len();
    let mut s = 0u32;
    if which == 0 {
        for j in 0..=n {
            s += x[j];
        }
    } else if which == 1 {
        for j in (0..n + 1).step_by(2) {
            s += x[j];
        }
    } else if which == 2 {
        let i = n;
        if i <= x.len() {
            s += x[i];
        }
    } else if which == 3 {
        let i = n;
        if i > x.len() {
            return;
        }
        s += x[i];
    } else {
        let i = n;
        if i < x.len() || which == 4 {
            s += x[i];
        }
    }
    out[0] = s;
}

#[test]
fn guards_one_past_the_end_keep_their_bounds_checks() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x = dev.upload(&[1u32, 2, 3, 4])?;
    let mut out: DeviceBuffer<u32> = dev.zeroed(1)?;
    for which in 0..5 {
        let err =
            AlmostProven::new().launch(&dev, LaunchConfig::linear(1, 1), &x, &mut out, which).unwrap_err();
        let Error::OutOfBounds { param, index, len, .. } = &err else {
            panic!("{which}: expected OutOfBounds: {err}")
        };
        assert_eq!((param.as_str(), *index, *len), ("x", 4, 4), "{which}: {err}");
    }
    Ok(())
}
