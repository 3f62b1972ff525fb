//! The kernel language's own syntax tree. `parse` builds it from syn's tree, keeping only
//! what the language supports (everything else is an error at its span there); `types`,
//! `check` and `lower` work on it. Every expression carries a span and a dense id, which
//! indexes the side tables the later stages fill (types, stages, resolved bindings).

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::Ident;

/// A source range: the spans of its first and last tokens. Errors cover the whole range
/// (rustc underlines from `start` to `end`); generated code takes its line from `start`.
#[derive(Clone, Copy, Debug)]
pub struct Sp {
    /// The first token's span.
    pub start: Span,
    /// The last token's span.
    pub end: Span,
}

impl Sp {
    /// The range one span covers.
    pub fn of_span(span: Span) -> Sp {
        Sp { start: span, end: span }
    }

    /// The range a syntax node's tokens cover.
    pub fn of(node: &impl ToTokens) -> Sp {
        let tokens: TokenStream = node.to_token_stream();
        let mut iter = tokens.into_iter();
        let first = iter.next().map_or_else(Span::call_site, |t| t.span());
        let last = iter.last().map_or(first, |t| t.span());
        Sp { start: first, end: last }
    }

    /// The range from `self`'s start to `other`'s end.
    pub fn to(self, other: Sp) -> Sp {
        Sp { start: self.start, end: other.end }
    }
}

/// The value types of the language: what a scalar, a local or a slice element can be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// `bool` (a PTX predicate).
    Bool,
    /// `u8`, held zero-extended in a 32-bit register.
    U8,
    /// `i8`, held sign-extended in a 32-bit register.
    I8,
    /// `u16`, held zero-extended in a 32-bit register.
    U16,
    /// `i16`, held sign-extended in a 32-bit register.
    I16,
    /// `u32`.
    U32,
    /// `i32`.
    I32,
    /// `u64`.
    U64,
    /// `i64`.
    I64,
    /// `usize` (64-bit on every CUDA target).
    Usize,
    /// `isize` (64-bit).
    Isize,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `f16`: storage only; values convert to and from f32.
    F16,
    /// `bf16`: storage only; values convert to and from f32.
    Bf16,
}

impl Scalar {
    /// Every scalar type, for name lookup.
    pub const ALL: [Scalar; 15] = [
        Scalar::Bool,
        Scalar::U8,
        Scalar::I8,
        Scalar::U16,
        Scalar::I16,
        Scalar::U32,
        Scalar::I32,
        Scalar::U64,
        Scalar::I64,
        Scalar::Usize,
        Scalar::Isize,
        Scalar::F32,
        Scalar::F64,
        Scalar::F16,
        Scalar::Bf16,
    ];

    /// The type's Rust name.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::U8 => "u8",
            Scalar::I8 => "i8",
            Scalar::U16 => "u16",
            Scalar::I16 => "i16",
            Scalar::U32 => "u32",
            Scalar::I32 => "i32",
            Scalar::U64 => "u64",
            Scalar::I64 => "i64",
            Scalar::Usize => "usize",
            Scalar::Isize => "isize",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            Scalar::F16 => "f16",
            Scalar::Bf16 => "bf16",
        }
    }

    /// The scalar type called `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Scalar> {
        Scalar::ALL.into_iter().find(|s| s.name() == name)
    }

    /// True for the integer types.
    pub fn is_int(self) -> bool {
        !matches!(self, Scalar::Bool | Scalar::F32 | Scalar::F64 | Scalar::F16 | Scalar::Bf16)
    }

    /// The signed integer type of the same width (itself for the other types).
    pub fn signed(self) -> Scalar {
        match self {
            Scalar::U8 => Scalar::I8,
            Scalar::U16 => Scalar::I16,
            Scalar::U32 => Scalar::I32,
            Scalar::U64 => Scalar::I64,
            Scalar::Usize => Scalar::Isize,
            other => other,
        }
    }

    /// The unsigned integer type of the same width (itself for the other types).
    pub fn unsigned(self) -> Scalar {
        match self {
            Scalar::I8 => Scalar::U8,
            Scalar::I16 => Scalar::U16,
            Scalar::I32 => Scalar::U32,
            Scalar::I64 => Scalar::U64,
            Scalar::Isize => Scalar::Usize,
            other => other,
        }
    }

    /// True for the signed integer types.
    pub fn is_signed_int(self) -> bool {
        matches!(self, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64 | Scalar::Isize)
    }

    /// True for `f32` and `f64`, the float types with arithmetic.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }

    /// True for the 16-bit float storage types.
    pub fn is_half(self) -> bool {
        matches!(self, Scalar::F16 | Scalar::Bf16)
    }

    /// Width in bits of the Rust type (1 for bool).
    pub fn bits(self) -> u32 {
        match self {
            Scalar::Bool => 1,
            Scalar::U8 | Scalar::I8 => 8,
            Scalar::U16 | Scalar::I16 | Scalar::F16 | Scalar::Bf16 => 16,
            Scalar::U32 | Scalar::I32 | Scalar::F32 => 32,
            Scalar::U64 | Scalar::I64 | Scalar::Usize | Scalar::Isize | Scalar::F64 => 64,
        }
    }

    /// The range of an integer type, as `(min, max)`.
    pub fn int_range(self) -> (i128, i128) {
        let bits = self.bits();
        if self.is_signed_int() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        }
    }
}

