//! Malformed PTX text must give `Err`, never a panic: truncated and garbled versions of
//! printed kernels and of Triton's PTX go through `Module::parse` (and, when they still parse, the kernel
//! lookup and its parameter list; launching them waits for the simulator's step budget,
//! since a garbled branch can loop forever); hand-written malformed statements must be
//! rejected, and the offset spellings ptxas takes accepted.

use ptx_sim::{launch, Geometry, Memory, Module};
use ptx_tools::rng::Rng;

/// The texts to garble, each with its number of truncations and of garbled copies: the
/// printed catalog of every form, and (fewer each) Triton's PTX in `corpus/triton`
/// (inline assembly, cache policies, debug sections).
fn corpus() -> Vec<(String, usize, usize)> {
    let cat = ptx_tools::coverage::every_form();
    let mut texts = vec![(ptx_core::print::kernel_ptx(&cat.ir, ptx_core::Target::SM_80), 120, 500)];
    let triton = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/triton");
    let mut paths: Vec<_> = std::fs::read_dir(triton).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    texts.extend(
        paths
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
            .map(|p| (std::fs::read_to_string(p).unwrap(), 8, 30)),
    );
    texts
}

fn try_all(text: &str) {
    let r = std::panic::catch_unwind(|| {
        if let Ok(m) = Module::parse(text) {
            for name in m.kernel_names().map(String::from).collect::<Vec<_>>() {
                let _ = m.kernel(&name).map(|k| k.params().len());
            }
        }
    });
    if r.is_err() {
        std::fs::write(std::env::temp_dir().join("ptx_sim_fuzz_panic.ptx"), text).ok();
        panic!("parse panicked; text saved");
    }
}

#[test]
fn garbled_text_never_panics() {
    let mut rng = Rng::fresh("garbled_text");
    for (base, truncations, garbles) in corpus() {
        let bytes = base.as_bytes();
        for _ in 0..truncations {
            let cut = (rng.next() % bytes.len() as u64) as usize;
            try_all(&String::from_utf8_lossy(&bytes[..cut]));
        }
        let specials = [
            "[",
            "]",
            "{",
            "}",
            "%",
            "-",
            "+",
            ",",
            ";",
            "@",
            "!",
            ".",
            "é",
            "0x",
            "0f",
            " ",
            "\n",
            "<",
            ">",
            ":",
            "[]",
            "[-",
            "99999999999999999999",
        ];
        for _ in 0..garbles {
            let mut s: Vec<char> = base.chars().collect();
            for _ in 0..1 + rng.next() % 4 {
                let at = (rng.next() % s.len() as u64) as usize;
                match rng.next() % 3 {
                    0 => {
                        s.remove(at);
                    }
                    1 => {
                        let ins = specials[(rng.next() % specials.len() as u64) as usize];
                        for (k, c) in ins.chars().enumerate() {
                            s.insert(at + k, c);
                        }
                    }
                    _ => {
                        let end = (at + (rng.next() % 40) as usize).min(s.len());
                        s.drain(at..end);
                    }
                }
            }
            try_all(&s.into_iter().collect::<String>());
        }
    }
}

fn mini(body: &str) -> String {
    format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n\t.reg .pred %p<4>;\n\t.reg .u32 %r<8>;\n\t.reg .u64 %rd<8>;\n\t.reg .s16 %sh<4>;\n\t.reg .f32 %f<4>;\n\n{body}\n\tret;\n}}\n"
    )
}

#[test]
fn negative_offsets_parse_in_every_spelling_ptxas_takes() {
    for body in [
        "\tld.global.u32 %r1, [%rd1+-4];",
        "\tld.global.u32 %r1, [%rd1 + -4];",
        "\tld.global.u32 %r1, [%rd1+0x10];",
        // The offset is a constant expression: `++4` is `+(+4)` to ptxas 13.5.
        "\tld.global.u32 %r1, [%rd1++4];",
        "\tld.global.u32 %r1, [%rd1+2*-2];",
    ] {
        assert!(Module::parse(&mini(body)).is_ok(), "{body:?}");
    }
    // (`[%rd1-4]` is ptxas's "Parsing error near '-'".)
    for body in [
        "\tld.global.u32 %r1, [%rd1-4];",
        "\tld.global.u32 %r1, [%rd1--4];",
        "\tld.global.u32 %r1, [%rd1+0x+4];",
    ] {
        assert!(Module::parse(&mini(body)).is_err(), "{body:?}");
    }
}

