//! Warp and block collectives against models written from the PTX ISA's definitions:
//! `shfl.sync` in every mode with segment widths and clamps, in every warp of a block;
//! `redux.sync` with every operation over full and partial member masks; `bar.red` with
//! each reduction; the instructions a launch counts through them; and the launch
//! geometry's limits.

#![allow(clippy::needless_range_loop)]

mod common;

use common::{download, geo, upload};
use ptx_sim::{launch, Geometry, Memory, Module, SimError};
use ptx_tools::rng::Rng;

fn parse(text: &str) -> Module {
    Module::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// A kernel `k(out, in)` with `body` between the parameter loads and `ret`; `%rd1` is
/// `out` and `%rd2` is `in` (global), `%r1` is `%tid.x`, `%rd3` its u32 offset.
fn kernel_text(directives: &str, body: &str) -> String {
    format!(
        ".version 8.5\n.target sm_80\n.address_size 64\n\n\
         .visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u64 k_param_1\n){directives}\n{{\n\
         \t.reg .pred \t%p<8>;\n\t.reg .b32 \t%r<32>;\n\t.reg .b64 \t%rd<16>;\n\
         \tld.param.u64 \t%rd8, [k_param_0];\n\tcvta.to.global.u64 \t%rd1, %rd8;\n\
         \tld.param.u64 \t%rd9, [k_param_1];\n\tcvta.to.global.u64 \t%rd2, %rd9;\n\
         \tmov.u32 \t%r1, %tid.x;\n\tmul.wide.u32 \t%rd3, %r1, 4;\n{body}\tret;\n}}\n"
    )
}

/// Runs `k` on one block of `threads` threads with `input` (u32s): the `outputs` u32 words
/// per thread it stores, and the instructions it ran.
fn run(m: &Module, threads: u32, input: &[u64], outputs: usize) -> (Vec<u64>, u64) {
    let mem = Memory::new();
    let out = upload(&mem, &vec![0; threads as usize * outputs], 4);
    let inp = upload(&mem, input, 4);
    let stats = launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [threads, 1, 1]), &[out, inp], &mem, 1)
        .unwrap_or_else(|e| panic!("{e}"));
    (download(&mem, out, threads as usize * outputs, 4), stats.instructions)
}

/// Runs `k` (with `body`) on one block of `threads` threads, which must stop with
/// [`SimError::Barrier`]: its message.
fn barrier_error(body: &str, threads: u32) -> String {
    let m = parse(&kernel_text("", body));
    let mem = Memory::new();
    let buf = mem.alloc(64);
    match launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [threads, 1, 1]), &[buf, buf], &mem, 1) {
        Err(SimError::Barrier { message, .. }) => message,
        other => panic!("expected a barrier error, got {other:?}"),
    }
}

/// `shfl.sync` as the PTX ISA defines it: the source lane and whether it is valid, for
/// lane `lane` with lane operand `b` and clamp operand `c`.
fn shfl_source(mode: &str, lane: i64, b: i64, c: u32) -> (i64, bool) {
    let clamp = (c & 0x1f) as i64;
    let segmask = ((c >> 8) & 0x1f) as i64;
    let max_lane = (lane & segmask) | (clamp & !segmask);
    let min_lane = lane & segmask;
    let (j, valid) = match mode {
        "up" => (lane - b, lane - b >= max_lane),
        "down" => (lane + b, lane + b <= max_lane),
        "bfly" => (lane ^ b, lane ^ b <= max_lane),
        _ => {
            let j = min_lane | (b & !segmask);
            (j, j <= max_lane)
        }
    };
    if valid {
        (j, true)
    } else {
        (lane, false)
    }
}

