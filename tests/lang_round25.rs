//! What the twenty-fifth round of probing found in the language: `ilog10` and `isqrt` of
//! constants computed with std while the kernel was built, so a zero or negative operand
//! panicked on the host (even in a branch never taken) instead of being the launch's
//! `Err(KernelPanic)` where the call runs, as the other panicking methods are; and a
//! `clamp` that panics stopped no thread (the clamped value was stored and the body went on).
use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, Error, LaunchConfig};

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

#[ptx_kernel]
fn comptime_logs(out: &mut [u32], roots: &mut [i32], #[comptime] n: u32, #[comptime] m: i32) {
    out[0] = n.ilog10();
    roots[0] = m.isqrt();
}

#[ptx_kernel]
fn untaken_isqrt(x: &[i32], out: &mut [i32]) {
    if x[0] > 0 {
        out[0] = (-4i32).isqrt();
    }
    if x[0] > 1 {
        out[0] = 0u64.ilog10() as i32;
    }
    out[1] = 7 + x[1];
}

#[test]
fn logs_and_roots_of_constants_panic_where_they_run() {
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(1).unwrap();
    let mut roots = dev.zeroed::<i32>(1).unwrap();
    let one = LaunchConfig::linear(1, 1);
    for (n, m) in [(1, 0), (9, 1), (10, 17), (999_999, 1 << 30), (u32::MAX, i32::MAX)] {
        ComptimeLogs::new(n, m).launch(&dev, one, &mut out, &mut roots).unwrap();
        assert_eq!((out.to_vec().unwrap(), roots.to_vec().unwrap()), (vec![n.ilog10()], vec![m.isqrt()]));
    }
    let r = ComptimeLogs::new(0, 4).launch(&dev, one, &mut out, &mut roots);
    let want = "argument of integer logarithm must be positive";
    assert!(matches!(&r, Err(Error::KernelPanic { message, .. }) if message == want), "{r:?}");
    let r = ComptimeLogs::new(10, -1).launch(&dev, one, &mut out, &mut roots);
    let want = "argument of integer square root cannot be negative";
    assert!(matches!(&r, Err(Error::KernelPanic { message, .. }) if message == want), "{r:?}");

    // Not reached: no panic, as in Rust. Reached: the first panic of the body.
    let mut o = dev.zeroed::<i32>(2).unwrap();
    let r = UntakenIsqrt::new().launch(&dev, one, &dev.upload(&[0, 0]).unwrap(), &mut o);
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(o.to_vec().unwrap(), [0, 7]);
    let r = UntakenIsqrt::new().launch(&dev, one, &dev.upload(&[1, 0]).unwrap(), &mut o);
    assert!(matches!(&r, Err(Error::KernelPanic { message, .. }) if message == want), "{r:?}");
}

#[ptx_kernel]
fn clamp_stops(x: &[i32], h: &[f16], out: &mut [i32]) {
    out[0] = 1;
    out[1] = x[0].clamp(x[1], x[2]);
    out[2] = h[0].clamp(h[1], h[2]).to_f32() as i32;
    out[3] = 4;
}

/// `clamp` with `min > max` panics in Rust, which stops the thread: the kernel's thread
/// stopped there too (it stored the clamped value and went on), for integers and halves.
#[test]
fn a_clamp_that_panics_stops_the_thread() {
    use ptx_dsl::half::f16;
    let dev = Device::sim();
    let halves = |v: [f32; 3]| dev.upload(&v.map(f16::from_f32)).unwrap();
    let one = LaunchConfig::linear(1, 1);
    let mut out = dev.zeroed::<i32>(4).unwrap();
    ClampStops::new()
        .launch(&dev, one, &dev.upload(&[5, 2, 9]).unwrap(), &halves([7.0, 1.0, 3.0]), &mut out)
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), [1, 5, 3, 4]);
    for (ints, hs, message) in [
        ([5, 9, 2], [7.0, 1.0, 3.0], "min > max"),
        ([5, 2, 9], [7.0, 3.0, 1.0], "assertion failed: min <= max"),
        ([5, 2, 9], [7.0, f32::NAN, 1.0], "assertion failed: min <= max"),
    ] {
        let mut out = dev.zeroed::<i32>(4).unwrap();
        let r = ClampStops::new().launch(&dev, one, &dev.upload(&ints).unwrap(), &halves(hs), &mut out);
        assert!(matches!(&r, Err(Error::KernelPanic { message: m, .. }) if m == message), "{r:?}");
        let stored = if message == "min > max" { vec![1, 0, 0, 0] } else { vec![1, 5, 0, 0] };
        assert_eq!(out.to_vec().unwrap(), stored, "{message}: the thread went on");
    }
}

