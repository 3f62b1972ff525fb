//! The batched RoPE kernel written directly against the typed builder, as the project
//! first had it: the baseline the `#[ptx_kernel]` version ([`super::kernel`]) is measured
//! against (instruction counts, PTX generation time, ptxas resources, GPU time). It has no
//! bounds checks; [`BuilderRope::launch`] checks the buffer sizes instead.

use ptx_core::builder::KernelBuilder;
use ptx_core::{math, Cmp, Kernel, KernelIr, SpecialReg, F32, U32};
use ptx_runtime::{Device, DeviceBuffer, KernelArg, LaunchReport, Result};

use super::{BatchedRope, Direction};

/// A [`BatchedRope`] configuration, built with the builder.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BuilderRope {
    /// The shape, θ and direction.
    pub rope: BatchedRope,
}

impl BuilderRope {
    /// Runs the kernel; sizes are checked as [`BatchedRope::launch`] checks them.
    pub fn launch(
        &self,
        device: &Device,
        x: &DeviceBuffer<f32>,
        out: &mut DeviceBuffer<f32>,
        positions: &DeviceBuffer<u32>,
    ) -> Result<LaunchReport> {
        let cfg = self.rope.checked_config(x.len(), out.len(), positions.len())?;
        device.launch(self, cfg, &mut [KernelArg::from(x), KernelArg::from(out), KernelArg::from(positions)])
    }
}

impl Kernel for BuilderRope {
    fn name(&self) -> &str {
        match self.rope.direction {
            Direction::Forward => "batched_rope_builder",
            Direction::Backward => "batched_rope_builder_backward",
        }
    }

    fn cache_key(&self) -> String {
        format!(
            "heads={},dim={},theta={:#x}",
            self.rope.num_heads,
            self.rope.head_dim,
            self.rope.theta.to_bits()
        )
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
        let in_range = b.setp(Cmp::Lt, pair, self.rope.head_dim / 2);
        b.bra_unless(in_range, exit);

        let pos_addr = b.element_address::<U32>(positions, seq);
        let pos = b.ld_global::<U32>(pos_addr, 0);
        let row = b.mad_lo(seq, self.rope.num_heads, head);
        let row_start = b.mul(row, self.rope.head_dim);
        let elem = b.mad_lo(pair, 2u32, row_start);
        let offset = b.byte_offset::<F32>(elem);
        let x_addr = b.offset_address(x, offset);
        let out_addr = b.offset_address(out, offset);
        let x0 = b.ld_global::<F32>(x_addr, 0);
        let x1 = b.ld_global::<F32>(x_addr, 4);

        let pair_f = b.cast::<F32, U32>(pair);
        let exponent = b.mul(pair_f, -2.0 * self.rope.theta.log2() / self.rope.head_dim as f32);
        let freq = math::exp2(&mut b, exponent);
        let pos_f = b.cast::<F32, U32>(pos);
        let angle = b.mul(pos_f, freq);
        let (sin, cos) = math::sin_cos(&mut b, angle);

        let x0_cos = b.mul(x0, cos);
        let x1_sin = b.mul(x1, sin);
        let x0_sin = b.mul(x0, sin);
        let x1_cos = b.mul(x1, cos);
        let (o0, o1) = match self.rope.direction {
            Direction::Forward => (b.sub(x0_cos, x1_sin), b.add(x0_sin, x1_cos)),
            Direction::Backward => (b.add(x0_cos, x1_sin), b.sub(x1_cos, x0_sin)),
        };
        b.st_global::<F32>(out_addr, 0, o0);
        b.st_global::<F32>(out_addr, 4, o1);
        b.place(exit);
        b.finish()
    }
}
