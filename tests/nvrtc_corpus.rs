//! PTX that nobody here wrote: CUDA C kernels typical of real code (`ptx-sim/tests/corpus/*.cu`)
//! compiled by NVRTC 13.5 for sm_80 (`scripts/nvrtc-corpus.sh`), loaded with
//! `Device::load_ptx` and run on the simulator against references computed in Rust. Every
//! checked-in `.ptx` is either run here or listed as not supported yet, with the construct
//! the simulator names.

use ptx_dsl::runtime::{Device, KernelArg, LaunchConfig, PtxModule};
use ptx_tools::rng::Rng;

fn corpus(name: &str) -> String {
    let path = format!("{}/ptx-sim/tests/corpus/{name}.ptx", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn load(device: &Device, name: &str) -> PtxModule {
    device.load_ptx(&corpus(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Runs kernel `name` of corpus file `file`.
fn launch(module: &PtxModule, name: &str, cfg: LaunchConfig, args: &mut [KernelArg<'_>]) {
    module.launch(name, cfg, args).unwrap_or_else(|e| panic!("{name}: {e}"));
}

/// The files the simulator cannot run yet, and the construct it names for each.
const NOT_YET: [(&str, &str); 0] = [];

#[test]
fn every_corpus_file_runs_or_is_listed_with_its_construct() {
    let dir = format!("{}/ptx-sim/tests/corpus", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 25, "{} files", names.len());
    let device = Device::sim();
    for name in &names {
        match (device.load_ptx(&corpus(name)), NOT_YET.iter().find(|(n, _)| n == name)) {
            (Ok(_), None) => assert!(RUN.contains(&name.as_str()), "{name} loads but no test runs it"),
            (Err(e), Some((_, construct))) => {
                let text = e.to_string();
                assert!(text.contains(construct) && text.contains("does not support"), "{name}: {text}");
            }
            (Ok(_), Some(_)) => panic!("{name} loads now: move it from NOT_YET to a test"),
            (Err(e), None) => panic!("{name}: {e}"),
        }
    }
}

/// The files the tests below run.
const RUN: [&str; 33] = [
    "atomic_max",
    "atomics",
    "ballot",
    "bf16_scale",
    "bits",
    "block_reduce",
    "const_table",
    "daxpy",
    "device_fn",
    "dyn_shared",
    "exp_log",
    "gelu",
    "grid_stride",
    "half_scale",
    "histogram",
    "int_divmod",
    "launch_bounds",
    "layer_norm",
    "matrix_add",
    "printf_kernel",
    "printf_types",
    "relu_clamp",
    "rope_fast",
    "rotate_permute",
    "saxpy",
    "scan",
    "size_t_index",
    "softmax",
    "transpose",
    "trig_accurate",
    "trig_fast",
    "vec_add",
    "warp_reduce",
];

fn f32s(rng: &mut Rng, n: usize, scale: f32) -> Vec<f32> {
    (0..n).map(|_| rng.signed_f32() * scale).collect()
}

#[test]
fn elementwise_kernels_match_rust_bit_for_bit() {
    let device = Device::sim();
    let mut rng = Rng::fresh("nvrtc_elementwise");
    let n = 1000;
    let (a, b) = (f32s(&mut rng, n, 4.0), f32s(&mut rng, n, 4.0));
    let (ad, bd) = (device.upload(&a).unwrap(), device.upload(&b).unwrap());
    let cfg = LaunchConfig::for_elements(n, 128);

    let mut y = device.upload(&b).unwrap();
    launch(
        &load(&device, "saxpy"),
        "saxpy",
        cfg,
        &mut [2.5f32.into(), (&ad).into(), (&mut y).into(), (n as i32).into()],
    );
    assert!(y
        .to_vec()
        .unwrap()
        .iter()
        .zip(a.iter().zip(&b))
        .all(|(y, (a, b))| y.to_bits() == 2.5f32.mul_add(*a, *b).to_bits()));

    let mut c = device.zeroed::<f32>(n).unwrap();
    launch(
        &load(&device, "vec_add"),
        "vec_add",
        cfg,
        &mut [(&ad).into(), (&bd).into(), (&mut c).into(), (n as i32).into()],
    );
    assert!(c
        .to_vec()
        .unwrap()
        .iter()
        .zip(a.iter().zip(&b))
        .all(|(c, (a, b))| c.to_bits() == (a + b).to_bits()));

    let mut x = device.upload(&a).unwrap();
    launch(
        &load(&device, "grid_stride"),
        "grid_stride_scale",
        LaunchConfig::linear(3, 64),
        &mut [(&mut x).into(), 1.5f32.into(), (n as u32).into()],
    );
    assert!(x.to_vec().unwrap().iter().zip(&a).all(|(x, a)| x.to_bits() == (a * 1.5).to_bits()));

    let mut y = device.zeroed::<f32>(n).unwrap();
    launch(
        &load(&device, "size_t_index"),
        "copy_big",
        cfg,
        &mut [(&ad).into(), (&mut y).into(), (n as u64).into()],
    );
    assert_eq!(y.to_vec().unwrap(), a);

    let mut r = device.upload(&a).unwrap();
    launch(
        &load(&device, "relu_clamp"),
        "relu_clamp",
        cfg,
        &mut [(&mut r).into(), 2.0f32.into(), (n as i32).into()],
    );
    assert!(r.to_vec().unwrap().iter().zip(&a).all(|(r, a)| r.to_bits() == a.clamp(0.0, 2.0).to_bits()));

    let (xd64, yd64): (Vec<f64>, Vec<f64>) =
        (a.iter().map(|&v| v as f64 * 1.1).collect(), b.iter().map(|&v| v as f64).collect());
    let (xd, mut yd) = (device.upload(&xd64).unwrap(), device.upload(&yd64).unwrap());
    launch(
        &load(&device, "daxpy"),
        "daxpy",
        cfg,
        &mut [(-0.7f64).into(), (&xd).into(), (&mut yd).into(), (n as i32).into()],
    );
    // nvcc contracts `a * x + y` into one fma.
    assert!(yd
        .to_vec()
        .unwrap()
        .iter()
        .zip(xd64.iter().zip(&yd64))
        .all(|(g, (x, y))| g.to_bits() == (-0.7f64).mul_add(*x, *y).to_bits()));

    let (rows, cols) = (7u32, 45u32);
    let m = (rows * cols) as usize;
    let (ma, mb) = (device.upload(&a[..m]).unwrap(), device.upload(&b[..m]).unwrap());
    let mut mc = device.zeroed::<f32>(m).unwrap();
    let cfg2 = LaunchConfig::new((cols.div_ceil(16), rows.div_ceil(4), 1), (16, 4, 1));
    launch(
        &load(&device, "matrix_add"),
        "matrix_add",
        cfg2,
        &mut [(&ma).into(), (&mb).into(), (&mut mc).into(), rows.into(), cols.into()],
    );
    assert!(mc
        .to_vec()
        .unwrap()
        .iter()
        .zip(a.iter().zip(&b))
        .all(|(c, (a, b))| c.to_bits() == (a + b).to_bits()));
}

#[test]
fn module_variables_are_initialised_and_persist_between_launches() {
    // `__constant__ float coeffs[4] = {0.5, -1.25, 2, 0.125}` and `__device__ unsigned
    // counter = 7`, which every thread increments.
    let device = Device::sim();
    let module = load(&device, "const_table");
    let x: Vec<f32> = (0..100).map(|i| i as f32 * 0.25 - 12.0).collect();
    let xd = device.upload(&x).unwrap();
    let mut y = device.zeroed::<f32>(100).unwrap();
    for _ in 0..2 {
        launch(
            &module,
            "poly_eval",
            LaunchConfig::for_elements(100, 64),
            &mut [(&xd).into(), (&mut y).into(), 100i32.into()],
        );
    }
    for (i, (&got, &v)) in y.to_vec().unwrap().iter().zip(&x).enumerate() {
        let want = 0.125f32.mul_add(v, 2.0).mul_add(v, -1.25).mul_add(v, 0.5);
        assert_eq!(got.to_bits(), want.to_bits(), "element {i}");
    }
    // (The counter's persistence is checked in ptx-sim/tests/nvrtc_dialect.rs, which can
    // read it back.)
}

#[test]
fn printf_prints_in_grid_and_thread_order() {
    let device = Device::sim();
    let module = load(&device, "printf_kernel");
    let report = module.launch("hello", LaunchConfig::linear(2, 3), &mut [42i32.into()]).unwrap();
    let want: String =
        (0..2).flat_map(|b| (0..3).map(move |t| format!("thread {t} of block {b}: v = 42\n"))).collect();
    assert_eq!(report.printed, want);

    // Every conversion of C's printf, floats promoted to double as varargs do.
    let module = load(&device, "printf_types");
    let args = &mut [1.5f32.into(), 12345.678f64.into(), (-9_000_000_000i64).into()];
    let report = module.launch("print_types", LaunchConfig::linear(1, 4), args).unwrap();
    assert_eq!(report.printed, "-7|3000000000|-9000000000|1.500000|1.235e+04|str|Z|0xff|  1.5|12345.7\n");
}

#[test]
fn device_functions_are_inlined_at_their_calls() {
    // A `__noinline__` device function: `.func` with a parameter and a result, `call.uni`.
    let device = Device::sim();
    let mut rng = Rng::fresh("nvrtc_device_fn");
    let x = f32s(&mut rng, 500, 10.0);
    let xd = device.upload(&x).unwrap();
    let mut y = device.zeroed::<f32>(500).unwrap();
    launch(
        &load(&device, "device_fn"),
        "call_device",
        LaunchConfig::for_elements(500, 128),
        &mut [(&xd).into(), (&mut y).into(), 500i32.into()],
    );
    for (i, (&got, &v)) in y.to_vec().unwrap().iter().zip(&x).enumerate() {
        assert_eq!(got.to_bits(), v.mul_add(v, 1.0).to_bits(), "element {i}");
    }
}

#[test]
fn funnel_shifts_and_byte_permutes_match_cuda() {
    let device = Device::sim();
    let mut rng = Rng::fresh("nvrtc_shf_prmt");
    let n = 400;
    let x: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    let k: Vec<u32> = (0..n).map(|i| if i % 7 == 0 { 40 + i as u32 } else { rng.next() as u32 }).collect();
    let (xd, kd) = (device.upload(&x).unwrap(), device.upload(&k).unwrap());
    let mut y = device.zeroed::<u32>(3 * n).unwrap();
    launch(
        &load(&device, "rotate_permute"),
        "rotate_permute",
        LaunchConfig::for_elements(n, 128),
        &mut [(&xd).into(), (&kd).into(), (&mut y).into(), (n as i32).into()],
    );
    let y = y.to_vec().unwrap();
    // CUDA's definitions: hi:lo shifted left by k & 31 keeping the high word; right by
    // min(k, 32) keeping the low word; bytes of y:x picked by the low 3 bits of each nibble.
    let wide = |lo: u32, hi: u32| (hi as u64) << 32 | lo as u64;
    for i in 0..n {
        let (v, s) = (x[i], k[i]);
        let left = ((wide(v, v.wrapping_mul(7)) << (s & 31)) >> 32) as u32;
        let right = (wide(v, !v) >> s.min(32)) as u32;
        let bytes = wide(v, v ^ s);
        let perm =
            (0..4).fold(0u32, |d, b| d | (((bytes >> (8 * ((s >> (4 * b)) & 7))) & 0xff) as u32) << (8 * b));
        assert_eq!([y[3 * i], y[3 * i + 1], y[3 * i + 2]], [left, right, perm], "x = {v:#x}, k = {s}");
    }
}

#[test]
fn launch_bounds_limit_the_block() {
    // `__launch_bounds__(256, 2)`: `.maxntid 256, 1, 1` and `.minnctapersm 2`.
    let device = Device::sim();
    let module = load(&device, "launch_bounds");
    let mut x = device.upload(&[2.0f32; 300]).unwrap();
    launch(
        &module,
        "scale_bounded",
        LaunchConfig::for_elements(300, 256),
        &mut [(&mut x).into(), 1.5f32.into(), 300i32.into()],
    );
    assert_eq!(x.to_vec().unwrap(), vec![3.0f32; 300]);
    let err = module
        .launch(
            "scale_bounded",
            LaunchConfig::linear(1, 512),
            &mut [(&mut x).into(), 1.5f32.into(), 300i32.into()],
        )
        .unwrap_err();
    assert!(err.to_string().contains(".maxntid"), "{err}");
}

#[test]
fn every_integer_atomic_matches_rust() {
    let device = Device::sim();
    let mut rng = Rng::fresh("nvrtc_atomics");
    let n = 700;
    let x: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
    let xd = device.upload(&x).unwrap();
    let mut mins = device.upload(&[i32::MAX, i32::MIN, -1, 0]).unwrap();
    let mut bits = device.upload(&[u32::MAX, 0, 0]).unwrap();
    let mut counters = device.upload(&[0u32, 500]).unwrap();
    let mut total = device.upload(&[5u64]).unwrap();
    launch(
        &load(&device, "atomics"),
        "atomics",
        LaunchConfig::for_elements(n, 128),
        &mut [
            (&xd).into(),
            (n as i32).into(),
            (&mut mins).into(),
            (&mut bits).into(),
            (&mut counters).into(),
            (&mut total).into(),
        ],
    );
    let u: Vec<u32> = x.iter().map(|&v| v as u32).collect();
    let want_mins = [
        *x.iter().min().unwrap(),
        *x.iter().max().unwrap(),
        *u.iter().min().unwrap() as i32,
        *u.iter().max().unwrap() as i32,
    ];
    assert_eq!(mins.to_vec().unwrap(), want_mins);
    let want_bits = [
        u.iter().fold(u32::MAX, |a, &v| a & (v | 0x8000_0000)),
        u.iter().fold(0, |a, &v| a | (v & 0xff)),
        u.iter().fold(0, |a, &v| a ^ v),
    ];
    assert_eq!(bits.to_vec().unwrap(), want_bits);
    // inc wraps to 0 after 9 (700 increments: 700 mod 10); dec from 500 wraps to 1000 below
    // 0 (700 decrements: 500 → 0 → 1000 → ... → 801).
    let (mut inc, mut dec) = (0u32, 500u32);
    for _ in 0..n {
        inc = if inc >= 9 { 0 } else { inc + 1 };
        dec = if dec == 0 || dec > 1000 { 1000 } else { dec - 1 };
    }
    assert_eq!(counters.to_vec().unwrap(), [inc, dec]);
    assert_eq!(total.to_vec().unwrap()[0], 5 + x.iter().map(|&v| (v & 0xffff) as u64).sum::<u64>());
}

#[test]
fn integer_and_bit_kernels_match_rust() {
    let device = Device::sim();
    let mut rng = Rng::fresh("nvrtc_integers");
    let n = 777;
    let xs: Vec<u32> = (0..n).map(|i| if i % 50 == 0 { 0 } else { rng.next() as u32 >> (i % 31) }).collect();
    let xd = device.upload(&xs).unwrap();
    let mut yd = device.zeroed::<u32>(n).unwrap();
    let cfg = LaunchConfig::for_elements(n, 128);
    launch(&load(&device, "bits"), "bit_ops", cfg, &mut [(&xd).into(), (&mut yd).into(), (n as i32).into()]);
    let ffs = |v: u32| if v == 0 { 0 } else { v.trailing_zeros() + 1 };
    for (i, (&g, &v)) in yd.to_vec().unwrap().iter().zip(&xs).enumerate() {
        let want = v
            .count_ones()
            .wrapping_add(v.leading_zeros().wrapping_mul(33))
            .wrapping_add(v.reverse_bits() ^ (v >> 3))
            .wrapping_add(ffs(v));
        assert_eq!(g, want, "element {i}: x = {v:#x}");
    }

    let a: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
    let b: Vec<i32> = (0..n).map(|i| if i % 9 == 0 { 0 } else { (rng.next() as i32) >> (i % 28) }).collect();
    let (ad, bd) = (device.upload(&a).unwrap(), device.upload(&b).unwrap());
    let (mut q, mut r) = (device.zeroed::<i32>(n).unwrap(), device.zeroed::<i32>(n).unwrap());
    launch(
        &load(&device, "int_divmod"),
        "div_mod",
        cfg,
        &mut [(&ad).into(), (&bd).into(), (&mut q).into(), (&mut r).into(), (n as i32).into()],
    );
    let (q, r) = (q.to_vec().unwrap(), r.to_vec().unwrap());
    for i in 0..n {
        let (want_q, want_r) =
            if b[i] == 0 { (0, 0) } else { (a[i].wrapping_div(b[i]), a[i].wrapping_rem(b[i])) };
        assert_eq!((q[i], r[i]), (want_q, want_r), "{} / {}", a[i], b[i]);
    }

    let data: Vec<u8> = (0..5000).map(|_| rng.next() as u8).collect();
    // Four bytes per u32 word: the kernel reads bytes, the buffer holds them packed.
    let words: Vec<u32> = data.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let dd = device.upload(&words).unwrap();
    let mut bins = device.zeroed::<u32>(256).unwrap();
    launch(
        &load(&device, "histogram"),
        "histogram",
        LaunchConfig::linear(4, 128),
        &mut [(&dd).into(), (&mut bins).into(), (data.len() as i32).into()],
    );
    let mut want = vec![0u32; 256];
    for &v in &data {
        want[v as usize] += 1;
    }
    assert_eq!(bins.to_vec().unwrap(), want);

    let xs: Vec<i32> = (0..1000).map(|_| (rng.next() % 100) as i32 - 50).collect();
    let xd = device.upload(&xs).unwrap();
    let mut yd = device.zeroed::<i32>(1000).unwrap();
    launch(
        &load(&device, "scan"),
        "block_scan",
        LaunchConfig::for_elements(1000, 256),
        &mut [(&xd).into(), (&mut yd).into(), 1000i32.into()],
    );
    let got = yd.to_vec().unwrap();
    for block in 0..4 {
        let mut acc = 0;
        for i in block * 256..((block + 1) * 256).min(1000) {
            acc += xs[i];
            assert_eq!(got[i], acc, "element {i}");
        }
    }

    let v: Vec<i32> = (0..512).map(|_| rng.next() as i32).collect();
    let vd = device.upload(&v).unwrap();
    let mut rd = device.zeroed::<i32>(512).unwrap();
    let cfg = LaunchConfig::linear(2, 256).with_shared_mem(256 * 4);
    launch(&load(&device, "dyn_shared"), "reverse_block", cfg, &mut [(&vd).into(), (&mut rd).into()]);
    let got = rd.to_vec().unwrap();
    for i in 0..512 {
        assert_eq!(got[i], v[(i / 256) * 256 + 255 - i % 256], "element {i}");
    }
}

#[test]
fn shared_memory_warp_and_atomic_kernels_match_rust() {
    let device = Device::sim();
    let mut rng = Rng::fresh("nvrtc_collectives");
    let n = 1000;
    // Small integers: every partial sum is exact in f32, so any summation order gives the
    // same bits.
    let x: Vec<f32> = (0..n).map(|_| (rng.next() % 64) as f32 - 32.0).collect();
    let xd = device.upload(&x).unwrap();
    let exact: f32 = x.iter().sum();

    let mut partial = device.zeroed::<f32>(4).unwrap();
    launch(
        &load(&device, "block_reduce"),
        "block_sum",
        LaunchConfig::linear(4, 256),
        &mut [(&xd).into(), (&mut partial).into(), (n as i32).into()],
    );
    let p = partial.to_vec().unwrap();
    for (blk, got) in p.iter().enumerate() {
        let want: f32 = x[blk * 256..((blk + 1) * 256).min(n)].iter().sum();
        assert_eq!(*got, want, "block {blk}");
    }

    let mut total = device.zeroed::<f32>(1).unwrap();
    launch(
        &load(&device, "warp_reduce"),
        "warp_sum",
        LaunchConfig::for_elements(n, 128),
        &mut [(&xd).into(), (&mut total).into(), (n as i32).into()],
    );
    assert_eq!(total.to_vec().unwrap()[0], exact);

    let mut count = device.zeroed::<u32>(1).unwrap();
    launch(
        &load(&device, "ballot"),
        "count_positive",
        LaunchConfig::for_elements(n, 128),
        &mut [(&xd).into(), (&mut count).into(), (n as i32).into()],
    );
    assert_eq!(count.to_vec().unwrap()[0], x.iter().filter(|&&v| v > 0.0).count() as u32);

    let y = f32s(&mut rng, n, 100.0);
    let yd = device.upload(&y).unwrap();
    let mut best = device.upload(&[f32::MIN]).unwrap();
    launch(
        &load(&device, "atomic_max"),
        "atomic_max_float",
        LaunchConfig::for_elements(n, 128),
        &mut [(&yd).into(), (&mut best).into(), (n as i32).into()],
    );
    assert_eq!(best.to_vec().unwrap()[0], y.iter().copied().fold(f32::MIN, f32::max));

    let (rows, cols) = (40u32, 70u32);
    let m: Vec<f32> = (0..rows * cols).map(|i| i as f32).collect();
    let md = device.upload(&m).unwrap();
    let mut t = device.zeroed::<f32>(m.len()).unwrap();
    let cfg = LaunchConfig::new((cols.div_ceil(32), rows.div_ceil(32), 1), (32, 32, 1));
    launch(
        &load(&device, "transpose"),
        "transpose",
        cfg,
        &mut [(&md).into(), (&mut t).into(), rows.into(), cols.into()],
    );
    let t = t.to_vec().unwrap();
    for r in 0..rows as usize {
        for c in 0..cols as usize {
            assert_eq!(t[c * rows as usize + r], m[r * cols as usize + c]);
        }
    }
}

#[test]
fn math_kernels_match_float64_within_cuda_bounds() {
    let device = Device::sim();
    let mut rng = Rng::fresh("nvrtc_math");
    let (rows, cols) = (5usize, 300usize);
    let x = f32s(&mut rng, rows * cols, 6.0);
    let xd = device.upload(&x).unwrap();
    let mut y = device.zeroed::<f32>(x.len()).unwrap();
    launch(
        &load(&device, "softmax"),
        "softmax_rows",
        LaunchConfig::linear(rows as u32, 128),
        &mut [(&xd).into(), (&mut y).into(), (cols as i32).into()],
    );
    let y = y.to_vec().unwrap();
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let m = row.iter().fold(f64::MIN, |a, &b| a.max(b as f64));
        let s: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        for (j, &v) in row.iter().enumerate() {
            let want = (v as f64 - m).exp() / s;
            // expf is within 2 ulp, the sum of 300 terms and the division add a few ulp
            // relative: 1e-5 relative is above all of them.
            assert!((y[r * cols + j] as f64 - want).abs() <= 1e-5 * want + 1e-12, "row {r} col {j}");
        }
    }

    let w = f32s(&mut rng, cols, 2.0);
    let wd = device.upload(&w).unwrap();
    let mut out = device.zeroed::<f32>(x.len()).unwrap();
    launch(
        &load(&device, "layer_norm"),
        "rms_norm",
        LaunchConfig::linear(rows as u32, 64),
        &mut [(&xd).into(), (&wd).into(), (&mut out).into(), (cols as i32).into(), 1e-5f32.into()],
    );
    let out = out.to_vec().unwrap();
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let inv = 1.0 / (row.iter().map(|&v| (v as f64).powi(2)).sum::<f64>() / cols as f64 + 1e-5).sqrt();
        for j in 0..cols {
            let want = row[j] as f64 * inv * w[j] as f64;
            // rsqrtf is within 2 ulp and the sum of squares carries ~cols/2 ulp: 1e-4
            // relative to the output scale (|x|·|w|·inv <= 12·inv) covers both.
            assert!((out[r * cols + j] as f64 - want).abs() <= 1e-4 * 12.0 * inv, "row {r} col {j}");
        }
    }

    let n = 2000;
    let v = f32s(&mut rng, n, 5.0);
    let vd = device.upload(&v).unwrap();
    let cfg = LaunchConfig::for_elements(n, 256);
    let mut g = device.zeroed::<f32>(n).unwrap();
    launch(&load(&device, "gelu"), "gelu_tanh", cfg, &mut [(&vd).into(), (&mut g).into(), (n as i32).into()]);
    for (i, (&got, &x)) in g.to_vec().unwrap().iter().zip(&v).enumerate() {
        let x = x as f64;
        let want = 0.5 * x * (1.0 + (0.7978845608 * (x + 0.044715 * x * x * x)).tanh());
        // tanhf within 2 ulp of its f32 argument (itself rounded a few times): 1e-6
        // absolute on values up to 5.
        assert!((got as f64 - want).abs() <= 1e-6 * (1.0 + want.abs()), "element {i}: x = {x}");
    }

    let mut e = device.zeroed::<f32>(n).unwrap();
    launch(
        &load(&device, "exp_log"),
        "exp_log",
        cfg,
        &mut [(&vd).into(), (&mut e).into(), (n as i32).into()],
    );
    for (i, (&got, &x)) in e.to_vec().unwrap().iter().zip(&v).enumerate() {
        let x = x as f64;
        let want = (1.0 + x.exp()).ln() + x.abs().sqrt() + x.abs().powf(1.5);
        // logf/expf/powf within 2 ulp each, sqrtf exact, three additions: 4e-6 relative.
        assert!((got as f64 - want).abs() <= 4e-6 * want.abs().max(1.0), "element {i}: x = {x}");
    }

    let angles = f32s(&mut rng, n, std::f32::consts::PI);
    let ad = device.upload(&angles).unwrap();
    let (mut s, mut c) = (device.zeroed::<f32>(n).unwrap(), device.zeroed::<f32>(n).unwrap());
    launch(
        &load(&device, "trig_fast"),
        "trig_fast",
        cfg,
        &mut [(&ad).into(), (&mut s).into(), (&mut c).into(), (n as i32).into()],
    );
    let (s, c) = (s.to_vec().unwrap(), c.to_vec().unwrap());
    for i in 0..n {
        let a = angles[i] as f64;
        // The PTX ISA's bound for sin.approx/cos.approx on [-π, π]: 2^-20.5 absolute.
        let bound = 2f64.powf(-20.5);
        assert!((s[i] as f64 - a.sin()).abs() <= bound && (c[i] as f64 - a.cos()).abs() <= bound, "x = {a}");
    }

    // CUDA's accurate sinf/cosf, Payne–Hanek reduction in local memory included for large
    // arguments: within the 2 ulp the CUDA programming guide states, over the whole range.
    let mut wide: Vec<f32> =
        f32s(&mut rng, n, 1.0).iter().enumerate().map(|(i, v)| v * 10f32.powi((i % 39) as i32)).collect();
    wide[0] = 0.0;
    wide[1] = -0.0;
    wide[2] = f32::MAX;
    let wd = device.upload(&wide).unwrap();
    let (mut s, mut c) = (device.zeroed::<f32>(n).unwrap(), device.zeroed::<f32>(n).unwrap());
    launch(
        &load(&device, "trig_accurate"),
        "trig_accurate",
        cfg,
        &mut [(&wd).into(), (&mut s).into(), (&mut c).into(), (n as i32).into()],
    );
    let (s, c) = (s.to_vec().unwrap(), c.to_vec().unwrap());
    let ulp = |v: f64| {
        let f = (v as f32).abs();
        (f32::from_bits(f.to_bits() + 1) - f) as f64
    };
    for i in 0..n {
        let x = wide[i] as f64;
        let (ws, wc) = (x.sin(), x.cos());
        assert!((s[i] as f64 - ws).abs() <= 2.0 * ulp(ws), "sinf({x}) = {}, want {ws}", s[i]);
        assert!((c[i] as f64 - wc).abs() <= 2.0 * ulp(wc), "cosf({x}) = {}, want {wc}", c[i]);
    }
    assert_eq!(s[1].to_bits(), (-0.0f32).to_bits(), "sinf(-0) is -0");

    // The common fast RoPE: powf for the frequency, __sincosf of an f32 angle.
    let (heads, head_dim, tokens) = (2i32, 16i32, 3u32);
    let len = (tokens as i32 * heads * head_dim) as usize;
    let q = f32s(&mut rng, len, 1.0);
    let pos = [0u32, 5, 17];
    let (qd, pd) = (device.upload(&q).unwrap(), device.upload(&pos).unwrap());
    let mut o = device.zeroed::<f32>(len).unwrap();
    let cfg = LaunchConfig::new((heads as u32, tokens, 1), (head_dim as u32 / 2, 1, 1));
    launch(
        &load(&device, "rope_fast"),
        "rope_fast",
        cfg,
        &mut [(&qd).into(), (&mut o).into(), (&pd).into(), heads.into(), head_dim.into(), 10_000.0f32.into()],
    );
    let o = o.to_vec().unwrap();
    for (t, &position) in pos.iter().enumerate() {
        for h in 0..heads as usize {
            for p in 0..head_dim as usize / 2 {
                let b = (t * heads as usize + h) * head_dim as usize + 2 * p;
                let angle = position as f64 * 10_000f64.powf(-2.0 * p as f64 / head_dim as f64);
                let (sn, cs) = angle.sin_cos();
                let (x0, x1) = (q[b] as f64, q[b + 1] as f64);
                // Angles below 17 rad: __sincosf's 2^-20.5 on [-π, π] does not cover them;
                // its error grows with the reduction, about 2^-21.4·|x| beyond. 2e-5 covers
                // 17 rad on both outputs.
                assert!((o[b] as f64 - (x0 * cs - x1 * sn)).abs() <= 2e-5, "token {t} pair {p}");
                assert!((o[b + 1] as f64 - (x0 * sn + x1 * cs)).abs() <= 2e-5, "token {t} pair {p}");
            }
        }
    }
}

#[test]
fn half_precision_kernels_round_like_the_half_crate() {
    let device = Device::sim();
    let mut rng = Rng::fresh("nvrtc_halves");
    let n = 600;
    let x = f32s(&mut rng, n, 100.0);
    let cfg = LaunchConfig::for_elements(n, 128);
    for (file, kernel) in [("half_scale", "half_scale"), ("bf16_scale", "bf16_scale")] {
        let bits: Vec<u16> = x
            .iter()
            .map(|&v| {
                if file == "half_scale" {
                    half::f16::from_f32(v).to_bits()
                } else {
                    half::bf16::from_f32(v).to_bits()
                }
            })
            .collect();
        let xd = device.upload(&bits).unwrap();
        let mut yd = device.zeroed::<u16>(n).unwrap();
        launch(
            &load(&device, file),
            kernel,
            cfg,
            &mut [(&xd).into(), (&mut yd).into(), 0.3f32.into(), (n as i32).into()],
        );
        for (i, (&got, &b)) in yd.to_vec().unwrap().iter().zip(&bits).enumerate() {
            let want = if file == "half_scale" {
                half::f16::from_f32(half::f16::from_bits(b).to_f32() * 0.3).to_bits()
            } else {
                half::bf16::from_f32(half::bf16::from_bits(b).to_f32() * 0.3).to_bits()
            };
            assert_eq!(got, want, "{kernel} element {i}");
        }
    }
}
