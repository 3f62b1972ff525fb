//! `assert!`, `assert_eq!`, `assert_ne!` (and their `debug_` forms), `panic!`,
//! `unreachable!`, `todo!` and `unimplemented!` in a kernel: Rust's panic, with Rust's
//! message. `assert!(c)` becomes `if !(c) { <panic> }`; the panic records the message and
//! line as the launch's `Err(KernelPanic)` (in a checked kernel) and the thread stops, as a
//! panicking Rust thread does. A message is a plain string literal: the GPU does not format.

use syn::punctuated::Punctuated;

use super::{whole_source_text, Parser};
use crate::ast::*;

/// What a panic macro checks before it panics.
enum Check<'a> {
    /// `assert!(cond)`.
    Holds(&'a syn::Expr),
    /// `assert_eq!(a, b)` (`true`) or `assert_ne!(a, b)` (`false`).
    Equal(&'a syn::Expr, &'a syn::Expr, bool),
    /// `panic!()` and its siblings: always.
    Never,
}

/// The panics that always panic, whose value is `!`.
const NEVER: [&str; 4] = ["panic", "unreachable", "todo", "unimplemented"];

/// The name of `mac` when it is called as one of Rust's: `panic!`, or through the standard
/// library, `std::panic!`, `::core::assert!`.
fn std_macro_name(mac: &syn::Macro) -> Option<String> {
    let mut names = mac.path.segments.iter().map(|s| s.ident.to_string());
    match (names.next(), names.next(), names.next()) {
        (Some(name), None, None) if mac.path.leading_colon.is_none() => Some(name),
        (Some(root), Some(name), None) if root == "std" || root == "core" => Some(name),
        _ => None,
    }
}

/// Whether `mac` is a panic that always panics (`panic!`, `unreachable!`, `todo!`,
/// `unimplemented!`, also through `std::` or `core::`).
pub(crate) fn always_panics(mac: &syn::Macro) -> bool {
    std_macro_name(mac).is_some_and(|name| NEVER.contains(&name.as_str()))
}

impl Parser<'_> {
    /// The panic macro `mac` as an expression, or `None` when it is no panic macro.
    pub(super) fn panic_macro(&mut self, mac: &syn::Macro, sp: Sp) -> Option<Expr> {
        let name = std_macro_name(mac)?;
        // Only the assertions have `debug_` forms (`debug_panic!` is no macro of Rust's).
        let debug_only = name.starts_with("debug_assert");
        let name = if debug_only { &name["debug_".len()..] } else { name.as_str() };
        if !matches!(name, "assert" | "assert_eq" | "assert_ne") && !NEVER.contains(&name) {
            return None;
        }
        let parser = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        let args: Vec<syn::Expr> = match syn::parse::Parser::parse2(parser, mac.tokens.clone()) {
            Ok(args) => args.into_iter().collect(),
            Err(e) => {
                self.err(mac, format!("`{name}!`: {e}"));
                return Some(self.expr_of(ExprKind::Error, sp));
            }
        };
        let (check, rest) = match (name, args.as_slice()) {
            ("assert", [cond, rest @ ..]) => (Check::Holds(cond), rest),
            ("assert_eq" | "assert_ne", [a, b, rest @ ..]) => (Check::Equal(a, b, name == "assert_eq"), rest),
            ("assert" | "assert_eq" | "assert_ne", _) => {
                self.err(
                    mac,
                    format!(
                        "`{name}!` needs its {}",
                        if name == "assert" { "condition" } else { "two values" }
                    ),
                );
                return Some(self.expr_of(ExprKind::Error, sp));
            }
            (_, rest) => (Check::Never, rest),
        };
        let text = match rest {
            [] => None,
            [syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. })]
                if unescape(&s.value()).is_some() =>
            {
                unescape(&s.value())
            }
            _ => {
                self.err(
                    mac,
                    format!(
                        "a panic's message in a kernel is one plain string literal, without `{{}}` \
                         arguments (the GPU does not format): `{name}!(.., \"what went wrong\")`"
                    ),
                );
                return Some(self.expr_of(ExprKind::Error, sp));
            }
        };
        let message = rust_message(name, &check, text);
        let panic = self.expr_of(ExprKind::Panic { message }, sp);
        let holds = match check {
            Check::Never => return Some(panic),
            Check::Holds(cond) => self.expr(cond),
            Check::Equal(a, b, equal) => {
                let (a, b) = (self.expr(a), self.expr(b));
                let op = if equal { BinOp::Eq } else { BinOp::Ne };
                let span = a.span.to(b.span);
                self.expr_of(ExprKind::Binary(op, Box::new(a), Box::new(b)), span)
            }
        };
        let span = holds.span;
        let failed = self.expr_of(ExprKind::Unary(UnOp::Not, Box::new(holds)), span);
        let then = Block {
            stmts: Vec::new(),
            tail: Some(Box::new(panic)),
            tail_text: String::new(),
            function_body: false,
            span: sp,
        };
        let check =
            self.expr_of(ExprKind::If { cond: Box::new(failed), then, els: None, role: IfRole::Written }, sp);
        Some(if debug_only { self.expr_of(ExprKind::DebugOnly(Box::new(check)), sp) } else { check })
    }
}

/// The message Rust's macro `name` panics with (before any values it formats).
fn rust_message(name: &str, check: &Check<'_>, text: Option<String>) -> String {
    let with = |head: &str| match &text {
        Some(t) => format!("{head}: {t}"),
        None => head.to_string(),
    };
    match (name, check) {
        ("assert", Check::Holds(cond)) => {
            text.unwrap_or_else(|| format!("assertion failed: {}", whole_source_text(cond)))
        }
        ("assert_eq", _) => with("assertion `left == right` failed"),
        ("assert_ne", _) => with("assertion `left != right` failed"),
        ("unreachable", _) => with("internal error: entered unreachable code"),
        ("todo", _) => with("not yet implemented"),
        ("unimplemented", _) => with("not implemented"),
        _ => text.unwrap_or_else(|| "explicit panic".to_string()),
    }
}

/// A format string without arguments as the text it prints (`{{` and `}}` are `{` and `}`),
/// or `None` where it has a `{}` to fill.
fn unescape(format: &str) -> Option<String> {
    let mut text = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if matches!(c, '{' | '}') && chars.next() != Some(c) {
            return None;
        }
        text.push(c);
    }
    Some(text)
}
