//! # ptx-macros
//!
//! The `#[ptx_kernel]` attribute of ptx-dsl. The kernel goes through four stages, each a
//! function on `proc_macro2` streams: `parse` (syn's tree to our own AST, rejecting what
//! the language lacks at its span), `check` (names, types with Rust's inference, stages,
//! mutability), `lower` (the body as builder calls) and `expand` (the generated type).
//! Errors from every stage are collected and reported together. Use the attribute through
//! `ptx_dsl`, which documents the language.

mod ast;
mod check;
#[cfg(test)]
mod corpus_tests;
mod errors;
mod expand;
mod lower;
mod parse;
mod types;

use proc_macro2::TokenStream;

/// Turns a restricted Rust function into a GPU kernel type; see the `ptx_dsl` crate docs
/// for the language.
#[proc_macro_attribute]
pub fn ptx_kernel(attr: proc_macro::TokenStream, item: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand(attr.into(), item.into()).into()
}

/// The whole macro on `proc_macro2` streams: generated items, or `compile_error!`s at the
/// user's spans. Never panics.
fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = errors::Errors::default();
    let options = match expand::parse_options(attr) {
        Ok(o) => o,
        Err(e) => {
            errors.push(e);
            expand::Options::default()
        }
    };
    let Some(kernel) = parse::parse_kernel(item, &mut errors) else {
        return errors.to_tokens();
    };
    let checked = check::check(&kernel, &mut errors);
    if !errors.is_empty() {
        return errors.to_tokens();
    }
    expand::expand_kernel(&kernel, &checked, &options)
}

#[cfg(test)]
mod tests {
    use super::expand;
    use proc_macro2::TokenStream;
    use proptest::prelude::*;
    use std::str::FromStr;

    fn tokens(s: &str) -> TokenStream {
        TokenStream::from_str(s).expect("test source lexes")
    }

