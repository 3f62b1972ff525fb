extern "C" __global__ void reverse_block(const int* x, int* y) {
    extern __shared__ int tile[];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    tile[t] = x[base + t];
    __syncthreads();
    y[base + t] = tile[blockDim.x - 1 - t];
}
