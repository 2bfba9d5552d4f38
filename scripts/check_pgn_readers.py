#!/usr/bin/env python3
"""Check that every PGN flagfall writes for the scenario suite is read by python-chess
without errors, that its main line replays (RULES: a standing illegal move, a claim
and a penalty must appear in a form ordinary PGN readers accept), and that python-chess
finds exactly what flagfall meant to write: the `White`, `Black` and `Result` tags and
the SAN moves listed in the `NAME.expect.json` beside each `NAME.pgn`, and one game
only (a player's name must never inject tags, moves or a second game: issue 19).

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


def check(path: str) -> list[str]:
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
