"""Chinagold's table for undo: a marker on every site, face down (hidden) or gold side up, and the gold
each player has taken.  Sites are told by row from the top and place from the left, which a player
can count on the board."""

from __future__ import annotations

from collections import Counter

from companion.engine.core import N_, Value
from companion.engine.putback import Change, Instruction, Phrase, PutBack, Table
from companion.games.chinagold.rules import GOLD, HIDDEN, ROLE_NAMES, TAKEN, ChinagoldState
from companion.games.chinagold.words import site_words


def _listing(phrases: list[Phrase]) -> Phrase:
    return Phrase(message="; ".join(f"{{p{i}}}" for i in range(len(phrases))),
                  params={f"p{i}": phrase for i, phrase in enumerate(phrases)})


class ChinagoldPutBack(PutBack):
    def table(self, state: Value) -> Table:
        assert isinstance(state, ChinagoldState)
        table: Table = Counter()
        for site, letter in enumerate(state.sites):
            if letter in (HIDDEN, GOLD):
                table[("hidden" if letter == HIDDEN else "gold", f"site:{site}")] += 1
            else:
                table[("gold", f"pile:{TAKEN.index(letter)}")] += 1
        return table

    def turns_into(self, piece: str, wanted: str) -> bool:
        return piece != wanted

    def area(self, place: str) -> str:
        return place.partition(":")[0] if place.startswith("site:") else place

    def say(self, changes: list[Change], now: Value, wanted: Value) -> Instruction:
        assert isinstance(now, ChinagoldState) and isinstance(wanted, ChinagoldState)
        first = changes[0]
        places = tuple(c.target[5:] if c.target.startswith("site:") else c.source[5:] for c in changes)
        sites = _listing([site_words(int(site), wanted) for site in places])
        if first.source.startswith("pile:"):
            seat = int(first.source[5:])
            message = (N_("Take a gold marker from the {role} player's gold and lay it face down on {sites}.")
                       if len(changes) == 1 else
                       N_("Take {count} gold markers from the {role} player's gold and lay them face down on: "
                          "{sites}."))
            return Instruction(message=message, places=places,
                               params={"role": Phrase(message=ROLE_NAMES[seat]), "count": len(changes), "sites": sites})
        if first.becomes == "hidden":
            message = (N_("Turn the marker on {sites} face down again.") if len(changes) == 1 else
                       N_("Turn these markers face down again: {sites}."))
        elif first.becomes == "gold":
            message = N_("Turn the marker on {sites} gold side up again.") if len(changes) == 1 else \
                N_("Turn these markers gold side up again: {sites}.")
        else:  # gold left on the board that the rules give to a player
            seat = int(first.target[5:])
            return Instruction(message=N_("Take the gold from {sites} to the {role} player's gold."),
                               params={"sites": _listing([site_words(int(c.source[5:]), now) for c in changes]),
                                       "role": Phrase(message=ROLE_NAMES[seat])}, places=places)
        return Instruction(message=message, params={"sites": sites}, places=places)
