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
//! the angle `pos · inv_freq` in f32 and CUDA's accurate `sincosf` or fast `__sincosf`; the
//! `float4` versions do what the vectorised kernel `rope_f32_v4` does (four pairs per
//! thread, 16-byte loads and stores, views with an offset and a row stride, the `scale`
//! factor); they take the sine and cosine of an f32 angle, or compute them as
//! `rope_f32_v4` does (the same arithmetic in CUDA C: "ours in turns").

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

/// The CUDA C version of the vectorised kernel (`rope_f32_v4`, half-split, out of place);
/// `ANGLES` is [`F32_ANGLES`] or [`TURN_ANGLES`], `UNROLL` empty (NVRTC's choice: it unrolls
/// the head loop) or a pragma keeping the head loop rolled, as ours is.
const CUDA_C_V4: &str = r#"
#define HEAD_DIM 128u
#define ROTARY_DIM 128u
#define HALF (ROTARY_DIM / 2)

__device__ __forceinline__ void rotate_heads(const float* x, size_t offset, size_t stride, unsigned heads,
                                             float* y, size_t y_offset, size_t y_stride, unsigned token,
                                             unsigned ia, const float* s, const float* c) {
    UNROLL for (unsigned h = 0; h < heads; ++h) {
        size_t src = offset + token * stride + (size_t)h * HEAD_DIM;
        size_t dst = y_offset + token * y_stride + (size_t)h * HEAD_DIM;
        float4 a = *(const float4*)(x + src + ia), b = *(const float4*)(x + src + ia + HALF);
        *(float4*)(y + dst + ia) = make_float4(a.x * c[0] - b.x * s[0], a.y * c[1] - b.y * s[1],
                                               a.z * c[2] - b.z * s[2], a.w * c[3] - b.w * s[3]);
        *(float4*)(y + dst + ia + HALF) = make_float4(a.x * s[0] + b.x * c[0], a.y * s[1] + b.y * c[1],
                                                      a.z * s[2] + b.z * c[2], a.w * s[3] + b.w * c[3]);
        if (ROTARY_DIM < HEAD_DIM)
            for (unsigned d = ROTARY_DIM + ia; d < HEAD_DIM; d += HALF)
                *(float4*)(y + dst + d) = *(const float4*)(x + src + d);
    }
}

extern "C" __global__ void rope_cuda_v4(const float* q, size_t q_offset, size_t q_stride, unsigned q_heads,
                                        const float* k, size_t k_offset, size_t k_stride, unsigned k_heads,
                                        float* q_out, size_t q_out_offset, size_t q_out_stride,
                                        float* k_out, size_t k_out_offset, size_t k_out_stride,
                                        const unsigned* positions, const float* inv_freq, unsigned tokens,
                                        float scale) {
    unsigned chunk = threadIdx.x, token = blockIdx.x * blockDim.y + threadIdx.y;
    if (token >= tokens || chunk >= HALF / 4) return;
    float s[4], c[4];
    ANGLES
    rotate_heads(q, q_offset, q_stride, q_heads, q_out, q_out_offset, q_out_stride, token, chunk * 4, s, c);
    rotate_heads(k, k_offset, k_stride, k_heads, k_out, k_out_offset, k_out_stride, token, chunk * 4, s, c);
}
"#;

/// The four pairs' sine and cosine from an f32 angle `pos · inv_freq`; `SINCOS` as in
/// [`CUDA_C`].
const F32_ANGLES: &str = r#"
    float p = (float)positions[token];
    for (int j = 0; j < 4; ++j) {
        SINCOS(p * inv_freq[chunk * 4 + j], &s[j], &c[j]);
        s[j] *= scale;
        c[j] *= scale;
    }
"#;

/// The four pairs' sine and cosine as `rope_f32_v4` computes them (`src/rope/kernels.rs`):
/// `inv_freq` is the turn table (`hi, lo` per pair, read 16 bytes at a time), the whole
/// turns dropped inside one `fma`, quarter turns split off, polynomials in what is left.
const TURN_ANGLES: &str = r#"
    unsigned pos = positions[token];
    float p = (float)pos, p_rem = (float)((long long)pos - (long long)p);
    float4 t01 = *(const float4*)(inv_freq + chunk * 8), t23 = *(const float4*)(inv_freq + chunk * 8 + 4);
    float hi[4] = {t01.x, t01.z, t23.x, t23.z}, lo[4] = {t01.y, t01.w, t23.y, t23.w};
    for (int j = 0; j < 4; ++j) {
        float whole = rintf(p * hi[j]);
        float turn = fmaf(p, hi[j], -whole) + fmaf(p_rem, hi[j], p * lo[j]);
        float quarters = rintf(4.0f * turn);
        float r = fmaf(quarters, -0.25f, turn), z = r * r;
        float sn = r * fmaf(z, fmaf(z, fmaf(z, -75.24007f, 81.58813f), -41.34163f), 6.283185f);
        float cs = fmaf(z, fmaf(z, fmaf(z, fmaf(z, 59.245964f, -85.44374f), 64.93932f), -19.739208f), 1.0f);
        int quarter = (int)quarters;
        float a = (quarter & 1) ? cs : sn, b = (quarter & 1) ? sn : cs;
        s[j] = a * ((quarter & 2) ? -scale : scale);
        c[j] = b * (((quarter + 1) & 2) ? -scale : scale);
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
    for (unroll, note) in [("", ""), ("_Pragma(\"unroll 1\")", ", rolled")] {
        for (sincos, which) in [("sincosf", "accurate sincosf"), ("__sincosf", "fast __sincosf")] {
            let source =
                CUDA_C_V4.replace("ANGLES", F32_ANGLES).replace("SINCOS", sincos).replace("UNROLL", unroll);
            rows.push((format!("CUDA C float4{note}, {which}"), sass::nvrtc_ptx(&source)));
        }
        let source = CUDA_C_V4.replace("ANGLES", TURN_ANGLES).replace("UNROLL", unroll);
        rows.push((format!("CUDA C float4{note}, ours in turns"), sass::nvrtc_ptx(&source)));
    }
    sass::print_table("kernel (sm_90, head_dim 128)", rows)
}
