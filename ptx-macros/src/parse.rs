//! syn's syntax tree to the kernel AST ([`crate::ast`]). syn is the parser, not the model:
//! this module keeps what the language supports and reports everything else at its own
//! span, saying what to write instead. It never stops at the first error.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{FnArg, Ident, ItemFn, ReturnType};

pub(crate) mod panics;

use crate::ast::*;
use crate::device::{identity, path_key, Devices};
use crate::errors::Errors;

/// A parsed function with the calls it makes to functions `devices` does not hold yet
/// (each a `#[ptx_device]` function as far as the parser knows: [`crate::chain`] fetches
/// them, or rustc reports the name).
pub struct Parsed {
    /// The function as the kernel AST.
    pub kernel: KernelFn,
    /// The paths of the calls to functions not yet known, in source order.
    pub unresolved: Vec<syn::Path>,
    /// A path to each device function the function itself calls (the first call's).
    pub inlined: Vec<syn::Path>,
    /// The module parts of the function's own calls by relative paths of two or more
    /// segments (`util` of `util::h(..)`), which a device function's hidden module
    /// re-exports ([`crate::device`]).
    pub callee_modules: Vec<syn::Path>,
}

/// Parses the function the attribute is on, inlining the calls to the `#[ptx_device]`
/// functions in `devices`. Errors go to `errors`; the result is `None` only when the item
/// is not a function at all.
pub fn parse_kernel(item: TokenStream, errors: &mut Errors, devices: &Devices) -> Option<Parsed> {
    let func: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            errors.push(not_a_function(item, &e, "#[ptx_kernel]", "pub fn name(x: &[f32], ..) { .. }"));
            return None;
        }
    };
    let mut p = Parser::new(errors, devices, func.sig.ident.to_string());
    let returns = p.signature(&func);
    let attrs = p.item_attrs(&func.attrs);
    let (mut params, mut rejected) = (Vec::new(), Vec::new());
    for arg in &func.sig.inputs {
        match p.param(arg) {
            Some(param) => params.push(param),
            None => rejected.extend(arg_names(arg)),
        }
    }
    let mut body = p.block(&func.block);
    if returns {
        // The value the body ends in is the rejected return type's, reported with it: it is
        // checked as a statement, not reported again as a value a kernel cannot give.
        if let Some(tail) = body.tail.take() {
            let text = std::mem::take(&mut body.tail_text);
            body.stmts.push(Stmt::Expr { expr: *tail, text, discards: true });
        }
    }
    let name = func.sig.ident.clone();
    let kernel = KernelFn {
        attrs,
        vis: func.vis.clone(),
        name,
        params,
        rejected,
        body,
        expr_count: 0,
        ord_calls: Vec::new(),
        elements: Vec::new(),
        pattern_names: Vec::new(),
        item_paths: Vec::new(),
    };
    Some(p.finish(kernel))
}

/// `min` or `max` when `path` names `std::cmp::min`/`max` as code names them: `std::cmp::min`,
/// `core::cmp::min`, `cmp::min` (with `use std::cmp;`), `min` (with `use std::cmp::min;`),
/// `Ord::min` or `std::cmp::Ord::min`.
fn ord_function(path: &syn::Path) -> Option<&syn::Ident> {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let last = &path.segments.last()?.ident;
    if last != "min" && last != "max" {
        return None;
    }
    let module = names[..names.len() - 1].iter().map(String::as_str).collect::<Vec<_>>();
    let named = matches!(
        module.as_slice(),
        [] | ["std" | "core", "cmp"] | ["cmp"] | ["Ord"] | ["std" | "core", "cmp", "Ord"] | ["cmp", "Ord"]
    );
    named.then_some(last)
}

/// The error for an attribute's item that does not parse as a function (`e`, syn's error):
/// another kind of item gets the function `form` the attribute takes; a function that is not
/// valid Rust (`j++`, which rustc has reported in its own words) gets syn's reason.
pub fn not_a_function(item: TokenStream, e: &syn::Error, attribute: &str, form: &str) -> syn::Error {
    let message = match syn::parse2::<syn::Item>(item) {
        Ok(_) => format!("{attribute} goes on a function: `{form}` ({e})"),
        Err(_) => format!("{attribute} cannot read this function, which is not valid Rust: {e}"),
    };
    syn::Error::new(e.span(), message)
}

/// Parses a `#[ptx_device]` function on its own (`key`: the path a kernel fetched it by, which
/// places its own calls), as a kernel whose parameters are its parameters (scalars and
/// slices) and whose body is `let _: R = { body };` (so that the body is checked against the
/// return type `R`), inlining the calls to the device functions in `devices`.
pub fn parse_device(func: &ItemFn, key: &str, errors: &mut Errors, devices: &Devices) -> Parsed {
    let name = func.sig.ident.to_string();
    let mut p = Parser::new(errors, devices, name);
    let (params, ret) = p.device_signature(func);
    p.inlining.push(Inlining {
        key: key.to_string(),
        identity: identity(func),
        name: func.sig.ident.to_string(),
    });
    let mut body = p.block(&func.block);
    body.function_body = true;
    let span = body.span;
    let init = p.expr_of(ExprKind::Block(body), span);
    let role = LetRole::Result { function: func.sig.ident.to_string() };
    let check = Stmt::Let { pat: Pat::Wild, ty: Some(ret), init, span, text: String::new(), role };
    let body = Block { stmts: vec![check], tail: None, tail_text: String::new(), function_body: false, span };
    let kernel = KernelFn {
        attrs: Vec::new(),
        vis: syn::Visibility::Inherited,
        name: func.sig.ident.clone(),
        params,
        rejected: Vec::new(),
        body,
        expr_count: 0,
        ord_calls: Vec::new(),
        elements: Vec::new(),
        pattern_names: Vec::new(),
        item_paths: Vec::new(),
    };
    p.finish(kernel)
}

struct Parser<'e> {
    errors: &'e mut Errors,
    /// The calls of `std::cmp::min`/`max` ([`KernelFn::ord_calls`]).
    ord_calls: Vec<(usize, syn::Path)>,
    /// The elements `for` loops bind ([`KernelFn::elements`]).
    elements: Vec<Element>,
    /// The names patterns compare with ([`KernelFn::pattern_names`]).
    pattern_names: Vec<usize>,
    /// The constant arrays indexed by a path ([`KernelFn::item_paths`]).
    item_paths: Vec<(usize, syn::Path)>,
    next_id: usize,
    kernel_name: String,
    /// The `#[ptx_device]` functions known so far.
    devices: &'e Devices,
    /// The device functions being inlined, outermost first (a call of one of them again is
    /// recursion).
    inlining: Vec<Inlining>,
    /// Calls of functions not in `devices`.
    unresolved: Vec<syn::Path>,
    /// A path to each device function the function itself calls.
    inlined: Vec<syn::Path>,
    /// See [`Parsed::callee_modules`].
    callee_modules: Vec<syn::Path>,
    /// Recursion found while inlining: reported with the function's errors however deep
    /// the cycle was found (an inlined function's own errors are not).
    cycles: Errors,
    /// The loops and labelled blocks around the expression being parsed, innermost last:
    /// each one's label, and whether it is a block (which `continue` cannot name and an
    /// unlabelled `break` or `continue` cannot leave, as in Rust).
    jump_scopes: Vec<(Option<String>, bool)>,
    /// Parameters refused for being references to scalars (`s: &mut f32`): dereferencing
    /// one (`*s = ..`) is that mistake again, not reported twice.
    refused_references: Vec<Ident>,
    /// Whether the expression parsed next is a statement of its block (its last one
    /// included), where rustc takes lint levels on a block-like expression.
    statement_next: bool,
}

/// How many times a device function of one identity may be inlined inside itself before
/// it is recursion ([`Parser::device_call`]).
const SAME_FUNCTION_DEPTH: usize = 4;

/// A device function being inlined.
struct Inlining {
    /// The path that fetched it ([`crate::device::path_key`]), which places its calls.
    key: String,
    /// What it is whatever the path ([`identity`]).
    identity: String,
    /// Its name, for messages.
    name: String,
}

/// Names of macros every kernel sees (Rust's prelude and ptx-dsl's): a call of one of these
/// names is an unknown function, never fetched as a device function.
const NOT_DEVICE_FUNCTIONS: [&str; 42] = [
    "asm",
    "assert",
    "assert_eq",
    "assert_ne",
    "cfg",
    "column",
    "compile_error",
    "concat",
    "concat_idents",
    "const_format_args",
    "dbg",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "env",
    "eprint",
    "eprintln",
    "file",
    "format",
    "format_args",
    "global_asm",
    "gpu_print",
    "include",
    "include_bytes",
    "include_str",
    "line",
    "log_syntax",
    "matches",
    "module_path",
    "naked_asm",
    "option_env",
    "panic",
    "print",
    "println",
    "stringify",
    "thread_local",
    "todo",
    "trace_macros",
    "unimplemented",
    "unreachable",
    "vec",
    "write",
];

/// The error for an assignment to what is no place.
const NOT_A_PLACE: &str =
    "only a local variable, an element of a slice or array (`out[i]`) or of a tuple variable (`t.0`) can be assigned";

/// CUDA C's names of what kernels call by other names, for the error at a call of one.
const CUDA_NAMES: [(&str, &str); 63] = [
    ("threadIdx", "thread_idx()"),
    ("blockIdx", "block_idx()"),
    ("blockDim", "block_dim()"),
    ("gridDim", "grid_dim()"),
    ("warpSize", "warp_size()"),
    ("__syncthreads", "sync_threads()"),
    ("syncthreads", "sync_threads()"),
    ("__syncwarp", "sync_warp()"),
    ("__threadfence", "thread_fence()"),
    ("__threadfence_block", "thread_fence_block()"),
    ("__shfl_sync", "shfl_idx(v, lane)"),
    ("__shfl_xor_sync", "shfl_xor(v, mask)"),
    ("__shfl_down_sync", "shfl_down(v, delta)"),
    ("__shfl_up_sync", "shfl_up(v, delta)"),
    ("__ballot_sync", "ballot(b)"),
    ("__any_sync", "any(b)"),
    ("__all_sync", "all(b)"),
    ("atomicAdd", "atomic_add(&mut x[i], v)"),
    ("atomicMin", "atomic_min(&mut x[i], v)"),
    ("atomicMax", "atomic_max(&mut x[i], v)"),
    ("atomicExch", "atomic_exch(&mut x[i], v)"),
    ("atomicCAS", "atomic_cas(&mut x[i], current, new)"),
    ("atomicSub", "atomic_add(&mut x[i], v.wrapping_neg())"),
    ("atomicAnd", "atomic_and(&mut x[i], v)"),
    ("atomicOr", "atomic_or(&mut x[i], v)"),
    ("atomicXor", "atomic_xor(&mut x[i], v)"),
    ("atomicInc", "atomic_cas(&mut x[i], old, new)"),
    ("atomicDec", "atomic_cas(&mut x[i], old, new)"),
    ("printf", "gpu_print!(\"{}\", x)"),
    ("fminf", "a.min(b)"),
    ("fmaxf", "a.max(b)"),
    ("fabsf", "x.abs()"),
    ("sqrtf", "x.sqrt()"),
    ("rsqrtf", "x.sqrt().recip()"),
    ("expf", "x.exp()"),
    ("__expf", "x.exp()"),
    ("exp2f", "x.exp2()"),
    ("logf", "x.ln()"),
    ("__logf", "x.ln()"),
    ("log2f", "x.log2()"),
    ("sinf", "x.sin()"),
    ("__sinf", "x.fast_sin()"),
    ("cosf", "x.cos()"),
    ("__cosf", "x.fast_cos()"),
    ("sincosf", "let (s, c) = x.sin_cos();"),
    ("tanhf", "x.tanh()"),
    ("powf", "x.powf(y)"),
    ("floorf", "x.floor()"),
    ("ceilf", "x.ceil()"),
    ("roundf", "x.round()"),
    ("truncf", "x.trunc()"),
    ("fmaf", "a.mul_add(b, c)"),
    ("__fdividef", "a / b"),
    ("__frcp_rn", "x.recip()"),
    ("__float2int_rn", "x.round_ties_even() as i32"),
    ("__float2int_rz", "x as i32"),
    ("__int2float_rn", "i as f32"),
    ("__popc", "x.count_ones()"),
    ("__popcll", "x.count_ones()"),
    ("__clz", "x.leading_zeros()"),
    ("__clzll", "x.leading_zeros()"),
    ("__brev", "x.reverse_bits()"),
    ("__ldg", "x[i]"),
];

/// What a kernel writes for CUDA C's `name` (`threadIdx`: `thread_idx()`), if it is one.
pub fn cuda_name(name: &str) -> Option<&'static str> {
    CUDA_NAMES.iter().find(|(cuda, _)| *cuda == name).map(|(_, ours)| *ours)
}

/// The functions that declare shared arrays.
const SHARED_FUNCTIONS: [&str; 2] = ["shared", "shared_dyn"];

/// The vector accesses: name, elements moved, whether it stores.
const VECTOR_ACCESSES: [(&str, usize, bool); 6] = [
    ("load2", 2, false),
    ("load4", 4, false),
    ("load8", 8, false),
    ("store2", 2, true),
    ("store4", 4, true),
    ("store8", 8, true),
];

/// Why a `#[ptx_device]` function cannot be named `name`: a kernel's call of that name is
/// a built-in or a macro of Rust's prelude, never the function.
pub fn reserved_device_name(name: &str) -> Option<String> {
    if is_builtin(name) {
        Some(format!("`{name}` is a GPU built-in: a kernel's `{name}(..)` calls the built-in, not this function; rename it"))
    } else if name == "min" || name == "max" {
        Some(format!(
            "a kernel's `{name}(a, b)` is `std::cmp::{name}` (imported with `use std::cmp::{name};`), never this \
             function; rename it"
        ))
    } else if NOT_DEVICE_FUNCTIONS.contains(&name) {
        Some(format!("`{name}` is the name of a macro every kernel sees (`{name}!`), which kernels cannot tell from this function; rename it"))
    } else {
        None
    }
}

/// Whether `name` is a GPU built-in of `ptx_dsl::gpu` a kernel calls by that name.
fn is_builtin(name: &str) -> bool {
    Builtin::ALL.iter().any(|b| b.name() == name)
        || Intrinsic::ALL.iter().any(|i| i.name() == name)
        || AtomicOp::ALL.iter().any(|o| o.name() == name)
        || SHARED_FUNCTIONS.contains(&name)
        || VECTOR_ACCESSES.iter().any(|(f, ..)| *f == name)
}

/// The error for `Option`'s and `Result`'s values in a kernel.
const NO_OPTION: &str = "kernels have no `Option` or `Result`: keep a `bool` beside the value \
                         (`let (found, v) = (true, x);`), or use a value that cannot occur as the mark";

/// The attributes a kernel may carry over to its generated type.
const CARRIED_ATTRS: [&str; 7] = ["doc", "cfg", "allow", "expect", "warn", "deny", "deprecated"];

/// The constants of the modules `std::f32::consts` and `std::f64::consts` (`PI` and friends).
const FLOAT_CONSTS: [&str; 18] = [
    "PI",
    "TAU",
    "E",
    "SQRT_2",
    "FRAC_1_SQRT_2",
    "LN_2",
    "LN_10",
    "LOG2_E",
    "LOG2_10",
    "LOG10_E",
    "LOG10_2",
    "FRAC_PI_2",
    "FRAC_PI_3",
    "FRAC_PI_4",
    "FRAC_PI_6",
    "FRAC_PI_8",
    "FRAC_1_PI",
    "FRAC_2_PI",
];

/// Associated constants of the float types.
const FLOAT_ASSOC: [&str; 7] = ["MAX", "MIN", "EPSILON", "INFINITY", "NEG_INFINITY", "NAN", "MIN_POSITIVE"];

/// The `u32` constants that describe a float type's format (`f32::MANTISSA_DIGITS` is 24).
const FLOAT_FORMAT_ASSOC_U32: [&str; 3] = ["RADIX", "MANTISSA_DIGITS", "DIGITS"];

/// The `i32` ones (`f32::MAX_EXP` is 128).
const FLOAT_FORMAT_ASSOC_I32: [&str; 4] = ["MIN_EXP", "MAX_EXP", "MIN_10_EXP", "MAX_10_EXP"];
/// The `half` crate's constants of `f16` and `bf16` of their own type (its integer ones,
/// `DIGITS` and the like, are constants of the surrounding code, typed by their use).
const HALF_ASSOC: [&str; 31] = [
    "EPSILON",
    "INFINITY",
    "MAX",
    "MIN",
    "MIN_POSITIVE",
    "NAN",
    "NEG_INFINITY",
    "MIN_POSITIVE_SUBNORMAL",
    "MAX_SUBNORMAL",
    "ONE",
    "ZERO",
    "NEG_ZERO",
    "NEG_ONE",
    "E",
    "PI",
    "FRAC_1_PI",
    "FRAC_1_SQRT_2",
    "FRAC_2_PI",
    "FRAC_2_SQRT_PI",
    "FRAC_PI_2",
    "FRAC_PI_3",
    "FRAC_PI_4",
    "FRAC_PI_6",
    "FRAC_PI_8",
    "LN_10",
    "LN_2",
    "LOG10_E",
    "LOG10_2",
    "LOG2_E",
    "LOG2_10",
    "SQRT_2",
];

