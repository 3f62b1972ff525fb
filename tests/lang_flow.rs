//! Control flow, bindings, comptime parameters and checked indexing of `#[ptx_kernel]` on
//! the simulator, each against the same body written as plain Rust.

// The host references mirror the kernel bodies statement for statement.
#![allow(
    clippy::precedence,
    clippy::manual_checked_ops,
    clippy::needless_range_loop,
    clippy::needless_bool,
    clippy::nonminimal_bool
)]

mod common;

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, DeviceBuffer, Error, LaunchConfig};
use ptx_tools::rng::Rng;
use ptx_tools::ulp::same_bits;

/// Loops of every kind, `break`/`continue` (labelled too), `if` as an expression, block
/// expressions, shadowing, tuple patterns, `_` and compound assignment.
#[ptx_kernel]
fn control(a: &[u32], out: &mut [u32], n: u32) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i >= n {
        return;
    }
    let x = a[i];
    let o = i * 8;
    // for with step_by, continue and break
    let mut acc = 0u32;
    for j in (0..x % 50).step_by(3) {
        if j % 2 == 1 {
            continue;
        }
        if acc > 200 {
            break;
        }
        acc += j;
    }
    out[o] = acc;
    // while, with a short-circuit condition
    let mut k = x;
    let mut steps = 0u32;
    while k != 1 && steps < 100 {
        let next = if k % 2 == 0 { k / 2 } else { 3 * (k % 1000) + 1 };
        k = next;
        steps += 1;
    }
    out[o + 1] = steps;
    // loop with a labelled break out of a nested for
    let mut found = 0u32;
    'outer: loop {
        for d in 2..=9u32 {
            if x % d == 0 {
                found = d;
                break 'outer;
            }
        }
        found = 1;
        break;
    }
    out[o + 2] = found;
    // block expressions and tuple patterns
    let (lo, hi) = {
        let half = x / 2;
        (half, x - half)
    };
    let (_, hi2) = (lo * 2, hi + 1);
    out[o + 3] = lo ^ hi2;
    // if/else chains as expressions, bool-valued too
    let big = if x > 1000 {
        true
    } else if x > 10 {
        x % 3 == 0
    } else {
        false
    };
    out[o + 4] = if big { 1 } else { 2 };
    // compound assignment of every operator
    let mut m = x;
    m += 3;
    m -= 1;
    m *= 5;
    m /= 2;
    m %= 1_000_003;
    m <<= 3;
    m >>= 1;
    m &= 0xffff_fff0;
    m |= 1;
    m ^= 0x55;
    out[o + 5] = m;
    // inclusive ranges, down to an empty one
    let mut s = 0u32;
    for q in (x % 4)..=3 {
        s += q;
    }
    out[o + 6] = s;
    // shadowing in nested scopes
    let y = x;
    let y = if y > 5 { y - 1 } else { y + 2 };
    let y = y > 7 && y < 1000 || y == 3;
    let y = if y { x } else { x / 2 };
    {
        let y = y + 1;
        out[o + 7] = y;
    }
    out[o + 7] += y;
}

fn control_host(x: u32) -> [u32; 8] {
    let mut out = [0u32; 8];
    let mut acc = 0u32;
    for j in (0..x % 50).step_by(3) {
        if j % 2 == 1 {
            continue;
        }
        if acc > 200 {
            break;
        }
        acc += j;
    }
    out[0] = acc;
    let mut k = x;
    let mut steps = 0u32;
    while k != 1 && steps < 100 {
        let next = if k.is_multiple_of(2) { k / 2 } else { 3 * (k % 1000) + 1 };
        k = next;
        steps += 1;
    }
    out[1] = steps;
    let found: u32;
    #[allow(clippy::never_loop)]
    'outer: loop {
        for d in 2..=9u32 {
            if x.is_multiple_of(d) {
                found = d;
                break 'outer;
            }
        }
        found = 1;
        break;
    }
    out[2] = found;
    let (lo, hi) = {
        let half = x / 2;
        (half, x - half)
    };
    let (_, hi2) = (lo * 2, hi + 1);
    out[3] = lo ^ hi2;
    let big = if x > 1000 {
        true
    } else if x > 10 {
        x.is_multiple_of(3)
    } else {
        false
    };
    out[4] = if big { 1 } else { 2 };
    let mut m = x;
    m = m.wrapping_add(3);
    m = m.wrapping_sub(1);
    m = m.wrapping_mul(5);
    m /= 2;
    m %= 1_000_003;
    m = m.wrapping_shl(3);
    m >>= 1;
    m &= 0xffff_fff0;
    m |= 1;
    m ^= 0x55;
    out[5] = m;
    let mut s = 0u32;
    for q in (x % 4)..=3 {
        s += q;
    }
    out[6] = s;
    let y = x;
    let y = if y > 5 { y - 1 } else { y + 2 };
    let y = y > 7 && y < 1000 || y == 3;
    let y = if y { x } else { x / 2 };
    {
        let y = y.wrapping_add(1);
        out[7] = y;
    }
    out[7] = out[7].wrapping_add(y);
    out
}

#[test]
fn control_flow_and_bindings_match_plain_rust() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("control");
    let mut a: Vec<u32> = vec![0, 1, 2, 3, 7, 9, 10, 11, 12, 1000, 1001, 1002, u32::MAX, u32::MAX - 1];
    while a.len() < 300 {
        let r = rng.next();
        a.push(if r & 1 == 0 { (r >> 1) as u32 } else { (r >> 50) as u32 });
    }
    let n = a.len();
    let ad = dev.upload(&a)?;
    let mut out: DeviceBuffer<u32> = dev.zeroed(n * 8)?;
    common::assert_assembles("control", &Control::new());
    Control::new().launch(&dev, LaunchConfig::for_elements(n, 64), &ad, &mut out, n as u32)?;
    let got = out.to_vec()?;
    for (i, &x) in a.iter().enumerate() {
        assert_eq!(&got[i * 8..i * 8 + 8], &control_host(x)[..], "x = {x}");
    }
    Ok(())
}

/// Blocks as values: an `else` that only returns takes the other arm's type, and a block
/// whose statements store before a constant tail still stores.
#[ptx_kernel]
fn block_values(x: &[u32], out: &mut [u32], marks: &mut [u32]) {
    let i = thread_idx().x as usize;
    let n = {
        marks[i] = 7;
        5u32
    };
    let v: u32 = if x[i] % 3 != 0 {
        x[i]
    } else {
        return;
    };
    out[i] = v * n;
}

#[test]
fn blocks_give_their_value_after_their_statements_and_a_returning_arm_gives_none(
) -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("block_values");
    let x: Vec<u32> = (0..64).map(|_| rng.next() as u32).collect();
    let xd = dev.upload(&x)?;
    let (mut out, mut marks) = (dev.zeroed::<u32>(64)?, dev.zeroed::<u32>(64)?);
    BlockValues::new().launch(&dev, LaunchConfig::linear(1, 64), &xd, &mut out, &mut marks)?;
    let want: Vec<u32> = x.iter().map(|&v| if v % 3 != 0 { v.wrapping_mul(5) } else { 0 }).collect();
    assert_eq!(out.to_vec()?, want, "x = {x:?}");
    assert_eq!(marks.to_vec()?, vec![7; 64]);
    Ok(())
}

/// `&&` and `||` do not evaluate their right side, loads included, when the left decides:
/// the loads below would be out of range (an error in a checked kernel) if they ran.
#[ptx_kernel]
fn short_circuit(x: &[f32], out: &mut [u32], n: u32) {
    let i = thread_idx().x;
    let len = x.len() as u32;
    let ok = i < len && x[i] > 0.0;
    let other = i >= len || x[i] < 0.0;
    if i < n {
        out[i] = ok as u32 + 2 * other as u32;
    }
}

#[test]
fn short_circuit_skips_the_right_side_and_its_loads() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x = dev.upload(&[1.0f32, -2.0, 0.0, 5.0])?;
    let mut out: DeviceBuffer<u32> = dev.zeroed(8)?;
    common::assert_assembles("short_circuit", &ShortCircuit::new());
    ShortCircuit::new().launch(&dev, LaunchConfig::linear(1, 8), &x, &mut out, 8)?;
    assert_eq!(out.to_vec()?, [1, 2, 0, 1, 2, 2, 2, 2]);
    Ok(())
}

