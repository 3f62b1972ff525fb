//! Round twelve: integer methods on every width with full-range rotation amounts, chained,
//! on constant receivers and on `#[comptime]` operands (folded while building: the same
//! results as at run time, and Rust's panics a launch's `Err(KernelPanic)`, never a panic
//! while building); `log10` and `log` on edge values against Rust's; panics in unchecked
//! kernels and before a barrier.
#![allow(clippy::unnecessary_cast)]
use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, DeviceBuffer, Error, LaunchConfig};

#[macro_use]
#[path = "common/twin.rs"]
mod twin;
use twin::*;

// Full-range rotation amounts, chained methods, all widths incl. usize/isize.
twin!(rot_all, rot_all_host, |i, a: &[u64], out: &mut [u64]| {
    let x = a[i];
    let n = a[(i + 3) % a.len()] as u32;
    let m = (a[(i + 5) % a.len()] % 300) as u32;
    let o = 16 * i;
    out[o] = (x as u8).rotate_left(n) as u64;
    out[o + 1] = (x as i8).rotate_right(m) as u64;
    out[o + 2] = (x as u16).rotate_left(m).rotate_right(n) as u64;
    out[o + 3] = (x as i16).rotate_left(n) as u64;
    out[o + 4] = (x as i32).rotate_left(m).leading_ones() as u64;
    out[o + 5] = (x as usize).rotate_right(m) as u64;
    out[o + 6] = (x as isize).rotate_left(n) as u64;
    out[o + 7] = (x as usize).saturating_sub(a[(i + 1) % a.len()] as usize) as u64;
    out[o + 8] = (x as isize).saturating_add(a[(i + 1) % a.len()] as isize) as u64;
    out[o + 9] = (x as isize).abs_diff(a[(i + 1) % a.len()] as isize) as u64;
    out[o + 10] = (x as isize).signum() as u64;
    out[o + 11] = (x as usize).is_power_of_two() as u64;
    out[o + 12] = (x as i8).abs_diff((x >> 8) as i8) as u64;
    out[o + 13] = (x as i16).saturating_sub((x >> 16) as i16).signum() as u64;
    out[o + 14] = ((x as u8).trailing_ones() + (x as i64).leading_ones() + (x as u16).leading_ones()) as u64;
    out[o + 15] = (x as i8).rem_euclid(((x >> 8) as i8) | 1).saturating_add(i8::MIN) as u64;
});

#[test]
fn rot_all_twin() {
    let mut xs = u64_inputs("rot_all", 400);
    for w in [8u64, 16, 32, 64] {
        for k in [0u64, 1, 2, 3, 4, 5] {
            xs.push(w * k);
            xs.push(w * k + 1);
            xs.push((w * k).wrapping_sub(1));
        }
    }
    xs.extend([0x80, 0x7f, 0x81, 0x8000, 0x7fff, 0xff, 0xffff, 299, 256, 255, 257]);
    // `i8::MIN.rem_euclid(-1)` (slot 15, low bytes 0x80 and 0xfe or 0xff) panics in Rust
    // as in the kernel: one random input in about 43 000 drew it.
    xs.retain(|&x| !(x as i8 == i8::MIN && (((x >> 8) as i8) | 1) == -1));
    let launch = |d: &_, c, a: &_, o: &mut _| RotAll::new().launch(d, c, a, o);
    check_twin("rot_all", &xs, 16, &launch, rot_all_host);
}

// Constant receivers: folded?
twin!(consts, consts_host, |i, a: &[u32], out: &mut [u64]| {
    let o = 12 * i;
    out[o] = 7u8.rotate_left(3) as u64;
    out[o + 1] = (-7i32).rem_euclid(3) as u64;
    out[o + 2] = (-7i32).div_euclid(-3) as u64;
    out[o + 3] = 200u8.saturating_add(100) as u64;
    out[o + 4] = i8::MIN.saturating_sub(1) as u64;
    out[o + 5] = 0x80u8.rotate_right(300) as u64;
    out[o + 6] = (-5i64).abs_diff(i64::MAX) as u64;
    out[o + 7] = (-5i16).signum() as u64;
    out[o + 8] = 64u16.is_power_of_two() as u64;
    out[o + 9] = (0xf0u8).leading_ones() as u64 + (0x0fu8).trailing_ones() as u64;
    out[o + 10] = u64::MAX.rotate_left(64) as u64 ^ i32::MIN.rotate_left(1) as u64;
    out[o + 11] = ((a[i] as i32) | 1).rem_euclid(i32::MIN) as u64 + 1;
});

