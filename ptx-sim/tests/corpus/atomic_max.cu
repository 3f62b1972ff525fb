extern "C" __global__ void atomic_max_float(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    int* addr = (int*)out;
    int old = *addr, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(addr, assumed, __float_as_int(v));
    } while (assumed != old);
}
