//! The languages HDD knows: Rust and JavaScript through tree-sitter, and
//! plain text (brackets and lines) for everything else. The top of the
//! analysis layer: it puts a grammar's analysis (`grammar/`) together with
//! the tree-sitter language, and knows no tree (only the shape of a
//! [`Wrapper`] that hoisting may wrap a node in).
//!
//! A language's [`Spec`] is built once per process: its tree-sitter
//! language, Φ for every node kind (from the grammar's `grammar.json`, see
//! `grammar/phi.rs`), and the kinds canonicalization renames or shrinks.
//!
//! The `grammar.json` files are copies of the ones shipped in the
//! tree-sitter-rust 0.24.2 and tree-sitter-javascript 0.25.0 crates
//! (`src/grammar.json`), kept in `grammar/grammars/`: a build script would
//! have to find the dependency's sources itself (the crates export no
//! path), and a copy pins Φ to the grammar version the tests check. A test compares the
//! copies' rule names with the linked parsers' node kinds, so a version
//! bump that forgets the copy fails.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::OnceLock;

use super::grammar::{child_phis, optional_groups, rule_phis, Grammar, Group};
use super::tree::Wrapper;

/// A language of inputs.
///
/// ```
/// use cargo_reduce::syntax::Lang;
///
/// assert_eq!("rs".parse::<Lang>().unwrap(), Lang::Rust);
/// assert_eq!(Lang::detect(Some("app.js".as_ref()), b"let x;"), Lang::JavaScript);
/// assert_eq!(Lang::from_extension("notes.txt".as_ref()), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    /// Rust, with tree-sitter-rust.
    Rust,
    /// JavaScript, with tree-sitter-javascript.
    JavaScript,
    /// Anything else: a tree of brackets and lines.
    Text,
}

/// What HDD needs to know about a grammar-based language.
///
/// ```
/// use cargo_reduce::syntax::Lang;
///
/// let rust = Lang::Rust.spec().unwrap();
/// assert!(rust.interchangeable("integer_literal", "string_literal"));
/// assert!(Lang::Text.spec().is_none()); // plain text has no grammar
/// ```
pub struct Spec {
    /// The tree-sitter parser's language.
    pub language: tree_sitter::Language,
    /// The grammar, as read from `grammar.json`.
    pub grammar: Grammar,
    /// Φ by tree-sitter kind id (`None`: a node keeps its own text).
    pub phis: Vec<Option<Box<str>>>,
    /// Φ of a child kind in a parent kind, by `(parent kind id, child
    /// kind id)`, where it is shorter than the child's own: "" for list
    /// elements and optional parts, the slot's Φ elsewhere
    /// (`grammar/slots.rs`).
    pub child_phis: HashMap<(u16, u16), Box<str>>,
    /// `(parent kind id, token kind id)`: the token separates list
    /// elements in the parent (`,`).
    pub separators: HashSet<(u16, u16)>,
    /// What canonicalization renames, shrinks and simplifies.
    pub canon: Canon,
    /// For each node kind in a supertype (`_expression`, `_type`…), the
    /// indices of its supertypes in `grammar.supertypes`: a node may be
    /// hoisted into the place of another of a shared supertype.
    pub supertypes_of: HashMap<String, Vec<usize>>,
    /// The optional sequences of each parent kind's rule led by a token
    /// (`-> T`), which trees show as nodes (`grammar/groups.rs`).
    pub groups: HashMap<String, Vec<Group>>,
}

