//! What the fourteenth round of probing with fresh code found in the language, each body run
//! as a `#[ptx_kernel]` on the simulator and as plain Rust on the host, compared bit for bit
//! on edge values and fresh random inputs (the `match` findings are in `lang_match.rs`).
// rustc's lint sees a kernel's names: none here may be reported unused (a guarded arm's
// names, read by the body only, were).
#![deny(unused_variables)]

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, Error, LaunchConfig};
use std::cmp::{max, min};

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

// `signum` of a NaN is Rust's `NAN` constant, whatever the NaN's sign and payload: compared
// by the bits, which the float comparison of other tests treats as one NaN.
twin!(signum_bits, signum_bits_host, |i, a: &[f32], out: &mut [u32]| {
    let x = a[i];
    out[3 * i] = x.signum().to_bits();
    let wide = (x as f64).signum().to_bits();
    out[3 * i + 1] = (wide >> 32) as u32;
    out[3 * i + 2] = wide as u32;
});

#[test]
fn signum_of_nan_is_rusts_nan_constant() {
    let mut xs = f32_inputs("signum_bits", 200);
    xs.extend([f32::from_bits(0xffc0_0001), f32::from_bits(0x7f80_0001), f32::from_bits(0xff80_0001), -0.0]);
    let launch = |d: &_, c, a: &_, o: &mut _| SignumBits::new().launch(d, c, a, o);
    check_twin("signum_bits", &xs, 3, &launch, signum_bits_host);
}

// `break` and `continue` in an `#[unroll]` loop, by a condition known only on the GPU and by
// one known while the kernel is built, and a labelled `continue`/`break` of an outer loop
// from inside one. (`twin!` bodies cannot carry `#[unroll]`, which plain Rust refuses: the
// host copy below is the same body without it.)
#[ptx_kernel]
fn unrolled_jumps(a: &[u32], out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < a.len() {
        let x = a[i];
        let mut s = 0u32;
        #[unroll]
        for k in 0..8u32 {
            if (x >> k) & 1 == 0 {
                continue;
            }
            if s > 20 {
                break;
            }
            s += k * 3 + 1;
        }
        out[3 * i] = s;
        let mut t = 0u32;
        'outer: for j in 0..3u32 {
            #[unroll]
            for k in 0..4u32 {
                if k == 2 {
                    continue;
                }
                if (x >> (j * 4 + k)) & 1 == 1 {
                    continue 'outer;
                }
                t += j * 10 + k;
                if t > 40 {
                    break 'outer;
                }
            }
        }
        out[3 * i + 1] = t;
        let mut c = 0u32;
        #[unroll]
        for k in (0..6u32).rev() {
            if k == 1 {
                break;
            }
            c = c * 2 + ((x >> k) & 1);
        }
        out[3 * i + 2] = c;
    }
}

fn unrolled_jumps_host(i: usize, a: &[u32], out: &mut [u32]) {
    let x = a[i];
    let mut s = 0u32;
    for k in 0..8u32 {
        if (x >> k) & 1 == 0 {
            continue;
        }
        if s > 20 {
            break;
        }
        s += k * 3 + 1;
    }
    out[3 * i] = s;
    let mut t = 0u32;
    'outer: for j in 0..3u32 {
        for k in 0..4u32 {
            if k == 2 {
                continue;
            }
            if (x >> (j * 4 + k)) & 1 == 1 {
                continue 'outer;
            }
            t += j * 10 + k;
            if t > 40 {
                break 'outer;
            }
        }
    }
    out[3 * i + 1] = t;
    let mut c = 0u32;
    for k in (0..6u32).rev() {
        if k == 1 {
            break;
        }
        c = c * 2 + ((x >> k) & 1);
    }
    out[3 * i + 2] = c;
}

#[test]
fn break_and_continue_in_unrolled_loops_are_rusts() {
    let mut xs: Vec<u32> = (0..4096).collect();
    xs.extend(u32_inputs("unrolled_jumps", 200));
    let launch = |d: &_, c, a: &_, o: &mut _| UnrolledJumps::new().launch(d, c, a, o);
    check_twin("unrolled_jumps", &xs, 3, &launch, unrolled_jumps_host);
}

/// `swap` with an index past a local array's constant length: no compile error (rustc's
/// `unconditional_panic` covers indexing, not this call), but Rust's panic when it runs, the
/// launch's `OutOfBounds` naming the array.
#[ptx_kernel]
fn swap_past_the_end(out: &mut [u32]) {
    let mut w = [1u32, 2, 3];
    w.swap(0, 5);
    out[0] = w[0];
}

