"""GG-3/GG-4/GG-R1: the dynamic programme finds exactly the ends of all legal walks (checked by brute force)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.goldgraeber.board import Board, load_board
from companion.games.goldgraeber.movement import reachable

BOARD = load_board()
WALKABLE = [i for i, kind in enumerate(BOARD.types) if kind != "lake"]


def brute_force(board: Board, start: int, steps: int, blocked: set[int]) -> set[int]:
    """Every walk of `steps` steps that never steps straight back and never enters a blocked field."""
    ends: set[int] = set()

    def walk(here: int, previous: int, left: int) -> None:
        if left == 0:
            ends.add(here)
            return
        for nxt in board.neighbours[here]:
            if nxt != previous and nxt not in blocked:
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
