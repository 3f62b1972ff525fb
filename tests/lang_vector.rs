//! Vector accesses (`load2`, `load4`, `store2`, `store4`) on the simulator against the same
//! accesses as plain Rust: the values, the 8- and 16-byte PTX accesses they become, and the
//! errors of a checked kernel for a misaligned index or elements past the end.

mod common;

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, Error, LaunchConfig};
use ptx_tools::rng::Rng;

/// Each thread moves four `f32`s and two `u64`s with one access each, reordering them on the
/// way; `shift` moves the `f32` index (1 makes it misaligned).
#[ptx_kernel]
fn shuffle_vectors(x: &[f32], y: &mut [f32], w: &[u64], v: &mut [u64], shift: usize) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if 4 * i < x.len() {
        let (a, b, c, d) = load4(x, 4 * i + shift);
        store4(y, 4 * i, (d, c * 2.0, b, a - 1.0));
    }
    if 2 * i < w.len() {
        let (p, q) = load2(w, 2 * i);
        store2(v, 2 * i, (q, p ^ 1));
    }
}

/// The same with no checks: the caller proves the indices.
#[ptx_kernel(unchecked)]
fn shuffle_unchecked(x: &[i32], y: &mut [i32], offset: usize) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let pair = load2(x, 2 * i + offset);
    store2(y, 2 * i, (pair.1, pair.0));
}

#[test]
fn vector_accesses_move_what_plain_rust_moves() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let mut rng = Rng::fresh("vector_accesses");
    // 1000 floats (250 vectors of four) and 300 u64s (150 pairs): threads past either stop.
    let x: Vec<f32> = (0..1000).map(|_| rng.signed_f32() * 100.0).collect();
    let w: Vec<u64> = (0..300).map(|_| rng.next()).collect();
    let (xd, wd) = (dev.upload(&x)?, dev.upload(&w)?);
    let (mut yd, mut vd) = (dev.zeroed::<f32>(1000)?, dev.zeroed::<u64>(300)?);
    ShuffleVectors::new().launch(&dev, LaunchConfig::for_elements(250, 64), &xd, &mut yd, &wd, &mut vd, 0)?;
    // The kernel's body per thread, as plain Rust with the host forms of the built-ins.
    let (mut y, mut v) = (vec![0.0f32; 1000], vec![0u64; 300]);
    for i in 0..250 {
        if 4 * i < x.len() {
            let (a, b, c, d) = load4(&x, 4 * i);
            store4(&mut y, 4 * i, (d, c * 2.0, b, a - 1.0));
        }
        if 2 * i < w.len() {
            let (p, q) = load2(&w, 2 * i);
            store2(&mut v, 2 * i, (q, p ^ 1));
        }
    }
    assert_eq!(yd.to_vec()?, y);
    assert_eq!(vd.to_vec()?, v);
    let ptx = ShuffleVectors::new().ptx();
    for access in ["ld.global.v4.f32", "st.global.v4.f32", "ld.global.v2.u64", "st.global.v2.u64"] {
        assert!(ptx.contains(access), "{access} missing");
    }
    common::assert_assembles("shuffle_vectors", &ShuffleVectors::new());
    common::assert_assembles("shuffle_unchecked", &ShuffleUnchecked::new());
    Ok(())
}

#[test]
fn a_checked_kernel_reports_misaligned_and_out_of_range_vectors() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let x: Vec<f32> = (0..8).map(|i| i as f32).collect();
    let xd = dev.upload(&x)?;
    let (wd, mut vd) = (dev.upload(&[1u64, 2])?, dev.zeroed::<u64>(2)?);
    let mut yd = dev.zeroed::<f32>(8)?;
    let line =
        include_str!("lang_vector.rs").lines().position(|l| l.contains("load4(x, 4 * i + shift)")).unwrap()
            + 1;
    // Index 1, 5: not multiples of 4, what the host function asserts first.
    let err = ShuffleVectors::new()
        .launch(&dev, LaunchConfig::linear(1, 2), &xd, &mut yd, &wd, &mut vd, 1)
        .unwrap_err();
    let Error::KernelPanic { message, location, .. } = &err else { panic!("expected KernelPanic: {err}") };
    assert_eq!(message, "misaligned vector access: the index is not a multiple of 4");
    assert!(location.contains(&format!("tests/lang_vector.rs:{line}:")), "{location}");
    // Index 8 of 8 elements: aligned, out of range; the first index outside is 8.
    let err = ShuffleVectors::new()
        .launch(&dev, LaunchConfig::linear(1, 2), &xd, &mut yd, &wd, &mut vd, 4)
        .unwrap_err();
    let Error::OutOfBounds { param, index, len, .. } = &err else { panic!("expected OutOfBounds: {err}") };
    assert_eq!((param.as_str(), *index, *len), ("x", 8, 8));
    // Six elements and index 4: elements 4 and 5 exist, 6 does not.
    let short = dev.upload(&x[..6])?;
    let err = ShuffleVectors::new()
        .launch(&dev, LaunchConfig::linear(1, 2), &short, &mut yd, &wd, &mut vd, 0)
        .unwrap_err();
    assert!(matches!(&err, Error::OutOfBounds { index: 6, len: 6, .. }), "{err}");
    // The host functions panic with the same messages.
    let misaligned = std::panic::catch_unwind(|| load4(&x, 1)).unwrap_err();
    assert_eq!(misaligned.downcast_ref::<String>().map(String::as_str), Some(message.as_str()));
    assert!(std::panic::catch_unwind(|| load4(&x[..6], 4)).is_err());
    Ok(())
}

