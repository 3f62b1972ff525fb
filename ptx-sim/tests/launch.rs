//! Whole-grid behaviour: geometry and special registers, shared memory with barriers,
//! warp shuffles, atomics, vector accesses, and every error a launch can report.

mod common;

use common::{compile, download, geo, global_index_x, kernel, run, upload};
use ptx_core::{Cmp, KernelBuilder, ShflMode, SpecialReg, F32, U32, U64};
use ptx_sim::{launch, Geometry, Memory, Module, SimError};

#[test]
fn three_d_grid_writes_each_global_linear_index_once() {
    let mut b = KernelBuilder::new("grid3d");
    let out = b.global_pointer("out");
    let s = |b: &mut KernelBuilder, r| b.special(r);
    let (tx, ty, tz) =
        (s(&mut b, SpecialReg::TidX), s(&mut b, SpecialReg::TidY), s(&mut b, SpecialReg::TidZ));
    let (nx, ny, nz) =
        (s(&mut b, SpecialReg::NtidX), s(&mut b, SpecialReg::NtidY), s(&mut b, SpecialReg::NtidZ));
    let (cx, cy, cz) =
        (s(&mut b, SpecialReg::CtaidX), s(&mut b, SpecialReg::CtaidY), s(&mut b, SpecialReg::CtaidZ));
    let (gx, gy) = (s(&mut b, SpecialReg::NctaidX), s(&mut b, SpecialReg::NctaidY));
    let blk = b.mad_lo(cz, gy, cy);
    let blk = b.mad_lo(blk, gx, cx);
    let bsz = b.mul(nx, ny);
    let bsz = b.mul(bsz, nz);
    let t = b.mad_lo(tz, ny, ty);
    let t = b.mad_lo(t, nx, tx);
    let idx = b.mad_lo(blk, bsz, t);
    let idx = b.to_reg(idx);
    let addr = b.element_address::<U32>(out, idx);
    let old = b.ld_global::<U32>(addr, 0);
    // Store idx only if the slot still holds the sentinel; else store a marker.
    let fresh = b.setp(Cmp::Eq, old, 0xffff_ffffu32);
    let v = b.selp(fresh, idx, 0xdead_beefu32);
    b.st_global::<U32>(addr, 0, v);
    let lane = b.special(SpecialReg::LaneId);
    let _ = lane;
    let ir = b.finish();
    let (_, m) = compile(&ir);
    let g = geo([3, 2, 2], [4, 3, 5]);
    let n = 3 * 2 * 2 * 4 * 3 * 5;
    let mem = Memory::new();
    let buf = upload(&mem, &vec![0xffff_ffff; n], 4);
    for workers in [1, 3] {
        mem.write(buf, &vec![0xff; n * 4]).unwrap();
        let stats = launch(kernel(&m, "grid3d"), &g, &[buf], &mem, workers).unwrap();
        assert_eq!(stats.threads, n as u64);
        assert_eq!(stats.instructions % n as u64, 0, "every thread runs the same path");
        assert!(stats.instructions >= 20 * n as u64);
        let got = download(&mem, buf, n, 4);
        for (i, v) in got.iter().enumerate() {
            assert_eq!(*v, i as u64);
        }
    }
}

