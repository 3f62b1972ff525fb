//! `printf` on the simulator: the CUDA runtime's `vprintf(format, args)` takes the format
//! string and a buffer of the arguments, each at its natural alignment (`float`s promoted to
//! `double`, `char`s and `short`s to `int`, as C's varargs do); this formats them as glibc's
//! `printf` does.
//!
//! A conversion is `%[flags][width][.precision][length]conversion`: the conversions
//! `d i u o x X c s p f F e E g G a A %`, the flags `- + space # 0`, a width and a precision
//! written as digits or as `*` (an `int` argument read before the value: a negative width
//! left-justifies, a negative precision is as if omitted), and the length modifiers
//! `hh h l ll L z t j` (those of `c`, `s` and `p` are read past). A specification the
//! formatter does not know (an unknown conversion, a width beyond `int`, one cut off by the
//! end of the format) is copied as written and reads no argument.

/// An argument source: the next `size`-byte argument (at its alignment), or `None` when
/// the buffer cannot be read; and a string at an address, for `%s`.
pub(crate) trait Args {
    /// The next argument of `size` bytes.
    fn next(&mut self, size: u64) -> Option<u64>;
    /// The NUL-terminated string at `addr`.
    fn string(&mut self, addr: u64) -> Option<Vec<u8>>;
}

/// Formats `fmt` with `args`: the text and the number of arguments consumed (`*` widths
/// and precisions included). A specification the formatter does not know is copied as
/// written; an argument that cannot be read prints as `<?>`.
pub(crate) fn format(fmt: &[u8], args: &mut dyn Args) -> (String, u32) {
    // Bytes, decoded as UTF-8 at the end: the format's text is UTF-8 (`ünï`), and `%c` and
    // `%s` print bytes, as C's do.
    let mut out: Vec<u8> = Vec::new();
    let mut used = 0;
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        let len = match Spec::parse(&fmt[i + 1..]) {
            Ok((spec, len)) => {
                used += spec.print(args, &mut out);
                len
            }
            Err(len) => {
                out.extend_from_slice(&fmt[i..=i + len]);
                len
            }
        };
        i += 1 + len;
    }
    (String::from_utf8_lossy(&out).into_owned(), used)
}

/// The conversions the formatter knows.
const CONVERSIONS: &[u8] = b"diuoxXcspfFeEgGaA%";

/// The flags of a conversion specification.
#[derive(Clone, Copy, Debug, Default)]
struct Flags {
    /// `-`: justify on the left.
    left: bool,
    /// `+`: a `+` before non-negative numbers.
    plus: bool,
    /// ` `: a space before non-negative numbers (`+` wins).
    space: bool,
    /// `#`: the alternate form (`0x`, a leading octal `0`, a decimal point kept).
    alt: bool,
    /// `0`: pad numbers with zeros after their sign and prefix.
    zero: bool,
}

impl Flags {
    /// Sets the flag `c` stands for; false when it is no flag.
    fn set(&mut self, c: u8) -> bool {
        let flag = match c {
            b'-' => &mut self.left,
            b'+' => &mut self.plus,
            b' ' => &mut self.space,
            b'#' => &mut self.alt,
            b'0' => &mut self.zero,
            _ => return false,
        };
        *flag = true;
        true
    }
}

/// A width or precision as written: digits, or `*` for the next `int` argument.
#[derive(Clone, Copy, Debug)]
enum Count {
    /// Written as digits.
    Given(usize),
    /// `*`: the next `int` argument.
    Star,
}

/// One conversion specification, as written after its `%`.
#[derive(Debug)]
struct Spec {
    /// The flags, in any order and repeated as written.
    flags: Flags,
    /// The minimum width, if any.
    width: Option<Count>,
    /// The precision, if any (a bare `.` is 0).
    precision: Option<Count>,
    /// The bits of an integer argument as the length modifier names them: 8 (`hh`) and 16
    /// (`h`), promoted to `int` and printed narrowed; 32 (none: `int`); 64 (the others).
    bits: u32,
    /// The conversion character.
    conv: u8,
}

impl Spec {
    /// Parses the specification at the start of `text` (what follows a `%`): it and the
    /// bytes it spans, or `Err` with the bytes to copy as written when it is not one the
    /// formatter knows.
    fn parse(text: &[u8]) -> Result<(Spec, usize), usize> {
        let mut i = 0;
        let mut flags = Flags::default();
        while text.get(i).is_some_and(|&c| flags.set(c)) {
            i += 1;
        }
        let width = count(text, &mut i).ok_or(i)?;
        let precision = if text.get(i) == Some(&b'.') {
            i += 1;
            Some(count(text, &mut i).ok_or(i)?.unwrap_or(Count::Given(0)))
        } else {
            None
        };
        let bits = length(text, &mut i);
        match text.get(i) {
            Some(&conv) if CONVERSIONS.contains(&conv) => {
                Ok((Spec { flags, width, precision, bits, conv }, i + 1))
            }
            Some(_) => Err(i + 1),
            None => Err(i),
        }
    }

