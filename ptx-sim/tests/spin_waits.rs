//! Threads of a block that wait for each other without a barrier: a thread spinning until a
//! later thread of its block stores a flag or bumps a counter. On a GPU the warps of a block
//! (and, since Volta, the threads of a warp) make progress independently, so the later
//! thread runs and the wait ends; the simulator must give it a turn too, in kernels with
//! barriers and without, and still stop a wait that nothing ends with `StepBudget`.

mod common;

use common::{download, geo, upload};
use ptx_sim::{launch_with, Memory, Module, SimError, SimOptions};
use ptx_tools::rng::Rng;

/// A kernel `k(out, flag)` of `body`, `%r1` the thread's index in the block, `%rd1` the
/// global address of `out` and `%rd2` that of the flag word.
fn kernel_text(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n\
         .visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u64 k_param_1\n)\n{{\n\
         \t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<16>;\n\t.reg .b64 \t%rd<16>;\n\
         \tld.param.u64 \t%rd0, [k_param_0];\n\tcvta.to.global.u64 \t%rd1, %rd0;\n\
         \tld.param.u64 \t%rd0, [k_param_1];\n\tcvta.to.global.u64 \t%rd2, %rd0;\n\
         \tmov.u32 \t%r1, %tid.x;\n{body}\tret;\n}}\n"
    )
}

/// Runs `body` in one block of `threads` threads over `out` (one u32 per thread, all ones)
/// and a flag word of 0; returns `out`.
fn run(body: &str, threads: u32, options: &SimOptions) -> Result<Vec<u64>, SimError> {
    let text = kernel_text(body);
    let m = Module::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mem = Memory::new();
    let out = upload(&mem, &vec![u64::from(u32::MAX); threads as usize], 4);
    let flag = upload(&mem, &[0], 4);
    launch_with(m.kernel("k").unwrap(), &geo([1, 1, 1], [threads, 1, 1]), &[out, flag], &mem, 1, options)?;
    Ok(download(&mem, out, threads as usize, 4))
}

/// Thread 0 spins on a volatile load of the flag until the last thread stores it, then
/// stores 7; every other thread stores its index (what CUDA C's `while (*(volatile int *)
/// flag == 0) {}` compiles to). With `barrier`, a `bar.sync` first puts the kernel on the
/// simulator's path for kernels with barriers.
fn flag_body(last: u32, barrier: bool) -> String {
    let sync = if barrier { "\tbar.sync \t0;\n" } else { "" };
    format!(
        "{sync}\tmul.wide.u32 \t%rd3, %r1, 4;\n\tadd.s64 \t%rd4, %rd1, %rd3;\n\
         \tsetp.ne.u32 \t%p1, %r1, 0;\n\t@%p1 bra \tOTHERS;\n\
         WAIT:\n\tld.volatile.global.u32 \t%r2, [%rd2];\n\tsetp.eq.u32 \t%p2, %r2, 0;\n\
         \t@%p2 bra \tWAIT;\n\tst.global.u32 \t[%rd4], 7;\n\tbra.uni \tDONE;\n\
         OTHERS:\n\tst.global.u32 \t[%rd4], %r1;\n\tsetp.ne.u32 \t%p3, %r1, {last};\n\
         \t@%p3 bra \tDONE;\n\tmembar.gl;\n\tst.volatile.global.u32 \t[%rd2], 1;\n\
         DONE:\n"
    )
}

#[test]
fn a_thread_waiting_for_a_later_threads_flag_gets_it() {
    let mut rng = Rng::fresh("spin_waits_flag");
    // Block sizes within a warp, across warps and not a multiple of 32.
    for threads in [2, 32, 33, 64 + (rng.next() % 960) as u32] {
        for barrier in [false, true] {
            let out = run(&flag_body(threads - 1, barrier), threads, &SimOptions::default())
                .unwrap_or_else(|e| panic!("{threads} threads, barrier {barrier}: {e}"));
            let want: Vec<u64> = (0..threads).map(|t| if t == 0 { 7 } else { u64::from(t) }).collect();
            assert_eq!(out, want, "{threads} threads, barrier {barrier}");
        }
    }
}

/// A barrier made of a global counter: each thread adds 1 atomically, then spins until the
/// counter reaches the block size, then stores what it read. Every thread must read the
/// full count, whichever threads ran first.
#[test]
fn a_block_barrier_built_from_an_atomic_counter_lets_every_thread_through() {
    let body = "\tmov.u32 \t%r3, %ntid.x;\n\tatom.global.add.u32 \t%r2, [%rd2], 1;\n\
                SPIN:\n\tatom.global.add.u32 \t%r4, [%rd2], 0;\n\tsetp.lt.u32 \t%p1, %r4, %r3;\n\
                \t@%p1 bra \tSPIN;\n\tmul.wide.u32 \t%rd3, %r1, 4;\n\tadd.s64 \t%rd4, %rd1, %rd3;\n\
                \tst.global.u32 \t[%rd4], %r4;\n";
    let mut rng = Rng::fresh("spin_waits_counter");
    for threads in [1, 32, 96, 1 + (rng.next() % 1024) as u32] {
        let out =
            run(body, threads, &SimOptions::default()).unwrap_or_else(|e| panic!("{threads} threads: {e}"));
        assert_eq!(out, vec![u64::from(threads); threads as usize], "{threads} threads");
    }
}

/// A wait that no thread ends (the flag is never stored) still stops with `StepBudget`,
/// naming the waiting thread and its branch, with or without barriers in the kernel, and
/// the budget still bounds a thread that takes many turns.
#[test]
fn a_wait_nothing_ends_still_runs_out_of_budget() {
    for barrier in [false, true] {
        // The last thread's index is out of range: nobody stores the flag.
        let body = flag_body(1000, barrier);
        for budget in [1_000, 200_000] {
            let options = SimOptions { step_budget: budget, ..SimOptions::default() };
            match run(&body, 64, &options) {
                Err(SimError::StepBudget { kernel, thread, budget: b, instruction, .. }) => {
                    assert_eq!((kernel.as_str(), thread, b), ("k", [0, 0, 0], budget), "barrier {barrier}");
                    assert!(instruction.contains("bra"), "names the loop's branch: {instruction}");
                }
                other => panic!("barrier {barrier}, budget {budget}: expected StepBudget, got {other:?}"),
            }
        }
    }
}

/// A wait every thread of a block spins in, which none ends, stops once the block's threads
/// together have run the block's budget, rather than after a budget for each of them (64
/// times as long here), and the error says so.
#[test]
fn threads_that_all_spin_share_a_block_budget() {
    let body =
        "WAIT:\n\tld.volatile.global.u32 \t%r2, [%rd2];\n\tsetp.eq.u32 \t%p2, %r2, 0;\n\t@%p2 bra \tWAIT;\n";
    let budget = 100_000;
    let options = SimOptions { step_budget: budget, block_step_budget: 4 * budget, ..SimOptions::default() };
    match run(body, 256, &options) {
        Err(e @ SimError::StepBudget { block_budget: Some(shared), .. }) => {
            assert_eq!(shared, 4 * budget, "{e}");
            assert!(e.to_string().contains("its block's threads share"), "{e}");
        }
        other => panic!("expected StepBudget for the block, got {other:?}"),
    }
}
