//! Rotary position embedding (RoPE), forward and backward, as transformer inference and
//! training use it: both pair layouts, partial rotary, the HF `rope_scaling` variants, fused
//! q and k with different head counts, f32/f16/bf16 storage, views into fused qkv buffers,
//! in-place or out-of-place — accurate at every position.
//!
//! ```
//! use ptx_dsl::rope::{Direction, Rope, RopeConfig, TensorView};
//! use ptx_dsl::runtime::Device;
//!
//! # fn main() -> Result<(), ptx_dsl::runtime::Error> {
//! let device = Device::sim();
//! let rope = Rope::new(RopeConfig::new(64))?.on(&device)?;
//! let (tokens, heads) = (3, 2);
//! let x = device.upload(&vec![0.5f32; tokens * heads * 64])?;
//! let mut out = device.zeroed::<f32>(x.len())?;
//! let positions = device.upload(&[0u32, 7, 100_000])?;
//! let view = TensorView::contiguous(tokens as u32, heads as u32, 64);
//! rope.apply(Direction::Forward, &positions, &x, view, &mut out, view)?;
//! let y = out.to_vec()?;
//! assert_eq!(&y[..64], &[0.5f32; 64][..]); // position 0 is the identity
//! # Ok(())
//! # }
//! ```
//!
//! For token `t` at position `pos = positions[t]` and pair `i < rotary_dim / 2` of every head,
//! with `f_i` the pair's frequency ([`freq::inverse_frequencies`]: `θ^(−2i/rotary_dim)`,
//! scaled) and `m` the attention factor (YaRN's; 1 otherwise):
//!
//! ```text
//! forward:  (a, b) -> m·(a·cos − b·sin, a·sin + b·cos)       angle = pos · f_i
//! backward: (a, b) -> m·(a·cos + b·sin, b·cos − a·sin)       (the transpose, same angle)
//! ```
//!
//! where `(a, b)` are elements `(2i, 2i+1)` ([`Layout::Interleaved`], GPT-J) or `(i, i +
//! rotary_dim/2)` ([`Layout::HalfSplit`], GPT-NeoX, Llama, HF). Elements `rotary_dim..head_dim`
//! are left as they are (copied by the out-of-place forms). The angle is reduced exactly in
//! turns before any sine is taken ([`kernels`]), so the error does not grow with the position:
//! below 2^24 it is at most [`ACCURACY`]` · max|x|` against float64 at every position.
//!
//! [`seed`] holds the port of the kernels this project started from.

pub mod freq;
pub mod kernels;
pub mod seed;

pub use freq::Scaling;

use ptx_core::Kernel;
use ptx_runtime::{Device, DeviceBuffer, DeviceScalar, Error, LaunchConfig, LaunchReport, Result};

use kernels::{
    RopeBf16, RopeBf16InPlace, RopeBf16V8, RopeBf16V8InPlace, RopeF16, RopeF16InPlace, RopeF16V8,
    RopeF16V8InPlace, RopeF32, RopeF32InPlace, RopeF32V4, RopeF32V4InPlace,
};

/// The production kernels' error bound, as a multiple of `m · max|x|` (`m` the attention
/// factor), against a float64 reference for every position below 2^24, before the result is
/// rounded to f16/bf16 storage. Derived in [`kernels`] (1.16e-6); the largest errors
/// measured (`tests/rope_production.rs`, the `rope` example) are 3.5e-7 to 3.9e-7, and up
/// to 5.4e-7 in dense sweeps at the extremes (θ near 1, positions near 2^24).
pub const ACCURACY: f64 = 1.2e-6;

/// The largest rate a pair may rotate at, in turns per position: 1/2π, one radian per
/// position, the rate of pair 0 without scaling (`θ^0`). The kernels' angle reduction and
/// [`ACCURACY`] are derived for rates up to this ([`kernels`]). Only a scaling factor below
/// 1 gives more (a linear one, or Llama 3's on its low-frequency pairs), which no HF model
/// configures: [`Rope::new`] refuses it.
pub const MAX_TURNS_PER_POSITION: f64 = 1.0 / std::f64::consts::TAU;

/// The most tokens one launch takes: the kernels' token index `block · tokens_per_block + y`
/// (at most 256 tokens per block) stays below 2^32. A launch also keeps its grid within the
/// x limit of 2^31 − 1 blocks, which is lower where a block holds one token
/// ([`Rope::max_tokens`]).
pub const MAX_TOKENS: u32 = u32::MAX - 1024;

/// The most blocks a grid has in x.
const MAX_GRID_X: u32 = i32::MAX as u32;

/// Which rotation to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Rotate by +angle (the forward pass).
    Forward,
    /// Rotate by −angle, the transpose (the backward pass for gradients).
    Backward,
}

/// Which elements of a head form a rotated pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Pairs `(2i, 2i+1)`, as GPT-J writes RoPE.
    Interleaved,
    /// Pairs `(i, i + rotary_dim/2)`, as GPT-NeoX, Llama and HF transformers write it.
    HalfSplit,
}

