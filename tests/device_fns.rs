//! `#[ptx_device]` functions: kernels that call them compute what the same bodies compute
//! as plain Rust (bit for bit, on edge values and fresh random inputs), through module
//! paths, nested calls, `mut` parameters, tuple results and comptime arguments; their
//! statements keep their own source lines in the PTX and in runtime errors.

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, Error, LaunchConfig};

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

#[path = "common/device_helpers.rs"]
mod device_helpers;

/// A 32-bit mix: multiply, then fold the high bits down.
#[ptx_device]
fn mix(x: u32, k: u32) -> u32 {
    let y = x.wrapping_mul(k);
    y ^ (y >> 15)
}

/// Quotient and remainder (`b` must not be 0).
#[ptx_device]
fn div_rem(a: u32, b: u32) -> (u32, u32) {
    (a / b, a % b)
}

/// Steps of the Collatz map from `n` until 1, at most 40: a loop over a `mut` parameter.
#[ptx_device]
fn collatz_steps(mut n: u32) -> u32 {
    let mut steps = 0;
    while n > 1 && steps < 40 {
        n = if n.is_multiple_of(2) { n / 2 } else { n.wrapping_mul(3).wrapping_add(1) };
        steps += 1;
    }
    steps
}

/// `a − b`, wrapping, with `b` narrowed to 16 bits.
#[ptx_device]
fn minus(a: u32, b: u16) -> u32 {
    a.wrapping_sub(b as u32)
}

/// The body's value gets the return type: `1 << 40` is a `u64` here, as in Rust.
#[ptx_device]
fn big() -> u64 {
    1 << 40
}

mod helpers {
    use ptx_dsl::prelude::*;

    /// Calls another device function; names its locals as its callers do.
    #[ptx_device]
    pub fn hash2(x: u32, y: u32) -> u32 {
        let i = super::mix(x, 0x9e37_79b9);
        super::mix(i ^ y, 0x85eb_ca6b)
    }
}

twin!(integer_helpers, integer_helpers_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    // The kernel's own `y` and `i` are not the device functions' locals of the same names.
    let y = x >> 3;
    out[6 * i] = mix(x, 0x2545_f491);
    out[6 * i + 1] = helpers::hash2(x, y) ^ y;
    let (q, r) = div_rem(x, (y & 7) + 1);
    out[6 * i + 2] = q.wrapping_add(r << 16);
    out[6 * i + 3] = collatz_steps(x & 0xffff);
    out[6 * i + 4] = ((big() >> 20) as u32).wrapping_add(mix(mix(x, 3), 5));
    // A call in the right side of `&&` runs only when the left side holds.
    // Arguments named like the other parameter, of the other type: in `minus(b, a)`, the
    // argument `a` is the kernel's `u16`, not the device function's new `a: u32`.
    let (a, b) = (x as u16, y.wrapping_mul(7));
    out[6 * i + 5] = if x > 1000 && collatz_steps(x) > 20 { minus(b, a) } else { minus(x, a) };
});

#[test]
fn integer_device_functions_match_the_host() {
    let xs = u32_inputs("device_integers", 300);
    check_twin(
        "integer_helpers",
        &xs,
        6,
        &|d, c, a, o| IntegerHelpers::new().launch(d, c, a, o),
        integer_helpers_host,
    );
}

/// Linear interpolation with one rounding.
#[ptx_device]
fn lerp(a: f32, b: f32, t: f32) -> f32 {
    t.mul_add(b - a, a)
}

/// The fraction of a turn, in [-0.5, 0.5].
#[ptx_device]
fn fraction(x: f32) -> f32 {
    x - x.round_ties_even()
}

/// Sorted pair.
#[ptx_device]
fn min_max(a: f32, b: f32) -> (f32, f32) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

twin!(float_helpers, float_helpers_host, |i, a: &[f32], out: &mut [f32]| {
    let x = a[i];
    let t = fraction(x * 0.37);
    out[4 * i] = lerp(x, 2.5, t);
    let (lo, hi) = min_max(x, t);
    out[4 * i + 1] = lo;
    out[4 * i + 2] = hi;
    // A literal argument is a comptime value: `fraction(1.75)` folds to -0.25.
    out[4 * i + 3] = lerp(fraction(1.75), x, 0.5);
});

