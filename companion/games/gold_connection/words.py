"""Gold Connection's places and pieces in table words (for undo's put-back, the log, prompts and
refusals): safes by their printed number, the two unnumbered safes by their side, bars by colour and
number."""

from __future__ import annotations

from collections.abc import Sequence

from companion.engine.core import N_
from companion.engine.putback import Phrase
from companion.games.gold_connection.board import load_vault

COLOUR_WORDS = {"B": N_("blue"), "G": N_("green"), "R": N_("red"), "Y": N_("yellow")}


def safe_words(safe: str) -> Phrase:
    """`safe 7`, or the choice point on the left/right (the two unnumbered safes)."""
    vault = load_vault()
    number = vault.numbers.get(safe)
    if number is not None:
        return Phrase(message=N_("safe {number}"), params={"number": number})
    spot = next(spot for spot in vault.layout.safes if spot.id == safe)
    if spot.x < vault.layout.width / 2:
        return Phrase(message=N_("the choice point on the left"))
    return Phrase(message=N_("the choice point on the right"))


def bar_words(bar: str) -> Phrase:
    return Phrase(message=N_("{colour} {number}"), params={"colour": Phrase(message=COLOUR_WORDS[bar[0]]),
                                                         "number": int(bar[1:])})


def listing(phrases: Sequence[object]) -> Phrase:
    """Several phrases (or numbers) as one comma-separated list."""
    return Phrase(message=", ".join(f"{{p{i}}}" for i in range(len(phrases))),
                  params={f"p{i}": phrase for i, phrase in enumerate(phrases)})


def bars_words(bars: tuple[str, ...] | list[str]) -> Phrase:
    """Bars as `blue 3, red 4`."""
    return listing([bar_words(bar) for bar in bars])


def alternatives(items: Sequence[object]) -> Phrase:
    """Choices to pick one of: `3`, `3 or 4`, `3, 4 or 7` (more than three: a plain list)."""
    names = ("first", "second", "third")
    template = {2: N_("{first} or {second}"), 3: N_("{first}, {second} or {third}")}.get(len(items))
    if template is None:
        return listing(items)
    return Phrase(message=template, params=dict(zip(names, items, strict=False)))


def safes_words(safes: tuple[str, ...] | list[str]) -> Phrase:
    """The safes a player may choose between, as alternatives (`safe 3 or safe 4`)."""
    return alternatives([safe_words(safe) for safe in safes])


def row_words(row: str) -> Phrase:
    """A row of a box as `blue row of 5` (row ids are the colour letter and the row's length)."""
    return Phrase(message=N_("{colour} row of {length}"), params={"colour": Phrase(message=COLOUR_WORDS[row[0]]),
                                                               "length": int(row[1:])})
