//! The interpreter's paths at their edges, each against an independent model: random
//! sequences of loads and stores of every width (scalar and vector) in every state space,
//! directly and through generic addresses, against a byte array; accesses at the last byte
//! of `.local` and `.shared` memory and one past it, and misaligned ones; generic global
//! races; the `.approx` functions against host f64 math rounded once.

mod common;

use common::{download, geo, upload};
use ptx_sim::{launch, launch_with, Approx, Geometry, Memory, Module, SimError, SimOptions};
use ptx_tools::rng::Rng;

/// Bytes of the buffer every access sequence works in (one `.local` depot, one `.shared`
/// array, or one global allocation).
const BUF: usize = 32;

/// How a kernel reaches its buffer: the state space on the instruction and the base register.
#[derive(Clone, Copy, Debug)]
enum Space {
    Local,
    Shared,
    Global,
    GenericLocal,
    GenericShared,
    GenericGlobal,
}

impl Space {
    const ALL: [Space; 6] = [
        Space::Local,
        Space::Shared,
        Space::Global,
        Space::GenericLocal,
        Space::GenericShared,
        Space::GenericGlobal,
    ];

    /// The instruction's state-space suffix (empty for generic).
    fn suffix(self) -> &'static str {
        match self {
            Space::Local => ".local",
            Space::Shared => ".shared",
            Space::Global => ".global",
            _ => "",
        }
    }

    /// Sets `%rb` to the buffer's address in this space.
    fn base(self) -> &'static str {
        match self {
            Space::Local => "\tmov.u64 \t%rb, depot;\n",
            Space::Shared => "\tmov.u64 \t%rb, tile;\n",
            Space::Global => "\tld.param.u64 \t%rt, [k_param_1];\n\tcvta.to.global.u64 \t%rb, %rt;\n",
            Space::GenericLocal => "\tmov.u64 \t%rt, depot;\n\tcvta.local.u64 \t%rb, %rt;\n",
            Space::GenericShared => "\tmov.u64 \t%rt, tile;\n\tcvta.shared.u64 \t%rb, %rt;\n",
            Space::GenericGlobal => "\tld.param.u64 \t%rb, [k_param_1];\n",
        }
    }
}

/// A kernel `k(out, buf)` with a 32-byte `.local` depot and `.shared` tile.
fn kernel_text(body: &str) -> String {
    format!(
        ".version 8.5\n.target sm_80\n.address_size 64\n\n\
         .visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u64 k_param_1\n)\n{{\n\
         \t.local .align 16 .b8 \tdepot[{BUF}];\n\t.shared .align 16 .b8 \ttile[{BUF}];\n\
         \t.reg .pred \t%p<4>;\n\t.reg .b16 \t%rs<256>;\n\t.reg .b32 \t%r<256>;\n\t.reg .b64 \t%rd<256>;\n\
         \t.reg .b64 \t%rb;\n\t.reg .b64 \t%rt;\n\
         \tld.param.u64 \t%rd0, [k_param_0];\n\tcvta.to.global.u64 \t%rd1, %rd0;\n{body}\tret;\n}}\n"
    )
}

fn parse(text: &str) -> Module {
    Module::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Runs `k` with `body` on one thread, `out` (both parameters) a buffer of `words` u64s of
/// all ones: the memory and `out`, to read what the thread stored.
fn run_one_thread(body: &str, words: usize) -> (Memory, u64) {
    run_one_thread_with(body, words, &SimOptions::default())
}

/// [`run_one_thread`] with `options`.
fn run_one_thread_with(body: &str, words: usize, options: &SimOptions) -> (Memory, u64) {
    let text = kernel_text(body);
    let m = parse(&text);
    let mem = Memory::new();
    let out = upload(&mem, &vec![u64::MAX; words], 8);
    launch_with(m.kernel("k").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out, out], &mem, 1, options)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    (mem, out)
}

/// One access: `count` elements of `size` bytes at byte `offset` of the buffer.
#[derive(Clone, Copy, Debug)]
struct Access {
    store: bool,
    size: usize,
    count: usize,
    offset: usize,
}

/// A random access sequence: four u64 stores that define the whole buffer, then `n`
/// random loads and stores of 1, 2, 4 or 8 bytes, scalar or vector (at most 16 bytes, as
/// PTX allows), each aligned to its total size.
fn random_accesses(r: &mut Rng, n: usize) -> Vec<Access> {
    let mut accesses: Vec<Access> =
        (0..BUF / 8).map(|i| Access { store: true, size: 8, count: 1, offset: 8 * i }).collect();
    while accesses.len() < n + BUF / 8 {
        let size = [1, 2, 4, 8][(r.next() % 4) as usize];
        let count = [1, 2, 4][(r.next() % 3) as usize];
        if size * count > 16 {
            continue;
        }
        let total = size * count;
        let offset = (r.next() as usize % (BUF / total)) * total;
        accesses.push(Access { store: r.next().is_multiple_of(2), size, count, offset });
    }
    accesses
}

/// The register class and type suffix of a `size`-byte element.
fn class(size: usize) -> (&'static str, &'static str) {
    match size {
        1 => ("%rs", "u8"),
        2 => ("%rs", "u16"),
        4 => ("%r", "u32"),
        _ => ("%rd", "u64"),
    }
}

/// The PTX for `accesses` in `space` (stored values from `values`, in order), each loaded
/// element written to `out` as a u64 in order; and the values a byte-array model of the
/// buffer says those loads read.
fn program(space: Space, accesses: &[Access], values: &[u64]) -> (String, Vec<u64>) {
    let mut body = space.base().to_string();
    let mut model = [0u8; BUF];
    let mut loaded = Vec::new();
    let mut next_value = values.iter();
    // Registers 8.. hold values (the first few hold addresses).
    let mut reg = 8;
    for a in accesses {
        let (cls, ty) = class(a.size);
        let mask = if a.size == 8 { u64::MAX } else { (1u64 << (8 * a.size)) - 1 };
        let regs: Vec<String> = (0..a.count).map(|i| format!("{cls}{}", reg + i)).collect();
        reg += a.count;
        let list = if a.count == 1 { regs[0].clone() } else { format!("{{{}}}", regs.join(", ")) };
        let vec = if a.count == 1 { String::new() } else { format!(".v{}", a.count) };
        let addr = format!("[%rb+{}]", a.offset);
        if a.store {
            for (i, name) in regs.iter().enumerate() {
                let v = next_value.next().expect("enough values") & mask;
                body += &format!("\tmov.b{} \t{name}, {v:#x};\n", if a.size == 1 { 16 } else { 8 * a.size });
                let at = a.offset + i * a.size;
                model[at..at + a.size].copy_from_slice(&v.to_le_bytes()[..a.size]);
            }
            body += &format!("\tst{}{vec}.{ty} \t{addr}, {list};\n", space.suffix());
        } else {
            body += &format!("\tld{}{vec}.{ty} \t{list}, {addr};\n", space.suffix());
            for (i, name) in regs.iter().enumerate() {
                let at = a.offset + i * a.size;
                let mut bytes = [0u8; 8];
                bytes[..a.size].copy_from_slice(&model[at..at + a.size]);
                let wide = match a.size {
                    8 => name.clone(),
                    _ => {
                        let w = format!("%rd{}", 128 + loaded.len() % 120);
                        let src = if a.size == 4 { "u32" } else { "u16" };
                        body += &format!("\tcvt.u64.{src} \t{w}, {name};\n");
                        w
                    }
                };
                body += &format!("\tst.global.u64 \t[%rd1+{}], {wide};\n", 8 * loaded.len());
                loaded.push(u64::from_le_bytes(bytes));
            }
        }
        // Keep the value registers within their declared count.
        if reg > 120 {
            reg = 8;
        }
    }
    (kernel_text(&body), loaded)
}

/// Every space, 3 fresh random sequences of 48 accesses each: every load reads what the
/// byte model holds, so every width's load and store touches exactly its bytes, vector
/// elements land at consecutive offsets, and generic addresses reach the right memory.
#[test]
fn loads_and_stores_of_every_width_match_a_byte_model_in_every_space() {
    let mut r = Rng::fresh("interpreter_edges_widths");
    for space in Space::ALL {
        for round in 0..3 {
            let accesses = random_accesses(&mut r, 48);
            let values: Vec<u64> = (0..4 * accesses.len()).map(|_| r.next()).collect();
            let (text, want) = program(space, &accesses, &values);
            let m = parse(&text);
            let mem = Memory::new();
            let out = upload(&mem, &vec![0; want.len().max(1)], 8);
            let buf = upload(&mem, &[0; BUF / 8], 8);
            launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out, buf], &mem, 1)
                .unwrap_or_else(|e| panic!("{space:?} round {round}: {e}\n{text}"));
            let got = download(&mem, out, want.len(), 8);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{space:?} round {round}, load {i}: got {g:#x}, want {w:#x}\n{text}");
            }
        }
    }
}

/// The same offset in `.local`, `.shared` and global memory holds three different words;
/// generic loads read each from the space its window names, and generic stores land there
/// (read back directly).
#[test]
fn generic_addresses_reach_the_space_their_window_names() {
    let mut body = String::new();
    for (i, space) in [Space::Local, Space::Shared, Space::Global].into_iter().enumerate() {
        body += &space.base().replace("%rb", &format!("%rd{}", 10 + i));
        body += &format!(
            "\tmov.b64 \t%rd20, {};\n\tst{}.u64 \t[%rd{}+8], %rd20;\n",
            100 + i,
            space.suffix(),
            10 + i
        );
    }
    for (i, space) in
        [Space::GenericLocal, Space::GenericShared, Space::GenericGlobal].into_iter().enumerate()
    {
        body += space.base();
        body += &format!("\tld.u64 \t%rd21, [%rb+8];\n\tst.global.u64 \t[%rd1+{}], %rd21;\n", 8 * i);
        body += &format!("\tmov.b64 \t%rd22, {};\n\tst.u64 \t[%rb+16], %rd22;\n", 200 + i);
    }
    for (i, space) in [Space::Local, Space::Shared, Space::Global].into_iter().enumerate() {
        body += &format!(
            "\tld{}.u64 \t%rd23, [%rd{}+16];\n\tst.global.u64 \t[%rd1+{}], %rd23;\n",
            space.suffix(),
            10 + i,
            24 + 8 * i
        );
    }
    let text = kernel_text(&body);
    let m = parse(&text);
    let mem = Memory::new();
    let out = upload(&mem, &[0; 6], 8);
    let buf = upload(&mem, &[0; BUF / 8], 8);
    launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out, buf], &mem, 1)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(download(&mem, out, 6, 8), [100, 101, 102, 200, 201, 202], "{text}");
}

/// Runs one access of `ty` (e.g. `u32`, `v2.u32`) at byte `offset` of the buffer in
/// `space`: the fault address on an error.
fn one_access(space: Space, store: bool, ty: &str, offset: i64) -> Result<(), u64> {
    let (size, count) = match ty {
        "u8" => (1, 1),
        "u16" => (2, 1),
        "u32" => (4, 1),
        "u64" => (8, 1),
        "v2.u32" => (4, 2),
        "v4.u32" => (4, 4),
        "v2.u64" => (8, 2),
        _ => unreachable!("test type {ty}"),
    };
    let (cls, _) = class(size);
    let regs: Vec<String> = (0..count).map(|i| format!("{cls}{}", 8 + i)).collect();
    let list = if count == 1 { regs[0].clone() } else { format!("{{{}}}", regs.join(", ")) };
    let mut body = space.base().to_string();
    for name in &regs {
        body += &format!("\tmov.b{} \t{name}, 1;\n", if size == 1 { 16 } else { 8 * size });
    }
    let addr = format!("[%rb+{offset}]");
    body += &if store {
        format!("\tst{}.{ty} \t{addr}, {list};\n", space.suffix())
    } else {
        format!("\tld{}.{ty} \t{list}, {addr};\n", space.suffix())
    };
    let m = parse(&kernel_text(&body));
    let mem = Memory::new();
    let out = upload(&mem, &[0], 8);
    let buf = upload(&mem, &[0; BUF / 8], 8);
    // Bounds, not contents: a load of shared bytes never written is not refused here.
    let options = SimOptions { uninit_shared_check: false, ..SimOptions::default() };
    match launch_with(m.kernel("k").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out, buf], &mem, 1, &options) {
        Ok(_) => Ok(()),
        Err(SimError::Fault { address, .. }) => Err(address),
        Err(e) => panic!("{space:?} {ty} at {offset}: not a fault: {e}"),
    }
}

