//! What the twenty-third round of probing found in the language, each body run as a
//! `#[ptx_kernel]` on the simulator and as plain Rust on the host, compared bit for bit on
//! edge values and fresh random inputs.

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, KernelArg, LaunchConfig};

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

// `(a..b).step_by(s).rev()`: the forward steps' values, last first (not those of
// `(a..b).rev().step_by(s)`), for each type Rust reverses it for, empty ranges, steps wider
// than the variable's type and ranges at the type's ends included. Each loop folds its
// values into a hash, so that the order and the values visited both count.
twin!(steps_reversed, steps_reversed_host, |i, a: &[u32], out: &mut [u32]| {
    let x = a[i];
    let (lo, hi) = (x as u8, (x >> 8) as u8);
    let small = (x >> 16) as usize % 7 + 1;
    let mut h = 0u32;
    for k in (lo..hi).step_by(small).rev() {
        h = h.wrapping_mul(31).wrapping_add(k as u32).wrapping_add(1);
    }
    out[6 * i] = h;
    h = 0;
    for k in (lo as i8..=hi as i8).step_by(small).rev() {
        h = h.wrapping_mul(31).wrapping_add(k as u32).wrapping_add(1);
    }
    out[6 * i + 1] = h;
    // Across all of `i32`: at most 256 steps of 2^24 and more.
    h = 0;
    let wide = (1usize << 24) + (x & 0xff) as usize;
    for k in (x as i32..x.rotate_left(13) as i32).step_by(wide).rev() {
        h = h.wrapping_mul(31).wrapping_add(k as u32).wrapping_add(1);
    }
    out[6 * i + 2] = h;
    // Up to the top of `u32`, and a step no `u32` holds (one value, the first).
    h = 0;
    for k in (x..u32::MAX).step_by(wide).rev() {
        h = h.wrapping_mul(31).wrapping_add(k as u32).wrapping_add(1);
    }
    for k in (x / 2..x).step_by(1usize << 40).rev() {
        h = h.wrapping_mul(31).wrapping_add(k as u32).wrapping_add(1);
    }
    out[6 * i + 3] = h;
    h = 0;
    let start = x as usize;
    for k in (start..start + (x >> 7) as usize % 900).step_by(small).rev() {
        h = h.wrapping_mul(31).wrapping_add(k as u32).wrapping_add(1);
        if k % 97 == 5 {
            continue;
        }
        h ^= 0x55;
    }
    out[6 * i + 4] = h;
    h = 0;
    for k in (lo as u16 * 250..=hi as u16 * 257).step_by(small * 11).rev() {
        if k < 600 {
            break;
        }
        h = h.wrapping_mul(31).wrapping_add(k as u32).wrapping_add(1);
    }
    out[6 * i + 5] = h;
});

#[test]
fn steps_reversed_visit_the_forward_steps_last_first() {
    let xs = u32_inputs("steps_reversed", 300);
    let launch = |d: &_, c, a: &_, o: &mut _| StepsReversed::new().launch(d, c, a, o);
    check_twin("steps_reversed", &xs, 6, &launch, steps_reversed_host);
}

/// The same loop with comptime bounds, unrolled: one copy of the body per value.
#[ptx_kernel]
fn unrolled_steps_reversed(
    out: &mut [i32],
    #[comptime] lo: i32,
    #[comptime] hi: i32,
    #[comptime] step: usize,
) {
    let mut n = 0usize;
    #[unroll]
    for k in (lo..hi).step_by(step).rev() {
        out[n] = k;
        n += 1;
    }
}

#[test]
fn unrolled_steps_reversed_visit_the_forward_steps_last_first() {
    let dev = Device::sim();
    for (lo, hi, step) in [(0, 11, 3), (-7, 20, 4), (5, 5, 1), (9, 3, 2), (-40, -1, 13), (0, 10, 100)] {
        let want: Vec<i32> = (lo..hi).step_by(step).rev().collect();
        let mut out = dev.upload(&[i32::MIN; 16]).unwrap();
        UnrolledStepsReversed::new(lo, hi, step).launch(&dev, LaunchConfig::linear(1, 1), &mut out).unwrap();
        let got = out.to_vec().unwrap();
        assert_eq!(&got[..want.len()], &want[..], "({lo}..{hi}).step_by({step}).rev()");
        assert!(
            got[want.len()..].iter().all(|&v| v == i32::MIN),
            "({lo}..{hi}).step_by({step}).rev() wrote past"
        );
    }
}

/// Two entries, for an out-of-range read of a constant array of the surrounding code.
const PAIR: [u32; 2] = [5, 6];

