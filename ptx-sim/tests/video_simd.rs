//! The SIMD video instructions (`vadd4`, `vsub2`, `vavrg4`, `vabsdiff4`, `vmin2`, `vmax4`,
//! `vset4`, ... with `.sat`, `.add`, masks and selectors), run on random and edge operands
//! against host references written here independently:
//!
//! - `tests/data/video/simd.cu`, NVRTC's PTX of the CUDA C SIMD intrinsics for sm_80 and
//!   sm_90 (`vabsdiff4` for `__vabsdiffu4`/`__vabsdiffs4`/`__vsadu4`, `vabsdiff2.add` for
//!   `__vsadu2`, plain integer code for the rest), against the CUDA math API's definition
//!   of each intrinsic;
//! - `tests/data/video/hand.ptx`, one kernel per hand-written form (every operation, type
//!   combination and mode; masks and selectors drawn at random), assembled by ptxas,
//!   against the PTX ISA's semantics of the form;
//! - `tests/data/video/hand_scalar.ptx`, the same for the scalar `vadd`, `vsub`, `vabsdiff`,
//!   `vmin`, `vmax`, `vset` (selectors, `.sat`, `.add`/`.min`/`.max`, merges, an immediate);
//! - forms ptxas refuses, or whose meaning the PTX ISA leaves in doubt, refused by name.

use ptx_sim::{launch, Geometry, Memory, Module};
use ptx_tools::rng::Rng;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/video/");

/// Bytes at the edges of the signed and unsigned ranges.
const EDGE_BYTES: [u32; 6] = [0x00, 0x7f, 0x80, 0xff, 0x01, 0xfe];
/// Half-words at the edges of the signed and unsigned ranges.
const EDGE_HALVES: [u32; 6] = [0x0000, 0x7fff, 0x8000, 0xffff, 0x0001, 0xfffe];

/// `n` operand words: each pair of edge bytes (and of edge half-words) splatted across the
/// word, words of random edge bytes, then random words.
fn operands(rng: &mut Rng, n: usize) -> Vec<u32> {
    let mut v = Vec::with_capacity(n);
    for x in EDGE_BYTES {
        v.push(x * 0x0101_0101);
    }
    for x in EDGE_HALVES {
        v.push(x * 0x0001_0001);
    }
    while v.len() < n / 2 {
        let pick = |r: &mut Rng| EDGE_BYTES[(r.next() % 6) as usize];
        v.push((0..4).fold(0, |w, i| w | pick(rng) << (8 * i)));
    }
    while v.len() < n {
        v.push(rng.next() as u32);
    }
    v
}

