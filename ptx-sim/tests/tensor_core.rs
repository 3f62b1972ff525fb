//! Tensor-core instructions: `ldmatrix` and `mma.sync`.
//!
//! - Single instructions in hand-written PTX (the instruction forms and operand types were
//!   checked with ptxas 13.5 for sm_80; the test kernels around them were not):
//!   every lane loads its fragment registers from memory and stores its result, and the
//!   result is checked bit for bit against the PTX ISA's fragment tables, written out here
//!   element by element as the ISA lists them (`a0, a1` in row `groupID`, ..), independently
//!   of the simulator's formulas. Matrix values are small integers, so every sum is exact
//!   whatever the accumulation order.
//! - Real Triton 3.9 `tl.dot` kernels (`tests/data/triton/dot_*_sm80.ptx`) computing
//!   `C = A·B` for f16, bf16 (f32 accumulators), f16 (f16 accumulators), tf32 and ieee f32,
//!   against float64 references within bounds justified per case.
//! - Misuse: a partial warp, an exited lane, diverged lanes, wrong register types and
//!   counts.

#![allow(clippy::needless_range_loop)]

mod common;

use common::{download, geo, upload};
use ptx_sim::{launch, launch_with, Approx, Geometry, Memory, Module, SimError, SimOptions};
use ptx_tools::rng::Rng;

fn parse(text: &str) -> Module {
    Module::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

// ---------------------------------------------------------------------------------------
// ldmatrix

/// One block of 32 threads: the lanes fill 1 KiB of shared memory from `in` (8 words each),
/// then lane `l` addresses row `l % 8` of matrix `l / 8`, which lies at row slot
/// `(3 - l/8)·8 + l%8` of 32 bytes (16 of data, 16 of padding), and each lane stores its
/// `count` result registers at `out[4l..]`.
fn ldmatrix_kernel(count: usize, trans: bool, shared_cta: bool) -> String {
    let regs: Vec<String> = (0..count).map(|i| format!("%d{i}")).collect();
    let stores: String = (0..count).map(|i| format!("\tst.global.b32 [%rd5+{}], %d{i};\n", 4 * i)).collect();
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n\
         .visible .entry k(.param .u64 out, .param .u64 in)\n{{\n\
         \t.reg .b32 %r<16>;\n\t.reg .b32 %d<4>;\n\t.reg .b64 %rd<8>;\n\
         \t.shared .align 16 .b8 sm[1024];\n\
         \tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
         \tld.param.u64 %rd2, [in];\n\tcvta.to.global.u64 %rd2, %rd2;\n\
         \tmov.u32 %r1, %tid.x;\n\
         \tmov.u32 %r2, 0;\n\
         $fill:\n\
         \tshl.b32 %r3, %r1, 3;\n\tadd.s32 %r3, %r3, %r2;\n\
         \tmul.wide.u32 %rd3, %r3, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n\
         \tld.global.b32 %r4, [%rd4];\n\
         \tshl.b32 %r5, %r3, 2;\n\tmov.u32 %r6, sm;\n\tadd.s32 %r5, %r5, %r6;\n\
         \tst.shared.b32 [%r5], %r4;\n\
         \tadd.s32 %r2, %r2, 1;\n\tsetp.lt.u32 %p1, %r2, 8;\n\t@%p1 bra $fill;\n\
         \tbar.sync 0;\n\
         \tshr.u32 %r7, %r1, 3;\n\tand.b32 %r8, %r1, 7;\n\
         \tsub.s32 %r9, 3, %r7;\n\tshl.b32 %r9, %r9, 3;\n\tadd.s32 %r9, %r9, %r8;\n\
         \tshl.b32 %r9, %r9, 5;\n\tadd.s32 %r9, %r9, %r6;\n\
         \tldmatrix.sync.aligned.m8n8.x{count}{}.shared{}.b16 {{{}}}, [%r9];\n\
         \tmul.wide.u32 %rd5, %r1, 16;\n\tadd.s64 %rd5, %rd1, %rd5;\n\
         {stores}\tret;\n}}\n",
        if trans { ".trans" } else { "" },
        if shared_cta { "::cta" } else { "" },
        regs.join(", "),
    )
    .replace("\t.reg .b64 %rd<8>;\n", "\t.reg .b64 %rd<8>;\n\t.reg .pred %p<2>;\n")
}

