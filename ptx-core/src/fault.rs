//! Faults that checked kernels record while they run, and the layout of the record.
//!
//! A kernel written with `#[ptx_kernel]` (checked, the default) does not trap when a slice
//! index is out of range or when an operation would make Rust panic (division by zero, say):
//! the offending thread records the first such event in a small *fault record* in global
//! memory and carries on (an out-of-range load reads 0, an out-of-range store is dropped).
//! Each place in the kernel's source that can fault is a [`FaultSite`]; the kernel type holds
//! a static table of them, and the record names the site by its index in that table. The
//! runtime allocates the record, zeroes it before the launch, reads it afterwards and turns a
//! recorded fault into an error naming the kernel, the parameter and the Rust line.
//!
//! Record layout ([`RECORD_BYTES`] bytes, little-endian, 8-byte aligned):
//!
//! | offset | type  | meaning                                                              |
//! |--------|-------|----------------------------------------------------------------------|
//! | 0      | `u32` | 0 when nothing faulted, else the faulting site's index + 1           |
//! | 4      | `u32` | reserved, 0                                                          |
//! | 8      | `u64` | [`FaultKind::IndexOutOfBounds`]: the index (two's complement if the index type is signed) |
//! | 16     | `u64` | [`FaultKind::IndexOutOfBounds`]: the slice's length                  |
//!
//! The first faulting thread claims the record with an atomic compare-and-swap on the site
//! word, so exactly one fault is reported per launch; the values at 8 and 16 are written by
//! that thread only.

/// The name of the fault record's parameter: the hidden last parameter of a checked
/// kernel (`#[ptx_kernel]`'s), which its launch passes itself.
pub const FAULT_PARAM: &str = "fault__record";

/// Size in bytes of a fault record.
pub const RECORD_BYTES: u32 = 24;
/// Byte offset of the site word (`u32`: site index + 1, or 0).
pub const SITE_OFFSET: i32 = 0;
/// Byte offset of the first value (`u64`; the index, for an out-of-range access).
pub const VALUE_OFFSET: i32 = 8;
/// Byte offset of the second value (`u64`; the length, for an out-of-range access).
pub const EXTRA_OFFSET: i32 = 16;

/// What went wrong at a [`FaultSite`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// A slice was indexed out of range; the record holds the index and the length.
    IndexOutOfBounds {
        /// Whether the index had a signed type (so a negative index prints as such).
        signed_index: bool,
    },
    /// An operation that panics in Rust whatever the build profile (integer division by
    /// zero or with overflow, `clamp` with `min > max`, `step_by(0)`); the site's
    /// [`FaultSite::subject`] is Rust's panic message.
    Panic,
}

/// One place in a kernel's source that can fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FaultSite {
    /// What can go wrong here.
    pub kind: FaultKind,
    /// For [`FaultKind::IndexOutOfBounds`], the slice parameter's name; for
    /// [`FaultKind::Panic`], the panic message Rust would give (e.g.
    /// `attempt to divide by zero`).
    pub subject: &'static str,
    /// The Rust source file (as `file!()` gives it).
    pub file: &'static str,
    /// The 1-based line in `file`.
    pub line: u32,
    /// The 1-based column in `line`.
    pub column: u32,
}

impl FaultSite {
    /// `file:line:column`, as rustc prints source positions.
    pub fn location(&self) -> String {
        location(self.file, self.line, self.column)
    }
}

/// A source position as rustc prints it: `file:line:column`.
pub fn location(file: &str, line: u32, column: u32) -> String {
    format!("{file}:{line}:{column}")
}

/// A decoded fault record: which site faulted, and its two values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultRecord {
    /// Index of the faulting site in the kernel's site table.
    pub site: u32,
    /// The value at [`VALUE_OFFSET`].
    pub value: u64,
    /// The value at [`EXTRA_OFFSET`].
    pub extra: u64,
}

impl FaultRecord {
    /// Decodes a record's bytes; `None` when nothing faulted (or `bytes` is too short).
    pub fn decode(bytes: &[u8]) -> Option<FaultRecord> {
        let word = |at: usize, n: usize| -> Option<u64> {
            let slice = bytes.get(at..at + n)?;
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(slice);
            Some(u64::from_le_bytes(b))
        };
        let site = word(SITE_OFFSET as usize, 4)?;
        if site == 0 {
            return None;
        }
        Some(FaultRecord {
            site: (site - 1) as u32,
            value: word(VALUE_OFFSET as usize, 8)?,
            extra: word(EXTRA_OFFSET as usize, 8)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_documented_layout() {
        let mut bytes = [0u8; RECORD_BYTES as usize];
        assert_eq!(FaultRecord::decode(&bytes), None);
        bytes[0..4].copy_from_slice(&3u32.to_le_bytes());
        bytes[8..16].copy_from_slice(&(-5i64 as u64).to_le_bytes());
        bytes[16..24].copy_from_slice(&17u64.to_le_bytes());
        let r = FaultRecord::decode(&bytes).unwrap();
        assert_eq!(r, FaultRecord { site: 2, value: -5i64 as u64, extra: 17 });
        assert_eq!(FaultRecord::decode(&bytes[..10]), None);
    }

    #[test]
    fn location_is_file_line_column() {
        let site = FaultSite {
            kind: FaultKind::Panic,
            subject: "attempt to divide by zero",
            file: "src/lib.rs",
            line: 12,
            column: 9,
        };
        assert_eq!(site.location(), "src/lib.rs:12:9");
    }
}