/// Every mode, with the `c` operands CUDA's `__shfl_*_sync(mask, v, b, width)` passes for
/// widths 32, 16, 8 and 4, and random lane operands (different in every thread), in a
/// block of three warps: each thread's value and valid flag match the model.
#[test]
fn shuffles_in_every_mode_and_segment_width_in_every_warp() {
    let mut r = Rng::fresh("collectives_shfl");
    let threads = 96u32;
    for mode in ["up", "down", "bfly", "idx"] {
        for width in [32u32, 16, 8, 4] {
            // CUDA's encoding: segment mask (32 - width) << 8, and a clamp of 31 for idx,
            // down and bfly, 0 for up.
            let c = ((32 - width) << 8) | if mode == "up" { 0 } else { 31 };
            let values: Vec<u64> = (0..threads).map(|_| r.next() & 0xffff_ffff).collect();
            let lanes: Vec<u64> = (0..threads).map(|_| r.next() % 40).collect();
            let input: Vec<u64> = values.iter().chain(&lanes).copied().collect();
            let body = format!(
                "\tadd.s64 \t%rd4, %rd2, %rd3;\n\tld.global.u32 \t%r2, [%rd4];\n\
                 \tld.global.u32 \t%r3, [%rd4+{}];\n\
                 \tshfl.sync.{mode}.b32 \t%r4|%p1, %r2, %r3, {c}, -1;\n\
                 \tselp.u32 \t%r5, 1, 0, %p1;\n\tmul.wide.u32 \t%rd5, %r1, 8;\n\tadd.s64 \t%rd6, %rd1, %rd5;\n\
                 \tst.global.v2.u32 \t[%rd6], {{%r4, %r5}};\n",
                4 * threads
            );
            let m = parse(&kernel_text("", &body));
            let (got, _) = run(&m, threads, &input, 2);
            for t in 0..threads as usize {
                let (warp, lane) = (t / 32 * 32, (t % 32) as i64);
                let (j, valid) = shfl_source(mode, lane, lanes[t] as i64 & 0x1f, c);
                let want = values[warp + j as usize];
                assert_eq!(
                    (got[2 * t], got[2 * t + 1]),
                    (want, valid as u64),
                    "shfl.{mode} width {width}, thread {t}, b {}",
                    lanes[t]
                );
            }
        }
    }
}

/// A reduction of two u32s.
type Reduction = fn(u32, u32) -> u32;

/// `redux.sync` with every operation, over all 32 lanes and over the even lanes alone
/// (the odd ones branch around it), in both warps of a block, on random values.
#[test]
fn redux_with_every_operation_over_full_and_partial_masks() {
    let mut r = Rng::fresh("collectives_redux");
    let threads = 64u32;
    let ops: [(&str, Reduction); 9] = [
        ("add.u32", u32::wrapping_add),
        ("add.s32", u32::wrapping_add),
        ("min.u32", u32::min),
        ("max.u32", u32::max),
        ("min.s32", |a, b| (a as i32).min(b as i32) as u32),
        ("max.s32", |a, b| (a as i32).max(b as i32) as u32),
        ("and.b32", |a, b| a & b),
        ("or.b32", |a, b| a | b),
        ("xor.b32", |a, b| a ^ b),
    ];
    for (op, f) in ops {
        for even_only in [false, true] {
            let values: Vec<u64> = (0..threads).map(|_| r.next() & 0xffff_ffff).collect();
            let (mask, skip) = if even_only {
                ("0x55555555", "\tand.b32 \t%r6, %r1, 1;\n\tsetp.ne.u32 \t%p1, %r6, 0;\n\t@%p1 bra \tDONE;\n")
            } else {
                ("-1", "")
            };
            let body = format!(
                "\tmov.u32 \t%r4, 0x5eed;\n{skip}\tadd.s64 \t%rd4, %rd2, %rd3;\n\tld.global.u32 \t%r2, [%rd4];\n\
                 \tredux.sync.{op} \t%r4, %r2, {mask};\nDONE:\n\
                 \tadd.s64 \t%rd6, %rd1, %rd3;\n\tst.global.u32 \t[%rd6], %r4;\n"
            );
            let m = parse(&kernel_text("", &body));
            let (got, _) = run(&m, threads, &values, 1);
            for t in 0..threads as usize {
                let warp = t / 32 * 32;
                let want = if even_only && t % 2 == 1 {
                    0x5eed
                } else {
                    let members = (warp..warp + 32).filter(|u| !even_only || u % 2 == 0);
                    members.map(|u| values[u] as u32).reduce(f).unwrap() as u64
                };
                assert_eq!(got[t], want, "redux.{op}, even lanes only: {even_only}, thread {t}");
            }
        }
    }
}