/// The storage type of the tensors (the math is f32 for all of them). The 16-bit types come
/// in typed buffers (`DeviceBuffer<half::f16>`, `DeviceBuffer<half::bf16>`), which a launch
/// checks against the configuration (an f16 buffer given to a bf16 RoPE is an
/// `Error::InvalidArgument` for `dtype`), or as their bits in `DeviceBuffer<u16>`, which
/// both take: then a launch cannot tell which one a buffer holds, and a RoPE configured for
/// one reads the other's bits as its own (a wrong result, not an error).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// `f32`, in a `DeviceBuffer<f32>`.
    F32,
    /// IEEE half precision, in a `DeviceBuffer<half::f16>` (or its bits in a
    /// `DeviceBuffer<u16>`).
    F16,
    /// bfloat16, in a `DeviceBuffer<half::bf16>` (or its bits in a `DeviceBuffer<u16>`).
    Bf16,
}

impl Dtype {
    /// `f32`, `f16` or `bf16`.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "f32",
            Dtype::F16 => "f16",
            Dtype::Bf16 => "bf16",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Dtype::F32 => 4,
            Dtype::F16 | Dtype::Bf16 => 2,
        }
    }
}

/// What a [`Rope`] computes: the head shape, the pair layout, the storage type and the
/// frequencies. The kernels are specialised on `head_dim`, `rotary_dim`, the layout and the
/// direction; counts (tokens, heads) and strides are launch arguments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RopeConfig {
    /// Elements per head.
    pub head_dim: u32,
    /// Leading elements of each head that are rotated (even, at most `head_dim`; HF's
    /// `partial_rotary_factor · head_dim`).
    pub rotary_dim: u32,
    /// The pair layout.
    pub layout: Layout,
    /// The storage type.
    pub dtype: Dtype,
    /// The base θ of the frequencies (HF's `rope_theta`).
    pub theta: f64,
    /// The frequency scaling (HF's `rope_scaling`).
    pub scaling: Scaling,
}

impl RopeConfig {
    /// Full rotary, half-split pairs (HF's convention), f32, θ = 10000, no scaling.
    pub fn new(head_dim: u32) -> RopeConfig {
        RopeConfig {
            head_dim,
            rotary_dim: head_dim,
            layout: Layout::HalfSplit,
            dtype: Dtype::F32,
            theta: 10_000.0,
            scaling: Scaling::None,
        }
    }

    /// Checks the shape: `head_dim` in 2..=65536, `rotary_dim` even, in 2..=`head_dim` and at
    /// most 2048 (one thread per pair in a block).
    fn validate(&self) -> Result<()> {
        if !(2..=65_536).contains(&self.head_dim) {
            return Err(invalid("head_dim", format!("must be in 2..=65536, not {}", self.head_dim)));
        }
        let r = self.rotary_dim;
        if r < 2 || !r.is_multiple_of(2) || r > self.head_dim || r > 2048 {
            return Err(invalid(
                "rotary_dim",
                format!(
                    "must be even, at least 2, at most head_dim ({}) and at most 2048, not {r}",
                    self.head_dim
                ),
            ));
        }
        Ok(())
    }
}

/// Where the heads of one tensor lie in a buffer: element `(token, head, d)` is at
/// `offset + token · stride + head · head_dim + d`. A contiguous `[tokens, heads, head_dim]`
/// tensor has `offset` 0 and `stride` `heads · head_dim`; q and k inside a fused qkv buffer
/// of rows `(q_heads + 2·kv_heads) · head_dim` long have that row as their stride and
/// offsets 0 and `q_heads · head_dim`.
///
/// A view has at least one token and one head: the `apply` functions refuse an empty one
/// as [`crate::runtime::Error::InvalidArgument`] (nothing is launched for it), so a caller
/// whose batch can be empty (a decode step with no sequences) skips the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TensorView {
    /// Tokens (rows); token `t` uses `positions[t]`.
    pub tokens: u32,
    /// Heads per token.
    pub heads: u32,
    /// Elements before the first token's first head.
    pub offset: usize,
    /// Elements from one token's row to the next (at least `heads · head_dim`).
    pub stride: usize,
}

impl TensorView {
    /// A contiguous `[tokens, heads, head_dim]` tensor.
    pub fn contiguous(tokens: u32, heads: u32, head_dim: u32) -> TensorView {
        TensorView { tokens, heads, offset: 0, stride: heads as usize * head_dim as usize }
    }

    /// Elements of the buffer the view reaches into (its last element's index + 1),
    /// `usize::MAX` when that does not fit a `usize`.
    pub fn extent(&self, head_dim: u32) -> usize {
        self.checked_extent(head_dim).unwrap_or(usize::MAX)
    }

    /// [`TensorView::extent`], or `None` when it overflows.
    fn checked_extent(&self, head_dim: u32) -> Option<usize> {
        let rows = (self.tokens.saturating_sub(1) as usize).checked_mul(self.stride)?;
        self.offset.checked_add(rows)?.checked_add(self.heads as usize * head_dim as usize)
    }

