//! What the twenty-third round of probing found: PTX's integer constant expressions (the
//! PTX ISA's "Constant Expressions"), which ptxas takes wherever an integer immediate goes,
//! in address offsets and in variables' initial values (`mov.u32 %r1, (1 << 4) + 3;`,
//! `shl.b32 %r1, 1, 3+1;`, `mov.u64 %rd3, gv+0x8;`, `[gv+2*2]`, `= 3 + 4`), which the
//! simulator refused. Each module is assembled for sm_90 by ptxas first, where it is found;
//! the expected values are computed here by Rust, by the ISA's rules.

mod common;

use common::{download, geo, upload};
use ptx_sim::{launch, Memory, Module};

/// Assembles `ptx` for sm_90 with ptxas where it is found (so that every case is PTX ptxas
/// accepts); says why it skips otherwise.
fn assert_ptxas_accepts(ptx: &str) {
    if let Some(ptxas) = ptx_tools::ptxas::ptxas_or_skip("round23") {
        if let Err(e) = ptx_tools::ptxas::assemble_with_args(&ptxas, ptx, "sm_90", &[]) {
            panic!("ptxas rejects the case: {e}\n{ptx}");
        }
    }
}

/// Runs kernel `k` of `ptx` on one thread: for each `(n, bytes)` of `words` it allocates a
/// zeroed buffer of `n` elements of `bytes` and passes its address, then `extra_params`;
/// returns each buffer's elements after the launch.
fn run_one_thread(ptx: &str, extra_params: &[u64], words: &[(usize, usize)]) -> Vec<Vec<u64>> {
    let m = Module::parse(ptx).unwrap_or_else(|e| panic!("{e}"));
    let k = m.kernel("k").unwrap_or_else(|| panic!("{:?}", m.unsupported("k").map(|e| e.to_string())));
    let mem = Memory::new();
    let bufs: Vec<u64> = words.iter().map(|&(n, bytes)| upload(&mem, &vec![0; n], bytes)).collect();
    let params: Vec<u64> = bufs.iter().chain(extra_params).copied().collect();
    launch(k, &geo([1, 1, 1], [1, 1, 1]), &params, &mem, 1).unwrap_or_else(|e| panic!("{e}"));
    bufs.iter().zip(words).map(|(&b, &(n, bytes))| download(&mem, b, n, bytes)).collect()
}

/// Why the simulator refuses `ptx`'s kernel `k` (empty when it takes it).
fn refusal(ptx: &str) -> String {
    match Module::parse(ptx) {
        Err(e) => e.to_string(),
        Ok(m) => m.unsupported("k").map(|e| e.to_string()).unwrap_or_default(),
    }
}

/// A module with kernel `k` whose body (after register declarations) is `body`, and the
/// module-scope declarations `decls`.
fn module(decls: &str, body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n{decls}\n\
         .visible .entry k(.param .u64 k_out)\n{{\n\
         \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .f32 %f<4>;\n\t.reg .pred %p<4>;\n\
         {body}\n\tret;\n}}\n"
    )
}

