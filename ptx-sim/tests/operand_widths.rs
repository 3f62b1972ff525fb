//! Operand type and width checks, family by family: a register (or immediate) that ptxas
//! rejects with "Arguments mismatch" is an error at load naming the line and the operand,
//! never a run on its low bits; the edge ptxas still accepts loads (a wider register for
//! `ld.u8`, a `.b32` register for f32 math, a vector of integers for `ld.v2.f32`). Each
//! pair is also checked with ptxas when it is installed.

use ptx_sim::{launch, Geometry, Memory, Module, SimError};

/// The module around a case: one register file of every type (8 of each), a shared array,
/// and `%rd2` holding the output pointer. The case's statement is on line [`BODY_LINE`].
fn module(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n\
         .reg .pred %p<8>; .reg .b16 %hb<8>; .reg .u16 %hu<8>; .reg .s16 %hs<8>; .reg .f16 %hf<8>;\n\
         .reg .b32 %rb<8>; .reg .u32 %r<8>; .reg .s32 %rs<8>; .reg .f32 %f<8>;\n\
         .reg .b64 %db<8>; .reg .u64 %rd<8>; .reg .s64 %ds<8>; .reg .f64 %fd<8>;\n\
         .shared .align 8 .b8 sh[64];\n ld.param.u64 %rd2, [out];\n{body}\n ret;\n}}\n"
    )
}

/// The line of [`module`] that holds the case's statement.
const BODY_LINE: usize = 11;

/// One family: a form ptxas rejects, the operand its error must name, and the nearest
/// form ptxas accepts.
struct Case {
    rejected: &'static str,
    names: &'static str,
    accepted: &'static str,
}

