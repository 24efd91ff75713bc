"""Shared fixtures for the Goldgräber tests: the game, a 4-player start, and a way to set up positions.

Positions are built on the shipped board (layouts/goldgraeber.json) by looking fields up by their
role (house, door, rail, raft post, dig field), so the tests read like the rules they prove.
"""

from __future__ import annotations

from typing import Any

import pytest

from companion.engine.core import Player, Setup
from companion.games.goldgraeber.board import Board
from companion.games.goldgraeber.rules import Goldgraeber, GoldgraeberState


def make_setup(players: int = 4, **options: Any) -> Setup:
    """A setup with `players` seats named A, B, C ... and the given options."""
    return Setup(game="goldgraeber", players=tuple(Player(name=chr(65 + i)) for i in range(players)),
                 options=options)


@pytest.fixture(scope="session")
def game() -> Goldgraeber:
    return Goldgraeber()


@pytest.fixture(scope="session")
def board(game: Goldgraeber) -> Board:
    return game.board


@pytest.fixture
def start(game: Goldgraeber) -> GoldgraeberState:
    return game.initial_state(make_setup())


def at(state: GoldgraeberState, **update: Any) -> GoldgraeberState:
    """A position: the state with some fields replaced (tuples given as lists are converted)."""
    return state.model_copy(update={key: tuple(value) if isinstance(value, list) else value
                                    for key, value in update.items()})


def with_figure(state: GoldgraeberState, seat: int, field: str) -> GoldgraeberState:
    figures = list(state.figures)
    figures[seat] = field
    return at(state, figures=figures)


def with_open(state: GoldgraeberState, seat: int, *chips: str) -> GoldgraeberState:
    open_chips = list(state.open_chips)
    open_chips[seat] = tuple(chips)
    return at(state, open_chips=open_chips)


def field_at(board: Board, q: int, r: int) -> str:
    return board.ids[board.coords.index((q, r))]
