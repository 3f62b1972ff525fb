//! The runtime on the CPU simulator: launches compared with Rust references, launch
//! configuration and argument checks, buffers, faults, and the module cache.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::*;
use ptx_runtime::{Device, DeviceBuffer, DeviceKind, Error, KernelArg, LaunchConfig, Scalar};

#[test]
fn saxpy_matches_the_rust_reference_bit_for_bit() {
    let device = Device::sim();
    assert_eq!(device.kind(), DeviceKind::Sim);
    let n = 1000;
    let a = 1.75f32;
    let x = random_f32(1, n);
    let y = random_f32(2, n);
    let xb = device.upload(&x).unwrap();
    let mut yb = device.upload(&y).unwrap();
    let cfg = LaunchConfig::for_elements(n, 128);
    assert_eq!(cfg.grid, (8, 1, 1));
    let report = unsafe {
        device.launch(&Saxpy, cfg, &mut [a.into(), (&xb).into(), (&mut yb).into(), (n as u32).into()])
    }
    .unwrap();
    let got = yb.to_vec().unwrap();
    let want = saxpy_ref(a, &x, &y);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "element {i}: {g} vs {w}");
    }
    assert_eq!(report.kernel, "saxpy");
    assert_eq!(report.threads, Some(8 * 128));
    assert!(report.instructions.unwrap() > 0);
    assert!(!report.cache_hit);
    // x is untouched.
    assert_eq!(xb.to_vec().unwrap(), x);
}

#[test]
fn bounds_check_leaves_elements_past_n_alone() {
    let device = Device::sim();
    let len = 300;
    let n = 257u32; // one thread of the third block of 128 is in range
    let x = random_f32(3, len);
    let y = random_f32(4, len);
    let xb = DeviceBuffer::from_slice(&device, &x).unwrap();
    let mut yb = DeviceBuffer::from_slice(&device, &y).unwrap();
    unsafe {
        device.launch(
            &Saxpy,
            LaunchConfig::for_elements(n as usize, 128),
            &mut [
                KernelArg::scalar(-0.5f32),
                KernelArg::buffer(&xb),
                KernelArg::buffer_mut(&mut yb),
                n.into(),
            ],
        )
    }
    .unwrap();
    let got = yb.to_vec().unwrap();
    let want = saxpy_ref(-0.5, &x[..n as usize], &y[..n as usize]);
    assert_eq!(&got[..n as usize], &want[..]);
    assert_eq!(&got[n as usize..], &y[n as usize..]);
}

#[test]
fn multi_block_three_dimensional_grid() {
    let device = Device::sim();
    let (width, height, depth) = (37u32, 21u32, 3u32);
    let mut out = device.zeroed::<u32>((width * height * depth) as usize).unwrap();
    // Blocks of 8x4 threads; the grid over-covers x and y, so the bounds checks matter.
    let cfg = LaunchConfig::new((width.div_ceil(8), height.div_ceil(4), depth), (8, 4, 1));
    let report =
        unsafe { device.launch(&Coords, cfg, &mut [(&mut out).into(), width.into(), height.into()]) }
            .unwrap();
    assert_eq!(out.to_vec().unwrap(), coords_ref(width, height, depth));
    assert_eq!(report.threads, Some(cfg.total_threads()));
}

#[test]
fn integer_kernel_matches_reference() {
    let device = Device::sim();
    let n = 5000u32;
    let mut out = device.zeroed::<u32>(n as usize).unwrap();
    unsafe {
        device.launch(
            &Hash,
            LaunchConfig::for_elements(n as usize, 256),
            &mut [(&mut out).into(), 77u32.into(), n.into()],
        )
    }
    .unwrap();
    assert_eq!(out.to_vec().unwrap(), hash_ref(77, n));
}

