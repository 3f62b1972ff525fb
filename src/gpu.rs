//! The built-in functions of the kernel language, as documented items so that editors
//! complete them. Inside a `#[ptx_kernel]` function the macro replaces each call with the
//! PTX it names. The index built-ins, shared arrays, barriers and warp functions have no
//! meaning on the host, and calling one outside a kernel panics with a message saying so;
//! the atomics and [`warp_size`] do what they do on one GPU thread, so that a kernel's body
//! run as plain Rust on one thread computes what it computes on the GPU.

/// A built-in index: the three components of `%tid`, `%ctaid`, `%ntid` or `%nctaid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    /// The x component.
    pub x: u32,
    /// The y component.
    pub y: u32,
    /// The z component.
    pub z: u32,
}

#[cold]
#[track_caller]
fn outside_kernel(name: &str) -> ! {
    panic!(
        "`{name}()` is a GPU built-in: it only has a meaning inside a `#[ptx_kernel]` function \
         (or a `#[ptx_device]` function a kernel calls), where the macro turns it into PTX"
    )
}

/// The index of the calling thread within its block (`%tid`), each component `u32`.
#[track_caller]
pub fn thread_idx() -> Dim3 {
    outside_kernel("thread_idx")
}

/// The index of the calling thread's block within the grid (`%ctaid`).
#[track_caller]
pub fn block_idx() -> Dim3 {
    outside_kernel("block_idx")
}

/// The number of threads per block in each dimension (`%ntid`).
#[track_caller]
pub fn block_dim() -> Dim3 {
    outside_kernel("block_dim")
}

/// The number of blocks in the grid in each dimension (`%nctaid`).
#[track_caller]
pub fn grid_dim() -> Dim3 {
    outside_kernel("grid_dim")
}

/// The calling thread's index in the whole grid, per axis:
/// `block_idx() * block_dim() + thread_idx()` (each `u32`, wrapping).
#[track_caller]
pub fn global_idx() -> Dim3 {
    outside_kernel("global_idx")
}

/// `for i in grid_stride(n)`: the indices `global_idx().x, + grid size, ..` below `n`, so
/// that a grid of any size covers `0..n` (the grid size is `grid_dim().x * block_dim().x`).
/// Like `for i in 0..x.len()`, `grid_stride(x.len())` proves `x[i]` in range.
#[track_caller]
pub fn grid_stride(n: usize) -> std::iter::StepBy<std::ops::Range<usize>> {
    let _ = n;
    outside_kernel("grid_stride")
}

/// `let tile = shared::<T, N>();` declares a shared array: `N` elements of `T` that every
/// thread of the block sees, indexed like a slice (`tile[i]`, `tile[i] = v`, `tile.len()`),
/// bounds-checked in a checked kernel. `N` is a literal, a `#[comptime]` parameter, or a
/// `{ .. }` block of comptime values; all of a kernel's shared arrays together may take at
/// most 48 KiB. Its contents are undefined until written: write, [`sync_threads`], then
/// read what other threads wrote.
#[track_caller]
pub fn shared<T, const N: usize>() -> &'static mut [T; N] {
    outside_kernel("shared")
}

/// `let buffer = shared_dyn::<T>();` is the kernel's dynamic shared memory: as many
/// elements of `T` as the bytes the launch gives it (`LaunchConfig::with_shared_mem`), so
/// its length is a runtime value (`buffer.len()`), bounds-checked like a slice in a checked
/// kernel. Every `shared_dyn` of a kernel is the same memory (as CUDA's `extern __shared__`).
#[track_caller]
pub fn shared_dyn<T>() -> &'static mut [T] {
    outside_kernel("shared_dyn")
}