    /// Checks the view against its buffer's length: at least one token and one head, rows
    /// that do not overlap, and everything inside the buffer.
    fn validate(&self, argument: &str, head_dim: u32, buffer_len: usize) -> Result<()> {
        let row = self.heads as usize * head_dim as usize;
        if self.tokens == 0 || self.heads == 0 {
            let reason =
                format!("has {} tokens and {} heads; both must be at least 1", self.tokens, self.heads);
            return Err(invalid(argument, reason));
        }
        if self.tokens > 1 && self.stride < row {
            let reason =
                format!("stride {} is smaller than its row ({} heads x {head_dim})", self.stride, self.heads);
            return Err(invalid(argument, reason));
        }
        match self.checked_extent(head_dim) {
            Some(e) if e <= buffer_len => Ok(()),
            extent => Err(invalid(
                argument,
                format!(
                    "reaches element {} (offset {}, {} tokens of stride {}, {} heads x {head_dim}), but the \
                     buffer holds {buffer_len}",
                    extent.map_or("beyond usize::MAX".to_string(), |e| e.to_string()),
                    self.offset,
                    self.tokens,
                    self.stride,
                    self.heads
                ),
            )),
        }
    }
}

/// An [`Error::InvalidArgument`].
fn invalid(argument: &str, reason: String) -> Error {
    Error::InvalidArgument { argument: argument.into(), reason }
}

/// Err naming `scaling.factor` unless every pair's rate, as the kernels read it (`hi`), is at
/// most [`MAX_TURNS_PER_POSITION`] in f32 (NaN and ∞ fail too). A rate that underflows to 0
/// is accepted: its true angle stays below 2^32 · 2^-149 · 2π ≈ 2e-35 radians at every
/// position, far inside [`ACCURACY`], so not rotating is the right result.
fn check_rates(turns: &[f32], inverse_frequencies: &[f64], scaling: &Scaling) -> Result<()> {
    let limit = MAX_TURNS_PER_POSITION as f32;
    match turns.chunks(2).position(|rate| rate[0].is_nan() || rate[0] > limit) {
        None => Ok(()),
        Some(pair) => {
            let inv = inverse_frequencies[pair];
            let reason = format!(
                "{scaling:?} makes pair {pair} rotate {:.6} turns ({inv:.6} radians) per position, more than the \
                 {MAX_TURNS_PER_POSITION:.6} turns (1 radian) the kernels' angle reduction is accurate \
                 for (a factor below 1 raises the rates above θ's)",
                inv / std::f64::consts::TAU
            );
            Err(invalid("scaling.factor", reason))
        }
    }
}

/// A RoPE configuration with its frequency table computed (in f64, then split into f32
/// turn rates, [`freq::turn_table`]). [`Rope::on`] binds it to a device.
#[derive(Clone, Debug, PartialEq)]
pub struct Rope {
    config: RopeConfig,
    turns: Vec<f32>,
    attention_factor: f32,
}

impl Rope {
    /// Validates the configuration and computes the frequency table. A mistake is an
    /// [`Error::InvalidArgument`] naming the field: `head_dim`, `rotary_dim`, `theta`, or a
    /// scaling parameter as `scaling.<field>` (`scaling.factor`, `scaling.beta_fast`, ...;
    /// [`Scaling::validate`]). `scaling.factor` is also refused when it makes a pair rotate
    /// faster than [`MAX_TURNS_PER_POSITION`], where [`ACCURACY`] no longer holds.
    pub fn new(config: RopeConfig) -> Result<Rope> {
        config.validate()?;
        let inv = freq::inverse_frequencies(config.theta, config.rotary_dim, &config.scaling)?;
        let turns = freq::turn_table(&inv);
        check_rates(&turns, &inv, &config.scaling)?;
        // `Scaling::validate` checked an explicit attention factor to be a normal f32; the
        // default is in 1..=72.
        Ok(Rope { config, turns, attention_factor: config.scaling.attention_factor() as f32 })
    }

    /// The configuration.
    pub fn config(&self) -> &RopeConfig {
        &self.config
    }

    /// The table the kernels read: `[hi_0, lo_0, hi_1, lo_1, ...]`, pair `i`'s rate in turns
    /// per position as an f32 pair.
    pub fn turn_table(&self) -> &[f32] {
        &self.turns
    }

    /// The factor on cos and sin (YaRN's attention factor, else 1).
    pub fn attention_factor(&self) -> f32 {
        self.attention_factor
    }

    /// The error bound, as a multiple of `m · max|x|`, for positions below `max_position`:
    /// [`ACCURACY`] up to 2^24. Above, `pos as f32` is rounded, and the fraction of a turn
    /// the kernel forms ([`kernels`]) gathers terms up to `3·2^-24·pos·g` (`g` the pair's
    /// rate in turns: `p·hi − whole`, `p_rem·hi` and `p·lo`); their four roundings err by
    /// `7·2^-48·pos·g` turns and the table's `hi + lo` misses `g` by `2^-48·g`, `8·2^-48·pos·g`
    /// turns in all, which moves an output by `√2·2π` times that: `11.4·2^-48·pos·f` with
    /// `f = 2π·g` the largest frequency.
    pub fn error_bound(&self, max_position: u32) -> f64 {
        if max_position <= 1 << 24 {
            return ACCURACY;
        }
        let largest = self.turns.chunks(2).map(|t| t[0].abs() as f64).fold(0.0, f64::max);
        ACCURACY + 11.4 * 2f64.powi(-48) * max_position as f64 * largest * std::f64::consts::TAU
    }

