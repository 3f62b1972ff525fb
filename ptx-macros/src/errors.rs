//! Error collection: every stage reports into one [`Errors`], so that independent mistakes
//! are all shown at once, each as a `compile_error!` at its own span.

use proc_macro2::{Punct, Spacing, TokenStream, TokenTree};
use std::fmt::Display;

use crate::ast::Sp;

/// A `syn::Error` covering the whole range `sp`.
pub fn error(sp: Sp, message: impl Display) -> syn::Error {
    let mut first = Punct::new('.', Spacing::Alone);
    first.set_span(sp.start);
    let mut last = Punct::new('.', Spacing::Alone);
    last.set_span(sp.end);
    let range: TokenStream = [TokenTree::from(first), TokenTree::from(last)].into_iter().collect();
    syn::Error::new_spanned(range, message)
}

/// The errors found so far.
#[derive(Default)]
pub struct Errors {
    list: Vec<syn::Error>,
}

impl Errors {
    /// Records an error covering `sp`.
    pub fn at(&mut self, sp: Sp, message: impl Display) {
        self.push(error(sp, message));
    }

    /// Records an error from syn, unless the same message at the same place is recorded
    /// already (a device function's recursion is found from each function of the cycle).
    pub fn push(&mut self, error: syn::Error) {
        let place = |e: &syn::Error| format!("{:?}", e.span());
        if !self.list.iter().any(|e| e.to_string() == error.to_string() && place(e) == place(&error)) {
            self.list.push(error);
        }
    }

    /// Takes over the errors of `other`, after its own.
    pub fn extend(&mut self, other: Errors) {
        for e in other.list {
            self.push(e);
        }
    }

    /// Whether nothing has been recorded.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The errors as `compile_error!` invocations, in the order they were found.
    pub fn to_tokens(&self) -> TokenStream {
        self.list.iter().map(syn::Error::to_compile_error).collect()
    }
}