#[test]
fn bad_launch_configs_are_rejected_before_building() {
    let device = Device::sim();
    let x = device.upload(&[1.0f32; 4]).unwrap();
    let mut y = device.upload(&[1.0f32; 4]).unwrap();
    let bad = [
        LaunchConfig::linear(1, 2048),                              // block x above 1024
        LaunchConfig::new((1, 1, 1), (64, 32, 1)),                  // 2048 threads per block
        LaunchConfig::new((1, 1, 1), (1, 1, 65)),                   // block z above 64
        LaunchConfig::linear(0, 32),                                // zero grid
        LaunchConfig::new((1, 0, 1), (32, 1, 1)),                   // zero grid y
        LaunchConfig::linear(1, 0),                                 // zero block
        LaunchConfig::new((1, 65536, 1), (32, 1, 1)),               // grid y above 65535
        LaunchConfig::linear(1, 32).with_shared_mem(48 * 1024 + 1), // too much shared memory
    ];
    for cfg in bad {
        let err = unsafe {
            device.launch(&Saxpy, cfg, &mut [2.0f32.into(), (&x).into(), (&mut y).into(), 4u32.into()])
        }
        .unwrap_err();
        match &err {
            Error::BadLaunchConfig { kernel: Some(k), reason } if k == "saxpy" => assert!(!reason.is_empty()),
            other => panic!("{cfg:?}: expected BadLaunchConfig naming `saxpy`, got {other:?}"),
        }
        assert!(err.to_string().starts_with("kernel `saxpy`: bad launch configuration"), "{err}");
    }
    assert_eq!(device.cache_stats().builds, 0, "no kernel is built for a bad configuration");
    // The limits themselves are fine.
    let max = LaunchConfig::new((1, 1, 1), (1024, 1, 1)).with_shared_mem(48 * 1024);
    max.validate(&device.limits()).unwrap();
    LaunchConfig::new(((1 << 31) - 1, 65535, 65535), (1, 1, 64)).validate(&device.limits()).unwrap();
    assert_eq!(y.to_vec().unwrap(), [1.0; 4]);
}

#[test]
fn wrong_argument_count_and_types_are_rejected() {
    let device = Device::sim();
    let x = device.upload(&[1.0f32; 4]).unwrap();
    let mut y = device.upload(&[1.0f32; 4]).unwrap();
    let cfg = LaunchConfig::linear(1, 4);

    let err = unsafe { device.launch(&Saxpy, cfg, &mut [2.0f32.into(), (&x).into(), (&mut y).into()]) }
        .unwrap_err();
    assert!(matches!(err, Error::ArgumentMismatch { index: 3, .. }), "{err:?}");

    // a u32 where the f32 `a` is expected
    let err =
        unsafe { device.launch(&Saxpy, cfg, &mut [2u32.into(), (&x).into(), (&mut y).into(), 4u32.into()]) }
            .unwrap_err();
    match &err {
        Error::ArgumentMismatch { kernel, index, expected, found } => {
            assert_eq!((kernel.as_str(), *index), ("saxpy", 0));
            assert!(expected.contains("f32"), "{expected}");
            assert!(found.contains("u32"), "{found}");
        }
        other => panic!("{other:?}"),
    }

    // a scalar where a buffer is expected
    let err = unsafe {
        device.launch(&Saxpy, cfg, &mut [2.0f32.into(), 0u64.into(), (&mut y).into(), 4u32.into()])
    }
    .unwrap_err();
    assert!(matches!(err, Error::ArgumentMismatch { index: 1, .. }), "{err:?}");

    // a buffer where a scalar is expected
    let n_buf = device.upload(&[4u32]).unwrap();
    let err = unsafe {
        device.launch(&Saxpy, cfg, &mut [2.0f32.into(), (&x).into(), (&mut y).into(), (&n_buf).into()])
    }
    .unwrap_err();
    assert!(matches!(err, Error::ArgumentMismatch { index: 3, .. }), "{err:?}");

    // an i64 for the u32 `n`
    let err = unsafe {
        device.launch(&Saxpy, cfg, &mut [2.0f32.into(), (&x).into(), (&mut y).into(), Scalar::I64(4).into()])
    }
    .unwrap_err();
    assert!(matches!(err, Error::ArgumentMismatch { index: 3, .. }), "{err:?}");
    assert_eq!(y.to_vec().unwrap(), [1.0; 4], "nothing ran");
}

