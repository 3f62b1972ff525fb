//! A `#[ptx_device]` function in a file of its own, for `tests/device_fns.rs`: the PTX of a
//! kernel calling it names both files (`.file 1`, `.file 2`), and a fault inside it names
//! this file's line.

use ptx_dsl::prelude::*;

/// `a % b` (a fault in a checked kernel when `b` is 0).
#[ptx_device]
pub fn remainder(a: u32, b: u32) -> u32 {
    a % b
}
