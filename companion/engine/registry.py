"""Where games are found: the one lookup for every part of a game.

Each game package declares all its parts in one `GamePlugin` and publishes it under the entry point group
`goldtable.games` (pyproject.toml's `[project.entry-points."goldtable.games"]`; the entry point's name is
the game id), so a game can also come in a package of its own, installed beside Goldtable.  The engine
asks here for rules and put-back guides, the layout checks for board kinds, the camera for dice, the app
for controllers, table panels and board widgets.

A declaration names the game's code as "module:attribute" strings, imported on first use: finding the
games imports none of them, the engine and the CLI never import Kivy (only the app asks for the app's
parts), and opening one game imports that game alone (the app's first tap needs only the game chosen on
Home).  A plugin that cannot be loaded, or whose id another plugin declares too, is left out instead of
taking the others down: `get_game` refuses it with the reason, and `problems()` names it for Home.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint
    from random import Random

    from companion.engine.core import ActionModel, Game

    AnyGame = Game[Any, Any]
    Autoplay = Callable[[AnyGame, Any, Random], ActionModel]

T = TypeVar("T")

#: The entry point group games are published under.
ENTRY_POINT_GROUP = "goldtable.games"


@dataclass(frozen=True)
class Layout:
    """One kind of board or card file a game reads: `kind` is its schema and checks (a
    `companion.layout.LayoutKind`), `board` the Kivy function that draws it (`board(layout, show_ids=False)
    -> Widget`, for `goldtable layout render`), None for data without a picture.  Both "module:attribute"."""

    kind: str
    board: str | None = None


@dataclass(frozen=True)
class GamePlugin:
    """Every part of one game, stated once.  Parts are "module:attribute" strings, imported when asked for.

    - `rules`: the `Game` subclass; its `options_model` is the game's options (the engine needs the two
      together, so the rules class names its options and this names the rules class).
    - `putback`: the `PutBack` subclass that tells the table what to put back after an undo.
    - `dice`: the dice of a full roll, one tuple of face tokens per die: what a camera or a sensor must
      read (a roll may use fewer of them, e.g. Chinagold's tiles; never other faces).
    - `layouts`: the kinds of board and card files the game reads (`Layout`).
    - `sand_timer`: turns are timed by the game's own sand timer (the Table screen offers the Timer
      screen), not by the app's chess clock.
    - `controller`: the app's `TableController` subclass for the game's own flow (None: the base one).
    - `table`: the app's table module, with `build_panel` and optionally `setup_steps`, `action_label`,
      `options_panel`, `FACE_COLOURS`, `face_letter`; a .kv file of the same stem beside it is loaded
      first (None: `companion.app.tables.generic`).  See companion/app/tables/README.md.
    - `autoplay`: `choose(game, state, rng) -> ActionModel`, a plausible move in any position, so random
      playouts reach the game's end and get past choices `legal_actions` cannot list (None: random listed
      actions and virtual rolls serve).
    - `commands`: a module whose `register(subparsers)` adds the game's own `goldtable` sub-commands.
    - `catalogs`: the package whose folder holds the game's gettext catalogs,
      `<lang>/LC_MESSAGES/<game id>.mo` (the game's messages are in a domain named after its id).
    """

    rules: str
    putback: str
    dice: tuple[tuple[str, ...], ...]
    layouts: tuple[Layout, ...] = ()
    sand_timer: bool = False
    controller: str | None = None
    table: str | None = None
    autoplay: str | None = None
    commands: str | None = None
    catalogs: str = "companion.locale"


class GameUnavailable(KeyError):
    """A game that is not installed, or whose plugin is broken or declared twice.  A KeyError, as an
    unknown id has always been, so whoever copes with one copes with the other; `args[0]` says which."""

    def __str__(self) -> str:
        return str(self.args[0])


#: The games whose rules are loaded, by id (a test may put a game of its own here).
_GAMES: dict[str, AnyGame] = {}
#: The declarations read so far, by game id.
_PLUGINS: dict[str, GamePlugin] = {}
#: Why a game id is left out (a broken plugin, an id declared twice), by game id.
_PROBLEMS: dict[str, str] = {}
#: Held while a game is loaded: the app's start-up thread and its UI thread may ask for one at once, and
#: each game is loaded once (one rules object per game).
_LOADING = threading.RLock()


@cache
def _entry_points() -> dict[str, EntryPoint]:
    """Every installed game's entry point by id (read once: listing them reads every installed package's
    metadata).  An id two packages declare is left out, since either could be the one a record means."""
    from importlib.metadata import entry_points

    found: dict[str, list[EntryPoint]] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(point.name, []).append(point)
    for game_id, points in found.items():
        if len(points) > 1:
            where = "; ".join(f"{_package(point)}: {point.value}" for point in points)
            _PROBLEMS[game_id] = (f"game {game_id!r} is declared by more than one package ({where}): "
                                  "uninstall all but one")
    return {game_id: points[0] for game_id, points in found.items() if len(points) == 1}


def _package(point: EntryPoint) -> str:
    """The installed package that publishes an entry point, as pip names it."""
    dist = getattr(point, "dist", None)
    return f"{dist.name} {dist.version}" if dist is not None else "an unnamed package"


def declared() -> list[str]:
    """The id of every game installed, whether or not it loads (sorted)."""
    return sorted({*_entry_points(), *_PROBLEMS})


def _once(found: dict[str, T], game_id: str, load: Callable[[str], T]) -> T:
    """`found[game_id]`, loaded the first time it is asked for (under `_LOADING`, so once)."""
    if game_id not in found:
        with _LOADING:
            if game_id not in found:  # (or another thread loaded it meanwhile)
                found[game_id] = load(game_id)
    return found[game_id]


def plugin_for(game_id: str) -> GamePlugin:
    """A game's declaration (imports the module that declares it, none of the game's code).  An unknown
    or broken game raises GameUnavailable naming the games there are, or what went wrong."""
    return _once(_PLUGINS, game_id, _read_plugin)


def _read_plugin(game_id: str) -> GamePlugin:
    points = _entry_points()
    if game_id in _PROBLEMS:
        raise GameUnavailable(_PROBLEMS[game_id])
    if game_id not in points:
        known = ", ".join(sorted(set(points) | set(_GAMES))) or "none: is Goldtable installed (pip install -e .)?"
        raise GameUnavailable(f"unknown game {game_id!r} (known: {known})")
    point = points[game_id]
    try:
        plugin = point.load()
    except Exception as error:  # noqa: BLE001 — any failure of a plugin's import leaves the other games working
        raise _broken(game_id, f"{point.value} cannot be imported ({type(error).__name__}: {error})") from None
    if not isinstance(plugin, GamePlugin):
        raise _broken(game_id, f"{point.value} is a {type(plugin).__name__}, not a GamePlugin")
    return plugin


def _broken(game_id: str, why: str) -> GameUnavailable:
    """Remember why a game cannot be played, and the error that says so."""
    _PROBLEMS[game_id] = f"game {game_id!r} cannot be loaded: {why}"
    _PLUGINS.pop(game_id, None)
    return GameUnavailable(_PROBLEMS[game_id])


def load_part(game_id: str, reference: str) -> Any:
    """One part a game declares ("module:attribute", the attribute may be dotted; a module alone without
    one), imported now.  A part that cannot be imported raises GameUnavailable naming the game and the part."""
    module_name, _, attribute = reference.partition(":")
    try:
        found: Any = importlib.import_module(module_name)
        for name in attribute.split(".") if attribute else ():
            found = getattr(found, name)
    except Exception as error:  # noqa: BLE001 — a broken part names its game instead of crashing the caller
        raise GameUnavailable(f"game {game_id!r}: {reference} cannot be imported "
                              f"({type(error).__name__}: {error})") from None
    return found


def autoplay_for(game_id: str) -> Autoplay | None:
    """The game's own plausible player (`GamePlugin.autoplay`), imported now; None when it declares none."""
    reference = plugin_for(game_id).autoplay
    return None if reference is None else load_part(game_id, reference)