/// Comptime parameters: folded sub-expressions, a comptime `if`, an unrolled loop.
#[ptx_kernel]
fn poly(
    x: &[f32],
    out: &mut [f32],
    #[comptime] degree: u32,
    #[comptime] scale: f32,
    #[comptime] odd_only: bool,
) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i as usize >= x.len() {
        return;
    }
    let v = x[i];
    let mut acc = 0.0f32;
    let mut p = 1.0f32;
    #[unroll]
    for k in 0..=degree {
        if !odd_only || k % 2 == 1 {
            acc += p * (scale * 2.0f32.powi(-(k as i32)));
        }
        p *= v;
    }
    out[i] = acc;
}

fn poly_host(v: f32, degree: u32, scale: f32, odd_only: bool) -> f32 {
    let mut acc = 0.0f32;
    let mut p = 1.0f32;
    for k in 0..=degree {
        if !odd_only || k % 2 == 1 {
            acc += p * (scale * 2.0f32.powi(-(k as i32)));
        }
        p *= v;
    }
    acc
}

#[test]
fn comptime_parameters_fold_and_unroll() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("poly");
    let xs: Vec<f32> = (0..256).map(|_| rng.signed_f32() * 3.0).collect();
    let x = dev.upload(&xs)?;
    let branches = |k: &Poly| k.ptx().matches("bra").count();
    // Unrolled, with the comptime `if` decided while building: no branch of the loop's own,
    // whatever the degree (the ones left are the early return's and the bounds checks').
    assert_eq!(branches(&Poly::new(0, 1.0, false)), branches(&Poly::new(6, -1.25, true)));
    for (degree, scale, odd_only) in [(0, 1.0f32, false), (3, 0.5, false), (6, -1.25, true)] {
        let kernel = Poly::new(degree, scale, odd_only);
        common::assert_assembles("poly", &kernel);
        let mut out: DeviceBuffer<f32> = dev.zeroed(xs.len())?;
        kernel.launch(&dev, LaunchConfig::for_elements(xs.len(), 64), &x, &mut out)?;
        let got = out.to_vec()?;
        for (g, &v) in got.iter().zip(&xs) {
            assert_eq!(
                g.to_bits(),
                poly_host(v, degree, scale, odd_only).to_bits(),
                "v = {v}, degree {degree}"
            );
        }
    }
    assert_ne!(Poly::new(3, 0.5, false).cache_key(), Poly::new(3, 0.5, true).cache_key());
    Ok(())
}

/// An out-of-range access in a checked kernel.
#[ptx_kernel]
fn gather(src: &[f32], idx: &[i32], out: &mut [f32]) {
    let i = thread_idx().x;
    if (i as usize) < idx.len() {
        out[i] = src[idx[i]];
    }
}

#[test]
fn out_of_range_index_is_an_error_naming_parameter_index_length_and_line() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let src = dev.upload(&[10.0f32, 20.0, 30.0])?;
    let idx = dev.upload(&[2i32, -4, 1, 7])?;
    let mut out: DeviceBuffer<f32> = dev.zeroed(4)?;
    common::assert_assembles("gather", &Gather::new());
    let err = Gather::new().launch(&dev, LaunchConfig::linear(1, 4), &src, &idx, &mut out).unwrap_err();
    match &err {
        Error::OutOfBounds { kernel, param, index, len, location } => {
            assert_eq!((kernel.as_str(), param.as_str(), *len), ("gather", "src", 3));
            assert!(*index == -4 || *index == 7, "index {index}");
            assert!(location.starts_with("tests/lang_flow.rs:"), "{location}");
            let line: u32 = location.split(':').nth(1).and_then(|l| l.parse().ok()).unwrap_or(0);
            let source = include_str!("lang_flow.rs");
            let text = source.lines().nth(line as usize - 1).unwrap_or("");
            assert!(text.contains("src[idx[i]]"), "line {line} is `{text}`");
        }
        other => panic!("expected OutOfBounds, got {other}"),
    }
    // The in-range threads ran, the faulting ones read 0.
    let got = out.to_vec()?;
    assert_eq!((got[0], got[1], got[2], got[3]), (30.0, 0.0, 20.0, 0.0));
    // The error is not sticky: a good launch right after is clean.
    let good = dev.upload(&[0i32, 1, 2, 0])?;
    Gather::new().launch(&dev, LaunchConfig::linear(1, 4), &src, &good, &mut out)?;
    assert_eq!(out.to_vec()?, [10.0, 20.0, 30.0, 10.0]);
    Ok(())
}

#[ptx_kernel]
fn divide(a: &[i32], b: &[i32], out: &mut [i32]) {
    let i = thread_idx().x;
    out[i] = a[i] / b[i];
}

#[test]
fn integer_division_by_zero_is_reported_as_rusts_panic() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let a = dev.upload(&[7i32, 8, i32::MIN])?;
    let b = dev.upload(&[2i32, 0, -1])?;
    let mut out: DeviceBuffer<i32> = dev.zeroed(3)?;
    common::assert_assembles("divide", &Divide::new());
    let err = Divide::new().launch(&dev, LaunchConfig::linear(1, 3), &a, &b, &mut out).unwrap_err();
    let Error::KernelPanic { kernel, message, location } = &err else {
        panic!("expected KernelPanic, got {err}")
    };
    assert_eq!(kernel, "divide");
    assert!(message.starts_with("attempt to divide"), "{message}");
    assert!(location.starts_with("tests/lang_flow.rs:"), "{location}");
    assert_eq!(out.to_vec()?[0], 3);
    Ok(())
}

/// Guards that prove accesses in range remove their checks; the others stay.
#[ptx_kernel]
fn guarded(x: &[f32], y: &mut [f32], z: &mut [f32]) {
    let i = thread_idx().x;
    if (i as usize) < x.len() && i < y.len() as u32 {
        y[i] = x[i] * 2.0;
        z[i] = x[i];
    }
    for j in 0..x.len() {
        z[0] += x[j];
    }
    if i >= 1 || (i as usize) >= z.len() {
        return;
    }
    // Only `i < z.len()` is known here: `z[i]` is unchecked, `y[i]` is not.
    z[i] += y[i];
}

#[test]
fn guards_that_prove_an_index_in_range_remove_its_check() -> ptx_dsl::runtime::Result<()> {
    // Left: `z[i]` (no guard on z's length), `z[0]` twice (load and store of `+=`) and
    // `y[i]` after the early return.
    assert_eq!(Guarded::new().bounds_checks(), 4);
    common::assert_assembles("guarded", &Guarded::new());
    let dev = Device::sim();
    let x = dev.upload(&[1.0f32, 2.0, 3.0])?;
    let mut y: DeviceBuffer<f32> = dev.zeroed(2)?;
    let mut z: DeviceBuffer<f32> = dev.zeroed(1)?;
    let err = Guarded::new().launch(&dev, LaunchConfig::linear(1, 1), &x, &mut y, &mut z);
    assert!(err.is_ok(), "{err:?}");
    assert_eq!((y.to_vec()?, z.to_vec()?), (vec![2.0, 0.0], vec![9.0]));
    // With four threads, `z[1]` is out of range: still caught.
    let err = Guarded::new().launch(&dev, LaunchConfig::linear(1, 4), &x, &mut y, &mut z).unwrap_err();
    assert!(matches!(err, Error::OutOfBounds { ref param, index: 1, len: 1, .. } if param == "z"), "{err}");
    Ok(())
}

/// Guards that look like proofs but are not: every access below keeps its check.
#[ptx_kernel]
fn not_proven(x: &[f32], y: &mut [f32], k: &[i32], flag: &mut [u32]) {
    let i = thread_idx().x;
    // The arm does not leave, so nothing is known about `i` after it.
    if i as usize >= x.len() {
        flag[0] = 1;
    }
    y[i] = x[i];
    // A mutable variable can change after its guard.
    let mut j = i;
    if (j as usize) < x.len() {
        j += 2;
        y[j] = x[j];
    }
    // A signed index below the length can still be negative.
    let s = k[0];
    if s < x.len() as i32 {
        y[s] = x[s];
    }
}

/// Kept out of rustfmt, which would add the `;` this kernel is about.
#[rustfmt::skip]
mod unformatted {
    use ptx_dsl::prelude::*;

    /// An early `return` written as the block's value (no `;`) proves what `return;` does.
    #[ptx_kernel]
    pub fn tail_return(x: &[f32], y: &mut [f32]) {
        let i = thread_idx().x;
        if i as usize >= x.len() || i as usize >= y.len() {
            return
        }
        y[i] = x[i];
    }
}
use unformatted::TailReturn;

