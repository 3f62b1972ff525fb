//! PTX the suite had not seen, from a seventh adversarial round (2026-12-07): instructions
//! of real sm_80/sm_90 kernels, each file assembled by `ptxas -arch=sm_90` first. Each test
//! asserts what the PTX ISA says and failed on the simulator before its fix.

mod common;

use ptx_sim::{launch, Geometry, Memory, Module};

const HDR: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// Runs `k(out)` with `body` after the common prologue on one block of `threads`
/// ([`common::run_words`], sm_90).
fn run(body: &str, threads: u32) -> Result<Vec<u32>, String> {
    common::run_words(HDR, "", body, threads)
}

#[test]
fn activemask_in_each_arm_of_a_branch_is_that_arms_lanes() {
    // The arms of a divergent branch run apart: `activemask` in each gives its own lanes.
    // The simulator let the two `activemask` instructions meet as one collective (as
    // `vote.sync` in two arms does) and gave every lane 0xffffffff.
    let body = " and.b32 %r5, %r1, 1; setp.eq.u32 %p1, %r5, 1;\n @%p1 bra ODD;\n \
                activemask.b32 %r3;\n bra.uni OUT;\nODD:\n activemask.b32 %r3;\nOUT:\n \
                st.global.u32 [%rd3], %r3;";
    let want: Vec<u32> = (0..32).map(|t| if t % 2 == 1 { 0xaaaa_aaaa } else { 0x5555_5555 }).collect();
    assert_eq!(run(body, 32), Ok(want));
}

#[test]
fn cluster_special_registers_leave_out_only_their_kernel() {
    // sm_90's cluster registers were "malformed register" parse errors that took the whole
    // module down; like `%envreg`, each is an unsupported construct of its kernel.
    for reg in [
        "%clusterid.x",
        "%nclusterid.y",
        "%cluster_ctaid.z",
        "%cluster_nctaid.x",
        "%cluster_ctarank",
        "%cluster_nctarank",
        "%is_explicit_cluster",
    ] {
        let ptx = format!(
            "{HDR}.visible .entry uses(.param .u64 out)\n{{\n .reg .b32 %r<2>; .reg .pred %p<2>;\n \
             mov.u32 %r1, {reg};\n ret;\n}}\n\
             .visible .entry other(.param .u64 out)\n{{\n ret;\n}}\n"
        );
        let m = Module::parse(&ptx).unwrap_or_else(|e| panic!("{reg}: {e}"));
        assert!(m.kernel("other").is_some(), "{reg}");
        let e = m.unsupported("uses").map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains(reg) && e.contains("line 7"), "{reg}: {e}");
    }
}

#[test]
fn scalar_relu_and_round_to_zero_half_conversions() {
    // `cvt.rn.relu.f16.f32` / `.bf16` (sm_80) and `cvt.rz{.relu}.f16x2.f32` were refused;
    // `.relu` makes a negative value +0 and keeps NaN a NaN.
    let body = " .reg .f32 %f<4>; .reg .b16 %h<4>;\n \
                mov.b32 %f1, 0fbfc00000; cvt.rn.relu.f16.f32 %h1, %f1; cvt.u32.u16 %r2, %h1; st.global.u32 [%rd1], %r2;\n \
                mov.b32 %f2, 0f3fc00000; cvt.rn.relu.bf16.f32 %h2, %f2; cvt.u32.u16 %r3, %h2; st.global.u32 [%rd1+4], %r3;\n \
                mov.b32 %f3, 0f7fc00000; cvt.rz.relu.f16.f32 %h3, %f3; cvt.u32.u16 %r4, %h3; st.global.u32 [%rd1+8], %r4;\n \
                mov.b32 %f1, 0f3f800fff; mov.b32 %f2, 0fc77ff000; cvt.rz.f16x2.f32 %r5, %f1, %f2; st.global.u32 [%rd1+12], %r5;\n \
                cvt.rz.relu.bf16x2.f32 %r6, %f1, %f2; st.global.u32 [%rd1+16], %r6;\n \
                mov.b32 %f1, 0f3f80ffff; cvt.rn.relu.f16.f32 %h1, %f1; cvt.u32.u16 %r7, %h1; st.global.u32 [%rd1+20], %r7;";
    let got = run(body, 6);
    // -1.5 -> +0; 1.5 in bf16 0x3fc0; NaN -> canonical 0x7fff; 1.00049 toward zero 0x3c00
    // beside -65520 toward zero (-65504, 0xfbff); bf16 1.00049 -> 0x3f80 beside +0;
    // 1.0078 to nearest f16: 0x3c08.
    assert_eq!(got, Ok(vec![0, 0x3fc0, 0x7fff, 0x3c00_fbff, 0x3f80_0000, 0x3c08]));
}

