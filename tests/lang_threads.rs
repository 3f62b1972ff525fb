//! Threads working together in `#[ptx_kernel]`: shared arrays, `sync_threads()`, warp
//! shuffles and votes, and atomics, on the simulator, each against the same computation
//! written as plain Rust over the block's or warp's threads.

mod common;

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, DeviceBuffer, Error, LaunchConfig, SimOptions};
use ptx_tools::rng::Rng;

/// Reverses each block's 256 elements through a shared tile.
#[ptx_kernel]
fn block_reverse(x: &[f32], out: &mut [f32]) {
    let tile = shared::<f32, 256>();
    let t = thread_idx().x as usize;
    let base = block_idx().x as usize * 256;
    tile[t] = x[base + t];
    sync_threads();
    out[base + t] = tile[tile.len() - 1 - t];
}

#[test]
fn a_shared_tile_reverses_each_block() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("a_shared_tile_reverses_each_block");
    let x: Vec<f32> = (0..1024).map(|_| rng.signed_f32()).collect();
    let xd = dev.upload(&x)?;
    let mut out = DeviceBuffer::<f32>::zeroed(&dev, x.len())?;
    BlockReverse::new().launch(&dev, LaunchConfig::linear(4, 256), &xd, &mut out)?;
    let want: Vec<f32> = x.chunks(256).flat_map(|c| c.iter().rev().copied()).collect();
    assert_eq!(out.to_vec()?, want);
    common::assert_assembles("block_reverse", &BlockReverse::new());
    Ok(())
}

/// A block's sum: a warp reduction by `shfl_down`, the warps' sums through a shared array
/// sized from the comptime block size, then the first warp reduces those with `shfl_xor`.
#[ptx_kernel]
fn block_sum(x: &[f32], sums: &mut [f32], #[comptime] block: u32) {
    let partial = shared::<f32, { block as usize / 32 }>();
    let t = thread_idx().x;
    let i = block_idx().x * block + t;
    let mut v = if (i as usize) < x.len() { x[i] } else { 0.0 };
    let mut offset = warp_size() / 2;
    while offset > 0 {
        v += shfl_down(v, offset);
        offset /= 2;
    }
    if lane_id() == 0 {
        partial[t / 32] = v;
    }
    sync_threads();
    if t < 32 {
        let mut w = if t < block / 32 { partial[t] } else { 0.0 };
        #[unroll]
        for s in 0..5 {
            w += shfl_xor(w, 16 >> s);
        }
        if t == 0 {
            sums[block_idx().x] = w;
        }
    }
}

/// The same reduction on the host: the tree `shfl_down` and `shfl_xor` form, in f32.
fn block_sum_reference(x: &[f32], block: usize) -> Vec<f32> {
    let blocks = x.len().div_ceil(block);
    (0..blocks)
        .map(|b| {
            let lane_values = |w: usize| -> Vec<f32> {
                (0..32).map(|l| x.get(b * block + w * 32 + l).copied().unwrap_or(0.0)).collect()
            };
            let warp_sums: Vec<f32> = (0..block / 32)
                .map(|w| {
                    let mut v = lane_values(w);
                    let mut offset = 16;
                    while offset > 0 {
                        // Lanes past 31 read their own value.
                        v = (0..32)
                            .map(|l| v[l] + if l + offset < 32 { v[l + offset] } else { v[l] })
                            .collect();
                        offset /= 2;
                    }
                    v[0]
                })
                .collect();
            let mut w: Vec<f32> = (0..32).map(|l| warp_sums.get(l).copied().unwrap_or(0.0)).collect();
            for s in 0..5 {
                let k = 16 >> s;
                w = (0..32).map(|l| w[l] + w[l ^ k]).collect();
            }
            w[0]
        })
        .collect()
}

#[test]
fn a_block_reduction_with_shuffles_and_a_comptime_sized_shared_array() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("a_block_reduction_with_shuffles_and_a_comptime_sized_shared_array");
    for (block, n) in [(256u32, 1000usize), (64, 64), (128, 1)] {
        let x: Vec<f32> = (0..n).map(|_| rng.signed_f32()).collect();
        let xd = dev.upload(&x)?;
        let blocks = n.div_ceil(block as usize);
        let mut sums = DeviceBuffer::<f32>::zeroed(&dev, blocks)?;
        let kernel = BlockSum::new(block);
        kernel.launch(&dev, LaunchConfig::linear(blocks as u32, block), &xd, &mut sums)?;
        // Bit for bit: the host performs the same f32 additions in the same order.
        assert_eq!(sums.to_vec()?, block_sum_reference(&x, block as usize), "block {block}, n {n}");
        common::assert_assembles("block_sum", &kernel);
    }
    Ok(())
}

/// Every shuffle and vote, on 32-bit, narrow and 64-bit values.
#[ptx_kernel]
fn warp_ops(a: &[u32], b: &[i64], c: &[f64], d: &[i8], out: &mut [u32], wide: &mut [i64], float: &mut [f64]) {
    let i = thread_idx().x as usize;
    let x = a[i];
    let o = i * 8;
    out[o] = shfl_xor(x, 5);
    out[o + 1] = shfl_down(x, 3);
    out[o + 2] = shfl_up(x, 7);
    out[o + 3] = shfl_idx(x, x);
    out[o + 4] = ballot(x % 3 == 0);
    out[o + 5] = any(x == 12345) as u32 + 2 * all(x < 1000) as u32;
    out[o + 6] = lane_id() + 100 * warp_size();
    out[o + 7] = shfl_xor(d[i], 9) as u32;
    wide[2 * i] = shfl_down(b[i], 1);
    wide[2 * i + 1] = shfl_idx(b[i] * 3, 31);
    float[i] = shfl_xor(c[i], 16);
}

