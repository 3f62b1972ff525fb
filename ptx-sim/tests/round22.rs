//! What the twenty-second round of probing with PTX the simulator had not seen found: forms
//! ptxas accepts (each module is assembled for sm_90 here first, where ptxas is found) that
//! the simulator computed wrongly (`rsqrt.approx.ftz.f64` kept a subnormal input) or refused
//! (`cvt` between `.f16` and `.bf16` and of a half type to itself, `mad.rnd` of floats,
//! `ldu`, `fence.proxy.alias`).

mod common;

use common::{download, geo, upload};
use ptx_sim::{launch, Memory, Module};

/// A module with one kernel `k(out, in)`: each thread loads element `tid` of `in` (`bytes`
/// wide) into the register `%in` of type `ty`, runs `body`, and stores `%out` (declared
/// `out_ty`) as element `tid` of `out`.
fn elementwise(bytes: u32, ty: &str, out_ty: &str, body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\n\
         .visible .entry k(.param .u64 k_out, .param .u64 k_in)\n{{\n\
         \t.reg .b32 %r<2>;\n\t.reg .b64 %rd<8>;\n\t.reg {ty} %in;\n\t.reg {out_ty} %out;\n\
         \tld.param.u64 %rd0, [k_out];\n\tld.param.u64 %rd1, [k_in];\n\
         \tcvta.to.global.u64 %rd0, %rd0;\n\tcvta.to.global.u64 %rd1, %rd1;\n\
         \tmov.u32 %r0, %tid.x;\n\tmul.wide.u32 %rd2, %r0, {bytes};\n\
         \tadd.s64 %rd3, %rd1, %rd2;\n\tadd.s64 %rd4, %rd0, %rd2;\n\
         \tld.global{ty} %in, [%rd3];\n{body}\n\tst.global{out_ty} [%rd4], %out;\n\tret;\n}}\n"
    )
}

/// Assembles `ptx` for sm_90 with ptxas and its `extra` options, where ptxas is found (so
/// that every case is PTX ptxas accepts); says why it skips otherwise.
fn assert_ptxas_accepts(ptx: &str, extra: &[&str]) {
    if let Some(ptxas) = ptx_tools::ptxas::ptxas_or_skip("round22") {
        if let Err(e) = ptx_tools::ptxas::assemble_with_args(&ptxas, ptx, "sm_90", extra) {
            panic!("ptxas rejects the case: {e}\n{ptx}");
        }
    }
}

/// Assembles `ptx` for sm_90 where ptxas is found (so every case is PTX ptxas accepts),
/// then runs it on `input` (elements of `bytes`) and returns the outputs.
fn run(ptx: &str, input: &[u64], bytes: usize) -> Vec<u64> {
    assert_ptxas_accepts(ptx, &[]);
    let m = Module::parse(ptx).unwrap_or_else(|e| panic!("{e}\n{ptx}"));
    let mem = Memory::new();
    let (out, inp) = (upload(&mem, &vec![0; input.len()], bytes), upload(&mem, input, bytes));
    let k = m.kernel("k").unwrap_or_else(|| panic!("{:?}\n{ptx}", m.unsupported("k").map(|e| e.to_string())));
    launch(k, &geo([1, 1, 1], [input.len() as u32, 1, 1]), &[out, inp], &mem, 1)
        .unwrap_or_else(|e| panic!("{e}"));
    download(&mem, out, input.len(), bytes)
}

/// Why the simulator refuses `ptx`'s kernel `k` (empty when it takes it).
fn refusal(ptx: &str) -> String {
    match Module::parse(ptx) {
        Err(e) => e.to_string(),
        Ok(m) => m.unsupported("k").map(|e| e.to_string()).unwrap_or_default(),
    }
}

