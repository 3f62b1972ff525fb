//! The PTX reader: splits module text into directives, entry headers, declarations, labels
//! and instruction statements, and hands each kernel's body to [`crate::decode`].
//!
//! It reads what `ptx_core::print` and NVRTC write: `//` and `/* */` comments (not in
//! strings), `.version`, `.target`, `.file` and `.loc` (source positions for messages), `.address_size 64`,
//! `.visible .entry name(.param .T name, ...)`, module `.global`/`.const` variables with
//! initialisers (`.attribute(.managed)` ones too), `.extern .shared` (dynamic shared memory),
//! `[.visible] .shared` variables, the `vprintf` declaration, `.pragma` (ignored), `.alias`
//! (a device function standing for another);
//! in bodies nested `{ }` scopes (registers and labels scoped to them), `.reg .T %p<N>;` and
//! `.reg .T %name;`, `.shared` and `.local` arrays, call-sequence `.param`s, `.branchtargets`
//! lists (of `brx.idx`), `.pragma` (ignored), labels `name:`, and statements up to each `;`
//! (over several lines), optionally guarded by `@%p` / `@!%p`.
//! Device functions (`.func`) are inlined at each call; any other directive is
//! [`SimError::Unsupported`].

use ptx_core::PtxType;

use crate::comments::without_comments;
use crate::const_expr::{int_const, mentions_float};
use crate::decode::{decode_kernel, Arrays, RegDecl, SharedDef};
use crate::error::SimError;
use crate::literal::{float_literal_bits, float_overflow, hex_float_bits, is_hex_float};
use crate::program::KernelCode;
use crate::program::{BlockLimit, DataDef, ModuleData};
use crate::versions::{unknown_target, unknown_version};

/// One instruction statement of a kernel body.
#[derive(Clone, Debug)]
pub(crate) struct Stmt {
    /// 1-based line number.
    pub(crate) line: usize,
    /// The statement's text, without the `;`.
    pub(crate) text: String,
    /// `(negated, predicate register)` of a `@%p` / `@!%p` guard.
    pub(crate) guard: Option<(bool, String)>,
    /// The opcode with its modifiers, e.g. `ld.global.v2.f32`.
    pub(crate) opcode: String,
    /// Operands, split at top-level commas and trimmed.
    pub(crate) operands: Vec<String>,
    /// The source position of the last `.loc` before it, as `file:line:column`.
    pub(crate) source: Option<String>,
}

/// An item of a kernel body, in order.
#[derive(Clone, Debug)]
pub(crate) enum BodyItem {
    Label(String, usize),
    Instr(Stmt),
}

fn parse_err(line: usize, message: impl Into<String>) -> SimError {
    SimError::Parse { line, message: message.into() }
}

fn unsupported(line: usize, what: impl Into<String>) -> SimError {
    SimError::Unsupported { line, what: what.into() }
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$' || c == '%')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// What parsing a module gives: the kernels the simulator runs, and for each kernel it
/// cannot run, the construct it does not support.
pub(crate) struct Parsed {
    pub(crate) kernels: Vec<KernelCode>,
    pub(crate) unsupported: Vec<(String, SimError)>,
}

/// The line index after the definition starting at line `i`: past the `}` matching its
/// first `{`, or past its `;` when it is a declaration without a body.
fn end_of_definition(lines: &[&str], mut i: usize) -> usize {
    let mut depth = 0usize;
    let mut opened = false;
    while i < lines.len() {
        for c in lines[i].chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth = depth.saturating_sub(1),
                ';' if !opened => return i + 1,
                _ => {}
            }
        }
        i += 1;
        if opened && depth == 0 {
            return i;
        }
    }
    i
}

/// The name in an `.entry` or `.func` header (the word before its parameter list).
fn definition_name(lines: &[&str], i: usize) -> String {
    let header: String = lines[i..lines.len().min(i + 4)].join(" ");
    // The first of the two: the lines joined may reach the next definition.
    let at = [".entry", ".func"].iter().filter_map(|d| header.find(d).map(|k| k + d.len())).min();
    let after = at.map_or("", |k| &header[k..]);
    // `.func (.param .b32 retval) name (...)`: skip a return list first.
    let after = after.trim_start();
    let after = if after.starts_with('(') { after.split_once(')').map_or("", |(_, r)| r) } else { after };
    after.split(|c: char| c == '(' || c.is_whitespace()).find(|w| !w.is_empty()).unwrap_or("?").to_string()
}

/// The name an `.extern .func [(.param .T ret)] name(...);` declaration declares.
fn extern_function_name(decl: &str) -> Option<&str> {
    let rest = decl.split_once(".func")?.1.trim_start();
    let rest = match rest.strip_prefix('(') {
        Some(r) => r.split_once(')')?.1.trim_start(),
        None => rest,
    };
    let name = rest.split(|c: char| c == '(' || c == ';' || c.is_whitespace()).next()?;
    is_ident(name).then_some(name)
}

/// The module-level declaration starting at line `*i`, joined over the lines up to its `;`
/// (`*i` is left on that last line); `what` names it in the error when the `;` is missing.
fn declaration(lines: &[&str], i: &mut usize, what: &str) -> Result<String, SimError> {
    let first = *i + 1;
    let mut decl = lines[*i].trim().to_string();
    while !decl.trim_end().ends_with(';') {
        *i += 1;
        let Some(next) = lines.get(*i) else {
            return Err(parse_err(first, format!("{what} without its `;`")));
        };
        decl.push(' ');
        decl.push_str(next.trim());
    }
    Ok(decl)
}

