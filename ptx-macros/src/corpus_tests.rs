//! The macro run on the repository's own programs without rustc in the loop: every
//! `tests/ui/fail` case must give exactly the errors its reviewed `.stderr` shows (message,
//! line and column), and every kernel in the workspace's sources, examples, benches and
//! tests must expand, with no error, to code that parses. The trybuild suite (`tests/ui.rs`)
//! checks the same cases through the compiler; this one takes milliseconds, which is what
//! mutation testing (`scripts/mutants.sh`) needs from the tests it runs per mutant.

use super::expand_with;
use crate::device::{expand_device, path_key, DeviceFn, Devices};
use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use std::path::{Path, PathBuf};

/// An error as rustc prints it: message, line, column (both 1-based).
type Located = (String, usize, usize);

/// One `#[ptx_kernel]` use found in a source file.
struct KernelUse {
    /// The attribute's arguments (`vector_width = 4` in `#[ptx_kernel(vector_width = 4)]`).
    args: TokenStream,
    /// The item the attribute is on, without the attribute, as the macro receives it.
    item: TokenStream,
}

/// The workspace root (the parent of this crate).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("ptx-macros sits in the workspace").to_path_buf()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Removes the attribute `#[name]` from `attrs` and returns its arguments.
fn take_attr(attrs: &mut Vec<syn::Attribute>, name: &str) -> Option<TokenStream> {
    let at = attrs.iter().position(|a| a.path().segments.last().is_some_and(|s| s.ident == name))?;
    Some(match attrs.remove(at).meta {
        syn::Meta::Path(_) => TokenStream::new(),
        syn::Meta::List(list) => list.tokens,
        syn::Meta::NameValue(nv) => nv.value.into_token_stream(),
    })
}

/// The attributes of an item of any kind the attribute could be put on.
fn attrs_of(item: &mut syn::Item) -> Option<&mut Vec<syn::Attribute>> {
    use syn::Item;
    Some(match item {
        Item::Fn(i) => &mut i.attrs,
        Item::Struct(i) => &mut i.attrs,
        Item::Enum(i) => &mut i.attrs,
        Item::Union(i) => &mut i.attrs,
        Item::Const(i) => &mut i.attrs,
        Item::Static(i) => &mut i.attrs,
        Item::Mod(i) => &mut i.attrs,
        Item::Impl(i) => &mut i.attrs,
        Item::Trait(i) => &mut i.attrs,
        Item::Type(i) => &mut i.attrs,
        Item::Use(i) => &mut i.attrs,
        Item::ForeignMod(i) => &mut i.attrs,
        Item::Macro(i) => &mut i.attrs,
        _ => return None,
    })
}

/// The `#[ptx_kernel]` uses in a file: the items it is on, and the number of uses inside
/// `macro_rules!` templates (expanded only by rustc; their instances are tested elsewhere).
#[derive(Default)]
struct Found {
    kernels: Vec<KernelUse>,
    in_templates: usize,
    /// The `#[ptx_device]` functions, without the attribute.
    devices: Vec<TokenStream>,
}

impl Found {
    /// The file's device functions with the errors their own attribute reports, and with
    /// whether it reported any.
    fn devices(&self, errors: &mut Vec<Located>) -> Vec<(syn::ItemFn, bool)> {
        let mut devices = Vec::new();
        for item in &self.devices {
            let mut own = Vec::new();
            compile_errors(expand_device(TokenStream::new(), item.clone()), &mut own);
            if let Ok(item) = syn::parse2(item.clone()) {
                devices.push((item, !own.is_empty()));
            }
            errors.extend(own);
        }
        devices
    }
}

