// nvrtc-options: -G
// Device debug information (-G): `.file`/`.loc` with inlining info, `.section .debug_*`
// blocks, unoptimised code with a local stack.
extern "C" __global__ void debug_info(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v * v + 1.0f;
    }
}
