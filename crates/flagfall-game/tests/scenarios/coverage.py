#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes COVERAGE.md: docs/rules.md sections x the five rulesets, naming the scenario files.
Run after make_scenarios.py (it reads the written directories)."""

import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
IDS = ["uscf-2020", "uscf-classic", "club-ilc", "fide-b3", "blitz-2006"]
U, C, I, F, B = IDS

# (docs/rules.md section, name patterns (regex on the file stem), {ruleset: "n/a: why"})
ROWS = [
    ("§1", "Notation accepted (G/5, G/5;d0, G/5;d3, G/5;b3, G/3;inc2, 3+2, 5|0)",
     [r"tc-accepted", r"tc-edge-accepted", r"^us-delay-d3$", r"^bronstein-b3$", r"^increment-"], {}),
    ("§1", "Forbidden time control rejected (script error, line 1, time_control)",
     [r"tc-rejected", r"tc-edge-rejected", r"bad-time-control-notation"], {}),
    ("§1", "US delay / Bronstein / increment arithmetic",
     [r"^us-delay", r"^bronstein", r"^increment", r"tc-accepted-G5-d3", r"tc-accepted-3plus2", r"tc-accepted-G3-inc2", r"claim-restart"],
     {B: "n/a: blitz-2006 1 forbids any delay (see tc-rejected-G5-d3, -G5-b2, -3plus2)"}),
    ("§1", "Clock runs below zero after a flag; nothing ends by itself (no auto flag)",
     [r"flag-down-clock-runs-on"], {F: "n/a: fide-b3 A.5.5 calls the flag by default (see flag-auto-default)"}),
    ("§1/§3", "Automatic flagging (fide default; auto_flag true in a US ruleset); `end` event",
     [r"flag-auto", r"increment-3plus2-flag-auto", r"mate-after-own-flag-fell"],
{}),
    ("§1", "Director corrects the clock inside the set-up window (US 1 move, fide 10 moves)",
     [r"add-time-in-setup-window", r"add-time-after-9-moves", r"reduce-excess", r"add-time-raises", r"add-time-white-10"], {}),
    ("§1", "After the window the clock setting stays as set (a correction is refused)",
     [r"add-time-after-setup-refused", r"add-time-after-10-moves-refused", r"reduce-excess-refused",
      r"add-time-positive-after-setup-refused"], {}),
    ("§1", "Excess-time reduction after the window (uscf-classic 3, blitz-2006 3)",
     [r"reduce-excess"], {I: "n/a: club-ilc has no such rule (reduce_excess_after_setup false)",
                          F: "n/a: not in fide-b3 (A.5.1.1 only)"}),
    ("§2", "Physical board: castling moves the rook, en passant removes the pawn, promotion, notation forms",
     [r"en-passant-capture", r"castling-king-onto-rook", r"shredder", r"kq-swapped-mirror", r"illegal-pawn-not-promoted-first"],
{}),
    ("setup", "Setup fields: names, simultaneous_ms, variation (string or list), director false, auto_flag, arbiter_calls_illegal",
     [r"player-names", r"variation", r"no-director", r"simultaneous-within", r"flag-auto-enabled", r"arbiter-calls",
      r"flag-auto-us-delay", r"unknown-setup-field", r"unknown-variation"], {}),
    ("§2", "Illegal kind: wrong piece movement", [r"illegal-wrong-movement", r"mate-by-illegal"], {}),
    ("§2", "Illegal kind: own king left in check", [r"illegal-king-left-in-check", r"take-king-with-bishop"], {}),
    ("§2", "Illegal kind: own king put in check", [r"illegal-king-put-in-check"], {}),
    ("§2", "Illegal kind: castling through check / castling not allowed",
     [r"illegal-castling-through-check", r"kq-swapped-no-castling", r"rook-misplaced-no-castling"], {}),
    ("§2", "Illegal kind: king next to king", [r"illegal-king-next-to-king", r"king-takes-king", r"king-adjacent"], {}),
    ("§2", "Illegal kind: pawn not promoted",
     [r"illegal-pawn-not-promoted", r"illegal-position-pawn", r"illegal-position-removed"],
     {B: "n/a (deliberately): blitz-2006 17 limits the opponent of a pawn left on the last rank to stopping the clocks "
         "until a piece is found; whether a win may be claimed instead is not settled by docs/rules.md: left to the lead"}),
    ("§2", "Retracting an illegal move; touch move after the retraction",
     [r"retract-illegal"], {}),
    ("§2", "Retracting a legal move (refused; allowed in blitz-2006 15)", [r"retract-legal", r"retract-after-press"], {}),
    ("§2", "Claim window: own_move_made v own_move_completed (move made, claim before the press)",
     [r"claim-after-own-move-made"], {}),
    ("§2", "Claim after the window (own move completed): refused, position stands",
     [r"claim-after-own-move-completed", r"illegal-unclaimed-stands"], {}),
    ("§2", "First completed illegal move claimed (loss; fide +1 min and reinstate)",
     [r"illegal-.*-claimed", r"illegal-.*-first-minute", r"variation-illegal"], {}),
    ("§2", "Later illegal moves (fide second loses; uscf-classic variation each time +1 min)",
     [r"illegal-second", r"variation-illegal-one-minute", r"illegal-first-each", r"illegal-unclaimed-does-not", r"arbiter-calls-second"],
     {U: "n/a: every illegal move loses (illegal.later = loss), same as the first", I: "n/a: same as the first (loss)",
      B: "n/a: same as the first (loss)"}),
    ("§2", "Claimant lacks mating material (draw)",
     [r"illegal-claimant", r"illegal-second-bare-king-draw", r"illegal-stalemate"], {}),
    ("§2", "Claim by taking the king (blitz-2006 16: not with the king)",
     [r"take-king", r"king-takes-king"], {F: "n/a: fide-b3 has no claim by king capture (claim_by_king_capture false)"}),
    ("§2", "King-adjacent trap (uscf-2020 7d, uscf-classic 2b); its absence elsewhere",
     [r"king-adjacent"], {F: "n/a: no trap rule; a claim there is an ordinary fide first illegal move (+1 min)"}),
    ("§2", "Simultaneity: same ms, within simultaneous_ms, earlier flag claim survives",
     [r"simultaneous", r"flag-claim-before-illegal-claim", r"illegal-claim-before-flag-claim"],
     {F: "n/a: fide-b3 illegal moves do not lose at once (first: +1 min), and the arbiter calls flags"}),
    ("§2", "fide-b3 A.5.2 arbiter calls the illegal move; touch move after reinstatement",
     [r"arbiter-calls-illegal", r"touch-move-after-reinstatement"],
     {U: "n/a: arbiter_may_call false (uscf-2020 13: the director is silent)", C: "n/a: arbiter_may_call false",
      I: "n/a: arbiter_may_call false", B: "n/a: blitz-2006 12: the director is silent about illegal moves"}),
    ("§2", "fide-b3 A.5.4 illegal position (pawn on the far rank, both kings in check)",
     [r"illegal-position"], {U: "n/a: fide-b3 only", C: "n/a: fide-b3 only", I: "n/a: fide-b3 only", B: "n/a: fide-b3 only"}),
    ("§3", "Flag claim: win; too early (rejected)", [r"flag-claim-"], {}),
    ("§3", "Mating material: K+B v K+P (fide win, US draw)", [r"flag-kb-v-kp"], {}),
    ("§3", "Mating material: K+N+N v K (US draw, fide win)", [r"flag-knn"],
{}),
    ("§3", "Claimant cannot mate at all (bare king; fide locked pawns)",
     [r"flag-claimant-bare-king", r"flag-locked-pawns", r"flag-auto-opponent-no-material"],
{}),
    ("§3", "Mating material, other cases (US: a pawn always; K+N+N v K+P; fide: K+N v K+N, K+B v K+B by bishop colour)",
     [r"flag-kp-v-kq", r"flag-knn-v-kp", r"flag-kn-v-", r"flag-kb-v-kb-"],
{}),
    ("§3", "Own flag down: claim void; both flags down: draw", [r"own-flag-down-void", r"both-flags-claim-rejected", r"both-flags-rejected"], {}),
    ("§3", "Checkmate after both flags fell, before the claim; mate nullifies later time claims",
     [r"mate-after-both-flags"], {F: "n/a: the arbiter calls the first flag (A.5.5); see mate-after-own-flag-fell-auto"}),
    ("§4", "Stalemate (blitz-2006 8a: stands against a simultaneous flag claim)", [r"stalemate"], {}),
    ("§4", "Checkmate (laws); a 'mate' by an illegal move is not mate", [r"fools-mate", r"scholars-mate", r"mate-by-illegal", r"mate-with-own-flag", r"illegal-stalemate"], {}),
    ("§4", "Agreement: offer/accept/decline/lapse by moving; accept with no offer",
     [r"draw-agreed", r"draw-declined", r"draw-offer-before", r"draw-offer-lapses", r"accept-without-offer", r"own-offer-accept"], {}),
    ("§4", "Threefold repetition (with/without intended move; incorrect: +1 min to the opponent)",
     [r"threefold"], {}),
    ("§4", "Fifty moves (halfmove clock 98/99/100; incorrect: +1 min)", [r"fifty"], {}),
    ("§4", "ILC (club-ilc 4.3: granted, denied -1 min, not with delay, not over a minute; refused elsewhere)",
     [r"^ilc"], {}),
    ("§4", "blitz-2006 claimable draws 8e/8g/8h/8i (granted, denied +1 min to opponent; refused elsewhere)",
     [r"draw-position"], {}),
    ("§4", "Dead position (fide-b3 automatic; not in the US rulesets)", [r"dead-position", r"not-dead"],
{}),
    ("§5", "Standard penalty +1 min to the opponent; repeats", [r"^penalty-"],
     {B: "n/a: blitz-2006 uses ladders (next row)"}),
    ("§5", "blitz-2006 ladders (two hands, displaced pieces incl. flag down, knocked clock, banging, touch move)",
     [r"ladder", r"displaced-pieces-warning", r"knocked-clock", r"banging", r"touch-move-not-an-offence"],
     {U: "n/a: standard penalty", C: "n/a: standard penalty", I: "n/a: standard penalty", F: "n/a: standard penalty (A.3)"}),
    ("§5", "The director's own time change applies at any moment (§5.8); a correction of the setting follows §1.5",
     [r"add-time-decision", r"add-time-kind"], {}),
    ("§5", "Director stop/start clock", [r"stop-start"],
{}),
    ("§5", "A player calls the director: the clock stops until the director acts (§5.6, §5.7)",
     [r"call-director", r"reason-without-call"], {}),
    ("§5", "Director result, default reason, override, cancel", [r"director-result", r"director-cancel", r"director-overrides"], {}),
    ("§5", "Resignation (and a move after the game ended)", [r"resign"], {}),
    ("§5", "Wrong party: player sends a director action; director sends a move or claim; spectators",
     [r"player-.*-refused", r"director-move-refused", r"director-claim-refused", r"spectator"],
     {}),
    ("§6", "King and queen swapped: mirror castling (uscf-2020 3a, blitz-2006 19, club-ilc by inheritance)",
     [r"kq-swapped-mirror"], {C: "n/a: uscf-classic 3: no castling (next row)", F: "n/a: fide-b3 A.5.1.2: no castling (next row)"}),
    ("§6", "King or rook set up wrong: no castling (uscf-classic 3, fide-b3 A.5.1.2)",
     [r"kq-swapped-no-castling", r"rook-misplaced"],
     {U: "n/a: mirror castling (row above)", I: "n/a: mirror castling (row above)", B: "n/a: mirror castling (row above)"}),
    ("§6", "Castling rights in Shredder form; king-onto-rook notation",
     [r"shredder", r"castling-king-onto-rook", r"kq-swapped", r"rook-misplaced-no-castling"], {}),
    ("§2", "Pressing the clock without a move (uscf-2020 9/16, blitz-2006 9: the culprit's clock runs, he presses back; "
           "fide-b3 A.5.2 via Laws 7.5.3: an illegal move that hands over the move; docs/rules.md §2.12 for the silent texts)",
     [r"press-without-move"], {}),
    ("refusals", "Move after the game ended; claim after the window / after the end; out of turn; impossible placements",
     [r"resign", r"claim-after", r"move-out-of-turn", r"second-move-before-press", r"press-without-move-not-your-clock",
      r"move-from-empty", r"move-opponent-piece", r"capture-own-piece", r"claim-illegal-after-legal", r"ruling-without", r"refused-action", r"claim-after-retracted"], {}),
    ("errors", "Script errors (bad JSON, unknown field, bad square, backwards at, unknown ruleset, missing by, unknown claim, ...)",
     [r"\.error$"], {}),
]


def stems(rs):
    d = os.path.join(HERE, rs)
    out = []
    for f in sorted(os.listdir(d)):
        if f.endswith(".jsonl"):
            out.append(f[: -len(".jsonl")])
    return out


def main():
    all_stems = {rs: stems(rs) for rs in IDS}
    lines = ["# Scenario coverage: docs/rules.md sections x rulesets", "",
             "Generated by `coverage.py` from the files present (run `make_scenarios.py` first).",
             "A cell names the scenario files (without `.jsonl`) under `<ruleset>/`; `n/a` says why a row does not apply.",
             "Disagreements with the arbiter are not listed here (see the final report of the scenarios helper).", ""]
    gaps = []
    used = {rs: set() for rs in IDS}
    for sec, row, pats, na in ROWS:
        lines.append(f"## {sec} {row}")
        lines.append("")
        lines.append("| ruleset | scenarios |")
        lines.append("|---|---|")
        for rs in IDS:
            hits = [s for s in all_stems[rs] if any(re.search(p, s[4:]) for p in pats)]
            used[rs].update(hits)
            cell = ", ".join(f"`{h}`" for h in hits)
            if rs in na:
                cell = (cell + "; " if cell else "") + na[rs]
            if not cell:
                cell = "**GAP**"
                gaps.append((row, rs))
            lines.append(f"| {rs} | {cell} |")
        lines.append("")
    unused = {rs: [s for s in all_stems[rs] if s not in used[rs]] for rs in IDS}
    total = sum(len(v) for v in all_stems.values())
    lines += [
        "## Interpretations the expectations rely on (confirm with the lead)", "",
        "- uscf-classic intro: blitz is 5 to 10 minutes of *total* time, so `G/3` is rejected there "
        "(`uscf-classic/067-tc-edge-rejected-G3`); the ruleset file's `policy = \"us\"` accepts 1 to 10 minutes.",
        "- Pawn left unpromoted is an illegal move that loses when claimed in uscf-2020, uscf-classic and club-ilc "
        "(RULES §2 list; uscf-2020 17 TD tip), although uscf-2020 16 describes a clock remedy; blitz-2006 (17) is left out.",
        "- No king-adjacent trap in club-ilc and blitz-2006 (ruleset data): the claimant of the adjacent-king check wins.",
        "- An ILC claim accepted by the opponent as a draw offer ends by `agreement` (club-ilc 4), not `ilc`.",
        "- With automatic flagging, a flag found before an event ends the game on that event's ruling, and the event itself is refused.",
        "- fide-b3 A.3: only illegal moves that were claimed or called count towards the losing second one.",
        "",
    ]
    lines.append(f"Total: {total} scenarios (" + ", ".join(f"{rs} {len(all_stems[rs])}" for rs in IDS) + ").")
    with open(os.path.join(HERE, "COVERAGE.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    for g in gaps:
        print("GAP", g)
    for rs, u in unused.items():
        if u:
            print("unclassified", rs, u)


if __name__ == "__main__":
    main()
