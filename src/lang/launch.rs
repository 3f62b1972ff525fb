//! What checked kernels share with the runtime's checked launches
//! ([`ptx_runtime::checked`]): the name of the hidden fault-record parameter, and which
//! fault sites are bounds checks.

use ptx_core::fault::{FaultKind, FaultSite};

pub use ptx_core::fault::FAULT_PARAM;

/// Whether a fault site is a slice bounds check (rather than a division check, say).
pub fn is_bounds_check(site: &FaultSite) -> bool {
    matches!(site.kind, FaultKind::IndexOutOfBounds { .. })
}
