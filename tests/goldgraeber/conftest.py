"""Shared fixtures for the Goldgräber tests: the game, a 4-player start, and a way to set up positions.

Positions are built on the shipped board (layouts/goldgraeber.json) by looking fields up by their
role (house, door, rail, raft post, dig field), so the tests read like the rules they prove.
"""

from __future__ import annotations

import pytest

from companion.games.goldgraeber.board import Board
from companion.games.goldgraeber.rules import Goldgraeber, GoldgraeberState
from tests.goldgraeber.gg_helpers import make_setup


@pytest.fixture(scope="session")
def game() -> Goldgraeber:
    return Goldgraeber()


@pytest.fixture(scope="session")
def board(game: Goldgraeber) -> Board:
    return game.board


@pytest.fixture
def start(game: Goldgraeber) -> GoldgraeberState:
    return game.initial_state(make_setup())