#[test]
fn float_device_functions_match_the_host() {
    let xs = f32_inputs("device_floats", 300);
    check_twin(
        "float_helpers",
        &xs,
        4,
        &|d, c, a, o| FloatHelpers::new().launch(d, c, a, o),
        float_helpers_host,
    );
}

/// `a / b`: a fault in a checked kernel when `b` is 0, reported at this line.
#[ptx_device]
fn ratio(a: u32, b: u32) -> u32 {
    a / b
}

#[ptx_kernel]
fn ratios(a: &[u32], b: &[u32], out: &mut [u32]) {
    let i = thread_idx().x as usize;
    if i < a.len() && i < b.len() && i < out.len() {
        out[i] = ratio(a[i], b[i]);
    }
}

/// The 1-based line of the first line of this file holding `text`.
fn line_of(text: &str) -> u32 {
    let source = include_str!("device_fns.rs");
    let at =
        source.lines().position(|l| l.contains(text)).unwrap_or_else(|| panic!("`{text}` not in the source"));
    at as u32 + 1
}

#[test]
fn device_statements_keep_their_own_lines() {
    let ptx = Ratios::new().ptx();
    let line = line_of("    a / b");
    assert!(ptx.contains("\t// a / b\n"), "the device function's statement is not a comment:\n{ptx}");
    assert!(ptx.contains(&format!(".loc 1 {line} 5\n")), "no `.loc` for line {line}:\n{ptx}");

    let dev = Device::sim();
    let a = dev.upload(&[10u32, 20, 30]).unwrap();
    let b = dev.upload(&[2u32, 0, 3]).unwrap();
    let mut out = dev.upload(&[0u32; 3]).unwrap();
    let err = Ratios::new().launch(&dev, LaunchConfig::for_elements(3, 32), &a, &b, &mut out).unwrap_err();
    let Error::KernelPanic { kernel, location, .. } = &err else {
        panic!("expected a KernelPanic, got {err:?}")
    };
    assert_eq!(kernel, "ratios");
    assert_eq!(location, &format!("{}:{line}:5", file!()), "{err}");
}

/// A device function with no value: it prints, from the thread that calls it.
#[ptx_device]
fn report(thread: u32, value: u32) {
    gpu_print!("thread {} has {}", thread, value);
}

/// The calling thread's lane in its warp: built-ins work inside device functions.
#[ptx_device]
fn lane() -> u32 {
    thread_idx().x % 32
}

#[ptx_kernel]
fn reports(x: &[u32]) {
    let i = thread_idx().x;
    if (i as usize) < x.len() {
        report(i, x[i] + lane());
    }
}

#[test]
fn device_functions_without_a_value_are_statements() {
    let dev = Device::sim();
    let xs = [5u32, 7, 11, 13];
    let x = dev.upload(&xs).unwrap();
    let report = Reports::new().launch(&dev, LaunchConfig::for_elements(4, 32), &x).unwrap();
    let mut got: Vec<&str> = report.printed.lines().collect();
    got.sort();
    let want: Vec<String> = (0..4).map(|i| format!("thread {i} has {}", xs[i] + i as u32)).collect();
    assert_eq!(got, want);
}

/// The wrapping sum of `x[from..to]`.
#[ptx_device]
#[allow(clippy::needless_range_loop)] // kernels index; they have no iterators
fn sum_range(x: &[u32], from: usize, to: usize) -> u32 {
    let mut acc = 0u32;
    for j in from..to {
        acc = acc.wrapping_add(x[j]);
    }
    acc
}

/// Writes `v` and `v ^ 1` at `out[i]` and `out[i + 1]`.
#[ptx_device]
fn store_pair(out: &mut [u32], i: usize, v: u32) {
    out[i] = v;
    out[i + 1] = v ^ 1;
}

