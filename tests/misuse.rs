//! Kernels written with `#[ptx_kernel]` misused as a new user might, on the simulator: the
//! error must name the mistake, not a consequence of it.

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, Error, LaunchConfig};

/// Waits until `flag[0]` is set: with an empty `flag` the checked read gives 0 for ever.
#[ptx_kernel]
pub fn wait_for(flag: &[u32]) {
    while flag[0] == 0 {}
}

/// Divides by `x[t]`, and waits at a barrier that a thread whose divisor is 0 skips.
#[ptx_kernel]
pub fn divide_then_sync(x: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let q = 64 / x[t];
    if x[t] > 0 {
        sync_threads();
    }
    out[t] = q;
}

#[test]
fn an_out_of_range_read_that_makes_a_loop_endless_is_reported_as_such() {
    let device = Device::sim_with_step_budget(10_000);
    let empty = device.zeroed::<u32>(0).unwrap();
    let err = WaitFor::new().launch(&device, LaunchConfig::linear(1, 1), &empty).unwrap_err();
    match &err {
        Error::OutOfBounds { kernel, param, index: 0, len: 0, location } => {
            assert_eq!((kernel.as_str(), param.as_str()), ("wait_for", "flag"));
            assert!(location.starts_with("tests/misuse.rs:10:"), "{location}");
        }
        other => panic!("{other}"),
    }
}

#[test]
fn a_division_by_zero_that_leads_to_a_deadlock_is_reported_as_such() {
    let device = Device::sim();
    let x = device.upload(&[1u32, 2, 0, 4]).unwrap();
    let mut out = device.zeroed::<u32>(4).unwrap();
    let err = DivideThenSync::new().launch(&device, LaunchConfig::linear(1, 4), &x, &mut out).unwrap_err();
    assert!(
        matches!(&err, Error::KernelPanic { kernel, message, .. }
        if kernel == "divide_then_sync" && message.contains("divide by zero")),
        "{err}"
    );
    // Without the division by zero, the same kernel runs.
    let x = device.upload(&[1u32, 2, 3, 4]).unwrap();
    DivideThenSync::new().launch(&device, LaunchConfig::linear(1, 4), &x, &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [64, 32, 21, 16]);
}

#[test]
fn an_endless_loop_is_reported_with_its_rust_line() {
    let device = Device::sim_with_step_budget(10_000);
    let zero = device.upload(&[0u32]).unwrap();
    let err = WaitFor::new().launch(&device, LaunchConfig::linear(1, 1), &zero).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("wait_for") && text.contains("step budget of 10000"), "{text}");
    assert!(text.contains("tests/misuse.rs:10:"), "{text}");
}

/// Two kernels of one name in one module (in two blocks, as tests define them) are two
/// kernels on one device: the module cache tells them apart by their source.
#[test]
fn same_named_kernels_in_two_blocks_are_two_kernels() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(2)?;
    {
        #[ptx_kernel]
        fn set_value(out: &mut [u32]) {
            out[0] = 1;
        }
        SetValue::new().launch(&dev, LaunchConfig::for_elements(1, 32), &mut out)?;
    }
    {
        #[ptx_kernel]
        fn set_value(out: &mut [u32]) {
            out[1] = 2;
        }
        SetValue::new().launch(&dev, LaunchConfig::for_elements(1, 32), &mut out)?;
    }
    assert_eq!(out.to_vec()?, vec![1, 2]);
    Ok(())
}

#[test]
fn kernels_of_one_text_reading_two_constants_are_two_kernels() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(1)?;
    let mut got = Vec::new();
    {
        const TILE: u32 = 1;
        #[ptx_kernel]
        fn read_tile(out: &mut [u32]) {
            if global_idx().x == 0 {
                out[0] = TILE;
            }
        }
        ReadTile::new().launch(&dev, LaunchConfig::for_elements(1, 32), &mut out)?;
        got.push(out.to_vec()?[0]);
    }
    {
        const TILE: u32 = 2;
        #[ptx_kernel]
        fn read_tile(out: &mut [u32]) {
            if global_idx().x == 0 {
                out[0] = TILE;
            }
        }
        ReadTile::new().launch(&dev, LaunchConfig::for_elements(1, 32), &mut out)?;
        got.push(out.to_vec()?[0]);
    }
    assert_eq!(got, vec![1, 2]);
    Ok(())
}

#[ptx_kernel]
fn nan_sign(out: &mut [f32], #[comptime] f: f32) {
    out[0] = 1.0f32.copysign(f);
}

/// Comptime floats are keyed by their bits: NaNs of either sign are two kernels.
#[test]
fn comptime_nans_of_either_sign_are_two_kernels() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut out = dev.zeroed::<f32>(1)?;
    NanSign::new(-f32::NAN).launch(&dev, LaunchConfig::for_elements(1, 32), &mut out)?;
    assert_eq!(out.to_vec()?, vec![-1.0]);
    NanSign::new(f32::NAN).launch(&dev, LaunchConfig::for_elements(1, 32), &mut out)?;
    assert_eq!(out.to_vec()?, vec![1.0]);
    Ok(())
}

/// Lanes leave the loop after different trip counts, so the later `warp_sum`s are reached
/// by part of the warp: a checked kernel reports it (it read the missing lanes' values).
#[ptx_kernel]
fn partial_warp_sums(out: &mut [u32]) {
    let lane = thread_idx().x;
    let mut k = 0u32;
    let mut acc = 0u32;
    while k < lane % 3 + 1 {
        acc += warp_sum(k + 1);
        k += 1;
    }
    if (lane as usize) < out.len() {
        out[lane as usize] = acc;
    }
}

