//! [`DeviceBuffer<T>`]: a typed array in device memory, the same type on both backends.

use std::fmt;
use std::marker::PhantomData;

use ptx_core::PtxType;

use crate::device::{Backend, Device};
use crate::error::{Error, Result};
use crate::scalar::{self, DeviceScalar};

/// Where a buffer's elements live.
enum Storage<T> {
    /// An allocation in the simulator's memory (address 0 and no allocation when empty).
    Sim { addr: u64, elem: PhantomData<T> },
    /// A cudarc allocation (at least one element long, even for an empty buffer).
    #[cfg(feature = "cuda")]
    Cuda(cudarc::driver::CudaSlice<T>),
}

/// `len` elements of `T` in the memory of one [`Device`]; freed on drop.
///
/// Made with [`DeviceBuffer::from_slice`] / [`Device::upload`] or [`DeviceBuffer::zeroed`] /
/// [`Device::zeroed`]; read back with [`DeviceBuffer::to_vec`]. Passed to kernels as
/// `KernelArg::from(&buf)` (read) or `KernelArg::from(&mut buf)` (write).
pub struct DeviceBuffer<T: DeviceScalar> {
    device: Device,
    len: usize,
    storage: Storage<T>,
}

impl<T: DeviceScalar> DeviceBuffer<T> {
    /// A buffer on `device` holding a copy of `data`.
    pub fn from_slice(device: &Device, data: &[T]) -> Result<DeviceBuffer<T>> {
        let storage = match device.backend() {
            Backend::Sim(sim) => {
                let bytes = scalar::to_bytes(data);
                let addr = if bytes.is_empty() { 0 } else { sim.alloc(bytes.len())? };
                if !bytes.is_empty() {
                    if let Err(e) = sim.write(addr, &bytes) {
                        sim.free(addr);
                        return Err(e);
                    }
                }
                Storage::Sim { addr, elem: PhantomData }
            }
            #[cfg(feature = "cuda")]
            Backend::Cuda(cuda) => Storage::Cuda(cuda.upload(data)?),
        };
        Ok(DeviceBuffer { device: device.clone(), len: data.len(), storage })
    }

    /// A buffer of `len` zeros on `device`.
    ///
    /// A `len` whose size in bytes does not fit a `usize` is [`Error::InvalidArgument`] for
    /// `len`; one the device cannot hold is the device's out-of-memory error.
    pub fn zeroed(device: &Device, len: usize) -> Result<DeviceBuffer<T>> {
        let Some(bytes) = len.checked_mul(T::SIZE) else {
            return Err(Error::InvalidArgument {
                argument: "len".into(),
                reason: format!(
                    "{len} elements of {} are {} bytes, more than the address space holds (at most {} \
                     elements of {0}); is the length computed from a value that wrapped below zero?",
                    T::PTX_TYPE.ptx_name(),
                    len as u128 * T::SIZE as u128,
                    usize::MAX / T::SIZE
                ),
            });
        };
        let storage = match device.backend() {
            Backend::Sim(sim) => {
                Storage::Sim { addr: if bytes == 0 { 0 } else { sim.alloc(bytes)? }, elem: PhantomData }
            }
            #[cfg(feature = "cuda")]
            Backend::Cuda(cuda) => Storage::Cuda(cuda.zeroed(len)?),
        };
        Ok(DeviceBuffer { device: device.clone(), len, storage })
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device the buffer lives on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Size in bytes.
    pub fn size_bytes(&self) -> usize {
        self.len * T::SIZE
    }

    /// Copies the buffer to the host (waiting for earlier work on the device's default
    /// stream); then reports the first fault of the device's pending checked launches
    /// ([`crate::checked`]), in which case the copy is dropped.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let data = self.read_raw()?;
        self.device.take_pending_faults()?;
        Ok(data)
    }

    /// Copies the buffer to the host without looking at pending fault records.
    pub(crate) fn read_raw(&self) -> Result<Vec<T>> {
        match (&self.storage, self.device.backend()) {
            (Storage::Sim { addr, .. }, Backend::Sim(sim)) => {
                if self.len == 0 {
                    return Ok(Vec::new());
                }
                let mut bytes = scalar::host_vec::<u8>(self.size_bytes(), 0)?;
                sim.read(*addr, &mut bytes)?;
                scalar::from_bytes(&bytes)
            }
            #[cfg(feature = "cuda")]
            (Storage::Cuda(slice), Backend::Cuda(cuda)) => cuda.download(slice, self.len),
            #[cfg(feature = "cuda")]
            _ => Err(backend_mismatch()),
        }
    }

    /// Overwrites the buffer with `data`, which must have exactly [`DeviceBuffer::len`]
    /// elements (else [`Error::SizeMismatch`]).
    pub fn copy_from(&mut self, data: &[T]) -> Result<()> {
        if data.len() != self.len {
            return Err(Error::SizeMismatch { expected: self.len, found: data.len() });
        }
        match (&mut self.storage, self.device.backend()) {
            (Storage::Sim { addr, .. }, Backend::Sim(sim)) => {
                if data.is_empty() {
                    return Ok(());
                }
                sim.write(*addr, &scalar::to_bytes(data))
            }
            #[cfg(feature = "cuda")]
            (Storage::Cuda(slice), Backend::Cuda(cuda)) => cuda.write(slice, data),
            #[cfg(feature = "cuda")]
            _ => Err(backend_mismatch()),
        }
    }