#[test]
fn programmatic_dependent_launch_controls_run() {
    // sm_90 kernels built for programmatic dependent launch (CUTLASS, Triton's `launch_pdl`)
    // begin with `griddepcontrol.wait` and may signal `griddepcontrol.launch_dependents`;
    // launches here run one after another, so both have nothing to do. They were refused.
    let body = " griddepcontrol.wait;\n add.u32 %r2, %r1, 1;\n griddepcontrol.launch_dependents;\n \
                st.global.u32 [%rd3], %r2;";
    assert_eq!(run(body, 4), Ok(vec![1, 2, 3, 4]));
}

#[test]
fn vector_atomics_of_sm_90() {
    // `red.global.add.v4.f32`, `atom.global.v2.f32.add` and the 16-bit float vectors
    // (PTX 8.1, sm_90): each element added atomically. They were refused.
    let body = " .reg .f32 %f<8>; .reg .b16 %h<8>;\n \
                mov.f32 %f1, 0f3f800000; st.global.v4.f32 [%rd1], {%f1, %f1, %f1, %f1};\n \
                mov.f32 %f2, 0f40000000; mov.f32 %f3, 0f40400000;\n \
                red.global.add.v4.f32 [%rd1], {%f2, %f3, %f2, %f3};\n \
                st.global.v2.f32 [%rd1+16], {%f1, %f1};\n \
                atom.global.v2.f32.add {%f6, %f7}, [%rd1+16], {%f2, %f3};\n \
                st.global.v2.f32 [%rd1+24], {%f6, %f7};\n \
                mov.b32 %r2, 0x3c003c00; st.global.v2.u32 [%rd1+32], {%r2, %r2};\n \
                red.global.v2.f16x2.add.noftz [%rd1+32], {%r2, %r2};\n \
                mov.b16 %h1, 0x3f80; mov.b16 %h2, 0x4000; st.global.v4.b16 [%rd1+40], {%h1, %h1, %h1, %h1};\n \
                atom.global.add.noftz.v4.bf16 {%h3, %h4, %h5, %h6}, [%rd1+40], {%h1, %h2, %h1, %h2};";
    let ptx = format!(
        ".version 8.1\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n \
         .reg .b32 %r<4>; .reg .b64 %rd<4>;\n ld.param.u64 %rd1, [out];\n{body}\n ret;\n}}\n"
    );
    let m = Module::parse(&ptx).unwrap();
    let k = m.kernel("k").unwrap_or_else(|| panic!("{:?}", m.unsupported("k").map(|e| e.to_string())));
    let mem = Memory::new();
    let out = mem.alloc(48);
    let g = Geometry { grid: [1, 1, 1], block: [1, 1, 1], dynamic_shared_bytes: 0 };
    launch(k, &g, &[out], &mem, 1).unwrap();
    let mut b = [0u8; 48];
    mem.read(out, &mut b).unwrap();
    let words: Vec<u32> = b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let (one, three, four) = (1f32.to_bits(), 3f32.to_bits(), 4f32.to_bits());
    assert_eq!(
        words,
        [three, four, three, four, three, four, one, one, 0x4000_4000, 0x4000_4000, 0x4040_4000, 0x4040_4000]
    );
}

#[test]
fn gridid_read_into_32_bits() {
    // ptxas takes `mov.u32 %r, %gridid` (32 bits wide before PTX 3.0); the simulator
    // refused it as a 64-bit register in a 32-bit move.
    assert_eq!(run(" mov.u32 %r2, 7; mov.u32 %r2, %gridid; st.global.u32 [%rd3], %r2;", 2), Ok(vec![0, 0]));
}

