//! Local arrays (`let mut acc = [0.0f32; 4];`, `let w = [1, 2, 3];`), indexed with values
//! known while the kernel is built and with values computed on the GPU: each body runs as a `#[ptx_kernel]` on the simulator and
//! as plain Rust on the host, compared bit for bit on edge values and fresh random inputs.
//! (`#[unroll]` on a statement is unstable on the host, so the twins index with constants and
//! the unrolled kernel has a host version of its own.)
#![allow(clippy::needless_range_loop, clippy::identity_op, clippy::erasing_op)]

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, DeviceBuffer, Error, LaunchConfig};

mod common;

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

/// An index of the arrays below, a constant of the surrounding code.
const LAST: usize = 3;

twin!(array_elements, array_elements_host, |i, a: &[f32], out: &mut [f32]| {
    let x = a[i];
    let w = [0.25f32, -0.5, 1.5, 2.0];
    let mut acc = [0.0f32; 4];
    acc[0] += w[0] * x;
    acc[1] = acc[0].mul_add(w[1], x);
    acc[2] -= w[2] * acc[1];
    acc[LAST] = acc[2] / w[LAST];
    // Binding copies, as Rust copies a `[f32; N]`: `before` keeps the old values.
    let before = acc;
    acc[0] = -acc[0];
    acc[LAST] *= 2.0;
    out[6 * i] = acc[0];
    out[6 * i + 1] = acc[1] + acc[2];
    out[6 * i + 2] = acc[LAST] + acc.len() as f32;
    out[6 * i + 3] = before[0] + before[LAST];
    // An element read before an assignment in the same expression keeps its value.
    out[6 * i + 4] = acc[1] + {
        acc[1] = 100.0;
        acc[1]
    };
    let flags = [x > 0.0, x.is_nan(), true];
    out[6 * i + 5] = if flags[0] || flags[1] { w[1] } else { flags.len() as f32 };
});

#[test]
fn local_arrays_are_rust_arrays() {
    let xs = f32_inputs("array_elements", 200);
    let launch = |d: &_, c, a: &_, o: &mut _| ArrayElements::new().launch(d, c, a, o);
    check_twin("array_elements", &xs, 6, &launch, array_elements_host);
}

/// Decimal digits into a local array and back, reversed, and a window of taps: indexed by
/// `#[unroll]` loops' variables.
#[ptx_kernel]
fn unrolled_arrays(a: &[u32], out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i >= a.len() {
        return;
    }
    let mut digits = [0u8; 10];
    let mut rest = a[i];
    #[unroll]
    for d in 0..10 {
        digits[d] = (rest % 10) as u8;
        rest /= 10;
    }
    let mut reversed = 0u32;
    #[unroll]
    for d in 0..digits.len() {
        reversed = reversed.wrapping_mul(10).wrapping_add(digits[d] as u32);
    }
    let taps = [3u32, 1, 4, 1];
    let mut window = [0u32; 4];
    #[unroll]
    for t in 0..4 {
        #[unroll]
        for k in 0..4 {
            window[t] = window[t].wrapping_add(taps[k].wrapping_mul(a[(i + t + k) % a.len()]));
        }
    }
    out[2 * i] = reversed;
    out[2 * i + 1] = window[0] ^ window[1] ^ window[2].rotate_left(7) ^ window[3];
}

/// [`unrolled_arrays`] on the host, for index `i`.
fn unrolled_arrays_host(i: usize, a: &[u32], out: &mut [u32]) {
    let mut digits = [0u8; 10];
    let mut rest = a[i];
    for d in 0..10 {
        digits[d] = (rest % 10) as u8;
        rest /= 10;
    }
    let mut reversed = 0u32;
    for d in 0..digits.len() {
        reversed = reversed.wrapping_mul(10).wrapping_add(digits[d] as u32);
    }
    let taps = [3u32, 1, 4, 1];
    let mut window = [0u32; 4];
    for t in 0..4 {
        for k in 0..4 {
            window[t] = window[t].wrapping_add(taps[k].wrapping_mul(a[(i + t + k) % a.len()]));
        }
    }
    out[2 * i] = reversed;
    out[2 * i + 1] = window[0] ^ window[1] ^ window[2].rotate_left(7) ^ window[3];
}

#[test]
fn arrays_indexed_by_unrolled_loops_are_rusts() {
    let xs = u32_inputs("unrolled_arrays", 200);
    let launch = |d: &_, c, a: &_, o: &mut _| UnrolledArrays::new().launch(d, c, a, o);
    check_twin("unrolled_arrays", &xs, 2, &launch, unrolled_arrays_host);
}

