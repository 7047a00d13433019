//! User code that re-enters the builtins, in argument position: callbacks,
//! objects whose `valueOf`, `toString`, `Symbol.toPrimitive` or getters call
//! builtins, Proxies whose traps do, and subclasses of builtin constructors
//! that override a method. Engines' builtins break where they call back into
//! user code that changes what they are working on (Fuzzilli's probing and
//! exploration mutators target the same thing); a graph of builtin calls
//! alone never goes there.

use super::literal::{LitKind, PRIMITIVE_KINDS};
use super::{Config, Walk};
use crate::index::Ty;
use crate::program::{Expr, Key, Member};

/// Keys builtins read from the objects they are given (options bags,
/// iterator results, thenables, array-likes, regular-expression-likes), for
/// getters and stores: a hand-picked list because the graph records what
/// builtins *are*, not what they read from their arguments.
pub(crate) const READ_KEYS: [&str; 36] = [
    "length",
    "0",
    "1",
    "constructor",
    "prototype",
    "next",
    "done",
    "value",
    "then",
    "lastIndex",
    "source",
    "flags",
    "global",
    "exec",
    "index",
    "size",
    "has",
    "keys",
    "get",
    "set",
    "byteLength",
    "calendar",
    "timeZone",
    "smallestUnit",
    "largestUnit",
    "roundingMode",
    "unit",
    "year",
    "month",
    "day",
    "@@iterator",
    "@@toPrimitive",
    "@@species",
    "@@isConcatSpreadable",
    "@@toStringTag",
    "@@match",
];

/// The conversion hooks an object can answer a primitive with.
const CONVERSIONS: [&str; 3] = ["valueOf", "toString", "@@toPrimitive"];

/// Proxy traps, with the kind of value each returns (`None`: the callback's
/// own result).
const TRAPS: [(&str, Option<LitKind>); 6] = [
    ("get", None),
    ("has", Some(LitKind::Boolean)),
    ("set", Some(LitKind::Boolean)),
    ("getPrototypeOf", Some(LitKind::Null)),
    ("deleteProperty", Some(LitKind::Boolean)),
    ("apply", None),
];

impl Walk<'_> {
    /// Sometimes, a value for an argument of type `t` that calls back into
    /// the builtins; `None` for a plain value.
    pub(super) fn reentrant(&mut self, t: Ty, depth: u32) -> Option<Expr> {
        if depth == 0 {
            return None;
        }
        let index = self.index;
        match index.literal[t as usize] {
            Some(LitKind::Function) if self.rng.chance(1, 2) => Some(self.callback(depth)),
            Some(LitKind::Object) if self.rng.chance(1, 3) => Some(self.hooked_object(depth)),
            Some(kind) if PRIMITIVE_KINDS.contains(&kind) && self.rng.chance(1, 12) => {
                Some(self.converting(kind, depth))
            }
            None if self.rng.chance(1, 12) => Some(self.proxy(t, depth)),
            _ => None,
        }
    }

    /// A call found by a shorter walk, as the body of user code.
    pub(super) fn nested_call(&mut self, depth: u32) -> Expr {
        let config = Config {
            max_forward: self.config.max_forward.min(3),
            max_depth: depth.saturating_sub(1),
            ..self.config.clone()
        };
        Walk {
            index: self.index,
            config: &config,
            rng: &mut *self.rng,
            vars: self.vars,
        }
        .statement()
        .0
    }

    /// `(function () { return CALL; })`
    pub(super) fn callback(&mut self, depth: u32) -> Expr {
        Expr::Fn(Box::new(self.nested_call(depth)))
    }

    /// `(CALL, LITERAL)`: a call for its effect, then a value of `kind`.
    fn call_then(&mut self, kind: LitKind, depth: u32) -> Expr {
        let call = self.nested_call(depth);
        Expr::Seq(Box::new(call), Box::new(Expr::Lit(kind.random(self.rng))))
    }

    /// An object standing for a primitive of `kind`: its conversion hook
    /// calls a builtin, then answers a `kind` value.
    fn converting(&mut self, kind: LitKind, depth: u32) -> Expr {
        let key: Key = (*self.rng.pick(&CONVERSIONS)).into();
        let value = Expr::Fn(Box::new(self.call_then(kind, depth)));
        Expr::Obj(vec![Member {
            key,
            getter: false,
            value,
        }])
    }

    /// A plain object with a getter that calls a builtin, under a key
    /// builtins read.
    pub(super) fn hooked_object(&mut self, depth: u32) -> Expr {
        let key: Key = (*self.rng.pick(&READ_KEYS)).into();
        let kind = *self.rng.pick(&PRIMITIVE_KINDS);
        let value = if self.rng.chance(1, 2) {
            self.nested_call(depth)
        } else {
            self.call_then(kind, depth)
        };
        Expr::Obj(vec![Member {
            key,
            getter: true,
            value,
        }])
    }

    /// `new (this.Proxy)(VALUE, ({TRAP: (function () { return …; })}))`: a
    /// value of type `t` behind a Proxy whose trap calls a builtin.
    fn proxy(&mut self, t: Ty, depth: u32) -> Expr {
        let target = self.value(t, depth - 1);
        let (trap, answer) = *self.rng.pick(&TRAPS);
        let body = match answer {
            Some(kind) => self.call_then(kind, depth),
            None => self.nested_call(depth),
        };
        let handler = Expr::Obj(vec![Member {
            key: trap.into(),
            getter: false,
            value: Expr::Fn(Box::new(body)),
        }]);
        let proxy = Expr::Prop(Box::new(Expr::This), "Proxy".into());
        Expr::New(Box::new(proxy), vec![target, handler])
    }

    /// `(class extends CALLEE { m() { return CALL; } })` for a construction
    /// of `callee` returning `instance`: the subclass overrides one method
    /// the instance inherits, so builtins that call it (`exec`, `then`,
    /// `next`…) run user code.
    pub(super) fn subclass(&mut self, callee: Expr, instance: Option<Ty>, depth: u32) -> Expr {
        let index = self.index;
        let methods: Vec<Key> = instance
            .and_then(|i| index.protos[i as usize].first())
            .map(|&p| {
                index.props[p as usize]
                    .iter()
                    .filter(|(k, v)| {
                        &**k != "constructor" && !index.sigs_of[*v as usize].is_empty()
                    })
                    .map(|(k, _)| k.clone())
                    .collect()
            })
            .unwrap_or_default();
        let overrides = if methods.is_empty() || depth == 0 {
            Vec::new()
        } else {
            let key = self.rng.pick(&methods).clone();
            vec![(key, self.nested_call(depth))]
        };
        Expr::Class(Box::new(callee), overrides)
    }
}
