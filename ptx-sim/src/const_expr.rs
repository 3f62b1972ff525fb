//! PTX's integer constant expressions (the PTX ISA's "Constant Expressions" and "Integer
//! Constant Expression Evaluation"): what an instruction's integer immediate, an address
//! offset (`[%rd1+2*4]`, `gv+0x8`) and a variable's initial value may be written as.
//!
//! Operands are integer literals in every form [`int_literal`] reads (`42`, `0x2A`, `052`,
//! `0b101010`, `42U`) and `WARP_SZ`; operators are C's, with C's precedence: parentheses,
//! the casts `(.s64)` and `(.u64)`, unary `+ - ! ~`, binary `* / % + - << >> < > <= >= == !=
//! & ^ | && ||` and `?:`. Every value is 64 bits, signed (`.s64`) or unsigned (`.u64`) by
//! the ISA's rules:
//!
//! - a literal is signed unless it has the `U` suffix or is too large for `.s64`;
//! - unary `+` and `-` keep their operand's type, `!` gives a signed 0 or 1, `~` an unsigned
//!   value;
//! - `* / + - & ^ |` and `?:`'s two values take "the usual arithmetic conversions": unsigned
//!   when either operand is, the result of that type;
//! - `%` reads both operands as unsigned, and its result is unsigned (ptxas 13.5:
//!   `((-2) % (-1)) >> 63` is 1);
//! - `<<` and `>>` keep the first operand's type and read the count as unsigned, modulo 64
//!   as ptxas does (`1 << 64` is 1); `>>` is arithmetic on a signed value and logical on an
//!   unsigned one;
//! - comparisons compare by the converted type; they, `&&` and `||` give a signed 0 or 1.
//!
//! Arithmetic wraps (`9223372036854775807 + 1` is the least `.s64`; so is
//! `(-9223372036854775807 - 1) / -1`, on which ptxas 13.5 dies of SIGFPE); division or
//! remainder by zero is an error, also in an operand that is not selected
//! (ptxas evaluates every operand of `&&`, `||` and `?:`). A floating-point operand is an
//! error naming it: the simulator evaluates integer expressions only. Parentheses and `?:`
//! nest at most [`MAX_DEPTH`] deep, so that pathological input is refused, not a stack
//! overflow.

use crate::literal::{float_literal, int_literal};

/// How deeply parenthesised subexpressions and `?:` may nest (the evaluator recurses once
/// per level; compilers write a handful).
pub(crate) const MAX_DEPTH: usize = 256;

/// The value of `WARP_SZ`, PTX's predefined constant: every GPU's warp has 32 lanes.
const WARP_SZ: u64 = 32;

/// An integer constant: its 64 bits, and whether they are read as `.u64` (else `.s64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntConst {
    /// The value's two's-complement bits.
    pub(crate) bits: u64,
    /// Whether the value is unsigned (`.u64`) rather than signed (`.s64`).
    pub(crate) unsigned: bool,
}

impl IntConst {
    /// A signed value.
    fn signed(bits: u64) -> IntConst {
        IntConst { bits, unsigned: false }
    }

    /// A signed 0 or 1: what comparisons and logical operators give.
    fn truth(b: bool) -> IntConst {
        IntConst::signed(u64::from(b))
    }

    /// Its value as its type reads it: `bits` for an unsigned one, their two's complement
    /// for a signed one.
    pub(crate) fn value(self) -> i128 {
        if self.unsigned {
            i128::from(self.bits)
        } else {
            i128::from(self.bits as i64)
        }
    }

    /// Whether the value fits a `bits`-bit operand, read either way: from `-2^(bits-1)` to
    /// `2^bits - 1` as its own type or as a signed value (`-1U` fits `.u32`, as `-1` does).
    pub(crate) fn fits(self, bits: u32) -> bool {
        let lo = -(1i128 << (bits.clamp(2, 64) - 1));
        let hi = (1i128 << bits.min(64)) - 1;
        [self.value(), i128::from(self.bits as i64)].iter().any(|v| (lo..=hi).contains(v))
    }
}