/// An index past the end, known only once the kernel is built: Rust's panic, the launch's
/// `Err(OutOfBounds)` naming the array and the line.
#[ptx_kernel]
fn past_the_end(out: &mut [f32], #[comptime] k: usize) {
    let mut acc = [1.0f32; 3];
    acc[k] = 2.0;
    out[0] = acc[0] + acc[k];
}

#[test]
fn a_local_array_index_past_the_end_is_an_out_of_bounds_error() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut out: DeviceBuffer<f32> = dev.zeroed(1)?;
    PastTheEnd::new(2).launch(&dev, LaunchConfig::linear(1, 1), &mut out)?;
    assert_eq!(out.to_vec()?, [3.0]);
    let err = PastTheEnd::new(3).launch(&dev, LaunchConfig::linear(1, 1), &mut out).unwrap_err();
    let Error::OutOfBounds { param, index, len, .. } = &err else { panic!("expected OutOfBounds: {err}") };
    assert_eq!((param.as_str(), *index, *len), ("acc", 3, 3), "{err}");
    assert!(err.to_string().contains("tests/lang_arrays.rs:"), "{err}");
    Ok(())
}

/// A repeated array's length beyond the limit (each element is a register) is a fault at
/// launch naming the line, not a build that runs out of memory.
#[ptx_kernel]
fn runaway_length(out: &mut [f32], #[comptime] n: usize) {
    let acc = [1.0f32; n];
    out[0] = acc.len() as f32;
}

#[test]
fn a_runaway_array_length_is_a_launch_error() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut out: DeviceBuffer<f32> = dev.zeroed(1)?;
    RunawayLength::new(1024).launch(&dev, LaunchConfig::linear(1, 1), &mut out)?;
    assert_eq!(out.to_vec()?, [1024.0]);
    let err = RunawayLength::new(1 << 40).launch(&dev, LaunchConfig::linear(1, 1), &mut out).unwrap_err();
    assert!(
        matches!(&err, Error::KernelPanic { message, .. } if message.contains("more than 1024 elements")),
        "{err}"
    );
    Ok(())
}

/// A device function keeping a local array of its own, called twice: each call's array is
/// its own (the body is inlined per call).
#[ptx_device]
fn horner3(x: f64, c0: f64, c1: f64, c2: f64) -> f64 {
    let c = [c0, c1, c2];
    let mut acc = c[2];
    acc = acc.mul_add(x, c[1]);
    acc.mul_add(x, c[0])
}

twin!(arrays_in_device_functions, arrays_in_device_functions_host, |i, a: &[f64], out: &mut [f64]| {
    let x = a[i];
    let mut m = [x; 3];
    m[1] = horner3(x, 1.0, -2.0, 0.5);
    m[2] = horner3(m[1], 0.25, 3.0, -1.0);
    let narrow = [x as i8, (x as i8).wrapping_neg(), 7];
    let wide = [x.to_bits(), u64::MAX];
    let pick = match narrow[0] {
        0 => m[0],
        1..=100 => m[1],
        _ => m[2],
    };
    out[3 * i] = pick;
    out[3 * i + 1] = (narrow[1] as f64) + (narrow[2] as f64) * m[0];
    out[3 * i + 2] = f64::from_bits(wide[0] ^ (wide[1] >> 63));
});

#[test]
fn arrays_in_device_functions_and_of_every_width_are_rusts() {
    let xs = f64_inputs("arrays_in_device_functions", 200);
    let launch = |d: &_, c, a: &_, o: &mut _| ArraysInDeviceFunctions::new().launch(d, c, a, o);
    check_twin("arrays_in_device_functions", &xs, 3, &launch, arrays_in_device_functions_host);
}

/// The array kernels' PTX assembles with ptxas for sm_80 and sm_90 (their elements are
/// plain registers: no local memory).
#[test]
fn array_kernels_assemble() {
    common::assert_assembles("array_elements", &ArrayElements::new());
    common::assert_assembles("unrolled_arrays", &UnrolledArrays::new());
    common::assert_assembles("past_the_end", &PastTheEnd::new(1));
    common::assert_assembles("arrays_in_device_functions", &ArraysInDeviceFunctions::new());
    use ptx_dsl::core::Kernel;
    common::assert_assembles("runtime_indices", &RuntimeIndices::new());
    for ptx in [UnrolledArrays::new().ptx(), ArrayElements::new().ptx(), RuntimeIndices::new().ptx()] {
        assert!(!ptx.contains(".local"), "a local array in local memory:\n{ptx}");
    }
}

