//! Finding and running NVIDIA's `ptxas`, the PTX assembler, to check generated PTX.
//!
//! ptx-dsl itself never needs ptxas: the CUDA driver JIT-compiles PTX and the simulator runs
//! it directly. Tests use ptxas as the judge of what we emit: every PTX the project can
//! generate must assemble *without errors or warnings* for sm_80 and sm_90, and `ptxas -v`
//! reports the registers and spills a kernel needs.
//!
//! ptxas comes from the PyPI package `nvidia-cuda-nvcc` and runs on any x86-64 Linux,
//! without a GPU. `scripts/install-ptxas.sh` installs it into a cache folder and prints its
//! path; [`find_ptxas`] looks there too.
//!
//! Tests that need ptxas start with [`ptxas_or_skip`]: without ptxas they print why they
//! skip and pass, unless `PTX_DSL_REQUIRE_PTXAS=1` (which CI sets after installing ptxas),
//! where they fail instead.
//!
//! ```no_run
//! use ptx_tools::ptxas;
//!
//! let ptx = "..."; // a PTX module
//! if let Some(bin) = ptxas::ptxas_or_skip("my_test") {
//!     let asm = ptxas::assemble(&bin, ptx, "sm_90").unwrap_or_else(|e| panic!("{e}"));
//!     println!("{:?} registers, {} bytes spilled", asm.registers, asm.spill_stores_bytes);
//! }
//! ```

use std::error::Error;
use std::ffi::OsString;
use std::fmt;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Environment variable naming the ptxas binary to use (a path, not a command name).
pub const PTXAS_ENV: &str = "PTXAS";

/// Environment variable that, set to `1`, turns "ptxas not found" from a skip into a failure.
pub const REQUIRE_ENV: &str = "PTX_DSL_REQUIRE_PTXAS";

/// Environment variable naming the install script's cache folder
/// (default `$HOME/.cache/ptx-dsl/tools`).
pub const TOOLS_DIR_ENV: &str = "PTX_DSL_TOOLS_DIR";

/// Where ptxas lies inside the cache folder (the layout of the `nvidia-cuda-nvcc` wheel).
pub const TOOLS_DIR_PTXAS: &str = "nvidia/cu13/bin/ptxas";

/// Finds a ptxas binary. In order:
///
/// 1. `$PTXAS`, when set and non-empty. An explicit choice is never second-guessed: when it
///    names no file, the result is `None` rather than some other ptxas.
/// 2. `ptxas` on `$PATH`.
/// 3. The cache folder of `scripts/install-ptxas.sh`: `$PTX_DSL_TOOLS_DIR` (or
///    `$HOME/.cache/ptx-dsl/tools`) followed by `nvidia/cu13/bin/ptxas`.
///
/// Only returns a path to a file that exists; it does not run it.
pub fn find_ptxas() -> Option<PathBuf> {
    find_ptxas_with(&|name| std::env::var_os(name))
}

/// [`find_ptxas`] over an arbitrary environment, so the search can be tested.
fn find_ptxas_with(var: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let non_empty = |name: &str| var(name).filter(|v| !v.is_empty());

    if let Some(explicit) = non_empty(PTXAS_ENV) {
        let path = PathBuf::from(explicit);
        return path.is_file().then_some(path);
    }

    let exe = format!("ptxas{}", std::env::consts::EXE_SUFFIX);
    if let Some(paths) = non_empty("PATH") {
        for dir in std::env::split_paths(&paths) {
            let candidate = dir.join(&exe);
            if is_executable_file(&candidate) {
                return Some(candidate);
            }
        }
    }

    let tools_dir = match non_empty(TOOLS_DIR_ENV) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(non_empty("HOME")?).join(".cache/ptx-dsl/tools"),
    };
    let mut cached = tools_dir.join(TOOLS_DIR_PTXAS);
    if !std::env::consts::EXE_SUFFIX.is_empty() {
        cached.set_file_name(&exe);
    }
    cached.is_file().then_some(cached)
}

