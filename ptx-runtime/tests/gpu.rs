//! The same kernels on a CUDA GPU, compared bit for bit with the simulator (IEEE-exact and
//! integer kernels only). Run with `cargo test -p ptx-runtime --test gpu -- --ignored` on a
//! machine with an NVIDIA driver (CUDA 13.0 / 580 series or newer) and a GPU.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::*;
use ptx_runtime::{Device, DeviceKind, Error, LaunchConfig};

fn gpu() -> Device {
    match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => panic!("this test needs a CUDA GPU: {e}"),
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_reports_itself() {
    let device = gpu();
    assert_eq!(device.kind(), DeviceKind::Cuda);
    assert_eq!(device.ordinal(), Some(0));
    assert!(device.target().major >= 5, "{}", device.target());
    let limits = device.limits();
    assert_eq!(limits.max_threads_per_block, 1024);
    assert!(limits.max_shared_mem_per_block >= 48 * 1024);
    eprintln!("{} ({:?}), limits {limits:?}", device.name(), device.target());
    device.synchronize().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn saxpy_on_gpu_equals_simulator_bit_for_bit() {
    let (gpu, sim) = (gpu(), Device::sim());
    let n = (1 << 20) + 77;
    let a = -2.375f32;
    let x = random_f32(11, n);
    let y = random_f32(12, n);
    let mut results = Vec::new();
    for device in [&gpu, &sim] {
        let xb = device.upload(&x).unwrap();
        let mut yb = device.upload(&y).unwrap();
        let report = unsafe {
            device.launch(
                &Saxpy,
                LaunchConfig::for_elements(n, 256),
                &mut [a.into(), (&xb).into(), (&mut yb).into(), (n as u32).into()],
            )
        }
        .unwrap();
        if device.kind() == DeviceKind::Cuda {
            assert_eq!(report.threads, None);
        }
        results.push(yb.to_vec().unwrap());
    }
    let want = saxpy_ref(a, &x, &y);
    for (i, ((g, s), w)) in results[0].iter().zip(&results[1]).zip(&want).enumerate() {
        assert_eq!(g.to_bits(), s.to_bits(), "element {i}: gpu {g} vs sim {s}");
        assert_eq!(g.to_bits(), w.to_bits(), "element {i}: gpu {g} vs reference {w}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn integer_kernels_on_gpu_equal_simulator() {
    let (gpu, sim) = (gpu(), Device::sim());
    let n = 100_003u32;
    let mut outs = Vec::new();
    for device in [&gpu, &sim] {
        let mut out = device.zeroed::<u32>(n as usize).unwrap();
        unsafe {
            device.launch(
                &Hash,
                LaunchConfig::for_elements(n as usize, 128),
                &mut [(&mut out).into(), 99u32.into(), n.into()],
            )
        }
        .unwrap();
        outs.push(out.to_vec().unwrap());
    }
    assert_eq!(outs[0], outs[1]);
    assert_eq!(outs[0], hash_ref(99, n));

    let (width, height, depth) = (301u32, 77u32, 5u32);
    let mut out = gpu.zeroed::<u32>((width * height * depth) as usize).unwrap();
    let cfg = LaunchConfig::new((width.div_ceil(16), height.div_ceil(8), depth), (16, 8, 1));
    unsafe { gpu.launch(&Coords, cfg, &mut [(&mut out).into(), width.into(), height.into()]) }.unwrap();
    assert_eq!(out.to_vec().unwrap(), coords_ref(width, height, depth));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_buffers_round_trip_and_copy() {
    let device = gpu();
    let data: Vec<i64> = (0..1000).map(|i| i * i - 500_000).collect();
    let mut b = device.upload(&data).unwrap();
    assert_eq!(b.to_vec().unwrap(), data);
    let z = device.zeroed::<i64>(1000).unwrap();
    assert_eq!(z.to_vec().unwrap(), vec![0; 1000]);
    b.copy_from_buffer(&z).unwrap();
    assert_eq!(b.to_vec().unwrap(), vec![0; 1000]);
    b.copy_from(&data).unwrap();
    assert_eq!(b.to_vec().unwrap(), data);
    assert!(matches!(b.copy_from(&data[..10]), Err(Error::SizeMismatch { .. })));
    let empty = device.upload::<f32>(&[]).unwrap();
    assert!(empty.to_vec().unwrap().is_empty());
    // Event timing of a copy: positive, and far below a second for 8 KB.
    let (t, ()) = device.time(|| b.copy_from_buffer(&z)).unwrap();
    assert!(t > std::time::Duration::ZERO && t < std::time::Duration::from_secs(1), "{t:?}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_module_cache_and_checks() {
    let device = gpu();
    let builds = AtomicUsize::new(0);
    let fill = Fill { value: 3, builds: &builds };
    let mut out = device.zeroed::<u32>(32).unwrap();
    for _ in 0..3 {
        unsafe { device.launch(&fill, LaunchConfig::linear(1, 32), &mut [(&mut out).into()]) }.unwrap();
    }
    assert_eq!(builds.load(Ordering::SeqCst), 1);
    assert_eq!(device.cache_stats().hits, 2);
    assert_eq!(out.to_vec().unwrap(), vec![3; 32]);

    let err =
        unsafe { device.launch(&fill, LaunchConfig::linear(1, 2048), &mut [(&mut out).into()]) }.unwrap_err();
    assert!(matches!(err, Error::BadLaunchConfig { .. }), "{err:?}");
    let err = unsafe { device.launch(&fill, LaunchConfig::linear(1, 32), &mut [1u32.into()]) }.unwrap_err();
    assert!(matches!(err, Error::ArgumentMismatch { .. }), "{err:?}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_streams() {
    let device = gpu();
    let stream = device.new_stream().unwrap();
    let n = 4096u32;
    let mut out = device.zeroed::<u32>(n as usize).unwrap();
    unsafe {
        stream.launch(
            &Hash,
            LaunchConfig::for_elements(n as usize, 256),
            &mut [(&mut out).into(), 1u32.into(), n.into()],
        )
    }
    .unwrap();
    stream.synchronize().unwrap();
    assert_eq!(out.to_vec().unwrap(), hash_ref(1, n));
    // Without an explicit synchronize: the download waits for the write (cudarc's events).
    unsafe {
        stream.launch(
            &Hash,
            LaunchConfig::for_elements(n as usize, 256),
            &mut [(&mut out).into(), 2u32.into(), n.into()],
        )
    }
    .unwrap();
    assert_eq!(out.to_vec().unwrap(), hash_ref(2, n));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_threads_drops_and_dropped_streams() {
    let device = gpu();
    // Launches from several threads at once (each binds the context on its own thread);
    // their buffers are dropped there.
    let n = 1u32 << 16;
    std::thread::scope(|s| {
        for seed in 0..4u32 {
            let device = &device;
            s.spawn(move || {
                let mut out = device.zeroed::<u32>(n as usize).unwrap();
                unsafe {
                    device.launch(
                        &Hash,
                        LaunchConfig::for_elements(n as usize, 256),
                        &mut [(&mut out).into(), seed.into(), n.into()],
                    )
                }
                .unwrap();
                assert_eq!(out.to_vec().unwrap(), hash_ref(seed, n));
            });
        }
    });
    // A buffer dropped on a thread that never used the device: its free must bind the
    // context, or the failure would surface at the next call below.
    let b = device.upload(&[1u32, 2, 3]).unwrap();
    std::thread::spawn(move || drop(b)).join().unwrap();
    device.synchronize().unwrap();

    // A stream dropped right after its launch: the download on the default stream still
    // waits for the kernel (a big one, so that a missing wait would show).
    let big = 1u32 << 24;
    let mut out = device.zeroed::<u32>(big as usize).unwrap();
    for seed in [7u32, 8] {
        {
            let stream = device.new_stream().unwrap();
            unsafe {
                stream.launch(
                    &Hash,
                    LaunchConfig::for_elements(big as usize, 256),
                    &mut [(&mut out).into(), seed.into(), big.into()],
                )
            }
            .unwrap();
        }
        assert_eq!(out.to_vec().unwrap(), hash_ref(seed, big), "seed {seed}");
    }
    let ptx = device.kernel_ptx(&Hash).unwrap();
    assert!(ptx.contains(&format!(".target {}", device.target())), "{ptx}");
    device.synchronize().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn raw_ptx_modules_run_on_the_gpu_as_on_the_simulator() {
    use ptx_core::{print, Kernel, Target};
    // Our printer's PTX (ISA 7.0, which every driver loads; NVRTC 13.5 writes 9.5).
    let ptx = print::module_ptx(&[Saxpy.build(), Hash.build()], Target::SM_80);
    let n = 4096;
    let (x, y) = (random_f32(5, n), random_f32(6, n));
    let mut results = Vec::new();
    for device in [gpu(), Device::sim()] {
        let module = device.load_ptx(&ptx).unwrap();
        assert_eq!(module.kernel_names().count(), 2);
        let (xd, mut yd) = (device.upload(&x).unwrap(), device.upload(&y).unwrap());
        let cfg = LaunchConfig::for_elements(n, 256);
        unsafe {
            module.launch(
                "saxpy",
                cfg,
                &mut [0.75f32.into(), (&xd).into(), (&mut yd).into(), (n as u32).into()],
            )
        }
        .unwrap();
        results.push(yd.to_vec().unwrap());
    }
    assert_eq!(results[0], results[1]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn narrow_scalars_and_by_value_structs_run_on_the_gpu_as_on_the_simulator() {
    use ptx_runtime::KernelArg;
    // NVRTC 13.5's PTX (ISA 9.5), declared 7.0 so that older drivers load it too: it uses
    // nothing newer.
    let ptx =
        include_str!("../../ptx-sim/tests/data/by_value_params.ptx").replace(".version 9.5", ".version 7.0");
    // struct { int a; double b; short c; } = { -7, 0.375, -2 }, padding bytes set.
    let mut mixed = [0x5au8; 24];
    mixed[0..4].copy_from_slice(&(-7i32).to_le_bytes());
    mixed[8..16].copy_from_slice(&0.375f64.to_le_bytes());
    mixed[16..18].copy_from_slice(&(-2i16).to_le_bytes());
    let mut results = Vec::new();
    for device in [gpu(), Device::sim()] {
        let module = device.load_ptx(&ptx).unwrap();
        let mut out = device.zeroed::<i64>(5 * 32).unwrap();
        let mut args = [
            KernelArg::from(&mut out),
            true.into(),
            (-3i8).into(),
            200u8.into(),
            (-1234i16).into(),
            60000u16.into(),
            32i32.into(),
        ];
        // SAFETY: thread i writes out[5i..5i+5], inside the 160 elements.
        unsafe { module.launch("small_scalars", LaunchConfig::linear(1, 32), &mut args) }.unwrap();
        let mut halves = device.upload(&[0x3e00u16, 0xc000, 0x3400, 0x4200]).unwrap();
        let mut args = [(&mut halves).into(), KernelArg::bytes(&0x4100u16.to_le_bytes()), 4i32.into()];
        // SAFETY: 4 threads, element i < 4 each.
        unsafe { module.launch("half_scale", LaunchConfig::linear(1, 4), &mut args) }.unwrap();
        let mut f = device.zeroed::<f64>(32).unwrap();
        let mut args = [(&mut f).into(), KernelArg::bytes(&mixed)];
        // SAFETY: 32 threads, element i < 32 each.
        unsafe { module.launch("by_struct", LaunchConfig::linear(1, 32), &mut args) }.unwrap();
        results.push((out.to_vec().unwrap(), halves.to_vec().unwrap(), f.to_vec().unwrap()));
    }
    assert_eq!(results[0], results[1]);
    assert_eq!(results[1].1, [0x4380, 0xc500, 0x3900, 0x4780]);
}
