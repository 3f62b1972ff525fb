//! Types of the kernel language and their inference, the way rustc infers this subset:
//! unsuffixed literals are type variables of the integer or float kind, unified with the
//! types around them and defaulted to `i32` / `f64` only when nothing else decides them.

use std::fmt;

use crate::ast::Scalar;

/// A type, possibly still containing inference variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A scalar value.
    Scalar(Scalar),
    /// A tuple; `()` is the empty tuple.
    Tuple(Vec<Ty>),
    /// A local array of this element type (a scalar); its length is known while the kernel
    /// is built, not here.
    Array(Box<Ty>),
    /// The type of `return`, `break`, `continue`: it coerces to anything.
    Never,
    /// The value of `thread_idx()` and its siblings (fields `.x .y .z`).
    Dim3,
    /// A slice parameter.
    Slice {
        /// Element type.
        elem: Scalar,
        /// `&mut [T]`.
        mutable: bool,
    },
    /// An inference variable.
    Var(usize),
    /// A type that already produced an error: it unifies with everything, so one mistake
    /// is reported once.
    Error,
}

impl Ty {
    /// The unit type `()`.
    pub fn unit() -> Ty {
        Ty::Tuple(Vec::new())
    }

    /// The scalar, if this is one.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Ty::Scalar(s) => Some(*s),
            _ => None,
        }
    }
}

/// What an inference variable may become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// `{integer}`: an integer type.
    Int,
    /// `{float}`: `f32` or `f64`.
    Float,
    /// Anything.
    Any,
}

#[derive(Clone, Debug)]
enum VarState {
    Unbound(VarKind),
    Bound(Ty),
}

/// The inference table: variables and what they are bound to.
#[derive(Default)]
pub struct Infer {
    vars: Vec<VarState>,
}

impl Infer {
    /// A fresh variable of `kind`.
    pub fn fresh(&mut self, kind: VarKind) -> Ty {
        self.vars.push(VarState::Unbound(kind));
        Ty::Var(self.vars.len() - 1)
    }

    /// `ty` with bound variables replaced by what they are bound to (shallowly for the
    /// outermost level; tuples are resolved element by element).
    pub fn resolve(&self, ty: &Ty) -> Ty {
        match ty {
            Ty::Var(v) => match &self.vars[*v] {
                VarState::Bound(t) => self.resolve(t),
                VarState::Unbound(_) => ty.clone(),
            },
            Ty::Tuple(elems) => Ty::Tuple(elems.iter().map(|e| self.resolve(e)).collect()),
            Ty::Array(elem) => Ty::Array(Box::new(self.resolve(elem))),
            other => other.clone(),
        }
    }

    /// The kind of an unbound variable after resolution, if `ty` is one.
    pub fn var_kind(&self, ty: &Ty) -> Option<VarKind> {
        match self.resolve(ty) {
            Ty::Var(v) => match self.vars[v] {
                VarState::Unbound(k) => Some(k),
                VarState::Bound(_) => None,
            },
            _ => None,
        }
    }

    /// Makes `a` and `b` the same type; on failure returns both, resolved, for the message.
    pub fn unify(&mut self, a: &Ty, b: &Ty) -> Result<Ty, (Ty, Ty)> {
        let (a, b) = (self.resolve(a), self.resolve(b));
        match (&a, &b) {
            // A variable meeting an error takes it, so that it is not defaulted (`i32`) into
            // errors that only follow from the first one.
            (Ty::Error, Ty::Var(x)) | (Ty::Var(x), Ty::Error) => {
                self.vars[*x] = VarState::Bound(Ty::Error);
                Ok(Ty::Error)
            }
            (Ty::Error, _) | (_, Ty::Error) => Ok(Ty::Error),
            (Ty::Never, other) | (other, Ty::Never) => Ok(other.clone()),
            (Ty::Var(x), Ty::Var(y)) if x == y => Ok(a.clone()),
            (Ty::Var(x), Ty::Var(y)) => {
                let (kx, ky) = (self.kind_of(*x), self.kind_of(*y));
                let kind = match (kx, ky) {
                    (VarKind::Any, k) | (k, VarKind::Any) => k,
                    (k1, k2) if k1 == k2 => k1,
                    _ => return Err((a.clone(), b.clone())),
                };
                self.vars[*y] = VarState::Unbound(kind);
                self.vars[*x] = VarState::Bound(b.clone());
                Ok(b.clone())
            }
            (Ty::Var(x), other) | (other, Ty::Var(x)) => {
                let ok = match (self.kind_of(*x), other) {
                    (VarKind::Any, _) => true,
                    (VarKind::Int, Ty::Scalar(s)) => s.is_int(),
                    (VarKind::Float, Ty::Scalar(s)) => s.is_float(),
                    _ => false,
                };
                if !ok {
                    return Err((a.clone(), b.clone()));
                }
                self.vars[*x] = VarState::Bound(other.clone());
                Ok(other.clone())
            }
            (Ty::Tuple(xs), Ty::Tuple(ys)) if xs.len() == ys.len() => {
                let mut out = Vec::with_capacity(xs.len());
                for (x, y) in xs.iter().zip(ys) {
                    out.push(self.unify(x, y).map_err(|_| (a.clone(), b.clone()))?);
                }
                Ok(Ty::Tuple(out))
            }
            (Ty::Array(x), Ty::Array(y)) => {
                let elem = self.unify(x, y).map_err(|_| (a.clone(), b.clone()))?;
                Ok(Ty::Array(Box::new(elem)))
            }
            _ if a == b => Ok(a.clone()),
            _ => Err((a.clone(), b.clone())),
        }
    }

