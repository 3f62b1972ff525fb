// A `__noinline__` function taking a `float2` and a structure and returning a `float4`:
// NVRTC passes them with vector `st.param`/`ld.param`. Compiled by NVRTC 13 for sm_80
// (`scripts/nvrtc_corpus.py`) into vector_params.ptx.
struct S { int a; float b; double c; };
__device__ __noinline__ float4 f(float2 v, S s, int n) {
    return make_float4(v.x + s.a, v.y * s.b, (float)s.c, (float)n);
}
extern "C" __global__ void k(float *o, const float *in) {
    int t = threadIdx.x; S s; s.a = t; s.b = in[t]; s.c = 2.5 * t;
    float4 r = f(make_float2(in[t], in[t+1]), s, t * 3);
    o[4*t] = r.x; o[4*t+1] = r.y; o[4*t+2] = r.z; o[4*t+3] = r.w;
}
