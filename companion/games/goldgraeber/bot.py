"""A simple seeded Goldgräber player: digs the nearest chips and carries gold home.

Used to produce the example game record, by the benchmarks (playouts per second) and by tests that
need whole games that actually score.  It also stands in for the table when chips are turned: a
`reveal` is drawn from the chips still unseen, weighted by how many of each are left.
"""

from __future__ import annotations

from collections import deque
from random import Random

from companion.engine.core import ActionModel
from companion.games.goldgraeber.board import Board
from companion.games.goldgraeber.rules import (
    CHIP_KINDS,
    DIE_FACES,
    Goldgraeber,
    GoldgraeberState,
    Move,
    Raft,
    Reveal,
    Roll,
    chip_points,
)

#: Open points at which the bot turns for home.
GO_HOME_AT = 6


def distances_to(board: Board, targets: set[int]) -> list[int]:
    """Walking distance from every field to the nearest target (breadth-first over the board graph)."""
    far = len(board.ids) + 1
    dist = [far] * len(board.ids)
    queue: deque[int] = deque()
    for target in targets:
        dist[target] = 0
        queue.append(target)
    while queue:
        here = queue.popleft()
        for nxt in board.neighbours[here]:
            if dist[nxt] == far:
                dist[nxt] = dist[here] + 1
                queue.append(nxt)
    return dist


def draw_chip(state: GoldgraeberState, rng: Random) -> Reveal:
    """What a face-down chip turns out to be, drawn from the unseen chips."""
    kind = rng.choices(CHIP_KINDS, weights=state.unseen)[0]
    return Reveal(chip="gold" if kind[0] == "G" else "robber", value=int(kind[1]))


def choose_action(game: Goldgraeber, state: GoldgraeberState, rng: Random) -> ActionModel:
    """The bot's next action in whatever the phase table offers (dice and chips from `rng`)."""
    expects = game.expects(state)
    if "reveal" in expects:
        return draw_chip(state, rng)
    if "roll" in expects:
        return Roll(values=(rng.choice(DIE_FACES),))
    board = game.board
    seat = state.actor
    carrying = sum(chip_points(chip) for chip in state.open_chips[seat])
    if carrying >= GO_HOME_AT:
        targets = {board.houses[state.houses[seat]]}
    else:
        targets = {board.index[f] for f in state.face_down} | {board.index[s.field] for s in state.stacks}
    if not targets:
        targets = {board.houses[state.houses[seat]]}
    dist = distances_to(board, targets)
    # walking or rafting: both go `to`
    moves = [action for kind in ("move", "raft") for action in game.offered(state, kind)
             if isinstance(action, Move | Raft)]
    return min(moves, key=lambda action: (dist[board.index[action.to]], rng.random()))


def play(game: Goldgraeber, state: GoldgraeberState, rng: Random,
         max_actions: int = 5000) -> list[tuple[ActionModel, GoldgraeberState]]:
    """Play to the end; every action with the state after it."""
    history: list[tuple[ActionModel, GoldgraeberState]] = []
    while not game.is_over(state) and len(history) < max_actions:
        action = choose_action(game, state, rng)
        state, _ = game.apply(state, action)
        history.append((action, state))
    return history