// Indices computed on the GPU: a plain loop's variable and values read from memory.
twin!(runtime_indices, runtime_indices_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let mut hist = [0u32; 8];
    for k in 0..8 {
        hist[k] = (k as u32) * 3;
    }
    for k in 0..6 {
        let j = ((x >> (3 * k)) & 7) as usize;
        hist[j] += 1;
    }
    let mut m = 0usize;
    for k in 1..hist.len() {
        if hist[k] > hist[m] {
            m = k;
        }
    }
    let w = [10u32, 20, 30, 40];
    out[2 * i] = hist[(x % 8) as usize] + w[(x as usize) % w.len()];
    out[2 * i + 1] = m as u32 * 1000 + hist[m];
});

#[test]
fn local_arrays_indexed_on_the_gpu_are_rusts() {
    let xs = u32_inputs("runtime_indices", 200);
    let launch = |d: &_, c, a: &_, o: &mut _| RuntimeIndices::new().launch(d, c, a, o);
    check_twin("runtime_indices", &xs, 2, &launch, runtime_indices_host);
}

/// An index computed on the GPU past the end: `Err(OutOfBounds)` naming the array, its
/// index and length; the write is dropped and the read gives 0.
#[ptx_kernel]
fn past_the_end_at_run_time(out: &mut [u32], k: usize) {
    let mut acc = [7u32; 5];
    acc[k] = 1;
    out[0] = acc[k] + acc[0];
}

#[test]
fn a_local_array_index_past_the_end_on_the_gpu_is_an_out_of_bounds_error() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut out: DeviceBuffer<u32> = dev.zeroed(1)?;
    PastTheEndAtRunTime::new().launch(&dev, LaunchConfig::linear(1, 1), &mut out, 4)?;
    assert_eq!(out.to_vec()?, [8]);
    let err = PastTheEndAtRunTime::new().launch(&dev, LaunchConfig::linear(1, 1), &mut out, 9).unwrap_err();
    let Error::OutOfBounds { param, index, len, .. } = &err else { panic!("expected OutOfBounds: {err}") };
    assert_eq!((param.as_str(), *index, *len), ("acc", 9, 5), "{err}");
    Ok(())
}

// `for v in array` iterates over a copy, by value, as Rust's `[T; N]` does: assigning the
// array inside the loop does not change the elements still to come.
twin!(for_over_arrays, for_over_arrays_host, |i, a: &[f32], out: &mut [f32]| {
    let x = a[i];
    let mut w = [x, 2.0 * x, -x, 0.5];
    let mut sum = 0.0f32;
    let mut count = 0u32;
    'elements: for v in w {
        w[3] = 100.0;
        if v.is_nan() {
            continue 'elements;
        }
        sum += v * v;
        count += 1;
        if count == 3 {
            break;
        }
    }
    let mut best = f32::NEG_INFINITY;
    for v in w {
        best = best.max(v);
    }
    out[3 * i] = sum;
    out[3 * i + 1] = best;
    out[3 * i + 2] = count as f32;
});

#[test]
fn for_loops_over_local_arrays_are_rusts() {
    let xs = f32_inputs("for_over_arrays", 200);
    let launch = |d: &_, c, a: &_, o: &mut _| ForOverArrays::new().launch(d, c, a, o);
    check_twin("for_over_arrays", &xs, 3, &launch, for_over_arrays_host);
}

// A `for` loop over an array expression, `[16, 8, 4, 2, 1]` or `[v; N]`, perhaps with
// `.into_iter()`, iterates over it by value as Rust does: the expression is computed once,
// before the first iteration.
twin!(for_over_array_expressions, for_over_array_expressions_host, |i, a: &[u32], out: &mut [u32]| {
    let mut x = a[i];
    let mut folded = 0u32;
    for shift in [16u32, 8, 4, 2, 1] {
        folded ^= x >> shift;
    }
    let mut sum = 0u32;
    for v in [x.wrapping_mul(3); 3] {
        x = x.wrapping_add(v);
        sum = sum.wrapping_add(v);
    }
    let mut count = 0u32;
    let mut k = 0u32;
    'taps: for w in [2u32, x & 7, (x >> 3) & 1].into_iter() {
        k += 1;
        if w == 0 {
            continue 'taps;
        }
        count += k * w;
    }
    out[3 * i] = folded;
    out[3 * i + 1] = sum ^ x;
    out[3 * i + 2] = count;
});

