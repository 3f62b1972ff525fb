//! Hand-written PTX in the dialect NVRTC writes, for the edges the corpus kernels may not
//! reach: bit-field and bit-scan instructions at their limits, generic addressing of local
//! and shared memory through `cvta`, `.local` arrays, `vote.sync` any/all/uni, registers
//! scoped to inline-assembly blocks, predicate pairs, `.ftz`/`.sat`/`.NaN`, and the warp
//! collectives `elect`, `match` and `redux` in divergent code.

mod common;

use common::{download, geo, upload};
use ptx_sim::{launch, launch_with, Memory, Module, SimOptions};

fn module_text(body: &str, regs: &str) -> String {
    format!(
        ".version 8.5\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n{regs}\n\tld.param.u64 \t%rd1, [k_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n{body}\n\tret;\n}}\n"
    )
}

fn module(body: &str, regs: &str) -> Module {
    let text = module_text(body, regs);
    Module::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

const REGS: &str = "\t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<16>;\n\t.reg .b64 \t%rd<16>;";

/// Runs one thread and returns the first `n` u64 words it stored.
fn run_one(m: &Module, n: usize) -> Vec<u64> {
    let mem = Memory::new();
    let out = upload(&mem, &vec![0; n], 8);
    launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out], &mem, 1).unwrap();
    download(&mem, out, n, 8)
}

#[test]
fn bit_field_and_scan_instructions_at_their_edges() {
    let m = module(
        "\tmov.b32 \t%r1, 0xf0f0a5c3;\n\
         \tbfe.u32 \t%r2, %r1, 4, 8;\n\tcvt.u64.u32 \t%rd3, %r2;\n\tst.global.u64 \t[%rd2], %rd3;\n\
         \tbfe.s32 \t%r3, %r1, 28, 8;\n\tcvt.u64.u32 \t%rd4, %r3;\n\tst.global.u64 \t[%rd2+8], %rd4;\n\
         \tbfe.u32 \t%r4, %r1, 0, 0;\n\tcvt.u64.u32 \t%rd5, %r4;\n\tst.global.u64 \t[%rd2+16], %rd5;\n\
         \tbfi.b32 \t%r5, 0x7, %r1, 30, 4;\n\tcvt.u64.u32 \t%rd6, %r5;\n\tst.global.u64 \t[%rd2+24], %rd6;\n\
         \tbfind.u32 \t%r6, 0;\n\tcvt.u64.u32 \t%rd7, %r6;\n\tst.global.u64 \t[%rd2+32], %rd7;\n\
         \tbfind.s32 \t%r7, -5;\n\tcvt.u64.u32 \t%rd8, %r7;\n\tst.global.u64 \t[%rd2+40], %rd8;\n\
         \tbfind.shiftamt.u32 \t%r8, 0x00010000;\n\tcvt.u64.u32 \t%rd9, %r8;\n\tst.global.u64 \t[%rd2+48], %rd9;\n\
         \tclz.b32 \t%r9, 0;\n\tcvt.u64.u32 \t%rd10, %r9;\n\tst.global.u64 \t[%rd2+56], %rd10;\n\
         \tmov.b64 \t%rd11, 0x8000000000000001;\n\tbrev.b64 \t%rd12, %rd11;\n\tst.global.u64 \t[%rd2+64], %rd12;\n\
         \tpopc.b64 \t%r10, %rd11;\n\tcvt.u64.u32 \t%rd13, %r10;\n\tst.global.u64 \t[%rd2+72], %rd13;",
        REGS,
    );
    let got = run_one(&m, 10);
    let x = 0xf0f0_a5c3u32;
    // The PTX ISA's definitions, written out: bits 4..12 of x; bits 28..32 then the sign
    // (bit 31) repeated; nothing for length 0; 0x7's low two bits into bits 30..32 (the rest
    // beyond the width is dropped); no bit set; the highest bit differing from the sign of
    // -5 (bit 2); 31 - 16; 32 leading zeros of 0; bit reversal; two bits set.
    let want = [
        ((x >> 4) & 0xff) as u64,
        ((x >> 28) | 0xffff_fff0) as u64,
        0,
        ((x & 0x3fff_ffff) | 0xc000_0000) as u64,
        0xffff_ffff,
        2,
        15,
        32,
        0x8000_0000_0000_0001,
        2,
    ];
    assert_eq!(got, want);
}

#[test]
fn local_and_shared_memory_through_generic_addresses() {
    let m = module(
        "\tmov.u64 \t%SPL, __local_depot0;\n\tcvta.local.u64 \t%SP, %SPL;\n\
         \tmov.u32 \t%r1, 1234;\n\tst.local.u32 \t[%SPL+4], %r1;\n\
         \tld.u32 \t%r2, [%SP+4];\n\tcvt.u64.u32 \t%rd3, %r2;\n\tst.global.u64 \t[%rd2], %rd3;\n\
         \tmov.u32 \t%r3, 77;\n\tst.u32 \t[%SP+8], %r3;\n\
         \tld.local.u32 \t%r4, [__local_depot0+8];\n\tcvt.u64.u32 \t%rd4, %r4;\n\tst.global.u64 \t[%rd2+8], %rd4;\n\
         \tmov.u64 \t%rd5, tile;\n\tcvta.shared.u64 \t%rd6, %rd5;\n\tmov.u32 \t%r5, 99;\n\tst.u32 \t[%rd6+12], %r5;\n\
         \tld.shared.u32 \t%r6, [tile+12];\n\tcvt.u64.u32 \t%rd7, %r6;\n\tst.global.u64 \t[%rd2+16], %rd7;\n\
         \tcvta.to.local.u64 \t%rd8, %SP;\n\tst.global.u64 \t[%rd2+24], %rd8;\n\
         \tld.global.nc.u64 \t%rd9, [%rd2+24];\n\tst.global.u64 \t[%rd2+32], %rd9;",
        &format!(
            "\t.local .align 8 .b8 \t__local_depot0[16];\n\t.shared .align 4 .b8 \ttile[64];\n\t.reg .b64 \t%SP;\n\t.reg .b64 \t%SPL;\n{REGS}"
        ),
    );
    assert_eq!(run_one(&m, 5), [1234, 77, 99, 0, 0]);
}

