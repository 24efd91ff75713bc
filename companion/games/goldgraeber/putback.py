"""Goldgräber's table for undo: figures, the locomotive, rafts, face-down chips, open chips in front of
each player, chips in the houses, and face-up robbers with their loot.  Fields are told by landmark:
the rail field's number, Golden City, a player's house, a lake's shore, or how far and in which
direction from Golden City a field lies."""

from __future__ import annotations

from collections import Counter

from companion.engine.core import N_, Value
from companion.engine.putback import Change, Instruction, Phrase, PutBack, Table
from companion.games.goldgraeber.board import load_board
from companion.games.goldgraeber.rules import GoldgraeberState
from companion.games.goldgraeber.words import chip_words, field_words

HIDDEN = "hidden"
class GoldgraeberPutBack(PutBack):
    def table(self, state: Value) -> Table:
        assert isinstance(state, GoldgraeberState)
        board = load_board()
        table: Table = Counter()
        for seat, field in enumerate(state.figures):
            table[(f"figure:{seat}", f"field:{field}")] += 1
            table.update((chip, f"open:{seat}") for chip in state.open_chips[seat])
            table.update((chip, f"home:{seat}") for chip in state.home_chips[seat])
        table[("locomotive", f"field:{board.ids[board.rail[state.locomotive]]}")] += 1
        table.update(("raft", f"field:{field}") for field in state.rafts)
        table.update((HIDDEN, f"field:{field}") for field in state.face_down)
        for stack in state.stacks:
            table[(stack.robber, f"field:{stack.field}")] += 1
            table.update((chip, f"loot:{stack.field}") for chip in stack.loot)
        return +table

    def turns_into(self, piece: str, wanted: str) -> bool:
        return (piece == HIDDEN) != (wanted == HIDDEN) and piece[0] in "GRh" and wanted[0] in "GRh"

    def family(self, piece: str) -> str:
        return "chip" if piece[0] in "GR" else piece

    @staticmethod
    def _place(place: str, state: GoldgraeberState) -> Phrase:
        kind, _, rest = place.partition(":")
        if kind == "field":
            return field_words(rest, state)
        if kind == "loot":
            return Phrase(message=N_("under the robber on {field}"), params={"field": field_words(rest, state)})
        words = N_("{name}'s open chips") if kind == "open" else N_("{name}'s house")
        return Phrase(message=words, params={"name": state.names[int(rest)]})

    def say(self, changes: list[Change], now: Value, wanted: Value) -> Instruction:
        assert isinstance(now, GoldgraeberState) and isinstance(wanted, GoldgraeberState)
        first = changes[0]
        fields = tuple(place.partition(":")[2] for place in (first.source, first.target)
                       if place.startswith(("field:", "loot:")))
        source, target = self._place(first.source, now), self._place(first.target, wanted)
        params: dict[str, object] = {"source": source, "target": target}
        if first.piece.startswith("figure:"):
            params["name"] = now.names[int(first.piece[7:])]
            message = N_("Move {name}'s figure back from {source} to {target}.")
        elif first.piece == "locomotive":
            message = N_("Move the locomotive back from {source} to {target}.")
        elif first.piece == "raft":
            message = N_("Move the raft back from {source} to {target}.")
        elif first.becomes == HIDDEN:
            params["chips"] = _listing([chip_words(c.piece) for c in changes for _ in range(c.count)])
            message = (N_("Turn {chips} on {target} face down again.") if first.source == first.target else
                       N_("Lay {chips} from {source} face down back onto {target}."))
        elif first.piece == HIDDEN:  # only after a refused move: a chip turned that should have stayed down
            message = N_("Turn the chip on {source} face down again.")
        else:
            params["chips"] = _listing([chip_words(c.piece) for c in changes for _ in range(c.count)])
            message = N_("Put {chips} from {source} back to {target}.")
        return Instruction(message=message, params=params, places=fields)


def _listing(phrases: list[Phrase]) -> Phrase:
    return Phrase(message=", ".join(f"{{p{i}}}" for i in range(len(phrases))),
                  params={f"p{i}": phrase for i, phrase in enumerate(phrases)})
