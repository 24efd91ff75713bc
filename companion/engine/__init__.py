"""The rules engine: a pure core (`core`), games by id (`registry`), records, the journal, sessions."""

from companion.engine.core import (
    ActionModel,
    Event,
    Game,
    IllegalAction,
    N_,
    Player,
    Prompt,
    Refusal,
    Setup,
    Value,
)
from companion.engine.registry import all_games, get_game, register

__all__ = [
    "ActionModel", "Event", "Game", "IllegalAction", "N_", "Player", "Prompt", "Refusal", "Setup", "Value",
    "all_games", "get_game", "register",
]