/// Runs kernel `name` of `m` on `n` threads, each parameter but the last pointing at the
/// words of one of `args`, returning the `n` words it stores through the last.
fn run(m: &Module, name: &str, n: usize, args: &[&[u32]]) -> Vec<u32> {
    let k = m.kernel(name).unwrap_or_else(|| panic!("{name}: {:?}", m.unsupported(name)));
    let mem = Memory::new();
    let mut params: Vec<u64> = args
        .iter()
        .map(|words| {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let at = mem.alloc(bytes.len());
            mem.write(at, &bytes).unwrap();
            at
        })
        .collect();
    let out = mem.alloc(4 * n);
    params.push(out);
    let g = Geometry { grid: [1, 1, 1], block: [n as u32, 1, 1], dynamic_shared_bytes: 0 };
    launch(k, &g, &params, &mem, 1).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut b = vec![0u8; 4 * n];
    mem.read(out, &mut b).unwrap();
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Lane `i` (of `bits` bits) of `w`, unsigned or sign-extended.
fn lane(w: u32, i: u32, bits: u32, signed: bool) -> i64 {
    let x = (w >> (i * bits)) as u64 & ((1 << bits) - 1);
    if signed && x >> (bits - 1) == 1 {
        x as i64 - (1 << bits)
    } else {
        x as i64
    }
}

/// The word whose lane `i` is the low `bits` bits of `f(i)`.
fn assemble(bits: u32, f: impl Fn(u32) -> i64) -> u32 {
    (0..32 / bits).fold(0, |w, i| w | ((f(i) as u32) & ((1 << bits) - 1) as u32) << (i * bits))
}

/// Lane by lane: `f` of the lanes of `a` and `b`, signed or not.
fn lanewise(a: u32, b: u32, bits: u32, signed: bool, f: impl Fn(i64, i64) -> i64) -> u32 {
    assemble(bits, |i| f(lane(a, i, bits, signed), lane(b, i, bits, signed)))
}

/// The CUDA math API's definition of each intrinsic `simd.cu` calls (its "SIMD Intrinsics"
/// section: per-byte `4`, per-half-word `2`; `ss`/`us` saturate signed/unsigned; `__vset*`
/// give 1 for true, `__vcmp*` all ones; `__vsad*` sum the absolute differences).
fn intrinsic(name: &str, a: u32, b: u32) -> u32 {
    let bits = if name.ends_with('4') { 8 } else { 16 };
    let (smin, smax, umax) = (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1, (1i64 << bits) - 1);
    let stem = &name[..name.len() - 1];
    let u = |f: fn(i64, i64) -> i64| lanewise(a, b, bits, false, f);
    let s = |f: fn(i64, i64) -> i64| lanewise(a, b, bits, true, f);
    let set = |signed: bool, f: fn(i64, i64) -> bool, all: bool| {
        lanewise(a, b, bits, signed, |x, y| {
            if f(x, y) {
                if all {
                    -1
                } else {
                    1
                }
            } else {
                0
            }
        })
    };
    match stem {
        "__vabsdiffu" => u(|x, y| (x - y).abs()),
        "__vabsdiffs" => s(|x, y| (x - y).abs()),
        "__vsadu" => (0..32 / bits)
            .map(|i| (lane(a, i, bits, false) - lane(b, i, bits, false)).abs())
            .sum::<i64>() as u32,
        "__vadd" => u(|x, y| x + y),
        "__vsub" => u(|x, y| x - y),
        "__vaddss" => lanewise(a, b, bits, true, |x, y| (x + y).clamp(smin, smax)),
        "__vsubss" => lanewise(a, b, bits, true, |x, y| (x - y).clamp(smin, smax)),
        "__vaddus" => lanewise(a, b, bits, false, |x, y| (x + y).clamp(0, umax)),
        "__vsubus" => lanewise(a, b, bits, false, |x, y| (x - y).clamp(0, umax)),
        "__vavgu" => u(|x, y| (x + y + 1) / 2),
        // Signed rounded average: halves rounded away from zero.
        "__vavgs" => s(|x, y| {
            let t = x + y;
            if t >= 0 {
                (t + 1) / 2
            } else {
                (t - 1) / 2
            }
        }),
        "__vhaddu" => u(|x, y| (x + y) / 2),
        "__vminu" => u(|x, y| x.min(y)),
        "__vmins" => s(|x, y| x.min(y)),
        "__vmaxu" => u(|x, y| x.max(y)),
        "__vmaxs" => s(|x, y| x.max(y)),
        "__vseteq" => set(false, |x, y| x == y, false),
        "__vsetne" => set(false, |x, y| x != y, false),
        "__vsetltu" => set(false, |x, y| x < y, false),
        "__vsetles" => set(true, |x, y| x <= y, false),
        "__vsetgtu" => set(false, |x, y| x > y, false),
        "__vsetges" => set(true, |x, y| x >= y, false),
        "__vsetgts" => set(true, |x, y| x > y, false),
        "__vcmpeq" => set(false, |x, y| x == y, true),
        "__vcmpgtu" => set(false, |x, y| x > y, true),
        "__vcmplts" => set(true, |x, y| x < y, true),
        "__vcmpgeu" => set(false, |x, y| x >= y, true),
        "__vcmples" => set(true, |x, y| x <= y, true),
        _ => panic!("no reference for {name}"),
    }
}

#[test]
fn nvrtc_simd_intrinsics_for_sm_80_and_sm_90() {
    let mut rng = Rng::fresh("video_simd_nvrtc");
    let (a, b) = (operands(&mut rng, 256), operands(&mut rng, 256));
    // Every pair of edge words meets too: `b` rotated against `a`.
    let b: Vec<u32> = b.iter().cycle().skip(1).take(b.len()).copied().collect();
    let mut checked = 0;
    for file in ["simd_sm80.ptx", "simd_sm90.ptx"] {
        let ptx = std::fs::read_to_string(format!("{DATA}{file}")).unwrap();
        let m = Module::parse(&ptx).unwrap();
        let names: Vec<String> = m.kernel_names().map(str::to_string).collect();
        assert_eq!(names.len(), 47, "{file}");
        for name in &names {
            let got = run(&m, name, a.len(), &[&a, &b]);
            let intr = name.strip_prefix("k_").unwrap();
            for i in 0..a.len() {
                let want = intrinsic(intr, a[i], b[i]);
                assert_eq!(got[i], want, "{file} {intr}({:#010x}, {:#010x})", a[i], b[i]);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * 47 * 256);
}

/// The PTX ISA's semantics of a SIMD video instruction written as `form` (as in
/// `hand.ptx`: `vadd4.u32.s32.u32.sat %r4.b20, %r1.b7531, %r2, %r3`), on `a`, `b`, `c`.
fn isa_reference(form: &str, a: u32, b: u32, c: u32) -> u32 {
    let (opcode, operands) = form.split_once(' ').unwrap();
    let parts: Vec<&str> = opcode.split('.').collect();
    let name = parts[0];
    let (bits, nlanes) = if name.ends_with('4') { (8u32, 4u32) } else { (16, 2) };
    let op = &name[..name.len() - 1];
    let is_set = op == "vset";
    let types: Vec<bool> = parts[1..if is_set { 3 } else { 4 }].iter().map(|t| *t == "s32").collect();
    let (d_signed, a_signed, b_signed) =
        if is_set { (false, types[0], types[1]) } else { (types[0], types[1], types[2]) };
    let cmp = if is_set { parts[3] } else { "" };
    let sat = parts.contains(&"sat");
    let add = parts.contains(&"add");
    let ops: Vec<&str> = operands.split(", ").collect();
    let suffix = |tok: &str| tok.split_once('.').map(|(_, s)| s[1..].to_string());
    // Lane selectors list the highest lane first; the defaults are `b3210`/`b7654`
    // (`h10`/`h32`).
    let select = |tok: &str, default: &str| -> Vec<u32> {
        let digits = suffix(tok).unwrap_or_else(|| default.to_string());
        digits.chars().rev().map(|ch| ch.to_digit(10).unwrap()).collect()
    };
    let (adef, bdef, mdef) = if bits == 8 { ("3210", "7654", "3210") } else { ("10", "32", "10") };
    let (asel, bsel) = (select(ops[1], adef), select(ops[2], bdef));
    let mask: Vec<u32> =
        suffix(ops[0]).unwrap_or_else(|| mdef.to_string()).chars().map(|c| c.to_digit(10).unwrap()).collect();
    let ab = (b as u64) << 32 | a as u64;
    let pick = |sel: u32, signed: bool| {
        let x = (ab >> (sel * bits)) as i64 & ((1 << bits) - 1);
        if signed && x >= 1 << (bits - 1) {
            x - (1 << bits)
        } else {
            x
        }
    };
    let mut d: i64 = if add { c as i64 } else { 0 };
    for i in 0..nlanes {
        let (x, y) = (pick(asel[i as usize], a_signed), pick(bsel[i as usize], b_signed));
        let mut t = match op {
            "vadd" => x + y,
            "vsub" => x - y,
            "vavrg" if x + y >= 0 => (x + y + 1) >> 1,
            "vavrg" => (x + y) >> 1,
            "vabsdiff" => (x - y).abs(),
            "vmin" => x.min(y),
            "vmax" => x.max(y),
            "vset" => i64::from(match cmp {
                "eq" => x == y,
                "ne" => x != y,
                "lt" => x < y,
                "le" => x <= y,
                "gt" => x > y,
                "ge" => x >= y,
                _ => unreachable!(),
            }),
            _ => unreachable!("{op}"),
        };
        if sat {
            let (lo, hi) =
                if d_signed { (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) } else { (0, (1 << bits) - 1) };
            t = t.clamp(lo, hi);
        }
        let on = mask.contains(&i);
        let field = ((1i64 << bits) - 1) << (i * bits);
        if add {
            d += if on { t } else { 0 };
        } else if on {
            d |= (t << (i * bits)) & field;
        } else {
            d |= c as i64 & field;
        }
    }
    d as u32
}

/// Runs every form of `file` (a kernel `{prefix}{k}` per `// form: ` line, `forms` of them)
/// on 96 threads of random and edge words `a`, `b`, `c` (`seed` names the stream) and checks
/// each result against `reference`.
fn check_hand_forms(
    file: &str,
    forms: usize,
    prefix: &str,
    seed: &str,
    reference: fn(&str, u32, u32, u32) -> u32,
) {
    let ptx = std::fs::read_to_string(format!("{DATA}{file}")).unwrap();
    let lines: Vec<&str> = ptx.lines().filter_map(|l| l.strip_prefix("// form: ")).collect();
    assert_eq!(lines.len(), forms);
    let m = Module::parse(&ptx).unwrap();
    let mut rng = Rng::fresh(seed);
    let n = 96;
    let (a, b, c) = (operands(&mut rng, n), operands(&mut rng, n), operands(&mut rng, n));
    let (b, c): (Vec<u32>, Vec<u32>) = (
        b.iter().cycle().skip(1).take(n).copied().collect(),
        c.iter().cycle().skip(5).take(n).copied().collect(),
    );
    // Thread i reads a, b, c from words 3i .. 3i + 3.
    let abc: Vec<u32> = (0..n).flat_map(|i| [a[i], b[i], c[i]]).collect();
    let mut checked = 0;
    for (k, form) in lines.iter().enumerate() {
        let got = run(&m, &format!("{prefix}{k}"), n, &[&abc]);
        for i in 0..n {
            let want = reference(form, a[i], b[i], c[i]);
            assert_eq!(got[i], want, "{form} on a={:#010x} b={:#010x} c={:#010x}", a[i], b[i], c[i]);
            checked += 1;
        }
    }
    assert_eq!(checked, forms * n);
}

#[test]
fn hand_written_forms_of_every_operation_type_and_mode() {
    check_hand_forms("hand.ptx", 432, "k", "video_simd_hand", isa_reference);
}

/// The PTX ISA's semantics of a scalar video instruction written as `form` (as in
/// `hand_scalar.ptx`: `vsub.s32.u32.s32.sat %r4.h1, %r1.b2, %r2, %r3`), on `a`, `b`, `c`.
fn isa_scalar_reference(form: &str, a: u32, b: u32, c: u32) -> u32 {
    let (opcode, operands) = form.split_once(' ').unwrap();
    let parts: Vec<&str> = opcode.split('.').collect();
    let op = parts[0];
    let is_set = op == "vset";
    let ntypes = if is_set { 2 } else { 3 };
    let signed: Vec<bool> = parts[1..=ntypes].iter().map(|t| *t == "s32").collect();
    let (d_signed, a_signed, b_signed) =
        if is_set { (false, signed[0], signed[1]) } else { (signed[0], signed[1], signed[2]) };
    let mods = &parts[1 + ntypes..];
    let sat = mods.contains(&"sat");
    let secondary = mods.iter().find(|m| matches!(**m, "add" | "min" | "max"));
    let ops: Vec<&str> = operands.split(", ").collect();
    // (first bit, width) of a `.b0`..`.b3`/`.h0`/`.h1` selector; the whole word without.
    let sel = |tok: &str| match tok.split_once('.') {
        None => (0, 32),
        Some((_, s)) => {
            let k: u32 = s[1..].parse().unwrap();
            if s.starts_with('b') {
                (8 * k, 8)
            } else {
                (16 * k, 16)
            }
        }
    };
    let value = |tok: &str, word: u32, signed: bool| -> i64 {
        let (shift, width) = sel(tok);
        let x = (word as u64 >> shift) & ((1u64 << width) - 1);
        if signed && x >> (width - 1) == 1 {
            x as i64 - (1i64 << width)
        } else {
            x as i64
        }
    };
    // An immediate `b` (`-3`) is that value as a 32-bit word.
    let b = ops[2].parse::<i64>().map_or(b, |v| v as u32);
    let (ta, tb) = (value(ops[1], a, a_signed), value(ops[2].trim_start_matches('-'), b, b_signed));
    let mut tmp = match op {
        "vadd" => ta + tb,
        "vsub" => ta - tb,
        "vabsdiff" => (ta - tb).abs(),
        "vmin" => ta.min(tb),
        "vmax" => ta.max(tb),
        "vset" => i64::from(match parts[3] {
            "eq" => ta == tb,
            "ne" => ta != tb,
            "lt" => ta < tb,
            "le" => ta <= tb,
            "gt" => ta > tb,
            _ => ta >= tb,
        }),
        _ => unreachable!(),
    };
    let dsel = ops[0].split_once('.').map(|_| sel(ops[0]));
    if sat {
        let width = dsel.map_or(32, |(_, w)| w);
        let (lo, hi) = if d_signed {
            (-(1i64 << (width - 1)), (1i64 << (width - 1)) - 1)
        } else {
            (0, (1i64 << width) - 1)
        };
        tmp = tmp.clamp(lo, hi);
    }
    let tc = if d_signed { c as i32 as i64 } else { c as i64 };
    let d = match (secondary.copied(), dsel) {
        (Some("add"), _) => tmp + tc,
        (Some("min"), _) => tmp.min(tc),
        (Some("max"), _) => tmp.max(tc),
        (_, Some((shift, width))) => {
            let field = ((1i64 << width) - 1) << shift;
            (tmp << shift) & field | (c as i64 & !field)
        }
        _ => tmp,
    };
    d as u32
}

#[test]
fn hand_written_scalar_forms_of_every_operation_type_and_mode() {
    check_hand_forms("hand_scalar.ptx", 372, "s", "video_scalar_hand", isa_scalar_reference);
}

#[test]
fn forms_ptxas_refuses_or_the_isa_leaves_in_doubt_are_refused_by_name() {
    let cases = [
        // ptxas: "Illegal combination of .sat and .add modifiers".
        "vabsdiff4.u32.u32.u32.sat.add %r4, %r1, %r2, %r3;",
        "vadd2.s32.s32.s32.add.sat %r4, %r1, %r2, %r3;",
        // ptxas: registers only.
        "vadd4.u32.u32.u32 %r4, %r1, %r2, 5;",
        "vmin2.u32.u32.u32 %r4, 7, %r2, %r3;",
        // ptxas: "Incorrect video selector" / "Unknown video selector".
        "vadd4.u32.u32.u32 %r4.b02, %r1, %r2, %r3;",
        "vadd4.u32.u32.u32 %r4, %r1.b8000, %r2, %r3;",
        "vadd4.u32.u32.u32 %r4, %r1.b321, %r2, %r3;",
        "vmax2.u32.u32.u32 %r4, %r1.h4, %r2, %r3;",
        "vmax2.u32.u32.u32 %r4.b10, %r1, %r2, %r3;",
        "vsub4.u32.u32.u32 %r4, %r1, %r2, %r3.b3210;",
        // ptxas: missing types, a float comparison, `.sat` or `.max` on `vset`.
        "vadd4.u32 %r4, %r1, %r2, %r3;",
        "vset4.u32.u32.ltu %r4, %r1, %r2, %r3;",
        "vset4.u32.u32.lt.sat %r4, %r1, %r2, %r3;",
        "vset4.u32.u32.ne.max %r4, %r1, %r2, %r3;",
        // The PTX ISA's text fills the lanes a `vset` merge leaves from `b`, its semantics
        // from `c`: refused rather than guessed.
        "vset4.u32.u32.eq %r4.b10, %r1, %r2, %r3;",
        "vset2.s32.s32.gt %r4.h1, %r1, %r2, %r3;",
        // Scalar forms ptxas refuses: a destination selector without `c` or with a secondary
        // operation, a selector on `c`, a byte past `.b3`, a two-byte selector, `.sat` on
        // `vset`.
        "vabsdiff.s32.s32.s32 %r4.h0, %r1.b0, %r2.b2;",
        "vmax.s32.s32.s32.add %r4.h0, %r1.b0, %r2.b2, %r3;",
        "vadd.u32.u32.u32.add %r4, %r1, %r2, %r3.b0;",
        "vmin.s32.s32.s32 %r4, %r1.b4, %r2;",
        "vmin.s32.s32.s32 %r4, %r1.b10, %r2;",
        "vset.u32.s32.ge.sat %r4, %r1, %r2;",
        // ptxas takes a `c` with neither a secondary operation nor a merge; the PTX ISA gives
        // it no meaning.
        "vadd.u32.u32.u32 %r4, %r1, %r2, %r3;",
        // An opcode ending in a multi-byte character (fuzz_parse found the lane-count check
        // slicing inside one).
        "vabsdiff\u{e9}",
        // `vshl`, `vshr`, `vmad` are not supported yet.
        "vshl.u32.u32.u32.clamp %r4, %r1, %r2;",
        "vshr.s32.s32.u32.wrap %r4, %r1, %r2;",
        "vmad.u32.u32.u32 %r4, %r1, %r2, %r3;",
    ];
    for instr in cases {
        let ptx = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n .reg .b32 %r<8>;\n \
             mov.u32 %r1, 1;\n mov.u32 %r2, 2;\n mov.u32 %r3, 3;\n {instr}\n ret;\n}}\n"
        );
        // The module's only kernel refused: the whole module is.
        let e = match Module::parse(&ptx) {
            Err(e) => e.to_string(),
            Ok(m) => m.unsupported("k").map_or_else(|| panic!("{instr} was accepted"), |e| e.to_string()),
        };
        let opcode = instr.split(' ').next().unwrap();
        assert!(e.contains(opcode) && e.contains("line 10"), "{instr}: {e}");
    }
}
