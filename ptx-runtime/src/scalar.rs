//! Element types of device buffers ([`DeviceScalar`]) and scalar kernel arguments ([`Scalar`]).

use std::fmt;

use ptx_core::PtxType;

mod sealed {
    /// Bounds the CUDA backend needs on buffer elements (none without the `cuda` feature).
    #[cfg(feature = "cuda")]
    pub trait Backend: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits {}
    #[cfg(feature = "cuda")]
    impl<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits> Backend for T {}
    /// Bounds the CUDA backend needs on buffer elements (none without the `cuda` feature).
    #[cfg(not(feature = "cuda"))]
    pub trait Backend {}
    #[cfg(not(feature = "cuda"))]
    impl<T> Backend for T {}

    /// Keeps [`super::DeviceScalar`] implemented only here.
    pub trait Sealed: Backend {}
}

/// A type that can live in a [`crate::DeviceBuffer`]: `f32`, `f64`, `u32`, `i32`, `u64`,
/// `i64`, `u8`, `i8`, `u16`, `i16`, and the half-precision [`half::f16`] and [`half::bf16`]
/// (whose data `u16` buffers may also carry as raw bits: see [`F16Storage`]).
///
/// Sealed: the set of types is fixed by this crate, so each has a known PTX type and a
/// little-endian byte layout shared by the GPU and the simulator.
pub trait DeviceScalar:
    sealed::Sealed + Copy + Default + PartialEq + fmt::Debug + Send + Sync + 'static
{
    /// The element's PTX type (`.f32`, `.u32`, ...).
    const PTX_TYPE: PtxType;
    /// Size in bytes.
    const SIZE: usize;
    /// Writes the value's little-endian bytes into `out` (exactly [`Self::SIZE`] long).
    fn write_le(self, out: &mut [u8]);
    /// Reads a value from its little-endian bytes (exactly [`Self::SIZE`] long).
    fn read_le(bytes: &[u8]) -> Self;
}

macro_rules! device_scalar {
    ($($t:ty => $ptx:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl DeviceScalar for $t {
            const PTX_TYPE: PtxType = PtxType::$ptx;
            const SIZE: usize = std::mem::size_of::<$t>();
            fn write_le(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> Self {
                let mut b = [0u8; std::mem::size_of::<$t>()];
                b.copy_from_slice(bytes);
                <$t>::from_le_bytes(b)
            }
        }
    )*};
}

device_scalar!(
    f32 => F32, u32 => U32, i32 => S32, u64 => U64, i64 => S64, u16 => U16, i16 => S16, f64 => F64, u8 => U8,
    i8 => S8, half::f16 => F16, half::bf16 => Bf16,
);

/// The buffer elements a kernel's `&[f16]` slice takes: [`half::f16`] values, or `u16`
/// holding their bits. Sealed in effect: its supertrait [`DeviceScalar`] is sealed, and no
/// other crate may implement a foreign trait for the foreign types that implement that.
#[diagnostic::on_unimplemented(
    message = "a buffer of `{Self}` is not f16 data",
    label = "an `&[f16]` slice takes a `DeviceBuffer<half::f16>`, or a `DeviceBuffer<u16>` of f16 bits"
)]
pub trait F16Storage: DeviceScalar {}
impl F16Storage for half::f16 {}
impl F16Storage for u16 {}

/// The buffer elements a kernel's `&[bf16]` slice takes: [`half::bf16`] values, or `u16`
/// holding their bits. Sealed in effect, as [`F16Storage`] is.
#[diagnostic::on_unimplemented(
    message = "a buffer of `{Self}` is not bf16 data",
    label = "an `&[bf16]` slice takes a `DeviceBuffer<half::bf16>`, or a `DeviceBuffer<u16>` of bf16 bits"
)]
pub trait Bf16Storage: DeviceScalar {}
impl Bf16Storage for half::bf16 {}
impl Bf16Storage for u16 {}

/// Encodes `values` as little-endian bytes.
pub(crate) fn to_bytes<T: DeviceScalar>(values: &[T]) -> Vec<u8> {
    let mut out = vec![0u8; values.len() * T::SIZE];
    for (chunk, v) in out.chunks_exact_mut(T::SIZE).zip(values) {
        v.write_le(chunk);
    }
    out
}

/// Decodes little-endian bytes (a multiple of `T::SIZE` long).
pub(crate) fn from_bytes<T: DeviceScalar>(bytes: &[u8]) -> crate::Result<Vec<T>> {
    let mut out = host_vec::<T>(0, bytes.len() / T::SIZE)?;
    out.extend(bytes.chunks_exact(T::SIZE).map(T::read_le));
    Ok(out)
}

/// `len` default values with room for `capacity` (at least `len`), or
/// [`crate::Error::HostOutOfMemory`] when the host cannot allocate them: a download the
/// host cannot hold is an error, not an aborted process.
pub(crate) fn host_vec<T: Copy + Default>(len: usize, capacity: usize) -> crate::Result<Vec<T>> {
    let mut out = Vec::new();
    let capacity = capacity.max(len);
    out.try_reserve_exact(capacity).map_err(|_| crate::Error::HostOutOfMemory {
        bytes: capacity.saturating_mul(std::mem::size_of::<T>()),
    })?;
    out.resize(len, T::default());
    Ok(out)
}