/// Constant expressions as instruction operands (`tests/data/round23_immediates.ptx`):
/// precedence, signedness (`U`, hex literals beyond `.s64`), arithmetic and logical shifts,
/// unsigned remainder, comparisons by type, `?:`, `WARP_SZ`, wrapping.
#[test]
fn constant_expressions_as_instruction_operands() {
    let text = include_str!("data/round23_immediates.ptx");
    assert_ptxas_accepts(text);
    let out = run_one_thread(text, &[], &[(20, 4), (12, 8)]);
    let (w, d) = (&out[0], &out[1]);
    let u32s = |v: &[i64]| v.iter().map(|&x| u64::from(x as u32)).collect::<Vec<_>>();
    let shl = 1i64 << (3 + 1);
    let bfe = (0xf0f0_f0f0u32 >> (2 * 2)) & ((1 << ((1 << 3) - 4)) - 1);
    let expected = u32s(&[
        (1 << 4) + 3,
        5,
        5,
        5,
        shl,
        shl + 2 * (3 + 4) - 1,
        32 * 2 - 1,
        0x10 | (0b11 ^ 0o10),
        8,
        -7 / 2,
        ((-7i64 as u64) % 2) as i64,
        1, // `1 << 64`: the count modulo 64, as ptxas takes it
        0, // `(.s64) ~0 > 0`: -1 > 0
        -1,
        i64::from(bfe),
        i64::from(0xf0f0_f0f0u32 & !(0xffu32 << 8)),
        100 / 3, // %r2 = 5 < 6
        1 + 1,   // !0 + !7 + (3 >= 3) + (3 != 3) + (-1 < 0U)
        (6 & 3) | 8,
        9,
    ]);
    assert_eq!(w, &expected);
    let expected64: Vec<u64> = vec![
        u64::MAX >> 4,
        (-256i64 >> 4) as u64,
        0xfabc_1234_0000_0000u64 >> 32,
        0xfabc_1234_0000_0000u64.wrapping_neg(),
        i64::MAX as u64,
        i64::MIN as u64,
        (-2i64 as u64) % (-1i64 as u64),
        1, // (0 ? 1U : -1) is unsigned: a logical shift
        1 + (1 << 40),
        (-4i64) as u64,
        15,
        1,
    ];
    assert_eq!(d, &expected64);
}

/// Constant expressions in address offsets, as a variable's or array's address plus an
/// offset, and in module variables' initial values (`tests/data/round23_addresses.ptx`).
#[test]
fn constant_expressions_in_addresses_and_initial_values() {
    let text = include_str!("data/round23_addresses.ptx");
    assert_ptxas_accepts(text);
    let word = 0x1234_5678_9abc_def0u64;
    let out = run_one_thread(text, &[word], &[(24, 4)]);
    let got = &out[0];
    let gv = [11u64, 22, 33, 44];
    let u32s: Vec<u64> = got[..13].to_vec();
    assert_eq!(
        u32s,
        [
            gv[1],
            gv[1],
            gv[2],
            gv[1], // gv+8 then -(2*4)+4
            gv[0], // gv+12 then -0xc
            6 * 7,
            u64::from(-(2i32 + 3) as u32),
            word >> 32,
            gv[1], // sh+12
            gv[1], // sh+4 then +(2*4)+-4
            gv[2], // loc+8 (`010` is octal)
            0xffff & !0xff,
            2,
        ]
    );
    let u64s: Vec<u64> = got[16..24].chunks(2).map(|p| p[0] | (p[1] << 32)).collect();
    assert_eq!(u64s, [3 + 4, 1 << 40, (-2i64) as u64, (0x10 * 2) % 7]);
}

/// The prober's reproducers, as they were found (`/tmp/r23b/findings/f1*.ptx`'s forms):
/// each stores a constant computed by an expression.
#[test]
fn the_probers_reproducers_run() {
    let cases: [(&str, &str, u64); 5] = [
        ("", "mov.u32 %r1, (1 << 4) + 3;", 19),
        ("", "mov.u32 %r1, (5);", 5),
        (".global .align 4 .u32 gv[2] = {11, 22};", "ld.global.u32 %r1, [gv+2*2];", 22),
        (
            ".global .align 4 .u32 gv[4] = {11, 22, 33, 44};",
            "mov.u64 %rd3, gv+0x8;\n\tld.global.u32 %r1, [%rd3];",
            33,
        ),
        ("", "shl.b32 %r1, 1, 3+1;", 16),
    ];
    for (decls, op, want) in cases {
        let body = format!(
            "\tld.param.u64 %rd0, [k_out];\n\tcvta.to.global.u64 %rd0, %rd0;\n\t{op}\n\tst.global.u32 [%rd0], %r1;"
        );
        let ptx = module(decls, &body);
        assert_ptxas_accepts(&ptx);
        assert_eq!(run_one_thread(&ptx, &[], &[(1, 4)])[0], [want], "{op}");
    }
}

