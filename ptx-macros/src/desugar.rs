//! `match`, `if let` and `while let` as the language's own `if` chains and loops, a `for`
//! loop over the elements of an array or a slice (`.iter()`, `.enumerate()`, ..) as one over
//! its indices, a destructuring assignment (`(a, b) = (b, a)`) as a `let` and one
//! assignment per place, and `x.swap(i, j)` as the reads and writes of the elements,
//! rewritten on syn's tree before parsing: the scrutinee is bound once to a hidden name,
//! each arm's pattern becomes a condition on it (literals and constants by `==`, ranges by
//! comparisons, `|` by `||`, tuples element by element, guards after the pattern's test)
//! and each name the pattern binds a `let` at the start of its arm. The conditions carry the patterns' spans, so a
//! pattern of the wrong type is reported where it is written.
//!
//! A kernel's `match` must be exhaustive as Rust sees it. Where no arm takes every value
//! (`_`, a name), what each unguarded arm's pattern covers ([`Cover`]) goes with the
//! rewritten `match` ([`Coverage`]), for [`crate::check`] to decide once the scrutinee's type
//! is known (`true` and `false`, `0..=9` and `10..` of a `u8`, tuples of those).

use std::cmp::Ordering;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::ast::{Scalar, Sp};
use crate::coverage::Cover;
use crate::parse::is_constant_name;

/// How the scrutinee's hidden name starts (a name no kernel writes).
const HIDDEN_PREFIX: &str = "__match_";

/// How the hidden name of the array a `for` loop iterates over starts.
const FOR_PREFIX: &str = "__for_";

/// How the hidden names of a destructuring assignment's values start.
const ASSIGN_PREFIX: &str = "__assign_";

/// Whether `name` is a scrutinee's hidden name.
pub fn is_hidden(name: &syn::Ident) -> bool {
    name.to_string().starts_with(HIDDEN_PREFIX)
}

/// The attribute on the `let` binding an element of a `for` loop that Rust may give by
/// reference (`#[..(reference)]` for `.iter()` and `&a`, `#[..(name)]` for a name, a
/// reference where it is a slice, `#[..(amp)]` for a `&v` pattern over a name), which
/// [`crate::parse`] records ([`crate::ast::Element`]).
pub const BORROWED_ATTRIBUTE: &str = "__ptx_dsl_borrowed";

/// The attribute on the `loop` a `while let` becomes: a `break` leaves it without a value,
/// as it leaves a `while`.
pub const WHILE_LET_ATTRIBUTE: &str = "__ptx_dsl_while_let";

/// The attribute (with the name) on the `if` that picks, for a name a `|` pattern binds, the
/// value of the case that matched: its arms disagreeing in type is rustc's error on the name.
pub const OR_BINDING_ATTRIBUTE: &str = "__ptx_dsl_or_binding";

/// The attribute on the name a pattern compares with (`N =>`, a range's end `0..=N`):
/// Rust compares only with a constant of that name, and binds a new name over a variable's
/// (or refuses one as a range's end).
pub const PATTERN_NAME_ATTRIBUTE: &str = "__ptx_dsl_pattern_name";

/// How the hidden names of a `swap`'s indices and element start.
const SWAP_PREFIX: &str = "__swap_";

/// Whether source text names one of the hidden names this rewriting writes (it is then no
/// statement of the user's, for the PTX's comments).
pub fn names_hidden(text: &str) -> bool {
    [HIDDEN_PREFIX, FOR_PREFIX, ASSIGN_PREFIX, SWAP_PREFIX].iter().any(|prefix| text.contains(prefix))
}

/// Whether `m` is `x.swap(i, j)` on a name (a slice or a local array, which the checker
/// makes sure of), which [`swap`] rewrites.
pub fn is_swap(m: &syn::ExprMethodCall) -> bool {
    m.method == "swap"
        && m.args.len() == 2
        && m.turbofish.is_none()
        && matches!(unparen(&m.receiver), syn::Expr::Path(p) if p.path.get_ident().is_some())
}

/// Whether `name` is the hidden name of a `swap`'s index (whose type errors name `swap`).
pub fn is_swap_index(name: &syn::Ident) -> bool {
    let name = name.to_string();
    name.starts_with(SWAP_PREFIX) && (name.ends_with("_i") || name.ends_with("_j"))
}

/// `x.swap(i, j)` as the standard library's `<[T]>::swap` does it, on `usize` indices:
/// `{ let __swap_N_i: usize = i; let __swap_N_j: usize = j; let __swap_N = x[__swap_N_i];
/// let __swap_N_o = x[__swap_N_j]; if __swap_N_i < x.len() && __swap_N_j < x.len() {
/// x[__swap_N_i] = __swap_N_o; x[__swap_N_j] = __swap_N; } }`: both reads first, so that an
/// index out of range is reported (the first of the two, as Rust's panic names it) before
/// any element is written, and none is written then.
pub fn swap(m: &syn::ExprMethodCall, id: usize) -> syn::Expr {
    let x = unparen(&m.receiver);
    let (i, j) = (&m.args[0], &m.args[1]);
    let span = m.method.span();
    let element = format_ident!("{SWAP_PREFIX}{}", id, span = span);
    let first = format_ident!("{SWAP_PREFIX}{}_i", id, span = i.span());
    let second = format_ident!("{SWAP_PREFIX}{}_j", id, span = j.span());
    let other = format_ident!("{SWAP_PREFIX}{}_o", id, span = span);
    syn::parse_quote_spanned!(span=> {
        let #first: usize = #i;
        let #second: usize = #j;
        let #element = #x[#first];
        let #other = #x[#second];
        if #first < #x.len() && #second < #x.len() {
            #x[#first] = #other;
            #x[#second] = #element;
        }
    })
}

/// `e` without the parentheses around it.
pub(crate) fn unparen(mut e: &syn::Expr) -> &syn::Expr {
    while let syn::Expr::Paren(p) = e {
        e = &p.expr;
    }
    e
}

/// Whether `a` assigns a tuple of places (`(a, b) = ..`) or discards (`_ = ..`), which
/// [`destructuring_assign`] rewrites.
pub fn assigns_tuple(a: &syn::ExprAssign) -> bool {
    matches!(unparen(&a.left), syn::Expr::Tuple(_) | syn::Expr::Infer(_))
}

