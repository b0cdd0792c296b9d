#!/usr/bin/env python3
"""Endgame openings for scripts/syzygy-match.sh: positions with 5 to 7 pieces (kings included)
taken from real games, so that a game from them soon reaches the 3-4-5 piece tables.

From each game the first position that has 5..7 pieces, comes right after a capture or pawn
move, has no castling rights, is not in check and not over, and whose material balance is
within --max-imbalance pawns (P 1, N/B 3, R 5, Q 9) is written as an EPD line (board, side,
castling, en passant), each position once, until --count positions.

Usage (python-chess from scripts/python-chess-venv.sh):
    .venv-pychess/bin/python scripts/endgame-openings.py [--out bench-positions/endgames.epd]
        [--count 200] [--max-imbalance 2] [PGN ...]
The default PGNs are ../shared/data/pgn/games/{Korchnoi,Nakamura,TCEC_Season_13_-_Superfinal}.pgn.
"""

import argparse
import os
import sys

import chess
import chess.pgn

HERE = os.path.dirname(os.path.abspath(__file__))
GAMES = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "data", "pgn", "games"))
DEFAULT_PGNS = [os.path.join(GAMES, f) for f in
                ("Korchnoi.pgn", "Nakamura.pgn", "TCEC_Season_13_-_Superfinal.pgn")]
VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9,
         chess.KING: 0}


def balance(board):
    return sum(VALUE[p.piece_type] * (1 if p.color == chess.WHITE else -1)
               for p in board.piece_map().values())


def endgame_of(game, max_imbalance):
    board = game.board()
    if board.chess960:
        return None
    for move in game.mainline_moves():
        board.push(move)
        n = len(board.piece_map())
        if n < 5:
            return None
        if (n <= 7 and board.halfmove_clock == 0 and not board.castling_rights
                and not board.is_check() and not board.is_game_over()
                and abs(balance(board)) <= max_imbalance):
            return board.epd()
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pgn", nargs="*", default=DEFAULT_PGNS)
    ap.add_argument("--out", default=os.path.normpath(
        os.path.join(HERE, "..", "bench-positions", "endgames.epd")))
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--max-imbalance", type=int, default=2)
    args = ap.parse_args()
    seen = []
    done = set()
    for path in args.pgn:
        with open(path, encoding="utf-8", errors="replace") as f:
            while len(seen) < args.count:
                try:
                    game = chess.pgn.read_game(f)
                except (ValueError, AssertionError):
                    continue
                if game is None:
                    break
                try:
                    epd = endgame_of(game, args.max_imbalance)
                except (ValueError, AssertionError):
                    epd = None
                if epd and epd not in done:
                    done.add(epd)
                    seen.append(epd)
        if len(seen) >= args.count:
            break
    if not seen:
        sys.exit("no endgame positions found")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(seen) + "\n")
    print(f"{len(seen)} endgame positions written to {args.out}")


if __name__ == "__main__":
    main()
