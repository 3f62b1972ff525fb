// Integer and rounding intrinsics: __fns, __dp4a/__dp2a_lo, __umul24, halving adds, 64-bit
// bit counts, __vimax3, __umul64hi, double bit views, directed-rounding division, square
// root, reciprocal and conversions, the cache-operator loads, shuffles of float and double.
#include <cuda_fp16.h>
extern "C" __global__ void intrinsics2(const unsigned* x, const unsigned long long* w, const double* d, const float* f,
                                       unsigned* o, unsigned long long* ow, double* od, float* of, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned a = x[i], b = x[(i + 1) % n];
    unsigned long long u = w[i];
    o[8 * i + 0] = __fns(a, 0, 2);
    o[8 * i + 1] = (unsigned)__dp4a((int)a, (int)b, 5);
    o[8 * i + 2] = (unsigned)__dp2a_lo((int)a, (int)b, 7);
    o[8 * i + 3] = __umul24(a, b);
    o[8 * i + 4] = __uhadd(a, b) + __urhadd(a, b);
    o[8 * i + 5] = __brevll(u) >> 40;
    o[8 * i + 6] = __clzll(u) + __ffsll((long long)u) + __popcll(u);
    o[8 * i + 7] = __vimax3_s32((int)a, (int)b, 7);
    ow[2 * i + 0] = __umul64hi(u, w[(i + 1) % n]);
    ow[2 * i + 1] = (unsigned long long)__double_as_longlong(d[i]) ^ (unsigned long long)__double2hiint(d[i]);
    od[2 * i + 0] = __hiloint2double(__double2hiint(d[i]), __double2loint(d[i]));
    od[2 * i + 1] = __ddiv_ru(d[i], 3.0) + __dsqrt_rn(fabs(d[i])) + __drcp_rz(d[i] + 10.0);
    float v = f[i];
    of[4 * i + 0] = __fdiv_rn(v, 3.0f) + __frcp_rz(v + 5.0f);
    of[4 * i + 1] = __int2float_rd((int)a) + __uint2float_ru(b);
    of[4 * i + 2] = __ldcs(&f[i]) + __ldlu(&f[i]) + __ldcv(&f[i]) + __ldca(&f[i]);
    of[4 * i + 3] = __shfl_xor_sync(0xffffffffu, v, 1) + (float)__shfl_down_sync(0xffffffffu, d[i], 2);
}