/// A parameter of the kernel function.
#[derive(Clone)]
pub struct Param {
    /// Its name.
    pub name: Ident,
    /// What kind of parameter it is.
    pub kind: ParamKind,
    /// Whether it is declared `mut` (runtime scalars only): the body may assign it, as a
    /// local initialised with the argument.
    pub mutable: bool,
    /// Its lint-level and tools' attributes (`#[allow(unused_variables)]`), which the
    /// generated binding of its value carries.
    pub lints: Vec<syn::Attribute>,
}

/// The kinds of kernel parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A scalar passed by value at launch.
    Scalar(Scalar),
    /// `&[T]` (read-only) or `&mut [T]`.
    Slice {
        /// The element type.
        elem: Scalar,
        /// `&mut [T]`.
        mutable: bool,
    },
    /// `#[comptime] name: T`: a field of the kernel type, baked into the PTX.
    Comptime(Scalar),
    /// `[T; N]` by value, a local array (`#[ptx_device]` functions only).
    Array {
        /// The element type.
        elem: Scalar,
        /// The length, an integer literal.
        len: u64,
    },
    /// A tuple of scalars (and tuples of them) by value (`#[ptx_device]` functions only).
    Tuple(TypeAnnot),
}

/// The whole kernel function.
#[derive(Clone)]
pub struct KernelFn {
    /// Attributes to carry over to the generated type (doc comments, `#[allow]`, ...).
    pub attrs: Vec<syn::Attribute>,
    /// The function's visibility, given to the generated type.
    pub vis: syn::Visibility,
    /// The function's name (the PTX entry's name).
    pub name: Ident,
    /// Parameters in declaration order.
    pub params: Vec<Param>,
    /// Parameters whose declaration was rejected (reported): still names in the body, of
    /// a type that checks as anything, so that their uses report nothing more.
    pub rejected: Vec<Ident>,
    /// The body.
    pub body: Block,
    /// How many expression ids were handed out (the size of the side tables).
    pub expr_count: usize,
    /// The method calls written as `std::cmp::min(a, b)` or `Ord::max(a, b)` (which take
    /// `Ord` types only, not floats, as rustc's do): their ids and the paths as written.
    pub ord_calls: Vec<(usize, syn::Path)>,
    /// The elements a `for` loop over an array or slice binds (the `let`'s value, by
    /// expression id), which are references in Rust where the loop borrows them.
    pub elements: Vec<Element>,
    /// The expression ids of the names patterns compare with (`N =>`), which must not be
    /// variables: Rust binds a new name there.
    pub pattern_names: Vec<usize>,
    /// The indexing of a constant array of the surrounding code named by a path
    /// (`config::GAIN[i]`: an [`ExprKind::Index`] of `GAIN`), by expression id.
    pub item_paths: Vec<(usize, syn::Path)>,
}

/// An element a `for` loop over an array or a slice binds ([`crate::desugar::for_in_array`]).
#[derive(Clone, Copy, Debug)]
pub struct Element {
    /// The id of the `let`'s value, `array[index]`.
    pub init: usize,
    /// How Rust gives it.
    pub by: ElementBy,
}