/// Block sum of 256 u32s through shared memory with a tree of bar.sync steps.
#[test]
fn shared_memory_block_reduction_with_barriers() {
    let mut b = KernelBuilder::new("reduce");
    let x = b.global_pointer("x");
    let out = b.global_pointer("out");
    let smem = b.shared_array(256 * 4, 16);
    let tid = b.special(SpecialReg::TidX);
    let gid = global_index_x(&mut b);
    let xa = b.element_address::<U32>(x, gid);
    let v = b.ld_global::<U32>(xa, 0);
    let base = b.shared_address(smem);
    let mine = b.mad_lo(tid, 4u32, base);
    let mine = b.to_reg(mine);
    b.st_shared::<U32>(mine, 0, v);
    b.bar_sync();
    let mut s = 128u32;
    while s > 0 {
        let skip = b.label();
        let active = b.setp(Cmp::Lt, tid, s);
        b.bra_unless(active, skip);
        let a = b.ld_shared::<U32>(mine, 0);
        let c = b.ld_shared::<U32>(mine, (s * 4) as i32);
        let sum = b.add(a, c);
        b.st_shared::<U32>(mine, 0, sum);
        b.place(skip);
        b.bar_sync();
        s /= 2;
    }
    let done = b.label();
    let first = b.setp(Cmp::Ne, tid, 0u32);
    b.bra_if(first, done);
    let total = b.ld_shared_at::<U32>(smem, 0);
    let cta = b.special(SpecialReg::CtaidX);
    let oa = b.element_address::<U32>(out, cta);
    b.st_global::<U32>(oa, 0, total);
    b.place(done);
    b.ret();
    let ir = b.finish();
    let (ptx, m) = compile(&ir);
    assert!(ptx.contains("bar.sync 0") && ptx.contains(".shared .align 16 .b8"));
    assert_eq!(kernel(&m, "reduce").static_shared_bytes(), 1024);
    let blocks = 6;
    let vals: Vec<u64> = (0..256 * blocks as u64).map(|i| (i * 2654435761) % 100_000).collect();
    let mem = Memory::new();
    let xb = upload(&mem, &vals, 4);
    let ob = mem.alloc(blocks * 4);
    run(&m, "reduce", geo([blocks as u32, 1, 1], [256, 1, 1]), &[xb, ob], &mem).unwrap();
    let got = download(&mem, ob, blocks, 4);
    for (blk, g) in got.iter().enumerate() {
        let want: u64 = vals[blk * 256..(blk + 1) * 256].iter().sum();
        assert_eq!(*g, want & 0xffff_ffff);
    }
    // Dynamic shared memory extends the window: 4 more bytes are addressable.
    let g = Geometry { grid: [1, 1, 1], block: [256, 1, 1], dynamic_shared_bytes: 64 };
    run(&m, "reduce", g, &[xb, ob], &mem).unwrap();
}

#[test]
fn warp_shuffles_exchange_lanes() {
    let mut b = KernelBuilder::new("shuffle");
    let out = b.global_pointer("out");
    let tid = b.special(SpecialReg::TidX);
    let lane = b.special(SpecialReg::LaneId);
    let v = b.mad_lo(tid, 3u32, 1u32);
    let v = b.to_reg(v);
    let down = b.shfl(ShflMode::Down, v, 1u32);
    let up = b.shfl(ShflMode::Up, v, 2u32);
    let bfly = b.shfl(ShflMode::Bfly, v, 5u32);
    let idx = b.shfl(ShflMode::Idx, v, 7u32);
    let base = b.mul(tid, 5u32);
    let base = b.to_reg(base);
    for (k, r) in [down, up, bfly, idx, lane].into_iter().enumerate() {
        let i = b.add(base, k as u32);
        let a = b.element_address::<U32>(out, i);
        b.st_global::<U32>(a, 0, r);
    }
    let ir = b.finish();
    let (_, m) = compile(&ir);
    let n = 64;
    let mem = Memory::new();
    let ob = mem.alloc(n * 5 * 4);
    run(&m, "shuffle", geo([1, 1, 1], [n as u32, 1, 1]), &[ob], &mem).unwrap();
    let got = download(&mem, ob, n * 5, 4);
    let val = |t: usize| (t * 3 + 1) as u64;
    for t in 0..n {
        let l = t % 32;
        let w = t - l;
        assert_eq!(got[t * 5], if l < 31 { val(t + 1) } else { val(t) }, "down t={t}");
        assert_eq!(got[t * 5 + 1], if l >= 2 { val(t - 2) } else { val(t) }, "up t={t}");
        assert_eq!(got[t * 5 + 2], val(w + (l ^ 5)), "bfly t={t}");
        assert_eq!(got[t * 5 + 3], val(w + 7), "idx t={t}");
        assert_eq!(got[t * 5 + 4], l as u64, "laneid t={t}");
    }
}