/// The node kinds and fields canonicalization (`passes/core/simplify.rs`) and
/// the moves need.
pub struct Canon {
    /// Token kinds that are names, for renaming.
    pub identifiers: &'static [&'static str],
    /// Literal kinds and their plainest form.
    pub literals: &'static [(&'static str, &'static str)],
    /// The expression supertype and the plainest expression (`0`).
    pub plain_expression: (&'static str, &'static str),
    /// The type supertype and the plainest type (Rust's `()`), if the
    /// language spells types.
    pub plain_type: Option<(&'static str, &'static str)>,
    /// Node kinds that declare a type by the node in their `name` field
    /// (Rust's `struct b;`), which any type may become.
    pub type_declarations: &'static [&'static str],
    /// Fields whose node binds a name (`let PATTERN`, `function NAME`):
    /// never replaced by the plain expression, though some are
    /// expression kinds.
    pub binding_fields: &'static [&'static str],
    /// Node kinds whose identifier is a name and never an expression
    /// (Rust's lifetime `'a`, label `'a:`): the plain forms stay out of
    /// them, as `'0` only lexes with an error.
    pub name_holders: &'static [&'static str],
    /// The token kind of a variable's name where it is bound or used.
    pub variable: &'static str,
    /// Token kinds that may name a variable (the variable kind, object
    /// shorthands): every one is a use when inlining counts uses.
    pub references: &'static [&'static str],
    /// Nodes that bind a name to a value, for inlining.
    pub bindings: &'static [Binding],
    /// Suffixes of typed number literals (`0usize`): a type the program
    /// spells may stand as a one-token expression of that type.
    pub literal_suffixes: &'static [&'static str],
    /// Node kinds of a property path (`o.p`) that a binding may name
    /// instead of a variable: `o.p = v` inlines into the one other `o.p`.
    pub paths: &'static [&'static str],
    /// For hoisting: where a descendant may take a node's place wrapped
    /// (`passes/core/hoist.rs`).
    pub wrappings: &'static [Wrapping],
}

/// A node of supertype `place` may be replaced by a descendant of
/// supertype `hoisted` inside `wrapper`: Rust's `b<X>` → `[X]` (a type in
/// a type's place), JavaScript's `if (e);` → `e;` (an expression in a
/// statement's).
pub struct Wrapping {
    /// The supertype of the node replaced.
    pub place: &'static str,
    /// The supertype of the descendant that replaces it.
    pub hoisted: &'static str,
    /// What the descendant is wrapped in.
    pub wrapper: Wrapper,
}

/// A node that binds a variable to a value (`let x = v;`, `x = v`).
pub struct Binding {
    /// Its kind.
    pub kind: &'static str,
    /// The field of the name.
    pub name: &'static str,
    /// The field of the value.
    pub value: &'static str,
    /// The statement kinds it sits in and goes with (`var x = v;` is a
    /// `variable_declaration` around a `variable_declarator`); empty when
    /// the node is the statement itself.
    pub parents: &'static [&'static str],
}

const RUST_CANON: Canon = Canon {
    identifiers: &[
        "identifier",
        "type_identifier",
        "field_identifier",
        "shorthand_field_identifier",
    ],
    literals: &[
        ("integer_literal", "0"),
        ("float_literal", "0.0"),
        ("string_literal", "\"\""),
    ],
    plain_expression: ("_expression", "0"),
    plain_type: Some(("_type", "()")),
    type_declarations: &["struct_item", "enum_item", "union_item", "type_item"],
    binding_fields: &["pattern", "name"],
    name_holders: &["lifetime", "label"],
    variable: "identifier",
    references: &["identifier", "shorthand_field_identifier"],
    bindings: &[Binding {
        kind: "let_declaration",
        name: "pattern",
        value: "value",
        parents: &[],
    }],
    literal_suffixes: &[
        "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128",
        "f32", "f64",
    ],
    paths: &[],
    wrappings: &[Wrapping {
        place: "_type",
        hoisted: "_type",
        wrapper: Wrapper {
            kind: "array_type",
            open: "[",
            close: "]",
        },
    }],
};

