//! Generated programs: the expression tree, statements, and their source
//! form.
//!
//! A program is a list of statements, one per line: a definition
//! `var vN = EXPR;`, a property store `var vN = TARGET.key = VALUE;` or a loop
//! `for (var vN of EXPR) { EXPR; }`, each wrapped in `try { … } catch (e) {}`
//! so that one throwing statement does not stop the rest, unless runtime
//! feedback saw it run without throwing (see [`crate::feedback`]). The text form is what fuzz targets receive and what the
//! mutator gets back from libFuzzer, so it must parse back into the same tree
//! (see [`parse_program`]); lines that do not parse are kept verbatim as
//! [`Stmt::Raw`], so byte-level mutations of libFuzzer survive.

mod parse;
mod write;

pub(crate) use write::is_identifier;

use std::sync::Arc;

pub use parse::{parse_expr, parse_program};

/// A property key: a string name or `@@name` for the well-known symbol
/// `Symbol.name`, as in the graph's `property` edge labels.
pub type Key = Arc<str>;

/// A literal whose source text is kept as written, so that values such as
/// `-0`, `1e21` or a lone surrogate `"\ud800"` round-trip exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lit {
    /// `undefined`
    Undefined,
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number as written: `0`, `-1.5`, `1e-7`, `NaN`, `-Infinity`.
    Number(Arc<str>),
    /// A double-quoted string token, quotes and escapes included.
    Str(Arc<str>),
    /// A BigInt as written, without the `n`: `0`, `-18446744073709551616`.
    BigInt(Arc<str>),
    /// `Symbol("desc")`, the description as a string token.
    Symbol(Arc<str>),
    /// `({})`
    Object,
    /// `[a, b]`
    Array(Vec<Expr>),
    /// `(function () {})`
    Function,
}

/// An expression of a generated program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// The global object, written `this`.
    This,
    /// A variable defined by an earlier statement, `vN`.
    Var(u32),
    /// A literal.
    Lit(Lit),
    /// Property read `base.key`, `base["key"]` or `base[Symbol.key]`.
    Prop(Box<Expr>, Key),
    /// Call `callee(args)`; a `Prop` callee makes it a method call.
    Call(Box<Expr>, Vec<Expr>),
    /// Construction `new (callee)(args)`.
    New(Box<Expr>, Vec<Expr>),
    /// `(function () { return BODY; })`: user code that calls back into the
    /// builtins when a builtin calls it.
    Fn(Box<Expr>),
    /// An object literal with at least one member, `({k: V, get g() { return E; }})`.
    Obj(Vec<Member>),
    /// `(class extends BASE { m() { return BODY; } })`: a subclass of a
    /// builtin, overriding the named methods.
    Class(Box<Expr>, Vec<(Key, Expr)>),
    /// `(first, then)`: `first` for its effect, the value of `then`.
    Seq(Box<Expr>, Box<Expr>),
}

/// A member of an [`Expr::Obj`] literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The property key (`@@name` for a well-known symbol).
    pub key: Key,
    /// `get key() { return value; }` rather than `key: value`.
    pub getter: bool,
    /// The value, or what the getter returns.
    pub value: Expr,
}

/// One line of a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stmt {
    /// `var v{var} = {expr};`
    Def {
        /// The variable number N of `vN`.
        var: u32,
        /// The value.
        expr: Expr,
        /// Wrapped in `try { … } catch (e) {}`.
        guarded: bool,
    },
    /// `var v{var} = {target}.{key} = {value};`: a store that also names the
    /// value, so that every statement defines its variable.
    Store {
        /// The variable number N of `vN`.
        var: u32,
        /// The object written to.
        target: Expr,
        /// The property key.
        key: Key,
        /// The value stored.
        value: Expr,
        /// Wrapped in `try { … } catch (e) {}`.
        guarded: bool,
    },
    /// `for (var v{var} of {iterable}) { {body}; }`
    ForOf {
        /// The loop variable's number.
        var: u32,
        /// What is iterated.
        iterable: Expr,
        /// Evaluated for each element (`v{var}` is the element).
        body: Expr,
        /// Wrapped in `try { … } catch (e) {}`.
        guarded: bool,
    },
    /// A line that is not in generated form, kept as is (without newline).
    Raw(String),
}

/// A generated program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Program {
    /// The statements, in order.
    pub stmts: Vec<Stmt>,
}

