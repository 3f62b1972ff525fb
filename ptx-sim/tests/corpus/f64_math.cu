// Double-precision math as CUDA's library computes it: sin and cos (a device function
// returning a 16-byte structure through `.param .align 8 .b8 retval[16]`, defined after the
// kernel), exp, log, pow (rcp.approx.ftz.f64 seeds), sqrt, fma; and float intrinsics with
// explicit rounding.
extern "C" __global__ void f64_math(const double* x, double* y, const float* f, float* g, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double a = x[i];
    y[5 * i + 0] = sin(a);
    y[5 * i + 1] = cos(a * 1000.0);
    y[5 * i + 2] = exp(a) + log(fabs(a) + 1.0);
    y[5 * i + 3] = pow(fabs(a) + 0.5, 1.7);
    y[5 * i + 4] = sqrt(fabs(a)) + fma(a, 2.0, 1.0);
    float b = f[i];
    g[4 * i + 0] = __saturatef(b);
    g[4 * i + 1] = __fadd_rz(b, 1.0f);
    g[4 * i + 2] = __fmaf_ru(b, b, 1.0f);
    g[4 * i + 3] = __fsqrt_rd(fabsf(b));
}
