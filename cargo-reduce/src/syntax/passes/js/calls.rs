//! Calls inlined (JavaScript, in the `inline` part of a strategy): a
//! call gives way to the body of the function it calls.
//!
//! A failure deep inside a library is reached through calls: a UMD
//! wrapper calls its factory, the factory builds an object, a method of
//! the object calls the helper that fails. No deletion, hoist or inlining
//! of a variable removes a call and keeps what the callee does, so these
//! layers stay, however small the rest becomes. Here a call's statement
//! becomes the callee's body, with each parameter replaced by its
//! argument and the final `return E` by the statement around the call
//! with `E` in the call's place (`x = f()` → `{ …; x = E }`):
//! - a function written at the call (`(function (a) { … }(b))`, an
//!   immediately invoked function);
//! - a function defined once and called once, by its name
//!   (`function f`, `f = function`, `o.f = function` called as `p.f()`),
//!   whose definition goes with the call.
//!
//! Only what can move without copying qualifies: each parameter used at
//! most once in the body, one `return`, the body's last statement. What
//! the move changes (`this`, `arguments`, the scope of `var`s) the oracle
//! judges, as it judges every other edit.

use std::collections::HashMap;

use crate::engine::OracleError;
use crate::syntax::passes::edits::{apply_until_none, TreeEdit};
use crate::syntax::passes::nav::{field_child, list_elements, parents, within, Parents};
use crate::syntax::passes::render_oracle::Tester;
use crate::syntax::tokens::fuses;
use crate::syntax::tree::{Body, Change, NodeId, Tree};

/// Node kinds that start a new function: a `return` or a parameter
/// inside one belongs to it, not to the function around it.
const FUNCTIONS: &[&str] = &[
    "function_expression",
    "function_declaration",
    "arrow_function",
    "generator_function",
    "generator_function_declaration",
    "method_definition",
];

/// Expressions that read as a declaration (or a block) at the start of a
/// statement.
const DECLARATION_LIKE: &[&str] = &[
    "function_expression",
    "generator_function",
    "class",
    "object",
];

/// Statement lists: a call's statement is the ancestor that sits in one.
const STATEMENT_LISTS: &[&str] = &["program", "statement_block"];

/// Inlines calls until none can go. Returns whether the text got shorter.
pub(crate) fn calls_pass(tree: &mut Tree, tester: &Tester) -> Result<bool, OracleError> {
    apply_until_none(tree, tester, inlined_calls)
}

/// Every call inlining the tree offers now.
fn inlined_calls(tree: &mut Tree) -> Vec<TreeEdit> {
    let parents = parents(tree);
    let mut spelled: TokensByText = HashMap::new();
    for token in tree.tokens() {
        let text = tree.leaf_text(token).unwrap_or_default().to_vec();
        spelled.entry(text).or_default().push(token);
    }
    let mut edits = Vec::new();
    for call in tree.preorder() {
        if tree.node(call).kind != "call_expression" {
            continue;
        }
        let Some(callee) = field_child(tree, call, "function") else {
            continue;
        };
        let (function, definition) = match written_function(tree, callee) {
            Some(function) => (function, None),
            None => match sole_definition(tree, &parents, &spelled, callee) {
                Some((function, definition)) => (function, Some(definition)),
                None => continue,
            },
        };
        let site = Site {
            call,
            function,
            definition,
        };
        if let Some(edit) = inline(tree, &parents, &site) {
            edits.push(edit);
        }
    }
    edits
}

/// A call and the function it calls; `definition`: the statement that
/// defines the function by name, which goes with the call.
struct Site {
    call: NodeId,
    function: NodeId,
    definition: Option<NodeId>,
}

