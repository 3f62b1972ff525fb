//! What the twenty-third round of probing (23b) found in PTX that ptxas accepts (each module
//! is assembled for sm_90 here first, where ptxas is found) and the simulator refused: one
//! label placed in two sibling `{ }` blocks (inline assembly with a label, inlined twice), a
//! module-scope `.pragma`, `.b8` parameters and results of device functions, a `__managed__`
//! variable (`.attribute(.managed)`); and messages that quoted a NUL byte unseen.

mod common;

use common::{download, geo, upload};
use ptx_sim::{launch, Memory, Module, SimError};

/// Assembles `ptx` for sm_90 with ptxas and its `extra` options, where ptxas is found (so
/// that every case is PTX ptxas accepts); says why it skips otherwise.
fn assert_ptxas_accepts(ptx: &str, extra: &[&str]) {
    if let Some(ptxas) = ptx_tools::ptxas::ptxas_or_skip("round23b") {
        if let Err(e) = ptx_tools::ptxas::assemble_with_args(&ptxas, ptx, "sm_90", extra) {
            panic!("ptxas rejects the case: {e}\n{ptx}");
        }
    }
}

/// Runs kernel `name` of `m` with one block of `threads` threads on the buffers `args`.
fn run_kernel(m: &Module, name: &str, threads: u32, args: &[u64], mem: &Memory) {
    let k = m.kernel(name).unwrap_or_else(|| panic!("{:?}", m.unsupported(name).map(|e| e.to_string())));
    launch(k, &geo([1, 1, 1], [threads, 1, 1]), args, mem, 1).unwrap_or_else(|e| panic!("{e}"));
}

/// Why the simulator refuses `ptx` (its kernel `k`); empty when it takes it.
fn refusal(ptx: &str) -> String {
    match Module::parse(ptx) {
        Err(e) => e.to_string(),
        Ok(m) => m.unsupported("k").map(|e| e.to_string()).unwrap_or_default(),
    }
}

/// A module of the header lines and `rest`.
fn module(rest: &str) -> String {
    format!(".version 8.0\n.target sm_90\n.address_size 64\n\n{rest}\n")
}

/// What kernel `k` of `tests/data/round23b_scoped_labels.ptx` stores for `x`, computed
/// from the branches its comment describes.
fn scoped_labels_expected(x: u32) -> u32 {
    let mut acc = x.wrapping_mul(3).wrapping_mul(4);
    if x.is_multiple_of(2) && x > 100 {
        return acc;
    }
    if x.is_multiple_of(2) {
        acc = acc.wrapping_add(1000);
    }
    acc = acc.wrapping_add(1);
    if x != 5 {
        acc = acc.wrapping_add(20);
    }
    acc.wrapping_add(300)
}

/// The same label in two sibling blocks, each block's loop branching to its own; a nested
/// block branching to its enclosing block's label and to the body's; a nested label hiding
/// the body's of the same name; and a device function with two sibling `DONE`s inlined at
/// two calls (`tests/data/round23b_scoped_labels.ptx`).
#[test]
fn labels_are_scoped_to_their_block_and_branches_see_the_nearest() {
    let text = include_str!("data/round23b_scoped_labels.ptx");
    assert_ptxas_accepts(text, &[]);
    let m = Module::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let mem = Memory::new();
    let xs: Vec<u64> = vec![0, 1, 2, 5, 7, 100, 101, 102, 4000, 4001];
    let (out, inp) = (upload(&mem, &vec![0; xs.len()], 4), upload(&mem, &xs, 4));
    run_kernel(&m, "k", xs.len() as u32, &[out, inp], &mem);
    let want: Vec<u64> = xs.iter().map(|&x| u64::from(scoped_labels_expected(x as u32))).collect();
    assert_eq!(download(&mem, out, xs.len(), 4), want);

    let triples: [[u32; 3]; 4] =
        [[1, 2, 3], [0xffff_fff0, 5, 6], [0xffff_fff0, 0x20, 0], [0x8000_0000, 0, 0]];
    let flat: Vec<u64> = triples.iter().flatten().map(|&v| u64::from(v)).collect();
    let (out, inp) = (upload(&mem, &[0; 8], 4), upload(&mem, &flat, 4));
    run_kernel(&m, "sat", triples.len() as u32, &[out, inp], &mem);
    let sadd3 =
        |a: u32, b: u32, c: u32| (u64::from(a) + u64::from(b) + u64::from(c)).min(u64::from(u32::MAX));
    let want: Vec<u64> = triples.iter().flat_map(|&[x, y, z]| [sadd3(x, y, z), sadd3(x, x, 1)]).collect();
    assert_eq!(download(&mem, out, 8, 4), want);
}

