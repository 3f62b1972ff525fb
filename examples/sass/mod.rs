//! SASS statistics shared by the `*_sass` examples: what ptxas reports for a PTX module
//! (registers, stack frame, spills), what nvdisasm's listing holds (static instruction count,
//! global loads and stores by width), and CUDA C compiled by NVRTC for comparison.

use std::path::PathBuf;
use std::process::Command;

use ptx_tools::ptxas;

/// What ptxas and nvdisasm say about one kernel.
pub struct Stats {
    /// Registers per thread.
    pub registers: String,
    /// Stack frame bytes.
    pub stack: u32,
    /// Spill loads plus stores, bytes.
    pub spills: u32,
    /// The listing's counts, when nvdisasm is there.
    pub sass: Option<Sass>,
}

/// Occurrences per opcode.
pub type Counts = Vec<(String, usize)>;

/// Static SASS counts.
pub struct Sass {
    /// Instructions, NOPs aside.
    pub instructions: usize,
    /// Global loads by opcode.
    pub global_loads: Counts,
    /// Global stores by opcode.
    pub global_stores: Counts,
}

pub fn nvdisasm() -> Option<PathBuf> {
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

pub fn stats(ptxas_path: &std::path::Path, ptx: &str) -> Result<Stats, String> {
    let a = ptxas::assemble(ptxas_path, ptx, "sm_90").map_err(|e| e.to_string())?;
    let sass = match nvdisasm() {
        Some(tool) => {
            let file = std::env::temp_dir().join(format!("sass_{}.cubin", std::process::id()));
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

/// `source` compiled to PTX for sm_90 by NVRTC, or why not.
pub fn nvrtc_ptx(source: &str) -> Result<String, String> {
    // SAFETY: only tries to load libnvrtc by its usual names.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err("libnvrtc not found (pip install nvidia-cuda-nvrtc; set LD_LIBRARY_PATH)".into());
    }
    let options = cudarc::nvrtc::CompileOptions { arch: Some("sm_90"), ..Default::default() };
    cudarc::nvrtc::compile_ptx_with_opts(source, options).map(|p| p.to_src()).map_err(|e| format!("{e:?}"))
}

/// Prints one table row per `(label, PTX)`: registers, stack, spills, SASS instructions and
/// global accesses; `title` heads the first column.
pub fn print_table(title: &str, rows: Vec<(String, Result<String, String>)>) -> std::process::ExitCode {
    let Some(ptxas_path) = ptxas::find_ptxas() else {
        eprintln!("ptxas not found (scripts/install-ptxas.sh, or set PTXAS)");
        return std::process::ExitCode::FAILURE;
    };
    if nvdisasm().is_none() {
        eprintln!("nvdisasm not found (pip install nvidia-cuda-nvdisasm; set NVDISASM): SASS counts skipped");
    }
    println!("{title:<44} {:>5} {:>6} {:>7} {:>6}  global loads / stores", "regs", "stack", "spills", "SASS");
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
