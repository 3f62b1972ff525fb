//! Checked launches: kernels written with `#[ptx_kernel]` take a hidden last parameter, a
//! zeroed *fault record* ([`ptx_core::fault`]) in which the first out-of-range access (or
//! integer division by zero) of the launch is recorded. [`Device::launch_checked`] adds the
//! record, and turns a recorded fault into [`Error::OutOfBounds`] or [`Error::KernelPanic`].
//!
//! When the error surfaces: the simulator runs a launch to completion, so it comes from the
//! launch itself (also when the launch stopped with another error, such as an endless loop
//! or a barrier deadlock: the recorded fault, which may have caused it, is reported). On
//! CUDA, reading the record back would wait for the kernel, so it is not read at the
//! launch: the record joins the device's pending checks, and the error comes
//! from the next call that synchronises with the device — [`Device::synchronize`],
//! [`crate::Stream::synchronize`], [`crate::DeviceBuffer::to_vec`] — after which the
//! pending checks are cleared (a fault is reported once; later launches start clean).

use std::sync::Mutex;

use ptx_core::fault::{FaultKind, FaultRecord, FaultSite, RECORD_BYTES};
use ptx_core::Kernel;

use crate::{Device, DeviceBuffer, Error, KernelArg, LaunchConfig, LaunchReport, Result};

/// How many fault records may wait for a synchronising call before a launch synchronises
/// itself to read them.
const MAX_PENDING: usize = 256;

/// The table of a kernel's fault sites, built when a fault needs describing.
pub type SiteTable = Box<dyn FnOnce() -> Vec<FaultSite> + Send>;

/// A launched kernel's fault record not read yet.
struct PendingCheck {
    kernel: String,
    record: DeviceBuffer<u64>,
    sites: SiteTable,
}

/// The pending checks of one device, in launch order.
#[derive(Default)]
pub(crate) struct PendingChecks {
    list: Mutex<Vec<PendingCheck>>,
}

impl PendingChecks {
    /// Drops the pending records when they hold the last `holders` handles of their device
    /// but `keeping` (each record's buffer holds one): nothing is left to synchronise and
    /// report their faults, and they would otherwise keep the device, and its modules and
    /// context, alive for good.
    pub(crate) fn release_if_last(&self, holders: usize, keeping: usize) {
        let orphaned = match self.list.try_lock() {
            Ok(mut list) if !list.is_empty() && holders == keeping + list.len() => std::mem::take(&mut *list),
            _ => return,
        };
        // Dropped with the lock released: each record drops a handle of the device.
        drop(orphaned);
    }
}

