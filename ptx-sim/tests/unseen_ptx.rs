//! PTX the suite had not seen, from an adversarial round (2026-12-06): valid PTX (each
//! accepted by `ptxas -arch=sm_80`) that the simulator rejected or misread, and invalid PTX
//! it ran. Each test asserts what the PTX ISA says; each failed on the simulator before.

mod common;

use ptx_sim::{launch, Geometry, Memory, Module};

const HDR: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// Runs `k(out)` with `body` after the common prologue, `decl` at module scope, on one
/// block of `threads` ([`common::run_words`], sm_80).
fn run(body: &str, decl: &str, threads: u32) -> Result<Vec<u32>, String> {
    common::run_words(HDR, &format!("{decl}\n"), body, threads)
}

#[test]
fn inline_asm_register_named_like_a_modifier() {
    // `{ .reg .b32 lo; mul.lo.u32 lo, ... }`: the scope renamer rewrote `mul.lo` to `mul.zya_lo`.
    let got = run(" { .reg .b32 lo; mul.lo.u32 lo, %r1, 3; st.global.u32 [%rd3], lo; }", "", 4);
    assert_eq!(got, Ok(vec![0, 3, 6, 9]));
    // `x` vs `%tid.x`.
    let got = run(" { .reg .b32 x; mov.u32 x, %tid.x; st.global.u32 [%rd3], x; }", "", 4);
    assert_eq!(got, Ok(vec![0, 1, 2, 3]));
}

#[test]
fn label_and_statement_on_one_line() {
    let got = run(" mov.u32 %r2, 3;\nL1: add.u32 %r2, %r2, 1;\n st.global.u32 [%rd3], %r2;", "", 1);
    assert_eq!(got, Ok(vec![4]));
}

#[test]
fn nested_scopes_on_one_line() {
    let got =
        run(" {.reg .b32 t; {.reg .b32 u; popc.b32 u, 7; mov.b32 t, u;} st.global.u32 [%rd3], t;}", "", 1);
    assert_eq!(got, Ok(vec![3]));
}

#[test]
fn unsigned_comparison_operators_lo_ls_hi_hs() {
    let got = run(" setp.lo.u32 %p1, %r1, 2; selp.u32 %r2, 1, 0, %p1; st.global.u32 [%rd3], %r2;", "", 4);
    assert_eq!(got, Ok(vec![1, 1, 0, 0]));
}

#[test]
fn warp_syncs_at_different_instructions_meet_on_sm_70() {
    // PTX ISA: shfl.sync / vote.sync / bar.warp.sync wait for the non-exited threads of
    // membermask to execute *a* shfl.sync (vote.sync, ...) with the same qualifiers and mask;
    // only sm_6x requires the same instruction.
    let body = " and.b32 %r5, %r1, 1; setp.eq.u32 %p1, %r5, 1;\n @!%p1 bra OTHER;\n \
                vote.sync.ballot.b32 %r3, %p1, 0xffffffff;\n bra.uni OUT;\nOTHER:\n \
                vote.sync.ballot.b32 %r3, %p1, 0xffffffff;\nOUT:\n st.global.u32 [%rd3], %r3;";
    assert_eq!(run(body, "", 32), Ok(vec![0xaaaa_aaaa; 32]));
    let body = " and.b32 %r5, %r1, 1; setp.eq.u32 %p1, %r5, 1;\n @!%p1 bra OTHER;\n \
                bar.warp.sync 0xffffffff;\n bra.uni OUT;\nOTHER:\n bar.warp.sync 0xffffffff;\nOUT:\n \
                st.global.u32 [%rd3], 1;";
    assert_eq!(run(body, "", 32), Ok(vec![1; 32]));
}

#[test]
fn shfl_by_a_lane_outside_its_membermask_is_an_error() {
    // PTX ISA: undefined if the executing thread is not in membermask.
    let got = run(" shfl.sync.idx.b32 %r3, %r1, 0, 0x1f, 0x0000000f;\n st.global.u32 [%rd3], %r3;", "", 32);
    assert!(got.is_err(), "{got:?}");
}

#[test]
fn byte_loads_into_64_bit_registers() {
    // ptxas accepts `ld.global.u8 %rd, [..]` (zero-extended to the register).
    let got = run(" st.global.u32 [%rd1], 0x1ff; ld.global.u8 %rd5, [%rd1]; cvt.u32.u64 %r5, %rd5; st.global.u32 [%rd1], %r5;", "", 1);
    assert_eq!(got, Ok(vec![0xff]));
}

