"""Helpers for building Goldgräber positions in tests (fields looked up by role on the shipped board)."""

from __future__ import annotations

from typing import Any

from companion.engine.core import Player, Setup
from companion.games.goldgraeber.rules import GoldgraeberState


def make_setup(players: int = 4, **options: Any) -> Setup:
    """A setup with `players` seats named A, B, C ... and the given options."""
    return Setup(game="goldgraeber", players=tuple(Player(name=chr(65 + i)) for i in range(players)),
                 options=options)


def at(state: GoldgraeberState, **update: Any) -> GoldgraeberState:
    """A position: the state with some fields replaced (tuples given as lists are converted)."""
    return state.evolve(**{key: tuple(value) if isinstance(value, list) else value
                                    for key, value in update.items()})


def with_figure(state: GoldgraeberState, seat: int, field: str) -> GoldgraeberState:
    figures = list(state.figures)
    figures[seat] = field
    return at(state, figures=figures)


def with_open(state: GoldgraeberState, seat: int, *chips: str) -> GoldgraeberState:
    open_chips = list(state.open_chips)
    open_chips[seat] = tuple(chips)
    return at(state, open_chips=open_chips)
