//! The graph compiled for walking: integer vertex ids, adjacency lists in
//! both directions, and the distances that keep random walks within their
//! depth bounds.
//!
//! Two distances are precomputed by fixpoint iteration:
//! * `cost[t]`: the least expression depth that builds a value of type `t`
//!   walking backward (0 for `this` and literals, +1 per property read or
//!   call, +0 for a subtype found along a reverse `proto` edge);
//! * `reach[t]`: the fewest forward steps from a value of type `t` to a call.
//!
//! With them the walker only takes edges from which it can still finish, so a
//! walk never has to backtrack.

use std::collections::HashMap;

use crate::gen::literal::LitKind;
use crate::program::{Expr, Key};
use crate::{Edge, Error, Graph, PRIMITIVES};

/// A type vertex number.
pub(crate) type Ty = u32;

/// "Cannot be done": larger than any depth bound.
pub(crate) const INF: u32 = u32::MAX / 4;

/// A way to obtain a value of some type walking backward.
#[derive(Debug, Clone)]
pub(crate) enum Producer {
    /// Read property `key` of a value of type `owner`.
    Property { owner: Ty, key: Key },
    /// Call or construct with signature `sig`.
    Return { sig: u32 },
}

/// A signature vertex with its edges resolved.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sig {
    pub arity: u32,
    /// Types of `this` (parameter 0); empty when unknown.
    pub this: Vec<Ty>,
    /// Candidate types of arguments 1..=arity; an empty list means unknown.
    pub params: Vec<Vec<Ty>>,
    pub returns: Vec<Ty>,
    /// `(callee type, true for construct)` for each call/construct edge.
    pub callers: Vec<(Ty, bool)>,
}

/// The compiled graph.
#[derive(Debug, Clone)]
pub(crate) struct Index {
    pub names: Vec<String>,
    ids: HashMap<String, Ty>,
    pub root: Ty,
    /// The `undefined` type (primitives come first, in [`PRIMITIVES`] order).
    pub undefined: Ty,
    pub literal: Vec<Option<LitKind>>,
    pub props: Vec<Vec<(Key, Ty)>>,
    pub protos: Vec<Vec<Ty>>,
    /// Reverse proto edges: types whose values can stand for this type.
    pub subs: Vec<Vec<Ty>>,
    /// `(sig, construct?)` for each call and construct edge of a type.
    pub sigs_of: Vec<Vec<(u32, bool)>>,
    pub producers: Vec<Vec<Producer>>,
    pub sigs: Vec<Sig>,
    pub cost: Vec<u32>,
    pub sig_cost: Vec<u32>,
    /// Forward steps to a call from a value of the type.
    pub reach: Vec<u32>,
    /// Forward steps to a call after a `proto` step (the type's own
    /// signatures are not the value's).
    pub reach_proto: Vec<u32>,
    /// Types with a finite cost, for arguments of unknown type.
    pub buildable: Vec<Ty>,
    /// Types whose values have a callable `Symbol.iterator` (own or
    /// inherited), for `for … of` loops.
    pub iterables: Vec<Ty>,
}