/// `ldmatrix` `.x1`, `.x2`, `.x4`, each with and without `.trans`: each lane's registers hold
/// the ISA's elements of each matrix, exactly.
#[test]
fn ldmatrix_gives_each_lane_its_fragment() {
    let mut rng = Rng::fresh("ldmatrix_gives_each_lane_its_fragment");
    let words: Vec<u64> = (0..256).map(|_| rng.next() & 0xffff_ffff).collect();
    let bytes: Vec<u8> = words.iter().flat_map(|w| (*w as u32).to_le_bytes()).collect();
    // Element (row r, column c) of matrix i: the 16-bit value at its row slot.
    let elem = |i: usize, r: usize, c: usize| {
        let at = ((3 - i) * 8 + r) * 32 + 2 * c;
        u16::from_le_bytes([bytes[at], bytes[at + 1]]) as u64
    };
    for count in [1, 2, 4] {
        for trans in [false, true] {
            let m = parse(&ldmatrix_kernel(count, trans, count == 2));
            let mem = Memory::new();
            let out = upload(&mem, &[0; 128], 4);
            let inp = upload(&mem, &words, 4);
            launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [32, 1, 1]), &[out, inp], &mem, 1)
                .unwrap_or_else(|e| panic!("x{count} trans {trans}: {e}"));
            let got = download(&mem, out, 128, 4);
            for lane in 0..32 {
                // The ISA: lane l holds row l/4, columns 2(l%4) and 2(l%4)+1 (of the
                // transpose with .trans), the lower column in the lower half.
                let (g, t) = (lane / 4, lane % 4);
                for i in 0..count {
                    let want = if trans {
                        elem(i, 2 * t, g) | elem(i, 2 * t + 1, g) << 16
                    } else {
                        elem(i, g, 2 * t) | elem(i, g, 2 * t + 1) << 16
                    };
                    assert_eq!(got[4 * lane + i], want, "x{count} trans {trans} lane {lane} matrix {i}");
                }
                for i in count..4 {
                    assert_eq!(got[4 * lane + i], 0);
                }
            }
        }
    }
}

/// A row address that is not 16-byte aligned, or one outside shared memory, is a fault of
/// the lane that gave it; a row nobody wrote is the never-written-shared error.
#[test]
fn ldmatrix_faults_name_the_lane() {
    let text = ldmatrix_kernel(4, false, false);
    for (patch, what) in [
        ("\tadd.s32 %r9, %r9, %r6;\n", "misaligned"),
        ("\tadd.s32 %r9, %r9, %r6;\n", "outside"),
        ("\tst.shared.b32 [%r5], %r4;\n", "unwritten"),
    ] {
        let replaced = match what {
            "misaligned" => format!("{patch}\tadd.s32 %r9, %r9, 4;\n"),
            "outside" => format!("{patch}\tadd.s32 %r9, %r9, 4096;\n"),
            _ => String::new(),
        };
        let text = text.replacen(patch, &replaced, 1);
        let m = parse(&text);
        let mem = Memory::new();
        let out = upload(&mem, &[0; 128], 4);
        let inp = upload(&mem, &[0; 256], 4);
        let err = launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [32, 1, 1]), &[out, inp], &mem, 1)
            .expect_err(what)
            .to_string();
        assert!(err.contains("ldmatrix"), "{what}: {err}");
    }
}

// ---------------------------------------------------------------------------------------
// mma: one instruction, fragments as the ISA's tables give them

#[derive(Clone, Copy, PartialEq, Debug)]
enum T {
    F16,
    Bf16,
    Tf32,
    F32,
    F64,
    S8,
    U8,
    S32,
}

impl T {
    fn name(self) -> &'static str {
        match self {
            T::F16 => "f16",
            T::Bf16 => "bf16",
            T::Tf32 => "tf32",
            T::F32 => "f32",
            T::F64 => "f64",
            T::S8 => "s8",
            T::U8 => "u8",
            T::S32 => "s32",
        }
    }
    /// Elements per register.
    fn per_reg(self) -> usize {
        match self {
            T::F16 | T::Bf16 => 2,
            T::S8 | T::U8 => 4,
            _ => 1,
        }
    }
    fn bits(self) -> usize {
        match self {
            T::F64 => 64,
            _ => 32 / self.per_reg(),
        }
    }
    /// The bits of `x`, which the type holds exactly.
    fn encode(self, x: f64) -> u64 {
        match self {
            T::F16 => f16_bits(x as f32),
            T::Bf16 => (x as f32).to_bits() as u64 >> 16,
            T::Tf32 | T::F32 => (x as f32).to_bits() as u64,
            T::F64 => x.to_bits(),
            T::S8 | T::U8 => x as i64 as u64 & 0xff,
            T::S32 => x as i64 as u64 & 0xffff_ffff,
        }
    }
    fn decode(self, bits: u64) -> f64 {
        match self {
            T::F16 => f16_value(bits as u16),
            T::F32 => f32::from_bits(bits as u32) as f64,
            T::F64 => f64::from_bits(bits),
            T::S32 => bits as u32 as i32 as f64,
            _ => unreachable!(),
        }
    }
}

/// The f16 bits of `x` (a normal f16 value, or zero).
fn f16_bits(x: f32) -> u64 {
    let b = x.to_bits();
    let sign = (b >> 16) & 0x8000;
    if x == 0.0 {
        return sign as u64;
    }
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    assert!((1..31).contains(&exp) && b & 0x1fff == 0, "{x} is not a normal f16");
    (sign | (exp as u32) << 10 | (b >> 13) & 0x3ff) as u64
}

fn f16_value(h: u16) -> f64 {
    let (sign, exp, frac) = ((h >> 15) as i32, ((h >> 10) & 0x1f) as i32, (h & 0x3ff) as f64);
    let mag = if exp == 0 { frac * 2f64.powi(-24) } else { (1.0 + frac / 1024.0) * 2f64.powi(exp - 15) };
    if sign == 1 {
        -mag
    } else {
        mag
    }
}

struct Shape {
    m: usize,
    n: usize,
    k: usize,
}

