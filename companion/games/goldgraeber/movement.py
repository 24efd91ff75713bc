"""Exact-count movement on the Goldgräber board (rules GG-3 ... GG-5, GG-20).

By default a move of N steps may revisit fields but may never step straight back to the field it just
left (how we read "no shuttling between two fields", GG-R1).  So the only memory a walk needs is where it
is and where it came from: we advance the set of (field, previous field) pairs N times, which costs
O(N x fields x 6) instead of enumerating the up to 5^N paths.  The literal reading (`back_steps`) forbids
only a move that stays between two fields; a walk then remembers the one other field it has seen, or that
it has seen three or more.
"""

from __future__ import annotations

from collections.abc import Collection

from companion.games.goldgraeber.board import Board

NO_FIELD = -1
#: In the literal reading: the walk has already been on three or more fields.
MANY_FIELDS = -2


def reachable(board: Board, start: int, steps: int, blocked: Collection[int] = (), *,
              back_steps: bool = False, end_only: Collection[int] = ()) -> set[int]:
    """Every field where a walk of exactly `steps` steps from `start` can end.

    `blocked` fields may be neither entered nor passed (the locomotive, other players' houses); `end_only`
    fields may be entered by the last step only.  Lakes and the walls of houses are already missing from
    `board.neighbours`.  With `back_steps` a step may lead straight back, but a walk that only goes back
    and forth between two fields does not count.
    """
    if back_steps:
        return _reachable_two_field_rule(board, start, steps, blocked, end_only)
    neighbours = board.neighbours
    frontier: set[tuple[int, int]] = {(start, NO_FIELD)}
    for step in range(steps):
        last = step == steps - 1
        following: set[tuple[int, int]] = set()
        for here, previous in frontier:
            for nxt in neighbours[here]:
                if nxt != previous and nxt not in blocked and (last or nxt not in end_only):
                    following.add((nxt, here))
        if not following:
            return set()
        frontier = following
    return {here for here, _ in frontier}


def _reachable_two_field_rule(board: Board, start: int, steps: int, blocked: Collection[int],
                              end_only: Collection[int]) -> set[int]:
    """Walks that may step back, as long as they reach a third field (pairs: field, the other field seen)."""
    neighbours = board.neighbours
    frontier: set[tuple[int, int]] = {(start, NO_FIELD)}
    for step in range(steps):
        last = step == steps - 1
        following: set[tuple[int, int]] = set()
        for here, other in frontier:
            for nxt in neighbours[here]:
                if nxt in blocked or (not last and nxt in end_only):
                    continue
                if other == MANY_FIELDS or (other != NO_FIELD and nxt != other):
                    following.add((nxt, MANY_FIELDS))
                else:
                    following.add((nxt, here))
        if not following:
            return set()
        frontier = following
    return {here for here, other in frontier if other == MANY_FIELDS or steps < 2}