#[test]
fn votes_over_a_warp() {
    // Lanes below 10 vote true: ballot 0x3ff, any true, all false, uni false; in the second
    // round every lane votes true (`!(tid >= 100)`): all true.
    let text = ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .pred \t%p<8>;\n\t.reg .b32 \t%r<16>;\n\t.reg .b64 \t%rd<8>;\n\tld.param.u64 \t%rd1, [k_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r1, %tid.x;\n\tsetp.lt.u32 \t%p1, %r1, 10;\n\tvote.sync.ballot.b32 \t%r2, %p1, -1;\n\tvote.sync.any.pred \t%p2, %p1, -1;\n\tvote.sync.all.pred \t%p3, %p1, -1;\n\tvote.sync.uni.pred \t%p4, %p1, -1;\n\tsetp.ge.u32 \t%p6, %r1, 100;\n\tvote.sync.all.pred \t%p5, !%p6, -1;\n\tselp.u32 \t%r3, 1, 0, %p2;\n\tselp.u32 \t%r4, 2, 0, %p3;\n\tselp.u32 \t%r5, 4, 0, %p4;\n\tselp.u32 \t%r6, 8, 0, %p5;\n\tor.b32 \t%r7, %r3, %r4;\n\tor.b32 \t%r8, %r7, %r5;\n\tor.b32 \t%r9, %r8, %r6;\n\tmul.wide.u32 \t%rd3, %r1, 8;\n\tadd.s64 \t%rd4, %rd2, %rd3;\n\tst.global.v2.u32 \t[%rd4], {%r2, %r9};\n\tret;\n}\n";
    let m = Module::parse(text).unwrap();
    let mem = Memory::new();
    let out = upload(&mem, &[0; 32], 8);
    launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [32, 1, 1]), &[out], &mem, 1).unwrap();
    for (lane, v) in download(&mem, out, 32, 8).into_iter().enumerate() {
        let (ballot, flags) = (v & 0xffff_ffff, v >> 32);
        assert_eq!(ballot, 0x3ff, "lane {lane}");
        assert_eq!(flags, 1 | 8, "lane {lane}: any, not all, not uni; then all");
    }
}

#[test]
fn module_variables_persist_per_memory() {
    let text = ".version 8.5\n.target sm_80\n.address_size 64\n\
        .global .align 4 .u32 counter = 7;\n\
        .const .align 4 .b8 table[8] = {1, 0, 0, 0, 2, 0, 0, 0};\n\
        .visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b32 \t%r<8>;\n\t.reg .b64 \t%rd<8>;\n\
        \tld.param.u64 \t%rd1, [k_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\
        \tmov.u64 \t%rd3, counter;\n\tatom.global.add.u32 \t%r1, [%rd3], 1;\n\
        \tld.const.u32 \t%r2, [table+4];\n\tadd.s32 \t%r3, %r1, %r2;\n\
        \tmov.u32 \t%r4, %tid.x;\n\tmul.wide.u32 \t%rd4, %r4, 4;\n\tadd.s64 \t%rd5, %rd2, %rd4;\n\
        \tst.global.u32 \t[%rd5], %r3;\n\tret;\n}\n";
    let m = Module::parse(text).unwrap();
    let run = |mem: &Memory| {
        let out = upload(mem, &[0; 4], 4);
        launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [4, 1, 1]), &[out], mem, 1).unwrap();
        let mut got = download(mem, out, 4, 4);
        got.sort();
        got
    };
    let mem = Memory::new();
    // Each thread adds the table's 2 to the counter value it took: 7..10, then 11..14.
    assert_eq!(run(&mem), [9, 10, 11, 12]);
    assert_eq!(run(&mem), [13, 14, 15, 16]);
    // Another memory gets its own copy, initialised afresh.
    assert_eq!(run(&Memory::new()), [9, 10, 11, 12]);
    // Malformed or unsupported declarations are errors naming the line.
    for (decl, what) in [
        (".global .align 4 .u32 a[2] = {1, 2, 3};", "3 initial values"),
        (".global .f32 f = 1.5f;", "initial value `1.5f`"),
    ] {
        let bad = text.replace(
            ".global .align 4 .u32 counter = 7;",
            &format!("{decl}\n.global .align 4 .u32 counter = 7;"),
        );
        let err = Module::parse(&bad).unwrap_err().to_string();
        assert!(err.contains("line 4") && err.contains(what), "{decl}: {err}");
    }
    // A symbol's address as an initial value is valid PTX the simulator does not lay out:
    // only a kernel naming the variable is left out.
    let with_address = text.replace(
        ".global .align 4 .u32 counter = 7;",
        ".global .align 4 .u32 counter = 7;\n.global .u64 p = generic(counter);",
    );
    assert!(Module::parse(&with_address).unwrap().kernel("k").is_some());
    let named = with_address.replace("mov.u64 \t%rd3, counter;", "mov.u64 \t%rd3, p;");
    let m = Module::parse(
        &named.replace(".visible .entry k(", ".visible .entry other()\n{\n\tret;\n}\n.visible .entry k("),
    )
    .unwrap();
    assert!(m.unsupported("k").is_some_and(|e| e.to_string().contains("the address `generic(counter)`")));
}

#[test]
fn red_is_atom_without_the_old_value() {
    let m = module(
        "\tred.global.add.u32 \t[%rd2], 5;\n\tred.relaxed.gpu.global.max.s32 \t[%rd2+4], -3;\n\tred.global.or.b64 \t[%rd2+8], 6;",
        REGS,
    );
    let mem = Memory::new();
    let out = upload(&mem, &[0x0000_0001_0000_0001, 9], 8);
    launch(m.kernel("k").unwrap(), &geo([2, 1, 1], [4, 1, 1]), &[out], &mem, 1).unwrap();
    // Eight threads: 1 + 8·5 in the low word, max(1, -3) in the high word, 9 | 6.
    assert_eq!(download(&mem, out, 2, 8), [(1u64 << 32) | 41, 15]);
    let bad = Module::parse(&module_text("\tred.global.cas.b32 \t[%rd2], 1, 2;", REGS));
    assert!(bad.is_err());
}

