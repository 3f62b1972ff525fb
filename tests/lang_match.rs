//! `match` and `if let` in kernels: each body runs as a `#[ptx_kernel]` on the simulator and
//! as plain Rust on the host, compared bit for bit on edge values and fresh random inputs.
//! The macro rewrites them as `if` chains over the scrutinee, bound once; these check that
//! the chain means what Rust's `match` means: first matching arm wins, guards run after
//! the pattern and see its names, ranges are inclusive or not as written, `|` and tuples.
#![allow(clippy::match_overlapping_arm, clippy::manual_range_patterns, clippy::single_match)]
#![allow(clippy::redundant_guards, clippy::match_like_matches_macro, clippy::collapsible_match)]
#![allow(unreachable_patterns)] // a case of arms never taken

use ptx_dsl::prelude::*;

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

/// A constant of the surrounding code, matched by name as Rust matches a constant.
const LIMIT: u32 = 1000;

twin!(match_integers, match_integers_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    out[4 * i] = match x % 7 {
        0 => 10,
        1 | 2 => 20,
        3..=4 => 30,
        n if n > 5 => n * 100,
        _ => 50,
    };
    out[4 * i + 1] = match x {
        0..10 => x + 1,
        LIMIT => 7,
        u32::MAX => 8,
        big @ 0x8000_0000.. => big >> 4,
        other => other.wrapping_mul(3),
    };
    // The first matching arm wins, even where later ones overlap it.
    out[4 * i + 2] = match (x & 3, x >> 30) {
        (0, _) => 1,
        (_, 0) => 2,
        (1 | 2, hi) if hi > 1 => 3 + hi,
        (lo, hi) => lo * 10 + hi,
    };
    // A `match` as a statement, with arms that store and one that returns early.
    match x & 0xf {
        0 => out[4 * i + 3] = 99,
        1..=7 => {
            out[4 * i + 3] = x ^ 5;
        }
        _ => {}
    }
});

#[test]
fn match_on_integers_and_tuples_is_rusts_match() {
    let mut xs = u32_inputs("match_integers", 300);
    xs.extend([
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        9,
        10,
        999,
        1000,
        1001,
        u32::MAX,
        0x8000_0000,
        0x7fff_ffff,
        0xc000_0001,
    ]);
    let launch = |d: &_, c, a: &_, o: &mut _| MatchIntegers::new().launch(d, c, a, o);
    check_twin("match_integers", &xs, 4, &launch, match_integers_host);
}

twin!(match_signed_and_bool, match_signed_and_bool_host, |i, a: &[i32], out: &mut [i32]| {
    let x = a[i];
    out[3 * i] = match x {
        -1 => 100,
        i32::MIN..=-2 => -7,
        0 => 0,
        1..=9 | 20..=29 => x * 2,
        _ => x / 3,
    };
    out[3 * i + 1] = match x > 0 {
        true => 1,
        false => -1,
    };
    let mut m = 0;
    if let 5..=50 = x % 100 {
        m = 4;
    } else if let -3 = x {
        m = 5;
    }
    let r = if let n @ 100.. = x { n - 100 } else { m };
    out[3 * i + 2] = r;
});

#[test]
fn match_on_signed_integers_and_bools_and_if_let_are_rusts() {
    let mut xs = i32_inputs("match_signed_and_bool", 300);
    xs.extend([-3, -2, -1, 0, 1, 9, 10, 20, 29, 30, 99, 100, 101, 150, i32::MIN, i32::MAX, 5, 50, 51]);
    let launch = |d: &_, c, a: &_, o: &mut _| MatchSignedAndBool::new().launch(d, c, a, o);
    check_twin("match_signed_and_bool", &xs, 3, &launch, match_signed_and_bool_host);
}

twin!(match_floats, match_floats_host, |i, a: &[f32], out: &mut [f32]| {
    let x = a[i];
    // A float pattern compares as `==` does: `0.0` matches -0.0 and no NaN matches.
    out[2 * i] = match x {
        0.0 => 1.0,
        1.0..=2.0 => x * 4.0,
        f32::INFINITY => -1.0,
        _ if x.is_nan() => 7.0,
        y => y - 1.0,
    };
    let mut acc = 0.0f32;
    for k in 0..4u32 {
        acc += match k {
            0 => x,
            1 => x * x,
            _ => 0.5,
        };
    }
    out[2 * i + 1] = acc;
});