#[test]
fn swap_past_a_constant_length_is_a_launch_fault() {
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(1).expect("allocates");
    let err = SwapPastTheEnd::new().launch(&dev, LaunchConfig::linear(1, 1), &mut out).unwrap_err();
    let Error::OutOfBounds { param, index, len, .. } = &err else { panic!("expected OutOfBounds: {err}") };
    assert_eq!((param.as_str(), *index, *len), ("w", 5, 3), "{err}");
}

// Mutable tuples, as Rust has them: assigned whole (the value read before any element is
// written, `t = (t.1, t.0)`), element by element (`t.0 = ..`, `t.1.0 += ..`), copied by
// `let u = t;` before later changes, started from constants or runtime values.
twin!(mutable_tuples, mutable_tuples_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    // An argmin over the bytes of `x`: (value, position).
    let mut best = (u32::MAX, 0u32);
    for k in 0..4u32 {
        let byte = (x >> (8 * k)) & 0xff;
        if byte < best.0 {
            best = (byte, k);
        }
    }
    out[6 * i] = best.0 * 10 + best.1;
    // Fibonacci steps by whole assignment of a tuple that reads itself.
    let mut f = (0u32, 1u32);
    for _ in 0..(x % 20) {
        f = (f.1, f.0.wrapping_add(f.1));
    }
    out[6 * i + 1] = f.0;
    // A copy keeps the value it had; the original changes by element.
    let mut t = (x, (x >> 3, x % 2 == 0));
    let before = t;
    t.0 = t.0.wrapping_mul(3);
    t.1 .0 += 7;
    t.1 .1 = !t.1 .1;
    out[6 * i + 2] = before.0 ^ t.0;
    out[6 * i + 3] = before.1 .0.wrapping_add(t.1 .0);
    out[6 * i + 4] = (before.1 .1 as u32) * 2 + t.1 .1 as u32;
    // Swapped by a whole assignment, in a loop whose state is a tuple.
    let mut p = (x & 0xffff, x >> 16);
    let mut steps = 0u32;
    while p.1 != 0 && steps < 50 {
        p = (p.1, p.0 % p.1);
        steps += 1;
    }
    out[6 * i + 5] = p.0 * 64 + steps;
});

#[test]
fn mutable_tuples_are_rusts() {
    let xs = u32_inputs("mutable_tuples", 300);
    let launch = |d: &_, c, a: &_, o: &mut _| MutableTuples::new().launch(d, c, a, o);
    check_twin("mutable_tuples", &xs, 6, &launch, mutable_tuples_host);
}

// Loops over `&a` and over reversed iterators, as Rust's: `.rev()` after `.enumerate()`
// keeps each element's index, before it counts positions from the last element.
twin!(reversed_iterators, reversed_iterators_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let w = [x & 0xff, (x >> 8) & 0xff, (x >> 16) & 0xff, x >> 24];
    let mut h = 0u32;
    for v in &w {
        h = h.wrapping_mul(31).wrapping_add(*v);
    }
    out[5 * i] = h;
    let mut r = 0u32;
    for &v in w.iter().rev() {
        r = r * 3 + v;
    }
    out[5 * i + 1] = r;
    let mut s = 0u32;
    for (k, v) in w.iter().enumerate().rev() {
        s = s * 7 + (k as u32 + 1) * v;
    }
    out[5 * i + 2] = s;
    let mut t = 0u32;
    for (k, &v) in w.iter().rev().enumerate() {
        t = t * 5 + (k as u32 + 1) * v;
    }
    out[5 * i + 3] = t;
    let mut c = 0u32;
    for v in [1u32, 2, 3].iter().copied().rev() {
        c = c * 10 + v * (x % 3);
    }
    for v in &[4u32, 5] {
        c = c * 10 + v;
    }
    out[5 * i + 4] = c;
});

#[test]
fn references_and_reversed_iterators_are_rusts() {
    let xs = u32_inputs("reversed_iterators", 300);
    let launch = |d: &_, c, a: &_, o: &mut _| ReversedIterators::new().launch(d, c, a, o);
    check_twin("reversed_iterators", &xs, 5, &launch, reversed_iterators_host);
}

/// Filter taps of the surrounding code, read by methods whose arguments give their type.
const FIR: [f32; 4] = [0.125, -0.5, 0.75, 0.0625];
const WEIGHTS: [f64; 2] = [1.5, -2.25];

