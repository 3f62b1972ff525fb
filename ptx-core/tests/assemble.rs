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

/// The verifier's limits are ptxas's: kernels just inside them (4 352 bytes of parameters,
/// shared arrays aligned to 2^30, names such as `$a` and `_1`, an `.f16` parameter, source
/// files named outside ASCII or with control characters and quotes) assemble; just past
/// them (one parameter more, a `.bf16` parameter, the names `_` and `WARP_SZ`), which
/// `verify` refuses, ptxas refuses too, and so it does a kernel named `vprintf` in a module
/// where a kernel prints. (Alignment 2^31, also refused by `verify`, crashes ptxas 13.5, so
/// it is not run.)
#[test]
fn the_verifiers_limits_are_ptxas_limits() {
    use ptx_core::{KernelBuilder, PtxType};
    let build = |name: &str, params: &[PtxType], align: u32, file: &str| {
        let mut b = KernelBuilder::new(name);
        for (i, &ty) in params.iter().enumerate() {
            b.raw_param(format!("p{i}"), ty);
        }
        b.shared_array(16, align);
        b.note_source(file.to_string(), 1, 1, "the kernel");
        b.ret();
        b.finish()
    };
    let wide =
        |n: usize, first: PtxType| std::iter::once(first).chain(vec![PtxType::U64; n]).collect::<Vec<_>>();
    let inside = [
        build("inside", &wide(543, PtxType::U64), 1 << 30, "src/größe.rs"),
        build("$a", &wide(543, PtxType::U32), 16, "a.rs"),
        build("_1", &[PtxType::F16], 4, "a\u{1}\"b\".rs"),
    ];
    let past = [
        build("past", &wide(544, PtxType::U64), 16, "a.rs"),
        build("half", &[PtxType::Bf16], 16, "a.rs"),
        build("_", &[], 16, "a.rs"),
        build("WARP_SZ", &[], 16, "a.rs"),
    ];
    let vprintf = build("vprintf", &[], 16, "a.rs");
    let prints = {
        let mut b = KernelBuilder::new("prints");
        let format = b.string(b"hello\n");
        b.printf(format, vec![]);
        b.ret();
        b.finish()
    };
    for k in inside.iter().chain([&prints]) {
        ptx_core::verify::verify(k).unwrap_or_else(|e| panic!("{}: {e}", k.name));
    }
    for k in past.iter().chain([&vprintf]) {
        assert!(ptx_core::verify::verify(k).is_err(), "{} verifies", k.name);
    }
    let ptx = ptx_core::print::kernel_ptx(&inside[0], Target::SM_90);
    assert!(ptx.contains(".file 1 \"src/gr%C3%B6%C3%9Fe.rs\""), "{ptx}");
    let ptx = ptx_core::print::kernel_ptx(&inside[2], Target::SM_90);
    assert!(ptx.contains(".file 1 \"a%01/b/.rs\""), "{ptx}");
    let Some(ptxas) = ptxas::ptxas_or_skip("the_verifiers_limits_are_ptxas_limits") else { return };
    for k in &inside {
        let ptx = ptx_core::print::kernel_ptx(k, Target::SM_90);
        if let Err(e) = ptxas::assemble(&ptxas, &ptx, "sm_90") {
            panic!("{}: ptxas refuses a kernel inside the limits: {e}", k.name);
        }
    }
    for k in &past {
        let ptx = ptx_core::print::kernel_ptx(k, Target::SM_90);
        assert!(ptxas::assemble(&ptxas, &ptx, "sm_90").is_err(), "{}: ptxas takes it", k.name);
    }
    let module = ptx_core::print::module_ptx(&[prints, vprintf], Target::SM_90);
    assert!(
        ptxas::assemble(&ptxas, &module, "sm_90").is_err(),
        "ptxas takes a kernel named vprintf beside printf"
    );
}

/// Kernels of one module declare distinct names at its scope: a kernel named like another's
/// string (`a_str0`) is refused by `verify_module`, as ptxas refuses the module; distinct
/// ones pass both.
#[test]
fn a_module_declares_each_name_once() {
    use ptx_core::KernelBuilder;
    let kernel = |name: &str, prints: bool| {
        let mut b = KernelBuilder::new(name);
        if prints {
            let format = b.string(b"hi\n");
            b.printf(format, vec![]);
        }
        b.ret();
        b.finish()
    };
    let clash = [kernel("a", true), kernel("a_str0", false)];
    let err = ptx_core::verify::verify_module(&clash).unwrap_err();
    assert_eq!(err.rule, ptx_core::Rule::KernelName, "{err}");
    assert!(err.to_string().contains("a_str0"), "{err}");
    let twice = [kernel("b", false), kernel("b", false)];
    assert!(ptx_core::verify::verify_module(&twice).is_err(), "two kernels of one name");
    let fine = [kernel("a", true), kernel("b_str0", false)];
    ptx_core::verify::verify_module(&fine).unwrap();
    let Some(ptxas) = ptxas::ptxas_or_skip("a_module_declares_each_name_once") else { return };
    let clash_ptx = ptx_core::print::module_ptx(&clash, Target::SM_90);
    assert!(ptxas::assemble(&ptxas, &clash_ptx, "sm_90").is_err(), "ptxas takes the clash");
    let fine_ptx = ptx_core::print::module_ptx(&fine, Target::SM_90);
    ptxas::assemble(&ptxas, &fine_ptx, "sm_90").unwrap_or_else(|e| panic!("{e}"));
}