/// The ISA's tables: (row, column) of A's element `i` (`a_i`) of `lane`.
fn a_elem(s: &Shape, ty: T, lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    match (s.m, ty.per_reg()) {
        // .f64 m8n8k4: a0 at (groupID, threadID_in_group).
        (8, 1) => (g, t),
        // .s8/.u8 m8n8k16: a0..a3 in row groupID, columns 4·tig + i.
        (8, 4) => (g, 4 * t + i),
        // .f16/.bf16 m16n8k8 and m16n8k16: a0,a1 (and a4,a5) in row groupID, a2,a3 (a6,a7)
        // in row groupID+8; columns 2·tig + (i & 1), plus 8 for i >= 4.
        (16, 2) => (g + if i % 4 >= 2 { 8 } else { 0 }, 2 * t + (i & 1) + if i >= 4 { 8 } else { 0 }),
        // .tf32 m16n8k4 and m16n8k8: a0 (groupID, tig), a1 (groupID+8, tig), a2 (groupID,
        // tig+4), a3 (groupID+8, tig+4).
        (16, 1) => (g + 8 * (i & 1), t + 4 * (i / 2)),
        // .s8/.u8 m16n8k16 and m16n8k32: a0..a3 row groupID, a4..a7 row groupID+8 (then
        // a8..a11, a12..a15 likewise), columns 4·tig + (i & 3), plus 16 for i >= 8.
        (16, 4) => (g + if i % 8 >= 4 { 8 } else { 0 }, 4 * t + (i & 3) + if i >= 8 { 16 } else { 0 }),
        _ => unreachable!(),
    }
}

/// (row, column) of B's element `b_i` of `lane`.
fn b_elem(ty: T, lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    match ty.per_reg() {
        // .f16/.bf16: rows 2·tig + (i & 1), plus 8 for i >= 2; column groupID.
        2 => (2 * t + (i & 1) + if i >= 2 { 8 } else { 0 }, g),
        // .tf32/.f64: b0 row tig, b1 row tig+4.
        1 => (t + 4 * i, g),
        // 8-bit: rows 4·tig + (i & 3), plus 16 for i >= 4.
        _ => (4 * t + (i & 3) + if i >= 4 { 16 } else { 0 }, g),
    }
}

/// (row, column) of C's and D's element `c_i` of `lane`: c0,c1 in row groupID, c2,c3 in row
/// groupID+8, columns 2·tig + (i & 1).
fn c_elem(lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    (g + if i >= 2 { 8 } else { 0 }, 2 * t + (i & 1))
}

fn reg_decl(ty: T, name: &str, n: usize) -> String {
    let t = match ty {
        T::F32 => "f32",
        T::F64 => "f64",
        T::S32 => "s32",
        _ => "b32",
    };
    format!("\t.reg .{t} %{name}<{n}>;\n")
}

/// A kernel `k(out, in)`: lane `l` loads its A, B and C registers from 8-byte slots at
/// `in + 96·l` (A's at slots 0..4, B's at 4..8, C's at 8..12), runs `opcode`, stores its D
/// registers to 8-byte slots at `out + 32·l`.
#[allow(clippy::too_many_arguments)]
fn mma_kernel(
    opcode: &str,
    dt: T,
    at: T,
    bt: T,
    ct: T,
    nd: usize,
    na: usize,
    nb: usize,
    nc: usize,
) -> String {
    let ld = |ty: T, reg: &str, j: usize, slot: usize| {
        let t = match ty {
            T::F32 => "f32",
            T::F64 => "f64",
            T::S32 => "s32",
            _ => "b32",
        };
        format!("\tld.global.{t} %{reg}{j}, [%rd4+{}];\n", 8 * slot)
    };
    let mut body = String::new();
    for j in 0..na {
        body += &ld(at, "a", j, j);
    }
    for j in 0..nb {
        body += &ld(bt, "b", j, 4 + j);
    }
    for j in 0..nc {
        body += &ld(ct, "c", j, 8 + j);
    }
    let list = |name: &str, n: usize| (0..n).map(|j| format!("%{name}{j}")).collect::<Vec<_>>().join(", ");
    body += &format!(
        "\t{opcode} {{{}}}, {{{}}}, {{{}}}, {{{}}};\n",
        list("d", nd),
        list("a", na),
        list("b", nb),
        list("c", nc)
    );
    for j in 0..nd {
        let t = match dt {
            T::F32 => "f32",
            T::F64 => "f64",
            T::S32 => "s32",
            _ => "b32",
        };
        body += &format!("\tst.global.{t} [%rd6+{}], %d{j};\n", 8 * j);
    }
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n\
         .visible .entry k(.param .u64 out, .param .u64 in)\n{{\n\
         \t.reg .b32 %r<4>;\n\t.reg .b64 %rd<8>;\n{}{}{}{}\
         \tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
         \tld.param.u64 %rd2, [in];\n\tcvta.to.global.u64 %rd2, %rd2;\n\
         \tmov.u32 %r1, %tid.x;\n\
         \tmul.wide.u32 %rd3, %r1, 96;\n\tadd.s64 %rd4, %rd2, %rd3;\n\
         \tmul.wide.u32 %rd5, %r1, 32;\n\tadd.s64 %rd6, %rd1, %rd5;\n\
         {body}\tret;\n}}\n",
        reg_decl(dt, "d", nd),
        reg_decl(at, "a", na),
        reg_decl(bt, "b", nb),
        reg_decl(ct, "c", nc),
    )
}

