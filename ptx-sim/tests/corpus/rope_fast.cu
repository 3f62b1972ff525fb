extern "C" __global__ void rope_fast(const float* x, float* out, const unsigned* pos, int heads, int head_dim, float theta) {
    int pair = threadIdx.x, head = blockIdx.x, tok = blockIdx.y;
    if (pair >= head_dim / 2) return;
    float freq = powf(theta, -2.0f * pair / head_dim);
    float s, c;
    __sincosf(pos[tok] * freq, &s, &c);
    size_t b = ((size_t)tok * heads + head) * head_dim + 2 * pair;
    float x0 = x[b], x1 = x[b + 1];
    out[b] = x0 * c - x1 * s;
    out[b + 1] = x0 * s + x1 * c;
}
