//! Finding and running NVIDIA's `nvdisasm` on what ptxas assembled, and counting the SASS
//! listing: static instructions and global memory accesses by opcode (`LDG.E.128` is a
//! 16-byte load), so that tests can assert what the GPU will execute.
//!
//! nvdisasm comes from the PyPI package `nvidia-cuda-nvdisasm` (`scripts/install-ptxas.sh
//! nvdisasm` installs it beside ptxas); it runs without a GPU. Tests that need it start with
//! [`nvdisasm_or_skip`], which follows ptxas's rule: skip with a message, or fail when
//! `PTX_DSL_REQUIRE_PTXAS=1` (CI installs both).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::ptxas;

/// Environment variable naming the nvdisasm binary to use (a path).
pub const NVDISASM_ENV: &str = "NVDISASM";

/// Finds nvdisasm: `$NVDISASM` when set and non-empty (only if it names a file), else the
/// `nvdisasm` beside the ptxas [`ptxas::find_ptxas`] finds (the install script puts both in
/// one folder).
pub fn find_nvdisasm() -> Option<PathBuf> {
    find_with(std::env::var_os(NVDISASM_ENV), ptxas::find_ptxas())
}

/// [`find_nvdisasm`] with the environment and the ptxas search passed in.
fn find_with(explicit: Option<OsString>, ptxas: Option<PathBuf>) -> Option<PathBuf> {
    if let Some(path) = explicit.filter(|v| !v.is_empty()) {
        let path = PathBuf::from(path);
        return path.is_file().then_some(path);
    }
    let sibling = ptxas?.with_file_name(format!("nvdisasm{}", std::env::consts::EXE_SUFFIX));
    sibling.is_file().then_some(sibling)
}

/// For tests that need nvdisasm: its path, or `None` after printing why the test skips.
///
/// # Panics
///
/// When nvdisasm is not found and `PTX_DSL_REQUIRE_PTXAS=1` ([`ptxas::require_ptxas`]).
pub fn nvdisasm_or_skip(test: &str) -> Option<PathBuf> {
    let found = find_nvdisasm();
    if found.is_none() {
        let how = "set NVDISASM or run `scripts/install-ptxas.sh nvdisasm`";
        if ptxas::require_ptxas() {
            panic!("{test}: nvdisasm not found, and {}=1 requires it ({how})", ptxas::REQUIRE_ENV);
        }
        eprintln!("skipping {test}: nvdisasm not found ({how})");
    }
    found
}

/// nvdisasm's listing of `cubin` (what [`ptxas::assemble`] returns), or why not.
pub fn disassemble(nvdisasm: &Path, cubin: &[u8]) -> Result<String, String> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file = std::env::temp_dir().join(format!("ptx-dsl-sass-{}-{n}.cubin", std::process::id()));
    std::fs::write(&file, cubin).map_err(|e| format!("writing {}: {e}", file.display()))?;
    let out = Command::new(nvdisasm).arg(&file).output();
    let _ = std::fs::remove_file(&file);
    let out = out.map_err(|e| format!("{}: {e}", nvdisasm.display()))?;
    if !out.status.success() {
        return Err(format!("nvdisasm failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Occurrences per opcode, in order of first appearance.
pub type Counts = Vec<(String, usize)>;

/// Static counts of a SASS listing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sass {
    /// Instructions, NOPs and data aside.
    pub instructions: usize,
    /// Global loads by opcode (`LDG.E`, `LDG.E.128`, ...).
    pub global_loads: Counts,
    /// Global stores by opcode.
    pub global_stores: Counts,
}

impl Sass {
    /// Counts nvdisasm's `listing`.
    pub fn of(listing: &str) -> Sass {
        let mut sass = Sass::default();
        let bump = |list: &mut Counts, op: &str| match list.iter_mut().find(|(o, _)| o == op) {
            Some((_, n)) => *n += 1,
            None => list.push((op.to_string(), 1)),
        };
        for line in listing.lines() {
            // Instruction lines look like `/*0070*/   LDG.E R2, desc[UR4][R2.64] ;`.
            let Some(rest) = line.trim_start().strip_prefix("/*") else { continue };
            let Some((addr, text)) = rest.split_once("*/") else { continue };
            if addr.is_empty() || !addr.chars().all(|c| c.is_ascii_hexdigit()) {
                continue;
            }
            let text = text.trim_start();
            // A guard (`@P0 `, `@!P1 `) precedes the opcode.
            let text =
                text.strip_prefix('@').map_or(text, |t| t.split_once(' ').map_or(t, |(_, r)| r.trim_start()));
            let Some(op) = text.split_whitespace().next() else { continue };
            // `.byte`/`.dword` lines are data (the line tables `.loc` produces), not code.
            if op.trim_end_matches(';') == "NOP" || op.starts_with('.') {
                continue;
            }
            sass.instructions += 1;
            if op.starts_with("LDG") {
                bump(&mut sass.global_loads, op);
            } else if op.starts_with("STG") {
                bump(&mut sass.global_stores, op);
            }
        }
        sass
    }

    /// How many global loads or stores (`stores`) have opcode `op`.
    pub fn count(&self, op: &str, stores: bool) -> usize {
        let list = if stores { &self.global_stores } else { &self.global_loads };
        list.iter().filter(|(o, _)| o == op).map(|(_, n)| n).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_is_counted_by_opcode() {
        let listing = "\
        /*0000*/                   MOV R1, c[0x0][0x28] ;\n\
        /*0010*/                   LDG.E.128 R4, desc[UR4][R2.64] ;\n\
        /*0020*/              @!P0 LDG.E R8, desc[UR4][R6.64] ;\n\
        /*0030*/                   STG.E.128 desc[UR4][R2.64], R4 ;\n\
        /*0040*/                   NOP;\n\
        /*0050*/                   LDG.E.128 R12, desc[UR4][R10.64] ;\n\
        /*0060*/        .byte 0x01, 0x02\n\
        .text.kernel:\n";
        let sass = Sass::of(listing);
        assert_eq!(sass.instructions, 5);
        assert_eq!(sass.global_loads, vec![("LDG.E.128".to_string(), 2), ("LDG.E".to_string(), 1)]);
        assert_eq!(sass.count("STG.E.128", true), 1);
        assert_eq!(sass.count("STG.E.128", false), 0);
    }

    #[test]
    fn nvdisasm_is_the_explicit_file_or_the_one_beside_ptxas() {
        let dir = std::env::temp_dir().join(format!("ptx-dsl-nvdisasm-search-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (ptxas, nvdisasm) = (dir.join("ptxas"), dir.join("nvdisasm"));
        std::fs::write(&ptxas, "").unwrap();
        assert_eq!(find_with(None, Some(ptxas.clone())), None, "no nvdisasm beside ptxas yet");
        std::fs::write(&nvdisasm, "").unwrap();
        assert_eq!(find_with(None, Some(ptxas.clone())), Some(nvdisasm.clone()));
        assert_eq!(find_with(Some("".into()), Some(ptxas.clone())), Some(nvdisasm.clone()), "empty is unset");
        let missing = dir.join("missing");
        assert_eq!(
            find_with(Some(missing.into_os_string()), Some(ptxas)),
            None,
            "an explicit path is not second-guessed"
        );
        assert_eq!(find_with(Some(nvdisasm.clone().into_os_string()), None), Some(nvdisasm));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