/// How a `for` loop gives an element in Rust.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementBy {
    /// A reference (`.iter()`, `&a`): `*v` reads it, and a `T` is not one.
    Reference,
    /// A reference when the loop runs over a slice, a value over an array (`for v in a`).
    NameOfArrayOrSlice,
    /// Bound by a `&v` pattern over a name: a value, but the loop must give references (over
    /// an array by value, rustc's E0308).
    AmpPattern,
    /// A value of a loop that borrows the array (`.iter().copied()`).
    Copied,
}

/// `{ stmts; tail }`.
#[derive(Clone)]
pub struct Block {
    /// Statements in order.
    pub stmts: Vec<Stmt>,
    /// The final expression without a semicolon, which is the block's value.
    pub tail: Option<Box<Expr>>,
    /// The tail's source text, as [`Stmt::text`] (empty without a tail): a tail of type
    /// `()` (a kernel's closing `if` or loop) is a statement in the PTX's comments.
    pub tail_text: String,
    /// Whether it is a `#[ptx_device]` function's body, whose tail (the function's value)
    /// is a statement in the PTX's comments too.
    pub function_body: bool,
    /// The span of the braces.
    pub span: Sp,
}

/// A statement.
#[derive(Clone)]
pub enum Stmt {
    /// `let pat (: ty)? = init;`
    Let {
        /// The pattern bound.
        pat: Pat,
        /// The annotated type, if any.
        ty: Option<(TypeAnnot, Sp)>,
        /// The initializer.
        init: Expr,
        /// The whole statement.
        span: Sp,
        /// The statement as Rust source text (for comments in the PTX); empty for the
        /// bindings the parser writes.
        text: String,
        /// Whose binding it is.
        role: LetRole,
    },
    /// An expression statement (with or without `;`, not in tail position).
    Expr {
        /// The expression.
        expr: Expr,
        /// The statement as Rust source text (first line only for compound statements).
        text: String,
        /// Whether its value is discarded: a `;` ends it. One without (a block-like `if`,
        /// `match`, loop or block) must give `()`, as in Rust.
        discards: bool,
    },
}

impl Stmt {
    /// The statement's Rust source text.
    pub fn text(&self) -> &str {
        match self {
            Stmt::Let { text, .. } | Stmt::Expr { text, .. } => text,
        }
    }
}

/// Whose a `let` is: the user's, or one the parser wrote to inline a `#[ptx_device]`
/// function (its type errors name the function).
#[derive(Clone)]
pub enum LetRole {
    /// Written in the source.
    Source,
    /// Written in the source under `#[allow(..)]` (or a pattern's names bound again for an
    /// arm's body after its guard): as [`LetRole::Source`], and its names are never reported
    /// unused by rustc's lint, which sees them in the generated code.
    Allowed,
    /// Parameter `param` of device function `function`, bound to the call's argument.
    Argument {
        /// The device function.
        function: String,
        /// The parameter.
        param: String,
        /// A slice parameter's element type and `&mut`: the argument is a slice the
        /// parameter names (checked by the checker, as the `let` has no annotation).
        slice: Option<(Scalar, bool)>,
    },
    /// The value of device function `function`'s body, annotated with its return type.
    Result {
        /// The device function.
        function: String,
    },
    /// A `const` item of the body (`const TILE: usize = 16;`): a binding whose value must be
    /// known when the kernel is built.
    Const,
}

/// A type annotation on a `let`: a scalar, a tuple of them, or a local array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeAnnot {
    /// A scalar type.
    Scalar(Scalar),
    /// A tuple of annotations (`()` is the empty tuple).
    Tuple(Vec<TypeAnnot>),
    /// `[T; N]` (`T` a scalar or `_`), with `N` an integer literal.
    Array(Box<TypeAnnot>, u64),
    /// `&[T]` or `&mut [T]` (`T` a scalar): a slice, as a range of one is bound.
    Slice(Scalar, bool),
    /// `_`: inferred.
    Infer,
}

/// Whose an [`ExprKind::If`] is: its errors name what the user wrote.
#[derive(Clone)]
pub enum IfRole {
    /// Written as an `if`.
    Written,
    /// One of the `if`s a `match` is rewritten as.
    MatchArms,
    /// The `if` that picks the value of this name among the cases of a `|` pattern.
    OrBinding(Ident),
}

