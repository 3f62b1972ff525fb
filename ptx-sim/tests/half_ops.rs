//! 16-bit float arithmetic and comparison (`add sub mul fma neg abs min max set setp` on
//! `.f16`, `.bf16`, `.f16x2`, `.bf16x2`, with `.ftz`, `.sat`, `.relu` and `.NaN`, every
//! comparison) on random bit patterns — NaNs,
//! infinities, subnormals and signed zeros included — against a reference written here:
//! the exact result in f64 (an error-free TwoSum where f64 alone would round), rounded
//! once to the 16-bit format by integer arithmetic on its quantum. It shares no code with
//! `ptx_core::softfloat`, which the simulator uses.

mod common;

use std::cmp::Ordering;

use common::{download, geo, two_sum_err, upload};
use ptx_sim::{launch, Memory, Module};
use ptx_tools::rng::Rng;

/// Threads per launch (one element each).
const N: usize = 2048;

/// A 16-bit float format: significand bits after the point, smallest normal exponent,
/// largest exponent.
#[derive(Clone, Copy, PartialEq)]
struct Format {
    mant: i32,
    min_exp: i32,
    max_exp: i32,
}

const F16: Format = Format { mant: 10, min_exp: -14, max_exp: 15 };
const BF16: Format = Format { mant: 7, min_exp: -126, max_exp: 127 };
/// The NaN the hardware gives for both formats.
const CANONICAL_NAN: u16 = 0x7fff;

impl Format {
    fn exp_bits(self) -> u32 {
        15 - self.mant as u32
    }

    fn exp_mask(self) -> u16 {
        (((1u32 << self.exp_bits()) - 1) << self.mant) as u16
    }

    fn is_nan(self, v: u16) -> bool {
        v & self.exp_mask() == self.exp_mask() && v & ((1 << self.mant) - 1) != 0
    }

    /// The value of `v`.
    fn decode(self, v: u16) -> f64 {
        let sign = if v & 0x8000 != 0 { -1.0 } else { 1.0 };
        let e = ((v & 0x7fff) >> self.mant) as i32;
        let m = (v & ((1 << self.mant) - 1)) as f64;
        let bias = (1 << (self.exp_bits() - 1)) - 1;
        sign * match e {
            0 => m * 2f64.powi(self.min_exp - self.mant),
            _ if v & self.exp_mask() == self.exp_mask() => {
                if m == 0.0 {
                    f64::INFINITY
                } else {
                    f64::NAN
                }
            }
            _ => (m + 2f64.powi(self.mant)) * 2f64.powi(e - bias - self.mant),
        }
    }

    /// `x + err` (with `|err|` far below `x`'s quantum; only its sign matters) rounded to
    /// nearest, ties to even; NaN gives the canonical NaN.
    fn round(self, x: f64, err: f64) -> u16 {
        if x.is_nan() {
            return CANONICAL_NAN;
        }
        let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
        let inf = sign | self.exp_mask();
        let ax = x.abs();
        if ax == f64::INFINITY {
            return inf;
        }
        if ax == 0.0 {
            return sign;
        }
        let e = binade(ax).max(self.min_exp);
        let quantum = 2f64.powi(e - self.mant);
        let m = ax / quantum; // exact: a power-of-two scaling
        let k = m.floor();
        let towards_larger = (err * x.signum()).partial_cmp(&0.0).unwrap_or(Ordering::Equal);
        let k = match (m - k).partial_cmp(&0.5).unwrap() {
            Ordering::Greater => k + 1.0,
            Ordering::Less => k,
            Ordering::Equal => match towards_larger {
                Ordering::Greater => k + 1.0,
                Ordering::Less => k,
                Ordering::Equal => k + (k % 2.0),
            },
        };
        let v = k * quantum;
        if v >= 2f64.powi(self.max_exp + 1) {
            return inf;
        }
        sign | self.encode(v)
    }

