//! The `.entry` signatures of a PTX module's kernels, read from its text alone: what a
//! runtime checks launch arguments against on any backend (the GPU's JIT included, where
//! the simulator's parser may not read the bodies), and the parameter declarations the
//! simulator's parser reads.
//!
//! Only the declarations are read (`.visible .entry name( .param .u64 a, .param .f32 b )`,
//! with the attributes compilers add: `.align N`, `.ptr`, state spaces). Scalars of every
//! width from 8 to 64 bits are read (`.u8` for a CUDA `bool` or `char`, `.u16` for a
//! `short`), and byte arrays (`.param .align 8 .b8 name[24]`): a struct or `__half` passed by
//! value.

use ptx_core::PtxType;

use crate::comments::{without_comments, without_strings};

/// One parameter of a kernel in a raw PTX module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxParam {
    /// Its name in the PTX (e.g. `saxpy_param_0`).
    pub name: String,
    /// Its `.param` type, or the element type of a byte array. A `.u64`/`.b64`/`.s64`
    /// scalar parameter takes a buffer (a pointer) or a 64-bit integer scalar; any other
    /// scalar type a scalar of that width. `.b8` is read as [`PtxType::U8`] (PTX's untyped
    /// byte has no type of its own here; it moves bytes as `.u8` does).
    pub ty: PtxType,
    /// `Some(n)` for an array parameter `.b8 name[n]`: a value passed by value as bytes
    /// (a C struct, a `__half`), `n` elements of [`PtxParam::ty`]; `None` for a scalar.
    pub array: Option<u32>,
}

impl PtxParam {
    /// The parameter's size in bytes: its type's, times the element count of an array.
    pub fn size_bytes(&self) -> u64 {
        u64::from(self.ty.bytes()) * u64::from(self.array.unwrap_or(1))
    }

    /// Whether it is a by-value byte array (`.b8 name[N]`) rather than a scalar.
    pub fn is_array(&self) -> bool {
        self.array.is_some()
    }
}

impl std::fmt::Display for PtxParam {
    /// As declared: `.u8 k_param_1`, `.b8 k_param_2[24]` (`.u8` elements written `.b8`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.array {
            Some(n) => {
                let ty = if self.ty == PtxType::U8 { "b8" } else { self.ty.ptx_name() };
                write!(f, ".{ty} {}[{n}]", self.name)
            }
            None => write!(f, ".{} {}", self.ty.ptx_name(), self.name),
        }
    }
}

/// One kernel of a raw PTX module: its entry name and parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxEntry {
    /// The `.entry` name, as a launch names it.
    pub name: String,
    /// Its parameters, in order.
    pub params: Vec<PtxParam>,
}

/// The 1-based line of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// Every `.entry` of `ptx`, in order; `Err` says which line is malformed or unsupported.
/// A kernel may have no parameter list (`.entry k { .. }`, which the PTX ISA allows). A
/// parameter declaration ptxas refuses (a `.pred` parameter, no name, `name[]`) or
/// parameters taking more `.param` space than the module's PTX version allows is an `Err`
/// for the whole module, as ptxas (and so the CUDA driver) refuses the whole module.
pub fn entries(ptx: &str) -> Result<Vec<PtxEntry>, String> {
    let text =
        without_comments(ptx).map_err(|line| format!("line {line}: unterminated block comment `/*`"))?;
    // `.entry` in a string (`.file 1 "/src/a.entry.cu"`) is no entry.
    let text = without_strings(&text);
    let space = param_space(&text);
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(pos) = text[from..].find(".entry").map(|p| p + from) {
        from = pos + ".entry".len();
        // `.entry` must stand alone (not, say, part of `.entry_x`).
        if text[from..].chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let line = line_of(&text, pos);
        let rest = &text[from..];
        let start = rest.len() - rest.trim_start().len();
        let name_len = rest[start..]
            .find(|c: char| !(c.is_alphanumeric() || "_$.".contains(c)))
            .unwrap_or(rest.len() - start);
        let name = &rest[start..start + name_len];
        let next = |at: usize| text[at..].split_whitespace().next().unwrap_or("").to_string();
        if name.is_empty() {
            return Err(format!("line {line}: `.entry` needs a kernel name, found `{}`", next(from)));
        }
        let after = from + start + name_len;
        let follows = text[after..].trim_start();
        // The body, or a performance directive before it (`.maxntid 256, 1, 1`).
        let body_next =
            follows.starts_with('{') || (follows.starts_with('.') && !follows.starts_with(".param"));
        let list = match follows.starts_with('(') {
            false if !body_next => {
                return Err(format!(
                    "line {line}: `.entry {name}` is followed by `{}`, neither a parameter list `( ... )` nor \
                     its body",
                    next(after)
                ));
            }
            true => {
                let open = after + text[after..].find('(').unwrap_or(0);
                let Some(close) = text[open..].find(')').map(|c| c + open) else {
                    return Err(format!(
                        "line {line}: the parameter list of `{name}` is not closed with `)`"
                    ));
                };
                Some((open, close))
            }
            // No parameter list: the body (or a performance directive) follows the name.
            false => None,
        };
        let mut params = Vec::new();
        let mut bytes = 0u64;
        if let Some((open, close)) = list {
            let mut at = open + 1;
            for piece in text[open + 1..close].split(',') {
                let decl = piece.trim();
                // The declaration's own line, for the message.
                let decl_line = line_of(&text, at + piece.find(|c: char| !c.is_whitespace()).unwrap_or(0));
                at += piece.len() + 1;
                if decl.is_empty() {
                    continue;
                }
                let p = param(decl).map_err(|e| {
                    format!("line {decl_line}, kernel `{name}`: {e} (ptxas refuses the whole module)")
                })?;
                let align = declared_align(decl).unwrap_or(u64::from(p.ty.bytes())).max(1);
                bytes = bytes.next_multiple_of(align) + p.size_bytes();
                params.push(p);
            }
            from = close;
        }
        if bytes > space.bytes {
            return Err(format!(
                "line {line}, kernel `{name}`: its parameters take {bytes} bytes, more than the {} bytes of \
                 parameter space {} (ptxas refuses the whole module)",
                space.bytes, space.why
            ));
        }
        found.push(PtxEntry { name: name.to_string(), params });
    }
    Ok(found)
}

