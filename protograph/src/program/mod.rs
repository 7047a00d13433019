//! Generated programs: the expression tree, statements, and their source
//! form.
//!
//! A program is a list of statements, one per line, each of the form
//! `try { var vN = EXPR; } catch (e) {}` so that one throwing call does not
//! stop the rest. The text form is what fuzz targets receive and what the
//! mutator gets back from libFuzzer, so it must parse back into the same tree
//! (see [`parse_program`]); lines that do not parse are kept verbatim as
//! [`Stmt::Raw`], so byte-level mutations of libFuzzer survive.

mod parse;

use std::fmt::{self, Write};
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
}

/// One line of a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stmt {
    /// `try { var v{var} = {expr}; } catch (e) {}`
    Def {
        /// The variable number N of `vN`.
        var: u32,
        /// The value.
        expr: Expr,
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

    fn children(&self) -> Box<dyn Iterator<Item = &Expr> + '_> {
        match self {
            Expr::Lit(Lit::Array(items)) => Box::new(items.iter()),
            Expr::This | Expr::Var(_) | Expr::Lit(_) => Box::new(std::iter::empty()),
            Expr::Prop(base, _) => Box::new(std::iter::once(&**base)),
            Expr::Call(f, args) | Expr::New(f, args) => Box::new(std::iter::once(&**f).chain(args)),
        }
    }

    fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Lit(Lit::Array(items)) => items.iter_mut().collect(),
            Expr::This | Expr::Var(_) | Expr::Lit(_) => Vec::new(),
            Expr::Prop(base, _) => vec![&mut **base],
            Expr::Call(f, args) | Expr::New(f, args) => {
                std::iter::once(&mut **f).chain(args.iter_mut()).collect()
            }
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
        if let Expr::Var(v) = self {
            *self = match f(*v) {
                Some(new) => Expr::Var(new),
                None => Expr::Lit(Lit::Undefined),
            };
            return;
        }
        for child in self.children_mut() {
            child.map_vars(f);
        }
    }

    /// Appends the source form to `out`.
    pub fn write(&self, out: &mut String) {
        match self {
            Expr::This => out.push_str("this"),
            Expr::Var(v) => {
                let _ = write!(out, "v{v}");
            }
            Expr::Lit(lit) => lit.write(out),
            Expr::Prop(base, key) => {
                base.write_base(out);
                write_key(key, out);
            }
            Expr::Call(f, args) => {
                f.write_base(out);
                write_list('(', args, ')', out);
            }
            Expr::New(f, args) => {
                out.push_str("new (");
                f.write(out);
                out.push(')');
                write_list('(', args, ')', out);
            }
        }
    }

    /// Writes `self` where a member or call base is expected, in parentheses
    /// when the bare form would not parse that way (`(1).x`, `(new (F)()).x`).
    fn write_base(&self, out: &mut String) {
        let bare = matches!(
            self,
            Expr::This | Expr::Var(_) | Expr::Prop(..) | Expr::Call(..)
        ) || matches!(
            self,
            Expr::Lit(Lit::Array(_) | Lit::Symbol(_) | Lit::Object | Lit::Function)
        );
        if bare {
            self.write(out);
        } else {
            out.push('(');
            self.write(out);
            out.push(')');
        }
    }
}

fn write_list(open: char, items: &[Expr], close: char, out: &mut String) {
    out.push(open);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        item.write(out);
    }
    out.push(close);
}

/// Whether `key` can follow a dot.
pub(crate) fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

fn write_key(key: &str, out: &mut String) {
    if let Some(symbol) = key.strip_prefix("@@") {
        let _ = write!(out, "[Symbol.{symbol}]");
    } else if is_identifier(key) {
        out.push('.');
        out.push_str(key);
    } else {
        out.push('[');
        out.push_str(&serde_json::to_string(key).expect("strings serialize"));
        out.push(']');
    }
}

impl Lit {
    fn write(&self, out: &mut String) {
        match self {
            Lit::Undefined => out.push_str("undefined"),
            Lit::Null => out.push_str("null"),
            Lit::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Lit::Number(n) => out.push_str(n),
            Lit::Str(s) => out.push_str(s),
            Lit::BigInt(n) => {
                out.push_str(n);
                out.push('n');
            }
            Lit::Symbol(desc) => {
                out.push_str("Symbol(");
                out.push_str(desc);
                out.push(')');
            }
            Lit::Object => out.push_str("({})"),
            Lit::Array(items) => write_list('[', items, ']', out),
            Lit::Function => out.push_str("(function () {})"),
        }
    }
}

impl Stmt {
    /// Appends the statement's line, without the newline.
    pub fn write(&self, out: &mut String) {
        match self {
            Stmt::Def { var, expr } => {
                let _ = write!(out, "try {{ var v{var} = ");
                expr.write(out);
                out.push_str("; } catch (e) {}");
            }
            Stmt::Raw(line) => out.push_str(line),
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
            if let Stmt::Def { var, .. } = stmt {
                map.entry(*var).or_insert(i as u32);
            }
        }
        for (i, stmt) in self.stmts.iter_mut().enumerate() {
            if let Stmt::Def { var, expr } = stmt {
                *var = i as u32;
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

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        self.write(&mut s);
        f.write_str(&s)
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
                },
                Stmt::Raw("junk".into()),
                Stmt::Def {
                    var: 3,
                    expr: Expr::Call(Box::new(Expr::Var(7)), vec![Expr::Var(9)]),
                },
            ],
        };
        p.renumber();
        assert_eq!(p.render(), "try { var v0 = this; } catch (e) {}\njunk\ntry { var v2 = v0(undefined); } catch (e) {}\n");
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
