"""Helpers for the Chinagold tests: positions built site by site on the shipped default board."""

from __future__ import annotations

from companion.engine.core import Player, Setup
from companion.games.chinagold.board import Board, get_board
from companion.games.chinagold.rules import HIDDEN, Chinagold, ChinagoldState, site_mask, tiles_for

GAME = Chinagold()
BOARD: Board = get_board("default")


def new_setup(first: int = 0, **options: object) -> Setup:
    return Setup(game="chinagold", players=(Player(name="Berg"), Player(name="Fluss")), first_player=first,
                 options=dict(options))


def position(marks: dict[int, str] | None = None, *, fill: str = HIDDEN, to_move: int = 0,
             total: int | None = None, board: str = "default", opponent_clears_alone: bool = True) -> ChinagoldState:
    """A state with every site `fill` except `marks`; tiles follow the board; `total` set = tiles thrown."""
    size = get_board(board).size
    sites = [fill] * size
    for site, mark in (marks or {}).items():
        sites[site] = mark
    text = "".join(sites)
    tiles = tiles_for(get_board(board).grid, site_mask(text, HIDDEN))
    phase = "move" if (total is not None or not tiles) else "throw"
    return ChinagoldState(board=board, overlay=0, opponent_clears_alone=opponent_clears_alone, sites=text,
                          to_move=to_move, phase=phase, tiles=tiles, total=total if tiles else None)


def only_hidden(sites: list[int] | range, gold: tuple[int, ...] = ()) -> dict[int, str]:
    """Marks for a board where only `sites` are hidden (and `gold` shows gold); the rest is cleared."""
    marks = dict.fromkeys(sites, "h")
    marks.update(dict.fromkeys(gold, "g"))
    return marks


def sites_of_mountain(number: int) -> list[int]:
    return [site for site in range(BOARD.size) if BOARD.site_mountain[site] == number]


def sites_of_river(number: int) -> list[int]:
    return [site for site in range(BOARD.size) if BOARD.site_river[site] == number]
