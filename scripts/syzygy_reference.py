#!/usr/bin/env python3
"""The independent reference for Deep Red's Syzygy probing: python-chess's `chess.syzygy`
probes positions against the tables of tests/data/syzygy and writes

- tests/data/syzygy/reference.txt: `FEN;WDL;DTZ` per line (python-chess `probe_wdl`, which
  assumes a zeroed halfmove clock, and `probe_dtz`): random legal positions of the materials
  that have both WDL and DTZ tables here, either colour the stronger, both sides to move, some
  with a legal en passant capture, some with a high halfmove clock;
- tests/data/syzygy/root.txt: `FEN;RESULT;MOVES` per line: root positions, the result the side
  to move keeps under the 50-move rule (win, cursed-win, draw, blessed-loss, loss) and the UCI
  moves that keep it the best way (win/loss: the shortest/longest distance to zeroing, from
  python-chess's DTZ of each move; otherwise every move with that result). The engine's
  `bestmove` must be one of them.

Run with python-chess installed (scripts/python-chess-venv.sh):
    .venv-pychess/bin/python scripts/syzygy_reference.py
The same seed writes the same files.
"""

import argparse
import os
import random

import chess
import chess.syzygy

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = os.path.join(HERE, "..", "tests", "data", "syzygy")

# Materials with WDL and DTZ tables in tests/data/syzygy (the others there are WDL tables that
# probing these needs: promotions).
MATERIALS = ["KQvK", "KRvK", "KPvK", "KRvKP", "KPvKP"]

PIECES = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP,
          "N": chess.KNIGHT, "P": chess.PAWN}


def random_position(rng, material, swap, turn):
    """A random legal position of `material` (the first side White, or Black when `swap`)."""
    white, black = material.split("v")
    if swap:
        white, black = black, white
    while True:
        board = chess.Board(None)
        squares = list(chess.SQUARES)
        rng.shuffle(squares)
        ok = True
        for colour, side in ((chess.WHITE, white), (chess.BLACK, black)):
            for c in side:
                piece = PIECES[c]
                sq = squares.pop()
                if piece == chess.PAWN and chess.square_rank(sq) in (0, 7):
                    ok = False
                board.set_piece_at(sq, chess.Piece(piece, colour))
        board.turn = turn
        if ok and board.is_valid():
            return board


def en_passant_position(rng, swap):
    """A KPvKP position where the side to move can capture en passant (the other pawn has just
    made a double step beside its pawn)."""
    while True:
        board = chess.Board(None)
        mover = chess.BLACK if swap else chess.WHITE
        file = rng.randrange(8)
        side = rng.choice([f for f in (file - 1, file + 1) if 0 <= f < 8])
        rank = 4 if mover == chess.WHITE else 3  # the capturer's pawn: 5th rank for White
        step = 1 if mover == chess.WHITE else -1
        capturer = chess.square(file, rank)
        pushed = chess.square(side, rank)
        board.set_piece_at(capturer, chess.Piece(chess.PAWN, mover))
        board.set_piece_at(pushed, chess.Piece(chess.PAWN, not mover))
        free = [s for s in chess.SQUARES if s not in (capturer, pushed,
                chess.square(side, rank + step), chess.square(side, rank + 2 * step))]
        rng.shuffle(free)
        board.set_piece_at(free.pop(), chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(free.pop(), chess.Piece(chess.KING, chess.BLACK))
        board.turn = mover
        board.ep_square = chess.square(side, rank + step)
        if board.is_valid() and any(board.is_en_passant(m) for m in board.legal_moves):
            return board


def dtz_before_zeroing(wdl):
    return {2: 1, 1: 101, 0: 0, -1: -101, -2: -1}[wdl]


def root_dtz(tb, board, move):
    """Plies from the root to the next capture or pawn move after `move`, for the mover
    (Stockfish's root ranking): a mate 1, a draw by the rules 0."""
    board.push(move)
    try:
        if board.is_checkmate():
            return 1
        if board.halfmove_clock >= 100 or board.is_insufficient_material():
            return 0
        if board.halfmove_clock == 0:
            return dtz_before_zeroing(-tb.probe_wdl(board))
        d = -tb.probe_dtz(board)
        return d + 1 if d > 0 else d - 1 if d < 0 else 0
    finally:
        board.pop()


def result_of(d, clock):
    """The result a move with root DTZ `d` keeps under the 50-move rule."""
    if d == 0:
        return "draw"
    n = d + clock if d > 0 else d - clock
    if n > 100:
        return "cursed-win"
    if n > 0:
        return "win"
    if n < -100:
        return "blessed-loss"
    return "loss"


ORDER = ["loss", "blessed-loss", "draw", "cursed-win", "win"]


def root_line(tb, board):
    ranked = [(ORDER.index(result_of(d, board.halfmove_clock)), -d, m)
              for m in board.legal_moves for d in [root_dtz(tb, board, m)]]
    best = max(ranked, key=lambda r: (r[0], r[1]))
    result = ORDER[best[0]]
    if result in ("win", "loss"):
        keep = [m for (r, k, m) in ranked if (r, k) == best[:2]]
    else:
        keep = [m for (r, k, m) in ranked if r == best[0]]
    return f"{board.fen()};{result};{' '.join(sorted(m.uci() for m in keep))}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--per-material", type=int, default=64)
    ap.add_argument("--seed", type=int, default=20240611)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    lines = []
    roots = []
    with chess.syzygy.open_tablebase(TABLES) as tb:
        for material in MATERIALS:
            for i in range(args.per_material):
                board = random_position(rng, material, swap=i % 4 >= 2,
                                        turn=chess.WHITE if i % 2 == 0 else chess.BLACK)
                # Some positions with a high halfmove clock (the probes ignore it; the root
                # choice does not).
                if i % 8 == 7:
                    board.halfmove_clock = rng.randrange(60, 100)
                lines.append(f"{board.fen()};{tb.probe_wdl(board)};{tb.probe_dtz(board)}")
                if i % 3 == 0 and any(board.legal_moves):
                    roots.append(root_line(tb, board))
        for i in range(24):
            board = en_passant_position(rng, swap=i % 2 == 1)
            lines.append(f"{board.fen()};{tb.probe_wdl(board)};{tb.probe_dtz(board)}")
            if i % 4 == 0:
                roots.append(root_line(tb, board))
        # Wins near the 50-move limit: the same winning positions with clocks that leave just
        # enough plies, and one ply too few (a cursed win).
        edge = 0
        while edge < 8:
            board = random_position(rng, rng.choice(["KRvK", "KRvKP", "KPvK"]), swap=False,
                                    turn=chess.WHITE)
            dtz = tb.probe_dtz(board)
            if not 8 <= dtz <= 60:
                continue
            best = min(d for m in board.legal_moves for d in [root_dtz(tb, board, m)] if d > 0)
            for clock in (100 - best, 101 - best):
                board.halfmove_clock = clock
                roots.append(root_line(tb, board))
            edge += 1
    with open(os.path.join(TABLES, "reference.txt"), "w") as f:
        f.write("# FEN;WDL;DTZ by python-chess %s (scripts/syzygy_reference.py)\n"
                % chess.__version__)
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(TABLES, "root.txt"), "w") as f:
        f.write("# FEN;RESULT;MOVES by python-chess %s (scripts/syzygy_reference.py)\n"
                % chess.__version__)
        f.write("\n".join(roots) + "\n")
    print(f"{len(lines)} positions, {len(roots)} roots")


if __name__ == "__main__":
    main()