#[test]
fn match_on_floats_is_rusts_match() {
    let mut xs = f32_inputs("match_floats", 300);
    xs.extend([0.0, -0.0, 1.0, 1.5, 2.0, 2.5, f32::INFINITY, f32::NEG_INFINITY, f32::NAN]);
    let launch = |d: &_, c, a: &_, o: &mut _| MatchFloats::new().launch(d, c, a, o);
    check_twin("match_floats", &xs, 2, &launch, match_floats_host);
}

twin!(while_let_loops, while_let_loops_host, |i, a: &[u32], out: &mut [u32]| {
    // Collatz steps while the value stays in 2..=9999, at most 300 of them.
    let mut n = a[i] % 10_000;
    let mut steps = 0u32;
    'steps: while let 2..=9999 = n {
        steps += 1;
        if steps == 300 {
            break 'steps;
        }
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        if let 4 | 8 | 16 = n {
            // `continue` tests the pattern again, as in Rust's `while let`.
            continue;
        }
    }
    out[2 * i] = steps * 100_000 + n;
    // A pattern binding names from a tuple, the loop state updated through them.
    let (mut x, mut count) = (a[i] & 0xff, 0u32);
    while let (y @ 1.., c) = (x, count) {
        x = y >> 1;
        count = c + (y & 1);
    }
    out[2 * i + 1] = count;
});

#[test]
fn while_let_loops_are_rusts() {
    let xs = u32_inputs("while_let_loops", 200);
    let launch = |d: &_, c, a: &_, o: &mut _| WhileLetLoops::new().launch(d, c, a, o);
    check_twin("while_let_loops", &xs, 2, &launch, while_let_loops_host);
}

// Thirteen constants of the surrounding code, read by one kernel's patterns: the kernel's
// cache key once printed them as one tuple, which has no `Debug` past twelve elements, so
// the kernel did not compile.
const C0: u32 = 0;
const C1: u32 = 1;
const C2: u32 = 2;
const C3: u32 = 3;
const C4: u32 = 4;
const C5: u32 = 5;
const C6: u32 = 6;
const C7: u32 = 7;
const C8: u32 = 8;
const C9: u32 = 9;
const C10: u32 = 10;
const C11: u32 = 11;
const C12: u32 = 12;

twin!(match_many_constants, match_many_constants_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    out[2 * i] = match x % 16 {
        C0 | C1 | C2 => 100,
        C3..=C4 | C5 => 200,
        C6 | C7 | C8 | C9 => x.wrapping_mul(3),
        C10 | C11 | C12 => 400,
        _ => 500,
    };
    // Arms after one that takes every value are never taken (rustc warns), but they are
    // still checked, as rustc checks them.
    let r = match (x & 3, x >> 31) {
        (0, _) => 1,
        (lo, 1) if lo > 1 => 2,
        _ => 3,
        (1, n) => n + 10,
        (lo, hi) => lo + hi,
    };
    out[2 * i + 1] = r;
});

#[test]
fn a_match_may_read_more_than_twelve_constants_and_unreachable_arms_are_never_taken() {
    let xs = u32_inputs("match_many_constants", 300);
    let launch = |d: &_, c, a: &_, o: &mut _| MatchManyConstants::new().launch(d, c, a, o);
    check_twin("match_many_constants", &xs, 2, &launch, match_many_constants_host);
}

// Destructuring assignment, as Rust defines it: the value first, then each place from left
// to right (`_` skips one).
twin!(destructuring_assignments, destructuring_assignments_host, |i, a: &[u32], out: &mut [u32]| {
    let (mut x, mut y, mut z) = (a[i], a[i] >> 3, 7u32);
    (x, y) = (y, x);
    ((z, _), x) = ((x ^ z, 0u32), x.wrapping_add(y));
    (out[3 * i], (out[3 * i + 1], out[3 * i + 2])) = (x, (y, z));
});

