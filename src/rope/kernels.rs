//! The production RoPE kernels, written with `#[ptx_kernel]`: one body, stamped out for each
//! storage type (f32, f16, bf16; the math is f32) and for out-of-place and in-place use.
//!
//! One thread handles one rotated pair of one token (`thread_idx().x` is the pair,
//! `block_idx().x · block_dim().y + thread_idx().y` the token): it computes the angle's sine
//! and cosine once and applies them to that pair in every head of q and then of k, so the
//! trigonometry is amortised over all heads. Element `(token, head, d)` of a tensor lives at
//! `offset + token · stride + head · head_dim + d`, so q and k may be views of one fused
//! qkv buffer. Pairs are `(2i, 2i+1)` (interleaved) or `(i, i + rotary_dim/2)` (half-split);
//! elements `rotary_dim..head_dim` are copied through by the out-of-place kernels.
//!
//! Where the views allow it ([`super::Rope::vector_width`]: rotary and head dimensions,
//! offsets and strides multiples of the vector width), the vectorised kernels run instead:
//! one thread rotates four (f32) or eight (f16, bf16) pairs with 16-byte
//! accesses (`load4`/`store4`, `load8`/`store8`), one sine and cosine per pair as before.
//!
//! The kernels are `unchecked`: [`super::DeviceRope`] proves every index in range before it
//! launches one (each view lies inside its buffer, `positions` covers the tokens, the table
//! has one entry per pair, and the geometry's threads past the tokens or pairs return), so
//! the per-access checks would be dead code — about half of the kernel's SASS.
//!
//! The angle never exists as one f32 value. `turns` holds, for each pair, its rate in turns
//! per position as an f32 pair `hi + lo` (from f64 on the host). With `p = pos as f32` (exact
//! below 2^24; the remainder `pos − p` is carried separately above), `whole`, the integer
//! nearest `p·hi`, is subtracted inside one `fma(p, hi, −whole)`: the whole turns go before
//! anything is rounded, and the fraction of a turn that is left is formed from small terms.
//! That fraction is split into whole quarter turns (`quarters`, exactly) and `r`, at most
//! ⅛ of a turn; the sine and cosine of `2π·r` are minimax polynomials in `r` (degrees 7 and
//! 8, coefficients fitted in float64 and rounded to f32; 9.4e-8 and 7.1e-8 at most over
//! `|r| <= ⅛`, f32 evaluation included), and the quarter turns swap and negate them. The
//! angle's error is therefore a few 2^-24 of a turn at every position, where an f32 angle
//! `pos·freq` errs by `pos·freq·2^-24`. Every step is an exact f32 operation (no `.approx`
//! instruction), so the simulator computes the same bits as a GPU.
//!
//! The bound ([`super::ACCURACY`]), for `pos < 2^24` (`p` exact, `p_rem = 0`) and rates
//! `g <= 1/2π` (inverse frequencies up to 1 rad per position, as `θ^(−2i/d)` gives and
//! [`super::Rope::new`] requires: [`super::MAX_TURNS_PER_POSITION`]; a scaling factor below 1
//! could give more): `hi + lo` misses `g` by `2^-48·g`, `pos` times that is below 1e-8 turns;
//! `p·hi − whole` (below 0.63) and the sum `turn` (below 0.8) round by at most 2^-25 each,
//! `p·lo` (below 0.16) by 2^-27: 7.7e-8 turns, 4.8e-7 rad in all. An output `x0·cos − x1·sin`
//! moves by at most `√2·max|x|` per radian (6.8e-7), the polynomials add 2e-7, the factor `m`
//! 1.7e-7 (rounded to f32, and the products `s·m`, `c·m`) and the product and `fma` 1.4e-7:
//! 1.16e-6 · m · max|x|. Above 2^24 the remainder
//! term grows with `pos − p` (at most 128) and the error with it, but the result stays a
//! rotation of the input.

use crate::gpu::{block_dim, block_idx, load4, load8, store4, store8, thread_idx};
use crate::{ptx_device, ptx_kernel};