#[test]
fn consts_twin() {
    let xs = u32_inputs("consts", 40);
    let launch = |d: &_, c, a: &_, o: &mut _| Consts::new().launch(d, c, a, o);
    check_twin("consts", &xs, 12, &launch, consts_host);
}

#[ptx_kernel]
fn ct(out: &mut [i64], #[comptime] x: i32, #[comptime] d: i32, #[comptime] n: u32) {
    let i = thread_idx().x as usize;
    out[i] = x.rem_euclid(d) as i64 + 1000 * x.div_euclid(d) as i64;
    out[i + 2] = x.rotate_left(n) as i64 + x.saturating_add(d) as i64 * 3;
    out[i + 4] = (x as u8).rotate_right(n) as i64 + x.signum() as i64;
}

fn ct_host(x: i32, d: i32, n: u32) -> std::thread::Result<[i64; 3]> {
    std::panic::catch_unwind(|| {
        [
            x.rem_euclid(d) as i64 + 1000 * x.div_euclid(d) as i64,
            x.rotate_left(n) as i64 + x.saturating_add(d) as i64 * 3,
            (x as u8).rotate_right(n) as i64 + x.signum() as i64,
        ]
    })
}

#[ptx_kernel]
fn rt(args: &[i32], out: &mut [i64]) {
    let i = thread_idx().x as usize;
    let (x, d, n) = (args[0], args[1], args[2] as u32);
    out[i] = x.rem_euclid(d) as i64 + 1000 * x.div_euclid(d) as i64;
    out[i + 2] = x.rotate_left(n) as i64 + x.saturating_add(d) as i64 * 3;
    out[i + 4] = (x as u8).rotate_right(n) as i64 + x.signum() as i64;
}

#[test]
fn comptime_vs_runtime() {
    let dev = Device::sim();
    let vals = [0, 1, -1, 7, -7, i32::MIN, i32::MIN + 1, i32::MAX, 3, -3, 256, 300, 64, 32];
    let mut count = 0;
    for &x in &vals {
        for &d in &vals {
            for n in [0u32, 1, 31, 32, 33, 64, 299, u32::MAX] {
                count += 1;
                let want = ct_host(x, d, n);
                let mut out: DeviceBuffer<i64> = dev.zeroed(6).unwrap();
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    Ct::new(x, d, n).launch(&dev, LaunchConfig::linear(1, 2), &mut out)
                }));
                let r = match r {
                    Ok(r) => r,
                    Err(_) => panic!("build panicked for {x} {d} {n}"),
                };
                let a = dev.upload(&[x, d, n as i32]).unwrap();
                let mut out2: DeviceBuffer<i64> = dev.zeroed(6).unwrap();
                let r2 = Rt::new().launch(&dev, LaunchConfig::linear(1, 2), &a, &mut out2);
                match want {
                    Ok(w) => {
                        assert!(r.is_ok(), "{x} {d} {n}: {:?}", r.err());
                        assert!(r2.is_ok(), "{x} {d} {n}: {:?}", r2.err());
                        let o = out.to_vec().unwrap();
                        let o2 = out2.to_vec().unwrap();
                        assert_eq!([o[0], o[2], o[4]], w, "ct {x} {d} {n}");
                        assert_eq!([o2[0], o2[2], o2[4]], w, "rt {x} {d} {n}");
                    }
                    Err(_) => {
                        assert!(matches!(r, Err(Error::KernelPanic { .. })), "ct {x} {d} {n}: {:?}", r);
                        assert!(matches!(r2, Err(Error::KernelPanic { .. })), "rt {x} {d} {n}: {:?}", r2);
                    }
                }
            }
        }
    }
    assert_eq!(count, 14 * 14 * 8);
}

