"""Gold Connection's table for undo: bars in safes, the tray, box rows and (while the table deals) the pile
not yet dealt; chips; robber stones; arrows;
the turn counter.  Safes are named by their printed number, the two choice points by their side."""

from __future__ import annotations

from collections import Counter

from companion.engine.core import N_, Value
from companion.engine.putback import Change, Instruction, Phrase, PutBack, Table
from companion.games.gold_connection.rules import ALL_BARS, GoldConnectionState
from companion.games.gold_connection.words import COLOUR_WORDS, bar_words, listing, safe_words

OFF = "off"


class GoldConnectionPutBack(PutBack):
    def table(self, state: Value) -> Table:
        assert isinstance(state, GoldConnectionState)
        table: Table = Counter()
        for safe, bars in state.safes.items():
            table.update((f"bar:{bar}", f"safe:{safe}") for bar in bars)
        table.update((f"bar:{bar}", "tray") for bar in state.tray)
        for seat, robber in enumerate(state.robbers):
            for row, numbers in robber.rows.items():
                table.update((f"bar:{row[0]}{number}", f"row:{seat}:{row}") for number in numbers)
            table[("chip", f"chips:{seat}")] += robber.chips
            table[(f"stone:{seat}", f"safe:{robber.stone}" if robber.stone else OFF)] += 1
            placed = robber.arrow is not None and robber.heading is not None
            table[(f"arrow:{seat}", f"arrow:{robber.arrow}>{robber.heading}" if placed else OFF)] += 1
        laid = Counter(bar for (piece, _), count in table.items() if piece.startswith("bar:")
                       for bar in [piece[4:]] * count)
        table.update((f"bar:{bar}", "undealt") for bar in (Counter(ALL_BARS) - laid).elements())
        table[("chip", "bank")] += state.chip_supply
        table[("counter", f"counter:{state.counter}")] += 1
        return +table

    def family(self, piece: str) -> str:
        return "bar" if piece.startswith("bar:") else piece

    @staticmethod
    def _place(place: str, state: GoldConnectionState) -> Phrase:
        kind, _, rest = place.partition(":")
        if kind == "safe":
            return safe_words(rest)
        if kind == "tray":
            return Phrase(message=N_("the tray"))
        if kind == "undealt":
            return Phrase(message=N_("the bars not yet dealt"))
        if kind == "bank":
            return Phrase(message=N_("the bank"))
        if kind == "chips":
            return Phrase(message=N_("{name}'s chips"), params={"name": state.names[int(rest)]})
        seat, _, row = rest.partition(":")
        return Phrase(message=N_("{name}'s {colour} row of {length}"),
                      params={"name": state.names[int(seat)], "colour": Phrase(message=COLOUR_WORDS[row[0]]),
                              "length": int(row[1:])})

    def say(self, changes: list[Change], now: Value, wanted: Value) -> Instruction:
        assert isinstance(now, GoldConnectionState) and isinstance(wanted, GoldConnectionState)
        first = changes[0]
        if first.piece.startswith("bar:"):
            bars = [bar_words(change.piece[4:]) for change in changes for _ in range(change.count)]
            params: dict[str, object] = {"bars": listing(bars), "source": self._place(first.source, now),
                      "target": self._place(first.target, wanted)}
            if first.target == "undealt":
                message = N_("Take bar {bars} out of {source} again: it is not dealt yet.") if len(bars) == 1 \
                    else N_("Take bars {bars} out of {source} again: they are not dealt yet.")
            else:
                message = (N_("Lay bar {bars} from {source} back into {target}.") if len(bars) == 1 else
                           N_("Lay bars {bars} from {source} back into {target}."))
            return Instruction(message=message, params=params, places=_safes(first.source, first.target))
        if first.piece == "chip":
            params = {"count": first.count, "source": self._place(first.source, now),
                      "target": self._place(first.target, wanted)}
            message = (N_("Move one chip from {source} back to {target}.") if first.count == 1 else
                       N_("Move {count} chips from {source} back to {target}."))
            return Instruction(message=message, params=params)
        if first.piece == "counter":
            return Instruction(message=N_("Move the turn counter back from field {source} to field {target}."),
                               params={"source": int(first.source[8:]), "target": int(first.target[8:])})
        kind, _, seat = first.piece.partition(":")
        name = now.names[int(seat)]
        if kind == "stone":
            return self._say_stone(name, first)
        return self._say_arrow(name, first)

    @staticmethod
    def _say_stone(name: str, change: Change) -> Instruction:
        params: dict[str, object] = {"name": name}
        if change.target == OFF:
            params["source"] = safe_words(change.source[5:])
            return Instruction(message=N_("Take {name}'s robber stone off {source}."), params=params,
                               places=_safes(change.source))
        params["target"] = safe_words(change.target[5:])
        if change.source == OFF:
            return Instruction(message=N_("Put {name}'s robber stone back on {target}."), params=params,
                               places=_safes(change.target))
        params["source"] = safe_words(change.source[5:])
        return Instruction(message=N_("Move {name}'s robber stone back from {source} to {target}."), params=params,
                           places=_safes(change.source, change.target))

    @staticmethod
    def _say_arrow(name: str, change: Change) -> Instruction:
        params: dict[str, object] = {"name": name}
        if change.target == OFF:
            params["source"] = safe_words(change.source[6:].partition(">")[0])
            return Instruction(message=N_("Take {name}'s arrow off {source}."), params=params,
                               places=_safes(change.source))
        safe, _, heading = change.target[6:].partition(">")
        params |= {"target": safe_words(safe), "heading": safe_words(heading)}
        if change.source == OFF:
            return Instruction(message=N_("Lay {name}'s arrow back on {target}, pointing to {heading}."),
                               params=params, places=_safes(change.target))
        here = change.source[6:].partition(">")[0]
        if here == safe:
            return Instruction(message=N_("Turn {name}'s arrow on {target} back to point to {heading}."),
                               params=params, places=_safes(change.target))
        params["source"] = safe_words(here)
        return Instruction(message=N_("Move {name}'s arrow back from {source} to {target}, pointing to {heading}."),
                           params=params, places=_safes(change.source, change.target))


def _safes(*places: str) -> tuple[str, ...]:
    """The board ids of the safes among places (`safe:S7`, `arrow:S7>S8`), for highlighting."""
    found = []
    for place in places:
        kind, _, rest = place.partition(":")
        if kind in ("safe", "arrow"):
            found.append(rest.partition(">")[0])
    return tuple(found)