#[test]
fn for_loops_over_array_expressions_are_rusts() {
    let xs = u32_inputs("for_over_array_expressions", 200);
    let launch = |d: &_, c, a: &_, o: &mut _| ForOverArrayExpressions::new().launch(d, c, a, o);
    check_twin("for_over_array_expressions", &xs, 3, &launch, for_over_array_expressions_host);
}

// Arrays with their types written out, as Rust code often has them.
twin!(typed_arrays, typed_arrays_host, |i, a: &[u32], out: &mut [u32]| {
    let mut acc: [u32; 4] = [0; 4];
    let w: [_; 3] = [a[i], 2, 3];
    acc[1] = w[0].wrapping_mul(w[1]);
    acc[3] = acc[1] ^ w[2];
    out[2 * i] = acc[3];
    out[2 * i + 1] = acc.len() as u32 + w.len() as u32;
});

#[test]
fn arrays_with_written_types_are_rusts() {
    let xs = u32_inputs("typed_arrays", 100);
    let launch = |d: &_, c, a: &_, o: &mut _| TypedArrays::new().launch(d, c, a, o);
    check_twin("typed_arrays", &xs, 2, &launch, typed_arrays_host);
}

/// A length the macro cannot count (a `#[comptime]` one) that differs from the type's is a
/// fault at launch, where rustc would refuse the program.
#[ptx_kernel]
fn typed_comptime_length(out: &mut [f32], #[comptime] n: usize) {
    let acc: [f32; 4] = [1.5; n];
    out[0] = acc[0];
}

#[test]
fn a_length_other_than_the_types_is_a_launch_error() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut out: DeviceBuffer<f32> = dev.zeroed(1)?;
    TypedComptimeLength::new(4).launch(&dev, LaunchConfig::linear(1, 1), &mut out)?;
    assert_eq!(out.to_vec()?, [1.5]);
    let err = TypedComptimeLength::new(5).launch(&dev, LaunchConfig::linear(1, 1), &mut out).unwrap_err();
    assert!(
        matches!(&err, Error::KernelPanic { message, .. } if message.contains("length differs")),
        "{err}"
    );
    Ok(())
}

// Rust's order for a compound assignment of an element: the value first, then the index.
// An element the value reads keeps the value it had before the index's block assigns it.
twin!(compound_value_before_index, compound_value_before_index_host, |i, a: &[u32], out: &mut [u32]| {
    let mut w = [a[i] & 0xff, 10, 20];
    w[{
        w[0] = 2;
        2
    }] += w[0];
    let mut f = [a[i] as f32, 0.5];
    f[{
        f[1] = 4.0;
        0
    }] *= f[1];
    out[3 * i] = w[0];
    out[3 * i + 1] = w[2];
    out[3 * i + 2] = f[0].to_bits();
});

#[test]
fn a_compound_assignment_reads_its_value_before_the_index() {
    let xs = u32_inputs("compound_value_before_index", 200);
    let launch = |d: &_, c, a: &_, o: &mut _| CompoundValueBeforeIndex::new().launch(d, c, a, o);
    check_twin("compound_value_before_index", &xs, 3, &launch, compound_value_before_index_host);
}

// A whole array assigned at once, as Rust copies a `[T; N]` into another: the value's
// elements are all read before any is written (`w = [w[1], w[0], ..]` swaps).
twin!(whole_array_assignment, whole_array_assignment_host, |i, a: &[u32], out: &mut [u32]| {
    let mut w = [a[i], a[i] >> 4, 3, 4];
    let other = [9u32; 4];
    w = [w[1], w[0], w[3], w[2]];
    out[3 * i] = w[0] ^ (w[1] << 1) ^ (w[2] << 2) ^ (w[3] << 3);
    let before = w;
    w = other;
    out[3 * i + 1] = w[0] + w[3] + before[2];
    w[1] = 1;
    out[3 * i + 2] = other[1] + w[1];
});

#[test]
fn whole_arrays_assign_as_rusts() {
    let xs = u32_inputs("whole_array_assignment", 100);
    let launch = |d: &_, c, a: &_, o: &mut _| WholeArrayAssignment::new().launch(d, c, a, o);
    check_twin("whole_array_assignment", &xs, 3, &launch, whole_array_assignment_host);
}

/// The dot product of two arrays passed by value: the function's own copies, which it may
/// change without the caller seeing it.
#[ptx_device]
fn dot3(mut a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] *= b[0];
    a[1] *= b[1];
    a[2] *= b[2];
    a[0] + a[1] + a[2]
}