/// Defines kernel `$kernel` and host function `$host` with one body over `$y` and `$k`.
macro_rules! located {
    ($kernel:ident, $host:ident, |$y:ident, $k:ident| $body:block) => {
        #[ptx_kernel]
        fn $kernel($y: &mut [u32], $k: usize) $body

        #[allow(clippy::all, unused_assignments, unused_mut, unused_variables)]
        fn $host($y: &mut [u32], $k: usize) $body
    };
}

// Each access is out of range for `k = 7` (`y` has two elements): the kernel's `Err` names
// the place Rust's panic names, the start of the indexing expression, for stores and
// compound assignments as for loads.
located!(out_of_range_sites, out_of_range_sites_host, |y, k| {
    let mut w = [1u32, 2, 3];
    let which = y[0];
    if which == 0 {
        y[k] = 1;
    } else if which == 1 {
        y[k + 1] = 2;
    } else if which == 2 {
        w[k % 4] = 7;
    } else if which == 3 {
        y[1] = w[k % 4];
    } else if which == 4 {
        w[k % 4] += 1;
    } else if which == 5 {
        y[k] += 3;
    } else if which == 6 {
        y[1] = y[k];
    } else if which == 7 {
        y[1] = PAIR[k % 5];
    } else {
        (w[0], y[k]) = (4, 5);
    }
    y[1] += w[0];
});

