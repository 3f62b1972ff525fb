//! What the seventeenth round of probing with fresh code found in the language, each body run
//! as a `#[ptx_kernel]` on the simulator and as plain Rust on the host, compared bit for bit
//! on edge values and fresh random inputs; and kernel attributes that must carry over to the
//! generated code (this file denies the lints they set).
#![deny(unused_variables, deprecated)]

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, Error, LaunchConfig};

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

const SHIFT: u32 = 3;
const SHIFT_U8: u8 = 5;
const SHIFT_I64: i64 = 7;

mod config {
    pub const SHIFT: usize = 11;
    pub const GAIN: [f32; 3] = [0.5, 1.5, -2.0];
    pub const ORDER: [u32; 4] = [3, 0, 2, 1];
}

// A shift by a constant of the surrounding code takes the amount in the constant's own type
// (any integer, as in Rust), by value and in compound assignments to variables and elements.
twin!(shift_by_item_constants, shift_by_item_constants_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    out[4 * i] = (x << SHIFT) ^ (x >> SHIFT_U8) ^ (1u32 << SHIFT_I64);
    out[4 * i + 1] = x >> config::SHIFT;
    let mut v = x;
    v <<= SHIFT_U8;
    v >>= config::SHIFT;
    out[4 * i + 2] = v;
    out[4 * i + 3] = x;
    out[4 * i + 3] >>= SHIFT_I64;
});

#[test]
fn shifts_by_constants_of_the_surrounding_code_are_rusts() {
    let xs = u32_inputs("shift_by_item_constants", 200);
    let launch = |d: &_, c, a: &_, o: &mut _| ShiftByItemConstants::new().launch(d, c, a, o);
    check_twin("shift_by_item_constants", &xs, 4, &launch, shift_by_item_constants_host);
}

// A constant array of the surrounding code named by its path, `config::GAIN[k]`, read as the
// plain name is; and `_ = value;` evaluates the value and drops it.
twin!(tables_by_path, tables_by_path_host, |i, a: &[f32], out: &mut [f32]| {
    let x = a[i];
    let gain: f32 = config::GAIN[i % 3];
    _ = a[i];
    _ = x * 2.0;
    out[2 * i] = gain * x;
    out[2 * i + 1] = config::ORDER[i % 4] as f32 + self::config::GAIN[(i + 1) % 3];
});

#[test]
fn constant_arrays_named_by_their_path_index_as_plain_names_do() {
    let xs = f32_inputs("tables_by_path", 200);
    let launch = |d: &_, c, a: &_, o: &mut _| TablesByPath::new().launch(d, c, a, o);
    check_twin("tables_by_path", &xs, 2, &launch, tables_by_path_host);
}

const LIMIT: u32 = 7;

// A pattern's upper-case name compares with a constant (the body's own `const` or one of the
// surrounding code), as in Rust.
twin!(pattern_constants, pattern_constants_host, |i, a: &[u32], out: &mut [u32]| {
    const SMALL: u32 = 3;
    let x = a[i] % 9;
    out[i] = match x {
        SMALL => 100,
        LIMIT => 200,
        0 | 1 => 300,
        _ => x,
    };
});

#[test]
fn pattern_names_of_constants_compare() {
    let xs = u32_inputs("pattern_constants", 200);
    let launch = |d: &_, c, a: &_, o: &mut _| PatternConstants::new().launch(d, c, a, o);
    check_twin("pattern_constants", &xs, 1, &launch, pattern_constants_host);
}

/// A panic written through the standard library's path, `std::panic!` and `core::assert!`,
/// is Rust's panic, as the bare macros are.
#[ptx_kernel]
fn panics_by_path(out: &mut [u32], n: u32) {
    core::assert!(n != 3, "n is three");
    if n > 5 {
        std::panic!("n is over five");
    }
    out[0] = n;
}

#[test]
fn panic_macros_by_their_std_path_are_panics() {
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(1).unwrap();
    let run = |out: &mut _, n| PanicsByPath::new().launch(&dev, LaunchConfig::for_elements(1, 1), out, n);
    run(&mut out, 2).unwrap();
    assert_eq!(out.to_vec().unwrap(), [2]);
    for (n, want) in [(3, "n is three"), (9, "n is over five")] {
        match run(&mut out, n) {
            Err(Error::KernelPanic { message, .. }) => assert_eq!(message, want),
            other => panic!("n = {n}: expected the kernel's panic, got {other:?}"),
        }
    }
}

// The lint levels a kernel sets, outer or inner, are its body's: with `unused_variables`
// denied in this file, these compile only if the `allow` reaches the body. A deprecated
// kernel's own generated code is no use of it (`deprecated` is denied too).
#[ptx_kernel]
#[allow(unused_variables)]
fn allowed_outside(out: &mut [u32]) {
    let unused = 1u32;
    out[0] = 1;
}

#[ptx_kernel]
fn allowed_inside(out: &mut [u32]) {
    #![allow(unused_variables)]
    let unused = 1u32;
    out[0] = 2;
}