/// The first character of `text` (comments removed) that ptxas takes neither as whitespace
/// nor as part of a token, with its 1-based line, where Rust's `trim` and `split_whitespace`
/// would take it as whitespace or keep it unseen: a control character other than the tab,
/// line feed, carriage return and form feed (a NUL, a vertical tab), or whitespace outside
/// ASCII (a no-break space).
fn unexpected_character(text: &str) -> Option<(usize, char)> {
    let bad = |c: char| {
        (c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c')) || (c.is_whitespace() && !c.is_ascii())
    };
    // Inside a string (a `.file` name) ptxas takes any character.
    let text = crate::comments::without_strings(text);
    let at = text.find(bad)?;
    let c = text[at..].chars().next()?;
    Some((text[..at].matches('\n').count() + 1, c))
}

/// Parses a whole module into decoded kernels.
pub(crate) fn parse_module(text: &str) -> Result<Parsed, SimError> {
    let text = without_comments(text).map_err(|line| parse_err(line, "unterminated block comment `/*`"))?;
    if let Some((line, c)) = unexpected_character(&text) {
        return Err(parse_err(line, format!("unexpected character `{c}`")));
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut kernels = Vec::new();
    let mut left_out: Vec<(String, SimError)> = Vec::new();
    let mut files: Vec<(u32, String)> = Vec::new();
    // `.extern .shared` arrays: dynamic shared memory, declared before the kernels using it.
    let mut dynamic: Vec<SharedDef> = Vec::new();
    // Module-scope `.shared` variables: static shared memory of each kernel that uses them.
    let mut statics: Vec<SharedDef> = Vec::new();
    // `.global` and `.const` variables, declared before the kernels using them.
    let mut data: Vec<DataDef> = Vec::new();
    // Device functions (defined before their callers, as PTX requires), and those the
    // simulator cannot read, with why.
    let mut funcs: Vec<FuncDef> = Vec::new();
    let mut bad_funcs: Vec<(String, SimError)> = Vec::new();
    // Variables the simulator cannot lay out, with why.
    let mut bad_data: Vec<(String, SimError)> = Vec::new();
    // The source file table first: with device debug information (`-G`) compilers write it
    // after the kernels whose `.loc`s name it.
    for line in &lines {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix(".file") {
            let index = rest.split_whitespace().next().and_then(|w| w.parse().ok());
            let name = line.split_once('"').map(|(_, r)| r.split('"').next().unwrap_or(r).to_string());
            if let (Some(index), Some(name)) = (index, name) {
                files.push((index, name));
            }
        }
    }
    // Device functions, whose calls are inlined into the kernels calling them, may be
    // defined after those kernels (declared before them): read them all first. One the
    // simulator cannot read leaves out only the kernels that call it.
    let mut i = 0;
    // Each function's name and lines, for what the kernels calling it use.
    let mut func_lines: Vec<(String, std::ops::Range<usize>)> = Vec::new();
    // `.alias` directives (line, alias, aliasee), resolved once every function is read.
    let mut aliases: Vec<(usize, String, String)> = Vec::new();
    while i < lines.len() {
        let line = lines[i].trim();
        let first = line.split_whitespace().next().unwrap_or("");
        if first == ".alias" {
            let at = i + 1;
            let (alias, aliasee) = alias_names(&declaration(&lines, &mut i, "an `.alias` directive")?, at)?;
            aliases.push((at, alias, aliasee));
            i += 1;
            continue;
        }
        if !(matches!(first, ".visible" | ".weak" | ".func") && line.contains(".func")) {
            i += 1;
            continue;
        }
        let end = end_of_definition(&lines, i);
        func_lines.push((definition_name(&lines, i), i..end));
        if lines[i..end].iter().any(|l| l.contains('{')) {
            match parse_function(&lines, i, &files) {
                Ok(f) => funcs.push(f),
                Err(e @ SimError::Unsupported { .. }) => bad_funcs.push((definition_name(&lines, i), e)),
                Err(e) => return Err(e),
            }
        }
        i = end;
    }
    for directive in &aliases {
        add_alias(directive, &aliases, &mut funcs, &mut bad_funcs, &mut func_lines)?;
    }
    let mut i = 0;
    while i < lines.len() {
        let lineno = i + 1;
        let line = lines[i].trim();
        if line.is_empty() {
            i += 1;
            continue;
        }
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        match first {
            ".version" => {
                let v = words.next().unwrap_or("");
                let version = v
                    .split_once('.')
                    .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)));
                let Some((major, minor)) = version.filter(|_| words.next().is_none()) else {
                    return Err(parse_err(lineno, format!("malformed `.version` directive `{line}`")));
                };
                if let Some(why) = unknown_version(major, minor) {
                    return Err(unsupported(lineno, why));
                }
                i += 1;
            }
            ".target" => {
                let items = line.strip_prefix(".target").unwrap_or("").split(',').map(str::trim);
                if items.clone().next().is_none_or(str::is_empty) {
                    return Err(parse_err(lineno, "`.target` needs a target name"));
                }
                if let Some(why) = items.filter_map(unknown_target).next() {
                    return Err(unsupported(lineno, why));
                }
                i += 1;
            }
            ".address_size" => {
                match words.next() {
                    Some("64") => {}
                    Some(other) => {
                        return Err(unsupported(
                            lineno,
                            format!(".address_size {other} (only 64 is supported)"),
                        ))
                    }
                    None => return Err(parse_err(lineno, "`.address_size` needs a value")),
                }
                i += 1;
            }
            ".extern" if line.split_whitespace().nth(1) == Some(".func") => {
                // The CUDA runtime's functions: `vprintf` (what `printf` compiles to) prints and
                // `__assertfail` (a failed `assert`) traps; a call of another (`malloc`) leaves
                // out the kernel making it. The declaration may span lines, up to its `;`.
                let decl = declaration(&lines, &mut i, "an `.extern .func` declaration")?;
                if extern_function_name(&decl).is_none() {
                    return Err(parse_err(lineno, format!("malformed `.extern .func` declaration `{decl}`")));
                }
                i += 1;
            }
            ".extern" if line.split_whitespace().nth(1) == Some(".shared") => {
                let decl = line.strip_prefix(".extern").unwrap_or(line).trim().trim_end_matches(';').trim();
                let Some(open_ended) = decl.strip_suffix("[]") else {
                    return Err(unsupported(
                        lineno,
                        format!("`.extern .shared` array with a size (`{line}`)"),
                    ));
                };
                let mut def = parse_array_decl(&format!("{open_ended}[0]"), lineno)?;
                def.bytes = 0;
                dynamic.push(def);
                i += 1;
            }
            // `[.visible|.weak] .shared`: LLVM marks a `__shared__` variable `.visible`, which
            // changes nothing within one module.
            ".shared" | ".visible" | ".weak"
                if first == ".shared" || line.split_whitespace().nth(1) == Some(".shared") =>
            {
                let decl = declaration(&lines, &mut i, "a shared variable declaration")?;
                let decl = decl.trim().trim_start_matches(".visible").trim_start_matches(".weak").trim();
                statics.push(parse_array_decl(decl.trim_end_matches(';').trim(), lineno)?);
                i += 1;
            }
            // `.extern .global`: a variable another module defines (`extern __device__`, with
            // `-rdc=true`), which the simulator does not link: the kernels naming it are left
            // out, not the module.
            ".extern" if declares_variable(line.trim_start_matches(".extern")) => {
                let decl = declaration(&lines, &mut i, "a variable declaration")?;
                let name = match parse_data_decl(decl.trim().trim_start_matches(".extern"), lineno)? {
                    DataDecl::Laid(def) => def.name,
                    DataDecl::Unlaid { name, .. } => name,
                };
                // A declaration of a variable the module defines too is that definition's.
                let defines = |l: &&str| {
                    declares_variable(l)
                        && matches!(parse_data_decl(l, 0), Ok(DataDecl::Laid(def)) if def.name == name)
                };
                if lines.iter().any(defines) {
                    i += 1;
                    continue;
                }
                let why = unsupported(
                    lineno,
                    format!("the `.extern` variable `{name}`, defined in another module (the simulator links none)"),
                );
                bad_data.push((name, why));
                i += 1;
            }
            // `.weak` and `.common` (linking directives, `-rdc=true`'s `inline __device__`
            // variables) define the variable as a plain one does within one module.
            _ if declares_variable(line) => {
                let decl = declaration(&lines, &mut i, "a variable declaration")?;
                let def = match parse_data_decl(&decl, lineno)? {
                    DataDecl::Laid(def) => def,
                    // It leaves out the kernels that name it, not the module.
                    DataDecl::Unlaid { name, why } => {
                        bad_data.push((name, why));
                        i += 1;
                        continue;
                    }
                };
                if data.iter().any(|d| d.name == def.name) {
                    return Err(parse_err(lineno, format!("variable `{}` is declared twice", def.name)));
                }
                data.push(def);
                i += 1;
            }
            // Device functions were read before the kernels (above).
            ".visible" | ".weak" | ".func" | ".entry" if line.contains(".func") => {
                i = end_of_definition(&lines, i);
            }
            // `.weak .entry`: an explicitly instantiated template kernel (NVRTC).
            ".visible" | ".entry" | ".weak" if line.contains(".entry") || first != ".weak" => {
                let name = definition_name(&lines, i);
                if kernels.iter().any(|x: &KernelCode| x.name == name)
                    || left_out.iter().any(|(n, _)| *n == name)
                {
                    return Err(parse_err(lineno, format!("kernel `{name}` is defined twice")));
                }
                let end = end_of_definition(&lines, i);
                let uses = |v: &str| uses_word(&lines, i..end, v, &func_lines, &mut Vec::new());
                if let Some((variable, why)) = bad_data.iter().find(|(v, _)| uses(v)) {
                    let why = match why {
                        SimError::Unsupported { line, what } => SimError::Unsupported {
                            line: *line,
                            what: format!("{what} (the variable `{variable}`, which kernel `{name}` uses)"),
                        },
                        other => other.clone(),
                    };
                    left_out.push((name, why));
                    i = end;
                    continue;
                }
                match parse_entry(&lines, &mut i, &files, (&statics, &dynamic), &data, &funcs) {
                    Ok(k) => kernels.push(k),
                    // One kernel using what the simulator lacks does not keep the others
                    // from loading: launching it reports the construct.
                    Err(SimError::Unsupported { line, what }) => {
                        // A call to a function the simulator could not read names why.
                        let e = match bad_funcs.iter().find(|(f, _)| what.contains(&format!("`{f}`"))) {
                            Some((_, why)) => why.clone(),
                            None => {
                                SimError::Unsupported { line, what: format!("{what} in kernel `{name}`") }
                            }
                        };
                        left_out.push((name, e));
                        i = end_of_definition(&lines, lineno - 1);
                    }
                    Err(e) => return Err(e),
                }
            }
            // Source file table entries and aliases: read before the kernels (above).
            ".file" => i += 1,
            ".alias" => {
                declaration(&lines, &mut i, "an `.alias` directive")?;
                i += 1;
            }
            // A hint to the compiler (`.pragma "nounroll";`), as in a body: nothing to run.
            ".pragma" => {
                let decl = declaration(&lines, &mut i, "a `.pragma` directive")?;
                if !pragma_arguments(&decl) {
                    return Err(parse_err(lineno, format!("malformed `.pragma` directive `{decl}`")));
                }
                i += 1;
            }
            ".section" => {
                // Debug information (`.section .debug_info { .b8 ... }`): nothing to run; the
                // block is skipped to its closing brace.
                let (mut depth, mut opened) = (0i64, false);
                loop {
                    let Some(l) = lines.get(i) else {
                        return Err(parse_err(lineno, "a `.section` is missing its closing `}`"));
                    };
                    depth += l.matches('{').count() as i64 - l.matches('}').count() as i64;
                    opened |= l.contains('{');
                    i += 1;
                    if opened && depth <= 0 {
                        break;
                    }
                }
            }
            _ if first.starts_with('.') => {
                return Err(unsupported(lineno, format!("module directive `{first}` (`{line}`)")));
            }
            _ => return Err(parse_err(lineno, format!("expected a directive, found `{line}`"))),
        }
    }
    // ptxas rejects a module without them.
    for directive in [".version", ".target"] {
        if !lines.iter().any(|l| l.split_whitespace().next() == Some(directive)) {
            return Err(parse_err(1, format!("the module has no `{directive}` directive")));
        }
    }
    // Every kernel of the module shares its variables.
    let shared = std::sync::Arc::new(ModuleData::new(data));
    for k in &mut kernels {
        k.data = shared.clone();
    }
    // A module with nothing to run is the first kernel's error.
    if kernels.is_empty() && !left_out.is_empty() {
        return Err(left_out.swap_remove(0).1);
    }
    Ok(Parsed { kernels, unsupported: left_out })
}

/// The two names of `.alias fAlias, fAliasee;` (`decl`, the directive on line `line`): the
/// alias, a function declared without a body, and the function it stands for.
fn alias_names(decl: &str, line: usize) -> Result<(String, String), SimError> {
    let names =
        decl.strip_prefix(".alias").and_then(|r| r.trim().strip_suffix(';')).and_then(|r| r.split_once(','));
    match names.map(|(a, b)| (a.trim(), b.trim())) {
        Some((a, b)) if is_ident(a) && is_ident(b) => Ok((a.to_string(), b.to_string())),
        _ => Err(parse_err(line, format!("malformed `.alias` directive `{decl}`"))),
    }
}

/// Makes `alias` of `.alias alias, aliasee;` (`directive`, with its 1-based line; `aliases`
/// all the module's, so that an aliasee that is an alias itself is followed to the function
/// it stands for) a device function of `funcs` with `aliasee`'s parameters and body, so that
/// a call of it calls `aliasee`; or, where the simulator could not read `aliasee`, one of
/// `bad_funcs` with its reason. `func_lines` gets the alias with `aliasee`'s lines. As to
/// ptxas, the alias must be a function declared without a body and `aliasee` one the module
/// defines (ptxas also checks that their prototypes match; a call of the alias is checked
/// against `aliasee`'s).
fn add_alias(
    directive: &(usize, String, String),
    aliases: &[(usize, String, String)],
    funcs: &mut Vec<FuncDef>,
    bad_funcs: &mut Vec<(String, SimError)>,
    func_lines: &mut Vec<(String, std::ops::Range<usize>)>,
) -> Result<(), SimError> {
    let (line, alias, aliasee) = directive;
    let declared = func_lines.iter().any(|(n, _)| n == alias);
    if !declared || funcs.iter().any(|f| f.name == *alias) {
        return Err(parse_err(
            *line,
            format!("`.alias {alias}, {aliasee}`: `{alias}` is no function declared without a body"),
        ));
    }
    let mut target = aliasee;
    for _ in 0..aliases.len() {
        match aliases.iter().find(|(_, a, _)| a == target) {
            Some((_, _, b)) => target = b,
            None => break,
        }
    }
    let ranges: Vec<_> = func_lines.iter().filter(|(n, _)| n == target).map(|(_, r)| r.clone()).collect();
    func_lines.extend(ranges.into_iter().map(|r| (alias.clone(), r)));
    if let Some(f) = funcs.iter().find(|f| f.name == *target) {
        let def = FuncDef { name: alias.clone(), ..f.clone() };
        funcs.push(def);
    } else if let Some((_, why)) = bad_funcs.iter().find(|(n, _)| n == target) {
        let why = why.clone();
        bad_funcs.push((alias.clone(), why));
    } else {
        return Err(parse_err(
            *line,
            format!("`.alias {alias}, {aliasee}`: the module defines no function `{target}`"),
        ));
    }
    Ok(())
}

/// Whether the `.pragma` directive `decl` (with or without its `;`) gives a list of strings,
/// as the PTX ISA writes its arguments: `.pragma "nounroll";`.
fn pragma_arguments(decl: &str) -> bool {
    let mut rest = decl.trim().trim_start_matches(".pragma").trim_end_matches(';').trim();
    loop {
        // One string (a comma inside it is part of it), then a comma and another, or the end.
        let Some(inside) = rest.strip_prefix('"') else { return false };
        let Some(close) = inside.find('"') else { return false };
        rest = inside[close + 1..].trim_start();
        match rest.strip_prefix(',') {
            Some(more) => rest = more.trim_start(),
            None => return rest.is_empty(),
        }
    }
}