def get_game(game_id: str) -> AnyGame:
    """The rules of a game (loaded on first use, that game's alone); GameUnavailable (a KeyError) for a
    game that is not installed or cannot be loaded, naming the games there are or what went wrong."""
    return _once(_GAMES, game_id, _load_rules)


def _load_rules(game_id: str) -> AnyGame:
    from companion.engine.core import Game

    reference = plugin_for(game_id).rules
    try:
        rules = load_part(game_id, reference)
    except GameUnavailable as error:
        raise _broken(game_id, str(error).removeprefix(f"game {game_id!r}: ")) from None
    if not (isinstance(rules, type) and issubclass(rules, Game)):
        raise _broken(game_id, f"its rules {reference} are not a Game class")
    if rules.id != game_id:
        raise _broken(game_id, f"its rules {reference} are the game {rules.id!r}")
    return rules()


def _load_all() -> None:
    """Load every installed game's rules; a broken one is remembered in `problems()` and left out."""
    for game_id in _entry_points():
        if game_id not in _PROBLEMS:
            with contextlib.suppress(GameUnavailable):  # remembered in _PROBLEMS
                get_game(game_id)


def all_games() -> dict[str, AnyGame]:
    """Every game that can be played, by id (broken plugins are left out: see `problems`)."""
    _load_all()
    return dict(_GAMES)


def problems() -> list[str]:
    """One line per installed game that cannot be played, and why (after trying to load them all)."""
    _load_all()
    return [_PROBLEMS[game_id] for game_id in sorted(_PROBLEMS)]


def catalog_package(game_id: str) -> str | None:
    """The package holding a game's gettext catalogs, None for a domain that is no installed game."""
    try:
        return plugin_for(game_id).catalogs
    except GameUnavailable:
        return None
