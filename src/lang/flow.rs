//! Control flow: labels and branches for `if`, loops, `break`, `continue` and `return`.
//! The macro lays the blocks out; these are the primitives it uses.

use ptx_core::fault::FaultKind;
use ptx_core::{Label, Pred};

use super::ops::Site;
use super::{KernelCtx, Value};

impl KernelCtx {
    /// A new label, placed later with [`Self::place`].
    pub fn label(&mut self) -> Label {
        self.b.label()
    }

    /// Places `label` here.
    pub fn place(&mut self, label: Label) {
        self.known.clear();
        self.b.place(label);
    }

    /// Jumps to `label`.
    pub fn jump(&mut self, label: Label) {
        self.b.bra(label);
    }

    /// Jumps to `label` when the `bool` `cond` is true.
    pub fn jump_if(&mut self, cond: Value, label: Label) {
        self.b.bra_if(cond.typed::<Pred>(), label);
    }

    /// Jumps to `label` when the `bool` `cond` is false.
    pub fn jump_unless(&mut self, cond: Value, label: Label) {
        self.b.bra_unless(cond.typed::<Pred>(), label);
    }

    /// `return`: this thread is done.
    pub fn ret(&mut self) {
        self.b.ret();
    }

    /// `panic!(message)` at `site`: recorded as the launch's `Err(KernelPanic)` (a checked
    /// kernel), and the thread stops, as a panicking Rust thread does.
    pub fn panic(&mut self, message: &'static str, site: Site) {
        self.fault_here(site.fault(FaultKind::Panic, message), Value::from(0u64), Value::from(0u64));
        self.b.ret();
    }

    /// `if cond { return; }`: a branch to the kernel's final `ret` when the `bool` `cond`
    /// is true.
    pub fn return_if(&mut self, cond: Value) {
        let exit = *self.exit.get_or_insert_with(|| self.b.label());
        self.b.bra_if(cond.typed::<Pred>(), exit);
    }

    /// Checks a `step_by` amount the way Rust does: a zero step panics in Rust, so it is a
    /// fault at `site` in a checked kernel; in any kernel the loop is then skipped (jump to
    /// `exit`) rather than spinning forever.
    pub fn check_step(&mut self, step: Value, site: Site, exit: Label) {
        let zero = self.cast(Value::from(0u32), step.ty());
        let is_zero = self.eq(step, zero);
        self.panic_if(is_zero, site, "assertion failed: step != 0");
        self.jump_if(is_zero, exit);
    }

    /// Whether the `#[unroll]` loop at `site` may unroll one more copy: the kernel's copies
    /// of unrolled bodies and its instructions are each within
    /// [`ptx_core::verify::MAX_INSTRUCTIONS`]. Past either, the loop stops unrolling and
    /// the builder refuses the kernel there, so that a runaway count (of empty copies too)
    /// ends in the verifier's error naming the loop's line at launch, not in a build that
    /// does not end.
    pub fn unroll_copy(&mut self, site: Site) -> bool {
        const LIMIT: usize = ptx_core::verify::MAX_INSTRUCTIONS;
        // The message below spells the limit.
        const _: () = assert!(LIMIT == 262_144);
        self.unrolled_copies += 1;
        if self.unrolled_copies <= LIMIT && self.b.instruction_count() <= LIMIT {
            return true;
        }
        self.b.refuse(
            "this `#[unroll]` loop unrolls past 262144 copies or instructions: unroll a smaller count, or \
             make it a runtime loop (without `#[unroll]`)",
            Some(ptx_core::fault::location(site.file, site.line, site.column)),
        );
        false
    }

    /// Checks the comptime `step_by` amount of an `#[unroll]` loop: zero, which panics in
    /// Rust, is a fault at `site` (in a checked kernel) like [`Self::check_step`]'s, and the
    /// loop is skipped. Returns whether to unroll the loop.
    pub fn unrolled_step_ok(&mut self, step: usize, site: Site) -> bool {
        if step != 0 {
            return true;
        }
        let skip = self.label();
        self.check_step(Value::from(0u64), site, skip);
        self.place(skip);
        false
    }

    /// Whether a reversed `for` loop, `(start..end).rev()` stepping down by `step`, is done
    /// after the iteration with variable `i`: `i - start < step`, computed without overflow
    /// as Rust's iterators do. When it is not done, `i - step` is at least `start`.
    pub fn range_done_before(&mut self, i: Value, start: Value, step: Value) -> Value {
        let (left, step) = self.distance_and_step(i, start, step);
        self.lt(left, step)
    }

    /// The last value of `(start..=top).step_by(step)` (`start <= top`, `step` not zero),
    /// where `(start..end).step_by(step).rev()` begins: `start + (top - start) / step *
    /// step`, computed without overflow.
    pub fn range_last_stepped(&mut self, start: Value, top: Value, step: Value) -> Value {
        let (left, step) = self.distance_and_step(top, start, step);
        let steps = self.div_defined(left, step);
        let offset = self.mul(steps, step);
        let offset = self.cast(offset, start.ty());
        self.add(start, offset)
    }

    /// `high - low` (a loop variable's distance to a bound, `high >= low`) and `step`, both
    /// as the wider of their unsigned types: `step_by` takes a `usize`, which may exceed
    /// every value of a narrower loop variable (then one step ends the loop).
    fn distance_and_step(&mut self, high: Value, low: Value, step: Value) -> (Value, Value) {
        let left = self.sub(high, low);
        let left = self.cast(left, high.ty().unsigned());
        let step_ty = step.ty().unsigned();
        let wide = if step_ty.bits() > left.ty().bits() { step_ty } else { left.ty() };
        (self.cast(left, wide), self.cast(step, wide))
    }

    /// Whether a `for` loop over `..end` (or `..=end` when `inclusive`) stepping by `step`
    /// (of the loop variable's type, or `step_by`'s `usize`) is done after the iteration
    /// with variable `i`, computed without overflow as Rust's range iterators do:
    /// `end - i <= step` (`< step` for an inclusive range, where `i == end` also ends it).
    /// When it is not done, `step` is below `end - i` and fits the variable's type.
    pub fn range_done_after(&mut self, i: Value, end: Value, step: Value, inclusive: bool) -> Value {
        if !inclusive && step.as_bits() == Some(1) {
            // `i < end` held, so `i + 1` cannot overflow: the loop head's test decides.
            return Value::from(false);
        }
        let (left, step) = self.distance_and_step(end, i, step);
        if inclusive {
            self.lt(left, step)
        } else {
            self.le(left, step)
        }
    }
}