#[test]
fn warp_operations_reached_by_part_of_a_warp_are_reported() {
    let dev = Device::sim();
    let mut out = dev.zeroed::<u32>(32).unwrap();
    let err = PartialWarpSums::new().launch(&dev, LaunchConfig::for_elements(32, 32), &mut out).unwrap_err();
    let Error::KernelPanic { kernel, message, location } = &err else {
        panic!("expected a KernelPanic, got {err:?}")
    };
    assert_eq!(kernel, "partial_warp_sums");
    assert!(message.contains("`warp_sum` was reached by only some lanes of a warp"), "{err}");
    let line =
        include_str!("misuse.rs").lines().position(|l| l.contains("acc += warp_sum(k + 1);")).unwrap() + 1;
    assert!(location.starts_with(&format!("{}:{line}:", file!())), "{err}");
}

/// Unrolls `n` copies of a store: a runaway comptime count must not build for ever.
#[ptx_kernel]
fn unrolled_fill(out: &mut [u32], #[comptime] n: u32) {
    let t = thread_idx().x as usize;
    #[unroll]
    for k in 0..n {
        // the unrolled loop, above
        out[t] = out[t].wrapping_add(k);
    }
}

#[test]
fn an_unroll_over_a_runaway_count_is_an_error_naming_its_line() {
    let device = Device::sim();
    let mut out = device.upload(&[0u32; 32]).unwrap();
    // A modest count unrolls and runs as the loop would.
    UnrolledFill::new(5).launch(&device, LaunchConfig::linear(1, 32), &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![10u32; 32]);
    // Four thousand million iterations stop at the instruction limit: an error, quickly,
    // at the loop (the line above the marker).
    let err = UnrolledFill::new(u32::MAX).launch(&device, LaunchConfig::linear(1, 32), &mut out).unwrap_err();
    let line =
        include_str!("misuse.rs").lines().position(|l| l.ends_with("// the unrolled loop, above")).unwrap();
    let text = err.to_string();
    assert!(text.contains("unrolled_fill"), "{text}");
    assert!(text.contains(&format!("tests/misuse.rs:{line}:")), "{text}");
    assert!(text.contains("#[unroll]"), "{text}");
}

/// Counts `x[t] % 16` in a shared histogram; only with `init` are the bins zeroed first.
#[ptx_kernel]
fn shared_histogram(x: &[u32], counts: &mut [u32], #[comptime] init: bool) {
    let bins = shared::<u32, 16>();
    let t = thread_idx().x as usize;
    if init {
        if t < 16 {
            bins[t] = 0;
        }
        sync_threads();
    }
    atomic_add(&mut bins[(x[t] % 16) as usize], 1); // the histogram's update
    sync_threads();
    if t < 16 {
        counts[t] = bins[t];
    }
}

#[test]
fn a_shared_histogram_never_zeroed_is_reported_at_its_update() -> ptx_dsl::runtime::Result<()> {
    let device = Device::sim();
    let x = device.upload(&(0..64u32).collect::<Vec<_>>())?;
    let mut counts = device.zeroed::<u32>(16)?;
    SharedHistogram::new(true).launch(&device, LaunchConfig::linear(1, 64), &x, &mut counts)?;
    assert_eq!(counts.to_vec()?, vec![4; 16]);
    // On a GPU the bins would start with whatever an earlier block left in shared memory.
    let err = SharedHistogram::new(false)
        .launch(&device, LaunchConfig::linear(1, 64), &x, &mut counts)
        .unwrap_err();
    let text = err.to_string();
    let line =
        include_str!("misuse.rs").lines().position(|l| l.ends_with("// the histogram's update")).unwrap() + 1;
    for want in [
        "uninitialised shared memory in kernel `shared_histogram`".to_string(),
        "thread (0, 0, 0) read shared byte 0".to_string(),
        "undefined on a GPU".to_string(),
        format!("tests/misuse.rs:{line}:"),
    ] {
        assert!(text.contains(&want), "`{want}` not in: {text}");
    }
    Ok(())
}

/// A block sum in each arm of a branch: two barriers, which the threads of the two arms
/// reach apart.
#[ptx_kernel]
fn sums_in_both_arms(x: &[f32], out: &mut [f32]) {
    let t = thread_idx().x as usize;
    let mut s = 0.0f32;
    if t < 32 {
        s = block_sum(x[t]); // the first arm's sum
    } else {
        s = block_sum(2.0 * x[t]); // the second arm's sum
    }
    out[t] = s;
}

#[test]
fn block_sums_in_both_arms_of_a_branch_are_reported_at_both_lines() {
    let device = Device::sim();
    let x = device.upload(&[1.0f32; 64]).unwrap();
    let mut out = device.zeroed::<f32>(64).unwrap();
    let err = SumsInBothArms::new().launch(&device, LaunchConfig::linear(1, 64), &x, &mut out).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("through different instructions"), "{text}");
    for arm in ["// the first arm's sum", "// the second arm's sum"] {
        let line = include_str!("misuse.rs").lines().position(|l| l.ends_with(arm)).unwrap() + 1;
        assert!(text.contains(&format!("tests/misuse.rs:{line}:")), "line {line}: {text}");
    }
}
