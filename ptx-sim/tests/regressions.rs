//! Regression tests for simulator bugs, each against an independent reference (exact
//! integer arithmetic, Rust's saturating casts).

#![allow(clippy::needless_range_loop)]

mod common;

use common::map3;
use ptx_core::{CvtRound, F32, F64, S16, U16, U32, U64};

/// `cvt.rXi.u64.f64` / `.u64.f32` of values in [1.8e19, 2^64): they fit u64 and must not be
/// saturated to u64::MAX. Rust's `as u64` (saturating, NaN -> 0) is the reference after the
/// integral rounding, which is exact on these values.
#[test]
fn float_to_u64_near_two_to_the_64() {
    let two64 = 18446744073709551616.0f64;
    let mut vals: Vec<f64> =
        vec![1.8e19, 1.81e19, 1.84e19, two64 - 2048.0, two64, two64 * 2.0, -1.0, 1.79e19];
    while vals.len() < 128 {
        let k = vals.len() as f64;
        vals.push(1.8e19 + k * 3.3e15);
    }
    let a: Vec<u64> = vals.iter().map(|v| v.to_bits()).collect();
    let z = vec![0u64; 128];
    for round in [CvtRound::Rni, CvtRound::Rzi, CvtRound::Rmi, CvtRound::Rpi] {
        let got = map3::<F64, U32, U32, U64>("d2u64", &a, &z, &z, |k, x, _, _| k.cvt(x, Some(round), false));
        for i in 0..128 {
            assert_eq!(got[i], vals[i] as u64, "cvt.{round:?}.u64.f64 {:e}", vals[i]);
        }
        let fa: Vec<u64> = vals.iter().map(|v| (*v as f32).to_bits() as u64).collect();
        let got = map3::<F32, U32, U32, U64>("f2u64", &fa, &z, &z, |k, x, _, _| k.cvt(x, Some(round), false));
        for i in 0..128 {
            let x = f32::from_bits(fa[i] as u32);
            assert_eq!(got[i], x as u64, "cvt.{round:?}.u64.f32 {x:e}");
        }
    }
}

/// Shift amounts are u32 for every type: `shl.b16`/`shr.u16`/`shr.s16` by 65536 + k shift
/// by at least 16 (clamped), not by k.
#[test]
fn sixteen_bit_shifts_by_large_u32_amounts() {
    let n = 128;
    let a: Vec<u64> = (0..n).map(|i| [0x8001u64, 0x7ffe, 0xffff, 0x1234][i % 4]).collect();
    let sh: Vec<u64> =
        (0..n as u64).map(|i| [i % 20, 0x1_0000 + i % 20, 0xffff_fff0 + i % 16][i as usize % 3]).collect();
    let z = vec![0u64; n];
    let want_shl = |x: u64, s: u64| if s >= 16 { 0 } else { (x << s) & 0xffff };
    let want_shr = |x: u64, s: u64| if s >= 16 { 0 } else { x >> s };
    let want_sar = |x: u64, s: u64| ((x as u16 as i16 as i64) >> s.min(15)) as u64 & 0xffff;
    let got = map3::<U16, U32, U32, U16>("shl16", &a, &sh, &z, |k, x, y, _| k.shl(x, y));
    let got_r = map3::<U16, U32, U32, U16>("shr16", &a, &sh, &z, |k, x, y, _| k.shr(x, y));
    let got_s = map3::<S16, U32, U32, S16>("sar16", &a, &sh, &z, |k, x, y, _| k.shr(x, y));
    for i in 0..n {
        assert_eq!(got[i], want_shl(a[i], sh[i]), "shl.b16 {:#x} by {:#x}", a[i], sh[i]);
        assert_eq!(got_r[i], want_shr(a[i], sh[i]), "shr.u16 {:#x} by {:#x}", a[i], sh[i]);
        assert_eq!(got_s[i], want_sar(a[i], sh[i]), "shr.s16 {:#x} by {:#x}", a[i], sh[i]);
    }
}

