"""Dice race's table for undo: one pawn per player, on its square of the track."""

from __future__ import annotations

from collections import Counter

from companion.engine.core import N_, Value
from companion.engine.putback import Change, Instruction, Phrase, PutBack, Table
from dice_race.rules import DiceRaceState


class DiceRacePutBack(PutBack):
    def table(self, state: Value) -> Table:
        assert isinstance(state, DiceRaceState)
        return Counter({(f"pawn:{seat}", f"square:{square}"): 1 for seat, square in enumerate(state.pawns)})

    def say(self, changes: list[Change], now: Value, wanted: Value) -> Instruction:
        assert isinstance(now, DiceRaceState)
        change = changes[0]  # one pawn per family, so one change per group
        pawn = Phrase(message=N_("{player}'s pawn"), params={"player": now.names[int(change.piece.split(":")[1])]})
        return Instruction(message=N_("Put {pawn} back from {source} to {target}."),
                           params={"pawn": pawn, "source": _square(change.source), "target": _square(change.target)})


def _square(place: str) -> Phrase:
    number = int(place.split(":")[1])
    return Phrase(message=N_("the start")) if number == 0 else Phrase(message=N_("square {number}"),
                                                                         params={"number": number})
