//! `rsqrt.approx.f64` in the default accurate model is `1/sqrt(x)` rounded once to f64, not
//! the host's `1.0 / x.sqrt()` (two roundings, up to about 1.5 ulp off): checked against
//! `data/rsqrt_f64_reference.txt`, 600 inputs across the whole range (subnormals, powers of
//! two, the largest value) with results computed independently by Python's `decimal` at 80
//! digits (`data/rsqrt_f64_reference.py`).

mod common;

use common::{download, geo, upload};
use ptx_sim::{launch, Memory, Module};

/// A kernel `k(out, in)` computing `op` of its thread's f64 element.
fn module(op: &str) -> String {
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\n\
         .visible .entry k(.param .u64 k_out, .param .u64 k_in)\n{{\n\
         \t.reg .b32 %r<2>;\n\t.reg .b64 %rd<8>;\n\t.reg .f64 %fd<2>;\n\
         \tld.param.u64 %rd0, [k_out];\n\tld.param.u64 %rd1, [k_in];\n\
         \tcvta.to.global.u64 %rd0, %rd0;\n\tcvta.to.global.u64 %rd1, %rd1;\n\
         \tmov.u32 %r0, %tid.x;\n\tmul.wide.u32 %rd2, %r0, 8;\n\
         \tadd.s64 %rd3, %rd1, %rd2;\n\tadd.s64 %rd4, %rd0, %rd2;\n\
         \tld.global.f64 %fd0, [%rd3];\n\t{op} %fd1, %fd0;\n\tst.global.f64 [%rd4], %fd1;\n\tret;\n}}\n"
    )
}

/// Runs `op` on each input on the simulator.
fn run(op: &str, inputs: &[u64]) -> Vec<u64> {
    let ptx = module(op);
    let m = Module::parse(&ptx).unwrap_or_else(|e| panic!("{e}\n{ptx}"));
    let mem = Memory::new();
    let (out, inp) = (upload(&mem, &vec![0; inputs.len()], 8), upload(&mem, inputs, 8));
    let k = m.kernel("k").expect("the kernel is supported");
    launch(k, &geo([1, 1, 1], [inputs.len() as u32, 1, 1]), &[out, inp], &mem, 1)
        .unwrap_or_else(|e| panic!("{e}"));
    download(&mem, out, inputs.len(), 8)
}

/// The reference's `(x, 1/sqrt(x))` bit pairs.
fn reference() -> Vec<(u64, u64)> {
    include_str!("data/rsqrt_f64_reference.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (x, y) = l.split_once(' ').expect("two fields");
            (u64::from_str_radix(x, 16).expect("hex"), u64::from_str_radix(y, 16).expect("hex"))
        })
        .collect()
}

#[test]
fn rsqrt_approx_f64_is_correctly_rounded() {
    let pairs = reference();
    assert_eq!(pairs.len(), 600);
    let xs: Vec<u64> = pairs.iter().map(|p| p.0).collect();
    // The host's two roundings miss some of them, so the test can tell.
    let host_misses = pairs.iter().filter(|(x, y)| (1.0 / f64::from_bits(*x).sqrt()).to_bits() != *y).count();
    assert!(host_misses > 50, "only {host_misses} inputs tell a correctly rounded result apart");
    for chunk in xs.chunks(256).zip(pairs.chunks(256)) {
        let got = run("rsqrt.approx.f64", chunk.0);
        for (g, (x, want)) in got.iter().zip(chunk.1) {
            assert_eq!(
                g,
                want,
                "rsqrt.approx.f64 of {:e} gave {:e}, not {:e}",
                f64::from_bits(*x),
                f64::from_bits(*g),
                f64::from_bits(*want)
            );
        }
        // `.ftz` differs only where the input or the result is subnormal (none of these
        // results is: the largest input's is 2^-512).
        let ftz = run("rsqrt.approx.ftz.f64", chunk.0);
        for (g, (x, want)) in ftz.iter().zip(chunk.1) {
            let expected = if f64::from_bits(*x).is_subnormal() { f64::INFINITY.to_bits() } else { *want };
            assert_eq!(*g, expected, "rsqrt.approx.ftz.f64 of {:e}", f64::from_bits(*x));
        }
    }
}
