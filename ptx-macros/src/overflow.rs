//! Integer arithmetic on constants that always overflows, reported as rustc reports it
//! (its deny-by-default `arithmetic_overflow` lint): `255u8 + 1`, `i32::MAX + 1`,
//! `-i32::MIN`, `i32::MIN / -1`, also through immutable locals bound to such constants
//! (`let a = 255u8; a + 1`, `let (a, b) = (255u8, 1); a + b`); and, as rustc does whatever
//! the left operand, shift amounts outside the width and zero divisors that are such
//! constants (`let s = 32; x << s`). Runs after type checking, on the final types. Values the
//! kernel is built with (`#[comptime]` parameters) and a device function's parameters are
//! not constants here, as rustc does not see through either. An index of a local array
//! whose length is such a constant (`[0.0; 4]`, `[a, b]`) that is a constant past the end
//! (`acc[4]`, `let j = 4; acc[j]`) is reported as rustc's `unconditional_panic` reports it.
//! As rustc's lints, these look only into code that can run: in an arm of an `if` that a
//! condition of integer constants rules out (`if z != 0 { x / z }`, also a `match` arm,
//! which is one), or the right operand of `&&`/`||` that the left one decides, they are not
//! reported (a type error found here, an array of the wrong length assigned, still is).

use crate::ast::*;
use crate::check::Checked;
use crate::errors::Errors;
use crate::types::Ty;
use std::collections::HashMap;

/// Reports each operation on integer constants whose result is outside its type.
pub fn check(kernel: &KernelFn, checked: &Checked, errors: &mut Errors) {
    let mut folder = Folder {
        types: &checked.types,
        host_typed: &checked.host_typed,
        shift_targets: &checked.shift_targets,
        errors,
        scopes: vec![Vec::new()],
        arrays: vec![Vec::new()],
        dead: 0,
    };
    folder.block(&kernel.body);
}

/// Walks the body with the constant value of each immutable local in scope.
struct Folder<'a> {
    types: &'a [Ty],
    /// [`Checked::host_typed`].
    host_typed: &'a [bool],
    /// [`Checked::shift_targets`].
    shift_targets: &'a HashMap<usize, Scalar>,
    errors: &'a mut Errors,
    /// Locals by name, innermost scope last: the constant value, or `None` when not one.
    scopes: Vec<Vec<(String, Option<i128>)>>,
    /// Locals by name as [`Folder::scopes`]: a local array's length when it is a constant
    /// (a literal's element count, a constant repeat length), or `None`.
    arrays: Vec<Vec<(String, Option<i128>)>>,
    /// How many arms that constant conditions rule out enclose the code being visited:
    /// there rustc's lints (overflow, a zero divisor, a constant index past the end) are
    /// not reported, as rustc does not look into code that cannot run; type errors are.
    dead: usize,
}

