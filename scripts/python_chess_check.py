#!/usr/bin/env python3
"""Check Deep Red through python-chess, a real third-party UCI client.

Usage:  python_chess_check.py [ENGINE] [--mate2-depth N]
        (ENGINE defaults to target/release/deepred in the repo root)

Run it with the venv made by scripts/python-chess-venv.sh:
    .venv-pychess/bin/python scripts/python_chess_check.py target/release/deepred

Checks (each counted once in the closing "N passed, N failed" line):
  1. handshake: id name, advertised options, configuring Hash/Threads/Move Overhead
  2. MultiPV analysis of the start position (depth 8, multipv 3)
  3. mate finding: a mate in 1 (play, depth 5) and two mates in 2 (analysis,
     score Mate(+2), pv verified as checkmate by python-chess)
  4. positions without a legal move (checkmate, stalemate): play returns no move
     (bestmove (none), read as None) and analysis reports Mate(0) / Cp(0)
  5. a complete self-play game with clocks (3 s + 0.05 s), white pondering
     (go ponder / ponderhit / stop); each engine gets Threads=min(2, cpus/2) so the
     pondering engine and the thinking one do not share cores
  6. Syzygy tablebases (tests/data/syzygy): the options advertised, `tbhits` and the
     tablebase score on a won KRvKP root, and that ending played out by the engine against
     itself: after every move python-chess's own probe of the same tables says the winner
     still wins (under the 50-move rule), and the game ends in checkmate
  7. quit: the engine exits with return code 0 within a few seconds

Stops at the first failing check and exits non-zero. Warnings or errors that
python-chess logs about the engine's output (unexpected lines, unparsable info,
illegal ponder moves, ...) count as failures of the check during which they occur.
"""

import argparse
import logging
import os
import signal
import sys
import time

import chess
import chess.engine
import chess.pgn
import chess.syzygy

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_ENGINE = os.path.join(REPO_ROOT, "target", "release", "deepred")

REQUIRED_OPTIONS = ["Hash", "Threads", "MultiPV", "Ponder", "Move Overhead",
                    "UCI_Chess960", "Evaluator", "Clear Hash"]
CONFIG = {"Hash": 32, "Threads": 2, "Move Overhead": 30}

MATE1_FEN = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"      # 1.Rd8#
# Positions without a legal move: Black is mated (fool's mate reversed: 1.e4 g5 2.d4 f6 3.Qh5#)
# and Black is stalemated (king h8, white queen f7, white king g6).
MATED_MOVES = "e4 g5 d4 f6 Qh5#"
STALEMATE_FEN = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
# Mates in 2, both verified by brute force with python-chess before use:
#  - the finish of Morphy vs Duke Karl / Count Isouard, Paris 1858 (the "Opera game"),
#    reached from the game's moves: 16.Qb8+!! Nxb8 17.Rd8#
#  - the textbook king-and-rook mate 1.Kg6 Kg8 2.Ra8# (or 1.Kf7 Kh7 2.Rh1#); Ra8+ / Rh1+
#    at once let the king escape, so there is no mate in 1
OPERA_MOVES = ("e4 e5 Nf3 d6 d4 Bg4 dxe5 Bxf3 Qxf3 dxe5 Bc4 Nf6 Qb3 Qe7 Nc3 c6 Bg5 b5 "
               "Nxb5 cxb5 Bxb5+ Nbd7 O-O-O Rd8 Rxd7 Rxd7 Rd1 Qe6 Bxd7+ Nxd7")
OPERA_FEN = "4kb1r/p2n1ppp/4q3/4p1B1/4P3/1Q6/PPP2PPP/2KR4 w k - 0 16"
KR_FEN = "7k/8/5K2/8/8/8/8/R7 w - - 0 1"
# A correct search sees a 3-ply mate from depth 3 on; the check allows depth 6 (pruning and
# reductions may hide a quiet mating move for a few plies) and prints a WARN line with the depth
# at which the mate first showed.
MATE2_DEPTH = 6

GAME_BASE = 3.0      # seconds per side
GAME_INC = 0.05      # increment per move
MAX_PLIES = 300

