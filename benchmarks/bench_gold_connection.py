"""Gold Connection engine speed: bot playouts per second and legal-move generation time.

Run: `.venv/bin/python benchmarks/bench_gold_connection.py [--games N]`.  Results go into
docs/performance.md (## Gold Connection).  Plain timings, no assertions.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from random import Random

from companion.engine.core import Player, Setup
from companion.engine.registry import get_game
from companion.games.gold_connection.bot import choose_action
from companion.games.gold_connection.rules import GoldConnection, GoldConnectionState


def new_game(game: GoldConnection, players: int, seed: int) -> GoldConnectionState:
    setup = Setup(game="gold_connection", seed=seed, players=tuple(Player(name=f"P{i}") for i in range(players)))
    return game.initial_state(setup)


def playouts(game: GoldConnection, games: int, players: int) -> tuple[float, float, list[GoldConnectionState]]:
    """Games/s and actions/s of bot games (every action validated by Game.apply); turn states are kept."""
    actions = 0
    samples: list[GoldConnectionState] = []
    start = time.perf_counter()
    for seed in range(games):
        rng = Random(seed)
        state = new_game(game, players, seed)
        while not game.is_over(state):
            if state.phase == "turn" and len(samples) < 2000:
                samples.append(state)
            state, _ = game.apply(state, choose_action(game, state, rng))
            actions += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, actions / elapsed, samples


def time_each(function, states: list[GoldConnectionState]) -> list[float]:  # type: ignore[no-untyped-def]
    """Milliseconds per call, median of 3 per state."""
    times = []
    for state in states:
        runs = []
        for _ in range(3):
            start = time.perf_counter()
            function(state)
            runs.append((time.perf_counter() - start) * 1000)
        times.append(statistics.median(runs))
    return times


def report(label: str, times: list[float]) -> None:
    ordered = sorted(times)
    p99 = ordered[int(len(ordered) * 0.99) - 1]
    print(f"| {label} | {statistics.mean(times):.3f} | {p99:.3f} | {ordered[-1]:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=60)
    args = parser.parse_args()
    game = get_game("gold_connection")
    assert isinstance(game, GoldConnection)
    gc.disable()
    print("| players | games/s | actions/s |")
    print("| --- | --- | --- |")
    samples: list[GoldConnectionState] = []
    for players in (2, 3, 4):
        games_per_s, actions_per_s, kept = playouts(game, args.games, players)
        samples += kept[:700]
        print(f"| {players} | {games_per_s:.1f} | {actions_per_s:,.0f} |")
    print()
    print(f"{len(samples)} turn states from those games")
    print("| call | mean ms | p99 ms | worst ms |")
    print("| --- | --- | --- | --- |")
    report("`moves` (distance up to 12 + chips)", time_each(game.moves, samples))
    report("`legal_actions` (moves, loots, plunders, stop, end)", time_each(game.legal_actions, samples))
    report("`validate` of one move", time_each(lambda s: game.validate(s, game.moves(s)[0]), samples))
    gc.enable()


if __name__ == "__main__":
    main()