#[test]
fn atomics_and_vector_accesses() {
    let mut b = KernelBuilder::new("atoms");
    let counter = b.global_pointer("counter");
    let fsum = b.global_pointer("fsum");
    let src = b.global_pointer("src");
    let dst = b.global_pointer("dst");
    let exch = b.global_pointer("exch");
    let gid = global_index_x(&mut b);
    let old = b.atom_add::<U32>(counter, 1u32);
    let fv = b.cast::<F32, U32>(gid);
    b.atom_add::<F32>(fsum, fv);
    let c64 = b.add(counter, 8u64);
    let c64 = b.to_reg(c64);
    b.atom_add::<U64>(c64, 1u64 << 33);
    // CAS loop-free: only the thread that sees 0 installs gid+1.
    let c2 = b.add(counter, 16u64);
    let c2 = b.to_reg(c2);
    let g1 = b.add(gid, 1u32);
    b.atom_cas::<U32>(c2, 0u32, g1);
    let e = b.element_address::<U32>(exch, gid);
    let prev = b.atom_exch::<U32>(e, old);
    let four = b.mul(gid, 4u32);
    let sa = b.element_address::<F32>(src, four);
    let da = b.element_address::<F32>(dst, four);
    let v = b.ld_global_v4::<F32>(sa, 0);
    let rev = [v[3], v[2], v[1], v[0]];
    b.st_global_vec::<F32>(da, 0, &rev);
    let v2 = b.ld_global_v2::<U32>(sa, 8);
    let _ = (prev, v2);
    let ir = b.finish();
    let (_, m) = compile(&ir);
    let n = 256usize;
    let mem = Memory::new();
    let cb = mem.alloc(24);
    let fb = mem.alloc(4);
    let srcv: Vec<u64> = (0..4 * n as u64).map(|i| (i as f32 * 0.5).to_bits() as u64).collect();
    let sb = upload(&mem, &srcv, 4);
    let db = mem.alloc(16 * n);
    let eb = upload(&mem, &vec![7; n + 1], 4);
    let stats =
        launch(kernel(&m, "atoms"), &geo([4, 1, 1], [64, 1, 1]), &[cb, fb, sb, db, eb], &mem, 4).unwrap();
    assert_eq!(stats.threads, 256);
    let c = download(&mem, cb, 6, 4);
    assert_eq!(c[0], n as u64, "atom.add.u32 counts every thread");
    assert_eq!(c[2] | c[3] << 32, (n as u64) << 33, "atom.add.u64");
    assert!(c[4] >= 1 && c[4] <= n as u64, "one cas winner");
    let f = f32::from_bits(download(&mem, fb, 1, 4)[0] as u32);
    assert_eq!(f, (0..n).sum::<usize>() as f32, "exact integer sums");
    let d = download(&mem, db, 4 * n, 4);
    for i in 0..n {
        for k in 0..4 {
            assert_eq!(d[4 * i + k], srcv[4 * i + 3 - k]);
        }
    }
    let mut olds = download(&mem, eb, n, 4);
    olds.sort();
    assert_eq!(olds, (0..n as u64).collect::<Vec<_>>(), "exch stored each old counter value");
}

fn copy_kernel() -> (String, Module) {
    let mut b = KernelBuilder::new("copy");
    let x = b.global_pointer("x");
    let y = b.global_pointer("y");
    let n = b.param::<U32>("n");
    let n = b.load_param(n);
    let gid = global_index_x(&mut b);
    let out = b.label();
    let oob = b.setp(Cmp::Ge, gid, n);
    b.bra_if(oob, out);
    let xa = b.element_address::<F32>(x, gid);
    let v = b.ld_global::<F32>(xa, 0);
    let ya = b.element_address::<F32>(y, gid);
    b.st_global::<F32>(ya, 0, v);
    b.place(out);
    b.ret();
    compile(&b.finish())
}

