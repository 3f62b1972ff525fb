//! Device selection through `PTX_DSL_DEVICE` (one test, since it changes the environment).

use ptx_runtime::{Device, DeviceKind, Error, DEVICE_ENV};

fn cuda_available() -> bool {
    Device::cuda(0).is_ok()
}

#[test]
fn device_selection_follows_the_environment() {
    let has_gpu = cuda_available();

    std::env::remove_var(DEVICE_ENV);
    let auto = Device::auto();
    assert_eq!(auto.kind(), if has_gpu { DeviceKind::Cuda } else { DeviceKind::Sim });
    assert_eq!(Device::from_env().unwrap().kind(), auto.kind());

    std::env::set_var(DEVICE_ENV, "sim");
    assert_eq!(Device::auto().kind(), DeviceKind::Sim);
    assert_eq!(Device::from_env().unwrap().kind(), DeviceKind::Sim);

    std::env::set_var(DEVICE_ENV, " AUTO ");
    assert_eq!(Device::from_env().unwrap().kind(), auto.kind());

    std::env::set_var(DEVICE_ENV, "cuda");
    if has_gpu {
        assert_eq!(Device::from_env().unwrap().kind(), DeviceKind::Cuda);
    } else {
        // Forced but unavailable: from_env errs, auto falls back to the simulator.
        let err = Device::from_env().unwrap_err();
        assert!(matches!(err, Error::NoDevice { .. }), "{err:?}");
        assert!(err.to_string().contains("PTX_DSL_DEVICE=sim"), "{err}");
        assert_eq!(Device::auto().kind(), DeviceKind::Sim);
    }

    std::env::set_var(DEVICE_ENV, "cuda:100000");
    assert!(matches!(Device::from_env(), Err(Error::NoDevice { .. })));
    assert_eq!(Device::auto().kind(), DeviceKind::Sim);

    std::env::set_var(DEVICE_ENV, "tpu");
    assert!(matches!(Device::from_env(), Err(Error::NoDevice { .. })));
    let _ = Device::auto(); // ignored with a note, then chosen automatically

    std::env::remove_var(DEVICE_ENV);
}