/// `gpu_print!("i = {} x = {}", i, x)` prints from every thread that runs it, through the
/// CUDA runtime's device-side `printf`: on a GPU the driver writes the text to stdout at the
/// next synchronising call; the simulator writes it as the launch runs (and returns it in
/// `LaunchReport::printed`). The format is a string literal with plain `{}` placeholders
/// (`{{` and `}}` for braces), one per value; integers and `bool`s print as Rust prints
/// them, floats as C's `%g` (six significant digits). Each call prints one line (a `\n`
/// ends it). Outside a kernel it is `println!`.
#[macro_export]
macro_rules! gpu_print {
    () => {
        ()
    };
    ($($arg:tt)+) => {
        ::std::println!($($arg)+)
    };
}

/// The block barrier (`bar.sync 0`, CUDA's `__syncthreads()`): each thread waits until every
/// thread of its block has arrived, and then sees the shared and global memory writes the
/// others made before it. Every thread of the block must reach the same `sync_threads()`:
/// one inside a branch some threads skip (an early `return`, say) is a deadlock, which the
/// simulator reports as an error and a GPU may hang on.
#[track_caller]
pub fn sync_threads() {
    outside_kernel("sync_threads")
}

/// The warp barrier (`bar.warp.sync 0xffffffff`, CUDA's `__syncwarp()`): the 32 lanes of the
/// warp wait for each other, and their memory accesses before it are seen by each other
/// after it (the simulator's race checker takes it as ordering the warp's lanes).
#[track_caller]
pub fn sync_warp() {
    outside_kernel("sync_warp")
}

/// A memory fence for the block (`membar.cta`, CUDA's `__threadfence_block()`): this thread's
/// writes before it are seen by the block's threads before its writes after it.
#[track_caller]
pub fn thread_fence_block() {
    outside_kernel("thread_fence_block")
}

/// A memory fence for the whole GPU (`membar.gl`, `__threadfence()`), e.g. between writing a
/// result and raising the flag (an atomic) that tells another block it is there.
#[track_caller]
pub fn thread_fence() {
    outside_kernel("thread_fence")
}

/// A memory fence for the GPU and the host (`membar.sys`, `__threadfence_system()`).
#[track_caller]
pub fn thread_fence_system() {
    outside_kernel("thread_fence_system")
}

/// The calling thread's lane in its warp (`%laneid`, 0 to 31).
#[track_caller]
pub fn lane_id() -> u32 {
    outside_kernel("lane_id")
}

/// The number of threads in a warp: 32 on every CUDA GPU (a constant, folded where the
/// kernel is built).
pub const fn warp_size() -> u32 {
    32
}

/// The values a shuffle moves: integers, `f16`, `bf16`, `f32` and `f64` (64-bit values
/// move as two 32-bit halves, 16-bit floats as their bits in the low half of a word); the
/// warp and block reductions take integers, `f32` and `f64`.
pub trait WarpValue: Copy + sealed::Sealed {}

/// The element types atomics work on: 32- and 64-bit integers, `f32` and `f64`.
pub trait AtomicValue: Copy + PartialEq + sealed::Sealed {
    /// `self + other`, wrapping for integers.
    fn atomic_sum(self, other: Self) -> Self;
    /// Whether the two have the same bits (`atomic_cas`'s comparison: for floats `-0.0` is
    /// not `0.0`, and a NaN equals the same NaN).
    fn same_bits(self, other: Self) -> bool;
}

/// The element types the bitwise and ordering atomics work on: 32- and 64-bit integers.
pub trait AtomicInteger:
    AtomicValue
    + Ord
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitXor<Output = Self>
{
}

mod sealed {
    /// Only the kernel language's scalar types implement the built-ins' traits.
    pub trait Sealed {}
}