/// A file that `$PATH` lookup would run: on Unix it must also have an execute bit.
fn is_executable_file(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// Whether ptxas is required: `PTX_DSL_REQUIRE_PTXAS=1`. CI sets it after installing ptxas,
/// so a test that cannot find ptxas fails there instead of skipping.
pub fn require_ptxas() -> bool {
    std::env::var_os(REQUIRE_ENV).is_some_and(|v| v == "1")
}

/// For tests that need ptxas: returns its path ([`find_ptxas`]), or prints
/// `skipping <test>: ptxas not found (...)` to stderr and returns `None`, so the test can
/// return early and pass.
///
/// # Panics
///
/// When ptxas is not found and [`require_ptxas`] is true (`PTX_DSL_REQUIRE_PTXAS=1`), so
/// that CI, which installs ptxas, never passes a test that silently did nothing.
pub fn ptxas_or_skip(test: &str) -> Option<PathBuf> {
    let explicit = std::env::var_os(PTXAS_ENV).filter(|v| !v.is_empty());
    or_skip(test, find_ptxas(), require_ptxas(), explicit.as_deref())
}

/// [`ptxas_or_skip`] with the search result and the environment passed in.
fn or_skip(
    test: &str,
    found: Option<PathBuf>,
    require: bool,
    explicit: Option<&std::ffi::OsStr>,
) -> Option<PathBuf> {
    if found.is_some() {
        return found;
    }
    let reason = match explicit {
        Some(p) => format!("ptxas not found: {PTXAS_ENV}={} is not a file", Path::new(p).display()),
        None => "ptxas not found".to_string(),
    };
    if require {
        panic!(
            "{test}: {reason}, and {REQUIRE_ENV}=1 requires it \
             (set {PTXAS_ENV} to the ptxas binary or run scripts/install-ptxas.sh)"
        );
    }
    eprintln!("skipping {test}: {reason} (set {PTXAS_ENV} or run scripts/install-ptxas.sh)");
    None
}

/// What `ptxas -v` reported for one function of the module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionStats {
    /// The function's name (`.entry` or `.func`).
    pub name: String,
    /// `Used N registers`; ptxas prints it for entry functions only.
    pub registers: Option<u32>,
    /// `N bytes stack frame`.
    pub stack_frame_bytes: u32,
    /// `N bytes spill stores`.
    pub spill_stores_bytes: u32,
    /// `N bytes spill loads`.
    pub spill_loads_bytes: u32,
}

/// A module that ptxas assembled cleanly, with what `ptxas -v` said about it.
///
/// The module-level numbers summarise [`Assembly::functions`]: for a one-kernel module they
/// are that kernel's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assembly {
    /// The largest `Used N registers` over the module's entry functions; `None` when ptxas
    /// printed none (a module without entries).
    pub registers: Option<u32>,
    /// Bytes of spill stores, summed over all functions. Zero for well-behaved kernels.
    pub spill_stores_bytes: u32,
    /// Bytes of spill loads, summed over all functions.
    pub spill_loads_bytes: u32,
    /// Per-function statistics, in the order ptxas reported them.
    pub functions: Vec<FunctionStats>,
    /// The architecture assembled for (`"sm_90"`).
    pub arch: String,
    /// The cubin (ELF) that ptxas wrote, e.g. for `nvdisasm`.
    pub cubin: Vec<u8>,
    /// ptxas's complete output (stdout, then stderr), the temporary file's name replaced by
    /// `<ptx>`.
    pub log: String,
}

/// Why [`assemble`] failed.
#[derive(Debug)]
pub enum PtxasError {
    /// Writing or reading the temporary files failed.
    Io {
        /// The architecture being assembled for.
        arch: String,
        /// What was being done.
        action: String,
        /// The underlying error.
        source: io::Error,
    },
    /// The ptxas binary could not be started.
    Spawn {
        /// The binary that was tried.
        ptxas: PathBuf,
        /// The architecture being assembled for.
        arch: String,
        /// The underlying error.
        source: io::Error,
    },
    /// ptxas exited unsuccessfully: it rejected the PTX (or the arguments).
    Rejected {
        /// The architecture being assembled for.
        arch: String,
        /// ptxas's exit code; `None` when it was killed by a signal.
        code: Option<i32>,
        /// ptxas's complete output.
        log: String,
    },
    /// ptxas assembled the PTX but warned; generated PTX must assemble without warnings.
    Warnings {
        /// The architecture being assembled for.
        arch: String,
        /// The warning lines.
        warnings: Vec<String>,
        /// ptxas's complete output.
        log: String,
    },
}

impl PtxasError {
    /// The architecture that was being assembled for.
    pub fn arch(&self) -> &str {
        match self {
            PtxasError::Io { arch, .. }
            | PtxasError::Spawn { arch, .. }
            | PtxasError::Rejected { arch, .. }
            | PtxasError::Warnings { arch, .. } => arch,
        }
    }

