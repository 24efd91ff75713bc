"""Where games are found by id.  Each game package under `companion.games` registers itself on import."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import Any

from companion.engine.core import Game

AnyGame = Game[Any, Any]

_GAMES: dict[str, AnyGame] = {}


def register(game_class: type[AnyGame]) -> type[AnyGame]:
    """Class decorator: make a game available under its `id`."""
    _GAMES[game_class.id] = game_class()
    return game_class


@cache
def _load_all() -> None:
    """Import every game package once (cached), so each registers itself."""
    import companion.games as games_package

    for module in pkgutil.iter_modules(games_package.__path__):
        importlib.import_module(f"{games_package.__name__}.{module.name}")


def get_game(game_id: str) -> AnyGame:
    """The registered game with this id; KeyError names the ids that exist.

    A game's package is named after its id, so one game loads without the others (the app's first tap
    needs only the game chosen on Home)."""
    if game_id not in _GAMES and game_id.isidentifier():
        import companion.games as games_package

        if any(module.name == game_id for module in pkgutil.iter_modules(games_package.__path__)):
            importlib.import_module(f"{games_package.__name__}.{game_id}")
    if game_id not in _GAMES:
        _load_all()
    try:
        return _GAMES[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r} (known: {', '.join(sorted(_GAMES))})") from None


def all_games() -> dict[str, AnyGame]:
    """Every registered game by id."""
    _load_all()
    return dict(_GAMES)
