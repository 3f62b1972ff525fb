//! What the twenty-fourth round of probing found: `0d` immediates of `.f32` instructions and
//! `0f` ones of `.f64` instructions (valid PTX) called malformed; `.blocksareclusters` and
//! `.alias` refusing a whole module; PTX that ptxas refuses (an unknown `.version` or
//! `.target`, a float literal past a double's range, an empty `.branchtargets`) accepted; a
//! vector store to a call parameter faulting, as a global access, only after a sibling call
//! block; and an out-of-range `brx.idx` reported as a bare trap. Each valid module is
//! assembled for sm_90 by ptxas first, and each invalid one checked to be refused by it too,
//! where ptxas is found.

mod common;

use common::{download, geo, upload};
use ptx_sim::{launch, Memory, Module};

/// Whether ptxas takes `ptx` for sm_90; `None` (having said why) where it is not found.
fn ptxas_takes(ptx: &str) -> Option<bool> {
    let ptxas = ptx_tools::ptxas::ptxas_or_skip("round24")?;
    Some(ptx_tools::ptxas::assemble_with_args(&ptxas, ptx, "sm_90", &[]).is_ok())
}

/// Panics unless ptxas (where found) takes `ptx`.
fn assert_ptxas_accepts(ptx: &str) {
    assert_ne!(ptxas_takes(ptx), Some(false), "ptxas rejects the case:\n{ptx}");
}

/// Panics unless ptxas (where found) refuses `ptx`.
fn assert_ptxas_refuses(ptx: &str) {
    assert_ne!(ptxas_takes(ptx), Some(true), "ptxas accepts the case:\n{ptx}");
}

/// A module of the header lines (PTX 8.0, sm_90) and `rest`.
fn module(rest: &str) -> String {
    format!(".version 8.0\n.target sm_90\n.address_size 64\n{rest}\n")
}

/// A module with a one-thread kernel `k(out)` running `body` after loading `out`'s first
/// element (registers `%f1..3` `.f32`, `%fd1..3` `.f64`, `%p1`, `%rd1` = out; `%f2` holds
/// the element as an f32).
fn float_kernel(body: &str) -> String {
    module(&format!(
        ".visible .entry k(.param .u64 out)\n{{\n.reg .b64 %rd<4>;\n.reg .f32 %f<4>;\n.reg .f64 %fd<4>;\n\
         .reg .pred %p1;\nld.param.u64 %rd1, [out];\nld.global.f32 %f2, [%rd1];\n{body}\nret;\n}}"
    ))
}

/// Runs kernel `k` of `ptx` on one thread with a one-element buffer of `bytes` holding
/// `input`; the element after the launch, or why the simulator refused or stopped.
fn run_one(ptx: &str, input: u64, bytes: usize) -> Result<u64, String> {
    let m = Module::parse(ptx).map_err(|e| e.to_string())?;
    let k = m.kernel("k").ok_or_else(|| m.unsupported("k").map(|e| e.to_string()).unwrap_or_default())?;
    let mem = Memory::new();
    let out = upload(&mem, &[input], bytes);
    launch(k, &geo([1, 1, 1], [1, 1, 1]), &[out], &mem, 1).map_err(|e| e.to_string())?;
    Ok(download(&mem, out, 1, bytes)[0])
}

/// Why the simulator refuses `ptx` (its kernel `k`); empty when it takes it.
fn refusal(ptx: &str) -> String {
    match Module::parse(ptx) {
        Err(e) => e.to_string(),
        Ok(m) => m.unsupported("k").map(|e| e.to_string()).unwrap_or_default(),
    }
}

/// A `0d` (double) immediate of an `.f32` instruction is the double rounded to the nearest
/// f32, ties to even (ptxas: `fma.rn.f32 %f1, %f2, 0d4000000000000000, 0d3FF0000000000000`
/// is `FFMA R5, R0, 2, 1`), as a decimal literal is: it used to be "malformed".
#[test]
fn a_0d_immediate_of_an_f32_instruction_is_rounded_to_f32() {
    let one = u64::from(1.0f32.to_bits());
    for (body, want) in [
        ("mov.f32 %f1, 0d3FF8000000000000;", 1.5f32),
        ("add.f32 %f1, %f2, 0d3FF8000000000000;", 2.5),
        ("fma.rn.f32 %f1, %f2, 0d4000000000000000, 0d3FF0000000000000;", 3.0),
        // 1 + 2^-24 lies halfway between 1 and the next f32: to even, 1.
        ("mul.f32 %f1, %f2, 0d3FF0000010000000;", 1.0),
        // 1 + 3·2^-25 is nearer 1 + 2^-23.
        ("mul.f32 %f1, %f2, 0D3FF0000018000000;", 1.0 + f32::EPSILON),
        // Past f32's range: infinity, as ptxas stores it.
        ("mov.f32 %f1, 0d47F0000000000000;", f32::INFINITY),
        ("setp.lt.f32 %p1, %f2, 0d4000000000000000;\nselp.f32 %f1, 0f40400000, 0f00000000, %p1;", 3.0),
    ] {
        let ptx = float_kernel(&format!("{body}\nst.global.f32 [%rd1], %f1;"));
        assert_ptxas_accepts(&ptx);
        let got = run_one(&ptx, one, 4).unwrap_or_else(|e| panic!("{body}: {e}"));
        assert_eq!(got as u32, want.to_bits(), "{body}");
    }
}

