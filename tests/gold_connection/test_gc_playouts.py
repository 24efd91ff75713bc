"""Random playouts: every bar accounted for, chip limits kept, illegal input refused with nothing changed,
and the record of every game replays to the same state."""

from __future__ import annotations

from random import Random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine.record import replay
from companion.engine.session import Session
from companion.games.gold_connection.bot import choose_action
from companion.games.gold_connection.rules import CHIP_LIMIT, CHIP_SUPPLY, GoldConnectionState
from tests.gold_connection.gc_helpers import GAME, assert_all_bars, setup

EXAMPLES = max(20, settings.default.max_examples // 5)


def bad_inputs(state: GoldConnectionState, rng: Random) -> list[dict[str, Any]]:
    """Inputs a confused table might send now; the test only uses those the rules refuse."""
    safe = rng.choice(sorted(state.safes))
    return [
        {"type": "roll", "values": [rng.choice([0, 7, 9, -1]), rng.randint(1, 6)]},
        {"type": "roll", "values": [rng.randint(1, 6)]},
        {"type": "loot", "bars": ["B6", "B6"]},
        {"type": "loot", "bars": [rng.choice(["B1", "G2", "R3", "Y4", "Y6"])]},
        {"type": "move", "path": [safe]},
        {"type": "move", "path": [safe, safe]},
        {"type": "sort", "rows": {"B6": [6]}},
        {"type": "use_chips", "count": 99},
        {"type": "plunder", "victim": state.current, "take": {"B6": 1}},
        {"type": "plunder", "victim": (state.current + 1) % len(state.robbers), "take": {"G5": 9}},
        {"type": "choose_start", "safe": safe},
        {"type": "place_arrow", "heading": safe},
        {"type": "enter_safe", "safe": safe, "bars": ["B1"] * 6},
        {"type": "end_turn"},
        {"type": "stop"},
    ]


def check_invariants(state: GoldConnectionState) -> None:
    assert_all_bars(state)
    held = [robber.chips for robber in state.robbers]
    assert all(0 <= chips <= CHIP_LIMIT for chips in held)
    assert state.chip_supply >= 0 and sum(held) + state.chip_supply == CHIP_SUPPLY


@settings(max_examples=EXAMPLES)
@given(seed=st.integers(0, 2**31), players=st.integers(2, 4), game_end=st.sampled_from(["counter", "series"]),
       wildness=st.floats(0, 1), choice_heading=st.sampled_from(["turn_end", "every_stop"]),
       series_reading=st.sampled_from(["two_six_or_any_three", "two_six_or_three_five", "any_two"]))
def test_random_playouts_keep_every_invariant(seed: int, players: int, game_end: str, wildness: float,
                                              choice_heading: str, series_reading: str) -> None:
    """Whole games under every setting of the readings GC-R3 and GC-R8."""
    rng = Random(seed)
    session = Session.new(setup(players, seed, game_end=game_end, choice_heading=choice_heading,
                                series_reading=series_reading))
    steps = 0
    while not session.is_over() and steps < 400:
        state: GoldConnectionState = session.state  # type: ignore[assignment]
        check_invariants(state)
        for raw in rng.sample(bad_inputs(state, rng), 3):
            _, refused = session.check(raw)
            if refused is None:
                continue
            assert refused.rule.startswith(("GC-", "TABLE-")) and refused.text()
            count = len(session.actions)
            outcome = session.submit(raw, "touch")
            assert not outcome.accepted and session.state is state and len(session.actions) == count
        legal = GAME.legal_actions(state)
        action = rng.choice(legal) if legal and rng.random() < wildness else choose_action(GAME, state, rng)
        outcome = session.submit(action, "bot")
        assert outcome.accepted, outcome.refusal
        steps += 1
    check_invariants(session.state)  # type: ignore[arg-type]
    replayed = replay(session.record())
    assert GAME.state_to_json(replayed.state) == GAME.state_to_json(session.state)  # type: ignore[arg-type]


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


def test_listed_actions_are_all_allowed() -> None:
    rng = Random(11)
    session = Session.new(setup(3, 11))
    for _ in range(300):
        if session.is_over():
            break
        state = session.state
        legal = GAME.legal_actions(state)  # type: ignore[arg-type]
        if legal is not None:
            assert legal and all(GAME.validate(state, action) is None for action in legal)  # type: ignore[arg-type]
        session.submit(choose_action(GAME, state, rng), "bot")  # type: ignore[arg-type]
