//! PTX the suite had not seen, from a ninth adversarial round (2026-12-07): random CUDA C
//! programs compiled by NVRTC for sm_80 and sm_90 and run against the same C compiled for
//! the host. Each fixture was assembled by `ptxas -arch=sm_90` first; each test asserts
//! what the PTX ISA says and failed on the simulator before its fix.

use ptx_sim::{launch, Geometry, Memory, Module};

const HDR: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// Runs `k(inp, out)` with `body` on one thread per pair of `inputs`: after a prologue,
/// `%r2` and `%r3` hold the thread's pair and `%rd4` points at its `outs` output words,
/// which come back, thread after thread.
fn run(body: &str, inputs: &[[u32; 2]], outs: usize) -> Result<Vec<u32>, String> {
    let ptx = format!(
        "{HDR}.visible .entry k(.param .u64 inp, .param .u64 out)\n{{\n .reg .b32 %r<32>; .reg .b64 %rd<8>;\n \
         ld.param.u64 %rd1, [inp];\n ld.param.u64 %rd2, [out];\n mov.u32 %r1, %tid.x;\n \
         mul.wide.u32 %rd3, %r1, 8; add.s64 %rd3, %rd1, %rd3;\n ld.global.v2.u32 {{%r2, %r3}}, [%rd3];\n \
         mul.wide.u32 %rd4, %r1, {};\n add.s64 %rd4, %rd2, %rd4;\n{body}\n ret;\n}}\n",
        4 * outs
    );
    let m = Module::parse(&ptx).map_err(|e| e.to_string())?;
    let Some(k) = m.kernel("k") else {
        return Err(m.unsupported("k").map_or_else(|| "kernel `k` missing".to_string(), |e| e.to_string()));
    };
    let mem = Memory::new();
    let bytes: Vec<u8> = inputs.iter().flatten().flat_map(|w| w.to_le_bytes()).collect();
    let inp = mem.alloc(bytes.len());
    mem.write(inp, &bytes).unwrap();
    let out = mem.alloc(4 * outs * inputs.len());
    let g = Geometry { grid: [1, 1, 1], block: [inputs.len() as u32, 1, 1], dynamic_shared_bytes: 0 };
    launch(k, &g, &[inp, out], &mem, 1).map_err(|e| e.to_string())?;
    let mut b = vec![0u8; 4 * outs * inputs.len()];
    mem.read(out, &mut b).unwrap();
    Ok(b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect())
}

/// Edge pairs for 16-bit and 32-bit lanes: zeros, signs, the extremes of both halves.
const PAIRS: [[u32; 2]; 8] = [
    [0, 0],
    [0x0001_ffff, 0xffff_0001],
    [0x7fff_8000, 0x8000_7fff],
    [0xffff_ffff, 0x0000_0001],
    [0x8000_0000, 0x7fff_ffff],
    [0x1234_fedc, 0xfedc_1234],
    [0x7fff_7fff, 0x0001_0001],
    [0xc000_4000, 0xc000_c000],
];

#[test]
fn packed_16_bit_integer_arithmetic_and_relu_of_sm_90() {
    // What NVRTC writes for sm_90's SIMD and DPX intrinsics (`__vadd2`, `__vmaxs2`,
    // `__vimin_s16x2_relu`, `__vimax_s32_relu`, `__viaddmax_u16x2`, ...): `add`, `min` and
    // `max` of `.u16x2`/`.s16x2` and `min.relu`/`max.relu` of `.s16x2`/`.s32`, the `.relu`
    // before or (as NVRTC writes it) after the type. The simulator refused them all.
    let body = " add.u16x2 %r10, %r2, %r3;\n add.s16x2 %r11, %r2, %r3;\n min.u16x2 %r12, %r2, %r3;\n \
                min.s16x2 %r13, %r2, %r3;\n max.u16x2 %r14, %r2, %r3;\n max.s16x2 %r15, %r2, %r3;\n \
                min.s16x2.relu %r16, %r2, %r3;\n max.relu.s16x2 %r17, %r2, %r3;\n min.s32.relu %r18, %r2, %r3;\n \
                max.relu.s32 %r19, %r2, %r3;\n \
                st.global.v2.u32 [%rd4], {%r10, %r11};\n st.global.v2.u32 [%rd4+8], {%r12, %r13};\n \
                st.global.v2.u32 [%rd4+16], {%r14, %r15};\n st.global.v2.u32 [%rd4+24], {%r16, %r17};\n \
                st.global.v2.u32 [%rd4+32], {%r18, %r19};";
    // The PTX ISA's semantics: each 16-bit half on its own (signed or not), `.relu` then
    // clamping each result below at 0.
    let lanes = |a: u32, b: u32, f: &dyn Fn(i64, i64) -> i64, signed: bool| -> u32 {
        let half = |v: u32, i: u32| {
            let h = (v >> (16 * i)) as u16;
            if signed {
                h as i16 as i64
            } else {
                h as i64
            }
        };
        (0..2).map(|i| (f(half(a, i), half(b, i)) as u32 & 0xffff) << (16 * i)).fold(0, |x, y| x | y)
    };
    let relu = |r: i64| r.max(0);
    let want: Vec<u32> = PAIRS
        .iter()
        .flat_map(|&[a, b]| {
            let (sa, sb) = (a as i32, b as i32);
            [
                lanes(a, b, &|x, y| x + y, false),
                lanes(a, b, &|x, y| x + y, true),
                lanes(a, b, &|x, y| x.min(y), false),
                lanes(a, b, &|x, y| x.min(y), true),
                lanes(a, b, &|x, y| x.max(y), false),
                lanes(a, b, &|x, y| x.max(y), true),
                lanes(a, b, &|x, y| relu(x.min(y)), true),
                lanes(a, b, &|x, y| relu(x.max(y)), true),
                sa.min(sb).max(0) as u32,
                sa.max(sb).max(0) as u32,
            ]
        })
        .collect();
    assert_eq!(run(body, &PAIRS, 10), Ok(want));
}

