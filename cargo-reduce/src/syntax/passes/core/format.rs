//! Pretty-printing the result (the `format` part of a strategy,
//! `--pretty`): the smallest text is not the most readable one.
//!
//! After the layout pass the result is one dense line; an issue report
//! wants it formatted. The language's formatter (`rustfmt`, `prettier`
//! where installed) rewrites it, and the formatted text is kept only when
//! the oracle still fails on it: a failure can depend on layout (a line
//! number in a message, a `line!()`), and a reduced program often does
//! not parse at all, which formatters refuse. Either way the unformatted
//! result stays.

use std::process::Command;

use crate::command::filter;
use crate::engine::OracleError;
use crate::syntax::lang::Lang;
use crate::syntax::passes::render_oracle::Tester;

/// Replaces `text` (known interesting) by its formatted form when a
/// formatter for `lang` is installed, accepts it, and the failure stays.
/// Returns whether it did.
pub(crate) fn format_pass(
    text: &mut Vec<u8>,
    lang: Lang,
    tester: &Tester,
) -> Result<bool, OracleError> {
    let Some(pretty) = formatter(lang).and_then(|cmd| filter(cmd, text)) else {
        return Ok(false);
    };
    if pretty == *text || !tester.test(&pretty)? {
        return Ok(false);
    }
    tester.accept(&pretty);
    *text = pretty;
    Ok(true)
}

/// The formatter of `lang`, reading the source on stdin and writing the
/// formatted source to stdout.
fn formatter(lang: Lang) -> Option<Command> {
    match lang {
        Lang::Rust => Some(rustfmt("2021")),
        Lang::JavaScript => {
            let mut cmd = Command::new("prettier");
            cmd.args(["--stdin-filepath", "input.js"]);
            Some(cmd)
        }
        Lang::Text => None,
    }
}

/// rustfmt reading Rust of `edition` on stdin and writing it formatted to
/// stdout.
pub(crate) fn rustfmt(edition: &str) -> Command {
    let mut cmd = Command::new("rustfmt");
    cmd.args(["--edition", edition, "--emit", "stdout", "--quiet"]);
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::passes::testing::with_tester;

    fn format(lang: Lang, input: &str, oracle: &(dyn Fn(&[u8]) -> bool + Sync)) -> (String, bool) {
        let ((text, changed), _) = with_tester(input.as_bytes(), oracle, |tester| {
            let mut text = input.as_bytes().to_vec();
            let changed = format_pass(&mut text, lang, tester).unwrap();
            assert_eq!(tester.current_len(), text.len(), "the result was accepted");
            (text, changed)
        });
        (String::from_utf8(text).unwrap(), changed)
    }

    fn rustfmt_installed() -> bool {
        formatter(Lang::Rust)
            .and_then(|c| filter(c, b"fn a(){}"))
            .is_some()
    }

    #[test]
    fn rust_is_pretty_printed_when_the_failure_stays() {
        if !rustfmt_installed() {
            eprintln!("rustfmt is not installed: skipped");
            return;
        }
        let input = "struct b{c:String}impl b{fn a(self){let a:u64=self.c.len();}}";
        let (out, changed) = format(Lang::Rust, input, &|t: &[u8]| {
            String::from_utf8_lossy(t).contains("let a")
        });
        assert!(changed);
        assert_eq!(
            out,
            "struct b {\n    c: String,\n}\nimpl b {\n    fn a(self) {\n        let a: u64 = self.c.len();\n    }\n}\n"
        );
    }

    #[test]
    fn the_dense_text_stays_when_the_formatted_one_passes_not() {
        // The failure needs everything on line 1 (a message's line number).
        let input = "fn a(){let a:u64=0usize;}";
        let (out, changed) = format(Lang::Rust, input, &|t: &[u8]| !t.contains(&b'\n'));
        assert!(!changed);
        assert_eq!(out, input);
        // A reduced program that does not parse: rustfmt refuses it.
        let broken = "fn a(){let a:u64=0usize}}";
        let (out, changed) = format(Lang::Rust, broken, &|_| true);
        assert_eq!((out.as_str(), changed), (broken, false));
    }
}
