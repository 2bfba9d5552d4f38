#!/usr/bin/env python3
"""Check that every PGN flagfall writes for the scenario suite is read by python-chess
without errors, and that its main line replays (RULES: a standing illegal move, a claim
and a penalty must appear in a form ordinary PGN readers accept).

Usage: check_pgn_readers.py DIR   (DIR holds the .pgn files written by
`FLAGFALL_PGN_OUT=DIR cargo test -p flagfall-game --test scenarios`)."""

import glob
import sys

import chess.pgn


def main() -> int:
    files = sorted(glob.glob(f"{sys.argv[1]}/*.pgn"))
    bad = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            game = chess.pgn.read_game(f)
        if game is None:
            print(f"{path}: no game read")
            bad += 1
            continue
        if game.errors:
            print(f"{path}: {game.errors}")
            bad += 1
            continue
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
    print(f"pgn-readers: {len(files) - bad} passed, {bad} failed")
    return 1 if bad or not files else 0


if __name__ == "__main__":
    sys.exit(main())