/// Evaluates the integer constant expression `text`; the error says what is wrong with it
/// (and names `text`).
pub(crate) fn int_const(text: &str) -> Result<IntConst, String> {
    let text = text.trim();
    let toks = lex(text).map_err(|e| format!("constant expression `{text}`: {e}"))?;
    if let [Tok::Name(name)] = toks.as_slice() {
        return Err(format!("unknown name `{name}`"));
    }
    let mut p = Parser { toks, pos: 0, depth: 0 };
    p.expression()
        .and_then(|v| match p.toks.get(p.pos) {
            None => Ok(v),
            Some(t) => Err(format!("`{}` after a complete expression", t.text())),
        })
        .map_err(|e| format!("constant expression `{text}`: {e}"))
}

/// Whether `text` reads as an expression with a floating-point operand (`1.5 * 2`,
/// `-(0f3F800000)`): what an integer operand cannot take, and what the simulator does not
/// evaluate.
pub(crate) fn mentions_float(text: &str) -> bool {
    lex(text.trim()).is_ok_and(|toks| toks.iter().any(|t| matches!(t, Tok::Float(_))))
}

/// `name+expr` (what PTX writes for an address into a variable or array, `gv+0x8`,
/// `k_param_0+8`): the name, when it is one, and the offset's value (two's complement for a
/// negative one, `gv+-8`). `None` where `tok` has no `+` or starts with no name.
pub(crate) fn symbol_offset(tok: &str) -> Option<(&str, Result<u64, String>)> {
    let (name, offset) = tok.split_once('+')?;
    let name = name.trim();
    is_name(name).then(|| (name, int_const(offset).map(|c| c.bits)))
}

/// Whether `tok` is a name (a register, `%p1`, a variable, one declared without `%`), not
/// a constant (`WARP_SZ` is PTX's).
pub(crate) fn is_name(tok: &str) -> bool {
    let mut chars = tok.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || "_$%".contains(c))
        && chars.all(|c| c.is_ascii_alphanumeric() || "_$".contains(c))
        && tok != "WARP_SZ"
}

/// A token of a constant expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok<'a> {
    /// An integer literal or `WARP_SZ`.
    Int(IntConst),
    /// A floating-point literal (`1.5`, `0f3F800000`), which it does not evaluate.
    Float(&'a str),
    /// A name other than `WARP_SZ` (a register, a variable), which is no constant.
    Name(&'a str),
    /// `(.s64)` (false) or `(.u64)` (true).
    Cast(bool),
    /// An operator or a parenthesis.
    Punct(&'static str),
}

impl Tok<'_> {
    /// How it reads in errors.
    fn text(&self) -> String {
        match self {
            Tok::Int(c) if c.unsigned => format!("{}U", c.bits),
            Tok::Int(c) => c.bits.to_string(),
            Tok::Float(s) | Tok::Name(s) => (*s).to_string(),
            Tok::Cast(true) => "(.u64)".into(),
            Tok::Cast(false) => "(.s64)".into(),
            Tok::Punct(p) => (*p).to_string(),
        }
    }
}

/// The operators and parentheses, two-character ones first.
const PUNCT: [&str; 24] = [
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "%", "<", ">", "&", "^", "|", "!",
    "~", "?", ":", "(", ")",
];

/// The tokens of `text`, or what is no token of a constant expression.
fn lex(text: &str) -> Result<Vec<Tok<'_>>, String> {
    let mut toks = Vec::new();
    let mut rest = text.trim_start();
    while let Some(c) = rest.chars().next() {
        let (tok, len) =
            if c.is_ascii_digit() || (c == '.' && rest[1..].starts_with(|d: char| d.is_ascii_digit())) {
                number(rest)?
            } else if c.is_ascii_alphabetic() || "_$".contains(c) || (c == '%' && starts_name(&rest[1..])) {
                let len = 1 + rest[1..]
                    .find(|d: char| !(d.is_ascii_alphanumeric() || "_$".contains(d)))
                    .unwrap_or(rest.len() - 1);
                let name = &rest[..len];
                (if name == "WARP_SZ" { Tok::Int(IntConst::signed(WARP_SZ)) } else { Tok::Name(name) }, len)
            } else if let Some((unsigned, len)) = cast(rest) {
                (Tok::Cast(unsigned), len)
            } else if let Some(p) = PUNCT.iter().find(|p| rest.starts_with(**p)) {
                (Tok::Punct(p), p.len())
            } else {
                return Err(format!("unexpected `{c}`"));
            };
        toks.push(tok);
        rest = rest[len..].trim_start();
    }
    Ok(toks)
}

