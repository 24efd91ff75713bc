"""A simple seeded player for Gold Connection: scripted example games, benchmarks and random playouts.

It plays sensibly enough to fill boxes (short moves, bars that fit its rows, ends after a success) so
that playouts reach sorting, plundering and scoring; it is not meant to play well.
"""

from __future__ import annotations

from collections import Counter
from random import Random

from companion.engine.core import ActionModel
from companion.games.gold_connection.rules import (
    ALL_BARS,
    BARS_PER_SAFE,
    EndTurn,
    EnterSafe,
    GoldConnection,
    GoldConnectionState,
    Loot,
    Move,
    Plunder,
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
    """The bot's next action in whatever the phase table offers (dice rolls come from `rng`)."""
    expects = game.expects(state)
    if "enter_safe" in expects:
        return deal_safe(state, rng)
    if "roll" in expects:
        return Roll(values=(rng.randint(1, 6), rng.randint(1, 6)))
    if "sort" in expects:
        return Sort(rows=auto_sort(state.robbers[state.current].rows, state.tray))
    if "use_chips" in expects:
        spends = [action for action in game.offered(state, "use_chips") if isinstance(action, UseChips)]
        return max(spends, key=lambda action: action.count)  # none or the missing points: make it up
    if "move" in expects:
        return _turn_action(game, state, rng)
    legal = game.legal_actions(state)
    assert legal, f"the bot cannot choose among {expects}"
    return rng.choice(legal)


def deal_safe(state: GoldConnectionState, rng: Random) -> EnterSafe:
    """The table deals by hand (GC-2, option `deal: table`): six of the bars not laid yet, drawn at random,
    into the first empty safe."""
    left = list((Counter(ALL_BARS) - Counter(bar for bars in state.safes.values() for bar in bars)).elements())
    safe = next(safe for safe, bars in state.safes.items() if not bars)
    return EnterSafe(safe=safe, bars=tuple(rng.sample(left, BARS_PER_SAFE)))


def _turn_action(game: GoldConnection, state: GoldConnectionState, rng: Random) -> ActionModel:
    expects = game.expects(state)
    if "end_turn" in expects:
        return EndTurn() if rng.random() < 0.7 else _short_move(game, state, rng)
    if "stop" not in expects:  # looting, plundering and stopping wait for a fresh move
        return _short_move(game, state, rng)
    loot = _best_loot(game, state)
    if loot is not None:
        return loot
    if game.validate(state, Stop()) is None:
        return Stop()
    legal_plunders = [p for p in game.offered(state, "plunder", checked=True)
                      if isinstance(p, Plunder) and sum(p.take.values()) == 1]
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