/// The sine and cosine of the angle of position `p + p_rem` at a rate of `hi + lo` turns
/// per position, each times `scale`; the negated angle's when `backward` (the same rotation
/// backwards). `p` is the position as an `f32` and `p_rem` what that lost (0 below 2^24).
/// A device function of the kernels; called on the host, it gives the very bits they do.
#[ptx_device]
#[allow(clippy::approx_constant)] // 6.283185 is a fitted coefficient, not 2π
pub fn scaled_sin_cos(p: f32, p_rem: f32, hi: f32, lo: f32, scale: f32, backward: bool) -> (f32, f32) {
    let whole = (p * hi).round_ties_even();
    let turn = p.mul_add(hi, -whole) + p_rem.mul_add(hi, p * lo);
    let turn = if backward { -turn } else { turn };
    // `turn` is `quarters` quarter turns and `r` turns (exact, |r| <= 1/8): the sine and
    // cosine of 2πr are short polynomials in r, then the quarter turns swap and negate them.
    let quarters = (4.0 * turn).round_ties_even();
    let r = quarters.mul_add(-0.25, turn);
    let z = r * r;
    let s = r * z.mul_add(z.mul_add(z.mul_add(-75.24007, 81.58813), -41.34163), 6.283185);
    let c = z.mul_add(z.mul_add(z.mul_add(z.mul_add(59.245964, -85.44374), 64.93932), -19.739208), 1.0);
    let quarter = quarters as i32;
    let (s, c) = if quarter & 1 == 0 { (s, c) } else { (c, s) };
    let sin = s * if quarter & 2 == 0 { scale } else { -scale };
    (sin, c * if (quarter + 1) & 2 == 0 { scale } else { -scale })
}

