//! Sub-slices, `&x[a..b]` and `&mut y[a..]` in every range form, as Rust has them: a row of
//! a matrix passed to a device function, a tail or head of it, a `&mut` window written
//! through, a window of a shared array; each kernel body also run as plain Rust and the
//! results compared, and a range outside its slice the launch's `Err(KernelPanic)` with the
//! start of Rust's message, an index past a sub-slice's end an `OutOfBounds` naming it.
use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, Error, LaunchConfig};

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

/// The sum of `a[k] * b[k]` over `a`'s length.
#[ptx_device]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut s = 0.0;
    for k in 0..a.len() {
        s += a[k] * b[k];
    }
    s
}

/// One thread a row of `m` (`cols` wide), checked and unchecked.
macro_rules! row_dots {
    ($name:ident, $attr:meta) => {
        #[$attr]
        fn $name(m: &[f32], v: &[f32], out: &mut [f32], pairs: &mut [u32], #[comptime] cols: usize) {
            let r = (block_idx().x * block_dim().x + thread_idx().x) as usize;
            if r < out.len() {
                let row = &m[r * cols..(r + 1) * cols];
                let tail = &row[1..];
                let head = &row[..=1];
                let all = &row[..];
                out[r] =
                    dot(row, v) + tail[0] * 2.0 + head.len() as f32 + all[cols - 1] + dot(&v[2..], &row[2..]);
                let dst = &mut pairs[2 * r..2 * r + 2];
                dst[0] = tail.len() as u32;
                dst[1] = (r as u32) << 8;
                let again = &mut dst[1..];
                again[0] += 1;
            }
        }
    };
}

row_dots!(row_dots, ptx_kernel);
row_dots!(row_dots_unchecked, ptx_kernel(unchecked));

/// [`row_dots`]'s body as plain Rust, for row `r`.
#[allow(clippy::redundant_slicing)]
fn row_dots_host(m: &[f32], v: &[f32], out: &mut [f32], pairs: &mut [u32], cols: usize, r: usize) {
    let dot = |a: &[f32], b: &[f32]| {
        let mut s = 0.0;
        for k in 0..a.len() {
            s += a[k] * b[k];
        }
        s
    };
    let row = &m[r * cols..(r + 1) * cols];
    let tail = &row[1..];
    let head = &row[..=1];
    let all = &row[..];
    out[r] = dot(row, v) + tail[0] * 2.0 + head.len() as f32 + all[cols - 1] + dot(&v[2..], &row[2..]);
    let dst = &mut pairs[2 * r..2 * r + 2];
    dst[0] = tail.len() as u32;
    dst[1] = (r as u32) << 8;
    let again = &mut dst[1..];
    again[0] += 1;
}

#[test]
fn rows_tails_and_windows_are_the_hosts() {
    let mut rng = ptx_tools::rng::Rng::fresh("row_dots");
    let (rows, cols) = (37, 9);
    let m: Vec<f32> = (0..rows * cols).map(|_| rng.signed_f32()).collect();
    let v: Vec<f32> = (0..cols).map(|_| rng.signed_f32()).collect();
    let dev = Device::sim();
    let mut out = dev.zeroed::<f32>(rows).unwrap();
    let mut pairs = dev.zeroed::<u32>(2 * rows).unwrap();
    let config = LaunchConfig::for_elements(rows, 32);
    for checked in [true, false] {
        let (md, vd) = (dev.upload(&m).unwrap(), dev.upload(&v).unwrap());
        if checked {
            RowDots::new(cols).launch(&dev, config, &md, &vd, &mut out, &mut pairs).unwrap();
        } else {
            // SAFETY: every range and index of the body is within its slice for these shapes
            // (the checked launch before this one says so).
            unsafe { RowDotsUnchecked::new(cols).launch(&dev, config, &md, &vd, &mut out, &mut pairs) }
                .unwrap();
        }
        let (mut want, mut want_pairs) = (vec![0.0f32; rows], vec![0u32; 2 * rows]);
        for r in 0..rows {
            row_dots_host(&m, &v, &mut want, &mut want_pairs, cols, r);
        }
        // The same operations in the same order: bit for bit.
        assert_eq!(out.to_vec().unwrap(), want, "checked {checked}");
        assert_eq!(pairs.to_vec().unwrap(), want_pairs, "checked {checked}");
    }
}

