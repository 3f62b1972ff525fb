// A union passed by value: the caller stores it as one 64-bit word (`st.param.b64
// [param0+0]`), the callee reads that word and its byte 3 (`ld.param.u8 [..+3]`).
// clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -O1 -S -o byval_widths.ptx byval_widths.cu
union U { unsigned long long d; unsigned w[2]; unsigned char b[8]; };
extern "C" __attribute__((device, noinline)) unsigned long long sum(U u) { return u.d + u.b[3]; }
extern "C" __attribute__((global)) void k(const unsigned *in, unsigned long long *out) {
  unsigned i = __nvvm_read_ptx_sreg_tid_x();
  U u;
  u.w[0] = in[2 * i];
  u.w[1] = in[2 * i + 1];
  out[i] = sum(u);
}
