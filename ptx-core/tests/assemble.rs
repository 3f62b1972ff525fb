//! Every instruction form the builder can emit assembles with NVIDIA's ptxas for sm_80 and
//! sm_90 without errors or warnings, and printing is byte-for-byte deterministic across
//! processes.

use ptx_core::{InstrKind, Target};
use ptx_tools::coverage::{every_form, kinds_used};
use ptx_tools::ptxas;

#[test]
fn every_instruction_form_assembles_for_sm80_and_sm90() {
    let cat = every_form();
    // The coverage claim itself: each variant of Instr appears in the catalog.
    let used = kinds_used(&cat.ir);
    assert_eq!(used, InstrKind::ALL.to_vec(), "catalog misses some Instr variants");
    ptx_core::verify::verify(&cat.ir).expect("catalog verifies");
    let ptx = ptx_core::print::kernel_ptx(&cat.ir, Target::SM_80);
    assert!(ptx.contains("+-8]"), "the catalog has a negative address offset, printed as ptxas wants");
    let Some(ptxas) = ptxas::ptxas_or_skip("every_instruction_form_assembles_for_sm80_and_sm90") else {
        return;
    };
    for target in [Target::SM_80, Target::SM_90] {
        let ptx = ptx_core::print::kernel_ptx(&cat.ir, target);
        match ptxas::assemble(&ptxas, &ptx, &target.to_string()) {
            Ok(a) => assert!(a.registers.is_some(), "no register count in ptxas -v output:\n{}", a.log),
            Err(e) => panic!("{e}"),
        }
    }
}

/// When run as a child process, prints the catalog's PTX and exits.
const CHILD_ENV: &str = "PTX_CORE_PRINT_CATALOG_CHILD";

#[test]
fn printing_is_identical_across_processes() {
    let ptx = ptx_core::print::kernel_ptx(&every_form().ir, Target::SM_90);
    if std::env::var_os(CHILD_ENV).is_some() {
        print!("<<<{ptx}>>>");
        return;
    }
    let exe = std::env::current_exe().expect("test binary path");
    let mut outputs = Vec::new();
    for _ in 0..2 {
        let out = std::process::Command::new(&exe)
            .args(["--exact", "printing_is_identical_across_processes", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, "1")
            .output()
            .expect("run child test process");
        assert!(out.status.success(), "child failed: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let start = text.find("<<<").expect("child printed PTX") + 3;
        let end = text.rfind(">>>").expect("child printed PTX");
        outputs.push(text[start..end].to_string());
    }
    assert_eq!(outputs[0], outputs[1], "two processes printed different PTX");
    assert_eq!(outputs[0], ptx, "a child process printed different PTX from this one");
}
