"""The Goldgräber board as data: the layout file's schema, its semantic checks, and a compiled graph.

The printed board is a hex map.  We keep it in `layouts/goldgraeber.json` with axial coordinates so
owners can correct it without touching code; the engine only ever sees the compiled `Board`, whose
neighbour lists already encode the special cases (lakes are not walkable, a house is joined to its door
only), so movement can be a plain graph search.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from companion.layout import LAYOUTS_DIR, LayoutKind, load_layout

FieldType = Literal["town", "house", "path", "dig", "shore", "rail", "lake"]

#: Axial neighbour offsets (q, r), in order around the hex.
HEX_DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

#: How the house colour words of the layout look, to match players' screen colours to houses.
HOUSE_COLOUR_HEX: dict[str, str] = {"red": "#d02626", "yellow": "#f2d926", "green": "#26a640", "blue": "#2659d9",
                                    "white": "#f7f7f7", "black": "#1f1f1f"}

DIG_FIELD_COUNT = 64
HOUSE_COUNT = 6
LAKE_COUNT = 3
RAFT_COUNT = 6


#: Axial coordinates stay within this many hexes of Golden City (the printed board is about 12 across).
MAX_AXIAL = 100


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class BoardField(_Strict):
    """One hex of the board."""

    id: str = Field(min_length=1, max_length=16)
    q: int = Field(ge=-MAX_AXIAL, le=MAX_AXIAL)
    r: int = Field(ge=-MAX_AXIAL, le=MAX_AXIAL)
    type: FieldType


class House(_Strict):
    """A player's house in Golden City: a field of type `house`, entered only from its `door` field."""

    colour: str = Field(min_length=1)
    field: str
    door: str


class Lake(_Strict):
    """A lake: its water hexes, the land fields on its shore, and the fields where its rafts start."""

    id: str = Field(min_length=1)
    water: tuple[str, ...] = Field(min_length=1)
    shore: tuple[str, ...] = Field(min_length=2)
    raft_posts: tuple[str, ...] = Field(min_length=1)


class GoldgraeberLayout(_Strict):
    """The whole board file (`"kind": "goldgraeber-board"`)."""

    kind: Literal["goldgraeber-board"]
    note: str
    fields: tuple[BoardField, ...]
    houses: tuple[House, ...]
    lakes: tuple[Lake, ...]
    rail: tuple[str, ...] = Field(min_length=2, description="rail fields from the tunnel to Golden City")


def problems(layout: GoldgraeberLayout) -> list[str]:
    """Semantic problems: unknown references, wrong types, wrong counts, broken rail, unreachable fields."""
    found: list[str] = []
    by_id: dict[str, BoardField] = {}
    by_pos: dict[tuple[int, int], str] = {}
    for board_field in layout.fields:
        if board_field.id in by_id:
            found.append(f"fields.{board_field.id}: id used twice")
        by_id[board_field.id] = board_field
        pos = (board_field.q, board_field.r)
        if pos in by_pos:
            found.append(f"fields.{board_field.id}: same hex ({pos[0]}, {pos[1]}) as {by_pos[pos]}")
        by_pos[pos] = board_field.id

    def ref(where: str, field_id: str, *types: str) -> bool:
        if field_id not in by_id:
            found.append(f"{where}: unknown field {field_id!r}")
            return False
        if types and by_id[field_id].type not in types:
            found.append(f"{where}: field {field_id} is {by_id[field_id].type}, expected {' or '.join(types)}")
            return False
        return True

    def adjacent(a: str, b: str) -> bool:
        fa, fb = by_id[a], by_id[b]
        return (fb.q - fa.q, fb.r - fa.r) in HEX_DIRECTIONS

    counts = Counter(board_field.type for board_field in layout.fields)
    if counts["dig"] != DIG_FIELD_COUNT:
        found.append(f"fields: {counts['dig']} dig fields, the game has {DIG_FIELD_COUNT} chips")
    if len(layout.houses) != HOUSE_COUNT:
        found.append(f"houses: {len(layout.houses)} houses, expected {HOUSE_COUNT}")
    if counts["house"] != len(layout.houses):
        found.append(f"fields: {counts['house']} house fields but {len(layout.houses)} houses listed")
    colours = [house.colour for house in layout.houses]
    if len(set(colours)) != len(colours):
        found.append("houses: two houses share a colour")
    for index, house in enumerate(layout.houses):
        where = f"houses[{index}] ({house.colour})"
        if ref(f"{where}.field", house.field, "house") and ref(f"{where}.door", house.door, "town") \
                and not adjacent(house.field, house.door):
            found.append(f"{where}.door: {house.door} is not next to {house.field}")
    if len(layout.lakes) != LAKE_COUNT:
        found.append(f"lakes: {len(layout.lakes)} lakes, expected {LAKE_COUNT}")
    posts = sum(len(lake.raft_posts) for lake in layout.lakes)
    if posts != RAFT_COUNT:
        found.append(f"lakes: {posts} raft posts, expected {RAFT_COUNT} (one per raft)")
    listed_water: set[str] = set()
    listed_shore: set[str] = set()
    for lake in layout.lakes:
        where = f"lakes.{lake.id}"
        water = [w for w in lake.water if ref(f"{where}.water", w, "lake")]
        listed_water.update(water)
        for shore in lake.shore:
            if ref(f"{where}.shore", shore, "shore"):
                listed_shore.add(shore)
                if not any(adjacent(shore, w) for w in water):
                    found.append(f"{where}.shore: {shore} does not touch the lake's water")
        found.extend(f"{where}.raft_posts: {post} is not one of the lake's shore fields"
                     for post in lake.raft_posts if post not in lake.shore)
        if len(set(lake.raft_posts)) != len(lake.raft_posts):
            found.append(f"{where}.raft_posts: a post is listed twice")
    for board_field in layout.fields:
        if board_field.type == "lake" and board_field.id not in listed_water:
            found.append(f"fields.{board_field.id}: lake field that belongs to no lake")
        if board_field.type == "shore" and board_field.id not in listed_shore:
            found.append(f"fields.{board_field.id}: shore field that belongs to no lake")
    rail_ok = all(ref("rail", rail, "rail") for rail in layout.rail)
    if rail_ok:
        for before, after in zip(layout.rail, layout.rail[1:]):
            if not adjacent(before, after):
                found.append(f"rail: {before} and {after} are not neighbours")
        if counts["rail"] != len(layout.rail):
            found.append(f"fields: {counts['rail']} rail fields but the rail lists {len(layout.rail)}")
        first = by_id[layout.rail[0]]
        if all((first.q + dq, first.r + dr) in by_pos for dq, dr in HEX_DIRECTIONS):
            found.append(f"rail: the first rail field {first.id} (where the locomotive starts) is not at the "
                         f"board edge")
        last = by_id[layout.rail[-1]]
        near_last = (by_pos.get((last.q + dq, last.r + dr)) for dq, dr in HEX_DIRECTIONS)
        if not any(n is not None and by_id[n].type == "town" for n in near_last):
            found.append(f"rail: the last rail field {layout.rail[-1]} does not reach Golden City")
    if found:
        return found
    board = compile_board(layout)
    start = board.index[layout.houses[0].field]
    seen = {start}
    queue = deque([start])
    while queue:
        for nxt in board.neighbours[queue.popleft()]:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    found.extend(f"fields.{board_field.id}: cannot be reached on foot from Golden City"
                 for board_field in layout.fields
                 if board_field.type != "lake" and board.index[board_field.id] not in seen)
    return found


