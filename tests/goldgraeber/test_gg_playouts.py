"""Random whole games through a Session: invariants at every step, refusals change nothing, replay matches.

Each example plays one game with a seeded mix of the bot and uniformly random legal actions (chips
drawn from the unseen pool like a table would turn them), and tries an illegal action at every step.
"""

from __future__ import annotations

from collections import Counter
from random import Random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine.core import ActionModel
from companion.engine.record import replay
from companion.engine.session import Session
from companion.games.goldgraeber.bot import choose_action, draw_chip
from companion.games.goldgraeber.rules import (
    CHIP_KINDS,
    CHIP_POOL,
    Goldgraeber,
    GoldgraeberState,
    Move,
    Raft,
    Reveal,
    Roll,
)
from tests.goldgraeber.gg_helpers import make_setup

GAME = Goldgraeber()
BOARD = GAME.board


def check_invariants(state: GoldgraeberState, previous: GoldgraeberState | None) -> None:
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
    if previous is not None:
        assert previous.locomotive <= state.locomotive <= previous.locomotive + 1, "the train only moves forward"


def illegal_attempt(state: GoldgraeberState, rng: Random) -> ActionModel:
    """Something the table might wrongly enter now."""
    choices: list[ActionModel] = [Roll(values=("1",)), Roll(values=("L", "2"))]
    if state.phase in ("move", "away"):
        allowed = GAME.destinations(state)
        choices.append(Move(to=rng.choice([f for f in BOARD.ids if f not in allowed])))
    if state.phase == "reveal":
        gone = [kind for kind, count in zip(CHIP_KINDS, state.unseen) if count == 0]
        if gone:
            kind = rng.choice(gone)
            choices.append(Reveal(chip="gold" if kind[0] == "G" else "robber", value=int(kind[1])))
        choices.append(Reveal(chip="gold", value=0))
    if state.phase == "raft":
        choices.append(Raft(to=rng.choice([f for f in BOARD.ids if BOARD.types[BOARD.index[f]] != "shore"])))
    else:
        choices.append(Raft(to=state.rafts[0]))
    return rng.choice(choices)


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(3, 6), random_share=st.floats(0, 1),
       look=st.booleans(), literal=st.booleans())
def test_random_playouts_keep_every_invariant(seed: int, players: int, random_share: float, look: bool,
                                              literal: bool) -> None:
    """Whole games under the default readings and under the literal ones (GG-R1, GG-R2, GG-R13 ... GG-R15)."""
    rng = Random(seed)
    readings = {"shuttle": "two_fields_only", "locomotive_field": "may_end_there", "train_takes": "open_gold",
                "open_robbers_score": True, "end_counts_hidden_robbers": True} if literal else {}
    session = Session.new(make_setup(players, look_variant=look, **readings).evolve(seed=seed))
    previous: GoldgraeberState | None = None
    while not session.is_over() and len(session.actions) < 3000:
        state = session.state
        assert isinstance(state, GoldgraeberState)
        check_invariants(state, previous)
        before = GAME.state_to_json(state)
        bad = illegal_attempt(state, rng)
        outcome = session.submit(bad, "bot")
        assert not outcome.accepted and outcome.refusal is not None and outcome.refusal.rule.startswith("GG-")
        assert GAME.state_to_json(session.state) == before  # type: ignore[arg-type]
        if state.phase == "reveal":
            action = draw_chip(state, rng)
        elif rng.random() < random_share:
            action = rng.choice(GAME.legal_actions(state))
        else:
            action = choose_action(GAME, state, rng)
        assert session.submit(action, "bot").accepted
        previous = state
    assert session.is_over()
    final = session.state
    assert isinstance(final, GoldgraeberState)
    check_invariants(final, previous)
    assert GAME.state_to_json(replay(session.record()).state) == GAME.state_to_json(final)  # type: ignore[arg-type]
