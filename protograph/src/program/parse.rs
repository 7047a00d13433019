//! Reading generated programs back: a small recursive-descent parser for
//! exactly the forms [`Expr::write`](super::Expr::write) produces.
//!
//! The mutator needs the tree of a program it generated earlier, after a trip
//! through libFuzzer. Anything outside the generated grammar is not an error:
//! the line simply becomes [`Stmt::Raw`].

use super::{Expr, Key, Lit, Member, Program, Stmt};

/// Deepest nesting accepted, so hostile inputs cannot overflow the stack.
const MAX_NESTING: usize = 64;

/// Parses a program, one statement per line; unrecognised lines stay raw.
pub fn parse_program(text: &str) -> Program {
    let stmts = text
        .lines()
        .filter(|line| !line.is_empty())
        .map(|line| parse_stmt(line).unwrap_or_else(|| Stmt::Raw(line.to_string())))
        .collect();
    Program { stmts }
}

fn parse_stmt(line: &str) -> Option<Stmt> {
    let (action, guarded) = match line
        .strip_prefix("try { ")
        .and_then(|l| l.strip_suffix(" } catch (e) {}"))
    {
        Some(action) => (action, true),
        None => (line, false),
    };
    let mut p = Parser::new(action);
    let stmt = p.action(guarded)?;
    (p.pos == p.s.len()).then_some(stmt)
}

