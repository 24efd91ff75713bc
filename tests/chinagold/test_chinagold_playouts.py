"""Random playouts: every marker is hidden, gold or taken by exactly one player at every step; the tiles
always match the board; refused actions change nothing; replaying the record reproduces the game."""

from __future__ import annotations

from random import Random

from hypothesis import given
from hypothesis import strategies as st

from companion.engine.record import replay
from companion.engine.session import Session
from companion.games.chinagold.board import get_board
from companion.games.chinagold.geometry import count_lines
from companion.games.chinagold.rules import HIDDEN, site_mask, tiles_for
from tests.chinagold.cg_helpers import GAME, new_setup


def expected_tiles(sites: str, board_key: str) -> tuple[str, ...]:
    """The tile set recomputed straight from the rule text's thresholds."""
    g = get_board(board_key).grid
    hidden = site_mask(sites, HIDDEN)
    lines = {length: count_lines(g, hidden, length) for length in (3, 4, 5)}
    if lines[3] <= 1:
        return ()
    if lines[4] <= 1:
        return ("0|1", "1|2")
    if lines[5] <= 1:
        return ("0|2", "1|2")
    return ("0|1", "0|2", "1|2")


def wild_action(rng: Random, size: int) -> dict[str, object]:
    """An action that is often illegal: random sites, random tile faces."""
    kind = rng.choice(["turn", "bury", "throw"])
    if kind == "turn":
        return {"type": "turn", "start": rng.randrange(-1, size + 1), "end": rng.randrange(size)}
    if kind == "bury":
        return {"type": "bury", "site": rng.randrange(size)}
    return {"type": "throw", "values": [rng.randrange(3) for _ in range(rng.randrange(1, 4))]}


@given(seed=st.integers(0, 10_000), board=st.sampled_from(["default", "small", "generated-6-77"]),
       overlay=st.integers(0, 11), bury_weight=st.sampled_from([0.0, 0.1, 0.4]),
       clears_alone=st.booleans())
def test_random_playout_invariants(seed: int, board: str, overlay: int, bury_weight: float,
                                   clears_alone: bool) -> None:
    rng = Random(seed)
    session = Session.new(new_setup(first=seed % 2, board=board, overlay=overlay,
                                    opponent_clears_alone=clears_alone))
    size = get_board(board).size
    steps = 0
    while not session.is_over() and steps < 600:
        state = session.state
        assert len(state.sites) == size and set(state.sites) <= set("hgMR")
        assert state.tiles == expected_tiles(state.sites, board) == tiles_for(get_board(board).grid,
                                                                               site_mask(state.sites, HIDDEN))
        if rng.random() < 0.3:
            wild = wild_action(rng, size)
            _, refused = session.check(wild)
            if refused is not None:
                outcome = session.submit(wild, "touch")
                assert not outcome.accepted and outcome.refusal is not None
                assert outcome.refusal.rule.startswith(("CG-", "TABLE-"))
                assert session.state == state
                continue
        if state.phase == "throw":
            assert session.virtual_roll() is not None
        else:
            legal = GAME.legal_actions(state) or []
            burials = [a for a in legal if a.type == "bury"]
            turns = [a for a in legal if a.type == "turn"]
            assert turns, "a thrown total always has a line to turn"
            pool = burials if burials and rng.random() < bury_weight else turns
            assert session.submit(rng.choice(pool), "virtual").accepted
        steps += 1
    final = session.state
    if session.is_over():
        assert "h" not in final.sites
        if clears_alone:
            assert sum(session.scores()) == size
    assert GAME.state_to_json(replay(session.record()).state) == GAME.state_to_json(final)
