"""Table screens per game: the module a game declares as its `table` (`GamePlugin.table`), else the generic one.

A game's table module must define:

- `build_panel(controller: TableController) -> Widget` — the game's input area in the middle of the Table
  screen; it draws and forwards taps to the controller (the game's own, `GamePlugin.controller`).

and may define:

- `setup_steps(setup: Setup) -> list[str]` — the Setup guide, one translated sentence per step;
- `action_label(table: TableModel, action: ActionModel) -> str` — how a choice is written on a button;
- `options_panel(model: OptionsModel) -> Widget | None` — extra Options widgets for fields the generic
  form cannot show (e.g. a list of card values); kept while the screen shows the same game again, so it
  follows the model and the language itself, and its `detach()` (if any) is called when it is dropped;
- `FACE_COLOURS` and `face_letter(token)` — how a die's face is drawn in notices.
- `face_word(token, language)` — a die's face in words (`blue`, `the locomotive`): the camera's teaching
  asks for each face by it (else by its token).

A .kv file of the same stem beside it is loaded before the module is used.  A game's flow (its meaning of
hardware buttons, what `confirm` and `next` play) is its controller's.  Games without a table module get
`companion.app.tables.generic`, which offers the dice keypad from `Prompt.dice` and one button per
candidate the phase table offers (`Game.offered`).  See README.md here.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from pathlib import Path
from types import ModuleType


@lru_cache
def _table_module(game_id: str) -> ModuleType:
    """The module the game declares, else the generic one (also for a game that is not installed).  Only
    the chosen game's module is imported: importing every game's table (boards, the Pi's worker) to find
    one cost the Options screen a megabyte and a few tens of milliseconds."""
    from companion.engine.registry import GameUnavailable, load_part, plugin_for

    try:
        reference = plugin_for(game_id).table
    except GameUnavailable:
        reference = None
    if reference is None:
        return importlib.import_module(f"{__name__}.generic")
    module = load_part(game_id, reference)
    assert isinstance(module, ModuleType), f"{reference} is no module"
    return module


def table_for(game_id: str) -> ModuleType:
    """The table module of a game (the generic one when the game has none), its .kv file loaded."""
    module = _table_module(game_id)
    kv_file = Path(module.__file__ or "").with_suffix(".kv")
    if kv_file.exists():
        from companion.app.widgets import load_kv

        load_kv(kv_file)
    return module
