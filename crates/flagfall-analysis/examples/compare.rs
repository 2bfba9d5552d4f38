//! Developer tool: run a classified position file (`WB|W-|-B|-- FEN` per line, or
//! `FEN<TAB>white|black` per line) through flagfall and through chasolver's full mode,
//! and print disagreements, undetermined counts, timings and flagfall's search nodes
//! (which repeat exactly from run to run).
//!
//! `cargo run --release -p flagfall-analysis --example compare -- (FILE | --corpus [--seed N])`
//! `[--no-chasolver] [--verbose] [--nodes N] [--every N] [--family NAME] [--slowest N]`
//!
//! Bad arguments give a usage error (exit status 2) naming the flag; an unreadable file or
//! a bad line gives an error naming the line (exit status 1).
//!
//! `FILE` may be `--corpus` (the benchmark corpus; `--seed` generates another one with the
//! same recipe). `--family` keeps only one family of the corpus; `--slowest N` lists the N
//! slowest flagfall queries of every family, with chasolver's time on the same query and
//! flagfall's verdict.

#[path = "../tests/support/corpus.rs"]
mod corpus;

use std::str::FromStr;
use std::time::{Duration, Instant};

use flagfall_analysis::{Limits, Verdict, can_checkmate_counting};
use shakmaty::{Color, fen::Fen};

const USAGE: &str = "usage: compare (FILE | --corpus [--seed N]) [--no-chasolver] [--verbose] \
                     [--nodes N] [--every N] [--family NAME] [--slowest N]";

/// Flags that take a value, and flags that stand alone (`--corpus` only in first place).
const VALUE_FLAGS: [&str; 5] = ["--seed", "--nodes", "--every", "--family", "--slowest"];
const SWITCHES: [&str; 2] = ["--no-chasolver", "--verbose"];

/// Prints `message` and the usage text, and exits with status 2.
fn usage_error(message: &str) -> ! {
    eprintln!("compare: {message}\n{USAGE}");
    std::process::exit(2);
}

