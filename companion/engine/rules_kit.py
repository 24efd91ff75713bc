"""The scaffolding of a game's rules: the Game class with its phase table and handlers (FrozenDict, so a
game's tables cannot be changed by whoever holds the game), and the few helpers every game needed a copy
of: a roll and its check, "nothing more to check"; and the action parser, for a game that reads actions
its handler table does not list (`Game` builds one from the table otherwise).

The values a game trades in (Value, ActionModel, Event, Prompt, Refusal, refuse, DiceRefusals) come from
`core`; the scaffolding from here, for a game from outside exactly as for the shipped ones.  All stays
pure: states are values, `validate` answers with a Refusal (code, template, params, rule id), `apply`
returns the next state and its events, dice enter as actions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from companion.engine.core import (
    ActionModel,
    DiceRefusals,
    FrozenDict,
    Game,
    Handler,
    PhaseRule,
    Refusal,
    check_dice,
    parse_actions,
)

__all__ = ["Check", "DiceRoll", "FrozenDict", "Game", "Handler", "PhaseRule", "check_dice", "no_check",
           "parse_actions", "roll_check"]

#: A handler's check: `(game, state, action)` to a refusal, or None when the action may be applied.
Check = Callable[[Any, Any, Any], Refusal | None]


class DiceRoll(ActionModel):
    """Dice as they lie, one face token per die in the prompt's order (from hardware, touch or the Pi's
    virtual roll); a game subclasses it to say what its dice are."""

    type: Literal["roll"] = "roll"
    values: tuple[str, ...]


def roll_check(refusals: DiceRefusals) -> Check:
    """The check of a roll action: its `values` against the dice the prompt asks for, refused in the
    game's words (`check_dice`)."""

    def check(game: Game[Any, Any], state: Any, action: Any) -> Refusal | None:
        return check_dice(game.prompt(state), action.values, refusals)

    return check


def no_check(game: Game[Any, Any], state: Any, action: ActionModel) -> Refusal | None:
    """The check of an action the phase table's "now" is all there is to (e.g. ending a turn)."""
    return None