/// A constant zero divisor or out-of-range constant index in code a constant condition
/// rules out (`if d != 0 { x / d }`, `0 == 0 || x % 0 == 1`, a `match` arm that cannot
/// match) was refused as "always panics"; rustc compiles it (its lints do not look into
/// code that cannot run), and it runs as on the host.
#[ptx_kernel]
fn guarded_constants(a: &[u64], out: &mut [u64]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i >= a.len() {
        return;
    }
    let o = 6 * i;
    let d = 0u32;
    out[o] = if d != 0 { (a[i] as u32 / d) as u64 } else { 7 };
    const DD: u64 = 0;
    out[o + 1] = if DD > 0 { a[i] % DD } else { a[i] };
    let x = a[i] as u32;
    out[o + 2] = (0u32 == 0 || x % 0u32 == 1) as u64;
    out[o + 3] = match 0u8 {
        0 => 5,
        d => (a[i] as u8 / d) as u64,
    };
    let arr = [a[i], 2u64];
    let k = 7usize;
    out[o + 4] = if k < 2 { arr[k] } else { 3 };
    out[o + 5] = (k < 2 && arr[k] == 1) as u64;
}

#[test]
fn constants_in_code_that_cannot_run_are_no_errors() {
    let a: Vec<u64> = vec![0, 1, 255, 256, u64::MAX, 0x1234_5678_9abc];
    let dev = Device::sim();
    let mut out = dev.zeroed::<u64>(6 * a.len()).unwrap();
    GuardedConstants::new()
        .launch(&dev, LaunchConfig::for_elements(a.len(), 32), &dev.upload(&a).unwrap(), &mut out)
        .unwrap();
    let want: Vec<u64> = a.iter().flat_map(|&v| [7, v, 1, 5, 3, 0]).collect();
    assert_eq!(out.to_vec().unwrap(), want);
}

/// `min`/`max` of `bool`s (refused: "no method"), which are `Ord` with `false < true`.
#[ptx_kernel]
fn bool_extremes(a: &[u32], out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < a.len() {
        let (b, c) = (a[i] > 3, a[i] % 2 == 0);
        out[i] = b.max(c) as u32
            | (b.min(c) as u32) << 1
            | (std::cmp::min(b, c) as u32) << 2
            | (std::cmp::max(c, b) as u32) << 3
            | (bool::max(b, true) as u32) << 4;
    }
}

#[test]
fn bools_have_min_and_max() {
    let a: Vec<u32> = (0..8).collect();
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(a.len()).unwrap();
    BoolExtremes::new()
        .launch(&dev, LaunchConfig::for_elements(a.len(), 32), &dev.upload(&a).unwrap(), &mut out)
        .unwrap();
    let want: Vec<u32> = a
        .iter()
        .map(|&v| {
            let (b, c) = (v > 3, v % 2 == 0);
            b.max(c) as u32
                | (b.min(c) as u32) << 1
                | (std::cmp::min(b, c) as u32) << 2
                | (std::cmp::max(c, b) as u32) << 3
                | (bool::max(b, true) as u32) << 4
        })
        .collect();
    assert_eq!(out.to_vec().unwrap(), want);
}

// `let ... else` (refused), as plain Rust runs it: names bound by a range pattern with `@`,
// a `mut` name in a tuple, a pattern without names, a type written for one name, an
// `else` that returns, continues or panics.
twin!(let_else_kernel, let_else_host, |i, a: &[u64], out: &mut [u64]| {
    let x = a[i] as u8;
    let n @ 0u8..=50u8 = x else {
        out[i] = 99;
        return;
    };
    let (p, mut q) = (a[i] % 7, 3u64) else { return };
    q += p;
    let mut total: u64 = 0;
    for k in 0..4u64 {
        let 0..=2 = (a[i] + k) % 5 else {
            continue;
        };
        total += k;
    }
    let 0..=1000 = a[i] else {
        out[i] = 7;
        return;
    };
    out[i] = n as u64 * 1000 + q * 10 + total;
});

#[test]
fn let_else_runs_as_on_the_host() {
    let a: Vec<u64> = (0..80).map(|k| k * 13).collect();
    let mut want = vec![0u64; a.len()];
    for i in 0..a.len() {
        let_else_host(i, &a, &mut want);
    }
    // Every exit is taken by some input: the first `else`, the last one, and the end.
    assert!(want.contains(&99) && want.contains(&7) && want.iter().any(|&w| w > 1000), "{want:?}");
    let launch = |d: &_, c, x: &_, o: &mut _| LetElseKernel::new().launch(d, c, x, o);
    check_twin("let_else", &a, 1, &launch, let_else_host);
}
