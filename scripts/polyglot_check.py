#!/usr/bin/env python3
"""Check `deepred experience export` through python-chess, an independent Polyglot reader.

Usage:  polyglot_check.py [ENGINE]   (default target/release/deepred in the repo root)
Run with the venv of scripts/python-chess-venv.sh (.ci/run does).

Imports real games (tests/data/pgn/games) into a fresh store, exports a Polyglot book and the
EPD of its positions, then with python-chess's own Zobrist keys and move decoding:
  1. every book entry belongs to an exported position and is a legal move there;
  2. every exported position finds its entries, and the store's best move (the EPD's bm, the
     first line of `deepred experience show`) carries the highest weight;
  3. the start position's entries are exactly the store's known first moves with enough games.
Ends with an "N passed, N failed" line; exits non-zero on a failure.
"""

import os
import subprocess
import sys
import tempfile

import chess
import chess.polyglot

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "target", "release", "deepred")
PGN = os.path.join(REPO, "tests", "data", "pgn", "games", "Korchnoi_first500.pgn")
MIN_GAMES = 2

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print(f"ok: {what}")
    else:
        failed += 1
        print(f"FAILED: {what}")


def run(*args):
    out = subprocess.run([ENGINE, *args], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(args)} failed: {out.stderr}")
    return out.stdout


with tempfile.TemporaryDirectory() as d:
    db, book, epd = (os.path.join(d, n) for n in ("exp.sqlite", "book.bin", "book.epd"))
    run("import", "--db", db, PGN)
    run("experience", "export", "--db", db, "--polyglot", book, "--epd", epd,
        "--min-games", str(MIN_GAMES), "--max-ply", "16")
    positions = []
    for line in open(epd):
        board, ops = chess.Board.from_epd(line)
        positions.append((board, ops["bm"][0]))
    keys = {chess.polyglot.zobrist_hash(b): b for b, _ in positions}
    with chess.polyglot.open_reader(book) as reader:
        raw = [reader[i] for i in range(len(reader))]
        stray = [e for e in raw if e.key not in keys]
        # find_all(key) reads every entry of a key; find_all(board) only the legal moves.
        illegal = sum(len(list(reader.find_all(k))) - len(list(reader.find_all(b)))
                      for k, b in keys.items())
        check(len(raw) > 100 and not stray,
              f"{len(raw)} entries, each of an exported position ({len(stray)} not)")
        check(illegal == 0, f"every entry a legal move ({illegal} not)")
        wrong = 0
        for board, bm in positions:
            entries = list(reader.find_all(board))
            top = max(e.weight for e in entries)
            if not entries or not any(e.move == bm and e.weight == top for e in entries):
                wrong += 1
        check(wrong == 0, f"{len(positions)} positions: the store's best move weighs most "
                          f"({wrong} not)")
        start = {e.move.uci() for e in reader.find_all(chess.Board())}
    shown = run("experience", "show", "--db", db).splitlines()[2:]
    known = {l.split()[0] for l in shown
             if len(l.split()) > 1 and l.split()[1].isdigit() and int(l.split()[1]) >= MIN_GAMES}
    check(start == known, f"start position: book {sorted(start)} = store {sorted(known)}")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