#[test]
fn device_functions_nest_and_endless_recursion_traps() {
    // twice(x) = add1(add1(x)) through two levels of calls, with labels and a local branch
    // in the inner function; then a function calling itself.
    let text = ".version 8.5\n.target sm_80\n.address_size 64\n\
        .func (.param .b32 add1_ret) add1(\n\t.param .b32 add1_x\n)\n{\n\t.reg .pred \t%p<2>;\n\t.reg .b32 \t%r<4>;\n\
        \tld.param.b32 \t%r1, [add1_x];\n\tsetp.eq.u32 \t%p1, %r1, 100;\n\t@%p1 bra \t$L_big;\n\tadd.u32 \t%r2, %r1, 1;\n\
        \tst.param.b32 \t[add1_ret+0], %r2;\n\tret;\n$L_big:\n\tst.param.b32 \t[add1_ret+0], 1000;\n\tret;\n}\n\
        .func (.param .b32 twice_ret) twice(\n\t.param .b32 twice_x\n)\n{\n\t.reg .b32 \t%r<4>;\n\
        \tld.param.b32 \t%r1, [twice_x];\n\
        \t{\n\t.param .b32 param0;\n\tst.param.b32 \t[param0+0], %r1;\n\t.param .b32 retval0;\n\tcall.uni (retval0), add1, (param0);\n\tld.param.b32 \t%r2, [retval0+0];\n\t}\n\
        \t{\n\t.param .b32 param0;\n\tst.param.b32 \t[param0+0], %r2;\n\t.param .b32 retval0;\n\tcall.uni (retval0), add1, (param0);\n\tld.param.b32 \t%r3, [retval0+0];\n\t}\n\
        \tst.param.b32 \t[twice_ret+0], %r3;\n\tret;\n}\n\
        .visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b32 \t%r<8>;\n\t.reg .b64 \t%rd<8>;\n\
        \tld.param.u64 \t%rd1, [k_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r1, %tid.x;\n\tmul.lo.u32 \t%r2, %r1, 49;\n\
        \t{\n\t.param .b32 param0;\n\tst.param.b32 \t[param0+0], %r2;\n\t.param .b32 retval0;\n\tcall.uni (retval0), twice, (param0);\n\tld.param.b32 \t%r3, [retval0+0];\n\t}\n\
        \tmul.wide.u32 \t%rd3, %r1, 4;\n\tadd.s64 \t%rd4, %rd2, %rd3;\n\tst.global.u32 \t[%rd4], %r3;\n\tret;\n}\n";
    let m = Module::parse(text).unwrap();
    let mem = Memory::new();
    let out = upload(&mem, &[0; 4], 4);
    launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [4, 1, 1]), &[out], &mem, 1).unwrap();
    // 49·t + 2, except that add1(100) is 1000 (t = 2: 98 → 99 → 100; t = 3 passes 147).
    assert_eq!(download(&mem, out, 4, 4), [2, 51, 100, 149]);

    let recursive = text.replace(
        "call.uni (retval0), add1, (param0);\n\tld.param.b32 \t%r2",
        "call.uni (retval0), twice, (param0);\n\tld.param.b32 \t%r2",
    );
    // `twice` now calls itself with no way out: inlined to its recursion limit, the call
    // beyond it traps when it runs.
    let m = Module::parse(&recursive).unwrap();
    let err =
        launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out], &mem, 1).unwrap_err().to_string();
    assert!(err.contains("kernel `k` trapped") && err.contains("recursion deeper than"), "{err}");
}

#[test]
fn prmt_replicates_sign_bits_and_shf_clamps() {
    let m = module(
        "\tprmt.b32 \t%r1, 0x80402010, 0x01020304, 0xba98;\n\tcvt.u64.u32 \t%rd3, %r1;\n\tst.global.u64 \t[%rd2], %rd3;\n\
         \tprmt.b32 \t%r2, 0x80402010, 0x01020304, 0x7654;\n\tcvt.u64.u32 \t%rd4, %r2;\n\tst.global.u64 \t[%rd2+8], %rd4;\n\
         \tshf.l.clamp.b32 \t%r3, 0x12345678, 0x9abcdef0, 40;\n\tcvt.u64.u32 \t%rd5, %r3;\n\tst.global.u64 \t[%rd2+16], %rd5;\n\
         \tshf.r.wrap.b32 \t%r4, 0x12345678, 0x9abcdef0, 36;\n\tcvt.u64.u32 \t%rd6, %r4;\n\tst.global.u64 \t[%rd2+24], %rd6;",
        REGS,
    );
    // Selector nibbles 8..b: the sign of bytes 0..3 (0x10, 0x20, 0x40 positive, 0x80
    // negative); 4..7: bytes 4..7 of b:a; a left shift clamped at 32 gives a; a right
    // shift wraps 36 to 4.
    assert_eq!(run_one(&m, 4), [0xff00_0000, 0x0102_0304, 0x1234_5678, 0x0123_4567]);
}

#[test]
fn parameter_attributes_as_nvrtc_writes_them() {
    // `__restrict__` pointers come out as `.ptr .global .align N`.
    let text = ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(\n\t.param .u64 .ptr .global .align 4 k_param_0\n)\n{\n\t.reg .b32 \t%r<2>;\n\t.reg .b64 \t%rd<3>;\n\tld.param.u64 \t%rd1, [k_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r1, 5;\n\tst.global.u32 \t[%rd2], %r1;\n\tret;\n}\n";
    let m = Module::parse(text).unwrap();
    let mem = Memory::new();
    let out = upload(&mem, &[0], 4);
    launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out], &mem, 1).unwrap();
    assert_eq!(download(&mem, out, 1, 4), [5]);
    // A `.pred` parameter, invalid PTX (ptxas refuses the module), is refused by name.
    let bad = text.replace(".param .u64 .ptr .global .align 4 k_param_0", ".param .pred k_param_0");
    let err = Module::parse(&bad).unwrap_err().to_string();
    assert!(err.contains("`.pred` parameter is invalid PTX"), "{err}");
}

#[test]
fn testp_classifies_floats_and_nanosleep_runs() {
    // For each input: finite, infinite, number, notanumber, normal, subnormal as bits 0..6.
    let inputs: [(f32, f64); 6] = [
        (1.5, -2.0),
        (f32::INFINITY, f64::NEG_INFINITY),
        (f32::NAN, f64::NAN),
        (f32::from_bits(1), f64::from_bits(3)),
        (0.0, -0.0),
        (f32::MAX, f64::MIN_POSITIVE),
    ];
    let classes = ["finite", "infinite", "number", "notanumber", "normal", "subnormal"];
    let mut body = String::from("\tnanosleep.u32 \t100;\n");
    for (i, (a, b)) in inputs.iter().enumerate() {
        body.push_str(&format!(
            "\tmov.b32 \t%f1, 0x{:08x};\n\tmov.b64 \t%fd1, 0x{:016x};\n",
            a.to_bits(),
            b.to_bits()
        ));
        body.push_str("\tmov.b32 \t%r2, 0;\n\tmov.b32 \t%r3, 0;\n");
        for (bit, class) in classes.iter().enumerate() {
            body.push_str(&format!(
                "\ttestp.{class}.f32 \t%p1, %f1;\n\tselp.b32 \t%r4, {}, 0, %p1;\n\tor.b32 \t%r2, %r2, %r4;\n\
                 \ttestp.{class}.f64 \t%p2, %fd1;\n\tselp.b32 \t%r5, {}, 0, %p2;\n\tor.b32 \t%r3, %r3, %r5;\n",
                1 << bit,
                1 << bit
            ));
        }
        body.push_str(&format!(
            "\tcvt.u64.u32 \t%rd4, %r2;\n\tst.global.u64 \t[%rd2+{}], %rd4;\n\tcvt.u64.u32 \t%rd5, %r3;\n\tst.global.u64 \t[%rd2+{}], %rd5;\n",
            16 * i,
            16 * i + 8
        ));
    }
    let regs = format!("{REGS}\n\t.reg .f32 \t%f<2>;\n\t.reg .f64 \t%fd<2>;");
    let got = run_one(&module(&body, &regs), 12);
    let class_bits = |c: std::num::FpCategory| {
        use std::num::FpCategory::*;
        let finite = !matches!(c, Infinite | Nan);
        [finite, c == Infinite, c != Nan, c == Nan, c == Normal, c == Subnormal]
            .iter()
            .enumerate()
            .fold(0u64, |m, (bit, &on)| m | (on as u64) << bit)
    };
    for (i, (a, b)) in inputs.iter().enumerate() {
        assert_eq!(got[2 * i], class_bits(a.classify()), "f32 {a:e}");
        assert_eq!(got[2 * i + 1], class_bits(b.classify()), "f64 {b:e}");
    }
}