    /// Prints the conversion to `out`, reading its arguments from `args`: the number read.
    fn print(&self, args: &mut dyn Args, out: &mut Vec<u8>) -> u32 {
        // glibc prints `%%` as `%` whatever its flags and width.
        if self.conv == b'%' {
            out.push(b'%');
            return 0;
        }
        let mut used = 0;
        let width = resolve(self.width, args, &mut used);
        let precision = resolve(self.precision, args, &mut used);
        used += 1;
        let value = args.next(self.arg_size());
        let (Some(width), Some(precision), Some(value)) = (width, precision, value) else {
            out.extend_from_slice(b"<?>");
            return used;
        };
        let width = width.unwrap_or(0);
        let left = self.flags.left || width < 0;
        let precision = precision.and_then(|p| usize::try_from(p).ok());
        let mut field = self.field(value, precision, args);
        if self.conv.is_ascii_uppercase() {
            field.prefix.make_ascii_uppercase();
            field.body.make_ascii_uppercase();
        }
        field.pad(width.unsigned_abs() as usize, left, self.flags.zero, out);
        used
    }

    /// The bytes of the value's argument: 8 for pointers, doubles and 64-bit integers, else
    /// 4 (an `int`, or a `char` or `short` promoted to one).
    fn arg_size(&self) -> u64 {
        match self.conv {
            b'c' => 4,
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' if self.bits < 64 => 4,
            _ => 8,
        }
    }

    /// The value's text before padding, for a precision that is `None` when omitted.
    fn field(&self, v: u64, precision: Option<usize>, args: &mut dyn Args) -> Field {
        match self.conv {
            b'd' | b'i' => {
                let shift = 64 - self.bits;
                let v = ((v << shift) as i64) >> shift;
                let body = digits(v.unsigned_abs(), self.conv, precision);
                Field::number(sign(v < 0, self.flags), body, precision)
            }
            b'u' | b'o' | b'x' | b'X' => {
                let v = v & (u64::MAX >> (64 - self.bits));
                let mut body = digits(v, self.conv, precision);
                if self.flags.alt && self.conv == b'o' && !body.starts_with('0') {
                    body.insert(0, '0');
                }
                let prefix =
                    if self.flags.alt && v != 0 && matches!(self.conv, b'x' | b'X') { "0x" } else { "" };
                Field::number(prefix, body, precision)
            }
            // glibc prints a null pointer as `(nil)`, others as `%#lx` with the sign flags.
            b'p' if v == 0 => Field::text(b"(nil)".to_vec()),
            b'p' => {
                let prefix = format!("{}0x", sign(false, self.flags));
                Field::number(&prefix, digits(v, b'x', precision), precision)
            }
            b'c' => Field::text(vec![v as u8]),
            b's' => Field::text(string(v, precision, args)),
            _ => float(f64::from_bits(v), self.conv, self.flags, precision),
        }
    }
}

/// Reads a width or precision at `*i`: `Some(None)` when there is none, `None` when its
/// digits overflow an `int` (as C's may not).
fn count(text: &[u8], i: &mut usize) -> Option<Option<Count>> {
    if text.get(*i) == Some(&b'*') {
        *i += 1;
        return Some(Some(Count::Star));
    }
    let start = *i;
    while text.get(*i).is_some_and(u8::is_ascii_digit) {
        *i += 1;
    }
    if start == *i {
        return Some(None);
    }
    let n =
        text[start..*i].iter().try_fold(0i32, |n, d| n.checked_mul(10)?.checked_add(i32::from(d - b'0')))?;
    Some(Some(Count::Given(n as usize)))
}

/// Reads the length modifier at `*i`: the bits of the integer argument it names
/// ([`Spec::bits`]).
fn length(text: &[u8], i: &mut usize) -> u32 {
    let (bits, len) = match text.get(*i..).unwrap_or_default() {
        [b'h', b'h', ..] => (8, 2),
        [b'h', ..] => (16, 1),
        [b'l', b'l', ..] => (64, 2),
        [b'l' | b'L' | b'z' | b't' | b'j', ..] => (64, 1),
        _ => (32, 0),
    };
    *i += len;
    bits
}

/// The value of a width or precision: its digits, or for `*` the next `int` argument
/// (counted in `used`); `Some(None)` when there is none, `None` when the argument cannot
/// be read.
fn resolve(count: Option<Count>, args: &mut dyn Args, used: &mut u32) -> Option<Option<i64>> {
    match count {
        None => Some(None),
        Some(Count::Given(n)) => Some(Some(n as i64)),
        Some(Count::Star) => {
            *used += 1;
            args.next(4).map(|v| Some(i64::from(v as u32 as i32)))
        }
    }
}

/// A converted value before padding to its width.
#[derive(Debug)]
struct Field {
    /// The sign and radix prefix (`-`, `+0x`): zero padding goes after it.
    prefix: String,
    /// The digits or text.
    body: Vec<u8>,
    /// Whether the `0` flag pads it (numbers, but not integers with a precision, nor
    /// infinities and NaNs).
    zeros: bool,
}