/// In every space, an access ending at the buffer's last byte runs, one a byte further
/// faults at its address, a misaligned one faults, and a vector must be aligned to its
/// whole size. (Global buffers are checked against their allocation, which `Memory` pads
/// to no boundary the test relies on: only the in-bounds and misaligned cases apply.)
#[test]
fn accesses_at_the_last_byte_run_and_one_past_or_misaligned_fault() {
    for space in Space::ALL {
        for store in [false, true] {
            let what = format!("{space:?} {}", if store { "store" } else { "load" });
            for (ty, total) in [("u8", 1), ("u16", 2), ("u32", 4), ("u64", 8), ("v2.u32", 8), ("v4.u32", 16)]
            {
                let last = BUF as i64 - total;
                assert_eq!(one_access(space, store, ty, last), Ok(()), "{what} {ty} ending at the last byte");
                if total > 1 {
                    assert!(one_access(space, store, ty, last + 1).is_err(), "{what} {ty} misaligned");
                }
                if matches!(space, Space::Global | Space::GenericGlobal) {
                    continue;
                }
                let past = one_access(space, store, ty, BUF as i64);
                assert!(past.is_err(), "{what} {ty} past the end");
                let Err(address) = past else { unreachable!() };
                // Direct spaces report the offset; generic ones the generic address,
                // whose low bits are the same offset.
                assert_eq!(address & 0xffff, BUF as u64, "{what} {ty}: fault address {address:#x}");
            }
            // A vector aligned to its element but not its whole size faults.
            assert!(one_access(space, store, "v2.u32", 4).is_err(), "{what} v2.u32 at 4");
            assert!(one_access(space, store, "v4.u32", 8).is_err(), "{what} v4.u32 at 8");
            assert!(one_access(space, store, "v2.u64", 8).is_err(), "{what} v2.u64 at 8");
            assert_eq!(one_access(space, store, "v2.u64", 16), Ok(()), "{what} v2.u64 at 16");
        }
    }
}

/// A generic address just below the local window, or one far past the end of the local
/// or shared window's memory, is no memory: a fault, not a read of some other space.
#[test]
fn generic_addresses_outside_every_window_fault() {
    for addr in [0xfffe_0000_0000_0000u64 - 8, 0xfffe_0000_0000_1000, 0xfffd_0000_0000_1000, 8] {
        let body = format!(
            "\tmov.u64 \t%rb, {addr:#x};\n\tld.u64 \t%rd8, [%rb];\n\tst.global.u64 \t[%rd1], %rd8;\n"
        );
        let m = parse(&kernel_text(&body));
        let mem = Memory::new();
        let out = upload(&mem, &[0], 8);
        let err = launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out, out], &mem, 1)
            .expect_err("no memory there");
        assert!(matches!(err, SimError::Fault { address, .. } if address == addr), "{addr:#x}: {err}");
    }
}

/// Two threads of a block, one storing through a generic pointer to global memory and the
/// other loading the same word, race when global race checks are on (and only then);
/// disjoint words do not.
#[test]
fn generic_global_accesses_are_race_checked_when_asked() {
    let body = "\tld.param.u64 \t%rb, [k_param_1];\n\tmov.u32 \t%r8, %tid.x;\n\
                \tsetp.eq.u32 \t%p1, %r8, 0;\n\tmul.wide.u32 \t%rd8, %r8, %r9;\n\tadd.s64 \t%rd9, %rb, %rd8;\n\
                \t@%p1 st.u32 \t[%rd9], %r8;\n\t@!%p1 ld.u32 \t%r10, [%rd9];\n";
    for (stride, races) in [(0, true), (4, false)] {
        let text = kernel_text(&body.replace("%r9;", &format!("{stride};")));
        let m = parse(&text);
        for check in [false, true] {
            let mem = Memory::new();
            let out = upload(&mem, &[0], 8);
            let buf = upload(&mem, &[0; 4], 8);
            let options = SimOptions { global_race_check: check, ..SimOptions::default() };
            let result = launch_with(
                m.kernel("k").unwrap(),
                &geo([1, 1, 1], [2, 1, 1]),
                &[out, buf],
                &mem,
                1,
                &options,
            );
            match (check && races, result) {
                (true, Err(SimError::Race(race))) => assert!(race.global, "a global race: {race:?}"),
                (false, Ok(_)) => {}
                (expect, other) => {
                    panic!("stride {stride}, check {check}: race expected {expect}, got {other:?}")
                }
            }
        }
    }
}

/// A host function the simulator models an instruction by.
type Function = fn(f64) -> f64;

/// The `.approx` functions (accurate model): the host's f64 function of the f32 input,
/// rounded once to f32, on 512 fresh random inputs each (positive where the function needs
/// it); the f64 reciprocal and reciprocal square root exactly, with `.ftz` flushing a
/// subnormal input and result. Bit-exact comparisons: the model is defined as exactly
/// this rounding.
#[test]
fn approximate_functions_are_the_host_function_rounded_once() {
    let mut r = Rng::fresh("interpreter_edges_approx");
    let ops: [(&str, Function, bool); 8] = [
        ("sqrt.approx.f32", f64::sqrt, true),
        ("rcp.approx.f32", |x| 1.0 / x, false),
        ("rsqrt.approx.f32", |x| 1.0 / x.sqrt(), true),
        ("ex2.approx.f32", f64::exp2, false),
        ("lg2.approx.f32", f64::log2, true),
        ("sin.approx.f32", f64::sin, false),
        ("cos.approx.f32", f64::cos, false),
        ("tanh.approx.f32", f64::tanh, false),
    ];
    const N: usize = 512;
    for (op, f, positive) in ops {
        let xs: Vec<f32> = (0..N)
            .map(|_| {
                let x = r.moderate_f32();
                if positive {
                    x.abs()
                } else {
                    x
                }
            })
            .collect();
        let body = format!(
            "\tld.param.u64 \t%rt, [k_param_1];\n\tcvta.to.global.u64 \t%rb, %rt;\n\
             \tmov.u32 \t%r4, %ctaid.x;\n\tmov.u32 \t%r5, %tid.x;\n\tmad.lo.s32 \t%r1, %r4, 128, %r5;\n\
             \tmul.wide.u32 \t%rd2, %r1, 4;\n\tadd.s64 \t%rd3, %rb, %rd2;\n\
             \tld.global.f32 \t%r2, [%rd3];\n\t{op} \t%r3, %r2;\n\tadd.s64 \t%rd4, %rd1, %rd2;\n\
             \tst.global.f32 \t[%rd4], %r3;\n"
        );
        let text = kernel_text(&body);
        let m = parse(&text);
        let mem = Memory::new();
        let out = upload(&mem, &[0; N], 4);
        let input = upload(&mem, &xs.iter().map(|x| x.to_bits() as u64).collect::<Vec<_>>(), 4);
        launch(m.kernel("k").unwrap(), &geo([N as u32 / 128, 1, 1], [128, 1, 1]), &[out, input], &mem, 1)
            .unwrap_or_else(|e| panic!("{op}: {e}"));
        for (i, got) in download(&mem, out, N, 4).into_iter().enumerate() {
            let want = f(xs[i] as f64) as f32;
            let got = f32::from_bits(got as u32);
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{op}({:e}) = {got:e}, want {want:e}",
                xs[i]
            );
        }
    }
    // (`rsqrt.approx.f64`, correctly rounded rather than the host's two roundings, has its
    // own test: `rsqrt_f64.rs`.)
    let f64_ops: [(&str, Function); 1] = [("rcp.approx.ftz.f64", |x| 1.0 / x)];
    let mut xs: Vec<f64> = (0..125).map(|_| r.moderate_f64().abs()).collect();
    // Subnormal inputs: .ftz flushes them (rcp gives +inf; 2^-1023's reciprocal would be
    // finite).
    xs.push(f64::from_bits(3));
    xs.push(f64::from_bits(1 << 51));
    xs.push(1e308); // rcp's result is subnormal: flushed to +0 by .ftz
    for (op, f) in f64_ops {
        let body = format!(
            "\tld.param.u64 \t%rt, [k_param_1];\n\tcvta.to.global.u64 \t%rb, %rt;\n\
             \tmov.u32 \t%r1, %tid.x;\n\tmul.wide.u32 \t%rd2, %r1, 8;\n\tadd.s64 \t%rd3, %rb, %rd2;\n\
             \tld.global.f64 \t%rd5, [%rd3];\n\t{op} \t%rd6, %rd5;\n\tadd.s64 \t%rd4, %rd1, %rd2;\n\
             \tst.global.f64 \t[%rd4], %rd6;\n"
        );
        let m = parse(&kernel_text(&body));
        let mem = Memory::new();
        let out = upload(&mem, &[0; 128], 8);
        let input = upload(&mem, &xs.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), 8);
        launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [128, 1, 1]), &[out, input], &mem, 1)
            .unwrap_or_else(|e| panic!("{op}: {e}"));
        let ftz = op.contains(".ftz");
        let flush = |v: f64| if ftz && v.is_subnormal() { 0.0 } else { v };
        for (i, got) in download(&mem, out, 128, 8).into_iter().enumerate() {
            let want = flush(f(flush(xs[i])));
            assert_eq!(f64::from_bits(got), want, "{op}({:e})", xs[i]);
        }
    }
}

/// The 32-bit special registers each thread of a 3-D launch reads, in the order the test
/// kernel stores them.
const SPECIALS32: [&str; 22] = [
    "%tid.x",
    "%tid.y",
    "%tid.z",
    "%ntid.x",
    "%ntid.y",
    "%ntid.z",
    "%ctaid.x",
    "%ctaid.y",
    "%ctaid.z",
    "%nctaid.x",
    "%nctaid.y",
    "%nctaid.z",
    "%laneid",
    "%warpid",
    "%nwarpid",
    "%lanemask_eq",
    "%lanemask_le",
    "%lanemask_lt",
    "%lanemask_ge",
    "%lanemask_gt",
    "%dynamic_smem_size",
    "%nsmid",
];

