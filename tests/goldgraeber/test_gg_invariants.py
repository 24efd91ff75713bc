"""Goldgräber's own invariants in random playouts (tests/conformance/playout.py plays them and checks the
table contract every game keeps): all 64 chips accounted for, figures on land, rafts on shores, the train
only moving forward, the actor the seat whose input is due; under the default readings and the literal
ones (GG-R1, GG-R2, GG-R13 ... GG-R15)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine.session import Session
from companion.games.goldgraeber.rules import CHIP_KINDS, CHIP_POOL, Goldgraeber, GoldgraeberState
from tests.conformance.playout import options_strategy, play

GAME = Goldgraeber()
BOARD = GAME.board


def keeps_every_chip_and_figure(session: Session) -> None:
    state = session.state
    assert isinstance(state, GoldgraeberState)
    chips: Counter[str] = Counter()
    for kind, count in zip(CHIP_KINDS, state.unseen):
        assert count >= 0
        chips[kind] += count
    for held in (*state.open_chips, *state.home_chips):
        chips.update(held)
    for stack in state.stacks:
        chips[stack.robber] += 1
        chips.update(stack.loot)
        assert stack.field not in state.face_down and BOARD.types[BOARD.index[stack.field]] == "dig"
    assert [chips[kind] for kind in CHIP_KINDS] == list(CHIP_POOL)  # all 64 chips accounted for
    assert len(state.face_down) == sum(state.unseen)
    assert all(BOARD.types[BOARD.index[f]] == "dig" for f in state.face_down)
    for seat, field in enumerate(state.figures):
        kind = BOARD.types[BOARD.index[field]]
        assert kind != "lake", "a figure stands in a lake"
        if kind == "house":
            assert BOARD.index[field] == BOARD.houses[state.houses[seat]]
    for raft in state.rafts:
        assert BOARD.types[BOARD.index[raft]] == "shore"
        assert sum(1 for f in state.figures if f == raft) <= 1, "two figures on one raft"
    assert len(set(state.rafts)) == len(state.rafts)
    if state.options.locomotive_field == "closed":
        assert BOARD.ids[BOARD.rail[state.locomotive]] not in state.figures
    if len(session.states) > 1:  # the state before this one in the game's history (an undo went back past it)
        previous = session.states[-2]
        assert isinstance(previous, GoldgraeberState)
        assert previous.locomotive <= state.locomotive <= previous.locomotive + 1, "the train only moves forward"
    assert GAME.to_move(state) in (None, state.actor)


@settings(max_examples=20)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(3, 6), options=options_strategy(GAME))
def test_random_playouts_keep_every_invariant(seed: int, players: int, options: dict[str, Any]) -> None:
    play("goldgraeber", seed, players, options, steps=600, visit=keeps_every_chip_and_figure)
