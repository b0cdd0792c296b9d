#!/usr/bin/env python3
"""Times the explorer of `deepred web` (scripts/web-bench.sh starts it): every position of the
first PLIES plies along each known line, walked from the start by the most played moves and
their alternatives; prints the median, 95th percentile and maximum of the request times."""
import json
import statistics
import sys
import time
import urllib.request

base, plies, width = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


def get(moves):
    url = f"{base}/api/explore?moves={','.join(moves)}"
    t0 = time.perf_counter()
    with urllib.request.urlopen(url) as r:
        body = r.read()
    return time.perf_counter() - t0, json.loads(body)


times = []
frontier = [[]]
for ply in range(plies):
    nxt = []
    for moves in frontier:
        t, d = get(moves)
        times.append(t)
        for m in d["moves"][:width]:
            nxt.append(moves + [m["uci"]])
    frontier = nxt
times.sort()
ms = [1000 * t for t in times]
print(f"{len(ms)} positions: median {statistics.median(ms):.1f} ms, "
      f"95th percentile {ms[int(0.95 * (len(ms) - 1))]:.1f} ms, max {ms[-1]:.1f} ms")
