"""Gold Connection's flow at the table: a tap on a safe becomes the arrow's move, bars are picked for
the loot or taken from a victim's box, the table-dealt safes are entered bar by bar.

`confirm` loots the picked bars (or plunders the chosen take); `next` ends the turn after a successful
loot, or sorts the tray longest rows first; `stop` is "Stop here".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.app.controllers.base import TableController, in_turn
from companion.engine.core import ActionModel, Event
from companion.games.gold_connection.rules import (
    GoldConnection,
    GoldConnectionState,
    Loot,
    Move,
    Plunder,
    auto_sort,
    top_bars,
)

if TYPE_CHECKING:
    from companion.engine.record import ActionSource
    from firmware_bridge.events import BridgeEvent

SEARCH_DISTANCE = 17  # 12 on the dice plus at most 5 chips: no longer move can ever be rolled


class GoldConnectionController(TableController):
    """Gold Connection: what is being picked for the next action lives here until it is played."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.game = GoldConnection()
        self.picked: list[str] = []
        self.take: dict[str, int] = {}
        self.pending_move: Move | None = None
        self.entering: list[str] = []

    @property
    def state(self) -> GoldConnectionState | None:
        return self.session.state if self.session is not None else None  # type: ignore[return-value]

    # -- after every change of the game, the picks start afresh --------------------------------------
    def _forget_picks(self) -> None:
        self.picked, self.take, self.pending_move, self.entering = [], {}, None, []

    def on_opened(self) -> None:
        self._forget_picks()

    def on_accepted(self, events: tuple[Event, ...]) -> None:
        self._forget_picks()

    def on_undone(self) -> None:
        self._forget_picks()

    @in_turn
    def clear_entry(self) -> None:
        """Clear drops the half-made loot or plunder too, not only the keypad."""
        super().clear_entry()
        self._forget_picks()
        self.changed()

    # -- buttons -------------------------------------------------------------------------------------
    def confirm_action(self) -> ActionModel | dict[str, Any] | None:
        """The picked bars as a loot, or the chosen take as a plunder."""
        state = self.state
        if state is None or "move" not in self.expects():  # not the robber's turn at the vault
            return None
        if self.picked:
            return {"type": "loot", "bars": list(self.picked)}
        victim = self.victim(state)
        if self.take and victim is not None:
            return Plunder(victim=victim, take=dict(self.take))
        return None

    def button(self, name: str, source: ActionSource, event: BridgeEvent | None) -> bool:
        """`stop` ends the arrow's move where it is and announces the loot roll ("Stop here")."""
        if name == "stop" and self.table.check({"type": "stop"}) is None:
            self.submit({"type": "stop"}, source, event)
            return True
        return super().button(name, source, event)

    def next_action(self) -> ActionModel | dict[str, Any] | None:
        state = self.state
        if state is None:
            return None
        if "sort" in self.expects():
            return {"type": "sort", "rows": auto_sort(state.robbers[state.current].rows, state.tray, "long")}
        if self.table.check({"type": "end_turn"}) is None:
            return {"type": "end_turn"}
        return None

    # -- what the panel shows ------------------------------------------------------------------------
    def victim(self, state: GoldConnectionState) -> int | None:
        """The other robber whose stone is under the arrow (a plunder is possible), if any."""
        arrow = state.robbers[state.current].arrow
        owner = state.stone_owner(arrow or "")
        return owner if owner is not None and owner != state.current else None

    def take_bars(self, state: GoldConnectionState) -> tuple[str, ...]:
        victim = self.victim(state)
        if victim is None or not self.take:
            return ()
        return top_bars(state.robbers[victim].rows, dict(self.take))

    # -- taps ----------------------------------------------------------------------------------------
    @in_turn
    def tap_safe(self, safe: str) -> None:
        """A tap on a safe: start safe, arrow direction, or the destination of the arrow's move (the
        shortest way; on an unnumbered safe the table is then asked where the arrow points)."""
        state = self.state
        if state is None:
            return
        expects = self.expects()
        if "choose_start" in expects:
            self.submit({"type": "choose_start", "safe": safe})
        elif "place_arrow" in expects:
            self.submit({"type": "place_arrow", "heading": safe})
        elif "move" in expects:
            self._move_to(state, safe)

    def _move_to(self, state: GoldConnectionState, safe: str) -> None:
        moves = [move for move in self.game.moves(state, SEARCH_DISTANCE) if move.path[-1] == safe]
        if not moves:
            self.submit({"type": "move", "path": [safe]})
            return
        shortest = min(len(move.path) for move in moves)
        move = next(move for move in moves if len(move.path) == shortest)
        if move.heading is not None:
            self.pending_move = Move(path=move.path)
            self.changed()
        else:
            self.submit(move)

    @in_turn
    def tap_bar(self, safe: str, bar: str) -> None:
        """A tap on a bar (on the board or its button): pick another copy, or drop them, for the loot.

        Bars cover most of a safe, so while the table waits for a safe (the start safe, where an arrow
        points, or where the arrow moves before it has moved) a tap on one of its bars is a tap on the
        safe: a person aims at the safe, and only a thin edge of it is not a bar.  The arrow's own safe
        before a move stays a loot (the rules then say to move first), never a move round the loop."""
        state = self.state
        if state is None:
            return
        expects = self.expects()
        if "choose_start" in expects or "place_arrow" in expects or (
                "move" in expects and not state.moved and safe != state.robbers[state.current].arrow):
            self.tap_safe(safe)
            return
        if "move" not in expects:
            return
        if not state.moved or safe != state.robbers[state.current].arrow:
            self.submit(Loot(bars=(bar,), safe=safe))  # the rules say why not: move first, or the arrow's safe only
            return
        picked = list(self.picked)
        if picked.count(bar) < state.safes[safe].count(bar):
            picked.append(bar)
        else:
            picked = [item for item in picked if item != bar]
        self.picked = picked
        self.changed()

    @in_turn
    def play_picks(self) -> None:
        """Loot the picked bars, or plunder the chosen take (the panel's Loot / Plunder buttons)."""
        action = self.confirm_action()
        if action is not None:
            self.submit(action)

    @in_turn
    def clear_picks(self) -> None:
        self.picked = []
        self.changed()

    @in_turn
    def add_to_take(self, row: str) -> None:
        self.take = {**self.take, row: self.take.get(row, 0) + 1}
        self.changed()

    @in_turn
    def enter_bar(self, bar: str) -> None:
        """Table-dealt setup: add a bar to the safe being entered; six bars are submitted at once."""
        state = self.state
        if state is None:
            return
        self.entering = [*self.entering, bar]
        if len(self.entering) < 6:
            self.changed()
            return
        safe = next(name for name, bars in state.safes.items() if not bars)
        bars, self.entering = list(self.entering), []
        self.submit({"type": "enter_safe", "safe": safe, "bars": bars}, then=self.redraw_if_refused)

    @in_turn
    def clear_safe_entry(self) -> None:
        self.entering = []
        self.changed()