@dataclass(frozen=True)
class Board:
    """The compiled board: fields by index, walkable neighbour lists, and the special places."""

    ids: tuple[str, ...]
    index: dict[str, int]
    types: tuple[str, ...]
    coords: tuple[tuple[int, int], ...]
    neighbours: tuple[tuple[int, ...], ...]
    houses: tuple[int, ...]
    house_colours: tuple[str, ...]
    doors: tuple[int, ...]
    rail: tuple[int, ...]
    dig_fields: tuple[int, ...]
    lake_of_shore: dict[int, int]
    lake_shores: tuple[tuple[int, ...], ...]
    raft_posts: tuple[int, ...]
    town: frozenset[int]
    layout: GoldgraeberLayout


def compile_board(layout: GoldgraeberLayout) -> Board:
    """Turn a checked layout into the graph the engine walks on."""
    ids = tuple(f.id for f in layout.fields)
    index = {field_id: i for i, field_id in enumerate(ids)}
    pos_index = {(f.q, f.r): i for i, f in enumerate(layout.fields)}
    types = tuple(f.type for f in layout.fields)
    door_of = {index[h.field]: index[h.door] for h in layout.houses}
    neighbours: list[tuple[int, ...]] = []
    for i, f in enumerate(layout.fields):
        if f.type == "lake":
            neighbours.append(())
            continue
        if i in door_of:
            neighbours.append((door_of[i],))
            continue
        near: list[int] = []
        for dq, dr in HEX_DIRECTIONS:
            j = pos_index.get((f.q + dq, f.r + dr))
            if j is None or types[j] == "lake":
                continue
            if types[j] == "house" and door_of[j] != i:
                continue
            near.append(j)
        neighbours.append(tuple(near))
    lake_of_shore: dict[int, int] = {}
    for lake_no, lake in enumerate(layout.lakes):
        for shore in lake.shore:
            lake_of_shore[index[shore]] = lake_no
    return Board(
        ids=ids, index=index, types=types, coords=tuple((f.q, f.r) for f in layout.fields),
        neighbours=tuple(neighbours),
        houses=tuple(index[h.field] for h in layout.houses),
        house_colours=tuple(h.colour for h in layout.houses),
        doors=tuple(index[h.door] for h in layout.houses),
        rail=tuple(index[r] for r in layout.rail),
        dig_fields=tuple(i for i, t in enumerate(types) if t == "dig"),
        lake_of_shore=lake_of_shore,
        lake_shores=tuple(tuple(index[s] for s in lake.shore) for lake in layout.lakes),
        raft_posts=tuple(index[p] for lake in layout.lakes for p in lake.raft_posts),
        town=frozenset(i for i, t in enumerate(types) if t in ("town", "house")),
        layout=layout,
    )


DEFAULT_LAYOUT = LAYOUTS_DIR / "goldgraeber.json"


GOLDGRAEBER_BOARD = LayoutKind(kind="goldgraeber-board", model=GoldgraeberLayout, problems=problems)


@lru_cache(maxsize=4)
def load_board(path: Path = DEFAULT_LAYOUT) -> Board:
    """The compiled board of a checked layout file (cached: the engine asks for it on every action).

    Reads with our own layout kind, so the rules never depend on other games importing cleanly.
    """
    layout = load_layout(path, GOLDGRAEBER_BOARD)
    assert isinstance(layout, GoldgraeberLayout)
    return compile_board(layout)


def hex_rgb(text: str) -> tuple[int, int, int] | None:
    """`#rrggbb` (or a house colour word) as an RGB triple; None for anything else."""
    text = HOUSE_COLOUR_HEX.get(text.lower(), text)
    if len(text) != 7 or not text.startswith("#"):
        return None
    try:
        return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)
    except ValueError:
        return None