/// A `let` pattern.
#[derive(Clone)]
pub enum Pat {
    /// `x` or `mut x`.
    Ident {
        /// The bound name.
        name: Ident,
        /// Whether it is `mut`.
        mutable: bool,
    },
    /// `_`.
    Wild,
    /// `(a, b, ..)`.
    Tuple(Vec<Pat>, Sp),
}

impl Pat {
    /// The names the pattern binds, left to right.
    pub fn names(&self) -> Vec<&Ident> {
        fn collect<'p>(pat: &'p Pat, out: &mut Vec<&'p Ident>) {
            match pat {
                Pat::Ident { name, .. } => out.push(name),
                Pat::Wild => {}
                Pat::Tuple(pats, _) => pats.iter().for_each(|p| collect(p, out)),
            }
        }
        let mut out = Vec::new();
        collect(self, &mut out);
        out
    }
}

/// An expression with its span and id.
#[derive(Clone)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it is (the range errors about it cover).
    pub span: Sp,
    /// Dense id into the side tables.
    pub id: usize,
}

/// A literal.
#[derive(Clone)]
pub enum Lit {
    /// An integer literal; `digits` is the base-10 value without sign or suffix.
    Int {
        /// The value.
        value: u128,
        /// Its explicit type suffix, if any.
        suffix: Option<Scalar>,
    },
    /// A float literal, kept as its digits so rustc parses it exactly as Rust would.
    Float {
        /// The literal without suffix or underscores, e.g. `1.5e3`.
        digits: String,
        /// Its explicit suffix (`f32`/`f64`), if any.
        suffix: Option<Scalar>,
    },
    /// `true` / `false`.
    Bool(bool),
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&` (short-circuit)
    And,
    /// `||` (short-circuit)
    Or,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }

    /// True for the six comparisons.
    pub fn is_comparison(self) -> bool {
        matches!(self, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
    }

    /// True for `<<` and `>>`.
    pub fn is_shift(self) -> bool {
        matches!(self, BinOp::Shl | BinOp::Shr)
    }

    /// True for `&&` and `||`.
    pub fn is_short_circuit(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or)
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `!x`
    Not,
}

/// The three components of the index built-ins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// `.x`
    X,
    /// `.y`
    Y,
    /// `.z`
    Z,
}

/// A place that can be assigned: a mutable local, or a slice element.
#[derive(Clone)]
pub enum Place {
    /// A local variable.
    Local(Ident),
    /// `slice[index]`.
    Index {
        /// The slice parameter.
        slice: Ident,
        /// The index expression.
        index: Box<Expr>,
    },
    /// `tuple.0` (`tuple.1.0`, ..) of a local tuple variable.
    Field {
        /// The tuple variable.
        base: Ident,
        /// The element's position at each level, outermost first.
        fields: Vec<syn::Index>,
    },
}

/// What a `for` loop iterates over: `start..end`, `start..=end`, optionally `.step_by(step)`.
#[derive(Clone)]
pub struct RangeSpec {
    /// The first value.
    pub start: Box<Expr>,
    /// The bound.
    pub end: Box<Expr>,
    /// `..=` rather than `..`.
    pub inclusive: bool,
    /// The `step_by` argument.
    pub step: Option<Box<Expr>>,
    /// The order the values come in.
    pub order: RangeOrder,
}

/// The order of a `for` range's values.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum RangeOrder {
    /// `a..b` and `(a..b).step_by(s)`: up from `a`.
    Forward,
    /// `(a..b).rev()` and `(a..b).rev().step_by(s)`: down from the range's last value.
    Reversed,
    /// `(a..b).step_by(s).rev()`: the values of `(a..b).step_by(s)`, last first.
    StepsReversed,
}

/// The expression kinds of the language.
#[derive(Clone)]
pub enum ExprKind {
    /// A literal.
    Lit(Lit),
    /// A variable or parameter.
    Path(Ident),
    /// An associated constant of a scalar type (`u32::MAX`, `f32::EPSILON`) or a
    /// `{core,std}::{f32,f64}::consts` constant, written as `path`.
    Const {
        /// The constant's type.
        ty: Scalar,
        /// The path as the user wrote it (it is emitted as host Rust).
        path: syn::Path,
    },
    /// A constant (or static) of the code around the kernel named by a path, `config::TILE`
    /// (one named by a bare `TILE` is a [`ExprKind::Path`] the checker finds no local for):
    /// read while the kernel is built, of the type its use gives it.
    ItemConst(syn::Path),
    /// `-x`, `!x`.
    Unary(UnOp, Box<Expr>),
    /// `a op b`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `place = value`.
    Assign(Place, Box<Expr>),
    /// `place op= value`.
    CompoundAssign(BinOp, Place, Box<Expr>),
    /// `expr as T`.
    Cast(Box<Expr>, Scalar),
    /// `slice[index]` read.
    Index {
        /// The slice parameter.
        slice: Ident,
        /// The index.
        index: Box<Expr>,
    },
    /// `thread_idx()` and its siblings; `.x/.y/.z` is applied by `Field`.
    Builtin(Builtin),
    /// `base.x` on a built-in, or `tuple.0`.
    Field(Box<Expr>, Member),
    /// `Type::function(args)`, e.g. `f16::from_f32(x)`, `f32::from_bits(b)`.
    TypeCall {
        /// The type named before `::`.
        ty: Scalar,
        /// The function.
        func: Ident,
        /// Its arguments.
        args: Vec<Expr>,
    },
    /// `receiver.method(args)`.
    MethodCall {
        /// The receiver.
        receiver: Box<Expr>,
        /// The method name.
        method: Ident,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `if cond { then } else { else }`.
    If {
        /// The condition.
        cond: Box<Expr>,
        /// The `then` block.
        then: Block,
        /// The `else` branch: a block expression or another `if`.
        els: Option<Box<Expr>>,
        /// Whose `if` it is, for its errors.
        role: IfRole,
    },
    /// `{ ... }`.
    Block(Block),
    /// `'label: while cond { body }`.
    While {
        /// Loop label.
        label: Option<syn::Lifetime>,
        /// The condition.
        cond: Box<Expr>,
        /// The body.
        body: Block,
    },
    /// `'label: loop { body }`.
    Loop {
        /// Loop label.
        label: Option<syn::Lifetime>,
        /// The body.
        body: Block,
        /// Whether it is a `while let`'s, which a `break` leaves without a value.
        while_let: bool,
    },
    /// The check that a `match`'s unguarded arms cover every value of its scrutinee (bound
    /// to the hidden name `value`), where no arm takes every value: it computes nothing
    /// ([`crate::desugar::Coverage`]).
    Coverage {
        /// The scrutinee's hidden name.
        value: Ident,
        /// What each unguarded arm takes.
        arms: Vec<crate::coverage::Cover>,
    },
    /// `*v` of the element a `for` loop borrows ([`Element`]): its value.
    Deref(Box<Expr>),
    /// `'label: { body }`: a block that `break 'label value` leaves early with a value (its
    /// own value otherwise).
    Labeled {
        /// The label.
        label: syn::Lifetime,
        /// The block.
        body: Block,
    },
    /// `'label: for var in range { body }` (optionally `#[unroll]`).
    For {
        /// Loop label.
        label: Option<syn::Lifetime>,
        /// The loop variable (`None` for `_`).
        var: Option<Ident>,
        /// The range.
        range: RangeSpec,
        /// The body.
        body: Block,
        /// `#[unroll]`: the range is comptime and the body is repeated at build time. It holds
        /// the `for` keyword's span, where an error about the unrolling points.
        unroll: Option<Sp>,
    },
    /// `break 'label value`.
    Break {
        /// The label.
        label: Option<syn::Lifetime>,
        /// The value of a `loop`.
        value: Option<Box<Expr>>,
    },
    /// `continue 'label`.
    Continue {
        /// The label.
        label: Option<syn::Lifetime>,
    },
    /// `return` (kernels return nothing).
    Return,
    /// `(a, b)`; `()` is the empty tuple.
    Tuple(Vec<Expr>),
    /// `[a, b, c]`: a local array.
    Array(Vec<Expr>),
    /// `&x[start..end]` (`&mut` when `mutable`; either bound may be left out,
    /// `..=end` when `inclusive`): the elements of slice `x` in that range, as a slice.
    SubSlice {
        /// The slice whose elements it borrows.
        slice: Box<Expr>,
        /// The first index (`0` when left out).
        start: Option<Box<Expr>>,
        /// The end (the slice's length when left out).
        end: Option<Box<Expr>>,
        /// Whether `end` is included (`..=`).
        inclusive: bool,
        /// Whether it is `&mut`.
        mutable: bool,
    },
    /// `[value; len]`: a local array of `len` (a comptime `usize`) copies of `value`.
    Repeat {
        /// Every element's value.
        value: Box<Expr>,
        /// The length.
        len: Box<Expr>,
    },
    /// `shared::<T, N>()` (or `shared_dyn::<T>()`): a shared array of `N` elements, the
    /// initialiser of a `let`.
    Shared {
        /// The function's name as written (the generated code names it, so that the
        /// user's import of it is used).
        func: Ident,
        /// The element type.
        elem: Scalar,
        /// The length: a literal or a comptime expression; `None` for `shared_dyn::<T>()`,
        /// the dynamic shared memory the launch sizes.
        len: Option<Box<Expr>>,
    },
    /// A call of a function of threads working together (`sync_threads()`, `shfl_xor(v, 1)`).
    Intrinsic {
        /// Which function.
        which: Intrinsic,
        /// Its name as written.
        func: Ident,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `gpu_print!("format {}", args..)`: the text between the `{}`s and the arguments.
    Print {
        /// The macro's path as written (the generated code names it).
        path: syn::Path,
        /// The literal text around the placeholders: one more piece than arguments.
        pieces: Vec<String>,
        /// The arguments, one per `{}`.
        args: Vec<Expr>,
    },
    /// `atomic_op(&mut x[i], args..)`: an atomic read-modify-write of a slice or shared
    /// array element, giving the old value.
    Atomic {
        /// The operation.
        op: AtomicOp,
        /// Its name as written.
        func: Ident,
        /// The element (always a [`Place::Index`]).
        place: Place,
        /// The operands: one value, or `current, new` for `atomic_cas`.
        args: Vec<Expr>,
    },
    /// `load2(x, i)`, `load4(x, i)`, `store2(x, i, (a, b))`, `store4(x, i, (a, b, c, d))`: two or
    /// four consecutive elements of a slice parameter in one access.
    Vector {
        /// The function as written.
        func: Ident,
        /// The elements accessed: 2 or 4.
        width: usize,
        /// The slice parameter.
        slice: Ident,
        /// The first element's index (a multiple of `width`).
        index: Box<Expr>,
        /// The tuple stored; `None` for a load.
        values: Option<Box<Expr>>,
    },
    /// `debug_assert!` and its siblings: the check, built only where the crate building the
    /// kernel has debug assertions on (`cfg!(debug_assertions)`), as Rust leaves them out of
    /// release builds, condition and all.
    DebugOnly(Box<Expr>),
    /// A panic (`panic!`, a failed `assert!`): the launch's `Err(KernelPanic)` with Rust's
    /// message, and the thread stops.
    Panic {
        /// Rust's panic message.
        message: String,
    },
    /// The value of a `let` written without one (`let v: f32;`): the name is assigned
    /// later, and read only where every path to the read assigned it, as in Rust.
    Deferred,
    /// Something the parser already reported; it checks as any type, so that one mistake
    /// gives one error.
    Error,
}

/// Index built-ins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `thread_idx()`: the thread's index in its block.
    ThreadIdx,
    /// `block_idx()`: the block's index in the grid.
    BlockIdx,
    /// `block_dim()`: the block's shape.
    BlockDim,
    /// `grid_dim()`: the grid's shape in blocks.
    GridDim,
    /// `global_idx()`: `block_idx() * block_dim() + thread_idx()`, per axis.
    GlobalIdx,
}

