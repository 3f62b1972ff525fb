// A structure passed by value to a function that is not inlined, indexed by a variable:
// LLVM's NVPTX backend takes the parameter's address (`mov.b64 %rd1, pick_param_0`) and
// loads through it (`ld.param.u32 %r, [%rd4]`).
// clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -O2 -S -o byval_index.ptx byval_index.cu
struct Big { unsigned w[9]; };
extern "C" __attribute__((device, noinline)) unsigned pick(Big b, unsigned k) { return b.w[k % 9]; }
extern "C" __attribute__((global)) void k(const unsigned *in, unsigned *out) {
  unsigned i = __nvvm_read_ptx_sreg_tid_x();
  Big b;
  for (int q = 0; q < 9; q++) b.w[q] = in[q] * (i + 1);
  out[i] = pick(b, i);
}