/// Whether `s` starts like a name's rest (`%r1`, `%0`: ptxas reads `%` before a letter or
/// digit as part of a name, so `7%3` is no remainder).
fn starts_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphanumeric() || "_$".contains(c))
}

/// `(.s64)` or `(.u64)` at the start of `s` (spaces allowed inside): whether it is `.u64`,
/// and its length.
fn cast(s: &str) -> Option<(bool, usize)> {
    let inner = s.strip_prefix('(')?.trim_start();
    let unsigned = match inner.get(..4)? {
        ".u64" => true,
        ".s64" => false,
        _ => return None,
    };
    let after = inner[4..].trim_start().strip_prefix(')')?;
    Some((unsigned, s.len() - after.len()))
}

/// The number at the start of `s` (it starts with a digit, or `.` and a digit): its token
/// and length. A literal runs over letters, digits and `.`, and a decimal one's exponent
/// sign (`1e-3`).
fn number(s: &str) -> Result<(Tok<'_>, usize), String> {
    let word_end = |from: usize| {
        s[from..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '.')).map_or(s.len(), |k| from + k)
    };
    let mut len = word_end(0);
    let hexlike = matches!(s.get(..2), Some("0x" | "0X" | "0f" | "0F" | "0d" | "0D"));
    if !hexlike && s[..len].ends_with(['e', 'E']) && s[len..].starts_with(['+', '-']) {
        len = word_end(len + 1);
    }
    let word = &s[..len];
    if let Some(v) = int_literal(word) {
        let bits = v as u64;
        let unsigned = word.ends_with('U') || bits > i64::MAX as u64;
        return Ok((Tok::Int(IntConst { bits, unsigned }), len));
    }
    let hex_float = |p: [&str; 2], n: usize| {
        p.iter().any(|p| word.starts_with(p))
            && word.len() == n + 2
            && word[2..].bytes().all(|c| c.is_ascii_hexdigit())
    };
    if hex_float(["0f", "0F"], 8) || hex_float(["0d", "0D"], 16) || float_literal(word).is_some() {
        return Ok((Tok::Float(word), len));
    }
    Err(format!("malformed number `{word}`"))
}

