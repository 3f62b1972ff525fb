//! SASS statistics shared by the `*_sass` examples: what ptxas reports for a PTX module
//! (registers, stack frame, spills), what nvdisasm's listing holds (static instruction count,
//! global loads and stores by width), and CUDA C compiled by NVRTC for comparison.

use ptx_tools::ptxas;
use ptx_tools::sass::{self, Sass};

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

pub fn stats(ptxas_path: &std::path::Path, ptx: &str) -> Result<Stats, String> {
    let a = ptxas::assemble(ptxas_path, ptx, "sm_90").map_err(|e| e.to_string())?;
    let sass = match sass::find_nvdisasm() {
        Some(tool) => Some(Sass::of(&sass::disassemble(&tool, &a.cubin)?)),
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
    if sass::find_nvdisasm().is_none() {
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
