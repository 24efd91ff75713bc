"""The rules engine: a pure core (`core`), games by id (`registry`), records, the journal, sessions.

The names below are loaded on first use: importing a light module such as `companion.engine.errors`
(the app's first frame needs it) must not pull in pydantic and every model with it.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "N_": "core", "ActionModel": "core", "Event": "core", "Game": "core", "IllegalAction": "core",
    "Player": "core", "Prompt": "core", "Refusal": "core", "Setup": "core", "Value": "core",
    "all_games": "registry", "get_game": "registry", "plugin_for": "registry",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """`from companion.engine import Setup` works as before; the module behind it loads now."""
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