#[ptx_kernel]
fn window(x: &[u32], out: &mut [u32], start: usize, end: usize, at: usize) {
    let w = &x[start..end];
    out[0] = w[at];
}

#[test]
fn ranges_outside_their_slice_are_rusts_panics() {
    let dev = Device::sim();
    let x = dev.upload(&[10u32, 11, 12, 13, 14]).unwrap();
    let mut out = dev.zeroed::<u32>(1).unwrap();
    let one = LaunchConfig::linear(1, 1);
    let run = |start: usize, end: usize, at: usize, out: &mut _| {
        Window::new().launch(&dev, one, &x, out, start, end, at)
    };
    run(1, 4, 2, &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [13]);
    // An empty window at the end is a window; indexing it is out of its bounds.
    let r = run(5, 5, 0, &mut out);
    assert!(matches!(&r, Err(Error::OutOfBounds { param, index: 0, len: 0, .. }) if param == "w"), "{r:?}");
    // Checked in Rust's order, and the thread stops there: `out` keeps the 13 stored here.
    run(1, 4, 2, &mut out).unwrap();
    let cases = [
        (3, 2, "slice index starts after its end"),
        (2, 6, "range end index out of range for slice"),
        (6, 7, "range start index out of range for slice"),
        (usize::MAX, 2, "range start index out of range for slice"),
    ];
    for (start, end, message) in cases {
        let r = run(start, end, 0, &mut out);
        assert!(
            matches!(&r, Err(Error::KernelPanic { message: m, .. }) if m == message),
            "{start}..{end}: {r:?}"
        );
        assert_eq!(out.to_vec().unwrap(), [13], "{start}..{end}: the thread went on");
    }
    // Past the window's own end (not `x`'s): the window is what was indexed.
    let r = run(1, 3, 2, &mut out);
    assert!(matches!(&r, Err(Error::OutOfBounds { param, index: 2, len: 2, .. }) if param == "w"), "{r:?}");
}

/// Halves of a shared tile, written and read through windows, constant and computed.
#[ptx_kernel]
fn shared_windows(x: &[f32], out: &mut [f32]) {
    let t = thread_idx().x as usize;
    let tile = shared::<f32, 64>();
    let upper = &mut tile[32..];
    upper[t] = x[t];
    let lower = &mut tile[..32];
    lower[t] = -x[t];
    sync_threads();
    let k = x.len() + 31 - t;
    let moving = &tile[k..];
    out[t] = moving[0] + tile[33] + upper[1];
}

#[test]
fn windows_of_shared_arrays_are_the_hosts() {
    let x: Vec<f32> = (0..32).map(|k| k as f32 * 1.5 + 0.25).collect();
    let dev = Device::sim();
    let mut out = dev.zeroed::<f32>(32).unwrap();
    SharedWindows::new()
        .launch(&dev, LaunchConfig::linear(1, 32), &dev.upload(&x).unwrap(), &mut out)
        .unwrap();
    let mut tile = [0.0f32; 64];
    for t in 0..32 {
        tile[32 + t] = x[t];
        tile[t] = -x[t];
    }
    let want: Vec<f32> = (0..32).map(|t| tile[x.len() + 31 - t] + tile[33] + tile[33]).collect();
    assert_eq!(out.to_vec().unwrap(), want);
}

// Loops over ranges of a slice (`&x[a..]`, `x[a..b].iter()`, `.enumerate()`) and a
// range's `len()`/`is_empty()` without a name, one thread a start.
twin!(range_loops, range_loops_host, |t, x: &[f32], out: &mut [f32]| {
    let mut s = 0.0;
    for v in &x[t..] {
        s += v;
    }
    for v in x[t / 2..t].iter() {
        s -= *v * 0.5;
    }
    for (i, &v) in x[..t].iter().enumerate().rev() {
        s += v * i as f32;
    }
    out[t] = s + x[t..].len() as f32 + x[t..t].is_empty() as u32 as f32;
});