/// A scalar kernel argument, passed by value: exactly as many bytes as its type has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A `.u8` parameter (a CUDA `uint8_t`, `unsigned char`).
    U8(u8),
    /// A `.s8` parameter (`int8_t`, `signed char`; NVRTC declares these `.u8` too, which
    /// takes either).
    I8(i8),
    /// A CUDA `bool`, a `.u8` parameter: one byte, 0 or 1.
    Bool(bool),
    /// A `.u16` parameter (`uint16_t`, `unsigned short`); also a `.b16`, `.f16` or `.bf16`
    /// one, as half-precision bits.
    U16(u16),
    /// A `.s16` parameter (`int16_t`, `short`; NVRTC declares these `.u16`, which takes
    /// either).
    I16(i16),
    /// A `.u32` parameter.
    U32(u32),
    /// A `.s32` parameter.
    I32(i32),
    /// A `.f32` parameter.
    F32(f32),
    /// A `.u64` parameter (not a pointer).
    U64(u64),
    /// A `.s64` parameter.
    I64(i64),
    /// A `.f64` parameter.
    F64(f64),
}

impl Scalar {
    /// The value's PTX type (a `bool`'s is `.u8`).
    pub fn ptx_type(self) -> PtxType {
        match self {
            Scalar::U8(_) | Scalar::Bool(_) => PtxType::U8,
            Scalar::I8(_) => PtxType::S8,
            Scalar::U16(_) => PtxType::U16,
            Scalar::I16(_) => PtxType::S16,
            Scalar::U32(_) => PtxType::U32,
            Scalar::I32(_) => PtxType::S32,
            Scalar::F32(_) => PtxType::F32,
            Scalar::U64(_) => PtxType::U64,
            Scalar::I64(_) => PtxType::S64,
            Scalar::F64(_) => PtxType::F64,
        }
    }

    /// The value's bits, zero-extended to 64 from its own width (floats as their IEEE bit
    /// pattern, a `bool` as 0 or 1, `-1i8` as `0xff`).
    pub fn to_bits(self) -> u64 {
        match self {
            Scalar::U8(v) => u64::from(v),
            Scalar::I8(v) => u64::from(v as u8),
            Scalar::Bool(v) => u64::from(v),
            Scalar::U16(v) => u64::from(v),
            Scalar::I16(v) => u64::from(v as u16),
            Scalar::U32(v) => u64::from(v),
            Scalar::I32(v) => u64::from(v as u32),
            Scalar::F32(v) => u64::from(v.to_bits()),
            Scalar::U64(v) => v,
            Scalar::I64(v) => v as u64,
            Scalar::F64(v) => v.to_bits(),
        }
    }

    /// The value's bytes as a kernel parameter holds them: little-endian, as many as its
    /// type has (one for a `bool`).
    pub fn to_le_bytes(self) -> Vec<u8> {
        self.to_bits().to_le_bytes()[..self.ptx_type().bytes() as usize].to_vec()
    }

    /// Whether a kernel parameter of (non-pointer) type `param` accepts this value: the same
    /// PTX type, or an untyped `.bN` of the same width for integer values.
    pub fn fits(self, param: PtxType) -> bool {
        let own = self.ptx_type();
        own == param
            || match param {
                PtxType::B16 => matches!(self, Scalar::U16(_) | Scalar::I16(_)),
                // A half's bits (`half::f16` arrives as `Scalar::U16`).
                PtxType::F16 => matches!(self, Scalar::U16(_)),
                PtxType::B32 => matches!(self, Scalar::U32(_) | Scalar::I32(_)),
                PtxType::B64 => matches!(self, Scalar::U64(_) | Scalar::I64(_)),
                _ => false,
            }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Bool(_) => write!(f, "scalar bool (.u8)"),
            _ => write!(f, "scalar {}", self.ptx_type().ptx_name()),
        }
    }
}

macro_rules! scalar_from {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for Scalar {
            fn from(v: $t) -> Scalar {
                Scalar::$v(v)
            }
        }
    )*};
}

scalar_from!(
    u8 => U8, i8 => I8, bool => Bool, u16 => U16, i16 => I16,
    u32 => U32, i32 => I32, f32 => F32, u64 => U64, i64 => I64, f64 => F64
);

/// A half-precision value is passed as its bits, [`Scalar::U16`] (which a `.f16`, `.bf16`
/// or `.b16` parameter takes).
impl From<half::f16> for Scalar {
    fn from(v: half::f16) -> Scalar {
        Scalar::U16(v.to_bits())
    }
}

/// A bfloat16 value is passed as its bits, [`Scalar::U16`].
impl From<half::bf16> for Scalar {
    fn from(v: half::bf16) -> Scalar {
        Scalar::U16(v.to_bits())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host vector the host cannot hold is `Error::HostOutOfMemory` with its size, not
    /// an aborted process; one it can is that many default values.
    #[test]
    fn host_vectors_too_large_are_errors() {
        let err = host_vec::<u64>(0, usize::MAX / 8).unwrap_err();
        assert!(
            matches!(err, crate::Error::HostOutOfMemory { bytes } if bytes == usize::MAX / 8 * 8),
            "{err}"
        );
        assert!(err.to_string().contains("cannot allocate"), "{err}");
        assert_eq!(host_vec::<u16>(3, 0).unwrap(), [0, 0, 0]);
        let bytes = [1u8, 0, 2, 0];
        assert_eq!(from_bytes::<u16>(&bytes).unwrap(), [1, 2]);
    }
}
