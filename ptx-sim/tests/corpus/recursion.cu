// Recursive device functions, as tree and divide-and-conquer code writes them: linear
// recursion (a digit sum, depth = the number's digits), binary recursion (Fibonacci), and
// __trap() for a value the kernel refuses.
__device__ __noinline__ unsigned digit_sum(unsigned n) {
    return n < 10 ? n : n % 10 + digit_sum(n / 10);
}

__device__ __noinline__ unsigned fib(unsigned n) {
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

// Depth = n: deep enough to pass the simulator's recursion limit for large n (the mix of
// `*` and `^` keeps the compiler from turning it into a loop).
__device__ __noinline__ unsigned chain(unsigned n) {
    return n == 0 ? 1 : (chain(n - 1) * 31) ^ n;
}

extern "C" __global__ void recursion(const unsigned* x, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = x[i];
    if (v == 0xdeadu) __trap();
    out[3 * i + 0] = digit_sum(v);
    out[3 * i + 1] = fib(v % 12);
    out[3 * i + 2] = chain(v % 40);
}

extern "C" __global__ void deep(unsigned depth, unsigned* out) {
    out[threadIdx.x] = chain(depth);
}