#[test]
fn a_misaligned_unchecked_vector_faults_in_the_simulator() -> ptx_dsl::runtime::Result<()> {
    let dev = Device::sim();
    let xd = dev.upload(&[1i32, 2, 3, 4, 5])?;
    let mut yd = dev.zeroed::<i32>(4)?;
    // SAFETY: two threads read elements 0..4 and write 0..4 of buffers of 5 and 4.
    unsafe { ShuffleUnchecked::new().launch(&dev, LaunchConfig::linear(1, 2), &xd, &mut yd, 0)? };
    assert_eq!(yd.to_vec()?, [2, 1, 4, 3]);
    // An odd offset: an 8-byte access at a 4-byte boundary, which a GPU rejects too.
    // SAFETY: deliberately wrong; the simulator checks every access.
    let err = unsafe { ShuffleUnchecked::new().launch(&dev, LaunchConfig::linear(1, 2), &xd, &mut yd, 1) }
        .unwrap_err();
    assert!(matches!(err, Error::SimFault { .. }), "{err}");
    Ok(())
}

/// Sixteen-bit vectors: each thread reverses eight `f16` in one 16-byte load and store
/// (doubling one of them on the way), moves four `u16` and swaps two `bf16`; `shift` moves
/// the `f16` index (4 makes it misaligned).
#[ptx_kernel]
fn sixteen_bit_vectors(
    h: &[f16],
    g: &mut [f16],
    u: &[u16],
    v: &mut [u16],
    b: &[bf16],
    c: &mut [bf16],
    shift: usize,
) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if 8 * i < h.len() {
        let (a0, a1, a2, a3, a4, a5, a6, a7) = load8(h, 8 * i + shift);
        store8(g, 8 * i, (a7, a6, a5, a4, a3, a2, a1, f16::from_f32(a0 as f32 * 2.0)));
    }
    if 4 * i < u.len() {
        let (p, q, r, s) = load4(u, 4 * i);
        store4(v, 4 * i, (s, r ^ 1, q, p));
    }
    if 2 * i < b.len() {
        let (x0, x1) = load2(b, 2 * i);
        store2(c, 2 * i, (x1, x0));
    }
}

#[test]
fn sixteen_bit_vectors_move_what_plain_rust_moves() -> ptx_dsl::runtime::Result<()> {
    use half::f16;
    let dev = Device::sim();
    let mut rng = Rng::fresh("sixteen_bit_vectors");
    // Finite f16 bit patterns (exponent field below 31), 800 of them (100 vectors of eight);
    // 400 u16 and 200 bf16 (as bits).
    let h: Vec<u16> = (0..800).map(|_| rng.next() as u16 & 0xfbff).collect();
    let u: Vec<u16> = (0..400).map(|_| rng.next() as u16).collect();
    let b: Vec<u16> = (0..200).map(|_| rng.next() as u16).collect();
    let (hd, ud, bd) = (dev.upload(&h)?, dev.upload(&u)?, dev.upload(&b)?);
    let (mut gd, mut vd, mut cd) =
        (dev.zeroed::<u16>(800)?, dev.zeroed::<u16>(400)?, dev.zeroed::<u16>(200)?);
    let config = LaunchConfig::for_elements(100, 32);
    SixteenBitVectors::new().launch(&dev, config, &hd, &mut gd, &ud, &mut vd, &bd, &mut cd, 0)?;
    // The kernel's body per thread as plain Rust: the host forms on the bits, `half` for
    // the one conversion (f16 × 2 in f32 is exact, rounding back to f16 is round-to-nearest).
    let (mut g, mut v, mut c) = (vec![0u16; 800], vec![0u16; 400], vec![0u16; 200]);
    for i in 0..100 {
        let (a0, a1, a2, a3, a4, a5, a6, a7) = load8(&h, 8 * i);
        let doubled = f16::from_f32(f16::from_bits(a0).to_f32() * 2.0).to_bits();
        store8(&mut g, 8 * i, (a7, a6, a5, a4, a3, a2, a1, doubled));
        let (p, q, r, s) = load4(&u, 4 * i);
        store4(&mut v, 4 * i, (s, r ^ 1, q, p));
        let (x0, x1) = load2(&b, 2 * i);
        store2(&mut c, 2 * i, (x1, x0));
    }
    assert_eq!(gd.to_vec()?, g);
    assert_eq!(vd.to_vec()?, v);
    assert_eq!(cd.to_vec()?, c);
    let ptx = SixteenBitVectors::new().ptx();
    for access in ["ld.global.v4.b32", "st.global.v4.b32", "ld.global.v4.u16", "ld.global.v2.b16"] {
        assert!(ptx.contains(access), "{access} missing:\n{ptx}");
    }
    common::assert_assembles("sixteen_bit_vectors", &SixteenBitVectors::new());
    // Index 4: not a multiple of 8, what the host function asserts first.
    let err = SixteenBitVectors::new()
        .launch(&dev, config, &hd, &mut gd, &ud, &mut vd, &bd, &mut cd, 4)
        .unwrap_err();
    let Error::KernelPanic { message, .. } = &err else { panic!("expected KernelPanic: {err}") };
    assert_eq!(message, "misaligned vector access: the index is not a multiple of 8");
    let misaligned = std::panic::catch_unwind(|| load8(&h, 4)).unwrap_err();
    assert_eq!(misaligned.downcast_ref::<String>().map(String::as_str), Some(message.as_str()));
    // Twelve f16: the second vector's elements 8..12 exist, 12 does not.
    let short = dev.upload(&h[..12])?;
    let err = SixteenBitVectors::new()
        .launch(&dev, LaunchConfig::linear(1, 2), &short, &mut gd, &ud, &mut vd, &bd, &mut cd, 0)
        .unwrap_err();
    assert!(matches!(&err, Error::OutOfBounds { index: 12, len: 12, .. }), "{err}");
    Ok(())
}
