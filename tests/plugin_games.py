"""Games from outside Goldtable for the tests: tests/plugins holds Dice race as an installed package would lie
in site-packages (the package and its `.dist-info` with the entry point), so importlib.metadata finds it
exactly as it finds an installed plugin once the folder is on sys.path.  Nothing is installed: the README's
test command stays as it is, and every test that does not ask for the plugin sees only Goldtable's games."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PLUGINS = Path(__file__).resolve().parent / "plugins"
#: The test game's id (its entry point's name).
DICE_RACE = "dice_race"


@contextmanager
def installed(folder: Path = PLUGINS) -> Iterator[None]:
    """The plugins in `folder` installed while the block runs (on sys.path, and on PYTHONPATH for the
    processes it starts), then gone again; the game lookup reads the installed games afresh both times."""
    from companion.app import i18n
    from companion.app.tables import _table_module
    from companion.engine import putback, registry

    saved = registry._GAMES, registry._PLUGINS, registry._PROBLEMS, putback._PUTBACKS
    before = set(registry.declared())
    python_path = os.environ.get("PYTHONPATH")
    sys.path.insert(0, str(folder))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, (str(folder), python_path)))
    registry._GAMES, registry._PLUGINS, registry._PROBLEMS, putback._PUTBACKS = dict(registry._GAMES), {}, {}, {}
    registry._entry_points.cache_clear()
    added = set(registry.declared()) - before
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        if python_path is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = python_path
        registry._GAMES, registry._PLUGINS, registry._PROBLEMS, putback._PUTBACKS = saved
        registry._entry_points.cache_clear()
        for key in [key for key in i18n._catalogs if key[0] in added]:
            del i18n._catalogs[key]  # a plugin's catalogs go with it
        _table_module.cache_clear()


def plugin_folder(folder: Path, name: str, entry_points: str, module: str) -> Path:
    """A plugin as it lies in site-packages, made in `folder`: a module `name` with the text `module`, and
    its .dist-info declaring `entry_points` (lines of the `goldtable.games` group)."""
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[goldtable.games]\n{entry_points}\n", encoding="utf-8")
    (folder / f"{name}.py").write_text(module, encoding="utf-8")
    return folder