/// Whether the lines `range` name `word` (a register's `%` kept: `%p` is no variable `p`),
/// themselves or through the functions of `funcs` they name, and those functions' (`seen`
/// holds the functions already searched).
fn uses_word<'f>(
    lines: &[&str],
    range: std::ops::Range<usize>,
    word: &str,
    funcs: &'f [(String, std::ops::Range<usize>)],
    seen: &mut Vec<&'f str>,
) -> bool {
    let words = || {
        lines[range.clone()]
            .iter()
            .flat_map(|l| l.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '%')))
    };
    if words().any(|w| w == word) {
        return true;
    }
    let called: Vec<&'f (String, std::ops::Range<usize>)> = funcs
        .iter()
        .filter(|(name, _)| !seen.contains(&name.as_str()) && words().any(|w| w == name))
        .collect();
    called.into_iter().any(|(name, body)| {
        seen.push(name);
        uses_word(lines, body.clone(), word, funcs, seen)
    })
}

/// A declaration's `name[N][M]..` as the name and each dimension's text (`""` for `[]`);
/// no dimensions without brackets, `None` for a `[` without its closing `]`.
fn array_spec(spec: &str) -> Option<(&str, Vec<&str>)> {
    match spec.split_once('[') {
        None => Some((spec, Vec::new())),
        Some((name, brackets)) => Some((name, brackets.strip_suffix(']')?.split("][").collect())),
    }
}

/// A module variable's declaration as the simulator takes it.
enum DataDecl {
    /// Laid out in memory.
    Laid(DataDef),
    /// Valid PTX whose initial values name a symbol's address (`{sq}`, `generic(x)`), or of a
    /// type it has no values of (`.texref`), which the simulator does not lay out: why, for
    /// the kernels that name the variable.
    Unlaid { name: String, why: SimError },
}

/// Whether `line` begins a module variable's definition: `[.visible|.weak|.common]
/// (.global|.const) ..`, not a function's or kernel's.
fn declares_variable(line: &str) -> bool {
    let mut words = line.split_whitespace();
    matches!(words.next(), Some(".global" | ".const" | ".visible" | ".weak" | ".common"))
        && line.split_whitespace().any(|w| w == ".global" || w == ".const")
        && !line.contains(".entry")
        && !line.contains(".func")
}

/// `[.visible|.weak|.common] (.global|.const) [.align A] [.v2|.v4] .type name[N][M].. [= value | = {values}];`:
/// the variable's bytes as initialised (zero without an initialiser; a nested list's
/// missing values too). A variable invalid as declared (a malformed value, past 2^64 bytes)
/// is an error.
fn parse_data_decl(decl: &str, line: usize) -> Result<DataDecl, SimError> {
    let decl = decl.trim().trim_end_matches(';').trim();
    let (head, init) = match decl.split_once('=') {
        Some((h, i)) => (h.trim(), Some(i.trim())),
        None => (decl, None),
    };
    let head = without_attribute(head, line)?;
    let toks: Vec<&str> =
        head.split_whitespace().filter(|t| !matches!(*t, ".visible" | ".weak" | ".common")).collect();
    let (align, rest) = match toks.as_slice() {
        [".global" | ".const", ".align", a, rest @ ..] => {
            let a = a.parse::<u32>().map_err(|_| parse_err(line, format!("bad alignment `{a}`")))?;
            // (ptxas: "Alignment must be a power of two"; 0 is not one.)
            if !a.is_power_of_two() {
                return Err(parse_err(line, format!("alignment {a} is not a power of two")));
            }
            (a, rest)
        }
        [".global" | ".const", rest @ ..] => (0, rest),
        _ => return Err(unsupported(line, format!("variable declaration `{head}`"))),
    };
    // A vector type (`.v2 .u32`) is that many elements of the type per item.
    let (lanes, ty, spec) = match rest {
        [v @ (".v2" | ".v4"), ty, spec] => (if *v == ".v2" { 2 } else { 4 }, *ty, *spec),
        [ty, spec] => (1, *ty, *spec),
        _ => return Err(unsupported(line, format!("variable declaration `{head}`"))),
    };
    let type_name = ty;
    // `name`, `name[N]`, `name[]` (its length from the initialiser) and more dimensions.
    let bad = || parse_err(line, format!("bad array size in `{spec}`"));
    let (name, dim_texts) = array_spec(spec).ok_or_else(bad)?;
    let mut dims = Vec::new();
    for (k, d) in dim_texts.into_iter().enumerate() {
        dims.push(match d {
            "" if k == 0 => None,
            d => Some(d.parse::<usize>().map_err(|_| bad())?),
        });
    }
    if !is_ident(name) {
        return Err(parse_err(line, format!("bad variable name `{name}`")));
    }
    // A type the simulator has no values of (a texture reference, `.texref`): valid PTX it
    // leaves out the kernels using.
    let Some(ty) = element_type(type_name) else {
        let why = unsupported(line, format!("variable type `{type_name}`"));
        return Ok(DataDecl::Unlaid { name: name.to_string(), why });
    };
    let size = ty.bytes() as usize;
    if size * lanes > 16 {
        return Err(parse_err(
            line,
            format!("`{name}`: a `.v{lanes}` of {size}-byte elements is more than a vector's 16 bytes"),
        ));
    }
    let mut shape: Vec<Option<usize>> = dims;
    if lanes > 1 {
        shape.push(Some(lanes));
    }
    let mut values = Vec::new();
    let first = match init {
        None => shape.first().copied().flatten(),
        Some(list) if shape.is_empty() => {
            values.push(Some(list));
            None
        }
        Some(list) => Some(
            initial_values(list, &shape, lanes, &mut values)
                .map_err(|why| parse_err(line, format!("`{name}`: {why}")))?,
        ),
    };
    let count = match shape.split_first() {
        None => Some(1),
        Some((d0, inner)) => {
            inner.iter().try_fold(d0.or(first).unwrap_or(0), |n, d| n.checked_mul(d.unwrap_or(0)))
        }
    };
    let Some(total) = count.and_then(|c| c.checked_mul(size)) else {
        return Err(unsupported(
            line,
            format!("`{name}`: {spec} of {size}-byte elements, more than 2^64 bytes"),
        ));
    };
    if values.len() * size > total {
        return Err(parse_err(
            line,
            format!("`{name}` has {} initial values for {} elements", values.len(), total / size.max(1)),
        ));
    }
    let mut bytes = vec![0u8; values.len() * size];
    for (k, v) in values.iter().enumerate() {
        let Some(v) = v else { continue };
        if let Some(why) = float_overflow(v) {
            return Err(parse_err(line, format!("`{name}`: {why}")));
        }
        let Some(bits) = data_value(v, ty) else {
            // A symbol's address (`sq`, `generic(x)`, `x+8`): valid PTX the simulator does not
            // lay out; anything else is a malformed value.
            let symbol = v.trim_start_matches("generic(").split(['+', ')']).next().is_some_and(is_ident);
            // A malformed integer expression (`1 / 0`) says what is wrong with it.
            let integer = !symbol && !ty.is_float() && !mentions_float(v);
            if let (true, Err(e)) = (integer, int_const(v)) {
                return Err(parse_err(line, format!("`{name}`: {e}")));
            }
            let what = if symbol { "the address" } else { "initial value" };
            let why = unsupported(
                line,
                format!(
                    "{what} `{v}` as an initial value of `{name}` (integer and float literals and 0f/0d bit \
                     patterns are supported)"
                ),
            );
            return if symbol { Ok(DataDecl::Unlaid { name: name.to_string(), why }) } else { Err(why) };
        };
        bytes[k * size..(k + 1) * size].copy_from_slice(&bits.to_le_bytes()[..size]);
    }
    // Without `.align` a variable is aligned to its element size (a vector's to its own).
    let align = if align == 0 { (size * lanes) as u32 } else { align };
    Ok(DataDecl::Laid(DataDef { name: name.to_string(), align, bytes: total, init: bytes }))
}

/// Appends to `out` the values of the initialiser `list` of an array of `shape` (outermost
/// first; `None` only for an outermost `[]`), in memory order, `None` for each value a
/// shorter inner list leaves zero; returns how many items the outermost list has. Each
/// level is a braced list (`{{1, 2}, {3}}` of a `[2][2]`; ptxas refuses a flat one).
fn initial_values<'a>(
    list: &'a str,
    shape: &[Option<usize>],
    lanes: usize,
    out: &mut Vec<Option<&'a str>>,
) -> Result<usize, String> {
    let inner = list
        .trim()
        .strip_prefix('{')
        .and_then(|l| l.strip_suffix('}'))
        .ok_or_else(|| format!("an array's initial values are a braced list, not `{list}`"))?;
    let items = split_top_level(inner)?;
    let Some((outer, rest)) = shape.split_first() else {
        return Err(format!("too many levels of braces in `{list}`"));
    };
    if rest.is_empty() {
        if items.iter().any(|i| i.starts_with('{')) {
            return Err(format!("too many levels of braces in `{list}`"));
        }
        // A vector's list is whole (ptxas: "Incorrect number of elements").
        if lanes > 1 && items.len() != lanes {
            return Err(format!(
                "a `.v{lanes}` value takes {lanes} elements, not {} (`{list}`)",
                items.len()
            ));
        }
        if outer.is_some_and(|n| items.len() > n) {
            return Err(format!("{} initial values for {} elements", items.len(), outer.unwrap_or(0)));
        }
        out.extend(items.iter().map(|i| Some(*i)));
        return Ok(items.len());
    }
    if let Some(flat) = items.iter().find(|i| !i.starts_with('{')) {
        return Err(format!("`{flat}` where a braced list of the next dimension goes"));
    }
    let width = rest.iter().map(|d| d.unwrap_or(0)).product::<usize>();
    if outer.is_some_and(|n| items.len() > n) {
        return Err(format!("{} lists for {} rows", items.len(), outer.unwrap_or(0)));
    }
    for item in &items {
        let start = out.len();
        initial_values(item, rest, lanes, out)?;
        // Each row is padded to its full width: a huge inner dimension would be a huge
        // list (`[2][1 << 31]` asked for 32 GiB and aborted the process).
        if start + width > MAX_INITIALISED_ELEMENTS {
            return Err(format!(
                "an initialiser reaching past {MAX_INITIALISED_ELEMENTS} elements (rows padded to their \
                 width of {width}) is more than the simulator lays out"
            ));
        }
        out.resize(start + width, None);
    }
    Ok(items.len())
}

/// The most elements (padding of nested rows included) an initialiser may reach.
const MAX_INITIALISED_ELEMENTS: usize = 1 << 24;