/// The number of elements of `x` after `i`: reads the length through the parameter.
#[ptx_device]
fn remaining(x: &[u32], i: usize) -> usize {
    x.len() - i - 1
}

twin!(slice_helpers, slice_helpers_host, |i, a: &[u32], out: &mut [u32]| {
    let s = sum_range(a, i, (i + 4).min(a.len()));
    store_pair(out, 3 * i, s);
    out[3 * i + 2] = remaining(a, i) as u32;
});

#[test]
fn device_functions_take_slices() {
    let xs = u32_inputs("device_slices", 200);
    check_twin(
        "slice_helpers",
        &xs,
        3,
        &|d, c, a, o| SliceHelpers::new().launch(d, c, a, o),
        slice_helpers_host,
    );
}

/// The sum of four `f32`s from `x[i]` on, in one 16-byte load.
#[ptx_device]
fn sum4(x: &[f32], i: usize) -> f32 {
    let (a, b, c, d) = load4(x, i);
    (a + b) + (c + d)
}

/// Unchecked: the length of `x` is passed because a device function reads it.
#[ptx_kernel(unchecked)]
fn sums_of_four(x: &[f32], out: &mut [f32]) {
    let i = thread_idx().x as usize;
    if 4 * i + 3 < x.len() && i < out.len() {
        out[i] = sum4(x, 4 * i);
    }
}

#[test]
fn vector_accesses_and_lengths_through_device_functions() {
    let dev = Device::sim();
    let xs: Vec<f32> = (0..32).map(|k| k as f32 * 1.5 - 7.0).collect();
    let x = dev.upload(&xs).unwrap();
    let mut out = dev.upload(&[0.0f32; 8]).unwrap();
    // SAFETY: every index is guarded by the lengths, and `i` is a multiple of 4.
    unsafe { SumsOfFour::new().launch(&dev, LaunchConfig::for_elements(8, 32), &x, &mut out).unwrap() };
    let want: Vec<f32> = (0..8).map(|i| sum4(&xs, 4 * i)).collect();
    assert_eq!(out.to_vec().unwrap(), want);
    assert!(SumsOfFour::new().ptx().contains("ld.global.v4.f32"), "sum4's load4 is not one vector load");
}

/// `x[i]`: out of range, a checked kernel's error names the kernel's slice and this line.
#[ptx_device]
fn element(x: &[u32], i: usize) -> u32 {
    x[i] // the access out of range
}

#[ptx_kernel]
fn shifted(a: &[u32], out: &mut [u32]) {
    let i = thread_idx().x as usize;
    if i < out.len() {
        out[i] = element(a, i + 1);
    }
}

#[test]
fn bounds_errors_in_device_functions_name_the_kernels_slice_and_the_line() {
    let dev = Device::sim();
    let a = dev.upload(&[1u32, 2, 3, 4]).unwrap();
    let mut out = dev.upload(&[0u32; 4]).unwrap();
    let err = Shifted::new().launch(&dev, LaunchConfig::for_elements(4, 32), &a, &mut out).unwrap_err();
    let Error::OutOfBounds { kernel, param, index, len, location } = &err else {
        panic!("expected OutOfBounds, got {err:?}")
    };
    assert_eq!((kernel.as_str(), param.as_str(), *index, *len), ("shifted", "a", 4, 4), "{err}");
    assert_eq!(location, &format!("{}:{}:5", file!(), line_of("x[i] // the access out of range")), "{err}");
}

/// Unchecked, reading lengths only through aliases: the device function's parameter and a
/// `let` of the kernel's own. Their slices' lengths are passed all the same.
#[ptx_kernel(unchecked)]
fn remaining_counts(a: &[u32], out: &mut [u32]) {
    let o = out;
    let i = thread_idx().x as usize;
    if i < remaining(a, 0) + 1 && i < o.len() {
        o[i] = remaining(a, i) as u32;
    }
}

