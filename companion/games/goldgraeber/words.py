"""Goldgräber's places and pieces in table words (for undo's put-back, the log, prompts and refusals):
the rail field's number, Golden City, a player's house, a lake's shore, or how far and in which
direction from Golden City a field lies."""

from __future__ import annotations

import math
from collections import deque
from functools import lru_cache
from typing import TYPE_CHECKING

from companion.engine.core import N_
from companion.engine.putback import Phrase
from companion.games.goldgraeber.board import Board, load_board

if TYPE_CHECKING:
    from companion.games.goldgraeber.rules import GoldgraeberState

DIRECTIONS = (N_("east"), N_("north-east"), N_("north"), N_("north-west"), N_("west"), N_("south-west"),
              N_("south"), N_("south-east"))


def _xy(board: Board, index: int) -> tuple[float, float]:
    """Axial hex coordinates as a point with y pointing up (north is the top of the board)."""
    q, r = board.coords[index]
    return math.sqrt(3) * (q + r / 2), -1.5 * r


def _direction(board: Board, index: int, centre: tuple[float, float]) -> str:
    x, y = _xy(board, index)
    angle = math.degrees(math.atan2(y - centre[1], x - centre[0])) % 360
    return DIRECTIONS[round(angle / 45) % 8]


@lru_cache(maxsize=1)
def _town_distances() -> tuple[tuple[int, ...], tuple[float, float]]:
    """Steps from Golden City to every field (walking the shipped board), and the middle of the town."""
    board = load_board()
    distance = [-1] * len(board.ids)
    queue = deque(sorted(board.town))
    for index in queue:
        distance[index] = 0
    while queue:
        here = queue.popleft()
        for there in board.neighbours[here]:
            if distance[there] < 0:
                distance[there] = distance[here] + 1
                queue.append(there)
    points = [_xy(board, index) for index in board.town]
    centre = (sum(x for x, _ in points) / len(points), sum(y for _, y in points) / len(points))
    return tuple(distance), centre


def field_words(field: str, state: GoldgraeberState) -> Phrase:
    """A field as players at the table would name it."""
    board = load_board()
    index = board.index[field]
    kind = board.types[index]
    if index in board.rail:
        return Phrase(message=N_("rail field {number}"), params={"number": board.rail.index(index) + 1})
    if kind == "house":
        house = board.houses.index(index)
        owner = next((name for seat, name in enumerate(state.names) if state.houses[seat] == house), None)
        if owner is not None:
            return Phrase(message=N_("{name}'s house"), params={"name": owner})
        return Phrase(message=N_("the {colour} house"), params={"colour": Phrase(message=board.house_colours[house])})
    if kind == "town":
        return Phrase(message=N_("Golden City"))
    distances, centre = _town_distances()
    direction = Phrase(message=_direction(board, index, centre))
    if kind == "shore":
        lake = board.lake_shores[board.lake_of_shore[index]]
        points = [_xy(board, i) for i in lake]
        middle = (sum(x for x, _ in points) / len(points), sum(y for _, y in points) / len(points))
        return Phrase(message=N_("the {side} shore of the lake {direction} of Golden City"),
                      params={"side": Phrase(message=_direction(board, index, middle)), "direction": direction})
    if distances[index] == 1:
        message = N_("the dig field just {direction} of Golden City") if kind == "dig" else \
            N_("the path field just {direction} of Golden City")
    else:
        message = N_("the dig field {steps} fields {direction} of Golden City") if kind == "dig" else \
            N_("the path field {steps} fields {direction} of Golden City")
    return Phrase(message=message, params={"steps": distances[index], "direction": direction})


def chip_words(chip: str) -> Phrase:
    if chip[0] == "G":
        return Phrase(message=N_("the gold chip ({value})"), params={"value": int(chip[1])})
    return Phrase(message=N_("the robber chip ({value})"), params={"value": int(chip[1])})


def fields_words(fields: tuple[str, ...] | list[str], state: GoldgraeberState) -> Phrase:
    """Several fields as one list."""
    return Phrase(message="; ".join(f"{{p{i}}}" for i in range(len(fields))),
                  params={f"p{i}": field_words(field, state) for i, field in enumerate(fields)})


def face_words(face: str) -> Phrase | str:
    """A face of the die: the number, or the locomotive (the L face)."""
    return Phrase(message=N_("the locomotive")) if face == "L" else face
