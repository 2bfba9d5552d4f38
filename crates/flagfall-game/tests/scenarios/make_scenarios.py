#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The scenario definitions. Run `python3 make_scenarios.py` to rewrite the suite.

Conventions: `at` values are whole seconds (1000 ms steps) unless a scenario is about a
finer point; `seq()` plays one move with press every second, White first. Every
expectation names where it comes from in `covers`. `U C I F B` below are the rulesets
uscf-2020, uscf-classic, club-ilc, fide-b3, blitz-2006.
"""

from gen_scenarios import (  # noqa: F401
    IDS, MIN, START, S, E, accept, add_time, cite, claim, decline, dresult, end, mv,
    offence, offer, press, reset, resign, retract, ruling, seq, start, stop, COUNTERS,
    WRITTEN,
)
from gen_scenarios import RS as RSDATA

U, C, I, F, B = IDS
LOSS = [U, C, I, B]  # rulesets where a claimed illegal move loses (illegal.first = loss)
ALL = IDS

reset()

# ============================================================ §1 time controls

ACCEPTED = {
    U: ["G/5", "G/5;d0", "5|0", "G/10", "G/2"],
    C: ["G/5;d0", "G/5;d3"],
    I: ["G/5", "G/5;d3"],
    F: ["G/5", "3+2", "G/3;inc2"],
    B: ["G/5", "5|0"],
}
REJECTED = {
    U: ["G/15", "G/8;d5", "G/0.5"],
    C: ["G/11", "G/10;d2"],
    I: ["G/12"],
    F: ["5+6", "G/11"],
    B: ["G/5;d3", "3+2", "G/3", "G/5;b2"],
}
for rs in ALL:
    for tc in ACCEPTED[rs]:
        # White presses at 2 s, Black at 10 s, White at 11 s; the record ends at 20 s.
        events = [mv(2000, "white", "e2e4"), mv(10000, "black", "e7e5"),
                  mv(11000, "white", "g1f3"), end(20000)]
        S(rs, "tc-accepted-" + tc.replace("/", "").replace(";", "-").replace("|", "bar").replace("+", "plus").replace(".", "_"),
          {"time_control": tc}, events, "*", None, None, rulings=[],
          covers=[f"RULES §1 notation {tc} accepted by {rs} ({cite(rs, 'time.policy_rule')})",
                  "clock arithmetic by the notation's delay kind; the game goes on at `end`"],
          fen="auto")
    for tc in REJECTED[rs]:
        E(rs, "tc-rejected-" + tc.replace("/", "").replace(";", "-").replace("+", "plus").replace(".", "_"),
          [{"rules": rs, "time_control": tc}, {"at": 1000, "by": "white", "move": "e2e4", "press": True}],
          1, "time_control",
          [f"RULES §1: {tc} is forbidden by {rs} ({cite(rs, 'time.policy_rule')})",
           "a setup with a forbidden time control is a script error on line 1, field time_control"])

# Delay arithmetic, stated by hand (docs/rules.md §1):
S(U, "us-delay-d3", {"time_control": "G/5;d3"},
  [mv(2000, "white", "e2e4"), mv(10000, "black", "e7e5"), mv(11000, "white", "g1f3"), end(20000)],
  "*", None, None, rulings=[], clock=(300000, 289000),
  covers=["RULES §1 US delay: the clock waits 3 s each turn before counting",
          "W 0-2s within delay: 300000; B 2-10s: 8000-3000=5000 used; W 10-11s within delay; B 11-20s running: 9000-3000=6000; B 300000-5000-6000=289000"])
S(U, "bronstein-b3", {"time_control": "G/5;b3"},
  [mv(2000, "white", "e2e4"), mv(10000, "black", "e7e5"), mv(11000, "white", "g1f3"), end(20000)],
  "*", None, None, rulings=[], clock=(300000, 286000),
  covers=["RULES §1 Bronstein: time used is given back on the press, up to 3 s",
          "W used 2000 given back 2000; B used 8000 given back 3000 -> 295000; W used 1000 back 1000; B running since 11s, 9000 used, nothing given back yet: 286000"])
S(U, "increment-g3-inc2", {"time_control": "G/3;inc2"},
  [mv(2000, "white", "e2e4"), mv(10000, "black", "e7e5"), mv(11000, "white", "g1f3"), end(20000)],
  "*", None, None, rulings=[], clock=(181000, 165000),
  covers=["RULES §1 increment: 2 s added after each completed move; G/3;inc2 is rated blitz (uscf-2020 rating)",
          "W 180000-2000+2000=180000, then -1000+2000=181000; B 180000-8000+2000=174000, running 9000: 165000"])
S(U, "increment-3plus2", {"time_control": "3+2"},
  [mv(2000, "white", "e2e4"), mv(10000, "black", "e7e5"), mv(11000, "white", "g1f3"), end(20000)],
  "*", None, None, rulings=[], clock=(181000, 165000),
  covers=["RULES §1 notation 3+2 = G/3;inc2", "same arithmetic as G/3;inc2"])
S(F, "increment-3plus2-flag-auto", {"time_control": "3+2"},
  [mv(2000, "white", "e2e4"), end(200000)],
  "1-0", "time_forfeit", cite(F, "flags.auto_flag_rule"),
  rulings=[(2, "result", cite(F, "flags.auto_flag_rule"))], clock=(180000, 0, "nocheck"),
  covers=["RULES §1 increment; fide-b3 A.5.5 automatic flagging (default on)",
          "W 180000-2000+2000=180000; B's clock runs from 2 s with 180000: flag falls at 182000 < end 200000; the loser's time shows 0"])
S(C, "us-delay-stop-start", {"time_control": "G/5;d3"},
  [mv(1000, "white", "e2e4"), stop(2000), start(12000), mv(15000, "black", "e7e5"), end(16000)],
  "*", None, None,
  rulings=[(2, "clock", cite(C, "director.rule")), (3, "clock", cite(C, "director.rule"))],
  clock=(300000, 299000),
  covers=["RULES §5 director stop/start; docs/arbiter.md: a pause keeps the turn and the delay left",
          "B's turn from 1 s: 1000 of the 3000 delay used before the stop at 2 s; resumed at 12 s with 2000 delay left; press at 15 s: 3000-2000=1000 counted: 299000; W's turn from 15 s, 1 s inside its delay"])
S(B, "stop-start-no-delay", {},
  [mv(1000, "white", "e2e4"), stop(5000), start(65000), mv(70000, "black", "e7e5")],
  "*", None, None,
  rulings=[(2, "clock", cite(B, "director.rule")), (3, "clock", cite(B, "director.rule"))],
  clock=(299000, 291000),
  covers=["RULES §5 director stop/start (blitz-2006 10)", "B ran 1-5 s and 65-70 s: 9000 used"])

# Below zero after a flag; no automatic flagging in the US-based rulesets (uscf-2020 2a, 13).
for rs in [U, C, I, B]:
    S(rs, "flag-down-clock-runs-on", {},
      [mv(1000, "white", "e2e4"), end(400000)],
      "*", None, None, rulings=[], clock=(299000, -99000),
      covers=["RULES §1: after a flag falls the clock keeps running (uscf-2020 2a); nothing ends by itself",
              f"{rs}: auto_flag off by default ({cite(rs, 'flags.flag_rule')}: only players call flag)",
              "B 300000 - (400000-1000) = -99000"])
S(F, "flag-auto-default", {},
  [mv(1000, "white", "e2e4"), end(400000)],
  "1-0", "time_forfeit", cite(F, "flags.auto_flag_rule"),
  rulings=[(2, "result", cite(F, "flags.auto_flag_rule"))], clock=(299000, 0, "nocheck"),
  covers=["RULES §1/§3: fide-b3 A.5.5 the arbiter calls the flag: auto_flag default true",
          "B's flag fell at 301000; the game ends then, B shows 0, W 299000"])
S(U, "flag-auto-enabled", {"auto_flag": True},
  [mv(1000, "white", "e2e4"), end(400000)],
  "1-0", "time_forfeit", cite(U, "flags.auto_flag_rule"),
  rulings=[(2, "result", cite(U, "flags.auto_flag_rule"))], clock=(299000, 0, "nocheck"),
  covers=["RULES §1: automatic flagging set up in a US ruleset (online convenience)", "uscf-2020 7c"])
S(B, "flag-auto-enabled", {"auto_flag": True},
  [mv(1000, "white", "e2e4"), mv(2000, "black", "e7e5"), end(400000)],
  "0-1", "time_forfeit", cite(B, "flags.auto_flag_rule"),
  rulings=[(3, "result", cite(B, "flags.auto_flag_rule"))], clock=(0, 299000, "nocheck"),
  covers=["RULES §3 automatic flagging, blitz-2006 7a3", "W's clock from 2 s with 299000: fell at 301000"])
S(F, "flag-auto-then-move-refused", {},
  [mv(1000, "white", "e2e4"), mv(302000, "black", "e7e5", _refused=True)],
  "1-0", "time_forfeit", cite(F, "flags.auto_flag_rule"),
  rulings=[(2, "result", cite(F, "flags.auto_flag_rule")), (2, "refused")],
  clock=(299000, 0, "nocheck"), fen="rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b",
  covers=["docs/arbiter.md automatic flagging: before each event the arbiter checks the running side's flag",
          "B's flag fell at 301000, before B's move at 302000: the game ended then; the move is a move after the game ended, refused"],
  note="interpretation: the flag ruling is attached to the event that revealed it, and that event is then refused")
S(F, "flag-auto-opponent-no-material", {"fen": "8/8/8/4k3/8/8/3q4/7K b - - 0 1"},
  [end(301000)],
  "1/2-1/2", "insufficient_material", cite(F, "flags.no_material_rule"),
  rulings=[(1, "result", cite(F, "flags.no_material_rule"))], clock=(300000, 0, "nocheck"),
  covers=["RULES §3 automatic flagging: a draw if the opponent cannot mate (fide-b3 A.5.3)",
          "B (K+Q) flag falls at 300000; W has a lone king"])

# Director add_time: the set-up window (uscf 1 move each, fide 10 moves each).
for rs in [U, C, I, B]:
    S(rs, "add-time-in-setup-window", {},
      [mv(1000, "white", "e2e4"), add_time(2000, "black", -MIN, "correction"), mv(3000, "black", "e7e5")],
      "*", None, None, rulings=[(2, "time_change", cite(rs, "time.setup_rule"))],
      covers=[f"RULES §1: before each side completed one move the director may correct the clock ({cite(rs, 'time.setup_rule')})",
              "B 300000 - 1000 - 60000 - 1000 = 238000"], clock=(299000, 238000))
    S(rs, "add-time-after-setup-refused", {},
      [mv(1000, "white", "e2e4"), mv(2000, "black", "e7e5"), add_time(3000, "white", MIN, "correction", _refused=True)],
      "*", None, None, rulings=[(3, "refused", cite(rs, "time.setup_rule"))],
      covers=[f"RULES §1.5: after each side completed a move the clock setting stays as set: a correction is refused ({cite(rs, 'time.setup_rule')})",
              "adding time is never an excess reduction"], clock=(298000, 299000))
RUY10 = "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8g8 h2h3 c6b8 d2d4 b8d7"
ruy = RUY10.split()
S(F, "add-time-after-9-moves", {},
  seq(" ".join(ruy[:18])) + [add_time(18500, "black", 30000, "correction")],
  "*", None, None, rulings=[(19, "time_change", cite(F, "time.setup_rule"))],
  clock=(290500, 321000), fen="auto",
  covers=["fide-b3 A.5.1.1: the clock setting may change until 10 moves each are completed",
          "9 moves each, one press a second: each side used 9000; W's clock runs from 18000: at 18500 W 290500; B 291000+30000"])
S(F, "add-time-after-10-moves-refused", {},
  seq(RUY10) + [add_time(20500, "black", 30000, "correction", _refused=True)],
  "*", None, None, rulings=[(21, "refused", cite(F, "time.setup_rule"))],
  clock=(289500, 290000), fen="auto",
  covers=["fide-b3 A.5.1.1: once 10 moves each are completed no correction of the clock setting",
          "each side used 10000; W's clock runs from 20000: at 20500 W 289500"])
# Excess reduction after the window (uscf-classic 3, blitz-2006 3): White's clock was set
# a minute too high before play; after the first moves the director takes the excess away.
for rs in [C, B, U]:
    allowed = rs != U
    evs = [add_time(500, "white", MIN, "correction"), mv(1000, "white", "e2e4"), mv(2000, "black", "e7e5"),
           mv(3000, "white", "g1f3"), add_time(3500, "white", -58000, "correction", _refused=not allowed)]
    S(rs, "reduce-excess-after-setup" if allowed else "reduce-excess-refused", {}, evs, "*", None, None,
      rulings=[(1, "time_change", cite(rs, "time.setup_rule")),
               (5, "time_change" if allowed else "refused", cite(rs, "time.setup_rule"))],
      clock=(300000, 298500) if allowed else (358000, 298500),
      covers=["RULES §1: the director may correct the clock before each side has completed a move",
              (f"{cite(rs, 'time.setup_rule')}: after that, time beyond the control may still be taken away"
               if allowed else "uscf-2020 3: no excess reduction after the first moves (reduce_excess_after_setup false)"),
              "W 300000+60000-1000-1000=358000; removing the 58000 excess leaves 300000; B 300000-1000-500=298500"])
S(C, "add-time-positive-after-setup-refused", {},
  [mv(1000, "white", "e2e4"), mv(2000, "black", "e7e5"), add_time(2500, "black", MIN, "correction", _refused=True)],
  "*", None, None, rulings=[(3, "refused", cite(C, "time.setup_rule"))], clock=(298500, 299000),
  covers=["uscf-classic 3: after the first moves only excess time may be taken away; adding is refused",
          "W pressed at 1000 (299000) and runs again 2000-2500: 298500; B 299000"])

# ============================================================ §2 illegal moves

# Each kind: (name, start fen, legal prefix, the illegal move, extra annotations, a legal
# move of the same piece for the fide-b3 touch-move follow-up, description).
KINDS = [
    ("wrong-movement", START, "e2e4 e7e5", "f1e3", {},
     "f1c4", "a bishop moved like a knight (1.e4 e5 2.Bf1-e3)"),
    ("king-left-in-check", START, "e2e4 e7e5 d2d4 f8b4", "g1f3", {},
     "c2c3", "own king left in check (1.e4 e5 2.d4 Bb4+ 3.Nf3); the knight has no legal move, so any legal move may follow"),
    ("king-put-in-check", START, "e2e4 e7e5 e1e2 d8g5", "e2e3", {},
     "e2e1", "own king put in check (1.e4 e5 2.Ke2 Qg5 3.Ke3 walks onto the queen's diagonal)"),
    ("castling-through-check", "4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1", "", "e1g1", {"_rook": "h1f1"},
     "e1c1", "castling short through f1, attacked by the rook on f8"),
    ("king-next-to-king", "8/7p/8/3k4/8/3K4/P7/8 w - - 0 1", "", "d3d4", {},
     "d3c3", "the king moved next to the other king (Kd3-d4 v Kd5)"),
    ("pawn-not-promoted", "r7/4P3/8/8/8/8/k7/6K1 w - - 0 1", "", "e7e8", {},
     "e7e8q", "a pawn moved to the last rank and left unpromoted (e7-e8, no piece chosen)"),
]


def kind_events(k, t0=0):
    name, fen, pre, bad, ann, follow, desc = k
    evs = seq(pre, t0)
    t = t0 + 1000 * (len(evs) + 1)
    evs.append(mv(t, "white", bad, _illegal=True, _id="illegal", **ann))
    return evs, t, fen


for k in KINDS:
    name, fen, pre, bad, ann, follow, desc = k
    setup = {} if fen == START else {"fen": fen}
    for rs in LOSS:
        if name == "pawn-not-promoted" and rs == B:
            continue  # blitz-2006 17: see COVERAGE.md (not a claimable loss there)
        evs, t, _ = kind_events(k)
        evs.append(claim(t + 1000, "black", "illegal", _id="claim"))
        S(rs, f"illegal-{name}-claimed", setup, evs, "0-1", "illegal_move", cite(rs, "illegal.rule"),
          rulings=[("claim", "result", cite(rs, "illegal.rule"))],
          fen=None if name == "castling-through-check" else "auto",
          covers=[f"RULES §2 illegal move kind: {desc}",
                  f"first completed illegal move, claimed by stopping the clock: claimant wins ({cite(rs, 'illegal.rule')})"])
    # fide-b3: first illegal move: +1 minute to the claimant, position reinstated,
    # the offender moves again (with the same piece if it has a legal move).
    evs, t, _ = kind_events(k)
    evs.append(claim(t + 1000, "black", "illegal", _id="claim", _adj={"black": MIN}, _turn="white",
                     _reinstate=True))
    evs.append(mv(t + 2000, "white", follow))
    S(F, f"illegal-{name}-first-minute", setup, evs, "*", None, None,
      rulings=[("claim", "claim_upheld", cite(F, "illegal.rule"))], fen="auto",
      covers=[f"RULES §2 illegal move kind: {desc}",
              "fide-b3 A.3 (Art. 7): first illegal move: one minute to the claimant, the position before it reinstated, the offender's clock runs",
              "the claimant's clock ran from the illegal press to the claim; +60000 at the claim"])

# Claims by taking the king (uscf-2020 7d, uscf-classic 2, club-ilc 3, blitz-2006 7a4).
for rs in LOSS:
    k = KINDS[1]
    evs, t, _ = kind_events(k)
    evs.append(mv(t + 1000, "black", "b4e1", press=False, _id="take", _noboard=True))
    S(rs, "take-king-with-bishop", {}, evs, "0-1", "illegal_move", cite(rs, "illegal.rule"),
      rulings=[("take", "result", cite(rs, "illegal.rule"))],
      covers=["RULES §2: a claim may be made by taking the king left in check",
              f"{cite(rs, 'illegal.rule')}: the capture of the king is the claim (no press needed)"])
for rs in [U, C, I]:
    k = KINDS[4]
    evs, t, fen = kind_events(k)
    evs.append(mv(t + 1000, "black", "d5d4", press=False, _id="take", _noboard=True))
    S(rs, "king-takes-king", {"fen": fen}, evs, "0-1", "illegal_move", cite(rs, "illegal.rule"),
      rulings=[("take", "result", cite(rs, "illegal.rule"))],
      covers=["RULES §2: claim by taking the king; here king takes king, allowed (illegal.king_may_capture_king)",
              cite(rs, "illegal.rule")])
k = KINDS[4]
evs, t, fen = kind_events(k)
evs.append(mv(t + 1000, "black", "d5d4", press=False, _refused=True, _id="kxk"))
evs.append(claim(t + 2000, "black", "illegal", _id="claim"))
S(B, "king-takes-king-refused-then-claim", {"fen": fen}, evs, "0-1", "illegal_move", cite(B, "illegal.rule"),
  rulings=[("kxk", "refused", "blitz-2006 16"), ("claim", "result", cite(B, "illegal.rule"))],
  fen="8/7p/8/3k4/3K4/8/P7/8 b",
  covers=["blitz-2006 16: neither player may play king takes king: the capture is refused",
          "the claim is then made by stopping the clock: blitz-2006 7a4"])
k = KINDS[1]
evs, t, _ = kind_events(k)
evs.append(mv(t + 1000, "black", "g8e1", press=False, _refused=True, _id="badtake"))
evs.append(claim(t + 2000, "black", "illegal", _id="claim"))
S(U, "take-king-impossible-piece-refused", {}, evs, "0-1", "illegal_move", cite(U, "illegal.rule"),
  rulings=[("badtake", "refused"), ("claim", "result", cite(U, "illegal.rule"))],
  covers=["docs/arbiter.md: a capture of the king by a piece that cannot move that way is refused (Ng8 cannot reach e1)",
          "the claim by stopping the clock still wins: uscf-2020 7d"])
# Claim windows: own_move_made (uscf-2020 3b/7d, fide-b3 A.5.2) v own_move_completed
# (uscf-classic 2, club-ilc 3, blitz-2006 14): the claimant makes a move, then claims
# before pressing.
for rs in ALL:
    k = KINDS[0]
    evs, t, _ = kind_events(k)
    window = RSDATA[rs]["illegal"]["window"]
    evs.append(mv(t + 1000, "black", "g8f6", press=False, _id="own"))
    if window == "own_move_made":
        evs.append(claim(t + 2000, "black", "illegal", _refused=True, _id="claim"))
        evs.append(press(t + 3000, "black"))
        S(rs, "claim-after-own-move-made-refused", {}, evs, "*", None, None,
          rulings=[("claim", "refused", cite(rs, "illegal.window_rule"))], fen="auto",
          covers=["RULES §2 claim window own_move_made: the claim must come before the claimant makes a move",
                  f"{cite(rs, 'illegal.window_rule')}: refused, the position stands and play continues"])
    else:
        evs.append(claim(t + 2000, "black", "illegal", _id="claim"))
        S(rs, "claim-after-own-move-made-upheld", {}, evs, "0-1", "illegal_move", cite(rs, "illegal.rule"),
          rulings=[("claim", "result", cite(rs, "illegal.rule"))],
          covers=["RULES §2 claim window own_move_completed: a move made but not pressed does not close it",
                  f"{cite(rs, 'illegal.window_rule')}; claimant wins {cite(rs, 'illegal.rule')}"])
    # After completing the own move: closed everywhere.
    evs, t, _ = kind_events(k)
    evs.append(mv(t + 1000, "black", "g8f6"))
    evs.append(claim(t + 2000, "black", "illegal", _refused=True, _id="claim"))
    S(rs, "claim-after-own-move-completed-refused", {}, evs, "*", None, None,
      rulings=[("claim", "refused", cite(rs, "illegal.window_rule"))], fen="auto",
      covers=["RULES §2: after the claimant completed a move the illegal move stands (uscf-2020 3b, blitz-2006 14)",
              f"refused: {cite(rs, 'illegal.window_rule')}"])

# Retraction and touch move (docs/rules.md §2).
for rs in ALL:
    touch = RSDATA[rs]["moves"]["touch_move"]
    evs = seq("e2e4 e7e5") + [mv(3000, "white", "f1e3", press=False, _illegal=True),
                              retract(3500, "white")]
    if touch:
        evs += [mv(4000, "white", "g1f3", press=False, _refused=True, _id="other"),
                mv(5000, "white", "f1c4")]
        S(rs, "retract-illegal-then-touch-move", {}, evs, "*", None, None,
          rulings=[("other", "refused", cite(rs, "moves.touch_move_rule"))], fen="auto",
          covers=["RULES §2: an illegal move may be retracted before the press",
                  f"touch move after the retraction: another piece is refused while the touched bishop has a legal move ({cite(rs, 'moves.touch_move_rule')})"])
    else:
        evs += [mv(5000, "white", "g1f3")]
        S(rs, "retract-illegal-any-move-after", {}, evs, "*", None, None, rulings=[], fen="auto",
          covers=["RULES §2 / blitz-2006 15: any move may be taken back before the press; touch move does not apply",
                  "after retracting the illegal bishop move White plays the knight"])
    # A legal move retracted.
    evs = [mv(1000, "white", "e2e4", press=False)]
    if RSDATA[rs]["moves"]["retract_legal"]:
        evs += [retract(1500, "white"), mv(2000, "white", "d2d4")]
        S(rs, "retract-legal-allowed", {}, evs, "*", None, None, rulings=[], fen="auto",
          covers=[f"{cite(rs, 'moves.retract_rule')}: a move is completed only by the press; a legal move may be taken back"])
    else:
        evs += [retract(1500, "white", _refused=True, _id="retract"), press(2000, "white")]
        S(rs, "retract-legal-refused", {}, evs, "*", None, None,
          rulings=[("retract", "refused", cite(rs, "moves.retract_rule"))], fen="auto",
          covers=[f"RULES §2: a legal move cannot be retracted once made ({cite(rs, 'moves.retract_rule')})",
                  "the press then completes e4"])
# Touch move when the touched piece has no legal move: any legal move may follow.
S(U, "retract-illegal-piece-without-moves", {},
  seq("e2e4 e7e5") + [mv(3000, "white", "a1a3", press=False, _illegal=True), retract(3500, "white"),
                      mv(4000, "white", "g1f3")],
  "*", None, None, rulings=[], fen="auto",
  covers=["uscf-2020 14: the illegal move is retracted; the rook a1 has no legal move, so any legal move may be made"])

# fide-b3: second illegal move by the same player loses (A.3); touch move after the
# reinstatement; the arbiter calling the illegal move (A.5.2).
evs = seq("e2e4 e7e5") + [
    mv(3000, "white", "f1e3", _illegal=True),
    claim(4000, "black", "illegal", _id="c1", _adj={"black": MIN}, _turn="white", _reinstate=True),
    mv(5000, "white", "f1c4"), mv(6000, "black", "g8f6"),
    mv(7000, "white", "d1d3", _illegal=True),
    claim(8000, "black", "illegal", _id="c2")]
S(F, "illegal-second-loses", {}, evs, "0-1", "illegal_move", cite(F, "illegal.rule"),
  rulings=[("c1", "claim_upheld", cite(F, "illegal.rule")), ("c2", "result", cite(F, "illegal.rule"))],
  clock=(296000, 356000), fen="rnbqkb1r/pppp1ppp/5n2/4p3/2B1P3/3Q4/PPPP1PPP/RNB1K1NR b",
  covers=["RULES §2 fide-b3 A.3: the second illegal move by the same player, claimed, loses",
          "first: Bf1-e3 (like a knight) +1 min to Black and reinstated; second: Qd1-d3 through the d2 pawn",
          "W used 4x1000; B used 4x1000 and got 60000"])
evs = [mv(1000, "white", "d1f2", _illegal=True),
       claim(2000, "black", "illegal", _id="c1", _adj={"black": MIN}, _turn="white", _reinstate=True),
       mv(3000, "white", "d1d3"), mv(4000, "black", "h8g8"),
       mv(5000, "white", "d3f4", _illegal=True),
       claim(6000, "black", "illegal", _id="c2")]
S(F, "illegal-second-bare-king-draw", {"fen": "7k/8/8/8/8/8/PPP5/1K1Q4 w - - 0 1"}, evs,
  "1/2-1/2", "insufficient_material", cite(F, "illegal.no_material_rule"),
  rulings=[("c1", "claim_upheld", cite(F, "illegal.rule")), ("c2", "result", cite(F, "illegal.no_material_rule"))],
  clock=(297000, 357000),
  covers=["RULES §2 fide-b3 A.3: the second illegal move; the claimant (bare king) cannot mate by any series of legal moves: draw",
          "the first illegal move is penalised (+1 min) even though the claimant has a bare king"])
evs = seq("e2e4 e7e5") + [
    mv(3000, "white", "f1e3", _illegal=True),
    claim(4000, "black", "illegal", _id="c1", _adj={"black": MIN}, _turn="white", _reinstate=True),
    mv(5000, "white", "g1f3", _refused=True, _id="other"), mv(6000, "white", "f1b5")]
S(F, "touch-move-after-reinstatement", {}, evs, "*", None, None,
  rulings=[("c1", "claim_upheld", cite(F, "illegal.rule")), ("other", "refused", cite(F, "moves.touch_move_rule"))],
  fen="auto",
  covers=["fide-b3 A.3 / Art. 7: after the reinstatement the offender must move the same piece if it can",
          f"another piece is refused ({cite(F, 'moves.touch_move_rule')})"])
evs = seq("e2e4 e7e5") + [
    mv(3000, "white", "f1e3", _illegal=True, _id="ill", _adj={"black": MIN}, _turn="white", _reinstate=True),
    mv(4000, "white", "f1c4")]
S(F, "arbiter-calls-illegal", {"arbiter_calls_illegal": True}, evs, "*", None, None,
  rulings=[("ill", "claim_upheld", cite(F, "illegal.rule"))], clock=(297000, 359000), fen="auto",
  covers=["RULES §2 fide-b3 A.5.2: the program as arbiter intervenes at the press of the illegal move",
          "as if Black claimed at 3000: +1 min to Black, position reinstated, White's clock runs on from 3000"])
evs = seq("e2e4 e7e5") + [
    mv(3000, "white", "f1e3", _illegal=True, _id="ill"), mv(4000, "black", "g8f6"),
    mv(5000, "white", "e3f4")]
S(F, "illegal-unclaimed-stands", {}, evs, "*", None, None, rulings=[], fen="auto",
  covers=["fide-b3 A.5.2: no claim and no intervention (arbiter_calls_illegal off by default): once the opponent has moved the illegal move stands and play continues"])

# uscf-classic posted variation: an illegal move does not lose, +1 minute, every time.
for variation in ["illegal_move_one_minute", ["illegal_move_one_minute"]]:
    evs = seq("e2e4 e7e5") + [
        mv(3000, "white", "f1e3", _illegal=True),
        claim(4000, "black", "illegal", _id="c1", _adj={"black": MIN}, _turn="white", _reinstate=True),
        mv(5000, "white", "f1c4"), mv(6000, "black", "g8f6"),
        mv(7000, "white", "d1d3", _illegal=True),
        claim(8000, "black", "illegal", _id="c2", _adj={"black": MIN}, _turn="white", _reinstate=True)]
    vrule = cite(C, "illegal.rule", "illegal_move_one_minute")
    S(C, "variation-illegal-one-minute" + ("-list" if isinstance(variation, list) else ""),
      {"variation": variation}, evs, "*", None, None,
      rulings=[("c1", "claim_upheld", vrule), ("c2", "claim_upheld", vrule)],
      clock=(296000, 416000), fen="auto",
      covers=["RULES §2 uscf-classic posted variation: an illegal move does not lose; one minute to the opponent, first and later",
              "the variation may be given as a string or a list (docs/arbiter.md)",
              "W used 4000; B used 4000 and got 2x60000; position before Qd1-d3 reinstated, White to move"])

# Claimant without mating material: a draw (uscf-2020 8d, uscf-classic 4a, club-ilc 4.1, blitz-2006 8f).
for i, rs in enumerate(LOSS):
    fen = "7k/8/8/8/8/8/PPP5/1K1Q4 w - - 0 1" if i % 2 == 0 else "7k/8/8/8/8/8/PPP5/1K1Q3b w - - 0 1"
    who = "a bare king" if i % 2 == 0 else "king and bishop (a lone minor piece)"
    evs = [mv(1000, "white", "d1f2", _illegal=True), claim(2000, "black", "illegal", _id="claim")]
    S(rs, "illegal-claimant-no-material", {"fen": fen}, evs, "1/2-1/2", "insufficient_material",
      cite(rs, "illegal.no_material_rule"),
      rulings=[("claim", "result", cite(rs, "illegal.no_material_rule"))], fen="auto",
      covers=[f"RULES §2: a correct illegal-move claim by a player with {who}: drawn ({cite(rs, 'illegal.no_material_rule')})",
              "mating material, US count: two minor pieces, a pawn, a rook or a queen"])

# King-adjacent trap (uscf-2020 7d, uscf-classic 2b); club-ilc and blitz-2006 have no such rule.
for rs in [U, C, I, B]:
    trap = RSDATA[rs]["illegal"]["king_adjacent_trap"]
    evs = [mv(1000, "white", "d3d4", _illegal=True), mv(2000, "black", "h7h6", _illegal=True),
           claim(3000, "white", "illegal", _id="claim")]
    if trap:
        S(rs, "king-adjacent-trap", {"fen": "8/7p/8/3k4/8/3K4/P7/8 w - - 0 1"}, evs,
          "0-1", "illegal_move", cite(rs, "illegal.king_adjacent_trap_rule"),
          rulings=[("claim", "result", cite(rs, "illegal.king_adjacent_trap_rule"))], fen="auto",
          covers=["RULES §2 king-adjacent trap: White put his king next to Black's and claims Black's failure to notice the check",
                  f"the claimant loses ({cite(rs, 'illegal.king_adjacent_trap_rule')})",
                  "Black's window on White's move closed when Black moved"])
    else:
        S(rs, "king-adjacent-no-trap-rule", {"fen": "8/7p/8/3k4/8/3K4/P7/8 w - - 0 1"}, evs,
          "1-0", "illegal_move", cite(rs, "illegal.rule"),
          rulings=[("claim", "result", cite(rs, "illegal.rule"))], fen="auto",
          covers=[f"{rs} has no king-adjacent trap (illegal.king_adjacent_trap = false)",
                  "Black's h6 left his king attacked by the adjacent king: White's claim is upheld",
                  cite(rs, "illegal.rule")])

# Simultaneity (uscf-2020 7e, uscf-classic 2a, club-ilc 3.2, blitz-2006 7a5).
# White 1.e4 at 1 s; Black thinks to 290 s (11000 left); White's illegal Bf1-e3 pressed at
# 291 s; Black's flag falls at 302 s.
SIM = [mv(1000, "white", "e2e4"), mv(290000, "black", "e7e5"), mv(291000, "white", "f1e3", _illegal=True)]
for rs in [U, C, I, B]:
    evs = SIM + [claim(303000, "white", "flag"), claim(303000, "black", "illegal")]
    S(rs, "simultaneous-claims-same-ms", {}, evs, "0-1", "illegal_move", cite(rs, "illegal.simultaneous_rule"),
      clock=(298000, -1000),
      covers=["RULES §2 simultaneity: the illegal mover's flag claim and the opponent's illegal-move claim in the same ms",
              f"the player who made the illegal move loses ({cite(rs, 'illegal.simultaneous_rule')})",
              "clock stopped at 303000: W 300000-1000-1000, B 300000-289000-12000"])
for rs in [U, B]:
    evs = SIM + [claim(303000, "white", "flag", _id="flag"), claim(303500, "black", "illegal", _id="ill")]
    S(rs, "simultaneous-within-window", {"simultaneous_ms": 1000}, evs, "0-1", "illegal_move",
      cite(rs, "illegal.simultaneous_rule"), clock=None,
      covers=["RULES §2: claims no further apart than simultaneous_ms (1000) are simultaneous",
              f"the illegal mover loses ({cite(rs, 'illegal.simultaneous_rule')})"])
for rs in [U, C, B]:
    evs = SIM + [claim(303000, "white", "flag", _id="flag"), claim(303500, "black", "illegal", _refused=True, _id="ill")]
    S(rs, "flag-claim-before-illegal-claim", {}, evs, "1-0", "time_forfeit", cite(rs, "flags.flag_rule"),
      rulings=[("flag", "result", cite(rs, "flags.flag_rule")), ("ill", "refused")],
      end_at="flag", clock=(298000, -1000),
      covers=["RULES §2: an illegal move does not negate the right to claim on time if the claim comes first",
              f"{cite(rs, 'illegal.simultaneous_rule')}; 500 ms apart with simultaneous_ms 0: not simultaneous",
              "the flag claim wins; the later illegal claim comes after the game ended: refused"])
for rs in [U, I]:
    evs = SIM + [claim(303000, "black", "illegal", _id="ill"), claim(303500, "white", "flag", _refused=True, _id="flag")]
    S(rs, "illegal-claim-before-flag-claim", {}, evs, "0-1", "illegal_move", cite(rs, "illegal.rule"),
      rulings=[("ill", "result", cite(rs, "illegal.rule")), ("flag", "refused")],
      end_at="ill", clock=(298000, -1000),
      covers=["RULES §2: the illegal-move claim made first is decided first: the claimant wins even with his own flag down",
              cite(rs, "illegal.rule"), "the later flag claim comes after the game ended: refused"])

# ============================================================ §3 flag fall and mating material

NOAUTO = {"auto_flag": False}
for rs in ALL:
    st = NOAUTO if rs == F else {}
    S(rs, "flag-claim-win", st, [mv(1000, "white", "e2e4"), claim(302000, "white", "flag")],
      "1-0", "time_forfeit", cite(rs, "flags.flag_rule"),
      rulings=[(2, "result", cite(rs, "flags.flag_rule"))], clock=(299000, -1000), fen="auto",
      covers=["RULES §3: the opponent's flag is down, the claimant's up, the claimant has mating material",
              f"win on time ({cite(rs, 'flags.flag_rule')}); B 300000-301000=-1000"]
      + (["fide-b3 with auto_flag false: the player's claim (A.5.3)"] if rs == F else []))
    S(rs, "flag-claim-too-early", st,
      [mv(1000, "white", "e2e4"), claim(200000, "white", "flag", _id="c"), mv(201000, "black", "e7e5")],
      "*", None, None, rulings=[("c", "claim_rejected", cite(rs, "flags.flag_rule"))],
      clock=(299000, 100000), fen="auto",
      covers=["docs/arbiter.md: a flag claim when the opponent's flag is up is rejected, no penalty",
              cite(rs, "flags.flag_rule"), "the clock restarts at the claim: B used 200000 in all"])
    S(rs, "own-flag-down-void-then-both-flags", st,
      [mv(1000, "white", "e2e4"), mv(302000, "black", "e7e5"),
       claim(602000, "white", "flag", _id="void"), claim(603000, "black", "both_flags", _id="both")],
      "1/2-1/2", "both_flags", cite(rs, "flags.both_flags_rule"),
      rulings=[("void", "claim_rejected", cite(rs, "flags.void_rule")),
               ("both", "result", cite(rs, "flags.both_flags_rule"))],
      clock=(-2000, -1000), fen="auto",
      covers=["RULES §3: a time claim by a player whose own flag is down is void", cite(rs, "flags.void_rule"),
              "both flags down and no win claimed: draw " + cite(rs, "flags.both_flags_rule"),
              "B fell at 301000 (-1000 at its press at 302000); W ran from 302000 with 299000: fell at 601000, -2000 at 603000"])
    S(rs, "both-flags-claim-rejected", st,
      [mv(1000, "white", "e2e4"), claim(2000, "black", "both_flags", _id="c"), mv(3000, "black", "e7e5")],
      "*", None, None, rulings=[("c", "claim_rejected", cite(rs, "flags.both_flags_rule"))],
      clock=(299000, 298000), fen="auto",
      covers=["docs/arbiter.md: a both-flags claim with the flags up is rejected, no penalty",
              cite(rs, "flags.both_flags_rule")])

# K+B v K+P: FIDE a win (a helpmate exists), US a draw (a lone bishop is not mating material).
KBKP = "8/8/8/4k3/8/1p6/8/2B1K3 b - - 0 1"
KNNK = "8/8/8/4k3/8/8/8/1N1NK3 b - - 0 1"
for rs in ALL:
    st = dict(NOAUTO, fen=KBKP) if rs == F else {"fen": KBKP}
    if rs == F:
        S(rs, "flag-kb-v-kp-win", st, [claim(301000, "white", "flag")], "1-0", "time_forfeit",
          cite(rs, "flags.flag_rule"), rulings=[(1, "result", cite(rs, "flags.flag_rule"))],
          clock=(300000, -1000), fen="auto",
          covers=["RULES §3: K+B v K+P is a win on time under fide-b3 A.5.3: a mate exists by a series of legal moves",
                  "e.g. Black promotes to a piece on b1, Ka1, White Kb3 and the bishop on the long diagonal"])
    else:
        S(rs, "flag-kb-v-kp-draw", st, [claim(301000, "white", "flag")], "1/2-1/2", "insufficient_material",
          cite(rs, "flags.no_material_rule"), rulings=[(1, "result", cite(rs, "flags.no_material_rule"))],
          clock=(300000, -1000), fen="auto",
          covers=["RULES §3: a lone bishop is not mating material under the US count (uscf-2020 7c, blitz-2006 7b)",
                  f"the flag claim gives a draw ({cite(rs, 'flags.no_material_rule')})"])
for rs in [U, B, C, F]:
    st = dict(NOAUTO, fen=KNNK) if rs == F else {"fen": KNNK}
    if rs == F:
        S(rs, "flag-knn-v-k-win", st, [claim(301000, "white", "flag")], "1-0", "time_forfeit",
          cite(rs, "flags.flag_rule"), rulings=[(1, "result", cite(rs, "flags.flag_rule"))],
          clock=(300000, -1000),
          covers=["fide-b3 A.5.3: K+N+N v K can be mated with the defender's help (Kh8; Kf7, Ng6, Nf6): a win on time"])
    else:
        S(rs, "flag-knn-v-k-draw", st, [claim(301000, "white", "flag")], "1/2-1/2", "insufficient_material",
          cite(rs, "flags.no_material_rule"), rulings=[(1, "result", cite(rs, "flags.no_material_rule"))],
          clock=(300000, -1000),
          covers=["RULES §3 interpretation: K+N+N v K is not mating material in the US-based rulesets (blitz-2006 7b)",
                  cite(rs, "flags.no_material_rule")])
for rs in [F, U]:
    st = {"fen": "8/8/8/4k3/8/8/3q4/7K b - - 0 1"}
    if rs == F:
        st.update(NOAUTO)
    S(rs, "flag-claimant-bare-king-draw", st, [claim(301000, "white", "flag")], "1/2-1/2",
      "insufficient_material", cite(rs, "flags.no_material_rule"),
      rulings=[(1, "result", cite(rs, "flags.no_material_rule"))], clock=(300000, -1000),
      covers=["RULES §3: the claimant (lone king) cannot mate: the flag claim draws", cite(rs, "flags.no_material_rule")])
LOCKED = "4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1"
S(F, "flag-locked-pawns-draw", dict(NOAUTO, fen=LOCKED), [claim(301000, "black", "flag")],
  "1/2-1/2", "insufficient_material", cite(F, "flags.no_material_rule"),
  rulings=[(1, "result", cite(F, "flags.no_material_rule"))], clock=(-1000, 300000),
  covers=["RULES §3 fide-b3 A.5.3: locked pawn chain, every pawn blocked and no capture ever possible; the kings cannot cross",
          "the claimant (Black, 8 pawns) cannot mate by any series of legal moves: draw",
          "no completed move yet, so the dead-position check has not run"])

# Checkmate after both flags fell, before the claim (uscf-2020 8c, blitz-2006 8c).
for rs in [U, B, I]:
    evs = [mv(1000, "white", "f2f3"), mv(302000, "black", "e7e5"), mv(602000, "white", "g2g4"),
           mv(603000, "black", "d8h4", _id="mate")]
    late = claim(604000, "white", "both_flags" if rs != I else "flag", _refused=True, _id="late")
    S(rs, "mate-after-both-flags", {}, evs + [late], "0-1", "checkmate", cite(rs, "results.checkmate_rule"),
      rulings=[("mate", "result", cite(rs, "results.checkmate_rule")), ("late", "refused")],
      end_at="mate", clock=(-1000, -2000), fen="rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w",
      covers=["RULES §3: both flags down, then a checkmate on the board before anyone points it out: the mate stands",
              cite(rs, "flags.both_flags_rule"), "checkmate nullifies later time claims: the claim after the mate is refused",
              "B -1000 at 302000 and -2000 at 603000; W fell at 601000, -1000 at its press at 602000"])

# ============================================================ §4 draws

STALE = "k7/8/8/1Q6/8/8/8/6K1 w - - 0 1"
for rs in ALL:
    S(rs, "stalemate", {"fen": STALE}, [mv(1000, "white", "b5b6")], "1/2-1/2", "stalemate",
      cite(rs, "draws.stalemate_rule"), rulings=[(1, "result", cite(rs, "draws.stalemate_rule"))],
      clock=(299000, 300000), fen="auto",
      covers=["RULES §4 stalemate after a completed legal move (Qb5-b6, Black Ka8 has no move)", cite(rs, "draws.stalemate_rule")])
S(B, "stalemate-with-flag-claim", {"fen": STALE},
  [mv(301000, "white", "b5b6", _id="st"), claim(301000, "black", "flag", _refused=True, _id="flag")],
  "1/2-1/2", "stalemate", cite(B, "draws.stalemate_rule"),
  rulings=[("st", "result", cite(B, "draws.stalemate_rule")), ("flag", "refused")], clock=(-1000, 300000),
  end_at="st", fen="auto",
  covers=["blitz-2006 8a: stalemate stands even if a fallen flag is claimed at the same moment",
          "White's flag fell at 300000, the stalemating move was pressed at 301000; Black's flag claim in the same ms is refused"])
for rs in ALL:
    S(rs, "fools-mate", {}, seq("f2f3 e7e5 g2g4 d8h4"), "0-1", "checkmate", cite(rs, "results.checkmate_rule"),
      rulings=[(4, "result", cite(rs, "results.checkmate_rule"))], fen="auto",
      covers=["laws: checkmate ends the game (1.f3 e5 2.g4 Qh4#)", cite(rs, "results.checkmate_rule")])
for rs in [U, F, B]:
    S(rs, "scholars-mate", {}, seq("e2e4 e7e5 d1h5 b8c6 f1c4 g8f6 h5f7"), "1-0", "checkmate",
      cite(rs, "results.checkmate_rule"), rulings=[(7, "result", cite(rs, "results.checkmate_rule"))], fen="auto",
      covers=["laws: checkmate (1.e4 e5 2.Qh5 Nc6 3.Bc4 Nf6 4.Qxf7#)", cite(rs, "results.checkmate_rule")])
S(U, "mate-by-illegal-move-is-not-mate", {},
  seq("e2e4 e7e5 d2d4 b8c6 f1c4 g8f6 d1h5 f8b4") + [mv(9000, "white", "h5f7", _illegal=True, _id="ill"),
                                                    claim(10000, "black", "illegal", _id="claim")],
  "0-1", "illegal_move", cite(U, "illegal.rule"), rulings=[("claim", "result", cite(U, "illegal.rule"))],
  fen="r1bqk2r/pppp1Qpp/2n2n2/4p3/1bBPP3/8/PPP2PPP/RNB1K1NR b",
  covers=["docs/arbiter.md: a position reached by an illegal move is never checkmate (uscf-2020 7a: legally mated)",
          "4...Bb4+ then 5.Qxf7 'mates' while leaving White's king in check: Black claims and wins (uscf-2020 7d)"])

# Agreement, offers.
for rs in ALL:
    S(rs, "draw-agreed", {}, [mv(1000, "white", "e2e4"), offer(1500, "white"), accept(2000, "black")],
      "1/2-1/2", "agreement", cite(rs, "draws.agreement_rule"),
      rulings=[(3, "result", cite(rs, "draws.agreement_rule"))], clock=(299000, 299000), fen="auto",
      covers=["RULES §4 draw by agreement (offer, accept)", cite(rs, "draws.agreement_rule")])
for rs in [U, F]:
    S(rs, "draw-declined-then-accept-refused", {},
      [mv(1000, "white", "e2e4"), offer(1500, "white"), decline(2000, "black"),
       accept(2500, "black", _refused=True, _id="acc"), mv(3000, "black", "e7e5")],
      "*", None, None, rulings=[("acc", "refused")], clock=(299000, 298000), fen="auto",
      covers=["docs/arbiter.md: a declined offer no longer stands; accept with no standing offer is refused"])
for rs in [C, B]:
    S(rs, "draw-offer-lapses-by-moving", {},
      [mv(1000, "white", "e2e4"), offer(1500, "white"), mv(2000, "black", "e7e5", press=False),
       accept(2500, "black", _refused=True, _id="acc"), press(3000, "black")],
      "*", None, None, rulings=[("acc", "refused")], clock=(299000, 298000), fen="auto",
      covers=["docs/arbiter.md: an offer stands until the opponent makes a move on the board",
              "accepting after moving is refused"])
for rs in [I, U]:
    S(rs, "accept-without-offer-refused", {},
      [mv(1000, "white", "e2e4"), accept(1500, "black", _refused=True, _id="acc"), mv(2000, "black", "e7e5")],
      "*", None, None, rulings=[("acc", "refused")], clock=(299000, 299000), fen="auto",
      covers=["Refusals: accept with no offer"])
S(U, "own-offer-accept-refused", {},
  [mv(1000, "white", "e2e4"), offer(1500, "white"), accept(2000, "white", _refused=True, _id="acc"),
   mv(3000, "black", "e7e5")],
  "*", None, None, rulings=[("acc", "refused")], clock=(299000, 298000), fen="auto",
  covers=["docs/arbiter.md: accept needs a standing offer by the opponent; a player cannot accept his own offer"])

# Threefold repetition (uscf-2020 8, uscf-classic 4b, club-ilc 4.2, blitz-2006 8d, laws 9.2
# with fide-b3 A.3 for the wrong claim). The start position counts as an occurrence.
SHUFFLE = "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8"
for rs in ALL:
    S(rs, "threefold-claim", {}, seq(SHUFFLE) + [claim(9000, "white", "threefold")],
      "1/2-1/2", "repetition", cite(rs, "draws.threefold_rule"),
      rulings=[(9, "result", cite(rs, "draws.threefold_rule"))], clock=(295000, 296000), fen="auto",
      covers=["RULES §4 threefold: the start position with White to move occurs at the start, after 2...Ng8 and after 4...Ng8",
              cite(rs, "draws.threefold_rule"), "allowed at any time (the claimant has far more than 5 minutes)"])
    S(rs, "threefold-wrong-claim-minute", {},
      seq(" ".join(SHUFFLE.split()[:4])) + [claim(5000, "white", "threefold", _id="c", _adj={"black": MIN}),
                                           mv(6000, "white", "g1f3")],
      "*", None, None, rulings=[("c", "claim_rejected", cite(rs, "draws.wrong_claim_rule"))],
      clock=(296000, 358000), fen="auto",
      covers=["RULES §4: an incorrect repetition claim (only two occurrences) costs the claimant one minute on the opponent's clock",
              cite(rs, "draws.wrong_claim_rule"), "W used 2000+2000; B used 2000, +60000"])
for rs in [U, F, I]:
    S(rs, "threefold-claim-intended-move", {},
      seq(" ".join(SHUFFLE.split()[:7])) + [claim(8000, "black", "threefold", move="f6g8")],
      "1/2-1/2", "repetition", cite(rs, "draws.threefold_rule"),
      rulings=[(8, "result", cite(rs, "draws.threefold_rule"))], clock=(296000, 296000),
      fen="auto",
      covers=["RULES §4: a claim naming the intended move is judged on the position that move would produce",
              "4...Ng8 would make the start position occur a third time; the move is not played"])
for rs in [U, B]:
    S(rs, "threefold-wrong-claim-intended-move-played", {},
      seq(" ".join(SHUFFLE.split()[:4])) + [claim(5000, "white", "threefold", move="g1f3", _id="c",
                                                 _adj={"black": MIN}, _apply=True),
                                           press(6000, "white")],
      "*", None, None, rulings=[("c", "claim_rejected", cite(rs, "draws.wrong_claim_rule"))],
      clock=(296000, 358000), fen="auto",
      covers=["docs/arbiter.md: an incorrect claim with an intended move: one minute to the opponent, and the move is made on the board for the claimant (not pressed)",
              "the position after 3.Nf3 has occurred once before (after 1.Nf3)", cite(rs, "draws.wrong_claim_rule"),
              "the claimant then presses to complete it"])
S(C, "threefold-by-player-not-on-move-refused", {},
  seq(SHUFFLE) + [claim(8500, "black", "threefold", _refused=True, _id="r"), claim(9000, "white", "threefold", _id="c")],
  "1/2-1/2", "repetition", cite(C, "draws.threefold_rule"),
  rulings=[("r", "refused", cite(C, "draws.threefold_rule")), ("c", "result", cite(C, "draws.threefold_rule"))],
  clock=(295000, 296000),
  covers=["docs/arbiter.md: only the player on move may claim a repetition; otherwise refused", cite(C, "draws.threefold_rule")])
S(U, "threefold-castling-rights-differ", {},
  seq("g1f3 g8f6 h1g1 h8g8 g1h1 g8h8 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8") +
  [claim(13000, "white", "threefold", _id="c", _adj={"black": MIN}), mv(14000, "white", "b1c3")],
  "*", None, None, rulings=[("c", "claim_rejected", cite(U, "draws.wrong_claim_rule"))],
  clock=(292000, 354000), fen="auto",
  covers=["RULES §4: repetition compares castling rights too: the start placement occurs three times, but after the rook moves both sides lost the short castling right",
          "so the position with the current rights occurred only twice: the claim is wrong, one minute to Black (uscf-2020 17)"])

# Fifty moves (FEN halfmove clock 98 / 99 / 100).
FIFTY = "8/8/4k3/8/8/3K4/8/R7 w - - {hm} 80"
for rs in [U, F, C]:
    S(rs, "fifty-claim-intended-move", {"fen": FIFTY.format(hm=99)}, [claim(1000, "white", "fifty", move="a1a2")],
      "1/2-1/2", "fifty_moves", cite(rs, "draws.fifty_rule"), rulings=[(1, "result", cite(rs, "draws.fifty_rule"))],
      clock=(299000, 300000), fen="8/8/4k3/8/8/3K4/8/R7 w",
      covers=["RULES §4 fifty moves: halfmove clock 99; the intended Ra2 makes it 100", cite(rs, "draws.fifty_rule")])
for rs in [B, I]:
    S(rs, "fifty-claim-after-opponent-move", {"fen": FIFTY.format(hm=98)},
      [mv(1000, "white", "a1a2"), claim(2000, "black", "fifty", move="e6e5")],
      "1/2-1/2", "fifty_moves", cite(rs, "draws.fifty_rule"), rulings=[(2, "result", cite(rs, "draws.fifty_rule"))],
      clock=(299000, 299000),
      covers=["RULES §4 fifty moves: 98 + Ra2 = 99, Black's intended Ke5 makes 100", cite(rs, "draws.fifty_rule")])
for rs in [I, F]:
    S(rs, "fifty-wrong-claim-minute", {"fen": FIFTY.format(hm=99)},
      [claim(1000, "white", "fifty", _id="c", _adj={"black": MIN}), mv(2000, "white", "a1a2")],
      "*", None, None, rulings=[("c", "claim_rejected", cite(rs, "draws.wrong_claim_rule"))],
      clock=(298000, 360000), fen="auto",
      covers=["RULES §4: a fifty-move claim at halfmove 99 without a move is one short: one minute to the opponent",
              cite(rs, "draws.wrong_claim_rule")])
S(C, "fifty-claim-at-100", {"fen": FIFTY.format(hm=100)}, [claim(1000, "white", "fifty")],
  "1/2-1/2", "fifty_moves", cite(C, "draws.fifty_rule"), rulings=[(1, "result", cite(C, "draws.fifty_rule"))],
  clock=(299000, 300000), covers=["RULES §4 fifty moves: halfmove clock 100 in the start position", cite(C, "draws.fifty_rule")])

# ILC (club-ilc 4.3). K+R v K+R; White spends 250 s on his first move.
KRKR = "4k3/8/8/8/8/8/r7/4K2R w - - 0 1"
KRKQ = "4k3/8/8/8/8/8/q7/4K2R w - - 0 1"
ILC_PRE = [mv(250000, "white", "e1f1"), mv(252000, "black", "e8f8")]
S(I, "ilc-granted", {"fen": KRKR}, ILC_PRE + [claim(253000, "white", "ilc", _stop=True), ruling(260000, True)],
  "1/2-1/2", "ilc", cite(I, "draws.ilc_rule"),
  rulings=[(3, "claim_pending", cite(I, "draws.ilc_rule")), (3, "recommendation"), (4, "result", cite(I, "draws.ilc_rule"))],
  clock=(49000, 298000), fen="auto",
  covers=["RULES §4 ILC club-ilc 4.3: claimant under one minute (49000), no delay; K+R v K+R is drawn",
          "the clock stops at the claim and waits for the director's ruling"])
S(I, "ilc-denied-minute-then-flag", {"fen": KRKQ},
  ILC_PRE + [claim(253000, "white", "ilc", _stop=True), ruling(260000, False, _adj={"white": -MIN}, _resume=True),
             claim(261000, "black", "flag")],
  "0-1", "time_forfeit", cite(I, "flags.flag_rule"),
  rulings=[(3, "claim_pending", cite(I, "draws.ilc_rule")), (3, "recommendation"),
           (4, "claim_rejected", cite(I, "draws.ilc_rule")), (5, "result", cite(I, "flags.flag_rule"))],
  clock=(-12000, 298000),
  covers=["club-ilc 4.3: a denied claim costs the claimant a minute of his own time, here enough to drop his flag",
          "49000-60000 = -11000 at the ruling; the clock restarts at 260000; Black claims the flag at 261000 (-12000)"])
S(I, "ilc-with-delay-refused", {"fen": KRKR, "time_control": "G/5;d3"},
  [mv(253000, "white", "e1f1"), mv(255000, "black", "e8f8"), claim(256000, "white", "ilc", _refused=True)],
  "*", None, None, rulings=[(3, "refused", cite(I, "draws.ilc_rule"))], clock=(50000, 300000),
  covers=["club-ilc 4.3: ILC only applies when there is no delay or increment",
          "W 300000-(253000-3000)=50000; B's press inside its delay; W's claim 1 s into its delay"])
S(I, "ilc-over-one-minute-refused", {"fen": KRKR},
  [mv(1000, "white", "e1f1"), mv(2000, "black", "e8f8"), claim(3000, "white", "ilc", _refused=True)],
  "*", None, None, rulings=[(3, "refused", cite(I, "draws.ilc_rule"))], clock=(298000, 299000),
  covers=["club-ilc 4.3: the claimant must have less than one minute left"])
S(I, "ilc-accepted-as-draw-offer", {"fen": KRKR},
  ILC_PRE + [claim(253000, "white", "ilc", _stop=True), accept(255000, "black")],
  "1/2-1/2", "agreement", cite(I, "draws.agreement_rule"),
  rulings=[(3, "claim_pending", cite(I, "draws.ilc_rule")), (3, "recommendation"), (4, "result", cite(I, "draws.agreement_rule"))],
  clock=(49000, 298000),
  covers=["club-ilc 4.3: an ILC claim is also a draw offer; the opponent accepts",
          "interpretation: the game is drawn by agreement (club-ilc 4), not by the director's ILC ruling"])
S(I, "ilc-no-director-recommendation-applied", {"fen": KRKR, "director": False},
  ILC_PRE + [claim(253000, "white", "ilc")],
  "1/2-1/2", "ilc", cite(I, "draws.ilc_rule"), clock=None,
  covers=["docs/arbiter.md: with director false the recommendation is applied at once",
          "K+R v K+R, one identical piece each: the recommendation is a draw"])
for rs in [U, C, F, B]:
    S(rs, "ilc-refused", {"fen": KRKR}, ILC_PRE + [claim(253000, "white", "ilc", _refused=True)],
      "*", None, None, rulings=[(3, "refused", cite(rs, "draws.ilc_rule"))], clock=(49000, 298000),
      covers=[f"RULES §4: ILC claims are not allowed under {rs} ({cite(rs, 'draws.ilc_rule')})"])
S(U, "ilc-allowed-variation-granted", {"fen": KRKR, "variation": "ilc_allowed"},
  ILC_PRE + [claim(253000, "white", "ilc", _stop=True), ruling(260000, True)],
  "1/2-1/2", "ilc", cite(U, "draws.ilc_rule", "ilc_allowed"),
  rulings=[(3, "claim_pending", cite(U, "draws.ilc_rule", "ilc_allowed")), (3, "recommendation"),
           (4, "result", cite(U, "draws.ilc_rule", "ilc_allowed"))],
  clock=(49000, 298000),
  covers=["uscf-2020 8d TD tip: ILC claims allowed when advertised (variation ilc_allowed)"])

# blitz-2006 claimable drawn positions (8e, 8g, 8h, 8i; 13a/13b).
DP = [
    ("8e-identical-rooks", KRKR, "white", "blitz-2006 8e", "K+R v K+R: one identical piece each"),
    ("8g-opposite-bishops-one-pawn", "8/8/4k3/2b5/8/8/3PB3/4K3 w - - 0 1", "white", "blitz-2006 8g",
     "K+B v K+B, bishops on opposite colours (e2 light, c5 dark), one pawn"),
    ("8h-defender-in-front", "8/8/8/3k4/3P4/3K4/8/8 b - - 0 1", "black", "blitz-2006 8h",
     "K+P v K, the defender's king directly in front of the pawn, the pawn not on the 7th"),
    ("8i-rook-pawn-blockaded", "7r/8/k7/P7/8/8/2K5/1R6 b - - 0 1", "black", "blitz-2006 8i",
     "K+R+rook pawn v K+R, the pawn blockaded by the king"),
]
for name, fen, who, rule, desc in DP:
    w, b_ = (299000, 300000) if who == "white" else (300000, 299000)
    S(B, "draw-position-" + name, {"fen": fen}, [claim(1000, who, "draw_position", _stop=True), ruling(5000, True)],
      "1/2-1/2", "draw_position", rule,
      rulings=[(1, "claim_pending", cite(B, "draws.draw_positions_rule")), (1, "recommendation"), (2, "result", rule)],
      clock=(w, b_), fen="auto",
      covers=[f"RULES §4 blitz-2006 claimable draw: {desc}", f"granted by the director: the pattern's own rule {rule}"])
S(B, "draw-position-denied-minute", {"fen": "4k3/8/8/8/8/8/r7/4K2Q b - - 0 1"},
  [claim(1000, "black", "draw_position", _stop=True), ruling(5000, False, _adj={"white": MIN}, _resume=True),
   mv(6000, "black", "e8d7")],
  "*", None, None,
  rulings=[(1, "claim_pending", cite(B, "draws.draw_positions_rule")), (1, "recommendation"),
           (2, "claim_rejected", cite(B, "draws.draw_position_denied_rule"))],
  clock=(360000, 298000), fen="auto",
  covers=["blitz-2006 13b: a rejected appeal costs a minute; interpretation (RULES §4): added to the opponent's clock",
          "K+R v K+Q is no drawn position; the clock stopped 1000-5000 and restarts for Black"])
S(B, "draw-position-no-director", {"fen": KRKR, "director": False}, [claim(1000, "white", "draw_position")],
  "1/2-1/2", "draw_position", "blitz-2006 8e", clock=None,
  covers=["docs/arbiter.md: director false: the recommendation (8e, identical rooks) is applied at once"])
for rs in [U, C, I, F]:
    S(rs, "draw-position-refused", {"fen": KRKR},
      [mv(1000, "white", "e1f1"), claim(2000, "black", "draw_position", _refused=True)],
      "*", None, None, rulings=[(2, "refused", cite(rs, "draws.draw_positions_rule"))], clock=(299000, 299000),
      covers=[f"RULES §4: the blitz-2006 claimable draws do not exist under {rs} ({cite(rs, 'draws.draw_positions_rule')})"])

# Dead position (fide-b3 only, laws 5.2.2) and A.5.4 illegal positions.
DEAD = "7k/8/8/3n4/2B5/8/8/6K1 w - - 0 1"
S(F, "dead-position-kb-v-k", {"fen": DEAD}, [mv(1000, "white", "c4d5")], "1/2-1/2", "dead_position",
  cite(F, "draws.dead_position_rule"), rulings=[(1, "result", cite(F, "draws.dead_position_rule"))],
  clock=(299000, 300000), fen="auto",
  covers=["RULES §4: Bxd5 leaves K+B v K: no series of legal moves mates either king: drawn at once (fide-b3)"])
for rs in [U, B]:
    S(rs, "dead-position-not-automatic", {"fen": DEAD}, [mv(1000, "white", "c4d5"), mv(2000, "black", "h8g7")],
      "*", None, None, rulings=[], clock=(299000, 299000), fen="auto",
      covers=[f"RULES §4: the laws' automatic dead-position draw is not part of {rs} (draws.dead_position false); the game goes on"])
S(F, "dead-position-locked-pawns", {"fen": LOCKED}, [mv(1000, "white", "e1d2")], "1/2-1/2", "dead_position",
  cite(F, "draws.dead_position_rule"), rulings=[(1, "result", cite(F, "draws.dead_position_rule"))],
  clock=(299000, 300000), fen="auto",
  covers=["RULES §3/§4: locked pawn chain, no capture possible, kings cannot cross: dead after the first completed move"])
UNPROMO = "r7/4P3/8/8/8/8/k7/6K1 w - - 0 1"
S(F, "illegal-position-pawn-on-last-rank", {"fen": UNPROMO},
  [mv(1000, "white", "e7e8", _illegal=True), mv(2000, "black", "a2b2")],
  "1/2-1/2", "illegal_position", cite(F, "draws.illegal_position_rule"),
  rulings=[(2, "result", cite(F, "draws.illegal_position_rule"))], clock=(299000, 299000), fen="auto",
  covers=["RULES §2 fide-b3 A.5.4: a pawn left on the far rank; the arbiter waits for the next completed move; still there: drawn"])
S(F, "illegal-position-removed-by-next-move", {"fen": UNPROMO},
  [mv(1000, "white", "e7e8", _illegal=True), mv(2000, "black", "a8e8"), mv(3000, "white", "g1f2")],
  "*", None, None, rulings=[], clock=(298000, 299000), fen="auto",
  covers=["fide-b3 A.5.4: Black's Rxe8 removes the unpromoted pawn, so no illegal position remains after the next completed move; play goes on"])
S(F, "illegal-position-both-kings-in-check", {"fen": "4r3/8/8/7k/8/8/4N3/4K3 w - - 0 1"},
  [mv(1000, "white", "e2g3", _illegal=True), mv(2000, "black", "e8e7", _illegal=True)],
  "1/2-1/2", "illegal_position", cite(F, "draws.illegal_position_rule"),
  rulings=[(2, "result", cite(F, "draws.illegal_position_rule"))], clock=(299000, 299000), fen="auto",
  covers=["fide-b3 A.5.4: Ng3+ unpins nothing but uncovers the e-file: both kings in check; after Black's next completed move (Re7) both are still in check: drawn"])

# ============================================================ §5 penalties and the director

# Standard penalty: one minute to the opponent (uscf-2020 17, uscf-classic 5, club-ilc 5, fide-b3 A.3).
STD = {U: ["two_hands", "displaced_pieces", "knocked_clock", "touch_move", "other"],
       C: ["displaced_pieces", "touch_move"], I: ["knocked_clock", "two_hands"], F: ["other", "displaced_pieces"]}
for rs, kinds in STD.items():
    for kind in kinds:
        S(rs, f"penalty-{kind.replace('_', '-')}", {},
          [mv(1000, "white", "e2e4"), offence(2000, "black", kind, _id="o", _adj={"white": MIN})],
          "*", None, None, rulings=[("o", "penalty", cite(rs, f"penalties.{kind}"))], clock=(359000, 299000),
          covers=[f"RULES §5 standard penalty for {kind}: one minute added to the opponent's clock",
                  cite(rs, f"penalties.{kind}"), "the offence does not stop the clock: Black's runs 1000-2000"])
S(U, "penalty-repeated-standard", {},
  [mv(1000, "white", "e2e4"), offence(2000, "black", "two_hands", _id="o1", _adj={"white": MIN}),
   mv(3000, "black", "e7e5"), offence(4000, "black", "two_hands", _id="o2", _adj={"white": MIN})],
  "*", None, None,
  rulings=[("o1", "penalty", cite(U, "penalties.two_hands")), ("o2", "penalty", cite(U, "penalties.two_hands"))],
  clock=(418000, 298000),
  covers=["uscf-2020 17: repeats are the director's call; the ruleset applies the standard minute each time (ladder of one step)",
          "W 300000-1000-1000+120000 = 418000"])
# blitz-2006 ladders.
evs = [mv(1000, "white", "e2e4"), offence(1500, "white", "two_hands", _id="o1"),
       mv(2000, "black", "e7e5"), offence(2500, "white", "two_hands", _id="o2", _adj={"black": MIN}),
       mv(3000, "white", "g1f3"), offence(3500, "white", "two_hands", _id="o3")]
S(B, "two-hands-ladder-forfeit", {}, evs, "0-1", "penalty_forfeit", cite(B, "penalties.two_hands"),
  rulings=[("o1", "penalty", cite(B, "penalties.two_hands")), ("o2", "penalty", cite(B, "penalties.two_hands")),
           ("o3", "result", cite(B, "penalties.two_hands"))],
  clock=(298000, 358500), fen="auto",
  covers=["RULES §5 blitz-2006 4: one-hand rule: warning, then one minute to the opponent, then loss of the game",
          "B 300000-1000+60000, then its clock runs 3000-3500: 358500"])
evs = [mv(1000, "white", "e2e4"), offence(1500, "white", "displaced_pieces", _id="o1"),
       mv(2000, "black", "e7e5"), offence(2500, "white", "displaced_pieces", _id="o2", _adj={"black": MIN}),
       mv(3000, "white", "g1f3"), offence(3500, "white", "displaced_pieces", _id="o3")]
S(B, "displaced-pieces-ladder-forfeit", {}, evs, "0-1", "penalty_forfeit", cite(B, "penalties.displaced_pieces"),
  rulings=[("o1", "penalty", cite(B, "penalties.displaced_pieces")), ("o2", "penalty", cite(B, "penalties.displaced_pieces")),
           ("o3", "result", cite(B, "penalties.displaced_pieces"))],
  clock=(298000, 358500),
  covers=["RULES §5 blitz-2006 9: displaced pieces: warning, one minute, forfeit",
          "the first warning: White's flag is up, so no time changes"])
S(B, "displaced-pieces-warning-flag-down", {},
  [mv(301000, "white", "e2e4"), offence(301500, "white", "displaced_pieces", _id="o", _adj={"black": MIN})],
  "*", None, None, rulings=[("o", "penalty", cite(B, "penalties.displaced_pieces"))], clock=(-1000, 359500),
  covers=["blitz-2006 9: the first offence is a warning unless the offender's flag is down; then one minute to the opponent",
          "White pressed at 301000 with -1000; Black 300000-500+60000; nobody claimed the flag"])
S(B, "knocked-clock-minute", {},
  [mv(1000, "white", "e2e4"), offence(1500, "black", "knocked_clock", _id="o", _adj={"white": MIN})],
  "*", None, None, rulings=[("o", "penalty", cite(B, "penalties.knocked_clock"))], clock=(359000, 299500),
  covers=["RULES §5 blitz-2006 6b: knocking over the clock: one minute to the opponent"])
S(B, "banging-offender-loses-minute", {},
  [mv(1000, "white", "e2e4"), offence(1500, "white", "other", _id="o", _adj={"white": -MIN})],
  "*", None, None, rulings=[("o", "penalty", cite(B, "penalties.other"))], clock=(239000, 299500),
  covers=["blitz-2006 20: excessive banging: loss of time (ladder offender_minus_minute)"])
S(B, "touch-move-not-an-offence", {},
  [mv(1000, "white", "e2e4"), offence(1500, "white", "touch_move")],
  "*", None, None, clock=(299000, 299500),
  covers=["blitz-2006 15: touch move does not apply: recording it changes no clock (ladder not_an_offence)"])

# Resignation, director results, cancel.
for rs in ALL:
    S(rs, "resign", {}, [mv(1000, "white", "e2e4"), resign(2500, "black", _id="r"),
                         mv(3000, "black", "e7e5", _refused=True, _id="late")],
      "1-0", "resignation", cite(rs, "results.resignation_rule"),
      rulings=[("r", "result", cite(rs, "results.resignation_rule")), ("late", "refused")],
      end_at="r", clock=(299000, 298500), fen="auto",
      covers=["RULES §5 result by resignation", cite(rs, "results.resignation_rule"),
              "Refusals: a move after the game ended changes nothing"])
    S(rs, "director-result", {}, [mv(1000, "white", "e2e4"), dresult(2000, "0-1")],
      "0-1", "director", cite(rs, "director.result_rule"),
      rulings=[(2, "result", cite(rs, "director.result_rule"))], clock=(299000, 299000),
      covers=["RULES §5: the director declares a result", cite(rs, "director.result_rule")])
    S(rs, "director-cancel", {}, [mv(1000, "white", "e2e4"), dresult(2000, "cancel", reason=None)],
      "*", "director", cite(rs, "director.cancel_rule"),
      rulings=[(2, "result", cite(rs, "director.cancel_rule"))], clock=(299000, 299000),
      covers=["RULES §5: spectator interference: the director cancels the game and orders a replay",
              cite(rs, "director.cancel_rule"), "result * with reason director (docs/arbiter.md)"])
S(U, "director-result-default-reason", {}, [mv(1000, "white", "e2e4"),
                                           {"at": 2000, "by": "director", "result": {"result": "1/2-1/2"}}],
  "1/2-1/2", "director", cite(U, "director.result_rule"),
  rulings=[(2, "result", cite(U, "director.result_rule"))], clock=(299000, 299000),
  covers=["docs/arbiter.md: the director's result, reason defaults to director", "uscf-2020 18"])
S(U, "director-overrides-result", {}, seq("f2f3 e7e5 g2g4 d8h4") + [dresult(5000, "1/2-1/2")],
  "1/2-1/2", "director", cite(U, "director.result_rule"),
  rulings=[(4, "result", cite(U, "results.checkmate_rule")), (5, "result", cite(U, "director.result_rule"))],
  end_at=4, clock=(298000, 298000),
  covers=["docs/arbiter.md: the director's result overrides a result already reached (uscf-2020 18: the director's decision is final)",
          "the clock stopped at the mate"])
S(U, "director-cancel-string-form", {}, [mv(1000, "white", "e2e4"),
                                        {"at": 2000, "by": "director", "result": "cancel"}],
  "*", "director", cite(U, "director.cancel_rule"),
  rulings=[(2, "result", cite(U, "director.cancel_rule"))], clock=(299000, 299000),
  covers=["docs/game-script.md: \"cancel\" orders a replay (uscf-2020 13)"])

# Refusals: wrong party and impossible physical actions.
S(U, "player-stop-clock-refused", {},
  [mv(1000, "white", "e2e4"), {"at": 2000, "by": "black", "stop_clock": True, "_refused": True, "_id": "r"},
   mv(3000, "black", "e7e5")],
  "*", None, None, rulings=[("r", "refused")], clock=(299000, 298000), fen="auto",
  covers=["docs/arbiter.md: stop_clock is a director action; a player sending it is refused"])
S(C, "player-add-time-refused", {},
  [mv(1000, "white", "e2e4"), {"at": 2000, "by": "white", "add_time": {"color": "white", "ms": 60000}, "_refused": True, "_id": "r"},
   mv(3000, "black", "e7e5")],
  "*", None, None, rulings=[("r", "refused")], clock=(299000, 298000),
  covers=["docs/arbiter.md: add_time is a director action; a player sending it is refused"])
S(I, "player-offence-refused", {},
  [mv(1000, "white", "e2e4"), {"at": 2000, "by": "black", "offence": {"player": "white", "kind": "two_hands"}, "_refused": True, "_id": "r"},
   mv(3000, "black", "e7e5")],
  "*", None, None, rulings=[("r", "refused")], clock=(299000, 298000),
  covers=["docs/arbiter.md: only the director records an offence"])
S(F, "player-result-refused", {},
  [mv(1000, "white", "e2e4"), {"at": 2000, "by": "white", "result": {"result": "1-0", "reason": "director"}, "_refused": True, "_id": "r"},
   mv(3000, "black", "e7e5")],
  "*", None, None, rulings=[("r", "refused")], clock=(299000, 298000),
  covers=["docs/arbiter.md: a player cannot declare a result"])
S(U, "director-move-refused", {},
  [{"at": 1000, "by": "director", "move": "e2e4", "press": True, "_refused": True, "_id": "r"}, mv(2000, "white", "d2d4")],
  "*", None, None, rulings=[("r", "refused")], clock=(298000, 300000), fen="auto",
  covers=["Refusals: the director sending a move (wrong party)"])
S(B, "director-claim-refused", {},
  [mv(1000, "white", "e2e4"), {"at": 302000, "by": "director", "claim": "flag", "_refused": True, "_id": "r"}],
  "*", None, None, rulings=[("r", "refused")], clock=(299000, -1000),
  covers=["docs/arbiter.md: a director's claim is refused; blitz-2006 12: the director stays silent about flag falls"])
S(U, "move-out-of-turn-refused", {},
  [mv(1000, "white", "e2e4"), mv(1500, "white", "d2d4", _refused=True, _id="r"), mv(2000, "black", "e7e5")],
  "*", None, None, rulings=[("r", "refused")], clock=(299000, 299000), fen="auto",
  covers=["docs/arbiter.md interpretation: a move by the player whose turn it is not is refused"])
S(C, "second-move-before-press-refused", {},
  [mv(1000, "white", "e2e4", press=False), mv(1500, "white", "d2d4", press=False, _refused=True, _id="r"), press(2000, "white")],
  "*", None, None, rulings=[("r", "refused")], clock=(298000, 300000), fen="auto",
  covers=["docs/arbiter.md: a second move while one is on the board, not pressed, is refused"])
S(I, "press-without-move-opponent-time", {},
  [mv(1000, "white", "e2e4"), press(2000, "black", _id="p1"), press(5000, "white", _id="p2"),
   mv(6000, "black", "e7e5")],
  "*", None, None,
  rulings=[("p1", "clock", cite(I, "moves.press_without_move_rule")),
           ("p2", "clock", cite(I, "moves.press_without_move_rule"))],
  fen="auto",
  covers=["docs/arbiter.md choice: club-ilc is silent on pressing without a move; its intro keeps the US Chess rules (uscf-2020 9): "
          "Black, on move, presses without moving and White's clock runs",
          "White presses back without a move; Black, still on move, then moves: W used 1000 + 3000, B 1000 + 1000"])
S(F, "move-from-empty-square-refused", {},
  [mv(1000, "white", "e3e4", _refused=True, _id="r"), mv(2000, "white", "e2e4")],
  "*", None, None, rulings=[("r", "refused")], clock=(298000, 300000), fen="auto",
  covers=["docs/arbiter.md: no piece on the square: refused"])
S(B, "move-opponent-piece-refused", {},
  [mv(1000, "white", "e7e5", _refused=True, _id="r"), mv(2000, "white", "e2e4")],
  "*", None, None, rulings=[("r", "refused")], clock=(298000, 300000), fen="auto",
  covers=["docs/arbiter.md: a piece of the other colour: refused"])
S(U, "capture-own-piece-refused", {},
  [mv(1000, "white", "d1e2", _refused=True, _id="r"), mv(2000, "white", "e2e4")],
  "*", None, None, rulings=[("r", "refused")], clock=(298000, 300000), fen="auto",
  covers=["docs/arbiter.md: the player's own piece on the target square: refused"])
S(I, "claim-illegal-after-legal-move-rejected", {},
  [mv(1000, "white", "e2e4"), claim(2000, "black", "illegal", _id="c"), mv(3000, "black", "e7e5")],
  "*", None, None, rulings=[("c", "claim_rejected", cite(I, "illegal.rule"))], clock=(299000, 298000), fen="auto",
  covers=["docs/arbiter.md: claiming when the opponent's last completed move was legal: rejected, no penalty"])
S(F, "claim-after-game-ended-refused", {}, seq("f2f3 e7e5 g2g4 d8h4") + [claim(5000, "white", "threefold", _refused=True, _id="r")],
  "0-1", "checkmate", cite(F, "results.checkmate_rule"),
  rulings=[(4, "result", cite(F, "results.checkmate_rule")), ("r", "refused")], end_at=4, clock=(298000, 298000),
  covers=["docs/arbiter.md: a claim after the game ended is refused"])

# ============================================================ §6 set-up errors

SWAP = "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w {c} - 0 1"
SHORT_PRE = "b2b3 b7b6 c1b2 c8b7 b1c3 b8c6"
for rs, rights in [(U, "HAha"), (B, "KQkq"), (I, "HAha")]:
    evs = seq(SHORT_PRE) + [mv(7000, "white", "d1b1", _nochk=True, _rook="a1c1"),
                            mv(8000, "black", "d8b8", _nochk=True, _rook="a8c8")]
    S(rs, "kq-swapped-mirror-short-castling", {"fen": SWAP.format(c=rights)}, evs, "*", None, None, rulings=[],
      fen="1kr1qbnr/pbpppppp/1pn5/8/8/1PN5/PBPPPPPP/1KR1QBNR w", clock=(296000, 296000),
      covers=[f"RULES §6: king and queen swapped: castling short on the queen side is legal ({cite(rs, 'moves.setup_castling_rule')})",
              "interpretation (RULES §6): mirror castling: Kd1-b1 with Ra1-c1; Black likewise Kd8-b8, Ra8-c8",
              f"castling rights given as {rights}"])
evs = seq("e2e4 e7e5 e1e2 d7d6 g1f3 g8f6 g2g3 h7h6 f1g2 a7a6") + [mv(11000, "white", "d1f1", _nochk=True, _rook="h1e1")]
S(U, "kq-swapped-mirror-long-castling", {"fen": SWAP.format(c="HAha")}, evs, "*", None, None, rulings=[],
  fen="auto", clock=(294000, 295000),
  covers=["RULES §6 / uscf-2020 3a: castling long on the king side with king and queen swapped",
          "interpretation: Kd1-f1 with Rh1-e1 (e1, f1, g1 empty, e1 and f1 not attacked)"])
evs = seq(SHORT_PRE) + [mv(7000, "white", "d1b1", _nochk=True, _illegal=True, _rook="a1c1"),
                        claim(8000, "black", "illegal", _id="c")]
S(C, "kq-swapped-no-castling", {"fen": SWAP.format(c="HAha")}, evs, "0-1", "illegal_move", cite(C, "illegal.rule"),
  rulings=[("c", "result", cite(C, "illegal.rule"))],
  covers=["RULES §6 uscf-classic 3: king set up wrong: castling is not allowed (setup_castling none)",
          "the castling attempt Kd1-b1 is an illegal move; Black claims and wins (uscf-classic 2)"])
evs = seq(SHORT_PRE) + [mv(7000, "white", "d1b1", _nochk=True, _illegal=True, _rook="a1c1"),
                        claim(8000, "black", "illegal", _id="c", _adj={"black": MIN}, _turn="white", _reinstate=True),
                        mv(9000, "white", "d1c1")]
S(F, "kq-swapped-no-castling", {"fen": SWAP.format(c="HAha")}, evs, "*", None, None,
  rulings=[("c", "claim_upheld", cite(F, "illegal.rule"))], fen="auto",
  covers=["RULES §6 fide-b3 A.5.1.2: incorrect king placement: castling is not allowed",
          "the attempt is an illegal move: +1 min to Black, reinstated (A.3); White then moves the king legally (touch move)"])
ROOKWRONG = "nrbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/NRBQKBNR w HBhb - 0 1"
evs = seq("d2d4 d7d5 c1f4 c8f5 d1d2 d8d7") + [
    mv(7000, "white", "e1c1", _nochk=True, _illegal=True, _rook="b1d1"),
    claim(8000, "black", "illegal", _id="c", _adj={"black": MIN}, _turn="white", _reinstate=True),
    mv(9000, "white", "e1d1")]
S(F, "rook-misplaced-no-castling-with-it", {"fen": ROOKWRONG}, evs, "*", None, None,
  rulings=[("c", "claim_upheld", cite(F, "illegal.rule"))], fen="auto",
  covers=["RULES §6 fide-b3 A.5.1.2: incorrect rook placement: no castling with that rook (knight and rook swapped on the queen side)",
          "castling rights in Shredder form HBhb name the b-file rook; the attempt Ke1-c1 is illegal: +1 min, reinstated"])
S(F, "rook-misplaced-other-side-castles", {"fen": "rnbqkbrn/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBRN w Qq - 0 1"},
  seq("d2d4 d7d5 b1c3 b8c6 c1f4 c8f5 d1d2 d8d7 e1c1"), "*", None, None, rulings=[], fen="auto",
  covers=["fide-b3 A.5.1.2: only the misplaced rook (g1, knight on h1) is excluded; castling long with the a1 rook stays legal"])
S(I, "shredder-castling-rights", {"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"},
  seq("e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 e1g1"), "*", None, None, rulings=[], fen="auto",
  covers=["docs/game-script.md: castling rights in Shredder form (HAha) for the ordinary start position; O-O played as e1g1"])
S(U, "castling-king-onto-rook", {},
  seq("e2e4 e7e5 g1f3 b8c6 f1c4 f8c5") + [mv(7000, "white", "e1h1", _noboard=True)], "*", None, None, rulings=[],
  fen="r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b (unchecked)", clock=(296000, 297000),
  covers=["docs/game-script.md: castling may be written king-onto-rook (e1h1): short castling, Kg1 and Rf1"])

# ============================================================ script errors

G = {"rules": "uscf-2020", "time_control": "G/5;d0"}
M1 = {"at": 1000, "by": "white", "move": "e2e4", "press": True}
M2 = {"at": 2000, "by": "black", "move": "e7e5", "press": True}
E(U, "bad-json", [G, M1, '{"at": 2000, "by": "black", "move": "e7e5", "press": true'], 3, None,
  ["docs/arbiter.md script errors: bad JSON names its line"])
E(U, "unknown-field", [G, {"at": 1000, "by": "white", "mvoe": "e2e4", "press": True}], 2, "mvoe",
  ["script errors: an unknown field is named"])
E(U, "bad-square", [G, {"at": 1000, "by": "white", "move": "e2e9", "press": True}], 2, "move",
  ["script errors: a bad square in move"])
E(U, "bad-promotion-letter", [G, M1, M2, {"at": 3000, "by": "white", "move": "e4e5x", "press": True}], 4, "move",
  ["script errors: an unknown promotion letter"])
E(U, "at-backwards", [G, M1, {"at": 500, "by": "black", "move": "e7e5", "press": True}], 3, "at",
  ["script errors: at smaller than the previous event's"])
E(U, "at-wrong-type", [G, {"at": "1000", "by": "white", "move": "e2e4", "press": True}], 2, "at",
  ["script errors: a wrong type (at as a string)"])
E(C, "at-negative", [{"rules": "uscf-classic", "time_control": "G/5"}, {"at": -5, "by": "white", "move": "e2e4"}], 2, "at",
  ["script errors: at must be whole milliseconds, not negative"])
E(U, "unknown-ruleset", [{"rules": "uscf-1999", "time_control": "G/5"}, M1], 1, "rules",
  ["script errors: an unknown ruleset on line 1"])
E(I, "missing-rules", [{"time_control": "G/5"}, M1], 1, "rules", ["script errors: rules is required"])
E(F, "missing-time-control", [{"rules": "fide-b3"}, M1], 1, "time_control", ["script errors: time_control is required"])
E(U, "missing-by", [G, {"at": 1000, "move": "e2e4", "press": True}], 2, "by", ["script errors: by is required"])
E(U, "unknown-claim", [G, M1, {"at": 2000, "by": "black", "claim": "perpetual"}], 3, "claim",
  ["script errors: an unknown claim name"])
E(U, "spectator-by", [G, M1, {"at": 2000, "by": "spectator", "claim": "flag"}], 3, "by",
  ["RULES §5: spectators cannot act on a game: by other than white/black/director is a script error"])
E(B, "spectator-by", [{"rules": "blitz-2006", "time_control": "G/5"}, M1, {"at": 2000, "by": "kibitzer", "move": "e7e5"}], 3, "by",
  ["RULES §5 / blitz-2006 12: spectators do not interfere; an unknown by is a script error"])
E(U, "bad-fen", [dict(G, fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1"), M1], 1, "fen",
  ["script errors: a malformed start position"])
E(U, "unknown-setup-field", [dict(G, rulez="x"), M1], 1, "rulez", ["script errors: an unknown setup field"])
E(C, "unknown-variation", [{"rules": "uscf-classic", "time_control": "G/5", "variation": "no_such_variation"}, M1], 1, "variation",
  ["script errors: a variation the ruleset does not define"])
E(U, "blank-lines-counted", [G, "", M1, "", {"at": 2000, "by": "black", "move": "e7e5", "press": "yes"}], 5, "press",
  ["docs/arbiter.md: blank lines are skipped but the error names the file line (5)", "a wrong type for press"])
E(I, "bad-time-control-notation", [{"rules": "club-ilc", "time_control": "G/five"}, M1], 1, "time_control",
  ["RULES §1: a time control not in any accepted form"])
E(F, "unknown-offence-kind", [{"rules": "fide-b3", "time_control": "G/5"}, M1,
                              {"at": 2000, "by": "director", "offence": {"player": "white", "kind": "rudeness"}}], 3, "offence.kind",
  ["docs/game-script.md: offence kinds are two_hands, displaced_pieces, knocked_clock, touch_move, other"])

# ============================================================ edge cases (second batch)

# Repetition and en passant: a right counts only when the capture is possible.
S(U, "threefold-en-passant-right-differs", {},
  seq("e2e4 g8f6 e4e5 d7d5 g1f3 b8c6 f3g1 c6b8 g1f3 b8c6 f3g1 c6b8") +
  [claim(13000, "white", "threefold", _id="c", _adj={"black": MIN}), mv(14000, "white", "g1f3")],
  "*", None, None, rulings=[("c", "claim_rejected", cite(U, "draws.wrong_claim_rule"))],
  clock=(292000, 354000), fen="auto",
  covers=["RULES §4: repetition compares en passant rights: after 2...d5 exd6 e.p. was possible, so that position differs from the two later ones with the same placement",
          "two occurrences only: wrong claim, one minute to Black (uscf-2020 17)"])
S(B, "threefold-nominal-en-passant-ignored", {},
  seq("e2e4 g8f6 g1f3 f6g8 f3g1 g8f6 g1f3 f6g8 f3g1") + [claim(10000, "black", "threefold", _id="c")],
  "1/2-1/2", "repetition", cite(B, "draws.threefold_rule"),
  rulings=[("c", "result", cite(B, "draws.threefold_rule"))], clock=(295000, 295000),
  covers=["docs/arbiter.md: en passant compared only when a capture is possible: after 1.e4 no black pawn can take e.p.",
          "the position after 1.e4 (Black to move) occurs after 1.e4, 3.Ng1 and 5.Ng1: a correct claim (blitz-2006 8d)"])
S(C, "fifty-wrong-claim-capture-resets", {"fen": "8/8/4k3/8/8/3K4/8/R6n w - - 99 80"},
  [claim(1000, "white", "fifty", move="a1h1", _id="c", _adj={"black": MIN}, _apply=True), press(2000, "white")],
  "*", None, None, rulings=[("c", "claim_rejected", cite(C, "draws.wrong_claim_rule"))],
  clock=(298000, 360000), fen="8/8/4k3/8/8/3K4/8/7R b",
  covers=["RULES §4 fifty moves: the intended Rxh1 is a capture, so the count restarts: wrong claim, one minute to Black (uscf-classic 5)",
          "the intended move is then made on the board and pressed"])

# fide-b3: each player's illegal moves are counted separately; only caught ones count
# (docs/arbiter.md: "the second illegal move the same player completes and is caught for").
evs = seq("e2e4 e7e5") + [
    mv(3000, "white", "f1e3", _illegal=True),
    claim(4000, "black", "illegal", _id="c1", _adj={"black": MIN}, _turn="white", _reinstate=True),
    mv(5000, "white", "f1c4"), mv(6000, "black", "f8e6", _illegal=True),
    claim(7000, "white", "illegal", _id="c2", _adj={"white": MIN}, _turn="black", _reinstate=True),
    mv(8000, "black", "f8c5")]
S(F, "illegal-first-each-player", {}, evs, "*", None, None,
  rulings=[("c1", "claim_upheld", cite(F, "illegal.rule")), ("c2", "claim_upheld", cite(F, "illegal.rule"))],
  fen="auto",
  covers=["fide-b3 A.3: the loss is for a player's own second illegal move: White's and Black's first illegal moves each cost one minute"])
evs = seq("e2e4 e7e5") + [
    mv(3000, "white", "f1e3", _illegal=True), mv(4000, "black", "g8f6"),
    mv(5000, "white", "d1d3", _illegal=True),
    claim(6000, "black", "illegal", _id="c", _adj={"black": MIN}, _turn="white", _reinstate=True),
    mv(7000, "white", "d1e2")]
S(F, "illegal-unclaimed-does-not-count", {}, evs, "*", None, None,
  rulings=[("c", "claim_upheld", cite(F, "illegal.rule"))], fen="auto",
  covers=["docs/arbiter.md interpretation: only illegal moves caught (claimed or called) count towards A.3's second",
          "Bf1-e3 stood unclaimed (A.5.2); the caught Qd1-d3 is the first: one minute and reinstatement, not a loss"])
evs = seq("e2e4 e7e5") + [
    mv(3000, "white", "f1e3", _illegal=True, _id="i1", _adj={"black": MIN}, _turn="white", _reinstate=True),
    mv(4000, "white", "f1c4"), mv(5000, "black", "g8f6"),
    mv(6000, "white", "d1d3", _illegal=True, _id="i2")]
S(F, "arbiter-calls-second-illegal-loss", {"arbiter_calls_illegal": True}, evs, "0-1", "illegal_move",
  cite(F, "illegal.rule"),
  rulings=[("i1", "claim_upheld", cite(F, "illegal.rule")), ("i2", "result", cite(F, "illegal.rule"))],
  clock=(296000, 358000),
  covers=["fide-b3 A.5.2 + A.3: the arbiter intervenes at both presses; the second illegal move loses"])

# Flag-claim edges.
S(U, "flag-claim-at-exactly-zero", {}, [mv(1000, "white", "e2e4"), claim(301000, "white", "flag")],
  "1-0", "time_forfeit", cite(U, "flags.flag_rule"), rulings=[(2, "result", cite(U, "flags.flag_rule"))],
  clock=(299000, 0), covers=["docs/arbiter.md: a flag is down when the remaining time is <= 0 (exactly 0 here)"])
S(C, "flag-claim-one-ms-early", {},
  [mv(1000, "white", "e2e4"), claim(300999, "white", "flag", _id="c"), mv(301500, "black", "e7e5")],
  "*", None, None, rulings=[("c", "claim_rejected", cite(C, "flags.flag_rule"))], clock=(299000, -500),
  covers=["docs/arbiter.md: 1 ms left is a flag up: rejected; Black then presses with -500 and nobody claims"])
S(F, "flag-auto-us-delay-not-yet", {"time_control": "G/5;d3"}, [mv(1000, "white", "e2e4"), end(303999)],
  "*", None, None, rulings=[], clock=(300000, 1),
  covers=["RULES §1 US delay: Black's clock waits 3 s before counting, so the flag falls at 1000+3000+300000 = 304000",
          "at 303999 Black has 1 ms: the game goes on (fide-b3 auto flag)"])
S(F, "flag-auto-us-delay-fallen", {"time_control": "G/5;d3"}, [mv(1000, "white", "e2e4"), end(304500)],
  "1-0", "time_forfeit", cite(F, "flags.auto_flag_rule"), rulings=[(2, "result", cite(F, "flags.auto_flag_rule"))],
  clock=(300000, 0, "nocheck"),
  covers=["RULES §1 US delay + fide-b3 A.5.5: the flag fell at 304000, the game ends then (Black shows 0)"])
S(U, "flag-auto-opponent-no-material", {"fen": "8/8/8/4k3/8/8/3q4/7K b - - 0 1", "auto_flag": True}, [end(301000)],
  "1/2-1/2", "insufficient_material", cite(U, "flags.no_material_rule"),
  rulings=[(1, "result", cite(U, "flags.no_material_rule"))], clock=(300000, 0, "nocheck"),
  covers=["automatic flagging in a US ruleset: the opponent of the fallen flag has a lone king: draw (uscf-2020 8d)"])
S(U, "mate-with-own-flag-down", {},
  seq("e2e4 e7e5 d1h5 b8c6 f1c4 g8f6") + [mv(310000, "white", "h5f7")],
  "1-0", "checkmate", cite(U, "results.checkmate_rule"), rulings=[(7, "result", cite(U, "results.checkmate_rule"))],
  clock=(-7000, 297000), fen="auto",
  covers=["uscf-2020 7c: a flag claim can win only while the game is still on: White mates with his flag down and nobody had claimed",
          "W's clock ran 6000-310000 with 297000: -7000"])
# Mating material, more cases.
S(B, "flag-knn-v-kp-win", {"fen": "8/8/8/4k3/8/1p6/8/1N1NK3 b - - 0 1"}, [claim(301000, "white", "flag")],
  "1-0", "time_forfeit", cite(B, "flags.flag_rule"), rulings=[(1, "result", cite(B, "flags.flag_rule"))],
  clock=(300000, -1000),
  covers=["blitz-2006 7b: two minor pieces are mating material except K+N+N v a lone king; here the defender has a pawn"])
S(U, "flag-kp-v-kq-win", {"fen": "8/8/8/4k3/8/8/3q3P/7K b - - 0 1"}, [claim(301000, "white", "flag")],
  "1-0", "time_forfeit", cite(U, "flags.flag_rule"), rulings=[(1, "result", cite(U, "flags.flag_rule"))],
  clock=(300000, -1000), covers=["uscf-2020 7c: a pawn is mating material, whatever the opponent has"])
S(U, "illegal-claimant-knn-draw", {"fen": "8/8/8/4k3/8/8/8/1n1n3K w - - 0 1"},
  [mv(1000, "white", "h1h3", _illegal=True), claim(2000, "black", "illegal", _id="c")],
  "1/2-1/2", "insufficient_material", cite(U, "illegal.no_material_rule"),
  rulings=[("c", "result", cite(U, "illegal.no_material_rule"))], fen="auto",
  covers=["uscf-2020 7d/8d: the illegal-move claimant has K+N+N against a lone king: not mating material (interpretation RULES §3): draw"])
S(U, "illegal-stalemate-is-not-stalemate", {"fen": STALE},
  [mv(1000, "white", "b5c7", _illegal=True), claim(2000, "black", "illegal", _id="c")],
  "1/2-1/2", "insufficient_material", cite(U, "illegal.no_material_rule"),
  rulings=[("c", "result", cite(U, "illegal.no_material_rule"))], fen="auto",
  covers=["docs/arbiter.md: a position reached by an illegal move is never stalemate (Qb5-c7 jumps like a knight)",
          "Black's claim is correct but Black has a bare king: drawn for insufficient material (uscf-2020 8d), not stalemate"])
NOAUTO_F = {"auto_flag": False}
for name, fen, res, why in [
    ("flag-kn-v-kn-win", "8/8/8/4k3/8/8/3n4/1N2K3 b - - 0 1", "1-0",
     "K+N v K+N: a helpmate exists (Black Ka8 with his knight on b8, White Kb6 and Nc7)"),
    ("flag-kb-v-kb-opposite-win", "8/5b2/8/4k3/8/8/8/2B1K3 b - - 0 1", "1-0",
     "K+B v K+B on opposite colours (c1 dark, f7 light): a helpmate exists (Black Ka1 with his light bishop on b1, White Kb3 and the dark bishop giving check from e5)"),
    ("flag-kb-v-kb-same-colour-draw", "5b2/8/8/4k3/8/8/8/2B1K3 b - - 0 1", "1/2-1/2",
     "K+B v K+B on the same colour (c1 and f8 dark): no checkmate is possible for either side"),
]:
    S(F, name, dict(NOAUTO_F, fen=fen), [claim(301000, "white", "flag")], res,
      "time_forfeit" if res == "1-0" else "insufficient_material",
      cite(F, "flags.flag_rule") if res == "1-0" else cite(F, "flags.no_material_rule"),
      rulings=[(1, "result", cite(F, "flags.flag_rule") if res == "1-0" else cite(F, "flags.no_material_rule"))],
      clock=(300000, -1000), covers=["fide-b3 A.5.3: any possible series of legal moves: " + why])

# Offers, retract, ladders per player and kind.
S(U, "draw-offer-before-own-move-stands", {},
  [offer(500, "white"), mv(1000, "white", "e2e4"), accept(2000, "black", _id="a")],
  "1/2-1/2", "agreement", cite(U, "draws.agreement_rule"), rulings=[("a", "result", cite(U, "draws.agreement_rule"))],
  clock=(299000, 299000),
  covers=["docs/arbiter.md: an offer stands until the opponent accepts, declines or makes a move; the offerer's own move does not end it"])
S(U, "retract-after-press-refused", {},
  [mv(1000, "white", "e2e4"), retract(1500, "white", _refused=True, _id="r"), mv(2000, "black", "e7e5")],
  "*", None, None, rulings=[("r", "refused")], clock=(299000, 299000), fen="auto",
  covers=["uscf-2020 14/15: a pressed move is completed; nothing is on the board to retract"])
S(B, "ladders-count-per-player-and-kind", {},
  [mv(1000, "white", "e2e4"), offence(1500, "white", "two_hands", _id="o1"), mv(2000, "black", "e7e5"),
   offence(2500, "black", "two_hands", _id="o2"), mv(3000, "white", "g1f3"),
   offence(3500, "white", "displaced_pieces", _id="o3")],
  "*", None, None,
  rulings=[("o1", "penalty", cite(B, "penalties.two_hands")), ("o2", "penalty", cite(B, "penalties.two_hands")),
           ("o3", "penalty", cite(B, "penalties.displaced_pieces"))],
  clock=(298000, 298500),
  covers=["docs/arbiter.md: ladders are counted per player and kind: each of these is a first offence (a warning)"])

# ============================================================ edge cases (third batch)

S(U, "claim-restart-keeps-us-delay", {"time_control": "G/5;d3"},
  [mv(1000, "white", "e2e4"), claim(2000, "white", "flag", _id="c", _stop=True, _resume=True),
   mv(6000, "black", "e7e5")],
  "*", None, None, rulings=[("c", "claim_rejected", cite(U, "flags.flag_rule"))], clock=(300000, 298000),
  covers=["docs/arbiter.md: a claim stops the clock and restarts it at the same at; the turn goes on with the delay left",
          "B's turn from 1000: 1000 of its 3000 delay gone at the claim; (6000-1000)-3000 = 2000 counted: 298000"])
S(B, "both-flags-rejected-then-flag-claim", {},
  [mv(1000, "white", "e2e4"), claim(302000, "white", "both_flags", _id="b"), claim(303000, "white", "flag", _id="f")],
  "1-0", "time_forfeit", cite(B, "flags.flag_rule"),
  rulings=[("b", "claim_rejected", cite(B, "flags.both_flags_rule")), ("f", "result", cite(B, "flags.flag_rule"))],
  clock=(299000, -2000),
  covers=["docs/arbiter.md: both_flags with only Black's flag down is rejected (no penalty); the flag claim then wins (blitz-2006 7a3)"])
S(I, "ilc-exactly-one-minute-refused", {"fen": KRKR},
  [mv(240000, "white", "e1f1"), mv(242000, "black", "e8f8"), claim(242000, "white", "ilc", _refused=True, _id="c")],
  "*", None, None, rulings=[("c", "refused", cite(I, "draws.ilc_rule"))], clock=(60000, 298000),
  covers=["club-ilc 4.3: the claimant must be under a minute; with exactly 60000 left the claim is refused"])
S(B, "draw-position-granted-outside-patterns", {"fen": "4k3/8/8/8/8/8/r2P4/4K2R b - - 0 1"},
  [claim(1000, "black", "draw_position", _stop=True), ruling(5000, True)],
  "1/2-1/2", "draw_position", cite(B, "draws.draw_positions_rule"),
  rulings=[(1, "claim_pending", cite(B, "draws.draw_positions_rule")), (1, "recommendation"),
           (2, "result", cite(B, "draws.draw_positions_rule"))],
  clock=(300000, 299000),
  covers=["blitz-2006 13a: the director rules a clearly drawn position that matches none of 8e/8g/8h/8i (K+R+P v K+R, centre pawn)",
          "docs/arbiter.md: the rule is then draws.draw_positions_rule"])
S(U, "ruling-without-pending-claim-refused", {},
  [mv(1000, "white", "e2e4"), ruling(2000, True, _refused=True, _id="r"), mv(3000, "black", "e7e5")],
  "*", None, None, rulings=[("r", "refused")], clock=(299000, 298000),
  covers=["docs/arbiter.md: a director ruling decides the pending claim; with none pending it is refused"])
S(U, "en-passant-capture-physical", {}, seq("e2e4 g8f6 e4e5 d7d5 e5d6"), "*", None, None, rulings=[],
  fen="auto", clock=(297000, 298000),
  covers=["RULES §2 physical board: an en passant capture removes the pawn that passed (1.e4 Nf6 2.e5 d5 3.exd6)"])
S(F, "not-dead-kb-v-kp", {"fen": "7k/7p/8/3n4/2B5/8/8/6K1 w - - 0 1"},
  [mv(1000, "white", "c4d5"), mv(2000, "black", "h7h6")], "*", None, None, rulings=[], clock=(299000, 299000),
  fen="auto",
  covers=["fide-b3 / laws 5.2.2: K+B v K+P is not a dead position (a mate exists with Black's help): play goes on"])
S(F, "mate-after-own-flag-fell-auto", {},
  seq("e2e4 e7e5 d1h5 b8c6 f1c4 g8f6") + [mv(310000, "white", "h5f7", _refused=True)],
  "0-1", "time_forfeit", cite(F, "flags.auto_flag_rule"),
  rulings=[(7, "result", cite(F, "flags.auto_flag_rule")), (7, "refused")], clock=(0, 297000, "nocheck"),
  fen="auto",
  covers=["fide-b3 A.5.5 with automatic flagging: White's flag fell at 6000+297000 = 303000, before the 'mating' press at 310000",
          "the game ended at the fall (Black has mating material); the later move is refused"])
S(F, "illegal-position-resolved-by-next-move", {"fen": "4r3/8/8/7k/8/8/4N3/4K3 w - - 0 1"},
  [mv(1000, "white", "e2g3", _illegal=True), mv(2000, "black", "h5h6")],
  "*", None, None, rulings=[], clock=(299000, 299000), fen="auto",
  covers=["fide-b3 A.5.4: both kings in check after Ng3; Black's Kh6 leaves only White's king in check with White to move: no illegal position, play goes on"])
S(C, "player-names-in-setup", {"white": "Ann", "black": "Bob"}, seq("e2e4 e7e5"), "*", None, None, rulings=[],
  clock=(299000, 299000), fen="auto", covers=["docs/game-script.md: optional white/black names are accepted"])
E(U, "two-actions-in-one-event", [G, {"at": 1000, "by": "white", "resign": True, "offer": "draw"}], 2, None,
  ["docs/arbiter.md: exactly one action per event (besides move+press and a claim's intended move)"])
evs = seq("e2e4 e7e5") + [
    mv(3000, "white", "f1e3", _illegal=True),
    claim(4000, "black", "illegal", _id="c1", _adj={"black": MIN}, _turn="white", _reinstate=True),
    mv(5000, "white", "d2d4", _refused=True, _id="other"), mv(6000, "white", "f1d3")]
S(C, "variation-touch-move-after-reinstatement", {"variation": "illegal_move_one_minute"}, evs, "*", None, None,
  rulings=[("c1", "claim_upheld", cite(C, "illegal.rule", "illegal_move_one_minute")),
           ("other", "refused", cite(C, "moves.touch_move_rule"))], fen="auto",
  covers=["docs/arbiter.md minute_and_reinstate: the offender must then move the same piece if it has a legal move",
          "uscf-classic intro: touch move applies; the pawn move is refused, the bishop moves"])
S(U, "add-time-raises-fallen-flag", {},
  [mv(301000, "white", "e2e4"), add_time(302000, "white", MIN, "correction", _id="t"), claim(303000, "black", "flag", _id="c")],
  "*", None, None,
  rulings=[("t", "time_change", cite(U, "time.setup_rule")), ("c", "claim_rejected", cite(U, "flags.flag_rule"))],
  clock=(59000, 298000),
  covers=["RULES §1: within the set-up window (Black has not completed a move) the director corrects White's clock",
          "White pressed with -1000; +60000 raises the flag (59000), so Black's flag claim is rejected"])
S(U, "director-result-with-reason", {}, [mv(1000, "white", "e2e4"), dresult(2000, "0-1", reason="time_forfeit")],
  "0-1", "time_forfeit", cite(U, "director.result_rule"),
  rulings=[(2, "result", cite(U, "director.result_rule"))], clock=(299000, 299000),
  covers=["docs/arbiter.md: the director's result keeps the reason as given; the rule is director.result_rule (uscf-2020 18)"])

# ============================================================ filling the matrix (fourth batch)

for rs in [C, I]:
    S(rs, "flag-auto-enabled", {"auto_flag": True},
      [mv(1000, "white", "e2e4"), end(400000)],
      "1-0", "time_forfeit", cite(rs, "flags.auto_flag_rule"),
      rulings=[(2, "result", cite(rs, "flags.auto_flag_rule"))], clock=(299000, 0, "nocheck"),
      covers=[f"RULES §1/§3: automatic flagging set up in {rs} (an online convenience)", cite(rs, "flags.auto_flag_rule"),
              "Black's flag fell at 301000; the game ends then"])
    S(rs, "flag-kp-v-kq-win", {"fen": "8/8/8/4k3/8/8/3q3P/7K b - - 0 1"}, [claim(301000, "white", "flag")],
      "1-0", "time_forfeit", cite(rs, "flags.flag_rule"), rulings=[(1, "result", cite(rs, "flags.flag_rule"))],
      clock=(300000, -1000), covers=[f"{rs}: US count: a pawn is mating material", cite(rs, "flags.flag_rule")])
    S(rs, "dead-position-not-automatic", {"fen": DEAD}, [mv(1000, "white", "c4d5"), mv(2000, "black", "h8g7")],
      "*", None, None, rulings=[], clock=(299000, 299000), fen="auto",
      covers=[f"RULES §4: no automatic dead-position draw under {rs} (draws.dead_position false)"])
for rs in [C, I, B]:
    S(rs, "flag-claimant-bare-king-draw", {"fen": "8/8/8/4k3/8/8/3q4/7K b - - 0 1"}, [claim(301000, "white", "flag")],
      "1/2-1/2", "insufficient_material", cite(rs, "flags.no_material_rule"),
      rulings=[(1, "result", cite(rs, "flags.no_material_rule"))], clock=(300000, -1000),
      covers=["RULES §3: the claimant (lone king) cannot mate: the flag claim draws", cite(rs, "flags.no_material_rule")])
S(I, "flag-knn-v-k-draw", {"fen": KNNK}, [claim(301000, "white", "flag")], "1/2-1/2", "insufficient_material",
  cite(I, "flags.no_material_rule"), rulings=[(1, "result", cite(I, "flags.no_material_rule"))], clock=(300000, -1000),
  covers=["RULES §3 interpretation: K+N+N v K is not mating material in the US-based rulesets", cite(I, "flags.no_material_rule")])
evs = [mv(1000, "white", "f2f3"), mv(302000, "black", "e7e5"), mv(602000, "white", "g2g4"),
       mv(603000, "black", "d8h4", _id="mate"), claim(604000, "white", "both_flags", _refused=True, _id="late")]
S(C, "mate-after-both-flags", {}, evs, "0-1", "checkmate", cite(C, "results.checkmate_rule"),
  rulings=[("mate", "result", cite(C, "results.checkmate_rule")), ("late", "refused")],
  end_at="mate", clock=(-1000, -2000), fen="rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w",
  covers=["RULES §3: both flags down, then a mate on the board before anyone points it out: the mate stands",
          "uscf-classic 4 draws by the regular rules' ways; the later both-flags claim is refused"])
for rs in [U, I, F]:
    S(rs, "stop-start-no-delay", {},
      [mv(1000, "white", "e2e4"), stop(5000), start(65000), mv(70000, "black", "e7e5")],
      "*", None, None,
      rulings=[(2, "clock", cite(rs, "director.rule")), (3, "clock", cite(rs, "director.rule"))],
      clock=(299000, 291000),
      covers=["RULES §5 director stop/start", cite(rs, "director.rule"), "B ran 1-5 s and 65-70 s: 9000 used"])
for rs in [C, B]:
    S(rs, "en-passant-capture-physical", {}, seq("e2e4 g8f6 e4e5 d7d5 e5d6"), "*", None, None, rulings=[],
      fen="auto", clock=(297000, 298000),
      covers=["RULES §2 physical board: an en passant capture removes the pawn that passed (1.e4 Nf6 2.e5 d5 3.exd6)"])

# ============================================================ fifth batch: more material verdicts

KNKP = "8/8/8/4k3/8/1p6/8/1N2K3 b - - 0 1"
S(F, "flag-kn-v-kp-win", dict(NOAUTO_F, fen=KNKP), [claim(301000, "white", "flag")], "1-0", "time_forfeit",
  cite(F, "flags.flag_rule"), rulings=[(1, "result", cite(F, "flags.flag_rule"))], clock=(300000, -1000),
  covers=["fide-b3 A.5.3: K+N v K+P is a win on time: a helpmate exists (Black Kh1 with his pawn on h2, White Kf1, Ng3 mate)"])
S(U, "flag-kn-v-kp-draw", {"fen": KNKP}, [claim(301000, "white", "flag")], "1/2-1/2", "insufficient_material",
  cite(U, "flags.no_material_rule"), rulings=[(1, "result", cite(U, "flags.no_material_rule"))], clock=(300000, -1000),
  covers=["uscf-2020 7c: a lone knight is not mating material: the flag claim draws (uscf-2020 8d)"])
S(F, "flag-kn-v-k-draw", dict(NOAUTO_F, fen="8/8/8/4k3/8/8/8/1N2K3 b - - 0 1"), [claim(301000, "white", "flag")],
  "1/2-1/2", "insufficient_material", cite(F, "flags.no_material_rule"),
  rulings=[(1, "result", cite(F, "flags.no_material_rule"))], clock=(300000, -1000),
  covers=["fide-b3 A.5.3: K+N against a lone king can never mate: draw"])
S(F, "dead-position-same-colour-bishops", {"fen": "5b2/8/8/7k/3n4/4B3/8/2B3K1 w - - 0 1"},
  [mv(1000, "white", "e3d4")], "1/2-1/2", "dead_position", cite(F, "draws.dead_position_rule"),
  rulings=[(1, "result", cite(F, "draws.dead_position_rule"))], clock=(299000, 300000), fen="auto",
  covers=["laws dead position (fide-b3): after Bxd4 only kings and bishops remain, all bishops on dark squares: no mate is possible for either side"])
S(U, "take-king-claimant-no-material", {"fen": "7k/8/8/8/1b6/8/8/3QK3 w - - 0 1"},
  [mv(1000, "white", "d1h5", _illegal=True), mv(2000, "black", "b4e1", press=False, _noboard=True, _id="take")],
  "1/2-1/2", "insufficient_material", cite(U, "illegal.no_material_rule"),
  rulings=[("take", "result", cite(U, "illegal.no_material_rule"))],
  covers=["docs/arbiter.md: taking the king is the illegal-move claim; the claimant (K+B) has no mating material: draw (uscf-2020 8d)",
          "White, in check from Bb4, played Qh5 leaving the check"])

# ============================================================ sixth batch: classification edges

EVS3 = [mv(2000, "white", "e2e4"), mv(10000, "black", "e7e5"), mv(11000, "white", "g1f3"), end(20000)]
for rs, tc, why in [
    (U, "G/7;d3", "total 7 + 3 = 10 minutes: the most a US blitz control may total (uscf-2020 1b TD tip)"),
    (F, "5+5", "5 + 60 x 5 s = 10 minutes: still blitz under fide-b3 B.1"),
    (C, "G/3;inc2", "uscf-classic intro: total 3 + 2 = 5 minutes, within its 5 to 10 (G/3+2 is named there)"),
]:
    S(rs, "tc-edge-accepted-" + tc.replace("/", "").replace(";", "-").replace("+", "plus"), {"time_control": tc},
      list(EVS3), "*", None, None, rulings=[], fen="auto",
      covers=[f"RULES §1: {tc} accepted by {rs}: {why}"])
for rs, tc, why in [
    (U, "G/8;d3", "total 8 + 3 = 11 minutes is more than 10 (uscf-2020 1b TD tip)"),
    (F, "5+6", "5 + 6 = 11 minutes (fide-b3 B.1)"),
    (C, "G/3", "uscf-classic intro defines blitz as 5 to 10 minutes of total playing time; G/3 totals 3"),
]:
    if rs == F:
        continue  # already covered by tc-rejected-5plus6
    E(rs, "tc-edge-rejected-" + tc.replace("/", "").replace(";", "-"),
      [{"rules": rs, "time_control": tc}, {"at": 1000, "by": "white", "move": "e2e4", "press": True}],
      1, "time_control", [f"RULES §1: {tc} is not blitz under {rs}: {why}",
                          "a time control the ruleset forbids is a script error on line 1, field time_control"])

# ============================================================ seventh batch

S(I, "threefold-side-to-move-differs", {"fen": "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"},
  seq("a1a2 e8d8 a2a1 d8e8 a1a2 e8d8 a2a3 d8e8 a3a1") +
  [claim(10000, "black", "threefold", _id="c", _adj={"white": MIN}), mv(11000, "black", "e8d8")],
  "*", None, None, rulings=[("c", "claim_rejected", cite(I, "draws.wrong_claim_rule"))],
  clock=(355000, 294000), fen="auto",
  covers=["RULES §4: repetition compares the side to move: the start placement occurs twice with White to move and now once with Black to move",
          "Black's claim is wrong: one minute to White (club-ilc 5)", "W used 5000, +60000; B used 4000 + 2000"])
S(C, "claim-after-retracted-illegal-rejected", {},
  seq("e2e4 e7e5") + [mv(3000, "white", "f1e3", press=False, _illegal=True), retract(3500, "white"),
                      mv(4000, "white", "f1c4"), claim(5000, "black", "illegal", _id="c")],
  "*", None, None, rulings=[("c", "claim_rejected", cite(C, "illegal.rule"))], clock=(297000, 298000), fen="auto",
  covers=["uscf-classic 2: an illegal move retracted before the press was never completed; the completed Bc4 is legal: claim rejected"])
S(U, "refused-action-keeps-window-open", {},
  seq("e2e4 e7e5") + [mv(3000, "white", "f1e3", _illegal=True), mv(3500, "black", "d2d3", press=False, _refused=True, _id="r"),
                      claim(4000, "black", "illegal", _id="c")],
  "0-1", "illegal_move", cite(U, "illegal.rule"),
  rulings=[("r", "refused"), ("c", "result", cite(U, "illegal.rule"))], fen="auto",
  covers=["docs/arbiter.md: a refused event changes nothing: Black touching White's pawn is no move of his own, so the window (uscf-2020 3b) stays open",
          "the claim then wins (uscf-2020 7d)"])
S(F, "add-time-white-10-black-9", {},
  seq(" ".join(ruy[:19])) + [add_time(19500, "white", -30000, "correction", _id="t")],
  "*", None, None, rulings=[("t", "time_change", cite(F, "time.setup_rule"))], clock=(260000, 290500), fen="auto",
  covers=["fide-b3 A.5.1.1: the setting may change until both players have completed 10 moves; White has 10, Black 9",
          "W used 10000 then -30000; B used 9000, running 19000-19500"])
S(U, "bronstein-flag-no-delay-before-counting", {"time_control": "G/5;b3"}, [mv(1000, "white", "e2e4"), end(302000)],
  "*", None, None, rulings=[], clock=(300000, -1000),
  covers=["RULES §1 Bronstein: the clock counts at once (the give-back comes only at the press), so Black's flag falls at 301000",
          "no automatic flagging in uscf-2020: the game goes on with Black at -1000"])

# ============================================================ eighth batch: pressing the clock without a move
# (issue 11 item 2; docs/arbiter.md "Moves"; `moves.press_without_move`)

PW = "moves.press_without_move_rule"
for rs, why in [(U, "uscf-2020 9: the opponent of a player who displaced pieces may press the clock without moving"),
                (C, "docs/arbiter.md choice: uscf-classic is silent; its intro keeps the US Chess rules (uscf-2020 9)"),
                (B, "blitz-2006 9: the opponent may start the culprit's clock without making a move")]:
    S(rs, "press-without-move-displaced-pieces", {},
      [mv(1000, "white", "e2e4"), press(2000, "black", _id="p1"), press(4000, "white", _id="p2"),
       mv(5000, "black", "e7e5")],
      "*", None, None, rulings=[("p1", "clock", cite(rs, PW)), ("p2", "clock", cite(rs, PW))], fen="auto",
      covers=[why, "White replaces the pieces on his own time (2000 to 4000) and presses back; Black, still on move, moves",
              "W used 1000 + 2000, B 1000 + 1000; the position is unchanged by the presses"])
S(U, "press-without-move-pawn-on-last-rank", {"fen": "r7/4P3/8/8/8/8/k7/6K1 w - - 0 1"},
  [mv(1000, "white", "e7e8", _illegal=True), press(2000, "black", _id="p1"), press(4000, "white", _id="p2"),
   claim(4500, "black", "illegal", _id="c")],
  "0-1", "illegal_move", cite(U, "illegal.rule"),
  rulings=[("p1", "clock", cite(U, PW)), ("p2", "clock", cite(U, PW)), ("c", "result", cite(U, "illegal.rule"))],
  fen="auto",
  covers=["uscf-2020 16: White pressed with the pawn on the last rank; Black restarts White's clock without moving",
          "a press without a move is no move of Black's: the claim window (uscf-2020 3b) stays open, and the claim wins (7d)"])
S(U, "press-without-move-not-your-clock-refused", {},
  [mv(1000, "white", "e2e4"), press(1500, "white", _refused=True, _id="r"), mv(2000, "black", "e7e5")],
  "*", None, None, rulings=[("r", "refused", cite(U, "moves.completed_rule"))], fen="auto",
  covers=["docs/arbiter.md: only the side whose clock runs can press it; White pressing Black's running clock is refused"])
PASS_WHY = ("fide-b3 A.5.2 (Laws 7.5.3): pressing the clock without making a move is an illegal move, and the press "
            "hands over the move: Black's press makes White's clock run and White is to move")
S(F, "press-without-move-claimed", {},
  [mv(1000, "white", "e2e4"), press(2000, "black", _id="p"),
   claim(3000, "white", "illegal", _id="c", _adj={"white": MIN}, _turn="black"), mv(4000, "black", "e7e5")],
  "*", None, None, rulings=[("p", "clock", cite(F, PW)), ("c", "claim_upheld", cite(F, "illegal.rule"))], fen="auto",
  covers=[PASS_WHY, "White, on move, claims it instead of moving (A.5.2)",
          "A.3: one minute to White; the turn goes back to Black, whose clock runs again, and Black moves"])
S(F, "press-without-move-arbiter-calls", {"arbiter_calls_illegal": True},
  [mv(1000, "white", "e2e4"), press(2000, "black", _id="p", _adj={"white": MIN}, _turn="black"),
   mv(3000, "black", "e7e5")],
  "*", None, None, rulings=[("p", "clock", cite(F, PW)), ("p", "claim_upheld", cite(F, "illegal.rule"))], fen="auto",
  covers=["fide-b3 A.5.2: the arbiter acts on the press without a move at once: one minute to White, the turn and "
          "the clock back to Black"])
S(F, "press-without-move-opponent-plays", {},
  [mv(1000, "white", "e2e4"), press(2000, "black", _id="p"), mv(2500, "black", "e7e5", _refused=True, _id="r"),
   mv(3000, "white", "d2d4"), claim(3500, "white", "illegal", _refused=True, _id="c"), mv(4000, "black", "e7e5")],
  "*", None, None,
  rulings=[("p", "clock", cite(F, PW)), ("r", "refused", cite(F, "moves.completed_rule")),
           ("c", "refused", cite(F, "illegal.window_rule"))],
  fen="auto",
  covers=[PASS_WHY, "Black, having handed over the move, cannot move (docs/arbiter.md: only the player on move)",
          "White does not claim but plays d4, a normal move: the press stands and the game continues (A.5.2); "
          "White's claim after that is too late",
          "W used 1000 + 1000, B 1000 + 1000: White was never left with a running clock and no move to make"])
S(F, "press-without-move-second-loses", {},
  [mv(1000, "white", "e2e4"), press(2000, "black", _id="p1"),
   claim(3000, "white", "illegal", _id="c1", _adj={"white": MIN}, _turn="black"),
   press(4000, "black", _id="p2"), claim(5000, "white", "illegal", _id="c2")],
  "1-0", "illegal_move", cite(F, "illegal.rule"),
  rulings=[("p1", "clock", cite(F, PW)), ("c1", "claim_upheld", cite(F, "illegal.rule")),
           ("p2", "clock", cite(F, PW)), ("c2", "result", cite(F, "illegal.rule"))],
  covers=["fide-b3 A.3: the second press without a move by the same player, claimed, loses like a second illegal move"])
# ============================================================ ninth batch: a player calls the director
# (issue 10; docs/rules.md §5.6, §5.7; `director.call_rule`)

from gen_scenarios import ev  # noqa: E402

CALL = "director.call_rule"


def call(at, by, reason=None, **ann):
    d = ev(at, by, call_director=True)
    if reason is not None:
        d["reason"] = reason
    d.update(ann)
    return d


CALL_WHY = {
    U: "uscf-2020 11: in a dispute either player may stop the clock while the director is summoned",
    C: "docs/rules.md §5.7: uscf-classic is silent; its intro keeps the US Chess rules (uscf-2020 11)",
    I: "docs/rules.md §5.7: club-ilc is silent; its intro keeps the US Chess blitz rules (uscf-2020 11)",
    F: "laws call_arbiter (Laws 6.12.2 through fide-b3 B.3): the clocks may be stopped to seek the arbiter's help",
    B: "blitz-2006 10: in a dispute either player may stop the clock while the director is summoned",
}
for rs in ALL:
    S(rs, "call-director-stops-clock", {},
      [mv(1000, "white", "e2e4"), call(5000, "black", "my opponent keeps talking", _stop=True, _id="c"),
       mv(6000, "black", "e7e5", _refused=True, _id="m"), start(65000, _id="s"), mv(70000, "black", "e7e5")],
      "*", None, None,
      rulings=[("c", "clock", cite(rs, CALL)), ("m", "refused", cite(rs, CALL)), ("s", "clock", cite(rs, "director.rule"))],
      clock=(299000, 291000), fen="auto",
      covers=[CALL_WHY[rs], "the clock stops at the call; a move while the director is awaited is refused",
              "the director's start_clock answers the call: B ran 1-5 s and 65-70 s: 9000 used"])
    S(rs, "call-director-second-call-refused-director-takes-over", {},
      [mv(1000, "white", "e2e4"), call(3000, "white", _stop=True, _id="c1"), call(4000, "black", _refused=True, _id="c2"),
       stop(10000, _id="st"), start(20000, _id="s"), mv(25000, "black", "e7e5")],
      "*", None, None,
      rulings=[("c1", "clock", cite(rs, CALL)), ("c2", "refused", cite(rs, CALL)),
               ("st", "clock", cite(rs, "director.rule")), ("s", "clock", cite(rs, "director.rule"))],
      clock=(299000, 293000), fen="auto",
      covers=[CALL_WHY[rs], "docs/rules.md §5.6: a second call while one waits is refused",
              "the director's stop_clock takes the stopped clock over; start_clock restarts it: B ran 1-3 s and 20-25 s"])
S(F, "call-director-no-flag-while-stopped", {},
  [mv(1000, "white", "e2e4"), call(299000, "black", _stop=True, _id="c"), end(400000)],
  "*", None, None, rulings=[("c", "clock", cite(F, CALL))], clock=(299000, 2000),
  covers=["docs/rules.md §5.6: nothing runs while the arbiter is awaited, so Black's flag (2 s left) does not fall",
          "fide-b3 flags automatically (A.5.5), yet the record ends at 400 s with the game going on"])
S(U, "call-director-then-director-result", {},
  [mv(1000, "white", "e2e4"), call(2000, "black", "White's clock was set wrongly", _stop=True, _id="c"),
   dresult(30000, "1/2-1/2", _id="r")],
  "1/2-1/2", "director", cite(U, "director.result_rule"),
  rulings=[("c", "clock", cite(U, CALL)), ("r", "result", cite(U, "director.result_rule"))], clock=(299000, 299000),
  covers=["uscf-2020 11: the director, summoned, hears both players and rules; a declared result answers the call (18)"])
S(U, "call-director-no-director-refused", {"director": False},
  [mv(1000, "white", "e2e4"), call(2000, "black", _refused=True, _id="c"), mv(3000, "black", "e7e5")],
  "*", None, None, rulings=[("c", "refused", cite(U, CALL))], fen="auto",
  covers=["docs/rules.md §5.6: with no director present (`director: false`) there is no one to call; the clock runs on"])
E(U, "call-director-reason-too-long",
  [{"rules": U, "time_control": "G/5;d0"}, {"at": 1000, "by": "white", "call_director": True, "reason": "x" * 201}],
  2, "reason", ["docs/game-script.md §3: a call's reason is at most 200 characters"])
E(U, "reason-without-call",
  [{"rules": U, "time_control": "G/5;d0"}, {"at": 1000, "by": "white", "resign": True, "reason": "tired"}],
  2, "reason", ["docs/game-script.md §3: `reason` goes only with call_director"])

# ============================================================ tenth batch: PGN tag values
# (issue 19 item 16; crates/flagfall-game/src/pgn.rs, docs/game-script.md §6)

S(U, "player-names-control-characters",
  {"white": "\"]\n1. f3 e5 2. g4 Qh4# 0-1", "black": "Tab\there \\ \"quoted\"\r\n[Result \"1-0\"]"},
  seq("e2e4 e7e5 g1f3"),
  "*", None, None, rulings=[], fen="auto",
  covers=["setup: player names are free text, kept as given in the script",
          "PGN (docs/game-script.md §6): a name's newline cannot end its tag; python-chess must read these names "
          "with spaces for the control characters and exactly the three moves played (scripts/check_pgn_readers.py)"])

# ============================================================ eleventh batch: the director's own time change
# (issue 19 item 5; docs/rules.md §1.5, §5.8; `director.adjust_time`)

AT = "director.adjust_time_rule"
AT_WHY = {
    U: "uscf-2020 12: the director may pick up the clock to assess penalties or adjust time, at any moment; "
       "rule 3's deadline is for correcting the clock setting (docs/rules.md §5.8)",
    C: "docs/rules.md §5.8: uscf-classic is silent; the ordinary US Chess rules it keeps (uscf-2020 12) let the director "
       "adjust time at any moment, whatever rule 3 says of the setting",
    I: "docs/rules.md §5.8: club-ilc is silent; the US Chess blitz rules it keeps (uscf-2020 12) let the director "
       "adjust time at any moment",
    F: "laws adjust_time: the arbiter's own time change applies after ten moves each too; A.5.1.1 limits only "
       "changes of the clock setting (docs/rules.md §5.8)",
    B: "blitz-2006 10: the director's decision in a dispute may change the time at any moment; 3 voids only "
       "claims to correct the setting (docs/rules.md §5.8)",
}
for rs in ALL:
    if rs == F:
        # Ten moves each, one press a second: the set-up window has closed at 20000.
        pre, t0, nxt = seq(RUY10), 20000, "b1d2"
    else:
        pre, t0, nxt = [mv(1000, "white", "e2e4"), mv(2000, "black", "e7e5")], 2000, "g1f3"
    S(rs, "add-time-decision-after-setup", {},
      pre + [add_time(t0 + 500, "black", MIN, _id="t1"), add_time(t0 + 600, "white", -30000, _id="t2"),
             mv(t0 + 1000, "white", nxt)],
      "*", None, None, rulings=[("t1", "time_change", cite(rs, AT)), ("t2", "time_change", cite(rs, AT))],
      fen="auto",
      covers=[AT_WHY[rs],
              "add_time without a kind is the director's own decision: +1:00 to Black and -0:30 to White, both after "
              "the set-up window, both applied"])
    S(rs, "add-time-decision-during-call", {},
      pre + [call(t0 + 3000, "black", "my opponent keeps talking", _stop=True, _id="c"),
             add_time(t0 + 20000, "black", MIN, _id="t"), start(t0 + 25000, _id="s"), mv(t0 + 27000, "white", nxt)],
      "*", None, None,
      rulings=[("c", "clock", cite(rs, CALL)), ("t", "time_change", cite(rs, AT)), ("s", "clock", cite(rs, "director.rule"))],
      fen="auto",
      covers=[AT_WHY[rs],
              "Black calls the director over a disturbance; the director gives Black a minute while the clock is stopped "
              "and restarts it; White's clock ran before the call and after the restart only"])
S(U, "add-time-decision-takes-flag-down",
  {},
  [mv(1000, "white", "e2e4"), mv(2000, "black", "e7e5"), add_time(2500, "white", -298000, _id="t"),
   claim(3000, "black", "flag", _id="c")],
  "0-1", "time_forfeit", cite(U, "flags.flag_rule"),
  rulings=[("t", "time_change", cite(U, AT)), ("c", "result", cite(U, "flags.flag_rule"))],
  covers=["uscf-2020 12: a time change the director decides on may take a player's flag down (here a penalty the "
          "director chose: White, 298500 at 2500, loses 298000)",
          "White's flag falls at 3000; Black's flag claim wins (7c)"])
E(U, "add-time-kind-unknown",
  [{"rules": U, "time_control": "G/5;d0"}, {"at": 1000, "by": "director", "add_time": {"color": "white", "ms": 60000, "kind": "bonus"}}],
  2, "add_time.kind", ["docs/game-script.md §3: an add_time's kind is \"decision\" or \"correction\""])

# ============================================================ twelfth batch: a press without a move, per ruleset text
# (issue 19 item 4; docs/rules.md §2.11, §2.12; `moves.press_without_move`)

S(F, "press-without-move-pressed-back-is-illegal", {},
  [mv(1000, "white", "e2e4"), press(2000, "black", _id="p1"), press(3000, "white", _id="p2"),
   claim(3500, "black", "illegal", _id="c", _adj={"black": MIN}, _turn="white"), mv(4000, "white", "d2d4"),
   mv(5000, "black", "e7e5")],
  "*", None, None,
  rulings=[("p1", "clock", cite(F, PW)), ("p2", "clock", cite(F, PW)), ("c", "claim_upheld", cite(F, "illegal.rule"))],
  fen="auto",
  covers=[PASS_WHY,
          "White, on move, presses back without a move: that press is an illegal move of White's too (Laws 7.5.3), "
          "and it is White's next move, so Black's press stands (A.5.2)",
          "Black claims White's press: one minute to Black, the turn back to White, who plays d4"])
S(F, "press-without-move-threefold-counts-the-turn", {},
  [press(1000, "white", _id="p")] + seq("g8f6 g1f3 f6g8 f3g1 g8f6 g1f3 f6g8 f3g1", t0=1000, first="black")
  + [claim(9500, "black", "threefold", _id="c")],
  "1/2-1/2", "repetition", cite(F, "draws.threefold_rule"),
  rulings=[("p", "clock", cite(F, PW)), ("c", "result", cite(F, "draws.threefold_rule"))],
  covers=["fide-b3 A.5.2: White's press without a move stands (Black plays on); it handed the move to Black in the "
          "start position, which is a position with Black to move",
          "laws threefold: the knights go out and back twice, and the start position with Black to move stands for the "
          "third time: Black's claim is correct (it would be wrong if the press had not counted)"])
for rs, why in [(U, "uscf-2020 9"), (C, "docs/rules.md §2.12: uscf-classic keeps uscf-2020 9"),
                (I, "docs/rules.md §2.12: club-ilc keeps uscf-2020 9"), (B, "blitz-2006 9")]:
    S(rs, "press-without-move-culprit-presses-back", {},
      [mv(1000, "white", "e2e4"), press(2000, "black", _id="p1"), mv(2500, "white", "d2d4", _refused=True, _id="r"),
       press(4000, "white", _id="p2"), mv(5000, "black", "e7e5")],
      "*", None, None,
      rulings=[("p1", "clock", cite(rs, PW)), ("r", "refused", cite(rs, "moves.completed_rule")),
               ("p2", "clock", cite(rs, PW))],
      fen="auto",
      covers=[f"{why}: the opponent of a player who displaced pieces may start that player's clock without moving, "
              "so that he puts them right on his own time: the move stays with the presser",
              "White, whose clock now runs, cannot make a move (it is Black's move); he presses back when the pieces "
              "stand right, and Black, still on move, moves"])
