"""Goldgräber's flow at the table: a tap on a field is the destination of the due move or raft crossing."""

from __future__ import annotations

from companion.app.controllers.base import TableController


class GoldgraeberController(TableController):
    """Goldgräber: turns pass on by themselves, so `next` and `confirm` only answer notices."""

    game_id = "goldgraeber"

    def tap_field(self, field: str) -> bool:
        """The field a figure should move to (or a raft cross to); refused with its rule when not allowed."""
        expects = self.expects()
        if "move" in expects:
            return self.submit({"type": "move", "to": field})
        if "raft" in expects:
            return self.submit({"type": "raft", "to": field})
        return False