/// A `0f` immediate of an `.f64` instruction is its 32 bits zero-extended (ptxas: `UMOV UR6,
/// 0x3fc00000; UMOV UR7, 0x0; DADD`), as the same literal initialises an `.f64` variable:
/// one reading for both.
#[test]
fn a_0f_immediate_of_an_f64_instruction_is_zero_extended_as_in_an_initialiser() {
    let ptx = module(
        ".global .f64 y = 0f3FC00000;\n\
         .visible .entry k(.param .u64 out)\n{\n.reg .b64 %rd<4>;\n.reg .f64 %fd<4>;\n\
         ld.param.u64 %rd1, [out];\nld.global.f64 %fd1, [%rd1];\nadd.f64 %fd2, %fd1, 0f3FC00000;\n\
         ld.global.f64 %fd3, [y];\nadd.f64 %fd3, %fd1, %fd3;\nsub.f64 %fd3, %fd3, %fd2;\n\
         st.global.v2.f64 [%rd1], {%fd2, %fd3};\nret;\n}",
    );
    assert_ptxas_accepts(&ptx);
    let m = Module::parse(&ptx).unwrap_or_else(|e| panic!("{e}"));
    let mem = Memory::new();
    let out = upload(&mem, &[1.0f64.to_bits(), 7], 8);
    launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out], &mem, 1)
        .unwrap_or_else(|e| panic!("{e}"));
    let got = download(&mem, out, 2, 8);
    assert_eq!(f64::from_bits(got[0]), 1.0 + f64::from_bits(0x3fc0_0000));
    assert_eq!(f64::from_bits(got[1]), 0.0, "the immediate and the initialiser differ");
    // A `0f` or `0d` literal of the wrong length is still malformed, as to ptxas.
    for imm in ["0f3FC0000", "0d3FF000000000000"] {
        let bad = float_kernel(&format!("add.f64 %fd1, %fd2, {imm};"));
        assert_ptxas_refuses(&bad);
        assert!(refusal(&bad).contains(&format!("malformed immediate `{imm}` for type .f64")), "{imm}");
    }
}

/// `.blocksareclusters` (PTX 9.0: the launch's grid counts clusters) leaves out only its
/// kernel, naming the directive; it used to make the whole module a parse error.
#[test]
fn blocksareclusters_leaves_out_only_its_kernel() {
    let ptx = ".version 9.0\n.target sm_90\n.address_size 64\n\
        .visible .entry other(.param .u64 out)\n{\n.reg .b64 %rd1;\nld.param.u64 %rd1, [out];\n\
        st.global.u32 [%rd1], 9;\nret;\n}\n\
        .visible .entry k3(.param .u64 out) .reqntid 32, 1, 1 .reqnctapercluster 2, 1, 1 .blocksareclusters\n\
        {\nret;\n}\n";
    assert_ptxas_accepts(ptx);
    let m = Module::parse(ptx).unwrap_or_else(|e| panic!("{e}"));
    let mem = Memory::new();
    let out = upload(&mem, &[0], 4);
    launch(m.kernel("other").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out], &mem, 1).unwrap();
    assert_eq!(download(&mem, out, 1, 4), [9]);
    assert!(m.kernel("k3").is_none());
    let why = m.unsupported("k3").map(|e| e.to_string()).unwrap_or_default();
    assert_eq!(
        why,
        "PTX line 11: the simulator does not support entry directive `.blocksareclusters` (a grid \
         counted in clusters of blocks) in kernel `k3`; run this kernel on a CUDA device or avoid that \
         construct"
    );
}