#[test]
fn invalid_operand_sizes_are_rejected() {
    // ptxas: "Arguments mismatch"; the simulator truncated silently.
    for body in [
        " mov.u32 %r5, 0x10000; mul.wide.u32 %r6, %r5, %r5; st.global.u32 [%rd1], %r6;",
        " mov.u64 %rd5, 0x100000005; mov.u32 %r6, %rd5;",
        " ld.global.u64 %r6, [%rd1];",
        " cvt.u64.u32 %r6, %r1;",
    ] {
        assert!(run(body, "", 1).is_err(), "{body}");
    }
    // ptxas: "State space incorrect for instruction 'st'"; the simulator wrote the constant.
    assert!(run(" st.const.u32 [cst], 5;", ".const .align 4 .u32 cst = 1;", 1).is_err());
}

#[test]
fn layouts_compilers_and_people_write() {
    // A scope's closing brace after a statement, a guard apart from its predicate, a label
    // with its statement: one line each.
    let got = run(
        " setp.eq.u32 %p1, %r1, 1;\n @ %p1 mov.u32 %r1, 7; @! %p1 add.u32 %r1, %r1, 10;\n \
                   { .reg .b32 t; mov.u32 t, %r1; st.global.u32 [%rd3], t;}",
        "",
        3,
    );
    assert_eq!(got, Ok(vec![10, 7, 12]));
}

#[test]
fn float_to_same_float_conversions() {
    // `cvt.f32.f32` copies, `.ftz` flushes a subnormal to zero of its sign, `.sat` clamps.
    let body = " mov.b32 %r2, 0x80000001; cvt.f32.f32 %r3, %r2; cvt.ftz.f32.f32 %r4, %r2;\n \
                mov.b32 %r5, 0x40000000; cvt.sat.f32.f32 %r6, %r5;\n \
                setp.eq.u32 %p1, %r1, 0; setp.eq.u32 %p2, %r1, 1;\n \
                selp.b32 %r7, %r3, %r4, %p1; selp.b32 %r7, %r7, %r6, %p2;\n st.global.u32 [%rd3], %r7;";
    // Thread 0 the copy, 1 the flushed value, 2 the clamp (thread 2 takes `%r6`).
    let body =
        body.replace("selp.b32 %r7, %r7, %r6, %p2;", "setp.eq.u32 %p3, %r1, 2; selp.b32 %r7, %r6, %r7, %p3;");
    assert_eq!(run(&body, "", 3), Ok(vec![0x8000_0001, 0x8000_0000, 0x3f80_0000]));
}

#[test]
fn acquire_loads_and_release_stores_with_a_scope() {
    let got = run(
        " st.release.gpu.global.u32 [%rd3], %r1; ld.acquire.gpu.global.u32 %r2, [%rd3];\n \
                   add.u32 %r2, %r2, 5; st.relaxed.sys.global.u32 [%rd3], %r2;",
        "",
        2,
    );
    assert_eq!(got, Ok(vec![5, 6]));
}

#[test]
fn vector_load_lanes_dropped_with_an_underscore() {
    // Two threads: `out` holds the two words; each thread does the same.
    let got = run(
        " st.global.v2.u32 [%rd1], {7, 9}; ld.global.v2.u32 {_, %r4}, [%rd1]; st.global.u32 [%rd1], %r4;",
        "",
        2,
    );
    assert_eq!(got, Ok(vec![9, 9]));
}

#[test]
fn address_spaces_of_generic_addresses() {
    // Thread 0 asks of a global address, thread 1 of a shared one, thread 2 of a local one:
    // bits 0, 1, 2 for isspacep.global, .shared, .local.
    let body = " mov.u64 %rd5, %rd1; setp.eq.u32 %p1, %r1, 1; setp.eq.u32 %p2, %r1, 2;\n \
                mov.u64 %rd6, buf; cvta.shared.u64 %rd6, %rd6; @%p1 mov.u64 %rd5, %rd6;\n \
                mov.u64 %rd7, loc; cvta.local.u64 %rd7, %rd7; @%p2 mov.u64 %rd5, %rd7;\n \
                isspacep.global %p3, %rd5; isspacep.shared %p4, %rd5; isspacep.local %p5, %rd5;\n \
                selp.u32 %r4, 1, 0, %p3; selp.u32 %r5, 2, 0, %p4; selp.u32 %r6, 4, 0, %p5;\n \
                or.b32 %r4, %r4, %r5; or.b32 %r4, %r4, %r6; st.global.u32 [%rd3], %r4;";
    let body = format!(" .shared .align 4 .b8 buf[16]; .local .align 4 .b8 loc[16];\n{body}");
    assert_eq!(run(&body, "", 3), Ok(vec![1, 2, 4]));
}

