#!/usr/bin/env python3
"""Check that every PGN flagfall writes for the scenario suite is read by python-chess
without errors, that its main line replays (RULES: a standing illegal move, a claim
and a penalty must appear in a form ordinary PGN readers accept), and that python-chess
finds exactly what flagfall meant to write: the `White`, `Black` and `Result` tags and
the SAN moves listed in the `NAME.expect.json` beside each `NAME.pgn`, and one game
only (a player's name must never inject tags, moves or a second game: issue 19).

A round's PGN (a Broadcast's source, issue 31) holds every game of the round: its
`NAME.expect.json` is `{"games": [...]}`, one entry per game in order, each with the
tags above, `Round`, the SAN moves and `clocks`, how many moves carry a `[%clk]` that
python-chess reads (`node.clock()`); the file must hold exactly those games.

Usage: check_pgn_readers.py DIR   (DIR holds the .pgn and .expect.json files written by
`FLAGFALL_PGN_OUT=DIR cargo test -p flagfall-game --test scenarios`)."""

import glob
import json
import os
import sys

import chess.pgn


def unescape(token: str) -> str:
    """A tag value as the PGN standard's string token means it: `\\"` is a quote and
    `\\\\` a backslash (python-chess hands tag values over without resolving them)."""
    out, i = [], 0
    while i < len(token):
        if token[i] == "\\" and i + 1 < len(token):
            out.append(token[i + 1])
            i += 2
        else:
            out.append(token[i])
            i += 1
    return "".join(out)


def check_game(game, expect: dict, where: str) -> list[str]:
    """One game of a round's PGN against its expected tags, moves and clocks."""
    if game.errors:
        return [f"{where}: {game.errors}"]
    problems = []
    board = game.board()
    sans, clocks = [], 0
    for node in game.mainline():
        sans.append(board.san(node.move))
        board.push(node.move)
        clock = node.clock()
        if clock is not None:
            if clock < 0:
                problems.append(f"{where}: a negative clock {clock}")
            clocks += 1
    for tag in ("White", "Black", "Result", "Round"):
        if tag in expect:
            value = unescape(game.headers.get(tag, ""))
            if value != expect[tag]:
                problems.append(f"{where}: tag {tag}: read {value!r}, expected {expect[tag]!r}")
    if sans != expect["moves"]:
        problems.append(f"{where}: moves: read {sans}, expected {expect['moves']}")
    if "clocks" in expect and clocks != expect["clocks"]:
        problems.append(f"{where}: {clocks} moves with a clock, expected {expect['clocks']}")
    return problems


def check_round(path: str, expect: dict) -> list[str]:
    """A round's PGN: every game of the round, in order, and nothing more."""
    games = []
    with open(path, encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            games.append(game)
    want = expect["games"]
    problems = []
    if len(games) != len(want):
        problems.append(f"{len(games)} games read, expected {len(want)}")
    for i, (game, exp) in enumerate(zip(games, want)):
        problems += check_game(game, exp, f"game {i + 1}")
    return problems


def check(path: str) -> list[str]:
    expect_path = path[: -len(".pgn")] + ".expect.json"
    if os.path.exists(expect_path):
        with open(expect_path, encoding="utf-8") as f:
            expect = json.load(f)
        if "games" in expect:
            return check_round(path, expect)
    with open(path, encoding="utf-8") as f:
        game = chess.pgn.read_game(f)
        extra = chess.pgn.read_game(f)
    if game is None:
        return ["no game read"]
    if game.errors:
        return [str(game.errors)]
    problems = []
    if extra is not None:
        problems.append("a second game was read from the file")
    board = game.board()
    sans = []
    for move in game.mainline_moves():
        sans.append(board.san(move))
        board.push(move)
    expect_path = path[: -len(".pgn")] + ".expect.json"
    if not os.path.exists(expect_path):
        return problems + [f"{expect_path} is missing"]
    with open(expect_path, encoding="utf-8") as f:
        expect = json.load(f)
    for tag in ("White", "Black", "Result"):
        value = unescape(game.headers.get(tag, ""))
        if value != expect[tag]:
            problems.append(f"tag {tag}: read {value!r}, expected {expect[tag]!r}")
    if sans != expect["moves"]:
        problems.append(f"moves: read {sans}, expected {expect['moves']}")
    return problems


def main() -> int:
    files = sorted(glob.glob(f"{sys.argv[1]}/*.pgn"))
    bad = 0
    for path in files:
        problems = check(path)
        if problems:
            print(f"{path}: " + "; ".join(problems))
            bad += 1
    print(f"pgn-readers: {len(files) - bad} passed, {bad} failed")
    return 1 if bad or not files else 0


if __name__ == "__main__":
    sys.exit(main())
