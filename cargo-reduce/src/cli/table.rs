//! Plain-text tables for the human output: columns padded to their widest
//! cell, some right-aligned (numbers), the last one left free (it holds
//! long failure signatures that must not widen the others).

/// How a column is aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
}

/// `rows` as lines of columns separated by two spaces, each line starting
/// with `indent`; `align` gives every column but the last, which is not
/// padded. Trailing spaces are trimmed.
pub(super) fn render(rows: &[Vec<String>], align: &[Align], indent: &str) -> String {
    let mut widths = vec![0; align.len()];
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = indent.to_string();
        for (i, cell) in row.iter().enumerate() {
            let pad = widths
                .get(i)
                .map_or(0, |w| w - cell.chars().count().min(*w));
            let (left, right) = match align.get(i) {
                Some(Align::Right) => (" ".repeat(pad), String::new()),
                Some(Align::Left) => (String::new(), " ".repeat(pad)),
                None => (String::new(), String::new()),
            };
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(&left);
            line.push_str(cell);
            line.push_str(&right);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_pad_to_the_widest_cell() {
        let rows = vec![
            vec!["NAME".into(), "BYTES".into(), "NOTE".into()],
            vec!["a/crash-1".into(), "12".into(), "a long note".into()],
            vec!["b".into(), "3".into(), String::new()],
        ];
        let text = render(&rows, &[Align::Left, Align::Right], "");
        assert_eq!(
            text,
            "NAME       BYTES  NOTE\na/crash-1     12  a long note\nb              3\n"
        );
    }
}