/// Shuffles of 16-bit floats: their bits move unchanged (NaN payloads and signed zeros too).
#[ptx_kernel]
fn half_shuffles(h: &[f16], b: &[bf16], h_out: &mut [f16], b_out: &mut [bf16]) {
    let i = thread_idx().x as usize;
    h_out[2 * i] = shfl_xor(h[i], 3);
    h_out[2 * i + 1] = shfl_idx(h[i], 17);
    b_out[2 * i] = shfl_down(b[i], 2);
    b_out[2 * i + 1] = shfl_up(b[i], 30);
}

#[test]
fn shuffles_move_16_bit_floats_bit_for_bit() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("shuffles_move_16_bit_floats_bit_for_bit");
    // Random bit patterns: NaNs with payloads, infinities, subnormals, both zeros among them.
    let h: Vec<u16> = (0..32).map(|_| rng.next() as u16).collect();
    let b: Vec<u16> = (0..32).map(|_| rng.next() as u16).collect();
    let (hd, bd) = (dev.upload(&h)?, dev.upload(&b)?);
    let (mut ho, mut bo) = (dev.zeroed::<u16>(64)?, dev.zeroed::<u16>(64)?);
    HalfShuffles::new().launch(&dev, LaunchConfig::linear(1, 32), &hd, &bd, &mut ho, &mut bo)?;
    let (ho, bo) = (ho.to_vec()?, bo.to_vec()?);
    for lane in 0..32 {
        assert_eq!([ho[2 * lane], ho[2 * lane + 1]], [h[lane ^ 3], h[17]], "f16, lane {lane}");
        let down = if lane + 2 < 32 { lane + 2 } else { lane };
        let up = if lane >= 30 { lane - 30 } else { lane };
        assert_eq!([bo[2 * lane], bo[2 * lane + 1]], [b[down], b[up]], "bf16, lane {lane}");
    }
    common::assert_assembles("half_shuffles", &HalfShuffles::new());
    Ok(())
}

#[test]
fn shuffles_and_votes_move_what_cuda_defines() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("shuffles_and_votes_move_what_cuda_defines");
    let n = 64;
    let mut a: Vec<u32> = (0..n).map(|_| rng.next() as u32 % 1100).collect();
    a[40] = 12345; // `any` holds in the second warp only
    let b: Vec<i64> = (0..n).map(|_| rng.next() as i64).collect();
    let c: Vec<f64> = (0..n).map(|_| rng.unit() * 2.0 - 1.0).collect();
    let d: Vec<i8> = (0..n).map(|_| rng.next() as i8).collect();
    let (ad, bd, cd, dd) = (dev.upload(&a)?, dev.upload(&b)?, dev.upload(&c)?, dev.upload(&d)?);
    let mut out = DeviceBuffer::<u32>::zeroed(&dev, n * 8)?;
    let mut wide = DeviceBuffer::<i64>::zeroed(&dev, n * 2)?;
    let mut float = DeviceBuffer::<f64>::zeroed(&dev, n)?;
    WarpOps::new().launch(
        &dev,
        LaunchConfig::linear(1, n as u32),
        &ad,
        &bd,
        &cd,
        &dd,
        &mut out,
        &mut wide,
        &mut float,
    )?;
    let (out, wide, float) = (out.to_vec()?, wide.to_vec()?, float.to_vec()?);
    for i in 0..n {
        let (warp, lane) = (i / 32 * 32, i % 32);
        let at = |l: usize| warp + l;
        let ballot = (0..32).filter(|&l| a[at(l)].is_multiple_of(3)).fold(0u32, |m, l| m | 1 << l);
        let any = (0..32).any(|l| a[at(l)] == 12345);
        let all = (0..32).all(|l| a[at(l)] < 1000);
        let want = [
            a[at(lane ^ 5)],
            a[at(if lane + 3 < 32 { lane + 3 } else { lane })],
            a[at(if lane >= 7 { lane - 7 } else { lane })],
            a[at(a[i] as usize % 32)],
            ballot,
            any as u32 + 2 * all as u32,
            lane as u32 + 3200,
            d[at(lane ^ 9)] as u32,
        ];
        assert_eq!(out[i * 8..i * 8 + 8], want, "thread {i}");
        let down = if lane + 1 < 32 { b[at(lane + 1)] } else { b[i] };
        assert_eq!(wide[2 * i..2 * i + 2], [down, b[at(31)].wrapping_mul(3)], "thread {i}");
        assert_eq!(float[i].to_bits(), c[at(lane ^ 16)].to_bits(), "thread {i}");
    }
    common::assert_assembles("warp_ops", &WarpOps::new());
    Ok(())
}

/// A histogram in shared memory merged into global memory, and each atomic's old value.
#[ptx_kernel]
fn atomics(x: &[u32], hist: &mut [u32], stats: &mut [i32], old: &mut [u32], total: &mut [f32]) {
    let bins = shared::<u32, 16>();
    let t = thread_idx().x as usize;
    if t < 16 {
        bins[t] = 0;
    }
    sync_threads();
    let v = x[t];
    atomic_add(&mut bins[v % 16], 1);
    sync_threads();
    if t < 16 {
        atomic_add(&mut hist[t], bins[t]);
    }
    let s = v as i32 - 500;
    atomic_min(&mut stats[0], s);
    atomic_max(&mut stats[1], s);
    atomic_and(&mut stats[2], s);
    atomic_or(&mut stats[3], s);
    atomic_xor(&mut stats[4], s);
    atomic_add(&mut total[0], (v % 8) as f32 * 0.5);
    // One thread swaps, and sees the value it replaced.
    if t == 7 {
        old[0] = atomic_exch(&mut old[1], v);
        old[2] = atomic_cas(&mut old[3], 77, v);
        old[4] = atomic_cas(&mut old[5], 0, v);
    }
}