/// The binary operators by precedence, lowest first (C's: `||` binds least, `* / %` most).
const LEVELS: [&[&str]; 10] = [
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<", ">", "<=", ">="],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

/// A recursive-descent evaluator over the tokens, which counts how deeply it has recursed.
struct Parser<'a> {
    toks: Vec<Tok<'a>>,
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    /// The next token, if any.
    fn peek(&self) -> Option<Tok<'a>> {
        self.toks.get(self.pos).copied()
    }

    /// Consumes punctuation `p` if it comes next.
    fn eat(&mut self, p: &str) -> bool {
        let next = matches!(self.peek(), Some(Tok::Punct(q)) if q == p);
        self.pos += usize::from(next);
        next
    }

    /// What comes next, for errors.
    fn next_text(&self) -> String {
        self.peek().map_or_else(|| "its end".into(), |t| format!("`{}`", t.text()))
    }

    /// A whole expression: a conditional, `c ? a : b` (right-associative), or one without
    /// `?:`. Each call is one level of nesting ([`MAX_DEPTH`]).
    fn expression(&mut self) -> Result<IntConst, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("nested more than {MAX_DEPTH} levels deep"));
        }
        let cond = self.binary(0)?;
        let v = if self.eat("?") {
            let a = self.expression()?;
            if !self.eat(":") {
                return Err(format!("expected the `:` of a `?:`, found {}", self.next_text()));
            }
            let b = self.expression()?;
            let (a, b) = usual(a, b);
            if cond.bits != 0 {
                a
            } else {
                b
            }
        } else {
            cond
        };
        self.depth -= 1;
        Ok(v)
    }

    /// Binary operators of precedence `level` ([`LEVELS`]) and above, left-associative
    /// (precedence climbing: it recurses once per operator of higher precedence on the
    /// right, at most `LEVELS.len()` deep).
    fn binary(&mut self, level: usize) -> Result<IntConst, String> {
        let mut lhs = self.unary()?;
        while let Some((op, op_level)) = self.binary_operator(level) {
            self.pos += 1;
            let rhs = self.binary(op_level + 1)?;
            lhs = binary_op(op, lhs, rhs)?;
        }
        Ok(lhs)
    }

    /// The binary operator next, if it binds at `level` or tighter: it and its level.
    fn binary_operator(&self, level: usize) -> Option<(&'static str, usize)> {
        let Some(Tok::Punct(p)) = self.peek() else { return None };
        let op_level = LEVELS.iter().position(|ops| ops.contains(&p))?;
        (op_level >= level).then_some((p, op_level))
    }

    /// Unary operators and casts (any number, applied right to left) before an operand: a
    /// loop, not a recursion, so a long run of them costs no stack.
    fn unary(&mut self) -> Result<IntConst, String> {
        let start = self.pos;
        while matches!(self.peek(), Some(Tok::Cast(_) | Tok::Punct("+" | "-" | "!" | "~"))) {
            self.pos += 1;
        }
        let prefixes = start..self.pos;
        let mut v = self.primary()?;
        for k in prefixes.rev() {
            v = match self.toks[k] {
                Tok::Cast(unsigned) => IntConst { bits: v.bits, unsigned },
                Tok::Punct("-") => IntConst { bits: v.bits.wrapping_neg(), ..v },
                Tok::Punct("!") => IntConst::truth(v.bits == 0),
                Tok::Punct("~") => IntConst { bits: !v.bits, unsigned: true },
                _ => v,
            };
        }
        Ok(v)
    }

    /// A literal or a parenthesised expression.
    fn primary(&mut self) -> Result<IntConst, String> {
        let Some(tok) = self.peek() else {
            return Err("an operand missing at its end".into());
        };
        self.pos += 1;
        match tok {
            Tok::Int(v) => Ok(v),
            Tok::Punct("(") => {
                let v = self.expression()?;
                if !self.eat(")") {
                    return Err(format!("expected `)`, found {}", self.next_text()));
                }
                Ok(v)
            }
            Tok::Float(f) => Err(format!(
                "`{f}` is a floating-point number; the simulator evaluates integer constant expressions only"
            )),
            Tok::Name(n) if n.starts_with('%') => Err(format!(
                "`{n}` is no constant (ptxas reads `%` before a letter or digit as a register's name; a \
                 remainder is `a % b`)"
            )),
            Tok::Name(n) => Err(format!("`{n}` is no constant")),
            other => Err(format!("expected an operand, found `{}`", other.text())),
        }
    }
}

/// The usual arithmetic conversions: both unsigned when either is.
fn usual(a: IntConst, b: IntConst) -> (IntConst, IntConst) {
    let unsigned = a.unsigned || b.unsigned;
    (IntConst { unsigned, ..a }, IntConst { unsigned, ..b })
}

