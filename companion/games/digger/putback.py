"""Digger's table for undo: stones by colour in the middle, in the digger's hand (taken this turn, not yet
stowed), in each box and in the tin."""

from __future__ import annotations

from collections import Counter

from companion.engine.core import N_, Value
from companion.engine.putback import Change, Instruction, Phrase, PutBack, Table
from companion.games.digger.rules import COLOURS, DiggerState
from companion.games.digger.words import COLOUR_WORDS


class DiggerPutBack(PutBack):
    def table(self, state: Value) -> Table:
        assert isinstance(state, DiggerState)
        table: Table = Counter()
        for colour in COLOURS:
            table[(colour, "middle")] += state.middle.count(colour)
            table[(colour, "taken")] += state.waiting.count(colour)
            for seat, box in enumerate(state.boxes):
                table[(colour, f"box:{seat}")] += box.count(colour)
        table[("B", "tin")] += state.tin
        return +table

    @staticmethod
    def _place(place: str, state: DiggerState) -> Phrase:
        if place == "middle":
            return Phrase(message=N_("the middle"))
        if place == "tin":
            return Phrase(message=N_("the tin"))
        if place == "taken":
            return Phrase(message=N_("{name}'s hand"), params={"name": state.names[state.digger]})
        return Phrase(message=N_("{name}'s box"), params={"name": state.names[int(place.split(":")[1])]})

    def say(self, changes: list[Change], now: Value, wanted: Value) -> Instruction:
        assert isinstance(now, DiggerState) and isinstance(wanted, DiggerState)
        change = changes[0]  # one colour per family, so one change per group
        colour = Phrase(message=COLOUR_WORDS[change.piece])
        params = {"colour": colour, "count": change.count, "source": self._place(change.source, now),
                  "target": self._place(change.target, wanted)}
        message = (N_("Put the {colour} stone from {source} back into {target}.") if change.count == 1 else
                   N_("Put {count} {colour} stones from {source} back into {target}."))
        return Instruction(message=message, params=params)