    /// Overwrites the buffer with the contents of `other`, a buffer of the same length on the
    /// same device (else [`Error::SizeMismatch`] / [`Error::WrongDevice`]).
    pub fn copy_from_buffer(&mut self, other: &DeviceBuffer<T>) -> Result<()> {
        if !self.device.same_as(&other.device) {
            return Err(Error::WrongDevice {
                what: format!(
                    "copy_from_buffer from a buffer on {} into one on {}",
                    other.device, self.device
                ),
            });
        }
        if other.len != self.len {
            return Err(Error::SizeMismatch { expected: self.len, found: other.len });
        }
        if self.len == 0 {
            return Ok(());
        }
        match (&mut self.storage, &other.storage, self.device.backend()) {
            (Storage::Sim { addr: dst, .. }, Storage::Sim { addr: src, .. }, Backend::Sim(sim)) => {
                sim.copy(*dst, *src, self.len * T::SIZE)
            }
            #[cfg(feature = "cuda")]
            (Storage::Cuda(dst), Storage::Cuda(src), Backend::Cuda(cuda)) => cuda.copy(dst, src, self.len),
            #[cfg(feature = "cuda")]
            _ => Err(backend_mismatch()),
        }
    }
}

#[cfg(feature = "cuda")]
fn backend_mismatch() -> Error {
    Error::WrongDevice { what: "a buffer's storage does not belong to its device's backend".into() }
}

impl<T: DeviceScalar> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        // A cudarc slice frees itself (when the field drops, after this), with
        // `cuMemFreeAsync` and without binding its context: bind it to this thread first.
        #[cfg(feature = "cuda")]
        if let (Storage::Cuda(_), Backend::Cuda(cuda)) = (&self.storage, self.device.backend()) {
            cuda.bind_quietly();
        }
        // A simulator allocation is freed here.
        if let (Some(addr), Some(sim)) = (self.sim_addr(), self.device.backend().as_sim()) {
            if addr != 0 {
                sim.free(addr);
            }
        }
    }
}

impl<T: DeviceScalar> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("type", &T::PTX_TYPE.ptx_name())
            .field("len", &self.len)
            .field("device", &self.device.name())
            .finish()
    }
}

/// A buffer with its element type erased, as kernel arguments hold it.
pub(crate) trait ErasedBuffer {
    /// The element type.
    fn elem_type(&self) -> PtxType;
    /// The number of elements.
    fn elem_len(&self) -> usize;
    /// The device the buffer lives on.
    fn owner(&self) -> &Device;
    /// The simulator address, if the buffer lives in the simulator.
    fn sim_addr(&self) -> Option<u64>;
    /// The device pointer for a read on `stream`, if the buffer is a CUDA allocation; the
    /// guard records the read when dropped (after the launch is enqueued).
    #[cfg(feature = "cuda")]
    fn cuda_ptr<'s>(
        &'s self,
        stream: &'s cudarc::driver::CudaStream,
    ) -> Option<(u64, cudarc::driver::SyncOnDrop<'s>)>;
    /// Like `cuda_ptr`, for a write.
    #[cfg(feature = "cuda")]
    fn cuda_ptr_mut<'s>(
        &'s mut self,
        stream: &'s cudarc::driver::CudaStream,
    ) -> Option<(u64, cudarc::driver::SyncOnDrop<'s>)>;
}

impl<T: DeviceScalar> ErasedBuffer for DeviceBuffer<T> {
    fn elem_type(&self) -> PtxType {
        T::PTX_TYPE
    }

    fn elem_len(&self) -> usize {
        self.len
    }

    fn owner(&self) -> &Device {
        &self.device
    }

    fn sim_addr(&self) -> Option<u64> {
        match &self.storage {
            Storage::Sim { addr, .. } => Some(*addr),
            #[cfg(feature = "cuda")]
            Storage::Cuda(_) => None,
        }
    }

    #[cfg(feature = "cuda")]
    fn cuda_ptr<'s>(
        &'s self,
        stream: &'s cudarc::driver::CudaStream,
    ) -> Option<(u64, cudarc::driver::SyncOnDrop<'s>)> {
        use cudarc::driver::DevicePtr;
        match &self.storage {
            Storage::Cuda(slice) => Some(slice.device_ptr(stream)),
            Storage::Sim { .. } => None,
        }
    }

    #[cfg(feature = "cuda")]
    fn cuda_ptr_mut<'s>(
        &'s mut self,
        stream: &'s cudarc::driver::CudaStream,
    ) -> Option<(u64, cudarc::driver::SyncOnDrop<'s>)> {
        use cudarc::driver::DevicePtrMut;
        match &mut self.storage {
            Storage::Cuda(slice) => Some(slice.device_ptr_mut(stream)),
            Storage::Sim { .. } => None,
        }
    }
}
