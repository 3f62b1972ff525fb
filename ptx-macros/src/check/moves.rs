//! Rust's borrow rules for the `&mut` slices of a kernel, as rustc's borrow checker applies
//! them where the checker can follow them: a slice moved into another name (`let z = y;`,
//! `for v in y`) is not used again on a path after the move (E0382), and what a `for` loop
//! borrows is not written where the loop may go round again after the write (E0506). Code
//! after a statement that never ends is not checked, as rustc does not check it; where the
//! paths are beyond these rules (a move before a `break` reaching a later use) the checker
//! accepts rather than refuse valid code.

use super::Checker;
use crate::ast::*;
use crate::types::Ty;

/// A write to what a `for` loop borrows ([`Checker::pending_writes`]).
pub(super) struct PendingWrite {
    pub(super) binding: usize,
    /// The scope depth where it stands.
    pub(super) depth: usize,
    pub(super) at: Sp,
    pub(super) name: String,
}

/// A `&mut` slice moved by a `let` ([`Checker::moves`]).
pub(super) struct Moved {
    binding: usize,
    /// The moved slice's name.
    name: String,
    /// Where it went: a name (`z`), or `None` for a `for` loop over it (`for v in y`).
    into: Option<String>,
    at: Sp,
    arms: Vec<(usize, bool)>,
}

impl Checker<'_> {
    /// Reports the writes pending ([`Checker::pending_writes`]) to the bindings of `ended`,
    /// borrows of `for` loops whose bodies just ended (rustc's E0506).
    pub(super) fn report_writes_while_borrowed(&mut self, ended: &[usize]) {
        let (due, kept): (Vec<PendingWrite>, Vec<PendingWrite>) =
            std::mem::take(&mut self.pending_writes).into_iter().partition(|w| ended.contains(&w.binding));
        self.pending_writes = kept;
        for w in due {
            let name = &w.name;
            self.errors.at(
                w.at,
                format!(
                    "cannot assign to `{name}` while the `for` loop around it borrows it (rustc's E0506): \
                     loop over the indices instead, `for i in 0..{name}.len()`"
                ),
            );
        }
    }

    /// Records the `&mut` slices `let pat = init;` moves: a name of one bound to a name of
    /// the user's without a type (kernels have no `&mut [T]` annotation to reborrow with),
    /// or the copy a `for` loop over one takes (`for v in y` consumes the `&mut`).
    pub(super) fn note_moves(&mut self, pat: &Pat, init: &Expr) {
        if self.unreachable {
            return;
        }
        match (pat, &init.kind) {
            (Pat::Tuple(pats, _), ExprKind::Tuple(inits)) if pats.len() == inits.len() => {
                pats.iter().zip(inits).for_each(|(p, i)| self.note_moves(p, i));
            }
            (Pat::Ident { name, .. }, ExprKind::Path(source)) => {
                let into = if crate::desugar::is_taken_by_for(name) {
                    None
                } else if name.to_string().starts_with("__") {
                    // The macro's own names (`__ptx_arg0`, `__match_1`) hold a value for a moment.
                    return;
                } else {
                    Some(name.to_string())
                };
                let Some(binding) = self.binding[init.id] else { return };
                if matches!(self.infer.resolve(&self.types[init.id]), Ty::Slice { mutable: true, .. }) {
                    // Moved twice by one `let`: `let (p, q) = (y, y);`.
                    self.use_after_move(binding, source, init.span, false);
                    let arms = self.arms.clone();
                    self.moves.push(Moved { binding, name: source.to_string(), into, at: init.span, arms });
                }
            }
            _ => {}
        }
    }

    /// Reports a use of the binding `id` (at `sp`, named `name`) after a `let` moved it, on
    /// a path that can follow the move (not in another arm of an `if` or `match`).
    pub(super) fn use_after_move(&mut self, id: usize, name: &syn::Ident, sp: Sp, borrow: bool) {
        if self.discarding || self.unreachable {
            return;
        }
        let here = &self.arms;
        let other_arm = |arms: &[(usize, bool)]| {
            arms.iter().zip(here.iter()).find(|(a, b)| a != b).is_some_and(|(a, b)| a.0 == b.0)
        };
        let Some(m) = self.moves.iter().find(|m| m.binding == id && !other_arm(&m.arms)) else { return };
        let line = m.at.start.start().line;
        let (went, advice) = match &m.into {
            Some(into) => (format!("into `{into}`"), format!("use `{into}` from there on")),
            None => {
                ("into the `for` loop over it".to_string(), format!("loop over `{name}.iter()` to borrow it"))
            }
        };
        let what = if borrow { "borrow" } else { "use" };
        self.errors.at(
            sp,
            format!(
                "{what} of moved value: `{name}` (rustc's E0382): line {line} moved this `&mut` slice {went}, \
                 as a `&mut` is not `Copy`; {advice}"
            ),
        );
    }

    /// Reports the moves a loop's body made (those after the first `moves_before`) of
    /// bindings from outside it (ids below `bindings_before`) when the body can run to its
    /// end (`completes`): the next iteration moves them again (rustc's E0382).
    pub(super) fn moves_again(&mut self, moves_before: usize, bindings_before: usize, completes: bool) {
        if !completes || self.unreachable {
            return;
        }
        let repeated: Vec<(Sp, String)> = self.moves[moves_before..]
            .iter()
            .filter(|m| m.binding < bindings_before)
            .map(|m| (m.at, m.name.clone()))
            .collect();
        for (at, name) in repeated {
            self.errors.at(
                at,
                format!(
                    "use of moved value: `{name}` (rustc's E0382): this moves the `&mut` slice in each \
                     iteration of the loop, and a `&mut` is not `Copy`; move it before the loop, or index \
                     `{name}` here"
                ),
            );
        }
    }

    /// Forgets the moves an `if`'s or `match`'s arm (or a loop's body) made (those after the
    /// first `moves_before`) when it never ends (`return`, `break`, a panic: not `completes`):
    /// no path goes on from them (`if c { let z = y; ..; return; } y[0] = 1;` is valid). A
    /// move before a `break` does reach the code after the loop, which this leaves unchecked
    /// rather than refuse valid code.
    pub(super) fn forget_moves_of_diverging_arm(&mut self, moves_before: usize, completes: bool) {
        if !completes {
            self.moves.truncate(moves_before);
        }
    }

    /// [`Checker::use_after_move`] of the slice or array `name` indexes or names.
    pub(super) fn slice_use(&mut self, name: &syn::Ident) {
        if let Some(id) = self.binding_id(name) {
            self.use_after_move(id, name, Sp::of(name), true);
        }
    }
}