/// `(a, (b, _)) = value` (a destructuring assignment to a tuple of places, see
/// [`assigns_tuple`]) as Rust defines it: `{ let (__assign_N_0, (__assign_N_1, _)) = value;
/// a = __assign_N_0; b = __assign_N_1; }`, the value first, then each place from left to
/// right.
pub fn destructuring_assign(a: &syn::ExprAssign, id: usize) -> syn::Expr {
    let span = a.eq_token.span;
    let mut stores = Vec::new();
    let pattern = assignee_pattern(unparen(&a.left), id, span, &mut stores);
    let value = &a.right;
    syn::parse_quote_spanned!(span=> { let #pattern = #value; #(#stores)* })
}

/// The pattern binding an assignee's values to hidden names, and (into `stores`) the
/// assignments of those names to its places.
fn assignee_pattern(e: &syn::Expr, id: usize, span: Span, stores: &mut Vec<TokenStream>) -> TokenStream {
    match e {
        syn::Expr::Paren(p) => assignee_pattern(&p.expr, id, span, stores),
        syn::Expr::Tuple(t) => {
            let parts: Vec<TokenStream> =
                t.elems.iter().map(|x| assignee_pattern(x, id, span, stores)).collect();
            quote_spanned!(span=> (#(#parts,)*))
        }
        syn::Expr::Infer(_) => quote_spanned!(span=> _),
        place => {
            let name = format_ident!("{ASSIGN_PREFIX}{}_{}", id, stores.len(), span = span);
            stores.push(quote_spanned!(place.span()=> #place = #name;));
            quote_spanned!(span=> #name)
        }
    }
}

/// Whether `name` is the hidden name of the array a `for` loop iterates over.
pub fn is_for_array(name: &syn::Ident) -> bool {
    name.to_string().starts_with(FOR_PREFIX)
}

/// How the copy a `for` loop takes of a name alone (`for v in y`) ends: what it copies is
/// moved, where it is a `&mut` slice ([`is_taken_by_for`]).
const TAKEN_SUFFIX: &str = "_taken";

/// Whether `name` is the copy a `for` loop over a name alone takes (`for v in y`).
pub fn is_taken_by_for(name: &syn::Ident) -> bool {
    is_for_array(name) && name.to_string().ends_with(TAKEN_SUFFIX)
}

/// What a `for` loop over the elements of an array or slice iterates: the array (or
/// slice), whether the elements are borrowed (`.iter()`, `&a`, `.copied()`, `.cloned()`:
/// the array cannot change while the loop runs, so it is not copied), whether they come
/// with their indices (`.enumerate()`) and in which order (`.rev()`).
struct Elements<'e> {
    base: &'e syn::Expr,
    borrowed: bool,
    /// `.copied()` or `.cloned()`: the elements are values, not references.
    copied: bool,
    /// The `.enumerate()`, if any.
    enumerated: Option<&'e syn::ExprMethodCall>,
    /// `.rev()`, before `.enumerate()` (`Some(true)`: positions count from the last
    /// element, 0 up) or after it or without it (`Some(false)`: each index stays its own).
    reversed: Option<bool>,
    /// A method that needs an iterator, called on the array or slice itself (which is
    /// none: `a.enumerate()`, `a.rev()`).
    not_iterator: Option<&'e syn::ExprMethodCall>,
    /// `.iter_mut()` or `&mut a`: mutable references, which kernels do not have.
    mutable: Option<&'e syn::Expr>,
    /// The name alone (`for v in a`): the loop takes the value, which moves a `&mut` slice
    /// (a method's receiver is reborrowed instead).
    taken: bool,
}

/// The elements `e` iterates over, when it is an array or a slice: a name (`a`), `&a`, an
/// array expression (`[16, 8, 4]`, `[0.0; 4]`), either followed by `.into_iter()`,
/// `.iter()`, `.iter().copied()` or `.iter().cloned()`, then `.enumerate()` and `.rev()` in
/// either order.
fn elements(e: &syn::Expr) -> Option<Elements<'_>> {
    // The method calls from the outermost in.
    let mut calls: Vec<&syn::ExprMethodCall> = Vec::new();
    let mut base = unparen(e);
    while let Some((_, receiver)) = no_argument_call(base) {
        if let syn::Expr::MethodCall(m) = base {
            calls.push(m);
        }
        base = receiver;
    }
    calls.reverse();
    let mut found = Elements {
        base,
        borrowed: false,
        copied: false,
        enumerated: None,
        reversed: None,
        not_iterator: None,
        mutable: None,
        taken: calls.is_empty() && !matches!(base, syn::Expr::Reference(_)),
    };
    if let syn::Expr::Reference(r) = base {
        found.base = unparen(&r.expr);
        found.borrowed = true;
        if r.mutability.is_some() {
            found.mutable = Some(base);
        }
    }
    let mut iterator = false;
    for (k, m) in calls.iter().enumerate() {
        let name = m.method.to_string();
        let first = k == 0 && !found.borrowed;
        match name.as_str() {
            "iter" | "into_iter" | "iter_mut" if first => {
                iterator = true;
                found.borrowed = name == "iter";
                if name == "iter_mut" {
                    found.mutable = Some(e);
                }
            }
            "copied" | "cloned"
                if calls[0].method == "iter" && !found.copied && found.enumerated.is_none() =>
            {
                found.copied = true
            }
            "enumerate" if found.enumerated.is_none() => {
                found.enumerated = Some(m);
                found.not_iterator = found.not_iterator.or((!iterator).then_some(*m));
            }
            "rev" if found.reversed.is_none() => {
                found.reversed = Some(found.enumerated.is_none());
                found.not_iterator = found.not_iterator.or((!iterator).then_some(*m));
            }
            _ => return None,
        }
    }
    let iterable = match found.base {
        // A name, or a constant table's path (`config::TAPS`).
        syn::Expr::Path(p) => p.path.get_ident().is_some() || names_constant(&p.path),
        syn::Expr::Array(_) | syn::Expr::Repeat(_) => true,
        // A range of a slice, borrowed: `&x[a..b]`, `x[a..].iter()`.
        syn::Expr::Index(ix) => found.borrowed && matches!(unparen(&ix.index), syn::Expr::Range(_)),
        _ => false,
    };
    iterable.then_some(found)
}

/// Whether `path` names a constant as Rust writes one (`TAPS`, `config::TAPS`: an upper-case
/// last name, no generic arguments).
pub fn names_constant(path: &syn::Path) -> bool {
    path.segments.iter().all(|s| s.arguments.is_none())
        && path.segments.last().is_some_and(|s| is_constant_name(&s.ident.to_string()))
}

/// `receiver.method()` (no arguments, no turbofish) of the methods a `for` loop over an
/// array takes, as the method's name and the receiver, both without parentheses.
fn no_argument_call(e: &syn::Expr) -> Option<(&str, &syn::Expr)> {
    match unparen(e) {
        syn::Expr::MethodCall(m) if m.args.is_empty() && m.turbofish.is_none() => {
            let name = ["enumerate", "copied", "cloned", "iter", "into_iter", "iter_mut", "rev"]
                .into_iter()
                .find(|n| m.method == n)?;
            Some((name, unparen(&m.receiver)))
        }
        _ => None,
    }
}

/// Whether `f` loops over the elements of an array or a slice (see [`elements`]; the
/// checker makes sure the name is one), which [`for_in_array`] rewrites.
pub fn loops_over_array(f: &syn::ExprForLoop) -> bool {
    elements(&f.expr).is_some()
}

/// `'label: for PAT in array { .. }` over the elements of an array or slice (see
/// [`loops_over_array`]), as Rust iterates them: by value over a copy,
/// `{ let __for_N = array; 'label: for __for_N_i in 0..__for_N.len() { let PAT = __for_N[__for_N_i]; .. } }`,
/// or in place where the elements are borrowed or the name is a constant's (which cannot
/// change); `.enumerate()` binds the index too (`for (i, v) in ..`), `.rev()` runs the
/// indices down, and a borrowed element's `&v` pattern binds the value (an `#[unroll]`
/// stays on the loop).
pub fn for_in_array(f: &syn::ExprForLoop, id: usize) -> Result<syn::Expr, syn::Error> {
    let Some(found) = elements(&f.expr) else {
        return Err(syn::Error::new_spanned(&f.expr, "a `for` loop over this is not supported in kernels"));
    };
    let Elements { base, borrowed, copied, enumerated, reversed, not_iterator, mutable, taken } = found;
    if let Some(m) = not_iterator {
        let method = &m.method;
        let message = format!(
            "no method named `{method}` on an array or a slice: they are not iterators (rustc's E0599); write \
             `.iter().{method}()`"
        );
        return Err(syn::Error::new(method.span(), message));
    }
    if let Some(e) = mutable {
        let message =
            "a kernel has no mutable references (`iter_mut()`, `&mut a`): loop over the indices and \
                       assign the elements, `for i in 0..a.len() { a[i] = .. }`";
        return Err(syn::Error::new_spanned(e, message));
    }
    let enumerated = enumerated.is_some();
    let span = f.for_token.span;
    let index = format_ident!("{FOR_PREFIX}{}_i", id, span = span);
    // A constant's name, plain or by its path (`TAPS`, `config::TAPS`).
    let in_place = match base {
        syn::Expr::Path(p) => borrowed || names_constant(&p.path),
        _ => false,
    };
    let (copy, array) = if in_place {
        (quote_spanned!(span=>), quote_spanned!(span=> #base))
    } else if let syn::Expr::Index(_) = base {
        // A range of a slice: the sub-slice, borrowed once.
        let array = format_ident!("{FOR_PREFIX}{}", id, span = span);
        (quote_spanned!(span=> let #array = &#base;), quote_spanned!(span=> #array))
    } else {
        let taken = if taken { TAKEN_SUFFIX } else { "" };
        let array = format_ident!("{FOR_PREFIX}{}{taken}", id, span = span);
        (quote_spanned!(span=> let #array = #base;), quote_spanned!(span=> #array))
    };
    // A borrowed element (of `.iter()`, or of a name, which may be a slice) is a `&T` in
    // Rust: its `&v` pattern binds the value, and a plain `v` may be read as `*v`.
    let by_reference = !copied && (borrowed || matches!(base, syn::Expr::Path(_)));
    // The mark says how Rust gives the element (the checker tells a slice from an array).
    let marker = format_ident!("{BORROWED_ATTRIBUTE}", span = span);
    let mark = |how: &str| {
        let how = format_ident!("{how}", span = span);
        quote_spanned!(span=> #[#marker(#how)])
    };
    let element_pattern = |p: &syn::Pat| match p {
        syn::Pat::Reference(r) if by_reference && r.mutability.is_none() => {
            ((*r.pat).clone(), mark(if borrowed { "copied" } else { "amp" }))
        }
        syn::Pat::Ident(_) if by_reference => (p.clone(), mark(if borrowed { "reference" } else { "name" })),
        // Values, but the loop borrows the array all the same (`.iter().copied()`).
        syn::Pat::Ident(_) if borrowed => (p.clone(), mark("copied")),
        other => (other.clone(), quote_spanned!(span=>)),
    };
    // The indices run down for `.rev()`; reversed before `.enumerate()`, the positions still
    // count up while the elements come from the end.
    let (indices, element_at) = match reversed {
        None => (quote_spanned!(span=> 0..#array.len()), quote_spanned!(span=> #index)),
        Some(false) => (quote_spanned!(span=> (0..#array.len()).rev()), quote_spanned!(span=> #index)),
        Some(true) => {
            (quote_spanned!(span=> 0..#array.len()), quote_spanned!(span=> #array.len() - 1 - #index))
        }
    };
    let (attrs, label, body) = (&f.attrs, &f.label, &f.body);
    let stmts = &body.stmts;
    let bindings = if enumerated {
        match &*f.pat {
            syn::Pat::Tuple(t) if t.elems.len() == 2 => {
                let (position, (element, mark)) = (&t.elems[0], element_pattern(&t.elems[1]));
                quote_spanned!(span=> let #position = #index; #mark let #element = #array[#element_at];)
            }
            // The pair under one name.
            syn::Pat::Ident(p) if p.subpat.is_none() => {
                quote_spanned!(span=> let #p = (#index, #array[#element_at]);)
            }
            other => {
                let message = "a `for` loop over `.enumerate()` binds `(index, element)`";
                return Err(syn::Error::new_spanned(other, message));
            }
        }
    } else {
        let (element, mark) = element_pattern(&f.pat);
        quote_spanned!(span=> #mark let #element = #array[#element_at];)
    };
    Ok(syn::parse_quote_spanned!(span=> {
        #copy
        #(#attrs)* #label for #index in #indices {
            #bindings
            #(#stmts)*
        }
    }))
}

/// A name a pattern binds: `let mut? name = value;` at `span`.
struct Binding {
    mutability: Option<syn::Token![mut]>,
    name: syn::Ident,
    value: TokenStream,
    span: Span,
}

impl ToTokens for Binding {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let (mutability, name, value) = (&self.mutability, &self.name, &self.value);
        tokens.extend(quote_spanned!(self.span=> let #mutability #name = #value;));
    }
}

/// The part of a pattern's test and bindings built so far.
struct Arm {
    /// The test: `None` when every value matches.
    test: Option<TokenStream>,
    /// The pattern's names, in order.
    bindings: Vec<Binding>,
    /// The names it binds, for the check that none is bound twice.
    names: Vec<syn::Ident>,
    /// `let (_, _) = value;` for each tuple pattern: the check, reported at the pattern, that
    /// the value is a tuple of that many elements (they compute nothing).
    checks: Vec<TokenStream>,
    /// The values the pattern takes, for the check that the arms cover every value.
    cover: Cover,
}

impl Arm {
    /// An arm of the test `test`, taking the values `cover`, that binds nothing.
    fn test(test: Option<TokenStream>, cover: Cover) -> Arm {
        Arm { test, bindings: vec![], names: vec![], checks: vec![], cover }
    }
}

/// What a `match` none of whose arms takes every value leaves to [`crate::check`]: that its
/// unguarded arms together cover every value of the scrutinee's type.
pub struct Coverage {
    /// The hidden name the scrutinee is bound to.
    pub value: syn::Ident,
    /// What each unguarded arm takes, in order.
    pub arms: Vec<Cover>,
    /// The scrutinee, where rustc reports the values not covered.
    pub span: Sp,
}

/// `match` rewritten as a block binding the scrutinee and an `if` chain over the arms, with
/// the coverage left to check where no arm takes every value. `id` makes the hidden name
/// unique in the kernel.
pub fn match_expr(m: &syn::ExprMatch, id: usize) -> Result<(syn::Expr, Option<Coverage>), syn::Error> {
    let span = m.match_token.span;
    let value = format_ident!("{HIDDEN_PREFIX}{}", id, span = span);
    let scrutinee = &m.expr;
    let mut errors: Option<syn::Error> = None;
    let mut add = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    let mut arms = Vec::new();
    for arm in &m.arms {
        let (pat, guard) = split_guard(&arm.pat);
        match pattern(pat, &quote_spanned!(span=> #value)) {
            Ok(a) => {
                for (k, name) in a.names.iter().enumerate() {
                    if a.names[..k].contains(name) {
                        let message =
                            format!("identifier `{name}` is bound more than once in the same pattern");
                        add(syn::Error::new(name.span(), message));
                    }
                }
                arms.push((a, pat, guard, &arm.body));
            }
            Err(e) => add(e),
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    // The arms up to the first that takes every value; those after it are never reached.
    // Without one, the last unguarded arm takes what the others leave, which the checker
    // proves is nothing more than its own pattern takes.
    let mut coverage = None;
    let unguarded: Vec<usize> = (0..arms.len()).filter(|&i| arms[i].2.is_none()).collect();
    let last = match unguarded.iter().copied().find(|&i| arms[i].0.test.is_none()) {
        Some(last) => last,
        None => {
            let Some(&last) = unguarded.last() else {
                let message = if arms.is_empty() {
                    "non-exhaustive patterns: `_` not covered: a `match` without arms takes no value, and \
                     the types of kernels all have values; add arms (`_ => ..` takes every value)"
                } else {
                    "non-exhaustive patterns: `_` not covered: an arm with a guard (`if ..`) may not be \
                     taken, so a `match` needs an arm without one; add `_ => ..`"
                };
                return Err(syn::Error::new(m.expr.span(), message));
            };
            let arms = unguarded.iter().map(|&i| arms[i].0.cover.clone()).collect();
            coverage = Some(Coverage { value: value.clone(), arms, span: Sp::of(&m.expr) });
            last
        }
    };
    // The arms never reached are still checked, as rustc checks them, behind an `if true`
    // whose other branch is never built: the last of them, whatever its pattern, as a block
    // after its test (`{ let _: bool = test; body }`).
    let mut chain: Option<TokenStream> = None;
    for (i, (a, pat, guard, body)) in arms.iter().enumerate().rev() {
        // A guard after a `|` pattern is tried for each case that matches, in order, with
        // that case's names (as Rust does): the arm first finds the case.
        if let (Some(guard), Some(rest), true) = (guard, &chain, i < last) {
            let cases = alternatives(pat)?;
            if cases.len() > 1 {
                let case = format_ident!("{HIDDEN_PREFIX}{}_case{}", id, i, span = pat.span());
                let arm = guarded_cases(&cases, guard, body, &quote_spanned!(span=> #value), &case, rest)?;
                chain = Some(arm);
                continue;
            }
        }
        let bindings = &a.bindings;
        // A guarded arm binds its names twice, for the guard and again for the body: neither
        // copy is reported unused, as the one binding Rust has may be read by either.
        let allow =
            guard.map(|_| quote_spanned!(body.span()=> #[allow(unused_variables)])).unwrap_or_default();
        let block = quote_spanned!(body.span()=> { #(#allow #bindings)* #body });
        let test = match (&a.test, guard) {
            // The `let _ = value;` (which computes nothing) tells the guard from other
            // operands of `&&`, for its errors (`crate::check`).
            (test, Some(guard)) => {
                let test = test.clone().unwrap_or_else(|| quote_spanned!(pat.span()=> true));
                Some(
                    quote_spanned!(guard.span()=> (#test) && { #(#allow #bindings)* let _ = #value; #guard }),
                )
            }
            (test, None) if i != last => test.clone(),
            _ => None,
        };
        chain = Some(match (test, chain) {
            (Some(test), Some(rest)) if i != last => quote_spanned!(pat.span()=> if #test #block else #rest),
            (Some(test), None) if i > last => quote_spanned!(body.span()=> { let _: bool = #test; #block }),
            (Some(test), None) => quote_spanned!(pat.span()=> if #test #block),
            (None, Some(rest)) if i >= last => quote_spanned!(pat.span()=> if true #block else #rest),
            (_, _) => block,
        });
    }
    let chain = chain.unwrap_or_default();
    let mut checks: Vec<TokenStream> = arms.iter().flat_map(|(a, ..)| a.checks.iter().cloned()).collect();
    // The last arm takes what the others leave, without its test: its pattern is still
    // checked against the scrutinee's type, as rustc checks it.
    if let (Some(_), Some(test)) = (&coverage, &arms[last].0.test) {
        checks.push(type_check(test));
    }
    let block = syn::parse2(quote_spanned!(span=> { let #value = #scrutinee; #(#checks)* #chain }))?;
    Ok((block, coverage))
}

/// The most cases a guarded arm's `|` patterns may spread into (each is a test of the guard).
const MAX_CASES: usize = 64;

/// The cases of `pat` without `|` (nested ones spread out too), in the order Rust tries
/// them: `(a | b, c | d)` is `(a, c)`, `(a, d)`, `(b, c)`, `(b, d)`.
fn alternatives(pat: &syn::Pat) -> Result<Vec<syn::Pat>, syn::Error> {
    let too_many = || {
        syn::Error::new_spanned(
            pat,
            format!(
                "this guarded pattern has more than {MAX_CASES} cases once its `|`s are spread out: \
                 split the arm, or test in the guard"
            ),
        )
    };
    let cases = match pat {
        syn::Pat::Or(o) => {
            let mut all = Vec::new();
            for case in &o.cases {
                all.extend(alternatives(case)?);
            }
            all
        }
        syn::Pat::Paren(p) => alternatives(&p.pat)?,
        syn::Pat::Ident(i @ syn::PatIdent { subpat: Some((at, sub)), .. }) => alternatives(sub)?
            .into_iter()
            .map(|case| {
                let mut i = i.clone();
                i.subpat = Some((*at, Box::new(case)));
                syn::Pat::Ident(i)
            })
            .collect(),
        syn::Pat::Tuple(t) => {
            let mut all: Vec<Vec<syn::Pat>> = vec![Vec::new()];
            for elem in &t.elems {
                let options = alternatives(elem)?;
                if all.len() * options.len() > MAX_CASES {
                    return Err(too_many());
                }
                all = all
                    .into_iter()
                    .flat_map(|prefix| {
                        options.iter().map(move |o| {
                            let mut p = prefix.clone();
                            p.push(o.clone());
                            p
                        })
                    })
                    .collect();
            }
            all.into_iter()
                .map(|elems| {
                    let mut t = t.clone();
                    t.elems = elems.into_iter().collect();
                    syn::Pat::Tuple(t)
                })
                .collect()
        }
        other => vec![other.clone()],
    };
    if cases.len() > MAX_CASES {
        return Err(too_many());
    }
    Ok(cases)
}

/// A guarded arm whose pattern has several cases (`cases`, from [`alternatives`]), before
/// the arms `rest`: the number of the first case that matches and passes the guard (0 for
/// none) is bound to `case`, and the body binds the names of that case.
fn guarded_cases(
    cases: &[syn::Pat],
    guard: &syn::Expr,
    body: &syn::Expr,
    value: &TokenStream,
    case: &syn::Ident,
    rest: &TokenStream,
) -> Result<TokenStream, syn::Error> {
    let arms = cases.iter().map(|c| pattern(c, value)).collect::<Result<Vec<Arm>, _>>()?;
    let sp = guard.span();
    let mut found = quote_spanned!(sp=> 0u32);
    for (k, arm) in arms.iter().enumerate().rev() {
        let number = syn::LitInt::new(&format!("{}u32", k + 1), sp);
        let test = arm.test.clone().unwrap_or_else(|| quote_spanned!(sp=> true));
        let bindings = &arm.bindings;
        found = quote_spanned!(sp=>
            if (#test) && { #(#[allow(unused_variables)] #bindings)* let _ = #value; #guard } { #number } else { #found });
    }
    // Each name from the case found (every case binds the same names, checked with the
    // whole pattern).
    let names = arms[0].bindings.iter().map(|b| {
        let picks = arms.iter().enumerate().map(|(k, arm)| {
            let number = syn::LitInt::new(&format!("{}u32", k + 1), sp);
            (quote_spanned!(sp=> #case == #number), case_value(arm, b))
        });
        Binding {
            value: first_picked(b, picks.collect(), sp),
            mutability: b.mutability,
            name: b.name.clone(),
            span: b.span,
        }
    });
    let allow = quote_spanned!(body.span()=> #[allow(unused_variables)]);
    Ok(quote_spanned!(sp=> {
        let #case: u32 = #found;
        if #case != 0u32 { #(#allow #names)* #body } else #rest
    }))
}

/// `if false { let _: bool = test; }`: the test is type-checked as rustc checks a pattern it
/// never tries, and builds nothing (the condition is known while the kernel is built).
fn type_check(test: &TokenStream) -> TokenStream {
    quote_spanned!(Span::call_site()=> if false { let _: bool = #test; })
}

/// An arm's pattern and its guard (`n if n > 2`), which syn keeps in the pattern.
fn split_guard(pat: &syn::Pat) -> (&syn::Pat, Option<&syn::Expr>) {
    match pat {
        syn::Pat::Guard(g) => (&g.pat, Some(&g.guard)),
        other => (other, None),
    }
}

/// `if let PAT = EXPR { .. } else ..` as the `match` with the arms `PAT => { .. }` and
/// `_ => else` (`()` without an `else`).
pub fn if_let(i: &syn::ExprIf, l: &syn::ExprLet) -> syn::ExprMatch {
    let pat = &l.pat;
    let expr = &l.expr;
    let then = &i.then_branch;
    let els = match &i.else_branch {
        Some((_, e)) => e.to_token_stream(),
        None => quote_spanned!(then.span()=> {}),
    };
    syn::parse_quote_spanned!(i.if_token.span=> match #expr { #pat => #then, _ => #els })
}

/// `let PAT = EXPR else { DIVERGE };` as Rust defines it: the names `PAT` binds are bound to
/// what it matched, `let (a, b) = match EXPR { PAT => (a, b), _ => { DIVERGE } };` (one name
/// alone, none as `_`; a `mut` name stays `mut` where it is bound). `None` for a pattern with
/// a type annotation on anything but one name, which this cannot carry over.
pub fn let_else(local: &syn::Local, expr: &syn::Expr, diverge: &syn::Expr) -> Option<syn::Local> {
    if !ends_in_divergence(diverge) {
        return None;
    }
    let (pat, annotation) = match &local.pat {
        syn::Pat::Type(pt) => (&*pt.pat, Some(&pt.ty)),
        other => (other, None),
    };
    let mut names = Vec::new();
    let_else_names(pat, &mut names);
    let mut arm = pat.clone();
    without_mut(&mut arm);
    let span = local.let_token.span;
    let (bound, value): (TokenStream, TokenStream) = match names.as_slice() {
        [] if annotation.is_none() => (quote_spanned!(span=> _), quote_spanned!(span=> ())),
        [(name, mutable)] => {
            let m = mutable.then(|| quote_spanned!(span=> mut));
            let ty = annotation.map(|t| quote_spanned!(span=> : #t));
            (quote_spanned!(span=> #m #name #ty), quote_spanned!(span=> #name))
        }
        many if annotation.is_none() => {
            let binds = many.iter().map(|(name, mutable)| {
                let m = mutable.then(|| quote_spanned!(span=> mut));
                quote_spanned!(span=> #m #name)
            });
            let reads = many.iter().map(|(name, _)| name);
            (quote_spanned!(span=> (#(#binds),*)), quote_spanned!(span=> (#(#reads),*)))
        }
        _ => return None,
    };
    let attrs = &local.attrs;
    let stmt: syn::Stmt = syn::parse_quote_spanned!(span=> #(#attrs)* let #bound = match #expr { #arm => #value, _ => #diverge };);
    match stmt {
        syn::Stmt::Local(rewritten) => Some(rewritten),
        _ => None,
    }
}

/// Whether the block `e` visibly never ends (its last statement a `return`, `break`,
/// `continue` or panic), as the `else` of a `let ... else` must (rustc refuses one that can
/// end, E0308); one that diverges less visibly stays the parser's error.
fn ends_in_divergence(e: &syn::Expr) -> bool {
    let syn::Expr::Block(b) = e else { return false };
    match b.block.stmts.last() {
        Some(syn::Stmt::Macro(m)) => crate::parse::panics::always_panics(&m.mac),
        Some(syn::Stmt::Expr(syn::Expr::Macro(m), _)) => crate::parse::panics::always_panics(&m.mac),
        Some(syn::Stmt::Expr(syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_), _)) => true,
        _ => false,
    }
}

/// The names a `let ... else` pattern binds, in order, with whether each is `mut` (an
/// upper-case name is a constant the value is compared with, as in any pattern).
fn let_else_names(p: &syn::Pat, out: &mut Vec<(syn::Ident, bool)>) {
    match p {
        syn::Pat::Ident(pi) => {
            if !is_constant_name(&pi.ident.to_string()) {
                out.push((pi.ident.clone(), pi.mutability.is_some()));
            }
            if let Some((_, sub)) = &pi.subpat {
                let_else_names(sub, out);
            }
        }
        syn::Pat::Or(o) => o.cases.iter().take(1).for_each(|c| let_else_names(c, out)),
        syn::Pat::Paren(pp) => let_else_names(&pp.pat, out),
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|e| let_else_names(e, out)),
        _ => {}
    }
}

/// `p` with its bindings' `mut` taken off (the `let` that receives them carries it).
fn without_mut(p: &mut syn::Pat) {
    match p {
        syn::Pat::Ident(pi) => {
            pi.mutability = None;
            if let Some((_, sub)) = &mut pi.subpat {
                without_mut(sub);
            }
        }
        syn::Pat::Or(o) => o.cases.iter_mut().for_each(without_mut),
        syn::Pat::Paren(pp) => without_mut(&mut pp.pat),
        syn::Pat::Tuple(t) => t.elems.iter_mut().for_each(without_mut),
        _ => {}
    }
}

/// `'label: while let PAT = EXPR { .. }` as `'label: loop { match EXPR { PAT => { .. } _ =>
/// break } }` (a `continue` starts the next test, as in the `while let`).
pub fn while_let(w: &syn::ExprWhile, l: &syn::ExprLet) -> syn::Expr {
    let (label, pat, expr, body) = (&w.label, &l.pat, &l.expr, &w.body);
    let brk = match &w.label {
        Some(label) => {
            let name = &label.name;
            quote_spanned!(w.while_token.span=> break #name)
        }
        None => quote_spanned!(w.while_token.span=> break),
    };
    let marker = format_ident!("{WHILE_LET_ATTRIBUTE}", span = w.while_token.span);
    syn::parse_quote_spanned!(w.while_token.span=> #[#marker] #label loop { match #expr { #pat => #body, _ => #brk } })
}

/// The test and bindings of `pat` against the value `value` (a place expression).
fn pattern(pat: &syn::Pat, value: &TokenStream) -> Result<Arm, syn::Error> {
    let sp = pat.span();
    // The value as the pattern's tests read it: at the pattern, where rustc reports a
    // comparison of a constant of another type (`{float} == u8`).
    let value: TokenStream = value
        .clone()
        .into_iter()
        .map(|mut t| {
            t.set_span(sp);
            t
        })
        .collect();
    let value = &value;
    let equal =
        |expr: &dyn ToTokens, cover: Cover| Arm::test(Some(quote_spanned!(sp=> #value == #expr)), cover);
    // A value written out (`3`, `-1`, `true`, `u8::MAX`) takes itself; a named constant, what
    // only rustc knows.
    let written = |e: &syn::Expr| match e {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. }) => Cover::Bool(b.value),
        e => match bound(e) {
            Some((Bound::Int(v), _)) => Cover::Int(Some(v), Some(v)),
            _ if matches!(e, syn::Expr::Path(_)) => Cover::Named,
            _ => Cover::Unknown,
        },
    };
    match pat {
        syn::Pat::Wild(_) => Ok(Arm::test(None, Cover::Any)),
        syn::Pat::Paren(p) => pattern(&p.pat, value),
        syn::Pat::Lit(l) => Ok(equal(l, written(&syn::Expr::Lit(l.clone())))),
        // What syn keeps as tokens: a negative literal (`-1`) among others.
        syn::Pat::Verbatim(tokens) => match syn::parse2::<syn::Expr>(tokens.clone()) {
            Ok(e) => Ok(equal(tokens, written(&e))),
            Err(_) => Err(unsupported_pattern(pat)),
        },
        syn::Pat::Path(p) if is_nan(&p.path) => Err(nan(p)),
        syn::Pat::Path(p) if p.qself.is_none() => Ok(equal(p, written(&syn::Expr::Path(p.clone())))),
        syn::Pat::Const(c) => Ok(equal(c, Cover::Named)),
        syn::Pat::Ident(i)
            if i.by_ref.is_none() && i.subpat.is_none() && is_constant_name(&i.ident.to_string()) =>
        {
            let (name, marker) = (&i.ident, format_ident!("{PATTERN_NAME_ATTRIBUTE}", span = sp));
            Ok(equal(&quote_spanned!(sp=> #[#marker] #name), Cover::Named))
        }
        syn::Pat::Ident(i) if i.by_ref.is_none() => {
            let name = &i.ident;
            let mutability = &i.mutability;
            let mut arm = match &i.subpat {
                Some((_, sub)) => pattern(sub, value)?,
                None => Arm::test(None, Cover::Any),
            };
            arm.bindings.push(Binding {
                mutability: *mutability,
                name: name.clone(),
                value: value.clone(),
                span: sp,
            });
            arm.names.push(name.clone());
            Ok(arm)
        }
        syn::Pat::Range(r) => {
            for bound in r.start.iter().chain(&r.end) {
                if let syn::Expr::Path(p) = &**bound {
                    if is_nan(&p.path) {
                        return Err(nan(p));
                    }
                }
            }
            empty_range(r)?;
            // A plain name as an end must be a constant's, as a name alone must (a variable
            // there is rustc's E0080): marked for the checker.
            let marked = |bound: &syn::Expr| match unparen(bound) {
                syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                    let marker = format_ident!("{PATTERN_NAME_ATTRIBUTE}", span = sp);
                    quote_spanned!(sp=> #[#marker] #p)
                }
                other => other.to_token_stream(),
            };
            let (start, end) = (r.start.as_deref().map(marked), r.end.as_deref().map(marked));
            let mut tests = Vec::new();
            if let Some(start) = &start {
                tests.push(quote_spanned!(sp=> #value >= #start));
            }
            if let Some(end) = &end {
                tests.push(match r.limits {
                    syn::RangeLimits::Closed(_) => quote_spanned!(sp=> #value <= #end),
                    syn::RangeLimits::HalfOpen(_) => quote_spanned!(sp=> #value < #end),
                });
            }
            let test = match tests.as_slice() {
                [] => None,
                [only] => Some(only.clone()),
                [a, b, ..] => Some(quote_spanned!(sp=> #a && #b)),
            };
            Ok(Arm::test(test, range_cover(r)))
        }
        syn::Pat::Or(o) => {
            let cases = o.cases.iter().map(|case| pattern(case, value)).collect::<Result<Vec<Arm>, _>>()?;
            // As in Rust, every case binds the same names (rustc's E0408).
            let Some(first) = cases.first() else { return Ok(Arm::test(None, Cover::Any)) };
            for (case, arm) in o.cases.iter().zip(&cases) {
                let missing = first.names.iter().find(|n| !arm.names.contains(n));
                let extra = arm.names.iter().find(|n| !first.names.contains(n));
                if let Some(name) = missing.or(extra) {
                    let message = format!("variable `{name}` is not bound in all patterns");
                    return Err(syn::Error::new_spanned(case, message));
                }
                // And with the same mutability (rustc's E0409).
                for b in &arm.bindings {
                    let other = first.bindings.iter().find(|f| f.name == b.name);
                    if other.is_some_and(|f| f.mutability.is_some() != b.mutability.is_some()) {
                        let message = format!(
                            "variable `{}` is bound inconsistently across `|` patterns: `mut` in one case, \
                             not in another",
                            b.name
                        );
                        return Err(syn::Error::new(b.name.span(), message));
                    }
                }
            }
            // A name takes its value from the first case that matches.
            let bindings = first
                .bindings
                .iter()
                .map(|b| {
                    // A case after one that takes every value is never taken, but its name
                    // must have the same type (behind an `if true`, built no further).
                    let picks = cases.iter().map(|case| {
                        let test = case.test.clone().unwrap_or_else(|| quote_spanned!(sp=> true));
                        (test, case_value(case, b))
                    });
                    Binding {
                        value: first_picked(b, picks.collect(), sp),
                        mutability: b.mutability,
                        name: b.name.clone(),
                        span: b.span,
                    }
                })
                .collect();
            let every = cases.iter().any(|c| c.test.is_none());
            let tests = cases.iter().filter_map(|c| c.test.as_ref());
            let test = (!every).then(|| quote_spanned!(sp=> #((#tests))||*));
            let mut checks: Vec<TokenStream> = cases.iter().flat_map(|c| c.checks.iter().cloned()).collect();
            if every {
                // The cases' tests are not built where one case takes every value; they are
                // still checked against the value's type.
                checks.extend(cases.iter().filter_map(|c| c.test.as_ref()).map(type_check));
            }
            let cover = Cover::Or(cases.iter().map(|c| c.cover.clone()).collect());
            Ok(Arm { test, bindings, names: first.names.clone(), checks, cover })
        }
        syn::Pat::Tuple(t) if !t.elems.iter().any(|p| matches!(p, syn::Pat::Rest(_))) => {
            let wild = t.elems.iter().map(|_| quote_spanned!(sp=> _,));
            let mut all = Arm::test(None, Cover::Any);
            all.checks.push(quote_spanned!(sp=> let (#(#wild)*) = #value;));
            let mut tests = Vec::new();
            let mut covers = Vec::new();
            for (k, elem) in t.elems.iter().enumerate() {
                let index = syn::Index { index: k as u32, span: elem.span() };
                let arm = pattern(elem, &quote_spanned!(sp=> #value.#index))?;
                tests.extend(arm.test);
                all.bindings.extend(arm.bindings);
                all.names.extend(arm.names);
                all.checks.extend(arm.checks);
                covers.push(arm.cover);
            }
            all.test = (!tests.is_empty()).then(|| quote_spanned!(sp=> #((#tests))&&*));
            all.cover = Cover::Tuple(covers);
            Ok(all)
        }
        other => Err(unsupported_pattern(other)),
    }
}

/// The value the case `arm` of a `|` pattern gives the name of binding `b` (every case binds
/// it; `b`'s own value where one did not, which the pattern's check reports).
fn case_value(arm: &Arm, b: &Binding) -> TokenStream {
    arm.bindings.iter().find(|c| c.name == b.name).map_or_else(|| b.value.clone(), |c| c.value.clone())
}

/// The value of the name `b` binds: of the first of `picks` (each a condition and the value
/// under it) whose condition holds, the last one's unconditionally, in an `if` chain marked
/// as the name's ([`or_binding_marker`]) so that cases of two types are reported at it.
fn first_picked(b: &Binding, picks: Vec<(TokenStream, TokenStream)>, sp: Span) -> TokenStream {
    let marker = or_binding_marker(&b.name);
    let mut picks = picks.into_iter().rev();
    let last = picks.next().map(|(_, v)| v).unwrap_or_default();
    picks.fold(last, |rest, (test, v)| quote_spanned!(sp=> #marker if #test { #v } else { #rest }))
}

/// `#[__ptx_dsl_or_binding(name)]`, for the `if` that picks `name`'s value among the cases
/// of a `|` pattern.
fn or_binding_marker(name: &syn::Ident) -> TokenStream {
    let marker = format_ident!("{OR_BINDING_ATTRIBUTE}", span = name.span());
    quote_spanned!(name.span()=> #[#marker(#name)])
}

/// The error for a pattern a kernel does not take.
fn unsupported_pattern(pat: &syn::Pat) -> syn::Error {
    syn::Error::new_spanned(
        pat,
        "patterns in a kernel's `match` and `if let` are literals, constants, ranges (`1..=4`), \
         `_`, names (`n`, `n @ 1..=4`), tuples of them and `|` of them",
    )
}

/// What an integer range pattern takes, where its bounds are written out (a float range,
/// or one with a named constant as a bound, takes what only rustc knows).
fn range_cover(r: &syn::PatRange) -> Cover {
    let int = |e: &Option<Box<syn::Expr>>| match e.as_deref().map(bound) {
        None => Some(None),
        Some(Some((Bound::Int(v), _))) => Some(Some(v)),
        Some(_) => None,
    };
    match (int(&r.start), int(&r.end), &r.limits) {
        (Some(lo), Some(hi), syn::RangeLimits::Closed(_)) => Cover::Int(lo, hi),
        (Some(lo), Some(Some(hi)), syn::RangeLimits::HalfOpen(_)) => Cover::Int(lo, Some(hi - 1)),
        (Some(lo), Some(None), syn::RangeLimits::HalfOpen(_)) => Cover::Int(lo, None),
        // A bound that is neither written out nor a float is a named constant.
        _ if [&r.start, &r.end].into_iter().flatten().any(|b| matches!(**b, syn::Expr::Path(_))) => {
            Cover::Named
        }
        _ => Cover::Unknown,
    }
}

/// A bound of a range pattern whose value is written out: an integer or float literal, its
/// negation, or an integer type's `MIN` or `MAX`.
#[derive(Clone, Copy)]
enum Bound {
    Int(i128),
    Float(f64),
}

/// The value of the range bound `e` where it is written out, and whether it is its type's
/// least value (`u32::MIN`, `0u8`, `-128i8`).
fn bound(e: &syn::Expr) -> Option<(Bound, bool)> {
    let int_range = |ty: &str| Scalar::from_name(ty).filter(|s| s.is_int()).map(Scalar::int_range);
    match e {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => {
            let v: i128 = i.base10_digits().parse().ok()?;
            let least = int_range(i.suffix()).is_some_and(|(lo, _)| lo == v);
            Some((Bound::Int(v), least))
        }
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Byte(b), .. }) => {
            Some((Bound::Int(b.value().into()), b.value() == 0))
        }
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Float(f), .. }) => {
            Some((Bound::Float(f.base10_digits().parse().ok()?), false))
        }
        syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) => match bound(expr)? {
            (Bound::Int(v), _) => {
                let suffix = match &**expr {
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.suffix().to_string(),
                    _ => String::new(),
                };
                Some((Bound::Int(-v), int_range(&suffix).is_some_and(|(lo, _)| lo == -v)))
            }
            (Bound::Float(v), _) => Some((Bound::Float(-v), false)),
        },
        syn::Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 2 => {
            let ty = p.path.segments[0].ident.to_string();
            let (lo, hi) = int_range(&ty)?;
            match p.path.segments[1].ident.to_string().as_str() {
                "MIN" => Some((Bound::Int(lo), true)),
                "MAX" => Some((Bound::Int(hi), false)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Rustc's errors for a range pattern that takes no value, where its bounds are written out:
/// `5..=1`, `5..5`, `..u32::MIN`.
fn empty_range(r: &syn::PatRange) -> Result<(), syn::Error> {
    let start = r.start.as_deref().and_then(bound);
    let end = r.end.as_deref().and_then(bound);
    let closed = matches!(r.limits, syn::RangeLimits::Closed(_));
    let order = |lo: Bound, hi: Bound| match (lo, hi) {
        (Bound::Int(a), Bound::Int(b)) => a.partial_cmp(&b),
        (Bound::Float(a), Bound::Float(b)) => a.partial_cmp(&b),
        _ => None,
    };
    let message = match (start, end) {
        (Some((lo, _)), Some((hi, _))) if closed && order(lo, hi) == Some(Ordering::Greater) => {
            "lower bound for range pattern must be less than or equal to upper bound"
        }
        (Some((lo, _)), Some((hi, _))) if !closed && order(lo, hi).is_some_and(Ordering::is_ge) => {
            "lower bound for range pattern must be less than upper bound"
        }
        (_, Some((_, true))) if !closed => "exclusive upper bound for a range bound cannot be the minimum",
        _ => return Ok(()),
    };
    Err(syn::Error::new_spanned(r, message))
}

/// Whether `path` is `f32::NAN` or `f64::NAN` (`core::f32::NAN`, ...), which rustc refuses as
/// a pattern.
fn is_nan(path: &syn::Path) -> bool {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    matches!(names.as_slice(), [.., float, nan] if nan == "NAN" && (float == "f32" || float == "f64"))
}

/// Rustc's error for a NaN pattern, with the way to write it.
fn nan(at: &dyn ToTokens) -> syn::Error {
    syn::Error::new_spanned(
        at,
        "cannot use NaN in patterns: no value is equal to NaN, so this arm would never be taken; \
         test for it in a guard (`x if x.is_nan() => ..`)",
    )
}