macro_rules! scalar_traits {
    (ints: $($int:ty),*; narrow: $($narrow:ty),*; floats: $($float:ty => $sum:path),*) => {
        $(
            impl sealed::Sealed for $int {}
            impl WarpValue for $int {}
            impl AtomicValue for $int {
                fn atomic_sum(self, other: Self) -> Self {
                    self.wrapping_add(other)
                }
                fn same_bits(self, other: Self) -> bool {
                    self == other
                }
            }
            impl AtomicInteger for $int {}
        )*
        $(
            impl sealed::Sealed for $narrow {}
            impl WarpValue for $narrow {}
        )*
        $(
            impl sealed::Sealed for $float {}
            impl WarpValue for $float {}
            impl AtomicValue for $float {
                fn atomic_sum(self, other: Self) -> Self {
                    $sum(self, other)
                }
                fn same_bits(self, other: Self) -> bool {
                    self.to_bits() == other.to_bits()
                }
            }
        )*
    };
}

scalar_traits!(ints: u32, i32, u64, i64, usize, isize; narrow: u8, i8, u16, i16, crate::half::f16, crate::half::bf16;
    floats: f32 => flushed_f32_sum, f64 => std::ops::Add::add);

/// `a + b` as the GPU's `f32` atomic addition computes it (`atom.add.f32`, which the PTX ISA
/// defines so): one IEEE addition, rounded to nearest even, with subnormal inputs and a
/// subnormal result flushed to zero of the same sign.
fn flushed_f32_sum(a: f32, b: f32) -> f32 {
    let flush = |x: f32| if x.is_subnormal() { 0.0f32.copysign(x) } else { x };
    flush(flush(a) + flush(b))
}

/// The `value` of lane `lane_id() ^ (lane_mask % 32)` (`shfl.sync.bfly`, CUDA's
/// `__shfl_xor_sync(0xffffffff, ..)`): the butterfly of a warp reduction. All 32 lanes of the
/// warp must call it together.
#[track_caller]
pub fn shfl_xor<T: WarpValue>(value: T, lane_mask: u32) -> T {
    let _ = (value, lane_mask);
    outside_kernel("shfl_xor")
}

/// The `value` of lane `lane_id() + delta`; a lane past 31 gets its own (`shfl.sync.down`).
/// Only `delta`'s low five bits count (`delta % 32`), as in PTX and CUDA's intrinsics. All 32
/// lanes of the warp must call it together.
#[track_caller]
pub fn shfl_down<T: WarpValue>(value: T, delta: u32) -> T {
    let _ = (value, delta);
    outside_kernel("shfl_down")
}

/// The `value` of lane `lane_id() - delta`; a lane below 0 gets its own (`shfl.sync.up`):
/// the step of a warp scan. Only `delta`'s low five bits count (`delta % 32`), as in PTX and
/// CUDA's intrinsics. All 32 lanes of the warp must call it together.
#[track_caller]
pub fn shfl_up<T: WarpValue>(value: T, delta: u32) -> T {
    let _ = (value, delta);
    outside_kernel("shfl_up")
}

/// The `value` of lane `source_lane % 32` (`shfl.sync.idx`): a broadcast when every lane
/// names the same one. All 32 lanes of the warp must call it together.
#[track_caller]
pub fn shfl_idx<T: WarpValue>(value: T, source_lane: u32) -> T {
    let _ = (value, source_lane);
    outside_kernel("shfl_idx")
}

/// A `u32` whose bit n is lane n's `condition` (`vote.sync.ballot`). All 32 lanes of the
/// warp must call it together.
#[track_caller]
pub fn ballot(condition: bool) -> u32 {
    let _ = condition;
    outside_kernel("ballot")
}

/// Whether `condition` holds in some lane of the warp (`vote.sync.any`).
#[track_caller]
pub fn any(condition: bool) -> bool {
    let _ = condition;
    outside_kernel("any")
}

/// Whether `condition` holds in every lane of the warp (`vote.sync.all`).
#[track_caller]
pub fn all(condition: bool) -> bool {
    let _ = condition;
    outside_kernel("all")
}

