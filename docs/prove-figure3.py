#!/usr/bin/env python3
"""Runs `gdlc prove --json` on the games of Figure 3 of Haufe, Schiffel and Thielscher
(those in the corpus) and prints a markdown table in the figure's form, next to the
paper's figures.

    cargo build --release -p gdlc
    python3 docs/prove-figure3.py target/release/gdlc ../shared/games > docs/prove-figure3.md

`gdlc prove` runs with its default options (a time limit of 30 s of solving per program,
5,000,000 ground atoms per program) unless TIME_LIMIT or MAX_GROUND are set; each process
gets at most GAME_SECONDS (default 600) of wall time. With
SPLIT=1 a game is proved in four processes: functionals alone, then functionals with each
other class (functionals are assumed by the later classes), so that a class cut off does
not hide the others; the functionals' time is taken from the first. Extra arguments after
the games directory restrict the games. A cut-off class is shown with a dash. Times are seconds of grounding and solving per class (the paper's
include generating the programs, ours generate them in milliseconds).
"""

import json
import os
import subprocess
import sys
import time

# game file stem -> (functionals, legals, goals, persistence) as printed in Figure 3
PAPER = {
    "3pttc": ("0.34 (4/10)", "0.77 (y,y)", "0.30 (?,y,y)", "0.73 (77/354)"),
    "bidding-tictactoe": ("0.17 (1/10)", "0.09 (?,n)", "0.17 (?,?,?)", "0.21 (9/89)"),
    "breakthrough": ("0.81 (3/3)", "1.41 (y,y)", "1.45 (y,y,y)", "1.06 (32/242)"),
    "capture_the_king": ("– (3/8)", "3.26 (?,y)", "3.37 (y,y,n)", "65.81 (7/1710)"),
    "catcha_mouse": ("0.27 (4/5)", "0.15 (?,y)", "0.36 (?,y,y)", "1.19 (359/896)"),
    "cephalopodmicro": ("1.70 (5/17)", "0.49 (y,y)", "1.47 (y,y,y)", "1.59 (18/209)"),
    "checkers": ("– (3/8)", "–", "9.90 (?,?,?)", "–"),
    "chinesecheckers6": ("– (4/6)", "1.27 (y,y)", "45.26 (?,?,y)", "29.12 (80/634)"),
    "chomp": ("0.13 (3/4)", "0.08 (?,y)", "0.12 (y,y,y)", "0.12 (58/61)"),
    "connect4": ("0.22 (2/3)", "0.24 (?,y)", "0.37 (y,y,?)", "0.29 (294/492)"),
    "endgame": ("– (4/6)", "3.23 (?,y)", "1.22 (y,y,?)", "7.15 (2/511)"),
    "knightfight": ("0.81 (3/10)", "2.25 (?,y)", "0.83 (?,?,n)", "1.59 (100/602)"),
    "kriegtictactoe": ("0.15 (4/11)", "0.08 (?,y)", "0.21 (y,y,?)", "0.14 (27/74)"),
    "othello-comp2007": ("4.80 (3/5)", "1.55 (y,y)", "–", "3.62 (8/250)"),
    "pawn_whopping": ("0.29 (3/5)", "1.62 (y,y)", "0.25 (y,y,n)", "0.39 (32/234)"),
    "quarto": ("12.19 (6/7)", "9.09 (?,y)", "–", "28.44 (288/582)"),
    "smallest": ("1.01 (4/4)", "0.15 (y,n)", "15.84 (?,y,y)", "0.53 (12/148)"),
    "tictactoe": ("0.13 (4/4)", "0.19 (y,y)", "0.14 (y,y,n)", "0.10 (27/38)"),
    "tttcc4": ("10.47 (4/8)", "18.04 (y,y)", "1.72 (?,y,y)", "14.97 (311/1228)"),
}

LETTER = {"proved": "y", "false-initially": "n", "not-inductive": "?", "not-attempted": "–"}