impl Expr {
    /// Number of nodes in the tree (pre-order positions for [`Expr::nth_mut`]).
    pub fn size(&self) -> usize {
        1 + self.children().map(Expr::size).sum::<usize>()
    }

    pub(crate) fn children(&self) -> Box<dyn Iterator<Item = &Expr> + '_> {
        match self {
            Expr::Lit(Lit::Array(items)) => Box::new(items.iter()),
            Expr::This | Expr::Var(_) | Expr::Lit(_) => Box::new(std::iter::empty()),
            Expr::Prop(base, _) | Expr::Fn(base) => Box::new(std::iter::once(&**base)),
            Expr::Call(f, args) | Expr::New(f, args) => Box::new(std::iter::once(&**f).chain(args)),
            Expr::Obj(members) => Box::new(members.iter().map(|m| &m.value)),
            Expr::Class(base, methods) => {
                Box::new(std::iter::once(&**base).chain(methods.iter().map(|(_, e)| e)))
            }
            Expr::Seq(a, b) => Box::new([&**a, &**b].into_iter()),
        }
    }

    fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Lit(Lit::Array(items)) => items.iter_mut().collect(),
            Expr::This | Expr::Var(_) | Expr::Lit(_) => Vec::new(),
            Expr::Prop(base, _) | Expr::Fn(base) => vec![&mut **base],
            Expr::Call(f, args) | Expr::New(f, args) => {
                std::iter::once(&mut **f).chain(args.iter_mut()).collect()
            }
            Expr::Obj(members) => members.iter_mut().map(|m| &mut m.value).collect(),
            Expr::Class(base, methods) => std::iter::once(&mut **base)
                .chain(methods.iter_mut().map(|(_, e)| e))
                .collect(),
            Expr::Seq(a, b) => vec![&mut **a, &mut **b],
        }
    }

    /// The `n`-th node in pre-order (0 is `self`).
    pub fn nth_mut(&mut self, n: usize) -> Option<&mut Expr> {
        if n == 0 {
            return Some(self);
        }
        let mut rest = n - 1;
        for child in self.children_mut() {
            let size = child.size();
            if rest < size {
                return child.nth_mut(rest);
            }
            rest -= size;
        }
        None
    }

    /// Applies `f` to every variable number in the tree.
    pub fn map_vars(&mut self, f: &mut impl FnMut(u32) -> Option<u32>) {
        self.replace_vars(&mut |v| match f(v) {
            Some(new) => Expr::Var(new),
            None => Expr::Lit(Lit::Undefined),
        });
    }

    /// Replaces every variable `vN` of the tree by `f(N)`.
    pub fn replace_vars(&mut self, f: &mut impl FnMut(u32) -> Expr) {
        if let Expr::Var(v) = self {
            *self = f(*v);
            return;
        }
        for child in self.children_mut() {
            child.replace_vars(f);
        }
    }
}

impl Stmt {
    /// The variable the statement defines, if any.
    pub fn defines(&self) -> Option<u32> {
        match self {
            Stmt::Def { var, .. } | Stmt::Store { var, .. } | Stmt::ForOf { var, .. } => Some(*var),
            Stmt::Raw(_) => None,
        }
    }

    /// Whether the statement is in generated form (not [`Stmt::Raw`]).
    pub fn is_generated(&self) -> bool {
        !matches!(self, Stmt::Raw(_))
    }

    /// The `try` flag of a generated statement.
    pub fn guarded_mut(&mut self) -> Option<&mut bool> {
        match self {
            Stmt::Def { guarded, .. }
            | Stmt::Store { guarded, .. }
            | Stmt::ForOf { guarded, .. } => Some(guarded),
            Stmt::Raw(_) => None,
        }
    }

    /// The expressions of the statement, in source order.
    pub fn exprs_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Stmt::Def { expr, .. } => vec![expr],
            Stmt::Store { target, value, .. } => vec![target, value],
            Stmt::ForOf { iterable, body, .. } => vec![iterable, body],
            Stmt::Raw(_) => Vec::new(),
        }
    }

    pub(crate) fn var_mut(&mut self) -> Option<&mut u32> {
        match self {
            Stmt::Def { var, .. } | Stmt::Store { var, .. } | Stmt::ForOf { var, .. } => Some(var),
            Stmt::Raw(_) => None,
        }
    }

    /// Moves every variable number of the statement (defined or used) by
    /// `offset`.
    pub fn shift_vars(&mut self, offset: u32) {
        if let Some(var) = self.var_mut() {
            *var += offset;
        }
        for expr in self.exprs_mut() {
            expr.map_vars(&mut |v| Some(v + offset));
        }
    }
}