/// `bar.red.popc`, `.and` and `.or` over a block of three warps with random predicates
/// (and with all true and all false): every thread gets the block-wide reduction.
#[test]
fn barrier_reductions_over_a_block() {
    let mut r = Rng::fresh("collectives_bar_red");
    let threads = 96u32;
    for fill in ["random", "true", "false"] {
        let preds: Vec<u64> = (0..threads)
            .map(|_| match fill {
                "random" => r.next() % 2,
                "true" => 1,
                _ => 0,
            })
            .collect();
        let body = "\tadd.s64 \t%rd4, %rd2, %rd3;\n\tld.global.u32 \t%r2, [%rd4];\n\
                    \tsetp.ne.u32 \t%p1, %r2, 0;\n\
                    \tbar.red.popc.u32 \t%r3, 0, %p1;\n\tbar.red.and.pred \t%p2, 0, %p1;\n\
                    \tbar.red.or.pred \t%p3, 0, %p1;\n\tbar.red.popc.u32 \t%r7, 0, !%p1;\n\
                    \tselp.u32 \t%r4, 1, 0, %p2;\n\tselp.u32 \t%r5, 1, 0, %p3;\n\
                    \tmul.wide.u32 \t%rd5, %r1, 16;\n\tadd.s64 \t%rd6, %rd1, %rd5;\n\
                    \tst.global.v4.u32 \t[%rd6], {%r3, %r4, %r5, %r7};\n";
        let m = parse(&kernel_text("", body));
        let (got, _) = run(&m, threads, &preds, 4);
        let count = preds.iter().filter(|&&p| p != 0).count() as u64;
        let want = [count, (count == threads as u64) as u64, (count > 0) as u64, threads as u64 - count];
        for t in 0..threads as usize {
            assert_eq!(got[4 * t..4 * t + 4], want, "{fill} predicates, thread {t}");
        }
    }
}

/// A launch counts every instruction each thread runs, the collectives included: a
/// straight-line kernel of 15 instructions (with a shuffle, a vote and a barrier) counts
/// 15 per thread.
#[test]
fn instruction_counts_include_the_collectives() {
    let body = "\tshfl.sync.bfly.b32 \t%r2, %r1, 1, 31, -1;\n\tsetp.ne.u32 \t%p1, %r2, 0;\n\
                \tvote.sync.ballot.b32 \t%r3, %p1, -1;\n\tbar.sync \t0;\n\
                \tadd.s64 \t%rd6, %rd1, %rd3;\n\tst.global.u32 \t[%rd6], %r3;\n";
    let m = parse(&kernel_text("", body));
    for threads in [32, 48, 64, 80, 96] {
        let (got, instructions) = run(&m, threads, &[0], 1);
        // The six prologue instructions, six here, `ret`. Lane 1's partner is lane 0: in
        // warp 0 it gets tid 0, so the ballot lacks lane 1 there only. A partial last warp
        // votes with the lanes it has.
        assert_eq!(instructions, 13 * threads as u64, "{threads} threads");
        assert_eq!(got[0], 0xffff_fffd);
        let last_warp = (threads - 1) / 32 * 32;
        let lanes = threads - last_warp;
        let mut want = if lanes == 32 { u32::MAX } else { (1u32 << lanes) - 1 } as u64;
        if last_warp == 0 {
            want &= !2;
        }
        assert_eq!(got[threads as usize - 1], want, "{threads} threads");
    }
}

/// Lanes that exited do not hold a full-warp shuffle up; a source lane that exited gives
/// the reader its own value (the PTX ISA leaves it unpredictable) and, in range, a set
/// valid flag.
#[test]
fn exited_lanes_do_not_hold_a_shuffle_up() {
    let body = "\tsetp.lt.u32 \t%p1, %r1, 4;\n\t@%p1 bra \tEND;\n\tmad.lo.s32 \t%r2, %r1, 10, 3;\n\
                \tshfl.sync.idx.b32 \t%r3|%p2, %r2, %r1, 31, -1;\n\tshfl.sync.up.b32 \t%r4|%p3, %r2, 2, 0, -1;\n\
                \tselp.u32 \t%r5, 1, 0, %p2;\n\tselp.u32 \t%r6, 1, 0, %p3;\n\
                \tmul.wide.u32 \t%rd5, %r1, 16;\n\tadd.s64 \t%rd6, %rd1, %rd5;\n\
                \tst.global.v4.u32 \t[%rd6], {%r3, %r4, %r5, %r6};\nEND:\n";
    let m = parse(&kernel_text("", body));
    let (got, _) = run(&m, 32, &[0], 4);
    for t in 0..32 {
        let own = 10 * t as u64 + 3;
        let want = if t < 4 {
            [0; 4]
        } else {
            // idx by the own lane: always valid. up by 2: lanes 4 and 5 read exited lanes, in
            // range (the flag is set, as the PTX ISA's pseudo-code sets it) but with a value
            // the ISA leaves unpredictable (the reader's own, here).
            let live_source = t >= 6;
            [own, if live_source { own - 20 } else { own }, 1, 1]
        };
        assert_eq!(got[4 * t..4 * t + 4], want, "thread {t}");
    }
}