impl Field {
    /// Text, padded with spaces only.
    fn text(body: Vec<u8>) -> Field {
        Field { prefix: String::new(), body, zeros: false }
    }

    /// An integer's prefix and digits: the `0` flag pads it only when no precision is given.
    fn number(prefix: &str, body: String, precision: Option<usize>) -> Field {
        Field { prefix: prefix.to_string(), body: body.into_bytes(), zeros: precision.is_none() }
    }

    /// Writes the field to `out`, at least `width` bytes: spaces after it when `left`, zeros
    /// between prefix and body with the `0` flag where it applies, else spaces before it.
    fn pad(self, width: usize, left: bool, zero: bool, out: &mut Vec<u8>) {
        let fill = width.saturating_sub(self.prefix.len() + self.body.len());
        let (spaces_before, zeros, spaces_after) = match (left, zero && self.zeros) {
            (true, _) => (0, 0, fill),
            (false, true) => (0, fill, 0),
            (false, false) => (fill, 0, 0),
        };
        out.extend(std::iter::repeat_n(b' ', spaces_before));
        out.extend_from_slice(self.prefix.as_bytes());
        out.extend(std::iter::repeat_n(b'0', zeros));
        out.extend_from_slice(&self.body);
        out.extend(std::iter::repeat_n(b' ', spaces_after));
    }
}

/// The sign a number prints with: `-`, or for others `+` or a space as the flags ask.
fn sign(negative: bool, flags: Flags) -> &'static str {
    if negative {
        "-"
    } else if flags.plus {
        "+"
    } else if flags.space {
        " "
    } else {
        ""
    }
}

/// An integer's digits in the radix of `conv` (lower case), at least `precision` of them:
/// none for 0 at precision 0, as C prints `%.0d` of 0.
fn digits(v: u64, conv: u8, precision: Option<usize>) -> String {
    let s = match conv {
        b'o' => format!("{v:o}"),
        b'x' | b'X' => format!("{v:x}"),
        _ => v.to_string(),
    };
    match precision {
        Some(0) if v == 0 => String::new(),
        Some(p) => "0".repeat(p.saturating_sub(s.len())) + &s,
        None => s,
    }
}

/// The `%s` text of the string at `addr`, at most `precision` bytes: `(null)` for a null
/// pointer (nothing when the precision is below its length, as glibc prints it), `<?>`
/// when it cannot be read.
fn string(addr: u64, precision: Option<usize>, args: &mut dyn Args) -> Vec<u8> {
    const NULL: &[u8] = b"(null)";
    let mut s = match addr {
        0 if precision.is_some_and(|p| p < NULL.len()) => Vec::new(),
        0 => NULL.to_vec(),
        _ => args.string(addr).unwrap_or_else(|| b"<?>".to_vec()),
    };
    s.truncate(precision.unwrap_or(usize::MAX));
    s
}

/// `%f`, `%e`, `%g`, `%a` (lower case; the caller raises upper-case ones) of `v`: the sign,
/// and `0x` for `%a`, as the prefix; `inf` and `nan` (with their sign) unpadded by zeros.
fn float(v: f64, conv: u8, flags: Flags, precision: Option<usize>) -> Field {
    let sign = sign(v.is_sign_negative(), flags);
    let a = v.abs();
    if !a.is_finite() {
        let body = if a.is_nan() { "nan" } else { "inf" };
        return Field { prefix: sign.to_string(), body: body.into(), zeros: false };
    }
    let (alt, p) = (flags.alt, precision.unwrap_or(6));
    let (radix, body) = match conv.to_ascii_lowercase() {
        b'f' => ("", fixed(a, p, alt)),
        b'e' => ("", exponent(a, p, alt)),
        b'g' => ("", general(a, p, alt)),
        _ => ("0x", hex_float(a, precision, alt)),
    };
    Field { prefix: format!("{sign}{radix}"), body: body.into_bytes(), zeros: true }
}

/// Digits after the point past which every double's decimal expansion is zeros: 2^-1074,
/// the smallest, has 1074, and none has more than 767 significant digits.
const EXACT_DIGITS: usize = 1074;

/// For `p` digits after the point: the precision to ask `format!` for (which takes only
/// precisions below 2^16), and the zeros that follow its digits.
fn exact(p: usize) -> (usize, String) {
    let q = p.min(EXACT_DIGITS);
    (q, "0".repeat(p - q))
}

/// `%f` of a finite `a >= 0`: `p` digits after the point, and the point even with none
/// when `alt` (`%#.0f`).
fn fixed(a: f64, p: usize, alt: bool) -> String {
    let (q, zeros) = exact(p);
    let mut s = format!("{a:.q$}{zeros}");
    if alt && p == 0 {
        s.push('.');
    }
    s
}

