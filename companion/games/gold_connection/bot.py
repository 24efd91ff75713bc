"""A simple seeded player for Gold Connection: scripted example games, benchmarks and random playouts.

It plays sensibly enough to fill boxes (short moves, bars that fit its rows, ends after a success) so
that playouts reach sorting, plundering and scoring; it is not meant to play well.
"""

from __future__ import annotations

from random import Random

from companion.engine.core import ActionModel
from companion.games.gold_connection.rules import (
    EndTurn,
    GoldConnection,
    GoldConnectionState,
    Loot,
    Move,
    Roll,
    Sort,
    Stop,
    UseChips,
    auto_sort,
    bar_colour,
    bar_number,
    chance,
)

MAX_STEP = 3


def fitting_bars(state: GoldConnectionState, safe: str) -> tuple[str, ...]:
    """Bars in `safe` that the active player could sort into a row right now (one per row end)."""
    rows = state.robbers[state.current].rows
    wanted = {f"{row[0]}{len(numbers) + 1}" for row, numbers in rows.items() if len(numbers) < int(row[1:])}
    chosen: list[str] = []
    for bar in state.safes[safe]:
        if bar in wanted and bar not in chosen:
            chosen.append(bar)
    return tuple(sorted(chosen, key=lambda bar: (bar_number(bar), bar_colour(bar))))


def choose_action(game: GoldConnection, state: GoldConnectionState, rng: Random) -> ActionModel:
    """The bot's next action in any phase (dice rolls come from `rng`)."""
    phase = state.phase
    if phase in ("start_roll", "roll"):
        return Roll(values=(rng.randint(1, 6), rng.randint(1, 6)))
    if phase == "sort":
        return Sort(rows=auto_sort(state.robbers[state.current].rows, state.tray))
    if phase == "chips":
        assert state.announcement is not None and state.roll is not None
        return UseChips(count=state.announcement.target - sum(state.roll))
    if phase in ("start_choose", "arrows", "enter_safes"):
        legal = game.legal_actions(state)
        assert legal
        return rng.choice(legal)
    return _turn_action(game, state, rng)


def _turn_action(game: GoldConnection, state: GoldConnectionState, rng: Random) -> ActionModel:
    if state.last_success == "loot" and not state.moved:
        return EndTurn() if rng.random() < 0.7 else _short_move(game, state, rng)
    if not state.moved:
        return _short_move(game, state, rng)
    loot = _best_loot(game, state)
    if loot is not None:
        return loot
    if game.validate(state, Stop()) is None:
        return Stop()
    plunders = game.plunders(state)
    legal_plunders = [p for p in plunders if game.validate(state, p) is None and sum(p.take.values()) == 1]
    if legal_plunders:
        return rng.choice(legal_plunders)
    return _short_move(game, state, rng)


def _short_move(game: GoldConnection, state: GoldConnectionState, rng: Random) -> Move:
    return rng.choice(game.moves(state, state.distance + MAX_STEP))


def _best_loot(game: GoldConnection, state: GoldConnectionState) -> Loot | None:
    safe = state.robbers[state.current].arrow or ""
    bars = fitting_bars(state, safe)
    chips = state.robbers[state.current].chips
    while bars:
        action = Loot(bars=bars)
        if game.validate(state, action) is not None:
            return None
        if chance(game.target(state, bars), chips) >= 0.5:
            return action
        bars = bars[:-1]
    return None
