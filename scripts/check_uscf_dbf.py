#!/usr/bin/env python3
"""Read the US Chess rating reports flagfall writes with an independent dBase III reader
(dbfread), and check that they hold what the event holds: the event header, the section,
and every player's line with every round, as listed in each folder's expected.json.

Usage: check_uscf_dbf.py DIR   (DIR holds one folder per report, written by
`FLAGFALL_DBF_OUT=DIR cargo test -p flagfall-events --test uscf` and, as the server
exports them, `FLAGFALL_DBF_OUT=DIR cargo test -p flagfall-cli --test server
evening_us_chess_report_exported`). Fails when dbfread
cannot be imported, when no report is found, or when a report differs."""

import datetime
import json
import pathlib
import sys

import dbfread


def check(folder: pathlib.Path) -> list:
    expected = json.loads((folder / "expected.json").read_text())
    problems = []
    header = list(dbfread.DBF(str(folder / "THEXPORT.DBF"), char_decode_errors="strict"))
    section = list(dbfread.DBF(str(folder / "TSEXPORT.DBF"), char_decode_errors="strict"))
    detail_table = dbfread.DBF(str(folder / "TDEXPORT.DBF"), char_decode_errors="strict")
    detail = list(detail_table)
    if len(header) != 1 or len(section) != 1:
        return [f"{folder.name}: {len(header)} header and {len(section)} section records"]
    h, s = header[0], section[0]

    def want(what, got, wanted):
        if got != wanted:
            problems.append(f"{folder.name}: {what} is {got!r}, expected {wanted!r}")

    want("H_FORMAT", h["H_FORMAT"], "2C")
    want("H_NAME", h["H_NAME"], expected["H_NAME"])
    want("H_BEG_DATE", h["H_BEG_DATE"], datetime.date.fromisoformat(expected["H_BEG_DATE"]))
    want("H_END_DATE", h["H_END_DATE"], datetime.date.fromisoformat(expected["H_END_DATE"]))
    want("H_TOT_SECT", h["H_TOT_SECT"], "1")
    want("S_TOT_RNDS", s["S_TOT_RNDS"], expected["S_TOT_RNDS"])
    want("S_TRN_TYPE", s["S_TRN_TYPE"], expected["S_TRN_TYPE"])
    want("S_LST_PAIR", s["S_LST_PAIR"], str(len(expected["players"])))
    rounds = [f.name for f in detail_table.fields if f.name.startswith("D_RND")]
    want("round columns", len(rounds), int(expected["S_TOT_RNDS"]))
    want("players", len(detail), len(expected["players"]))
    for record, player in zip(detail, expected["players"]):
        for field in ("D_PAIR_NUM", "D_NAME", "D_MEM_ID", "D_RATING"):
            want(f"player {player['D_PAIR_NUM']} {field}", record[field], player[field])
        want(f"player {player['D_PAIR_NUM']} rounds",
             [record[r] for r in rounds], player["rounds"])
    return problems


def main() -> int:
    folders = sorted(p for p in pathlib.Path(sys.argv[1]).iterdir() if p.is_dir())
    bad = 0
    for folder in folders:
        problems = check(folder)
        for p in problems:
            print(p)
        bad += bool(problems)
    print(f"uscf-dbf: {len(folders) - bad} passed, {bad} failed")
    return 1 if bad or not folders else 0


if __name__ == "__main__":
    sys.exit(main())