/// Every special register of every thread of a 3-D grid with a partial last warp, against
/// the host's arithmetic on the launch geometry; the clocks count up within a thread and
/// the global timer reads the host's time.
#[test]
fn special_registers_of_every_thread_of_a_3d_launch() {
    let (grid, block, dynamic) = ([2u32, 3, 2], [5u32, 7, 3], 48u32);
    let slots = SPECIALS32.len() + 7;
    let mut body = String::from(
        "\tmov.u32 \t%r1, %ctaid.z;\n\tmov.u32 \t%r2, %nctaid.y;\n\tmov.u32 \t%r3, %ctaid.y;\n\
         \tmad.lo.s32 \t%r4, %r1, %r2, %r3;\n\tmov.u32 \t%r1, %nctaid.x;\n\tmov.u32 \t%r2, %ctaid.x;\n\
         \tmad.lo.s32 \t%r5, %r4, %r1, %r2;\n\tmov.u32 \t%r1, %tid.z;\n\tmov.u32 \t%r2, %ntid.y;\n\
         \tmov.u32 \t%r3, %tid.y;\n\tmad.lo.s32 \t%r4, %r1, %r2, %r3;\n\tmov.u32 \t%r1, %ntid.x;\n\
         \tmov.u32 \t%r2, %tid.x;\n\tmad.lo.s32 \t%r6, %r4, %r1, %r2;\n\tmov.u32 \t%r1, %ntid.z;\n\
         \tmov.u32 \t%r2, %ntid.y;\n\tmul.lo.s32 \t%r3, %r1, %r2;\n\tmov.u32 \t%r1, %ntid.x;\n\
         \tmul.lo.s32 \t%r4, %r3, %r1;\n\tmad.lo.s32 \t%r7, %r5, %r4, %r6;\n",
    );
    body += &format!("\tmul.wide.u32 \t%rd2, %r7, {};\n\tadd.s64 \t%rd3, %rd1, %rd2;\n", 8 * slots);
    for (k, reg) in SPECIALS32.iter().enumerate() {
        body += &format!(
            "\tmov.u32 \t%r10, {reg};\n\tcvt.u64.u32 \t%rd10, %r10;\n\tst.global.u64 \t[%rd3+{}], %rd10;\n",
            8 * k
        );
    }
    let k = SPECIALS32.len();
    body += &format!(
        "\tmov.u64 \t%rd11, %clock64;\n\tmov.u32 \t%r11, %clock;\n\tmov.u32 \t%r12, %clock_hi;\n\
         \tmov.u64 \t%rd12, %clock64;\n\tmov.u64 \t%rd13, %globaltimer;\n\tmov.u32 \t%r13, %globaltimer_hi;\n\
         \tmov.u64 \t%rd14, %gridid;\n\tmov.u32 \t%r14, %smid;\n\
         \tst.global.u64 \t[%rd3+{}], %rd11;\n\tcvt.u64.u32 \t%rd15, %r11;\n\tst.global.u64 \t[%rd3+{}], %rd15;\n\
         \tst.global.u64 \t[%rd3+{}], %rd12;\n\tst.global.u64 \t[%rd3+{}], %rd13;\n\
         \tcvt.u64.u32 \t%rd16, %r13;\n\tst.global.u64 \t[%rd3+{}], %rd16;\n\
         \tcvt.u64.u32 \t%rd17, %r14;\n\tor.b64 \t%rd18, %rd17, %rd14;\n\tcvt.u64.u32 \t%rd19, %r12;\n\
         \tor.b64 \t%rd20, %rd18, %rd19;\n\tst.global.u64 \t[%rd3+{}], %rd20;\n\
         \tmov.u32 \t%r15, %globaltimer_lo;\n\tcvt.u64.u32 \t%rd21, %r15;\n\tst.global.u64 \t[%rd3+{}], %rd21;\n",
        8 * k,
        8 * (k + 1),
        8 * (k + 2),
        8 * (k + 3),
        8 * (k + 4),
        8 * (k + 5),
        8 * (k + 6)
    );
    let m = parse(&kernel_text(&body));
    let threads = (grid.iter().product::<u32>() * block.iter().product::<u32>()) as usize;
    let mem = Memory::new();
    let out = upload(&mem, &vec![0; threads * slots], 8);
    let geometry = ptx_sim::Geometry { grid, block, dynamic_shared_bytes: dynamic };
    let before =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
    launch(m.kernel("k").unwrap(), &geometry, &[out, out], &mem, 2).unwrap();
    let after = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
    let got = download(&mem, out, threads * slots, 8);
    let per_block = block.iter().product::<u32>();
    for (i, row) in got.chunks(slots).enumerate() {
        let (b, t) = (i as u32 / per_block, i as u32 % per_block);
        let split = |v: u32, d: [u32; 3]| [v % d[0], v / d[0] % d[1], v / (d[0] * d[1])];
        let (tid, ctaid) = (split(t, block), split(b, grid));
        let lane = t % 32;
        let below = (1u64 << lane) - 1;
        let want: [u64; 22] = [
            tid[0] as u64,
            tid[1] as u64,
            tid[2] as u64,
            block[0] as u64,
            block[1] as u64,
            block[2] as u64,
            ctaid[0] as u64,
            ctaid[1] as u64,
            ctaid[2] as u64,
            grid[0] as u64,
            grid[1] as u64,
            grid[2] as u64,
            lane as u64,
            (t / 32) as u64,
            // `%nwarpid`: an sm_80/sm_90 multiprocessor's 64 warps, not the block's.
            64,
            1 << lane,
            below | 1 << lane,
            below,
            !below & 0xffff_ffff,
            !(below | 1 << lane) & 0xffff_ffff,
            dynamic as u64,
            1,
        ];
        for (j, name) in SPECIALS32.iter().enumerate() {
            assert_eq!(row[j], want[j], "{name} of thread {tid:?} of block {ctaid:?}");
        }
        let (c1, c_lo, c2, timer, timer_hi, zeros) =
            (row[k], row[k + 1], row[k + 2], row[k + 3], row[k + 4], row[k + 5]);
        // The clock counts instructions: the low word read between two reads of %clock64
        // lies between them, and the second read is later than the first.
        assert!(c1 < c2 && (c1 & 0xffff_ffff) < c_lo && c_lo < (c2 & 0xffff_ffff), "{c1} {c_lo} {c2}");
        assert!((before..=after).contains(&timer), "%globaltimer {timer} not in [{before}, {after}]");
        assert!(
            timer_hi == timer >> 32 || timer_hi == (timer >> 32) + 1,
            "%globaltimer_hi {timer_hi:#x}, timer {timer:#x}"
        );
        // %globaltimer_lo, read just after %globaltimer: its low word, moved on by the few
        // instructions between (50 ms allows for the host descheduling the test).
        let timer_lo = row[k + 6];
        assert!(
            timer_lo < 1 << 32 && (timer_lo as u32).wrapping_sub(timer as u32) < 50_000_000,
            "%globaltimer_lo {timer_lo:#x}, timer {timer:#x}"
        );
        // %smid, %gridid and %clock_hi (a block runs far fewer than 2^32 instructions) are 0.
        assert_eq!(zeros, 0, "%smid | %gridid | %clock_hi");
    }
}

/// `vprintf` output comes back block by block in grid order (whatever worker ran which
/// block), each block's threads in order, and every conversion reads its argument at the
/// argument buffer's alignment for its size (NVRTC's output from the corpus).
#[test]
fn printf_output_in_grid_order_with_every_conversion() {
    let hello = parse(include_str!("corpus/printf_kernel.ptx"));
    let mem = Memory::new();
    for workers in [1, 3] {
        let stats =
            launch(hello.kernel("hello").unwrap(), &geo([4, 1, 1], [3, 1, 1]), &[42], &mem, workers).unwrap();
        let want: String =
            (0..4).flat_map(|b| (0..3).map(move |t| format!("thread {t} of block {b}: v = 42\n"))).collect();
        assert_eq!(stats.printed, want, "{workers} worker(s)");
    }
    // `call` without `.uni` is the same call; any other modifier is refused by name.
    let plain = include_str!("corpus/printf_kernel.ptx").replace("call.uni", "call");
    let stats =
        launch(parse(&plain).kernel("hello").unwrap(), &geo([1, 1, 1], [2, 1, 1]), &[42], &mem, 1).unwrap();
    assert_eq!(stats.printed, "thread 0 of block 0: v = 42\nthread 1 of block 0: v = 42\n");
    let odd = include_str!("corpus/printf_kernel.ptx").replace("call.uni", "call.foo");
    let err = Module::parse(&odd).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("call.foo"), "call.foo: {err}");
    let types = parse(include_str!("corpus/printf_types.ptx"));
    let params = [1.5f32.to_bits() as u64, 12345.678f64.to_bits(), (-9_000_000_000i64) as u64];
    let stats =
        launch(types.kernel("print_types").unwrap(), &geo([1, 1, 1], [4, 1, 1]), &params, &mem, 1).unwrap();
    assert_eq!(stats.printed, "-7|3000000000|-9000000000|1.500000|1.235e+04|str|Z|0xff|  1.5|12345.7\n");
}

/// Each thread's `.local` memory is its own and starts zeroed, with and without barriers
/// in the kernel (the simulator runs the two differently): a thread reads 0 before its
/// first store and its own value after, whatever the other threads stored.
#[test]
fn local_memory_is_private_to_each_thread_and_starts_zeroed() {
    for barrier in ["", "\tbar.sync \t0;\n"] {
        let body = format!(
            "\tmov.u64 \t%rb, depot;\n\tmov.u32 \t%r1, %tid.x;\n\tld.local.u32 \t%r2, [%rb+4];\n\
             \tadd.s32 \t%r3, %r1, 1000;\n\tst.local.u32 \t[%rb+4], %r3;\n{barrier}\
             \tld.local.u32 \t%r4, [%rb+4];\n\tmul.wide.u32 \t%rd2, %r1, 8;\n\tadd.s64 \t%rd3, %rd1, %rd2;\n\
             \tst.global.v2.u32 \t[%rd3], {{%r2, %r4}};\n"
        );
        let m = parse(&kernel_text(&body));
        let mem = Memory::new();
        let out = upload(&mem, &[u64::MAX; 64], 8);
        launch(m.kernel("k").unwrap(), &geo([2, 1, 1], [64, 1, 1]), &[out, out], &mem, 1).unwrap();
        for (t, v) in download(&mem, out, 64, 8).into_iter().enumerate() {
            assert_eq!(v, (1000 + t as u64) << 32, "thread {t} (barrier: {})", !barrier.is_empty());
        }
    }
}

/// Signed division and remainder of the most negative value by -1 (the one quotient that
/// overflows): the quotient wraps to that value and the remainder is 0, as Rust's
/// `wrapping_div`/`wrapping_rem` give, for 16, 32 and 64 bits.
#[test]
fn signed_min_divided_by_minus_one_wraps() {
    let body = "\tmov.b16 \t%rs8, 0x8000;\n\tmov.b16 \t%rs9, -1;\n\tdiv.s16 \t%rs10, %rs8, %rs9;\n\
                \trem.s16 \t%rs11, %rs8, %rs9;\n\tmov.b32 \t%r8, 0x80000000;\n\tmov.b32 \t%r9, -1;\n\
                \tdiv.s32 \t%r10, %r8, %r9;\n\trem.s32 \t%r11, %r8, %r9;\n\
                \tmov.b64 \t%rd8, 0x8000000000000000;\n\tmov.b64 \t%rd9, -1;\n\
                \tdiv.s64 \t%rd10, %rd8, %rd9;\n\trem.s64 \t%rd11, %rd8, %rd9;\n\
                \tst.global.v2.u16 \t[%rd1], {%rs10, %rs11};\n\tst.global.v2.u32 \t[%rd1+8], {%r10, %r11};\n\
                \tst.global.v2.u64 \t[%rd1+16], {%rd10, %rd11};\n";
    let (mem, out) = run_one_thread(body, 4);
    let got = download(&mem, out, 4, 8);
    let want16 = (i16::MIN.wrapping_div(-1) as u16 as u64) | (i16::MIN.wrapping_rem(-1) as u16 as u64) << 16;
    let want32 = (i32::MIN.wrapping_div(-1) as u32 as u64) | (i32::MIN.wrapping_rem(-1) as u32 as u64) << 32;
    assert_eq!(got[0] & 0xffff_ffff, want16, "s16");
    assert_eq!(got[1], want32, "s32");
    assert_eq!(got[2..4], [i64::MIN.wrapping_div(-1) as u64, i64::MIN.wrapping_rem(-1) as u64], "s64");
}

/// The step budget counts each thread's instructions across its barriers: a loop of 200
/// iterations with a barrier in each (about 1 000 instructions per thread, 64 threads)
/// runs within a budget of 1 500 per thread, and stops with `StepBudget` naming the
/// kernel under a budget of 500 or when the loop never ends.
#[test]
fn the_step_budget_counts_each_threads_instructions_across_barriers() {
    let looped = |bound: &str| {
        format!(
            "\tmov.u32 \t%r1, 0;\nLOOP:\n\tadd.s32 \t%r1, %r1, 1;\n\tbar.sync \t0;\n\
             \tsetp.lt.u32 \t%p1, %r1, {bound};\n\t@%p1 bra \tLOOP;\n"
        )
    };
    let finite = parse(&kernel_text(&looped("200")));
    let endless = parse(&kernel_text(&looped("0xffffffff").replace("%r1, %r1, 1", "%r1, %r1, 0")));
    let mem = Memory::new();
    let buf = mem.alloc(64);
    let go = |m: &Module, budget: u64| {
        let options = SimOptions { step_budget: budget, ..SimOptions::default() };
        let g = Geometry { grid: [2, 1, 1], block: [64, 1, 1], dynamic_shared_bytes: 0 };
        launch_with(m.kernel("k").unwrap(), &g, &[buf, buf], &mem, 1, &options)
    };
    let stats = go(&finite, 1_500).expect("within the budget");
    // Per thread: the parameter load and its cvta, the mov, 4 per iteration, the ret.
    assert_eq!(stats.instructions, 2 * 64 * (4 + 4 * 200), "instructions");
    for (m, budget) in [(&finite, 500), (&endless, 100_000)] {
        match go(m, budget) {
            Err(SimError::StepBudget { kernel, budget: b, .. }) => {
                assert_eq!((kernel.as_str(), b), ("k", budget))
            }
            other => panic!("budget {budget}: expected StepBudget, got {other:?}"),
        }
    }
}

/// Between barriers a thread runs straight-line code without a budget check; its total is
/// checked when it reaches a barrier or exits: a budget of exactly the instructions it runs
/// passes, one less is `StepBudget`.
#[test]
fn the_step_budget_holds_for_straight_line_code_between_barriers() {
    let body = "\tmov.u32 \t%r1, 1;\n\tbar.sync \t0;\n\tadd.s32 \t%r1, %r1, 1;\n\tadd.s32 \t%r1, %r1, 1;\n\
                \tbar.sync \t0;\n\tadd.s32 \t%r1, %r1, 1;\n";
    let m = parse(&kernel_text(body));
    let mem = Memory::new();
    let buf = mem.alloc(64);
    let go = |budget: u64| {
        let options = SimOptions { step_budget: budget, ..SimOptions::default() };
        launch_with(m.kernel("k").unwrap(), &geo([1, 1, 1], [8, 1, 1]), &[buf, buf], &mem, 1, &options)
    };
    let per_thread = go(1_000).expect("runs").instructions / 8;
    assert_eq!(per_thread, 9, "the parameter load and cvta, six here, the ret");
    go(per_thread).expect("a budget of exactly the instructions run");
    match go(per_thread - 1) {
        Err(SimError::StepBudget { budget, .. }) => assert_eq!(budget, per_thread - 1),
        other => panic!("expected StepBudget, got {other:?}"),
    }
}

/// An atomic's effect on the word it updates: the new value from the old one and the
/// operands `b` and `c`.
type AtomModel = fn(u64, u64, u64) -> u64;