/// The sum of `value` over the 32 lanes of the warp, in every lane: the xor butterfly
/// (offsets 16, 8, 4, 2, 1), so every lane holds the same bits; integers wrap. All 32 lanes
/// must call it together.
#[track_caller]
pub fn warp_sum<T: WarpValue>(value: T) -> T {
    let _ = value;
    outside_kernel("warp_sum")
}

/// The smallest `value` of the warp, in every lane (floats: Rust's `min`, NaN ignored).
#[track_caller]
pub fn warp_min<T: WarpValue>(value: T) -> T {
    let _ = value;
    outside_kernel("warp_min")
}

/// The largest `value` of the warp, in every lane (floats: Rust's `max`, NaN ignored).
#[track_caller]
pub fn warp_max<T: WarpValue>(value: T) -> T {
    let _ = value;
    outside_kernel("warp_max")
}

/// The sum of `value` over every thread of the block, in every thread: each warp's
/// [`warp_sum`], then the warps' sums through a 32-element shared scratch array, between two
/// barriers. Every thread of the block must call it (it contains [`sync_threads`]), and the
/// block's size must be a multiple of 32, at most 1024 threads.
#[track_caller]
pub fn block_sum<T: WarpValue>(value: T) -> T {
    let _ = value;
    outside_kernel("block_sum")
}

/// The smallest `value` of the block, in every thread (as [`block_sum`]).
#[track_caller]
pub fn block_min<T: WarpValue>(value: T) -> T {
    let _ = value;
    outside_kernel("block_min")
}

/// The largest `value` of the block, in every thread (as [`block_sum`]).
#[track_caller]
pub fn block_max<T: WarpValue>(value: T) -> T {
    let _ = value;
    outside_kernel("block_max")
}

/// Adds `value` to `*element` atomically (wrapping for integers; `f32`/`f64` round as one
/// IEEE addition, and for `f32` subnormal inputs and results are flushed to zero of the
/// same sign, as the GPU's `atom.add.f32` does) and returns the old value:
/// `atomic_add(&mut hist[bin], 1)`. The element is one of a `&mut [T]` parameter or of a
/// shared array.
pub fn atomic_add<T: AtomicValue>(element: &mut T, value: T) -> T {
    let old = *element;
    *element = old.atomic_sum(value);
    old
}

/// Stores the smaller of `*element` and `value` atomically; returns the old value.
pub fn atomic_min<T: AtomicInteger>(element: &mut T, value: T) -> T {
    let old = *element;
    *element = old.min(value);
    old
}

/// Stores the larger of `*element` and `value` atomically; returns the old value.
pub fn atomic_max<T: AtomicInteger>(element: &mut T, value: T) -> T {
    let old = *element;
    *element = old.max(value);
    old
}

/// Stores `*element & value` atomically; returns the old value.
pub fn atomic_and<T: AtomicInteger>(element: &mut T, value: T) -> T {
    let old = *element;
    *element = old & value;
    old
}

/// Stores `*element | value` atomically; returns the old value.
pub fn atomic_or<T: AtomicInteger>(element: &mut T, value: T) -> T {
    let old = *element;
    *element = old | value;
    old
}

/// Stores `*element ^ value` atomically; returns the old value.
pub fn atomic_xor<T: AtomicInteger>(element: &mut T, value: T) -> T {
    let old = *element;
    *element = old ^ value;
    old
}

/// Stores `value` atomically; returns the old value.
pub fn atomic_exch<T: AtomicValue>(element: &mut T, value: T) -> T {
    std::mem::replace(element, value)
}

/// Stores `new` where `*element` equals `current` compared as bits, as the GPU compares
/// (for floats `-0.0` is not `0.0`, and a NaN matches the same NaN), atomically; returns the
/// old value either way.
pub fn atomic_cas<T: AtomicValue>(element: &mut T, current: T, new: T) -> T {
    let old = *element;
    if old.same_bits(current) {
        *element = new;
    }
    old
}