#[test]
fn lengths_read_through_aliases_are_passed() {
    let dev = Device::sim();
    let a = dev.upload(&[9u32; 6]).unwrap();
    let mut out = dev.upload(&[7u32; 8]).unwrap();
    // SAFETY: every access is guarded by the lengths.
    unsafe { RemainingCounts::new().launch(&dev, LaunchConfig::for_elements(8, 32), &a, &mut out).unwrap() };
    assert_eq!(out.to_vec().unwrap(), vec![5, 4, 3, 2, 1, 0, 7, 7]);
}

#[ptx_kernel]
fn remainders(a: &[u32], b: &[u32], out: &mut [u32]) {
    let i = thread_idx().x as usize;
    if i < a.len() && i < b.len() && i < out.len() {
        out[i] = device_helpers::remainder(a[i], b[i]);
    }
}

#[test]
fn device_functions_of_other_files_are_located_there() {
    let helper_file = "tests/common/device_helpers.rs";
    let line =
        include_str!("common/device_helpers.rs").lines().position(|l| l == "    a % b").expect("a % b") + 1;
    let ptx = Remainders::new().ptx();
    assert!(ptx.contains(&format!(".file 1 \"{}\"", file!())), "{ptx}");
    assert!(ptx.contains(&format!(".file 2 \"{helper_file}\"")), "{ptx}");
    assert!(ptx.contains(&format!(".loc 2 {line} 5\n")), "{ptx}");

    let dev = Device::sim();
    let a = dev.upload(&[7u32, 8, 9]).unwrap();
    let b = dev.upload(&[4u32, 0, 5]).unwrap();
    let mut out = dev.upload(&[0u32; 3]).unwrap();
    let err =
        Remainders::new().launch(&dev, LaunchConfig::for_elements(3, 32), &a, &b, &mut out).unwrap_err();
    let Error::KernelPanic { location, .. } = &err else { panic!("expected a KernelPanic, got {err:?}") };
    assert_eq!(location, &format!("{helper_file}:{line}:5"), "{err}");
}

mod first {
    use ptx_dsl::prelude::*;

    /// Shares its name with `second::bump`.
    #[ptx_device]
    pub fn bump(x: u32) -> u32 {
        x.wrapping_add(1)
    }
}

mod second {
    use ptx_dsl::prelude::*;

    /// Shares its name with `first::bump`.
    #[ptx_device]
    pub fn bump(x: u32) -> u32 {
        x.wrapping_mul(100)
    }
}

/// A polynomial by Horner's rule over an unrolled loop; `_` is an unused parameter and
/// `'a` a lifetime, as plain Rust allows.
#[ptx_device]
#[allow(clippy::needless_lifetimes)] // written out to test that lifetimes are accepted
fn horner<'a>(x: f32, coefficients_from: f32, _: &'a [u32]) -> f32 {
    let mut acc = 0.0f32;
    #[unroll]
    for k in 0..4 {
        acc = acc.mul_add(x, coefficients_from + k as f32);
    }
    acc
}

twin!(paths_and_forms, paths_and_forms_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    out[3 * i] = first::bump(x);
    out[3 * i + 1] = second::bump(x);
    out[3 * i + 2] = (horner((x & 0xff) as f32 * 0.25, 0.5, a) * 64.0) as u32;
});

#[test]
fn same_named_device_functions_of_two_modules_and_other_signatures() {
    let xs = u32_inputs("device_paths", 200);
    check_twin(
        "paths_and_forms",
        &xs,
        3,
        &|d, c, a, o| PathsAndForms::new().launch(d, c, a, o),
        paths_and_forms_host,
    );
}

/// `x · 10`: shares its name with `quadruple::scale`.
#[ptx_device]
fn scale(x: u32) -> u32 {
    x.wrapping_mul(10)
}

mod quadruple {
    use ptx_dsl::prelude::*;

    /// `x · 2`.
    #[ptx_device]
    pub fn scale(x: u32) -> u32 {
        x.wrapping_mul(2)
    }

    /// `x · 4`: its `scale` is this module's, not the kernel's.
    #[ptx_device]
    pub fn twice(x: u32) -> u32 {
        scale(scale(x))
    }
}

