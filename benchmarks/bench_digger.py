"""Digger benchmarks: random full-game playouts per second, and replay throughput in actions per second.

Run: `.venv/bin/python benchmarks/bench_digger.py [--seconds S]` (results go into docs/performance.md by hand).
Playouts use the pure rules (`Game.apply`, which validates every action) with a random but plausible table:
roll, grab what the roll offers, sometimes roll again, stop, run out of time or fumble.  Replay re-applies
the records of those games with `companion.engine.record.replay`, from parsed records and from JSON text.
"""

from __future__ import annotations

import argparse
import gc
import time
from random import Random

from companion.engine.core import Player, Setup
from companion.engine.record import GameRecord, RecordedAction, now_utc, replay
from companion.games.digger.rules import ALL_ROLLS, Digger, DiggerState

NAMES = ("Anna", "Jonas", "Marie", "Felix", "Lena")


def random_game(game: Digger, players: int, seed: int) -> tuple[DiggerState, GameRecord]:
    """One whole game by a random table; returns the final state and the game's record."""
    setup = Setup(game="digger", players=tuple(Player(name=name) for name in NAMES[:players]), seed=seed)
    setup = setup.evolve(options=game.options({}).model_dump(mode="json"))
    state = game.initial_state(setup)
    rng = Random(seed)
    stamp = now_utc()
    entries: list[RecordedAction] = []
    while not state.over:
        legal = game.legal_actions(state)[len(ALL_ROLLS):]  # rolls come first
        grabs = [action for action in legal if action.type in ("take", "rob")]
        draw = rng.random()
        if state.roll and grabs and draw < 0.85:
            action = rng.choice(grabs)
        elif not state.roll or draw < 0.5:
            action = game.virtual_roll(state, rng)  # type: ignore[assignment]
        elif draw < 0.9:
            action = next(a for a in legal if a.type == "stop")
        else:
            action = rng.choice([a for a in legal if a.type in ("time_up", "fumble")])
        state, _ = game.apply(state, action)
        entries.append(RecordedAction(at=stamp, source="virtual", action=action.model_dump(mode="json")))
    return state, GameRecord.from_setup(setup, tuple(entries))


def bench_playouts(game: Digger, seconds: float) -> list[GameRecord]:
    records: list[GameRecord] = []
    actions = 0
    began = time.perf_counter()
    seed = 0
    while time.perf_counter() - began < seconds:
        _, record = random_game(game, 2 + seed % 4, seed)
        records.append(record)
        actions += len(record.actions)
        seed += 1
    elapsed = time.perf_counter() - began
    print(f"random playouts: {len(records)} games in {elapsed:.1f} s = {len(records) / elapsed:.1f} games/s, "
          f"{actions / elapsed:,.0f} actions/s, {actions / len(records):.0f} actions per game (2-5 players)")
    return records


def bench_replay(game: Digger, records: list[GameRecord]) -> None:
    texts = [record.to_json() for record in records]
    actions = sum(len(record.actions) for record in records)
    for label, run in (("parsed records", lambda: [replay(record) for record in records]),
                       ("from JSON text", lambda: [replay(GameRecord.model_validate_json(text)) for text in texts])):
        began = time.perf_counter()
        run()
        elapsed = time.perf_counter() - began
        print(f"replay, {label}: {len(records)} games, {actions:,} actions in {elapsed:.2f} s = "
              f"{actions / elapsed:,.0f} actions/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="how long to play random games")
    args = parser.parse_args()
    game = Digger()
    gc.collect()
    records = bench_playouts(game, args.seconds)
    bench_replay(game, records)


if __name__ == "__main__":
    main()