#[test]
fn loops_over_ranges_are_the_hosts() {
    let mut rng = ptx_tools::rng::Rng::fresh("range_loops");
    let x: Vec<f32> = (0..70).map(|_| rng.signed_f32()).collect();
    let launch = |d: &_, c, a: &_, o: &mut _| RangeLoops::new().launch(d, c, a, o);
    check_twin("range_loops", &x, 1, &launch, range_loops_host);
}

#[test]
fn kernels_with_sub_slices_assemble() {
    let Some(ptxas) = ptx_tools::ptxas::ptxas_or_skip("kernels_with_sub_slices_assemble") else { return };
    use ptx_dsl::core::{Kernel, Target};
    let kernels: [&dyn Kernel; 5] = [
        &RowDots::new(9),
        &RowDotsUnchecked::new(4),
        &Window::new(),
        &SharedWindows::new(),
        &RangeLoops::new(),
    ];
    for kernel in kernels {
        let ptx = kernel.ptx_for(Target::SM_80);
        ptx_tools::ptxas::assemble(&ptxas, &ptx, "sm_80").unwrap_or_else(|e| panic!("{e}\n{ptx}"));
    }
}

/// A range of a range (`&x[a..][..b]`, which was refused) and a range's `len()`.
#[ptx_kernel]
fn nested_ranges(x: &[u32], out: &mut [u32], a: usize, b: usize) {
    let w = &x[a..][..b];
    let v = &mut out[1..][1..];
    v[0] = w[b - 1] + x[a..].len() as u32;
}

#[test]
fn ranges_of_ranges_are_the_hosts() {
    let dev = Device::sim();
    let x = dev.upload(&[10u32, 11, 12, 13, 14, 15]).unwrap();
    let mut out = dev.zeroed::<u32>(3).unwrap();
    NestedRanges::new().launch(&dev, LaunchConfig::linear(1, 1), &x, &mut out, 2, 3).unwrap();
    let host = [10u32, 11, 12, 13, 14, 15];
    let mut want = [0u32; 3];
    let w = &host[2..][..3];
    let v = &mut want[1..][1..];
    v[0] = w[3 - 1] + host[2..].len() as u32;
    assert_eq!(out.to_vec().unwrap(), want);
    let r = NestedRanges::new().launch(&dev, LaunchConfig::linear(1, 1), &x, &mut out, 4, 3);
    let message = "range end index out of range for slice";
    assert!(matches!(&r, Err(Error::KernelPanic { message: m, .. }) if m == message), "{r:?}");
}

#[ptx_kernel]
fn swap_through(out: &mut [u32], shared_out: &mut [u32], i: usize, j: usize) {
    let t = thread_idx().x as usize;
    if t == 0 {
        let row = &mut out[2..6];
        row.swap(i, j);
    }
    let tile = shared::<u32, 8>();
    tile[t] = t as u32;
    sync_threads();
    if t == 0 {
        let half = &mut tile[4..];
        half.swap(j, i);
    }
    sync_threads();
    shared_out[t] = tile[t];
}

