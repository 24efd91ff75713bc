"""`Game.offered`, which panels and bots ask instead of naming phases: the candidates of one action type
when the phase table offers it, none when it does not, and with `checked` only those the rules accept."""

from __future__ import annotations

import pytest

from companion.games.gold_connection.rules import Loot, Move
from tests.gold_connection.gc_helpers import GAME, turn_state


def test_offered_follows_the_phase_table_and_checked_follows_validate() -> None:
    state = turn_state({0: ("S12", "E"), 1: ("S1", "S2")})
    assert GAME.expects(state) == ("move",)
    assert GAME.offered(state, "loot") == [] and GAME.offered(state, "stop") == []  # a move comes first
    assert GAME.offered(state, "move") == GAME.moves(state) and all(isinstance(m, Move) for m in GAME.moves(state))
    # The arrow back on the safe where the turn began (as after a loop): loot is offered, yet GC-8 refuses it.
    looped = state.evolve(moved=True, distance=6)
    loots = GAME.offered(looped, "loot")
    assert loots and all(isinstance(loot, Loot) for loot in loots)
    assert GAME.offered(looped, "loot", checked=True) == []
    assert GAME.validate(looped, loots[0]) is not None
    assert GAME.offered(looped, "stop", checked=True) == GAME.offered(looped, "stop")  # stopping there is fine
    sorting = state.evolve(phase="sort", tray=("B1",))
    assert GAME.offered(sorting, "move") == []
    with pytest.raises(KeyError):
        GAME.offered(sorting, "sort")  # offered, but too many sortings to list
