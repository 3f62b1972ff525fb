//! The tenth adversarial round: mutants of the real PTX fixtures (`tests/data`,
//! `tests/corpus`) that hung the parser, panicked a launch, or loaded although ptxas refuses
//! them with a meaning the simulator made up; each minimised to a small module.

use ptx_sim::{Module, SimError};

/// A device function recursing twice per call that declares `zz<N>` registers without `%`
/// (inline assembly's spelling: each one a register of its own name) was copied with all
/// of them at every inlined call, thousands of calls deep, before the kernel's register
/// count was checked: N = 1024 took 34 s and 2 GB (release build), N = 4096 minutes. The
/// count is now checked at each inlined call; the error names that call's line.
#[test]
fn recursion_declaring_many_registers_is_refused_at_the_call_that_passes_the_limit() {
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\n\
        .func (.param .b32 f_ret) f(.param .b32 f_a)\n{\n\
        \t.reg .b32 zz<1024>;\n\t.reg .b32 %r<4>;\n\tld.param.b32 %r1, [f_a];\n\
        \t{\n\t.param .b32 p;\n\t.param .b32 q;\n\tst.param.b32 [p], %r1;\n\tcall.uni (q), f, (p);\n\tld.param.b32 %r2, [q];\n\t}\n\
        \t{\n\t.param .b32 p;\n\t.param .b32 q;\n\tst.param.b32 [p], %r1;\n\tcall.uni (q), f, (p);\n\tld.param.b32 %r3, [q];\n\t}\n\
        \tadd.s32 %r1, %r2, %r3;\n\tst.param.b32 [f_ret], %r1;\n\tret;\n}\n\n\
        .visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\
        \t{\n\t.param .b32 p;\n\t.param .b32 q;\n\tst.param.b32 [p], %r1;\n\tcall.uni (q), f, (p);\n\t}\n\tret;\n}\n";
    let started = std::time::Instant::now();
    let err = Module::parse(ptx).unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, SimError::Unsupported { line: 14 | 21 | 36, .. })
            && text.contains("the call of `f`")
            && text.contains("2^20 registers"),
        "{text}"
    );
    // (About 1 s in a debug build; the bound only catches a return of the blow-up.)
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}
