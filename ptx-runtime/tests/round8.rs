//! The eighth round of checks with code the suite had not seen: the runtime's host API used
//! at its edges, which must give an `Err` saying what to do, never a panic.

use ptx_runtime::{Device, DeviceLimits, Error, LaunchConfig};

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

#[test]
fn a_zeroed_length_whose_byte_size_overflows_is_an_invalid_len_saying_how_large() {
    let device = Device::sim();
    let err = device.zeroed::<f32>(usize::MAX / 2).unwrap_err();
    match &err {
        Error::InvalidArgument { argument, reason } => {
            assert_eq!(argument, "len");
            let most = (usize::MAX / 4).to_string();
            assert!(reason.contains("elements of f32") && reason.contains(&most), "{reason}");
        }
        other => panic!("expected InvalidArgument for `len`, got {other:?}"),
    }
    let err = device.zeroed::<u64>(usize::MAX).unwrap_err();
    assert!(matches!(&err, Error::InvalidArgument { argument, .. } if argument == "len"), "{err}");
    // The largest length whose byte size fits is the host's out-of-memory error instead.
    let err = device.zeroed::<u64>(usize::MAX / 8).unwrap_err();
    assert!(matches!(err, Error::Simulator(ptx_sim::SimError::OutOfMemory { .. })), "{err}");
    assert_eq!(device.zeroed::<u64>(2).unwrap().to_vec().unwrap(), [0, 0]);
}