/// Stamps out one RoPE kernel. `copy_tail` says whether elements past `rotary_dim` are copied
/// (out-of-place); each `heads(..)` group is one tensor's loop: the conversion of the f32
/// result to the element type (empty for f32), the source slice with its offset and stride
/// parameters, the destination slice with its offset and stride, and the head count.
macro_rules! rope_kernel {
    (
        $(#[$doc:meta])* $name:ident, copy_tail: $copy:literal,
        params($($params:tt)*),
        $(heads([$($store:tt)*], $src:ident, $src_offset:ident, $src_stride:ident,
                $dst:ident, $dst_offset:ident, $dst_stride:ident, $heads:ident)),+
    ) => {
        $(#[$doc])*
        #[ptx_kernel(crate = crate, unchecked)]
        pub fn $name(
            $($params)*
            positions: &[u32],
            turns: &[f32],
            tokens: u32,
            scale: f32,
            #[comptime] head_dim: u32,
            #[comptime] rotary_dim: u32,
            #[comptime] half_split: bool,
            #[comptime] backward: bool,
        ) {
            let pair = thread_idx().x;
            let token = block_idx().x * block_dim().y + thread_idx().y;
            if token >= tokens || pair >= rotary_dim / 2 {
                return;
            }
            let pos = positions[token];
            let (hi, lo) = (turns[2 * pair], turns[2 * pair + 1]);
            let p = pos as f32;
            let p_rem = (pos as i64 - p as i64) as f32;
            let (sin, cos) = scaled_sin_cos(p, p_rem, hi, lo, scale, backward);
            let (i0, i1) = if half_split { (pair, pair + rotary_dim / 2) } else { (2 * pair, 2 * pair + 1) };
            let (i0, i1) = (i0 as usize, i1 as usize);
            let row = token as usize;
            let hd = head_dim as usize;
            $(
                // Four heads at a time: their eight loads are issued before any store, so
                // that each thread keeps several loads in flight (a store may alias a later
                // load, so the compiler cannot hoist loads past it on its own).
                let mut head = 0u32;
                while head < $heads {
                    let within = head as usize * hd;
                    let src = $src_offset + row * $src_stride + within;
                    let dst = $dst_offset + row * $dst_stride + within;
                    if $heads - head >= 4 {
                        let (a0, b0) = ($src[src + i0] as f32, $src[src + i1] as f32);
                        let (a1, b1) = ($src[src + hd + i0] as f32, $src[src + hd + i1] as f32);
                        let (a2, b2) = ($src[src + 2 * hd + i0] as f32, $src[src + 2 * hd + i1] as f32);
                        let (a3, b3) = ($src[src + 3 * hd + i0] as f32, $src[src + 3 * hd + i1] as f32);
                        $dst[dst + i0] = $($store)*(a0.mul_add(cos, -(b0 * sin)));
                        $dst[dst + i1] = $($store)*(a0.mul_add(sin, b0 * cos));
                        $dst[dst + hd + i0] = $($store)*(a1.mul_add(cos, -(b1 * sin)));
                        $dst[dst + hd + i1] = $($store)*(a1.mul_add(sin, b1 * cos));
                        $dst[dst + 2 * hd + i0] = $($store)*(a2.mul_add(cos, -(b2 * sin)));
                        $dst[dst + 2 * hd + i1] = $($store)*(a2.mul_add(sin, b2 * cos));
                        $dst[dst + 3 * hd + i0] = $($store)*(a3.mul_add(cos, -(b3 * sin)));
                        $dst[dst + 3 * hd + i1] = $($store)*(a3.mul_add(sin, b3 * cos));
                    } else {
                        let (a0, b0) = ($src[src + i0] as f32, $src[src + i1] as f32);
                        $dst[dst + i0] = $($store)*(a0.mul_add(cos, -(b0 * sin)));
                        $dst[dst + i1] = $($store)*(a0.mul_add(sin, b0 * cos));
                    }
                    // `heads - head`, not `head + 4`, which wraps for a count near `u32::MAX`.
                    let done = if $heads - head >= 4 { 4 } else { 1 };
                    if $copy && rotary_dim < head_dim {
                        for h in 0..done as usize {
                            for d in ((rotary_dim + pair)..head_dim).step_by((rotary_dim / 2) as usize) {
                                $dst[dst + h * hd + d as usize] = $src[src + h * hd + d as usize];
                            }
                        }
                    }
                    head += done;
                }
            )+
        }
    };
}

/// Stamps out one vectorised RoPE kernel: each thread rotates `W` pairs of one token
/// (`W` = 4 for f32, 8 for 16-bit storage) with two `W`-element vector loads and stores per
/// head (16 bytes each), at elements `c·W` and `rotary_dim/2 + c·W` of the head for chunk
/// `c`, so that a warp's accesses are contiguous. In half-split order those are the first
/// and second elements of pairs `c·W .. c·W + W`; interleaved, each vector holds `W/2`
/// whole pairs (`c·W/2 ..` and `rotary_dim/4 + c·W/2 ..`). `convert` turns an f32 result
/// into the element type; `angles` names each lane's sine and cosine; each `heads(..)`
/// group also gets the lane table: the two vectors' element names, then per lane its sine
/// and cosine, its two inputs in half-split and in interleaved order and its two outputs,
/// and the two vectors' outputs in interleaved order.
macro_rules! rope_vector_kernel {
    (
        $(#[$doc:meta])* $name:ident, copy_tail: $copy:literal, width: $w:literal,
        $load:ident, $store_vec:ident, convert: $cty:ident :: $cfn:ident,
        params($($params:tt)*),
        angles[$(($j:literal, [$($t:ident),+])),+; $(($s:ident, $c:ident, $hi:ident, $lo:ident)),+],
        $(heads($src:ident, $src_offset:ident, $src_stride:ident,
                $dst:ident, $dst_offset:ident, $dst_stride:ident, $heads:ident,
                lanes(a[$($a:ident),+], b[$($b:ident),+],
                      $([$ls:ident, $lc:ident, $ha:ident, $hb:ident, $ia:ident, $ib:ident, $y0:ident, $y1:ident]),+;
                      interleaved[$($ya:ident),+], [$($yb:ident),+]))),+
    ) => {
        $(#[$doc])*
        #[ptx_kernel(crate = crate, unchecked)]
        pub fn $name(
            $($params)*
            positions: &[u32],
            turns: &[f32],
            tokens: u32,
            scale: f32,
            #[comptime] head_dim: u32,
            #[comptime] rotary_dim: u32,
            #[comptime] half_split: bool,
            #[comptime] backward: bool,
        ) {
            let chunk = thread_idx().x;
            let token = block_idx().x * block_dim().y + thread_idx().y;
            if token >= tokens || chunk >= rotary_dim / 2 / $w {
                return;
            }
            let pos = positions[token];
            let p = pos as f32;
            let p_rem = (pos as i64 - p as i64) as f32;
            // The lanes' rates, two pairs' `hi, lo` per 16-byte load: the table holds the
            // lanes of a vector (and, interleaved, of each half of it) in consecutive pairs.
            $(
                let ($($t),+) = {
                    let pair = if half_split {
                        chunk * $w + $j
                    } else {
                        // Lanes below W/2 are pairs of the first vector, the rest of the
                        // second, rotary_dim/4 pairs further on.
                        let second = if $j < $w / 2 { 0 } else { rotary_dim / 4 - $w / 2 };
                        chunk * ($w / 2) + $j + second
                    };
                    load4(turns, (2 * pair) as usize)
                };
            )+
            // Each lane's sine and cosine.
            $(
                let ($s, $c) = scaled_sin_cos(p, p_rem, $hi, $lo, scale, backward);
            )+
            let first = (chunk * $w) as usize;
            let (ia, ib) = (first, first + (rotary_dim / 2) as usize);
            let row = token as usize;
            let hd = head_dim as usize;
            $(
                // The heads' elements, `head_dim` apart.
                let (src_row, dst_row) = ($src_offset + row * $src_stride, $dst_offset + row * $dst_stride);
                let mut within = 0;
                for _ in 0..$heads {
                    let (src, dst) = (src_row + within, dst_row + within);
                    let ($($a),+) = $load($src, src + ia);
                    let ($($b),+) = $load($src, src + ib);
                    $(
                        let (x0, x1) = if half_split { ($ha as f32, $hb as f32) } else { ($ia as f32, $ib as f32) };
                        let $y0 = $cty::$cfn(x0.mul_add($lc, -(x1 * $ls)));
                        let $y1 = $cty::$cfn(x0.mul_add($ls, x1 * $lc));
                    )+
                    if half_split {
                        $store_vec($dst, dst + ia, ($($y0),+));
                        $store_vec($dst, dst + ib, ($($y1),+));
                    } else {
                        $store_vec($dst, dst + ia, ($($ya),+));
                        $store_vec($dst, dst + ib, ($($yb),+));
                    }
                    if $copy && rotary_dim < head_dim {
                        let step = (rotary_dim / 2) as usize;
                        for d in ((rotary_dim as usize + first)..head_dim as usize).step_by(step) {
                            let tail = $load($src, src + d);
                            $store_vec($dst, dst + d, tail);
                        }
                    }
                    within += hd;
                }
            )+
        }
    };
}

/// Stamps out the out-of-place and in-place kernels of one storage type, scalar and
/// vectorised (`vector(width, load, store, names..)`: see [`rope_vector_kernel`]).
macro_rules! rope_kernels {
    (
        $elem:ident, [$($store:tt)*], $out_of_place:ident, $in_place:ident,
        vector($w:literal, $load:ident, $store_vec:ident, $cty:ident :: $cfn:ident, $vec_out:ident,
               $vec_in:ident, angles $angles:tt, lanes $lanes:tt)
    ) => {
        rope_kernel!(
            #[doc = concat!("Out-of-place RoPE on `", stringify!($elem), "` storage: rotates q into `q_out` ",
                "and k into `k_out` (copying the tail past `rotary_dim`); see the module docs.")]
            $out_of_place, copy_tail: true,
            params(
                q: &[$elem], q_offset: usize, q_stride: usize, q_heads: u32,
                k: &[$elem], k_offset: usize, k_stride: usize, k_heads: u32,
                q_out: &mut [$elem], q_out_offset: usize, q_out_stride: usize,
                k_out: &mut [$elem], k_out_offset: usize, k_out_stride: usize,
            ),
            heads([$($store)*], q, q_offset, q_stride, q_out, q_out_offset, q_out_stride, q_heads),
            heads([$($store)*], k, k_offset, k_stride, k_out, k_out_offset, k_out_stride, k_heads)
        );
        rope_kernel!(
            #[doc = concat!("In-place RoPE on `", stringify!($elem), "` storage: q and k are two views ",
                "of the one buffer `x` (a fused qkv buffer, or one tensor with `k_heads` 0).")]
            $in_place, copy_tail: false,
            params(
                x: &mut [$elem],
                q_offset: usize, q_stride: usize, q_heads: u32,
                k_offset: usize, k_stride: usize, k_heads: u32,
            ),
            heads([$($store)*], x, q_offset, q_stride, x, q_offset, q_stride, q_heads),
            heads([$($store)*], x, k_offset, k_stride, x, k_offset, k_stride, k_heads)
        );
        rope_vector_kernel!(
            #[doc = concat!("`", stringify!($out_of_place), "` with ", stringify!($w), "-element vector ",
                "accesses (16 bytes), for views whose offsets, strides and dimensions allow them.")]
            $vec_out, copy_tail: true, width: $w, $load, $store_vec, convert: $cty::$cfn,
            params(
                q: &[$elem], q_offset: usize, q_stride: usize, q_heads: u32,
                k: &[$elem], k_offset: usize, k_stride: usize, k_heads: u32,
                q_out: &mut [$elem], q_out_offset: usize, q_out_stride: usize,
                k_out: &mut [$elem], k_out_offset: usize, k_out_stride: usize,
            ),
            angles $angles,
            heads(q, q_offset, q_stride, q_out, q_out_offset, q_out_stride, q_heads, lanes $lanes),
            heads(k, k_offset, k_stride, k_out, k_out_offset, k_out_stride, k_heads, lanes $lanes)
        );
        rope_vector_kernel!(
            #[doc = concat!("`", stringify!($in_place), "` with ", stringify!($w), "-element vector ",
                "accesses (16 bytes), for views whose offsets, strides and dimensions allow them.")]
            $vec_in, copy_tail: false, width: $w, $load, $store_vec, convert: $cty::$cfn,
            params(
                x: &mut [$elem],
                q_offset: usize, q_stride: usize, q_heads: u32,
                k_offset: usize, k_stride: usize, k_heads: u32,
            ),
            angles $angles,
            heads(x, q_offset, q_stride, x, q_offset, q_stride, q_heads, lanes $lanes),
            heads(x, k_offset, k_stride, x, k_offset, k_stride, k_heads, lanes $lanes)
        );
    };
}

