//! The checked kernel AST to the body of the generated `build` function: one `let` per
//! operation, each a call on the kernel context `__k` (`ptx_dsl::__private::KernelCtx`),
//! bound to the Rust variable's own name where the source has one. Comptime expressions
//! are emitted as plain Rust, computed while the kernel is built; a comptime `if` is a host
//! `if` around the taken arm's calls, and an `#[unroll]` loop is a host `for`.
//!
//! The generated code mirrors the kernel's blocks, so Rust's own scoping and shadowing of
//! the host variables is the kernel's.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};

use crate::ast::*;
use crate::check::Checked;
use crate::types::Ty;

/// The lowered form of an expression.
enum Atom {
    /// A runtime value (a `Value`, a tuple of them, a `Dim3` or a `Slice`), as tokens.
    Rt(TokenStream),
    /// A host expression computed while building.
    Host(TokenStream),
    /// `()`, or an expression that diverges.
    Unit,
}

/// A loop's labels, for `break` and `continue`.
struct LoopLabels {
    label: Option<String>,
    next: Ident,
    exit: Ident,
    /// A `loop`'s value: the holder its `break`s assign, and its type.
    value: Option<(TokenStream, Ty)>,
    /// Whether a `break` (or `continue`) jumps to it: an `#[unroll]` loop places its labels
    /// only then.
    breaks: std::cell::Cell<bool>,
    continues: std::cell::Cell<bool>,
}

impl LoopLabels {
    /// The labels of a loop (or labelled block) `label`, which `continue` jumps to `next` and
    /// `break` to `exit`, giving `value`.
    fn new(
        label: Option<String>,
        next: &Ident,
        exit: &Ident,
        value: Option<(TokenStream, Ty)>,
    ) -> LoopLabels {
        let (next, exit) = (next.clone(), exit.clone());
        LoopLabels { label, next, exit, value, breaks: Default::default(), continues: Default::default() }
    }
}