/// `tail_return` with `return;`: the same PTX, an early return being one conditional
/// branch to the exit either way.
#[ptx_kernel]
fn semicolon_return(x: &[f32], y: &mut [f32]) {
    let i = thread_idx().x;
    if i as usize >= x.len() || i as usize >= y.len() {
        return;
    }
    y[i] = x[i];
}

#[test]
fn an_early_return_is_one_branch_with_or_without_its_semicolon() {
    let instructions = |ptx: String| -> Vec<String> {
        let ptx = ptx.replace("semicolon_return", "tail_return");
        ptx.lines()
            .filter(|l| !l.trim_start().starts_with("//") && !l.contains(".loc"))
            .map(String::from)
            .collect()
    };
    let tail = instructions(TailReturn::new().ptx());
    assert_eq!(instructions(SemicolonReturn::new().ptx()), tail);
    // One branch joins the `||`, the other is the return.
    assert_eq!(tail.iter().filter(|l| l.contains("bra ")).count(), 2, "{tail:#?}");
}

/// Guards with the length on the left prove as well.
#[ptx_kernel]
fn length_on_the_left(x: &[f32], y: &mut [f32]) {
    let i = thread_idx().x as usize;
    if x.len() <= i || y.len() <= i {
        return;
    }
    y[i] = x[i];
}

#[test]
fn guards_that_do_not_prove_keep_their_checks() -> ptx_dsl::runtime::Result<()> {
    // All eight accesses of `not_proven` (`flag[0]`, `k[0]` and two per pair) are checked.
    assert_eq!(NotProven::new().bounds_checks(), 8);
    assert_eq!(TailReturn::new().bounds_checks(), 0);
    assert_eq!(LengthOnTheLeft::new().bounds_checks(), 0);
    let dev = Device::sim();
    let x = dev.upload(&[1.0f32, 2.0, 3.0, 4.0])?;
    let (mut y, mut flag) = (dev.zeroed::<f32>(8)?, dev.zeroed::<u32>(1)?);
    // A negative index passes `s < x.len() as i32` and is caught (at `x[s]`: Rust
    // evaluates the assigned value before the place).
    let k = dev.upload(&[-1i32])?;
    let err =
        NotProven::new().launch(&dev, LaunchConfig::linear(1, 1), &x, &mut y, &k, &mut flag).unwrap_err();
    assert!(matches!(err, Error::OutOfBounds { ref param, index: -1, .. } if param == "x"), "{err}");
    // Threads past `x.len()` set the flag and are caught at `x[i]`.
    let k = dev.upload(&[0i32])?;
    let err =
        NotProven::new().launch(&dev, LaunchConfig::linear(1, 6), &x, &mut y, &k, &mut flag).unwrap_err();
    assert!(matches!(err, Error::OutOfBounds { ref param, len: 4, .. } if param == "x"), "{err}");
    assert_eq!(flag.to_vec()?, [1]);
    // `j + 2` past the end is caught (thread 2 reads `x[4]`).
    let err =
        NotProven::new().launch(&dev, LaunchConfig::linear(1, 3), &x, &mut y, &k, &mut flag).unwrap_err();
    assert!(matches!(err, Error::OutOfBounds { ref param, index: 4, len: 4, .. } if param == "x"), "{err}");
    let mut short = dev.zeroed::<f32>(2)?;
    TailReturn::new().launch(&dev, LaunchConfig::linear(1, 8), &x, &mut short)?;
    assert_eq!(short.to_vec()?, [1.0, 2.0]);
    Ok(())
}

/// `x[i + 1]` with a `u32` index wraps like Rust's release-mode `u32` sum: at `u32::MAX`
/// it reads `x[0]` (only 64-bit sums become address offsets, which an unchecked kernel
/// folds into the access).
#[ptx_kernel(unchecked)]
fn wrapped_index(x: &[f32], out: &mut [f32], i: u32) {
    out[0] = x[i + 1];
}

#[test]
fn a_u32_index_sum_wraps_before_it_indexes() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x = dev.upload(&[1.0f32, 2.0, 3.0])?;
    let mut out = dev.zeroed::<f32>(1)?;
    for (i, want) in [(u32::MAX, 1.0), (1, 3.0)] {
        // SAFETY: `i + 1` wraps to 0 or is 2: in range of `x` (3 elements) either way.
        unsafe { WrappedIndex::new().launch(&dev, LaunchConfig::linear(1, 1), &x, &mut out, i)? };
        assert_eq!(out.to_vec()?, [want], "i = {i}");
    }
    Ok(())
}

#[ptx_kernel(unchecked)]
fn copy_unchecked(x: &[f32], y: &mut [f32]) {
    let i = thread_idx().x;
    y[i] = x[i];
}

#[test]
fn unchecked_kernels_have_no_checks_and_an_unsafe_launch() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x = dev.upload(&[1.0f32, 2.0])?;
    let mut y: DeviceBuffer<f32> = dev.zeroed(2)?;
    common::assert_assembles("copy_unchecked", &CopyUnchecked::new());
    assert_eq!(CopyUnchecked::new().bounds_checks(), 0);
    let ptx = CopyUnchecked::new().ptx();
    assert!(!ptx.contains("atom"), "no fault record in an unchecked kernel:\n{ptx}");
    // SAFETY: two threads index two-element buffers.
    unsafe { CopyUnchecked::new().launch(&dev, LaunchConfig::linear(1, 2), &x, &mut y)? };
    assert_eq!(y.to_vec()?, [1.0, 2.0]);
    Ok(())
}

/// Narrow integer slices and values, and signed indices.
#[ptx_kernel]
fn narrow(a: &[u16], b: &[i16], out: &mut [i16], n: i32) {
    let i = thread_idx().x as i32;
    if i < n {
        let x = a[i] as u8;
        let y = b[i];
        out[i] = (x as i16).wrapping_mul(y) + (y >> 3) - (a[i] as i16);
    }
}

#[test]
fn narrow_integers_behave_like_rust() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("narrow");
    let mut a: Vec<u16> = vec![0, 1, 255, 256, 65535, 32768];
    let mut b: Vec<i16> = vec![0, -1, i16::MIN, i16::MAX, 7, -300];
    while a.len() < 64 {
        let r = rng.next();
        a.push(r as u16);
        b.push((r >> 16) as i16);
    }
    let n = a.len();
    let (ad, bd) = (dev.upload(&a)?, dev.upload(&b)?);
    let mut out: DeviceBuffer<i16> = dev.zeroed(n)?;
    common::assert_assembles("narrow", &Narrow::new());
    Narrow::new().launch(&dev, LaunchConfig::linear(1, n as u32), &ad, &bd, &mut out, n as i32)?;
    let got = out.to_vec()?;
    for i in 0..n {
        let x = a[i] as u8;
        let y = b[i];
        let want = (x as i16).wrapping_mul(y).wrapping_add(y >> 3).wrapping_sub(a[i] as i16);
        assert_eq!(got[i], want, "a = {}, b = {}", a[i], b[i]);
    }
    Ok(())
}

/// Byte slices: `u8` loads zero-extend, `i8` loads sign-extend, stores keep the low byte;
/// checked accesses out of range read 0 and are reported like any other slice.
#[ptx_kernel]
fn bytes(a: &[u8], b: &[i8], sum: &mut [i16], wrapped: &mut [u8], neg: &mut [i8], n: u32) {
    let i = thread_idx().x;
    if i < n {
        let (x, y) = (a[i], b[i]);
        sum[i] = x as i16 + y as i16;
        wrapped[i] = x.wrapping_mul(3).wrapping_add(y as u8);
        neg[i] = y.wrapping_neg() >> 1;
    }
}