/// Every `atom` operation and type, in global and shared memory, directly and through
/// generic addresses: the returned old value is the word before, and the word after is
/// the PTX ISA's definition applied to it (written here on host integers and floats), on
/// fresh random words and operands (`cas` comparing equal half the time).
#[test]
fn atomics_of_every_operation_and_type_in_every_space() {
    let mut r = Rng::fresh("interpreter_edges_atomics");
    let ops: [(&str, u32, AtomModel); 22] = [
        ("add.u32", 32, |a, b, _| (a as u32).wrapping_add(b as u32) as u64),
        ("add.s32", 32, |a, b, _| (a as u32).wrapping_add(b as u32) as u64),
        ("add.u64", 64, |a, b, _| a.wrapping_add(b)),
        ("add.s64", 64, |a, b, _| a.wrapping_add(b)),
        // The ISA: `atom.add.f32` flushes subnormal inputs and results to zero of their sign
        // (two tiny normals of opposite signs can sum to a subnormal).
        ("add.f32", 32, |a, b, _| {
            let flush = |x: f32| if x.is_subnormal() { 0.0f32.copysign(x) } else { x };
            flush(flush(f32::from_bits(a as u32)) + flush(f32::from_bits(b as u32))).to_bits() as u64
        }),
        ("add.f64", 64, |a, b, _| (f64::from_bits(a) + f64::from_bits(b)).to_bits()),
        ("cas.b16", 16, |a, b, c| if a == b { c } else { a }),
        ("cas.b32", 32, |a, b, c| if a == b { c } else { a }),
        ("cas.b64", 64, |a, b, c| if a == b { c } else { a }),
        ("exch.b32", 32, |_, b, _| b),
        ("exch.b64", 64, |_, b, _| b),
        ("inc.u32", 32, |a, b, _| if a >= b { 0 } else { a + 1 }),
        ("dec.u32", 32, |a, b, _| if a == 0 || a > b { b } else { a - 1 }),
        ("min.u32", 32, |a, b, _| a.min(b)),
        ("max.s32", 32, |a, b, _| (a as u32 as i32).max(b as u32 as i32) as u32 as u64),
        ("min.s32", 32, |a, b, _| (a as u32 as i32).min(b as u32 as i32) as u32 as u64),
        ("max.u64", 64, |a, b, _| a.max(b)),
        ("min.s64", 64, |a, b, _| (a as i64).min(b as i64) as u64),
        ("and.b32", 32, |a, b, _| a & b),
        ("or.b64", 64, |a, b, _| a | b),
        ("xor.b32", 32, |a, b, _| a ^ b),
        ("and.b64", 64, |a, b, _| a & b),
    ];
    for space in [Space::Global, Space::Shared, Space::GenericGlobal, Space::GenericShared] {
        let mut body = space.base().to_string();
        let mut want = Vec::new();
        for (k, (op, bits, model)) in ops.iter().enumerate() {
            let mask = if *bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            let random = |r: &mut Rng| match *op {
                "inc.u32" | "dec.u32" => r.next() % 8,
                "add.f32" => r.moderate_f32().to_bits() as u64,
                "add.f64" => r.moderate_f64().to_bits(),
                _ => r.next() & mask,
            };
            let (old, mut b, c) = (random(&mut r), random(&mut r), random(&mut r));
            if op.starts_with("cas") && k % 2 == 0 {
                b = old;
            }
            let reg = match bits {
                16 => "%rs",
                32 => "%r",
                _ => "%rd",
            };
            let sz = if *bits == 16 { 16 } else { *bits };
            let (o, n, rb, rc, rv) = (
                format!("{reg}{}", 10 + 5 * k),
                format!("{reg}{}", 11 + 5 * k),
                format!("{reg}{}", 12 + 5 * k),
                format!("{reg}{}", 13 + 5 * k),
                format!("{reg}{}", 14 + 5 * k),
            );
            let operands = if op.starts_with("cas") { format!("{rb}, {rc}") } else { rb.clone() };
            body += &format!(
                "\tmov.b{sz} \t{rv}, {old:#x};\n\tst{sp}.b{sz} \t[%rb+8], {rv};\n\tmov.b{sz} \t{rb}, {b:#x};\n\
                 \tmov.b{sz} \t{rc}, {c:#x};\n\tatom{sp}.{op} \t{o}, [%rb+8], {operands};\n\tld{sp}.b{sz} \t{n}, [%rb+8];\n",
                sp = space.suffix()
            );
            for (i, v) in [&o, &n].into_iter().enumerate() {
                let wide = match bits {
                    16 => format!("\tcvt.u64.u16 \t%rd200, {v};\n"),
                    32 => format!("\tcvt.u64.u32 \t%rd200, {v};\n"),
                    _ => format!("\tmov.b64 \t%rd200, {v};\n"),
                };
                body += &wide;
                body += &format!("\tst.global.u64 \t[%rd1+{}], %rd200;\n", 8 * (2 * k + i));
            }
            want.push((op, old, b, c, old, model(old, b, c)));
        }
        let text = kernel_text(&body);
        let m = parse(&text);
        let mem = Memory::new();
        let out = upload(&mem, &vec![0; 2 * ops.len()], 8);
        let buf = upload(&mem, &[0; BUF / 8], 8);
        launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out, buf], &mem, 1)
            .unwrap_or_else(|e| panic!("{space:?}: {e}"));
        let got = download(&mem, out, 2 * ops.len(), 8);
        for (k, (op, old, b, c, want_old, want_new)) in want.into_iter().enumerate() {
            assert_eq!(
                (got[2 * k], got[2 * k + 1]),
                (want_old, want_new),
                "{space:?} atom.{op} on {old:#x} with {b:#x}, {c:#x}"
            );
        }
    }
}

/// `cvta.to.shared` and `cvta.to.local` undo `cvta.shared`/`cvta.local` (generic address
/// back to the offset in the space), and a parameter read narrower than its type keeps
/// only the low bits (a u64 parameter read as u32 compares equal to its low word).
#[test]
fn cvta_round_trips_and_narrow_parameter_reads() {
    let body = "\tmov.u64 \t%rd8, tile;\n\tadd.s64 \t%rd8, %rd8, 12;\n\tcvta.shared.u64 \t%rd9, %rd8;\n\
                \tcvta.to.shared.u64 \t%rd10, %rd9;\n\tsub.s64 \t%rd11, %rd10, %rd8;\n\
                \tmov.u64 \t%rd12, depot;\n\tadd.s64 \t%rd12, %rd12, 20;\n\tcvta.local.u64 \t%rd13, %rd12;\n\
                \tcvta.to.local.u64 \t%rd14, %rd13;\n\tsub.s64 \t%rd15, %rd14, %rd12;\n\
                \tld.param.u32 \t%r8, [k_param_1];\n\tsetp.eq.u32 \t%p1, %r8, 5;\n\tselp.u64 \t%rd16, 1, 0, %p1;\n\
                \tst.global.v2.u64 \t[%rd1], {%rd11, %rd15};\n\tst.global.u64 \t[%rd1+16], %rd16;\n\
                \tst.global.u64 \t[%rd1+24], %rd9;\n";
    let m = parse(&kernel_text(body));
    let mem = Memory::new();
    let out = upload(&mem, &[u64::MAX; 4], 8);
    launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out, 0x7_0000_0005], &mem, 1).unwrap();
    let got = download(&mem, out, 4, 8);
    assert_eq!(got[..3], [0, 0, 1], "round trips give the offsets back; the u32 read is 5");
    assert_ne!(got[3], 12, "the generic address of a shared offset is not the offset");
}

/// `mov` packs registers into a wider one and unpacks them (element 0 in the low bits):
/// two b16 into b32, two b32 and four b16 into b64, and back, on fresh random values.
#[test]
fn mov_packs_and_unpacks_vectors() {
    let mut r = Rng::fresh("interpreter_edges_mov_vector");
    let h: Vec<u64> = (0..6).map(|_| r.next() & 0xffff).collect();
    let w: Vec<u64> = (0..2).map(|_| r.next() & 0xffff_ffff).collect();
    let body = format!(
        "\tmov.b16 \t%rs8, {:#x};\n\tmov.b16 \t%rs9, {:#x};\n\tmov.b32 \t%r8, {{%rs8, %rs9}};\n\
         \tmov.b32 \t%r9, {:#x};\n\tmov.b32 \t%r10, {:#x};\n\tmov.b64 \t%rd8, {{%r9, %r10}};\n\
         \tmov.b16 \t%rs10, {:#x};\n\tmov.b16 \t%rs11, {:#x};\n\tmov.b16 \t%rs12, {:#x};\n\tmov.b16 \t%rs13, {:#x};\n\
         \tmov.b64 \t%rd9, {{%rs10, %rs11, %rs12, %rs13}};\n\
         \tmov.b64 \t{{%r11, %r12}}, %rd9;\n\tmov.b64 \t{{%rs14, %rs15, %rs16, %rs17}}, %rd8;\n\
         \tcvt.u64.u32 \t%rd10, %r8;\n\tcvt.u64.u32 \t%rd11, %r11;\n\tcvt.u64.u32 \t%rd12, %r12;\n\
         \tcvt.u64.u16 \t%rd13, %rs14;\n\tcvt.u64.u16 \t%rd14, %rs17;\n\
         \tst.global.v2.u64 \t[%rd1], {{%rd10, %rd8}};\n\tst.global.v2.u64 \t[%rd1+16], {{%rd9, %rd11}};\n\
         \tst.global.v2.u64 \t[%rd1+32], {{%rd12, %rd13}};\n\tst.global.u64 \t[%rd1+48], %rd14;\n",
        h[0], h[1], w[0], w[1], h[2], h[3], h[4], h[5]
    );
    let (mem, out) = run_one_thread(&body, 7);
    let got = download(&mem, out, 7, 8);
    let four = h[2] | h[3] << 16 | h[4] << 32 | h[5] << 48;
    let want = [
        h[0] | h[1] << 16,
        w[0] | w[1] << 32,
        four,
        four & 0xffff_ffff,
        four >> 32,
        w[0] & 0xffff,
        w[1] >> 16,
    ];
    assert_eq!(got, want);
}

/// An `.extern .shared` array starts after the static ones at its alignment: after
/// `tile` (32 bytes) and `small` (12 bytes, at 32), a 16-byte aligned dynamic array starts
/// at 48, not 44, and a store there does not touch the static arrays.
#[test]
fn dynamic_shared_memory_starts_after_the_static_arrays_aligned() {
    let body = "\tmov.u32 \t%r10, 5;\n\tst.shared.u32 \t[small+8], %r10;\n\tmov.u64 \t%rd8, dyn;\n\tmov.u32 \t%r8, 77;\n\
                \tst.shared.u32 \t[dyn], %r8;\n\
                \tld.shared.u32 \t%r9, [small+8];\n\tcvt.u64.u32 \t%rd9, %r9;\n\
                \tst.global.v2.u64 \t[%rd1], {%rd8, %rd9};\n";
    let text = kernel_text(body).replace("\t.reg .pred", "\t.shared .align 4 .b8 \tsmall[12];\n\t.reg .pred");
    let text =
        text.replace(".visible .entry k(", ".extern .shared .align 16 .b8 dyn[];\n\n.visible .entry k(");
    let m = parse(&text);
    let mem = Memory::new();
    let out = upload(&mem, &[u64::MAX; 2], 8);
    let g = Geometry { grid: [1, 1, 1], block: [1, 1, 1], dynamic_shared_bytes: 16 };
    launch(m.kernel("k").unwrap(), &g, &[out, out], &mem, 1).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(download(&mem, out, 2, 8), [48, 5], "the dynamic array's offset; the static array untouched");
}

/// `set` compares as its source type says and writes all ones (integer destination) or
/// 1.0 (f32 destination): 0x80000000 is above 1 unsigned and below it signed.
#[test]
fn set_compares_by_its_source_type() {
    let body =
        "\tmov.b32 \t%r8, 0x80000000;\n\tset.gt.u32.u32 \t%r9, %r8, 1;\n\tset.gt.u32.s32 \t%r10, %r8, 1;\n\
                \tset.lt.f32.s32 \t%r11, %r8, 1;\n\tset.lt.f32.u32 \t%r12, %r8, 1;\n\
                \tst.global.v4.u32 \t[%rd1], {%r9, %r10, %r11, %r12};\n";
    let (mem, out) = run_one_thread(body, 2);
    assert_eq!(download(&mem, out, 4, 4), [0xffff_ffff, 0, 1f32.to_bits() as u64, 0]);
}