#[test]
fn inline_asm_scopes_keep_their_registers_apart() {
    // Two asm blocks declare the same names; an inner block shadows an outer one's `t`;
    // a one-line block declares and uses its own register.
    let m = module(
        "\t{\n\t.reg .u32 t, u;\n\t.reg .b32 %tmp<2>;\n\tmov.u32 t, 10;\n\tmov.u32 %tmp1, 5;\n\
         \t{\n\t.reg .u32 t;\n\tmov.u32 t, 100;\n\tadd.u32 u, t, %tmp1;\n\t}\n\
         \tadd.u32 %r1, t, u;\n\t}\n\
         \t{\n\t.reg .u32 t;\n\t.reg .b32 %tmp<2>;\n\tmov.u32 t, 7;\n\tmov.u32 %tmp1, 3;\n\tmul.lo.u32 %r2, t, %tmp1;\n\t}\n\
         \t{ .reg .u64 q; mov.u64 q, %rd2; st.global.u32 [q+8], %r2; }\n\
         \tcvt.u64.u32 \t%rd3, %r1;\n\tst.global.u64 \t[%rd2], %rd3;",
        REGS,
    );
    // t + u = 10 + (100 + 5) in the first block; 7 · 3 in the second, stored through `q`.
    assert_eq!(run_one(&m, 2), [115, 21]);
    // A register of a closed scope is out of reach.
    let err =
        Module::parse(&module_text("\t{\n\t.reg .u32 t;\n\tmov.u32 t, 1;\n\t}\n\tmov.u32 %r1, t;", REGS))
            .unwrap_err()
            .to_string();
    assert!(err.contains("`t`"), "{err}");
}

#[test]
fn setp_writes_predicate_pairs_and_combines_with_a_third() {
    // For each (a, b, c): `p|q = (a < b) op c` for op = and, or, xor with c and !c, and the
    // plain pair; the eight predicates packed as bits 0..8 (p then q per form).
    let forms = [
        "setp.lt.s32 \t%p1|%p2, %r1, %r2;",
        "setp.lt.and.s32 \t%p1|%p2, %r1, %r2, %p3;",
        "setp.lt.or.s32 \t%p1|%p2, %r1, %r2, !%p3;",
        "setp.lt.xor.s32 \t%p1|%p2, %r1, %r2, %p3;",
    ];
    let cases: [(i32, i32, bool); 4] = [(-1, 2, true), (-1, 2, false), (5, 2, true), (5, 2, false)];
    let mut body = String::new();
    for (i, (a, b, c)) in cases.iter().enumerate() {
        body.push_str(&format!(
            "\tmov.u32 \t%r1, {a};\n\tmov.u32 \t%r2, {b};\n\tsetp.ne.u32 \t%p3, {}, 0;\n\tmov.u32 \t%r3, 0;\n",
            *c as u32
        ));
        for (k, f) in forms.iter().enumerate() {
            body.push_str(&format!(
                "\t{f}\n\tselp.u32 \t%r4, {}, 0, %p1;\n\tselp.u32 \t%r5, {}, 0, %p2;\n\tor.b32 \t%r3, %r3, %r4;\n\tor.b32 \t%r3, %r3, %r5;\n",
                1 << (2 * k),
                1 << (2 * k + 1)
            ));
        }
        body.push_str(&format!("\tcvt.u64.u32 \t%rd3, %r3;\n\tst.global.u64 \t[%rd2+{}], %rd3;\n", 8 * i));
    }
    let got = run_one(&module(&body, REGS), cases.len());
    for (i, &(a, b, c)) in cases.iter().enumerate() {
        let t = a < b;
        let pairs = [(t, !t), (t && c, !t && c), (t || !c, !t || !c), (t ^ c, !t ^ c)];
        let want = pairs
            .iter()
            .enumerate()
            .fold(0u64, |m, (k, &(p, q))| m | (p as u64) << (2 * k) | (q as u64) << (2 * k + 1));
        assert_eq!(got[i], want, "a = {a}, b = {b}, c = {c}");
    }
}

#[test]
fn ftz_sat_and_nan_modifiers_on_f32() {
    let tiny = f32::from_bits(0x0000_0400); // a subnormal
    let body = format!(
        "\tmov.b32 \t%f1, 0x{t:08x};\n\tmov.b32 \t%f2, 0x{t:08x};\n\
         \tadd.ftz.f32 \t%f3, %f1, %f2;\n\tadd.f32 \t%f4, %f1, %f2;\n\
         \tmul.rn.ftz.f32 \t%f5, 0f20000000, 0f1F000000;\n\tneg.ftz.f32 \t%f6, %f1;\n\
         \tsetp.eq.ftz.f32 \t%p1, %f1, 0f00000000;\n\tselp.f32 \t%f7, 0f3F800000, 0f00000000, %p1;\n\
         \tfma.rn.sat.f32 \t%f8, 0f40000000, 0f40000000, 0f00000000;\n\
         \tfma.rn.ftz.sat.f32 \t%f9, 0fBF800000, 0f3F800000, 0f00000000;\n\
         \tmin.NaN.f32 \t%f10, 0f7FC00001, 0f3F800000;\n\tmin.f32 \t%f11, 0f7FC00001, 0f3F800000;\n\
         \tmax.ftz.f32 \t%f12, %f6, 0f80000000;\n\tcvt.ftz.f64.f32 \t%fd1, %f1;\n\
         \tcvt.rn.ftz.f32.f64 \t%f13, 0d3800000000000000;\n\ttanh.approx.f32 \t%f14, 0f3F000000;\n\
         \tdiv.rn.ftz.f32 \t%f15, %f1, 0f3F800000;\n\tsub.rn.sat.f32 \t%f16, 0f3F000000, 0f7FC00000;",
        t = tiny.to_bits()
    );
    let mut store = String::new();
    for (k, f) in [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16].iter().enumerate() {
        store.push_str(&format!("\tst.global.f32 \t[%rd2+{}], %f{f};\n", 4 * k));
    }
    store.push_str("\tst.global.f64 \t[%rd2+56], %fd1;");
    let regs = format!("{REGS}\n\t.reg .f32 \t%f<20>;\n\t.reg .f64 \t%fd<4>;");
    let m = module(&format!("{body}\n{store}"), &regs);
    let got = run_one(&m, 8);
    let word = |k: usize| (got[k / 2] >> (32 * (k % 2))) as u32;
    // 2^-63 · 2^-65 = 2^-128 is subnormal: flushed; 2^-112 in f64 is below f32's normals.
    let want: [u32; 14] = [
        0,                                // subnormal + subnormal, flushed in and out
        (tiny + tiny).to_bits(),          // without .ftz the sum is exact
        0,                                // a subnormal product flushed
        0x8000_0000,                      // -(flushed subnormal) = -0
        1f32.to_bits(),                   // the flushed subnormal equals 0
        1f32.to_bits(),                   // 4 saturates to 1
        0,                                // -1 saturates to +0
        0x7fff_ffff,                      // .NaN: a NaN input gives the canonical NaN
        1f32.to_bits(),                   // without .NaN, the other input
        0x8000_0000,                      // max(-0, -0) after the flush
        0,                                // 2^-112 rounds to a subnormal f32: flushed
        (0.5f64.tanh() as f32).to_bits(), // the simulator's tanh.approx: f64 tanh rounded once
        0,                                // subnormal / 1 with .ftz
        0,                                // .sat maps NaN to +0
    ];
    for (k, w) in want.iter().enumerate() {
        assert_eq!(word(k), *w, "result {k}: {:#x}", word(k));
    }
    assert_eq!(got[7], 0, "cvt.ftz.f64.f32 flushes the f32 source");
}

