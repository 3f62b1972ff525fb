//! The items generated for a kernel: the struct named after it (fields = `#[comptime]`
//! parameters), `new`, the typed `launch`, the `build` function holding the lowered body,
//! and `impl Kernel`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use crate::ast::{KernelFn, ParamKind, Scalar};
use crate::check::Checked;
use crate::lower::{binder, ctx, host_type, lang_scalar, lower_body};

/// The attribute's options: `#[ptx_kernel(unchecked, crate = path)]`.
pub struct Options {
    /// No bounds checks; `launch` is `unsafe`.
    pub unchecked: bool,
    /// The path of the facade crate.
    pub krate: TokenStream,
}

impl Default for Options {
    fn default() -> Options {
        Options { unchecked: false, krate: quote!(::ptx_dsl) }
    }
}

/// Parses the attribute's arguments. Each mistake is an error at the option that has it,
/// saying which forms the attribute takes (syn's own errors, such as "expected `,`", say
/// neither what is wrong nor what to write).
pub fn parse_options(attr: TokenStream) -> syn::Result<Options> {
    const FORMS: &str = "`#[ptx_kernel]` takes `unchecked` and `crate = path`";
    let mut options = Options::default();
    let (mut unchecked, mut krate) = (false, false);
    // Whether the error is one of the closure's own, which say what to write.
    let mut ours = false;
    let parser = syn::meta::parser(|meta| {
        let takes_value = meta.input.peek(syn::Token![=]);
        let ends = meta.input.is_empty() || meta.input.peek(syn::Token![,]);
        if meta.path.is_ident("unchecked") {
            if !ends {
                ours = true;
                return Err(meta.error("`unchecked` takes no value: write `#[ptx_kernel(unchecked)]`"));
            }
            if std::mem::replace(&mut unchecked, true) {
                ours = true;
                return Err(meta.error("`unchecked` is given twice: write it once"));
            }
            options.unchecked = true;
            Ok(())
        } else if meta.path.is_ident("crate") {
            if !takes_value {
                ours = true;
                return Err(meta.error(
                    "`crate` takes the path of the `ptx_dsl` crate as this crate names it: `crate = my_ptx_dsl`",
                ));
            }
            if std::mem::replace(&mut krate, true) {
                ours = true;
                return Err(meta.error("`crate` is given twice: write it once"));
            }
            let value = meta.value()?;
            if value.peek(syn::LitStr) {
                ours = true;
                let text: syn::LitStr = value.parse()?;
                return Err(syn::Error::new(
                    text.span(),
                    format!("the crate is a path, not a string: write `crate = {}`", text.value()),
                ));
            }
            let path: syn::Path = value.parse()?;
            options.krate = quote!(#path);
            Ok(())
        } else {
            ours = true;
            Err(meta.error(format!("unknown option: {FORMS}")))
        }
    });
    let parsed = syn::parse::Parser::parse2(parser, attr);
    parsed.map_err(|e| {
        // syn's message about the syntax gets what the attribute takes.
        if ours {
            e
        } else {
            syn::Error::new(e.span(), format!("{e}: {FORMS}"))
        }
    })?;
    Ok(options)
}

/// The facade's hidden module, `<krate>::__private`, spanned at the path's last token: a
/// `crate = path` naming another crate is reported at that path, not at the attribute.
pub fn private_path(krate: &TokenStream) -> TokenStream {
    let span = krate.clone().into_iter().last().map_or_else(Span::call_site, |t| t.span());
    let private = proc_macro2::Ident::new("__private", span);
    quote!(#krate::#private)
}

/// `snake_case` to `UpperCamelCase`.
pub fn camel_case(name: &str) -> String {
    let name = name.strip_prefix("r#").unwrap_or(name);
    name.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
        })
        .collect()
}