impl Index {
    /// Compiles a validated graph.
    pub fn new(graph: &Graph) -> Result<Index, Error> {
        graph.validate()?;
        let mut names: Vec<String> = PRIMITIVES.iter().map(|s| s.to_string()).collect();
        names.extend(
            graph
                .types
                .keys()
                .filter(|id| !PRIMITIVES.contains(&id.as_str()))
                .cloned(),
        );
        let ids: HashMap<String, Ty> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i as Ty))
            .collect();
        let sig_ids: HashMap<&str, u32> = graph
            .signatures
            .keys()
            .enumerate()
            .map(|(i, s)| (s.as_str(), i as u32))
            .collect();
        let n = names.len();
        let mut index = Index {
            root: ids[&graph.root],
            undefined: 0,
            literal: names.iter().map(|n| LitKind::for_type(n)).collect(),
            props: vec![Vec::new(); n],
            protos: vec![Vec::new(); n],
            subs: vec![Vec::new(); n],
            sigs_of: vec![Vec::new(); n],
            producers: vec![Vec::new(); n],
            sigs: graph
                .signatures
                .values()
                .map(|s| Sig {
                    arity: s.arity,
                    params: vec![Vec::new(); s.arity as usize],
                    ..Sig::default()
                })
                .collect(),
            cost: Vec::new(),
            sig_cost: Vec::new(),
            reach: Vec::new(),
            reach_proto: Vec::new(),
            buildable: Vec::new(),
            iterables: Vec::new(),
            names,
            ids,
        };
        let mut keys: HashMap<&str, Key> = HashMap::new();
        for edge in &graph.edges {
            let ty = |id: &str| index.ids[id];
            let sig = |id: &str| sig_ids[id];
            match edge {
                Edge::Property { from, to, name } => {
                    let key = keys
                        .entry(name)
                        .or_insert_with(|| name.as_str().into())
                        .clone();
                    let (owner, value) = (ty(from), ty(to));
                    index.props[owner as usize].push((key.clone(), value));
                    index.producers[value as usize].push(Producer::Property { owner, key });
                }
                Edge::Proto { from, to } => {
                    let (from, to) = (ty(from), ty(to));
                    index.protos[from as usize].push(to);
                    index.subs[to as usize].push(from);
                }
                Edge::Call { from, to } | Edge::Construct { from, to } => {
                    let construct = matches!(edge, Edge::Construct { .. });
                    let (callee, s) = (ty(from), sig(to));
                    index.sigs_of[callee as usize].push((s, construct));
                    index.sigs[s as usize].callers.push((callee, construct));
                }
                Edge::Parameter { from, to, index: i } => {
                    let (t, s) = (ty(from), &mut index.sigs[sig(to) as usize]);
                    match *i as usize {
                        0 => s.this.push(t),
                        i if i <= s.params.len() => s.params[i - 1].push(t),
                        _ => {}
                    }
                }
                Edge::Return { from, to } => {
                    let (s, t) = (sig(from), ty(to));
                    index.sigs[s as usize].returns.push(t);
                    index.producers[t as usize].push(Producer::Return { sig: s });
                }
            }
        }
        index.compute_costs();
        index.compute_reach();
        // Instances (`{P}`) and primitives: a builtin prototype inherits
        // `Symbol.iterator` but is no iterable itself.
        index.iterables = (0..index.names.len() as Ty)
            .filter(|&t| index.is_primitive(t) || index.names[t as usize].starts_with('{'))
            .filter(|&t| {
                index
                    .property(t, "@@iterator")
                    .is_some_and(|f| !index.sigs_of[f as usize].is_empty())
            })
            .collect();
        Ok(index)
    }

    /// The number of a type id, if the graph has it.
    pub fn ty(&self, id: &str) -> Option<Ty> {
        self.ids.get(id).copied()
    }

    /// Whether a value of type `value` can stand where `wanted` is expected:
    /// `wanted` is `value` or on its prototype chain.
    pub fn compatible(&self, value: Ty, wanted: Ty) -> bool {
        let mut stack = vec![value];
        let mut steps = 0;
        while let Some(t) = stack.pop() {
            if t == wanted {
                return true;
            }
            steps += 1;
            if steps > 64 {
                return false;
            }
            stack.extend_from_slice(&self.protos[t as usize]);
        }
        false
    }

    /// The type of property `key` of a `ty` value, looked up along the
    /// prototype chain as JavaScript does.
    pub fn property(&self, ty: Ty, key: &str) -> Option<Ty> {
        let mut t = ty;
        for _ in 0..64 {
            if let Some((_, v)) = self.props[t as usize].iter().find(|(k, _)| &**k == key) {
                return Some(*v);
            }
            t = *self.protos[t as usize].first()?;
        }
        None
    }

    /// Whether `t` is a primitive type (they come first, in [`PRIMITIVES`] order).
    pub fn is_primitive(&self, t: Ty) -> bool {
        (t as usize) < PRIMITIVES.len()
    }

    /// The properties of a `ty` value, own and inherited (the nearest first).
    pub fn props_along(&self, ty: Ty) -> Vec<(Key, Ty)> {
        let mut found = Vec::new();
        let mut t = ty;
        for _ in 0..64 {
            found.extend(self.props[t as usize].iter().cloned());
            match self.protos[t as usize].first() {
                Some(&p) => t = p,
                None => break,
            }
        }
        found
    }

    /// A property name under which a `ty` value (or its prototypes) holds a
    /// value of type `callee`, to call it as a method.
    pub fn method_name(&self, ty: Ty, callee: Ty) -> Option<Key> {
        let mut t = ty;
        for _ in 0..64 {
            if let Some((k, _)) = self.props[t as usize].iter().find(|(_, v)| *v == callee) {
                return Some(k.clone());
            }
            t = *self.protos[t as usize].first()?;
        }
        None
    }

    /// The type of an expression, as far as the graph tells; `vars[i]` is the
    /// type of `vi`.
    pub fn type_of(&self, expr: &Expr, vars: &[Option<Ty>]) -> Option<Ty> {
        match expr {
            Expr::This => Some(self.root),
            Expr::Var(v) => vars.get(*v as usize).copied().flatten(),
            Expr::Lit(lit) => self.ty(LitKind::of(lit).type_id()),
            Expr::Fn(_) => self.ty(LitKind::Function.type_id()),
            Expr::Obj(_) => self.ty(LitKind::Object.type_id()),
            Expr::Class(base, _) => self.type_of(base, vars),
            Expr::Seq(_, then) => self.type_of(then, vars),
            Expr::Prop(base, key) => self.property(self.type_of(base, vars)?, key),
            Expr::Call(callee, args) | Expr::New(callee, args) => {
                let construct = matches!(expr, Expr::New(..));
                let f = self.type_of(callee, vars)?;
                let mut sigs = self.sigs_of[f as usize]
                    .iter()
                    .filter(|(_, c)| *c == construct)
                    .map(|(s, _)| &self.sigs[*s as usize]);
                let fits = |s: &&Sig| s.arity as usize == args.len() && !s.returns.is_empty();
                let sig = sigs
                    .clone()
                    .find(fits)
                    .or_else(|| sigs.find(|s| !s.returns.is_empty()))?;
                sig.returns.first().copied()
            }
        }
    }

    fn compute_costs(&mut self) {
        let n = self.names.len();
        self.cost = (0..n)
            .map(|t| {
                if t as Ty == self.root || self.literal[t].is_some() {
                    0
                } else {
                    INF
                }
            })
            .collect();
        self.sig_cost = vec![INF; self.sigs.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for (s, sig) in self.sigs.iter().enumerate() {
                let min_of = |tys: &[Ty]| {
                    if tys.is_empty() {
                        0
                    } else {
                        tys.iter()
                            .map(|&t| self.cost[t as usize])
                            .min()
                            .unwrap_or(INF)
                    }
                };
                let callee = sig
                    .callers
                    .iter()
                    .map(|&(f, _)| self.cost[f as usize])
                    .min()
                    .unwrap_or(INF);
                let args = sig.params.iter().map(|p| min_of(p)).max().unwrap_or(0);
                let c = (1 + callee.max(args).max(min_of(&sig.this))).min(INF);
                if c < self.sig_cost[s] {
                    self.sig_cost[s] = c;
                    changed = true;
                }
            }
            for t in 0..n {
                let mut best = self.cost[t];
                for &sub in &self.subs[t] {
                    best = best.min(self.cost[sub as usize]);
                }
                for p in &self.producers[t] {
                    best = best.min(match p {
                        Producer::Property { owner, .. } => self.cost[*owner as usize] + 1,
                        Producer::Return { sig } => self.sig_cost[*sig as usize],
                    });
                }
                if best < self.cost[t] {
                    self.cost[t] = best;
                    changed = true;
                }
            }
        }
        self.buildable = (0..n as Ty)
            .filter(|&t| self.cost[t as usize] < INF)
            .collect();
    }

    fn compute_reach(&mut self) {
        let n = self.names.len();
        self.reach = (0..n)
            .map(|t| if self.sigs_of[t].is_empty() { INF } else { 0 })
            .collect();
        self.reach_proto = vec![INF; n];
        let mut changed = true;
        while changed {
            changed = false;
            for t in 0..n {
                let via_props = self.props[t]
                    .iter()
                    .map(|(_, v)| self.reach[*v as usize] + 1)
                    .min()
                    .unwrap_or(INF);
                let via_proto = self.protos[t]
                    .iter()
                    .map(|&p| self.reach_proto[p as usize] + 1)
                    .min()
                    .unwrap_or(INF);
                let inherited = via_props.min(via_proto).min(INF);
                if inherited < self.reach_proto[t] {
                    self.reach_proto[t] = inherited;
                    changed = true;
                }
                if inherited < self.reach[t] {
                    self.reach[t] = inherited;
                    changed = true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::figure1;

    #[test]
    fn costs_and_reach_on_figure1() {
        let index = Index::new(&figure1()).unwrap();
        let t = |id| index.ty(id).unwrap();
        // `this.Function` will do: Function's prototype is Function.prototype.
        assert_eq!(index.cost[t("Function.prototype") as usize], 1);
        // Object.prototype: a `{}`-less graph has no literal, but `this` is an instance.
        assert_eq!(index.cost[t("Object.prototype") as usize], 0);
        assert_eq!(index.reach[t("globalThis") as usize], 1);
        assert_eq!(index.reach[t("Object") as usize], 0);
        assert!(index.compatible(t("Function"), t("Object.prototype")));
        assert!(!index.compatible(t("Object.prototype"), t("Function")));
        assert_eq!(
            index.property(t("Object"), "getPrototypeOf"),
            Some(t("Function.prototype"))
        );
        assert_eq!(
            index
                .method_name(t("Object"), t("Function.prototype"))
                .as_deref(),
            Some("getPrototypeOf")
        );
    }

    #[test]
    fn types_expressions() {
        let index = Index::new(&figure1()).unwrap();
        let e = crate::program::parse_expr("this.Object.getPrototypeOf(this)").unwrap();
        assert_eq!(index.type_of(&e, &[]), index.ty("Object.prototype"));
        let e = crate::program::parse_expr("new (v0)(1)").unwrap();
        assert_eq!(
            index.type_of(&e, &[index.ty("Object")]),
            index.ty("Object.prototype")
        );
        assert_eq!(index.type_of(&e, &[]), None);
    }
}