#[test]
fn atomics_on_shared_and_global_elements_give_the_old_value() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("atomics_on_shared_and_global_elements_give_the_old_value");
    let n = 96;
    let x: Vec<u32> = (0..n).map(|_| rng.next() as u32 % 1000).collect();
    let xd = dev.upload(&x)?;
    let mut hist = dev.upload(&[3u32; 16])?;
    let mut stats = dev.upload(&[i32::MAX, i32::MIN, -1, 0, 0])?;
    let mut old = dev.upload(&[0u32, 11, 0, 77, 0, 5])?;
    let mut total = dev.upload(&[0.25f32])?;
    Atomics::new().launch(
        &dev,
        LaunchConfig::linear(1, n as u32),
        &xd,
        &mut hist,
        &mut stats,
        &mut old,
        &mut total,
    )?;
    // The same body, run as plain Rust one thread after another (barriers split it in phases).
    let mut want_hist = [3u32; 16];
    let mut bins = [0u32; 16];
    let mut want_stats = [i32::MAX, i32::MIN, -1, 0, 0];
    let mut want_old = [0u32, 11, 0, 77, 0, 5];
    let mut want_total = 0.25f32;
    for &v in &x {
        atomic_add(&mut bins[(v % 16) as usize], 1);
    }
    for t in 0..16 {
        atomic_add(&mut want_hist[t], bins[t]);
    }
    for (t, &v) in x.iter().enumerate() {
        let s = v as i32 - 500;
        atomic_min(&mut want_stats[0], s);
        atomic_max(&mut want_stats[1], s);
        atomic_and(&mut want_stats[2], s);
        atomic_or(&mut want_stats[3], s);
        atomic_xor(&mut want_stats[4], s);
        // Halves of small integers: every order of these f32 additions is exact.
        atomic_add(&mut want_total, (v % 8) as f32 * 0.5);
        if t == 7 {
            want_old[0] = atomic_exch(&mut want_old[1], v);
            want_old[2] = atomic_cas(&mut want_old[3], 77, v);
            want_old[4] = atomic_cas(&mut want_old[5], 0, v);
        }
    }
    assert_eq!(hist.to_vec()?, want_hist);
    assert_eq!(stats.to_vec()?, want_stats);
    assert_eq!(old.to_vec()?, want_old);
    assert_eq!(total.to_vec()?, [want_total]);
    common::assert_assembles("atomics", &Atomics::new());
    Ok(())
}

/// Indexes its shared array past the end on thread 3.
#[ptx_kernel]
fn shared_overrun(out: &mut [u32]) {
    let tile = shared::<u32, 4>();
    let t = thread_idx().x as usize;
    tile[t] = t as u32;
    sync_threads();
    out[t] = tile[(t + 1) % 4] + tile[t * 2];
}

#[test]
fn a_shared_array_index_out_of_range_is_an_error_naming_the_array_and_line() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut out = DeviceBuffer::<u32>::zeroed(&dev, 4)?;
    let err = SharedOverrun::new().launch(&dev, LaunchConfig::linear(1, 4), &mut out).unwrap_err();
    let Error::OutOfBounds { kernel, param, index, len, location } = &err else {
        panic!("expected OutOfBounds, got {err}")
    };
    assert_eq!((kernel.as_str(), param.as_str(), *len), ("shared_overrun", "tile", 4), "{err}");
    assert!(*index == 4 || *index == 6, "{err}");
    let line: usize = location.split(':').nth(1).and_then(|l| l.parse().ok()).unwrap_or(0);
    let text = include_str!("lang_threads.rs").lines().nth(line - 1).unwrap_or("");
    assert!(text.contains("tile[t * 2]"), "line {line} is `{text}`");
    // In-range reads happened; the out-of-range ones read 0.
    assert_eq!(out.to_vec()?, [1, 2 + 2, 3, 0]);
    Ok(())
}

/// Thread 0 and the threads past `n` leave before the barrier the others wait at, which
/// then reverse their values through shared memory.
#[ptx_kernel]
fn early_exit_before_barrier(out: &mut [u32], n: u32) {
    let tile = shared::<u32, 64>();
    let t = thread_idx().x;
    if t == 0 || t >= n {
        return;
    }
    tile[t as usize] = t * 10;
    sync_threads();
    out[t as usize] = tile[(n - t) as usize];
}

#[test]
fn threads_that_returned_do_not_hold_up_a_barrier() -> ptx_dsl::runtime::Result<()> {
    // The PTX ISA releases a barrier that only exited threads have not reached, as a GPU
    // runs CUDA C's `if (i >= n) return; .. __syncthreads();`.
    let dev = Device::sim();
    let mut out = DeviceBuffer::<u32>::zeroed(&dev, 64)?;
    EarlyExitBeforeBarrier::new().launch(&dev, LaunchConfig::linear(1, 64), &mut out, 40)?;
    let want: Vec<u32> = (0..64).map(|t| if t == 0 || t >= 40 { 0 } else { (40 - t) * 10 }).collect();
    assert_eq!(out.to_vec()?, want);
    Ok(())
}

