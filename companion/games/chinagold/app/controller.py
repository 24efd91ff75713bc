"""Chinagold's flow at the table: lines chosen by two taps, burying, hints and the Pi as opponent.

The bot (companion/games/chinagold/bot.py) searches in a worker process (`Thinker`); its answer comes
back on the UI thread and is kept only if the position is still the one it searched.  Any change of
the position (a move by touch or hardware, undo, a new game) cancels what is being worked out.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from companion.app.controllers.base import TableController, in_turn, settle
from companion.app.controllers.worker import Thinker, prepare
from companion.engine.core import N_
from companion.games.chinagold.bot import hint

if TYPE_CHECKING:
    from companion.engine.core import ActionModel, Event
    from companion.engine.record import ActionSource
    from companion.games.chinagold.rules import ChinagoldState
    from firmware_bridge.events import BridgeEvent

#: The seat the Pi plays is the one whose player has this name (any case).
PI_NAME = "Pi"


def is_pi(name: str) -> bool:
    """Whether a player's name hands that seat to the Pi."""
    return name.strip().casefold() == PI_NAME.casefold()

#: Thinking time for the Pi's own moves and for hints (the brief allows at most one second).
BOT_SECONDS = 0.8


class ChinagoldController(TableController):
    """Chinagold: `hint` asks the bot, `confirm`/`next` play the Pi's marked move."""

    bot_name = PI_NAME

    def __init__(self, *args: Any, search: Callable[[ChinagoldState, float], ActionModel | None] = hint,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.search = search
        self.thinker: Thinker[ActionModel | None] = Thinker(self.call_soon)
        self.suggestion: ActionModel | None = None
        self.selected: int | None = None
        self.bury_mode = False

    def close(self) -> None:
        self.thinker.cancel()
        super().close()

    @property
    def state(self) -> ChinagoldState | None:
        return self.session.state if self.session is not None else None  # type: ignore[return-value]

    @property
    def pi_seat(self) -> int | None:
        """The seat the Pi plays (the player named "Pi"), if any."""
        if self.session is None:
            return None
        return next((seat for seat, player in enumerate(self.session.setup.players)
                     if is_pi(player.name)), None)

    @property
    def pi_to_move(self) -> bool:
        session = self.session
        return session is not None and "turn" in self.expects() and self.pi_seat == session.game.to_move(session.state)

    @property
    def thinking(self) -> bool:
        return self.thinker.busy

    # -- the position changed ------------------------------------------------------------------------
    def on_opened(self) -> None:
        if self.session is not None and self.search is hint:
            prepare(hint.__module__)  # the worker process loads the bot now, not in the first search
        self._position_changed()

    def on_accepted(self, events: tuple[Event, ...]) -> None:
        self._position_changed()

    def on_undone(self) -> None:
        self._position_changed()

    def _position_changed(self) -> None:
        self.thinker.cancel()
        self.suggestion = None
        self.selected = None
        self.bury_mode = False
        if self.pi_to_move:
            self._think()

    # -- the bot -------------------------------------------------------------------------------------
    @in_turn
    def request_hint(self) -> None:
        """The Hint button: the bot works out a move for whoever is to move (once the tiles are thrown)."""
        self._think()

    def _think(self) -> bool:
        """Let the bot work out a move for whoever is to move; False while tiles must be thrown (no move
        to suggest yet)."""
        state = self.state
        if state is None or "turn" not in self.expects():
            return False
        self.thinker.think(partial(self.search, state, BOT_SECONDS), lambda action: self._answer(state, action))
        self.changed()
        return True

    @in_turn
    def _answer(self, state: ChinagoldState, action: ActionModel | None) -> None:
        """The bot's move, on the UI thread: marked only if the position is still the one it searched."""
        if self.state != state:
            return
        self.suggestion = action
        self.changed()

    def confirm_action(self) -> ActionModel | None:
        return self.suggestion if self.pi_to_move else None

    @in_turn
    def confirm_pi_move(self, source: ActionSource = "touch", event: BridgeEvent | None = None) -> None:
        """The table has turned the marked markers: play the Pi's move (recorded as the bot's)."""
        action = self.confirm_action()
        if action is None:
            settle(self.hardware, event, recorded=False, reason="input.no_use")
        else:
            self.submit(action, "bot", event)

    def button(self, name: str, source: ActionSource, event: BridgeEvent | None) -> bool:
        if name == "hint":
            if self._think():
                settle(self.hardware, event, recorded=True)
            else:
                self.table.show_notice(self.table.game_text(N_("A hint comes once the tiles are thrown; nothing "
                                                               "changed.")))
                settle(self.hardware, event, recorded=False, reason="input.no_use")
            return True
        if name in ("confirm", "next") and self.confirm_action() is not None:
            self.confirm_pi_move(source, event)
            return True
        return super().button(name, source, event)

    # -- touch on the board --------------------------------------------------------------------------
    @in_turn
    def tap_site(self, site: int) -> None:
        """A tap on a site: bury it (bury mode), start a line, or finish the line and submit it."""
        if "turn" not in self.expects() or self.pi_to_move:
            return
        if self.bury_mode:
            self.bury_mode = False
            self.submit({"type": "bury", "site": site})
        elif self.selected is None:
            self.selected = site
            self.changed()
        else:
            start, self.selected = self.selected, None
            self.submit({"type": "turn", "start": start, "end": site}, then=self.redraw_if_refused)

    @property
    def can_bury(self) -> bool:
        state = self.state
        return state is not None and "bury" in self.expects() and "g" in state.sites

    @in_turn
    def toggle_bury(self) -> None:
        self.bury_mode = not self.bury_mode and self.can_bury
        self.selected = None
        self.changed()