impl<'e> Parser<'e> {
    fn new(errors: &'e mut Errors, devices: &'e Devices, kernel_name: String) -> Parser<'e> {
        Parser {
            errors,
            next_id: 0,
            kernel_name,
            devices,
            inlining: Vec::new(),
            unresolved: Vec::new(),
            inlined: Vec::new(),
            callee_modules: Vec::new(),
            cycles: Errors::default(),
            jump_scopes: Vec::new(),
            refused_references: Vec::new(),
            statement_next: false,
            ord_calls: Vec::new(),
            elements: Vec::new(),
            pattern_names: Vec::new(),
            item_paths: Vec::new(),
        }
    }

    fn finish(self, mut kernel: KernelFn) -> Parsed {
        kernel.expr_count = self.next_id;
        kernel.ord_calls = self.ord_calls;
        kernel.elements = self.elements;
        kernel.pattern_names = self.pattern_names;
        kernel.item_paths = self.item_paths;
        self.errors.extend(self.cycles);
        Parsed {
            kernel,
            unresolved: self.unresolved,
            inlined: self.inlined,
            callee_modules: self.callee_modules,
        }
    }

    /// Whether `e` names a parameter refused for being a reference to a scalar.
    fn names_refused_reference(&self, e: &syn::Expr) -> bool {
        match crate::desugar::unparen(e) {
            syn::Expr::Path(p) => p.path.get_ident().is_some_and(|i| self.refused_references.contains(i)),
            _ => false,
        }
    }

    fn id(&mut self) -> usize {
        self.next_id += 1;
        self.next_id - 1
    }

    fn expr_of(&mut self, kind: ExprKind, span: Sp) -> Expr {
        Expr { kind, span, id: self.id() }
    }

    fn err(&mut self, node: &impl ToTokens, message: impl std::fmt::Display) {
        self.errors.at(Sp::of(node), message);
    }

    // ----- the function -----------------------------------------------------------------

    /// Checks a kernel's signature; whether it has a return type (reported).
    fn signature(&mut self, f: &ItemFn) -> bool {
        let sig = &f.sig;
        self.require_ptx_name(&sig.ident, "kernel");
        let reserved = match sig.ident.to_string().trim_start_matches("r#") {
            "WARP_SZ" => Some("PTX's predefined warp-size constant"),
            "vprintf" => Some("the function `gpu_print!` calls in the PTX"),
            _ => None,
        };
        if let Some(what) = reserved {
            self.err(
                &sig.ident,
                format!("`{}` is {what}, which a kernel cannot be named: rename it", sig.ident),
            );
        }
        if let Some(t) = &sig.constness {
            self.err(t, "a kernel cannot be a `const fn`: remove `const`");
        }
        if let Some(t) = &sig.asyncness {
            self.err(t, "a kernel cannot be `async`: remove `async` (launches are already asynchronous)");
        }
        if let syn::Safety::Unsafe(t) = &sig.safety {
            self.err(
                t,
                "write `#[ptx_kernel(unchecked)]` instead of `unsafe fn`: it removes the bounds checks \
                 and makes `launch` an `unsafe fn`",
            );
        }
        if let Some(abi) = &sig.abi {
            self.err(abi, "a kernel cannot have an `extern` ABI: remove it (the PTX entry is generated)");
        }
        // A `where` clause is not among `Generics`' tokens: it has its own span and error.
        if !sig.generics.params.is_empty() {
            self.err(
                &sig.generics,
                "kernels cannot be generic: use `#[comptime]` parameters for values known when the kernel is built",
            );
        } else if let Some(w) = &sig.generics.where_clause {
            self.err(w, "a kernel cannot have a `where` clause (kernels are not generic): remove it");
        } else {
            // With no generics, the only lifetimes are `'static` and `'_` (the kernel's own
            // function is not emitted, so rustc never sees another).
            for arg in &sig.inputs {
                let FnArg::Typed(syn::PatType { ty, .. }) = arg else { continue };
                let syn::Type::Reference(syn::TypeReference { lifetime: Some(l), .. }) = &**ty else {
                    continue;
                };
                if l.ident != "static" && l.ident != "_" {
                    self.err(
                        l,
                        format!(
                            "use of undeclared lifetime name `{l}`: a kernel's slice parameters need no \
                             lifetime (`x: &[f32]`)"
                        ),
                    );
                }
            }
        }
        if let Some(v) = &sig.variadic {
            self.err(v, "kernels cannot be variadic");
        }
        if let ReturnType::Type(_, ty) = &sig.output {
            if !is_unit(ty) {
                self.err(
                    ty,
                    "kernels return nothing: remove the return type and write results into a `&mut [T]` parameter",
                );
                return true;
            }
        }
        false
    }

    fn item_attrs(&mut self, attrs: &[syn::Attribute]) -> Vec<syn::Attribute> {
        let mut kept = Vec::new();
        for a in attrs {
            if let Some(why) = stacked_attribute(a, "ptx_kernel") {
                self.err(a, why);
            } else if CARRIED_ATTRS.iter().any(|name| a.path().is_ident(name)) {
                // An inner attribute of the body (`#![allow(..)]`) is the function's, as
                // an outer one is.
                let mut a = a.clone();
                a.style = syn::AttrStyle::Outer;
                kept.push(a);
            } else {
                self.err(a, "this attribute is not supported on a kernel (only doc comments, `cfg`, the lint levels `allow`, `expect`, `warn` and `deny`, and `deprecated` carry over to the generated type)");
            }
        }
        kept
    }

    /// A name the PTX carries (the kernel's, a runtime parameter's) must be ASCII, as PTX
    /// identifiers are.
    fn require_ptx_name(&mut self, name: &Ident, what: &str) {
        let text = name.to_string();
        if !text.is_ascii() {
            self.err(
                name,
                format!("a {what} name becomes a PTX identifier, which is ASCII: rename `{text}` (letters a-z, A-Z, digits and `_`)"),
            );
        }
    }

    fn param(&mut self, arg: &FnArg) -> Option<Param> {
        let pt = match arg {
            FnArg::Receiver(r) => {
                self.err(r, "kernels are free functions: remove the `self` parameter");
                return None;
            }
            FnArg::Typed(pt) => pt,
        };
        let mut comptime = false;
        let mut lints = Vec::new();
        for a in &pt.attrs {
            if a.path().is_ident("comptime") {
                if a.meta.require_path_only().is_err() {
                    self.err(a, "`#[comptime]` takes no arguments");
                }
                comptime = true;
            } else if is_lint_or_tool_attribute(a) {
                // The parameter's own lint level, for rustc's lint of unused variables.
                lints.push(a.clone());
            } else {
                self.err(
                    a,
                    "a kernel parameter takes `#[comptime]`, the lint levels (`#[allow(unused_variables)]`) \
                     and tools' attributes",
                );
            }
        }
        let (name, mutability) = match &*pt.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                (pi.ident.clone(), pi.mutability)
            }
            syn::Pat::Wild(w) => {
                self.err(
                    w,
                    "a kernel parameter needs a name (it names the argument of `launch`): write `_unused: T`",
                );
                return None;
            }
            other => {
                self.err(other, "a kernel parameter must be a plain name (`x: &[f32]`), not a pattern");
                return None;
            }
        };
        let Some(kind) = self.param_type(&pt.ty, comptime) else {
            if matches!(&*pt.ty, syn::Type::Reference(_)) {
                self.refused_references.push(name);
            }
            return None;
        };
        if !comptime {
            self.require_ptx_name(&name, "parameter");
        }
        if let Some(m) = &mutability {
            match kind {
                ParamKind::Slice { .. } => self.err(
                    m,
                    "a slice parameter cannot be `mut`: remove it (`&mut [T]` is what lets the kernel write \
                     the elements)",
                ),
                ParamKind::Comptime(_) => self.err(
                    m,
                    "a `#[comptime]` parameter cannot be `mut`: copy it into a local to change it \
                     (`let mut x = x;`)",
                ),
                // `param_type` gives kernels no array or tuple parameters.
                ParamKind::Scalar(_) | ParamKind::Array { .. } | ParamKind::Tuple(_) => {}
            }
        }
        // A `mut` refused above still counts, so that its assignments are not reported again.
        let mutable = mutability.is_some() && matches!(kind, ParamKind::Scalar(_) | ParamKind::Comptime(_));
        Some(Param { name, kind, mutable, lints })
    }

    fn param_type(&mut self, ty: &syn::Type, comptime: bool) -> Option<ParamKind> {
        const HINT: &str = "parameters are `&[T]` (read), `&mut [T]` (read and write), a scalar `T` by value, \
                            or `#[comptime] name: T`, with T one of u8 i8 u16 i16 u32 i32 u64 i64 usize isize f32 f64 \
                            bool (and slices of f16 and bf16)";
        match ty {
            syn::Type::Paren(p) => self.param_type(&p.elem, comptime),
            syn::Type::Group(g) => self.param_type(&g.elem, comptime),
            syn::Type::Reference(r) => {
                if comptime {
                    self.err(r, "a `#[comptime]` parameter is a scalar baked into the PTX, not a slice");
                    return None;
                }
                let syn::Type::Slice(s) = &*r.elem else {
                    let msg = match &*r.elem {
                        syn::Type::Reference(_) => {
                            "a reference to a reference is not supported: write `&[T]` or `&mut [T]`"
                                .to_string()
                        }
                        other if self.scalar_of(other).is_some() => format!(
                            "pass scalars by value (`x: {}`), not by reference{}",
                            other.to_token_stream(),
                            if r.mutability.is_some() {
                                format!(
                                    "; a kernel gives results through a slice (`out: &mut [{}]`, written \
                                     `out[0] = ..`)",
                                    other.to_token_stream()
                                )
                            } else {
                                String::new()
                            }
                        ),
                        other => match collection_element(other) {
                            Some(elem) => format!(
                                "a kernel takes a slice: write `&{}[{}]`",
                                if r.mutability.is_some() { "mut " } else { "" },
                                elem.to_token_stream()
                            ),
                            None => format!("unsupported parameter type; {HINT}"),
                        },
                    };
                    self.err(r, msg);
                    return None;
                };
                let Some(elem) = self.scalar_of(&s.elem) else {
                    let message = format!(
                        "unsupported slice element type: slices hold one of u8 i8 u16 i16 u32 i32 u64 i64 \
                         f32 f64 f16 bf16 (`&[T]` to read, `&mut [T]` to read and write){}",
                        unseen_alias(&s.elem)
                    );
                    self.err(&s.elem, message);
                    return None;
                };
                if elem == Scalar::Bool {
                    self.err(&s.elem, "slices of `bool` are not supported: use `&[u8]` with 0 and 1");
                    return None;
                }
                Some(ParamKind::Slice { elem, mutable: r.mutability.is_some() })
            }
            syn::Type::Slice(s) => {
                self.err(s, "a slice parameter is passed by reference: write `&[T]` or `&mut [T]`");
                None
            }
            syn::Type::Ptr(p) => {
                self.err(
                    p,
                    "raw pointers are not supported: write `&[T]` or `&mut [T]`, which are bounds-checked",
                );
                None
            }
            syn::Type::Tuple(t) => {
                self.err(t, "tuple parameters are not supported: pass each value as its own parameter");
                None
            }
            syn::Type::Array(a) => {
                self.err(a, "array parameters are not supported: pass a `&[T]` slice");
                None
            }
            other => match self.scalar_of(other) {
                Some(s) => Some(if comptime { ParamKind::Comptime(s) } else { ParamKind::Scalar(s) }),
                None => {
                    let msg = match other {
                        syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Vec") => {
                            "`Vec` cannot be passed to a kernel: take a `&[T]` or `&mut [T]` (the launch takes a `DeviceBuffer<T>`)".to_string()
                        }
                        syn::Type::Path(p) if p.path.is_ident("String") || p.path.is_ident("str") => {
                            "strings cannot be passed to a kernel; use numbers".to_string()
                        }
                        _ => format!("unsupported parameter type; {HINT}{}", unseen_alias(other)),
                    };
                    self.err(other, msg);
                    None
                }
            },
        }
    }

    /// The scalar a type names, if it is one (a single-segment path without arguments).
    fn scalar_of(&self, ty: &syn::Type) -> Option<Scalar> {
        match ty {
            syn::Type::Path(p) if p.qself.is_none() => {
                // `u32`, or by the standard library's path, `core::primitive::u32`.
                let names: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                let name = match names.as_slice() {
                    [name] if p.path.leading_colon.is_none() => name,
                    [root, primitive, name]
                        if (root == "core" || root == "std") && primitive == "primitive" =>
                    {
                        name
                    }
                    // The `half` crate's types, which kernels' `f16` and `bf16` are, also as
                    // ptx-dsl re-exports it.
                    [krate, name] if krate == "half" && (name == "f16" || name == "bf16") => name,
                    [dsl, krate, name]
                        if dsl == "ptx_dsl" && krate == "half" && (name == "f16" || name == "bf16") =>
                    {
                        name
                    }
                    _ => return None,
                };
                let plain = p.path.segments.iter().all(|s| s.arguments.is_none());
                Scalar::from_name(name).filter(|_| plain)
            }
            syn::Type::Paren(p) => self.scalar_of(&p.elem),
            syn::Type::Group(g) => self.scalar_of(&g.elem),
            _ => None,
        }
    }

    fn type_annot(&mut self, ty: &syn::Type) -> Option<TypeAnnot> {
        match ty {
            syn::Type::Infer(_) => Some(TypeAnnot::Infer),
            syn::Type::Tuple(t) => {
                let elems: Option<Vec<_>> = t.elems.iter().map(|e| self.type_annot(e)).collect();
                elems.map(TypeAnnot::Tuple)
            }
            syn::Type::Paren(p) => self.type_annot(&p.elem),
            syn::Type::Array(a) => {
                let elem = self.type_annot(&a.elem)?;
                if !matches!(elem, TypeAnnot::Scalar(_) | TypeAnnot::Infer) {
                    self.err(&a.elem, "a local array holds scalars (`u32`, `f32`, ...)");
                    return None;
                }
                let Some(len) = literal_length(&a.len) else {
                    self.err(
                        &a.len,
                        "write the length in an array's type as an integer literal (`[f32; 4]`), or leave the \
                         type to the value (`let a = [0.0f32; N];`)",
                    );
                    return None;
                };
                Some(TypeAnnot::Array(Box::new(elem), len))
            }
            syn::Type::Reference(r) if matches!(&*r.elem, syn::Type::Slice(_)) && r.lifetime.is_none() => {
                let syn::Type::Slice(slice) = &*r.elem else { return None };
                match self.scalar_of(&slice.elem) {
                    Some(elem) if elem != Scalar::Bool => {
                        Some(TypeAnnot::Slice(elem, r.mutability.is_some()))
                    }
                    _ => {
                        self.err(
                            &slice.elem,
                            "a slice holds one of the element types of slice parameters (`&[f32]`)",
                        );
                        None
                    }
                }
            }
            other => match self.scalar_of(other) {
                Some(s) => Some(TypeAnnot::Scalar(s)),
                None => {
                    self.err(other, "a local's type is a scalar (u32, f32, bool, ...), a tuple of them, an array of scalars (`[f32; 4]`) or a slice (`&[f32]`)");
                    None
                }
            },
        }
    }

    // ----- statements -------------------------------------------------------------------

    fn block(&mut self, b: &syn::Block) -> Block {
        let mut stmts = Vec::new();
        let (mut tail, mut tail_text) = (None, String::new());
        let n = b.stmts.len();
        for (i, s) in b.stmts.iter().enumerate() {
            match s {
                syn::Stmt::Expr(e, None) if i + 1 == n => {
                    self.statement_next = true;
                    tail = Some(Box::new(self.expr(e)));
                    tail_text = source_text(e);
                }
                other => {
                    if let Some(stmt) = self.stmt(other) {
                        stmts.push(stmt);
                    }
                }
            }
        }
        // A `const` is in scope in its whole block, before it too (`x[0] = N; const N: u32 =
        // 2;`), where it shadows a constant of the surrounding code: the block's `const`s are
        // bound first (the sort is stable), each after the block's `const`s it reads.
        stmts.sort_by_key(|s| !matches!(s, Stmt::Let { role: LetRole::Const, .. }));
        let (order, cycles) = const_order(&b.stmts);
        for c in cycles {
            self.err(
                &c.ident,
                format!(
                    "the value of `const {}` depends on itself (a cycle among the block's `const`s), \
                     which Rust cannot evaluate",
                    c.ident
                ),
            );
        }
        let parsed_consts =
            stmts.iter().filter(|s| matches!(s, Stmt::Let { role: LetRole::Const, .. })).count();
        let order = if order.len() == parsed_consts { order } else { (0..parsed_consts).collect() };
        let mut consts: Vec<Option<Stmt>> = stmts.drain(..order.len()).map(Some).collect();
        let ordered: Vec<Stmt> = order.iter().filter_map(|&i| consts[i].take()).collect();
        stmts.splice(0..0, ordered);
        Block { stmts, tail, tail_text, function_body: false, span: Sp::of_span(b.brace_token.span.join()) }
    }

    fn stmt(&mut self, s: &syn::Stmt) -> Option<Stmt> {
        match s {
            syn::Stmt::Local(local) => self.local(local),
            // A `;` on its own (`a;;`), which syn gives as an empty expression: nothing, as in
            // Rust (its `redundant_semicolons` lint warns of it).
            syn::Stmt::Expr(syn::Expr::Verbatim(v), Some(_)) if v.is_empty() => None,
            syn::Stmt::Expr(e, semi) => {
                self.statement_next = true;
                let expr = self.expr(e);
                Some(Stmt::Expr { expr, text: source_text(s), discards: semi.is_some() })
            }
            syn::Stmt::Item(syn::Item::Const(c)) if c.generics.params.is_empty() => self.const_item(c),
            syn::Stmt::Item(item) => {
                self.err(
                    item,
                    "items (fn, struct, use, ...) cannot be declared inside a kernel (`const` can): pass values \
                     as parameters, or as `#[comptime]` parameters when they are known when the kernel is built",
                );
                None
            }
            syn::Stmt::Macro(m) if m.mac.path.is_ident("gpu_print") => {
                if let Some(a) = m.attrs.first() {
                    self.err(a, "attributes on `gpu_print!` are not supported in kernels");
                }
                let sp = Sp::of(&m.mac);
                let expr = self.print(&m.mac, sp);
                Some(Stmt::Expr { expr, text: source_text(s), discards: true })
            }
            syn::Stmt::Macro(m) => {
                let expr = self.panic_macro(&m.mac, Sp::of(&m.mac));
                if expr.is_none() {
                    self.macro_error(&m.mac);
                }
                expr.map(|expr| Stmt::Expr { expr, text: source_text(s), discards: true })
            }
        }
    }

    /// `gpu_print!("text {} more {}", a, b)`: Rust's format syntax with plain `{}`
    /// placeholders (and `{{`, `}}`).
    fn print(&mut self, mac: &syn::Macro, sp: Sp) -> Expr {
        use syn::parse::Parser;
        const USAGE: &str = "`gpu_print!(\"i = {} x = {}\", i, x)`: a string literal with `{}` placeholders, then one value per `{}`";
        let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        let items = match parser.parse2(mac.tokens.clone()) {
            Ok(items) => items,
            Err(e) => {
                self.err(mac, format!("{e}: {USAGE}"));
                return self.expr_of(ExprKind::Error, sp);
            }
        };
        let mut items = items.into_iter();
        let Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(format), .. })) = items.next() else {
            self.err(mac, format!("the first argument is the format string: {USAGE}"));
            return self.expr_of(ExprKind::Error, sp);
        };
        let args: Vec<Expr> = items.map(|a| self.expr(&a)).collect();
        if format.value().contains('\0') {
            self.err(
                &format,
                "a `gpu_print!` format cannot contain a NUL (`\\0`): the GPU's `printf` would stop there, \
                 losing the rest of the text and the values",
            );
            return self.expr_of(ExprKind::Error, sp);
        }
        let pieces = match split_format(&format.value()) {
            Ok(pieces) => pieces,
            Err(what) => {
                self.err(&format, format!("{what}: {USAGE}"));
                return self.expr_of(ExprKind::Error, sp);
            }
        };
        if pieces.len() != args.len() + 1 {
            let msg = format!(
                "the format has {} `{{}}` placeholder(s) but {} value(s) follow it",
                pieces.len() - 1,
                args.len()
            );
            self.err(&format, msg);
            return self.expr_of(ExprKind::Error, sp);
        }
        self.expr_of(ExprKind::Print { path: mac.path.clone(), pieces, args }, sp)
    }

    fn macro_error(&mut self, mac: &syn::Macro) {
        let name = mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        let message = match name.as_str() {
            "vec" => "`vec!` allocates on the heap, which a kernel cannot do: use a local array, `[0.0f32; 4]` or \
                      `[a, b, c]`"
                .to_string(),
            "format" | "println" | "print" | "eprintln" | "eprint" | "dbg" | "write" | "writeln" => {
                format!("`{name}!` is not supported in kernels: print with `gpu_print!(\"x = {{}}\", x)`")
            }
            "cfg" => format!("`cfg!` is not supported in kernels: {CHOOSE_BY_CONSTANT}"),
            _ => format!(
                "macros such as `{name}!` are not supported in kernels: `#[ptx_kernel]` reads the body before \
                 macros expand, so it cannot see what `{name}!` stands for; write the code out or make it a \
                 `#[ptx_device]` function (kernels take `assert!`, `panic!` and the other panics, `matches!` \
                 and `gpu_print!`)"
            ),
        };
        self.err(mac, message);
    }

    /// The role of a `let` of the source here: a device function's names are reported
    /// unused at its host copy, not again in each kernel that inlines it.
    fn source_role(&self) -> LetRole {
        if self.inlining.is_empty() {
            LetRole::Source
        } else {
            LetRole::Allowed
        }
    }

    fn local(&mut self, local: &syn::Local) -> Option<Stmt> {
        if let Some(init) = &local.init {
            if let Some(rewritten) = init
                .diverge
                .as_ref()
                .and_then(|(_, diverge)| crate::desugar::let_else(local, &init.expr, diverge))
            {
                return self.local(&rewritten);
            }
        }
        let mut role = self.source_role();
        let mut element = None;
        for a in &local.attrs {
            if a.path().is_ident(crate::desugar::BORROWED_ATTRIBUTE) {
                let how = a.parse_args::<Ident>().map(|i| i.to_string()).unwrap_or_default();
                element = Some(match how.as_str() {
                    "reference" => ElementBy::Reference,
                    "amp" => ElementBy::AmpPattern,
                    "copied" => ElementBy::Copied,
                    _ => ElementBy::NameOfArrayOrSlice,
                });
            } else if (a.path().is_ident("allow") || a.path().is_ident("expect"))
                && matches!(a.meta, syn::Meta::List(_))
            {
                role = LetRole::Allowed;
            } else if let Some(message) = statement_attribute_message(a) {
                self.err(a, message);
            } else if !is_lint_or_tool_attribute(a) && !is_doc_comment(a) {
                self.err(
                    a,
                    "of the attributes on `let`, kernels take the lint levels (`#[allow(..)]`, `#[expect(..)]`, \
                     `#[warn(..)]`, `#[deny(..)]`) and tools' (`#[rustfmt::skip]`)",
                );
            }
        }
        let (pat, mut ty) = match &local.pat {
            syn::Pat::Type(pt) => {
                let annot = self.type_annot(&pt.ty).map(|t| (t, Sp::of(&pt.ty)));
                (&*pt.pat, annot)
            }
            other => (other, None),
        };
        let (pat, init) = match &local.init {
            None => {
                // `let v: f32;` (or `let mut v;`), assigned later.
                match self.pat(pat) {
                    Some(Pat::Ident { name, mutable }) => {
                        (Pat::Ident { name, mutable }, self.expr_of(ExprKind::Deferred, Sp::of(local)))
                    }
                    // `let _: i32;` binds nothing: nothing to do, as in Rust.
                    Some(other) if other.names().is_empty() && ty.is_some() => return None,
                    Some(other) if other.names().is_empty() => {
                        self.err(local, "type annotations needed (rustc's E0282): this `let` binds nothing and names no type");
                        (other, self.expr_of(ExprKind::Error, Sp::of(local)))
                    }
                    Some(other) => {
                        self.err(
                            local,
                            "a `let` without a value binds one name in kernels (`let v: f32;`, assigned later): \
                             write one `let` for each name",
                        );
                        (other, self.expr_of(ExprKind::Error, Sp::of(local)))
                    }
                    None => {
                        ty = None;
                        self.rejected_pat(pat)
                    }
                }
            }
            Some(init) => {
                // A `let .. else` is one error: its pattern (`Some(v)`) and value are
                // what only it would take.
                let outer = init.diverge.as_ref().map(|_| std::mem::take(&mut *self.errors));
                let parsed = self.pat(pat);
                let value = self.expr(&init.expr);
                if let (Some(outer), Some((else_token, _))) = (outer, &init.diverge) {
                    *self.errors = outer;
                    self.err(
                        else_token,
                        "`let ... else` in kernels takes an `else` block that ends in `return`, `break`, `continue` \
                         or a panic (it must diverge), and a type written only for a pattern of one name: use \
                         `if let` or `match`",
                    );
                }
                if let Some(by) = element {
                    self.elements.push(Element { init: value.id, by });
                }
                match parsed {
                    Some(parsed) => (parsed, value),
                    None => {
                        // The annotation is the rejected pattern's, not the names'.
                        ty = None;
                        self.rejected_pat(pat)
                    }
                }
            }
        };
        Some(Stmt::Let { pat, ty, init, span: Sp::of(local), text: let_text(local), role })
    }

    /// `const NAME: T = value;` in the body: an immutable binding of type `T` whose value the
    /// checker requires to be known when the kernel is built.
    fn const_item(&mut self, c: &syn::ItemConst) -> Option<Stmt> {
        for a in &c.attrs {
            self.err(a, "attributes on a `const` in a kernel are not supported");
        }
        let annot = self.type_annot(&c.ty).map(|t| (t, Sp::of(&c.ty)));
        let name = match &*c.ident.to_string() {
            "_" => Pat::Wild,
            _ => Pat::Ident { name: c.ident.clone(), mutable: false },
        };
        Some(Stmt::Let {
            pat: name,
            ty: annot,
            init: self.expr(&c.expr),
            span: Sp::of(c),
            text: source_text(c),
            role: LetRole::Const,
        })
    }

    fn pat(&mut self, p: &syn::Pat) -> Option<Pat> {
        match p {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                Some(Pat::Ident { name: pi.ident.clone(), mutable: pi.mutability.is_some() })
            }
            syn::Pat::Wild(_) => Some(Pat::Wild),
            syn::Pat::Tuple(t) => {
                let elems: Vec<Option<Pat>> = t.elems.iter().map(|e| self.pat(e)).collect();
                let elems: Option<Vec<Pat>> = elems.into_iter().collect();
                elems.map(|e| Pat::Tuple(e, Sp::of(t)))
            }
            syn::Pat::Paren(pp) => self.pat(&pp.pat),
            other => {
                self.err(
                    other,
                    "patterns in kernels are names (`x`, `mut x`), `_` and tuples of them (`(s, c)`)",
                );
                None
            }
        }
    }

    /// A rejected pattern (reported) as the binding of its names, each mutable, to a value
    /// that checks as any type: their uses and assignments report nothing more.
    fn rejected_pat(&mut self, p: &syn::Pat) -> (Pat, Expr) {
        let mut names = Vec::new();
        pat_names(p, &mut names);
        let sp = Sp::of(p);
        let values = names.iter().map(|_| self.expr_of(ExprKind::Error, sp)).collect();
        let pats = names.into_iter().map(|name| Pat::Ident { name, mutable: true }).collect();
        (Pat::Tuple(pats, sp), self.expr_of(ExprKind::Tuple(values), sp))
    }

    // ----- expressions ------------------------------------------------------------------

    /// Whether a `break` or `continue` with `label` leaves a labeled block that was rejected
    /// (reported at the label already).
    /// `parse` in the scope of a loop or (`block`) a labelled block with `label`.
    fn in_jump_scope<T>(
        &mut self,
        label: Option<&syn::Label>,
        block: bool,
        parse: impl FnOnce(&mut Self) -> T,
    ) -> T {
        self.jump_scopes.push((label.map(|l| l.name.ident.to_string()), block));
        let parsed = parse(self);
        self.jump_scopes.pop();
        parsed
    }

    /// Reports a `break` or `continue` (`what`, at `node`) that Rust refuses: unlabelled
    /// directly inside a labelled block, or a `continue` naming one.
    fn check_jump(&mut self, node: &impl ToTokens, what: &str, label: &Option<syn::Lifetime>) {
        match label {
            None if matches!(self.jump_scopes.last(), Some((_, true))) => {
                let msg = format!(
                    "unlabeled `{what}` inside of a labeled block: name the loop or block it leaves, `{what} 'label`"
                );
                self.err(node, msg);
            }
            Some(l) if what == "continue" => {
                let name = l.ident.to_string();
                if let Some((_, true)) =
                    self.jump_scopes.iter().rev().find(|(n, _)| n.as_deref() == Some(&name))
                {
                    self.err(node, "`continue` pointing to a labeled block: `continue` names a loop");
                }
            }
            _ => {}
        }
    }

    /// Reports the attributes on `e` but a `for` loop's `#[unroll]` (and the marks the
    /// rewriting of `while let` and `|` patterns puts on its own expressions). Lint levels
    /// on a block-like statement (a loop, `if`, `match`, a block), where rustc takes them,
    /// are let through; they change nothing in what the kernel computes (nor in the lints
    /// of the generated code, which rustc reports at the user's names).
    fn expr_attributes(&mut self, e: &syn::Expr) {
        let statement = std::mem::take(&mut self.statement_next);
        let rewriting_mark = |a: &syn::Attribute| {
            a.path().is_ident(crate::desugar::WHILE_LET_ATTRIBUTE)
                || a.path().is_ident(crate::desugar::OR_BINDING_ATTRIBUTE)
                || a.path().is_ident(crate::desugar::PATTERN_NAME_ATTRIBUTE)
        };
        let block_like = statement
            && matches!(
                e,
                syn::Expr::ForLoop(_)
                    | syn::Expr::While(_)
                    | syn::Expr::Loop(_)
                    | syn::Expr::If(_)
                    | syn::Expr::Match(_)
                    | syn::Expr::Block(_)
            );
        let attrs: Vec<&syn::Attribute> =
            expr_attrs(e).iter().filter(|a| !(is_doc_comment(a) || block_like && is_lint_level(a))).collect();
        if let Some(attr) = attrs.first().filter(|a| !rewriting_mark(a)) {
            if let Some(message) = statement_attribute_message(attr) {
                self.err(attr, message);
                return;
            }
            let is_for = matches!(e, syn::Expr::ForLoop(_));
            if !(is_for && attr.path().is_ident("unroll") && attrs.len() == 1) {
                let msg = if is_for {
                    "the only attribute a loop takes is `#[unroll]`"
                } else {
                    "attributes on expressions are not supported in kernels (`#[unroll]` goes on a `for` loop)"
                };
                self.err(attr, msg);
            }
        }
    }

    fn unsupported(&mut self, e: &syn::Expr, what: &str) -> Expr {
        self.err(e, what);
        self.expr_of(ExprKind::Error, Sp::of(e))
    }

    fn expr(&mut self, e: &syn::Expr) -> Expr {
        crate::deep(|| self.expr_at_depth(e))
    }

    fn expr_at_depth(&mut self, e: &syn::Expr) -> Expr {
        let sp = span_of(e);
        self.expr_attributes(e);
        let kind = match e {
            syn::Expr::Lit(l) => match self.lit(&l.lit) {
                Some(lit) => ExprKind::Lit(lit),
                None => ExprKind::Error,
            },
            syn::Expr::Path(p) => return self.path_expr(p, sp),
            syn::Expr::Paren(p) => return self.expr(&p.expr),
            syn::Expr::Group(g) => return self.expr(&g.expr),
            // `*v` of a name: an element a `for` loop borrows (or a name bound to one) reads
            // it; the checker refuses it of anything else.
            syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Deref(_), expr, .. })
                if matches!(crate::desugar::unparen(expr), syn::Expr::Path(p) if p.path.get_ident().is_some()) =>
            {
                if self.names_refused_reference(expr) {
                    return self.expr_of(ExprKind::Error, sp);
                }
                ExprKind::Deref(Box::new(self.expr(expr)))
            }
            syn::Expr::Unary(u) => {
                let op = match u.op {
                    syn::UnOp::Neg(_) => UnOp::Neg,
                    syn::UnOp::Not(_) => UnOp::Not,
                    _ if matches!(crate::desugar::unparen(&u.expr), syn::Expr::Lit(_)) => {
                        return self.unsupported(
                            e,
                            "a number cannot be dereferenced (rustc's E0614), and Rust has no `**` power \
                             operator: write `x.pow(2)` for an integer, `x.powi(2)` for a float",
                        )
                    }
                    _ => {
                        return self.unsupported(
                            e,
                            "dereferencing is not supported in kernels: values are used directly, slices by indexing",
                        )
                    }
                };
                ExprKind::Unary(op, Box::new(self.expr(&u.expr)))
            }
            syn::Expr::Binary(b) => return self.binary(b, sp),
            syn::Expr::Assign(a) if crate::desugar::assigns_tuple(a) => {
                let id = self.id();
                return self.expr(&crate::desugar::destructuring_assign(a, id));
            }
            syn::Expr::Assign(a) => {
                let place = self.place(&a.left);
                let value = Box::new(self.expr(&a.right));
                match place {
                    Some(place) => ExprKind::Assign(place, value),
                    None => ExprKind::Error,
                }
            }
            syn::Expr::Cast(c) => {
                let inner = Box::new(self.expr(&c.expr));
                match self.scalar_of(&c.ty) {
                    Some(s) if !s.is_half() => ExprKind::Cast(inner, s),
                    Some(s) => {
                        self.err(
                            &c.ty,
                            format!("`as {0}` does not exist in Rust: round an `f32` to `{0}` with `{0}::from_f32(x)`", s.name()),
                        );
                        ExprKind::Error
                    }
                    None if matches!(c.ty.as_ref(), syn::Type::Infer(_)) => {
                        self.err(&c.ty, "`as _` (a target type to infer) is not supported in kernels: write the type, `as u32`");
                        ExprKind::Error
                    }
                    None => {
                        self.err(&c.ty, "`as` converts between the scalar types (u8 .. u64, i8 .. i64, usize, isize, f32, f64)");
                        ExprKind::Error
                    }
                }
            }
            syn::Expr::Index(ix) if matches!(crate::desugar::unparen(&ix.index), syn::Expr::Range(_)) => {
                return self.unsupported(
                    e,
                    "a range of a slice is borrowed, as in Rust: `&x[a..b]` (or `&mut x[a..b]`), bound to a name or \
                     passed on (`let row = &x[a..b];`, `row.len()`)",
                );
            }
            syn::Expr::Index(ix) => {
                let index = Box::new(self.expr(&ix.index));
                // `config::GAIN[i]`: a constant array of the surrounding code, by its path.
                if let syn::Expr::Path(p) = crate::desugar::unparen(&ix.expr) {
                    let last = p.path.segments.last().map(|s| s.ident.clone());
                    let by_path = p.qself.is_none() && p.path.segments.len() > 1 && crate::desugar::names_constant(&p.path);
                    if let Some(slice) = last.filter(|_| by_path) {
                        let e = self.expr_of(ExprKind::Index { slice, index }, sp);
                        self.item_paths.push((e.id, p.path.clone()));
                        return e;
                    }
                }
                match self.slice_name(&ix.expr) {
                    Some(slice) => ExprKind::Index { slice, index },
                    None => ExprKind::Error,
                }
            }
            syn::Expr::Field(f) => {
                let base = Box::new(self.expr(&f.base));
                let member = match &f.member {
                    syn::Member::Named(n) => {
                        let axis = match n.to_string().as_str() {
                            "x" => Some(Axis::X),
                            "y" => Some(Axis::Y),
                            "z" => Some(Axis::Z),
                            _ => None,
                        };
                        match axis {
                            Some(a) => Member::Axis(a, Sp::of(n)),
                            None => {
                                self.err(n, "the only fields in kernels are `.x`, `.y`, `.z` of the index built-ins and `.0`, `.1`, ... of tuples");
                                return self.expr_of(ExprKind::Error, sp);
                            }
                        }
                    }
                    syn::Member::Unnamed(i) => Member::Index(i.index as usize, Sp::of(i)),
                };
                ExprKind::Field(base, member)
            }
            syn::Expr::Call(c) => return self.call(c, sp),
            syn::Expr::MethodCall(m) if crate::desugar::is_swap(m) => {
                let id = self.id();
                return self.expr(&crate::desugar::swap(m, id));
            }
            syn::Expr::MethodCall(m) if m.method == "swap" && m.args.len() != 2 => {
                let n = m.args.len();
                let plural = if n == 1 { "argument was" } else { "arguments were" };
                let msg = format!("this method takes 2 arguments but {n} {plural} supplied: `x.swap(i, j)`");
                self.err(&m.method, msg);
                ExprKind::Error
            }
            syn::Expr::MethodCall(m) => {
                if let Some(t) = &m.turbofish {
                    self.err(t, "method calls in kernels take no type arguments");
                }
                // `x[a..].len()`: a method's receiver is borrowed, a range of a slice too.
                let receiver = Box::new(self.range_or_expr(&m.receiver, false));
                let args = m.args.iter().map(|a| self.expr(a)).collect();
                ExprKind::MethodCall { receiver, method: m.method.clone(), args }
            }
            syn::Expr::If(i) => self.if_expr(i),
            syn::Expr::Block(b) => match &b.label {
                // `'a: { .. }` is `'a: loop { break 'a { .. }; }`: a `break 'a value` inside
                // leaves it with a value, as the block's own value does.
                Some(label) => {
                    let body = self.in_jump_scope(Some(label), true, |p| p.block(&b.block));
                    ExprKind::Labeled { label: label.name.clone(), body }
                }
                None => ExprKind::Block(self.block(&b.block)),
            },
            syn::Expr::While(w) => {
                let cond = match &*w.cond {
                    syn::Expr::Let(l) => return self.expr(&crate::desugar::while_let(w, l)),
                    cond => self.expr(cond),
                };
                ExprKind::While {
                    label: w.label.as_ref().map(|l| l.name.clone()),
                    cond: Box::new(cond),
                    body: self.in_jump_scope(w.label.as_ref(), false, |p| p.block(&w.body)),
                }
            }
            syn::Expr::Loop(l) => ExprKind::Loop {
                label: l.label.as_ref().map(|l| l.name.clone()),
                body: self.in_jump_scope(l.label.as_ref(), false, |p| p.block(&l.body)),
                while_let: l.attrs.iter().any(|a| a.path().is_ident(crate::desugar::WHILE_LET_ATTRIBUTE)),
            },
            syn::Expr::ForLoop(f) if crate::desugar::loops_over_array(f) => {
                let id = self.id();
                match crate::desugar::for_in_array(f, id) {
                    Ok(rewritten) => return self.expr(&rewritten),
                    Err(e) => {
                        self.errors.push(e);
                        ExprKind::Error
                    }
                }
            }
            syn::Expr::ForLoop(f) => match self.for_loop(f) {
                Some(kind) => kind,
                None => ExprKind::Error,
            },
            syn::Expr::Break(b) => {
                self.check_jump(b, "break", &b.label);
                ExprKind::Break { label: b.label.clone(), value: b.expr.as_ref().map(|v| Box::new(self.expr(v))) }
            }
            syn::Expr::Continue(c) => {
                self.check_jump(c, "continue", &c.label);
                ExprKind::Continue { label: c.label.clone() }
            }
            syn::Expr::Return(r) if !self.inlining.is_empty() => {
                self.err(
                    r,
                    "`return` is not supported in a `#[ptx_device]` function: make the value the body's \
                     last expression (device functions are inlined into the kernel)",
                );
                ExprKind::Error
            }
            syn::Expr::Return(r) => {
                if let Some(v) = &r.expr {
                    self.err(v, "kernels return nothing: write `return;` and store results into a `&mut [T]` parameter");
                }
                ExprKind::Return
            }
            syn::Expr::Tuple(t) => ExprKind::Tuple(t.elems.iter().map(|e| self.expr(e)).collect()),
            syn::Expr::Closure(_) => return self.unsupported(e, "closures are not supported in kernels; write the code inline"),
            syn::Expr::Macro(m) if m.mac.path.is_ident("gpu_print") => return self.print(&m.mac, sp),
            syn::Expr::Macro(m) if m.mac.path.is_ident("matches") => return self.matches(&m.mac, sp),
            syn::Expr::Macro(m) => match self.panic_macro(&m.mac, sp) {
                Some(panic) => return panic,
                None => {
                    self.macro_error(&m.mac);
                    ExprKind::Error
                }
            },
            syn::Expr::Match(m) => return self.match_expr(m, true),
            syn::Expr::Struct(_) => {
                return self.unsupported(e, "struct literals are not supported in kernels; use scalars and tuples")
            }
            syn::Expr::Reference(r) => match range_index(&r.expr) {
                Some((slice, range)) => self.sub_slice(slice, range, r.mutability.is_some()),
                None => return self.no_references(e),
            },
            syn::Expr::RawAddr(_) => return self.no_references(e),
            syn::Expr::Array(a) => ExprKind::Array(a.elems.iter().map(|x| self.expr(x)).collect()),
            syn::Expr::Repeat(r) => {
                ExprKind::Repeat { value: Box::new(self.expr(&r.expr)), len: Box::new(self.expr(&r.len)) }
            }
            syn::Expr::Range(_) => {
                return self.unsupported(e, "ranges are only supported as the iterator of a `for` loop (`for i in a..b`)")
            }
            syn::Expr::Let(_) => {
                return self.unsupported(e, "a `let` expression is supported only as the condition of an `if` (`if let 1..=4 = n`), not inside `&&` or `||`")
            }
            syn::Expr::Unsafe(_) => {
                return self.unsupported(
                    e,
                    "`unsafe` blocks are not needed in kernels; to drop bounds checks write `#[ptx_kernel(unchecked)]`",
                )
            }
            syn::Expr::Async(_) | syn::Expr::Await(_) => {
                return self.unsupported(e, "`async`/`.await` are not supported in kernels")
            }
            syn::Expr::Try(_) | syn::Expr::TryBlock(_) => {
                return self.unsupported(e, "`?` is not supported in kernels: there are no `Result`s on the GPU")
            }
            syn::Expr::Const(c) => {
                let body = match c.block.stmts.as_slice() {
                    [syn::Stmt::Expr(value, None)] => quote::ToTokens::to_token_stream(value).to_string(),
                    _ => "..".to_string(),
                };
                let body = if body.len() > 40 { "..".to_string() } else { body };
                let msg = format!(
                    "inline `const {{ .. }}` blocks are not supported in kernels: declare a `const` item in the \
                     body, with its type (`const C: T = {body};`), and use its name (arithmetic on constants is \
                     folded when the kernel is built)"
                );
                return self.unsupported(e, &msg);
            }
            _ => return self.unsupported(e, "this expression is not supported in kernels"),
        };
        self.expr_of(kind, sp)
    }

    fn lit(&mut self, lit: &syn::Lit) -> Option<Lit> {
        match lit {
            syn::Lit::Int(i) => {
                let suffix = self.suffix(i, i.suffix())?;
                if suffix.is_some_and(|s| s.is_float()) {
                    // `1f32` is a float literal.
                    return Some(Lit::Float { digits: i.base10_digits().to_string(), suffix });
                }
                match i.base10_digits().parse::<u128>() {
                    Ok(value) => Some(Lit::Int { value, suffix }),
                    Err(_) => {
                        self.err(i, "integer literal is too large");
                        None
                    }
                }
            }
            syn::Lit::Float(f) => {
                let suffix = self.suffix(f, f.suffix())?;
                if suffix.is_some_and(|s| !s.is_float()) {
                    self.err(f, "a float literal's suffix is `f32` or `f64`");
                    return None;
                }
                Some(Lit::Float { digits: f.base10_digits().to_string(), suffix })
            }
            syn::Lit::Bool(b) => Some(Lit::Bool(b.value)),
            // `b'a'` is a `u8`.
            syn::Lit::Byte(b) => Some(Lit::Int { value: b.value().into(), suffix: Some(Scalar::U8) }),
            syn::Lit::Char(c) if c.value().is_ascii() => {
                // A byte literal takes every escape of a `char` one but `\u{..}`.
                let token = c.token().to_string();
                let byte = if token.contains("\\u") {
                    format!("{:#04x}u8", c.value() as u32)
                } else {
                    format!("b{token}")
                };
                self.err(c, format!("kernels have no `char`: write the byte `{byte}` (a `u8`)"));
                None
            }
            other => {
                self.err(
                    other,
                    "only number, byte (`b'a'`) and `true`/`false` literals are supported in kernels",
                );
                None
            }
        }
    }

    fn suffix(&mut self, lit: &impl ToTokens, suffix: &str) -> Option<Option<Scalar>> {
        if suffix.is_empty() {
            return Some(None);
        }
        match Scalar::from_name(suffix) {
            Some(s) if s != Scalar::Bool && !s.is_half() => Some(Some(s)),
            // A base prefix with a digit past its base (`0b102`) or an exponent without
            // digits (`1e`) is an error of rustc's own, which needs no second one.
            _ if suffix.starts_with(['e', 'E'])
                || (lit.to_token_stream().to_string().starts_with('0')
                    && suffix.starts_with(['b', 'o', 'x'])) =>
            {
                None
            }
            _ => {
                let hint = match suffix {
                    "f" | "F" => {
                        ": C's float suffix is Rust's `f32` (`1.0f32`, or `1.0` where the type is known)"
                    }
                    "u128" | "i128" => ": kernels have no 128-bit integers; use `u64` or `i64`",
                    "u" | "U" | "ul" | "UL" | "ull" | "ULL" => {
                        ": C's unsigned suffixes are Rust's `u32` and `u64`"
                    }
                    "l" | "L" | "ll" | "LL" => ": C's long suffixes are Rust's `i64`",
                    _ => "",
                };
                self.err(lit, format!("unknown literal suffix `{suffix}`{hint}"));
                None
            }
        }
    }

    fn path_expr(&mut self, p: &syn::ExprPath, sp: Sp) -> Expr {
        if let Some((ty, path)) = self.qualified_constant(p) {
            return self.expr_of(ExprKind::Const { ty, path }, sp);
        }
        if p.qself.is_none() {
            if p.path.is_ident("None") {
                self.err(p, NO_OPTION);
                return self.expr_of(ExprKind::Error, sp);
            }
            if let Some(ident) = p.path.get_ident() {
                let e = self.expr_of(ExprKind::Path(ident.clone()), sp);
                if p.attrs.iter().any(|a| a.path().is_ident(crate::desugar::PATTERN_NAME_ATTRIBUTE)) {
                    self.pattern_names.push(e.id);
                }
                return e;
            }
            if let Some(ty) = self.constant_type(&p.path) {
                return self.expr_of(ExprKind::Const { ty, path: p.path.clone() }, sp);
            }
            // `u32::FOO`: a scalar type's constant kernels do not have (a constant of the
            // surrounding code is not named by a type).
            if let [ty, name] = p.path.segments.iter().collect::<Vec<_>>().as_slice() {
                // The `half` crate's constants (`f16::MAX`) are constants of the code around the
                // kernel, as a path to them is (below).
                if let Some(s) = Scalar::from_name(&ty.ident.to_string())
                    .filter(|s| p.path.leading_colon.is_none() && !s.is_half())
                {
                    let hint = if s.is_float() {
                        "float constants are `MAX MIN MIN_POSITIVE EPSILON INFINITY NEG_INFINITY NAN`, the \
                         format's `RADIX MANTISSA_DIGITS DIGITS MIN_EXP MAX_EXP MIN_10_EXP MAX_10_EXP`, and \
                         `std::f32::consts::PI` and its siblings"
                    } else {
                        "integer constants are `MAX`, `MIN` and `BITS`"
                    };
                    self.err(
                        p,
                        format!("`{}::{}` is not supported in kernels: {hint}", s.name(), name.ident),
                    );
                    return self.expr_of(ExprKind::Error, sp);
                }
            }
            if crate::desugar::names_constant(&p.path) {
                return self.expr_of(ExprKind::ItemConst(p.path.clone()), sp);
            }
        }
        let function = p
            .path
            .segments
            .last()
            .is_some_and(|s| !s.arguments.is_none() && (s.ident == "shared" || s.ident == "shared_dyn"));
        if function {
            let text = p.to_token_stream().to_string().replace(' ', "").replace(',', ", ");
            self.err(p, format!("`{text}` is a function: call it, `{text}()`"));
        } else {
            self.err(
                p,
                "unknown path: kernels use their parameters and locals, associated constants like `u32::MAX` or \
                 `f32::EPSILON`, and `std::f32::consts::PI` and its siblings",
            );
        }
        self.expr_of(ExprKind::Error, sp)
    }

    /// The error for a reference that is not a range of a slice (`&x`, `&raw const x`).
    fn no_references(&mut self, e: &syn::Expr) -> Expr {
        self.unsupported(
            e,
            "references are not supported in kernels: use values directly, slices by their names (`f(x)`, \
             not `f(&x)`), and slice parameters by indexing",
        )
    }

    /// `e` where Rust borrows it (a method's receiver, what a range is taken of): a range of
    /// a slice (`x[a..]`, borrowed `&mut` when `mutable`), or any other expression.
    fn range_or_expr(&mut self, e: &syn::Expr, mutable: bool) -> Expr {
        match range_index(e) {
            Some((slice, range)) => {
                let kind = self.sub_slice(slice, range, mutable);
                self.expr_of(kind, Sp::of(e))
            }
            None => self.expr(e),
        }
    }

    /// `&slice[range]` (`&mut` when `mutable`).
    fn sub_slice(&mut self, slice: &syn::Expr, range: &syn::ExprRange, mutable: bool) -> ExprKind {
        // `&x[a..][..b]`: a range of a range.
        let slice = self.range_or_expr(slice, mutable);
        ExprKind::SubSlice {
            slice: Box::new(slice),
            start: range.start.as_ref().map(|x| Box::new(self.expr(x))),
            end: range.end.as_ref().map(|x| Box::new(self.expr(x))),
            inclusive: matches!(range.limits, syn::RangeLimits::Closed(_)),
            mutable,
        }
    }

    /// `<f16>::ZERO` or `<u32>::MAX`, as a `macro_rules!` kernel over a `$t:ty` writes
    /// `T::NAME`: the constant's type and its path with the type's own path in front
    /// (`ptx_dsl::half::f16::ZERO`), which the host reads where the kernel is written.
    fn qualified_constant(&self, p: &syn::ExprPath) -> Option<(Scalar, syn::Path)> {
        let q = p.qself.as_ref().filter(|q| q.position == 0)?;
        let [name] = p.path.segments.iter().collect::<Vec<_>>()[..] else { return None };
        let scalar = self.scalar_of(&q.ty)?;
        let short: syn::Path = syn::parse_str(&format!("{}::{}", scalar.name(), name.ident)).ok()?;
        let ty = self.constant_type(&short)?;
        let mut elem = &*q.ty;
        while let syn::Type::Group(syn::TypeGroup { elem: inner, .. })
        | syn::Type::Paren(syn::TypeParen { elem: inner, .. }) = elem
        {
            elem = inner;
        }
        let syn::Type::Path(type_path) = elem else { return None };
        let mut path = type_path.path.clone();
        path.segments.push(name.clone());
        Some((ty, path))
    }

    /// The type of a supported constant path (`u32::MAX`, `f32::NAN`, `core::f32::consts::PI`),
    /// as Rust resolves it: the `consts` modules through `std` or `core` (`f32::consts::PI`
    /// is an error of rustc's, unless a `use std::f32;` makes it this path: it is read as a
    /// constant of the surrounding code), and a path with a leading `::` only when it starts
    /// with one of them.
    fn constant_type(&self, path: &syn::Path) -> Option<Scalar> {
        if path.segments.iter().any(|s| !s.arguments.is_none()) {
            return None;
        }
        let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let (in_std, names) = match names.as_slice() {
            ["core" | "std", rest @ ..] => (true, rest),
            // `::f32::MAX` names a crate `f32`.
            _ if path.leading_colon.is_some() => return None,
            all => (false, all),
        };
        match names {
            [ty, "consts", name] if in_std => {
                let ty = Scalar::from_name(ty).filter(|t| t.is_float())?;
                FLOAT_CONSTS.contains(name).then_some(ty)
            }
            [ty, name] => {
                let ty = Scalar::from_name(ty)?;
                let float_const = (ty.is_float() && FLOAT_ASSOC.contains(name))
                    || (ty.is_half() && !in_std && HALF_ASSOC.contains(name));
                if float_const || (ty.is_int() && (*name == "MAX" || *name == "MIN")) {
                    Some(ty)
                } else if (ty.is_int() && *name == "BITS")
                    || (ty.is_float() && FLOAT_FORMAT_ASSOC_U32.contains(name))
                {
                    Some(Scalar::U32)
                } else if ty.is_float() && FLOAT_FORMAT_ASSOC_I32.contains(name) {
                    Some(Scalar::I32)
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    fn binary(&mut self, b: &syn::ExprBinary, sp: Sp) -> Expr {
        let (op, compound) = match b.op {
            syn::BinOp::Add(_) => (BinOp::Add, false),
            syn::BinOp::Sub(_) => (BinOp::Sub, false),
            syn::BinOp::Mul(_) => (BinOp::Mul, false),
            syn::BinOp::Div(_) => (BinOp::Div, false),
            syn::BinOp::Rem(_) => (BinOp::Rem, false),
            syn::BinOp::And(_) => (BinOp::And, false),
            syn::BinOp::Or(_) => (BinOp::Or, false),
            syn::BinOp::BitXor(_) => (BinOp::BitXor, false),
            syn::BinOp::BitAnd(_) => (BinOp::BitAnd, false),
            syn::BinOp::BitOr(_) => (BinOp::BitOr, false),
            syn::BinOp::Shl(_) => (BinOp::Shl, false),
            syn::BinOp::Shr(_) => (BinOp::Shr, false),
            syn::BinOp::Eq(_) => (BinOp::Eq, false),
            syn::BinOp::Lt(_) => (BinOp::Lt, false),
            syn::BinOp::Le(_) => (BinOp::Le, false),
            syn::BinOp::Ne(_) => (BinOp::Ne, false),
            syn::BinOp::Ge(_) => (BinOp::Ge, false),
            syn::BinOp::Gt(_) => (BinOp::Gt, false),
            syn::BinOp::AddAssign(_) => (BinOp::Add, true),
            syn::BinOp::SubAssign(_) => (BinOp::Sub, true),
            syn::BinOp::MulAssign(_) => (BinOp::Mul, true),
            syn::BinOp::DivAssign(_) => (BinOp::Div, true),
            syn::BinOp::RemAssign(_) => (BinOp::Rem, true),
            syn::BinOp::BitXorAssign(_) => (BinOp::BitXor, true),
            syn::BinOp::BitAndAssign(_) => (BinOp::BitAnd, true),
            syn::BinOp::BitOrAssign(_) => (BinOp::BitOr, true),
            syn::BinOp::ShlAssign(_) => (BinOp::Shl, true),
            syn::BinOp::ShrAssign(_) => (BinOp::Shr, true),
            _ => {
                self.err(&b.op, "unsupported operator");
                return self.expr_of(ExprKind::Error, sp);
            }
        };
        if compound {
            let place = self.place(&b.left);
            let value = Box::new(self.expr(&b.right));
            let kind = match place {
                Some(place) => ExprKind::CompoundAssign(op, place, value),
                None => ExprKind::Error,
            };
            return self.expr_of(kind, sp);
        }
        let l = Box::new(self.expr(&b.left));
        let r = Box::new(self.expr(&b.right));
        self.expr_of(ExprKind::Binary(op, l, r), sp)
    }

    fn place(&mut self, e: &syn::Expr) -> Option<Place> {
        // Not parsed as an expression: its attributes are looked at here.
        self.expr_attributes(e);
        match e {
            syn::Expr::Paren(p) => self.place(&p.expr),
            syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                p.path.get_ident().cloned().map(Place::Local)
            }
            syn::Expr::Index(ix) if matches!(crate::desugar::unparen(&ix.index), syn::Expr::Range(_)) => {
                self.err(
                    e,
                    "a range of a slice is not assigned whole: `[T]` has no size known at compile time (rustc's \
                     E0277); assign its elements, `for k in 0..n { y[a + k] = x[b + k]; }`",
                );
                None
            }
            syn::Expr::Index(ix) => {
                let index = Box::new(self.expr(&ix.index));
                self.slice_name(&ix.expr).map(|slice| Place::Index { slice, index })
            }
            syn::Expr::Field(f) => {
                match tuple_element(e) {
                    Some((base, fields)) => return Some(Place::Field { base: base.clone(), fields }),
                    None if matches!(&*f.base, syn::Expr::Path(_)) => self.err(
                        &f.member,
                        "no such field: a tuple's fields are `.0`, `.1`, ..; kernels have no structs",
                    ),
                    None => self.err(e, NOT_A_PLACE),
                }
                None
            }
            syn::Expr::Unary(u)
                if matches!(u.op, syn::UnOp::Deref(_)) && self.names_refused_reference(&u.expr) =>
            {
                None
            }
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                self.err(
                    u,
                    "dereferencing is not supported in kernels: assign to a local or a slice element",
                );
                None
            }
            other => {
                self.err(other, NOT_A_PLACE);
                None
            }
        }
    }

    fn slice_name(&mut self, e: &syn::Expr) -> Option<Ident> {
        self.expr_attributes(e);
        match e {
            syn::Expr::Paren(p) => self.slice_name(&p.expr),
            syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                p.path.get_ident().cloned()
            }
            syn::Expr::Index(inner) => {
                self.err(
                    inner,
                    "indexing twice (`m[i][j]`) is not supported in kernels: slices and arrays hold scalars; \
                     index one flat slice or array, `m[row * columns + column]`",
                );
                None
            }
            other => {
                self.err(other, "only slice parameters, shared arrays and local arrays can be indexed, by their names (`x[i]`; bind a computed array first: `let a = f(x); a[i]`)");
                None
            }
        }
    }

    fn call(&mut self, c: &syn::ExprCall, sp: Sp) -> Expr {
        // A function a `macro_rules!` passes as `$f:path` or `$f:expr` comes in an invisible
        // group.
        let mut func = &*c.func;
        while let syn::Expr::Group(g) = func {
            func = &g.expr;
        }
        let syn::Expr::Path(p) = func else {
            self.err(&c.func, "only the GPU built-ins and `T::function(..)` can be called in kernels");
            return self.expr_of(ExprKind::Error, sp);
        };
        if let (None, [only]) = (&p.qself, p.path.segments.iter().collect::<Vec<_>>().as_slice()) {
            let name = only.ident.to_string();
            if SHARED_FUNCTIONS.contains(&name.as_str()) {
                return self.shared(c, only, sp);
            }
            if let Some(op) = AtomicOp::ALL.into_iter().find(|o| o.name() == name) {
                return self.atomic(c, op, &only.ident, sp);
            }
            if let Some(&(_, width, store)) = VECTOR_ACCESSES.iter().find(|(f, ..)| *f == name) {
                return self.vector(c, width, store, &only.ident, sp);
            }
            // Before its arguments, whose `&mut x[i]` is the kernel's atomics' too.
            if let Some(ours) = cuda_name(&name) {
                self.err(&only.ident, format!("`{name}` is CUDA C's; in a kernel it is `{ours}`"));
                return self.expr_of(ExprKind::Error, sp);
            }
        }
        // Before its arguments, whose `&mut a` would each be an error of their own.
        if let Some(instead) = mem_function_instead(c) {
            self.err(&p.path, instead);
            return self.expr_of(ExprKind::Error, sp);
        }
        let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a)).collect();
        let segments: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
        // `<f16>::from_f32(x)`, as a `macro_rules!` kernel over a `$t:ty` writes `T::f(..)`.
        if let (Some(q), [func]) = (&p.qself, segments.as_slice()) {
            if let (0, Some(ty), true) = (q.position, self.scalar_of(&q.ty), func.arguments.is_none()) {
                return self.expr_of(ExprKind::TypeCall { ty, func: func.ident.clone(), args }, sp);
            }
        }
        if p.qself.is_none() && segments.iter().all(|s| s.arguments.is_none()) {
            if let [only] = segments.as_slice() {
                let name = only.ident.to_string();
                if let Some(b) = Builtin::ALL.into_iter().find(|b| b.name() == name) {
                    if let Some(extra) = c.args.first() {
                        self.err(extra, format!("`{name}()` takes no arguments"));
                        return self.expr_of(ExprKind::Error, sp);
                    }
                    return self.expr_of(ExprKind::Builtin(b), sp);
                }
                if let Some(which) = Intrinsic::ALL.into_iter().find(|i| i.name() == name) {
                    if args.len() != which.arity() {
                        let n = which.arity();
                        let count = match n {
                            0 => "no arguments".to_string(),
                            1 => "one argument".to_string(),
                            n => format!("{n} arguments"),
                        };
                        let msg = format!("`{name}` takes {count}: `{}`", which.usage());
                        self.err(c, msg);
                        return self.expr_of(ExprKind::Error, sp);
                    }
                    return self.expr_of(ExprKind::Intrinsic { which, func: only.ident.clone(), args }, sp);
                }
                if ord_function(&p.path).is_some() {
                    return self.ord_call(c, &p.path, args, sp);
                }
                if name == self.kernel_name && self.inlining.is_empty() {
                    self.err(&only.ident, "recursion is not supported: a kernel cannot call itself");
                    return self.expr_of(ExprKind::Error, sp);
                }
                if matches!(name.as_str(), "Some" | "Ok" | "Err") {
                    self.err(&only.ident, NO_OPTION);
                    return self.expr_of(ExprKind::Error, sp);
                }
                return match self.device_call(&p.path, args, sp) {
                    Some(call) => call,
                    None => {
                        self.err(
                            &only.ident,
                            format!(
                                "unknown function `{name}`: kernels can call `#[ptx_device]` functions, the GPU \
                                 built-ins of `ptx_dsl::gpu` (`thread_idx()`, `sync_threads()`, `shfl_xor(..)`, \
                                 `atomic_add(..)`, ...), methods of their values (`x.sin()`), and \
                                 `T::function(..)` such as `f32::max(a, b)`"
                            ),
                        );
                        self.expr_of(ExprKind::Error, sp)
                    }
                };
            }
            if let [ty, func] = segments.as_slice() {
                if let Some(ty) = Scalar::from_name(&ty.ident.to_string()) {
                    return self.expr_of(ExprKind::TypeCall { ty, func: func.ident.clone(), args }, sp);
                }
            }
            if ord_function(&p.path).is_some() {
                return self.ord_call(c, &p.path, args, sp);
            }
            if let Some(call) = self.device_call(&p.path, args, sp) {
                return call;
            }
        }
        let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        let owner = p.path.segments.iter().rev().nth(1).map(|s| s.ident.to_string()).unwrap_or_default();
        let msg = if let Some(ty) = Scalar::from_name(&owner) {
            // `std::f32::max(a, b)`: the type's function, named by the type alone.
            format!("write `{}::{last}(..)`, the type's own function, without the module path", ty.name())
        } else if is_builtin(&last) {
            format!("call the built-in by its name alone: `{last}(..)`, imported from `ptx_dsl::gpu` or the prelude")
        } else if matches!(last.as_str(), "size_of" | "align_of") {
            format!(
                "`{last}` is not called in kernels: write the number (`4` for `f32`), or a constant of the code \
                 around the kernel, `const F32_BYTES: usize = std::mem::{last}::<f32>();`"
            )
        } else {
            "unknown function: kernels call `#[ptx_device]` functions, the GPU built-ins, \
             `std::cmp::min`/`max` and `T::function(..)` such as `f32::max(a, b)`"
                .to_string()
        };
        self.err(p, msg);
        self.expr_of(ExprKind::Error, sp)
    }

    /// `std::cmp::min(a, b)` (or `max`, or `Ord::min`) as the method call `a.min(b)`, which
    /// the checker allows on `Ord` types only, as rustc does.
    fn ord_call(&mut self, c: &syn::ExprCall, path: &syn::Path, args: Vec<Expr>, sp: Sp) -> Expr {
        let Some(method) = path.segments.last().map(|s| &s.ident) else {
            return self.expr_of(ExprKind::Error, sp);
        };
        let Ok([a, b]) = <[Expr; 2]>::try_from(args) else {
            self.err(c, format!("`{method}` takes two arguments: `std::cmp::{method}(a, b)`"));
            return self.expr_of(ExprKind::Error, sp);
        };
        let call = self.expr_of(
            ExprKind::MethodCall { receiver: Box::new(a), method: method.clone(), args: vec![b] },
            sp,
        );
        self.ord_calls.push((call.id, path.clone()));
        call
    }

    /// A call of `path(args)` as a `#[ptx_device]` function: `None` when the path cannot
    /// name one (a segment that starts with a capital letter names a type, a tuple struct
    /// or a variant). A function `devices` does not hold is recorded as unresolved; one it
    /// holds is inlined as a block that evaluates the arguments in order (into temporaries
    /// when there are several), binds the parameters to them and checks the body's value
    /// against the return type:
    /// `{ let t0 = arg0; let t1 = arg1; let a: A = t0; let b: B = t1; let ret: R = { body }; ret }`.
    fn device_call(&mut self, path: &syn::Path, args: Vec<Expr>, sp: Sp) -> Option<Expr> {
        if path.segments.iter().any(|s| s.ident.to_string().starts_with(|c: char| c.is_ascii_uppercase())) {
            return None;
        }
        // A function that calls itself by its bare name is recursion whatever else is known
        // (so it is found at the definition, not only in the kernels that call it).
        let mut written = path.segments.iter().skip_while(|s| s.ident == "self");
        if let (Some(only), None, Some(f)) = (written.next(), written.next(), self.inlining.last()) {
            if only.arguments.is_none() && only.ident == f.name {
                self.recursion(self.inlining.len() - 1, &only.ident);
                return Some(self.expr_of(ExprKind::Error, sp));
            }
        }
        let path = &self.as_seen_from_kernel(path);
        let ident = &path.segments.last()?.ident;
        let name = ident.to_string();
        let key = path_key(path);
        // Fetching `vec(..)` would call `vec!`: a macro of the standard library's prelude or
        // of ptx-dsl is no device function's (whose macro would shadow it), and nor is a
        // function of the standard library or a built-in named by its module.
        let first = path.segments.first().map(|s| s.ident.to_string()).unwrap_or_default();
        let library = ["std", "core", "alloc", "gpu", "ptx_dsl"].contains(&first.as_str())
            || path.segments.iter().rev().nth(1).is_some_and(|s| s.ident == "gpu");
        if NOT_DEVICE_FUNCTIONS.contains(&name.as_str()) || (path.segments.len() > 1 && library) {
            return None;
        }
        let named = |paths: &[syn::Path]| paths.iter().any(|p| path_key(p) == key);
        let Some(device) = self.devices.get(&key) else {
            if !named(&self.unresolved) {
                self.unresolved.push(path.clone());
            }
            return Some(self.expr_of(ExprKind::Error, sp));
        };
        // One function may be reached by several paths (`f`, then `f::g::f`); and two may
        // share a text and a position (one `macro_rules!` expanded in two modules, each
        // calling `super::g`), so a function met again is recursion only once it has come
        // back `SAME_FUNCTION_DEPTH` times (a chain of distinct ones ends sooner).
        let own = device.identity.clone();
        let mut again = self.inlining.iter().enumerate().filter(|(_, f)| f.identity == own);
        if let Some((first, _)) = again.next() {
            if again.count() + 1 >= SAME_FUNCTION_DEPTH {
                self.recursion(first, ident);
                return Some(self.expr_of(ExprKind::Error, sp));
            }
        }
        // The kernel names the functions it calls itself (their privacy is checked there);
        // a device function's callees are its own business, as in Rust.
        if self.inlining.is_empty() && !named(&self.inlined) {
            self.inlined.push(path.clone());
        }
        if device.failed {
            self.err(
                ident,
                format!("`{name}` cannot be inlined here: its definition has errors (reported there)"),
            );
            return Some(self.expr_of(ExprKind::Error, sp));
        }
        // The device function's own mistakes are reported where it is defined (by its
        // attribute or by the kernel's check of it on its own), not at each call.
        let outer = std::mem::take(&mut *self.errors);
        let (params, ret) = self.device_signature(&device.item);
        self.inlining.push(Inlining { key, identity: own, name: name.clone() });
        let mut body = self.block(&device.item.block);
        body.function_body = true;
        self.inlining.pop();
        let own = std::mem::replace(&mut *self.errors, outer);
        if !own.is_empty() {
            self.err(
                ident,
                format!("`{name}` cannot be inlined here: its definition has errors (reported there)"),
            );
            return Some(self.expr_of(ExprKind::Error, sp));
        }
        if args.len() != params.len() {
            let plural = |n: usize| if n == 1 { "argument" } else { "arguments" };
            let (want, got) = (params.len(), args.len());
            self.errors.at(
                sp,
                format!(
                    "`{name}` takes {want} {} but {got} {} supplied",
                    plural(want),
                    if got == 1 { "argument was" } else { "arguments were" }
                ),
            );
            return Some(self.expr_of(ExprKind::Error, sp));
        }
        // Rust's borrow rules: a slice passed as a `&mut [T]` cannot be passed again.
        let slice_arg = |(param, arg): (&Param, &Expr)| match (&param.kind, &arg.kind) {
            (ParamKind::Slice { mutable, .. }, ExprKind::Path(n)) => {
                Some((n.to_string(), *mutable, arg.span))
            }
            _ => None,
        };
        let slices: Vec<(String, bool, Sp)> = params.iter().zip(&args).filter_map(slice_arg).collect();
        for (k, (n, mutable, sp)) in slices.iter().enumerate() {
            if let Some((_, other_mutable, _)) = slices[..k].iter().find(|(m, ..)| m == n) {
                if *mutable || *other_mutable {
                    self.errors.at(
                        *sp,
                        format!(
                            "`{n}` is passed to `{name}` twice, once as a `&mut` slice: Rust's borrow \
                             rules forbid it (write through one parameter)"
                        ),
                    );
                }
            }
        }
        // With several parameters, every argument is evaluated into a temporary before any
        // parameter is bound: `f(b, a)` of `fn f(a, b)` must not see the new `a` in `a`.
        let mut stmts = Vec::new();
        let args: Vec<Expr> = if params.len() < 2 {
            args
        } else {
            args.into_iter()
                .map(|arg| {
                    let temp =
                        Ident::new(&format!("__ptx_arg{}", self.next_id), proc_macro2::Span::mixed_site());
                    let span = arg.span;
                    stmts.push(Stmt::Let {
                        pat: Pat::Ident { name: temp.clone(), mutable: false },
                        ty: None,
                        init: arg,
                        span,
                        text: String::new(),
                        role: LetRole::Source,
                    });
                    self.expr_of(ExprKind::Path(temp), span)
                })
                .collect()
        };
        stmts.extend(params.into_iter().zip(args).map(|(param, arg)| {
            // A slice parameter names the argument's slice; the role carries its type,
            // which the checker checks (`device_signature` gives no comptime parameters).
            let (ty, slice) = match param.kind {
                ParamKind::Scalar(ty) => (Some((TypeAnnot::Scalar(ty), arg.span)), None),
                ParamKind::Array { elem, len } => {
                    (Some((TypeAnnot::Array(Box::new(TypeAnnot::Scalar(elem)), len), arg.span)), None)
                }
                ParamKind::Tuple(annot) => (Some((annot, arg.span)), None),
                ParamKind::Slice { elem, mutable } => (None, Some((elem, mutable))),
                ParamKind::Comptime(_) => (None, None),
            };
            Stmt::Let {
                role: LetRole::Argument { function: name.clone(), param: param.name.to_string(), slice },
                pat: Pat::Ident { name: param.name, mutable: param.mutable },
                ty,
                span: arg.span,
                init: arg,
                text: String::new(),
            }
        }));
        let body_span = body.span;
        let init = self.expr_of(ExprKind::Block(body), body_span);
        let ret_name = Ident::new("__ptx_ret", proc_macro2::Span::mixed_site());
        stmts.push(Stmt::Let {
            pat: Pat::Ident { name: ret_name.clone(), mutable: false },
            ty: Some(ret),
            init,
            span: body_span,
            text: String::new(),
            role: LetRole::Result { function: name },
        });
        let tail = self.expr_of(ExprKind::Path(ret_name), sp);
        let block = Block {
            stmts,
            tail: Some(Box::new(tail)),
            tail_text: String::new(),
            function_body: false,
            span: sp,
        };
        Some(self.expr_of(ExprKind::Block(block), sp))
    }

    /// Reports recursion at the call `at`: the functions being inlined from the `first`-th
    /// on call the one at `first` again.
    fn recursion(&mut self, first: usize, at: &Ident) {
        // One turn of the cycle: up to the function's next appearance.
        let own = &self.inlining[first].identity;
        let turn = self.inlining[first + 1..]
            .iter()
            .position(|f| f.identity == *own)
            .map_or(self.inlining.len(), |k| first + 1 + k);
        let mut names: Vec<&str> = self.inlining[first..turn].iter().map(|f| f.name.as_str()).collect();
        names.push(&self.inlining[first].name);
        let message = format!(
            "recursion is not supported: `{}` (device functions are inlined into the kernels that call \
             them, so none can call itself)",
            names.join("` → `")
        );
        self.cycles.at(Sp::of(at), message);
    }

    /// `path`, written in the device function being inlined, as a path from the kernel's
    /// module: through the hidden module named like that function ([`crate::device`]),
    /// which sees what the function's module sees. Inside `f` (fetched as `m::f`), `g` is
    /// `m::f::g` and `util::h` or `super::h` is `m::f::__ptx_mod_4util::h` or
    /// `m::f::__ptx_mod_5super::h`. Outside device functions, and for absolute paths, the
    /// path as written. Records the module parts of the outermost function's calls.
    fn as_seen_from_kernel(&mut self, path: &syn::Path) -> syn::Path {
        let Some(outer) = self.inlining.last() else { return path.clone() };
        let absolute =
            path.leading_colon.is_some() || path.segments.first().is_some_and(|s| s.ident == "crate");
        let segments: Vec<&syn::PathSegment> =
            path.segments.iter().skip_while(|s| s.ident == "self").collect();
        let Some((last, module)) = segments.split_last().filter(|_| !absolute) else { return path.clone() };
        let span = path.segments.first().map_or_else(proc_macro2::Span::call_site, |s| s.ident.span());
        let leading_colon = outer.key.starts_with("::").then(|| syn::Token![::](span));
        let mut seen: syn::punctuated::Punctuated<syn::PathSegment, syn::Token![::]> = outer
            .key
            .split("::")
            .filter(|s| !s.is_empty())
            .map(|s| syn::PathSegment::from(segment_ident(s, span)))
            .collect();
        if !module.is_empty() {
            seen.push(syn::PathSegment::from(crate::device::callee_module_name(module, span)));
            if self.inlining.len() == 1 {
                let module = syn::Path {
                    leading_colon: None,
                    segments: module.iter().map(|s| (*s).clone()).collect(),
                };
                if !self.callee_modules.iter().any(|m| path_key(m) == path_key(&module)) {
                    self.callee_modules.push(module);
                }
            }
        }
        seen.push((*last).clone());
        syn::Path { leading_colon, segments: seen }
    }

    /// The parameters (scalars and slices, as kernel parameters) and return type of a `#[ptx_device]`
    /// function, with its mistakes reported.
    pub fn device_signature(&mut self, f: &ItemFn) -> (Vec<Param>, (TypeAnnot, Sp)) {
        let sig = &f.sig;
        let inlined = "(device functions are inlined into the kernels that call them)";
        if let Some(t) = &sig.asyncness {
            self.err(t, "a `#[ptx_device]` function cannot be `async`: remove `async`");
        }
        if let syn::Safety::Unsafe(t) = &sig.safety {
            self.err(t, "a `#[ptx_device]` function cannot be `unsafe`: remove `unsafe`");
        }
        if let Some(abi) = &sig.abi {
            self.err(abi, format!("a `#[ptx_device]` function cannot have an `extern` ABI {inlined}"));
        }
        let lifetimes_only = sig.generics.params.iter().all(|g| matches!(g, syn::GenericParam::Lifetime(_)));
        if !lifetimes_only {
            self.err(&sig.generics, "`#[ptx_device]` functions cannot be generic: write one per type");
        } else if let Some(w) = &sig.generics.where_clause {
            self.err(
                w,
                "a `#[ptx_device]` function cannot have a `where` clause (it is not generic): remove it",
            );
        }
        if let Some(v) = &sig.variadic {
            self.err(v, "`#[ptx_device]` functions cannot be variadic");
        }
        let mut params = Vec::new();
        for arg in &sig.inputs {
            let pt = match arg {
                FnArg::Receiver(r) => {
                    self.err(r, "`#[ptx_device]` functions are free functions: remove the `self` parameter");
                    continue;
                }
                FnArg::Typed(pt) => pt,
            };
            // A lint level is the host copy's, which carries it.
            if let Some(a) = pt.attrs.iter().find(|a| !is_lint_or_tool_attribute(a)) {
                self.err(
                    a,
                    "parameters of a `#[ptx_device]` function take only lint levels \
                     (`#[allow(unused_variables)]`) and tools' attributes",
                );
            }
            let (name, mutable) = match &*pt.pat {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    (pi.ident.clone(), pi.mutability.is_some())
                }
                // An unused parameter: its argument is still evaluated.
                syn::Pat::Wild(_) => (
                    Ident::new(&format!("__ptx_unused{}", params.len()), proc_macro2::Span::mixed_site()),
                    false,
                ),
                other => {
                    self.err(
                        other,
                        "a `#[ptx_device]` parameter must be a plain name (`x: f32`), not a pattern",
                    );
                    continue;
                }
            };
            match (&*pt.ty, self.scalar_of(&pt.ty)) {
                (syn::Type::Reference(r), _) if self.scalar_of(&r.elem).is_some() => {
                    let message = format!(
                        "pass scalars by value (`{name}: {}`), not by reference; to change the caller's \
                         value, return the new one (`-> {0}`) and assign it at the call",
                        r.elem.to_token_stream()
                    );
                    self.err(r, message);
                    self.refused_references.push(name);
                }
                (syn::Type::Reference(_), _) => {
                    if let Some(kind @ ParamKind::Slice { .. }) = self.param_type(&pt.ty, false) {
                        if let syn::Pat::Ident(syn::PatIdent { mutability: Some(m), .. }) = &*pt.pat {
                            self.err(
                                m,
                                "a slice parameter cannot be `mut`: remove it (`&mut [T]` is what lets the \
                                 function write the elements)",
                            );
                        }
                        params.push(Param { name, kind, mutable: false, lints: Vec::new() });
                    }
                }
                (_, Some(s)) => {
                    params.push(Param { name, kind: ParamKind::Scalar(s), mutable, lints: Vec::new() })
                }
                (syn::Type::Tuple(_) | syn::Type::Paren(_), _) => match self.return_annot(&pt.ty) {
                    Some(annot @ TypeAnnot::Tuple(_)) if !holds_array(&annot) => {
                        params.push(Param { name, kind: ParamKind::Tuple(annot), mutable, lints: Vec::new() })
                    }
                    _ => {
                        self.err(&pt.ty, "a tuple parameter holds scalars and tuples of them (`(f32, u32)`)")
                    }
                },
                (syn::Type::Array(_), _) => {
                    if let Some(TypeAnnot::Array(elem, len)) = self.type_annot(&pt.ty) {
                        match *elem {
                            TypeAnnot::Scalar(elem) => params.push(Param {
                                name,
                                kind: ParamKind::Array { elem, len },
                                mutable,
                                lints: Vec::new(),
                            }),
                            _ => self.err(&pt.ty, "an array parameter holds a scalar type (`[f32; 4]`)"),
                        }
                    }
                }
                _ => self.err(
                    &pt.ty,
                    format!(
                        "`#[ptx_device]` functions take scalars by value (bool u8 i8 u16 i16 u32 i32 u64 i64 \
                         usize isize f32 f64 f16 bf16), tuples and arrays of them by value (`(f32, u32)`, `[f32; 4]`) \
                         and slices (`&[T]`, `&mut [T]`) {inlined}"
                    ),
                ),
            }
        }
        let ret = match &sig.output {
            ReturnType::Default => (TypeAnnot::Tuple(Vec::new()), Sp::of(&sig.ident)),
            ReturnType::Type(_, ty) => {
                let annot = self.return_annot(ty).unwrap_or_else(|| {
                    self.err(
                        ty,
                        "a `#[ptx_device]` function returns a scalar (bool u8 i8 u16 i16 u32 i32 u64 i64 usize \
                         isize f32 f64 f16 bf16), a tuple of them, an array of them (`[f32; 4]`), or nothing",
                    );
                    TypeAnnot::Infer
                });
                (annot, Sp::of(ty))
            }
        };
        (params, ret)
    }

    /// A device function's return type as an annotation, if it is a scalar, a tuple of them or
    /// an array of scalars with a literal length.
    fn return_annot(&self, ty: &syn::Type) -> Option<TypeAnnot> {
        match ty {
            syn::Type::Tuple(t) => {
                t.elems.iter().map(|e| self.return_annot(e)).collect::<Option<_>>().map(TypeAnnot::Tuple)
            }
            syn::Type::Paren(p) => self.return_annot(&p.elem),
            syn::Type::Array(a) => {
                let elem = self.scalar_of(&a.elem)?;
                Some(TypeAnnot::Array(Box::new(TypeAnnot::Scalar(elem)), literal_length(&a.len)?))
            }
            other => self.scalar_of(other).map(TypeAnnot::Scalar),
        }
    }

    /// `shared::<T, N>()`, `N` a literal, a `#[comptime]` parameter or a `{ .. }` block of
    /// comptime values; `shared_dyn::<T>()`.
    fn shared(&mut self, c: &syn::ExprCall, seg: &syn::PathSegment, sp: Sp) -> Expr {
        let dynamic = seg.ident == "shared_dyn";
        let usage = if dynamic {
            "the dynamic shared array is declared `let buffer = shared_dyn::<f32>();` (its length is what \
             the launch's `LaunchConfig::with_shared_mem` bytes hold)"
        } else {
            "a shared array is declared `let tile = shared::<f32, 256>();` (element type, then the length: \
             a literal, a `#[comptime]` parameter or a `{ .. }` expression of them)"
        };
        let name = seg.ident.to_string();
        if let Some(extra) = c.args.first() {
            self.err(extra, format!("`{name}` takes no arguments: {usage}"));
            return self.expr_of(ExprKind::Error, sp);
        }
        let syn::PathArguments::AngleBracketed(generics) = &seg.arguments else {
            self.err(seg, usage);
            return self.expr_of(ExprKind::Error, sp);
        };
        let generics: Vec<&syn::GenericArgument> = generics.args.iter().collect();
        let (elem_ty, len) = match (dynamic, generics.as_slice()) {
            (false, [syn::GenericArgument::Type(elem_ty), len]) => (elem_ty, Some(*len)),
            (true, [syn::GenericArgument::Type(elem_ty)]) => (elem_ty, None),
            _ => {
                self.err(seg, usage);
                return self.expr_of(ExprKind::Error, sp);
            }
        };
        let Some(elem) = self.scalar_of(elem_ty).filter(|s| *s != Scalar::Bool) else {
            self.err(
                elem_ty,
                "a shared array's elements are one of `u8 i8 u16 i16 u32 i32 u64 i64 usize isize f32 f64 f16 bf16`",
            );
            return self.expr_of(ExprKind::Error, sp);
        };
        let len = match len {
            None => None,
            Some(syn::GenericArgument::Const(e)) => Some(Box::new(self.expr(e))),
            // `shared::<f32, BLOCK>()` parses as a type argument: a comptime parameter's name.
            Some(syn::GenericArgument::Type(syn::Type::Path(t)))
                if t.qself.is_none() && t.path.get_ident().is_some() =>
            {
                let path = syn::ExprPath { attrs: Vec::new(), qself: None, path: t.path.clone() };
                Some(Box::new(self.expr(&syn::Expr::Path(path))))
            }
            Some(other) => {
                self.err(other, usage);
                return self.expr_of(ExprKind::Error, sp);
            }
        };
        self.expr_of(ExprKind::Shared { func: seg.ident.clone(), elem, len }, sp)
    }

    /// `atomic_op(&mut x[i], value)` (`atomic_cas(&mut x[i], current, new)`).
    fn atomic(&mut self, c: &syn::ExprCall, op: AtomicOp, func: &Ident, sp: Sp) -> Expr {
        let name = op.name();
        let values = if op == AtomicOp::Cas { "current, new" } else { "value" };
        let usage = format!("`{name}(&mut x[i], {values})`");
        let mut args = c.args.iter();
        let place = match args.next() {
            Some(syn::Expr::Reference(r)) if r.mutability.is_some() => match crate::desugar::unparen(&r.expr)
            {
                syn::Expr::Index(_) => self.place(crate::desugar::unparen(&r.expr)),
                other => {
                    self.err(other, format!("atomics work on elements of slices and shared arrays: {usage}"));
                    None
                }
            },
            Some(other) => {
                self.err(
                    other,
                    format!("the first argument of `{name}` is the element, as `&mut x[i]`: {usage}"),
                );
                None
            }
            None => {
                self.err(c, format!("`{name}` takes the element and {values}: {usage}"));
                None
            }
        };
        let args: Vec<&syn::Expr> = args.collect();
        // `&mut x[i]` borrows `x` for the whole call: a value reading `x` is rustc's E0503.
        if let Some(Place::Index { slice, .. }) = &place {
            if let Some(read) = args.iter().find_map(|a| mentions(a.to_token_stream(), slice)) {
                self.errors.at(
                    Sp::of(&read),
                    format!(
                        "cannot use `{slice}` because it was mutably borrowed (rustc's E0503): `&mut {slice}[..]` \
                         borrows it for the whole call; read the value first, `let v = {slice}[..];`"
                    ),
                );
            }
        }
        let values: Vec<Expr> = args.into_iter().map(|a| self.expr(a)).collect();
        let Some(place) = place else { return self.expr_of(ExprKind::Error, sp) };
        if values.len() != op.value_count() {
            self.err(
                c,
                format!(
                    "`{name}` takes the element and {}: {usage}",
                    if op == AtomicOp::Cas { "two values" } else { "one value" }
                ),
            );
            return self.expr_of(ExprKind::Error, sp);
        }
        self.expr_of(ExprKind::Atomic { op, func: func.clone(), place, args: values }, sp)
    }

    /// `load2(x, i)`, `load4(x, i)`, `load8(x, i)`, `store2(x, i, (a, b))`,
    /// `store4(x, i, (a, b, c, d))`, `store8(x, i, (a, b, c, d, e, f, g, h))`.
    fn vector(&mut self, c: &syn::ExprCall, width: usize, store: bool, func: &Ident, sp: Sp) -> Expr {
        let usage = match (store, width) {
            (false, 2) => "`load2(x, i)`",
            (false, 4) => "`load4(x, i)`",
            (false, _) => "`load8(x, i)`",
            (true, 2) => "`store2(x, i, (a, b))`",
            (true, 4) => "`store4(x, i, (a, b, c, d))`",
            (true, _) => "`store8(x, i, (a, b, c, d, e, f, g, h))`",
        };
        let args: Vec<&syn::Expr> = c.args.iter().collect();
        if args.len() != 2 + store as usize {
            self.err(c, format!("`{func}` takes {} arguments: {usage}", 2 + store as usize));
            return self.expr_of(ExprKind::Error, sp);
        }
        let slice = match args[0] {
            syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                p.path.get_ident().cloned()
            }
            other => {
                self.err(
                    other,
                    format!("the first argument of `{func}` is a slice parameter, by name: {usage}"),
                );
                None
            }
        };
        let index = Box::new(self.expr(args[1]));
        let values = store.then(|| Box::new(self.expr(args[2])));
        let Some(slice) = slice else { return self.expr_of(ExprKind::Error, sp) };
        self.expr_of(ExprKind::Vector { func: func.clone(), width, slice, index, values }, sp)
    }

    /// A `match`, as the `if` chain [`crate::desugar::match_expr`] makes of it; `of_match`:
    /// whether it was written as one (not as an `if let`).
    /// `matches!(value, pattern)` (or `pattern if guard`): the `match` it stands for,
    /// `match value { pattern => true, _ => false }`.
    fn matches(&mut self, mac: &syn::Macro, sp: Sp) -> Expr {
        let arguments = |input: syn::parse::ParseStream| {
            let value: syn::Expr = input.parse()?;
            input.parse::<syn::Token![,]>()?;
            let pattern = syn::Pat::parse_multi_with_leading_vert(input)?;
            let guard = match input.parse::<Option<syn::Token![if]>>()? {
                Some(_) => Some(input.parse::<syn::Expr>()?),
                None => None,
            };
            input.parse::<Option<syn::Token![,]>>()?;
            Ok((value, pattern, guard))
        };
        match mac.parse_body_with(arguments) {
            Ok((value, pattern, guard)) => {
                let guard = guard.map(|g| quote::quote!(if #g));
                let span = syn::spanned::Spanned::span(&mac.path);
                let m: syn::ExprMatch =
                    syn::parse_quote_spanned!(span=> match #value { #pattern #guard => true, _ => false });
                self.match_expr(&m, false)
            }
            Err(e) => {
                self.err(mac, format!("`matches!` takes a value and a pattern, `matches!(x, 1 | 2)`: {e}"));
                self.expr_of(ExprKind::Error, sp)
            }
        }
    }

    fn match_expr(&mut self, m: &syn::ExprMatch, of_match: bool) -> Expr {
        let id = self.id();
        match crate::desugar::match_expr(m, id) {
            Ok((chain, coverage)) => {
                let mut chain = self.expr(&chain);
                if let ExprKind::Block(block) = &mut chain.kind {
                    if let Some(tail) = block.tail.as_mut().filter(|_| of_match) {
                        mark_match_arms(tail);
                    }
                    // After the scrutinee's `let`, the check that the arms cover its type.
                    if let Some(c) = coverage {
                        let kind = ExprKind::Coverage { value: c.value, arms: c.arms };
                        let expr = self.expr_of(kind, c.span);
                        let at = block.stmts.len().min(1);
                        block.stmts.insert(at, Stmt::Expr { expr, text: String::new(), discards: true });
                    }
                }
                chain
            }
            Err(e) => {
                self.errors.push(e);
                self.expr_of(ExprKind::Error, Sp::of(m))
            }
        }
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> ExprKind {
        let cond = match &*i.cond {
            syn::Expr::Let(l) => return self.match_expr(&crate::desugar::if_let(i, l), false).kind,
            cond => Box::new(self.expr(cond)),
        };
        let then = self.block(&i.then_branch);
        let els = i.else_branch.as_ref().map(|(_, e)| Box::new(self.expr(e)));
        let binds = i.attrs.iter().find(|a| a.path().is_ident(crate::desugar::OR_BINDING_ATTRIBUTE));
        let role = match binds.and_then(|a| a.parse_args::<Ident>().ok()) {
            Some(name) => IfRole::OrBinding(name),
            None => IfRole::Written,
        };
        ExprKind::If { cond, then, els, role }
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> Option<ExprKind> {
        let unroll = f.attrs.iter().any(|a| a.path().is_ident("unroll")).then(|| Sp::of(&f.for_token));
        for a in f.attrs.iter().filter(|a| a.path().is_ident("unroll")) {
            if a.meta.require_path_only().is_err() {
                self.err(a, "`#[unroll]` takes no arguments: it unrolls every iteration of a comptime range");
            }
        }
        let mut mutable_var = None;
        let mut rejected = None;
        // The range first: a pattern is judged against a range the language has.
        let range = self.range(&f.expr);
        let var = match &*f.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                if pi.mutability.is_some() {
                    mutable_var = Some(pi);
                }
                Some(pi.ident.clone())
            }
            syn::Pat::Wild(_) => None,
            other => {
                if range.is_some() {
                    self.err(other, "a `for` loop binds one name (`for i in ..`) or `_`");
                }
                rejected = Some(self.rejected_pat(other));
                None
            }
        };
        let mut body = self.in_jump_scope(f.label.as_ref(), false, |p| p.block(&f.body));
        if let Some((pat, init)) = rejected {
            // The names of a rejected pattern are still bound in the body.
            let (sp, text) = (init.span, String::new());
            body.stmts.insert(0, Stmt::Let { pat, ty: None, init, span: sp, text, role: LetRole::Source });
        }
        if let Some(pi) = mutable_var {
            // `for mut j in ..` is `for j in .. { let mut j = j; .. }`.
            let (name, sp) = (pi.ident.clone(), Sp::of(pi));
            let init = self.expr_of(ExprKind::Path(name.clone()), sp);
            let text = format!("let mut {name} = {name};");
            let role = self.source_role();
            body.stmts.insert(
                0,
                Stmt::Let { pat: Pat::Ident { name, mutable: true }, ty: None, init, span: sp, text, role },
            );
        } else if let (Some(name), false) = (&var, self.inlining.is_empty()) {
            // A device function's loop variable is read (`let _ = i;`, which computes
            // nothing), so that it is reported unused at the function's host copy only.
            let sp = Sp::of(name);
            let init = self.expr_of(ExprKind::Path(name.clone()), sp);
            let read = Stmt::Let {
                pat: Pat::Wild,
                ty: None,
                init,
                span: sp,
                text: String::new(),
                role: LetRole::Source,
            };
            body.stmts.insert(0, read);
        }
        Some(ExprKind::For {
            label: f.label.as_ref().map(|l| l.name.clone()),
            var,
            range: range?,
            body,
            unroll,
        })
    }

    fn range(&mut self, e: &syn::Expr) -> Option<RangeSpec> {
        const HINT: &str =
            "a `for` loop iterates over a range: `a..b`, `a..=b`, `(a..b).step_by(s)`, `(a..b).rev()`, \
             `(a..b).rev().step_by(s)` or `(a..b).step_by(s).rev()`, or over a local array or a slice: `for v in a`, `for d in [16, 8, 4]`, \
             `for (i, &v) in a.iter().enumerate()`";
        match e {
            syn::Expr::Paren(p) => self.range(&p.expr),
            syn::Expr::Group(g) => self.range(&g.expr),
            syn::Expr::Range(r) => {
                let (Some(start), Some(end)) = (&r.start, &r.end) else {
                    self.err(r, "a `for` range needs both ends (`a..b`)");
                    return None;
                };
                Some(RangeSpec {
                    start: Box::new(self.expr(start)),
                    end: Box::new(self.expr(end)),
                    inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
                    step: None,
                    order: RangeOrder::Forward,
                })
            }
            syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("grid_stride")) => {
                self.grid_stride(c)
            }
            syn::Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
                let receiver = crate::desugar::unparen(&m.receiver);
                if matches!(receiver, syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("grid_stride")))
                {
                    self.err(
                        &m.method,
                        "`grid_stride(n)` cannot be reversed: each thread's indices go up by the grid's size",
                    );
                    return None;
                }
                let mut spec = self.range(&m.receiver)?;
                spec.order = match spec.order {
                    RangeOrder::Forward if spec.step.is_some() => RangeOrder::StepsReversed,
                    RangeOrder::Forward => RangeOrder::Reversed,
                    RangeOrder::Reversed | RangeOrder::StepsReversed => {
                        self.err(
                            &m.method,
                            "a second `.rev()` is not supported in a kernel's `for` range: reverse it once, \
                             `(a..b).rev()`, `(a..b).rev().step_by(s)` or `(a..b).step_by(s).rev()`",
                        );
                        return None;
                    }
                };
                Some(spec)
            }
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let mut spec = self.range(&m.receiver)?;
                if spec.step.is_some() {
                    self.err(&m.method, "`step_by` is applied once");
                }
                spec.step = Some(Box::new(self.expr(&m.args[0])));
                Some(spec)
            }
            other => {
                self.err(other, HINT);
                None
            }
        }
    }
}