/// The generated items. `inlined` holds a path to each `#[ptx_device]` function the body
/// calls with the function pointer type of its signature; `definition` is a hash of the source the kernel is built from (part of its cache
/// key).
pub fn expand_kernel(
    kernel: &KernelFn,
    checked: &Checked,
    options: &Options,
    definition: u64,
    inlined: &[(syn::Path, TokenStream)],
) -> TokenStream {
    let krate = &options.krate;
    let p = private_path(krate);
    let k = ctx();
    let name_str = unraw(&kernel.name);
    let ty_name = format_ident!("{}", camel_case(&name_str), span = kernel.name.span());
    let vis = &kernel.vis;
    // An `#[expect(..)]` is an `#[allow(..)]` of the body: what the generated code never
    // triggers (`unused_mut`, `dead_code`) could not fulfil it.
    let is = |a: &syn::Attribute, names: &[&str]| names.iter().any(|n| a.path().is_ident(n));
    let attrs: Vec<&syn::Attribute> = kernel.attrs.iter().filter(|a| !is(a, &["expect"])).collect();
    let expect: Vec<TokenStream> = kernel
        .attrs
        .iter()
        .filter(|a| is(a, &["expect"]))
        .filter_map(|a| match &a.meta {
            syn::Meta::List(list) => {
                let lints = &list.tokens;
                Some(quote::quote_spanned!(a.pound_token.span=> #[allow(#lints)]))
            }
            _ => None,
        })
        .collect();
    // The function's `cfg` and the lint levels it sets (`#[allow(unused_variables)]`) are also
    // its body's, which is in the impls; the type's own `#[deprecated]` is no use of it there.
    let lints: Vec<&syn::Attribute> =
        attrs.iter().copied().filter(|a| is(a, &["cfg", "allow", "warn", "deny"])).collect();
    let deprecated =
        attrs.iter().any(|a| a.path().is_ident("deprecated")).then(|| quote!(#[allow(deprecated)]));
    let impl_attrs = quote!(#(#lints)* #deprecated);
    let checked_flag = !options.unchecked;

    let mut fields = Vec::new();
    let mut field_names = Vec::new();
    let mut field_keys = Vec::new();
    let mut declare = Vec::new();
    let mut launch_params = Vec::new();
    let mut launch_args = Vec::new();
    let mut lengths = Vec::new();
    for (index, param) in kernel.params.iter().enumerate() {
        let n = &param.name;
        let lints = &param.lints;
        let n_str = unraw(n);
        let b = binder(n);
        match param.kind {
            ParamKind::Comptime(s) => {
                let t = host_type(s);
                fields.push(quote!(#n: #t));
                field_names.push(n.clone());
                // Floats by their bits: `{:?}` prints every NaN alike, whatever its sign.
                field_keys.push(if s.is_float() || s.is_half() {
                    quote!(self.#n.to_bits())
                } else {
                    quote!(self.#n)
                });
                declare.push(quote!(#(#lints)* let #b: #t = self.#n;));
            }
            ParamKind::Scalar(s) => {
                let t = host_type(s);
                let scalar = format_ident!("{}", lang_scalar(s));
                declare.push(quote!(#(#lints)* let #b = #k.scalar_param(#n_str, #p::Scalar::#scalar);));
                launch_params.push(quote!(#n: #t));
                let passed = match s {
                    Scalar::U8 | Scalar::U16 | Scalar::Bool => quote!(#n as u32),
                    Scalar::I8 | Scalar::I16 => quote!(#n as i32),
                    Scalar::Usize => quote!(#n as u64),
                    Scalar::Isize => quote!(#n as i64),
                    _ => quote!(#n),
                };
                launch_args.push(quote!(#p::KernelArg::scalar(#passed)));
            }
            ParamKind::Slice { elem, mutable } => {
                // Half-precision data travels as `half::f16`/`half::bf16` values or as their
                // raw bits in `u16`s.
                let t = match elem {
                    Scalar::F16 => quote!(impl #p::F16Storage),
                    Scalar::Bf16 => quote!(impl #p::Bf16Storage),
                    _ => {
                        let t = host_type(elem);
                        quote!(#t)
                    }
                };
                let scalar = format_ident!("{}", lang_scalar(elem));
                // The length is loaded only where something reads it: the checks, `x.len()`.
                let with_len = checked_flag || checked.lengths_read.contains(&index);
                declare.push(
                    quote!(#(#lints)* let #b = #k.slice_param(#n_str, #p::Scalar::#scalar, #with_len);),
                );
                let len = format_ident!("{}_len", n, span = Span::mixed_site());
                if with_len {
                    lengths.push(quote!(let #len = #n.len() as u64;));
                }
                if mutable {
                    launch_params.push(quote!(#n: &mut #p::DeviceBuffer<#t>));
                    launch_args.push(quote!(#p::KernelArg::buffer_mut(#n)));
                } else {
                    launch_params.push(quote!(#n: &#p::DeviceBuffer<#t>));
                    launch_args.push(quote!(#p::KernelArg::buffer(#n)));
                }
                if with_len {
                    launch_args.push(quote!(#p::KernelArg::scalar(#len)));
                }
            }
            // Only `#[ptx_device]` functions take arrays and tuples (`Parser::device_signature`).
            ParamKind::Array { .. } | ParamKind::Tuple(_) => {}
        }
    }
    let body = lower_body(kernel, checked, krate);
    let device = proc_macro2::Ident::new("device", Span::mixed_site());
    let config = proc_macro2::Ident::new("config", Span::mixed_site());
    let kernel_copy = proc_macro2::Ident::new("kernel", Span::mixed_site());

    let launch_doc = format!(
        "Launches `{name_str}` on `device` over `config`, with the kernel's runtime parameters in \
         declaration order (`&[T]` as `&DeviceBuffer<T>`, `&mut [T]` as `&mut DeviceBuffer<T>`, \
         `f16` and `bf16` elements as `half::f16`/`half::bf16` or `u16` bits, scalars by value)."
    );
    // The two forms differ in their docs, `unsafe`, and the call; the signature is one.
    let (extra_docs, unsafety, lints, call) = if checked_flag {
        let docs = quote! {
            ///
            /// Slice accesses are bounds-checked: an out-of-range load reads 0, an
            /// out-of-range store is dropped, and the first one of the launch is reported as
            /// `Error::OutOfBounds` naming the parameter, index, length and Rust line — by
            /// this call on the simulator, by the next synchronising call (`synchronize`,
            /// `to_vec`) on CUDA, so that a launch never waits for the kernel.
        };
        // Sound: the arguments are the kernel's parameters, each slice followed by its own
        // length, and every access is checked against those lengths.
        let call = quote! {
            let #kernel_copy = *self;
            unsafe {
                #device.launch_checked(
                    self,
                    #config,
                    &mut [#(#launch_args),*],
                    ::std::boxed::Box::new(move || #kernel_copy.build_with_sites().1),
                )
            }
        };
        (docs, quote!(), quote!(clippy::too_many_arguments, non_snake_case), call)
    } else {
        let safety = "# Safety\n\nThe kernel was built with `#[ptx_kernel(unchecked)]`: its slice \
            accesses are not bounds-checked. The caller guarantees that every index the kernel \
            computes is below the length of the buffer it indexes, and that no integer division \
            by zero (or `MIN / -1`) happens, for every thread of `config`.";
        let docs = quote! {
            #[doc = ""]
            #[doc = #safety]
        };
        // The section is there; clippy does not read docs written by a proc macro.
        let lints =
            quote!(clippy::missing_safety_doc, clippy::too_many_arguments, unused_unsafe, non_snake_case);
        let call = quote!(unsafe { #device.launch(self, #config, &mut [#(#launch_args),*]) });
        (docs, quote!(unsafe), lints, call)
    };
    // Full-warp operations name all 32 lanes: a partial warp would leave them undefined.
    let warp_check = checked.uses_warps.then(|| {
        let reason = format!(
            "`{name_str}` uses warp operations (shuffles, votes, warp or block reductions, `sync_warp`), \
             which need whole warps: make the block's thread count a multiple of 32"
        );
        let threads = proc_macro2::Ident::new("threads", Span::mixed_site());
        // A configuration the device refuses is reported as such first: a block of
        // 2048 x 1024 x 1 threads is too large, whatever its count modulo 32.
        quote! {
            #config.validate_for(#name_str, &#device.limits(), 0)?;
            let #threads = #config.threads_per_block();
            if #threads % 32 != 0 {
                return ::core::result::Result::Err(#p::Error::InvalidArgument {
                    argument: ::std::string::String::from("config"),
                    reason: ::std::format!("{} (the block {:?} has {} threads)", #reason, #config.block, #threads),
                });
            }
        }
    });
    let launch = quote! {
        #[doc = #launch_doc]
        #extra_docs
        #[allow(#lints)]
        #vis #unsafety fn launch(
            &self,
            #device: &#p::Device,
            #config: #p::LaunchConfig,
            #(#launch_params),*
        ) -> #p::Result<#p::LaunchReport> {
            #warp_check
            #(#lengths)*
            #call
        }
    };
    let new_doc = if field_names.is_empty() {
        "The kernel (it has no `#[comptime]` parameters).".to_string()
    } else {
        "The kernel with its `#[comptime]` parameters, in declaration order.".to_string()
    };
    // The module path and a hash of the definition (the kernel's and its device functions'
    // source) tell apart same-named kernels of different modules, or of different blocks of
    // one module, which share a PTX entry name and would otherwise share a module-cache slot.
    let definition = format!("{definition:016x}");
    // The constants it reads too: one text in two blocks may read two `TILE`s.
    let constants = &checked.item_const_paths;
    let count = constants.len();
    // Each value by itself: `Debug` is implemented for tuples of at most 12 elements.
    // A constant's key is its `Debug` text where it has one (`ConstantKey`): one of another
    // type is a type error of the user's anyway, which the key must not add to.
    let cache_key = quote!({
        #[allow(unused_imports)]
        use #p::{ByDebug as _, NoKey as _};
        ::std::format!(
            "{}#{}{:?}{:?}",
            ::core::module_path!(),
            #definition,
            &[#(&#field_keys as &dyn ::core::fmt::Debug),*] as &[&dyn ::core::fmt::Debug],
            { let keys: [::std::string::String; #count] = [#((&#p::ConstantKey(&#constants)).key()),*]; keys }
        )
    });
    // The generated type is public API of the user's crate: give it a doc line when the
    // function had none, for crates that deny `missing_docs`.
    let default_doc = (!attrs.iter().any(|a| a.path().is_ident("doc"))).then(|| {
        let text = format!("The GPU kernel `{name_str}` (`#[ptx_kernel]`).");
        quote!(#[doc = #text])
    });
    // The host functions of the device functions the body inlined count as used, as they
    // are when the body runs as plain Rust.
    // Each is also the function Rust calls there: a value of another signature shadowing
    // the device function (a plain `fn` of the name in a block) is a type error here.
    let uses = (!inlined.is_empty()).then(|| {
        let (paths, types): (Vec<_>, Vec<_>) = inlined.iter().cloned().unzip();
        quote!(#impl_attrs const _: () = { #(let _: #types = #paths;)* };)
    });
    // The type at the function's name: a second definition of its name (another kernel's
    // `k_2` beside `k2`, a `struct K` beside `fn k`) is reported there, not at the attribute.
    let ty = quote::quote_spanned! {kernel.name.span()=>
        #[derive(Clone, Copy, Debug, PartialEq)]
        #[allow(non_snake_case)]
        #vis struct #ty_name {
            #(#[allow(missing_docs)] pub #fields,)*
        }
    };
    quote! {
        #uses
        #(#attrs)*
        #default_doc
        #ty

        #impl_attrs
        #(#expect)*
        impl #ty_name {
            #[doc = #new_doc]
            #[allow(clippy::new_without_default, non_snake_case)]
            #vis const fn new(#(#fields),*) -> Self {
                Self { #(#field_names),* }
            }

            #launch

            /// Builds the kernel's IR, with the table of the places where it can fault.
            #[allow(unused_braces, clippy::all)]
            #vis fn build_with_sites(&self) -> (#p::KernelIr, ::std::vec::Vec<#p::FaultSite>) {
                let mut #k = #p::KernelCtx::new(#name_str, #checked_flag);
                #(#declare)*
                #k.begin_body();
                #body
                #k.finish()
            }
        }

        #impl_attrs
        impl #p::Kernel for #ty_name {
            fn name(&self) -> &str {
                #name_str
            }

            fn build(&self) -> #p::KernelIr {
                self.build_with_sites().0
            }

            fn cache_key(&self) -> ::std::string::String {
                #cache_key
            }

            /// The slice accesses not proven in range by a dominating guard
            /// (`if i < x.len()`, `for i in 0..x.len()`).
            fn bounds_checks(&self) -> usize {
                self.build_with_sites().1.iter().filter(|s| #p::is_bounds_check(s)).count()
            }
        }
    }
}

/// An identifier as PTX and the runtime's errors name it: without the `r#` of a raw
/// identifier (`r#type` is the parameter `type`).
pub(crate) fn unraw(name: &proc_macro2::Ident) -> String {
    name.to_string().trim_start_matches("r#").to_string()
}