#[test]
fn buffers_of_another_device_are_rejected() {
    let device = Device::sim();
    let other = Device::sim();
    assert_ne!(device, other);
    assert_eq!(device, device.clone());
    let x = other.upload(&[1.0f32; 4]).unwrap();
    let mut y = device.upload(&[1.0f32; 4]).unwrap();
    let err = unsafe {
        device.launch(
            &Saxpy,
            LaunchConfig::linear(1, 4),
            &mut [2.0f32.into(), (&x).into(), (&mut y).into(), 4u32.into()],
        )
    }
    .unwrap_err();
    // The error names the argument by its index and its parameter's name.
    assert!(matches!(err, Error::WrongDevice { .. }), "{err:?}");
    assert!(err.to_string().contains("parameter `x` of kernel `saxpy` (PTX parameter 1,"), "{err}");
    let err = y.copy_from_buffer(&x).unwrap_err();
    assert!(matches!(err, Error::WrongDevice { .. }), "{err:?}");
    let stream = other.new_stream().unwrap();
    let mut z = device.upload(&[0u32; 4]).unwrap();
    let err = unsafe {
        device.launch_on(
            &stream,
            &Hash,
            LaunchConfig::linear(1, 4),
            &mut [(&mut z).into(), 1u32.into(), 4u32.into()],
        )
    };
    assert!(matches!(err, Err(Error::WrongDevice { .. })), "{err:?}");
}

#[test]
fn buffer_round_trips_and_copies() {
    let device = Device::sim();
    let f = [1.5f32, -0.0, f32::INFINITY, f32::MIN_POSITIVE, 3.25];
    assert_eq!(device.upload(&f).unwrap().to_vec().unwrap(), f);
    let i = [i32::MIN, -1, 0, 7, i32::MAX];
    assert_eq!(device.upload(&i).unwrap().to_vec().unwrap(), i);
    let u = [u64::MAX, 0, 1 << 40];
    assert_eq!(device.upload(&u).unwrap().to_vec().unwrap(), u);
    let l = [i64::MIN, -5, i64::MAX];
    assert_eq!(device.upload(&l).unwrap().to_vec().unwrap(), l);

    let mut z = DeviceBuffer::<u32>::zeroed(&device, 6).unwrap();
    assert_eq!(z.len(), 6);
    assert!(!z.is_empty());
    assert_eq!(z.size_bytes(), 24);
    assert!(z.device().same_as(&device));
    assert_eq!(z.to_vec().unwrap(), [0; 6]);
    z.copy_from(&[1, 2, 3, 4, 5, 6]).unwrap();
    assert_eq!(z.to_vec().unwrap(), [1, 2, 3, 4, 5, 6]);
    let err = z.copy_from(&[1, 2, 3]).unwrap_err();
    assert!(matches!(err, Error::SizeMismatch { expected: 6, found: 3 }), "{err:?}");

    let src = device.upload(&[9u32, 8, 7, 6, 5, 4]).unwrap();
    z.copy_from_buffer(&src).unwrap();
    assert_eq!(z.to_vec().unwrap(), [9, 8, 7, 6, 5, 4]);
    let short = device.upload(&[1u32]).unwrap();
    assert!(matches!(z.copy_from_buffer(&short), Err(Error::SizeMismatch { expected: 6, found: 1 })));

    let empty = device.upload::<f32>(&[]).unwrap();
    assert!(empty.is_empty());
    assert!(empty.to_vec().unwrap().is_empty());
    let mut empty2 = device.zeroed::<f32>(0).unwrap();
    empty2.copy_from(&[]).unwrap();
    empty2.copy_from_buffer(&empty).unwrap();
}

