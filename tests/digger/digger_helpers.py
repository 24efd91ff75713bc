"""Small builders for Digger tests: a fresh table, rolls written as strings ("RRGGB"), stone counts."""

from __future__ import annotations

from typing import Any

from companion.engine.core import ActionModel, Player, Setup
from companion.games.digger.rules import COLOURS, STONES_PER_COLOUR, Digger, DiggerState, Roll

GAME = Digger()  # the rules alone; no need to import every other game
NAMES = ("Ada", "Ben", "Cleo", "Dan", "Eve", "Fay")


def setup(players: int = 3, seed: int = 0, first_player: int = 0, **options: Any) -> Setup:
    return Setup(game="digger", players=tuple(Player(name=name) for name in NAMES[:players]), options=options,
                 seed=seed, first_player=first_player)


def new_state(players: int = 3, **options: Any) -> DiggerState:
    return GAME.initial_state(setup(players, **options))


def play(state: DiggerState, *actions: ActionModel) -> DiggerState:
    """Apply actions in order (each must be legal)."""
    for action in actions:
        state, _ = GAME.apply(state, action)
    return state


def roll(faces: str) -> Roll:
    return Roll(values=tuple(faces))


def with_boxes(state: DiggerState, **boxes: dict[str, int]) -> DiggerState:
    """Move stones from the middle into named players' boxes (e.g. Ben={"Y": 2})."""
    all_boxes = list(state.boxes)
    middle = state.middle
    for name, stones in boxes.items():
        seat = state.names.index(name)
        for colour, count in stones.items():
            all_boxes[seat] = all_boxes[seat].plus(colour, count)
            middle = middle.plus(colour, -count)
    return state.evolve(boxes=tuple(all_boxes), middle=middle)


def stone_counts(state: DiggerState) -> dict[str, int]:
    """Stones of each colour found anywhere: middle + waiting + boxes (+ tin for blue)."""
    heaps = (state.middle, state.waiting, *state.boxes)
    counts = {colour: sum(getattr(heap, colour) for heap in heaps) for colour in COLOURS}
    counts["B"] += state.tin
    return counts


ALL_STONES = dict.fromkeys(COLOURS, STONES_PER_COLOUR)