/// `a op b` for a binary operator `op`, by the ISA's rules (see the module's comment).
fn binary_op(op: &str, a: IntConst, b: IntConst) -> Result<IntConst, String> {
    let (x, y) = usual(a, b);
    let unsigned = x.unsigned;
    let (sx, sy) = (x.bits as i64, y.bits as i64);
    let value = |bits| IntConst { bits, unsigned };
    if matches!(op, "/" | "%") && y.bits == 0 {
        return Err(format!("{} by zero", if op == "/" { "division" } else { "remainder" }));
    }
    Ok(match op {
        "+" => value(x.bits.wrapping_add(y.bits)),
        "-" => value(x.bits.wrapping_sub(y.bits)),
        "*" => value(x.bits.wrapping_mul(y.bits)),
        "/" if unsigned => value(x.bits / y.bits),
        "/" => value(sx.wrapping_div(sy) as u64),
        "%" => IntConst { bits: x.bits % y.bits, unsigned: true },
        "<<" => IntConst { bits: a.bits << (b.bits % 64), ..a },
        ">>" if a.unsigned => IntConst { bits: a.bits >> (b.bits % 64), ..a },
        ">>" => IntConst { bits: ((a.bits as i64) >> (b.bits % 64)) as u64, ..a },
        "&" => value(x.bits & y.bits),
        "^" => value(x.bits ^ y.bits),
        "|" => value(x.bits | y.bits),
        "&&" => IntConst::truth(a.bits != 0 && b.bits != 0),
        "||" => IntConst::truth(a.bits != 0 || b.bits != 0),
        "==" => IntConst::truth(a.bits == b.bits),
        "!=" => IntConst::truth(a.bits != b.bits),
        _ => IntConst::truth(compare(op, x, y)),
    })
}