/// The `.align N` of a parameter declaration, if it gives the parameter's own: one after
/// `.ptr` is the alignment of the memory the pointer points to, not the parameter's.
fn declared_align(decl: &str) -> Option<u64> {
    let mut tokens = decl.split_whitespace().take_while(|t| *t != ".ptr");
    tokens.find(|t| *t == ".align")?;
    tokens.next()?.parse().ok()
}

/// How much `.param` space a kernel has, and why.
struct ParamSpace {
    /// The bytes the parameters may take together.
    bytes: u64,
    /// Why, for the message: the PTX version that allows it.
    why: String,
}

/// The parameter space of a module's kernels by its `.version`: [`MAX_PARAM_BYTES`] from
/// PTX 8.1 on (CUDA 12.1, on Volta and later), 4 352 bytes before.
fn param_space(text: &str) -> ParamSpace {
    let version = text.split_whitespace().skip_while(|t| *t != ".version").nth(1).and_then(|v| {
        let (major, minor) = v.split_once('.')?;
        Some((major.parse::<u32>().ok()?, minor.parse::<u32>().ok()?))
    });
    match version {
        Some(v) if v >= (8, 1) => {
            ParamSpace { bytes: MAX_PARAM_BYTES, why: format!("a kernel has at PTX {}.{}", v.0, v.1) }
        }
        Some(v) => ParamSpace {
            bytes: ptx_core::verify::PARAM_SPACE_BYTES,
            why: format!("a kernel has at PTX {}.{} (PTX 8.1 and later allow {MAX_PARAM_BYTES})", v.0, v.1),
        },
        None => ParamSpace { bytes: MAX_PARAM_BYTES, why: "a kernel has".to_string() },
    }
}

/// The most bytes one parameter may have: CUDA's limit on all of a kernel's parameters
/// together (32764 bytes from CUDA 12.1 on Volta and later; 4 KiB before).
pub const MAX_PARAM_BYTES: u64 = 32764;