/// Forms the printer emits that are easy to mis-parse: negative address offsets (global and
/// shared), 64-bit and negative s16 immediates, `mov.pred %p, 1`, `selp` on it.
#[test]
fn printed_edge_forms_parse_and_run() {
    use common::{compile, download, geo, run, upload};
    use ptx_core::{KernelBuilder, Pred, SpecialReg, S16, S64};
    use ptx_sim::Memory;
    let mut b = KernelBuilder::new("edges");
    let p64 = b.global_pointer("p64");
    let p16 = b.global_pointer("p16");
    let out = b.global_pointer("out");
    let tid = b.special(SpecialReg::TidX);
    let next = b.add(tid, 1u32);
    let next = b.to_reg(next);
    let a64 = b.element_address::<U64>(p64, next);
    let x = b.ld_global::<U64>(a64, -8); // p64[tid]
    let y = b.add(x, 0xffff_ffff_ffff_fff0u64);
    let y = b.to_reg(y);
    let z = b.mov::<S64>(-9_223_372_036_854_775_807i64);
    let ys = b.bitcast::<S64, U64>(y);
    let z = b.add(z, ys);
    let a16 = b.element_address::<S16>(p16, next);
    let h = b.ld_global::<S16>(a16, -2); // p16[tid]
    let h = b.add(h, -3i16);
    let h = b.mul(h, -32768i16);
    let t = b.mov::<Pred>(true);
    let pick = b.selp(t, 0x1234_5678_9abc_def0u64, 7u64);
    let sh = b.shared_array(1024, 8);
    let base = b.shared_address(sh);
    let s_at = b.byte_offset::<U64>(next);
    let s_at = b.cvt::<U32, U64>(s_at, None, false);
    let s_addr = b.add(base, s_at);
    let s_addr = b.to_reg(s_addr);
    b.st_shared::<U64>(s_addr, -8, y);
    let back = b.ld_shared::<U64>(s_addr, -8);
    let o = b.mul(tid, 4u32);
    let o = b.to_reg(o);
    let w = |b: &mut KernelBuilder, k: u32, v: ptx_core::Val<U64>| {
        let i = b.add(o, k);
        let a = b.element_address::<U64>(out, i);
        b.st_global::<U64>(a, 0, v);
    };
    w(&mut b, 0, back.into());
    let zu = b.bitcast::<U64, S64>(z);
    w(&mut b, 1, zu);
    let hu = b.cvt::<S64, S16>(h, None, false);
    let hu = b.bitcast::<U64, S64>(hu);
    w(&mut b, 2, hu);
    w(&mut b, 3, pick);
    let ir = b.finish();
    let (ptx, m) = compile(&ir);
    for form in ["-8]", "-2]", "18446744073709551600", "-3", "-32768", "mov.pred %p", "-9223372036854775807"]
    {
        assert!(ptx.contains(form), "the printer emits `{form}`:\n{ptx}");
    }
    let n = 64usize;
    let mem = Memory::new();
    let v64: Vec<u64> = (0..n as u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
    let v16: Vec<u64> = (0..n as u64).map(|i| (i * 1237) & 0xffff).collect();
    let b64 = upload(&mem, &v64, 8);
    let b16 = upload(&mem, &v16, 2);
    let ob = mem.alloc(n * 4 * 8);
    run(&m, "edges", geo([1, 1, 1], [n as u32, 1, 1]), &[b64, b16, ob], &mem).unwrap();
    let got = download(&mem, ob, n * 4, 8);
    for i in 0..n {
        let y = v64[i].wrapping_add(0xffff_ffff_ffff_fff0);
        assert_eq!(got[4 * i], y, "shared round trip {i}");
        assert_eq!(got[4 * i + 1], (-9_223_372_036_854_775_807i64).wrapping_add(y as i64) as u64);
        let h = (v16[i] as u16 as i16).wrapping_add(-3).wrapping_mul(-32768);
        assert_eq!(got[4 * i + 2], h as i64 as u64);
        assert_eq!(got[4 * i + 3], 0x1234_5678_9abc_def0);
    }
}

/// A module of several kernels, one without parameters or registers, parses.
#[test]
fn printed_module_with_several_kernels() {
    use ptx_core::{KernelBuilder, Target};
    use ptx_sim::{launch, Geometry, Memory, Module};
    let empty = KernelBuilder::new("empty").finish();
    let mut b = KernelBuilder::new("one");
    let p = b.global_pointer("p");
    b.st_global::<U32>(p, 4, 5u32);
    let one = b.finish();
    let text = ptx_core::print::module_ptx(&[empty, one], Target::SM_80);
    let m = Module::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(m.kernel_names().collect::<Vec<_>>(), ["empty", "one"]);
    let mem = Memory::new();
    let buf = mem.alloc(8);
    let g = Geometry { grid: [2, 1, 1], block: [3, 1, 1], dynamic_shared_bytes: 0 };
    launch(m.kernel("empty").unwrap(), &g, &[], &mem, 1).unwrap();
    launch(m.kernel("one").unwrap(), &g, &[buf], &mem, 1).unwrap();
    let mut out = [0u8; 4];
    mem.read(buf + 4, &mut out).unwrap();
    assert_eq!(u32::from_le_bytes(out), 5);
}

/// Divergence around `shfl.sync`: lanes reach the same shuffle after different amounts of
/// work, some lanes exit before it (reading from an exited lane gives the reader's own
/// value), and a loop runs a shuffle a lane-dependent number of times while finished lanes
/// exit.
#[test]
fn shuffles_with_divergent_lanes() {
    use common::{compile, download, geo, run};
    use ptx_core::{Cmp, KernelBuilder, ShflMode, SpecialReg};
    use ptx_sim::Memory;
    let mut b = KernelBuilder::new("divshfl");
    let out = b.global_pointer("out");
    let lane = b.special(SpecialReg::LaneId);
    let tid = b.special(SpecialReg::TidX);
    let addr = b.element_address::<U32>(out, tid);
    let v = b.mad_lo(tid, 10u32, 1u32);
    let v = b.to_reg(v);
    // Lanes below 8 spin a while first.
    let spin = b.reg::<U32>();
    b.assign(spin, 0u32);
    let top = b.label();
    let after = b.label();
    b.place(top);
    let lt8 = b.setp(Cmp::Ge, lane, 8u32);
    b.bra_if(lt8, after);
    let s1 = b.add(spin, 1u32);
    b.assign(spin, s1);
    let more = b.setp(Cmp::Lt, spin, 5u32);
    b.bra_if(more, top);
    b.place(after);
    // Lanes 28.. exit before the shuffle.
    let done = b.label();
    let late = b.setp(Cmp::Ge, lane, 28u32);
    b.bra_if(late, done);
    let got = b.shfl(ShflMode::Down, v, 3u32);
    let sum = b.add(got, spin);
    b.st_global::<U32>(addr, 0, sum);
    b.place(done);
    let ir = b.finish();
    let (_, m) = compile(&ir);
    let n = 64usize;
    let mem = Memory::new();
    let ob = mem.alloc(n * 4);
    run(&m, "divshfl", geo([1, 1, 1], [n as u32, 1, 1]), &[ob], &mem).unwrap();
    let res = download(&mem, ob, n, 4);
    for t in 0..n {
        let l = t % 32;
        let val = |t: usize| (t * 10 + 1) as u64;
        let want = if l >= 28 {
            0
        } else {
            let src = if l + 3 < 28 { val(t + 3) } else { val(t) };
            src + if l < 8 { 5 } else { 0 }
        };
        assert_eq!(res[t], want, "thread {t}");
    }
}

/// `shfl.sync` waits only for the lanes of its `membermask`: two halves of a warp shuffle
/// independently with disjoint masks at different instructions, one half before a
/// `barrier.sync` and the other after another one (valid on sm_70+; not with `bar.sync`,
/// which is aligned: every thread must execute the same one). This used to be reported as
/// a deadlock, because every live lane of the warp had to wait at one shuffle.
#[test]
fn shuffles_wait_only_for_their_member_mask() {
    use common::{download, geo, run};
    use ptx_sim::{Memory, Module};
    let ptx = "\
.version 7.8
.target sm_80
.address_size 64

.visible .entry halves(
\t.param .u64 halves_param_0
)
{
\t.reg .pred %p<2>;
\t.reg .u32 %r<6>;
\t.reg .u64 %rd<5>;

\tld.param.u64 %rd1, [halves_param_0];
\tcvta.to.global.u64 %rd2, %rd1;
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r2, %laneid;
\tmul.lo.u32 %r3, %r1, 10;
\tmul.wide.u32 %rd3, %r1, 4;
\tadd.u64 %rd4, %rd2, %rd3;
\tsetp.ge.u32 %p1, %r2, 16;
\t@%p1 bra $L1;
\tshfl.sync.bfly.b32 %r4, %r3, 1, 31, 65535;
\tbarrier.sync 0;
\tbra $L2;
$L1:
\tbarrier.sync 0;
\tshfl.sync.idx.b32 %r4, %r3, 21, 31, 4294901760;
$L2:
\tst.global.u32 [%rd4], %r4;
\tret;
}
";
    let m = Module::parse(ptx).unwrap_or_else(|e| panic!("{e}"));
    let n = 64usize;
    let mem = Memory::new();
    let ob = mem.alloc(n * 4);
    run(&m, "halves", geo([1, 1, 1], [n as u32, 1, 1]), &[ob], &mem).unwrap_or_else(|e| panic!("{e}"));
    let got = download(&mem, ob, n, 4);
    for t in 0..n {
        let (w, l) = (t / 32 * 32, t % 32);
        let want = if l < 16 { (w + (l ^ 1)) * 10 } else { (w + 21) * 10 };
        assert_eq!(got[t], want as u64, "thread {t}");
    }
    // With full masks the two halves can never meet: an error, not a hang.
    let full = ptx
        .replace("65535;", "4294967295;")
        .replace("4294901760;", "4294967295;")
        .replace("\tbarrier.sync 0;\n", "");
    let m = Module::parse(&full).unwrap();
    let e = run(&m, "halves", geo([1, 1, 1], [32, 1, 1]), &[ob], &mem).unwrap_err();
    assert!(matches!(e, ptx_sim::SimError::Barrier { .. }), "{e}");
}
