//! Comment removal for PTX text, shared by the module parser and the signature reader.

/// `ptx` without its comments (`//` to the end of the line, `/* */` blocks, which become
/// one space), line breaks kept so that line numbers still count. Text inside a string
/// (`.file 1 "/home/u/src/*kern*.cu"`) is no comment; a string ends at its closing `"`
/// (`\"` escapes one) or at the end of its line. `Err` holds the 1-based line of a `/*`
/// that is never closed.
pub(crate) fn without_comments(ptx: &str) -> Result<String, usize> {
    let mut out = String::with_capacity(ptx.len());
    let mut chars = ptx.chars().peekable();
    let mut line = 1;
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('"', _) => {
                out.push('"');
                copy_string(&mut chars, &mut out);
            }
            ('/', Some('/')) => while chars.next_if(|&c| c != '\n').is_some() {},
            ('/', Some('*')) => {
                let start = line;
                chars.next();
                let mut prev = ' ';
                loop {
                    match chars.next() {
                        None => return Err(start),
                        Some('/') if prev == '*' => break,
                        Some('\n') => {
                            line += 1;
                            out.push('\n');
                            prev = '\n';
                        }
                        Some(c) => prev = c,
                    }
                }
                out.push(' ');
            }
            _ => {
                line += usize::from(c == '\n');
                out.push(c);
            }
        }
    }
    Ok(out)
}

/// `text` with the inside of each string literal blanked (line breaks kept): what a search
/// for directives must not see.
pub(crate) fn without_strings(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('"') {
        return text.into();
    }
    let (mut out, mut inside, mut escaped) = (String::with_capacity(text.len()), false, false);
    for c in text.chars() {
        match c {
            '"' if !escaped => {
                inside = !inside;
                out.push(c);
            }
            // A string ends at its line's end at the latest (as `without_comments` reads it).
            '\n' => {
                inside = false;
                out.push(c);
            }
            _ if inside => out.push(' '),
            _ => out.push(c),
        }
        escaped = inside && c == '\\' && !escaped;
    }
    out.into()
}

/// Copies the rest of a string literal, up to and including its closing `"` (or up to its
/// line's end), from `chars` to `out`.
fn copy_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, out: &mut String) {
    while let Some(c) = chars.next_if(|&c| c != '\n') {
        out.push(c);
        match c {
            '"' => return,
            '\\' => {
                if let Some(e) = chars.next_if(|&c| c != '\n') {
                    out.push(e);
                }
            }
            _ => {}
        }
    }
}
