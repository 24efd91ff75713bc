"""The rules engine: a pure core (`core`), games by id (`registry`), records, the journal, sessions."""

from companion.engine.core import (
    N_,
    ActionModel,
    Event,
    Game,
    IllegalAction,
    Player,
    Prompt,
    Refusal,
    Setup,
    Value,
)
from companion.engine.registry import all_games, get_game, register

__all__ = [
    "N_",
    "ActionModel",
    "Event",
    "Game",
    "IllegalAction",
    "Player",
    "Prompt",
    "Refusal",
    "Setup",
    "Value",
    "all_games",
    "get_game",
    "register",
]