const JS_CANON: Canon = Canon {
    identifiers: &[
        "identifier",
        "property_identifier",
        "shorthand_property_identifier",
        "shorthand_property_identifier_pattern",
        "statement_identifier",
    ],
    literals: &[
        ("number", "0"),
        ("string", "\"\""),
        ("template_string", "``"),
    ],
    plain_expression: ("expression", "0"),
    plain_type: None,
    type_declarations: &[],
    binding_fields: &["name", "pattern", "parameter", "label"],
    name_holders: &[],
    variable: "identifier",
    references: &[
        "identifier",
        "shorthand_property_identifier",
        "shorthand_property_identifier_pattern",
    ],
    bindings: &[
        Binding {
            kind: "variable_declarator",
            name: "name",
            value: "value",
            parents: &["lexical_declaration", "variable_declaration"],
        },
        Binding {
            kind: "assignment_expression",
            name: "left",
            value: "right",
            parents: &["expression_statement"],
        },
    ],
    literal_suffixes: &[],
    paths: &["member_expression"],
    wrappings: &[Wrapping {
        place: "statement",
        hoisted: "expression",
        wrapper: Wrapper {
            kind: "expression_statement",
            open: "",
            close: ";",
        },
    }],
};

const RUST_GRAMMAR: &str = include_str!("grammar/grammars/rust.json");
const JS_GRAMMAR: &str = include_str!("grammar/grammars/javascript.json");

impl Lang {
    /// Every language, for `--lang` help.
    pub const ALL: [Lang; 3] = [Lang::Rust, Lang::JavaScript, Lang::Text];

    /// The name `--lang` takes.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::JavaScript => "js",
            Lang::Text => "text",
        }
    }

    /// The grammar language `path`'s extension names, if any.
    pub fn from_extension(path: &Path) -> Option<Lang> {
        match path.extension()?.to_str()? {
            "rs" => Some(Lang::Rust),
            "js" | "mjs" | "cjs" | "jsx" => Some(Lang::JavaScript),
            _ => None,
        }
    }

    /// Guesses the language of `bytes`: by `path`'s extension, then by
    /// which grammar parses the content without errors.
    pub fn detect(path: Option<&Path>, bytes: &[u8]) -> Lang {
        if let Some(lang) = path.and_then(Lang::from_extension) {
            return lang;
        }
        if !has_code_punctuation(bytes) {
            return Lang::Text;
        }
        let errors = |lang: Lang| lang.spec().map_or(usize::MAX, |s| error_bytes(s, bytes));
        let (rust, js) = (errors(Lang::Rust), errors(Lang::JavaScript));
        match (rust, js) {
            (0, 0) if looks_like_rust(bytes) => Lang::Rust,
            (0, 0) => Lang::JavaScript,
            (0, _) => Lang::Rust,
            (_, 0) => Lang::JavaScript,
            _ => Lang::Text,
        }
    }

    /// The grammar-based spec, `None` for [`Lang::Text`].
    pub fn spec(self) -> Option<&'static Spec> {
        static RUST: OnceLock<Spec> = OnceLock::new();
        static JS: OnceLock<Spec> = OnceLock::new();
        match self {
            Lang::Rust => Some(RUST.get_or_init(|| {
                Spec::new(
                    tree_sitter_rust::LANGUAGE.into(),
                    RUST_GRAMMAR,
                    &[("float_literal", "0.0")],
                    RUST_CANON,
                )
            })),
            Lang::JavaScript => Some(JS.get_or_init(|| {
                Spec::new(
                    tree_sitter_javascript::LANGUAGE.into(),
                    JS_GRAMMAR,
                    &[("regex_pattern", "a")],
                    JS_CANON,
                )
            })),
            Lang::Text => None,
        }
    }
}