#[test]
fn byte_slices_behave_like_rust() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("bytes");
    let mut a: Vec<u8> = vec![0, 1, 127, 128, 255, 200];
    let mut b: Vec<i8> = vec![0, -1, i8::MIN, i8::MAX, 7, -100];
    // An odd length, so the byte buffers do not end on a word boundary.
    while a.len() < 75 {
        let r = rng.next();
        a.push(r as u8);
        b.push((r >> 8) as i8);
    }
    let n = a.len();
    let (ad, bd) = (dev.upload(&a)?, dev.upload(&b)?);
    let mut sum: DeviceBuffer<i16> = dev.zeroed(n)?;
    let mut wrapped: DeviceBuffer<u8> = dev.upload(&vec![0xa5; n])?;
    let mut neg: DeviceBuffer<i8> = dev.zeroed(n)?;
    common::assert_assembles("bytes", &Bytes::new());
    let ptx = Bytes::new().ptx();
    for form in ["ld.global.u8", "ld.global.s8", "st.global.u8", "st.global.s8"] {
        assert!(ptx.contains(form), "bytes move as bytes ({form}):\n{ptx}");
    }
    Bytes::new().launch(
        &dev,
        LaunchConfig::linear(1, 96),
        &ad,
        &bd,
        &mut sum,
        &mut wrapped,
        &mut neg,
        n as u32,
    )?;
    let (sum, wrapped, neg) = (sum.to_vec()?, wrapped.to_vec()?, neg.to_vec()?);
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        assert_eq!(sum[i], x as i16 + y as i16, "a = {x}, b = {y}");
        assert_eq!(wrapped[i], x.wrapping_mul(3).wrapping_add(y as u8), "a = {x}, b = {y}");
        assert_eq!(neg[i], y.wrapping_neg() >> 1, "b = {y}");
    }
    // A byte index past the end is reported with the byte slice's name and length.
    let short = dev.upload(&a[..10])?;
    let (mut sum, mut wrapped, mut neg) = (dev.zeroed(n)?, dev.zeroed(n)?, dev.zeroed(n)?);
    let err = Bytes::new()
        .launch(&dev, LaunchConfig::linear(1, 16), &short, &bd, &mut sum, &mut wrapped, &mut neg, 16)
        .unwrap_err();
    let Error::OutOfBounds { param, index, len, .. } = &err else { panic!("expected OutOfBounds: {err}") };
    assert_eq!((param.as_str(), *len), ("a", 10), "{err}");
    assert!((10..16).contains(index), "{err}");
    Ok(())
}

#[ptx_kernel(unchecked)]
fn wild_read(x: &[f32], y: &mut [f32], offset: u32) {
    let i = thread_idx().x;
    y[i] = x[i + offset];
}

#[test]
fn a_simulator_fault_names_the_rust_line() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x = dev.upload(&[1.0f32; 4])?;
    let mut y: DeviceBuffer<f32> = dev.zeroed(4)?;
    // SAFETY: deliberately out of range, on the simulator, which traps the access.
    let err =
        unsafe { WildRead::new().launch(&dev, LaunchConfig::linear(1, 1), &x, &mut y, 1 << 28) }.unwrap_err();
    let Error::SimFault { location: Some(location), .. } = &err else {
        panic!("expected a SimFault with a location: {err}")
    };
    let line: usize = location.split(':').nth(1).and_then(|l| l.parse().ok()).unwrap_or(0);
    assert!(location.starts_with("tests/lang_flow.rs:"), "{location}");
    let text = include_str!("lang_flow.rs").lines().nth(line - 1).unwrap_or("");
    assert!(text.contains("y[i] = x[i + offset];"), "line {line} is `{text}`");
    assert!(err.to_string().contains(location.as_str()), "{err}");
    Ok(())
}

/// A comptime divisor of zero is a fault at launch, not a panic while building.
#[ptx_kernel]
fn split(out: &mut [u32], #[comptime] total: u32, #[comptime] parts: u32) {
    let i = thread_idx().x;
    out[i] = total / parts + total % 7;
}

#[test]
fn a_comptime_division_by_zero_is_a_launch_error_not_a_panic() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut out: DeviceBuffer<u32> = dev.zeroed(2)?;
    Split::new(100, 3).launch(&dev, LaunchConfig::linear(1, 2), &mut out)?;
    assert_eq!(out.to_vec()?, [35, 35]);
    let err = Split::new(100, 0).launch(&dev, LaunchConfig::linear(1, 2), &mut out).unwrap_err();
    assert!(
        matches!(&err, Error::KernelPanic { message, .. } if message == "attempt to divide by zero"),
        "{err}"
    );
    Ok(())
}

mod first {
    use ptx_dsl::prelude::*;
    #[ptx_kernel]
    pub fn same_name(out: &mut [u32]) {
        out[thread_idx().x] = 1;
    }
}

mod second {
    use ptx_dsl::prelude::*;
    #[ptx_kernel]
    pub fn same_name(out: &mut [u32]) {
        out[thread_idx().x] = 2;
    }
}

#[test]
fn same_named_kernels_of_different_modules_do_not_share_a_cache_slot() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut out: DeviceBuffer<u32> = dev.zeroed(1)?;
    first::SameName::new().launch(&dev, LaunchConfig::linear(1, 1), &mut out)?;
    assert_eq!(out.to_vec()?, [1]);
    second::SameName::new().launch(&dev, LaunchConfig::linear(1, 1), &mut out)?;
    assert_eq!(out.to_vec()?, [2]);
    Ok(())
}

/// Ranges of signed and unsigned types, inclusive or not, stepped, up to the type's end.
#[ptx_kernel]
fn ranges(a: &[i32], out: &mut [i64]) {
    let i = thread_idx().x + block_idx().x * block_dim().x;
    if (i as usize) >= a.len() {
        return;
    }
    let x = a[i];
    let mut s = 0i64;
    for j in (x..=x + 20).step_by(3) {
        s += j as i64;
    }
    for j in (x - 5..x).step_by(2) {
        s = s * 3 + j as i64;
    }
    let top = (x as u8).wrapping_add(250);
    for k in (top..=255u8).step_by(2) {
        s += k as i64;
    }
    for k in (x..=i32::MAX).step_by(1 << 30) {
        s ^= k as i64;
    }
    out[i] = s;
}

fn ranges_host(x: i32) -> i64 {
    let mut s = 0i64;
    for j in (x..=x.wrapping_add(20)).step_by(3) {
        s = s.wrapping_add(j as i64);
    }
    for j in (x.wrapping_sub(5)..x).step_by(2) {
        s = s.wrapping_mul(3).wrapping_add(j as i64);
    }
    let top = (x as u8).wrapping_add(250);
    for k in (top..=255u8).step_by(2) {
        s = s.wrapping_add(k as i64);
    }
    for k in (x..=i32::MAX).step_by(1 << 30) {
        s ^= k as i64;
    }
    s
}

#[test]
fn stepped_and_inclusive_ranges_stop_where_rusts_iterators_do() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("ranges");
    let mut a: Vec<i32> =
        vec![0, 1, -1, 5, -7, 100, i32::MAX - 30, i32::MAX, i32::MIN, i32::MIN + 3, 1 << 30];
    while a.len() < 128 {
        a.push(rng.next() as i32 >> (rng.next() % 31));
    }
    // The host's `x + 20` would overflow for the largest x; the kernel wraps like release
    // Rust, and so does the reference.
    let ad = dev.upload(&a)?;
    let mut out: DeviceBuffer<i64> = dev.zeroed(a.len())?;
    Ranges::new().launch(&dev, LaunchConfig::for_elements(a.len(), 64), &ad, &mut out)?;
    let got = out.to_vec()?;
    for (i, &x) in a.iter().enumerate() {
        assert_eq!(got[i], ranges_host(x), "x = {x}");
    }
    Ok(())
}

/// Bindings that alias mutable variables, tuple-valued `if`s, conditions with loads.
#[ptx_kernel]
fn tricky(a: &[u32], out: &mut [u32], #[comptime] wide: bool) {
    let i = thread_idx().x + block_idx().x * block_dim().x;
    if (i as usize) >= a.len() {
        return;
    }
    let mut m = a[i];
    let before = m;
    m += 1;
    let pair = if m % 2 == 0 { (m, before) } else { (before, m) };
    let (p, q) = pair;
    m *= 3;
    let mut k = 0u32;
    while k < 40 && a[(i as usize + k as usize) % a.len()] % 7 != 0 {
        k += 1;
    }
    let z = loop {
        if m > 1000 {
            break;
        }
        m = m * 2 + 1;
    };
    let _ = z;
    let t = if wide { (p as u64 * q as u64) as u32 } else { p ^ q };
    let blocky = {
        let m = m + 5;
        m / 2
    };
    let flag = !(p > q) || before == 0;
    out[i] = t.wrapping_add(k).wrapping_add(blocky) ^ (flag as u32) ^ m;
}