/// The edit that puts `site`'s function body in the place of the call's
/// statement (or, for an arrow function's expression body, of the call).
fn inline(tree: &mut Tree, parents: &Parents, site: &Site) -> Option<TreeEdit> {
    let statement = statement_of(tree, parents, site.call);
    if let Some(definition) = site.definition {
        let overlap =
            within(parents, statement, definition) || within(parents, definition, statement);
        if overlap {
            return None;
        }
    }
    let body = field_child(tree, site.function, "body")?;
    let mut edit = arguments_bound(tree, site)?;
    if let Some(definition) = site.definition {
        edit.push((definition, Change::Text(tree.empty())));
    }
    if tree.node(body).kind != "statement_block" {
        // `(a) => a.b`: the expression takes the call's place.
        edit.push((site.call, Change::Node(body)));
        return Some(edit);
    }
    let (before, after) = around(tree, statement, site.call);
    match sole_final_return(tree, body) {
        Ok(Some(ret)) => returned_in_place(tree, ret, (&before, &after), &mut edit)?,
        // No value to carry: only a call that is the whole statement
        // (`(function () { … })();`, `!function () { … }()`) may go.
        Ok(None) if bare(&before) && bare(&after) => {}
        _ => return None,
    }
    edit.push((statement, Change::Node(body)));
    Some(edit)
}

/// `x = f();` → `{ …; x = E; }`: the `return` keyword of `ret` reads as
/// what stood before the call, its end as what followed it (the `;`, or
/// without one the value's last token). A value that would begin the
/// statement and read as a declaration there (`function …`, `class …`,
/// `{`) is put in parentheses: `f()(0)` → `(function (w) { … })(0)`.
/// `None` where the value's last token is already edited.
fn returned_in_place(
    tree: &mut Tree,
    ret: NodeId,
    (before, after): (&[u8], &[u8]),
    edit: &mut TreeEdit,
) -> Option<()> {
    let keyword = *tree.children(ret).first()?;
    let value = tree
        .children(ret)
        .iter()
        .copied()
        .find(|&c| !matches!(tree.node(c).kind, "return" | ";"))?;
    let parenthesized = before.is_empty() && DECLARATION_LIKE.contains(&tree.node(value).kind);
    let (open, close): (&[u8], &[u8]) = match parenthesized {
        true => (b"(", b")"),
        false => (b"", b""),
    };
    let tail = [close, after.strip_suffix(b";").unwrap_or(after)].concat();
    if !tail.is_empty() {
        let semicolon =
            tree.children(ret).iter().copied().find(|&c| {
                tree.node(c).kind == ";" && matches!(tree.node(c).body, Body::Token { .. })
            });
        let (end, text) = match semicolon {
            Some(semicolon) => (semicolon, [tail.as_slice(), b";"].concat()),
            None => {
                let last = *tree.tokens_under(value).last()?;
                let edited = edit.iter().any(|(id, _)| *id == last);
                (!edited).then_some(())?;
                (last, [tree.leaf_text(last)?, tail.as_slice()].concat())
            }
        };
        let text = tree.intern(&String::from_utf8_lossy(&text));
        edit.push((end, Change::Text(text)));
    }
    let text = tree.intern(&String::from_utf8_lossy(&[before, open].concat()));
    edit.push((keyword, Change::Text(text)));
    Some(())
}

/// Each parameter's one use in the body replaced by its argument; `None`
/// if a parameter is not a plain name, is used twice, or has no argument.
fn arguments_bound(tree: &Tree, site: &Site) -> Option<TreeEdit> {
    let params = parameters(tree, site.function)?;
    let arguments = field_child(tree, site.call, "arguments")?;
    let arguments = list_elements(tree, arguments);
    if arguments
        .iter()
        .any(|&a| tree.node(a).kind == "spread_element")
    {
        return None;
    }
    let body = field_child(tree, site.function, "body")?;
    let mut edit = TreeEdit::new();
    for (i, param) in params.into_iter().enumerate() {
        let name = tree.leaf_text(param)?;
        let uses: Vec<NodeId> = tree
            .tokens_under(body)
            .into_iter()
            .filter(|&t| tree.node(t).kind == "identifier" && tree.leaf_text(t) == Some(name))
            .collect();
        match (&uses[..], arguments.get(i)) {
            ([], _) => {}
            (&[only], Some(&argument)) => edit.push((only, Change::Node(argument))),
            _ => return None,
        }
    }
    Some(edit)
}

/// The parameters of `function`, if every one is a plain name.
fn parameters(tree: &Tree, function: NodeId) -> Option<Vec<NodeId>> {
    if let Some(single) = field_child(tree, function, "parameter") {
        return Some(vec![single]);
    }
    let names = list_elements(tree, field_child(tree, function, "parameters")?);
    let plain = |&n: &NodeId| tree.node(n).kind == "identifier" && tree.leaf_text(n).is_some();
    names.iter().all(plain).then_some(names)
}

