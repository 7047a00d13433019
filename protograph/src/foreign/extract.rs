//! Snippets from a test file's JavaScript, parsed with tree-sitter: every
//! call and construction the generated form can say, the test's own
//! variables turned into holes.

use std::collections::HashSet;

use tree_sitter::{Node, Parser};

use super::{Snippet, HOLE_BASE};
use crate::program::{parse_expr, Expr};

/// Longest snippet kept, in bytes of generated form.
const MAX_LEN: usize = 240;
/// Most holes in one snippet.
const MAX_HOLES: usize = 4;

/// The calls and constructions of `source` (the test file `file`) as
/// snippets, each once. `is_global` tells the names of the engine's global
/// object (the graph's root properties); the names the file declares
/// (`var`, `let`, `const`, parameters) are holes; any other name (a harness
/// function: `assert`, `Test262Error`) makes the expression unusable.
pub fn extract(source: &str, file: &str, is_global: &dyn Fn(&str) -> bool) -> Vec<Snippet> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_javascript::LANGUAGE.into())
        .expect("the bundled grammar loads");
    let Some(tree) = parser.parse(source, None) else {
        return Vec::new();
    };
    let mut calls = Vec::new();
    collect_calls(tree.root_node(), &mut calls);
    let mut declared = HashSet::new();
    collect_declared(tree.root_node(), source, &mut declared);
    let mut seen = HashSet::new();
    calls
        .into_iter()
        .filter_map(|node| {
            let mut writer = Writer {
                source,
                is_global,
                declared: &declared,
                holes: Vec::new(),
            };
            let text = writer.expr(node)?;
            let expr = parse_expr(&text)?;
            let fits = text.len() <= MAX_LEN && writer.holes.len() <= MAX_HOLES;
            (fits && seen.insert(text.clone())).then(|| Snippet {
                holes: keys_of_holes(&expr, writer.holes.len()),
                expr: text,
                file: file.to_string(),
            })
        })
        .collect()
}

fn collect_calls<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    if matches!(node.kind(), "call_expression" | "new_expression") {
        out.push(node);
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        collect_calls(child, out);
    }
}

/// The names `node` declares: variables, parameters, caught exceptions.
fn collect_declared<'s>(node: Node, source: &'s str, out: &mut HashSet<&'s str>) {
    let mut cursor = node.walk();
    let names: Vec<Node> = match node.kind() {
        "variable_declarator" => node.child_by_field_name("name").into_iter().collect(),
        "catch_clause" => node.child_by_field_name("parameter").into_iter().collect(),
        "formal_parameters" => node.named_children(&mut cursor).collect(),
        _ => Vec::new(),
    };
    for n in names.into_iter().filter(|n| n.kind() == "identifier") {
        out.insert(&source[n.byte_range()]);
    }
    for child in node.named_children(&mut cursor) {
        collect_declared(child, source, out);
    }
}

/// Writes a tree-sitter expression in generated form.
struct Writer<'s> {
    source: &'s str,
    is_global: &'s dyn Fn(&str) -> bool,
    declared: &'s HashSet<&'s str>,
    /// The test's variables met so far; hole `i` is `v{HOLE_BASE + i}`.
    holes: Vec<&'s str>,
}

impl<'s> Writer<'s> {
    fn text(&self, node: Node) -> &'s str {
        &self.source[node.byte_range()]
    }

    fn expr(&mut self, node: Node) -> Option<String> {
        let field = |name| node.child_by_field_name(name);
        Some(match node.kind() {
            "identifier" => self.name(self.text(node))?,
            "this" => "this".into(),
            "number" | "true" | "false" | "null" | "undefined" => self.text(node).into(),
            "string" => serde_json::to_string(&unquote(self.text(node))?).ok()?,
            "parenthesized_expression" => self.expr(node.named_child(0)?)?,
            "unary_expression" if self.text(field("operator")?) == "-" => {
                let arg = field("argument")?;
                (arg.kind() == "number").then(|| format!("-{}", self.text(arg)))?
            }
            "member_expression" => {
                let property = field("property")?;
                let object = self.expr(field("object")?)?;
                (property.kind() == "property_identifier")
                    .then(|| format!("{object}.{}", self.text(property)))?
            }
            "subscript_expression" => {
                let index = field("index")?;
                let object = self.expr(field("object")?)?;
                let key = (index.kind() == "string").then(|| unquote(self.text(index)))??;
                format!("{object}[{}]", serde_json::to_string(&key).ok()?)
            }
            "call_expression" => {
                let callee = self.expr(field("function")?)?;
                format!("{callee}({})", self.list(field("arguments")?)?)
            }
            "new_expression" => {
                let callee = self.expr(field("constructor")?)?;
                let args = match field("arguments") {
                    Some(a) => self.list(a)?,
                    None => String::new(),
                };
                format!("new ({callee})({args})")
            }
            "array" => format!("[{}]", self.list(node)?),
            "object" if node.named_child_count() == 0 => "({})".into(),
            _ => return None,
        })
    }

    /// Arguments or array elements, comma-separated.
    fn list(&mut self, node: Node) -> Option<String> {
        let mut cursor = node.walk();
        let items: Vec<Node> = node
            .named_children(&mut cursor)
            .filter(|n| n.kind() != "comment")
            .collect();
        let written = items
            .into_iter()
            .map(|n| self.expr(n))
            .collect::<Option<Vec<_>>>()?;
        Some(written.join(", "))
    }

    /// A global name as a read of the global object, anything else a hole.
    fn name(&mut self, name: &'s str) -> Option<String> {
        if matches!(name, "undefined" | "NaN" | "Infinity") {
            return Some(name.into());
        }
        if (self.is_global)(name) {
            return Some(format!("this.{name}"));
        }
        if !self.declared.contains(name) {
            return None;
        }
        let hole = match self.holes.iter().position(|h| *h == name) {
            Some(i) => i,
            None => {
                self.holes.push(name);
                self.holes.len() - 1
            }
        };
        Some(format!("v{}", HOLE_BASE as usize + hole))
    }
}