#[test]
fn destructuring_assignments_are_rusts() {
    let xs = u32_inputs("destructuring_assignments", 200);
    let launch = |d: &_, c, a: &_, o: &mut _| DestructuringAssignments::new().launch(d, c, a, o);
    check_twin("destructuring_assignments", &xs, 3, &launch, destructuring_assignments_host);
}

// Tuples compare with `==` and `!=` element by element, as Rust's tuple `PartialEq` does
// (a NaN element makes them unequal), nested tuples included; `assert_eq!` takes them.
twin!(tuple_equality, tuple_equality_host, |i, a: &[f32], out: &mut [u32]| {
    let x = a[i];
    let pair = (x, x > 0.0);
    let same = pair == (x, x > 0.0);
    let nested = ((x as u32, 1u8), (x * 2.0,)) != ((x as u32, 1u8), (x + x,));
    let unit = () == ();
    assert_eq!((x as i32, 7u16), (x as i32, 7u16));
    out[i] = same as u32 | (nested as u32) << 1 | (unit as u32) << 2 | ((pair != (0.5, true)) as u32) << 3;
});

#[test]
fn tuples_compare_as_rusts() {
    let mut xs = f32_inputs("tuple_equality", 200);
    xs.extend([0.5, f32::NAN, -0.0, 0.0]);
    let launch = |d: &_, c, a: &_, o: &mut _| TupleEquality::new().launch(d, c, a, o);
    check_twin("tuple_equality", &xs, 1, &launch, tuple_equality_host);
}

// `matches!` is the `match` it stands for: patterns with `|`, ranges, constants, tuples
// and a guard.
twin!(matches_macro, matches_macro_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let small = matches!(x % 16, 0 | 1 | 2 | C3..=C4);
    let pair = matches!((x & 3, x >> 31), (0, _) | (_, 1));
    let guarded = matches!(x % 10, n if n > 6);
    out[i] = small as u32 + 2 * pair as u32 + 4 * guarded as u32 + 8 * matches!(x, u32::MAX) as u32;
});

#[test]
fn matches_is_rusts() {
    let xs = u32_inputs("matches_macro", 200);
    let launch = |d: &_, c, a: &_, o: &mut _| MatchesMacro::new().launch(d, c, a, o);
    check_twin("matches_macro", &xs, 1, &launch, matches_macro_host);
}

// Tuples order as Rust's `PartialOrd` orders them: by the first elements that differ, a NaN
// there making every ordering false; nested tuples, `bool`s and mixed types.
twin!(tuple_order, tuple_order_host, |i, a: &[f32], out: &mut [u32]| {
    let (x, y) = (a[i], a[(i + 1) % a.len()]);
    let (p, q) = ((x * 4.0) as i32, (y * 4.0) as i32);
    let pair = ((p, x), (q, y));
    let mut bits = 0u32;
    bits |= (pair.0 < pair.1) as u32;
    bits |= ((pair.0 <= pair.1) as u32) << 1;
    bits |= ((pair.0 > pair.1) as u32) << 2;
    bits |= ((pair.0 >= pair.1) as u32) << 3;
    bits |= (((p, (x > 0.0, y)) < (q, (y > 0.0, x))) as u32) << 4;
    bits |= (((p as u8, p) <= (p as u8, q)) as u32) << 5;
    out[i] = bits;
});

#[test]
fn tuple_ordering_is_rusts() {
    let mut xs = f32_inputs("tuple_order", 200);
    xs.extend([0.25, 0.25, 0.3, f32::NAN, 0.25, -0.0, 0.0, f32::NAN, f32::NAN, 1.0]);
    let launch = |d: &_, c, a: &_, o: &mut _| TupleOrder::new().launch(d, c, a, o);
    check_twin("tuple_order", &xs, 1, &launch, tuple_order_host);
}

// Names bound in every case of a `|` pattern take their value from the first case that
// matches, as in Rust, with and without a guard.
twin!(or_bindings, or_bindings_host, |i, a: &[u32], out: &mut [u32]| {
    let (x, y) = (a[i] % 4, a[(i + 1) % a.len()] % 4);
    out[2 * i] = match (x, y) {
        (0, n) | (n, 0) => n + 100,
        (1, m) | (m, 1) if m > 1 => m * 10,
        (p, q) => p + q,
    };
    out[2 * i + 1] = match a[i] {
        n @ (0..=9 | 100..=199) | n @ 1000 => n,
        _ => 7,
    };
});

