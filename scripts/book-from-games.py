#!/usr/bin/env python3
"""An EPD opening book of positions from played games: one position from each game, at a
uniformly random ply 4-40 after the game's start (and at least 8 plies before its end), never a
finished game. Deterministic by seed. Needs python-chess (`pip install chess`).

Deep Pink's current net learned from Stockfish games started from such positions of Deep Red's
own datagen games (BENCHMARKS.md, "Deep Pink taught by Stockfish on Deep Red's positions"):

    python3 scripts/book-from-games.py 7 book.epd big2/pst.pgn big2/learned.pgn
    GAMES=60000 OUT=data/sfdr SEED=6 BOOK=book.epd scripts/gen-games.sh

Usage: book-from-games.py SEED OUT.epd GAMES.pgn...
"""
import random
import sys

try:
    import chess.pgn
except ImportError:
    sys.exit("error: python-chess is missing (pip install chess)")


def main() -> None:
    if len(sys.argv) < 4:
        sys.exit("usage: book-from-games.py SEED OUT.epd GAMES.pgn...")
    rng = random.Random(int(sys.argv[1]))
    n = 0
    with open(sys.argv[2], "w") as out:
        for path in sys.argv[3:]:
            with open(path) as f:
                while (game := chess.pgn.read_game(f)) is not None:
                    moves = list(game.mainline_moves())
                    if len(moves) < 12:
                        continue
                    k = min(rng.randint(4, 40), len(moves) - 8)
                    board = game.board()
                    for m in moves[:k]:
                        board.push(m)
                    if board.is_game_over():
                        continue
                    out.write(board.epd() + "\n")
                    n += 1
    print(f"{n} positions written to {sys.argv[2]}", file=sys.stderr)


if __name__ == "__main__":
    main()