// A method called on an element of a constant table takes the table's element type from its
// arguments, as rustc's inference does (`FIR[k].mul_add(x, acc)`), read directly or through
// the loop variable of a loop over the table.
twin!(table_methods, table_methods_host, |i, a: &[f32], out: &mut [f32]| {
    let x = a[i];
    let mut acc = 0.0f32;
    for k in 0..FIR.len() {
        acc = FIR[k].mul_add(x, acc);
    }
    out[3 * i] = acc;
    let mut m = f32::MIN;
    for &t in FIR.iter() {
        m = t.max(x * m.abs().min(1.0));
    }
    out[3 * i + 1] = m;
    let w = (x as f64).mul_add(WEIGHTS[0], WEIGHTS[1]);
    out[3 * i + 2] = WEIGHTS[1].copysign(w) as f32;
});

#[test]
fn methods_on_constant_table_elements_are_rusts() {
    let xs: Vec<f32> = f32_inputs("table_methods", 300).into_iter().filter(|x| x.is_finite()).collect();
    let launch = |d: &_, c, a: &_, o: &mut _| TableMethods::new().launch(d, c, a, o);
    check_twin("table_methods", &xs, 3, &launch, table_methods_host);
}

// `min(a, b)` and `max(a, b)` imported from `std::cmp` by name, as Rust code writes them.
twin!(imported_min_max, imported_min_max_host, |i, a: &[i32], out: &mut [i32]| {
    let x = a[i];
    out[2 * i] = min(x, 7).wrapping_add(max(x / 2, -3));
    out[2 * i + 1] = max(min(x, 100), -100);
});

#[test]
fn imported_min_and_max_are_std_cmps() {
    let xs = i32_inputs("imported_min_max", 300);
    let launch = |d: &_, c, a: &_, o: &mut _| ImportedMinMax::new().launch(d, c, a, o);
    check_twin("imported_min_max", &xs, 2, &launch, imported_min_max_host);
}

// The fifteenth round: byte-literal patterns that cover a `u8` together, a guarded arm whose
// names only its body reads, `.rev().copied()`, `.enumerate()` bound to one name, and
// `std::cmp::max` of two literals typed by their use.
twin!(round15_forms, round15_forms_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let c = x as u8;
    out[5 * i] = match c {
        b'0'..=b'9' => 1,
        b'a'..=b'z' => 2,
        0..b'0' | b':'..b'a' => 3,
        b'{'..=u8::MAX => 4,
    };
    out[5 * i + 1] = match (x % 7, x % 5) {
        (p, q) if p > 3 => q + 10,
        (_, q) => q,
    };
    let w = [x & 7, (x >> 3) & 7, (x >> 6) & 7];
    let mut r = 0u32;
    for v in w.iter().rev().copied() {
        r = r * 8 + v;
    }
    out[5 * i + 2] = r;
    let mut s = 0u32;
    for pair in w.iter().enumerate() {
        s += (pair.0 as u32 + 1) * pair.1;
    }
    out[5 * i + 3] = s;
    out[5 * i + 4] = x % 3 + std::cmp::max(3, 4);
});

#[test]
fn round15_forms_are_rusts() {
    let mut xs = u32_inputs("round15_forms", 300);
    xs.extend(0..256);
    let launch = |d: &_, c, a: &_, o: &mut _| Round15Forms::new().launch(d, c, a, o);
    check_twin("round15_forms", &xs, 5, &launch, round15_forms_host);
}

/// A device function taking a table by value, as a `[f32; 4]`.
#[ptx_device]
fn weighted(taps: [f32; 4], x: f32) -> f32 {
    let mut acc = 0.0f32;
    for &t in taps.iter() {
        acc = t.mul_add(x, acc);
    }
    acc
}

// A constant table of the surrounding code used whole: copied into a local array
// (`let t = FIR;`, whose elements the kernel may then change) and passed to a device function.
twin!(whole_tables, whole_tables_host, |i, a: &[f32], out: &mut [f32]| {
    let x = a[i];
    let mut t: [f32; 4] = FIR;
    t[1] = x;
    out[3 * i] = t[0] + t[1] * t[3];
    out[3 * i + 1] = weighted(FIR, x);
    let w = WEIGHTS;
    out[3 * i + 2] = (w[0] * x as f64 + w[1]) as f32;
});

