"""Shared helpers for the Gold Connection tests: a game, ready-made turn states, and applying actions."""

from __future__ import annotations

from collections import Counter
from typing import Any

from companion.engine.core import ActionModel, Event, Player, Refusal, Setup
from companion.engine.registry import get_game
from companion.games.gold_connection.rules import ALL_BARS, GoldConnection, GoldConnectionState, bar_sort_key

GAME: GoldConnection = get_game("gold_connection")  # type: ignore[assignment]
NAMES = ("Ada", "Ben", "Cleo", "Dan")


def setup(players: int = 2, seed: int = 1, **options: Any) -> Setup:
    return Setup(game="gold_connection", players=tuple(Player(name=name) for name in NAMES[:players]),
                 seed=seed, options=options)


def fresh(players: int = 2, seed: int = 1, **options: Any) -> GoldConnectionState:
    return GAME.initial_state(setup(players, seed, **options))


def turn_state(stones: dict[int, tuple[str, str]], players: int = 2, seat: int = 0, seed: int = 1,
               **options: Any) -> GoldConnectionState:
    """A state at the start of `seat`'s first turn with robber stones and arrows as given: seat -> (safe, heading)."""
    state = fresh(players, seed, **options)
    robbers = list(state.robbers)
    for index, (safe, heading) in stones.items():
        robbers[index] = robbers[index].evolve(stone=safe, arrow=safe, heading=heading)
    return state.evolve(robbers=tuple(robbers), phase="turn", current=seat,
                        counter=0 if options.get("game_end") == "series" else 1, turn_start=stones[seat][0],
                        start_heading=stones[seat][1])


def with_safe(state: GoldConnectionState, safe: str, bars: tuple[str, ...]) -> GoldConnectionState:
    """Make sure `safe` holds `bars`, swapping bars with other safes so all 84 stay on the table."""
    safes = {name: list(content) for name, content in state.safes.items()}
    pool = safes[safe]
    for bar in bars:
        if bar in pool:
            pool.remove(bar)
            continue
        donor = next(name for name, content in safes.items() if name != safe and bar in content)
        safes[donor].remove(bar)
        if pool:
            safes[donor].append(pool.pop())
    safes[safe] = list(bars) + pool
    return state.evolve(safes={name: tuple(sorted(content, key=bar_sort_key))
                                              for name, content in safes.items()})


def with_rows(state: GoldConnectionState, seat: int, rows: dict[str, tuple[int, ...]]) -> GoldConnectionState:
    """Give a box these rows, taking the bars out of the safes so all 84 stay on the table."""
    safes = {name: list(content) for name, content in state.safes.items()}
    for row, numbers in rows.items():
        for number in numbers:
            bar = f"{row[0]}{number}"
            donor = next(name for name, content in safes.items() if bar in content)
            safes[donor].remove(bar)
    robbers = list(state.robbers)
    robbers[seat] = robbers[seat].evolve(rows=robbers[seat].rows | rows)
    return state.evolve(robbers=tuple(robbers), safes={name: tuple(content) for name, content in safes.items()})


def with_chips(state: GoldConnectionState, seat: int, chips: int, supply: int | None = None) -> GoldConnectionState:
    """Give a robber `chips` consolation chips (and set the supply, when given)."""
    robbers = list(state.robbers)
    robbers[seat] = robbers[seat].evolve(chips=chips)
    update: dict[str, Any] = {"robbers": tuple(robbers)}
    if supply is not None:
        update["chip_supply"] = supply
    return state.evolve(**update)


def act(state: GoldConnectionState, *actions: dict[str, Any]) -> tuple[GoldConnectionState, list[Event]]:
    """Apply actions given as JSON dicts (as a record holds them); every one must be accepted."""
    events: list[Event] = []
    for raw in actions:
        state, new = GAME.apply(state, GAME.parse_action(raw))
        events.extend(new)
    return state, events


def refusal(state: GoldConnectionState, raw: dict[str, Any]) -> Refusal:
    """The refusal of an action that must be refused."""
    action: ActionModel = GAME.parse_action(raw)
    found = GAME.validate(state, action)
    assert found is not None, f"{raw} was accepted"
    return found


def assert_all_bars(state: GoldConnectionState) -> None:
    """Every one of the 84 bars is in a safe, the tray or a box, none twice, none missing."""
    assert GAME.bars_accounted(state) == Counter(ALL_BARS)
