//! PTX's numeric literals, shared by instruction immediates and variable initialisers.

use ptx_core::PtxType;

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

/// A decimal floating-point literal (`1.5`, `.5`, `1.`, `1e-3`, `-2.5E+2`): digits with a `.`
/// or an exponent (or both), optionally signed, read as the nearest double as the PTX ISA
/// says ("floating-point literals are ... represented as double"); `None` for anything else
/// (integers, `inf`, `nan`, hex).
pub(crate) fn float_literal(tok: &str) -> Option<f64> {
    let body = tok.strip_prefix(['-', '+']).unwrap_or(tok);
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let all_digits = |s: &str| s.bytes().all(|c| c.is_ascii_digit());
    let mantissa_ok =
        all_digits(int) && frac.is_none_or(all_digits) && int.len() + frac.map_or(0, str::len) > 0;
    let exp_ok = exp.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && all_digits(e)
    });
    if !mantissa_ok || !exp_ok || (frac.is_none() && exp.is_none()) {
        return None;
    }
    tok.parse().ok()
}

/// The bits of float literal `tok` as an `.f32` (`bits` 32: the double rounded to nearest
/// f32) or `.f64` value; `None` for other widths or what is no float literal.
pub(crate) fn float_literal_bits(tok: &str, bits: u32) -> Option<u64> {
    let v = float_literal(tok)?;
    match bits {
        32 => Some((v as f32).to_bits() as u64),
        64 => Some(v.to_bits()),
        _ => None,
    }
}

/// Why ptxas refuses decimal float literal `tok` as "Constant overflow" (whatever the
/// type: it reads every decimal as a double, with C's `strtod`, and refuses a result out of
/// range): a value past `f64::MAX` (`1e400`), or a nonzero one below the smallest normal
/// double (`1e-400`, `1e-310`, which round to zero or to a subnormal). `None` for a literal
/// in range, or what is no decimal float literal. (A subnormal written out exactly, over
/// 700 digits, ptxas takes; the simulator refuses it too.)
pub(crate) fn float_overflow(tok: &str) -> Option<String> {
    let v = float_literal(tok)?;
    let mantissa = tok.split(['e', 'E']).next().unwrap_or(tok);
    let nonzero = mantissa.bytes().any(|c| matches!(c, b'1'..=b'9'));
    (v.is_infinite() || (nonzero && v.abs() < f64::MIN_POSITIVE)).then(|| {
        format!(
            "constant overflow: `{tok}` is beyond the range of a double, as which PTX reads a float literal"
        )
    })
}

/// Whether `tok` is written as a float's bits: `0f` or `0d` (either case), then anything.
pub(crate) fn is_hex_float(tok: &str) -> bool {
    matches!(tok.get(..2), Some("0f" | "0F" | "0d" | "0D"))
}

/// The bits a `0f`/`0d` literal `tok` gives a value of type `ty`, as ptxas stores it in an
/// instruction's immediate and a variable's initial value alike: `0f` and 8 hex digits (an
/// f32's bits) as they are, zero-extended in a 64-bit value (`add.f64 %fd1, %fd2,
/// 0f3FC00000` adds the double of bits `0x3fc00000`); `0d` and 16 (an f64's) as they are,
/// or rounded to the nearest f32 (ties to even) in a 32-bit value (`0d3FF8000000000000` is
/// 1.5 in either). `None` for other digits, an integer type (ptxas: "Initial value type
/// mismatch", "Arguments mismatch") or a width other than 32 and 64 bits.
pub(crate) fn hex_float_bits(tok: &str, ty: PtxType) -> Option<u64> {
    let (digits, double) = match tok.get(..2)? {
        "0f" | "0F" => (8, false),
        "0d" | "0D" => (16, true),
        _ => return None,
    };
    let hex = &tok[2..];
    if ty.is_int() || hex.len() != digits || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let bits = u64::from_str_radix(hex, 16).ok()?;
    match (double, ty.bits()) {
        (true, 32) => Some(u64::from((f64::from_bits(bits) as f32).to_bits())),
        (_, 32 | 64) => Some(bits),
        _ => None,
    }
}