/// The reproducer of the finding: an inline `asm` block with a label, twice in one kernel.
#[test]
fn inline_assembly_with_a_label_used_twice_runs() {
    let text = module(
        ".visible .entry k(.param .u64 po)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n\
         ld.param.u64 %rd0, [po];\nmov.u32 %r0, %tid.x;\nmov.u32 %r1, 0;\n\
         {\nbra L;\nmov.u32 %r1, 100;\nL:\nadd.u32 %r1, %r1, 1;\n}\n\
         {\nbra L;\nmov.u32 %r1, 200;\nL:\nadd.u32 %r1, %r1, 1;\n}\n\
         mul.wide.u32 %rd1, %r0, 4;\nadd.s64 %rd2, %rd0, %rd1;\nst.global.u32 [%rd2], %r1;\nret;\n}",
    );
    assert_ptxas_accepts(&text, &[]);
    let m = Module::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let mem = Memory::new();
    let out = upload(&mem, &[0; 4], 4);
    run_kernel(&m, "k", 4, &[out], &mem);
    assert_eq!(download(&mem, out, 4, 4), [2; 4]);
}

/// A label placed twice in one block, and a branch to a label no block around it places
/// (one of a nested or a sibling block), are refused as ptxas refuses them ("Duplicate
/// definition of label", "Unknown symbol").
#[test]
fn a_label_twice_in_one_block_or_out_of_sight_is_refused() {
    let cases = [
        (
            "{ { L: bra L; L: ret; } }",
            "PTX parse error at line 6: label `L` is placed twice in one `{ }` block",
        ),
        ("{ L: bra L; L: ret; }", "PTX parse error at line 6: label `L` is placed twice in one `{ }` block"),
        ("{ bra L; { L: ret; } }", "PTX parse error at line 6: branch to undefined label `L`"),
        ("{ { bra L; } { L: ret; } }", "PTX parse error at line 6: branch to undefined label `L`"),
    ];
    for (body, want) in cases {
        let text = module(&format!(".visible .entry k()\n{body}"));
        assert_eq!(refusal(&text), want, "{text}");
    }
}

/// `.pragma "nounroll";` at module scope, where the PTX ISA allows it too, is a hint with
/// nothing to run, as in a body; a `.pragma` without a string is malformed in both (as to
/// ptxas).
#[test]
fn a_module_scope_pragma_is_read_and_ignored() {
    let text = module(
        ".pragma \"nounroll\";\n\
         .visible .entry k(.param .u64 po) .minnctapersm 1 .maxntid 128, 1, 1 { .reg .u32 %r<3>; \
         .reg .u64 %rd<3>; ld.param.u64 %rd0, [po]; mov.u32 %r0, %tid.x; add.u32 %r1, %r0, 1; \
         mul.wide.u32 %rd1, %r0, 4; add.s64 %rd1, %rd0, %rd1; st.global.u32 [%rd1], %r1; ret; }",
    );
    assert_ptxas_accepts(&text, &[]);
    let m = Module::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let mem = Memory::new();
    let out = upload(&mem, &[0; 4], 4);
    run_kernel(&m, "k", 4, &[out], &mem);
    assert_eq!(download(&mem, out, 4, 4), [1, 2, 3, 4]);
    let bad = module(".pragma nounroll;\n.visible .entry k() { ret; }");
    assert_eq!(refusal(&bad), "PTX parse error at line 5: malformed `.pragma` directive `.pragma nounroll;`");
    let in_body = module(".visible .entry k()\n{\n.pragma nounroll;\nret;\n}");
    assert_eq!(
        refusal(&in_body),
        "PTX parse error at line 7: malformed `.pragma` directive `.pragma nounroll;`"
    );
}