/// Lowers the kernel body; `krate` is the path of the facade crate (`::ptx_dsl`).
pub fn lower_body(kernel: &KernelFn, checked: &Checked, krate: &TokenStream) -> TokenStream {
    let mut l = Lowerer {
        checked,
        krate,
        ord_calls: &kernel.ord_calls,
        out: Vec::new(),
        next_tmp: 0,
        loops: Vec::new(),
        proven: Vec::new(),
    };
    let k = ctx();
    for p in kernel.params.iter().filter(|p| p.mutable) {
        let (n, b) = (&p.name, binder(&p.name));
        l.emit(quote!(let #b = #k.mutable_var(#n);));
    }
    for s in &kernel.body.stmts {
        l.stmt(s);
    }
    if let Some(t) = &kernel.body.tail {
        l.note(t.span, &kernel.body.tail_text);
        let atom = l.expr(t, None);
        l.discard(atom);
    }
    l.out.into_iter().collect()
}

struct Lowerer<'a> {
    checked: &'a Checked,
    krate: &'a TokenStream,
    /// [`KernelFn::ord_calls`].
    ord_calls: &'a [(usize, syn::Path)],
    out: Vec<TokenStream>,
    next_tmp: usize,
    loops: Vec<LoopLabels>,
    /// `(index binding, slice binding)` pairs a dominating guard proves in range.
    proven: Vec<(usize, usize)>,
}

/// The name of the kernel context in generated code (hygienic: a user's `__k` is another).
pub fn ctx() -> Ident {
    Ident::new("__k", Span::mixed_site())
}

impl<'a> Lowerer<'a> {
    fn emit(&mut self, ts: TokenStream) {
        self.out.push(ts);
    }

    fn tmp(&mut self, hint: &str) -> Ident {
        self.next_tmp += 1;
        Ident::new(&format!("{hint}{}", self.next_tmp), Span::mixed_site())
    }

    fn private(&self) -> TokenStream {
        crate::expand::private_path(self.krate)
    }

    fn scalar(&self, s: Scalar) -> TokenStream {
        let p = self.private();
        let v = format_ident!("{}", lang_scalar(s));
        quote!(#p::Scalar::#v)
    }

    /// Where `sp` starts in the source, as a `Site`. The position is the token's own, read
    /// from its span (rustc 1.88 and later): a statement of a `#[ptx_device]` function or of
    /// a kernel stamped out by a `macro_rules!` is at its line in the function or the macro.
    /// Where spans carry no position (older compilers, or outside a compiler as in this
    /// crate's tests), `file!()`/`line!()`/`column!()` at the span stand in: the position of
    /// the outermost macro call.
    fn site(&self, sp: Sp) -> TokenStream {
        let p = self.private();
        let start = sp.start.start();
        if start.line == 0 || !proc_macro::is_available() {
            return quote_spanned!(sp.start=> #p::Site::at(::core::file!(), ::core::line!(), ::core::column!()));
        }
        let file = sp.start.file();
        let (line, column) = (start.line as u32, start.column as u32 + 1);
        quote!(#p::Site::at(#file, #line, #column))
    }

    /// Marks the instructions emitted from here as implementing the statement `text`
    /// that starts at `start` (a comment and `.loc` in the PTX, and the source line of
    /// simulator errors). Statements the parser made up (the parameters of an inlined
    /// device function) have no text and no note: their instructions belong to the call.
    fn note(&mut self, start: Sp, text: &str) {
        if text.is_empty() {
            return;
        }
        let k = ctx();
        let site = self.site(start);
        self.emit(quote!(#k.note(#site, #text);));
    }

    fn ty(&self, e: &Expr) -> Ty {
        self.checked.types[e.id].clone()
    }

    /// Lowers `stmts` into their own list, returning it with what `f` produced.
    fn nested<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> (TokenStream, R) {
        let saved = std::mem::take(&mut self.out);
        let r = f(self);
        let inner = std::mem::replace(&mut self.out, saved);
        (inner.into_iter().collect(), r)
    }

    /// `a == b` (`equal`) or `a != b` of tuples of type `ty`, element by element as Rust's
    /// tuple `PartialEq`: every element equal, or any one different.
    fn tuple_comparison(&mut self, equal: bool, a: TokenStream, b: TokenStream, ty: &Ty) -> TokenStream {
        let k = ctx();
        let Ty::Tuple(elems) = ty else {
            return if equal { quote!(#k.eq(#a, #b)) } else { quote!(#k.ne(#a, #b)) };
        };
        let (left, right) = (self.tmp("__left"), self.tmp("__right"));
        self.emit(quote!(let #left = #a; let #right = #b;));
        let parts: Vec<TokenStream> = elems
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let i = syn::Index::from(i);
                self.tuple_comparison(equal, quote!(#left.#i), quote!(#right.#i), t)
            })
            .collect();
        let p = self.private();
        let mut parts = parts.into_iter();
        let Some(first) = parts.next() else { return quote!(#p::Value::from(#equal)) };
        let mut all = self.tmp("__same");
        self.emit(quote!(let #all = #first;));
        for part in parts {
            let next = self.tmp("__same");
            let (this, combined) = (self.tmp("__part"), if equal { quote!(bitand) } else { quote!(bitor) });
            self.emit(quote!(let #this = #part; let #next = #k.#combined(#all, #this);));
            all = next;
        }
        quote!(#all)
    }

    /// `a < b` (or `<=`, `>`, `>=`: `op`) of values of type `ty`, tuples as Rust's
    /// `PartialOrd` orders them: by the first elements that differ (`!=`, so a NaN there
    /// makes the comparison false), or by the last ones with `op` itself.
    fn tuple_ordering(&mut self, op: BinOp, a: TokenStream, b: TokenStream, ty: &Ty, sp: Sp) -> TokenStream {
        let k = ctx();
        let Ty::Tuple(elems) = ty else {
            return self.binary_call(op, a, b, sp);
        };
        let Some((last, rest)) = elems.split_last() else {
            // `() < ()` is false, `() <= ()` true.
            let p = self.private();
            let holds = matches!(op, BinOp::Le | BinOp::Ge);
            return quote!(#p::Value::from(#holds));
        };
        let (left, right) = (self.tmp("__left"), self.tmp("__right"));
        self.emit(quote!(let #left = #a; let #right = #b;));
        let strict = if matches!(op, BinOp::Lt | BinOp::Le) { BinOp::Lt } else { BinOp::Gt };
        let n = syn::Index::from(rest.len());
        let mut result = self.tmp("__order");
        let by_last = self.tuple_ordering(op, quote!(#left.#n), quote!(#right.#n), last, sp);
        self.emit(quote!(let #result = #by_last;));
        for (i, t) in rest.iter().enumerate().rev() {
            let i = syn::Index::from(i);
            let differ = self.tuple_comparison(false, quote!(#left.#i), quote!(#right.#i), t);
            let ordered = self.tuple_ordering(strict, quote!(#left.#i), quote!(#right.#i), t, sp);
            let (d, o, next) = (self.tmp("__differ"), self.tmp("__ordered"), self.tmp("__order"));
            self.emit(quote!(let #d = #differ; let #o = #ordered; let #next = #k.select(#d, #o, #result);));
            result = next;
        }
        quote!(#result)
    }

    /// The element type of the local array `e` gives, as runtime tokens.
    fn array_elem(&self, e: &Expr) -> TokenStream {
        match self.ty(e) {
            Ty::Array(elem) => self.scalar(elem.scalar().unwrap_or(Scalar::F32)),
            _ => self.scalar(Scalar::F32),
        }
    }

    /// A host value of type `ty` as runtime tokens.
    fn host_to_rt(&mut self, host: TokenStream, ty: &Ty) -> TokenStream {
        let p = self.private();
        match ty {
            Ty::Scalar(_) => quote!(#p::Value::from(#host)),
            Ty::Tuple(elems) => {
                let names: Vec<Ident> = elems.iter().map(|_| self.tmp("__h")).collect();
                let convs: Vec<TokenStream> =
                    names.iter().zip(elems).map(|(n, t)| self.host_to_rt(quote!(#n), t)).collect();
                quote!({ let (#(#names,)*) = #host; (#(#convs,)*) })
            }
            _ => host,
        }
    }

    /// The amount of a shift `op` when it is a constant of the surrounding code's type
    /// (`x << SHIFT`), which only rustc knows: a value of that type, which rustc checks is
    /// an integer.
    fn host_shift_amount(&mut self, op: BinOp, amount: &Expr) -> Option<TokenStream> {
        if !matches!(op, BinOp::Shl | BinOp::Shr) || !self.checked.host_typed[amount.id] {
            return None;
        }
        let (p, host) = (self.private(), self.host(amount));
        Some(quote_spanned!(amount.span.start=> #p::shift_amount(#host)))
    }

    /// The expression as runtime tokens, whatever its stage.
    fn value(&mut self, e: &Expr) -> TokenStream {
        if self.checked.host_typed[e.id] {
            return unknown_type_error(e);
        }
        let ty = self.ty(e);
        if let (Ty::Array(elem), true) = (&ty, self.checked.item_const[e.id]) {
            if let Some(table) = self.table_array(e, elem, None) {
                return table;
            }
        }
        match self.expr(e, None) {
            Atom::Rt(ts) => ts,
            Atom::Host(ts) => self.host_to_rt(ts, &ty),
            Atom::Unit => quote!(()),
        }
    }

    /// Whether `e` is written out of literals and constants alone (`3`, `2 + 3`, `I`, `N - 1`),
    /// so that rustc evaluates it where it checks a constant index.
    fn written_out(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Lit(Lit::Int { .. }) => true,
            ExprKind::Path(_) | ExprKind::ItemConst(_) => {
                self.checked.item_const[e.id]
                    || self.checked.binding[e.id].is_some_and(|b| self.checked.consts.contains(&b))
            }
            ExprKind::Binary(op, l, r) if !op.is_short_circuit() => {
                self.written_out(l) && self.written_out(r)
            }
            _ => false,
        }
    }

    /// A [`Lowerer::written_out`] expression as plain Rust (`2 + 3`, not the host code's
    /// wrapping forms), which rustc evaluates as it checks the code.
    fn plain_constant(&mut self, e: &Expr) -> TokenStream {
        match &e.kind {
            ExprKind::Binary(op, l, r) => {
                let (l, r) = (self.plain_constant(l), self.plain_constant(r));
                let op: TokenStream = op.symbol().parse().unwrap_or_default();
                quote!((#l #op #r))
            }
            _ => self.host(e),
        }
    }

    /// A constant array of the surrounding code used whole (`e`, its name or path, of element
    /// type `elem`): a local array of constants, bound once (the calls that check and bind it
    /// each read it). rustc checks the item's type against the use's at the name, as for its
    /// elements.
    fn table_array(&mut self, e: &Expr, elem: &Ty, len: Option<u64>) -> Option<TokenStream> {
        let path = match &e.kind {
            ExprKind::ItemConst(path) => path.to_token_stream(),
            ExprKind::Path(name) => name.to_token_stream(),
            _ => return None,
        };
        let (k, site, label) = (ctx(), self.site(e.span), path.to_string().replace(' ', ""));
        let t = elem
            .scalar()
            .map_or_else(|| quote!(_), |s| Ident::new(s.name(), e.span.start).into_token_stream());
        let (table, typed) = (self.tmp("__table"), self.tmp("__typed"));
        let typed = Ident::new(&typed.to_string(), e.span.start.resolved_at(typed.span()));
        // With the length the use writes (`let t: [f32; 5] = TAPS;`), rustc checks it too.
        let array = match len {
            Some(n) => {
                let n = proc_macro2::Literal::usize_unsuffixed(n as usize);
                quote_spanned!(e.span.start=> &[#t; #n])
            }
            None => quote_spanned!(e.span.start=> &[#t]),
        };
        self.emit(quote_spanned!(e.span.start=>
            let #table = #k.table_array({ let #typed: #array = &#path; #typed }, #label, #site);));
        Some(quote!(#table))
    }

    /// The expression's value about to be bound to a name. One that reads a mutable
    /// variable may be that variable's register, which a snapshot copies, so that later
    /// assignments to the variable do not change the binding.
    fn bound_value(&mut self, e: &Expr) -> TokenStream {
        let v = self.value(e);
        if !self.checked.reads_mutable[e.id] {
            return v;
        }
        // Bound to its own `let`: the snapshot is taken once, here, whatever uses it later
        // (a tuple's elements are read one by one).
        let (value, snapshot) = (self.tmp("__value"), self.tmp("__snapshot"));
        let taken = snapshot_of(&quote!(#value), &self.ty(e));
        self.emit(quote!(let #value = #v; let #snapshot = #taken;));
        quote!(#snapshot)
    }

    /// Operands Rust evaluates left to right, as runtime tokens. One that reads a mutable
    /// variable is snapshotted when a later operand assigns a local variable, so that it
    /// keeps the value it had when Rust evaluated it (`d + { d += 1; d }` is 5 + 6, not 6 + 6).
    fn operands<'e>(&mut self, es: impl IntoIterator<Item = &'e Expr>) -> Vec<TokenStream> {
        let es: Vec<&Expr> = es.into_iter().collect();
        let mut values = Vec::with_capacity(es.len());
        for (i, e) in es.iter().enumerate() {
            let later_writes = es[i + 1..].iter().any(|later| self.checked.writes_local[later.id]);
            values.push(if later_writes { self.bound_value(e) } else { self.value(e) });
        }
        values
    }

    /// The value assigned to `place`, evaluated first as Rust does (then the place's index),
    /// and snapshotted when the index assigns a variable the value reads.
    fn assigned_value(&mut self, place: &Place, rhs: &Expr) -> TokenStream {
        match place {
            Place::Index { index, .. } if self.checked.writes_local[index.id] => self.bound_value(rhs),
            _ => self.value(rhs),
        }
    }

    fn discard(&mut self, atom: Atom) {
        if let Atom::Rt(ts) | Atom::Host(ts) = atom {
            self.emit(quote!(let _ = #ts;));
        }
    }

    /// Binds runtime tokens `v` to the source name, when there is one.
    fn rename(&mut self, name: Option<&Ident>, v: TokenStream) -> Atom {
        match name {
            Some(n) => {
                let b = binder(n);
                self.emit(quote!(let #b = #v;));
                Atom::Rt(quote!(#n))
            }
            None => Atom::Rt(v),
        }
    }

    /// Emits `let name = call;` (name from the source, or a temporary) and returns it.
    fn bind(&mut self, name: Option<&Ident>, hint: &str, call: TokenStream) -> Atom {
        let n = name.cloned().unwrap_or_else(|| self.tmp(hint));
        let b = binder(&n);
        self.emit(quote!(let #b = #call;));
        Atom::Rt(quote!(#n))
    }

    fn stmt(&mut self, s: &Stmt) {
        let start = match s {
            Stmt::Let { span, .. } => *span,
            Stmt::Expr { expr, .. } => expr.span,
        };
        self.note(start, s.text());
        match s {
            Stmt::Let { pat, init, role, ty: annot, .. } => {
                self.let_stmt(pat, init, role, annot);
                if matches!(role, LetRole::Allowed | LetRole::Argument { .. }) {
                    // Read in the generated code, so that rustc's lint for unused variables
                    // (which sees that code) passes them over: they are allowed, or a device
                    // function's parameters, reported at the function's host copy.
                    let names = pat.names();
                    self.emit(quote!(#(let _ = &#names;)*));
                }
            }
            Stmt::Expr { expr, .. } => self.expr_stmt(expr),
        }
    }

    /// A `let` statement.
    fn let_stmt(&mut self, pat: &Pat, init: &Expr, role: &LetRole, annot: &Option<(TypeAnnot, Sp)>) {
        if let (ExprKind::Deferred, Pat::Ident { name, .. }) = (&init.kind, pat) {
            // `let v: f32;`: a variable that nothing has assigned (the checker proved that
            // every read comes after an assignment).
            let (variable, b) = (self.deferred_var(&self.ty(init)), binder(name));
            self.emit(quote!(let #b = #variable;));
            return;
        }
        if let (Some(result), Pat::Ident { name, .. }) = (self.checked.never_results.get(&init.id), pat) {
            // A device function's body that never gives its value: its code, then the result
            // as a value of the return type that nothing assigns (no thread goes on to read it).
            let holder = match result {
                Ty::Tuple(elems) if elems.is_empty() => Some(quote!(())),
                other => self.holder(other),
            };
            self.expr_stmt(init);
            if let Some(holder) = holder {
                let b = binder(name);
                self.emit(quote!(let #b = #holder;));
            }
            return;
        }
        let ty = self.ty(init);
        if let (Ty::Array(elem), Pat::Ident { name, .. }) = (&ty, pat) {
            // Its own registers, as Rust copies an array: assigning an element of one
            // binding leaves the others as they were. A constant table of the surrounding
            // code with a length written in the type is rustc's to check against it.
            let table = match annot {
                Some((TypeAnnot::Array(_, len), _)) if self.checked.item_const[init.id] => {
                    self.table_array(init, elem, Some(*len))
                }
                _ => None,
            };
            let (v, k, label) = (table.unwrap_or_else(|| self.value(init)), ctx(), name.to_string());
            if let Some((TypeAnnot::Array(_, len), sp)) = annot {
                let (len, site) = (*len as usize, self.site(*sp));
                self.emit(quote!(#k.local_expect_len(&#v, #len, #site);));
            }
            // A `const` array is bound under a name of its own, as other `const`s are.
            let (name, lint) = match role {
                LetRole::Const => (const_name(name), quote!(#[allow(non_snake_case)])),
                _ => (name.clone(), quote!()),
            };
            let b = binder(&name);
            self.emit(quote!(#lint let #b = #k.local_bind(&#v, #label);));
            return;
        }
        if let Pat::Ident { name, mutable: false } = pat {
            if self.checked.comptime[init.id] {
                // A `const` is bound under a name of its own (`Checked::consts`),
                // named as constants are, which rustc's lint for variables would flag.
                let (name, lint) = match role {
                    LetRole::Const => (const_name(name), quote!(#[allow(non_snake_case)])),
                    _ => (name.clone(), quote!()),
                };
                let host = match self.expr(init, None) {
                    Atom::Host(h) => h,
                    Atom::Rt(r) => r,
                    Atom::Unit => quote!(()),
                };
                let annot = match &ty {
                    Ty::Scalar(_) if self.checked.host_typed[init.id] => quote!(),
                    Ty::Scalar(s) => {
                        let t = host_type(*s);
                        quote!(: #t)
                    }
                    _ => quote!(),
                };
                let b = binder(&name);
                self.emit(quote!(#lint let #b #annot = #host;));
                return;
            }
            if !self.checked.reads_mutable[init.id] {
                let b = binder(name);
                match self.expr(init, Some(name)) {
                    // Bound by `expr` under this name already; a variable's own
                    // name (`let x = x;`) may be another hygiene context's (a device
                    // function's parameter bound to the caller's `x`): bound again.
                    Atom::Rt(ts) if *name == ts.to_string() && !matches!(init.kind, ExprKind::Path(_)) => {}
                    Atom::Rt(ts) => self.emit(quote!(let #b = #ts;)),
                    Atom::Host(h) => {
                        let v = self.host_to_rt(h, &ty);
                        self.emit(quote!(let #b = #v;));
                    }
                    Atom::Unit => self.emit(quote!(let #b = ();)),
                }
                return;
            }
        }
        if self.checked.comptime[init.id] {
            let host = match self.expr(init, None) {
                Atom::Host(h) | Atom::Rt(h) => h,
                Atom::Unit => quote!(()),
            };
            self.bind_host_pat(pat, host, &ty);
            return;
        }
        let v = self.bound_value(init);
        self.bind_pat(pat, v, &ty);
    }

    /// An expression statement. After `if cond { return; }` (or `break`/`continue`: an arm
    /// that always leaves), the rest of the block runs only where `cond` is false, so what
    /// `!cond` proves (`if i >= x.len() { return; }` proves `i < x.len()`) holds there.
    fn expr_stmt(&mut self, expr: &Expr) {
        let atom = self.expr(expr, None);
        self.discard(atom);
        if let ExprKind::If { cond, then, els: None, .. } = &expr.kind {
            if self.block_ty(then) == Ty::Never && !self.checked.comptime[cond.id] {
                let facts = self.negated_range_facts(cond);
                self.proven.extend(facts);
            }
        }
    }

    /// The facts `index < slice.len()` that `cond` being *false* proves: `i >= x.len()`,
    /// `x.len() <= i`, and disjunctions of them.
    fn negated_range_facts(&self, cond: &Expr) -> Vec<(usize, usize)> {
        match &cond.kind {
            ExprKind::Binary(BinOp::Or, l, r) => {
                let mut f = self.negated_range_facts(l);
                f.extend(self.negated_range_facts(r));
                f
            }
            ExprKind::Binary(BinOp::Ge, a, b) => self.fact(a, b).into_iter().collect(),
            ExprKind::Binary(BinOp::Le, a, b) => self.fact(b, a).into_iter().collect(),
            _ => Vec::new(),
        }
    }

    /// Binds runtime tokens `v` of type `ty` to `pat`.
    fn bind_pat(&mut self, pat: &Pat, v: TokenStream, ty: &Ty) {
        let k = ctx();
        match pat {
            Pat::Ident { name, mutable: true } => {
                let vars = per_scalar(std::slice::from_ref(&v), ty, &|v| {
                    let v = &v[0];
                    quote!(#k.mutable_var(#v))
                });
                let b = binder(name);
                self.emit(quote!(let #b = #vars;));
            }
            Pat::Ident { name, mutable: false } => {
                let b = binder(name);
                self.emit(quote!(let #b = #v;))
            }
            Pat::Wild => self.emit(quote!(let _ = #v;)),
            Pat::Tuple(pats, _) => {
                let t = self.tmp("__tuple");
                self.emit(quote!(let #t = #v;));
                let elems = match ty {
                    Ty::Tuple(e) => e.clone(),
                    _ => vec![Ty::Error; pats.len()],
                };
                for (i, (p, ety)) in pats.iter().zip(&elems).enumerate() {
                    let idx = syn::Index::from(i);
                    self.bind_pat(p, quote!(#t.#idx), ety);
                }
            }
        }
    }

    /// Binds host tokens `host`, a comptime value of type `ty`, to `pat`: its immutable
    /// names stay comptime, as the checker made them (`let (a, mut b) = (2, 3);` leaves `a`
    /// a host value), and its `mut` ones become runtime variables.
    fn bind_host_pat(&mut self, pat: &Pat, host: TokenStream, ty: &Ty) {
        match pat {
            Pat::Ident { mutable: true, .. } => {
                let v = self.host_to_rt(host, ty);
                self.bind_pat(pat, v, ty);
            }
            Pat::Tuple(pats, _) if has_mut(pat) => {
                let t = self.tmp("__tuple");
                self.emit(quote!(let #t = #host;));
                let elems = match ty {
                    Ty::Tuple(e) => e.clone(),
                    _ => vec![Ty::Error; pats.len()],
                };
                for (i, (p, ety)) in pats.iter().zip(&elems).enumerate() {
                    let idx = syn::Index::from(i);
                    self.bind_host_pat(p, quote!(#t.#idx), ety);
                }
            }
            _ => {
                let p = host_pattern(pat);
                self.emit(quote!(let #p = #host;));
            }
        }
    }

    fn expr(&mut self, e: &Expr, name: Option<&Ident>) -> Atom {
        crate::deep(|| self.expr_at_depth(e, name))
    }

    fn expr_at_depth(&mut self, e: &Expr, name: Option<&Ident>) -> Atom {
        if self.checked.comptime[e.id] {
            return Atom::Host(self.host(e));
        }
        let k = ctx();
        match &e.kind {
            ExprKind::Coverage { .. } => Atom::Unit,
            ExprKind::Deref(inner) => self.expr(inner, name),
            ExprKind::Lit(_) | ExprKind::Const { .. } | ExprKind::ItemConst(_) => Atom::Host(self.host(e)),
            ExprKind::Path(n) => {
                let n = self.local_name(n, e);
                Atom::Rt(quote!(#n))
            }
            ExprKind::Unary(op, inner) => {
                let v = self.value(inner);
                let f = match op {
                    UnOp::Neg => quote!(neg),
                    UnOp::Not => quote!(not),
                };
                self.bind(name, "__t", quote!(#k.#f(#v)))
            }
            ExprKind::Binary(op, l, r) if op.is_short_circuit() => self.short_circuit(*op, l, r, name),
            ExprKind::Binary(op, l, r) => {
                // Fused only when no operand assigns a variable (which would order the reads).
                if *op == BinOp::Add && !self.checked.writes_local[e.id] {
                    if let Some(call) = self.mad(l, r) {
                        return self.bind(name, "__t", call);
                    }
                }
                let (a, b) = match self.host_shift_amount(*op, r) {
                    Some(b) => (self.value(l), b),
                    None => {
                        let mut ops = self.operands([&**l, &**r]).into_iter();
                        (ops.next().unwrap_or_default(), ops.next().unwrap_or_default())
                    }
                };
                let call = match self.ty(l) {
                    tuple @ Ty::Tuple(_) if matches!(op, BinOp::Eq | BinOp::Ne) => {
                        self.tuple_comparison(*op == BinOp::Eq, a, b, &tuple)
                    }
                    tuple @ Ty::Tuple(_) => self.tuple_ordering(*op, a, b, &tuple, e.span),
                    _ => self.binary_call(*op, a, b, e.span),
                };
                self.bind(name, "__t", call)
            }
            ExprKind::Assign(place, rhs) => {
                let v = self.assigned_value(place, rhs);
                match place {
                    Place::Index { slice, index } if self.checked.array_access[e.id] => {
                        let i = self.value(index);
                        let site = self.site(e.span);
                        self.emit(quote!(#k.local_store(&#slice, #i, #v, #site);));
                    }
                    Place::Local(array) if self.checked.array_access[e.id] => {
                        let site = self.site(e.span);
                        self.emit(quote!(#k.local_assign(&#array, &#v, #site);));
                    }
                    Place::Local(_) | Place::Field { .. } if matches!(self.ty(rhs), Ty::Tuple(_)) => {
                        // Every element of the value is read (snapshotted where it reads a
                        // variable, `t = (t.1, t.0)`) before any variable is assigned.
                        let value = self.tmp("__tuple");
                        let v = if self.checked.reads_mutable[rhs.id] {
                            snapshot_of(&v, &self.ty(rhs))
                        } else {
                            v
                        };
                        self.emit(quote!(let #value = #v;));
                        self.assign_leaves(&variable_place(place), &quote!(#value), &self.ty(rhs));
                    }
                    _ => self.store(place, v, self.checked.binding[e.id], e.span),
                }
                Atom::Unit
            }
            ExprKind::CompoundAssign(op, place, rhs) => {
                let current = match place {
                    Place::Local(_) | Place::Field { .. } => variable_place(place),
                    Place::Index { slice, index } => {
                        // Rust's order for scalars: the value, then the place, then the
                        // element's read, the operation and the write. (An element of a local
                        // array the value reads names its register: `assigned_value` copies
                        // it when the index assigns a local, `w[{ w[0] = 2; 2 }] += w[0]`.)
                        let v = match self.host_shift_amount(*op, rhs) {
                            Some(v) => v,
                            None => self.assigned_value(place, rhs),
                        };
                        let i = self.value(index);
                        let idx = self.tmp("__index");
                        // Bound once, so the load and the store use the same index.
                        self.emit(quote!(let #idx = #i;));
                        let (t, r) = (self.tmp("__t"), self.tmp("__t"));
                        let (load, store) = if self.checked.array_access[e.id] {
                            let site = self.site(e.span);
                            (
                                quote!(#k.local_load(&#slice, #idx, #site)),
                                quote!(#k.local_store(&#slice, #idx, #r, #site)),
                            )
                        } else if self.is_proven(index, self.checked.binding[e.id]) {
                            (
                                quote!(#k.load_in_bounds(&#slice, #idx)),
                                quote!(#k.store_in_bounds(&#slice, #idx, #r)),
                            )
                        } else {
                            let site = self.site(e.span);
                            (
                                quote!(#k.load(&#slice, #idx, #site)),
                                quote!(#k.store(&#slice, #idx, #r, #site)),
                            )
                        };
                        self.emit(quote!(let #t = #load;));
                        let call = self.binary_call(*op, quote!(#t), v, e.span);
                        self.emit(quote!(let #r = #call; #store;));
                        return Atom::Unit;
                    }
                };
                let v = match self.host_shift_amount(*op, rhs) {
                    Some(v) => v,
                    None => self.value(rhs),
                };
                let call = self.binary_call(*op, current, v, e.span);
                let r = self.tmp("__t");
                self.emit(quote!(let #r = #call;));
                self.store(place, quote!(#r), None, e.span);
                Atom::Unit
            }
            ExprKind::Cast(inner, to) => {
                let v = self.value(inner);
                let s = self.scalar(*to);
                self.bind(name, "__t", quote!(#k.cast(#v, #s)))
            }
            ExprKind::Index { slice, index } if self.checked.item_array[e.id].is_some() => {
                // rustc checks the item's element type against the one the use gave, at the
                // name (or, for an element only cast, `ORDER[i] as usize`, takes the item's own).
                // The check is a typed `let` at the name, so that rustc's error is the item's
                // type against the use's (`expected `&[f32]`, found `&[u32; 3]``), not one of
                // the builder's method.
                let path = self.checked.item_array[e.id].clone().unwrap_or_default();
                let (i, site, label) = (self.value(index), self.site(e.span), slice.to_string());
                let elem = match self.ty(e).scalar() {
                    Some(s) => Ident::new(s.name(), slice.span()).into_token_stream(),
                    None => quote_spanned!(slice.span()=> _),
                };
                let table = self.tmp("__table");
                let table = Ident::new(&table.to_string(), slice.span().resolved_at(table.span()));
                // A written-out index is rustc's to check against the item's length (its
                // `unconditional_panic`, as for any array), at the index.
                if self.written_out(index) {
                    let at = index.span.start;
                    let constant = self.plain_constant(index);
                    self.emit(quote_spanned!(at=> let _ = #path[#constant];));
                }
                let call = quote_spanned!(slice.span()=>
                    #k.item_array_load({ let #table: &[#elem] = &#path; #table }, #label, #i, #site));
                self.bind(name, "__t", call)
            }
            ExprKind::Index { slice, index } if self.checked.array_access[e.id] => {
                let i = self.value(index);
                let site = self.site(e.span);
                let array = self.local_name(slice, e);
                self.bind(name, "__t", quote!(#k.local_load(&#array, #i, #site)))
            }
            ExprKind::Array(elems) => {
                let values = self.operands(elems);
                let elem = self.array_elem(e);
                self.bind(name, "__array", quote!(#k.local_array(&[#(#values),*], #elem)))
            }
            ExprKind::SubSlice { slice, start, end, inclusive, .. } => {
                let s = self.value(slice);
                // Both bounds evaluated in order, the first snapshotted when the second
                // assigns what it reads (`&x[k..{ k += 1; k }]`).
                let mut bounds = self.operands(start.iter().chain(end.iter()).map(|b| &**b)).into_iter();
                let mut bound = |present: bool| match if present { bounds.next() } else { None } {
                    Some(v) => quote!(::core::option::Option::Some(#v)),
                    None => quote!(::core::option::Option::None),
                };
                let (start, end) = (bound(start.is_some()), bound(end.is_some()));
                // Faults through it name the binding (`row`), else the slice's range.
                let label = match (name, &slice.kind) {
                    (Some(n), _) if !n.to_string().starts_with("__") => crate::expand::unraw(n),
                    (_, ExprKind::Path(p)) => format!("{}[..]", crate::expand::unraw(p)),
                    _ => "slice[..]".to_string(),
                };
                let site = self.site(e.span);
                self.bind(name, "__slice", quote!(#k.sub_slice(&#s, #start, #end, #inclusive, #label, #site)))
            }
            ExprKind::Repeat { value, len } => {
                let v = self.value(value);
                let n = self.host(len);
                let site = self.site(len.span);
                self.bind(name, "__array", quote!(#k.local_repeat(#v, #n, #site)))
            }
            ExprKind::Index { slice, index } => {
                if let Some((base, delta)) = self.offset_index(index) {
                    let b = self.value(base);
                    let site = self.site(e.span);
                    return self.bind(name, "__t", quote!(#k.load_offset(&#slice, #b, #delta, #site)));
                }
                let i = self.value(index);
                if self.is_proven(index, self.checked.binding[e.id]) {
                    return self.bind(name, "__t", quote!(#k.load_in_bounds(&#slice, #i)));
                }
                let site = self.site(e.span);
                self.bind(name, "__t", quote!(#k.load(&#slice, #i, #site)))
            }
            ExprKind::Builtin(b) => {
                self.name_builtin(*b, e.span);
                let b = self.builtin(*b);
                self.bind(name, "__dim", quote!(#k.dim3(#b)))
            }
            ExprKind::Field(inner, member) => match (&inner.kind, member) {
                (ExprKind::Builtin(b), Member::Axis(axis, _)) => {
                    self.name_builtin(*b, inner.span);
                    let b = self.builtin(*b);
                    let axis = *axis as usize;
                    self.bind(name, "__t", quote!(#k.index(#b, #axis)))
                }
                (_, member) => {
                    let v = self.value(inner);
                    let m = match member {
                        Member::Axis(Axis::X, _) => quote!(x),
                        Member::Axis(Axis::Y, _) => quote!(y),
                        Member::Axis(Axis::Z, _) => quote!(z),
                        Member::Index(i, _) => {
                            let idx = syn::Index::from(*i);
                            quote!(#idx)
                        }
                    };
                    Atom::Rt(quote!(#v.#m))
                }
            },
            // `f16::from_bits(u)` and `bf16::from_bits(u)` take the same `u16`: the type says which.
            ExprKind::TypeCall { ty, func, args } if ty.is_half() && func == "from_bits" => {
                let v = args.first().map(|a| self.value(a)).unwrap_or_else(|| quote!(()));
                let s = self.scalar(*ty);
                self.bind(name, "__t", quote!(#k.half_from_bits(#v, #s)))
            }
            ExprKind::TypeCall { ty, func, args }
                if ty.is_half() && (func == "from_f32" || func == "from_f32_const") || func == "from" =>
            {
                let v = args.first().map(|a| self.value(a)).unwrap_or_else(|| quote!(()));
                let s = self.scalar(*ty);
                self.bind(name, "__t", quote!(#k.cast(#v, #s)))
            }
            ExprKind::TypeCall { func, args, .. } => match args.split_first() {
                Some((first, rest)) => self.method(first, func, rest, name),
                None => Atom::Unit,
            },
            ExprKind::MethodCall { receiver, method, args } => {
                if let Some(check) = self.cmp_function(e) {
                    self.emit(quote!(#check;));
                }
                if method == "len" && matches!(self.ty(receiver), Ty::Slice { .. }) {
                    let s = self.value(receiver);
                    return self.bind(name, "__len", quote!(#s.len()));
                }
                if method == "is_empty" && matches!(self.ty(receiver), Ty::Slice { .. }) {
                    let (s, p) = (self.value(receiver), self.private());
                    return self.bind(name, "__empty", quote!(#k.eq(#s.len(), #p::Value::from(0usize))));
                }
                self.method(receiver, method, args, name)
            }
            ExprKind::If { cond, then, els, .. } => self.if_expr(e, cond, then, els.as_deref(), name),
            ExprKind::Block(b) => {
                let ty = self.ty(e);
                self.block_expr(b, &ty, name)
            }
            ExprKind::While { label, cond, body } => {
                self.runtime_loop(label, Some(cond), body, &Ty::unit(), None)
            }
            ExprKind::Loop { label, body, .. } => {
                let ty = self.ty(e);
                self.runtime_loop(label, None, body, &ty, name)
            }
            ExprKind::Labeled { label, body } => {
                let ty = self.ty(e);
                self.labeled_block(label, body, &ty, name)
            }
            ExprKind::For { label, var, range, body, unroll } => {
                if let Some(at) = unroll {
                    self.unrolled_for(*at, label, var.as_ref(), range, body);
                } else {
                    self.runtime_for(label, var.as_ref(), self.checked.binding[e.id], range, body);
                }
                Atom::Unit
            }
            ExprKind::Break { label, value: Some(v) } => {
                // The value into the `loop`'s holder (none for `()`), then out.
                let value = self.bound_value(v);
                if let Some(target) = self.target_loop(label) {
                    let assign = match &target.value {
                        Some((holder, ty)) => self.assign_holder(holder, &value, ty),
                        None => quote!(let _ = #value;),
                    };
                    let exit = &target.exit;
                    self.emit(quote!(#assign #k.jump(#exit);));
                }
                Atom::Unit
            }
            ExprKind::Break { label, .. } | ExprKind::Continue { label } => {
                let is_break = matches!(e.kind, ExprKind::Break { .. });
                if let Some(t) = self.jump_target(label, is_break) {
                    self.emit(quote!(#k.jump(#t);));
                }
                Atom::Unit
            }
            ExprKind::Return => {
                self.emit(quote!(#k.ret();));
                Atom::Unit
            }
            ExprKind::Panic { message } => {
                let site = self.site(e.span);
                self.emit(quote!(#k.panic(#message, #site);));
                Atom::Unit
            }
            ExprKind::DebugOnly(check) => {
                let (built, ()) = self.nested(|l| {
                    let atom = l.expr(check, None);
                    l.discard(atom);
                });
                self.emit(quote!(if ::core::cfg!(debug_assertions) { #built }));
                Atom::Unit
            }
            // Bound by its `let` ([`Lowerer::let_stmt`]).
            ExprKind::Error | ExprKind::Deferred => Atom::Unit,
            ExprKind::Tuple(elems) => {
                let vs: Vec<TokenStream> = elems.iter().map(|x| self.bound_value(x)).collect();
                Atom::Rt(quote!((#(#vs,)*)))
            }
            ExprKind::Shared { func, elem, len } => {
                let s = self.scalar(*elem);
                let label = name.map_or_else(|| "shared array".to_string(), |n| n.to_string());
                let Some(len) = len else {
                    self.emit(quote!(let _ = #func::<()>;));
                    return self.bind(name, "__shared", quote!(#k.dynamic_shared_array(#label, #s)));
                };
                // Named with placeholder generics, so that the user's import is used.
                self.emit(quote!(let _ = #func::<(), 1>;));
                let n = self.host(len);
                self.bind(name, "__shared", quote!(#k.shared_array(#label, #s, (#n) as u64)))
            }
            ExprKind::Intrinsic { which, func, args } => {
                let site = self.site(e.span);
                self.intrinsic(*which, func, args, name, site)
            }
            ExprKind::Print { path, pieces, args } => {
                // `gpu_print!()` names the user's import of the macro (and expands to `()`).
                self.emit(quote!(let _ = #path!();));
                let values = self.operands(args);
                self.emit(quote!(#k.print(&[#(#pieces),*], &[#(#values),*]);));
                Atom::Unit
            }
            ExprKind::Vector { func, width, slice, index, values } => {
                self.emit(quote!(let _ = #func::<u16>;));
                let mut ops = self.operands(std::iter::once(&**index).chain(values.as_deref())).into_iter();
                let i = ops.next().unwrap_or_default();
                let site = self.site(e.span);
                match values {
                    Some(_) => {
                        let v = ops.next().unwrap_or_default();
                        let call = format_ident!("store{}", width);
                        self.emit(quote!(#k.#call(&#slice, #i, #v, #site);));
                        Atom::Unit
                    }
                    None => {
                        let call = format_ident!("load{}", width);
                        self.bind(name, "__v", quote!(#k.#call(&#slice, #i, #site)))
                    }
                }
            }
            ExprKind::Atomic { op, func, place, args } => {
                let Place::Index { slice, index } = place else { return Atom::Unit };
                let p = self.private();
                self.emit(quote!(let _ = #func::<u32>;));
                let mut values = self.operands(std::iter::once(&**index).chain(args));
                let i = values.remove(0);
                let (a, b) = match values.as_slice() {
                    [a] => (a.clone(), quote!(::core::option::Option::None)),
                    [a, b] => (a.clone(), quote!(::core::option::Option::Some(#b))),
                    _ => return Atom::Unit,
                };
                let op = format_ident!("{}", atom_op(*op));
                let site = self.site(e.span);
                self.bind(name, "__old", quote!(#k.atomic(#p::AtomOp::#op, &#slice, #i, #a, #b, #site)))
            }
        }
    }

    /// A call of a warp or block function.
    fn intrinsic(
        &mut self,
        which: Intrinsic,
        func: &Ident,
        args: &[Expr],
        name: Option<&Ident>,
        site: TokenStream,
    ) -> Atom {
        let k = ctx();
        let p = self.private();
        if which.is_shuffle() || which.is_reduction() {
            self.emit(quote!(let _ = #func::<u32>;));
        } else {
            self.emit(quote!(let _ = #func;));
        }
        let values = self.operands(args);
        if which.needs_whole_warp() {
            let message = format!(
                "`{func}` was reached by only some lanes of a warp: all 32 lanes must call it together"
            );
            self.emit(quote!(#k.whole_warp(#site, #message);));
        }
        let call = match (which, values.as_slice()) {
            (Intrinsic::SyncThreads, _) => {
                self.emit(quote!(#k.sync_threads();));
                return Atom::Unit;
            }
            (Intrinsic::SyncWarp, _) => {
                self.emit(quote!(#k.sync_warp();));
                return Atom::Unit;
            }
            (Intrinsic::FenceBlock | Intrinsic::Fence | Intrinsic::FenceSystem, _) => {
                let scope = match which {
                    Intrinsic::FenceBlock => quote!(Cta),
                    Intrinsic::Fence => quote!(Gpu),
                    _ => quote!(Sys),
                };
                self.emit(quote!(#k.fence(#p::FenceScope::#scope);));
                return Atom::Unit;
            }
            (Intrinsic::LaneId, _) => quote!(#k.lane_id()),
            (Intrinsic::GridStrideStart, _) => quote!(#k.grid_stride_start()),
            (Intrinsic::GridStrideStep, _) => quote!(#k.grid_stride_step()),
            (Intrinsic::Ballot, [v]) => quote!(#k.vote(#p::Vote::Ballot, #v)),
            (Intrinsic::Any, [v]) => quote!(#k.vote(#p::Vote::Any, #v)),
            (Intrinsic::All, [v]) => quote!(#k.vote(#p::Vote::All, #v)),
            (Intrinsic::ShflXor, [v, l]) => quote!(#k.shuffle(#p::Shuffle::Xor, #v, #l)),
            (Intrinsic::ShflDown, [v, l]) => quote!(#k.shuffle(#p::Shuffle::Down, #v, #l)),
            (Intrinsic::ShflUp, [v, l]) => quote!(#k.shuffle(#p::Shuffle::Up, #v, #l)),
            (Intrinsic::ShflIdx, [v, l]) => quote!(#k.shuffle(#p::Shuffle::Idx, #v, #l)),
            (Intrinsic::WarpSum, [v]) => quote!(#k.warp_reduce(#p::Reduce::Sum, #v)),
            (Intrinsic::WarpMin, [v]) => quote!(#k.warp_reduce(#p::Reduce::Min, #v)),
            (Intrinsic::WarpMax, [v]) => quote!(#k.warp_reduce(#p::Reduce::Max, #v)),
            (Intrinsic::BlockSum, [v]) => quote!(#k.block_reduce(#p::Reduce::Sum, #v)),
            (Intrinsic::BlockMin, [v]) => quote!(#k.block_reduce(#p::Reduce::Min, #v)),
            (Intrinsic::BlockMax, [v]) => quote!(#k.block_reduce(#p::Reduce::Max, #v)),
            // `warp_size()` is comptime; wrong arities were reported by the parser.
            _ => return Atom::Unit,
        };
        self.bind(name, "__t", call)
    }

    /// Names the built-in function where the source calls it, so that the user's import
    /// of it (`ptx_dsl::gpu::thread_idx`, or the prelude) resolves and counts as used.
    fn name_builtin(&mut self, b: Builtin, sp: Sp) {
        let f = Ident::new(b.name(), sp.start);
        self.emit(quote!(let _ = #f;));
    }

    fn builtin(&self, b: Builtin) -> TokenStream {
        let p = self.private();
        let v = match b {
            Builtin::ThreadIdx => quote!(ThreadIdx),
            Builtin::BlockIdx => quote!(BlockIdx),
            Builtin::BlockDim => quote!(BlockDim),
            Builtin::GridDim => quote!(GridDim),
            Builtin::GlobalIdx => quote!(GlobalIdx),
        };
        quote!(#p::Builtin::#v)
    }

    /// The operands of `e` when it is a runtime integer product, which an addition can fuse
    /// with: `a * b + c` wraps exactly like `mad.lo` (floats are never fused: Rust rounds
    /// the product and the sum separately).
    fn int_product<'e>(&self, e: &'e Expr) -> Option<(&'e Expr, &'e Expr)> {
        match &e.kind {
            ExprKind::Binary(BinOp::Mul, a, b)
                if !self.checked.comptime[e.id] && self.ty(e).scalar().is_some_and(Scalar::is_int) =>
            {
                Some((a, b))
            }
            _ => None,
        }
    }

    /// `a * b + c` or `c + a * b` on integers as one `mad` call, operands evaluated in
    /// source order; `None` when neither side is an integer product.
    fn mad(&mut self, l: &Expr, r: &Expr) -> Option<TokenStream> {
        let k = ctx();
        if let Some((a, b)) = self.int_product(l) {
            let (a, b) = (self.value(a), self.value(b));
            let c = self.value(r);
            return Some(quote!(#k.mad(#a, #b, #c)));
        }
        let (a, b) = self.int_product(r)?;
        let c = self.value(l);
        let (a, b) = (self.value(a), self.value(b));
        Some(quote!(#k.mad(#a, #b, #c)))
    }

    fn binary_call(&self, op: BinOp, a: TokenStream, b: TokenStream, sp: Sp) -> TokenStream {
        let k = ctx();
        let f = match op {
            BinOp::Add => quote!(add),
            BinOp::Sub => quote!(sub),
            BinOp::Mul => quote!(mul),
            BinOp::Div | BinOp::Rem => {
                let f = if op == BinOp::Div { quote!(div) } else { quote!(rem) };
                let site = self.site(sp);
                return quote!(#k.#f(#a, #b, #site));
            }
            BinOp::BitAnd => quote!(bitand),
            BinOp::BitOr => quote!(bitor),
            BinOp::BitXor => quote!(bitxor),
            BinOp::Shl => quote!(shl),
            BinOp::Shr => quote!(shr),
            BinOp::Eq => quote!(eq),
            BinOp::Ne => quote!(ne),
            BinOp::Lt => quote!(lt),
            BinOp::Le => quote!(le),
            BinOp::Gt => quote!(gt),
            BinOp::Ge => quote!(ge),
            BinOp::And => quote!(bitand),
            BinOp::Or => quote!(bitor),
        };
        quote!(#k.#f(#a, #b))
    }

    /// `KernelCtx::assign` of each scalar of `value` (of type `ty`) to the variable that is
    /// the same element of `target`, a tuple of variables.
    fn assign_leaves(&mut self, target: &TokenStream, value: &TokenStream, ty: &Ty) {
        match ty {
            Ty::Tuple(elems) => {
                for (i, t) in elems.iter().enumerate() {
                    let idx = syn::Index::from(i);
                    self.assign_leaves(&quote!(#target.#idx), &quote!(#value.#idx), t);
                }
            }
            _ => {
                let k = ctx();
                self.emit(quote!(#k.assign(#target, #value);));
            }
        }
    }

    /// Stores `v` into `place`, an access at `at` (the assignment's start, where the place
    /// begins: the location Rust's panic names for an index out of range).
    fn store(&mut self, place: &Place, v: TokenStream, slice_binding: Option<usize>, at: Sp) {
        let k = ctx();
        match place {
            Place::Local(_) | Place::Field { .. } => {
                let target = variable_place(place);
                self.emit(quote!(#k.assign(#target, #v);));
            }
            Place::Index { slice, index } => {
                if let Some((base, delta)) = self.offset_index(index) {
                    let b = self.value(base);
                    let site = self.site(at);
                    self.emit(quote!(#k.store_offset(&#slice, #b, #delta, #v, #site);));
                    return;
                }
                let i = self.value(index);
                if self.is_proven(index, slice_binding) {
                    self.emit(quote!(#k.store_in_bounds(&#slice, #i, #v);));
                    return;
                }
                let site = self.site(at);
                self.emit(quote!(#k.store(&#slice, #i, #v, #site);));
            }
        }
    }

    /// `(base, delta)` for an index `base + c` or `base - c` with an integer literal `c` in
    /// a 64-bit type: the access is `base`'s element address plus `delta` elements, exact
    /// because 64-bit sums wrap like addresses (a `u32` sum could wrap to 0).
    fn offset_index<'e>(&self, index: &'e Expr) -> Option<(&'e Expr, i64)> {
        let ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), base, c) = &index.kind else { return None };
        let ExprKind::Lit(Lit::Int { value, .. }) = c.kind else { return None };
        let wide = matches!(
            self.ty(index).scalar(),
            Some(Scalar::U64 | Scalar::I64 | Scalar::Usize | Scalar::Isize)
        );
        if !wide || self.checked.comptime[index.id] {
            return None;
        }
        let c = i64::try_from(value).ok()?;
        Some((base, if *op == BinOp::Sub { -c } else { c }))
    }

    /// Whether `index` (a plain immutable variable) is proven below the length of the
    /// slice bound as `slice`.
    fn is_proven(&self, index: &Expr, slice: Option<usize>) -> bool {
        let (ExprKind::Path(_), Some(i), Some(s)) = (&index.kind, self.checked.binding[index.id], slice)
        else {
            return false;
        };
        self.proven.contains(&(self.root(i), self.root(s)))
    }

    /// The binding `b` stands for ([`Checked::roots`]).
    fn root(&self, b: usize) -> usize {
        *self.checked.roots.get(&b).unwrap_or(&b)
    }

    /// The facts `index < slice.len()` that `cond` proves when it holds: comparisons of an
    /// immutable integer variable (as itself, or widened to 64 bits) with a slice's length
    /// (as itself, or cast), in an unsigned type, and conjunctions of them.
    fn range_facts(&self, cond: &Expr) -> Vec<(usize, usize)> {
        match &cond.kind {
            ExprKind::Binary(BinOp::And, l, r) => {
                let mut f = self.range_facts(l);
                f.extend(self.range_facts(r));
                f
            }
            ExprKind::Binary(BinOp::Lt, a, b) => self.fact(a, b).into_iter().collect(),
            ExprKind::Binary(BinOp::Gt, a, b) => self.fact(b, a).into_iter().collect(),
            _ => Vec::new(),
        }
    }

    fn fact(&self, index: &Expr, len: &Expr) -> Option<(usize, usize)> {
        let unsigned = self.ty(index).scalar().is_some_and(|s| s.is_int() && !s.is_signed_int());
        if !unsigned {
            return None;
        }
        let var = match &index.kind {
            ExprKind::Path(_) => index,
            ExprKind::Cast(inner, Scalar::Usize | Scalar::U64) if matches!(inner.kind, ExprKind::Path(_)) => {
                inner
            }
            _ => return None,
        };
        if self.checked.reads_mutable[var.id] || self.checked.comptime[var.id] {
            return None;
        }
        Some((self.root(self.checked.binding[var.id]?), self.root(self.len_slice(len)?)))
    }

    /// The slice binding of `x.len()`, or of `x.len()` cast (a truncating cast to a
    /// narrower unsigned type only makes the bound smaller, so it still proves).
    fn len_slice(&self, len: &Expr) -> Option<usize> {
        let len_call = match &len.kind {
            ExprKind::Cast(inner, _) => inner,
            _ => len,
        };
        match &len_call.kind {
            ExprKind::MethodCall { method, .. } if method == "len" => self.checked.binding[len_call.id],
            _ => None,
        }
    }

    /// Lowers `f` with `facts` known.
    fn with_facts<R>(&mut self, facts: Vec<(usize, usize)>, f: impl FnOnce(&mut Self) -> R) -> R {
        let depth = self.proven.len();
        self.proven.extend(facts);
        let r = f(self);
        self.proven.truncate(depth);
        r
    }

    /// `a && b` / `a || b`: `b` is evaluated only when `a` does not decide.
    fn short_circuit(&mut self, op: BinOp, l: &Expr, r: &Expr, name: Option<&Ident>) -> Atom {
        let k = ctx();
        let a = self.value(l);
        // A temporary, not the user's name: the right side may read a binding that name shadows.
        let result = self.tmp("__t");
        let skip = self.tmp("__skip");
        self.emit(quote!(let #result = #k.var(#a); let #skip = #k.label();));
        let jump = if op == BinOp::And { quote!(jump_unless) } else { quote!(jump_if) };
        self.emit(quote!(#k.#jump(#result, #skip);));
        let (inner, ()) = self.nested(|l| {
            let b = l.value(r);
            l.emit(quote!(#k.assign(#result, #b);));
        });
        self.emit(quote!({ #inner }));
        self.emit(quote!(#k.place(#skip);));
        self.rename(name, quote!(#result))
    }

    /// The variable of a `let` without a value of type `ty` (a scalar or a tuple of them,
    /// as the checker requires), element by element (`KernelCtx::deferred_var` of ptx-dsl).
    fn deferred_var(&self, ty: &Ty) -> TokenStream {
        let k = ctx();
        match ty {
            Ty::Scalar(s) => {
                let s = self.scalar(*s);
                quote!(#k.deferred_var(#s))
            }
            Ty::Tuple(elems) => {
                let vs: Vec<TokenStream> = elems.iter().map(|t| self.deferred_var(t)).collect();
                quote!((#(#vs,)*))
            }
            _ => quote!(()),
        }
    }

    /// A fresh holder for a value of type `ty` (an `if`'s result), or `None` for `()`.
    fn holder(&self, ty: &Ty) -> Option<TokenStream> {
        let k = ctx();
        match ty {
            Ty::Scalar(s) => {
                let s = self.scalar(*s);
                Some(quote!(#k.declare(#s)))
            }
            Ty::Tuple(elems) if !elems.is_empty() => {
                let hs: Vec<TokenStream> =
                    elems.iter().map(|t| self.holder(t).unwrap_or(quote!(()))).collect();
                Some(quote!((#(#hs,)*)))
            }
            _ => None,
        }
    }

    fn assign_holder(&self, holder: &TokenStream, v: &TokenStream, ty: &Ty) -> TokenStream {
        let k = ctx();
        match ty {
            Ty::Scalar(_) => quote!(#k.assign(#holder, #v);),
            Ty::Tuple(elems) => elems
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let idx = syn::Index::from(i);
                    self.assign_holder(&quote!(#holder.#idx), &quote!(#v.#idx), t)
                })
                .collect(),
            _ => quote!(),
        }
    }

    /// The type a block evaluates to (`!` when its last statement diverges).
    fn block_ty(&self, b: &Block) -> Ty {
        match (&b.tail, b.stmts.last()) {
            (Some(t), _) => self.ty(t),
            (None, Some(Stmt::Expr { expr, .. })) if self.ty(expr) == Ty::Never => Ty::Never,
            _ => Ty::unit(),
        }
    }

    /// Lowers a block's statements and, unless it diverges, its value as runtime tokens.
    fn block_parts(&mut self, b: &Block) -> (TokenStream, Option<TokenStream>) {
        let diverges = self.block_ty(b) == Ty::Never;
        self.nested(|l| {
            let depth = l.proven.len();
            for s in &b.stmts {
                l.stmt(s);
            }
            let computes = |t: &Expr| !matches!(t.kind, ExprKind::Path(_) | ExprKind::Lit(_));
            if let Some(t) =
                b.tail.as_ref().filter(|t| l.ty(t) == Ty::unit() || (b.function_body && computes(t)))
            {
                l.note(t.span, &b.tail_text);
            }
            let tail = b.tail.as_ref().map(|t| l.bound_value(t));
            l.proven.truncate(depth);
            if diverges {
                if let Some(t) = &tail {
                    l.emit(quote!(let _ = #t;));
                }
                None
            } else {
                tail
            }
        })
    }

    fn block_expr(&mut self, b: &Block, ty: &Ty, name: Option<&Ident>) -> Atom {
        let (stmts, tail) = self.block_parts(b);
        // A local array is the block's value as it is, with no holder to assign.
        let has_value = self.holder(ty).is_some() || matches!(ty, Ty::Array(_));
        // An inlined device function's names are the function's, which rustc's style lint
        // reports at its host copy: not again here, in each call.
        let inlined = b.stmts.iter().any(|s| matches!(s, Stmt::Let { role: LetRole::Result { .. }, .. }));
        let lint = inlined.then(|| quote!(#[allow(non_snake_case)]));
        match (tail, has_value) {
            (Some(v), true) => {
                let n = name.cloned().unwrap_or_else(|| self.tmp("__block"));
                self.emit(quote!(#lint let #n = { #stmts #v };));
                Atom::Rt(quote!(#n))
            }
            (tail, _) => {
                let tail = tail.map(|t| quote!(let _ = #t;));
                let block = quote!({ #stmts #tail });
                self.emit(if inlined { quote!(#lint let _ = #block;) } else { block });
                Atom::Unit
            }
        }
    }

    /// The `else` of an `if` as a block: `else { .. }` or `else if ..`.
    fn else_parts(&mut self, els: &Expr) -> (TokenStream, Option<TokenStream>) {
        match &els.kind {
            ExprKind::Block(b) => self.block_parts(b),
            _ => {
                let diverges = self.ty(els) == Ty::Never;
                self.nested(|l| {
                    let v = l.value(els);
                    (!diverges).then_some(v)
                })
            }
        }
    }

    fn if_expr(
        &mut self,
        e: &Expr,
        cond: &Expr,
        then: &Block,
        els: Option<&Expr>,
        name: Option<&Ident>,
    ) -> Atom {
        let k = ctx();
        let ty = self.ty(e);
        let holder = self.holder(&ty);
        if self.checked.comptime[cond.id] {
            let c = self.host(cond);
            let (then_stmts, then_v) = self.block_parts(then);
            let (else_stmts, else_v) = match els {
                Some(x) => self.else_parts(x),
                None => (quote!(), None),
            };
            let Some(h) = holder else {
                self.emit(quote!(if #c { #then_stmts } else { #else_stmts }));
                return Atom::Unit;
            };
            // A diverging arm still gives the host `if` a value: a register never read.
            let then_v = then_v.unwrap_or_else(|| h.clone());
            let else_v = else_v.unwrap_or_else(|| h.clone());
            return self.bind(
                name,
                "__if",
                quote!(if #c { #then_stmts #then_v } else { #else_stmts #else_v }),
            );
        }
        let c = self.value(cond);
        if els.is_none() {
            if let Some(target) = self.lone_jump(then) {
                // `if c { return; }` (or `break`, `continue`): one conditional branch.
                self.emit(match target {
                    Some(label) => quote!(#k.jump_if(#c, #label);),
                    None => quote!(#k.return_if(#c);),
                });
                return Atom::Unit;
            }
        }
        let else_block = els.and_then(|x| match &x.kind {
            ExprKind::Block(b) => Some(b),
            _ => None,
        });
        if let (Some(a), Some(b)) = (self.arm_at_hand(then), else_block.and_then(|b| self.arm_at_hand(b))) {
            // Both arms are values at hand: pick one without branching.
            let (a, b) = (self.value(a), self.value(b));
            let picked = self.select(&c, &a, &b, &ty);
            return self.bind(name, "__if", picked);
        }
        let result = self.value_holder(&ty, "__if").map(|(n, _)| n);
        let end = self.tmp("__end_if");
        let else_label = if els.is_some() { self.tmp("__else") } else { end.clone() };
        if els.is_some() {
            self.emit(quote!(let #else_label = #k.label();));
        }
        self.emit(quote!(let #end = #k.label(); #k.jump_unless(#c, #else_label);));
        let facts = self.range_facts(cond);
        let (then_stmts, then_v) = self.with_facts(facts, |l| l.block_parts(then));
        let then_assign = match (&result, then_v) {
            (Some(r), Some(v)) => self.assign_holder(r, &v, &ty),
            (None, Some(v)) => quote!(let _ = #v;),
            _ => quote!(),
        };
        self.emit(quote!({ #then_stmts #then_assign }));
        if let Some(x) = els {
            self.emit(quote!(#k.jump(#end); #k.place(#else_label);));
            let (else_stmts, else_v) = self.else_parts(x);
            let else_assign = match (&result, else_v) {
                (Some(r), Some(v)) => self.assign_holder(r, &v, &ty),
                (None, Some(v)) => quote!(let _ = #v;),
                _ => quote!(),
            };
            self.emit(quote!({ #else_stmts #else_assign }));
        }
        self.emit(quote!(#k.place(#end);));
        match result {
            Some(r) => self.rename(name, r),
            None => Atom::Unit,
        }
    }

    /// The value of an `if` arm that is only a value at hand (a variable, a literal, a
    /// constant, the negation or complement of one, or a tuple of these; the checker has
    /// made sure they are scalars): evaluating it can neither fault nor have an effect, so
    /// both arms of such an `if` may be evaluated and one picked.
    fn arm_at_hand<'e>(&self, b: &'e Block) -> Option<&'e Expr> {
        b.tail.as_deref().filter(|t| b.stmts.is_empty() && at_hand(t))
    }

    /// `if c { a } else { b }` of two values of type `ty` as one `select` per scalar.
    fn select(&mut self, c: &TokenStream, a: &TokenStream, b: &TokenStream, ty: &Ty) -> TokenStream {
        let (mut a, mut b) = (a.clone(), b.clone());
        if let Ty::Tuple(_) = ty {
            // Each arm once, whatever its elements read.
            let (ta, tb) = (self.tmp("__then"), self.tmp("__else"));
            self.emit(quote!(let #ta = #a; let #tb = #b;));
            (a, b) = (quote!(#ta), quote!(#tb));
        }
        let k = ctx();
        per_scalar(&[a, b], ty, &|v: &[TokenStream]| {
            let (a, b) = (&v[0], &v[1]);
            quote!(#k.select(#c, #a, #b))
        })
    }

    /// Where a block that only leaves goes: its one statement (or tail) is `return`
    /// (`Some(None)`), or `break`/`continue` of a runtime loop without a value (`Some` of
    /// the loop's label).
    fn lone_jump(&self, block: &Block) -> Option<Option<Ident>> {
        let only = match (&block.stmts[..], &block.tail) {
            ([Stmt::Expr { expr, .. }], None) => expr,
            ([], Some(tail)) => &**tail,
            _ => return None,
        };
        match &only.kind {
            ExprKind::Return => Some(None),
            ExprKind::Break { label, value: None } | ExprKind::Continue { label } => {
                let is_break = matches!(only.kind, ExprKind::Break { .. });
                Some(Some(self.jump_target(label, is_break)?))
            }
            _ => None,
        }
    }

    /// The label `break` (or `continue`) with `label` jumps to: the innermost runtime loop,
    /// or the one named.
    fn jump_target(&self, label: &Option<syn::Lifetime>, is_break: bool) -> Option<Ident> {
        self.target_loop(label).map(|lp| {
            if is_break {
                lp.breaks.set(true);
                lp.exit.clone()
            } else {
                lp.continues.set(true);
                lp.next.clone()
            }
        })
    }

    /// The innermost runtime loop, or the one `label` names.
    fn target_loop(&self, label: &Option<syn::Lifetime>) -> Option<&LoopLabels> {
        let wanted = label.as_ref().map(|l| l.ident.to_string());
        self.loops.iter().rev().find(|lp| wanted.is_none() || lp.label == wanted)
    }

    /// A loop's body as a block, with `prefix` (the loop variable's binding) first and
    /// `facts` known inside; `continue` jumps to `next`, `break` to `exit`.
    fn loop_body(
        &mut self,
        label: &Option<syn::Lifetime>,
        body: &Block,
        (next, exit): (&Ident, &Ident),
        prefix: TokenStream,
        facts: Vec<(usize, usize)>,
        value: Option<(TokenStream, Ty)>,
    ) {
        self.loops.push(LoopLabels::new(label.as_ref().map(|l| l.ident.to_string()), next, exit, value));
        let (stmts, tail) = self.with_facts(facts, |l| l.block_parts(body));
        let tail = tail.map(|t| quote!(let _ = #t;));
        self.emit(quote!({ #prefix #stmts #tail }));
        self.loops.pop();
    }

    /// `'label: { body }`, which gives the value of type `ty` of its end or of the `break
    /// 'label value` that leaves it (bound to `name`).
    fn labeled_block(&mut self, label: &syn::Lifetime, body: &Block, ty: &Ty, name: Option<&Ident>) -> Atom {
        let k = ctx();
        let value = self.value_holder(ty, "__block_value");
        let exit = self.tmp("__block_exit");
        self.emit(quote!(let #exit = #k.label();));
        self.loops.push(LoopLabels::new(Some(label.ident.to_string()), &exit, &exit, value.clone()));
        let (stmts, tail) = self.block_parts(body);
        let assign = match (&value, tail) {
            (Some((holder, ty)), Some(v)) => self.assign_holder(holder, &v, ty),
            (None, Some(v)) => quote!(let _ = #v;),
            _ => quote!(),
        };
        self.emit(quote!({ #stmts #assign }));
        self.loops.pop();
        self.emit(quote!(#k.place(#exit);));
        match value {
            Some((holder, _)) => self.rename(name, holder),
            None => Atom::Unit,
        }
    }

    /// A temporary holding a value of type `ty` (none for `()`) that several places assign,
    /// named after `hint`, with its type. A temporary, not the user's name: the code that
    /// assigns it may read a binding that name shadows.
    fn value_holder(&mut self, ty: &Ty, hint: &str) -> Option<(TokenStream, Ty)> {
        let h = self.holder(ty)?;
        let n = self.tmp(hint);
        self.emit(quote!(let #n = #h;));
        Some((quote!(#n), ty.clone()))
    }

    /// `while cond { body }` (`cond` present) or `loop { body }`, which gives the value of
    /// type `ty` its `break`s give (bound to `name`).
    fn runtime_loop(
        &mut self,
        label: &Option<syn::Lifetime>,
        cond: Option<&Expr>,
        body: &Block,
        ty: &Ty,
        name: Option<&Ident>,
    ) -> Atom {
        let k = ctx();
        let value = self.value_holder(ty, "__loop_value");
        let (head, exit) = (self.tmp("__loop_head"), self.tmp("__loop_exit"));
        self.emit(quote!(let #head = #k.label(); let #exit = #k.label(); #k.place(#head);));
        if let Some(c) = cond {
            let (stmts, v) = self.nested(|l| l.value(c));
            self.emit(quote!(#stmts #k.jump_unless(#v, #exit);));
        }
        self.loop_body(label, body, (&head, &exit), TokenStream::new(), Vec::new(), value.clone());
        self.emit(quote!(#k.jump(#head); #k.place(#exit);));
        match value {
            Some((holder, _)) => self.rename(name, holder),
            None => Atom::Unit,
        }
    }

    fn runtime_for(
        &mut self,
        label: &Option<syn::Lifetime>,
        var: Option<&Ident>,
        var_binding: Option<usize>,
        range: &RangeSpec,
        body: &Block,
    ) {
        let k = ctx();
        let var_ty = self.ty(&range.start);
        // `for i in a..x.len()`: the head's `i < end` proves `x[i]` in range in the body.
        let unsigned = var_ty.scalar().is_some_and(|s| s.is_int() && !s.is_signed_int());
        let facts: Vec<(usize, usize)> = match (var_binding, self.len_slice(&range.end)) {
            (Some(v), Some(s)) if unsigned && !range.inclusive => vec![(self.root(v), self.root(s))],
            _ => Vec::new(),
        };
        // Both snapshots: the body may assign the variables they read (a reversed loop
        // compares with `start` at each step).
        let start = self.bound_value(&range.start);
        let end_v = self.bound_value(&range.end);
        let (i, end, step) = (self.tmp("__i"), self.tmp("__end"), self.tmp("__step"));
        let (next, exit) = (self.tmp("__for_next"), self.tmp("__for_exit"));
        self.emit(quote!(let #i = #k.var(#start); let #end = #end_v;));
        self.emit(quote!(let #next = #k.label(); let #exit = #k.label();));
        let scalar = var_ty.scalar().unwrap_or(Scalar::I32);
        let s = self.scalar(scalar);
        match &range.step {
            Some(st) => {
                let v = self.bound_value(st);
                let site = self.site(st.span);
                // Kept as `step_by`'s `usize` (a cast could truncate it to a smaller step).
                self.emit(quote!(let #step = #v; #k.check_step(#step, #site, #exit);));
            }
            None => {
                let one = self.host_to_rt(one_of(scalar), &var_ty);
                self.emit(quote!(let #step = #one;));
            }
        }
        if range.order != RangeOrder::Forward {
            self.reversed_for(label, var, (&start, &i, &end, &step), (&next, &exit), range, body, facts);
            return;
        }
        let cmp = if range.inclusive { quote!(le) } else { quote!(lt) };
        let head = self.tmp("__for_head");
        self.emit(quote!(let #head = #k.label();));
        let inclusive = range.inclusive;
        let (in_range, done, stepped) = (self.tmp("__in_range"), self.tmp("__done"), self.tmp("__stepped"));
        // A `step_by` amount is a `usize`, cast to the variable's type where it is added.
        let increment = match range.step {
            Some(_) => quote!(let #stepped = #k.cast(#step, #s); let #stepped = #k.add(#i, #stepped);),
            None => quote!(let #stepped = #k.add(#i, #step);),
        };
        self.emit(
            quote!(#k.place(#head); let #in_range = #k.#cmp(#i, #end); #k.jump_unless(#in_range, #exit);),
        );
        let binding = var.map(binder).map(|v| quote!(let #v = #i;)).unwrap_or_default();
        self.loop_body(label, body, (&next, &exit), binding, facts, None);
        self.emit(quote! {
            #k.place(#next);
            let #done = #k.range_done_after(#i, #end, #step, #inclusive);
            #k.jump_if(#done, #exit);
            #increment
            #k.assign(#i, #stepped);
            #k.jump(#head);
            #k.place(#exit);
        });
    }

    /// The rest of [`Self::runtime_for`] for `(start..end).rev()`: one test that the range
    /// is not empty, then from its last value down (for `(start..end).step_by(s).rev()`,
    /// the last value forward steps reach), `i - start < step` ending the loop (so no step
    /// goes below `start`, the range's first value as `first`).
    #[allow(clippy::too_many_arguments)]
    fn reversed_for(
        &mut self,
        label: &Option<syn::Lifetime>,
        var: Option<&Ident>,
        (first, i, end, step): (&TokenStream, &Ident, &Ident, &Ident),
        (next, exit): (&Ident, &Ident),
        range: &RangeSpec,
        body: &Block,
        facts: Vec<(usize, usize)>,
    ) {
        let k = ctx();
        let s = self.scalar(self.ty(&range.start).scalar().unwrap_or(Scalar::I32));
        let (start, nonempty, top) = (self.tmp("__start"), self.tmp("__nonempty"), self.tmp("__top"));
        let (body_label, done, stepped) = (self.tmp("__for_body"), self.tmp("__done"), self.tmp("__stepped"));
        let cmp = if range.inclusive { quote!(le) } else { quote!(lt) };
        let p = self.private();
        // The last value: `end` itself, or `end - 1` (which cannot wrap: `start < end`).
        let last = if range.inclusive {
            quote!(let #top = #end;)
        } else {
            quote!(let #top = #k.cast(#p::Value::from(1u8), #s); let #top = #k.sub(#end, #top);)
        };
        let last = match range.order {
            RangeOrder::StepsReversed => quote!(#last let #top = #k.range_last_stepped(#start, #top, #step);),
            RangeOrder::Forward | RangeOrder::Reversed => last,
        };
        self.emit(quote! {
            let #start = #first;
            let #nonempty = #k.#cmp(#start, #end);
            #k.jump_unless(#nonempty, #exit);
            #last
            #k.assign(#i, #top);
            let #body_label = #k.label();
            #k.place(#body_label);
        });
        let binding = var.map(binder).map(|v| quote!(let #v = #i;)).unwrap_or_default();
        self.loop_body(label, body, (next, exit), binding, facts, None);
        self.emit(quote! {
            #k.place(#next);
            let #done = #k.range_done_before(#i, #start, #step);
            #k.jump_if(#done, #exit);
            let #stepped = #k.cast(#step, #s);
            let #stepped = #k.sub(#i, #stepped);
            #k.assign(#i, #stepped);
            #k.jump(#body_label);
            #k.place(#exit);
        });
    }

    /// `#[unroll] 'label: for var in range { body }`: a host loop over the comptime range
    /// that lays out one copy of the body per value, `var` a constant in each; `at` is the
    /// loop's position, which a runaway count's error names.
    fn unrolled_for(
        &mut self,
        at: Sp,
        label: &Option<syn::Lifetime>,
        var: Option<&Ident>,
        range: &RangeSpec,
        body: &Block,
    ) {
        let start = self.host(&range.start);
        let end = self.host(&range.end);
        let dots = if range.inclusive { quote!(..=) } else { quote!(..) };
        // `.rev()` before `step_by` or after it, as written.
        let (rev, rev_after_step) = match range.order {
            RangeOrder::Forward => (quote!(), quote!()),
            RangeOrder::Reversed => (quote!(.rev()), quote!()),
            RangeOrder::StepsReversed => (quote!(), quote!(.rev())),
        };
        let v = var.map_or_else(|| quote!(_), |v| quote!(#v));
        // `continue` jumps to the end of its iteration's copy (a label of each), `break` past
        // the last copy; the labels are made only where a jump goes to them.
        let (next, exit) = (self.tmp("__unrolled_next"), self.tmp("__unrolled_exit"));
        self.loops.push(LoopLabels::new(label.as_ref().map(|l| l.ident.to_string()), &next, &exit, None));
        let (stmts, tail) = self.block_parts(body);
        let labels = self.loops.pop();
        let (breaks, continues) = labels.map_or((false, false), |l| (l.breaks.get(), l.continues.get()));
        let tail = tail.map(|t| quote!(let _ = #t;));
        let k = ctx();
        let (new_next, place_next) = if continues {
            (quote!(let #next = #k.label();), quote!(#k.place(#next);))
        } else {
            (quote!(), quote!())
        };
        if breaks {
            self.emit(quote!(let #exit = #k.label();));
        }
        // A runaway count stops at the limits (the verifier's error at launch, at the loop).
        let site = self.site(at);
        let stmts = quote!(if !#k.unroll_copy(#site) { break; } #new_next #stmts #tail #place_next);
        match &range.step {
            Some(st) => {
                let (s, step) = (self.host(st), self.tmp("__step"));
                let site = self.site(st.span);
                // A zero step is a launch-time fault, as in a runtime loop, not a panic of
                // `step_by` while the kernel is built.
                self.emit(quote! {
                    let #step: usize = #s;
                    if #k.unrolled_step_ok(#step, #site) {
                        for #v in (#start #dots #end) #rev .step_by(#step) #rev_after_step { #stmts }
                    }
                });
            }
            None => self.emit(quote!(for #v in (#start #dots #end) #rev { #stmts })),
        }
        if breaks {
            self.emit(quote!(#k.place(#exit);));
        }
    }

    fn method(&mut self, receiver: &Expr, method: &syn::Ident, args: &[Expr], name: Option<&Ident>) -> Atom {
        let k = ctx();
        let p = self.private();
        let mut vs = self.operands(std::iter::once(receiver).chain(args));
        let recv = vs.remove(0);
        let m = method.to_string();
        let call = match (m.as_str(), float_fn_variant(&m)) {
            (_, Some(variant)) => {
                let f = format_ident!("{}", variant);
                quote!(#k.float_fn(#p::FloatFn::#f, #recv))
            }
            ("wrapping_add", _) => quote!(#k.add(#recv, #(#vs),*)),
            ("wrapping_sub", _) => quote!(#k.sub(#recv, #(#vs),*)),
            ("wrapping_mul", _) => quote!(#k.mul(#recv, #(#vs),*)),
            ("wrapping_neg", _) => quote!(#k.neg(#recv)),
            // The language's shifts mask the amount to the width, as these do.
            ("wrapping_shl", _) => quote!(#k.shl(#recv, #(#vs),*)),
            ("wrapping_shr", _) => quote!(#k.shr(#recv, #(#vs),*)),
            ("pow" | "wrapping_pow", _) => quote!(#k.int_pow(#recv, #(#vs),*)),
            (
                "clamp" | "rem_euclid" | "div_euclid" | "wrapping_div" | "wrapping_rem" | "ilog2"
                | "div_ceil" | "next_multiple_of" | "isqrt" | "ilog10",
                _,
            ) => {
                let site = self.site(Sp::of(method));
                let f = Ident::new(&m, Span::mixed_site());
                quote!(#k.#f(#recv, #(#vs,)* #site))
            }
            ("signum", _) if self.ty(receiver).scalar().is_some_and(Scalar::is_int) => {
                quote!(#k.int_signum(#recv))
            }
            ("to_f32" | "to_f64", _) => {
                let s = self.scalar(if m == "to_f32" { Scalar::F32 } else { Scalar::F64 });
                quote!(#k.cast(#recv, #s))
            }
            _ => {
                let f = Ident::new(&m, Span::mixed_site());
                quote!(#k.#f(#recv #(, #vs)*))
            }
        };
        self.bind(name, if m == "sin_cos" { "__sin_cos" } else { "__t" }, call)
    }

    /// `{ let c: T = PATH; c }`: the constant `path` as the kernel's type `ty` for it.
    /// Its tokens carry the name's span, so that rustc's errors about its type (the item's
    /// against the use's) point at the name, not at the kernel's attribute.
    fn item_const(&mut self, path: TokenStream, ty: &Ty, sp: Sp) -> TokenStream {
        // The type at the name too, so that rustc's "expected due to this" points there.
        let t = match ty {
            Ty::Scalar(s) => Ident::new(s.name(), sp.start).into_token_stream(),
            _ => quote_spanned!(sp.start=> _),
        };
        let c = self.tmp("__const");
        let c = Ident::new(&c.to_string(), sp.start.resolved_at(c.span()));
        quote_spanned!(sp.start=> { let #c: #t = #path; #c })
    }

    /// The Rust name of the local `n` that `e` reads: a body's `const` array's own name.
    fn local_name(&self, n: &Ident, e: &Expr) -> Ident {
        match self.checked.binding[e.id] {
            Some(b) if self.checked.const_arrays.contains(&b) => const_name(n),
            _ => n.clone(),
        }
    }

    /// Where `e` is a call of `std::cmp::min`/`max` written as a path of a function
    /// (`cmp::min`, `min`, ...), the check that the path names that function, as rustc
    /// resolves it: a `use std::cmp;` or `use std::cmp::min;` is then used, `min` without one
    /// is rustc's error, and so is a `min` of the user's, which the kernel would not call.
    fn cmp_function(&self, e: &Expr) -> Option<TokenStream> {
        let (_, path) = self.ord_calls.iter().find(|(id, _)| *id == e.id)?;
        let n = path.segments.len();
        if n != 1 && path.segments[n - 2].ident != "cmp" {
            return None;
        }
        // Two distinct functions have distinct types: the assignment compiles only when the
        // path names `std::cmp`'s function (`()` is an `Ord` type to name it at).
        let name = &path.segments[n - 1].ident;
        let f = Ident::new("__cmp_function", name.span().resolved_at(Span::mixed_site()));
        Some(quote_spanned!(name.span()=> {
            #[allow(unused_assignments)]
            let mut #f = #path;
            #f = ::core::cmp::#name::<()>;
            let _ = #f;
        }))
    }

    /// A comptime expression as host Rust.
    fn host(&mut self, e: &Expr) -> TokenStream {
        // A host-typed expression is written without a type: rustc infers it.
        let ty = if self.checked.host_typed[e.id] { Ty::Error } else { self.ty(e) };
        match &e.kind {
            ExprKind::Lit(lit) => literal(lit, &ty, e.span),
            ExprKind::Deref(inner) => self.host(inner),
            // A constant of the code around the kernel, read as the type its use gave it
            // (rustc checks the item against it, at the name).
            ExprKind::Path(n) if self.checked.item_const[e.id] => self.item_const(quote!(#n), &ty, e.span),
            ExprKind::ItemConst(path) => self.item_const(quote!(#path), &ty, e.span),
            ExprKind::Path(n)
                if self.checked.binding[e.id].is_some_and(|b| self.checked.consts.contains(&b)) =>
            {
                let n = const_name(n);
                quote!(#n)
            }
            ExprKind::Path(n) => {
                let n = self.local_name(n, e);
                quote!(#n)
            }
            ExprKind::Const { ty: s, path } => {
                let name = path.segments.last().map(|s| s.ident.clone());
                let t = host_type(*s);
                if path.segments.iter().any(|s| s.ident == "consts") {
                    quote!(::core::#t::consts::#name)
                } else {
                    // `u32::MAX`, `f32::EPSILON`, `i64::BITS` (whose type is u32): as written.
                    quote!(#path)
                }
            }
            ExprKind::Unary(UnOp::Neg, inner) => {
                let a = self.host(inner);
                match (&inner.kind, ty.scalar()) {
                    (ExprKind::Lit(_), _) => quote!((-#a)),
                    (_, Some(s)) if s.is_int() => quote!((#a).wrapping_neg()),
                    _ => quote!((-#a)),
                }
            }
            ExprKind::Unary(UnOp::Not, inner) => {
                let a = self.host(inner);
                quote!((!#a))
            }
            ExprKind::Binary(op, l, r) => {
                let (a, b) = (self.host(l), self.host(r));
                let int = self.ty(l).scalar().is_some_and(Scalar::is_int);
                match op {
                    BinOp::Add if int => quote!((#a).wrapping_add(#b)),
                    BinOp::Sub if int => quote!((#a).wrapping_sub(#b)),
                    BinOp::Mul if int => quote!((#a).wrapping_mul(#b)),
                    BinOp::Shl => quote!((#a).wrapping_shl((#b) as u32)),
                    BinOp::Shr => quote!((#a).wrapping_shr((#b) as u32)),
                    _ => {
                        // At the expression, where rustc reports operands it cannot combine.
                        let o: TokenStream = op.symbol().parse().unwrap_or_default();
                        let o = o.into_iter().map(|mut t| {
                            t.set_span(e.span.start);
                            t
                        });
                        quote!((#a #(#o)* #b))
                    }
                }
            }
            ExprKind::Cast(inner, to) => {
                let a = self.host(inner);
                let t = host_type(*to);
                quote!(((#a) as #t))
            }
            ExprKind::Field(inner, Member::Index(i, _)) => {
                let a = self.host(inner);
                let idx = syn::Index::from(*i);
                quote!((#a).#idx)
            }
            ExprKind::TypeCall { ty: s, func, args } => {
                let t = host_type(*s);
                let hs: Vec<TokenStream> = args.iter().map(|a| self.host(a)).collect();
                let f = host_method(func, *s);
                quote!(#t::#f(#(#hs),*))
            }
            ExprKind::MethodCall { receiver, method, args } => {
                let r = self.host(receiver);
                let hs: Vec<TokenStream> = args.iter().map(|a| self.host(a)).collect();
                let f = host_method(method, self.ty(receiver).scalar().unwrap_or(Scalar::F32));
                match self.cmp_function(e) {
                    Some(check) => quote!({ #check; (#r).#f(#(#hs),*) }),
                    None => quote!((#r).#f(#(#hs),*)),
                }
            }
            ExprKind::If { cond, then, els, .. } => {
                let c = self.host(cond);
                let t = then.tail.as_ref().map(|t| self.host(t)).unwrap_or_default();
                let f = match els.as_deref() {
                    Some(Expr { kind: ExprKind::Block(b), .. }) => {
                        b.tail.as_ref().map(|t| self.host(t)).unwrap_or_default()
                    }
                    Some(other) => self.host(other),
                    None => quote!(()),
                };
                quote!((if #c { #t } else { #f }))
            }
            ExprKind::Block(b) => b.tail.as_ref().map(|t| self.host(t)).unwrap_or_else(|| quote!(())),
            ExprKind::Tuple(elems) => {
                let hs: Vec<TokenStream> = elems.iter().map(|a| self.host(a)).collect();
                quote!((#(#hs,)*))
            }
            ExprKind::Intrinsic { which: Intrinsic::WarpSize, func, .. } => {
                let p = self.private();
                quote!({ let _ = #func; #p::WARP_SIZE })
            }
            _ => quote!(()),
        }
    }
}

/// Whether `e` is a value at hand (see [`Lowerer::arm_at_hand`]).
fn at_hand(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(_) | ExprKind::Path(_) | ExprKind::Const { .. } => true,
        ExprKind::Unary(_, x) => at_hand(x),
        ExprKind::Tuple(xs) => xs.iter().all(at_hand),
        _ => false,
    }
}

/// A place that is a variable (`t`) or an element of a tuple variable (`t.1.0`), as the
/// generated code names it (an element of a slice or array is none: `()`).
fn variable_place(place: &Place) -> TokenStream {
    match place {
        Place::Local(n) => quote!(#n),
        Place::Field { base, fields } => quote!(#base #(.#fields)*),
        Place::Index { .. } => quote!(()),
    }
}

/// `KernelCtx::snapshot` of each scalar in `value`, a value of type `ty`.
fn snapshot_of(value: &TokenStream, ty: &Ty) -> TokenStream {
    let k = ctx();
    per_scalar(std::slice::from_ref(value), ty, &|v: &[TokenStream]| {
        let v = &v[0];
        quote!(#k.snapshot(#v))
    })
}

/// `f` of the corresponding scalars of `values` (all of type `ty`), as a value of type
/// `ty`: `f(values)` for a scalar, the tuple of each element's result for a tuple (and the
/// first value as it is for any other type).
fn per_scalar(values: &[TokenStream], ty: &Ty, f: &dyn Fn(&[TokenStream]) -> TokenStream) -> TokenStream {
    match ty {
        Ty::Tuple(elems) => {
            let parts = elems.iter().enumerate().map(|(i, t)| {
                let idx = syn::Index::from(i);
                let elements: Vec<TokenStream> = values.iter().map(|v| quote!(#v.#idx)).collect();
                per_scalar(&elements, t, f)
            });
            quote!((#(#parts,)*))
        }
        Ty::Scalar(_) => f(values),
        _ => values[0].clone(),
    }
}

/// The pattern that binds the source's `name` in generated code: `NAME @ _` for a name
/// that starts with an upper-case letter, `name` otherwise. Where a constant, static or unit
/// struct `NAME` of the surrounding code is in scope, a plain `NAME` would be a pattern that
/// compares with it, and rustc's errors would be about the generated values; `NAME @ _` is
/// rustc's own "let bindings cannot shadow constants" (E0530) at the name, as the plain
/// function's `let NAME = v` is refused too (E0005), and otherwise binds `NAME` as usual.
pub(crate) fn binder(name: &Ident) -> TokenStream {
    let text = name.to_string();
    if text.trim_start_matches("r#").starts_with(|c: char| c.is_ascii_uppercase()) {
        quote!(#name @ _)
    } else {
        quote!(#name)
    }
}

/// Whether a pattern binds anything mutably.
fn has_mut(p: &Pat) -> bool {
    match p {
        Pat::Ident { mutable, .. } => *mutable,
        Pat::Wild => false,
        Pat::Tuple(ps, _) => ps.iter().any(has_mut),
    }
}

/// A pattern with no `mut` as host Rust.
fn host_pattern(p: &Pat) -> TokenStream {
    match p {
        Pat::Ident { name, .. } => binder(name),
        Pat::Wild => quote!(_),
        Pat::Tuple(ps, _) => {
            let inner: Vec<TokenStream> = ps.iter().map(host_pattern).collect();
            quote!((#(#inner,)*))
        }
    }
}

/// The name of the `ptx_core::ir::AtomOp` an atomic lowers to.
fn atom_op(op: AtomicOp) -> &'static str {
    match op {
        AtomicOp::Add => "Add",
        AtomicOp::Min => "Min",
        AtomicOp::Max => "Max",
        AtomicOp::And => "And",
        AtomicOp::Or => "Or",
        AtomicOp::Xor => "Xor",
        AtomicOp::Exch => "Exch",
        AtomicOp::Cas => "Cas",
    }
}

/// The host Rust type of a scalar.
pub fn host_type(s: Scalar) -> Ident {
    Ident::new(s.name(), Span::call_site())
}

/// The host method a comptime call uses: the wrapping forms for integers, so that the
/// build computes what the kernel would (release-mode Rust) instead of panicking.
fn host_method(m: &syn::Ident, recv: Scalar) -> Ident {
    let name = m.to_string();
    let mapped = match name.as_str() {
        "pow" if recv.is_int() => "wrapping_pow",
        "abs" if recv.is_int() => "wrapping_abs",
        other => other,
    };
    Ident::new(mapped, m.span())
}

/// `1` of an integer type, as host tokens.
fn one_of(s: Scalar) -> TokenStream {
    let one = syn::LitInt::new(&format!("1{}", s.name()), Span::call_site());
    quote!(#one)
}

/// The error for a value of a host-typed expression ([`crate::check::Checked::host_typed`])
/// that the kernel would compute with at run time: its type is not known to the macro.
fn unknown_type_error(e: &Expr) -> TokenStream {
    let message = "the type of this value is not known here: it comes from a constant of the code around \
                   the kernel, whose type its uses do not say; bind it with its type (`let n: f32 = N;`, \
                   `let h: f16 = H;`) or write it with a cast (`N as u32`, ...)";
    quote_spanned!(e.span.start=> ::core::compile_error!(#message))
}

/// A literal with the suffix of its inferred type (none for a host-typed one, whose type
/// rustc infers).
fn literal(lit: &Lit, ty: &Ty, sp: Sp) -> TokenStream {
    let span = sp.start;
    match lit {
        Lit::Bool(b) => quote_spanned!(span=> #b),
        Lit::Int { value, .. } => {
            let suffix = ty.scalar().map_or("", Scalar::name);
            let l = syn::LitInt::new(&format!("{value}{suffix}"), span);
            quote!(#l)
        }
        Lit::Float { digits, .. } => {
            let suffix = ty.scalar().map_or("", Scalar::name);
            let mut d = digits.clone();
            if d.ends_with('.') {
                d.push('0');
            }
            let l = syn::LitFloat::new(&format!("{d}{suffix}"), span);
            quote!(#l)
        }
    }
}

/// The name of `Scalar`'s variant in `ptx_dsl::__private::Scalar`.
pub fn lang_scalar(s: Scalar) -> &'static str {
    match s {
        Scalar::Bool => "Bool",
        Scalar::U8 => "U8",
        Scalar::I8 => "I8",
        Scalar::U16 => "U16",
        Scalar::I16 => "I16",
        Scalar::U32 => "U32",
        Scalar::I32 => "I32",
        Scalar::U64 => "U64",
        Scalar::I64 => "I64",
        Scalar::Usize => "Usize",
        Scalar::Isize => "Isize",
        Scalar::F32 => "F32",
        Scalar::F64 => "F64",
        Scalar::F16 => "F16",
        Scalar::Bf16 => "Bf16",
    }
}

/// The `FloatFn` variant of a float routine's method name (`None` for other methods).
fn float_fn_variant(m: &str) -> Option<&'static str> {
    Some(match m {
        "sin" => "Sin",
        "cos" => "Cos",
        "tan" => "Tan",
        "atan" => "Atan",
        "asin" => "Asin",
        "acos" => "Acos",
        "exp" => "Exp",
        "exp2" => "Exp2",
        "ln" => "Ln",
        "log2" => "Log2",
        "log10" => "Log10",
        "tanh" => "Tanh",
        "cbrt" => "Cbrt",
        "exp_m1" => "ExpM1",
        "ln_1p" => "Ln1p",
        "sinh" => "Sinh",
        "cosh" => "Cosh",
        "fast_sin" => "FastSin",
        "fast_cos" => "FastCos",
        "fast_exp2" => "FastExp2",
        "fast_log2" => "FastLog2",
        "fast_recip" => "FastRecip",
        "fast_sqrt" => "FastSqrt",
        _ => return None,
    })
}

/// The generated name of the body's `const` `name` (see [`Checked::consts`]).
fn const_name(name: &Ident) -> Ident {
    format_ident!("__const_{}", name, span = name.span())
}