twin!(arrays_passed_by_value, arrays_passed_by_value_host, |i, a: &[f32], out: &mut [f32]| {
    let v = [a[i], 2.0, -1.0];
    let w = [0.5f32; 3];
    out[2 * i] = dot3(v, w);
    out[2 * i + 1] = v[0] + dot3(w, [1.0, 1.0, a[i]]);
});

#[test]
fn arrays_pass_to_device_functions_by_value() {
    let xs = f32_inputs("arrays_passed_by_value", 100);
    let launch = |d: &_, c, a: &_, o: &mut _| ArraysPassedByValue::new().launch(d, c, a, o);
    check_twin("arrays_passed_by_value", &xs, 2, &launch, arrays_passed_by_value_host);
}

/// Two arrays added element by element, the sum returned by value.
#[ptx_device]
fn add3(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    let mut sum = a;
    sum[0] += b[0];
    sum[1] += b[1];
    sum[2] += b[2];
    sum
}

// Arrays as block values and device functions' results.
twin!(arrays_returned, arrays_returned_host, |i, a: &[f32], out: &mut [f32]| {
    let v = [a[i], 1.0, -2.0];
    let twice = add3(v, v);
    let shifted = {
        let mut s = twice;
        s[0] = s[2];
        s
    };
    out[3 * i] = twice[0];
    out[3 * i + 1] = shifted[0] + shifted[1];
    let third = add3(shifted, [0.5; 3]);
    out[3 * i + 2] = third[1];
});

#[test]
fn arrays_are_block_values_and_device_function_results() {
    let xs = f32_inputs("arrays_returned", 100);
    let launch = |d: &_, c, a: &_, o: &mut _| ArraysReturned::new().launch(d, c, a, o);
    check_twin("arrays_returned", &xs, 3, &launch, arrays_returned_host);
}

/// The warp reduction as CUDA code writes it, over an unrolled array of offsets: each
/// offset is a constant of the unrolled copy, so the shuffles take immediates.
#[ptx_kernel]
fn warp_sum_over_offsets(a: &[u32], out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let mut v = a[i];
    #[unroll]
    for offset in [16u32, 8, 4, 2, 1] {
        v = v.wrapping_add(shfl_xor(v, offset));
    }
    out[i] = v;
}

#[test]
fn an_unrolled_loop_over_offsets_sums_each_warp() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let xs = u32_inputs("warp_sum_over_offsets", 64);
    let a = dev.upload(&xs)?;
    let mut out: DeviceBuffer<u32> = dev.zeroed(xs.len())?;
    WarpSumOverOffsets::new().launch(&dev, LaunchConfig::linear(xs.len() as u32 / 32, 32), &a, &mut out)?;
    let got = out.to_vec()?;
    for (w, warp) in xs.chunks(32).enumerate() {
        let sum = warp.iter().fold(0u32, |s, &v| s.wrapping_add(v));
        assert!(
            got[32 * w..32 * w + 32].iter().all(|&g| g == sum),
            "warp {w}: {:?} against {sum}",
            &got[32 * w..]
        );
    }
    let ptx = WarpSumOverOffsets::new().ptx();
    assert_eq!(ptx.matches("shfl.sync.bfly.b32").count(), 5, "{ptx}");
    assert!(!ptx.contains("selp"), "constant offsets need no selection:\n{ptx}");
    Ok(())
}

// `swap(i, j)` on a slice parameter and on a local array, as the standard library's: a
// compare-and-swap network sorts each thread's four elements.
twin!(swaps, swaps_host, |i, a: &[u32], out: &mut [u32]| {
    let mut w = [a[i], a[(i + 1) % a.len()], a[(i + 2) % a.len()], a[(i + 3) % a.len()]];
    let first = [0usize, 2, 0, 1, 1];
    let second = [1usize, 3, 2, 3, 2];
    for k in 0..5 {
        let (p, q) = (first[k], second[k]);
        if w[p] > w[q] {
            w.swap(p, q);
        }
    }
    for k in 0..4 {
        out[4 * i + k] = w[k];
    }
    out.swap(4 * i, 4 * i + (a[i] % 4) as usize);
    w.swap(1, 1);
    out[4 * i + 1] ^= w[1];
});

#[test]
fn swaps_are_rusts() {
    let xs = u32_inputs("swaps", 100);
    let launch = |d: &_, c, a: &_, o: &mut _| Swaps::new().launch(d, c, a, o);
    check_twin("swaps", &xs, 4, &launch, swaps_host);
}

