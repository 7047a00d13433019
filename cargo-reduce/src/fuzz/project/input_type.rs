//! What a fuzz target's closure takes, read from its source: raw bytes
//! (`fuzz_target!(|data: &[u8]| …)`, or an untyped `|data|`, which the
//! macros take as bytes) or a typed value decoded with `arbitrary`. Read
//! without building, so that a mode that only needs a typed target's
//! stand-in (`run`'s `Debug` value) builds nothing for a target of bytes.

use std::path::Path;

use tree_sitter::Node;

use crate::syntax::parse_rust;

/// The macros a target's body is written with: libfuzzer-sys's, afl.rs's.
const FUZZ_MACROS: [&str; 3] = ["fuzz_target", "fuzz", "fuzz_nohook"];

/// Whether the target in `source` certainly takes raw bytes: every fuzz
/// macro in the file has a closure of `&[u8]` (or untyped). `false` when
/// the file cannot be read or parsed, or has no such macro: not known.
pub(crate) fn takes_bytes(source: &Path) -> bool {
    std::fs::read(source).is_ok_and(|text| text_takes_bytes(&text))
}

fn text_takes_bytes(text: &[u8]) -> bool {
    let Some(tree) = parse_rust(text) else {
        return false;
    };
    let mut closures = Vec::new();
    fuzz_closure_types(tree.root_node(), text, &mut closures);
    !closures.is_empty() && closures.iter().all(|t| t.as_deref().is_none_or(is_bytes))
}

/// Each fuzz macro's closure parameter type under `node` (`None`: untyped).
fn fuzz_closure_types(node: Node, text: &[u8], out: &mut Vec<Option<String>>) {
    if node.kind() == "macro_invocation" && is_fuzz_macro(node, text) {
        if let Some(args) = token_tree(node) {
            // No closure (a function passed by name): its input is not known.
            out.push(closure_type(args, text).unwrap_or_else(|| Some(String::new())));
        }
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        fuzz_closure_types(child, text, out);
    }
}

fn is_fuzz_macro(node: Node, text: &[u8]) -> bool {
    let Some(name) = node.child_by_field_name("macro") else {
        return false;
    };
    let name = name.utf8_text(text).unwrap_or_default();
    let last = name.rsplit("::").next().unwrap_or(name).trim();
    FUZZ_MACROS.contains(&last)
}

/// The macro's arguments.
fn token_tree(node: Node) -> Option<Node> {
    let mut cursor = node.walk();
    let tree = node
        .children(&mut cursor)
        .find(|c| c.kind() == "token_tree");
    tree
}

/// The type of the closure between the macro's first two top-level `|`
/// (an `init: { … }` block before it is one nested token tree): `None`
/// untyped, `Some(type)` typed; the outer `None` when there is no closure.
fn closure_type(args: Node, text: &[u8]) -> Option<Option<String>> {
    let mut cursor = args.walk();
    let bars: Vec<Node> = args
        .children(&mut cursor)
        .filter(|c| c.kind() == "|")
        .take(2)
        .collect();
    let [open, close] = bars[..] else {
        return None;
    };
    let params = text.get(open.end_byte()..close.start_byte())?;
    let params = std::str::from_utf8(params).ok()?;
    Some(
        params
            .split_once(':')
            .map(|(_, ty)| ty.split_whitespace().collect::<String>()),
    )
}

fn is_bytes(ty: &str) -> bool {
    ty == "&[u8]"
}

#[cfg(test)]
mod tests {
    use super::text_takes_bytes;

    #[test]
    fn bytes_closures_are_told_from_typed_ones() {
        let bytes = [
            "fuzz_target!(|data: &[u8]| { let _ = data; });",
            "libfuzzer_sys::fuzz_target!(|data: & [ u8 ]| {});",
            "fuzz_target!(|data| { parse(data); });",
            "fuzz_target!(init: { let _x = |a: u32| a; }, |data: &[u8]| {});",
            "fn main() { afl::fuzz!(|data: &[u8]| {}); }",
            "#[cfg(a)] fuzz_target!(|d: &[u8]| {});\n#[cfg(not(a))] fuzz_target!(|d| {});",
        ];
        for text in bytes {
            assert!(text_takes_bytes(text.as_bytes()), "{text}");
        }
        let not_known = [
            "fuzz_target!(|cmd: Command| { run(cmd); });",
            "fuzz_target!(|input: (u8, Vec<u16>)| {});",
            "fuzz_target!(|d: &[u8]| {});\nfuzz_target!(|x: String| {});",
            "fn main() { afl::fuzz_nohook!(|q: Query| {}); }",
            "fn main() {}",
            "fuzz_target!(run);",
        ];
        for text in not_known {
            assert!(!text_takes_bytes(text.as_bytes()), "{text}");
        }
    }
}