/// `a` (finite, `>= 0`) in scientific notation with `p` digits after the point, correctly
/// rounded: the mantissa's digits (`1.25`) and the decimal exponent.
fn scientific(a: f64, p: usize) -> (String, i32) {
    let (q, zeros) = exact(p);
    let s = format!("{a:.q$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    (format!("{mantissa}{zeros}"), exp.parse().unwrap_or(0))
}

/// `%e` of a finite `a >= 0`: `d.ddde±XX` with `p` digits after the point, and the point
/// even with none when `alt`.
fn exponent(a: f64, p: usize, alt: bool) -> String {
    let (mantissa, e) = scientific(a, p);
    let point = if alt && p == 0 { "." } else { "" };
    format!("{mantissa}{point}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// `%g` of a finite `a >= 0` with `p` significant digits (0 counts as 1): `%e` if the
/// exponent `%e` would print is below -4 or at least `p`, else `%f`; trailing zeros (and a
/// bare point) removed unless `alt`.
fn general(a: f64, p: usize, alt: bool) -> String {
    let p = p.max(1);
    let x = scientific(a, p - 1).1;
    let s = if x < -4 || i64::from(x) >= p as i64 {
        exponent(a, p - 1, alt)
    } else {
        fixed(a, (p as i64 - 1 - i64::from(x)) as usize, alt)
    };
    if alt {
        s
    } else {
        trim_zeros(&s)
    }
}

/// C's `%a` of a finite `a >= 0`, after its `0x`: `1.8p+1` (normal),
/// `0.0000000000001p-1022` (subnormal), `0p+0`; the fraction's trailing zeros dropped, or
/// rounded to nearest even at `precision` hex digits; the point kept with no digits after
/// it when `alt`.
fn hex_float(a: f64, precision: Option<usize>, alt: bool) -> String {
    let bits = a.to_bits();
    let (mut lead, mut fraction, exp) = match (bits >> 52, bits & ((1 << 52) - 1)) {
        (0, 0) => (0u64, 0u64, 0i64),
        (0, m) => (0, m, -1022),
        (e, m) => (1, m, e as i64 - 1023),
    };
    let mut digits = 13;
    if let Some(p) = precision.filter(|&p| p < 13) {
        // Rounded with the leading digit, whose parity decides a tie at precision 0.
        let drop = 4 * (13 - p) as u32;
        let all = lead << 52 | fraction;
        let (kept, rest, half) = (all >> drop, all & ((1 << drop) - 1), 1u64 << (drop - 1));
        let kept = kept + u64::from(rest > half || (rest == half && kept & 1 == 1));
        (lead, fraction) = (kept >> (4 * p), kept & ((1 << (4 * p)) - 1));
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
    let point = if hex.is_empty() && !alt { "" } else { "." };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{lead}{point}{hex}p{sign}{}", exp.abs())
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
    use std::ffi::CStr;

    /// The strings `%s` arguments point to: the `i`th at address [`str_addr`]`(i)`.
    const STRINGS: [&CStr; 5] = [c"hello", c"", c"\xc3\xbcn\xc3\xafcode \xe2\x9c\x93", c"a b\tc", c"x"];

    /// The simulated address of `STRINGS[i]`.
    fn str_addr(i: usize) -> u64 {
        0x1000 + 0x100 * i as u64
    }

    /// Arguments from a list of bits, and [`STRINGS`] by address.
    struct List(Vec<u64>);

    impl Args for List {
        fn next(&mut self, _size: u64) -> Option<u64> {
            if self.0.is_empty() {
                None
            } else {
                Some(self.0.remove(0))
            }
        }
        fn string(&mut self, addr: u64) -> Option<Vec<u8>> {
            (0..STRINGS.len()).find(|&i| str_addr(i) == addr).map(|i| STRINGS[i].to_bytes().to_vec())
        }
    }

    /// `fmt` formatted with `args`: the text and the number of arguments read.
    fn counted(fmt: &str, args: Vec<u64>) -> (String, u32) {
        format(fmt.as_bytes(), &mut List(args))
    }

    /// `fmt` formatted with `args`.
    fn f(fmt: &str, args: Vec<u64>) -> String {
        counted(fmt, args).0
    }

    /// An `int` argument's bits.
    fn int(v: i32) -> u64 {
        v as u32 as u64
    }

    /// A `double` argument's bits.
    fn d(v: f64) -> u64 {
        v.to_bits()
    }

    #[test]
    fn formats_as_c_printf_does() {
        assert_eq!(f("%d %i %u", vec![int(-5), 7, 0xffff_ffff]), "-5 7 4294967295");
        assert_eq!(f("[%5d|%-5d|%05d|%+d]", vec![42, 42, int(-42), 3]), "[   42|42   |-0042|+3]");
        assert_eq!(f("%x %X %#x %o %.3d", vec![255, 255, 255, 8, 7]), "ff FF 0xff 10 007");
        assert_eq!(f("%ld %llu", vec![(-1i64) as u64, u64::MAX]), "-1 18446744073709551615");
        assert_eq!(f("%c%s%%", vec![b'>' as u64, str_addr(0)]), ">hello%");
        assert_eq!(f("%.2s|%8s", vec![str_addr(0), str_addr(0)]), "he|   hello");
        assert_eq!(f("%f %.2f %8.3f", vec![d(1.5), d(-2.345), d(4.56789)]), "1.500000 -2.35    4.568");
        assert_eq!(f("%e %E", vec![d(12345.678), d(0.00012)]), "1.234568e+04 1.200000E-04");
        assert_eq!(f("%g %g %g %g", vec![d(100000.0), d(1e6), d(0.0001), d(0.5)]), "100000 1e+06 0.0001 0.5");
        assert_eq!(f("%f %f", vec![d(f64::INFINITY), d(f64::NAN)]), "inf nan");
        assert_eq!(counted("%d %d", vec![1, 2]).1, 2);
        assert_eq!(f("%d %d", vec![1]), "1 <?>");
        assert_eq!(f("ünïcode %d ✓", vec![3]), "ünïcode 3 ✓");
    }

    /// Values glibc's `printf` gives for the same formats.
    #[test]
    fn short_lengths_and_hex_floats_as_glibc_prints_them() {
        assert_eq!(f("%hd %hhd %hu %hhx", vec![0x3ff8_0000, 0x1ff, 0x1_0005, 0x1234]), "0 -1 5 34");
        let got = f("%a %a %a %A %a", vec![d(1.0), d(-3.0), d(0.1), d(255.5), d(0.0)]);
        assert_eq!(got, "0x1p+0 -0x1.8p+1 0x1.999999999999ap-4 0X1.FFP+7 0x0p+0");
        assert_eq!(
            f("%a %.1a %.0a", vec![d(f64::from_bits(1)), d(1.96875), d(1.75)]),
            "0x0.0000000000001p-1022 0x2.0p+0 0x2p+0"
        );
        assert_eq!(f("%.15a", vec![d(1.5)]), "0x1.800000000000000p+0");
    }

    /// `*` widths and precisions read an `int` argument each, before the value: a negative
    /// width left-justifies, a negative precision is as if omitted; later conversions read
    /// the arguments after them (the review's cases, with glibc's output).
    #[test]
    fn star_widths_and_precisions_read_their_arguments() {
        assert_eq!(counted("A[%*d|%d]\n", vec![5, 42, 7]), ("A[   42|7]\n".into(), 3));
        assert_eq!(
            counted("B[%-*.*f|%d]\n", vec![8, 2, d(std::f64::consts::PI), 9]),
            ("B[3.14    |9]\n".into(), 4)
        );
        assert_eq!(
            f("[%*d] [%-*d] [%.*d] [%.*f]", vec![int(-5), 1, int(-5), 2, int(-3), 7, int(-1), d(1.5)]),
            "[1    ] [2    ] [7] [1.500000]"
        );
        assert_eq!(
            f("[%0*.*x] [%*s] [%.*s]", vec![6, 3, 0xab, 4, str_addr(4), 2, str_addr(0)]),
            "[   0ab] [   x] [he]"
        );
        // A width argument that cannot be read: the conversion prints `<?>`.
        assert_eq!(counted("%*d", vec![]), ("<?>".into(), 2));
    }

    /// The flags as glibc applies them (the review's cases and their neighbours).
    #[test]
    fn flags_as_glibc_applies_them() {
        assert_eq!(
            f("[%#o] [%#06x] [%08.3d] [%05f] [%#.0f]", vec![8, 255, 7, d(f64::INFINITY), d(1.0)]),
            "[010] [0x00ff] [     007] [  inf] [1.]"
        );
        assert_eq!(
            f("[%#X] [%#08X] [%#-8o] [%+u] [% x]", vec![255, 255, 8, 5, 5]),
            "[0XFF] [0X0000FF] [010     ] [5] [5]"
        );
        assert_eq!(
            f("[% +d] [%+ d] [%-0 5d] [%00-5d] [% d]", vec![5, 5, 5, 5, 5]),
            "[+5] [+5] [ 5   ] [5    ] [ 5]"
        );
        assert_eq!(
            f("[%.0d] [%#.0o] [%#x] [%#o] [%5.0d] [%+.0d] [% .0d]", vec![0; 7]),
            "[] [0] [0] [0] [     ] [+] [ ]"
        );
        let floats = vec![d(1.0), d(1.0), d(1.0), d(1.0), d(123456.0), d(0.0), d(0.0)];
        assert_eq!(
            f("[%#.0f] [%#.0e] [%#g] [%#.0a] [%#g] [%g] [%#.3g]", floats),
            "[1.] [1.e+00] [1.00000] [0x1.p+0] [123456.] [0] [0.00]"
        );
        let floats =
            vec![d(1.0), d(3.0), d(-1.5), d(f64::NEG_INFINITY), d(f64::NAN), d(-f64::NAN), d(f64::INFINITY)];
        assert_eq!(
            f("[%010a] [%-+10.2e] [%08.3f] [%05f] [%-05f] [%+f] [%F]", floats),
            "[0x00001p+0] [+3.00e+00 ] [-001.500] [ -inf] [nan  ] [-nan] [INF]"
        );
        // C11's `%#g` where rounding carries to the next power of ten (glibc 2.36 prints
        // `1.e+06` and `1.e+03`).
        assert_eq!(f("[%#g] [%#.3G]", vec![d(999999.5), d(999.5)]), "[1.00000e+06] [1.00E+03]");
        assert_eq!(
            f("[%+.0e] [%.0g] [%#.0g] [%-08.2f]", vec![d(1.0), d(95.0), d(0.0), d(-0.0)]),
            "[+1e+00] [1e+02] [0.] [-0.00   ]"
        );
    }

    /// `%c`, `%s`, `%p` and `%%` with widths, precisions and flags; `%c` and `%s` print
    /// bytes, and precisions count bytes.
    #[test]
    fn characters_strings_and_pointers_as_glibc_prints_them() {
        assert_eq!(
            f("[%5c] [%-3c] [%05c] [%c%c]", vec![b'x' as u64, b'y' as u64, b'z' as u64, 0xc3, 0xa9]),
            "[    x] [y  ] [    z] [é]"
        );
        assert_eq!(
            f("[%.3s] [%05s] [%-7s|]", vec![str_addr(2), str_addr(0), str_addr(4)]),
            "[ün] [hello] [x      |]"
        );
        assert_eq!(f("[%s] [%.3s] [%.6s] [%10s]", vec![0; 4]), "[(null)] [] [(null)] [    (null)]");
        assert_eq!(
            f("[%p] [%10p] [%-10p] [%.3p] [%010p] [%+p]", vec![0; 6]),
            "[(nil)] [     (nil)] [(nil)     ] [(nil)] [     (nil)] [(nil)]"
        );
        assert_eq!(
            f("[%p] [%10p] [%.8p] [%010p] [%+p] [% p] [%-10p]", vec![255; 7]),
            "[0xff] [      0xff] [0x000000ff] [0x000000ff] [+0xff] [ 0xff] [0xff      ]"
        );
        assert_eq!(counted("[%5%] [%-5%] [%05%]", vec![]), ("[%] [%] [%]".into(), 0));
    }

    /// The length modifiers: `%hhu`, `%hd` narrow the promoted `int`; `l`, `ll`, `z`, `t`, `j`
    /// and `L` read 64 bits; `%Lf` (a `double` on the device) prints as `%f`.
    #[test]
    fn length_modifiers_pick_the_argument_size() {
        let v = vec![256 + 255, int(-1), 40000, u64::MAX, (-2i64) as u64, (-3i64) as u64, (-4i64) as u64, 5];
        assert_eq!(
            f("[%hhu] [%hhx] [%hd] [%zd] [%jd] [%td] [%lld] [%Ld]", v),
            "[255] [ff] [-25536] [-1] [-2] [-3] [-4] [5]"
        );
        assert_eq!(
            f("[%Lf] [%lf] [%lc] [%ls]", vec![d(1.5), d(2.5), b'b' as u64, str_addr(4)]),
            "[1.500000] [2.500000] [b] [x]"
        );
    }

    /// A specification the formatter does not know is copied as written and reads no
    /// argument, the rest of the format going on as before.
    #[test]
    fn unknown_specifications_are_copied_as_written() {
        assert_eq!(counted("%q|%5y|%*y|%d", vec![7]), ("%q|%5y|%*y|7".into(), 1));
        assert_eq!(counted("%lhd %n %1$d", vec![]), ("%lhd %n %1$d".into(), 0));
        assert_eq!(counted("end %5", vec![]), ("end %5".into(), 0));
        assert_eq!(counted("end %", vec![]), ("end %".into(), 0));
        assert_eq!(counted("%.-1d", vec![]), ("%.-1d".into(), 0));
        // Precisions past what `format!` takes (2^16) and past a double's exact digits.
        let long =
            f("%.70000f|%.70000e|%#.70000g|%.70000d|%.70000a", vec![d(0.5), d(1.0), d(1.0), 7, d(1.0)]);
        let zeros = "0".repeat(69999);
        assert_eq!(long, format!("0.5{zeros}|1.{zeros}0e+00|1.{zeros}|{zeros}7|0x1.{zeros}0p+0"));
        // A width or precision beyond `int` (glibc fails with EOVERFLOW).
        assert_eq!(
            counted("%99999999999d|%.3000000000f|%d", vec![4]),
            ("%99999999999d|%.3000000000f|4".into(), 1)
        );
    }

    /// Random format strings over the specification alphabet and random arguments (some
    /// missing): the formatter never panics and reads at most three arguments per `%`.
    #[test]
    fn any_format_string_formats_without_panicking() {
        const ALPHABET: &[u8] = b"%%%%-+ #0159.*hlLzjtqdiuoxXcspfFeEgGaAnyq|";
        let mut rng = ptx_tools::rng::Rng::fresh("any_format_string_formats_without_panicking");
        for _ in 0..20_000 {
            let len = rng.next() % 16;
            let fmt: Vec<u8> =
                (0..len).map(|_| ALPHABET[(rng.next() % ALPHABET.len() as u64) as usize]).collect();
            // Small values for `*` widths and precisions, so no case asks for gigabytes.
            let args: Vec<u64> =
                (0..rng.next() % 6).map(|_| rng.next() >> (rng.next() % 64)).map(|v| v % 512).collect();
            let (_, used) = format(&fmt, &mut List(args));
            assert!(
                used as usize <= fmt.iter().filter(|&&c| c == b'%').count() * 3,
                "{}",
                String::from_utf8_lossy(&fmt)
            );
        }
    }

    /// glibc's `snprintf`, the reference the random comparison checks the formatter against.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    mod glibc {
        use super::*;
        use ptx_tools::rng::Rng;
        use std::ffi::{c_char, c_int, c_void, CString};

        extern "C" {
            fn snprintf(buf: *mut c_char, size: usize, fmt: *const c_char, ...) -> c_int;
        }

        /// A conversion's value as C passes it.
        #[derive(Clone, Copy, Debug)]
        enum Arg {
            /// An `int` (or a `char` or `short` promoted to one).
            Int(i32),
            /// A `long` or `long long` (and `size_t`, `ptrdiff_t`, `intmax_t`).
            Long(i64),
            /// A `double`.
            Double(f64),
            /// A string of [`STRINGS`], or a null pointer.
            Str(Option<usize>),
            /// A `void *`.
            Ptr(u64),
        }

        impl Arg {
            /// The bits the device's argument buffer holds for it.
            fn bits(self) -> u64 {
                match self {
                    Arg::Int(v) => int(v),
                    Arg::Long(v) => v as u64,
                    Arg::Double(v) => d(v),
                    Arg::Str(s) => s.map_or(0, str_addr),
                    Arg::Ptr(v) => v,
                }
            }
        }

        /// glibc's `snprintf(fmt, stars..., value)`: the bytes it prints.
        fn glibc(fmt: &CString, stars: &[i32], value: Option<Arg>) -> Vec<u8> {
            let mut buf = vec![0u8; 1 << 17];
            macro_rules! call {
                ($($a:expr),*) => {
                    // SAFETY: the arguments are those `fmt`'s one conversion reads, of the
                    // C types it reads them as, and the buffer's length is passed.
                    unsafe { snprintf(buf.as_mut_ptr().cast(), buf.len(), fmt.as_ptr(), $($a),*) }
                };
            }
            macro_rules! with_stars {
                ($v:expr) => {
                    match *stars {
                        [] => call!($v),
                        [w] => call!(w, $v),
                        [w, p] => call!(w, p, $v),
                        _ => panic!("{stars:?}: at most two stars"),
                    }
                };
            }
            let n = match value {
                None => call!(),
                Some(Arg::Int(v)) => with_stars!(v),
                Some(Arg::Long(v)) => with_stars!(v),
                Some(Arg::Double(v)) => with_stars!(v),
                Some(Arg::Str(s)) => with_stars!(s.map_or(std::ptr::null(), |i| STRINGS[i].as_ptr())),
                Some(Arg::Ptr(v)) => with_stars!(v as usize as *const c_void),
            };
            let n = usize::try_from(n).unwrap_or_else(|_| panic!("{fmt:?}: snprintf failed"));
            assert!(n < buf.len(), "{fmt:?}: {n} bytes");
            buf.truncate(n);
            buf
        }

        /// One of `values`, or (one time in three) `random()`.
        fn pick<T: Copy>(rng: &mut Rng, values: &[T], random: impl FnOnce(&mut Rng) -> T) -> T {
            match (rng.next() % (values.len() as u64 * 3 / 2)) as usize {
                i if i < values.len() => values[i],
                _ => random(rng),
            }
        }

        /// An integer: an edge (0, ±1, the limits of every width) or random bits, shifted
        /// right at random so small values come up too.
        fn integer(rng: &mut Rng) -> i64 {
            const EDGES: [i64; 16] = [
                0,
                1,
                -1,
                7,
                8,
                255,
                256,
                0x7fff,
                0x8000,
                0xffff,
                i32::MIN as i64,
                i32::MAX as i64,
                u32::MAX as i64,
                i64::MIN,
                i64::MAX,
                -129,
            ];
            pick(rng, &EDGES, |r| (r.next() as i64) >> (r.next() % 64))
        }

        /// A double: an edge (zeros, infinities, NaNs of both signs, subnormals, the limits,
        /// decimal ties, powers of ten at the `%g` switch) or random bits, a moderate value,
        /// or a random subnormal.
        fn double(rng: &mut Rng) -> f64 {
            const EDGES: [f64; 28] = [
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                -f64::NAN,
                f64::MIN_POSITIVE,
                5e-324,
                2.225073858507201e-308,
                f64::MAX,
                f64::MIN,
                1e300,
                1e-300,
                0.5,
                1.5,
                2.5,
                0.125,
                9.5,
                99.95,
                0.0001,
                0.00001,
                123456.0,
                999999.5,
                1e15,
                1e16,
                1e22,
                1e23,
                -1.0,
            ];
            pick(rng, &EDGES, |r| match r.next() % 3 {
                0 => f64::from_bits(r.next()),
                1 => r.moderate_f64(),
                _ => f64::from_bits(r.next() & 0x800f_ffff_ffff_ffff),
            })
        }

        /// A random specification of conversion `conv`: its text and the values of its `*`s.
        fn spec(rng: &mut Rng, conv: u8) -> (String, Vec<i32>) {
            let mut text = String::from("%");
            for _ in 0..rng.next() % 4 {
                text.push(b"-+ #0"[(rng.next() % 5) as usize] as char);
            }
            let mut stars = Vec::new();
            // `%%` takes no `*`: glibc ignores its width.
            let star = conv != b'%';
            match rng.next() % 3 {
                0 => {}
                1 => text += &(1 + rng.next() % 30).to_string(),
                _ if star => {
                    text.push('*');
                    stars.push((rng.next() % 61) as i32 - 30);
                }
                _ => {}
            }
            match rng.next() % 5 {
                0 | 1 => {}
                2 => text.push('.'),
                3 => {
                    let most = [30, 30, 30, 30, 30, 30, 30, 1100, 70_000][(rng.next() % 9) as usize];
                    text += &format!(".{}", rng.next() % most);
                }
                _ if star => {
                    text += ".*";
                    stars.push((rng.next() % 41) as i32 - 10);
                }
                _ => {}
            }
            (text, stars)
        }

        /// A random length modifier for `conv`, and the C value it reads.
        fn value(rng: &mut Rng, conv: u8) -> (&'static str, Option<Arg>) {
            const INT: [&str; 9] = ["", "hh", "h", "l", "ll", "z", "t", "j", "L"];
            match conv {
                b'd' | b'i' | b'u' | b'o' | b'x' | b'X' => {
                    let length = INT[(rng.next() % INT.len() as u64) as usize];
                    let v = integer(rng);
                    let arg =
                        if matches!(length, "" | "h" | "hh") { Arg::Int(v as i32) } else { Arg::Long(v) };
                    (length, Some(arg))
                }
                b'c' => ("", Some(Arg::Int(integer(rng) as i32))),
                b's' => (
                    "",
                    Some(Arg::Str(
                        (!rng.next().is_multiple_of(4)).then(|| (rng.next() % STRINGS.len() as u64) as usize),
                    )),
                ),
                b'p' => ("", Some(Arg::Ptr(integer(rng) as u64))),
                b'%' => ("", None),
                _ => (["", "l"][(rng.next() % 2) as usize], Some(Arg::Double(double(rng)))),
            }
        }

        /// Random specifications of every conversion (flags, digit and `*` widths and
        /// precisions, length modifiers) and edge values print as glibc prints them, reading
        /// the arguments glibc reads.
        #[test]
        fn random_conversions_print_as_glibc_prints_them() {
            let mut rng = Rng::fresh("random_conversions_print_as_glibc_prints_them");
            for _ in 0..CASES {
                let conv = CONVERSIONS[(rng.next() % CONVERSIONS.len() as u64) as usize];
                let (mut text, stars) = spec(&mut rng, conv);
                let (length, value) = value(&mut rng, conv);
                text = format!("<{text}{length}{}>", conv as char);
                let want = glibc(&CString::new(text.clone()).unwrap(), &stars, value);
                let mut args: Vec<u64> = stars.iter().map(|&s| int(s)).collect();
                args.extend(value.map(Arg::bits));
                let read = args.len() as u32;
                let got = format(text.as_bytes(), &mut List(args));
                let want = (String::from_utf8_lossy(&want).into_owned(), read);
                if !glibc_carry_quirk(&text, &want.0, &got.0) {
                    assert_eq!(got, want, "{text:?} with stars {stars:?} and {value:?}");
                }
            }
        }

        /// Whether `got` and glibc's `want` for `text` differ only by glibc's departure from
        /// C11 (7.21.6.1): `%#g` of a value whose rounding carries into the next power of ten
        /// at the switch to style e (999999.5) prints `1.e+06`, where C asks for style e at
        /// precision P - 1 with its zeros kept (`1.00000e+06`), as the formatter prints it.
        fn glibc_carry_quirk(text: &str, want: &str, got: &str) -> bool {
            let squash = |s: &str| s.to_ascii_lowercase().replace([' ', '0'], "");
            text.contains('#')
                && (text.ends_with("g>") || text.ends_with("G>"))
                && want.to_ascii_lowercase().contains("1.e")
                && squash(want) == squash(got)
        }

        /// Random cases per run.
        const CASES: usize = 100_000;
    }
}