/// Each target's `.version` is one ptxas takes for it (too low a version for a newer target,
/// as 8.6 for sm_103, makes every kernel unloadable there), and a capability newer than any
/// the table knows gets the newest target it knows.
#[test]
fn every_known_target_gets_a_version_ptxas_takes() {
    use ptx_core::KernelBuilder;
    assert_eq!(Target::from_compute_capability(13, 0), Target::NEWEST_KNOWN);
    assert_eq!(Target::from_compute_capability(10, 3), Target { major: 10, minor: 3 });
    let mut b = KernelBuilder::new("k");
    b.ret();
    let k = b.finish();
    let Some(ptxas) = ptxas::ptxas_or_skip("every_known_target_gets_a_version_ptxas_takes") else { return };
    // sm_101 is left out: ptxas 13 knows it as sm_110.
    for (major, minor) in
        [(8, 0), (8, 6), (8, 7), (8, 8), (8, 9), (9, 0), (10, 0), (10, 3), (11, 0), (12, 0), (12, 1)]
    {
        let target = Target { major, minor };
        let ptx = ptx_core::print::kernel_ptx(&k, target);
        if let Err(e) = ptxas::assemble(&ptxas, &ptx, &target.to_string()) {
            panic!("{target} (.version {}): {e}", target.min_isa());
        }
    }
}

/// A `.f16` parameter read with the typed builder: `ld` has no `.f16` type, so the read is
/// printed as `ld.param.b16` (it was `ld.param.f16`, which ptxas refuses) and assembles.
#[test]
fn a_half_parameter_is_read_as_its_bits() {
    use ptx_core::{KernelBuilder, F16, F32};
    let mut b = KernelBuilder::new("half_param");
    let p = b.param::<F16>("h");
    let out = b.global_pointer("out");
    let h = b.load_param(p);
    let f = b.cast::<F32, F16>(h);
    b.st_global::<F32>(out, 0, f);
    let ir = b.finish();
    ptx_core::verify::verify(&ir).expect("verifies");
    let ptx = ptx_core::print::kernel_ptx(&ir, Target::SM_80);
    assert!(ptx.contains("ld.param.b16 ") && !ptx.contains("ld.param.f16"), "{ptx}");
    let Some(ptxas) = ptxas::ptxas_or_skip("a_half_parameter_is_read_as_its_bits") else { return };
    for target in [Target::SM_80, Target::SM_90] {
        let ptx = ptx_core::print::kernel_ptx(&ir, target);
        if let Err(e) = ptxas::assemble(&ptxas, &ptx, &target.to_string()) {
            panic!("{e}");
        }
    }
}

/// A `.u8` parameter read into a 16- or 32-bit register, as NVRTC writes it
/// (`ld.param.u8 %rs1, [p]`): valid PTX the verifier refused (no byte register can hold
/// it); it verifies and assembles, and a 64-bit register is still refused.
#[test]
fn a_byte_parameter_is_read_into_a_wider_register() {
    use ptx_core::ir::Instr;
    use ptx_core::{KernelBuilder, PtxType};
    let build = |reg: PtxType| {
        let mut b = KernelBuilder::new("byte_param");
        let p = b.raw_param("p", PtxType::U8);
        let dst = b.raw_reg(reg);
        b.push(Instr::LdParam { ty: PtxType::U8, dst, param: p });
        b.finish()
    };
    let wide = build(PtxType::U64);
    assert!(ptx_core::verify::verify(&wide).is_err(), "a 64-bit register is no byte load's");
    let irs = [build(PtxType::U16), build(PtxType::U32)];
    for ir in &irs {
        ptx_core::verify::verify(ir).expect("verifies");
    }
    let Some(ptxas) = ptxas::ptxas_or_skip("a_byte_parameter_is_read_into_a_wider_register") else { return };
    for ir in &irs {
        let ptx = ptx_core::print::kernel_ptx(ir, Target::SM_80);
        if let Err(e) = ptxas::assemble(&ptxas, &ptx, "sm_80") {
            panic!("{e}");
        }
    }
}