/// Instructions NVRTC rarely writes, each against its PTX ISA definition: `prmt.rc16`
/// (replicate the 16-bit half `c[0]` selects), `sad` (|a - b| + c, signed and unsigned),
/// `copysign` (the sign of the first operand onto the second, f32 and f64), TF32 rounding
/// of a tie (`.rn` to even, `.rna` away from zero), `set` on f64 sources, `mad.wide` and
/// the packing conversions to `f16x2`/`bf16x2`.
#[test]
fn rarely_written_instructions_match_their_definitions() {
    let body = "\tmov.b32 \t%r8, 0x13121110;\n\tmov.b32 \t%r9, 0x17161514;\n\
                \tprmt.b32.rc16 \t%r10, %r8, %r9, 0;\n\tprmt.b32.rc16 \t%r11, %r8, %r9, 1;\n\
                \tsad.u32 \t%r12, 3, 10, 100;\n\tsad.s32 \t%r13, -5, 7, 100;\n\
                \tmov.b32 \t%r14, 0xbf800000;\n\tmov.b32 \t%r15, 0x40000000;\n\tcopysign.f32 \t%r16, %r14, %r15;\n\
                \tmov.b64 \t%rd8, 0x8000000000000000;\n\tmov.b64 \t%rd9, 0x4000000000000000;\n\
                \tcopysign.f64 \t%rd10, %rd8, %rd9;\n\
                \tcopysign.f32 \t%r32, %r15, %r14;\n\tst.global.u32 \t[%rd1+64], %r32;\n\
                \tmov.b32 \t%r17, 0x3f801000;\n\tcvt.rn.tf32.f32 \t%r18, %r17;\n\tcvt.rna.tf32.f32 \t%r19, %r17;\n\
                \tset.lt.u32.f64 \t%r20, %rd8, %rd9;\n\
                \tmov.b16 \t%rs8, 0xffff;\n\tmov.b32 \t%r21, 0x10000000;\n\tmad.wide.u16 \t%r22, %rs8, %rs8, %r21;\n\
                \tmov.b32 \t%r23, -3;\n\tmov.b32 \t%r24, 0x7fffffff;\n\tmov.b64 \t%rd11, -1;\n\
                \tmad.wide.s32 \t%rd12, %r23, %r24, %rd11;\n\
                \tmov.b32 \t%r25, 0f3F800000;\n\tmov.b32 \t%r26, 0fC0000000;\n\tmov.b32 \t%r27, 0fBFC00000;\n\
                \tmov.b32 \t%r28, 0f40200000;\n\tcvt.rn.f16x2.f32 \t%r29, %r25, %r26;\n\
                \tcvt.rn.bf16x2.f32 \t%r30, %r25, %r26;\n\tcvt.rn.relu.f16x2.f32 \t%r31, %r27, %r28;\n\
                \tst.global.v4.u32 \t[%rd1+48], {%r22, %r29, %r30, %r31};\n\tst.global.u64 \t[%rd1+40], %rd12;\n\
                \tst.global.v4.u32 \t[%rd1], {%r10, %r11, %r12, %r13};\n\tst.global.v4.u32 \t[%rd1+16], {%r16, %r18, %r19, %r20};\n\
                \tst.global.u64 \t[%rd1+32], %rd10;\n";
    let (mem, out) = run_one_thread(body, 9);
    let got = download(&mem, out, 17, 4);
    let want = [
        0x1110_1110, // bytes 1, 0, 1, 0 of b:a
        0x1312_1312, // bytes 3, 2, 3, 2
        7 + 100,
        12 + 100,
        (-2.0f32).to_bits() as u64,
        0x3f80_0000, // the tie rounds to the even TF32 value, 1.0
        0x3f80_2000, // and away from zero
        0xffff_ffff, // -0.0 < 2.0
    ];
    assert_eq!(got[..8], want);
    let wide = download(&mem, out + 32, 2, 8);
    assert_eq!(wide[0], (-2.0f64).to_bits(), "copysign.f64");
    assert_eq!(got[16], 1f32.to_bits() as u64, "copysign.f32 of a positive sign onto -1.0");
    assert_eq!(wide[1], (-3i64 * 0x7fff_ffff - 1) as u64, "mad.wide.s32");
    assert_eq!(
        got[12],
        (0xffff * 0xffff + 0x1000_0000) & 0xffff_ffff,
        "mad.wide.u16 (its 32-bit result wraps)"
    );
    // a into the high half, b into the low one: 1.0 and -2.0 (f16 0x3c00, 0xc000; bf16
    // 0x3f80, 0xc000); with .relu, -1.5 becomes 0 and 2.5 is f16 0x4100.
    assert_eq!(got[13..16], [0x3c00_c000, 0x3f80_c000, 0x0000_4100], "cvt.rn{{.relu}}.{{f16x2,bf16x2}}.f32");
}

/// `prmt` in every mode with every selector, on `b:a` whose byte k is 0x10 + k, against
/// the PTX ISA's table of which byte each mode picks (most significant result byte first).
#[test]
fn prmt_modes_pick_the_bytes_the_isa_lists() {
    let table: [(&str, [[u64; 4]; 4]); 6] = [
        ("f4e", [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]]),
        ("b4e", [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]]),
        ("rc8", [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]]),
        ("ecl", [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]]),
        ("ecr", [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]]),
        ("rc16", [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]]),
    ];
    let mut body = String::from("\tmov.b32 \t%r8, 0x13121110;\n\tmov.b32 \t%r9, 0x17161514;\n");
    for (i, (mode, _)) in table.iter().enumerate() {
        for c in 0..4 {
            let k = 4 * i + c;
            body += &format!(
                "\tprmt.b32.{mode} \t%r10, %r8, %r9, {c};\n\tst.global.u32 \t[%rd1+{}], %r10;\n",
                4 * k
            );
        }
    }
    let (mem, out) = run_one_thread(&body, 12);
    let got = download(&mem, out, 24, 4);
    for (i, (mode, rows)) in table.iter().enumerate() {
        for (c, row) in rows.iter().enumerate() {
            let want = row.iter().fold(0, |d, &k| d << 8 | (0x10 + k));
            assert_eq!(got[4 * i + c], want, "prmt.b32.{mode} with selector {c}");
        }
    }
}

/// Conversions and comparisons at their modifiers: TF32 truncation (`.rz`), `cvt.sat`
/// between floats (a clamp to [0, 1]), `set` flushing subnormal f32 operands only with
/// `.ftz`, `mov` unpacking into the `_` sink, and a carry chain (`add.cc`, `addc`) that
/// leaves the kernel's first predicate alone.
#[test]
fn modifiers_and_carry_chains() {
    let body = "\tmov.b32 \t%r8, 0x3f801fff;\n\tcvt.rz.tf32.f32 \t%r9, %r8;\n\
                \tmov.b32 \t%r10, 0f40000000;\n\tcvt.sat.f32.f32 \t%r11, %r10;\n\
                \tmov.b64 \t%rd8, 0dBFF0000000000000;\n\tcvt.sat.f64.f64 \t%rd9, %rd8;\n\
                \tmov.b32 \t%r12, 0x00000001;\n\tset.lt.u32.f32 \t%r13, 0f00000000, %r12;\n\
                \tset.lt.ftz.u32.f32 \t%r14, 0f00000000, %r12;\n\
                \tmov.b64 \t%rd10, 0x1122334455667788;\n\tmov.b64 \t{_, %r15}, %rd10;\n\
                \tsetp.ne.u32 \t%p0, %r8, %r8;\n\
                \tmov.b32 \t%r16, 0xffffffff;\n\tmov.b32 \t%r17, 1;\n\
                \tadd.cc.u32 \t%r18, %r16, %r17;\n\taddc.u32 \t%r19, %r17, 0;\n\
                \tselp.u32 \t%r20, 1, 0, %p0;\n\
                \tmad.lo.cc.u32 \t%r21, %r16, %r16, %r16;\n\tmadc.hi.u32 \t%r22, %r16, %r16, 0;\n\
                \tst.global.v2.u32 \t[%rd1+40], {%r21, %r22};\n\
                \tst.global.v4.u32 \t[%rd1], {%r9, %r11, %r13, %r14};\n\
                \tst.global.v4.u32 \t[%rd1+16], {%r15, %r18, %r19, %r20};\n\tst.global.u64 \t[%rd1+32], %rd9;\n";
    let (mem, out) = run_one_thread(body, 6);
    let got = download(&mem, out, 8, 4);
    let want = [
        0x3f80_0000,           // the 13 low bits dropped
        1f32.to_bits() as u64, // 2.0 clamped
        0xffff_ffff,           // 0 < the smallest subnormal
        0,                     // flushed: 0 < 0 is false
        0x1122_3344,           // the high word; the low one went to `_`
        0,                     // 0xffffffff + 1, carry out
        2,                     // 1 + 0 + the carry
        0,                     // %p0 as set (false), not overwritten by the carry
    ];
    assert_eq!(got, want);
    assert_eq!(download(&mem, out + 32, 1, 8)[0], 0, "-1.0 saturated to +0.0");
    // (2^32 - 1)^2 = 0xfffffffe_00000001: the low word plus 2^32 - 1 is 0 with a carry,
    // the high word plus the carry 0xffffffff.
    assert_eq!(download(&mem, out + 40, 2, 4), [0, 0xffff_ffff], "mad.lo.cc, madc.hi");
}

/// `dp4a` and `dp2a.lo`/`.hi` with every signedness, against the PTX ISA's sums written
/// here: `c` plus the products of `a`'s bytes (dp4a) or 16-bit halves (dp2a) with `b`'s
/// bytes 0..4, 0..2 or 2..4, each sign-extended where its type is signed.
#[test]
fn dot_products_of_bytes_and_halves() {
    let (a, b, c) = (0x0102_feffu32, 0x807f_03ffu32, 1000u32);
    // Field `i` of `bits` bits of `v`, sign-extended when `signed`.
    let field = |v: u32, bits: u32, i: u32, signed: bool| {
        let x = (v >> (bits * i)) & ((1 << bits) - 1);
        if signed {
            (x << (32 - bits)) as i32 as i64 >> (32 - bits)
        } else {
            x as i64
        }
    };
    let byte = |v, i, signed| field(v, 8, i, signed);
    let half = |v, i, signed| field(v, 16, i, signed);
    let mut body = format!("\tmov.b32 \t%r8, {a:#x};\n\tmov.b32 \t%r9, {b:#x};\n\tmov.b32 \t%r10, {c};\n");
    let mut want = Vec::new();
    let types = [("u32", false), ("s32", true)];
    for (k, ((at, asg), (bt, bsg))) in
        types.iter().flat_map(|x| types.iter().map(move |y| (*x, *y))).enumerate()
    {
        for (j, form) in ["dp4a", "dp2a.lo", "dp2a.hi"].into_iter().enumerate() {
            let slot = 3 * k + j;
            body += &format!(
                "\t{form}.{at}.{bt} \t%r11, %r8, %r9, %r10;\n\tst.global.u32 \t[%rd1+{}], %r11;\n",
                4 * slot
            );
            let sum: i64 = match form {
                "dp4a" => (0..4).map(|i| byte(a, i, asg) * byte(b, i, bsg)).sum(),
                "dp2a.lo" => (0..2).map(|i| half(a, i, asg) * byte(b, i, bsg)).sum(),
                _ => (0..2).map(|i| half(a, i, asg) * byte(b, i + 2, bsg)).sum(),
            };
            want.push((form, at, bt, (c as i64 + sum) as u32 as u64));
        }
    }
    let (mem, out) = run_one_thread(&body, 6);
    let got = download(&mem, out, 12, 4);
    for (slot, (form, at, bt, w)) in want.into_iter().enumerate() {
        assert_eq!(got[slot], w, "{form}.{at}.{bt}");
    }
}

/// `cvt` to a signed integer type narrower than its destination register sign-extends the
/// result to the register's width (PTX's relaxed type rules for destinations); to an
/// unsigned one it zero-extends.
#[test]
fn cvt_to_a_narrow_signed_type_sign_extends_into_a_wider_register() {
    let body = "\tmov.b32 \t%r8, -1;\n\tmov.b32 \t%r9, -200;\n\tmov.b32 \t%r10, 0fC2F60000;\n\
                \tcvt.s8.s32 \t%rs8, %r8;\n\tcvt.u32.u16 \t%r11, %rs8;\n\
                \tcvt.s8.s32 \t%r12, %r8;\n\tcvt.sat.s8.s32 \t%r13, %r9;\n\
                \tcvt.u8.s32 \t%r14, %r8;\n\tcvt.rzi.s16.f32 \t%r15, %r10;\n\
                \tcvt.s32.s8 \t%rd8, %r9;\n\
                \tst.global.v4.u32 \t[%rd1], {%r11, %r12, %r13, %r14};\n\
                \tst.global.u32 \t[%rd1+16], %r15;\n\tst.global.u64 \t[%rd1+24], %rd8;\n";
    let (mem, out) = run_one_thread(body, 4);
    let got = download(&mem, out, 5, 4);
    assert_eq!(got, [0xffff, 0xffff_ffff, 0xffff_ff80, 0xff, 0xffff_ff85], "cvt into wider registers");
    // -200 is 0x38 as a byte, positive: sign-extended it stays 0x38.
    assert_eq!(download(&mem, out + 24, 1, 8)[0], 0x38, "cvt.s32.s8 into a 64-bit register");
}

