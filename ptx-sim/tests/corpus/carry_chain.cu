// Multiword arithmetic through the carry flag, as bignum and hashing code writes it:
// 128-bit sums and differences, and the full 64x64 -> 128-bit product from 32-bit pieces.
struct u128 { unsigned long long lo, hi; };

__device__ u128 add128(u128 a, u128 b) {
    u128 r;
    asm("add.cc.u64 %0, %2, %4;\n\taddc.u64 %1, %3, %5;"
        : "=l"(r.lo), "=l"(r.hi) : "l"(a.lo), "l"(a.hi), "l"(b.lo), "l"(b.hi));
    return r;
}

__device__ u128 sub128(u128 a, u128 b) {
    u128 r;
    asm("sub.cc.u64 %0, %2, %4;\n\tsubc.u64 %1, %3, %5;"
        : "=l"(r.lo), "=l"(r.hi) : "l"(a.lo), "l"(a.hi), "l"(b.lo), "l"(b.hi));
    return r;
}

// (a1:a0) * (b1:b0) in 32-bit words with mad.lo.cc / madc.hi.cc / addc.
__device__ void mul64x64(unsigned long long a, unsigned long long b, unsigned w[4]) {
    unsigned a0 = (unsigned)a, a1 = (unsigned)(a >> 32), b0 = (unsigned)b, b1 = (unsigned)(b >> 32);
    unsigned r0, r1, r2, r3;
    asm("{\n\t"
        ".reg .u32 t1, t2;\n\t"
        "mul.lo.u32 %0, %4, %6;\n\t"
        "mul.hi.u32 %1, %4, %6;\n\t"
        "mad.lo.cc.u32 %1, %5, %6, %1;\n\t"
        "madc.hi.u32 %2, %5, %6, 0;\n\t"
        "mad.lo.cc.u32 %1, %4, %7, %1;\n\t"
        "madc.hi.cc.u32 %2, %4, %7, %2;\n\t"
        "addc.u32 %3, 0, 0;\n\t"
        "mad.lo.cc.u32 %2, %5, %7, %2;\n\t"
        "madc.hi.u32 %3, %5, %7, %3;\n\t"
        "}"
        : "=&r"(r0), "=&r"(r1), "=&r"(r2), "=&r"(r3) : "r"(a0), "r"(a1), "r"(b0), "r"(b1));
    w[0] = r0; w[1] = r1; w[2] = r2; w[3] = r3;
}

extern "C" __global__ void carry_chain(const unsigned long long* a, const unsigned long long* b,
                                       unsigned long long* sums, unsigned* products, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    u128 x = {a[2 * i], a[2 * i + 1]}, y = {b[2 * i], b[2 * i + 1]};
    u128 s = add128(x, y), d = sub128(x, y);
    sums[4 * i + 0] = s.lo;
    sums[4 * i + 1] = s.hi;
    sums[4 * i + 2] = d.lo;
    sums[4 * i + 3] = d.hi;
    mul64x64(x.lo, y.lo, products + 4 * i);
}
