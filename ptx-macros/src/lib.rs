//! # ptx-macros
//!
//! The `#[ptx_kernel]` attribute of ptx-dsl. The kernel goes through four stages, each a
//! function on `proc_macro2` streams: [`parse`] (syn's tree to our own AST, rejecting what
//! the language lacks at its span), [`check`] (names, types with Rust's inference, stages,
//! mutability), [`lower`] (the body as builder calls) and [`expand`] (the generated type).
//! Errors from every stage are collected and reported together. Use the attribute through
//! `ptx_dsl`, which documents the language.

mod ast;
mod check;
mod errors;
mod expand;
mod lower;
mod parse;
mod types;

use proc_macro2::TokenStream;

/// Turns a restricted Rust function into a GPU kernel type; see the `ptx_dsl` crate docs
/// for the language.
#[proc_macro_attribute]
pub fn ptx_kernel(attr: proc_macro::TokenStream, item: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand(attr.into(), item.into()).into()
}

/// The whole macro on `proc_macro2` streams: generated items, or `compile_error!`s at the
/// user's spans. Never panics.
fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = errors::Errors::default();
    let options = match expand::parse_options(attr) {
        Ok(o) => o,
        Err(e) => {
            errors.push(e);
            expand::Options::default()
        }
    };
    let Some(kernel) = parse::parse_kernel(item, &mut errors) else {
        return errors.to_tokens();
    };
    let checked = check::check(&kernel, &mut errors);
    if !errors.is_empty() {
        return errors.to_tokens();
    }
    expand::expand_kernel(&kernel, &checked, &options)
}