rope_kernels!(f32, [], rope_f32, rope_f32_in_place, vector(4, load4, store4, f32::from, rope_f32_v4, rope_f32_v4_in_place,
    angles [(0, [h0, l0, h1, l1]), (2, [h2, l2, h3, l3]); (s0, c0, h0, l0), (s1, c1, h1, l1), (s2, c2, h2, l2), (s3, c3, h3, l3)],
    lanes (
        a[a0, a1, a2, a3], b[b0, b1, b2, b3],
        [s0, c0, a0, b0, a0, a1, y0, z0],
        [s1, c1, a1, b1, a2, a3, y1, z1],
        [s2, c2, a2, b2, b0, b1, y2, z2],
        [s3, c3, a3, b3, b2, b3, y3, z3];
        interleaved[y0, z0, y1, z1], [y2, z2, y3, z3]
    )
));
rope_kernels!(f16, [f16::from_f32], rope_f16, rope_f16_in_place, vector(8, load8, store8, f16::from_f32, rope_f16_v8, rope_f16_v8_in_place,
    angles [(0, [h0, l0, h1, l1]), (2, [h2, l2, h3, l3]), (4, [h4, l4, h5, l5]), (6, [h6, l6, h7, l7]);
        (s0, c0, h0, l0), (s1, c1, h1, l1), (s2, c2, h2, l2), (s3, c3, h3, l3),
        (s4, c4, h4, l4), (s5, c5, h5, l5), (s6, c6, h6, l6), (s7, c7, h7, l7)],
    lanes (
        a[a0, a1, a2, a3, a4, a5, a6, a7], b[b0, b1, b2, b3, b4, b5, b6, b7],
        [s0, c0, a0, b0, a0, a1, y0, z0],
        [s1, c1, a1, b1, a2, a3, y1, z1],
        [s2, c2, a2, b2, a4, a5, y2, z2],
        [s3, c3, a3, b3, a6, a7, y3, z3],
        [s4, c4, a4, b4, b0, b1, y4, z4],
        [s5, c5, a5, b5, b2, b3, y5, z5],
        [s6, c6, a6, b6, b4, b5, y6, z6],
        [s7, c7, a7, b7, b6, b7, y7, z7];
        interleaved[y0, z0, y1, z1, y2, z2, y3, z3], [y4, z4, y5, z5, y6, z6, y7, z7]
    )
));
rope_kernels!(bf16, [bf16::from_f32], rope_bf16, rope_bf16_in_place, vector(8, load8, store8, bf16::from_f32, rope_bf16_v8, rope_bf16_v8_in_place,
    angles [(0, [h0, l0, h1, l1]), (2, [h2, l2, h3, l3]), (4, [h4, l4, h5, l5]), (6, [h6, l6, h7, l7]);
        (s0, c0, h0, l0), (s1, c1, h1, l1), (s2, c2, h2, l2), (s3, c3, h3, l3),
        (s4, c4, h4, l4), (s5, c5, h5, l5), (s6, c6, h6, l6), (s7, c7, h7, l7)],
    lanes (
        a[a0, a1, a2, a3, a4, a5, a6, a7], b[b0, b1, b2, b3, b4, b5, b6, b7],
        [s0, c0, a0, b0, a0, a1, y0, z0],
        [s1, c1, a1, b1, a2, a3, y1, z1],
        [s2, c2, a2, b2, a4, a5, y2, z2],
        [s3, c3, a3, b3, a6, a7, y3, z3],
        [s4, c4, a4, b4, b0, b1, y4, z4],
        [s5, c5, a5, b5, b2, b3, y5, z5],
        [s6, c6, a6, b6, b4, b5, y6, z6],
        [s7, c7, a7, b7, b6, b7, y7, z7];
        interleaved[y0, z0, y1, z1, y2, z2, y3, z3], [y4, z4, y5, z5, y6, z6, y7, z7]
    )
));
