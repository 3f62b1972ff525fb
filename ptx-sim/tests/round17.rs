//! What the seventeenth round of probing with PTX the simulator had not seen found, each
//! case assembled by ptxas first (`tests/data/round17_module_data.ptx`): module variables
//! of vector types and of several dimensions with nested initial values, an immediate
//! predicate operand, a module declaration the simulator does not support leaving out only
//! the kernels that use it, and memory faults that say which space they missed.

mod common;

use common::{download, geo, upload};
use ptx_sim::{launch, Memory, Module, SimError};

const MODULE: &str = include_str!("data/round17_module_data.ptx");

#[test]
fn vector_and_multidimensional_variables_are_laid_out_as_ptxas_lays_them() {
    let m = Module::parse(MODULE).unwrap_or_else(|e| panic!("{e}"));
    let mem = Memory::new();
    let out = upload(&mem, &[u64::from(u32::MAX); 12], 4);
    launch(m.kernel("reads").expect("`reads` loads"), &geo([1, 1, 1], [1, 1, 1]), &[out], &mem, 1)
        .unwrap_or_else(|e| panic!("{e}"));
    let got = download(&mem, out, 12, 4);
    // vv = {7, 9}; quad[1] = {5, 6, 7, 8}; grid2 = {{1, 2, 3}, {4, 0, 0}}: [1][0], [1][1]
    // (left zero by the short row) and [0][2]; flat = {{1, 2}, {3, 4}, {5, 0}}: element 4;
    // sv[1] stored and read back (7 + 9); `vote.uni` of the immediate 1 (true) and `selp`
    // of the immediate predicate 0 (false: its second value).
    assert_eq!(got, [7, 9, 5, 6, 7, 4, 0, 3, 5, 16, 1, 6]);
}

#[test]
fn an_unsupported_module_variable_leaves_out_only_the_kernels_that_use_it() {
    let m = Module::parse(MODULE).unwrap_or_else(|e| panic!("{e}"));
    assert!(m.kernel("reads").is_some(), "a kernel that does not name `tex` loads");
    let why = m.unsupported("uses_tex").expect("the kernel naming `tex` is left out").to_string();
    assert!(why.contains("`.texref`") && why.contains("`tex`") && why.contains("`uses_tex`"), "{why}");
}

/// A kernel `k(out)` with a 16-byte shared array, storing at `offset` in `space`.
fn faulting(space: &str, offset: u32) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\t.shared .align 4 .b8 tile[16];\n\
         \t.local .align 4 .b8 depot[16];\n\t.reg .b64 %rd<4>;\n\t.reg .b32 %r<2>;\n\
         \tld.param.u64 %rd0, [out];\n\tmov.u64 %rd1, {base};\n\
         \tst.{space}.u32 \t[%rd1+{offset}], 1;\n\tret;\n}}\n",
        base = match space {
            "shared" => "tile",
            "local" => "depot",
            _ => "%rd0",
        }
    )
}

#[test]
fn a_memory_fault_names_the_space_it_missed() {
    for (space, offset, says) in [
        ("shared", 16, "of the block's shared memory"),
        ("local", 16, "of the thread's local memory"),
        ("global", 4096, "outside every live allocation"),
    ] {
        let text = faulting(space, offset);
        let m = Module::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let mem = Memory::new();
        let out = upload(&mem, &[0], 4);
        let err = launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out], &mem, 1).unwrap_err();
        assert!(matches!(err, SimError::Fault { .. }), "{space}: {err}");
        let message = err.to_string();
        // The instruction's text is written with single spaces (NVRTC indents with tabs).
        assert!(message.contains(says) && message.contains("`st.") && !message.contains('\t'), "{message}");
    }
}

/// Integer immediates where an instruction reads a predicate (`setp`'s combining operand,
/// negated too, and `vote`'s, any non-zero value true, as ptxas takes them), in a kernel
/// whose `%p` registers share a name with a `.texref` variable it does not use
/// (`tests/data/round17_immediate_predicates.ptx`, assembled by ptxas first).
#[test]
fn immediate_predicate_operands_read_as_ptxas_takes_them() {
    let text = include_str!("data/round17_immediate_predicates.ptx");
    let m = Module::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let mem = Memory::new();
    let out = upload(&mem, &[7; 3], 4);
    let k = m.kernel("k").expect("a register `%p` is no use of the variable `p`");
    launch(k, &geo([1, 1, 1], [1, 1, 1]), &[out], &mem, 1).unwrap_or_else(|e| panic!("{e}"));
    // Thread 0: `0 == 0 and 1`, `0 == 0 and !1`, `any(2)`.
    assert_eq!(download(&mem, out, 3, 4), [1, 0, 1]);
}

/// A module variable the simulator cannot lay out, used only inside a device function:
/// the kernel calling the function is left out (naming the variable), the others load
/// (`tests/data/round17_function_uses_texref.ptx`, assembled by ptxas first).
#[test]
fn a_variable_used_through_a_function_leaves_out_its_callers_only() {
    let text = include_str!("data/round17_function_uses_texref.ptx");
    let m = Module::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let why = m.unsupported("calls").expect("the kernel calling `f` is left out").to_string();
    assert!(why.contains("`p`") && why.contains("`calls`"), "{why}");
    let mem = Memory::new();
    let out = upload(&mem, &[0], 4);
    launch(m.kernel("plain").expect("`plain` loads"), &geo([1, 1, 1], [1, 1, 1]), &[out], &mem, 1)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(download(&mem, out, 1, 4), [9]);
}

/// Declarations ptxas refuses are the module's parse errors: a vector's initial value
/// short of its lanes, a vector over 16 bytes, an empty item in a list.
#[test]
fn malformed_vector_and_list_declarations_are_parse_errors() {
    for (decl, says) in [
        (".global .v2 .u32 v = {7};", "takes 2 elements"),
        (".global .v4 .f64 v;", "more than a vector's 16 bytes"),
        (".shared .v4 .u64 s[2];", "more than a vector's 16 bytes"),
        (".global .u32 a[3] = {1, 2,};", "an empty value"),
    ] {
        let text = format!(".version 8.0\n.target sm_80\n.address_size 64\n{decl}\n");
        let err = Module::parse(&text).err().unwrap_or_else(|| panic!("`{decl}` parsed"));
        assert!(matches!(err, SimError::Parse { .. }) && err.to_string().contains(says), "`{decl}`: {err}");
    }
}