/// `swap` through a range, in and out of range: an index past the end is reported before
/// any element is written, and none is (it stored the out-of-range read's 0 into the other
/// element).
#[test]
fn swaps_out_of_range_write_nothing() {
    let dev = Device::sim();
    let one_block = LaunchConfig::linear(1, 8);
    let start: Vec<u32> = (0..10).collect();
    for (i, j) in [(1, 3), (4, 0), (0, 4), (7, 9)] {
        let mut out = dev.upload(&start).unwrap();
        let mut shared_out = dev.zeroed::<u32>(8).unwrap();
        let r = SwapThrough::new().launch(&dev, one_block, &mut out, &mut shared_out, i, j);
        let mut want = start.clone();
        let mut tile: Vec<u32> = (0..8).collect();
        if i < 4 && j < 4 {
            want[2..6].swap(i, j);
            tile[4..].swap(j, i);
            r.unwrap();
        } else {
            let first_out = if i >= 4 { i } else { j };
            assert!(
                matches!(&r, Err(Error::OutOfBounds { param, index, len: 4, .. }) if param == "row" && *index == first_out as i128),
                "{i}, {j}: {r:?}"
            );
        }
        assert_eq!(out.to_vec().unwrap(), want, "{i}, {j}");
        assert_eq!(shared_out.to_vec().unwrap(), tile, "{i}, {j}");
    }
}

/// Slices bound with their types written (`let row: &[f32] = ..`, refused as "a local's type
/// is a scalar"), a `&mut [T]` given where a `&[T]` is written, and a tuple of them.
#[ptx_kernel]
fn annotated_ranges(x: &[f32], out: &mut [f32], s: usize) {
    let head: &[f32] = &x[..s];
    let tail: &[f32] = &x[s..];
    let (a, b): (&[f32], &[f32]) = (&x[..1], &x[1..]);
    let w: &mut [f32] = &mut out[1..];
    w[0] = b[0];
    let read_only: &[f32] = w;
    let n = read_only.len() as f32;
    out[0] = head[0] + tail[0] + n + a.len() as f32;
}

#[test]
fn ranges_bound_with_their_types() {
    let dev = Device::sim();
    let x = dev.upload(&[1.0f32, 2.0, 4.0, 8.0]).unwrap();
    let mut out = dev.zeroed::<f32>(3).unwrap();
    AnnotatedRanges::new().launch(&dev, LaunchConfig::linear(1, 1), &x, &mut out, 1).unwrap();
    // head[0] + tail[0] + read_only.len() + a.len() = 1 + 2 + 2 + 1; out[1] = b[0] = 2.
    assert_eq!(out.to_vec().unwrap(), [6.0, 2.0, 0.0]);
}

/// The sum of `x` from `from` to its end (its length read only here).
#[ptx_device]
fn tail_sum(x: &[f32], from: usize) -> f32 {
    let mut s = 0.0;
    for v in &x[from..] {
        s += v;
    }
    s
}

/// An unchecked kernel reads a slice's length only where the body does: here only inside
/// the device function's open range.
#[ptx_kernel(unchecked)]
fn unchecked_tail(x: &[f32], out: &mut [f32]) {
    let t = thread_idx().x as usize;
    out[t] = tail_sum(x, t);
}

#[test]
fn an_open_range_in_a_device_function_reads_the_length() {
    let x: Vec<f32> = (0..16).map(|k| k as f32).collect();
    let dev = Device::sim();
    let mut out = dev.zeroed::<f32>(16).unwrap();
    // SAFETY: every thread's range `t..` is within `x` (16 threads, 16 elements).
    unsafe {
        UncheckedTail::new().launch(&dev, LaunchConfig::linear(1, 16), &dev.upload(&x).unwrap(), &mut out)
    }
    .unwrap();
    let want: Vec<f32> = (0..16).map(|t| x[t..].iter().sum()).collect();
    assert_eq!(out.to_vec().unwrap(), want);
}

/// A range's bounds in Rust's order: the start read before the end's block assigns it.
#[ptx_kernel]
fn bounds_in_order(x: &[u32], out: &mut [u32]) {
    let mut k: usize = 2;
    let r = &x[k..{
        k += 1;
        k
    }];
    out[0] = r.len() as u32;
    out[1] = r[0];
}

#[test]
fn range_bounds_are_read_in_order() {
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(2).unwrap();
    let x = dev.upload(&[10u32, 11, 12, 13]).unwrap();
    BoundsInOrder::new().launch(&dev, LaunchConfig::linear(1, 1), &x, &mut out).unwrap();
    // As the host: `x[2..3]`.
    assert_eq!(out.to_vec().unwrap(), [1, 12]);
}