/// The comma-separated items of a list's inside, braces kept whole (`{1, 2}, {3, 4}`).
fn split_top_level(inner: &str) -> Result<Vec<&str>, String> {
    let (mut items, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (k, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(inner[start..k].trim());
                start = k + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return Err(format!("unbalanced braces in `{{{inner}}}`"));
        }
    }
    if depth != 0 {
        return Err(format!("unbalanced braces in `{{{inner}}}`"));
    }
    items.push(inner[start..].trim());
    // `{}` is an empty list; an empty item (`{1, 2,}`) is a syntax error to ptxas.
    if items.len() == 1 && items[0].is_empty() {
        items.clear();
    }
    if items.iter().any(|i| i.is_empty()) {
        return Err(format!("an empty value in `{{{inner}}}`"));
    }
    Ok(items)
}

/// The element type of a variable or array declaration (`.f32`, `.u64`, ...): `.b8` (bytes:
/// what compilers declare arrays and initialised data as) holds like `.u8`; `None` for
/// `.pred` and what is no type.
fn element_type(ty: &str) -> Option<PtxType> {
    match ty {
        ".b8" => Some(PtxType::U8),
        other => other.strip_prefix('.').and_then(PtxType::from_ptx_name).filter(|t| *t != PtxType::Pred),
    }
}

/// A variable declaration's head without its `.attribute(..)`s: `.managed` (a CUDA
/// `__managed__` variable) and `.unified(uuid1, uuid2)`, which make it memory the host and
/// the device share; the simulator's device memory is the host's, so such a variable is a
/// plain `.global` one. Another attribute (ptxas: a syntax error), or one of a variable that
/// is not `.global`, is an error.
fn without_attribute(head: &str, line: usize) -> Result<String, SimError> {
    let mut rest = head.to_string();
    while let Some((before, after)) = rest.split_once(".attribute") {
        let malformed = || parse_err(line, format!("malformed `.attribute` in `{head}`"));
        let inside = after.trim_start().strip_prefix('(').ok_or_else(malformed)?;
        let (list, after) = balanced(inside).ok_or_else(malformed)?;
        for attribute in attributes(list) {
            let unified = attribute.strip_prefix(".unified").is_some_and(|u| u.trim_start().starts_with('('));
            if attribute != ".managed" && !unified {
                return Err(parse_err(
                    line,
                    format!("unknown variable attribute `{attribute}` (the PTX ISA's are `.managed` and `.unified(..)`)"),
                ));
            }
        }
        if !before.contains(".global") {
            return Err(parse_err(line, format!("`.attribute({list})` of a variable that is not `.global`")));
        }
        rest = format!("{before} {after}");
    }
    Ok(rest)
}

/// The comma-separated items of an `.attribute(..)` list, commas inside parentheses kept
/// (`.managed, .unified(1, 2)`).
fn attributes(list: &str) -> Vec<&str> {
    let (mut items, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (k, c) in list.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                items.push(list[start..k].trim());
                start = k + 1;
            }
            _ => {}
        }
    }
    items.push(list[start..].trim());
    items
}

/// `text` (after an opening `(`) split at the `)` that closes it: the inside and the text
/// after the `)`; `None` when it is never closed.
fn balanced(text: &str) -> Option<(&str, &str)> {
    let mut depth = 1usize;
    for (k, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 1 => return Some((&text[..k], &text[k + 1..])),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// One initial value: an integer constant expression (literals decimal, `0x` hex, `0b`
/// binary, `0` octal, with an optional `U` suffix; `3 + 4`, `1 << 8`; negative values in
/// two's complement), the bits of a float (`0f`/`0d`, as an instruction's immediate reads
/// them: [`hex_float_bits`]), or a decimal float (`1.5`, `1e-3`) of an `.f32`/`.f64`
/// variable.
fn data_value(v: &str, ty: PtxType) -> Option<u64> {
    if is_hex_float(v) {
        return hex_float_bits(v, ty);
    }
    if ty.is_float() && !v.starts_with("0x") {
        return float_literal_bits(v, ty.bits());
    }
    int_const(v).ok().map(|c| c.bits)
}

/// Whether an `.entry` header read so far reaches its body's `{` before any `(`: a kernel
/// without a parameter list.
fn entry_has_no_parameter_list(header: &str) -> bool {
    match (header.find('{'), header.find('(')) {
        (Some(brace), Some(paren)) => brace < paren,
        (Some(_), None) => true,
        (None, _) => false,
    }
}

/// Parses `.visible .entry name(...) { ... }` (or `.entry name { ... }`) starting at line
/// `*i`; leaves `*i` after `}`.
fn parse_entry(
    lines: &[&str],
    i: &mut usize,
    files: &[(u32, String)],
    (statics, dynamic): (&[SharedDef], &[SharedDef]),
    data: &[DataDef],
    funcs: &[FuncDef],
) -> Result<KernelCode, SimError> {
    let start = *i + 1;
    // Gather the header up to and including ')', or up to the body's `{` when the kernel
    // has no parameter list (`.entry k { .. }`, which the PTX ISA allows).
    let mut header = String::new();
    loop {
        let Some(l) = lines.get(*i) else {
            return Err(parse_err(start, "unterminated `.entry` header (missing `)` or `{`)"));
        };
        header.push_str(l);
        header.push(' ');
        *i += 1;
        if header.contains(')') || entry_has_no_parameter_list(&header) {
            break;
        }
    }
    let (head, rest) = match entry_has_no_parameter_list(&header) {
        // An empty list, then what follows the name.
        true => {
            let name_at = header.find(".entry").map_or(0, |e| e + ".entry".len());
            let name_start = name_at + (header[name_at..].len() - header[name_at..].trim_start().len());
            let name_end = header[name_start..]
                .find(|c: char| c.is_whitespace() || c == '{')
                .map_or(header.len(), |e| e + name_start);
            (&header[..name_end], format!(")\n{}", &header[name_end..]))
        }
        false => header
            .split_once('(')
            .map(|(head, rest)| (head, rest.to_string()))
            .ok_or_else(|| parse_err(start, "`.entry` needs a parameter list `( ... )`"))?,
    };
    let rest = rest.as_str();
    let mut hw = head.split_whitespace();
    let mut name = None;
    for w in hw.by_ref() {
        match w {
            ".visible" | ".weak" => {}
            ".entry" => {
                name = hw.next();
                break;
            }
            other => return Err(unsupported(start, format!("entry attribute `{other}`"))),
        }
    }
    let name = name
        .filter(|n| is_ident(n))
        .ok_or_else(|| parse_err(start, "`.entry` needs a kernel name"))?
        .to_string();
    if hw.next().is_some() {
        return Err(parse_err(start, "unexpected text between the kernel name and `(`"));
    }
    let (plist, after) = rest.split_once(')').unwrap_or((rest, ""));
    let mut params = Vec::new();
    for p in plist.split(',') {
        let p = p.trim();
        if p.is_empty() {
            continue;
        }
        // Each refusal is ptxas's too: invalid PTX, an error for the whole module.
        let decl =
            crate::signature::param(p).map_err(|why| parse_err(start, format!("the parameter {why}")))?;
        params.push(decl);
    }
    let mut after = after.trim().to_string();
    // Find the opening brace, past the performance directives (`.maxntid 256, 1, 1`,
    // `.reqntid`, `.minnctapersm 2`, ...; several may share a line): `.maxntid` and
    // `.reqntid` limit the block shape a launch may use, the others only guide the compiler.
    let mut block_limit = BlockLimit::None;
    let mut cluster = None;
    loop {
        after = after.trim().to_string();
        if after.is_empty() {
            let Some(l) = lines.get(*i) else {
                return Err(parse_err(start, "kernel body `{` missing"));
            };
            after = l.to_string();
            *i += 1;
            continue;
        }
        if after.starts_with('{') {
            break;
        }
        let directive = after.split_whitespace().next().unwrap_or("").to_string();
        let (args, rest) = directive_arguments(&directive, &after[directive.len()..]);
        match directive.as_str() {
            ".maxntid" | ".reqntid" | ".reqnctapercluster" => {
                let malformed = || parse_err(*i, format!("malformed `{directive}{args}`"));
                let dims: Vec<u32> = args
                    .split(',')
                    .map(|d| d.trim().trim_end_matches(';').trim().parse::<u32>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| malformed())?;
                if dims.is_empty() || dims.len() > 3 {
                    return Err(malformed());
                }
                // (ptxas: "Positive non-zero value expected", for all three.)
                if dims.contains(&0) {
                    return Err(parse_err(*i, format!("`{directive}{args}` has a zero dimension")));
                }
                let mut d = [1u32; 3];
                d[..dims.len()].copy_from_slice(&dims);
                match directive.as_str() {
                    ".maxntid" => block_limit = BlockLimit::Max(d),
                    ".reqntid" => block_limit = BlockLimit::Exactly(d),
                    _ => cluster = Some(d),
                }
            }
            ".minnctapersm" | ".maxnreg" | ".maxclusterrank" | ".explicitcluster" | ".noreturn"
            | ".pragma" => {}
            // PTX 9.0's: the launch's grid counts clusters of `.reqnctapercluster` blocks, a
            // launch the simulator does not make. The kernel is left out, not the module.
            ".blocksareclusters" => {
                return Err(unsupported(
                    start,
                    "entry directive `.blocksareclusters` (a grid counted in clusters of blocks)",
                ))
            }
            _ => break,
        }
        after = rest.to_string();
    }
    let Some(first) = after.strip_prefix('{') else {
        return Err(parse_err(*i, format!("expected `{{` to open the body of `{name}`, found `{after}`")));
    };

    let body = parse_body(lines, i, files, &name, start, (first, *i))?;
    let mut registers = body.regs.iter().map(|r| u64::from(r.count)).sum();
    let body = inline_calls(body, funcs, &mut 0, &mut registers, &mut Vec::new())?;
    let Body { regs, shared, locals, items } = body;
    // The module's `.shared` variables the kernel names, then its own (which shadow them).
    let shared = statics.iter().filter(|v| names(&items, &v.name)).cloned().chain(shared).collect();
    let mut kernel =
        decode_kernel(name, params, regs, Arrays { shared, dynamic, locals, data }, items, start)?;
    kernel.block_limit = block_limit;
    kernel.cluster = cluster;
    Ok(kernel)
}

/// Whether a statement of `items` names `name` as an operand (alone, or in an address or
/// expression such as `[name+4]`).
fn names(items: &[BodyItem], name: &str) -> bool {
    items.iter().any(|item| match item {
        BodyItem::Instr(s) => s.operands.iter().any(|o| {
            o.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$')).any(|w| w == name)
        }),
        BodyItem::Label(..) => false,
    })
}

/// A performance directive's arguments in `text` (what follows the directive's name on its
/// line), and the text after them: up to the next directive or the body's `{`, or for
/// `.pragma` up to its `;`.
fn directive_arguments<'t>(directive: &str, text: &'t str) -> (&'t str, &'t str) {
    if directive == ".pragma" {
        return text.split_once(';').unwrap_or((text, ""));
    }
    let bytes = text.as_bytes();
    let end = (0..bytes.len())
        .find(|&k| {
            bytes[k] == b'{'
                || (bytes[k] == b'.'
                    && (k == 0 || bytes[k - 1].is_ascii_whitespace())
                    && bytes.get(k + 1).is_some_and(u8::is_ascii_alphabetic))
        })
        .unwrap_or(bytes.len());
    text.split_at(end)
}

/// A device function (`.func`): its results and parameters, and its body, inlined at
/// every call.
#[derive(Clone)]
pub(crate) struct FuncDef {
    name: String,
    ret: Vec<FuncParam>,
    params: Vec<FuncParam>,
    body: Body,
}

/// A device function's parameter or result.
#[derive(Clone)]
enum FuncParam {
    /// `.param .T name` (or a byte array): the call passes a call-sequence `.param` of its
    /// own, which the inlined body reads or writes under the parameter's name.
    Param(String),
    /// `.reg .T name`: the call passes a register or an immediate (`call (%r3), f, (%r1, 41);`),
    /// copied in (and, for a result, out) by a `mov` of type `ty` (`.b32`) to a register
    /// of the body's own.
    Reg {
        /// The register's name as declared (`a` or `%a`).
        name: String,
        /// Its type as written (`.b32`).
        ty: String,
    },
}

/// The name a `.param` declaration (after `.param`) declares: a scalar `.T name` (`.b8`, a
/// CUDA `bool` or `char`, too), or a byte array `[.align A] .b8 name[N]` (a structure passed
/// or returned by value; its fields are reached at offsets, `[name+8]`).
fn param_name(decl: &str) -> Option<&str> {
    let toks: Vec<&str> = decl.split_whitespace().collect();
    let (ty, name) = match toks.as_slice() {
        [ty, name] => (*ty, *name),
        [".align", a, ty, name] if a.parse::<u32>().is_ok() => (*ty, *name),
        _ => return None,
    };
    match name.strip_suffix(']').and_then(|n| n.split_once('[')) {
        Some((n, len)) if ty == ".b8" && len.parse::<u32>().is_ok() && is_ident(n) => Some(n),
        Some(_) => None,
        None if is_ident(name)
            && (ty == ".b8" || PtxType::from_ptx_name(ty.trim_start_matches('.')).is_some()) =>
        {
            Some(name)
        }
        None => None,
    }
}

/// Parses `.func [(.param .T ret)] name(.param .T a, ...) { ... }` starting at line `i`.
fn parse_function(lines: &[&str], i: usize, files: &[(u32, String)]) -> Result<FuncDef, SimError> {
    let start = i + 1;
    let mut at = i;
    let mut header = String::new();
    while !header.contains('{') {
        let Some(l) = lines.get(at) else { return Err(parse_err(start, "`.func` without a body")) };
        header.push_str(l);
        header.push(' ');
        at += 1;
    }
    let (head, after) = header.split_once('{').unwrap_or((&header, ""));
    let name = definition_name(lines, i);
    let head = head.split_once(".func").map_or("", |(_, r)| r).trim();
    // The result list, when there is one, comes before the name.
    let (ret_list, rest) = match head.strip_prefix('(') {
        Some(r) => r.split_once(')').map(|(a, b)| (a, b.trim())).unwrap_or(("", r)),
        None => ("", head),
    };
    let params_list = rest.split_once('(').and_then(|(_, r)| r.rsplit_once(')')).map_or("", |(p, _)| p);
    let names = |list: &str| -> Result<Vec<FuncParam>, SimError> {
        list.split(',').map(str::trim).filter(|p| !p.is_empty()).map(|p| func_param(p, start)).collect()
    };
    let ret = names(ret_list)?;
    let params = names(params_list)?;
    let mut next = at;
    let mut body = parse_body(lines, &mut next, files, &name, start, (after, at))?;
    // `.reg` parameters and results are registers of the body.
    for p in ret.iter().chain(&params) {
        if let FuncParam::Reg { name, ty } = p {
            let t = PtxType::from_ptx_name(ty.trim_start_matches('.'))
                .ok_or_else(|| unsupported(start, format!("function parameter type `{ty}`")))?;
            body.regs.push(reg_spec(name, t, start)?);
        }
    }
    Ok(FuncDef { name, ret, params, body })
}

/// One parameter or result of a `.func` header, `decl` as written, on line `line`.
fn func_param(decl: &str, line: usize) -> Result<FuncParam, SimError> {
    if let Some(n) = decl.strip_prefix(".param").and_then(param_name) {
        return Ok(FuncParam::Param(n.to_string()));
    }
    let words: Vec<&str> = decl.split_whitespace().collect();
    match words.as_slice() {
        [".reg", ty, name] if ty.starts_with('.') => {
            Ok(FuncParam::Reg { name: name.to_string(), ty: ty.to_string() })
        }
        _ => Err(unsupported(
            line,
            format!(
                "function parameter `{decl}` (`.param .T name` of a scalar type, `.param .align A .b8 name[N]` or \
                 `.reg .T name`)"
            ),
        )),
    }
}

/// The operands of `call[.uni] [(ret),] target[, (args)]` in a statement's text: the result
/// parameter, the target and the argument parameters; `None` when malformed.
pub(crate) fn call_operands(text: &str) -> Option<(Option<&str>, &str, Vec<&str>)> {
    // A guard (`@%p call ...`) comes before the opcode.
    let text = match text.trim_start().strip_prefix('@') {
        Some(guarded) => guarded.split_once(char::is_whitespace).map_or("", |(_, r)| r),
        None => text,
    };
    let rest = text.trim_start().split_once(char::is_whitespace).map_or("", |(_, r)| r).trim();
    let (ret, rest) = match rest.strip_prefix('(') {
        Some(r) => {
            let (inside, after) = r.split_once(')')?;
            (Some(inside.trim()), after.trim_start().trim_start_matches(',').trim_start())
        }
        None => (None, rest),
    };
    let (target, args) = rest.split_once(',').map_or((rest.trim(), ""), |(n, a)| (n.trim(), a.trim()));
    let args = args
        .trim_start_matches('(')
        .trim_end_matches(')')
        .split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty());
    Some((ret, target, args.collect()))
}