/// Device functions taking and returning `.b8` scalars (a CUDA `bool`, `char`; ptxas takes
/// no `.u8`/`.s8` parameter of a device function, "In ABI compilation, passing .. 8-bit ..
/// parameters .. is not supported"): `st.param` keeps the low byte of its register,
/// `ld.param.u8`/`.b8` zero-extends it and `ld.param.s8` sign-extends it.
#[test]
fn byte_parameters_and_results_of_device_functions_pass_one_byte() {
    let text = module(
        "// inc8(a) = a + 1, in a byte.\n\
         .func (.param .b8 r) inc8(.param .b8 a)\n{\n.reg .b16 %h<2>;\nld.param.b8 %h0, [a];\n\
         add.s16 %h1, %h0, 1;\nst.param.b8 [r], %h1;\nret;\n}\n\
         // neg8(a) = -a, of a signed byte, as a signed byte.\n\
         .func (.param .b8 r) neg8(.param .b8 a)\n{\n.reg .s32 %s<2>;\nld.param.s8 %s0, [a];\n\
         neg.s32 %s1, %s0;\nst.param.s8 [r], %s1;\nret;\n}\n\
         .visible .entry k(.param .u64 po, .param .u64 pi)\n{\n\
         .reg .b32 %r<4>;\n.reg .b16 %y<2>;\n.reg .b64 %rd<6>;\n\
         ld.param.u64 %rd0, [po];\nld.param.u64 %rd1, [pi];\nmov.u32 %r0, %tid.x;\n\
         mul.wide.u32 %rd2, %r0, 4;\nadd.s64 %rd3, %rd1, %rd2;\nld.global.u32 %r1, [%rd3];\n\
         cvt.u16.u32 %y0, %r1;\n\
         { .param .b8 pa; .param .b8 rv; st.param.b8 [pa], %y0; call.uni (rv), inc8, (pa); \
         ld.param.u8 %y1, [rv]; }\n\
         { .param .b8 pb; .param .b8 rw; st.param.u8 [pb], %r1; call.uni (rw), neg8, (pb); \
         ld.param.s8 %r3, [rw]; }\n\
         cvt.u32.u16 %r2, %y1;\nmul.wide.u32 %rd2, %r0, 8;\nadd.s64 %rd4, %rd0, %rd2;\n\
         st.global.v2.u32 [%rd4], {%r2, %r3};\nret;\n}",
    );
    assert_ptxas_accepts(&text, &[]);
    let m = Module::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let mem = Memory::new();
    let xs: Vec<u64> = vec![0, 1, 127, 128, 255, 0x1ff, 0x80, 300, 0xffff_ff85];
    let n = xs.len();
    let (out, inp) = (upload(&mem, &vec![0; 2 * n], 4), upload(&mem, &xs, 4));
    run_kernel(&m, "k", n as u32, &[out, inp], &mem);
    let want: Vec<u64> = xs
        .iter()
        .flat_map(|&x| {
            let byte = x as u8;
            [u64::from(byte.wrapping_add(1)), u64::from((byte as i8).wrapping_neg() as i32 as u32)]
        })
        .collect();
    assert_eq!(download(&mem, out, 2 * n, 4), want);
}