impl Builtin {
    /// The built-in's function name.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::ThreadIdx => "thread_idx",
            Builtin::BlockIdx => "block_idx",
            Builtin::BlockDim => "block_dim",
            Builtin::GridDim => "grid_dim",
            Builtin::GlobalIdx => "global_idx",
        }
    }

    /// Every built-in.
    pub const ALL: [Builtin; 5] =
        [Builtin::ThreadIdx, Builtin::BlockIdx, Builtin::BlockDim, Builtin::GridDim, Builtin::GlobalIdx];
}

/// The functions of threads working together, called by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intrinsic {
    /// `sync_threads()`: the block barrier.
    SyncThreads,
    /// `sync_warp()`: the warp barrier.
    SyncWarp,
    /// `thread_fence_block()`: `membar.cta`.
    FenceBlock,
    /// `thread_fence()`: `membar.gl`.
    Fence,
    /// `thread_fence_system()`: `membar.sys`.
    FenceSystem,
    /// `lane_id()`: the lane in the warp, `u32`.
    LaneId,
    /// `warp_size()`: 32, a comptime `u32`.
    WarpSize,
    /// `shfl_xor(v, mask)`.
    ShflXor,
    /// `shfl_down(v, delta)`.
    ShflDown,
    /// `shfl_up(v, delta)`.
    ShflUp,
    /// `shfl_idx(v, lane)`.
    ShflIdx,
    /// `ballot(p)`: `u32`.
    Ballot,
    /// `any(p)`: `bool`.
    Any,
    /// `all(p)`: `bool`.
    All,
    /// `warp_sum(v)`: the sum over the warp, in every lane.
    WarpSum,
    /// `warp_min(v)`.
    WarpMin,
    /// `warp_max(v)`.
    WarpMax,
    /// `block_sum(v)`: the sum over the block, in every thread.
    BlockSum,
    /// `block_min(v)`.
    BlockMin,
    /// `block_max(v)`.
    BlockMax,
    /// The first index of `for i in grid_stride(n)`: `global_idx().x` as `usize` (made by
    /// the parser, not callable by name).
    GridStrideStart,
    /// The step of `for i in grid_stride(n)`: the grid's thread count in x, as `usize`.
    GridStrideStep,
}

