//! PTX from the twenty-sixth round (docs/testing.md): flags in shared memory read and
//! written with strong accesses (`.release`/`.acquire`, `.volatile`, `.relaxed`, as
//! libcu++'s `atomic_ref` and older CUDA code write them), which the race checker took
//! for races, and `brkpt`/`pmevent`, which the simulator refused.

mod common;

const HDR: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// Shared `flag` and `data[2]`, for the body's protocol.
const DECL: &str = ".shared .align 4 .u32 flag;\n.shared .align 4 .u32 data[2];\n";

/// Runs `body` after the common prologue (`%r1` = `%tid.x`, `%rd3` = the thread's word of
/// `out`) on one block of 64 threads ([`common::run_words`]).
fn run(body: &str) -> Result<Vec<u32>, String> {
    common::run_words(HDR, DECL, body, 64)
}

/// Thread 0 writes `data` with plain stores, then sets `flag` with `$store`; thread 32
/// spins on `flag` with `$load`, then reads `data` with a plain load into its word of
/// `out`. Every thread first clears `flag` (thread 0) and waits at a barrier.
fn handoff(store: &str, load: &str, before_store: &str, after_load: &str) -> String {
    format!(
        "
    setp.eq.u32 %p1, %r1, 0;
    @%p1 st.shared.u32 [flag], 0;
    bar.sync 0;
    @!%p1 bra WAITER;
    st.shared.u32 [data+4], 42;
    {before_store}
    {store} [flag], 1;
    bra.uni DONE;
WAITER:
    setp.ne.u32 %p2, %r1, 32;
    @%p2 bra.uni DONE;
SPIN:
    {load} %r2, [flag];
    setp.eq.u32 %p3, %r2, 0;
    @%p3 bra.uni SPIN;
    {after_load}
    ld.shared.u32 %r3, [data+4];
    st.global.u32 [%rd3], %r3;
DONE:"
    )
}

#[test]
fn a_release_and_acquire_order_the_data_they_guard() {
    // libcu++'s `atomic_ref<int, thread_scope_block>` store(release) and load(acquire).
    let got = run(&handoff("st.release.cta.shared.u32", "ld.acquire.cta.shared.u32", "", ""));
    assert_eq!(got.map(|w| w[32]), Ok(42));
    // The older idiom: a `volatile` flag beside `__threadfence_block()`.
    let got = run(&handoff("st.volatile.shared.u32", "ld.volatile.shared.u32", "membar.cta;", "membar.cta;"));
    assert_eq!(got.map(|w| w[32]), Ok(42));
    // `.relaxed` with fences, and an atomic on either side.
    let got =
        run(&handoff("st.relaxed.cta.shared.u32", "ld.relaxed.cta.shared.u32", "fence.acq_rel.cta;", ""));
    assert_eq!(got.map(|w| w[32]), Ok(42));
    let got = run(&handoff("atom.release.cta.shared.exch.b32 %r9,", "ld.acquire.cta.shared.u32", "", ""));
    assert_eq!(got.map(|w| w[32]), Ok(42));
    let or = "atom.acquire.cta.shared.or.b32";
    let got = run(&handoff("st.release.cta.shared.u32", or, "", "").replace("[flag];", "[flag], 0;"));
    assert_eq!(got.map(|w| w[32]), Ok(42));
    // Through a generic address of the flag.
    let generic = handoff("st.release.cta.u32", "ld.acquire.cta.u32", "", "")
        .replace("cta.u32 [flag]", "cta.u32 [%rd9]")
        .replace("%r2, [flag]", "%r2, [%rd9]");
    let got = run(&format!("    mov.u64 %rd8, flag;\n    cvta.shared.u64 %rd9, %rd8;\n{generic}"));
    assert_eq!(got.map(|w| w[32]), Ok(42));
}

#[test]
fn data_the_flag_does_not_order_still_races() {
    let race = |got: Result<Vec<u32>, String>| {
        let e = got.expect_err("a race");
        assert!(e.contains("shared-memory race"), "{e}");
    };
    // Read before the flag is seen set: nothing orders it after thread 0's store.
    let early = handoff("st.release.cta.shared.u32", "ld.acquire.cta.shared.u32", "", "")
        .replace("SPIN:", "    ld.shared.u32 %r4, [data+4];\nSPIN:");
    race(run(&early));
    // Written after the release: the acquire orders only what came before it.
    let late = handoff("st.release.cta.shared.u32", "ld.acquire.cta.shared.u32", "", "")
        .replace("    bra.uni DONE;\nWAITER:", "    st.shared.u32 [data+4], 7;\n    bra.uni DONE;\nWAITER:");
    race(run(&late));
    // A plain (weak) store of the flag beside a strong load of it is a race of its own, and
    // so is a plain load of a flag set by a strong store (the compiler may hoist it out of
    // the spin).
    race(run(&handoff("st.shared.u32", "ld.acquire.cta.shared.u32", "", "")));
    race(run(&handoff("st.release.cta.shared.u32", "ld.shared.u32", "", "")));
}

#[test]
fn strong_accesses_of_one_flag_do_not_race_with_each_other() {
    // Thread 0 sets the flag, thread 32 spins on it; nothing else is shared.
    let body = "
    setp.eq.u32 %p1, %r1, 0;
    @%p1 st.shared.u32 [flag], 0;
    bar.sync 0;
    @!%p1 bra WAITER;
    st.release.cta.shared.u32 [flag], 1;
    bra.uni DONE;
WAITER:
    setp.ne.u32 %p2, %r1, 32;
    @%p2 bra.uni DONE;
SPIN:
    ld.acquire.cta.shared.u32 %r2, [flag];
    setp.eq.u32 %p2, %r2, 0;
    @%p2 bra.uni SPIN;
    st.global.u32 [%rd3], %r2;
DONE:";
    assert_eq!(run(body).map(|w| w[32]), Ok(1));
}

#[test]
fn brkpt_faults_and_pmevent_does_nothing() {
    // `__prof_trigger(3)`: no effect on the results.
    let got = run("    pmevent 3;\n    pmevent.mask 0x11;\n    st.global.u32 [%rd3], %r1;");
    assert_eq!(got.map(|w| w[5]), Ok(5));
    // `__brkpt()`: with no debugger, the kernel faults there, naming the instruction.
    let e = run("    brkpt;").expect_err("a breakpoint faults");
    assert!(e.contains("trapped") && e.contains("brkpt"), "{e}");
}