/// `twice(a) = 2a` and `.alias` names for it: a call of an alias calls its aliasee (an alias
/// of an alias too, declared in either order), and kernels that call none load as before.
/// `.alias` used to refuse the whole module.
#[test]
fn a_call_of_an_alias_calls_its_aliasee() {
    let call = |kernel: &str, f: &str, x: u32| {
        format!(
            ".visible .entry {kernel}(.param .u64 out)\n{{\n.reg .b32 %r<3>;\n.reg .b64 %rd1;\n\
             ld.param.u64 %rd1, [out];\n{{\n.param .b32 a;\n.param .b32 r;\nst.param.b32 [a], {x};\n\
             call.uni (r), {f}, (a);\nld.param.b32 %r2, [r];\n}}\nst.global.u32 [%rd1], %r2;\nret;\n}}\n"
        )
    };
    let ptx = module(&format!(
        ".func (.param .b32 r) twice (.param .b32 a)\n{{\n.reg .b32 %x;\nld.param.b32 %x, [a];\n\
         add.u32 %x, %x, %x;\nst.param.b32 [r], %x;\nret;\n}}\n\
         .func (.param .b32 r) twice_alias (.param .b32 a);\n\
         .func (.param .b32 r) second (.param .b32 a);\n\
         .alias second, twice_alias;\n\
         {}{}{}.alias twice_alias, twice;\n",
        call("k", "twice", 21),
        call("via_alias", "twice_alias", 5),
        call("via_second", "second", 7),
    ));
    assert_ptxas_accepts(&ptx);
    let m = Module::parse(&ptx).unwrap_or_else(|e| panic!("{e}"));
    let mem = Memory::new();
    for (kernel, want) in [("k", 42), ("via_alias", 10), ("via_second", 14)] {
        let out = upload(&mem, &[0], 4);
        let k = m.kernel(kernel).unwrap_or_else(|| panic!("{kernel}: {:?}", m.unsupported(kernel)));
        launch(k, &geo([1, 1, 1], [1, 1, 1]), &[out], &mem, 1).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(download(&mem, out, 1, 4), [want], "{kernel}");
    }
}

/// An alias of a function the simulator cannot read leaves out only the kernels that call
/// it, with the function's reason, as a call of the function itself does.
#[test]
fn an_alias_of_an_unreadable_function_leaves_out_only_its_callers() {
    let ptx = module(
        ".func (.param .b64 r) sp ()\n{\n.reg .b64 %s;\nstacksave.u64 %s;\nst.param.b64 [r], %s;\nret;\n}\n\
         .func (.param .b64 r) sp_alias ();\n.alias sp_alias, sp;\n\
         .visible .entry k()\n{\n.reg .b64 %rd1;\n{\n.param .b64 r;\ncall.uni (r), sp_alias, ();\n\
         ld.param.b64 %rd1, [r];\n}\nret;\n}\n\
         .visible .entry other()\n{\nret;\n}",
    );
    assert_ptxas_accepts(&ptx);
    let m = Module::parse(&ptx).unwrap_or_else(|e| panic!("{e}"));
    assert!(m.kernel("other").is_some());
    assert!(refusal(&ptx).contains("stacksave"), "{}", refusal(&ptx));
}

/// An `.alias` of a function the module does not define, or whose alias is defined with a
/// body, is refused, as ptxas refuses it ("Unknown symbol", "Illegal redefinition of
/// function .. as alias").
#[test]
fn an_alias_of_nothing_or_of_a_defined_function_is_refused() {
    let twice = ".func (.param .b32 r) twice (.param .b32 a)\n{\n.reg .b32 %x;\nld.param.b32 %x, [a];\n\
                 add.u32 %x, %x, %x;\nst.param.b32 [r], %x;\nret;\n}\n";
    let decl = ".func (.param .b32 r) ta (.param .b32 a);\n";
    let kernel = ".visible .entry k()\n{\nret;\n}";
    for (rest, want) in [
        (
            format!("{twice}{decl}.alias ta, nope;\n{kernel}"),
            "PTX parse error at line 13: `.alias ta, nope`: the module defines no function `nope`",
        ),
        (
            format!("{twice}{decl}.alias twice, ta;\n{kernel}"),
            "PTX parse error at line 13: `.alias twice, ta`: `twice` is no function declared without a body",
        ),
        (
            format!("{twice}.alias ta twice;\n{kernel}"),
            "PTX parse error at line 12: malformed `.alias` directive `.alias ta twice;`",
        ),
    ] {
        let ptx = module(&rest);
        assert_ptxas_refuses(&ptx);
        assert_eq!(refusal(&ptx), want, "{ptx}");
    }
}