    /// The expansion of one kernel, pretty-printed, is what `tests/snapshots/saxpy.rs`
    /// holds: a reviewable record of what users see in `cargo expand`. Regenerate with
    /// `UPDATE_SNAPSHOTS=1 cargo test -p ptx-macros` after an intended change.
    #[test]
    fn expansion_snapshot() {
        let source = "
            /// y = a·x + y
            pub fn saxpy(a: f32, x: &[f32], y: &mut [f32], n: u32, #[comptime] unroll: u32) {
                let i = block_idx().x * block_dim().x + thread_idx().x;
                let mut acc = 0.0f32;
                for k in 0..unroll {
                    acc += 1.0;
                }
                if i < n {
                    y[i] = a.mul_add(x[i], y[i]) + acc;
                }
            }";
        let out = expand(TokenStream::new(), tokens(source));
        let file: syn::File = syn::parse2(out).expect("the expansion parses as Rust");
        let pretty = prettyplease::unparse(&file);
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots/saxpy.rs");
        if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
            std::fs::write(path, &pretty).expect("write the snapshot");
        }
        let want = std::fs::read_to_string(path).unwrap_or_default();
        assert_eq!(pretty, want, "the expansion changed; review it and set UPDATE_SNAPSHOTS=1 to accept");
    }

    #[test]
    fn errors_are_collected_not_stopped_at() {
        let out = expand(
            TokenStream::new(),
            tokens("fn k(x: &[f32], v: Vec<u32>) { x[0] = 1.0; let y = z; let q: u8 = 300; }"),
        )
        .to_string();
        for wanted in [
            "`Vec` cannot be passed",
            "cannot store into `x`",
            "cannot find value `z`",
            "out of range for `u8`",
        ] {
            assert!(out.contains(wanted), "missing `{wanted}` in {out}");
        }
    }

    #[test]
    fn malformed_kernels_are_errors_not_code() {
        let cases = [
            ("fn k(x: &[f32], x: u32) {}", "bound more than once"),
            ("fn k(x: &mut [f32]) { let y; x[0] = 1.0; }", "let"),
            ("fn k(x: &mut [f32]) { x[0] = x; }", "mismatched types"),
            ("fn k(x: &mut [f32]) { let t = thread_idx; }", "call it"),
            ("fn k(x: &mut [u32]) { x[0] = 1u32 << 2.0; }", "shift amount"),
            ("fn k(x: &mut [u32]) { x[0] = x.len(); }", "mismatched types"),
        ];
        for (source, wanted) in cases {
            let out = expand(TokenStream::new(), tokens(source)).to_string();
            assert!(out.contains("compile_error"), "{source}: no error in {out}");
            assert!(out.contains(wanted), "{source}: `{wanted}` not in {out}");
        }
    }

    /// Pieces of kernel bodies, valid and not, that the property test combines.
    const FRAGMENTS: &[&str] = &[
        "let i = thread_idx().x;",
        "let mut acc = 0.0f32;",
        "acc += x[i];",
        "y[i] = acc;",
        "if i < n { y[i] = 1.0; } else { return; }",
        "for j in 0..n { acc += 1.0; }",
        "#[unroll] for j in 0..4u32 { acc *= 2.0; }",
        "while acc < 10.0 { acc += 1.0; }",
        "loop { break; }",
        "let (s, c) = acc.sin_cos();",
        "let v = if acc > 0.0 { 1u32 } else { 2 };",
        "let w = v as f64 + 1.5;",
        "let q = (i << 3) ^ n % 7;",
        "match i { _ => {} }",
        "let r = &x;",
        "println!(\"{}\", i);",
        "let z = i + acc;",
        "y[acc] = 0.0;",
        "x[0] = 1.0;",
        "let b: u8 = 999;",
        "continue;",
        "let t = unknown(i);",
        "let m = acc.frobnicate();",
        "{ let i = 2u64; y[i] = 3.0; }",
        "let k = (0..n).step_by(2);",
        "let p = -n;",
        "let e = 1.0e50f32;",
        "let s = S { a: 1 };",
        "let f = |a: f32| a;",
        "acc = acc.clamp(0.0, 1.0).powi(3).max(acc);",
    ];

    fn kernel(body: &[usize], unchecked: bool) -> (TokenStream, String) {
        let body: String =
            body.iter().map(|&k| FRAGMENTS[k % FRAGMENTS.len()]).collect::<Vec<_>>().join("\n");
        let attr = if unchecked { "unchecked" } else { "" };
        (tokens(attr), format!("fn k(x: &[f32], y: &mut [f32], n: u32, #[comptime] c: u32) {{ {body} }}"))
    }

    /// proptest's configuration with its seed chosen by the project's rule:
    /// `PTX_DSL_TEST_SEED` (decimal or `0x` hex) when set, else a fresh one, printed.
    fn seeded(cases: u32) -> ProptestConfig {
        let seed = ptx_tools::seed::test_seed("proptest");
        ProptestConfig {
            cases,
            rng_seed: proptest::test_runner::RngSeed::Fixed(seed),
            ..ProptestConfig::default()
        }
    }

    proptest! {
        #![proptest_config(seeded(256))]

        /// Generated kernels, valid or not, expand to tokens or to errors: never a panic.
        #[test]
        fn generated_kernels_never_panic(body in proptest::collection::vec(0usize..64, 0..12), unchecked: bool) {
            let (attr, source) = kernel(&body, unchecked);
            let _ = expand(attr, tokens(&source));
        }

        /// Mutated kernels (a span of the source deleted, or a token inserted) as well.
        #[test]
        fn mutated_kernels_never_panic(
            body in proptest::collection::vec(0usize..64, 1..8),
            at in 0usize..400,
            len in 0usize..12,
            insert in proptest::sample::select(vec!["", "(", ")", "{", "}", ";", "&", "mut", "as", "..", "#[comptime]", "'a", "1u8", "x", "?"]),
        ) {
            let (attr, source) = kernel(&body, false);
            let chars: Vec<char> = source.chars().collect();
            let at = at.min(chars.len());
            let end = (at + len).min(chars.len());
            let mutated: String = chars[..at].iter().chain(insert.chars().collect::<Vec<_>>().iter()).chain(&chars[end..]).collect();
            if let Ok(ts) = TokenStream::from_str(&mutated) {
                let _ = expand(attr, ts);
            }
        }
    }
}
