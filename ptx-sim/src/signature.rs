//! The `.entry` signatures of a PTX module's kernels, read from its text alone: what a
//! runtime checks launch arguments against on any backend (the GPU's JIT included, where
//! the simulator's parser may not read the bodies), and the parameter declarations the
//! simulator's parser reads.
//!
//! Only the declarations are read (`.visible .entry name( .param .u64 a, .param .f32 b )`,
//! with the attributes compilers add: `.align N`, `.ptr`, state spaces).

use ptx_core::PtxType;

/// One parameter of a kernel in a raw PTX module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxParam {
    /// Its name in the PTX (e.g. `saxpy_param_0`).
    pub name: String,
    /// Its `.param` type. A `.u64`/`.b64`/`.s64` parameter takes a buffer (a pointer) or a
    /// 64-bit integer scalar; any other type a scalar of that type.
    pub ty: PtxType,
}

/// One kernel of a raw PTX module: its entry name and parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxEntry {
    /// The `.entry` name, as a launch names it.
    pub name: String,
    /// Its parameters, in order.
    pub params: Vec<PtxParam>,
}

/// The PTX without comments (`//` to the end of the line, `/* */`), line breaks kept so that
/// line numbers still count.
fn without_comments(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    let mut rest = ptx;
    while let Some(i) = rest.find('/') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("//") {
            rest = tail.find('\n').map_or("", |n| &tail[n..]);
        } else if let Some(body) = tail.strip_prefix("/*") {
            let end = body.find("*/").map_or(body.len(), |e| e + 2);
            out.extend(body[..end.min(body.len())].chars().filter(|&c| c == '\n'));
            rest = &body[end.min(body.len())..];
        } else {
            out.push('/');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// The 1-based line of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// Every `.entry` of `ptx`, in order; `Err` says which line is malformed or unsupported.
pub fn entries(ptx: &str) -> Result<Vec<PtxEntry>, String> {
    let text = without_comments(ptx);
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(pos) = text[from..].find(".entry").map(|p| p + from) {
        from = pos + ".entry".len();
        // `.entry` must stand alone (not, say, part of `.entry_x`).
        if text[from..].chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let line = line_of(&text, pos);
        let open = text[from..].find('(').map(|o| o + from);
        let close = open.and_then(|o| text[o..].find(')').map(|c| c + o));
        let (Some(open), Some(close)) = (open, close) else {
            return Err(format!("line {line}: `.entry` without a parameter list `( ... )`"));
        };
        let name = text[from..open].trim();
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || "_$.".contains(c)) {
            return Err(format!("line {line}: `{name}` is not a kernel name"));
        }
        let mut params = Vec::new();
        let mut at = open + 1;
        for piece in text[open + 1..close].split(',') {
            let decl = piece.trim();
            // The declaration's own line, for the message.
            let decl_line = line_of(&text, at + piece.find(|c: char| !c.is_whitespace()).unwrap_or(0));
            at += piece.len() + 1;
            if !decl.is_empty() {
                params.push(param(decl).map_err(|e| format!("line {decl_line}, kernel `{name}`: {e}"))?);
            }
        }
        found.push(PtxEntry { name: name.to_string(), params });
        from = close;
    }
    Ok(found)
}

/// One `.param` declaration: `.param [.align N] [.ptr] [space] .type name`.
pub(crate) fn param(decl: &str) -> Result<PtxParam, String> {
    let tokens: Vec<&str> = decl.split_whitespace().collect();
    if tokens.first() != Some(&".param") {
        return Err(format!("`{decl}` is not a `.param` declaration"));
    }
    let Some((&name, attrs)) = tokens[1..].split_last().filter(|(name, _)| !name.starts_with('.')) else {
        return Err(format!("`{decl}` has no name"));
    };
    if name.contains('[') {
        return Err(format!(
            "`{decl}`: parameters passed by value as byte arrays (structs) are not supported"
        ));
    }
    let types: Vec<PtxType> =
        attrs.iter().filter_map(|t| t.strip_prefix('.')).filter_map(PtxType::from_ptx_name).collect();
    match types.as_slice() {
        [ty] if *ty != PtxType::Pred && !ty.is_memory_only() => {
            Ok(PtxParam { name: name.to_string(), ty: *ty })
        }
        [ty] => Err(format!("`{decl}`: .{} parameters are not supported", ty.ptx_name())),
        _ => Err(format!("`{decl}` does not name exactly one type")),
    }
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
    }

    #[test]
    fn malformed_or_unsupported_declarations_name_their_line() {
        let bad = [
            (".entry k(.param .u64)", "has no name"),
            (".entry k(.param .u64 .u32 a)", "exactly one type"),
            (".entry k(.param .align 8 .b8 s[16])", "byte arrays"),
            (".entry k(.param .pred p)", ".pred parameters"),
            (".entry k(.reg .u32 a)", "not a `.param`"),
            ("\n\n.entry k .param", "line 3"),
            (".entry (.param .u32 a)", "not a kernel name"),
        ];
        for (ptx, want) in bad {
            let err = entries(ptx).unwrap_err();
            assert!(err.contains(want), "{ptx:?}: {err}");
        }
        assert_eq!(entries("// .entry in a comment\n.visible .func f() { ret; }").unwrap(), vec![]);
    }
}