/// `callee` is a function written in place, maybe in parentheses.
fn written_function(tree: &Tree, callee: NodeId) -> Option<NodeId> {
    match tree.node(callee).kind {
        "function_expression" | "arrow_function" => Some(callee),
        "parenthesized_expression" => match list_elements(tree, callee)[..] {
            [only] => written_function(tree, only),
            _ => None,
        },
        _ => None,
    }
}

/// The tokens of the program by their text.
type TokensByText = HashMap<Vec<u8>, Vec<NodeId>>;

/// The function `callee` names (`f`, `p.f`) and the statement that
/// defines it, when the name is spelled exactly twice in the program: at
/// that definition and at this call.
fn sole_definition(
    tree: &Tree,
    parents: &Parents,
    spelled: &TokensByText,
    callee: NodeId,
) -> Option<(NodeId, NodeId)> {
    let name_token = match tree.node(callee).kind {
        "identifier" => callee,
        "member_expression" => field_child(tree, callee, "property")?,
        _ => return None,
    };
    let name = tree.leaf_text(name_token)?;
    let [first, second] = spelled.get(name)?[..] else {
        return None;
    };
    let other = match (first == name_token, second == name_token) {
        (true, false) => second,
        (false, true) => first,
        _ => return None,
    };
    let parent = *parents.get(&other)?;
    let (function, definition) = match tree.node(parent).kind {
        // `function f() {}`
        "function_declaration" => (parent, parent),
        // `var f = function () {}` (its only declarator)
        "variable_declarator" => {
            let declaration = *parents.get(&parent)?;
            let declarators = tree
                .children(declaration)
                .iter()
                .filter(|&&c| tree.node(c).kind == "variable_declarator")
                .count();
            (declarators == 1).then_some(())?;
            (field_child(tree, parent, "value")?, declaration)
        }
        // `f = function () {}` or `o.p.f = function () {}`, as a statement
        "assignment_expression" | "member_expression" => {
            let assignment = match tree.node(parent).kind {
                "member_expression" => *parents.get(&parent)?,
                _ => parent,
            };
            (tree.node(assignment).kind == "assignment_expression").then_some(())?;
            let target = field_child(tree, assignment, "left")?;
            (target == other || target == parent).then_some(())?;
            let statement = *parents.get(&assignment)?;
            (tree.node(statement).kind == "expression_statement").then_some(())?;
            (field_child(tree, assignment, "right")?, statement)
        }
        _ => return None,
    };
    matches!(
        tree.node(function).kind,
        "function_expression" | "function_declaration" | "arrow_function"
    )
    .then_some((function, definition))
}

/// The ancestor of `id` that is an element of a statement list, or the
/// root: a program of one statement is squeezed into it.
fn statement_of(tree: &Tree, parents: &Parents, mut id: NodeId) -> NodeId {
    while let Some(&parent) = parents.get(&id) {
        if STATEMENT_LISTS.contains(&tree.node(parent).kind) {
            break;
        }
        id = parent;
    }
    id
}

/// The `return` statement of `block`, if it has exactly one (outside
/// nested functions) and it is the block's last statement and carries a
/// value: `Ok(Some)`. `Ok(None)` when it has none; `Err` otherwise.
fn sole_final_return(tree: &Tree, block: NodeId) -> Result<Option<NodeId>, ()> {
    let mut returns = Vec::new();
    let mut stack: Vec<NodeId> = tree.children(block).to_vec();
    while let Some(id) = stack.pop() {
        match tree.node(id).kind {
            "return_statement" => returns.push(id),
            kind if FUNCTIONS.contains(&kind) => {}
            _ => stack.extend(tree.children(id)),
        }
    }
    let [ret] = returns[..] else {
        return if returns.is_empty() {
            Ok(None)
        } else {
            Err(())
        };
    };
    let last = tree
        .children(block)
        .iter()
        .rev()
        .copied()
        .find(|&c| tree.node(c).kind != "}");
    let carries_value = tree
        .children(ret)
        .iter()
        .any(|&c| !matches!(tree.node(c).kind, "return" | ";"));
    match last == Some(ret) && carries_value {
        true => Ok(Some(ret)),
        false => Err(()),
    }
}