#[test]
fn constant_tables_used_whole_are_rusts() {
    let xs: Vec<f32> = f32_inputs("whole_tables", 300).into_iter().filter(|x| x.is_finite()).collect();
    let launch = |d: &_, c, a: &_, o: &mut _| WholeTables::new().launch(d, c, a, o);
    check_twin("whole_tables", &xs, 3, &launch, whole_tables_host);
}

/// The better of two (value, index) pairs: the smaller value, the lower index on a tie.
#[ptx_device]
fn better(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    if b.0 < a.0 || (b.0 == a.0 && b.1 < a.1) {
        b
    } else {
        a
    }
}

/// A tuple parameter changed inside the function (`mut`), the caller's value untouched.
#[ptx_device]
fn shifted(mut p: (u32, (u32, bool)), by: u32) -> u32 {
    p.0 += by;
    p.1 .0 = p.1 .0.wrapping_mul(3);
    if p.1 .1 {
        p.0
    } else {
        p.1 .0
    }
}

// Tuples passed to device functions by value, as Rust passes them.
twin!(tuple_arguments, tuple_arguments_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let mut best = (f32::MAX, u32::MAX);
    for k in 0..4u32 {
        let v = ((x >> (8 * k)) & 0xff) as f32;
        best = better(best, (v, k));
    }
    out[3 * i] = best.0 as u32 * 10 + best.1;
    let p = (x % 1000, (x >> 10, x % 2 == 0));
    out[3 * i + 1] = shifted(p, 5);
    out[3 * i + 2] = p.0 + p.1 .0;
});

#[test]
fn tuples_pass_to_device_functions_by_value() {
    let xs: Vec<u32> = u32_inputs("tuple_arguments", 300).into_iter().map(|x| x & 0x3fff_ffff).collect();
    let launch = |d: &_, c, a: &_, o: &mut _| TupleArguments::new().launch(d, c, a, o);
    check_twin("tuple_arguments", &xs, 3, &launch, tuple_arguments_host);
}

/// Bit masks of the surrounding code.
const MASKS: [u32; 3] = [0xff, 0xf0f0, 0x8000_0001];

// `-` and `!` of a table's element, whose type the rest of the expression gives.
twin!(table_unary, table_unary_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    out[2 * i] = (!MASKS[i % 3] & x) ^ MASKS[(i + 1) % 3];
    out[2 * i + 1] = (-FIR[i % 4] * x as f32).to_bits();
});

#[test]
fn unary_operators_on_table_elements_are_rusts() {
    let xs = u32_inputs("table_unary", 300);
    let launch = |d: &_, c, a: &_, o: &mut _| TableUnary::new().launch(d, c, a, o);
    check_twin("table_unary", &xs, 2, &launch, table_unary_host);
}

// A constant table copied into a `let mut` and changed there, the table untouched.
twin!(table_copies, table_copies_host, |i, a: &[f32], out: &mut [f32]| {
    let x = a[i];
    let mut t = FIR;
    t[0] = x;
    t[1] += x * 2.0;
    out[2 * i] = t[0] + t[1] + t[2];
    out[2 * i + 1] = FIR[0] + FIR[1];
});

#[test]
fn constant_table_copies_change_as_rusts() {
    let xs: Vec<f32> = f32_inputs("table_copies", 300).into_iter().filter(|x| x.is_finite()).collect();
    let launch = |d: &_, c, a: &_, o: &mut _| TableCopies::new().launch(d, c, a, o);
    check_twin("table_copies", &xs, 2, &launch, table_copies_host);
}

// Elements a loop borrows, used as Rust uses references: read through `*v`, added and
// compared with other references, bound again, and values over an array by value.
twin!(borrowed_elements, borrowed_elements_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let w = [x & 0xff, (x >> 8) & 0xff, x >> 16];
    let mut s = 0u32;
    for v in w.iter() {
        let again = v;
        s += *again + v;
        if *v > 3 && v == again {
            s ^= 1;
        }
    }
    for v in w {
        s = s.wrapping_mul(3).wrapping_add(v);
    }
    for (k, &v) in w.iter().enumerate() {
        s += v * k as u32;
    }
    out[i] = s;
});

#[test]
fn borrowed_elements_are_rusts_references() {
    let xs = u32_inputs("borrowed_elements", 300);
    let launch = |d: &_, c, a: &_, o: &mut _| BorrowedElements::new().launch(d, c, a, o);
    check_twin("borrowed_elements", &xs, 1, &launch, borrowed_elements_host);
}
