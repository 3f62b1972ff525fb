//! The runtime misused as a new user might: absurd buffer sizes and a too-small step
//! budget on the simulator must be errors that say what to do, never a panic or an abort.

use ptx_runtime::{Device, Error, LaunchConfig};

#[test]
fn buffers_the_host_cannot_hold_are_errors_and_the_device_stays_usable() {
    let device = Device::sim();
    let check = |err: Error, bytes: u64| {
        assert!(
            matches!(err, Error::Simulator(ptx_sim::SimError::OutOfMemory { bytes: b }) if b == bytes),
            "{err}"
        );
        let text = err.to_string();
        assert!(
            text.contains(&format!("cannot allocate {bytes} bytes")) && text.contains("CUDA device"),
            "{text}"
        );
    };
    check(device.zeroed::<u8>(usize::MAX / 2).unwrap_err(), (usize::MAX / 2) as u64);
    check(device.zeroed::<f32>(1 << 48).unwrap_err(), 1 << 50);
    let buffer = device.upload(&[1u32, 2, 3]).unwrap();
    assert_eq!(buffer.to_vec().unwrap(), [1, 2, 3]);
}

#[test]
fn the_step_budget_error_of_a_device_made_with_one_names_how_to_raise_it() {
    let device = Device::sim_with_step_budget(5000);
    let ptx =
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry spin()\n{\nL:\nbra.uni L;\nret;\n}\n";
    let module = device.load_ptx(ptx).unwrap();
    let text = unsafe { module.launch("spin", LaunchConfig::linear(1, 1), &mut []) }.unwrap_err().to_string();
    assert!(text.contains("`spin`") && text.contains("step budget of 5000"), "{text}");
    assert!(text.contains("Device::sim_with_step_budget"), "{text}");
}

/// A step budget of 0 given in `SimOptions` is taken as 1, as `sim_with_step_budget(0)`
/// takes it (it was taken as it was), and the error says "1 instruction".
#[test]
fn a_zero_step_budget_is_one_step_in_either_constructor() {
    let ptx =
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry spin()\n{\nL:\nbra.uni L;\nret;\n}\n";
    let options = ptx_sim::SimOptions { step_budget: 0, ..Default::default() };
    for device in [Device::sim_with_options(options), Device::sim_with_step_budget(0)] {
        let module = device.load_ptx(ptx).unwrap();
        let text =
            unsafe { module.launch("spin", LaunchConfig::linear(1, 1), &mut []) }.unwrap_err().to_string();
        assert!(text.contains("step budget of 1 instruction") && !text.contains("1 instructions"), "{text}");
    }
}
