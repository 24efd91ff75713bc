"""Chinagold's sites in table words (for undo's put-back, the log, prompts and refusals): by row from
the top and place from the left, which a player can count on the board."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.engine.core import N_
from companion.engine.putback import Phrase
from companion.games.chinagold.board import get_board

if TYPE_CHECKING:
    from companion.games.chinagold.rules import ChinagoldState


def site_words(site: int, state: ChinagoldState) -> Phrase:
    """`row 3, marker 5 from the left` (rows counted from the top edge of the hexagon)."""
    coords = get_board(state.board, state.overlay).grid.coords
    q, r = coords[site]
    rows = sorted({row for _, row in coords})
    in_row = sorted(col for col, row in coords if row == r)
    return Phrase(message=N_("row {row}, marker {place} from the left"),
                  params={"row": rows.index(r) + 1, "place": in_row.index(q) + 1})


def player_words(seat: int) -> Phrase:
    """A player by side (`the mountains player`); the app puts the player's name in its place (`seat`)."""
    return Phrase(message=N_("the mountains player") if seat == 0 else N_("the rivers player"))