/// Runs `mma.sync.aligned.{shape}.row.col{sat}.{d}.{a}.{b}.{c}` on random small matrices:
/// D must be A·B + C exactly (integer wrap, or clamp with `.satfinite`).
#[allow(clippy::too_many_arguments)]
fn check_mma(
    shape: (usize, usize, usize),
    dt: T,
    at: T,
    bt: T,
    ct: T,
    sat: bool,
    rng: &mut Rng,
    big_c: bool,
) {
    let s = Shape { m: shape.0, n: shape.1, k: shape.2 };
    let name = format!("m{}n{}k{}", s.m, s.n, s.k);
    let opcode = format!(
        "mma.sync.aligned.{name}.row.col{}.{}.{}.{}.{}",
        if sat { ".satfinite" } else { "" },
        dt.name(),
        at.name(),
        bt.name(),
        ct.name()
    );
    let cper = if ct == T::F16 { 2 } else { 1 };
    let dper = if dt == T::F16 { 2 } else { 1 };
    let (na, nb) = (s.m * s.k / 32 / at.per_reg(), s.k * s.n / 32 / bt.per_reg());
    let (nc, nd) = (s.m * s.n / 32 / cper, s.m * s.n / 32 / dper);
    let text = mma_kernel(&opcode, dt, at, bt, ct, nd, na, nb, nc);
    let m = parse(&text);
    let value = |rng: &mut Rng, ty: T| -> f64 {
        let r = rng.next();
        match ty {
            T::S8 => (r % 256) as i64 as f64 - 128.0,
            T::U8 => (r % 256) as f64,
            T::S32 if big_c => 2147483000.0 - (r % 2000) as f64 * 2147483.0,
            T::S32 => (r % 20001) as f64 - 10000.0,
            _ => (r % 9) as f64 - 4.0,
        }
    };
    let a: Vec<f64> = (0..s.m * s.k).map(|_| value(rng, at)).collect();
    let b: Vec<f64> = (0..s.k * s.n).map(|_| value(rng, bt)).collect();
    let c: Vec<f64> = (0..s.m * s.n).map(|_| value(rng, ct)).collect();
    let mut input = vec![0u64; 32 * 12];
    for lane in 0..32 {
        for i in 0..s.m * s.k / 32 {
            let (r, col) = a_elem(&s, at, lane, i);
            let slot = &mut input[lane * 12 + i / at.per_reg()];
            *slot |= at.encode(a[r * s.k + col]) << (at.bits() * (i % at.per_reg()));
        }
        for i in 0..s.k * s.n / 32 {
            let (r, col) = b_elem(bt, lane, i);
            let slot = &mut input[lane * 12 + 4 + i / bt.per_reg()];
            *slot |= bt.encode(b[r * s.n + col]) << (bt.bits() * (i % bt.per_reg()));
        }
        for i in 0..s.m * s.n / 32 {
            let (r, col) = c_elem(lane, i);
            input[lane * 12 + 8 + i / cper] |= ct.encode(c[r * s.n + col]) << (16 * (i % cper));
        }
    }
    let mem = Memory::new();
    let out = upload(&mem, &[0; 32 * 4], 8);
    let inp = upload(&mem, &input, 8);
    launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [32, 1, 1]), &[out, inp], &mem, 1)
        .unwrap_or_else(|e| panic!("{opcode}: {e}\n{text}"));
    let got = download(&mem, out, 32 * 4, 8);
    for lane in 0..32 {
        for i in 0..s.m * s.n / 32 {
            let (r, col) = c_elem(lane, i);
            let exact: f64 =
                c[r * s.n + col] + (0..s.k).map(|x| a[r * s.k + x] * b[x * s.n + col]).sum::<f64>();
            let want = if dt == T::S32 {
                let e = exact as i64;
                if sat {
                    e.clamp(i32::MIN as i64, i32::MAX as i64) as f64
                } else {
                    e as i32 as f64
                }
            } else {
                exact
            };
            let bits =
                got[lane * 4 + i / dper] >> (16 * (i % dper)) & if dper == 2 { 0xffff } else { u64::MAX };
            let bits = if dt == T::F32 || dt == T::S32 { bits & 0xffff_ffff } else { bits };
            assert_eq!(dt.decode(bits), want, "{opcode}: lane {lane} d{i} (row {r}, column {col})");
        }
    }
}

#[test]
fn mma_f16_and_bf16_fragments_follow_the_isa() {
    let mut rng = Rng::fresh("mma_f16_and_bf16_fragments_follow_the_isa");
    for k in [16, 8] {
        check_mma((16, 8, k), T::F32, T::F16, T::F16, T::F32, false, &mut rng, false);
        check_mma((16, 8, k), T::F16, T::F16, T::F16, T::F16, false, &mut rng, false);
        check_mma((16, 8, k), T::F32, T::Bf16, T::Bf16, T::F32, false, &mut rng, false);
    }
}

#[test]
fn mma_tf32_and_f64_fragments_follow_the_isa() {
    let mut rng = Rng::fresh("mma_tf32_and_f64_fragments_follow_the_isa");
    for k in [8, 4] {
        check_mma((16, 8, k), T::F32, T::Tf32, T::Tf32, T::F32, false, &mut rng, false);
    }
    check_mma((8, 8, 4), T::F64, T::F64, T::F64, T::F64, false, &mut rng, false);
}

