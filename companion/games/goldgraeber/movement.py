"""Exact-count movement on the Goldgräber board (rules GG-3 ... GG-5).

A move of N steps may revisit fields but may never step straight back to the field it just left (that
is how we read "no shuttling between two fields", GG-R1).  So the only memory a walk needs is where it
is and where it came from: we advance the set of (field, previous field) pairs N times, which costs
O(N x fields x 6) instead of enumerating the up to 5^N paths.
"""

from __future__ import annotations

from collections.abc import Collection

from companion.games.goldgraeber.board import Board

NO_FIELD = -1


def reachable(board: Board, start: int, steps: int, blocked: Collection[int] = ()) -> set[int]:
    """Every field where a walk of exactly `steps` steps from `start` can end.

    `blocked` fields may be neither entered nor passed (the locomotive, other players' houses).  Lakes
    and the walls of houses are already missing from `board.neighbours`.
    """
    neighbours = board.neighbours
    frontier: set[tuple[int, int]] = {(start, NO_FIELD)}
    for _ in range(steps):
        following: set[tuple[int, int]] = set()
        for here, previous in frontier:
            for nxt in neighbours[here]:
                if nxt != previous and nxt not in blocked:
                    following.add((nxt, here))
        if not following:
            return set()
        frontier = following
    return {here for here, _ in frontier}