#[test]
fn empty_launch_with_bounds_check_does_nothing() {
    let device = Device::sim();
    let x = device.upload::<f32>(&[]).unwrap();
    let mut y = device.upload::<f32>(&[]).unwrap();
    let cfg = LaunchConfig::for_elements(0, 64);
    assert_eq!(cfg.grid, (1, 1, 1));
    unsafe { device.launch(&Saxpy, cfg, &mut [1.0f32.into(), (&x).into(), (&mut y).into(), 0u32.into()]) }
        .unwrap();
}

#[test]
fn out_of_bounds_store_is_a_sim_fault() {
    let device = Device::sim();
    let mut out = device.zeroed::<u32>(16).unwrap();
    // In bounds first.
    unsafe { device.launch(&Unchecked, LaunchConfig::linear(1, 16), &mut [(&mut out).into(), 0u32.into()]) }
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), [1; 16]);
    let err = unsafe {
        device.launch(&Unchecked, LaunchConfig::linear(1, 16), &mut [(&mut out).into(), 1_000_000u32.into()])
    }
    .unwrap_err();
    match &err {
        Error::SimFault { kernel, block, address, instruction, .. } => {
            assert_eq!(kernel, "unchecked_store");
            assert_eq!(*block, [0, 0, 0]);
            assert!(*address > 0);
            assert!(instruction.contains("st.global"), "{instruction}");
        }
        other => panic!("expected SimFault, got {other:?}"),
    }
    assert!(err.to_string().contains("unchecked_store"), "{err}");
}

#[test]
fn module_cache_builds_each_kernel_once() {
    let device = Device::sim();
    let builds = AtomicUsize::new(0);
    let mut out = device.zeroed::<u32>(8).unwrap();
    let fill7 = Fill { value: 7, builds: &builds };
    let r1 = unsafe { device.launch(&fill7, LaunchConfig::linear(1, 8), &mut [(&mut out).into()]) }.unwrap();
    let r2 = unsafe { device.launch(&fill7, LaunchConfig::linear(1, 8), &mut [(&mut out).into()]) }.unwrap();
    assert!(!r1.cache_hit);
    assert!(r2.cache_hit);
    assert_eq!(builds.load(Ordering::SeqCst), 1, "the second launch costs no build");
    let stats = device.cache_stats();
    assert_eq!((stats.builds, stats.hits, stats.modules), (1, 1, 1));
    assert_eq!(out.to_vec().unwrap(), [7; 8]);

    // Another comptime value is another module.
    let fill9 = Fill { value: 9, builds: &builds };
    unsafe { device.launch(&fill9, LaunchConfig::linear(1, 8), &mut [(&mut out).into()]) }.unwrap();
    assert_eq!(builds.load(Ordering::SeqCst), 2);
    assert_eq!(out.to_vec().unwrap(), [9; 8]);
    // Used again through a `dyn Kernel`.
    let dynamic: &dyn ptx_core::Kernel = &fill7;
    unsafe { device.launch(dynamic, LaunchConfig::linear(1, 8), &mut [(&mut out).into()]) }.unwrap();
    assert_eq!(builds.load(Ordering::SeqCst), 2);
    assert_eq!(device.cache_stats().hits, 2);

    // Clones share the cache; another device has its own.
    let clone = device.clone();
    assert!(clone.preload(&fill7).unwrap());
    assert_eq!(builds.load(Ordering::SeqCst), 2);
    let other = Device::sim();
    assert!(!other.preload(&fill7).unwrap());
    assert_eq!(builds.load(Ordering::SeqCst), 3);

    let ptx = device.kernel_ptx(&fill7).unwrap();
    assert!(ptx.contains(".entry fill"), "{ptx}");
    assert!(ptx.contains(".target sm_80"), "{ptx}");
}

#[test]
fn invalid_kernel_is_reported_and_not_cached() {
    let device = Device::sim();
    let mut out = device.zeroed::<u32>(1).unwrap();
    for _ in 0..2 {
        let err = unsafe { device.launch(&Broken, LaunchConfig::linear(1, 1), &mut []) }.unwrap_err();
        assert!(matches!(err, Error::InvalidKernel(_)), "{err:?}");
    }
    assert_eq!(device.cache_stats().builds, 2);
    assert_eq!(device.cache_stats().modules, 0);
    let _ = &mut out;
}