#[test]
fn barrier_spellings_and_cache_hints() {
    let got = run(
        " prefetch.global.L2 [%rd3]; prefetchu.L1 [%rd3]; bar.cta.sync 0; barrier.cta.sync.aligned 0;\n \
                   st.global.u32 [%rd3], %r1; discard.global.L2 [%rd1], 128;\n \
                   applypriority.global.L2::evict_normal [%rd1], 128;",
        "",
        2,
    );
    // `discard` leaves the line's contents undefined; here they are kept.
    assert_eq!(got, Ok(vec![0, 1]));
}

#[test]
fn a_call_of_a_function_the_module_lacks_says_so() {
    let got = run(" call.uni nofunc, ();", "", 1);
    let err = got.expect_err("a call of an undefined function");
    assert!(err.contains("`nofunc`, which this module does not define"), "{err}");
}

#[test]
fn errors_name_what_the_ptx_does() {
    // A local array larger than a u32 can count; a parameter's address in 32 bits.
    let err = run(" .local .align 4 .b8 big[99999999999];", "", 1).expect_err("too big");
    assert!(err.contains("bad local array size"), "{err}");
    let err = run(" mov.u32 %r5, out;", "", 1).expect_err("a parameter's address in 32 bits");
    assert!(err.contains("`mov.u32` of kernel parameter `out`"), "{err}");
    // In 64 bits it is the address of the thread's copy of the parameter, which `ld.param`
    // reads (`out`'s own value: the address of the output).
    let got = run(" mov.u64 %rd5, out;\n ld.param.u64 %rd6, [%rd5];\n st.global.u32 [%rd6], 7;", "", 1);
    assert_eq!(got, Ok(vec![7]));
}

#[test]
fn unsigned_comparisons_only_of_unsigned_types() {
    // The PTX ISA gives `lo ls hi hs` to unsigned integers alone; ptxas rejects the others.
    for t in ["s32", "b32", "f32"] {
        let body = format!(" setp.lo.{t} %p1, %r1, 2;");
        assert!(run(&body, "", 1).is_err(), "setp.lo.{t}");
    }
}

/// From the fifth adversarial round (2026-12-06, later): device functions with `.reg`
/// parameters and results (passed by value: the callee's change to its parameter stays
/// its own), several results, immediate arguments, and bodies on their header's line.
#[test]
fn register_parameters_several_results_and_one_line_bodies() {
    let decl = ".func (.reg .b32 rv) addr(.reg .b32 a, .reg .b32 b)\n{ add.u32 rv, a, b; add.u32 a, a, 100; ret; }\n\
        .func (.reg .b32 %q, .reg .b32 %m) divmod(.reg .b32 %n, .reg .b32 %d) { div.u32 %q, %n, %d; rem.u32 %m, %n, %d; ret; }\n\
        .func nothing() { ret; }\n";
    let body = " call (%r3), addr, (%r1, %r1);\n call (%r4, %r5), divmod, (17, 5);\n call.uni nothing, ();\n \
        add.u32 %r6, %r3, %r1; mad.lo.u32 %r6, %r4, 1000, %r6; mad.lo.u32 %r6, %r5, 100000, %r6;\n st.global.u32 [%rd3], %r6;";
    // 2t + t (the argument unchanged) + 3 · 1000 + 2 · 100000.
    let want: Vec<u32> = (0..4).map(|t| 3 * t + 203_000).collect();
    assert_eq!(run(body, decl, 4), Ok(want));
}