#[test]
fn out_of_bounds_load_faults() {
    let (_, m) = copy_kernel();
    let mem = Memory::new();
    let x = mem.alloc(100 * 4);
    let y = mem.alloc(200 * 4);
    // n = 101: thread 100 reads one element past the end of x.
    let err = run(&m, "copy", geo([2, 1, 1], [64, 1, 1]), &[x, y, 101], &mem).unwrap_err();
    match &err {
        SimError::Fault { kernel, block, thread, address, instruction, .. } => {
            assert_eq!(kernel, "copy");
            assert_eq!(*block, [1, 0, 0]);
            assert_eq!(*thread, [36, 0, 0]);
            assert_eq!(*address, x + 400);
            assert!(instruction.starts_with("ld.global.f32"), "{instruction}");
        }
        other => panic!("expected a fault, got {other}"),
    }
    assert!(err.to_string().contains("copy"));
    // A misaligned address faults too, and a freed buffer is no longer mapped.
    assert!(run(&m, "copy", geo([1, 1, 1], [1, 1, 1]), &[x + 2, y, 1], &mem).is_err());
    mem.free(x).unwrap();
    assert!(matches!(
        run(&m, "copy", geo([1, 1, 1], [1, 1, 1]), &[x, y, 1], &mem),
        Err(SimError::Fault { .. })
    ));
    // In bounds it works.
    let x = upload(&mem, &(0..100).map(|i| (i as f32).to_bits() as u64).collect::<Vec<_>>(), 4);
    run(&m, "copy", geo([2, 1, 1], [64, 1, 1]), &[x, y, 100], &mem).unwrap();
    assert_eq!(download(&mem, y, 100, 4)[99], (99.0f32).to_bits() as u64);
}

#[test]
fn bad_params_and_geometry() {
    let (_, m) = copy_kernel();
    let k = kernel(&m, "copy");
    assert_eq!(k.params().len(), 3);
    assert_eq!(k.params()[2].name, "n");
    assert_eq!(k.params()[2].ty, ptx_core::PtxType::U32);
    let mem = Memory::new();
    let x = mem.alloc(16);
    let e = run(&m, "copy", geo([1, 1, 1], [1, 1, 1]), &[x, x], &mem).unwrap_err();
    assert!(matches!(e, SimError::BadParams { .. }), "{e}");
    let e = run(&m, "copy", geo([1, 1, 1], [1, 1, 1]), &[x, x, 1 << 40], &mem).unwrap_err();
    assert!(matches!(e, SimError::BadParams { .. }), "{e}");
    let e = run(&m, "copy", geo([1, 1, 1], [2048, 1, 1]), &[x, x, 1], &mem).unwrap_err();
    assert!(matches!(e, SimError::BadParams { .. }), "{e}");
    let e = run(&m, "copy", geo([0, 1, 1], [1, 1, 1]), &[x, x, 1], &mem).unwrap_err();
    assert!(matches!(e, SimError::BadParams { .. }), "{e}");
}

#[test]
fn exited_threads_do_not_hold_up_a_barrier() {
    // The PTX ISA's `exit`: where the threads that exited are all a barrier for the whole
    // block waits for, it is released. Threads 0..16 return; the others store their index to
    // shared memory, meet at the barrier and read their neighbour's (CUDA C's
    // `if (i >= n) return; .. __syncthreads();`, common in real code).
    let body = " setp.lt.u32 %p1, %r1, 16;\n @%p1 bra DONE;\n mov.u32 %r2, s;\n shl.b32 %r3, %r1, 2;\n \
                add.u32 %r4, %r2, %r3;\n st.shared.u32 [%r4], %r1;\n bar.sync 0;\n \
                add.u32 %r5, %r1, 1;\n rem.u32 %r5, %r5, 64;\n max.u32 %r5, %r5, 16;\n shl.b32 %r6, %r5, 2;\n \
                add.u32 %r7, %r2, %r6;\n ld.shared.u32 %r8, [%r7];\n st.global.u32 [%rd3], %r8;\nDONE:";
    let got = common::run_words(
        ".version 8.0\n.target sm_80\n.address_size 64\n",
        ".shared .align 4 .b8 s[256];\n",
        body,
        64,
    );
    let want: Vec<u32> = (0..64).map(|t| if t < 16 { 0 } else { ((t + 1) % 64).max(16) }).collect();
    assert_eq!(got, Ok(want));
}