    /// The kernel for one direction, in place or not, for this configuration's storage type
    /// (to print or assemble its PTX; [`DeviceRope`] launches them): the vectorised one
    /// where [`Rope::vector_width`] allows it, as every launch on views whose offsets and
    /// strides are multiples of that width (contiguous tensors) uses, else the scalar one.
    pub fn kernel(&self, direction: Direction, in_place: bool) -> Box<dyn Kernel> {
        self.kernel_variant(direction, in_place, true)
    }

    /// The vectorised kernel for one direction (`vectorised`, where [`Rope::vector_width`]
    /// allows it) or the scalar one (what views that are not 16-byte aligned launch).
    pub fn kernel_variant(&self, direction: Direction, in_place: bool, vectorised: bool) -> Box<dyn Kernel> {
        let vectorised = vectorised && self.vector_width().is_some();
        let c = &self.config;
        let (hd, rd, half, back) =
            (c.head_dim, c.rotary_dim, c.layout == Layout::HalfSplit, direction == Direction::Backward);
        match (c.dtype, in_place, vectorised) {
            (Dtype::F32, false, false) => Box::new(RopeF32::new(hd, rd, half, back)),
            (Dtype::F32, true, false) => Box::new(RopeF32InPlace::new(hd, rd, half, back)),
            (Dtype::F16, false, false) => Box::new(RopeF16::new(hd, rd, half, back)),
            (Dtype::F16, true, false) => Box::new(RopeF16InPlace::new(hd, rd, half, back)),
            (Dtype::Bf16, false, false) => Box::new(RopeBf16::new(hd, rd, half, back)),
            (Dtype::Bf16, true, false) => Box::new(RopeBf16InPlace::new(hd, rd, half, back)),
            (Dtype::F32, false, true) => Box::new(RopeF32V4::new(hd, rd, half, back)),
            (Dtype::F32, true, true) => Box::new(RopeF32V4InPlace::new(hd, rd, half, back)),
            (Dtype::F16, false, true) => Box::new(RopeF16V8::new(hd, rd, half, back)),
            (Dtype::F16, true, true) => Box::new(RopeF16V8InPlace::new(hd, rd, half, back)),
            (Dtype::Bf16, false, true) => Box::new(RopeBf16V8::new(hd, rd, half, back)),
            (Dtype::Bf16, true, true) => Box::new(RopeBf16V8InPlace::new(hd, rd, half, back)),
        }
    }

    /// The elements per 16-byte vector access of this storage type (4 `f32`, 8 `f16` or
    /// `bf16`) when the vectorised kernels can serve this configuration: `rotary_dim` a
    /// multiple of twice that (each thread rotates that many whole pairs) and `head_dim` a
    /// multiple of it (every head starts on a vector). `None` otherwise.
    pub fn vector_width(&self) -> Option<u32> {
        let width = 16 / self.config.dtype.size() as u32;
        let fits =
            self.config.rotary_dim.is_multiple_of(2 * width) && self.config.head_dim.is_multiple_of(width);
        fits.then_some(width)
    }

    /// Whether a launch over `views` runs the vectorised kernel: [`Rope::vector_width`]
    /// allows it and every view's offset and stride are multiples of the width (so that
    /// every vector access is 16-byte aligned).
    fn vectorised(&self, views: &[(&str, TensorView)]) -> bool {
        self.vector_width().is_some_and(|w| {
            let w = w as usize;
            views.iter().all(|(_, v)| v.offset % w == 0 && v.stride % w == 0)
        })
    }

    /// The most tokens one launch of the vectorised (`vectorised`) or scalar kernel takes:
    /// [`MAX_TOKENS`], or fewer where [`Rope::launch_config`] puts so few tokens in a block
    /// that more would pass the grid's x limit of 2^31 − 1 blocks.
    pub fn max_tokens(&self, vectorised: bool) -> u32 {
        let per_block = self.launch_config(1, vectorised).block.1;
        MAX_TOKENS.min(MAX_GRID_X.saturating_mul(per_block))
    }

    /// The launch geometry for `tokens` tokens: one thread per pair (per `W` pairs when
    /// `vectorised`, `W` the [`Rope::vector_width`]) in x, as many tokens per block in y as
    /// make up about 256 threads (at least one), blocks over the tokens in x.
    pub fn launch_config(&self, tokens: u32, vectorised: bool) -> LaunchConfig {
        let pairs = self.config.rotary_dim / 2;
        let threads = match (vectorised, self.vector_width()) {
            (true, Some(w)) => pairs / w,
            _ => pairs,
        };
        let per_block = (256 / threads).max(1);
        LaunchConfig::new((tokens.div_ceil(per_block), 1, 1), (threads, per_block, 1))
    }

    /// Uploads the frequency table to `device`, ready to launch there.
    pub fn on(self, device: &Device) -> Result<DeviceRope> {
        let table = device.upload(&self.turns)?;
        Ok(DeviceRope { rope: self, device: device.clone(), table })
    }
}

/// A [`Rope`] whose table lives on a device: launches the kernels there. Each launch first
/// checks its arguments ([`Error::InvalidArgument`] naming the argument) and that every
/// buffer lives on that device ([`Error::WrongDevice`] naming the argument).
pub struct DeviceRope {
    rope: Rope,
    device: Device,
    table: DeviceBuffer<f32>,
}

