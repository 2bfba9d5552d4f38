//! How counts are written in messages and how wide a number's column is in the text
//! tables: one place for the exports, the event's refusals and the printouts.

/// `n` with a comma between thousands (`10,000`), as the messages write counts.
pub(crate) fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The columns a number up to `most` takes, at least `at_least` (a table keeps its
/// usual width for small events and widens for large ones).
pub(crate) fn columns(most: usize, at_least: usize) -> usize {
    most.to_string().len().max(at_least)
}

#[cfg(test)]
mod tests {
    use super::{columns, grouped};

    #[test]
    fn counts_are_grouped_by_thousands() {
        let cases = [
            (0, "0"),
            (999, "999"),
            (1_000, "1,000"),
            (9_999, "9,999"),
            (10_000, "10,000"),
            (1_234_567, "1,234,567"),
        ];
        for (n, want) in cases {
            assert_eq!(grouped(n), want);
        }
    }

    #[test]
    fn columns_widen_past_the_usual_width_only() {
        assert_eq!(columns(0, 3), 3);
        assert_eq!(columns(999, 3), 3);
        assert_eq!(columns(1_000, 3), 4);
        assert_eq!(columns(9_999, 4), 4);
        assert_eq!(columns(10_000, 4), 5);
    }
}