#[test]
fn handwritten_malformed_statements_are_errors() {
    for body in [
        "\tld.global.u32 %r1, [];",
        "\tld.global.u32 %r1, [é];",
        "\tld.global.u32 %r1, [é+4];",
        "\tld.global.u32 %r1, [%rd1+];",
        "\tld.global.u32 %r1, [+4];",
        "\tld.global.u32 %r1, [-];",
        "\tld.global.u32 %r1, [%rd1+0x];",
        "\tld.global.u32 %r1, [%rd1--9223372036854775808];",
        "\tld.global.u32 %r1, [%rd1+-9223372036854775808];",
        "\tst.global.u32 [%rd1], ;",
        "\tst.global.v2.u32 [%rd1], {};",
        "\tst.global.v2.u32 [%rd1], {%r1,};",
        "\tadd.u32 %r1, %r2, 0x;",
        "\tadd.u32 %r1, %r2, -;",
        "\tadd.u32 %r1, %r2, %;",
        "\tadd.u32 %r1, %r2, %r;",
        "\tadd.u32 %r1, %r2, %r99999999999999;",
        "\t@ add.u32 %r1, %r2, 1;",
        "\t@! add.u32 %r1, %r2, 1;",
        "\t@%p1;",
        "\tmov.f32 %f1, 0f;",
        "\tmov.f32 %f1, 0fé0000000;",
        "\tmov.f32 %f1, 0f+0000000;",
        "\tmov.u32 %r1, é;",
        "\tbra ;",
        "\tbra $L9;",
        "\tshfl.sync.idx.b32 %r1, %r2, 1, 31;",
        "\tcvt.f32;",
        "\tcvt..;",
        "\t.;",
        "\t;",
        "\tbar.sync é;",
        "\tatom.global.add.u32 %r1, [], 1;",
        "\tsetp.lt.u32 %p1|%r1, %r1, 1;",
        "\tsetp.lt.and.u32 %p1|%p2, %r1, 1;",
        "\tmov.u32 %r1, %tid.x.y;",
    ] {
        let text = mini(body);
        match std::panic::catch_unwind(|| Module::parse(&text).is_ok()) {
            Err(_) => panic!("parse panicked on {body:?}"),
            Ok(parsed) => assert!(!parsed, "{body:?} is malformed, but it parses"),
        }
    }
}

/// Static shared arrays whose offsets overflow 32 bits, or exceed ptxas's 48 KiB, are an
/// error at parse time (they used to overflow the offset arithmetic), and a launch asking
/// for more shared memory than any GPU has is a `BadParams` error, not a huge allocation.
#[test]
fn oversized_shared_memory_is_an_error() {
    for decls in [
        "\t.shared .align 1 .b8 k_smem0[4294967295];\n\t.shared .align 2 .b8 k_smem1[1];",
        "\t.shared .align 16 .b8 k_smem0[49153];",
        "\t.shared .align 16 .b8 k_smem0[40000];\n\t.shared .align 16 .b8 k_smem1[10000];",
    ] {
        let text = mini(&format!("{decls}\n\tmov.u32 %r1, k_smem0;"));
        let r = std::panic::catch_unwind(|| Module::parse(&text).map(|_| ()));
        match r {
            Ok(Err(_)) => {}
            Ok(Ok(())) => panic!("accepted {decls:?}"),
            Err(_) => panic!("panicked on {decls:?}"),
        }
    }
    let text = mini("\t.shared .align 16 .b8 k_smem0[49152];\n\tmov.u32 %r1, k_smem0;");
    let m = Module::parse(&text).unwrap();
    let k = m.kernel("k").unwrap();
    assert_eq!(k.static_shared_bytes(), 49152);
    let mem = Memory::new();
    let buf = mem.alloc(4);
    let ok = Geometry { grid: [1, 1, 1], block: [1, 1, 1], dynamic_shared_bytes: 227 * 1024 - 49152 };
    launch(k, &ok, &[buf], &mem, 1).unwrap();
    let too_much = Geometry { dynamic_shared_bytes: u32::MAX, ..ok };
    assert!(matches!(launch(k, &too_much, &[buf], &mem, 1), Err(ptx_sim::SimError::BadParams { .. })));
}

/// Forms the PTX ISA does not define (ptxas rejects each one) are unsupported, not run
/// with a meaning made up for them; the defined neighbours load.
#[test]
fn forms_ptx_does_not_define_are_unsupported() {
    for body in [
        "\tneg.u32 %r1, %r2;",
        "\tneg.b32 %r1, %r2;",
        "\tabs.u32 %r1, %r2;",
        "\tabs.b32 %r1, %r2;",
        "\tnot.u32 %r1, %r2;",
        "\tnot.s32 %r1, %r2;",
        "\tnot.f32 %f1, %f2;",
        "\tcvt.rn.f32.f32 %f1, %f2;",
        "\tcvt.f32.b32 %f1, %r2;",
        "\tcvt.u32.b32 %r1, %r2;",
        "\tcvt.rn.u32.s16 %r1, %sh1;",
        "\tcvt.u32.f32 %r1, %f2;",
        "\tcvt.f32.u32 %f1, %r2;",
        "\tmin.relu.f16x2 %r1, %r2, %r3;",
        "\tmax.relu.bf16x2 %r1, %r2, %r3;",
    ] {
        match Module::parse(&mini(body)) {
            Err(ptx_sim::SimError::Unsupported { what, .. }) => assert!(!what.is_empty(), "{body:?}"),
            other => panic!("{body:?}: expected Unsupported, got {other:?}"),
        }
    }
    for body in [
        "\tneg.s32 %r1, %r2;",
        "\tabs.s16 %sh1, %sh2;",
        "\tnot.b32 %r1, %r2;",
        "\tnot.pred %p1, %p2;",
        "\tcvt.rni.f32.f32 %f1, %f2;",
        "\tcvt.u32.s16 %r1, %sh1;",
        "\tcvt.rzi.u32.f32 %r1, %f2;",
        "\tcvt.rn.f32.u32 %f1, %r2;",
        // (A pair of halves is held in a `.b32` register: ptxas takes no `.u32` one.)
        "\t{ .reg .b32 %b<4>; fma.rn.relu.f16x2 %b0, %b1, %b2, %b3; }",
    ] {
        assert!(Module::parse(&mini(body)).is_ok(), "{body:?}");
    }
}