#[test]
fn elect_match_and_redux_in_divergent_code() {
    // Odd lanes take a branch; inside it they elect a leader, match on `lane / 4` and take
    // the minimum of `-lane` over themselves; even lanes skip all of it.
    let text =
        ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\
        \t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<16>;\n\t.reg .b64 \t%rd<8>;\n\
        \tld.param.u64 \t%rd1, [k_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r1, %laneid;\n\
        \tmov.u32 \t%r2, 0;\n\tmov.u32 \t%r3, 0;\n\tmov.u32 \t%r4, 0;\n\tmov.u32 \t%r5, 0;\n\
        \tand.b32 \t%r6, %r1, 1;\n\tsetp.eq.u32 \t%p1, %r6, 0;\n\t@%p1 bra \t$L_skip;\n\
        \tactivemask.b32 \t%r7;\n\telect.sync \t%r2|%p2, %r7;\n\tselp.u32 \t%r3, 1, 0, %p2;\n\
        \tshr.u32 \t%r8, %r1, 2;\n\tmatch.any.sync.b32 \t%r4, %r8, %r7;\n\
        \tneg.s32 \t%r9, %r1;\n\tredux.sync.min.s32 \t%r5, %r9, %r7;\n\
        $L_skip:\n\tmul.wide.u32 \t%rd3, %r1, 16;\n\tadd.s64 \t%rd4, %rd2, %rd3;\n\
        \tst.global.v4.u32 \t[%rd4], {%r2, %r3, %r4, %r5};\n\tret;\n}\n";
    let m = Module::parse(text).unwrap();
    let mem = Memory::new();
    let out = upload(&mem, &[0; 64], 8);
    launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [32, 1, 1]), &[out], &mem, 1).unwrap();
    let got = download(&mem, out, 128, 4);
    for lane in 0..32u64 {
        let w = &got[4 * lane as usize..4 * lane as usize + 4];
        if lane % 2 == 0 {
            assert_eq!(w, [0, 0, 0, 0], "lane {lane} skipped the branch");
        } else {
            // Leader: lane 1; peers: the odd lanes with the same lane / 4; min of -lane: -31.
            let peers = (0..32).filter(|u| u % 2 == 1 && u / 4 == lane / 4).fold(0, |m, u| m | 1 << u);
            assert_eq!(w, [1, (lane == 1) as u64, peers, (-31i32) as u32 as u64], "lane {lane}");
        }
    }
}

#[test]
fn misused_forms_are_errors_naming_the_construct() {
    for (body, what) in [
        ("\tmov.u32 \t%r1, %clock64;", "64-bit `%clock64`"),
        ("\tadd.cc.f32 \t%r1, %r2, %r3;", "add.cc.f32"),
        ("\tmatch.any.sync.b32 \t%r1|%p1, %r2, -1;", "no predicate destination"),
        ("\tadd.sat.bf16 \t%r1, %r2, %r3;", "add.sat.bf16"),
        ("\tredux.sync.add.f32 \t%r1, %r2, -1;", "redux.sync.add.f32"),
        ("\tprmt.b32.xyz \t%r1, %r2, %r3, %r4;", "prmt.b32.xyz"),
        ("\tld.param.u32 \t%r1, [k_param_0+6];", "reads beyond parameter `k_param_0`"),
        ("\tset.lt.f64.f32 \t%r1, 0f00000000, 0f3F800000;", "set.lt.f64.f32"),
        ("\tbar.red.popc.u32 \t%r1, 16, %p1;", "barrier operand `16`"),
    ] {
        let err = Module::parse(&module_text(body, REGS)).unwrap_err().to_string();
        assert!(err.contains(what), "{body}: {err}");
    }
}

#[test]
fn generic_accesses_into_shared_memory_are_race_checked() {
    // Each thread stores to its shared slot through a generic address, then loads its
    // neighbour's, with or without a barrier between.
    let text = |barrier: &str| {
        format!(
            ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n\
             \t.shared .align 4 .b8 slots[128];\n\t.reg .b32 \t%r<8>;\n\t.reg .b64 \t%rd<12>;\n\
             \tld.param.u64 \t%rd1, [k_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\
             \tmov.u32 \t%r1, %tid.x;\n\tmov.u64 \t%rd3, slots;\n\tcvta.shared.u64 \t%rd4, %rd3;\n\
             \tmul.wide.u32 \t%rd5, %r1, 4;\n\tadd.s64 \t%rd6, %rd4, %rd5;\n\tst.u32 \t[%rd6], %r1;\n{barrier}\
             \tadd.u32 \t%r2, %r1, 1;\n\tand.b32 \t%r3, %r2, 31;\n\tmul.wide.u32 \t%rd7, %r3, 4;\n\
             \tadd.s64 \t%rd8, %rd4, %rd7;\n\tld.u32 \t%r4, [%rd8];\n\
             \tadd.s64 \t%rd9, %rd2, %rd5;\n\tst.global.u32 \t[%rd9], %r4;\n\tret;\n}}\n"
        )
    };
    let run = |barrier: &str, uninit_shared_check: bool| {
        let m = Module::parse(&text(barrier)).unwrap();
        let mem = Memory::new();
        let out = upload(&mem, &[0; 32], 4);
        let options = SimOptions { uninit_shared_check, ..SimOptions::default() };
        launch_with(m.kernel("k").unwrap(), &geo([1, 1, 1], [32, 1, 1]), &[out], &mem, 1, &options)
            .map(|_| download(&mem, out, 32, 4))
    };
    let want: Vec<u64> = (0..32).map(|t| (t + 1) % 32).collect();
    assert_eq!(run("\tbar.sync \t0;\n", true).unwrap(), want);
    // Thread 0 loads slot 1 before thread 1 stores it (threads run in order between
    // barriers): a read of a byte no thread has written yet, then, with that check off, a
    // race with thread 1's store.
    let err = run("", true).unwrap_err().to_string();
    assert!(err.contains("uninitialised shared memory") && err.contains("read shared byte 4"), "{err}");
    let err = run("", false).unwrap_err().to_string();
    assert!(
        err.contains("shared-memory race") && err.contains("thread (1, 0, 0) stored to shared byte 4"),
        "{err}"
    );
}