    /// ptxas's output, when it ran.
    pub fn log(&self) -> Option<&str> {
        match self {
            PtxasError::Rejected { log, .. } | PtxasError::Warnings { log, .. } => Some(log),
            PtxasError::Io { .. } | PtxasError::Spawn { .. } => None,
        }
    }
}

impl fmt::Display for PtxasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PtxasError::Io { arch, action, source } => write!(f, "ptxas for {arch}: {action}: {source}"),
            PtxasError::Spawn { ptxas, arch, source } => {
                write!(f, "could not run ptxas ({}) for {arch}: {source}", ptxas.display())
            }
            PtxasError::Rejected { arch, code, log } => {
                let status = match code {
                    Some(c) => format!("exit code {c}"),
                    None => "killed by a signal".to_string(),
                };
                write!(f, "ptxas rejected the PTX for {arch} ({status}):\n{}", log.trim_end())
            }
            PtxasError::Warnings { arch, warnings, log } => write!(
                f,
                "ptxas warned about the PTX for {arch} ({} warning{}; warnings count as \
                 errors):\n{}",
                warnings.len(),
                if warnings.len() == 1 { "" } else { "s" },
                log.trim_end()
            ),
        }
    }
}

impl Error for PtxasError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            PtxasError::Io { source, .. } | PtxasError::Spawn { source, .. } => Some(source),
            PtxasError::Rejected { .. } | PtxasError::Warnings { .. } => None,
        }
    }
}

/// Assembles `ptx` for `arch` (`"sm_80"`, `"sm_90"`, ...) by running
/// `ptxas -v -arch=<arch> -o <cubin> <ptx file>` on temporary files (removed afterwards).
///
/// Returns `Err` when ptxas cannot run, exits unsuccessfully, or prints any warning; the
/// error carries ptxas's output. On success the [`Assembly`] holds the cubin and the
/// register and spill counts parsed from the `-v` output.
pub fn assemble(ptxas: &Path, ptx: &str, arch: &str) -> Result<Assembly, PtxasError> {
    assemble_with_args(ptxas, ptx, arch, &[])
}

/// [`assemble`] with extra ptxas options (`-maxrregcount=32`, `-O0`, ...), placed before
/// the input file.
pub fn assemble_with_args(
    ptxas: &Path,
    ptx: &str,
    arch: &str,
    extra_args: &[&str],
) -> Result<Assembly, PtxasError> {
    let io_err = |action: &str, source: io::Error| PtxasError::Io {
        arch: arch.to_string(),
        action: action.to_string(),
        source,
    };
    let files = TempFiles::create(ptx).map_err(|e| io_err("writing the PTX file", e))?;

    let output = Command::new(ptxas)
        .arg("-v")
        .arg(format!("-arch={arch}"))
        .arg("-o")
        .arg(&files.cubin)
        .args(extra_args)
        .arg(&files.ptx)
        .output()
        .map_err(|source| PtxasError::Spawn { ptxas: ptxas.to_path_buf(), arch: arch.to_string(), source })?;

    let mut log = String::from_utf8_lossy(&output.stdout).into_owned();
    if !log.is_empty() && !log.ends_with('\n') {
        log.push('\n');
    }
    log.push_str(&String::from_utf8_lossy(&output.stderr));
    let log = log.replace(&*files.ptx.to_string_lossy(), "<ptx>");

    if !output.status.success() {
        return Err(PtxasError::Rejected { arch: arch.to_string(), code: output.status.code(), log });
    }
    let warnings = warning_lines(&log);
    if !warnings.is_empty() {
        return Err(PtxasError::Warnings { arch: arch.to_string(), warnings, log });
    }

    let cubin = fs::read(&files.cubin).map_err(|e| io_err("reading the cubin ptxas wrote", e))?;
    let mut asm = parse_verbose(&log);
    asm.arch = arch.to_string();
    asm.cubin = cubin;
    asm.log = log;
    Ok(asm)
}

/// The lines of ptxas's output that are warnings: any line mentioning "warning", except
/// `ptxas info` lines (which may quote a kernel called, say, `warning_count`).
fn warning_lines(log: &str) -> Vec<String> {
    log.lines()
        .filter(|line| !line.trim_start().starts_with("ptxas info"))
        .filter(|line| line.to_ascii_lowercase().contains("warning"))
        .map(str::to_string)
        .collect()
}

