extern "C" __global__ void trig_fast(const float* x, float* s, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) __sincosf(x[i], &s[i], &c[i]);
}