/// One tensor of an out-of-place launch: where to read and where to write, and the names of
/// the two arguments, for errors.
struct Pass<'a, T: DeviceScalar> {
    names: (&'static str, &'static str),
    src: &'a DeviceBuffer<T>,
    src_view: TensorView,
    dst: &'a mut DeviceBuffer<T>,
    dst_view: TensorView,
}

impl DeviceRope {
    /// The configuration and its table.
    pub fn rope(&self) -> &Rope {
        &self.rope
    }

    /// Rotates `x` (laid out as `x_view` says) into `out` (as `out_view` says); elements of
    /// `out` outside its view are left alone. `positions` holds one position per token.
    pub fn apply<T: RopeStorage>(
        &self,
        direction: Direction,
        positions: &DeviceBuffer<u32>,
        x: &DeviceBuffer<T>,
        x_view: TensorView,
        out: &mut DeviceBuffer<T>,
        out_view: TensorView,
    ) -> Result<LaunchReport> {
        let mut none = self.device.zeroed::<T>(0)?;
        let q = Pass { names: ("x", "out"), src: x, src_view: x_view, dst: out, dst_view: out_view };
        self.out_of_place(direction, positions, q, None, &mut none)
    }

    /// Rotates q into `q_out` and k into `k_out` in one launch (the sines and cosines are
    /// computed once per token and pair for all heads of both); q and k may have different
    /// head counts (grouped-query attention) but have the same tokens.
    #[allow(clippy::too_many_arguments)]
    pub fn apply_qk<T: RopeStorage>(
        &self,
        direction: Direction,
        positions: &DeviceBuffer<u32>,
        (q, q_view): (&DeviceBuffer<T>, TensorView),
        (k, k_view): (&DeviceBuffer<T>, TensorView),
        (q_out, q_out_view): (&mut DeviceBuffer<T>, TensorView),
        (k_out, k_out_view): (&mut DeviceBuffer<T>, TensorView),
    ) -> Result<LaunchReport> {
        let q = Pass { names: ("q", "q_out"), src: q, src_view: q_view, dst: q_out, dst_view: q_out_view };
        self.out_of_place(direction, positions, q, Some((k, k_view, k_out_view)), k_out)
    }

    /// Rotates the tensor `view` of `x` in place.
    pub fn apply_in_place<T: RopeStorage>(
        &self,
        direction: Direction,
        positions: &DeviceBuffer<u32>,
        x: &mut DeviceBuffer<T>,
        view: TensorView,
    ) -> Result<LaunchReport> {
        self.in_place(direction, positions, x, ("x", view), None)
    }

    /// Rotates q and k, two views of the one buffer `x` (as in a fused qkv projection, or q
    /// and k stacked in one allocation), in place and in one launch. The views must have the
    /// same tokens and must not share an element ([`Error::InvalidArgument`] naming `k`, with
    /// the overlapping element ranges); views with different strides must lie in separate
    /// ranges of `x`.
    pub fn apply_qk_in_place<T: RopeStorage>(
        &self,
        direction: Direction,
        positions: &DeviceBuffer<u32>,
        x: &mut DeviceBuffer<T>,
        q_view: TensorView,
        k_view: TensorView,
    ) -> Result<LaunchReport> {
        self.in_place(direction, positions, x, ("q", q_view), Some(k_view))
    }

    /// Checks that buffers of `T` hold the configured storage type: first, as it is what
    /// the types say, whatever the shapes.
    fn check_dtype<T: RopeStorage>(&self) -> Result<()> {
        let dtype = self.rope.config.dtype;
        if T::DTYPES.contains(&dtype) {
            return Ok(());
        }
        let reason =
            format!("the buffers hold {}, but the RoPE was configured for {}", T::NAME, dtype.name());
        Err(invalid("dtype", reason))
    }

    /// Checks what every launch shares: the table's device and the positions, returning
    /// the geometry and whether the vectorised kernel runs.
    fn common(
        &self,
        positions: &DeviceBuffer<u32>,
        views: &[(&str, TensorView)],
    ) -> Result<(LaunchConfig, bool)> {
        let tokens = views[0].1.tokens;
        for (argument, view) in views {
            if view.tokens != tokens {
                let reason = format!("has {} tokens, but `{}` has {tokens}", view.tokens, views[0].0);
                return Err(invalid(argument, reason));
            }
        }
        let vectorised = self.rope.vectorised(views);
        let most = self.rope.max_tokens(vectorised);
        if tokens > most {
            let reason =
                format!("has {tokens} tokens; at most {most} are supported in one launch of this RoPE");
            return Err(invalid(views[0].0, reason));
        }
        if positions.len() < tokens as usize {
            let reason = format!("holds {} positions, fewer than the {tokens} tokens", positions.len());
            return Err(invalid("positions", reason));
        }
        Ok((self.rope.launch_config(tokens, vectorised), vectorised))
    }

    /// Every buffer must live on this RoPE's device: [`Error::WrongDevice`] naming the
    /// argument as the RoPE API calls it (the launch would name the kernel's parameter).
    fn check_devices(&self, buffers: &[(&str, &Device)]) -> Result<()> {
        crate::placement::check_devices(&self.device, buffers, "this RoPE runs on")
    }