#[test]
fn rsqrt_approx_ftz_f64_flushes_a_subnormal_input_and_the_plain_form_keeps_it() {
    let input = [1, 0x8000_0000_0000_0001, 4.0f64.to_bits(), 0x0010_0000_0000_0000];
    let ftz = elementwise(8, ".f64", ".f64", "\trsqrt.approx.ftz.f64 %out, %in;");
    // Flushed to ±0: ±infinity. 1/sqrt(4) = 0.5; 1/sqrt(2^-1022) = 2^511.
    let expected = [f64::INFINITY, f64::NEG_INFINITY, 0.5, 2f64.powi(511)].map(f64::to_bits);
    assert_eq!(run(&ftz, &input, 8), expected);
    // Without `.ftz` the smallest subnormal, 2^-1074, is kept: 2^537.
    let plain = elementwise(8, ".f64", ".f64", "\trsqrt.approx.f64 %out, %in;");
    assert_eq!(run(&plain, &input[..1], 8), [2f64.powi(537).to_bits()]);
}

#[test]
fn cvt_between_f16_and_bf16_rounds_as_its_modifier_says() {
    // f16 1 + 2^-10 (0x3c01) is between bf16 1.0 (0x3f80) and 1 + 2^-7 (0x3f81); f16
    // 65504 (0x7bff) is bf16 65536 (0x4780) to nearest, 65280 (0x477f) toward zero.
    let to_bf16 = |round: &str| elementwise(2, ".b16", ".b16", &format!("\tcvt.{round}.bf16.f16 %out, %in;"));
    assert_eq!(run(&to_bf16("rn"), &[0x3c01, 0x7bff, 0xbc01], 2), [0x3f80, 0x4780, 0xbf80]);
    assert_eq!(run(&to_bf16("rp"), &[0x3c01, 0x7bff, 0xbc01], 2), [0x3f81, 0x4780, 0xbf80]);
    assert_eq!(run(&to_bf16("rz"), &[0x3c01, 0x7bff, 0xbc01], 2), [0x3f80, 0x477f, 0xbf80]);
    // bf16 1 + 2^-7 (0x3f81) is f16 0x3c08 exactly; bf16 2^20 (0x4980) overflows f16: to
    // nearest infinity (0x7c00), toward zero the largest finite (0x7bff).
    let to_f16 = |round: &str| elementwise(2, ".b16", ".b16", &format!("\tcvt.{round}.f16.bf16 %out, %in;"));
    assert_eq!(run(&to_f16("rn"), &[0x3f81, 0x4980], 2), [0x3c08, 0x7c00]);
    assert_eq!(run(&to_f16("rz"), &[0x3f81, 0x4980], 2), [0x3c08, 0x7bff]);
}

#[test]
fn cvt_of_a_half_type_to_itself_is_the_value_or_its_clamp() {
    // f16 1.5, -2.0 and 0.25; bf16 1.5 (0x3fc0) and 0.25 (0x3e80).
    let same = elementwise(2, ".b16", ".b16", "\tcvt.f16.f16 %out, %in;");
    assert_eq!(run(&same, &[0x3e00, 0xc000, 0x3400], 2), [0x3e00, 0xc000, 0x3400]);
    let sat = elementwise(2, ".b16", ".b16", "\tcvt.sat.f16.f16 %out, %in;");
    assert_eq!(run(&sat, &[0x3e00, 0xc000, 0x3400], 2), [0x3c00, 0x0000, 0x3400]);
    let bf16 = elementwise(2, ".b16", ".b16", "\tcvt.bf16.bf16 %out, %in;");
    assert_eq!(run(&bf16, &[0x3fc0, 0x3e80], 2), [0x3fc0, 0x3e80]);
    // Rounded to an integral value: bf16 1.5 to 2.0 (0x4000), 0.25 to 0.
    let integral = elementwise(2, ".b16", ".b16", "\tcvt.rni.bf16.bf16 %out, %in;");
    assert_eq!(run(&integral, &[0x3fc0, 0x3e80], 2), [0x4000, 0x0000]);
    // ptxas takes no `.sat` with a bf16 operand (it does for f16), nor does the simulator.
    for form in ["cvt.sat.bf16.bf16", "cvt.rn.sat.bf16.f16", "cvt.sat.f32.bf16"] {
        let out_ty = if form.ends_with(".f32.bf16") { ".f32" } else { ".b16" };
        let why = refusal(&elementwise(2, ".b16", out_ty, &format!("\t{form} %out, %in;")));
        assert!(why.contains(form) && why.contains(".sat"), "{why}");
    }
}