#[test]
fn half_approximations_are_refused_by_instruction() {
    // `tanh.approx.f16x2` was refused as "type `.f16x2`", as if packed halves did not run.
    for op in ["tanh.approx.f16x2 %r2, %r1;", "ex2.approx.f16x2 %r2, %r1;", "tanh.approx.bf16x2 %r2, %r1;"] {
        let e = run(&format!(" {op}\n st.global.u32 [%rd3], %r2;"), 1).unwrap_err();
        let name = op.split(' ').next().unwrap();
        assert!(e.contains(&format!("`{name}`")) && e.contains("line 10"), "{e}");
    }
}

#[test]
fn activemask_after_a_branch_sees_the_reconverged_warp() {
    // The low half shuffles twice in its arm, the high half once; after the branch the warp
    // is whole again (`cg::coalesced_threads().size()` is 32 on a GPU). The high half reached
    // `activemask` while the low half still waited at its second shuffle, and got 0xffff0000.
    let body = " setp.lt.u32 %p1, %r1, 16; @!%p1 bra HIGH;\n \
                shfl.sync.bfly.b32 %r4, %r1, 1, 0x1f, 0x0000ffff;\n \
                shfl.sync.bfly.b32 %r4, %r4, 2, 0x1f, 0x0000ffff;\n bra.uni JOIN;\nHIGH:\n \
                shfl.sync.bfly.b32 %r4, %r1, 1, 0x1f, 0xffff0000;\nJOIN:\n \
                activemask.b32 %r3;\n st.global.u32 [%rd3], %r3;";
    assert_eq!(run(body, 32), Ok(vec![u32::MAX; 32]));
}

#[test]
fn a_grid_of_partial_clusters_is_a_bad_launch() {
    // `__cluster_dims__(2, 1, 1)` (`.reqnctapercluster 2, 1, 1`): CUDA refuses a grid that is
    // not made of whole clusters; the simulator ran three blocks.
    let ptx = format!(
        "{HDR}.visible .entry k(.param .u64 out)\n.explicitcluster\n.reqnctapercluster 2, 1, 1\n{{\n \
         .reg .b32 %r<4>; .reg .b64 %rd<4>;\n ld.param.u64 %rd1, [out];\n mov.u32 %r1, %ctaid.x;\n \
         mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], 7;\n ret;\n}}\n"
    );
    let m = Module::parse(&ptx).unwrap();
    let k = m.kernel("k").unwrap();
    let mem = Memory::new();
    let out = mem.alloc(16);
    let launch_grid = |x: u32| {
        let g = Geometry { grid: [x, 1, 1], block: [1, 1, 1], dynamic_shared_bytes: 0 };
        launch(k, &g, &[out], &mem, 1).map(|_| ()).map_err(|e| e.to_string())
    };
    let e = launch_grid(3).unwrap_err();
    assert!(e.contains(".reqnctapercluster") && e.contains("[3, 1, 1]"), "{e}");
    assert_eq!(launch_grid(4), Ok(()));
}

#[test]
fn activemask_waits_for_lanes_still_in_a_loop() {
    // Lanes 0-7 run the loop twice (i = tid, tid + 32 < 40); the others leave it and reach the
    // `activemask` of an `if`/`else` after it, where on a GPU they wait for lanes 0-7 to
    // reconverge. The simulator gave them the masks of lanes 8-31 only (0x55555500 with the
    // low lanes missing).
    let body = " mov.u32 %r5, %r1; mov.u32 %r6, 0;\nLOOP:\n activemask.b32 %r3; popc.b32 %r4, %r3; \
                add.u32 %r6, %r6, %r4;\n add.u32 %r5, %r5, 32; setp.lt.u32 %p1, %r5, 40; @%p1 bra LOOP;\n \
                and.b32 %r7, %r1, 1; setp.eq.u32 %p2, %r7, 1; @%p2 bra ODD;\n activemask.b32 %r8; \
                bra.uni OUT;\nODD:\n activemask.b32 %r8;\nOUT:\n and.b32 %r8, %r8, 0xffffff00; \
                or.b32 %r8, %r8, %r6; st.global.u32 [%rd3], %r8;";
    let want: Vec<u32> = (0..32)
        .map(|t| (if t % 2 == 1 { 0xaaaa_aa00 } else { 0x5555_5500 }) | if t < 8 { 40 } else { 32 })
        .collect();
    assert_eq!(run(body, 32), Ok(want));
}