/// A distinct tag (letters only, as register prefixes need) for inlined call `n`.
fn inline_tag(n: usize) -> String {
    letters_tag("zz", n)
}

/// A tag (letters only) for the per-thread memory of calls inlined `depth` deep: the
/// `.local` frames and call `.param`s of two calls at one depth are never live at once (the
/// first returns before the second starts), so they share bytes, as frames on a stack do.
fn depth_tag(depth: usize) -> String {
    letters_tag("zx", depth)
}

/// Adds `def` to `locals`, or widens the array of its name there to hold it: arrays of
/// one name (each call sequence's `param0`, one function's frame inlined at one depth)
/// are one array.
fn add_local(locals: &mut Vec<SharedDef>, def: SharedDef) {
    match locals.iter_mut().find(|l| l.name == def.name) {
        Some(l) => (l.align, l.bytes) = (l.align.max(def.align), l.bytes.max(def.bytes)),
        None => locals.push(def),
    }
}

/// `lead` followed by `n` in letters: a distinct tag per `n`.
fn letters_tag(lead: &str, n: usize) -> String {
    let mut tag = String::from(lead);
    let mut n = n;
    loop {
        tag.push((b'a' + (n % 26) as u8) as char);
        n /= 26;
        if n == 0 {
            return tag;
        }
    }
}

/// Renames in the statement `text`: registers `%name` whose name, or whose prefix before its
/// digits (`%p<digits>`), is in `prefixes` get `tag` in front; other identifiers found in
/// `names` are replaced — but never the opcode or a word after a `.` (a modifier such as
/// `mul.lo`, a directive, a special register's `%tid.x`), which only look like a register
/// named `lo` or `x`. `statement` says whether `text` is a whole statement (or an operand or
/// a guard, which has no opcode).
fn rename(
    text: &str,
    prefixes: &std::collections::HashSet<String>,
    tag: &str,
    names: &std::collections::HashMap<String, String>,
    statement: bool,
) -> String {
    let is_ident_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.char_indices().peekable();
    // An operand or a guard alone has no opcode.
    let mut opcode_seen = !statement;
    while let Some((k, c)) = chars.next() {
        if !is_ident_char(c) {
            out.push(c);
            continue;
        }
        let mut end = k + c.len_utf8();
        while let Some(&(e, d)) = chars.peek() {
            if !is_ident_char(d) {
                break;
            }
            end = e + d.len_utf8();
            chars.next();
        }
        let word = &text[k..end];
        let guard = matches!(out.trim_end().chars().last(), Some('@' | '!'));
        if out.ends_with('.') {
            opcode_seen = true;
            out.push_str(word);
        } else if out.ends_with('%') {
            let letters = word.trim_end_matches(|c: char| c.is_ascii_digit());
            if prefixes.contains(word) || prefixes.contains(letters) {
                out.push_str(tag);
            }
            out.push_str(word);
        } else if !opcode_seen && !guard {
            opcode_seen = true;
            out.push_str(word);
        } else {
            out.push_str(names.get(word).map_or(word, String::as_str));
        }
    }
    out
}

/// Calls nested deeper than this (recursion aside) are an unsupported construct.
const MAX_CALL_DEPTH: usize = 256;

/// A kernel may declare fewer registers than this (its callees' inlined copies included).
pub(crate) const MAX_REGISTERS: u64 = 1 << 20;

/// More inlined calls than this in one kernel are an unsupported construct.
const MAX_INLINED_CALLS: usize = 100_000;

/// The deepest recursion inlined for a function with one recursive call site.
const MAX_RECURSION: usize = 64;

/// Statements one recursive function may grow to, inlined to its recursion limit.
const RECURSION_STATEMENTS: usize = 200_000;

/// How many levels of `f` are inlined: [`MAX_RECURSION`] when its body has at most one call
/// (linear recursion); with `k` calls, as many levels as keep the `k^depth` copies of its
/// body within [`RECURSION_STATEMENTS`] (at least 1).
fn recursion_limit(f: &FuncDef, funcs: &[FuncDef]) -> usize {
    let calls = f
        .body
        .items
        .iter()
        .filter(|it| match it {
            BodyItem::Instr(st) if st.opcode == "call" || st.opcode == "call.uni" => {
                call_operands(&st.text).is_some_and(|(_, t, _)| funcs.iter().any(|g| g.name == t))
            }
            _ => false,
        })
        .count();
    if calls <= 1 {
        return MAX_RECURSION;
    }
    let copies = (RECURSION_STATEMENTS / f.body.items.len().max(1)).max(1) as f64;
    ((copies.ln() / (calls as f64).ln()).floor() as usize).clamp(1, MAX_RECURSION)
}

