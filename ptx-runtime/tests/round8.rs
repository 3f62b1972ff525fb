//! The eighth round of checks with code the suite had not seen: the runtime's host API used
//! at its edges, which must give an `Err` saying what to do, never a panic.

use ptx_runtime::{DeviceLimits, Error, LaunchConfig};

#[test]
fn launch_configs_of_more_than_2_to_the_64_threads_count_without_overflowing() {
    let max = (u32::MAX, u32::MAX, u32::MAX);
    let cfg = LaunchConfig::new(max, max);
    assert_eq!(cfg.threads_per_block(), u64::MAX);
    assert_eq!(cfg.total_threads(), u64::MAX);
    assert_eq!(LaunchConfig::new(max, (1, 1, 1)).total_threads(), u64::MAX);
    let err = cfg.validate(&DeviceLimits::DEFAULT).unwrap_err();
    assert!(
        matches!(&err, Error::BadLaunchConfig { reason } if reason.contains("block dimension x")),
        "{err}"
    );
    // Below the saturation the counts are exact.
    let cfg = LaunchConfig::new((65536, 65536, 2), (1024, 1024, 64));
    assert_eq!(cfg.threads_per_block(), 1 << 26);
    assert_eq!(cfg.total_threads(), 1 << 59);
}