/// The launch geometry's limits, at each limit (runs) and one past it (a `BadParams`
/// error naming the limit): threads per block, block z, `.maxntid`, `.reqntid`, shared
/// memory, grid y and z.
#[test]
fn geometry_limits_run_at_the_limit_and_fail_past_it() {
    let plain = parse(&kernel_text("", ""));
    // 1 KiB of static shared memory counts against the limit with the dynamic bytes.
    let with_static = parse(
        &kernel_text("", "").replace("\t.reg .pred", "\t.shared .align 4 .b8 \ttile[1024];\n\t.reg .pred"),
    );
    let maxntid = parse(&kernel_text(" .maxntid 64, 1, 1", ""));
    let reqntid = parse(&kernel_text(" .reqntid 32, 2, 1", ""));
    let mem = Memory::new();
    let buf = mem.alloc(64);
    let go = |m: &Module, grid: [u32; 3], block: [u32; 3], dynamic: u32| {
        let g = Geometry { grid, block, dynamic_shared_bytes: dynamic };
        launch(m.kernel("k").unwrap(), &g, &[buf, buf], &mem, 2)
    };
    let ok = [
        (&plain, [1, 1, 1], [1024, 1, 1], 0),
        (&plain, [1, 1, 1], [1, 1, 64], 0),
        (&plain, [1, 1, 1], [1, 1, 1], 227 * 1024),
        (&with_static, [1, 1, 1], [1, 1, 1], 226 * 1024),
        (&plain, [1, 65535, 1], [1, 1, 1], 0),
        (&plain, [1, 1, 65535], [1, 1, 1], 0),
        (&maxntid, [1, 1, 1], [64, 1, 1], 0),
        (&maxntid, [1, 1, 1], [16, 2, 2], 0),
        (&maxntid, [1, 1, 1], [32, 1, 1], 0),
        (&reqntid, [1, 1, 1], [32, 2, 1], 0),
    ];
    for (m, grid, block, dynamic) in ok {
        go(m, grid, block, dynamic)
            .unwrap_or_else(|e| panic!("grid {grid:?} block {block:?} shared {dynamic}: {e}"));
    }
    let bad = [
        (&plain, [1, 1, 1], [1025, 1, 1], 0, "at most 1024"),
        (&plain, [1, 1, 1], [1, 1, 65], 0, "z <= 64"),
        (&plain, [1, 1, 1], [1, 1, 1], 227 * 1024 + 1, "at most 232448"),
        (&with_static, [1, 1, 1], [1, 1, 1], 226 * 1024 + 1, "(1024 static + 231425 dynamic)"),
        (&plain, [1, 65536, 1], [1, 1, 1], 0, "exceeds CUDA's limits"),
        (&plain, [1, 1, 65536], [1, 1, 1], 0, "exceeds CUDA's limits"),
        (&plain, [1 << 31, 1, 1], [1, 1, 1], 0, "exceeds CUDA's limits"),
        (&plain, [0, 1, 1], [1, 1, 1], 0, "at least 1"),
        (&plain, [1, 1, 1], [1, 0, 1], 0, "at least 1"),
        (&maxntid, [1, 1, 1], [65, 1, 1], 0, ".maxntid"),
        (&maxntid, [1, 1, 1], [16, 4, 2], 0, ".maxntid"),
        (&reqntid, [1, 1, 1], [64, 1, 1], 0, ".reqntid"),
    ];
    for (m, grid, block, dynamic, says) in bad {
        match go(m, grid, block, dynamic) {
            Err(e @ SimError::BadParams { .. }) => {
                assert!(e.to_string().contains(says), "grid {grid:?} block {block:?}: {e}")
            }
            other => panic!("grid {grid:?} block {block:?} shared {dynamic}: {other:?}"),
        }
    }
}