twin!(callee_modules, callee_modules_host, |i, a: &[u32], out: &mut [u32]| {
    out[2 * i] = quadruple::twice(a[i]);
    out[2 * i + 1] = scale(a[i]);
});

#[test]
fn a_device_functions_calls_are_resolved_in_its_module() {
    let xs = u32_inputs("device_callee_modules", 100);
    check_twin(
        "callee_modules",
        &xs,
        2,
        &|d, c, a, o| CalleeModules::new().launch(d, c, a, o),
        callee_modules_host,
    );
}

/// Device functions that call what only their own module sees: a private helper, a
/// private submodule's function, their parent module's function and one by `self::`.
mod shapes {
    use ptx_dsl::prelude::*;

    /// `x · 3`: private to this module.
    #[ptx_device]
    fn scale(x: u32) -> u32 {
        x.wrapping_mul(3)
    }

    mod detail {
        use ptx_dsl::prelude::*;

        /// `x + 1000`: visible to `shapes` only.
        #[ptx_device]
        pub(super) fn offset(x: u32) -> u32 {
            x.wrapping_add(1000)
        }
    }

    /// Calls all four kinds.
    #[ptx_device]
    pub fn shape(x: u32) -> u32 {
        scale(x) ^ detail::offset(x) ^ self::scale(x >> 3) ^ super::scale(x >> 5)
    }
}

/// A kernel's module with functions of the names `shapes::shape` calls, which must not be
/// the ones inlined for it: through the `use`, `shape`'s calls are still `shapes`'.
mod elsewhere {
    use super::shapes::shape;
    use super::twin::*;
    use ptx_dsl::prelude::*;

    /// Not `shapes::scale`.
    #[ptx_device]
    fn scale(x: u32) -> u32 {
        x.wrapping_add(1)
    }

    mod detail {
        use ptx_dsl::prelude::*;

        /// Not `shapes::detail::offset`.
        #[ptx_device]
        pub(super) fn offset(x: u32) -> u32 {
            x.wrapping_sub(1)
        }
    }

    twin!(imported_shape, imported_shape_host, |i, a: &[u32], out: &mut [u32]| {
        out[2 * i] = shape(a[i]);
        out[2 * i + 1] = scale(a[i]) ^ detail::offset(a[i]);
    });

    /// The kernel and its host twin, for the test below.
    pub fn run(xs: &[u32]) {
        check_twin(
            "imported_shape",
            xs,
            2,
            &|d, c, a, o| ImportedShape::new().launch(d, c, a, o),
            imported_shape_host,
        );
    }
}

twin!(shape_by_path, shape_by_path_host, |i, a: &[u32], out: &mut [u32]| {
    out[i] = shapes::shape(a[i]);
});

#[test]
fn a_device_functions_calls_mean_what_its_module_means_however_the_kernel_names_it() {
    let xs = u32_inputs("device_callee_privacy", 100);
    elsewhere::run(&xs);
    check_twin(
        "shape_by_path",
        &xs,
        1,
        &|d, c, a, o| ShapeByPath::new().launch(d, c, a, o),
        shape_by_path_host,
    );
}

/// Two modules with device functions of the same names and the same text, one module's
/// calling the other's: two functions, not recursion.
mod negate {
    use ptx_dsl::prelude::*;

    #[ptx_device]
    fn op(x: u32) -> u32 {
        !x
    }

    /// `!x`.
    #[ptx_device]
    pub fn apply(x: u32) -> u32 {
        op(x)
    }
}

mod doubled {
    use ptx_dsl::prelude::*;

    #[ptx_device]
    fn op(x: u32) -> u32 {
        super::negate::apply(x).wrapping_mul(2)
    }

    /// `!x · 2`, through a function of the same text as `negate::apply`.
    #[ptx_device]
    pub fn apply(x: u32) -> u32 {
        op(x)
    }
}

/// A leaf device function named like a crate the module uses (`half`): it shadows no path.
mod crate_names {
    use ptx_dsl::prelude::*;