/// Every family the decoder reads, rejected and accepted at the edge of its rule.
const CASES: &[Case] = &[
    // Float math: a register of the type's size, the float itself or a bit type.
    Case {
        rejected: "fma.rn.f32 %f1, %fd1, %fd2, %fd1;",
        names: "%fd1",
        accepted: "fma.rn.f32 %rb1, %rb1, %f2, %f1;",
    },
    Case { rejected: "neg.f32 %f1, %fd1;", names: "%fd1", accepted: "neg.f32 %rb1, %f1;" },
    Case { rejected: "abs.s32 %r1, %f1;", names: "%f1", accepted: "abs.s32 %rb1, %r1;" },
    Case { rejected: "not.b32 %r1, %rd1;", names: "%rd1", accepted: "not.b32 %f1, %r1;" },
    Case { rejected: "sqrt.rn.f32 %f1, %fd1;", names: "%fd1", accepted: "sqrt.rn.f32 %f1, %rb1;" },
    Case { rejected: "ex2.approx.f32 %r1, %f1;", names: "%r1", accepted: "ex2.approx.f32 %rb1, %f1;" },
    Case {
        rejected: "copysign.f64 %fd1, %f1, %fd2;",
        names: "%f1",
        accepted: "copysign.f64 %db1, %fd1, %db2;",
    },
    Case { rejected: "testp.finite.f32 %p1, %r1;", names: "%r1", accepted: "testp.finite.f32 %p1, %rb1;" },
    Case { rejected: "max.f32 %f1, %f2, %fd1;", names: "%fd1", accepted: "min.s64 %db1, %ds1, %rd1;" },
    // Integer math: `.uN` with `.sN`, no other size.
    Case {
        rejected: "mad.lo.u32 %r3, %rd1, %rd1, 1;",
        names: "%rd1",
        accepted: "mad.lo.u32 %r3, %rs1, %rb1, 1;",
    },
    Case {
        rejected: "mad.hi.s64 %rd1, %fd1, %rd2, %rd3;",
        names: "%fd1",
        accepted: "mad.hi.s64 %db1, %ds1, %rd2, %rd3;",
    },
    Case {
        rejected: "mad.wide.u32 %r1, %r2, %r2, %rd1;",
        names: "%r1",
        accepted: "mad.wide.u32 %db1, %rb2, %r2, %ds1;",
    },
    Case {
        rejected: "mul.wide.s16 %hs1, %hs2, %hs2;",
        names: "%hs1",
        accepted: "mul.wide.s16 %r1, %hu1, %hb1;",
    },
    Case {
        rejected: "mul24.lo.u32 %r1, %rd1, %r2;",
        names: "%rd1",
        accepted: "mad24.lo.s32 %r1, %rb1, %r2, %rs1;",
    },
    Case {
        rejected: "sad.u32 %r1, %r2, %r3, %hu1;",
        names: "%hu1",
        accepted: "sad.u32 %rs1, %r2, %rb3, %r1;",
    },
    Case { rejected: "shl.b32 %r1, %r2, %rd1;", names: "%rd1", accepted: "shl.b64 %rd1, %rd2, %rs1;" },
    // Comparisons and selections: sources of the compared type.
    Case { rejected: "setp.lt.f32 %p1, %fd1, %fd2;", names: "%fd1", accepted: "setp.lt.f32 %p1, %rb1, %f2;" },
    Case {
        rejected: "set.lt.u32.f32 %r1, %r2, %f2;",
        names: "%r2",
        accepted: "set.lt.u32.f32 %rs1, %rb1, %f2;",
    },
    Case {
        rejected: "selp.u32 %r1, %hu1, %r2, %p1;",
        names: "%hu1",
        accepted: "selp.u32 %rs1, %rb1, %r2, %p1;",
    },
    Case {
        rejected: "slct.u32.s32 %r1, %r1, %r2, %f1;",
        names: "%f1",
        accepted: "slct.f32.s32 %f1, %rb1, %f2, %r1;",
    },
    // Bit instructions: counts and positions are `.u32`.
    Case {
        rejected: "bfe.u32 %r1, %r2, %rd1, 4;",
        names: "%rd1",
        accepted: "bfe.s64 %ds1, %db1, %rs1, 255;",
    },
    Case {
        rejected: "bfi.b32 %r1, %r2, %hb1, 0, 8;",
        names: "%hb1",
        accepted: "bfi.b32 %f1, %r2, %rs1, 0, 8;",
    },
    Case { rejected: "popc.b64 %rd1, %rd2;", names: "%rd1", accepted: "popc.b64 %r1, %fd1;" },
    Case { rejected: "bfind.u32 %r1, %f1;", names: "%f1", accepted: "clz.b32 %rs1, %f1;" },
    Case {
        rejected: "prmt.b32 %r1, %r2, %r3, %rd1;",
        names: "%rd1",
        accepted: "prmt.b32 %f1, %r2, %rs1, %rb1;",
    },
    Case {
        rejected: "shf.l.wrap.b32 %r1, %r2, %r3, %f1;",
        names: "%f1",
        accepted: "shf.l.wrap.b32 %r1, %f2, %r3, %rs1;",
    },
    // Conversions: either side may be wider (a float only through a bit register).
    Case { rejected: "cvt.u32.u16 %hu1, %hu2;", names: "%hu1", accepted: "cvt.u16.u32 %rd1, %rb1;" },
    Case { rejected: "cvt.rn.f32.s32 %r1, %r2;", names: "%r1", accepted: "cvt.rn.f32.s32 %db1, %r2;" },
    Case { rejected: "cvt.rna.tf32.f32 %r1, %f1;", names: "%r1", accepted: "cvt.rna.tf32.f32 %rb1, %f1;" },
    // Memory: the data register may be wider, never narrower; addresses are integers.
    Case { rejected: "ld.global.f32 %fd1, [%rd2];", names: "%fd1", accepted: "ld.global.f32 %db1, [%rd2];" },
    Case { rejected: "ld.global.u8 %f1, [%rd2];", names: "%f1", accepted: "ld.global.u8 %rd1, [%rd2];" },
    Case { rejected: "st.shared.u32 [sh], %hu1;", names: "%hu1", accepted: "st.shared.u16 [sh], %rd1;" },
    Case { rejected: "ld.param.u64 %r1, [out];", names: "%r1", accepted: "ld.param.u32 %rd1, [out];" },
    Case {
        rejected: "ld.global.v2.u32 {%f1, %f2}, [%rd2];",
        names: "{%f1, %f2}",
        accepted: "ld.global.v2.f32 {%r1, %rs1}, [%rd2];",
    },
    Case {
        rejected: "ld.global.v2.u32 {%r1, %f1}, [%rd2];",
        names: "{%r1, %f1}",
        accepted: "ld.global.v2.u32 {%rb1, %f1}, [%rd2];",
    },
    Case {
        rejected: "st.global.v2.u16 [%rd2], {%hu1, %r1};",
        names: "{%hu1, %r1}",
        accepted: "st.global.v2.u16 [%rd2], {%r1, %rb1};",
    },
    Case { rejected: "ld.global.u32 %r1, [%f1];", names: "%f1", accepted: "ld.global.u32 %r1, [%rd2+-8];" },
    Case {
        rejected: "ld.global.L2::cache_hint.u32 %r1, [%rd2], %fd1;",
        names: "%fd1",
        accepted: "ld.global.L2::cache_hint.u32 %r1, [%rd2], %ds1;",
    },
    Case {
        rejected: "cvta.to.global.u64 %r1, %rd1;",
        names: "%r1",
        accepted: "cvta.to.global.u64 %db1, %ds1;",
    },
    Case { rejected: "isspacep.global %p1, %hu1;", names: "%hu1", accepted: "isspacep.global %p1, %r1;" },
    Case {
        rejected: "cp.async.ca.shared.global [sh], [%rd2], 4, %rd1;",
        names: "%rd1",
        accepted: "cp.async.ca.shared.global [sh], [%rd2], 4, %rs1;",
    },
    // Atomics: the value of the instruction's type.
    Case {
        rejected: "atom.global.add.u32 %rd1, [%rd2], 1;",
        names: "%rd1",
        accepted: "atom.global.add.u32 %rs1, [%rd2], %rb1;",
    },
    Case {
        rejected: "red.global.add.f32 [%rd2], %r1;",
        names: "%r1",
        accepted: "red.global.add.f32 [%rd2], %rb1;",
    },
    // Warp collectives: `shfl`'s lane and clamp are `.b32`, member masks `.u32`.
    Case {
        rejected: "shfl.sync.idx.b32 %r1, %rd1, 0, 31, -1;",
        names: "%rd1",
        accepted: "shfl.sync.idx.b32 %f1, %r1, %f2, 31, -1;",
    },
    Case {
        rejected: "vote.sync.ballot.b32 %r1, %p1, %f1;",
        names: "%f1",
        accepted: "vote.sync.ballot.b32 %f1, %p1, %rs1;",
    },
    Case {
        rejected: "redux.sync.add.u32 %r1, %f1, -1;",
        names: "%f1",
        accepted: "redux.sync.add.u32 %rs1, %rb1, -1;",
    },
    Case {
        rejected: "match.any.sync.b64 %r1, %r2, -1;",
        names: "%r2",
        accepted: "match.any.sync.b64 %rs1, %fd1, -1;",
    },
    // Packing: the elements neighbour by neighbour of one size and compatible types.
    Case {
        rejected: "mov.b64 %rd1, {%f1, %r2};",
        names: "{%f1, %r2}",
        accepted: "mov.b64 %fd1, {%f1, %rb2};",
    },
    // 16-bit floats: `.f16` or `.b16` registers, pairs in `.b32` ones, no immediates.
    Case { rejected: "add.f16x2 %r1, %rb2, %rb3;", names: "%r1", accepted: "add.f16x2 %rb1, %rb2, %rb3;" },
    Case {
        rejected: "max.NaN.f16 %hf1, %hf2, 0x7e00;",
        names: "0x7e00",
        accepted: "max.NaN.f16 %hf1, %hf2, %hb1;",
    },
    // Immediates: a float literal is no integer, an integer no float.
    Case {
        rejected: "st.global.u32 [%rd2], 0f00000001;",
        names: "0f00000001",
        accepted: "st.global.b32 [%rd2], 0f00000001;",
    },
    Case {
        rejected: "shfl.sync.idx.b32 %r1, %r2, 0, 31, 0f7FC00000;",
        names: "0f7FC00000",
        accepted: "shfl.sync.idx.b32 %r1, 0f7FC00000, 0, 31, -1;",
    },
    Case { rejected: "add.f32 %f1, %f2, 1;", names: "`1`", accepted: "add.f32 %f1, %f2, 0f3F800000;" },
    Case { rejected: "bfe.u32 %r3, %r4, 300, 4;", names: "300", accepted: "bfe.u32 %r3, %r4, 255, 4;" },
    // Addresses: a negative offset is `+-n`.
    Case {
        rejected: "ld.global.u32 %r3, [%rd2-8];",
        names: "[%rd2-8]",
        accepted: "ld.global.u32 %r3, [%rd2 + -8];",
    },
];

