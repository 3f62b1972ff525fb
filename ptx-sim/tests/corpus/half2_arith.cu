#include <cuda_fp16.h>
#include <cuda_bf16.h>
// Packed 16-bit arithmetic: y = a*b + c, a + b, a - b, min/max, as half2 and bfloat162.
extern "C" __global__ void half2_arith(const __half2* a, const __half2* b, const __half2* c,
                                       __half2* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half2 x = a[i], y = b[i], z = c[i];
        out[4 * i + 0] = __hfma2(x, y, z);
        out[4 * i + 1] = __hadd2(x, y);
        out[4 * i + 2] = __hsub2(__hmul2(x, y), z);
        out[4 * i + 3] = __hmax2(__hmin2(x, y), __hneg2(z));
    }
}

extern "C" __global__ void bf162_arith(const __nv_bfloat162* a, const __nv_bfloat162* b,
                                       const __nv_bfloat162* c, __nv_bfloat162* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_bfloat162 x = a[i], y = b[i], z = c[i];
        out[2 * i + 0] = __hfma2(x, y, z);
        out[2 * i + 1] = __hmax2(x, __habs2(z));
    }
}
