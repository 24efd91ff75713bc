"""Board and card data in `layouts/`: one validated JSON file per board, checked and rendered by the CLI.

A game declares a `LayoutKind` for each kind of file it reads (`GamePlugin.layouts` in its package, with
the board widget that draws it).  Files name their kind in a top-level `"kind"` field, so
`goldtable layout check FILE` can find the right schema and checks for any file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field, ValidationError

from companion.data import data_dir
from companion.engine.errors import UserError, describe_validation_error, read_json_file, validation_problems

#: The shipped board and card files (package data; `layouts/` in the source tree).
LAYOUTS_DIR = data_dir("layouts")


@dataclass(frozen=True)
class LayoutKind:
    """How to read one kind of layout file.

    `problems` returns semantic problems (unknown references, unreachable fields, wrong counts), one
    string per problem, each starting with the element it concerns.  Which widget draws a file of the
    kind (if any) is the game's declaration's (`companion.engine.registry.Layout`).
    """

    kind: str
    model: type[BaseModel]
    problems: Callable[[Any], list[str]]


#: Board files place things in screen pixels; no table screen or printed picture is wider than this,
#: so a larger number is a typo (and would make `layout render` allocate absurd canvases).
MAX_PIXELS = 10_000
#: A position on a board canvas, in pixels from its left or top edge.
Coordinate = Annotated[float, Field(ge=0, le=MAX_PIXELS, allow_inf_nan=False)]
#: A width, height or size on a board canvas, in pixels.
Length = Annotated[float, Field(gt=0, le=MAX_PIXELS, allow_inf_nan=False)]


def layout_kinds() -> dict[str, LayoutKind]:
    """Every kind of file the installed games read, by its name (imports each game's layout modules, not
    its rules; a game that cannot be loaded is left out, as it is everywhere)."""
    return {name: kind for name, (kind, _game, _board) in _declared_kinds().items()}


def board_reference(kind: LayoutKind) -> tuple[str, str] | None:
    """(game id, "module:function") of the widget that draws files of this kind, None for data without
    a picture (e.g. scoring cards)."""
    _kind, game_id, board = _declared_kinds().get(kind.kind, (kind, "", None))
    return None if board is None else (game_id, board)


def _declared_kinds() -> dict[str, tuple[LayoutKind, str, str | None]]:
    """Each declared kind by name, with the game declaring it and its board widget."""
    from companion.engine.registry import GameUnavailable, declared, load_part, plugin_for

    kinds: dict[str, tuple[LayoutKind, str, str | None]] = {}
    for game_id in declared():
        try:
            for layout in plugin_for(game_id).layouts:
                kind = load_part(game_id, layout.kind)
                kinds[kind.kind] = (kind, game_id, layout.board)
        except GameUnavailable:
            continue
    return kinds


def read_layout(path: str | Path, kind: LayoutKind | None = None) -> tuple[LayoutKind, BaseModel]:
    """A layout file that passed the schema and the semantic checks, with its kind; a bad file is a
    one-line UserError naming the field (`goldtable layout check` lists every problem).

    Without `kind` the file's `"kind"` field picks the schema, which imports every game to know them
    all.  A game reading its own files passes its kind, so one game's broken module never stops another.
    """
    path = Path(path)
    raw = read_json_file(path)
    if kind is None:
        kind = _kind_named_in(path, raw)
    try:
        layout = kind.model.model_validate(raw)
    except ValidationError as error:
        raise UserError(describe_validation_error(path, error)) from None
    problems = kind.problems(layout)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise UserError(f"{path}: {problems[0]}{more}")
    return kind, layout


def _kind_named_in(path: Path, raw: Any) -> LayoutKind:
    """The registered kind a parsed file names in its `"kind"` field."""
    if not isinstance(raw, dict) or not isinstance(raw.get("kind"), str):
        raise UserError(f"{path}: kind: missing; a layout file starts with a \"kind\" field")
    kinds = layout_kinds()
    kind = kinds.get(raw["kind"])
    if kind is None:
        raise UserError(f"{path}: kind: unknown layout kind {raw['kind']!r} (known: {', '.join(sorted(kinds))})")
    return kind


def check_layout(path: str | Path, kind: LayoutKind | None = None) -> list[str]:
    """Every problem of a layout file as `FILE: element: problem` lines; empty when it is sound."""
    path = Path(path)
    raw = read_json_file(path)
    kind = kind or _kind_named_in(path, raw)
    try:
        layout = kind.model.model_validate(raw)
    except ValidationError as error:
        return [f"{path}: {problem}" for problem in validation_problems(error)]
    return [f"{path}: {problem}" for problem in kind.problems(layout)]


def load_layout(path: str | Path, kind: LayoutKind | None = None) -> BaseModel:
    """A layout that passed both the schema and the semantic checks (games call this with their kind)."""
    return read_layout(path, kind)[1]
