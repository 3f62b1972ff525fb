//! The built-in functions of the kernel language, as documented items so that editors
//! complete them. Inside a `#[ptx_kernel]` function the macro replaces each call with the
//! PTX special register it names; they have no meaning on the host, and calling one outside
//! a kernel panics with a message saying so.

/// A built-in index: the three components of `%tid`, `%ctaid`, `%ntid` or `%nctaid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    /// The x component.
    pub x: u32,
    /// The y component.
    pub y: u32,
    /// The z component.
    pub z: u32,
}

#[cold]
fn outside_kernel(name: &str) -> ! {
    panic!(
        "`{name}()` is a GPU built-in: it only has a meaning inside a `#[ptx_kernel]` function, \
         where the macro turns it into a PTX special register"
    )
}

/// The index of the calling thread within its block (`%tid`), each component `u32`.
pub fn thread_idx() -> Dim3 {
    outside_kernel("thread_idx")
}

/// The index of the calling thread's block within the grid (`%ctaid`).
pub fn block_idx() -> Dim3 {
    outside_kernel("block_idx")
}

/// The number of threads per block in each dimension (`%ntid`).
pub fn block_dim() -> Dim3 {
    outside_kernel("block_dim")
}

/// The number of blocks in the grid in each dimension (`%nctaid`).
pub fn grid_dim() -> Dim3 {
    outside_kernel("grid_dim")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_built_in_called_on_the_host_says_what_it_is() {
        let e = std::panic::catch_unwind(super::thread_idx).unwrap_err();
        let msg = e.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains("only has a meaning inside a `#[ptx_kernel]` function"), "{msg}");
    }
}
