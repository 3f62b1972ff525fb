//! Name resolution, type inference and the language's rules, over the kernel AST: every
//! expression gets a type (literals inferred from context the way rustc infers them) and a
//! stage (comptime: computed on the host while the kernel is built, or runtime: PTX).
//! Mutability, stores into `&[T]`, `break` outside loops, `#[unroll]` over a range that is
//! not known at build time and the like are reported here, each at its own span.

use std::collections::HashMap;

use crate::ast::*;
use crate::errors::Errors;
use crate::types::{Infer, Ty, VarKind};

mod init;
mod moves;
use init::{Assigned, ConditionExit, Deferred};
use moves::{Moved, PendingWrite};

/// What the later stages need to know about each expression, indexed by [`Expr::id`].
pub struct Checked {
    /// The expression's type, fully resolved.
    pub types: Vec<Ty>,
    /// Whether the expression is computed on the host while the kernel is built.
    pub comptime: Vec<bool>,
    /// Whether the expression reads a mutable variable anywhere in it. Its value may then be
    /// that variable's register (the variable itself, or an operation the builder folds to
    /// that operand, such as `m & true`), so binding it to a name takes a snapshot.
    pub reads_mutable: Vec<bool>,
    /// Whether the expression assigns a local variable anywhere in it (`{ k += 1; k }`).
    /// An operand evaluated before such a one, if it reads a mutable variable, is then
    /// snapshotted, so that it keeps the value Rust's left-to-right order gives it.
    pub writes_local: Vec<bool>,
    /// The binding an expression refers to: a path's variable, an indexing's (or an
    /// assignment through an index's) slice, `x.len()`'s slice, a `for` loop's variable.
    /// Bindings are numbered in declaration order, so shadowing gives a new number.
    pub binding: Vec<Option<usize>>,
    /// The slice parameters (by binding) whose `len()` the body reads.
    pub lengths_read: Vec<usize>,
    /// For a binding that names another's value for good (`let j = i;` of an immutable
    /// `i`, a device function's parameters), the binding it stands for: a guard on one
    /// proves accesses through the other.
    pub roots: HashMap<usize, usize>,
    /// Whether the body uses a full-warp operation (shuffles, votes, warp or block
    /// reductions, `sync_warp`), which needs whole warps: the launch checks the block size.
    pub uses_warps: bool,
    /// Whether an expression reads a constant of the code around the kernel
    /// ([`ExprKind::ItemConst`], or a bare constant name no local has), by expression id.
    pub item_const: Vec<bool>,
    /// Whether the expression's type is one only rustc knows: that of a constant of the
    /// surrounding code which nothing in the kernel types, every expression of which is
    /// host code (`if N > 4`). Its [`Checked::types`] entry is a default, not to be used.
    pub host_typed: Vec<bool>,
    /// The type of the target of each compound shift (`t <<= amount`), by the amount's
    /// expression id: an amount that is a constant must be below the target's width.
    pub shift_targets: HashMap<usize, Scalar>,
    /// A device function's body that never gives its value (`{ panic!("..") }`), by the
    /// body's expression id: the function's return type, which the call's result still has.
    pub never_results: HashMap<usize, Ty>,
    /// The paths of those constants, each once (`TILE`, `config::TILE`, with the spans of
    /// their first use): their values are part of the kernel's cache key, as two kernels
    /// of one text may read two `TILE`s.
    pub item_const_paths: Vec<proc_macro2::TokenStream>,
    /// The path of the constant array of the surrounding code an expression reads, by
    /// expression id: `TABLE[i]` or `config::TABLE[i]` (an element, of the expression's
    /// type), `TABLE.len()`.
    pub item_array: Vec<Option<proc_macro2::TokenStream>>,
    /// The bindings of the body's `const`s. Rust's `const N` shadows a constant `N` of the
    /// surrounding code, where the generated `let N` would be a pattern matching it: they
    /// are bound under names of their own ([`crate::lower`]).
    pub consts: Vec<usize>,
    /// The bindings of the body's `const` arrays, bound under names of their own for the
    /// same reason as [`Checked::consts`].
    pub const_arrays: Vec<usize>,
    /// Whether an expression is an access of a local array's element: a read (`a[i]`), or
    /// an assignment or compound assignment to one, by expression id.
    pub array_access: Vec<bool>,
}

/// A name in scope.
#[derive(Clone, Debug)]
struct Binding {
    id: usize,
    ty: Ty,
    mutable: bool,
    comptime: bool,
}

struct Loop {
    label: Option<String>,
    /// For a `loop` or a labelled block (which a `break` may leave with a value, as in
    /// Rust), the type of the values its `break`s give; `None` for `while` and `for`.
    value: Option<Ty>,
    /// Whether it is a labelled block rather than a loop (for messages).
    block: bool,
    /// Whether a `break` with a value leaves it.
    valued: bool,
    /// Whether any `break` leaves it: a `loop` that none leaves has type `!`, as in Rust.
    broken: bool,
    /// What the paths its `break`s take know of the `let`s without a value, joined
    /// ([`init`]).
    broken_with: Option<Assigned>,
    /// The same of its `continue`s.
    continued_with: Option<Assigned>,
}

impl Loop {
    /// A loop (or, `block`, a labelled block) with `label`, before any `break` leaves it;
    /// `value`: the type of the values its `break`s give, where they may give one.
    fn new(label: Option<&syn::Lifetime>, value: Option<Ty>, block: bool) -> Loop {
        let label = label.map(|l| l.ident.to_string());
        Loop { label, value, block, valued: false, broken: false, broken_with: None, continued_with: None }
    }
}

/// How a loop ends, for what the `let`s without a value know after it ([`init`]).
enum LoopEnds {
    /// A `loop` (and a `while let`, whose `break` comes after its value): by its `break`s.
    ByBreaks,
    /// A `while` loop: where its condition is false, at its first test or a later one; the
    /// condition's assignments (those from `repeats_from`, an index into
    /// [`Checker::deferred_assignments`] and the bindings then) repeat with each iteration.
    Condition { repeats_from: (usize, usize), exit: ConditionExit },
    /// A `for` loop: where its range is over, before the body ran or after a turn.
    Range,
}

/// How a loop's body leaves it, which gives the loop's type.
enum LoopExit {
    /// By a `break` with a value: the value's type.
    Valued(Ty),
    /// By a plain `break`: `()`.
    Broken,
    /// Never (only by `return`, or not at all): `!`.
    Never,
}

/// Checks the whole kernel; errors go to `errors`.
pub fn check(kernel: &KernelFn, errors: &mut Errors) -> Checked {
    check_with(kernel, errors, false)
}

/// Checks a device function on its own ([`crate::parse::parse_device`]'s form of it). Its
/// immutable scalar parameters count as comptime here: a call may pass comptime values, and
/// what needs one (an `#[unroll]` range over a parameter) is checked again where a kernel
/// inlines the function, with its arguments as they are. (A shared array's length or a
/// `const` made from a parameter is rustc's error in the function's host copy.)
pub fn check_device(kernel: &KernelFn, errors: &mut Errors) -> Checked {
    check_with(kernel, errors, true)
}

fn check_with(kernel: &KernelFn, errors: &mut Errors, device: bool) -> Checked {
    let n = kernel.expr_count;
    let mut c = Checker {
        errors,
        loop_variables: Vec::new(),
        ord_calls: kernel.ord_calls.iter().map(|(id, _)| *id).collect(),
        elements: kernel.elements.clone(),
        pattern_names: kernel.pattern_names.clone(),
        item_paths: kernel.item_paths.iter().cloned().collect(),
        arms: Vec::new(),
        moves: Vec::new(),
        deferred: Vec::new(),
        assigned: Assigned::default(),
        deferred_assignments: Vec::new(),
        condition_states: HashMap::new(),
        discarding: false,
        device_bindings_from: Vec::new(),
        unreachable: false,
        block_completes: true,
        pending_writes: Vec::new(),
        references: Vec::new(),
        borrowed_arrays: Vec::new(),
        infer: Infer::default(),
        types: vec![Ty::Error; n],
        comptime: vec![false; n],
        reads_mutable: vec![false; n],
        mutable_reads: 0,
        writes_local: vec![false; n],
        local_writes: 0,
        binding: vec![None; n],
        lengths_read: Vec::new(),
        uses_warps: false,
        next_binding: 0,
        param_count: kernel.params.len(),
        roots: HashMap::new(),
        scopes: vec![HashMap::new()],
        loops: Vec::new(),
        int_lits: Vec::new(),
        float_lits: Vec::new(),
        casts: Vec::new(),
        warp_values: Vec::new(),
        shared_init: None,
        negations: Vec::new(),
        coverage: Vec::new(),
        arms_before: None,
        deferred_unary: Vec::new(),
        stepped_reversals: Vec::new(),
        assertion_not: None,
        diverging: Vec::new(),
        statement_like: vec![false; n],
        shift_targets: Vec::new(),
        never_results: Vec::new(),
        index_types: Vec::new(),
        item_consts: Vec::new(),
        item_arrays: Vec::new(),
        consts: Vec::new(),
        const_arrays: Vec::new(),
        array_access: vec![false; n],
        in_const: None,
        in_array_len: None,
        in_device: Vec::new(),
        device,
        kernel_name: kernel.name.to_string(),
    };
    for (k, p) in kernel.params.iter().enumerate() {
        if kernel.params[..k].iter().any(|q| q.name == p.name) {
            c.errors.at(
                Sp::of(&p.name),
                format!("identifier `{}` is bound more than once in the parameter list", p.name),
            );
            continue;
        }
        check_param(p, c.errors);
        let (ty, comptime) = match &p.kind {
            ParamKind::Scalar(s) => (Ty::Scalar(*s), device && !p.mutable),
            ParamKind::Comptime(s) => (Ty::Scalar(*s), true),
            ParamKind::Slice { elem, mutable } => (Ty::Slice { elem: *elem, mutable: *mutable }, false),
            ParamKind::Array { elem, .. } => (Ty::Array(Box::new(Ty::Scalar(*elem))), false),
            ParamKind::Tuple(annot) => (c.annot(annot), false),
        };
        c.bind(&p.name, ty, p.mutable, comptime);
    }
    for name in &kernel.rejected {
        c.bind(name, Ty::Error, true, false);
    }
    let body_ty = c.block(&kernel.body);
    if let Err((a, _)) = c.infer.unify(&body_ty, &Ty::unit()) {
        let sp = kernel.body.tail.as_ref().map_or(kernel.body.span, |t| t.span);
        c.errors.at(
            sp,
            format!(
                "a kernel returns nothing, but its body ends in a value of type `{}`: end it with `;`",
                c.infer.show(&a)
            ),
        );
    }
    c.finish()
}

/// The values of `ty` as [`crate::coverage`] splits them; `None` for a type the check passes
/// over (one in error, or not known).
fn coverage_space(ty: &Ty) -> Option<crate::coverage::Space> {
    match ty {
        Ty::Scalar(s) => Some(crate::coverage::Space::scalar(*s)),
        Ty::Tuple(items) => {
            Some(crate::coverage::Space::Tuple(items.iter().map(coverage_space).collect::<Option<_>>()?))
        }
        _ => None,
    }
}

/// Whether a `mut` binding of type `t` can be variables: a scalar, or a tuple of such (an
/// unresolved or erroneous type passes, reported elsewhere).
fn variables(t: &Ty) -> bool {
    match t {
        Ty::Scalar(_) => true,
        Ty::Tuple(elems) => elems.iter().all(variables),
        Ty::Var(_) | Ty::Error => true,
        _ => false,
    }
}

/// The most elements a local array may have (the runtime's `MAX_LOCAL_ARRAY`).
const MAX_LOCAL_ARRAY: u128 = 1024;

/// Whether a type has an error part (a half-precision annotation, say).
fn contains_error(t: &Ty) -> bool {
    holds(t, &|t| *t == Ty::Error)
}

/// Whether `t` is, or is a tuple holding, a type that `is` picks out.
fn holds(t: &Ty, is: &dyn Fn(&Ty) -> bool) -> bool {
    is(t) || matches!(t, Ty::Tuple(v) if v.iter().any(|e| holds(e, is)))
}

/// Whether Rust reverses `(a..b).step_by(s)` (`..=` when `inclusive`) of `s`: where the
/// range is an `ExactSizeIterator`.
fn reversible_after_step(s: Scalar, inclusive: bool) -> bool {
    use Scalar::*;
    match inclusive {
        false => matches!(s, U8 | I8 | U16 | I16 | U32 | I32 | Usize | Isize),
        true => matches!(s, U8 | I8 | U16 | I16),
    }
}

/// Whether the runtime can pass slices of `s`: every scalar type but `bool` and the
/// pointer-sized integers.
fn is_slice_element(s: Scalar) -> bool {
    !matches!(s, Scalar::Bool | Scalar::Usize | Scalar::Isize)
}

/// Rejects slice element types the parser accepts but the runtime cannot pass yet (the
/// parser already rejects half-precision scalar parameters).
fn check_param(p: &Param, errors: &mut Errors) {
    // The PTX names of the hidden parameters: a slice's length and the fault record.
    let name = p.name.to_string();
    if name.ends_with("__len") || name == "fault__record" {
        errors.at(
            Sp::of(&p.name),
            format!(
                "`{name}` is the name of a parameter the kernel adds itself (`x__len` holds slice `x`'s \
                 length, `fault__record` the first fault): rename it"
            ),
        );
    }
    if let ParamKind::Slice { elem, .. } = p.kind {
        if !is_slice_element(elem) {
            let list: Vec<&str> =
                Scalar::ALL.into_iter().filter(|&s| is_slice_element(s)).map(Scalar::name).collect();
            let instead = match elem {
                Scalar::Usize => "; use `u64`",
                Scalar::Isize => "; use `i64`",
                _ => "",
            };
            errors.at(
                Sp::of(&p.name),
                format!(
                    "slices of `{}` are not supported: slice elements are {}{instead}",
                    elem.name(),
                    list.join(" ")
                ),
            );
        }
    }
}

struct Checker<'e> {
    errors: &'e mut Errors,
    /// The bindings of range `for` loops' variables (for the hint on assigning one).
    loop_variables: Vec<usize>,
    /// [`KernelFn::ord_calls`]: method calls written as `std::cmp::min(a, b)`.
    ord_calls: Vec<usize>,
    /// [`KernelFn::elements`]: the elements `for` loops bind.
    elements: Vec<Element>,
    /// [`KernelFn::pattern_names`]: the names patterns compare with.
    pattern_names: Vec<usize>,
    /// [`KernelFn::item_paths`]: the constant arrays indexed by a path.
    item_paths: HashMap<usize, syn::Path>,
    /// The arms of the `if`s being checked, outermost first: the `if`'s id and whether
    /// the arm is its `else`.
    arms: Vec<(usize, bool)>,
    /// The `&mut` slices a `let` moved (`let z = y;`: a `&mut` is not `Copy`), with where
    /// and in which arms ([`Checker::arms`]), which Rust forbids using again (E0382).
    moves: Vec<Moved>,
    /// The `let`s without a value ([`init`]).
    deferred: Vec<Deferred>,
    /// What the path being checked knows of their assignments ([`init`]).
    assigned: Assigned,
    /// The assignments to them so far, in order: binding and place ([`init`]).
    deferred_assignments: Vec<(usize, Sp)>,
    /// What a condition built of `&&`, `||` and `!` knows of them where it is true and where
    /// it is false, by expression id ([`init`]).
    condition_states: HashMap<usize, (Assigned, Assigned)>,
    /// Whether the expression being checked is the value of a `let _ =` (which is no use
    /// of a moved slice).
    discarding: bool,
    /// For each inlined device function being checked (innermost last), the first binding
    /// id of its body: the bindings before it are the caller's, not in scope in Rust.
    device_bindings_from: Vec<usize>,
    /// Whether the code being checked follows a statement that never ends (`return;`):
    /// it never runs, and rustc checks no borrows or moves there.
    unreachable: bool,
    /// Whether the block checked last can run to its end (no statement of it diverges).
    block_completes: bool,
    /// Writes to what a `for` loop borrows, reported when the loop's body ends unless the
    /// block holding the write never ends (no next iteration follows it).
    pending_writes: Vec<PendingWrite>,
    /// The bindings that are references in Rust (an element a loop borrows, or a name bound
    /// to one): `*v` reads them, and a value of their type is not one.
    references: Vec<usize>,
    /// The arrays and slices (by binding) that the `for` loops being checked borrow, with the
    /// depth of the loop body's scope: none may be written there.
    borrowed_arrays: Vec<(usize, usize)>,
    infer: Infer,
    types: Vec<Ty>,
    comptime: Vec<bool>,
    reads_mutable: Vec<bool>,
    /// How many reads of mutable variables the checker has met so far.
    mutable_reads: usize,
    writes_local: Vec<bool>,
    /// How many assignments to local variables the checker has met so far.
    local_writes: usize,
    binding: Vec<Option<usize>>,
    lengths_read: Vec<usize>,
    uses_warps: bool,
    next_binding: usize,
    /// Bindings `0..param_count` are the parameters.
    param_count: usize,
    /// See [`Checked::roots`]: also how a slice alias (`let a = x;`, a device function's
    /// slice parameter) finds the parameter whose length it reads.
    roots: HashMap<usize, usize>,
    scopes: Vec<HashMap<String, Binding>>,
    loops: Vec<Loop>,
    /// Integer literals: (expr, value, negated, span), checked against their final type.
    int_lits: Vec<(usize, u128, bool, Sp)>,
    /// Float literals: (expr, digits, span).
    float_lits: Vec<(usize, String, Sp)>,
    /// Casts: (source expr, target, span), checked once the source type is known.
    casts: Vec<(usize, Scalar, Sp)>,
    /// Unary minus: (operand expr, span), rejected on unsigned types.
    negations: Vec<(usize, Sp)>,
    /// `-x` and `!x` of a constant of the surrounding code whose type was not known then:
    /// the operand's type, the operator and where, checked once the types are known.
    deferred_unary: Vec<(Ty, UnOp, Sp)>,
    /// `(a..b).step_by(s).rev()` loops: the variable's type, whether the range is `..=`,
    /// and where, checked once the type is known (Rust reverses only ranges of a type whose
    /// length is an `ExactSizeIterator`'s).
    stepped_reversals: Vec<(Ty, bool, Sp)>,
    /// The type of the arms of a `match` checked so far, for the `if` of its next arm
    /// ([`ExprKind::If`] of [`IfRole::MatchArms`]).
    arms_before: Option<Ty>,
    /// The scrutinee's type and what each unguarded arm takes, for each `match` none of whose
    /// arms takes every value: checked once the types are known.
    coverage: Vec<(Ty, Vec<crate::coverage::Cover>, Sp)>,
    /// The `!` an assertion wraps around its condition (`assert!(c)` is `if !(c) { panic }`):
    /// not the user's, so a condition that is no `bool` is reported as that, not at the `!`.
    assertion_not: Option<usize>,
    /// Expressions of type `!` (`return`, `break`, `continue`, blocks and `if`s of them):
    /// (expr, span), rejected unless they stand where no value is needed.
    diverging: Vec<(usize, Sp)>,
    /// Whether an expression stands where its value may be `!`: a statement, a block's
    /// tail, an `else`.
    statement_like: Vec<bool>,
    /// The amount's expression id and the target's type of each compound shift.
    shift_targets: Vec<(usize, Ty)>,
    /// [`Checked::never_results`], its types before inference ends.
    never_results: Vec<(usize, Ty)>,
    /// The type of each slice index: one that nothing else decides is `usize`, as Rust's
    /// indexing makes it (`for i in 0..N { x[i] }` reads the constant `N` as a `usize`).
    index_types: Vec<Ty>,
    /// Values of shuffles and reductions: (value expr, function, span), checked once their
    /// type is known.
    warp_values: Vec<(usize, Intrinsic, Sp)>,
    /// The `shared::<T, N>()` that is the initialiser of the `let` being checked.
    shared_init: Option<usize>,
    /// Constants of the surrounding code read by the kernel, whose types their uses must
    /// settle.
    item_consts: Vec<ItemConstUse>,
    /// The constant arrays of the surrounding code the kernel reads.
    item_arrays: Vec<ItemArrayUse>,
    /// See [`Checked::consts`].
    consts: Vec<usize>,
    /// See [`Checked::const_arrays`].
    const_arrays: Vec<usize>,
    /// See [`Checked::array_access`].
    array_access: Vec<bool>,
    /// While a `const`'s value is checked, the first binding id of its own (`const A: u32 =
    /// { let a = 2; a };`): it reads no variable bound before.
    in_const: Option<usize>,
    /// Whether the length of a `[value; len]` is being checked: like a `const`, it reads
    /// only literals and constants (and, in kernels, `#[comptime]` parameters).
    in_array_len: Option<usize>,
    /// The device functions whose inlined bodies are being checked, innermost last.
    in_device: Vec<String>,
    /// Whether this is a device function checked on its own ([`check_device`]).
    device: bool,
    /// The kernel's name (the device function's, checked on its own).
    kernel_name: String,
}