CHECK_TIMEOUT = {1: 20, 2: 60, 3: 60, 4: 30, 5: 240, 6: 120, 7: 15}   # watchdog per check, seconds

SYZYGY_DIR = os.path.join(REPO_ROOT, "tests", "data", "syzygy")
# KRvKP, White to move wins (python-chess: WDL 2, DTZ 7).
SYZYGY_FEN = "8/8/8/4k3/8/2p5/8/4K2R w - - 0 1"
SYZYGY_OPTIONS = ["SyzygyPath", "SyzygyProbeDepth", "Syzygy50MoveRule", "SyzygyProbeLimit"]
SYZYGY_TB_WIN = 31871     # the engine's score of a tablebase win at the root (README)


class CheckFailed(Exception):
    pass


class Watchdog(Exception):
    pass


class LogCollector(logging.Handler):
    """Collects warnings/errors python-chess logs about engine output."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.records = []

    def emit(self, record):
        try:
            msg = record.getMessage()
        except Exception:  # pragma: no cover
            msg = str(record.msg)
        self.records.append(f"{record.levelname}: {msg}")

    def take(self):
        out, self.records = self.records, []
        return out


def log(msg=""):
    print(msg, flush=True)


def expect(cond, msg):
    if not cond:
        raise CheckFailed(msg)


def line_is_legal(board, moves):
    b = board.copy(stack=False)
    for m in moves:
        if m not in b.legal_moves:
            return False
        b.push(m)
    return True


def forced_mate_in(board, n):
    """True if the side to move can force checkmate within n of its own moves."""
    for move in list(board.legal_moves):
        board.push(move)
        try:
            if board.is_checkmate():
                return True
            if n > 1 and not board.is_game_over():
                if all(_reply_still_mated(board, reply, n - 1) for reply in list(board.legal_moves)):
                    return True
        finally:
            board.pop()
    return False


def _reply_still_mated(board, reply, n):
    board.push(reply)
    try:
        return forced_mate_in(board, n)
    finally:
        board.pop()


def mating_keys(board, n):
    """The first moves that force mate within n moves (n counting the attacker's moves)."""
    keys = []
    for move in list(board.legal_moves):
        board.push(move)
        try:
            if board.is_checkmate():
                keys.append(move)
            elif n > 1 and not board.is_game_over():
                if all(_reply_still_mated(board, reply, n - 1) for reply in list(board.legal_moves)):
                    keys.append(move)
        finally:
            board.pop()
    return keys


def game_threads():
    return max(1, min(CONFIG["Threads"], (os.cpu_count() or 1) // 2))


def start_engine(path):
    engine = chess.engine.SimpleEngine.popen_uci([path], timeout=10.0)
    return engine


def wait_exit(engine, what, seconds=5.0):
    t0 = time.perf_counter()
    engine.quit()
    try:
        code = engine.returncode.result(timeout=seconds)
    except Exception as exc:
        raise CheckFailed(f"{what}: process did not exit within {seconds} s after quit ({exc!r})")
    dt = time.perf_counter() - t0
    expect(code == 0, f"{what}: exit code {code} after quit (expected 0)")
    return dt


# ----------------------------------------------------------------------------
# checks

def check_handshake(state):
    engine = start_engine(state["path"])
    state["engine"] = engine
    name = engine.id.get("name", "")
    log(f"  id name: {name!r}, author: {engine.id.get('author', '')!r}")
    expect(name.startswith("Deep Red"), f"id name {name!r} does not start with 'Deep Red'")
    opts = engine.options
    log("  options: " + ", ".join(f"{o.name}({o.type})" for o in opts.values()))
    missing = [o for o in REQUIRED_OPTIONS if o not in opts]
    expect(not missing, f"options not advertised: {missing}")
    expect(opts["Clear Hash"].type == "button", f"Clear Hash has type {opts['Clear Hash'].type}, expected button")
    expect(opts["Ponder"].type == "check", f"Ponder has type {opts['Ponder'].type}, expected check")
    expect(opts["Evaluator"].type == "combo" and "pst" in opts["Evaluator"].var,
           f"Evaluator is {opts['Evaluator'].type} with vars {opts['Evaluator'].var}, expected combo with pst")
    engine.configure(CONFIG)
    engine.configure({"Clear Hash": None})   # button: "setoption name Clear Hash"
    engine.ping()   # isready/readyok round trip after the setoption lines
    log(f"  configured {CONFIG}, pressed Clear Hash, got readyok")


def check_multipv(state):
    engine = state["engine"]
    board = chess.Board()
    infos = engine.analyse(board, chess.engine.Limit(depth=8), multipv=3)
    expect(isinstance(infos, list), f"analyse(multipv=3) returned {type(infos).__name__}, expected a list")
    expect(len(infos) == 3, f"expected 3 infos, got {len(infos)}")
    firsts = []
    for i, info in enumerate(infos, 1):
        score = info.get("score")
        pv = info.get("pv") or []
        log(f"  multipv {info.get('multipv')}: depth {info.get('depth')} score {score} "
            f"pv {' '.join(m.uci() for m in pv)}")
        expect(info.get("multipv") == i, f"info #{i} has multipv {info.get('multipv')}")
        expect(score is not None, f"multipv {i} has no score")
        expect(len(pv) > 0, f"multipv {i} has an empty pv")
        expect(line_is_legal(board, pv), f"multipv {i} pv is not legal: {[m.uci() for m in pv]}")
        expect((info.get("depth") or 0) >= 8, f"multipv {i} reports depth {info.get('depth')}, expected >= 8")
        firsts.append(pv[0])
    expect(len(set(firsts)) == 3, f"first moves are not distinct: {[m.uci() for m in firsts]}")


def check_mates(state):
    engine = state["engine"]

    board = chess.Board(MATE1_FEN)
    result = engine.play(board, chess.engine.Limit(depth=5))
    log(f"  mate in 1 ({MATE1_FEN}): bestmove {result.move}")
    expect(result.move == chess.Move.from_uci("d1d8"), f"expected d1d8, got {result.move}")
    board.push(result.move)
    expect(board.is_checkmate(), "d1d8 does not mate according to python-chess")

    # The Opera game position, rebuilt from the game's moves as a cross-check of the FEN.
    opera = chess.Board()
    for san in OPERA_MOVES.split():
        opera.push_san(san)
    expect(opera.fen() == OPERA_FEN, f"Opera game moves give {opera.fen()}, not {OPERA_FEN}")
    for name, fen in (("Opera game, Morphy 1858", OPERA_FEN), ("K+R vs K", KR_FEN)):
        check_mate_in_2(engine, name, chess.Board(fen), state["mate2_depth"])


def check_mate_in_2(engine, name, board, depth):
    fen = board.fen()
    expect(not forced_mate_in(board, 1), f"{name}: test position unexpectedly has a mate in 1")
    expect(forced_mate_in(board, 2), f"{name}: test position is not a forced mate in 2 (python-chess brute force)")
    keys = mating_keys(board, 2)
    log(f"  mate in 2, {name} ({fen}): python-chess keys {[board.san(m) for m in keys]}")
    first_mate_depth = None
    with engine.analysis(board, chess.engine.Limit(depth=depth), game=object()) as analysis:
        for info in analysis:
            sc = info.get("score")
            if first_mate_depth is None and sc is not None and sc.white().mate() == 2 and "depth" in info:
                first_mate_depth = info["depth"]
        analysis.wait()
        info = analysis.info     # everything the engine reported, latest values
    score = info.get("score")
    pv = info.get("pv") or []
    log(f"  engine at depth {info.get('depth')}: score {score} pv {' '.join(m.uci() for m in pv)}")
    expect(score is not None, f"{name}: no score")
    expect(score.white().mate() == 2, f"{name}: expected score Mate(+2) for white at depth {depth}, "
                                      f"got {score.white()}")
    expect(len(pv) >= 3, f"{name}: mate-in-2 pv has only {len(pv)} plies, expected at least 3")
    expect(pv[0] in keys, f"{name}: pv first move {pv[0]} is not a mate-in-2 key")
    expect(line_is_legal(board, pv), f"{name}: pv is not legal: {[m.uci() for m in pv]}")
    b = board.copy()
    for m in pv[:3]:
        b.push(m)
    expect(b.is_checkmate(), f"{name}: pv {[m.uci() for m in pv[:3]]} does not end in checkmate")
    log(f"  pv {board.variation_san(pv[:3])} verified as checkmate by python-chess")
    if first_mate_depth is not None and first_mate_depth > 3:
        log(f"  WARN: Mate(+2) first reported at depth {first_mate_depth}; a 3-ply mate is "
            f"visible from depth 3 (shallow pruning of quiet checks?)")


def check_terminal(state):
    engine = state["engine"]
    mated = chess.Board()
    for san in MATED_MOVES.split():
        mated.push_san(san)
    stalemate = chess.Board(STALEMATE_FEN)
    expect(mated.is_checkmate(), f"test position {mated.fen()} is not checkmate")
    expect(stalemate.is_stalemate(), f"test position {STALEMATE_FEN} is not stalemate")
    for name, board, expected in (("checkmate", mated, chess.engine.Mate(0)),
                                  ("stalemate", stalemate, chess.engine.Cp(0))):
        result = engine.play(board, chess.engine.Limit(depth=5))
        log(f"  {name} ({board.fen()}): play returned move {result.move}")
        expect(result.move is None, f"{name}: play returned move {result.move}, expected None "
                                    f"(bestmove (none))")
        info = engine.analyse(board, chess.engine.Limit(depth=5))
        score = info.get("score")
        log(f"  {name}: analysis score {score}, depth {info.get('depth')}")
        expect(score is not None, f"{name}: analysis reported no score")
        expect(score.relative == expected, f"{name}: analysis score {score.relative}, expected {expected}")


def check_game(state):
    white = state["engine"]                 # ponders (exercises go ponder / ponderhit / stop)
    black = start_engine(state["path"])
    state["engine2"] = black
    # White ponders while black thinks, so both engines search at once. Give each its own
    # cores, as tournaments with pondering do: on a 2-core machine two 2-thread engines would
    # oversubscribe the CPU and their wall-clock time use would measure the machine, not
    # the engine.
    threads = game_threads()
    black.configure({**CONFIG, "Threads": threads})
    white.configure({"Threads": threads})
    log(f"  {os.cpu_count()} CPU(s): Threads={threads} for each engine during the game")
    engines = {chess.WHITE: white, chess.BLACK: black}
    game_id = object()                      # same object => same game (ucinewgame once, ponderhit allowed)

    board = chess.Board()
    clock = {chess.WHITE: GAME_BASE, chess.BLACK: GAME_BASE}
    min_left = dict(clock)
    predicted = None          # white's expected ponder move (black's reply) from its last play
    ponder_hits = ponder_misses = 0
    last_black_hit = False
    sans = []
    t_game = time.perf_counter()
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        side = board.turn
        limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                   white_inc=GAME_INC, black_inc=GAME_INC)
        ponder = side == chess.WHITE
        ply_was_ponderhit = side == chess.WHITE and last_black_hit
        t0 = time.perf_counter()
        result = engines[side].play(board, limit, ponder=ponder, game=game_id)
        elapsed = time.perf_counter() - t0
        move = result.move
        who = "white" if side == chess.WHITE else "black"
        expect(move is not None, f"ply {board.ply() + 1}: {who} returned no move "
                                 f"in a position that is not over ({board.fen()})")
        expect(move in board.legal_moves, f"ply {board.ply() + 1}: {who} played illegal {move} in {board.fen()}")
        clock[side] -= elapsed
        min_left[side] = min(min_left[side], clock[side])
        expect(clock[side] >= 0, f"ply {board.ply() + 1}: {who} lost on time "
                                 f"({elapsed:.3f} s used, clock {clock[side]:.3f} s)")
        clock[side] += GAME_INC
        if side == chess.BLACK:
            last_black_hit = False
        if side == chess.BLACK and predicted is not None:
            if move == predicted:
                ponder_hits += 1
                last_black_hit = True
            else:
                ponder_misses += 1
        if side == chess.WHITE:
            predicted = result.ponder
            if result.ponder is not None:
                b = board.copy(stack=False)
                b.push(move)
                expect(result.ponder in b.legal_moves, f"ply {board.ply() + 1}: illegal ponder move {result.ponder}")
        if state["verbose"]:
            tag = ""
            if side == chess.WHITE and ply_was_ponderhit:
                tag = " (after ponderhit)"
            log(f"    ply {board.ply() + 1:3d} {who:5s} {board.san(move):8s} {elapsed * 1000:6.0f} ms  "
                f"clocks w {clock[chess.WHITE]:.3f} b {clock[chess.BLACK]:.3f}{tag}")
        sans.append(board.san(move))
        board.push(move)
    wall = time.perf_counter() - t_game

    outcome = board.outcome(claim_draw=True)
    result_str = outcome.result() if outcome else "*"
    reason = outcome.termination.name.lower() if outcome else f"{MAX_PLIES}-ply limit"
    game = chess.pgn.Game.from_board(board)
    game.headers["Event"] = "python-chess self-play check"
    game.headers["White"] = f"{white.id.get('name')} (ponder)"
    game.headers["Black"] = black.id.get("name")
    game.headers["TimeControl"] = f"{GAME_BASE:g}+{GAME_INC:g}"
    game.headers["Result"] = result_str
    game.headers["Termination"] = reason
    log(str(game))
    log(f"  {board.ply()} plies in {wall:.1f} s, result {result_str} ({reason})")
    log(f"  clocks left: white {clock[chess.WHITE]:.3f} s, black {clock[chess.BLACK]:.3f} s; "
        f"lowest: white {min_left[chess.WHITE]:.3f} s, black {min_left[chess.BLACK]:.3f} s")
    log(f"  white pondered: {ponder_hits} ponderhit(s), {ponder_misses} miss(es) (stop)")
    expect(ponder_hits + ponder_misses > 0, "white never got to ponder (no ponder move returned)")

    dt = wait_exit(black, "second engine (black)")
    state["engine2"] = None
    log(f"  second engine quit cleanly in {dt:.2f} s")


def check_syzygy(state):
    engine = state["engine"]
    missing = [o for o in SYZYGY_OPTIONS if o not in engine.options]
    expect(not missing, f"options not advertised: {missing}")
    engine.configure({"SyzygyPath": SYZYGY_DIR})
    board = chess.Board(SYZYGY_FEN)
    info = engine.analyse(board, chess.engine.Limit(depth=6))
    score = info.get("score")
    log(f"  {SYZYGY_FEN}: score {score}, tbhits {info.get('tbhits')}, "
        f"pv {' '.join(m.uci() for m in info.get('pv') or [])}")
    expect((info.get("tbhits") or 0) > 0, f"no tbhits in {info}")
    white = score.white()
    expect(white == chess.engine.Cp(SYZYGY_TB_WIN) or (white.is_mate() and white.mate() > 0),
           f"score {score}, expected cp {SYZYGY_TB_WIN} or a mate for White")
    with chess.syzygy.open_tablebase(SYZYGY_DIR) as tb:
        while not board.is_game_over() and board.ply() < 120:
            move = engine.play(board, chess.engine.Limit(depth=6)).move
            mover = board.turn
            board.push(move)
            if board.is_game_over():
                break
            if mover == chess.WHITE:
                dtz = tb.probe_dtz(board)   # Black to move: negative while Black loses
                expect(dtz < 0 and -dtz + board.halfmove_clock <= 100,
                       f"after {move.uci()} ({board.fen()}) python-chess gives Black DTZ {dtz}: "
                       "White no longer wins under the 50-move rule")
        expect(board.is_checkmate() and board.turn == chess.BLACK,
               f"the game did not end in White's mate: {board.fen()} after {board.ply()} plies")
    log(f"  played out to mate in {board.ply()} plies, the win kept after every White move")
    engine.configure({"SyzygyPath": "<empty>"})


def check_quit(state):
    engine = state["engine"]
    dt = wait_exit(engine, "engine")
    state["engine"] = None
    log(f"  engine quit with exit code 0 in {dt:.2f} s")


CHECKS = [
    (1, "handshake, options and configure", check_handshake),
    (2, "MultiPV analysis (depth 8, multipv 3)", check_multipv),
    (3, "mate in 1 and mate in 2", check_mates),
    (4, "checkmate and stalemate: no move, Mate(0) / Cp(0)", check_terminal),
    (5, f"self-play game {GAME_BASE:g}+{GAME_INC:g} with ponder", check_game),
    (6, "Syzygy tablebases: score, tbhits, a KRvKP win played out", check_syzygy),
    (7, "quit", check_quit),
]


def _on_alarm(signum, frame):
    signal.alarm(15)   # fires again if cleaning up after this one blocks too
    raise Watchdog()


def main():
    ap = argparse.ArgumentParser(description="Check Deep Red with python-chess.")
    ap.add_argument("engine", nargs="?", default=DEFAULT_ENGINE,
                    help="engine binary (default: target/release/deepred in the repo root)")
    ap.add_argument("--mate2-depth", type=int, default=MATE2_DEPTH,
                    help=f"search depth for the mate-in-2 positions (default {MATE2_DEPTH})")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print every game move with its time and the clocks")
    ap.add_argument("--debug-log", metavar="FILE",
                    help="write python-chess's full UCI conversation (with timestamps) to FILE")
    args = ap.parse_args()
    path = args.engine
    if not os.path.isabs(path) and not os.path.exists(path):
        path = os.path.join(REPO_ROOT, path)
    path = os.path.abspath(path)
    log(f"python-chess {chess.__version__}, engine {path}")

    collector = LogCollector()
    eng_logger = logging.getLogger("chess.engine")
    eng_logger.addHandler(collector)
    eng_logger.propagate = False
    if args.debug_log:
        fh = logging.FileHandler(args.debug_log, mode="w")
        fh.setLevel(logging.DEBUG)
        fh.setFormatter(logging.Formatter("%(relativeCreated)9.1f %(threadName)s %(message)s"))
        eng_logger.addHandler(fh)
        eng_logger.setLevel(logging.DEBUG)
    signal.signal(signal.SIGALRM, _on_alarm)

    state = {"path": path, "engine": None, "engine2": None, "mate2_depth": args.mate2_depth,
             "verbose": args.verbose}
    passed = failed = 0
    for num, title, fn in CHECKS:
        log(f"[{num}/{len(CHECKS)}] {title}")
        t0 = time.perf_counter()
        error = None
        signal.alarm(CHECK_TIMEOUT[num])
        try:
            if num > 1 and state["engine"] is None:
                raise CheckFailed("engine not running")
            fn(state)
        except CheckFailed as exc:
            error = str(exc)
        except Watchdog:
            error = f"timed out after {CHECK_TIMEOUT[num]} s (engine hung?)"
        except chess.engine.EngineTerminatedError as exc:
            error = f"engine terminated: {exc}"
        except chess.engine.EngineError as exc:
            error = f"engine protocol error: {exc}"
        except Exception as exc:   # noqa: BLE001 - report anything as a failure
            error = f"{type(exc).__name__}: {exc}"
        finally:
            signal.alarm(0)
        logged = collector.take()
        if error is None and logged:
            error = "python-chess complained about the engine's output: " + " | ".join(logged[:5])
        elif logged:
            error += " (python-chess also logged: " + " | ".join(logged[:5]) + ")"
        dt = time.perf_counter() - t0
        if error is None:
            passed += 1
            log(f"  PASS [{num}] {title} ({dt:.1f} s)")
        else:
            failed += 1
            log(f"  FAIL [{num}] {title}: {error}")
            break

    for key in ("engine2", "engine"):
        eng = state.get(key)
        if eng is None:
            continue
        signal.alarm(10)
        try:
            eng.close()
        except (Exception, Watchdog):
            try:
                os.kill(eng.protocol.transport.get_pid(), signal.SIGKILL)
            except Exception:
                pass
        finally:
            signal.alarm(0)

    log(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