#[test]
fn mad_with_a_rounding_modifier_is_fma() {
    // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly when fused; a rounded product would lose
    // the 2^-24.
    let a = f32::from_bits(0x3f80_0800);
    let mad = elementwise(4, ".f32", ".f32", "\tmad.rn.f32 %out, %in, %in, 0fBF800000;");
    assert_eq!(run(&mad, &[u64::from(a.to_bits())], 4), [0x3a00_0400]);
    let fused = a.mul_add(a, -1.0);
    assert_eq!(fused.to_bits(), 0x3a00_0400);
    // `.sat` clamps to [0, 1] as fma's does: 3·3 - 1 = 8 → 1.
    let sat = elementwise(4, ".f32", ".f32", "\tmad.rz.ftz.sat.f32 %out, %in, %in, 0fBF800000;");
    assert_eq!(run(&sat, &[u64::from(3.0f32.to_bits())], 4), [u64::from(1.0f32.to_bits())]);
    let wide = elementwise(8, ".f64", ".f64", "\tmad.rm.f64 %out, %in, %in, 0dBFF0000000000000;");
    let x = 1.0 + 2f64.powi(-30);
    assert_eq!(run(&wide, &[x.to_bits()], 8), [x.mul_add(x, -1.0).to_bits()]);
}

#[test]
fn ldu_loads_as_ld_does_and_fence_proxy_alias_orders_nothing_here() {
    let scalar = elementwise(
        4,
        ".u32",
        ".u32",
        "\tfence.proxy.alias;\n\tmembar.proxy.alias;\n\tldu.global.u32 %out, [%rd3];",
    );
    assert_eq!(run(&scalar, &[7, 0xffff_ffff, 42], 4), [7, 0xffff_ffff, 42]);
    // A `.v2` pair at the thread's 8-byte element, summed.
    let pair = elementwise(
        8,
        ".u64",
        ".u32",
        "\t{\n\t.reg .u32 %lo, %hi;\n\tldu.global.v2.u32 {%lo, %hi}, [%rd3];\n\tadd.u32 %out, %lo, %hi;\n\t}",
    );
    let got = run(&pair, &[(5 << 32) | 9], 8);
    assert_eq!(got[0] & 0xffff_ffff, 14);
    // `ldu` has no other qualifiers and only the global space (ptxas: "Illegal modifier",
    // "State space incorrect"); the simulator refuses them too, where `ld` would take them.
    for form in ["ldu.global.volatile.u32", "ldu.global.nc.u32", "ldu.shared.u32"] {
        let why = refusal(&elementwise(4, ".u32", ".u32", &format!("\t{form} %out, [%rd3];")));
        assert!(why.contains(form), "{why}");
    }
}

/// `-rdc=true` output: an `inline __device__` variable is `.weak .global` (a `.common` one
/// alike), an `extern __device__` one `.extern .global`. Within one module the first two are
/// plain definitions; the third is defined in a module the simulator does not link, so the
/// kernels naming it are left out, not the module.
const RDC_MODULE: &str = "
.version 8.0
.target sm_90
.address_size 64
.weak .global .align 4 .u32 scale = 3;
.common .global .align 4 .u32 bias;
.extern .global .align 4 .u32 elsewhere;