/// Threads past `n` go on to a second barrier that the others, waiting at the first, never
/// reach.
#[ptx_kernel]
fn threads_at_two_barriers(out: &mut [u32], n: u32) {
    let t = thread_idx().x;
    if t < n {
        sync_threads();
    }
    sync_threads();
    out[t as usize] = t;
}

#[test]
fn a_barrier_some_threads_never_reach_is_an_error_not_a_hang() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut out = DeviceBuffer::<u32>::zeroed(&dev, 64)?;
    let err =
        ThreadsAtTwoBarriers::new().launch(&dev, LaunchConfig::linear(1, 64), &mut out, 40).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("threads_at_two_barriers") && text.contains("barrier"), "{text}");
    assert!(text.contains("40 thread(s)") && text.contains("24 thread(s)"), "{text}");
    Ok(())
}

/// Shared arrays sized by a `#[comptime]` parameter: `n` elements in `a` and in `b` (too
/// much shared memory for one kernel at `n` = 8192, 2 * 32 KiB; none at 0).
#[ptx_kernel]
fn sized_shared(out: &mut [f32], #[comptime] n: usize) {
    let a = shared::<f32, n>();
    let b = shared::<f32, n>();
    let t = thread_idx().x as usize;
    a[t] = 1.0;
    b[t] = 2.0;
    sync_threads();
    out[t] = a[t] + b[t];
}

#[test]
fn more_than_48_kib_of_shared_arrays_is_an_error_at_launch() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut out = DeviceBuffer::<f32>::zeroed(&dev, 1)?;
    let err = SizedShared::new(8192).launch(&dev, LaunchConfig::linear(1, 1), &mut out).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("65536 bytes") && text.contains("48 KiB"), "{text}");
    Ok(())
}

#[test]
fn shared_arrays_too_large_or_empty_name_their_line() {
    let dev = Device::sim();
    let mut out = dev.zeroed::<f32>(16).expect("a buffer");
    let cfg = LaunchConfig::for_elements(16, 16);
    SizedShared::new(16).launch(&dev, cfg, &mut out).expect("48 KiB is enough");
    assert_eq!(out.to_vec().expect("read back"), vec![3.0; 16]);
    // The statement of the array in error, by its line and column: `b`, the first past the
    // limit, and `a`, the first empty one.
    let source = std::fs::read_to_string(file!()).expect("the test's source");
    let at = |statement: &str| {
        let (row, text) = source.lines().enumerate().find(|(_, l)| l.contains(statement)).expect("found");
        format!("{}:{}:{}", file!(), row + 1, text.find("let").expect("a let") + 1)
    };
    let cases = [
        (8192, "more than the 49152 bytes", at("let b = shared::<f32, n>();")),
        (0, "has 0 bytes", at("let a = shared::<f32, n>();")),
    ];
    for (n, what, at) in cases {
        let err = SizedShared::new(n).launch(&dev, cfg, &mut out).expect_err("refused");
        let text = err.to_string();
        assert!(matches!(err, Error::InvalidKernel(_)), "{text}");
        assert!(text.contains(what) && text.contains(&at), "n = {n}: {text} (wanted {at})");
    }
}

/// The built-in reductions over warps and blocks, on integers and floats, fed by a
/// grid-stride loop.
#[ptx_kernel]
fn reductions(x: &[i32], y: &[f64], warp: &mut [i32], block: &mut [f64], seen: &mut [u32]) {
    let mut acc = 0i32;
    let mut big = f64::NEG_INFINITY;
    for i in grid_stride(x.len()) {
        acc = acc.wrapping_add(x[i]);
        big = big.max(y[i]);
        atomic_add(&mut seen[i], 1);
    }
    let g = global_idx().x as usize;
    warp[3 * g] = warp_sum(acc);
    warp[3 * g + 1] = warp_min(acc);
    warp[3 * g + 2] = warp_max(acc);
    block[3 * g] = block_max(big);
    block[3 * g + 1] = block_min(big);
    block[3 * g + 2] = block_sum(acc as f64);
}

#[test]
fn warp_and_block_reductions_give_every_thread_the_total() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("warp_and_block_reductions_give_every_thread_the_total");
    let (blocks, threads, n) = (2u32, 96u32, 1000usize);
    let x: Vec<i32> = (0..n).map(|_| rng.next() as i32 >> 8).collect();
    let y: Vec<f64> = (0..n).map(|_| rng.unit() * 200.0 - 100.0).collect();
    let (xd, yd) = (dev.upload(&x)?, dev.upload(&y)?);
    let total = (blocks * threads) as usize;
    let mut warp = DeviceBuffer::<i32>::zeroed(&dev, 3 * total)?;
    let mut block = DeviceBuffer::<f64>::zeroed(&dev, 3 * total)?;
    let mut seen = DeviceBuffer::<u32>::zeroed(&dev, n)?;
    Reductions::new().launch(
        &dev,
        LaunchConfig::linear(blocks, threads),
        &xd,
        &yd,
        &mut warp,
        &mut block,
        &mut seen,
    )?;
    assert_eq!(seen.to_vec()?, vec![1; n], "the grid-stride loop visits every index once");
    // Each thread's grid-stride partials, as the kernel forms them.
    let acc: Vec<i32> =
        (0..total).map(|g| (g..n).step_by(total).fold(0i32, |a, i| a.wrapping_add(x[i]))).collect();
    let big: Vec<f64> =
        (0..total).map(|g| (g..n).step_by(total).fold(f64::NEG_INFINITY, |a, i| a.max(y[i]))).collect();
    let (warp, block) = (warp.to_vec()?, block.to_vec()?);
    for g in 0..total {
        let w = g / 32 * 32..g / 32 * 32 + 32;
        let b = g / threads as usize * threads as usize..(g / threads as usize + 1) * threads as usize;
        let warp_want = [
            acc[w.clone()].iter().fold(0i32, |a, v| a.wrapping_add(*v)),
            *acc[w.clone()].iter().min().unwrap_or(&0),
            *acc[w].iter().max().unwrap_or(&0),
        ];
        assert_eq!(warp[3 * g..3 * g + 3], warp_want, "thread {g}");
        let block_max = big[b.clone()].iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let block_min = big[b.clone()].iter().copied().fold(f64::INFINITY, f64::min);
        assert_eq!(block[3 * g..3 * g + 2], [block_max, block_min], "thread {g}");
        // Integers below 2^23 each, at most 96 of them: every f64 sum order is exact.
        let sum: f64 = acc[b].iter().map(|&v| v as f64).sum();
        assert_eq!(block[3 * g + 2], sum, "thread {g}");
    }
    common::assert_assembles("reductions", &Reductions::new());
    Ok(())
}