impl Intrinsic {
    /// Every intrinsic.
    pub const ALL: [Intrinsic; 20] = [
        Intrinsic::SyncThreads,
        Intrinsic::SyncWarp,
        Intrinsic::FenceBlock,
        Intrinsic::Fence,
        Intrinsic::FenceSystem,
        Intrinsic::LaneId,
        Intrinsic::WarpSize,
        Intrinsic::ShflXor,
        Intrinsic::ShflDown,
        Intrinsic::ShflUp,
        Intrinsic::ShflIdx,
        Intrinsic::Ballot,
        Intrinsic::Any,
        Intrinsic::All,
        Intrinsic::WarpSum,
        Intrinsic::WarpMin,
        Intrinsic::WarpMax,
        Intrinsic::BlockSum,
        Intrinsic::BlockMin,
        Intrinsic::BlockMax,
    ];

    /// The function's name.
    pub fn name(self) -> &'static str {
        match self {
            Intrinsic::SyncThreads => "sync_threads",
            Intrinsic::SyncWarp => "sync_warp",
            Intrinsic::FenceBlock => "thread_fence_block",
            Intrinsic::Fence => "thread_fence",
            Intrinsic::FenceSystem => "thread_fence_system",
            Intrinsic::LaneId => "lane_id",
            Intrinsic::WarpSize => "warp_size",
            Intrinsic::ShflXor => "shfl_xor",
            Intrinsic::ShflDown => "shfl_down",
            Intrinsic::ShflUp => "shfl_up",
            Intrinsic::ShflIdx => "shfl_idx",
            Intrinsic::Ballot => "ballot",
            Intrinsic::Any => "any",
            Intrinsic::All => "all",
            Intrinsic::WarpSum => "warp_sum",
            Intrinsic::WarpMin => "warp_min",
            Intrinsic::WarpMax => "warp_max",
            Intrinsic::BlockSum => "block_sum",
            Intrinsic::BlockMin => "block_min",
            Intrinsic::BlockMax => "block_max",
            Intrinsic::GridStrideStart | Intrinsic::GridStrideStep => "grid_stride",
        }
    }

    /// How it is called, for errors about its arguments.
    pub fn usage(self) -> &'static str {
        match self {
            Intrinsic::SyncThreads => "sync_threads()",
            Intrinsic::SyncWarp => "sync_warp()",
            Intrinsic::FenceBlock => "thread_fence_block()",
            Intrinsic::Fence => "thread_fence()",
            Intrinsic::FenceSystem => "thread_fence_system()",
            Intrinsic::LaneId => "lane_id()",
            Intrinsic::WarpSize => "warp_size()",
            Intrinsic::ShflXor => "shfl_xor(value, lane_mask)",
            Intrinsic::ShflDown => "shfl_down(value, delta)",
            Intrinsic::ShflUp => "shfl_up(value, delta)",
            Intrinsic::ShflIdx => "shfl_idx(value, source_lane)",
            Intrinsic::Ballot => "ballot(condition)",
            Intrinsic::Any => "any(condition)",
            Intrinsic::All => "all(condition)",
            Intrinsic::WarpSum => "warp_sum(value)",
            Intrinsic::WarpMin => "warp_min(value)",
            Intrinsic::WarpMax => "warp_max(value)",
            Intrinsic::BlockSum => "block_sum(value)",
            Intrinsic::BlockMin => "block_min(value)",
            Intrinsic::BlockMax => "block_max(value)",
            Intrinsic::GridStrideStart | Intrinsic::GridStrideStep => "for i in grid_stride(n)",
        }
    }

    /// How many arguments it takes.
    pub fn arity(self) -> usize {
        match self {
            Intrinsic::SyncThreads
            | Intrinsic::SyncWarp
            | Intrinsic::FenceBlock
            | Intrinsic::Fence
            | Intrinsic::FenceSystem
            | Intrinsic::LaneId
            | Intrinsic::WarpSize
            | Intrinsic::GridStrideStart
            | Intrinsic::GridStrideStep => 0,
            Intrinsic::ShflXor | Intrinsic::ShflDown | Intrinsic::ShflUp | Intrinsic::ShflIdx => 2,
            _ => 1,
        }
    }

    /// True for the warp and block reductions.
    pub fn is_reduction(self) -> bool {
        matches!(
            self,
            Intrinsic::WarpSum
                | Intrinsic::WarpMin
                | Intrinsic::WarpMax
                | Intrinsic::BlockSum
                | Intrinsic::BlockMin
                | Intrinsic::BlockMax
        )
    }

    /// True for the four shuffles.
    pub fn is_shuffle(self) -> bool {
        matches!(self, Intrinsic::ShflXor | Intrinsic::ShflDown | Intrinsic::ShflUp | Intrinsic::ShflIdx)
    }

    /// True for the operations every lane of the warp must reach together: shuffles,
    /// votes, reductions and `sync_warp` (a checked kernel verifies it).
    pub fn needs_whole_warp(self) -> bool {
        self.is_shuffle()
            || self.is_reduction()
            || matches!(self, Intrinsic::Ballot | Intrinsic::Any | Intrinsic::All | Intrinsic::SyncWarp)
    }
}

