//! A coverage report as HTML a person browses: an index with each file's
//! covered and instrumented lines and percentage, and a page per file,
//! its source with each instrumented line marked reached (with the inputs
//! that reached it) or not. Plain HTML and inline CSS, no script.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use super::percent;
use super::report::{shown, Coverage};

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em}\
table{border-collapse:collapse}td,th{padding:0 .6em;text-align:left}\
.num{text-align:right}.src td{font-family:monospace;white-space:pre;padding:0 .4em}\
.hit{background:#d7f5d7}.miss{background:#f8d4d4}.ln,.n{color:#777;text-align:right}";

/// The report's pages: (file name, HTML), `index.html` first. Sources
/// are read from disk; `title` heads the index.
pub(super) fn pages(coverage: &Coverage, root: &Path, title: &str) -> Vec<(String, String)> {
    let mut pages = vec![(String::new(), String::new())];
    let mut rows = String::new();
    for (i, (path, lines)) in coverage.files.iter().enumerate() {
        let name = shown(path, root).display().to_string();
        let page = format!("{i}-{}.html", page_name(&name));
        let source = std::fs::read(path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let (covered, total) = totals(lines);
        let _ = write!(
            rows,
            "<tr><td><a href=\"{page}\">{}</a></td><td class=num>{covered} / {total}</td><td class=num>{}</td></tr>",
            escape(&name),
            percent(covered, total)
        );
        pages.push((page, file_page(&name, &source, lines)));
    }
    let all = coverage.files.values().fold((0, 0), |(c, t), lines| {
        let (covered, total) = totals(lines);
        (c + covered, t + total)
    });
    let _ = write!(
        rows,
        "<tr><th>all files</th><th class=num>{} / {}</th><th class=num>{}</th></tr>",
        all.0,
        all.1,
        percent(all.0, all.1)
    );
    pages[0] = (
        "index.html".to_string(),
        document(
            title,
            &format!("<table><tr><th>file</th><th>lines covered / instrumented</th><th>%</th></tr>{rows}</table>"),
        ),
    );
    pages
}

/// One file's page: every source line, instrumented ones marked.
fn file_page(name: &str, source: &str, lines: &BTreeMap<u32, u64>) -> String {
    let mut rows = String::new();
    for (number, text) in (1u32..).zip(source.lines()) {
        let (class, count) = match lines.get(&number) {
            Some(0) => (" class=miss", "0".to_string()),
            Some(n) => (" class=hit", n.to_string()),
            None => ("", String::new()),
        };
        let _ = write!(
            rows,
            "<tr{class}><td class=ln>{number}</td><td class=n>{count}</td><td>{}</td></tr>",
            escape(text)
        );
    }
    let (covered, total) = totals(lines);
    let body = format!(
        "<p><a href=\"index.html\">index</a> · {covered} / {total} lines ({}); the second column counts the inputs that reached a line</p><table class=src>{rows}</table>",
        percent(covered, total)
    );
    document(name, &body)
}

fn document(title: &str, body: &str) -> String {
    let title = escape(title);
    format!("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title><style>{STYLE}</style></head><body><h1>{title}</h1>{body}</body></html>\n")
}

/// (covered, instrumented) lines.
fn totals(lines: &BTreeMap<u32, u64>) -> (usize, usize) {
    (lines.values().filter(|&&n| n > 0).count(), lines.len())
}

/// A file name for the page of the source file `name`.
fn page_name(name: &str) -> String {
    name.chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                true => c,
                false => '_',
            },
        )
        .collect()
}

/// `text` with HTML's special characters escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn pages_mark_each_instrumented_line_and_the_index_has_percentages() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("src/lib.rs");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "fn f() {\n    if a < b {\n        g();\n    }\n}\n").unwrap();
        let coverage = Coverage {
            files: BTreeMap::from([(file.clone(), BTreeMap::from([(2, 3), (3, 0)]))]),
            ..Coverage::default()
        };
        let written = pages(&coverage, dir.path(), "parse");
        assert_eq!(written[0].0, "index.html");
        assert_eq!(written[1].0, "0-src_lib.rs.html");
        let index = &written[0].1;
        assert!(
            index.contains("<a href=\"0-src_lib.rs.html\">src/lib.rs</a>"),
            "{index}"
        );
        assert!(index.contains("1 / 2</td><td class=num>50.0%"), "{index}");
        let page = &written[1].1;
        assert!(page.contains("<tr class=hit><td class=ln>2</td><td class=n>3</td><td>    if a &lt; b {</td></tr>"), "{page}");
        assert!(
            page.contains("<tr class=miss><td class=ln>3</td><td class=n>0</td>"),
            "{page}"
        );
        assert!(
            page.contains("<tr><td class=ln>1</td><td class=n></td><td>fn f() {</td></tr>"),
            "{page}"
        );
        let missing = Coverage {
            files: BTreeMap::from([(PathBuf::from("/gone.rs"), BTreeMap::from([(1, 0)]))]),
            ..Coverage::default()
        };
        assert!(pages(&missing, dir.path(), "t")[0].1.contains("0 / 1"));
    }
}