#[test]
fn streams_order_launches() {
    let device = Device::sim();
    let stream = device.new_stream().unwrap();
    assert!(stream.device().same_as(&device));
    let n = 64u32;
    let mut out = device.zeroed::<u32>(n as usize).unwrap();
    unsafe {
        stream.launch(
            &Hash,
            LaunchConfig::for_elements(64, 32),
            &mut [(&mut out).into(), 5u32.into(), n.into()],
        )
    }
    .unwrap();
    stream.synchronize().unwrap();
    assert_eq!(out.to_vec().unwrap(), hash_ref(5, n));
    unsafe {
        device.launch_on(
            &device.default_stream(),
            &Hash,
            LaunchConfig::for_elements(64, 32),
            &mut [(&mut out).into(), 6u32.into(), n.into()],
        )
    }
    .unwrap();
    device.synchronize().unwrap();
    assert_eq!(out.to_vec().unwrap(), hash_ref(6, n));
}

#[test]
fn device_facts() {
    let device = Device::sim();
    assert_eq!(device.target(), ptx_core::Target::SM_80);
    assert_eq!(device.ordinal(), None);
    assert!(device.name().contains("simulator"), "{}", device.name());
    assert_eq!(device.limits(), ptx_runtime::DeviceLimits::DEFAULT);
    let _ = format!("{device:?} {device}");
}

#[test]
fn cuda_without_a_driver_is_an_error_not_a_panic() {
    // This machine has no CUDA driver; on one that has a GPU the call may succeed.
    match Device::cuda(0) {
        Ok(d) => assert_eq!(d.kind(), DeviceKind::Cuda),
        Err(Error::NoDevice { reason }) => {
            assert!(reason.contains("sim"), "the reason should point at the simulator: {reason}")
        }
        Err(other) => panic!("expected NoDevice, got {other:?}"),
    }
    // An absurd ordinal is never a device.
    assert!(matches!(Device::cuda(1 << 20), Err(Error::NoDevice { .. })));
}

#[test]
fn handles_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Device>();
    send_sync::<ptx_runtime::Stream>();
    send_sync::<DeviceBuffer<f32>>();
    send_sync::<Error>();
    // A device can be used from several threads at once.
    let device = Device::sim();
    std::thread::scope(|s| {
        for seed in 0..4u32 {
            let device = &device;
            s.spawn(move || {
                let mut out = device.zeroed::<u32>(100).unwrap();
                unsafe {
                    device.launch(
                        &Hash,
                        LaunchConfig::for_elements(100, 32),
                        &mut [(&mut out).into(), seed.into(), 100u32.into()],
                    )
                }
                .unwrap();
                assert_eq!(out.to_vec().unwrap(), hash_ref(seed, 100));
            });
        }
    });
    assert_eq!(device.cache_stats().builds, 1);
}

/// `out[tid.x] = 5`, whose build tells `entered` that it started and then waits (up to 20 s)
/// for `proceed`, recording whether the signal came.
struct SlowBuild {
    entered: std::sync::mpsc::Sender<()>,
    proceed: std::sync::Mutex<std::sync::mpsc::Receiver<()>>,
    signalled: std::sync::atomic::AtomicBool,
}

impl ptx_core::Kernel for SlowBuild {
    fn name(&self) -> &str {
        "slow_build"
    }

    fn build(&self) -> ptx_core::KernelIr {
        let _ = self.entered.send(());
        let got = self.proceed.lock().unwrap().recv_timeout(std::time::Duration::from_secs(20)).is_ok();
        self.signalled.store(got, Ordering::SeqCst);
        let mut b = ptx_core::KernelBuilder::new("slow_build");
        let out = b.global_pointer("out");
        let tid = b.special(ptx_core::SpecialReg::TidX);
        let addr = b.element_address::<ptx_core::U32>(out, tid);
        b.st_global::<ptx_core::U32>(addr, 0, 5u32);
        b.finish()
    }
}

