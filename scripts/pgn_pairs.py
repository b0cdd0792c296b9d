#!/usr/bin/env python3
"""The result of a `deepred match` PGN for the first engine, also of a match stopped before its end
(an SPRT cut short): wins, draws, losses, the pentanomial counts of its game pairs (games 2k-1
and 2k of the `Round` tag share an opening, colours swapped), and
then the pentanomial Elo and SPRT LLR by scripts/match_stats_reference.py. Several PGNs of one
test (played on two machines, each with its own --seed) are summed: the pairs of each file.
A file ending in .xz is read compressed (the archives in benchmarks/sprt).

The first engine is the player named "... (1)" where the two engines share a name (the runner
numbers them), else the one with White in odd rounds: the runner gives the first engine White
in each pair's first game, and writes the games as they end, not in round order.

Usage: python3 scripts/pgn_pairs.py MATCH.pgn [MORE.pgn ...] [ELO0 ELO1]
"""
import lzma
import pathlib
import re
import subprocess
import sys

POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def scores(path):
    """Round number -> the first engine's points, for every finished game."""
    text = lzma.open(path, "rt") if path.endswith(".xz") else open(path)
    with text:
        blocks = text.read().split("[Event ")[1:]
    finished = []
    for block in blocks:
        tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', block))
        points = POINTS.get(tags.get("Result", "*"))
        if points is None or not tags.get("Round", "").isdigit():
            continue
        finished.append((int(tags["Round"]), tags.get("White", ""), tags.get("Black", ""), points))
    if not finished:
        return {}
    if any("(1)" in white or "(1)" in black for _, white, black, _ in finished):
        first = lambda white: "(1)" in white
    else:
        # The first engine has White in odd rounds and Black in even ones.
        round_, white, black, _ = min(finished)
        name = white if round_ % 2 == 1 else black
        if all(white == black for _, white, black, _ in finished):
            sys.exit(f"{path}: both players are named '{name}': which one is the first engine?")
        first = lambda white: white == name
    return {r: p if first(white) else 1 - p for r, white, _, p in finished}


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def main():
    args = sys.argv[1:]
    bounds = args[-2:] if len(args) >= 3 and all(map(is_number, args[-2:])) else []
    files = args[: len(args) - len(bounds)]
    if not files or any(map(is_number, files)):
        sys.exit(__doc__)
    values, pairs = [], []
    for path in files:
        games = scores(path)
        if not games:
            sys.exit(f"{path}: no finished games")
        values += list(games.values())
        pairs += [games[k] + games[k + 1] for k in games if k % 2 == 1 and k + 1 in games]
    print(f"games {len(values)}: W {values.count(1.0)} / D {values.count(0.5)} / L {values.count(0.0)}")
    counts = [sum(1 for p in pairs if p == half / 2) for half in range(5)]
    print("pentanomial LL LD DD WD WW:", *counts)
    reference = pathlib.Path(__file__).with_name("match_stats_reference.py")
    subprocess.run([sys.executable, str(reference), *map(str, counts), *bounds], check=True)


if __name__ == "__main__":
    main()
