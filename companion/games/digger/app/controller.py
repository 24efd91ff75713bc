"""Digger's flow at the table: the sand-timer protocol, time up with the colours already stowed, Stop.

The first roll of a turn (event `timer_start`) or the hourglass tilt switch starts the app's timer;
Stop or the end of a turn resets it; when it runs out the controller plays `time_up` at once, or first
asks which colours were already stowed when the house rule DIG-R5 allows it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.app.controllers.base import TableController, in_turn, settle
from companion.games.digger.rules import COLOURS

if TYPE_CHECKING:
    from companion.engine.core import ActionModel, Event
    from companion.engine.record import ActionSource
    from firmware_bridge.events import BridgeEvent


class DiggerController(TableController):
    """Digger: the sand timer follows the game; `stop` calls Stop (or confirms time up), `next` too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.time_up_pending = False
        self.stowed: list[str] = []
        self._sand_was_running = False
        if self.timer is not None:
            self.timer.bind(on_time_up=self._sand_ran_out)

    def close(self) -> None:
        if self.timer is not None:
            self.timer.unbind(on_time_up=self._sand_ran_out)
            self.timer.reset()
        super().close()

    @property
    def state(self) -> Any:
        return self.session.state if self.session is not None else None

    @property
    def waiting(self) -> list[str]:
        """Colours taken this turn and not yet stowed."""
        state = self.state
        return [colour for colour in COLOURS if state is not None and state.waiting.count(colour)]

    # -- following the game --------------------------------------------------------------------------
    def on_opened(self) -> None:
        self.time_up_pending = False
        self.stowed = []
        state = self.state
        self._sand_was_running = bool(state is not None and state.timer_running)
        if self.timer is not None:
            self.timer.reset(state.rules.timer_seconds if state is not None else None)

    def on_accepted(self, events: tuple[Event, ...]) -> None:
        """The first roll of a turn starts the timer (unless the hourglass already did)."""
        kinds = {event.kind for event in events}
        state = self.state
        if self.timer is not None and "timer_start" in kinds and not self.timer.running:
            self.timer.start(state.rules.timer_seconds)
        if kinds & {"stop", "fumble", "time_up", "game_over"}:
            self.time_up_pending = False
            self.stowed = []
            if self.timer is not None:
                self.timer.reset(state.rules.timer_seconds)
        self._sand_was_running = state.timer_running

    def on_undone(self) -> None:
        """The first roll of the turn taken back: no sand runs for this turn any more."""
        state = self.state
        if self.time_up_pending and not state.timer_running:
            self.time_up_pending = False
        if self.timer is not None and self._sand_was_running and not state.timer_running and not self.timer.expired:
            self.timer.reset(state.rules.timer_seconds)
        self._sand_was_running = state.timer_running

    # -- buttons -------------------------------------------------------------------------------------
    def button(self, name: str, source: ActionSource, event: BridgeEvent | None) -> bool:
        if name in ("stop", "next", "confirm") and self.time_up_pending:
            self.confirm_time_up(source, event)
            return True
        if name == "stop":
            self.submit({"type": "stop"}, source, event)
            return True
        if name == "hourglass":
            self.turn_hourglass()
            settle(self.hardware, event, recorded=True)
            return True
        return super().button(name, source, event)

    def next_action(self) -> ActionModel | dict[str, Any] | None:
        """`next` ends the digger's turn: Stop."""
        return {"type": "stop"} if self.table.check({"type": "stop"}) is None else None

    # -- the sand timer ------------------------------------------------------------------------------
    @property
    def timer_idle_but_running(self) -> bool:
        """The rules say the sand runs, but the app's timer was never turned (e.g. after a restart)."""
        state = self.state
        return bool(state is not None and state.timer_running and self.timer is not None and not self.timer.started)

    @in_turn
    def turn_hourglass(self) -> None:
        """The tilt switch (or the on-screen button): the sand runs from full."""
        state = self.state
        if state is not None and not state.over and self.timer is not None:
            self.timer.start(state.rules.timer_seconds)
            self.changed()

    @in_turn
    def _sand_ran_out(self, *_args: Any) -> None:
        """Sand ran out: time up now, or first ask which colours were already stowed."""
        state = self.state
        if state is None or state.over or not state.timer_running:
            if self.timer is not None:
                self.timer.reset(state.rules.timer_seconds if state is not None else None)
            return
        if self.waiting and state.rules.time_up_keeps_stowed:
            self.stowed = []
            self.time_up_pending = True
            self.changed()
            self.show_table()
        else:
            self.submit({"type": "time_up", "stowed": []}, "virtual")

    @in_turn
    def toggle_stowed(self, colour: str) -> None:
        self.stowed = [c for c in self.stowed if c != colour] if colour in self.stowed else [*self.stowed, colour]
        self.changed()

    @in_turn
    def confirm_time_up(self, source: ActionSource = "touch", event: BridgeEvent | None = None) -> None:
        """Time up with the colours marked as stowed (accepted, `on_accepted` ends the question)."""
        self.submit({"type": "time_up", "stowed": [colour for colour in COLOURS if colour in self.stowed]},
                    source, event)

    @in_turn
    def call_time(self) -> None:
        """The keeper calls time by hand (e.g. the app was restarted mid-turn)."""
        state = self.state
        if state is not None and state.timer_running:
            if self.timer is not None:
                self.timer.reset(state.rules.timer_seconds)
            self.stowed = []
            if self.waiting and state.rules.time_up_keeps_stowed:
                self.time_up_pending = True
                self.changed()
            else:
                self.submit({"type": "time_up", "stowed": []}, "touch")
