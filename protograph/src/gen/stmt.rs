//! The kinds of statements a walk makes besides `var vN = CALL;`: property
//! stores, `Object.defineProperty` with a getter or a value, and loops over
//! iterables. Each is typed: a store writes a value of the type the graph
//! gives the property (or a re-entrant value under a key builtins read), a
//! loop iterates a value of a type with a `Symbol.iterator` method.

use super::reentry::READ_KEYS;
use super::Walk;
use crate::index::Ty;
use crate::program::{Expr, Key, Lit, Member, Stmt};

/// How often each kind is drawn, out of [`KIND_WEIGHTS`]' sum: calls stay
/// the bulk of every program.
const KIND_WEIGHTS: [(StmtKind, usize); 4] = [
    (StmtKind::Call, 15),
    (StmtKind::Store, 2),
    (StmtKind::DefineProperty, 1),
    (StmtKind::ForOf, 2),
];

/// A kind of generated statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StmtKind {
    Call,
    Store,
    DefineProperty,
    ForOf,
}

impl Walk<'_> {
    /// A statement of a random kind; `var` is the number it defines (if it
    /// defines one) and the type is that variable's.
    pub fn any_statement(&mut self, var: u32) -> (Stmt, Option<Ty>) {
        let total: usize = KIND_WEIGHTS.iter().map(|(_, w)| w).sum();
        let mut draw = self.rng.below(total);
        let kind = KIND_WEIGHTS
            .iter()
            .find(|(_, w)| {
                let hit = draw < *w;
                draw = draw.saturating_sub(*w);
                hit
            })
            .map_or(StmtKind::Call, |(k, _)| *k);
        self.statement_of(kind, var)
    }

    /// A statement of `kind`, falling back to a call when the graph cannot
    /// make one.
    pub(crate) fn statement_of(&mut self, kind: StmtKind, var: u32) -> (Stmt, Option<Ty>) {
        let made = match kind {
            StmtKind::Call => None,
            StmtKind::Store => self.store(var),
            StmtKind::DefineProperty => self.define_property(var),
            StmtKind::ForOf => self.for_of(var),
        };
        made.unwrap_or_else(|| {
            let (expr, ty) = self.statement();
            (def(var, expr), ty)
        })
    }

    /// An object to write to: a variable of an object type, else a value
    /// of a buildable object type. With its type.
    fn target(&mut self) -> Option<(Expr, Ty)> {
        let index = self.index;
        let objects: Vec<u32> = (0..self.vars.len() as u32)
            .filter(|&v| self.vars[v as usize].is_some_and(|t| !index.is_primitive(t)))
            .collect();
        if !objects.is_empty() && self.rng.chance(2, 3) {
            let v = *self.rng.pick(&objects);
            return Some((Expr::Var(v), self.vars[v as usize]?));
        }
        let buildable: Vec<Ty> = index
            .buildable
            .iter()
            .copied()
            .filter(|&t| !index.is_primitive(t))
            .collect();
        if buildable.is_empty() {
            return None;
        }
        let t = *self.rng.pick(&buildable);
        Some((self.value(t, self.config.max_depth - 1), t))
    }

    /// `var vN = TARGET.key = VALUE;`: a property the graph knows, given a
    /// value of its type, or a key builtins read, given user code. `vN` is
    /// the value stored.
    fn store(&mut self, var: u32) -> Option<(Stmt, Option<Ty>)> {
        let (target, t) = self.target()?;
        let depth = self.config.max_depth;
        let known = self.index.props_along(t);
        let (key, value, ty) = if !known.is_empty() && self.rng.chance(1, 2) {
            let (key, ty) = self.rng.pick(&known).clone();
            (key, self.argument(ty, depth), Some(ty))
        } else {
            let key: Key = (*self.rng.pick(&READ_KEYS)).into();
            (key, self.any(depth), None)
        };
        let stmt = Stmt::Store {
            var,
            target,
            key,
            value,
            guarded: true,
        };
        Some((stmt, ty))
    }

    /// `var vN = this.Object.defineProperty(TARGET, "key", DESCRIPTOR);`
    /// with a getter that calls a builtin or a data value.
    fn define_property(&mut self, var: u32) -> Option<(Stmt, Option<Ty>)> {
        let (target, t) = self.target()?;
        let key = *self.rng.pick(&READ_KEYS);
        let depth = self.config.max_depth;
        let flag = |key: &str, on: bool| Member {
            key: key.into(),
            getter: false,
            value: Expr::Lit(Lit::Bool(on)),
        };
        let descriptor = if self.rng.chance(1, 2) {
            let get = Member {
                key: "get".into(),
                getter: false,
                value: self.callback(depth),
            };
            vec![get, flag("configurable", self.rng.chance(1, 2))]
        } else {
            let value = Member {
                key: "value".into(),
                getter: false,
                value: self.any(depth),
            };
            vec![value, flag("writable", self.rng.chance(1, 2))]
        };
        let object = Expr::Prop(Box::new(Expr::This), "Object".into());
        let define = Expr::Prop(Box::new(object), "defineProperty".into());
        let key = match key.strip_prefix("@@") {
            Some(symbol) => {
                let symbols = Expr::Prop(Box::new(Expr::This), "Symbol".into());
                Expr::Prop(Box::new(symbols), symbol.into())
            }
            None => Expr::Lit(Lit::Str(json_string(key).into())),
        };
        let args = vec![target, key, Expr::Obj(descriptor)];
        Some((def(var, Expr::Call(Box::new(define), args)), Some(t)))
    }

    /// `for (var vN of ITERABLE) { CALL; }` over a value of an iterable type;
    /// the body's walk may use the element `vN` (of unknown type).
    fn for_of(&mut self, var: u32) -> Option<(Stmt, Option<Ty>)> {
        let index = self.index;
        let depth = self.config.max_depth;
        let iterables: Vec<Ty> = index
            .iterables
            .iter()
            .copied()
            .filter(|&t| index.cost[t as usize] < depth)
            .collect();
        let t = *iterables.get(self.rng.below(iterables.len().max(1)))?;
        let iterable = self.value(t, depth - 1);
        let mut scope = self.vars.to_vec();
        scope.push(None);
        let body = Walk {
            index,
            config: self.config,
            rng: &mut *self.rng,
            vars: &scope,
        }
        .nested_call(depth);
        let stmt = Stmt::ForOf {
            var,
            iterable,
            body,
            guarded: true,
        };
        Some((stmt, None))
    }
}
/// `try { var vN = EXPR; } catch (e) {}`
pub(crate) fn def(var: u32, expr: Expr) -> Stmt {
    Stmt::Def {
        var,
        expr,
        guarded: true,
    }
}