/// The text of `statement`'s tokens before and after `call`'s, spaced
/// only where two tokens would fuse.
fn around(tree: &Tree, statement: NodeId, call: NodeId) -> (Vec<u8>, Vec<u8>) {
    let (mut before, mut after) = (Vec::new(), Vec::new());
    let mut seen_call = false;
    let mut stack = vec![statement];
    while let Some(id) = stack.pop() {
        if id == call {
            seen_call = true;
            continue;
        }
        match tree.leaf_text(id) {
            Some(text) => append(if seen_call { &mut after } else { &mut before }, text),
            None => stack.extend(tree.children(id).iter().rev()),
        }
    }
    (before, after)
}

fn append(out: &mut Vec<u8>, text: &[u8]) {
    if let (Some(&last), Some(&first)) = (out.last(), text.first()) {
        if fuses(last, first) {
            out.push(b' ');
        }
    }
    out.extend_from_slice(text);
}

/// Text around a call that only wraps it (`(`, `)`, `;`, `!`): the call
/// is the whole statement.
fn bare(text: &[u8]) -> bool {
    text.iter().all(|c| b"();!".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::passes::testing::with_tester;
    use crate::syntax::tree::render_tree;
    use crate::syntax::{build_tree, squeeze, Lang, Strategy};

    /// The text after the pass over `input` with `oracle`, whitespace
    /// removed.
    fn inlined(input: &str, oracle: &(dyn Fn(&[u8]) -> bool + Sync)) -> String {
        let mut tree = build_tree(
            input.as_bytes(),
            Lang::JavaScript,
            &Strategy::Best.options(),
        );
        squeeze(&mut tree);
        with_tester(input.as_bytes(), oracle, |tester| {
            calls_pass(&mut tree, tester).unwrap()
        });
        let out = String::from_utf8(render_tree(&tree)).unwrap();
        out.split_whitespace().collect()
    }

    fn keeps(needle: &'static str) -> impl Fn(&[u8]) -> bool + Sync {
        move |t: &[u8]| String::from_utf8_lossy(t).contains(needle)
    }

    #[test]
    fn an_immediately_invoked_function_becomes_its_body() {
        let input = "(function (o, j) { m.i = j(); }(0, function () { h(1); return a; }));\n";
        assert_eq!(inlined(input, &keeps("h(1)")), "{{h(1);m.i=a;}}");
    }

    #[test]
    fn a_function_defined_and_called_once_moves_to_the_call() {
        let input =
            "function b() {}\nb.prototype.f = function () { a.k(0); };\nvar a = new b;\na.f();\n";
        assert_eq!(
            inlined(input, &keeps("a.k(0)")),
            "functionb(){}vara=newb;{a.k(0);}"
        );
    }

    #[test]
    fn a_parameter_takes_its_argument_and_an_arrow_its_expression() {
        let input = "var g = (s) => s.replace();\nx(g(1));\n";
        assert_eq!(inlined(input, &keeps("replace")), "x(1.replace());");
    }

    /// A `return` without its `;` takes what followed the call too; a
    /// function it returns into the statement's start is parenthesized,
    /// or it would read as a declaration.
    #[test]
    fn a_returned_function_called_at_once_keeps_its_call() {
        let input = "function a(){return function(w){w.f()}}a()(0)";
        assert_eq!(inlined(input, &keeps("w.f()")), "{(function(w){w.f()})(0)}");
        let input = "function a(){return g}\nx=a()(1);\n";
        assert_eq!(inlined(input, &keeps("x=")), "{x=g(1)}");
    }

    #[test]
    fn what_cannot_move_without_copying_stays() {
        for input in [
            // a parameter used twice
            "function f(a) { a(a); }\nf(g);\n",
            // called twice
            "function f() { g(); }\nf();\nf();\n",
            // a return that is not last
            "function f() { if (c) return 1; g(); }\nx = f();\n",
            // a value used, but none returned
            "function f() { g(); }\nx = f();\n",
        ] {
            let expected: String = input.split_whitespace().collect();
            assert_eq!(inlined(input, &|_| true), expected, "{input}");
        }
    }

    #[test]
    fn a_call_the_failure_needs_stays() {
        let input = "function f() { g(); }\nf();\n";
        let needs_f = keeps("f()");
        assert_eq!(inlined(input, &needs_f), "functionf(){g();}f();");
    }
}
