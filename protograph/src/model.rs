//! The Prototype Graph: type and signature vertices joined by six kinds of
//! edges, its JSON form, and merging.
//!
//! The model follows Hodován's thesis. *Type* vertices stand for categories of
//! JavaScript values (a builtin object, the instances of a prototype, a
//! primitive type); *signature* vertices describe how a callable can be
//! called. `property` and `proto` edges join types; `call` and `construct`
//! edges lead from a callable type to its signatures; `parameter` edges lead
//! from an argument's type to a signature, and `return` edges from a signature
//! to its result type.
//!
//! Vertex ids are strings chosen by the JavaScript side (see `js/discover.js`):
//! object types are expressions relative to the global object
//! (`Object.prototype`), `{P}` is the type of objects whose prototype is `P`,
//! primitive types are their `typeof` names (plus `null`), and signature ids
//! spell out their types (`call(*; *, *) -> *`, `new(string) -> {Date.prototype}`)
//! so that equal signatures found in different runs merge into one vertex.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::Error;

/// The primitive type ids, which every graph may use without declaring them.
pub const PRIMITIVES: [&str; 7] = [
    "undefined",
    "null",
    "boolean",
    "number",
    "string",
    "symbol",
    "bigint",
];

/// A type vertex: a category of JavaScript values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeVertex {
    /// Names of own accessor properties. Discovery never runs getters, so the
    /// type their value has is unknown and no `property` edge is recorded.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub accessors: BTreeSet<String>,
}

/// A signature vertex: one way of calling or constructing a callable type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignatureVertex {
    /// Number of arguments, not counting `this`. Arguments without a
    /// `parameter` edge have an unknown type.
    pub arity: u32,
}

/// An edge of the graph. Endpoints are vertex ids.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Edge {
    /// Values of `from` have a property `name` whose value is of type `to`.
    /// Symbol-keyed properties are named `@@iterator` etc. after the
    /// well-known symbol `Symbol.iterator`.
    Property {
        /// Owner type.
        from: String,
        /// Value type.
        to: String,
        /// Property name.
        name: String,
    },
    /// The prototype of values of `from` is (a value of) `to`, so `from`
    /// values can stand wherever `to` values are expected.
    Proto {
        /// The type whose prototype is described.
        from: String,
        /// The prototype's type.
        to: String,
    },
    /// Type `from` is callable with signature `to`.
    Call {
        /// Callable type.
        from: String,
        /// Signature id.
        to: String,
    },
    /// Type `from` is constructible (`new`) with signature `to`.
    Construct {
        /// Constructor type.
        from: String,
        /// Signature id.
        to: String,
    },
    /// Parameter `index` of signature `to` has type `from`; index 0 is `this`
    /// and 1.. are the arguments.
    Parameter {
        /// Argument type.
        from: String,
        /// Signature id.
        to: String,
        /// 0 for `this`, `i` for the i-th argument.
        index: u32,
    },
    /// Signature `from` returns values of type `to`.
    Return {
        /// Signature id.
        from: String,
        /// Result type.
        to: String,
    },
}

impl Edge {
    /// The id of the vertex the edge leaves.
    pub fn from(&self) -> &str {
        match self {
            Edge::Property { from, .. }
            | Edge::Proto { from, .. }
            | Edge::Call { from, .. }
            | Edge::Construct { from, .. }
            | Edge::Parameter { from, .. }
            | Edge::Return { from, .. } => from,
        }
    }

    /// The id of the vertex the edge enters.
    pub fn to(&self) -> &str {
        match self {
            Edge::Property { to, .. }
            | Edge::Proto { to, .. }
            | Edge::Call { to, .. }
            | Edge::Construct { to, .. }
            | Edge::Parameter { to, .. }
            | Edge::Return { to, .. } => to,
        }
    }

    /// Whether `from` is a signature (else it is a type).
    fn source_is_signature(&self) -> bool {
        matches!(self, Edge::Return { .. })
    }

    /// Whether `to` is a signature (else it is a type).
    fn target_is_signature(&self) -> bool {
        matches!(
            self,
            Edge::Call { .. } | Edge::Construct { .. } | Edge::Parameter { .. }
        )
    }
}