    fn kind_of(&self, v: usize) -> VarKind {
        match self.vars[v] {
            VarState::Unbound(k) => k,
            VarState::Bound(_) => VarKind::Any,
        }
    }

    /// Binds every still-unbound numeric variable to Rust's default (`i32`, `f64`) and any
    /// other to `()`.
    pub fn apply_defaults(&mut self) {
        for v in 0..self.vars.len() {
            if let VarState::Unbound(kind) = self.vars[v] {
                self.vars[v] = VarState::Bound(match kind {
                    VarKind::Int => Ty::Scalar(Scalar::I32),
                    VarKind::Float => Ty::Scalar(Scalar::F64),
                    VarKind::Any => Ty::unit(),
                });
            }
        }
    }

    /// A printable form of `ty` (`{integer}` for an unbound integer variable, as rustc prints it).
    pub fn show(&self, ty: &Ty) -> TyDisplay {
        TyDisplay(self.describe(ty))
    }

    fn describe(&self, ty: &Ty) -> String {
        match self.resolve(ty) {
            Ty::Scalar(s) => s.name().to_string(),
            Ty::Tuple(elems) if elems.len() == 1 => format!("({},)", self.describe(&elems[0])),
            Ty::Tuple(elems) => {
                let parts: Vec<String> = elems.iter().map(|e| self.describe(e)).collect();
                format!("({})", parts.join(", "))
            }
            Ty::Array(elem) => format!("[{}; _]", self.describe(&elem)),
            Ty::Never => "!".to_string(),
            Ty::Dim3 => "Dim3".to_string(),
            Ty::Slice { elem, mutable: false } => format!("&[{}]", elem.name()),
            Ty::Slice { elem, mutable: true } => format!("&mut [{}]", elem.name()),
            Ty::Var(v) => match self.vars[v] {
                VarState::Unbound(VarKind::Int) => "{integer}".to_string(),
                VarState::Unbound(VarKind::Float) => "{float}".to_string(),
                _ => "_".to_string(),
            },
            Ty::Error => "{unknown}".to_string(),
        }
    }
}

/// A type as rustc would print it.
pub struct TyDisplay(String);

impl fmt::Display for TyDisplay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_take_their_type_from_context_and_default_like_rust() {
        let mut inf = Infer::default();
        let i = inf.fresh(VarKind::Int);
        let f = inf.fresh(VarKind::Float);
        assert!(inf.unify(&i, &Ty::Scalar(Scalar::U8)).is_ok());
        assert_eq!(inf.resolve(&i), Ty::Scalar(Scalar::U8));
        assert!(inf.unify(&f, &Ty::Scalar(Scalar::U32)).is_err(), "a float literal is never an integer");
        let j = inf.fresh(VarKind::Int);
        assert!(inf.unify(&j, &f).is_err(), "{{integer}} and {{float}} do not unify");
        let k = inf.fresh(VarKind::Int);
        inf.apply_defaults();
        assert_eq!(inf.resolve(&k), Ty::Scalar(Scalar::I32));
        assert_eq!(inf.resolve(&f), Ty::Scalar(Scalar::F64));
    }

    #[test]
    fn never_coerces_and_errors_absorb() {
        let mut inf = Infer::default();
        assert_eq!(inf.unify(&Ty::Never, &Ty::Scalar(Scalar::F32)), Ok(Ty::Scalar(Scalar::F32)));
        assert_eq!(inf.unify(&Ty::Error, &Ty::Scalar(Scalar::F32)), Ok(Ty::Error));
        let t = Ty::Tuple(vec![Ty::Scalar(Scalar::F32), Ty::Scalar(Scalar::U32)]);
        let v = inf.fresh(VarKind::Int);
        let u = Ty::Tuple(vec![Ty::Scalar(Scalar::F32), v.clone()]);
        assert!(inf.unify(&t, &u).is_ok());
        assert_eq!(inf.resolve(&v), Ty::Scalar(Scalar::U32));
        let float = inf.fresh(VarKind::Float);
        assert_eq!(inf.show(&Ty::Tuple(vec![float])).to_string(), "({float},)");
    }
}
