"""Gold Connection's own invariants in random playouts (tests/conformance/playout.py plays them and checks
the table contract every game keeps): every bar accounted for, chip limits kept, the current robber the
seat whose input is due; a bot game reaches its end."""

from __future__ import annotations

from random import Random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine.session import Session
from companion.games.gold_connection.bot import choose_action
from companion.games.gold_connection.rules import CHIP_LIMIT, CHIP_SUPPLY, GoldConnectionState
from tests.conformance.playout import options_strategy, play
from tests.gold_connection.gc_helpers import GAME, assert_all_bars, setup


def keeps_bars_and_chips(session: Session) -> None:
    state = session.state
    assert isinstance(state, GoldConnectionState)
    if state.phase != "enter_safes":  # the table deals the bars itself (option deal: table): not all laid yet
        assert_all_bars(state)
    held = [robber.chips for robber in state.robbers]
    assert all(0 <= chips <= CHIP_LIMIT for chips in held)
    assert state.chip_supply >= 0 and sum(held) + state.chip_supply == CHIP_SUPPLY
    assert GAME.to_move(state) in (None, state.current)


@settings(max_examples=20)
@given(seed=st.integers(0, 2**31), players=st.integers(2, 4), options=options_strategy(GAME))
def test_random_playouts_keep_every_invariant(seed: int, players: int, options: dict[str, Any]) -> None:
    """Whole games under every setting of the readings GC-R3 and GC-R8."""
    play("gold_connection", seed, players, options, steps=400, visit=keeps_bars_and_chips)


def test_a_bot_game_reaches_the_end_with_scores() -> None:
    rng = Random(5)
    session = Session.new(setup(3, 5))
    while not session.is_over():
        assert session.submit(choose_action(GAME, session.state, rng), "bot").accepted  # type: ignore[arg-type]
    assert session.state.counter == 36  # type: ignore[attr-defined]
    assert max(session.scores()) > 0


def test_virtual_rolls_are_legal_dice() -> None:
    session = Session.new(setup(2, 9))
    outcome = session.virtual_roll()
    assert outcome is not None and outcome.accepted
    assert session.actions[-1].action["type"] == "roll"
    assert all(1 <= value <= 6 for value in session.actions[-1].action["values"])
