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
        matches!(&err, Error::BadLaunchConfig { reason, .. } if reason.contains("block dimension x")),
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
            assert!(!reason.contains("  "), "one line of text: {reason:?}");
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

/// This test binary run again as a child process with `vars` set, running only `test`;
/// returns what it wrote on stderr.
fn child_stderr(test: &str, vars: &[(&str, &str)]) -> String {
    let mut command = std::process::Command::new(std::env::current_exe().unwrap());
    command.args(["--exact", test, "--nocapture", "--test-threads", "1"]).env("ROUND8_CHILD", "1");
    for (name, value) in vars {
        command.env(name, value);
    }
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "child failed:\n{}\n{stderr}", String::from_utf8_lossy(&out.stdout));
    stderr
}

/// In the child: opens two simulators and runs an endless loop on one, whose step-budget
/// error says which budget the device got (printed for the parent).
#[test]
fn child_opens_simulators() {
    if std::env::var_os("ROUND8_CHILD").is_none() {
        return;
    }
    let _first = Device::sim();
    let device = Device::sim();
    let ptx =
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry spin()\n{\nL:\nbra.uni L;\nret;\n}\n";
    let module = device.load_ptx(ptx).unwrap();
    if std::env::var_os("ROUND8_SPIN").is_some() {
        let err = unsafe { module.launch("spin", LaunchConfig::linear(1, 1), &mut []) }.unwrap_err();
        eprintln!("child: {err}");
    }
}

#[test]
fn simulator_variables_with_values_they_do_not_take_are_ignored_with_a_note_saying_what_they_take() {
    let test = "child_opens_simulators";
    for (name, value, expected) in [
        ("PTX_DSL_SIM_STEP_BUDGET", "1e6", "a whole number of instructions per thread"),
        ("PTX_DSL_SIM_STEP_BUDGET", "0", "at least 1"),
        ("PTX_DSL_SIM_MAX_THREADS", "-1", "a whole number of threads per launch"),
        ("PTX_DSL_SIM_RACECHECK", "1", "expected `global`"),
        ("PTX_DSL_SIM_APPROX", "worst-case", "expected `worst`"),
        ("PTX_DSL_SIM_THREADS", "all", "a whole number of worker threads"),
    ] {
        let stderr = child_stderr(test, &[(name, value)]);
        let note = format!("ptx-runtime: ignoring {name}={value:?}: {expected}");
        let notes: Vec<&str> = stderr.lines().filter(|l| l.contains("ignoring")).collect();
        assert!(
            notes.len() == 1
                && notes[0].starts_with(&format!("ptx-runtime: ignoring {name}={value:?}: expected"))
                && notes[0].contains(expected)
                && notes[0].contains("; using "),
            "{name}={value}: expected one note like {note:?}, stderr:\n{stderr}"
        );
    }
    // The values they take, in any case and with spaces, are taken silently.
    let stderr = child_stderr(
        test,
        &[
            ("PTX_DSL_SIM_STEP_BUDGET", " 5000 "),
            ("PTX_DSL_SIM_RACECHECK", "Global"),
            ("PTX_DSL_SIM_APPROX", "WORST"),
            ("PTX_DSL_SIM_THREADS", "2"),
            ("PTX_DSL_SIM_MAX_THREADS", ""),
            ("ROUND8_SPIN", "1"),
        ],
    );
    assert!(!stderr.contains("ignoring"), "{stderr}");
    assert!(stderr.contains("step budget of 5000 "), "{stderr}");
    // The note says what is used instead: the default.
    let stderr = child_stderr(test, &[("PTX_DSL_SIM_STEP_BUDGET", "1_000")]);
    assert!(stderr.contains(&format!("; using {}\n", ptx_sim::DEFAULT_STEP_BUDGET)), "{stderr}");
}

/// In the child: chooses a device as `Device::auto` does.
#[test]
fn child_chooses_a_device() {
    if std::env::var_os("ROUND8_CHILD").is_none() {
        return;
    }
    let _device = Device::auto();
}

/// A `PTX_DSL_DEVICE` value that names no device is ignored with one note that also says
/// where the kernels run (the note about the fallback was lost: one note per process).
#[test]
fn an_unknown_device_choice_is_one_note_saying_what_runs_instead() {
    let stderr = child_stderr("child_chooses_a_device", &[("PTX_DSL_DEVICE", "bogus")]);
    let notes: Vec<&str> = stderr.lines().filter(|l| l.starts_with("ptx-runtime:")).collect();
    assert_eq!(notes.len(), 1, "{stderr}");
    assert!(notes[0].contains("ignoring PTX_DSL_DEVICE=\"bogus\""), "{stderr}");
    assert!(notes[0].contains("CPU simulator") || notes[0].ends_with("CUDA device 0"), "{stderr}");
}

#[test]
fn a_ptx_module_debugs_as_its_device_and_kernel_names() {
    let device = Device::sim();
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry first()\n{\nret;\n}\n\
               .visible .entry second()\n{\nret;\n}\n";
    let module = device.load_ptx(ptx).unwrap();
    let text = format!("{module:?}");
    assert!(
        text.starts_with("PtxModule { device: Device {")
            && text.ends_with(r#"kernels: ["first", "second"] }"#),
        "{text}"
    );
    assert!(!text.contains(".entry"), "{text}");
    // `unwrap_err` of a `Result<PtxModule>` needs `PtxModule: Debug`, as `expect` does.
    let err = device.load_ptx("").unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
}
