// Block-wide votes through the barrier (`bar.red.popc/and/or`: __syncthreads_count/and/or,
// in inline-assembly scopes with their own `%p1`), shuffles within 16-lane segments, and a
// ballot over the active mask.
extern "C" __global__ void block_votes(const int* x, int* out) {
    int t = threadIdx.x;
    int v = x[t];
    int count = __syncthreads_count(v > 10);
    int all = __syncthreads_and(v >= 0);
    int any = __syncthreads_or(v == 5);
    int first = __shfl_sync(0xffffffff, v, 0, 16);
    unsigned odd = __ballot_sync(__activemask(), v & 1);
    int* o = out + 5 * t;
    o[0] = count;
    o[1] = all;
    o[2] = any;
    o[3] = first;
    o[4] = (int)odd;
}