fn tricky_host(a: &[u32], i: usize, wide: bool) -> u32 {
    let mut m = a[i];
    let before = m;
    m = m.wrapping_add(1);
    let pair = if m.is_multiple_of(2) { (m, before) } else { (before, m) };
    let (p, q) = pair;
    m = m.wrapping_mul(3);
    let mut k = 0u32;
    while k < 40 && !a[(i + k as usize) % a.len()].is_multiple_of(7) {
        k += 1;
    }
    loop {
        if m > 1000 {
            break;
        }
        m = m.wrapping_mul(2).wrapping_add(1);
    }
    let t = if wide { (p as u64).wrapping_mul(q as u64) as u32 } else { p ^ q };
    let blocky = {
        let m = m.wrapping_add(5);
        m / 2
    };
    let flag = !(p > q) || before == 0;
    t.wrapping_add(k).wrapping_add(blocky) ^ (flag as u32) ^ m
}

#[test]
fn aliasing_tuple_ifs_and_loaded_conditions_match_plain_rust() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("tricky");
    let mut a: Vec<u32> = vec![0, 1, 6, 7, 999, 1000, u32::MAX];
    while a.len() < 200 {
        let r = rng.next();
        a.push(if r & 1 == 0 { (r >> 40) as u32 } else { r as u32 });
    }
    let ad = dev.upload(&a)?;
    for wide in [false, true] {
        let mut out: DeviceBuffer<u32> = dev.zeroed(a.len())?;
        Tricky::new(wide).launch(&dev, LaunchConfig::for_elements(a.len(), 64), &ad, &mut out)?;
        let got = out.to_vec()?;
        for i in 0..a.len() {
            assert_eq!(got[i], tricky_host(&a, i, wide), "a[{i}] = {}, wide {wide}", a[i]);
        }
    }
    Ok(())
}

/// Constants and statics of the surrounding code, by name and by path: a shared array's
/// length, a scale, an unrolled loop's count, and casts from the item's own type.
const TILE: usize = 64;
/// See [`TILE`].
const SCALE: f32 = 2.5;
/// See [`TILE`].
static OFFSET: u32 = 7;

mod tuning {
    /// See [`super::TILE`].
    pub const STEPS: u32 = 3;
    /// A float constant cast to an integer: Rust's saturating `as`.
    pub const BIG: f64 = 1e12;
}

#[ptx_kernel]
fn item_constants(x: &mut [f32], y: &mut [u32]) {
    let tile = shared::<f32, TILE>();
    let i = thread_idx().x as usize;
    if i < x.len() && i < TILE && i < y.len() {
        tile[i] = x[i] * SCALE;
        x[i] = tile[i];
        let mut acc = OFFSET;
        #[unroll]
        for s in 0..tuning::STEPS {
            acc += s;
        }
        y[i] = acc + TILE as u32 + (tuning::BIG as u32 - u32::MAX);
    }
}

/// A loop bound that is a constant of the surrounding code, with nothing but the loop
/// variable's use as an index to say its type: Rust's indexing makes it a `usize`.
const LANES: usize = 4;

#[ptx_kernel]
fn constant_loop_bound(x: &mut [f32]) {
    for i in 0..LANES {
        x[i] = i as f32 * 0.5;
    }
    let last = 5;
    x[last] = x.len() as f32;
}

#[test]
fn a_constant_loop_bound_takes_its_type_from_indexing() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut x = dev.upload(&[-1.0f32; 8])?;
    ConstantLoopBound::new().launch(&dev, LaunchConfig::linear(1, 1), &mut x)?;
    assert_eq!(x.to_vec()?, [0.0, 0.5, 1.0, 1.5, -1.0, 8.0, -1.0, -1.0]);
    Ok(())
}

/// Constants whose types nothing in the kernel says, each used only in values computed
/// while the kernel is built: rustc infers their types from the items.
const LIMIT: u32 = 10;
/// See [`LIMIT`]: beyond `i32`'s range, which a default type would refuse.
const BIG: u64 = 5_000_000_000;
/// See [`LIMIT`].
const RATIO: f32 = 2.0;
/// See [`LIMIT`].
const NEG: i8 = -3;

#[ptx_kernel]
fn host_typed_constants(x: &mut [f32]) {
    if LIMIT > 4 {
        x[0] += 1.0;
    }
    let twice = LIMIT * 2;
    if twice >= 20 && NEG < -2 {
        x[1] = 5.0;
    }
    if BIG > 4_000_000_000 {
        x[2] = 7.0;
    }
    if RATIO > 1.5 {
        x[3] = 9.0;
    }
    x[4] = if BIG > 3 { 1.0 } else { 2.0 };
}

#[test]
fn constants_used_only_while_building_take_the_items_types() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut x = dev.upload(&[0.5f32; 6])?;
    HostTypedConstants::new().launch(&dev, LaunchConfig::linear(1, 1), &mut x)?;
    assert_eq!(x.to_vec()?, [1.5, 5.0, 7.0, 9.0, 1.0, 0.5]);
    Ok(())
}

/// `const` items of the kernel's own body: comptime bindings (a shared length, a sum).
#[ptx_kernel]
fn body_constants(x: &mut [u32], #[comptime] n: u32) {
    const BLOCK: usize = 32;
    const TWICE: u32 = 2 * 21;
    let tile = shared::<u32, BLOCK>();
    let i = thread_idx().x as usize;
    if i < x.len() && i < BLOCK {
        tile[i] = x[i] + TWICE + n;
        x[i] = tile[i];
    }
}

#[test]
fn const_items_of_a_kernels_body_are_comptime() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut x = dev.upload(&[1u32; 32])?;
    BodyConstants::new(5).launch(&dev, LaunchConfig::linear(1, 32), &mut x)?;
    assert_eq!(x.to_vec()?, vec![1 + 42 + 5; 32]);
    Ok(())
}

#[test]
fn constants_of_the_surrounding_code_are_read_as_rust_reads_them() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut x = dev.upload(&[1.0f32; 64])?;
    let mut y = dev.upload(&[0u32; 64])?;
    ItemConstants::new().launch(&dev, LaunchConfig::linear(1, 64), &mut x, &mut y)?;
    assert_eq!(x.to_vec()?, vec![SCALE; 64]);
    let want = OFFSET + (0..tuning::STEPS).sum::<u32>() + TILE as u32 + (tuning::BIG as u32 - u32::MAX);
    assert_eq!(y.to_vec()?, vec![want; 64]);
    Ok(())
}

/// Slices bound through tuple patterns (nested, and shadowing the parameter they alias):
/// their lengths are the parameters' lengths, and a guard on them proves the accesses.
#[ptx_kernel]
fn tuple_bound_slices(a: &[u32], out: &mut [u32]) {
    let ((src, n), dst) = ((a, 3u32), out);
    let (a, len) = (n, src.len());
    let i = thread_idx().x as usize;
    if i < src.len() && i < dst.len() {
        dst[i] = src[i].wrapping_mul(a) ^ len as u32;
    }
}

#[test]
fn slices_bound_in_tuple_patterns_keep_their_lengths_and_guards() -> ptx_dsl::runtime::Result<()> {
    assert_eq!(TupleBoundSlices::new().bounds_checks(), 0);
    let dev = Device::sim();
    let a: Vec<u32> = (0..37u32).map(|k| k.wrapping_mul(0x9E37_79B9) ^ k).collect();
    let ad = dev.upload(&a)?;
    let mut out = dev.upload(&[5u32; 40])?;
    TupleBoundSlices::new().launch(&dev, LaunchConfig::for_elements(40, 64), &ad, &mut out)?;
    let mut want = vec![5u32; 40];
    for (w, x) in want.iter_mut().zip(&a) {
        *w = x.wrapping_mul(3) ^ 37;
    }
    assert_eq!(out.to_vec()?, want);
    Ok(())
}

/// More shapes: `mut` inside tuple patterns, a comptime `if` that returns, `if`s inside
/// short-circuits, `else if` chains giving tuples, labelled `continue` in nested loops.
#[ptx_kernel]
fn shapes(a: &[i32], out: &mut [i32], #[comptime] early: bool) {
    let i = thread_idx().x + block_idx().x * block_dim().x;
    if (i as usize) >= a.len() {
        return;
    }
    let x = a[i];
    let (mut lo, hi) = if x < -100 {
        (x, 0)
    } else if x < 100 {
        (0, x)
    } else {
        (x / 2, x)
    };
    lo -= 1;
    let ok = (if x > 0 { x % 3 == 0 } else { false })
        || (x < -50 && {
            let y = x + 7;
            y % 2 == 0
        });
    let mut acc = 0i32;
    'rows: for r in 0..4i32 {
        for c in 0..4i32 {
            if (r + c + x) % 3 == 0 {
                continue 'rows;
            }
            acc += r * 4 + c;
        }
    }
    if early {
        if x == 42 {
            out[i] = -1;
            return;
        }
    }
    out[i] = lo.wrapping_mul(31) ^ hi ^ acc ^ (ok as i32);
}