/// `min`/`max` reductions over values some or all of which are NaN: Rust's fold ignores a
/// NaN operand, so a block of NaNs gives NaN (not an infinity no thread had), in the warp
/// and the block forms alike.
#[ptx_kernel]
fn nan_reductions(x: &[f32], out: &mut [f32]) {
    let t = thread_idx().x as usize;
    let v = x[t];
    let (a, b, c, d) = (block_min(v), block_max(v), warp_min(v), warp_max(v));
    let o = 4 * t;
    out[o] = a;
    out[o + 1] = b;
    out[o + 2] = c;
    out[o + 3] = d;
}

#[test]
fn min_and_max_reductions_of_nans_are_nan_as_rusts_fold_gives() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    // Two warps: all NaN; then one value among NaNs in the second warp.
    for x in
        [vec![f32::NAN; 64], (0..64).map(|i| if i == 40 { -2.5 } else { f32::NAN }).collect::<Vec<f32>>()]
    {
        let xd = dev.upload(&x)?;
        let mut out = DeviceBuffer::<f32>::zeroed(&dev, 4 * 64)?;
        NanReductions::new().launch(&dev, LaunchConfig::linear(1, 64), &xd, &mut out)?;
        let out = out.to_vec()?;
        let fold = |v: &[f32], f: fn(f32, f32) -> f32| v.iter().copied().fold(f32::NAN, f);
        for t in 0..64 {
            let w = &x[t / 32 * 32..t / 32 * 32 + 32];
            let want = [fold(&x, f32::min), fold(&x, f32::max), fold(w, f32::min), fold(w, f32::max)];
            for (got, want) in out[4 * t..4 * t + 4].iter().zip(want) {
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "thread {t}: {got} vs {want}"
                );
            }
        }
    }
    Ok(())
}

/// `atomic_add` on `f32`, in global and shared memory, with subnormal values: the GPU's
/// `atom.add.f32` flushes subnormal inputs and results, and the host's `atomic_add` (what
/// the body means as plain Rust) does the same.
#[ptx_kernel]
fn float_atomic_adds(x: &mut [f32], v: &[f32], old: &mut [f32]) {
    let t = thread_idx().x as usize;
    if t < x.len() && t < v.len() && 3 * t + 2 < old.len() {
        let s = shared::<f32, 32>();
        s[t] = x[t];
        old[3 * t] = atomic_add(&mut x[t], v[t]);
        old[3 * t + 1] = atomic_add(&mut s[t], v[t]);
        old[3 * t + 2] = s[t];
    }
}

#[test]
fn float_atomic_adds_flush_subnormals_on_the_gpu_and_the_host_alike() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let tiny = f32::from_bits(1); // the smallest subnormal
    let pairs = [
        (0.0f32, 1e-40f32),
        (1e-40, 0.0),
        (1e-38, -1.1e-38),
        (-0.0, tiny),
        (1.5, 2.25),
        (f32::MIN_POSITIVE, -tiny),
        (-1e-39, -0.0),
        (3.0e38, 3.0e38),
    ];
    let mut x: Vec<f32> = pairs.iter().map(|p| p.0).collect();
    let v: Vec<f32> = pairs.iter().map(|p| p.1).collect();
    let (mut xd, vd) = (dev.upload(&x)?, dev.upload(&v)?);
    let mut old = DeviceBuffer::<f32>::zeroed(&dev, 3 * x.len())?;
    FloatAtomicAdds::new().launch(&dev, LaunchConfig::linear(1, 32), &mut xd, &vd, &mut old)?;
    let (got_x, got_old) = (xd.to_vec()?, old.to_vec()?);
    for t in 0..x.len() {
        let before = x[t];
        let returned = atomic_add(&mut x[t], v[t]);
        assert_eq!(returned.to_bits(), before.to_bits(), "pair {t}");
        // The old values, global and shared, and the sums, global and shared.
        assert_eq!(got_old[3 * t].to_bits(), before.to_bits(), "pair {t}");
        assert_eq!(got_old[3 * t + 1].to_bits(), before.to_bits(), "pair {t}");
        assert_eq!(got_x[t].to_bits(), x[t].to_bits(), "pair {t}: {} vs {}", got_x[t], x[t]);
        assert_eq!(got_old[3 * t + 2].to_bits(), x[t].to_bits(), "pair {t}");
    }
    assert_eq!(x[0].to_bits(), 0, "0 + 1e-40 flushes to +0");
    assert_eq!(x[4], 3.75);
    Ok(())
}