impl Parser<'_> {
    /// `grid_stride(n)`: `(global_idx().x as usize..n).step_by(grid_dim().x * block_dim().x)`,
    /// each thread of the grid taking every grid-size-th index.
    fn grid_stride(&mut self, c: &syn::ExprCall) -> Option<RangeSpec> {
        let syn::Expr::Path(p) = &*c.func else { return None };
        let func = p.path.get_ident()?.clone();
        let sp = Sp::of(c);
        let [n] = c.args.iter().collect::<Vec<_>>()[..] else {
            self.err(c, "`grid_stride` takes the length: `for i in grid_stride(n)`, `n` a `usize`");
            return None;
        };
        let end = self.expr(n);
        let mut part = |which| {
            let kind = ExprKind::Intrinsic { which, func: func.clone(), args: Vec::new() };
            Box::new(self.expr_of(kind, sp))
        };
        let start = part(Intrinsic::GridStrideStart);
        let step = part(Intrinsic::GridStrideStep);
        Some(RangeSpec {
            start,
            end: Box::new(end),
            inclusive: false,
            step: Some(step),
            order: RangeOrder::Forward,
        })
    }
}

/// The literal pieces of a `gpu_print!` format around its `{}` placeholders (`{{` and `}}`
/// are braces), or what in it is not supported.
fn split_format(format: &str) -> Result<Vec<String>, String> {
    let mut pieces = vec![String::new()];
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('{', Some('{')) | ('}', Some('}')) => {
                chars.next();
                pieces.last_mut().map(|p| p.push(c)).unwrap_or_default();
            }
            ('{', Some('}')) => {
                chars.next();
                pieces.push(String::new());
            }
            ('{', _) => {
                return Err(
                    "only plain `{}` placeholders are supported (no names, positions or `:` specs)".into()
                )
            }
            ('}', _) => return Err("a `}` without its `{` (write `}}` for a brace)".into()),
            _ => pieces.last_mut().map(|p| p.push(c)).unwrap_or_default(),
        }
    }
    Ok(pieces)
}

