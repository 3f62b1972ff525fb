//! SASS statistics of the RoPE kernels beside the same algorithm in CUDA C compiled by
//! NVRTC: registers, stack frame, spills and SASS instructions (static count, from
//! `nvdisasm`) for sm_90, and the global loads and stores by width.
//!
//! ```text
//! pip install --target DIR nvidia-cuda-nvrtc nvidia-cuda-nvdisasm
//! LD_LIBRARY_PATH=DIR/nvidia/cu13/lib NVDISASM=DIR/nvidia/cu13/bin/nvdisasm \
//!     cargo run --release --example rope_sass
//! ```
//!
//! ptxas comes from `scripts/install-ptxas.sh` (or `PTXAS`). The CUDA C kernels do what
//! `ptx_dsl::rope::Rope`'s f32 half-split out-of-place forward kernel does (one thread per
//! token and pair, the sine and cosine reused over every q and k head, the tail copied), with
//! the angle `pos · inv_freq` in f32 and CUDA's accurate `sincosf` or fast `__sincosf`.

use std::path::PathBuf;
use std::process::Command;

use ptx_dsl::core::{ptxas, Kernel, Target};
use ptx_dsl::rope::seed::BatchedRope;
use ptx_dsl::rope::{Direction, Dtype, Layout, Rope, RopeConfig};

/// The CUDA C version; `SINCOS` is `sincosf` or `__sincosf`.
const CUDA_C: &str = r#"
extern "C" __global__ void rope_cuda(const float* q, const float* k, float* q_out, float* k_out,
                                     const unsigned* positions, const float* inv_freq,
                                     unsigned tokens, unsigned q_heads, unsigned k_heads) {
    const unsigned head_dim = 128, rotary_dim = 128, half = rotary_dim / 2;
    unsigned pair = threadIdx.x, token = blockIdx.x * blockDim.y + threadIdx.y;
    if (token >= tokens || pair >= half) return;
    float s, c;
    SINCOS((float)positions[token] * inv_freq[pair], &s, &c);
    size_t q_row = (size_t)token * q_heads * head_dim, k_row = (size_t)token * k_heads * head_dim;
    for (unsigned h = 0; h < q_heads; ++h) {
        size_t b = q_row + (size_t)h * head_dim;
        float a0 = q[b + pair], a1 = q[b + pair + half];
        q_out[b + pair] = a0 * c - a1 * s;
        q_out[b + pair + half] = a0 * s + a1 * c;
        for (unsigned d = rotary_dim + pair; d < head_dim; d += half) q_out[b + d] = q[b + d];
    }
    for (unsigned h = 0; h < k_heads; ++h) {
        size_t b = k_row + (size_t)h * head_dim;
        float a0 = k[b + pair], a1 = k[b + pair + half];
        k_out[b + pair] = a0 * c - a1 * s;
        k_out[b + pair + half] = a0 * s + a1 * c;
        for (unsigned d = rotary_dim + pair; d < head_dim; d += half) k_out[b + d] = k[b + d];
    }
}
"#;

/// What ptxas and nvdisasm say about one kernel.
struct Stats {
    registers: String,
    stack: u32,
    spills: u32,
    sass: Option<Sass>,
}

/// Occurrences per opcode.
type Counts = Vec<(String, usize)>;

/// Static SASS counts.
struct Sass {
    instructions: usize,
    global_loads: Counts,
    global_stores: Counts,
}

fn nvdisasm() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("NVDISASM") {
        return Some(PathBuf::from(p));
    }
    let sibling = ptxas::find_ptxas()?.with_file_name("nvdisasm");
    sibling.exists().then_some(sibling)
}

/// Counts instructions (NOPs and data aside) and global memory accesses by opcode in nvdisasm's listing.
fn sass_counts(listing: &str) -> Sass {
    let mut instructions = 0;
    let (mut loads, mut stores): (Counts, Counts) = (Vec::new(), Vec::new());
    let bump = |list: &mut Counts, op: &str| match list.iter_mut().find(|(o, _)| o == op) {
        Some((_, n)) => *n += 1,
        None => list.push((op.to_string(), 1)),
    };
    for line in listing.lines() {
        // Instruction lines look like `/*0070*/   LDG.E R2, desc[UR4][R2.64] ;`.
        let Some(rest) = line.trim_start().strip_prefix("/*") else { continue };
        let Some((addr, text)) = rest.split_once("*/") else { continue };
        if !addr.chars().all(|c| c.is_ascii_hexdigit()) {
            continue;
        }
        let text = text.trim_start();
        let text =
            text.strip_prefix('@').map_or(text, |t| t.split_once(' ').map_or(t, |(_, r)| r.trim_start()));
        let Some(op) = text.split_whitespace().next() else { continue };
        // `.byte`/`.dword` lines are data (the line tables `.loc` produces), not code.
        if op == "NOP" || op == "NOP;" || op.starts_with('.') {
            continue;
        }
        instructions += 1;
        if op.starts_with("LDG") {
            bump(&mut loads, op);
        } else if op.starts_with("STG") {
            bump(&mut stores, op);
        }
    }
    Sass { instructions, global_loads: loads, global_stores: stores }
}

