// TensorFloat-32 rounding (cvt.rna.tf32.f32), packing float pairs into half2/bfloat162,
// __nanosleep, and atomics with block and system scope.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void conversions(const float* x, unsigned* o, __half2* h, __nv_bfloat162* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    unsigned t;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(v));
    o[i] = t;
    h[i] = __floats2half2_rn(v, -v);
    b[i] = __floats2bfloat162_rn(v, v * 2.0f);
    __nanosleep(10);
    atomicAdd_block((unsigned*)o + n, 1u);
    atomicAdd_system((unsigned*)o + n, 1u);
}