/// A path segment's identifier from its text (`r#type` as the raw identifier it is).
fn segment_ident(text: &str, span: proc_macro2::Span) -> Ident {
    match text.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, span),
        None => Ident::new(text, span),
    }
}

/// A `let`'s text for the PTX's comments: the source, but for the bindings [`crate::desugar`]
/// writes: a `match`'s scrutinee as `match value`, a `for` loop's array as `for .. in
/// array`, the names of patterns and array elements none.
fn let_text(local: &syn::Local) -> String {
    match (&local.pat, &local.init) {
        (syn::Pat::Ident(p), Some(init)) if crate::desugar::is_hidden(&p.ident) => {
            format!("match {}", source_text(&init.expr))
        }
        (syn::Pat::Ident(p), Some(init)) if crate::desugar::is_for_array(&p.ident) => {
            format!("for .. in {}", source_text(&init.expr))
        }
        // The names of patterns and array elements: `source_text` leaves out what names the
        // hidden values.
        _ => source_text(local),
    }
}

/// The length in an array type, `[T; 4]`, when it is an integer literal.
fn literal_length(len: &syn::Expr) -> Option<u64> {
    match len {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. }) => n.base10_parse().ok(),
        _ => None,
    }
}

/// `t.1.0` of a variable `t` as the variable and the positions, outermost first; `None` for
/// any other expression.
fn tuple_element(e: &syn::Expr) -> Option<(&Ident, Vec<syn::Index>)> {
    let mut fields = Vec::new();
    let mut at = crate::desugar::unparen(e);
    while let syn::Expr::Field(f) = at {
        let syn::Member::Unnamed(index) = &f.member else { return None };
        fields.push(index.clone());
        at = crate::desugar::unparen(&f.base);
    }
    fields.reverse();
    match at {
        syn::Expr::Path(p) if p.qself.is_none() && !fields.is_empty() => Some((p.path.get_ident()?, fields)),
        _ => None,
    }
}

