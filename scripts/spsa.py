#!/usr/bin/env python3
"""SPSA tuning of Deep Red's search tunables, run locally with `deepred match`.

Each iteration perturbs every tuned parameter by +c or -c (a random sign each), plays game
pairs between the engine with theta + c*delta and the engine with theta - c*delta (the same
binary, options set per side), and moves theta by r * c * (wins - losses) * delta. The
schedule is OpenBench's (its `spsa_utils.py`), so the inputs are `deepred spsa`'s lines
(`name, int, default, min, max, c_end, r_end`) and a tune here behaves like one there:

    c_value = c_end * N ** gamma
    a_value = r_end * c_end ** 2 * (A_ratio * N + N) ** alpha
    at iteration i (1..N): c = max(c_value / i ** gamma, 0.5)
                           r = a_value / (A_ratio * N + i) ** alpha / c ** 2

Why a script and not OpenBench or chess-tuning-tools: OpenBench's SPSA needs its server and
clients (a web service and a database for one machine), and chess-tuning-tools fits a
Gaussian process to a handful of parameters through cutechess-cli, while Deep Red has some 70
tunables and its own match runner. The update itself is the few lines below.

The state (theta, iteration, games) is written to --state after every iteration, atomically,
and a run started again with the same --state goes on where it stopped: a killed run loses
at most the games of one iteration. Every iteration is also a line of --log (CSV).

    python3 scripts/spsa.py --engine target/release/deepred --state spsa.json \\
        --iterations 2000 --pairs 4 --tc 8+0.08 \\
        --book ../shared/data/books/UHO_4060_v2.epd --concurrency 2
    # the tuned values, as options for an SPRT against the defaults:
    python3 scripts/spsa.py --engine target/release/deepred --state spsa.json --show
"""

import argparse
import csv
import json
import math
import os
import random
import re
import subprocess
import sys

ALPHA = 0.602
GAMMA = 0.101
A_RATIO = 0.1


def parse_inputs(text):
    """OpenBench SPSA input lines -> [{name, value, min, max, c_end, r_end}]."""
    params = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 7 or parts[1] != "int":
            raise ValueError(f"line {n}: not 'name, int, default, min, max, c_end, r_end': {line}")
        name, _, default, lo, hi, c_end, r_end = parts
        params.append(
            {
                "name": name,
                "value": float(default),
                "min": float(lo),
                "max": float(hi),
                "c_end": float(c_end),
                "r_end": float(r_end),
            }
        )
    return params


def schedule(p, i, n):
    """(c, r) of parameter p at iteration i of n (OpenBench's formulas)."""
    c_value = p["c_end"] * n**GAMMA
    a_value = p["r_end"] * p["c_end"] ** 2 * (A_RATIO * n + n) ** ALPHA
    c = max(c_value / i**GAMMA, 0.5)
    r = a_value / (A_RATIO * n + i) ** ALPHA / c**2
    return c, r


def clamp(p, v):
    return min(max(v, p["min"]), p["max"])


def to_int(v):
    """Rounds half up (Python's round() rounds half to even)."""
    return int(math.floor(v + 0.5))


RESULT = re.compile(r"(\d+) games, (\d+) wins, (\d+) losses, (\d+) draws")


def play(args, plus, minus, seed):
    """Plays --pairs game pairs, theta+ (first engine) against theta-: (wins, losses, draws)."""
    cmd = [args.engine, "match", "--engine", args.engine, "--opponent", args.engine]
    for name, v in plus.items():
        cmd += ["--engine-option", f"{name}={v}"]
    for name, v in minus.items():
        cmd += ["--opponent-option", f"{name}={v}"]
    cmd += ["--games", str(2 * args.pairs), "--seed", str(seed)]
    cmd += ["--concurrency", str(args.concurrency)]
    cmd += ["--nodes", str(args.nodes)] if args.nodes else ["--tc", args.tc]
    if args.book:
        cmd += ["--book", args.book]
    out = subprocess.run(cmd, capture_output=True, text=True)
    m = RESULT.search(out.stdout)
    if out.returncode != 0 or not m:
        raise RuntimeError(f"match failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr[-2000:]}")
    return int(m.group(2)), int(m.group(3)), int(m.group(4))


