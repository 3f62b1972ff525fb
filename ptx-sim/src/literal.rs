//! PTX's numeric literals, shared by instruction immediates and variable initialisers.

/// An integer literal as the PTX ISA writes it: an optional leading `-`, then hexadecimal
/// `0[xX][0-9a-fA-F]+`, binary `0[bB][01]+`, octal `0[0-7]+` or decimal `[1-9][0-9]*` (and
/// `0`), then an optional `U` suffix. `None` for anything else, or a magnitude beyond 64 bits.
pub(crate) fn int_literal(tok: &str) -> Option<i128> {
    let (neg, body) = match tok.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, tok),
    };
    let body = body.strip_suffix('U').unwrap_or(body);
    let (digits, radix) = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
        (b, 2)
    } else if body.len() > 1 && body.starts_with('0') {
        (&body[1..], 8)
    } else {
        (body, 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let v = u64::from_str_radix(digits, radix).ok()? as i128;
    Some(if neg { -v } else { v })
}