/// The element types of two-element vector accesses ([`load2`], [`store2`]): 16-, 32- and
/// 64-bit integers, `f16`, `bf16`, `f32` and `f64` (4, 8 or 16 bytes at once).
pub trait Vector2: Copy + sealed::Sealed {}

/// The element types of four-element vector accesses ([`load4`], [`store4`]): the 16- and
/// 32-bit ones, 8 or 16 bytes at once (16 is the widest access a GPU thread makes).
pub trait Vector4: Vector2 {}

/// The element types of eight-element vector accesses ([`load8`], [`store8`]): the 16-bit
/// ones (`u16 i16 f16 bf16`), 16 bytes at once.
pub trait Vector8: Vector4 {}

impl Vector2 for u16 {}
impl Vector2 for i16 {}
impl Vector2 for u32 {}
impl Vector2 for i32 {}
impl Vector2 for f32 {}
impl Vector2 for u64 {}
impl Vector2 for i64 {}
impl Vector2 for f64 {}
impl Vector4 for u16 {}
impl Vector4 for i16 {}
impl Vector4 for u32 {}
impl Vector4 for i32 {}
impl Vector4 for f32 {}
impl Vector8 for u16 {}
impl Vector8 for i16 {}
impl Vector2 for crate::half::f16 {}
impl Vector4 for crate::half::f16 {}
impl Vector8 for crate::half::f16 {}
impl Vector2 for crate::half::bf16 {}
impl Vector4 for crate::half::bf16 {}
impl Vector8 for crate::half::bf16 {}

/// The message a vector access of `width` elements at an index that is not a multiple of
/// `width` panics with (on the host, and as the `Error::KernelPanic` of a checked kernel).
pub(crate) const fn misaligned(width: usize) -> &'static str {
    match width {
        2 => "misaligned vector access: the index is not a multiple of 2",
        4 => "misaligned vector access: the index is not a multiple of 4",
        _ => "misaligned vector access: the index is not a multiple of 8",
    }
}

/// Elements `index` and `index + 1` of `x` in one 8- or 16-byte load (`ld.global.v2`):
/// `let (a, b) = load2(x, i);`. `x` is a slice parameter; `index` must be a multiple of 2
/// (so that the access is aligned) and both elements in range: a checked kernel reports
/// either mistake as an error naming the Rust line; in an unchecked kernel they are
/// undefined behaviour.
///
/// # Panics
///
/// On the host, when `index` is odd or `index + 1` is out of range.
#[track_caller]
pub fn load2<T: Vector2>(x: &[T], index: usize) -> (T, T) {
    assert!(index.is_multiple_of(2), "{}", misaligned(2));
    (x[index], x[index + 1])
}

/// Elements `index .. index + 4` of `x` in one 16-byte load (`ld.global.v4`, CUDA's `float4`
/// access): `let (a, b, c, d) = load4(x, i);`. `index` must be a multiple of 4, and the
/// elements in range, as for [`load2`].
///
/// # Panics
///
/// On the host, when `index` is not a multiple of 4 or `index + 3` is out of range.
#[track_caller]
pub fn load4<T: Vector4>(x: &[T], index: usize) -> (T, T, T, T) {
    assert!(index.is_multiple_of(4), "{}", misaligned(4));
    (x[index], x[index + 1], x[index + 2], x[index + 3])
}

/// Stores `values` into elements `index` and `index + 1` of `x` in one access
/// (`st.global.v2`): `store2(y, i, (a, b));`. `index` must be a multiple of 2, as for
/// [`load2`].
///
/// # Panics
///
/// On the host, when `index` is odd or `index + 1` is out of range.
#[track_caller]
pub fn store2<T: Vector2>(x: &mut [T], index: usize, values: (T, T)) {
    assert!(index.is_multiple_of(2), "{}", misaligned(2));
    x[index..index + 2].copy_from_slice(&[values.0, values.1]);
}