// A parameter's own lint level; a `let`'s `#[expect(..)]` and a tool's attribute; a type by
// the standard library's path.
#[ptx_kernel]
fn parameter_attributes(out: &mut [u32], #[allow(unused_variables)] spare: u32, n: core::primitive::u32) {
    #[expect(unused_variables)]
    let unused = 1u32;
    #[rustfmt::skip]
    let kept = n  +  1;
    out[0] = kept;
}

#[ptx_kernel]
#[deprecated = "a kernel of an older interface"]
#[allow(dead_code)]
fn deprecated_kernel(out: &mut [u32]) {
    out[0] = 3;
}

#[test]
fn kernels_with_lint_attributes_run() {
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(1).unwrap();
    let one = LaunchConfig::for_elements(1, 1);
    AllowedOutside::new().launch(&dev, one, &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [1]);
    AllowedInside::new().launch(&dev, one, &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [2]);
    ParameterAttributes::new().launch(&dev, one, &mut out, 9, 41).unwrap();
    assert_eq!(out.to_vec().unwrap(), [42]);
}

/// A half-precision value bound with its type, as without it (`let v: f16 = h[i];`).
#[ptx_kernel]
fn annotated_halves(h: &mut [f16], b: &mut [bf16]) {
    let v: f16 = h[0];
    let w: bf16 = b[0];
    h[1] = v;
    b[1] = w;
    h[2] = f16::from_f32(v.to_f32() + w.to_f32());
}

#[test]
fn half_values_take_their_type_annotation() {
    use half::{bf16, f16};
    let dev = Device::sim();
    let mut h = dev.upload(&[f16::from_f32(1.5).to_bits(), 0, 0]).unwrap();
    let mut b = dev.upload(&[bf16::from_f32(-0.25).to_bits(), 0]).unwrap();
    AnnotatedHalves::new().launch(&dev, LaunchConfig::for_elements(1, 1), &mut h, &mut b).unwrap();
    let h: Vec<f32> = h.to_vec().unwrap().into_iter().map(|u| f16::from_bits(u).to_f32()).collect();
    let b: Vec<f32> = b.to_vec().unwrap().into_iter().map(|u| bf16::from_bits(u).to_f32()).collect();
    // Copies are exact, and 1.5 - 0.25 is exact in f16.
    assert_eq!(h, [1.5, 1.5, 1.25]);
    assert_eq!(b, [-0.25, -0.25]);
}

/// A slice moved in an arm that never ends (`return`, `break`) is still the parameter's on
/// every path that goes on, as rustc's borrow checker sees it.
#[ptx_kernel]
fn moved_then_left(out: &mut [u32], n: u32) {
    if n == 1 {
        let first = out;
        first[0] = 10;
        return;
    }
    for i in 0..n {
        if i == 2 {
            let moved = out;
            moved[1] = 20;
            break;
        }
        out[2] = i;
    }
}

#[test]
fn a_move_in_an_arm_that_leaves_is_no_move_after_it() {
    let dev = Device::sim();
    for (n, want) in [(1, [10, 0, 0]), (5, [0, 20, 1]), (2, [0, 0, 1])] {
        let mut out = dev.zeroed::<u32>(3).unwrap();
        MovedThenLeft::new().launch(&dev, LaunchConfig::for_elements(1, 1), &mut out, n).unwrap();
        assert_eq!(out.to_vec().unwrap(), want, "n = {n}");
    }
}

mod tables {
    pub const WEIGHTS: [u32; 3] = [4, 5, 6];
}

const MASK: u32 = 0x81;

/// Round 18: a constant table by its path in `len()` and `for` loops; a constant of the
/// surrounding code shifted; `f32::from` of a half value; a tuple of halves annotated.
#[ptx_kernel]
fn paths_and_halves(out: &mut [u32], h: &[f16], a: u32) {
    let mut s = tables::WEIGHTS.len() as u32;
    for w in tables::WEIGHTS {
        s += w;
    }
    for (k, &w) in tables::WEIGHTS.iter().enumerate() {
        s += w * k as u32;
    }
    out[0] = s;
    out[1] = (MASK << 2) + (MASK << a) + (MASK >> 1);
    let (p, q): (f16, f16) = (h[0], h[1]);
    out[2] = (f32::from(p) + f64::from(q) as f32) as u32;
}

#[test]
fn table_paths_shifted_constants_and_half_conversions_are_rusts() {
    use half::f16 as host_f16;
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(3).unwrap();
    let h = dev.upload(&[host_f16::from_f32(2.5).to_bits(), host_f16::from_f32(4.5).to_bits()]).unwrap();
    PathsAndHalves::new().launch(&dev, LaunchConfig::for_elements(1, 1), &mut out, &h, 3).unwrap();
    let s = 3 + (4 + 5 + 6) + (5 + 2 * 6);
    assert_eq!(out.to_vec().unwrap(), [s, (MASK << 2) + (MASK << 3) + (MASK >> 1), 7]);
}

/// An `#[expect(..)]` on a kernel is its body's, fulfilled here (an unused name).
#[ptx_kernel]
#[expect(unused_variables)]
fn expected_lint(out: &mut [u32]) {
    let spare = 1u32;
    out[0] = 5;
}

