// A `__shared__` array at file scope: LLVM declares it `.visible .shared .align 4 .b8
// tile[128];` (NVRTC writes no `.visible` there).
// clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -O2 -S -o shared_reverse.ptx shared_reverse.cu
__attribute__((shared)) unsigned tile[32];
extern "C" __attribute__((global)) void k(const unsigned *in, unsigned *out) {
  unsigned t = __nvvm_read_ptx_sreg_tid_x();
  tile[t] = in[t];
  __syncthreads();
  out[t] = tile[31 - t];
}
