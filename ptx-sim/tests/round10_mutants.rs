//! The tenth adversarial round: mutants of the real PTX fixtures (`tests/data`,
//! `tests/corpus`) that hung the parser, panicked a launch, or loaded although ptxas refuses
//! them with a meaning the simulator made up; each minimised to a small module. And one
//! randomized mutation test of the same kind, with a fresh seed per run.

use ptx_sim::{launch, launch_with, Geometry, Memory, Module, SimError, SimOptions};
use ptx_tools::rng::Rng;

fn one_block(threads: u32) -> Geometry {
    Geometry { grid: [1, 1, 1], block: [threads, 1, 1], dynamic_shared_bytes: 0 }
}

/// A module of one kernel `k(.param .u64 k_out)`, with `module` at module scope, `directives`
/// between the parameters and the body, and `body` before its `ret`.
fn kernel(module: &str, directives: &str, body: &str) -> String {
    format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n{module}\n.visible .entry k(\n\t.param .u64 k_out\n)\n\
         {directives}\n{{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\t.reg .f32 %f<4>;\n\t.reg .f64 %fd<4>;\n\
         \tld.param.u64 %rd1, [k_out];\n{body}\n\tret;\n}}\n"
    )
}

/// A device function recursing twice per call that declares `zz<N>` registers without `%`
/// (inline assembly's spelling: each one a register of its own name) was copied with all
/// of them at every inlined call, thousands of calls deep, before the kernel's register
/// count was checked: N = 1024 took 34 s and 2 GB (release build), N = 4096 minutes. The
/// count is now checked at each inlined call; the error names that call's line.
#[test]
fn recursion_declaring_many_registers_is_refused_at_the_call_that_passes_the_limit() {
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\n\
        .func (.param .b32 f_ret) f(.param .b32 f_a)\n{\n\
        \t.reg .b32 zz<1024>;\n\t.reg .b32 %r<4>;\n\tld.param.b32 %r1, [f_a];\n\
        \t{\n\t.param .b32 p;\n\t.param .b32 q;\n\tst.param.b32 [p], %r1;\n\tcall.uni (q), f, (p);\n\tld.param.b32 %r2, [q];\n\t}\n\
        \t{\n\t.param .b32 p;\n\t.param .b32 q;\n\tst.param.b32 [p], %r1;\n\tcall.uni (q), f, (p);\n\tld.param.b32 %r3, [q];\n\t}\n\
        \tadd.s32 %r1, %r2, %r3;\n\tst.param.b32 [f_ret], %r1;\n\tret;\n}\n\n\
        .visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\
        \t{\n\t.param .b32 p;\n\t.param .b32 q;\n\tst.param.b32 [p], %r1;\n\tcall.uni (q), f, (p);\n\t}\n\tret;\n}\n";
    let started = std::time::Instant::now();
    let err = Module::parse(ptx).unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, SimError::Unsupported { line: 14 | 21 | 36, .. })
            && text.contains("the call of `f`")
            && text.contains("2^20 registers"),
        "{text}"
    );
    // (About 1 s in a debug build; the bound only catches a return of the blow-up.)
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}

/// ptxas takes `.maxntid 4294967295, 4294967295, 4294967295`; the launch's check multiplied
/// the three in `u64` and overflowed (a panic in a debug build).
#[test]
fn a_maxntid_beyond_64_bits_of_threads_does_not_overflow_the_launch_check() {
    for directive in [".maxntid 4294967295, 4294967295, 4294967295", ".maxntid 4294967295, 4294967295"] {
        let m = Module::parse(&kernel("", directive, "\tst.global.u32 [%rd1], %r1;")).unwrap();
        let memory = Memory::new();
        let out = memory.alloc(4);
        launch(m.kernel("k").unwrap(), &one_block(64), &[out], &memory, 1).unwrap();
    }
}

/// `.maxntid 0`, `.reqntid 0, 1` and the like (ptxas: "Positive non-zero value expected")
/// loaded, and every launch of the kernel was then refused; now the module is, naming the
/// line, as `.reqnctapercluster 0` already was.
#[test]
fn zero_block_dimensions_are_refused_where_they_are_declared() {
    for directive in
        [".maxntid 0", ".maxntid 0, 0, 0", ".reqntid 0", ".reqntid 32, 0", ".reqnctapercluster 1, 0"]
    {
        match Module::parse(&kernel("", directive, "")) {
            Err(SimError::Parse { line: 8, message }) => {
                assert!(message.contains(directive) && message.contains("zero"), "{message}")
            }
            other => panic!("{directive}: {other:?}"),
        }
    }
    for directive in [".maxntid 1", ".reqntid 32, 1", ".reqnctapercluster 1"] {
        Module::parse(&kernel("", directive, "")).unwrap();
    }
}

