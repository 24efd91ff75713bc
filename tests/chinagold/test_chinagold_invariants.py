"""Chinagold's own invariants in random playouts (tests/conformance/playout.py plays them and checks the
table contract every game keeps): every marker is hidden, gold or taken by exactly one player at every step,
the tiles always match the board as the rule text's thresholds give them, and a finished game has no hidden
marker left."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from companion.engine.session import Session
from companion.games.chinagold.board import get_board
from companion.games.chinagold.geometry import count_lines
from companion.games.chinagold.rules import HIDDEN, ChinagoldState, site_mask, tiles_for
from tests.chinagold.cg_helpers import GAME
from tests.conformance.playout import play


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


def keeps_markers_and_tiles(session: Session) -> None:
    state = session.state
    assert isinstance(state, ChinagoldState)
    board = get_board(state.board)
    assert len(state.sites) == board.size and set(state.sites) <= set("hgMR")
    assert state.tiles == expected_tiles(state.sites, state.board) == tiles_for(board.grid,
                                                                                site_mask(state.sites, HIDDEN))
    assert GAME.to_move(state) in (None, state.to_move)


@given(seed=st.integers(0, 10_000), board=st.sampled_from(["default", "small", "generated-6-77"]),
       overlay=st.integers(0, 11), clears_alone=st.booleans())
def test_random_playout_invariants(seed: int, board: str, overlay: int, clears_alone: bool) -> None:
    session = play("chinagold", seed, 2, {"board": board, "overlay": overlay, "opponent_clears_alone": clears_alone},
                   steps=600, visit=keeps_markers_and_tiles)
    final = session.state
    assert isinstance(final, ChinagoldState)
    if session.is_over():
        assert "h" not in final.sites
        if clears_alone:
            assert sum(session.scores()) == get_board(board).size