/// Stores `values` into elements `index .. index + 4` of `x` in one 16-byte access
/// (`st.global.v4`): `store4(y, i, (a, b, c, d));`. `index` must be a multiple of 4, as for
/// [`load4`].
///
/// # Panics
///
/// On the host, when `index` is not a multiple of 4 or `index + 3` is out of range.
#[track_caller]
pub fn store4<T: Vector4>(x: &mut [T], index: usize, values: (T, T, T, T)) {
    assert!(index.is_multiple_of(4), "{}", misaligned(4));
    x[index..index + 4].copy_from_slice(&[values.0, values.1, values.2, values.3]);
}

/// Elements `index .. index + 8` of `x` in one 16-byte load (`ld.global.v4.b32`, two
/// elements to a word): `let (a, b, c, d, e, f, g, h) = load8(x, i);` on a slice of 16-bit
/// elements (`f16`, `bf16`, `u16`, `i16`). `index` must be a multiple of 8, and the elements
/// in range, as for [`load2`].
///
/// # Panics
///
/// On the host, when `index` is not a multiple of 8 or `index + 7` is out of range.
#[track_caller]
pub fn load8<T: Vector8>(x: &[T], index: usize) -> (T, T, T, T, T, T, T, T) {
    assert!(index.is_multiple_of(8), "{}", misaligned(8));
    let v = &x[index..index + 8];
    (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7])
}

/// Stores `values` into elements `index .. index + 8` of `x` in one 16-byte access
/// (`st.global.v4.b32`): `store8(y, i, (a, b, c, d, e, f, g, h));`. `index` must be a
/// multiple of 8, as for [`load8`].
///
/// # Panics
///
/// On the host, when `index` is not a multiple of 8 or `index + 7` is out of range.
#[track_caller]
pub fn store8<T: Vector8>(x: &mut [T], index: usize, values: (T, T, T, T, T, T, T, T)) {
    assert!(index.is_multiple_of(8), "{}", misaligned(8));
    let (a, b, c, d, e, f, g, h) = values;
    x[index..index + 8].copy_from_slice(&[a, b, c, d, e, f, g, h]);
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_built_in_called_on_the_host_says_what_it_is() {
        let e = std::panic::catch_unwind(super::thread_idx).unwrap_err();
        let msg = e.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains("only has a meaning inside a `#[ptx_kernel]` function"), "{msg}");
    }

    #[test]
    fn the_atomics_do_on_the_host_what_one_gpu_thread_does() {
        let mut x = u32::MAX;
        assert_eq!(super::atomic_add(&mut x, 2), u32::MAX);
        assert_eq!(x, 1, "integer adds wrap");
        assert_eq!(super::atomic_max(&mut x, 7), 1);
        assert_eq!(super::atomic_min(&mut x, 3), 7);
        assert_eq!(super::atomic_xor(&mut x, 1), 3);
        assert_eq!(super::atomic_cas(&mut x, 5, 9), 2);
        assert_eq!(x, 2, "no swap when the element is not `current`");
        assert_eq!(super::atomic_cas(&mut x, 2, 9), 2);
        assert_eq!(super::atomic_exch(&mut x, 4), 9);
        let mut f = 0.5f32;
        assert_eq!(super::atomic_add(&mut f, 0.25), 0.5);
        assert_eq!(f, 0.75);
        assert_eq!(super::warp_size(), 32);
        // Compare-and-swap compares bits, as the GPU does: `-0.0` is not `0.0`, a NaN is
        // itself.
        let mut z = 0.0f64;
        assert_eq!(super::atomic_cas(&mut z, -0.0, 1.0).to_bits(), 0);
        assert_eq!(z.to_bits(), 0, "no swap of 0.0 for current -0.0");
        let mut n = f32::NAN;
        assert!(super::atomic_cas(&mut n, f32::NAN, 2.0).is_nan());
        assert_eq!(n, 2.0, "a NaN matches the same NaN");
    }
}