impl Spec {
    fn new(
        language: tree_sitter::Language,
        grammar_json: &str,
        externals: &[(&str, &str)],
        canon: Canon,
    ) -> Spec {
        let grammar = Grammar::from_json(grammar_json).expect("bundled grammar.json is valid");
        let rule_phis = rule_phis(&grammar, externals);
        let phis: Vec<Option<Box<str>>> = (0..language.node_kind_count() as u16)
            .map(|id| {
                let name = language.node_kind_for_id(id)?;
                if !language.node_kind_is_named(id) {
                    return Some(name.into());
                }
                rule_phis.named(name).map(Into::into)
            })
            .collect();
        let children = child_phis(&grammar, &rule_phis, canon.plain_expression);
        let child_phis = children
            .phis
            .into_iter()
            .filter_map(|((parent, (child, named)), phi)| {
                let parent = language.id_for_node_kind(&parent, true);
                let child = language.id_for_node_kind(&child, named);
                let own = phis.get(usize::from(child))?.as_deref();
                let shorter = own.is_none_or(|own| phi.len() < own.len());
                (parent != 0 && child != 0 && shorter).then(|| ((parent, child), phi.into()))
            })
            .collect();
        let separators = children
            .separators
            .into_iter()
            .map(|(parent, sep)| {
                (
                    language.id_for_node_kind(&parent, true),
                    language.id_for_node_kind(&sep, false),
                )
            })
            .filter(|&(p, s)| p != 0 && s != 0)
            .collect();
        let supertypes_of = supertypes_of(&grammar);
        let groups = optional_groups(&grammar);
        Spec {
            language,
            grammar,
            phis,
            child_phis,
            separators,
            canon,
            supertypes_of,
            groups,
        }
    }

    /// Whether node kind `kind` is one of the supertype `supertype`'s.
    pub fn is_a(&self, kind: &str, supertype: &str) -> bool {
        self.supertypes_of
            .get(kind)
            .is_some_and(|of| of.iter().any(|&i| self.grammar.supertypes[i] == supertype))
    }

    /// Whether a node of kind `b` may stand where one of kind `a` stood:
    /// the same kind, or kinds of a common supertype.
    pub fn interchangeable(&self, a: &str, b: &str) -> bool {
        a == b
            || self.supertypes_of.get(a).is_some_and(|sa| {
                self.supertypes_of
                    .get(b)
                    .is_some_and(|sb| sa.iter().any(|s| sb.contains(s)))
            })
    }
}

fn supertypes_of(grammar: &Grammar) -> HashMap<String, Vec<usize>> {
    let mut of: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, supertype) in grammar.supertypes.iter().enumerate() {
        for member in grammar.supertype_members(supertype) {
            of.entry(member).or_default().push(i);
        }
    }
    of
}

/// Bytes inside ERROR nodes, plus one per missing node.
fn error_bytes(spec: &Spec, bytes: &[u8]) -> usize {
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&spec.language).is_err() {
        return usize::MAX;
    }
    let Some(tree) = parser.parse(bytes, None) else {
        return usize::MAX;
    };
    let mut total = 0;
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            total += n.byte_range().len().max(1);
        } else if n.has_error() {
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor));
        }
    }
    total
}

/// Words alone (`hello\nneedle`) parse as JavaScript expressions; a
/// program has brackets, braces, a `;` or an `=` somewhere.
fn has_code_punctuation(bytes: &[u8]) -> bool {
    bytes.iter().any(|b| b"(){};=".contains(b))
}

fn looks_like_rust(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    ["fn ", "::", "let mut ", "impl ", "pub "]
        .iter()
        .any(|k| text.contains(k))
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `--lang`: a language, or detection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LangChoice {
    /// By extension, then by content.
    Auto,
    /// This language.
    Is(Lang),
}

impl FromStr for LangChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(LangChoice::Auto),
            _ => s
                .parse()
                .map(LangChoice::Is)
                .map_err(|e: UnknownLang| format!("{e} or auto")),
        }
    }
}

/// A `--lang` value that names no language.
///
/// ```
/// use cargo_reduce::syntax::Lang;
///
/// let error = "cobol".parse::<Lang>().unwrap_err();
/// assert_eq!(error.to_string(), "unknown language `cobol` (expected rust, js or text)");
/// ```
#[derive(Debug, thiserror::Error)]
#[error("unknown language `{0}` (expected rust, js or text)")]
pub struct UnknownLang(String);

impl FromStr for Lang {
    type Err = UnknownLang;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "rust" | "rs" => Ok(Lang::Rust),
            "js" | "javascript" => Ok(Lang::JavaScript),
            "text" => Ok(Lang::Text),
            _ => Err(UnknownLang(s.to_string())),
        }
    }
}