/// Whether an annotation has an array in it (a tuple of arrays, which kernels do not have).
fn holds_array(annot: &TypeAnnot) -> bool {
    match annot {
        TypeAnnot::Array(..) => true,
        TypeAnnot::Tuple(items) => items.iter().any(holds_array),
        _ => false,
    }
}

/// Marks the `if` chain a `match` became as its arms (see [`ExprKind::If`]).
fn mark_match_arms(e: &mut Expr) {
    if let ExprKind::If { els, role, .. } = &mut e.kind {
        *role = IfRole::MatchArms;
        if let Some(els) = els {
            mark_match_arms(els);
        }
    }
}

/// The order in which a block's `const`s (positions among its `const` items, in source
/// order) are bound: each after the `const`s of the block its value names, as Rust
/// evaluates them whatever their order. Where the rest read each other (a cycle), the first
/// in source order is bound next and comes back, to be reported.
fn const_order(stmts: &[syn::Stmt]) -> (Vec<usize>, Vec<&syn::ItemConst>) {
    let consts: Vec<&syn::ItemConst> = stmts
        .iter()
        .filter_map(|s| match s {
            syn::Stmt::Item(syn::Item::Const(c)) if c.generics.params.is_empty() => Some(c),
            _ => None,
        })
        .collect();
    let names: Vec<String> = consts.iter().map(|c| c.ident.to_string()).collect();
    let reads: Vec<Vec<usize>> = consts
        .iter()
        .map(|c| {
            let mut idents = Vec::new();
            token_idents(c.expr.to_token_stream(), &mut idents);
            (0..names.len()).filter(|&j| idents.contains(&names[j])).collect()
        })
        .collect();
    let mut order = Vec::with_capacity(consts.len());
    let mut placed = vec![false; consts.len()];
    let mut cycles = Vec::new();
    while order.len() < consts.len() {
        let ready = (0..consts.len()).find(|&i| !placed[i] && reads[i].iter().all(|&j| placed[j]));
        let next = ready.unwrap_or_else(|| {
            let first = placed.iter().position(|p| !p).unwrap_or(0);
            cycles.push(consts[first]);
            first
        });
        placed[next] = true;
        order.push(next);
    }
    (order, cycles)
}

