//! The source form of programs: what [`super::parse`] reads back.

use std::fmt::{self, Write};

use super::{Expr, Lit, Member, Stmt};

impl Expr {
    /// Appends the source form to `out`.
    pub fn write(&self, out: &mut String) {
        self.write_in(out, false);
    }

    /// Appends the source form; `nested` inside user code, where `this` is
    /// the receiver, so the global object is written `globalThis`.
    fn write_in(&self, out: &mut String, nested: bool) {
        match self {
            Expr::This if nested => out.push_str("globalThis"),
            Expr::This => out.push_str("this"),
            Expr::Var(v) => {
                let _ = write!(out, "v{v}");
            }
            Expr::Lit(lit) => lit.write(out, nested),
            Expr::Prop(base, key) => {
                base.write_base(out, nested);
                write_key(key, out);
            }
            Expr::Call(f, args) => {
                f.write_base(out, nested);
                write_list('(', args, ')', out, nested);
            }
            Expr::New(f, args) => {
                out.push_str("new (");
                f.write_in(out, nested);
                out.push(')');
                write_list('(', args, ')', out, nested);
            }
            Expr::Fn(body) => {
                out.push_str("(function () ");
                write_return(body, out);
                out.push(')');
            }
            Expr::Obj(members) => write_object(members, out, nested),
            Expr::Class(base, methods) => write_class(base, methods, out, nested),
            Expr::Seq(first, then) => {
                out.push('(');
                first.write_in(out, nested);
                out.push_str(", ");
                then.write_in(out, nested);
                out.push(')');
            }
        }
    }

    /// Writes `self` where a member or call base is expected, in parentheses
    /// when the bare form would not parse that way (`(1).x`, `(new (F)()).x`).
    fn write_base(&self, out: &mut String, nested: bool) {
        let bare = matches!(
            self,
            Expr::This
                | Expr::Var(_)
                | Expr::Prop(..)
                | Expr::Call(..)
                | Expr::Fn(_)
                | Expr::Obj(_)
                | Expr::Class(..)
                | Expr::Seq(..)
        ) || matches!(
            self,
            Expr::Lit(Lit::Array(_) | Lit::Symbol(_) | Lit::Object | Lit::Function)
        );
        if bare {
            self.write_in(out, nested);
        } else {
            out.push('(');
            self.write_in(out, nested);
            out.push(')');
        }
    }
}

/// `{ return BODY; }`, the body of user code.
fn write_return(body: &Expr, out: &mut String) {
    out.push_str("{ return ");
    body.write_in(out, true);
    out.push_str("; }");
}

fn write_object(members: &[Member], out: &mut String, nested: bool) {
    out.push_str("({");
    for (i, m) in members.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if m.getter {
            out.push_str("get ");
            write_literal_key(&m.key, out);
            out.push_str("() ");
            write_return(&m.value, out);
        } else {
            write_literal_key(&m.key, out);
            out.push_str(": ");
            m.value.write_in(out, nested);
        }
    }
    out.push_str("})");
}

fn write_class(base: &Expr, methods: &[(super::Key, Expr)], out: &mut String, nested: bool) {
    out.push_str("(class extends ");
    base.write_base(out, nested);
    out.push_str(" {");
    for (key, body) in methods {
        out.push(' ');
        write_literal_key(key, out);
        out.push_str("() ");
        write_return(body, out);
    }
    out.push_str(if methods.is_empty() { "})" } else { " })" });
}

fn write_list(open: char, items: &[Expr], close: char, out: &mut String, nested: bool) {
    out.push(open);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        item.write_in(out, nested);
    }
    out.push(close);
}

/// Whether `key` can follow a dot.
pub(crate) fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// A key after a base: `.name`, `["a b"]` or `[Symbol.name]`.
pub(super) fn write_key(key: &str, out: &mut String) {
    if let Some(symbol) = key.strip_prefix("@@") {
        let _ = write!(out, "[Symbol.{symbol}]");
    } else if is_identifier(key) {
        out.push('.');
        out.push_str(key);
    } else {
        out.push('[');
        write_string(key, out);
        out.push(']');
    }
}

/// A key in an object literal or class body: `name`, `"a b"` or `[Symbol.name]`.
fn write_literal_key(key: &str, out: &mut String) {
    if let Some(symbol) = key.strip_prefix("@@") {
        let _ = write!(out, "[Symbol.{symbol}]");
    } else if is_identifier(key) {
        out.push_str(key);
    } else {
        write_string(key, out);
    }
}

fn write_string(s: &str, out: &mut String) {
    out.push_str(&serde_json::to_string(s).expect("strings serialize"));
}

impl Lit {
    fn write(&self, out: &mut String, nested: bool) {
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
            Lit::Array(items) => write_list('[', items, ']', out, nested),
            Lit::Function => out.push_str("(function () {})"),
        }
    }
}

impl Stmt {
    /// Appends the statement's line, without the newline.
    pub fn write(&self, out: &mut String) {
        let guarded = match self {
            Stmt::Raw(line) => return out.push_str(line),
            Stmt::Def { guarded, .. }
            | Stmt::Store { guarded, .. }
            | Stmt::ForOf { guarded, .. } => *guarded,
        };
        if guarded {
            out.push_str("try { ");
        }
        self.write_action(out);
        if guarded {
            out.push_str(" } catch (e) {}");
        }
    }

    /// The statement without its `try`: what runtime feedback runs.
    pub fn write_action(&self, out: &mut String) {
        match self {
            Stmt::Def { var, expr, .. } => {
                let _ = write!(out, "var v{var} = ");
                expr.write(out);
                out.push(';');
            }
            Stmt::Store {
                var,
                target,
                key,
                value,
                ..
            } => {
                let _ = write!(out, "var v{var} = ");
                target.write_base(out, false);
                write_key(key, out);
                out.push_str(" = ");
                value.write(out);
                out.push(';');
            }
            Stmt::ForOf {
                var,
                iterable,
                body,
                ..
            } => {
                let _ = write!(out, "for (var v{var} of ");
                iterable.write(out);
                out.push_str(") { ");
                body.write(out);
                out.push_str("; }");
            }
            Stmt::Raw(line) => out.push_str(line),
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        self.write(&mut s);
        f.write_str(&s)
    }
}
