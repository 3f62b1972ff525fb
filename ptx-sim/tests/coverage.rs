//! Parses and runs `ptx_tools::coverage::every_form`, the kernel that uses every
//! instruction form the builder and verifier accept.

mod common;

use common::{download, upload};
use ptx_core::PtxType;
use ptx_sim::{launch, Geometry, Memory, Module};
use ptx_tools::coverage::{every_form, SCALAR_PARAMS, SCRATCH_PER_THREAD, THREADS};
use ptx_tools::rng::Rng;

#[test]
fn every_instruction_form_parses_and_runs() {
    let cat = every_form();
    ptx_core::verify::verify(&cat.ir).expect("catalog verifies");
    let ptx = ptx_core::print::kernel_ptx(&cat.ir, ptx_core::Target::SM_80);
    let m = Module::parse(&ptx).unwrap_or_else(|e| panic!("{e}"));
    let k = m.kernel("every_form").expect("kernel");
    assert!(k.op_count() > cat.ir.instruction_count(), "every instruction decoded");
    assert_eq!(k.params().len(), 3 + SCALAR_PARAMS.len());

    let run = |seed: u64, workers: usize| {
        let mut r = Rng(seed);
        let mem = Memory::new();
        let input: Vec<u64> = (0..cat.input_bytes / 8).map(|_| r.next()).collect();
        let ib = upload(&mem, &input, 8);
        let out_bytes = (cat.record_bytes * THREADS) as usize;
        let ob = mem.alloc(out_bytes);
        let sb = mem.alloc((SCRATCH_PER_THREAD * THREADS) as usize);
        let mut params = vec![ib, ob, sb];
        for ty in SCALAR_PARAMS {
            let v = r.next();
            params.push(match ty.bits() {
                32 if ty == PtxType::F32 => (1.5f32 + (v % 100) as f32).to_bits() as u64,
                32 => v & 0xffff_ffff,
                _ if ty == PtxType::F64 => (2.25f64 + (v % 100) as f64).to_bits(),
                _ => v,
            });
        }
        let g = Geometry { grid: [1, 1, 1], block: [THREADS, 1, 1], dynamic_shared_bytes: 0 };
        let stats = launch(k, &g, &params, &mem, workers).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stats.threads, THREADS as u64);
        assert!(stats.instructions >= cat.ir.instruction_count() as u64);
        download(&mem, ob, out_bytes / 8, 8)
    };
    let a = run(11, 1);
    assert!(a.iter().filter(|v| **v != 0).count() > a.len() / 4, "outputs are written");
    assert_eq!(a, run(11, 2), "deterministic");
    assert_ne!(a, run(12, 1), "outputs depend on the inputs");
}