#[ptx_kernel]
fn logs(a: &[f64], b: &[f64], out: &mut [f64]) {
    let i = thread_idx().x as usize + block_idx().x as usize * block_dim().x as usize;
    if i < a.len() {
        let (x, y) = (a[i], b[i]);
        out[4 * i] = x.log10();
        out[4 * i + 1] = x.log(y);
        out[4 * i + 2] = (x as f32).log10() as f64;
        out[4 * i + 3] = (x as f32).log(y as f32) as f64;
    }
}

fn ulps64(a: f64, b: f64) -> u64 {
    let k = |v: f64| {
        let b = v.to_bits() as i64;
        if b < 0 {
            i64::MIN - b
        } else {
            b
        }
    };
    (k(a) - k(b)).unsigned_abs()
}
fn ulps32(a: f32, b: f32) -> u64 {
    let k = |v: f32| {
        let b = v.to_bits() as i32 as i64;
        if b < 0 {
            i32::MIN as i64 - b
        } else {
            b
        }
    };
    (k(a) - k(b)).unsigned_abs()
}

#[test]
fn logs_edge() {
    let mut xs = f64_inputs("logs", 3000);
    let mut f32s: Vec<f64> = f32_inputs("logs32", 3000).into_iter().map(|v| v as f64).collect();
    xs.append(&mut f32s);
    for e in -45..40 {
        xs.push(10f64.powi(e));
        xs.push((10f32.powi(e)) as f64);
    }
    for e in -320..309 {
        xs.push(format!("1e{e}").parse().unwrap());
    }
    xs.extend([
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        1.0,
        2.0,
        0.1,
        1.0 + f64::EPSILON,
        1.0 - f64::EPSILON / 2.0,
    ]);
    xs.extend([
        f32::from_bits(1) as f64,
        f32::from_bits(0x007f_ffff) as f64,
        f32::MIN_POSITIVE as f64,
        1.0000001f32 as f64,
        0.99999994f32 as f64,
    ]);
    let bases = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        -2.0,
        2.0,
        10.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        0.5,
        1e-310,
        1e300,
        std::f64::consts::E,
        1.0 + f64::EPSILON,
        3.0,
    ];
    let n = xs.len();
    let mut rng = ptx_tools::rng::Rng::fresh("logs_b");
    let ys: Vec<f64> = (0..n)
        .map(|k| if k % 2 == 0 { bases[(k / 2) % bases.len()] } else { xs[(rng.next() as usize) % n] })
        .collect();
    let dev = Device::sim();
    let a = dev.upload(&xs).unwrap();
    let b = dev.upload(&ys).unwrap();
    let mut out: DeviceBuffer<f64> = dev.zeroed(4 * n).unwrap();
    Logs::new().launch(&dev, LaunchConfig::for_elements(n, 64), &a, &b, &mut out).unwrap();
    let got = out.to_vec().unwrap();
    let mut bad = 0;
    let mut worst = [0u64; 4];
    for k in 0..n {
        let (x, y) = (xs[k], ys[k]);
        let (xf, yf) = (x as f32, y as f32);
        // The f32 results against the f64 functions of the same inputs rounded once (the
        // routines are documented within 1 ulp of that); host f32 `log10`/`ln` are not the
        // reference, as glibc's `log10f` errs by up to 2 ulp itself (1.67 ulp at
        // x = 1.3204074, where ours is 0.33 ulp from the exact value). The f64 results
        // against host f64: ours within 1 ulp of exact, glibc's `log10`/`ln` within 2.
        let (xw, yw) = (xf as f64, yf as f64);
        let want = [x.log10(), x.ln() / y.ln(), xw.log10() as f32 as f64, (xw.ln() / yw.ln()) as f32 as f64];
        let rust_log = [x.log10(), x.log(y), xf.log10() as f64, xf.log(yf) as f64];
        for s in 0..4 {
            let (g, w) = (got[4 * k + s], want[s]);
            let tol = if s < 2 { 3 } else { 1 };
            let ok = if w.is_nan() || g.is_nan() {
                w.is_nan() && g.is_nan()
            } else if w.is_infinite() || w == 0.0 || g.is_infinite() || g == 0.0 {
                g.to_bits() == w.to_bits()
            } else {
                let u = if s < 2 { ulps64(g, w) } else { ulps32(g as f32, w as f32) };
                worst[s] = worst[s].max(u);
                u <= tol
            };
            if !ok {
                bad += 1;
                if bad < 30 {
                    eprintln!(
                        "slot {s} x={x:e} ({:#x}) y={y:e}: got {g:e} want {w:e} rust log {:e}",
                        x.to_bits(),
                        rust_log[s]
                    );
                }
            }
        }
    }
    eprintln!("n={n} worst ulps {worst:?}");
    assert_eq!(bad, 0);
}

