//! Reading what a director types or brings: players from CSV or from a TRF file, and a
//! round's results as lines (paper mode). Text in, values out; the caller reads the file.

use flagfall_pairing::trf::Trf;
use thiserror::Error;

use crate::event::{NewPlayer, RecordedResult};

/// A line of imported text that cannot be read. The message names the source, the line
/// (when there is one) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{source_name}{}: {message}", line.map(|n| format!(" line {n}")).unwrap_or_default())]
pub struct ImportError {
    /// Where the text came from (a file name, `stdin`).
    pub source_name: String,
    /// The line, 1-based, when the error is on one.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl ImportError {
    fn at(source_name: &str, line: usize, message: String) -> ImportError {
        ImportError {
            source_name: source_name.to_string(),
            line: Some(line),
            message,
        }
    }
}

/// The columns a players CSV may have.
const CSV_COLUMNS: [&str; 5] = ["name", "rating", "federation", "fide_id", "uscf_id"];

/// Split one CSV line (RFC 4180 quoting, no embedded newlines); fields are trimmed.
fn csv_fields(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    cur.push('"');
                    chars.next();
                } else {
                    quoted = false;
                }
            } else {
                cur.push(c);
            }
        } else if c == '"' && cur.trim().is_empty() && !was_quoted {
            cur.clear();
            quoted = true;
            was_quoted = true;
        } else if c == ',' {
            out.push(std::mem::take(&mut cur).trim().to_string());
            was_quoted = false;
        } else {
            cur.push(c);
        }
    }
    if quoted {
        return Err("a quoted field is not closed".into());
    }
    out.push(cur.trim().to_string());
    Ok(out)
}

/// Players from CSV with a header line naming the columns (`name` required; `rating`,
/// `federation`, `fide_id`, `uscf_id` optional, any order, case-insensitive). Blank lines and a
/// byte-order mark are skipped. `source_name` names the text in errors.
pub fn players_from_csv(text: &str, source_name: &str) -> Result<Vec<NewPlayer>, ImportError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_start_matches('\u{feff}')))
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((hn, header)) = lines.next() else {
        return Err(ImportError {
            source_name: source_name.to_string(),
            line: None,
            message: "no header line (expected e.g. name,rating,federation,fide_id)".into(),
        });
    };
    let at = |n: usize, message: String| ImportError::at(source_name, n, message);
    let cols: Vec<String> = csv_fields(header)
        .map_err(|m| at(hn, m))?
        .into_iter()
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let find = |n: &str| cols.iter().position(|c| c == n);
    let name_col = find("name").ok_or_else(|| {
        at(
            hn,
            format!(
                "the header has no \"name\" column (columns: {})",
                cols.join(",")
            ),
        )
    })?;
    if let Some(c) = cols.iter().find(|c| !CSV_COLUMNS.contains(&c.as_str())) {
        return Err(at(
            hn,
            format!("unknown column {c:?} (known: {})", CSV_COLUMNS.join(", ")),
        ));
    }
    let (rating_col, fed_col, id_col) = (find("rating"), find("federation"), find("fide_id"));
    let uscf_col = find("uscf_id");
    let mut out = Vec::new();
    for (n, line) in lines {
        let f = csv_fields(line).map_err(|m| at(n, m))?;
        if f.len() != cols.len() {
            return Err(at(
                n,
                format!("{} field(s), the header has {}", f.len(), cols.len()),
            ));
        }
        let get = |c: Option<usize>| c.map(|i| f[i].as_str()).filter(|s| !s.is_empty());
        let rating = get(rating_col)
            .map(|s| {
                s.parse::<u32>()
                    .map_err(|_| at(n, format!("rating {s:?} is not a whole number")))
            })
            .transpose()?;
        let fide_id = get(id_col)
            .map(|s| {
                s.parse::<u64>()
                    .map_err(|_| at(n, format!("fide_id {s:?} is not a number")))
            })
            .transpose()?;
        let uscf_id = get(uscf_col)
            .map(|s| {
                if s.len() == 8 && s.bytes().all(|b| b.is_ascii_digit()) {
                    Ok(s.to_string())
                } else {
                    Err(at(n, format!("uscf_id {s:?} is not eight digits")))
                }
            })
            .transpose()?;
        let name =
            crate::text::player_name("name", &f[name_col]).map_err(|e| at(n, e.to_string()))?;
        out.push(NewPlayer {
            name,
            rating,
            federation: get(fed_col).map(str::to_string),
            fide_id,
            uscf_id,
        });
    }
    Ok(out)
}