/// Parses one whole expression in generated form.
pub fn parse_expr(text: &str) -> Option<Expr> {
    let mut p = Parser::new(text);
    let e = p.expr()?;
    (p.pos == p.s.len()).then_some(e)
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser {
            s: text.as_bytes(),
            pos: 0,
            depth: 0,
        }
    }

    /// A statement without its `try`.
    fn action(&mut self, guarded: bool) -> Option<Stmt> {
        if self.eat("var v") {
            let var = self.var_number()?;
            self.eat(" = ").then_some(())?;
            let expr = self.expr()?;
            if self.eat(";") {
                return Some(Stmt::Def { var, expr, guarded });
            }
            let Expr::Prop(target, key) = expr else {
                return None;
            };
            self.eat(" = ").then_some(())?;
            let value = self.expr()?;
            self.eat(";").then_some(())?;
            return Some(Stmt::Store {
                var,
                target: *target,
                key,
                value,
                guarded,
            });
        }
        if self.eat("for (var v") {
            let var = self.var_number()?;
            self.eat(" of ").then_some(())?;
            let iterable = self.expr()?;
            self.eat(") { ").then_some(())?;
            let body = self.expr()?;
            self.eat("; }").then_some(())?;
            return Some(Stmt::ForOf {
                var,
                iterable,
                body,
                guarded,
            });
        }
        None
    }

    fn var_number(&mut self) -> Option<u32> {
        let start = self.pos;
        while self.s.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        self.text(start).parse().ok()
    }

    fn eat(&mut self, token: &str) -> bool {
        if self.s[self.pos..].starts_with(token.as_bytes()) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn text(&self, from: usize) -> &str {
        std::str::from_utf8(&self.s[from..self.pos]).expect("tokens end on ASCII boundaries")
    }

    fn expr(&mut self) -> Option<Expr> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return None;
        }
        let mut e = self.primary()?;
        loop {
            if self.eat("[Symbol.") {
                let name = self.ident()?;
                let key: Key = format!("@@{name}").into();
                self.eat("]").then_some(())?;
                e = Expr::Prop(Box::new(e), key);
            } else if self.eat(".") {
                let name = self.ident()?;
                e = Expr::Prop(Box::new(e), name.into());
            } else if self.s.get(self.pos) == Some(&b'[') && self.s.get(self.pos + 1) == Some(&b'"')
            {
                self.pos += 1;
                let token = self.string()?;
                let key: String = serde_json::from_str(token).ok()?;
                self.eat("]").then_some(())?;
                e = Expr::Prop(Box::new(e), key.into());
            } else if self.eat("(") {
                let args = self.list(")")?;
                e = Expr::Call(Box::new(e), args);
            } else {
                break;
            }
        }
        self.depth -= 1;
        Some(e)
    }

    fn primary(&mut self) -> Option<Expr> {
        if self.eat("new (") {
            let callee = self.expr()?;
            self.eat(")(").then_some(())?;
            let args = self.list(")")?;
            return Some(Expr::New(Box::new(callee), args));
        }
        if self.eat("({})") {
            return Some(Expr::Lit(Lit::Object));
        }
        if self.eat("(function () {})") {
            return Some(Expr::Lit(Lit::Function));
        }
        if self.eat("(function () ") {
            let body = self.returning()?;
            self.eat(")").then_some(())?;
            return Some(Expr::Fn(Box::new(body)));
        }
        if self.eat("({") {
            return self.object();
        }
        if self.eat("(class extends ") {
            return self.class();
        }
        if self.eat("(") {
            let e = self.expr()?;
            if self.eat(", ") {
                let then = self.expr()?;
                self.eat(")").then_some(())?;
                return Some(Expr::Seq(Box::new(e), Box::new(then)));
            }
            self.eat(")").then_some(())?;
            return Some(e);
        }
        if self.eat("[") {
            return Some(Expr::Lit(Lit::Array(self.list("]")?)));
        }
        if self.eat("Symbol(") {
            let desc = self.string()?.into();
            self.eat(")").then_some(())?;
            return Some(Expr::Lit(Lit::Symbol(desc)));
        }
        match self.s.get(self.pos)? {
            b'"' => Some(Expr::Lit(Lit::Str(self.string()?.into()))),
            b'0'..=b'9' | b'-' | b'.' => self.number(),
            _ => {
                let word = self.ident()?;
                Some(match word {
                    // The global object inside user code (see write.rs).
                    "this" | "globalThis" => Expr::This,
                    "undefined" => Expr::Lit(Lit::Undefined),
                    "null" => Expr::Lit(Lit::Null),
                    "true" => Expr::Lit(Lit::Bool(true)),
                    "false" => Expr::Lit(Lit::Bool(false)),
                    "NaN" | "Infinity" => Expr::Lit(Lit::Number(word.into())),
                    _ => Expr::Var(word.strip_prefix('v')?.parse().ok()?),
                })
            }
        }
    }

    /// `{ return EXPR; }`
    fn returning(&mut self) -> Option<Expr> {
        self.eat("{ return ").then_some(())?;
        let e = self.expr()?;
        self.eat("; }").then_some(())?;
        Some(e)
    }

    /// The members of an object literal after `({`, through `})`.
    fn object(&mut self) -> Option<Expr> {
        let mut members = Vec::new();
        loop {
            let getter = self.eat("get ");
            let key = self.literal_key()?;
            let value = if getter {
                self.eat("() ").then_some(())?;
                self.returning()?
            } else {
                self.eat(": ").then_some(())?;
                self.expr()?
            };
            members.push(Member { key, getter, value });
            if self.eat("})") {
                return Some(Expr::Obj(members));
            }
            self.eat(", ").then_some(())?;
        }
    }

    /// A class after `(class extends `, through `})`.
    fn class(&mut self) -> Option<Expr> {
        let base = self.expr()?;
        self.eat(" {").then_some(())?;
        let mut methods = Vec::new();
        while !self.eat("})") {
            self.eat(" ").then_some(())?;
            if self.eat("})") {
                break;
            }
            let key = self.literal_key()?;
            self.eat("() ").then_some(())?;
            methods.push((key, self.returning()?));
        }
        Some(Expr::Class(Box::new(base), methods))
    }

    /// A key of an object literal or class body: `name`, `"a b"` or `[Symbol.name]`.
    fn literal_key(&mut self) -> Option<Key> {
        if self.eat("[Symbol.") {
            let name = self.ident()?;
            let key: Key = format!("@@{name}").into();
            self.eat("]").then_some(())?;
            return Some(key);
        }
        if self.s.get(self.pos) == Some(&b'"') {
            let key: String = serde_json::from_str(self.string()?).ok()?;
            return Some(key.into());
        }
        Some(self.ident()?.into())
    }

    /// Comma-separated expressions up to `close`.
    fn list(&mut self, close: &str) -> Option<Vec<Expr>> {
        let mut items = Vec::new();
        if self.eat(close) {
            return Some(items);
        }
        loop {
            items.push(self.expr()?);
            if self.eat(close) {
                return Some(items);
            }
            self.eat(", ").then_some(())?;
        }
    }

    fn ident(&mut self) -> Option<&str> {
        let start = self.pos;
        while self.pos < self.s.len()
            && (self.s[self.pos].is_ascii_alphanumeric() || b"_$".contains(&self.s[self.pos]))
        {
            self.pos += 1;
        }
        let word = self.text(start);
        super::is_identifier(word).then_some(word)
    }

    /// A double-quoted string token, returned with its quotes and escapes.
    fn string(&mut self) -> Option<&str> {
        let start = self.pos;
        self.eat("\"").then_some(())?;
        loop {
            match self.s.get(self.pos)? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    return std::str::from_utf8(self.s.get(start..self.pos)?).ok();
                }
                b'\n' => return None,
                _ => self.pos += 1,
            }
        }
    }

    /// A number or BigInt literal, optionally negative.
    fn number(&mut self) -> Option<Expr> {
        let start = self.pos;
        self.eat("-");
        if self.eat("Infinity") {
            return Some(Expr::Lit(Lit::Number(self.text(start).into())));
        }
        let digits = self.pos;
        while let Some(&c) = self.s.get(self.pos) {
            let exponent_sign =
                (c == b'-' || c == b'+') && matches!(self.s[self.pos - 1], b'e' | b'E');
            if !(c.is_ascii_digit() || c == b'.' || c == b'e' || c == b'E' || exponent_sign) {
                break;
            }
            self.pos += 1;
        }
        let body = self.text(digits);
        if body.is_empty() || body.parse::<f64>().is_err() {
            return None;
        }
        let integer = body.bytes().all(|c| c.is_ascii_digit());
        if self.eat("n") {
            let text = self.text(start);
            let text = &text[..text.len() - 1];
            return integer.then(|| Expr::Lit(Lit::BigInt(text.into())));
        }
        Some(Expr::Lit(Lit::Number(self.text(start).into())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(src: &str) {
        let e = parse_expr(src).unwrap_or_else(|| panic!("does not parse: {src}"));
        assert_eq!(e.to_string(), src);
    }

    #[test]
    fn parses_what_is_rendered() {
        for src in [
            "this.Object.getPrototypeOf(this.Function.prototype)",
            "new (this.Object)(this)",
            r#"(-1)[Symbol.iterator]["a b"](v3, "x\"y", 1e-7, -0, NaN, -Infinity)"#,
            "[1, [], ({}), (function () {}), null, undefined, true, false]",
            "(new (v0)()).x.y(18446744073709551616n, -1n)",
            r#"Symbol("d").description"#,
            r#"this.String.fromCharCode("\ud800")"#,
        ] {
            round_trip(src);
        }
    }

    #[test]
    fn parses_user_code_that_reenters_builtins() {
        for src in [
            "(function () { return globalThis.Math.max(v0); })",
            r#"({valueOf: (function () { return (globalThis.Array.of(), 7); }), get "a b"() { return v1.at(-1); }})"#,
            "({[Symbol.toPrimitive]: (function () { return 1; }), get [Symbol.iterator]() { return v2; }})",
            "new ((class extends this.RegExp { exec() { return globalThis.Object.keys(v3); } }))(\"a\")",
            "new ((class extends this.Map {}))()",
            "new (this.Proxy)([], ({get: (function () { return null; })}))",
            "(v0, this)",
        ] {
            round_trip(src);
        }
    }

    #[test]
    fn parses_every_statement_kind_guarded_or_not() {
        for line in [
            "try { var v0 = this.Array(3); } catch (e) {}",
            "var v0 = this.Array(3);",
            "try { var v1 = v0.length = ({get next() { return 1; }}); } catch (e) {}",
            r#"var v0 = this.Array.prototype["0"] = 1;"#,
            "try { for (var v2 of v1.keys()) { v2.toString(); } } catch (e) {}",
            "for (var v2 of [1, 2]) { this.Math.abs(v2); }",
        ] {
            let p = parse_program(line);
            assert!(p.stmts[0].is_generated(), "{line}");
            assert_eq!(p.render(), format!("{line}\n"));
        }
        let p = parse_program("var v0 = this.Array(3);");
        assert!(matches!(p.stmts[0], Stmt::Def { guarded: false, .. }));
    }

    #[test]
    fn rejects_other_code() {
        for src in [
            "",
            "x + 1",
            "this.",
            "f(",
            "new X()",
            "v",
            "1.2.3n",
            "\"open",
            "this.a b",
            "({a 1})",
            "(class extends X { m() { return 1 } })",
            "(function () { f(); })",
        ] {
            assert_eq!(parse_expr(src), None, "{src}");
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let src = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(parse_expr(&src), None);
    }

    #[test]
    fn keeps_unknown_lines_raw() {
        let p = parse_program("try { var v0 = this; } catch (e) {}\nfoo();\n\n");
        assert_eq!(
            p.stmts,
            vec![
                Stmt::Def {
                    var: 0,
                    expr: Expr::This,
                    guarded: true,
                },
                Stmt::Raw("foo();".into())
            ]
        );
    }
}