/// Reverses each block's elements through the launch-sized dynamic shared memory.
#[ptx_kernel]
fn dynamic_reverse(x: &[f64], out: &mut [f64]) {
    let buffer = shared_dyn::<f64>();
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    let base = block_idx().x as usize * n;
    buffer[t] = x[base + t];
    sync_threads();
    out[base + t] = buffer[n - 1 - t] + buffer.len() as f64 * 1000.0;
}

#[test]
fn dynamic_shared_memory_is_sized_by_the_launch_and_checked() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("dynamic_shared_memory_is_sized_by_the_launch_and_checked");
    let x: Vec<f64> = (0..192).map(|_| rng.unit()).collect();
    let xd = dev.upload(&x)?;
    let mut out = DeviceBuffer::<f64>::zeroed(&dev, x.len())?;
    // 64 threads and room for 80 f64: the length the kernel sees is 80.
    let config = LaunchConfig::linear(3, 64).with_shared_mem(80 * 8);
    DynamicReverse::new().launch(&dev, config, &xd, &mut out)?;
    let want: Vec<f64> = x.chunks(64).flat_map(|c| c.iter().rev().map(|v| v + 80_000.0)).collect();
    assert_eq!(out.to_vec()?, want);
    // Room for 32 of the 64: thread 32 is the first to store out of range.
    let err = DynamicReverse::new()
        .launch(&dev, LaunchConfig::linear(1, 64).with_shared_mem(32 * 8), &xd, &mut out)
        .unwrap_err();
    assert!(
        matches!(&err, Error::OutOfBounds { param, len: 32, index, .. } if param == "buffer" && *index >= 32),
        "{err}"
    );
    common::assert_assembles("dynamic_reverse", &DynamicReverse::new());
    Ok(())
}

/// Prints one line per thread: every argument kind.
#[ptx_kernel]
fn print_values(x: &[i64], out: &mut [u32]) {
    let t = thread_idx().x;
    let v = x[t as usize];
    gpu_print!(
        "thread {} of {}: v = {}, odd {}, {{half}} = {}, 100%",
        t,
        block_dim().x,
        v,
        v % 2 != 0,
        v as f32 * 0.5
    );
    out[t as usize] = t;
}

#[test]
fn gpu_print_prints_each_threads_values_in_thread_order() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x: Vec<i64> = vec![-3, 10, 7_000_000_000, 5];
    let xd = dev.upload(&x)?;
    let mut out = DeviceBuffer::<u32>::zeroed(&dev, 4)?;
    let report = PrintValues::new().launch(&dev, LaunchConfig::linear(1, 4), &xd, &mut out)?;
    // The host's own formatting of the same values, floats being ones `%g` prints as Rust does.
    let want: String = x
        .iter()
        .enumerate()
        .map(|(t, &v)| {
            format!("thread {t} of 4: v = {v}, odd {}, {{half}} = {}, 100%\n", v % 2 != 0, v as f32 * 0.5)
        })
        .collect();
    assert_eq!(report.printed.replace("3.5e+09", "3500000000"), want);
    assert_eq!(out.to_vec()?, [0, 1, 2, 3]);
    common::assert_assembles("print_values", &PrintValues::new());
    Ok(())
}

/// Reads a neighbour's shared slot without a barrier after the stores: a data race.
#[ptx_kernel]
fn racy_neighbour(x: &[f32], out: &mut [f32]) {
    let tile = shared::<f32, 64>();
    let t = thread_idx().x as usize;
    tile[t] = x[t];
    out[t] = tile[(t + 1) % 64];
}

/// The same with the barrier: no race.
#[ptx_kernel]
fn synced_neighbour(x: &[f32], out: &mut [f32]) {
    let tile = shared::<f32, 64>();
    let t = thread_idx().x as usize;
    tile[t] = x[t];
    sync_threads();
    out[t] = tile[(t + 1) % 64];
}

#[test]
fn the_simulator_reports_a_shared_memory_race_at_its_rust_line() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let xd = dev.upload(&x)?;
    let mut out = DeviceBuffer::<f32>::zeroed(&dev, 64)?;
    SyncedNeighbour::new().launch(&dev, LaunchConfig::linear(1, 64), &xd, &mut out)?;
    let want: Vec<f32> = (0..64).map(|i| ((i + 1) % 64) as f32).collect();
    assert_eq!(out.to_vec()?, want);
    let line =
        include_str!("lang_threads.rs").lines().position(|l| l.contains("fn racy_neighbour")).unwrap() + 4;
    // Thread 0 runs first and reads slot 1 before thread 1 stores it: a read of a shared
    // byte no thread has written yet, at the line of `out[t] = tile[(t + 1) % 64]`.
    let err = RacyNeighbour::new().launch(&dev, LaunchConfig::linear(1, 64), &xd, &mut out).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("uninitialised shared memory in kernel `racy_neighbour`")
            && text.contains("thread (0, 0, 0) read shared byte 4"),
        "{text}"
    );
    assert!(text.contains(&format!("tests/lang_threads.rs:{}:", line + 1)), "line {}: {text}", line + 1);
    // Without that check, thread 1's store is the access that races with thread 0's load,
    // at the line of `tile[t] = x[t]`.
    let races_only =
        Device::sim_with_options(SimOptions { uninit_shared_check: false, ..SimOptions::default() });
    let (xd, mut out) = (races_only.upload(&x)?, DeviceBuffer::<f32>::zeroed(&races_only, 64)?);
    let err =
        RacyNeighbour::new().launch(&races_only, LaunchConfig::linear(1, 64), &xd, &mut out).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("shared-memory race in kernel `racy_neighbour`"), "{text}");
    // The message names both accesses: the store (`tile[t] = x[t]`) and thread 0's
    // earlier load (the line after).
    assert!(
        text.contains("thread (1, 0, 0) stored to shared byte 4 at `")
            && text.contains("which thread (0, 0, 0) had loaded at `")
            && text.contains(" ld.shared.f32 "),
        "{text}"
    );
    assert!(text.contains(&format!("tests/lang_threads.rs:{line}:")), "line {line}: {text}");
    assert!(text.contains(&format!("tests/lang_threads.rs:{}:", line + 1)), "line {}: {text}", line + 1);
    Ok(())
}