#[test]
fn mma_integer_fragments_follow_the_isa() {
    let mut rng = Rng::fresh("mma_integer_fragments_follow_the_isa");
    for (shape, a, b) in [
        ((16, 8, 32), T::S8, T::S8),
        ((16, 8, 32), T::S8, T::U8),
        ((16, 8, 16), T::U8, T::S8),
        ((8, 8, 16), T::U8, T::U8),
    ] {
        check_mma(shape, T::S32, a, b, T::S32, false, &mut rng, false);
        // Near the top of the range: wraps, or with .satfinite clamps.
        check_mma(shape, T::S32, a, b, T::S32, false, &mut rng, true);
        check_mma(shape, T::S32, a, b, T::S32, true, &mut rng, true);
    }
}

/// `.tf32` operands are read from their upper 19 bits; the f32 result is the exact sum
/// rounded once.
#[test]
fn mma_tf32_ignores_the_low_13_bits() {
    let s = Shape { m: 16, n: 8, k: 8 };
    let text = mma_kernel(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
        T::F32,
        T::Tf32,
        T::Tf32,
        T::F32,
        4,
        4,
        2,
        4,
    );
    let m = parse(&text);
    // A = 1 + 2^-10 + 2^-11 (the 2^-11 is below tf32's precision) everywhere, B = 1, C = 0.
    let one_plus = (1.0f32 + 2f32.powi(-10) + 2f32.powi(-11)).to_bits() as u64;
    let mut input = vec![0u64; 32 * 12];
    for lane in 0..32 {
        for j in 0..4 {
            input[lane * 12 + j] = one_plus;
        }
        for j in 0..2 {
            input[lane * 12 + 4 + j] = 1f32.to_bits() as u64;
        }
    }
    let mem = Memory::new();
    let out = upload(&mem, &[0; 32 * 4], 8);
    let inp = upload(&mem, &input, 8);
    launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [32, 1, 1]), &[out, inp], &mem, 1).unwrap();
    let got = download(&mem, out, 32 * 4, 8);
    let want = s.k as f32 * (1.0 + 2f32.powi(-10));
    assert!(got.iter().all(|&b| f32::from_bits(b as u32) == want), "{:?}", &got[..4]);
}

// ---------------------------------------------------------------------------------------
// Misuse

fn one_mma(prelude: &str, opcode_and_operands: &str, threads: u32) -> Result<(), String> {
    let text = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .b32 %r<16>;\n\t.reg .f32 %f<16>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<2>;\n\
         \tmov.u32 %r1, %tid.x;\n{prelude}\t{opcode_and_operands}\n\tret;\n}}\n"
    );
    let m = Module::parse(&text).map_err(|e| e.to_string())?;
    let mem = Memory::new();
    let out = mem.alloc(64);
    launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [threads, 1, 1]), &[out], &mem, 1)
        .map(drop)
        .map_err(|e| e.to_string())
}

const MMA: &str = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, \
                   {%r2, %r3, %r4, %r5}, {%r6, %r7}, {%f5, %f6, %f7, %f8};";

#[test]
fn aligned_tensor_instructions_need_the_whole_warp() {
    assert_eq!(one_mma("", MMA, 64), Ok(()));
    // A warp of 16 threads.
    let err = one_mma("", MMA, 16).unwrap_err();
    assert!(err.contains("all 32 lanes") && err.contains("warp of 16"), "{err}");
    // Lane 0 exits before the others reach the mma.
    let err = one_mma("\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 ret;\n", MMA, 32).unwrap_err();
    assert!(err.contains("exited") && err.contains("all 32 lanes"), "{err}");
    // The lanes diverge and reach two different mma instructions.
    let prelude = format!("\tsetp.lt.u32 %p1, %r1, 16;\n\t@%p1 bra $low;\n\t{MMA}\n\tbra $end;\n$low:\n");
    let err = one_mma(&prelude, &format!("{MMA}\n$end:"), 32).unwrap_err();
    assert!(err.contains(".aligned"), "{err}");
    // ldmatrix in a partial warp too.
    let err = one_mma(
        "\t.shared .align 16 .b8 sm[256];\n",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r2}, [sm];",
        8,
    )
    .unwrap_err();
    assert!(err.contains("all 32 lanes"), "{err}");
}

#[test]
fn tensor_operands_are_type_checked() {
    for (bad, what) in [
        // ptxas: "Arguments mismatch" (A of f16 must be .b32), C of f32 not .u32/.b64,
        // vector sizes, a missing vector, ldmatrix into .b64.
        (MMA.replace("{%r2, %r3, %r4, %r5}", "{%f9, %f10, %f11, %f12}"), "f32 A"),
        (MMA.replace("{%f5, %f6, %f7, %f8}", "{%f5, %f6, %f7, %rd1}"), "b64 in C"),
        (MMA.replace("{%r2, %r3, %r4, %r5}", "{%r2, %r3, %r4}"), "three A registers"),
        (MMA.replace("{%r6, %r7}", "%r6"), "B without braces"),
        ("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%rd1, %rd2}, [%r1];".to_string(), "b64 ldmatrix"),
        ("ldmatrix.sync.aligned.m8n8.x1.shared.b16 %r2, [%r1];".to_string(), "x1 without braces"),
        ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r2, %r3}, [%r1];".to_string(), "x4 with two"),
    ] {
        let err = one_mma("", &bad, 32).unwrap_err();
        assert!(err.contains("line 12"), "{what}: {err}");
    }
    // Forms ptxas refuses, or the simulator does not run, are errors naming them.
    for form in [
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16",
        "mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32",
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32",
        "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32",
    ] {
        let err = one_mma("", &MMA.replace("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", form), 32)
            .unwrap_err();
        assert!(err.contains(form), "{form}: {err}");
    }
}