#[test]
fn guarded_calls_and_guarded_returns_in_device_functions() {
    // half(x) returns early (a guarded `ret`) for odd x, else x / 2; the kernel calls it
    // only for threads below 3 (a guarded call), the others keep 1000.
    let text = ".version 8.5\n.target sm_80\n.address_size 64\n\
        .func (.param .b32 half_ret) half(\n\t.param .b32 half_x\n)\n{\n\t.reg .pred \t%p<2>;\n\t.reg .b32 \t%r<4>;\n\
        \tld.param.b32 \t%r1, [half_x];\n\tst.param.b32 \t[half_ret+0], 77;\n\tand.b32 \t%r2, %r1, 1;\n\
        \tsetp.ne.u32 \t%p1, %r2, 0;\n\t@%p1 ret;\n\tshr.u32 \t%r3, %r1, 1;\n\tst.param.b32 \t[half_ret+0], %r3;\n\tret;\n}\n\
        .visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .pred \t%p<2>;\n\t.reg .b32 \t%r<8>;\n\t.reg .b64 \t%rd<8>;\n\
        \tld.param.u64 \t%rd1, [k_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r1, %tid.x;\n\
        \tmov.u32 \t%r3, 1000;\n\tsetp.lt.u32 \t%p1, %r1, 3;\n\
        \t{\n\t.param .b32 param0;\n\tst.param.b32 \t[param0+0], %r1;\n\t.param .b32 retval0;\n\t@%p1 call.uni (retval0), half, (param0);\n\t@%p1 ld.param.b32 \t%r3, [retval0+0];\n\t}\n\
        \tmul.wide.u32 \t%rd3, %r1, 4;\n\tadd.s64 \t%rd4, %rd2, %rd3;\n\tst.global.u32 \t[%rd4], %r3;\n\tret;\n}\n";
    let m = Module::parse(text).unwrap();
    let mem = Memory::new();
    let out = upload(&mem, &[0; 5], 4);
    launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [5, 1, 1]), &[out], &mem, 1).unwrap();
    // 0 → 0, 1 (odd) → 77, 2 → 1; threads 3 and 4 do not call.
    assert_eq!(download(&mem, out, 5, 4), [0, 77, 1, 1000, 1000]);
}

/// NVRTC's call sequence for a `float2` argument and a `float4` result: vector
/// `st.param`/`ld.param` of call parameters, lane by lane at their offsets.
#[test]
fn vector_call_parameters_as_nvrtc_writes_them() {
    let m = Module::parse(include_str!("data/vector_params.ptx")).unwrap();
    let mem = Memory::new();
    let input: Vec<f32> = (0..9).map(|t| 0.75 * t as f32 - 2.0).collect();
    let bits: Vec<u64> = input.iter().map(|x| x.to_bits() as u64).collect();
    let inp = upload(&mem, &bits, 4);
    let out = upload(&mem, &[0; 32], 4);
    launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [8, 1, 1]), &[out, inp], &mem, 1).unwrap();
    let got: Vec<f32> = download(&mem, out, 32, 4).iter().map(|&b| f32::from_bits(b as u32)).collect();
    // `f(make_float2(in[t], in[t + 1]), {t, in[t], 2.5 t}, 3 t)` as the .cu file computes it.
    let want: Vec<f32> = (0..8)
        .flat_map(|t| {
            let (x, y) = (input[t], input[t + 1]);
            [x + t as f32, y * input[t], (2.5 * t as f64) as f32, (3 * t) as f32]
        })
        .collect();
    assert_eq!(got, want);
}

/// NVRTC's inline `unsigned __int128` division mixes `sub.cc`/`subc` with `addc`, which
/// reads the flag a subtraction leaves as the GPU's adder sets it (1 when it did not
/// borrow): quotients against Rust's `u128` division.
#[test]
fn int128_division_as_nvrtc_expands_it() {
    let m = Module::parse(include_str!("data/int128_division.ptx")).unwrap();
    let mut rng = ptx_tools::rng::Rng::fresh("int128_division");
    let mut cases: Vec<(u128, u128)> =
        vec![(5, 3), (u128::MAX, u64::MAX as u128), (1 << 100, 7), (u128::MAX, 1), (3, 5)];
    while cases.len() < 40 {
        let x = (rng.next() as u128) << 64 | rng.next() as u128;
        let y = ((rng.next() as u128) << 64 | rng.next() as u128) >> (rng.next() % 128);
        cases.push((x, y.max(1)));
    }
    for (x, y) in cases {
        let mem = Memory::new();
        let words = [x as u64, (x >> 64) as u64, y as u64, (y >> 64) as u64];
        let a = upload(&mem, &words, 8);
        let o = upload(&mem, &[0, 0], 8);
        launch(m.kernel("udiv").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[a, o], &mem, 1).unwrap();
        let q = download(&mem, o, 2, 8);
        assert_eq!((q[1] as u128) << 64 | q[0] as u128, x / y, "{x} / {y}");
    }
}

/// Every module of the NVRTC corpus (`tests/corpus`, the main build) parses with every
/// kernel it declares loaded, none left out as unsupported. (`tests/nvrtc_corpus.rs` in
/// the workspace root runs all three builds against host references.)
#[test]
fn every_corpus_module_loads_every_kernel() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");
    let mut modules = 0;
    for entry in std::fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "ptx") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let m = Module::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let declared: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix(".visible .entry "))
            .map(|l| l.split('(').next().unwrap_or(l).trim())
            .collect();
        for name in &declared {
            assert!(m.unsupported(name).is_none(), "{}: {name}: {:?}", path.display(), m.unsupported(name));
            assert!(m.kernel(name).is_some(), "{}: {name} missing", path.display());
        }
        assert_eq!(m.kernel_names().count(), declared.len(), "{}", path.display());
        modules += 1;
    }
    assert!(modules >= 45, "only {modules} corpus modules found");
}

