//! `#[ptx_device]`: a function that kernels call, written in the kernel language and
//! inlined into each kernel that calls it. The attribute keeps the function as it is (so
//! a kernel's body that calls it still runs as plain Rust on the host) and puts a hidden
//! `macro_rules!` of the same name beside it, which hands the function's tokens to a
//! kernel that asks for them ([`crate::chain`]). Rust's own name resolution finds that
//! macro wherever it finds the function: a `use` of the function imports both.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::ItemFn;

use crate::errors::Errors;
use crate::{check, parse};

/// One `#[ptx_device]` function as a kernel's expansion received it.
pub struct DeviceFn {
    /// The function as written (its attributes aside).
    pub item: ItemFn,
    /// Whether its attribute found mistakes in it (reported there; a kernel calling it
    /// only says that it cannot inline it).
    pub failed: bool,
}

/// The device functions known to an expansion, in the order they were fetched.
#[derive(Default)]
pub struct Devices {
    fns: Vec<DeviceFn>,
}

impl Devices {
    /// The device function named `name`.
    pub fn get(&self, name: &str) -> Option<&DeviceFn> {
        self.fns.iter().find(|d| d.item.sig.ident == name)
    }

    /// Adds one (the first of a name wins; the chain never fetches a name twice).
    pub fn push(&mut self, device: DeviceFn) {
        if self.get(&device.item.sig.ident.to_string()).is_none() {
            self.fns.push(device);
        }
    }

    /// All of them, in order.
    pub fn iter(&self) -> impl Iterator<Item = &DeviceFn> {
        self.fns.iter()
    }
}

/// The expansion of `#[ptx_device]`: the function itself, the errors found in it, and the
/// macro that hands its tokens to kernels.
pub fn expand_device(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    if let Some(first) = attr.clone().into_iter().next() {
        errors.push(syn::Error::new(first.span(), "`#[ptx_device]` takes no arguments"));
    }
    let func: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            errors.push(parse::not_a_function(
                item.clone(),
                &e,
                "#[ptx_device]",
                "fn name(x: f32) -> f32 { .. }",
            ));
            let errors = errors.to_tokens();
            return quote!(#errors #item);
        }
    };
    // The function on its own: the language's syntax and the signature always; names and
    // types when it calls no other device function (one that does is checked in each kernel
    // that calls it, where all of them are known).
    let parsed = parse::parse_device(&func, &mut errors, &Devices::default());
    if parsed.unresolved.is_empty() && errors.is_empty() {
        check::check(&parsed.kernel, &mut errors);
    }
    let status = if errors.is_empty() { format_ident!("ok") } else { format_ident!("failed") };
    let errors = errors.to_tokens();

    let name = &func.sig.ident;
    let unraw = name.to_string();
    let unraw = unraw.strip_prefix("r#").unwrap_or(&unraw);
    let hidden = format_ident!("__ptx_device_{}", unraw, span = Span::call_site());
    let cfgs: Vec<&syn::Attribute> = func.attrs.iter().filter(|a| a.path().is_ident("cfg")).collect();
    // A `macro_rules!` can be re-exported no further than the crate.
    let vis = match &func.vis {
        syn::Visibility::Public(_) => quote!(pub(crate)),
        other => quote!(#other),
    };
    let (sig, block) = (&func.sig, &func.block);
    quote! {
        #errors
        #func
        #(#cfgs)*
        #[doc(hidden)]
        macro_rules! #hidden {
            ([$($callback:tt)*] $($rest:tt)*) => {
                $($callback)*! { [#status #sig #block] $($rest)* }
            };
        }
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis use #hidden as #name;
    }
}