/// Parses `ptxas -v` output into per-function statistics and their summary.
/// `arch`, `cubin` and `log` are left empty.
fn parse_verbose(log: &str) -> Assembly {
    let mut functions: Vec<FunctionStats> = Vec::new();
    let mut current: Option<usize> = None;
    // The index of the function called `name`, added when new.
    fn select(functions: &mut Vec<FunctionStats>, name: &str) -> usize {
        match functions.iter().position(|f| f.name == name) {
            Some(i) => i,
            None => {
                functions.push(FunctionStats { name: name.to_string(), ..FunctionStats::default() });
                functions.len() - 1
            }
        }
    }

    for line in log.lines() {
        let line = line.trim();
        if let Some(rest) = after(line, "Compiling entry function '") {
            if let Some(name) = rest.split('\'').next() {
                current = Some(select(&mut functions, name));
            }
        } else if let Some(rest) = after(line, "Function properties for ") {
            let name = rest.trim().trim_matches('\'');
            current = Some(select(&mut functions, name));
        } else if line.contains("bytes stack frame") {
            let i = *current.get_or_insert_with(|| select(&mut functions, ""));
            let f = &mut functions[i];
            for part in line.split(',') {
                let Some(n) = leading_number(part) else {
                    continue;
                };
                if part.contains("stack frame") {
                    f.stack_frame_bytes = n;
                } else if part.contains("spill stores") {
                    f.spill_stores_bytes = n;
                } else if part.contains("spill loads") {
                    f.spill_loads_bytes = n;
                }
            }
        } else if let Some(rest) = after(line, "Used ") {
            if let Some(n) = used_registers(rest) {
                let i = *current.get_or_insert_with(|| select(&mut functions, ""));
                functions[i].registers = Some(n);
            }
        }
    }

    Assembly {
        registers: functions.iter().filter_map(|f| f.registers).max(),
        spill_stores_bytes: functions.iter().map(|f| f.spill_stores_bytes).sum(),
        spill_loads_bytes: functions.iter().map(|f| f.spill_loads_bytes).sum(),
        functions,
        ..Assembly::default()
    }
}

/// The text after the first occurrence of `marker` in `line`.
fn after<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    line.find(marker).map(|i| &line[i + marker.len()..])
}

/// The number at the start of `s` (after whitespace): `" 244 bytes spill stores"` -> 244.
fn leading_number(s: &str) -> Option<u32> {
    let s = s.trim_start();
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    s[..end].parse().ok()
}

/// `N` from the text after `Used ` in `Used N registers, ...`.
fn used_registers(rest: &str) -> Option<u32> {
    let n = leading_number(rest)?;
    let unit = rest.trim_start().trim_start_matches(|c: char| c.is_ascii_digit());
    unit.trim_start().starts_with("register").then_some(n)
}

/// A uniquely named `.ptx` input and `.cubin` output in the temporary folder, removed on drop.
struct TempFiles {
    ptx: PathBuf,
    cubin: PathBuf,
}

impl TempFiles {
    /// Writes `ptx` to a new file whose name no other process or thread uses.
    fn create(ptx: &str) -> io::Result<TempFiles> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir();
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let stem = format!("ptx-dsl-ptxas-{}-{n}-{nanos:09}", std::process::id());
            let files =
                TempFiles { ptx: dir.join(format!("{stem}.ptx")), cubin: dir.join(format!("{stem}.cubin")) };
            // `create_new` fails if the name is taken, e.g. left over by a crashed run.
            match OpenOptions::new().write(true).create_new(true).open(&files.ptx) {
                Ok(mut f) => {
                    // On error, `files` drops here and removes the partial file.
                    f.write_all(ptx.as_bytes())?;
                    return Ok(files);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    std::mem::forget(files); // not ours: leave it alone
                    continue;
                }
                Err(e) => {
                    std::mem::forget(files);
                    return Err(e);
                }
            }
        }
    }
}

