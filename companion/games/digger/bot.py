"""A simple seeded player for Digger: random playouts (the conformance suite, Digger's invariant tests).

It grabs what a roll allows (a stone taken or robbed at random), stops once it holds something or after
three rolls, and rolls otherwise, so a game reaches its end; it is not meant to play well.
"""

from __future__ import annotations

from random import Random

from companion.engine.core import ActionModel
from companion.games.digger.rules import DICE_COUNT, FACES, Digger, DiggerState, Roll, Stop


def choose_action(game: Digger, state: DiggerState, rng: Random) -> ActionModel:
    """The bot's next action (the dice from `rng`)."""
    if state.roll:
        grabs = [*game.offered(state, "take", checked=True), *game.offered(state, "rob", checked=True)]
        if grabs:
            return rng.choice(grabs)
        if state.waiting.total() or state.rolls >= 3:
            return Stop()
    return Roll(values=tuple(rng.choice(FACES) for _ in range(DICE_COUNT)))