/// Performance directives on the header's line, several to a line, and the body opening
/// there too.
#[test]
fn directives_and_the_body_on_the_header_line() {
    let ptx = format!(
        "{HDR}.visible .entry k(.param .u64 out) .maxntid 64, 1, 1 .minnctapersm 2 .maxnreg 32 {{ .reg .b64 %rd<2>;\n \
         ld.param.u64 %rd1, [out]; st.global.u32 [%rd1], 7; ret; }}\n\
         .visible .entry r(.param .u64 out) .reqntid 1, 1, 1\n{{ ret; }}\n"
    );
    let m = Module::parse(&ptx).unwrap();
    let mem = Memory::new();
    let out = mem.alloc(4);
    let g = |n| Geometry { grid: [1, 1, 1], block: [n, 1, 1], dynamic_shared_bytes: 0 };
    launch(m.kernel("k").unwrap(), &g(1), &[out], &mem, 1).unwrap();
    let mut b = [0u8; 4];
    mem.read(out, &mut b).unwrap();
    assert_eq!(u32::from_le_bytes(b), 7);
    // The limits are the directives': 65 threads exceed `.maxntid 64`, 2 `.reqntid 1`.
    assert!(launch(m.kernel("k").unwrap(), &g(65), &[out], &mem, 1).is_err());
    assert!(launch(m.kernel("r").unwrap(), &g(2), &[out], &mem, 1).is_err());
}

/// A function the simulator cannot read leaves out only the kernels that call it, each
/// with the function's reason; the module's other kernels load.
#[test]
fn an_unreadable_function_leaves_out_only_its_callers_with_its_reason() {
    let ptx = format!(
        "{HDR}.func bad(.param .b32 x)\n{{\n .reg .b32 %a1<2>;\n ret;\n}}\n\
         .visible .entry caller(.param .u64 out)\n{{\n .param .b32 p;\n st.param.b32 [p+0], 1;\n call.uni bad, (p);\n ret;\n}}\n\
         .visible .entry fine(.param .u64 out)\n{{\n ret;\n}}\n"
    );
    let m = Module::parse(&ptx).unwrap();
    assert!(m.kernel("fine").is_some());
    let why = m.unsupported("caller").expect("caller is left out").to_string();
    assert!(why.contains("%a1"), "{why}");
}

/// `tbl+8`, an address into a module variable as an operand (ptxas accepts it), and the
/// same into a shared array.
#[test]
fn addresses_with_offsets_as_operands() {
    let decl = ".const .align 4 .u32 tbl[4] = {10, 20, 30, 40};";
    let body = " mov.u64 %rd5, tbl+8; ld.const.u32 %r2, [%rd5]; ld.const.u32 %r3, [tbl+12];\n \
        add.u32 %r4, %r2, %r3; st.global.u32 [%rd3], %r4;";
    assert_eq!(run(body, decl, 2), Ok(vec![70, 70]));
    let body = " .shared .align 4 .b8 sh[16];\n mov.u32 %r5, sh+4; st.shared.u32 [%r5], 5; bar.sync 0;\n \
        ld.shared.u32 %r6, [sh+4]; st.global.u32 [%rd3], %r6;";
    assert_eq!(run(body, "", 1), Ok(vec![5]));
}

/// A negated predicate as a source of `and`/`or`/`xor.pred` (ptxas accepts `!%p2` there).
#[test]
fn negated_predicate_sources_of_logic_operations() {
    let body = " setp.ne.u32 %p1, %r1, 0; setp.lt.u32 %p2, %r1, 2;\n \
        and.pred %p3, %p1, !%p2; or.pred %p4, !%p1, %p2; xor.pred %p5, !%p1, !%p2;\n \
        selp.u32 %r2, 1, 0, %p3; selp.u32 %r3, 2, 0, %p4; selp.u32 %r4, 4, 0, %p5;\n \
        add.u32 %r5, %r2, %r3; add.u32 %r5, %r5, %r4; st.global.u32 [%rd3], %r5;";
    // t = 0: p1 0, p2 1 → and 0, or 1, xor 1 → 6; t = 1: 1, 1 → 0, 1, 0 → 2; t = 2: 1, 0 → 1, 0, 1 → 5.
    assert_eq!(run(body, "", 3), Ok(vec![6, 2, 5]));
}

/// The carry flag a subtraction leaves is the GPU adder's carry out (1 when it did not
/// borrow), and `subc` subtracts `1 - CF`: chains mixing additions and subtractions read it
/// so (NVRTC's `__int128` division does; a GPU gives `add.cc 0,0; subc 0,0` = 0xffffffff).
#[test]
fn the_carry_flag_of_a_subtraction_is_the_adders() {
    let body = " add.cc.u32 %r2, 0, 0; subc.u32 %r3, 0, 0;\n \
        sub.cc.u32 %r4, 5, 3; addc.u32 %r5, 0, 0;\n sub.cc.u32 %r6, 3, 5; addc.u32 %r7, 0, 0;\n \
        sub.cc.u32 %r8, 0, 1; subc.u32 %r9, 7, 2;\n \
        xor.b32 %r10, %r3, %r5; shl.b32 %r11, %r7, 1; or.b32 %r10, %r10, %r11; add.u32 %r10, %r10, %r9;\n \
        st.global.u32 [%rd3], %r10;";
    // 0xffffffff ^ 1 = 0xfffffffe; | 0 (3 - 5 borrows: flag 0); + (7 - 2 - 1) = 4: 0x00000002.
    assert_eq!(run(body, "", 1), Ok(vec![0xffff_fffe_u32.wrapping_add(4)]));
}

