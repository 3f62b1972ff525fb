//! Triton's PTX launched as Triton launches it: one block per program, `num_warps`·32
//! threads, the metadata's shared bytes as dynamic shared memory, and the two trailing
//! scratch pointers null; each file's first line records the metadata. With the helpers
//! the Triton tests share to move f32 and i32 data and compare results.

use super::{download, upload};
use ptx_sim::{launch_with, Approx, Geometry, Memory, Module, SimOptions};
use ptx_tools::rng::Rng;

/// The relative rounding error of one f32 operation.
pub const EPS: f64 = 1.0 / 16_777_216.0;

/// One Triton kernel: its module and the metadata its header records.
pub struct Triton {
    pub module: Module,
    pub name: String,
    pub warps: u32,
    pub shared: u32,
}

/// The value of `key=` in the header line `head`.
fn meta(head: &str, key: &str) -> u32 {
    let at = head.find(&format!(" {key}=")).unwrap_or_else(|| panic!("no {key} in {head}")) + key.len() + 2;
    head[at..].split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
}

/// The text of `{dir}/{file}.ptx`, `dir` relative to the crate.
pub fn text(dir: &str, file: &str) -> String {
    let path = format!("{}/{dir}/{file}.ptx", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The kernel of `{dir}/{file}.ptx` with its header's metadata.
pub fn load(dir: &str, file: &str) -> Triton {
    let text = text(dir, file);
    let head = text.lines().next().unwrap();
    let name = head.split(": ").nth(1).and_then(|s| s.split(' ').next()).unwrap().to_string();
    let module = Module::parse(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    Triton { module, name, warps: meta(head, "num_warps"), shared: meta(head, "shared") }
}

impl Triton {
    /// Launches `grid` programs with the kernel's own arguments `args` (f32 as bits), every
    /// `.approx` instruction off by the most the PTX ISA allows, global memory race-checked
    /// with `race_check`.
    pub fn try_run(
        &self,
        grid: [u32; 3],
        args: &[u64],
        mem: &Memory,
        race_check: bool,
    ) -> Result<(), String> {
        let k = self.module.kernel(&self.name).unwrap();
        let params = k.params();
        assert_eq!(params.len(), args.len() + 2, "{}: the scratch pointers follow the arguments", self.name);
        assert!(params[args.len()..].iter().all(|p| p.ty == ptx_core::PtxType::U64));
        let all: Vec<u64> = args.iter().copied().chain([0, 0]).collect();
        let geometry = Geometry { grid, block: [self.warps * 32, 1, 1], dynamic_shared_bytes: self.shared };
        let options =
            SimOptions { global_race_check: race_check, approx: Approx::WorstCase, ..SimOptions::default() };
        launch_with(k, &geometry, &all, mem, 2, &options).map(|_| ()).map_err(|e| e.to_string())
    }

    /// [`Triton::try_run`] with race checks, panicking on an error.
    pub fn run(&self, grid: [u32; 3], args: &[u64], mem: &Memory) {
        self.try_run(grid, args, mem, true).unwrap_or_else(|e| panic!("{}: {e}", self.name))
    }
}

/// Uploads `v` as f32 words.
pub fn put_f32(mem: &Memory, v: &[f32]) -> u64 {
    upload(mem, &v.iter().map(|x| x.to_bits() as u64).collect::<Vec<_>>(), 4)
}

/// Reads `n` f32 words at `addr`.
pub fn get_f32(mem: &Memory, addr: u64, n: usize) -> Vec<f32> {
    download(mem, addr, n, 4).into_iter().map(|b| f32::from_bits(b as u32)).collect()
}

/// Uploads `v` as i32 words.
pub fn put_i32(mem: &Memory, v: &[i32]) -> u64 {
    upload(mem, &v.iter().map(|&x| x as u32 as u64).collect::<Vec<_>>(), 4)
}

/// `n` draws uniform in [lo, hi).
pub fn uniform(rng: &mut Rng, n: usize, lo: f64, hi: f64) -> Vec<f32> {
    (0..n).map(|_| (lo + (hi - lo) * rng.unit()) as f32).collect()
}

/// Asserts `|got - want| <= tol(want)` elementwise.
pub fn assert_close<G: Copy + Into<f64>>(what: &str, got: &[G], want: &[f64], tol: impl Fn(f64) -> f64) {
    assert_eq!(got.len(), want.len());
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let g: f64 = g.into();
        let err = (g - w).abs();
        assert!(err <= tol(w), "{what}[{i}]: got {g:e}, want {w:e} (error {err:e} > {:e})", tol(w));
    }
}

/// Triton's Philox 4x32-10 on counter (offset, 0, 0, 0) and key (seed, 0), `seed` below 2^31.
pub fn philox(seed: u32, offset: u32) -> [u32; 4] {
    let (mut c, mut k) = ([offset, 0, 0, 0], [seed, 0]);
    let hi = |a: u32, b: u32| ((a as u64 * b as u64) >> 32) as u32;
    for _ in 0..10 {
        let (c0, c2) = (c[0], c[2]);
        c = [
            hi(0xCD9E_8D57, c2) ^ c[1] ^ k[0],
            0xCD9E_8D57u32.wrapping_mul(c2),
            hi(0xD251_1F53, c0) ^ c[3] ^ k[1],
            0xD251_1F53u32.wrapping_mul(c0),
        ];
        k = [k[0].wrapping_add(0x9E37_79B9), k[1].wrapping_add(0xBB67_AE85)];
    }
    c
}

/// Triton's `uint_to_uniform_float`: the word as an i32 folded onto [0, 2^31), scaled in f32.
pub fn uniform_float(w: u32) -> f32 {
    let x = w as i32;
    (if x < 0 { !x } else { x }) as f32 * 4.656_612_7e-10
}
