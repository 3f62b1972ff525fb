//! Whether a `match`'s arms cover every value of the scrutinee's type, as rustc decides it
//! (E0004), for the patterns a kernel writes: `_` and names, `bool`s, integer literals and
//! ranges, tuples of them and `|` of them. [`crate::desugar`] records what each unguarded
//! arm covers while it rewrites the `match`; [`crate::check`] asks, once the scrutinee's type
//! is known, for a value none of them takes.
//!
//! The method is the usual one for pattern matrices: the first column is split by the
//! constructors of its type (`false`/`true`, the integer intervals the patterns' bounds cut
//! the type's range into, a tuple's elements) and each part is asked of the rows that take
//! it, with the first column removed or expanded.

use crate::ast::Scalar;

/// What one pattern takes, as far as its written text says.
#[derive(Clone, Debug, PartialEq)]
pub enum Cover {
    /// Every value: `_`, a name.
    Any,
    /// `true` or `false`.
    Bool(bool),
    /// The integers from the first bound to the second, both included; `None` is the
    /// type's least or greatest value (`5..`, `..=9`).
    Int(Option<i128>, Option<i128>),
    /// A tuple, element by element.
    Tuple(Vec<Cover>),
    /// Any of these (`a | b`).
    Or(Vec<Cover>),
    /// A named constant (`LIMIT`, `config::TOP`), whose value only rustc knows: for
    /// coverage, none.
    Named,
    /// Values no finite set of patterns covers (a float): for coverage, none.
    Unknown,
}

/// The values of a type, for coverage.
#[derive(Clone, Debug, PartialEq)]
pub enum Space {
    /// `false` and `true`.
    Bool,
    /// An integer type: its name and least and greatest values.
    Int(Scalar),
    /// A type no finite set of literal patterns covers (the floats).
    Open,
    /// A tuple of these.
    Tuple(Vec<Space>),
}

impl Space {
    /// The space of a scalar type.
    pub fn scalar(s: Scalar) -> Space {
        if s == Scalar::Bool {
            Space::Bool
        } else if s.is_int() {
            Space::Int(s)
        } else {
            Space::Open
        }
    }
}

/// A value of `space` that no pattern of `arms` takes, written as rustc writes it
/// (`(true, _)`, `11_u32..=u32::MAX`), or `None` when they cover every value.
pub fn uncovered(arms: &[Cover], space: &Space) -> Option<String> {
    let rows: Vec<Vec<&Cover>> = arms.iter().map(|c| vec![c]).collect();
    missing(rows, std::slice::from_ref(space)).map(|mut w| w.remove(0))
}

/// Whether `cover` has a named constant in it, whose value the check does not know.
pub fn has_named(cover: &Cover) -> bool {
    match cover {
        Cover::Named => true,
        Cover::Tuple(items) | Cover::Or(items) => items.iter().any(has_named),
        _ => false,
    }
}

/// A value, one per column of `spaces`, that no row takes, as text; `None` when every value
/// is taken by some row.
fn missing(rows: Vec<Vec<&Cover>>, spaces: &[Space]) -> Option<Vec<String>> {
    let Some((first, rest)) = spaces.split_first() else {
        return rows.is_empty().then(Vec::new);
    };
    if rows.is_empty() {
        return Some(vec!["_".to_string(); spaces.len()]);
    }
    // `a | b` in the first column: one row per case.
    let mut flat: Vec<Vec<&Cover>> = Vec::with_capacity(rows.len());
    for row in rows {
        expand_or(row, &mut flat);
    }
    // The rows that take the first column's part `takes`, with that column removed.
    let rows_for = |takes: &dyn Fn(&Cover) -> bool| -> Vec<Vec<&Cover>> {
        flat.iter().filter(|r| matches!(r[0], Cover::Any) || takes(r[0])).map(|r| r[1..].to_vec()).collect()
    };
    let with = |head: String, mut tail: Vec<String>| {
        tail.insert(0, head);
        tail
    };
    match first {
        Space::Bool => [false, true].into_iter().find_map(|b| {
            let w = missing(rows_for(&|c| *c == Cover::Bool(b)), rest)?;
            Some(with(b.to_string(), w))
        }),
        Space::Open => missing(rows_for(&|_| false), rest).map(|w| with("_".to_string(), w)),
        Space::Int(s) => {
            let (lo, hi) = s.int_range();
            // As rustc has it, `usize` and `isize` have no fixed ends: ranges written up to
            // their `MAX` (or down to `isize::MIN`) leave the values past them uncovered, which
            // only an open range (`5..`) or a name takes. Those values are one more at each
            // open end here.
            let pointer_sized = matches!(s, Scalar::Usize | Scalar::Isize);
            let below = if pointer_sized && s.is_signed_int() { lo - 1 } else { lo };
            let above = if pointer_sized { hi + 1 } else { hi };
            let range = |c: &Cover| match *c {
                Cover::Int(a, b) => Some((a.map_or(below, |a| a.max(lo)), b.map_or(above, |b| b.min(hi)))),
                _ => None,
            };
            // The type's range cut at every bound the column's patterns write.
            let mut cuts: Vec<i128> = vec![below, above + 1];
            for (a, b) in flat.iter().filter_map(|r| range(r[0])).filter(|(a, b)| a <= b) {
                cuts.push(a);
                cuts.push(b + 1);
            }
            cuts.sort_unstable();
            cuts.dedup();
            cuts.windows(2).find_map(|w| {
                let (a, b) = (w[0], w[1] - 1);
                let takes = |c: &Cover| range(c).is_some_and(|(x, y)| x <= a && b <= y);
                let found = missing(rows_for(&takes), rest)?;
                Some(with(int_range_text(*s, a, b), found))
            })
        }
        Space::Tuple(elems) => {
            let n = elems.len();
            let any = Cover::Any;
            let expanded: Vec<Vec<&Cover>> = flat
                .iter()
                .filter_map(|r| {
                    let head: Vec<&Cover> = match r[0] {
                        Cover::Tuple(items) if items.len() == n => items.iter().collect(),
                        Cover::Any => vec![&any; n],
                        _ => return None,
                    };
                    Some(head.into_iter().chain(r[1..].iter().copied()).collect())
                })
                .collect();
            let spaces: Vec<Space> = elems.iter().chain(rest).cloned().collect();
            let mut w = missing(expanded, &spaces)?;
            let tail = w.split_off(n);
            let head = if n == 1 { format!("({},)", w[0]) } else { format!("({})", w.join(", ")) };
            Some(with(head, tail))
        }
    }
}

