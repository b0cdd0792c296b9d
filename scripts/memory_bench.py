#!/usr/bin/env python3
"""The search memory at scale: a store of many remembered positions and games, then the time a
UCI engine with Learning on takes to answer the first move of each game.

Usage:
  memory_bench.py fill STORE POSITIONS GAMES      # adds synthetic rows to an existing store
  memory_bench.py first-moves ENGINE STORE GAMES  # per game: ucinewgame, go with 1 s on the clock

`fill` writes random remembered positions (search_memory) and random game rows (games, with
move codes but no replayable moves) in large transactions with Python's sqlite3: the store is
only as big as it is meant to be. `first-moves` prints, per game, the milliseconds from `go
wtime 1000 btime 1000 winc 10 binc 10` to `bestmove`, then the median, the slowest, and the
engine's peak resident memory (VmHWM) in MB.
"""

import os
import random
import sqlite3
import subprocess
import sys
import time


def columns(cur, table):
    return [r[1] for r in cur.execute(f"PRAGMA table_info({table})")]


def fill(store, positions, games):
    """Adds rows to a store of any schema version (an older build's store has no `seq`, no
    `evals`): only the columns it has are filled."""
    con = sqlite3.connect(store)
    rng = random.Random(1)
    cur = con.cursor()
    mem_cols = [c for c in ("key", "mv", "score", "depth", "learned", "updates", "seq")
                if c in columns(cur, "search_memory")]
    has_seq = "seq" in mem_cols
    seq = cur.execute("SELECT coalesce(max(seq), 0) + 1 FROM search_memory").fetchone()[0] \
        if has_seq else 0
    batch = 200_000
    for start in range(0, positions, batch):
        rows = [
            (rng.getrandbits(63) - (1 << 62), rng.randrange(1, 4096), rng.randrange(-300, 300),
             rng.randrange(5, 25), 0, 0, seq)[:len(mem_cols)]
            for _ in range(min(batch, positions - start))
        ]
        cur.executemany(
            f"INSERT OR IGNORE INTO search_memory ({', '.join(mem_cols)})"
            f" VALUES ({', '.join('?' * len(mem_cols))})", rows)
        con.commit()
    if has_seq:
        cur.execute("INSERT INTO meta (key, value) VALUES ('memory_seq', ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = ?", (str(seq), str(seq)))
    game_cols = [c for c in ("hash", "source", "white", "black", "result", "date", "plies",
                             "rows", "learned_at", "start", "moves", "evals")
                 if c in columns(cur, "games")]
    for start in range(0, games, batch):
        rows = [
            (rng.randbytes(16), "bench", "w", "b", "1/2-1/2", "?", 80, 0, 0, None,
             rng.randbytes(160), None)[:len(game_cols)]
            for _ in range(min(batch, games - start))
        ]
        cur.executemany(
            f"INSERT OR IGNORE INTO games ({', '.join(game_cols)})"
            f" VALUES ({', '.join('?' * len(game_cols))})", rows)
        con.commit()
    n_mem = cur.execute("SELECT count(*) FROM search_memory").fetchone()[0]
    n_games = cur.execute("SELECT count(*) FROM games").fetchone()[0]
    con.close()
    print(f"{store}: {n_mem} remembered positions, {n_games} games, "
          f"{os.path.getsize(store) / 1e6:.0f} MB")


def first_moves(engine, store, games):
    p = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         bufsize=1)

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    def until(prefix):
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit("the engine ended")
            if line.startswith(prefix):
                return line

    send("uci")
    until("uciok")
    send(f"setoption name ExperienceFile value {store}")
    send("setoption name Learning value true")
    t_learning = time.monotonic()
    send("isready")
    until("readyok")
    times = []
    for g in range(games):
        send("ucinewgame")
        send("position startpos")
        t0 = time.monotonic()
        send("go wtime 1000 btime 1000 winc 10 binc 10")
        until("bestmove")
        ms = (time.monotonic() - t0) * 1000
        times.append(ms)
        print(f"game {g + 1}: first move in {ms:.0f} ms")
    # The memory once the whole store is read (engines that say so in `d`: it reads in the
    # background while the games go on).
    state = ""
    while time.monotonic() - t_learning < 600:
        send("d")
        lines = [until("info string")]
        while "Evaluator" not in lines[-1]:
            lines.append(until("info string"))
        state = next((l for l in lines if "Search memory:" in l), "")
        if not state or "reading" not in state:
            break
        time.sleep(0.2)
    read_s = time.monotonic() - t_learning
    with open(f"/proc/{p.pid}/status") as f:
        status = {l.split(":")[0]: l.split()[1] for l in f if l.startswith("Vm")}
    send("quit")
    p.wait(timeout=30)
    times.sort()
    print(f"median {times[len(times) // 2]:.0f} ms, slowest {times[-1]:.0f} ms")
    if state:
        print(f"{state.removeprefix('info string ').strip()}: read {read_s:.1f} s after Learning")
    print(f"resident memory {int(status.get('VmRSS', 0)) / 1024:.0f} MB, "
          f"peak {int(status.get('VmHWM', 0)) / 1024:.0f} MB")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "fill":
        fill(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif len(sys.argv) == 5 and sys.argv[1] == "first-moves":
        first_moves(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