/// Forms the PTX ISA does not define (or the simulator cannot run as written) are errors
/// naming the instruction, never run as some neighbouring form; their valid neighbours
/// load.
#[test]
fn invalid_forms_are_rejected_and_their_neighbours_load() {
    let rejected = [
        ("\tbfind.b32 \t%r1, %r2;", "bfind.b32"),
        ("\tbfind.u16 \t%r1, %rs2;", "bfind.u16"),
        ("\tpopc.b16 \t%r1, %rs2;", "popc.b16"),
        ("\tclz.u32 \t%r1, %r2;", "clz.u32"),
        ("\tmembar.foo;", "membar.foo"),
        ("\tbar.sync \t16;", "barrier operand `16`"),
        ("\tatom.global.min.u16 \t%rs1, [%rd2], %rs2;", "atom.global.min.u16"),
        ("\tatom.global.cas.f32 \t%r1, [%rd2], %r2, %r3;", "atom.global.cas.f32"),
        ("\tatom.global.cas.f64 \t%rd3, [%rd2], %rd4, %rd5;", "atom.global.cas.f64"),
        ("\tatom.global.and.f32 \t%r1, [%rd2], %r2;", "atom.global.and.f32"),
        ("\tld.global.shared.u32 \t%r1, [%rd2];", "ld.global.shared.u32"),
        ("\tld.global.v4.u64 \t{%rd3, %rd4, %rd5, %rd6}, [%rd2];", "ld.global.v4.u64"),
        ("\tld.global.v2.v2.u32 \t{%r1, %r2}, [%rd2];", "ld.global.v2.v2.u32"),
        ("\tadd.NaN.f32 \t%r1, %r2, %r3;", "add.NaN.f32"),
        ("\tadd.NaN.f16 \t%rs1, %rs2, %rs3;", "add.NaN.f16"),
        ("\tmin.rn.f16 \t%rs1, %rs2, %rs3;", "min.rn.f16"),
        ("\tadd.rn.rn.f16 \t%rs1, %rs2, %rs3;", "add.rn.rn.f16"),
        ("\tmin.sat.f32 \t%r1, %r2, %r3;", "min.sat.f32"),
        ("\tdiv.sat.f32 \t%r1, %r2, %r3;", "div.sat.f32"),
        ("\tcvt.rn.ftz.f64.s32 \t%rd3, %r2;", "cvt.rn.ftz.f64.s32"),
        ("\tset.eq.u32.pred \t%r1, %p1, %p2;", "set.eq.u32.pred"),
        ("\tset.ltu.u32.s32 \t%r1, %r2, %r3;", "set.ltu.u32.s32"),
        ("\tmov.b64 \t{%r1, %r2, %r3}, %rd2;", "mov.b64"),
        ("\tmov.b64 \t{%rs0, %rs1, %rs2, %rs3, %rs4, %rs5, %rs6, %rs7}, %rd2;", "mov.b64"),
        ("\tmov.f64 \t{%r1, %r2}, %rd2;", "mov.f64"),
        ("\tadd.rn.rz.f32 \t%r1, %r2, %r3;", "add.rn.rz.f32"),
        ("\tadd.ftz.f64 \t%rd3, %rd4, %rd5;", "add.ftz.f64"),
        ("\tadd.sat.sat.f32 \t%r1, %r2, %r3;", "add.sat.sat.f32"),
        ("\tadd.sat.f64 \t%rd3, %rd4, %rd5;", "add.sat.f64"),
        ("\tadd.rx.f32 \t%r1, %r2, %r3;", "add.rx.f32"),
        ("\tld.shared.global.u32 \t%r1, [%rd2];", "ld.shared.global.u32"),
        ("\tsqrt.rn.ftz.u32 \t%r1, %r2;", "sqrt.rn.ftz.u32"),
        ("\trcp.approx.f64 \t%rd3, %rd4;", "rcp.approx.f64"),
        ("\tsad.u8 \t%rs1, %rs2, %rs3, %rs4;", "sad.u8"),
        ("\tbfe.u16 \t%rs1, %rs2, %r1, %r2;", "bfe.u16"),
        ("\tbfi.b16 \t%rs1, %rs2, %rs3, %r1, %r2;", "bfi.b16"),
        ("\tset.lt.u16.f16x2 \t%rs1, %r2, %r3;", "set.lt.u16.f16x2"),
        ("\tmul.wide.u64 \t%rd3, %rd4, %rd5;", "mul.wide.u64"),
        ("\tsetp.lt.sat.f16 \t%p1, %rs2, %rs3;", "setp.lt.sat.f16"),
        ("\tld.global.const.u32 \t%r1, [%rd2];", "ld.global.const.u32"),
        ("\tdiv.f32 \t%r1, %r2, %r3;", "div.f32"),
        ("\tadd.u32 \t%r1, %r2, 4294967296;", "`4294967296` does not fit .u32"),
        ("\tadd.s32 \t%r1, %r2, -2147483649;", "`-2147483649` does not fit .s32"),
        ("\tnanosleep.s32 \t%r2;", "nanosleep.s32"),
        ("\tmov.b32 \t%r1, 0f3F80;", "0f3F80"),
        ("\tmov.b64 \t%rd3, 0f3F800000;", "0f3F800000"),
        ("\tadd.u32 \t%r1, %tid.x, 1;", "special register `%tid.x` outside `mov`"),
        ("\tcvt.rn.rz.f32.f64 \t%r1, %rd2;", "cvt.rn.rz.f32.f64"),
        ("\tret.foo;", "ret.foo"),
        ("\tfence.foo.cta;", "fence.foo.cta"),
        ("\tbar.arrive \t0;", "bar.arrive"),
        ("\tbarrier.sync.foo \t0;", "barrier.sync.foo"),
        ("\tatom.global.exch.f32 \t%r1, [%rd2], %r2;", "atom.global.exch.f32"),
        ("\tatom.global.exch.f64 \t%rd3, [%rd2], %rd4;", "atom.global.exch.f64"),
        ("\tatom.global.exch.b16 \t%rs1, [%rd2], %rs2;", "atom.global.exch.b16"),
        ("\tset.lt.u32.f16 \t%r1, %rs2, %rs3;", "set.lt.u32.f16"),
        ("\tdiv.approx.f64 \t%rd3, %rd4, %rd5;", "div.approx.f64"),
        ("\tadd.u32 \t%r16, %r1, 1;", "%r16"),
        ("\tsetp.ltu.u32 \t%p1, %r1, %r2;", "setp.ltu.u32"),
        ("\tsetp.lt.pred \t%p1, %p2, %p3;", "setp.lt.pred"),
        ("\tadd.ftz.bf16 \t%rs1, %rs2, %rs3;", "add.ftz.bf16"),
        ("\tadd.ftz.ftz.f16 \t%rs1, %rs2, %rs3;", "add.ftz.ftz.f16"),
        ("\tld.global.local.u32 \t%r1, [%rd2];", "ld.global.local.u32"),
        ("\tld.volatile.param.u32 \t%r1, [k_param_0];", "state space `.param`"),
        ("\tmin.NaN.NaN.f32 \t%r1, %r2, %r3;", "min.NaN.NaN.f32"),
        ("\tsqrt.rx.f32 \t%r1, %r2;", "sqrt.rx.f32"),
        ("\tsetp.lt.b32 \t%p1, %r1, %r2;", "setp.lt.b32"),
        ("\tadd.b32 \t%r1, %r2, %r3;", "add.b32"),
        ("\tmov.b32 \t%r1, 0d3FF0000000000000;", "0d3FF0000000000000"),
        ("\tcvt.sat.sat.f32.f32 \t%r1, %r2;", "cvt.sat.sat.f32.f32"),
        ("\tbfe.f32 \t%r1, %r2, %r3, %r4;", "bfe.f32"),
        ("\tbfi.f32 \t%r1, %r2, %r3, %r4, %r5;", "bfi.f32"),
        ("\tbfe.b32 \t%r1, %r2, %r3, %r4;", "bfe.b32"),
        ("\tsetp.eq.pred \t%p1, %p2, %p3;", "setp.eq.pred"),
    ];
    let regs = format!("{REGS}\n\t.reg .b16 \t%rs<8>;");
    for (body, what) in rejected {
        match Module::parse(&module_text(body, &regs)) {
            Err(e) => assert!(e.to_string().contains(what), "{body}: the error does not name `{what}`: {e}"),
            Ok(_) => panic!("{body}: accepted"),
        }
    }
    let accepted = [
        "\tbfind.u32 \t%r1, %r2;",
        "\tbfind.s64 \t%r1, %rd2;",
        "\tpopc.b32 \t%r1, %r2;",
        "\tclz.b64 \t%r1, %rd2;",
        "\tmembar.gl;",
        "\tbar.sync \t15;",
        "\tatom.global.min.u32 \t%r1, [%rd2], %r2;",
        "\tatom.global.cas.b32 \t%r1, [%rd2], %r2, %r3;",
        "\tld.global.v4.u32 \t{%r1, %r2, %r3, %r4}, [%rd2];",
        "\tld.global.v2.u64 \t{%rd3, %rd4}, [%rd2];",
        "\tmin.NaN.f32 \t%r1, %r2, %r3;",
        "\tmin.NaN.f16 \t%rs1, %rs2, %rs3;",
        "\tadd.rn.sat.f16 \t%rs1, %rs2, %rs3;",
        "\tdiv.rn.f32 \t%r1, %r2, %r3;",
        "\tcvt.rn.ftz.f32.f64 \t%r1, %rd2;",
        "\tset.lt.u32.s32 \t%r1, %r2, %r3;",
        "\tmov.b64 \t{%r1, %r2}, %rd2;",
        "\trcp.approx.ftz.f64 \t%rd3, %rd4;",
        "\tsqrt.rn.ftz.f32 \t%r1, %r2;",
        "\tsad.u16 \t%rs1, %rs2, %rs3, %rs4;",
        "\tbfe.u32 \t%r1, %r2, %r3, %r4;",
        "\tadd.rz.ftz.sat.f32 \t%r1, %r2, %r3;",
        "\tset.lt.u32.f16x2 \t%r1, %r2, %r3;",
        "\tmul.wide.u16 \t%r1, %rs2, %rs3;",
        "\tsetp.lt.ftz.f16 \t%p1, %rs2, %rs3;",
        "\tld.const.u32 \t%r1, [%rd2];",
        "\tdiv.full.f32 \t%r1, %r2, %r3;",
        "\tadd.u32 \t%r1, %r2, 4294967295;",
        "\tadd.s32 \t%r1, %r2, -2147483648;",
        "\tnanosleep.u32 \t%r2;",
        "\tmov.b32 \t%r1, 0f3F800000;",
        "\tmov.b64 \t%rd3, 0d3FF0000000000000;",
        "\tcvt.rn.f32.f64 \t%r1, %rd2;",
        "\tret.uni;",
        "\tfence.acq_rel.gpu;",
        "\tbarrier.sync \t0;",
        "\tbarrier.sync.aligned \t0;",
        "\tatom.global.exch.b32 \t%r1, [%rd2], %r2;",
        "\tset.lt.u16.f16 \t%rs1, %rs2, %rs3;",
        "\tdiv.approx.f32 \t%r1, %r2, %r3;",
        "\tadd.u32 \t%r15, %r1, 1;",
        "\tsetp.lt.u32 \t%p1, %r1, %r2;",
        "\tadd.ftz.f16 \t%rs1, %rs2, %rs3;",
        "\tld.local.u32 \t%r1, [%rd2];",
        "\tsetp.eq.b32 \t%p1, %r1, %r2;",
        "\tsetp.lt.and.ftz.f32 \t%p1, %r1, %r2, %p2;",
        "\tand.b16 \t%rs1, %rs2, %rs3;",
    ];
    for body in accepted {
        let m = Module::parse(&module_text(body, &regs)).unwrap_or_else(|e| panic!("{body}: {e}"));
        assert!(m.kernel("k").is_some(), "{body}");
    }
}

