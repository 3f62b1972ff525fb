extern "C" __global__ void relu_clamp(float* x, float hi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = fminf(fmaxf(x[i], 0.0f), hi);
}
