#include <cuda_fp16.h>
#include <cuda_bf16.h>
// Atomics on 16-bit floats (`atom.add.noftz`, generic addresses from cuda_fp16.h's inline
// assembly) and on doubles, and a `cvt.rn.f16x2.f32` pack.
extern "C" __global__ void atomics16(__half* h, __half2* h2, __nv_bfloat16* b, double* d, unsigned long long* u) {
    atomicAdd(h, __float2half(1.0f));
    atomicAdd(h2, __floats2half2_rn(1.0f, 2.0f));
    atomicAdd(b, __float2bfloat16(0.5f));
    atomicAdd(d, 0.25);
    atomicMin(u, 1000ull + threadIdx.x);
}
