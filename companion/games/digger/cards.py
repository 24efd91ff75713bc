"""Digger's scoring cards ("boxes"): the values per colour, read from `layouts/digger_cards.json`.

The rulebook does not print the card values, so the shipped file holds our defaults and says so in its
`note`; owners correct it (or point the `cards_file` option at their own copy).  Values are data, never
code, so a wrong value is fixed by editing JSON.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from companion.engine.core import Value
from companion.layout import LAYOUTS_DIR, LayoutKind, load_layout

DEFAULT_CARDS_FILE = LAYOUTS_DIR / "digger_cards.json"

# Colour tokens of the stones that score (blue never scores) and their names in the card file.
SCORING_COLOURS: dict[str, str] = {"Y": "yellow", "R": "red", "G": "green", "W": "white"}
MAX_PLAYERS = 5


class CardValues(BaseModel):
    """Points per stone of each scoring colour, as printed on one side of a card."""

    model_config = ConfigDict(extra="forbid")

    yellow: int = Field(ge=0, le=99)
    red: int = Field(ge=0, le=99)
    green: int = Field(ge=0, le=99)
    white: int = Field(ge=0, le=99)

    def total(self) -> int:
        return self.yellow + self.red + self.green + self.white


class BlackCard(CardValues):
    """The black side of one card; `id` is what the Options screen shows so each seat can pick its card."""

    id: str = Field(min_length=1, max_length=12)


class DiggerCardsLayout(BaseModel):
    """The whole card file: one white side (all cards alike) and one black side per physical card."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["digger_cards"]
    note: str = Field(min_length=1)
    black_total: int = Field(default=15, ge=1, le=4 * 99)  # four colours of at most 99 points
    white: CardValues
    black: tuple[BlackCard, ...] = Field(min_length=1)


def card_problems(layout: DiggerCardsLayout) -> list[str]:
    """Checks beyond the schema: enough distinct black cards, each adding up to `black_total`."""
    problems: list[str] = []
    ids = [card.id for card in layout.black]
    for index, card in enumerate(layout.black):
        if ids.index(card.id) != index:
            problems.append(f"black.{index}.id: {card.id!r} is used by more than one card")
        if card.total() != layout.black_total:
            problems.append(f"black.{index}: values add up to {card.total()}, "
                            f"every black side totals {layout.black_total}")
    if len(layout.black) < MAX_PLAYERS:
        problems.append(f"black: {len(layout.black)} cards, but up to {MAX_PLAYERS} players need one each")
    return problems


DIGGER_CARDS = LayoutKind(kind="digger_cards", model=DiggerCardsLayout, problems=card_problems)


class Card(Value):
    """The card one seat scores with, copied into the game state so a game never depends on the file again."""

    id: str
    side: str
    Y: int
    R: int
    G: int
    W: int

    def value(self, colour: str) -> int:
        """Points for one stone of `colour` (blue and unknown tokens score nothing)."""
        return int(getattr(self, colour)) if colour in SCORING_COLOURS else 0

    @classmethod
    def from_values(cls, card_id: str, side: str, values: CardValues) -> Card:
        return cls(id=card_id, side=side, Y=values.yellow, R=values.red, G=values.green, W=values.white)


def load_cards(path: str | Path | None = None) -> DiggerCardsLayout:
    """The card file (default: the shipped one); a bad file is a one-line UserError naming file and field."""
    target = Path(path) if path is not None else DEFAULT_CARDS_FILE
    try:
        stamp = os.stat(target).st_mtime_ns
    except OSError:
        stamp = -1  # the loader reports the unreadable file in its own words
    return _load_cached(str(target), stamp)


@lru_cache(maxsize=8)
def _load_cached(path: str, stamp: int) -> DiggerCardsLayout:
    """Parsing once per file version keeps thousands of test games from re-reading the same JSON.

    Reads with Digger's own layout kind, so starting a Digger game never imports every other game.
    """
    layout = load_layout(path, DIGGER_CARDS)
    assert isinstance(layout, DiggerCardsLayout)
    return layout