thread_local! {
    /// Where the last panic on this thread happened, `file:line:column`.
    static PANIC_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f`, returning where it panicked (the panic's message is not printed).
fn panic_location(f: impl FnOnce() + std::panic::UnwindSafe) -> Option<String> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let at = info.location().map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
            let capturing = PANIC_AT.with(|p| p.borrow().as_deref() == Some("capturing"));
            if capturing {
                PANIC_AT.with(|p| *p.borrow_mut() = at);
            } else {
                previous(info);
            }
        }));
    });
    PANIC_AT.with(|p| *p.borrow_mut() = Some("capturing".into()));
    let panicked = std::panic::catch_unwind(f).is_err();
    let at = PANIC_AT.with(|p| p.borrow_mut().take());
    panicked.then_some(at).flatten()
}

#[test]
fn an_access_out_of_range_is_reported_where_rust_reports_it() {
    let dev = Device::sim();
    for which in 0..9u32 {
        let want = panic_location(move || out_of_range_sites_host(&mut [which, 0], 7))
            .unwrap_or_else(|| panic!("case {which}: the host did not panic"));
        let mut y = dev.upload(&[which, 0]).unwrap();
        let got = match OutOfRangeSites::new().launch(&dev, LaunchConfig::linear(1, 1), &mut y, 7) {
            Err(ptx_dsl::runtime::Error::OutOfBounds { location, .. }) => location,
            other => panic!("case {which}: expected an out-of-bounds error, got {other:?}"),
        };
        assert_eq!(got, want, "case {which}");
    }
}

/// A kernel of full-warp operations, whose launch checks the block's thread count too.
#[ptx_kernel]
fn warp_total(x: &[u32], out: &mut [u32]) {
    let i = global_idx().x as usize;
    let total = warp_sum(if i < x.len() { x[i] } else { 0 });
    if i < out.len() {
        out[i] = total;
    }
}

#[test]
fn a_refused_launch_configuration_names_the_kernel() {
    let dev = Device::sim();
    let x = dev.upload(&[1u32; 4]).unwrap();
    let mut out = dev.zeroed::<u32>(4).unwrap();
    let configs = [
        LaunchConfig::linear(0, 4),
        LaunchConfig::linear(1, 1025),
        LaunchConfig::new((1, 65536, 1), (32, 1, 1)),
        LaunchConfig::linear(1, 32).with_shared_mem(1 << 20),
    ];
    let ptx = dev.kernel_ptx(&WarpTotal::new()).unwrap();
    let module = dev.load_ptx(&ptx).unwrap();
    for cfg in configs {
        for (err, kernel) in [
            (WarpTotal::new().launch(&dev, cfg, &x, &mut out).unwrap_err(), "warp_total"),
            (StepsReversed::new().launch(&dev, cfg, &x, &mut out).unwrap_err(), "steps_reversed"),
        ] {
            match &err {
                ptx_dsl::runtime::Error::BadLaunchConfig { kernel: Some(k), .. } if k == kernel => {}
                other => panic!("{cfg:?}: expected a refused configuration naming `{kernel}`, got {other:?}"),
            }
            assert!(
                err.to_string().starts_with(&format!("kernel `{kernel}`: bad launch configuration: ")),
                "{err}"
            );
        }
        let mut args = [KernelArg::buffer(&x), KernelArg::buffer_mut(&mut out)];
        // SAFETY: the configuration is refused before anything runs.
        let raw = unsafe { module.launch("warp_total", cfg, &mut args) }.map(|_| ()).unwrap_err();
        assert!(raw.to_string().starts_with("kernel `warp_total`: bad launch configuration"), "{raw}");
    }
    // On its own, without a kernel, the check names none.
    let alone = LaunchConfig::linear(0, 4).validate(&dev.limits()).unwrap_err();
    assert!(matches!(alone, ptx_dsl::runtime::Error::BadLaunchConfig { kernel: None, .. }), "{alone:?}");
    assert!(alone.to_string().starts_with("bad launch configuration: grid dimension x is 0"), "{alone}");
}

// The vector accesses' host versions panic where they are called, as the kernel reports.
located!(vector_sites, vector_sites_host, |y, k| {
    if y[0] == 0 {
        let (a, b, c, d) = load4(y, k);
        y[1] = a + b + c + d;
    } else {
        store2(y, k, (1, 2));
    }
});

#[test]
fn a_vector_access_out_of_range_or_misaligned_is_reported_where_rust_reports_it() {
    let dev = Device::sim();
    for (which, k) in [(0u32, 7usize), (0, 8), (1, 3), (1, 4)] {
        let want = panic_location(move || vector_sites_host(&mut [which, 0], k))
            .unwrap_or_else(|| panic!("case {which}, {k}: the host did not panic"));
        assert!(want.starts_with(file!()), "the host's panic is placed in the caller: {want}");
        let mut y = dev.upload(&[which, 0]).unwrap();
        let got = match VectorSites::new().launch(&dev, LaunchConfig::linear(1, 1), &mut y, k) {
            Err(ptx_dsl::runtime::Error::OutOfBounds { location, .. })
            | Err(ptx_dsl::runtime::Error::KernelPanic { location, .. }) => location,
            other => panic!("case {which}, {k}: expected a kernel error, got {other:?}"),
        };
        assert_eq!(got, want, "case {which}, {k}");
    }
}

/// A device function whose whole body panics: valid Rust (`!` coerces to `u32`), and a
/// call of it stops the thread there, as on the host.
#[ptx_device]
fn never_returns(code: u32) -> u32 {
    let _ = code;
    panic!("no value for this input")
}

/// The same through a tuple result, the panic after a statement.
#[ptx_device]
fn never_returns_pair(code: u32) -> (u32, f32) {
    let twice = code * 2;
    let _ = twice;
    unreachable!()
}

#[ptx_kernel]
fn calls_a_function_that_never_returns(x: &mut [u32]) {
    let i = thread_idx().x as usize;
    if i < x.len() {
        if x[i] == 7 {
            x[i] = never_returns(x[i]);
        } else if x[i] == 8 {
            let (a, _) = never_returns_pair(x[i]);
            x[i] = a;
        }
        x[i] += 1;
    }
}

#[test]
fn a_device_function_whose_body_panics_stops_the_calling_thread() {
    let dev = Device::sim();
    let mut x = dev.upload(&[1u32, 2, 3]).unwrap();
    CallsAFunctionThatNeverReturns::new().launch(&dev, LaunchConfig::linear(1, 3), &mut x).unwrap();
    assert_eq!(x.to_vec().unwrap(), [2, 3, 4]);
    for (input, message) in
        [(7u32, "no value for this input"), (8, "internal error: entered unreachable code")]
    {
        let mut x = dev.upload(&[1, input, 3]).unwrap();
        match CallsAFunctionThatNeverReturns::new().launch(&dev, LaunchConfig::linear(1, 3), &mut x) {
            Err(ptx_dsl::runtime::Error::KernelPanic { message: m, .. }) => assert_eq!(m, message),
            other => panic!("expected the panic, got {other:?}"),
        }
        assert_eq!(x.to_vec().unwrap(), [2, input, 4], "the panicking thread stopped, the others ran on");
        let host = std::panic::catch_unwind(|| never_returns(input)).is_err();
        assert!(host, "the host function panics too");
    }
}

/// A device function of no result whose body panics.
#[ptx_device]
fn never_returns_unit(code: u32) {
    let _ = code;
    todo!()
}

#[ptx_kernel]
fn calls_a_unit_function_that_never_returns(x: &mut [u32]) {
    let i = thread_idx().x as usize;
    if i < x.len() {
        if x[i] == 9 {
            never_returns_unit(x[i]);
        }
        x[i] += 1;
    }
}

#[test]
fn a_unit_device_function_whose_body_panics_stops_the_calling_thread() {
    let dev = Device::sim();
    let mut x = dev.upload(&[1u32, 9]).unwrap();
    match CallsAUnitFunctionThatNeverReturns::new().launch(&dev, LaunchConfig::linear(1, 2), &mut x) {
        Err(ptx_dsl::runtime::Error::KernelPanic { message, .. }) => {
            assert_eq!(message, "not yet implemented")
        }
        other => panic!("expected the panic, got {other:?}"),
    }
    assert_eq!(x.to_vec().unwrap(), [2, 9]);
}
