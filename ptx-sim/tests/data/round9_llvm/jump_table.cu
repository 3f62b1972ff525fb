// jump_table.ptx is written by hand in the form newer LLVM NVPTX backends (17 and later)
// give a dense `switch`: a `.branchtargets` list and `brx.idx` (clang 14 writes a tree of
// branches). `pick` is what this `switch` compiles to, called twice; the kernel adds a
// guarded `brx.idx.uni` of its own. Checked with `ptxas -arch=sm_80`.
extern "C" __attribute__((device, noinline)) unsigned pick(unsigned x) {
  switch (x) { case 0: return 10; case 1: return 20; case 2: return 30; default: return 99; }
}
extern "C" __attribute__((global)) void k(const unsigned *in, unsigned *out) {
  unsigned t = __nvvm_read_ptx_sreg_tid_x();
  unsigned r = pick(t >> 2) * 1000 + pick(t & 3);
  if (t < 4 && (t & 1) == 0) r += 5;
  out[t] = r;
}
