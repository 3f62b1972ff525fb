// C++ as CUDA code uses it: a templated block reduction of doubles (shared scratch, warp
// shuffles), a __noinline__ function returning a struct by value (a byte-array `.param`
// result read field by field), and a per-thread lookup array in local memory.
#include <cuda_fp16.h>
template <typename T, int BLOCK>
__device__ T block_reduce(T v) {
    __shared__ T scratch[BLOCK / 32];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < BLOCK / 32 ? scratch[threadIdx.x] : T(0);
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    }
    return v;
}
struct Pair { float a; int b; };
__device__ __noinline__ Pair make_pair(float a, int b) { Pair p; p.a = a * 2.0f; p.b = b + 1; return p; }
extern "C" __global__ void templates(const double* x, double* out, const float* f, float* g, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double v = i < n ? x[i] : 0.0;
    double s = block_reduce<double, 128>(v);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
    if (i < n) {
        Pair p = make_pair(f[i], i);
        g[i] = p.a + (float)p.b;
        float lut[8];
        for (int k = 0; k < 8; ++k) lut[k] = f[(i + k) % n] * k;
        g[i] += lut[i % 8];
    }
}
