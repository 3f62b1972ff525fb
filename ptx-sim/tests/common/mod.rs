//! Shared helpers for the simulator's integration tests: build a kernel with
//! `ptx_core::KernelBuilder`, verify and print it, parse it with the simulator and run it.

#![allow(dead_code)]

use ptx_core::types::MemTy;
use ptx_core::{KernelBuilder, KernelIr, Reg, SpecialReg, Target, Val, U32};
use ptx_sim::{launch, Geometry, KernelCode, LaunchStats, Memory, Module, SimError};

pub mod triton;

/// Verifies and prints `ir`, parses it with the simulator, returns the decoded kernel.
pub fn compile(ir: &KernelIr) -> (String, Module) {
    ptx_core::verify::verify(ir).expect("kernel verifies");
    let ptx = ptx_core::print::kernel_ptx(ir, Target::SM_80);
    let m = Module::parse(&ptx).unwrap_or_else(|e| panic!("{e}\n{ptx}"));
    (ptx, m)
}

pub fn kernel<'m>(m: &'m Module, name: &str) -> &'m KernelCode {
    m.kernel(name).expect("kernel present")
}

pub fn geo(grid: [u32; 3], block: [u32; 3]) -> Geometry {
    Geometry { grid, block, dynamic_shared_bytes: 0 }
}

/// Uploads `vals` as `bytes`-byte little-endian elements.
pub fn upload(mem: &Memory, vals: &[u64], bytes: usize) -> u64 {
    let addr = mem.alloc(vals.len() * bytes);
    let data: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()[..bytes].to_vec()).collect();
    mem.write(addr, &data).unwrap();
    addr
}

pub fn download(mem: &Memory, addr: u64, n: usize, bytes: usize) -> Vec<u64> {
    let mut data = vec![0u8; n * bytes];
    mem.read(addr, &mut data).unwrap();
    data.chunks(bytes)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..bytes].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

/// Builds `out[i] = f(a[i], b[i], c[i])` for one thread per element, runs it on
/// `a.len()` elements (blocks of 128) and returns the output bits.
pub fn map3<A: MemTy, B: MemTy, C: MemTy, O: MemTy>(
    name: &str,
    a: &[u64],
    b: &[u64],
    c: &[u64],
    f: impl FnOnce(&mut KernelBuilder, Reg<A>, Reg<B>, Reg<C>) -> Val<O>,
) -> Vec<u64> {
    let n = a.len();
    assert!(n.is_multiple_of(128) && b.len() == n && c.len() == n);
    let mut kb = KernelBuilder::new(name);
    let pa = kb.global_pointer("a");
    let pb = kb.global_pointer("b");
    let pc = kb.global_pointer("c");
    let po = kb.global_pointer("out");
    let i = global_index_x(&mut kb);
    let aa = kb.element_address::<A>(pa, i);
    let ab = kb.element_address::<B>(pb, i);
    let ac = kb.element_address::<C>(pc, i);
    let ao = kb.element_address::<O>(po, i);
    let x = kb.ld_global::<A>(aa, 0);
    let y = kb.ld_global::<B>(ab, 0);
    let z = kb.ld_global::<C>(ac, 0);
    let r = f(&mut kb, x, y, z);
    kb.st_global::<O>(ao, 0, r);
    let ir = kb.finish();
    let (_, m) = compile(&ir);
    let mem = Memory::new();
    let ba = upload(&mem, a, A::PTX.bytes() as usize);
    let bb = upload(&mem, b, B::PTX.bytes() as usize);
    let bc = upload(&mem, c, C::PTX.bytes() as usize);
    let ob = mem.alloc(n * O::PTX.bytes() as usize);
    launch(kernel(&m, name), &geo([(n / 128) as u32, 1, 1], [128, 1, 1]), &[ba, bb, bc, ob], &mem, 2)
        .unwrap_or_else(|e| panic!("{e}"));
    download(&mem, ob, n, O::PTX.bytes() as usize)
}

/// `ctaid.x * ntid.x + tid.x`.
pub fn global_index_x(kb: &mut KernelBuilder) -> Reg<U32> {
    let tid = kb.special(SpecialReg::TidX);
    let ntid = kb.special(SpecialReg::NtidX);
    let ctaid = kb.special(SpecialReg::CtaidX);
    let v = kb.mad_lo(ctaid, ntid, tid);
    kb.to_reg(v)
}

pub fn run(
    m: &Module,
    name: &str,
    g: Geometry,
    params: &[u64],
    mem: &Memory,
) -> Result<LaunchStats, SimError> {
    launch(kernel(m, name), &g, params, mem, 2)
}

/// `next_up`/`next_down` for f32 and f64 (the std methods need Rust 1.86; MSRV is 1.85).
pub trait Step: Copy {
    fn step_up(self) -> Self;
    fn step_down(self) -> Self;
}

macro_rules! step {
    ($t:ty, $bits:ty) => {
        impl Step for $t {
            fn step_up(self) -> Self {
                if self.is_nan() || self == <$t>::INFINITY {
                    return self;
                }
                if self == 0.0 {
                    return <$t>::from_bits(1);
                }
                let b = self.to_bits();
                <$t>::from_bits(if self > 0.0 { b + 1 } else { b - 1 })
            }
            fn step_down(self) -> Self {
                -(-self).step_up()
            }
        }
    };
}
step!(f32, u32);
step!(f64, u64);

/// The rounding error of `s`, the f64 sum of `x` and `y` (TwoSum: `x + y = s + error`
/// exactly, barring overflow); 0 when `s` is not finite.
pub fn two_sum_err(x: f64, y: f64, s: f64) -> f64 {
    if !s.is_finite() {
        return 0.0;
    }
    let bb = s - x;
    (x - (s - bb)) + (y - bb)
}

/// IEEE 754's sign for an exact zero sum of `x` and `y` (section 6.3): −0 when rounding
/// down, +0 under the other modes, except that zeros of one sign keep it.
pub fn exact_zero_sum(x: f64, y: f64, round_down: bool) -> f64 {
    if x == 0.0 && y == 0.0 && x.is_sign_negative() == y.is_sign_negative() {
        x
    } else if round_down {
        -0.0
    } else {
        0.0
    }
}

/// Runs `k(out)` of a module `header` + `decl` (written as given, before the kernel) whose body is `body` after a common prologue
/// (`%r1` = `%tid.x`, `%rd1` = `out`, `%rd3` = the address of the thread's word of it) on
/// one block of `threads`; returns `out` as u32s (`threads` words), or the error as text
/// (a kernel the module left out gives its reason).
pub fn run_words(header: &str, decl: &str, body: &str, threads: u32) -> Result<Vec<u32>, String> {
    let ptx = format!(
        "{header}{decl}.visible .entry k(.param .u64 out)\n{{\n .reg .b32 %r<20>; .reg .b64 %rd<20>; .reg .pred %p<8>;\n \
         ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;\n{body}\n ret;\n}}\n"
    );
    let m = Module::parse(&ptx).map_err(|e| e.to_string())?;
    let mem = Memory::new();
    let out = mem.alloc(4 * threads as usize);
    let g = Geometry { grid: [1, 1, 1], block: [threads, 1, 1], dynamic_shared_bytes: 0 };
    let Some(k) = m.kernel("k") else {
        return Err(m.unsupported("k").map_or_else(|| "kernel `k` missing".to_string(), |e| e.to_string()));
    };
    launch(k, &g, &[out], &mem, 1).map_err(|e| e.to_string())?;
    Ok(download(&mem, out, threads as usize, 4).into_iter().map(|w| w as u32).collect())
}
