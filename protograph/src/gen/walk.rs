//! The thesis' random walk on the Prototype Graph.
//!
//! A statement is found by walking *forward* from the global object (or an
//! earlier variable) along `property`, `proto`, `call`/`construct` and
//! `return` edges until a signature is taken; its arguments (and `this`, when
//! learned) are then built by walking *backward* from each parameter type
//! along reverse `proto` edges (a subtype will do), `property` edges (read it
//! from an owner) and `return` edges (call something that returns it), down
//! to `this`, a variable or a literal.

use super::literal::{LitKind, PRIMITIVE_KINDS};
use super::Config;
use crate::index::{Index, Producer, Ty};
use crate::program::{Expr, Lit};
use crate::rng::Rng;

/// One walk's state: the graph, the bounds, the randomness and the variables
/// in scope (`vars[i]` is the type of `vi`, if known).
pub(crate) struct Walk<'a> {
    pub index: &'a Index,
    pub config: &'a Config,
    pub rng: &'a mut Rng,
    pub vars: &'a [Option<Ty>],
}

/// A choice while walking forward.
enum Step {
    Property(usize),
    Proto(Ty),
    Sig(u32, bool),
}

impl Walk<'_> {
    /// A call or construction found by a forward walk, and its result type.
    pub fn statement(&mut self) -> (Expr, Option<Ty>) {
        let index = self.index;
        let (mut expr, mut ty) = self.start();
        let mut look = ty;
        let mut own = true;
        let mut budget = self.config.max_forward;
        loop {
            let steps = self.forward_steps(ty, look, own, budget);
            if steps.is_empty() {
                break;
            }
            match steps[self.rng.below(steps.len())] {
                Step::Property(i) => {
                    let (key, value) = index.props[look as usize][i].clone();
                    expr = Expr::Prop(Box::new(expr), key);
                    (ty, look, own) = (value, value, true);
                    budget -= 1;
                }
                Step::Proto(p) => {
                    (look, own) = (p, false);
                    budget -= 1;
                }
                Step::Sig(sig, construct) => {
                    expr = self.call(sig, construct, expr, ty, self.config.max_depth);
                    match index.sigs[sig as usize].returns.first() {
                        Some(&ret) if budget > 0 && self.rng.chance(1, 4) => {
                            (ty, look, own) = (ret, ret, true);
                            budget -= 1;
                        }
                        ret => return (expr, ret.copied()),
                    }
                }
            }
        }
        // Out of budget after a chained call, or nothing callable in reach
        // (a tiny graph): the value read so far still makes a statement.
        (expr, Some(ty))
    }

    /// Where a forward walk begins: the global object, or sometimes a
    /// variable from which a call is reachable.
    fn start(&mut self) -> (Expr, Ty) {
        let index = self.index;
        if !self.vars.is_empty() && self.rng.chance(1, 3) {
            let v = self.rng.below(self.vars.len());
            if let Some(t) = self.vars[v] {
                if index.reach[t as usize] < self.config.max_forward {
                    return (Expr::Var(v as u32), t);
                }
            }
        }
        (Expr::This, index.root)
    }

    /// The forward edges from which a call is still reachable in `budget`
    /// more steps (a call itself takes none).
    fn forward_steps(&self, ty: Ty, look: Ty, own: bool, budget: u32) -> Vec<Step> {
        let index = self.index;
        let mut steps = Vec::new();
        if own {
            steps.extend(
                index.sigs_of[ty as usize]
                    .iter()
                    .map(|&(s, c)| Step::Sig(s, c)),
            );
        }
        for (i, (_, v)) in index.props[look as usize].iter().enumerate() {
            if index.reach[*v as usize] < budget {
                steps.push(Step::Property(i));
            }
        }
        for &p in &index.protos[look as usize] {
            if index.reach_proto[p as usize] < budget {
                steps.push(Step::Proto(p));
            }
        }
        steps
    }

    /// A call (or construction) of `callee`, of type `callee_ty`, with
    /// signature `sig` and arguments built backward within `depth`.
    fn call(&mut self, sig: u32, construct: bool, callee: Expr, callee_ty: Ty, depth: u32) -> Expr {
        let index = self.index;
        let s = &index.sigs[sig as usize];
        let arity = (s.arity as usize).min(self.config.max_args);
        let args: Vec<Expr> = (0..arity)
            .map(|i| self.value_of_any(&s.params[i], depth.saturating_sub(1)))
            .collect();
        if construct {
            let callee = if self.rng.chance(1, 6) {
                self.subclass(callee, s.returns.first().copied(), depth)
            } else {
                callee
            };
            return Expr::New(Box::new(callee), args);
        }
        let this_ty = match s.this.as_slice() {
            [] => return Expr::Call(Box::new(callee), args),
            types => *self.rng.pick(types),
        };
        // `this` learned as undefined: a plain function, any receiver will do.
        // Otherwise keep the method-call form when the receiver already fits,
        // else pick a receiver of the learned type.
        if this_ty == index.undefined {
            return Expr::Call(Box::new(callee), args);
        }
        if let Expr::Prop(base, _) = &callee {
            if index
                .type_of(base, self.vars)
                .is_some_and(|b| index.compatible(b, this_ty))
            {
                return Expr::Call(Box::new(callee), args);
            }
        }
        let receiver = self.value(this_ty, depth.saturating_sub(1));
        if let Some(name) = index.method_name(this_ty, callee_ty) {
            return Expr::Call(Box::new(Expr::Prop(Box::new(receiver), name)), args);
        }
        let mut with_this = vec![receiver];
        with_this.extend(args);
        Expr::Call(
            Box::new(Expr::Prop(Box::new(callee), "call".into())),
            with_this,
        )
    }

    /// An argument of one of `types`, or of any type when the list is empty.
    fn value_of_any(&mut self, types: &[Ty], depth: u32) -> Expr {
        if types.is_empty() {
            return self.any(depth);
        }
        let t = *self.rng.pick(types);
        self.argument(t, depth)
    }

    /// An argument of type `t`: sometimes user code that re-enters the
    /// builtins (see [`super::reentry`]), else a plain value.
    pub(super) fn argument(&mut self, t: Ty, depth: u32) -> Expr {
        match self.reentrant(t, depth) {
            Some(e) => e,
            None => self.value(t, depth),
        }
    }

    /// An argument of unknown type: mostly a primitive literal, sometimes a
    /// variable or a value of a random buildable type.
    pub fn any(&mut self, depth: u32) -> Expr {
        let index = self.index;
        match self.rng.below(8) {
            0 | 1 if !self.vars.is_empty() => Expr::Var(self.rng.below(self.vars.len()) as u32),
            2 if depth > 0 && !index.buildable.is_empty() => {
                let t = *self.rng.pick(&index.buildable);
                self.argument(t, depth)
            }
            _ => Expr::Lit(self.rng.pick(&PRIMITIVE_KINDS).random(self.rng)),
        }
    }

    /// A value of type `t`, built backward within `depth`; falls back to a
    /// primitive literal when the graph has no way to build one.
    pub fn value(&mut self, t: Ty, depth: u32) -> Expr {
        let index = self.index;
        if index.cost[t as usize] > depth {
            return Expr::Lit(self.rng.pick(&PRIMITIVE_KINDS).random(self.rng));
        }
        let mut options: Vec<Backward> = Vec::new();
        if let Some(kind) = index.literal[t as usize] {
            options.push(Backward::Literal(kind));
        }
        if t == index.root {
            options.push(Backward::This);
        }
        for (v, vt) in self.vars.iter().enumerate() {
            if vt.is_some_and(|vt| index.compatible(vt, t)) {
                options.push(Backward::Var(v as u32));
            }
        }
        for &sub in &index.subs[t as usize] {
            if index.cost[sub as usize] <= depth {
                options.push(Backward::Sub(sub));
            }
        }
        for (i, p) in index.producers[t as usize].iter().enumerate() {
            let cost = match p {
                Producer::Property { owner, .. } => index.cost[*owner as usize].saturating_add(1),
                Producer::Return { sig } => index.sig_cost[*sig as usize],
            };
            if cost <= depth {
                options.push(Backward::Produce(i));
            }
        }
        match options[self.rng.below(options.len())] {
            Backward::Literal(kind) => Expr::Lit(kind.random(self.rng)),
            Backward::This => Expr::This,
            Backward::Var(v) => Expr::Var(v),
            Backward::Sub(sub) => self.value(sub, depth),
            Backward::Produce(i) => match &index.producers[t as usize][i] {
                Producer::Property { owner, key } => {
                    Expr::Prop(Box::new(self.value(*owner, depth - 1)), key.clone())
                }
                Producer::Return { sig } => self.produce_by_call(*sig, depth),
            },
        }
    }

    /// A call of signature `sig` by one of its callers that can be built.
    fn produce_by_call(&mut self, sig: u32, depth: u32) -> Expr {
        let index = self.index;
        let callers: Vec<(Ty, bool)> = index.sigs[sig as usize]
            .callers
            .iter()
            .copied()
            .filter(|&(f, _)| index.cost[f as usize] < depth)
            .collect();
        let Some(&(f, construct)) = (!callers.is_empty()).then(|| self.rng.pick(&callers)) else {
            return Expr::Lit(Lit::Undefined);
        };
        let callee = self.value(f, depth - 1);
        self.call(sig, construct, callee, f, depth)
    }
}

/// A choice while walking backward.
#[derive(Clone, Copy)]
enum Backward {
    Literal(LitKind),
    This,
    Var(u32),
    Sub(Ty),
    Produce(usize),
}
