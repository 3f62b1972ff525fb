// Warp collectives beyond shuffles: __activemask inside a branch, __match_any_sync,
// __match_all_sync with its predicate, __reduce_add_sync / __reduce_max_sync.
extern "C" __global__ void warp_match(const unsigned* keys, unsigned* out) {
    unsigned lane = threadIdx.x & 31;
    unsigned key = keys[threadIdx.x];
    unsigned active = 0;
    if (key & 1) {
        active = __activemask();
    }
    int all_pred = 0;
    unsigned all = __match_all_sync(0xffffffffu, key >> 4, &all_pred);
    unsigned peers = __match_any_sync(0xffffffffu, key);
    unsigned sum = __reduce_add_sync(0xffffffffu, key);
    unsigned top = __reduce_max_sync(0xffffffffu, key);
    unsigned* o = out + 6 * threadIdx.x;
    o[0] = active;
    o[1] = all;
    o[2] = all_pred;
    o[3] = peers;
    o[4] = sum;
    o[5] = top + lane * 0;
}