/// `.shared` variables of every element type, one element or an array, in the kernel and
/// at module scope (each kernel gets those it names): `count × element size` bytes each,
/// laid out at their alignments (the element size without `.align`), reached by name.
#[test]
fn shared_variables_of_any_element_type_in_kernels_and_modules() {
    let text = ".version 8.5\n.target sm_80\n.address_size 64\n\n\
                .shared .align 4 .u32 mx;\n\
                .visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\
                \t.reg .b32 \t%r<8>;\n\t.reg .b64 \t%rd<16>;\n\t.reg .f64 \t%fd<2>;\n\
                \t.shared .align 4 .f32 total;\n\t.shared .align 8 .f64 arr[32];\n\
                \t.shared .align 4 .b32 x[16];\n\t.shared .u16 h[3];\n\t.shared .s8 c;\n\
                \tld.param.u64 \t%rd1, [k_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\
                \tmov.u64 \t%rd3, mx;\n\tmov.u64 \t%rd4, total;\n\tmov.u64 \t%rd5, arr;\n\
                \tmov.u64 \t%rd6, x;\n\tmov.u64 \t%rd7, h;\n\tmov.u64 \t%rd8, c;\n\
                \tst.global.v2.u64 \t[%rd2], {%rd3, %rd4};\n\tst.global.v2.u64 \t[%rd2+16], {%rd5, %rd6};\n\
                \tst.global.v2.u64 \t[%rd2+32], {%rd7, %rd8};\n\
                \tmov.b32 \t%r4, 7;\n\tmov.b32 \t%r5, 0f3FC00000;\n\tmov.b32 \t%r6, 9;\n\
                \tst.shared.u32 \t[mx], %r4;\n\tst.shared.f32 \t[total], %r5;\n\
                \tmov.b64 \t%fd1, 0d4000000000000000;\n\tst.shared.f64 \t[arr+248], %fd1;\n\
                \tst.shared.b32 \t[x+60], %r6;\n\
                \tld.shared.u32 \t%r1, [mx];\n\tld.shared.f32 \t%r2, [total];\n\
                \tld.shared.f64 \t%rd9, [arr+248];\n\tld.shared.b32 \t%r3, [x+60];\n\
                \tst.global.v2.u32 \t[%rd2+48], {%r1, %r2};\n\tst.global.u64 \t[%rd2+56], %rd9;\n\
                \tst.global.u32 \t[%rd2+64], %r3;\n\tret;\n}\n\n\
                .visible .entry other(\n\t.param .u64 other_param_0\n)\n{\n\
                \t.reg .b64 \t%rd<4>;\n\t.shared .align 4 .f32 total;\n\
                \tld.param.u64 \t%rd1, [other_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\
                \tmov.u64 \t%rd3, total;\n\tst.global.u64 \t[%rd2], %rd3;\n\tret;\n}\n";
    let m = parse(text);
    let mem = Memory::new();
    let out = upload(&mem, &[u64::MAX; 9], 8);
    launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out], &mem, 1).unwrap();
    // mx 4 bytes at 0, total at 4, arr (256 bytes) at 8, x (64) at 264, h (6, 2-aligned)
    // at 328, c at 334.
    assert_eq!(download(&mem, out, 6, 8), [0, 4, 8, 264, 328, 334], "offsets");
    assert_eq!(download(&mem, out + 48, 2, 4), [7, 0x3fc0_0000]);
    assert_eq!(download(&mem, out + 56, 1, 8), [0x4000_0000_0000_0000]);
    assert_eq!(download(&mem, out + 64, 1, 4), [9]);
    assert_eq!(m.kernel("k").unwrap().static_shared_bytes(), 335);
    launch(m.kernel("other").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out], &mem, 1).unwrap();
    assert_eq!(download(&mem, out, 1, 8), [0], "a kernel not naming `mx` has no room for it");
}

/// `WARP_SZ`, PTX's predefined warp-size constant (CUDA's `warpSize`), is the immediate 32
/// wherever an integer immediate may stand.
#[test]
fn warp_sz_is_the_immediate_32() {
    let body = "\tmov.u32 \t%r8, WARP_SZ;\n\tadd.u32 \t%r9, %r8, WARP_SZ;\n\
                \trem.u32 \t%r10, 70, WARP_SZ;\n\tmov.u16 \t%rs8, WARP_SZ;\n\tcvt.u32.u16 \t%r11, %rs8;\n\
                \tst.global.v4.u32 \t[%rd1], {%r8, %r9, %r10, %r11};\n";
    let (mem, out) = run_one_thread(body, 2);
    assert_eq!(download(&mem, out, 4, 4), [32, 64, 6, 32]);
}

/// `div.approx.f32` is `a * (1/b)` (PTX ISA): for 2^126 < |b| < 2^128 the reciprocal
/// underflows, so the result is a zero signed as the quotient for finite `a` and NaN for
/// infinite `a`, in both `.approx` models; `div.full.f32` scales its operands and divides
/// over the whole range.
#[test]
fn div_approx_by_a_divisor_above_two_to_the_126_is_zero_or_nan() {
    // b = 2^127 (0x7f000000), -2^127 and 2^126 (0x7e800000, where the range starts: open).
    let body = "\tmov.b32 \t%r8, 0f7F000000;\n\tmov.b32 \t%r9, 0fFF000000;\n\tmov.b32 \t%r10, 0f7E800000;\n\
                \tmov.b32 \t%r11, 0f7F7FFFFF;\n\tmov.b32 \t%r12, 0f7F800000;\n\tmov.b32 \t%r13, 0f40000000;\n\
                \tdiv.approx.f32 \t%r14, %r11, %r8;\n\tdiv.approx.f32 \t%r15, %r13, %r9;\n\
                \tdiv.approx.f32 \t%r16, %r12, %r8;\n\tdiv.approx.ftz.f32 \t%r17, %r12, %r10;\n\
                \tdiv.full.f32 \t%r18, %r11, %r8;\n\tdiv.full.f32 \t%r19, %r12, %r8;\n\
                \tst.global.v4.u32 \t[%rd1], {%r14, %r15, %r16, %r17};\n\
                \tst.global.v2.u32 \t[%rd1+16], {%r18, %r19};\n";
    for approx in [Approx::Accurate, Approx::WorstCase] {
        let (mem, out) = run_one_thread_with(body, 3, &SimOptions { approx, ..SimOptions::default() });
        let want = [
            0,           // f32::MAX / 2^127: 0, not 2 - 2^-23
            0x8000_0000, // 2 / -2^127: -0
            0x7fff_ffff, // inf / 2^127: NaN
            0x7f80_0000, // inf / 2^126: outside the range, divided
        ];
        assert_eq!(download(&mem, out, 4, 4), want, "div.approx.f32 ({approx:?})");
        let full = download(&mem, out + 16, 2, 4);
        assert_eq!(full[1], 0x7f80_0000, "div.full.f32 of inf by 2^127 ({approx:?})");
        let max_over = f32::MAX as f64 / 2f64.powi(127);
        let got = f32::from_bits(full[0] as u32) as f64;
        assert!((got - max_over).abs() <= 2.0 * 2f64.powi(-23), "div.full.f32 is full range: {got}");
    }
}

/// `Approx::WorstCase` moves a result by the error the ISA allows, but never an exact
/// special value (`tanh(±inf)` is ±1), never across zero (`ex2` of very negative inputs
/// stays at or above +0, `sin` of a tiny positive input at or above +0) and never outside
/// the function's range (`sin`, `cos`, `tanh` within [-1, 1]).
#[test]
fn worst_case_approximations_keep_special_values_signs_and_ranges() {
    let cases: [(&str, Vec<f32>); 5] = [
        ("tanh", vec![f32::INFINITY, f32::NEG_INFINITY]),
        ("tanh", (0..32).map(|k| 6.0 + k as f32 * 0.5).flat_map(|x| [x, -x]).collect()),
        ("ex2", (0..64).map(|k| -140.0 - k as f32 * 0.75).collect()),
        ("sin", (0..64).map(|k| 1e-12 * (k + 1) as f32).collect()),
        ("cos", (0..64).map(|k| 1e-6 * k as f32).flat_map(|x| [x, -x]).collect()),
    ];
    let options = SimOptions { approx: Approx::WorstCase, ..SimOptions::default() };
    for (op, xs) in cases {
        let mut body = String::new();
        for (i, x) in xs.iter().enumerate() {
            body += &format!(
                "\tmov.b32 \t%r8, 0f{:08X};\n\t{op}.approx.f32 \t%r9, %r8;\n\tst.global.u32 \t[%rd1+{}], %r9;\n",
                x.to_bits(),
                4 * i
            );
        }
        let (mem, out) = run_one_thread_with(&body, xs.len().div_ceil(2), &options);
        for (x, got) in xs.iter().zip(download(&mem, out, xs.len(), 4)) {
            let y = f32::from_bits(got as u32);
            match op {
                "tanh" if x.is_infinite() => assert_eq!(got, 1f32.copysign(*x).to_bits() as u64, "tanh({x})"),
                "tanh" => {
                    assert!(y.abs() <= 1.0 && y.is_sign_negative() == x.is_sign_negative(), "tanh({x}) = {y}")
                }
                "cos" => assert!(y <= 1.0 && y > 0.99, "cos({x}) = {y}"),
                _ => assert!(got >> 31 == 0, "{op}({x}) = {y} crossed zero"),
            }
        }
    }
}

/// What ptxas rejects is an error at load naming the line: a module without `.version` or
/// `.target`, `setp` into a register that is no predicate, and arithmetic on registers whose
/// type does not fit the instruction's (a float only with itself or a bit type of its size;
/// `.uN` and `.sN` with each other).
#[test]
fn ill_typed_operands_and_missing_module_directives_are_errors() {
    let err = |text: &str| match Module::parse(text) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("loaded:\n{text}"),
    };
    let full = kernel_text("");
    assert!(err(&full.replacen(".version 8.5\n", "", 1)).contains("no `.version`"));
    assert!(err(&full.replacen(".target sm_80\n", "", 1)).contains("no `.target`"));
    let bad = [
        "\tsetp.eq.u32 \t%r8, %r9, %r10;\n",
        "\tadd.f32 \t%r8, %rd8, %r9;\n",
        "\tadd.u32 \t%r8, %rd8, %r9;\n",
        "\tmul.lo.s16 \t%rs8, %r8, %rs9;\n",
        "\tsub.f64 \t%rd8, %rd9, %r8;\n",
    ];
    for body in bad {
        let text = kernel_text(body)
            .replace("\t.reg .b32 \t%r<256>;", "\t.reg .b32 \t%r<256>;\n\t.reg .f32 \t%f<4>;");
        let e = err(&text);
        assert!(e.contains("line 21"), "{body}: {e}");
    }
    let text =
        kernel_text("\tadd.f32 \t%f1, %f2, %f3;\n\tadd.f32 \t%r8, %f2, %f3;\n\tadd.f32 \t%f1, %f2, %r8;\n")
            .replace("\t.reg .b32 \t%r<256>;", "\t.reg .b32 \t%r<256>;\n\t.reg .f32 \t%f<4>;");
    let e = err(&text.replace("add.f32 \t%f1, %f2, %r8", "add.f64 \t%f1, %f2, %r8"));
    assert!(e.contains("%f1") && e.contains(".f32 register"), "{e}");
    parse(&text);
    parse(&kernel_text(
        "\tadd.s32 \t%r8, %r9, 1;\n\tshl.b64 \t%rd8, %rd9, %r8;\n\tadd.u16 \t%rs8, %rs9, %rs10;\n",
    ));
}

