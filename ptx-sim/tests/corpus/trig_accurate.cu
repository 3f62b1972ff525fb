extern "C" __global__ void trig_accurate(const float* x, float* s, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { s[i] = sinf(x[i]); c[i] = cosf(x[i]); }
}