/// `.align 3` and `.align 0` (ptxas: "Alignment must be a power of two") were taken on
/// `.global` and `.const` variables, and `.align 0` on `.shared`, `.local` and call `.param`
/// arrays as if no alignment were given (`.align 3` on those was already refused).
#[test]
fn alignments_that_are_no_power_of_two_are_refused_in_every_state_space() {
    let module_scope = [
        ".global .align 3 .b8 g[8];",
        ".global .align 0 .b8 g[8];",
        ".const .align 6 .u32 g[2] = {1, 2};",
        ".visible .global .align 0 .u32 g;",
    ];
    for decl in module_scope {
        match Module::parse(&kernel(decl, "", "\tmov.u64 %rd2, g;")) {
            Err(SimError::Parse { line: 4, message }) => {
                assert!(message.contains("power of two"), "{message}")
            }
            other => panic!("{decl}: {other:?}"),
        }
    }
    for decl in [
        "\t.shared .align 0 .b8 s[8];",
        "\t.local .align 0 .b8 s[8];",
        "\t{\n\t.param .align 0 .b8 s[8];\n\t}",
    ] {
        match Module::parse(&kernel("", "", decl)) {
            Err(SimError::Parse { message, .. }) => {
                assert!(message.contains("power of two"), "{decl}: {message}")
            }
            other => panic!("{decl}: {other:?}"),
        }
    }
    for decl in [".global .align 8 .b8 g[8];", ".const .align 1 .u32 g[2] = {1, 2};", ".global .u32 g;"] {
        Module::parse(&kernel(decl, "", "\tmov.u64 %rd2, g;")).unwrap();
    }
}

/// Runs `k` (which stores to its `k_out`) and returns the first 8 bytes it stored.
fn stored(ptx: &str) -> u64 {
    let m = Module::parse(ptx).unwrap_or_else(|e| panic!("{e}\n{ptx}"));
    let memory = Memory::new();
    let out = memory.alloc(8);
    launch(m.kernel("k").unwrap(), &one_block(1), &[out], &memory, 1).unwrap();
    let mut bytes = [0u8; 8];
    memory.read(out, &mut bytes).unwrap();
    u64::from_le_bytes(bytes)
}

/// A `0d` literal initialising a 32-bit variable: ptxas converts the double to `.f32`
/// (`0d3FF0000000000000` is 1.0f in the cubin); the simulator stored its low 32 bits, 0.
/// `0f` with other than 8 digits (ptxas: a syntax error) and `0f`/`0d` initialising an
/// integer variable (ptxas: "Initial value type mismatch") or a 16-bit one were taken too.
#[test]
fn float_bit_literals_initialise_variables_as_ptxas_does() {
    let load32 = "\tmov.u64 %rd2, g;\n\tld.global.b32 %r1, [%rd2];\n\tst.global.b32 [%rd1], %r1;";
    for (decl, bits) in [
        (".global .align 4 .f32 g = 0d3FF0000000000000;", 1.0f32.to_bits()),
        (".global .align 4 .b32 g = 0d3FF8000000000000;", 1.5f32.to_bits()),
        (".global .align 4 .f32 g = 0f3F800000;", 1.0f32.to_bits()),
        (".global .align 4 .f32 g = 0d7FF0000000000000;", f32::INFINITY.to_bits()),
        (".global .align 4 .f32 g = 0d4000000000000001;", 2.0f32.to_bits()),
    ] {
        assert_eq!(stored(&kernel(decl, "", load32)) as u32, bits, "{decl}");
    }
    let load64 = "\tmov.u64 %rd2, g;\n\tld.global.b64 %rd3, [%rd2];\n\tst.global.b64 [%rd1], %rd3;";
    for (decl, bits) in [
        (".global .align 8 .f64 g = 0d3FF0000000000000;", 1.0f64.to_bits()),
        // (ptxas stores an `0f` literal's bits zero-extended in a 64-bit variable.)
        (".global .align 8 .f64 g = 0f3FC00000;", 0x3fc0_0000),
    ] {
        assert_eq!(stored(&kernel(decl, "", load64)), bits, "{decl}");
    }
    for decl in [
        ".global .align 4 .f32 g = 0f1;",
        ".global .align 4 .f32 g = 0f3F80000;",
        ".global .align 4 .f32 g = 0f3F8000000;",
        ".global .align 8 .f64 g = 0d3FF000000000000;",
        ".global .align 4 .u32 g = 0f3F800000;",
        ".global .align 8 .s64 g = 0d3FF0000000000000;",
        ".global .align 2 .b16 g = 0f3F800000;",
    ] {
        match Module::parse(&kernel(decl, "", "\tmov.u64 %rd2, g;")) {
            Err(SimError::Unsupported { line: 4, what }) => assert!(what.contains("initial value"), "{what}"),
            other => panic!("{decl}: {other:?}"),
        }
    }
}

/// The fixtures the randomized test mutates: every `.ptx` under `tests/data` and
/// `tests/corpus` small enough to parse quickly in a debug build.
fn fixtures() -> Vec<(String, String)> {
    fn walk(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        let mut paths: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "ptx") {
                let text = std::fs::read_to_string(&p).unwrap();
                // (The recursion fixtures take about a second each to inline in debug.)
                if text.len() < 40_000 && !text.contains("call.uni") {
                    out.push((p.display().to_string(), text));
                }
            }
        }
    }
    let mut out = Vec::new();
    for d in ["tests/data", "tests/corpus"] {
        walk(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(d), &mut out);
    }
    out
}