#[test]
fn rejected_forms_are_errors_naming_the_line_and_operand() {
    for c in CASES {
        match Module::parse(&module(c.rejected)) {
            Err(SimError::Parse { line, message }) => {
                assert_eq!(line, BODY_LINE, "{}: {message}", c.rejected);
                assert!(
                    message.contains(c.names),
                    "{}: the error does not name {}: {message}",
                    c.rejected,
                    c.names
                );
            }
            other => panic!("{}: expected a parse error, got {:?}", c.rejected, other.map(|_| ())),
        }
    }
}

#[test]
fn accepted_edges_load() {
    for c in CASES {
        if let Err(e) = Module::parse(&module(c.accepted)) {
            panic!("{}: {e}", c.accepted);
        }
    }
}

/// A register error says what the operand takes.
#[test]
fn register_errors_name_the_type_and_what_fits() {
    let Err(SimError::Parse { message, .. }) = Module::parse(&module("fma.rn.f32 %f1, %fd1, %f2, %f3;"))
    else {
        panic!("fma.rn.f32 with a .f64 register loaded");
    };
    assert!(message.contains(".f64 register") && message.contains(".b32 or .f32"), "{message}");
}

/// Both forms of every case, as ptxas sees them.
#[test]
fn ptxas_agrees_with_each_case() {
    let Some(ptxas) = ptx_tools::ptxas::ptxas_or_skip("ptxas_agrees_with_each_case") else { return };
    for c in CASES {
        let rejected = ptx_tools::ptxas::assemble(&ptxas, &module(c.rejected), "sm_80");
        assert!(rejected.is_err(), "ptxas accepts `{}`", c.rejected);
        if let Err(e) = ptx_tools::ptxas::assemble(&ptxas, &module(c.accepted), "sm_80") {
            panic!("ptxas rejects `{}`: {e}", c.accepted);
        }
    }
}

