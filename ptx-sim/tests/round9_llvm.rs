//! Real PTX from LLVM's NVPTX backend (clang 14), from an adversarial round (2026-12-07):
//! each fixture in `data/round9_llvm/` is clang's output for the `.cu` file beside it (the
//! command is in the file's header), accepted by `ptxas -arch=sm_80`, and each test
//! asserts what the same C computes on the host. Each failed on the simulator before.

use ptx_sim::{launch, Geometry, Memory, Module};

/// Runs kernel `k(in, out)` of `ptx` on one block of `threads` with `input` as `in`'s
/// words; returns `out` (`out_bytes` bytes).
fn run(ptx: &str, input: &[u32], threads: u32, out_bytes: usize) -> Vec<u8> {
    let m = Module::parse(ptx).unwrap_or_else(|e| panic!("{e}"));
    let k = m.kernel("k").unwrap_or_else(|| panic!("{:?}", m.unsupported("k")));
    let mem = Memory::new();
    let inb = mem.alloc(4 * input.len());
    mem.write(inb, &input.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
    let out = mem.alloc(out_bytes);
    let g = Geometry { grid: [1, 1, 1], block: [threads, 1, 1], dynamic_shared_bytes: 0 };
    launch(k, &g, &[inb, out], &mem, 1).unwrap_or_else(|e| panic!("{e}"));
    let mut b = vec![0u8; out_bytes];
    mem.read(out, &mut b).unwrap();
    b
}

#[test]
fn structure_passed_by_value_indexed_through_its_address() {
    // `mov.b64 %rd1, pick_param_0` then `ld.param.u32 %r6, [%rd4]`: the PTX ISA lets a
    // function take the address of its `.param` and load through it. The simulator had no
    // address for a call's parameters and refused the whole module ("malformed immediate").
    let ptx = include_str!("data/round9_llvm/byval_index.ptx");
    let input: Vec<u32> = (0..9).map(|q| 1000 + 37 * q).collect();
    let got = run(ptx, &input, 32, 4 * 32);
    let want: Vec<u8> = (0..32u32).flat_map(|i| (input[(i % 9) as usize] * (i + 1)).to_le_bytes()).collect();
    assert_eq!(got, want);
}

#[test]
fn parameter_stored_as_one_width_and_loaded_as_another() {
    // The caller stores the union as a `.b64`, the callee loads it whole and its byte 3
    // (`ld.param.u8 [sum_param_0+3]`). A parameter's bytes were one register per offset,
    // so the byte read a slot no store had written: 0, silently.
    let ptx = include_str!("data/round9_llvm/byval_widths.ptx");
    let input: Vec<u32> = (0..64u32).map(|w| w.wrapping_mul(0x9e37_79b9) ^ 0x5a5a_0f0f).collect();
    let got = run(ptx, &input, 32, 8 * 32);
    let want: Vec<u8> = (0..32)
        .flat_map(|i| {
            let d = u64::from(input[2 * i]) | u64::from(input[2 * i + 1]) << 32;
            d.wrapping_add(u64::from(d.to_le_bytes()[3])).to_le_bytes()
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn tree_recursion_at_o0_fits_its_stack_frames() {
    // Each inlined call of `fib` had a `.local` frame of its own: 4095 of 20 bytes at the
    // levels it inlines, over the 64 KiB a thread may have here, refused. Calls at one depth
    // are never live at once and share one frame now, as on a stack.
    let ptx = include_str!("data/round9_llvm/fib_o0.ptx");
    fn fib(n: u32) -> u32 {
        if n < 2 {
            n
        } else {
            fib(n - 1) + fib(n - 2)
        }
    }
    let input: Vec<u32> = (0..7).collect();
    let got = run(ptx, &input, 7, 4 * 7);
    let want: Vec<u8> = input.iter().flat_map(|&n| fib(n).to_le_bytes()).collect();
    assert_eq!(got, want);
}

#[test]
fn visible_shared_variable() {
    // `.visible .shared .align 4 .b8 tile[128];`: the module's `.shared` variables were read
    // only without `.visible`; with it the declaration was taken for a kernel's header.
    let ptx = include_str!("data/round9_llvm/shared_reverse.ptx");
    let input: Vec<u32> = (0..32).map(|t| 7 * t + 1).collect();
    let got = run(ptx, &input, 32, 4 * 32);
    let want: Vec<u8> = input.iter().rev().flat_map(|w| w.to_le_bytes()).collect();
    assert_eq!(got, want);
}

#[test]
fn constant_table_through_its_generic_address() {
    // `cvta.const.u64`: the generic address of a `.const` variable, loaded with a generic
    // `ld`. The simulator refused the kernel ("opcode `cvta.const.u64`").
    let ptx = include_str!("data/round9_llvm/const_table_o0.ptx");
    let input: Vec<u32> = (0..32).map(|t| t * 5 + 3).collect();
    let got = run(ptx, &input, 32, 4 * 32);
    let tbl = [3u32, 1, 4, 1, 5, 9, 2, 6];
    let want: Vec<u8> = input.iter().flat_map(|w| tbl[(w % 8) as usize].to_le_bytes()).collect();
    assert_eq!(got, want);
}

#[test]
fn jump_table_through_brx_idx() {
    // `tlist: .branchtargets L1, L2, L3;` and `brx.idx %r1, tlist;` (newer LLVM's dense
    // `switch`), in a function inlined twice and guarded in the kernel: refused before
    // ("directive `.branchtargets` in a kernel body").
    let ptx = include_str!("data/round9_llvm/jump_table.ptx");
    let got = run(ptx, &[], 16, 4 * 16);
    let pick = |x: u32| [10u32, 20, 30, 99][x.min(3) as usize];
    let want: Vec<u8> = (0..16u32)
        .flat_map(|t| {
            (pick(t >> 2) * 1000 + pick(t & 3) + if t < 4 && t % 2 == 0 { 5 } else { 0 }).to_le_bytes()
        })
        .collect();
    assert_eq!(got, want);
    // An index past the list is undefined in the PTX ISA: the thread traps, naming `brx.idx`.
    let past = ptx.replace("and.b32 \t%r7, %r1, 1;", "and.b32 \t%r7, %r1, 3;");
    let m = Module::parse(&past).unwrap();
    let mem = Memory::new();
    let out = mem.alloc(64);
    let g = Geometry { grid: [1, 1, 1], block: [16, 1, 1], dynamic_shared_bytes: 0 };
    let err = launch(m.kernel("k").unwrap(), &g, &[out, out], &mem, 1).unwrap_err().to_string();
    assert!(err.contains("thread (2, 0, 0)") && err.contains("brx.idx.uni"), "{err}");
}
