extern "C" __global__ void matrix_add(const float* a, const float* b, float* c, int rows, int cols) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < cols && y < rows) c[y * cols + x] = a[y * cols + x] + b[y * cols + x];
}