/// A kernel `k` that does nothing, for modules whose header is the case.
const EMPTY_KERNEL: &str = ".visible .entry k(.param .u64 out)\n{\nret;\n}";

/// A `.version` or `.target` ptxas 13.5 does not know is refused as ptxas refuses it
/// ("Unsupported .version 99.9; current version is '9.5'", "Unsupported .target
/// 'sm_1000'"); the simulator used to read any. Those it knows are read.
#[test]
fn versions_and_targets_ptxas_does_not_know_are_refused() {
    let unknown = |what: &str| {
        format!(
            "the simulator does not support {what}, which ptxas 13.5 does not know (the simulator reads \
             {}); run this kernel on a CUDA device or avoid that construct",
            if what.starts_with("PTX") {
                "those it does, 1.0 to 9.5"
            } else {
                "the targets it does, sm_10 to sm_121"
            }
        )
    };
    for (version, target, want) in [
        ("99.9", "sm_90", format!("PTX line 1: {}", unknown("PTX ISA version 99.9"))),
        ("8.9", "sm_90", format!("PTX line 1: {}", unknown("PTX ISA version 8.9"))),
        ("8.0", "sm_1000", format!("PTX line 2: {}", unknown("target `sm_1000`"))),
        ("8.0", "sm_90f", format!("PTX line 2: {}", unknown("target `sm_90f`"))),
        ("8.0", "sm_90, textmode_unified", format!("PTX line 2: {}", unknown("target `textmode_unified`"))),
    ] {
        let ptx = format!(".version {version}\n.target {target}\n.address_size 64\n{EMPTY_KERNEL}");
        assert_ptxas_refuses(&ptx);
        assert_eq!(refusal(&ptx), want, "{ptx}");
    }
    for (version, target) in [("9.5", "sm_90"), ("7.8", "sm_90, texmode_independent"), ("8.8", "compute_90")]
    {
        let ptx = format!(".version {version}\n.target {target}\n.address_size 64\n{EMPTY_KERNEL}");
        assert_ptxas_accepts(&ptx);
        assert_eq!(refusal(&ptx), "", "{ptx}");
    }
}

/// A float literal past a double's range, as ptxas reads every decimal, is its "Constant
/// overflow" in an instruction or an initial value, of an `.f32` or an `.f64`; the
/// simulator used to store infinity or zero. Within a double's range a literal is read
/// however it rounds in an f32 (`1e39` is +inf, `1e-50` zero; an exact zero with a huge
/// exponent is zero), as ptxas reads it.
#[test]
fn float_literals_past_a_doubles_range_are_refused() {
    let overflow = |line: usize, what: &str, lit: &str| {
        format!(
            "PTX parse error at line {line}: {what}constant overflow: `{lit}` is beyond the range of a \
             double, as which PTX reads a float literal"
        )
    };
    for (body, lit) in [
        ("mov.f32 %f1, 1e400;", "1e400"),
        ("mov.f64 %fd1, -1e400;", "-1e400"),
        ("add.f64 %fd1, %fd1, 1e-310;", "1e-310"),
        ("mov.f32 %f1, 1e-400;", "1e-400"),
    ] {
        let ptx = float_kernel(body);
        assert_ptxas_refuses(&ptx);
        assert_eq!(refusal(&ptx), overflow(12, "", lit), "{ptx}");
    }
    let ptx = module(&format!(".global .f64 x = 1.7976931348623159e308;\n{EMPTY_KERNEL}"));
    assert_ptxas_refuses(&ptx);
    assert_eq!(refusal(&ptx), overflow(4, "`x`: ", "1.7976931348623159e308"));
    for (lit, want) in [("1e39", f32::INFINITY), ("-1e39", f32::NEG_INFINITY), ("1e-50", 0.0), ("0e999", 0.0)]
    {
        let ptx = float_kernel(&format!("mov.f32 %f1, {lit};\nst.global.f32 [%rd1], %f1;"));
        assert_ptxas_accepts(&ptx);
        assert_eq!(run_one(&ptx, 7, 4), Ok(u64::from(want.to_bits())), "{lit}");
    }
    let ptx = float_kernel("mov.f64 %fd1, 2.2250738585072014e-308;\nst.global.f64 [%rd1], %fd1;");
    assert_ptxas_accepts(&ptx);
    assert_eq!(run_one(&ptx, 7, 8), Ok(f64::MIN_POSITIVE.to_bits()));
}

