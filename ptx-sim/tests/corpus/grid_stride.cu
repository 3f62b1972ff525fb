extern "C" __global__ void grid_stride_scale(float* x, float s, unsigned n) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) x[i] *= s;
}