/// `match.any`, `match.all` (with its predicate) and `elect` in each of three warps, on
/// random values from a small set (so lanes share them) and on values equal across a warp:
/// the lanes with the same value; all members or none; the lowest member leads.
#[test]
fn match_and_elect_in_every_warp() {
    let mut r = Rng::fresh("collectives_match");
    let threads = 96u32;
    for uniform in [false, true] {
        // In the uniform case each warp's lanes share one value (warps differ).
        let values: Vec<u64> =
            (0..threads).map(|t| if uniform { 7 + (t / 32) as u64 } else { r.next() % 4 }).collect();
        let body = "\tadd.s64 \t%rd4, %rd2, %rd3;\n\tld.global.u32 \t%r2, [%rd4];\n\
                    \tmatch.any.sync.b32 \t%r3, %r2, -1;\n\tmatch.all.sync.b32 \t%r4|%p1, %r2, -1;\n\
                    \tselp.u32 \t%r5, 1, 0, %p1;\n\telect.sync \t%r6|%p2, -1;\n\tselp.u32 \t%r7, 1, 0, %p2;\n\
                    \tmul.wide.u32 \t%rd5, %r1, 20;\n\tadd.s64 \t%rd6, %rd1, %rd5;\n\
                    \tst.global.u32 \t[%rd6], %r3;\n\tst.global.u32 \t[%rd6+4], %r4;\n\
                    \tst.global.u32 \t[%rd6+8], %r5;\n\tst.global.u32 \t[%rd6+12], %r6;\n\
                    \tst.global.u32 \t[%rd6+16], %r7;\n";
        let m = parse(&kernel_text("", body).replace("sm_80", "sm_90"));
        let (got, _) = run(&m, threads, &values, 5);
        for t in 0..threads as usize {
            let warp = t / 32 * 32;
            let same: u64 = (0..32).filter(|&u| values[warp + u] == values[t]).fold(0, |m, u| m | 1 << u);
            let all = same == 0xffff_ffff;
            let want = [same, if all { same } else { 0 }, all as u64, 0, (t % 32 == 0) as u64];
            assert_eq!(got[5 * t..5 * t + 5], want, "uniform {uniform}, thread {t}");
        }
    }
}

/// A full-warp shuffle waits for every lane of its mask: lanes 16..32 first shuffle among
/// themselves (mask `0xffff0000`, a rotation by one within their half) while lanes 0..16
/// already wait at the full-warp `shfl.down` by one, which happens only once the upper half
/// arrives, with the upper half's rotated values.
#[test]
fn a_shuffle_waits_for_every_lane_of_its_mask() {
    let body = "\tmov.u32 \t%r2, %tid.x;\n\tmad.lo.s32 \t%r2, %r2, 10, 3;\n\tmov.u32 \t%r5, %laneid;\n\
                \tsetp.lt.u32 \t%p1, %r5, 16;\n\t@%p1 bra \tFULL;\n\
                \tsub.s32 \t%r3, %r5, 15;\n\tand.b32 \t%r3, %r3, 15;\n\tor.b32 \t%r3, %r3, 16;\n\
                \tshfl.sync.idx.b32 \t%r2, %r2, %r3, 31, 0xffff0000;\n\
                FULL:\n\tshfl.sync.down.b32 \t%r4, %r2, 1, 31, -1;\n\
                \tadd.s64 \t%rd6, %rd1, %rd3;\n\tst.global.u32 \t[%rd6], %r4;\n";
    let m = parse(&kernel_text("", body));
    for threads in [32, 64] {
        let (got, _) = run(&m, threads, &[0], 1);
        for t in 0..threads as usize {
            let lane = t % 32;
            // Before the full shuffle: lanes below 16 hold 10 t + 3; lane 16 + k holds the
            // value of lane 16 + (k + 1) % 16 of its warp.
            let value = |l: usize| {
                let src = if l < 16 { l } else { 16 + (l - 15) % 16 };
                (10 * (t - lane + src) + 3) as u64
            };
            let want = if lane < 31 { value(lane + 1) } else { value(lane) };
            assert_eq!(got[t], want, "{threads} threads, thread {t}");
        }
    }
}