impl Folder<'_> {
    fn scalar(&self, e: &Expr) -> Option<Scalar> {
        // A host-typed expression's type is rustc's to know (and its overflows rustc's to find).
        self.types[e.id].scalar().filter(|s| s.is_int() && !self.host_typed[e.id])
    }

    fn bind(&mut self, pat: &Pat, value: Option<i128>) {
        match pat {
            Pat::Ident { name, mutable } => {
                let value = if *mutable { None } else { value };
                if let Some(scope) = self.scopes.last_mut() {
                    scope.push((name.to_string(), value));
                }
                if let Some(scope) = self.arrays.last_mut() {
                    scope.push((name.to_string(), None));
                }
            }
            Pat::Wild => {}
            Pat::Tuple(pats, _) => pats.iter().for_each(|p| self.bind(p, None)),
        }
    }

    fn lookup(&self, name: &str) -> Option<i128> {
        self.scopes.iter().rev().flat_map(|s| s.iter().rev()).find(|(n, _)| n == name).and_then(|(_, v)| *v)
    }

    /// The constant length of the local array `init` gives, if it gives one.
    fn array_len(&mut self, init: &Expr) -> Option<i128> {
        match &init.kind {
            ExprKind::Array(elems) => i128::try_from(elems.len()).ok(),
            ExprKind::Repeat { len, .. } => self.expr(len),
            ExprKind::Path(name) => self.length_of(&name.to_string()),
            _ => None,
        }
    }

    fn length_of(&self, name: &str) -> Option<i128> {
        self.arrays.iter().rev().flat_map(|s| s.iter().rev()).find(|(n, _)| n == name).and_then(|(_, v)| *v)
    }

    /// `array[index]` with a constant index past the constant end: rustc's
    /// `unconditional_panic`.
    fn index(&mut self, array: &syn::Ident, index: &Expr) {
        let value = self.expr(index);
        // `a.swap(0, 5)` is no indexing of rustc's: it panics when it runs, as the kernel's
        // launch fails.
        if matches!(&index.kind, ExprKind::Path(n) if crate::desugar::is_swap_index(n)) {
            return;
        }
        if let (Some(i), Some(len)) = (value, self.length_of(&array.to_string())) {
            if i >= len {
                self.lint(
                    index.span,
                    format!(
                        "this operation will panic at runtime: index out of bounds: the length of `{array}` is \
                         {len} but the index is {i} (Rust rejects it)"
                    ),
                );
            }
        }
    }

    fn block(&mut self, b: &Block) -> Option<i128> {
        self.scopes.push(Vec::new());
        self.arrays.push(Vec::new());
        for s in &b.stmts {
            match s {
                Stmt::Let { pat, init, role, .. } => {
                    let mut values = Vec::new();
                    self.let_values(pat, init, &mut values);
                    // rustc sees neither into a function's arguments nor out of its result.
                    let keep = matches!(role, LetRole::Source | LetRole::Allowed | LetRole::Const);
                    for (pat, value) in values {
                        self.bind(pat, value.filter(|_| keep));
                    }
                    if let Pat::Ident { name, .. } = pat {
                        let len = self.array_len(init);
                        if let Some(scope) = self.arrays.last_mut() {
                            scope.push((name.to_string(), len));
                        }
                    }
                }
                Stmt::Expr { expr, .. } => {
                    self.expr(expr);
                }
            }
        }
        let value = b.tail.as_ref().and_then(|t| self.expr(t));
        self.scopes.pop();
        self.arrays.pop();
        value
    }

    /// The value each part of `pat` takes from `init`, element by element where both are
    /// tuples (`let (a, b) = (255u8, 1);`, which rustc sees through), all computed before
    /// any is bound (`let (a, b) = (1, a);` reads the outer `a`).
    fn let_values<'p>(&mut self, pat: &'p Pat, init: &Expr, values: &mut Vec<(&'p Pat, Option<i128>)>) {
        match (pat, &init.kind) {
            (Pat::Tuple(pats, _), ExprKind::Tuple(elems)) if pats.len() == elems.len() => {
                for (p, e) in pats.iter().zip(elems) {
                    self.let_values(p, e, values);
                }
            }
            _ => {
                let value = self.expr(init);
                values.push((pat, value));
            }
        }
    }

    fn exprs<'e>(&mut self, es: impl IntoIterator<Item = &'e Expr>) {
        for e in es {
            self.expr(e);
        }
    }

    fn place(&mut self, place: &Place) {
        if let Place::Index { slice, index } = place {
            self.index(slice, index);
        }
    }

    /// The expression's value when it is an integer constant; reports an overflow inside.
    fn expr(&mut self, e: &Expr) -> Option<i128> {
        crate::deep(|| self.expr_at_depth(e))
    }

    fn expr_at_depth(&mut self, e: &Expr) -> Option<i128> {
        match &e.kind {
            ExprKind::Lit(Lit::Int { value, .. }) => {
                // A literal past its type is the checker's error already, but for `MIN`'s
                // magnitude, which `-` makes `MIN`.
                let ty = self.scalar(e)?;
                let (_, max) = ty.int_range();
                let v = i128::try_from(*value).ok()?;
                (v <= max + i128::from(ty.is_signed_int())).then_some(v)
            }
            ExprKind::Const { ty, path } => {
                let (lo, hi) = ty.is_int().then(|| ty.int_range())?;
                match path.segments.last()?.ident.to_string().as_str() {
                    "MAX" => Some(hi),
                    "MIN" => Some(lo),
                    // `u8::BITS` (a `u32`): the width of the type it names.
                    "BITS" => {
                        let owner = path.segments.iter().rev().nth(1)?.ident.to_string();
                        Some(i128::from(Scalar::from_name(&owner)?.bits()))
                    }
                    _ => None,
                }
            }
            ExprKind::Path(name) => {
                self.scalar(e)?;
                self.lookup(&name.to_string())
            }
            // Its value is the item's, which the kernel does not see.
            ExprKind::ItemConst(_) => None,
            ExprKind::Unary(op, x) => {
                let v = self.expr(x)?;
                let ty = self.scalar(e)?;
                match op {
                    UnOp::Neg if ty.is_signed_int() => {
                        self.in_range(e, ty, -v, || format!("negate `{v}_{}`", ty.name()))
                    }
                    UnOp::Neg => None,
                    UnOp::Not => Some(wrap(!v, ty)),
                }
            }
            ExprKind::Binary(BinOp::And | BinOp::Or, ..) => {
                self.truth(e);
                None
            }
            ExprKind::Binary(op, a, b) => {
                let (va, vb) = (self.expr(a), self.expr(b));
                let ty = self.scalar(e)?;
                if vb.is_some_and(|v| self.always_fails(*op, ty, v, b)) {
                    return None;
                }
                let (va, vb) = (va?, vb?);
                let (lo, _) = ty.int_range();
                let shown = || format!("compute `{va}_{0} {1} {vb}_{0}`", ty.name(), op.symbol());
                match op {
                    BinOp::Add => self.in_range(e, ty, va + vb, shown),
                    BinOp::Sub => self.in_range(e, ty, va - vb, shown),
                    BinOp::Mul => va.checked_mul(vb).and_then(|v| self.in_range(e, ty, v, shown)),
                    BinOp::Div | BinOp::Rem if ty.is_signed_int() && va == lo && vb == -1 => {
                        self.in_range(e, ty, -lo, shown).map(|_| 0)
                    }
                    BinOp::Div => Some(va / vb),
                    BinOp::Rem => Some(va % vb),
                    BinOp::Shl => Some(wrap(va << vb, ty)),
                    BinOp::Shr => Some(va >> vb),
                    BinOp::BitAnd => Some(va & vb),
                    BinOp::BitOr => Some(va | vb),
                    BinOp::BitXor => Some(va ^ vb),
                    _ => None,
                }
            }
            ExprKind::Cast(x, to) => {
                let v = self.expr(x)?;
                self.scalar(x)?;
                to.is_int().then(|| wrap(v, *to))
            }
            ExprKind::Block(b) => self.block(b),
            ExprKind::Assign(place, value) => {
                self.place(place);
                self.expr(value);
                // A whole local array assigned an array of another length, both written out:
                // rustc's type error (where the macro cannot count it, a launch fault).
                if let Place::Local(name) = place {
                    if let (Some(want), Some(found)) =
                        (self.length_of(&name.to_string()), self.array_len(value))
                    {
                        if want != found {
                            self.errors.at(
                                value.span,
                                format!(
                                    "mismatched types: expected an array with a size of {want}, found one with a \
                                     size of {found} (`{name}` has {want} elements)"
                                ),
                            );
                        }
                    }
                }
                None
            }
            ExprKind::CompoundAssign(op, place, value) => {
                self.place(place);
                // A divisor has the target's type; a shift amount's limit is the target's
                // width, whatever the amount's own type.
                let target = if op.is_shift() {
                    self.shift_targets.get(&value.id).copied()
                } else {
                    self.scalar(value)
                };
                if let (Some(v), Some(ty)) = (self.expr(value), target) {
                    self.always_fails(*op, ty, v, value);
                }
                None
            }
            ExprKind::Index { slice, index } => {
                self.index(slice, index);
                None
            }
            ExprKind::Field(x, _) => {
                self.expr(x);
                None
            }
            ExprKind::TypeCall { args, .. }
            | ExprKind::Intrinsic { args, .. }
            | ExprKind::Print { args, .. } => {
                self.exprs(args);
                None
            }
            ExprKind::MethodCall { receiver, args, .. } => {
                self.expr(receiver);
                self.exprs(args);
                None
            }
            // An arm that a known condition rules out never runs: not looked into.
            ExprKind::If { cond, then, els, .. } => {
                let known = self.truth(cond);
                if known == Some(false) {
                    self.in_dead_code(|f| f.block(then));
                } else {
                    self.block(then);
                }
                match (els, known) {
                    (Some(els), Some(true)) => {
                        self.in_dead_code(|f| f.expr(els));
                    }
                    (Some(els), _) => {
                        self.expr(els);
                    }
                    (None, _) => {}
                }
                None
            }
            ExprKind::While { cond, body, .. } => {
                self.expr(cond);
                self.block(body);
                None
            }
            ExprKind::Loop { body, .. } | ExprKind::Labeled { body, .. } => {
                self.block(body);
                None
            }
            ExprKind::Coverage { .. } => None,
            ExprKind::Deref(inner) => self.expr(inner),
            ExprKind::DebugOnly(check) => {
                self.expr(check);
                None
            }
            ExprKind::For { var, range, body, .. } => {
                self.expr(&range.start);
                self.expr(&range.end);
                if let Some(step) = &range.step {
                    self.expr(step);
                }
                self.scopes.push(Vec::new());
                self.arrays.push(Vec::new());
                if let Some(var) = var {
                    self.bind(&Pat::Ident { name: var.clone(), mutable: false }, None);
                }
                self.block(body);
                self.scopes.pop();
                self.arrays.pop();
                None
            }
            ExprKind::Break { value, .. } => {
                if let Some(v) = value {
                    self.expr(v);
                }
                None
            }
            ExprKind::Tuple(elems) | ExprKind::Array(elems) => {
                self.exprs(elems);
                None
            }
            ExprKind::Repeat { value, len } => {
                self.expr(value);
                self.expr(len);
                None
            }
            ExprKind::SubSlice { slice, start, end, .. } => {
                self.expr(slice);
                for bound in [start, end].into_iter().flatten() {
                    self.expr(bound);
                }
                None
            }
            ExprKind::Shared { len, .. } => {
                if let Some(len) = len {
                    self.expr(len);
                }
                None
            }
            ExprKind::Atomic { place, args, .. } => {
                self.place(place);
                self.exprs(args);
                None
            }
            ExprKind::Vector { index, values, .. } => {
                self.expr(index);
                if let Some(v) = values {
                    self.expr(v);
                }
                None
            }
            ExprKind::Lit(_)
            | ExprKind::Builtin(_)
            | ExprKind::Continue { .. }
            | ExprKind::Return
            | ExprKind::Panic { .. }
            | ExprKind::Deferred
            | ExprKind::Error => None,
        }
    }

    /// Whether `op` with the constant right operand `rhs` (of value `value`) always fails
    /// whatever its left operand, on `ty`: a shift amount outside the width, a zero divisor.
    /// rustc rejects both (`arithmetic_overflow`, `unconditional_panic`), a literal
    /// (`x << 40`) or a constant local (`let s = 32; x << s`).
    fn always_fails(&mut self, op: BinOp, ty: Scalar, value: i128, rhs: &Expr) -> bool {
        let Some(message) = always_failing(op, ty, value.unsigned_abs(), value < 0) else { return false };
        self.lint(rhs.span, message);
        true
    }

    /// Reports one of rustc's lints at `sp`, unless the code cannot run ([`Folder::dead`]).
    fn lint(&mut self, sp: Sp, message: String) {
        if self.dead == 0 {
            self.errors.at(sp, message);
        }
    }

    /// Visits code that cannot run with `visit`: its type errors are reported, its lints not.
    fn in_dead_code<R>(&mut self, visit: impl FnOnce(&mut Self) -> R) -> R {
        self.dead += 1;
        let r = visit(self);
        self.dead -= 1;
        r
    }

    /// The value of the condition `e` when it is known (a `bool` literal, a comparison of
    /// integer constants, `!`, `&&` and `||` of such); the right operand of `&&` or `||` that
    /// the left one decides never runs, and is visited as such ([`Folder::in_dead_code`]).
    fn truth(&mut self, e: &Expr) -> Option<bool> {
        match &e.kind {
            ExprKind::Lit(Lit::Bool(b)) => Some(*b),
            ExprKind::Unary(UnOp::Not, x) => self.truth(x).map(|b| !b),
            ExprKind::Block(Block { stmts, tail: Some(tail), .. }) if stmts.is_empty() => self.truth(tail),
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                let left = self.truth(a);
                let decides = *op == BinOp::Or;
                if left == Some(decides) {
                    self.in_dead_code(|f| f.truth(b));
                    return left;
                }
                let right = self.truth(b);
                left.and(right)
            }
            ExprKind::Binary(op, a, b) if op.is_comparison() => {
                let (va, vb) = (self.expr(a), self.expr(b));
                let (va, vb) = (va?, vb?);
                Some(match op {
                    BinOp::Eq => va == vb,
                    BinOp::Ne => va != vb,
                    BinOp::Lt => va < vb,
                    BinOp::Le => va <= vb,
                    BinOp::Gt => va > vb,
                    _ => va >= vb,
                })
            }
            _ => {
                self.expr(e);
                None
            }
        }
    }

    /// `value` when it fits `ty`; else the overflow of the operation `what` is reported.
    fn in_range(&mut self, e: &Expr, ty: Scalar, value: i128, what: impl FnOnce() -> String) -> Option<i128> {
        let (lo, hi) = ty.int_range();
        if (lo..=hi).contains(&value) {
            return Some(value);
        }
        self.lint(
            e.span,
            format!("this arithmetic operation will overflow: attempt to {}, which would overflow", what()),
        );
        None
    }
}