/// The players of a TRF file's `001` records, in file order. Their names are checked
/// where they are entered (`Event::add_player`, [`crate::text`]).
pub fn players_from_trf(trf: &Trf) -> Vec<NewPlayer> {
    trf.players
        .iter()
        .map(|p| NewPlayer {
            name: p.name.clone(),
            rating: p.rating,
            federation: (!p.federation.trim().is_empty()).then(|| p.federation.trim().to_string()),
            fide_id: p.fide_id,
            uscf_id: None,
        })
        .collect()
}

/// One board's results as a paper-mode line gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultLine {
    /// The line, 1-based.
    pub line: usize,
    /// The board.
    pub board: u32,
    /// One result per game of the board.
    pub results: Vec<RecordedResult>,
}

/// A round's results, one board per line: `BOARD RESULT [RESULT]`; `#` starts a comment,
/// blank lines are skipped.
pub fn result_lines(text: &str, source_name: &str) -> Result<Vec<ResultLine>, ImportError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut fields = line.split_whitespace();
        let board_text = fields.next().unwrap_or("");
        let board: u32 = board_text.parse().map_err(|_| {
            ImportError::at(
                source_name,
                n,
                format!("board {board_text:?} is not a number"),
            )
        })?;
        let results = fields
            .map(str::parse::<RecordedResult>)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| ImportError::at(source_name, n, e.to_string()))?;
        out.push(ResultLine {
            line: n,
            board,
            results,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_players_with_quotes_and_errors() {
        let text = "Name,Rating,federation\n\"Smith, Ann\",1800,USA\nBob,,\n";
        let p = players_from_csv(text, "t.csv").expect("valid CSV");
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].name, "Smith, Ann");
        assert_eq!(p[0].rating, Some(1800));
        assert_eq!(p[0].federation.as_deref(), Some("USA"));
        assert_eq!(p[1].rating, None);
        let err = players_from_csv("name,rating\nAnn,abc\n", "t.csv").unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.csv line 2: rating \"abc\" is not a whole number"
        );
        let err = players_from_csv("nom\nAnn\n", "t.csv").unwrap_err();
        assert!(err.to_string().contains("no \"name\" column"), "{err}");
        let err = players_from_csv("name,rating\nAnn\n", "t.csv").unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.csv line 2: 1 field(s), the header has 2"
        );
        let err = players_from_csv("name,club\nAnn,X\n", "t.csv").unwrap_err();
        assert!(err.to_string().contains("unknown column \"club\""), "{err}");
        let err = players_from_csv("name\n\"Ann\n", "t.csv").unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.csv line 2: a quoted field is not closed"
        );
        let err = players_from_csv("name\nAnn\rLee\n", "t.csv").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("t.csv line 2: name: holds a control character (U+000D)"),
            "{err}"
        );
        let err = players_from_csv(&format!("name\n{}\n", "B".repeat(65)), "t.csv").unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.csv line 2: name: 65 characters, longer than the 64 it may have"
        );
        let err = players_from_csv("name,rating\n,1800\n", "t.csv").unwrap_err();
        assert_eq!(err.to_string(), "t.csv line 2: name: empty");
        let err = players_from_csv("\n\n", "t.csv").unwrap_err();
        assert!(
            err.to_string().starts_with("t.csv: no header line"),
            "{err}"
        );
    }

    #[test]
    fn result_lines_with_comments_and_errors() {
        let lines = result_lines("# round 1\n1 1-0 0-1\n\n2 1/2 -- # late\n", "stdin")
            .expect("valid lines");
        assert_eq!(
            lines,
            vec![
                ResultLine {
                    line: 2,
                    board: 1,
                    results: vec![RecordedResult::WhiteWins, RecordedResult::BlackWins],
                },
                ResultLine {
                    line: 4,
                    board: 2,
                    results: vec![RecordedResult::Draw, RecordedResult::DoubleForfeit],
                },
            ]
        );
        let err = result_lines("x 1-0\n", "stdin").unwrap_err();
        assert_eq!(err.to_string(), "stdin line 1: board \"x\" is not a number");
        let err = result_lines("1 1-0\n2 2-0\n", "stdin").unwrap_err();
        assert!(
            err.to_string().starts_with("stdin line 2: result \"2-0\""),
            "{err}"
        );
    }
}