    /// The bits of a positive value the format holds exactly.
    fn encode(self, v: f64) -> u16 {
        if self == BF16 {
            return ((v as f32).to_bits() >> 16) as u16;
        }
        if v < 2f64.powi(self.min_exp) {
            return (v / 2f64.powi(self.min_exp - self.mant)) as u16;
        }
        let e = binade(v);
        let m = v / 2f64.powi(e - self.mant) - 2f64.powi(self.mant);
        (((e + 15) as u16) << self.mant) | m as u16
    }

    /// The bits of 1.0.
    fn one_bits(self) -> u16 {
        self.round(1.0, 0.0)
    }

    /// A subnormal `v` as the zero of its sign.
    fn flush(self, v: u16) -> u16 {
        if v & self.exp_mask() == 0 {
            v & 0x8000
        } else {
            v
        }
    }
}

/// `e` with `2^e <= v < 2^(e+1)`, for a positive normal f64 (its exponent field).
fn binade(v: f64) -> i32 {
    ((v.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
    Fma,
    Neg,
    Abs,
    Min,
    Max,
    /// `set.cmp`: per lane, `truth` where the comparison holds, else 0.
    Set,
    /// `setp.cmp`, its predicates stored as 1 or 0 per lane.
    Setp,
}

/// One instruction form: the PTX opcode text and what the reference needs to know of it.
struct Form {
    text: String,
    op: Op,
    bf16: bool,
    pair: bool,
    ftz: bool,
    sat: bool,
    relu: bool,
    nan: bool,
    /// The comparison of `set`/`setp`.
    cmp: &'static str,
    /// What `set` writes where the comparison holds (1 for `setp`).
    truth: u16,
}

/// Every comparison PTX defines on floats.
const CMPS: [&str; 14] =
    ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"];

/// IEEE comparison `cmp`: the ordered ones fail on a NaN, the unordered (`u`) ones hold.
fn holds(cmp: &str, x: f64, y: f64) -> bool {
    let unordered = x.is_nan() || y.is_nan();
    match cmp {
        "eq" => x == y,
        "ne" => !unordered && x != y,
        "lt" => x < y,
        "le" => x <= y,
        "gt" => x > y,
        "ge" => x >= y,
        "equ" => unordered || x == y,
        "neu" => unordered || x != y,
        "ltu" => unordered || x < y,
        "leu" => unordered || x <= y,
        "gtu" => unordered || x > y,
        "geu" => unordered || x >= y,
        "num" => !unordered,
        "nan" => unordered,
        _ => unreachable!("{cmp}"),
    }
}

/// The PTX ISA's meaning of `form` on one 16-bit lane.
fn reference(form: &Form, a: u16, b: u16, c: u16) -> u16 {
    let f = if form.bf16 { BF16 } else { F16 };
    let input = |v: u16| if form.ftz { f.flush(v) } else { v };
    let (a, b, c) = (input(a), input(b), input(c));
    let (x, y, z) = (f.decode(a), f.decode(b), f.decode(c));
    let r = match form.op {
        Op::Add => {
            let s = x + y;
            f.round(s, two_sum_err(x, y, s))
        }
        Op::Sub => {
            let s = x - y;
            f.round(s, two_sum_err(x, -y, s))
        }
        Op::Mul => f.round(x * y, 0.0), // exact: at most 22 significant bits
        Op::Fma => {
            let p = x * y; // exact
            let s = p + z;
            f.round(s, two_sum_err(p, z, s))
        }
        Op::Set | Op::Setp => return if holds(form.cmp, x, y) { form.truth } else { 0 },
        Op::Neg => a ^ 0x8000,
        Op::Abs => a & 0x7fff,
        Op::Min | Op::Max => {
            let (an, bn) = (f.is_nan(a), f.is_nan(b));
            if (an && bn) || (form.nan && (an || bn)) {
                CANONICAL_NAN
            } else if an {
                b
            } else if bn {
                a
            } else {
                // -0 orders below +0.
                let key = |v: f64| (v, v.is_sign_positive());
                let a_smaller = key(x) < key(y);
                if a_smaller == (form.op == Op::Min) {
                    a
                } else {
                    b
                }
            }
        }
    };
    let r = if form.ftz { f.flush(r) } else { r };
    let r = if form.sat {
        match f.decode(r) {
            v if v.is_nan() || v <= 0.0 => 0,
            v if v >= 1.0 => f.round(1.0, 0.0),
            _ => r,
        }
    } else {
        r
    };
    if form.relu && r & 0x8000 != 0 && !f.is_nan(r) {
        0
    } else {
        r
    }
}

/// Every form to test.
fn forms() -> Vec<Form> {
    let mut v = Vec::new();
    for (ty, bf16, pair) in
        [("f16", false, false), ("bf16", true, false), ("f16x2", false, true), ("bf16x2", true, true)]
    {
        let mut add = |name: &str, op: Op, mods: &[&str]| {
            let has = |m: &str| mods.contains(&m);
            let mut text = name.to_string();
            for m in mods {
                text.push('.');
                text.push_str(m);
            }
            text.push('.');
            text.push_str(ty);
            v.push(Form {
                text,
                op,
                bf16,
                pair,
                ftz: has("ftz"),
                sat: has("sat"),
                relu: has("relu"),
                nan: has("NaN"),
                cmp: "",
                truth: 0,
            });
        };
        for (name, op) in [("add", Op::Add), ("sub", Op::Sub), ("mul", Op::Mul), ("fma", Op::Fma)] {
            add(name, op, &["rn"]);
            if !bf16 {
                add(name, op, &["rn", "ftz"]);
                add(name, op, &["rn", "sat"]);
                add(name, op, &["rn", "ftz", "sat"]);
            }
        }
        add("fma", Op::Fma, &["rn", "relu"]);
        for (name, op) in [("neg", Op::Neg), ("abs", Op::Abs)] {
            add(name, op, &[]);
            if !bf16 {
                add(name, op, &["ftz"]);
            }
        }
        for (name, op) in [("min", Op::Min), ("max", Op::Max)] {
            add(name, op, &[]);
            add(name, op, &["NaN"]);
            if !bf16 {
                add(name, op, &["ftz"]);
                add(name, op, &["ftz", "NaN"]);
            }
        }
    }
    // Comparisons: every one with a float result; a few with an integer result (all ones)
    // and as `setp`; `.ftz` where PTX has it (f16).
    for (ty, bf16, pair) in
        [("f16", false, false), ("bf16", true, false), ("f16x2", false, true), ("bf16x2", true, true)]
    {
        let one = if bf16 { 0x3f80 } else { 0x3c00 };
        let int = if pair { "u32" } else { "s16" };
        for cmp in CMPS {
            let few = matches!(cmp, "lt" | "neu" | "nan" | "ge");
            let mut cases = vec![(Op::Set, false, ty, one)];
            if few {
                cases.extend([(Op::Set, false, int, 0xffff), (Op::Setp, false, "", 1)]);
                if !bf16 {
                    cases.extend([(Op::Set, true, ty, one), (Op::Setp, true, "", 1)]);
                }
            }
            for (op, ftz, dst, truth) in cases {
                let name = if op == Op::Set { "set" } else { "setp" };
                let ftz_text = if ftz { ".ftz" } else { "" };
                let dst = if dst.is_empty() { String::new() } else { format!(".{dst}") };
                v.push(Form {
                    text: format!("{name}.{cmp}{ftz_text}{dst}.{ty}"),
                    op,
                    bf16,
                    pair,
                    ftz,
                    sat: false,
                    relu: false,
                    nan: false,
                    cmp,
                    truth,
                });
            }
        }
    }
    v
}

/// A kernel applying `form` to element `i` of three 32-bit arrays (16-bit forms use the
/// low half) and storing it to a fourth.
fn module_text(form: &Form) -> String {
    let (w, reg) = if form.pair { ("b32", "%r") } else { ("b16", "%h") };
    let instruction = match form.op {
        Op::Neg | Op::Abs => format!("{} {reg}0, {reg}1;", form.text),
        Op::Fma => format!("{} {reg}0, {reg}1, {reg}2, {reg}3;", form.text),
        // Lane predicates as 1/0 in each half.
        Op::Setp if form.pair => format!(
            "{} %p1|%p2, %r1, %r2;\n\tselp.b32 %r0, 1, 0, %p1;\n\t@%p2 or.b32 %r0, %r0, 0x10000;",
            form.text
        ),
        Op::Setp => format!("{} %p1, %h1, %h2;\n\tselp.b16 %h0, 1, 0, %p1;", form.text),
        _ => format!("{} {reg}0, {reg}1, {reg}2;", form.text),
    };
    format!(
        ".version 8.5\n.target sm_90\n.address_size 64\n\n\
         .visible .entry k(\n\t.param .u64 k_a,\n\t.param .u64 k_b,\n\t.param .u64 k_c,\n\t.param .u64 k_out\n)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b16 %h<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<16>;\n\
         \tld.param.u64 %rd1, [k_a];\n\tld.param.u64 %rd2, [k_b];\n\
         \tld.param.u64 %rd3, [k_c];\n\tld.param.u64 %rd4, [k_out];\n\
         \tmov.u32 %r4, %ctaid.x;\n\tmov.u32 %r5, %ntid.x;\n\tmov.u32 %r6, %tid.x;\n\
         \tmad.lo.u32 %r7, %r4, %r5, %r6;\n\tmul.wide.u32 %rd5, %r7, 4;\n\
         \tadd.u64 %rd6, %rd1, %rd5;\n\tadd.u64 %rd7, %rd2, %rd5;\n\
         \tadd.u64 %rd8, %rd3, %rd5;\n\tadd.u64 %rd9, %rd4, %rd5;\n\
         \tld.global.{w} {reg}1, [%rd6];\n\tld.global.{w} {reg}2, [%rd7];\n\tld.global.{w} {reg}3, [%rd8];\n\
         \t{instruction}\n\
         \tst.global.{w} [%rd9], {reg}0;\n\tret;\n}}\n",
    )
}

/// 16 random bits, biased towards the values rounding and ordering get wrong.
fn operand(r: &mut Rng, f: Format) -> u16 {
    let x = r.next();
    let bits = (x >> 16) as u16;
    match x % 8 {
        0 => [0, 0x8000, f.exp_mask(), 0x8000 | f.exp_mask(), 1, 0x8001, CANONICAL_NAN, 0xffff]
            [(x >> 8) as usize % 8],
        1 => bits & !f.exp_mask(),                             // zero or subnormal
        2 => (bits & 0x8000) | f.one_bits(),                   // ±1
        3 => (bits & 0x80ff) | (f.exp_mask() - (1 << f.mant)), // the largest binade
        _ => bits,
    }
}

#[test]
fn sixteen_bit_arithmetic_matches_its_definition() {
    let mut r = Rng::fresh("half_ops");
    let mem = Memory::new();
    for form in forms() {
        let f = if form.bf16 { BF16 } else { F16 };
        let lane = |r: &mut Rng| -> u64 {
            let lo = operand(r, f) as u64;
            if form.pair {
                lo | (operand(r, f) as u64) << 16
            } else {
                lo
            }
        };
        let mut a: Vec<u64> = (0..N).map(|_| lane(&mut r)).collect();
        let b: Vec<u64> = (0..N).map(|_| lane(&mut r)).collect();
        let c: Vec<u64> = (0..N).map(|_| lane(&mut r)).collect();
        // Every 16th element: b = -a, so sums and min/max meet equal magnitudes and ±0.
        for i in (0..N).step_by(16) {
            a[i] = b[i] ^ if form.pair { 0x8000_8000 } else { 0x8000 };
        }
        let bufs = [&a, &b, &c, &vec![0; N]].map(|v| upload(&mem, v, 4));
        let text = module_text(&form);
        let m = Module::parse(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", form.text));
        launch(m.kernel("k").unwrap(), &geo([(N / 256) as u32, 1, 1], [256, 1, 1]), &bufs, &mem, 2)
            .unwrap_or_else(|e| panic!("{}: {e}", form.text));
        let got = download(&mem, bufs[3], N, 4);
        let lanes = if form.pair { 2 } else { 1 };
        for i in 0..N {
            for l in 0..lanes {
                let part = |v: u64| (v >> (16 * l)) as u16;
                let want = reference(&form, part(a[i]), part(b[i]), part(c[i]));
                assert_eq!(
                    part(got[i]),
                    want,
                    "{} lane {l}: a {:#06x} b {:#06x} c {:#06x} ({} {} {}): got {:#06x}, want {want:#06x}",
                    form.text,
                    part(a[i]),
                    part(b[i]),
                    part(c[i]),
                    f.decode(part(a[i])),
                    f.decode(part(b[i])),
                    f.decode(part(c[i])),
                    part(got[i]),
                );
            }
        }
    }
}

/// Every form tested above is PTX that ptxas accepts for sm_90.
#[test]
fn the_forms_are_ptx() {
    let Some(path) = ptx_tools::ptxas::ptxas_or_skip("the_forms_are_ptx") else { return };
    for form in forms() {
        if let Err(e) = ptx_tools::ptxas::assemble(&path, &module_text(&form), "sm_90") {
            panic!("ptxas rejects `{}`: {e}", form.text);
        }
    }
}

/// The reference's own rounding, on values whose rounding is known: halfway cases go to
/// the even neighbour unless the error says which side the exact value is on; overflow,
/// subnormals and the smallest subnormal's half.
#[test]
fn the_reference_rounds_to_nearest_even() {
    assert_eq!(F16.round(1.0 + 2f64.powi(-11), 0.0), 0x3c00); // tie: to even (1.0)
    assert_eq!(F16.round(1.0 + 2f64.powi(-11), 1e-30), 0x3c01); // just above the tie
    assert_eq!(F16.round(1.0 + 3.0 * 2f64.powi(-11), 0.0), 0x3c02); // tie: to even
    assert_eq!(F16.round(-(1.0 + 2f64.powi(-11)), -1e-30), 0xbc01); // magnitude above
    assert_eq!(F16.round(65504.0, 0.0), 0x7bff);
    assert_eq!(F16.round(65520.0, 0.0), 0x7c00); // max + half an ulp: overflows
    assert_eq!(F16.round(65519.0, 0.0), 0x7bff);
    assert_eq!(F16.round(2f64.powi(-24), 0.0), 0x0001);
    assert_eq!(F16.round(2f64.powi(-25), 0.0), 0x0000); // tie with zero: to even
    assert_eq!(F16.round(2f64.powi(-25), 1e-60), 0x0001);
    assert_eq!(F16.round(2f64.powi(-14), 0.0), 0x0400);
    assert_eq!(BF16.round(1.0 + 2f64.powi(-8), 0.0), 0x3f80);
    assert_eq!(BF16.round(3.0e38, 0.0), ((3.0e38f32.to_bits() + 0x8000) >> 16) as u16);
    for v in [0x0001u16, 0x03ff, 0x0400, 0x3555, 0x7bff, 0xc000] {
        assert_eq!(F16.round(F16.decode(v), 0.0), v, "{v:#06x}");
    }
    for v in [0x0001u16, 0x007f, 0x0080, 0x3f80, 0x7f7f, 0xc2f7] {
        assert_eq!(BF16.round(BF16.decode(v), 0.0), v, "{v:#06x}");
        assert_eq!(BF16.decode(v), f32::from_bits((v as u32) << 16) as f64);
    }
}