/// The error of `op` on `ty` with a constant right operand `amount` (written `-amount`
/// when `negated`) that fails whatever the left operand is, as rustc reports it: a shift
/// amount outside the width, a zero divisor. `None` when it does not always fail.
pub fn always_failing(op: BinOp, ty: Scalar, amount: u128, negated: bool) -> Option<String> {
    Some(match op {
        BinOp::Shl | BinOp::Shr if negated || amount >= u128::from(ty.bits()) => format!(
            "this shift always overflows: the amount {}{amount} is outside 0..{} for `{}` (Rust rejects it)",
            if negated { "-" } else { "" },
            ty.bits(),
            ty.name()
        ),
        BinOp::Div if amount == 0 => {
            format!(
                "this operation always panics: attempt to divide `{}` by zero (Rust rejects it)",
                ty.name()
            )
        }
        BinOp::Rem if amount == 0 => format!(
            "this operation always panics: attempt to calculate the remainder of `{}` with a divisor of zero \
             (Rust rejects it)",
            ty.name()
        ),
        _ => return None,
    })
}

/// `v` as a value of the integer type `ty` (two's complement truncation).
fn wrap(v: i128, ty: Scalar) -> i128 {
    let bits = ty.bits();
    let masked = v & ((1i128 << bits) - 1);
    if ty.is_signed_int() && masked >= 1i128 << (bits - 1) {
        masked - (1i128 << bits)
    } else {
        masked
    }
}
