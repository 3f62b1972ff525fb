//! `assert!`, `assert_eq!`, `assert_ne!`, `debug_assert!`, `panic!`, `unreachable!`, `todo!`
//! and `unimplemented!` in kernels: a failing one is the launch's `Err(KernelPanic)` with
//! Rust's message and the line, and the panicking thread stops (its later stores do not
//! happen) while the others run on; one that holds changes nothing, as on the host.

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, DeviceBuffer, Error, LaunchConfig};

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

// Assertions that hold compute what the same body computes on the host.
twin!(holding_assertions, holding_assertions_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    assert!(i < a.len());
    debug_assert!(x == a[i], "read twice");
    assert_eq!(x / 2 + x / 2 + x % 2, x);
    assert_ne!(x.wrapping_add(1), x, "no fixed point");
    out[i] = match x % 3 {
        0 => 7,
        1 | 2 => x,
        _ => unreachable!(),
    };
});

#[test]
fn assertions_that_hold_change_nothing() {
    let xs = u32_inputs("holding_assertions", 200);
    let launch = |d: &_, c, a: &_, o: &mut _| HoldingAssertions::new().launch(d, c, a, o);
    check_twin("holding_assertions", &xs, 1, &launch, holding_assertions_host);
}

/// `x / d` for `d` above 0: the precondition checked as a device function's assertion.
#[ptx_device]
fn checked_div(x: u32, d: u32) -> u32 {
    assert!(d > 0, "a divisor above 0");
    x / d
}

#[ptx_kernel]
fn guarded(a: &[u32], out: &mut [u32], #[comptime] which: u32) {
    let i = thread_idx().x as usize;
    let x = a[i];
    if which == 0 {
        assert!(x < 100);
    } else if which == 1 {
        assert_eq!(x % 2, 0, "odd input");
    } else if which == 2 {
        out[i] = checked_div(100, x);
    } else if x == 13 {
        panic!();
    }
    out[i] = x + 1;
}

/// Launches `guarded` (`which`) on `a`, returning the outputs (left as written) and the
/// launch's panic message and line.
fn run(a: &[u32], which: u32) -> (Vec<u32>, Option<(String, u32)>) {
    let dev = Device::sim();
    let ad = dev.upload(a).expect("upload");
    let mut out: DeviceBuffer<u32> = dev.zeroed(a.len()).expect("zeroed");
    let result = Guarded::new(which).launch(&dev, LaunchConfig::linear(1, a.len() as u32), &ad, &mut out);
    let panic = match result {
        Ok(_) => None,
        Err(Error::KernelPanic { message, location, .. }) => {
            let line = location.split(':').nth(1).and_then(|l| l.parse().ok()).unwrap_or(0);
            Some((message, line))
        }
        Err(other) => panic!("expected a kernel panic: {other}"),
    };
    (out.to_vec().expect("read back"), panic)
}

/// The 1-based line of this file holding `text`.
fn line_of(text: &str) -> u32 {
    let source = include_str!("lang_panics.rs");
    source.lines().position(|l| l.contains(text)).map_or(0, |n| n as u32 + 1)
}

#[test]
fn a_failing_assertion_is_a_kernel_panic_with_rusts_message_and_the_thread_stops() {
    let a = [3u32, 250, 4, 13];
    assert_eq!(run(&a[..1], 0), (vec![4], None));
    let (out, panic) = run(&a, 0);
    assert_eq!(panic, Some(("assertion failed: x < 100".to_string(), line_of("assert!(x < 100);"))));
    // The thread with 250 stopped before its store; the others stored theirs.
    assert_eq!(out, [4, 0, 5, 14]);

    let (out, panic) = run(&a, 1);
    let message = "assertion `left == right` failed: odd input".to_string();
    assert_eq!(panic, Some((message, line_of("assert_eq!(x % 2, 0"))));
    assert_eq!(out, [0, 251, 5, 0]);

    let (_, panic) = run(&[5, 0], 2);
    assert_eq!(panic.map(|p| p.0), Some("a divisor above 0".to_string()));

    let (out, panic) = run(&a, 3);
    assert_eq!(panic, Some(("explicit panic".to_string(), line_of("panic!();"))));
    assert_eq!(out, [4, 251, 5, 0]);
}

#[ptx_kernel]
fn messages(a: &[u32], out: &mut [u32], #[comptime] which: u32) {
    let i = thread_idx().x as usize;
    let x = a[i];
    let mut count = 0u32;
    if which == 0 {
        assert!(
            {
                count += 1;
                count == 1
            } && x != 7
        );
    } else {
        assert!(x != 7, "braces {{ and }} as Rust prints them");
    }
    out[i] = count + 10;
}

/// Rust's panic message of `f`.
fn host_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let payload = std::panic::catch_unwind(f).expect_err("the host panics");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap()
}

#[test]
fn a_panic_message_is_rusts_whole_text() {
    let a = [1u32, 7, 3];
    let launch = |which| {
        let dev = Device::sim();
        let ad = dev.upload(&a).expect("upload");
        let mut out: DeviceBuffer<u32> = dev.zeroed(3).expect("zeroed");
        let result = Messages::new(which).launch(&dev, LaunchConfig::linear(1, 3), &ad, &mut out);
        let Err(Error::KernelPanic { message, .. }) = result else {
            panic!("expected a kernel panic: {result:?}")
        };
        (message, out.to_vec().expect("read back"))
    };
    let x = 7u32;
    let mut count = 0u32;
    // The condition's side effect happens once; its block is part of the message.
    let (message, out) = launch(0);
    assert_eq!(
        message,
        host_message(move || assert!(
            {
                count += 1;
                count == 1
            } && x != 7
        ))
    );
    assert_eq!(out, [11, 0, 11]);
    // `{{` and `}}` in a message without arguments are `{` and `}`, as Rust prints them.
    let braces = host_message(|| assert!(x != 7, "braces {{ and }} as Rust prints them"));
    assert_eq!(launch(1).0, braces);
}