.visible .entry uses_scale(.param .u64 uses_scale_param_0)
{
    .reg .b32 %r<5>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [uses_scale_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    ld.global.u32 %r2, [scale];
    ld.global.u32 %r4, [bias];
    mad.lo.s32 %r3, %r2, %r1, %r4;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd3, %rd2, %rd3;
    st.global.u32 [%rd3], %r3;
    ret;
}

.visible .entry uses_elsewhere(.param .u64 uses_elsewhere_param_0)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [uses_elsewhere_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    ld.global.u32 %r1, [elsewhere];
    st.global.u32 [%rd2], %r1;
    ret;
}
";

#[test]
fn weak_and_common_variables_are_defined_and_extern_ones_leave_out_their_users() {
    // (An `.extern` variable assembles as relocatable code, `-c`, as `-rdc` builds it.)
    assert_ptxas_accepts(RDC_MODULE, &["-c"]);
    let m = Module::parse(RDC_MODULE).unwrap_or_else(|e| panic!("{e}"));
    let mem = Memory::new();
    let out = upload(&mem, &[0; 4], 4);
    let k = m.kernel("uses_scale").expect("`uses_scale` loads");
    launch(k, &geo([1, 1, 1], [4, 1, 1]), &[out], &mem, 1).unwrap_or_else(|e| panic!("{e}"));
    // scale · tid + bias, the `.common` variable zero-initialised.
    assert_eq!(download(&mem, out, 4, 4), [0, 3, 6, 9]);
    let why = m.unsupported("uses_elsewhere").expect("the kernel naming `elsewhere` is left out").to_string();
    assert!(
        why.contains("`elsewhere`") && why.contains(".extern") && why.contains("`uses_elsewhere`"),
        "{why}"
    );
}

/// NVRTC's code for a struct passed by value and indexed at run time
/// (`struct Big { float w[32]; int k; }`, `out[i] = p.w[idx[i] & 31] + p.k`): the parameter's
/// address (`mov.b64 %rd, k_param_0`), read through `ld.param` and, after `cvta.param`,
/// a generic load (`tests/data/round22_struct_param_address.ptx`, assembled by ptxas first).
#[test]
fn a_by_value_struct_indexed_at_run_time_reads_through_its_address() {
    let text = include_str!("data/round22_struct_param_address.ptx");
    assert_ptxas_accepts(text, &[]);
    let m = Module::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let mem = Memory::new();
    let w: Vec<f32> = (0..32).map(|j| j as f32 * 1.5 - 7.0).collect();
    let k = -3i32;
    let mut big: Vec<u8> = w.iter().flat_map(|v| v.to_le_bytes()).collect();
    big.extend(k.to_le_bytes());
    let idx: Vec<u64> = vec![0, 31, 33, 7, 1000, 16];
    let n = idx.len();
    let (idx_addr, out) = (upload(&mem, &idx, 4), upload(&mem, &vec![0; n], 4));
    let params = vec![big, idx_addr.to_le_bytes().to_vec(), out.to_le_bytes().to_vec()];
    let code = m.kernel("bigparam").expect("`bigparam` loads");
    ptx_sim::launch_with_param_bytes(
        code,
        &geo([1, 1, 1], [n as u32, 1, 1]),
        &params,
        &mem,
        1,
        &Default::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let got = download(&mem, out, n, 4);
    for (i, &j) in idx.iter().enumerate() {
        // w[j & 31] + k, then w[j & 31] again through the generic address.
        let e = w[(j & 31) as usize];
        let want = (e + k as f32) + e;
        assert_eq!(got[i] as u32, want.to_bits(), "idx {j}");
    }
}

/// Every form that names a parameter's address: `mov` of `name+N`, `cvta.param` of the name
/// (then a generic load), `mov` of the name; and an `.extern` declaration of a variable the
/// module also defines, which is that variable (`tests/data/round22_param_address_forms.ptx`,
/// assembled by ptxas first, as relocatable code).
#[test]
fn every_form_of_a_parameter_address_reads_the_parameter() {
    let text = include_str!("data/round22_param_address_forms.ptx");
    assert_ptxas_accepts(text, &["-c"]);
    let m = Module::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let mem = Memory::new();
    let out = upload(&mem, &[0; 4], 4);
    let p0: Vec<u8> = (1..=16).collect();
    let params = vec![p0, out.to_le_bytes().to_vec()];
    let code = m.kernel("k").unwrap_or_else(|| panic!("{:?}", m.unsupported("k").map(|e| e.to_string())));
    ptx_sim::launch_with_param_bytes(code, &geo([1, 1, 1], [1, 1, 1]), &params, &mem, 1, &Default::default())
        .unwrap_or_else(|e| panic!("{e}"));
    // Bytes 8..12, 4..8 and 12..16 of the parameter, little-endian; then `g`.
    assert_eq!(download(&mem, out, 4, 4), [0x0c0b_0a09, 0x0807_0605, 0x100f_0e0d, 5]);
}