/// A Prototype Graph. Ordered collections keep the JSON form stable, so a
/// graph written twice is byte-identical and diffs of committed graphs stay
/// readable.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Graph {
    /// Id of the global object's type, written `this` in generated code.
    pub root: String,
    /// Type vertices by id.
    pub types: BTreeMap<String, TypeVertex>,
    /// Signature vertices by id.
    pub signatures: BTreeMap<String, SignatureVertex>,
    /// All edges, without duplicates.
    pub edges: BTreeSet<Edge>,
}

/// Vertex and edge counts, as reported by the CLI.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Object types named by discovery (not primitives, not `{P}` instances).
    pub objects: usize,
    /// All type vertices.
    pub types: usize,
    /// Signature vertices.
    pub signatures: usize,
    /// `property` edges plus accessor properties.
    pub properties: usize,
    /// Types with at least one `call` edge.
    pub callables: usize,
    /// Types with at least one `construct` edge.
    pub constructibles: usize,
    /// All edges.
    pub edges: usize,
}

impl Graph {
    /// Parses the JSON form and checks that every edge joins declared vertices.
    pub fn from_json(text: &str) -> Result<Graph, Error> {
        let graph: Graph = serde_json::from_str(text).map_err(Error::Json)?;
        graph.validate()?;
        Ok(graph)
    }

    /// The JSON form, one vertex or edge per line: compact, yet committed
    /// graphs still diff line by line.
    pub fn to_json(&self) -> String {
        fn item<T: Serialize>(value: &T) -> String {
            serde_json::to_string(value).expect("graph parts always serialize")
        }
        fn section<'a>(
            out: &mut String,
            name: &str,
            open: char,
            close: char,
            lines: impl Iterator<Item = String> + 'a,
        ) {
            out.push_str(&format!("  {}: {open}\n", item(&name)));
            let lines: Vec<String> = lines.map(|l| format!("    {l}")).collect();
            out.push_str(&lines.join(",\n"));
            out.push_str(&format!("\n  {close}"));
        }
        let mut out = format!("{{\n  \"root\": {},\n", item(&self.root));
        section(
            &mut out,
            "types",
            '{',
            '}',
            self.types
                .iter()
                .map(|(id, t)| format!("{}: {}", item(id), item(t))),
        );
        out.push_str(",\n");
        section(
            &mut out,
            "signatures",
            '{',
            '}',
            self.signatures
                .iter()
                .map(|(id, s)| format!("{}: {}", item(id), item(s))),
        );
        out.push_str(",\n");
        section(&mut out, "edges", '[', ']', self.edges.iter().map(item));
        out.push_str("\n}\n");
        out
    }

    /// Checks that the root and every edge endpoint is a declared vertex of
    /// the right kind (primitive types need no declaration).
    pub fn validate(&self) -> Result<(), Error> {
        if !self.has_type(&self.root) {
            return Err(Error::Invalid(format!(
                "root type `{}` is not a vertex",
                self.root
            )));
        }
        for edge in &self.edges {
            for (id, is_sig) in [
                (edge.from(), edge.source_is_signature()),
                (edge.to(), edge.target_is_signature()),
            ] {
                let known = if is_sig {
                    self.signatures.contains_key(id)
                } else {
                    self.has_type(id)
                };
                if !known {
                    let kind = if is_sig { "signature" } else { "type" };
                    return Err(Error::Invalid(format!(
                        "edge {edge:?} names unknown {kind} `{id}`"
                    )));
                }
            }
        }
        Ok(())
    }

    /// Whether `id` is a declared or primitive type.
    pub fn has_type(&self, id: &str) -> bool {
        self.types.contains_key(id) || PRIMITIVES.contains(&id)
    }

    /// Adds everything in `other` to `self`: the union of vertices and edges,
    /// with accessor sets united. Merging is idempotent, commutative and
    /// associative (on graphs with the same root).
    pub fn merge(&mut self, other: &Graph) -> Result<(), Error> {
        if self.root.is_empty() {
            self.root.clone_from(&other.root);
        } else if !other.root.is_empty() && other.root != self.root {
            return Err(Error::Invalid(format!(
                "cannot merge graphs with different roots `{}` and `{}`",
                self.root, other.root
            )));
        }
        for (id, t) in &other.types {
            let mine = self.types.entry(id.clone()).or_default();
            mine.accessors.extend(t.accessors.iter().cloned());
        }
        for (id, s) in &other.signatures {
            let mine = self
                .signatures
                .entry(id.clone())
                .or_insert_with(|| s.clone());
            mine.arity = mine.arity.max(s.arity);
        }
        self.edges.extend(other.edges.iter().cloned());
        Ok(())
    }

    /// Counts vertices and edges.
    pub fn stats(&self) -> Stats {
        let mut callables = BTreeSet::new();
        let mut constructibles = BTreeSet::new();
        let mut properties = 0;
        for edge in &self.edges {
            match edge {
                Edge::Call { from, .. } => {
                    callables.insert(from);
                }
                Edge::Construct { from, .. } => {
                    constructibles.insert(from);
                }
                Edge::Property { .. } => properties += 1,
                _ => {}
            }
        }
        let accessors: usize = self.types.values().map(|t| t.accessors.len()).sum();
        let objects = self
            .types
            .keys()
            .filter(|id| !id.starts_with('{') && !PRIMITIVES.contains(&id.as_str()))
            .count();
        Stats {
            objects,
            types: self.types.len(),
            signatures: self.signatures.len(),
            properties: properties + accessors,
            callables: callables.len(),
            constructibles: constructibles.len(),
            edges: self.edges.len(),
        }
    }
}