/// Gaussian taps, a constant of the surrounding code that kernels index.
const TAPS: [f32; 5] = [0.0625, 0.25, 0.375, 0.25, 0.0625];

/// A permutation table of `u32`s.
const ORDER: [u32; 4] = [2, 0, 3, 1];

// Constant arrays, of the kernel's body (`const W: [T; N]`) and of the surrounding code
// (`TAPS`, `ORDER`), indexed by constants and by values computed on the GPU, with their
// lengths; their elements are constants of the kernel.
twin!(constant_tables, constant_tables_host, |i, a: &[f32], out: &mut [f32]| {
    const W: [f32; 3] = [0.5, -1.0, 0.5];
    const REPEATED: [u32; 2] = [7; 2];
    let n = a.len();
    let mut blurred = 0.0f32;
    for k in 0..TAPS.len() {
        blurred += a[(i + k) % n] * TAPS[k];
    }
    let mut edge = 0.0f32;
    for k in 0..W.len() {
        edge += a[(i + k) % n] * W[k];
    }
    let pick = ORDER[i % ORDER.len()] as usize;
    out[4 * i] = blurred;
    out[4 * i + 1] = edge + TAPS[2] * W[0];
    out[4 * i + 2] = a[(i + pick) % n];
    out[4 * i + 3] = (REPEATED[1] + ORDER[3]) as f32 + TAPS.len() as f32;
});

#[test]
fn constant_arrays_are_rusts() {
    let xs = f32_inputs("constant_tables", 100);
    let launch = |d: &_, c, a: &_, o: &mut _| ConstantTables::new().launch(d, c, a, o);
    check_twin("constant_tables", &xs, 4, &launch, constant_tables_host);
}

// The iterator forms of a `for` loop over an array or a slice, as Rust code writes them:
// `.iter()` (with `&v`), `.iter().copied()`, `.into_iter()`, `.enumerate()`, a slice by
// itself and a constant array of the surrounding code.
twin!(iterator_loops, iterator_loops_host, |i, a: &[f32], out: &mut [f32]| {
    let x = a[i];
    let w = [x, 2.0 * x, -x];
    let mut dot = 0.0f32;
    for (k, &t) in TAPS.iter().enumerate() {
        dot += t * a[(i + k) % a.len()];
    }
    let mut weighted = 0.0f32;
    for (k, v) in w.into_iter().enumerate() {
        weighted += v * (k as f32 + 1.0);
    }
    let mut largest = f32::NEG_INFINITY;
    // (Not `largest.max(v)`: Rust leaves which zero `max` gives for ±0 unspecified.)
    for v in w.iter().copied() {
        if v > largest {
            largest = v;
        }
    }
    let mut count = 0u32;
    for &v in a.iter() {
        if v < x {
            count += 1;
        }
    }
    let mut total = 0.0f32;
    for v in a {
        total += *v;
    }
    for (k, v) in w.iter().enumerate() {
        if *v > 0.0 {
            total += k as f32;
        }
    }
    for &v in a {
        total -= v;
    }
    out[5 * i] = dot;
    out[5 * i + 1] = weighted;
    out[5 * i + 2] = largest;
    out[5 * i + 3] = count as f32;
    out[5 * i + 4] = total;
});

#[test]
fn iterator_loops_are_rusts() {
    let xs = f32_inputs("iterator_loops", 64);
    let launch = |d: &_, c, a: &_, o: &mut _| IteratorLoops::new().launch(d, c, a, o);
    check_twin("iterator_loops", &xs, 5, &launch, iterator_loops_host);
}

// A body's `const` array shadows a constant array of the surrounding code of its name, as
// in Rust: indexed, measured, iterated and copied, it is the body's.
twin!(shadowing_tables, shadowing_tables_host, |i, a: &[u32], out: &mut [u32]| {
    const ORDER: [u32; 2] = [1, 0];
    let copy = ORDER;
    let mut sum = 0u32;
    for v in ORDER {
        sum += v;
    }
    out[i] = (a[i] >> 2) * ORDER[i % ORDER.len()] + copy[1] + sum + ORDER.len() as u32;
});

#[test]
fn a_body_const_array_shadows_the_surrounding_one() {
    let xs = u32_inputs("shadowing_tables", 64);
    let launch = |d: &_, c, a: &_, o: &mut _| ShadowingTables::new().launch(d, c, a, o);
    check_twin("shadowing_tables", &xs, 1, &launch, shadowing_tables_host);
}
