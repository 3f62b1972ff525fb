// Tree recursion at -O0: every call keeps its argument, result and a small array in its
// stack frame (`__local_depot0[20]`, reached through `%SP`) and passes them in `.param`s.
// clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -O0 -S -o fib_o0.ptx fib_o0.cu
extern "C" __attribute__((device, noinline)) unsigned fib(unsigned n) {
  unsigned t[4] = {n, n - 1, n - 2, n + 1};
  return n < 2 ? t[0] : fib(t[1]) + fib(t[2]);
}
extern "C" __attribute__((global)) void k(const unsigned *in, unsigned *out) {
  unsigned i = __nvvm_read_ptx_sreg_tid_x();
  out[i] = fib(in[i]);
}
