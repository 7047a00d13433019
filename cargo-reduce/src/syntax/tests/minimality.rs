//! Property tests of `best`'s end result on generated inputs.

use super::reduce_with;
use crate::syntax::{Lang, Strategy};

/// A Rust item of one of five kinds, named `word` where given; `seed`
/// varies the other names and the numbers.
fn generated_item(kind: u8, seed: u16, word: Option<&str>) -> String {
    let name = word.map_or_else(|| format!("n{seed}"), str::to_string);
    let n = seed % 97;
    match kind % 5 {
        0 => format!(
            "fn {name}(a: u{}) -> u8 {{ let v = a + {n}; v as u8 }}\n",
            8 << (n % 3)
        ),
        1 => format!("struct {name} {{ f: Vec<u8>, g: Option<&'static str> }}\n"),
        2 => format!("impl T{n} for S{n} where S{n}: Clone {{ type {name} = [u8; {n}]; }}\n"),
        3 => format!("const {name}: (u8, &str) = ({n}, \"x{n}\");\n"),
        _ => {
            format!("mod m{n} {{ pub fn f() {{ let {name} = {n}; if {name} > 1 {{ g(); }} }} }}\n")
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// With an oracle that needs only two names (as substrings, so that
    /// tokens fusing cannot hide one), every other token can go alone, so
    /// a result 1-minimal in tokens holds those two names and nothing
    /// else: the token pass reached every token, and the rounds did not
    /// stop before it had the last word.
    #[test]
    fn best_leaves_only_the_tokens_an_oracle_needs(
        items in proptest::collection::vec((0u8..5, 0u16..1000), 2..7),
        first in 0usize..6,
        gap in 0usize..6,
    ) {
        let len = items.len();
        let (first, second) = (first % len, (first + 1 + gap % (len - 1)) % len);
        let words = |i: usize| match i {
            _ if i == first => Some("keepa"),
            _ if i == second => Some("keepb"),
            _ => None,
        };
        let input: String = items
            .iter()
            .enumerate()
            .map(|(i, &(kind, seed))| generated_item(kind, seed, words(i)))
            .collect();
        let needs = |b: &[u8]| {
            let text = String::from_utf8_lossy(b);
            text.contains("keepa") && text.contains("keepb")
        };
        let (out, _) = reduce_with(input.as_bytes(), Lang::Rust, Strategy::Best, &needs);
        let kept: String = String::from_utf8_lossy(&out).split_whitespace().collect();
        let expected = if first < second { "keepakeepb" } else { "keepbkeepa" };
        proptest::prop_assert_eq!(kept, expected, "input:\n{}", input);
    }
}