#[ptx_device]
fn ignores_second(a: u32, #[allow(unused_variables)] b: u32) -> u32 {
    a
}

#[test]
fn lint_levels_on_kernels_and_device_parameters() {
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(1).unwrap();
    ExpectedLint::new().launch(&dev, LaunchConfig::for_elements(1, 1), &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [5]);
    assert_eq!(ignores_second(3, 4), 3);
}

/// `debug_assert!` is built only where the crate building the kernel has debug assertions
/// on, as Rust compiles it out of release builds (its condition too).
#[ptx_kernel]
fn debug_checked(out: &mut [u32], a: u32) {
    debug_assert!(a < 5, "a is five or more");
    out[0] = a;
}

#[test]
fn debug_assertions_follow_the_build_profile() {
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(1).unwrap();
    let result = DebugChecked::new().launch(&dev, LaunchConfig::for_elements(1, 1), &mut out, 7);
    if cfg!(debug_assertions) {
        assert!(
            matches!(&result, Err(Error::KernelPanic { message, .. }) if message == "a is five or more"),
            "{result:?}"
        );
        assert_eq!(out.to_vec().unwrap(), [0]);
    } else {
        result.unwrap();
        assert_eq!(out.to_vec().unwrap(), [7]);
    }
}

#[ptx_device]
fn plus_one(step: u32) -> u32 {
    step + 1
}

/// Round 19, valid Rust the round-18 checks refused: a field named as the atomic's slice
/// (`thread_idx().x` with a slice `x`), `.into_iter()` (a reborrow, no move), a move before
/// a `return` in a nested loop, a device function's parameter named as a constant of the
/// caller's body, `#[expect]` of a lint the kernel's code never raises.
#[ptx_kernel]
#[expect(unused_mut)]
#[allow(non_upper_case_globals)]
fn round19_valid(x: &mut [u32], n: u32) {
    const step: u32 = 10;
    atomic_add(&mut x[0], thread_idx().x + 1);
    let mut total = 0u32;
    for v in x.into_iter() {
        total += v;
    }
    x[1] = total + plus_one(step);
    for _i in 0..n {
        for _j in 0..n {
            let moved = x;
            moved[2] = 7;
            return;
        }
    }
    x[2] = 9;
}

#[test]
fn round19_valid_kernels_run_as_rust() {
    let dev = Device::sim();
    for (n, last) in [(0, 9), (2, 7)] {
        let mut x = dev.zeroed::<u32>(3).unwrap();
        Round19Valid::new().launch(&dev, LaunchConfig::for_elements(1, 1), &mut x, n).unwrap();
        // One thread: x[0] = 1, the total of (1, 0, 0) is 1, plus 11.
        assert_eq!(x.to_vec().unwrap(), [1, 12, last], "n = {n}");
    }
}

mod helpers {
    use ptx_dsl::prelude::*;

    /// A `const fn` device function: usable in the host's constants as well.
    #[ptx_device]
    pub const fn triple(x: u32) -> u32 {
        x * 3
    }
}

const NINE: u32 = helpers::triple(3);

/// Round 20: a device function a `macro_rules!` passes as `$f:path` or `$f:expr` is called
/// as Rust calls it; a `const fn` device function is one.
macro_rules! apply_kernel {
    ($name:ident, $f:path, $g:expr) => {
        #[ptx_kernel]
        fn $name(a: &[u32], out: &mut [u32]) {
            let i = global_idx().x as usize;
            if i < a.len() {
                out[i] = $f(a[i]) + $g(1);
            }
        }
    };
}

apply_kernel!(through_macro, crate::helpers::triple, helpers::triple);

#[test]
fn functions_passed_through_macro_rules_and_const_device_functions() {
    let dev = Device::sim();
    let a = dev.upload(&[1u32, 2, 3]).unwrap();
    let mut out = dev.zeroed::<u32>(3).unwrap();
    ThroughMacro::new().launch(&dev, LaunchConfig::for_elements(3, 32), &a, &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [6, 9, 12]);
    assert_eq!(NINE, 9);
}

/// Round 21 (a differential fuzzer against rustc): what rustc's borrow checker accepts, as
/// the kernel must: a write to a borrowed slice after which the loop never goes round
/// again (`y[1] = ..; break;`), and a use of a moved slice in code that never runs.
#[ptx_kernel]
#[allow(unreachable_code)]
fn borrows_that_end(y: &mut [u32], c: bool) {
    for v in y.iter() {
        if c {
            y[0] = *v + 5;
            return;
        }
        y[1] = *v + 1;
        break;
    }
    let moved = y;
    moved[2] = 3;
    return;
    y[2] = 4;
}

#[test]
fn borrows_and_moves_end_where_rustcs_end() {
    let dev = Device::sim();
    for (c, want) in [(true, [15, 20, 30]), (false, [10, 11, 3])] {
        let mut y = dev.upload(&[10u32, 20, 30]).unwrap();
        BorrowsThatEnd::new().launch(&dev, LaunchConfig::for_elements(1, 1), &mut y, c).unwrap();
        assert_eq!(y.to_vec().unwrap(), want, "c = {c}");
    }
}