/// The value of a quoted string token without escapes; `None` for any
/// escape (a conservative subset, enough for test262's literals).
fn unquote(token: &str) -> Option<String> {
    let body = token
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .or_else(|| token.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')))?;
    (!body.contains('\\')).then(|| body.to_string())
}

/// The keys read on each hole of `expr` (holes numbered from [`HOLE_BASE`]),
/// `holes` of them.
fn keys_of_holes(expr: &Expr, holes: usize) -> Vec<Vec<String>> {
    let mut keys = vec![Vec::new(); holes];
    note_keys(expr, &mut keys);
    keys
}

fn note_keys(expr: &Expr, keys: &mut [Vec<String>]) {
    if let Expr::Prop(base, key) = expr {
        if let Expr::Var(v) = **base {
            if let Some(list) = v
                .checked_sub(HOLE_BASE)
                .and_then(|h| keys.get_mut(h as usize))
            {
                if !list.iter().any(|k| **k == **key) {
                    list.push(key.to_string());
                }
            }
        }
    }
    for child in expr.children() {
        note_keys(child, keys);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEST: &str = r#"
// A test in test262's style (written here, not copied).
var m = new Map();
m.set(1, 'one');
assert.sameValue(m.get(1), "one", "get after set");
var a = [1, 2, 3];
assert.sameValue(Array.prototype.at.call(a, -1), 3);
verifyProperty(Map.prototype, "size", {enumerable: false});
m.forEach(function (v) { throw new Test262Error(); });
"#;

    fn globals(name: &str) -> bool {
        matches!(name, "Map" | "Array" | "Object")
    }

    fn extracted() -> Vec<Snippet> {
        extract(TEST, "t.js", &globals)
    }

    #[test]
    fn takes_the_calls_with_test_variables_as_typed_holes() {
        let s = extracted();
        let exprs: Vec<&str> = s.iter().map(|s| s.expr.as_str()).collect();
        assert!(exprs.contains(&"new (this.Map)()"), "{exprs:?}");
        assert!(exprs.contains(&"v1048576.set(1, \"one\")"), "{exprs:?}");
        assert!(exprs.contains(&"v1048576.get(1)"), "{exprs:?}");
        assert!(
            exprs.contains(&"this.Array.prototype.at.call(v1048576, -1)"),
            "{exprs:?}"
        );
        let set = s.iter().find(|s| s.expr.contains(".set(")).unwrap();
        assert_eq!(set.holes, vec![vec!["set".to_string()]]);
        let at = s.iter().find(|s| s.expr.contains(".at.call")).unwrap();
        assert_eq!(at.holes, vec![Vec::<String>::new()]);
    }

    #[test]
    fn leaves_the_harness_and_what_the_form_cannot_say() {
        for s in extracted() {
            assert!(!s.expr.contains("assert"), "{}", s.expr);
            assert!(!s.expr.contains("verifyProperty"), "{}", s.expr);
            assert!(!s.expr.contains("Test262Error"), "{}", s.expr);
            // `m.forEach(function (v) { … })`: a function body is not in the form.
            assert!(!s.expr.contains("forEach"), "{}", s.expr);
            assert_eq!(
                parse_expr(&s.expr).map(|e| e.to_string()),
                Some(s.expr.clone())
            );
        }
    }

    #[test]
    fn broken_source_gives_what_parses() {
        assert!(extract("m.set(1, ", "t.js", &globals).len() <= 1);
        assert!(extract("", "t.js", &globals).is_empty());
    }

    #[test]
    fn holes_know_the_keys_read_on_them() {
        let e = parse_expr("v1048576.get(v1048577.size, v1048576.has(1))").unwrap();
        assert_eq!(
            keys_of_holes(&e, 3),
            vec![
                vec!["get".to_string(), "has".into()],
                vec!["size".into()],
                vec![]
            ]
        );
    }
}
