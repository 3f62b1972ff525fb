// CUDA's vector types: float4 and double2 (16-byte accesses), short4 and char4 (8 and 4
// bytes), uchar2 stores, __ldg (ld.global.nc.v4) and __stcs (st.global.cs).
extern "C" __global__ void vector_types(const float4* x, float4* y, const double2* a, double2* b,
                                        const short4* s, int4* t, const char4* c, uchar2* u, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = __ldg(&x[i]);
    __stcs(&y[i], make_float4(v.w, v.z * 2.0f, v.y, v.x - 1.0f));
    double2 d = a[i];
    b[i] = make_double2(d.y, d.x + 0.5);
    short4 q = s[i];
    t[i] = make_int4(q.x, q.y * 2, q.z, q.w - 1);
    char4 ch = c[i];
    u[i] = make_uchar2((unsigned char)ch.x, (unsigned char)(ch.w + 1));
}
