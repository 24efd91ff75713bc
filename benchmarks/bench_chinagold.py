"""Chinagold benchmarks: line enumeration, random playouts per second, bot time per move and strength.

    .venv/bin/python benchmarks/bench_chinagold.py lines
    .venv/bin/python benchmarks/bench_chinagold.py playouts --games 200
    .venv/bin/python benchmarks/bench_chinagold.py timing --moves 60 --seconds 1
    nice .venv/bin/python benchmarks/bench_chinagold.py strength --games 100 --seconds 0.25

`strength` plays the bot against the greedy baseline, alternating who digs in the mountains and who
starts, and prints the bot's win rate with a 95 % Wilson confidence interval.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from math import sqrt
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.engine.core import Player, Setup
from companion.games.chinagold.board import get_board
from companion.games.chinagold.bot import choose_move, greedy_move, position_of
from companion.games.chinagold.geometry import count_lines, grid
from companion.games.chinagold.rules import Chinagold, ChinagoldState

GAME = Chinagold()


def setup(first: int, seed: int, board: str = "default") -> Setup:
    return Setup(game="chinagold", players=(Player(name="Mountains"), Player(name="Rivers")), seed=seed,
                 first_player=first, options={"board": board})


def bench_lines(repeat: int) -> dict[str, float]:
    """Time to enumerate every straight line once (cold) and to count runs of 3/4/5 on a full board."""
    grid.cache_clear()
    start = time.perf_counter()
    g = grid(6)
    build = time.perf_counter() - start
    hidden = g.all_mask
    start = time.perf_counter()
    for _ in range(repeat):
        for length in (3, 4, 5):
            count_lines(g, hidden, length)
    count = (time.perf_counter() - start) / repeat
    return {"enumerate_all_lines_ms": build * 1000, "count_runs_3_4_5_full_board_us": count * 1e6,
            "lines_per_length": [len(g.lines[k]) for k in range(1, 6)]}  # type: ignore[dict-item]


def bench_playouts(games: int) -> dict[str, float]:
    """Random legal games through the engine (validate + apply every action)."""
    rng = Random(1)
    actions = 0
    start = time.perf_counter()
    for number in range(games):
        state = GAME.initial_state(setup(number % 2, number))
        while not GAME.is_over(state):
            action = GAME.virtual_roll(state, rng) or rng.choice(GAME.legal_actions(state) or [])
            state, _ = GAME.apply(state, action)
            actions += 1
    elapsed = time.perf_counter() - start
    return {"playouts_per_s": games / elapsed, "actions_per_s": actions / elapsed,
            "actions_per_game": actions / games}


def play_match(bot_seat: int, first: int, seed: int, seconds: float) -> tuple[ChinagoldState, list[float]]:
    """One game, bot against greedy; returns the final state and the bot's thinking times."""
    rng = Random(seed)
    state = GAME.initial_state(setup(first, seed))
    times: list[float] = []
    while not GAME.is_over(state):
        if state.phase == "throw":
            action = GAME.virtual_roll(state, rng)
        else:
            pos = position_of(state)
            if state.to_move == bot_seat:
                start = time.perf_counter()
                action = choose_move(pos, seconds, seed).action()
                times.append(time.perf_counter() - start)
            else:
                action = greedy_move(pos, rng).action()
        assert action is not None
        state, _ = GAME.apply(state, action)
    return state, times


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def bench_strength(games: int, seconds: float, progress: bool) -> dict[str, object]:
    wins = 0
    times: list[float] = []
    margins: list[int] = []
    for number in range(games):
        bot_seat = number % 2
        first = (number // 2) % 2
        state, used = play_match(bot_seat, first, 1000 + number, seconds)
        scores = GAME.scores(state)
        margin = scores[bot_seat] - scores[1 - bot_seat]
        wins += margin > 0
        margins.append(margin)
        times.extend(used)
        if progress:
            print(f"game {number + 1}: bot seat {bot_seat}, first {first}, {scores}, "
                  f"wins so far {wins}/{number + 1}", flush=True)
    low, high = wilson(wins, games)
    return {"games": games, "seconds_per_move": seconds, "bot_wins": wins, "win_rate": wins / games,
            "ci95": [round(low, 3), round(high, 3)], "mean_margin": statistics.mean(margins),
            "bot_move_s_mean": statistics.mean(times), "bot_move_s_max": max(times)}


def bench_timing(moves: int, seconds: float) -> dict[str, float]:
    """Bot thinking time per move at the in-play budget, over positions from bot-vs-greedy games."""
    times: list[float] = []
    seed = 0
    while len(times) < moves:
        _, used = play_match(seed % 2, 0, 5000 + seed, seconds)
        times.extend(used)
        seed += 1
    times = times[:moves]
    return {"budget_s": seconds, "moves": len(times), "mean_s": statistics.mean(times), "max_s": max(times),
            "median_s": statistics.median(times)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("lines")
    p.add_argument("--repeat", type=int, default=2000)
    p = sub.add_parser("playouts")
    p.add_argument("--games", type=int, default=100)
    p = sub.add_parser("timing")
    p.add_argument("--moves", type=int, default=60)
    p.add_argument("--seconds", type=float, default=1.0)
    p = sub.add_parser("strength")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seconds", type=float, default=0.25)
    p.add_argument("--progress", action="store_true")
    args = parser.parse_args()
    get_board("default")
    if args.what == "lines":
        result: dict[str, object] = dict(bench_lines(args.repeat))
    elif args.what == "playouts":
        result = dict(bench_playouts(args.games))
    elif args.what == "timing":
        result = dict(bench_timing(args.moves, args.seconds))
    else:
        result = bench_strength(args.games, args.seconds, args.progress)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