/// A kernel's expansion as rustc reaches it through the chain (`crate::chain`): while the
/// expansion is a call of a device function's macro, that function (one of the file's
/// `devices`) is added and the kernel expanded again. A call of a function the file does
/// not define stops it with no expansion (rustc's `cannot find macro`).
fn expand_chained(kernel: &KernelUse, devices: &[(syn::ItemFn, bool)]) -> TokenStream {
    let mut known = Devices::default();
    loop {
        let out = expand_with(kernel.args.clone(), kernel.item.clone(), &known);
        let Ok(file) = syn::parse2::<syn::File>(out.clone()) else { return out };
        let fetched = match file.items.as_slice() {
            [syn::Item::Macro(m)] if m.mac.tokens.to_string().contains("ptx_kernel_resume") => {
                Some(&m.mac.path)
            }
            _ => None,
        };
        let Some(path) = fetched else { return out };
        // By name: these files do not define two device functions of one name.
        let name = &path.segments.last().expect("a path has a segment").ident;
        let Some((item, failed)) = devices.iter().find(|(f, _)| f.sig.ident == *name) else {
            return TokenStream::new();
        };
        let key = path_key(path);
        assert!(known.get(&key).is_none(), "the chain fetched `{key}` twice");
        known.push(key, DeviceFn::new(item.clone(), *failed));
    }
}

/// The number of `#[ptx_kernel...]` attributes in a macro template's tokens.
fn template_uses(tokens: TokenStream) -> usize {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let is_kernel_attr = |t: Option<&TokenTree>| match t {
        Some(TokenTree::Group(g)) => {
            matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(i)) if i == "ptx_kernel")
        }
        _ => false,
    };
    let mut n = 0;
    for (i, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Punct(p) if p.as_char() == '#' && is_kernel_attr(tokens.get(i + 1)) => n += 1,
            TokenTree::Group(g) => n += template_uses(g.stream()),
            _ => {}
        }
    }
    n
}

/// Every `#[ptx_kernel]` use in `items`, in inline modules and in function bodies included.
fn collect(items: Vec<syn::Item>, out: &mut Found) {
    for mut item in items {
        match &mut item {
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = m.content.take() {
                    collect(inner, out);
                }
            }
            syn::Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                out.in_templates += template_uses(m.mac.tokens.clone());
            }
            syn::Item::Fn(f) => {
                let mut nested = Vec::new();
                block_items(&f.block, &mut nested);
                collect(nested, out);
            }
            _ => {}
        }
        if let Some(args) = attrs_of(&mut item).and_then(|a| take_attr(a, "ptx_kernel")) {
            out.kernels.push(KernelUse { args, item: item.into_token_stream() });
        } else if attrs_of(&mut item).and_then(|a| take_attr(a, "ptx_device")).is_some() {
            out.devices.push(item.into_token_stream());
        }
    }
}

/// The items declared in `block`, in its nested blocks (`{ #[ptx_kernel] fn k .. }`) too.
fn block_items(block: &syn::Block, out: &mut Vec<syn::Item>) {
    for s in &block.stmts {
        match s {
            syn::Stmt::Item(i) => out.push(i.clone()),
            syn::Stmt::Expr(syn::Expr::Block(b), _) => block_items(&b.block, out),
            _ => {}
        }
    }
}

/// The kernels of one source file, `source` read from `path`.
fn kernels_in(path: &Path, source: &str) -> Found {
    let file = syn::parse_file(source).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut found = Found::default();
    collect(file.items, &mut found);
    found
}

/// The `compile_error!` messages in an expansion, each where rustc would report it.
fn compile_errors(tokens: TokenStream, out: &mut Vec<Located>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Ident(id) if id == "compile_error" => {
                let Some(TokenTree::Group(args)) = tokens.get(i + 2) else { continue };
                let message: syn::LitStr = syn::parse2(args.stream()).expect("compile_error! holds a string");
                let start = id.span().start();
                out.push((message.value(), start.line, start.column + 1));
            }
            TokenTree::Group(g) => compile_errors(g.stream(), out),
            _ => {}
        }
    }
}

/// The errors a reviewed `.stderr` shows: each `error: message` (continuation lines
/// included) with the `--> file:line:column` that follows it.
fn reviewed_errors(stderr: &str) -> Vec<Located> {
    let mut found = Vec::new();
    let mut lines = stderr.lines();
    while let Some(line) = lines.next() {
        let Some(first) = line.strip_prefix("error: ") else { continue };
        let mut message = first.to_string();
        for next in lines.by_ref() {
            if let Some(location) = next.trim_start().strip_prefix("--> ") {
                let mut parts = location.rsplitn(3, ':');
                let column = parts.next().and_then(|c| c.parse().ok()).expect("a column");
                let line = parts.next().and_then(|l| l.parse().ok()).expect("a line");
                found.push((std::mem::take(&mut message), line, column));
                break;
            }
            message.push('\n');
            message.push_str(next);
        }
    }
    found
}

