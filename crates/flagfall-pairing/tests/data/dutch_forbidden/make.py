#!/usr/bin/env python3
"""Make the forbidden-pair cases from the conformance cases (see README.md).

Usage: make.py BBPPAIRINGS   (the bbpPairings executable, built from the commit the
README names). Run from this folder; reads ../dutch/caseNNN.trf and .pairs, writes
fNNN.trf and fNNN.pairs here."""

import pathlib
import subprocess
import sys

CASES = [1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34, 37, 40, 43, 46, 49, 52, 55, 58,
         61, 64, 67, 70, 73, 76, 79, 80]


def boards(pairs_text):
    lines = pairs_text.split("\n")[1:]
    out = []
    for line in lines:
        w, b = line.split() if line.strip() else ("0", "0")
        if b != "0":
            out.append((int(w), int(b)))
    return out


def main():
    bbp = sys.argv[1]
    here = pathlib.Path(".")
    made = 0
    for n in CASES:
        trf = pathlib.Path(f"../dutch/case{n:03}.trf").read_text()
        original = boards(pathlib.Path(f"../dutch/case{n:03}.pairs").read_text())
        if len(original) < 6:
            continue
        played = max(int(l[3:].split()[0]) for l in trf.splitlines() if l.startswith("XXR"))
        # The round being paired: the last column with a game or a U, plus one.
        rnd = 0
        for line in trf.splitlines():
            if line.startswith("001"):
                for r in range((len(line) - 91 + 9) // 10):
                    block = line[91 + 10 * r: 99 + 10 * r]
                    if len(block) >= 8 and (block[:4].strip() not in ("", "0000") or block[7] == "U"):
                        rnd = max(rnd, r + 1)
        rnd += 1
        (a, b), (c, d), (e, _), (g, h), (i, j) = original[0], original[1], original[2], original[4], original[5]
        extra = [
            f"XXP {a} {b}",
            f"XXP {c} {d} {e}",
            f"260 {rnd:>3} {played:>3} {g:>4} {h:>4}",
            # Not in force this round: must change nothing.
            f"260 {1:>3} {max(rnd - 1, 1):>3} {i:>4} {j:>4}",
        ]
        lines = trf.splitlines()
        at = max(k for k, l in enumerate(lines) if not l.startswith("001")) + 1
        text = "\n".join(lines[:at] + extra + lines[at:]) + "\n"
        name = f"f{n:03}"
        (here / f"{name}.trf").write_text(text)
        result = subprocess.run([bbp, "--dutch", f"{name}.trf", "-p", f"{name}.pairs"],
                                capture_output=True, text=True)
        if result.returncode != 0:
            print(f"{name}: bbpPairings exit {result.returncode}: {result.stderr.strip()}")
            (here / f"{name}.pairs").write_text("")
            (here / f"{name}.pairs").unlink()
            (here / f"{name}.trf").unlink()
            continue
        made += 1
        new = boards((here / f"{name}.pairs").read_text())
        print(f"{name}: round {rnd}, {len(original)} boards, pairing changed: {new != original}")
    print(f"{made} cases")


if __name__ == "__main__":
    main()
