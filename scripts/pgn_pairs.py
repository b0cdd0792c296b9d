#!/usr/bin/env python3
"""The result of a `deepred match` PGN for the first engine (the player named "... (1)"), also of
a match stopped before its end (an SPRT cut short): wins, draws, losses, the pentanomial counts
of its game pairs (games 2k-1 and 2k of the `Round` tag share an opening, colours swapped), and
then the pentanomial Elo and SPRT LLR by scripts/match_stats_reference.py.

Usage: python3 scripts/pgn_pairs.py MATCH.pgn [ELO0 ELO1]
"""
import pathlib
import re
import subprocess
import sys

POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def scores(path):
    """Round number -> the first engine's points, for every finished game."""
    games = {}
    for block in pathlib.Path(path).read_text().split("[Event ")[1:]:
        tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', block))
        points = POINTS.get(tags.get("Result", "*"))
        if points is None or "Round" not in tags:
            continue
        games[int(tags["Round"])] = points if "(1)" in tags.get("White", "") else 1 - points
    return games


def main():
    if len(sys.argv) not in (2, 4):
        sys.exit(__doc__)
    games = scores(sys.argv[1])
    if not games:
        sys.exit(f"{sys.argv[1]}: no finished games")
    values = list(games.values())
    print(f"games {len(values)}: W {values.count(1.0)} / D {values.count(0.5)} / L {values.count(0.0)}")
    pairs = [games[k] + games[k + 1] for k in games if k % 2 == 1 and k + 1 in games]
    counts = [sum(1 for p in pairs if p == half / 2) for half in range(5)]
    print("pentanomial LL LD DD WD WW:", *counts)
    reference = pathlib.Path(__file__).with_name("match_stats_reference.py")
    subprocess.run([sys.executable, str(reference), *map(str, counts), *sys.argv[2:]], check=True)


if __name__ == "__main__":
    main()
