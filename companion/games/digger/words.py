"""Digger's stones and dice faces in table words (for undo's put-back and the log)."""

from __future__ import annotations

from collections.abc import Sequence

from companion.engine.core import N_
from companion.engine.putback import Phrase

COLOUR_WORDS = {"B": N_("blue"), "Y": N_("yellow"), "R": N_("red"), "G": N_("green"), "W": N_("white"),
                "K": N_("black")}


def faces_words(faces: Sequence[str]) -> Phrase:
    """A roll as `green, blue, black` (the dice's colours, not their letters)."""
    return Phrase(message=", ".join(f"{{p{i}}}" for i in range(len(faces))),
                  params={f"p{i}": Phrase(message=COLOUR_WORDS[face]) for i, face in enumerate(faces)})