/// A `.local` array of up to 64 KiB per thread loads; a larger one is refused with the
/// limit named (the simulator allocates it for every thread of a block).
#[test]
fn local_arrays_up_to_64_kib_load() {
    for (bytes, loads) in [(4096, true), (65536, true), (65537, false)] {
        let text = module_text("", &format!("\t.local .align 4 .b8 \tbig[{bytes}];\n{REGS}"));
        assert_eq!(Module::parse(&text).is_ok(), loads, "{bytes} bytes of .local");
    }
}

/// A register declared twice (as a single register or a range, in either order) is an
/// error naming it; the register file is limited to 2^20 registers in all.
#[test]
fn register_declarations_are_checked() {
    for decls in [
        "\t.reg .b32 \t%x;\n\t.reg .b32 \t%x;",
        "\t.reg .b32 \t%y<4>;\n\t.reg .b32 \t%y;",
        "\t.reg .b32 \t%z;\n\t.reg .b32 \t%z<4>;",
        "\t.reg .b32 \t%w<4>;\n\t.reg .b32 \t%w<8>;",
    ] {
        let err = Module::parse(&module_text("", &format!("{decls}\n{REGS}"))).unwrap_err();
        assert!(err.to_string().contains("declared twice"), "{decls}: {err}");
    }
    // REGS declares 36 registers; with these the kernel has 2^20 - 1, then 2^20.
    let fits = format!("\t.reg .b32 \t%big<{}>;\n{REGS}", (1 << 20) - 37);
    Module::parse(&module_text("", &fits)).expect("2^20 - 1 registers");
    let over = format!("\t.reg .b32 \t%big<{}>;\n{REGS}", (1 << 20) - 36);
    let err = Module::parse(&module_text("", &over)).unwrap_err();
    assert!(err.to_string().contains("2^20 registers"), "{err}");
}