fn shapes_host(x: i32, early: bool) -> i32 {
    let (mut lo, hi) = if x < -100 {
        (x, 0)
    } else if x < 100 {
        (0, x)
    } else {
        (x / 2, x)
    };
    lo = lo.wrapping_sub(1);
    let ok = (if x > 0 { x % 3 == 0 } else { false })
        || (x < -50 && {
            let y = x.wrapping_add(7);
            y % 2 == 0
        });
    let mut acc = 0i32;
    'rows: for r in 0..4i32 {
        for c in 0..4i32 {
            if (r + c).wrapping_add(x) % 3 == 0 {
                continue 'rows;
            }
            acc += r * 4 + c;
        }
    }
    if early && x == 42 {
        return -1;
    }
    lo.wrapping_mul(31) ^ hi ^ acc ^ (ok as i32)
}

#[test]
fn tuple_patterns_comptime_returns_and_labelled_continues_match_plain_rust() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("shapes");
    let mut a: Vec<i32> = vec![0, 42, -42, 99, 100, -100, -101, -51, -57, i32::MIN, i32::MAX];
    while a.len() < 200 {
        let r = rng.next();
        a.push(if r & 1 == 0 { (r >> 33) as i32 % 300 } else { r as i32 });
    }
    let ad = dev.upload(&a)?;
    for early in [false, true] {
        let mut out: DeviceBuffer<i32> = dev.zeroed(a.len())?;
        Shapes::new(early).launch(&dev, LaunchConfig::for_elements(a.len(), 64), &ad, &mut out)?;
        let got = out.to_vec()?;
        for (i, &x) in a.iter().enumerate() {
            assert_eq!(got[i], shapes_host(x, early), "x = {x}, early {early}");
        }
    }
    Ok(())
}

/// Mutable variables and `if` values of every scalar type, bool and the narrow ones too.
#[ptx_kernel]
fn all_types(a: &[u32], out: &mut [u64]) {
    let i = thread_idx().x + block_idx().x * block_dim().x;
    if (i as usize) >= a.len() {
        return;
    }
    let x = a[i];
    let mut b = x % 2 == 0;
    b = !b || x > 100;
    let mut c = x as u8;
    c = if b { c.wrapping_add(7) } else { c / 3 };
    let mut d = x as i8;
    d = if d < 0 { -d } else { d.wrapping_mul(2) };
    let mut e = x as i16 as f64;
    e = if b { e * 0.5 } else { e - 1.0 };
    let f: bool = if c > 100 { b } else { !b };
    let g = if f { (c, d) } else { (d as u8, c as i8) };
    out[i] = (b as u64)
        | (c as u64) << 1
        | ((d as u8) as u64) << 9
        | (e as i64 as u64 & 0xffff) << 17
        | (f as u64) << 33
        | (g.0 as u64) << 34
        | ((g.1 as u8) as u64) << 42;
}

fn all_types_host(x: u32) -> u64 {
    let mut b = x.is_multiple_of(2);
    b = !b || x > 100;
    let mut c = x as u8;
    c = if b { c.wrapping_add(7) } else { c / 3 };
    let mut d = x as i8;
    d = if d < 0 { d.wrapping_neg() } else { d.wrapping_mul(2) };
    let mut e = x as i16 as f64;
    e = if b { e * 0.5 } else { e - 1.0 };
    let f: bool = if c > 100 { b } else { !b };
    let g = if f { (c, d) } else { (d as u8, c as i8) };
    (b as u64)
        | (c as u64) << 1
        | ((d as u8) as u64) << 9
        | (e as i64 as u64 & 0xffff) << 17
        | (f as u64) << 33
        | (g.0 as u64) << 34
        | ((g.1 as u8) as u64) << 42
}

#[test]
fn variables_and_if_values_of_every_type_match_plain_rust() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("all_types");
    let mut a: Vec<u32> = vec![0, 1, 2, 127, 128, 129, 255, 256, 0x8000, 0xffff, u32::MAX];
    while a.len() < 300 {
        a.push(rng.next() as u32);
    }
    let ad = dev.upload(&a)?;
    let mut out: DeviceBuffer<u64> = dev.zeroed(a.len())?;
    AllTypes::new().launch(&dev, LaunchConfig::for_elements(a.len(), 64), &ad, &mut out)?;
    let got = out.to_vec()?;
    for (i, &x) in a.iter().enumerate() {
        assert_eq!(got[i], all_types_host(x), "x = {x}");
    }
    Ok(())
}

/// Shared address arithmetic and fused multiply-adds must not change what a kernel
/// computes: neighbours `x[i + 1]`/`x[i - 1]` of a `usize` index (folded into one address),
/// a `u32` index whose `+ 1` wraps (never folded), an index variable reassigned between a
/// sum and its use, the same index in both arms of an `if` and after a loop, and
/// `a * b + c` on narrow, signed and 64-bit integers in both operand orders.
#[ptx_kernel]
fn addressing(x: &[i32], out: &mut [i32], wide: &mut [i64], bytes: &mut [u8], n: u32, k: u32) {
    let t = thread_idx().x;
    if t >= n {
        return;
    }
    let i = t as usize + 1;
    let o = t as usize * 8;
    out[o] = x[i - 1] + x[i] * 2 + x[i + 1] * 3;
    // `t * 0 + k`: a u32 index that may wrap; with k = u32::MAX it wraps to t - 1 + 1.
    let j = t.wrapping_add(k);
    out[o + 1] = x[j.wrapping_add(1)];
    let mut m = i;
    let next = m + 1;
    m += 2;
    out[o + 2] = x[next] - x[m - 2];
    if t % 2 == 0 {
        out[o + 3] = x[i] * 10;
    } else {
        out[o + 3] = x[i + 1] * 100;
    }
    let mut acc = 0;
    for q in 0..3usize {
        acc += x[i - 1 + q];
    }
    out[o + 4] = acc + x[i];
    out[o + 5] = (t as i32) * x[i] + x[i + 1];
    out[o + 6] = x[i + 1] + (t as i32 - 7) * x[i - 1];
    wide[t as usize] = (t as i64 - 40) * -3_000_000_000 + x[i] as i64;
    bytes[t as usize] = (t as u8).wrapping_mul(37) + (x[i] as u8);
}

fn addressing_host(x: &[i32], t: u32, k: u32) -> ([i32; 7], i64, u8) {
    let i = t as usize + 1;
    let mut out = [0i32; 7];
    out[0] = x[i - 1].wrapping_add(x[i].wrapping_mul(2)).wrapping_add(x[i + 1].wrapping_mul(3));
    let j = t.wrapping_add(k);
    out[1] = x[j.wrapping_add(1) as usize];
    let mut m = i;
    let next = m + 1;
    m += 2;
    out[2] = x[next].wrapping_sub(x[m - 2]);
    out[3] = if t.is_multiple_of(2) { x[i].wrapping_mul(10) } else { x[i + 1].wrapping_mul(100) };
    let mut acc = 0i32;
    for q in 0..3usize {
        acc = acc.wrapping_add(x[i - 1 + q]);
    }
    out[4] = acc.wrapping_add(x[i]);
    out[5] = (t as i32).wrapping_mul(x[i]).wrapping_add(x[i + 1]);
    out[6] = x[i + 1].wrapping_add((t as i32 - 7).wrapping_mul(x[i - 1]));
    let wide = (t as i64 - 40).wrapping_mul(-3_000_000_000).wrapping_add(x[i] as i64);
    let byte = (t as u8).wrapping_mul(37).wrapping_add(x[i] as u8);
    (out, wide, byte)
}

