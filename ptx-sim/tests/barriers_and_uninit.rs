//! What a GPU leaves undefined and the simulator reports instead of running: threads that
//! meet at an aligned barrier (`bar.sync`, `bar.red`, `barrier.sync.aligned`) through
//! different instructions. Every module here is also assembled with ptxas when it is
//! installed.

mod common;

use common::{download, geo};
use ptx_sim::{launch, Memory, Module, SimError};

/// A kernel `k(out)` with `decls` at module scope: `%rd1` holds `out` as a global address,
/// `%r1` the thread's `%tid.x`, `%rd2` the address of `out[%tid.x]` (32-bit elements), then
/// `body`.
fn module(decls: &str, body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n{decls}\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .pred %p<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n\
         \tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\tmov.u32 %r1, %tid.x;\n\
         \tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd2, %rd1, %rd3;\n{body}\n\tret;\n}}\n"
    )
}

/// The 1-based lines of `text` that contain `needle`.
fn lines_of(text: &str, needle: &str) -> Vec<usize> {
    text.lines().enumerate().filter(|(_, l)| l.contains(needle)).map(|(i, _)| i + 1).collect()
}

/// Runs kernel `k` of `text` on one block of `threads` threads; `out[tid]` on success.
fn run(text: &str, threads: u32) -> Result<Vec<u64>, SimError> {
    let m = Module::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mem = Memory::new();
    let out = mem.alloc(threads as usize * 4);
    launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [threads, 1, 1]), &[out], &mem, 1)?;
    Ok(download(&mem, out, threads as usize, 4))
}

/// Threads below 16 run `low`, the others `high` (each a few statements), then `after`.
fn divergent(low: &str, high: &str, after: &str) -> String {
    format!(
        "\tsetp.lt.u32 %p1, %r1, 16;\n\t@%p1 bra LOW;\n{high}\n\tbra.uni JOIN;\nLOW:\n{low}\nJOIN:\n{after}"
    )
}

/// Each thread stores `3 * tid` to its shared slot, waits at `low`'s or `high`'s barrier
/// (below thread 16 or not), and writes its neighbour's slot to `out`.
fn exchange(low: &str, high: &str) -> String {
    let before = "\tmov.u64 %rd4, slots;\n\tmul.wide.u32 %rd5, %r1, 4;\n\tadd.s64 %rd6, %rd4, %rd5;\n\
                  \tmul.lo.u32 %r2, %r1, 3;\n\tst.shared.u32 [%rd6], %r2;\n";
    let after = "\tadd.u32 %r3, %r1, 1;\n\trem.u32 %r3, %r3, 64;\n\tmul.wide.u32 %rd7, %r3, 4;\n\
                 \tadd.s64 %rd8, %rd4, %rd7;\n\tld.shared.u32 %r4, [%rd8];\n\tst.global.u32 [%rd2], %r4;";
    module(".shared .align 4 .b8 slots[256];", &format!("{before}{}", divergent(low, high, after)))
}

/// The barrier modules of this file: `exchange` through each spelling, and the reductions.
fn barrier_modules() -> Vec<String> {
    let mut all: Vec<String> = ["bar.sync 0;", "barrier.sync.aligned 0;", "barrier.cta.sync.aligned 0;"]
        .iter()
        .chain(&["barrier.sync 0;", "barrier.cta.sync 0;", "bar.cta.sync 0;"])
        .map(|b| exchange(&format!("\t{b}"), &format!("\t{b}")))
        .collect();
    all.push(exchange("\tbarrier.sync 0;", "\tbar.sync 0;"));
    all.extend(reductions().into_iter().map(|(_, text)| text));
    all.push(device_function_barrier());
    all
}

/// A thread reaching an aligned barrier (`bar.sync`, spelled three ways) through another
/// instruction than the others is an error naming both instructions' PTX lines and the
/// first thread at each, and how many wait there.
#[test]
fn aligned_barriers_in_both_arms_of_a_branch_are_errors() {
    for b in ["bar.sync 0;", "barrier.sync.aligned 0;", "barrier.cta.sync.aligned 0;", "bar.cta.sync 0;"] {
        let text = exchange(&format!("\t{b}"), &format!("\t{b}"));
        let err = run(&text, 64).unwrap_err();
        let SimError::Barrier { ref message, .. } = err else { panic!("{b}: {err}") };
        let lines = lines_of(&text, b);
        assert_eq!(lines.len(), 2, "{text}");
        // Thread 0 took the `LOW` arm, written second.
        for want in [
            format!(
                "16 thread(s) (first: thread (0, 0, 0)) at `{}` (PTX line {})",
                b.trim_end_matches(';'),
                lines[1]
            ),
            format!(
                "48 thread(s) (first: thread (16, 0, 0)) at `{}` (PTX line {})",
                b.trim_end_matches(';'),
                lines[0]
            ),
            "through different instructions".to_string(),
            "aligned".to_string(),
        ] {
            assert!(message.contains(&want), "{b}: `{want}` not in: {err}");
        }
        assert!(err.to_string().contains("barrier misuse in kernel `k`"), "{err}");
    }
}

