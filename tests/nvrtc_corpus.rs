//! PTX that nobody here wrote: CUDA C kernels typical of real code (`ptx-sim/tests/corpus/*.cu`)
//! compiled by NVRTC (`scripts/nvrtc-corpus.sh`) in three builds — CUDA 13.5 for sm_80 and
//! for sm_90, CUDA 12.9 for sm_80 — loaded with `Device::load_ptx` and run on the simulator
//! against references computed in Rust; every test runs each build. Every checked-in `.ptx`
//! is either run here or listed as not supported yet, with the construct the simulator
//! names.

use std::cell::Cell;

use ptx_dsl::runtime::{Device, KernelArg, LaunchConfig, PtxModule};
use ptx_tools::rng::Rng;
use ptx_tools::ulp;

/// The corpus's builds: their folders under `ptx-sim/tests/corpus` (the main build, CUDA
/// 13.5 for sm_80, is the folder itself).
const BUILDS: [&str; 3] = ["", "sm_90", "cuda12"];

thread_local! {
    /// The build the running test reads.
    static BUILD: Cell<&'static str> = const { Cell::new("") };
}

/// Runs `test` once on each build of the corpus.
fn each_build(test: impl Fn()) {
    for build in BUILDS {
        eprintln!("corpus build: {}", if build.is_empty() { "CUDA 13.5, sm_80" } else { build });
        BUILD.with(|b| b.set(build));
        test();
    }
}

/// The folder of `build`.
fn build_dir(build: &str) -> String {
    format!("{}/ptx-sim/tests/corpus/{build}", env!("CARGO_MANIFEST_DIR"))
}

