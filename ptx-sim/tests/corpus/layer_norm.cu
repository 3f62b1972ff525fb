extern "C" __global__ void rms_norm(const float* x, const float* w, float* y, int cols, float eps) {
    __shared__ float red[32];
    const float* row = x + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) s += row[j] * row[j];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffff, s, off);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) { float t = 0; for (int k = 0; k < (blockDim.x + 31) / 32; ++k) t += red[k]; red[0] = rsqrtf(t / cols + eps); }
    __syncthreads();
    for (int j = threadIdx.x; j < cols; j += blockDim.x) y[(size_t)blockIdx.x * cols + j] = row[j] * red[0] * w[j];
}
