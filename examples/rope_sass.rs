//! SASS statistics of the RoPE kernels beside the same algorithm in CUDA C compiled by
//! NVRTC: registers, stack frame, spills and SASS instructions (static count, from
//! `nvdisasm`) for sm_90, and the global loads and stores by width.
//!
//! ```text
//! pip install --target DIR nvidia-cuda-nvrtc nvidia-cuda-nvdisasm
//! LD_LIBRARY_PATH=DIR/nvidia/cu13/lib NVDISASM=DIR/nvidia/cu13/bin/nvdisasm \
//!     cargo run --release --example rope_sass
//! ```
//!
//! ptxas comes from `scripts/install-ptxas.sh` (or `PTXAS`). The CUDA C kernels do what
//! `ptx_dsl::rope::Rope`'s f32 half-split out-of-place forward kernel does (one thread per
//! token and pair, the sine and cosine reused over every q and k head, the tail copied), with
//! the angle `pos · inv_freq` in f32 and CUDA's accurate `sincosf` or fast `__sincosf`.

#[path = "sass/mod.rs"]
mod sass;

use ptx_dsl::core::{Kernel, Target};
use ptx_dsl::rope::seed::BatchedRope;
use ptx_dsl::rope::{Direction, Dtype, Layout, Rope, RopeConfig};

/// The CUDA C version; `SINCOS` is `sincosf` or `__sincosf`.
const CUDA_C: &str = r#"
extern "C" __global__ void rope_cuda(const float* q, const float* k, float* q_out, float* k_out,
                                     const unsigned* positions, const float* inv_freq,
                                     unsigned tokens, unsigned q_heads, unsigned k_heads) {
    const unsigned head_dim = 128, rotary_dim = 128, half = rotary_dim / 2;
    unsigned pair = threadIdx.x, token = blockIdx.x * blockDim.y + threadIdx.y;
    if (token >= tokens || pair >= half) return;
    float s, c;
    SINCOS((float)positions[token] * inv_freq[pair], &s, &c);
    size_t q_row = (size_t)token * q_heads * head_dim, k_row = (size_t)token * k_heads * head_dim;
    for (unsigned h = 0; h < q_heads; ++h) {
        size_t b = q_row + (size_t)h * head_dim;
        float a0 = q[b + pair], a1 = q[b + pair + half];
        q_out[b + pair] = a0 * c - a1 * s;
        q_out[b + pair + half] = a0 * s + a1 * c;
        for (unsigned d = rotary_dim + pair; d < head_dim; d += half) q_out[b + d] = q[b + d];
    }
    for (unsigned h = 0; h < k_heads; ++h) {
        size_t b = k_row + (size_t)h * head_dim;
        float a0 = k[b + pair], a1 = k[b + pair + half];
        k_out[b + pair] = a0 * c - a1 * s;
        k_out[b + pair + half] = a0 * s + a1 * c;
        for (unsigned d = rotary_dim + pair; d < head_dim; d += half) k_out[b + d] = k[b + d];
    }
}
"#;

fn main() -> std::process::ExitCode {
    let mut rows: Vec<(String, Result<String, String>)> = Vec::new();
    for (dtype, layout) in
        [(Dtype::F32, Layout::HalfSplit), (Dtype::F32, Layout::Interleaved), (Dtype::Bf16, Layout::HalfSplit)]
    {
        let rope = Rope::new(RopeConfig { dtype, layout, ..RopeConfig::new(128) }).expect("valid");
        for in_place in [false, true] {
            let kernel = rope.kernel(Direction::Forward, in_place);
            let label =
                format!("{} {layout:?}{}", kernel.name(), if in_place { "" } else { " (out of place)" });
            rows.push((label, Ok(kernel.ptx_for(Target::SM_90))));
        }
    }
    rows.push((
        "seed port batched_rope".into(),
        Ok(BatchedRope::new(32, 128, 10_000.0).ptx_for(Target::SM_90)),
    ));
    rows.push(("CUDA C, accurate sincosf".into(), sass::nvrtc_ptx(&CUDA_C.replace("SINCOS", "sincosf"))));
    rows.push(("CUDA C, fast __sincosf".into(), sass::nvrtc_ptx(&CUDA_C.replace("SINCOS", "__sincosf"))));
    sass::print_table("kernel (sm_90, head_dim 128)", rows)
}
