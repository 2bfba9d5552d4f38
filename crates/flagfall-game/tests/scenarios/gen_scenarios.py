#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the arbiter scenario suite (issue 2): `<ruleset>/<NNN>-<name>.jsonl` and
`<NNN>-<name>.expected.json`.

The expectations (result, reason, rule, rulings) are written by hand below, from
docs/rules.md, docs/game-script.md, docs/arbiter.md and the rule texts. Citations are read
from the ruleset data files (`crates/flagfall-core/rulesets/*.toml`, the field named next
to each expectation), as the contract says a ruling cites "the citation in that field".

Two checking aids, not oracles of the rulings:
- python-chess (`pip install chess`) checks that every move marked legal is legal and every
  move marked `_illegal` is not, and computes the physical board for `fen`;
- a small sudden-death clock model (US delay / Bronstein / increment per docs/rules.md §1)
  does the clock arithmetic; where a scenario also states the clock by hand, the two must
  agree or generation stops.

Run: python3 gen_scenarios.py   (from anywhere; rewrites the ruleset directories)
"""

import copy
import json
import os
import shutil
import tomllib

import chess

HERE = os.path.dirname(os.path.abspath(__file__))
RULESETS_DIR = os.path.join(HERE, "..", "..", "..", "flagfall-core", "rulesets")
IDS = ["uscf-2020", "uscf-classic", "club-ilc", "fide-b3", "blitz-2006"]
RS = {}
for _id in IDS:
    with open(os.path.join(RULESETS_DIR, f"{_id}.toml"), "rb") as f:
        RS[_id] = tomllib.load(f)


def cite(rs, path, variation=None):
    """The citation in field `path` (e.g. 'illegal.rule') of ruleset `rs`."""
    sect, key = path.split(".")
    if variation:
        over = RS[rs]["variations"][variation].get(sect, {})
        if key in over:
            return over[key]
    if sect == "penalties":
        return RS[rs]["penalties"][key]["rule"]
    return RS[rs][sect][key]


START = chess.STARTING_FEN
MIN = 60000

# ---------------------------------------------------------------- events


def ev(at, by, **kw):
    d = {"at": at}
    if by is not None:
        d["by"] = by
    d.update(kw)
    return d


def mv(at, by, uci, press=True, **ann):
    d = ev(at, by, move=uci)
    if press:
        d["press"] = True
    d.update(ann)
    return d


def press(at, by, **ann):
    return ev(at, by, press=True, **ann)


def claim(at, by, kind, move=None, **ann):
    d = ev(at, by, claim=kind)
    if move:
        d["move"] = move
    d.update(ann)
    return d


def retract(at, by, **ann):
    return ev(at, by, retract=True, **ann)


def offer(at, by, **ann):
    return ev(at, by, offer="draw", **ann)


def accept(at, by, **ann):
    return ev(at, by, accept="draw", **ann)


def decline(at, by, **ann):
    return ev(at, by, decline="draw", **ann)


def resign(at, by, **ann):
    return ev(at, by, resign=True, **ann)


def stop(at, **ann):
    return ev(at, "director", stop_clock=True, **ann)


def start(at, **ann):
    return ev(at, "director", start_clock=True, **ann)


def add_time(at, color, ms, kind=None, **ann):
    t = {"color": color, "ms": ms}
    if kind is not None:
        t["kind"] = kind
    return ev(at, "director", add_time=t, **ann)


def offence(at, player, kind, **ann):
    return ev(at, "director", offence={"player": player, "kind": kind}, **ann)


def ruling(at, grant, **ann):
    return ev(at, "director", ruling={"grant": grant}, **ann)


def dresult(at, result, reason="director", **ann):
    r = {"result": result}
    if reason is not None:
        r["reason"] = reason
    return ev(at, "director", result=r, **ann)


def end(at, **ann):
    d = {"at": at, "end": True}
    d.update(ann)
    return d


def seq(ucis, t0=0, dt=1000, first="white", label_last=None):
    """Moves with press, one every `dt` ms from t0+dt, alternating colours."""
    out = []
    side = first
    t = t0
    for u in ucis.split():
        t += dt
        out.append(mv(t, side, u))
        side = "black" if side == "white" else "white"
    if label_last and out:
        out[-1]["_id"] = label_last
    return out


# ---------------------------------------------------------------- checking aids


def other(c):
    return "black" if c == "white" else "white"


class Physical:
    """The physical board: any placement stands; legality is checked with python-chess."""

    def __init__(self, fen):
        self.board = chess.Board(fen, chess960=False)
        self.snap_before_pending = None
        self.snap_before_last_completed = None
        self.pending = None  # (snapshot, legal)

    def place(self, frm, to, promo=None, rook=None):
        b = self.board
        p = b.piece_at(chess.parse_square(frm))
        assert p is not None, f"no piece on {frm}"
        b.remove_piece_at(chess.parse_square(frm))
        if promo:
            p = chess.Piece(chess.Piece.from_symbol(promo).piece_type, p.color)
        b.set_piece_at(chess.parse_square(to), p)
        if rook:
            r = b.piece_at(chess.parse_square(rook[:2]))
            b.remove_piece_at(chess.parse_square(rook[:2]))
            b.set_piece_at(chess.parse_square(rook[2:]), r)
        b.turn = not b.turn
        b.clear_stack()

    def move(self, by, uci, e, name):
        b = self.board
        snap = b.copy(stack=False)
        b.turn = chess.WHITE if by == "white" else chess.BLACK
        if e.get("_nochk"):
            self.place(uci[:2], uci[2:4], uci[4:] or None, e.get("_rook"))
            legal = not e.get("_illegal")
        else:
            m = chess.Move.from_uci(uci)
            legal = m in b.legal_moves
            want = not e.get("_illegal")
            assert legal == want, f"{name}: {by} {uci} legal={legal}, scenario says {want} in {b.fen()}"
            if legal:
                b.push(m)
                b.clear_stack()
            else:
                self.place(uci[:2], uci[2:4], uci[4:] or None, e.get("_rook"))
        self.pending = (snap, legal)

    def pressed(self):
        if self.pending:
            self.snap_before_last_completed = self.pending[0]
        self.pending = None

    def retracted(self):
        self.board = self.pending[0]
        self.pending = None

    def reinstate(self):
        self.board = self.snap_before_last_completed.copy(stack=False)

    def fen2(self):
        f = self.board.fen().split()
        return f"{f[0]} {f[1]}"


class Clock:
    """Sudden-death clock per docs/rules.md §1 / docs/arbiter.md 'The clock'."""

    def __init__(self, tc, turn):
        self.kind, self.base, self.d = tc
        self.rem = {"white": self.base, "black": self.base}
        self.turn = turn
        self.running = True
        self.since = 0
        self.delay_left = self.d if self.kind == "us" else 0
        self.used = 0

    def settle(self, at):
        if not self.running:
            self.since = at
            return
        el = at - self.since
        counted = max(0, el - self.delay_left)
        self.rem[self.turn] -= counted
        self.delay_left = max(0, self.delay_left - el)
        self.used += counted
        self.since = at

    def new_turn(self, at, side):
        self.turn = side
        self.running = True
        self.since = at
        self.delay_left = self.d if self.kind == "us" else 0
        self.used = 0

    def press(self, at):
        self.settle(at)
        s = self.turn
        if self.rem[s] > 0:
            if self.kind == "bronstein":
                self.rem[s] += min(self.used, self.d)
            elif self.kind == "inc":
                self.rem[s] += self.d
        self.new_turn(at, other(s))

    def stop(self, at):
        self.settle(at)
        self.running = False

    def resume(self, at):
        if not self.running:
            self.running = True
            self.since = at

    def adjust(self, at, color, ms):
        self.settle(at)
        self.rem[color] += ms


def parse_tc(s):
    s = s.strip().lower()
    if s.startswith("g/"):
        rest = s[2:]
        if ";" in rest:
            base, mod = rest.split(";")
        else:
            base, mod = rest, None
        base = int(float(base) * 60000)
        if not mod or mod in ("d0", "b0", "inc0"):
            return ("none", base, 0)
        if mod.startswith("inc"):
            return ("inc", base, int(float(mod[3:]) * 1000))
        if mod.startswith("d"):
            return ("us", base, int(float(mod[1:]) * 1000))
        if mod.startswith("b"):
            return ("bronstein", base, int(float(mod[1:]) * 1000))
    for sep in "+|":
        if sep in s:
            a, b = s.split(sep)
            inc = int(float(b) * 1000)
            return ("inc" if inc else "none", int(float(a) * 60000), inc)
    raise ValueError(s)


# ---------------------------------------------------------------- writing

COUNTERS = {i: 0 for i in IDS}
WRITTEN = []
STRIP = {"_illegal", "_nochk", "_rook", "_id", "_refused", "_adj", "_turn", "_reinstate",
         "_apply", "_stop", "_resume", "_noboard"}


NOCHECK = " (unchecked)"


def note_nocheck_fen(fen):
    return fen.endswith(NOCHECK)


def clean(e):
    return {k: v for k, v in e.items() if k not in STRIP}


def S(rs, name, setup, events, result, reason, rule, rulings=None, covers=(), clock="auto",
      fen=None, end_at=None, note=None):
    """One scenario. `setup`: extra setup fields. `rulings`: list of (label or event number,
    kind[, rule]) or dicts. `clock`: "auto" (model), None (not given), or (white, black)
    stated by hand (checked against the model unless it cannot apply)."""
    setup = dict(setup)
    setup.setdefault("rules", rs)
    setup.setdefault("time_control", "G/5;d0")
    full = {"rules": setup.pop("rules"), "time_control": setup.pop("time_control")}
    full.update(setup)
    fen0 = full.get("fen", START)
    phys = Physical(fen0) if not full.get("_nochk_board") else None
    full.pop("_nochk_board", None)
    turn0 = "white" if fen0.split()[1] == "w" else "black"
    clk = Clock(parse_tc(full["time_control"]), turn0)
    labels = {}
    final_at = events[-1]["at"] if events else 0
    end_idx = None
    for i, e in enumerate(events, start=1):
        if "_id" in e:
            labels[e["_id"]] = i
    if end_at is not None:
        end_idx = labels[end_at] if isinstance(end_at, str) else end_at
    model_clock = None
    for i, e in enumerate(events, start=1):
        at = e["at"]
        refused = e.get("_refused")
        by = e.get("by")
        if not refused:
            if phys and "move" in e and "claim" not in e and not e.get("_noboard"):
                phys.move(by, e["move"], e, f"{rs}/{name}")
            if phys and e.get("retract"):
                phys.retracted()
            if phys and e.get("_apply"):
                phys.move(by, e["move"], e, f"{rs}/{name}")
            if e.get("press"):
                clk.press(at)
                if phys:
                    phys.pressed()
            if e.get("stop_clock") or e.get("_stop"):
                clk.stop(at)
            if e.get("start_clock") or e.get("_resume"):
                clk.resume(at)
            if "add_time" in e:
                clk.adjust(at, e["add_time"]["color"], e["add_time"]["ms"])
            for c, ms in e.get("_adj", {}).items():
                clk.adjust(at, c, ms)
            if e.get("_reinstate") and phys:
                phys.reinstate()
            if "_turn" in e:
                clk.settle(at)
                clk.new_turn(at, e["_turn"])
        if end_idx == i:
            clk.settle(at)
            model_clock = (clk.rem["white"], clk.rem["black"])
            break
    if model_clock is None:
        clk.settle(final_at)
        model_clock = (clk.rem["white"], clk.rem["black"])
    exp = {"covers": list(covers), "result": result, "reason": reason, "rule": rule}
    if clock == "auto":
        exp["clock"] = {"white_ms": model_clock[0], "black_ms": model_clock[1]}
    elif clock is not None:
        if isinstance(clock, tuple) and len(clock) == 3 and clock[2] == "nocheck":
            clock = clock[:2]
        else:
            assert tuple(clock) == model_clock, f"{rs}/{name}: hand clock {clock} != model {model_clock}"
        exp["clock"] = {"white_ms": clock[0], "black_ms": clock[1]}
    if fen == "auto":
        exp["fen"] = phys.fen2()
    elif fen:
        if phys is not None and not note_nocheck_fen(fen):
            assert fen.split()[:2] == phys.fen2().split()[:2], f"{rs}/{name}: hand fen {fen} != board {phys.fen2()}"
        exp["fen"] = fen.removesuffix(NOCHECK)
    if rulings is not None:
        out = []
        for r in rulings:
            if isinstance(r, dict):
                out.append(r)
                continue
            ref = r[0]
            n = labels[ref] if isinstance(ref, str) else ref
            assert 1 <= n <= len(events), f"{rs}/{name}: ruling event {n}"
            d = {"event": n, "kind": r[1]}
            if len(r) > 2 and r[2] is not None:
                d["rule"] = r[2]
            out.append(d)
        exp["rulings"] = out
    if note:
        exp["note"] = note
    write(rs, name, [full] + [clean(e) for e in events], exp)


def write(rs, name, objs, exp, error=False, raw_lines=None):
    COUNTERS[rs] += 1
    base = f"{COUNTERS[rs]:03d}-{name}"
    d = os.path.join(HERE, rs)
    os.makedirs(d, exist_ok=True)
    script = os.path.join(d, base + (".error.jsonl" if error else ".jsonl"))
    with open(script, "w") as f:
        if raw_lines is not None:
            f.write("\n".join(raw_lines) + "\n")
        else:
            for o in objs:
                f.write(json.dumps(o) + "\n")
    with open(os.path.join(d, base + ".expected.json"), "w") as f:
        json.dump(exp, f, indent=1)
        f.write("\n")
    WRITTEN.append((rs, base, exp.get("covers", [])))


def E(rs, name, lines, error_line, error_field, covers):
    """A script error case: `lines` are raw file lines (strings or objects)."""
    raw = [l if isinstance(l, str) else json.dumps(l) for l in lines]
    exp = {"covers": list(covers), "error_line": error_line}
    if error_field is not None:
        exp["error_field"] = error_field
    write(rs, name, None, exp, error=True, raw_lines=raw)


def reset():
    for rs in IDS:
        d = os.path.join(HERE, rs)
        if os.path.isdir(d):
            shutil.rmtree(d)
