//! # ptx-macros
//!
//! The home of `#[ptx_kernel]`, the attribute macro that will lower a restricted Rust
//! function into calls on ptx-core's builder (parse with syn into our own AST, check, then
//! expand with quote). It is not implemented yet: kernels are written against
//! `ptx_core::KernelBuilder` directly for now, as `ptx_dsl::rope` shows. This crate holds no
//! public items until then.