fn corpus(name: &str) -> String {
    let path = format!("{}/{name}.ptx", build_dir(BUILD.with(Cell::get)));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn load(device: &Device, name: &str) -> PtxModule {
    device.load_ptx(&corpus(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Runs kernel `name` of corpus file `file`.
fn launch(module: &PtxModule, name: &str, cfg: LaunchConfig, args: &mut [KernelArg<'_>]) {
    unsafe { module.launch(name, cfg, args) }.unwrap_or_else(|e| panic!("{name}: {e}"));
}

/// The files the simulator cannot run yet, and the construct it names for each.
const NOT_YET: [(&str, &str); 0] = [];

/// The stems of the files with extension `ext` in `dir`, sorted.
fn stems(dir: &str, ext: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn every_corpus_file_runs_or_is_listed_with_its_construct() {
    let names = stems(&build_dir(""), "cu");
    assert!(names.len() >= 25, "{} files", names.len());
    // Every build holds the PTX of every CUDA C file, and nothing else.
    for build in BUILDS {
        assert_eq!(stems(&build_dir(build), "ptx"), names, "build `{build}`: run scripts/nvrtc-corpus.sh");
    }
    each_build(|| check_each_file_runs_or_is_listed(&names));
}

fn check_each_file_runs_or_is_listed(names: &[String]) {
    let device = Device::sim();
    for name in names {
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
const RUN: [&str; 48] = [
    "atomic_max",
    "atomics",
    "atomics16",
    "ballot",
    "bf16_scale",
    "bits",
    "block_reduce",
    "block_votes",
    "carry_chain",
    "clocks",
    "const_table",
    "conversions",
    "daxpy",
    "debug_info",
    "device_fn",
    "dyn_shared",
    "exp_log",
    "f64_math",
    "fast_math",
    "gelu",
    "grid_stride",
    "half2_arith",
    "half_math",
    "half_scale",
    "histogram",
    "int_divmod",
    "intrinsics2",
    "launch_bounds",
    "layer_norm",
    "matrix_add",
    "printf_kernel",
    "printf_types",
    "recursion",
    "relu_clamp",
    "rope_fast",
    "rotate_permute",
    "saxpy",
    "scan",
    "size_t_index",
    "softmax",
    "templates",
    "transpose",
    "trig_accurate",
    "trig_fast",
    "vec_add",
    "vector_types",
    "warp_match",
    "warp_reduce",
];

fn f32s(rng: &mut Rng, n: usize, scale: f32) -> Vec<f32> {
    (0..n).map(|_| rng.signed_f32() * scale).collect()
}

#[test]
fn elementwise_kernels_match_rust_bit_for_bit() {
    each_build(|| {
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
    });
}

#[test]
fn module_variables_are_initialised_and_persist_between_launches() {
    each_build(|| {
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
    });
}

#[test]
fn printf_prints_in_grid_and_thread_order() {
    each_build(|| {
        let device = Device::sim();
        let module = load(&device, "printf_kernel");
        let report =
            unsafe { module.launch("hello", LaunchConfig::linear(2, 3), &mut [42i32.into()]) }.unwrap();
        let want: String =
            (0..2).flat_map(|b| (0..3).map(move |t| format!("thread {t} of block {b}: v = 42\n"))).collect();
        assert_eq!(report.printed, want);

        // Every conversion of C's printf, floats promoted to double as varargs do.
        let module = load(&device, "printf_types");
        let args = &mut [1.5f32.into(), 12345.678f64.into(), (-9_000_000_000i64).into()];
        let report = unsafe { module.launch("print_types", LaunchConfig::linear(1, 4), args) }.unwrap();
        assert_eq!(report.printed, "-7|3000000000|-9000000000|1.500000|1.235e+04|str|Z|0xff|  1.5|12345.7\n");
    });
}

#[test]
fn device_functions_are_inlined_at_their_calls() {
    each_build(|| {
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
    });
}

#[test]
fn funnel_shifts_and_byte_permutes_match_cuda() {
    each_build(|| {
        let device = Device::sim();
        let mut rng = Rng::fresh("nvrtc_shf_prmt");
        let n = 400;
        let x: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
        let k: Vec<u32> =
            (0..n).map(|i| if i % 7 == 0 { 40 + i as u32 } else { rng.next() as u32 }).collect();
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
            let perm = (0..4)
                .fold(0u32, |d, b| d | (((bytes >> (8 * ((s >> (4 * b)) & 7))) & 0xff) as u32) << (8 * b));
            assert_eq!([y[3 * i], y[3 * i + 1], y[3 * i + 2]], [left, right, perm], "x = {v:#x}, k = {s}");
        }
    });
}

#[test]
fn launch_bounds_limit_the_block() {
    each_build(|| {
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
        let err = unsafe {
            module.launch(
                "scale_bounded",
                LaunchConfig::linear(1, 512),
                &mut [(&mut x).into(), 1.5f32.into(), 300i32.into()],
            )
        }
        .unwrap_err();
        assert!(err.to_string().contains(".maxntid"), "{err}");
    });
}

#[test]
fn every_integer_atomic_matches_rust() {
    each_build(|| {
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
    });
}

#[test]
fn integer_and_bit_kernels_match_rust() {
    each_build(|| {
        let device = Device::sim();
        let mut rng = Rng::fresh("nvrtc_integers");
        let n = 777;
        let xs: Vec<u32> =
            (0..n).map(|i| if i % 50 == 0 { 0 } else { rng.next() as u32 >> (i % 31) }).collect();
        let xd = device.upload(&xs).unwrap();
        let mut yd = device.zeroed::<u32>(n).unwrap();
        let cfg = LaunchConfig::for_elements(n, 128);
        launch(
            &load(&device, "bits"),
            "bit_ops",
            cfg,
            &mut [(&xd).into(), (&mut yd).into(), (n as i32).into()],
        );
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
        let b: Vec<i32> =
            (0..n).map(|i| if i % 9 == 0 { 0 } else { (rng.next() as i32) >> (i % 28) }).collect();
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
    });
}

#[test]
fn shared_memory_warp_and_atomic_kernels_match_rust() {
    each_build(|| {
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
    });
}

#[test]
fn math_kernels_match_float64_within_cuda_bounds() {
    each_build(|| {
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
            let inv =
                1.0 / (row.iter().map(|&v| (v as f64).powi(2)).sum::<f64>() / cols as f64 + 1e-5).sqrt();
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
        launch(
            &load(&device, "gelu"),
            "gelu_tanh",
            cfg,
            &mut [(&vd).into(), (&mut g).into(), (n as i32).into()],
        );
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
            assert!(
                (s[i] as f64 - a.sin()).abs() <= bound && (c[i] as f64 - a.cos()).abs() <= bound,
                "x = {a}"
            );
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
        for i in 0..n {
            let x = wide[i] as f64;
            let (ws, wc) = (x.sin(), x.cos());
            assert!(ulp::error_f32(s[i], ws) <= 2.0, "sinf({x}) = {}, want {ws}", s[i]);
            assert!(ulp::error_f32(c[i], wc) <= 2.0, "cosf({x}) = {}, want {wc}", c[i]);
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
            &mut [
                (&qd).into(),
                (&mut o).into(),
                (&pd).into(),
                heads.into(),
                head_dim.into(),
                10_000.0f32.into(),
            ],
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
    });
}

#[test]
fn half_precision_kernels_round_like_the_half_crate() {
    each_build(|| {
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
    });
}

/// One 16-bit float format as the `half` crate has it, for the references below.
trait Half16: Copy {
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    fn bits(self) -> u16;
    fn from_bits(b: u16) -> Self;
}

macro_rules! half16 {
    ($t:ty) => {
        impl Half16 for $t {
            fn from_f64(x: f64) -> Self {
                <$t>::from_f64(x)
            }
            fn to_f64(self) -> f64 {
                <$t>::to_f64(self)
            }
            fn bits(self) -> u16 {
                self.to_bits()
            }
            fn from_bits(b: u16) -> Self {
                <$t>::from_bits(b)
            }
        }
    };
}
half16!(half::f16);
half16!(half::bf16);

/// `a * b + c` rounded once to the 16-bit format `H`, written independently of the
/// simulator (and of the `half` crate's `from_f64`, which rounds from the top 32 bits of
/// the f64 alone). The product of two 16-bit values is exact in f64; the sum `s` is not
/// always, so its rounding error `e` (TwoSum, exact) decides when `s` lands exactly on the
/// midpoint `m` of the two values of `H` around it (every such midpoint is an f64, so the
/// exact sum lies on the same side of `m` as `s` whenever `s != m`).
fn fma16<H: Half16>(a: H, b: H, c: H) -> u16 {
    let (p, c) = (a.to_f64() * b.to_f64(), c.to_f64());
    let s = p + c;
    let bb = s - p;
    let e = (p - (s - bb)) + (c - bb);
    if s == 0.0 {
        return H::from_f64(s).bits();
    }
    // Round |s| (with the error's sign to match), then put the sign back.
    let (mag, e, sign) = (s.abs(), e * s.signum(), if s < 0.0 { 0x8000 } else { 0 });
    // `lo <= |s| < hi`: neighbours among the non-negative values of `H` (bits in order).
    let value = |bits: u16| H::from_bits(bits).to_f64();
    let mut lo = H::from_f64(mag).bits() & 0x7fff;
    while value(lo) > mag {
        lo -= 1;
    }
    while value(lo + 1) <= mag {
        lo += 1;
    }
    if value(lo) == mag {
        return lo | sign;
    }
    // The midpoint; past the largest finite value, half an ulp above it (then infinity).
    let hi = value(lo + 1);
    let m =
        if hi.is_infinite() { value(lo) + (value(lo) - value(lo - 1)) / 2.0 } else { (value(lo) + hi) / 2.0 };
    let up = if mag != m {
        mag > m
    } else if e != 0.0 {
        e > 0.0
    } else {
        lo & 1 == 1
    };
    (if up { lo + 1 } else { lo }) | sign
}

/// PTX's `min`/`max` of two 16-bit values: a NaN gives the other, `-0 < +0`.
fn min_max16<H: Half16>(max: bool, a: H, b: H) -> u16 {
    let (x, y) = (a.to_f64(), b.to_f64());
    match (x.is_nan(), y.is_nan()) {
        (true, true) => 0x7fff,
        (true, false) => b.bits(),
        (false, true) => a.bits(),
        _ => {
            let a_first = if x == y { x.is_sign_negative() } else { x < y };
            if a_first != max {
                a.bits()
            } else {
                b.bits()
            }
        }
    }
}

#[test]
fn packed_half_arithmetic_rounds_once_per_half() {
    each_build(|| {
        let device = Device::sim();
        let mut rng = Rng::fresh("nvrtc_half2");
        let n = 500;
        // Values up to ±300 (products overflow f16 now and then), with ±0, ±inf, a NaN and
        // subnormals among the first elements.
        let special = [0x0000u16, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x83ff, 0x3c00];
        let mut draw = |i: usize, k: usize| -> u16 {
            if i < 4 && k < special.len() {
                special[(i * 3 + k) % special.len()]
            } else {
                half::f16::from_f32(rng.signed_f32() * 300.0).to_bits()
            }
        };
        let mut halves = [vec![0u32; n], vec![0u32; n], vec![0u32; n]];
        for (k, v) in halves.iter_mut().enumerate() {
            for (i, x) in v.iter_mut().enumerate() {
                *x = draw(i, 2 * k) as u32 | (draw(i, 2 * k + 1) as u32) << 16;
            }
        }
        let [a, b, c] = &halves;
        let (ad, bd, cd) = (device.upload(a).unwrap(), device.upload(b).unwrap(), device.upload(c).unwrap());
        let module = load(&device, "half2_arith");
        let mut out = device.zeroed::<u32>(4 * n).unwrap();
        launch(
            &module,
            "half2_arith",
            LaunchConfig::for_elements(n, 128),
            &mut [(&ad).into(), (&bd).into(), (&cd).into(), (&mut out).into(), (n as i32).into()],
        );
        let out = out.to_vec().unwrap();
        type F = half::f16;
        // Add, sub and mul: f32 holds the exact result to 24 bits ≥ 2·11 + 2, so rounding it
        // to f16 is rounding the exact value.
        let op32 = |x: F, y: F, f: fn(f32, f32) -> f32| F::from_f32(f(x.to_f32(), y.to_f32())).to_bits();
        for i in 0..n {
            for h in 0..2 {
                let lane = |v: u32| F::from_bits((v >> (16 * h)) as u16);
                let (x, y, z) = (lane(a[i]), lane(b[i]), lane(c[i]));
                let got = |k: usize| (out[4 * i + k] >> (16 * h)) as u16;
                let canon = |v: u16| if F::from_bits(v).is_nan() { 0x7fff } else { v };
                let product = F::from_bits(op32(x, y, |p, q| p * q));
                let want = [
                    canon(fma16(x, y, z)),
                    canon(op32(x, y, |p, q| p + q)),
                    canon(op32(product, z, |p, q| p - q)),
                    min_max16(true, F::from_bits(min_max16(false, x, y)), F::from_bits(z.to_bits() ^ 0x8000)),
                ];
                for (k, w) in want.iter().enumerate() {
                    assert_eq!(got(k), *w, "element {i} half {h} result {k}: {x} {y} {z}");
                }
            }
        }

        let mut out = device.zeroed::<u32>(2 * n).unwrap();
        type B = half::bf16;
        let bf: Vec<u32> = (0..3 * n)
            .map(|_| {
                let mut one = || B::from_f32(rng.signed_f32() * 1e4).to_bits() as u32;
                one() | one() << 16
            })
            .collect();
        let (ad, bd, cd) = (
            device.upload(&bf[..n]).unwrap(),
            device.upload(&bf[n..2 * n]).unwrap(),
            device.upload(&bf[2 * n..]).unwrap(),
        );
        launch(
            &module,
            "bf162_arith",
            LaunchConfig::for_elements(n, 128),
            &mut [(&ad).into(), (&bd).into(), (&cd).into(), (&mut out).into(), (n as i32).into()],
        );
        let out = out.to_vec().unwrap();
        for i in 0..n {
            for h in 0..2 {
                let lane = |v: u32| B::from_bits((v >> (16 * h)) as u16);
                let (x, y, z) = (lane(bf[i]), lane(bf[n + i]), lane(bf[2 * n + i]));
                let got = |k: usize| (out[2 * i + k] >> (16 * h)) as u16;
                assert_eq!(got(0), fma16(x, y, z), "bf16 fma, element {i} half {h}: {x} {y} {z}");
                let abs_z = B::from_bits(z.to_bits() & 0x7fff);
                assert_eq!(got(1), min_max16(true, x, abs_z), "bf16 max, element {i} half {h}");
            }
        }
    });
}

#[test]
fn warp_match_reduce_and_activemask_match_rust() {
    each_build(|| {
        let device = Device::sim();
        let mut rng = Rng::fresh("nvrtc_warp_match");
        // Warp 0: keys sharing `key >> 4` (match.all holds); warp 1: keys from 0..40 (groups of
        // equal keys for match.any, match.all fails).
        let keys: Vec<u32> = (0..64)
            .map(|t| if t < 32 { 0x30 | (rng.next() % 16) as u32 } else { (rng.next() % 40) as u32 })
            .collect();
        let kd = device.upload(&keys).unwrap();
        let mut out = device.zeroed::<u32>(6 * 64).unwrap();
        launch(
            &load(&device, "warp_match"),
            "warp_match",
            LaunchConfig::linear(1, 64),
            &mut [(&kd).into(), (&mut out).into()],
        );
        let out = out.to_vec().unwrap();
        for t in 0..64 {
            let warp = &keys[t / 32 * 32..t / 32 * 32 + 32];
            let key = keys[t];
            let mask_of =
                |f: &dyn Fn(u32) -> bool| (0..32).filter(|&u| f(warp[u])).fold(0u32, |m, u| m | 1 << u);
            // `activemask` inside `if (key & 1)`: the lanes that took the branch together.
            let active = if key & 1 == 1 { mask_of(&|k| k & 1 == 1) } else { 0 };
            let all_equal = warp.iter().all(|&k| k >> 4 == key >> 4);
            let want = [
                active,
                if all_equal { u32::MAX } else { 0 },
                all_equal as u32,
                mask_of(&|k| k == key),
                warp.iter().fold(0u32, |s, &k| s.wrapping_add(k)),
                *warp.iter().max().unwrap(),
            ];
            assert_eq!(out[6 * t..6 * t + 6], want, "thread {t}, keys {warp:?}");
        }
        assert!(out[2] == 1 && out[6 * 32 + 2] == 0, "warp 0 matches all, warp 1 does not");
    });
}

#[test]
fn carry_chains_do_multiword_arithmetic() {
    each_build(|| {
        let device = Device::sim();
        let mut rng = Rng::fresh("nvrtc_carry");
        let n = 300;
        // Random words, with the carries' edges first: all ones plus one, zero minus one.
        let mut words = |i: usize, k: u64| match (i, k) {
            (0, 0) | (0, 1) => u64::MAX,
            (0, 2) => 1,
            (1, 0) | (1, 1) => 0,
            (1, 2) => 1,
            _ => rng.next(),
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in 0..n {
            a.extend([words(i, 0), words(i, 1)]);
            b.extend([words(i, 2), words(i, 3)]);
        }
        let (ad, bd) = (device.upload(&a).unwrap(), device.upload(&b).unwrap());
        let mut sums = device.zeroed::<u64>(4 * n).unwrap();
        let mut products = device.zeroed::<u32>(4 * n).unwrap();
        launch(
            &load(&device, "carry_chain"),
            "carry_chain",
            LaunchConfig::for_elements(n, 64),
            &mut [(&ad).into(), (&bd).into(), (&mut sums).into(), (&mut products).into(), (n as i32).into()],
        );
        let (sums, products) = (sums.to_vec().unwrap(), products.to_vec().unwrap());
        for i in 0..n {
            let x = a[2 * i] as u128 | (a[2 * i + 1] as u128) << 64;
            let y = b[2 * i] as u128 | (b[2 * i + 1] as u128) << 64;
            let (s, d) = (x.wrapping_add(y), x.wrapping_sub(y));
            assert_eq!(
                sums[4 * i..4 * i + 4],
                [s as u64, (s >> 64) as u64, d as u64, (d >> 64) as u64],
                "{x:#x} ± {y:#x}"
            );
            let p = a[2 * i] as u128 * b[2 * i] as u128;
            let want: Vec<u32> = (0..4).map(|k| (p >> (32 * k)) as u32).collect();
            assert_eq!(products[4 * i..4 * i + 4], want[..], "{:#x} · {:#x}", a[2 * i], b[2 * i]);
        }
    });
}

/// A subnormal f32 as a zero of its sign (what `.ftz` does to inputs and results).
fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

#[test]
fn fast_math_flushes_subnormals_and_stays_within_cuda_bounds() {
    each_build(|| {
        let device = Device::sim();
        let mut rng = Rng::fresh("nvrtc_fast_math");
        let n = 400;
        // |a| ≤ 3 and 0.5 ≤ |b| ≤ 3 (the ranges CUDA's fast-math bounds are stated for), and
        // subnormals in the first elements.
        let mut x: Vec<f32> = (0..n).map(|_| rng.signed_f32() * 3.0).collect();
        let mut y: Vec<f32> =
            (0..n).map(|_| (0.5 + rng.unit() as f32 * 2.5).copysign(rng.signed_f32())).collect();
        x[0] = 1e-40;
        y[0] = 1.0;
        x[1] = -3e-39;
        y[1] = 2.0;
        let (xd, yd) = (device.upload(&x).unwrap(), device.upload(&y).unwrap());
        let mut out = device.zeroed::<f32>(6 * n).unwrap();
        launch(
            &load(&device, "fast_math"),
            "fast_math",
            LaunchConfig::for_elements(n, 128),
            &mut [(&xd).into(), (&yd).into(), (&mut out).into(), (n as i32).into()],
        );
        let out = out.to_vec().unwrap();
        for i in 0..n {
            let (a, b) = (ftz(x[i]), ftz(y[i]));
            let (a64, b64) = (a as f64, b as f64);
            let got = &out[6 * i..6 * i + 6];
            // Exact under fast math too: the contracted fma and min - max.
            assert_eq!(got[0].to_bits(), ftz(a.mul_add(b, 1.0)).to_bits(), "a*b+1 at {i}: {a} {b}");
            assert_eq!(got[5].to_bits(), ftz(a.min(b) - a.max(b)).to_bits(), "min-max at {i}");
            // div.approx.ftz: within 2 ulp for these |b| (CUDA's bound for __fdividef).
            let q = a64 / b64;
            let ulp = |v: f64| (v.abs().max(f32::MIN_POSITIVE as f64) as f32).to_bits() as f64;
            let ulps = |g: f32, w: f64| ((g as f64).abs() as f32).to_bits() as f64 - ulp(w);
            if q != 0.0 {
                assert!(ulps(got[1], q).abs() <= 2.0, "a/b at {i}: {} vs {q}", got[1]);
            } else {
                assert_eq!(
                    got[1].to_bits(),
                    (0.0f32).copysign(a * b.signum()).to_bits(),
                    "flushed a/b at {i}"
                );
            }
            // __expf: 2 + ⌊1.16·|a|⌋ ulp (≤ 5 here); __logf on [1, 4]: 2^-21.41 absolute;
            // their sum rounds once more: the bound below adds them up.
            let e = a64.exp() + (b64.abs() + 1.0).ln();
            let bound = (2.0 + (1.16 * a64.abs()).floor() + 1.0) * f32::EPSILON as f64 * a64.exp()
                + 2f64.powf(-21.41);
            assert!((got[2] as f64 - e).abs() <= bound, "exp+log at {i}: {} vs {e}", got[2]);
            // __sinf, __cosf on [-π, π]: 2^-21.41 absolute each; the product of two values ≤ 1.
            let sc = a64.sin() * b64.cos();
            assert!(
                (got[3] as f64 - sc).abs() <= 2.0 * 2f64.powf(-21.41) + f32::EPSILON as f64,
                "sin·cos at {i}"
            );
            // sqrt.approx / rsqrt.approx: 2^-22.9 relative, plus the rounding of `|b| + 1`.
            let r = if a > b { a64.abs().sqrt() } else { 1.0 / (b64.abs() + 1.0).sqrt() };
            assert!(
                (got[4] as f64 - r).abs() <= 3.0 * f32::EPSILON as f64 * r,
                "sqrt at {i}: {} vs {r}",
                got[4]
            );
        }
        // The subnormal numerators were flushed: 0 / b.
        assert_eq!(out[1].to_bits(), 0.0f32.to_bits());
        assert_eq!(out[7].to_bits(), (-0.0f32).to_bits());
    });
}

#[test]
fn clocks_timers_and_placement_registers_are_consistent() {
    each_build(|| {
        let device = Device::sim();
        let threads = 64usize;
        let mut t = device.zeroed::<u64>(3 * threads).unwrap();
        let mut ids = device.zeroed::<u32>(6 * threads).unwrap();
        launch(
            &load(&device, "clocks"),
            "clocks",
            LaunchConfig::linear(1, threads as u32),
            &mut [(&mut t).into(), (&mut ids).into()],
        );
        let (t, ids) = (t.to_vec().unwrap(), ids.to_vec().unwrap());
        for tid in 0..threads {
            // The clock only moves forward (the compiler may move the loop past the second read).
            assert!(t[3 * tid] > 0 && t[3 * tid] < 1 << 20, "clock64 delta {} at {tid}", t[3 * tid]);
            // The global timer never goes back (and moves less than a minute in a test).
            assert!(t[3 * tid + 1] < 60_000_000_000, "globaltimer delta {} at {tid}", t[3 * tid + 1]);
            assert_eq!(t[3 * tid + 2], 1, "clock() is running at {tid}");
            let n = tid as u32 & 3;
            let lane = tid as u32 % 32;
            // prmt's modes on the bytes 0..7 of b:a, from the PTX ISA's tables.
            let f4e = ((n + 3) % 8) << 24 | ((n + 2) % 8) << 16 | ((n + 1) % 8) << 8 | n;
            let ecl = n.max(3) << 24 | n.max(2) << 16 | n.max(1) << 8 | n;
            let got = &ids[6 * tid..6 * tid + 6];
            assert_eq!(got[0], tid as u32 / 32, "warpid at {tid}");
            assert_eq!(got[1], 1, "smid < nsmid at {tid}");
            assert!(got[2] >= 1);
            assert_eq!(got[3], (1u32 << lane) - 1, "lanemask_lt at {tid}");
            assert_eq!(got[4], f4e, "prmt.f4e at {tid}");
            assert_eq!(got[5], ecl, "prmt.ecl at {tid}");
        }
    });
}

#[test]
fn recursive_device_functions_run_to_the_recursion_limit_and_trap_beyond() {
    each_build(|| {
        let device = Device::sim();
        let mut rng = Rng::fresh("nvrtc_recursion");
        let n = 200;
        // 0xdead is the value the kernel traps on (the launch below must not): a random one
        // is moved off it.
        let x: Vec<u32> = (0..n)
            .map(|i| if i == 0 { 4_000_000_000 } else { rng.next() as u32 >> (i % 32) })
            .map(|v| if v == 0xdead { v ^ 1 } else { v })
            .collect();
        let xd = device.upload(&x).unwrap();
        let module = load(&device, "recursion");
        let mut out = device.zeroed::<u32>(3 * n).unwrap();
        launch(
            &module,
            "recursion",
            LaunchConfig::for_elements(n, 64),
            &mut [(&xd).into(), (&mut out).into(), (n as i32).into()],
        );
        let out = out.to_vec().unwrap();
        fn fib(n: u32) -> u32 {
            if n < 2 {
                n
            } else {
                fib(n - 1) + fib(n - 2)
            }
        }
        let chain = |n: u32| (1..=n).fold(1u32, |c, k| c.wrapping_mul(31) ^ k);
        for (i, &v) in x.iter().enumerate() {
            let digits: u32 = v.to_string().bytes().map(|b| (b - b'0') as u32).sum();
            assert_eq!(out[3 * i..3 * i + 3], [digits, fib(v % 12), chain(v % 40)], "x = {v}");
        }
        // Linear recursion runs 64 levels deep; the 65th call traps, naming the function.
        let mut deep = device.zeroed::<u32>(1).unwrap();
        launch(&module, "deep", LaunchConfig::linear(1, 1), &mut [63u32.into(), (&mut deep).into()]);
        assert_eq!(deep.to_vec().unwrap(), [chain(63)]);
        let err = unsafe {
            module.launch("deep", LaunchConfig::linear(1, 1), &mut [200u32.into(), (&mut deep).into()])
        }
        .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("kernel `deep` trapped") && text.contains("recursion deeper than 64 levels"),
            "{text}"
        );
        // `__trap()` stops the launch with the thread that executed it.
        let mut bad = x.clone();
        bad[70] = 0xdead;
        let bd = device.upload(&bad).unwrap();
        let mut out = device.zeroed::<u32>(3 * n).unwrap();
        let err = unsafe {
            module.launch(
                "recursion",
                LaunchConfig::for_elements(n, 64),
                &mut [(&bd).into(), (&mut out).into(), (n as i32).into()],
            )
        }
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("kernel `recursion` trapped: block (1, 0, 0) thread (6, 0, 0) executed `trap`"),
            "{err}"
        );
    });
}

#[test]
fn device_debug_information_is_read_and_names_the_source_line() {
    each_build(|| {
        // Compiled with -G: `.file` after the kernel, `.section .debug_*` blocks, `.target
        // sm_80, debug`, unoptimised code (no fma contraction).
        let device = Device::sim();
        let mut rng = Rng::fresh("nvrtc_debug_info");
        let n = 100;
        let x = f32s(&mut rng, n, 10.0);
        let xd = device.upload(&x).unwrap();
        let module = load(&device, "debug_info");
        let mut y = device.zeroed::<f32>(n).unwrap();
        let cfg = LaunchConfig::for_elements(n, 32);
        launch(&module, "debug_info", cfg, &mut [(&xd).into(), (&mut y).into(), (n as i32).into()]);
        let want: Vec<f32> = x.iter().map(|v| v * v + 1.0).collect();
        assert_eq!(y.to_vec().unwrap(), want);
        // A fault names the CUDA C line of the store.
        let mut short = device.zeroed::<f32>(n - 1).unwrap();
        let err = unsafe {
            module.launch("debug_info", cfg, &mut [(&xd).into(), (&mut short).into(), (n as i32).into()])
        }
        .unwrap_err()
        .to_string();
        assert!(err.contains("debug_info.cu:8:9"), "{err}");
    });
}

/// `x` rounded to f32 in the direction `up` (toward +inf) or down (toward -inf), for an `x`
/// whose f64 value is the exact result.
fn f32_directed(x: f64, up: bool) -> f32 {
    let r = x as f32;
    // The neighbour of finite `r` toward +inf (`toward_up`) or -inf (the MSRV predates
    // `f32::next_up`).
    let step = |r: f32, toward_up: bool| {
        if r == 0.0 {
            f32::from_bits(1).copysign(if toward_up { 1.0 } else { -1.0 })
        } else if (r > 0.0) == toward_up {
            f32::from_bits(r.to_bits() + 1)
        } else {
            f32::from_bits(r.to_bits() - 1)
        }
    };
    match (r as f64).partial_cmp(&x) {
        Some(std::cmp::Ordering::Less) if up => step(r, true),
        Some(std::cmp::Ordering::Greater) if !up => step(r, false),
        _ => r,
    }
}

#[test]
fn half_intrinsics_match_rust_within_their_bounds() {
    each_build(|| {
        let device = Device::sim();
        let mut rng = Rng::fresh("nvrtc_half_math");
        let n = 300;
        type F = half::f16;
        let x: Vec<u16> = (0..n).map(|_| F::from_f32(rng.signed_f32() * 6.0).to_bits()).collect();
        let p: Vec<u32> = (0..n)
            .map(|_| {
                let mut h = || F::from_f32(rng.signed_f32() * 4.0).to_bits() as u32;
                h() | h() << 16
            })
            .collect();
        let (xd, pd) = (device.upload(&x).unwrap(), device.upload(&p).unwrap());
        let (mut y, mut q) = (device.zeroed::<u16>(5 * n).unwrap(), device.zeroed::<u32>(2 * n).unwrap());
        launch(
            &load(&device, "half_math"),
            "half_math",
            LaunchConfig::for_elements(n, 64),
            &mut [(&xd).into(), (&pd).into(), (&mut y).into(), (&mut q).into(), (n as i32).into()],
        );
        let (y, q) = (y.to_vec().unwrap(), q.to_vec().unwrap());
        let f = |b: u16| F::from_bits(b).to_f32();
        // The fast half functions: within 2 ulp of f16 (relative 2^-9) of the exact value.
        let close = |got: u16, want: f64, what: &str| {
            let g = f(got) as f64;
            assert!((g - want).abs() <= want.abs() * 2f64.powi(-9) + 2f64.powi(-24), "{what}: {g} vs {want}");
        };
        for i in 0..n {
            let a = f(x[i]);
            let square = F::from_f32(a * a).to_f32();
            assert_eq!(y[5 * i], F::from_f32(square + a).to_bits(), "a*a + a at {a}");
            close(y[5 * i + 1], (a as f64).exp2(), "hexp2");
            assert_eq!(y[5 * i + 2], x[i] & 0x7fff, "hmax_nan(a, |a|) at {a}");
            close(y[5 * i + 3], (a.abs() as f64).sqrt(), "hsqrt");
            // Round toward zero: the nearest f16, or its neighbour toward zero past it.
            let triple = a * 3.0;
            let near = F::from_f32(triple);
            let rz = if near.to_f32().abs() > triple.abs() { near.to_bits() - 1 } else { near.to_bits() };
            assert_eq!(y[5 * i + 4], rz, "float2half_rz({triple})");
            for h in 0..2 {
                let ph = F::from_bits((p[i] >> (16 * h)) as u16);
                let fma = fma16(ph, ph, ph);
                let relu = if F::from_bits(fma).to_f32() < 0.0 { 0 } else { fma };
                assert_eq!((q[2 * i] >> (16 * h)) as u16, relu, "fma relu of {ph}");
                close((q[2 * i + 1] >> (16 * h)) as u16, (ph.to_f32() as f64).exp(), "h2exp");
            }
        }
    });
}

#[test]
fn atomics_on_16_bit_floats_and_doubles_add_up() {
    each_build(|| {
        let device = Device::sim();
        let mut h = device.upload(&[0u16]).unwrap();
        let mut h2 = device.upload(&[0u32]).unwrap();
        let mut b = device.upload(&[0u16]).unwrap();
        let mut d = device.upload(&[0.0f64]).unwrap();
        let mut u = device.upload(&[u64::MAX]).unwrap();
        launch(
            &load(&device, "atomics16"),
            "atomics16",
            LaunchConfig::linear(2, 32),
            &mut [(&mut h).into(), (&mut h2).into(), (&mut b).into(), (&mut d).into(), (&mut u).into()],
        );
        // 64 threads: every partial sum is exact in each format, so any order gives these.
        let f16 = |v: f32| half::f16::from_f32(v).to_bits();
        assert_eq!(h.to_vec().unwrap(), [f16(64.0)]);
        assert_eq!(h2.to_vec().unwrap(), [f16(64.0) as u32 | (f16(128.0) as u32) << 16]);
        assert_eq!(b.to_vec().unwrap(), [half::bf16::from_f32(32.0).to_bits()]);
        assert_eq!(d.to_vec().unwrap(), [16.0]);
        assert_eq!(u.to_vec().unwrap(), [1000]);
    });
}

#[test]
fn block_votes_and_segmented_shuffles_match_rust() {
    each_build(|| {
        let device = Device::sim();
        let mut rng = Rng::fresh("nvrtc_block_votes");
        for case in 0..3 {
            // Case 1 has a negative value (`and` fails), case 2 no 5 (`or` fails).
            let x: Vec<i32> = (0..64)
                .map(|t| match (case, t) {
                    (1, 40) => -3,
                    _ => {
                        let v = (rng.next() % 20) as i32;
                        if case == 2 && v == 5 {
                            6
                        } else {
                            v
                        }
                    }
                })
                .collect();
            let xd = device.upload(&x).unwrap();
            let mut out = device.zeroed::<i32>(5 * 64).unwrap();
            launch(
                &load(&device, "block_votes"),
                "block_votes",
                LaunchConfig::linear(1, 64),
                &mut [(&xd).into(), (&mut out).into()],
            );
            let out = out.to_vec().unwrap();
            let count = x.iter().filter(|&&v| v > 10).count() as i32;
            let all = x.iter().all(|&v| v >= 0) as i32;
            let any = x.contains(&5) as i32;
            for t in 0..64 {
                let warp = &x[t / 32 * 32..t / 32 * 32 + 32];
                let odd = (0..32).filter(|&l| warp[l] & 1 != 0).fold(0u32, |m, l| m | 1 << l) as i32;
                let first = x[t / 16 * 16];
                assert_eq!(out[5 * t..5 * t + 5], [count, all, any, first, odd], "case {case}, thread {t}");
            }
        }
    });
}

#[test]
fn vector_types_move_their_fields() {
    each_build(|| {
        let device = Device::sim();
        let mut rng = Rng::fresh("nvrtc_vector_types");
        let n = 100;
        let x: Vec<f32> = f32s(&mut rng, 4 * n, 10.0);
        let a: Vec<f64> = (0..2 * n).map(|_| rng.unit() * 100.0 - 50.0).collect();
        let s: Vec<i16> = (0..4 * n).map(|_| rng.next() as i16).collect();
        let c: Vec<i8> = (0..4 * n).map(|_| rng.next() as i8).collect();
        let (xd, ad, sd, cd) = (
            device.upload(&x).unwrap(),
            device.upload(&a).unwrap(),
            device.upload(&s).unwrap(),
            device.upload(&c).unwrap(),
        );
        let (mut y, mut b) = (device.zeroed::<f32>(4 * n).unwrap(), device.zeroed::<f64>(2 * n).unwrap());
        let (mut t, mut u) = (device.zeroed::<i32>(4 * n).unwrap(), device.zeroed::<u8>(2 * n).unwrap());
        launch(
            &load(&device, "vector_types"),
            "vector_types",
            LaunchConfig::for_elements(n, 32),
            &mut [
                (&xd).into(),
                (&mut y).into(),
                (&ad).into(),
                (&mut b).into(),
                (&sd).into(),
                (&mut t).into(),
                (&cd).into(),
                (&mut u).into(),
                (n as i32).into(),
            ],
        );
        let (y, b, t, u) =
            (y.to_vec().unwrap(), b.to_vec().unwrap(), t.to_vec().unwrap(), u.to_vec().unwrap());
        for i in 0..n {
            let v = &x[4 * i..4 * i + 4];
            assert_eq!(y[4 * i..4 * i + 4], [v[3], v[2] * 2.0, v[1], v[0] - 1.0], "float4 {i}");
            assert_eq!(b[2 * i..2 * i + 2], [a[2 * i + 1], a[2 * i] + 0.5], "double2 {i}");
            let q = &s[4 * i..4 * i + 4];
            let want = [q[0] as i32, q[1] as i32 * 2, q[2] as i32, q[3] as i32 - 1];
            assert_eq!(t[4 * i..4 * i + 4], want, "short4 {i}");
            assert_eq!(
                u[2 * i..2 * i + 2],
                [c[4 * i] as u8, (c[4 * i + 3] as u8).wrapping_add(1)],
                "char4 {i}"
            );
        }
    });
}

#[test]
fn double_math_and_rounding_intrinsics_match_rust() {
    each_build(|| {
        let device = Device::sim();
        let mut rng = Rng::fresh("nvrtc_f64_math");
        let n = 200;
        // Every tenth argument is large (1e5..1e7: `cos(a·1000)` then takes the slow
        // Payne–Hanek path, the device function returning a structure).
        let x: Vec<f64> = (0..n)
            .map(|i| {
                if i % 10 == 0 {
                    (1e5 + rng.unit() * 1e7) * if i % 20 == 0 { -1.0 } else { 1.0 }
                } else {
                    rng.unit() * 20.0 - 10.0
                }
            })
            .collect();
        let f: Vec<f32> =
            (0..n).map(|_| (0.1 + rng.unit() as f32 * 9.9).copysign(rng.signed_f32())).collect();
        let (xd, fd) = (device.upload(&x).unwrap(), device.upload(&f).unwrap());
        let (mut y, mut g) = (device.zeroed::<f64>(5 * n).unwrap(), device.zeroed::<f32>(4 * n).unwrap());
        launch(
            &load(&device, "f64_math"),
            "f64_math",
            LaunchConfig::for_elements(n, 64),
            &mut [(&xd).into(), (&mut y).into(), (&fd).into(), (&mut g).into(), (n as i32).into()],
        );
        let (y, g) = (y.to_vec().unwrap(), g.to_vec().unwrap());
        // CUDA's double functions: sin, cos, pow within 2 ulp, exp and log within 1 (their sum
        // rounds once more): 4 ulp of the result leaves room for all of them.
        let ulps =
            |got: f64, want: f64| (got - want).abs() / (want.abs().max(f64::MIN_POSITIVE) * f64::EPSILON);
        for i in 0..n {
            let a = x[i];
            let checks = [
                ("sin", y[5 * i], a.sin()),
                ("cos", y[5 * i + 1], (a * 1000.0).cos()),
                ("exp+log", y[5 * i + 2], a.exp() + (a.abs() + 1.0).ln()),
                ("pow", y[5 * i + 3], (a.abs() + 0.5).powf(1.7)),
            ];
            for (what, got, want) in checks {
                if want.is_infinite() {
                    assert_eq!(got, want, "{what}({a})");
                } else {
                    assert!(ulps(got, want) <= 4.0, "{what}({a}) = {got}, want {want}");
                }
            }
            assert_eq!(y[5 * i + 4], a.abs().sqrt() + a.mul_add(2.0, 1.0), "sqrt + fma at {a}");
            let b = f[i];
            assert_eq!(g[4 * i], b.clamp(0.0, 1.0), "saturate({b})");
            // Toward zero: down for a positive sum, up for a negative one.
            let sum = b as f64 + 1.0;
            assert_eq!(g[4 * i + 1], f32_directed(sum, sum < 0.0), "fadd_rz({b})");
            assert_eq!(g[4 * i + 2], f32_directed(b as f64 * b as f64 + 1.0, true), "fmaf_ru({b})");
            assert_eq!(g[4 * i + 3], f32_directed((b.abs() as f64).sqrt(), false), "fsqrt_rd({b})");
        }
    });
}

/// `x` rounded to f64 toward zero (`toward_zero`) or upward, where `q` is `x` rounded to
/// nearest and `r` the exact remainder's sign (`x - q`, positive: `x` is above `q`).
fn f64_directed(q: f64, remainder: f64, up: bool) -> f64 {
    let step = |v: f64, toward_up: bool| {
        if v == 0.0 {
            f64::from_bits(1).copysign(if toward_up { 1.0 } else { -1.0 })
        } else if (v > 0.0) == toward_up {
            f64::from_bits(v.to_bits() + 1)
        } else {
            f64::from_bits(v.to_bits() - 1)
        }
    };
    match (remainder > 0.0, remainder < 0.0) {
        (true, _) if up => step(q, true),
        (_, true) if !up => step(q, false),
        _ => q,
    }
}

#[test]
fn integer_and_rounding_intrinsics_match_rust() {
    each_build(|| {
        let device = Device::sim();
        let mut rng = Rng::fresh("nvrtc_intrinsics2");
        // Whole warps: the kernel shuffles.
        let n = 64;
        let x: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
        let w: Vec<u64> = (0..n).map(|i| if i == 3 { 0 } else { rng.next() >> (rng.next() % 64) }).collect();
        let d: Vec<f64> = (0..n).map(|_| rng.unit() * 200.0 - 100.0).collect();
        let f: Vec<f32> = (0..n).map(|_| rng.signed_f32() * 100.0).collect();
        let (xd, wd, dd, fd) = (
            device.upload(&x).unwrap(),
            device.upload(&w).unwrap(),
            device.upload(&d).unwrap(),
            device.upload(&f).unwrap(),
        );
        let (mut o, mut ow) = (device.zeroed::<u32>(8 * n).unwrap(), device.zeroed::<u64>(2 * n).unwrap());
        let (mut od, mut of) = (device.zeroed::<f64>(2 * n).unwrap(), device.zeroed::<f32>(4 * n).unwrap());
        launch(
            &load(&device, "intrinsics2"),
            "intrinsics2",
            LaunchConfig::linear(2, 32),
            &mut [
                (&xd).into(),
                (&wd).into(),
                (&dd).into(),
                (&fd).into(),
                (&mut o).into(),
                (&mut ow).into(),
                (&mut od).into(),
                (&mut of).into(),
                (n as i32).into(),
            ],
        );
        let (o, ow, od, of) =
            (o.to_vec().unwrap(), ow.to_vec().unwrap(), od.to_vec().unwrap(), of.to_vec().unwrap());
        let bytes = |v: u32| v.to_le_bytes().map(|b| b as i8 as i32);
        for i in 0..n {
            let (a, b, u, v) = (x[i], x[(i + 1) % n], w[i], f[i]);
            let second_set = (0..32).filter(|k| a >> k & 1 == 1).nth(1).unwrap_or(u32::MAX);
            let dp4a = (0..4).fold(5i32, |s, k| s.wrapping_add(bytes(a)[k] * bytes(b)[k]));
            let halves = [a as u16 as i16 as i32, (a >> 16) as u16 as i16 as i32];
            let dp2a = 7i32.wrapping_add(halves[0] * bytes(b)[0] + halves[1] * bytes(b)[1]);
            let sum = a as u64 + b as u64;
            let ffs = if u == 0 { 0 } else { u.trailing_zeros() + 1 };
            let want = [
                second_set,
                dp4a as u32,
                dp2a as u32,
                (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff),
                ((sum >> 1) as u32).wrapping_add(((sum + 1) >> 1) as u32),
                (u.reverse_bits() >> 40) as u32,
                u.leading_zeros() + ffs + u.count_ones(),
                (a as i32).max(b as i32).max(7) as u32,
            ];
            assert_eq!(o[8 * i..8 * i + 8], want, "x = {a:#x}, {b:#x}, w = {u:#x}");
            let high = ((u as u128 * w[(i + 1) % n] as u128) >> 64) as u64;
            let hi_int = (d[i].to_bits() >> 32) as u32 as i32 as i64 as u64;
            assert_eq!(ow[2 * i..2 * i + 2], [high, d[i].to_bits() ^ hi_int], "w = {u:#x}, d = {}", d[i]);
            assert_eq!(od[2 * i].to_bits(), d[i].to_bits());
            // Directed rounding by the sign of the exact remainder (fma is exact here).
            let q = d[i] / 3.0;
            let div_up = f64_directed(q, (-q).mul_add(3.0, d[i]), true);
            let x10 = d[i] + 10.0;
            let r = 1.0 / x10;
            let remainder = (-r).mul_add(x10, 1.0) * x10.signum();
            let rcp_rz = f64_directed(r, remainder, r < 0.0);
            assert_eq!(od[2 * i + 1], div_up + d[i].abs().sqrt() + rcp_rz, "d = {}", d[i]);
            let v5 = v + 5.0;
            let rcp = 1.0 / v5 as f64;
            let want = [
                v / 3.0 + f32_directed(rcp, rcp < 0.0),
                f32_directed(a as i32 as f64, false) + f32_directed(b as f64, true),
                v + v + v + v,
                f[i ^ 1] + d[if i % 32 + 2 < 32 { i + 2 } else { i }] as f32,
            ];
            assert_eq!(of[4 * i..4 * i + 4], want, "f = {v}, x = {a:#x}, {b:#x}");
        }
    });
}

#[test]
fn tf32_rounding_half_packing_and_scoped_atomics() {
    each_build(|| {
        let device = Device::sim();
        let mut rng = Rng::fresh("nvrtc_conversions");
        let n = 200;
        let mut x = f32s(&mut rng, n, 1000.0);
        // A tf32 tie (1 + 2^-11: away from zero gives 1 + 2^-10) and the largest float.
        x[0] = 1.0 + 2f32.powi(-11);
        x[1] = f32::MAX;
        let xd = device.upload(&x).unwrap();
        let (mut o, mut h, mut b) = (
            device.zeroed::<u32>(n + 1).unwrap(),
            device.zeroed::<u32>(n).unwrap(),
            device.zeroed::<u32>(n).unwrap(),
        );
        launch(
            &load(&device, "conversions"),
            "conversions",
            LaunchConfig::for_elements(n, 64),
            &mut [(&xd).into(), (&mut o).into(), (&mut h).into(), (&mut b).into(), (n as i32).into()],
        );
        let (o, h, b) = (o.to_vec().unwrap(), h.to_vec().unwrap(), b.to_vec().unwrap());
        let f16 = |v: f32| half::f16::from_f32(v).to_bits() as u32;
        let bf16 = |v: f32| half::bf16::from_f32(v).to_bits() as u32;
        for i in 0..n {
            let v = x[i];
            // TF32 keeps 10 fraction bits: round the magnitude half away from zero at bit 13.
            let magnitude = v.abs().to_bits();
            let tf32 = (v.to_bits() & 0x8000_0000) | ((magnitude + 0x1000) & 0x7fff_e000);
            assert_eq!(o[i], tf32, "tf32 of {v}");
            assert_eq!(h[i], f16(v) | f16(-v) << 16, "half2 of {v}");
            assert_eq!(b[i], bf16(v) | bf16(v * 2.0) << 16, "bfloat162 of {v}");
        }
        assert_eq!(o[1], 0x7f80_0000, "f32::MAX rounds up to infinity in tf32");
        assert_eq!(o[n], 2 * n as u32, "every thread's two atomics");
    });
}

#[test]
fn templates_structs_by_value_and_local_arrays_match_rust() {
    each_build(|| {
        let device = Device::sim();
        let mut rng = Rng::fresh("nvrtc_templates");
        let (blocks, n) = (3usize, 300usize);
        // Small integers: the block sums are exact in any order.
        let x: Vec<f64> = (0..n).map(|_| (rng.next() % 100) as f64 - 50.0).collect();
        let f = f32s(&mut rng, n, 10.0);
        let (xd, fd) = (device.upload(&x).unwrap(), device.upload(&f).unwrap());
        let (mut out, mut g) = (device.zeroed::<f64>(blocks).unwrap(), device.zeroed::<f32>(n).unwrap());
        launch(
            &load(&device, "templates"),
            "templates",
            LaunchConfig::linear(blocks as u32, 128),
            &mut [(&xd).into(), (&mut out).into(), (&fd).into(), (&mut g).into(), (n as i32).into()],
        );
        let (out, g) = (out.to_vec().unwrap(), g.to_vec().unwrap());
        for (blk, got) in out.iter().enumerate() {
            let want: f64 = x[blk * 128..((blk + 1) * 128).min(n)].iter().sum();
            assert_eq!(*got, want, "block {blk}");
        }
        for i in 0..n {
            let k = i % 8;
            let want = (f[i] * 2.0 + (i + 1) as f32) as f64 + (f[(i + k) % n] * k as f32) as f64;
            // The compiler may contract the last product and sum into an fma: a few f32 ulps.
            assert!(
                (g[i] as f64 - want).abs() <= 4.0 * f32::EPSILON as f64 * want.abs().max(1.0),
                "g[{i}] = {}, want {want}",
                g[i]
            );
        }
    });
}