/// Threads of a block waiting at different barriers (`bar.sync 0` and `bar.sync 1`) can
/// never meet: an error naming both, not a release.
#[test]
fn threads_at_different_barriers_are_a_deadlock() {
    let body = "\tsetp.lt.u32 \t%p1, %r1, 8;\n\t@%p1 bra \tLOW;\n\tbar.sync \t1;\n\tbra.uni \tEND;\n\
                LOW:\n\tbar.sync \t0;\nEND:\n";
    let message = barrier_error(body, 16);
    assert!(message.contains("8 thread(s) wait at `bar.sync \t1`"), "{message}");
    assert!(message.contains("8 thread(s) wait at `bar.sync \t0`"), "{message}");
    assert!(message.contains("different sync points"), "{message}");
}

/// `vote.sync` ballot, any, all and uni in each of three warps, on random predicates and on
/// all true and all false ones (where `uni` holds), against the votes counted here.
#[test]
fn votes_in_every_warp() {
    let mut r = Rng::fresh("collectives_vote");
    let threads = 96u32;
    for fill in ["random", "true", "false", "warp 1 true"] {
        let preds: Vec<u64> = (0..threads)
            .map(|t| match fill {
                "random" => r.next() % 2,
                "true" => 1,
                "false" => 0,
                _ => (t / 32 == 1) as u64,
            })
            .collect();
        let body = "\tadd.s64 \t%rd4, %rd2, %rd3;\n\tld.global.u32 \t%r2, [%rd4];\n\
                    \tsetp.ne.u32 \t%p1, %r2, 0;\n\tvote.sync.ballot.b32 \t%r3, %p1, -1;\n\
                    \tvote.sync.any.pred \t%p2, %p1, -1;\n\tvote.sync.all.pred \t%p3, %p1, -1;\n\
                    \tvote.sync.uni.pred \t%p4, %p1, -1;\n\tselp.u32 \t%r4, 1, 0, %p2;\n\
                    \tselp.u32 \t%r5, 1, 0, %p3;\n\tselp.u32 \t%r6, 1, 0, %p4;\n\
                    \tmul.wide.u32 \t%rd5, %r1, 16;\n\tadd.s64 \t%rd6, %rd1, %rd5;\n\
                    \tst.global.v4.u32 \t[%rd6], {%r3, %r4, %r5, %r6};\n";
        let m = parse(&kernel_text("", body));
        let (got, _) = run(&m, threads, &preds, 4);
        for t in 0..threads as usize {
            let warp = t / 32 * 32;
            let ballot: u64 = (0..32).filter(|&u| preds[warp + u] != 0).fold(0, |m, u| m | 1 << u);
            let want = [
                ballot,
                (ballot != 0) as u64,
                (ballot == 0xffff_ffff) as u64,
                (ballot == 0 || ballot == 0xffff_ffff) as u64,
            ];
            assert_eq!(got[4 * t..4 * t + 4], want, "{fill} predicates, thread {t}");
        }
    }
}

/// A shuffle among the even lanes (the odd ones branch around it): a source lane outside
/// the member mask gives a value the PTX ISA leaves unpredictable (the lane's own, here),
/// and the valid flag says only that the lane is in range (set, as the ISA sets it).
#[test]
fn a_shuffle_source_outside_the_mask_gives_the_own_value() {
    let body = "\tmov.u32 \t%r5, %laneid;\n\tmad.lo.s32 \t%r2, %r1, 10, 3;\n\tmov.u32 \t%r4, 7;\n\
                \tmov.u32 \t%r6, 9;\n\tand.b32 \t%r3, %r5, 1;\n\tsetp.ne.u32 \t%p1, %r3, 0;\n\t@%p1 bra \tOUT;\n\
                \tshfl.sync.bfly.b32 \t%r4|%p2, %r2, 3, 31, 0x55555555;\n\tselp.u32 \t%r6, 1, 0, %p2;\n\
                OUT:\n\tmul.wide.u32 \t%rd5, %r1, 8;\n\tadd.s64 \t%rd6, %rd1, %rd5;\n\
                \tst.global.v2.u32 \t[%rd6], {%r4, %r6};\n";
    let m = parse(&kernel_text("", body));
    let (got, _) = run(&m, 64, &[0], 2);
    for t in 0..64 {
        // Lane ^ 3 of an even lane is odd: outside the mask.
        let want = if t % 2 == 1 { [7, 9] } else { [10 * t as u64 + 3, 1] };
        assert_eq!(got[2 * t..2 * t + 2], want, "thread {t}");
    }
}