#[test]
fn shared_addresses_and_fused_multiply_adds_keep_rusts_meaning() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("addressing");
    let n = 100u32;
    let x: Vec<i32> = (0..n + 2).map(|_| rng.next() as i32).collect();
    let xd = dev.upload(&x)?;
    common::assert_assembles("addressing", &Addressing::new());
    // k = 0: `j + 1` is t + 1; k = u32::MAX: `j + 1` wraps to t (a folded u32 sum would
    // read 16 GiB past the slice instead).
    for k in [0u32, u32::MAX] {
        let mut out: DeviceBuffer<i32> = dev.zeroed(n as usize * 8)?;
        let mut wide: DeviceBuffer<i64> = dev.zeroed(n as usize)?;
        let mut bytes: DeviceBuffer<u8> = dev.zeroed(n as usize)?;
        Addressing::new().launch(
            &dev,
            LaunchConfig::linear(1, 128),
            &xd,
            &mut out,
            &mut wide,
            &mut bytes,
            n,
            k,
        )?;
        let (out, wide, bytes) = (out.to_vec()?, wide.to_vec()?, bytes.to_vec()?);
        for t in 0..n {
            let (want, want_wide, want_byte) = addressing_host(&x, t, k);
            let o = t as usize * 8;
            assert_eq!(&out[o..o + 7], &want[..], "t = {t}, k = {k:#x}");
            assert_eq!((wide[t as usize], bytes[t as usize]), (want_wide, want_byte), "t = {t}, k = {k:#x}");
        }
    }
    // `x[i + 1]` past the end reports the summed index, not the folded base.
    let short = dev.upload(&x[..50])?;
    let (mut out, mut wide, mut bytes) =
        (dev.zeroed(n as usize * 8)?, dev.zeroed(n as usize)?, dev.zeroed(n as usize)?);
    let err = Addressing::new()
        .launch(&dev, LaunchConfig::linear(1, 128), &short, &mut out, &mut wide, &mut bytes, n, 0)
        .unwrap_err();
    let Error::OutOfBounds { param, index, len, .. } = &err else { panic!("expected OutOfBounds: {err}") };
    assert_eq!((param.as_str(), *len), ("x", 50), "{err}");
    assert!((50..=n as i128 + 1).contains(index), "{err}");
    let ptx = Addressing::new().ptx();
    assert!(ptx.contains("+4]"), "x[i + 1] shares x[i]'s address:\n{ptx}");
    assert!(ptx.contains("mad.lo.s32"), "a * b + c is one mad:\n{ptx}");
    Ok(())
}

/// `if` expressions whose arms are values at hand (variables, literals, constants, their
/// negation or complement, tuples of them) pick one of the two without branching; others
/// branch.
#[ptx_kernel(unchecked)]
fn picks(x: &[f32], k: &[i32], out: &mut [f32]) {
    let i = thread_idx().x as usize;
    let (a, b) = (x[2 * i], x[2 * i + 1]);
    let q = k[i];
    let (s, c) = if q & 1 == 0 { (a, b) } else { (b, a) };
    let sign = if q & 2 == 0 { 1.5 } else { -b };
    let limit = if q < 0 { f32::MAX } else { -a };
    let picked = if q > 3 { q } else { 3 };
    out[4 * i] = s * sign;
    out[4 * i + 1] = c;
    out[4 * i + 2] = limit;
    out[4 * i + 3] = picked as f32;
}

fn picks_host(a: f32, b: f32, q: i32) -> [f32; 4] {
    let (s, c) = if q & 1 == 0 { (a, b) } else { (b, a) };
    let sign = if q & 2 == 0 { 1.5 } else { -b };
    let limit = if q < 0 { f32::MAX } else { -a };
    let picked = if q > 3 { q } else { 3 };
    [s * sign, c, limit, picked as f32]
}

/// Picks of every other kind of scalar: `bool`, narrow and wide integers, `f64`, and a
/// comptime condition.
#[ptx_kernel(unchecked)]
fn picks_of_every_type(wide: &[f64], out: &mut [f64], #[comptime] flip: bool) {
    let i = thread_idx().x;
    let c = i % 3 == 1;
    let (d, flag) = (wide[i as usize], i > 4);
    let small = i as u8;
    let signed = -(i as i16);
    let long = i as u64 * 3_000_000_000;
    let b = if c { flag } else { !flag };
    let n8 = if c { small } else { 200u8 };
    let n16 = if c { -signed } else { i16::MIN };
    let n64 = if c { long } else { u64::MAX };
    let w = if c { -d } else { f64::EPSILON };
    let picked = if flip { (n8, n16) } else { (7, 8) };
    let i = i as usize;
    out[8 * i] = c as u32 as f64;
    out[8 * i + 1] = b as u32 as f64;
    out[8 * i + 2] = n8 as f64;
    out[8 * i + 3] = n16 as f64;
    out[8 * i + 4] = n64 as f64;
    out[8 * i + 5] = w;
    out[8 * i + 6] = picked.0 as f64;
    out[8 * i + 7] = picked.1 as f64;
}

fn picks_of_every_type_host(i: u32, d: f64, flip: bool) -> [f64; 8] {
    let c = i % 3 == 1;
    let flag = i > 4;
    let small = i as u8;
    let signed = -(i as i16);
    let long = i as u64 * 3_000_000_000;
    let b = if c { flag } else { !flag };
    let n8 = if c { small } else { 200u8 };
    let n16 = if c { -signed } else { i16::MIN };
    let n64 = if c { long } else { u64::MAX };
    let w = if c { -d } else { f64::EPSILON };
    let picked = if flip { (n8, n16) } else { (7, 8) };
    [c as u32 as f64, b as u32 as f64, n8 as f64, n16 as f64, n64 as f64, w, picked.0 as f64, picked.1 as f64]
}

/// Arms that compute (a product, a negated product) still branch, whatever the other arm:
/// only values at hand are picked.
#[ptx_kernel(unchecked)]
fn computed_arms(x: &[f32], out: &mut [f32]) {
    let i = thread_idx().x as usize;
    let v = x[i];
    out[i] = if v > 0.0 { v * 2.0 } else { v };
    out[i + 1] = if v > 1.0 { v } else { -(v * 2.0) };
}

#[test]
fn if_expressions_of_values_at_hand_select_without_branching() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("picks");
    let n = 64;
    // Random values, NaN and signed zeros among them (negation must keep NaN a NaN and flip zeros).
    let mut xs: Vec<f32> = (0..2 * n).map(|_| rng.moderate_f32()).collect();
    xs[0] = f32::NAN;
    xs[3] = -0.0;
    xs[5] = 0.0;
    // Every quarter with the NaN's thread (0) taking the negated arm, then negative ones.
    let ks: Vec<i32> = (0..n)
        .map(|i| {
            if i < 8 {
                i as i32
            } else if i < 16 {
                i as i32 - 20
            } else {
                rng.next() as i32 % 100
            }
        })
        .collect();
    let dev = Device::sim();
    let (x, k) = (dev.upload(&xs)?, dev.upload(&ks)?);
    let mut out: DeviceBuffer<f32> = dev.zeroed(4 * n)?;
    common::assert_assembles("picks", &Picks::new());
    unsafe { Picks::new().launch(&dev, LaunchConfig::linear(1, n as u32), &x, &k, &mut out)? };
    let got = out.to_vec()?;
    for i in 0..n {
        let want = picks_host(xs[2 * i], xs[2 * i + 1], ks[i]);
        for (j, (g, w)) in got[4 * i..4 * i + 4].iter().zip(want).enumerate() {
            assert!(same_bits(*g, w), "thread {i}, output {j}: {g} vs {w}");
        }
    }
    let ptx = Picks::new().ptx();
    assert!(!ptx.contains("bra"), "the picks need no branch:\n{ptx}");
    assert_eq!(ptx.matches("selp.").count(), 5, "one select per picked scalar:\n{ptx}");
    let computed = ComputedArms::new().ptx();
    assert_eq!(computed.matches("bra").count(), 4, "computed arms branch:\n{computed}");

    let n = 32u32;
    let wides: Vec<f64> = (0..n).map(|_| rng.moderate_f64()).collect();
    let wide = dev.upload(&wides)?;
    for flip in [false, true] {
        let kernel = PicksOfEveryType::new(flip);
        common::assert_assembles("picks_of_every_type", &kernel);
        assert!(!kernel.ptx().contains("bra"), "every pick is a select:\n{}", kernel.ptx());
        let mut out: DeviceBuffer<f64> = dev.zeroed(8 * n as usize)?;
        unsafe { kernel.launch(&dev, LaunchConfig::linear(1, n), &wide, &mut out)? };
        let got = out.to_vec()?;
        for i in 0..n as usize {
            let want = picks_of_every_type_host(i as u32, wides[i], flip);
            assert_eq!(got[8 * i..8 * i + 8], want, "thread {i}, flip {flip}");
        }
    }
    Ok(())
}