/// `mad.hi` of every 32- and 64-bit integer type (the high half of the full product plus
/// `c`, wrapping), `mad.hi.sat.s32` (that sum clamped to the s32 range) and
/// `add.sat.s32`/`sub.sat.s32` at the edges of the range.
#[test]
fn mad_hi_and_saturating_s32_arithmetic() {
    let body = "\tmov.b32 \t%r8, 0xffffffff;\n\tmov.b32 \t%r9, 0x80000000;\n\tmov.b32 \t%r10, 0x7fffffff;\n\
                \tmad.hi.u32 \t%r11, %r8, %r8, %r8;\n\tmad.hi.s32 \t%r12, %r9, %r9, %r10;\n\
                \tmad.hi.s32 \t%r13, %r8, 5, 1;\n\tmad.hi.sat.s32 \t%r14, %r9, %r9, %r10;\n\
                \tmad.hi.sat.s32 \t%r15, %r9, %r10, %r9;\n\
                \tadd.sat.s32 \t%r16, %r10, 1;\n\tadd.sat.s32 \t%r17, %r9, -1;\n\
                \tsub.sat.s32 \t%r18, %r9, 1;\n\tsub.sat.s32 \t%r19, 0, %r9;\n\
                \tadd.sat.s32 \t%r20, %r10, %r9;\n\
                \tmov.b64 \t%rd8, -1;\n\tmov.b64 \t%rd9, 0x8000000000000000;\n\
                \tmad.hi.u64 \t%rd10, %rd8, %rd8, 3;\n\tmad.hi.s64 \t%rd11, %rd9, %rd9, %rd8;\n\
                \tmad.hi.s64 \t%rd12, %rd8, %rd8, 0;\n\
                \tst.global.v4.u32 \t[%rd1], {%r11, %r12, %r13, %r14};\n\
                \tst.global.v4.u32 \t[%rd1+16], {%r15, %r16, %r17, %r18};\n\
                \tst.global.v2.u32 \t[%rd1+32], {%r19, %r20};\n\
                \tst.global.v2.u64 \t[%rd1+48], {%rd10, %rd11};\n\tst.global.u64 \t[%rd1+64], %rd12;\n";
    let (mem, out) = run_one_thread(body, 9);
    let got = download(&mem, out, 10, 4);
    let want = [
        0xffff_fffd, // (2^32-1)^2 = 0xfffffffe_00000001: 0xfffffffe + 0xffffffff wraps
        0xbfff_ffff, // (-2^31)^2 = 2^62: high 2^30, plus 2^31 - 1 wraps to negative
        0,           // -1 * 5 = -5: high -1, plus 1
        0x7fff_ffff, // 2^30 + 2^31 - 1 clamped
        0x8000_0000, // -2^31 * (2^31 - 1) = -2^62 + 2^31: high -2^30, plus -2^31 clamped
        0x7fff_ffff, // add.sat: MAX + 1
        0x8000_0000, // MIN - 1
        0x8000_0000, // sub.sat: MIN - 1
        0x7fff_ffff, // 0 - MIN
        0xffff_ffff, // MAX + MIN = -1, in range
    ];
    assert_eq!(got, want);
    let wide = download(&mem, out + 48, 3, 8);
    // (2^64-1)^2 = 0xfffffffffffffffe_0000000000000001: high + 3 wraps to 1; (-2^63)^2 =
    // 2^126: high 2^62, minus 1; (-1)(-1) = 1: high 0.
    assert_eq!(wide, [1, (1u64 << 62) - 1, 0], "mad.hi.u64, mad.hi.s64");
}

/// Runs `setup`, then each case's instruction, which writes `%rd20` (64-bit) or `%r20`,
/// storing that register to its own 8-byte slot; asserts each slot holds the case's bits.
/// The output buffer has one more word, after the slots, for `setup` to store data in.
fn check_each(setup: &str, cases: &[(&str, u64)]) {
    let mut body = String::from(setup);
    for (k, (instr, _)) in cases.iter().enumerate() {
        let store = if instr.contains("%rd20") { "u64 \t[%rd1+{}], %rd20" } else { "u32 \t[%rd1+{}], %r20" };
        body += &format!("\t{instr};\n\tst.global.{};\n", store.replace("{}", &(8 * k).to_string()));
    }
    let (mem, out) = run_one_thread(&body, cases.len() + 1);
    let got = download(&mem, out, cases.len(), 8);
    for ((instr, want), got) in cases.iter().zip(got) {
        // A 32-bit store leaves the slot's high word all ones.
        let got = if instr.contains("%rd20") { got } else { got & 0xffff_ffff };
        assert_eq!(got, *want, "{instr}: {got:#x}, not {want:#x}");
    }
}

/// `lop3.b32` with the tables of familiar functions, each against that function written in
/// Rust: the PTX ISA's table is the function applied to 0xF0, 0xCC, 0xAA.
#[test]
fn lop3_computes_the_function_its_table_encodes() {
    let (a, b, c) = (0x0ff0_3c5au32, 0x33cc_f00fu32, 0x5a5a_a5a5u32);
    let setup = format!("\tmov.b32 \t%r8, {a:#x};\n\tmov.b32 \t%r9, {b:#x};\n\tmov.b32 \t%r10, {c:#x};\n");
    let functions: [(u8, u32); 10] = [
        (0xf0, a),
        (0xcc, b),
        (0xaa, c),
        (0x80, a & b & c),
        (0xfe, a | b | c),
        (0x01, !(a | b | c)),
        (0x96, a ^ b ^ c),
        (0xe8, (a & b) | (a & c) | (b & c)),
        (0xca, (a & b) | (!a & c)),
        (0x6a, (a & b) ^ c),
    ];
    let instrs: Vec<(String, u64)> = functions
        .iter()
        .map(|(lut, f)| (format!("lop3.b32 \t%r20, %r8, %r9, %r10, {lut:#x}"), *f as u64))
        .collect();
    let cases: Vec<(&str, u64)> = instrs.iter().map(|(i, w)| (i.as_str(), *w)).collect();
    check_each(&setup, &cases);
}

/// `slct` on an s32 `c` (negative selects `b`) and an f32 one (`c >= 0`: -0.0 selects `a`,
/// NaN and -inf select `b`; a negative subnormal selects `b`, or with `.ftz`, flushed to
/// -0.0, `a`), the selected operand copied whole at 16, 32 and 64 bits; and `cnot`.
#[test]
fn slct_and_cnot_at_signed_zero_nan_and_the_extremes() {
    let setup = "\tmov.b32 \t%r8, 0x80000000;\n\tmov.b32 \t%r9, 0x7fffffff;\n\tmov.b32 \t%r10, 0x7fc00000;\n\
                 \tmov.b32 \t%r11, 0x80000001;\n\tmov.b32 \t%r12, 0xff800000;\n\tmov.b32 \t%r13, -1;\n\
                 \tmov.b64 \t%rd8, 0x8000000000000001;\n\tmov.b64 \t%rd9, 0x7ff8000000000000;\n\
                 \tmov.b16 \t%rs8, 0xfffe;\n\tmov.b16 \t%rs9, 0;\n";
    let cases = [
        ("slct.b32.s32 \t%r20, 10, 20, 0", 10),
        ("slct.b32.s32 \t%r20, 10, 20, %r13", 20),
        ("slct.u32.s32 \t%r20, 10, 20, %r9", 10),
        ("slct.s32.s32 \t%r20, 10, 20, %r8", 20),
        ("slct.b32.f32 \t%r20, 10, 20, %r8", 10),
        ("slct.b32.f32 \t%r20, 10, 20, %r10", 20),
        ("slct.b32.f32 \t%r20, 10, 20, 0fFFC00000", 20),
        ("slct.b32.f32 \t%r20, 10, 20, %r11", 20),
        ("slct.ftz.b32.f32 \t%r20, 10, 20, %r11", 10),
        ("slct.b32.f32 \t%r20, 10, 20, 0f7F800000", 10),
        ("slct.b32.f32 \t%r20, 10, 20, %r12", 20),
        ("slct.f32.s32 \t%r20, %r10, %r12, 1", 0x7fc0_0000),
        ("slct.b64.s32 \t%rd20, %rd8, %rd9, 0", 0x8000_0000_0000_0001),
        ("slct.f64.f32 \t%rd20, %rd8, %rd9, %r13", 0x7ff8_0000_0000_0000),
        ("slct.b16.s32 \t%rs10, %rs8, %rs9, 5;\n\tcvt.u32.u16 \t%r20, %rs10", 0xfffe),
        ("cnot.b32 \t%r20, 0", 1),
        ("cnot.b32 \t%r20, %r8", 0),
        ("cnot.b32 \t%r20, 1", 0),
        ("cnot.b16 \t%rs10, %rs9;\n\tcvt.u32.u16 \t%r20, %rs10", 1),
        ("cnot.b16 \t%rs10, %rs8;\n\tcvt.u32.u16 \t%r20, %rs10", 0),
        ("cnot.b64 \t%rd20, %rd8", 0),
        ("cnot.b64 \t%rd20, 0", 1),
    ];
    check_each(setup, &cases);
}

/// `mul24` and `mad24`: the low 24 bits of each operand, sign-extended for `.s32` (0x800000
/// is -2^23, 0xffffff is -1) or not, multiplied to 48 bits; `.lo` bits 0..32, `.hi` bits
/// 16..48; `mad24` adds `c` wrapping, or with `.hi.sat.s32` clamped to the s32 range.
#[test]
fn mul24_and_mad24_take_24_bit_operands() {
    let setup = "\tmov.b32 \t%r8, 0xff800000;\n\tmov.b32 \t%r9, 0x00ffffff;\n\tmov.b32 \t%r10, 0x00800000;\n";
    let cases = [
        ("mul24.lo.s32 \t%r20, %r8, %r9", 0x0080_0000),   // (-2^23)(-1)
        ("mul24.hi.s32 \t%r20, %r8, %r9", 0x80),          // 2^23 >> 16
        ("mul24.lo.u32 \t%r20, %r8, %r9", 0xff80_0000),   // 2^23 (2^24 - 1) = 2^47 - 2^23
        ("mul24.hi.u32 \t%r20, %r8, %r9", 0x7fff_ff80),   // (2^47 - 2^23) >> 16
        ("mul24.lo.s32 \t%r20, %r10, %r10", 0),           // 2^46
        ("mul24.hi.s32 \t%r20, %r10, %r10", 0x4000_0000), // 2^46 >> 16
        ("mul24.lo.s32 \t%r20, %r10, 3", 0xfe80_0000),    // -3 * 2^23
        ("mul24.hi.s32 \t%r20, %r10, 3", 0xffff_fe80),    // -3 * 2^7
        ("mul24.hi.u32 \t%r20, %r10, 3", 0x180),
        ("mad24.lo.u32 \t%r20, %r8, %r9, %r10", 0), // 0xff800000 + 2^23 wraps
        ("mad24.hi.s32 \t%r20, %r10, 3, 0x180", 0),
        ("mad24.hi.u32 \t%r20, %r10, %r10, 0x7fffffff", 0xbfff_ffff),
        ("mad24.hi.sat.s32 \t%r20, %r10, %r10, 0x7fffffff", 0x7fff_ffff),
        ("mad24.hi.sat.s32 \t%r20, %r10, 3, 0x80000000", 0x8000_0000),
    ];
    check_each(setup, &cases);
}

/// A signed load narrower than its destination register sign-extends to the register's
/// width (`ld.s16` and `ld.s8` into 32 bits, `ld.s32` into 64; global, local, shared and
/// generic addresses, vectors too); an unsigned one zero-extends.
#[test]
fn signed_loads_sign_extend_into_wider_registers() {
    // The data, 0x80018001 and 0x80000080, in the word after the 9 slots, in `.local` and
    // in `.shared`.
    let setup = "\tmov.b32 \t%r8, 0x80018001;\n\tmov.b32 \t%r9, 0x80000080;\n\
                 \tst.global.v2.u32 \t[%rd1+72], {%r8, %r9};\n\tst.local.v2.u32 \t[depot], {%r8, %r9};\n\
                 \tst.shared.v2.u32 \t[tile], {%r8, %r9};\n\tmov.u64 \t%rb, depot;\n\tcvta.local.u64 \t%rd9, %rb;\n";
    let cases = [
        ("ld.global.s16 \t%r20, [%rd1+72]", 0xffff_8001),
        ("ld.s16 \t%r20, [%rd9]", 0xffff_8001),
        ("ld.shared.v2.s16 \t{%r21, %r20}, [tile]", 0xffff_8001),
        ("ld.local.u16 \t%r20, [depot]", 0x8001),
        ("ld.local.s8 \t%r20, [depot+4]", 0xffff_ff80),
        ("ld.global.s8 \t%rs10, [%rd1+76];\n\tcvt.u32.u16 \t%r20, %rs10", 0xff80),
        ("ld.global.s16 \t%rs10, [%rd1+72];\n\tcvt.u32.u16 \t%r20, %rs10", 0x8001),
        ("ld.global.s32 \t%rd20, [%rd1+76]", 0xffff_ffff_8000_0080),
        ("ld.global.u32 \t%rd20, [%rd1+76]", 0x8000_0080),
    ];
    check_each(setup, &cases);
}

