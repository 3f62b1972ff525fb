//! Misuse of the simulator as a new user might commit it: absurd sizes and grids, which
//! must be errors naming what is wrong, never a panic, an abort or a hang.

use ptx_sim::{launch, Geometry, Memory, Module, SimError};

/// A module of one kernel `k` without parameters, with `decls` at module scope.
fn module(decls: &str, body: &str) -> Module {
    let ptx = format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n{decls}\n.visible .entry k()\n{{\n{body}\n}}\n"
    );
    Module::parse(&ptx).unwrap()
}

#[test]
fn allocations_the_host_cannot_hold_are_errors_not_aborts() {
    let memory = Memory::new();
    for bytes in [usize::MAX, usize::MAX / 2, 1 << 50] {
        let err = memory.try_alloc(bytes).unwrap_err();
        assert_eq!(err, SimError::OutOfMemory { bytes: bytes as u64 });
        let text = err.to_string();
        assert!(
            text.contains(&format!("cannot allocate {bytes} bytes")) && text.contains("CUDA device"),
            "{text}"
        );
    }
    // The memory is still usable.
    let a = memory.try_alloc(8).unwrap();
    memory.write(a, &[1; 8]).unwrap();
}

#[test]
fn module_variables_too_large_for_the_host_are_errors() {
    // Past 2^64 bytes: refused when parsing, naming the line and the variable.
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.global .u64 g[4611686018427387904];\n\
               .visible .entry k()\n{\nret;\n}\n";
    let err = Module::parse(ptx).unwrap_err();
    assert!(matches!(err, SimError::Unsupported { line: 4, .. }), "{err}");
    assert!(err.to_string().contains("`g`"), "{err}");
    // 1 PiB: parsed (nothing is allocated for it then), refused when a launch places it.
    let m = module(
        ".global .align 4 .b8 g[1125899906842624];",
        ".reg .b64 %rd<2>;\n.reg .b32 %r<2>;\nmov.u64 %rd1, g;\nld.global.u32 %r1, [%rd1];\nret;",
    );
    let geometry = Geometry { grid: [1, 1, 1], block: [1, 1, 1], dynamic_shared_bytes: 0 };
    let err = launch(m.kernel("k").unwrap(), &geometry, &[], &Memory::new(), 1).unwrap_err();
    assert_eq!(err, SimError::OutOfMemory { bytes: 1 << 50 });
}

#[test]
fn the_step_budget_error_names_every_way_to_raise_it() {
    let m = module("", "L:\nbra.uni L;\nret;");
    let geometry = Geometry { grid: [1, 1, 1], block: [1, 1, 1], dynamic_shared_bytes: 0 };
    let options = ptx_sim::SimOptions { step_budget: 1000, ..Default::default() };
    let err = ptx_sim::launch_with(m.kernel("k").unwrap(), &geometry, &[], &Memory::new(), 1, &options)
        .unwrap_err();
    let text = err.to_string();
    for way in ["SimOptions::step_budget", "Device::sim_with_step_budget", "PTX_DSL_SIM_STEP_BUDGET"] {
        assert!(text.contains(way), "{text}");
    }
}

#[test]
fn a_grid_beyond_the_thread_limit_is_refused_before_it_runs() {
    let m = module("", "ret;");
    // CUDA's largest grid of the largest blocks: 2^31 − 1 × 65535 × 65535 blocks of 1024
    // threads (about 2^73, counted without overflow), years of simulation; refused at once.
    let huge =
        Geometry { grid: [i32::MAX as u32, 65535, 65535], block: [1024, 1, 1], dynamic_shared_bytes: 0 };
    let err = launch(m.kernel("k").unwrap(), &huge, &[], &Memory::new(), 1).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, SimError::BadParams { .. }), "{text}");
    for way in ["SimOptions::max_threads", "PTX_DSL_SIM_MAX_THREADS", "9444444733164249676800 threads"] {
        assert!(text.contains(way), "{text}");
    }
    // At the limit a launch runs: 64 threads with the limit set to 64, and 65 refused.
    let options = ptx_sim::SimOptions { max_threads: 64, ..Default::default() };
    let at = Geometry { grid: [2, 1, 1], block: [32, 1, 1], dynamic_shared_bytes: 0 };
    ptx_sim::launch_with(m.kernel("k").unwrap(), &at, &[], &Memory::new(), 1, &options).unwrap();
    let over = Geometry { grid: [5, 1, 1], block: [13, 1, 1], dynamic_shared_bytes: 0 };
    let err =
        ptx_sim::launch_with(m.kernel("k").unwrap(), &over, &[], &Memory::new(), 1, &options).unwrap_err();
    assert!(matches!(err, SimError::BadParams { .. }), "{err}");
}

#[test]
fn local_memory_past_the_simulators_limit_says_what_the_limit_is() {
    // Beside a kernel that loads, so that the module does (it leaves `k` out).
    let other = ".visible .entry other()\n{\nret;\n}";
    let m = module(other, ".local .align 8 .b8 buf[80000];\n.reg .b64 %rd<2>;\nmov.u64 %rd1, buf;\nret;");
    assert!(m.kernel("other").is_some());
    let why = m.unsupported("k").map(|e| e.to_string()).unwrap_or_default();
    assert!(why.contains("80000 bytes of .local memory per thread"), "{why}");
    assert!(why.contains("at most 64 KiB a thread") && why.contains("CUDA 512 KiB"), "{why}");
    // At the limit it runs.
    let m = module("", ".local .align 8 .b8 buf[65536];\n.reg .b64 %rd<2>;\nmov.u64 %rd1, buf;\nret;");
    let geometry = Geometry { grid: [1, 1, 1], block: [2, 1, 1], dynamic_shared_bytes: 0 };
    launch(m.kernel("k").expect("64 KiB is within the limit"), &geometry, &[], &Memory::new(), 1).unwrap();
}
