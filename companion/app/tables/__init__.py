"""Table screens per game, found automatically so each game adds its own without editing the app.

A game `<id>` adds `companion/app/tables/<id with - as _>.py` (and optionally a `.kv` file of the same
stem next to it, loaded before the module is used).  The module must define:

- `GAME_ID: str` — the engine game id it serves;
- `build_panel(controller: TableController) -> Widget` — the game's input area in the middle of the Table
  screen; it draws and forwards taps to the controller (companion/app/controllers/).

and may define:

- `setup_steps(setup: Setup) -> list[str]` — the Setup guide, one translated sentence per step;
- `action_label(table: TableModel, action: ActionModel) -> str` — how a choice is written on a button;
- `options_panel(model: OptionsModel) -> Widget | None` — extra Options widgets for fields the generic
  form cannot show (e.g. a list of card values); kept while the screen shows the same game again, so it
  follows the model and the language itself, and its `detach()` (if any) is called when it is dropped.

A game's flow (its meaning of hardware buttons, what `confirm` and `next` play) is its controller's.
Games without a module get `companion.app.tables.generic`, which offers the dice keypad from
`Prompt.dice` and one button per candidate the phase table offers (`Game.offered`).  See README.md here.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from pathlib import Path
from types import ModuleType

_NOT_TABLES = {"generic", "common"}


@lru_cache
def _table_module(game_id: str) -> ModuleType:
    """The module named after the game (`-` as `_`) if it declares that GAME_ID, else the generic one.
    Only the chosen game's module is imported: importing every game's table (boards, the Pi's worker)
    to find one cost the Options screen a megabyte and a few tens of milliseconds."""
    name = game_id.replace("-", "_")
    if name.isidentifier() and name not in _NOT_TABLES and not name.startswith("_"):
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as missing:
            if missing.name != f"{__name__}.{name}":
                raise  # the game's module is there but something it imports is not
        else:
            if getattr(module, "GAME_ID", None) == game_id:
                return module
    return importlib.import_module(f"{__name__}.generic")


def table_for(game_id: str) -> ModuleType:
    """The table module of a game (the generic one when the game has none), its .kv file loaded."""
    module = _table_module(game_id)
    kv_file = Path(module.__file__ or "").with_suffix(".kv")
    if kv_file.exists():
        from companion.app.widgets import load_kv

        load_kv(kv_file)
    return module