/// `row` with its first column's `|` patterns (nested ones too) spread over rows of their own.
fn expand_or<'c>(row: Vec<&'c Cover>, out: &mut Vec<Vec<&'c Cover>>) {
    match row[0] {
        Cover::Or(cases) => {
            for case in cases {
                let mut r = row.clone();
                r[0] = case;
                expand_or(r, out);
            }
        }
        _ => out.push(row),
    }
}

/// An integer as rustc writes it in a pattern it reports: `u32::MAX`, `i8::MIN`, `5_u16`.
fn int_text(s: Scalar, v: i128) -> String {
    let (lo, hi) = s.int_range();
    if v == hi {
        format!("{}::MAX", s.name())
    } else if v == lo && s.is_signed_int() {
        format!("{}::MIN", s.name())
    } else {
        format!("{v}_{}", s.name())
    }
}

/// The integers `a..=b` of type `s` as rustc writes them (for `usize`/`isize`, the values
/// past their ends as `usize::MAX..` and `..isize::MIN`).
fn int_range_text(s: Scalar, a: i128, b: i128) -> String {
    let (lo, hi) = s.int_range();
    if a > hi {
        format!("{}::MAX..", s.name())
    } else if b < lo {
        format!("..{}::MIN", s.name())
    } else if a == b {
        int_text(s, a)
    } else {
        format!("{}..={}", int_text(s, a), int_text(s, b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(a: i128, b: i128) -> Cover {
        Cover::Int(Some(a), Some(b))
    }

    #[test]
    fn integer_ranges_cover_by_their_bounds() {
        let u8s = Space::Int(Scalar::U8);
        assert_eq!(uncovered(&[int(0, 100), Cover::Int(Some(101), None)], &u8s), None);
        assert_eq!(uncovered(&[int(0, 100), Cover::Int(Some(102), None)], &u8s).as_deref(), Some("101_u8"));
        assert_eq!(uncovered(&[int(1, 255)], &u8s).as_deref(), Some("0_u8"));
        let i32s = Space::Int(Scalar::I32);
        assert_eq!(uncovered(&[Cover::Int(Some(0), None)], &i32s).as_deref(), Some("i32::MIN..=-1_i32"));
        assert_eq!(uncovered(&[Cover::Int(None, Some(10))], &i32s).as_deref(), Some("11_i32..=i32::MAX"));
        assert_eq!(uncovered(&[int(0, 9), Cover::Named], &u8s).as_deref(), Some("10_u8..=u8::MAX"));
    }

    #[test]
    fn pointer_sized_integers_have_no_fixed_ends() {
        let usizes = Space::Int(Scalar::Usize);
        let to_max = Cover::Int(Some(0), Some(u64::MAX as i128));
        assert_eq!(uncovered(std::slice::from_ref(&to_max), &usizes).as_deref(), Some("usize::MAX.."));
        assert_eq!(uncovered(&[Cover::Int(Some(0), None)], &usizes), None);
        let isizes = Space::Int(Scalar::Isize);
        let whole = Cover::Int(Some(i64::MIN as i128), Some(i64::MAX as i128));
        assert_eq!(uncovered(std::slice::from_ref(&whole), &isizes).as_deref(), Some("..isize::MIN"));
        let rest = [whole, Cover::Int(None, Some(-1)), Cover::Int(Some(0), None)];
        assert_eq!(uncovered(&rest, &isizes), None);
    }

    #[test]
    fn tuples_of_bools_and_or_patterns() {
        let pair = Space::Tuple(vec![Space::Bool, Space::Bool]);
        let t = |a, b| Cover::Tuple(vec![Cover::Bool(a), Cover::Bool(b)]);
        let all = [t(true, true), t(true, false), t(false, true), t(false, false)];
        assert_eq!(uncovered(&all, &pair), None);
        assert_eq!(uncovered(&all[..3], &pair).as_deref(), Some("(false, false)"));
        let either =
            Cover::Tuple(vec![Cover::Or(vec![Cover::Bool(true), Cover::Bool(false)]), Cover::Bool(true)]);
        assert_eq!(uncovered(std::slice::from_ref(&either), &pair).as_deref(), Some("(false, false)"));
        let rest = Cover::Tuple(vec![Cover::Any, Cover::Bool(false)]);
        assert_eq!(uncovered(&[either, rest], &pair), None);
    }

    #[test]
    fn floats_need_a_catch_all() {
        assert_eq!(uncovered(&[Cover::Unknown], &Space::Open).as_deref(), Some("_"));
        assert_eq!(uncovered(&[Cover::Unknown, Cover::Any], &Space::Open), None);
        let mixed = Space::Tuple(vec![Space::Open, Space::Bool]);
        let rows = [Cover::Tuple(vec![Cover::Any, Cover::Bool(true)])];
        assert_eq!(uncovered(&rows, &mixed).as_deref(), Some("(_, false)"));
    }
}
