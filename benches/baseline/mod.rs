//! The baselines the seed port (`ptx_dsl::rope::seed`) is measured against, shared by the
//! generation benchmark, `examples/generation_cost.rs` and the ptxas test through `#[path]`:
//! the batched RoPE forward kernel written directly against the typed builder, as the project
//! first had it ([`BuilderRope`]), and the `#[ptx_kernel]` seed kernel without bounds checks
//! ([`BatchedRopeUnchecked`]), for what the checks cost.

use ptx_dsl::core::builder::KernelBuilder;
use ptx_dsl::core::{math, Cmp, Kernel, KernelIr, SpecialReg, F32, U32};
use ptx_dsl::gpu::{block_idx, thread_idx};
use ptx_dsl::ptx_kernel;

/// The seed's forward kernel for one head shape, built with the builder (no bounds checks).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BuilderRope {
    /// Heads per sequence.
    pub num_heads: u32,
    /// Elements per head (even).
    pub head_dim: u32,
    /// The RoPE base.
    pub theta: f32,
}

/// `ptx_dsl::rope::seed::batched_rope`'s body, unchecked.
#[ptx_kernel(unchecked)]
pub fn batched_rope_unchecked(
    x: &[f32],
    out: &mut [f32],
    positions: &[u32],
    #[comptime] num_heads: u32,
    #[comptime] head_dim: u32,
    #[comptime] theta: f32,
) {
    let pair = thread_idx().x;
    let (head, seq) = (block_idx().x, block_idx().y);
    if pair >= head_dim / 2 {
        return;
    }
    let base = ((seq * num_heads + head) * head_dim + 2 * pair) as usize;
    let freq = (pair as f32 * (-2.0 * theta.log2() / head_dim as f32)).exp2();
    let (sin, cos) = (positions[seq] as f32 * freq).sin_cos();
    let (x0, x1) = (x[base], x[base + 1]);
    out[base] = x0 * cos - x1 * sin;
    out[base + 1] = x0 * sin + x1 * cos;
}

impl Kernel for BuilderRope {
    fn name(&self) -> &str {
        "batched_rope_builder"
    }

    fn cache_key(&self) -> String {
        format!("heads={},dim={},theta={:#x}", self.num_heads, self.head_dim, self.theta.to_bits())
    }

    fn build(&self) -> KernelIr {
        let mut b = KernelBuilder::new(self.name());
        let x = b.global_pointer("x");
        let out = b.global_pointer("out");
        let positions = b.global_pointer("positions");
        let pair = b.special(SpecialReg::TidX);
        let head = b.special(SpecialReg::CtaidX);
        let seq = b.special(SpecialReg::CtaidY);

        let exit = b.label();
        let in_range = b.setp(Cmp::Lt, pair, self.head_dim / 2);
        b.bra_unless(in_range, exit);

        let pos_addr = b.element_address::<U32>(positions, seq);
        let pos = b.ld_global::<U32>(pos_addr, 0);
        let row = b.mad_lo(seq, self.num_heads, head);
        let row_start = b.mul(row, self.head_dim);
        let elem = b.mad_lo(pair, 2u32, row_start);
        let offset = b.byte_offset::<F32>(elem);
        let x_addr = b.offset_address(x, offset);
        let out_addr = b.offset_address(out, offset);
        let x0 = b.ld_global::<F32>(x_addr, 0);
        let x1 = b.ld_global::<F32>(x_addr, 4);

        let pair_f = b.cast::<F32, U32>(pair);
        let exponent = b.mul(pair_f, -2.0 * self.theta.log2() / self.head_dim as f32);
        let freq = math::exp2(&mut b, exponent);
        let pos_f = b.cast::<F32, U32>(pos);
        let angle = b.mul(pos_f, freq);
        let (sin, cos) = math::sin_cos(&mut b, angle);

        let x0_cos = b.mul(x0, cos);
        let x1_sin = b.mul(x1, sin);
        let x0_sin = b.mul(x0, sin);
        let x1_cos = b.mul(x1, cos);
        let (o0, o1) = (b.sub(x0_cos, x1_sin), b.add(x0_sin, x1_cos));
        b.st_global::<F32>(out_addr, 0, o0);
        b.st_global::<F32>(out_addr, 4, o1);
        b.place(exit);
        b.finish()
    }
}