    fn out_of_place<T: RopeStorage>(
        &self,
        direction: Direction,
        positions: &DeviceBuffer<u32>,
        q: Pass<'_, T>,
        k: Option<(&DeviceBuffer<T>, TensorView, TensorView)>,
        k_out: &mut DeviceBuffer<T>,
    ) -> Result<LaunchReport> {
        self.check_dtype::<T>()?;
        let hd = self.rope.config.head_dim;
        let (src_name, dst_name) = q.names;
        let mut views = vec![(src_name, q.src_view), (dst_name, q.dst_view)];
        q.src_view.validate(src_name, hd, q.src.len())?;
        q.dst_view.validate(dst_name, hd, q.dst.len())?;
        check_heads(dst_name, q.dst_view, q.src_view)?;
        let (k_src, k_view, k_out_view) = match k {
            Some((src, view, out_view)) => {
                view.validate("k", hd, src.len())?;
                out_view.validate("k_out", hd, k_out.len())?;
                check_heads("k_out", out_view, view)?;
                views.extend([("k", view), ("k_out", out_view)]);
                (src, view, out_view)
            }
            // No k: its loop runs zero times over an empty output.
            None => (
                q.src,
                TensorView { heads: 0, ..q.src_view },
                TensorView { heads: 0, offset: 0, ..q.dst_view },
            ),
        };
        self.check_devices(&[
            ("positions", positions.device()),
            (src_name, q.src.device()),
            ("k", k_src.device()),
            (dst_name, q.dst.device()),
            ("k_out", k_out.device()),
        ])?;
        let (cfg, vectorised) = self.common(positions, &views)?;
        let args = OutOfPlaceArgs {
            q: (q.src, q.src_view),
            k: (k_src, k_view),
            q_out: (q.dst, q.dst_view),
            k_out: (k_out, k_out_view),
            positions,
            table: &self.table,
            scale: self.rope.attention_factor,
        };
        T::launch_out_of_place(&self.rope.config, direction, &self.device, (cfg, vectorised), args)
    }

