extern "C" __global__ void rotate_permute(const unsigned* x, const unsigned* s, unsigned* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned v = x[i], k = s[i];
        y[3 * i] = __funnelshift_l(v, v * 7u, k);
        y[3 * i + 1] = __funnelshift_rc(v, ~v, k);
        y[3 * i + 2] = __byte_perm(v, v ^ k, k);
    }
}