#[ptx_kernel(unchecked)]
fn pk_unchecked(a: &[u32], out: &mut [u32]) {
    let i = thread_idx().x as usize;
    assert!(a[i] != 3, "three");
    out[i] = a[i] + 1;
}

#[ptx_kernel]
fn pk_sync(a: &[u32], out: &mut [u32]) {
    let tile = shared::<u32, 64>();
    let t = thread_idx().x as usize;
    assert!(a[t] % 3 != 0, "div3");
    tile[t] = a[t];
    sync_threads();
    out[t] = tile[63 - t] + 1;
}

#[test]
fn a_panic_in_an_unchecked_kernel_or_before_a_barrier_ends_the_launch() {
    let dev = Device::sim();
    let xs: Vec<u32> = (1..=64).collect();
    let a = dev.upload(&xs).unwrap();
    let mut out: DeviceBuffer<u32> = dev.zeroed(64).unwrap();
    // SAFETY: 64 threads index 64-element buffers.
    unsafe { PkUnchecked::new().launch(&dev, LaunchConfig::linear(1, 64), &a, &mut out) }.unwrap();
    // Not recorded, but the thread with 3 stops.
    assert_eq!(out.to_vec().unwrap()[..4], [2, 3, 0, 5]);
    // Threads that stopped never reach the barrier: the launch ends with the panic (no hang).
    let r = PkSync::new().launch(&dev, LaunchConfig::linear(1, 64), &a, &mut out);
    assert!(matches!(&r, Err(Error::KernelPanic { message, .. }) if message == "div3"), "{r:?}");
    let a = dev.upload(&[1u32; 64]).unwrap();
    PkSync::new().launch(&dev, LaunchConfig::linear(1, 64), &a, &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [2; 64]);
}

#[ptx_kernel]
fn constpanic(y: &mut [i64], #[comptime] which: u32) {
    let i = thread_idx().x as usize;
    if which == 0 {
        y[i] = 7u32.rem_euclid(0) as i64;
    }
    if which == 1 {
        y[i] = i32::MIN.div_euclid(-1) as i64;
    }
    if which == 2 {
        y[i] = i32::MIN.rem_euclid(-1) as i64;
    }
    if which == 3 {
        y[i] = (-7i8).div_euclid(0) as i64;
    }
    if which == 4 {
        y[i] = i64::MIN.rem_euclid(-1) as i64;
    }
    if which == 5 {
        y[i] = 5.5f32.rem_euclid(0.0) as i64;
    }
    y[i + 2] = 1;
}

#[test]
fn constant_euclidean_panics_are_launch_errors() {
    let dev = Device::sim();
    let messages = [
        "attempt to calculate the remainder with a divisor of zero",
        "attempt to divide with overflow",
        "attempt to calculate the remainder with overflow",
        "attempt to divide by zero",
        "attempt to calculate the remainder with overflow",
    ];
    for (which, want) in messages.into_iter().enumerate() {
        let mut out: DeviceBuffer<i64> = dev.zeroed(4).unwrap();
        let r = Constpanic::new(which as u32).launch(&dev, LaunchConfig::linear(1, 2), &mut out);
        assert!(matches!(&r, Err(Error::KernelPanic { message, .. }) if message == want), "{which}: {r:?}");
    }
    let mut out: DeviceBuffer<i64> = dev.zeroed(4).unwrap();
    Constpanic::new(5).launch(&dev, LaunchConfig::linear(1, 2), &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [5.5f32.rem_euclid(0.0) as i64, 0, 1, 1]);
}
