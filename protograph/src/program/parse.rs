//! Reading generated programs back: a small recursive-descent parser for
//! exactly the forms [`Expr::write`](super::Expr::write) produces.
//!
//! The mutator needs the tree of a program it generated earlier, after a trip
//! through libFuzzer. Anything outside the generated grammar is not an error:
//! the line simply becomes [`Stmt::Raw`].

use super::{Expr, Key, Lit, Program, Stmt};

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
    let rest = line.strip_prefix("try { var v")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let var = rest[..digits].parse().ok()?;
    let body = rest[digits..]
        .strip_prefix(" = ")?
        .strip_suffix("; } catch (e) {}")?;
    Some(Stmt::Def {
        var,
        expr: parse_expr(body)?,
    })
}

/// Parses one whole expression in generated form.
pub fn parse_expr(text: &str) -> Option<Expr> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
        depth: 0,
    };
    let e = p.expr()?;
    (p.pos == p.s.len()).then_some(e)
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
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
        if self.eat("(") {
            let e = self.expr()?;
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
                    "this" => Expr::This,
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
    fn rejects_other_code() {
        for src in [
            "", "x + 1", "this.", "f(", "new X()", "v", "1.2.3n", "\"open", "this.a b",
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
                    expr: Expr::This
                },
                Stmt::Raw("foo();".into())
            ]
        );
    }
}