/// A `.branchtargets` list without a label is ptxas's syntax error; the simulator used to
/// take it as an empty jump table.
#[test]
fn a_branchtargets_list_without_a_label_is_refused() {
    let ptx = float_kernel("ts: .branchtargets ;");
    assert_ptxas_refuses(&ptx);
    assert_eq!(refusal(&ptx), "PTX parse error at line 12: `.branchtargets` without a label to branch to");
}

/// A call parameter declared `.align 4` and stored whole by `st.param.v2.u32` (as ptxas takes
/// it) after a sibling call block with a 4-byte parameter: it used to be placed at offset 4,
/// where the 8-byte store faulted as a global access "outside every live allocation";
/// call parameters now start 16-byte aligned. A vector access misaligned inside a parameter
/// still faults, naming the `.param` space and why.
#[test]
fn a_vector_store_to_a_call_parameter_is_aligned_after_a_sibling_call_block() {
    let ptx = |offset: u32| {
        module(&format!(
            ".func g (.param .b32 n)\n{{\nret;\n}}\n\
             .func (.param .b32 res) first (.param .align 4 .b8 in[12])\n{{\n.reg .b32 %a;\n\
             ld.param.u32 %a, [in+{}];\nst.param.b32 [res], %a;\nret;\n}}\n\
             .visible .entry k(.param .u64 pout)\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd1;\nmov.u32 %r1, 5;\n\
             {{\n.param .b32 n;\nst.param.b32 [n], %r1;\ncall.uni g, (n);\n}}\n\
             {{\n.param .align 4 .b8 in[12];\n.param .b32 res;\nst.param.v2.u32 [in+{offset}], {{%r1, 1000}};\n\
             call.uni (res), first, (in);\nld.param.b32 %r2, [res];\n}}\n\
             ld.param.u64 %rd1, [pout];\nst.global.u32 [%rd1], %r2;\nret;\n}}",
            offset + 4
        ))
    };
    let aligned = ptx(0);
    assert_ptxas_accepts(&aligned);
    assert_eq!(run_one(&aligned, 0, 4), Ok(1000));
    let misaligned = ptx(4);
    assert_ptxas_accepts(&misaligned);
    let err = run_one(&misaligned, 0, 4).unwrap_err();
    assert!(
        err.contains("accessed offset 0x14 of the thread's call parameters (`.param` space)")
            && err.contains("a vector access must be aligned to the whole vector's size")
            && err.contains("at `st.param.v2.u32 [in+4], {%r1, 1000}`"),
        "{err}"
    );
}

/// `brx.idx` with an index past its `.branchtargets` list (undefined in the PTX ISA) stops
/// the launch naming the index and the list's length; it used to read as a bare `trap`.
#[test]
fn an_out_of_range_brx_index_names_the_index_and_the_list() {
    let ptx = module(
        ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd1;\n\
         ld.param.u64 %rd1, [out];\nld.global.u32 %r1, [%rd1];\n\
         ts: .branchtargets L0, L1;\nbrx.idx %r1, ts;\n\
         L0: mov.u32 %r2, 100;\nbra.uni D;\nL1: mov.u32 %r2, 201;\n\
         D: st.global.u32 [%rd1], %r2;\nret;\n}",
    );
    assert_ptxas_accepts(&ptx);
    assert_eq!(run_one(&ptx, 0, 4), Ok(100));
    assert_eq!(run_one(&ptx, 1, 4), Ok(201));
    assert_eq!(
        run_one(&ptx, 7, 4),
        Err("kernel `k` trapped: block (0, 0, 0) thread (0, 0, 0) executed `brx.idx %r1, ts (index 7, \
             outside its list of 2 targets: undefined in the PTX ISA)`"
            .to_string())
    );
}

/// An initialiser of a two-dimensional array with a huge inner dimension: each row was
/// padded to its width in memory first (`[2][2147483648]`, 32 GiB), which aborted the
/// process; now an error saying the simulator does not lay it out. (A mutant of the
/// fixtures found it.)
#[test]
fn an_initialiser_padded_past_the_limit_is_an_error_not_an_abort() {
    let ptx = module(".global .u32 t[2][2147483648] = {{1}, {2}};\n.visible .entry k()\n{\nret;\n}");
    let why = Module::parse(&ptx).map(|_| ()).unwrap_err().to_string();
    assert!(why.contains("more than the simulator lays out"), "{why}");
    // A small one is laid out as before.
    let ptx = module(".global .u32 t[2][3] = {{1}, {2, 3}};\n.visible .entry k()\n{\nret;\n}");
    assert!(Module::parse(&ptx).is_ok());
}
