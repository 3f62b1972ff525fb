//! Small kernels written against `ptx_core::KernelBuilder`, and Rust references, shared by
//! the simulator tests and the GPU tests.

#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};

use ptx_core::{Cmp, Kernel, KernelBuilder, KernelIr, SpecialReg, F32, U32};

/// `y[i] = fma(a, x[i], y[i])` for `i < n`, `i = ctaid.x * ntid.x + tid.x`.
/// Parameters: `a: f32, x: *f32, y: *f32, n: u32`.
pub struct Saxpy;

impl Kernel for Saxpy {
    fn name(&self) -> &str {
        "saxpy"
    }

    fn build(&self) -> KernelIr {
        let mut b = KernelBuilder::new("saxpy");
        let a = b.param::<F32>("a");
        let x = b.global_pointer("x");
        let y = b.global_pointer("y");
        let n = b.param::<U32>("n");
        let a = b.load_param(a);
        let n = b.load_param(n);
        let i = b.global_index_x();
        let done = b.label();
        let out_of_range = b.setp(Cmp::Ge, i, n);
        b.bra_if(out_of_range, done);
        let xa = b.element_address::<F32>(x, i);
        let ya = b.element_address::<F32>(y, i);
        let xv = b.ld_global::<F32>(xa, 0);
        let yv = b.ld_global::<F32>(ya, 0);
        let r = b.fma(a, xv, yv);
        b.st_global::<F32>(ya, 0, r);
        b.place(done);
        b.ret();
        b.finish()
    }
}

/// The reference for [`Saxpy`]: the same single-rounding fma.
pub fn saxpy_ref(a: f32, x: &[f32], y: &[f32]) -> Vec<f32> {
    x.iter().zip(y).map(|(&x, &y)| a.mul_add(x, y)).collect()
}

/// A three-dimensional grid of two-dimensional blocks writing its coordinates:
/// `out[(z * height + gy) * width + gx] = gx + 1000 * gy + 1_000_000 * z` for
/// `gx < width, gy < height`, with `gx`/`gy` the global x/y thread index and `z = ctaid.z`.
/// Parameters: `out: *u32, width: u32, height: u32`.
pub struct Coords;

impl Kernel for Coords {
    fn name(&self) -> &str {
        "coords"
    }

    fn build(&self) -> KernelIr {
        let mut b = KernelBuilder::new("coords");
        let out = b.global_pointer("out");
        let width = b.param::<U32>("width");
        let height = b.param::<U32>("height");
        let width = b.load_param(width);
        let height = b.load_param(height);
        let gx = b.global_index_x();
        let tid_y = b.special(SpecialReg::TidY);
        let ntid_y = b.special(SpecialReg::NtidY);
        let ctaid_y = b.special(SpecialReg::CtaidY);
        let gy = b.mad_lo(ctaid_y, ntid_y, tid_y);
        let z = b.special(SpecialReg::CtaidZ);
        let done = b.label();
        let bad_x = b.setp(Cmp::Ge, gx, width);
        b.bra_if(bad_x, done);
        let bad_y = b.setp(Cmp::Ge, gy, height);
        b.bra_if(bad_y, done);
        let row = b.mad_lo(z, height, gy);
        let index = b.mad_lo(row, width, gx);
        let v = b.mad_lo(gy, 1000u32, gx);
        let v = b.mad_lo(z, 1_000_000u32, v);
        let addr = b.element_address::<U32>(out, index);
        b.st_global::<U32>(addr, 0, v);
        b.place(done);
        b.ret();
        b.finish()
    }
}

/// The reference for [`Coords`].
pub fn coords_ref(width: u32, height: u32, depth: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for z in 0..depth {
        for y in 0..height {
            for x in 0..width {
                out.push(x + 1000 * y + 1_000_000 * z);
            }
        }
    }
    out
}

/// An integer hash, IEEE-free: `out[i] = ((i * 2654435761) ^ (i >> 3)) + seed` for `i < n`.
/// Parameters: `out: *u32, seed: u32, n: u32`.
pub struct Hash;

impl Kernel for Hash {
    fn name(&self) -> &str {
        "hash"
    }

    fn build(&self) -> KernelIr {
        let mut b = KernelBuilder::new("hash");
        let out = b.global_pointer("out");
        let seed = b.param::<U32>("seed");
        let n = b.param::<U32>("n");
        let seed = b.load_param(seed);
        let n = b.load_param(n);
        let i = b.global_index_x();
        let done = b.label();
        let bad = b.setp(Cmp::Ge, i, n);
        b.bra_if(bad, done);
        let m = b.mul(i, 2_654_435_761u32);
        let s = b.shr(i, 3u32);
        let h = b.xor(m, s);
        let h = b.add(h, seed);
        let addr = b.element_address::<U32>(out, i);
        b.st_global::<U32>(addr, 0, h);
        b.place(done);
        b.ret();
        b.finish()
    }
}

/// The reference for [`Hash`].
pub fn hash_ref(seed: u32, n: u32) -> Vec<u32> {
    (0..n).map(|i| (i.wrapping_mul(2_654_435_761) ^ (i >> 3)).wrapping_add(seed)).collect()
}

/// Writes `out[tid.x + offset] = 1` with no bounds check: a large `offset` faults.
/// Parameters: `out: *u32, offset: u32`.
pub struct Unchecked;

impl Kernel for Unchecked {
    fn name(&self) -> &str {
        "unchecked_store"
    }

    fn build(&self) -> KernelIr {
        let mut b = KernelBuilder::new("unchecked_store");
        let out = b.global_pointer("out");
        let offset = b.param::<U32>("offset");
        let offset = b.load_param(offset);
        let tid = b.special(SpecialReg::TidX);
        let i = b.add(tid, offset);
        let addr = b.element_address::<U32>(out, i);
        b.st_global::<U32>(addr, 0, 1u32);
        b.finish()
    }
}

/// `out[tid.x] = value` where `value` is a compile-time constant: a kernel with a comptime
/// parameter, counting how often it is built. Parameters: `out: *u32`.
pub struct Fill<'a> {
    pub value: u32,
    pub builds: &'a AtomicUsize,
}

impl Kernel for Fill<'_> {
    fn name(&self) -> &str {
        "fill"
    }

    fn cache_key(&self) -> String {
        format!("value={}", self.value)
    }

    fn build(&self) -> KernelIr {
        self.builds.fetch_add(1, Ordering::SeqCst);
        let mut b = KernelBuilder::new("fill");
        let out = b.global_pointer("out");
        let tid = b.special(SpecialReg::TidX);
        let addr = b.element_address::<U32>(out, tid);
        b.st_global::<U32>(addr, 0, self.value);
        b.finish()
    }
}

/// A kernel the verifier rejects: it branches to a label that is never placed.
pub struct Broken;

impl Kernel for Broken {
    fn name(&self) -> &str {
        "broken"
    }

    fn build(&self) -> KernelIr {
        let mut b = KernelBuilder::new("broken");
        let nowhere = b.label();
        b.bra(nowhere);
        b.finish()
    }
}

/// Deterministic pseudo-random f32 values in [-4, 4), never zero (a 64-bit LCG).
pub fn random_f32(seed: u64, n: usize) -> Vec<f32> {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    (0..n)
        .map(|_| loop {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let unit = (state >> 40) as f32 / (1u64 << 24) as f32;
            let v = unit * 8.0 - 4.0;
            if v != 0.0 {
                break v;
            }
        })
        .collect()
}