// ---------------------------------------------------------------------------------------
// Triton's tl.dot

fn triton_text(file: &str) -> String {
    let path = format!("{}/tests/data/triton/{file}.ptx", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn meta(head: &str, key: &str) -> u32 {
    let at = head.find(&format!(" {key}=")).unwrap() + key.len() + 2;
    head[at..].split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
}

/// Input element types of the dot kernels.
#[derive(Clone, Copy, PartialEq, Debug)]
enum In {
    F16,
    Bf16,
    F32,
}

/// Runs Triton fixture `file` (`C = A·B`, A `M×K` and B `K×N` row major, C f32) on random
/// inputs, as Triton launches it (a program per `BM×BN` tile of C, with the global race
/// check on): A, B (the input values, as f64) and C.
fn run_dot(
    file: &str,
    input: In,
    (m, n, k): (usize, usize, usize),
    tile: (usize, usize),
) -> (Vec<f64>, Vec<f64>, Vec<f32>) {
    let text = triton_text(file);
    let head = text.lines().next().unwrap();
    let module = parse(&text);
    let name = head.split(": ").nth(1).and_then(|s| s.split(' ').next()).unwrap();
    let kernel = module.kernel(name).unwrap();
    let mut rng = Rng::fresh(file);
    // Values the input type holds exactly, of several binades (so that sums of products
    // need more bits than f32 has): 11 significant bits times 2^-(0..4) for f16 (all
    // normal), 8 bits times 2^-(0..8) for bf16.
    let gen = |rng: &mut Rng, n: usize| -> Vec<f64> {
        (0..n)
            .map(|_| match input {
                In::F16 => {
                    ((rng.next() % 2047) as f64 - 1023.0) / 1024.0 * 2f64.powi(-((rng.next() % 5) as i32))
                }
                In::Bf16 => {
                    ((rng.next() % 255) as f64 - 127.0) / 128.0 * 2f64.powi(-((rng.next() % 9) as i32))
                }
                In::F32 => rng.signed_f32() as f64,
            })
            .collect()
    };
    let (a, b) = (gen(&mut rng, m * k), gen(&mut rng, k * n));
    let mem = Memory::new();
    let put = |v: &[f64]| match input {
        In::F16 => upload(&mem, &v.iter().map(|&x| f16_bits(x as f32)).collect::<Vec<_>>(), 2),
        In::Bf16 => {
            upload(&mem, &v.iter().map(|&x| (x as f32).to_bits() as u64 >> 16).collect::<Vec<_>>(), 2)
        }
        In::F32 => upload(&mem, &v.iter().map(|&x| (x as f32).to_bits() as u64).collect::<Vec<_>>(), 4),
    };
    let (pa, pb) = (put(&a), put(&b));
    let pc = upload(&mem, &vec![0; m * n], 4);
    let geometry = Geometry {
        grid: [m.div_ceil(tile.0) as u32, n.div_ceil(tile.1) as u32, 1],
        block: [meta(head, "num_warps") * 32, 1, 1],
        dynamic_shared_bytes: meta(head, "shared"),
    };
    let options = SimOptions { global_race_check: true, approx: Approx::WorstCase, ..SimOptions::default() };
    launch_with(kernel, &geometry, &[pa, pb, pc, m as u64, n as u64, k as u64, 0, 0], &mem, 2, &options)
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    let c = download(&mem, pc, m * n, 4).into_iter().map(|b| f32::from_bits(b as u32)).collect();
    (a, b, c)
}

/// Checks `c` against A·B in f64: `|c - exact| <= rel · Σ|a||b|` element by element, and
/// returns the largest error in units of `Σ|a||b|`.
fn check_dot(
    what: &str,
    (a, b, c): (&[f64], &[f64], &[f32]),
    (m, n, k): (usize, usize, usize),
    rel: f64,
    round: impl Fn(f64) -> f64,
) -> f64 {
    let mut worst = 0f64;
    for i in 0..m {
        for j in 0..n {
            let exact: f64 = (0..k).map(|x| round(a[i * k + x]) * round(b[x * n + j])).sum();
            let scale: f64 = (0..k).map(|x| (a[i * k + x] * b[x * n + j]).abs()).sum();
            let err = (c[i * n + j] as f64 - exact).abs() / scale.max(f64::MIN_POSITIVE);
            worst = worst.max(err);
            assert!(
                err <= rel,
                "{what}: C[{i}][{j}] = {} vs {exact} (error {err:e} of Σ|a||b|)",
                c[i * n + j]
            );
        }
    }
    worst
}

/// The shape: M, N, K not multiples of the 32×32×32 (or 16×16×16) tiles, so masked loads
/// feed zeros to the tensor cores at the edges.
const DIMS: (usize, usize, usize) = (45, 38, 80);

/// f16 and bf16 inputs with f32 accumulators (`mma.m16n8k16.f32.f16.f16.f32`,
/// `.f32.bf16.bf16.f32`, A through `ldmatrix.x4`, B through `ldmatrix.x4.trans`): the
/// products are exact, so the error is the f32 accumulation's alone. Triton adds one
/// `mma` per 16 of K into its accumulator; each rounds once here (and, on a GPU, within a
/// few ulp of the sum's magnitude), so K/16 + 1 roundings of 2^-24 relative to Σ|a||b|,
/// with a factor 4 for a GPU's truncating alignment, bound the error.
#[test]
fn triton_dot_f16_and_bf16_with_f32_accumulators() {
    let bound = (DIMS.2 / 16 + 1) as f64 * 4.0 * 2f64.powi(-24);
    for (file, input) in [("dot_f16acc32_sm80", In::F16), ("dot_bf16_sm80", In::Bf16)] {
        let (a, b, c) = run_dot(file, input, DIMS, (32, 32));
        let worst = check_dot(file, (&a, &b, &c), DIMS, bound, |x| x);
        eprintln!("{file}: worst error {worst:e} of Σ|a||b| (bound {bound:e})");
        assert!(worst > 0.0, "{file}: some rounding expected");
    }
}

/// f16 accumulators (`mma.m16n8k16.f16.f16.f16.f16`): each `mma` rounds its sum to f16
/// (2^-11 relative), K/16 of them.
#[test]
fn triton_dot_f16_with_f16_accumulators() {
    let bound = (DIMS.2 / 16 + 1) as f64 * 2.0 * 2f64.powi(-11);
    let (a, b, c) = run_dot("dot_f16acc16_sm80", In::F16, DIMS, (32, 32));
    let worst = check_dot("dot_f16acc16", (&a, &b, &c), DIMS, bound, |x| x);
    eprintln!("dot_f16acc16: worst error {worst:e} of Σ|a||b| (bound {bound:e})");
    // Every value is an f16 (subnormal ones included: small sums land there).
    for &x in &c {
        assert!(is_f16(x), "{x} is not an f16 value");
    }
}

/// Whether `x` is an f16 value: a multiple of 2^-24 (the least subnormal) with at most 11
/// significant bits, at most 65504 in magnitude.
fn is_f16(x: f32) -> bool {
    let a = x.abs() as f64;
    let significant = |v: f64| {
        let e = v.log2().floor() as i32;
        let unit = 2f64.powi((e - 10).max(-24));
        (v / unit).fract() == 0.0
    };
    a == 0.0 || (a <= 65504.0 && significant(a))
}

/// `input_precision="tf32"` (`mma.m16n8k8.f32.tf32.tf32.f32` on raw f32 inputs, which the
/// tensor core reads to tf32's 10 fraction bits: 2^-10 relative each, so 2^-9 a product),
/// and `"ieee"` (`ldmatrix`, then f32 FMAs: K roundings of 2^-24).
#[test]
fn triton_dot_tf32_and_ieee() {
    let (a, b, c) = run_dot("dot_tf32_sm80", In::F32, DIMS, (16, 16));
    let loose = 2f64.powi(-9) + (DIMS.2 / 8 + 1) as f64 * 4.0 * 2f64.powi(-24);
    let worst = check_dot("dot_tf32 vs f32 inputs", (&a, &b, &c), DIMS, loose, |x| x);
    eprintln!("dot_tf32: worst error {worst:e} of Σ|a||b| against the f32 inputs (bound {loose:e})");
    // Against the inputs truncated to tf32 (the simulator's reading), only accumulation.
    let tf32 = |x: f64| f32::from_bits((x as f32).to_bits() & 0xffff_e000) as f64;
    let tight = (DIMS.2 / 8 + 1) as f64 * 2f64.powi(-24);
    check_dot("dot_tf32 vs tf32 inputs", (&a, &b, &c), DIMS, tight, tf32);
    let (a, b, c) = run_dot("dot_ieee_sm80", In::F32, DIMS, (16, 16));
    let bound = DIMS.2 as f64 * 2f64.powi(-24);
    let worst = check_dot("dot_ieee", (&a, &b, &c), DIMS, bound, |x| x);
    eprintln!("dot_ieee: worst error {worst:e} of Σ|a||b| (bound {bound:e})");
}

/// The corpus's one-warp Triton `matmul` (`tests/corpus/triton/matmul.ptx`: 16×16 f16 A and
/// B, f32 C, one `ldmatrix.x4`, one `ldmatrix.x4.trans`, two `mma.m16n8k16`): one `mma`
/// per output element, so one rounding of the exact sum.
#[test]
fn triton_corpus_matmul_rounds_each_sum_once() {
    let path = format!("{}/tests/corpus/triton/matmul.ptx", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let head = text.lines().next().unwrap();
    let module = parse(&text);
    let mut rng = Rng::fresh("triton_corpus_matmul_rounds_each_sum_once");
    let gen = |rng: &mut Rng| -> Vec<f64> {
        (0..256)
            .map(|_| ((rng.next() % 2047) as f64 - 1023.0) / 1024.0 * 2f64.powi(-((rng.next() % 5) as i32)))
            .collect()
    };
    let (a, b) = (gen(&mut rng), gen(&mut rng));
    let mem = Memory::new();
    let put = |v: &[f64]| upload(&mem, &v.iter().map(|&x| f16_bits(x as f32)).collect::<Vec<_>>(), 2);
    let (pa, pb) = (put(&a), put(&b));
    let pc = upload(&mem, &[0; 256], 4);
    let geometry = Geometry {
        grid: [1, 1, 1],
        block: [meta(head, "num_warps") * 32, 1, 1],
        dynamic_shared_bytes: meta(head, "shared"),
    };
    let options = SimOptions { global_race_check: true, ..SimOptions::default() };
    launch_with(module.kernel("matmul").unwrap(), &geometry, &[pa, pb, pc, 0, 0], &mem, 1, &options).unwrap();
    let c = download(&mem, pc, 256, 4);
    for i in 0..16 {
        for j in 0..16 {
            // Products of f16 values and their sum of 16 are exact in f64 here (at most 22 +
            // 8 + 4 bits): the correctly rounded f32 sum, bit for bit.
            let exact: f64 = (0..16).map(|x| a[i * 16 + x] * b[x * 16 + j]).sum();
            assert_eq!(f32::from_bits(c[i * 16 + j] as u32), exact as f32, "C[{i}][{j}]");
        }
    }
}

/// The error a launch of a block that is not a whole number of warps gives, for an
/// instruction that needs every lane (kept apart from the generic deadlock message).
#[test]
fn a_partial_warp_is_a_barrier_error() {
    let err = one_mma("", MMA, 48).unwrap_err();
    assert!(err.contains("warp of 16"), "{err}");
    let text = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n\
         \t.reg .b32 %r<16>;\n\t.reg .f32 %f<16>;\n\t{MMA}\n\tret;\n}}\n"
    );
    let m = parse(&text);
    let mem = Memory::new();
    match launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [20, 1, 1]), &[], &mem, 1) {
        Err(SimError::Barrier { .. }) => {}
        other => panic!("{other:?}"),
    }
}