/// The `.rs` files under `dir`, recursively, in a stable order.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("list {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// Every `tests/ui/fail` case: the macro alone reports exactly the reviewed errors, in
/// order, each at its reviewed line and column.
#[test]
fn ui_failures_give_the_reviewed_errors() {
    let mut cases = Vec::new();
    rust_files(&root().join("tests/ui/fail"), &mut cases);
    assert!(cases.len() >= 50, "expected the ui cases, found {}", cases.len());
    let mut wrong = Vec::new();
    let mut syntax_errors = 0;
    for case in &cases {
        let source = read(case);
        if syn::parse_file(&source).is_err() {
            // Not valid Rust (`j++`): rustc's parser reports it first, and only trybuild sees
            // what reaches the macro after rustc's recovery.
            syntax_errors += 1;
            continue;
        }
        let found = kernels_in(case, &source);
        if found.kernels.is_empty() && found.in_templates > 0 {
            // Kernels stamped out by `macro_rules!` exist only once expanded: trybuild checks them.
            continue;
        }
        assert!(!found.kernels.is_empty(), "{}: no #[ptx_kernel] item", case.display());
        let mut got = Vec::new();
        let devices = found.devices(&mut got);
        for k in &found.kernels {
            compile_errors(expand_chained(k, &devices), &mut got);
        }
        // A call of a function that is not a device function is rustc's error (the chain's
        // macro call does not resolve), not the macro's, and so is an unused variable (its
        // lint, denied, on the generated code), and so is a written-out index past a constant
        // table's end (its `unconditional_panic`, whose message the macro's own index check
        // continues with the reason), and so is a name against the style (`non_snake_case`,
        // denied). The order of errors from different items follows
        // rustc's expansion order, which the chain's depth changes.
        let mut want = reviewed_errors(&read(&case.with_extension("stderr")));
        want.retain(|(message, ..)| {
            !message.starts_with("cannot find macro")
                && !message.starts_with("unused variable")
                && !message.ends_with("should have a snake case name")
                && message != "this operation will panic at runtime"
        });
        got.sort();
        want.sort();
        if got != want {
            wrong.push(format!("{}:\n  macro:    {got:?}\n  reviewed: {want:?}", case.display()));
        }
    }
    assert!(syntax_errors <= 2, "{syntax_errors} ui cases are not valid Rust: trybuild alone checks those");
    assert!(wrong.is_empty(), "{} of {} cases differ:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
}

/// Every kernel in the workspace's programs (library, examples, benches, tests, the ui
/// `pass` cases) expands with no error to code that parses as Rust; the walk finds as many
/// kernels in each file as it has `#[ptx_kernel` attribute lines, so none is skipped.
#[test]
fn every_workspace_kernel_expands_cleanly() {
    let root = root();
    let mut files = Vec::new();
    for dir in ["src", "examples", "benches", "tests"] {
        rust_files(&root.join(dir), &mut files);
    }
    files.retain(|f| !f.starts_with(root.join("tests/ui/fail")));
    let mut expanded = 0;
    for file in &files {
        let source = read(file);
        let found = kernels_in(file, &source);
        let attribute_lines = source.lines().filter(|l| l.trim_start().starts_with("#[ptx_kernel")).count();
        let seen = found.kernels.len() + found.in_templates;
        assert_eq!(seen, attribute_lines, "{}: kernels found vs `#[ptx_kernel` lines", file.display());
        let mut errors = Vec::new();
        let devices = found.devices(&mut errors);
        assert!(errors.is_empty(), "{}: {errors:?} in its device functions", file.display());
        for k in &found.kernels {
            let out = expand_chained(k, &devices);
            compile_errors(out.clone(), &mut errors);
            assert!(errors.is_empty(), "{}: {errors:?} in\n{}", file.display(), k.item);
            if let Err(e) = syn::parse2::<syn::File>(out) {
                panic!("{}: the expansion does not parse ({e}):\n{}", file.display(), k.item);
            }
            expanded += 1;
        }
    }
    assert!(expanded >= 60, "expected the workspace's kernels, found {expanded}");
}