impl Drop for TempFiles {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.ptx);
        let _ = fs::remove_file(&self.cubin);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A minimal valid kernel: stores `%tid.x` through a pointer parameter.
    const VALID_PTX: &str = "\
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_param_p)
{
.reg .u64 %rd<2>;
.reg .u32 %r<1>;
ld.param.u64 %rd0, [k_param_p];
cvta.to.global.u64 %rd1, %rd0;
mov.u32 %r0, %tid.x;
st.global.u32 [%rd1], %r0;
ret;
}
";

    /// Output of `ptxas -v -arch=sm_80 -maxrregcount=16` (13.5.37) for a kernel that spills
    /// and calls a non-inlined `.func f`; spill loads and `f`'s numbers edited to differ.
    const SAMPLE_LOG: &str = "\
ptxas warning : For profile sm_80 adjusting per thread register count of 16 to lower bound of 24
ptxas info    : Overriding maximum register limit 256 for 'spill' with  24 of maxrregcount option
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'spill' for 'sm_80'
ptxas info    : Function properties for spill
    248 bytes stack frame, 244 bytes spill stores, 240 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 248 bytes cumulative stack size, 360 bytes cmem[0]
ptxas info    : Compile time = 11.703 ms
ptxas info    : Function properties for f
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
";

    #[test]
    fn ptxas_parses_used_registers_and_spills() {
        let asm = parse_verbose(SAMPLE_LOG);
        assert_eq!(asm.registers, Some(24));
        assert_eq!(asm.spill_stores_bytes, 248);
        assert_eq!(asm.spill_loads_bytes, 244);
        assert_eq!(
            asm.functions,
            vec![
                FunctionStats {
                    name: "spill".into(),
                    registers: Some(24),
                    stack_frame_bytes: 248,
                    spill_stores_bytes: 244,
                    spill_loads_bytes: 240,
                },
                FunctionStats {
                    name: "f".into(),
                    registers: None,
                    stack_frame_bytes: 8,
                    spill_stores_bytes: 4,
                    spill_loads_bytes: 4,
                },
            ]
        );
    }

    #[test]
    fn ptxas_parses_several_entries_and_none() {
        let log = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'a' for 'sm_90'
ptxas info    : Function properties for a
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
ptxas info    : Compiling entry function 'b' for 'sm_90'
ptxas info    : Function properties for b
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 1 register, used 0 barriers
";
        let asm = parse_verbose(log);
        assert_eq!(asm.registers, Some(8));
        assert_eq!(asm.functions[1].registers, Some(1));
        assert_eq!((asm.spill_stores_bytes, asm.spill_loads_bytes), (0, 0));

        let empty = parse_verbose("ptxas info    : 0 bytes gmem\n");
        assert_eq!(empty.registers, None);
        assert!(empty.functions.is_empty());
    }

    #[test]
    fn ptxas_warning_lines_skip_info() {
        let log = "ptxas info    : Compiling entry function 'warning_k' for 'sm_80'\n\
                   ptxas <ptx>, line 3; warning : something\n";
        assert_eq!(warning_lines(log), vec!["ptxas <ptx>, line 3; warning : something"]);
        assert_eq!(warning_lines(SAMPLE_LOG).len(), 1);
    }

    #[test]
    fn ptxas_search_order() {
        let dir = std::env::temp_dir().join(format!("ptx-dsl-ptxas-search-{}", std::process::id()));
        let bin_dir = dir.join("bin");
        let tools = dir.join("tools");
        let cached = tools.join(TOOLS_DIR_PTXAS);
        fs::create_dir_all(&bin_dir).unwrap();
        fs::create_dir_all(cached.parent().unwrap()).unwrap();
        let on_path = bin_dir.join("ptxas");
        let explicit = dir.join("my-ptxas");
        for f in [&on_path, &explicit, &cached] {
            fs::write(f, "").unwrap();
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&on_path, fs::Permissions::from_mode(0o755)).unwrap();
        }

        let find = |vars: &[(&str, &Path)]| {
            let env: HashMap<String, OsString> =
                vars.iter().map(|(k, v)| (k.to_string(), v.as_os_str().to_owned())).collect();
            find_ptxas_with(&|name| env.get(name).cloned())
        };
        let missing = dir.join("missing");
        let all =
            [(PTXAS_ENV, explicit.as_path()), ("PATH", bin_dir.as_path()), (TOOLS_DIR_ENV, tools.as_path())];
        assert_eq!(find(&all), Some(explicit.clone()));
        assert_eq!(find(&all[1..]), Some(on_path.clone()));
        assert_eq!(find(&all[2..]), Some(cached.clone()));
        let home = dir.join("home");
        let home_cached = home.join(".cache/ptx-dsl/tools").join(TOOLS_DIR_PTXAS);
        fs::create_dir_all(home_cached.parent().unwrap()).unwrap();
        assert_eq!(find(&[("HOME", &home)]), None);
        fs::write(&home_cached, "").unwrap();
        assert_eq!(find(&[("HOME", &home)]), Some(home_cached));
        // An explicit PTXAS that names nothing is not replaced by another ptxas.
        assert_eq!(find(&[(PTXAS_ENV, &missing), all[1], all[2]]), None);
        // A directory on PATH holding a non-executable `ptxas` is passed over (Unix).
        #[cfg(unix)]
        assert_eq!(find(&[("PATH", &dir), all[2]]), Some(cached));
        assert_eq!(find(&[]), None);

        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn ptxas_or_skip_skips_or_panics() {
        assert_eq!(or_skip("t", None, false, None), None);
        let p = PathBuf::from("/x/ptxas");
        assert_eq!(or_skip("t", Some(p.clone()), true, None), Some(p));
        let msg = std::panic::catch_unwind(|| or_skip("my_test", None, true, None))
            .expect_err("must panic when required")
            .downcast::<String>()
            .unwrap();
        assert!(msg.contains("my_test") && msg.contains(REQUIRE_ENV), "{msg}");
    }

    #[test]
    fn ptxas_temp_files_are_unique_and_removed() {
        let a = TempFiles::create("a").unwrap();
        let b = TempFiles::create("b").unwrap();
        assert_ne!(a.ptx, b.ptx);
        assert_eq!(fs::read_to_string(&a.ptx).unwrap(), "a");
        let (pa, pb) = (a.ptx.clone(), b.ptx.clone());
        fs::write(&a.cubin, "x").unwrap();
        let ca = a.cubin.clone();
        drop(a);
        drop(b);
        assert!(!pa.exists() && !pb.exists() && !ca.exists());
    }

    #[test]
    fn ptxas_assembles_valid_ptx() {
        let Some(ptxas) = ptxas_or_skip("ptxas_assembles_valid_ptx") else {
            return;
        };
        for arch in ["sm_80", "sm_90"] {
            let asm = assemble(&ptxas, VALID_PTX, arch).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(asm.arch, arch);
            let regs = asm.registers.expect("ptxas -v reports registers");
            assert!((1..=255).contains(&regs), "{regs} registers\n{}", asm.log);
            assert_eq!((asm.spill_stores_bytes, asm.spill_loads_bytes), (0, 0));
            assert_eq!(asm.functions.len(), 1);
            assert_eq!(asm.functions[0].name, "k");
            assert!(asm.cubin.starts_with(b"\x7fELF"), "cubin is an ELF file");
        }
    }

    #[test]
    fn ptxas_rejects_syntax_error() {
        let Some(ptxas) = ptxas_or_skip("ptxas_rejects_syntax_error") else {
            return;
        };
        let bad = VALID_PTX.replace("st.global.u32", "st.globl.u32");
        let err = assemble(&ptxas, &bad, "sm_80").expect_err("a syntax error must be rejected");
        assert!(matches!(err, PtxasError::Rejected { .. }), "{err:?}");
        assert_eq!(err.arch(), "sm_80");
        let msg = err.to_string();
        assert!(msg.contains("sm_80") && msg.contains("Unknown modifier '.globl'"), "{msg}");
        assert!(msg.contains("<ptx>, line 11"), "temp file name replaced: {msg}");
    }

    #[test]
    fn ptxas_warning_is_an_error() {
        let Some(ptxas) = ptxas_or_skip("ptxas_warning_is_an_error") else {
            return;
        };
        // Assembles, but ptxas warns that .minnctapersm 64 is out of range and ignores it.
        let warns = VALID_PTX.replace(
            ".entry k(.param .u64 k_param_p)",
            ".entry k(.param .u64 k_param_p) .maxntid 1024, 1, 1 .minnctapersm 64",
        );
        let err = assemble(&ptxas, &warns, "sm_90").expect_err("a warning must be an error");
        let PtxasError::Warnings { warnings, .. } = &err else {
            panic!("expected Warnings, got {err:?}");
        };
        assert_eq!(warnings.len(), 1, "{err}");
        assert!(err.to_string().contains("minnctapersm"), "{err}");
    }

    #[test]
    fn ptxas_missing_binary_is_spawn_error() {
        let missing = std::env::temp_dir().join("ptx-dsl-no-such-ptxas");
        let err = assemble(&missing, VALID_PTX, "sm_80").unwrap_err();
        assert!(matches!(err, PtxasError::Spawn { .. }), "{err:?}");
        assert!(err.source().is_some() && err.to_string().contains("sm_80"));
    }
}
