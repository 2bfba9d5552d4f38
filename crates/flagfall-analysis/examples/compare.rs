//! Developer tool: run a classified position file (`WB|W-|-B|-- FEN` per line, or
//! `FEN<TAB>white|black` per line) through flagfall and through chasolver's full mode,
//! and print disagreements, undetermined counts and timings.
//!
//! `cargo run --release -p flagfall-analysis --example compare -- FILE [--no-chasolver]`
//! `[--verbose] [--nodes N] [--every N] [--family NAME] [--slowest N] [--seed N]`
//!
//! `FILE` may be `--corpus` (the benchmark corpus; `--seed` generates another one with the
//! same recipe). `--family` keeps only one family of the corpus; `--slowest N` lists the N
//! slowest flagfall queries of every family, with chasolver's time on the same query and
//! flagfall's verdict.

#[path = "../tests/support/corpus.rs"]
mod corpus;

use std::str::FromStr;
use std::time::{Duration, Instant};

use flagfall_analysis::{Limits, Verdict, can_checkmate};
use shakmaty::{Color, fen::Fen};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: compare FILE [--no-chasolver] [--verbose]");
        std::process::exit(2);
    };
    let with_cha = !args.iter().any(|a| a == "--no-chasolver");
    let verbose = args.iter().any(|a| a == "--verbose");
    let text = if path == "--corpus" {
        let seed = args
            .iter()
            .position(|a| a == "--seed")
            .map_or(0x5eed_2026, |i| args[i + 1].parse().expect("--seed N"));
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
        std::fs::read_to_string(path).expect("read file")
    };
    let mut queries: Vec<(String, Color, Option<bool>)> = Vec::new();
    let mut families: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some((fen, who)) = line.split_once('\t') {
            let (who, family) = who.split_once('\t').unwrap_or((who, "file"));
            families.push(family.to_string());
            let c = if who.trim() == "white" {
                Color::White
            } else {
                Color::Black
            };
            queries.push((fen.to_string(), c, None));
        } else {
            let (class, fen) = line.split_at(2);
            let b = class.as_bytes();
            families.push("file".to_string());
            families.push("file".to_string());
            queries.push((fen.trim().to_string(), Color::White, Some(b[0] == b'W')));
            queries.push((fen.trim().to_string(), Color::Black, Some(b[1] == b'B')));
        }
    }
    let mut limits = Limits::default();
    if let Some(i) = args.iter().position(|a| a == "--nodes") {
        limits.nodes = args[i + 1].parse().expect("--nodes N");
    }
    let skip: usize = args
        .iter()
        .position(|a| a == "--every")
        .map_or(1, |i| args[i + 1].parse().expect("--every N"));
    let only: Option<&String> = args
        .iter()
        .position(|a| a == "--family")
        .map(|i| &args[i + 1]);
    let slowest: usize = args
        .iter()
        .position(|a| a == "--slowest")
        .map_or(0, |i| args[i + 1].parse().expect("--slowest N"));
    let (queries, families): (Vec<_>, Vec<String>) = queries
        .into_iter()
        .zip(families)
        .step_by(skip)
        .filter(|(_, f)| only.is_none_or(|o| o == f))
        .unzip();
    // family -> (flagfall time, chasolver time, fen, winner, verdict kind)
    let mut per_query: Vec<(String, Duration, Duration, String, Color, &'static str)> = Vec::new();
    // family -> (queries, flagfall time, flagfall undetermined, chasolver time)
    let mut per_family: std::collections::BTreeMap<String, (usize, Duration, usize, Duration)> =
        Default::default();
    let (mut ff_time, mut cha_time) = (Duration::ZERO, Duration::ZERO);
    let (mut ff_und, mut cha_und, mut wrong, mut disagree) = (0, 0, 0, 0);
    let mut worst: Vec<(Duration, String, Color)> = Vec::new();
    for (qi, (fen, winner, expected)) in queries.iter().enumerate() {
        let fam = per_family.entry(families[qi].clone()).or_default();
        fam.0 += 1;
        let setup = fen.parse::<Fen>().expect("fen").into_setup();
        let t = Instant::now();
        let v = can_checkmate(&setup, *winner, &limits);
        let dt = t.elapsed();
        ff_time += dt;
        fam.1 += dt;
        if matches!(v, Verdict::Undetermined { .. }) {
            fam.2 += 1;
        }
        if verbose && dt.as_millis() > 50 {
            println!(
                "SLOW {:.1} ms {fen} {winner:?} {v:?}",
                dt.as_secs_f64() * 1e3
            );
        }
        worst.push((dt, fen.clone(), *winner));
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
            let board = chess::Board::from_str(fen).expect("chess fen");
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
    for (name, (n, ff, und, cha)) in &per_family {
        println!(
            "family {name:<11} queries {n:>5}  flagfall {:>9.3} s (undetermined {und:>3})  chasolver {:>7.3} s",
            ff.as_secs_f64(),
            cha.as_secs_f64()
        );
    }
    worst.sort_by_key(|w| std::cmp::Reverse(w.0));
    for (d, fen, c) in worst.iter().take(8) {
        println!("slow {:>9.3} ms  {fen} {c:?}", d.as_secs_f64() * 1e3);
    }
    println!(
        "queries {}  flagfall {:.3} s (undetermined {ff_und}, wrong {wrong})  chasolver {:.3} s (undetermined {cha_und})  disagreements {disagree}  ratio {:.3}",
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