fn stats(ptxas_path: &std::path::Path, ptx: &str) -> Result<Stats, String> {
    let a = ptxas::assemble(ptxas_path, ptx, "sm_90").map_err(|e| e.to_string())?;
    let sass = match nvdisasm() {
        Some(tool) => {
            let file = std::env::temp_dir().join(format!("rope_sass_{}.cubin", std::process::id()));
            std::fs::write(&file, &a.cubin).map_err(|e| e.to_string())?;
            let out =
                Command::new(&tool).arg(&file).output().map_err(|e| format!("{}: {e}", tool.display()))?;
            let _ = std::fs::remove_file(&file);
            Some(sass_counts(&String::from_utf8_lossy(&out.stdout)))
        }
        None => None,
    };
    Ok(Stats {
        registers: a.registers.map_or("?".into(), |r| r.to_string()),
        stack: a.functions.iter().map(|f| f.stack_frame_bytes).sum(),
        spills: a.spill_loads_bytes + a.spill_stores_bytes,
        sass,
    })
}

fn cuda_c_ptx(sincos: &str) -> Result<String, String> {
    // SAFETY: only tries to load libnvrtc by its usual names.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err("libnvrtc not found (pip install nvidia-cuda-nvrtc; set LD_LIBRARY_PATH)".into());
    }
    let source = CUDA_C.replace("SINCOS", sincos);
    let options = cudarc::nvrtc::CompileOptions { arch: Some("sm_90"), ..Default::default() };
    cudarc::nvrtc::compile_ptx_with_opts(source, options).map(|p| p.to_src()).map_err(|e| format!("{e:?}"))
}

fn main() -> std::process::ExitCode {
    let Some(ptxas_path) = ptxas::find_ptxas() else {
        eprintln!("rope_sass: ptxas not found (scripts/install-ptxas.sh, or set PTXAS)");
        return std::process::ExitCode::FAILURE;
    };
    if nvdisasm().is_none() {
        eprintln!("rope_sass: nvdisasm not found (pip install nvidia-cuda-nvdisasm; set NVDISASM): SASS counts skipped");
    }
    let mut rows: Vec<(String, Result<String, String>)> = Vec::new();
    for (dtype, layout) in
        [(Dtype::F32, Layout::HalfSplit), (Dtype::F32, Layout::Interleaved), (Dtype::Bf16, Layout::HalfSplit)]
    {
        let rope = Rope::new(RopeConfig { dtype, layout, ..RopeConfig::new(128) }).expect("valid");
        for in_place in [false, true] {
            let kernel = rope.kernel(Direction::Forward, in_place);
            let label =
                format!("{} {layout:?}{}", kernel.name(), if in_place { "" } else { " (out of place)" });
            rows.push((label, Ok(kernel.ptx_for(Target::SM_90))));
        }
    }
    rows.push((
        "seed port batched_rope".into(),
        Ok(BatchedRope::new(32, 128, 10_000.0).ptx_for(Target::SM_90)),
    ));
    rows.push(("CUDA C, accurate sincosf".into(), cuda_c_ptx("sincosf")));
    rows.push(("CUDA C, fast __sincosf".into(), cuda_c_ptx("__sincosf")));

    println!(
        "{:<44} {:>5} {:>6} {:>7} {:>6}  global loads / stores",
        "kernel (sm_90, head_dim 128)", "regs", "stack", "spills", "SASS"
    );
    for (label, ptx) in rows {
        match ptx.and_then(|p| stats(&ptxas_path, &p)) {
            Ok(s) => {
                let (count, mem) = match &s.sass {
                    Some(sass) => {
                        let list = |v: &[(String, usize)]| {
                            v.iter().map(|(op, n)| format!("{n}x {op}")).collect::<Vec<_>>().join(", ")
                        };
                        (
                            sass.instructions.to_string(),
                            format!("{} / {}", list(&sass.global_loads), list(&sass.global_stores)),
                        )
                    }
                    None => ("-".into(), "-".into()),
                };
                println!(
                    "{label:<44} {:>5} {:>4} B {:>5} B {count:>6}  {mem}",
                    s.registers, s.stack, s.spills
                );
            }
            Err(e) => println!("{label:<44} skipped: {e}"),
        }
    }
    std::process::ExitCode::SUCCESS
}