/// A value bound to a name keeps it when a mutable variable it was computed from is
/// assigned afterwards, also where the builder folds the operation to that variable's own
/// register: a pick (`if m { true } else { false }` is `m`), predicate logic with a
/// constant (`m & true`), a cast to the same type, a tuple holding such values.
#[ptx_kernel(unchecked)]
fn bindings_of_mutables(x: &[f32], out: &mut [u32]) {
    let i = thread_idx().x as usize;
    let mut m = x[i] > 0.0;
    let mut v = x[i] as u32;
    let picked = if m { true } else { false };
    let anded = m & true;
    let cast = v as u32;
    let (t0, t1) = (m | false, v);
    let held = { v };
    m = !m;
    v += 7;
    out[2 * i] = picked as u32 + 2 * anded as u32 + 4 * t0 as u32 + 8 * m as u32;
    out[2 * i + 1] = cast + 100 * t1 + 10_000 * held + 1_000_000 * v;
}

fn bindings_of_mutables_host(x: f32) -> [u32; 2] {
    let mut m = x > 0.0;
    let mut v = x as u32;
    let picked = if m { true } else { false };
    let anded = m & true;
    let cast = v;
    let (t0, t1) = (m | false, v);
    let held = { v };
    m = !m;
    v += 7;
    [
        picked as u32 + 2 * anded as u32 + 4 * t0 as u32 + 8 * m as u32,
        cast + 100 * t1 + 10_000 * held + 1_000_000 * v,
    ]
}

#[test]
fn bindings_keep_their_value_when_a_mutable_variable_they_read_changes() -> ptx_dsl::runtime::Result<()> {
    let xs = [1.5f32, -2.0, 3.0, 0.0, 42.0];
    let dev = Device::sim();
    let mut out: DeviceBuffer<u32> = dev.zeroed(2 * xs.len())?;
    let kernel = BindingsOfMutables::new();
    unsafe { kernel.launch(&dev, LaunchConfig::linear(1, xs.len() as u32), &dev.upload(&xs)?, &mut out)? };
    let want: Vec<u32> = xs.iter().flat_map(|&x| bindings_of_mutables_host(x)).collect();
    assert_eq!(out.to_vec()?, want);
    Ok(())
}

/// Defines kernel `$kernel` and host function `$host` with the same body: one thread per
/// element of `a`, writing `out[i * 8 .. i * 8 + 8]`. The host function runs the body as
/// plain Rust for one `i`.
macro_rules! kernel_and_host {
    ($kernel:ident, $host:ident, |$a:ident, $out:ident, $i:ident, $s:ident| $body:block) => {
        #[ptx_kernel]
        fn $kernel($a: &[i32], $out: &mut [i32], $s: usize) {
            let $i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
            if $i >= $a.len() {
                return;
            }
            $body
        }

        #[allow(unused_assignments, clippy::all)]
        fn $host($a: &[i32], $out: &mut [i32], $s: usize, $i: usize) $body
    };
}

kernel_and_host!(evaluation_order, evaluation_order_host, |a, out, i, s| {
    let base = i * 8;
    // A quarter of the range, so that the host's debug build does not overflow.
    let a0 = a[i] >> 2;
    // A read on the left of an operator keeps its value when the right side assigns it.
    let mut d = a0;
    out[base] = d + {
        d += 1;
        d
    };
    let mut e = a0;
    out[base + 1] = e.min({
        e += 1;
        e
    });
    let mut f = a0;
    out[base + 2] = (f < {
        f += 10;
        f
    }) as i32;
    let mut u = a0;
    out[base + 3] = u.wrapping_mul(3) ^ {
        u = 0;
        1
    };
    // A compound assignment to an element runs its value first, then the place.
    let mut k = base + 4;
    out[k] = 100;
    out[base + 5] = 200;
    out[k] += {
        k = base + 5;
        10
    };
    out[base + 6] = 5;
    out[base + 6] += {
        out[base + 6] = a0;
        1
    };
    // An assignment's value is evaluated before its index.
    let mut j = a0;
    out[{
        j = 7;
        base + 7
    }] = j;
    let _ = s;
});

#[test]
fn operands_are_evaluated_left_to_right_as_in_rust() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("evaluation_order");
    let mut xs: Vec<i32> = (0..60).map(|_| rng.next() as i32 >> (rng.next() % 31)).collect();
    xs.extend([0, -1, i32::MIN, i32::MAX]);
    let dev = Device::sim();
    let mut out: DeviceBuffer<i32> = dev.zeroed(8 * xs.len())?;
    EvaluationOrder::new().launch(
        &dev,
        LaunchConfig::for_elements(xs.len(), 32),
        &dev.upload(&xs)?,
        &mut out,
        0,
    )?;
    let mut want = vec![0i32; 8 * xs.len()];
    for i in 0..xs.len() {
        evaluation_order_host(&xs, &mut want, 0, i);
    }
    assert_eq!(out.to_vec()?, want, "inputs {xs:?}");
    Ok(())
}

kernel_and_host!(wide_steps, wide_steps_host, |a, out, i, s| {
    let base = i * 8;
    let mut count = 0;
    let mut last = -1;
    for b in (0u8..200).step_by(s) {
        count += 1;
        last = b as i32;
    }
    out[base] = count;
    out[base + 1] = last;
    count = 0;
    for _ in (0u32..10).step_by(s << 32 | 3) {
        count += 1;
    }
    out[base + 2] = count;
    count = 0;
    for j in (-100i8..=100).step_by(s) {
        count += 1;
        last = j as i32;
    }
    out[base + 3] = count;
    out[base + 4] = last;
    count = 0;
    for _ in (a[i] as i16..=i16::MAX).step_by(s) {
        count += 1;
    }
    out[base + 5] = count;
});

#[test]
fn step_by_amounts_wider_than_the_loop_variable_are_not_truncated() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let xs = [-32768i32, -1, 0, 1234, 32767];
    // Steps around each loop's span: a truncating cast would turn 256 into 0 (a panic),
    // 300 into 44 and 65_537 into 1.
    for step in [1usize, 2, 3, 199, 200, 201, 255, 256, 300, 65_535, 65_536, 65_537, 1 << 40, usize::MAX] {
        let mut out: DeviceBuffer<i32> = dev.zeroed(8 * xs.len())?;
        let launch = LaunchConfig::linear(1, xs.len() as u32);
        WideSteps::new().launch(&dev, launch, &dev.upload(&xs)?, &mut out, step)?;
        let mut want = vec![0i32; 8 * xs.len()];
        for i in 0..xs.len() {
            wide_steps_host(&xs, &mut want, step, i);
        }
        assert_eq!(out.to_vec()?, want, "step {step}");
    }
    Ok(())
}

#[ptx_kernel]
fn unrolled_by_comptime_step(#[comptime] step: usize, out: &mut [u32]) {
    let mut sum = 0u32;
    #[unroll]
    for j in (0..8u32).step_by(step) {
        sum += j;
    }
    out[0] = sum;
}

#[test]
fn a_zero_comptime_step_of_an_unrolled_loop_is_a_launch_error() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut out: DeviceBuffer<u32> = dev.zeroed(1)?;
    UnrolledByComptimeStep::new(3).launch(&dev, LaunchConfig::linear(1, 1), &mut out)?;
    assert_eq!(out.to_vec()?, [3 + 6]);
    match UnrolledByComptimeStep::new(0).launch(&dev, LaunchConfig::linear(1, 1), &mut out) {
        Err(Error::KernelPanic { message, .. }) => assert!(message.contains("step != 0"), "{message}"),
        other => panic!("expected a kernel panic for step_by(0), got {other:?}"),
    }
    Ok(())
}

kernel_and_host!(mutable_loop_variables, mutable_loop_variables_host, |a, out, i, s| {
    let base = i * 8;
    let mut total = 0i32;
    for mut j in 0..a[i] & 15 {
        j *= 3;
        total += j;
    }
    out[base] = total;
    for mut k in (1..=5).step_by(s) {
        k += a[i];
        out[base + 1 + k as usize % 7] = k;
    }
});

#[test]
fn a_for_loop_variable_can_be_mut() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("a_for_loop_variable_can_be_mut");
    let xs: Vec<i32> = (0..40).map(|_| (rng.next() % 1000) as i32).collect();
    let dev = Device::sim();
    for step in [1, 2, 7] {
        let mut out: DeviceBuffer<i32> = dev.zeroed(8 * xs.len())?;
        MutableLoopVariables::new().launch(
            &dev,
            LaunchConfig::linear(1, xs.len() as u32),
            &dev.upload(&xs)?,
            &mut out,
            step,
        )?;
        let mut want = vec![0i32; 8 * xs.len()];
        for i in 0..xs.len() {
            mutable_loop_variables_host(&xs, &mut want, step, i);
        }
        assert_eq!(out.to_vec()?, want, "step {step}");
    }
    Ok(())
}