/// Every identifier in `tokens`, nested groups included.
fn token_idents(tokens: TokenStream, out: &mut Vec<String>) {
    for t in tokens {
        match t {
            proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
            proc_macro2::TokenTree::Group(g) => token_idents(g.stream(), out),
            _ => {}
        }
    }
}

/// The element type of `Vec<T>`, `[T; N]` or `[T]` behind a reference parameter, which a
/// kernel takes as the slice `&[T]`.
fn collection_element(ty: &syn::Type) -> Option<&syn::Type> {
    match ty {
        syn::Type::Array(a) => Some(&a.elem),
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
            match args.args.first() {
                Some(syn::GenericArgument::Type(elem)) if last.ident == "Vec" && args.args.len() == 1 => {
                    Some(elem)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// For a type named by one identifier the macro does not know (a struct, a `type` alias):
/// the note that kernels take no structs and the macro reads types as written; otherwise
/// nothing.
fn unseen_alias(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(p)
            if p.qself.is_none()
                && p.path.get_ident().is_some_and(|i| {
                    !["char", "str", "u128", "i128", "f128", "String"].contains(&i.to_string().as_str())
                }) =>
        {
            format!(
                "; `{}` is none of these: kernels take no structs, and `#[ptx_kernel]` reads types as \
                 written, before Rust resolves names, so it does not see through a `type` alias (write the \
                 type itself)",
                p.path.to_token_stream()
            )
        }
        _ => String::new(),
    }
}

/// For a call of `std::mem::swap`, `replace` or `take`, which take references: the message
/// saying what a kernel writes instead. The path is `std::mem::f` or `core::mem::f`, or
/// `mem::f` given a reference (a device function of a module `mem` of the user's takes none).
fn mem_function_instead(call: &syn::ExprCall) -> Option<String> {
    let syn::Expr::Path(p) = &*call.func else { return None };
    let names: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
    let (library, [.., module, function]) =
        (matches!(names.first().map(String::as_str), Some("std" | "core")), names.as_slice())
    else {
        return None;
    };
    let reference = call.args.iter().any(|a| matches!(crate::desugar::unparen(a), syn::Expr::Reference(_)));
    if !library && !reference {
        return None;
    }
    let instead = match function.as_str() {
        "swap" => "swap with a tuple assignment, `(a, b) = (b, a);` (slice elements: `x.swap(i, j)`)",
        "replace" => "write `let old = a; a = new;`",
        "take" => "write `let old = a; a = 0;`",
        _ => return None,
    };
    (module == "mem")
        .then(|| format!("`mem::{function}` takes references, which kernels do not have: {instead}"))
}

/// How to choose code by configuration in a kernel, whose body the macro reads before
/// `cfg` is applied.
const CHOOSE_BY_CONSTANT: &str = "`#[ptx_kernel]` reads the body before `cfg` is applied; choose with a \
    constant outside the kernel (`const DEBUG: bool = cfg!(debug_assertions);`, then `if DEBUG { .. }` \
    in the kernel), or put `#[cfg(..)]` on two `#[ptx_device]` functions of one name";

/// The message for an attribute on a statement that has one of its own (`#[cfg]`), or
/// `None`; a doc comment (`/// ..`) on a statement is a comment, as rustc takes it.
fn statement_attribute_message(attr: &syn::Attribute) -> Option<String> {
    let path = attr.path();
    (path.is_ident("cfg") || path.is_ident("cfg_attr")).then(|| {
        format!("`#[{}]` is not supported inside kernels: {CHOOSE_BY_CONSTANT}", path.to_token_stream())
    })
}

/// Whether `attr` is a doc comment, which on a statement is only a comment.
fn is_doc_comment(attr: &syn::Attribute) -> bool {
    attr.path().is_ident("doc")
}

/// Whether `attr` sets a lint level (`#[allow(..)]`, `#[expect(..)]`, `#[warn(..)]`,
/// `#[deny(..)]`) or is a tool's (`#[rustfmt::skip]`, `#[clippy::..]`): what rustc takes on
/// any statement or parameter, and which changes nothing in what a kernel computes.
fn is_lint_or_tool_attribute(attr: &syn::Attribute) -> bool {
    let path = attr.path();
    let tool = path.segments.len() > 1
        && path.segments.first().is_some_and(|s| s.ident == "rustfmt" || s.ident == "clippy");
    is_lint_level(attr) || tool
}

/// Whether `attr` sets a lint level (`#[allow(..)]`, `#[expect(..)]`, `#[warn(..)]`,
/// `#[deny(..)]`, `#[forbid(..)]`), which rustc takes on an expression statement too (a
/// tool's attribute there is unstable).
fn is_lint_level(attr: &syn::Attribute) -> bool {
    ["allow", "expect", "warn", "deny", "forbid"].iter().any(|l| attr.path().is_ident(l))
        && matches!(attr.meta, syn::Meta::List(_))
}

/// The first token of `tokens` (groups searched too) that is the identifier `name` as a
/// name of its own: not a field or method after `.` (`thread_idx().x`), nor a path's later
/// segment after `::`.
fn mentions(tokens: TokenStream, name: &Ident) -> Option<Ident> {
    let mut after_dot_or_colon = false;
    for t in tokens {
        let found = match &t {
            proc_macro2::TokenTree::Ident(i) if i == name && !after_dot_or_colon => Some(i.clone()),
            proc_macro2::TokenTree::Group(g) => mentions(g.stream(), name),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
        after_dot_or_colon =
            matches!(&t, proc_macro2::TokenTree::Punct(p) if p.as_char() == '.' || p.as_char() == ':');
    }
    None
}

/// What is wrong with `attr` on a function that `#[ON]` (`ptx_kernel` or `ptx_device`)
/// already marks, when it is one of the two again.
pub fn stacked_attribute(attr: &syn::Attribute, on: &str) -> Option<String> {
    let name = attr.path().segments.last()?.ident.to_string();
    if name == on {
        Some(format!("`#[{on}]` is given twice: remove one"))
    } else if name == "ptx_kernel" || name == "ptx_device" {
        Some(format!(
            "a function is a kernel (`#[ptx_kernel]`, launched from the host) or a device function \
             (`#[ptx_device]`, called from kernels), not both: remove `#[{name}]`"
        ))
    } else {
        None
    }
}

/// Whether `name` is written as Rust writes constants and statics: upper-case letters,
/// digits and `_`, with a letter.
pub fn is_constant_name(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The names a parameter binds, whatever its pattern.
fn arg_names(arg: &FnArg) -> Vec<Ident> {
    let mut names = Vec::new();
    if let FnArg::Typed(pt) = arg {
        pat_names(&pt.pat, &mut names);
    }
    names
}

/// Appends the names `p` binds: those of a rejected pattern stay bound (to a value that
/// checks as any type), so that their uses report nothing more.
fn pat_names(p: &syn::Pat, out: &mut Vec<Ident>) {
    match p {
        syn::Pat::Ident(pi) => {
            out.push(pi.ident.clone());
            if let Some((_, sub)) = &pi.subpat {
                pat_names(sub, out);
            }
        }
        syn::Pat::Or(o) => o.cases.iter().take(1).for_each(|c| pat_names(c, out)),
        syn::Pat::Paren(pp) => pat_names(&pp.pat, out),
        syn::Pat::Reference(r) => pat_names(&r.pat, out),
        syn::Pat::Slice(s) => s.elems.iter().for_each(|e| pat_names(e, out)),
        syn::Pat::Struct(s) => s.fields.iter().for_each(|f| pat_names(&f.pat, out)),
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|e| pat_names(e, out)),
        syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|e| pat_names(e, out)),
        syn::Pat::Type(t) => pat_names(&t.pat, out),
        _ => {}
    }
}

/// The range an expression covers. A binary expression's is its first operand's start to
/// its last one's end, found down the left spine without printing the whole tree (which,
/// for each node of a sum of thousands of terms, would take quadratic time).
fn span_of(e: &syn::Expr) -> Sp {
    let syn::Expr::Binary(b) = e else { return Sp::of(e) };
    let mut first = &*b.left;
    while let syn::Expr::Binary(inner) = first {
        first = &inner.left;
    }
    Sp::of(first).to(Sp::of(&*b.right))
}

/// The outer attributes of an expression, of every kind: an expression statement's are
/// on its leftmost operand (`#[unroll] y[1] = 2;` puts them on `y[1]`), so none may be
/// missed.
fn expr_attrs(e: &syn::Expr) -> &[syn::Attribute] {
    macro_rules! attrs {
        ($($kind:ident),*) => {
            match e {
                $(syn::Expr::$kind(x) => &x.attrs,)*
                _ => &[],
            }
        };
    }
    attrs!(
        Array, Assign, Async, Await, Binary, Block, Break, Call, Cast, Closure, Const, Continue, Field,
        ForLoop, Group, If, Index, Infer, Let, Lit, Loop, Macro, Match, MethodCall, Paren, Path, Range,
        RawAddr, Reference, Repeat, Return, Struct, Try, TryBlock, Tuple, Unary, Unsafe, While, Yield
    )
}

/// A statement as compact Rust text (for the comment above its instructions in the PTX):
/// tokens joined the way rustfmt would space them, cut before the first `{` of a compound
/// statement.
pub fn source_text(node: &impl ToTokens) -> String {
    let mut out = String::new();
    write_tokens(node.to_token_stream(), &mut out, true);
    let text = out.trim().to_string();
    if crate::desugar::names_hidden(&text) {
        return String::new();
    }
    if text.chars().count() > 120 {
        let cut: String = text.chars().take(117).collect();
        return format!("{cut}...");
    }
    text
}

/// An expression as Rust's `assert!` writes it in its message: the whole text, blocks and
/// all, however long (unlike [`source_text`], which cuts it for a PTX comment).
pub fn whole_source_text(node: &impl ToTokens) -> String {
    let mut out = String::new();
    write_tokens(node.to_token_stream(), &mut out, false);
    out.trim().to_string()
}

/// Appends `tokens` to `out`; with `top`, stops at the first brace group (writing `{`).
/// Returns false once it stopped.
fn write_tokens(tokens: TokenStream, out: &mut String, top: bool) -> bool {
    use proc_macro2::{Delimiter, Spacing, TokenTree};
    // Whether the previous token leaves an operand to come (so a `-` or `!` is unary).
    let mut expect_operand = true;
    let mut glue_next = true;
    let mut prev_ident = false;
    for tt in tokens {
        let space = match &tt {
            _ if glue_next => false,
            TokenTree::Punct(p) if matches!(p.as_char(), '.' | ',' | ';' | ':' | '?') => false,
            TokenTree::Group(g) if prev_ident && g.delimiter() != Delimiter::Brace => false,
            _ => true,
        };
        if space {
            out.push(' ');
        }
        glue_next = false;
        prev_ident = false;
        match &tt {
            TokenTree::Group(g) => {
                if top && g.delimiter() == Delimiter::Brace {
                    out.push('{');
                    return false;
                }
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                if !write_tokens(g.stream(), out, false) {
                    return false;
                }
                out.push_str(close);
                expect_operand = false;
            }
            TokenTree::Punct(p) => {
                out.push(p.as_char());
                let c = p.as_char();
                glue_next = p.spacing() == Spacing::Joint
                    || c == '.'
                    || (c == ':' && out.ends_with("::"))
                    || (matches!(c, '-' | '!') && expect_operand);
                expect_operand = p.spacing() == Spacing::Alone && c != '.';
            }
            other => {
                let text = other.to_string();
                // A keyword before a group is not a call: `let (a, b)`, `in (0..n)`.
                let keyword = matches!(
                    text.as_str(),
                    "return"
                        | "in"
                        | "as"
                        | "let"
                        | "mut"
                        | "if"
                        | "while"
                        | "for"
                        | "loop"
                        | "break"
                        | "else"
                );
                out.push_str(&text);
                prev_ident = matches!(other, TokenTree::Ident(_)) && !keyword;
                expect_operand = keyword && text != "mut";
            }
        }
    }
    true
}

/// Whether `ty` is `()` (in parentheses or a macro's invisible group too).
fn is_unit(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Tuple(t) => t.elems.is_empty(),
        syn::Type::Paren(p) => is_unit(&p.elem),
        syn::Type::Group(g) => is_unit(&g.elem),
        _ => false,
    }
}

/// `x[a..b]` (any range form, through parentheses and macro groups): the indexed
/// expression and the range, for `&x[a..b]`.
fn range_index(e: &syn::Expr) -> Option<(&syn::Expr, &syn::ExprRange)> {
    match e {
        syn::Expr::Group(g) => range_index(&g.expr),
        syn::Expr::Paren(p) => range_index(&p.expr),
        syn::Expr::Index(ix) => {
            let mut index = &*ix.index;
            while let syn::Expr::Group(g) = index {
                index = &g.expr;
            }
            match index {
                syn::Expr::Range(range) => Some((&ix.expr, range)),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::source_text;

    /// The statement text in PTX comments reads like the source: calls glued to their
    /// arguments, keywords apart from a following group, unary minus glued.
    #[test]
    fn statement_text_reads_like_rust() {
        let cases: [(syn::Stmt, &str); 4] = [
            (syn::parse_quote!(let (s, c) = (x * 2.0).sin_cos();), "let (s, c) = (x * 2.0).sin_cos();"),
            (syn::parse_quote!(let mut acc = -f(a[i], 1);), "let mut acc = -f(a[i], 1);"),
            (
                syn::parse_quote!(for k in (0..n).step_by(2) {
                    acc += k;
                }),
                "for k in (0..n).step_by(2) {",
            ),
            (syn::parse_quote!(return;), "return;"),
        ];
        for (stmt, want) in cases {
            assert_eq!(source_text(&stmt), want);
        }
    }
}