/// The atomic read-modify-write operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    /// `atomic_add`: wrapping for integers, IEEE for floats.
    Add,
    /// `atomic_min`.
    Min,
    /// `atomic_max`.
    Max,
    /// `atomic_and`.
    And,
    /// `atomic_or`.
    Or,
    /// `atomic_xor`.
    Xor,
    /// `atomic_exch`: stores the value.
    Exch,
    /// `atomic_cas(&mut x[i], current, new)`: stores `new` where the element is `current`.
    Cas,
}

impl AtomicOp {
    /// Every operation.
    pub const ALL: [AtomicOp; 8] = [
        AtomicOp::Add,
        AtomicOp::Min,
        AtomicOp::Max,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Exch,
        AtomicOp::Cas,
    ];

    /// The function's name.
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "atomic_add",
            AtomicOp::Min => "atomic_min",
            AtomicOp::Max => "atomic_max",
            AtomicOp::And => "atomic_and",
            AtomicOp::Or => "atomic_or",
            AtomicOp::Xor => "atomic_xor",
            AtomicOp::Exch => "atomic_exch",
            AtomicOp::Cas => "atomic_cas",
        }
    }

    /// The operands after the element: one value, or two for `atomic_cas`.
    pub fn value_count(self) -> usize {
        if self == AtomicOp::Cas {
            2
        } else {
            1
        }
    }

    /// Whether the operation exists for elements of type `elem`: add, exchange and
    /// compare-and-swap for 32- and 64-bit integers and floats, the others for 32- and
    /// 64-bit integers (PTX's float `atom.min`/`max` need sm_90).
    pub fn supports(self, elem: Scalar) -> bool {
        let wide_int = elem.is_int() && elem.bits() >= 32;
        match self {
            AtomicOp::Add | AtomicOp::Exch | AtomicOp::Cas => wide_int || elem.is_float(),
            _ => wide_int,
        }
    }
}

/// A field access.
#[derive(Clone)]
pub enum Member {
    /// `.x` `.y` `.z` of a built-in.
    Axis(Axis, Sp),
    /// `.0`, `.1`, ... of a tuple.
    Index(usize, Sp),
}
