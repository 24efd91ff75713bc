"""Goldgräber's flow at the table: a tap on a field is the destination of the due move or raft crossing."""

from __future__ import annotations

from companion.app.controllers.base import TableController, in_turn


class GoldgraeberController(TableController):
    """Goldgräber: turns pass on by themselves, so `next` and `confirm` only answer notices."""

    @in_turn
    def tap_field(self, field: str) -> None:
        """The field a figure should move to (or a raft cross to); refused with its rule when not allowed."""
        expects = self.expects()
        if "move" in expects:
            self.submit({"type": "move", "to": field})
        elif "raft" in expects:
            self.submit({"type": "raft", "to": field})
