extern "C" __global__ void bit_ops(const unsigned* x, unsigned* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { unsigned v = x[i]; y[i] = __popc(v) + __clz(v) * 33u + (__brev(v) ^ (v >> 3)) + __ffs(v); }
}
