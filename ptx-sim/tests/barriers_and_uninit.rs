//! What a GPU leaves undefined and the simulator reports instead of running: threads that
//! meet at an aligned barrier (`bar.sync`, `bar.red`, `barrier.sync.aligned`) through
//! different instructions, and loads or atomics of shared bytes that no thread of the block
//! has written (the simulator's shared memory starts zeroed, a GPU's does not). Every
//! module here is also assembled with ptxas when it is installed.

mod common;

use common::{download, upload};
use ptx_sim::{launch_with, Geometry, Memory, Module, SimError, SimOptions};

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
    let geometry = Geometry { grid: [1, 1, 1], block: [threads, 1, 1], dynamic_shared_bytes: 0 };
    run_with(text, &geometry, &SimOptions::default())
}

/// Runs kernel `k` of `text` over `geometry` with `options`, `out` holding `7 + i` at
/// element `i` (one per thread of a block) before; `out` after, on success.
fn run_with(text: &str, geometry: &Geometry, options: &SimOptions) -> Result<Vec<u64>, SimError> {
    let m = Module::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mem = Memory::new();
    let n = geometry.block[0] as usize;
    let out = upload(&mem, &(7..7 + n as u64).collect::<Vec<_>>(), 4);
    launch_with(m.kernel("k").unwrap(), geometry, &[out], &mem, 1, options)?;
    Ok(download(&mem, out, n, 4))
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

/// Each of [`reductions`]: the one of non-aligned `barrier.red`s of one reduction runs,
/// the others are barrier errors.
#[test]
fn reductions_through_different_instructions() {
    for (what, text) in reductions() {
        let result = run(&text, 64);
        match what {
            // The 16 low threads count the odd ones (8 of them), the 48 high ones the even
            // ones (24): each predicate as its own instruction negates it.
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
    for text in barrier_modules().into_iter().chain(uninit_modules().into_iter().map(|(_, text)| text)) {
        if let Err(e) = ptx_tools::ptxas::assemble(&ptxas, &text, "sm_80") {
            panic!("ptxas rejects:\n{text}\n{e}");
        }
    }
}

/// A 16-bin shared histogram of `tid % 16`, `init` run first (each thread below 16 zeroing
/// its bin, or nothing), `update` the atomic that counts (on `[%rd6]` with `%r3`, the bin's
/// address and 1); threads below 16 then write their bin to `out`.
fn histogram(init: &str, update: &str) -> String {
    let body = format!(
        "\tmov.u64 %rd4, bins;\n\tand.b32 %r2, %r1, 15;\n\tmul.wide.u32 %rd5, %r2, 4;\n\
         \tadd.s64 %rd6, %rd4, %rd5;\n\tmov.u32 %r3, 1;\n\tsetp.lt.u32 %p1, %r1, 16;\n{init}\n\
         \tbar.sync 0;\n{update}\n\tbar.sync 0;\n\t@%p1 ld.shared.u32 %r4, [%rd6];\n\
         \t@%p1 st.global.u32 [%rd2], %r4;"
    );
    module(".shared .align 4 .b8 bins[64];", &body)
}

/// The zeroing of [`histogram`]'s bins.
const ZERO_BINS: &str = "\tmov.u32 %r5, 0;\n\t@%p1 st.shared.u32 [%rd6], %r5;";

/// The modules of the uninitialised-shared-memory tests, by name.
fn uninit_modules() -> Vec<(&'static str, String)> {
    let dynamic = ".extern .shared .align 4 .b8 dyn[];";
    let shared = ".shared .align 4 .b8 s[16];";
    vec![
        ("histogram", histogram("", "\tatom.shared.add.u32 %r6, [%rd6], %r3;")),
        ("red histogram", histogram("", "\tred.shared.add.u32 [%rd6], %r3;")),
        ("initialised histogram", histogram(ZERO_BINS, "\tatom.shared.add.u32 %r6, [%rd6], %r3;")),
        // Thread 0 writes the first word of the dynamic array, every thread reads its own.
        (
            "dynamic",
            module(
                dynamic,
                "\tmov.u64 %rd4, dyn;\n\tadd.s64 %rd5, %rd4, %rd3;\n\tsetp.eq.u32 %p1, %r1, 0;\n\
                 \t@%p1 st.shared.u32 [%rd4], %r1;\n\tbar.sync 0;\n\tld.shared.u32 %r2, [%rd5];\n\
                 \tst.global.u32 [%rd2], %r2;",
            ),
        ),
        // One byte written, a word read: byte 1 was never written.
        (
            "partial",
            module(
                shared,
                "\tmov.u16 %rs1, 9;\n\tst.shared.u8 [s], %rs1;\n\tld.shared.u32 %r2, [s];\n\
                 \tst.global.u32 [%rd2], %r2;",
            )
            .replace("\t.reg .pred", "\t.reg .b16 %rs<2>;\n\t.reg .pred"),
        ),
        // Through a generic address into the shared window.
        (
            "generic",
            module(
                shared,
                "\tmov.u64 %rd4, s;\n\tcvta.shared.u64 %rd5, %rd4;\n\tld.u32 %r2, [%rd5+8];\n\
                 \tst.global.u32 [%rd2], %r2;",
            ),
        ),
        // Thread 0 of block 0 only writes the word every thread then reads.
        (
            "first block",
            module(
                shared,
                "\tmov.u32 %r2, %ctaid.x;\n\tor.b32 %r3, %r2, %r1;\n\tsetp.eq.u32 %p1, %r3, 0;\n\
                 \t@%p1 st.shared.u32 [s], %r1;\n\tbar.sync 0;\n\tld.shared.u32 %r4, [s];\n\
                 \tst.global.u32 [%rd2], %r4;",
            ),
        ),
        // Thread 0 initialises the word with an exchange (CUDA's `atomicExch(&s, 5)`), whose
        // new value needs no old one; every thread reads it after the barrier.
        (
            "exchange",
            module(
                shared,
                "\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 atom.shared.exch.b32 %r2, [s], 5;\n\tbar.sync 0;\n\
                 \tld.shared.u32 %r4, [s];\n\tst.global.u32 [%rd2], %r4;",
            ),
        ),
        // A compare-and-swap of the word never written: its comparison reads it.
        (
            "cas",
            module(
                shared,
                "\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 atom.shared.cas.b32 %r2, [s], 0, 5;\n\tbar.sync 0;\n\
                 \tld.shared.u32 %r4, [s];\n\tst.global.u32 [%rd2], %r4;",
            ),
        ),
        // `cp.async` of each thread's `out` word to its shared slot, read after the wait (or,
        // `early`, before it).
        (
            "cp.async",
            module(
                ".shared .align 4 .b8 slots[256];",
                "\tmov.u64 %rd4, slots;\n\tadd.s64 %rd5, %rd4, %rd3;\n\
                 \tcp.async.ca.shared.global [%rd5], [%rd2], 4;\n\tcp.async.commit_group;\n\
                 \tcp.async.wait_group 0;\n\tld.shared.u32 %r2, [%rd5];\n\tadd.u32 %r2, %r2, 100;\n\
                 \tst.global.u32 [%rd2], %r2;",
            ),
        ),
    ]
}

/// [`uninit_modules`]'s module `name`.
fn uninit_module(name: &str) -> String {
    uninit_modules()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| text)
        .expect("a module of the list")
}

/// The error of kernel `text` on `blocks` blocks of 64 threads, which must be
/// [`SimError::UninitializedShared`]: block, thread, offset and instruction.
fn uninit_error(text: &str, blocks: u32) -> ([u32; 3], [u32; 3], u64, String, String) {
    let geometry = Geometry { grid: [blocks, 1, 1], block: [64, 1, 1], dynamic_shared_bytes: 256 };
    let err = run_with(text, &geometry, &SimOptions::default()).unwrap_err();
    let message = err.to_string();
    let SimError::UninitializedShared { block, thread, offset, instruction, .. } = err else {
        panic!("not an uninitialised read: {message}\n{text}")
    };
    (block, thread, offset, instruction, message)
}

/// A histogram whose bins no thread zeroed: the first atomic on a bin is an error naming
/// the thread, the byte, the instruction, and that the value is undefined on a GPU; with
/// the bins zeroed first it counts.
#[test]
fn atomics_on_never_written_shared_bytes_are_errors() {
    for (name, op) in [("histogram", "atom.shared.add.u32"), ("red histogram", "red.shared.add.u32")] {
        let (block, thread, offset, instruction, message) = uninit_error(&uninit_module(name), 1);
        assert_eq!((block, thread, offset), ([0; 3], [0; 3], 0), "{message}");
        assert!(instruction.starts_with(op), "{message}");
        for want in [
            "thread (0, 0, 0) read shared byte 0",
            "no thread of the block has written",
            "undefined on a GPU",
        ] {
            assert!(message.contains(want), "`{want}` not in: {message}");
        }
    }
    let counts = run(&uninit_module("initialised histogram"), 64).unwrap();
    assert_eq!(counts[..16], [4; 16]);
}

/// Plain loads of never-written bytes, in dynamic and static shared memory, by a `.shared`
/// or a generic address, a word of which only one byte was written, and a word written in
/// another block only: each an error naming the first byte not written.
#[test]
fn loads_of_never_written_shared_bytes_are_errors() {
    // Thread 0 wrote word 0 of the dynamic array; thread 1 reads word 1.
    let (_, thread, offset, instruction, _) = uninit_error(&uninit_module("dynamic"), 1);
    assert_eq!((thread, offset), ([1, 0, 0], 4));
    assert!(instruction.starts_with("ld.shared.u32"), "{instruction}");
    let (_, thread, offset, _, _) = uninit_error(&uninit_module("partial"), 1);
    assert_eq!((thread, offset), ([0, 0, 0], 1), "the byte after the one stored");
    let (_, _, offset, instruction, _) = uninit_error(&uninit_module("generic"), 1);
    assert_eq!(offset, 8);
    assert!(instruction.starts_with("ld.u32"), "{instruction}");
    assert_eq!(
        run(&uninit_module("exchange"), 64).unwrap(),
        vec![5; 64],
        "an exchange writes what it stores"
    );
    let (_, thread, offset, instruction, _) = uninit_error(&uninit_module("cas"), 1);
    assert_eq!((thread, offset), ([0, 0, 0], 0));
    assert!(instruction.contains("atom.shared.cas"), "{instruction}");
    // Block 0 runs; block 1 starts with nothing written, whatever block 0 left.
    let (block, thread, offset, _, _) = uninit_error(&uninit_module("first block"), 2);
    assert_eq!((block, thread, offset), ([1, 0, 0], [0, 0, 0], 0));
}

/// Bytes `cp.async` copied count as written once the copy lands (at its wait); a read
/// before the wait reads bytes not yet written. With the check off
/// (`SimOptions::uninit_shared_check`), never-written bytes read as the simulator's zeros.
#[test]
fn copies_count_as_writes_and_the_check_can_be_turned_off() {
    let text = uninit_module("cp.async");
    let want: Vec<u64> = (107..171).collect();
    assert_eq!(run(&text, 64).unwrap(), want);
    let early = text
        .replace("\tcp.async.wait_group 0;\n", "")
        .replace("[%rd2], %r2;", "[%rd2], %r2;\n\tcp.async.wait_all;");
    let (_, thread, offset, _, _) = uninit_error(&early, 1);
    assert_eq!((thread, offset), ([0, 0, 0], 0));
    let off = SimOptions { uninit_shared_check: false, ..SimOptions::default() };
    let geometry = Geometry { grid: [1, 1, 1], block: [64, 1, 1], dynamic_shared_bytes: 0 };
    let counts = run_with(&uninit_module("histogram"), &geometry, &off).unwrap();
    assert_eq!(counts[..16], [4; 16], "zeros, as the simulator fills shared memory");
}
