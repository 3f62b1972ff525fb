extern "C" __global__ void exp_log(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = logf(1.0f + expf(x[i])) + sqrtf(fabsf(x[i])) + powf(fabsf(x[i]), 1.5f);
}
