//! `printf` on the simulator: the CUDA runtime's `vprintf(format, args)` takes the format
//! string and a buffer of the arguments, each at its natural alignment (`float`s promoted to
//! `double`, as C's varargs do); this formats them as C's `printf` does.

/// An argument source: the next `size`-byte argument (at its alignment), or `None` when
/// the buffer cannot be read; and a string at an address, for `%s`.
pub(crate) trait Args {
    /// The next argument of `size` bytes.
    fn next(&mut self, size: u64) -> Option<u64>;
    /// The NUL-terminated string at `addr`.
    fn string(&mut self, addr: u64) -> Option<Vec<u8>>;
}

/// Formats `fmt` with `args`: the text and the number of arguments consumed. A conversion
/// the formatter does not know is copied as written; an argument that cannot be read
/// prints as `<?>`.
pub(crate) fn format(fmt: &[u8], args: &mut dyn Args) -> (String, u32) {
    // Bytes, decoded as UTF-8 at the end: the format's text is UTF-8 (`ünï`), one byte each.
    let mut out: Vec<u8> = Vec::new();
    let mut used = 0;
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            out.push(c);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut flags = String::new();
        while i < fmt.len() && b"-+ #0".contains(&fmt[i]) {
            flags.push(fmt[i] as char);
            i += 1;
        }
        let number = |i: &mut usize| {
            let s = *i;
            while *i < fmt.len() && fmt[*i].is_ascii_digit() {
                *i += 1;
            }
            std::str::from_utf8(&fmt[s..*i]).ok().and_then(|t| t.parse::<usize>().ok())
        };
        let width = number(&mut i);
        let precision = if i < fmt.len() && fmt[i] == b'.' {
            i += 1;
            Some(number(&mut i).unwrap_or(0))
        } else {
            None
        };
        let (mut long, mut short) = (0, 0);
        while i < fmt.len() && b"hlzjt".contains(&fmt[i]) {
            if fmt[i] == b'h' {
                short += 1;
            } else {
                long += 1;
            }
            i += 1;
        }
        // `%hd` and `%hhd`: the promoted `int` printed as a `short` or a `char`.
        let narrow_bits = match (long, short) {
            (0, 1) => 16,
            (0, 2..) => 8,
            _ => 64,
        };
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        i += 1;
        let int_size = if long > 0 { 8 } else { 4 };
        let text = match conv {
            b'%' => Some("%".to_string()),
            b'd' | b'i' => args.next(int_size).map(|v| {
                let v = if int_size == 4 { v as u32 as i32 as i64 } else { v as i64 };
                let v = if narrow_bits < 64 { v << (64 - narrow_bits) >> (64 - narrow_bits) } else { v };
                signed(v, &flags, precision)
            }),
            b'u' | b'x' | b'X' | b'o' => args.next(int_size).map(|v| {
                let v = if int_size == 4 { v & 0xffff_ffff } else { v };
                let v = if narrow_bits < 64 { v & ((1 << narrow_bits) - 1) } else { v };
                let digits = match conv {
                    b'u' => v.to_string(),
                    b'x' => format!("{v:x}"),
                    b'X' => format!("{v:X}"),
                    _ => format!("{v:o}"),
                };
                let digits = pad_precision(digits, precision);
                match (flags.contains('#'), conv) {
                    (true, b'x') if v != 0 => format!("0x{digits}"),
                    (true, b'X') if v != 0 => format!("0X{digits}"),
                    _ => digits,
                }
            }),
            b'c' => args.next(4).map(|v| (v as u8 as char).to_string()),
            b'p' => args.next(8).map(|v| format!("0x{v:x}")),
            b's' => args.next(8).map(|p| {
                let s = args
                    .string(p)
                    .map_or_else(|| "<?>".to_string(), |b| String::from_utf8_lossy(&b).into_owned());
                match precision {
                    Some(n) => s.chars().take(n).collect(),
                    None => s,
                }
            }),
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                args.next(8).map(|v| float(f64::from_bits(v), conv, &flags, precision))
            }
            _ => {
                out.extend_from_slice(&fmt[start..i]);
                continue;
            }
        };
        if conv != b'%' {
            used += 1;
        }
        let text = text.unwrap_or_else(|| "<?>".to_string());
        out.extend_from_slice(pad_width(text, width, &flags, conv).as_bytes());
    }
    (String::from_utf8_lossy(&out).into_owned(), used)
}

