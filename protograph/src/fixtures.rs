//! Test fixtures shared by the unit tests of several modules.

use crate::{Edge, Graph, SignatureVertex, TypeVertex};

/// The hand-made graph of the thesis' Figure 1, cut down: enough for the
/// examples `this.Object.getPrototypeOf(this.Function.prototype)` and
/// `new (this.Object)(this)`.
pub(crate) fn figure1() -> Graph {
    let mut g = Graph {
        root: "globalThis".into(),
        ..Graph::default()
    };
    for t in [
        "globalThis",
        "Object",
        "Object.prototype",
        "Function",
        "Function.prototype",
    ] {
        g.types.insert(t.into(), TypeVertex::default());
    }
    g.signatures.insert(
        "call(*; Object.prototype) -> Object.prototype".into(),
        SignatureVertex { arity: 1 },
    );
    g.signatures.insert(
        "new(Object.prototype) -> Object.prototype".into(),
        SignatureVertex { arity: 1 },
    );
    let prop = |from: &str, to: &str, name: &str| Edge::Property {
        from: from.into(),
        to: to.into(),
        name: name.into(),
    };
    let proto = |from: &str, to: &str| Edge::Proto {
        from: from.into(),
        to: to.into(),
    };
    g.edges.extend([
        prop("globalThis", "Object", "Object"),
        prop("globalThis", "Function", "Function"),
        prop("Object", "Object.prototype", "prototype"),
        prop("Function", "Function.prototype", "prototype"),
        prop("Object", "Function.prototype", "getPrototypeOf"),
        proto("globalThis", "Object.prototype"),
        proto("Object", "Function.prototype"),
        proto("Function", "Function.prototype"),
        proto("Function.prototype", "Object.prototype"),
        Edge::Call {
            from: "Function.prototype".into(),
            to: "call(*; Object.prototype) -> Object.prototype".into(),
        },
        Edge::Construct {
            from: "Object".into(),
            to: "new(Object.prototype) -> Object.prototype".into(),
        },
        Edge::Parameter {
            from: "Object.prototype".into(),
            to: "call(*; Object.prototype) -> Object.prototype".into(),
            index: 1,
        },
        Edge::Parameter {
            from: "Object.prototype".into(),
            to: "new(Object.prototype) -> Object.prototype".into(),
            index: 1,
        },
        Edge::Return {
            from: "call(*; Object.prototype) -> Object.prototype".into(),
            to: "Object.prototype".into(),
        },
        Edge::Return {
            from: "new(Object.prototype) -> Object.prototype".into(),
            to: "Object.prototype".into(),
        },
    ]);
    g.validate().unwrap();
    g
}

/// The committed graph learned in Boa (`corpus/js/boa-learned.json`): real
/// builtins, iterables and callbacks, which `figure1` lacks.
pub(crate) fn learned() -> Graph {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/js/boa-learned.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Graph::from_json(&text).unwrap()
}