/// The value given after `flag` (`None` when the flag is absent), parsed; a usage error
/// naming the flag when no value follows it or the value does not parse.
fn opt<T: FromStr>(args: &[String], flag: &str) -> Option<T> {
    let i = args.iter().position(|a| a == flag)?;
    let Some(value) = args.get(i + 1) else {
        usage_error(&format!("{flag} needs a value"));
    };
    match value.parse() {
        Ok(v) => Some(v),
        Err(_) => usage_error(&format!("{flag}: `{value}` is not a valid value")),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        usage_error("no FILE given");
    };
    if path == "--help" || path == "-h" {
        println!("{USAGE}");
        return;
    }
    if path.starts_with("--") && path != "--corpus" {
        usage_error(&format!(
            "`{path}` in place of FILE (FILE or --corpus comes first)"
        ));
    }
    let mut rest = args.iter().skip(2);
    while let Some(a) = rest.next() {
        if VALUE_FLAGS.contains(&a.as_str()) {
            rest.next();
        } else if !SWITCHES.contains(&a.as_str()) {
            usage_error(&format!("unknown argument `{a}`"));
        }
    }
    let with_cha = !args.iter().any(|a| a == "--no-chasolver");
    let verbose = args.iter().any(|a| a == "--verbose");
    let text = if path == "--corpus" {
        let seed = opt(&args, "--seed").unwrap_or(0x5eed_2026);
        corpus::corpus(seed, 1)
            .into_iter()
            .map(|q| {
                let who = if q.winner.is_white() {
                    "white"
                } else {
                    "black"
                };
                format!("{}\t{who}\t{}\n", q.fen, q.family)
            })
            .collect()
    } else {
        std::fs::read_to_string(path).unwrap_or_else(|e| {
            eprintln!("compare: cannot read {path}: {e}");
            std::process::exit(1);
        })
    };
    let mut queries: Vec<(String, Color, Option<bool>)> = Vec::new();
    let mut families: Vec<String> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |message: String| -> ! {
            eprintln!("compare: {path}, line {}: {message}", n + 1);
            std::process::exit(1);
        };
        let check_fen = |fen: &str| {
            if let Err(e) = fen.parse::<Fen>() {
                bad(format!("FEN `{fen}`: {e}"));
            }
            if with_cha && let Err(e) = chess::Board::from_str(fen) {
                bad(format!(
                    "FEN `{fen}` rejected by the chess crate (chasolver): {e}"
                ));
            }
        };
        if let Some((fen, who)) = line.split_once('\t') {
            let (who, family) = who.split_once('\t').unwrap_or((who, "file"));
            let c = match who.trim() {
                "white" => Color::White,
                "black" => Color::Black,
                other => bad(format!("winner `{other}`: expected white or black")),
            };
            check_fen(fen);
            families.push(family.to_string());
            queries.push((fen.to_string(), c, None));
        } else {
            let (white, black, fen) = match (line.get(..2), line.get(2..)) {
                (Some("WB"), Some(fen)) => (true, true, fen),
                (Some("W-"), Some(fen)) => (true, false, fen),
                (Some("-B"), Some(fen)) => (false, true, fen),
                (Some("--"), Some(fen)) => (false, false, fen),
                _ => bad("expected `WB|W-|-B|-- FEN` or `FEN<TAB>white|black`".to_string()),
            };
            let fen = fen.trim();
            check_fen(fen);
            families.push("file".to_string());
            families.push("file".to_string());
            queries.push((fen.to_string(), Color::White, Some(white)));
            queries.push((fen.to_string(), Color::Black, Some(black)));
        }
    }
    let limits = Limits {
        nodes: opt(&args, "--nodes").unwrap_or(Limits::default().nodes),
    };
    let skip: usize = opt(&args, "--every").unwrap_or(1);
    if skip == 0 {
        usage_error("--every: `0` is not a valid value (at least 1)");
    }
    let only: Option<String> = opt(&args, "--family");
    let slowest: usize = opt(&args, "--slowest").unwrap_or(0);
    let (queries, families): (Vec<_>, Vec<String>) = queries
        .into_iter()
        .zip(families)
        .step_by(skip)
        .filter(|(_, f)| only.as_ref().is_none_or(|o| o == f))
        .unzip();
    // family -> (flagfall time, chasolver time, fen, winner, verdict kind)
    let mut per_query: Vec<(String, Duration, Duration, String, Color, &'static str)> = Vec::new();
    // family -> (queries, flagfall time, flagfall undetermined, chasolver time, flagfall
    // search nodes)
    let mut per_family: std::collections::BTreeMap<
        String,
        (usize, Duration, usize, Duration, u64),
    > = Default::default();
    let (mut ff_time, mut cha_time) = (Duration::ZERO, Duration::ZERO);
    let mut ff_nodes = 0u64;
    let (mut ff_und, mut cha_und, mut wrong, mut disagree) = (0, 0, 0, 0);
    for (qi, (fen, winner, expected)) in queries.iter().enumerate() {
        let fam = per_family.entry(families[qi].clone()).or_default();
        fam.0 += 1;
        // Both parses were checked when the file was read.
        let setup = fen
            .parse::<Fen>()
            .expect("FEN checked on reading")
            .into_setup();
        let t = Instant::now();
        let (v, nodes) = can_checkmate_counting(&setup, *winner, &limits);
        let dt = t.elapsed();
        ff_time += dt;
        fam.1 += dt;
        fam.4 += nodes;
        ff_nodes += nodes;
        if matches!(v, Verdict::Undetermined { .. }) {
            fam.2 += 1;
        }
        if verbose && dt.as_millis() > 50 {
            println!(
                "SLOW {:.1} ms {fen} {winner:?} {v:?}",
                dt.as_secs_f64() * 1e3
            );
        }
        let kind = match &v {
            Verdict::Winnable { .. } => "winnable",
            Verdict::Unwinnable { .. } => "unwinnable",
            Verdict::Undetermined { .. } => "undetermined",
        };
        let mut cha_dt = Duration::ZERO;
        let ff = match &v {
            Verdict::Winnable { .. } => Some(true),
            Verdict::Unwinnable { .. } => Some(false),
            Verdict::Undetermined { .. } => {
                ff_und += 1;
                if verbose {
                    println!("UNDET {fen} {winner:?}");
                }
                None
            }
        };
        if let (Some(e), Some(f)) = (expected, ff)
            && *e != f
        {
            wrong += 1;
            println!("WRONG {fen} {winner:?} expected {e} got {v:?}");
        }
        if with_cha {
            let board = chess::Board::from_str(fen).expect("FEN checked on reading");
            let c = if winner.is_white() {
                chess::Color::White
            } else {
                chess::Color::Black
            };
            let t = Instant::now();
            let r = chasolver::winnability(&board, c);
            cha_dt = t.elapsed();
            cha_time += cha_dt;
            fam.3 += cha_dt;
            let cha = match r {
                Some(chasolver::Winnability::Winnable { .. }) => Some(true),
                Some(chasolver::Winnability::Unwinnable) => Some(false),
                None => {
                    cha_und += 1;
                    None
                }
            };
            if verbose && ff.is_none() {
                println!("UNDET-CHA {fen} {winner:?} chasolver {cha:?}");
            }
            if let (Some(a), Some(b)) = (cha, ff)
                && a != b
            {
                disagree += 1;
                println!("DISAGREE {fen} {winner:?} chasolver {a} flagfall {b}");
            }
        }
        per_query.push((families[qi].clone(), dt, cha_dt, fen.clone(), *winner, kind));
    }
    if slowest > 0 {
        per_query.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let mut last = String::new();
        let mut shown = 0;
        for (fam, ff, cha, fen, c, kind) in &per_query {
            if *fam != last {
                last = fam.clone();
                shown = 0;
            }
            if shown < slowest {
                shown += 1;
                println!(
                    "slowest {fam:<11} {:>8.3} ms (chasolver {:>8.3} ms) {kind:<10} {fen} {c:?}",
                    ff.as_secs_f64() * 1e3,
                    cha.as_secs_f64() * 1e3
                );
            }
        }
    }
    for (name, (n, ff, und, cha, nodes)) in &per_family {
        println!(
            "family {name:<11} queries {n:>5}  flagfall {:>9.3} s (undetermined {und:>3}, {nodes:>9} nodes)  chasolver {:>7.3} s",
            ff.as_secs_f64(),
            cha.as_secs_f64()
        );
    }
    let mut worst: Vec<_> = per_query.iter().collect();
    worst.sort_by_key(|q| std::cmp::Reverse(q.1));
    for (_, d, _, fen, c, _) in worst.iter().take(8) {
        println!("slow {:>9.3} ms  {fen} {c:?}", d.as_secs_f64() * 1e3);
    }
    println!(
        "queries {}  flagfall {:.3} s (undetermined {ff_und}, wrong {wrong}, {ff_nodes} nodes)  chasolver {:.3} s (undetermined {cha_und})  disagreements {disagree}  ratio {:.3}",
        queries.len(),
        ff_time.as_secs_f64(),
        cha_time.as_secs_f64(),
        if cha_time.is_zero() {
            0.0
        } else {
            ff_time.as_secs_f64() / cha_time.as_secs_f64()
        }
    );
}
