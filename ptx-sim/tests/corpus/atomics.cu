extern "C" __global__ void atomics(const int* x, int n, int* mins, unsigned* bits, unsigned* counters, unsigned long long* total) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = x[i];
    atomicMin(&mins[0], v);
    atomicMax(&mins[1], v);
    atomicMin((unsigned*)&mins[2], (unsigned)v);
    atomicMax((unsigned*)&mins[3], (unsigned)v);
    atomicAnd(&bits[0], (unsigned)v | 0x80000000u);
    atomicOr(&bits[1], (unsigned)v & 0xff);
    atomicXor(&bits[2], (unsigned)v);
    atomicInc(&counters[0], 9u);
    atomicDec(&counters[1], 1000u);
    atomicAdd(total, (unsigned long long)(v & 0xffff));
}
