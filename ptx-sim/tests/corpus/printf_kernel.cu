extern "C" __global__ void hello(int v) {
    printf("thread %d of block %d: v = %d\n", threadIdx.x, blockIdx.x, v);
}
