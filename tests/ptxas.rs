//! Every kernel the project ships assembles with NVIDIA's ptxas for sm_80 and sm_90 without
//! errors or warnings (the every-form catalog is checked in ptx-core's own tests).

use ptx_dsl::prelude::*;
use ptx_dsl::rope::seed::{BatchedRope, BatchedRopeBackward};
use ptx_dsl::rope::{Direction, Dtype, Layout, Rope, RopeConfig};
use ptx_tools::{ptxas, sass};

/// The hello-world example, compiled in so its kernel is assembled too.
#[path = "../examples/saxpy.rs"]
#[allow(dead_code)] // its `main` is not called here
mod saxpy_example;

#[path = "../benches/baseline/mod.rs"]
mod baseline;
use baseline::{BatchedRopeUnchecked, BuilderRope};

#[test]
fn rope_kernels_assemble_for_sm80_and_sm90() {
    let Some(ptxas) = ptxas::ptxas_or_skip("rope_kernels_assemble_for_sm80_and_sm90") else { return };
    let shapes = [(32, 128, 10_000.0), (8, 64, 500_000.0), (1, 2, 10_000.0)];
    for (heads, dim, theta) in shapes {
        let kernels: [Box<dyn Kernel>; 2] = [
            Box::new(BatchedRope::new(heads, dim, theta)),
            Box::new(BatchedRopeBackward::new(heads, dim, theta)),
        ];
        for kernel in kernels {
            for target in [Target::SM_80, Target::SM_90] {
                let ptx = kernel.try_ptx_for(target).expect("verifies");
                let a = ptxas::assemble(&ptxas, &ptx, &target.to_string()).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(
                    a.spill_stores_bytes + a.spill_loads_bytes,
                    0,
                    "{} spills on {target}",
                    kernel.name()
                );
            }
        }
    }
}

