//! Kernel parameters narrower than 32 bits (`bool`, `int8_t`, `short` as `.u8`/`.u16`) and
//! values passed by value as byte arrays (`__half`, structs: `.param .align A .b8 name[N]`):
//! NVRTC's PTX for them (`tests/data/by_value_params.cu`), and hand-written `ld.param`
//! forms at their edges (sign extension into wider registers, vector loads, the last byte,
//! reads past the end).

mod common;

use common::{download, geo, upload};
use ptx_sim::{launch_with, launch_with_param_bytes, Memory, Module, SimOptions};

const NVRTC: &str = include_str!("data/by_value_params.ptx");

fn run(m: &Module, kernel: &str, threads: u32, params: &[Vec<u8>], mem: &Memory) -> Result<(), String> {
    let code = m.kernel(kernel).unwrap_or_else(|| panic!("no kernel {kernel}"));
    launch_with_param_bytes(code, &geo([1, 1, 1], [threads, 1, 1]), params, mem, 1, &SimOptions::default())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

fn addr(a: u64) -> Vec<u8> {
    a.to_le_bytes().to_vec()
}

#[test]
fn bool_int8_uint8_int16_uint16_scalars_as_nvrtc_reads_them() {
    let m = Module::parse(NVRTC).unwrap();
    let mem = Memory::new();
    let n = 4usize;
    for neg in [true, false] {
        let (a, b, c, d) = (-3i8, 200u8, -1234i16, 60000u16);
        let out = upload(&mem, &vec![0; 5 * n], 8);
        let params = vec![
            addr(out),
            vec![neg as u8],
            a.to_le_bytes().to_vec(),
            b.to_le_bytes().to_vec(),
            c.to_le_bytes().to_vec(),
            d.to_le_bytes().to_vec(),
            (n as i32).to_le_bytes().to_vec(),
        ];
        run(&m, "small_scalars", n as u32, &params, &mem).unwrap();
        let got: Vec<i64> = download(&mem, out, 5 * n, 8).into_iter().map(|v| v as i64).collect();
        let want: Vec<i64> = (0..n as i64)
            .flat_map(|i| {
                let v = i64::from(a) * (i + 1) + i64::from(b);
                let prod = i64::from(i32::from(d) + i32::from(c) * i as i32);
                [if neg { -v } else { v }, i64::from(a), i64::from(b), i64::from(c), prod]
            })
            .collect();
        assert_eq!(got, want, "neg = {neg}");
    }
}

#[test]
fn templated_axpb_of_int8_and_uint16_wraps_as_rust_does() {
    let m = Module::parse(NVRTC).unwrap();
    let mem = Memory::new();
    let x8: Vec<i8> = vec![-128, -7, -1, 0, 1, 5, 100, 127];
    let (a8, b8) = (-3i8, -100i8);
    let x = upload(&mem, &x8.iter().map(|&v| v as u8 as u64).collect::<Vec<_>>(), 1);
    let y = upload(&mem, &[0; 8], 1);
    let params = vec![
        addr(x),
        addr(y),
        a8.to_le_bytes().to_vec(),
        b8.to_le_bytes().to_vec(),
        8i32.to_le_bytes().to_vec(),
    ];
    run(&m, "_Z4axpbIaEvPKT_PS0_S0_S0_i", 8, &params, &mem).unwrap();
    let got: Vec<i8> = download(&mem, y, 8, 1).into_iter().map(|v| v as u8 as i8).collect();
    let want: Vec<i8> = x8.iter().map(|&v| a8.wrapping_mul(v).wrapping_add(b8)).collect();
    assert_eq!(got, want);

    let x16: Vec<u16> = vec![0, 1, 2, 300, 40000, 65535];
    let (a16, b16) = (65533u16, 7u16);
    let x = upload(&mem, &x16.iter().map(|&v| u64::from(v)).collect::<Vec<_>>(), 2);
    let y = upload(&mem, &[0; 6], 2);
    let params = vec![
        addr(x),
        addr(y),
        a16.to_le_bytes().to_vec(),
        b16.to_le_bytes().to_vec(),
        6i32.to_le_bytes().to_vec(),
    ];
    run(&m, "_Z4axpbItEvPKT_PS0_S0_S0_i", 6, &params, &mem).unwrap();
    let got: Vec<u16> = download(&mem, y, 6, 2).into_iter().map(|v| v as u16).collect();
    let want: Vec<u16> = x16.iter().map(|&v| a16.wrapping_mul(v).wrapping_add(b16)).collect();
    assert_eq!(got, want);
}

#[test]
fn a_half_by_value() {
    let m = Module::parse(NVRTC).unwrap();
    let mem = Memory::new();
    // 1.5, -2, 0.25, 3 times 2.5 (all exact in f16): 3.75, -5, 0.625, 7.5.
    let x = upload(&mem, &[0x3e00, 0xc000, 0x3400, 0x4200], 2);
    let params = vec![addr(x), 0x4100u16.to_le_bytes().to_vec(), 4i32.to_le_bytes().to_vec()];
    run(&m, "half_scale", 4, &params, &mem).unwrap();
    assert_eq!(download(&mem, x, 4, 2), [0x4380, 0xc500, 0x3900, 0x4780]);
}

/// `struct { int a; double b; short c; }`: a at 0, b at 8, c at 16; the padding bytes hold
/// garbage that no field may pick up.
fn mixed(a: i32, b: f64, c: i16) -> Vec<u8> {
    let mut s = vec![0xa5u8; 24];
    s[0..4].copy_from_slice(&a.to_le_bytes());
    s[8..16].copy_from_slice(&b.to_le_bytes());
    s[16..18].copy_from_slice(&c.to_le_bytes());
    s
}

#[test]
fn a_struct_with_padding_by_value() {
    let m = Module::parse(NVRTC).unwrap();
    let mem = Memory::new();
    let out = upload(&mem, &[0; 8], 8);
    let (a, b, c) = (-7i32, 0.375f64, -2i16);
    run(&m, "by_struct", 8, &[addr(out), mixed(a, b, c)], &mem).unwrap();
    let got: Vec<f64> = download(&mem, out, 8, 8).into_iter().map(f64::from_bits).collect();
    let want: Vec<f64> = (0..8).map(|i| f64::from(a * i) + b + f64::from(c)).collect();
    assert_eq!(got, want);

    // An int4: four words, read at +12, +8, +4, +0.
    let out = upload(&mem, &[0; 8], 4);
    let v: Vec<u8> = [1i32, -2, 0x7fff_ffff, i32::MIN].iter().flat_map(|w| w.to_le_bytes()).collect();
    run(&m, "by_int4", 2, &[addr(out), v], &mem).unwrap();
    let got: Vec<i32> = download(&mem, out, 8, 4).into_iter().map(|w| w as u32 as i32).collect();
    assert_eq!(got, [1, -2, 0x7fff_ffff, i32::MIN, 1, -2, 0x7fff_ffff, i32::MIN]);
}

#[test]
fn wrong_byte_counts_and_wrong_launch_forms_are_errors_naming_the_parameter() {
    let m = Module::parse(NVRTC).unwrap();
    let mem = Memory::new();
    let out = upload(&mem, &[0; 8], 8);
    for bytes in [16, 25, 0] {
        let err = run(&m, "by_struct", 1, &[addr(out), vec![0; bytes]], &mem).unwrap_err();
        assert!(
            err.contains("by_struct")
                && err.contains("parameter 1")
                && err.contains("24 byte(s)")
                && err.contains(&format!("but {bytes} byte(s) were given")),
            "{bytes}: {err}"
        );
    }
    // A 1-byte parameter given 4 bytes.
    let err =
        run(&m, "half_scale", 1, &[addr(out), vec![0; 4], 1i32.to_le_bytes().to_vec()], &mem).unwrap_err();
    assert!(err.contains("parameter 1") && err.contains("2 byte(s), but 4"), "{err}");
    // One u64 a parameter cannot hold: a 24-byte struct, or a bool above its byte.
    let one = |kernel: &str, params: &[u64]| {
        let code = m.kernel(kernel).unwrap();
        launch_with(code, &geo([1, 1, 1], [1, 1, 1]), params, &mem, 1, &SimOptions::default())
            .unwrap_err()
            .to_string()
    };
    let err = one("by_struct", &[out, 0]);
    assert!(err.contains("24 bytes") && err.contains("launch_with_param_bytes"), "{err}");
    let err = one("small_scalars", &[out, 0x100, 0, 0, 0, 0, 0]);
    assert!(err.contains("parameter 1") && err.contains("bits above its 8"), "{err}");
    // A u64 small enough for the array is its bytes: `__half` 2.5 by value.
    let x = upload(&mem, &[0x3e00], 2);
    let code = m.kernel("half_scale").unwrap();
    launch_with(code, &geo([1, 1, 1], [1, 1, 1]), &[x, 0x4100, 1], &mem, 1, &SimOptions::default()).unwrap();
    assert_eq!(download(&mem, x, 1, 2), [0x4380]);
}

/// A kernel of hand-written `ld.param`s of parameter `p` (declared `decl`), each result
/// stored as a u64.
fn loads(decl: &str, body: &str) -> String {
    format!(
        ".version 8.5\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0,\n\t{decl}\n)\n{{\n\
         \t.reg .b16 \t%rs<8>;\n\t.reg .b32 \t%r<16>;\n\t.reg .b64 \t%rd<16>;\n\
         \tld.param.u64 \t%rd1, [k_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n{body}\n\tret;\n}}\n"
    )
}

/// Stores 32-bit register `%r{r}` zero-extended at word `slot` of the output.
fn store32(r: u32, slot: u32) -> String {
    format!(
        "\tcvt.u64.u32 \t%rd{}, %r{r};\n\tst.global.u64 \t[%rd2+{}], %rd{};\n",
        3 + slot,
        slot * 8,
        3 + slot
    )
}

#[test]
fn narrow_loads_extend_as_the_ptx_isa_says() {
    // `.s8`/`.s16` sign-extend into the wider register, `.u8`/`.u16`/`.b16`/`.b8`
    // zero-extend; a 16-bit register holds a sign-extended byte too.
    let cases = [
        (".param .s8 p", "ld.param.s8 \t%r1, [p];", 0x80u64, 0xffff_ff80u64),
        (".param .u8 p", "ld.param.s8 \t%r1, [p];", 0xfe, 0xffff_fffe),
        (".param .u8 p", "ld.param.u8 \t%r1, [p];", 0xfe, 0xfe),
        (".param .b8 p", "ld.param.b8 \t%r1, [p];", 0x9c, 0x9c),
        (".param .s16 p", "ld.param.s16 \t%r1, [p];", 0x8001, 0xffff_8001),
        (".param .u16 p", "ld.param.s16 \t%r1, [p];", 0xfff0, 0xffff_fff0),
        (".param .u16 p", "ld.param.u16 \t%r1, [p];", 0xfff0, 0xfff0),
        (".param .b16 p", "ld.param.b16 \t%rs1, [p];\n\tcvt.u32.u16 \t%r1, %rs1;", 0xbeef, 0xbeef),
        (".param .u8 p", "ld.param.s8 \t%rs1, [p];\n\tcvt.u32.u16 \t%r1, %rs1;", 0x81, 0xff81),
        (".param .u8 p", "ld.param.u8 \t%rs1, [p];\n\tcvt.u32.u16 \t%r1, %rs1;", 0x81, 0x81),
    ];
    let mem = Memory::new();
    for (decl, load, value, want) in cases {
        let text = loads(decl, &format!("\t{load}\n{}", store32(1, 0)));
        let m = Module::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let out = upload(&mem, &[0], 8);
        let size = if decl.contains('8') { 1 } else { 2 };
        let params = vec![addr(out), value.to_le_bytes()[..size].to_vec()];
        run(&m, "k", 1, &params, &mem).unwrap();
        assert_eq!(download(&mem, out, 1, 8), [want], "{decl}: {load}");
    }
}

#[test]
fn loads_inside_a_byte_array_read_its_bytes_little_endian() {
    // 24 bytes 0x00, 0x11, .., 0x17 + 0xe0 (bytes 16..24 are 0xf0..0xf7).
    let bytes: Vec<u8> = (0..24u8).map(|i| if i < 16 { i * 0x11 } else { 0xe0 + i }).collect();
    let word = |at: usize, n: usize| {
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(&bytes[at..at + n]);
        u64::from_le_bytes(b)
    };
    let sext = |v: u64, bits: u32| ((v << (64 - bits)) as i64 >> (64 - bits)) as u64 & 0xffff_ffff;
    let body = [
        "\tld.param.u32 \t%r1, [p+4];".to_string(),
        store32(1, 0),
        "\tld.param.s8 \t%r2, [p+23];".into(),
        store32(2, 1),
        "\tld.param.u8 \t%r3, [p+15];".into(),
        store32(3, 2),
        "\tld.param.s16 \t%r4, [p+10];".into(),
        store32(4, 3),
        "\tld.param.v2.u32 \t{%r5, %r6}, [p+8];".into(),
        store32(5, 4),
        store32(6, 5),
        "\tld.param.v4.u16 \t{%rs1, %rs2, _, %rs4}, [p+16];".into(),
        "\tcvt.u32.u16 \t%r7, %rs1;\n\tcvt.u32.u16 \t%r8, %rs2;\n\tcvt.u32.u16 \t%r9, %rs4;".into(),
        store32(7, 6),
        store32(8, 7),
        store32(9, 8),
        "\tld.param.b64 \t%rd14, [p+16];\n\tst.global.u64 \t[%rd2+72], %rd14;".into(),
        "\tld.param.v2.f64 \t{%rd12, %rd13}, [p];".replace("f64", "u64"),
        "\tst.global.u64 \t[%rd2+80], %rd12;\n\tst.global.u64 \t[%rd2+88], %rd13;".into(),
    ]
    .concat();
    let text = loads(".param .align 8 .b8 p[24]", &body);
    let m = Module::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mem = Memory::new();
    let out = upload(&mem, &[0; 12], 8);
    run(&m, "k", 1, &[addr(out), bytes.clone()], &mem).unwrap();
    let want = [
        word(4, 4),
        sext(word(23, 1), 8),
        word(15, 1),
        sext(word(10, 2), 16),
        word(8, 4),
        word(12, 4),
        word(16, 2),
        word(18, 2),
        word(22, 2),
        word(16, 8),
        word(0, 8),
        word(8, 8),
    ];
    assert_eq!(download(&mem, out, 12, 8), want);
    assert_eq!(m.kernel("k").unwrap().params()[1].array, Some(24));
    assert_eq!(m.kernel("k").unwrap().params()[1].size_bytes(), 24);
}

#[test]
fn reads_past_a_parameter_or_across_its_slots_are_errors_not_panics() {
    for (decl, load, want) in [
        (".param .align 8 .b8 p[24]", "ld.param.u32 \t%r1, [p+24];", "bytes 24..28"),
        (".param .align 8 .b8 p[24]", "ld.param.u8 \t%r1, [p+24];", "reads beyond parameter `p`"),
        (".param .align 8 .b8 p[24]", "ld.param.v4.u32 \t{%r1, %r2, %r3, %r4}, [p+16];", "bytes 16..32"),
        (".param .align 2 .b8 p[2]", "ld.param.u32 \t%r1, [p];", "which has 2 byte(s)"),
        (".param .u8 p", "ld.param.u16 \t%r1, [p];", "reads beyond parameter `p`"),
        (".param .u16 p", "ld.param.u8 \t%r1, [p+2];", "reads beyond parameter `p`"),
        (".param .align 8 .b8 p[24]", "ld.param.u32 \t%r1, [p+6];", "not aligned to 4 bytes"),
        (
            ".param .align 8 .b8 p[24]",
            "ld.param.u32 \t%r1, [p+99999999999999999999];",
            "bad parameter offset",
        ),
        (".param .align 8 .b8 p[24]", "ld.param.v8.u32 \t%r1, [p];", "of a kernel parameter"),
        (".param .align 8 .b8 p[24]", "st.param.u32 \t[p], %r1;", "to a kernel parameter"),
    ] {
        let err = Module::parse(&loads(decl, &format!("\t{load}"))).unwrap_err().to_string();
        assert!(err.contains(want), "{decl}: {load}: {err}");
    }
}