def save(path, state):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(state, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def new_state(args):
    if args.inputs:
        with open(args.inputs) as f:
            text = f.read()
    else:
        text = subprocess.run([args.engine, "spsa"], capture_output=True, text=True, check=True).stdout
    params = parse_inputs(text)
    if args.only:
        wanted = {w.strip().lower() for w in args.only.split(",") if w.strip()}
        known = {p["name"].lower() for p in params}
        unknown = sorted(wanted - known)
        if unknown:
            raise ValueError(f"--only names no tunable: {', '.join(unknown)}")
        params = [p for p in params if p["name"].lower() in wanted]
    if not params:
        raise ValueError("no parameters to tune")
    return {"iterations": args.iterations, "done": 0, "games": 0, "wld": [0, 0, 0],
            "seed": args.seed, "params": params}


def show(state):
    print(f"# {state['done']} of {state['iterations']} iterations, {state['games']} games, "
          f"W/L/D {state['wld'][0]}/{state['wld'][1]}/{state['wld'][2]}")
    opts = []
    for p in state["params"]:
        v = to_int(p["value"])
        print(f"{p['name']}={v}")
        opts.append(f"--engine-option {p['name']}={v}")
    print("# " + " ".join(opts))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", required=True, help="the deepred binary")
    ap.add_argument("--state", required=True, help="JSON state file (resumed when it exists)")
    ap.add_argument("--inputs", help="OpenBench SPSA input lines (default: `ENGINE spsa`)")
    ap.add_argument("--only", help="comma-separated tunables to tune (default: all)")
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--pairs", type=int, default=2, help="game pairs per iteration")
    ap.add_argument("--tc", default="8+0.08")
    ap.add_argument("--nodes", type=int, help="nodes per move instead of --tc")
    ap.add_argument("--book", help="EPD openings")
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log", help="CSV log, a line per iteration (default: STATE.csv)")
    ap.add_argument("--show", action="store_true", help="print the values of --state and stop")
    args = ap.parse_args()
    try:
        if os.path.exists(args.state):
            with open(args.state) as f:
                state = json.load(f)
            for key in ("iterations", "done", "games", "wld", "seed", "params"):
                if key not in state:
                    raise ValueError(f"{args.state} is no state of this script (no '{key}')")
            if not args.show and (args.iterations, args.seed) != (state["iterations"], state["seed"]):
                print(f"spsa: resuming {args.state} with its own --iterations "
                      f"{state['iterations']} and --seed {state['seed']}", file=sys.stderr)
        elif args.show:
            raise ValueError(f"{args.state} does not exist")
        else:
            if not os.access(args.engine, os.X_OK):
                raise ValueError(f"{args.engine} is not an executable")
            state = new_state(args)
            save(args.state, state)
        if args.show:
            show(state)
            return 0
        log = args.log or args.state + ".csv"
        names = [p["name"] for p in state["params"]]
        if not os.path.exists(log):
            with open(log, "w", newline="") as f:
                csv.writer(f).writerow(["iteration", "wins", "losses", "draws"] + names)
        n = state["iterations"]
        while state["done"] < n:
            i = state["done"] + 1
            rng = random.Random(state["seed"] * 1_000_003 + i)
            signs = [rng.choice((-1, 1)) for _ in state["params"]]
            plus, minus, steps = {}, {}, []
            for p, d in zip(state["params"], signs):
                c, r = schedule(p, i, n)
                plus[p["name"]] = to_int(clamp(p, p["value"] + c * d))
                minus[p["name"]] = to_int(clamp(p, p["value"] - c * d))
                steps.append((c, r))
            w, l, dr = play(args, plus, minus, state["seed"] * 100_000 + i)
            for p, d, (c, r) in zip(state["params"], signs, steps):
                p["value"] = clamp(p, p["value"] + r * c * (w - l) * d)
            state["done"] = i
            state["games"] += w + l + dr
            state["wld"] = [state["wld"][0] + w, state["wld"][1] + l, state["wld"][2] + dr]
            save(args.state, state)
            with open(log, "a", newline="") as f:
                csv.writer(f).writerow([i, w, l, dr] + [f"{p['value']:.3f}" for p in state["params"]])
            print(f"iteration {i}/{n}: {w}-{l}-{dr}", flush=True)
        show(state)
        return 0
    except (ValueError, RuntimeError, OSError, KeyError, TypeError, subprocess.CalledProcessError) as e:
        print(f"spsa: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