/// `barrier.sync` without `.aligned` may be reached through different instructions (the
/// PTX ISA allows it): the threads meet, and the stores before it are seen after it.
#[test]
fn non_aligned_barriers_may_be_different_instructions() {
    let want: Vec<u64> = (0..64).map(|t| (t + 1) % 64 * 3).collect();
    for b in ["barrier.sync 0;", "barrier.cta.sync 0;"] {
        assert_eq!(run(&exchange(&format!("\t{b}"), &format!("\t{b}")), 64).unwrap(), want, "{b}");
    }
    // One instruction reached by all: aligned or not, it runs.
    for b in ["bar.sync 0;", "barrier.sync.aligned 0;"] {
        let text = exchange("", "").replace("JOIN:\n", &format!("JOIN:\n\t{b}\n"));
        assert_eq!(run(&text, 64).unwrap(), want, "{b}");
    }
    // An aligned barrier is aligned whichever instruction it meets.
    let err = run(&exchange("\tbarrier.sync 0;", "\tbar.sync 0;"), 64).unwrap_err();
    assert!(matches!(err, SimError::Barrier { .. }), "{err}");
}

/// Reductions reached through two instructions: `bar.red` (aligned) and
/// `barrier.red.aligned` are errors, `barrier.red` of one reduction meets and gives each
/// thread the block's result in its own instruction's destination, and `barrier.red`
/// mixed with another reduction or with `barrier.sync` is an error (the PTX ISA: their
/// execution is unpredictable). Each: its name, and the module.
fn reductions() -> Vec<(&'static str, String)> {
    // `%p2`: the thread is odd; `%r5` its count of odd threads, stored to `out`.
    let odd = "\tand.b32 %r2, %r1, 1;\n\tsetp.eq.u32 %p2, %r2, 1;\n";
    let with = |low: &str, high: &str| {
        module("", &format!("{odd}{}", divergent(low, high, "\tst.global.u32 [%rd2], %r5;")))
    };
    vec![
        ("bar.red", with("\tbar.red.popc.u32 %r5, 0, %p2;", "\tbar.red.popc.u32 %r5, 0, %p2;")),
        (
            "barrier.red.aligned",
            with(
                "\tbarrier.red.popc.aligned.u32 %r5, 0, %p2;",
                "\tbarrier.red.aligned.popc.u32 %r5, 0, %p2;",
            ),
        ),
        (
            "barrier.red",
            with(
                "\tbarrier.red.popc.u32 %r5, 0, %p2;",
                "\tbarrier.red.popc.u32 %r6, 0, !%p2;\n\tmov.u32 %r5, %r6;",
            ),
        ),
        (
            "barrier.red.and with barrier.red.popc",
            with(
                "\tbarrier.red.popc.u32 %r5, 0, %p2;",
                "\tbarrier.red.and.pred %p3, 0, %p2;\n\tselp.u32 %r5, 1, 0, %p3;",
            ),
        ),
        ("barrier.red with barrier.sync", with("\tbarrier.red.popc.u32 %r5, 0, %p2;", "\tbarrier.sync 0;")),
    ]
}

#[test]
fn reductions_through_different_instructions() {
    for (what, text) in reductions() {
        let result = run(&text, 64);
        match what {
            // 16 of the 32 low threads count odd ones, 48 high ones count even ones: each
            // predicate as its own instruction negates it.
            "barrier.red" => assert_eq!(result.unwrap(), vec![8 + 24; 64], "{what}"),
            _ => {
                let err = result.unwrap_err();
                assert!(
                    matches!(err, SimError::Barrier { ref message, .. } if message.contains("different instructions")),
                    "{what}: {err}"
                );
            }
        }
    }
}

/// A device function whose body waits at `bar.sync 0`, called from both arms of a
/// divergent branch.
fn device_function_barrier() -> String {
    let func = ".func wait_then_load(.param .b64 slot)\n{\n\t.reg .b64 %a<2>;\n\t\
                ld.param.u64 %a1, [slot];\n\tbar.sync 0;\n\tret;\n}";
    let call = "\t{\n\t.param .b64 p0;\n\tst.param.b64 [p0], %rd6;\n\tcall wait_then_load, (p0);\n\t}";
    exchange(call, call).replace(".visible .entry", &format!("{func}\n\n.visible .entry"))
}

/// The simulator inlines device functions, but a barrier in one is one instruction,
/// however many calls reach it (on a GPU the calls run the function's one body): threads
/// that reach it from different call sites meet there.
#[test]
fn a_barrier_in_a_device_function_is_one_instruction_for_every_call() {
    let want: Vec<u64> = (0..64).map(|t| (t + 1) % 64 * 3).collect();
    assert_eq!(run(&device_function_barrier(), 64).unwrap(), want);
}

/// Every module of this file is valid PTX for ptxas (sm_80).
#[test]
fn ptxas_accepts_every_module() {
    let Some(ptxas) = ptx_tools::ptxas::ptxas_or_skip("ptxas_accepts_every_module") else { return };
    for text in barrier_modules() {
        if let Err(e) = ptx_tools::ptxas::assemble(&ptxas, &text, "sm_80") {
            panic!("ptxas rejects:\n{text}\n{e}");
        }
    }
}