/// Runs `body` (after [`module`]'s prologue) on one thread and returns the first word of
/// `out`.
fn run(body: &str) -> u32 {
    let m = Module::parse(&module(body)).unwrap_or_else(|e| panic!("{body}: {e}"));
    let mem = Memory::new();
    let out = mem.alloc(8);
    let g = Geometry { grid: [1, 1, 1], block: [1, 1, 1], dynamic_shared_bytes: 0 };
    launch(m.kernel("k").unwrap(), &g, &[out], &mem, 1).unwrap_or_else(|e| panic!("{body}: {e}"));
    let mut b = [0u8; 4];
    mem.read(out, &mut b).unwrap();
    u32::from_le_bytes(b)
}

/// The accepted edges compute what the ISA says: a byte zero-extended into 64 bits, an f32
/// vector loaded into integer registers bit for bit, f32 math on `.b32` registers.
#[test]
fn accepted_edges_run_as_the_isa_says() {
    let byte = " st.global.u32 [%rd2], 0x1ff; ld.global.u8 %rd1, [%rd2]; cvt.u32.u64 %r1, %rd1;\n \
                st.global.u32 [%rd2], %r1;";
    assert_eq!(run(byte), 0xff);
    let lanes =
        " st.global.v2.f32 [%rd2], {0f3F800000, 0f40000000}; ld.global.v2.f32 {%r1, %rs1}, [%rd2];\n \
                 st.global.u32 [%rd2], %rs1;";
    assert_eq!(run(lanes), 2f32.to_bits());
    let bits = " mov.b32 %rb1, 0f40000000; fma.rn.f32 %rb2, %rb1, %rb1, %rb1; st.global.b32 [%rd2], %rb2;";
    assert_eq!(run(bits), 6f32.to_bits());
}