#[test]
fn or_pattern_bindings_are_rusts() {
    let mut xs = u32_inputs("or_bindings", 200);
    xs.extend([0, 0, 1, 3, 2, 1, 5, 150, 1000, 999]);
    let launch = |d: &_, c, a: &_, o: &mut _| OrBindings::new().launch(d, c, a, o);
    check_twin("or_bindings", &xs, 2, &launch, or_bindings_host);
}

// Matches that no single arm covers but the arms together do, as Rust accepts them: `bool`s
// and tuples of them, integer ranges up to the type's ends (written out or open), `|` and
// a guarded arm that does not count.
twin!(covering_arms, covering_arms_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let (small, even) = (x < 1000, x % 2 == 0);
    out[5 * i] = match (small, even) {
        (true, true) => 1,
        (true, false) => 2,
        (false, true) => 3,
        (false, false) => 4,
    };
    let byte = x as u8;
    out[5 * i + 1] = match byte {
        0 => 10,
        1..=99 => 11,
        100..200 => 12,
        b if b % 3 == 0 => 13,
        200..=u8::MAX => 14,
    };
    let signed = x as i16;
    out[5 * i + 2] = match signed {
        i16::MIN..=-1 => 20,
        0 | 1 => 21,
        2.. => 22,
    };
    out[5 * i + 3] = match (x % 3 == 0, x as i8) {
        (true, ..=-1) | (false, ..=0) => 30,
        (true, 0..) => 31,
        (false, 1..=i8::MAX) => 32,
    };
    out[5 * i + 4] = match x {
        ..=9 => 40,
        10..=0x7fff_ffff => 41,
        0x8000_0000.. => 42,
    };
});

#[test]
fn arms_that_cover_together_are_rusts_match() {
    let mut xs = u32_inputs("covering_arms", 300);
    xs.extend([99, 100, 199, 200, 255, 0xff7f, 0xff80, 0x8000, 0xffff, 0x1_0000, 9, 10, 998, 999, 1000]);
    let launch = |d: &_, c, a: &_, o: &mut _| CoveringArms::new().launch(d, c, a, o);
    check_twin("covering_arms", &xs, 5, &launch, covering_arms_host);
}

// A guard after a `|` pattern is tried for each case that matches, in order, with that
// case's names, as Rust tries it: `(0, 4)` takes the first arm with `n = 4` from the second
// case, after the first case's `n = 0` fails the guard. Also nested in a tuple, under `@`,
// and in `matches!`.
twin!(guarded_cases, guarded_cases_host, |i, a: &[u32], out: &mut [u32]| {
    let (x, y, z) = (a[i] % 8, a[i] / 8 % 8, a[i] / 64 % 4);
    out[4 * i] = match (x, y) {
        (n, _) | (_, n) if n > 3 => n,
        (n, m) if n == m => 50 + n,
        _ => 99,
    };
    out[4 * i + 1] = 1 + matches!((x, y), (n, _) | (_, n) if n > 3) as u32;
    out[4 * i + 2] = match ((x, y), z) {
        ((n, _) | (_, n), 0 | 1) if n % 3 == 2 => n * 10 + z,
        (_, k @ (2 | 3)) if k + x > 6 => 70 + k,
        _ => 98,
    };
    out[4 * i + 3] = match x {
        1 | 2 if y > 1 => 10,
        n @ 3 | n @ 5 if n + y > 6 => n,
        _ => 97,
    };
});

#[test]
fn guards_after_or_patterns_try_each_case() {
    // Every (x, y, z) of the kernel's ranges, then random inputs.
    let mut xs: Vec<u32> = (0..256).collect();
    xs.extend(u32_inputs("guarded_cases", 200));
    let launch = |d: &_, c, a: &_, o: &mut _| GuardedCases::new().launch(d, c, a, o);
    check_twin("guarded_cases", &xs, 4, &launch, guarded_cases_host);
}
