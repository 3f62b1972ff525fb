//! SASS statistics of the kernel library (`ptx_dsl::kernels`) beside the same algorithms
//! in CUDA C compiled by NVRTC: registers, stack frame, spills and SASS instructions
//! (static count, from `nvdisasm`) for sm_90, and the global loads and stores by width.
//!
//! ```text
//! pip install --target DIR nvidia-cuda-nvrtc nvidia-cuda-nvdisasm
//! LD_LIBRARY_PATH=DIR/nvidia/cu13/lib NVDISASM=DIR/nvidia/cu13/bin/nvdisasm \
//!     cargo run --release --example kernels_sass
//! ```
//!
//! The CUDA C kernels are written as a CUDA programmer would write these algorithms, with
//! the same reductions (`__shfl_xor_sync` trees, a 32-entry shared scratch array), the same
//! passes and CUDA's accurate `expf`/`sqrtf`; they do not check bounds, which ours do.

#[path = "sass/mod.rs"]
mod sass;

use ptx_dsl::core::{Kernel, Target};
use ptx_dsl::kernels;

/// The device functions the CUDA C kernels share.
const DEVICE_FNS: &str = r#"
#define FULL 0xffffffffu
#define NEG_INF (-__int_as_float(0x7f800000))
__device__ float warp_sum(float v) { for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o); return v; }
__device__ float warp_max(float v) { for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(FULL, v, o)); return v; }
__device__ float block_sum(float v) {
    __shared__ float scratch[32];
    unsigned t = threadIdx.x, lane = t & 31, warps = (blockDim.x + 31) >> 5;
    v = warp_sum(v);
    if (lane == 0) scratch[t >> 5] = v;
    __syncthreads();
    v = warp_sum(lane < warps ? scratch[lane] : 0.0f);
    __syncthreads();
    return v;
}
__device__ float block_max(float v) {
    __shared__ float scratch[32];
    unsigned t = threadIdx.x, lane = t & 31, warps = (blockDim.x + 31) >> 5;
    v = warp_max(v);
    if (lane == 0) scratch[t >> 5] = v;
    __syncthreads();
    v = warp_max(lane < warps ? scratch[lane] : NEG_INF);
    __syncthreads();
    return v;
}
"#;