#[test]
fn a_slow_build_does_not_block_other_kernels() {
    let device = Device::sim();
    let (entered_tx, entered_rx) = std::sync::mpsc::channel();
    let (proceed_tx, proceed_rx) = std::sync::mpsc::channel();
    let slow = SlowBuild {
        entered: entered_tx,
        proceed: std::sync::Mutex::new(proceed_rx),
        signalled: std::sync::atomic::AtomicBool::new(false),
    };
    std::thread::scope(|s| {
        let device = &device;
        let slow = &slow;
        let worker = s.spawn(move || {
            let mut out = device.zeroed::<u32>(4).unwrap();
            unsafe { device.launch(slow, LaunchConfig::linear(1, 4), &mut [(&mut out).into()]) }.unwrap();
            out.to_vec().unwrap()
        });
        entered_rx.recv().unwrap();
        // The slow kernel is being built: another kernel builds, loads and runs meanwhile.
        let builds = AtomicUsize::new(0);
        let mut out = device.zeroed::<u32>(4).unwrap();
        let fill = Fill { value: 2, builds: &builds };
        unsafe { device.launch(&fill, LaunchConfig::linear(1, 4), &mut [(&mut out).into()]) }.unwrap();
        assert_eq!(out.to_vec().unwrap(), [2; 4]);
        proceed_tx.send(()).unwrap();
        assert_eq!(worker.join().unwrap(), [5; 4]);
    });
    assert!(slow.signalled.load(Ordering::SeqCst), "the other launch waited for the slow build");
    assert_eq!(device.cache_stats().modules, 2);
}

#[test]
fn a_read_only_buffer_for_a_written_pointer_and_a_buffer_of_the_wrong_type_are_rejected() {
    let device = Device::sim();
    let x = device.upload(&[1.0f32; 4]).unwrap();
    let y = device.upload(&[1.0f32; 4]).unwrap();
    let cfg = LaunchConfig::linear(1, 4);
    // Saxpy stores through `y`: passing it read-only is refused, and `y` is left alone.
    let err =
        unsafe { device.launch(&Saxpy, cfg, &mut [2.0f32.into(), (&x).into(), (&y).into(), 4u32.into()]) }
            .unwrap_err();
    match &err {
        Error::ArgumentMismatch { index: 2, expected, found, .. } => {
            assert!(expected.contains("mutable buffer") && expected.contains("`y`"), "{expected}");
            assert!(found.starts_with("buffer of f32"), "{found}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(y.to_vec().unwrap(), [1.0; 4]);
    // A u32 buffer where the kernel loads f32 values.
    let words = device.upload(&[1u32; 4]).unwrap();
    let mut y = y;
    let err = unsafe {
        device.launch(&Saxpy, cfg, &mut [2.0f32.into(), (&words).into(), (&mut y).into(), 4u32.into()])
    }
    .unwrap_err();
    match &err {
        Error::ArgumentMismatch { index: 1, expected, found, .. } => {
            assert!(expected.contains("buffer of f32"), "{expected}");
            assert!(found.contains("u32"), "{found}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn time_measures_the_work_and_passes_its_result_and_errors_on() {
    let device = Device::sim();
    let n = 1 << 16;
    let (x, mut y) = (device.upload(&random_f32(3, n)).unwrap(), device.zeroed::<f32>(n).unwrap());
    let cfg = LaunchConfig::for_elements(n, 256);
    let (elapsed, report) = device
        .time(|| unsafe {
            device.launch(&Saxpy, cfg, &mut [2.0f32.into(), (&x).into(), (&mut y).into(), (n as u32).into()])
        })
        .unwrap();
    assert!(elapsed > std::time::Duration::ZERO);
    assert_eq!(report.threads, Some(n as u64));
    let err = device.time(|| y.copy_from(&[1.0f32; 3])).unwrap_err();
    assert!(matches!(err, Error::SizeMismatch { .. }), "{err}");
}
