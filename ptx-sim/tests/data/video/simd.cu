// The CUDA C SIMD intrinsics (CUDA math API, "SIMD Intrinsics"), one kernel each:
// k___vabsdiffu4(a, b, d) stores d[i] = __vabsdiffu4(a[i], b[i]) for thread i.
// NVRTC (CUDA 13, the nvidia-cuda-nvrtc wheel) compiles it for tests/video_simd.rs:
//   nvrtcCompileProgram(prog, 1, {"--gpu-architecture=compute_80"}) -> simd_sm80.ptx
//   nvrtcCompileProgram(prog, 1, {"--gpu-architecture=compute_90"}) -> simd_sm90.ptx
// (each then assembled by `ptxas -arch=sm_80` / `-arch=sm_90`). NVRTC writes `vabsdiff4`
// for __vabsdiffu4, __vabsdiffs4 (after flipping the sign bits) and __vsadu4 (`.add`),
// `vabsdiff2.add` for __vsadu2, and plain integer code for all the others.
#define F(name) extern "C" __global__ void k_##name(const unsigned *a, const unsigned *b, unsigned *d) { unsigned i = threadIdx.x; d[i] = name(a[i], b[i]); }
F(__vabsdiffu4) F(__vabsdiffs4) F(__vsadu4) F(__vabsdiffu2) F(__vabsdiffs2) F(__vsadu2)
F(__vadd4) F(__vadd2) F(__vaddss4) F(__vaddus4) F(__vaddss2) F(__vaddus2)
F(__vsub4) F(__vsub2) F(__vsubss4) F(__vsubus4) F(__vsubss2) F(__vsubus2)
F(__vavgu4) F(__vavgs4) F(__vavgu2) F(__vavgs2) F(__vhaddu4) F(__vhaddu2)
F(__vminu4) F(__vmins4) F(__vmaxu4) F(__vmaxs4) F(__vminu2) F(__vmins2) F(__vmaxu2) F(__vmaxs2)
F(__vseteq4) F(__vsetne4) F(__vsetltu4) F(__vsetles4) F(__vsetgtu4) F(__vsetges4)
F(__vseteq2) F(__vsetltu2) F(__vsetgts2)
F(__vcmpeq4) F(__vcmpgtu4) F(__vcmplts4) F(__vcmpeq2) F(__vcmpgeu2) F(__vcmples2)