/// Each CUDA C kernel, compiled on its own after [`DEVICE_FNS`].
const CUDA_KERNELS: [(&str, &str); 6] = [
    (
        "sum_f32",
        r#"
extern "C" __global__ void sum_f32(const float* x, size_t n, float* partials) {
    float acc = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        acc += x[i];
    float total = block_sum(acc);
    if (threadIdx.x == 0) partials[blockIdx.x] = total;
}
"#,
    ),
    (
        "softmax_rows",
        r#"
extern "C" __global__ void softmax_rows(const float* x, float* out, size_t cols) {
    size_t row = blockIdx.x * cols;
    float m = NEG_INF, s = 0.0f;
    for (size_t j = threadIdx.x; j < cols; j += blockDim.x) {
        float v = x[row + j];
        if (v > m) { s = s * expf(m - v) + 1.0f; m = v; } else { s += expf(v - m); }
    }
    float row_max = block_max(m);
    float total = block_sum(m == NEG_INF ? 0.0f : s * expf(m - row_max));
    for (size_t j = threadIdx.x; j < cols; j += blockDim.x) out[row + j] = expf(x[row + j] - row_max) / total;
}
"#,
    ),
    (
        "rms_norm",
        r#"
extern "C" __global__ void rms_norm(const float* x, const float* w, float* out, size_t cols, float eps) {
    size_t row = blockIdx.x * cols;
    float squares = 0.0f;
    for (size_t j = threadIdx.x; j < cols; j += blockDim.x) { float v = x[row + j]; squares = fmaf(v, v, squares); }
    float scale = 1.0f / sqrtf(block_sum(squares) / (float)cols + eps);
    for (size_t j = threadIdx.x; j < cols; j += blockDim.x) out[row + j] = x[row + j] * scale * w[j];
}
"#,
    ),
    (
        "layer_norm",
        r#"
extern "C" __global__ void layer_norm(const float* x, const float* w, const float* b, float* out, size_t cols, float eps) {
    size_t row = blockIdx.x * cols;
    float sum = 0.0f;
    for (size_t j = threadIdx.x; j < cols; j += blockDim.x) sum += x[row + j];
    float mean = block_sum(sum) / (float)cols;
    float squares = 0.0f;
    for (size_t j = threadIdx.x; j < cols; j += blockDim.x) { float d = x[row + j] - mean; squares = fmaf(d, d, squares); }
    float scale = 1.0f / sqrtf(block_sum(squares) / (float)cols + eps);
    for (size_t j = threadIdx.x; j < cols; j += blockDim.x) out[row + j] = fmaf((x[row + j] - mean) * scale, w[j], b[j]);
}
"#,
    ),
    (
        "transpose",
        r#"
extern "C" __global__ void transpose(const float* x, float* out, unsigned rows, unsigned cols) {
    __shared__ float tile[32][33];
    unsigned tx = threadIdx.x, ty = threadIdx.y, col0 = blockIdx.x * 32, row0 = blockIdx.y * 32;
    #pragma unroll
    for (unsigned k = 0; k < 32; k += 8) {
        unsigned r = row0 + ty + k, c = col0 + tx;
        if (r < rows && c < cols) tile[ty + k][tx] = x[(size_t)r * cols + c];
    }
    __syncthreads();
    #pragma unroll
    for (unsigned k = 0; k < 32; k += 8) {
        unsigned r = col0 + ty + k, c = row0 + tx;
        if (r < cols && c < rows) out[(size_t)r * rows + c] = tile[tx][ty + k];
    }
}
"#,
    ),
    (
        "scan_blocks",
        r#"
extern "C" __global__ void scan_blocks(const float* x, size_t n, float* out, float* totals) {
    __shared__ float warp_totals[8];
    unsigned t = threadIdx.x, lane = t & 31;
    size_t i = blockIdx.x * 256 + t;
    float v = i < n ? x[i] : 0.0f;
    #pragma unroll
    for (unsigned d = 1; d < 32; d <<= 1) { float up = __shfl_up_sync(FULL, v, d); if (lane >= d) v += up; }
    if (lane == 31) warp_totals[t / 32] = v;
    __syncthreads();
    float before = 0.0f;
    for (unsigned w = 0; w < t / 32; ++w) before += warp_totals[w];
    v += before;
    if (i < n) out[i] = v;
    if (t == 255) totals[blockIdx.x] = v;
}
"#,
    ),
];

fn main() -> std::process::ExitCode {
    let ours: [(&str, Box<dyn Kernel>); 6] = [
        ("sum_f32 (partials pass)", Box::new(kernels::SumF32::new())),
        ("softmax_rows_f32", Box::new(kernels::SoftmaxRowsF32::new())),
        ("rms_norm_f32", Box::new(kernels::RmsNormF32::new())),
        ("layer_norm_f32", Box::new(kernels::LayerNormF32::new())),
        ("transpose_f32", Box::new(kernels::TransposeF32::new())),
        ("scan_blocks_f32", Box::new(kernels::ScanBlocksF32::new())),
    ];
    let mut rows = Vec::new();
    for (label, kernel) in &ours {
        rows.push((format!("ptx-dsl {label}"), Ok(kernel.ptx_for(Target::SM_90))));
    }
    for (name, source) in CUDA_KERNELS {
        let start = std::time::Instant::now();
        let ptx = sass::nvrtc_ptx(&format!("{DEVICE_FNS}{source}"));
        if ptx.is_ok() {
            eprintln!("NVRTC compiled {name} in {:.1?} (one run, wall clock)", start.elapsed());
        }
        rows.push((format!("CUDA C {name}"), ptx));
    }
    sass::print_table("kernel (sm_90)", rows)
}
