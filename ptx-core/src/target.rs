//! Compilation targets (`sm_XY`) and the PTX ISA version each needs.
//!
//! The printer writes the *lowest* ISA version that has what the kernel uses, so the same
//! PTX loads on older drivers too: a driver's JIT rejects PTX newer than its own ISA.

use std::fmt;

/// A GPU architecture, `sm_{major}{minor}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Target {
    /// Compute capability major version (8 for sm_80).
    pub major: u32,
    /// Compute capability minor version (0 for sm_80).
    pub minor: u32,
}

/// A PTX ISA version, printed as `.version major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IsaVersion {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

impl Target {
    /// Ampere A100, the default target.
    pub const SM_80: Target = Target { major: 8, minor: 0 };
    /// Hopper H100/H200.
    pub const SM_90: Target = Target { major: 9, minor: 0 };

    /// The newest target whose PTX ISA version [`Target::min_isa`] knows (GB10, sm_121).
    pub const NEWEST_KNOWN: Target = Target { major: 12, minor: 1 };

    /// The target for a device of compute capability `major.minor`. A capability newer than
    /// [`Target::NEWEST_KNOWN`] gets that target: its ISA version is one this code knows,
    /// and a newer GPU's driver compiles PTX of an older target for it (the JIT is forward
    /// compatible), where a `.target` it names with too low a `.version` would be refused.
    pub fn from_compute_capability(major: u32, minor: u32) -> Target {
        Target { major, minor }.min(Target::NEWEST_KNOWN)
    }

    /// Parses `"sm_80"` / `"sm_90"`.
    pub fn parse(s: &str) -> Option<Target> {
        let digits = s.strip_prefix("sm_")?;
        if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let (major, minor) = digits.split_at(digits.len() - 1);
        Some(Target { major: major.parse().ok()?, minor: minor.parse().ok()? })
    }

    /// The lowest PTX ISA version that can name this target (7.0 for sm_80, 7.8 for sm_90),
    /// as ptxas 13.5 takes them (`ptx-core/tests/assemble.rs` checks each against it).
    pub fn min_isa(self) -> IsaVersion {
        let (major, minor) = match (self.major, self.minor) {
            (m, _) if m < 8 => (7, 0),
            (8, 0) => (7, 0),
            (8, 6) => (7, 1),
            (8, 7) => (7, 4),
            (8, 8) => (9, 0),
            (8, _) => (7, 8),
            (9, _) => (7, 8),
            (10, 0) | (10, 1) => (8, 6),
            (10, _) => (8, 8),
            (11, _) => (9, 0),
            (12, 0) => (8, 7),
            _ => (8, 8),
        };
        IsaVersion { major, minor }
    }
}

impl Default for Target {
    fn default() -> Target {
        Target::SM_80
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}{}", self.major, self.minor)
    }
}

impl fmt::Display for IsaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_targets() {
        assert_eq!(Target::parse("sm_90"), Some(Target::SM_90));
        assert_eq!(Target::parse("sm_120"), Some(Target { major: 12, minor: 0 }));
        assert_eq!(Target::parse("sm_9"), None);
        assert_eq!(Target::parse("compute_90"), None);
        assert_eq!(Target::SM_80.to_string(), "sm_80");
        assert_eq!(Target::SM_90.min_isa().to_string(), "7.8");
        assert_eq!(Target::SM_80.min_isa().to_string(), "7.0");
    }
}
