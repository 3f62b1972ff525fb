//! Rust's rules for a `let` without a value (`let v: f32;`, then `v = ..` in each arm), as
//! rustc's borrow checker applies them: the name is read only where every path to the read
//! assigned it (E0381), and a name without `mut` is assigned at most once on any path
//! (E0384). The checker follows the paths as it walks the body: an `if` or `match` arm that
//! never ends (`return`, `break`, a panic) takes no part where the arms meet; a condition
//! built of `&&`, `||` and `!` knows what it assigned where it is true and where it is false
//! (`if a && { v = 1; true } { v }` reads an assigned `v`, as does a `match` arm after its
//! guard); the body of a `while` or `for` loop may not run; a `loop` is left by its
//! `break`s. What `debug_assert!` assigns does not count after it (release builds leave it
//! out).

use super::Checker;
use crate::ast::*;
use crate::types::{Ty, VarKind};

/// A `let` without a value ([`Checker::deferred`]).
pub(super) struct Deferred {
    binding: usize,
    name: syn::Ident,
    /// Whether it was written `let mut`.
    mutable: bool,
    ty: Ty,
}

/// What the path being checked knows of the names of `let`s without a value: those it may
/// not have assigned, and those without `mut` it may have. Where paths meet, each set is the
/// union of theirs; a path that never ends adds nothing (both sets empty).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Assigned {
    maybe_unassigned: Vec<usize>,
    maybe_assigned: Vec<usize>,
}

impl Assigned {
    /// Joins `here`, the state at a `break` or `continue`, into what its loop has seen.
    pub(super) fn record(seen: &mut Option<Assigned>, here: Assigned) {
        *seen = Some(match seen.take() {
            Some(before) => before.join(&here),
            None => here,
        });
    }

    /// What is known where the paths of `self` and `other` meet.
    pub(super) fn join(mut self, other: &Assigned) -> Assigned {
        let add = |into: &mut Vec<usize>, from: &[usize]| {
            for &b in from {
                if !into.contains(&b) {
                    into.push(b);
                }
            }
        };
        add(&mut self.maybe_unassigned, &other.maybe_unassigned);
        add(&mut self.maybe_assigned, &other.maybe_assigned);
        self
    }
}

/// Where a `while` loop's condition is false: what the path knew before its first test, and
/// after that test where it was false.
pub(super) struct ConditionExit {
    pub(super) before: Assigned,
    pub(super) when_false: Assigned,
}

impl ConditionExit {
    /// What is known where the loop ends: its first test false, or a later one, made from
    /// `next_iteration` (the test's own assignments where false are those it made the first
    /// time).
    pub(super) fn after(self, next_iteration: &Assigned) -> Assigned {
        let assigned_by_test: Vec<usize> = self
            .before
            .maybe_unassigned
            .iter()
            .copied()
            .filter(|b| !self.when_false.maybe_unassigned.contains(b))
            .collect();
        let mut later = next_iteration.clone();
        later.maybe_unassigned.retain(|b| !assigned_by_test.contains(b));
        self.when_false.join(&later)
    }
}