/// The sign a number prints with: `-`, or for others `+` or a space as the flags ask.
fn sign(negative: bool, flags: &str) -> &'static str {
    if negative {
        "-"
    } else if flags.contains('+') {
        "+"
    } else if flags.contains(' ') {
        " "
    } else {
        ""
    }
}

/// A signed decimal with the `+`/space flags and a minimum number of digits.
fn signed(v: i64, flags: &str, precision: Option<usize>) -> String {
    let digits = pad_precision(v.unsigned_abs().to_string(), precision);
    format!("{}{digits}", sign(v < 0, flags))
}

/// At least `precision` digits, with leading zeros.
fn pad_precision(digits: String, precision: Option<usize>) -> String {
    match precision {
        Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
        _ => digits,
    }
}

/// Pads to `width`: on the right with `-`, with zeros after the sign with `0` (numbers
/// only), else with spaces on the left.
fn pad_width(text: String, width: Option<usize>, flags: &str, conv: u8) -> String {
    let Some(w) = width.filter(|&w| w > text.chars().count()) else { return text };
    let fill = w - text.chars().count();
    if flags.contains('-') {
        format!("{text}{}", " ".repeat(fill))
    } else if flags.contains('0') && !matches!(conv, b's' | b'c' | b'%') {
        let split = text.find(|c: char| c.is_ascii_digit()).unwrap_or(0);
        format!("{}{}{}", &text[..split], "0".repeat(fill), &text[split..])
    } else {
        format!("{}{text}", " ".repeat(fill))
    }
}

/// `%f`, `%e`, `%g`, `%a` (and upper case) as C prints them.
/// C's `%a` of a finite `a >= 0`: `0x1.8p+1` (normal), `0x0.0000000000001p-1022`
/// (subnormal), `0x0p+0`; the fraction's trailing zeros dropped, or rounded to nearest even
/// at `precision` hex digits.
fn hex_float(a: f64, precision: Option<usize>) -> String {
    let bits = a.to_bits();
    let (mut lead, mut fraction, exp) = match (bits >> 52, bits & ((1 << 52) - 1)) {
        (0, 0) => (0u64, 0u64, 0i64),
        (0, m) => (0, m, -1022),
        (e, m) => (1, m, e as i64 - 1023),
    };
    let mut digits = 13;
    if let Some(p) = precision.filter(|&p| p < 13) {
        let drop = 4 * (13 - p) as u32;
        let (kept, rest, half) = (fraction >> drop, fraction & ((1 << drop) - 1), 1u64 << (drop - 1));
        let up = rest > half || (rest == half && kept & 1 == 1);
        fraction = kept + up as u64;
        if fraction >> (4 * p) != 0 {
            lead += 1;
            fraction &= (1 << (4 * p)) - 1;
        }
        digits = p;
    }
    let mut hex = if digits == 0 { String::new() } else { format!("{fraction:0digits$x}") };
    // More digits than a double has: zeros, as C pads them.
    if let Some(p) = precision.filter(|&p| p > 13) {
        hex.push_str(&"0".repeat(p - 13));
    }
    if precision.is_none() {
        hex.truncate(hex.trim_end_matches('0').len());
    }
    let point = if hex.is_empty() { "" } else { "." };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("0x{lead}{point}{hex}p{sign}{}", exp.abs())
}

fn float(v: f64, conv: u8, flags: &str, precision: Option<usize>) -> String {
    let upper = conv.is_ascii_uppercase();
    let p = precision.unwrap_or(6);
    let sign = sign(v.is_sign_negative(), flags);
    let a = v.abs();
    let body = if a.is_nan() {
        "nan".to_string()
    } else if a.is_infinite() {
        "inf".to_string()
    } else {
        match conv.to_ascii_lowercase() {
            b'f' => format!("{a:.p$}"),
            b'e' => exponent(a, p),
            b'a' => hex_float(a, precision),
            _ => {
                // %g: %e if the exponent is below -4 or at least the precision, else %f,
                // with trailing zeros removed.
                let p = p.max(1);
                let x = if a == 0.0 { 0 } else { a.log10().floor() as i32 };
                let x = if a != 0.0 && format!("{:.*e}", p - 1, a).contains("e") {
                    format!("{:.*e}", p - 1, a).split('e').nth(1).and_then(|e| e.parse().ok()).unwrap_or(x)
                } else {
                    x
                };
                let s = if x < -4 || x >= p as i32 {
                    exponent(a, p - 1)
                } else {
                    format!("{a:.*}", (p as i32 - 1 - x).max(0) as usize)
                };
                if flags.contains('#') {
                    s
                } else {
                    trim_zeros(&s)
                }
            }
        }
    };
    let body = if upper { body.to_ascii_uppercase() } else { body };
    format!("{sign}{body}")
}