/// The unsupported-construct error of an indirect call at `line`: `what` is the function
/// address taken or the call through a register.
fn indirect_call(line: usize, what: &str) -> SimError {
    unsupported(line, format!("function pointers/indirect calls ({what})"))
}

/// Inlines every call to a function of `funcs` in `body` (recursively: a recursive
/// function to its [`recursion_limit`], beyond which the call traps); `count` numbers the
/// inlined calls, `registers` counts the registers the kernel declares so far, callees'
/// copies included (more than [`MAX_REGISTERS`] is refused at the call that passes it,
/// before copying more: a recursive function declaring 65 536 registers used to be copied
/// thousands of times, minutes and gigabytes, before the register count was checked).
fn inline_calls(
    body: Body,
    funcs: &[FuncDef],
    count: &mut usize,
    registers: &mut u64,
    stack: &mut Vec<String>,
) -> Result<Body, SimError> {
    let Body { mut regs, mut shared, mut locals, items } = body;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let BodyItem::Instr(st) = &item else {
            out.push(item);
            continue;
        };
        let call = st.opcode == "call" || st.opcode == "call.uni";
        if let Some(f) = funcs.iter().find(|f| !call && st.operands.contains(&f.name)) {
            return Err(indirect_call(st.line, &format!("the address of function `{}`", f.name)));
        }
        let Some((ret, target, args)) = call.then(|| call_operands(&st.text)).flatten() else {
            out.push(item);
            continue;
        };
        if target.starts_with('%') {
            return Err(indirect_call(st.line, &format!("`call` through `{target}`")));
        }
        let Some(f) = funcs.iter().find(|f| f.name == target) else {
            out.push(item);
            continue;
        };
        // A recursive call is inlined again up to the function's recursion limit; the call
        // beyond it traps when (if ever) it runs.
        let limit = recursion_limit(f, funcs);
        if stack.iter().filter(|n| *n == target).count() >= limit {
            let mut trap = parse_stmt("trap", st.line)?;
            trap.text = format!(
                "{} (recursion deeper than {limit} levels of `{target}`: the simulator inlines device \
                 functions, up to that depth for this one)",
                st.text
            );
            trap.guard = st.guard.clone();
            trap.source = st.source.clone();
            out.push(BodyItem::Instr(trap));
            continue;
        }
        if stack.len() >= MAX_CALL_DEPTH || *count >= MAX_INLINED_CALLS {
            return Err(unsupported(
                st.line,
                format!(
                    "the call of `{target}`: calls nested deeper than {MAX_CALL_DEPTH} or more than \
                     {MAX_INLINED_CALLS} calls in all, once inlined"
                ),
            ));
        }
        *registers += f.body.regs.iter().map(|r| u64::from(r.count)).sum::<u64>();
        if *registers >= MAX_REGISTERS {
            return Err(unsupported(
                st.line,
                format!("the call of `{target}`: more than 2^20 registers in the kernel once its calls are inlined"),
            ));
        }
        let rets: Vec<&str> = ret.map_or_else(Vec::new, |r| r.split(',').map(str::trim).collect());
        if args.len() != f.params.len() || rets.len() != f.ret.len() {
            return Err(parse_err(
                st.line,
                format!(
                    "`{target}` called with {} argument(s) and {} result(s), it takes {} and gives {}",
                    args.len(),
                    rets.len(),
                    f.params.len(),
                    f.ret.len()
                ),
            ));
        }
        // The callee's own body renamed apart with a fresh tag (its parameters become the
        // arguments, its `ret`s a branch to the end), then its own calls inlined: each
        // statement is renamed once, however deep the calls nest.
        let tag = inline_tag(*count);
        *count += 1;
        let own = &f.body;
        let prefixes: std::collections::HashSet<String> =
            own.regs.iter().filter(|r| !r.prefix.starts_with('=')).map(|r| r.prefix.clone()).collect();
        let mut names = std::collections::HashMap::new();
        for (p, a) in f.params.iter().zip(&args).chain(f.ret.iter().zip(&rets)) {
            if let FuncParam::Param(n) = p {
                names.insert(n.clone(), a.to_string());
            }
        }
        for it in &own.items {
            if let BodyItem::Label(l, _) = it {
                names.insert(l.clone(), format!("{l}_{tag}"));
            }
        }
        let depth = depth_tag(stack.len() + 1);
        for a in &own.locals {
            names.insert(a.name.clone(), format!("{}_{depth}", a.name));
        }
        for a in &own.shared {
            names.insert(a.name.clone(), format!("{}_{tag}", a.name));
        }
        // Registers declared without `%` (`=name`) are renamed like the other names.
        for r in &own.regs {
            if let Some(bare) = r.prefix.strip_prefix('=') {
                names.insert(bare.to_string(), format!("{bare}_{tag}"));
            }
        }
        let end = format!("$__return_{tag}");
        let mut items = Vec::with_capacity(own.items.len() + f.params.len());
        // `.reg` arguments are copied into the body's registers (passed by value).
        for (p, a) in f.params.iter().zip(&args) {
            if let FuncParam::Reg { name, ty } = p {
                let to = rename(name, &prefixes, &tag, &names, false);
                items.push(BodyItem::Instr(parse_stmt(&format!("mov{ty} {to}, {a}"), st.line)?));
            }
        }
        for it in &own.items {
            items.push(match it {
                BodyItem::Label(l, n) => BodyItem::Label(format!("{l}_{tag}"), *n),
                BodyItem::Instr(s) if s.opcode == "ret" || s.opcode == "ret.uni" => {
                    let mut jump = parse_stmt(&format!("bra.uni {end}"), s.line)?;
                    jump.guard =
                        s.guard.as_ref().map(|(neg, g)| (*neg, rename(g, &prefixes, &tag, &names, false)));
                    BodyItem::Instr(jump)
                }
                BodyItem::Instr(s) => BodyItem::Instr(Stmt {
                    text: rename(&s.text, &prefixes, &tag, &names, true),
                    operands: s.operands.iter().map(|o| rename(o, &prefixes, &tag, &names, false)).collect(),
                    guard: s.guard.as_ref().map(|(neg, g)| (*neg, rename(g, &prefixes, &tag, &names, false))),
                    ..s.clone()
                }),
            });
        }
        let renamed = Body {
            regs: own
                .regs
                .iter()
                .map(|r| {
                    let prefix = match r.prefix.strip_prefix('=') {
                        Some(bare) => format!("={bare}_{tag}"),
                        None => format!("{tag}{}", r.prefix),
                    };
                    RegDecl { prefix, ..r.clone() }
                })
                .collect(),
            shared: own
                .shared
                .iter()
                .map(|a| SharedDef { name: format!("{}_{tag}", a.name), ..a.clone() })
                .collect(),
            locals: own
                .locals
                .iter()
                .map(|a| SharedDef { name: format!("{}_{depth}", a.name), ..a.clone() })
                .collect(),
            items,
        };
        stack.push(target.to_string());
        let callee = inline_calls(renamed, funcs, count, registers, stack)?;
        stack.pop();
        // A guarded call: its inlined body is skipped when the guard is false.
        if let Some((negated, p)) = &st.guard {
            let not = if *negated { "" } else { "!" };
            let mut skip = parse_stmt(&format!("@{not}{p} bra.uni {end}"), st.line)?;
            skip.source = st.source.clone();
            out.push(BodyItem::Instr(skip));
        }
        out.extend(callee.items);
        out.push(BodyItem::Label(end, st.line));
        // `.reg` results are copied out, under the call's guard.
        for (r, to) in f.ret.iter().zip(&rets) {
            if let FuncParam::Reg { name, ty } = r {
                let from = rename(name, &prefixes, &tag, &names, false);
                let mut copy = parse_stmt(&format!("mov{ty} {to}, {from}"), st.line)?;
                copy.guard = st.guard.clone();
                copy.source = st.source.clone();
                out.push(BodyItem::Instr(copy));
            }
        }
        regs.extend(callee.regs);
        shared.extend(callee.shared);
        for l in callee.locals {
            add_local(&mut locals, l);
        }
    }
    Ok(Body { regs, shared, locals, items: out })
}

/// The least alignment of a call-sequence `.param` in the thread's memory, whatever it
/// declares: a vector's 16 bytes, so that a vector access at the parameter's start is
/// aligned wherever its sibling call blocks put it (`st.param.v2.u32 [in], {%r1, %r2}` to a
/// `.param .align 4 .b8 in[8]`, which ptxas takes, used to fault only after a call block
/// with a 4-byte parameter).
const CALL_PARAM_ALIGN: u32 = 16;

/// The declarations and statements of a kernel's or a function's `{ ... }`.
#[derive(Clone)]
struct Body {
    regs: Vec<RegDecl>,
    shared: Vec<SharedDef>,
    /// `.local` arrays and call-sequence `.param`s (per-thread memory both).
    locals: Vec<SharedDef>,
    items: Vec<BodyItem>,
}