/// Runs Triton fixture `file` (`C = A·B` of `dot_exact` in `kernels.py`) on `a` and `b`,
/// given as raw element bits of `bytes` bytes each, with C's elements of `c_bytes`; returns
/// C's raw bits.
fn run_exact_dot(file: &str, (a, b): (&[u64], &[u64]), bytes: usize, c_bytes: usize) -> Vec<u64> {
    let (m, n, k) = DIMS;
    let text = triton_text(file);
    let head = text.lines().next().unwrap();
    let module = parse(&text);
    let mem = Memory::new();
    let (pa, pb) = (upload(&mem, a, bytes), upload(&mem, b, bytes));
    let pc = upload(&mem, &vec![0; m * n], c_bytes);
    let geometry = Geometry {
        grid: [m.div_ceil(32) as u32, n.div_ceil(32) as u32, 1],
        block: [meta(head, "num_warps") * 32, 1, 1],
        dynamic_shared_bytes: meta(head, "shared"),
    };
    let options = SimOptions { global_race_check: true, ..SimOptions::default() };
    let kernel = module.kernel("dot_exact").unwrap();
    launch_with(kernel, &geometry, &[pa, pb, pc, m as u64, n as u64, k as u64, 0, 0], &mem, 2, &options)
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    download(&mem, pc, m * n, c_bytes)
}