/// Every thread stores its value to global memory, then reads its neighbour's: racy
/// without a barrier between (the simulator checks global memory when asked), clean with
/// one; `total` gets each value atomically (no race) or, with `plain`, by a plain `+=` that
/// races.
#[ptx_kernel]
fn global_neighbours(
    x: &[u32],
    out: &mut [u32],
    total: &mut [u32],
    #[comptime] synced: bool,
    #[comptime] plain: bool,
) {
    let t = thread_idx().x as usize;
    out[t] = x[t];
    if synced {
        sync_threads();
    }
    let v = out[(t + 1) % 64];
    if plain {
        total[0] += v;
    } else {
        atomic_add(&mut total[0], v);
    }
}

#[test]
fn global_memory_races_are_found_when_the_device_checks_for_them() -> ptx_dsl::runtime::Result<()> {
    let checking = Device::sim_with_options(SimOptions { global_race_check: true, ..SimOptions::default() });
    let x: Vec<u32> = (0..64).map(|i| i * 3 + 1).collect();
    let launch = |dev: &Device, synced: bool, plain: bool| -> ptx_dsl::runtime::Result<Vec<u32>> {
        let xd = dev.upload(&x)?;
        let (mut out, mut total) = (dev.zeroed::<u32>(64)?, dev.zeroed::<u32>(1)?);
        GlobalNeighbours::new(synced, plain).launch(
            dev,
            LaunchConfig::linear(1, 64),
            &xd,
            &mut out,
            &mut total,
        )?;
        total.to_vec()
    };
    let sum: u32 = x.iter().sum();
    // With a barrier and atomics: clean, and the right total.
    assert_eq!(launch(&checking, true, false)?, [sum]);
    // Without the barrier: thread 1's store meets thread 0's earlier load of out[1].
    let err = launch(&checking, false, false).unwrap_err().to_string();
    assert!(err.contains("global-memory race in kernel `global_neighbours`"), "{err}");
    assert!(err.contains("thread (1, 0, 0) stored to global address"), "{err}");
    // A plain read-modify-write of one word by every thread: a race on `total`.
    let err = launch(&checking, true, true).unwrap_err().to_string();
    assert!(
        err.contains("global-memory race")
            && err.contains("which thread (0, 0, 0) had stored to at `")
            && err.contains(" st.global.u32 "),
        "{err}"
    );
    // A device that does not check global memory runs the racy kernel (the default).
    launch(&Device::sim_with_options(SimOptions::default()), false, false)?;
    Ok(())
}

/// Each warp exchanges values through shared memory: `sync_warp()` orders the lanes'
/// stores before their loads when `synced`; fences are there to be assembled and run.
#[ptx_kernel]
fn warp_exchange(x: &[u32], out: &mut [u32], #[comptime] synced: bool) {
    let slots = shared::<u32, 64>();
    let t = thread_idx().x as usize;
    slots[t] = x[t] * 3;
    thread_fence_block();
    if synced {
        sync_warp();
    }
    out[t] = slots[t / 32 * 32 + (t + 1) % 32];
    thread_fence();
    thread_fence_system();
}

#[test]
fn sync_warp_orders_a_warps_shared_accesses_and_its_absence_is_a_race() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x: Vec<u32> = (0..64).map(|i| i * 7 + 1).collect();
    let xd = dev.upload(&x)?;
    let mut out = DeviceBuffer::<u32>::zeroed(&dev, 64)?;
    WarpExchange::new(true).launch(&dev, LaunchConfig::linear(1, 64), &xd, &mut out)?;
    let want: Vec<u32> = (0..64).map(|t| x[t / 32 * 32 + (t + 1) % 32] * 3).collect();
    assert_eq!(out.to_vec()?, want);
    let ptx = WarpExchange::new(true).ptx();
    let fences: Vec<&str> =
        ptx.lines().map(str::trim).filter(|l| l.starts_with("fence") || l.starts_with("membar")).collect();
    // One fence per scope, in source order: block, device, system.
    assert_eq!(fences, ["membar.cta;", "membar.gl;", "membar.sys;"]);
    // Without `sync_warp()`, lane 0 reads lane 1's slot before lane 1 stores it (lanes run
    // in order): a read of a never-written byte, and, without that check, a race.
    let err = WarpExchange::new(false).launch(&dev, LaunchConfig::linear(1, 64), &xd, &mut out).unwrap_err();
    assert!(err.to_string().contains("uninitialised shared memory in kernel `warp_exchange`"), "{err}");
    let races_only =
        Device::sim_with_options(SimOptions { uninit_shared_check: false, ..SimOptions::default() });
    let (xd, mut out) = (races_only.upload(&x)?, DeviceBuffer::<u32>::zeroed(&races_only, 64)?);
    let err =
        WarpExchange::new(false).launch(&races_only, LaunchConfig::linear(1, 64), &xd, &mut out).unwrap_err();
    assert!(err.to_string().contains("shared-memory race in kernel `warp_exchange`"), "{err}");
    common::assert_assembles("warp_exchange", &WarpExchange::new(true));
    Ok(())
}