/// Replacements for integer literals, type suffixes, directives and inserted lines: the
/// boundary values and the declarations the round's mutants were made of.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "3",
    "1025",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775808",
    "18446744073709551617",
    "99999999999999999999999",
];
const SUFFIXES: &[&str] = &["u32", "f64", "b8", "pred", "v4", "v8", "b128", "f16", "s64", "x"];
const LINES: &[&str] = &[
    ".shared .align 4 .b8 zz_s[4294967296];",
    ".shared .align 2147483648 .b8 zz_s[4];",
    ".local .align 8 .b8 zz_l[4294967295];",
    ".reg .b32 %zz<4000000000>;",
    ".reg .b64 zz<65536>;",
    ".param .align 8 .b8 zz_p[4294967295];",
    ".global .align 4 .b8 zz_g[1099511627776];",
    ".maxntid 4294967295, 4294967295, 4294967295",
    ".reqntid 0",
    "bar.sync 0, 4294967295;",
    "$L__zz: bra.uni $L__zz;",
    "{",
    "}",
];

/// One to three edits of `text`: a token deleted, duplicated or replaced by a boundary
/// number or another type suffix; a line deleted, duplicated or swapped; a line inserted.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let pick = |n: usize, rng: &mut Rng| (rng.next() % n.max(1) as u64) as usize;
    for _ in 0..1 + rng.next() % 3 {
        let at = pick(lines.len(), rng);
        match rng.next() % 6 {
            0 => {
                lines.remove(at);
            }
            1 => {
                let l = lines[at].clone();
                let to = pick(lines.len(), rng);
                lines.insert(to, l);
            }
            2 => {
                let to = pick(lines.len(), rng);
                lines.swap(at, to);
            }
            3 => {
                let l = LINES[pick(LINES.len(), rng)].to_string();
                lines.insert(at, l);
            }
            _ => {
                // A word of the line: a number becomes a boundary value, a dotted word
                // loses or changes a suffix, anything else is deleted.
                let words: Vec<String> =
                    lines[at].split_inclusive([' ', '\t', ',', '[', ']', ';']).map(String::from).collect();
                if words.is_empty() {
                    continue;
                }
                let w = pick(words.len(), rng);
                let mut words = words;
                let (core, tail) =
                    words[w].split_at(words[w].trim_end_matches([' ', '\t', ',', '[', ']', ';']).len());
                let core = if core.bytes().next().is_some_and(|c| c.is_ascii_digit() || c == b'-') {
                    NUMBERS[pick(NUMBERS.len(), rng)].to_string()
                } else if let Some((head, _)) = core.rsplit_once('.') {
                    format!("{head}.{}", SUFFIXES[pick(SUFFIXES.len(), rng)])
                } else {
                    String::new()
                };
                words[w] = format!("{core}{tail}");
                lines[at] = words.concat();
            }
        }
    }
    lines.join("\n")
}

/// Mutants of the fixtures parse to a module or an error, never a panic; what loads runs
/// on small grids to an `Ok` or an error within a small step budget, never a panic. (The
/// round's scratch fuzzer ran 60 000 such mutants in a release build, each under a deadline
/// and a cap on single allocations; this runs at least 100 and up to 2 000, for 8 s, a fresh
/// seed each run: the count, not the machine's speed, decides the least it checks.)
#[test]
fn mutants_of_the_fixtures_never_panic() {
    let files = fixtures();
    assert!(files.len() > 100, "{} fixtures", files.len());
    let mut rng = Rng::fresh("round10_mutants");
    let started = std::time::Instant::now();
    let mut mutants = 0;
    while mutants < 100 || (started.elapsed().as_secs() < 8 && mutants < 2000) {
        let (path, base) = &files[(rng.next() % files.len() as u64) as usize];
        let text = mutate(base, &mut rng);
        mutants += 1;
        let run = std::panic::catch_unwind(|| {
            let Ok(m) = Module::parse(&text) else { return };
            for k in m.kernel_names().take(2).filter_map(|n| m.kernel(n)) {
                let memory = Memory::new();
                let params: Vec<u64> = k
                    .params()
                    .iter()
                    .map(|p| match p.ty.bits() {
                        64 => memory.alloc(1 << 16),
                        32 => 64,
                        _ => 1,
                    })
                    .collect();
                let options = SimOptions { step_budget: 20_000, ..Default::default() };
                let geometry = Geometry { grid: [2, 1, 1], block: [32, 1, 1], dynamic_shared_bytes: 256 };
                let _ = launch_with(k, &geometry, &params, &memory, 1, &options);
            }
        });
        if run.is_err() {
            let saved = std::env::temp_dir().join("ptx_sim_round10_panic.ptx");
            std::fs::write(&saved, &text).ok();
            panic!("a mutant of {path} panicked; it is in {}", saved.display());
        }
    }
}
