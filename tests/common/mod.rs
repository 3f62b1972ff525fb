//! Helpers shared by the facade's integration tests.

#![allow(dead_code)] // each test binary uses a different subset

/// Assembles `kernel` with NVIDIA's ptxas for sm_80 and sm_90 and fails on any error; skips
/// with a printed reason when ptxas is missing, unless `PTX_DSL_REQUIRE_PTXAS=1` (then a
/// missing ptxas fails too).
pub fn assert_assembles(test: &str, kernel: &impl ptx_dsl::core::Kernel) {
    use ptx_dsl::core::Target;
    use ptx_tools::ptxas;
    let Some(path) = ptxas::ptxas_or_skip(test) else { return };
    for target in [Target::SM_80, Target::SM_90] {
        let ptx = kernel.try_ptx_for(target).unwrap_or_else(|e| panic!("{test}: {e}"));
        if let Err(e) = ptxas::assemble(&path, &ptx, &target.to_string()) {
            panic!("{test}: ptxas rejects `{}` for {target}: {e}\n{ptx}", kernel.name());
        }
    }
}