/// What is no valid integer constant expression is refused with a message that says why:
/// division or remainder by zero (ptxas: "Constant expression has division by zero"), an
/// unknown name, a misplaced `%`, nesting beyond the limit, a negative offset without `+`.
#[test]
fn invalid_constant_expressions_are_clear_errors() {
    let cases = [
        ("mov.u32 %r1, 1 / 0;", "division by zero"),
        ("mov.u32 %r1, 7 % (3 - 3);", "remainder by zero"),
        ("setp.eq.u32 %p1, %r1, 0 ? 1 / 0 : 2;", "division by zero"),
        ("bfe.u32 %r1, %r2, 4 / 0, 8;", "division by zero"),
        ("ld.global.u32 %r1, [%rd1+8/0];", "division by zero"),
        ("mov.u32 %r1, foo + 1;", "`foo` is no constant"),
        ("mov.u32 %r1, 7%3;", "`%3`"),
        ("mov.u32 %r1, (1 << 4;", "expected `)`"),
        ("ld.global.u32 %r1, [%rd1-4];", "`+-n`"),
        ("bfe.u32 %r1, %r2, 2 * 200, 8;", "not in 0..=255"),
        ("mov.u32 %r1, 1 << 40;", "does not fit .u32"),
    ];
    for (op, why) in cases {
        let e = refusal(&module("", &format!("\t{op}")));
        assert!(e.contains(why), "`{op}`: {e}");
    }
    let deep = format!("mov.u32 %r1, {}1{};", "(".repeat(10_000), ")".repeat(10_000));
    let e = refusal(&module("", &format!("\t{deep}")));
    assert!(e.contains("levels deep"), "{}", &e[..e.len().min(300)]);
    let e = refusal(&module(".global .u32 bad = 1 / 0;", ""));
    assert!(e.contains("`bad`") && e.contains("division by zero"), "{e}");
}

/// A real type mismatch keeps its message: a float immediate where an integer goes and an
/// integer expression where a float goes name the kind of immediate; an expression of
/// floats (which ptxas evaluates) is an unsupported construct that says so.
#[test]
fn float_immediates_stay_apart_from_integer_expressions() {
    let cases = [
        ("mov.u32 %r1, 0f3F800000;", "is an f32 immediate, which this .u32 operand cannot take"),
        ("add.u32 %r1, %r1, 1.5;", "is an f64 immediate, which this .u32 operand cannot take"),
        ("add.u32 %r1, %r1, 1.5 * 2;", "is an f64 immediate, which this .u32 operand cannot take"),
        ("add.f32 %f1, %f1, (1 << 4) + 3;", "is an integer immediate, which this .f32 operand cannot take"),
        ("mov.f32 %f1, 1.5 * 2.0;", "floating-point constant expression `1.5 * 2.0`"),
    ];
    for (op, why) in cases {
        let e = refusal(&module("", &format!("\t{op}")));
        assert!(e.contains(why), "`{op}`: {e}");
    }
    // Float immediates as they were: `0f` bits, `0d` bits, decimal floats.
    let body = "\tld.param.u64 %rd0, [k_out];\n\tcvta.to.global.u64 %rd0, %rd0;\n\
                \tmov.f32 %f1, 0f3F800000;\n\tadd.f32 %f1, %f1, 1.5;\n\tst.global.f32 [%rd0], %f1;";
    let ptx = module("", body);
    assert_ptxas_accepts(&ptx);
    assert_eq!(run_one_thread(&ptx, &[], &[(1, 4)])[0], [u64::from(2.5f32.to_bits())]);
}

/// A barrier's id is an immediate too (`bar.sync 2*3-5` is barrier 1 to ptxas).
#[test]
fn a_barrier_id_may_be_a_constant_expression() {
    let body = "\tld.param.u64 %rd0, [k_out];\n\tcvta.to.global.u64 %rd0, %rd0;\n\
                \tbar.sync 2*3-5;\n\tbarrier.sync.aligned (0);\n\tmov.u32 %r1, 7;\n\tst.global.u32 [%rd0], %r1;";
    let ptx = module("", body);
    assert_ptxas_accepts(&ptx);
    assert_eq!(run_one_thread(&ptx, &[], &[(1, 4)])[0], [7]);
    let e = refusal(&module("", "\tbar.sync 4*4;"));
    assert!(e.contains("an immediate 0..15"), "{e}");
}