#[test]
fn barrier_deadlock_is_an_error() {
    // Threads 0..16 wait at barrier 1, the others at barrier 0: neither is ever complete.
    let body =
        " setp.lt.u32 %p1, %r1, 16;\n @%p1 bra LOW;\n bar.sync 0;\n bra.uni DONE;\nLOW:\n bar.sync 1;\nDONE:";
    let e = common::run_words(".version 8.0\n.target sm_80\n.address_size 64\n", "", body, 64).unwrap_err();
    assert!(e.contains("48 thread(s) wait at `bar.sync 0`"), "{e}");
    assert!(e.contains("16 thread(s) wait at `bar.sync 1`"), "{e}");
    assert!(e.contains("can never all meet"), "{e}");
}

#[test]
fn threads_at_two_instructions_of_one_barrier_are_an_error() {
    // Threads 0..16 wait at one `bar.sync 0`, the others at another: an aligned barrier
    // reached through different instructions, undefined in the PTX ISA.
    let mut b = KernelBuilder::new("deadlock");
    let tid = b.special(SpecialReg::TidX);
    let other = b.label();
    let big = b.setp(Cmp::Ge, tid, 16u32);
    b.bra_if(big, other);
    b.bar_sync();
    b.ret();
    b.place(other);
    b.bar_sync();
    b.bar_sync();
    b.ret();
    let (_, m) = compile(&b.finish());
    let mem = Memory::new();
    let e = run(&m, "deadlock", geo([1, 1, 1], [64, 1, 1]), &[], &mem).unwrap_err();
    match &e {
        SimError::Barrier { kernel, message } => {
            assert_eq!(kernel, "deadlock");
            assert!(message.contains("48 thread(s) (first: thread (16, 0, 0))"), "{message}");
            assert!(message.contains("16 thread(s) (first: thread (0, 0, 0))"), "{message}");
        }
        other => panic!("expected a barrier error, got {other}"),
    }
    // With every thread on one path it completes.
    run(&m, "deadlock", geo([1, 1, 1], [16, 1, 1]), &[], &mem).unwrap();
}

#[test]
fn unknown_opcode_and_directive_are_unsupported() {
    let (ptx, _) = copy_kernel();
    let bad = ptx.replacen("\tret;", "\ttex.2d.v4.f32.f32 %f0, [%rd1];\n\tret;", 1);
    let line = bad.lines().position(|l| l.contains("tex.2d")).unwrap() + 1;
    match Module::parse(&bad) {
        Err(SimError::Unsupported { line: l, what }) => {
            assert_eq!(l, line);
            assert!(what.contains("tex.2d.v4.f32.f32"), "{what}");
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
    // (`.alias`, the directive this used to try, is read now: `tests/round24.rs`.)
    let bad = ptx.replacen(".address_size 64", ".address_size 64\n.frobnicate copy2, copy;", 1);
    match Module::parse(&bad) {
        Err(SimError::Unsupported { what, .. }) => {
            assert!(what.contains("`.frobnicate copy2, copy;`"), "{what}")
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
    // An `.extern` variable the kernel does not name leaves it as it is.
    let unused = ptx.replacen(".address_size 64", ".address_size 64\n.extern .global .u32 g;", 1);
    assert!(Module::parse(&unused).is_ok_and(|m| m.unsupported("copy").is_none()));
    let bad = ptx.replacen("cvta.to.global.u64", "cvta.to.const.u64", 1);
    assert!(matches!(Module::parse(&bad), Err(SimError::Unsupported { .. })));
    let bad = ptx.replacen("\tret;", "\tret", 1);
    assert!(matches!(Module::parse(&bad), Err(SimError::Parse { .. })));
    let m = Module::parse(&ptx).unwrap();
    assert_eq!(m.kernel_names().collect::<Vec<_>>(), ["copy"]);
    assert!(m.kernel("nope").is_none());
}