/// Lanes that wait at a block barrier while the rest of their warp waits at a full-warp
/// shuffle can never meet: an error naming both places.
#[test]
fn lanes_at_a_barrier_and_a_full_warp_shuffle_are_a_deadlock() {
    let body =
        "\tsetp.lt.u32 \t%p1, %r1, 4;\n\t@%p1 bra \tBAR;\n\tshfl.sync.idx.b32 \t%r2, %r1, 0, 31, -1;\n\
                \tbra.uni \tEND;\nBAR:\n\tbar.sync \t0;\nEND:\n";
    let message = barrier_error(body, 32);
    assert!(message.contains("28 thread(s) wait at `shfl.sync.idx.b32"), "{message}");
    assert!(message.contains("4 thread(s) wait at `bar.sync"), "{message}");
}

/// Lanes that exited are no members: with `membermask` -1 after lanes 0..4 of every warp
/// returned, `redux`, `match` and `elect` take the remaining lanes only, and `activemask`
/// in divergent code names the lanes that are there, in every warp.
#[test]
fn exited_lanes_are_not_members_of_the_collectives() {
    let mut r = Rng::fresh("collectives_exited");
    let threads = 96u32;
    let values: Vec<u64> = (0..threads).map(|_| 1 + r.next() % 3).collect();
    // Every lane loads its value (the exiting ones too, so they hold one).
    let body = "\tadd.s64 \t%rd4, %rd2, %rd3;\n\tld.global.u32 \t%r2, [%rd4];\n\
                \tmov.u32 \t%r8, %laneid;\n\tsetp.lt.u32 \t%p1, %r8, 4;\n\t@%p1 bra \tEND;\n\
                \tredux.sync.add.u32 \t%r3, %r2, -1;\n\tmatch.any.sync.b32 \t%r4, %r2, -1;\n\
                \telect.sync \t%r5|%p2, -1;\n\tand.b32 \t%r9, %r8, 1;\n\tsetp.eq.u32 \t%p3, %r9, 0;\n\
                \tmov.u32 \t%r6, 0;\n\t@%p3 bra \tSKIP;\n\tactivemask.b32 \t%r6;\nSKIP:\n\
                \tmul.wide.u32 \t%rd5, %r1, 16;\n\tadd.s64 \t%rd6, %rd1, %rd5;\n\
                \tst.global.v4.u32 \t[%rd6], {%r3, %r4, %r5, %r6};\nEND:\n";
    let m = parse(&kernel_text("", body));
    let (got, _) = run(&m, threads, &values, 4);
    for t in 0..threads as usize {
        let (warp, lane) = (t / 32 * 32, t % 32);
        if lane < 4 {
            assert_eq!(got[4 * t..4 * t + 4], [0; 4], "thread {t} exited");
            continue;
        }
        let sum: u64 = (4..32).map(|u| values[warp + u]).sum();
        let same: u64 = (4..32).filter(|&u| values[warp + u] == values[t]).fold(0, |m, u| m | 1 << u);
        // The odd lanes (from 5 on) reach `activemask` together.
        let active = if lane % 2 == 1 { (5..32).step_by(2).fold(0u64, |m, u| m | 1 << u) } else { 0 };
        assert_eq!(got[4 * t..4 * t + 4], [sum, same, 4, active], "thread {t}");
    }
}

/// The largest grid CUDA allows in x (2^31 - 1 blocks) is accepted: the launch starts, and
/// block 0's `trap` ends it at once (the other blocks never run).
#[test]
fn the_largest_grid_is_accepted() {
    let m = parse(&kernel_text("", "\ttrap;\n"));
    let mem = Memory::new();
    let buf = mem.alloc(64);
    match launch(m.kernel("k").unwrap(), &geo([i32::MAX as u32, 1, 1], [1, 1, 1]), &[buf, buf], &mem, 1) {
        Err(SimError::Trap { block, .. }) => assert_eq!(block, [0, 0, 0]),
        other => panic!("expected the trap of block 0, got {other:?}"),
    }
}