#[test]
fn packed_forms_ptxas_rejects_are_refused() {
    // `.relu` exists for `min`/`max` of the signed types alone, and `sub` has no packed
    // form: ptxas rejects each of these, and the simulator names the instruction (or, for
    // `sub`, the type).
    for ins in ["add.relu.s16x2", "min.relu.u16x2", "max.u32.relu", "sub.s16x2"] {
        let err = run(&format!(" {ins} %r10, %r2, %r3;"), &PAIRS, 1).unwrap_err();
        let named = if ins.starts_with("sub") { "`.s16x2`" } else { ins };
        assert!(err.contains("does not support") && err.contains(named), "{ins}: {err}");
    }
}

#[test]
fn a_narrow_load_of_a_call_parameter_reads_its_low_bits() {
    // NVRTC's `(i8)p` of an `i64` parameter of a `__noinline__` function: the caller stores
    // the whole `.b64`, the callee loads one byte (`ld.param.u8`, `ld.param.s8`) into a
    // 16-bit register. The simulator moved the whole stored value, so the byte load read
    // 0xe000 instead of 0x00 (and a division by `(i8)p` ran where it should not have).
    let ptx = format!(
        "{HDR}.func (.param .b32 ret) f(.param .b64 p0, .param .b32 p1)\n{{\n .reg .b16 %rs<4>; .reg .b32 %r<8>;\n \
         ld.param.u8 %rs1, [p0];\n ld.param.s8 %rs2, [p0];\n ld.param.u16 %rs3, [p1];\n \
         cvt.u32.u16 %r1, %rs1;\n cvt.u32.u16 %r2, %rs2;\n cvt.u32.u16 %r3, %rs3;\n \
         shl.b32 %r2, %r2, 8;\n shl.b32 %r3, %r3, 24;\n or.b32 %r4, %r1, %r2;\n or.b32 %r4, %r4, %r3;\n \
         st.param.b32 [ret+0], %r4;\n ret;\n}}\n\
         .visible .entry k(.param .u64 out)\n{{\n .reg .b32 %r<4>; .reg .b64 %rd<4>;\n \
         ld.param.u64 %rd1, [out];\n mov.b64 %rd3, 0xffffffec2646e080;\n mov.b32 %r2, 0x12345678;\n \
         {{\n .param .b64 param0;\n st.param.b64 [param0+0], %rd3;\n .param .b32 param1;\n st.param.b32 [param1+0], %r2;\n \
         .param .b32 retval0;\n call.uni (retval0), f, (param0, param1);\n ld.param.b32 %r1, [retval0+0];\n }}\n \
         st.global.u32 [%rd1], %r1;\n ret;\n}}\n"
    );
    let m = Module::parse(&ptx).unwrap_or_else(|e| panic!("{e}\n{ptx}"));
    let mem = Memory::new();
    let out = mem.alloc(4);
    let g = Geometry { grid: [1, 1, 1], block: [1, 1, 1], dynamic_shared_bytes: 0 };
    launch(m.kernel("k").unwrap(), &g, &[out], &mem, 1).unwrap();
    let mut b = [0u8; 4];
    mem.read(out, &mut b).unwrap();
    // Bits 0..8: the `.u8`, 0x80; bits 8..24: the `.s8`, 0x80 sign-extended to 0xff80; bits
    // 24..32: the low byte of the `.u16` of 0x12345678, 0x5678.
    assert_eq!(u32::from_le_bytes(b), 0x78ff_8080);
}