/// One `.param` declaration: `.param [.align N] [.ptr] [space] .type name` or a byte array
/// `.param [.align N] .b8 name[N]`.
pub(crate) fn param(decl: &str) -> Result<PtxParam, String> {
    let tokens: Vec<&str> = decl.split_whitespace().collect();
    if tokens.first() != Some(&".param") {
        return Err(format!("`{decl}` is not a `.param` declaration"));
    }
    let Some((&name, attrs)) = tokens[1..].split_last().filter(|(name, _)| !name.starts_with('.')) else {
        return Err(format!("`{decl}` has no name"));
    };
    // `name[N]`: an array (a by-value struct); `name[]` or a count that is not a number is
    // not something a launch can fill.
    let (name, array) = match name.split_once('[') {
        Some((base, count)) => {
            let n = count
                .strip_suffix(']')
                .and_then(|c| c.trim().parse::<u32>().ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("`{decl}`: the array needs a positive element count `[N]`"))?;
            (base, Some(n))
        }
        None => (name, None),
    };
    if name.is_empty() {
        return Err(format!("`{decl}` has no name"));
    }
    // `.b8` has no type of its own: it moves bytes as `.u8` does.
    let types: Vec<PtxType> = attrs
        .iter()
        .filter_map(|t| t.strip_prefix('.'))
        .filter_map(|t| if t == "b8" { Some(PtxType::U8) } else { PtxType::from_ptx_name(t) })
        .collect();
    let p = match types.as_slice() {
        [ty] if *ty != PtxType::Pred => PtxParam { name: name.to_string(), ty: *ty, array },
        [_] => {
            return Err(format!(
                "`{decl}`: a `.pred` parameter is invalid PTX (ptxas: a predicate must be in the register \
                 state space); pass a `.u8` or `.u32` and compare it"
            ))
        }
        _ => return Err(format!("`{decl}` does not name exactly one type")),
    };
    if p.size_bytes() > MAX_PARAM_BYTES {
        return Err(format!(
            "`{decl}` has {} bytes, more than the {MAX_PARAM_BYTES} bytes CUDA allows for a kernel's parameters",
            p.size_bytes()
        ));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_as_compilers_write_them() {
        let ptx = "
// Generated by NVIDIA NVVM Compiler
.version 8.5
.target sm_80
.address_size 64

\t// .globl\tvec_add
.visible .entry vec_add(
\t.param .u64 .ptr .global .align 4 vec_add_param_0,
\t.param .u64 vec_add_param_1, /* a comment */
\t.param .f32 vec_add_param_2,
\t.param .u32 vec_add_param_3
)
.maxntid 256, 1, 1
{
\tret;
}
.entry empty()
{
\tret;
}
";
        let e = entries(ptx).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].name, "vec_add");
        let types: Vec<PtxType> = e[0].params.iter().map(|p| p.ty).collect();
        assert_eq!(types, [PtxType::U64, PtxType::U64, PtxType::F32, PtxType::U32]);
        assert_eq!(e[0].params[3].name, "vec_add_param_3");
        assert_eq!(e[1], PtxEntry { name: "empty".into(), params: vec![] });
        assert!(e[0].params.iter().all(|p| p.array.is_none()));
    }

    #[test]
    fn malformed_declarations_refuse_the_module_naming_their_line() {
        // Each is invalid PTX, which ptxas (and so the CUDA driver) refuses as a whole module:
        // the other kernel does not load either.
        let invalid = [
            (".entry k(.param .u64)", "has no name"),
            (".entry k(.param .u64 .u32 a)", "exactly one type"),
            (".entry k(.param .align 8 .b8 s[])", "positive element count"),
            (".entry k(.param .align 8 .b8 s[x])", "positive element count"),
            (".entry k(.param .b8 s[40000])", "40000 bytes"),
            (".entry k(.param .pred p)", "`.pred` parameter is invalid PTX"),
            (".entry k(.reg .u32 a)", "not a `.param`"),
        ];
        for (ptx, want) in invalid {
            let err = entries(&format!("{ptx}\n.entry fine(.param .u32 b)")).unwrap_err();
            assert!(err.contains(want) && err.contains("line 1, kernel `k`"), "{ptx:?}: {err}");
        }
        for (ptx, want) in [
            ("\n\n.entry k .param", "line 3"),
            (".entry (.param .u32 a)", "needs a kernel name, found `(.param`"),
        ] {
            let err = entries(ptx).unwrap_err();
            assert!(err.contains(want), "{ptx:?}: {err}");
        }
        assert_eq!(entries("// .entry in a comment\n.visible .func f() { ret; }").unwrap(), vec![]);
    }

    #[test]
    fn narrow_scalars_and_byte_arrays_are_described() {
        let ptx = ".visible .entry k(
	.param .u8 k_param_0,
	.param .s8 k_param_1,
	.param .b8 k_param_2,
	.param .u16 k_param_3,
	.param .s16 k_param_4,
	.param .b16 k_param_5,
	.param .align 2 .b8 k_param_6[2],
	.param .align 8 .b8 k_param_7[24]
)
{
	ret;
}";
        let e = entries(ptx).unwrap();
        let got: Vec<(PtxType, Option<u32>, u64, String)> =
            e[0].params.iter().map(|p| (p.ty, p.array, p.size_bytes(), p.to_string())).collect();
        let want = [
            (PtxType::U8, None, 1, ".u8 k_param_0"),
            (PtxType::S8, None, 1, ".s8 k_param_1"),
            (PtxType::U8, None, 1, ".u8 k_param_2"),
            (PtxType::U16, None, 2, ".u16 k_param_3"),
            (PtxType::S16, None, 2, ".s16 k_param_4"),
            (PtxType::B16, None, 2, ".b16 k_param_5"),
            (PtxType::U8, Some(2), 2, ".b8 k_param_6[2]"),
            (PtxType::U8, Some(24), 24, ".b8 k_param_7[24]"),
        ];
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert_eq!((g.0, g.1, g.2, g.3.as_str()), w);
        }
        assert!(e[0].params[7].is_array() && !e[0].params[0].is_array());
    }
}