/// Parses a body from its `{` to its closing `}`: the text `first` after the `{` on its line
/// (`first_line`), then the lines from `*i` (which is left after the `}`).
fn parse_body(
    lines: &[&str],
    i: &mut usize,
    files: &[(u32, String)],
    name: &str,
    start: usize,
    (first, first_line): (&str, usize),
) -> Result<Body, SimError> {
    let mut source: Option<String> = None;
    let mut regs: Vec<RegDecl> = Vec::new();
    let mut shared: Vec<SharedDef> = Vec::new();
    let mut locals: Vec<SharedDef> = Vec::new();
    let mut body: Vec<BodyItem> = Vec::new();
    // Nested `{ }` scopes (inline assembly opens one per `asm`): registers declared inside
    // one are its own, so each scope renames them apart (`%t1` to `%zya…t1`, `t1` to
    // `zya…_t1`) in the statements it holds; inner scopes shadow outer ones.
    let mut scopes: Vec<Scope> = Vec::new();
    let mut scope_count = 0usize;
    // Labels are scoped the same way; branches are resolved once the body is read, since
    // they may jump forward (see [`BlockLabels`]).
    let mut labels = BlockLabels::default();
    // The body may start on the line of its `{` (`first`, on line `first_line`).
    let pending = split_body_line(first.trim()).into_iter().map(|p| (p, first_line)).collect();
    let mut reader = BodyLines { lines, i, pending };
    loop {
        let Some((piece, lineno)) = reader.next() else {
            return Err(parse_err(start, format!("kernel `{name}` is missing its closing `}}`")));
        };
        let mut line = piece.as_str();
        if line.is_empty() {
            continue;
        }
        if line == "}" && scopes.is_empty() {
            break;
        }
        while let Some(rest) = line.strip_prefix('{') {
            let tag = letters_tag("zy", scope_count);
            let parent = scopes.last().map_or(0, |s| s.block);
            scopes.push(Scope::new(tag.clone(), labels.open(parent, tag)));
            scope_count += 1;
            line = rest.trim_start();
        }
        // Scopes closed at the end of this line still hold its statements.
        let mut closing = 0;
        while closing < scopes.len() {
            let Some(rest) = line.strip_suffix('}') else { break };
            closing += 1;
            line = rest.trim_end();
        }
        let close = |scopes: &mut Vec<Scope>| scopes.truncate(scopes.len() - closing);
        if line.is_empty() {
            close(&mut scopes);
            continue;
        }
        if line.starts_with('{') || line.contains('}') && !line.contains('{') {
            return Err(parse_err(lineno, format!("unbalanced `{{ }}` in `{line}`")));
        }
        if let Some(loc) = line.strip_prefix(".loc").filter(|rest| rest.starts_with(char::is_whitespace)) {
            // A source position: it names the source line in fault messages.
            let mut it = loc.split_whitespace();
            let file: Option<u32> = it.next().and_then(|w| w.parse().ok());
            let name = files.iter().find(|(n, _)| Some(*n) == file).map_or("?", |(_, f)| f.as_str());
            let (l, c) = (it.next().unwrap_or("0"), it.next().unwrap_or("0"));
            source = Some(format!("{name}:{l}:{c}"));
            continue;
        }
        if let Some(label) = line.strip_suffix(':') {
            let label = label.trim();
            if !is_ident(label) {
                return Err(parse_err(lineno, format!("malformed label `{line}`")));
            }
            let block = scopes.last().map_or(0, |s| s.block);
            let placed = labels.place(block, label).map_err(|why| parse_err(lineno, why))?;
            body.push(BodyItem::Label(placed, lineno));
            continue;
        }
        // A statement may continue over several lines (compilers split `call`s), up to `;`.
        let mut joined = line.to_string();
        while !joined.ends_with(';') {
            let Some((next, _)) = reader.peek() else { break };
            if next.is_empty() || next.ends_with(':') || next.starts_with('{') || next.starts_with('}') {
                break;
            }
            joined.push(' ');
            joined.push_str(next);
            reader.next();
        }
        let Some(stmts) = joined.strip_suffix(';') else {
            return Err(parse_err(lineno, format!("statement `{line}` does not end with `;`")));
        };
        for stmt in stmts.split(';') {
            let stmt = stmt.trim();
            // `@ %p mov ..`, `@! %p ..`: the guard written apart from its predicate.
            let guard;
            let stmt = if stmt.starts_with('@') {
                guard = tight_guard(stmt);
                guard.as_str()
            } else {
                stmt
            };
            if stmt.is_empty() {
                return Err(parse_err(lineno, "empty statement"));
            }
            if let (Some(scope), true) = (scopes.last_mut(), stmt.starts_with(".reg")) {
                scope.declare(stmt);
            }
            let renamed = scopes.iter().rev().fold(stmt.to_string(), |text, scope| scope.rename(&text));
            let stmt = renamed.as_str();
            if stmt.starts_with(".pragma") {
                // Hints to the optimiser (`.pragma "nounroll";`): nothing to execute.
                if !pragma_arguments(stmt) {
                    return Err(parse_err(lineno, format!("malformed `.pragma` directive `{stmt};`")));
                }
                continue;
            }
            if stmt.starts_with(".reg") {
                regs.extend(parse_reg_decl(stmt, lineno)?);
            } else if stmt.starts_with(".shared") {
                shared.push(parse_array_decl(stmt, lineno)?);
            } else if stmt.starts_with(".param") {
                // A call's argument or result (`.param .b64 param0;` in a call sequence): bytes
                // of the thread's own, as on a GPU, which the caller's `st.param`s and the
                // callee's `ld.param`s reach at any offset and width, and a `mov` of its name
                // gives the address of (LLVM indexes a structure passed by value so). Each
                // call sequence's scope declares its own, one after another, each aligned to
                // at least `CALL_PARAM_ALIGN`.
                let mut param = parse_array_decl(stmt, lineno)?;
                param.align = param.align.max(CALL_PARAM_ALIGN);
                add_local(&mut locals, param);
            } else if stmt.starts_with(".branchtargets") {
                // `tlist: .branchtargets L1, L2;`, the targets of `brx.idx`: a statement
                // naming its label first, so that inlining renames it with the others.
                let Some(BodyItem::Label(list, _)) = body.last() else {
                    return Err(parse_err(lineno, "`.branchtargets` without a label"));
                };
                let mut s = parse_stmt(stmt, lineno)?;
                s.operands.insert(0, list.clone());
                labels.item(scopes.last().map_or(0, |s| s.block), body.len());
                body.push(BodyItem::Instr(s));
            } else if stmt.starts_with(".local") {
                // A per-thread array (compilers' stack frame `__local_depot`): laid out like
                // a shared one, in the thread's own memory.
                locals.push(parse_array_decl(stmt, lineno)?);
            } else if stmt.starts_with('.') {
                let d = stmt.split_whitespace().next().unwrap_or(stmt);
                return Err(unsupported(lineno, format!("directive `{d}` in a kernel body")));
            } else {
                let mut s = parse_stmt(stmt, lineno)?;
                s.source = source.clone();
                labels.item(scopes.last().map_or(0, |s| s.block), body.len());
                body.push(BodyItem::Instr(s));
            }
        }
        close(&mut scopes);
    }
    labels.resolve(&mut body);
    Ok(Body { regs, shared, locals, items: body })
}

/// The body's text as pieces, each with its 1-based line: a physical line is cut after each
/// `;` (outside strings), before and after each scope brace and after a label's `:`, so that
/// `L1: add.u32 ..;`, `ret; }` and `{ .reg .b32 t; mov.b32 t, 1; }` on one line read as they
/// would on several. Braces inside a statement (vector operands `{%r1, %r2}`) stay in it.
struct BodyLines<'a> {
    lines: &'a [&'a str],
    /// The next physical line (left after the body's closing `}`).
    i: &'a mut usize,
    pending: std::collections::VecDeque<(String, usize)>,
}

impl BodyLines<'_> {
    fn next(&mut self) -> Option<(String, usize)> {
        self.fill()?;
        self.pending.pop_front()
    }

    fn peek(&mut self) -> Option<&(String, usize)> {
        self.fill()?;
        self.pending.front()
    }

    /// Reads physical lines until a piece is pending (an empty line is one empty piece).
    fn fill(&mut self) -> Option<()> {
        if self.pending.is_empty() {
            let line = self.lines.get(*self.i)?;
            let lineno = *self.i + 1;
            *self.i += 1;
            let pieces = split_body_line(line.trim());
            if pieces.is_empty() {
                self.pending.push_back((String::new(), lineno));
            }
            self.pending.extend(pieces.into_iter().map(|p| (p, lineno)));
        }
        Some(())
    }
}

/// One physical line of a body cut into pieces (see [`BodyLines`]).
fn split_body_line(line: &str) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    let (mut in_string, mut operand_braces) = (false, 0usize);
    let flush = |current: &mut String, pieces: &mut Vec<String>| {
        let piece = current.trim();
        if !piece.is_empty() {
            pieces.push(piece.to_string());
        }
        current.clear();
    };
    for (k, c) in line.char_indices() {
        if in_string {
            current.push(c);
            in_string = c != '"';
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                current.push(c);
            }
            '{' if current.trim().is_empty() => pieces.push("{".to_string()),
            '{' => {
                operand_braces += 1;
                current.push(c);
            }
            '}' if operand_braces > 0 => {
                operand_braces -= 1;
                current.push(c);
            }
            '}' => {
                flush(&mut current, &mut pieces);
                pieces.push("}".to_string());
            }
            ';' => {
                current.push(';');
                flush(&mut current, &mut pieces);
            }
            // `name: .callprototype ..` declares a prototype; it is no label.
            ':' if is_ident(current.trim()) && !line[k + 1..].trim_start().starts_with(".callprototype") => {
                current.push(':');
                flush(&mut current, &mut pieces);
            }
            _ => current.push(c),
        }
    }
    flush(&mut current, &mut pieces);
    pieces
}

/// A guarded statement with its guard written tight: `@ ! %p` as `@!%p`.
fn tight_guard(stmt: &str) -> String {
    let rest = stmt[1..].trim_start();
    match rest.strip_prefix('!') {
        Some(pred) => format!("@!{}", pred.trim_start()),
        None => format!("@{rest}"),
    }
}

/// A nested `{ }` scope: the registers declared in it and the tag that renames them apart.
struct Scope {
    tag: String,
    /// Its number among the body's blocks (see [`BlockLabels`]).
    block: usize,
    /// Prefixes of `%` registers declared here.
    prefixes: std::collections::HashSet<String>,
    /// Registers declared here without `%`, and their new names.
    names: std::collections::HashMap<String, String>,
}

impl Scope {
    fn new(tag: String, block: usize) -> Scope {
        Scope { tag, block, prefixes: Default::default(), names: Default::default() }
    }

    /// Records the registers of the `.reg` statement `stmt` as this scope's.
    fn declare(&mut self, stmt: &str) {
        let specs = spaced_reg(stmt).split_whitespace().skip(2).collect::<Vec<_>>().join(" ");
        for spec in specs.split(',').map(str::trim) {
            match spec.strip_prefix('%') {
                // `%r<4>` declares `%r0`..`%r3` (renamed by their prefix); `%p1` that name.
                Some(s) => {
                    self.prefixes.insert(s.split('<').next().unwrap_or(s).to_string());
                }
                // `h<2>` without `%` (Triton's inline assembly) declares `h0` and `h1`: each
                // renamed, and `h` where the declaration names it.
                None => match bare_range(spec) {
                    Some((name, count)) => {
                        self.names.insert(name.to_string(), format!("{}_{name}", self.tag));
                        for i in 0..count.min(MAX_BARE_RANGE) {
                            self.names.insert(format!("{name}{i}"), format!("{}_{name}{i}", self.tag));
                        }
                    }
                    None => {
                        self.names.insert(spec.to_string(), format!("{}_{spec}", self.tag));
                    }
                },
            }
        }
    }

    /// `text` with this scope's registers renamed.
    fn rename(&self, text: &str) -> String {
        if self.prefixes.is_empty() && self.names.is_empty() {
            return text.to_string();
        }
        rename(text, &self.prefixes, &self.tag, &self.names, true)
    }
}

