//! `printf` formats end to end: a kernel calls `vprintf` with a format string in global
//! memory and its arguments in a `.local` buffer laid out as CUDA lays them out (`*` widths
//! and precisions as 4-byte `int`s before their value, a `double` at 8-byte alignment), and
//! the simulator prints what glibc prints for the same call. The formatter's conversions
//! themselves are compared with glibc in `ptx-sim/src/printf.rs`'s tests.

mod common;

use common::{download, geo, upload};
use ptx_sim::{launch, Memory, Module};

/// The review's `*` cases in one call: `printf(FORMAT, 5, 42, 7, 8, 2, 3.14159, 9)`.
const FORMAT: &str = "A[%*d|%d] B[%-*.*f|%d]\n";

/// A kernel that calls `vprintf(FORMAT, args)` with `args` at the start of its `.local`
/// depot (ints at 0, 4, 8, 12 and 16, the double at 24, the last int at 32) and stores the
/// call's result (the arguments read) to its one parameter.
fn kernel() -> String {
    let bytes: Vec<String> = FORMAT.bytes().chain([0]).map(|b| b.to_string()).collect();
    format!(
        ".version 8.5\n.target sm_80\n.address_size 64\n\n\
         .extern .func (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n\
         \t.param .b64 vprintf_param_1\n)\n;\n\
         .global .align 1 .b8 $str[{}] = {{{}}};\n\n\
         .visible .entry stars(\n\t.param .u64 stars_param_0\n)\n{{\n\
         \t.local .align 16 .b8 \t__local_depot0[48];\n\t.reg .b32 \t%r<12>;\n\t.reg .f64 \t%fd<2>;\n\
         \t.reg .b64 \t%rd<8>;\n\n\
         \tmov.u64 \t%rd1, __local_depot0;\n\tcvta.local.u64 \t%rd2, %rd1;\n\
         \tmov.u32 \t%r1, 5;\n\tmov.u32 \t%r2, 42;\n\tmov.u32 \t%r3, 7;\n\tmov.u32 \t%r4, 8;\n\
         \tst.local.v4.u32 \t[%rd1], {{%r1, %r2, %r3, %r4}};\n\
         \tmov.u32 \t%r5, 2;\n\tst.local.u32 \t[%rd1+16], %r5;\n\
         \tmov.f64 \t%fd1, 0d400921F9F01B866E;\n\tst.local.f64 \t[%rd1+24], %fd1;\n\
         \tmov.u32 \t%r6, 9;\n\tst.local.u32 \t[%rd1+32], %r6;\n\
         \tmov.u64 \t%rd3, $str;\n\tcvta.global.u64 \t%rd4, %rd3;\n\
         \t{{\n\t.param .b64 param0;\n\tst.param.b64 \t[param0+0], %rd4;\n\
         \t.param .b64 param1;\n\tst.param.b64 \t[param1+0], %rd2;\n\t.param .b32 retval0;\n\
         \tcall.uni (retval0), vprintf, (param0, param1);\n\tld.param.b32 \t%r7, [retval0+0];\n\t}}\n\
         \tld.param.u64 \t%rd5, [stars_param_0];\n\tcvta.to.global.u64 \t%rd6, %rd5;\n\
         \tst.global.u32 \t[%rd6], %r7;\n\tret;\n}}\n",
        bytes.len(),
        bytes.join(", ")
    )
}

/// `*` widths and precisions read their `int` arguments from the buffer before the value,
/// so every later conversion reads its own argument; `vprintf` returns the 7 arguments read.
#[test]
fn star_widths_and_precisions_read_their_arguments_from_the_buffer() {
    let text = kernel();
    let m = Module::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mem = Memory::new();
    let out = upload(&mem, &[0], 4);
    let stats = launch(m.kernel("stars").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out], &mem, 1).unwrap();
    assert_eq!(stats.printed, "A[   42|7] B[3.14    |9]\n");
    assert_eq!(download(&mem, out, 1, 4), [7]);
}
