//! The eighth round of checks with code the suite had not seen: typed launches of
//! `#[ptx_kernel]`s at the edges of the host API, which must give an `Err` saying what to
//! do, never a panic.

use ptx_dsl::prelude::*;
use ptx_dsl::runtime::{Device, Error, LaunchConfig};

/// Every thread writes its warp's thread count.
#[ptx_kernel]
pub fn warp_count(out: &mut [u32]) {
    let v = warp_sum(1u32);
    let i = global_idx().x as usize;
    if i < out.len() {
        out[i] = v;
    }
}

#[test]
fn a_warp_kernel_launched_with_a_block_the_device_refuses_is_a_bad_launch_config() {
    let device = Device::sim();
    let mut out = device.zeroed::<u32>(64).unwrap();
    for block in [(u32::MAX, u32::MAX, u32::MAX), (2048, 1024, 1), (4096, 1, 1)] {
        let cfg = LaunchConfig::new((1, 1, 1), block);
        let err = WarpCount::new().launch(&device, cfg, &mut out).unwrap_err();
        assert!(
            matches!(&err, Error::BadLaunchConfig { reason, .. } if reason.contains("above the device's limit")),
            "{block:?}: {err}"
        );
    }
    // A block the device accepts but that splits a warp is still refused as such.
    let err = WarpCount::new().launch(&device, LaunchConfig::linear(1, 48), &mut out).unwrap_err();
    assert!(matches!(&err, Error::InvalidArgument { argument, .. } if argument == "config"), "{err}");
    WarpCount::new().launch(&device, LaunchConfig::linear(2, 32), &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [32; 64]);
}
