"""Gold Connection's flow at the table: `next` passes play on (End the turn, or sort the tray)."""

from __future__ import annotations

from typing import Any

from companion.app.controllers.base import TableController
from companion.engine.core import ActionModel


class GoldConnectionController(TableController):
    """Gold Connection: `next` ends the turn after a successful loot, or sorts the tray longest rows first."""

    game_id = "gold_connection"

    def next_action(self) -> ActionModel | dict[str, Any] | None:
        from companion.games.gold_connection.rules import auto_sort

        state: Any = self.session.state if self.session is not None else None
        if state is None:
            return None
        if state.phase == "sort":
            return {"type": "sort", "rows": auto_sort(state.robbers[state.current].rows, state.tray, "long")}
        if self.table.check({"type": "end_turn"}) is None:
            return {"type": "end_turn"}
        return None