/// The labels of a body's blocks. As registers are, labels are scoped to the `{ }` block
/// placing them (inline assembly with a label, inlined twice, places it in two sibling
/// blocks), and a branch goes to the label its own block sees: its own block's, else the
/// enclosing block's, outward. Block 0 is the body itself, whose labels keep their names; a
/// nested block's are renamed apart with its tag (`DONE` to `DONE_zya`), and so are the
/// branches that see them.
#[derive(Default)]
struct BlockLabels {
    /// Per nested block (block `k + 1` at `k`): its enclosing block, its tag, and the labels
    /// placed in it.
    blocks: Vec<(usize, String, std::collections::HashSet<String>)>,
    /// The labels placed in the body itself.
    top: std::collections::HashSet<String>,
    /// The body items in nested blocks, each with its innermost block.
    items: Vec<(usize, usize)>,
}

impl BlockLabels {
    /// Opens a block inside block `parent`, with `tag`; returns its number.
    fn open(&mut self, parent: usize, tag: String) -> usize {
        self.blocks.push((parent, tag, Default::default()));
        self.blocks.len()
    }

    /// Places `label` in `block`; returns the name it gets, or why it cannot be placed (it
    /// is already placed in that block).
    fn place(&mut self, block: usize, label: &str) -> Result<String, String> {
        let (placed, new) = match block.checked_sub(1).and_then(|k| self.blocks.get_mut(k)) {
            Some((_, tag, labels)) => (format!("{label}_{tag}"), labels.insert(label.to_string())),
            None => (label.to_string(), self.top.insert(label.to_string())),
        };
        if !new {
            return Err(format!("label `{label}` is placed twice in one `{{ }}` block"));
        }
        Ok(placed)
    }

    /// Records that body item `index` is in `block` (nothing for the body itself).
    fn item(&mut self, block: usize, index: usize) {
        if block > 0 {
            self.items.push((index, block));
        }
    }

    /// The labels of nested blocks that block `block` sees, with their new names: its own,
    /// then those of the blocks around it that none nearer hides.
    fn visible(&self, mut block: usize) -> std::collections::HashMap<String, String> {
        let mut seen = std::collections::HashMap::new();
        while let Some((parent, tag, labels)) = block.checked_sub(1).and_then(|k| self.blocks.get(k)) {
            for l in labels {
                seen.entry(l.clone()).or_insert_with(|| format!("{l}_{tag}"));
            }
            block = *parent;
        }
        seen
    }

    /// Renames, in the statements of nested blocks in `body`, the labels they name to the
    /// labels they see. A label no block sees is left as written (the decoder's "undefined
    /// label" names it).
    fn resolve(&self, body: &mut [BodyItem]) {
        if self.blocks.iter().all(|(_, _, labels)| labels.is_empty()) {
            return;
        }
        let none = std::collections::HashSet::new();
        let mut cache = std::collections::HashMap::new();
        for &(index, block) in &self.items {
            let Some(BodyItem::Instr(s)) = body.get_mut(index) else { continue };
            let seen = cache.entry(block).or_insert_with(|| self.visible(block));
            if seen.is_empty() {
                continue;
            }
            s.text = rename(&s.text, &none, "", seen, true);
            for o in &mut s.operands {
                *o = rename(o, &none, "", seen, false);
            }
        }
    }
}

/// `stmt` with `.reg.T` (inline assembly's spelling) written `.reg .T`.
fn spaced_reg(stmt: &str) -> String {
    match stmt.strip_prefix(".reg.") {
        Some(rest) => format!(".reg .{rest}"),
        None => stmt.to_string(),
    }
}

/// `.reg .T spec, spec, ...`, each spec `%prefix<N>` (registers `%prefix0` ..), `%name` (one
/// register of that name, as compilers declare `%SP`) or `name` without `%` (as inline
/// assembly and call sequences write them).
fn parse_reg_decl(stmt: &str, line: usize) -> Result<Vec<RegDecl>, SimError> {
    // `.reg.b32 f;` (inline assembly's spelling) is `.reg .b32 f;`.
    let stmt = spaced_reg(stmt);
    let toks: Vec<&str> = stmt.split_whitespace().collect();
    let [".reg", ty, _, ..] = toks.as_slice() else {
        return Err(unsupported(line, format!("register declaration `{stmt}`")));
    };
    let ty = ty
        .strip_prefix('.')
        .and_then(PtxType::from_ptx_name)
        .filter(|t| !t.is_memory_only())
        .ok_or_else(|| unsupported(line, format!("register type `{ty}`")))?;
    let specs = toks[2..].join(" ");
    let mut decls = Vec::new();
    for spec in specs.split(',').map(str::trim) {
        match bare_range(spec) {
            // `name<N>` without `%`: registers `name0` .. `name{N-1}`, each one without `%`.
            Some((name, count)) => {
                if count > MAX_BARE_RANGE {
                    return Err(unsupported(
                        line,
                        format!("register declaration `{spec}` (more than {MAX_BARE_RANGE} registers without `%`)"),
                    ));
                }
                decls.extend((0..count).map(|i| RegDecl {
                    prefix: format!("={name}{i}"),
                    ty,
                    count: 1,
                    single: true,
                    line,
                }));
            }
            None => decls.push(reg_spec(spec, ty, line)?),
        }
    }
    Ok(decls)
}

/// The most registers one `name<N>` declaration without `%` may declare.
const MAX_BARE_RANGE: u32 = 1 << 16;

/// `name<N>` without `%`: the name and N.
fn bare_range(spec: &str) -> Option<(&str, u32)> {
    let (name, n) = spec.strip_suffix('>')?.split_once('<')?;
    (is_ident(name) && !name.starts_with('%')).then_some(())?;
    Some((name, n.trim().parse().ok()?))
}

/// One register spec of a `.reg` declaration.
fn reg_spec(spec: &str, ty: PtxType, line: usize) -> Result<RegDecl, SimError> {
    let (prefix, count, single) = match spec.strip_prefix('%') {
        Some(s) if s.ends_with('>') => {
            let (p, n) = s[..s.len() - 1].split_once('<').ok_or_else(|| {
                unsupported(line, format!("register declaration `{spec}` (`%name<N>` or `%name`)"))
            })?;
            let n: u32 = n.parse().map_err(|_| parse_err(line, format!("bad register count in `{spec}`")))?;
            (p, n, false)
        }
        // `%SP`, or `%p1` as inline assembly declares one register.
        Some(s) if is_ident(s) => {
            return Ok(RegDecl { prefix: s.to_string(), ty, count: 1, single: true, line })
        }
        Some(s) => (s, 1, true),
        // Registers without `%` live under `=name` (a key no `%` register can have).
        None if is_ident(spec) => {
            return Ok(RegDecl { prefix: format!("={spec}"), ty, count: 1, single: true, line })
        }
        None => {
            return Err(unsupported(line, format!("register declaration `{spec}` (`%name<N>` or `%name`)")))
        }
    };
    if prefix.is_empty() || !prefix.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(unsupported(line, format!("register name prefix `%{prefix}` (letters only)")));
    }
    Ok(RegDecl { prefix: prefix.to_string(), ty, count, single, line })
}

/// `.shared [.align A] .T name[N]` or `.shared [.align A] .T name` (one element): `N`
/// elements of `.T`, aligned to `A` (to the element size without `.align`); the same with
/// `.local` and a call sequence's `.param` (errors name the state space the statement gives).
fn parse_array_decl(stmt: &str, line: usize) -> Result<SharedDef, SimError> {
    let toks: Vec<&str> = stmt.split_whitespace().collect();
    let space = toks.first().map_or("shared", |t| t.trim_start_matches('.'));
    let (align, rest) = match toks.as_slice() {
        [".shared" | ".local" | ".param", ".align", a, rest @ ..] => {
            let a: u32 = a.parse().map_err(|_| parse_err(line, format!("bad alignment `{a}`")))?;
            (Some(a), rest)
        }
        [".shared" | ".local" | ".param", rest @ ..] => (None, rest),
        _ => return Err(unsupported(line, format!("{space} declaration `{stmt}`"))),
    };
    // A vector type (`.v2 .f32`) is that many elements per item.
    let (lanes, ty, spec) = match rest {
        [v @ (".v2" | ".v4"), ty, spec] => (if *v == ".v2" { 2u32 } else { 4 }, *ty, *spec),
        [ty, spec] => (1, *ty, *spec),
        _ => return Err(unsupported(line, format!("{space} declaration `{stmt}`"))),
    };
    let ty =
        element_type(ty).ok_or_else(|| unsupported(line, format!("{space} array element type `{ty}`")))?;
    if ty.bytes() * lanes > 16 {
        return Err(parse_err(
            line,
            format!("a `.v{lanes}` of `{}` is more than a vector's 16 bytes", ty.ptx_name()),
        ));
    }
    // (An explicit `.align 0` is an error, as it is to ptxas.)
    let align = align.unwrap_or(ty.bytes() * lanes);
    if !align.is_power_of_two() {
        return Err(parse_err(line, format!("alignment {align} is not a power of two")));
    }
    // `name`, `name[N]`, `name[N][M]`..: the elements of every dimension.
    let (name, dims) = array_spec(spec).unwrap_or((spec, Vec::new()));
    let mut n = lanes;
    for d in dims {
        let d = d
            .parse::<u32>()
            .map_err(|_| parse_err(line, format!("bad {space} array size `{d}` (at most {})", u32::MAX)))?;
        n = n
            .checked_mul(d)
            .ok_or_else(|| unsupported(line, format!("{space} array `{name}` of more than 2^32 elements")))?;
    }
    if !is_ident(name) {
        return Err(parse_err(line, format!("bad {space} array name `{name}`")));
    }
    let bytes = n.checked_mul(ty.bytes()).ok_or_else(|| {
        unsupported(line, format!("{space} array `{name}` of {n} {} elements", ty.ptx_name()))
    })?;
    Ok(SharedDef { name: name.to_string(), align, bytes })
}

/// Splits `a, {b, c}, [d+4]` at top-level commas.
fn split_operands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '{' | '[' => {
                depth += 1;
                cur.push(c);
            }
            '}' | ']' => {
                depth -= 1;
                cur.push(c);
            }
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
            }
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() || !out.is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

fn parse_stmt(stmt: &str, line: usize) -> Result<Stmt, SimError> {
    let mut rest = stmt;
    let mut guard = None;
    if let Some(g) = rest.strip_prefix('@') {
        let (g, r) = g
            .split_once(char::is_whitespace)
            .ok_or_else(|| parse_err(line, "a guard must be followed by an instruction"))?;
        let (neg, reg) = match g.strip_prefix('!') {
            Some(r) => (true, r),
            None => (false, g),
        };
        guard = Some((neg, reg.to_string()));
        rest = r.trim_start();
    }
    let (opcode, ops) = match rest.split_once(char::is_whitespace) {
        Some((o, r)) => (o, r.trim()),
        None => (rest, ""),
    };
    Ok(Stmt {
        line,
        text: stmt.to_string(),
        guard,
        opcode: opcode.to_string(),
        operands: split_operands(ops),
        source: None,
    })
}
