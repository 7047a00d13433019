//! Signatures learned while fuzzing: a call that ran without throwing and
//! whose result had a type the graph did not predict becomes a signature
//! vertex, in the same form `js/learn.js` writes (`call(THIS; ARGS) -> RET`,
//! `new(ARGS) -> RET`), to be merged into the graph.

use std::collections::HashSet;

use crate::index::{Index, Ty};
use crate::program::{Expr, Program, Stmt};
use crate::{Edge, Graph, SignatureVertex, PRIMITIVES};

use super::Observation;

/// New signatures collected before the generator is recompiled with them
/// (recompiling the graph costs as much as a few program runs).
const MERGE_EVERY: usize = 16;

/// The signatures seen and not merged yet.
#[derive(Debug, Default)]
pub(super) struct Pending {
    delta: Graph,
    /// Every signature id recorded so far, merged or not, so that a call the
    /// graph still types differently is not learned again and again.
    known: HashSet<String>,
}

impl Pending {
    /// Notes the signatures `program`'s calls showed; true when enough
    /// are pending to merge.
    pub fn note(
        &mut self,
        index: &Index,
        program: &Program,
        vars: &[Option<Ty>],
        seen: &[Observation],
    ) -> bool {
        for (stmt, o) in program.stmts.iter().zip(seen) {
            let (Stmt::Def { expr, .. }, false, Some(ret)) = (stmt, o.threw, &o.ty) else {
                continue;
            };
            let Some(ret) = index.ty(ret) else {
                continue;
            };
            if index.type_of(expr, vars) != Some(ret) {
                self.add(index, expr, vars, ret);
            }
        }
        self.delta.signatures.len() >= MERGE_EVERY
    }

    /// The pending signatures as a graph to merge; none are pending after.
    pub fn take(&mut self) -> Graph {
        std::mem::take(&mut self.delta)
    }

    /// Signatures noted and not merged yet.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.delta.signatures.len()
    }

    /// Adds the signature of the call `expr`, which returned a `ret`, when
    /// the callee and every argument have a known type.
    fn add(&mut self, index: &Index, expr: &Expr, vars: &[Option<Ty>], ret: Ty) {
        let name = |t: Ty| index.names[t as usize].clone();
        let (callee, args, this) = match expr {
            Expr::Call(callee, args) => {
                let this = match &**callee {
                    Expr::Prop(base, _) => index.type_of(base, vars),
                    _ => Some(index.undefined),
                };
                (callee, args, Some(this))
            }
            Expr::New(callee, args) => (callee, args, None),
            _ => return,
        };
        let Some(f) = index.type_of(callee, vars) else {
            return;
        };
        let Some(types) = args
            .iter()
            .map(|a| index.type_of(a, vars).map(name))
            .collect::<Option<Vec<String>>>()
        else {
            return;
        };
        let list = types.join(", ");
        let id = match this {
            Some(Some(t)) if types.is_empty() => format!("call({}) -> {}", name(t), name(ret)),
            Some(Some(t)) => format!("call({}; {list}) -> {}", name(t), name(ret)),
            Some(None) => return,
            None => format!("new({list}) -> {}", name(ret)),
        };
        self.record(&id, name(f), this.flatten().map(name), types, name(ret));
    }

    fn record(
        &mut self,
        id: &str,
        f: String,
        this: Option<String>,
        args: Vec<String>,
        ret: String,
    ) {
        if !self.known.insert(format!("{f}\u{0}{id}")) {
            return;
        }
        let arity = args.len() as u32;
        let d = &mut self.delta;
        d.signatures.insert(id.into(), SignatureVertex { arity });
        for t in [&f, &ret].into_iter().chain(&args).chain(&this) {
            if !PRIMITIVES.contains(&t.as_str()) {
                d.types.entry(t.clone()).or_default();
            }
        }
        let to = || id.to_string();
        let call = match this {
            Some(this) => {
                d.edges.insert(Edge::Parameter {
                    from: this,
                    to: to(),
                    index: 0,
                });
                Edge::Call { from: f, to: to() }
            }
            None => Edge::Construct { from: f, to: to() },
        };
        d.edges.insert(call);
        for (i, from) in args.into_iter().enumerate() {
            d.edges.insert(Edge::Parameter {
                from,
                to: to(),
                index: i as u32 + 1,
            });
        }
        d.edges.insert(Edge::Return {
            from: to(),
            to: ret,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::figure1;
    use crate::program::parse_program;

    #[test]
    fn a_result_of_an_unpredicted_type_is_a_new_signature() {
        let index = Index::new(&figure1()).unwrap();
        let program = parse_program(
            "var v0 = this.Object.getPrototypeOf(this);\n\
             var v1 = this.Object.getPrototypeOf(1);\n",
        );
        let seen = |ty: &str| Observation {
            threw: false,
            ty: Some(ty.into()),
        };
        let observed = [seen("Object.prototype"), seen("null")];
        let mut pending = Pending::default();
        pending.note(&index, &program, &[None, None], &observed);
        // v0's type was predicted; v1's (null) was not.
        assert_eq!(pending.len(), 1);
        let delta = pending.take();
        let id = "call(Object; number) -> null";
        assert!(delta.signatures.contains_key(id), "{delta:?}");
        assert!(delta.edges.contains(&Edge::Call {
            from: "Function.prototype".into(),
            to: id.into()
        }));
        let mut graph = figure1();
        graph.merge(&delta).unwrap();
        graph.validate().unwrap();
        // Seen once, learned once.
        pending.note(&index, &program, &[None, None], &observed);
        assert_eq!(pending.len(), 0);
    }
}
