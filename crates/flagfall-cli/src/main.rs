//! `flagfall`: a thin command-line program over the library crates.
//!
//! Exit codes: 0 success; 1 the input was bad or the command failed (the message says
//! what and where); 2 the command line itself was wrong (clap's usage errors).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd_analyze;
mod cmd_event;
mod cmd_loadtest;
mod cmd_pair;
mod cmd_replay;
mod cmd_rules;
mod cmd_serve;
mod event_server;
mod tables;

#[derive(Parser)]
#[command(
    name = "flagfall",
    version,
    about = "Tournament blitz chess: rules, clocks, arbiter, events"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay a game script and print the arbiter's verdict as JSON (or PGN).
    Replay(cmd_replay::Args),
    /// List, show and explain the rulesets.
    Rules(cmd_rules::Args),
    /// Can a side still checkmate? FIDE's "any possible series of legal moves".
    Analyze(cmd_analyze::Args),
    /// Pair the next round of a tournament given as FIDE TRF.
    Pair(cmd_pair::Args),
    /// Run an event: new, add-player, pair, result, standings, export.
    Event(cmd_event::Args),
    /// Serve live games over HTTP and WebSocket (docs/protocol.md).
    Serve(cmd_serve::Args),
    /// Load-test the server with bot games over loopback, with an echo baseline.
    Loadtest(cmd_loadtest::Args),
}

/// jemalloc: a move costs about a hundred allocations on the server (issue 34), which
/// glibc's allocator served in about an eighth of the server's CPU; jemalloc's thread
/// caches serve them in fewer instructions, at about the same memory (BENCHMARKS.md).
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    // Like other Unix filters, end quietly when the reader of our output goes away
    // (`flagfall rules show fide-b3 | head`) instead of failing on a broken pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Replay(args) => cmd_replay::run(args),
        Command::Rules(args) => cmd_rules::run(args),
        Command::Analyze(args) => cmd_analyze::run(args),
        Command::Pair(args) => cmd_pair::run(args),
        Command::Event(args) => cmd_event::run(args),
        Command::Serve(args) => cmd_serve::run(args),
        Command::Loadtest(args) => cmd_loadtest::run(args),
    };
    match outcome {
        Ok(code) => code,
        Err(err) => {
            eprintln!("flagfall: {err:#}");
            ExitCode::from(1)
        }
    }
}