/// `d.ddde±XX` with `p` digits after the point.
fn exponent(a: f64, p: usize) -> String {
    let s = format!("{a:.p$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    format!("{mantissa}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// Removes trailing zeros after a decimal point (and the point), keeping any exponent.
fn trim_zeros(s: &str) -> String {
    let (num, exp) = match s.find('e') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let num = if num.contains('.') { num.trim_end_matches('0').trim_end_matches('.') } else { num };
    format!("{num}{exp}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arguments from a list of (size, bits) and strings by address.
    struct List(Vec<u64>, Vec<(u64, &'static str)>);

    impl Args for List {
        fn next(&mut self, _size: u64) -> Option<u64> {
            if self.0.is_empty() {
                None
            } else {
                Some(self.0.remove(0))
            }
        }
        fn string(&mut self, addr: u64) -> Option<Vec<u8>> {
            self.1.iter().find(|(a, _)| *a == addr).map(|(_, s)| s.as_bytes().to_vec())
        }
    }

    fn f(fmt: &str, args: Vec<u64>) -> String {
        format(fmt.as_bytes(), &mut List(args, vec![(0x1000, "hello")])).0
    }

    #[test]
    fn formats_as_c_printf_does() {
        assert_eq!(f("%d %i %u", vec![(-5i32) as u32 as u64, 7, 0xffff_ffff]), "-5 7 4294967295");
        assert_eq!(
            f("[%5d|%-5d|%05d|%+d]", vec![42, 42, (-42i32) as u32 as u64, 3]),
            "[   42|42   |-0042|+3]"
        );
        assert_eq!(f("%x %X %#x %o %.3d", vec![255, 255, 255, 8, 7]), "ff FF 0xff 10 007");
        assert_eq!(f("%ld %llu", vec![(-1i64) as u64, u64::MAX]), "-1 18446744073709551615");
        assert_eq!(f("%c%s%%", vec![b'>' as u64, 0x1000]), ">hello%");
        assert_eq!(f("%.2s|%8s", vec![0x1000, 0x1000]), "he|   hello");
        let d = |v: f64| v.to_bits();
        assert_eq!(f("%f %.2f %8.3f", vec![d(1.5), d(-2.345), d(4.56789)]), "1.500000 -2.35    4.568");
        assert_eq!(f("%e %E", vec![d(12345.678), d(0.00012)]), "1.234568e+04 1.200000E-04");
        assert_eq!(f("%g %g %g %g", vec![d(100000.0), d(1e6), d(0.0001), d(0.5)]), "100000 1e+06 0.0001 0.5");
        assert_eq!(f("%f %f", vec![d(f64::INFINITY), d(f64::NAN)]), "inf nan");
        assert_eq!(format(b"%d %d", &mut List(vec![1, 2], vec![])).1, 2);
        assert_eq!(f("%d %d", vec![1]), "1 <?>");
        assert_eq!(f("%q", vec![]), "%q");
        assert_eq!(f("ünïcode %d ✓", vec![3]), "ünïcode 3 ✓");
    }

    /// Values glibc's `printf` gives for the same formats.
    #[test]
    fn short_lengths_and_hex_floats_as_glibc_prints_them() {
        assert_eq!(f("%hd %hhd %hu %hhx", vec![0x3ff8_0000, 0x1ff, 0x1_0005, 0x1234]), "0 -1 5 34");
        let d = |v: f64| v.to_bits();
        let got = f("%a %a %a %A %a", vec![d(1.0), d(-3.0), d(0.1), d(255.5), d(0.0)]);
        assert_eq!(got, "0x1p+0 -0x1.8p+1 0x1.999999999999ap-4 0X1.FFP+7 0x0p+0");
        assert_eq!(
            f("%a %.1a %.0a", vec![d(f64::from_bits(1)), d(1.96875), d(1.75)]),
            "0x0.0000000000001p-1022 0x2.0p+0 0x2p+0"
        );
        assert_eq!(f("%.15a", vec![d(1.5)]), "0x1.800000000000000p+0");
    }
}
