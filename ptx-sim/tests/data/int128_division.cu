// nvrtc-options: -w --device-int128
// NVRTC 13.5 (sm_80) expands the division inline, mixing `sub.cc`/`subc` with `addc`:
// the carry flag after a subtraction must be the adder's (1 when it did not borrow).

extern "C" __global__ void udiv(const unsigned long long* a, unsigned long long* o) {
  unsigned __int128 x = ((unsigned __int128)a[1] << 64) | a[0], y = ((unsigned __int128)a[3] << 64) | a[2];
  unsigned __int128 q = x / y; o[0] = (unsigned long long)q; o[1] = (unsigned long long)(q >> 64);
}
