//! The fault record of a checked launch: allocated zeroed before the launch, passed as the
//! kernel's last parameter, and read back afterwards to turn a recorded fault into an
//! [`Error::OutOfBounds`] or [`Error::KernelPanic`] naming the kernel, the parameter and the
//! Rust source position.
//!
//! Reading the record back synchronises with the launch: on the simulator that costs
//! nothing (it is synchronous), on CUDA it waits for the kernel to finish.

use ptx_core::fault::{FaultKind, FaultRecord, FaultSite, RECORD_BYTES};
use ptx_runtime::{Device, DeviceBuffer, Error, KernelArg, LaunchReport, Result};

/// The name of the hidden fault-record parameter, the last one of a checked kernel.
pub const FAULT_PARAM: &str = "fault__record";

/// A zeroed fault record for one launch.
pub struct FaultBuffer {
    words: DeviceBuffer<u64>,
}

impl FaultBuffer {
    /// Allocates a zeroed record on `device`.
    pub fn new(device: &Device) -> Result<FaultBuffer> {
        Ok(FaultBuffer { words: device.zeroed::<u64>(RECORD_BYTES as usize / 8)? })
    }

    /// The record as the kernel's last argument.
    pub fn arg(&mut self) -> KernelArg<'_> {
        KernelArg::buffer_mut(&mut self.words)
    }

    /// Reads the record after the launch: `Ok(report)` when nothing faulted, else the
    /// error for the first fault, whose site `sites` (the kernel's site table, built on
    /// demand) describes.
    pub fn check(
        self,
        kernel: &str,
        report: LaunchReport,
        sites: impl FnOnce() -> Vec<FaultSite>,
    ) -> Result<LaunchReport> {
        let words = self.words.to_vec()?;
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let Some(record) = FaultRecord::decode(&bytes) else {
            return Ok(report);
        };
        Err(fault_error(kernel, &record, sites().get(record.site as usize)))
    }
}

/// Whether a fault site is a slice bounds check (rather than a division check, say).
pub fn is_bounds_check(site: &FaultSite) -> bool {
    matches!(site.kind, FaultKind::IndexOutOfBounds { .. })
}

/// The error a decoded fault record stands for.
fn fault_error(kernel: &str, record: &FaultRecord, site: Option<&FaultSite>) -> Error {
    let Some(site) = site else {
        return Error::KernelPanic {
            kernel: kernel.to_string(),
            message: format!("fault at unknown site {} (the kernel's site table is stale)", record.site),
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
