//! Checks that a call's buffers live on the device it runs on, naming each by its argument
//! (before any launch, which would name the kernel's parameter instead, and even where an
//! empty shape launches nothing).

use ptx_runtime::{Device, Error, Result};

/// `Err(Error::WrongDevice)` for the first of `buffers` (argument name, the buffer's device)
/// not on `device`; `runs_on` says what runs there ("this RoPE runs on").
pub(crate) fn check_devices(device: &Device, buffers: &[(&str, &Device)], runs_on: &str) -> Result<()> {
    match buffers.iter().find(|(_, owner)| !owner.same_as(device)) {
        None => Ok(()),
        Some((argument, owner)) => {
            Err(Error::WrongDevice { what: format!("`{argument}` lives on {owner}, but {runs_on} {device}") })
        }
    }
}