def run(gdlc, path, seconds, time_limit, max_ground, classes=()):
    started = time.time()
    extra = []
    for cls in classes:
        extra += ["--class", cls]
    if time_limit is not None:
        extra += ["--time-limit", time_limit]
    if max_ground is not None:
        extra += ["--max-ground", max_ground]
    try:
        done = subprocess.run(
            [gdlc, "prove", path, "--json"] + extra,
            capture_output=True, text=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        return None, time.time() - started, "cut off after %d s" % seconds
    if done.returncode != 0:
        return None, time.time() - started, done.stderr.strip().splitlines()[0]
    return json.loads(done.stdout), time.time() - started, ""


def counted(report, cls):
    props = [p for p in report["properties"] if p["class"] == cls]
    seconds = next((c["seconds"] for c in report["classes"] if c["class"] == cls), 0.0)
    proved = sum(p["outcome"] == "proved" for p in props)
    initially = sum(p["outcome"] in ("proved", "not-inductive") for p in props)
    undecided = sum(p["outcome"] == "not-attempted" for p in props)
    extra = " +%d –" % undecided if undecided else ""
    return seconds, "%.2f (%d/%d%s)" % (seconds, proved, initially, extra)


def letters(report, cls, names):
    props = {p["name"]: p["outcome"] for p in report["properties"] if p["class"] == cls}
    seconds = next((c["seconds"] for c in report["classes"] if c["class"] == cls), 0.0)
    if not props:
        return "–"
    return "%.2f (%s)" % (seconds, ",".join(LETTER.get(props.get(n, ""), "–") for n in names))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    gdlc, games = sys.argv[1], sys.argv[2]
    seconds = int(os.environ.get("GAME_SECONDS", "600"))
    time_limit = os.environ.get("TIME_LIMIT")
    max_ground = os.environ.get("MAX_GROUND")
    split = os.environ.get("SPLIT") == "1"
    only = sys.argv[3:]
    rows = []
    notes = []
    cells = {
        "functionals": lambda r: counted(r, "functionals")[1],
        "legals": lambda r: letters(r, "legals", ["playability", "turn-taking"]),
        "goals": lambda r: letters(r, "goals", ["zero-sum", "unique goal values", "monotonic goal values"]),
        "persistence": lambda r: counted(r, "persistence")[1],
    }
    for stem in PAPER:
        path = os.path.join(games, stem + ".kif")
        if not os.path.exists(path) or (only and stem not in only):
            continue
        print("proving", stem, file=sys.stderr, flush=True)
        paper = PAPER[stem]
        if not split:
            report, wall, why = run(gdlc, path, seconds, time_limit, max_ground)
            if report is None:
                ours = ("–",) * 4
                notes.append("- %s: %s" % (stem, why))
            else:
                ours = tuple(cells[c](report) for c in cells)
        else:
            ours, wall = [], 0.0
            for cls in cells:
                classes = ["functionals"] if cls == "functionals" else ["functionals", cls]
                report, spent, why = run(gdlc, path, seconds, time_limit, max_ground, classes)
                wall += spent
                if report is None:
                    ours.append("–")
                    notes.append("- %s, %s: %s" % (stem, cls, why))
                    if cls == "functionals":
                        ours += ["–"] * 3
                        break
                else:
                    ours.append(cells[cls](report))
            ours = tuple(ours)
        rows.append((stem, ours, paper, wall))
    print("| game | Functionals | Legals (pl, tt) | Goal (z, u, m) | Persistence | total s |")
    print("|---|---|---|---|---|---:|")
    for stem, ours, paper, wall in rows:
        cells = ["%s<br>*%s*" % (o, p) for o, p in zip(ours, paper)]
        print("| %s | %s | %.1f |" % (stem, " | ".join(cells), wall))
    if notes:
        print()
        for note in notes:
            print(note)


if __name__ == "__main__":
    main()