/// Integer and f64 tensor cores, whose results are exact here, so every element of C must
/// equal the exact product: int8 inputs with int32 accumulators
/// (`mma.m16n8k32.satfinite.s32.s8.s8.s32`; |sums| stay far below 2^31) and f64 inputs of
/// integers below 2^10 (`mma.m8n8k4.f64`; every partial sum below 2^53 is exact). Triton
/// compiles these for the GPU, so their fragment layouts are checked here independently
/// of the simulator's own tables.
#[test]
fn triton_dot_int8_and_f64_are_exact() {
    let (m, n, k) = DIMS;
    let mut rng = Rng::fresh("triton_dot_int8_and_f64_are_exact");
    // `len` integers in `lo..=hi`.
    let ints = |rng: &mut Rng, len: usize, lo: i64, hi: i64| -> Vec<i64> {
        (0..len).map(|_| lo + (rng.next() % (hi - lo + 1) as u64) as i64).collect()
    };
    let exact = |a: &[i64], b: &[i64]| -> Vec<i64> {
        (0..m * n).map(|ij| (0..k).map(|x| a[ij / n * k + x] * b[x * n + ij % n]).sum()).collect()
    };
    // int8: the full range, -128 included.
    let (a, b) = (ints(&mut rng, m * k, -128, 127), ints(&mut rng, k * n, -128, 127));
    let bits = |v: &[i64]| v.iter().map(|&x| x as u8 as u64).collect::<Vec<_>>();
    let c = run_exact_dot("dot_int8_sm80", (&bits(&a), &bits(&b)), 1, 4);
    let got: Vec<i64> = c.iter().map(|&x| x as u32 as i32 as i64).collect();
    assert_eq!(got, exact(&a, &b), "int8 · int8 → int32");
    // f64: integers, so the products and sums are exact.
    let (a, b) = (ints(&mut rng, m * k, -1000, 1000), ints(&mut rng, k * n, -1000, 1000));
    let bits = |v: &[i64]| v.iter().map(|&x| (x as f64).to_bits()).collect::<Vec<_>>();
    let c = run_exact_dot("dot_f64_sm80", (&bits(&a), &bits(&b)), 8, 8);
    let got: Vec<f64> = c.iter().map(|&x| f64::from_bits(x)).collect();
    let want: Vec<f64> = exact(&a, &b).iter().map(|&x| x as f64).collect();
    assert_eq!(got, want, "f64 · f64 → f64");
}
