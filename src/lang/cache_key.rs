//! The text a kernel's module-cache key holds for each constant of the surrounding code the
//! kernel reads: its `Debug` form, or nothing for a value of a type without one (a constant
//! the kernel cannot use anyway, whose own type error rustc reports at the user's code),
//! chosen by method resolution ("autoref specialisation") so that the generated code never
//! adds an error of its own about `Debug`.

use std::fmt::Debug;

/// A constant's value, whose `.key()` is [`ByDebug::key`] where it is `Debug`, else
/// [`NoKey::key`]: call it as `(&ConstantKey(&VALUE)).key()` with both traits in scope.
pub struct ConstantKey<'a, T: ?Sized>(pub &'a T);

/// The key of a `Debug` value: its `Debug` text.
pub trait ByDebug {
    /// The value's `Debug` text.
    fn key(&self) -> String;
}

impl<T: Debug + ?Sized> ByDebug for ConstantKey<'_, T> {
    fn key(&self) -> String {
        format!("{:?}", self.0)
    }
}

/// The key of any other value: empty (found only through one more reference, so a `Debug`
/// value takes [`ByDebug`]'s).
pub trait NoKey {
    /// Nothing.
    fn key(&self) -> String;
}

impl<T: ?Sized> NoKey for &ConstantKey<'_, T> {
    fn key(&self) -> String {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Opaque;

    #[test]
    #[allow(clippy::needless_borrow)] // the form the generated code writes
    fn debug_values_give_their_text_and_others_nothing() {
        assert_eq!((&ConstantKey(&[1u32, 2])).key(), "[1, 2]");
        assert_eq!((&ConstantKey(&2.5f32)).key(), "2.5");
        assert_eq!((&ConstantKey(&Opaque)).key(), "");
    }
}
