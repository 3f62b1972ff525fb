//! What the `*_bench` examples share: the `--device` choice, the median of CUDA-event-timed
//! runs, and the exit status.

use std::process::ExitCode;
use std::time::Duration;

use ptx_dsl::runtime::{Device, Result};

/// Where a bench runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DeviceArg {
    /// `PTX_DSL_DEVICE`, else a GPU when there is one, else the simulator.
    Auto,
    /// The first CUDA GPU.
    Cuda,
    /// The CPU simulator.
    Sim,
}

impl DeviceArg {
    /// The device, or why it cannot be had.
    pub fn open(self) -> Result<Device> {
        match self {
            DeviceArg::Auto => Device::from_env(),
            DeviceArg::Cuda => Device::cuda(0),
            DeviceArg::Sim => Ok(Device::sim()),
        }
    }
}

/// The median device time of `runs` calls of `f`, after `warmup` untimed ones (CUDA events
/// on a GPU, wall clock on the simulator).
pub fn median(
    device: &Device,
    runs: u32,
    warmup: u32,
    mut f: impl FnMut() -> Result<()>,
) -> Result<Duration> {
    for _ in 0..warmup {
        f()?;
    }
    device.synchronize()?;
    let mut times = Vec::with_capacity(runs as usize);
    for _ in 0..runs {
        times.push(device.time(&mut f)?.0);
    }
    times.sort();
    Ok(times[times.len() / 2])
}

/// The process's exit status for a bench's result: 2 and the error on stderr on failure.
pub fn exit(result: std::result::Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
