"""The Gold Connection vault as data: safes, corridors, walls, turn-counter track, screen coordinates.

The printed board's exact geometry is not in our rules text, so `layouts/gold_connection.json` is our
reconstruction; owners can correct it and `goldtable layout check` tells them whether it is still sound.
This module holds the schema, the semantic checks and the movement graph the engine walks on.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from companion.layout import LAYOUTS_DIR, Coordinate, LayoutKind, Length, load_layout

SAFE_COUNT = 14
NUMBERED_SAFES = 12
COUNTER_FIELDS = 36
LAYOUT_FILE = LAYOUTS_DIR / "gold_connection.json"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SafeSpot(_Strict):
    """One safe (a field of the vault).  `number` 1-12, or None for the two choice points."""

    id: str = Field(min_length=1, max_length=8, description="Stable id used in game records, e.g. S7 or W")
    number: int | None = Field(None, ge=1, le=12, description="Printed number (start placement), or null")
    x: Coordinate = Field(description="Centre, screen pixels from the left of the canvas")
    y: Coordinate = Field(description="Centre, screen pixels from the top of the canvas")


class CounterSpot(_Strict):
    """One field of the turn-counter track on the top of the vault wall."""

    index: int = Field(ge=1, le=COUNTER_FIELDS, description="1 for the first field ... 36 for the last")
    x: Coordinate
    y: Coordinate


class GoldConnectionLayout(_Strict):
    """`layouts/gold_connection.json`: the vault board (schema: docs/schemas/gold_connection.schema.json)."""

    kind: Literal["gold_connection"]
    note: str = Field(min_length=1, description="Where the geometry comes from; say so when reconstructed")
    width: Length = Field(description="Canvas width in screen pixels")
    height: Length = Field(description="Canvas height in screen pixels")
    safe_size: Length = Field(description="Side of a drawn safe in screen pixels")
    safes: tuple[SafeSpot, ...]
    connections: tuple[tuple[str, str], ...] = Field(description="Pairs of safes joined by a passage")
    walls: tuple[tuple[str, str], ...] = Field(description="Connections blocked by a wall (never crossed)")
    counter: tuple[CounterSpot, ...]


def layout_problems(layout: GoldConnectionLayout) -> list[str]:
    """Every semantic problem, one line each, naming the element and citing rule GC-1 (the vault)."""
    return [f"{problem} (GC-1)" for problem in _problems(layout)]


def _problems(layout: GoldConnectionLayout) -> list[str]:
    problems: list[str] = []
    ids = [safe.id for safe in layout.safes]
    known = set(ids)
    if len(layout.safes) != SAFE_COUNT:
        problems.append(f"safes: {len(layout.safes)} safes, the vault has {SAFE_COUNT}")
    problems.extend(f"safes: id {duplicate!r} used more than once"
                    for duplicate in sorted({i for i in ids if ids.count(i) > 1}))
    numbers = [safe.number for safe in layout.safes if safe.number is not None]
    if sorted(numbers) != list(range(1, NUMBERED_SAFES + 1)):
        missing = sorted(set(range(1, NUMBERED_SAFES + 1)) - set(numbers))
        doubled = sorted({n for n in numbers if numbers.count(n) > 1})
        problems.append(f"safes: numbers must be 1-{NUMBERED_SAFES} once each (missing {missing}, doubled {doubled})")
    unnumbered = [safe.id for safe in layout.safes if safe.number is None]
    if len(unnumbered) != SAFE_COUNT - NUMBERED_SAFES:
        problems.append(f"safes: {len(unnumbered)} unnumbered safes, the vault has {SAFE_COUNT - NUMBERED_SAFES}")
    problems.extend(f"safes.{safe.id}: position ({safe.x}, {safe.y}) is outside the canvas"
                    for safe in layout.safes if not (0 <= safe.x <= layout.width and 0 <= safe.y <= layout.height))
    dangling = len(known) != len(ids)
    seen: set[frozenset[str]] = set()
    for index, (a, b) in enumerate(layout.connections):
        for end in (a, b):
            if end not in known:
                dangling = True
                problems.append(f"connections[{index}]: unknown safe {end!r}")
        if a == b:
            problems.append(f"connections[{index}]: joins {a!r} to itself")
        if frozenset((a, b)) in seen:
            problems.append(f"connections[{index}]: {a}-{b} listed twice")
        seen.add(frozenset((a, b)))
    for index, (a, b) in enumerate(layout.walls):
        for end in (a, b):
            if end not in known:
                dangling = True
                problems.append(f"walls[{index}]: unknown safe {end!r}")
        if frozenset((a, b)) not in seen and a in known and b in known:
            problems.append(f"walls[{index}]: {a}-{b} is not a listed connection, so there is nothing to block")
    if len(layout.walls) != 2:
        problems.append(f"walls: {len(layout.walls)} walls, the vault has 2")
    if dangling or not ids:
        return problems + _counter_problems(layout)
    graph = _movement_graph(layout)
    for safe in layout.safes:
        degree = len(graph[safe.id])
        if safe.number is None and degree != 3:
            problems.append(f"safes.{safe.id}: an unnumbered safe is a choice point and needs 3 open passages, "
                            f"not {degree}")
        if safe.number is not None and degree != 2:
            problems.append(f"safes.{safe.id}: a numbered safe needs exactly 2 open passages (no choice of "
                            f"direction there), not {degree}")
    reachable = _reachable(graph, ids[0])
    problems.extend(f"safes.{safe_id}: unreachable from {ids[0]} without crossing a wall"
                    for safe_id in ids if safe_id not in reachable)
    return problems + _counter_problems(layout)


def _counter_problems(layout: GoldConnectionLayout) -> list[str]:
    problems: list[str] = []
    indexes = [spot.index for spot in layout.counter]
    if sorted(indexes) != list(range(1, COUNTER_FIELDS + 1)):
        problems.append(f"counter: {len(indexes)} fields; the track needs fields 1-{COUNTER_FIELDS}, each once")
    problems.extend(f"counter.{spot.index}: position ({spot.x}, {spot.y}) is outside the canvas"
                    for spot in layout.counter if not (0 <= spot.x <= layout.width and 0 <= spot.y <= layout.height))
    return problems


def _movement_graph(layout: GoldConnectionLayout) -> dict[str, tuple[str, ...]]:
    blocked = {frozenset(wall) for wall in layout.walls}
    graph: dict[str, list[str]] = {safe.id: [] for safe in layout.safes}
    for a, b in layout.connections:
        if frozenset((a, b)) in blocked:
            continue
        graph[a].append(b)
        graph[b].append(a)
    return {safe: tuple(sorted(neighbours)) for safe, neighbours in graph.items()}


def _reachable(graph: dict[str, tuple[str, ...]], start: str) -> set[str]:
    seen = {start}
    queue = deque([start])
    while queue:
        for neighbour in graph[queue.popleft()]:
            if neighbour not in seen:
                seen.add(neighbour)
                queue.append(neighbour)
    return seen


@dataclass(frozen=True)
class Vault:
    """The movement graph the engine walks on, built once from a checked layout."""

    layout: GoldConnectionLayout
    neighbours: dict[str, tuple[str, ...]]
    numbers: dict[str, int | None]
    by_number: dict[int, str]

    @property
    def safe_ids(self) -> tuple[str, ...]:
        return tuple(safe.id for safe in self.layout.safes)

    def is_choice_point(self, safe: str) -> bool:
        """True on the unnumbered safes, the only places where the direction may be chosen."""
        return self.numbers[safe] is None

    def exits(self, safe: str, came_from: str) -> tuple[str, ...]:
        """Where an arrow that entered `safe` from `came_from` may go next (never straight back)."""
        return tuple(n for n in self.neighbours[safe] if n != came_from)


def vault_from(layout: GoldConnectionLayout) -> Vault:
    """The movement graph of a layout (walls removed)."""
    return Vault(layout=layout, neighbours=_movement_graph(layout),
                 numbers={safe.id: safe.number for safe in layout.safes},
                 by_number={safe.number: safe.id for safe in layout.safes if safe.number is not None})


@lru_cache(maxsize=8)
def load_vault(path: str | Path = LAYOUT_FILE) -> Vault:
    """The vault of a layout file that passed every check (UserError naming the problem otherwise)."""
    layout = load_layout(path, LAYOUT_KIND)
    assert isinstance(layout, GoldConnectionLayout)
    return vault_from(layout)


LAYOUT_KIND = LayoutKind(kind="gold_connection", model=GoldConnectionLayout, problems=layout_problems)