    /// `x / 2`.
    #[ptx_device]
    pub fn half(x: f32) -> f32 {
        x * 0.5
    }

    /// The `half` crate's `f16`, in the module that defines `half()`.
    pub fn one_as_f16_bits() -> u16 {
        half::f16::from_f32(1.0).to_bits()
    }
}

twin!(same_text, same_text_host, |i, a: &[u32], out: &mut [u32]| {
    out[2 * i] = doubled::apply(a[i]);
    out[2 * i + 1] = crate_names::half(a[i] as f32) as u32 ^ (b'a' as u32);
});

#[test]
fn functions_of_the_same_text_in_two_modules_are_two_functions() {
    assert_eq!(crate_names::one_as_f16_bits(), 0x3c00);
    let xs = u32_inputs("device_same_text", 64);
    check_twin("same_text", &xs, 2, &|d, c, a, o| SameText::new().launch(d, c, a, o), same_text_host);
}

/// One `macro_rules!` stamping out a device function `g` in two nested modules, each
/// calling its parent's `g`: three functions of one text and position between them, and
/// no recursion (`stamped::a::b::g` is `crate g`'s result plus 2).
macro_rules! parent_plus_one {
    () => {
        /// `super::g(x) + 1`.
        #[ptx_device]
        pub fn g(x: u32) -> u32 {
            super::g(x).wrapping_add(1)
        }
    };
}

mod stamped {
    use ptx_dsl::prelude::*;

    /// `x · 2`.
    #[ptx_device]
    pub fn g(x: u32) -> u32 {
        x.wrapping_mul(2)
    }

    pub mod a {
        use ptx_dsl::prelude::*;
        parent_plus_one!();

        pub mod b {
            use ptx_dsl::prelude::*;
            parent_plus_one!();
        }
    }
}

twin!(stamped_chain, stamped_chain_host, |i, a: &[u32], out: &mut [u32]| {
    out[i] = stamped::a::b::g(a[i]);
});

#[test]
fn device_functions_stamped_out_by_a_macro_are_not_taken_for_recursion() {
    let xs = u32_inputs("device_stamped", 64);
    check_twin(
        "stamped_chain",
        &xs,
        1,
        &|d, c, a, o| StampedChain::new().launch(d, c, a, o),
        stamped_chain_host,
    );
}

/// Checked, with guards in the kernel: the device function's `x[i]` is proven by the
/// kernel's `i < a.len()` (its parameters stand for the kernel's `a` and `i`), as the same
/// access written inline would be.
#[ptx_kernel]
fn guarded_elements(a: &[u32], out: &mut [u32]) {
    let i = thread_idx().x as usize;
    if i < a.len() && i < out.len() {
        out[i] = element(a, i);
    }
}

#[test]
fn guards_in_the_kernel_prove_accesses_in_device_functions() {
    assert_eq!(GuardedElements::new().bounds_checks(), 0);
    let dev = Device::sim();
    let a = dev.upload(&[4u32, 5, 6]).unwrap();
    let mut out = dev.upload(&[0u32; 3]).unwrap();
    GuardedElements::new().launch(&dev, LaunchConfig::for_elements(3, 32), &a, &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![4, 5, 6]);
}

#[allow(non_snake_case)]
mod r#type {
    use ptx_dsl::prelude::*;

    /// `x + 1`.
    #[ptx_device]
    pub fn next(x: u32) -> u32 {
        x.wrapping_add(1)
    }

    /// `x + 2`, through `next`: a callee found in a module with a raw name.
    #[ptx_device]
    pub fn after_next(x: u32) -> u32 {
        next(next(x))
    }
}

twin!(raw_module, raw_module_host, |i, a: &[u32], out: &mut [u32]| {
    out[i] = r#type::after_next(a[i]);
});

#[test]
fn device_functions_in_a_module_with_a_raw_name() {
    let xs = u32_inputs("device_raw_module", 64);
    check_twin("raw_module", &xs, 1, &|d, c, a, o| RawModule::new().launch(d, c, a, o), raw_module_host);
}
