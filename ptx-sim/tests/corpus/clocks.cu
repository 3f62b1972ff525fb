// Timing and placement registers: clock(), clock64(), %globaltimer, %warpid, %smid,
// %lanemask_lt, and __byte_perm's relatives through prmt's modes.
extern "C" __global__ void clocks(unsigned long long* t, unsigned* ids) {
    unsigned long long c0 = clock64();
    unsigned c32 = clock();
    unsigned long long g0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    float spin = 1.0f;
    for (int k = 0; k < 100; ++k) spin = spin * 1.0001f + 0.5f;
    unsigned long long c1 = clock64();
    unsigned long long g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    unsigned warp, sm, nsm, lt, f4e, ecl;
    asm("mov.u32 %0, %%warpid;" : "=r"(warp));
    asm("mov.u32 %0, %%smid;" : "=r"(sm));
    asm("mov.u32 %0, %%nsmid;" : "=r"(nsm));
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(f4e) : "r"(0x03020100u), "r"(0x07060504u), "r"(threadIdx.x));
    asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(ecl) : "r"(0x03020100u), "r"(0x07060504u), "r"(threadIdx.x));
    unsigned tid = threadIdx.x;
    t[3 * tid + 0] = c1 - c0;
    t[3 * tid + 1] = g1 - g0;
    t[3 * tid + 2] = (unsigned long long)(c32 != 0) + (spin > 0.0f ? 0 : 1);
    ids[6 * tid + 0] = warp;
    ids[6 * tid + 1] = sm < nsm;
    ids[6 * tid + 2] = nsm;
    ids[6 * tid + 3] = lt;
    ids[6 * tid + 4] = f4e;
    ids[6 * tid + 5] = ecl;
}