impl std::fmt::Display for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} objects, {} types, {} properties, {} callables ({} constructible), {} signatures, {} edges",
            self.objects, self.types, self.properties, self.callables, self.constructibles, self.signatures, self.edges
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::figure1;
    use proptest::prelude::*;

    #[test]
    fn json_round_trip() {
        let g = figure1();
        let text = g.to_json();
        assert!(
            text.contains(r#"{"kind":"parameter","from":"Object.prototype""#),
            "{text}"
        );
        assert!(text.lines().count() > g.edges.len(), "one edge per line");
        assert_eq!(Graph::from_json(&text).unwrap(), g);
    }

    #[test]
    fn rejects_dangling_edges() {
        let mut g = figure1();
        g.edges.insert(Edge::Call {
            from: "Object".into(),
            to: "nope".into(),
        });
        let err = Graph::from_json(&g.to_json()).unwrap_err();
        assert!(
            err.to_string().contains("unknown signature `nope`"),
            "{err}"
        );
    }

    #[test]
    fn stats_count_kinds() {
        let s = figure1().stats();
        assert_eq!(
            (s.objects, s.properties, s.callables, s.constructibles),
            (5, 5, 1, 1)
        );
    }

    /// Random sub-graphs of Figure 1, to check the algebra of `merge`.
    fn subgraph() -> impl Strategy<Value = Graph> {
        let full = figure1();
        let edges: Vec<Edge> = full.edges.iter().cloned().collect();
        proptest::sample::subsequence(edges.clone(), 0..=edges.len()).prop_map(move |picked| {
            let mut g = Graph {
                root: full.root.clone(),
                ..Graph::default()
            };
            g.types.insert(full.root.clone(), TypeVertex::default());
            for e in picked {
                for id in [e.from(), e.to()] {
                    if let Some(s) = full.signatures.get(id) {
                        g.signatures.insert(id.into(), s.clone());
                    } else {
                        g.types.insert(id.into(), TypeVertex::default());
                    }
                }
                g.edges.insert(e);
            }
            g
        })
    }

    proptest! {
        #[test]
        fn merge_is_idempotent_and_commutative(a in subgraph(), b in subgraph()) {
            let mut aa = a.clone();
            aa.merge(&a).unwrap();
            prop_assert_eq!(&aa, &a);
            let mut ab = a.clone();
            ab.merge(&b).unwrap();
            let mut ba = b.clone();
            ba.merge(&a).unwrap();
            prop_assert_eq!(&ab, &ba);
            ab.validate().unwrap();
            let mut abb = ab.clone();
            abb.merge(&b).unwrap();
            prop_assert_eq!(abb, ab);
        }
    }
}