impl Program {
    /// Renumbers variables so that statement `i` defines `vi`, rewriting
    /// references; a reference to a variable no statement defines becomes
    /// `undefined`. Keeps mutated and spliced programs free of clashes.
    pub fn renumber(&mut self) {
        let mut map = std::collections::HashMap::new();
        for (i, stmt) in self.stmts.iter().enumerate() {
            if let Some(var) = stmt.defines() {
                map.entry(var).or_insert(i as u32);
            }
        }
        for (i, stmt) in self.stmts.iter_mut().enumerate() {
            if let Some(var) = stmt.var_mut() {
                *var = i as u32;
            }
            for expr in stmt.exprs_mut() {
                expr.map_vars(&mut |v| map.get(&v).copied());
            }
        }
    }

    /// The source text, one statement per line.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for stmt in &self.stmts {
            stmt.write(&mut out);
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prop(base: Expr, key: &str) -> Expr {
        Expr::Prop(Box::new(base), key.into())
    }

    #[test]
    fn renders_the_thesis_examples() {
        let get_proto = prop(prop(Expr::This, "Object"), "getPrototypeOf");
        let arg = prop(prop(Expr::This, "Function"), "prototype");
        let call = Expr::Call(Box::new(get_proto), vec![arg]);
        assert_eq!(
            call.to_string(),
            "this.Object.getPrototypeOf(this.Function.prototype)"
        );
        let new = Expr::New(Box::new(prop(Expr::This, "Object")), vec![Expr::This]);
        assert_eq!(new.to_string(), "new (this.Object)(this)");
    }

    #[test]
    fn renders_keys_and_bases() {
        let e = prop(
            prop(Expr::Lit(Lit::Number("-1".into())), "@@iterator"),
            "a b",
        );
        assert_eq!(e.to_string(), r#"(-1)[Symbol.iterator]["a b"]"#);
        let e = prop(Expr::New(Box::new(Expr::Var(0)), vec![]), "x");
        assert_eq!(e.to_string(), "(new (v0)()).x");
    }

    #[test]
    fn renumber_rewrites_references() {
        let mut p = Program {
            stmts: vec![
                Stmt::Def {
                    var: 7,
                    expr: Expr::This,
                    guarded: true,
                },
                Stmt::Raw("junk".into()),
                Stmt::Def {
                    var: 3,
                    expr: Expr::Call(Box::new(Expr::Var(7)), vec![Expr::Var(9)]),
                    guarded: true,
                },
            ],
        };
        p.renumber();
        assert_eq!(p.render(), "try { var v0 = this; } catch (e) {}\njunk\ntry { var v2 = v0(undefined); } catch (e) {}\n");
    }

    #[test]
    fn the_global_object_inside_user_code_is_global_this() {
        // Inside a getter, method or called function `this` is the receiver.
        let math = prop(Expr::This, "Math");
        let getter = Expr::Obj(vec![Member {
            key: "x".into(),
            getter: true,
            value: math.clone(),
        }]);
        let e = Expr::Call(Box::new(math), vec![Expr::Fn(Box::new(Expr::This)), getter]);
        assert_eq!(
            e.to_string(),
            "this.Math((function () { return globalThis; }), ({get x() { return globalThis.Math; }}))"
        );
    }

    #[test]
    fn renumber_covers_stores_and_loops() {
        let mut p = parse_program(
            "try { var v4 = this; } catch (e) {}\n\
             var v1 = v4.x = v4;\n\
             try { for (var v9 of v4) { v9.f(v4); } } catch (e) {}\n",
        );
        p.renumber();
        assert_eq!(
            p.render(),
            "try { var v0 = this; } catch (e) {}\n\
             var v1 = v0.x = v0;\n\
             try { for (var v2 of v0) { v2.f(v0); } } catch (e) {}\n"
        );
    }

    #[test]
    fn nth_mut_walks_pre_order() {
        let mut e = Expr::Call(
            Box::new(prop(Expr::This, "f")),
            vec![Expr::Var(1), Expr::Var(2)],
        );
        assert_eq!(e.size(), 5);
        assert_eq!(e.nth_mut(2), Some(&mut Expr::This));
        assert_eq!(e.nth_mut(4), Some(&mut Expr::Var(2)));
        assert_eq!(e.nth_mut(5), None);
    }
}