#[test]
fn example_kernels_assemble_for_sm80_and_sm90() {
    let Some(ptxas) = ptxas::ptxas_or_skip("example_kernels_assemble_for_sm80_and_sm90") else { return };
    for target in [Target::SM_80, Target::SM_90] {
        let ptx = saxpy_example::Saxpy::new().try_ptx_for(target).expect("verifies");
        ptxas::assemble(&ptxas, &ptx, &target.to_string()).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn rope_variants_assemble_and_the_checks_cost_no_spills() {
    let Some(ptxas) = ptxas::ptxas_or_skip("rope_variants_assemble_and_the_checks_cost_no_spills") else {
        return;
    };
    let kernels: [(&str, Box<dyn Kernel>); 3] = [
        ("builder", Box::new(BuilderRope { num_heads: 32, head_dim: 128, theta: 10_000.0 })),
        ("macro, unchecked", Box::new(BatchedRopeUnchecked::new(32, 128, 10_000.0))),
        ("macro, checked", Box::new(BatchedRope::new(32, 128, 10_000.0))),
    ];
    for (what, kernel) in &kernels {
        let a = ptxas::assemble(&ptxas, &kernel.ptx_for(Target::SM_90), "sm_90")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a.spill_stores_bytes + a.spill_loads_bytes, 0, "{what} spills");
        eprintln!("{what}: {:?} registers on sm_90", a.registers);
    }
}

#[test]
fn production_rope_kernels_make_16_byte_global_accesses() {
    // The SASS of every vectorised production kernel (sm_90): the tensor is read with
    // 16-byte loads (`LDG.E.128`, two per head loop of q and of k, two more for the tail
    // copy of partial rotary) and so is the turn table (two pairs per load: two loads for
    // f32's four pairs, four for the 16-bit types' eight); every store is a 16-byte store;
    // only the position is read 4 bytes at a time, and no access is 16-bit.
    let test = "production_rope_kernels_make_16_byte_global_accesses";
    let Some(ptxas) = ptxas::ptxas_or_skip(test) else { return };
    let Some(nvdisasm) = sass::nvdisasm_or_skip(test) else { return };
    for dtype in [Dtype::F32, Dtype::F16, Dtype::Bf16] {
        for layout in [Layout::HalfSplit, Layout::Interleaved] {
            for rotary_dim in [128, 64] {
                let rope =
                    Rope::new(RopeConfig { dtype, layout, rotary_dim, ..RopeConfig::new(128) }).unwrap();
                assert!(rope.vector_width().is_some());
                for in_place in [false, true] {
                    let kernel = rope.kernel(Direction::Forward, in_place);
                    let what = format!("{} {layout:?} rotary {rotary_dim}", kernel.name());
                    let a = ptxas::assemble(&ptxas, &kernel.ptx_for(Target::SM_90), "sm_90")
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                    let listing =
                        sass::disassemble(&nvdisasm, &a.cubin).unwrap_or_else(|e| panic!("{what}: {e}"));
                    let counts = sass::Sass::of(&listing);
                    let wide_loads = counts.count("LDG.E.128", false);
                    let copies_tail = !in_place && rotary_dim < 128;
                    let table_loads = if dtype == Dtype::F32 { 2 } else { 4 };
                    let tensor_loads = if copies_tail { 6 } else { 4 };
                    assert!(wide_loads >= table_loads + tensor_loads, "{what}: {counts:?}");
                    let stores: usize = counts.global_stores.iter().map(|(_, n)| n).sum();
                    assert!(stores >= 4 && stores == counts.count("STG.E.128", true), "{what}: {counts:?}");
                    assert_eq!(counts.count("LDG.E", false), 1, "{what}: the position only: {counts:?}");
                    let narrow =
                        counts.global_loads.iter().filter(|(op, _)| op != "LDG.E.128" && op != "LDG.E");
                    assert_eq!(narrow.count(), 0, "{what}: {counts:?}");
                }
            }
        }
    }
}

#[test]
fn isa_version_is_the_lowest_the_target_needs() {
    let rope = BatchedRope::new(32, 128, 10_000.0);
    assert!(rope.ptx_for(Target::SM_80).contains(".version 7.0\n.target sm_80\n"));
    assert!(rope.ptx_for(Target::SM_90).contains(".version 7.8\n.target sm_90\n"));
}

#[test]
fn production_rope_kernels_assemble_without_stack_or_spills() {
    let Some(ptxas) = ptxas::ptxas_or_skip("production_rope_kernels_assemble_without_stack_or_spills") else {
        return;
    };
    let mut assembled = 0;
    for dtype in [Dtype::F32, Dtype::F16, Dtype::Bf16] {
        for layout in [Layout::HalfSplit, Layout::Interleaved] {
            for (head_dim, rotary_dim) in [(128, 128), (128, 64), (64, 2)] {
                let rope =
                    Rope::new(RopeConfig { dtype, layout, rotary_dim, ..RopeConfig::new(head_dim) }).unwrap();
                for (in_place, vectorised) in [(false, false), (true, false), (false, true), (true, true)] {
                    for direction in [Direction::Forward, Direction::Backward] {
                        let kernel = rope.kernel_variant(direction, in_place, vectorised);
                        for target in [Target::SM_80, Target::SM_90] {
                            let ptx = kernel.try_ptx_for(target).expect("verifies");
                            let a = ptxas::assemble(&ptxas, &ptx, &target.to_string())
                                .unwrap_or_else(|e| panic!("{e}"));
                            let what = format!(
                                "{} {layout:?} rotary {rotary_dim} {direction:?} on {target}",
                                kernel.name()
                            );
                            assert_eq!(a.spill_stores_bytes + a.spill_loads_bytes, 0, "{what} spills");
                            assert!(
                                a.functions.iter().all(|f| f.stack_frame_bytes == 0),
                                "{what} has a stack frame"
                            );
                            assembled += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(assembled, 288);
}
