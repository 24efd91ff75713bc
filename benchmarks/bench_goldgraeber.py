"""Goldgräber benchmarks: reachable-field computation per die value, and whole bot playouts per second.

Run: `.venv/bin/python benchmarks/bench_goldgraeber.py` (results go into docs/performance.md by hand).
Reachable fields are timed from every walkable field of the shipped board with the locomotive on its
start field, so the worst case (open ground far from lakes and edges) is in the maximum.
"""

from __future__ import annotations

import gc
import statistics
import time
from random import Random

from companion.engine.core import Player, Setup
from companion.games.goldgraeber.bot import play
from companion.games.goldgraeber.movement import reachable
from companion.games.goldgraeber.rules import Goldgraeber


def bench_reachable(game: Goldgraeber) -> None:
    board = game.board
    starts = [i for i, kind in enumerate(board.types) if kind != "lake"]
    blocked = {board.rail[0], *board.houses[1:]}
    print(f"reachable fields, {len(starts)} start fields of {len(board.ids)}:")
    print("  die  mean ms  p99 ms  worst start ms  most fields   (per start: median of 5 runs, GC off)")
    gc.disable()
    for steps in range(2, 7):
        times: list[float] = []
        most = 0
        for start in starts:
            runs: list[float] = []
            for _ in range(5):
                began = time.perf_counter()
                ends = reachable(board, start, steps, blocked)
                runs.append((time.perf_counter() - began) * 1000)
            times.append(statistics.median(runs))
            most = max(most, len(ends))
        times.sort()
        p99 = times[int(len(times) * 0.99)]
        print(f"  {steps}    {statistics.mean(times):7.3f}  {p99:6.3f}  {times[-1]:14.3f}  {most:4d}")
    gc.enable()


def bench_playouts(game: Goldgraeber, seconds: float = 10.0) -> None:
    players = tuple(Player(name=f"P{i}") for i in range(4))
    began = time.perf_counter()
    games = actions = 0
    while time.perf_counter() - began < seconds:
        state = game.initial_state(Setup(game=game.id, players=players, seed=games))
        actions += len(play(game, state, Random(games)))
        games += 1
    elapsed = time.perf_counter() - began
    print(f"bot playouts, 4 players: {games / elapsed:.1f} games/s, {actions / elapsed:.0f} actions/s "
          f"({actions / games:.0f} actions per game, {games} games)")


if __name__ == "__main__":
    engine = Goldgraeber()
    bench_reachable(engine)
    bench_playouts(engine)
