#include <cuda_fp16.h>
// __half intrinsics beyond conversions: scalar arithmetic, the fast exponential (inline
// assembly with `.reg.b32` declarations and `set.eq.f16x2`), square root and reciprocal,
// the NaN-propagating max, fma with relu on pairs, and round-toward-zero conversion.
extern "C" __global__ void half_math(const __half* x, const __half2* p, __half* y, __half2* q, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half a = x[i];
    y[5 * i + 0] = __hadd(__hmul(a, a), a);
    y[5 * i + 1] = hexp2(a);
    y[5 * i + 2] = __hmax_nan(a, __habs(a));
    y[5 * i + 3] = hsqrt(__habs(a));
    y[5 * i + 4] = __float2half_rz(__half2float(a) * 3.0f);
    q[2 * i + 0] = __hfma2_relu(p[i], p[i], p[i]);
    q[2 * i + 1] = h2exp(p[i]);
}