/// A launch of 48 threads per block must be refused before it runs.
fn assert_partial_warp_refused<T: std::fmt::Debug>(kernel: &str, result: ptx_dsl::runtime::Result<T>) {
    let err = result.expect_err(kernel);
    let Error::InvalidArgument { argument, reason } = &err else {
        panic!("{kernel}: expected InvalidArgument: {err}")
    };
    assert_eq!(argument, "config", "{kernel}");
    assert!(reason.contains("multiple of 32") && reason.contains("48 threads"), "{kernel}: {reason}");
}

/// Every kind of warp operation makes the launch check for whole warps: votes and
/// shuffles (`warp_ops`), shuffles alone (`block_sum`), reductions alone (`reductions`).
#[test]
fn a_kernel_with_warp_operations_rejects_a_partial_warp() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let config = LaunchConfig::linear(1, 48);
    let a = dev.upload(&[1u32; 48])?;
    let b = dev.upload(&[1i64; 48])?;
    let c = dev.upload(&[1.0f64; 48])?;
    let d = dev.upload(&[1i8; 48])?;
    let (mut out, mut wide, mut float) =
        (dev.zeroed::<u32>(8 * 48)?, dev.zeroed::<i64>(96)?, dev.zeroed::<f64>(48)?);
    let result = WarpOps::new().launch(&dev, config, &a, &b, &c, &d, &mut out, &mut wide, &mut float);
    assert_partial_warp_refused("warp_ops", result);

    let x = dev.upload(&[1.0f32; 48])?;
    let mut sums = dev.zeroed::<f32>(1)?;
    assert_partial_warp_refused("block_sum", BlockSum::new(64).launch(&dev, config, &x, &mut sums));

    let ints = dev.upload(&[1i32; 48])?;
    let (mut warp, mut block, mut seen) =
        (dev.zeroed::<i32>(144)?, dev.zeroed::<f64>(144)?, dev.zeroed::<u32>(48)?);
    let result = Reductions::new().launch(&dev, config, &ints, &c, &mut warp, &mut block, &mut seen);
    assert_partial_warp_refused("reductions", result);
    Ok(())
}

#[ptx_kernel]
fn zero_sums(x: &[f32], y: &[f64], fs: &mut [f32], ds: &mut [f64]) {
    let i = thread_idx().x as usize;
    let (a, b) = (block_sum(x[i]), block_sum(y[i]));
    let (c, d) = (warp_sum(x[i]), warp_sum(y[i]));
    if i == 0 {
        fs[0] = a;
        ds[0] = b;
        fs[1] = c;
        ds[1] = d;
    }
}

#[test]
fn sums_of_negative_zeros_are_negative_zero_at_every_block_size() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    // IEEE: -0 + -0 = -0, +0 + -0 = +0. A block of fewer than 32 warps pads the warps'
    // sums with the identity, which must be -0.0 to leave an all -0.0 sum negative.
    for (threads, value) in [(64usize, -0.0f32), (320, -0.0), (1024, -0.0), (96, 0.0)] {
        let x = vec![value; threads];
        let y = vec![f64::from(value); threads];
        let (mut fs, mut ds): (DeviceBuffer<f32>, DeviceBuffer<f64>) = (dev.zeroed(2)?, dev.zeroed(2)?);
        let launch = LaunchConfig::linear(1, threads as u32);
        ZeroSums::new().launch(&dev, launch, &dev.upload(&x)?, &dev.upload(&y)?, &mut fs, &mut ds)?;
        let fs: Vec<u32> = fs.to_vec()?.into_iter().map(f32::to_bits).collect();
        let ds: Vec<u64> = ds.to_vec()?.into_iter().map(f64::to_bits).collect();
        assert_eq!(fs, [value.to_bits(); 2], "{threads} threads of {value:?}");
        assert_eq!(ds, [f64::from(value).to_bits(); 2], "{threads} threads of {value:?}");
    }
    Ok(())
}

/// The compare-and-swap loop of CUDA's programming guide on a shared word: a plain read of
/// the current value, then `atomic_cas` until no other thread got in between.
#[ptx_kernel]
fn shared_cas_max(x: &[u32], out: &mut [u32]) {
    let slot = shared::<u32, 1>();
    let t = thread_idx().x as usize;
    if t == 0 {
        slot[0] = 0;
    }
    sync_threads();
    let v = x[t];
    let mut old = slot[0];
    while old < v {
        let seen = atomic_cas(&mut slot[0], old, v);
        if seen == old {
            break;
        }
        old = seen;
    }
    sync_threads();
    if t == 0 {
        out[0] = slot[0];
    }
}

#[test]
fn a_cas_loop_that_starts_with_a_plain_read_is_not_a_race() -> ptx_dsl::runtime::Result<()> {
    let mut rng = Rng::fresh("a_cas_loop_that_starts_with_a_plain_read_is_not_a_race");
    let x: Vec<u32> = (0..256).map(|_| rng.next() as u32).collect();
    let dev = Device::sim();
    let mut out: DeviceBuffer<u32> = dev.zeroed(1)?;
    SharedCasMax::new().launch(&dev, LaunchConfig::linear(1, 256), &dev.upload(&x)?, &mut out)?;
    assert_eq!(out.to_vec()?, [*x.iter().max().unwrap_or(&0)]);
    Ok(())
}
