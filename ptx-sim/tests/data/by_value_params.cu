// Kernels taking small scalars and values passed by value, as ordinary CUDA writes them:
// `bool`, `int8_t`, `uint8_t` become `.u8` parameters (read by `ld.param.u8`/`.s8`),
// `int16_t`, `uint16_t` `.u16`; a `__half`, a struct and an `int4` by value become byte
// arrays `.param .align A .b8 name[N]` read at their fields' offsets. Compiled by NVRTC 13.5
// for sm_80 (`scripts/nvrtc_corpus.py`, with cuda_fp16.h from nvidia-cuda-runtime) into
// by_value_params.ptx.
#include <cuda_fp16.h>
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;

extern "C" __global__ void small_scalars(long long* out, bool neg, int8_t a, uint8_t b, int16_t c,
                                         uint16_t d, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    long long v = (long long)a * (i + 1) + b;
    out[5 * i + 0] = neg ? -v : v;
    out[5 * i + 1] = a;
    out[5 * i + 2] = b;
    out[5 * i + 3] = c;
    out[5 * i + 4] = d + c * i;
}

template <typename T>
__global__ void axpb(const T* x, T* y, T a, T b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b;
}
template __global__ void axpb<int8_t>(const int8_t*, int8_t*, int8_t, int8_t, int);
template __global__ void axpb<uint16_t>(const uint16_t*, uint16_t*, uint16_t, uint16_t, int);

extern "C" __global__ void half_scale(__half* x, __half a, int n) {
    int i = threadIdx.x;
    if (i < n) x[i] = __hmul(x[i], a);
}

// a at 0, b at 8, c at 16, 24 bytes with the padding.
struct Mixed { int a; double b; short c; };
extern "C" __global__ void by_struct(double* out, Mixed m) {
    int i = threadIdx.x;
    out[i] = m.a * i + m.b + m.c;
}

extern "C" __global__ void by_int4(int4* out, int4 v) { out[threadIdx.x] = v; }