/// A CUDA `__managed__` variable (NVRTC's `.global .attribute(.managed)`): memory the host
/// and the device share, in the simulator plain global memory, kept across launches; the
/// module's other kernel loads too. `.attribute(.managed, .unified(..))` (relocatable code
/// only, to ptxas) is read the same way.
#[test]
fn a_managed_variable_is_a_global_one() {
    let text = module(
        ".global .attribute(.managed) .align 4 .u32 mv = 5;\n\
         .visible .entry bump(.param .u64 po)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n\
         ld.param.u64 %rd1, [po];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u64 %rd0, mv;\n\
         atom.global.add.u32 %r1, [%rd0], 1;\nld.global.u32 %r2, [mv];\n\
         st.global.v2.u32 [%rd2], {%r1, %r2};\nret;\n}\n\
         .visible .entry other(.param .u64 po)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<5>;\n\
         ld.param.u64 %rd1, [po];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n\
         shl.b32 %r2, %r1, 1;\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
         st.global.u32 [%rd4], %r2;\nret;\n}",
    );
    assert_ptxas_accepts(&text, &[]);
    let m = Module::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let mem = Memory::new();
    let out = upload(&mem, &[0; 4], 4);
    run_kernel(&m, "bump", 1, &[out], &mem);
    assert_eq!(download(&mem, out, 2, 4), [5, 6]);
    run_kernel(&m, "bump", 1, &[out], &mem);
    assert_eq!(download(&mem, out, 2, 4), [6, 7]);
    run_kernel(&m, "other", 4, &[out], &mem);
    assert_eq!(download(&mem, out, 4, 4), [0, 2, 4, 6]);

    let unified = module(
        ".global .attribute(.managed, .unified(0x1234, 0x5678)) .u32 uv = 7;\n\
         .visible .entry k(.param .u64 po)\n{\n.reg .b32 %r1;\n.reg .b64 %rd1;\n\
         ld.param.u64 %rd1, [po];\nld.global.u32 %r1, [uv];\nst.global.u32 [%rd1], %r1;\nret;\n}",
    );
    assert_ptxas_accepts(&unified, &["-c"]);
    let m = Module::parse(&unified).unwrap_or_else(|e| panic!("{e}"));
    run_kernel(&m, "k", 1, &[out], &mem);
    assert_eq!(download(&mem, out, 1, 4), [7]);
}

/// Attributes ptxas refuses on a variable: one the PTX ISA has not, `.managed` on a
/// `.const` variable.
#[test]
fn a_variable_attribute_other_than_managed_or_unified_is_refused() {
    let foo = module(".global .attribute(.foo) .u32 x;\n.visible .entry k() { ret; }");
    assert_eq!(
        refusal(&foo),
        "PTX parse error at line 5: unknown variable attribute `.foo` (the PTX ISA's are `.managed` and \
         `.unified(..)`)"
    );
    let on_const = module(".const .attribute(.managed) .u32 x;\n.visible .entry k() { ret; }");
    assert_eq!(
        refusal(&on_const),
        "PTX parse error at line 5: `.attribute(.managed)` of a variable that is not `.global`"
    );
}

/// A NUL byte, a vertical tab and a no-break space (which ptxas refuses, and Rust's `trim`
/// would take as whitespace or keep unseen) are unexpected characters, shown escaped; a form
/// feed is whitespace, as to ptxas.
#[test]
fn invisible_characters_are_refused_and_shown_escaped() {
    let kernel =
        |c: &str| module(&format!(".visible .entry k()\n{{\n.reg .b32 %r<2>;\nmov.u32 %r0,{c}1;\nret;\n}}"));
    assert_eq!(refusal(&kernel("\0")), "PTX parse error at line 8: unexpected character `\\0`");
    assert_eq!(refusal(&kernel("\u{b}")), "PTX parse error at line 8: unexpected character `\\u{b}`");
    assert_eq!(refusal(&kernel("\u{a0}")), "PTX parse error at line 8: unexpected character `\\u{a0}`");
    assert_eq!(
        refusal(&format!("{}\0", kernel(" "))),
        "PTX parse error at line 11: unexpected character `\\0`"
    );
    let form_feed = kernel("\u{c}");
    assert_ptxas_accepts(&form_feed, &[]);
    assert_eq!(refusal(&form_feed), "");
    // Any message quoting such a character shows it so.
    let e = SimError::Parse { line: 3, message: "expected a directive, found `\0\u{1b}\t`".into() };
    assert_eq!(e.to_string(), "PTX parse error at line 3: expected a directive, found `\\0\\u{1b}\t`");
}
