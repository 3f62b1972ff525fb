//! `#[ptx_device]`: a function that kernels call, written in the kernel language and
//! inlined into each kernel that calls it. The attribute keeps the function as it is (so
//! a kernel's body that calls it still runs as plain Rust on the host) and puts a hidden
//! `macro_rules!` of the same name beside it, which hands the function's tokens to a
//! kernel that asks for them ([`crate::chain`]). Rust's own name resolution finds that
//! macro wherever it finds the function: a `use` of the function imports both.
//!
//! A device function's own calls must resolve where it is defined, not where the kernel
//! is, and the kernel may know it only by an imported name. So the attribute also puts a
//! hidden module of the function's name beside it (modules and functions live in separate
//! namespaces, and a `use` of the name imports both) that re-exports everything its module
//! sees: the kernel fetches `f`'s callee `g` as `f::g`, which is the `g` of `f`'s module
//! wherever the kernel is. A callee by a longer path, `util::h`, is fetched through one
//! more hidden module inside it that re-exports `util`'s items ([`callee_module_name`]).

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
    /// What makes it itself whatever path reached it ([`identity`]), computed once.
    pub identity: String,
}

impl DeviceFn {
    /// The function `item`, and whether its attribute found mistakes in it.
    pub fn new(item: ItemFn, failed: bool) -> DeviceFn {
        let identity = identity(&item);
        DeviceFn { item, failed, identity }
    }
}

/// The device functions known to an expansion, in the order they were fetched, each under
/// the path that fetched it as written at the call ([`path_key`]): `m1::f` and `m2::f` are
/// two functions. One function may be known under several paths (`f` and `f::g::f`).
#[derive(Default)]
pub struct Devices {
    fns: Vec<(String, DeviceFn)>,
}

impl Devices {
    /// The device function fetched by the path `key`.
    pub fn get(&self, key: &str) -> Option<&DeviceFn> {
        self.fns.iter().find(|(k, _)| k == key).map(|(_, d)| d)
    }

    /// Adds one under `key` (the first for a key wins; the chain never fetches one twice).
    pub fn push(&mut self, key: String, device: DeviceFn) {
        if self.get(&key).is_none() {
            self.fns.push((key, device));
        }
    }

    /// All of them with their keys, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &DeviceFn)> {
        self.fns.iter().map(|(k, d)| (k.as_str(), d))
    }
}

