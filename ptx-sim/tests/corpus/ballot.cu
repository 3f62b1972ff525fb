extern "C" __global__ void count_positive(const float* x, unsigned* count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned m = __ballot_sync(0xffffffff, i < n && x[i] > 0.0f);
    if ((threadIdx.x & 31) == 0) atomicAdd(count, __popc(m));
}