    fn in_place<T: RopeStorage>(
        &self,
        direction: Direction,
        positions: &DeviceBuffer<u32>,
        x: &mut DeviceBuffer<T>,
        (q_name, q_view): (&'static str, TensorView),
        k_view: Option<TensorView>,
    ) -> Result<LaunchReport> {
        self.check_dtype::<T>()?;
        let hd = self.rope.config.head_dim;
        q_view.validate(q_name, hd, x.len())?;
        let mut views = vec![(q_name, q_view)];
        let k_view = match k_view {
            Some(k) => {
                k.validate("k", hd, x.len())?;
                check_disjoint(q_view, k, hd)?;
                views.push(("k", k));
                k
            }
            None => TensorView { heads: 0, ..q_view },
        };
        self.check_devices(&[("positions", positions.device()), ("x", x.device())])?;
        let (cfg, vectorised) = self.common(positions, &views)?;
        let args = InPlaceArgs {
            x,
            q: q_view,
            k: k_view,
            positions,
            table: &self.table,
            scale: self.rope.attention_factor,
        };
        T::launch_in_place(&self.rope.config, direction, &self.device, (cfg, vectorised), args)
    }
}

/// An output view must have its input's head count.
fn check_heads(argument: &str, out: TensorView, input: TensorView) -> Result<()> {
    if out.heads != input.heads {
        let reason = format!("has {} heads, but its input has {}", out.heads, input.heads);
        return Err(invalid(argument, reason));
    }
    Ok(())
}

/// In-place q and k views of one buffer must not share an element (it would be rotated
/// twice). Each view is the rows `offset + t·stride + [0, heads·head_dim)`, `t < tokens`;
/// with one stride (a view of one token has any) the check is exact ([`overlapping_rows`]),
/// with two the views must lie in separate ranges of the buffer.
fn check_disjoint(q: TensorView, k: TensorView, head_dim: u32) -> Result<()> {
    let rows = |v: TensorView| (v.tokens > 1).then_some(v.stride);
    let stride = match (rows(q), rows(k)) {
        (Some(a), Some(b)) if a != b => return check_separate(q, k, head_dim),
        (a, b) => a.or(b).unwrap_or(0),
    };
    match overlapping_rows(q, k, head_dim, stride) {
        None => Ok(()),
        Some((qt, kt)) => {
            let span = |v: TensorView, t: u32| {
                let start = v.offset + t as usize * v.stride;
                format!("{start}..{} (token {t})", start + v.heads as usize * head_dim as usize)
            };
            let reason = format!("elements {} overlap q's {} in the one buffer", span(k, kt), span(q, qt));
            Err(invalid("k", reason))
        }
    }
}

/// The first token of q and of k whose rows share an element, for views of `stride` (both
/// inside the buffer, so no sum below overflows an `i128`). Row `i` of q and row `j` of k
/// overlap when `−k_row < (k.offset − q.offset) + (j − i)·stride < q_row`: the smallest
/// `t = j − i` above the lower end is the only candidate to test.
fn overlapping_rows(q: TensorView, k: TensorView, head_dim: u32, stride: usize) -> Option<(u32, u32)> {
    let row = |v: TensorView| v.heads as i128 * head_dim as i128;
    let d = k.offset as i128 - q.offset as i128;
    let (low, high) = (-row(k) - d, row(q) - d);
    let (t_min, t_max) = (1 - q.tokens as i128, k.tokens as i128 - 1);
    let s = stride as i128;
    // Stride 0: both views are one token, t is 0.
    let t = if s == 0 { 0 } else { low.div_euclid(s) + 1 }.max(t_min);
    let hit = t <= t_max && t * s > low && t * s < high;
    // i = max(0, −t), j = i + t: both in range since t_min <= t <= t_max.
    hit.then(|| {
        let i = (-t).max(0);
        (i as u32, (i + t) as u32)
    })
}

/// Views of one buffer with different strides must not interleave: one must end before the
/// other starts.
fn check_separate(q: TensorView, k: TensorView, head_dim: u32) -> Result<()> {
    let (q_end, k_end) = (q.extent(head_dim), k.extent(head_dim));
    if q_end <= k.offset || k_end <= q.offset {
        return Ok(());
    }
    let reason = format!(
        "stride {} differs from q's {}, and its elements {}..{k_end} interleave with q's {}..{q_end}: \
         views of one buffer with different strides must lie in separate ranges",
        k.stride, q.stride, k.offset, q.offset
    );
    Err(invalid("k", reason))
}

/// The arguments of an out-of-place launch, validated.
#[doc(hidden)]
pub struct OutOfPlaceArgs<'a, T: DeviceScalar> {
    q: (&'a DeviceBuffer<T>, TensorView),
    k: (&'a DeviceBuffer<T>, TensorView),
    q_out: (&'a mut DeviceBuffer<T>, TensorView),
    k_out: (&'a mut DeviceBuffer<T>, TensorView),
    positions: &'a DeviceBuffer<u32>,
    table: &'a DeviceBuffer<f32>,
    scale: f32,
}

/// The arguments of an in-place launch, validated.
#[doc(hidden)]
pub struct InPlaceArgs<'a, T: DeviceScalar> {
    x: &'a mut DeviceBuffer<T>,
    q: TensorView,
    k: TensorView,
    positions: &'a DeviceBuffer<u32>,
    table: &'a DeviceBuffer<f32>,
    scale: f32,
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for u16 {}
    impl Sealed for crate::half::f16 {}
    impl Sealed for crate::half::bf16 {}
}

/// The host element types of RoPE buffers: `f32` for [`Dtype::F32`], `half::f16` for
/// [`Dtype::F16`], `half::bf16` for [`Dtype::Bf16`], and `u16` (the bits) for either
/// 16-bit type, which the launch takes as the configuration says (it cannot tell f16 bits
/// from bf16 ones). Sealed; it routes a launch to the typed kernel.
pub trait RopeStorage: DeviceScalar + sealed::Sealed {
    /// The storage types whose buffers hold this element type.
    const DTYPES: &'static [Dtype];
    /// The type's name, for errors.
    const NAME: &'static str;
    #[doc(hidden)]
    fn launch_out_of_place(
        config: &RopeConfig,
        direction: Direction,
        device: &Device,
        geometry: (LaunchConfig, bool),
        args: OutOfPlaceArgs<'_, Self>,
    ) -> Result<LaunchReport>;
    #[doc(hidden)]
    fn launch_in_place(
        config: &RopeConfig,
        direction: Direction,
        device: &Device,
        geometry: (LaunchConfig, bool),
        args: InPlaceArgs<'_, Self>,
    ) -> Result<LaunchReport>;
}

/// The comptime values of a kernel: head_dim, rotary_dim, half-split, backward.
fn comptimes(config: &RopeConfig, direction: Direction) -> (u32, u32, bool, bool) {
    (config.head_dim, config.rotary_dim, config.layout == Layout::HalfSplit, direction == Direction::Backward)
}

/// Launches an out-of-place kernel type on validated arguments.
macro_rules! launch_out_of_place {
    ($kernel:ident, $config:expr, $direction:expr, $device:expr, $cfg:expr, $a:expr) => {{
        let (hd, rd, half, back) = comptimes($config, $direction);
        let a = $a;
        let tokens = a.q.1.tokens;
        // SAFETY: `DeviceRope::out_of_place` checked every view against its buffer (so
        // `offset + token·stride + head·head_dim + d` is in range for every token, head and
        // `d < head_dim` the kernel forms), `positions` against the tokens, and the table is
        // the configuration's own (one hi/lo entry per pair); the geometry comes from
        // `Rope::launch_config`, whose excess threads return before any access. The
        // vectorised kernels run only where `Rope::vectorised` holds: every view's offset
        // and stride and `head_dim` are multiples of the width and `rotary_dim` of twice
        // it, so each vector lies inside one head row and starts 16-byte aligned (buffers
        // start on 256-byte boundaries).
        unsafe {
            $kernel::new(hd, rd, half, back).launch(
                $device,
                $cfg,
                a.q.0,
                a.q.1.offset,
                a.q.1.stride,
                a.q.1.heads,
                a.k.0,
                a.k.1.offset,
                a.k.1.stride,
                a.k.1.heads,
                a.q_out.0,
                a.q_out.1.offset,
                a.q_out.1.stride,
                a.k_out.0,
                a.k_out.1.offset,
                a.k_out.1.stride,
                a.positions,
                a.table,
                tokens,
                a.scale,
            )
        }
    }};
}

/// Launches an in-place kernel type on validated arguments.
macro_rules! launch_in_place {
    ($kernel:ident, $config:expr, $direction:expr, $device:expr, $cfg:expr, $a:expr) => {{
        let (hd, rd, half, back) = comptimes($config, $direction);
        let a = $a;
        // SAFETY: as for `launch_out_of_place`: `DeviceRope::in_place` checked both views
        // against `x` and `positions` against the tokens.
        unsafe {
            $kernel::new(hd, rd, half, back).launch(
                $device,
                $cfg,
                a.x,
                a.q.offset,
                a.q.stride,
                a.q.heads,
                a.k.offset,
                a.k.stride,
                a.k.heads,
                a.positions,
                a.table,
                a.q.tokens,
                a.scale,
            )
        }
    }};
}

impl RopeStorage for f32 {
    const DTYPES: &'static [Dtype] = &[Dtype::F32];
    const NAME: &'static str = "f32";

    fn launch_out_of_place(
        config: &RopeConfig,
        direction: Direction,
        device: &Device,
        (cfg, vectorised): (LaunchConfig, bool),
        args: OutOfPlaceArgs<'_, f32>,
    ) -> Result<LaunchReport> {
        if vectorised {
            launch_out_of_place!(RopeF32V4, config, direction, device, cfg, args)
        } else {
            launch_out_of_place!(RopeF32, config, direction, device, cfg, args)
        }
    }

    fn launch_in_place(
        config: &RopeConfig,
        direction: Direction,
        device: &Device,
        (cfg, vectorised): (LaunchConfig, bool),
        args: InPlaceArgs<'_, f32>,
    ) -> Result<LaunchReport> {
        if vectorised {
            launch_in_place!(RopeF32V4InPlace, config, direction, device, cfg, args)
        } else {
            launch_in_place!(RopeF32InPlace, config, direction, device, cfg, args)
        }
    }
}

/// Implements [`RopeStorage`] for a typed half-precision element: the kernels of its one
/// storage type.
macro_rules! half_storage {
    ($t:ty, $dtype:ident, $name:literal, $v8:ident, $scalar:ident, $v8_in_place:ident, $in_place:ident) => {
        impl RopeStorage for $t {
            const DTYPES: &'static [Dtype] = &[Dtype::$dtype];
            const NAME: &'static str = $name;

            fn launch_out_of_place(
                config: &RopeConfig,
                direction: Direction,
                device: &Device,
                (cfg, vectorised): (LaunchConfig, bool),
                args: OutOfPlaceArgs<'_, $t>,
            ) -> Result<LaunchReport> {
                if vectorised {
                    launch_out_of_place!($v8, config, direction, device, cfg, args)
                } else {
                    launch_out_of_place!($scalar, config, direction, device, cfg, args)
                }
            }

            fn launch_in_place(
                config: &RopeConfig,
                direction: Direction,
                device: &Device,
                (cfg, vectorised): (LaunchConfig, bool),
                args: InPlaceArgs<'_, $t>,
            ) -> Result<LaunchReport> {
                if vectorised {
                    launch_in_place!($v8_in_place, config, direction, device, cfg, args)
                } else {
                    launch_in_place!($in_place, config, direction, device, cfg, args)
                }
            }
        }
    };
}

half_storage!(crate::half::f16, F16, "f16", RopeF16V8, RopeF16, RopeF16V8InPlace, RopeF16InPlace);
half_storage!(crate::half::bf16, Bf16, "bf16", RopeBf16V8, RopeBf16, RopeBf16V8InPlace, RopeBf16InPlace);

impl RopeStorage for u16 {
    const DTYPES: &'static [Dtype] = &[Dtype::F16, Dtype::Bf16];
    const NAME: &'static str = "u16 (f16 or bf16 bits)";

    fn launch_out_of_place(
        config: &RopeConfig,
        direction: Direction,
        device: &Device,
        (cfg, vectorised): (LaunchConfig, bool),
        args: OutOfPlaceArgs<'_, u16>,
    ) -> Result<LaunchReport> {
        match (config.dtype == Dtype::F16, vectorised) {
            (true, true) => launch_out_of_place!(RopeF16V8, config, direction, device, cfg, args),
            (true, false) => launch_out_of_place!(RopeF16, config, direction, device, cfg, args),
            (false, true) => launch_out_of_place!(RopeBf16V8, config, direction, device, cfg, args),
            (false, false) => launch_out_of_place!(RopeBf16, config, direction, device, cfg, args),
        }
    }

    fn launch_in_place(
        config: &RopeConfig,
        direction: Direction,
        device: &Device,
        (cfg, vectorised): (LaunchConfig, bool),
        args: InPlaceArgs<'_, u16>,
    ) -> Result<LaunchReport> {
        match (config.dtype == Dtype::F16, vectorised) {
            (true, true) => launch_in_place!(RopeF16V8InPlace, config, direction, device, cfg, args),
            (true, false) => launch_in_place!(RopeF16InPlace, config, direction, device, cfg, args),
            (false, true) => launch_in_place!(RopeBf16V8InPlace, config, direction, device, cfg, args),
            (false, false) => launch_in_place!(RopeBf16InPlace, config, direction, device, cfg, args),
        }
    }
}