/// The function pointer type of the device function `devices` holds under `path`
/// (`fn(f32, &[u32]) -> f32`, its lifetimes elided), or `_` when it holds none.
pub fn pointer_type(path: &syn::Path, devices: &Devices) -> TokenStream {
    let Some(device) = devices.get(&path_key(path)) else { return quote!(_) };
    let inputs = device.item.sig.inputs.iter().filter_map(|arg| match arg {
        syn::FnArg::Typed(pt) => {
            let mut ty = (*pt.ty).clone();
            if let syn::Type::Reference(r) = &mut ty {
                r.lifetime = None;
            }
            Some(ty)
        }
        syn::FnArg::Receiver(_) => None,
    });
    let output = &device.item.sig.output;
    quote!(fn(#(#inputs),*) #output)
}

/// What makes a device function itself whatever path reached it: where it is defined (the
/// position of its name, where spans carry positions) and its signature and body as text
/// (recursion is a function met again while it is being inlined; two functions of the same
/// text in two modules are two functions).
pub fn identity(item: &ItemFn) -> String {
    let (sig, block) = (&item.sig, &item.block);
    let name = sig.ident.span();
    let position = if proc_macro::is_available() {
        format!("{}:{}:{} ", name.file(), name.start().line, name.start().column)
    } else {
        String::new()
    };
    format!("{position}{}", quote!(#sig #block))
}

/// The hidden module, inside a device function's own hidden module, that re-exports the
/// items of `module`, the module part of a callee's path as written in the function
/// (`util` of `util::h`, `super` of `super::h`): `__ptx_mod_4util`. Each segment is written
/// after its length, so that two module paths never share a name.
pub fn callee_module_name(module: &[&syn::PathSegment], span: Span) -> syn::Ident {
    let mut name = String::from("__ptx_mod_");
    for segment in module {
        let text = segment.ident.to_string();
        let text = text.strip_prefix("r#").unwrap_or(&text);
        name.push_str(&format!("{}{text}", text.len()));
    }
    syn::Ident::new(&name, span)
}

/// A path as text, its segments joined by `::` (`config::TILE`): the key of the function a
/// call fetches, and how messages name a constant's path.
pub fn path_key(path: &syn::Path) -> String {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let lead = if path.leading_colon.is_some() { "::" } else { "" };
    format!("{lead}{}", segments.join("::"))
}

/// The expansion of `#[ptx_device]`: the function itself, the errors found in it, and the
/// macro that hands its tokens to kernels.
pub fn expand_device(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    if let Some(first) = attr.clone().into_iter().next() {
        errors.push(syn::Error::new(first.span(), "`#[ptx_device]` takes no arguments"));
    }
    let mut func: ItemFn = match syn::parse2(item.clone()) {
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
    func.attrs.retain(|a| match parse::stacked_attribute(a, "ptx_device") {
        Some(why) => {
            errors.push(syn::Error::new_spanned(a, why));
            false
        }
        None => true,
    });
    let unraw_name = func.sig.ident.to_string();
    if let Some(why) = parse::reserved_device_name(unraw_name.strip_prefix("r#").unwrap_or(&unraw_name)) {
        errors.push(syn::Error::new(func.sig.ident.span(), why));
    }
    // The function on its own: the language's syntax and the signature always; names and
    // types when it calls no other device function (one that does is checked in each kernel
    // that calls it, where all of them are known).
    let parsed = parse::parse_device(&func, &func.sig.ident.to_string(), &mut errors, &Devices::default());
    if parsed.unresolved.is_empty() && errors.is_empty() {
        check::check_device(&parsed.kernel, &mut errors);
    }
    let failed = !errors.is_empty();
    let status = if failed { format_ident!("failed") } else { format_ident!("ok") };
    let errors = errors.to_tokens();

    let name = &func.sig.ident;
    let unraw = name.to_string();
    let unraw = unraw.strip_prefix("r#").unwrap_or(&unraw);
    let hidden = format_ident!("__ptx_device_{}", unraw, span = Span::call_site());
    let cfgs: Vec<&syn::Attribute> = func.attrs.iter().filter(|a| a.path().is_ident("cfg")).collect();
    // The callees' modules, each re-exported from the module it names as seen from here
    // (two levels up: the helper module is inside the function's hidden module).
    let callee_modules = parsed.callee_modules.iter().map(|module| {
        let segments: Vec<&syn::PathSegment> = module.segments.iter().collect();
        let name = callee_module_name(&segments, Span::call_site());
        quote! {
            pub(crate) mod #name {
                pub(crate) use super::super::#module::*;
            }
        }
    });
    // What the function's calls name, as its module sees them (see the module docs). A
    // glob re-export never exposes more than its items allow. Only a function that calls
    // device functions has one, so that a leaf's name shadows no crate or module.
    let callees = (!parsed.unresolved.is_empty()).then(|| {
        quote! {
            #(#cfgs)*
            #[doc(hidden)]
            #[allow(unused_imports, non_snake_case, clippy::module_inception)]
            pub(crate) mod #name {
                pub(crate) use super::*;
                #(#callee_modules)*
            }
        }
    });
    let (sig, block) = (&func.sig, &func.block);
    // On the host, `#[unroll]` (a kernel-only loop attribute) is not an attribute rustc knows,
    // nor is a misplaced `#[comptime]` (reported above).
    let host = if failed {
        // The mistakes are reported above: the body, which rustc would report again (a
        // mismatched type twice), gives way to one that compiles, and the function's callers
        // still find it.
        let (attrs, vis) = (&func.attrs, &func.vis);
        quote! {
            #(#attrs)*
            #[allow(unused_variables, unused_mut, unreachable_code)]
            #vis #sig { ::core::unreachable!() }
        }
    } else {
        quote!(#func)
    };
    let host = strip_kernel_attributes(host);
    quote! {
        #errors
        #host
        #(#cfgs)*
        #[doc(hidden)]
        macro_rules! #hidden {
            ([$($callback:tt)*] $($rest:tt)*) => {
                $($callback)*! { [#status #sig #block] $($rest)* }
            };
        }
        // Crate-wide whatever the function's visibility, as a device function that calls a
        // private helper needs: a kernel elsewhere inlines the helper through this macro.
        // (The kernel names the functions it calls itself, so Rust still checks their
        // privacy there; a `macro_rules!` can be re-exported no further than the crate.)
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use #hidden as #name;
        #callees
    }
}

/// `tokens` without the attributes only kernels know, `#[unroll]` and `#[comptime]`, with or
/// without arguments (the host function's copy).
fn strip_kernel_attributes(tokens: TokenStream) -> TokenStream {
    use proc_macro2::{Delimiter, Group, TokenTree};
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    let mut i = 0;
    while i < trees.len() {
        if let (TokenTree::Punct(p), Some(TokenTree::Group(g))) = (&trees[i], trees.get(i + 1)) {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            if p.as_char() == '#'
                && g.delimiter() == Delimiter::Bracket
                && matches!(inner.as_slice(), [TokenTree::Ident(id), ..] if id == "unroll" || id == "comptime")
            {
                i += 2;
                continue;
            }
        }
        out.push(match &trees[i] {
            TokenTree::Group(g) => {
                let mut new = Group::new(g.delimiter(), strip_kernel_attributes(g.stream()));
                new.set_span(g.span());
                TokenTree::Group(new)
            }
            other => other.clone(),
        });
        i += 1;
    }
    out.into_iter().collect()
}
