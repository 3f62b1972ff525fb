// A `__constant__` table read at -O0: LLVM takes its generic address (`mov.u64 %rd1, tbl;
// cvta.const.u64 %rd2, %rd1;`) and loads through that with `ld.u32`.
// clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -O0 -S -o const_table_o0.ptx const_table_o0.cu
__attribute__((constant)) unsigned tbl[8] = {3, 1, 4, 1, 5, 9, 2, 6};
extern "C" __attribute__((global)) void k(const unsigned *in, unsigned *out) {
  unsigned i = __nvvm_read_ptx_sreg_tid_x();
  out[i] = tbl[in[i] % 8];
}