/// `bmsk` and `szext` at the widths and positions where `.clamp` and `.wrap` differ (32 and
/// more) and at width 0, against the PTX ISA's pseudo-code worked by hand.
#[test]
fn bmsk_and_szext_clamp_or_wrap_large_operands() {
    let cases = [
        ("bmsk.wrap.b32 \t%r20, 1, 2", 0x6),
        ("bmsk.wrap.b32 \t%r20, 0, 0", 0),
        ("bmsk.wrap.b32 \t%r20, 31, 1", 0x8000_0000),
        ("bmsk.wrap.b32 \t%r20, 4, 28", 0xffff_fff0), // the sum reaches 32
        ("bmsk.wrap.b32 \t%r20, 4, 29", 0xffff_fff0),
        ("bmsk.wrap.b32 \t%r20, 33, 2", 0x6), // the position modulo 32
        ("bmsk.clamp.b32 \t%r20, 33, 2", 0),
        ("bmsk.wrap.b32 \t%r20, 0, 32", 0), // the width modulo 32: 0
        ("bmsk.clamp.b32 \t%r20, 0, 32", 0xffff_ffff),
        ("bmsk.clamp.b32 \t%r20, 8, 40", 0xffff_ff00),
        ("szext.wrap.s32 \t%r20, 0x80, 8", 0xffff_ff80),
        ("szext.wrap.s32 \t%r20, 0x17f, 8", 0x7f),
        ("szext.wrap.u32 \t%r20, 0x180, 8", 0x80),
        ("szext.wrap.u32 \t%r20, 0xffffffff, 0", 0),
        ("szext.wrap.s32 \t%r20, 0xffffffff, 32", 0),
        ("szext.clamp.s32 \t%r20, 0x92345678, 32", 0x9234_5678),
        ("szext.clamp.u32 \t%r20, 0x92345678, 100", 0x9234_5678),
        ("szext.wrap.s32 \t%r20, 0x8, 36", 0xffff_fff8),
        ("szext.clamp.s32 \t%r20, 1, 1", 0xffff_ffff),
    ];
    check_each("", &cases);
}

/// Runs `body` on one thread as [`run_one_thread`] does, with `globals` (module-scope
/// declarations) before the kernel.
fn run_one_thread_with_globals(globals: &str, body: &str, words: usize) -> (Memory, u64) {
    let text = kernel_text(body).replacen(".address_size 64\n", &format!(".address_size 64\n{globals}"), 1);
    let m = parse(&text);
    let mem = Memory::new();
    let out = upload(&mem, &vec![u64::MAX; words], 8);
    launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out, out], &mem, 1)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    (mem, out)
}

/// Integer literals are read as the PTX ISA writes them, in immediates and initialisers
/// alike: `0[0-7]+` octal (`010` is 8), `0[bB][01]+` binary, `0[xX]` hex and decimal, each
/// with an optional `U` suffix and a leading `-`.
#[test]
fn integer_literals_are_octal_binary_hex_or_decimal() {
    let globals = ".global .align 4 .u32 g[6] = {010, 0b101, -0x10, 7U, 0B11U, -010};\n";
    let body = "\tmov.u32 \t%r8, 010;\n\tmov.u32 \t%r9, 0b101U;\n\tmov.u32 \t%r10, -010;\n\
                \tmov.u32 \t%r11, -0B11;\n\tadd.u32 \t%r12, %r8, 017U;\n\tmov.u32 \t%r13, -0x10;\n\
                \tmov.u32 \t%r14, 0;\n\tmov.u64 \t%rd8, 0777777777777777777777U;\n\
                \tst.global.v4.u32 \t[%rd1], {%r8, %r9, %r10, %r11};\n\
                \tst.global.v2.u32 \t[%rd1+16], {%r12, %r13};\n\tst.global.u32 \t[%rd1+24], %r14;\n\
                \tst.global.u64 \t[%rd1+32], %rd8;\n\
                \tmov.u64 \t%rd9, g;\n\tld.global.v4.u32 \t{%r16, %r17, %r18, %r19}, [%rd9];\n\
                \tld.global.v2.u32 \t{%r20, %r21}, [%rd9+16];\n\
                \tst.global.v4.u32 \t[%rd1+48], {%r16, %r17, %r18, %r19};\n\
                \tst.global.v2.u32 \t[%rd1+64], {%r20, %r21};\n";
    let (mem, out) = run_one_thread_with_globals(globals, body, 10);
    assert_eq!(
        download(&mem, out, 7, 4),
        [8, 5, (-8i32) as u32 as u64, (-3i32) as u32 as u64, 23, 0xffff_fff0, 0]
    );
    assert_eq!(download(&mem, out + 32, 1, 8), [0o777777777777777777777]);
    assert_eq!(download(&mem, out + 48, 6, 4), [8, 5, 0xffff_fff0, 7, 3, (-8i32) as u32 as u64]);
}

/// Decimal float immediates and initialisers (`1.5`, `.5`, `1.`, `1e-3`, `-2.5E+2`) are
/// read as the nearest double, rounded to nearest f32 for `.f32` (what ptxas encodes:
/// `0.1` is 0x3dcccccd, `1e-45` the least subnormal, `3.4028235677973366e38` infinity).
#[test]
fn decimal_float_immediates_are_the_nearest_double_rounded_to_the_type() {
    let globals = ".global .align 8 .f64 gd = 0.1;\n.global .align 4 .f32 gf[2] = {0.1, -2.5E+2};\n";
    let body = "\tmov.f32 \t%r8, 1.5;\n\tadd.f32 \t%r9, %r8, 0.25;\n\tmov.f32 \t%r10, 0.1;\n\
                \tmov.f32 \t%r11, 1e-45;\n\tmov.f32 \t%r12, 3.4028235677973366e38;\n\tmov.f32 \t%r13, .5;\n\
                \tmov.f32 \t%r14, -1.;\n\tmov.f32 \t%r15, -2.5E+2;\n\
                \tst.global.v4.u32 \t[%rd1], {%r8, %r9, %r10, %r11};\n\
                \tst.global.v4.u32 \t[%rd1+16], {%r12, %r13, %r14, %r15};\n\
                \tmov.f64 \t%rd8, 0.1;\n\tmul.f64 \t%rd9, %rd8, 1e-3;\n\
                \tst.global.v2.u64 \t[%rd1+32], {%rd8, %rd9};\n\
                \tmov.u64 \t%rd10, gd;\n\tld.global.u64 \t%rd11, [%rd10];\n\
                \tmov.u64 \t%rd12, gf;\n\tld.global.u64 \t%rd13, [%rd12];\n\
                \tst.global.v2.u64 \t[%rd1+48], {%rd11, %rd13};\n";
    let (mem, out) = run_one_thread_with_globals(globals, body, 8);
    let f = |v: f32| v.to_bits() as u64;
    assert_eq!(
        download(&mem, out, 8, 4),
        [f(1.5), f(1.75), 0x3dcc_cccd, 1, 0x7f80_0000, f(0.5), f(-1.0), f(-250.0)]
    );
    assert_eq!(download(&mem, out + 32, 2, 8), [0.1f64.to_bits(), (0.1f64 * 1e-3).to_bits()]);
    assert_eq!(download(&mem, out + 48, 2, 8), [0.1f64.to_bits(), (f(-250.0) << 32) | 0x3dcc_cccd]);
}

/// A store's source may be an immediate, alone or in a vector (`st.global.u32 [%rd1], 0;`,
/// `{%r8, 7}`), of any type the store has, bytes and floats included.
#[test]
fn stores_take_immediate_sources() {
    let body =
        "\tmov.u32 \t%r8, 5;\n\tmov.u16 \t%rs8, 9;\n\tst.global.u32 \t[%rd1], 0;\n\tst.global.v2.u32 \t[%rd1+8], {%r8, 7};\n\
                \tst.global.u8 \t[%rd1+4], 0xab;\n\tst.global.f32 \t[%rd1+16], 1.5;\n\
                \tst.global.u64 \t[%rd1+24], -2;\n\tst.global.v4.u16 \t[%rd1+32], {1, %rs8, 0b11, 010};\n";
    let (mem, out) = run_one_thread(body, 6);
    assert_eq!(download(&mem, out, 5, 4), [0, 0xffff_ffab, 5, 7, 1.5f32.to_bits() as u64]);
    assert_eq!(download(&mem, out + 24, 1, 8), [(-2i64) as u64]);
    assert_eq!(download(&mem, out + 32, 4, 2), [1, 9, 3, 8]);
}

/// `/* */` block comments are comments anywhere (within a line, over several, inside a
/// statement), and `//` or `/*` inside a string (`.file`'s name) starts none; a `/*` never
/// closed is an error naming its line.
#[test]
fn block_comments_anywhere_and_none_inside_strings() {
    let globals = ".file 1 \"/home/u/src/*kern*.cu\"\n.file 2 \"//net/a//b.cu\"\n/* a block\n   comment */\n";
    let body = "\tmov.u32 \t%r8, 40; /* forty */ // and \"quoted\" /*\n\
                \tadd.u32 \t%r9, %r8, /* two,\n   over lines */ 2;\n\
                /* between */ \tmul.lo.u32 \t%r10, %r9, 2; /* after */\n\
                \tst.global.v2.u32 \t[%rd1], {%r8, %r10};\n";
    let (mem, out) = run_one_thread_with_globals(globals, body, 1);
    assert_eq!(download(&mem, out, 2, 4), [40, 84]);
    let text = kernel_text(body).replacen(".address_size 64\n", &format!(".address_size 64\n{globals}"), 1);
    let entries = ptx_sim::signature::entries(&text).unwrap();
    assert_eq!(entries.iter().map(|e| (e.name.as_str(), e.params.len())).collect::<Vec<_>>(), [("k", 2)]);
    let open = text.replacen("/* after */", "/* after", 1);
    let line = open.lines().position(|l| l.contains("/* after")).unwrap() + 1;
    let err = Module::parse(&open).err().unwrap().to_string();
    assert!(err.contains(&format!("line {line}")) && err.contains("unterminated block comment"), "{err}");
    let err = ptx_sim::signature::entries(&open).unwrap_err();
    assert_eq!(err, format!("line {line}: unterminated block comment `/*`"));
}

/// `%dynamic_smem_size` is the launch's dynamic shared bytes; `%total_smem_size` and
/// `%aggr_smem_size` the static plus dynamic bytes in whole 128-byte allocation units (the
/// simulator reserves no shared memory).
#[test]
fn shared_memory_size_registers() {
    let body = "\tmov.u32 \t%r8, %dynamic_smem_size;\n\tmov.u32 \t%r9, %total_smem_size;\n\
                \tmov.u32 \t%r10, %aggr_smem_size;\n\tst.global.v2.u32 \t[%rd1], {%r8, %r9};\n\
                \tst.global.u32 \t[%rd1+8], %r10;\n";
    let text = kernel_text(body).replace(".target sm_80", ".target sm_90");
    let m = parse(&text);
    let k = m.kernel("k").unwrap();
    assert_eq!(k.static_shared_bytes(), 32, "the kernel's `tile`");
    for (dynamic, want) in [(0, [0, 128, 128]), (200, [200, 256, 256]), (96, [96, 128, 128])] {
        let mem = Memory::new();
        let out = upload(&mem, &[u64::MAX; 2], 8);
        let g = Geometry { grid: [1, 1, 1], block: [1, 1, 1], dynamic_shared_bytes: dynamic };
        launch(k, &g, &[out, out], &mem, 1).unwrap();
        assert_eq!(download(&mem, out, 3, 4), want, "{dynamic} dynamic bytes");
    }
}

/// An indirect call (a function's address taken with `mov`, `call` through a register with a
/// `.callprototype`) is an unsupported construct, named with its line, not a malformed one.
#[test]
fn indirect_calls_are_unsupported_function_pointers() {
    let text = ".version 8.5\n.target sm_90\n.address_size 64\n\n\
                .func (.param .b32 func_retval0) f1(.param .b32 f1_param_0)\n{\n\
                \t.reg .b32 \t%r<3>;\n\tld.param.u32 \t%r1, [f1_param_0];\n\tadd.s32 \t%r2, %r1, 1;\n\
                \tst.param.b32 \t[func_retval0], %r2;\n\tret;\n}\n\n\
                .visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\
                \t.reg .b32 \t%r<4>;\n\t.reg .b64 \t%rd<4>;\n\tld.param.u64 \t%rd1, [k_param_0];\n\
                \tmov.u32 \t%r1, 41;\n\tmov.u64 \t%rd2, f1;\n\t{\n\t.param .b32 param0;\n\
                \tst.param.b32 \t[param0], %r1;\n\t.param .b32 retval0;\n\
                \tprototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);\n\
                \tcall (retval0), %rd2, (param0), prototype_0;\n\tld.param.b32 \t%r2, [retval0];\n\t}\n\
                \tst.global.u32 \t[%rd1], %r2;\n\tret;\n}\n";
    let line_of = |text: &str, what: &str| text.lines().position(|l| l.contains(what)).unwrap() + 1;
    let check = |text: &str, what: &str| {
        let err = Module::parse(text).err().unwrap();
        let shown = err.to_string();
        assert!(matches!(err, SimError::Unsupported { .. }), "{shown}");
        let line = line_of(text, what);
        assert!(shown.contains(&format!("line {line}")) && shown.contains("function pointers"), "{shown}");
    };
    check(text, "mov.u64 \t%rd2, f1;");
    // Through a register that holds some other value, the call is named.
    let through_reg = text.replace("mov.u64 \t%rd2, f1;", "mov.u64 \t%rd2, %rd1;");
    check(&through_reg, "call (retval0), %rd2");
}
