//! The `twin!` kernels of the `lang_round*` tests: a body written once, run as a
//! `#[ptx_kernel]` on the simulator and as plain Rust on the host, compared bit for bit on
//! edge values and fresh random inputs. Included with `#[macro_use] #[path] mod twin;`.

#![allow(dead_code)] // each test binary uses a different subset

use ptx_dsl::runtime::{Device, DeviceBuffer, DeviceScalar, LaunchConfig, LaunchReport};
use ptx_tools::rng::Rng;
use std::fmt::Debug;

/// Defines kernel `$kernel` and host function `$host` with one body: a thread per element
/// of `$a`, which reads `$a` and writes its own slots of `$out`. The host function runs the
/// body as plain Rust for one index `$i`.
macro_rules! twin {
    ($kernel:ident, $host:ident, |$i:ident, $a:ident: &[$ta:ty], $out:ident: &mut [$to:ty]| $body:block) => {
        #[ptx_kernel]
        fn $kernel($a: &[$ta], $out: &mut [$to]) {
            let $i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
            if $i < $a.len() $body
        }

        #[allow(clippy::all, unused_assignments, unused_mut, unused_variables, unused_labels, irrefutable_let_patterns)]
        fn $host($i: usize, $a: &[$ta], $out: &mut [$to]) $body
    };
}

/// A value's bits for comparison: integers as they are, every NaN alike.
pub trait Bits: Copy + Debug {
    /// The bits compared.
    fn bits(self) -> u64;
}

macro_rules! int_bits {
    ($($t:ty),*) => { $(impl Bits for $t { fn bits(self) -> u64 { self as u64 } })* };
}
int_bits!(u8, i8, u16, i16, u32, i32, u64, i64);

impl Bits for f32 {
    fn bits(self) -> u64 {
        if self.is_nan() {
            u64::MAX
        } else {
            self.to_bits() as u64
        }
    }
}

impl Bits for f64 {
    fn bits(self) -> u64 {
        if self.is_nan() {
            u64::MAX
        } else {
            self.to_bits()
        }
    }
}

/// The launch of one twin kernel on `(device, config, a, out)`.
pub type Launch<'a, I, O> = &'a dyn Fn(
    &Device,
    LaunchConfig,
    &DeviceBuffer<I>,
    &mut DeviceBuffer<O>,
) -> ptx_dsl::runtime::Result<LaunchReport>;

/// Runs `launch` over `inputs` (`slots` outputs per thread) on the simulator and `host` for
/// every index, and asserts both wrote the same bits, naming the first differing input and
/// slot.
pub fn check_twin<I, O>(
    name: &str,
    inputs: &[I],
    slots: usize,
    launch: Launch<I, O>,
    host: fn(usize, &[I], &mut [O]),
) where
    I: DeviceScalar + Debug,
    O: DeviceScalar + Bits + Default,
{
    let dev = Device::sim();
    let a = dev.upload(inputs).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut out: DeviceBuffer<O> = dev.zeroed(inputs.len() * slots).unwrap_or_else(|e| panic!("{name}: {e}"));
    launch(&dev, LaunchConfig::for_elements(inputs.len(), 64), &a, &mut out)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let got = out.to_vec().unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut want = vec![O::default(); inputs.len() * slots];
    for i in 0..inputs.len() {
        host(i, inputs, &mut want);
    }
    assert!(want.iter().any(|w| w.bits() != 0), "{name}: the host wrote only zeros");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            g.bits() == w.bits(),
            "{name}: input {:?} (thread {}), slot {}: kernel {g:?}, host {w:?}",
            inputs[k / slots],
            k / slots,
            k % slots
        );
    }
}

/// `count` u32 inputs: edge values first, then random ones of every magnitude.
pub fn u32_inputs(test: &str, count: usize) -> Vec<u32> {
    let mut rng = Rng::fresh(test);
    let mut xs = vec![0, 1, 2, 3, 7, 8, 31, 32, 33, 127, 128, 255, 256, 0x7fff, 0x8000, 0xffff, 0x1_0000];
    xs.extend([i32::MAX as u32, i32::MIN as u32, u32::MAX, u32::MAX - 1, 0x8000_0001, 0xdead_beef]);
    while xs.len() < count {
        let r = rng.next();
        xs.push((r >> (r % 61)) as u32);
    }
    xs
}

pub fn i32_inputs(test: &str, count: usize) -> Vec<i32> {
    let mut xs: Vec<i32> = u32_inputs(test, count).into_iter().map(|x| x as i32).collect();
    xs.extend([-1, -2, -7, -128, -129, -32768, -32769, i32::MIN + 1]);
    xs
}

pub fn u64_inputs(test: &str, count: usize) -> Vec<u64> {
    let mut rng = Rng::fresh(test);
    let mut xs =
        vec![0, 1, u64::MAX, i64::MAX as u64, i64::MIN as u64, 1 << 24, (1 << 24) + 1, (1 << 53) + 1];
    // Ties and near-ties of u64 → f32 and u64 → f64 rounding.
    xs.extend([0x8000_0080_0000_0000, 0x8000_0080_0000_0001, 0x8000_0180_0000_0000, 0xffff_ff80_0000_0000]);
    xs.extend([0xffff_ff7f_ffff_ffff, 0x0020_0000_0000_0001, 0x0010_0000_0000_0001, u32::MAX as u64]);
    while xs.len() < count {
        let r = rng.next();
        xs.push(r >> (rng.next() % 64));
    }
    xs
}

pub fn f32_inputs(test: &str, count: usize) -> Vec<f32> {
    let mut rng = Rng::fresh(test);
    let mut xs = vec![0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, f32::NAN, -f32::NAN];
    xs.extend([f32::INFINITY, f32::NEG_INFINITY, f32::MAX, f32::MIN, f32::MIN_POSITIVE, f32::from_bits(1)]);
    xs.extend([255.5, 256.0, -128.5, -129.0, 32767.5, 65535.9, 2147483520.0, 2147483648.0, -2147483904.0]);
    xs.extend([4294967040.0, 4294967296.0, 9.223372e18, 1.8446743e19, -9.223373e18, 16777217.0, 1e-40]);
    while xs.len() < count {
        let r = rng.next();
        xs.push(match r % 3 {
            0 => f32::from_bits((r >> 32) as u32),
            1 => rng.moderate_f32(),
            _ => rng.signed_f32() * 300.0,
        });
    }
    xs
}

pub fn f64_inputs(test: &str, count: usize) -> Vec<f64> {
    let mut rng = Rng::fresh(test);
    let mut xs =
        vec![0.0, -0.0, 0.5, -0.5, 2.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, f64::MAX, f64::MIN];
    xs.extend([255.99, 256.0, -128.99, 65536.0, 2147483647.9, 2147483648.0, -2147483648.9, -2147483649.0]);
    xs.extend([4294967295.5, 4294967296.0, 9223372036854775807.0, 18446744073709551615.0, -9.3e18, 1e-310]);
    xs.extend([f32::MAX as f64 * 1.0000001, 3.4028235677973366e38, 1.401298464324817e-45 / 2.0, 1e-46]);
    while xs.len() < count {
        let r = rng.next();
        xs.push(if r.is_multiple_of(2) { f64::from_bits(rng.next()) } else { rng.moderate_f64() * 1000.0 });
    }
    xs
}