/// A read of a constant of the code around the kernel.
/// A constant array of the code around the kernel read in it, `TABLE[i]` or `TABLE.len()`,
/// while the kernel is built.
struct ItemArrayUse {
    /// The expression (the index or the `len` call).
    expr: usize,
    /// An element's type, as the use settles it (`None` for `len`).
    elem: Option<Ty>,
    /// Whether the element is cast with `as`: its type may then stay the item's own, which
    /// the launch reads (`ORDER[i] as usize`).
    cast: bool,
    span: Sp,
    /// The name, for messages.
    name: String,
    /// The name as written, with its span (the cache key reads the value through it).
    path: proc_macro2::TokenStream,
}

struct ItemConstUse {
    /// The expression.
    expr: usize,
    /// Its type, as its use settles it.
    ty: Ty,
    span: Sp,
    /// The path as text, for messages (`config::TILE`).
    name: String,
    /// The path as written, with its spans (the cache key reads the value through it).
    path: proc_macro2::TokenStream,
    /// Whether it is cast with `as`: its type is then the item's own, which the host cast
    /// reads, and its use need not settle it.
    cast: bool,
}

impl Checker<'_> {
    fn finish(mut self) -> Checked {
        for t in &self.index_types {
            if self.infer.var_kind(t) == Some(VarKind::Int) {
                let _ = self.infer.unify(t, &Ty::Scalar(Scalar::Usize));
            }
        }
        // A constant array of the surrounding code used whole (`let t = TAPS;`, an argument of
        // a device function) is a local array of its elements, whose type its use must give.
        for c in &self.item_consts {
            if let Ty::Array(elem) = self.infer.resolve(&c.ty) {
                let known = matches!(self.infer.resolve(&elem), Ty::Scalar(s) if !s.is_half());
                if !known {
                    let name = &c.name;
                    self.errors.at(
                        c.span,
                        format!(
                            "the element type of `{name}` is not known here: a kernel copies a constant array \
                             of the code around it while it is built, and takes its elements' type from the use, \
                             which does not say it; bind it with its type (`let t: [f32; 4] = {name};` for a \
                             `[f32; 4]`)"
                        ),
                    );
                }
            }
        }
        // A constant's type is its item's, which the kernel does not see. Where nothing in the
        // kernel says it, rustc's inference can, as long as every expression of that type is
        // host code, computed while the kernel is built (`if N > 4`, `let m = N * 2;` used
        // only so): those are `host_typed`. Otherwise its uses must say it (a default `i32`
        // would only be a guess).
        let open = |infer: &crate::types::Infer, t: &Ty| match infer.resolve(t) {
            Ty::Var(v) => Some(v),
            _ => None,
        };
        let open_vars: Vec<usize> =
            self.item_consts.iter().filter(|c| !c.cast).filter_map(|c| open(&self.infer, &c.ty)).collect();
        let mut host_typed = vec![false; self.types.len()];
        let mut runtime_vars = Vec::new();
        for (id, t) in self.types.iter().enumerate() {
            if let Some(v) = open(&self.infer, t).filter(|v| open_vars.contains(v)) {
                host_typed[id] = true;
                if !self.comptime[id] {
                    runtime_vars.push(v);
                }
            }
        }
        for (id, t) in self.types.iter().enumerate() {
            if open(&self.infer, t).is_some_and(|v| runtime_vars.contains(&v)) {
                host_typed[id] = false;
            }
        }
        for ItemConstUse { ty, span, name, cast, .. } in &self.item_consts {
            if let (Some(v), false) = (open(&self.infer, ty), cast) {
                if !runtime_vars.contains(&v) {
                    continue;
                }
                self.errors.at(
                    *span,
                    format!(
                        "the type of `{name}` is not known here: a kernel reads a constant of the code \
                         around it while it is built and takes its type from its use, which does not say \
                         it; write its type with a cast (`{name} as usize`, `{name} as f32`, ...: a cast \
                         reads the item's own type) or bind it with one (`let n: u32 = {name};`)"
                    ),
                );
            }
        }
        for ItemArrayUse { elem, span, name, cast, .. } in &self.item_arrays {
            let unknown = elem.as_ref().is_some_and(|t| match self.infer.resolve(t) {
                Ty::Scalar(s) => s.is_half(),
                Ty::Var(_) => !cast,
                _ => true,
            });
            if unknown {
                self.errors.at(
                    *span,
                    format!(
                        "the element type of `{name}` is not known here: a kernel reads a constant array of the \
                         code around it while it is built and takes its elements' type from their use, which \
                         does not say it; bind the element with the table's element type (`let w: f32 = {name}[i];` \
                         for an `f32` table)"
                    ),
                );
            }
        }
        self.report_untyped_deferred();
        self.infer.apply_defaults();
        let types: Vec<Ty> = self.types.iter().map(|t| self.infer.resolve(t)).collect();
        for &(id, value, negated, sp) in &self.int_lits {
            // A host-typed literal's type is rustc's to infer, and its range rustc's to check.
            if let Some(s) = types[id].scalar().filter(|_| !host_typed[id]) {
                let (lo, hi) = s.int_range();
                // A negated unsigned literal is reported once, as a negation of an unsigned type.
                let ok =
                    if negated { !s.is_signed_int() || value as i128 <= -lo } else { value as i128 <= hi };
                if !ok || value > i128::MAX as u128 {
                    let shown = if negated { format!("-{value}") } else { value.to_string() };
                    self.errors.at(
                        sp,
                        format!("literal out of range for `{}`: {shown} is outside {lo}..={hi}", s.name()),
                    );
                }
            }
        }
        for (id, digits, sp) in &self.float_lits {
            if types[*id].scalar() == Some(Scalar::F32) {
                let finite = digits.replace('_', "").parse::<f32>().map(f32::is_finite).unwrap_or(true);
                if !finite {
                    self.errors.at(*sp, "literal out of range for `f32`: it rounds to infinity");
                }
            }
        }
        for &(id, to, sp) in &self.casts {
            let Some(from) = types[id].scalar() else { continue };
            if to == Scalar::Bool && from != Scalar::Bool {
                self.errors.at(
                    sp,
                    format!("cannot cast `{}` as `bool`: compare instead, e.g. `x != 0`", from.name()),
                );
            } else if from == Scalar::Bool && to.is_float() {
                self.errors.at(
                    sp,
                    format!(
                        "cannot cast `bool` as `{}`: cast to an integer first, `b as u32 as {0}`",
                        to.name()
                    ),
                );
            }
        }
        // Shuffles move any number (16-bit floats as their bits); reductions add and compare
        // integers, `f32` and `f64` only.
        for &(id, which, sp) in &self.warp_values {
            let shuffle = which.is_shuffle();
            let rejected = |s: &Scalar| *s == Scalar::Bool || (s.is_half() && !shuffle);
            if let Some(s) = types[id].scalar().filter(rejected) {
                let hint = if s == Scalar::Bool {
                    "; for a `bool`, use `ballot`, `any` or `all`"
                } else {
                    "; convert it with `.to_f32()`"
                };
                let takes = if shuffle { "integers and floats" } else { "integers and `f32`/`f64` values" };
                let msg = format!("`{}` takes {takes}, not `{}`{hint}", which.name(), s.name());
                self.errors.at(sp, msg);
            }
        }
        for &(id, sp) in &self.diverging {
            if !self.statement_like[id] {
                self.errors.at(
                    sp,
                    "this expression never has a value (it leaves with `return`, `break` or `continue`, or \
                     loops forever), so it cannot be used as one: write it as a statement of its own",
                );
            }
        }
        for &(id, sp) in &self.negations {
            if let Some(s) = types[id].scalar() {
                if s.is_int() && !s.is_signed_int() {
                    self.errors.at(
                        sp,
                        format!("cannot apply unary `-` to type `{}`: unsigned values cannot be negative; use `wrapping_neg()`", s.name()),
                    );
                }
            }
        }
        for (ty, op, sp) in &self.deferred_unary {
            let ok = match (self.infer.resolve(ty), op) {
                (Ty::Scalar(s), UnOp::Neg) => s.is_int() || s.is_float() || s.is_half(),
                (Ty::Scalar(s), UnOp::Not) => s.is_int() || s == Scalar::Bool,
                // Not known: reported as the constant's own error.
                _ => true,
            };
            if !ok {
                let (what, t) = (if *op == UnOp::Neg { "unary `-`" } else { "`!`" }, self.show(ty));
                self.errors.at(*sp, format!("cannot apply {what} to type `{t}`"));
            }
        }
        for (ty, inclusive, sp) in &self.stepped_reversals {
            let Ty::Scalar(s) = self.infer.resolve(ty) else { continue };
            if !reversible_after_step(s, *inclusive) {
                let range = if *inclusive { "RangeInclusive" } else { "Range" };
                let name = s.name();
                self.errors.at(
                    *sp,
                    format!(
                        "`.rev()` after `step_by` needs the range to be an `ExactSizeIterator`, which `{range}<{name}>` is not \
                         in Rust (E0599): count the steps instead (`for k in (0..count).rev()`, the value `a + k * s`), \
                         or use a `..` range of `u32`, `i32` or `usize`"
                    ),
                );
            }
        }
        for (ty, arms, sp) in &self.coverage {
            let Some(space) = coverage_space(&self.infer.resolve(ty)) else { continue };
            if let Some(value) = crate::coverage::uncovered(arms, &space) {
                let constants = if space != crate::coverage::Space::Open
                    && arms.iter().any(crate::coverage::has_named)
                {
                    " (a named constant's pattern counts here for no value: its value is rustc's to know, not the kernel's)"
                } else {
                    ""
                };
                self.errors.at(
                    *sp,
                    format!(
                        "non-exhaustive patterns: `{value}` not covered: a `match` takes every value of its \
                         type; add an arm for it, or `_ => ..`{constants}"
                    ),
                );
            }
        }
        let mut item_const = vec![false; types.len()];
        let mut item_const_paths = Vec::new();
        let mut named: Vec<&str> = Vec::new();
        for c in &self.item_consts {
            item_const[c.expr] = true;
            if !named.contains(&c.name.as_str()) {
                named.push(&c.name);
                item_const_paths.push(c.path.clone());
            }
        }
        let mut item_array = vec![None; types.len()];
        for a in &self.item_arrays {
            item_array[a.expr] = Some(a.path.clone());
            if !named.contains(&a.name.as_str()) {
                named.push(&a.name);
                item_const_paths.push(a.path.clone());
            }
        }
        let shift_targets = self
            .shift_targets
            .iter()
            .filter_map(|(id, ty)| Some((*id, self.infer.resolve(ty).scalar()?)))
            .collect();
        let never_results = self.never_results.iter().map(|(id, ty)| (*id, self.infer.resolve(ty))).collect();
        Checked {
            types,
            host_typed,
            shift_targets,
            never_results,
            comptime: self.comptime,
            reads_mutable: self.reads_mutable,
            writes_local: self.writes_local,
            binding: self.binding,
            lengths_read: self.lengths_read,
            uses_warps: self.uses_warps,
            roots: self.roots,
            item_const,
            item_array,
            item_const_paths,
            consts: self.consts,
            const_arrays: self.const_arrays,
            array_access: self.array_access,
        }
    }

    /// Why an `#[unroll]` range that is not comptime is refused, and what to do. In a device
    /// function's own body (checked on its own, [`check_device`]) immutable parameters are
    /// comptime; in a device function inlined into a kernel (or into another device function
    /// checked on its own) the range depends on an argument of the call, which is not.
    fn unroll_refusal(&self) -> String {
        let head = "`#[unroll]` needs a range known when the kernel is built";
        match self.in_device.last() {
            Some(_) if self.device && self.in_device.len() == 1 => format!(
                "{head}: make its bounds (and step) literals or parameters that are not `mut` (a kernel's call \
                 then passes comptime values for them), or remove `#[unroll]`"
            ),
            Some(function) => {
                let caller = if self.device {
                    format!("`{}` calls it", self.kernel_name)
                } else {
                    format!("kernel `{}` inlines it", self.kernel_name)
                };
                format!(
                    "{head}, but in `{function}` as {caller}, it depends on an argument that is not: pass \
                     `{function}` a literal, a `#[comptime]` parameter or a constant there, or remove `#[unroll]`"
                )
            }
            None => format!(
                "{head}: make its bounds (and step) literals or `#[comptime]` parameters, or remove `#[unroll]`"
            ),
        }
    }

    fn bind(&mut self, name: &syn::Ident, ty: Ty, mutable: bool, comptime: bool) -> usize {
        let id = self.next_binding;
        self.next_binding += 1;
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.to_string(), Binding { id, ty, mutable, comptime });
        }
        id
    }

    /// A constant of the code around the kernel, `path` (`name` as text): comptime, of the
    /// type its use gives it (checked by rustc against the item where the kernel is built).
    /// A device function cannot read one: kernels elsewhere inline it, where the name may
    /// mean another constant or none.
    fn item_const(&mut self, e: &Expr, name: String, path: proc_macro2::TokenStream) -> (Ty, bool) {
        if self.outer_constant_in_device(e.span, &name) {
            return (Ty::Error, false);
        }
        let ty = self.infer.fresh(VarKind::Any);
        self.item_consts.push(ItemConstUse {
            expr: e.id,
            ty: ty.clone(),
            span: e.span,
            name,
            path,
            cast: false,
        });
        (ty, true)
    }

    /// Reports a device function's read of `name`, a constant of the code around it (true
    /// when it is one): kernels in other modules inline its body, where the name may mean
    /// another item.
    fn outer_constant_in_device(&mut self, sp: Sp, name: &str) -> bool {
        let Some(function) = self.in_device.last() else { return false };
        let msg = format!(
            "the device function `{function}` cannot read `{name}`, a constant of the code around it: \
             kernels in other modules inline its body, where the name may mean something else; pass \
             it as a parameter (a kernel may read it and pass it on)"
        );
        self.errors.at(sp, msg);
        true
    }

    /// Reports a method call that kernels do not have (`msg` at `at`). Its arguments'
    /// types (`arg_types`) are then unknown: a literal there is not defaulted to `i32`, and
    /// reported out of that range, after this error.
    fn refuse_method(&mut self, at: Sp, msg: String, arg_types: &[Ty]) -> (Ty, bool) {
        self.errors.at(at, msg);
        for t in arg_types {
            let _ = self.infer.unify(t, &Ty::Error);
        }
        (Ty::Error, false)
    }

    /// Whether `name` names a constant array of the code around the kernel: a constant's
    /// name (upper case) that no binding in scope has.
    fn is_item_array(&self, name: &syn::Ident) -> bool {
        let name = name.to_string();
        crate::parse::is_constant_name(&name) && self.lookup(&name).is_none()
    }

    /// The binding id of `name`, if it is in scope.
    fn binding_id(&self, name: &syn::Ident) -> Option<usize> {
        self.lookup(&name.to_string()).map(|b| b.id)
    }

    /// Reports a call of the built-in function `name` where a variable of that name is in
    /// scope: Rust would call the variable, which is not a function.
    fn shadowed_function(&mut self, name: &str, sp: Sp) {
        if self.lookup(name).is_some() {
            self.errors.at(
                sp,
                format!(
                    "`{name}` is a variable here, which hides the built-in function `{name}()` as it would \
                     in Rust: rename the variable"
                ),
            );
        }
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn record(&mut self, e: &Expr, ty: Ty, comptime: bool) -> Ty {
        self.types[e.id] = ty.clone();
        self.comptime[e.id] = comptime;
        ty
    }

    fn show(&self, ty: &Ty) -> String {
        self.infer.show(ty).to_string()
    }

    /// Unifies, reporting `what` at `sp` on failure; returns the unified type (or Error).
    fn expect(&mut self, sp: Sp, expected: &Ty, found: &Ty, what: &str) -> Ty {
        match self.infer.unify(expected, found) {
            Ok(t) => t,
            Err((a, b)) => {
                let (a, b) = (self.show(&a), self.show(&b));
                let msg = format!("mismatched types: expected `{a}`, found `{b}`{what}{}", half_hint(&a, &b));
                self.errors.at(sp, msg);
                Ty::Error
            }
        }
    }

    fn block(&mut self, b: &Block) -> Ty {
        self.scopes.push(HashMap::new());
        let inside = self.scopes.len();
        let reachable_before = self.unreachable;
        let mut diverges = false;
        for s in &b.stmts {
            diverges |= self.stmt(s);
            // What follows a statement that never ends never runs: rustc does not check its
            // borrows.
            self.unreachable |= diverges;
            if diverges {
                self.path_ends();
            }
        }
        let ty = match &b.tail {
            Some(t) => {
                self.statement_like[t.id] = true;
                self.expr(t)
            }
            None if diverges => Ty::Never,
            None => Ty::unit(),
        };
        if self.infer.resolve(&ty) == Ty::Never {
            self.path_ends();
        }
        self.unreachable = reachable_before;
        let completes = !diverges && self.infer.resolve(&ty) != Ty::Never;
        self.block_completes = completes;
        // A write inside a borrowing loop after which the block never ends (`y[0] = 1;
        // break;`) is followed by no next iteration: the borrow is over (rustc's NLL).
        if !completes {
            self.pending_writes.retain(|w| w.depth < inside);
        }
        self.scopes.pop();
        let depth = self.scopes.len();
        let ended: Vec<usize> =
            self.borrowed_arrays.iter().filter(|&&(_, at)| at > depth).map(|&(b, _)| b).collect();
        self.borrowed_arrays.retain(|&(_, at)| at <= depth);
        self.report_writes_while_borrowed(&ended);
        ty
    }

    /// Checks a statement; returns whether it always diverges (`return;` and the like).
    fn stmt(&mut self, s: &Stmt) -> bool {
        match s {
            Stmt::Let { pat: Pat::Ident { name, mutable }, ty, init, span, .. }
                if matches!(init.kind, ExprKind::Deferred) =>
            {
                let annot = ty.as_ref().map(|(annot, _)| self.annot(annot));
                self.types[init.id] = self.deferred_let(name, *mutable, annot, *span);
                false
            }
            Stmt::Let { pat, ty, init, role, .. } => {
                if let (ExprKind::Shared { .. }, Pat::Ident { mutable: false, .. }) = (&init.kind, pat) {
                    self.shared_init = Some(init.id);
                }
                // A device function's body is the initialiser of its result's `let`.
                let device = match role {
                    LetRole::Result { function } => Some(function.clone()),
                    _ => None,
                };
                let inside = device.is_some();
                if inside {
                    self.device_bindings_from.push(self.next_binding);
                    // A function's body may never give its value (`{ panic!("..") }`): the
                    // call then never returns, which is no value used where none comes.
                    self.statement_like[init.id] = true;
                }
                self.in_device.extend(device);
                let own = matches!(role, LetRole::Const).then_some(self.next_binding);
                let in_const = std::mem::replace(&mut self.in_const, own);
                // `let _ = y;` neither moves `y` nor reads it.
                let discards = matches!((pat, &init.kind), (Pat::Wild, ExprKind::Path(_)));
                let outer_discard = std::mem::replace(&mut self.discarding, discards);
                let mut t = self.expr(init);
                self.discarding = outer_discard;
                self.in_const = in_const;
                if inside {
                    self.in_device.pop();
                    self.device_bindings_from.pop();
                }
                let never_gives = inside && self.infer.resolve(&t) == Ty::Never;
                if let LetRole::Argument { function, param, slice: Some((elem, mutable)) } = role {
                    t = self.slice_argument(init, &t, *elem, *mutable, function, param);
                }
                if let Pat::Ident { name, .. } = pat {
                    let resolved = self.infer.resolve(&t);
                    let iterable = matches!(resolved, Ty::Array(_) | Ty::Slice { .. } | Ty::Error);
                    if crate::desugar::is_for_array(name) && !iterable {
                        self.errors.at(
                            init.span,
                            format!(
                                "a `for` loop iterates over a range, a local array or a slice, not `{}`",
                                self.show(&t)
                            ),
                        );
                        t = Ty::Error;
                    }
                }
                if let Some((TypeAnnot::Array(_, want), _)) = ty {
                    self.array_length(init, *want);
                }
                // A reference where a value is wanted: an annotation's, or a device function's
                // parameter's.
                if ty.is_some() || matches!(role, LetRole::Argument { slice: None, .. }) {
                    self.reference_as_value(init, &t, " (a value is wanted)");
                }
                let reference = self.element_by_reference(pat, init, &t);
                if let Some((annot, sp)) = ty {
                    let want = self.annot(annot);
                    let swap_index =
                        matches!(pat, Pat::Ident { name, .. } if crate::desugar::is_swap_index(name));
                    let context = match role {
                        _ if swap_index => " (`swap` takes `usize` indices)".to_string(),
                        LetRole::Source | LetRole::Allowed => {
                            " (the `let`'s annotation and its value)".to_string()
                        }
                        LetRole::Const => " (the `const`'s type and its value)".to_string(),
                        LetRole::Argument { function, param, .. } => {
                            format!(" (argument `{param}` of `{function}`)")
                        }
                        LetRole::Result { function } => {
                            // rustc's hint: a body whose last expression a `;` discards.
                            let discarded = match &init.kind {
                                ExprKind::Block(Block { stmts, tail: None, .. }) => match stmts.last() {
                                    Some(Stmt::Expr { expr, discards: true, .. }) => {
                                        let last = self.infer.resolve(&self.types[expr.id]);
                                        !matches!(last, Ty::Never) && last != Ty::unit()
                                    }
                                    _ => false,
                                },
                                _ => false,
                            };
                            let hint = if discarded {
                                "; the body's last expression ends in `;`, which discards it: remove the `;` to \
                                 return its value"
                            } else {
                                ""
                            };
                            format!(" (the return type of `{function}` and the value of its body{hint})")
                        }
                    };
                    // A `&mut [T]` coerces to the `&[T]` an annotation asks for, as in Rust.
                    if let (Ty::Slice { elem, mutable: false }, Ty::Slice { elem: found, mutable: true }) =
                        (&want, self.infer.resolve(&t))
                    {
                        if *elem == found {
                            t = want.clone();
                        }
                    }
                    t = self.expect(if swap_index { init.span } else { *sp }, &want, &t, &context);
                    if never_gives && holds(&want, &|t| matches!(t, Ty::Array(_))) {
                        self.errors.at(
                            init.span,
                            "a device function whose result holds an array must give one: a body that never \
                             returns (`{ panic!(..) }`) is supported for results of scalars and tuples of them",
                        );
                    } else if never_gives {
                        self.never_results.push((init.id, want.clone()));
                    }
                }
                let comptime = self.comptime[init.id];
                // A `const` array is a local array of constants (its elements registers).
                let const_array =
                    matches!(role, LetRole::Const) && matches!(self.infer.resolve(&t), Ty::Array(_));
                let constant_elements = match &init.kind {
                    ExprKind::Array(elems) => elems.iter().all(|x| self.comptime[x.id]),
                    ExprKind::Repeat { value, .. } => self.comptime[value.id],
                    _ => false,
                };
                if const_array && !constant_elements {
                    self.errors.at(
                        init.span,
                        "a `const` array's elements must be known when the kernel is built: write them as \
                         literals and constants (`[1.0, 2.0]`, `[0; N]`)",
                    );
                } else if matches!(role, LetRole::Const) && !const_array && !comptime && !contains_error(&t) {
                    self.errors.at(
                        init.span,
                        "a `const`'s value must be known when the kernel is built: literals and constants, \
                         and operations on them (use `let` for a value computed on the GPU)",
                    );
                }
                self.report_repeated_names(pat);
                let mut aliases = Vec::new();
                self.aliases(pat, init, &mut aliases);
                let const_name = match (role, pat) {
                    (LetRole::Const, Pat::Ident { name, .. }) => Some(name),
                    _ => None,
                };
                if let Some(name) = const_name {
                    // Rust's items of one block share its namespace: no shadowing.
                    let block = self.scopes.last().and_then(|s| s.get(&name.to_string()));
                    if block.is_some_and(|b| self.consts.contains(&b.id)) {
                        self.errors.at(
                            Sp::of(name),
                            format!("the name `{name}` is defined multiple times in this block: rename one `const`"),
                        );
                    }
                }
                // A value that never comes (`let v = loop { break 'outer; };`) is reported once,
                // as such; the names it would bind are in error, not diverging again at each use.
                let t = if self.infer.resolve(&t) == Ty::Never { Ty::Error } else { t };
                if !matches!(role, LetRole::Const | LetRole::Argument { .. }) {
                    self.binds_constant_name(pat);
                }
                self.bind_pat(pat, &t, comptime);
                if let (true, Pat::Ident { name, .. }) = (reference, pat) {
                    self.references.extend(self.binding_id(name));
                }
                if let Some(name) = const_name {
                    let binding = self.binding_id(name);
                    if const_array {
                        self.const_arrays.extend(binding);
                    } else {
                        self.consts.extend(binding);
                    }
                }
                for (name, root) in aliases {
                    if let Some(id) = self.binding_id(name) {
                        self.roots.insert(id, root);
                    }
                }
                if ty.is_none() && matches!(role, LetRole::Source | LetRole::Allowed) {
                    self.note_moves(pat, init);
                }
                false
            }
            Stmt::Expr { expr, discards, .. } => {
                self.statement_like[expr.id] = true;
                let t = self.expr(expr);
                let resolved = self.infer.resolve(&t);
                if !discards && !matches!(resolved, Ty::Never | Ty::Error) {
                    let what = " (a statement without `;` gives `()`: end it with `;` to discard its value)";
                    self.expect(expr.span, &Ty::unit(), &t, what);
                }
                matches!(resolved, Ty::Never)
            }
        }
    }

    fn annot(&mut self, a: &TypeAnnot) -> Ty {
        match a {
            TypeAnnot::Scalar(s) => Ty::Scalar(*s),
            TypeAnnot::Tuple(v) => Ty::Tuple(v.iter().map(|x| self.annot(x)).collect()),
            TypeAnnot::Array(elem, _) => Ty::Array(Box::new(self.annot(elem))),
            TypeAnnot::Slice(elem, mutable) => Ty::Slice { elem: *elem, mutable: *mutable },
            TypeAnnot::Infer => self.infer.fresh(VarKind::Any),
        }
    }

    /// Reports the names `pat` would bind that are constants of the body in scope (a
    /// lower-case `const lb`): Rust's pattern compares with the constant there (a `match`
    /// arm, `if let`) or refuses a `let` that might not match (E0005).
    fn binds_constant_name(&mut self, pat: &Pat) {
        for name in pat.names() {
            // Inside an inlined device function, only its own constants are in scope in Rust.
            let own_from = self.device_bindings_from.last().copied().unwrap_or(0);
            let constant = self
                .lookup(&name.to_string())
                .is_some_and(|b| b.id >= own_from && self.is_body_constant(b.id));
            if constant {
                self.errors.at(
                    Sp::of(name),
                    format!(
                        "`{name}` is a constant here: a pattern naming it compares with it (in a `match` or \
                         `if let`), and a `let` that may not match is refused (rustc's E0005); name the new \
                         binding otherwise, or compare in a guard, `v if v == {name}`"
                    ),
                );
            }
        }
    }

    /// Reports each name a pattern binds more than once (`let (p, p) = ..`), as rustc does.
    fn report_repeated_names(&mut self, pat: &Pat) {
        let seen = pat.names();
        for (i, name) in seen.iter().enumerate() {
            if seen[..i].contains(name) {
                self.errors.at(
                    Sp::of(*name),
                    format!(
                        "identifier `{name}` is bound more than once in the same pattern: rename one of them"
                    ),
                );
            }
        }
    }

    /// The type of `&x[start..end]` (`&mut` when `mutable`): a slice of `x`'s elements, its
    /// bounds `usize`s as Rust's slice ranges take them.
    fn sub_slice(
        &mut self,
        e: &Expr,
        slice: &Expr,
        start: Option<&Expr>,
        end: Option<&Expr>,
        mutable: bool,
    ) -> Ty {
        let t = self.expr(slice);
        for bound in [start, end].into_iter().flatten() {
            let bt = self.expr(bound);
            self.reference_as_value(bound, &bt, " (a range bound is a value)");
            self.expect(bound.span, &Ty::Scalar(Scalar::Usize), &bt, " (a slice's range is of `usize`s)");
        }
        match self.infer.resolve(&t) {
            Ty::Slice { elem, mutable: writable } => {
                if mutable && !writable {
                    let name = match &slice.kind {
                        ExprKind::Path(n) => format!("`{n}`"),
                        _ => "the slice".to_string(),
                    };
                    let msg = format!(
                        "cannot borrow {name} as mutable: it is a `&[{0}]` (rustc's E0596); declare it `&mut [{0}]`",
                        elem.name()
                    );
                    self.errors.at(e.span, msg);
                }
                // Without an end, the range ends at the slice's length: the kernel reads it.
                if let (None, Some(id)) = (end, self.binding[slice.id]) {
                    self.lengths_read.push(self.root(id));
                }
                Ty::Slice { elem, mutable }
            }
            Ty::Error => Ty::Error,
            Ty::Array(_) => {
                self.errors.at(
                    e.span,
                    "a local array's elements are registers, which cannot be borrowed as a slice: index the \
                     array itself (`a[start + k]`)",
                );
                Ty::Error
            }
            other => {
                let msg = format!(
                    "cannot take a range of `{}`: slices and shared arrays have ranges (`&x[a..b]`)",
                    self.show(&other)
                );
                self.errors.at(slice.span, msg);
                Ty::Error
            }
        }
    }

    /// The type a device function's slice parameter `param` (`&[elem]`, or `&mut [elem]`
    /// when `mutable`) has for the argument `arg` of type `t`: a slice of `elem`, writable
    /// when the parameter needs it (a `&mut [T]` is also passed as a `&[T]`).
    fn slice_argument(
        &mut self,
        arg: &Expr,
        t: &Ty,
        elem: Scalar,
        mutable: bool,
        function: &str,
        param: &str,
    ) -> Ty {
        let want = Ty::Slice { elem, mutable };
        match self.infer.resolve(t) {
            Ty::Error => {}
            Ty::Slice { elem: e, mutable: m } if e == elem && (m || !mutable) => {}
            other => {
                let msg = format!(
                    "mismatched types: expected `{}`, found `{}` (argument `{param}` of `{function}`: pass a \
                     slice parameter or shared array by its name)",
                    self.show(&want),
                    self.show(&other)
                );
                self.errors.at(arg.span, msg);
            }
        }
        want
    }

    /// The names `pat` binds as aliases of immutable variables, with the binding each
    /// stands for: `let a = x;`, and element by element `let (a, n) = (x, 1);`. Looked up
    /// before the `let` binds its pattern (which may shadow `x`).
    fn aliases<'p>(&self, pat: &'p Pat, init: &Expr, out: &mut Vec<(&'p syn::Ident, usize)>) {
        match (pat, &init.kind) {
            (Pat::Ident { name, mutable: false }, _) => {
                out.extend(self.immutable_root(init).map(|r| (name, r)))
            }
            (Pat::Tuple(pats, _), ExprKind::Tuple(inits)) if pats.len() == inits.len() => {
                pats.iter().zip(inits).for_each(|(p, i)| self.aliases(p, i, out));
            }
            _ => {}
        }
    }

    /// The binding an initialiser that is just an immutable variable stands for (followed
    /// through [`Checked::roots`]), looked up before a `let` binds its pattern.
    fn immutable_root(&self, init: &Expr) -> Option<usize> {
        let ExprKind::Path(source) = &init.kind else { return None };
        let b = self.lookup(&source.to_string())?;
        (!b.mutable).then(|| self.root(b.id))
    }

    /// The binding `id` stands for ([`Checked::roots`]): itself, or what its alias names.
    fn root(&self, id: usize) -> usize {
        *self.roots.get(&id).unwrap_or(&id)
    }

    fn bind_pat(&mut self, pat: &Pat, ty: &Ty, comptime: bool) {
        match pat {
            Pat::Ident { name, mutable } => {
                let resolved = self.infer.resolve(ty);
                // A tuple of scalars is a tuple of variables.
                let tuple_ok =
                    matches!(&resolved, Ty::Tuple(elems) if !elems.is_empty()) && variables(&resolved);
                if *mutable
                    && (matches!(resolved, Ty::Slice { .. } | Ty::Dim3)
                        || (matches!(resolved, Ty::Tuple(_)) && !tuple_ok))
                {
                    self.errors.at(
                        Sp::of(name),
                        format!(
                            "only scalar variables can be `mut` in a kernel; `{name}` has type `{}`",
                            self.show(ty)
                        ),
                    );
                }
                self.bind(name, ty.clone(), *mutable, comptime && !*mutable);
            }
            Pat::Wild => {}
            Pat::Tuple(pats, _) if self.infer.resolve(ty) == Ty::Error => {
                // The value's mistake is reported: its names take any use without another.
                for p in pats {
                    self.bind_pat(p, &Ty::Error, comptime);
                }
            }
            Pat::Tuple(pats, sp) => {
                let elems: Vec<Ty> = pats.iter().map(|_| self.infer.fresh(VarKind::Any)).collect();
                let want = Ty::Tuple(elems.clone());
                if self.infer.unify(&want, ty).is_err() {
                    let msg = format!(
                        "this pattern has {} fields, but the value has type `{}`",
                        pats.len(),
                        self.show(ty)
                    );
                    self.errors.at(*sp, msg);
                    for p in pats {
                        self.bind_pat(p, &Ty::Error, comptime);
                    }
                    return;
                }
                for (p, t) in pats.iter().zip(&elems) {
                    self.bind_pat(p, t, comptime);
                }
            }
        }
    }

    fn expr(&mut self, e: &Expr) -> Ty {
        crate::deep(|| self.expr_at_depth(e))
    }

    fn expr_at_depth(&mut self, e: &Expr) -> Ty {
        let (reads_before, writes_before) = (self.mutable_reads, self.local_writes);
        let (ty, comptime) = self.expr_kind(e);
        self.reads_mutable[e.id] = self.mutable_reads != reads_before;
        self.writes_local[e.id] = self.local_writes != writes_before;
        if ty == Ty::Never {
            self.diverging.push((e.id, e.span));
        }
        self.record(e, ty, comptime)
    }

    /// Counts an assignment to `place` when it is a local variable ([`Checked::writes_local`]).
    fn count_local_write(&mut self, place: &Place) {
        let local = matches!(place, Place::Local(_) | Place::Field { .. }) || self.is_array_place(place);
        self.local_writes += usize::from(local);
    }

    /// Whether `place` is a whole local array (`a = [0.0; 4]`).
    fn is_array_name(&self, place: &Place) -> bool {
        matches!(place, Place::Local(name) if self.array_binding(name).is_some())
    }

    /// Whether `place` is an element of a local array.
    fn is_array_place(&self, place: &Place) -> bool {
        matches!(place, Place::Index { slice, .. } if self.array_binding(slice).is_some())
    }

    fn is_int_like(&self, t: &Ty) -> bool {
        match self.infer.resolve(t) {
            Ty::Scalar(s) => s.is_int(),
            Ty::Var(_) => self.infer.var_kind(t) == Some(VarKind::Int),
            // `!` is reported where it stands.
            Ty::Error | Ty::Never => true,
            _ => false,
        }
    }

    fn expr_kind(&mut self, e: &Expr) -> (Ty, bool) {
        match &e.kind {
            ExprKind::Lit(Lit::Int { value, suffix }) => {
                self.int_lits.push((e.id, *value, false, e.span));
                let ty = suffix.map_or_else(|| self.infer.fresh(VarKind::Int), Ty::Scalar);
                (ty, true)
            }
            ExprKind::Lit(Lit::Float { digits, suffix }) => {
                self.float_lits.push((e.id, digits.clone(), e.span));
                (suffix.map_or_else(|| self.infer.fresh(VarKind::Float), Ty::Scalar), true)
            }
            ExprKind::Lit(Lit::Bool(_)) => (Ty::Scalar(Scalar::Bool), true),
            // `*v` reads a reference; anything else has nothing to read through (E0614).
            ExprKind::Deref(inner) => {
                let t = self.expr(inner);
                if !self.names_reference(inner) && !contains_error(&t) {
                    let msg = format!(
                        "type `{}` cannot be dereferenced (rustc's E0614): use the value itself",
                        self.show(&t)
                    );
                    self.errors.at(e.span, msg);
                }
                (t, self.comptime[inner.id])
            }
            ExprKind::Coverage { value, arms } => {
                if let Some(b) = self.lookup(&value.to_string()) {
                    self.coverage.push((b.ty.clone(), arms.clone(), e.span));
                }
                (Ty::Tuple(vec![]), true)
            }
            ExprKind::Path(name) => match self.lookup(&name.to_string()).cloned() {
                Some(b) if self.pattern_names.contains(&e.id) && !self.consts.contains(&b.id) => {
                    let what = if b.id < self.param_count { "a parameter" } else { "a variable" };
                    self.errors.at(
                        e.span,
                        format!(
                            "`{name}` is {what}: a pattern compares only with constants (a name alone binds a \
                             new `{name}` there, matching every value, and a range's end cannot be a variable, \
                             rustc's E0080); to compare with it, write a guard, `v if v == {name} =>`"
                        ),
                    );
                    (b.ty, false)
                }
                Some(b) => {
                    self.use_after_move(b.id, name, e.span, false);
                    self.read_deferred(b.id, e.span);
                    self.mutable_reads += usize::from(b.mutable);
                    self.binding[e.id] = Some(b.id);
                    let comptime_param = b.id < self.param_count && b.comptime && !self.device;
                    // A variable known when the kernel is built (`let n = 4;`) is still a variable to
                    // rustc; in an array's length, one computed on the GPU gets the length's own error.
                    let variable = b.comptime && !comptime_param && !self.consts.contains(&b.id);
                    let rule = if self.in_const.is_some_and(|own| b.id < own) && !self.consts.contains(&b.id)
                    {
                        Some("a `const` reads only literals and constants; write `let` instead of `const`")
                    } else if self.in_array_len.is_some_and(|own| b.id < own) && variable {
                        Some("an array's length is a literal, a constant or a `#[comptime]` parameter")
                    } else {
                        None
                    };
                    if let Some(rule) = rule {
                        self.errors.at(
                            e.span,
                            format!(
                                "attempt to use a non-constant value in a constant: `{name}` is a variable, and \
                                 {rule}"
                            ),
                        );
                        return (b.ty, true);
                    }
                    (b.ty, b.comptime)
                }
                None if crate::parse::is_constant_name(&name.to_string()) => {
                    self.item_const(e, name.to_string(), quote::quote!(#name))
                }
                None => {
                    let hint = if Builtin::ALL.iter().any(|b| *name == b.name())
                        || Intrinsic::ALL.iter().any(|f| *name == f.name())
                    {
                        format!("; `{name}` is a built-in: call it, `{}`", builtin_usage(&name.to_string()))
                    } else if let Some(ours) = crate::parse::cuda_name(&name.to_string()) {
                        format!("; `{name}` is CUDA C's, and in a kernel it is `{ours}`")
                    } else if self.in_const.is_some() {
                        // The block's `const`s are bound before its `let`s (they are in scope
                        // in all of it): a `let` read here is not there yet.
                        "; a `const` reads only literals and constants, not variables: write `let` instead \
                         of `const`"
                            .to_string()
                    } else {
                        String::new()
                    };
                    self.errors.at(e.span, format!("cannot find value `{name}` in this scope{hint}"));
                    (Ty::Error, false)
                }
            },
            ExprKind::ItemConst(path) => {
                self.item_const(e, crate::device::path_key(path), quote::quote!(#path))
            }
            ExprKind::Const { ty, .. } => (Ty::Scalar(*ty), true),
            ExprKind::Unary(op, inner) => self.unary(e, *op, inner),
            ExprKind::Binary(op, l, r) => self.binary(e, *op, l, r),
            ExprKind::Assign(place, rhs) => {
                if let Place::Index { slice, .. } = place {
                    self.table_copy_is_array(slice);
                }
                self.array_access[e.id] = self.is_array_place(place) || self.is_array_name(place);
                self.count_local_write(place);
                self.binding[e.id] = self.place_slice(place);
                let target = self.place(place);
                let t = self.expr(rhs);
                let to_reference = match place {
                    Place::Local(n) => self.binding_id(n).is_some_and(|b| self.references.contains(&b)),
                    _ => false,
                };
                if !to_reference {
                    self.reference_as_value(rhs, &t, " (the assigned value)");
                }
                self.expect(rhs.span, &target, &t, " (the assigned value)");
                match place {
                    Place::Local(n) => {
                        if let Some(id) = self.binding_id(n) {
                            self.assign_deferred(id, Sp::of(n));
                        }
                    }
                    Place::Field { base, .. } => {
                        if let Some(id) = self.binding_id(base) {
                            self.update_deferred(id, Sp::of(base), true);
                        }
                    }
                    Place::Index { .. } => {}
                }
                (Ty::unit(), false)
            }
            ExprKind::CompoundAssign(op, place, rhs) => {
                if self.is_array_name(place) {
                    let msg = format!(
                        "`{}=` is not defined for local arrays: apply it element by element",
                        op.symbol()
                    );
                    self.errors.at(e.span, msg);
                    return (Ty::unit(), false);
                }
                if let Place::Index { slice, .. } = place {
                    self.table_copy_is_array(slice);
                }
                self.array_access[e.id] = self.is_array_place(place);
                self.count_local_write(place);
                self.binding[e.id] = self.place_slice(place);
                let target = self.place(place);
                let t = self.expr(rhs);
                if op.is_shift() {
                    self.shift_amount(rhs, &t);
                    self.shift_targets.push((rhs.id, target.clone()));
                } else {
                    let unified =
                        self.expect(rhs.span, &target, &t, &format!(" (both sides of `{}=`)", op.symbol()));
                    self.arith_operand(e.span, *op, &unified);
                }
                if let Place::Local(n) | Place::Field { base: n, .. } = place {
                    if let Some(id) = self.binding_id(n) {
                        self.update_deferred(id, Sp::of(n), matches!(place, Place::Field { .. }));
                    }
                }
                (Ty::unit(), false)
            }
            ExprKind::Cast(inner, to) => {
                let t = self.expr(inner);
                self.reference_as_value(inner, &t, " (`as` converts values: E0606)");
                if let Some(c) = self.item_consts.iter_mut().find(|c| c.expr == inner.id) {
                    c.cast = true;
                }
                if let Some(a) = self.item_arrays.iter_mut().find(|a| a.expr == inner.id) {
                    a.cast = true;
                }
                // As in rustc, an unsuffixed literal cast to a type of its own kind has that
                // type: `4_000_000_000 as i64` is an `i64`, `1e-50 as f32` rounds once, and
                // `300 as u8` is out of range.
                let mut lit = &**inner;
                while let ExprKind::Unary(_, operand) = &lit.kind {
                    lit = operand;
                }
                let same_kind = match lit.kind {
                    ExprKind::Lit(Lit::Int { suffix: None, .. }) => to.is_int(),
                    ExprKind::Lit(Lit::Float { suffix: None, .. }) => to.is_float(),
                    _ => false,
                };
                if same_kind {
                    let _ = self.infer.unify(&t, &Ty::Scalar(*to));
                }
                match self.infer.resolve(&t) {
                    // `!` is reported where it stands.
                    Ty::Scalar(_) | Ty::Var(_) | Ty::Error | Ty::Never => {
                        self.casts.push((inner.id, *to, e.span))
                    }
                    other => {
                        let msg = format!(
                            "cannot cast `{}` as `{}`: only scalars can be cast",
                            self.show(&other),
                            to.name()
                        );
                        self.errors.at(e.span, msg);
                    }
                }
                (Ty::Scalar(*to), self.comptime[inner.id])
            }
            // `TABLE[i]` of a `const TABLE: [T; N]` of the surrounding code: its elements are
            // constants of the kernel, of the type the use gives them (rustc checks the item).
            ExprKind::Index { slice, index }
                if self.is_item_array(slice) || self.item_paths.contains_key(&e.id) =>
            {
                self.array_index(index);
                let (name, path) = match self.item_paths.get(&e.id) {
                    Some(path) => (crate::device::path_key(path), quote::quote!(#path)),
                    None => (slice.to_string(), quote::quote!(#slice)),
                };
                if self.outer_constant_in_device(e.span, &name) {
                    return (Ty::Error, false);
                }
                let elem = self.infer.fresh(VarKind::Any);
                self.item_arrays.push(ItemArrayUse {
                    expr: e.id,
                    elem: Some(elem.clone()),
                    cast: false,
                    span: e.span,
                    name,
                    path,
                });
                (elem, false)
            }
            ExprKind::Index { slice, index } => {
                self.slice_use(slice);
                self.binding[e.id] = self.binding_id(slice);
                self.table_copy_is_array(slice);
                if let Some((elem, mutable)) = self.array_binding(slice) {
                    // An element of a `let mut` array is a variable's register.
                    self.mutable_reads += usize::from(mutable);
                    self.array_access[e.id] = true;
                    self.array_index(index);
                    return (elem, false);
                }
                let elem = self.slice_of(slice, false);
                self.slice_index(index, ": convert it with `as u32`");
                (elem.map_or(Ty::Error, Ty::Scalar), false)
            }
            ExprKind::Builtin(b) => {
                self.shadowed_function(b.name(), e.span);
                (Ty::Dim3, false)
            }
            ExprKind::Field(inner, member) => {
                let t = self.expr(inner);
                let comptime = self.comptime[inner.id];
                match (self.infer.resolve(&t), member) {
                    (Ty::Dim3, Member::Axis(..)) => (Ty::Scalar(Scalar::U32), false),
                    (Ty::Tuple(elems), Member::Index(i, sp)) => match elems.get(*i) {
                        Some(t) => (t.clone(), comptime),
                        // A `match`'s tuple pattern, whose `let (_, ..) = value;` said it.
                        None if of_hidden(inner) => (Ty::Error, false),
                        None => {
                            self.errors.at(
                                *sp,
                                format!("this tuple has {} fields, there is no `.{i}`", elems.len()),
                            );
                            (Ty::Error, false)
                        }
                    },
                    (Ty::Error, _) => (Ty::Error, false),
                    (_, _) if of_hidden(inner) => (Ty::Error, false),
                    (other, m) => {
                        let sp = match m {
                            Member::Axis(_, sp) | Member::Index(_, sp) => *sp,
                        };
                        let msg = format!(
                            "no such field on `{}`: fields are `.x .y .z` of the built-in indices and `.0 .1 ..` of tuples",
                            self.show(&other)
                        );
                        self.errors.at(sp, msg);
                        (Ty::Error, false)
                    }
                }
            }
            // `f16::to_f32(h)` is the method `h.to_f32()`, checked below with the others.
            ExprKind::TypeCall { ty, func, args }
                if ty.is_half()
                    && func != "from_bits"
                    && method_signature(*ty, &func.to_string()).is_none() =>
            {
                let arg_types: Vec<Ty> = args.iter().map(|a| self.expr(a)).collect();
                // `from_f32_const` is `from_f32` as a `const fn`: the same rounding.
                if !(func == "from_f32" || func == "from_f32_const") || args.len() != 1 {
                    let msg = format!(
                        "`{0}` values are made with `{0}::from_f32(x)` (rounded to nearest even) or \
                         `{0}::from_bits(u)` (a `u16`)",
                        ty.name()
                    );
                    self.errors.at(e.span, msg);
                    return (Ty::Error, false);
                }
                self.expect(
                    args[0].span,
                    &Ty::Scalar(Scalar::F32),
                    &arg_types[0],
                    &format!(" (`{}::{func}` takes an `f32`)", ty.name()),
                );
                // A constant rounds while the kernel is built, as the `half` crate rounds it
                // (to nearest even, as `cvt.rn` does).
                (Ty::Scalar(*ty), self.comptime[args[0].id])
            }
            ExprKind::TypeCall { ty, func, args } if func == "from" && args.len() == 1 => {
                let t = self.expr(&args[0]);
                match self.infer.resolve(&t) {
                    Ty::Scalar(from) if !lossless(from, *ty) => {
                        let msg = format!(
                            "`{0}::from` takes the types that convert to `{0}` without loss, not `{1}`: \
                             use `as {0}` to convert with Rust's `as` rules",
                            ty.name(),
                            from.name()
                        );
                        self.errors.at(args[0].span, msg);
                    }
                    Ty::Scalar(_) | Ty::Error => {}
                    other => {
                        self.expect(
                            args[0].span,
                            &Ty::Scalar(*ty),
                            &other,
                            &format!(" (`{}::from`)", ty.name()),
                        );
                    }
                }
                (Ty::Scalar(*ty), self.comptime[args[0].id])
            }
            ExprKind::TypeCall { ty, func, args }
                if func == "from_bits" && (ty.is_float() || ty.is_half()) && args.len() == 1 =>
            {
                let bits = match ty {
                    Scalar::F32 => Scalar::U32,
                    Scalar::F64 => Scalar::U64,
                    _ => Scalar::U16,
                };
                let t = self.expr(&args[0]);
                self.expect(args[0].span, &Ty::Scalar(bits), &t, &format!(" (`{}::from_bits`)", ty.name()));
                (Ty::Scalar(*ty), self.comptime[args[0].id])
            }
            ExprKind::TypeCall { ty, func, args } if method_signature(*ty, &func.to_string()).is_none() => {
                for a in args {
                    self.expr(a);
                }
                let msg = format!(
                    "no function `{0}::{func}` in kernels; `{0}::` calls its methods, which are: {1}",
                    ty.name(),
                    methods_help(*ty)
                );
                self.errors.at(Sp::of(func), msg);
                (Ty::Error, false)
            }
            ExprKind::TypeCall { ty, func, args } => {
                let Some((first, rest)) = args.split_first() else {
                    self.errors.at(
                        e.span,
                        format!(
                            "`{ty}::{func}()` takes its value as the first argument: `{ty}::{func}(x, ..)`, \
                             as `x.{func}(..)`",
                            ty = ty.name()
                        ),
                    );
                    return (Ty::Error, false);
                };
                let t = self.expr(first);
                if self.expect(first.span, &Ty::Scalar(*ty), &t, "") == Ty::Error {
                    // Reported at the value: its other arguments are still checked, and the
                    // call's type is not guessed from it.
                    for a in rest {
                        self.expr(a);
                    }
                    return (Ty::Error, false);
                }
                self.method(e, first, func, rest)
            }
            ExprKind::MethodCall { receiver, method, args } => {
                // `TABLE.len()` or `config::TABLE.len()` of a constant table of the
                // surrounding code.
                let table = match &receiver.kind {
                    ExprKind::Path(name) if self.is_item_array(name) => {
                        Some((name.to_string(), quote::quote!(#name)))
                    }
                    ExprKind::ItemConst(path) => Some((crate::device::path_key(path), quote::quote!(#path))),
                    _ => None,
                };
                if let (Some((text, path)), true) = (table, method == "len" || method == "is_empty") {
                    self.no_args(method, args);
                    if self.outer_constant_in_device(e.span, &text) {
                        return (Ty::Error, false);
                    }
                    self.item_arrays.push(ItemArrayUse {
                        expr: e.id,
                        elem: None,
                        cast: false,
                        span: e.span,
                        name: text,
                        path,
                    });
                    let ty = if method == "len" { Scalar::Usize } else { Scalar::Bool };
                    return (Ty::Scalar(ty), true);
                }
                if let ExprKind::Path(name) = &receiver.kind {
                    if (method == "len" || method == "is_empty") && self.array_binding(name).is_some() {
                        self.expr(receiver);
                        self.no_args(method, args);
                        let ty = if method == "len" { Scalar::Usize } else { Scalar::Bool };
                        return (Ty::Scalar(ty), true);
                    }
                    if method == "len" || method == "is_empty" {
                        let ty = self.lookup(&name.to_string()).map(|b| self.infer.resolve(&b.ty));
                        if let Some(Ty::Slice { .. }) = ty {
                            self.expr(receiver);
                            let id = self.binding_id(name);
                            if let Some(id) = id {
                                self.lengths_read.push(self.root(id));
                            }
                            self.no_args(method, args);
                            if method == "is_empty" {
                                return (Ty::Scalar(Scalar::Bool), false);
                            }
                            self.binding[e.id] = id;
                            return (Ty::Scalar(Scalar::Usize), false);
                        }
                    }
                }
                // `x[a..].len()` of a range of a slice.
                if (method == "len" || method == "is_empty")
                    && matches!(receiver.kind, ExprKind::SubSlice { .. })
                {
                    let t = self.expr(receiver);
                    self.no_args(method, args);
                    // (A range is a slice or an error, reported.)
                    let ty = if method == "len" { Scalar::Usize } else { Scalar::Bool };
                    return (if t == Ty::Error { Ty::Error } else { Ty::Scalar(ty) }, false);
                }
                self.expr(receiver);
                self.method(e, receiver, method, args)
            }
            ExprKind::If { cond, then, els, role } => {
                // The type of a `match`'s arms before this one, where this `if` is one of its
                // arms after the first: each arm is typed against them in order, as rustc does.
                let before = if matches!(role, IfRole::MatchArms) { self.arms_before.take() } else { None };
                let asserts = then.stmts.is_empty()
                    && matches!(then.tail.as_deref(), Some(Expr { kind: ExprKind::Panic { .. }, .. }));
                if asserts && matches!(cond.kind, ExprKind::Unary(UnOp::Not, _)) {
                    self.assertion_not = Some(cond.id);
                }
                let c = self.expr(cond);
                self.reference_as_value(cond, &c, " (a condition is a `bool`)");
                let what = if asserts {
                    " (an assertion's condition is a `bool`)"
                } else {
                    " (an `if` condition is a `bool`)"
                };
                self.expect(cond.span, &Ty::Scalar(Scalar::Bool), &c, what);
                self.arms.push((e.id, false));
                let moves_before = self.moves.len();
                let (when_true, when_false) = self.condition_states(cond.id);
                self.assigned = when_true;
                let t = self.block(then);
                // The `else` starts from what the condition left where it is false; the arms'
                // paths meet after.
                let after_then = std::mem::replace(&mut self.assigned, when_false);
                self.arms.pop();
                self.forget_moves_of_diverging_arm(moves_before, self.block_completes);
                let t = match before {
                    Some(before) => match self.infer.unify(&before, &t) {
                        Ok(ty) => ty,
                        Err((a, b)) => {
                            let (a, b) = (self.show(&a), self.show(&b));
                            let sp = then.tail.as_ref().map_or(then.span, |t| t.span);
                            let msg =
                                format!("`match` arms have incompatible types: expected `{a}`, found `{b}`");
                            self.errors.at(sp, msg);
                            Ty::Error
                        }
                    },
                    None => t,
                };
                let ty = match els {
                    Some(els) => {
                        self.statement_like[els.id] = true;
                        if matches!(role, IfRole::MatchArms)
                            && matches!(&els.kind, ExprKind::If { role: IfRole::MatchArms, .. })
                        {
                            self.arms_before = Some(t.clone());
                        }
                        self.arms.push((e.id, true));
                        let moves_before = self.moves.len();
                        let f = self.expr(els);
                        self.arms.pop();
                        // An `else` block says whether it ends; an `else if` chain, by its type.
                        let completes = match els.kind {
                            ExprKind::Block(_) => self.block_completes,
                            _ => self.infer.resolve(&f) != Ty::Never,
                        };
                        self.forget_moves_of_diverging_arm(moves_before, completes);
                        self.paths_meet(&after_then);
                        match self.infer.unify(&t, &f) {
                            Ok(ty) => ty,
                            Err((a, b)) => {
                                let (a, b) = (self.show(&a), self.show(&b));
                                let msg = match role {
                                    IfRole::MatchArms => {
                                        format!("`match` arms have incompatible types: expected `{a}`, found `{b}`")
                                    }
                                    IfRole::Written => format!("`if` and `else` have incompatible types: `{a}` and `{b}`"),
                                    IfRole::OrBinding(name) => format!(
                                        "mismatched types: `{name}` has type `{a}` in one case of this `|` pattern and \
                                         type `{b}` in another; in Rust a name has one type in all of them"
                                    ),
                                };
                                let at = match role {
                                    IfRole::OrBinding(name) => Sp::of(name),
                                    _ => els.span,
                                };
                                self.errors.at(at, msg);
                                Ty::Error
                            }
                        }
                    }
                    None => {
                        self.paths_meet(&after_then);
                        if self.infer.unify(&t, &Ty::unit()).is_err() {
                            let sp = then.tail.as_ref().map_or(then.span, |t| t.span);
                            let msg = format!(
                                "an `if` without `else` has type `()`, but this arm gives `{}`",
                                self.show(&t)
                            );
                            self.errors.at(sp, msg);
                            // Reported: not `()` again where the value goes.
                            Ty::Error
                        } else {
                            Ty::unit()
                        }
                    }
                };
                let resolved = self.infer.resolve(&ty);
                let refusal = if holds(&resolved, &|t| matches!(t, Ty::Array(_))) {
                    Some("an `if` cannot give a local array: assign its elements in the arms instead".into())
                } else if holds(&resolved, &|t| matches!(t, Ty::Slice { .. } | Ty::Dim3)) {
                    Some(format!(
                        "an `if` cannot give `{}`: it picks values, not slices or built-ins; index the slice \
                         (or take `.x`) inside the arms",
                        self.show(&ty)
                    ))
                } else {
                    None
                };
                // Reported once: an enclosing `if` of this one then sees an error type.
                let ty = match refusal {
                    Some(msg) => {
                        self.errors.at(e.span, msg);
                        Ty::Error
                    }
                    None => ty,
                };
                let pure_arm = |b: &Block, comptime: &[bool]| {
                    b.stmts.is_empty() && b.tail.as_ref().is_some_and(|t| comptime[t.id])
                };
                let else_pure = match els.as_deref() {
                    Some(Expr { kind: ExprKind::Block(b), .. }) => pure_arm(b, &self.comptime),
                    Some(other) => self.comptime[other.id],
                    None => false,
                };
                let comptime = self.comptime[cond.id] && pure_arm(then, &self.comptime) && else_pure;
                (ty, comptime)
            }
            ExprKind::Block(b) => {
                let t = self.block(b);
                // A `match` guard (the block the parser wraps it in) is a condition to rustc;
                // a block of the user's that ends in `&&` is a `bool` value.
                if is_guard(e) {
                    if let Some(states) =
                        b.tail.as_ref().and_then(|tail| self.condition_states.remove(&tail.id))
                    {
                        self.condition_states.insert(e.id, states);
                    }
                }
                if let Some(tail) = &b.tail {
                    // A local array is a block's value as it is (no branch picks it).
                    if holds(&self.infer.resolve(&t), &|t| matches!(t, Ty::Slice { .. } | Ty::Dim3)) {
                        let msg = format!(
                            "a block cannot give `{}`: name the slice or built-in itself (`let a = x;`), \
                             or index it (take `.x`) inside the block",
                            self.show(&t)
                        );
                        self.errors.at(tail.span, msg);
                        return (Ty::Error, false);
                    }
                }
                let comptime = b.stmts.is_empty() && b.tail.as_ref().is_some_and(|t| self.comptime[t.id]);
                (t, comptime)
            }
            ExprKind::While { label, cond, body } => {
                // The condition runs again before each next iteration: its assignments
                // repeat with the body's.
                let repeats_from = (self.deferred_assignments.len(), self.next_binding);
                let before_condition = self.assigned.clone();
                let c = self.expr(cond);
                self.expect(cond.span, &Ty::Scalar(Scalar::Bool), &c, " (a `while` condition is a `bool`)");
                // The body runs where the condition is true; the loop ends where it is false,
                // at its first test or after an iteration.
                let (when_true, when_false) = self.condition_states(cond.id);
                let exit = ConditionExit { before: before_condition, when_false };
                self.assigned = when_true;
                self.loop_body(label, false, body, LoopEnds::Condition { repeats_from, exit });
                (Ty::unit(), false)
            }
            // A `while let` is a `loop` whose `break` (where the pattern does not match) comes
            // after its value is computed, as any `loop` is left by its `break`s.
            ExprKind::Loop { label, body, while_let } => {
                match self.loop_body(label, !while_let, body, LoopEnds::ByBreaks) {
                    LoopExit::Valued(t) => self.loop_value(e, t, "`loop`"),
                    LoopExit::Broken => (Ty::unit(), false),
                    LoopExit::Never => (Ty::Never, false),
                }
            }
            ExprKind::Labeled { label, body } => {
                let value = self.infer.fresh(VarKind::Any);
                self.loops.push(Loop::new(Some(label), Some(value.clone()), true));
                let t = self.block(body);
                let (broken, broken_with) =
                    self.loops.pop().map_or((false, None), |lp| (lp.broken, lp.broken_with));
                // Left at its end or by its `break`s.
                if let Some(at_breaks) = broken_with {
                    self.paths_meet(&at_breaks);
                }
                if self.infer.resolve(&t) != Ty::Never {
                    // Its own value, where it runs to its end; where that disagrees with its
                    // `break`s, its type is in error (reported once, here).
                    let sp = body.tail.as_ref().map_or(body.span, |t| t.span);
                    let what = " (a labelled block's value and the values its `break`s give)";
                    if self.expect(sp, &value, &t, what) == Ty::Error {
                        return (Ty::Error, false);
                    }
                } else if !broken {
                    return (Ty::Never, false);
                }
                self.loop_value(e, value, "labelled block")
            }
            ExprKind::For { label, var, range, body, unroll } => {
                let s = self.expr(&range.start);
                let t = self.expr(&range.end);
                let grid_stride =
                    matches!(range.start.kind, ExprKind::Intrinsic { which: Intrinsic::GridStrideStart, .. });
                let what = if grid_stride {
                    " (`grid_stride` takes a `usize` length, as a slice's `len()`: `grid_stride(n as usize)`)"
                } else {
                    " (both ends of the range)"
                };
                let ty = self.expect(range.end.span, &s, &t, what);
                if !self.is_int_like(&ty) {
                    let msg = format!("a `for` loop runs over an integer range, found `{}`", self.show(&ty));
                    self.errors.at(range.start.span.to(range.end.span), msg);
                }
                if range.order == RangeOrder::StepsReversed {
                    self.stepped_reversals.push((
                        ty.clone(),
                        range.inclusive,
                        range.start.span.to(range.end.span),
                    ));
                }
                let mut known = self.comptime[range.start.id] && self.comptime[range.end.id];
                if let Some(step) = &range.step {
                    let st = self.expr(step);
                    self.expect(step.span, &Ty::Scalar(Scalar::Usize), &st, " (`step_by` takes a `usize`)");
                    known &= self.comptime[step.id];
                    if let ExprKind::Lit(Lit::Int { value: 0, .. }) = step.kind {
                        self.errors.at(step.span, "`step_by(0)` panics: the step must be positive");
                    }
                }
                if unroll.is_some() && !known {
                    let msg = self.unroll_refusal();
                    self.errors.at(range.start.span.to(range.end.span), msg);
                }
                self.scopes.push(HashMap::new());
                if let Some(v) = var {
                    let id = self.bind(v, ty, false, unroll.is_some() && known);
                    self.binding[e.id] = Some(id);
                    self.loop_variables.push(id);
                }
                self.loop_body(label, false, body, LoopEnds::Range);
                self.scopes.pop();
                (Ty::unit(), false)
            }
            ExprKind::Break { label, value } => {
                let target = self.jump_target(e.span, "break", label);
                let given = value.as_ref().map(|v| (self.expr(v), v.span));
                let Some(t) = target else {
                    // Reported: the loop around it is taken as left, with a value of any type,
                    // so that its uses report nothing more.
                    if let Some(innermost) = self.loops.last_mut() {
                        innermost.broken = true;
                        innermost.valued = true;
                        if let Some(v) = innermost.value.clone() {
                            let _ = self.infer.unify(&v, &Ty::Error);
                        }
                    }
                    return (Ty::Never, false);
                };
                self.loops[t].broken = true;
                let here = self.assigned.clone();
                Assigned::record(&mut self.loops[t].broken_with, here);
                let what = if self.loops[t].block {
                    " (the values a labelled block's `break`s give)"
                } else {
                    " (the values a `loop`'s `break`s give)"
                };
                match (self.loops[t].value.clone(), given) {
                    (Some(want), Some((found, sp))) => {
                        self.loops[t].valued = true;
                        self.expect(sp, &want, &found, what);
                    }
                    // A plain `break` gives `()`, as in Rust.
                    (Some(want), None) => {
                        self.expect(e.span, &want, &Ty::unit(), what);
                    }
                    (None, Some((_, sp))) => {
                        let msg = "`break` with a value leaves a `loop` only, as in Rust: this one leaves a \
                                   `while` or `for` loop";
                        self.errors.at(sp, msg);
                    }
                    (None, None) => {}
                }
                (Ty::Never, false)
            }
            ExprKind::Continue { label } => {
                if let Some(t) = self.jump_target(e.span, "continue", label) {
                    let here = self.assigned.clone();
                    Assigned::record(&mut self.loops[t].continued_with, here);
                }
                (Ty::Never, false)
            }
            ExprKind::Return | ExprKind::Panic { .. } => (Ty::Never, false),
            ExprKind::DebugOnly(check) => {
                // Left out of release builds: what it assigns is not known after it.
                let before = self.assigned.clone();
                self.expr(check);
                self.paths_meet(&before);
                (Ty::unit(), false)
            }
            // Bound by its `let` ([`Checker::deferred_let`]).
            ExprKind::Error | ExprKind::Deferred => (Ty::Error, false),
            ExprKind::Shared { elem, len, .. } => self.shared(e, *elem, len.as_deref()),
            ExprKind::Intrinsic { which, func, args } => {
                self.shadowed_function(&func.to_string(), e.span);
                self.intrinsic(*which, args)
            }
            ExprKind::Print { args, .. } => {
                for a in args {
                    let t = self.expr(a);
                    match self.infer.resolve(&t) {
                        Ty::Scalar(_) | Ty::Var(_) | Ty::Error => {}
                        other => {
                            let msg = format!("`gpu_print!` prints scalars, not `{}`", self.show(&other));
                            self.errors.at(a.span, msg);
                        }
                    }
                }
                (Ty::unit(), false)
            }
            ExprKind::Atomic { op, place, args, .. } => {
                if let (true, Place::Index { slice, .. }) = (self.is_array_place(place), place) {
                    let msg = format!("`{}` works on elements of slices and shared arrays, not of the local array `{slice}`", op.name());
                    self.errors.at(Sp::of(slice), msg);
                    return (Ty::Error, false);
                }
                self.binding[e.id] = self.place_slice(place);
                let target = self.place(place);
                for a in args {
                    let t = self.expr(a);
                    self.expect(a.span, &target, &t, &format!(" (the operand of `{}`)", op.name()));
                }
                if let Some(elem) = target.scalar() {
                    if !op.supports(elem) {
                        let what = if matches!(op, AtomicOp::Add | AtomicOp::Exch | AtomicOp::Cas) {
                            "32- and 64-bit integers, `f32` and `f64`"
                        } else {
                            "32- and 64-bit integers"
                        };
                        self.errors.at(
                            e.span,
                            format!("`{}` works on elements of {what}, not `{}`", op.name(), elem.name()),
                        );
                    }
                }
                (target, false)
            }
            ExprKind::Vector { func, width, slice, index, values } => {
                self.slice_use(slice);
                self.binding[e.id] = self.binding_id(slice);
                let elem = self.vector_slice(func, *width, slice, values.is_some());
                let t = self.expr(index);
                self.expect(index.span, &Ty::Scalar(Scalar::Usize), &t, &format!(" (the index of `{func}`)"));
                let elems = Ty::Tuple(vec![elem.map_or(Ty::Error, Ty::Scalar); *width]);
                match values {
                    Some(v) => {
                        let t = self.expr(v);
                        self.expect(v.span, &elems, &t, &format!(" (the {width} elements `{func}` stores)"));
                        (Ty::unit(), false)
                    }
                    None => (elems, false),
                }
            }
            ExprKind::Tuple(elems) => {
                let tys: Vec<Ty> = elems.iter().map(|x| self.expr(x)).collect();
                for (x, t) in elems.iter().zip(&tys) {
                    if matches!(self.infer.resolve(t), Ty::Array(_)) {
                        self.errors.at(
                            x.span,
                            "a tuple cannot hold a local array in a kernel: use the array by itself",
                        );
                        return (Ty::Error, false);
                    }
                }
                (Ty::Tuple(tys), elems.iter().all(|x| self.comptime[x.id]))
            }
            ExprKind::Array(elems) => (self.array_literal(e, elems), false),
            ExprKind::Repeat { value, len } => (self.array_repeat(value, len), false),
            ExprKind::SubSlice { slice, start, end, mutable, .. } => {
                (self.sub_slice(e, slice, start.as_deref(), end.as_deref(), *mutable), false)
            }
        }
    }

    /// Checks the length `want` an annotation gives an array against an array literal's or
    /// a repetition's literal length, as rustc does; the lowering checks other lengths while
    /// the kernel is built.
    fn array_length(&mut self, init: &Expr, want: u64) {
        let found = match &init.kind {
            ExprKind::Array(elems) => Some(elems.len() as u128),
            ExprKind::Repeat { len, .. } => match len.kind {
                ExprKind::Lit(Lit::Int { value, .. }) => Some(value),
                _ => None,
            },
            _ => None,
        };
        if let Some(found) = found.filter(|&n| n != u128::from(want)) {
            self.errors.at(
                init.span,
                format!("mismatched types: expected an array of {want} elements, found one of {found}"),
            );
        }
    }

    /// `[a, b, c]`: elements of one scalar type.
    fn array_literal(&mut self, e: &Expr, elems: &[Expr]) -> Ty {
        let elem = self.infer.fresh(VarKind::Any);
        for x in elems {
            let t = self.expr(x);
            self.expect(x.span, &elem, &t, " (the elements of an array have one type)");
        }
        if elems.is_empty() {
            self.errors.at(e.span, "an empty array has no use in a kernel: give it elements (`[0.0f32; 4]`)");
            return Ty::Error;
        }
        self.array_of(elems[0].span, elem)
    }

    /// `[value; len]`: `len` a `usize` known while the kernel is built.
    fn array_repeat(&mut self, value: &Expr, len: &Expr) -> Ty {
        let elem = self.expr(value);
        let in_array_len = self.in_array_len.replace(self.next_binding);
        let n = self.expr(len);
        self.in_array_len = in_array_len;
        self.expect(len.span, &Ty::Scalar(Scalar::Usize), &n, " (an array's length is a `usize`)");
        if !self.comptime[len.id] {
            self.errors.at(
                len.span,
                "an array's length must be known when the kernel is built: a literal, a constant or a \
                 `#[comptime]` parameter",
            );
        }
        // The limit the builder enforces (`ptx_dsl::lang::MAX_LOCAL_ARRAY`), here where the
        // length is written out; one computed while the kernel is built meets it at launch.
        if let ExprKind::Lit(Lit::Int { value: n, .. }) = len.kind {
            if n > MAX_LOCAL_ARRAY {
                self.errors.at(
                    len.span,
                    format!(
                        "a local array holds at most {MAX_LOCAL_ARRAY} elements (each is a register); for \
                         more, use shared memory (`shared::<T, N>()`) or a slice parameter"
                    ),
                );
            }
        }
        self.array_of(value.span, elem)
    }

    /// The array type of elements `elem`, which must be scalars.
    fn array_of(&mut self, sp: Sp, elem: Ty) -> Ty {
        match self.infer.resolve(&elem) {
            Ty::Tuple(_) | Ty::Array(_) | Ty::Slice { .. } | Ty::Dim3 => {
                let nested = if matches!(self.infer.resolve(&elem), Ty::Array(_)) {
                    ": for a table, use one flat array indexed `m[row * columns + column]`"
                } else {
                    ""
                };
                let msg = format!(
                    "a local array holds scalars (`u32`, `f32`, ...), not `{}`{nested}",
                    self.show(&elem)
                );
                self.errors.at(sp, msg);
                Ty::Error
            }
            _ => Ty::Array(Box::new(elem)),
        }
    }

    /// `shared::<elem, len>()`: the initialiser of a `let`, with a length known when the
    /// kernel is built; it has the type of a `&mut [elem]`.
    fn shared(&mut self, e: &Expr, elem: Scalar, len: Option<&Expr>) -> (Ty, bool) {
        /// The static shared memory a kernel may declare (ptx-core's verifier checks all the
        /// arrays together when the kernel is built; one literal length is checked here).
        const STATIC_SHARED_BYTES: u128 = 48 * 1024;
        if self.shared_init != Some(e.id) {
            self.errors.at(
                e.span,
                "a shared array is declared by a `let` of its own: `let tile = shared::<f32, 256>();`",
            );
        }
        let Some(len) = len else { return (Ty::Slice { elem, mutable: true }, false) };
        let t = self.expr(len);
        if !self.comptime[len.id] {
            self.errors.at(
                len.span,
                "a shared array's length must be known when the kernel is built: a literal, a `#[comptime]` \
                 parameter, or a `{ .. }` expression of them (integer `/` and `%` are computed then only by \
                 a positive literal divisor)",
            );
            return (Ty::Slice { elem, mutable: true }, false);
        }
        self.expect(
            len.span,
            &Ty::Scalar(Scalar::Usize),
            &t,
            " (a shared array's length is a `usize`: `{ n as usize }` converts another integer)",
        );
        match len.kind {
            ExprKind::Lit(Lit::Int { value: 0, .. }) => {
                self.errors.at(len.span, "a shared array needs at least one element")
            }
            ExprKind::Lit(Lit::Int { value, .. })
                if value.saturating_mul(u128::from(elem.bits() / 8)) > STATIC_SHARED_BYTES =>
            {
                self.errors.at(
                    len.span,
                    format!(
                        "this shared array of {value} `{}` is larger than the 48 KiB ({STATIC_SHARED_BYTES} bytes) of \
                         static shared memory a kernel may declare; a larger array needs dynamic shared memory \
                         (`shared_dyn`, sized by the launch)",
                        elem.name()
                    ),
                )
            }
            _ => {}
        }
        (Ty::Slice { elem, mutable: true }, false)
    }

    fn intrinsic(&mut self, which: Intrinsic, args: &[Expr]) -> (Ty, bool) {
        self.uses_warps |= which.needs_whole_warp();
        let arg_types: Vec<Ty> = args.iter().map(|a| self.expr(a)).collect();
        let u32_ty = Ty::Scalar(Scalar::U32);
        let bool_ty = Ty::Scalar(Scalar::Bool);
        match which {
            Intrinsic::SyncThreads
            | Intrinsic::SyncWarp
            | Intrinsic::FenceBlock
            | Intrinsic::Fence
            | Intrinsic::FenceSystem => (Ty::unit(), false),
            Intrinsic::LaneId => (u32_ty, false),
            Intrinsic::WarpSize => (u32_ty, true),
            Intrinsic::GridStrideStart | Intrinsic::GridStrideStep => (Ty::Scalar(Scalar::Usize), false),
            Intrinsic::Ballot | Intrinsic::Any | Intrinsic::All => {
                let what = format!(" (`{}` takes a `bool`)", which.usage());
                self.expect(args[0].span, &bool_ty, &arg_types[0], &what);
                let result = if which == Intrinsic::Ballot { u32_ty } else { bool_ty };
                (result, false)
            }
            _ => {
                if which.is_shuffle() {
                    let what = format!(" (the lane argument of `{}` is a `u32`)", which.usage());
                    self.expect(args[1].span, &u32_ty, &arg_types[1], &what);
                }
                match self.infer.resolve(&arg_types[0]) {
                    Ty::Scalar(_) | Ty::Var(_) | Ty::Error => {
                        self.warp_values.push((args[0].id, which, args[0].span))
                    }
                    other => {
                        let msg =
                            format!("`{}` takes one scalar value, not `{}`", which.name(), self.show(&other));
                        self.errors.at(args[0].span, msg);
                    }
                }
                (arg_types[0].clone(), false)
            }
        }
    }

    /// Checks a loop's body; whether a `break` with a value leaves the loop.
    /// The type of the value of a `loop` or labelled block (`what`), `t`: a scalar or a tuple
    /// of them.
    fn loop_value(&mut self, e: &Expr, t: Ty, what: &str) -> (Ty, bool) {
        match self.infer.resolve(&t) {
            Ty::Scalar(_) | Ty::Tuple(_) | Ty::Var(_) | Ty::Error => (t, false),
            other => {
                let msg = format!(
                    "a {what} in a kernel gives scalars or tuples of them, not `{}`",
                    self.show(&other)
                );
                self.errors.at(e.span, msg);
                (Ty::Error, false)
            }
        }
    }

    /// Checks a loop's body (`gives_value`: a `loop`, which `break` may leave with a value;
    /// `ends`: how the loop ends).
    fn loop_body(
        &mut self,
        label: &Option<syn::Lifetime>,
        gives_value: bool,
        body: &Block,
        ends: LoopEnds,
    ) -> LoopExit {
        let value = gives_value.then(|| self.infer.fresh(VarKind::Any));
        self.loops.push(Loop::new(label.as_ref(), value, false));
        let (moves_before, bindings_before) = (self.moves.len(), self.next_binding);
        let before = self.assigned.clone();
        let (assignments_before, declared_before) = match &ends {
            LoopEnds::Condition { repeats_from, .. } => *repeats_from,
            LoopEnds::ByBreaks | LoopEnds::Range => (self.deferred_assignments.len(), bindings_before),
        };
        let t = self.block(body);
        let completes = self.block_completes;
        self.moves_again(moves_before, bindings_before, completes);
        // What goes round to the next iteration: the body's end and its `continue`s.
        let continued = self.loops.last_mut().and_then(|lp| lp.continued_with.take()).unwrap_or_default();
        let next_iteration = self.assigned.clone().join(&continued);
        self.assigned_again(assignments_before, declared_before, &next_iteration);
        let body_end = std::mem::replace(&mut self.assigned, before);
        // A body that never runs to its end (`return`, `break`) leaves its moves inside: no
        // path the checker follows goes on from them.
        self.forget_moves_of_diverging_arm(moves_before, completes);
        if self.infer.unify(&t, &Ty::unit()).is_err() {
            let sp = body.tail.as_ref().map_or(body.span, |t| t.span);
            let msg =
                format!("a loop body has type `()`, but this gives `{}`: end it with `;`", self.show(&t));
            self.errors.at(sp, msg);
        }
        let Some(lp) = self.loops.pop() else { return LoopExit::Never };
        let after_breaks = lp.broken_with.unwrap_or_default();
        self.assigned = match ends {
            LoopEnds::ByBreaks => after_breaks,
            LoopEnds::Condition { exit, .. } => exit.after(&next_iteration).join(&after_breaks),
            LoopEnds::Range => std::mem::take(&mut self.assigned).join(&body_end).join(&after_breaks),
        };
        match (lp.value, lp.valued, lp.broken) {
            (Some(t), true, _) => LoopExit::Valued(t),
            (_, _, true) => LoopExit::Broken,
            _ => LoopExit::Never,
        }
    }

    /// The loop (an index into `loops`) that a `break`/`continue` at `sp` leaves, with an error
    /// where there is none.
    fn jump_target(&mut self, sp: Sp, what: &str, label: &Option<syn::Lifetime>) -> Option<usize> {
        let target = match label {
            None => self.loops.len().checked_sub(1),
            Some(l) => {
                let name = l.ident.to_string();
                let found = self.loops.iter().rposition(|lp| lp.label.as_deref() == Some(&name));
                if found.is_none() {
                    self.errors.at(sp, format!("use of undeclared label `{l}`"));
                    return None;
                }
                found
            }
        };
        if target.is_none() {
            self.errors.at(sp, format!("`{what}` outside of a loop"));
        }
        target
    }

    /// The element type of slice parameter `name`; `store` requires `&mut`.
    fn slice_of(&mut self, name: &syn::Ident, store: bool) -> Option<Scalar> {
        let binding = self.lookup(&name.to_string()).cloned();
        match binding.map(|b| Binding { ty: self.infer.resolve(&b.ty), ..b }) {
            Some(Binding { ty: Ty::Slice { elem, mutable }, id, .. }) => {
                if store && !mutable {
                    // A parameter (or a name for one) is declared `&mut`; a range of a
                    // slice is borrowed `&mut x[a..b]`.
                    let instead = if self.root(id) < self.param_count {
                        format!("a `&[{0}]` parameter; declare it `&mut [{0}]`", elem.name())
                    } else {
                        format!(
                            "a `&[{0}]`; borrow it `&mut` (`&mut x[a..b]`, of a `&mut [{0}]`)",
                            elem.name()
                        )
                    };
                    self.errors.at(
                        Sp::of(name),
                        format!("cannot store into `{name}`: it is {instead} to write to it"),
                    );
                }
                Some(elem)
            }
            // Already reported where its type went wrong.
            Some(Binding { ty: Ty::Error, .. }) => None,
            Some(b) => {
                let msg = format!(
                    "cannot index `{name}` of type `{}`: only slices, shared arrays and local arrays can be indexed",
                    self.show(&b.ty)
                );
                self.errors.at(Sp::of(name), msg);
                None
            }
            None => {
                self.errors.at(Sp::of(name), format!("cannot find value `{name}` in this scope"));
                None
            }
        }
    }

    /// The element type of the slice parameter `name` of a vector access `func` of `width`
    /// elements (`store`: writing), with an error where it is not one: a shared array or
    /// another binding, a read-only slice stored into, or an element type the width does not
    /// fit (4, 8 or 16 bytes in all, no wider than 16-bit elements for eight).
    fn vector_slice(
        &mut self,
        func: &syn::Ident,
        width: usize,
        name: &syn::Ident,
        store: bool,
    ) -> Option<Scalar> {
        let is_param = self.binding_id(name).is_some_and(|id| self.root(id) < self.param_count);
        let elem = self.slice_of(name, store)?;
        if !is_param {
            let msg = format!(
                "`{func}` works on slice parameters (the alignment it needs is checked on their indices); \
                 `{name}` is a shared array or a range of a slice: index it element by element, or call `{func}` \
                 on the parameter with the range's start added to the index"
            );
            self.errors.at(Sp::of(name), msg);
            return None;
        }
        let sixteen = matches!(elem, Scalar::U16 | Scalar::I16 | Scalar::F16 | Scalar::Bf16);
        let thirty_two = matches!(elem, Scalar::U32 | Scalar::I32 | Scalar::F32);
        let fits = match width {
            2 => sixteen || thirty_two || matches!(elem, Scalar::U64 | Scalar::I64 | Scalar::F64),
            4 => sixteen || thirty_two,
            _ => sixteen,
        };
        if !fits {
            let types = match width {
                2 => "16-, 32- and 64-bit elements (`u16 i16 f16 bf16 u32 i32 f32 u64 i64 f64`)",
                4 => "16- and 32-bit elements (`u16 i16 f16 bf16 u32 i32 f32`: 8 or 16 bytes in all)",
                _ => "16-bit elements (`u16 i16 f16 bf16`: 16 bytes in all)",
            };
            self.errors
                .at(Sp::of(name), format!("`{func}` works on slices of {types}, not `{}`", elem.name()));
        }
        Some(elem)
    }

    /// The slice binding an indexed place writes through.
    fn place_slice(&self, place: &Place) -> Option<usize> {
        match place {
            Place::Index { slice, .. } => self.binding_id(slice),
            Place::Local(_) | Place::Field { .. } => None,
        }
    }

    fn place(&mut self, place: &Place) -> Ty {
        let written = match place {
            Place::Local(name) | Place::Index { slice: name, .. } => Some(name),
            Place::Field { .. } => None,
        };
        if let Some(name) = written {
            self.slice_use(name);
            let borrowed =
                self.binding_id(name).filter(|id| self.borrowed_arrays.iter().any(|&(b, _)| b == *id));
            if let (Some(binding), false) = (borrowed, self.unreachable) {
                // Reported when the loop's body ends, unless no next iteration follows.
                let write = PendingWrite {
                    binding,
                    depth: self.scopes.len(),
                    at: Sp::of(name),
                    name: name.to_string(),
                };
                self.pending_writes.push(write);
            }
        }
        match place {
            Place::Field { base, fields } => {
                let path: String = fields.iter().map(|f| format!(".{}", f.index)).collect();
                match self.lookup(&base.to_string()).cloned() {
                    Some(b) if b.mutable => {
                        let mut ty = self.infer.resolve(&b.ty);
                        for f in fields {
                            ty = match ty {
                                Ty::Tuple(elems) if (f.index as usize) < elems.len() => {
                                    elems[f.index as usize].clone()
                                }
                                Ty::Error => return Ty::Error,
                                other => {
                                    let msg =
                                        format!("no field `{}` on type `{}`", f.index, self.show(&other));
                                    self.errors.at(Sp::of_span(f.span), msg);
                                    return Ty::Error;
                                }
                            };
                        }
                        ty
                    }
                    Some(b) if b.ty == Ty::Error => Ty::Error,
                    Some(b) => {
                        let declare = self.how_to_make_mutable(&b, &base.to_string());
                        self.errors.at(
                            Sp::of(base),
                            format!("cannot assign to `{base}{path}`, as `{base}` is not declared as mutable; {declare}"),
                        );
                        Ty::Error
                    }
                    None => {
                        self.errors.at(Sp::of(base), format!("cannot find value `{base}` in this scope"));
                        Ty::Error
                    }
                }
            }
            Place::Local(name) => match self.lookup(&name.to_string()).cloned() {
                Some(b) if b.mutable => b.ty,
                Some(b) if self.is_body_constant(b.id) => {
                    self.errors.at(
                        Sp::of(name),
                        format!(
                            "invalid left-hand side of assignment: `{name}` is a constant (rustc's E0070); to \
                             change a value, bind a variable, `let mut v = {name};`"
                        ),
                    );
                    Ty::Error
                }
                Some(b) => {
                    let hint = match b.ty {
                        Ty::Slice { .. } => " (to write an element, index it: `x[i] = v`)".to_string(),
                        _ => format!("; {}", self.how_to_make_mutable(&b, &name.to_string())),
                    };
                    self.errors.at(
                        Sp::of(name),
                        format!("cannot assign twice to immutable variable `{name}`{hint}"),
                    );
                    Ty::Error
                }
                None => {
                    self.errors.at(Sp::of(name), format!("cannot find value `{name}` in this scope"));
                    Ty::Error
                }
            },
            Place::Index { slice, index } => {
                if let Some((elem, mutable)) = self.array_binding(slice) {
                    if !mutable {
                        let constant = self.binding_id(slice).is_some_and(|b| self.const_arrays.contains(&b));
                        let msg = if constant {
                            format!("cannot assign to an element of `{slice}`, a `const`: copy it into a `let mut` to change it")
                        } else {
                            format!("cannot assign to an element of `{slice}`, which is not `mut`: declare it `let mut {slice}`")
                        };
                        self.errors.at(Sp::of(slice), msg);
                    }
                    self.array_index(index);
                    return elem;
                }
                let elem = self.slice_of(slice, true);
                self.slice_index(index, "");
                elem.map_or(Ty::Error, Ty::Scalar)
            }
        }
    }

    /// What makes binding `b` (named `name`) mutable, for the error of an assignment to it.
    fn how_to_make_mutable(&self, b: &Binding, name: &str) -> String {
        if b.id < self.param_count && (!b.comptime || self.device) {
            format!("it is a parameter: declare it `mut {name}` in the parameter list")
        } else if b.id < self.param_count {
            format!("it is a parameter: copy it into a variable, `let mut {name} = {name};`")
        } else if self.loop_variables.contains(&b.id) {
            format!("it is a `for` loop's variable: declare it `for mut {name} in ..`")
        } else {
            format!("declare it `let mut {name}`")
        }
    }

    /// A name bound to a constant array of the surrounding code (`let w = TAPS;`), whose type
    /// nothing has given yet, is an array: indexing it says so.
    fn table_copy_is_array(&mut self, name: &syn::Ident) {
        let Some(b) = self.lookup(&name.to_string()).cloned() else { return };
        let ty = self.infer.resolve(&b.ty);
        if matches!(ty, Ty::Var(_)) && self.is_item_const_type(&ty) {
            let elem = self.infer.fresh(VarKind::Any);
            let _ = self.infer.unify(&ty, &Ty::Array(Box::new(elem)));
        }
    }

    /// Whether `t` is still open and the type of a constant of the surrounding code or of a
    /// table's elements: one rustc settles where the kernel is built (`x << SHIFT`).
    fn is_open_item_type(&self, t: &Ty) -> bool {
        let resolved = self.infer.resolve(t);
        matches!(resolved, Ty::Var(_)) && self.is_item_type(&resolved)
    }

    /// Whether the binding `id` is a `const` of the body (a scalar or a table).
    fn is_body_constant(&self, id: usize) -> bool {
        self.consts.contains(&id) || self.const_arrays.contains(&id)
    }

    /// Whether `ty` (resolved) is the type of a constant of the surrounding code or of a
    /// constant table's elements, which only their uses give.
    fn is_item_type(&self, ty: &Ty) -> bool {
        self.is_item_const_type(ty) || self.is_table_element_type(ty)
    }

    /// Whether `ty` (resolved) is the type of a constant of the surrounding code.
    fn is_item_const_type(&self, ty: &Ty) -> bool {
        self.item_consts.iter().any(|c| self.infer.resolve(&c.ty) == *ty)
    }

    /// Whether `ty` (resolved) is the type of a constant table's elements.
    fn is_table_element_type(&self, ty: &Ty) -> bool {
        self.item_arrays.iter().any(|a| a.elem.as_ref().is_some_and(|t| self.infer.resolve(t) == *ty))
    }

    /// Whether `e` names a binding that is a reference in Rust ([`Checker::references`]).
    fn names_reference(&self, e: &Expr) -> bool {
        matches!(e.kind, ExprKind::Path(_))
            && self.binding[e.id].is_some_and(|b| self.references.contains(&b))
    }

    /// Whether the `let` of `pat` to `init` (of type `t`) binds a reference in Rust: an
    /// element a `for` loop borrows (over `.iter()`, `&a`, or a slice by name), or a name bound
    /// to one (`let w = v;`). A `&v` pattern over an array by value is rustc's E0308.
    fn element_by_reference(&mut self, pat: &Pat, init: &Expr, t: &Ty) -> bool {
        if let ExprKind::Path(_) = init.kind {
            return self.names_reference(init);
        }
        let Some(element) = self.elements.iter().find(|el| el.init == init.id).copied() else { return false };
        let over_slice = match &init.kind {
            ExprKind::Index { slice, .. } => self
                .lookup(&slice.to_string())
                .is_some_and(|b| matches!(self.infer.resolve(&b.ty), Ty::Slice { .. })),
            _ => false,
        };
        // Whether the loop borrows what it runs over, and whether the element is a reference.
        let (borrows, reference) = match element.by {
            ElementBy::Reference => (true, true),
            ElementBy::Copied => (true, false),
            ElementBy::NameOfArrayOrSlice => (over_slice, over_slice),
            ElementBy::AmpPattern => (over_slice, false),
        };
        if element.by == ElementBy::AmpPattern && !over_slice && !contains_error(t) {
            let at = match pat {
                Pat::Ident { name, .. } => Sp::of(name),
                _ => init.span,
            };
            let msg = format!(
                "mismatched types: expected `{}`, found `&_`: a loop over an array gives its elements by \
                 value, which a `&` pattern does not take (loop over `a.iter()` for references)",
                self.show(t)
            );
            self.errors.at(at, msg);
        }
        // A borrow lasts the whole of the loop's body (this `let` is its first statement):
        // writing what is borrowed there is rustc's E0506.
        if let (true, ExprKind::Index { slice, .. }) = (borrows, &init.kind) {
            if let Some(id) = self.binding_id(slice) {
                self.borrowed_arrays.push((id, self.scopes.len()));
            }
        }
        reference
    }

    /// Reports `e` where Rust wants a value (`what` says where) if it names a reference
    /// binding ([`Checker::references`]): rustc's E0308 (`expected u32, found &u32`).
    fn reference_as_value(&mut self, e: &Expr, t: &Ty, what: &str) {
        let ExprKind::Path(name) = &e.kind else { return };
        if self.names_reference(e) && !contains_error(t) {
            let t = self.show(t);
            self.errors.at(
                e.span,
                format!("mismatched types: expected `{t}`, found `&{t}`{what}; dereference it, `*{name}`"),
            );
        }
    }

    /// The element type of the local array bound as `name` and whether it is `mut`; `None`
    /// when `name` is not an array.
    fn array_binding(&self, name: &syn::Ident) -> Option<(Ty, bool)> {
        let b = self.lookup(&name.to_string())?;
        match self.infer.resolve(&b.ty) {
            Ty::Array(elem) => Some((*elem, b.mutable)),
            _ => None,
        }
    }

    /// Whether `ty` is a tuple whose elements (nested tuples' too) are scalars `==` takes.
    fn comparable_tuple(&self, ty: &Ty) -> bool {
        fn leaves_ok(infer: &crate::types::Infer, ty: &Ty) -> bool {
            match infer.resolve(ty) {
                Ty::Tuple(elems) => elems.iter().all(|e| leaves_ok(infer, e)),
                Ty::Scalar(_) => true,
                Ty::Var(_) | Ty::Error => true,
                _ => false,
            }
        }
        matches!(self.infer.resolve(ty), Ty::Tuple(_)) && leaves_ok(&self.infer, ty)
    }

    /// A local array's index: a `usize`, as Rust's.
    fn array_index(&mut self, index: &Expr) {
        let t = self.expr(index);
        self.reference_as_value(index, &t, " (an index is a value: E0277)");
        self.expect(index.span, &Ty::Scalar(Scalar::Usize), &t, " (an array is indexed by a `usize`)");
    }

    fn unary(&mut self, e: &Expr, op: UnOp, inner: &Expr) -> (Ty, bool) {
        if op == UnOp::Neg {
            if let ExprKind::Lit(Lit::Int { .. }) = inner.kind {
                let t = self.expr(inner);
                if let Some(l) = self.int_lits.iter_mut().rev().find(|l| l.0 == inner.id) {
                    l.2 = true;
                    l.3 = e.span;
                }
                self.negations.push((inner.id, e.span));
                return (t, true);
            }
        }
        let t = self.expr(inner);
        if op == UnOp::Not {
            let (when_true, when_false) = self.condition_states(inner.id);
            self.condition_states.insert(e.id, (when_false, when_true));
        }
        let comptime = self.comptime[inner.id];
        let resolved = self.infer.resolve(&t);
        let kind = self.infer.var_kind(&t);
        // A constant of the surrounding code (or a table's element) whose type its uses give
        // later (`-TAPS[k] * x`): the operator is checked once they have given it.
        if kind == Some(VarKind::Any) && self.is_item_type(&resolved) {
            self.deferred_unary.push((t.clone(), op, e.span));
            if op == UnOp::Neg {
                self.negations.push((inner.id, e.span));
            }
            return (t, comptime);
        }
        match op {
            UnOp::Neg => {
                let ok = match &resolved {
                    Ty::Scalar(s) => s.is_int() || s.is_float() || s.is_half(),
                    Ty::Var(_) => kind != Some(VarKind::Any),
                    Ty::Error => true,
                    _ => false,
                };
                if !ok {
                    let msg = format!("cannot apply unary `-` to type `{}`", self.show(&t));
                    self.errors.at(e.span, msg);
                }
                self.negations.push((inner.id, e.span));
            }
            UnOp::Not => {
                let ok = match &resolved {
                    Ty::Scalar(s) => s.is_int() || *s == Scalar::Bool,
                    Ty::Var(_) => kind == Some(VarKind::Int),
                    Ty::Error => true,
                    _ => false,
                };
                if !ok && self.assertion_not != Some(e.id) {
                    let msg = format!(
                        "cannot apply `!` to type `{}`: it is defined on integers and `bool`",
                        self.show(&t)
                    );
                    self.errors.at(e.span, msg);
                }
            }
        }
        (t, comptime)
    }

    /// Rejects operand types an arithmetic or bitwise operator is not defined on.
    fn arith_operand(&mut self, sp: Sp, op: BinOp, t: &Ty) {
        let resolved = self.infer.resolve(t);
        let kind = self.infer.var_kind(t);
        let bitwise = matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor);
        let ok = match &resolved {
            Ty::Scalar(Scalar::Bool) => bitwise,
            Ty::Scalar(s) if s.is_float() || s.is_half() => !bitwise,
            Ty::Scalar(s) => s.is_int(),
            Ty::Var(_) => match kind {
                Some(VarKind::Float) => !bitwise,
                _ => true,
            },
            Ty::Error => true,
            _ => false,
        };
        if ok {
            return;
        }
        let shown = self.show(t);
        let msg = match &resolved {
            Ty::Scalar(s) if s.is_half() => {
                format!("`{}` is not defined for `{shown}`: move its bits with `.to_bits()`", op.symbol())
            }
            Ty::Scalar(Scalar::Bool) => format!(
                "`{}` is not defined for `bool`: convert it with `as u32`, or use `&`, `|`, `^`, `&&`, `||`",
                op.symbol()
            ),
            _ => format!("`{}` is not defined for `{shown}`", op.symbol()),
        };
        self.errors.at(sp, msg);
    }

    /// Checks a slice index, which must be an integer (`hint` follows the error), and
    /// records its type ([`Checker::index_types`]).
    fn slice_index(&mut self, index: &Expr, hint: &str) {
        let t = self.expr(index);
        self.reference_as_value(index, &t, " (an index is a value: E0277)");
        if !self.is_int_like(&t) {
            let msg = format!("a slice index must be an integer, found `{}`{hint}", self.show(&t));
            self.errors.at(index.span, msg);
        }
        self.index_types.push(t);
    }

    fn shift_amount(&mut self, rhs: &Expr, t: &Ty) {
        // A constant of the surrounding code (`x << SHIFT`) is an amount of its own type,
        // which rustc checks where the kernel is built.
        if !self.is_open_item_type(t) && !self.is_int_like(t) {
            let msg = format!("a shift amount must be an integer, found `{}`", self.show(t));
            self.errors.at(rhs.span, msg);
        }
    }

    fn binary(&mut self, e: &Expr, op: BinOp, l: &Expr, r: &Expr) -> (Ty, bool) {
        let tl = self.expr(l);
        // The right operand of `&&` runs where the left one is true, of `||` where it is
        // false: what it assigns is known where the whole is true (`&&`) or false (`||`).
        let left = op.is_short_circuit().then(|| self.condition_states(l.id));
        if let Some((when_true, when_false)) = &left {
            self.assigned = if op == BinOp::And { when_true.clone() } else { when_false.clone() };
        }
        let tr = self.expr(r);
        if let Some((left_true, left_false)) = left {
            let (right_true, right_false) = self.condition_states(r.id);
            let states = if op == BinOp::And {
                (right_true, left_false.join(&right_false))
            } else {
                (left_true.join(&right_true), right_false)
            };
            self.assigned = states.0.clone().join(&states.1);
            self.condition_states.insert(e.id, states);
        }
        // A reference compares with a reference only (`*v == 0.0`, or `v == &0.0` in Rust).
        if op.is_comparison() {
            match (self.names_reference(l), self.names_reference(r)) {
                (true, false) => self.reference_as_value(l, &tl, " (compared with a value)"),
                (false, true) => self.reference_as_value(r, &tr, " (compared with a value)"),
                _ => {}
            }
        }
        // An integer `/` or `%` is computed while building only when its divisor is a
        // positive literal: any other divisor could be 0 (or -1 under MIN), which the
        // kernel reports as a fault at launch rather than the build panicking.
        let safe_divisor = matches!(r.kind, ExprKind::Lit(Lit::Int { value, .. }) if value != 0);
        let int_division = matches!(op, BinOp::Div | BinOp::Rem) && self.is_int_like(&tl);
        let comptime = self.comptime[l.id] && self.comptime[r.id] && (!int_division || safe_divisor);
        let what = if of_hidden(l) {
            // A pattern's test (see `crate::desugar`): `value == 1`, `value >= 1`.
            " (a pattern has the type of the value it matches)".to_string()
        } else if [&tl, &tr].iter().any(|t| self.infer.resolve(t).scalar().is_some_and(Scalar::is_half)) {
            // No `as` for the `half` crate's types: the hint after the message says what to write.
            format!(" (both sides of `{}` have one type)", op.symbol())
        } else {
            format!(" (both sides of `{}` have one type; convert one with `as`)", op.symbol())
        };
        let ty = if op.is_short_circuit() {
            let b = Ty::Scalar(Scalar::Bool);
            self.expect(l.span, &b, &tl, &format!(" (`{}` takes `bool`s)", op.symbol()));
            if is_guard(r) {
                let at = match &r.kind {
                    ExprKind::Block(Block { tail: Some(tail), .. }) => tail.span,
                    _ => r.span,
                };
                self.expect(at, &b, &tr, " (a guard is a `bool`)");
            } else {
                self.expect(r.span, &b, &tr, &format!(" (`{}` takes `bool`s)", op.symbol()));
            }
            b
        } else if op.is_shift() {
            // A constant of the surrounding code (`MASK << 2`) is shifted in its own type,
            // which its use settles or rustc infers.
            if !self.is_open_item_type(&tl) && !self.is_int_like(&tl) {
                let msg = format!("`{}` is not defined for `{}`", op.symbol(), self.show(&tl));
                self.errors.at(l.span, msg);
            }
            self.shift_amount(r, &tr);
            tl
        } else if op.is_comparison() {
            let u = self.expect(r.span, &tl, &tr, &what);
            let resolved = self.infer.resolve(&u);
            // A range pattern's exclusive bound (`..0` of an unsigned value) that no value is
            // below, which rustc refuses (E0579) and `crate::desugar` could not tell.
            let least = resolved.scalar().filter(|s| s.is_int()).map(|s| s.int_range().0);
            let bound = match &r.kind {
                ExprKind::Lit(Lit::Int { value, .. }) => Some(*value as i128),
                ExprKind::Unary(UnOp::Neg, inner) => match &inner.kind {
                    ExprKind::Lit(Lit::Int { value, .. }) => Some(-(*value as i128)),
                    _ => None,
                },
                _ => None,
            };
            if op == BinOp::Lt && of_hidden(l) && least.is_some() && bound == least {
                self.errors.at(e.span, "exclusive upper bound for a range bound cannot be the minimum");
            }
            // The `half` crate's types compare by hand-written `PartialEq`, which patterns do
            // not take (rustc: "constant of non-structural type in a pattern").
            if of_hidden(l) && resolved.scalar().is_some_and(Scalar::is_half) {
                let msg = format!(
                    "constant of non-structural type `{}` in a pattern: compare in an `if` (`h == {0}::ZERO`), or \
                     match its bits (`h.to_bits()`)",
                    self.show(&u)
                );
                self.errors.at(r.span, msg);
            }
            if self.comparable_tuple(&resolved) {
                // Rust's tuple `PartialEq` and `PartialOrd`: element by element, in order.
            } else if matches!(resolved, Ty::Tuple(_) | Ty::Slice { .. } | Ty::Dim3 | Ty::Array(_)) {
                let msg =
                    format!("`{}` compares scalars and tuples of them, not `{}`", op.symbol(), self.show(&u));
                self.errors.at(e.span, msg);
            }
            Ty::Scalar(Scalar::Bool)
        } else if [&tl, &tr].iter().any(|t| self.infer.resolve(t) == Ty::Scalar(Scalar::Bool))
            && !matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor)
        {
            self.arith_operand(e.span, op, &Ty::Scalar(Scalar::Bool));
            Ty::Error
        } else {
            let u = self.expect(r.span, &tl, &tr, &what);
            self.arith_operand(e.span, op, &u);
            u
        };
        (ty, comptime)
    }

    fn no_args(&mut self, method: &syn::Ident, args: &[Expr]) {
        if let Some(first) = args.first() {
            let sp = first.span.to(args[args.len() - 1].span);
            self.errors.at(sp, format!("`{method}` takes no arguments"));
        }
    }

    fn method(&mut self, e: &Expr, receiver: &Expr, method: &syn::Ident, args: &[Expr]) -> (Ty, bool) {
        let rt = self.types[receiver.id].clone();
        let name = method.to_string();
        let arg_types: Vec<Ty> = args.iter().map(|a| self.expr(a)).collect();
        let ord_call = self.ord_calls.contains(&e.id);
        if ord_call {
            // A generic function of one type `T: Ord`: the two values unify, either one
            // giving the type (`std::cmp::min(2, n)`).
            let what = format!(" (the two values of `std::cmp::{name}` have one type)");
            if self.expect(args[0].span, &rt, &arg_types[0], &what) == Ty::Error {
                return (Ty::Error, false);
            }
        }
        let mut resolved = self.infer.resolve(&rt);
        // (Read directly, `TAPS[k]` or `NEG_INF`, or through a name bound to one,
        // `for &t in TAPS.iter()`, `let mut m = NEG_INF;`.)
        let item_element = matches!(resolved, Ty::Var(_)) && self.is_item_type(&resolved);
        if let (Ty::Var(_), true) = (&resolved, item_element) {
            // An element of a constant table or a constant of the surrounding code, whose
            // type only rustc knows: a method whose arguments have the receiver's type
            // (`TAPS[k].mul_add(x, acc)`, `m.max(x[i])`) gives it, as it does in Rust (rustc
            // then checks the item against it at the name).
            let from_args = arg_types.iter().find_map(|t| self.infer.resolve(t).scalar());
            let takes_self =
                |s: &Scalar| method_signature(*s, &name).is_some_and(|sig| sig.args.first() == Some(&None));
            if let Some(s) = from_args.filter(takes_self) {
                let _ = self.infer.unify(&rt, &Ty::Scalar(s));
                resolved = Ty::Scalar(s);
            }
        }
        let all_comptime = self.comptime[receiver.id] && args.iter().all(|a| self.comptime[a.id]);
        let scalar = match resolved {
            Ty::Scalar(s) => s,
            Ty::Error => return (Ty::Error, false),
            // `H.to_f32()` of a half constant of the surrounding code: only the `half` crate's
            // types have these methods, and their value is an `f32`/`f64` whatever the
            // constant's type, so the call is computed while building, as rustc types it.
            Ty::Var(_)
                if item_element
                    && all_comptime
                    && args.is_empty()
                    && (name == "to_f32" || name == "to_f64") =>
            {
                return (Ty::Scalar(if name == "to_f32" { Scalar::F32 } else { Scalar::F64 }), true);
            }
            // A constant table's element whose type nothing gave: reported once, at the end.
            Ty::Var(_) if item_element => return (Ty::Error, false),
            // `std::cmp::max(3, 4)` of integer literals: a function generic over `T: Ord`
            // whose `T` the context gives, as rustc infers it (by default `i32`).
            Ty::Var(_) if ord_call && self.infer.var_kind(&rt) == Some(VarKind::Int) => {
                return (rt, all_comptime)
            }
            // A constant of the surrounding code whose type nothing gave: reported once, at
            // the end of the check.
            Ty::Var(_) if self.item_consts.iter().any(|c| c.expr == receiver.id) => {
                return (Ty::Error, false)
            }
            Ty::Var(_) => {
                let kind =
                    if self.infer.var_kind(&rt) == Some(VarKind::Float) { "{float}" } else { "{integer}" };
                let example = if kind == "{float}" { "2.0_f32" } else { "2_u32" };
                self.errors.at(
                    receiver.span,
                    format!("can't call method `{name}` on ambiguous numeric type `{kind}`: give it a type, e.g. `{example}`"),
                );
                return (Ty::Error, false);
            }
            other => {
                let hint = match name.as_str() {
                    "get" | "get_mut" | "first" | "last" => {
                        ": index it, `x[i]` (an index out of range is the launch's error, naming it)"
                    }
                    "sum" | "product" | "map" | "fold" => {
                        ": iterators are `for` loops in kernels, `for v in x.iter() { acc += v; }`"
                    }
                    "fill" | "copy_from_slice" | "clone_from_slice" => {
                        ": write the elements in a loop, `for i in 0..y.len() { y[i] = .. }` (or one element a \
                         thread, `y[i] = ..` with `i` from `global_idx()`)"
                    }
                    "x" | "y" | "z" if other == Ty::Dim3 => ": it is a field, without parentheses (`thread_idx().x`)",
                    _ => "",
                };
                // `.iter()` and `.into_iter()` exist, as a `for` loop's: out of one they are no
                // value to call `sum` or `map` on.
                let msg = if matches!(name.as_str(), "iter" | "into_iter") {
                    format!(
                        "`{name}()` is only a `for` loop's in kernels (`for v in x.{name}() {{ .. }}`): no iterator \
                         value to call methods on; accumulate in the loop, `for v in x.iter() {{ acc += v; }}`"
                    )
                } else {
                    format!("no method `{name}` on `{}` in kernels{hint}", self.show(&other))
                };
                return self.refuse_method(Sp::of(method), msg, &arg_types);
            }
        };
        if ord_call && (scalar.is_float() || scalar.is_half()) {
            let msg = format!(
                "`std::cmp::{name}` takes `Ord` values, and `{0}` is not `Ord` (a NaN is unordered): \
                 write `a.{name}(b)`, `{0}::{name}`, which gives the other value when one is a NaN",
                scalar.name()
            );
            self.errors.at(e.span, msg);
            return (Ty::Error, false);
        }
        let Some(sig) = method_signature(scalar, &name) else {
            let msg = if name == "into" {
                "`into` is not supported in kernels: name the target type, `T::from(x)` (or `x as T`)"
                    .to_string()
            } else if scalar.is_int() && (name.starts_with("checked_") || name.starts_with("overflowing_")) {
                let operation = name.split_once('_').map_or("", |(_, op)| op);
                let instead: Vec<String> = ["wrapping", "saturating"]
                    .iter()
                    .map(|kind| format!("{kind}_{operation}"))
                    .filter(|method| method_signature(scalar, method).is_some())
                    .map(|method| format!("`{method}`"))
                    .collect();
                let alternative = if instead.is_empty() {
                    String::new()
                } else {
                    format!(", or use {}", instead.join(" or "))
                };
                format!(
                    "`{name}` gives an `Option` or a tuple with a flag, which kernels do not have: test the \
                     operands before the operation{alternative}"
                )
            } else if matches!(name.as_str(), "cmp" | "partial_cmp" | "total_cmp") {
                format!(
                    "`{name}` gives an `Ordering`, which kernels do not have: compare with `<`, `==` and `>` \
                     (a `match` on `(a < b, a == b)` takes the three cases)"
                )
            } else if let Some(instead) = method_of_other_kind(scalar, &name) {
                instead
            } else {
                format!(
                    "no method `{name}` on `{}` in kernels; supported: {}",
                    scalar.name(),
                    methods_help(scalar)
                )
            };
            return self.refuse_method(Sp::of(method), msg, &arg_types);
        };
        if sig.f32_only && scalar != Scalar::F32 {
            self.errors.at(
                Sp::of(method),
                format!(
                    "`{name}` is supported on `f32` only: it is the hardware's `.approx.f32` instruction \
                     (on `{}`, use the accurate `{}`)",
                    scalar.name(),
                    name.trim_start_matches("fast_")
                ),
            );
        }
        if args.len() != sig.args.len() {
            // Called as `u32::wrapping_add(a, b)`, the value is an argument too.
            let (called, extra) = match &e.kind {
                ExprKind::TypeCall { ty, .. } => (format!("{}::{name}", ty.name()), 1),
                _ => (name.clone(), 0),
            };
            let count = |n: usize| if n == 1 { "1 argument".to_string() } else { format!("{n} arguments") };
            let (want, given) = (count(sig.args.len() + extra), args.len() + extra);
            self.errors.at(e.span, format!("`{called}` takes {want}, {given} given"));
            return (Ty::Error, false);
        }
        for ((arg, t), want) in args.iter().zip(&arg_types).zip(&sig.args) {
            let want = want.map_or(Ty::Scalar(scalar), Ty::Scalar);
            self.expect(arg.span, &want, t, &format!(" (an argument of `{name}`)"));
        }
        let ret = match sig.ret {
            Ret::SelfTy => Ty::Scalar(scalar),
            Ret::Scalar(s) => Ty::Scalar(s),
            Ret::Pair => Ty::Tuple(vec![Ty::Scalar(scalar), Ty::Scalar(scalar)]),
        };
        // `fast_*` have no host form; std's `clamp` panics when `min > max`, the integer
        // `rem_euclid`/`div_euclid`/`wrapping_div`/`wrapping_rem` on a zero divisor, `ilog2`
        // and `ilog10` on a value that is not positive, `isqrt` on a negative one and
        // `next_power_of_two` past the type (in a debug build), which must be a launch fault
        // or wrap rather than panic while building, so these are computed by the builder
        // (which folds constants) instead.
        let may_panic = name == "clamp"
            || scalar.is_int()
                && (name.ends_with("_euclid")
                    || matches!(
                        name.as_str(),
                        "wrapping_div"
                            | "wrapping_rem"
                            | "ilog2"
                            | "ilog10"
                            | "isqrt"
                            | "next_power_of_two"
                            | "div_ceil"
                            | "next_multiple_of"
                    ));
        (ret, all_comptime && !name.starts_with("fast_") && !may_panic)
    }
}

/// What a method returns.
#[derive(Clone, Copy)]
enum Ret {
    SelfTy,
    Scalar(Scalar),
    Pair,
}

/// A method's signature: argument types (`None` = the receiver's type).
struct Signature {
    args: Vec<Option<Scalar>>,
    ret: Ret,
    /// Whether the method exists on `f32` only (the `fast_*` hardware approximations).
    f32_only: bool,
}

const FLOAT_METHODS_HELP: &str = "sin cos tan sin_cos atan asin acos atan2 exp exp2 ln log2 log10 log powf powi tanh \
     cbrt exp_m1 ln_1p sinh cosh hypot sqrt recip abs min max midpoint \
     mul_add floor ceil round round_ties_even trunc fract clamp signum copysign to_radians to_degrees is_nan is_finite \
     is_infinite is_normal is_subnormal is_sign_negative is_sign_positive to_bits rem_euclid div_euclid (and `f32::from_bits`), and fast_sin \
     fast_cos fast_exp2 fast_log2 fast_recip fast_sqrt";
const INT_METHODS_HELP: &str =
    "min max clamp pow wrapping_add wrapping_sub wrapping_mul wrapping_div wrapping_rem wrapping_neg \
     wrapping_pow wrapping_shl wrapping_shr saturating_add saturating_sub saturating_mul rotate_left rotate_right \
     swap_bytes reverse_bits abs_diff rem_euclid div_euclid count_ones count_zeros leading_zeros trailing_zeros \
     leading_ones trailing_ones ilog2 ilog10 isqrt midpoint unbounded_shl unbounded_shr, abs signum wrapping_abs \
     unsigned_abs is_positive is_negative cast_unsigned (signed), is_power_of_two next_power_of_two div_ceil \
     next_multiple_of is_multiple_of cast_signed (unsigned)";

/// The list of `scalar`'s methods that an error about an unknown one shows.
fn methods_help(scalar: Scalar) -> &'static str {
    if scalar.is_float() {
        FLOAT_METHODS_HELP
    } else if scalar.is_half() {
        "to_f32 to_f64 to_bits is_nan is_finite is_infinite is_normal is_sign_negative is_sign_positive signum \
         min max copysign clamp (the `half` crate's; for others, widen with `.to_f32()`)"
    } else if scalar.is_int() {
        INT_METHODS_HELP
    } else {
        "min max (and `!`, `&`, `|`, `^`, `as u32`)"
    }
}

/// The message for a method `scalar` lacks that the other kind of number has (`pow` on a
/// float, `sqrt` on an integer), saying what to write; `None` when neither kind has it.
fn method_of_other_kind(scalar: Scalar, name: &str) -> Option<String> {
    let ty = scalar.name();
    if scalar.is_float() && name == "pow" {
        return Some(format!(
            "no method `pow` on `{ty}`: `pow` takes an integer receiver; a float is raised by `x.powi(n)` \
             (an `i32` exponent) or `x.powf(y)`"
        ));
    }
    let args = |sig: Signature| if sig.args.is_empty() { "()" } else { "(..)" };
    let int_method = method_signature(Scalar::I64, name).or_else(|| method_signature(Scalar::U64, name));
    if scalar.is_float() {
        if let Some(sig) = int_method {
            return Some(format!(
                "no method `{name}` on `{ty}`: it is an integer method (convert first, or work on the bits, \
                 `x.to_bits().{name}{}`)",
                args(sig)
            ));
        }
    }
    if scalar.is_int() && int_method.is_none() {
        if let Some(sig) = method_signature(Scalar::F64, name) {
            return Some(format!(
                "no method `{name}` on `{ty}`: it is a float method; convert first, `(x as f64).{name}{}` \
                 (or `as f32`)",
                args(sig)
            ));
        }
    }
    None
}

/// The methods of the language, by receiver type and name.
fn method_signature(recv: Scalar, name: &str) -> Option<Signature> {
    let sig = |args: Vec<Option<Scalar>>, ret: Ret, f32_only: bool| Some(Signature { args, ret, f32_only });
    if recv.is_float() {
        match name {
            "sin" | "cos" | "tan" | "atan" | "asin" | "acos" | "exp" | "exp2" | "ln" | "log2" | "log10"
            | "tanh" | "cbrt" | "exp_m1" | "ln_1p" | "sinh" | "cosh" => sig(vec![], Ret::SelfTy, false),
            "fast_sin" | "fast_cos" | "fast_exp2" | "fast_log2" | "fast_recip" | "fast_sqrt" => {
                sig(vec![], Ret::SelfTy, true)
            }
            "sqrt" | "recip" | "abs" | "floor" | "ceil" | "round" | "round_ties_even" | "trunc" | "fract"
            | "signum" | "to_radians" | "to_degrees" => sig(vec![], Ret::SelfTy, false),
            "is_nan" | "is_finite" | "is_infinite" | "is_normal" | "is_subnormal" | "is_sign_negative"
            | "is_sign_positive" => sig(vec![], Ret::Scalar(Scalar::Bool), false),
            "midpoint" => sig(vec![None], Ret::SelfTy, false),
            "sin_cos" => sig(vec![], Ret::Pair, false),
            "powf" | "hypot" | "atan2" | "log" | "rem_euclid" | "div_euclid" => {
                sig(vec![None], Ret::SelfTy, false)
            }
            "powi" => sig(vec![Some(Scalar::I32)], Ret::SelfTy, false),
            "min" | "max" | "copysign" => sig(vec![None], Ret::SelfTy, false),
            "mul_add" | "clamp" => sig(vec![None, None], Ret::SelfTy, false),
            "to_bits" => {
                sig(vec![], Ret::Scalar(if recv == Scalar::F32 { Scalar::U32 } else { Scalar::U64 }), false)
            }
            _ => None,
        }
    } else if recv.is_half() {
        match name {
            "to_f32" => sig(vec![], Ret::Scalar(Scalar::F32), false),
            "to_f64" => sig(vec![], Ret::Scalar(Scalar::F64), false),
            "to_bits" => sig(vec![], Ret::Scalar(Scalar::U16), false),
            "is_nan" | "is_finite" | "is_infinite" | "is_normal" | "is_sign_negative"
            | "is_sign_positive" => sig(vec![], Ret::Scalar(Scalar::Bool), false),
            "signum" => sig(vec![], Ret::SelfTy, false),
            "min" | "max" | "copysign" => sig(vec![None], Ret::SelfTy, false),
            "clamp" => sig(vec![None, None], Ret::SelfTy, false),
            _ => None,
        }
    } else if recv.is_int() {
        match name {
            "min" | "max" | "wrapping_add" | "wrapping_sub" | "wrapping_mul" | "wrapping_div"
            | "wrapping_rem" | "saturating_add" | "saturating_sub" | "saturating_mul" | "rem_euclid"
            | "div_euclid" => sig(vec![None], Ret::SelfTy, false),
            "clamp" => sig(vec![None, None], Ret::SelfTy, false),
            "abs" | "signum" | "wrapping_abs" if recv.is_signed_int() => sig(vec![], Ret::SelfTy, false),
            "unsigned_abs" if recv.is_signed_int() => sig(vec![], Ret::Scalar(recv.unsigned()), false),
            "is_positive" | "is_negative" if recv.is_signed_int() => {
                sig(vec![], Ret::Scalar(Scalar::Bool), false)
            }
            "is_power_of_two" if !recv.is_signed_int() => sig(vec![], Ret::Scalar(Scalar::Bool), false),
            "is_multiple_of" if !recv.is_signed_int() => sig(vec![None], Ret::Scalar(Scalar::Bool), false),
            "cast_signed" if !recv.is_signed_int() => sig(vec![], Ret::Scalar(recv.signed()), false),
            "cast_unsigned" if recv.is_signed_int() => sig(vec![], Ret::Scalar(recv.unsigned()), false),
            "unbounded_shl" | "unbounded_shr" => sig(vec![Some(Scalar::U32)], Ret::SelfTy, false),
            "midpoint" => sig(vec![None], Ret::SelfTy, false),
            "isqrt" => sig(vec![], Ret::SelfTy, false),
            "ilog10" => sig(vec![], Ret::Scalar(Scalar::U32), false),
            "div_ceil" | "next_multiple_of" if !recv.is_signed_int() => sig(vec![None], Ret::SelfTy, false),
            "next_power_of_two" if !recv.is_signed_int() => sig(vec![], Ret::SelfTy, false),
            "abs_diff" => sig(vec![None], Ret::Scalar(recv.unsigned()), false),
            "wrapping_neg" | "swap_bytes" | "reverse_bits" => sig(vec![], Ret::SelfTy, false),
            "count_ones" | "count_zeros" | "leading_zeros" | "trailing_zeros" | "leading_ones"
            | "trailing_ones" | "ilog2" => sig(vec![], Ret::Scalar(Scalar::U32), false),
            "pow" | "wrapping_pow" | "wrapping_shl" | "wrapping_shr" | "rotate_left" | "rotate_right" => {
                sig(vec![Some(Scalar::U32)], Ret::SelfTy, false)
            }
            _ => None,
        }
    } else if recv == Scalar::Bool {
        // `bool` is `Ord` (`false < true`).
        match name {
            "min" | "max" => sig(vec![None], Ret::SelfTy, false),
            _ => None,
        }
    } else {
        None
    }
}

/// Whether Rust's standard library converts `from` to `to` with `From` (a lossless
/// conversion, the same value `as` gives): the identity, `bool` to any number, integers
/// to wider integers that hold every value, and small integers and `f32` to wider floats.
fn lossless(from: Scalar, to: Scalar) -> bool {
    use Scalar::*;
    if from == to {
        return true;
    }
    matches!(
        (from, to),
        (Bool, U8 | I8 | U16 | I16 | U32 | I32 | U64 | I64 | Usize | Isize | F32 | F64)
            | (U8, U16 | I16 | U32 | I32 | U64 | I64 | Usize | Isize | F32 | F64)
            | (I8, I16 | I32 | I64 | Isize | F32 | F64)
            | (U16, U32 | I32 | U64 | I64 | Usize | F32 | F64)
            | (I16, I32 | I64 | Isize | F32 | F64)
            | (U32, U64 | I64 | F64)
            | (I32, I64 | F64)
            | (F32, F64)
            // The `half` crate's `From<f16> for f32` and its siblings.
            | (F16 | Bf16, F32 | F64)
    )
}

/// Whether `e` is the hidden value of a `match` or an element of it (`__match_0.1.0`), read
/// by the tests of a tuple pattern (see [`crate::desugar`]).
fn of_hidden(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Path(name) => crate::desugar::is_hidden(name),
        ExprKind::Field(inner, _) => of_hidden(inner),
        _ => false,
    }
}

/// Whether `e` is a `match` arm's guard as [`crate::desugar`] writes it: a block whose last
/// statement is `let _ = value;`, reading the hidden value.
fn is_guard(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Block(b) => {
            matches!(b.stmts.last(), Some(Stmt::Let { pat: Pat::Wild, init, .. }) if of_hidden(init))
        }
        _ => false,
    }
}

/// How the built-in `name` is called (`sync_threads()`, `shfl_xor(value, lane_mask)`).
fn builtin_usage(name: &str) -> String {
    match Intrinsic::ALL.iter().find(|f| f.name() == name) {
        Some(f) => f.usage().to_string(),
        None => format!("{name}()"),
    }
}

/// What to write where a half-precision value and a float meet (types as shown): the
/// conversion between them, which kernels, as Rust, never make implicitly.
fn half_hint(expected: &str, found: &str) -> String {
    let half = |t: &str| matches!(t, "f16" | "bf16");
    match (expected, found) {
        (e, "f32" | "{float}") if half(e) => format!("; round an `f32` to `{e}` with `{e}::from_f32(..)`"),
        (e, "f64") if half(e) => format!("; round it to `{e}` through `f32`, `{e}::from_f32(v as f32)`"),
        ("f32", f) if half(f) => "; widen it with `.to_f32()`".to_string(),
        ("f64", f) if half(f) => "; widen it with `.to_f64()`".to_string(),
        _ => String::new(),
    }
}
