// nvrtc-options: --use_fast_math
// What --use_fast_math makes of ordinary float code: .ftz arithmetic, div.approx.ftz,
// ex2/lg2/sin/cos.approx.ftz, rsqrt, comparisons with .ftz.
extern "C" __global__ void fast_math(const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];
    out[6 * i + 0] = a * b + 1.0f;
    out[6 * i + 1] = a / b;
    out[6 * i + 2] = expf(a) + logf(fabsf(b) + 1.0f);
    out[6 * i + 3] = sinf(a) * cosf(b);
    out[6 * i + 4] = a > b ? sqrtf(fabsf(a)) : 1.0f / sqrtf(fabsf(b) + 1.0f);
    out[6 * i + 5] = fminf(a, b) - fmaxf(a, b);
}