/// NVRTC's forms of a sixth round: the high word of a 64-bit kernel parameter read at an
/// offset (`[seed+4]`), a `.weak .entry` (an explicitly instantiated template kernel), and
/// `assert` (an `__assertfail` declared over several lines, called on failure: a trap).
#[test]
fn parameter_words_weak_entries_and_assert() {
    let ptx = format!(
        "{HDR}.extern .func __assertfail\n(\n\t.param .b64 __assertfail_param_0,\n\t.param .b32 __assertfail_param_1\n)\n;\n\
         .weak .entry seed_hi(.param .u64 out, .param .u64 seed)\n{{\n .reg .b32 %r<4>; .reg .b64 %rd<3>;\n \
         ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [seed+4]; ld.param.u16 %r2, [seed+2];\n \
         add.u32 %r3, %r1, %r2; st.global.u32 [%rd1], %r3; ret;\n}}\n\
         .visible .entry asserts(.param .u64 out)\n{{\n .param .b64 p0; .param .b32 p1;\n st.param.b64 [p0], 0; st.param.b32 [p1], 7;\n \
         call.uni __assertfail, (p0, p1);\n ret;\n}}\n"
    );
    let m = Module::parse(&ptx).unwrap();
    let mem = Memory::new();
    let out = mem.alloc(4);
    let g = Geometry { grid: [1, 1, 1], block: [1, 1, 1], dynamic_shared_bytes: 0 };
    launch(m.kernel("seed_hi").unwrap(), &g, &[out, 0x1234_5678_9abc_def0], &mem, 1).unwrap();
    let mut b = [0u8; 4];
    mem.read(out, &mut b).unwrap();
    assert_eq!(u32::from_le_bytes(b), 0x1234_5678 + 0x9abc);
    let err = launch(m.kernel("asserts").unwrap(), &g, &[out], &mem, 1).unwrap_err();
    assert!(matches!(err, ptx_sim::SimError::Trap { .. }), "{err}");
    assert!(err.to_string().contains("__assertfail"), "{err}");
}

/// Special registers the simulator does not model (`%envreg2`, which a cooperative
/// launch's grid sync reads) leave out only the kernel that reads them, named as such.
#[test]
fn unmodelled_special_registers_leave_out_only_their_kernel() {
    let ptx = format!(
        "{HDR}.visible .entry grid_sync(.param .u64 out)\n{{\n .reg .b32 %r<2>;\n mov.u32 %r1, %envreg2;\n ret;\n}}\n\
         .visible .entry fine(.param .u64 out)\n{{\n ret;\n}}\n"
    );
    let m = Module::parse(&ptx).unwrap();
    assert!(m.kernel("fine").is_some());
    let why = m.unsupported("grid_sync").expect("left out").to_string();
    assert!(why.contains("special register `%envreg2`"), "{why}");
}

/// A `__device__` table of function addresses (which the simulator cannot lay out) leaves
/// out only the kernels that name it.
#[test]
fn a_table_of_function_addresses_leaves_out_only_its_kernels() {
    let ptx = format!(
        "{HDR}.func (.param .b32 r) sq(.param .b32 x)\n{{\n .reg .b32 %r<3>;\n ld.param.b32 %r1, [x];\n mul.lo.s32 %r2, %r1, %r1;\n st.param.b32 [r], %r2;\n ret;\n}}\n\
         .global .align 8 .u64 table[1] = {{sq}};\n\
         .visible .entry uses_table(.param .u64 out)\n{{\n .reg .b64 %rd<3>;\n mov.u64 %rd1, table;\n ld.param.u64 %rd2, [out];\n st.global.u64 [%rd2], %rd1;\n ret;\n}}\n\
         .visible .entry fine(.param .u64 out)\n{{\n ret;\n}}\n"
    );
    let m = Module::parse(&ptx).unwrap();
    assert!(m.kernel("fine").is_some());
    let why = m.unsupported("uses_table").expect("left out").to_string();
    assert!(why.contains("`sq`") && why.contains("table"), "{why}");
}