impl Device {
    /// Launches a checked kernel: `args` are its declared parameters, the fault record is
    /// appended as the last one. `sites` describes the kernel's fault sites (called only
    /// when one faulted). See the [module docs](self) for when the error surfaces.
    ///
    /// # Safety
    ///
    /// As for [`Device::launch_on`]: a checked kernel's accesses stay inside its slices
    /// only when each length argument is its slice's true length, which the typed `launch`
    /// that `#[ptx_kernel]` generates (the caller of this function) guarantees.
    pub unsafe fn launch_checked<K: Kernel + ?Sized>(
        &self,
        kernel: &K,
        cfg: LaunchConfig,
        args: &mut [KernelArg<'_>],
        sites: SiteTable,
    ) -> Result<LaunchReport> {
        let mut record = self.zeroed::<u64>(RECORD_BYTES as usize / 8)?;
        let launched = {
            let mut all: Vec<KernelArg<'_>> = args.iter_mut().map(KernelArg::reborrow).collect();
            all.push(KernelArg::buffer_mut(&mut record));
            // SAFETY: the caller's guarantee, passed on; the record is a buffer of its own.
            unsafe { self.launch(kernel, cfg, &mut all) }
        };
        let check = PendingCheck { kernel: kernel.name().to_string(), record, sites };
        if self.is_synchronous() {
            return match launched {
                Ok(report) => check.read().map(|()| report),
                // A simulated launch that stopped (an endless loop, a deadlock, a fault) may
                // have recorded what led there, e.g. a loop bound read out of range as 0: that
                // is the error to report.
                Err(e) => Err(check.read().err().unwrap_or(e)),
            };
        }
        let report = launched?;
        let waiting = {
            let mut list = self.pending_checks().list.lock().unwrap_or_else(|e| e.into_inner());
            list.push(check);
            list.len()
        };
        if waiting >= MAX_PENDING {
            // A program that never synchronises would otherwise keep every record alive.
            self.synchronize()?;
        }
        Ok(report)
    }

    /// Reads every pending fault record (the caller has just synchronised) and returns the
    /// first fault among them, clearing them all.
    pub(crate) fn take_pending_faults(&self) -> Result<()> {
        let checks =
            std::mem::take(&mut *self.pending_checks().list.lock().unwrap_or_else(|e| e.into_inner()));
        let mut first = Ok(());
        for check in checks {
            let r = check.read();
            if first.is_ok() {
                first = r;
            }
        }
        first
    }
}

impl PendingCheck {
    /// Reads the record (the launch has finished) and turns a fault into its error.
    fn read(self) -> Result<()> {
        let words = self.record.read_raw()?;
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        match FaultRecord::decode(&bytes) {
            None => Ok(()),
            Some(record) => {
                let sites = (self.sites)();
                Err(fault_error(&self.kernel, &record, sites.get(record.site as usize)))
            }
        }
    }
}

/// The error a decoded fault record stands for.
fn fault_error(kernel: &str, record: &FaultRecord, site: Option<&FaultSite>) -> Error {
    let Some(site) = site else {
        return Error::KernelPanic {
            kernel: kernel.to_string(),
            message: format!(
                "fault at unknown site {} (the kernel's site table does not have it)",
                record.site
            ),
            location: "?".to_string(),
        };
    };
    match site.kind {
        FaultKind::IndexOutOfBounds { signed_index } => Error::OutOfBounds {
            kernel: kernel.to_string(),
            param: site.subject.to_string(),
            index: if signed_index { i128::from(record.value as i64) } else { i128::from(record.value) },
            len: record.extra,
            location: site.location(),
        },
        FaultKind::Panic => Error::KernelPanic {
            kernel: kernel.to_string(),
            message: site.subject.to_string(),
            location: site.location(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pending check whose record holds a fault at site 0 (index 9 of a length-4 slice).
    fn faulted_check(device: &Device) -> PendingCheck {
        let record = device.upload(&[1u64, 9, 4]).unwrap();
        let site = FaultSite {
            kind: FaultKind::IndexOutOfBounds { signed_index: false },
            subject: "x",
            file: "src/k.rs",
            line: 3,
            column: 5,
        };
        PendingCheck { kernel: "k".into(), record, sites: Box::new(move || vec![site]) }
    }

    #[test]
    fn a_deferred_fault_surfaces_once_at_the_next_synchronising_call() {
        // What a CUDA launch does: the record waits in the device's pending checks.
        let device = Device::sim();
        device.pending_checks().list.lock().unwrap().push(faulted_check(&device));
        let err = device.synchronize().unwrap_err();
        assert!(matches!(err, Error::OutOfBounds { index: 9, len: 4, .. }), "{err}");
        device.synchronize().expect("reported once, then clean");
        let buf = device.upload(&[1.0f32]).unwrap();
        device.pending_checks().list.lock().unwrap().push(faulted_check(&device));
        assert!(matches!(buf.to_vec(), Err(Error::OutOfBounds { .. })), "to_vec synchronises too");
        assert_eq!(buf.to_vec().unwrap(), [1.0]);
    }

    #[test]
    fn a_device_whose_last_handles_are_pending_records_is_freed() {
        let device = Device::sim();
        device.pending_checks().list.lock().unwrap().push(faulted_check(&device));
        device.pending_checks().list.lock().unwrap().push(faulted_check(&device));
        let kept = device.upload(&[1u32]).unwrap();
        let inner = device.downgrade();
        drop(device);
        assert!(inner.upgrade().is_some(), "a buffer of the user's keeps the device and its records");
        drop(kept);
        assert!(inner.upgrade().is_none(), "the records alone do not keep the device alive");
    }

    #[test]
    fn a_signed_index_decodes_negative_and_names_the_site() {
        let site = FaultSite {
            kind: FaultKind::IndexOutOfBounds { signed_index: true },
            subject: "x",
            file: "src/k.rs",
            line: 7,
            column: 13,
        };
        let record = FaultRecord { site: 0, value: -3i64 as u64, extra: 10 };
        let e = fault_error("k", &record, Some(&site));
        assert_eq!(e.to_string(), "kernel `k` indexed `x` at -3, but its length is 10 (at src/k.rs:7:13)");
    }
}