/// An ordered comparison `x op y` of two operands of one type (after the usual
/// conversions).
fn compare(op: &str, x: IntConst, y: IntConst) -> bool {
    let ord = if x.unsigned { x.bits.cmp(&y.bits) } else { (x.bits as i64).cmp(&(y.bits as i64)) };
    match op {
        "<" => ord.is_lt(),
        ">" => ord.is_gt(),
        "<=" => ord.is_le(),
        _ => ord.is_ge(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of `text` as its type reads it (the test's expressions are valid).
    fn v(text: &str) -> i128 {
        int_const(text).unwrap_or_else(|e| panic!("{e}")).value()
    }

    /// Whether `text` is unsigned.
    fn unsigned(text: &str) -> bool {
        int_const(text).unwrap_or_else(|e| panic!("{e}")).unsigned
    }

    #[test]
    fn literals_in_every_form() {
        assert_eq!(v("42"), 42);
        assert_eq!(v("0x2A"), 42);
        assert_eq!(v("0X2a"), 42);
        assert_eq!(v("052"), 42);
        assert_eq!(v("0b101010"), 42);
        assert_eq!(v("42U"), 42);
        assert_eq!(v("0"), 0);
        assert_eq!(v("WARP_SZ"), 32);
        assert_eq!(v("  ( 5 )  "), 5);
        assert_eq!(v("+5"), 5);
        assert_eq!(v("- -5"), 5);
        assert_eq!(v("-(-42)"), 42);
        assert_eq!(v("0xffffffffffffffff"), i128::from(u64::MAX));
    }

    /// Literals are signed unless they have `U` or do not fit `.s64`; `+ -` keep the type.
    #[test]
    fn literal_signedness_follows_the_isa() {
        assert!(!unsigned("42") && !unsigned("0x1234") && !unsigned("0123"));
        assert!(unsigned("0xfabc123400000000") && unsigned("42U") && unsigned("0x1234U"));
        assert!(unsigned("9223372036854775808") && !unsigned("9223372036854775807"));
        assert!(!unsigned("+123") && !unsigned("-1") && !unsigned("-(-42)"));
        assert!(unsigned("-1U") && unsigned("-0xfabc123400000000"));
        assert_eq!(v("-1U"), i128::from(u64::MAX));
        assert!(!unsigned("!5") && unsigned("~0"));
        assert!(unsigned("1 + 2U") && !unsigned("1 + 2"));
        assert!(!unsigned("1U < 2") && !unsigned("1U == 1") && !unsigned("1U && 1"));
        assert!(unsigned("-7 % 2") && unsigned("1U << 2") && !unsigned("1 << 2U"));
        assert!(unsigned("(.u64) 1") && !unsigned("(.s64) 1U") && !unsigned("( .s64 ) 1U"));
    }

    /// C's precedence and associativity (each value checked with ptxas 13.5).
    #[test]
    fn precedence_is_cs() {
        assert_eq!(v("(1 << 4) + 3"), 19);
        assert_eq!(v("1 << 4 + 3"), 128);
        assert_eq!(v("1 << 2 + 1"), 8);
        assert_eq!(v("2 + 3 * 4"), 14);
        assert_eq!(v("10 - 2 - 3"), 5);
        assert_eq!(v("100 / 10 / 5"), 2);
        assert_eq!(v("6 & 3 | 8"), 10);
        assert_eq!(v("1 | 2 ^ 3 & 4"), 3);
        assert_eq!(v("1 < 2 == 1"), 1);
        assert_eq!(v("2 ? 3 : 4 ? 5 : 6"), 3);
        assert_eq!(v("0 ? 3 : 0 ? 5 : 6"), 6);
        assert_eq!(v("1 ? 0 ? 7 : 8 : 9"), 8);
        assert_eq!(v("1 || 0 && 0"), 1);
        assert_eq!(v("-2 * -3"), 6);
        assert_eq!(v("!0 + ~0"), 0);
        assert_eq!(v("-(1 < 2)"), -1);
        assert_eq!(v("3+1"), 4);
        assert_eq!(v("2*2"), 4);
        assert_eq!(v("WARP_SZ * 2 - 1"), 63);
        assert_eq!(v("(.u64) -1 >> 60"), 15);
    }

    /// Division truncates toward zero when signed; `%` is unsigned; overflow wraps.
    #[test]
    fn arithmetic_by_type_and_wrapping() {
        assert_eq!(v("-7 / 2"), -3);
        assert_eq!(v("7 / -2"), -3);
        assert_eq!(v("-7U / 2"), i128::from((-7i64 as u64) / 2));
        assert_eq!(v("-7 % 2"), 1);
        assert_eq!(v("(-2) % (-1)"), i128::from(u64::MAX - 1));
        assert_eq!(v("7 % 3"), 1);
        assert_eq!(v("(-9223372036854775807 - 1) / -1"), i128::from(i64::MIN));
        assert_eq!(v("9223372036854775807 + 1"), i128::from(i64::MIN));
        assert_eq!(v("0xffffffffffffffff + 2"), 1);
        assert_eq!(v("4294967296 * 4294967296"), 0);
    }

    /// `>>` is arithmetic on signed values, logical on unsigned ones; counts are modulo 64.
    #[test]
    fn shifts_follow_the_first_operands_type() {
        assert_eq!(v("-1 >> 1"), -1);
        assert_eq!(v("-1U >> 1"), i128::from(u64::MAX >> 1));
        assert_eq!(v("-256 >> 4"), -16);
        assert_eq!(v("0x8000000000000000 >> 1"), 1 << 62);
        assert_eq!(v("1 << 63"), i128::from(i64::MIN));
        assert_eq!(v("1 << 64"), 1);
        assert_eq!(v("1 << 65"), 2);
        assert_eq!(v("(-256) >> 65"), -128);
        assert_eq!(v("1 << -1"), i128::from(i64::MIN));
        assert_eq!(v("((-2) % (-1)) >> 63"), 1);
    }

    /// Comparisons by the converted type; results signed 0 or 1.
    #[test]
    fn comparisons_by_type() {
        assert_eq!(v("-1 < 0"), 1);
        assert_eq!(v("-1 < 0U"), 0);
        assert_eq!(v("-1 < 1U"), 0);
        assert_eq!(v("~0 > 0"), 1);
        assert_eq!(v("(.s64) ~0 > 0"), 0);
        assert_eq!(v("-1 == 0xffffffffffffffff"), 1);
        assert_eq!(v("3 >= 3") + v("3 <= 2") + v("2 != 2"), 1);
        assert_eq!(v("(0 ? 1 : 1U) - 2 > 0"), 1);
        assert_eq!(v("(0 ? 1U : -1) >> 63"), 1);
    }

    /// Division and remainder by zero are errors, also where the operand is not selected.
    #[test]
    fn division_by_zero_is_an_error() {
        for e in ["1 / 0", "1 % 0", "5 / (3 - 3)", "0 && 1 / 0", "1 ? 2 : 1 % 0"] {
            let err = int_const(e).unwrap_err();
            assert!(err.contains("by zero") && err.contains(e), "{err}");
        }
    }

    #[test]
    fn malformed_expressions_are_errors_naming_them() {
        let err = |e: &str| int_const(e).unwrap_err();
        assert!(err("1 +").contains("missing"), "{}", err("1 +"));
        assert!(err("(1").contains("expected `)`"));
        assert!(err("1)").contains("after a complete expression"));
        assert!(err("1 2").contains("`2` after"));
        assert!(err("1 ? 2").contains("`:`"));
        assert!(err("1.5 + 2").contains("floating-point"));
        assert!(err("0f3F800000 * 2").contains("floating-point"));
        assert!(err("7%3").contains("`%3`"));
        assert!(err("12ab").contains("malformed number `12ab`"));
        assert!(err("1 # 2").contains("unexpected `#`"));
        assert_eq!(err("foo"), "unknown name `foo`");
        assert!(err("foo + 1").contains("`foo` is no constant"));
        assert!(err("").contains("missing"));
        assert!(err("18446744073709551616").contains("malformed number"));
    }

    /// Pathological nesting is refused with a message; long flat chains and runs of unary
    /// operators are evaluated (without deep recursion).
    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(int_const(&deep).unwrap_err().contains(&format!("more than {MAX_DEPTH} levels")));
        let ok = format!("{}1{}", "(".repeat(MAX_DEPTH - 1), ")".repeat(MAX_DEPTH - 1));
        assert_eq!(v(&ok), 1);
        let operators = format!("{}1{}", "2 * (1 + ".repeat(10_000), ")".repeat(10_000));
        assert!(int_const(&operators).unwrap_err().contains("levels"));
        let ternaries = "1 ? ".repeat(10_000) + "1" + &" : 0".repeat(10_000);
        assert!(int_const(&ternaries).unwrap_err().contains("levels"));
        assert_eq!(v(&format!("{}1", "-".repeat(10_001))), -1);
        assert_eq!(v(&vec!["1"; 10_000].join(" + ")), 10_000);
    }

    #[test]
    fn float_detection_and_symbol_offsets() {
        assert!(mentions_float("1.5 * 2") && mentions_float("-(0f3F800000)") && mentions_float("1e-3 + 1"));
        assert!(!mentions_float("1 + 2") && !mentions_float("%f1") && !mentions_float("1.5 #"));
        assert_eq!(symbol_offset("gv+0x8"), Some(("gv", Ok(8))));
        assert_eq!(symbol_offset("gv + 2*2"), Some(("gv", Ok(4))));
        assert_eq!(symbol_offset("gv+(4)"), Some(("gv", Ok(4))));
        assert_eq!(symbol_offset("gv+-8"), Some(("gv", Ok(8u64.wrapping_neg()))));
        assert!(symbol_offset("gv+1/0").is_some_and(|(_, r)| r.is_err()));
        assert_eq!(symbol_offset("1+2"), None);
        assert_eq!(symbol_offset("gv"), None);
        assert_eq!(symbol_offset("WARP_SZ+1"), None);
        assert!(is_name("%p1") && is_name("gv") && is_name("$x") && !is_name("WARP_SZ") && !is_name("1"));
    }

    /// Random strings over the expression alphabet (and a multi-byte character) are a value
    /// or an error, never a panic.
    #[test]
    fn arbitrary_text_never_panics() {
        let alphabet: Vec<char> = "0123456789xXUbB.()+-*/%<>=!&|^~?: eEfFdW_$sué".chars().collect();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let len = (state % 24) as usize;
            let text: String = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    alphabet[(state % alphabet.len() as u64) as usize]
                })
                .collect();
            let _ = int_const(&text);
            let _ = mentions_float(&text);
            let _ = symbol_offset(&text);
        }
    }

    /// What a `bits`-bit operand takes.
    #[test]
    fn fitting_an_operand_width() {
        let c = |t| int_const(t).unwrap();
        assert!(c("-1").fits(32) && c("-1U").fits(32) && c("0xffffffff").fits(32));
        assert!(!c("0x100000000").fits(32) && !c("-2147483649").fits(32));
        assert!(c("0xffffffffffffffff").fits(64) && c("-1").fits(64));
        assert!(c("255").fits(8) && !c("256").fits(8) && c("-128").fits(8) && !c("-129").fits(8));
    }
}