impl Checker<'_> {
    /// `let name;` or `let name: T;` (`annot`'s type): a variable of that type (or of the
    /// type its assignments give), unassigned.
    pub(super) fn deferred_let(&mut self, name: &syn::Ident, mutable: bool, annot: Option<Ty>, at: Sp) -> Ty {
        let ty = match annot {
            Some(Ty::Array(_)) => {
                self.errors.at(
                    at,
                    "a local array gets its value in its `let` in kernels (`let a = [0.0f32; 4];`), then its \
                     elements are assigned",
                );
                Ty::Error
            }
            Some(ty) => ty,
            None => self.infer.fresh(VarKind::Any),
        };
        // Bound as a variable (assignments are checked here, not as `mut`'s).
        let binding = self.bind(name, ty.clone(), true, false);
        self.deferred.push(Deferred { binding, name: name.clone(), mutable, ty: ty.clone() });
        self.assigned.maybe_unassigned.push(binding);
        ty
    }

    /// The `let` without a value that binding `id` is, if it is one.
    fn deferred_binding(&self, id: usize) -> Option<&Deferred> {
        self.deferred.iter().find(|d| d.binding == id)
    }

    /// A read of binding `id` at `sp`: E0381 where a path to it did not assign it.
    pub(super) fn read_deferred(&mut self, id: usize, sp: Sp) {
        if self.unreachable || !self.assigned.maybe_unassigned.contains(&id) {
            return;
        }
        let Some(d) = self.deferred_binding(id) else { return };
        let name = d.name.to_string();
        self.errors.at(
            sp,
            format!(
                "used binding `{name}` is possibly-uninitialized (rustc's E0381): a path to this read does not \
                 assign it; assign it in every arm before (or give it its value where it is declared, `let {name} \
                 = if .. {{ .. }} else {{ .. }};`)"
            ),
        );
        // Reported once.
        self.assigned.maybe_unassigned.retain(|&b| b != id);
    }

    /// An assignment to binding `id` (the whole of it) at `sp`: E0384 where one without
    /// `mut` may be assigned already.
    pub(super) fn assign_deferred(&mut self, id: usize, sp: Sp) {
        let Some(d) = self.deferred_binding(id) else { return };
        let (mutable, name) = (d.mutable, d.name.to_string());
        if !mutable && self.assigned.maybe_assigned.contains(&id) && !self.unreachable {
            self.errors.at(
                sp,
                format!(
                    "cannot assign twice to immutable variable `{name}` (rustc's E0384): a path to here assigned \
                     it already; declare it `let mut {name}`"
                ),
            );
        }
        self.assigned.maybe_unassigned.retain(|&b| b != id);
        if !mutable && !self.assigned.maybe_assigned.contains(&id) {
            self.assigned.maybe_assigned.push(id);
        }
        if !mutable {
            self.deferred_assignments.push((id, sp));
        }
    }

    /// Reports the assignments a loop's body made (those after the first
    /// `assignments_before`) to names without `mut` bound before the loop (ids below
    /// `bindings_before`) that may be assigned where the next iteration starts
    /// (`next_iteration`): it assigns them again (E0384).
    pub(super) fn assigned_again(
        &mut self,
        assignments_before: usize,
        bindings_before: usize,
        next_iteration: &Assigned,
    ) {
        if self.unreachable {
            return;
        }
        let again: Vec<(usize, Sp)> = self.deferred_assignments[assignments_before..]
            .iter()
            .filter(|(id, _)| *id < bindings_before && next_iteration.maybe_assigned.contains(id))
            .copied()
            .collect();
        for (id, at) in again {
            let Some(name) = self.deferred_binding(id).map(|d| d.name.to_string()) else { continue };
            self.errors.at(
                at,
                format!(
                    "cannot assign twice to immutable variable `{name}` (rustc's E0384): the loop assigns it in \
                     each iteration; declare it `let mut {name}`"
                ),
            );
        }
    }

    /// An assignment to part of binding `id` (`v.0 = ..`, a `field`; or `v += ..`) at `sp`: a
    /// read of it, and a second assignment where it has no `mut` (E0594 for a field).
    pub(super) fn update_deferred(&mut self, id: usize, sp: Sp, field: bool) {
        let Some(d) = self.deferred_binding(id) else { return };
        let (mutable, name) = (d.mutable, d.name.to_string());
        if self.assigned.maybe_unassigned.contains(&id) {
            self.read_deferred(id, sp);
            return;
        }
        if field && !mutable && !self.unreachable {
            self.errors.at(
                sp,
                format!(
                    "cannot assign to a field of `{name}`, as `{name}` is not declared as mutable (rustc's E0594); \
                     declare it `let mut {name}`"
                ),
            );
            return;
        }
        self.assign_deferred(id, sp);
    }

    /// What condition `id`, just checked, knows where it is true and where it is false: its
    /// own states for `&&`, `||`, `!` and a `match` guard of them, else the path's state for
    /// both.
    pub(super) fn condition_states(&mut self, id: usize) -> (Assigned, Assigned) {
        self.condition_states.remove(&id).unwrap_or_else(|| (self.assigned.clone(), self.assigned.clone()))
    }

    /// Where the path being checked meets another that knew `other`.
    pub(super) fn paths_meet(&mut self, other: &Assigned) {
        self.assigned = std::mem::take(&mut self.assigned).join(other);
    }

    /// The path being checked never goes on (a `return`, `break`, `continue` or panic).
    pub(super) fn path_ends(&mut self) {
        self.assigned = Assigned::default();
    }

    /// Reports each `let` without a value whose type nothing gave (rustc's E0282), or whose
    /// type is one only a `let` with its value binds (a slice, a local array).
    pub(super) fn report_untyped_deferred(&mut self) {
        let held: Vec<(syn::Ident, Ty)> = self
            .deferred
            .iter()
            .map(|d| (d.name.clone(), self.infer.resolve(&d.ty)))
            .filter(|(_, ty)| super::holds(ty, &|t| matches!(t, Ty::Slice { .. } | Ty::Dim3 | Ty::Array(_))))
            .collect();
        for (name, ty) in held {
            let shown = self.show(&ty);
            self.errors.at(
                Sp::of(&name),
                format!(
                    "`{name}` holds `{shown}`, which a kernel binds with its value (`let {name} = ..;`): a `let` \
                     without one holds numbers, `bool`s and tuples of them"
                ),
            );
        }
        let untyped: Vec<(syn::Ident, Ty)> = self
            .deferred
            .iter()
            .filter(|d| self.infer.var_kind(&d.ty) == Some(VarKind::Any))
            .map(|d| (d.name.clone(), d.ty.clone()))
            .collect();
        for (name, ty) in untyped {
            let _ = self.infer.unify(&ty, &Ty::Error);
            self.errors.at(
                Sp::of(&name),
                format!("type annotations needed (rustc's E0282): nothing assigns `{name}`; write its type, `let {name}: f32;`"),
            );
        }
    }
}
