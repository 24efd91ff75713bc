"""GG-3/GG-4/GG-R1: the dynamic programme finds exactly the ends of all legal walks (checked by brute force)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.goldgraeber.board import Board, load_board
from companion.games.goldgraeber.movement import reachable

BOARD = load_board()
WALKABLE = [i for i, kind in enumerate(BOARD.types) if kind != "lake"]


def brute_force(board: Board, start: int, steps: int, blocked: set[int],
                end_only: frozenset[int] = frozenset()) -> set[int]:
    """Every walk of `steps` steps that never steps straight back and never enters a blocked field (nor an
    `end_only` field but with its last step)."""
    ends: set[int] = set()

    def walk(here: int, previous: int, left: int) -> None:
        if left == 0:
            ends.add(here)
            return
        for nxt in board.neighbours[here]:
            if nxt != previous and nxt not in blocked and (left == 1 or nxt not in end_only):
                walk(nxt, here, left - 1)

    walk(start, -1, steps)
    return ends


@settings(max_examples=60)
@given(start=st.sampled_from(WALKABLE), steps=st.integers(1, 5), train=st.integers(0, len(BOARD.rail) - 1),
       closed_houses=st.sets(st.sampled_from(BOARD.houses), max_size=5))
def test_dp_matches_every_walk(start: int, steps: int, train: int, closed_houses: set[int]) -> None:
    blocked = {BOARD.rail[train], *closed_houses} - {start}
    assert reachable(BOARD, start, steps, blocked) == brute_force(BOARD, start, steps, blocked)


def test_walks_from_a_house_go_through_the_door() -> None:
    house, door = BOARD.houses[0], BOARD.doors[0]
    assert reachable(BOARD, house, 1) == {door}
    assert house not in reachable(BOARD, house, 2)  # in and out again would be a shuttle
    assert house in reachable(BOARD, house, 5)  # out, round a triangle back to the door, in
    hq, hr = BOARD.coords[house]
    for end in reachable(BOARD, house, 6):
        q, r = BOARD.coords[end]
        assert (abs(q - hq) + abs(r - hr) + abs(q + r - hq - hr)) // 2 <= 6


def brute_force_literal(board: Board, start: int, steps: int, blocked: set[int], end_only: set[int]) -> set[int]:
    """Every walk that may step back but visits at least three fields, entering `end_only` only at the end."""
    ends: set[int] = set()

    def walk(here: int, seen: frozenset[int], left: int) -> None:
        if left == 0:
            if len(seen) >= 3 or steps < 2:
                ends.add(here)
            return
        for nxt in board.neighbours[here]:
            if nxt not in blocked and (left == 1 or nxt not in end_only):
                walk(nxt, seen | {nxt}, left - 1)

    walk(start, frozenset({start}), steps)
    return ends


@settings(max_examples=40)
@given(start=st.sampled_from(WALKABLE), steps=st.integers(1, 4), train=st.integers(0, len(BOARD.rail) - 1),
       train_is_an_end=st.booleans())
def test_literal_shuttle_dp_matches_every_walk(start: int, steps: int, train: int, train_is_an_end: bool) -> None:
    """GG-R1 `two_fields_only` and GG-R2 `may_end_there`: the literal readings' walks, checked by brute force."""
    rail = {BOARD.rail[train]} - {start}
    blocked, end_only = (set(), rail) if train_is_an_end else (rail, set())
    assert reachable(BOARD, start, steps, blocked, back_steps=True, end_only=end_only) == \
        brute_force_literal(BOARD, start, steps, blocked, end_only)
    assert reachable(BOARD, start, steps, blocked, end_only=end_only) == \
        brute_force(BOARD, start, steps, blocked, frozenset(end_only))