/// A JSON string token for `key`.
fn json_string(key: &str) -> String {
    serde_json::to_string(key).expect("strings serialize")
}

#[cfg(test)]
mod tests {
    use crate::fixtures::learned;
    use crate::program::parse_program;
    use crate::{Config, Generator};

    /// 200 programs of 10 statements from the learned graph, as text.
    fn sample() -> String {
        let g = Generator::new(&learned(), Config::default()).unwrap();
        (0..200).map(|seed| g.program(seed, 10).render()).collect()
    }

    #[test]
    fn walks_make_every_statement_kind() {
        let text = sample();
        let lines: Vec<&str> = text.lines().collect();
        let has = |what: &str, f: &dyn Fn(&str) -> bool| {
            assert!(lines.iter().any(|l| f(l)), "no {what} in:\n{text}");
        };
        has("store", &|l| {
            let p = crate::program::parse_program(l);
            matches!(p.stmts[0], crate::program::Stmt::Store { .. })
        });
        has("defineProperty", &|l| {
            l.contains("this.Object.defineProperty(")
        });
        has("for-of loop", &|l| l.starts_with("try { for (var v"));
        has("callback", &|l| l.contains("(function () { return "));
        has("getter", &|l| l.contains("({get "));
        has("conversion hook", &|l| {
            ["({valueOf: ", "({toString: ", "({[Symbol.toPrimitive]: "]
                .iter()
                .any(|h| l.contains(h))
        });
        has("proxy argument", &|l| l.contains("new (this.Proxy)("));
        has("builtin subclass", &|l| l.contains("(class extends "));
    }

    #[test]
    fn new_kinds_parse_back() {
        let text = sample();
        let p = parse_program(&text);
        assert!(p.stmts.iter().all(|s| s.is_generated()));
        assert_eq!(p.render(), text);
    }
}
