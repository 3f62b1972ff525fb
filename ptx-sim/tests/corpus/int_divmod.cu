extern "C" __global__ void div_mod(const int* a, const int* b, int* q, int* r, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && b[i] != 0) { q[i] = a[i] / b[i]; r[i] = a[i] % b[i]; }
}
